//! `RxMarkerStripper`: the Marker stripper and PAD/CRC removal of the receive path (RFC 5044 4.2,
//! 4.3, 6, 8), the mirror of the transmit path's [`crate::tx::marker_inserter::TxMarkerInserter`]:
//! FPDU packets in, ULPDU packets out.
//!
//! Each FPDU packet (from [`super::crc_check::RxCrcCheck`]) is the FPDU's words, Markers
//! included, lane 0 its first word. The block removes every Marker (the words at
//! `to_mk0 + 128 i` of the packet, 4.3), checks each Marker's FPDUPTR against the FPDU boundary
//! (low two bits ignored, 4.2: 0 for a leading Marker, otherwise the octets back to the
//! ULPDU_Length field), removes the 2-octet ULPDU_Length, and keeps exactly ULPDU_Length octets
//! (PAD and CRC dropped). The ULPDU's last beat is held until the FPDU's last beat, which carries
//! the CRC verdict, so every verdict lands on the ULPDU packet's last beat:
//! - a good FPDU: the ULPDU, last beat with `user[48]` low;
//! - an error (upstream code 1 or 2; code 3 here when a Marker's FPDUPTR disagrees and the CRC is
//!   good or off, 8): the packet ends with a null beat (`keep` 0) with `user[48]` set and the
//!   code in `user[50:49]`; octets before it in that packet are not a ULPDU. Nothing leaves
//!   after it (8: no further FPDUs on that half connection) until reset.
//!
//! ```text
//!  s_axis ─► strip: the beat's Marker out (words above it move down one), FPDUPTR check,
//!            the gearbox's lane count and "completes a beat" flags for every fill level
//!         ─► register ─► gearbox on 16-bit lanes (drops ULPDU_Length, packs full beats,
//!            counts ULPDU octets) ─► StreamOutQ ─► m_axis
//! ```
//! Timing: no adder precedes a decision. The FPDUPTR each Marker must carry is a register
//! stepped by 512 octets per Marker; the strip stage reads the words in the beat off `keep` and
//! works out, for each count c of lanes the gearbox may hold, whether the beat completes one,
//! and whether ULPDU_Length (when the beat carries it) is above W; the gearbox stage selects
//! the first by c and the second against a register kept with the octets left, and decodes
//! each `keep` from constants. The octets left (`rem`) load with every beat the gearbox takes,
//! so their enable is the handshake, not the decision (stop 62: the stripper alone at W = 8
//! went from 124.1 / 118.2 / 116.9 MHz to 126.5 / 124.2 / 128.3 at seeds 1 to 3; before it,
//! its critical paths ran from the held count `c` through the decision into `rem`'s enable,
//! and from ULPDU_Length's comparison into `c`).
//! The gearbox's rotation and merge are the shared [`crate::gearbox::Gearbox`] on 16-bit lanes.
//!
//! This is cut-through: a ULPDU's beats leave before its CRC is known and the verdict comes on
//! its last beat. Verify-before-release (section 6) is the job of the release buffer after this
//! block ([`super::release::RxRelease`]).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `s_axis` | in | 8W | FPDU packets, `user` as [`super::delineator::RX_FPDU_USER`] |
//! | `m_axis` | out | 8W | ULPDU packets (an empty ULPDU is one null beat); `user` [`RX_ULPDU_USER`]: `[31:0]` the FPDU's sequence number, `[47:32]` ULPDU_Length, `[48]` error, `[50:49]` its section 8 code |
//! | `err_marker` | out | 1 | pulse: an FPDU was rejected with code 3 |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! Two cycles from an FPDU beat in to the ULPDU beat out (the strip register, the output queue)
//! when the beat completes one. One input beat per cycle. An FPDU whose ULPDU needs one beat
//! more than its last input beat completes (the tail) costs nothing more when the next FPDU's
//! first beat is there and writes nothing alone (it is not that FPDU's last beat): it goes into
//! the gearbox while the tail leaves; otherwise the tail costs one cycle.
//!
//! ### Reset
//! `rst` starts at a packet boundary and empties the gearbox.

use crate::gearbox::Gearbox;
use crate::keep_words::KeepWords;
use crate::rx::strip_ctx::StripCtxPack;
pub use crate::rx::strip_ctx::{StripCtx, STRIP_CTX_BITS};
use crate::sideband::{RxFpduUserFields, RxUlpduUserFields, RX_FPDU_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use crate::stream_skid::StreamSkid;
use rust_hdl::prelude::*;

pub use crate::sideband::RX_ULPDU_USER;

crate::sideband::sideband! {
    /// Strip-stage sideband (inside the block).
    StripUser, prefix strip, bits 86, {
        /// As on `s_axis` ([`crate::sideband::RxFpduUser`]).
        fpdu: Bits<RX_FPDU_USER> = 0,
        /// A Marker of this FPDU so far had a wrong FPDUPTR.
        ptr_bad: Bit = RX_FPDU_USER,
        /// The beat is the FPDU's first with words: ULPDU_Length is its first 16-bit lane.
        is_hdr: Bit = RX_FPDU_USER + 1,
        /// 16-bit lanes the gearbox takes from the beat (`2 words - is_hdr`).
        k: Bits<7> = RX_FPDU_USER + 2,
        /// Bit c: `c + k >= W / 2` (the gearbox holding c lanes completes a beat).
        ge: Bits<32> = RX_FPDU_USER + 9,
        /// The beat's first 16-bit lane, read as ULPDU_Length, is above W (used when `is_hdr`).
        hdr_gt_w: Bit = RX_FPDU_USER + 41,
    }
}
const PRE_USER: usize = StripUser::BITS;

/// The Marker stripper; see the module documentation.
#[derive(LogicBlock)]
pub struct RxMarkerStripper<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// FPDU packets.
    pub s_axis: StreamSink<W, B, RX_FPDU_USER>,
    /// ULPDU packets.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// Pulse: an FPDU rejected with code 3.
    pub err_marker: Signal<Out, Bit>,
    /// Only when built [`RxMarkerStripper::with_context`] (one entry, otherwise none): a
    /// connection's context record ([`StripCtx`]) to load.
    pub ctx_in: Vec<Signal<In, Bits<STRIP_CTX_BITS>>>,
    /// Likewise: its held lanes (those below the record's `held`).
    pub ctx_words_in: Vec<Signal<In, Bits<B>>>,
    /// Likewise: load them now (honoured only while `ctx_idle` is high; no beat is taken in
    /// its cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: the record of the connection being served (final while `ctx_idle` is high).
    pub ctx_out: Vec<Signal<Out, Bits<STRIP_CTX_BITS>>>,
    /// Likewise: its held lanes.
    pub ctx_words_out: Vec<Signal<Out, Bits<B>>>,
    /// Likewise: nothing is inside (no beat in the strip register or the output queue, no
    /// tail leaving).
    pub ctx_idle: Vec<Signal<Out, Bit>>,
    pre: StreamSkid<W, B, PRE_USER>,
    out: StreamOutQ<W, B, RX_ULPDU_USER>,
    // Strip stage state.
    s_mid: DFF<Bit>,
    s_to_mk: DFF<Bits<7>>,
    s_pw: DFF<Bits<16>>,
    s_lead: DFF<Bit>,
    s_bad: DFF<Bit>,
    s_seen: DFF<Bit>,
    // Gearbox state.
    hdr_seen: DFF<Bit>,
    len: DFF<Bits<16>>,
    rem: DFF<Bits<16>>,
    rem_gt_w: DFF<Bit>,
    acc: DFF<Bits<B>>,
    c: DFF<Bits<6>>,
    closing: DFF<Bit>,
    dead: DFF<Bit>,
    close_keep: DFF<Bits<W>>,
    close_user: DFF<Bits<RX_ULPDU_USER>>,
    err_q: DFF<Bit>,
    // Constants.
    c_ones: Constant<Bits<B>>,
    c_ones_w: Constant<Bits<W>>,
    c_w: Constant<Bits<16>>,
    c_halves: Constant<Bits<7>>,
    c_hmask: Constant<Bits<6>>,
    c_wmask: Constant<Bits<16>>,
    kw: KeepWords<W>,
    c_lane: Vec<Constant<Bits<7>>>,
    c_half: Vec<Constant<Bits<6>>>,
    c_half_all: Constant<Bits<6>>,
    c_gbit: Vec<Constant<Bits<32>>>,
    c_t0: Vec<Constant<Bits<8>>>,
    c_t1: Vec<Constant<Bits<8>>>,
    c_kbit: Vec<Constant<Bits<W>>>,
    c_w_j: Vec<Constant<Bits<8>>>,
    c_j: Vec<Constant<Bits<8>>>,
    c_2w: Constant<Bits<8>>,
    // Strip stage.
    n: Signal<Local, Bits<5>>,
    tm: Signal<Local, Bits<7>>,
    pw: Signal<Local, Bits<16>>,
    lead: Signal<Local, Bit>,
    has_mk: Signal<Local, Bit>,
    mk_word: Signal<Local, Bits<32>>,
    ptr: Signal<Local, Bits<16>>,
    bad_now: Signal<Local, Bit>,
    comp: Signal<Local, Bits<B>>,
    low: Signal<Local, Bits<B>>,
    nge: Signal<Local, Bits<32>>,
    wge: Signal<Local, Bits<32>>,
    s_hdr: Signal<Local, Bit>,
    s_k: Signal<Local, Bits<7>>,
    nk0: Signal<Local, Bits<7>>,
    nk1: Signal<Local, Bits<7>>,
    nk2: Signal<Local, Bits<7>>,
    nk3: Signal<Local, Bits<7>>,
    s_ge: Signal<Local, Bits<32>>,
    s_take: Signal<Local, Bit>,
    s_user: Signal<Local, Bits<PRE_USER>>,
    up: Signal<Local, Bits<B>>,
    hw_lo: Signal<Local, Bits<16>>,
    hw_up: Signal<Local, Bits<16>>,
    hw_gt: Signal<Local, Bit>,
    rem_full: Signal<Local, Bit>,
    // Gearbox.
    p_user: Signal<Local, Bits<PRE_USER>>,
    p_fpdu: Signal<Local, Bits<RX_FPDU_USER>>,
    p_last: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    quiet: Signal<Local, Bit>,
    ovl: Signal<Local, Bit>,
    is_hdr: Signal<Local, Bit>,
    s0: Signal<Local, Bits<6>>,
    k: Signal<Local, Bits<7>>,
    p_ge: Signal<Local, Bits<32>>,
    total_ge: Signal<Local, Bit>,
    cur_hi: Signal<Local, Bit>,
    cur_lo: Signal<Local, Bits<8>>,
    cur_gt_w: Signal<Local, Bit>,
    cur_gt_2w: Signal<Local, Bit>,
    last_keep: Signal<Local, Bits<W>>,
    tail_keep: Signal<Local, Bits<W>>,
    rot_amt: Signal<Local, Bits<6>>,
    gb: Gearbox<B>,
    total: Signal<Local, Bits<7>>,
    cur_len: Signal<Local, Bits<16>>,
    cur_rem: Signal<Local, Bits<16>>,
    hword: Signal<Local, Bits<16>>,
    err_in: Signal<Local, Bit>,
    err_any: Signal<Local, Bit>,
    f_user: Signal<Local, Bits<RX_ULPDU_USER>>,
    o_keep: Signal<Local, Bits<W>>,
    // The context record's wiring (only when built with it).
    ctx: Vec<StripCtxPack>,
}

impl<const W: usize, const B: usize> RxMarkerStripper<W, B> {
    /// Builds the Marker stripper; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxMarkerStripper", W, B, RX_ULPDU_USER);
        crate::tx::check_tx_width("RxMarkerStripper", W);
        let halves = W / 2;
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            err_marker: Default::default(),
            ctx_in: vec![],
            ctx_words_in: vec![],
            ctx_load: vec![],
            ctx_out: vec![],
            ctx_words_out: vec![],
            ctx_idle: vec![],
            pre: StreamSkid::new(),
            out: StreamOutQ::new(),
            s_mid: Default::default(),
            s_to_mk: Default::default(),
            s_pw: Default::default(),
            s_lead: Default::default(),
            s_bad: Default::default(),
            s_seen: Default::default(),
            hdr_seen: Default::default(),
            len: Default::default(),
            rem: Default::default(),
            rem_gt_w: Default::default(),
            acc: Default::default(),
            c: Default::default(),
            closing: Default::default(),
            dead: Default::default(),
            close_keep: Default::default(),
            close_user: Default::default(),
            err_q: Default::default(),
            c_ones: Constant::new(Bits::<B>::mask()),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_w: c16(W),
            c_halves: Constant::new((halves as u64).into()),
            c_hmask: Constant::new(((halves - 1) as u64).into()),
            c_wmask: c16(W / 4 - 1),
            kw: KeepWords::new(),
            c_lane: (0..W / 4).map(|k| Constant::new((k as u64).into())).collect(),
            c_half: (0..halves).map(|c| Constant::new((c as u64).into())).collect(),
            c_half_all: Constant::new((halves as u64).into()),
            c_t0: (0..halves)
                .map(|c| Constant::new((((halves - c + 1) / 2) as u64).into()))
                .collect(),
            c_t1: (0..halves)
                .map(|c| Constant::new((((halves - c + 2) / 2) as u64).into()))
                .collect(),
            c_gbit: (0..halves.max(W / 4 + 1))
                .map(|c| Constant::new(Bits::<32>::default().replace_bit(c, true)))
                .collect(),
            c_kbit: (0..W)
                .map(|j| Constant::new(Bits::<W>::default().replace_bit(j, true)))
                .collect(),
            c_w_j: (0..W).map(|j| Constant::new(((W + j) as u64).into())).collect(),
            c_j: (0..W).map(|j| Constant::new((j as u64).into())).collect(),
            c_2w: Constant::new(((2 * W) as u64).into()),
            n: Default::default(),
            tm: Default::default(),
            pw: Default::default(),
            lead: Default::default(),
            has_mk: Default::default(),
            mk_word: Default::default(),
            ptr: Default::default(),
            bad_now: Default::default(),
            comp: Default::default(),
            low: Default::default(),
            nge: Default::default(),
            wge: Default::default(),
            s_hdr: Default::default(),
            s_k: Default::default(),
            nk0: Default::default(),
            nk1: Default::default(),
            nk2: Default::default(),
            nk3: Default::default(),
            s_ge: Default::default(),
            s_take: Default::default(),
            s_user: Default::default(),
            up: Default::default(),
            hw_lo: Default::default(),
            hw_up: Default::default(),
            hw_gt: Default::default(),
            rem_full: Default::default(),
            p_user: Default::default(),
            p_fpdu: Default::default(),
            p_last: Default::default(),
            go: Default::default(),
            quiet: Default::default(),
            ovl: Default::default(),
            is_hdr: Default::default(),
            s0: Default::default(),
            k: Default::default(),
            p_ge: Default::default(),
            total_ge: Default::default(),
            cur_hi: Default::default(),
            cur_lo: Default::default(),
            cur_gt_w: Default::default(),
            cur_gt_2w: Default::default(),
            last_keep: Default::default(),
            tail_keep: Default::default(),
            rot_amt: Default::default(),
            gb: Gearbox::new("RxMarkerStripper", 16),
            total: Default::default(),
            cur_len: Default::default(),
            cur_rem: Default::default(),
            hword: Default::default(),
            err_in: Default::default(),
            err_any: Default::default(),
            f_user: Default::default(),
            o_keep: Default::default(),
            ctx: vec![],
        }
    }

    /// The stripper with the context ports (`ctx_in`, `ctx_words_in`, `ctx_load`, `ctx_out`,
    /// `ctx_words_out`, `ctx_idle`): while nothing is inside, the state it keeps about a
    /// connection's stream, an open FPDU's held lanes included, is read out and another
    /// connection's loaded, so that one stripper serves any number of connections, their
    /// FPDUs' beats interleaved between segments (see [`StripCtx`]). [`RxMarkerStripper::new`]
    /// builds neither ports nor logic: `mpa_rx`'s Verilog does not change.
    pub fn with_context() -> Self {
        Self {
            ctx_in: vec![Default::default()],
            ctx_words_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_out: vec![Default::default()],
            ctx_words_out: vec![Default::default()],
            ctx_idle: vec![Default::default()],
            ctx: vec![StripCtxPack::default()],
            ..Self::new()
        }
    }
}

impl<const W: usize, const B: usize> Default for RxMarkerStripper<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxMarkerStripper<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s_mid, s_to_mk, s_pw, s_lead, s_bad, s_seen, hdr_seen, len, rem, rem_gt_w,
            acc, c, closing, dead, close_keep, close_user, err_q
        );
        self.pre.clock.next = self.clock.val();
        self.pre.rst.next = self.rst.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.err_marker.next = self.err_q.q.val();
        self.err_q.d.next = false;

        // ---- Strip stage: the beat's Marker (at most one: 128 words apart) out. ----
        self.kw.keep.next = self.s_axis.keep.val();
        self.n.next = bit_cast::<5, 6>(self.kw.words.val());
        self.tm.next = self.s_to_mk.q.val();
        self.pw.next = self.s_pw.q.val();
        self.lead.next = self.s_lead.q.val();
        if !self.s_mid.q.val() {
            self.tm.next = self.s_axis.user.val().get_value_rx_fpdu_to_marker();
            // The first Marker of the packet: to_marker words from its start (0 for a leading
            // Marker).
            self.pw.next =
                bit_cast::<16, 7>(self.s_axis.user.val().get_value_rx_fpdu_to_marker()) << 2;
            self.lead.next = self.s_axis.user.val().get_value_rx_fpdu_markers()
                & (self.s_axis.user.val().get_value_rx_fpdu_to_marker() == 0);
        }
        // A Marker in the beat: lane tm is one of its words (keep is contiguous from lane 0).
        self.has_mk.next = false;
        for j in 0..(W / 4) {
            if self.tm.val() == self.c_lane[j].val() {
                self.has_mk.next = self.s_axis.user.val().get_value_rx_fpdu_markers()
                    & self.s_axis.keep.val().get_bit(4 * j + 3);
            }
        }
        self.mk_word.next = 0.into();
        for j in 0..(W / 4) {
            if self.tm.val() == self.c_lane[j].val() {
                self.mk_word.next = self.s_axis.data.val().get_bits::<32>(j * 32);
            }
        }
        // Lanes at and above the Marker take the lane above them.
        self.low.next =
            !(self.c_ones.val() << ((bit_cast::<16, 7>(self.tm.val()) & self.c_wmask.val()) << 5));
        self.comp.next = self.s_axis.data.val();
        if self.has_mk.val() {
            self.comp.next = (self.s_axis.data.val() & self.low.val())
                | ((self.s_axis.data.val() >> 32) & !self.low.val());
        }
        // FPDUPTR: the Marker's last two octets, big-endian; its low two bits ignored (4.2).
        self.ptr.next = (bit_cast::<16, 32>((self.mk_word.val() >> 16) & 0xFF) << 8)
            | bit_cast::<16, 32>((self.mk_word.val() >> 24) & 0xFF);
        // pw: the FPDUPTR this Marker must carry, a register kept per packet (the next one is
        // 512 octets on, less 4 after a leading Marker: the octets back to ULPDU_Length).
        self.bad_now.next = self.has_mk.val() & ((self.ptr.val() & 0xFFFC) != self.pw.val());
        // Worked out here for the gearbox stage, from this beat alone: is ULPDU_Length in it
        // (the packet's first beat with words), the 16-bit lanes the gearbox takes, and for each
        // count c of lanes the gearbox may hold whether c + k completes a beat.
        // No arithmetic on the way: wge[m] is words >= m, read off keep (n >= m is lane m - 1's
        // last octet) and the Marker; c + k >= W / 2 is words >= ceil((W / 2 - c + hdr) / 2).
        self.nge.next = 1.into();
        for m in 0..(W / 4) {
            if self.s_axis.keep.val().get_bit(4 * m + 3) {
                self.nge.next = self.nge.val() | self.c_gbit[m + 1].val();
            }
        }
        self.wge.next = self.nge.val();
        if self.has_mk.val() {
            self.wge.next = self.nge.val() >> 1;
        }
        self.s_hdr.next = !(self.s_mid.q.val() & self.s_seen.q.val()) & self.wge.val().get_bit(1);
        // s_k = 2 words - is_hdr = 2n - 2 has_mk - is_hdr: the four values from n (a function
        // of keep alone) are summed beside the Marker test, which then only selects one (no
        // adder after the Marker's lane comparison).
        self.nk0.next = bit_cast::<7, 5>(self.n.val()) << 1;
        self.nk1.next = (bit_cast::<7, 5>(self.n.val()) << 1) - 1;
        self.nk2.next = (bit_cast::<7, 5>(self.n.val()) << 1) - 2;
        self.nk3.next = (bit_cast::<7, 5>(self.n.val()) << 1) - 3;
        self.s_k.next = self.nk0.val();
        if self.has_mk.val() {
            self.s_k.next = self.nk2.val();
            if self.s_hdr.val() {
                self.s_k.next = self.nk3.val();
            }
        } else if self.s_hdr.val() {
            self.s_k.next = self.nk1.val();
        }
        self.s_ge.next = 0.into();
        for c in 0..(W / 2) {
            if (!self.s_hdr.val() & ((self.wge.val() >> self.c_t0[c].val()) & 1 != 0))
                | (self.s_hdr.val() & ((self.wge.val() >> self.c_t1[c].val()) & 1 != 0))
            {
                self.s_ge.next = self.s_ge.val() | self.c_gbit[c].val();
            }
        }
        // ULPDU_Length > W for the gearbox stage, here beside the Marker test: the beat's first
        // 16-bit lane is the first word's, or the second's when the Marker is the first word.
        self.up.next = self.s_axis.data.val() >> 32;
        self.hw_lo.next = (bit_cast::<16, B>(self.s_axis.data.val() & 0xFF) << 8)
            | bit_cast::<16, B>((self.s_axis.data.val() >> 8) & 0xFF);
        self.hw_up.next = (bit_cast::<16, B>(self.up.val() & 0xFF) << 8)
            | bit_cast::<16, B>((self.up.val() >> 8) & 0xFF);
        self.hw_gt.next = self.hw_lo.val() > self.c_w.val();
        if self.has_mk.val() & ((bit_cast::<16, 7>(self.tm.val()) & self.c_wmask.val()) == 0) {
            self.hw_gt.next = self.hw_up.val() > self.c_w.val();
        }
        self.pre.s_axis.data.next = self.comp.val();
        self.pre.s_axis.keep.next = self.s_axis.keep.val();
        // Built in a Local: rust-hdl's model reads a child's input port back as last cycle's value.
        self.s_user.next = 0.into();
        self.s_user.next.set_value_strip_fpdu(self.s_axis.user.val());
        self.s_user.next.set_value_strip_ptr_bad(
            (self.s_mid.q.val() & self.s_bad.q.val()) | self.bad_now.val(),
        );
        self.s_user.next.set_value_strip_is_hdr(self.s_hdr.val());
        self.s_user.next.set_value_strip_k(self.s_k.val());
        self.s_user.next.set_value_strip_ge(self.s_ge.val());
        self.s_user.next.set_value_strip_hdr_gt_w(self.hw_gt.val());
        self.pre.s_axis.user.next = self.s_user.val();
        self.pre.s_axis.last.next = self.s_axis.last.val();
        self.pre.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.pre.s_axis.ready.val();
        self.s_take.next = self.s_axis.valid.val() & self.pre.s_axis.ready.val();
        // ---- Context record (only when built with it): read out, and loaded while nothing is
        // inside; no beat is taken in a load's cycle. The strip stage's and the gearbox's
        // registers load here, before the stages that assign them only while a beat is inside
        // (the held lanes at the end: the gearbox stage writes `acc` in every cycle).
        for k in 0..self.ctx.len() {
            self.ctx[k].rec_in.next = self.ctx_in[k].val();
            self.ctx[k].wbytes.next = self.c_w.val();
            self.ctx[k].mid.next = self.s_mid.q.val();
            self.ctx[k].to_mk.next = self.s_to_mk.q.val();
            self.ctx[k].pw.next = self.s_pw.q.val();
            self.ctx[k].bad.next = self.s_bad.q.val();
            self.ctx[k].seen.next = self.hdr_seen.q.val();
            self.ctx[k].len.next = self.len.q.val();
            self.ctx[k].rem.next = self.rem.q.val();
            self.ctx[k].c.next = self.c.q.val();
            self.ctx[k].dead.next = self.dead.q.val();
            self.ctx_out[k].next = self.ctx[k].rec_out.val();
            self.ctx_words_out[k].next = self.acc.q.val();
            self.ctx_idle[k].next =
                !self.pre.m_axis.valid.val() & !self.out.m_axis.valid.val() & !self.closing.q.val();
            if self.ctx_load[k].val() {
                self.s_axis.ready.next = false;
                self.pre.s_axis.valid.next = false;
                self.s_take.next = false;
                if self.ctx_idle[k].val() {
                    self.s_mid.d.next = self.ctx[k].in_mid.val();
                    self.s_to_mk.d.next = self.ctx[k].in_to_mk.val();
                    self.s_pw.d.next = self.ctx[k].in_pw.val();
                    self.s_bad.d.next = self.ctx[k].in_bad.val();
                    self.s_seen.d.next = self.ctx[k].in_seen.val();
                    self.hdr_seen.d.next = self.ctx[k].in_seen.val();
                    self.len.d.next = self.ctx[k].in_len.val();
                    self.rem.d.next = self.ctx[k].in_rem.val();
                    self.rem_gt_w.d.next = self.ctx[k].in_rem_gt_w.val();
                    self.c.d.next = self.ctx[k].in_c.val();
                    self.dead.d.next = self.ctx[k].in_dead.val();
                }
            }
        }
        if self.s_take.val() {
            self.s_mid.d.next = !self.s_axis.last.val();
            self.s_to_mk.d.next = self.tm.val() - bit_cast::<7, 5>(self.n.val());
            self.s_pw.d.next = self.pw.val();
            if self.has_mk.val() {
                self.s_pw.d.next = self.pw.val() + 512;
                if self.lead.val() & !self.s_mid.q.val() {
                    // The leading Marker (FPDUPTR 0); the next ones point 4 octets back.
                    self.s_pw.d.next = self.pw.val() + 508;
                }
            }
            self.s_lead.d.next = self.lead.val();
            self.s_bad.d.next = (self.s_mid.q.val() & self.s_bad.q.val()) | self.bad_now.val();
            self.s_seen.d.next =
                (self.s_mid.q.val() & self.s_seen.q.val()) | self.wge.val().get_bit(1);
        }

        // ---- Gearbox on 16-bit lanes. ----
        self.p_user.next = self.pre.m_axis.user.val();
        self.p_fpdu.next = self.p_user.val().get_value_strip_fpdu();
        self.p_last.next = self.pre.m_axis.last.val();
        // After an error nothing more leaves (section 8): every beat is taken and dropped.
        self.go.next = self.pre.m_axis.valid.val()
            & self.out.s_axis.ready.val()
            & !self.closing.q.val()
            & !self.dead.q.val();
        // The FPDU's first beat with words carries ULPDU_Length in its first 16-bit lane (both
        // worked out in the strip stage, as is whether the beat completes one with c held).
        self.is_hdr.next = self.p_user.val().get_value_strip_is_hdr();
        self.s0.next = bit_cast::<6, 1>(self.is_hdr.val().into());
        self.k.next = self.p_user.val().get_value_strip_k();
        self.p_ge.next = self.p_user.val().get_value_strip_ge();
        // While a ULPDU's tail leaves (closing), the next FPDU's first beat goes into the
        // gearbox beside it when it writes nothing out: not the packet's last beat, and not a
        // full beat alone (its ULPDU_Length lane makes it short; the gearbox holds 0 lanes).
        self.quiet.next = !self.p_last.val() & !self.p_ge.val().get_bit(0);
        self.ovl.next = self.pre.m_axis.valid.val()
            & self.out.s_axis.ready.val()
            & self.closing.q.val()
            & !self.dead.q.val()
            & self.quiet.val();
        self.pre.m_axis.ready.next = (self.out.s_axis.ready.val()
            & (!self.closing.q.val() | self.quiet.val()))
            | self.dead.q.val();
        // c is W / 2 after a ULPDU's last octets were collected (PAD and CRC skipped).
        self.total_ge.next = self.c.q.val() == self.c_half_all.val();
        for c in 0..(W / 2) {
            if self.c.q.val() == self.c_half[c].val() {
                self.total_ge.next = (self.p_ge.val() & self.c_gbit[c].val()) != 0;
            }
        }
        self.rot_amt.next = (self.c.q.val() - self.s0.val()) & self.c_hmask.val();
        // The shared gearbox: the beat rotated up by the lanes held, after acc's held lanes.
        self.gb.data.next = self.pre.m_axis.data.val();
        self.gb.amt.next = bit_cast::<8, 6>(self.rot_amt.val());
        self.gb.acc.next = self.acc.q.val();
        self.gb.hold.next = bit_cast::<8, 6>(self.c.q.val());
        self.total.next = bit_cast::<7, 6>(self.c.q.val()) + self.k.val();
        self.hword.next = (bit_cast::<16, B>(self.pre.m_axis.data.val() & 0xFF) << 8)
            | bit_cast::<16, B>((self.pre.m_axis.data.val() >> 8) & 0xFF);
        self.cur_len.next = 0.into();
        self.cur_rem.next = 0.into();
        if self.hdr_seen.q.val() {
            self.cur_len.next = self.len.q.val();
            self.cur_rem.next = self.rem.q.val();
        }
        if self.is_hdr.val() {
            self.cur_len.next = self.hword.val();
            self.cur_rem.next = self.hword.val();
        }
        // cur_rem > W without a 16-bit comparison after the selection: the header's from the
        // strip stage, the rest from the register kept with rem. The ULPDU octets in the last
        // beat (bit j: more than j left) and in the tail after a full last beat (more than
        // W + j left), constants against 8 bits.
        self.cur_gt_w.next = self.hdr_seen.q.val() & self.rem_gt_w.q.val();
        if self.is_hdr.val() {
            self.cur_gt_w.next = self.p_user.val().get_value_strip_hdr_gt_w();
        }
        self.cur_hi.next = (self.cur_rem.val() >> 8) != 0;
        self.cur_lo.next = bit_cast::<8, 16>(self.cur_rem.val() & 0xFF);
        self.cur_gt_2w.next = self.cur_hi.val() | (self.cur_lo.val() > self.c_2w.val());
        self.last_keep.next = 0.into();
        self.tail_keep.next = 0.into();
        for j in 0..W {
            if self.cur_hi.val() | (self.cur_lo.val() > self.c_w_j[j].val()) {
                self.tail_keep.next = self.tail_keep.val() | self.c_kbit[j].val();
            }
        }
        for j in 0..W {
            if self.cur_hi.val() | (self.cur_lo.val() > self.c_j[j].val()) {
                self.last_keep.next = self.last_keep.val() | self.c_kbit[j].val();
            }
        }
        // The verdict: upstream's error, or a wrong FPDUPTR (code 3, only when upstream found
        // nothing: the CRC is good or off).
        self.err_in.next = self.p_fpdu.val().get_value_rx_fpdu_err();
        self.err_any.next = self.err_in.val() | self.p_user.val().get_value_strip_ptr_bad();
        self.f_user.next = 0.into();
        self.f_user.next.set_value_rx_ulpdu_seq(self.p_fpdu.val().get_value_rx_fpdu_seq());
        self.f_user.next.set_value_rx_ulpdu_len(self.cur_len.val());
        if self.err_any.val() {
            self.f_user.next.set_value_rx_ulpdu_err(true);
            self.f_user.next.set_value_rx_ulpdu_code(3.into());
            if self.err_in.val() {
                self.f_user
                    .next
                    .set_value_rx_ulpdu_code(self.p_fpdu.val().get_value_rx_fpdu_code());
            }
        }
        self.rem_full.next = self.cur_gt_w.val() & self.total_ge.val();
        // What goes out this cycle.
        self.out.s_axis.valid.next = false;
        self.out.s_axis.data.next = self.gb.merged.val();
        self.out.s_axis.user.next = self.f_user.val();
        self.out.s_axis.last.next = false;
        self.o_keep.next = self.c_ones_w.val();
        self.acc.d.next = self.gb.merged.val();
        if self.closing.q.val() {
            // The ULPDU's tail that did not fit the FPDU's last beat.
            self.out.s_axis.valid.next = self.out.s_axis.ready.val();
            self.out.s_axis.data.next = self.acc.q.val();
            self.out.s_axis.user.next = self.close_user.q.val();
            self.out.s_axis.last.next = true;
            self.o_keep.next = self.close_keep.q.val();
            self.acc.d.next = self.acc.q.val();
            if self.out.s_axis.ready.val() {
                self.closing.d.next = false;
            }
        }
        if self.go.val() | self.ovl.val() {
            if self.go.val() & self.p_last.val() & self.err_any.val() {
                // An error: a null beat with the code ends the packet.
                self.out.s_axis.valid.next = true;
                self.out.s_axis.last.next = true;
                self.o_keep.next = 0.into();
                self.err_q.d.next = !self.err_in.val();
                self.c.d.next = 0.into();
                self.dead.d.next = true;
            } else if self.go.val() & self.cur_gt_w.val() & self.total_ge.val() {
                // A full beat of ULPDU octets.
                self.out.s_axis.valid.next = true;
                self.acc.d.next = self.gb.rot.val();
                self.c.d.next = bit_cast::<6, 7>(self.total.val() - self.c_halves.val());
                if self.p_last.val() {
                    // The tail is acc's lanes (close_keep says which): c is the next FPDU's.
                    self.c.d.next = 0.into();
                    self.closing.d.next = true;
                }
            } else if self.go.val() & self.p_last.val() {
                // The FPDU's last beat: the ULPDU's last beat (its verdict is good).
                self.out.s_axis.valid.next = true;
                self.out.s_axis.last.next = true;
                self.o_keep.next = self.last_keep.val();
                self.c.d.next = 0.into();
            } else {
                // A beat that writes nothing (go, or ovl beside the closing tail).
                self.acc.d.next = self.gb.merged.val();
                self.c.d.next = bit_cast::<6, 7>(self.total.val());
                if self.total_ge.val() {
                    // The ULPDU's rest is in the beat collected: keep it, skip PAD and CRC.
                    self.c.d.next = bit_cast::<6, 7>(self.c_halves.val());
                }
            }
            // The octets left: less W after a full beat. Loaded with every beat the gearbox
            // takes (go or ovl), so the enable is that handshake of registers and not the
            // decision (rem is not read after an error, nor after the FPDU's last beat until the
            // next header loads it).
            self.rem.d.next = self.cur_rem.val();
            self.rem_gt_w.d.next = self.cur_gt_w.val();
            if self.rem_full.val() {
                self.rem.d.next = self.cur_rem.val() - self.c_w.val();
                self.rem_gt_w.d.next = self.cur_gt_2w.val();
            }
            if self.is_hdr.val() {
                self.len.d.next = self.hword.val();
                self.hdr_seen.d.next = true;
            }
            if self.p_last.val() {
                self.hdr_seen.d.next = false;
            }
        } else if !self.closing.q.val() {
            self.acc.d.next = self.acc.q.val();
        }
        self.out.s_axis.keep.next = self.o_keep.val();
        // The tail's keep and sideband load in every cycle that is not closing (they are read
        // only while closing, which is set only from such a cycle), so their enable is a
        // register and not the decision.
        if !self.closing.q.val() {
            self.close_keep.d.next = self.tail_keep.val();
            self.close_user.d.next = self.f_user.val();
        }

        for k in 0..self.ctx.len() {
            if self.ctx_load[k].val() & self.ctx_idle[k].val() {
                self.acc.d.next = self.ctx_words_in[k].val();
            }
        }

        // Reset.
        if self.rst.val() {
            self.s_mid.d.next = false;
            self.s_bad.d.next = false;
            self.hdr_seen.d.next = false;
            self.c.d.next = 0.into();
            self.closing.d.next = false;
            self.dead.d.next = false;
            self.err_q.d.next = false;
        }
    }
}
