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
//!
//!  input slice ─► decision stage ──────────► op register ─► apply stage ─────► output queue
//!                 (sequence tests, counts:    (beat, and     (rotate, merge,
//!                  a, full, keep, which       every choice)   incomplete word,
//!                  word is incomplete)                        acc)
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
//! | `ctx_in_0` | in | 61 | only when built [`RxRealigner::with_context`]: a connection's context record ([`RealignCtx`]) |
//! | `ctx_load_0` | in | 1 | likewise: load `ctx_in_0` (honoured only while `ctx_idle_0`; no beat is taken in its cycle, whether or not it is honoured) |
//! | `ctx_out_0` | out | 61 | likewise: the record of the connection being served (final while `ctx_idle_0`: the segments taken so far) |
//! | `ctx_idle_0` | out | 1 | likewise: `busy` low and no segment begun: a record may be read out and another loaded |
//!
//! A segment that starts before the next expected octet (a retransmission, A.3) is trimmed: its
//! first beat waits two cycles while the octets to skip are registered (whole beats, then the
//! first lanes of one beat, which the rotation below absorbs), and the rest goes on; one that
//! holds nothing new is dropped without an error. Sequence numbers are compared as 32-bit
//! differences (`expected - seq` below 2^31 is behind), so they wrap through 2^32.
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! Three cycles (an input register slice, the op register, the output queue; `m_axis` is a
//! 2:1 multiplexer of registers, [`crate::stream_outq::StreamOutQ`]). One beat per cycle; a
//! segment's end costs one more cycle when its whole words did not all fit the beat that
//! completed a full one, and a retransmission two cycles to register what it skips.
//!
//! ### Timing
//! The decision stage works on counts only: the octets held (`a`), the beat's octet count and
//! the sequence tests, all registers or one adder from registers. What it decides for acc and
//! the beat (rotation, lanes held, which word is the incomplete one, whether acc takes the
//! merged beat, the rotated beat or that word, the output's keep, last and sideband) goes into
//! the op register with the beat, so the apply stage is the rotator, the merge and a one-hot
//! word select into acc, every select a register (stop 58: `RxRealigner` alone at W = 8 went
//! from 104.8 / 104.2 / 107.6 MHz to 118.7 / 119.0 / 116.2 at seeds 1 to 3, its critical path
//! from the octet count's adder through the incomplete word's select into acc to the
//! sequence-number tests).
//!
//! ### Reset
//! `rst` loads the expected sequence number and empties the octet buffer.
//!
//! ### Context record (issue 14; DESIGN, "Connection state is explicit"; RFC 5044 B.2)
//! What this block keeps about a connection between two of its segments is one record,
//! [`RealignCtx`]: the next expected sequence number, the 0 to 3 octets of the incomplete word
//! and their count, FIN seen, the sticky gap flag, the misaligned flag (61 bits). Everything
//! else is per segment (cleared by its last beat) or per beat in flight. Built
//! [`RxRealigner::with_context`], the block serves any number of connections from a table of
//! records kept outside (block RAM in an RNIC; the test's own table in
//! `testbench/tests/rx_realigner.rs`): between segments of different connections, once
//! `ctx_idle_0` is high, the controller reads `ctx_out_0` into the table and pulses
//! `ctx_load_0` with the next connection's record, then offers its segment. A connection's
//! first record is [`RealignCtx::fresh`] (what `rst` gives with `cfg_seq` / `cfg_origin`);
//! segments of the same connection back to back need no load. A switch costs the drain: from
//! a segment's last beat taken to `ctx_idle_0`, 2 to 5 cycles mostly, at most 8 without
//! backpressure (a retransmission's trim, a flush), then the load's cycle. A load offered while
//! a segment is inside is ignored. [`RxRealigner::new`] builds neither the ports nor the logic,
//! so `mpa_rx`'s Verilog is unchanged.

use crate::gearbox::Gearbox;
use crate::rx::realign_ctx::RealignCtxPack;
pub use crate::rx::realign_ctx::{RealignCtx, REALIGN_CTX_BITS};
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
    /// Only when built [`RxRealigner::with_context`] (one entry; none otherwise): a
    /// connection's context record ([`RealignCtx`]) to load.
    pub ctx_in: Vec<Signal<In, Bits<REALIGN_CTX_BITS>>>,
    /// Likewise: load `ctx_in` now (honoured only while `ctx_idle`; no beat is taken in its
    /// cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: the context record of the connection being served (final while `ctx_idle`).
    pub ctx_out: Vec<Signal<Out, Bits<REALIGN_CTX_BITS>>>,
    /// Likewise: between segments with nothing inside (`busy` low, no segment begun).
    pub ctx_idle: Vec<Signal<Out, Bit>>,
    pre: StreamSkid<W, B, PRE_USER>,
    out: StreamOutQ<W, B, RX_WORD_USER>,
    exp_seq: DFF<Bits<32>>,
    in_seg: DFF<Bit>,
    drop: DFF<Bit>,
    // Octets waiting (lanes 0..a; `acc` is the apply stage's, `a` the decision stage's count
    // after every op issued), and a segment's whole words still to go out (flush).
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
    // The cycle after `load`: sk_beats_nz is worked out from the registered sk_beats.
    sk_fresh: DFF<Bit>,
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
    // The op register between the decision and the apply stage: what the apply stage does with
    // acc and the beat, every choice already made (see the module documentation).
    opv: DFF<Bit>,
    op_emit: DFF<Bit>,
    op_flush: DFF<Bit>,
    op_accwe: DFF<Bit>,
    op_sel_rot: DFF<Bit>,
    op_sel_rem: DFF<Bit>,
    op_data: DFF<Bits<B>>,
    op_ramt: DFF<Bits<8>>,
    op_hold: DFF<Bits<8>>,
    op_rem: DFF<Bits<16>>,
    op_keep: DFF<Bits<W>>,
    op_last: DFF<Bit>,
    op_fin: DFF<Bit>,
    op_lost: DFF<Bit>,
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
    c_onehot: Vec<Constant<Bits<16>>>,
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
    hold_head: Signal<Local, Bit>,
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
    rem_sel: Signal<Local, Bits<16>>,
    acc_next: Signal<Local, Bits<B>>,
    rem_word: Signal<Local, Bits<32>>,
    emit: Signal<Local, Bit>,
    accwe: Signal<Local, Bit>,
    sel_rot: Signal<Local, Bit>,
    sel_rem: Signal<Local, Bit>,
    o_keep: Signal<Local, Bits<W>>,
    o_last: Signal<Local, Bit>,
    a_go: Signal<Local, Bit>,
    a_free: Signal<Local, Bit>,
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
    d_h: Signal<Local, Bits<32>>,
    d_n: Signal<Local, Bits<32>>,
    nb_h: Signal<Local, Bits<32>>,
    nb_n: Signal<Local, Bits<32>>,
    // seq - expected against keff (8 bits) without a second 32-bit subtraction: its low
    // byte compared with keff, whether bits 30..8 are all zero, and its sign.
    dl_h: Signal<Local, Bits<8>>,
    dl_n: Signal<Local, Bits<8>>,
    z_h: Signal<Local, Bit>,
    z_n: Signal<Local, Bit>,
    gt_h: Signal<Local, Bit>,
    gt_n: Signal<Local, Bit>,
    eqk_h: Signal<Local, Bit>,
    eqk_n: Signal<Local, Bit>,
    negk_h: Signal<Local, Bit>,
    negk_n: Signal<Local, Bit>,
    head_loads: Signal<Local, Bit>,
    // The context record's wiring (one entry when built with the context ports).
    ctx: Vec<RealignCtxPack<B>>,
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
            ctx_in: vec![],
            ctx_load: vec![],
            ctx_out: vec![],
            ctx_idle: vec![],
            pre: StreamSkid::loading_while_empty(),
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
            sk_fresh: Default::default(),
            sk_lanes: Default::default(),
            am: Default::default(),
            misaligned: Default::default(),
            h_eq: Default::default(),
            h_neg: Default::default(),
            seq_sk: Default::default(),
            opv: Default::default(),
            op_emit: Default::default(),
            op_flush: Default::default(),
            op_accwe: Default::default(),
            op_sel_rot: Default::default(),
            op_sel_rem: Default::default(),
            op_data: Default::default(),
            op_ramt: Default::default(),
            op_hold: Default::default(),
            op_rem: Default::default(),
            op_keep: Default::default(),
            op_last: Default::default(),
            op_fin: Default::default(),
            op_lost: Default::default(),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_w: Constant::new((W as u64).into()),
            c_w9: Constant::new((W as u64).into()),
            c_lanes: Constant::new(((W - 1) as u64).into()),
            c_lanes32: Constant::new(((W - 1) as u64).into()),
            c_wbits: Constant::new((W.trailing_zeros() as u64).into()),
            c_cnt: (0..W).map(|k| Constant::new(((k + 1) as u64).into())).collect(),
            c_lane: (0..W / 4).map(|j| Constant::new((j as u64).into())).collect(),
            c_onehot: (0..W / 4).map(|j| Constant::new((1u64 << j).into())).collect(),
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
            hold_head: Default::default(),
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
            rem_sel: Default::default(),
            acc_next: Default::default(),
            rem_word: Default::default(),
            emit: Default::default(),
            accwe: Default::default(),
            sel_rot: Default::default(),
            sel_rem: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            a_go: Default::default(),
            a_free: Default::default(),
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
            d_h: Default::default(),
            d_n: Default::default(),
            nb_h: Default::default(),
            nb_n: Default::default(),
            dl_h: Default::default(),
            dl_n: Default::default(),
            z_h: Default::default(),
            z_n: Default::default(),
            gt_h: Default::default(),
            gt_n: Default::default(),
            eqk_h: Default::default(),
            eqk_n: Default::default(),
            negk_h: Default::default(),
            negk_n: Default::default(),
            head_loads: Default::default(),
            ctx: vec![],
        }
    }

    /// The realigner with the context ports (`ctx_in`, `ctx_load`, `ctx_out`, `ctx_idle`):
    /// between segments, with nothing inside, the state it keeps about a connection is read out
    /// and another connection's loaded, so that one realigner serves any number of connections
    /// (the record's table is outside; see the module documentation). [`RxRealigner::new`]
    /// builds neither ports nor logic: `mpa_rx`'s Verilog does not change.
    pub fn with_context() -> Self {
        Self {
            ctx_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_out: vec![Default::default()],
            ctx_idle: vec![Default::default()],
            ctx: vec![RealignCtxPack::new()],
            ..Self::new()
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
            sk_fresh,
            sk_lanes,
            am,
            misaligned,
            h_eq,
            h_neg,
            seq_sk,
            opv,
            op_emit,
            op_flush,
            op_accwe,
            op_sel_rot,
            op_sel_rem,
            op_data,
            op_ramt,
            op_hold,
            op_rem,
            op_keep,
            op_last,
            op_fin,
            op_lost
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
        self.busy.next = self.pre.m_axis.valid.val()
            | self.opv.q.val()
            | self.out.m_axis.valid.val()
            | self.flush.q.val();

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

        // ---- Context record (only when built with it): read out, and loaded between segments
        // with nothing inside (no beat in the input slice, no op, no flush, the output queue
        // empty, no segment begun). A gap found in the cycle before is in the record already.
        // The loads are written here, before the decision and apply stages: those assign
        // these registers only when a beat or an op is inside, never in a cycle that loads, so
        // their late selects stay last in front of the registers.
        for k in 0..self.ctx.len() {
            self.ctx[k].rec_in.next = self.ctx_in[k].val();
            self.ctx[k].exp_seq.next = self.exp_seq.q.val();
            self.ctx[k].acc.next = self.acc.q.val();
            self.ctx[k].a.next = self.a.q.val();
            self.ctx[k].done.next = self.done.q.val();
            self.ctx[k].gap.next = self.gap.q.val() | self.err_q.q.val();
            self.ctx[k].misaligned.next = self.misaligned.q.val();
            self.ctx_out[k].next = self.ctx[k].rec_out.val();
            self.ctx_idle[k].next = !self.pre.m_axis.valid.val()
                & !self.opv.q.val()
                & !self.out.m_axis.valid.val()
                & !self.flush.q.val()
                & !self.in_seg.q.val();
            if self.ctx_load[k].val() {
                self.s_axis.ready.next = false;
                self.pre.s_axis.valid.next = false;
                if !self.pre.m_axis.valid.val()
                    & !self.opv.q.val()
                    & !self.out.m_axis.valid.val()
                    & !self.flush.q.val()
                    & !self.in_seg.q.val()
                {
                    self.exp_seq.d.next = self.ctx[k].in_seq.val();
                    self.acc.d.next = self.ctx[k].in_held.val();
                    self.a.d.next = self.ctx[k].in_held_n.val();
                    self.done.d.next = self.ctx[k].in_done.val();
                    // (after `err_q`'s assignment above, which it replaces: that pulse
                    // belongs to the connection served before and is in its record)
                    self.gap.d.next = self.ctx[k].in_gap.val();
                    self.misaligned.d.next = self.ctx[k].in_misaligned.val();
                }
            }
        }

        // ---- The decision stage: what to do with the head beat and acc, from counts. ----
        // The apply stage (below) takes an op this cycle when its op register is empty or the
        // op in it goes (its beat, if any, taken by the output queue): registers only.
        self.a_go.next = self.opv.q.val() & (!self.op_emit.q.val() | self.out.s_axis.ready.val());
        self.a_free.next = !self.opv.q.val() | !self.op_emit.q.val() | self.out.s_axis.ready.val();
        self.p_user.next = self.pre.m_axis.user.val();
        self.k.next = bit_cast::<8, 7>(self.p_user.val().get_value_align_in_octets());
        self.first.next = !self.in_seg.q.val();
        // The segment's sequence tests come from registers (worked out a cycle ahead, below).
        self.seq_ok.next = self.h_eq.q.val();
        // A segment that starts before the next expected octet (a retransmission): its first
        // beat waits two cycles (`load`, then `sk_fresh`) while the octets to skip are
        // registered as whole beats and lanes, and then whether any whole beat is skipped, so
        // that only registers feed the rotation and the counts below (no 32-bit subtraction
        // into a 27-bit zero test in one cycle).
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
            self.sk_fresh.d.next = true;
            self.sk_lanes.d.next = self.behind_lanes.val();
            self.am.d.next = self.a.q.val() - self.behind_lanes.val();
        }
        if self.sk_fresh.q.val() {
            self.sk_fresh.d.next = false;
            self.sk_beats_nz.d.next = self.sk_beats.q.val() != 0;
        }
        self.hold_head.next = self.load.val() | self.sk_fresh.q.val();
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
        // Take a beat when the apply stage can take an op and no segment end is being flushed;
        // after the stream's end nothing more is taken (beats are dropped).
        self.base_ready.next = (self.a_free.val() & !self.flush.q.val()) | self.done.q.val();
        self.base_take.next = self.pre.m_axis.valid.val() & self.base_ready.val();
        self.take.next = self.base_take.val() & !self.hold_head.val();
        self.pre.m_axis.ready.next = self.base_ready.val() & !self.hold_head.val();
        // The beat counts if its segment is the next in sequence (or a retransmission of it,
        // once loaded), unless every octet of it was taken before. (`load` excludes the
        // first two terms, `sk_fresh` is excluded here.)
        self.counts.next = self.base_take.val()
            & !self.sk_fresh.q.val()
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
        // The incomplete word left after a segment's whole words go out: word rem_n / 4 of the
        // source (merged, or acc when flushing), moved to lane 0 by the apply stage.
        // The word's lane is decoded for each count it can come from (total for a or for am,
        // a when flushing) beside the choice, which then selects one-hot.
        self.rem_sel.next = 0.into();
        for j in 0..(W / 4) {
            self.rem_hit[j].next = (self.total_a.val() >> 2) == self.c_lane[j].val();
            if self.partial.val() {
                self.rem_hit[j].next = (self.total_m.val() >> 2) == self.c_lane[j].val();
            }
            if self.flush.q.val() {
                self.rem_hit[j].next = (self.a.q.val() >> 2) == self.c_lane[j].val();
            }
            if self.rem_hit[j].val() {
                self.rem_sel.next = self.rem_sel.val() | self.c_onehot[j].val();
            }
        }
        // What goes out: a full beat; a segment's last whole words; a flush of acc's words; the
        // end of a dropped segment that carries FIN.
        self.emit.next = false;
        if self.flush.q.val() {
            self.emit.next = self.a_free.val();
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
            self.o_keep.next = self.km_a.val();
        } else if !self.use_beat.val() {
            self.o_keep.next = 0.into();
        } else if self.full.val() {
            self.o_keep.next = self.c_ones_w.val();
        } else {
            self.o_keep.next = self.km_t.val();
        }
        // A flush is a segment's last words (a < W); a full beat is a packet's last only when
        // it completes a segment exactly at the stream's end.
        self.o_last.next = self.flush.q.val()
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
        // acc's next value, chosen here and applied by the apply stage: the merged beat, the
        // incomplete word (a flush, a segment's last beat), or the rotated beat after a full
        // one (flush and use_beat exclude each other). acc changes with a flush that goes out
        // or a used beat.
        self.sel_rem.next = self.flush.q.val() | self.pre.m_axis.last.val();
        self.sel_rot.next = !self.flush.q.val() & self.full.val();
        self.accwe.next = (self.flush.q.val() & self.a_free.val()) | self.use_beat.val();
        // The op register loads whenever the apply stage takes an op (every decision above
        // that acts implies `a_free`); its payload registers load on that register-only enable.
        if self.a_free.val() {
            self.opv.d.next = self.emit.val() | self.accwe.val();
            self.op_emit.d.next = self.emit.val();
            self.op_flush.d.next = self.flush.q.val();
            self.op_accwe.d.next = self.accwe.val();
            self.op_sel_rot.d.next = self.sel_rot.val();
            self.op_sel_rem.d.next = self.sel_rem.val();
            self.op_data.d.next = self.pre.m_axis.data.val();
            self.op_ramt.d.next = self.ramt.val();
            self.op_hold.d.next = self.a.q.val();
            self.op_rem.d.next = self.rem_sel.val();
            self.op_keep.d.next = self.o_keep.val();
            self.op_last.d.next = self.o_last.val();
            self.op_fin.d.next = self.o_fin.val();
            self.op_lost.d.next = self.o_lost.val();
        }
        if self.flush.q.val() {
            if self.a_free.val() {
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
        self.d_h.next = self.h_seq.val() - self.exp_seq.q.val();
        self.d_n.next = self.n_seq.val() - self.exp_seq.q.val();
        self.nb_h.next = self.exp_seq.q.val() - self.h_seq.val();
        self.nb_n.next = self.exp_seq.q.val() - self.n_seq.val();
        // With d = seq - expected and keff below 256: d == keff when bits 31..8 are zero and
        // the low byte equals keff; keff - d is negative (bit 31 of the 32-bit difference)
        // exactly when d is in [keff + 1, keff + 2^31]: for d below 2^31 when bits 30..8 are
        // not all zero or the low byte is above keff, for d from 2^31 when they are all zero
        // and the low byte is at most keff. One 32-bit subtraction, then an 8-bit comparison.
        self.dl_h.next = self.d_h.val().get_bits::<8>(0);
        self.dl_n.next = self.d_n.val().get_bits::<8>(0);
        self.z_h.next = !self.d_h.val().get_bits::<23>(8).any();
        self.z_n.next = !self.d_n.val().get_bits::<23>(8).any();
        self.gt_h.next = self.dl_h.val() > self.keff.val();
        self.gt_n.next = self.dl_n.val() > self.keff.val();
        self.eqk_h.next =
            !self.d_h.val().get_bit(31) & self.z_h.val() & (self.dl_h.val() == self.keff.val());
        self.eqk_n.next =
            !self.d_n.val().get_bit(31) & self.z_n.val() & (self.dl_n.val() == self.keff.val());
        self.negk_h.next = !self.z_h.val() | self.gt_h.val();
        if self.d_h.val().get_bit(31) {
            self.negk_h.next = self.z_h.val() & !self.gt_h.val();
        }
        self.negk_n.next = !self.z_n.val() | self.gt_n.val();
        if self.d_n.val().get_bit(31) {
            self.negk_n.next = self.z_n.val() & !self.gt_n.val();
        }
        self.head_loads.next = !self.pre.m_axis.valid.val() | self.pre.m_axis.ready.val();
        if self.head_loads.val() {
            if self.use_beat.val() {
                self.h_eq.d.next = self.eqk_n.val();
                self.h_neg.d.next = self.negk_n.val();
            } else {
                self.h_eq.d.next = self.d_n.val() == 0;
                self.h_neg.d.next = self.nb_n.val().get_bit(31);
            }
        } else if self.use_beat.val() {
            self.h_eq.d.next = self.eqk_h.val();
            self.h_neg.d.next = self.negk_h.val();
        } else {
            self.h_eq.d.next = self.d_h.val() == 0;
            self.h_neg.d.next = self.nb_h.val().get_bit(31);
        }
        // ---- The apply stage: the op's choices on acc and its beat, selects from registers. ----
        // The shared gearbox: the beat rotated up by the lanes held, after acc's held lanes.
        self.gb.data.next = self.op_data.q.val();
        self.gb.amt.next = self.op_ramt.q.val();
        self.gb.acc.next = self.acc.q.val();
        self.gb.hold.next = self.op_hold.q.val();
        self.rem_src.next = self.gb.merged.val();
        if self.op_flush.q.val() {
            self.rem_src.next = self.acc.q.val();
        }
        self.rem_word.next = 0.into();
        for j in 0..(W / 4) {
            if self.op_rem.q.val().get_bit(j) {
                self.rem_word.next =
                    self.rem_word.val() | self.rem_src.val().get_bits::<32>(j * 32);
            }
        }
        self.acc_next.next = self.gb.merged.val();
        if self.op_sel_rem.q.val() {
            self.acc_next.next = bit_cast::<B, 32>(self.rem_word.val());
        }
        if self.op_sel_rot.q.val() {
            self.acc_next.next = self.gb.rot.val();
        }
        if self.a_go.val() & self.op_accwe.q.val() {
            self.acc.d.next = self.acc_next.val();
        }
        self.out.s_axis.data.next = self.rem_src.val();
        self.out.s_axis.keep.next = self.op_keep.q.val();
        self.out.s_axis.last.next = self.op_last.q.val();
        self.out.s_axis.valid.next = self.opv.q.val() & self.op_emit.q.val();
        self.out.s_axis.user.next = 0.into();
        self.out.s_axis.user.next.set_value_rx_word_fin(self.op_fin.q.val());
        self.out.s_axis.user.next.set_value_rx_word_lost(self.op_lost.q.val());
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
            self.sk_fresh.d.next = false;
            self.opv.d.next = false;
        }
    }
}
