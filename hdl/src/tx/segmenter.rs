//! `TxSegmenter`: packs FPDUs into FPDU-aligned TCP segments of at most EMSS octets (RFC 5044
//! 5.1, Appendix A.1).
//!
//! "Multiple FPDUs MAY be packed into a single TCP segment as determined by the EMSS calculation
//! as long as they are entirely contained in the TCP segment" (5.1). FPDUs go into the current
//! segment while it stays within EMSS; an FPDU that does not fit starts a new segment, so every
//! segment starts with an FPDU (its first octet, or the leading Marker that belongs to it). A
//! pushed FPDU (sideband bit 16) closes its segment. An FPDU longer than EMSS (its ULPDU was
//! larger than MULPDU, 4.5) starts a new segment, is cut into pieces of EMSS rounded down to a
//! multiple of 4 octets, and closes its last piece; `oversize` pulses for it. The rules are
//! [`golden::segment::segment_fpdus_with_push`]'s, with [`golden::segment::effective_emss`].
//!
//! A segment that is not closed stays open for the next FPDU: its last beat waits until the next
//! FPDU arrives and shows whether it fits (or pushes). Push the last FPDU of a burst.
//!
//! ```text
//!  s_axis ─► F1 ─► F2 ─► F3 ─► gearbox (acc + input rotated by c - s lanes) ─► m_axis
//!            y     wire  fit?    segments
//! ```
//! F1..F3 compute, for each FPDU, its length on the wire from P (its length without Markers) and
//! the stream position `a` of its first word (mod 128 words): a leading Marker when `a = 0`, then
//! `m = ceil((P - room) / 127)` Markers inside, `room = 128 - a'` words before the first one
//! (`ceil(x/127)` exactly, from `y = x + 126`: `floor(y/127) = q + floor((q + r)/127)` with
//! `y = 128q + r`). F3 decides whether the FPDU fits the open segment.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_emss` | in | 16 | EMSS in octets, sampled per FPDU; below 128 it counts as 128 |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet and of the marker origin, loaded while `rst` is high |
//! | `s_axis` | in | 8W | FPDUs (with Markers and CRC), one per packet, lane 0 first; `user` as [`super::TX_FPDU_USER`] |
//! | `m_axis` | out | 8W | TCP segment payloads, one per packet, lane 0 first |
//! | `m_axis.user` | out | 32 | on every beat of a segment: the TCP sequence number of its first octet |
//! | `oversize` | out | 1 | one-cycle pulse per FPDU longer than EMSS |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! Four cycles from an input beat to its output beat when the segment goes on (F1-F3, the
//! output slice). One output beat per cycle: the gearbox fills every beat of a segment but its
//! last; the input is held one cycle where an oversize FPDU is cut inside a beat, and where a
//! segment's last words and the next segment's first words would need two beats at once.
//!
//! ### Reset
//! `rst` loads the sequence number and stream position, empties the pipeline, the gearbox and the
//! output slice.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_skid::StreamSkid;
use crate::tx::TX_FPDU_USER;
use rust_hdl::prelude::*;

/// Width of the segment sideband: the TCP sequence number of the segment's first octet.
pub const TX_SEGMENT_USER: usize = 32;

/// The segmenter; see the module documentation.
#[derive(LogicBlock)]
pub struct TxSegmenter<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (loads the sequence number and position).
    pub rst: Signal<In, Bit>,
    /// EMSS in octets.
    pub cfg_emss: Signal<In, Bits<16>>,
    /// Sequence number of the stream's first octet.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// FPDUs.
    pub s_axis: StreamSink<W, B, TX_FPDU_USER>,
    /// Segments.
    pub m_axis: StreamSource<W, B, TX_SEGMENT_USER>,
    /// Pulse: an FPDU longer than EMSS.
    pub oversize: Signal<Out, Bit>,
    out: StreamSkid<W, B, TX_SEGMENT_USER>,
    // Input side: inside an FPDU; stream position of the next input word (mod 128).
    in_mid: DFF<Bit>,
    ipos: DFF<Bits<7>>,
    // F1.
    f1_v: DFF<Bit>,
    f1_data: DFF<Bits<B>>,
    f1_n: DFF<Bits<6>>,
    f1_last: DFF<Bit>,
    f1_first: DFF<Bit>,
    f1_lead: DFF<Bit>,
    f1_p: DFF<Bits<16>>,
    f1_y: DFF<Bits<16>>,
    f1_needm: DFF<Bit>,
    f1_push: DFF<Bit>,
    // F2.
    f2_v: DFF<Bit>,
    f2_data: DFF<Bits<B>>,
    f2_n: DFF<Bits<6>>,
    f2_last: DFF<Bit>,
    f2_first: DFF<Bit>,
    f2_wire: DFF<Bits<16>>,
    f2_push: DFF<Bit>,
    // F3: the decision for the FPDU's first beat; the open segment's words.
    f3_v: DFF<Bit>,
    f3_data: DFF<Bits<B>>,
    f3_n: DFF<Bits<6>>,
    f3_last: DFF<Bit>,
    f3_first: DFF<Bit>,
    f3_cb: DFF<Bit>,
    f3_ca: DFF<Bit>,
    f3_over: DFF<Bit>,
    f3_emw: DFF<Bits<16>>,
    used: DFF<Bits<16>>,
    over_q: DFF<Bit>,
    // Gearbox: words waiting (lanes 0..c), what they are, where the head beat resumes.
    acc: DFF<Bits<B>>,
    c: DFF<Bits<6>>,
    closing: DFF<Bit>,
    full_ready: DFF<Bit>,
    pend: DFF<Bit>,
    s: DFF<Bits<6>>,
    g_over: DFF<Bit>,
    g_ca: DFF<Bit>,
    g_emw: DFF<Bits<16>>,
    g_left: DFF<Bits<16>>,
    // Sequence numbers: of the next octet out, of the current segment's first octet.
    seq_out: DFF<Bits<32>>,
    seg_seq: DFF<Bits<32>>,
    seg_first: DFF<Bit>,
    // Constants.
    c_ones: Constant<Bits<B>>,
    c_ones_w: Constant<Bits<W>>,
    c_words: Constant<Bits<6>>,
    c_wmask: Constant<Bits<6>>,
    c_rot_l: Vec<Constant<Bits<16>>>,
    c_rot_r: Vec<Constant<Bits<16>>>,
    c_cnt: Vec<Constant<Bits<6>>>,
    // Combinational.
    adv: Signal<Local, Bit>,
    in_take: Signal<Local, Bit>,
    in_first: Signal<Local, Bit>,
    wedge: Signal<Local, Bits<W>>,
    in_n: Signal<Local, Bits<6>>,
    in_lead: Signal<Local, Bit>,
    in_a1: Signal<Local, Bits<16>>,
    in_p: Signal<Local, Bits<16>>,
    q: Signal<Local, Bits<16>>,
    ssum: Signal<Local, Bits<16>>,
    m: Signal<Local, Bits<16>>,
    emss: Signal<Local, Bits<16>>,
    emw: Signal<Local, Bits<16>>,
    open: Signal<Local, Bit>,
    cb: Signal<Local, Bit>,
    ca: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    is_first: Signal<Local, Bit>,
    a_emit: Signal<Local, Bit>,
    a_last: Signal<Local, Bit>,
    c_a: Signal<Local, Bits<6>>,
    merge: Signal<Local, Bit>,
    cur_over: Signal<Local, Bit>,
    cur_ca: Signal<Local, Bit>,
    cur_left: Signal<Local, Bits<16>>,
    cur_emw: Signal<Local, Bits<16>>,
    rest: Signal<Local, Bits<6>>,
    cut: Signal<Local, Bit>,
    k: Signal<Local, Bits<6>>,
    total: Signal<Local, Bits<6>>,
    fpdu_end: Signal<Local, Bit>,
    seg_end: Signal<Local, Bit>,
    b_emit: Signal<Local, Bit>,
    b_last: Signal<Local, Bit>,
    b_words: Signal<Local, Bits<6>>,
    pop: Signal<Local, Bit>,
    rot_amt: Signal<Local, Bits<6>>,
    rot: Signal<Local, Bits<B>>,
    mask_c: Signal<Local, Bits<B>>,
    merged: Signal<Local, Bits<B>>,
    o_words: Signal<Local, Bits<6>>,
    o_last: Signal<Local, Bit>,
    pos: Signal<Local, Bits<32>>,
}

impl<const W: usize, const B: usize> TxSegmenter<W, B> {
    /// Builds the segmenter; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("TxSegmenter", W, B, TX_FPDU_USER);
        crate::tx::check_tx_width("TxSegmenter", W);
        let words = W / 4;
        let stages = words.trailing_zeros() as usize;
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_emss: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            oversize: Default::default(),
            out: StreamSkid::new(),
            in_mid: Default::default(),
            ipos: Default::default(),
            f1_v: Default::default(),
            f1_data: Default::default(),
            f1_n: Default::default(),
            f1_last: Default::default(),
            f1_first: Default::default(),
            f1_lead: Default::default(),
            f1_p: Default::default(),
            f1_y: Default::default(),
            f1_needm: Default::default(),
            f1_push: Default::default(),
            f2_v: Default::default(),
            f2_data: Default::default(),
            f2_n: Default::default(),
            f2_last: Default::default(),
            f2_first: Default::default(),
            f2_wire: Default::default(),
            f2_push: Default::default(),
            f3_v: Default::default(),
            f3_data: Default::default(),
            f3_n: Default::default(),
            f3_last: Default::default(),
            f3_first: Default::default(),
            f3_cb: Default::default(),
            f3_ca: Default::default(),
            f3_over: Default::default(),
            f3_emw: Default::default(),
            used: Default::default(),
            over_q: Default::default(),
            acc: Default::default(),
            c: Default::default(),
            closing: Default::default(),
            full_ready: Default::default(),
            pend: Default::default(),
            s: Default::default(),
            g_over: Default::default(),
            g_ca: Default::default(),
            g_emw: Default::default(),
            g_left: Default::default(),
            seq_out: Default::default(),
            seg_seq: Default::default(),
            seg_first: Default::default(),
            c_ones: Constant::new(Bits::<B>::mask()),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_words: Constant::new((words as u64).into()),
            c_wmask: Constant::new(((words - 1) as u64).into()),
            c_rot_l: (0..stages).map(|s| c16(32 << s)).collect(),
            c_rot_r: (0..stages).map(|s| c16(B - (32 << s))).collect(),
            c_cnt: (0..words).map(|k| Constant::new(((k + 1) as u64).into())).collect(),
            adv: Default::default(),
            in_take: Default::default(),
            in_first: Default::default(),
            wedge: Default::default(),
            in_n: Default::default(),
            in_lead: Default::default(),
            in_a1: Default::default(),
            in_p: Default::default(),
            q: Default::default(),
            ssum: Default::default(),
            m: Default::default(),
            emss: Default::default(),
            emw: Default::default(),
            open: Default::default(),
            cb: Default::default(),
            ca: Default::default(),
            over: Default::default(),
            is_first: Default::default(),
            a_emit: Default::default(),
            a_last: Default::default(),
            c_a: Default::default(),
            merge: Default::default(),
            cur_over: Default::default(),
            cur_ca: Default::default(),
            cur_left: Default::default(),
            cur_emw: Default::default(),
            rest: Default::default(),
            cut: Default::default(),
            k: Default::default(),
            total: Default::default(),
            fpdu_end: Default::default(),
            seg_end: Default::default(),
            b_emit: Default::default(),
            b_last: Default::default(),
            b_words: Default::default(),
            pop: Default::default(),
            rot_amt: Default::default(),
            rot: Default::default(),
            mask_c: Default::default(),
            merged: Default::default(),
            o_words: Default::default(),
            o_last: Default::default(),
            pos: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for TxSegmenter<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TxSegmenter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_mid, ipos, f1_v, f1_data, f1_n, f1_last, f1_first, f1_lead, f1_p, f1_y,
            f1_needm, f1_push, f2_v, f2_data, f2_n, f2_last, f2_first, f2_wire, f2_push, f3_v,
            f3_data, f3_n, f3_last, f3_first, f3_cb, f3_ca, f3_over, f3_emw, used, over_q, acc, c,
            closing, full_ready, pend, s, g_over, g_ca, g_emw, g_left, seq_out, seg_seq, seg_first
        );
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.oversize.next = self.over_q.q.val();
        self.over_q.d.next = false;

        // ---- The gearbox (on F3's beat, the head). ----
        // Step A: what is in acc goes out first when it must: a closed segment's end, a full
        // beat, or the end of an FPDU once the next FPDU shows whether it fits.
        self.is_first.next = self.f3_first.q.val() & (self.s.q.val() == 0);
        self.a_emit.next = self.out.s_axis.ready.val()
            & (self.closing.q.val()
                | self.full_ready.q.val()
                | (self.pend.q.val()
                    & self.f3_v.q.val()
                    & ((self.c.q.val() == self.c_words.val()) | self.f3_cb.q.val())));
        self.a_last.next =
            self.closing.q.val() | (self.pend.q.val() & self.f3_v.q.val() & self.f3_cb.q.val());
        self.c_a.next = self.c.q.val();
        if self.a_emit.val() {
            self.c_a.next = 0.into();
        }
        // Step B: merge the head beat's words [s, e) after acc's c_a words.
        self.merge.next = self.out.s_axis.ready.val()
            & self.f3_v.q.val()
            & (self.a_emit.val()
                | (!self.closing.q.val()
                    & !self.full_ready.q.val()
                    & !(self.pend.q.val() & (self.c.q.val() == self.c_words.val()))));
        self.cur_over.next = self.g_over.q.val();
        self.cur_ca.next = self.g_ca.q.val();
        self.cur_left.next = self.g_left.q.val();
        self.cur_emw.next = self.g_emw.q.val();
        if self.is_first.val() {
            self.cur_over.next = self.f3_over.q.val();
            self.cur_ca.next = self.f3_ca.q.val();
            self.cur_left.next = self.f3_emw.q.val();
            self.cur_emw.next = self.f3_emw.q.val();
        }
        self.rest.next = self.f3_n.q.val() - self.s.q.val();
        self.cut.next =
            self.cur_over.val() & (bit_cast::<16, 6>(self.rest.val()) >= self.cur_left.val());
        self.k.next = self.rest.val();
        if self.cut.val() {
            self.k.next = bit_cast::<6, 16>(self.cur_left.val());
        }
        self.total.next = self.c_a.val() + self.k.val();
        self.fpdu_end.next = self.f3_last.q.val() & (self.k.val() == self.rest.val());
        self.seg_end.next = self.cut.val() | (self.fpdu_end.val() & self.cur_ca.val());
        // Step B emits only if step A did not: a full beat (unless it ends an FPDU whose
        // segment's fate is open), or a closed segment's end.
        self.b_emit.next = false;
        self.b_last.next = false;
        self.b_words.next = self.c_words.val();
        if self.merge.val() & !self.a_emit.val() {
            if self.total.val() > self.c_words.val() {
                self.b_emit.next = true;
            } else if self.total.val() == self.c_words.val() {
                self.b_emit.next = self.seg_end.val() | !self.fpdu_end.val();
                self.b_last.next = self.seg_end.val();
            } else if self.seg_end.val() {
                self.b_emit.next = true;
                self.b_last.next = true;
                self.b_words.next = self.total.val();
            }
        }
        // The merged beat: acc's c_a words, then the head's words from lane s on.
        self.rot_amt.next = (self.c_a.val() - self.s.q.val()) & self.c_wmask.val();
        self.rot.next = self.f3_data.q.val();
        for st in 0..self.c_rot_l.len() {
            if self.rot_amt.val().get_bit(st) {
                self.rot.next = (self.rot.val() << self.c_rot_l[st].val())
                    | (self.rot.val() >> self.c_rot_r[st].val());
            }
        }
        self.mask_c.next = !(self.c_ones.val() << (bit_cast::<16, 6>(self.c_a.val()) << 5));
        self.merged.next =
            (self.acc.q.val() & self.mask_c.val()) | (self.rot.val() & !self.mask_c.val());
        // The output beat.
        self.o_words.next = self.b_words.val();
        self.o_last.next = self.b_last.val();
        self.out.s_axis.data.next = self.merged.val();
        if self.a_emit.val() {
            self.o_words.next = self.c.q.val();
            self.o_last.next = self.a_last.val();
            self.out.s_axis.data.next = self.acc.q.val();
        }
        self.out.s_axis.valid.next = self.a_emit.val() | self.b_emit.val();
        self.out.s_axis.last.next = self.o_last.val();
        self.out.s_axis.keep.next =
            !(self.c_ones_w.val() << (bit_cast::<8, 6>(self.o_words.val()) << 2));
        self.out.s_axis.user.next = self.seg_seq.q.val();
        if self.seg_first.q.val() {
            self.out.s_axis.user.next = self.seq_out.q.val();
        }
        if self.a_emit.val() | self.b_emit.val() {
            self.seq_out.d.next =
                self.seq_out.q.val() + (bit_cast::<32, 6>(self.o_words.val()) << 2);
            if self.seg_first.q.val() {
                self.seg_seq.d.next = self.seq_out.q.val();
            }
            self.seg_first.d.next = self.o_last.val();
        }
        // Gearbox state.
        if self.a_emit.val() {
            self.c.d.next = 0.into();
            self.closing.d.next = false;
            self.full_ready.d.next = false;
            self.pend.d.next = false;
        }
        if self.merge.val() {
            if self.b_emit.val() & (self.total.val() > self.c_words.val()) {
                self.acc.d.next = self.rot.val();
                self.c.d.next = self.total.val() - self.c_words.val();
            } else if self.b_emit.val() {
                self.c.d.next = 0.into();
            } else {
                self.acc.d.next = self.merged.val();
                self.c.d.next = self.total.val();
            }
            if self.b_emit.val() & !(self.total.val() > self.c_words.val()) {
                self.closing.d.next = false;
                self.full_ready.d.next = false;
                self.pend.d.next = false;
            } else {
                self.closing.d.next = self.seg_end.val();
                self.pend.d.next = self.fpdu_end.val() & !self.seg_end.val();
                self.full_ready.d.next = self.a_emit.val()
                    & (self.total.val() == self.c_words.val())
                    & !self.seg_end.val()
                    & !self.fpdu_end.val();
            }
            // The FPDU's settings, and the words left in the current piece of an oversize FPDU.
            if self.is_first.val() {
                self.g_over.d.next = self.f3_over.q.val();
                self.g_ca.d.next = self.f3_ca.q.val();
                self.g_emw.d.next = self.f3_emw.q.val();
            }
            self.g_left.d.next = self.cur_left.val() - bit_cast::<16, 6>(self.k.val());
            if self.cut.val() {
                self.g_left.d.next = self.cur_emw.val();
            }
            self.s.d.next = self.s.q.val() + self.k.val();
        }
        self.pop.next = self.merge.val() & (self.k.val() == self.rest.val());
        if self.pop.val() {
            self.s.d.next = 0.into();
        }

        // ---- F1..F3: the FPDU's wire length and the fit decision. ----
        self.adv.next = !self.f3_v.q.val() | self.pop.val();
        self.s_axis.ready.next = self.adv.val();
        self.in_take.next = self.s_axis.valid.val() & self.adv.val();
        self.in_first.next = !self.in_mid.q.val();
        // Words in the input beat (keep is contiguous, whole words).
        self.wedge.next = 0.into();
        for j in 0..(W / 4 - 1) {
            self.wedge.next = self.wedge.val().replace_bit(
                j,
                self.s_axis.keep.val().get_bit(j * 4) & !self.s_axis.keep.val().get_bit(j * 4 + 4),
            );
        }
        for j in (W / 4 - 1)..(W / 4) {
            self.wedge.next =
                self.wedge.val().replace_bit(j, self.s_axis.keep.val().get_bit(j * 4));
        }
        self.in_n.next = 0.into();
        for j in 0..(W / 4) {
            if self.wedge.val().get_bit(j) {
                self.in_n.next = self.in_n.val() | self.c_cnt[j].val();
            }
        }
        // F1: a leading Marker when the FPDU starts on a Marker position; y = P + a' - 2.
        self.in_p.next = bit_cast::<16, 17>(self.s_axis.user.val() & 0x3FFF);
        self.in_lead.next = self.s_axis.user.val().get_bit(14) & (self.ipos.q.val() == 0);
        self.in_a1.next = bit_cast::<16, 7>(self.ipos.q.val());
        if self.in_lead.val() {
            self.in_a1.next = 1.into();
        }
        if self.adv.val() {
            self.f1_v.d.next = self.in_take.val();
            self.f1_data.d.next = self.s_axis.data.val();
            self.f1_n.d.next = self.in_n.val();
            self.f1_last.d.next = self.s_axis.last.val();
            self.f1_first.d.next = self.in_first.val();
            self.f1_lead.d.next = self.in_lead.val();
            self.f1_p.d.next = self.in_p.val();
            self.f1_y.d.next = self.in_p.val() + self.in_a1.val() - 2;
            self.f1_needm.d.next =
                self.s_axis.user.val().get_bit(14) & ((self.in_p.val() + self.in_a1.val()) > 128);
            self.f1_push.d.next = self.s_axis.user.val().get_bit(16);
        }
        if self.in_take.val() {
            self.in_mid.d.next = !self.s_axis.last.val();
            self.ipos.d.next = self.ipos.q.val() + bit_cast::<7, 6>(self.in_n.val());
        }
        // F2: m = ceil((P - room) / 127) = q + floor((q + r) / 127), y = 128q + r; the wire length.
        self.q.next = self.f1_y.q.val() >> 7;
        self.ssum.next = self.q.val() + (self.f1_y.q.val() & 127);
        self.m.next = self.q.val();
        if self.ssum.val() >= 127 {
            self.m.next = self.q.val() + 1;
        }
        if self.ssum.val() >= 254 {
            self.m.next = self.q.val() + 2;
        }
        if !self.f1_needm.q.val() {
            self.m.next = 0.into();
        }
        if self.adv.val() {
            self.f2_v.d.next = self.f1_v.q.val();
            self.f2_data.d.next = self.f1_data.q.val();
            self.f2_n.d.next = self.f1_n.q.val();
            self.f2_last.d.next = self.f1_last.q.val();
            self.f2_first.d.next = self.f1_first.q.val();
            self.f2_wire.d.next =
                self.f1_p.q.val() + self.m.val() + bit_cast::<16, 1>(self.f1_lead.q.val().into());
            self.f2_push.d.next = self.f1_push.q.val();
        }
        // F3: does the FPDU fit the open segment? (All in 4-octet words.)
        self.emss.next = self.cfg_emss.val();
        if self.cfg_emss.val() < 128 {
            self.emss.next = 128.into();
        }
        self.emw.next = self.emss.val() >> 2;
        self.open.next = self.used.q.val() != 0;
        self.over.next = self.f2_wire.q.val() > self.emw.val();
        self.cb.next = self.open.val()
            & (self.over.val() | ((self.used.q.val() + self.f2_wire.q.val()) > self.emw.val()));
        self.ca.next = self.f2_push.q.val() | self.over.val();
        if self.adv.val() {
            self.f3_v.d.next = self.f2_v.q.val();
            self.f3_data.d.next = self.f2_data.q.val();
            self.f3_n.d.next = self.f2_n.q.val();
            self.f3_last.d.next = self.f2_last.q.val();
            self.f3_first.d.next = self.f2_first.q.val();
            self.f3_cb.d.next = self.cb.val();
            self.f3_ca.d.next = self.ca.val();
            self.f3_over.d.next = self.over.val();
            self.f3_emw.d.next = self.emw.val();
            if self.f2_v.q.val() & self.f2_first.q.val() {
                if self.ca.val() {
                    self.used.d.next = 0.into();
                } else if self.cb.val() | !self.open.val() {
                    self.used.d.next = self.f2_wire.q.val();
                } else {
                    self.used.d.next = self.used.q.val() + self.f2_wire.q.val();
                }
                self.over_q.d.next = self.over.val();
            }
        }

        // Reset: sequence number and stream position from the settings.
        self.pos.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.ipos.d.next = bit_cast::<7, 32>(self.pos.val() >> 2);
            self.seq_out.d.next = self.cfg_seq.val();
            self.seg_first.d.next = true;
            self.in_mid.d.next = false;
            self.f1_v.d.next = false;
            self.f2_v.d.next = false;
            self.f3_v.d.next = false;
            self.used.d.next = 0.into();
            self.c.d.next = 0.into();
            self.closing.d.next = false;
            self.full_ready.d.next = false;
            self.pend.d.next = false;
            self.s.d.next = 0.into();
            self.over_q.d.next = false;
        }
    }
}
