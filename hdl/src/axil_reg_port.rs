//! `AxilRegPort`: the AXI4-Lite slave handshakes of a register block, written once. The
//! register block behind it sees a write as one cycle with its word address and data, answers
//! it in that cycle or later, and answers a read from a combinational register mux.
//!
//! No RFC section: infrastructure (AMBA AXI4-Lite, B1; handshakes as A3.2). Used by
//! [`crate::place::regs::PlaceRegs`] (`rnic_rx`, whose table commands answer late) and
//! [`crate::rx::conn_regs::MpaRxConnRegs`] (`MpaRxConns`).
//!
//! Every AXI output comes from a register (AXI A3.2.1: no combinational path from an input
//! of the interface to an output); only `rst` forces them low in its cycle.
//!
//! Writes: taken when address and data are both offered. `awready` and `wready` rise together,
//! from a register, one cycle after both valids (which AXI holds until the handshake). That
//! cycle `wr` is high with `wr_addr`, `wr_data` and `wr_whole` (`wr` also needs both valids
//! still offered: a master that withdrew one, which AXI forbids, sees the readies but nothing
//! is written). The block behind answers with `b_give` (and `b_err` for SLVERR) in that cycle
//! or any later one; until then the write is pending (`wr_pending`) and no other write is
//! taken. The response is offered from the next cycle until `bready`. One write at a time: the
//! next is taken two cycles after its response's `bready` at the soonest.
//!
//! Reads: `arready` rises, from a register, one cycle after `arvalid`, and the read is taken
//! then (`rd`). `rd_addr` is the offered address's word (combinational); the block behind
//! returns `rd_data` and `rd_ok` (0: SLVERR) in the same cycle, and they are registered as
//! the response, offered from the next cycle until `rready`. Reads and writes are independent.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset: nothing pending, no response offered; while `rst` is high no handshake happens (`awready`, `wready`, `arready`, `bvalid`, `rvalid`, `wr`, `rd`, `wr_pending` low) |
//! | `s_axil` | | | the AXI4-Lite slave ([`crate::axi::AxiLiteSlave`], `A` address bits) |
//! | `wr` | out | 1 | a write is taken this cycle |
//! | `wr_addr`, `wr_data`, `wr_whole` | out | `A - 2`, 32, 1 | its word address (`awaddr[A-1:2]`), data, and whether its strobes are all four octets |
//! | `wr_pending` | out | 1 | a write taken in an earlier cycle waits for `b_give` |
//! | `b_give`, `b_err` | in | 1 | answer the write taken this cycle or the one pending (ignored when there is neither); `b_err` makes it SLVERR |
//! | `rd`, `rd_addr` | out | 1, `A - 2` | a read is taken this cycle; the offered read's word address |
//! | `rd_data`, `rd_ok` | in | 32, 1 | the register at `rd_addr`; 0 answers SLVERR |
//!
//! ### Parameters
//! `A` address bits of the slave, `RA = A - 2` word address bits (checked in `new`).
//!
//! ### Latency and throughput
//! A write answered at once: `bvalid` two cycles after both valids; the next write is taken
//! two cycles after its `bready` at the soonest. A read: `rvalid` two cycles after `arvalid`.
//! Register access is a control path: one transaction per channel at a time.

use crate::axi::AxiLiteSlave;
use rust_hdl::prelude::*;

/// The handshake block; see the module documentation.
#[derive(LogicBlock)]
pub struct AxilRegPort<const A: usize, const RA: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The AXI4-Lite slave.
    pub s_axil: AxiLiteSlave<A>,
    /// A write is taken this cycle.
    pub wr: Signal<Out, Bit>,
    /// Its word address.
    pub wr_addr: Signal<Out, Bits<RA>>,
    /// Its data.
    pub wr_data: Signal<Out, Bits<32>>,
    /// Its strobes are all four octets.
    pub wr_whole: Signal<Out, Bit>,
    /// A write taken earlier waits for its answer.
    pub wr_pending: Signal<Out, Bit>,
    /// Answer the write (this cycle's or the pending one).
    pub b_give: Signal<In, Bit>,
    /// The answer is SLVERR.
    pub b_err: Signal<In, Bit>,
    /// A read is taken this cycle.
    pub rd: Signal<Out, Bit>,
    /// The offered read's word address.
    pub rd_addr: Signal<Out, Bits<RA>>,
    /// The register at `rd_addr`.
    pub rd_data: Signal<In, Bits<32>>,
    /// `rd_addr` is mapped (0: SLVERR).
    pub rd_ok: Signal<In, Bit>,
    w_rdy: DFF<Bit>,
    pend: DFF<Bit>,
    bv: DFF<Bit>,
    bresp: DFF<Bits<2>>,
    ar_rdy: DFF<Bit>,
    rv: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    rresp: DFF<Bits<2>>,
    w_fire: Signal<Local, Bit>,
    r_fire: Signal<Local, Bit>,
    answer: Signal<Local, Bit>,
}

impl<const A: usize, const RA: usize> AxilRegPort<A, RA> {
    /// Builds the block; panics with a message naming the rule if `RA != A - 2`.
    pub fn new() -> Self {
        assert!(A > 2 && RA == A - 2, "AxilRegPort: RA must be A - 2 (A = {A}, RA = {RA})");
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axil: Default::default(),
            wr: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_whole: Default::default(),
            wr_pending: Default::default(),
            b_give: Default::default(),
            b_err: Default::default(),
            rd: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            rd_ok: Default::default(),
            w_rdy: Default::default(),
            pend: Default::default(),
            bv: Default::default(),
            bresp: Default::default(),
            ar_rdy: Default::default(),
            rv: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            w_fire: Default::default(),
            r_fire: Default::default(),
            answer: Default::default(),
        }
    }
}

impl<const A: usize, const RA: usize> Default for AxilRegPort<A, RA> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize, const RA: usize> Logic for AxilRegPort<A, RA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w_rdy, pend, bv, bresp, ar_rdy, rv, rdata, rresp);
        // ---- Writes: address and data together, one cycle after both are offered. ----
        self.w_fire.next = self.w_rdy.q.val()
            & self.s_axil.awvalid.val()
            & self.s_axil.wvalid.val()
            & !self.rst.val();
        self.s_axil.awready.next = self.w_rdy.q.val() & !self.rst.val();
        self.s_axil.wready.next = self.w_rdy.q.val() & !self.rst.val();
        self.wr.next = self.w_fire.val();
        self.wr_addr.next = self.s_axil.awaddr.val().get_bits::<RA>(2);
        self.wr_data.next = self.s_axil.wdata.val();
        self.wr_whole.next = self.s_axil.wstrb.val() == 0xF;
        self.wr_pending.next = self.pend.q.val() & !self.rst.val();
        self.answer.next = self.b_give.val() & (self.w_fire.val() | self.pend.q.val());
        self.pend.d.next = (self.pend.q.val() | self.w_fire.val()) & !self.answer.val();
        self.s_axil.bvalid.next = self.bv.q.val() & !self.rst.val();
        self.s_axil.bresp.next = self.bresp.q.val();
        if self.bv.q.val() & self.s_axil.bready.val() {
            self.bv.d.next = false;
        }
        // (2: SLVERR.)
        if self.answer.val() {
            self.bv.d.next = true;
            self.bresp.d.next = 0.into();
            if self.b_err.val() {
                self.bresp.d.next = 2.into();
            }
        }
        self.w_rdy.d.next = self.s_axil.awvalid.val()
            & self.s_axil.wvalid.val()
            & !self.w_rdy.q.val()
            & !self.bv.q.val()
            & !self.pend.q.val();

        // ---- Reads: taken a cycle after `arvalid`, answered the next. ----
        self.r_fire.next = self.ar_rdy.q.val() & self.s_axil.arvalid.val() & !self.rst.val();
        self.s_axil.arready.next = self.ar_rdy.q.val() & !self.rst.val();
        self.rd.next = self.r_fire.val();
        self.rd_addr.next = self.s_axil.araddr.val().get_bits::<RA>(2);
        self.s_axil.rvalid.next = self.rv.q.val() & !self.rst.val();
        self.s_axil.rdata.next = self.rdata.q.val();
        self.s_axil.rresp.next = self.rresp.q.val();
        if self.rv.q.val() & self.s_axil.rready.val() {
            self.rv.d.next = false;
        }
        self.ar_rdy.d.next = self.s_axil.arvalid.val() & !self.ar_rdy.q.val() & !self.rv.q.val();
        if self.r_fire.val() {
            self.rv.d.next = true;
            self.rdata.d.next = self.rd_data.val();
            self.rresp.d.next = 0.into();
            if !self.rd_ok.val() {
                self.rresp.d.next = 2.into();
            }
        }

        if self.rst.val() {
            self.w_rdy.d.next = false;
            self.pend.d.next = false;
            self.bv.d.next = false;
            self.ar_rdy.d.next = false;
            self.rv.d.next = false;
        }
    }
}
