//! `StreamFifo`: a 32-beat FIFO for a stream bundle, in distributed RAM, with a registered output.
//!
//! Holds beats while something beside the datapath catches up (the CRC unit keeps an FPDU's
//! beats here until the pipelined CRC engine has its CRC). Four [`crate::lutram::LutRam`]s (data,
//! keep, user, last) share one pair of pointers; the head is read through the RAMs' asynchronous
//! port into an output register, so `m_axis` comes from registers. No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties the FIFO) |
//! | `s_axis` | in | 8W | beats in; `s_axis.ready` is registered and exact: high iff the RAM has room this cycle |
//! | `m_axis` | out | 8W | beats out (output register, first word fall through) |
//! | `count` | out | 6 | beats in the RAM (not counting the output register), registered |
//!
//! ### Parameters, latency, throughput
//! `W`, `B = 8W`, `U` user bits. 32 entries in RAM plus the output register. A beat written at
//! cycle t is on `m_axis` at t+2 when the FIFO was empty; one beat in and one out per cycle.
//!
//! ### Reset
//! `rst` empties the FIFO; the RAM contents are not reset.

use crate::lutram::LutRam;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Entries of the RAM.
pub const STREAM_FIFO_DEPTH: usize = 32;

/// A stream FIFO; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamFifo<const W: usize, const B: usize, const U: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Beats in.
    pub s_axis: StreamSink<W, B, U>,
    /// Beats out.
    pub m_axis: StreamSource<W, B, U>,
    /// Beats held in the RAM.
    pub count: Signal<Out, Bits<6>>,
    ram_data: LutRam<B, 5>,
    ram_keep: LutRam<W, 5>,
    ram_user: LutRam<U, 5>,
    ram_last: LutRam<1, 5>,
    wr: DFF<Bits<5>>,
    rd: DFF<Bits<5>>,
    cnt: DFF<Bits<6>>,
    ready_q: DFF<Bit>,
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<B>>,
    o_keep: DFF<Bits<W>>,
    o_user: DFF<Bits<U>>,
    o_last: DFF<Bit>,
    push: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    cnt_next: Signal<Local, Bits<6>>,
}

impl<const W: usize, const B: usize, const U: usize> StreamFifo<W, B, U> {
    /// A FIFO; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamFifo", W, B, U);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            count: Default::default(),
            ram_data: Default::default(),
            ram_keep: Default::default(),
            ram_user: Default::default(),
            ram_last: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            cnt: Default::default(),
            ready_q: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_user: Default::default(),
            o_last: Default::default(),
            push: Default::default(),
            load: Default::default(),
            cnt_next: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const U: usize> Default for StreamFifo<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const U: usize> Logic for StreamFifo<W, B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, cnt, ready_q, o_valid, o_data, o_keep, o_user, o_last);
        self.ram_data.clock.next = self.clock.val();
        self.ram_keep.clock.next = self.clock.val();
        self.ram_user.clock.next = self.clock.val();
        self.ram_last.clock.next = self.clock.val();
        // Write side.
        self.s_axis.ready.next = self.ready_q.q.val();
        self.push.next = self.s_axis.valid.val() & self.ready_q.q.val();
        self.ram_data.write_address.next = self.wr.q.val();
        self.ram_keep.write_address.next = self.wr.q.val();
        self.ram_user.write_address.next = self.wr.q.val();
        self.ram_last.write_address.next = self.wr.q.val();
        self.ram_data.write_data.next = self.s_axis.data.val();
        self.ram_keep.write_data.next = self.s_axis.keep.val();
        self.ram_user.write_data.next = self.s_axis.user.val();
        self.ram_last.write_data.next = bit_cast::<1, 1>(self.s_axis.last.val().into());
        self.ram_data.write_enable.next = self.push.val();
        self.ram_keep.write_enable.next = self.push.val();
        self.ram_user.write_enable.next = self.push.val();
        self.ram_last.write_enable.next = self.push.val();
        if self.push.val() {
            self.wr.d.next = self.wr.q.val() + 1;
        }
        // Read side: load the output register when it is free or being taken.
        self.ram_data.read_address.next = self.rd.q.val();
        self.ram_keep.read_address.next = self.rd.q.val();
        self.ram_user.read_address.next = self.rd.q.val();
        self.ram_last.read_address.next = self.rd.q.val();
        self.load.next =
            (!self.o_valid.q.val() | self.m_axis.ready.val()) & (self.cnt.q.val() != 0);
        if self.load.val() {
            self.o_data.d.next = self.ram_data.read_data.val();
            self.o_keep.d.next = self.ram_keep.read_data.val();
            self.o_user.d.next = self.ram_user.read_data.val();
            self.o_last.d.next = self.ram_last.read_data.val().any();
            self.o_valid.d.next = true;
            self.rd.d.next = self.rd.q.val() + 1;
        } else if self.m_axis.ready.val() {
            self.o_valid.d.next = false;
        }
        self.cnt_next.next = self.cnt.q.val();
        if self.push.val() & !self.load.val() {
            self.cnt_next.next = self.cnt.q.val() + 1;
        } else if self.load.val() & !self.push.val() {
            self.cnt_next.next = self.cnt.q.val() - 1;
        }
        self.cnt.d.next = self.cnt_next.val();
        // Exact registered ready: room in the RAM next cycle.
        self.ready_q.d.next = self.cnt_next.val() < 32;
        self.m_axis.valid.next = self.o_valid.q.val();
        self.m_axis.data.next = self.o_data.q.val();
        self.m_axis.keep.next = self.o_keep.q.val();
        self.m_axis.user.next = self.o_user.q.val();
        self.m_axis.last.next = self.o_last.q.val();
        self.count.next = self.cnt.q.val();
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.ready_q.d.next = false;
            self.o_valid.d.next = false;
        }
    }
}
