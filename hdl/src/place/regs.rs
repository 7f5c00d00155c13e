//! `PlaceRegs`: the AXI4-Lite register map of `rnic_rx`: connection settings, STag table and
//! posted-buffer commands, status and counters ([`crate::place::reg`] lists every register).
//!
//! No RFC section of its own: it is how a driver sets what RFC 5044 7.1 negotiates (Markers,
//! CRC, the Full Operation origin), registers memory (RFC 5040 2.1: STags) and posts receive
//! buffers (RFC 5041 5.3).
//!
//! Handshakes: [`crate::axil_reg_port::AxilRegPort`]'s. A write is taken when address and
//! data are both offered (`awready` and `wready` rise together, from a register, one cycle
//! after both valids); its response follows when the write is done: the
//! next cycle for a register, when the table has carried it out for a command (no other write
//! is taken meanwhile). A read is taken one cycle after `arvalid` and answered the next. None
//! while `rst` is high.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset: every register to its default (CTRL = CRC on, not enabled; MAX_ULPDU 0xFFFF; MSN window = posted slots per queue; FIRST_MSN 1) and the counters to 0 |
//! | `s_axil` | | | the AXI4-Lite slave ([`crate::axi::AxiLiteSlave`], 12 address bits) |
//! | `cfg_*` | out | | the settings (registered) |
//! | `st_*` | | | STag table command port ([`super::table_ram::TableRam`]) |
//! | `pb_*` | | | posted-buffer command port |
//! | status and counter inputs | in | | from the datapath blocks |
//!
//! ### Parameters
//! `W` bytes per beat (reported in PARAMS), `SA` STag table index bits, `PA` posted-buffer
//! address bits (`PA - 2` per queue).
//!
//! ### On bad input
//! A write with strobes other than all four octets, or to an address that is not a writable
//! register, or an MSN window of 0 or above 2^31, is ignored and answered SLVERR; a read of an unmapped address returns 0 with
//! SLVERR. A command that cannot be carried out (an STag whose index is beyond the table, a
//! post on QN 3) is refused: nothing changes, the command register's bit 0 says so, and the
//! write is answered SLVERR. An invalidation of an STag the entry does not hold changes nothing
//! and is refused the same way.

use crate::axi::AxiLiteSlave;
use crate::axil_reg_port::AxilRegPort;
use crate::place::{posted_entry, reg, stag_entry};
use rust_hdl::prelude::*;

const AB: usize = reg::ADDR_BITS;
const ST_BITS: usize = stag_entry::BITS;
const PB_BITS: usize = posted_entry::BITS;

// Command phases (`ph`): 0 none, 1 STag write, 2 STag read (for a read-back or an
// invalidation), 5 the entry read looked at, 3 STag invalidate write, 4 post.

/// The register block; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceRegs<const W: usize, const SA: usize, const PA: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The AXI4-Lite slave.
    pub s_axil: AxiLiteSlave<AB>,
    /// CTRL enable.
    pub cfg_enable: Signal<Out, Bit>,
    /// CTRL Markers.
    pub cfg_markers: Signal<Out, Bit>,
    /// CTRL CRC.
    pub cfg_crc: Signal<Out, Bit>,
    /// CTRL RDMAC version.
    pub cfg_rdmac: Signal<Out, Bit>,
    /// CTRL place out of order.
    pub cfg_place: Signal<Out, Bit>,
    /// CTRL header-alignment detection.
    pub cfg_aligned: Signal<Out, Bit>,
    /// ORIGIN.
    pub cfg_origin: Signal<Out, Bits<32>>,
    /// MAX_ULPDU.
    pub cfg_max_ulpdu: Signal<Out, Bits<16>>,
    /// PD.
    pub cfg_pd: Signal<Out, Bits<32>>,
    /// MSN_WINDOW.
    pub cfg_window: Signal<Out, Bits<32>>,
    /// FIRST_MSN.
    pub cfg_first_msn: Signal<Out, Bits<32>>,
    /// STag table: write.
    pub st_write: Signal<Out, Bit>,
    /// STag table: read.
    pub st_read: Signal<Out, Bit>,
    /// STag table: entry.
    pub st_index: Signal<Out, Bits<SA>>,
    /// STag table: the fields to write.
    pub st_entry: Signal<Out, Bits<ST_BITS>>,
    /// STag table: the valid bit to write.
    pub st_valid: Signal<Out, Bit>,
    /// STag table: done.
    pub st_done: Signal<In, Bit>,
    /// STag table: the entry read.
    pub st_rd_entry: Signal<In, Bits<ST_BITS>>,
    /// STag table: its valid bit.
    pub st_rd_valid: Signal<In, Bit>,
    /// Posted buffers: write.
    pub pb_write: Signal<Out, Bit>,
    /// Posted buffers: slot.
    pub pb_index: Signal<Out, Bits<PA>>,
    /// Posted buffers: the entry.
    pub pb_entry: Signal<Out, Bits<PB_BITS>>,
    /// Posted buffers: done.
    pub pb_done: Signal<In, Bit>,
    /// Status: running.
    pub running: Signal<In, Bit>,
    /// Status: resetting.
    pub resetting: Signal<In, Bit>,
    /// Status: stopped.
    pub stopped: Signal<In, Bit>,
    /// Status: a Terminate was received.
    pub term_received: Signal<In, Bit>,
    /// The first error (checker).
    pub err_valid: Signal<In, Bit>,
    /// Its code.
    pub err_code: Signal<In, Bits<16>>,
    /// Its sequence number.
    pub err_seq: Signal<In, Bits<32>>,
    /// A memory write failed.
    pub write_failed: Signal<In, Bit>,
    /// Counter input: a ULPDU was decided.
    pub fpdu_pulse: Signal<In, Bit>,
    /// Counter input: payload sent to be written.
    pub placed_pulse: Signal<In, Bit>,
    /// Its octets.
    pub placed_len: Signal<In, Bits<16>>,
    /// The placed octets were placed out of order.
    pub placed_ooo: Signal<In, Bit>,
    /// FPDUs placed out of order.
    pub reasm_placed: Signal<In, Bits<32>>,
    /// Counter input: a record went out.
    pub record_pulse: Signal<In, Bit>,
    /// Counter input: `mpa_rx` dropped a segment out of sequence.
    pub seq_drop_pulse: Signal<In, Bit>,
    /// AW bursts issued.
    pub bursts: Signal<In, Bits<32>>,
    /// B responses.
    pub responses: Signal<In, Bits<32>>,
    /// B errors.
    pub write_errors: Signal<In, Bits<32>>,
    /// Queue 0 expected MSN.
    pub qn0_msn: Signal<In, Bits<32>>,
    /// Queue 1 expected MSN.
    pub qn1_msn: Signal<In, Bits<32>>,
    /// Queue 2 expected MSN.
    pub qn2_msn: Signal<In, Bits<32>>,
    /// REASM_BUDGET.
    pub cfg_reasm_budget: Signal<Out, Bits<32>>,
    /// REASM_RECORDS.
    pub cfg_reasm_records: Signal<Out, Bits<8>>,
    /// Segments refused.
    pub refused: Signal<In, Bits<32>>,
    /// Out-of-order octets held.
    pub reasm_held: Signal<In, Bits<32>>,
    /// Out-of-order runs held.
    pub reasm_runs: Signal<In, Bits<8>>,
    /// Most out-of-order octets held.
    pub reasm_peak: Signal<In, Bits<32>>,
    /// FPDUs located in out-of-order segments.
    pub reasm_located: Signal<In, Bits<32>>,
    /// Their octets.
    pub reasm_located_octets: Signal<In, Bits<32>>,
    /// The AXI4-Lite handshakes.
    port: AxilRegPort<AB, { AB - 2 }>,
    // Registers.
    ctrl: DFF<Bits<6>>,
    origin: DFF<Bits<32>>,
    max_ulpdu: DFF<Bits<16>>,
    pd: DFF<Bits<32>>,
    window: DFF<Bits<32>>,
    first_msn: DFF<Bits<32>>,
    reasm_budget: DFF<Bits<32>>,
    reasm_records: DFF<Bits<8>>,
    s_stag: DFF<Bits<32>>,
    s_base: DFF<Bits<64>>,
    s_len: DFF<Bits<64>>,
    s_addr: DFF<Bits<64>>,
    s_pd: DFF<Bits<32>>,
    s_flags: DFF<Bits<3>>,
    s_refused: DFF<Bit>,
    p_qn: DFF<Bits<32>>,
    p_msn: DFF<Bits<32>>,
    p_addr: DFF<Bits<64>>,
    p_len: DFF<Bits<32>>,
    p_refused: DFF<Bit>,
    ph: DFF<Bits<3>>,
    inv_cmd: DFF<Bit>,
    rd_entry: DFF<Bits<ST_BITS>>,
    rd_valid: DFF<Bit>,
    // Counters.
    n_fpdus: DFF<Bits<32>>,
    n_placed: DFF<Bits<64>>,
    n_ooo: DFF<Bits<32>>,
    n_records: DFF<Bits<32>>,
    n_seq: DFF<Bits<32>>,
    // Constants.
    c_params: Constant<Bits<32>>,
    c_window: Constant<Bits<32>>,
    c_ishift: Constant<Bits<8>>,
    c_qsh: Constant<Bits<8>>,
    c_msn_mask: Constant<Bits<32>>,
    c_st_stag: Constant<Bits<16>>,
    c_st_base: Constant<Bits<16>>,
    c_st_len: Constant<Bits<16>>,
    c_st_addr: Constant<Bits<16>>,
    c_st_pd: Constant<Bits<16>>,
    c_st_write: Constant<Bits<16>>,
    c_pb_addr: Constant<Bits<16>>,
    c_pb_len: Constant<Bits<16>>,
    // Combinational.
    w_data: Signal<Local, Bits<32>>,
    busy: Signal<Local, Bit>,
    idx_ok: Signal<Local, Bit>,
    entry: Signal<Local, Bits<ST_BITS>>,
    status: Signal<Local, Bits<32>>,
    ecode: Signal<Local, Bits<32>>,
    match_stag: Signal<Local, Bit>,
}

impl<const W: usize, const SA: usize, const PA: usize> PlaceRegs<W, SA, PA> {
    /// Builds the block; panics with a message naming the rule if a parameter is illegal.
    pub fn new() -> Self {
        assert!((1..=14).contains(&SA), "PlaceRegs: SA must be 1 to 14 (got {SA})");
        assert!((3..=14).contains(&PA), "PlaceRegs: PA must be 3 to 14 (got {PA})");
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        let params = W as u64
            | (SA as u64) << 8
            | ((PA - 2) as u64) << 16
            | (crate::place::reassembly::RECORD_ENTRIES as u64) << 24;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axil: Default::default(),
            cfg_enable: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_rdmac: Default::default(),
            cfg_place: Default::default(),
            cfg_aligned: Default::default(),
            cfg_origin: Default::default(),
            cfg_max_ulpdu: Default::default(),
            cfg_pd: Default::default(),
            cfg_window: Default::default(),
            cfg_first_msn: Default::default(),
            st_write: Default::default(),
            st_read: Default::default(),
            st_index: Default::default(),
            st_entry: Default::default(),
            st_valid: Default::default(),
            st_done: Default::default(),
            st_rd_entry: Default::default(),
            st_rd_valid: Default::default(),
            pb_write: Default::default(),
            pb_index: Default::default(),
            pb_entry: Default::default(),
            pb_done: Default::default(),
            running: Default::default(),
            resetting: Default::default(),
            stopped: Default::default(),
            term_received: Default::default(),
            err_valid: Default::default(),
            err_code: Default::default(),
            err_seq: Default::default(),
            write_failed: Default::default(),
            fpdu_pulse: Default::default(),
            placed_pulse: Default::default(),
            placed_len: Default::default(),
            placed_ooo: Default::default(),
            reasm_placed: Default::default(),
            record_pulse: Default::default(),
            seq_drop_pulse: Default::default(),
            bursts: Default::default(),
            responses: Default::default(),
            write_errors: Default::default(),
            qn0_msn: Default::default(),
            qn1_msn: Default::default(),
            qn2_msn: Default::default(),
            cfg_reasm_budget: Default::default(),
            cfg_reasm_records: Default::default(),
            refused: Default::default(),
            reasm_held: Default::default(),
            reasm_runs: Default::default(),
            reasm_peak: Default::default(),
            reasm_located: Default::default(),
            reasm_located_octets: Default::default(),
            port: AxilRegPort::new(),
            ctrl: Default::default(),
            origin: Default::default(),
            max_ulpdu: Default::default(),
            pd: Default::default(),
            window: Default::default(),
            first_msn: Default::default(),
            reasm_budget: Default::default(),
            reasm_records: Default::default(),
            s_stag: Default::default(),
            s_base: Default::default(),
            s_len: Default::default(),
            s_addr: Default::default(),
            s_pd: Default::default(),
            s_flags: Default::default(),
            s_refused: Default::default(),
            p_qn: Default::default(),
            p_msn: Default::default(),
            p_addr: Default::default(),
            p_len: Default::default(),
            p_refused: Default::default(),
            ph: Default::default(),
            inv_cmd: Default::default(),
            rd_entry: Default::default(),
            rd_valid: Default::default(),
            n_fpdus: Default::default(),
            n_placed: Default::default(),
            n_ooo: Default::default(),
            n_records: Default::default(),
            n_seq: Default::default(),
            c_params: Constant::new(params.into()),
            c_window: Constant::new((1u64 << (PA - 2)).into()),
            c_ishift: Constant::new(((8 + SA) as u64).into()),
            c_qsh: Constant::new(((PA - 2) as u64).into()),
            c_msn_mask: Constant::new(((1u64 << (PA - 2)) - 1).into()),
            c_st_stag: c16(stag_entry::STAG),
            c_st_base: c16(stag_entry::BASE),
            c_st_len: c16(stag_entry::LEN),
            c_st_addr: c16(stag_entry::ADDR),
            c_st_pd: c16(stag_entry::PD),
            c_st_write: c16(stag_entry::WRITE),
            c_pb_addr: c16(posted_entry::ADDR),
            c_pb_len: c16(posted_entry::LEN),
            w_data: Default::default(),
            busy: Default::default(),
            idx_ok: Default::default(),
            entry: Default::default(),
            status: Default::default(),
            ecode: Default::default(),
            match_stag: Default::default(),
        }
    }
}

impl<const W: usize, const SA: usize, const PA: usize> Default for PlaceRegs<W, SA, PA> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const SA: usize, const PA: usize> Logic for PlaceRegs<W, SA, PA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            ctrl,
            origin,
            max_ulpdu,
            pd,
            window,
            first_msn,
            reasm_budget,
            reasm_records,
            s_stag,
            s_base,
            s_len,
            s_addr,
            s_pd,
            s_flags,
            s_refused,
            p_qn,
            p_msn,
            p_addr,
            p_len,
            p_refused,
            ph,
            inv_cmd,
            rd_entry,
            rd_valid,
            n_fpdus,
            n_placed,
            n_ooo,
            n_records,
            n_seq
        );
        self.port.clock.next = self.clock.val();
        self.port.rst.next = self.rst.val();
        AxiLiteSlave::<AB>::link(&mut self.s_axil, &mut self.port.s_axil);
        // A write is answered in the cycle it is taken, unless it starts a table command
        // (below); a command answers when the table has carried it out.
        self.port.b_give.next = self.port.wr.val();
        self.port.b_err.next = false;
        self.w_data.next = self.port.wr_data.val();

        // ---- Settings out. ----
        self.cfg_enable.next = self.ctrl.q.val().get_bit(0);
        self.cfg_markers.next = self.ctrl.q.val().get_bit(1);
        self.cfg_crc.next = self.ctrl.q.val().get_bit(2);
        self.cfg_rdmac.next = self.ctrl.q.val().get_bit(3);
        self.cfg_place.next = self.ctrl.q.val().get_bit(4);
        self.cfg_aligned.next = self.ctrl.q.val().get_bit(5);
        self.cfg_origin.next = self.origin.q.val();
        self.cfg_max_ulpdu.next = self.max_ulpdu.q.val();
        self.cfg_pd.next = self.pd.q.val();
        self.cfg_window.next = self.window.q.val();
        self.cfg_first_msn.next = self.first_msn.q.val();
        self.cfg_reasm_budget.next = self.reasm_budget.q.val();
        self.cfg_reasm_records.next = self.reasm_records.q.val();

        // ---- Counters. ----
        if self.fpdu_pulse.val() {
            self.n_fpdus.d.next = self.n_fpdus.q.val() + 1;
        }
        if self.placed_pulse.val() & self.placed_ooo.val() {
            self.n_ooo.d.next = self.n_ooo.q.val() + bit_cast::<32, 16>(self.placed_len.val());
        }
        if self.placed_pulse.val() {
            self.n_placed.d.next =
                self.n_placed.q.val() + bit_cast::<64, 16>(self.placed_len.val());
        }
        if self.record_pulse.val() {
            self.n_records.d.next = self.n_records.q.val() + 1;
        }
        if self.seq_drop_pulse.val() {
            self.n_seq.d.next = self.n_seq.q.val() + 1;
        }

        // ---- Table command ports (held while the phase lasts). ----
        self.idx_ok.next = (self.s_stag.q.val() >> self.c_ishift.val()) == 0;
        self.st_index.next = bit_cast::<SA, 32>(self.s_stag.q.val() >> 8);
        self.entry.next = (bit_cast::<ST_BITS, 32>(self.s_stag.q.val()) << self.c_st_stag.val())
            | (bit_cast::<ST_BITS, 64>(self.s_base.q.val()) << self.c_st_base.val())
            | (bit_cast::<ST_BITS, 64>(self.s_len.q.val()) << self.c_st_len.val())
            | (bit_cast::<ST_BITS, 64>(self.s_addr.q.val()) << self.c_st_addr.val())
            | (bit_cast::<ST_BITS, 32>(self.s_pd.q.val()) << self.c_st_pd.val())
            | (bit_cast::<ST_BITS, 2>(self.s_flags.q.val().get_bits::<2>(1))
                << self.c_st_write.val());
        self.st_entry.next = self.entry.val();
        self.st_valid.next = self.s_flags.q.val().get_bit(0);
        self.st_write.next = false;
        self.st_read.next = false;
        self.pb_write.next = false;
        self.pb_index.next = (bit_cast::<PA, 2>(self.p_qn.q.val().get_bits::<2>(0))
            << self.c_qsh.val())
            | bit_cast::<PA, 32>(self.p_msn.q.val() & self.c_msn_mask.val());
        self.pb_entry.next = bit_cast::<PB_BITS, 32>(self.p_msn.q.val())
            | (bit_cast::<PB_BITS, 64>(self.p_addr.q.val()) << self.c_pb_addr.val())
            | (bit_cast::<PB_BITS, 32>(self.p_len.q.val()) << self.c_pb_len.val());
        self.match_stag.next = self.rd_entry.q.val().get_bits::<32>(self.c_st_stag.val().index())
            == self.s_stag.q.val();
        if self.ph.q.val() == 1 {
            self.st_write.next = true;
            if self.st_done.val() {
                self.ph.d.next = 0.into();
                self.port.b_give.next = true;
            }
        }
        if self.ph.q.val() == 2 {
            // The block RAM's output is slow: registered first, looked at in phase 5.
            self.st_read.next = true;
            if self.st_done.val() {
                self.rd_entry.d.next = self.st_rd_entry.val();
                self.rd_valid.d.next = self.st_rd_valid.val();
                self.ph.d.next = 5.into();
            }
        }
        if self.ph.q.val() == 5 {
            if self.inv_cmd.q.val() {
                // An invalidation: clear the valid bit if the entry holds this STag.
                if self.match_stag.val() & self.rd_valid.q.val() {
                    self.ph.d.next = 3.into();
                } else {
                    self.ph.d.next = 0.into();
                    self.s_refused.d.next = true;
                    self.port.b_give.next = true;
                    self.port.b_err.next = true;
                }
            } else {
                // A read-back: the entry into the staging registers.
                self.ph.d.next = 0.into();
                self.s_base.d.next =
                    self.rd_entry.q.val().get_bits::<64>(self.c_st_base.val().index());
                self.s_len.d.next =
                    self.rd_entry.q.val().get_bits::<64>(self.c_st_len.val().index());
                self.s_addr.d.next =
                    self.rd_entry.q.val().get_bits::<64>(self.c_st_addr.val().index());
                self.s_pd.d.next = self.rd_entry.q.val().get_bits::<32>(self.c_st_pd.val().index());
                self.s_flags.d.next = (bit_cast::<3, 2>(
                    self.rd_entry.q.val().get_bits::<2>(self.c_st_write.val().index()),
                ) << 1)
                    | bit_cast::<3, 1>((self.match_stag.val() & self.rd_valid.q.val()).into());
                self.port.b_give.next = true;
            }
        }
        if self.ph.q.val() == 3 {
            self.st_write.next = true;
            self.st_entry.next = self.rd_entry.q.val();
            self.st_valid.next = false;
            if self.st_done.val() {
                self.ph.d.next = 0.into();
                self.port.b_give.next = true;
            }
        }
        if self.ph.q.val() == 4 {
            self.pb_write.next = true;
            if self.pb_done.val() {
                self.ph.d.next = 0.into();
                self.port.b_give.next = true;
            }
        }
        self.busy.next = self.ph.q.val() != 0;

        // ---- Writes (the handshakes are the port's; none while a command runs). ----
        if self.port.wr.val() {
            if !self.port.wr_whole.val() {
                self.port.b_err.next = true;
            } else {
                match self.port.wr_addr.val().index() {
                    // CTRL
                    2 => {
                        self.ctrl.d.next = self.w_data.val().get_bits::<6>(0);
                    }
                    // ORIGIN
                    4 => {
                        self.origin.d.next = self.w_data.val();
                    }
                    // MAX_ULPDU
                    5 => {
                        self.max_ulpdu.d.next = self.w_data.val().get_bits::<16>(0);
                    }
                    // PD
                    6 => {
                        self.pd.d.next = self.w_data.val();
                    }
                    // MSN_WINDOW
                    7 => {
                        // 1..=2^31 (RFC 5041: the window is at most half the MSN space).
                        if (self.w_data.val() == 0) | (self.w_data.val() > 0x8000_0000_u64) {
                            self.port.b_err.next = true;
                        } else {
                            self.window.d.next = self.w_data.val();
                        }
                    }
                    // FIRST_MSN
                    8 => {
                        self.first_msn.d.next = self.w_data.val();
                    }
                    // REASM_BUDGET
                    11 => {
                        self.reasm_budget.d.next = self.w_data.val();
                    }
                    // REASM_RECORDS
                    12 => {
                        self.reasm_records.d.next = self.w_data.val().get_bits::<8>(0);
                    }
                    // STAG
                    32 => {
                        self.s_stag.d.next = self.w_data.val();
                    }
                    // STAG_BASE_LO
                    33 => {
                        self.s_base.d.next = (self.s_base.q.val() & 0xFFFF_FFFF_0000_0000_u64)
                            | bit_cast::<64, 32>(self.w_data.val());
                    }
                    // STAG_BASE_HI
                    34 => {
                        self.s_base.d.next = (self.s_base.q.val() & 0xFFFF_FFFF_u64)
                            | (bit_cast::<64, 32>(self.w_data.val()) << 32);
                    }
                    // STAG_LEN_LO
                    35 => {
                        self.s_len.d.next = (self.s_len.q.val() & 0xFFFF_FFFF_0000_0000_u64)
                            | bit_cast::<64, 32>(self.w_data.val());
                    }
                    // STAG_LEN_HI
                    36 => {
                        self.s_len.d.next = (self.s_len.q.val() & 0xFFFF_FFFF_u64)
                            | (bit_cast::<64, 32>(self.w_data.val()) << 32);
                    }
                    // STAG_ADDR_LO
                    37 => {
                        self.s_addr.d.next = (self.s_addr.q.val() & 0xFFFF_FFFF_0000_0000_u64)
                            | bit_cast::<64, 32>(self.w_data.val());
                    }
                    // STAG_ADDR_HI
                    38 => {
                        self.s_addr.d.next = (self.s_addr.q.val() & 0xFFFF_FFFF_u64)
                            | (bit_cast::<64, 32>(self.w_data.val()) << 32);
                    }
                    // STAG_PD
                    39 => {
                        self.s_pd.d.next = self.w_data.val();
                    }
                    // STAG_FLAGS
                    40 => {
                        self.s_flags.d.next = self.w_data.val().get_bits::<3>(0);
                    }
                    // STAG_CMD
                    41 => {
                        // STag commands: the response waits for the table.
                        self.port.b_give.next = false;
                        self.s_refused.d.next = false;
                        if !self.idx_ok.val() {
                            self.port.b_give.next = true;
                            self.port.b_err.next = true;
                            self.s_refused.d.next = true;
                        } else if self.w_data.val() == 1 {
                            self.ph.d.next = 1.into();
                        } else if self.w_data.val() == 2 {
                            self.ph.d.next = 2.into();
                            self.inv_cmd.d.next = true;
                        } else if self.w_data.val() == 3 {
                            self.ph.d.next = 2.into();
                            self.inv_cmd.d.next = false;
                        } else {
                            self.port.b_give.next = true;
                            self.port.b_err.next = true;
                        }
                    }
                    // POST_QN
                    48 => {
                        self.p_qn.d.next = self.w_data.val();
                    }
                    // POST_MSN
                    49 => {
                        self.p_msn.d.next = self.w_data.val();
                    }
                    // POST_ADDR_LO
                    50 => {
                        self.p_addr.d.next = (self.p_addr.q.val() & 0xFFFF_FFFF_0000_0000_u64)
                            | bit_cast::<64, 32>(self.w_data.val());
                    }
                    // POST_ADDR_HI
                    51 => {
                        self.p_addr.d.next = (self.p_addr.q.val() & 0xFFFF_FFFF_u64)
                            | (bit_cast::<64, 32>(self.w_data.val()) << 32);
                    }
                    // POST_LEN
                    52 => {
                        self.p_len.d.next = self.w_data.val();
                    }
                    // POST_CMD
                    53 => {
                        self.port.b_give.next = false;
                        self.p_refused.d.next = false;
                        if (self.p_qn.q.val() > 2) | (self.w_data.val() != 1) {
                            self.port.b_give.next = true;
                            self.port.b_err.next = true;
                            self.p_refused.d.next = true;
                        } else {
                            self.ph.d.next = 4.into();
                        }
                    }
                    _ => {
                        self.port.b_err.next = true;
                    }
                }
            }
        }

        // ---- Reads: the register mux (the port takes the read and registers the answer). ----
        self.status.next = bit_cast::<32, 1>(self.running.val().into())
            | (bit_cast::<32, 1>(self.stopped.val().into()) << 1)
            | (bit_cast::<32, 1>((self.err_valid.val() | self.write_failed.val()).into()) << 2)
            | (bit_cast::<32, 1>(self.term_received.val().into()) << 3)
            | (bit_cast::<32, 1>(self.write_failed.val().into()) << 4)
            | (bit_cast::<32, 1>(self.resetting.val().into()) << 5)
            | (bit_cast::<32, 1>(self.busy.val().into()) << 6);
        self.ecode.next = 0.into();
        if self.err_valid.val() {
            self.ecode.next = bit_cast::<32, 16>(self.err_code.val()) | 0x1_0000;
        } else if self.write_failed.val() {
            self.ecode.next = 0x3_0000.into();
        }
        // The read mux: one case per register (word address = octet address / 4).
        self.port.rd_ok.next = true;
        self.port.rd_data.next = 0.into();
        match self.port.rd_addr.val().index() {
            // ID
            0 => {
                self.port.rd_data.next = 0x524E_5258.into();
            }
            // PARAMS
            1 => {
                self.port.rd_data.next = self.c_params.val();
            }
            // CTRL
            2 => {
                self.port.rd_data.next = bit_cast::<32, 6>(self.ctrl.q.val());
            }
            // STATUS
            3 => {
                self.port.rd_data.next = self.status.val();
            }
            // ORIGIN
            4 => {
                self.port.rd_data.next = self.origin.q.val();
            }
            // MAX_ULPDU
            5 => {
                self.port.rd_data.next = bit_cast::<32, 16>(self.max_ulpdu.q.val());
            }
            // PD
            6 => {
                self.port.rd_data.next = self.pd.q.val();
            }
            // MSN_WINDOW
            7 => {
                self.port.rd_data.next = self.window.q.val();
            }
            // FIRST_MSN
            8 => {
                self.port.rd_data.next = self.first_msn.q.val();
            }
            // ERR_CODE
            9 => {
                self.port.rd_data.next = self.ecode.val();
            }
            // ERR_SEQ
            10 => {
                self.port.rd_data.next = self.err_seq.val();
            }
            // REASM_BUDGET
            11 => {
                self.port.rd_data.next = self.reasm_budget.q.val();
            }
            // REASM_RECORDS
            12 => {
                self.port.rd_data.next = bit_cast::<32, 8>(self.reasm_records.q.val());
            }
            // REASM_LOCATED_OCTETS
            13 => {
                self.port.rd_data.next = self.reasm_located_octets.val();
            }
            // REASM_PLACED
            14 => {
                self.port.rd_data.next = self.reasm_placed.val();
            }
            // REASM_PLACED_OCTETS
            15 => {
                self.port.rd_data.next = self.n_ooo.q.val();
            }
            // CNT_FPDUS
            16 => {
                self.port.rd_data.next = self.n_fpdus.q.val();
            }
            // CNT_PLACED_LO
            17 => {
                self.port.rd_data.next = self.n_placed.q.val().get_bits::<32>(0);
            }
            // CNT_PLACED_HI
            18 => {
                self.port.rd_data.next = self.n_placed.q.val().get_bits::<32>(32);
            }
            // CNT_RECORDS
            19 => {
                self.port.rd_data.next = self.n_records.q.val();
            }
            // CNT_BURSTS
            20 => {
                self.port.rd_data.next = self.bursts.val();
            }
            // CNT_RESPONSES
            21 => {
                self.port.rd_data.next = self.responses.val();
            }
            // CNT_WRITE_ERRORS
            22 => {
                self.port.rd_data.next = self.write_errors.val();
            }
            // CNT_SEQ_DROPS
            23 => {
                self.port.rd_data.next = self.n_seq.q.val();
            }
            // QN0_MSN
            24 => {
                self.port.rd_data.next = self.qn0_msn.val();
            }
            // QN1_MSN
            25 => {
                self.port.rd_data.next = self.qn1_msn.val();
            }
            // QN2_MSN
            26 => {
                self.port.rd_data.next = self.qn2_msn.val();
            }
            // CNT_REFUSED
            27 => {
                self.port.rd_data.next = self.refused.val();
            }
            // REASM_HELD
            28 => {
                self.port.rd_data.next = self.reasm_held.val();
            }
            // REASM_RUNS
            29 => {
                self.port.rd_data.next = bit_cast::<32, 8>(self.reasm_runs.val());
            }
            // REASM_PEAK
            30 => {
                self.port.rd_data.next = self.reasm_peak.val();
            }
            // REASM_LOCATED
            31 => {
                self.port.rd_data.next = self.reasm_located.val();
            }
            // STAG
            32 => {
                self.port.rd_data.next = self.s_stag.q.val();
            }
            // STAG_BASE_LO
            33 => {
                self.port.rd_data.next = self.s_base.q.val().get_bits::<32>(0);
            }
            // STAG_BASE_HI
            34 => {
                self.port.rd_data.next = self.s_base.q.val().get_bits::<32>(32);
            }
            // STAG_LEN_LO
            35 => {
                self.port.rd_data.next = self.s_len.q.val().get_bits::<32>(0);
            }
            // STAG_LEN_HI
            36 => {
                self.port.rd_data.next = self.s_len.q.val().get_bits::<32>(32);
            }
            // STAG_ADDR_LO
            37 => {
                self.port.rd_data.next = self.s_addr.q.val().get_bits::<32>(0);
            }
            // STAG_ADDR_HI
            38 => {
                self.port.rd_data.next = self.s_addr.q.val().get_bits::<32>(32);
            }
            // STAG_PD
            39 => {
                self.port.rd_data.next = self.s_pd.q.val();
            }
            // STAG_FLAGS
            40 => {
                self.port.rd_data.next = bit_cast::<32, 3>(self.s_flags.q.val());
            }
            // STAG_CMD
            41 => {
                self.port.rd_data.next = bit_cast::<32, 1>(self.s_refused.q.val().into())
                    | (bit_cast::<32, 1>(((self.ph.q.val() != 0) & (self.ph.q.val() != 4)).into())
                        << 31);
            }
            // POST_QN
            48 => {
                self.port.rd_data.next = self.p_qn.q.val();
            }
            // POST_MSN
            49 => {
                self.port.rd_data.next = self.p_msn.q.val();
            }
            // POST_ADDR_LO
            50 => {
                self.port.rd_data.next = self.p_addr.q.val().get_bits::<32>(0);
            }
            // POST_ADDR_HI
            51 => {
                self.port.rd_data.next = self.p_addr.q.val().get_bits::<32>(32);
            }
            // POST_LEN
            52 => {
                self.port.rd_data.next = self.p_len.q.val();
            }
            // POST_CMD
            53 => {
                self.port.rd_data.next = bit_cast::<32, 1>(self.p_refused.q.val().into())
                    | (bit_cast::<32, 1>((self.ph.q.val() == 4).into()) << 31);
            }
            _ => {
                self.port.rd_ok.next = false;
            }
        }
        if self.rst.val() {
            self.ctrl.d.next = 4.into();
            self.origin.d.next = 0.into();
            self.max_ulpdu.d.next = 0xFFFF.into();
            self.pd.d.next = 0.into();
            self.window.d.next = self.c_window.val();
            self.first_msn.d.next = 1.into();
            self.reasm_budget.d.next = 0.into();
            self.reasm_records.d.next = 0.into();
            self.s_refused.d.next = false;
            self.p_refused.d.next = false;
            self.ph.d.next = 0.into();
            self.n_fpdus.d.next = 0.into();
            self.n_placed.d.next = 0.into();
            self.n_ooo.d.next = 0.into();
            self.n_records.d.next = 0.into();
            self.n_seq.d.next = 0.into();
        }
    }
}
