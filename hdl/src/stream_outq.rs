//! `StreamOutQ`: a two-slot output queue whose data registers do not wait for `valid`.
//!
//! The output stage for blocks whose decision to emit a beat comes late in the cycle. Each slot's
//! payload registers load the offered beat on every cycle the slot is free, whether or not it is
//! valid; the late `s_axis.valid` only sets the slot's valid bit. So the payload registers' enables
//! come from registers alone (no high-fanout enable behind the block's decision logic), which is
//! what the `StreamSkid` in this position costs. The price: `m_axis` is a 2:1 multiplexer of the two
//! slots, selected by a register (one LUT level after registers, no path from any input).
//!
//! [`StreamOutQ::with_registered_ready`] makes the same queue with `s_axis.ready` a register of
//! its own (the slot at the write pointer is full, worked out from the next state), so that a
//! block whose decisions start from this `ready` starts them from a flip-flop instead of a LUT
//! of four. The same outputs cycle for cycle; the path moves to the late `s_axis.valid`, which now
//! also feeds that register (one LUT after the push), so it helps only where the decisions that
//! read `ready` are longer than the path into `valid`.
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
    // The slot at the write pointer is full (registered ready, inverted so that the all-zero
    // state before any reset is the empty queue's).
    full_q: DFF<Bit>,
    c_reg_ready: Constant<Bit>,
}

impl<const W: usize, const B: usize, const U: usize> StreamOutQ<W, B, U> {
    /// An output queue; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        Self::build(false)
    }

    /// The same queue with `s_axis.ready` from a register of its own (see the module
    /// documentation). Used by the segmenter, whose emit decisions start from this `ready`.
    pub fn with_registered_ready() -> Self {
        Self::build(true)
    }

    fn build(reg_ready: bool) -> Self {
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
            full_q: Default::default(),
            c_reg_ready: Constant::new(reg_ready),
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
        dff_setup!(self, clock, v0, v1, wp, rp, d0, k0, u0, l0, d1, k1, u1, l1, full_q);
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
        if self.c_reg_ready.val() {
            self.s_axis.ready.next = !self.full_q.q.val();
        }
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
        // Next cycle's ready, from the next state (the reset above included).
        self.full_q.d.next =
            (!self.wp.d.val() & self.v0.d.val()) | (self.wp.d.val() & self.v1.d.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle<const W: usize, const B: usize, const U: usize>(s: &mut StreamOutQ<W, B, U>) {
        for _ in 0..8 {
            s.update_all();
            if !s.has_changed() {
                break;
            }
        }
    }

    fn cycle<const W: usize, const B: usize, const U: usize>(s: &mut StreamOutQ<W, B, U>) {
        s.clock.next = Clock::from(false);
        settle(s);
        s.clock.next = Clock::from(true);
        settle(s);
    }

    /// Both kinds side by side under pseudo-random valid, ready and resets: the same `ready`
    /// and outputs every cycle, and every beat offered while `ready` is high comes out once, in
    /// order (a reset in the middle empties both; the beats counted restart after it).
    #[test]
    fn registered_ready_gives_the_same_outputs_as_new() {
        let mut a = StreamOutQ::<4, 32, 8>::new();
        let mut b = StreamOutQ::<4, 32, 8>::with_registered_ready();
        a.connect_all();
        b.connect_all();
        check_all(&a).unwrap();
        check_all(&b).unwrap();
        let mut lcg: u64 = 777;
        let mut next = || {
            lcg = lcg.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lcg >> 33
        };
        let (mut sent, mut got) = (Vec::new(), Vec::new());
        let mut beat = 0u64;
        let mut checked = 0;
        for cyc in 0..5000 {
            let rst = cyc < 2 || cyc == 2500;
            if rst {
                checked += got.len();
                assert_eq!(got[..], sent[..got.len()], "beats out differ from beats in");
                sent.clear();
                got.clear();
            }
            let valid = next() % 3 != 0;
            let ready = next() % 4 != 0;
            for s in [&mut a, &mut b] {
                s.rst.next = rst;
                s.s_axis.valid.next = valid;
                s.s_axis.data.next = ((beat * 0x0101_0101) & 0xFFFF_FFFF).into();
                s.s_axis.keep.next = (beat & 15).into();
                s.s_axis.user.next = (beat & 255).into();
                s.s_axis.last.next = beat % 5 == 0;
                s.m_axis.ready.next = ready;
                settle(s);
            }
            assert_eq!(a.s_axis.ready.val(), b.s_axis.ready.val(), "ready, cycle {cyc}");
            assert_eq!(a.m_axis.valid.val(), b.m_axis.valid.val(), "valid, cycle {cyc}");
            let out = |s: &StreamOutQ<4, 32, 8>| {
                (
                    s.m_axis.data.val().index(),
                    s.m_axis.keep.val().index(),
                    s.m_axis.user.val().index(),
                    s.m_axis.last.val(),
                )
            };
            if a.m_axis.valid.val() {
                assert_eq!(out(&a), out(&b), "payload, cycle {cyc}");
                if ready && !rst {
                    got.push(out(&a));
                }
            }
            if valid && a.s_axis.ready.val() && !rst {
                let b = beat as usize;
                sent.push(((b * 0x0101_0101) & 0xFFFF_FFFF, b & 15, b & 255, beat % 5 == 0));
                beat += 1;
            }
            cycle(&mut a);
            cycle(&mut b);
        }
        checked += got.len();
        assert_eq!(got[..], sent[..got.len()], "beats out differ from beats in");
        assert!(checked > 2000, "only {checked} beats out");
        assert!(sent.len() - got.len() <= 2, "beats lost: {} in, {} out", sent.len(), got.len());
    }
}
