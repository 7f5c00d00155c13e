//! `RnicRx`: the receive side of an iWARP RNIC for one connection, exported as `rnic_rx_w<W>`:
//! TCP payload segments in any order (reassembly, a verdict per segment; RFC 5044 A.3-A.5),
//! MPA (RFC 5044) verification, DDP (RFC 5041) placement into memory through an AXI4 write
//! master, RDMAP (RFC 5040) message delivery as records, in TCP order, and the first error as one
//! Terminate record (RFC 5044 section 8, RFC 5040 section 7). With CTRL's place bit, FPDUs
//! located in out-of-order segments (Markers, the length chain: RFC 5044 section 6) are
//! checked and placed straight from them (B.1.4) and only the rest is held in the reassembly
//! ring; without it every out-of-order octet is held and placed when it comes in order. With
//! CTRL bit 5 as well, a segment is first tried for header alignment (B.2): from its first
//! octet (a multiple of 4 from the origin), the length chain must verify and decode every FPDU
//! and end exactly at the segment's end, as the golden receiver's `aligned_detect` decides.
//!
//! ```text
//!  s_axis ─► PlaceReassembly ─► MpaRx ─► PlaceHeader ─► PlaceCheck ─► PlaceWriter ─► m_axi (AW, W, B)
//!  (segments,   │ ring, table                    │   (FIFO)      │   │  ▲        │ fence
//!   any order)  └─► vrd_* (verdicts)             └───────────────┼───┼──┘        ▼
//!                                                     STag table ┘   └──────► PlaceDeliver ─► m_axis_evt (records)
//!                                                     posted buffers
//!  s_axil ─► PlaceRegs (settings, STag and posted-buffer commands, status, counters)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clk`, `rst` | in | 1 | clock; synchronous reset of everything (registers to defaults, connection disabled); the tables are then cleared in 256 cycles (STATUS.resetting), commands wait for it |
//! | `s_axis_t*` | in | 8W | TCP payload segments in any order, duplicated or overlapping ([`crate::place::reassembly::PlaceReassembly`]): `tuser[31:0]` sequence number of the first octet, `tuser[32]` FIN; `tready` is low while the connection is disabled or in reset |
//! | `vrd_valid`, `vrd_accept`, `vrd_seq` | out | 1, 1, 32 | one pulse per segment, in arrival order: accepted (TCP may acknowledge it) or refused (the reassembly buffer or table is full for it: not acknowledged, the sender retransmits), and its sequence number |
//! | `m_axi_aw*`, `m_axi_w*`, `m_axi_b*` | | | AXI4 write master, 8W-bit data, 64-bit addresses ([`crate::axi::Axi4WriteMaster`]) |
//! | `s_axil_*` | | | AXI4-Lite slave, 32-bit data, 12 address bits: the register map ([`crate::place::reg`]) |
//! | `m_axis_evt_t*` | out | 512 | records, one per beat ([`crate::place::record`]; `tuser` the kind) |
//!
//! ### Using it
//! After reset: write the settings (ORIGIN, MAX_ULPDU, PD, MSN_WINDOW, FIRST_MSN, CTRL Markers
//! and CRC; REASM_BUDGET and REASM_RECORDS for segments out of order, which are refused
//! while both are 0), register the regions (STag staging registers, then STAG_CMD = 1), post receive
//! buffers (POST_*, then POST_CMD = 1; slot `MSN mod 64` of the queue: post MSN m + 64 only after
//! MSN m was delivered), then set CTRL.enable. Segments flow; records come out on
//! `m_axis_evt`. Regions and buffers may be registered, invalidated and posted while traffic
//! flows: a command applies to the FPDUs checked after its response; FPDUs checked before it
//! (up to a few dozen, queued for the writer) still write with the old entry, so memory of a
//! region invalidated by the host is free only once the records of the FPDUs received before
//! the invalidation are out. Clearing CTRL.enable stops taking segments; once every FPDU already
//! checked is written and its record taken, the connection is reset: its state and its posted
//! buffers, not the STag table or the settings; what was received but not yet checked is
//! dropped. A failed memory write (SLVERR, DECERR) stops the connection: one error record,
//! nothing written or delivered after it, until the connection is reset.
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`, `A` release-buffer address bits (`mpa_rx`:
//! 16 KiB), `SA` STag table index bits with `SN = 2^SA` entries (256), `PA` posted-buffer slot
//! bits with `PN = 2^PA` slots (`2^(PA-2)` = 64 per queue), `RD` reassembly-ring word-address
//! bits, `V` bytes per beat of the out-of-order locator's verification path with `BV = 8V`
//! (`locate_width(W)`: `W` up to 8, 8 above; `PlaceLocate`).
//!
//! ### Latency and throughput
//! Measured in `testbench/tests/rnic_rx.rs` and `make bench` (README): `mpa_rx`'s latency plus a
//! few cycles to the first memory write; one beat per cycle inside large FPDUs; 3.75 / 2.35
//! cycles per 64-octet Send at W = 32 / 64 in steady state (the checker is a pipeline since
//! stop 41, the writer takes a descriptor per cycle since stop 42; `mpa_rx`'s delineator, a
//! cycle per FPDU piece of a beat and one FPDU per packet, limits short FPDUs at wide W).
//!
//! ### On bad input
//! Malformed FPDUs and DDP/RDMAP headers, failed placement checks and failed memory writes each
//! give one error record with its Terminate code, after which nothing is placed or delivered
//! until the connection is reset (after a failed memory write, the bursts already issued are
//! completed; no new one starts). Nothing is written outside a registered region or posted
//! buffer: every write is bounded by the checks before its first octet.

use crate::axi::{Axi4WriteMaster, AxiLiteSlave};
use crate::place::check::PlaceCheck;
use crate::place::deliver::PlaceDeliver;
use crate::place::header::{PlaceHeader, HDR_IN_USER};
use crate::place::reassembly::{PlaceReassembly, RECORD_ENTRIES};
use crate::place::regs::PlaceRegs;
use crate::place::table_ram::TableRam;
use crate::place::writer::PlaceWriter;
use crate::place::{posted_entry, reg, stag_entry};
use crate::rx::marker_stripper::RX_ULPDU_USER;
use crate::rx::mpa_rx::MpaRx;
use crate::rx::realigner::RX_SEG_USER;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// STag table index bits of the exported tops (256 entries).
pub const STAG_INDEX_BITS: usize = 8;
/// Posted-buffer slot bits of the exported tops (64 per queue).
pub const POSTED_SLOT_BITS: usize = 8;

/// The RNIC receive side; see the module documentation.
#[derive(LogicBlock)]
pub struct RnicRx<
    const W: usize,
    const B: usize,
    const A: usize,
    const SA: usize,
    const SN: usize,
    const PA: usize,
    const PN: usize,
    const RD: usize,
    const V: usize,
    const BV: usize,
> {
    /// Clock (exported as `clk`).
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// TCP payload segments.
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// Memory writes.
    pub m_axi: Axi4WriteMaster<W, B>,
    /// Registers.
    pub s_axil: AxiLiteSlave<{ reg::ADDR_BITS }>,
    /// Records.
    pub m_axis_evt: StreamSource<64, 512, 8>,
    /// Pulse: a verdict on a segment, for TCP.
    pub vrd_valid: Signal<Out, Bit>,
    /// The verdict: accepted (TCP may acknowledge the segment) or refused.
    pub vrd_accept: Signal<Out, Bit>,
    /// The sequence number of the segment the verdict is for.
    pub vrd_seq: Signal<Out, Bits<32>>,
    regs: PlaceRegs<W, SA, PA>,
    reasm: PlaceReassembly<W, B, RD, RECORD_ENTRIES, V, BV>,
    mpa: MpaRx<W, B, A>,
    header: PlaceHeader<W, B>,
    check: PlaceCheck<SA, PA>,
    stags: TableRam<SA, SN, { stag_entry::BITS }>,
    posted: TableRam<PA, PN, { posted_entry::BITS }>,
    writer: PlaceWriter<W, B>,
    deliver: PlaceDeliver,
    down: DFF<Bit>,
    pend: DFF<Bits<16>>,
    crst: Signal<Local, Bit>,
    quiet: Signal<Local, Bit>,
    going_down: Signal<Local, Bit>,
}

impl<
        const W: usize,
        const B: usize,
        const A: usize,
        const SA: usize,
        const SN: usize,
        const PA: usize,
        const PN: usize,
        const RD: usize,
        const V: usize,
        const BV: usize,
    > RnicRx<W, B, A, SA, SN, PA, PN, RD, V, BV>
{
    /// Builds the receive side; panics with a message naming the rule if a parameter is
    /// illegal.
    pub fn new() -> Self {
        assert!(SN == 1 << SA, "RnicRx: SN must be 2^SA (got SA = {SA}, SN = {SN})");
        assert!(PN == 1 << PA, "RnicRx: PN must be 2^PA (got PA = {PA}, PN = {PN})");
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axi: Default::default(),
            s_axil: Default::default(),
            m_axis_evt: StreamSource::new(),
            vrd_valid: Default::default(),
            vrd_accept: Default::default(),
            vrd_seq: Default::default(),
            regs: PlaceRegs::new(),
            reasm: PlaceReassembly::new(),
            mpa: MpaRx::new(),
            header: PlaceHeader::new(),
            check: PlaceCheck::new(),
            stags: TableRam::new(),
            posted: TableRam::new(),
            writer: PlaceWriter::new(),
            deliver: PlaceDeliver::new(),
            down: Default::default(),
            pend: Default::default(),
            crst: Default::default(),
            quiet: Default::default(),
            going_down: Default::default(),
        }
    }

    /// The largest ULPDU_Length the release buffer of `mpa_rx` takes.
    pub const fn max_ulpdu() -> usize {
        MpaRx::<W, B, A>::max_ulpdu()
    }
}

impl<
        const W: usize,
        const B: usize,
        const A: usize,
        const SA: usize,
        const SN: usize,
        const PA: usize,
        const PN: usize,
        const RD: usize,
        const V: usize,
        const BV: usize,
    > Default for RnicRx<W, B, A, SA, SN, PA, PN, RD, V, BV>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const W: usize,
        const B: usize,
        const A: usize,
        const SA: usize,
        const SN: usize,
        const PA: usize,
        const PN: usize,
        const RD: usize,
        const V: usize,
        const BV: usize,
    > Logic for RnicRx<W, B, A, SA, SN, PA, PN, RD, V, BV>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, down, pend);
        self.regs.clock.next = self.clock.val();
        self.reasm.clock.next = self.clock.val();
        self.mpa.clock.next = self.clock.val();
        self.header.clock.next = self.clock.val();
        self.check.clock.next = self.clock.val();
        self.stags.clock.next = self.clock.val();
        self.posted.clock.next = self.clock.val();
        self.writer.clock.next = self.clock.val();
        self.deliver.clock.next = self.clock.val();

        // ---- Resets: the tables, registers and writer by `rst`; the connection also while
        // it is disabled (once the pipeline is quiet). ----
        // Quiet: nothing decided and not yet written or delivered (what is not decided yet, in
        // mpa_rx and the header block, is dropped by the reset).
        self.quiet.next = self.writer.idle.val() & self.deliver.idle.val() & self.check.idle.val();
        self.going_down.next = !self.regs.cfg_enable.val() & !self.down.q.val() & self.quiet.val();
        if self.regs.cfg_enable.val() {
            self.down.d.next = false;
        } else if self.quiet.val() {
            self.down.d.next = true;
        }
        if self.rst.val() {
            self.down.d.next = true;
        }
        // The connection also waits while a table is being cleared.
        self.crst.next =
            self.rst.val() | self.down.q.val() | self.stags.busy.val() | self.posted.busy.val();
        self.regs.rst.next = self.rst.val();
        self.stags.rst.next = self.rst.val();
        self.stags.clear.next = false;
        // Posted buffers belong to the connection: forgotten when it goes down.
        self.posted.rst.next = self.rst.val();
        self.posted.clear.next = self.going_down.val();
        self.writer.rst.next = self.rst.val();
        self.writer.clr_err.next = self.going_down.val();
        self.reasm.rst.next = self.crst.val();
        self.mpa.rst.next = self.crst.val();
        self.header.rst.next = self.crst.val();
        self.check.rst.next = self.crst.val();
        self.deliver.rst.next = self.crst.val();

        // ---- AXI4-Lite (its handshakes held low in reset by the register block's port). ----
        AxiLiteSlave::<{ reg::ADDR_BITS }>::link(&mut self.s_axil, &mut self.regs.s_axil);

        // ---- Segments, in any order, into the reassembly buffer (nothing is taken while
        // disabled or in reset); the in-order stream into mpa_rx. ----
        self.reasm.cfg_seq.next = self.regs.cfg_origin.val();
        self.reasm.cfg_budget.next = self.regs.cfg_reasm_budget.val();
        self.reasm.cfg_records.next = self.regs.cfg_reasm_records.val();
        self.reasm.cfg_markers.next = self.regs.cfg_markers.val();
        self.reasm.cfg_crc.next = self.regs.cfg_crc.val();
        self.reasm.cfg_max_ulpdu.next = self.regs.cfg_max_ulpdu.val();
        self.reasm.cfg_place.next = self.regs.cfg_place.val();
        self.reasm.cfg_aligned.next = self.regs.cfg_aligned.val();
        // The in-order path is quiet when every packet mpa_rx delineated was decided by the
        // checker, mpa_rx's front holds nothing (its release buffer may hold the partial FPDU
        // at the edge) and the header block is between packets (a decided ULPDU's payload may
        // still be streaming into it): what out-of-order placement checks against is then what
        // in-order processing of everything received so far has left, and the header block's
        // input may switch to the out-of-order ULPDUs.
        if self.mpa.pkt_end.val() & !self.check.fpdu_pulse.val() {
            self.pend.d.next = self.pend.q.val() + 1;
        }
        if !self.mpa.pkt_end.val() & self.check.fpdu_pulse.val() {
            self.pend.d.next = self.pend.q.val() - 1;
        }
        if self.crst.val() {
            self.pend.d.next = 0.into();
        }
        self.reasm.io_quiet.next =
            (self.pend.q.val() == 0) & !self.mpa.front_busy.val() & !self.header.busy.val();
        self.reasm.probe_valid.next = self.check.probe_valid.val();
        self.reasm.probe_ok.next = self.check.probe_ok.val();
        self.reasm.probe_tpl.next = self.check.probe_tpl.val();
        self.reasm.probe_inv.next = self.check.probe_inv.val();
        self.reasm.probe_stag.next = self.check.probe_stag.val();
        self.reasm.probe_dec.next = self.check.probe_dec.val();
        self.reasm.skip_seq.next = self.check.skip_ask.val();
        self.reasm.skip_take.next = self.check.skip_take.val();
        self.reasm.skip_take_seq.next = self.check.skip_seq.val();
        self.check.skip_hit.next = self.reasm.skip_hit.val();
        self.reasm.stopped.next = self.check.stopped.val() | self.deliver.stop_out.val();
        self.reasm.s_axis.data.next = self.s_axis.data.val();
        self.reasm.s_axis.keep.next = self.s_axis.keep.val();
        self.reasm.s_axis.user.next = self.s_axis.user.val();
        self.reasm.s_axis.last.next = self.s_axis.last.val();
        self.reasm.s_axis.valid.next =
            self.s_axis.valid.val() & self.regs.cfg_enable.val() & !self.crst.val();
        self.s_axis.ready.next =
            self.reasm.s_axis.ready.val() & self.regs.cfg_enable.val() & !self.crst.val();
        self.vrd_valid.next = self.reasm.vrd_valid.val() & !self.rst.val();
        self.vrd_accept.next = self.reasm.vrd_accept.val();
        self.vrd_seq.next = self.reasm.vrd_seq.val();
        self.mpa.s_axis.data.next = self.reasm.m_axis.data.val();
        self.mpa.s_axis.keep.next = self.reasm.m_axis.keep.val();
        self.mpa.s_axis.user.next = self.reasm.m_axis.user.val();
        self.mpa.s_axis.last.next = self.reasm.m_axis.last.val();
        self.mpa.s_axis.valid.next = self.reasm.m_axis.valid.val();
        self.reasm.m_axis.ready.next = self.mpa.s_axis.ready.val();
        self.mpa.cfg_seq.next = self.regs.cfg_origin.val();
        self.mpa.cfg_origin.next = self.regs.cfg_origin.val();
        self.mpa.cfg_markers.next = self.regs.cfg_markers.val();
        self.mpa.cfg_crc.next = self.regs.cfg_crc.val();
        self.mpa.cfg_max_ulpdu.next = self.regs.cfg_max_ulpdu.val();

        // ---- ULPDUs into the header block: mpa_rx's (in order), or while the reassembly
        // block handles a segment beyond the edge, the ULPDUs it located there (probes, then
        // placements; the in-order path is quiet then). ----
        self.header.cfg_rdmac.next = self.regs.cfg_rdmac.val();
        self.header.s_axis.data.next = self.mpa.m_axis.data.val();
        self.header.s_axis.keep.next = self.mpa.m_axis.keep.val();
        self.header.s_axis.user.next =
            bit_cast::<HDR_IN_USER, RX_ULPDU_USER>(self.mpa.m_axis.user.val());
        self.header.s_axis.last.next = self.mpa.m_axis.last.val();
        self.header.s_axis.valid.next = self.mpa.m_axis.valid.val();
        self.mpa.m_axis.ready.next = self.header.s_axis.ready.val();
        self.reasm.m_ooo.ready.next = false;
        if self.reasm.ooo_sel.val() {
            self.header.s_axis.data.next = self.reasm.m_ooo.data.val();
            self.header.s_axis.keep.next = self.reasm.m_ooo.keep.val();
            self.header.s_axis.user.next = self.reasm.m_ooo.user.val();
            self.header.s_axis.last.next = self.reasm.m_ooo.last.val();
            self.header.s_axis.valid.next = self.reasm.m_ooo.valid.val();
            self.mpa.m_axis.ready.next = false;
            self.reasm.m_ooo.ready.next = self.header.s_axis.ready.val();
        }

        // ---- Header records into the checker. ----
        self.check.hdr.valid.next = self.header.hdr.valid.val();
        self.header.hdr.ready.next = self.check.hdr.ready.val();
        self.check.hdr.seq.next = self.header.hdr.seq.val();
        self.check.hdr.ulen.next = self.header.hdr.ulen.val();
        self.check.hdr.err.next = self.header.hdr.err.val();
        self.check.hdr.mpa.next = self.header.hdr.mpa.val();
        self.check.hdr.code.next = self.header.hdr.code.val();
        self.check.hdr.tagged.next = self.header.hdr.tagged.val();
        self.check.hdr.last.next = self.header.hdr.last.val();
        self.check.hdr.opcode.next = self.header.hdr.opcode.val();
        self.check.hdr.stag.next = self.header.hdr.stag.val();
        self.check.hdr.to.next = self.header.hdr.to.val();
        self.check.hdr.qn.next = self.header.hdr.qn.val();
        self.check.hdr.msn.next = self.header.hdr.msn.val();
        self.check.hdr.mo.next = self.header.hdr.mo.val();
        self.check.hdr.plen.next = self.header.hdr.plen.val();
        self.check.hdr.skip.next = self.header.hdr.skip.val();
        self.check.hdr.sink_stag.next = self.header.hdr.sink_stag.val();
        self.check.hdr.sink_to.next = self.header.hdr.sink_to.val();
        self.check.hdr.rd_size.next = self.header.hdr.rd_size.val();
        self.check.hdr.src_stag.next = self.header.hdr.src_stag.val();
        self.check.hdr.src_to.next = self.header.hdr.src_to.val();
        self.check.hdr.tctl.next = self.header.hdr.tctl.val();
        self.check.hdr.echo.next = self.header.hdr.echo.val();
        self.check.hdr.mode.next = self.header.hdr.mode.val();
        self.check.cfg_pd.next = self.regs.cfg_pd.val();
        self.check.cfg_window.next = self.regs.cfg_window.val();
        self.check.cfg_first_msn.next = self.regs.cfg_first_msn.val();
        self.check.stop_in.next = self.deliver.stop_out.val();

        // ---- The tables: the checker's lookups, the registers' commands. ----
        self.check.st_lk_busy.next = self.stags.lk_busy.val();
        self.stags.lk_index.next = self.check.st_lk_index.val();
        self.stags.inv_en.next = self.check.st_inv_en.val();
        self.stags.inv_index.next = self.check.st_inv_index.val();
        self.stags.ctl_write.next = self.regs.st_write.val();
        self.stags.ctl_read.next = self.regs.st_read.val();
        self.stags.ctl_index.next = self.regs.st_index.val();
        self.stags.ctl_entry.next = self.regs.st_entry.val();
        self.stags.ctl_valid.next = self.regs.st_valid.val();
        self.regs.st_done.next = self.stags.ctl_done.val();
        self.regs.st_rd_entry.next = self.stags.rd_entry.val();
        self.regs.st_rd_valid.next = self.stags.rd_valid.val();
        self.check.st_entry.next = self.stags.rd_entry.val();
        self.check.st_valid.next = self.stags.rd_valid.val();
        self.check.st_wr_pend.next = self.stags.wr_pend.val();
        self.check.st_wr_index.next = self.stags.wr_index.val();
        self.check.pb_lk_busy.next = self.posted.lk_busy.val();
        self.posted.lk_index.next = self.check.pb_lk_index.val();
        self.posted.inv_en.next = false;
        self.posted.inv_index.next = 0.into();
        self.posted.ctl_write.next = self.regs.pb_write.val();
        self.posted.ctl_read.next = false;
        self.posted.ctl_index.next = self.regs.pb_index.val();
        self.posted.ctl_entry.next = self.regs.pb_entry.val();
        self.posted.ctl_valid.next = true;
        self.regs.pb_done.next = self.posted.ctl_done.val();
        self.check.pb_entry.next = self.posted.rd_entry.val();
        self.check.pb_valid.next = self.posted.rd_valid.val();

        // ---- Descriptors and beats into the writer; memory. ----
        self.writer.desc_valid.next = self.check.desc_valid.val();
        self.writer.desc_data.next = self.check.desc_data.val();
        self.check.desc_ready.next = self.writer.desc_ready.val();
        self.writer.s_axis.data.next = self.header.m_axis.data.val();
        self.writer.s_axis.keep.next = self.header.m_axis.keep.val();
        self.writer.s_axis.user.next = self.header.m_axis.user.val();
        self.writer.s_axis.last.next = self.header.m_axis.last.val();
        self.writer.s_axis.valid.next = self.header.m_axis.valid.val();
        self.header.m_axis.ready.next = self.writer.s_axis.ready.val();
        self.m_axi.awaddr.next = self.writer.m_axi.awaddr.val();
        self.m_axi.awlen.next = self.writer.m_axi.awlen.val();
        self.m_axi.awsize.next = self.writer.m_axi.awsize.val();
        self.m_axi.awburst.next = self.writer.m_axi.awburst.val();
        self.m_axi.awcache.next = self.writer.m_axi.awcache.val();
        self.m_axi.awprot.next = self.writer.m_axi.awprot.val();
        self.m_axi.awvalid.next = self.writer.m_axi.awvalid.val() & !self.rst.val();
        self.writer.m_axi.awready.next = self.m_axi.awready.val() & !self.rst.val();
        self.m_axi.wdata.next = self.writer.m_axi.wdata.val();
        self.m_axi.wstrb.next = self.writer.m_axi.wstrb.val();
        self.m_axi.wlast.next = self.writer.m_axi.wlast.val();
        self.m_axi.wvalid.next = self.writer.m_axi.wvalid.val() & !self.rst.val();
        self.writer.m_axi.wready.next = self.m_axi.wready.val() & !self.rst.val();
        self.writer.m_axi.bresp.next = self.m_axi.bresp.val();
        self.writer.m_axi.bvalid.next = self.m_axi.bvalid.val() & !self.rst.val();
        self.m_axi.bready.next = self.writer.m_axi.bready.val() & !self.rst.val();

        // ---- Records. ----
        self.deliver.rec_valid.next = self.check.rec_valid.val();
        self.deliver.rec_data.next = self.check.rec_data.val();
        self.check.rec_ready.next = self.deliver.rec_ready.val();
        self.deliver.fence_valid.next = self.writer.fence_valid.val();
        self.deliver.fence_data.next = self.writer.fence_data.val();
        self.writer.fence_ready.next = self.deliver.fence_ready.val();
        self.deliver.responses.next = self.writer.responses.val();
        self.deliver.b_err.next = self.writer.b_err.val();
        self.deliver.b_err_at.next = self.writer.b_err_at.val();
        self.m_axis_evt.data.next = self.deliver.m_axis.data.val();
        self.m_axis_evt.keep.next = self.deliver.m_axis.keep.val();
        self.m_axis_evt.user.next = self.deliver.m_axis.user.val();
        self.m_axis_evt.last.next = self.deliver.m_axis.last.val();
        self.m_axis_evt.valid.next = self.deliver.m_axis.valid.val() & !self.rst.val();
        self.deliver.m_axis.ready.next = self.m_axis_evt.ready.val() & !self.rst.val();

        // ---- Status and counters. ----
        self.regs.running.next = self.regs.cfg_enable.val() & !self.crst.val();
        self.regs.resetting.next = (!self.regs.cfg_enable.val() & !self.down.q.val())
            | self.stags.busy.val()
            | self.posted.busy.val();
        self.regs.stopped.next = self.check.stopped.val() | self.deliver.stop_out.val();
        self.regs.term_received.next =
            self.check.stopped.val() & !self.check.err_valid.val() & !self.deliver.stop_out.val();
        self.regs.err_valid.next = self.check.err_valid.val();
        self.regs.err_code.next = self.check.err_code.val();
        self.regs.err_seq.next = self.check.err_seq.val();
        self.regs.write_failed.next = self.writer.b_err.val();
        self.regs.fpdu_pulse.next = self.check.fpdu_pulse.val();
        self.regs.placed_pulse.next = self.check.placed_pulse.val();
        self.regs.placed_len.next = self.check.placed_len.val();
        self.regs.placed_ooo.next = self.check.placed_ooo.val();
        self.regs.reasm_placed.next = self.reasm.placed_fpdus.val();
        self.regs.record_pulse.next = self.deliver.record_pulse.val();
        self.regs.seq_drop_pulse.next = self.mpa.err_seq.val();
        self.regs.bursts.next = self.writer.bursts.val();
        self.regs.responses.next = self.writer.responses.val();
        self.regs.write_errors.next = self.writer.write_errors.val();
        self.regs.qn0_msn.next = self.check.qn0_msn.val();
        self.regs.qn1_msn.next = self.check.qn1_msn.val();
        self.regs.qn2_msn.next = self.check.qn2_msn.val();
        self.regs.refused.next = self.reasm.refused.val();
        self.regs.reasm_held.next = self.reasm.held.val();
        self.regs.reasm_runs.next = self.reasm.runs.val();
        self.regs.reasm_peak.next = self.reasm.peak_held.val();
        self.regs.reasm_located.next = self.reasm.located.val();
        self.regs.reasm_located_octets.next = self.reasm.located_octets.val();
    }
}
