//! `StreamOutQRr`: [`StreamOutQ`] with `s_axis.ready` kept in a register of its own.
//!
//! The transmit blocks' decision to emit reads the output queue's `ready` first; in
//! [`StreamOutQ`] that `ready` is decoded from the slot pointers and valid bits (one LUT after
//! registers). Here it is a flip-flop: the queue holds fewer than two beats after this cycle,
//! kept from a beat count beside the queue (+1 per beat in, -1 per beat out). The queue itself
//! is the same [`StreamOutQ`] (its own decoded `ready` equals this register at every cycle), so
//! the receive blocks, which keep the plain queue, keep the netlist they were measured with
//! (`mpa_rx_w8` with the register inside the shared queue measured 97.5 / 91.2 / 98.8 MHz at
//! seeds 1 to 3 against 104.6 / 100.7 / 99.3). No RFC section: infrastructure.
//!
//! ### Ports
//! As [`StreamOutQ`]: `clock`, `rst` (empties the queue; `s_axis.ready` is high from the cycle
//! after), `s_axis`, `m_axis`.
//!
//! ### Parameters, latency, throughput
//! `W`, `B = 8W`, `U`; as [`StreamOutQ`]: one cycle from `s_axis` to `m_axis`, one beat per cycle.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use rust_hdl::prelude::*;

/// Two-slot output queue with a registered `s_axis.ready`; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamOutQRr<const W: usize, const B: usize, const U: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Beats in.
    pub s_axis: StreamSink<W, B, U>,
    /// Beats out.
    pub m_axis: StreamSource<W, B, U>,
    q: StreamOutQ<W, B, U>,
    // Beats held: one (n1) or two (n2); neither: empty.
    n1: DFF<Bit>,
    n2: DFF<Bit>,
    rdy: DFF<Bit>,
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
            q: StreamOutQ::new(),
            n1: Default::default(),
            n2: Default::default(),
            rdy: Default::default(),
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
        dff_setup!(self, clock, n1, n2, rdy);
        self.q.clock.next = self.clock.val();
        self.q.rst.next = self.rst.val();
        self.q.s_axis.data.next = self.s_axis.data.val();
        self.q.s_axis.keep.next = self.s_axis.keep.val();
        self.q.s_axis.user.next = self.s_axis.user.val();
        self.q.s_axis.last.next = self.s_axis.last.val();
        self.q.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.rdy.q.val();
        self.m_axis.data.next = self.q.m_axis.data.val();
        self.m_axis.keep.next = self.q.m_axis.keep.val();
        self.m_axis.user.next = self.q.m_axis.user.val();
        self.m_axis.last.next = self.q.m_axis.last.val();
        self.m_axis.valid.next = self.q.m_axis.valid.val();
        self.q.m_axis.ready.next = self.m_axis.ready.val();
        // The count: a beat in when offered while not full, out when taken while not empty.
        self.push.next = self.s_axis.valid.val() & self.rdy.q.val();
        self.pop.next = self.m_axis.ready.val() & (self.n1.q.val() | self.n2.q.val());
        if self.push.val() & !self.pop.val() {
            self.n1.d.next = !self.n1.q.val() & !self.n2.q.val();
            self.n2.d.next = self.n1.q.val();
        }
        if self.pop.val() & !self.push.val() {
            self.n1.d.next = self.n2.q.val();
            self.n2.d.next = false;
        }
        // Two beats held after this cycle: both now and none leaves, or one now, one comes and
        // none leaves.
        self.rdy.d.next = !((self.n2.q.val() & !self.pop.val())
            | (self.n1.q.val() & self.push.val() & !self.pop.val()));
        if self.rst.val() {
            self.n1.d.next = false;
            self.n2.d.next = false;
            self.rdy.d.next = true;
        }
    }
}
