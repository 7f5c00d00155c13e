//! `MpaRxConns`: `mpa_rx` for 16 connections with its host interface on AXI4-Lite:
//! [`super::mpa_rx_table::MpaRxTable`] behind [`super::conn_regs::MpaRxConnRegs`] (RFC 5044
//! sections 5, 6, 7.1 and 8, Appendix B.2; DESIGN, "Connection state is explicit").
//!
//! TCP payload segments of up to 16 connections arrive interleaved on `s_axis`, each tagged
//! with its connection; verified ULPDUs (and error packets) leave on `m_axis` with theirs
//! (`m_conn`), in each connection's order. A driver opens a connection through the registers
//! ([`super::conn_regs::conn_reg`]: OPEN_SEQ, OPEN_ORIGIN, OPEN_SET, then OPEN) before its first
//! segment, and reads the connection loaded, per-connection gaps and error counters back.
//!
//! ```text
//!  s_axil ─► MpaRxConnRegs ─► tbl_* ─► MpaRxTable ◄─ StreamSkid ◄─ s_axis (conn)
//!                 ▲ pulses, status ◄───────┘ ─► m_axis, m_conn
//! ```
//!
//! The input slice (`inq`, a [`StreamSkid`]) keeps `s_axis_tready` a register: the table
//! decides a switch from the connection in the beat it is offered (its `ready` and `switching`
//! follow `s_axis_tuser` in the same cycle), which AXI4-Stream's convention (AXI A3.2.1 for
//! the AXI interfaces) does not allow across the block's boundary. Since stop 78; found by the
//! structural check `sim::tools::yosys_check_top` (`s_axis_tready <- s_axis_tuser`,
//! `switching <- s_axis_tvalid, s_axis_tuser`).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset: the path empty, no connection loaded, the registers to their defaults (every connection must be opened again) |
//! | `s_axil_*` | | | AXI4-Lite slave, 32-bit data, 8 address bits: [`super::conn_regs::conn_reg`] |
//! | `s_axis` | in | 8W | TCP payload segments in each connection's sequence order, [`super::mpa_rx_table::RxConnSegmentUser`]: `[31:0]` sequence number, `[32]` FIN, `[36:33]` the connection |
//! | `m_axis`, `m_conn` | out | 8W, 4 | ULPDUs and error packets as on `mpa_rx`, and their connection |
//! | `err_seq`, `err_crc`, `err_marker`, `dropped` | out | 1 | pulses as on `mpa_rx`, of the connection `err_conn` (also counted in the registers) |
//! | `err_conn`, `switching`, `seq_gap`, `cfg_misaligned` | out | 4, 1, 1, 1 | the connection loaded, a segment waiting for a switch, the loaded connection's flags (also in STATUS) |
//!
//! While `rst` is high no beat is taken (`s_axis_tready` low) and no AXI4-Lite handshake
//! happens (`awready`, `wready`, `bvalid`, `arready`, `rvalid` low).
//!
//! ### Parameters
//! `W` bytes per beat, `B = 8W`, `A`: the release buffer's `2^A` beats (16 regions).
//!
//! ### Latency and throughput
//! `MpaRxTable`'s and one cycle more (the input slice): `mpa_rx`'s within a connection, and a
//! switch between connections costs the path's drain and flush (26.7 to 37.2 cycles on average
//! at W = 4 to 64). One beat per cycle through the slice. Opening a
//! connection takes four register writes (three when OPEN_SET is the same as the last's),
//! each answered two cycles after it is offered.

use crate::axi::AxiLiteSlave;
use crate::rx::conn_regs::{conn_reg, MpaRxConnRegs};
use crate::rx::marker_stripper::RX_ULPDU_USER;
use crate::rx::mpa_rx_table::{MpaRxTable, CONN_BITS, RX_CONN_SEG_USER};
use crate::stream::{StreamSink, StreamSource};
use crate::stream_skid::StreamSkid;
use rust_hdl::prelude::*;

/// `mpa_rx` for 16 connections behind AXI4-Lite registers; see the module documentation.
#[derive(LogicBlock)]
pub struct MpaRxConns<const W: usize, const B: usize, const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The register map.
    pub s_axil: AxiLiteSlave<{ conn_reg::ADDR_BITS }>,
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
    /// A segment's first beat waits for a switch.
    pub switching: Signal<Out, Bit>,
    /// The connection loaded's sticky gap flag.
    pub seq_gap: Signal<Out, Bit>,
    /// The connection loaded's start is not 4-octet aligned to its Marker origin.
    pub cfg_misaligned: Signal<Out, Bit>,
    regs: MpaRxConnRegs<W>,
    inq: StreamSkid<W, B, RX_CONN_SEG_USER>,
    path: MpaRxTable<W, B, A>,
}

impl<const W: usize, const B: usize, const A: usize> MpaRxConns<W, B, A> {
    /// Builds the block; panics with a message naming the rule if a parameter is illegal.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axil: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            m_conn: Default::default(),
            err_seq: Default::default(),
            err_crc: Default::default(),
            err_marker: Default::default(),
            dropped: Default::default(),
            err_conn: Default::default(),
            switching: Default::default(),
            seq_gap: Default::default(),
            cfg_misaligned: Default::default(),
            regs: MpaRxConnRegs::new(MpaRxTable::<W, B, A>::max_ulpdu()),
            inq: StreamSkid::loading_while_empty(),
            path: MpaRxTable::new(),
        }
    }
}

impl<const W: usize, const B: usize, const A: usize> Default for MpaRxConns<W, B, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for MpaRxConns<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.regs.clock.next = self.clock.val();
        self.regs.rst.next = self.rst.val();
        self.inq.clock.next = self.clock.val();
        self.inq.rst.next = self.rst.val();
        self.path.clock.next = self.clock.val();
        self.path.rst.next = self.rst.val();
        // The AXI4-Lite slave, its handshakes held low in reset by the register block's port.
        AxiLiteSlave::<{ conn_reg::ADDR_BITS }>::link(&mut self.s_axil, &mut self.regs.s_axil);
        // The table's host port from the registers.
        self.path.tbl_we.next = self.regs.tbl_we.val() & !self.rst.val();
        self.path.tbl_conn.next = self.regs.tbl_conn.val();
        self.path.tbl_seq.next = self.regs.tbl_seq.val();
        self.path.tbl_origin.next = self.regs.tbl_origin.val();
        self.path.tbl_markers.next = self.regs.tbl_markers.val();
        self.path.tbl_crc_on.next = self.regs.tbl_crc_on.val();
        self.path.tbl_max_ulpdu.next = self.regs.tbl_max_ulpdu.val();
        // The datapath, through the input slice.
        self.inq.s_axis.data.next = self.s_axis.data.val();
        self.inq.s_axis.keep.next = self.s_axis.keep.val();
        self.inq.s_axis.user.next = self.s_axis.user.val();
        self.inq.s_axis.last.next = self.s_axis.last.val();
        self.inq.s_axis.valid.next = self.s_axis.valid.val() & !self.rst.val();
        self.s_axis.ready.next = self.inq.s_axis.ready.val() & !self.rst.val();
        self.path.s_axis.data.next = self.inq.m_axis.data.val();
        self.path.s_axis.keep.next = self.inq.m_axis.keep.val();
        self.path.s_axis.user.next = self.inq.m_axis.user.val();
        self.path.s_axis.last.next = self.inq.m_axis.last.val();
        self.path.s_axis.valid.next = self.inq.m_axis.valid.val();
        self.inq.m_axis.ready.next = self.path.s_axis.ready.val();
        self.m_axis.data.next = self.path.m_axis.data.val();
        self.m_axis.keep.next = self.path.m_axis.keep.val();
        self.m_axis.user.next = self.path.m_axis.user.val();
        self.m_axis.last.next = self.path.m_axis.last.val();
        self.m_axis.valid.next = self.path.m_axis.valid.val() & !self.rst.val();
        self.path.m_axis.ready.next = self.m_axis.ready.val();
        self.m_conn.next = self.path.m_conn.val();
        // Pulses and status, to the registers and out.
        self.regs.err_seq.next = self.path.err_seq.val();
        self.regs.err_crc.next = self.path.err_crc.val();
        self.regs.err_marker.next = self.path.err_marker.val();
        self.regs.dropped.next = self.path.dropped.val();
        self.regs.err_conn.next = self.path.err_conn.val();
        self.regs.switching.next = self.path.switching.val();
        self.regs.seq_gap.next = self.path.seq_gap.val();
        self.regs.cfg_misaligned.next = self.path.cfg_misaligned.val();
        self.err_seq.next = self.path.err_seq.val() & !self.rst.val();
        self.err_crc.next = self.path.err_crc.val() & !self.rst.val();
        self.err_marker.next = self.path.err_marker.val() & !self.rst.val();
        self.dropped.next = self.path.dropped.val() & !self.rst.val();
        self.err_conn.next = self.path.err_conn.val();
        self.switching.next = self.path.switching.val() & !self.rst.val();
        self.seq_gap.next = self.path.seq_gap.val() & !self.rst.val();
        self.cfg_misaligned.next = self.path.cfg_misaligned.val() & !self.rst.val();
    }
}
