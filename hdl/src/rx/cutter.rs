//! `RxFpduCutter`: cuts the word stream at the FPDU boundaries that [`super::walker::RxFpduWalker`]
//! marked, one packet per FPDU (RFC 5044 section 6: the receiver delineates FPDUs by the
//! ULPDU_Length chain; 4.3: a Marker inside an FPDU's span is part of it, one right after its
//! CRC field leads the next FPDU, and the walker marks it as that FPDU's first word). This is
//! the second half of the delineator's decision split (issue 15): the walker finds where FPDUs
//! end, this block only follows its marks, so its loop is a mask operation, not arithmetic on
//! lengths.
//!
//! ```text
//!  s_axis ─► input queue (beat, its sequence number and Marker phase)
//!             └► sequencer: s (lanes >= s as a mask), the fragment [s, e] up to the first
//!                lane marked `last` at or after s, or [s, n) when none ─► command queue
//!                (beat, s, k words and k as a thermometer, ends, starts, error, the FPDU's
//!                sideband)
//!                   └► plan: c words held before the fragment (binary, one-hot, lane mask):
//!                      fills / overfills a beat, rotation c - s, the word masks ─► plan queue
//!                         └► apply: acc + the fragment rotated (`Gearbox`) ─► full beats,
//!                            the packet's last beat, or a tail (the words past a full last
//!                            beat) from a register of its own next cycle ─► output queue
//! ```
//! Errors (RFC 5044 section 8), in band as [`RxFpduUser`]'s `err` and `code` on a packet's last
//! beat, and nothing after them until reset:
//! - code 2 when the walk reaches the FPDU whose ULPDU_Length is above the limit (the walker's
//!   `bad`): a packet of that FPDU's words already taken (none, or its leading Marker when that
//!   was the previous beat's last word), ending in a beat with the error;
//! - code 1 when the stream ends (FIN) inside an FPDU (its words so far), or with octets of a
//!   word lost (`lost`; a null beat when no FPDU is open).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet and of the Marker origin, loaded while `rst` is high (the same as the walker's) |
//! | `cfg_markers`, `cfg_crc` | in | 1 | passed on in each FPDU's sideband (through a register; keep them steady while a stream runs) |
//! | `s_axis` | in | 8W | the walker's beats ([`RX_WALK_USER`]) |
//! | `m_axis` | out | 8W | one FPDU per packet, lane 0 its first word, or an error packet; [`RX_FPDU_USER`] on every beat (the FPDU's sequence number, words to its first Marker position, the settings; `err` and `code` on an error packet's last beat) |
//! | `busy` | out | 1 | a beat or a packet's last beat is inside (an open FPDU's words held for its next beat do not count) |
//! | `ctx_in_0`, `ctx_words_in_0` | in | 61, 8W | only when built [`RxFpduCutter::with_context`]: a connection's context record ([`CutCtx`]) and its held words (lanes below the record's `held`) |
//! | `ctx_load_0` | in | 1 | likewise: load them (honoured only while `busy` is low; `s_axis.ready` is low in its cycle, whether or not it is honoured: the one path from an input to `ready`); set the connection's `cfg_markers` / `cfg_crc` in the same cycle (they go into the open FPDU's sideband) |
//! | `ctx_out_0`, `ctx_words_out_0` | out | 61, 8W | likewise: the record and held words of the connection being served (final while `busy` is low, for the beats taken before) |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! Four cycles from a beat's input handshake to the output of a packet beat it completes
//! (input queue, command queue, plan queue, output queue), five for a tail. One fragment per
//! cycle: a beat holding pieces of k FPDUs takes k cycles in the sequencer (the stream's FIN
//! beat one more when an FPDU ends in it: its end is decided on an empty fragment); a tail
//! takes the output in the cycle after its packet's full beat, and the next fragment goes in
//! beside it unless it puts out a beat itself.
//!
//! ### Timing
//! The sequencer's loop is the lanes at or after `s` ANDed with the head beat's `last` marks, a
//! decrement on that mask (lanes up to the first mark: `m ^ (m - 1)`) and the pop; lane
//! indices, counts and the FPDU's sideband are worked out beside it into the command queue.
//! The plan stage's loop is the words held: fills / overfills from `c` one-hot ANDed with k's
//! thermometer (no adder), the next `c` as a shift of the one-hot. The apply stage only
//! selects (its loops are `acc` and the tail's valid). All four queues load their payload
//! registers whenever a slot is free ([`StreamOutQ`]), so no decision enables a wide register.
//! Measured with the walker (LFE5U-85F, the two alone) on the version before the plan stage
//! (its decisions were in the apply stage): 111.1 / 115.2 / 111.6 MHz at W = 8, seeds 1 to 3;
//! this version was placed only inside `mpa_rx` (README stop 61).
//!
//! ### Reset
//! `rst` empties the block, loads the stream position and starts at an FPDU boundary.
//!
//! ### Context record
//! Built [`RxFpduCutter::with_context`], the cutter keeps nothing about a connection's stream
//! outside [`CutCtx`] and `acc` once it is not `busy`: the queues and the tail are empty, the
//! sequencer is at lane 0 of a beat to come (`ge` all lanes, `s` 0), and the plan stage's `c`
//! (with its one-hot and mask forms, rebuilt from the record) counts the words held in `acc`.
//! An open FPDU stays open across a switch: its held words wait in the record until the
//! connection's next segment completes a beat, so the packets of different connections'
//! FPDUs can interleave on `m_axis` (each connection's in order). A load writes the registers
//! it restores ahead of the stages, which assign them only while a beat is inside.

use crate::gearbox::Gearbox;
use crate::keep_words::KeepWords;
use crate::rx::cut_ctx::CutCtxPack;
pub use crate::rx::cut_ctx::{CutCtx, CUT_CTX_BITS};
use crate::sideband::{
    RxCutCmdFields, RxCutInFields, RxCutPlanFields, RxFpduUserFields, RxWalkUserFields, RX_CUT_CMD,
    RX_CUT_IN, RX_CUT_PLAN, RX_FPDU_USER, RX_WALK_USER,
};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use rust_hdl::prelude::*;

/// The cutter; see the module documentation.
#[derive(LogicBlock)]
pub struct RxFpduCutter<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the stream's first octet.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the Marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers on (passed on).
    pub cfg_markers: Signal<In, Bit>,
    /// CRC on (passed on).
    pub cfg_crc: Signal<In, Bit>,
    /// The walker's beats.
    pub s_axis: StreamSink<W, B, RX_WALK_USER>,
    /// FPDU packets.
    pub m_axis: StreamSource<W, B, RX_FPDU_USER>,
    /// A beat or a packet's last beat is inside.
    pub busy: Signal<Out, Bit>,
    /// Only when built [`RxFpduCutter::with_context`] (one entry, otherwise none): a
    /// connection's context record ([`CutCtx`]) to load.
    pub ctx_in: Vec<Signal<In, Bits<CUT_CTX_BITS>>>,
    /// Likewise: that connection's held words (lanes below the record's `held`).
    pub ctx_words_in: Vec<Signal<In, Bits<B>>>,
    /// Likewise: load `ctx_in` and `ctx_words_in` now (honoured only while `busy` is low; no
    /// beat is taken in its cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: the record of the connection being served (final while `busy` is low).
    pub ctx_out: Vec<Signal<Out, Bits<CUT_CTX_BITS>>>,
    /// Likewise: its held words.
    pub ctx_words_out: Vec<Signal<Out, Bits<B>>>,
    // Input: the beat with its sequence number and Marker phase (counted here, beat by beat).
    inq: StreamOutQ<W, B, RX_CUT_IN>,
    kw_in: KeepWords<W>,
    in_seq: DFF<Bits<32>>,
    in_pos: DFF<Bits<7>>,
    in_user: Signal<Local, Bits<RX_CUT_IN>>,
    in_take: Signal<Local, Bit>,
    seq_off: Signal<Local, Bits<32>>,
    mk_r: DFF<Bit>,
    crc_r: DFF<Bit>,
    // Sequencer: lanes at or after s (a mask), s itself, an FPDU open, the end reached.
    ge: DFF<Bits<16>>,
    s_idx: DFF<Bits<6>>,
    open: DFF<Bit>,
    dead: DFF<Bit>,
    kw_h: KeepWords<W>,
    h_v: Signal<Local, Bit>,
    h_wu: Signal<Local, Bits<RX_WALK_USER>>,
    h_fin: Signal<Local, Bit>,
    h_lost: Signal<Local, Bit>,
    h_bad: Signal<Local, Bit>,
    h_vm: Signal<Local, Bits<16>>,
    h_lm: Signal<Local, Bits<16>>,
    cand: Signal<Local, Bits<16>>,
    le: Signal<Local, Bits<16>>,
    low: Signal<Local, Bits<16>>,
    fm: Signal<Local, Bits<16>>,
    kt: Signal<Local, Bits<16>>,
    rest: Signal<Local, Bits<16>>,
    any_cand: Signal<Local, Bit>,
    any_fm: Signal<Local, Bit>,
    done: Signal<Local, Bit>,
    err2: Signal<Local, Bit>,
    end1: Signal<Local, Bit>,
    act: Signal<Local, Bit>,
    e_idx: Signal<Local, Bits<6>>,
    e_next: Signal<Local, Bits<6>>,
    f_pos: Signal<Local, Bits<7>>,
    f_user: Signal<Local, Bits<RX_FPDU_USER>>,
    cmd: Signal<Local, Bits<RX_CUT_CMD>>,
    cq: StreamOutQ<W, B, RX_CUT_CMD>,
    // Plan: the words held before each fragment (c; one-hot and as a mask for the decisions),
    // and what the fragment does with them.
    c: DFF<Bits<6>>,
    c_oh: DFF<Bits<16>>,
    c_th: DFF<Bits<16>>,
    q_k: Signal<Local, Bits<6>>,
    q_kt: Signal<Local, Bits<16>>,
    q_kt32: Signal<Local, Bits<32>>,
    q_ends: Signal<Local, Bit>,
    p_full: Signal<Local, Bit>,
    p_over: Signal<Local, Bit>,
    c_sum: Signal<Local, Bits<6>>,
    c_nx: Signal<Local, Bits<6>>,
    kk: Signal<Local, Bits<32>>,
    kk_hi: Signal<Local, Bits<32>>,
    coh: Signal<Local, Bits<32>>,
    coh_hi: Signal<Local, Bits<32>>,
    w_tot: Signal<Local, Bits<16>>,
    w_tail: Signal<Local, Bits<16>>,
    p_go: Signal<Local, Bit>,
    plan: Signal<Local, Bits<RX_CUT_PLAN>>,
    pq: StreamOutQ<W, B, RX_CUT_PLAN>,
    // Apply: the open packet's words in acc, its sideband, a tail to go out.
    acc: DFF<Bits<B>>,
    fuser: DFF<Bits<RX_FPDU_USER>>,
    t_v: DFF<Bit>,
    t_data: DFF<Bits<B>>,
    t_keep: DFF<Bits<W>>,
    t_user: DFF<Bits<RX_FPDU_USER>>,
    gb: Gearbox<B>,
    a_full: Signal<Local, Bit>,
    a_over: Signal<Local, Bit>,
    a_ends: Signal<Local, Bit>,
    a_emits: Signal<Local, Bit>,
    a_wtot: Signal<Local, Bits<16>>,
    a_wtail: Signal<Local, Bits<16>>,
    take_q: Signal<Local, Bit>,
    u: Signal<Local, Bits<RX_FPDU_USER>>,
    u_last: Signal<Local, Bits<RX_FPDU_USER>>,
    keep_tot: Signal<Local, Bits<W>>,
    keep_tail: Signal<Local, Bits<W>>,
    out: StreamOutQ<W, B, RX_FPDU_USER>,
    // Constants.
    c_words: Constant<Bits<6>>,
    c_wmask: Constant<Bits<6>>,
    c_full_w: Vec<Constant<Bits<16>>>,
    c_over_w: Vec<Constant<Bits<16>>>,
    c_zero7: Constant<Bits<7>>,
    c_all: Constant<Bits<16>>,
    c_bit: Vec<Constant<Bits<16>>>,
    c_lane6: Vec<Constant<Bits<6>>>,
    c_wkeep: Vec<Constant<Bits<W>>>,
    c_full_keep: Constant<Bits<W>>,
    // The context record's wiring (only when built with it).
    ctx: Vec<CutCtxPack>,
}

impl<const W: usize, const B: usize> RxFpduCutter<W, B> {
    /// Builds the cutter; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxFpduCutter", W, B, RX_WALK_USER);
        crate::tx::check_tx_width("RxFpduCutter", W);
        let words = W / 4;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            busy: Default::default(),
            ctx_in: vec![],
            ctx_words_in: vec![],
            ctx_load: vec![],
            ctx_out: vec![],
            ctx_words_out: vec![],
            inq: StreamOutQ::new(),
            kw_in: KeepWords::new(),
            in_seq: Default::default(),
            in_pos: Default::default(),
            in_user: Default::default(),
            in_take: Default::default(),
            seq_off: Default::default(),
            mk_r: Default::default(),
            crc_r: Default::default(),
            ge: Default::default(),
            s_idx: Default::default(),
            open: Default::default(),
            dead: Default::default(),
            kw_h: KeepWords::new(),
            h_v: Default::default(),
            h_wu: Default::default(),
            h_fin: Default::default(),
            h_lost: Default::default(),
            h_bad: Default::default(),
            h_vm: Default::default(),
            h_lm: Default::default(),
            cand: Default::default(),
            le: Default::default(),
            low: Default::default(),
            fm: Default::default(),
            kt: Default::default(),
            rest: Default::default(),
            any_cand: Default::default(),
            any_fm: Default::default(),
            done: Default::default(),
            err2: Default::default(),
            end1: Default::default(),
            act: Default::default(),
            e_idx: Default::default(),
            e_next: Default::default(),
            f_pos: Default::default(),
            f_user: Default::default(),
            cmd: Default::default(),
            cq: StreamOutQ::new(),
            c: Default::default(),
            c_oh: Default::default(),
            c_th: Default::default(),
            q_k: Default::default(),
            q_kt: Default::default(),
            q_kt32: Default::default(),
            q_ends: Default::default(),
            p_full: Default::default(),
            p_over: Default::default(),
            c_sum: Default::default(),
            c_nx: Default::default(),
            kk: Default::default(),
            kk_hi: Default::default(),
            coh: Default::default(),
            coh_hi: Default::default(),
            w_tot: Default::default(),
            w_tail: Default::default(),
            p_go: Default::default(),
            plan: Default::default(),
            pq: StreamOutQ::new(),
            acc: Default::default(),
            fuser: Default::default(),
            t_v: Default::default(),
            t_data: Default::default(),
            t_keep: Default::default(),
            t_user: Default::default(),
            gb: Gearbox::new("RxFpduCutter", 32),
            a_full: Default::default(),
            a_over: Default::default(),
            a_ends: Default::default(),
            a_emits: Default::default(),
            a_wtot: Default::default(),
            a_wtail: Default::default(),
            take_q: Default::default(),
            u: Default::default(),
            u_last: Default::default(),
            keep_tot: Default::default(),
            keep_tail: Default::default(),
            out: StreamOutQ::new(),
            c_words: Constant::new((words as u64).into()),
            c_wmask: Constant::new(((words - 1) as u64).into()),
            // With c = j held: the beat fills when k > words - 1 - j, overfills when
            // k > words - j (never for j = 0).
            c_full_w: (0..words).map(|j| Constant::new((1u64 << (words - 1 - j)).into())).collect(),
            c_over_w: (0..words)
                .map(|j| {
                    Constant::new(if j == 0 { 0u64.into() } else { (1u64 << (words - j)).into() })
                })
                .collect(),
            c_zero7: Constant::new(0u64.into()),
            c_all: Constant::new(((1u64 << words) - 1).into()),
            c_bit: (0..words).map(|j| Constant::new((1u64 << j).into())).collect(),
            c_lane6: (0..words).map(|j| Constant::new((j as u64).into())).collect(),
            c_wkeep: (0..words)
                .map(|j| Constant::new(Bits::<W>::from(0xFu64 << (4 * j))))
                .collect(),
            c_full_keep: Constant::new(Bits::<W>::from(if W == 64 {
                u64::MAX
            } else {
                (1u64 << W) - 1
            })),
            ctx: vec![],
        }
    }

    /// The cutter with the context ports (`ctx_in`, `ctx_words_in`, `ctx_load`, `ctx_out`,
    /// `ctx_words_out`): while it is not `busy`, the state it keeps about a connection's stream,
    /// an open FPDU's held words included, is read out and another connection's loaded, so
    /// that one cutter serves any number of connections (see [`CutCtx`]; the connection's
    /// `cfg_markers` and `cfg_crc` are set with its record). [`RxFpduCutter::new`] builds
    /// neither ports nor logic: `mpa_rx`'s Verilog does not change.
    pub fn with_context() -> Self {
        Self {
            ctx_in: vec![Default::default()],
            ctx_words_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_out: vec![Default::default()],
            ctx_words_out: vec![Default::default()],
            ctx: vec![CutCtxPack::default()],
            ..Self::new()
        }
    }
}

impl<const W: usize, const B: usize> Default for RxFpduCutter<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxFpduCutter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_seq, in_pos, mk_r, crc_r, ge, s_idx, open, dead, c, c_oh, c_th, acc,
            fuser, t_v, t_data, t_keep, t_user
        );
        self.inq.clock.next = self.clock.val();
        self.inq.rst.next = self.rst.val();
        self.cq.clock.next = self.clock.val();
        self.cq.rst.next = self.rst.val();
        self.pq.clock.next = self.clock.val();
        self.pq.rst.next = self.rst.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.mk_r.d.next = self.cfg_markers.val();
        self.crc_r.d.next = self.cfg_crc.val();

        // ---- Input: each beat with the sequence number and Marker phase of its lane 0. ----
        self.kw_in.keep.next = self.s_axis.keep.val();
        self.s_axis.ready.next = self.inq.s_axis.ready.val() & !self.rst.val();
        self.in_take.next = self.s_axis.valid.val() & self.inq.s_axis.ready.val() & !self.rst.val();
        self.in_user.next = 0.into();
        self.in_user.next.set_value_rx_cut_in_walk(self.s_axis.user.val());
        self.in_user.next.set_value_rx_cut_in_seq(self.in_seq.q.val());
        self.in_user.next.set_value_rx_cut_in_pos(self.in_pos.q.val());
        // ---- Context record (only when built with it): read out, and loaded while nothing is
        // inside (no beat in the queues, no tail); no beat is taken in a load's cycle. The
        // loads are written here, before the stages that assign these registers only while a
        // beat is inside.
        for k in 0..self.ctx.len() {
            self.ctx[k].rec_in.next = self.ctx_in[k].val();
            self.ctx[k].markers.next = self.cfg_markers.val();
            self.ctx[k].crc.next = self.cfg_crc.val();
            self.ctx[k].seq.next = self.in_seq.q.val();
            self.ctx[k].pos.next = self.in_pos.q.val();
            self.ctx[k].open.next = self.open.q.val();
            self.ctx[k].dead.next = self.dead.q.val();
            self.ctx[k].c.next = self.c.q.val();
            self.ctx[k].fuser.next = self.fuser.q.val();
            self.ctx_out[k].next = self.ctx[k].rec_out.val();
            self.ctx_words_out[k].next = self.acc.q.val();
            if self.ctx_load[k].val() {
                self.s_axis.ready.next = false;
                self.in_take.next = false;
                if !(self.inq.m_axis.valid.val()
                    | self.cq.m_axis.valid.val()
                    | self.pq.m_axis.valid.val()
                    | self.t_v.q.val()
                    | self.out.m_axis.valid.val())
                {
                    self.in_seq.d.next = self.ctx[k].in_seq.val();
                    self.in_pos.d.next = self.ctx[k].in_pos.val();
                    self.open.d.next = self.ctx[k].in_open.val();
                    self.dead.d.next = self.ctx[k].in_dead.val();
                    self.ge.d.next = self.c_all.val();
                    self.s_idx.d.next = 0.into();
                    self.c.d.next = self.ctx[k].in_c.val();
                    self.c_oh.d.next = self.ctx[k].in_c_oh.val();
                    self.c_th.d.next = self.ctx[k].in_c_th.val();
                    self.fuser.d.next = self.ctx[k].in_fuser.val();
                    self.acc.d.next = self.ctx_words_in[k].val();
                }
            }
        }
        self.inq.s_axis.valid.next = self.in_take.val();
        self.inq.s_axis.data.next = self.s_axis.data.val();
        self.inq.s_axis.keep.next = self.s_axis.keep.val();
        self.inq.s_axis.user.next = self.in_user.val();
        self.inq.s_axis.last.next = self.s_axis.last.val();
        if self.in_take.val() {
            self.in_seq.d.next =
                self.in_seq.q.val() + (bit_cast::<32, 6>(self.kw_in.words.val()) << 2);
            self.in_pos.d.next = self.in_pos.q.val() + bit_cast::<7, 6>(self.kw_in.words.val());
        }

        // ---- Sequencer: the fragment from lane s to the first FPDU end at or after it. ----
        self.kw_h.keep.next = self.inq.m_axis.keep.val();
        self.h_v.next = self.inq.m_axis.valid.val();
        self.h_wu.next = self.inq.m_axis.user.val().get_value_rx_cut_in_walk();
        self.h_fin.next = self.h_wu.val().get_value_rx_walk_fin();
        self.h_lost.next = self.h_wu.val().get_value_rx_walk_lost();
        self.h_bad.next = self.h_wu.val().get_value_rx_walk_bad();
        self.h_lm.next = self.h_wu.val().get_value_rx_walk_last();
        self.h_vm.next = 0.into();
        for j in 0..(W / 4) {
            if self.inq.m_axis.keep.val().get_bit(j * 4) {
                self.h_vm.next = self.h_vm.val() | self.c_bit[j].val();
            }
        }
        // Lanes that end an FPDU at or after s; the lanes up to the first of them (all lanes
        // when there is none: 0 - 1 is all ones).
        self.cand.next = self.h_lm.val() & self.ge.q.val() & self.h_vm.val();
        self.le.next = self.cand.val() ^ (self.cand.val() - 1);
        self.low.next = self.cand.val() & self.le.val();
        self.fm.next = self.ge.q.val() & self.h_vm.val() & self.le.val();
        self.rest.next = self.h_vm.val() & !self.le.val();
        self.any_cand.next = self.cand.val().any();
        self.any_fm.next = self.fm.val().any();
        // The beat is done when nothing of it is left, except the stream's last beat: that one
        // goes when the fragment runs to its end (no FPDU end left in it), so that its end is
        // decided on a fragment of its own.
        self.done.next = !self.rest.val().any();
        if self.h_fin.val() {
            self.done.next = !self.any_cand.val();
        }
        // The FPDU with ULPDU_Length above the limit is the one open after the beat's last
        // FPDU end (the walker marks nothing after it): code 2, none of its words from here.
        self.err2.next = self.h_bad.val() & !self.any_cand.val();
        // The stream ends inside an FPDU, or with octets of a word lost: code 1.
        self.end1.next = self.h_fin.val()
            & !self.any_cand.val()
            & !self.h_bad.val()
            & (self.open.q.val() | self.any_fm.val() | self.h_lost.val());
        self.act.next = self.h_v.val() & self.cq.s_axis.ready.val();
        // The fragment's last lane and the lane after it.
        self.e_idx.next = 0.into();
        for j in 0..(W / 4) {
            if self.low.val().get_bit(j) {
                self.e_idx.next = self.e_idx.val() | self.c_lane6[j].val();
            }
        }
        self.e_next.next = self.kw_h.words.val();
        if self.any_cand.val() {
            self.e_next.next = self.e_idx.val() + 1;
        }
        // The sideband of an FPDU starting at lane s.
        self.f_pos.next = self.inq.m_axis.user.val().get_value_rx_cut_in_pos()
            + bit_cast::<7, 6>(self.s_idx.q.val());
        self.f_user.next = 0.into();
        self.f_user.next.set_value_rx_fpdu_seq(
            self.inq.m_axis.user.val().get_value_rx_cut_in_seq()
                + (bit_cast::<32, 6>(self.s_idx.q.val()) << 2),
        );
        self.f_user.next.set_value_rx_fpdu_to_marker(self.c_zero7.val() - self.f_pos.val());
        self.f_user.next.set_value_rx_fpdu_markers(self.mk_r.q.val());
        self.f_user.next.set_value_rx_fpdu_crc(self.crc_r.q.val());
        self.cmd.next = 0.into();
        self.cmd.next.set_value_rx_cut_cmd_s(self.s_idx.q.val());
        self.cmd.next.set_value_rx_cut_cmd_k(self.e_next.val() - self.s_idx.q.val());
        // k as a thermometer: the fragment's lanes moved down to lane 0.
        self.kt.next = self.fm.val() >> self.s_idx.q.val();
        if self.err2.val() {
            self.cmd.next.set_value_rx_cut_cmd_k(0.into());
            self.kt.next = 0.into();
        }
        self.cmd
            .next
            .set_value_rx_cut_cmd_ends(self.any_cand.val() | self.err2.val() | self.end1.val());
        self.cmd.next.set_value_rx_cut_cmd_start(!self.open.q.val());
        self.cmd.next.set_value_rx_cut_cmd_err(self.err2.val() | self.end1.val());
        self.cmd.next.set_value_rx_cut_cmd_code(1.into());
        if self.err2.val() {
            self.cmd.next.set_value_rx_cut_cmd_code(2.into());
        }
        self.cmd.next.set_value_rx_cut_cmd_fpdu(self.f_user.val());
        self.cmd.next.set_value_rx_cut_cmd_kt(self.kt.val());
        self.cq.s_axis.valid.next = self.act.val()
            & !self.dead.q.val()
            & (self.any_fm.val() | self.err2.val() | self.end1.val());
        self.cq.s_axis.data.next = self.inq.m_axis.data.val();
        self.cq.s_axis.keep.next = self.inq.m_axis.keep.val();
        self.cq.s_axis.user.next = self.cmd.val();
        self.cq.s_axis.last.next = false;
        self.inq.m_axis.ready.next = false;
        if self.act.val() {
            if self.dead.q.val() {
                // After the stream's end or an error every beat is dropped.
                self.inq.m_axis.ready.next = true;
            } else {
                self.open.d.next = (self.open.q.val() | self.any_fm.val()) & !self.any_cand.val();
                if self.done.val() | self.err2.val() {
                    self.inq.m_axis.ready.next = true;
                    self.ge.d.next = self.c_all.val();
                    self.s_idx.d.next = 0.into();
                } else {
                    self.ge.d.next = !self.le.val();
                    self.s_idx.d.next = self.e_next.val();
                }
                if self.err2.val() | (self.h_fin.val() & self.done.val()) {
                    self.dead.d.next = true;
                }
            }
        }

        // ---- Plan: the words held before each fragment, and what it does with them. ----
        // Whether the beat fills (c + k >= words) or overfills comes from c one-hot and k as a
        // thermometer (one AND-OR, no adder); the word masks of the packet's beat and of a tail
        // are the lanes below c and k's thermometer moved up by c.
        self.q_k.next = self.cq.m_axis.user.val().get_value_rx_cut_cmd_k();
        self.q_kt.next = self.cq.m_axis.user.val().get_value_rx_cut_cmd_kt();
        self.q_ends.next = self.cq.m_axis.user.val().get_value_rx_cut_cmd_ends();
        self.p_full.next = false;
        self.p_over.next = false;
        for j in 0..(W / 4) {
            if self.c_oh.q.val().get_bit(j) {
                self.p_full.next = (self.q_kt.val() & self.c_full_w[j].val()).any();
                self.p_over.next = (self.q_kt.val() & self.c_over_w[j].val()).any();
            }
        }
        self.c_sum.next = self.c.q.val() + self.q_k.val();
        self.c_nx.next = self.c_sum.val() & self.c_wmask.val();
        self.q_kt32.next = bit_cast::<32, 16>(self.q_kt.val());
        self.kk.next = self.q_kt32.val() << self.c.q.val();
        self.w_tot.next = self.c_th.q.val() | self.kk.val().get_bits::<16>(0);
        self.kk_hi.next = self.kk.val() >> self.c_words.val();
        self.w_tail.next = self.kk_hi.val().get_bits::<16>(0);
        self.coh.next = bit_cast::<32, 16>(self.c_oh.q.val()) << self.q_k.val();
        self.coh_hi.next = self.coh.val() >> self.c_words.val();
        self.plan.next = 0.into();
        self.plan.next.set_value_rx_cut_plan_amt(
            (self.c.q.val() - self.cq.m_axis.user.val().get_value_rx_cut_cmd_s())
                & self.c_wmask.val(),
        );
        self.plan.next.set_value_rx_cut_plan_hold(self.c.q.val());
        self.plan.next.set_value_rx_cut_plan_full(self.p_full.val());
        self.plan.next.set_value_rx_cut_plan_over(self.p_over.val());
        self.plan.next.set_value_rx_cut_plan_ends(self.q_ends.val());
        self.plan.next.set_value_rx_cut_plan_emits(self.p_full.val() | self.q_ends.val());
        self.plan
            .next
            .set_value_rx_cut_plan_start(self.cq.m_axis.user.val().get_value_rx_cut_cmd_start());
        self.plan
            .next
            .set_value_rx_cut_plan_err(self.cq.m_axis.user.val().get_value_rx_cut_cmd_err());
        self.plan
            .next
            .set_value_rx_cut_plan_code(self.cq.m_axis.user.val().get_value_rx_cut_cmd_code());
        self.plan
            .next
            .set_value_rx_cut_plan_fpdu(self.cq.m_axis.user.val().get_value_rx_cut_cmd_fpdu());
        self.plan.next.set_value_rx_cut_plan_w_tot(self.w_tot.val());
        self.plan.next.set_value_rx_cut_plan_w_tail(self.w_tail.val());
        self.p_go.next = self.cq.m_axis.valid.val() & self.pq.s_axis.ready.val();
        self.cq.m_axis.ready.next = self.p_go.val();
        self.pq.s_axis.valid.next = self.p_go.val();
        self.pq.s_axis.data.next = self.cq.m_axis.data.val();
        self.pq.s_axis.keep.next = self.cq.m_axis.keep.val();
        self.pq.s_axis.user.next = self.plan.val();
        self.pq.s_axis.last.next = false;
        if self.p_go.val() {
            self.c.d.next = self.c_nx.val();
            self.c_oh.d.next = self.coh.val().get_bits::<16>(0);
            self.c_th.d.next = self.w_tot.val();
            if self.p_full.val() {
                self.c_oh.d.next = self.coh_hi.val().get_bits::<16>(0);
                self.c_th.d.next = self.w_tail.val();
            }
            if self.q_ends.val() {
                self.c.d.next = 0.into();
                self.c_oh.d.next = 1.into();
                self.c_th.d.next = 0.into();
            }
        }

        // ---- Apply: the fragment appended to the open packet's words (selections only). ----
        self.pq.m_axis.ready.next = false;
        self.a_full.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_full();
        self.a_over.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_over();
        self.a_ends.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_ends();
        self.a_emits.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_emits();
        self.a_wtot.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_w_tot();
        self.a_wtail.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_w_tail();
        self.gb.data.next = self.pq.m_axis.data.val();
        self.gb.amt.next = bit_cast::<8, 6>(self.pq.m_axis.user.val().get_value_rx_cut_plan_amt());
        self.gb.acc.next = self.acc.q.val();
        self.gb.hold.next =
            bit_cast::<8, 6>(self.pq.m_axis.user.val().get_value_rx_cut_plan_hold());
        self.u.next = self.fuser.q.val();
        if self.pq.m_axis.user.val().get_value_rx_cut_plan_start() {
            self.u.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_fpdu();
        }
        self.u_last.next = self.u.val();
        if self.pq.m_axis.user.val().get_value_rx_cut_plan_err() {
            self.u_last.next.set_value_rx_fpdu_err(true);
            self.u_last
                .next
                .set_value_rx_fpdu_code(self.pq.m_axis.user.val().get_value_rx_cut_plan_code());
        }
        self.keep_tot.next = 0.into();
        self.keep_tail.next = 0.into();
        for j in 0..(W / 4) {
            if self.a_wtot.val().get_bit(j) {
                self.keep_tot.next = self.keep_tot.val() | self.c_wkeep[j].val();
            }
            if self.a_wtail.val().get_bit(j) {
                self.keep_tail.next = self.keep_tail.val() | self.c_wkeep[j].val();
            }
        }
        // A fragment that puts out no beat goes in whenever it is there; one that does waits
        // for the output and for a tail going out first.
        self.take_q.next = self.pq.m_axis.valid.val()
            & (!self.a_emits.val() | (self.out.s_axis.ready.val() & !self.t_v.q.val()));
        self.out.s_axis.valid.next = false;
        self.out.s_axis.data.next = self.gb.merged.val();
        self.out.s_axis.keep.next = self.keep_tot.val();
        self.out.s_axis.user.next = self.u_last.val();
        self.out.s_axis.last.next = self.a_ends.val();
        if self.a_full.val() {
            self.out.s_axis.keep.next = self.c_full_keep.val();
            if self.a_over.val() {
                self.out.s_axis.last.next = false;
                self.out.s_axis.user.next = self.u.val();
            }
            if !self.a_ends.val() {
                self.out.s_axis.user.next = self.u.val();
            }
        }
        // The tail's registers load whenever no tail waits (their enable is a register).
        if !self.t_v.q.val() {
            self.t_data.d.next = self.gb.rot.val();
            self.t_keep.d.next = self.keep_tail.val();
            self.t_user.d.next = self.u_last.val();
        }
        if self.t_v.q.val() {
            self.out.s_axis.valid.next = self.out.s_axis.ready.val();
            self.out.s_axis.data.next = self.t_data.q.val();
            self.out.s_axis.keep.next = self.t_keep.q.val();
            self.out.s_axis.user.next = self.t_user.q.val();
            self.out.s_axis.last.next = true;
            if self.out.s_axis.ready.val() {
                self.t_v.d.next = false;
            }
        }
        // An FPDU's sideband is loaded while its first fragment waits at the head (every
        // fragment before it has gone).
        if self.pq.m_axis.valid.val() & self.pq.m_axis.user.val().get_value_rx_cut_plan_start() {
            self.fuser.d.next = self.pq.m_axis.user.val().get_value_rx_cut_plan_fpdu();
        }
        // acc keeps its words while a fragment waits (merged holds acc's lanes below the
        // fragment's `hold`, the words held now); after a full beat it takes what did not fit
        // (lanes 0..c + k - words of the rotated fragment).
        if self.pq.m_axis.valid.val() {
            self.acc.d.next = self.gb.merged.val();
        }
        if self.take_q.val() {
            self.pq.m_axis.ready.next = true;
            if self.a_emits.val() {
                self.out.s_axis.valid.next = true;
            }
            if self.a_full.val() {
                self.acc.d.next = self.gb.rot.val();
            }
            if self.a_ends.val() & self.a_over.val() {
                self.t_v.d.next = true;
            }
        }
        self.busy.next = self.inq.m_axis.valid.val()
            | self.cq.m_axis.valid.val()
            | self.pq.m_axis.valid.val()
            | self.t_v.q.val()
            | self.out.m_axis.valid.val();

        self.seq_off.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.in_seq.d.next = self.cfg_seq.val();
            self.in_pos.d.next = self.seq_off.val().get_bits::<7>(2);
            self.ge.d.next = self.c_all.val();
            self.s_idx.d.next = 0.into();
            self.open.d.next = false;
            self.dead.d.next = false;
            self.c.d.next = 0.into();
            self.c_oh.d.next = 1.into();
            self.c_th.d.next = 0.into();
            self.t_v.d.next = false;
        }
    }
}
