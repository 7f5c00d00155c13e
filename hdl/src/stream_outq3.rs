//! `StreamOutQ3`: a three-slot output queue fed by a block's output stage register, with
//! `s_axis.ready` a register that counts the beat announced for the next cycle.
//!
//! A block whose emit decision is the longest path in it registers the decided beat once (an
//! output stage: plain registers, no enable) and pushes it here a cycle later. The decision then
//! reaches only the stage's registers and this queue's `ready` flip-flop (one LUT), not the
//! slots' valid bits and payload enables. The price is one cycle of latency and a third slot: a
//! beat is already on its way (in the stage) when `ready` is sampled.
//!
//! - `s_next` (in): the block decided a beat this cycle (the stage's next valid), which
//!   `s_axis.valid` pushes in the next cycle. The block may decide one only while
//!   `s_axis.ready` is high.
//! - `s_axis.valid` is the push itself (the stage's valid): the slot the write pointer names is
//!   free whenever a beat announced under `ready` arrives.
//! - `s_axis.ready` is a flip-flop: after this cycle the queue holds at most two beats counting
//!   the one announced now (`held + s_next <= 2`, with `held` the beats held after this cycle's
//!   push and pop), so the beat decided next cycle finds a free slot the cycle after. With
//!   `m_axis.ready` always high one beat moves per cycle (one held, one in the stage).
//!
//! Each slot's payload registers load the pushed beat on every cycle the slot is free (enables
//! from registers), and `m_axis` is a 3:1 multiplexer of the slots selected by a one-hot read
//! pointer. No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties the slots; `s_axis.ready` is high from the cycle after) |
//! | `s_next` | in | 1 | a beat is announced: it is pushed on `s_axis` in the next cycle; only while `s_axis.ready` |
//! | `s_axis` | in | 8W | beats in; `valid` is the push of a beat announced the cycle before |
//! | `m_axis` | out | 8W | beats out, in order |
//!
//! ### Parameters, latency, throughput
//! `W`, `B = 8W`, `U`. One cycle from `s_axis` to `m_axis` (two from the announcement); one beat
//! per cycle in steady state.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Three-slot output queue whose registered `ready` counts an announced beat; see the module
/// documentation.
#[derive(LogicBlock)]
pub struct StreamOutQ3<const W: usize, const B: usize, const U: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// A beat is announced for the next cycle's push (only while `s_axis.ready`).
    pub s_next: Signal<In, Bit>,
    /// Beats in (`valid` is the push).
    pub s_axis: StreamSink<W, B, U>,
    /// Beats out.
    pub m_axis: StreamSource<W, B, U>,
    // Slot valid bits, one-hot write and read pointers (slot 0, 1, 2), the registered ready.
    v0: DFF<Bit>,
    v1: DFF<Bit>,
    v2: DFF<Bit>,
    wp0: DFF<Bit>,
    wp1: DFF<Bit>,
    wp2: DFF<Bit>,
    rp0: DFF<Bit>,
    rp1: DFF<Bit>,
    rp2: DFF<Bit>,
    rdy: DFF<Bit>,
    // The beats held as a thermometer code: at least one, two, three.
    h1: DFF<Bit>,
    h2: DFF<Bit>,
    h3: DFF<Bit>,
    d0: DFF<Bits<B>>,
    k0: DFF<Bits<W>>,
    u0: DFF<Bits<U>>,
    l0: DFF<Bit>,
    d1: DFF<Bits<B>>,
    k1: DFF<Bits<W>>,
    u1: DFF<Bits<U>>,
    l1: DFF<Bit>,
    d2: DFF<Bits<B>>,
    k2: DFF<Bits<W>>,
    u2: DFF<Bits<U>>,
    l2: DFF<Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    // Beats held after this cycle: at least two, three.
    two_plus: Signal<Local, Bit>,
    three: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize, const U: usize> StreamOutQ3<W, B, U> {
    /// An output queue; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamOutQ3", W, B, U);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_next: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            v0: Default::default(),
            v1: Default::default(),
            v2: Default::default(),
            wp0: Default::default(),
            wp1: Default::default(),
            wp2: Default::default(),
            rp0: Default::default(),
            rp1: Default::default(),
            rp2: Default::default(),
            rdy: Default::default(),
            h1: Default::default(),
            h2: Default::default(),
            h3: Default::default(),
            d0: Default::default(),
            k0: Default::default(),
            u0: Default::default(),
            l0: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            u1: Default::default(),
            l1: Default::default(),
            d2: Default::default(),
            k2: Default::default(),
            u2: Default::default(),
            l2: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            two_plus: Default::default(),
            three: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const U: usize> Default for StreamOutQ3<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const U: usize> Logic for StreamOutQ3<W, B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, v0, v1, v2, wp0, wp1, wp2, rp0, rp1, rp2, rdy, h1, h2, h3, d0, k0, u0, l0,
            d1, k1, u1, l1, d2, k2, u2, l2
        );
        self.push.next = self.s_axis.valid.val();
        // The slot the read pointer names is valid exactly while a beat is held (h1).
        self.m_axis.valid.next = self.h1.q.val();
        self.pop.next = self.m_axis.ready.val() & self.h1.q.val();
        self.m_axis.data.next = self.d0.q.val();
        self.m_axis.keep.next = self.k0.q.val();
        self.m_axis.user.next = self.u0.q.val();
        self.m_axis.last.next = self.l0.q.val();
        if self.rp1.q.val() {
            self.m_axis.data.next = self.d1.q.val();
            self.m_axis.keep.next = self.k1.q.val();
            self.m_axis.user.next = self.u1.q.val();
            self.m_axis.last.next = self.l1.q.val();
        }
        if self.rp2.q.val() {
            self.m_axis.data.next = self.d2.q.val();
            self.m_axis.keep.next = self.k2.q.val();
            self.m_axis.user.next = self.u2.q.val();
            self.m_axis.last.next = self.l2.q.val();
        }
        // A free slot loads the pushed payload every cycle; push decides whether it counts.
        if !self.v0.q.val() {
            self.d0.d.next = self.s_axis.data.val();
            self.k0.d.next = self.s_axis.keep.val();
            self.u0.d.next = self.s_axis.user.val();
            self.l0.d.next = self.s_axis.last.val();
        }
        self.v0.d.next = (self.v0.q.val() & !(self.pop.val() & self.rp0.q.val()))
            | (self.push.val() & self.wp0.q.val());
        if !self.v1.q.val() {
            self.d1.d.next = self.s_axis.data.val();
            self.k1.d.next = self.s_axis.keep.val();
            self.u1.d.next = self.s_axis.user.val();
            self.l1.d.next = self.s_axis.last.val();
        }
        self.v1.d.next = (self.v1.q.val() & !(self.pop.val() & self.rp1.q.val()))
            | (self.push.val() & self.wp1.q.val());
        if !self.v2.q.val() {
            self.d2.d.next = self.s_axis.data.val();
            self.k2.d.next = self.s_axis.keep.val();
            self.u2.d.next = self.s_axis.user.val();
            self.l2.d.next = self.s_axis.last.val();
        }
        self.v2.d.next = (self.v2.q.val() & !(self.pop.val() & self.rp2.q.val()))
            | (self.push.val() & self.wp2.q.val());
        if self.push.val() {
            self.wp0.d.next = self.wp2.q.val();
            self.wp1.d.next = self.wp0.q.val();
            self.wp2.d.next = self.wp1.q.val();
        }
        if self.pop.val() {
            self.rp0.d.next = self.rp2.q.val();
            self.rp1.d.next = self.rp0.q.val();
            self.rp2.d.next = self.rp1.q.val();
        }
        // held + push - pop, as the thermometer code (push and pop are registers and one
        // input port, not the slots' pointers).
        self.h1.d.next = self.push.val() | self.h2.q.val() | (self.h1.q.val() & !self.pop.val());
        self.two_plus.next = (self.push.val() & !self.pop.val() & self.h1.q.val())
            | (self.push.val() & self.pop.val() & self.h2.q.val())
            | (!self.push.val() & !self.pop.val() & self.h2.q.val())
            | (!self.push.val() & self.h3.q.val());
        self.three.next = (self.push.val() & !self.pop.val() & self.h2.q.val())
            | ((self.push.val() == self.pop.val()) & self.h3.q.val());
        self.h2.d.next = self.two_plus.val();
        self.h3.d.next = self.three.val();
        // held + s_next <= 2 after this cycle: s_next (late) at the last LUT.
        self.rdy.d.next = !self.three.val() & !(self.two_plus.val() & self.s_next.val());
        self.s_axis.ready.next = self.rdy.q.val();
        if self.rst.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.wp0.d.next = true;
            self.wp1.d.next = false;
            self.wp2.d.next = false;
            self.rp0.d.next = true;
            self.rp1.d.next = false;
            self.rp2.d.next = false;
            self.rdy.d.next = true;
            self.h1.d.next = false;
            self.h2.d.next = false;
            self.h3.d.next = false;
        }
    }
}
