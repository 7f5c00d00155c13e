//! `RegFifo`: a small first-word-fall-through FIFO in registers, with a registered output.
//!
//! For short queues beside a datapath (results, descriptors), where a block RAM would be wasted.
//! A circular buffer in distributed RAM ([`crate::lutram::LutRam`], 32 words, asynchronous
//! read) with binary pointers and a thermometer count: the head is read through the RAM's
//! asynchronous port into the output register, so no signal that depends on the consumer fans
//! out to the storage. No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties the FIFO) |
//! | `push` | in | 1 | write `push_data` this cycle (the caller guarantees room: see `overflow`) |
//! | `push_data` | in | N | the entry |
//! | `out_valid` | out | 1 | `out_data` holds the oldest entry (registered) |
//! | `out_data` | out | N | the oldest entry (registered) |
//! | `out_ready` | in | 1 | the consumer takes `out_data` this cycle (a transfer is `out_valid && out_ready`) |
//! | `not_full` | out | 1 | a push this cycle has room (registered: from the entry count) |
//! | `empty` | out | 1 | no entry stored and none in the output register (registered) |
//! | `overflow` | out | 1 | sticky: a push found the FIFO full (a caller bug; the contents are undefined until reset) |
//!
//! ### Parameters
//! `N` bits per entry; `depth` (constructor): 2 to 32 entries, plus the output register.
//!
//! ### Latency and throughput
//! An entry pushed at cycle t is on `out_valid` at t+2 (written at t, loaded into the output
//! register at t+1). One push and one pop per cycle. `out_valid`/`out_data` follow the stream
//! handshake rules (held until taken).
//!
//! ### Reset
//! `rst` empties the FIFO and clears `overflow`; the entries themselves are not reset.

use crate::lutram::LutRam;
use rust_hdl::prelude::*;

/// Register FIFO with binary pointers and a registered first-word-fall-through output.
#[derive(LogicBlock)]
pub struct RegFifo<const N: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Write an entry.
    pub push: Signal<In, Bit>,
    /// The entry to write.
    pub push_data: Signal<In, Bits<N>>,
    /// The output register holds the oldest entry.
    pub out_valid: Signal<Out, Bit>,
    /// The oldest entry.
    pub out_data: Signal<Out, Bits<N>>,
    /// The consumer takes the entry.
    pub out_ready: Signal<In, Bit>,
    /// A push this cycle has room.
    pub not_full: Signal<Out, Bit>,
    /// Nothing stored, nothing offered.
    pub empty: Signal<Out, Bit>,
    /// Sticky overflow flag.
    pub overflow: Signal<Out, Bit>,
    ram: LutRam<N, 5>,
    wr: DFF<Bits<5>>,
    rd: DFF<Bits<5>>,
    // Entries stored (not counting the output register), as a thermometer code.
    cnt: DFF<Bits<32>>,
    ov: DFF<Bit>,
    oq_valid: DFF<Bit>,
    oq_data: DFF<Bits<N>>,
    // The thermometer's full mark: 1 << (depth - 1).
    c_last: Constant<Bits<32>>,
    // Below 32 entries the slot at the write pointer is always free: write it every cycle.
    c_free_slot: Constant<Bit>,
    load: Signal<Local, Bit>,
}

impl<const N: usize> RegFifo<N> {
    /// A FIFO of `depth` entries (plus the output register).
    pub fn new(depth: usize) -> Self {
        assert!((2..=32).contains(&depth), "RegFifo: depth must be 2 to 32 entries (got {depth})");
        Self {
            clock: Default::default(),
            rst: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_ready: Default::default(),
            not_full: Default::default(),
            empty: Default::default(),
            overflow: Default::default(),
            ram: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            cnt: Default::default(),
            ov: Default::default(),
            oq_valid: Default::default(),
            oq_data: Default::default(),
            c_last: Constant::new((1u64 << (depth - 1)).into()),
            c_free_slot: Constant::new(depth < 32),
            load: Default::default(),
        }
    }
}

impl<const N: usize> Logic for RegFifo<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, cnt, ov, oq_valid, oq_data);
        self.ram.clock.next = self.clock.val();
        self.ram.write_address.next = self.wr.q.val();
        self.ram.write_data.next = self.push_data.val();
        self.ram.read_address.next = self.rd.q.val();
        // Write at the write pointer; only the pointer follows `push`. With fewer than 32 entries
        // the slot there never holds a stored entry, so it is written every cycle and the
        // consumer's handshake (often behind `push`) does not reach the RAM's write
        // enable. With 32 the enable is the push itself (no fullness check in the enable path).
        // A push into a full FIFO is flagged and leaves the contents undefined until reset.
        self.ram.write_enable.next = self.push.val() | self.c_free_slot.val();
        if self.push.val() {
            self.wr.d.next = self.wr.q.val() + 1;
            if (self.cnt.q.val() & self.c_last.val()).any() {
                self.ov.d.next = true;
            }
        }
        // Read: load the output register when it is free (empty or being taken).
        self.load.next =
            (!self.oq_valid.q.val() | self.out_ready.val()) & self.cnt.q.val().get_bit(0);
        if self.load.val() {
            self.oq_data.d.next = self.ram.read_data.val();
            self.oq_valid.d.next = true;
            self.rd.d.next = self.rd.q.val() + 1;
        } else if self.out_ready.val() {
            self.oq_valid.d.next = false;
        }
        // Count (thermometer): up on an accepted push, down on a load.
        if self.push.val() & !(self.cnt.q.val() & self.c_last.val()).any() {
            if !self.load.val() {
                self.cnt.d.next = (self.cnt.q.val() << 1) | 1;
            }
        } else if self.load.val() {
            self.cnt.d.next = self.cnt.q.val() >> 1;
        }
        self.out_valid.next = self.oq_valid.q.val();
        self.out_data.next = self.oq_data.q.val();
        self.overflow.next = self.ov.q.val();
        self.not_full.next = !(self.cnt.q.val() & self.c_last.val()).any();
        self.empty.next = !self.cnt.q.val().any() & !self.oq_valid.q.val();
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.ov.d.next = false;
            self.oq_valid.d.next = false;
        }
    }
}
