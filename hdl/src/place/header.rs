//! `PlaceHeader`: the DDP/RDMAP header of each verified ULPDU, decoded and validated.
//!
//! RFC 5041 section 5 (tagged header, 14 octets; untagged, 18), RFC 5040 section 4 (RDMAP
//! control, opcodes; the RDMA Read Request header, 28 octets; the Terminate Control), RFC 5044
//! section 8 (the MPA errors `mpa_rx` reports). Every ULPDU packet from `mpa_rx` passes through
//! unchanged into a 32-beat FIFO (`m_axis`, for the writer); its first 46 octets are kept and,
//! once captured (or once the ULPDU ends), decoded into one header record (`hdr`):
//!
//! ```text
//!  s_axis ─► StreamSkid ─┬─► StreamFifo (32 beats) ─► m_axis (every beat, header included)
//!                        └─► capture (46 octets, beat by beat) ─► decode + validate ─► hdr (registered)
//! ```
//!
//! Validation, in the order of `golden::ddp::decode_with` (the first rule that fails gives the
//! record's Terminate code, `term` encoding): a ULPDU shorter than 2 octets 1/0/0; DV not the
//! connection's version 1/1/4 (tagged) or 1/2/6 (untagged); RV 0/2/5; a reserved opcode (8-15)
//! or one whose DDP model disagrees with T 0/2/6; shorter than its header (14 tagged, 18
//! untagged) 1/0/0; untagged QN not the opcode's queue (0 Send, 1 Read Request, 2 Terminate)
//! 1/2/1; a Read Request or Terminate without L 0/2/0xFF; a Read Request whose payload is not 28
//! octets, or a Terminate shorter than its 4-octet Terminate Control, 0/2/0xFF. `mpa_rx`'s error
//! packet becomes a record with MPA code 2/0/1..3. Reserved bits are not checked.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_rdmac` | in | 1 | the connection speaks the RDMAC drafts: DV = RV = 0 (else 1) |
//! | `s_axis` | in | 8W | ULPDU packets ([`HDR_IN_USER`]: `[50:0]` as `mpa_rx`'s `RX_ULPDU_USER`: `[31:0]` sequence number, `[47:32]` ULPDU_Length, `[48]` error packet, `[50:49]` its code; `[52:51]` the mode, [`MODE_INORDER`], [`MODE_PROBE`] or [`MODE_PLACE`]) |
//! | `m_axis` | out | 8W | the same beats (data, keep, last; `user` 0), registered; a probe's beats are not forwarded |
//! | `hdr` | out | | one record per ULPDU ([`HeaderOut`], with the packet's mode), registered, held until `hdr.ready` |
//! | `busy` | out | 1 | a beat in the input slice, inside a packet (its last beat not taken yet), or a record not yet taken: low, the input is at a packet boundary and every record is out |
//!
//! The mode (sampled from every beat for the FIFO, from the first beat for the record) is how
//! the out-of-order placement of `rnic_rx` shares this block and the checker with the in-order
//! path: a *probe* is a ULPDU located in an out-of-order segment whose header is to be checked
//! without writing anything (its beats are dropped here), a *place* ULPDU is one whose segment
//! was accepted and whose payload is to be written (its beats go to the writer as usual).
//!
//! ### On bad input
//! Every malformed header gives a record with `err` set and its code; the beats still go to
//! `m_axis` (the checker tells the writer to discard them). Octets past ULPDU_Length are never
//! used: the echo is zeroed beyond it and no field is trusted unless the length covers it.
//!
//! ### Parameters
//! `W` bytes per beat (4..64), `B = 8W`.
//!
//! ### Latency and throughput
//! The input slice holds each beat one cycle; the record is valid two cycles after the beat
//! that completes the capture (the 46th octet or the ULPDU's last beat) leaves it. Beats flow
//! at one per cycle; the first beat of a ULPDU waits while the previous ULPDU's record has not
//! moved into the output register (a record a cycle at most, so short ULPDUs cost a cycle
//! each).
//!
//! ### Reset
//! `rst` empties the FIFO and drops any record.

use crate::place::{term, ECHO_OCTETS, HEADER_CAPTURE_BITS};
use crate::sideband::PlaceUlpduUserFields;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_fifo::StreamFifo;
use crate::stream_skid::StreamSkid;
use rust_hdl::prelude::*;

/// Bits of the echoed header.
pub const ECHO_BITS: usize = 8 * ECHO_OCTETS;
pub use crate::sideband::HDR_IN_USER;
/// Mode: a ULPDU of the in-order stream (`mpa_rx`).
pub const MODE_INORDER: u64 = 0;
/// Mode: a ULPDU located out of order whose header is only checked (its beats are dropped).
pub const MODE_PROBE: u64 = 1;
/// Mode: a ULPDU located out of order, placed now (its beats go to the writer).
pub const MODE_PLACE: u64 = 2;
const CAP: usize = HEADER_CAPTURE_BITS;

/// One decoded ULPDU header, offered by [`PlaceHeader`] (the source view).
#[derive(LogicInterface, Default)]
#[join = "HeaderIn"]
pub struct HeaderOut {
    /// A record is offered.
    pub valid: Signal<Out, Bit>,
    /// The consumer takes it.
    pub ready: Signal<In, Bit>,
    /// Sequence number of the FPDU.
    pub seq: Signal<Out, Bits<32>>,
    /// ULPDU_Length.
    pub ulen: Signal<Out, Bits<16>>,
    /// The ULPDU is not a valid DDP segment, or this is `mpa_rx`'s error packet.
    pub err: Signal<Out, Bit>,
    /// `err` came from `mpa_rx` (no DDP header to echo).
    pub mpa: Signal<Out, Bit>,
    /// Terminate code when `err` (`layer << 12 | type << 8 | code`).
    pub code: Signal<Out, Bits<16>>,
    /// T: tagged.
    pub tagged: Signal<Out, Bit>,
    /// L: last segment of its message.
    pub last: Signal<Out, Bit>,
    /// RDMAP opcode.
    pub opcode: Signal<Out, Bits<4>>,
    /// Tagged: the STag; untagged: the Invalidate STag (RsvdULP).
    pub stag: Signal<Out, Bits<32>>,
    /// Tagged: TO.
    pub to: Signal<Out, Bits<64>>,
    /// Untagged: QN (validated: 0, 1 or 2).
    pub qn: Signal<Out, Bits<2>>,
    /// Untagged: MSN.
    pub msn: Signal<Out, Bits<32>>,
    /// Untagged: MO.
    pub mo: Signal<Out, Bits<32>>,
    /// Payload octets (ULPDU_Length minus the header).
    pub plen: Signal<Out, Bits<16>>,
    /// Header octets (14 or 18): where the payload starts in the ULPDU.
    pub skip: Signal<Out, Bits<5>>,
    /// Read Request: data sink STag.
    pub sink_stag: Signal<Out, Bits<32>>,
    /// Read Request: data sink TO.
    pub sink_to: Signal<Out, Bits<64>>,
    /// Read Request: size.
    pub rd_size: Signal<Out, Bits<32>>,
    /// Read Request: data source STag.
    pub src_stag: Signal<Out, Bits<32>>,
    /// Read Request: data source TO.
    pub src_to: Signal<Out, Bits<64>>,
    /// Terminate: the first 16 bits of its Terminate Control (layer, type, code).
    pub tctl: Signal<Out, Bits<16>>,
    /// The first 18 octets of the ULPDU in wire order (octet 0 in bits 7:0), 0 past its end.
    pub echo: Signal<Out, Bits<ECHO_BITS>>,
    /// The packet's mode ([`MODE_INORDER`], [`MODE_PROBE`], [`MODE_PLACE`]).
    pub mode: Signal<Out, Bits<2>>,
}

/// The consumer's view of [`HeaderOut`].
#[derive(LogicInterface, Default)]
#[join = "HeaderOut"]
pub struct HeaderIn {
    /// See [`HeaderOut`].
    pub valid: Signal<In, Bit>,
    /// See [`HeaderOut`].
    pub ready: Signal<Out, Bit>,
    /// See [`HeaderOut`].
    pub seq: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub ulen: Signal<In, Bits<16>>,
    /// See [`HeaderOut`].
    pub err: Signal<In, Bit>,
    /// See [`HeaderOut`].
    pub mpa: Signal<In, Bit>,
    /// See [`HeaderOut`].
    pub code: Signal<In, Bits<16>>,
    /// See [`HeaderOut`].
    pub tagged: Signal<In, Bit>,
    /// See [`HeaderOut`].
    pub last: Signal<In, Bit>,
    /// See [`HeaderOut`].
    pub opcode: Signal<In, Bits<4>>,
    /// See [`HeaderOut`].
    pub stag: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub to: Signal<In, Bits<64>>,
    /// See [`HeaderOut`].
    pub qn: Signal<In, Bits<2>>,
    /// See [`HeaderOut`].
    pub msn: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub mo: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub plen: Signal<In, Bits<16>>,
    /// See [`HeaderOut`].
    pub skip: Signal<In, Bits<5>>,
    /// See [`HeaderOut`].
    pub sink_stag: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub sink_to: Signal<In, Bits<64>>,
    /// See [`HeaderOut`].
    pub rd_size: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub src_stag: Signal<In, Bits<32>>,
    /// See [`HeaderOut`].
    pub src_to: Signal<In, Bits<64>>,
    /// See [`HeaderOut`].
    pub tctl: Signal<In, Bits<16>>,
    /// See [`HeaderOut`].
    pub echo: Signal<In, Bits<ECHO_BITS>>,
    /// See [`HeaderOut`].
    pub mode: Signal<In, Bits<2>>,
}

/// The header block; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceHeader<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// RDMAC version (DV = RV = 0).
    pub cfg_rdmac: Signal<In, Bit>,
    /// ULPDU packets from `mpa_rx`.
    pub s_axis: StreamSink<W, B, HDR_IN_USER>,
    /// The same beats, for the writer.
    pub m_axis: StreamSource<W, B, 1>,
    /// One decoded header per ULPDU.
    pub hdr: HeaderOut,
    /// A beat in the input slice, inside a packet or a record not taken (registers only).
    pub busy: Signal<Out, Bit>,
    inp: StreamSkid<W, B, HDR_IN_USER>,
    fifo: StreamFifo<W, B, 1>,
    // Capture.
    in_pkt: DFF<Bit>,
    bidx: DFF<Bits<8>>,
    cap: DFF<Bits<CAP>>,
    cuser: DFF<Bits<HDR_IN_USER>>,
    /// The input beat's mode.
    s_mode: Signal<Local, Bits<2>>,
    full: DFF<Bit>,
    // The record.
    o_valid: DFF<Bit>,
    o_seq: DFF<Bits<32>>,
    o_ulen: DFF<Bits<16>>,
    o_err: DFF<Bit>,
    o_mpa: DFF<Bit>,
    o_code: DFF<Bits<16>>,
    o_tagged: DFF<Bit>,
    o_last: DFF<Bit>,
    o_opcode: DFF<Bits<4>>,
    o_stag: DFF<Bits<32>>,
    o_to: DFF<Bits<64>>,
    o_qn: DFF<Bits<2>>,
    o_msn: DFF<Bits<32>>,
    o_mo: DFF<Bits<32>>,
    o_plen: DFF<Bits<16>>,
    o_skip: DFF<Bits<5>>,
    o_sink_stag: DFF<Bits<32>>,
    o_sink_to: DFF<Bits<64>>,
    o_rd_size: DFF<Bits<32>>,
    o_src_stag: DFF<Bits<32>>,
    o_src_to: DFF<Bits<64>>,
    o_tctl: DFF<Bits<16>>,
    o_echo: DFF<Bits<ECHO_BITS>>,
    o_mode: DFF<Bits<2>>,
    // Constants.
    c_lomask: Vec<Constant<Bits<CAP>>>,
    c_shift: Vec<Constant<Bits<16>>>,
    c_beat: Vec<Constant<Bits<8>>>,
    c_nb: Constant<Bits<8>>,
    c_octet: Vec<Constant<Bits<16>>>,
    c_ff: Vec<Constant<Bits<ECHO_BITS>>>,
    c_e_mpa: Constant<Bits<16>>,
    c_e_cat: Constant<Bits<16>>,
    c_e_uver: Constant<Bits<16>>,
    c_e_tver: Constant<Bits<16>>,
    c_e_rver: Constant<Bits<16>>,
    c_e_op: Constant<Bits<16>>,
    c_e_qn: Constant<Bits<16>>,
    c_e_unspec: Constant<Bits<16>>,
    // Combinational.
    take: Signal<Local, Bit>,
    idx: Signal<Local, Bits<8>>,
    le: Vec<Signal<Local, Bits<32>>>,
    be: Vec<Signal<Local, Bits<32>>>,
    u_len: Signal<Local, Bits<16>>,
    c0: Signal<Local, Bits<8>>,
    c1: Signal<Local, Bits<8>>,
    t_bit: Signal<Local, Bit>,
    l_bit: Signal<Local, Bit>,
    dv: Signal<Local, Bits<2>>,
    rv: Signal<Local, Bits<2>>,
    op: Signal<Local, Bits<4>>,
    ver: Signal<Local, Bits<2>>,
    op_tagged: Signal<Local, Bit>,
    qn_exp: Signal<Local, Bits<32>>,
    hlen: Signal<Local, Bits<16>>,
    plen: Signal<Local, Bits<16>>,
    code: Signal<Local, Bits<16>>,
    bad: Signal<Local, Bit>,
    emask: Signal<Local, Bits<ECHO_BITS>>,
    move_out: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> PlaceHeader<W, B> {
    /// Builds the block; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("PlaceHeader", W, B, HDR_IN_USER);
        crate::tx::check_tx_width("PlaceHeader", W);
        let nb = Self::capture_beats();
        let c16 = |v: u16| Constant::new(Bits::<16>::from(v as u64));
        let lomask = |i: usize| -> Bits<CAP> {
            if i == 0 {
                Bits::default()
            } else {
                Bits::<CAP>::mask() >> ((CAP - i * B) as u64)
            }
        };
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_rdmac: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            hdr: Default::default(),
            busy: Default::default(),
            inp: StreamSkid::new(),
            fifo: StreamFifo::new(),
            in_pkt: Default::default(),
            bidx: Default::default(),
            cap: Default::default(),
            cuser: Default::default(),
            s_mode: Default::default(),
            full: Default::default(),
            o_valid: Default::default(),
            o_seq: Default::default(),
            o_ulen: Default::default(),
            o_err: Default::default(),
            o_mpa: Default::default(),
            o_code: Default::default(),
            o_tagged: Default::default(),
            o_last: Default::default(),
            o_opcode: Default::default(),
            o_stag: Default::default(),
            o_to: Default::default(),
            o_qn: Default::default(),
            o_msn: Default::default(),
            o_mo: Default::default(),
            o_plen: Default::default(),
            o_skip: Default::default(),
            o_sink_stag: Default::default(),
            o_sink_to: Default::default(),
            o_rd_size: Default::default(),
            o_src_stag: Default::default(),
            o_src_to: Default::default(),
            o_tctl: Default::default(),
            o_echo: Default::default(),
            o_mode: Default::default(),
            c_lomask: (0..nb).map(|i| Constant::new(lomask(i))).collect(),
            c_shift: (0..nb).map(|i| Constant::new(((i * B) as u64).into())).collect(),
            c_beat: (0..nb).map(|i| Constant::new((i as u64).into())).collect(),
            c_nb: Constant::new((nb as u64).into()),
            c_octet: (0..ECHO_OCTETS).map(|k| Constant::new((k as u64).into())).collect(),
            c_ff: (0..ECHO_OCTETS)
                .map(|k| Constant::new(Bits::<ECHO_BITS>::from(0xFFu64) << (8 * k as u64)))
                .collect(),
            c_e_mpa: c16(term::encode(2, 0, 0)),
            c_e_cat: c16(term::DDP_CATASTROPHIC),
            c_e_uver: c16(term::DDP_UNTAGGED_VERSION),
            c_e_tver: c16(term::DDP_TAGGED_VERSION),
            c_e_rver: c16(term::RDMAP_VERSION),
            c_e_op: c16(term::RDMAP_OPCODE),
            c_e_qn: c16(term::DDP_UNTAGGED_QN),
            c_e_unspec: c16(term::RDMAP_UNSPECIFIED),
            take: Default::default(),
            idx: Default::default(),
            le: (0..11).map(|_| Default::default()).collect(),
            be: (0..11).map(|_| Default::default()).collect(),
            u_len: Default::default(),
            c0: Default::default(),
            c1: Default::default(),
            t_bit: Default::default(),
            l_bit: Default::default(),
            dv: Default::default(),
            rv: Default::default(),
            op: Default::default(),
            ver: Default::default(),
            op_tagged: Default::default(),
            qn_exp: Default::default(),
            hlen: Default::default(),
            plen: Default::default(),
            code: Default::default(),
            bad: Default::default(),
            emask: Default::default(),
            move_out: Default::default(),
        }
    }

    /// Beats that hold the captured 46 octets.
    pub const fn capture_beats() -> usize {
        CAP.div_ceil(B)
    }
}

impl<const W: usize, const B: usize> Default for PlaceHeader<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for PlaceHeader<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_pkt,
            bidx,
            cap,
            cuser,
            full,
            o_valid,
            o_seq,
            o_ulen,
            o_err,
            o_mpa,
            o_code,
            o_tagged,
            o_last,
            o_opcode,
            o_stag,
            o_to,
            o_qn,
            o_msn,
            o_mo,
            o_plen,
            o_skip,
            o_sink_stag,
            o_sink_to,
            o_rd_size,
            o_src_stag,
            o_src_to,
            o_tctl,
            o_echo,
            o_mode
        );
        self.fifo.clock.next = self.clock.val();
        self.fifo.rst.next = self.rst.val();
        self.m_axis.data.next = self.fifo.m_axis.data.val();
        self.m_axis.keep.next = self.fifo.m_axis.keep.val();
        self.m_axis.user.next = self.fifo.m_axis.user.val();
        self.m_axis.last.next = self.fifo.m_axis.last.val();
        self.m_axis.valid.next = self.fifo.m_axis.valid.val();
        self.fifo.m_axis.ready.next = self.m_axis.ready.val();

        // ---- Input: a register slice (the header block's input is a multiplexer of `mpa_rx`'s
        // ULPDUs and the out-of-order probes in `rnic_rx`; its handshake and the capture's
        // enables start from registers); then every beat into the FIFO, the first beats also
        // into the capture. ----
        self.inp.clock.next = self.clock.val();
        self.inp.rst.next = self.rst.val();
        self.inp.s_axis.data.next = self.s_axis.data.val();
        self.inp.s_axis.keep.next = self.s_axis.keep.val();
        self.inp.s_axis.user.next = self.s_axis.user.val();
        self.inp.s_axis.last.next = self.s_axis.last.val();
        self.inp.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.inp.s_axis.ready.val();
        // A new ULPDU waits while the previous one's capture has not moved out; a probe's beats
        // do not wait for room in the FIFO.
        // Mode bit 0: MODE_PROBE.
        self.s_mode.next = self.inp.m_axis.user.val().get_value_place_ulpdu_mode();
        self.inp.m_axis.ready.next = (self.fifo.s_axis.ready.val() | self.s_mode.val().get_bit(0))
            & !(self.full.q.val() & !self.in_pkt.q.val());
        self.take.next = self.inp.m_axis.valid.val() & self.inp.m_axis.ready.val();
        self.fifo.s_axis.data.next = self.inp.m_axis.data.val();
        self.fifo.s_axis.keep.next = self.inp.m_axis.keep.val();
        self.fifo.s_axis.user.next = 0.into();
        self.fifo.s_axis.last.next = self.inp.m_axis.last.val();
        // A probe's beats are not forwarded (nothing of it is written).
        self.fifo.s_axis.valid.next = self.take.val() & !self.s_mode.val().get_bit(0);
        self.idx.next = self.bidx.q.val();
        if !self.in_pkt.q.val() {
            self.idx.next = 0.into();
        }
        if self.take.val() {
            self.in_pkt.d.next = !self.inp.m_axis.last.val();
            if !self.in_pkt.q.val() {
                self.cuser.d.next = self.inp.m_axis.user.val();
            }
            for i in 0..self.c_beat.len() {
                if self.idx.val() == self.c_beat[i].val() {
                    self.cap.d.next = (self.cap.q.val() & self.c_lomask[i].val())
                        | (bit_cast::<CAP, B>(self.inp.m_axis.data.val()) << self.c_shift[i].val());
                }
            }
            if self.idx.val() < self.c_nb.val() {
                self.bidx.d.next = self.idx.val() + 1;
                if self.inp.m_axis.last.val() | ((self.idx.val() + 1) == self.c_nb.val()) {
                    self.full.d.next = true;
                }
            }
        }

        // ---- Decode the capture (RFC 5041 section 5: big-endian fields). ----
        // be[k]: the 32-bit big-endian value at octet 2 + 4k (the little-endian word, swapped).
        for k in 0..11 {
            self.le[k].next = self.cap.q.val().get_bits::<32>(16 + 32 * k);
            self.be[k].next = (self.le[k].val() << 24)
                | ((self.le[k].val() << 8) & 0x00FF_0000)
                | ((self.le[k].val() >> 8) & 0x0000_FF00)
                | (self.le[k].val() >> 24);
        }
        self.u_len.next = self.cuser.q.val().get_value_place_ulpdu_len();
        self.c0.next = self.cap.q.val().get_bits::<8>(0);
        self.c1.next = self.cap.q.val().get_bits::<8>(8);
        self.t_bit.next = self.c0.val().get_bit(7);
        self.l_bit.next = self.c0.val().get_bit(6);
        self.dv.next = self.c0.val().get_bits::<2>(0);
        self.rv.next = self.c1.val().get_bits::<2>(6);
        self.op.next = self.c1.val().get_bits::<4>(0);
        self.ver.next = 1.into();
        if self.cfg_rdmac.val() {
            self.ver.next = 0.into();
        }
        self.op_tagged.next = (self.op.val() == 0) | (self.op.val() == 2);
        self.qn_exp.next = 0.into();
        if self.op.val() == 1 {
            self.qn_exp.next = 1.into();
        }
        if self.op.val() == 7 {
            self.qn_exp.next = 2.into();
        }
        self.hlen.next = 18.into();
        if self.t_bit.val() {
            self.hlen.next = 14.into();
        }
        self.plen.next = self.u_len.val() - self.hlen.val();
        // The rules, first failure wins (golden::ddp::decode_with).
        self.bad.next = true;
        self.code.next = 0.into();
        if self.cuser.q.val().get_value_place_ulpdu_err() {
            self.code.next = bit_cast::<16, 2>(self.cuser.q.val().get_value_place_ulpdu_code())
                | self.c_e_mpa.val();
        } else if self.u_len.val() < 2 {
            self.code.next = self.c_e_cat.val();
        } else if self.dv.val() != self.ver.val() {
            self.code.next = self.c_e_uver.val();
            if self.t_bit.val() {
                self.code.next = self.c_e_tver.val();
            }
        } else if self.rv.val() != self.ver.val() {
            self.code.next = self.c_e_rver.val();
        } else if self.op.val().get_bit(3) | (self.op_tagged.val() != self.t_bit.val()) {
            self.code.next = self.c_e_op.val();
        } else if self.u_len.val() < self.hlen.val() {
            self.code.next = self.c_e_cat.val();
        } else if !self.t_bit.val() & (self.be[1].val() != self.qn_exp.val()) {
            self.code.next = self.c_e_qn.val();
        } else if ((self.op.val() == 1) | (self.op.val() == 7)) & !self.l_bit.val() {
            self.code.next = self.c_e_unspec.val();
        } else if (self.op.val() == 1) & (self.plen.val() != 28) {
            self.code.next = self.c_e_unspec.val();
        } else if (self.op.val() == 7) & (self.plen.val() < 4) {
            self.code.next = self.c_e_unspec.val();
        } else {
            self.bad.next = false;
        }
        // The echo: octets below ULPDU_Length.
        self.emask.next = 0.into();
        for k in 0..self.c_octet.len() {
            if self.u_len.val() > self.c_octet[k].val() {
                self.emask.next = self.emask.val() | self.c_ff[k].val();
            }
        }

        // ---- The record: moved out when the capture is complete and the output is free. ----
        self.move_out.next = self.full.q.val() & (!self.o_valid.q.val() | self.hdr.ready.val());
        if self.hdr.ready.val() {
            self.o_valid.d.next = false;
        }
        if self.move_out.val() {
            self.full.d.next = false;
            self.o_valid.d.next = true;
            self.o_seq.d.next = self.cuser.q.val().get_value_place_ulpdu_seq();
            self.o_ulen.d.next = self.u_len.val();
            self.o_err.d.next = self.bad.val();
            self.o_mpa.d.next = self.cuser.q.val().get_value_place_ulpdu_err();
            self.o_code.d.next = self.code.val();
            self.o_tagged.d.next = self.t_bit.val();
            self.o_last.d.next = self.l_bit.val();
            self.o_opcode.d.next = self.op.val();
            self.o_stag.d.next = self.be[0].val();
            self.o_to.d.next =
                (bit_cast::<64, 32>(self.be[1].val()) << 32) | bit_cast::<64, 32>(self.be[2].val());
            self.o_qn.d.next = self.be[1].val().get_bits::<2>(0);
            self.o_msn.d.next = self.be[2].val();
            self.o_mo.d.next = self.be[3].val();
            self.o_plen.d.next = self.plen.val();
            self.o_skip.d.next = self.hlen.val().get_bits::<5>(0);
            self.o_sink_stag.d.next = self.be[4].val();
            self.o_sink_to.d.next =
                (bit_cast::<64, 32>(self.be[5].val()) << 32) | bit_cast::<64, 32>(self.be[6].val());
            self.o_rd_size.d.next = self.be[7].val();
            self.o_src_stag.d.next = self.be[8].val();
            self.o_src_to.d.next = (bit_cast::<64, 32>(self.be[9].val()) << 32)
                | bit_cast::<64, 32>(self.be[10].val());
            self.o_tctl.d.next = self.be[4].val().get_bits::<16>(16);
            self.o_echo.d.next = self.cap.q.val().get_bits::<ECHO_BITS>(0) & self.emask.val();
            self.o_mode.d.next = self.cuser.q.val().get_value_place_ulpdu_mode();
        }
        self.hdr.valid.next = self.o_valid.q.val();
        self.hdr.seq.next = self.o_seq.q.val();
        self.hdr.ulen.next = self.o_ulen.q.val();
        self.hdr.err.next = self.o_err.q.val();
        self.hdr.mpa.next = self.o_mpa.q.val();
        self.hdr.code.next = self.o_code.q.val();
        self.hdr.tagged.next = self.o_tagged.q.val();
        self.hdr.last.next = self.o_last.q.val();
        self.hdr.opcode.next = self.o_opcode.q.val();
        self.hdr.stag.next = self.o_stag.q.val();
        self.hdr.to.next = self.o_to.q.val();
        self.hdr.qn.next = self.o_qn.q.val();
        self.hdr.msn.next = self.o_msn.q.val();
        self.hdr.mo.next = self.o_mo.q.val();
        self.hdr.plen.next = self.o_plen.q.val();
        self.hdr.skip.next = self.o_skip.q.val();
        self.hdr.sink_stag.next = self.o_sink_stag.q.val();
        self.hdr.sink_to.next = self.o_sink_to.q.val();
        self.hdr.rd_size.next = self.o_rd_size.q.val();
        self.hdr.src_stag.next = self.o_src_stag.q.val();
        self.hdr.src_to.next = self.o_src_to.q.val();
        self.hdr.tctl.next = self.o_tctl.q.val();
        self.hdr.echo.next = self.o_echo.q.val();
        self.hdr.mode.next = self.o_mode.q.val();
        self.busy.next = self.inp.m_axis.valid.val()
            | self.in_pkt.q.val()
            | self.full.q.val()
            | self.o_valid.q.val();

        if self.rst.val() {
            self.in_pkt.d.next = false;
            self.bidx.d.next = 0.into();
            self.full.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
