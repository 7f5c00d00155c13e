//! `TableRam`: a table of entries in block RAM with a valid bit per entry, shared by the
//! datapath (lookups, invalidation) and the control plane (write, read back). It holds the STag
//! table (RFC 5040 section 2.1, RFC 5041 section 7.1: entry `index` of an STag
//! `index << 8 | key`, fields in [`crate::place::stag_entry`]) and the posted untagged buffers
//! (RFC 5041 section 5.3: slot `qn << RI | msn mod 2^RI`, fields in
//! [`crate::place::posted_entry`]).
//!
//! Two RAMs with the same addresses: the entries, written by commands only, and the valid bits
//! (one bit wide), written by commands, by the datapath's invalidation and by the clearing
//! sweep. So an invalidation (Send with Invalidate) never rewrites an entry, and clearing the
//! table is one write per entry: after `clear` (and reset) the block walks all `N` entries,
//! `busy` meanwhile. A lookup's data comes from both RAMs' registered outputs.
//!
//! ```text
//!  lk_index ──┬─► RAM<entry> ──► rd_entry
//!             └─► RAM<valid> ──► rd_valid        write ports: entries ◄─ commands
//!                                                             valid   ◄─ sweep > invalidation > command
//! ```
//!
//! The read port is the datapath's in every cycle (a lookup is read whether or not it is taken,
//! so its address does not wait for the datapath's handshake) but one: a command's read takes
//! the port in the cycle after it is asked for (`lk_busy` high: no lookup is served in that
//! cycle, the datapath takes no record in it). A command's write waits for a cycle without an
//! invalidation or sweep; each is told when it is done (`ctl_done`). An invalidation clears the
//! valid bit of `inv_index`, whichever entry that is: the checker asks only for the entry its
//! ULPDU looked up, and only if no command rewrote that entry since (`wr_pend`, `wr_index`), so
//! a host that registers a new STag at the same index while a Send with Invalidate of the old
//! one is being checked keeps its new registration.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset: the table is cleared (sweep) |
//! | `clear` | in | 1 | pulse: clear every valid bit (sweep, `N` cycles) |
//! | `busy` | out | 1 | the sweep is running: lookups read stale valid bits, commands wait |
//! | `lk_index` | in | A | datapath: read entry `lk_index` (every cycle); entry and valid bit on `rd_entry` / `rd_valid` the next cycle |
//! | `lk_busy` | out | 1 | registered: the read port is a command's this cycle, a lookup now is not served |
//! | `inv_en`, `inv_index` | in | 1, A | datapath: clear the valid bit of `inv_index` (the caller has checked `wr_pend` since its lookup) |
//! | `wr_pend`, `wr_index` | out | 1, A | a command write waits for the port or is done in this cycle, and its entry |
//! | `ctl_write`, `ctl_read` | in | 1 | command: write `ctl_entry` / `ctl_valid` into `ctl_index`, or read it (held until `ctl_done`) |
//! | `ctl_index`, `ctl_entry`, `ctl_valid` | in | A, E, 1 | the command's operands |
//! | `ctl_done` | out | 1 | pulse: the command was carried out (a read's entry is on `rd_entry` / `rd_valid` in this cycle) |
//! | `rd_entry`, `rd_valid` | out | E, 1 | the entry read in the previous cycle (the RAMs' outputs) |
//!
//! ### Parameters
//! `A` index bits, `N = 2^A` entries, `E` bits per entry. The STag table is built with 256
//! entries by default, the posted buffers with 64 per queue.
//!
//! ### Latency
//! A lookup's entry one cycle later. A command is done one cycle after it gets the port; a
//! read gets it the cycle after it is asked (stop 64: before, a read took any cycle without a
//! lookup, and the datapath's lookup enable, behind its handshake, chose the block RAM's
//! address: `rnic_rx_w8`'s critical path).
//!
//! ### On bad input
//! Indexes are always inside the table (callers check the high bits first). The block does not
//! check an invalidation against the lookups: that is the caller's (before stop 79 this said
//! an invalidation of another entry than the last looked up was ignored; it never was).

use rust_hdl::prelude::*;

/// The table; see the module documentation.
#[derive(LogicBlock)]
pub struct TableRam<const A: usize, const N: usize, const E: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Clear every valid bit.
    pub clear: Signal<In, Bit>,
    /// The clearing sweep is running.
    pub busy: Signal<Out, Bit>,
    /// The read port is a command's this cycle (registered): a lookup now is not served.
    pub lk_busy: Signal<Out, Bit>,
    /// Checker: the entry to look up.
    pub lk_index: Signal<In, Bits<A>>,
    /// Checker: invalidate an entry.
    pub inv_en: Signal<In, Bit>,
    /// Checker: the entry to invalidate.
    pub inv_index: Signal<In, Bits<A>>,
    /// Command: write an entry.
    pub ctl_write: Signal<In, Bit>,
    /// Command: read an entry.
    pub ctl_read: Signal<In, Bit>,
    /// Command: the entry.
    pub ctl_index: Signal<In, Bits<A>>,
    /// Command: the entry's fields to write.
    pub ctl_entry: Signal<In, Bits<E>>,
    /// Command: its valid bit.
    pub ctl_valid: Signal<In, Bit>,
    /// Pulse: the command is done.
    pub ctl_done: Signal<Out, Bit>,
    /// A command write waits or is done in this cycle.
    pub wr_pend: Signal<Out, Bit>,
    /// Its entry.
    pub wr_index: Signal<Out, Bits<A>>,
    /// The entry read last cycle.
    pub rd_entry: Signal<Out, Bits<E>>,
    /// Its valid bit.
    pub rd_valid: Signal<Out, Bit>,
    ram: RAM<Bits<E>, A>,
    vram: RAM<Bit, A>,
    sweep: DFF<Bit>,
    sweep_at: DFF<Bits<A>>,
    rd_pending: DFF<Bit>,
    done: DFF<Bit>,
    // A command read has the read port this cycle.
    ctl_turn: DFF<Bit>,
    c_last: Constant<Bits<A>>,
    do_write: Signal<Local, Bit>,
    do_inv: Signal<Local, Bit>,
}

impl<const A: usize, const N: usize, const E: usize> TableRam<A, N, E> {
    /// Builds the table; panics unless `N == 2^A` and `1 <= A <= 14`.
    pub fn new() -> Self {
        assert!(
            (1..=14).contains(&A) && N == 1 << A,
            "TableRam: N must be 2^A entries with A in 1..=14 (got A = {A}, N = {N})"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            clear: Default::default(),
            busy: Default::default(),
            lk_busy: Default::default(),
            lk_index: Default::default(),
            inv_en: Default::default(),
            inv_index: Default::default(),
            ctl_write: Default::default(),
            ctl_read: Default::default(),
            ctl_index: Default::default(),
            ctl_entry: Default::default(),
            ctl_valid: Default::default(),
            ctl_done: Default::default(),
            wr_pend: Default::default(),
            wr_index: Default::default(),
            rd_entry: Default::default(),
            rd_valid: Default::default(),
            ram: Default::default(),
            vram: Default::default(),
            sweep: Default::default(),
            sweep_at: Default::default(),
            rd_pending: Default::default(),
            done: Default::default(),
            ctl_turn: Default::default(),
            c_last: Constant::new(((N - 1) as u64).into()),
            do_write: Default::default(),
            do_inv: Default::default(),
        }
    }

    /// Cycles the clearing sweep takes.
    pub const fn sweep_cycles() -> usize {
        N
    }
}

impl<const A: usize, const N: usize, const E: usize> Default for TableRam<A, N, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize, const N: usize, const E: usize> Logic for TableRam<A, N, E> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sweep, sweep_at, rd_pending, done, ctl_turn);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.vram.read_clock.next = self.clock.val();
        self.vram.write_clock.next = self.clock.val();
        self.rd_entry.next = self.ram.read_data.val();
        self.rd_valid.next = self.vram.read_data.val();
        self.busy.next = self.sweep.q.val();
        // A write is done the cycle after it; a read when its data is on the RAM output.
        self.ctl_done.next = self.done.q.val() | self.rd_pending.q.val();
        self.done.d.next = false;
        self.rd_pending.d.next = false;

        // Read ports (both RAMs at the same address): the checker's, but in a command read's
        // turn (a register, the cycle after the read is asked for and not yet served).
        self.ctl_turn.d.next = self.ctl_read.val()
            & !self.ctl_turn.q.val()
            & !self.rd_pending.q.val()
            & !self.sweep.q.val();
        self.lk_busy.next = self.ctl_turn.q.val();
        self.ram.read_address.next = self.lk_index.val();
        self.vram.read_address.next = self.lk_index.val();
        if self.ctl_turn.q.val() {
            self.ram.read_address.next = self.ctl_index.val();
            self.vram.read_address.next = self.ctl_index.val();
            self.rd_pending.d.next = true;
        }

        // Write ports: entries from commands; valid bits from the sweep, then the checker's
        // invalidation, then commands.
        self.do_inv.next = self.inv_en.val();
        self.do_write.next =
            self.ctl_write.val() & !self.done.q.val() & !self.do_inv.val() & !self.sweep.q.val();
        self.wr_pend.next = self.ctl_write.val() & !self.done.q.val() & !self.sweep.q.val();
        self.wr_index.next = self.ctl_index.val();
        self.ram.write_address.next = self.ctl_index.val();
        self.ram.write_data.next = self.ctl_entry.val();
        self.ram.write_enable.next = self.do_write.val();
        self.vram.write_address.next = self.ctl_index.val();
        self.vram.write_data.next = self.ctl_valid.val();
        self.vram.write_enable.next = self.do_write.val();
        if self.do_write.val() {
            self.done.d.next = true;
        }
        if self.do_inv.val() {
            self.vram.write_address.next = self.inv_index.val();
            self.vram.write_data.next = false;
            self.vram.write_enable.next = true;
        }
        if self.sweep.q.val() {
            self.vram.write_address.next = self.sweep_at.q.val();
            self.vram.write_data.next = false;
            self.vram.write_enable.next = true;
            self.sweep_at.d.next = self.sweep_at.q.val() + 1;
            if self.sweep_at.q.val() == self.c_last.val() {
                self.sweep.d.next = false;
            }
        }
        if self.clear.val() | self.rst.val() {
            self.sweep.d.next = true;
            self.sweep_at.d.next = 0.into();
        }
        if self.rst.val() {
            self.done.d.next = false;
            self.rd_pending.d.next = false;
            self.ctl_turn.d.next = false;
        }
    }
}
