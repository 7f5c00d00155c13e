//! `MpaRxCtx`: the receive datapath of `mpa_rx` serving several connections, every block's
//! per-connection state in context records (DESIGN, "Connection state is explicit"; RFC 5044
//! Appendix B.2, sections 6 and 8).
//!
//! ```text
//!  s_axis ─► RxVerify::with_context ─► RxReleaseRegions ─► m_axis, m_conn
//!  (one connection's segments      (a region per connection:
//!   between switches)               its ULPDUs leave in its order, verified)
//! ```
//!
//! A controller in front sends one connection's segments (in sequence order, as for
//! [`super::mpa_rx::MpaRx`]), then, to serve another: asserts `ctx_flush_0` (the CRC check ends
//! the open FPDU's piece), waits for `ctx_idle_0` (a register: the path was idle in the last
//! cycle, with nothing offered or flushed), reads every `ctx_*_out_0` part into its table
//! and, in one cycle, writes the next connection's parts to `ctx_*_in_0` with `ctx_load_0` high
//! and its `cfg_markers`, `cfg_crc`, `cfg_max_ulpdu`. A connection's first records are each
//! record's `fresh` (or default) value, the release buffer's [`RelCtx::fresh`] naming its
//! connection (and region, below `regions`) after `rst`, or [`RelCtx::renew`] of the last
//! record of a region used before. Verified ULPDUs leave in each connection's order, tagged `m_conn`,
//! while other connections are served; an error ends only its own connection (section 8).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq`, `cfg_origin` | in | 32 | loaded at `rst` for the blocks (the records hold every connection's positions: load one before the first segment) |
//! | `cfg_markers`, `cfg_crc` | in | 1 | the connection served: Markers expected, CRCs checked |
//! | `cfg_max_ulpdu` | in | 16 | the connection served: the largest ULPDU_Length accepted; clamped to a region's [`MpaRxCtx::max_ulpdu`] |
//! | `s_axis` | in | 8W | the connection's TCP payload segments, as on `mpa_rx` |
//! | `m_axis`, `m_conn` | out | 8W, 4 | ULPDUs and error packets as on `mpa_rx`, and their connection |
//! | `err_seq`, `seq_gap`, `err_crc`, `err_marker`, `dropped`, `cfg_misaligned` | out | 1 | as on `mpa_rx`, for the connection served |
//! | `ctx_<part>_in_0`, `ctx_<part>_out_0` | in, out | | the records: `realign`, `walk`, `cut`, `cut_words`, `crc`, `strip`, `strip_words`, `end` ([`super::verify::RxVerify::with_context`]) and `rel` ([`RelCtx`]) |
//! | `ctx_load_0`, `ctx_flush_0`, `ctx_idle_0` | in, in, out | 1 | load every part (honoured while idle), end the open FPDU's CRC piece, every `_out_0` part is final |
//!
//! ### Parameters
//! `W` bytes per beat, `B = 8W`, `A` release buffer address bits; `regions` (constructor): the
//! connections (1 to 16, a power of two), each with `2^A / regions` beats of the buffer.
//!
//! ### Latency and throughput
//! `mpa_rx`'s within a connection, plus one cycle (the release buffer's four cycles instead of
//! three); a switch costs the verification path's drain (`testbench/tests/mpa_rx_ctx.rs`
//! measures it).

use crate::rx::marker_stripper::RX_ULPDU_USER;
use crate::rx::realigner::RX_SEG_USER;
use crate::rx::release_regions::RxReleaseRegions;
pub use crate::rx::release_regions::{RelCtx, REL_CTX_BITS};
use crate::rx::verify::RxVerify;
use crate::rx::verify::{
    CRC_CTX_BITS, CUT_CTX_BITS, REALIGN_CTX_BITS, STRIP_CTX_BITS, WALK_CTX_BITS,
};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The receive datapath for several connections; see the module documentation.
#[derive(LogicBlock)]
pub struct MpaRxCtx<const W: usize, const B: usize, const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number loaded at `rst`.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Marker origin loaded at `rst`.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers expected (the connection served).
    pub cfg_markers: Signal<In, Bit>,
    /// CRCs checked (the connection served).
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted (the connection served).
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// TCP payload segments of the connection served.
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// Verified ULPDUs and error packets.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// The connection of the packet on `m_axis`.
    pub m_conn: Signal<Out, Bits<4>>,
    /// Pulse: a segment beyond the next expected octet was dropped.
    pub err_seq: Signal<Out, Bit>,
    /// Sticky: `err_seq` pulsed (the realigner's record keeps it per connection).
    pub seq_gap: Signal<Out, Bit>,
    /// Pulse: an FPDU failed the CRC check.
    pub err_crc: Signal<Out, Bit>,
    /// Pulse: an FPDU rejected for its FPDUPTR.
    pub err_marker: Signal<Out, Bit>,
    /// Pulse: a bad ULPDU was dropped.
    pub dropped: Signal<Out, Bit>,
    /// The stream position is not a multiple of 4.
    pub cfg_misaligned: Signal<Out, Bit>,
    /// A connection's realigner record ([`RealignCtx`]) (one entry).
    pub ctx_realign_in: Vec<Signal<In, Bits<REALIGN_CTX_BITS>>>,
    /// A connection's walker record ([`WalkCtx`]) (one entry).
    pub ctx_walk_in: Vec<Signal<In, Bits<WALK_CTX_BITS>>>,
    /// A connection's cutter record ([`CutCtx`]) (one entry).
    pub ctx_cut_in: Vec<Signal<In, Bits<CUT_CTX_BITS>>>,
    /// A connection's cutter's held words (one entry).
    pub ctx_cut_words_in: Vec<Signal<In, Bits<B>>>,
    /// A connection's CRC check record ([`CrcCtx`]) (one entry).
    pub ctx_crc_in: Vec<Signal<In, Bits<CRC_CTX_BITS>>>,
    /// A connection's Marker stripper record ([`StripCtx`]) (one entry).
    pub ctx_strip_in: Vec<Signal<In, Bits<STRIP_CTX_BITS>>>,
    /// A connection's stripper's held lanes (one entry).
    pub ctx_strip_words_in: Vec<Signal<In, Bits<B>>>,
    /// A connection's octets of the open FPDU packet past the CRC check (one entry).
    pub ctx_end_in: Vec<Signal<In, Bits<32>>>,
    /// A connection's release buffer record ([`RelCtx`]; one entry).
    pub ctx_rel_in: Vec<Signal<In, Bits<REL_CTX_BITS>>>,
    /// The realigner record ([`RealignCtx`]) of the connection served (one entry).
    pub ctx_realign_out: Vec<Signal<Out, Bits<REALIGN_CTX_BITS>>>,
    /// The walker record ([`WalkCtx`]) of the connection served (one entry).
    pub ctx_walk_out: Vec<Signal<Out, Bits<WALK_CTX_BITS>>>,
    /// The cutter record ([`CutCtx`]) of the connection served (one entry).
    pub ctx_cut_out: Vec<Signal<Out, Bits<CUT_CTX_BITS>>>,
    /// The cutter's held words of the connection served (one entry).
    pub ctx_cut_words_out: Vec<Signal<Out, Bits<B>>>,
    /// The CRC check record ([`CrcCtx`]) of the connection served (one entry).
    pub ctx_crc_out: Vec<Signal<Out, Bits<CRC_CTX_BITS>>>,
    /// The Marker stripper record ([`StripCtx`]) of the connection served (one entry).
    pub ctx_strip_out: Vec<Signal<Out, Bits<STRIP_CTX_BITS>>>,
    /// The stripper's held lanes of the connection served (one entry).
    pub ctx_strip_words_out: Vec<Signal<Out, Bits<B>>>,
    /// The octets of the open FPDU packet past the CRC check of the connection served (one entry).
    pub ctx_end_out: Vec<Signal<Out, Bits<32>>>,
    /// The release buffer record of the connection served (one entry).
    pub ctx_rel_out: Vec<Signal<Out, Bits<REL_CTX_BITS>>>,
    /// Load every part now (honoured while `ctx_idle_0` is high; no beat is taken in its cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// End the open FPDU's CRC piece (a request kept until the path has drained into it).
    pub ctx_flush: Vec<Signal<In, Bit>>,
    /// Every `_out_0` part is final: nothing of the connection is inside the verification path.
    pub ctx_idle: Vec<Signal<Out, Bit>>,
    verify: RxVerify<W, B>,
    rel_buf: RxReleaseRegions<W, B, A>,
    c_limit: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> MpaRxCtx<W, B, A> {
    /// Builds the datapath for `regions` connections; panics with a message naming the rule if
    /// a parameter is illegal.
    pub fn new(regions: usize) -> Self {
        fn one<T: Default>() -> Vec<T> {
            vec![T::default()]
        }
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
            m_conn: Default::default(),
            err_seq: Default::default(),
            seq_gap: Default::default(),
            err_crc: Default::default(),
            err_marker: Default::default(),
            dropped: Default::default(),
            cfg_misaligned: Default::default(),
            ctx_realign_in: one(),
            ctx_realign_out: one(),
            ctx_walk_in: one(),
            ctx_walk_out: one(),
            ctx_cut_in: one(),
            ctx_cut_out: one(),
            ctx_cut_words_in: one(),
            ctx_cut_words_out: one(),
            ctx_crc_in: one(),
            ctx_crc_out: one(),
            ctx_strip_in: one(),
            ctx_strip_out: one(),
            ctx_strip_words_in: one(),
            ctx_strip_words_out: one(),
            ctx_end_in: one(),
            ctx_end_out: one(),
            ctx_rel_in: one(),
            ctx_rel_out: one(),
            ctx_load: one(),
            ctx_flush: one(),
            ctx_idle: one(),
            verify: RxVerify::with_context(),
            rel_buf: RxReleaseRegions::new(regions),
            c_limit: Constant::new((Self::max_ulpdu(regions) as u64).into()),
        }
    }

    /// The largest ULPDU_Length accepted with `regions` regions (a region's capacity).
    pub const fn max_ulpdu(regions: usize) -> usize {
        RxReleaseRegions::<W, B, A>::max_ulpdu(regions)
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for MpaRxCtx<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.verify.clock.next = self.clock.val();
        self.rel_buf.clock.next = self.clock.val();
        self.verify.rst.next = self.rst.val();
        self.rel_buf.rst.next = self.rst.val();
        // Settings.
        self.verify.cfg_seq.next = self.cfg_seq.val();
        self.verify.cfg_origin.next = self.cfg_origin.val();
        self.verify.cfg_markers.next = self.cfg_markers.val();
        self.verify.cfg_crc.next = self.cfg_crc.val();
        self.verify.cfg_max_ulpdu.next = self.cfg_max_ulpdu.val();
        if self.cfg_max_ulpdu.val() > self.c_limit.val() {
            self.verify.cfg_max_ulpdu.next = self.c_limit.val();
        }
        // s_axis -> verification path -> release buffer -> m_axis.
        self.verify.s_axis.data.next = self.s_axis.data.val();
        self.verify.s_axis.keep.next = self.s_axis.keep.val();
        self.verify.s_axis.user.next = self.s_axis.user.val();
        self.verify.s_axis.last.next = self.s_axis.last.val();
        self.verify.s_axis.valid.next = self.s_axis.valid.val() & !self.rst.val();
        self.s_axis.ready.next = self.verify.s_axis.ready.val() & !self.rst.val();
        self.rel_buf.s_axis.data.next = self.verify.m_axis.data.val();
        self.rel_buf.s_axis.keep.next = self.verify.m_axis.keep.val();
        self.rel_buf.s_axis.user.next = self.verify.m_axis.user.val();
        self.rel_buf.s_axis.last.next = self.verify.m_axis.last.val();
        self.rel_buf.s_axis.valid.next = self.verify.m_axis.valid.val();
        self.verify.m_axis.ready.next = self.rel_buf.s_axis.ready.val();
        self.m_axis.data.next = self.rel_buf.m_axis.data.val();
        self.m_axis.keep.next = self.rel_buf.m_axis.keep.val();
        self.m_axis.user.next = self.rel_buf.m_axis.user.val();
        self.m_axis.last.next = self.rel_buf.m_axis.last.val();
        self.m_axis.valid.next = self.rel_buf.m_axis.valid.val() & !self.rst.val();
        self.rel_buf.m_axis.ready.next = self.m_axis.ready.val() & !self.rst.val();
        self.m_conn.next = self.rel_buf.m_conn.val();
        // Status.
        self.err_seq.next = self.verify.err_seq.val() & !self.rst.val();
        self.seq_gap.next = self.verify.seq_gap.val() & !self.rst.val();
        self.err_crc.next = self.verify.err_crc.val() & !self.rst.val();
        self.err_marker.next = self.verify.err_marker.val() & !self.rst.val();
        self.dropped.next = self.rel_buf.dropped.val() & !self.rst.val();
        self.cfg_misaligned.next = self.verify.cfg_misaligned.val();
        // Records: the release buffer loads with the path (it is idle whenever the path is:
        // a beat is written in the cycle it is taken).
        self.verify.ctx_realign_in[0].next = self.ctx_realign_in[0].val();
        self.ctx_realign_out[0].next = self.verify.ctx_realign_out[0].val();
        self.verify.ctx_walk_in[0].next = self.ctx_walk_in[0].val();
        self.ctx_walk_out[0].next = self.verify.ctx_walk_out[0].val();
        self.verify.ctx_cut_in[0].next = self.ctx_cut_in[0].val();
        self.ctx_cut_out[0].next = self.verify.ctx_cut_out[0].val();
        self.verify.ctx_cut_words_in[0].next = self.ctx_cut_words_in[0].val();
        self.ctx_cut_words_out[0].next = self.verify.ctx_cut_words_out[0].val();
        self.verify.ctx_crc_in[0].next = self.ctx_crc_in[0].val();
        self.ctx_crc_out[0].next = self.verify.ctx_crc_out[0].val();
        self.verify.ctx_strip_in[0].next = self.ctx_strip_in[0].val();
        self.ctx_strip_out[0].next = self.verify.ctx_strip_out[0].val();
        self.verify.ctx_strip_words_in[0].next = self.ctx_strip_words_in[0].val();
        self.ctx_strip_words_out[0].next = self.verify.ctx_strip_words_out[0].val();
        self.verify.ctx_end_in[0].next = self.ctx_end_in[0].val();
        self.ctx_end_out[0].next = self.verify.ctx_end_out[0].val();
        self.rel_buf.ctx_in.next = self.ctx_rel_in[0].val();
        self.ctx_rel_out[0].next = self.rel_buf.ctx_out.val();
        self.verify.ctx_load[0].next = self.ctx_load[0].val();
        self.verify.ctx_flush[0].next = self.ctx_flush[0].val();
        self.ctx_idle[0].next = self.verify.ctx_idle[0].val();
        self.rel_buf.ctx_load.next = self.ctx_load[0].val() & self.verify.ctx_idle[0].val();
    }
}
