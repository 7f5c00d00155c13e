//! `StreamOutQ`: a two-slot output queue whose data registers do not wait for `valid`.
//!
//! The output stage for blocks whose decision to emit a beat comes late in the cycle. Each slot's
//! payload registers load the offered beat on every cycle the slot is free, whether or not it is
//! valid; the late `s_axis.valid` only sets the slot's valid bit. So the payload registers' enables
//! come from registers alone (no high-fanout enable behind the block's decision logic), which is
//! what the `StreamSkid` in this position costs. The price: `m_axis` is a 2:1 multiplexer of the two
//! slots, selected by a register (one LUT level after registers, no path from any input).
//! [`StreamOutQ::with_registered_ready`] keeps `s_axis.ready` in a register of its own instead
//! of decoding it from the pointers and valid bits (the transmit blocks' decisions to emit
//! read it first; the receive blocks keep the decoded one: with the register, `mpa_rx_w8`
//! measured 97.5 / 91.2 / 98.8 MHz at seeds 1 to 3 against 104.6 / 100.7 / 99.3).
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
//! `rst` clears both valid bits and the pointers; `s_axis.ready` is high from the cycle after.

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
    // s_axis.ready: the slot at wp is free, kept as a register of its own (fewer than two beats
    // held after this cycle), so the upstream decision reads it straight from a flip-flop.
    rdy: DFF<Bit>,
    c_ready_reg: Constant<Bit>,
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
    /// An output queue whose `s_axis.ready` is decoded from the pointers and valid bits (one
    /// LUT after registers); panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        Self::build(false)
    }

    /// The same queue with `s_axis.ready` a register of its own (see the module
    /// documentation): the transmit blocks, whose decision to emit reads it first.
    pub fn with_registered_ready() -> Self {
        Self::build(true)
    }

    fn build(ready_reg: bool) -> Self {
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
            rdy: Default::default(),
            c_ready_reg: Constant::new(ready_reg),
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
        // The slot at wp is free; with a registered ready, exactly when fewer than two beats
        // are held (the slots fill in wp order and empty in rp order), which rdy keeps.
        self.s_axis.ready.next =
            (!self.wp.q.val() & !self.v0.q.val()) | (self.wp.q.val() & !self.v1.q.val());
        if self.c_ready_reg.val() {
            self.s_axis.ready.next = self.rdy.q.val();
        }
        self.push.next = self.s_axis.valid.val() & self.s_axis.ready.val();
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
        // Two beats held after this cycle: both now and none leaves, or one now, one comes and
        // none leaves.
        self.rdy.d.next = !((self.v0.q.val() & self.v1.q.val() & !self.pop.val())
            | ((self.v0.q.val() ^ self.v1.q.val()) & self.push.val() & !self.pop.val()));
        if self.rst.val() {
            self.rdy.d.next = true;
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.wp.d.next = false;
            self.rp.d.next = false;
        }
    }
}
