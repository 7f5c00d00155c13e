//! `TxFramer`: ULPDUs in, FPDUs without Markers out (RFC 5044 section 4.1).
//!
//! Each ULPDU becomes `ULPDU_Length(2) ULPDU PAD(0..3 zero) CRC(4, zero)`: the FPDU as it is
//! before Markers are inserted (4.3) and before the CRC unit fills the CRC field (4.4). The
//! ULPDU_Length field is big-endian (4.1); the PAD makes `2 + ULPDU_Length + PAD` a multiple of 4,
//! so the whole output is a whole number of 4-octet words: `P = (ULPDU_Length + 5) / 4 + 1` words
//! (integer division), which travel to the next blocks on `m_axis.user`.
//!
//! ```text
//!  s_axis beat k:   | u(kW) ... u(kW+W-1) |
//!  m_axis beat k:   | carry(2) | u(kW) ... u(kW+W-3) |     carry = last 2 octets of beat k-1
//!  m_axis beat 0:   | L_hi L_lo | u0 ... u(W-3) |           (ULPDU_Length in front)
//!  after the ULPDU: zeros (PAD, CRC field), keep ends at 4P octets
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_markers`, `cfg_crc` | in | 1 | this direction's settings, sampled with each ULPDU's first beat and carried on `m_axis.user` |
//! | `s_axis` | in | 8W | ULPDUs, one per packet; `user[15:0]` = ULPDU_Length and `user[16]` = push (close the TCP segment after this FPDU), both read on the first beat; an empty ULPDU is one null beat (keep 0) |
//! | `m_axis` | out | 8W | one FPDU (without Markers) per packet, lane 0 = its first octet; every beat not `last` is full |
//! | `m_axis.user` | out | 17 | on every beat of the FPDU: `[13:0]` P (words, CRC field included), `[14]` markers, `[15]` CRC, `[16]` push |
//! | `err_length` | out | 1 | one-cycle pulse, two cycles after the ULPDU's last beat is taken: its octet count disagreed with its ULPDU_Length |
//! | `err_oversize` | out | 1 | one-cycle pulse: a ULPDU with ULPDU_Length above 64768 (RFC 5044 section 3) was dropped |
//!
//! Bad input has a defined outcome. The FPDU always carries exactly ULPDU_Length octets: a
//! ULPDU that ends early is completed with zeros, extra octets are discarded (up to the ULPDU's
//! `last`), and `err_length` pulses; either way the wire stays well framed. A ULPDU_Length above
//! 64768 is not framed at all: the ULPDU is consumed and discarded and `err_oversize` pulses.
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W` (checked in `new`). From W = 16
//! ([`crate::tx::TX_WIDE_FORMS_FROM_W`]) the length check registers the lanes where `keep` and
//! the octet mask differ and reduces them in `err_length`'s stage (the same pulse, cycle for
//! cycle; W = 4 and 8 keep the W-wide comparison before the register and their Verilog text).
//!
//! ### Latency and throughput
//! Two cycles from an input beat to its output beat (an input register, where the arithmetic on
//! ULPDU_Length is done ahead, and a two-slot output queue: `m_axis` is a 2:1 multiplexer of
//! registers, see [`crate::stream_outq_rr::StreamOutQRr`], its `ready` a register). One output beat
//! per cycle; the input is stalled only for the beats the framing adds (an FPDU is `4P` octets
//! for `ULPDU_Length` octets in: the extra beat, when there is one, costs an input cycle).
//!
//! ### Reset
//! `rst` returns to waiting for a ULPDU's first beat and empties the output slice.

use crate::sideband::{TxFpduUserFields, TxUlpduUserFields};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq_rr::StreamOutQRr;
use crate::stream_skid::StreamSkid;
use crate::tx::{TX_FPDU_USER, TX_ULPDU_USER};
use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// Sideband of the registered input beat (inside the block): the ULPDU's fields and what the
    /// core needs of a first beat, worked out before the register.
    PreUser, prefix pre, bits 135, {
        /// ULPDU_Length L (as on `s_axis`).
        len: Bits<16> = 0,
        /// Push (as on `s_axis`).
        push: Bit = 16,
        /// L > 64768 (`golden::ULPDU_MAX`).
        too_long: Bit = 17,
        /// kc: octets in the beat.
        kc: Bits<7> = 18,
        /// 4P: the FPDU's octets (P words, the CRC field included).
        fourp: Bits<17> = 25,
        /// 4P <= W.
        fourp_le_w: Bit = 42,
        /// 4P <= 2W.
        fourp_le_2w: Bit = 43,
        /// L > 2W (more than W octets remain after a full first beat: vmx's first value).
        l_gt_2w: Bit = 44,
        /// L >= 128 + W (ulen_big's first value).
        l_big: Bit = 45,
        /// L > kc.
        l_gt_kc: Bit = 52,
        /// L < kc.
        l_lt_kc: Bit = 53,
        /// L - kc.
        l_kc: Bits<17> = 54,
        /// vmr's first value (bit j: L > W + j), in the low W bits.
        vm_first: Bits<64> = 71,
    }
}
const PRE_USER: usize = PreUser::BITS;

/// The framer; see the module documentation.
#[derive(LogicBlock)]
pub struct TxFramer<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Markers on for this direction (sampled per ULPDU).
    pub cfg_markers: Signal<In, Bit>,
    /// CRC on for this direction (sampled per ULPDU).
    pub cfg_crc: Signal<In, Bit>,
    /// ULPDUs.
    pub s_axis: StreamSink<W, B, TX_ULPDU_USER>,
    /// FPDUs without Markers.
    pub m_axis: StreamSource<W, B, TX_FPDU_USER>,
    /// Pulse: a ULPDU's length disagreed with its ULPDU_Length.
    pub err_length: Signal<Out, Bit>,
    /// Pulse: a ULPDU longer than 64768 octets was dropped.
    pub err_oversize: Signal<Out, Bit>,
    // The input beat with values worked out from it (PRE_USER), registered.
    pre: StreamSkid<W, B, PRE_USER>,
    out: StreamOutQRr<W, B, TX_FPDU_USER>,
    // State: in an FPDU (output beats remain); discarding input up to `last`; the ULPDU's last
    // beat has been taken; the drain is of an oversize ULPDU.
    busy: DFF<Bit>,
    drain: DFF<Bit>,
    // !busy & !drain and busy & in_done, as registers (they select the datapath's masks).
    first_q: DFF<Bit>,
    zero_q: DFF<Bit>,
    in_done: DFF<Bit>,
    drain_oversize: DFF<Bit>,
    // Octets 0 and 1 of the next output beat (lane 0 in bits 7:0).
    carry: DFF<Bits<16>>,
    // ULPDU octets not yet taken from the input, in two's complement: negative (bit 16) once
    // more came than ULPDU_Length (the overrun; it then holds).
    ulen: DFF<Bits<17>>,
    // ulen >= 128 (so at least W after any beat); like vmr, only meaningful after a full beat.
    ulen_big: DFF<Bit>,
    // The ULPDU-octet mask of the beat after the one taken last (bit j: more than j octets
    // remained after it), loaded with ulen.
    vmr: DFF<Bits<W>>,
    // More than W ULPDU octets remain before the beat after the one taken last (vmr's bit W):
    // with vmr and the beat's keep it gives the beat's comparisons of ulen with kc.
    vmx: DFF<Bit>,
    // Whether the input stage is inside a ULPDU (its first beat's mask is applied there).
    i_mid: DFF<Bit>,
    // Output octets left in this FPDU.
    out_left: DFF<Bits<17>>,
    ol_le_w: DFF<Bit>,
    user_q: DFF<Bits<TX_FPDU_USER>>,
    // The length check in two steps: a ULPDU's last beat taken outside a drain (el_arm) and
    // whether its count disagreed (el_ne), or a drained ULPDU's end (el_drain), registered;
    // err_length one cycle after them.
    el_arm: DFF<Bit>,
    el_ne: DFF<Bit>,
    el_drain: DFF<Bit>,
    err_length_q: DFF<Bit>,
    err_oversize_q: DFF<Bit>,
    // The wide form (W >= TX_WIDE_FORMS_FROM_W; empty below): the length check's mismatch of
    // keep and vmr registered per lane (el_ne_lanes) and reduced in err_length's stage, so that
    // no W-wide comparison precedes a register; el_ne then holds the rest of the check.
    el_ne_lanes: Vec<DFF<Bits<W>>>,
    ne_lanes: Vec<Signal<Local, Bits<W>>>,
    // Constants.
    c_ones: Constant<Bits<W>>,
    c_w: Constant<Bits<17>>,
    // 128 + W.
    c_big: Constant<Bits<17>>,
    // 2W.
    c_2w: Constant<Bits<17>>,
    /// The ULPDU limit of section 3 ([`golden::mulpdu::ULPDU_MAX`]).
    c_ulpdu_max: Constant<Bits<17>>,
    c_lsh: Vec<Constant<Bits<16>>>,
    c_cnt: Vec<Constant<Bits<8>>>,
    // W + j + 1: more than j octets remain after a full beat.
    c_cnt_w: Vec<Constant<Bits<8>>>,
    c_bit: Vec<Constant<Bits<W>>>,
    c_byte: Vec<Constant<Bits<32>>>,
    // Combinational helpers.
    first: Signal<Local, Bit>,
    len: Signal<Local, Bits<17>>,
    too_long: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    produce: Signal<Local, Bit>,
    ul: Signal<Local, Bits<17>>,
    ol: Signal<Local, Bits<17>>,
    ol_last: Signal<Local, Bit>,
    kc: Signal<Local, Bits<8>>,
    vmask: Signal<Local, Bits<W>>,
    i_nclamp: Signal<Local, Bits<8>>,
    i_keep: Signal<Local, Bits<W>>,
    // The octets of a beat after the first that are ULPDU octets: bit j when more than j
    // remain (the register vmr).
    vm_ul: Signal<Local, Bits<W>>,
    vm_first: Signal<Local, Bits<W>>,
    vm_later: Signal<Local, Bits<W>>,
    lane: Vec<Signal<Local, Bits<32>>>,
    acc: Signal<Local, Bits<B>>,
    lane_out: Signal<Local, Bits<32>>,
    last_in: Signal<Local, Bit>,
    ufirst: Signal<Local, Bits<TX_FPDU_USER>>,
    carry_src: Signal<Local, Bits<32>>,
    // Input stage.
    i_len: Signal<Local, Bits<17>>,
    i_kedge: Signal<Local, Bits<W>>,
    i_kc: Signal<Local, Bits<8>>,
    i_fourp: Signal<Local, Bits<17>>,
    i_lkc: Signal<Local, Bits<17>>,
    i_user: Signal<Local, Bits<PRE_USER>>,
    i_vm_first: Signal<Local, Bits<W>>,
    // The registered input beat's fields.
    p_user: Signal<Local, Bits<PRE_USER>>,
    ul_neg: Signal<Local, Bit>,
    ul_ne_kc: Signal<Local, Bit>,
    ul_kc: Signal<Local, Bits<17>>,
    ol_next_le_w: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> TxFramer<W, B> {
    /// Builds the framer; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("TxFramer", W, B, TX_ULPDU_USER);
        crate::tx::check_tx_width("TxFramer", W);
        let wide = crate::tx::tx_wide_forms(W);
        let words = W / 4;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            err_length: Default::default(),
            err_oversize: Default::default(),
            pre: StreamSkid::loading_while_empty(),
            out: StreamOutQRr::new(),
            busy: Default::default(),
            drain: Default::default(),
            first_q: Default::default(),
            zero_q: Default::default(),
            in_done: Default::default(),
            drain_oversize: Default::default(),
            carry: Default::default(),
            ulen: Default::default(),
            ulen_big: Default::default(),
            vmr: Default::default(),
            vmx: Default::default(),
            i_mid: Default::default(),
            out_left: Default::default(),
            ol_le_w: Default::default(),
            user_q: Default::default(),
            el_arm: Default::default(),
            el_ne: Default::default(),
            el_drain: Default::default(),
            err_length_q: Default::default(),
            err_oversize_q: Default::default(),
            c_ones: Constant::new(Bits::<W>::mask()),
            c_w: Constant::new((W as u64).into()),
            c_big: Constant::new(((128 + W) as u64).into()),
            c_2w: Constant::new(((2 * W) as u64).into()),
            c_ulpdu_max: Constant::new((golden::mulpdu::ULPDU_MAX as u64).into()),
            c_lsh: (0..words).map(|j| Constant::new(((32 * j) as u64).into())).collect(),
            c_cnt: (0..W).map(|k| Constant::new(((k + 1) as u64).into())).collect(),
            c_cnt_w: (0..W).map(|k| Constant::new(((W + k + 1) as u64).into())).collect(),
            c_bit: (0..W)
                .map(|k| Constant::new(Bits::<W>::default().replace_bit(k, true)))
                .collect(),
            c_byte: (0..4)
                .map(|b| Constant::new((!(0xFFu64 << (8 * b)) & 0xFFFF_FFFF).into()))
                .collect(),
            first: Default::default(),
            len: Default::default(),
            too_long: Default::default(),
            take: Default::default(),
            produce: Default::default(),
            ul: Default::default(),
            ol: Default::default(),
            ol_last: Default::default(),
            kc: Default::default(),
            vmask: Default::default(),
            i_nclamp: Default::default(),
            i_keep: Default::default(),
            vm_ul: Default::default(),
            vm_first: Default::default(),
            vm_later: Default::default(),
            lane: (0..words).map(|_| Default::default()).collect(),
            acc: Default::default(),
            lane_out: Default::default(),
            last_in: Default::default(),
            ufirst: Default::default(),
            carry_src: Default::default(),
            i_len: Default::default(),
            i_kedge: Default::default(),
            i_kc: Default::default(),
            i_fourp: Default::default(),
            i_lkc: Default::default(),
            i_user: Default::default(),
            i_vm_first: Default::default(),
            p_user: Default::default(),
            ul_neg: Default::default(),
            ul_ne_kc: Default::default(),
            ul_kc: Default::default(),
            ol_next_le_w: Default::default(),
            el_ne_lanes: (0..wide).map(|_| Default::default()).collect(),
            ne_lanes: (0..wide).map(|_| Default::default()).collect(),
        }
    }
}

impl<const W: usize, const B: usize> Default for TxFramer<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TxFramer<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            busy,
            drain,
            first_q,
            zero_q,
            in_done,
            drain_oversize,
            carry,
            ulen,
            ulen_big,
            vmr,
            vmx,
            i_mid,
            out_left,
            ol_le_w,
            user_q,
            el_arm,
            el_ne,
            el_drain,
            err_length_q,
            err_oversize_q
        );
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.pre.clock.next = self.clock.val();
        self.pre.rst.next = self.rst.val();
        // The output queue drives m_axis.
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.err_length.next = self.err_length_q.q.val();
        self.err_oversize.next = self.err_oversize_q.q.val();
        self.err_length_q.d.next =
            (self.el_arm.q.val() & self.el_ne.q.val()) | self.el_drain.q.val();
        for i in 0..self.el_ne_lanes.len() {
            self.el_ne_lanes[i].clock.next = self.clock.val();
            self.err_length_q.d.next = (self.el_arm.q.val()
                & (self.el_ne.q.val() | self.el_ne_lanes[i].q.val().any()))
                | self.el_drain.q.val();
        }
        self.el_arm.d.next = false;
        self.el_drain.d.next = false;
        self.err_oversize_q.d.next = false;

        // ---- Input stage: what the core needs of a beat, worked out before it is registered. ----
        self.i_len.next = bit_cast::<17, 16>(self.s_axis.user.val().get_value_tx_ulpdu_len());
        // Octets of the beat: keep is contiguous; its length is the position of its edge.
        self.i_kedge.next = self.s_axis.keep.val() & !(self.s_axis.keep.val() >> 1);
        self.i_kc.next = 0.into();
        for k in 0..W {
            if self.i_kedge.val().get_bit(k) {
                self.i_kc.next = self.i_kc.val() | self.c_cnt[k].val();
            }
        }
        // 4P = ((L + 5) & ~3) + 4; L - kc for a first beat.
        self.i_fourp.next = ((self.i_len.val() + 5) & 0x1FFFC) + 4;
        self.i_lkc.next = self.i_len.val() - bit_cast::<17, 8>(self.i_kc.val());
        self.i_user.next = 0.into();
        self.i_user.next.set_value_pre_len(self.s_axis.user.val().get_value_tx_ulpdu_len());
        self.i_user.next.set_value_pre_push(self.s_axis.user.val().get_value_tx_ulpdu_push());
        self.i_user.next.set_value_pre_too_long(self.i_len.val() > self.c_ulpdu_max.val());
        self.i_user.next.set_value_pre_kc(bit_cast::<7, 8>(self.i_kc.val()));
        self.i_user.next.set_value_pre_fourp(self.i_fourp.val());
        self.i_user.next.set_value_pre_fourp_le_w(self.i_fourp.val() <= self.c_w.val());
        self.i_user.next.set_value_pre_fourp_le_2w(self.i_fourp.val() <= (self.c_w.val() << 1));
        self.i_user
            .next
            .set_value_pre_l_gt_kc(self.i_len.val() > bit_cast::<17, 8>(self.i_kc.val()));
        self.i_user
            .next
            .set_value_pre_l_lt_kc(self.i_len.val() < bit_cast::<17, 8>(self.i_kc.val()));
        self.i_user.next.set_value_pre_l_kc(self.i_lkc.val());
        // The first beat's values of vmr, vmx and ulen_big (see the state update), so that no
        // comparison on ULPDU_Length follows the register.
        self.i_vm_first.next = 0.into();
        for j in 0..W {
            if ((self.i_len.val() >> 7) != 0)
                | (bit_cast::<8, 17>(self.i_len.val() & 0x7F) >= self.c_cnt_w[j].val())
            {
                self.i_vm_first.next = self.i_vm_first.val() | self.c_bit[j].val();
            }
        }
        self.i_user.next.set_value_pre_vm_first(bit_cast::<64, W>(self.i_vm_first.val()));
        self.i_user.next.set_value_pre_l_gt_2w(self.i_len.val() > self.c_2w.val());
        self.i_user.next.set_value_pre_l_big(self.i_len.val() >= self.c_big.val());
        self.pre.s_axis.data.next = self.s_axis.data.val();
        // A ULPDU's first beat: its keep is cut to ULPDU_Length octets here (the core's valid
        // octets; later beats are cut by vm_ul), so no shifter sits in the core.
        self.i_nclamp.next = bit_cast::<8, 17>(self.i_len.val() & 0x7F);
        if self.i_len.val() >= self.c_w.val() {
            self.i_nclamp.next = bit_cast::<8, 17>(self.c_w.val());
        }
        self.i_keep.next = self.s_axis.keep.val();
        if !self.i_mid.q.val() {
            self.i_keep.next = self.s_axis.keep.val() & !(self.c_ones.val() << self.i_nclamp.val());
        }
        if self.s_axis.valid.val() & self.pre.s_axis.ready.val() {
            self.i_mid.d.next = !self.s_axis.last.val();
        }
        self.pre.s_axis.keep.next = self.i_keep.val();
        self.pre.s_axis.user.next = self.i_user.val();
        self.pre.s_axis.last.next = self.s_axis.last.val();
        self.pre.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.pre.s_axis.ready.val();

        // ---- The core, on the registered beat. ----
        self.p_user.next = self.pre.m_axis.user.val();
        // Where we are: a first beat is awaited when neither in an FPDU nor draining.
        self.first.next = self.first_q.q.val();
        self.len.next = bit_cast::<17, 16>(self.p_user.val().get_value_pre_len());
        self.too_long.next = self.p_user.val().get_value_pre_too_long();
        self.kc.next = bit_cast::<8, 7>(self.p_user.val().get_value_pre_kc());
        // The core takes a beat while draining always, else whenever the output can take one and
        // an input beat is wanted.
        self.pre.m_axis.ready.next = self.drain.q.val()
            | (self.out.s_axis.ready.val() & !(self.busy.q.val() & self.in_done.q.val()));
        self.take.next = self.pre.m_axis.valid.val()
            & (self.drain.q.val()
                | (self.out.s_axis.ready.val() & !(self.busy.q.val() & self.in_done.q.val())));
        self.produce.next = self.out.s_axis.ready.val()
            & ((self.first.val() & self.pre.m_axis.valid.val() & !self.too_long.val())
                | (self.busy.q.val() & (self.in_done.q.val() | self.pre.m_axis.valid.val())));
        // ULPDU octets still expected (before this beat) and output octets left, with their
        // comparisons, from registers.
        self.ul.next = self.ulen.q.val();
        self.ol.next = self.out_left.q.val();
        self.ol_last.next = self.ol_le_w.q.val();
        // ulen - kc needs no saturation (ULPDU_Length < 2^16, kc <= W): an overrun makes it
        // negative, and a negative ulen holds, so ulen's bit 16 is the overrun flag and no
        // comparison of the beat with ulen sits before its register (ulen's reset from a
        // comparison of masks was mpa_tx_w8's critical path).
        self.ul_neg.next = self.ulen.q.val().get_bit(16);
        self.ul_kc.next = self.ulen.q.val() - bit_cast::<17, 8>(self.kc.val());
        self.ol_next_le_w.next = self.out_left.q.val() <= (self.c_w.val() << 1);
        if self.first.val() {
            self.ul.next = self.len.val();
            self.ol.next = self.p_user.val().get_value_pre_fourp();
            self.ol_last.next = self.p_user.val().get_value_pre_fourp_le_w();
            self.ul_kc.next = self.p_user.val().get_value_pre_l_kc();
            self.ol_next_le_w.next = self.p_user.val().get_value_pre_fourp_le_2w();
        }
        // Octet j of a beat after the first is a ULPDU octet when more than j remain: a
        // register, decoded when the beat before was taken. Every beat but a packet's last is
        // full (the stream rules), and after the last the mask is not used (the next beat is a
        // first beat, or the zeros of PAD and CRC), so ulen - kc is ulen - W there: bit j is
        // ulen > W + j (all of them when ulen >= 128), and for a first beat L > W + j (worked
        // out in the input stage); constants compared with 7 bits, no subtraction before the
        // register.
        self.vm_first.next = bit_cast::<W, 64>(self.p_user.val().get_value_pre_vm_first());
        self.vm_later.next = 0.into();
        for j in 0..W {
            if !self.ul_neg.val()
                & (self.ulen_big.q.val()
                    | (bit_cast::<8, 17>(self.ulen.q.val() & 0x7F) >= self.c_cnt_w[j].val()))
            {
                self.vm_later.next = self.vm_later.val() | self.c_bit[j].val();
            }
        }
        self.vm_ul.next = self.vmr.q.val();
        // ULPDU_Length != the octets so far: a beat after the first follows a full beat, so vmr
        // (bit j: more than j octets remain) and vmx (more than W) are exact, and the count is
        // off when the beat's keep differs from vmr or more than W remain.
        self.ul_ne_kc.next = (self.vmr.q.val() != self.pre.m_axis.keep.val()) | self.vmx.q.val();
        for i in 0..self.ne_lanes.len() {
            // Wide form: the lanes' mismatch goes to el_ne_lanes, reduced after the register.
            self.ul_ne_kc.next = self.vmx.q.val();
            self.ne_lanes[i].next = self.vmr.q.val() ^ self.pre.m_axis.keep.val();
            if self.first.val() {
                self.ne_lanes[i].next = 0.into();
            }
        }
        if self.first.val() {
            self.ul_ne_kc.next = self.p_user.val().get_value_pre_l_gt_kc()
                | self.p_user.val().get_value_pre_l_lt_kc();
        }
        // Valid input octets: those keep enables, up to the ULPDU octets still expected; none
        // once the ULPDU's last beat has been taken.
        self.vmask.next = self.pre.m_axis.keep.val();
        if !self.first.val() {
            self.vmask.next = self.pre.m_axis.keep.val() & self.vm_ul.val();
        }
        if self.zero_q.q.val() {
            self.vmask.next = 0.into();
        }
        // The datapath: input lanes masked octet by octet, moved up by two octets.
        for j in 0..(W / 4) {
            self.lane[j].next = self.pre.m_axis.data.val().get_bits::<32>(j * 32);
            // The top lane's upper half is carried (the last iteration writes it).
            for b in 0..4 {
                if !self.vmask.val().get_bit(j * 4 + b) {
                    self.lane[j].next = self.lane[j].val() & self.c_byte[b].val();
                }
            }
            self.carry_src.next = self.lane[j].val() >> 16;
        }
        // Lane 0: ULPDU_Length (big-endian: its high octet first) or the carried octets.
        self.lane_out.next = self.lane[0].val() << 16;
        if self.first.val() {
            self.lane_out.next = self.lane_out.val()
                | bit_cast::<32, 17>(self.len.val() >> 8)
                | (bit_cast::<32, 17>(self.len.val() & 0xFF) << 8);
        } else {
            self.lane_out.next = self.lane_out.val() | bit_cast::<32, 16>(self.carry.q.val());
        }
        self.acc.next = bit_cast::<B, 32>(self.lane_out.val());
        for j in 1..(W / 4) {
            self.lane_out.next = (self.lane[j].val() << 16) | (self.lane[j - 1].val() >> 16);
            self.acc.next =
                self.acc.val() | (bit_cast::<B, 32>(self.lane_out.val()) << self.c_lsh[j].val());
        }
        self.out.s_axis.data.next = self.acc.val();
        self.out.s_axis.keep.next = self.c_ones.val();
        if self.ol_last.val() {
            self.out.s_axis.keep.next = !(self.c_ones.val() << bit_cast::<8, 17>(self.ol.val()));
        }
        self.out.s_axis.last.next = self.ol_last.val();
        // The FPDU's sideband: P = 4P / 4 words, markers, CRC, push.
        self.ufirst.next = 0.into();
        self.ufirst.next.set_value_tx_fpdu_words(bit_cast::<14, 17>(
            self.p_user.val().get_value_pre_fourp() >> 2,
        ));
        self.ufirst.next.set_value_tx_fpdu_markers(self.cfg_markers.val());
        self.ufirst.next.set_value_tx_fpdu_crc(self.cfg_crc.val());
        self.ufirst.next.set_value_tx_fpdu_push(self.p_user.val().get_value_pre_push());
        self.out.s_axis.user.next = self.user_q.q.val();
        if self.first.val() {
            self.out.s_axis.user.next = self.ufirst.val();
        }
        self.out.s_axis.valid.next = self.produce.val();

        // State.
        self.last_in.next = self.take.val() & self.pre.m_axis.last.val();
        if self.take.val() & !self.drain.q.val() {
            // An input beat of the ULPDU: account its octets.
            self.vmr.d.next = self.vm_later.val();
            if self.first.val() {
                self.vmr.d.next = self.vm_first.val();
            }
            // More than W remain after a full beat when more than 2W did before.
            self.vmx.d.next = !self.ul_neg.val() & (self.ulen.q.val() > self.c_2w.val());
            if self.first.val() {
                self.vmx.d.next = self.p_user.val().get_value_pre_l_gt_2w();
            }
            // ulen_big as vmr: after a full beat, 128 or more remain when 128 + W did before.
            self.ulen_big.d.next = !self.ul_neg.val() & (self.ulen.q.val() >= self.c_big.val());
            if self.first.val() {
                self.ulen_big.d.next = self.p_user.val().get_value_pre_l_big();
            }
            if self.first.val() | !self.ul_neg.val() {
                self.ulen.d.next = self.ul_kc.val();
            }
            self.in_done.d.next = self.pre.m_axis.last.val();
            // The ULPDU's last beat: its octet count must be exactly ULPDU_Length (the
            // comparison registered beside the beat's flags, apart from them).
            self.el_arm.d.next =
                self.pre.m_axis.last.val() & !(self.first.val() & self.too_long.val());
        }
        self.el_ne.d.next = (self.ul_neg.val() & !self.first.val()) | self.ul_ne_kc.val();
        for i in 0..self.el_ne_lanes.len() {
            self.el_ne_lanes[i].d.next = self.ne_lanes[i].val();
        }
        // The carried octets follow each input beat of the ULPDU taken and each output beat:
        // (take & !drain) | produce, which reduces to this since busy and drain are never both
        // set (written out, so that the oversize test is not in the enable's path; busy &
        // in_done is the register zero_q).
        if self.out.s_axis.ready.val()
            & ((self.pre.m_axis.valid.val() & !self.drain.q.val()) | self.zero_q.q.val())
        {
            self.carry.d.next = bit_cast::<16, 32>(self.carry_src.val());
        }
        if self.produce.val() {
            if self.first.val() {
                self.user_q.d.next = self.ufirst.val();
            }
            self.out_left.d.next = self.ol.val() - self.c_w.val();
            self.ol_le_w.d.next = self.ol_next_le_w.val();
            self.busy.d.next = !self.ol_last.val();
            if self.ol_last.val()
                & !(self.in_done.q.val() & self.busy.q.val())
                & !self.last_in.val()
            {
                // The FPDU is complete but the ULPDU goes on: discard the rest.
                self.drain.d.next = true;
                self.drain_oversize.d.next = false;
            }
        }
        if self.first.val() & self.take.val() & self.too_long.val() {
            self.err_oversize_q.d.next = true;
            self.drain.d.next = !self.pre.m_axis.last.val();
            self.drain_oversize.d.next = true;
        }
        if self.drain.q.val() & self.take.val() & self.pre.m_axis.last.val() {
            self.drain.d.next = false;
            self.el_drain.d.next = !self.drain_oversize.q.val();
        }
        self.first_q.d.next = !self.busy.d.val() & !self.drain.d.val();
        self.zero_q.d.next = self.busy.d.val() & self.in_done.d.val();
        if self.rst.val() {
            self.i_mid.d.next = false;
            self.first_q.d.next = true;
            self.zero_q.d.next = false;
            self.busy.d.next = false;
            self.drain.d.next = false;
            self.in_done.d.next = false;
            self.el_arm.d.next = false;
            self.el_drain.d.next = false;
            self.err_length_q.d.next = false;
            self.err_oversize_q.d.next = false;
        }
    }
}
