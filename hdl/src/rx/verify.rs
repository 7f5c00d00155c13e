//! `RxVerify`: the verification path of the receive side, TCP payload segments in, ULPDUs out
//! with their verdicts, cut-through (RFC 5044 sections 4.2 to 4.4, 6 and 8). It is `mpa_rx`
//! without the release buffer, and the path [`crate::place::locate::PlaceLocate`] runs an
//! out-of-order segment through from each start it tries.
//!
//! ```text
//!  s_axis ─► RxRealigner ─► RxDelineator ─► RxCrcCheck ─┬─► RxMarkerStripper ─► m_axis
//!  (segments)  A.4 words      6 (lengths)     4.4 (CRC)  │   4.2, 4.3 (Markers, PAD, FPDUPTR)
//!                                                        └─► fpdu_done / fpdu_end (octets per FPDU packet)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset; `cfg_seq`/`cfg_origin` are loaded while `rst` is high |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet (an FPDU's first octet) and of the Marker origin |
//! | `cfg_markers`, `cfg_crc` | in | 1 | Markers expected, CRCs checked |
//! | `cfg_max_ulpdu` | in | 16 | the largest ULPDU_Length accepted (at most 64768) |
//! | `s_axis` | in | 8W | TCP payload segments in sequence order ([`RX_SEG_USER`]: `[31:0]` sequence number, `[32]` FIN) |
//! | `m_axis` | out | 8W | ULPDU packets, the verdict on each last beat ([`RX_ULPDU_USER`], see [`RxMarkerStripper`]); after an error packet nothing until `rst` |
//! | `fpdu_done`, `fpdu_end` | out | 1, 32 | pulse: an FPDU packet without an error flag left the CRC check; the sequence number just after its last octet (its ULPDU's verdict comes later on `m_axis`) |
//! | `err_seq`, `seq_gap`, `err_crc`, `err_marker`, `cfg_misaligned` | out | 1 | as on `mpa_rx` ([`super::mpa_rx::MpaRx`]) |
//! | `pkt_end` | out | 1 | pulse: the delineator passed the last beat of a packet (an FPDU, or an error packet) to the CRC check; each becomes one ULPDU or error packet on `m_axis`, until the first error |
//! | `front_busy` | out | 1 | the realigner or the delineator holds a beat: low, every FPDU whose last octet came in has had its `pkt_end` |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! The four blocks' (see each); one input beat per cycle within an FPDU, one cycle per FPDU
//! piece of a beat in the delineator.

use crate::keep_words::KeepWords;
use crate::rx::crc_check::RxCrcCheck;
pub use crate::rx::crc_check::{CrcCtx, CRC_CTX_BITS};
use crate::rx::delineator::RxDelineator;
pub use crate::rx::delineator::{CutCtx, WalkCtx, CUT_CTX_BITS, WALK_CTX_BITS};
use crate::rx::marker_stripper::{RxMarkerStripper, RX_ULPDU_USER};
pub use crate::rx::marker_stripper::{StripCtx, STRIP_CTX_BITS};
pub use crate::rx::realigner::{RealignCtx, REALIGN_CTX_BITS};
use crate::rx::realigner::{RxRealigner, RX_SEG_USER};
use crate::sideband::RxFpduUserFields;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The verification path; see the module documentation.
#[derive(LogicBlock)]
pub struct RxVerify<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the first octet of the stream.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers expected.
    pub cfg_markers: Signal<In, Bit>,
    /// CRCs checked.
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted.
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// TCP payload segments.
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// ULPDUs with their verdicts.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// Pulse: an FPDU packet left the CRC check without an error flag.
    pub fpdu_done: Signal<Out, Bit>,
    /// The sequence number just after that FPDU.
    pub fpdu_end: Signal<Out, Bits<32>>,
    /// Pulse: a segment beyond the next expected octet was dropped.
    pub err_seq: Signal<Out, Bit>,
    /// Sticky: `err_seq` pulsed since `rst`.
    pub seq_gap: Signal<Out, Bit>,
    /// Pulse: an FPDU failed the CRC check.
    pub err_crc: Signal<Out, Bit>,
    /// Pulse: an FPDU rejected for its FPDUPTR.
    pub err_marker: Signal<Out, Bit>,
    /// The stream position is not a multiple of 4.
    pub cfg_misaligned: Signal<Out, Bit>,
    /// Pulse: a packet's last beat left the delineator.
    pub pkt_end: Signal<Out, Bit>,
    /// The realigner or the delineator holds a beat.
    pub front_busy: Signal<Out, Bit>,
    /// Only when built [`RxVerify::with_context`] (one entry, otherwise none): a connection's
    /// realigner record ([`RealignCtx`]) to load.
    pub ctx_realign_in: Vec<Signal<In, Bits<REALIGN_CTX_BITS>>>,
    /// Likewise: its walker record ([`WalkCtx`]).
    pub ctx_walk_in: Vec<Signal<In, Bits<WALK_CTX_BITS>>>,
    /// Likewise: its cutter record ([`CutCtx`]).
    pub ctx_cut_in: Vec<Signal<In, Bits<CUT_CTX_BITS>>>,
    /// Likewise: the cutter's held words.
    pub ctx_cut_words_in: Vec<Signal<In, Bits<B>>>,
    /// Likewise: its CRC check record ([`CrcCtx`]).
    pub ctx_crc_in: Vec<Signal<In, Bits<CRC_CTX_BITS>>>,
    /// Likewise: its Marker stripper record ([`StripCtx`]).
    pub ctx_strip_in: Vec<Signal<In, Bits<STRIP_CTX_BITS>>>,
    /// Likewise: the stripper's held lanes.
    pub ctx_strip_words_in: Vec<Signal<In, Bits<B>>>,
    /// Likewise: the octets of the open FPDU packet that left the CRC check (for `fpdu_end`).
    pub ctx_end_in: Vec<Signal<In, Bits<32>>>,
    /// Likewise: load every part now (honoured only while `ctx_idle` is high; no beat is
    /// taken in its cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: end the open FPDU's CRC piece once everything taken has reached the CRC
    /// check (a request kept until then; `ctx_idle` is low from the next cycle until it is
    /// done).
    pub ctx_flush: Vec<Signal<In, Bit>>,
    /// Likewise: the records of the connection being served (final while `ctx_idle` is high).
    pub ctx_realign_out: Vec<Signal<Out, Bits<REALIGN_CTX_BITS>>>,
    /// Likewise.
    pub ctx_walk_out: Vec<Signal<Out, Bits<WALK_CTX_BITS>>>,
    /// Likewise.
    pub ctx_cut_out: Vec<Signal<Out, Bits<CUT_CTX_BITS>>>,
    /// Likewise.
    pub ctx_cut_words_out: Vec<Signal<Out, Bits<B>>>,
    /// Likewise.
    pub ctx_crc_out: Vec<Signal<Out, Bits<CRC_CTX_BITS>>>,
    /// Likewise.
    pub ctx_strip_out: Vec<Signal<Out, Bits<STRIP_CTX_BITS>>>,
    /// Likewise.
    pub ctx_strip_words_out: Vec<Signal<Out, Bits<B>>>,
    /// Likewise.
    pub ctx_end_out: Vec<Signal<Out, Bits<32>>>,
    /// Likewise: nothing of the connection is inside any block, no flush is pending and no
    /// FPDU's CRC is in the engine (registered: so in the last cycle, with no beat offered
    /// and no flush asked for in it).
    pub ctx_idle: Vec<Signal<Out, Bit>>,
    realigner: RxRealigner<W, B>,
    delineator: RxDelineator<W, B>,
    crc: RxCrcCheck<W, B>,
    stripper: RxMarkerStripper<W, B>,
    kw: KeepWords<W>,
    acc: DFF<Bits<32>>,
    c_w32: Constant<Bits<32>>,
    tap: Signal<Local, Bit>,
    // The pending flush (only when built with the context ports).
    flush_req: Vec<DFF<Bit>>,
    chain_idle: Vec<Signal<Local, Bit>>,
    // `chain_idle` a cycle late, with no beat offered and no flush asked for in that cycle (so
    // the path is still idle): `ctx_idle`, and what a load waits for, from a register.
    idle_q: Vec<DFF<Bit>>,
    // The flush going to the CRC check, a cycle after `flush_go`.
    flush_gq: Vec<DFF<Bit>>,
    load_now: Vec<Signal<Local, Bit>>,
    flush_go: Vec<Signal<Local, Bit>>,
}

impl<const W: usize, const B: usize> RxVerify<W, B> {
    /// Builds the path; panics if `W` is not 4, 8, 16, 32 or 64 or `B != 8W`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_max_ulpdu: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            fpdu_done: Default::default(),
            fpdu_end: Default::default(),
            err_seq: Default::default(),
            seq_gap: Default::default(),
            err_crc: Default::default(),
            err_marker: Default::default(),
            cfg_misaligned: Default::default(),
            pkt_end: Default::default(),
            front_busy: Default::default(),
            ctx_realign_in: vec![],
            ctx_walk_in: vec![],
            ctx_cut_in: vec![],
            ctx_cut_words_in: vec![],
            ctx_crc_in: vec![],
            ctx_strip_in: vec![],
            ctx_strip_words_in: vec![],
            ctx_end_in: vec![],
            ctx_load: vec![],
            ctx_flush: vec![],
            ctx_realign_out: vec![],
            ctx_walk_out: vec![],
            ctx_cut_out: vec![],
            ctx_cut_words_out: vec![],
            ctx_crc_out: vec![],
            ctx_strip_out: vec![],
            ctx_strip_words_out: vec![],
            ctx_end_out: vec![],
            ctx_idle: vec![],
            realigner: RxRealigner::new(),
            delineator: RxDelineator::new(),
            crc: RxCrcCheck::new(),
            stripper: RxMarkerStripper::new(),
            kw: KeepWords::new(),
            acc: Default::default(),
            c_w32: Constant::new((W as u64).into()),
            tap: Default::default(),
            flush_req: vec![],
            chain_idle: vec![],
            idle_q: vec![],
            flush_gq: vec![],
            load_now: vec![],
            flush_go: vec![],
        }
    }

    /// The path with every block's context record (DESIGN, "Connection state is explicit"):
    /// once a connection's segments have all gone through (`ctx_flush`, then `ctx_idle`), its
    /// records are read out and another connection's loaded in one cycle, so that one path
    /// serves any number of connections. The connection's `cfg_markers`, `cfg_crc` and
    /// `cfg_max_ulpdu` are set with its records; `cfg_seq` / `cfg_origin` are not used (the
    /// records hold the stream positions). [`RxVerify::new`] builds none of it.
    pub fn with_context() -> Self {
        fn one<T: Default>() -> Vec<T> {
            vec![T::default()]
        }
        Self {
            ctx_realign_in: one(),
            ctx_walk_in: one(),
            ctx_cut_in: one(),
            ctx_cut_words_in: one(),
            ctx_crc_in: one(),
            ctx_strip_in: one(),
            ctx_strip_words_in: one(),
            ctx_end_in: one(),
            ctx_load: one(),
            ctx_flush: one(),
            ctx_realign_out: one(),
            ctx_walk_out: one(),
            ctx_cut_out: one(),
            ctx_cut_words_out: one(),
            ctx_crc_out: one(),
            ctx_strip_out: one(),
            ctx_strip_words_out: one(),
            ctx_end_out: one(),
            ctx_idle: one(),
            realigner: RxRealigner::with_context(),
            delineator: RxDelineator::with_context(),
            crc: RxCrcCheck::with_context(),
            stripper: RxMarkerStripper::with_context(),
            flush_req: one(),
            chain_idle: one(),
            idle_q: one(),
            flush_gq: one(),
            load_now: one(),
            flush_go: one(),
            ..Self::new()
        }
    }
}

impl<const W: usize, const B: usize> Default for RxVerify<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxVerify<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc);
        self.realigner.clock.next = self.clock.val();
        self.delineator.clock.next = self.clock.val();
        self.crc.clock.next = self.clock.val();
        self.stripper.clock.next = self.clock.val();
        self.realigner.rst.next = self.rst.val();
        self.delineator.rst.next = self.rst.val();
        self.crc.rst.next = self.rst.val();
        self.stripper.rst.next = self.rst.val();
        // Settings.
        self.realigner.cfg_seq.next = self.cfg_seq.val();
        self.realigner.cfg_origin.next = self.cfg_origin.val();
        self.delineator.cfg_seq.next = self.cfg_seq.val();
        self.delineator.cfg_origin.next = self.cfg_origin.val();
        self.delineator.cfg_markers.next = self.cfg_markers.val();
        self.delineator.cfg_crc.next = self.cfg_crc.val();
        self.delineator.cfg_max_ulpdu.next = self.cfg_max_ulpdu.val();
        // s_axis -> realigner -> delineator -> CRC check -> Marker stripper -> m_axis.
        self.realigner.s_axis.data.next = self.s_axis.data.val();
        self.realigner.s_axis.keep.next = self.s_axis.keep.val();
        self.realigner.s_axis.user.next = self.s_axis.user.val();
        self.realigner.s_axis.last.next = self.s_axis.last.val();
        self.realigner.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.realigner.s_axis.ready.val();
        self.delineator.s_axis.data.next = self.realigner.m_axis.data.val();
        self.delineator.s_axis.keep.next = self.realigner.m_axis.keep.val();
        self.delineator.s_axis.user.next = self.realigner.m_axis.user.val();
        self.delineator.s_axis.last.next = self.realigner.m_axis.last.val();
        self.delineator.s_axis.valid.next = self.realigner.m_axis.valid.val();
        self.realigner.m_axis.ready.next = self.delineator.s_axis.ready.val();
        self.crc.s_axis.data.next = self.delineator.m_axis.data.val();
        self.crc.s_axis.keep.next = self.delineator.m_axis.keep.val();
        self.crc.s_axis.user.next = self.delineator.m_axis.user.val();
        self.crc.s_axis.last.next = self.delineator.m_axis.last.val();
        self.crc.s_axis.valid.next = self.delineator.m_axis.valid.val();
        self.delineator.m_axis.ready.next = self.crc.s_axis.ready.val();
        self.stripper.s_axis.data.next = self.crc.m_axis.data.val();
        self.stripper.s_axis.keep.next = self.crc.m_axis.keep.val();
        self.stripper.s_axis.user.next = self.crc.m_axis.user.val();
        self.stripper.s_axis.last.next = self.crc.m_axis.last.val();
        self.stripper.s_axis.valid.next = self.crc.m_axis.valid.val();
        self.crc.m_axis.ready.next = self.stripper.s_axis.ready.val();
        self.m_axis.data.next = self.stripper.m_axis.data.val();
        self.m_axis.keep.next = self.stripper.m_axis.keep.val();
        self.m_axis.user.next = self.stripper.m_axis.user.val();
        self.m_axis.last.next = self.stripper.m_axis.last.val();
        self.m_axis.valid.next = self.stripper.m_axis.valid.val();
        self.stripper.m_axis.ready.next = self.m_axis.ready.val();
        // Status.
        self.err_seq.next = self.realigner.err_seq.val();
        self.seq_gap.next = self.realigner.seq_gap.val();
        self.err_crc.next = self.crc.err_crc.val();
        self.err_marker.next = self.stripper.err_marker.val();
        self.cfg_misaligned.next = self.realigner.cfg_misaligned.val();
        self.pkt_end.next = self.delineator.m_axis.valid.val()
            & self.crc.s_axis.ready.val()
            & self.delineator.m_axis.last.val();
        self.front_busy.next = self.realigner.busy.val() | self.delineator.busy.val();
        // Each FPDU packet's octets (whole words; every beat but the last is full) give its end.
        self.kw.keep.next = self.crc.m_axis.keep.val();
        self.tap.next = self.crc.m_axis.valid.val() & self.stripper.s_axis.ready.val();
        self.fpdu_end.next = self.crc.m_axis.user.val().get_value_rx_fpdu_seq()
            + self.acc.q.val()
            + (bit_cast::<32, 6>(self.kw.words.val()) << 2);
        self.fpdu_done.next = self.tap.val()
            & self.crc.m_axis.last.val()
            & !self.crc.m_axis.user.val().get_value_rx_fpdu_err();
        if self.tap.val() {
            if self.crc.m_axis.last.val() {
                self.acc.d.next = 0.into();
            } else {
                self.acc.d.next = self.acc.q.val() + self.c_w32.val();
            }
        }
        // Context records (only when built with them): every block loads in one cycle, when
        // all are idle; the CRC check's flush waits until the front (realigner, delineator)
        // has passed on everything taken.
        for k in 0..self.ctx_load.len() {
            self.realigner.ctx_in[k].next = self.ctx_realign_in[k].val();
            self.delineator.ctx_walk_in[k].next = self.ctx_walk_in[k].val();
            self.delineator.ctx_cut_in[k].next = self.ctx_cut_in[k].val();
            self.delineator.ctx_words_in[k].next = self.ctx_cut_words_in[k].val();
            self.crc.ctx_in[k].next = self.ctx_crc_in[k].val();
            self.stripper.ctx_in[k].next = self.ctx_strip_in[k].val();
            self.stripper.ctx_words_in[k].next = self.ctx_strip_words_in[k].val();
            self.ctx_realign_out[k].next = self.realigner.ctx_out[k].val();
            self.ctx_walk_out[k].next = self.delineator.ctx_walk_out[k].val();
            self.ctx_cut_out[k].next = self.delineator.ctx_cut_out[k].val();
            self.ctx_cut_words_out[k].next = self.delineator.ctx_words_out[k].val();
            self.ctx_crc_out[k].next = self.crc.ctx_out[k].val();
            self.ctx_strip_out[k].next = self.stripper.ctx_out[k].val();
            self.ctx_strip_words_out[k].next = self.stripper.ctx_words_out[k].val();
            self.ctx_end_out[k].next = self.acc.q.val();
            self.flush_req[k].clock.next = self.clock.val();
            self.flush_req[k].d.next = self.flush_req[k].q.val() | self.ctx_flush[k].val();
            // The flush reaches the CRC check a cycle after the front is seen empty, from a
            // register (nothing taken in that cycle can reach the check before it).
            self.flush_go[k].next = (self.flush_req[k].q.val() | self.ctx_flush[k].val())
                & self.realigner.ctx_idle[k].val()
                & !self.delineator.busy.val()
                & !self.flush_gq[k].q.val();
            self.flush_gq[k].clock.next = self.clock.val();
            self.flush_gq[k].d.next = self.flush_go[k].val();
            self.crc.ctx_flush[k].next = self.flush_gq[k].q.val();
            if self.flush_go[k].val() {
                self.flush_req[k].d.next = false;
            }
            self.chain_idle[k].next = self.realigner.ctx_idle[k].val()
                & !self.delineator.busy.val()
                & self.crc.ctx_idle[k].val()
                & self.stripper.ctx_idle[k].val()
                & !self.flush_req[k].q.val()
                & !self.flush_gq[k].q.val();
            // Registered: the path was idle in the last cycle and nothing went in, so it is
            // still idle (nothing inside moves without input). This keeps the blocks' idle
            // logic out of the path's load enable (each block still gates its own load with
            // its idle, now redundantly).
            self.idle_q[k].clock.next = self.clock.val();
            self.idle_q[k].d.next =
                self.chain_idle[k].val() & !self.s_axis.valid.val() & !self.ctx_flush[k].val();
            self.ctx_idle[k].next = self.idle_q[k].q.val();
            self.load_now[k].next = self.ctx_load[k].val() & self.idle_q[k].q.val();
            self.realigner.ctx_load[k].next = self.load_now[k].val();
            self.delineator.ctx_load[k].next = self.load_now[k].val();
            self.crc.ctx_load[k].next = self.load_now[k].val();
            self.stripper.ctx_load[k].next = self.load_now[k].val();
            if self.ctx_load[k].val() {
                self.realigner.s_axis.valid.next = false;
                self.s_axis.ready.next = false;
            }
            if self.load_now[k].val() {
                self.acc.d.next = self.ctx_end_in[k].val();
            }
            if self.rst.val() {
                self.flush_req[k].d.next = false;
                self.flush_gq[k].d.next = false;
                self.idle_q[k].d.next = false;
            }
        }
        if self.rst.val() {
            self.acc.d.next = 0.into();
        }
    }
}
