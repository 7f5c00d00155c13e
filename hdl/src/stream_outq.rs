//! `StreamOutQ`: a two-slot output queue whose data registers do not wait for `valid`.
//!
//! The output stage for blocks whose decision to emit a beat comes late in the cycle. Each slot's
//! payload registers load the offered beat on every cycle the slot is free, whether or not it is
//! valid; the late `s_axis.valid` only sets the slot's valid bit. So the payload registers' enables
//! come from registers alone (no high-fanout enable behind the block's decision logic), which is
//! what the `StreamSkid` in this position costs. The price: `m_axis` is a 2:1 multiplexer of the two
//! slots, selected by a register (one LUT level after registers, no path from any input).
//! No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties both slots) |
//! | `s_axis` | in | 8W | beats in; `s_axis.ready` comes from registers and, like `StreamSkid`'s, means "a beat offered now is taken" |
//! | `m_axis` | out | 8W | beats out, in order |
//!
//! ### Parameters, latency, throughput
//! `W`, `B = 8W`, `U`. One cycle from `s_axis` to `m_axis`; one beat per cycle in steady state.
//!
//! ### Reset
//! `rst` clears both valid bits and the pointers.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Two-slot output queue; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamOutQ<const W: usize, const B: usize, const U: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Beats in.
    pub s_axis: StreamSink<W, B, U>,
    /// Beats out.
    pub m_axis: StreamSource<W, B, U>,
    v0: DFF<Bit>,
    v1: DFF<Bit>,
    wp: DFF<Bit>,
    rp: DFF<Bit>,
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

impl<const W: usize, const B: usize, const U: usize> StreamOutQ<W, B, U> {
    /// An output queue; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamOutQ", W, B, U);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            v0: Default::default(),
            v1: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
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

impl<const W: usize, const B: usize, const U: usize> Default for StreamOutQ<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const U: usize> Logic for StreamOutQ<W, B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v0, v1, wp, rp, d0, k0, u0, l0, d1, k1, u1, l1);
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
        self.s_axis.ready.next =
            (!self.wp.q.val() & !self.v0.q.val()) | (self.wp.q.val() & !self.v1.q.val());
        self.push.next = self.s_axis.valid.val()
            & ((!self.wp.q.val() & !self.v0.q.val()) | (self.wp.q.val() & !self.v1.q.val()));
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
        if self.rst.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.wp.d.next = false;
            self.rp.d.next = false;
        }
    }
}
