//! `RxCrcCheck`: verifies each received FPDU's CRC (RFC 5044 4.4, 6, 8).
//!
//! FPDU packets from [`super::delineator::RxDelineator`] in, the same packets out; an FPDU whose
//! CRC is on and wrong leaves as an error packet with code 2 ("CRC does not match", section 8),
//! and nothing after it leaves (6: "the receiver MUST ... close the connection"; the half
//! connection is dead). The CRC covers every octet of the FPDU before the CRC field, Markers
//! included (4.4 rules 1 and 2), and the delineator's packet is exactly those octets plus the CRC
//! field, so the check is the residue test of the whole packet ([`CrcEngine`]'s `crc_bad`).
//! With CRC off for the FPDU (sideband bit 40 low) the field is not checked (4.4: "may contain
//! any value"). Error packets from upstream pass unchanged and end the stream too.
//!
//! ```text
//!  s_axis ─┬──────────────────────► StreamFifo (32 beats) ──┐
//!          └─► CrcEngine (residue check) ─► RegFifo (verdicts) ──┴─► flag the last beat ─► m_axis
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `s_axis` | in | 8W | FPDU packets; `user` as [`super::delineator::RX_FPDU_USER`] |
//! | `m_axis` | out | 8W | the same packets; the last beat of an FPDU with a bad CRC has `user[41]` set and code 2 in `user[43:42]` |
//! | `err_crc` | out | 1 | pulse: an FPDU failed the CRC check |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! An FPDU's last beat leaves `CrcEngine::latency() + 3` cycles after it entered at the earliest
//! ([`RxCrcCheck::latency`]: 15 at W = 8, 21 at W = 64); the beats before it in 3. One beat per
//! cycle: the FIFO is deeper than the engine's latency.
//!
//! ### Reset
//! `rst` empties the FIFOs and the engine, and revives the stream.

use crate::crc::engine::{CrcEngine, EngineOptions};
use crate::fifo::RegFifo;
pub use crate::rx::crc_ctx::{CrcCtx, RxCrcCtx, CRC_CTX_BITS};
use crate::sideband::{RxFpduUserFields, RX_FPDU_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_fifo::StreamFifo;
use crate::stream_skid::StreamSkid;
use golden::crc::CRC32C;
use rust_hdl::prelude::*;

/// The CRC check; see the module documentation.
#[derive(LogicBlock)]
pub struct RxCrcCheck<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// FPDU packets.
    pub s_axis: StreamSink<W, B, RX_FPDU_USER>,
    /// Checked FPDU packets.
    pub m_axis: StreamSource<W, B, RX_FPDU_USER>,
    /// Pulse: an FPDU failed the CRC check.
    pub err_crc: Signal<Out, Bit>,
    /// Only when built [`RxCrcCheck::with_context`] (one entry, otherwise none): a
    /// connection's context record ([`CrcCtx`]) to load.
    pub ctx_in: Vec<Signal<In, Bits<CRC_CTX_BITS>>>,
    /// Likewise: load `ctx_in` now (honoured only while `ctx_idle` is high; no beat is taken
    /// in its cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: end the open FPDU's piece (its CRC so far into the record; no beat is taken
    /// in its cycle, nor until that CRC is in).
    pub ctx_flush: Vec<Signal<In, Bit>>,
    /// Likewise: the record of the connection being served (final while `ctx_idle` is high).
    pub ctx_out: Vec<Signal<Out, Bits<CRC_CTX_BITS>>>,
    /// Likewise: nothing of the connection is inside and no FPDU's CRC is in the engine.
    pub ctx_idle: Vec<Signal<Out, Bit>>,
    engine: CrcEngine<W, B>,
    beats: StreamFifo<W, B, RX_FPDU_USER>,
    verdicts: RegFifo<1>,
    out: StreamSkid<W, B, RX_FPDU_USER>,
    dead: DFF<Bit>,
    err_q: DFF<Bit>,
    take: Signal<Local, Bit>,
    can_go: Signal<Local, Bit>,
    h_user: Signal<Local, Bits<RX_FPDU_USER>>,
    bad: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    // The context record and its flush / resume logic (only when built with it).
    ctx: Vec<RxCrcCtx>,
}

impl<const W: usize, const B: usize> RxCrcCheck<W, B> {
    /// Builds the check (CRC32c); panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxCrcCheck", W, B, RX_FPDU_USER);
        crate::tx::check_tx_width("RxCrcCheck", W);
        assert!(
            CrcEngine::<W, B>::latency() + 3 < crate::stream_fifo::STREAM_FIFO_DEPTH,
            "RxCrcCheck: the beat FIFO must be deeper than the CRC latency"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            err_crc: Default::default(),
            ctx_in: vec![],
            ctx_load: vec![],
            ctx_flush: vec![],
            ctx_out: vec![],
            ctx_idle: vec![],
            engine: CrcEngine::new(&CRC32C),
            beats: StreamFifo::new(),
            verdicts: RegFifo::new(crate::stream_fifo::STREAM_FIFO_DEPTH),
            out: StreamSkid::new(),
            dead: Default::default(),
            err_q: Default::default(),
            take: Default::default(),
            can_go: Default::default(),
            h_user: Default::default(),
            bad: Default::default(),
            ends: Default::default(),
            ctx: vec![],
        }
    }

    /// The check with the context ports (`ctx_in`, `ctx_load`, `ctx_flush`, `ctx_out`,
    /// `ctx_idle`) and a resumable engine: an open FPDU's CRC so far is ended into the record
    /// by `ctx_flush` and resumed from it, so that one check serves any number of connections,
    /// their FPDUs' beats interleaved between segments (see [`RxCrcCtx`]).
    /// [`RxCrcCheck::new`] builds neither ports nor logic, and an engine that cannot resume:
    /// `mpa_rx`'s Verilog does not change.
    pub fn with_context() -> Self {
        Self {
            ctx_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_flush: vec![Default::default()],
            ctx_out: vec![Default::default()],
            ctx_idle: vec![Default::default()],
            engine: CrcEngine::with_options(&CRC32C, EngineOptions::resumable_for_width(W)),
            ctx: vec![RxCrcCtx::default()],
            ..Self::new()
        }
    }

    /// Cycles from an FPDU's last beat entering to it leaving, with nothing ahead of it.
    pub fn latency() -> usize {
        CrcEngine::<W, B>::latency() + 3
    }
}

impl<const W: usize, const B: usize> Default for RxCrcCheck<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxCrcCheck<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dead, err_q);
        self.engine.clock.next = self.clock.val();
        self.beats.clock.next = self.clock.val();
        self.verdicts.clock.next = self.clock.val();
        self.out.clock.next = self.clock.val();
        self.engine.rst.next = self.rst.val();
        self.beats.rst.next = self.rst.val();
        self.verdicts.rst.next = self.rst.val();
        self.out.rst.next = self.rst.val();
        self.err_crc.next = self.err_q.q.val();
        self.err_q.d.next = false;
        // In: every beat into the FIFO and through the engine.
        self.s_axis.ready.next = self.beats.s_axis.ready.val();
        self.take.next = self.s_axis.valid.val() & self.beats.s_axis.ready.val();
        self.beats.s_axis.valid.next = self.s_axis.valid.val();
        self.beats.s_axis.data.next = self.s_axis.data.val();
        self.beats.s_axis.keep.next = self.s_axis.keep.val();
        self.beats.s_axis.user.next = self.s_axis.user.val();
        self.beats.s_axis.last.next = self.s_axis.last.val();
        self.engine.strobe.next = self.take.val();
        self.engine.start.next = false;
        self.engine.last.next = self.s_axis.last.val();
        self.engine.data.next = self.s_axis.data.val();
        self.engine.keep.next = self.s_axis.keep.val();
        self.verdicts.push.next = self.engine.crc_valid.val();
        self.verdicts.push_data.next = self.engine.crc_bad.val().into();
        // Context record (only when built with it): no beat goes in while a load or flush is
        // asked for or a flushed piece's CRC is awaited; a flush strobes a null last beat into
        // the engine, whose result goes into the record, not to the verdicts.
        for k in 0..self.ctx.len() {
            self.ctx[k].clock.next = self.clock.val();
            self.ctx[k].rst.next = self.rst.val();
            self.ctx[k].rec_in.next = self.ctx_in[k].val();
            self.ctx[k].load.next = self.ctx_load[k].val();
            self.ctx[k].flush.next = self.ctx_flush[k].val();
            self.ctx[k].crc_valid.next = self.engine.crc_valid.val();
            self.ctx[k].crc.next = self.engine.crc.val();
            // The FIFO's count, not only its head: a beat written is on `m_axis` two cycles
            // later.
            self.ctx[k].drained.next = !self.beats.count.val().any()
                & !self.beats.m_axis.valid.val()
                & !self.out.m_axis.valid.val();
            self.ctx[k].dead.next = self.dead.q.val();
            if self.ctx[k].hold.val() {
                self.s_axis.ready.next = false;
                self.take.next = false;
                self.beats.s_axis.valid.next = false;
            }
            self.ctx[k].take.next = self.take.val();
            self.ctx[k].last.next = self.s_axis.last.val();
            self.engine.strobe.next = self.take.val();
            self.engine.resume[k].next = self.ctx[k].resume.val();
            self.engine.init[k].next = self.ctx[k].init.val();
            if self.ctx[k].null_beat.val() {
                self.engine.strobe.next = true;
                self.engine.last.next = true;
                self.engine.keep.next = 0.into();
            }
            self.verdicts.push.next = self.engine.crc_valid.val() & !self.ctx[k].piece.val();
            self.ctx_out[k].next = self.ctx[k].rec_out.val();
            self.ctx_idle[k].next = self.ctx[k].idle.val();
        }
        // Out: a packet's last beat waits for its verdict; after the stream's end every beat is
        // taken and dropped.
        self.can_go.next = self.beats.m_axis.valid.val()
            & (self.out.s_axis.ready.val() | self.dead.q.val())
            & (!self.beats.m_axis.last.val() | self.verdicts.out_valid.val());
        self.beats.m_axis.ready.next = self.can_go.val();
        self.verdicts.out_ready.next = self.can_go.val() & self.beats.m_axis.last.val();
        self.h_user.next = self.beats.m_axis.user.val();
        self.bad.next = self.beats.m_axis.last.val()
            & self.h_user.val().get_value_rx_fpdu_crc()
            & !self.h_user.val().get_value_rx_fpdu_err()
            & self.verdicts.out_data.val().any();
        if self.bad.val() {
            self.h_user.next.set_value_rx_fpdu_err(true);
            self.h_user.next.set_value_rx_fpdu_code(2.into());
        }
        self.ends.next = self.beats.m_axis.last.val() & self.h_user.val().get_value_rx_fpdu_err();
        self.out.s_axis.valid.next = self.can_go.val() & !self.dead.q.val();
        self.out.s_axis.data.next = self.beats.m_axis.data.val();
        self.out.s_axis.keep.next = self.beats.m_axis.keep.val();
        self.out.s_axis.user.next = self.h_user.val();
        self.out.s_axis.last.next = self.beats.m_axis.last.val();
        if self.can_go.val() & !self.dead.q.val() {
            self.err_q.d.next = self.bad.val();
            if self.ends.val() {
                self.dead.d.next = true;
            }
        }
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        for k in 0..self.ctx.len() {
            if self.ctx[k].load_now.val() {
                self.dead.d.next = self.ctx[k].in_dead.val();
            }
        }
        if self.rst.val() {
            self.dead.d.next = false;
            self.err_q.d.next = false;
        }
    }
}
