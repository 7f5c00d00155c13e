//! `RxRealigner`: TCP payload segments in, the MPA stream out as whole 4-octet words.
//!
//! RFC 5044 A.4: TCP segments may be cut anywhere (re-segmenting middleboxes); the receiver must
//! not depend on FPDU alignment. With the stream position counted from the marker origin, every
//! MPA field (ULPDU_Length, Markers, CRC) sits in a whole 4-octet word (4.3), so later blocks work
//! on word lanes once the octets are put back together: this block concatenates the segments'
//! octets (in sequence order) and emits them as words, lane 0 of each beat the next word of the
//! stream.
//!
//! ```text
//!  segment octets ─► after acc's a octets (rotated up by a octets) ─► full beats out;
//!  at a segment's end: the whole words out (a partial beat, `last`), the 0..3 octets of the
//!  incomplete word kept for the next segment
//! ```
//! The rotation and merge are the shared [`crate::gearbox::Gearbox`] on octet lanes.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq` | in | 32 | sequence number of the first octet of the MPA stream (the first FPDU), loaded while `rst` is high |
//! | `cfg_origin` | in | 32 | sequence number of the marker origin, loaded while `rst` is high |
//! | `s_axis` | in | 8W | segments, one per packet, lane 0 first, 1..any octets (a null beat is allowed); `user[31:0]` the sequence number of the first octet (first beat), `user[32]` FIN: the stream ends after this segment (last beat) |
//! | `m_axis` | out | 8W | the stream as words: every beat full but a segment's last, which has its whole words (`last` set; also set on the final beat); `user` [`RX_WORD_USER`]: `[0]` the stream ends after this beat, `[1]` it ended inside a word (octets lost) |
//! | `err_seq` | out | 1 | pulse: a segment that starts beyond the next expected sequence number (a gap) was dropped (this path takes segments in order only) |
//! | `seq_gap` | out | 1 | sticky: `err_seq` pulsed since `rst` |
//! | `cfg_misaligned` | out | 1 | `cfg_seq - cfg_origin` is not a multiple of 4 (FPDUs start on 4-octet boundaries, 4.3) |
//! | `busy` | out | 1 | a beat taken is still inside (input slice, output queue, a segment end being flushed); low: every whole word taken has gone out |
//!
//! A segment that starts before the next expected octet (a retransmission, A.3) is trimmed: its
//! first beat waits one cycle while the octets to skip are registered (whole beats, then the
//! first lanes of one beat, which the rotation below absorbs), and the rest goes on; one that
//! holds nothing new is dropped without an error. Sequence numbers are compared as 32-bit
//! differences (`expected - seq` below 2^31 is behind), so they wrap through 2^32.
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! Two cycles (an input register slice, the output queue; `m_axis` is a 2:1 multiplexer of
//! registers, [`crate::stream_outq::StreamOutQ`]). One beat per cycle; a segment's end costs one
//! more cycle when its whole words did not all fit the beat that completed a full one, and a
//! retransmission one cycle to register what it skips.
//!
//! ### Reset
//! `rst` loads the expected sequence number and empties the octet buffer.

use crate::gearbox::Gearbox;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use crate::stream_skid::StreamSkid;
use rust_hdl::prelude::*;

use crate::sideband::RxWordUserFields;
pub use crate::sideband::{RX_SEG_USER, RX_WORD_USER};

crate::sideband::sideband! {
    /// Registered input sideband (inside the block): [`crate::sideband::RxSegmentUser`] and the
    /// octets in the beat (also less W).
    AlignInUser, prefix align_in, bits 49, {
        /// As [`crate::sideband::RxSegmentUser::seq`].
        seq: Bits<32> = 0,
        /// As [`crate::sideband::RxSegmentUser::fin`].
        fin: Bit = 32,
        /// Octets in the beat.
        octets: Bits<7> = RX_SEG_USER,
        /// Octets in the beat less W, modulo 512 (added to the octets held, its sign says
        /// whether a beat is full).
        octets_mw: Bits<9> = RX_SEG_USER + 7,
    }
}
const PRE_USER: usize = AlignInUser::BITS;

/// The realigner; see the module documentation.
#[derive(LogicBlock)]
pub struct RxRealigner<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the first octet of the MPA stream.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Segments.
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// The stream as words.
    pub m_axis: StreamSource<W, B, RX_WORD_USER>,
    /// Pulse: a segment beyond the next expected octet was dropped.
    pub err_seq: Signal<Out, Bit>,
    /// Sticky: `err_seq` pulsed since `rst`.
    pub seq_gap: Signal<Out, Bit>,
    /// The configured start is not 4-octet aligned.
    pub cfg_misaligned: Signal<Out, Bit>,
    /// A beat taken is still inside (see the module documentation).
    pub busy: Signal<Out, Bit>,
    pre: StreamSkid<W, B, PRE_USER>,
    out: StreamOutQ<W, B, RX_WORD_USER>,
    exp_seq: DFF<Bits<32>>,
    in_seg: DFF<Bit>,
    drop: DFF<Bit>,
    // Octets waiting (lanes 0..a), and a segment's whole words still to go out (flush).
    acc: DFF<Bits<B>>,
    a: DFF<Bits<8>>,
    flush: DFF<Bit>,
    flush_fin: DFF<Bit>,
    done: DFF<Bit>,
    err_q: DFF<Bit>,
    gap: DFF<Bit>,
    // A retransmission being trimmed: whole beats still to skip (and whether any), then lanes
    // of the next beat; `am` = a - lanes (mod 256), acc's count as the partial beat sees it.
    skipping: DFF<Bit>,
    sk_beats: DFF<Bits<32>>,
    sk_beats_nz: DFF<Bit>,
    sk_lanes: DFF<Bits<8>>,
    am: DFF<Bits<8>>,
    misaligned: DFF<Bit>,
    // The head beat's sequence tests, registered: `seq == expected` and `expected - seq` is
    // negative (bit 31), for the beat the input slice presents and the expected sequence number
    // of this cycle; worked out a cycle ahead for the beat it will present next (`seq_sk`: the
    // slice's second entry's sequence number) and for both values `exp_seq` can take.
    h_eq: DFF<Bit>,
    h_neg: DFF<Bit>,
    seq_sk: DFF<Bits<32>>,
    // Constants.
    c_ones_w: Constant<Bits<W>>,
    c_w: Constant<Bits<8>>,
    /// W, for the beat's octets less W (worked out in the input stage).
    c_w9: Constant<Bits<9>>,
    c_lanes: Constant<Bits<8>>,
    c_lanes32: Constant<Bits<32>>,
    c_wbits: Constant<Bits<32>>,
    c_cnt: Vec<Constant<Bits<8>>>,
    c_lane: Vec<Constant<Bits<8>>>,
    // Combinational.
    kedge: Signal<Local, Bits<W>>,
    kc: Signal<Local, Bits<8>>,
    p_user: Signal<Local, Bits<PRE_USER>>,
    k: Signal<Local, Bits<8>>,
    first: Signal<Local, Bit>,
    seq_ok: Signal<Local, Bit>,
    behind: Signal<Local, Bits<32>>,
    behind_beats: Signal<Local, Bits<32>>,
    behind_lanes: Signal<Local, Bits<8>>,
    old: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    base_ready: Signal<Local, Bit>,
    base_take: Signal<Local, Bit>,
    whole_skip: Signal<Local, Bit>,
    partial: Signal<Local, Bit>,
    part: Signal<Local, Bits<8>>,
    keff: Signal<Local, Bits<8>>,
    ramt: Signal<Local, Bits<8>>,
    counts: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    use_beat: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    total: Signal<Local, Bits<8>>,
    // total - W (9 bits, two's complement): its sign is "not full", its value acc's count
    // after a full beat; one adder beside total's, no comparison after it.
    tmw: Signal<Local, Bits<9>>,
    am9: Signal<Local, Bits<9>>,
    tmw_a: Signal<Local, Bits<9>>,
    tmw_m: Signal<Local, Bits<9>>,
    total_a: Signal<Local, Bits<8>>,
    total_m: Signal<Local, Bits<8>>,
    word_in: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    gb: Gearbox<B>,
    rem_src: Signal<Local, Bits<B>>,
    rem_hit: Vec<Signal<Local, Bit>>,
    acc_next: Signal<Local, Bits<B>>,
    rem_word: Signal<Local, Bits<32>>,
    emit: Signal<Local, Bit>,
    km_a: Signal<Local, Bits<W>>,
    km_ta: Signal<Local, Bits<W>>,
    km_tm: Signal<Local, Bits<W>>,
    km_t: Signal<Local, Bits<W>>,
    tmw_z: Signal<Local, Bit>,
    c_wq3: Vec<Constant<Bits<8>>>,
    c_wkeep: Vec<Constant<Bits<W>>>,
    o_fin: Signal<Local, Bit>,
    o_lost: Signal<Local, Bit>,
    pos: Signal<Local, Bits<32>>,
    h_seq: Signal<Local, Bits<32>>,
    n_seq: Signal<Local, Bits<32>>,
    keff32: Signal<Local, Bits<32>>,
    d_h: Signal<Local, Bits<32>>,
    d_n: Signal<Local, Bits<32>>,
    nb_h: Signal<Local, Bits<32>>,
    nb_n: Signal<Local, Bits<32>>,
    kb_h: Signal<Local, Bits<32>>,
    kb_n: Signal<Local, Bits<32>>,
    head_loads: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> RxRealigner<W, B> {
    /// Builds the realigner; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxRealigner", W, B, RX_SEG_USER);
        crate::tx::check_tx_width("RxRealigner", W);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            err_seq: Default::default(),
            seq_gap: Default::default(),
            cfg_misaligned: Default::default(),
            busy: Default::default(),
            pre: StreamSkid::new(),
            out: StreamOutQ::new(),
            exp_seq: Default::default(),
            in_seg: Default::default(),
            drop: Default::default(),
            acc: Default::default(),
            a: Default::default(),
            flush: Default::default(),
            flush_fin: Default::default(),
            done: Default::default(),
            err_q: Default::default(),
            gap: Default::default(),
            skipping: Default::default(),
            sk_beats: Default::default(),
            sk_beats_nz: Default::default(),
            sk_lanes: Default::default(),
            am: Default::default(),
            misaligned: Default::default(),
            h_eq: Default::default(),
            h_neg: Default::default(),
            seq_sk: Default::default(),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_w: Constant::new((W as u64).into()),
            c_w9: Constant::new((W as u64).into()),
            c_lanes: Constant::new(((W - 1) as u64).into()),
            c_lanes32: Constant::new(((W - 1) as u64).into()),
            c_wbits: Constant::new((W.trailing_zeros() as u64).into()),
            c_cnt: (0..W).map(|k| Constant::new(((k + 1) as u64).into())).collect(),
            c_lane: (0..W / 4).map(|j| Constant::new((j as u64).into())).collect(),
            kedge: Default::default(),
            kc: Default::default(),
            p_user: Default::default(),
            k: Default::default(),
            first: Default::default(),
            seq_ok: Default::default(),
            behind: Default::default(),
            behind_beats: Default::default(),
            behind_lanes: Default::default(),
            old: Default::default(),
            load: Default::default(),
            base_ready: Default::default(),
            base_take: Default::default(),
            whole_skip: Default::default(),
            partial: Default::default(),
            part: Default::default(),
            keff: Default::default(),
            ramt: Default::default(),
            counts: Default::default(),
            take: Default::default(),
            use_beat: Default::default(),
            fin: Default::default(),
            total: Default::default(),
            tmw: Default::default(),
            am9: Default::default(),
            tmw_a: Default::default(),
            tmw_m: Default::default(),
            total_a: Default::default(),
            total_m: Default::default(),
            word_in: Default::default(),
            full: Default::default(),
            gb: Gearbox::new("RxRealigner", 8),
            rem_src: Default::default(),
            rem_hit: (0..W / 4).map(|_| Default::default()).collect(),
            acc_next: Default::default(),
            rem_word: Default::default(),
            emit: Default::default(),
            km_a: Default::default(),
            km_ta: Default::default(),
            km_tm: Default::default(),
            km_t: Default::default(),
            tmw_z: Default::default(),
            c_wq3: (0..W / 4).map(|q| Constant::new(((4 * q + 3) as u64).into())).collect(),
            c_wkeep: (0..W / 4)
                .map(|q| Constant::new(Bits::<W>::from(0xFu64 << (4 * q))))
                .collect(),
            o_fin: Default::default(),
            o_lost: Default::default(),
            pos: Default::default(),
            h_seq: Default::default(),
            n_seq: Default::default(),
            keff32: Default::default(),
            d_h: Default::default(),
            d_n: Default::default(),
            nb_h: Default::default(),
            nb_n: Default::default(),
            kb_h: Default::default(),
            kb_n: Default::default(),
            head_loads: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for RxRealigner<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxRealigner<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            exp_seq,
            in_seg,
            drop,
            acc,
            a,
            flush,
            flush_fin,
            done,
            err_q,
            gap,
            skipping,
            sk_beats,
            sk_beats_nz,
            sk_lanes,
            am,
            misaligned,
            h_eq,
            h_neg,
            seq_sk
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
        self.err_seq.next = self.err_q.q.val();
        self.seq_gap.next = self.gap.q.val();
        self.err_q.d.next = false;
        if self.err_q.q.val() {
            self.gap.d.next = true;
        }
        self.cfg_misaligned.next = self.misaligned.q.val();
        self.busy.next =
            self.pre.m_axis.valid.val() | self.out.m_axis.valid.val() | self.flush.q.val();

        // ---- Input register: the beat and its octet count. ----
        self.kedge.next = self.s_axis.keep.val() & !(self.s_axis.keep.val() >> 1);
        self.kc.next = 0.into();
        for j in 0..W {
            if self.kedge.val().get_bit(j) {
                self.kc.next = self.kc.val() | self.c_cnt[j].val();
            }
        }
        self.pre.s_axis.data.next = self.s_axis.data.val();
        self.pre.s_axis.keep.next = self.s_axis.keep.val();
        // AlignInUser extends RxSegmentUser.
        self.pre.s_axis.user.next = bit_cast::<PRE_USER, RX_SEG_USER>(self.s_axis.user.val());
        self.pre.s_axis.user.next.set_value_align_in_octets(bit_cast::<7, 8>(self.kc.val()));
        self.pre
            .s_axis
            .user
            .next
            .set_value_align_in_octets_mw(bit_cast::<9, 8>(self.kc.val()) - self.c_w9.val());
        self.pre.s_axis.last.next = self.s_axis.last.val();
        self.pre.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.pre.s_axis.ready.val();

        // ---- The core. ----
        self.p_user.next = self.pre.m_axis.user.val();
        self.k.next = bit_cast::<8, 7>(self.p_user.val().get_value_align_in_octets());
        self.first.next = !self.in_seg.q.val();
        // The segment's sequence tests come from registers (worked out a cycle ahead, below).
        self.seq_ok.next = self.h_eq.q.val();
        // A segment that starts before the next expected octet (a retransmission): its first
        // beat waits one cycle (`load`) while the octets to skip are registered as whole beats
        // and lanes, so that only registers feed the rotation and the counts below.
        self.behind.next = self.exp_seq.q.val() - self.p_user.val().get_value_align_in_seq();
        self.old.next = !self.seq_ok.val() & !self.h_neg.q.val();
        self.behind_beats.next = self.behind.val() >> self.c_wbits.val();
        self.behind_lanes.next = bit_cast::<8, 32>(self.behind.val() & self.c_lanes32.val());
        self.load.next = self.pre.m_axis.valid.val()
            & self.first.val()
            & !self.skipping.q.val()
            & !self.done.q.val()
            & !self.flush.q.val()
            & self.old.val();
        if self.load.val() {
            self.skipping.d.next = true;
            self.sk_beats.d.next = self.behind_beats.val();
            self.sk_beats_nz.d.next = self.behind_beats.val() != 0;
            self.sk_lanes.d.next = self.behind_lanes.val();
            self.am.d.next = self.a.q.val() - self.behind_lanes.val();
        }
        // While skipping: a whole beat skipped, or the lanes taken before cut off the beat's
        // first octets (`partial`: the rotation starts from `am`, the count from k - lanes).
        self.whole_skip.next = self.skipping.q.val()
            & (self.sk_beats_nz.q.val() | (self.sk_lanes.q.val() >= self.k.val()));
        // The lanes apply to this beat (its rotation and count; when the beat is wholly
        // skipped instead, neither is used): registers only, ahead of the rotation.
        self.partial.next = self.skipping.q.val() & !self.sk_beats_nz.q.val();
        self.part.next = 0.into();
        self.ramt.next = self.a.q.val();
        if self.partial.val() {
            self.part.next = self.sk_lanes.q.val();
            self.ramt.next = self.am.q.val() & self.c_lanes.val();
        }
        self.keff.next = self.k.val() - self.part.val();
        // Take a beat when the output can take one and no segment end is being flushed; after
        // the stream's end nothing more is taken (beats are dropped).
        self.base_ready.next =
            (self.out.s_axis.ready.val() & !self.flush.q.val()) | self.done.q.val();
        self.base_take.next = self.pre.m_axis.valid.val() & self.base_ready.val();
        self.take.next = self.base_take.val() & !self.load.val();
        self.pre.m_axis.ready.next = self.base_ready.val() & !self.load.val();
        // The beat counts if its segment is the next in sequence (or a retransmission of it,
        // once loaded), unless every octet of it was taken before. (`load` excludes the
        // first two terms, so `base_take` serves here.)
        self.counts.next = self.base_take.val()
            & !self.done.q.val()
            & ((self.first.val() & (self.seq_ok.val() | self.skipping.q.val()))
                | (!self.first.val() & !self.drop.q.val()));
        self.use_beat.next = self.counts.val() & !self.whole_skip.val();
        if self.counts.val() & self.skipping.q.val() {
            if self.sk_beats_nz.q.val() {
                self.sk_beats.d.next = self.sk_beats.q.val() - 1;
                self.sk_beats_nz.d.next = self.sk_beats.q.val() != 1;
            } else {
                self.skipping.d.next = false;
            }
            if self.pre.m_axis.last.val() {
                self.skipping.d.next = false;
                self.sk_beats_nz.d.next = false;
            }
        }
        self.fin.next = self.pre.m_axis.last.val() & self.p_user.val().get_value_align_in_fin();
        if self.take.val() {
            self.in_seg.d.next = !self.pre.m_axis.last.val();
            if self.first.val() {
                self.drop.d.next = !self.seq_ok.val() & !self.old.val() & !self.done.q.val();
                self.err_q.d.next = !self.seq_ok.val() & !self.old.val() & !self.done.q.val();
            }
        }
        // The beat's octets after acc's a octets, and that less W (its sign: the beat fills
        // one), each summed for both counts acc can be taken as (a, or am while a partial skip
        // applies) beside the choice, so no adder follows it.
        self.total_a.next = self.a.q.val() + self.k.val();
        self.total_m.next = self.am.q.val() + self.k.val();
        // am is signed (a - lanes may be below 0; total is not): sign-extended. a <= W.
        self.am9.next = bit_cast::<9, 8>(self.am.q.val());
        if self.am.q.val().get_bit(7) {
            self.am9.next = bit_cast::<9, 8>(self.am.q.val()) | 0x100;
        }
        self.tmw_a.next =
            bit_cast::<9, 8>(self.a.q.val()) + self.p_user.val().get_value_align_in_octets_mw();
        self.tmw_m.next = self.am9.val() + self.p_user.val().get_value_align_in_octets_mw();
        // A whole word among them (total >= 4) is tested beside the choice as well.
        self.total.next = self.total_a.val();
        self.tmw.next = self.tmw_a.val();
        self.word_in.next = (self.total_a.val() >> 2) != 0;
        if self.partial.val() {
            self.total.next = self.total_m.val();
            self.tmw.next = self.tmw_m.val();
            self.word_in.next = (self.total_m.val() >> 2) != 0;
        }
        self.full.next = !self.tmw.val().get_bit(8);
        // The shared gearbox: the beat rotated up by the lanes held, after acc's held lanes.
        self.gb.data.next = self.pre.m_axis.data.val();
        self.gb.amt.next = self.ramt.val();
        self.gb.acc.next = self.acc.q.val();
        self.gb.hold.next = self.a.q.val();
        // The incomplete word left after a segment's whole words go out: word rem_n / 4 of the
        // source (merged, or acc when flushing), moved to lane 0.
        // The word's lane is decoded for each count it can come from (total for a or for am,
        // a when flushing) beside the choice, which then selects one-hot.
        self.rem_src.next = self.gb.merged.val();
        if self.flush.q.val() {
            self.rem_src.next = self.acc.q.val();
        }
        self.rem_word.next = 0.into();
        for j in 0..(W / 4) {
            self.rem_hit[j].next = (self.total_a.val() >> 2) == self.c_lane[j].val();
            if self.partial.val() {
                self.rem_hit[j].next = (self.total_m.val() >> 2) == self.c_lane[j].val();
            }
            if self.flush.q.val() {
                self.rem_hit[j].next = (self.a.q.val() >> 2) == self.c_lane[j].val();
            }
            if self.rem_hit[j].val() {
                self.rem_word.next =
                    self.rem_word.val() | self.rem_src.val().get_bits::<32>(j * 32);
            }
        }
        // What goes out: a full beat; a segment's last whole words; a flush of acc's words; the
        // end of a dropped segment that carries FIN.
        self.emit.next = false;
        self.out.s_axis.data.next = self.gb.merged.val();
        if self.flush.q.val() {
            self.emit.next = self.out.s_axis.ready.val();
            self.out.s_axis.data.next = self.acc.q.val();
        } else if self.use_beat.val() {
            if self.full.val() {
                self.emit.next = true;
            } else if self.pre.m_axis.last.val() {
                self.emit.next = self.word_in.val() | self.fin.val();
            }
        } else if self.take.val() & !self.done.q.val() & self.fin.val() {
            self.emit.next = true;
        }
        // The beat's keep, last and user for each case, each written from its own facts (they
        // matter only when emit is set): a flush has a's whole words, a used beat that is full
        // all W octets, a segment's last beat that is not its total's whole words, the end of
        // a dropped segment none. The whole-word masks are worked out for each count (a, and
        // total for a or for am) beside the decision, which only selects one.
        self.km_a.next = 0.into();
        self.km_ta.next = 0.into();
        self.km_tm.next = 0.into();
        for q in 0..(W / 4) {
            if self.a.q.val() > self.c_wq3[q].val() {
                self.km_a.next = self.km_a.val() | self.c_wkeep[q].val();
            }
            if self.total_a.val() > self.c_wq3[q].val() {
                self.km_ta.next = self.km_ta.val() | self.c_wkeep[q].val();
            }
            if self.total_m.val() > self.c_wq3[q].val() {
                self.km_tm.next = self.km_tm.val() | self.c_wkeep[q].val();
            }
        }
        self.km_t.next = self.km_ta.val();
        if self.partial.val() {
            self.km_t.next = self.km_tm.val();
        }
        self.tmw_z.next = self.tmw.val() == 0;
        if self.flush.q.val() {
            self.out.s_axis.keep.next = self.km_a.val();
        } else if !self.use_beat.val() {
            self.out.s_axis.keep.next = 0.into();
        } else if self.full.val() {
            self.out.s_axis.keep.next = self.c_ones_w.val();
        } else {
            self.out.s_axis.keep.next = self.km_t.val();
        }
        // A flush is a segment's last words (a < W); a full beat is a packet's last only when
        // it completes a segment exactly at the stream's end.
        self.out.s_axis.last.next = self.flush.q.val()
            | !self.use_beat.val()
            | !self.full.val()
            | (self.fin.val() & self.tmw_z.val());
        // FIN: a full beat's only when it completes the segment exactly (else the flush after
        // it says so).
        self.o_fin.next =
            !self.use_beat.val() | (self.fin.val() & (!self.full.val() | self.tmw_z.val()));
        self.o_lost.next = self.a.q.val() != 0;
        if self.use_beat.val() {
            self.o_lost.next = self.fin.val() & !self.full.val() & ((self.total.val() & 3) != 0);
        }
        if self.flush.q.val() {
            self.o_fin.next = self.flush_fin.q.val();
            self.o_lost.next = self.flush_fin.q.val() & ((self.a.q.val() & 3) != 0);
        }
        self.out.s_axis.valid.next = self.emit.val();
        self.out.s_axis.user.next = 0.into();
        self.out.s_axis.user.next.set_value_rx_word_fin(self.o_fin.val());
        self.out.s_axis.user.next.set_value_rx_word_lost(self.o_lost.val());
        // State. acc's next value: the merged beat, the incomplete word (a flush, a segment's
        // last beat), or the rotated beat after a full one; `full` chooses last, so that it
        // (an adder's sign) only drives the final selection (flush and use_beat exclude each
        // other).
        self.acc_next.next = self.gb.merged.val();
        if self.flush.q.val() | self.pre.m_axis.last.val() {
            self.acc_next.next = bit_cast::<B, 32>(self.rem_word.val());
        }
        if !self.flush.q.val() & self.full.val() {
            self.acc_next.next = self.gb.rot.val();
        }
        // The enables of acc and a: a flush that goes out (emit is then the output's ready, a
        // register, and is written as that here so that the enables do not share emit's logic
        // for a used beat, which waits for `full`), or a used beat.
        if (self.flush.q.val() & self.out.s_axis.ready.val()) | self.use_beat.val() {
            self.acc.d.next = self.acc_next.val();
        }
        if self.flush.q.val() {
            if self.out.s_axis.ready.val() {
                self.flush.d.next = false;
                self.a.d.next = self.a.q.val() & 3;
            }
        } else if self.use_beat.val() {
            self.exp_seq.d.next = self.exp_seq.q.val() + bit_cast::<32, 8>(self.keff.val());
            if self.full.val() {
                self.a.d.next = bit_cast::<8, 9>(self.tmw.val());
                // A segment's end with whole words still in acc: flush them next cycle.
                if self.pre.m_axis.last.val() & (self.tmw.val() != 0) {
                    self.flush.d.next = ((self.tmw.val() >> 2) != 0) | self.fin.val();
                    self.flush_fin.d.next = self.fin.val();
                }
            } else if self.pre.m_axis.last.val() {
                self.a.d.next = self.total.val() & 3;
            } else {
                self.a.d.next = self.total.val();
            }
        }
        // The stream ends with the beat that carries FIN: from the cycle after it is taken
        // nothing more counts (later beats are taken and dropped). When that beat leaves whole
        // words to flush, the flush still goes out (it does not depend on `done`), and beats
        // taken meanwhile are dropped, as they would be after it. So `done` is set from the
        // handshake and FIN alone, not from the beat's octet counts.
        if self.take.val() & self.fin.val() {
            self.done.d.next = true;
        }
        // The sequence tests for next cycle's head beat (this one if it stays, else the slice's
        // next) against next cycle's expected sequence number (this one, or this one + keff if
        // this beat is used): `seq - expected` worked out for both beats, then compared with 0
        // and keff and its negation's sign taken, both results chosen at the end by the
        // decision (`use_beat`, the slice's load).
        self.seq_sk.d.next = self.seq_sk.q.val();
        if self.pre.s_axis.ready.val() {
            self.seq_sk.d.next = self.s_axis.user.val().get_bits::<32>(0);
        }
        self.h_seq.next = self.p_user.val().get_value_align_in_seq();
        self.n_seq.next = self.seq_sk.q.val();
        if self.pre.s_axis.ready.val() {
            self.n_seq.next = self.s_axis.user.val().get_bits::<32>(0);
        }
        self.keff32.next = bit_cast::<32, 8>(self.keff.val());
        self.d_h.next = self.h_seq.val() - self.exp_seq.q.val();
        self.d_n.next = self.n_seq.val() - self.exp_seq.q.val();
        self.nb_h.next = self.exp_seq.q.val() - self.h_seq.val();
        self.nb_n.next = self.exp_seq.q.val() - self.n_seq.val();
        self.kb_h.next = self.keff32.val() - self.d_h.val();
        self.kb_n.next = self.keff32.val() - self.d_n.val();
        self.head_loads.next = !self.pre.m_axis.valid.val() | self.pre.m_axis.ready.val();
        if self.head_loads.val() {
            if self.use_beat.val() {
                self.h_eq.d.next = self.d_n.val() == self.keff32.val();
                self.h_neg.d.next = self.kb_n.val().get_bit(31);
            } else {
                self.h_eq.d.next = self.d_n.val() == 0;
                self.h_neg.d.next = self.nb_n.val().get_bit(31);
            }
        } else if self.use_beat.val() {
            self.h_eq.d.next = self.d_h.val() == self.keff32.val();
            self.h_neg.d.next = self.kb_h.val().get_bit(31);
        } else {
            self.h_eq.d.next = self.d_h.val() == 0;
            self.h_neg.d.next = self.nb_h.val().get_bit(31);
        }
        // Reset.
        self.pos.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.exp_seq.d.next = self.cfg_seq.val();
            self.misaligned.d.next = (self.pos.val() & 3) != 0;
            self.in_seg.d.next = false;
            self.drop.d.next = false;
            self.a.d.next = 0.into();
            self.flush.d.next = false;
            self.flush_fin.d.next = false;
            self.done.d.next = false;
            self.err_q.d.next = false;
            self.gap.d.next = false;
            self.skipping.d.next = false;
            self.sk_beats_nz.d.next = false;
        }
    }
}
