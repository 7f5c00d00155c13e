//! `MpaRxTable`: `mpa_rx` for up to 16 connections, their context records in tables (DESIGN,
//! "Connection state is explicit"; RFC 5044 Appendix B.2, sections 6 and 8).
//!
//! TCP payload segments of many connections arrive interleaved, each tagged with its
//! connection. [`super::mpa_rx_ctx::MpaRxCtx`] (the verification path and a release region per
//! connection) serves one connection at a time; this block keeps every connection's records
//! (the nine parts of `MpaRxCtx`: 322 bits plus 16W of held words and lanes) and settings in
//! tables of distributed RAM, 16 entries each, and swaps them as [`super::realign_table::RxRealignerTable`]
//! does for the realigner alone: when a segment's connection is not the one loaded, its first
//! beat waits; the path is flushed if it is not idle already (the CRC check ends the open
//! FPDU's piece); once it is idle the switch is armed (the segment's connection's settings
//! read into a register), and in the next cycle the records the path holds are written back
//! and the segment's connection's read (asynchronously) and loaded, with its settings.
//! Segments of the connection loaded pass without a switch. Verified ULPDUs leave tagged with
//! their connection, in each connection's order, while others are served. The host opens a
//! connection with its start, Marker origin and settings (the MPA negotiation's outcome,
//! section 7.1): the block builds its records.
//!
//! ```text
//!  s_axis (conn) ─► [first beat of another connection waits: flush, idle, arm, swap] ─► MpaRxCtx ─► m_axis, m_conn
//!                    ▲ records + settings: 10 LutRam tables x 16 ◄── fresh records ◄── tbl_* (host opens)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (no connection loaded; the tables keep their contents) |
//! | `tbl_we`, `tbl_conn` | in | 1, 4 | open connection `tbl_conn` this cycle: a new stream, with the start and settings below |
//! | `tbl_seq`, `tbl_origin` | in | 32, 32 | the sequence number of its stream's first octet (an FPDU's first octet) and of its Marker origin; the block builds every record's fresh value from them (`RealignCtx`, `WalkCtx`, `CutCtx::fresh`; the other path parts 0). The release buffer's record is the block's own: [`RelCtx::fresh`] for a connection's first open after `rst`, after that [`RelCtx::renew`] of its region's last (its ULPDUs queued still leave, its open ULPDU is dropped) |
//! | `tbl_markers`, `tbl_crc_on`, `tbl_max_ulpdu` | in | 1, 1, 16 | its settings: Markers expected, CRCs checked, the largest ULPDU_Length accepted (clamped to a region's [`MpaRxTable::max_ulpdu`]) |
//! | `s_axis` | in | 8W | TCP payload segments in each connection's sequence order, [`RxConnSegmentUser`]: `[31:0]` sequence number, `[32]` FIN, `[36:33]` the connection (the same on every beat of a segment) |
//! | `m_axis`, `m_conn` | out | 8W, 4 | ULPDUs and error packets as on `mpa_rx`, and their connection |
//! | `err_seq`, `err_crc`, `err_marker`, `dropped` | out | 1 | pulses as on `mpa_rx`, of the connection `err_conn` |
//! | `err_conn` | out | 4 | the connection loaded |
//! | `seq_gap`, `cfg_misaligned` | out | 1 | the connection loaded's, as on `mpa_rx` (from its realigner record: sticky since it was opened; its start not 4-octet aligned to its Marker origin); 0 while none is loaded |
//! | `switching` | out | 1 | a segment's first beat waits for a switch |
//!
//! A connection must be opened before its first segment, and again after `rst` (`rst` ends
//! every connection's stream: it empties the release buffer), with `rst` low; `rst` comes
//! between segments (a segment half taken is not resumed). Opening the connection loaded
//! takes effect from its next segment (the path's records held are then not written back; the
//! release buffer's is, renewed); switches wait while the port writes.
//!
//! ### Parameters
//! `W` bytes per beat, `B = 8W`, `A`: the release buffer's `2^A` beats, 16 regions.
//!
//! ### Latency and throughput
//! `MpaRxCtx`'s within a connection; a switch costs the path's drain and flush (the flush
//! asked for a cycle after the wait is seen, the path's idle a register), and two cycles (arm,
//! load): from a segment's first beat offered to its load, 26.7 to 37.2 cycles on average at
//! W = 4 to 64, at most 180 (at W = 4, where the drain waited for room in the old
//! connection's region; measured in `testbench/tests/mpa_rx_ctx.rs`).
//!
//! ### Reset
//! `rst` resets the path and forgets which connection is loaded (`err_conn` reads 0 until the
//! first switch); the tables are not cleared.

use crate::lutram::LutRam;
use crate::rx::cut_ctx::CutCtxFields;
use crate::rx::marker_stripper::RX_ULPDU_USER;
use crate::rx::mpa_rx_ctx::MpaRxCtx;
pub use crate::rx::mpa_rx_ctx::{RelCtx, REL_CTX_BITS};
use crate::rx::realign_ctx::RealignCtxFields;
use crate::rx::realign_table::RxConnSegmentUserFields;
pub use crate::rx::realign_table::{RxConnSegmentUser, CONN_BITS, RX_CONN_SEG_USER};
use crate::rx::realigner::RX_SEG_USER;
use crate::rx::release_regions::RelCtxFields;
use crate::rx::verify::{
    CRC_CTX_BITS, CUT_CTX_BITS, REALIGN_CTX_BITS, STRIP_CTX_BITS, WALK_CTX_BITS,
};
use crate::rx::walk_ctx::WalkCtxFields;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// A connection's settings, as the settings table holds them.
    ConnSettings, prefix conn_set, bits 18, {
        /// Markers expected.
        markers: Bit = 0,
        /// CRCs checked.
        crc: Bit = 1,
        /// The largest ULPDU_Length accepted.
        max_ulpdu: Bits<16> = 2,
    }
}

/// Regions of the release buffer: one per connection of the table.
pub const CONNECTIONS: usize = 1 << CONN_BITS;

/// `mpa_rx` for 16 connections; see the module documentation.
#[derive(LogicBlock)]
pub struct MpaRxTable<const W: usize, const B: usize, const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Open a connection: build its records, write its settings.
    pub tbl_we: Signal<In, Bit>,
    /// The connection opened.
    pub tbl_conn: Signal<In, Bits<CONN_BITS>>,
    /// The sequence number of the stream's first octet (an FPDU's first octet).
    pub tbl_seq: Signal<In, Bits<32>>,
    /// The sequence number of the stream's Marker origin (RFC 5044 section 5: the first octet
    /// of the connection's Full Operation Phase).
    pub tbl_origin: Signal<In, Bits<32>>,
    /// Its Markers setting.
    pub tbl_markers: Signal<In, Bit>,
    /// Its CRC setting.
    pub tbl_crc_on: Signal<In, Bit>,
    /// Its ULPDU_Length limit.
    pub tbl_max_ulpdu: Signal<In, Bits<16>>,
    /// Segments, tagged with their connection.
    pub s_axis: StreamSink<W, B, RX_CONN_SEG_USER>,
    /// Verified ULPDUs and error packets.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// Their connection.
    pub m_conn: Signal<Out, Bits<CONN_BITS>>,
    /// Pulse: a segment beyond the next expected octet was dropped.
    pub err_seq: Signal<Out, Bit>,
    /// Pulse: an FPDU failed the CRC check.
    pub err_crc: Signal<Out, Bit>,
    /// Pulse: an FPDU rejected for its FPDUPTR.
    pub err_marker: Signal<Out, Bit>,
    /// Pulse: a bad ULPDU was dropped.
    pub dropped: Signal<Out, Bit>,
    /// The connection loaded (of the pulses).
    pub err_conn: Signal<Out, Bits<CONN_BITS>>,
    /// The connection loaded's sticky gap flag (`err_seq` pulsed since it was opened).
    pub seq_gap: Signal<Out, Bit>,
    /// The connection loaded's start is not 4-octet aligned to its Marker origin.
    pub cfg_misaligned: Signal<Out, Bit>,
    /// A segment's first beat waits for a switch.
    pub switching: Signal<Out, Bit>,
    core: MpaRxCtx<W, B, A>,
    t_realign: LutRam<REALIGN_CTX_BITS, CONN_BITS>,
    t_walk: LutRam<WALK_CTX_BITS, CONN_BITS>,
    t_cut: LutRam<CUT_CTX_BITS, CONN_BITS>,
    t_cut_words: LutRam<B, CONN_BITS>,
    t_crc: LutRam<CRC_CTX_BITS, CONN_BITS>,
    t_strip: LutRam<STRIP_CTX_BITS, CONN_BITS>,
    t_strip_words: LutRam<B, CONN_BITS>,
    t_end: LutRam<32, CONN_BITS>,
    t_rel: LutRam<REL_CTX_BITS, CONN_BITS>,
    t_set: LutRam<18, CONN_BITS>,
    // The connection loaded (valid: its records are to be written back), whether a segment
    // has begun at the input, whether this switch's flush was asked for, and the settings.
    cur: DFF<Bits<CONN_BITS>>,
    cur_v: DFF<Bit>,
    in_seg: DFF<Bit>,
    flushed: DFF<Bit>,
    flush_q: DFF<Bit>,
    set_q: DFF<Bits<18>>,
    // A switch is armed (the path idle, the head's settings read into `set_q`): it loads in
    // the next cycle.
    arm: DFF<Bit>,
    // The host opened the connection loaded again while its records were live: the release
    // buffer's is written back renewed at the next switch (the others are not written back).
    // And the connections opened since `rst` (one bit each): a first open gives a fresh record.
    stale: DFF<Bit>,
    used: DFF<Bits<16>>,
    live: Signal<Local, Bit>,
    t_we_rel: Signal<Local, Bit>,
    rel_live: Signal<Local, Bits<REL_CTX_BITS>>,
    rel_tab: Signal<Local, Bits<REL_CTX_BITS>>,
    rel_host: Signal<Local, Bits<REL_CTX_BITS>>,
    head_conn: Signal<Local, Bits<CONN_BITS>>,
    pass: Signal<Local, Bit>,
    head_waits: Signal<Local, Bit>,
    switch: Signal<Local, Bit>,
    arming: Signal<Local, Bit>,
    t_we: Signal<Local, Bit>,
    t_addr: Signal<Local, Bits<CONN_BITS>>,
    set_in: Signal<Local, Bits<18>>,
    delta: Signal<Local, Bits<32>>,
    fresh_realign: Signal<Local, Bits<REALIGN_CTX_BITS>>,
    fresh_walk: Signal<Local, Bits<WALK_CTX_BITS>>,
    fresh_cut: Signal<Local, Bits<CUT_CTX_BITS>>,
}

impl<const W: usize, const B: usize, const A: usize> MpaRxTable<W, B, A> {
    /// Builds the block; panics with a message naming the rule if a parameter is illegal.
    pub fn new() -> Self {
        check_stream_params("MpaRxTable", W, B, RX_CONN_SEG_USER);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            tbl_we: Default::default(),
            tbl_conn: Default::default(),
            tbl_seq: Default::default(),
            tbl_origin: Default::default(),
            tbl_markers: Default::default(),
            tbl_crc_on: Default::default(),
            tbl_max_ulpdu: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            m_conn: Default::default(),
            err_seq: Default::default(),
            err_crc: Default::default(),
            err_marker: Default::default(),
            dropped: Default::default(),
            err_conn: Default::default(),
            seq_gap: Default::default(),
            cfg_misaligned: Default::default(),
            switching: Default::default(),
            core: MpaRxCtx::new(CONNECTIONS),
            t_realign: Default::default(),
            t_walk: Default::default(),
            t_cut: Default::default(),
            t_cut_words: Default::default(),
            t_crc: Default::default(),
            t_strip: Default::default(),
            t_strip_words: Default::default(),
            t_end: Default::default(),
            t_rel: Default::default(),
            t_set: Default::default(),
            cur: Default::default(),
            cur_v: Default::default(),
            in_seg: Default::default(),
            flushed: Default::default(),
            set_q: Default::default(),
            stale: Default::default(),
            used: Default::default(),
            live: Default::default(),
            t_we_rel: Default::default(),
            rel_live: Default::default(),
            rel_tab: Default::default(),
            rel_host: Default::default(),
            head_conn: Default::default(),
            pass: Default::default(),
            head_waits: Default::default(),
            switch: Default::default(),
            arming: Default::default(),
            t_we: Default::default(),
            t_addr: Default::default(),
            set_in: Default::default(),
            delta: Default::default(),
            fresh_realign: Default::default(),
            fresh_walk: Default::default(),
            fresh_cut: Default::default(),
            arm: Default::default(),
            flush_q: Default::default(),
        }
    }

    /// The largest ULPDU_Length accepted (a region's capacity).
    pub const fn max_ulpdu() -> usize {
        MpaRxCtx::<W, B, A>::max_ulpdu(CONNECTIONS)
    }
}

impl<const W: usize, const B: usize, const A: usize> Default for MpaRxTable<W, B, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for MpaRxTable<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cur, cur_v, in_seg, flushed, flush_q, set_q, stale, used, arm);
        self.core.clock.next = self.clock.val();
        self.core.rst.next = self.rst.val();
        // The path's own start settings are not used: every connection's records are loaded.
        self.core.cfg_seq.next = 0.into();
        self.core.cfg_origin.next = 0.into();
        self.core.cfg_markers.next = self.set_q.q.val().get_value_conn_set_markers();
        self.core.cfg_crc.next = self.set_q.q.val().get_value_conn_set_crc();
        self.core.cfg_max_ulpdu.next = self.set_q.q.val().get_value_conn_set_max_ulpdu();
        // A segment's first beat goes on only when its connection is the one loaded; the rest
        // of a begun segment always does. (A write through the port to the connection loaded,
        // in this very cycle, makes its segment wait: it goes on with the new records.)
        self.head_conn.next = self.s_axis.user.val().get_value_conn_seg_conn();
        self.pass.next = self.in_seg.q.val()
            | (self.cur_v.q.val()
                & (self.head_conn.val() == self.cur.q.val())
                & !(self.tbl_we.val() & (self.tbl_conn.val() == self.cur.q.val())));
        self.core.s_axis.data.next = self.s_axis.data.val();
        self.core.s_axis.keep.next = self.s_axis.keep.val();
        self.core.s_axis.user.next =
            bit_cast::<RX_SEG_USER, RX_CONN_SEG_USER>(self.s_axis.user.val());
        self.core.s_axis.last.next = self.s_axis.last.val();
        self.core.s_axis.valid.next = self.s_axis.valid.val() & self.pass.val();
        self.s_axis.ready.next = self.core.s_axis.ready.val() & self.pass.val();
        if self.s_axis.valid.val() & self.core.s_axis.ready.val() & self.pass.val() {
            self.in_seg.d.next = !self.s_axis.last.val();
        }
        // A switch: a first beat of another connection waits. The path is flushed once if it
        // is not idle. Once it is, with no table write from the port in this cycle (it has the
        // write ports), the switch is armed and the head's settings are read into `set_q`;
        // in the next cycle, still with no write, the records held are written back and the
        // head's read and loaded. (The path stays idle while armed: the head waits, so no beat
        // goes in, and no flush is asked for.) Arming a cycle ahead keeps the settings table
        // out of the path's settings.
        self.head_waits.next = self.s_axis.valid.val() & !self.pass.val();
        self.switching.next = self.head_waits.val();
        // The flush is asked for from a register (a cycle after the wait is seen; a flush
        // that finds the path idle by then ends nothing).
        self.flush_q.d.next = self.head_waits.val()
            & !self.core.ctx_idle[0].val()
            & !self.flushed.q.val()
            & !self.flush_q.q.val()
            & !self.rst.val();
        self.core.ctx_flush[0].next = self.flush_q.q.val();
        if self.flush_q.q.val() {
            self.flushed.d.next = true;
        }
        if !self.head_waits.val() {
            self.flushed.d.next = false;
        }
        // From registers and the port's write: the head armed for still waits (a valid beat
        // stays offered, and nothing that decides `pass` changed in the arming cycle), and
        // with `ctx_idle_0` (a register) in the switch, a switch is always a load. (A source
        // that withdrew a waiting beat would break AXI4-Stream: the switch would load the
        // connection its `tuser` then names, with the settings read a cycle before.)
        self.switch.next =
            self.arm.q.val() & self.core.ctx_idle[0].val() & !self.tbl_we.val() & !self.rst.val();
        self.arming.next = self.head_waits.val()
            & self.core.ctx_idle[0].val()
            & !self.flush_q.q.val()
            & !self.tbl_we.val()
            & !self.rst.val()
            & !self.switch.val();
        // The settings the path is given come from a register, loaded as the switch is armed
        // (so the path has them from the switch's cycle, as before; while armed the path is
        // idle and takes nothing, even when a write cancels the switch).
        self.arm.d.next = self.arming.val();
        if self.arming.val() {
            self.set_q.d.next = self.t_set.read_data.val();
        }
        self.core.ctx_load[0].next = self.switch.val();
        self.t_we.next = self.tbl_we.val() | (self.switch.val() & self.cur_v.q.val());
        self.t_addr.next = self.cur.q.val();
        if self.tbl_we.val() {
            self.t_addr.next = self.tbl_conn.val();
        }
        // A connection opened through the port: each record's fresh value (`RealignCtx`,
        // `WalkCtx`, `CutCtx::fresh`; every other part 0), from its start and Marker origin.
        self.delta.next = self.tbl_seq.val() - self.tbl_origin.val();
        self.fresh_realign.next = 0.into();
        self.fresh_realign.next.set_value_realign_ctx_exp_seq(self.tbl_seq.val());
        self.fresh_realign
            .next
            .set_value_realign_ctx_misaligned(self.delta.val().get_bits::<2>(0).any());
        self.fresh_walk.next = 0.into();
        self.fresh_walk.next.set_value_walk_ctx_bpos(self.delta.val().get_bits::<16>(2));
        self.fresh_walk.next.set_value_walk_ctx_ns(self.delta.val().get_bits::<16>(2));
        self.fresh_cut.next = 0.into();
        self.fresh_cut.next.set_value_cut_ctx_seq(self.tbl_seq.val());
        self.fresh_cut.next.set_value_cut_ctx_pos(self.delta.val().get_bits::<7>(2));
        self.t_realign.clock.next = self.clock.val();
        self.t_realign.read_address.next = self.head_conn.val();
        self.core.ctx_realign_in[0].next = self.t_realign.read_data.val();
        self.t_realign.write_enable.next = self.t_we.val();
        self.t_realign.write_address.next = self.t_addr.val();
        self.t_realign.write_data.next = self.core.ctx_realign_out[0].val();
        if self.tbl_we.val() {
            self.t_realign.write_data.next = self.fresh_realign.val();
        }
        self.t_walk.clock.next = self.clock.val();
        self.t_walk.read_address.next = self.head_conn.val();
        self.core.ctx_walk_in[0].next = self.t_walk.read_data.val();
        self.t_walk.write_enable.next = self.t_we.val();
        self.t_walk.write_address.next = self.t_addr.val();
        self.t_walk.write_data.next = self.core.ctx_walk_out[0].val();
        if self.tbl_we.val() {
            self.t_walk.write_data.next = self.fresh_walk.val();
        }
        self.t_cut.clock.next = self.clock.val();
        self.t_cut.read_address.next = self.head_conn.val();
        self.core.ctx_cut_in[0].next = self.t_cut.read_data.val();
        self.t_cut.write_enable.next = self.t_we.val();
        self.t_cut.write_address.next = self.t_addr.val();
        self.t_cut.write_data.next = self.core.ctx_cut_out[0].val();
        if self.tbl_we.val() {
            self.t_cut.write_data.next = self.fresh_cut.val();
        }
        self.t_cut_words.clock.next = self.clock.val();
        self.t_cut_words.read_address.next = self.head_conn.val();
        self.core.ctx_cut_words_in[0].next = self.t_cut_words.read_data.val();
        self.t_cut_words.write_enable.next = self.t_we.val();
        self.t_cut_words.write_address.next = self.t_addr.val();
        self.t_cut_words.write_data.next = self.core.ctx_cut_words_out[0].val();
        if self.tbl_we.val() {
            self.t_cut_words.write_data.next = 0.into();
        }
        self.t_crc.clock.next = self.clock.val();
        self.t_crc.read_address.next = self.head_conn.val();
        self.core.ctx_crc_in[0].next = self.t_crc.read_data.val();
        self.t_crc.write_enable.next = self.t_we.val();
        self.t_crc.write_address.next = self.t_addr.val();
        self.t_crc.write_data.next = self.core.ctx_crc_out[0].val();
        if self.tbl_we.val() {
            self.t_crc.write_data.next = 0.into();
        }
        self.t_strip.clock.next = self.clock.val();
        self.t_strip.read_address.next = self.head_conn.val();
        self.core.ctx_strip_in[0].next = self.t_strip.read_data.val();
        self.t_strip.write_enable.next = self.t_we.val();
        self.t_strip.write_address.next = self.t_addr.val();
        self.t_strip.write_data.next = self.core.ctx_strip_out[0].val();
        if self.tbl_we.val() {
            self.t_strip.write_data.next = 0.into();
        }
        self.t_strip_words.clock.next = self.clock.val();
        self.t_strip_words.read_address.next = self.head_conn.val();
        self.core.ctx_strip_words_in[0].next = self.t_strip_words.read_data.val();
        self.t_strip_words.write_enable.next = self.t_we.val();
        self.t_strip_words.write_address.next = self.t_addr.val();
        self.t_strip_words.write_data.next = self.core.ctx_strip_words_out[0].val();
        if self.tbl_we.val() {
            self.t_strip_words.write_data.next = 0.into();
        }
        self.t_end.clock.next = self.clock.val();
        self.t_end.read_address.next = self.head_conn.val();
        self.core.ctx_end_in[0].next = self.t_end.read_data.val();
        self.t_end.write_enable.next = self.t_we.val();
        self.t_end.write_address.next = self.t_addr.val();
        self.t_end.write_data.next = self.core.ctx_end_out[0].val();
        if self.tbl_we.val() {
            self.t_end.write_data.next = 0.into();
        }
        // The release buffer's record is the block's: renewed (RelCtx::renew: the open ULPDU
        // dropped, nothing ended) from the live one or the table's, fresh at a first write.
        self.live.next = self.cur_v.q.val() | self.stale.q.val();
        self.rel_live.next = self.core.ctx_rel_out[0].val();
        self.rel_live
            .next
            .set_value_rel_ctx_wr(self.core.ctx_rel_out[0].val().get_value_rel_ctx_start());
        self.rel_live.next.set_value_rel_ctx_dead(false);
        self.rel_tab.next = self.t_rel.read_data.val();
        self.rel_tab
            .next
            .set_value_rel_ctx_wr(self.t_rel.read_data.val().get_value_rel_ctx_start());
        self.rel_tab.next.set_value_rel_ctx_dead(false);
        self.rel_host.next = 0.into();
        self.rel_host.next.set_value_rel_ctx_conn(self.tbl_conn.val());
        if ((self.used.q.val() >> bit_cast::<16, CONN_BITS>(self.tbl_conn.val())) & 1).any() {
            self.rel_host.next = self.rel_tab.val();
            if self.live.val() & (self.tbl_conn.val() == self.cur.q.val()) {
                self.rel_host.next = self.rel_live.val();
            }
        }
        self.t_rel.clock.next = self.clock.val();
        self.t_rel.read_address.next = self.head_conn.val();
        self.core.ctx_rel_in[0].next = self.t_rel.read_data.val();
        if self.stale.q.val() & (self.head_conn.val() == self.cur.q.val()) {
            // Loaded again after a write: the record renewed is not in the table yet.
            self.core.ctx_rel_in[0].next = self.rel_live.val();
        }
        self.t_we_rel.next = self.tbl_we.val() | (self.switch.val() & self.live.val());
        self.t_rel.write_enable.next = self.t_we_rel.val();
        self.t_rel.write_address.next = self.t_addr.val();
        self.t_rel.write_data.next = self.core.ctx_rel_out[0].val();
        if self.stale.q.val() {
            self.t_rel.write_data.next = self.rel_live.val();
        }
        if self.tbl_we.val() {
            self.t_rel.read_address.next = self.tbl_conn.val();
            self.t_rel.write_data.next = self.rel_host.val();
            self.used.d.next = self.used.q.val()
                | (bit_cast::<16, 1>(1.into()) << bit_cast::<16, CONN_BITS>(self.tbl_conn.val()));
        }
        self.set_in.next = 0.into();
        self.set_in.next.set_value_conn_set_markers(self.tbl_markers.val());
        self.set_in.next.set_value_conn_set_crc(self.tbl_crc_on.val());
        self.set_in.next.set_value_conn_set_max_ulpdu(self.tbl_max_ulpdu.val());
        self.t_set.clock.next = self.clock.val();
        self.t_set.read_address.next = self.head_conn.val();
        self.t_set.write_enable.next = self.tbl_we.val();
        self.t_set.write_address.next = self.tbl_conn.val();
        self.t_set.write_data.next = self.set_in.val();
        if self.tbl_we.val() & (self.tbl_conn.val() == self.cur.q.val()) {
            // The records held are stale now: they are not written back (but the release
            // buffer's, renewed).
            self.cur_v.d.next = false;
            self.stale.d.next = self.live.val();
        }
        if self.switch.val() {
            self.cur.d.next = self.head_conn.val();
            self.cur_v.d.next = true;
            self.stale.d.next = false;
            self.flushed.d.next = false;
        }
        // Output and pulses.
        self.m_axis.data.next = self.core.m_axis.data.val();
        self.m_axis.keep.next = self.core.m_axis.keep.val();
        self.m_axis.user.next = self.core.m_axis.user.val();
        self.m_axis.last.next = self.core.m_axis.last.val();
        self.m_axis.valid.next = self.core.m_axis.valid.val();
        self.core.m_axis.ready.next = self.m_axis.ready.val();
        self.m_conn.next = self.core.m_conn.val();
        self.err_seq.next = self.core.err_seq.val();
        self.err_crc.next = self.core.err_crc.val();
        self.err_marker.next = self.core.err_marker.val();
        self.dropped.next = self.core.dropped.val();
        self.err_conn.next = self.cur.q.val();
        self.seq_gap.next = self.core.seq_gap.val() & self.cur_v.q.val();
        self.cfg_misaligned.next = self.core.cfg_misaligned.val() & self.cur_v.q.val();
        if self.rst.val() {
            self.cur.d.next = 0.into();
            self.cur_v.d.next = false;
            self.in_seg.d.next = false;
            self.flushed.d.next = false;
            self.stale.d.next = false;
            self.used.d.next = 0.into();
            self.arm.d.next = false;
        }
    }
}
