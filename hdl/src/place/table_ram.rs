//! `TableRam`: a table of entries in block RAM with a valid bit per entry in registers, shared by
//! the datapath (lookups, invalidation) and the control plane (write, read back). It holds the
//! STag table (RFC 5040 section 2.1, RFC 5041 section 7.1: entry `index` of an STag
//! `index << 8 | key`, fields in [`crate::place::stag_entry`]) and the posted untagged buffers
//! (RFC 5041 section 5.3: slot `qn << RI | msn mod 2^RI`, fields in
//! [`crate::place::posted_entry`]).
//!
//! The valid bits live in registers, so that reset clears the table in one cycle and an
//! invalidation (Send with Invalidate) never rewrites the entry. A command's read waits for a
//! cycle without a lookup; a command's write goes in at once (the RAM's write port is the
//! commands' alone); each is told when it is done (`ctl_done`). An invalidation applies to the
//! entry the datapath looked up last, and only if no command rewrote that entry since: a host
//! that registers a new STag at the same index while a Send with Invalidate of the old one is
//! being checked keeps its new registration.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset: every entry invalid |
//! | `lk_en`, `lk_index` | in | 1, A | datapath: read entry `lk_index`; entry and valid bit on `rd_entry` / `rd_valid` the next cycle |
//! | `inv_en`, `inv_index` | in | 1, A | datapath: clear the valid bit of `inv_index` |
//! | `ctl_write`, `ctl_read` | in | 1 | command: write `ctl_entry` / `ctl_valid` into `ctl_index`, or read it (held until `ctl_done`) |
//! | `ctl_index`, `ctl_entry`, `ctl_valid` | in | A, E, 1 | the command's operands |
//! | `ctl_done` | out | 1 | pulse: the command was carried out (a read's entry is on `rd_entry` / `rd_valid` in this cycle) |
//! | `rd_entry`, `rd_valid` | out | E, 1 | the entry read in the previous cycle (RAM output; the valid bit registered beside it) |
//!
//! ### Parameters
//! `A` index bits, `N = 2^A` entries, `E` bits per entry. The STag table is built with 256
//! entries by default, the posted buffers with 64 per queue.
//!
//! ### Latency
//! A lookup's entry one cycle later. A command is done one cycle after it gets the port
//! (reads wait for a cycle without a lookup).
//!
//! ### On bad input
//! Indexes are always inside the table (callers check the high bits first). A command and an
//! invalidation of the same entry in the same cycle: the command wins. An invalidation of an
//! entry other than the one looked up last is ignored.

use rust_hdl::prelude::*;

/// The table; see the module documentation.
#[derive(LogicBlock)]
pub struct TableRam<const A: usize, const N: usize, const E: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Checker: look up an entry.
    pub lk_en: Signal<In, Bit>,
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
    /// The entry read last cycle.
    pub rd_entry: Signal<Out, Bits<E>>,
    /// Its valid bit.
    pub rd_valid: Signal<Out, Bit>,
    ram: RAM<Bits<E>, A>,
    valid: DFF<Bits<N>>,
    rvalid: DFF<Bit>,
    rd_pending: DFF<Bit>,
    done: DFF<Bit>,
    lk_idx: DFF<Bits<A>>,
    dirty: DFF<Bit>,
    do_read: Signal<Local, Bit>,
    do_write: Signal<Local, Bit>,
    vnext: Signal<Local, Bits<N>>,
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
            lk_en: Default::default(),
            lk_index: Default::default(),
            inv_en: Default::default(),
            inv_index: Default::default(),
            ctl_write: Default::default(),
            ctl_read: Default::default(),
            ctl_index: Default::default(),
            ctl_entry: Default::default(),
            ctl_valid: Default::default(),
            ctl_done: Default::default(),
            rd_entry: Default::default(),
            rd_valid: Default::default(),
            ram: Default::default(),
            valid: Default::default(),
            rvalid: Default::default(),
            rd_pending: Default::default(),
            done: Default::default(),
            lk_idx: Default::default(),
            dirty: Default::default(),
            do_read: Default::default(),
            do_write: Default::default(),
            vnext: Default::default(),
        }
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
        dff_setup!(self, clock, valid, rvalid, rd_pending, done, lk_idx, dirty);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.rd_entry.next = self.ram.read_data.val();
        self.rd_valid.next = self.rvalid.q.val();
        // A write is done the cycle after it; a read when its data is on the RAM output.
        self.ctl_done.next = self.done.q.val() | self.rd_pending.q.val();
        self.done.d.next = false;
        self.rd_pending.d.next = false;

        // Read port: the checker first; a command's read when the checker is quiet.
        self.do_read.next = self.ctl_read.val() & !self.lk_en.val() & !self.rd_pending.q.val();
        self.ram.read_address.next = self.ctl_index.val();
        self.rvalid.d.next = self.valid.q.val().get_bit(self.ctl_index.val().index());
        if self.lk_en.val() {
            self.ram.read_address.next = self.lk_index.val();
            self.rvalid.d.next = self.valid.q.val().get_bit(self.lk_index.val().index());
        }
        if self.do_read.val() {
            self.rd_pending.d.next = true;
        }

        // Write port: only commands write the RAM; the checker only clears valid bits.
        self.ram.write_address.next = self.ctl_index.val();
        self.ram.write_data.next = self.ctl_entry.val();
        self.ram.write_enable.next = false;
        self.do_write.next = self.ctl_write.val() & !self.done.q.val();
        // An invalidation is for the entry looked up last, as it was then: not applied if a
        // command rewrote that entry since (the command's STag is not the one invalidated).
        if self.lk_en.val() {
            self.lk_idx.d.next = self.lk_index.val();
            self.dirty.d.next = self.do_write.val() & (self.ctl_index.val() == self.lk_index.val());
        } else if self.do_write.val() & (self.ctl_index.val() == self.lk_idx.q.val()) {
            self.dirty.d.next = true;
        }
        self.vnext.next = self.valid.q.val();
        if self.inv_en.val() & (self.inv_index.val() == self.lk_idx.q.val()) & !self.dirty.q.val() {
            self.vnext.next = self.vnext.val().replace_bit(self.inv_index.val().index(), false);
        }
        if self.do_write.val() {
            self.ram.write_enable.next = true;
            self.vnext.next =
                self.vnext.val().replace_bit(self.ctl_index.val().index(), self.ctl_valid.val());
            self.done.d.next = true;
        }
        self.valid.d.next = self.vnext.val();

        if self.rst.val() {
            self.valid.d.next = 0.into();
            self.done.d.next = false;
            self.rd_pending.d.next = false;
        }
    }
}
