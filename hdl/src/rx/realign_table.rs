//! `RxRealignerTable`: one [`RxRealigner`] serving up to 16 connections, their context records
//! in a table.
//!
//! DESIGN, "Connection state is explicit", and RFC 5044 Appendix B.2 (the flow-through
//! receiver keeps, per connection, the stream position and what is left of the last word, not
//! the data): TCP segments of many connections arrive interleaved, each tagged with its
//! connection; the realigner's [`RealignCtx`] record of each connection lives in a table of
//! distributed RAM (16 entries of 61 bits). When a segment's connection is not the one the
//! realigner holds, the input waits until the realigner is idle (`ctx_idle`), the record it
//! holds is written back, the segment's connection's record is read and loaded, and the segment
//! goes on. Segments of the same connection back to back pass without a switch.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (no connection loaded; the table keeps its contents) |
//! | `tbl_we`, `tbl_conn`, `tbl_rec` | in | 1, 4, 61 | write record `tbl_rec` for connection `tbl_conn` (a connection's first record is [`RealignCtx::fresh`]); a write to the connection loaded takes effect from its next segment whose first beat is offered in the write's cycle or later (a segment begun goes on with the old record), and the record loaded is then not written back; switches wait while the port writes |
//! | `s_axis` | in | 8W | segments as the realigner takes them, [`RxConnSegmentUser`]: `[31:0]` sequence number, `[32]` FIN, `[36:33]` connection (the same on every beat of a segment); `s_axis_tready` depends on the offered beat's connection (a 4-bit comparison with a register) |
//! | `m_axis` | out | 8W | the realigner's words, [`RxConnWordUser`]: `[0]` FIN, `[1]` octets lost, `[5:2]` the connection |
//! | `err_seq`, `err_conn` | out | 1, 4 | pulse: a segment of connection `err_conn` beyond its next expected octet was dropped (its record's `gap` stays set) |
//! | `busy` | out | 1 | the realigner's `busy` |
//!
//! Every connection's record must be written before its first segment (the table's contents
//! are undefined until then), and again after `rst`: the record of the connection loaded at
//! `rst` is not written back, so its entry is as old as its last load.
//!
//! ### Parameters, latency, throughput
//! `W` bytes per beat (4 to 64), `B = 8W`. The realigner's latency and rate within a
//! connection; a switch between connections costs the realigner's drain (its last segment's
//! words out, at most 8 cycles after that segment's last beat without backpressure, mostly 2
//! to 5) and one cycle for the load. The table write and read are distributed RAM
//! (`LutRam`, asynchronous read).
//!
//! ### Reset
//! `rst` resets the realigner and forgets which connection it holds; the table is not cleared.

use crate::lutram::LutRam;
use crate::rx::realign_ctx::REALIGN_CTX_BITS;
use crate::rx::realigner::RxRealigner;
use crate::sideband::{RX_SEG_USER, RX_WORD_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

pub use crate::rx::realign_ctx::RealignCtx;

/// Address bits of the record table (16 connections).
pub const CONN_BITS: usize = 4;

crate::sideband::sideband! {
    /// A segment of one of the connections: [`crate::sideband::RxSegmentUser`] and the
    /// connection.
    RxConnSegmentUser, prefix conn_seg, bits 37, {
        /// Sequence number of the segment's first octet.
        seq: Bits<32> = 0,
        /// The stream ends after this segment.
        fin: Bit = 32,
        /// The segment's connection (0 to 15).
        conn: Bits<4> = RX_SEG_USER,
    }
}

crate::sideband::sideband! {
    /// The realigner's words ([`crate::sideband::RxWordUser`]) and their connection.
    RxConnWordUser, prefix conn_word, bits 6, {
        /// The stream ends after this beat.
        fin: Bit = 0,
        /// It ended inside a word (octets lost).
        lost: Bit = 1,
        /// The connection.
        conn: Bits<4> = RX_WORD_USER,
    }
}

/// Width of [`RxConnSegmentUser`].
pub const RX_CONN_SEG_USER: usize = RxConnSegmentUser::BITS;
/// Width of [`RxConnWordUser`].
pub const RX_CONN_WORD_USER: usize = RxConnWordUser::BITS;

/// The realigner and its record table; see the module documentation.
#[derive(LogicBlock)]
pub struct RxRealignerTable<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Write a record into the table.
    pub tbl_we: Signal<In, Bit>,
    /// The connection whose record is written.
    pub tbl_conn: Signal<In, Bits<CONN_BITS>>,
    /// The record written.
    pub tbl_rec: Signal<In, Bits<REALIGN_CTX_BITS>>,
    /// Segments, tagged with their connection.
    pub s_axis: StreamSink<W, B, RX_CONN_SEG_USER>,
    /// Words, tagged with their connection.
    pub m_axis: StreamSource<W, B, RX_CONN_WORD_USER>,
    /// Pulse: a segment beyond its connection's next expected octet was dropped.
    pub err_seq: Signal<Out, Bit>,
    /// The connection of that segment.
    pub err_conn: Signal<Out, Bits<CONN_BITS>>,
    /// A beat taken is still inside the realigner.
    pub busy: Signal<Out, Bit>,
    core: RxRealigner<W, B>,
    records: LutRam<REALIGN_CTX_BITS, CONN_BITS>,
    // The connection whose record the realigner holds (valid: one is loaded and its record
    // is to be written back), and whether a segment has begun at the input.
    cur: DFF<Bits<CONN_BITS>>,
    cur_v: DFF<Bit>,
    in_seg: DFF<Bit>,
    head_conn: Signal<Local, Bits<CONN_BITS>>,
    pass: Signal<Local, Bit>,
    switch: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> RxRealignerTable<W, B> {
    /// Builds the block; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxRealignerTable", W, B, RX_CONN_SEG_USER);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            tbl_we: Default::default(),
            tbl_conn: Default::default(),
            tbl_rec: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            err_seq: Default::default(),
            err_conn: Default::default(),
            busy: Default::default(),
            core: RxRealigner::with_context(),
            records: Default::default(),
            cur: Default::default(),
            cur_v: Default::default(),
            in_seg: Default::default(),
            head_conn: Default::default(),
            pass: Default::default(),
            switch: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for RxRealignerTable<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxRealignerTable<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cur, cur_v, in_seg);
        self.core.clock.next = self.clock.val();
        self.core.rst.next = self.rst.val();
        self.records.clock.next = self.clock.val();
        // The realigner's own start settings are not used: every connection's record is loaded.
        self.core.cfg_seq.next = 0.into();
        self.core.cfg_origin.next = 0.into();
        // A segment's first beat goes on only when its connection is the one loaded; the rest
        // of a begun segment always does.
        self.head_conn.next = self.s_axis.user.val().get_value_conn_seg_conn();
        // (A record written through the port for the connection loaded, in this very cycle,
        // makes its segment wait: it goes on with the new record, after a switch.)
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
        // A switch: a first beat of another connection waits, the realigner idle, no table
        // write from the port in this cycle (it has the write port). The record held is
        // written back, the head's read (asynchronously) and loaded.
        self.switch.next = self.s_axis.valid.val()
            & !self.pass.val()
            & self.core.ctx_idle[0].val()
            & !self.tbl_we.val();
        self.records.read_address.next = self.head_conn.val();
        self.core.ctx_in[0].next = self.records.read_data.val();
        self.core.ctx_load[0].next = self.switch.val();
        self.records.write_enable.next =
            self.tbl_we.val() | (self.switch.val() & self.cur_v.q.val());
        self.records.write_address.next = self.cur.q.val();
        self.records.write_data.next = self.core.ctx_out[0].val();
        if self.tbl_we.val() {
            self.records.write_address.next = self.tbl_conn.val();
            self.records.write_data.next = self.tbl_rec.val();
            // The record held is stale now: it is not written back.
            if self.tbl_conn.val() == self.cur.q.val() {
                self.cur_v.d.next = false;
            }
        }
        if self.switch.val() {
            self.cur.d.next = self.head_conn.val();
            self.cur_v.d.next = true;
        }
        // Words out, tagged with the connection loaded (a switch waits until they have gone).
        self.m_axis.data.next = self.core.m_axis.data.val();
        self.m_axis.keep.next = self.core.m_axis.keep.val();
        self.m_axis.last.next = self.core.m_axis.last.val();
        self.m_axis.valid.next = self.core.m_axis.valid.val();
        self.core.m_axis.ready.next = self.m_axis.ready.val();
        self.m_axis.user.next =
            bit_cast::<RX_CONN_WORD_USER, RX_WORD_USER>(self.core.m_axis.user.val());
        self.m_axis.user.next.set_value_conn_word_conn(self.cur.q.val());
        self.err_seq.next = self.core.err_seq.val();
        self.err_conn.next = self.cur.q.val();
        self.busy.next = self.core.busy.val();
        if self.rst.val() {
            self.cur_v.d.next = false;
            self.in_seg.d.next = false;
        }
    }
}
