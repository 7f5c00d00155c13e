//! `PlaceCheckTable`: the placement checker for up to 16 connections, their context records
//! and settings in tables (DESIGN, "Connection state is explicit"; RFC 5041 sections 5.3 and
//! 7, RFC 5040 section 5.6; what `MpaRxTable` is for `mpa_rx`).
//!
//! Header records of many connections arrive on `hdr`, each tagged with its connection
//! (`hdr_conn`), each connection's in its order. [`super::check::PlaceCheck`] built
//! [`super::check::PlaceCheck::with_context`] serves one connection at a time; this block keeps
//! every connection's [`CheckCtx`] (308 bits) and settings (protection domain, MSN window) in
//! two tables of distributed RAM, 16 entries each, and swaps them when a header of a
//! connection not loaded is offered: the header waits while the checker drains (nothing in
//! flight, every descriptor and record out), then the switch is armed (the connection's
//! settings read into registers, which drive the checker's `cfg_pd` and `cfg_window`), and in
//! the next cycle the loaded connection's record is written back and the new one's read
//! (asynchronously) and loaded. The host opens a connection (`tbl_*`) with its settings and
//! first MSN: the block writes its fresh record (every queue expecting that MSN, no message
//! open, no error).
//!
//! ```text
//!  hdr, hdr_conn ─► [another connection: wait for idle, arm, swap] ─► PlaceCheck (with_context) ─► desc, rec (conn)
//!                    ▲ records (308 b) + settings (64 b): 2 LutRam x 16 ◄── fresh record ◄── tbl_* (host opens)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset (the checker's; no connection loaded, `conn` 0; the tables keep their contents, every connection must be opened again) |
//! | `tbl_we`, `tbl_conn` | in | 1, 4 | open connection `tbl_conn` this cycle |
//! | `tbl_pd`, `tbl_window`, `tbl_first_msn` | in | 32 | its protection domain, MSN window, and the first MSN of its three queues |
//! | `hdr`, `hdr_conn` | in | , 4 | header records ([`super::header::HeaderIn`]) and their connection: a record once offered stays offered, with the same connection, until it is taken (AXI-Stream's rule; a switch relies on it) |
//! | `stop_in` | in | 1 | the loaded connection stops placing (a memory write failed) |
//! | `st_*`, `pb_*`, `desc_*`, `rec_*`, `stopped`, `err_*`, counters, `qn*_msn`, `probe_*`, `skip_*` | | | as on [`super::check::PlaceCheck`], for the connection loaded; `pb_lk_index` is `PT` bits: the connection above the checker's `PA` (each connection its own posted buffers) |
//! | `conn` | out | 4 | the connection loaded: every descriptor, record and pulse leaving belongs to it (a switch waits until the FIFOs are empty); 0 after `rst` until the first switch |
//! | `switching` | out | 1 | a header waits for a switch |
//! | `idle` | out | 1 | the checker's `idle`, and no switch pending |
//!
//! A connection must be opened before its first header, and every connection again after
//! `rst`: the loaded connection's record is written back only at a switch, so its table entry
//! is as it was when it was loaded, and `rst` forgets which connection that was (the tables
//! are not cleared). Opening the connection loaded takes effect from its next header (the
//! record it holds is then not written back); a switch waits while the host opens a
//! connection, and is armed again after it (a host opening connections in every other cycle
//! would hold a switch off). `stop_in` stops the connection loaded; a write failure of another
//! connection's descriptor, reported after a switch, would stop the wrong one: the writer's
//! failure report carries no connection yet (`rnic_rx` serves one).
//!
//! ### Parameters
//! `SA` STag table index bits, `PA` the checker's posted-buffer slot bits, `PT = PA + 4`.
//!
//! ### Latency and throughput
//! The checker's within a connection (five cycles from a header to its descriptor, a header
//! per cycle); a switch costs the drain (`ctx_idle_0` seven cycles after the last header is
//! taken when the outputs are taken at once), the arm cycle and the load cycle: a header of
//! another connection waits at most 9 cycles then (measured in
//! `testbench/tests/place_check_ctx.rs`).

use crate::lutram::LutRam;
use crate::place::check::{PlaceCheck, REC_BITS};
use crate::place::check_ctx::CheckCtxFields;
pub use crate::place::check_ctx::{CheckCtx, CHECK_CTX_BITS};
use crate::place::header::HeaderIn;
use crate::place::{desc, posted_entry, stag_entry};
pub use crate::rx::realign_table::CONN_BITS;
use rust_hdl::prelude::*;

const ST_BITS: usize = stag_entry::BITS;
const PB_BITS: usize = posted_entry::BITS;

/// The placement checker for 16 connections; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceCheckTable<const SA: usize, const PA: usize, const PT: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Open a connection: write its fresh record and its settings.
    pub tbl_we: Signal<In, Bit>,
    /// The connection opened.
    pub tbl_conn: Signal<In, Bits<CONN_BITS>>,
    /// Its protection domain.
    pub tbl_pd: Signal<In, Bits<32>>,
    /// Its MSN window.
    pub tbl_window: Signal<In, Bits<32>>,
    /// The first MSN of its queues.
    pub tbl_first_msn: Signal<In, Bits<32>>,
    /// Stop placing (the loaded connection).
    pub stop_in: Signal<In, Bit>,
    /// Header records.
    pub hdr: HeaderIn,
    /// Their connection.
    pub hdr_conn: Signal<In, Bits<CONN_BITS>>,
    /// STag table: its read port is a command's this cycle.
    pub st_lk_busy: Signal<In, Bit>,
    /// STag table: entry to look up.
    pub st_lk_index: Signal<Out, Bits<SA>>,
    /// STag table: invalidate.
    pub st_inv_en: Signal<Out, Bit>,
    /// STag table: entry to invalidate.
    pub st_inv_index: Signal<Out, Bits<SA>>,
    /// STag table: the entry read.
    pub st_entry: Signal<In, Bits<ST_BITS>>,
    /// STag table: its valid bit.
    pub st_valid: Signal<In, Bit>,
    /// Posted buffers: the read port is a command's this cycle.
    pub pb_lk_busy: Signal<In, Bit>,
    /// Posted buffers: slot to look up (the connection above the checker's slot).
    pub pb_lk_index: Signal<Out, Bits<PT>>,
    /// Posted buffers: the entry read.
    pub pb_entry: Signal<In, Bits<PB_BITS>>,
    /// Posted buffers: its valid bit.
    pub pb_valid: Signal<In, Bit>,
    /// STag table: a command write waits or is done in this cycle.
    pub st_wr_pend: Signal<In, Bit>,
    /// STag table: its entry.
    pub st_wr_index: Signal<In, Bits<SA>>,
    /// Descriptor offered.
    pub desc_valid: Signal<Out, Bit>,
    /// Descriptor.
    pub desc_data: Signal<Out, Bits<{ desc::BITS }>>,
    /// Descriptor taken.
    pub desc_ready: Signal<In, Bit>,
    /// Record offered.
    pub rec_valid: Signal<Out, Bit>,
    /// Record.
    pub rec_data: Signal<Out, Bits<REC_BITS>>,
    /// Record taken.
    pub rec_ready: Signal<In, Bit>,
    /// The loaded connection is stopped.
    pub stopped: Signal<Out, Bit>,
    /// Its first error is known.
    pub err_valid: Signal<Out, Bit>,
    /// Its Terminate code.
    pub err_code: Signal<Out, Bits<16>>,
    /// Its FPDU's sequence number.
    pub err_seq: Signal<Out, Bits<32>>,
    /// Pulse: a ULPDU was decided.
    pub fpdu_pulse: Signal<Out, Bit>,
    /// Pulse: payload sent to be written.
    pub placed_pulse: Signal<Out, Bit>,
    /// Its octets.
    pub placed_len: Signal<Out, Bits<16>>,
    /// They were placed out of order.
    pub placed_ooo: Signal<Out, Bit>,
    /// Expected MSN of queue 0 (the loaded connection).
    pub qn0_msn: Signal<Out, Bits<32>>,
    /// Expected MSN of queue 1.
    pub qn1_msn: Signal<Out, Bits<32>>,
    /// Expected MSN of queue 2.
    pub qn2_msn: Signal<Out, Bits<32>>,
    /// The checker is idle and no switch is pending.
    pub idle: Signal<Out, Bit>,
    /// Pulse: a probe was decided.
    pub probe_valid: Signal<Out, Bit>,
    /// Its checks pass.
    pub probe_ok: Signal<Out, Bit>,
    /// It is tagged and carries payload.
    pub probe_tpl: Signal<Out, Bit>,
    /// It is the L = 1 segment of a Send with Invalidate.
    pub probe_inv: Signal<Out, Bit>,
    /// Its STag or Invalidate STag.
    pub probe_stag: Signal<Out, Bits<32>>,
    /// Its header decoded.
    pub probe_dec: Signal<Out, Bit>,
    /// The sequence number of the ULPDU in stage D.
    pub skip_ask: Signal<Out, Bits<32>>,
    /// `skip_ask`'s ULPDU was placed out of order.
    pub skip_hit: Signal<In, Bit>,
    /// Pulse: an in-order ULPDU placed out of order was decided.
    pub skip_take: Signal<Out, Bit>,
    /// Its sequence number.
    pub skip_seq: Signal<Out, Bits<32>>,
    /// The connection loaded.
    pub conn: Signal<Out, Bits<CONN_BITS>>,
    /// A header waits for a switch.
    pub switching: Signal<Out, Bit>,
    check: PlaceCheck<SA, PA>,
    t_rec: LutRam<CHECK_CTX_BITS, CONN_BITS>,
    t_set: LutRam<64, CONN_BITS>,
    // The connection loaded, and whether one is.
    cur: DFF<Bits<CONN_BITS>>,
    cur_v: DFF<Bit>,
    // Armed: the next connection (`nxt`) is read; its settings are in `set_q` (pd, window).
    arm: DFF<Bit>,
    nxt: DFF<Bits<CONN_BITS>>,
    set_q: DFF<Bits<64>>,
    want: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    fresh: Signal<Local, Bits<CHECK_CTX_BITS>>,
    c_pa: Constant<Bits<8>>,
}

impl<const SA: usize, const PA: usize, const PT: usize> PlaceCheckTable<SA, PA, PT> {
    /// Builds the block; panics with a message naming the rule if a parameter is illegal.
    pub fn new() -> Self {
        assert_eq!(PT, PA + CONN_BITS, "PlaceCheckTable: PT must be PA + {CONN_BITS}");
        Self {
            clock: Default::default(),
            rst: Default::default(),
            tbl_we: Default::default(),
            tbl_conn: Default::default(),
            tbl_pd: Default::default(),
            tbl_window: Default::default(),
            tbl_first_msn: Default::default(),
            stop_in: Default::default(),
            hdr: Default::default(),
            hdr_conn: Default::default(),
            st_lk_busy: Default::default(),
            st_lk_index: Default::default(),
            st_inv_en: Default::default(),
            st_inv_index: Default::default(),
            st_entry: Default::default(),
            st_valid: Default::default(),
            pb_lk_busy: Default::default(),
            pb_lk_index: Default::default(),
            pb_entry: Default::default(),
            pb_valid: Default::default(),
            st_wr_pend: Default::default(),
            st_wr_index: Default::default(),
            desc_valid: Default::default(),
            desc_data: Default::default(),
            desc_ready: Default::default(),
            rec_valid: Default::default(),
            rec_data: Default::default(),
            rec_ready: Default::default(),
            stopped: Default::default(),
            err_valid: Default::default(),
            err_code: Default::default(),
            err_seq: Default::default(),
            fpdu_pulse: Default::default(),
            placed_pulse: Default::default(),
            placed_len: Default::default(),
            placed_ooo: Default::default(),
            qn0_msn: Default::default(),
            qn1_msn: Default::default(),
            qn2_msn: Default::default(),
            idle: Default::default(),
            probe_valid: Default::default(),
            probe_ok: Default::default(),
            probe_tpl: Default::default(),
            probe_inv: Default::default(),
            probe_stag: Default::default(),
            probe_dec: Default::default(),
            skip_ask: Default::default(),
            skip_hit: Default::default(),
            skip_take: Default::default(),
            skip_seq: Default::default(),
            conn: Default::default(),
            switching: Default::default(),
            check: PlaceCheck::with_context(),
            t_rec: Default::default(),
            t_set: Default::default(),
            cur: Default::default(),
            cur_v: Default::default(),
            arm: Default::default(),
            nxt: Default::default(),
            set_q: Default::default(),
            want: Default::default(),
            load: Default::default(),
            fresh: Default::default(),
            c_pa: Constant::new((PA as u64).into()),
        }
    }
}

impl<const SA: usize, const PA: usize, const PT: usize> Default for PlaceCheckTable<SA, PA, PT> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const SA: usize, const PA: usize, const PT: usize> Logic for PlaceCheckTable<SA, PA, PT> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cur, cur_v, arm, nxt, set_q);
        self.check.clock.next = self.clock.val();
        self.check.rst.next = self.rst.val();
        self.t_rec.clock.next = self.clock.val();
        self.t_set.clock.next = self.clock.val();

        // ---- The switch: a header of a connection not loaded waits; once the checker is
        // idle (no header reaches it meanwhile) and the host is not opening one, arm (its
        // settings into `set_q`); in the next cycle, unless the host opens one then, write the
        // loaded record back and load the new one. ----
        self.want.next = self.hdr.valid.val()
            & (!self.cur_v.q.val() | (self.hdr_conn.val() != self.cur.q.val()));
        self.t_set.read_address.next = self.hdr_conn.val();
        self.t_rec.read_address.next = self.nxt.q.val();
        self.load.next = self.arm.q.val() & !self.tbl_we.val();
        self.arm.d.next = false;
        if self.want.val() & !self.arm.q.val() & self.check.ctx_idle[0].val() & !self.tbl_we.val() {
            self.arm.d.next = true;
            self.nxt.d.next = self.hdr_conn.val();
            self.set_q.d.next = self.t_set.read_data.val();
        }
        self.check.ctx_in[0].next = self.t_rec.read_data.val();
        self.check.ctx_load[0].next = self.load.val();
        if self.load.val() {
            self.cur.d.next = self.nxt.q.val();
            self.cur_v.d.next = true;
        }

        // ---- The tables' write port: the host's open first, else a switch's write-back. ----
        self.fresh.next = 0.into();
        self.fresh.next.set_value_chk_ctx_base0(self.tbl_first_msn.val());
        self.fresh.next.set_value_chk_ctx_base1(self.tbl_first_msn.val());
        self.fresh.next.set_value_chk_ctx_base2(self.tbl_first_msn.val());
        self.t_set.write_enable.next = self.tbl_we.val();
        self.t_set.write_address.next = self.tbl_conn.val();
        self.t_set.write_data.next = bit_cast::<64, 32>(self.tbl_pd.val())
            | (bit_cast::<64, 32>(self.tbl_window.val()) << 32);
        self.t_rec.write_enable.next = self.tbl_we.val() | (self.load.val() & self.cur_v.q.val());
        self.t_rec.write_address.next = self.cur.q.val();
        self.t_rec.write_data.next = self.check.ctx_out[0].val();
        if self.tbl_we.val() {
            self.t_rec.write_address.next = self.tbl_conn.val();
            self.t_rec.write_data.next = self.fresh.val();
            // Opening the loaded connection: its record held is not written back.
            if self.tbl_conn.val() == self.cur.q.val() {
                self.cur_v.d.next = false;
            }
        }

        // ---- The checker, with the loaded connection's settings. ----
        self.check.cfg_pd.next = self.set_q.q.val().get_bits::<32>(0);
        self.check.cfg_window.next = self.set_q.q.val().get_bits::<32>(32);
        self.check.cfg_first_msn.next = 0.into();
        self.check.stop_in.next = self.stop_in.val();
        // While armed no header reaches the checker, so its load is honoured: `want` stays
        // high, since the header that asked for the switch stays offered with its connection
        // until it is taken (AXI-Stream's rule, which `hdr` follows). Gating with `arm` as well,
        // for a source that withdrew it, cost 15 % of Fmax (stop 79: 74.8 / 91.2 / 83.8 MHz at
        // seeds 1 to 3 against 98.9 / 97.9 / 97.1; the term lands on the take's enables).
        self.check.hdr.valid.next = self.hdr.valid.val() & !self.want.val();
        self.hdr.ready.next = self.check.hdr.ready.val() & !self.want.val();
        self.check.hdr.seq.next = self.hdr.seq.val();
        self.check.hdr.ulen.next = self.hdr.ulen.val();
        self.check.hdr.err.next = self.hdr.err.val();
        self.check.hdr.mpa.next = self.hdr.mpa.val();
        self.check.hdr.code.next = self.hdr.code.val();
        self.check.hdr.tagged.next = self.hdr.tagged.val();
        self.check.hdr.last.next = self.hdr.last.val();
        self.check.hdr.opcode.next = self.hdr.opcode.val();
        self.check.hdr.stag.next = self.hdr.stag.val();
        self.check.hdr.to.next = self.hdr.to.val();
        self.check.hdr.qn.next = self.hdr.qn.val();
        self.check.hdr.msn.next = self.hdr.msn.val();
        self.check.hdr.mo.next = self.hdr.mo.val();
        self.check.hdr.plen.next = self.hdr.plen.val();
        self.check.hdr.skip.next = self.hdr.skip.val();
        self.check.hdr.sink_stag.next = self.hdr.sink_stag.val();
        self.check.hdr.sink_to.next = self.hdr.sink_to.val();
        self.check.hdr.rd_size.next = self.hdr.rd_size.val();
        self.check.hdr.src_stag.next = self.hdr.src_stag.val();
        self.check.hdr.src_to.next = self.hdr.src_to.val();
        self.check.hdr.tctl.next = self.hdr.tctl.val();
        self.check.hdr.echo.next = self.hdr.echo.val();
        self.check.hdr.mode.next = self.hdr.mode.val();
        self.check.st_lk_busy.next = self.st_lk_busy.val();
        self.st_lk_index.next = self.check.st_lk_index.val();
        self.st_inv_en.next = self.check.st_inv_en.val();
        self.st_inv_index.next = self.check.st_inv_index.val();
        self.check.st_entry.next = self.st_entry.val();
        self.check.st_valid.next = self.st_valid.val();
        self.check.pb_lk_busy.next = self.pb_lk_busy.val();
        self.pb_lk_index.next = bit_cast::<PT, PA>(self.check.pb_lk_index.val())
            | (bit_cast::<PT, CONN_BITS>(self.cur.q.val()) << self.c_pa.val());
        self.check.pb_entry.next = self.pb_entry.val();
        self.check.pb_valid.next = self.pb_valid.val();
        self.check.st_wr_pend.next = self.st_wr_pend.val();
        self.check.st_wr_index.next = self.st_wr_index.val();
        self.desc_valid.next = self.check.desc_valid.val();
        self.desc_data.next = self.check.desc_data.val();
        self.check.desc_ready.next = self.desc_ready.val();
        self.rec_valid.next = self.check.rec_valid.val();
        self.rec_data.next = self.check.rec_data.val();
        self.check.rec_ready.next = self.rec_ready.val();
        self.stopped.next = self.check.stopped.val();
        self.err_valid.next = self.check.err_valid.val();
        self.err_code.next = self.check.err_code.val();
        self.err_seq.next = self.check.err_seq.val();
        self.fpdu_pulse.next = self.check.fpdu_pulse.val();
        self.placed_pulse.next = self.check.placed_pulse.val();
        self.placed_len.next = self.check.placed_len.val();
        self.placed_ooo.next = self.check.placed_ooo.val();
        self.qn0_msn.next = self.check.qn0_msn.val();
        self.qn1_msn.next = self.check.qn1_msn.val();
        self.qn2_msn.next = self.check.qn2_msn.val();
        self.idle.next = self.check.idle.val() & !self.want.val() & !self.arm.q.val();
        self.probe_valid.next = self.check.probe_valid.val();
        self.probe_ok.next = self.check.probe_ok.val();
        self.probe_tpl.next = self.check.probe_tpl.val();
        self.probe_inv.next = self.check.probe_inv.val();
        self.probe_stag.next = self.check.probe_stag.val();
        self.probe_dec.next = self.check.probe_dec.val();
        self.skip_ask.next = self.check.skip_ask.val();
        self.check.skip_hit.next = self.skip_hit.val();
        self.skip_take.next = self.check.skip_take.val();
        self.skip_seq.next = self.check.skip_seq.val();
        self.conn.next = self.cur.q.val();
        self.switching.next = self.want.val() | self.arm.q.val();

        if self.rst.val() {
            self.cur.d.next = 0.into();
            self.cur_v.d.next = false;
            self.arm.d.next = false;
        }
    }
}
