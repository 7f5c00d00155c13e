//! `StreamOutQRr`: the framer's and the Marker inserter's two-slot output queue, with
//! `s_axis.ready` a register and `s_axis.valid` taken as a push (the segmenter's is
//! [`crate::stream_outq3::StreamOutQ3`], behind an output stage).
//!
//! The transmit blocks' decision to emit reads the queue's `ready` first and comes late in the
//! cycle. As in [`crate::stream_outq::StreamOutQ`], each slot's payload registers load the offered
//! beat on every cycle the slot is free (their enables come from registers), and `m_axis` is a 2:1
//! multiplexer of the two slots selected by a register. Two differences, both to keep the late
//! `valid` at the last LUT of every register it reaches:
//! - `s_axis.ready` is a flip-flop: the queue holds fewer than two beats after this cycle. (In
//!   `StreamOutQ` it is decoded from the pointers and valid bits; with the register inside the
//!   shared queue the receive blocks measured worse, `mpa_rx_w8` 97.5 / 91.2 / 98.8 MHz at seeds 1
//!   to 3 against 104.6 / 100.7 / 99.3, so they keep `StreamOutQ`.)
//! - **Contract:** `s_axis.valid` is high only while `s_axis.ready` is (every transmit block
//!   gates its emit decision by `ready`), so `valid` is the push itself, not `valid & ready`:
//!   the write pointer is `wp ^ valid`, each slot's valid bit and `ready` one LUT after `valid`.
//!   A beat offered while `ready` is low would overwrite a held one; the transmit blocks' tests
//!   (every W, random backpressure, both engines) check that none is lost.
//!
//! No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties both slots; `s_axis.ready` is high from the cycle after) |
//! | `s_axis` | in | 8W | beats in; `valid` only while `ready` (above) |
//! | `m_axis` | out | 8W | beats out, in order |
//!
//! ### Parameters, latency, throughput
//! `W`, `B = 8W`, `U`. One cycle from `s_axis` to `m_axis`; one beat per cycle in steady state.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Two-slot output queue with a registered `s_axis.ready`; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamOutQRr<const W: usize, const B: usize, const U: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Beats in (`valid` only while `ready`).
    pub s_axis: StreamSink<W, B, U>,
    /// Beats out.
    pub m_axis: StreamSource<W, B, U>,
    // Slot valid bits, the write and read pointers, the registered ready.
    v0: DFF<Bit>,
    v1: DFF<Bit>,
    wp: DFF<Bit>,
    rp: DFF<Bit>,
    rdy: DFF<Bit>,
    d0: DFF<Bits<B>>,
    k0: DFF<Bits<W>>,
    u0: DFF<Bits<U>>,
    l0: DFF<Bit>,
    d1: DFF<Bits<B>>,
    k1: DFF<Bits<W>>,
    u1: DFF<Bits<U>>,
    l1: DFF<Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize, const U: usize> StreamOutQRr<W, B, U> {
    /// An output queue; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamOutQRr", W, B, U);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            v0: Default::default(),
            v1: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
            rdy: Default::default(),
            d0: Default::default(),
            k0: Default::default(),
            u0: Default::default(),
            l0: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            u1: Default::default(),
            l1: Default::default(),
            push: Default::default(),
            pop: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const U: usize> Default for StreamOutQRr<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const U: usize> Logic for StreamOutQRr<W, B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v0, v1, wp, rp, rdy, d0, k0, u0, l0, d1, k1, u1, l1);
        // A free slot loads the offered payload every cycle; valid decides whether it counts.
        if !self.v0.q.val() {
            self.d0.d.next = self.s_axis.data.val();
            self.k0.d.next = self.s_axis.keep.val();
            self.u0.d.next = self.s_axis.user.val();
            self.l0.d.next = self.s_axis.last.val();
        }
        if !self.v1.q.val() {
            self.d1.d.next = self.s_axis.data.val();
            self.k1.d.next = self.s_axis.keep.val();
            self.u1.d.next = self.s_axis.user.val();
            self.l1.d.next = self.s_axis.last.val();
        }
        self.s_axis.ready.next = self.rdy.q.val();
        // valid is the push (the contract above): the slot wp points to is free whenever
        // ready is high.
        self.push.next = self.s_axis.valid.val();
        self.m_axis.valid.next =
            (!self.rp.q.val() & self.v0.q.val()) | (self.rp.q.val() & self.v1.q.val());
        self.pop.next = self.m_axis.ready.val()
            & ((!self.rp.q.val() & self.v0.q.val()) | (self.rp.q.val() & self.v1.q.val()));
        self.m_axis.data.next = self.d0.q.val();
        self.m_axis.keep.next = self.k0.q.val();
        self.m_axis.user.next = self.u0.q.val();
        self.m_axis.last.next = self.l0.q.val();
        if self.rp.q.val() {
            self.m_axis.data.next = self.d1.q.val();
            self.m_axis.keep.next = self.k1.q.val();
            self.m_axis.user.next = self.u1.q.val();
            self.m_axis.last.next = self.l1.q.val();
        }
        if self.push.val() {
            self.wp.d.next = !self.wp.q.val();
            if self.wp.q.val() {
                self.v1.d.next = true;
            } else {
                self.v0.d.next = true;
            }
        }
        if self.pop.val() {
            self.rp.d.next = !self.rp.q.val();
            if self.rp.q.val() {
                self.v1.d.next = false;
            } else {
                self.v0.d.next = false;
            }
        }
        // Fewer than two beats held after this cycle: not both now with none leaving, and not
        // one now with one coming and none leaving.
        self.rdy.d.next = !((self.v0.q.val() & self.v1.q.val() & !self.pop.val())
            | ((self.v0.q.val() ^ self.v1.q.val()) & self.push.val() & !self.pop.val()));
        if self.rst.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.wp.d.next = false;
            self.rp.d.next = false;
            self.rdy.d.next = true;
        }
    }
}
