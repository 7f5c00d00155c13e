//! `StreamDown`: a stream of `W`-octet beats as a stream of `V`-octet beats (`V` divides `W`),
//! without a buffer. No RFC section: infrastructure (it lets [`crate::place::locate`]'s
//! verification path run narrower than the port).
//!
//! The input beat stays offered while its slices go out one per cycle, lane 0 first; the input
//! is taken with its final slice. A slice is final when it is the beat's last, or when the beat
//! is `last` and the next slice's first lane is not kept (so a beat's empty slices never go
//! out; a null last beat goes out as one null slice).
//!
//! ```text
//!  s_axis (W) ─► slice idx (W/V : 1 select) ─► m_axis (V)     s_axis.ready = m_axis.ready & final
//!                  idx: 0, 1, .. on each slice taken, 0 after the final one
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (the next slice is slice 0) |
//! | `s_axis` | in | 8W, W, U | the wide stream (stream rules: every beat but the last full) |
//! | `m_axis` | out | 8V, V, U | the narrow stream: `user` is the input beat's, `last` on the input's last beat's final slice |
//!
//! ### Parameters
//! `W` and `V` octets per beat (`V` divides `W`), `B = 8W`, `BV = 8V`, `U` user bits (checked
//! in `new`). At `V = W` the block is wires once reset (the select has one input and `idx`
//! stays 0).
//!
//! ### Latency and throughput
//! Combinational: `m_axis` is `s_axis`'s current slice in the same cycle, and `s_axis.ready`
//! follows `m_axis.ready` combinationally (`valid` does not depend on `ready`). One slice per
//! cycle: a full input beat takes `W / V` cycles.
//!
//! ### Reset
//! `rst` sets `idx` to 0; the block holds no data.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Wide-to-narrow stream converter; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamDown<
    const W: usize,
    const B: usize,
    const V: usize,
    const BV: usize,
    const U: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The wide stream.
    pub s_axis: StreamSink<W, B, U>,
    /// The narrow stream.
    pub m_axis: StreamSource<V, BV, U>,
    idx: DFF<Bits<8>>,
    sl_data: Signal<Local, Bits<B>>,
    sl_keep: Signal<Local, Bits<W>>,
    nkeep: Signal<Local, Bits<W>>,
    more: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    c_idx: Vec<Constant<Bits<8>>>,
    c_dsh: Vec<Constant<Bits<16>>>,
    c_ksh: Vec<Constant<Bits<8>>>,
    c_ksh_next: Vec<Constant<Bits<8>>>,
    c_last: Constant<Bits<8>>,
}

impl<const W: usize, const B: usize, const V: usize, const BV: usize, const U: usize>
    StreamDown<W, B, V, BV, U>
{
    /// The converter; panics unless `V` divides `W`, `B = 8W`, `BV = 8V` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamDown (input)", W, B, U);
        check_stream_params("StreamDown (output)", V, BV, U);
        assert!(
            V <= W && W % V == 0 && W / V <= 64,
            "StreamDown: V must divide W (got W = {W}, V = {V})"
        );
        let n = W / V;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            idx: Default::default(),
            sl_data: Default::default(),
            sl_keep: Default::default(),
            nkeep: Default::default(),
            more: Default::default(),
            fin: Default::default(),
            c_idx: (0..n).map(|i| Constant::new((i as u64).into())).collect(),
            c_dsh: (0..n).map(|i| Constant::new(((i * BV) as u64).into())).collect(),
            c_ksh: (0..n).map(|i| Constant::new(((i * V) as u64).into())).collect(),
            c_ksh_next: (1..n).map(|i| Constant::new(((i * V) as u64).into())).collect(),
            c_last: Constant::new(((n - 1) as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize, const V: usize, const BV: usize, const U: usize> Default
    for StreamDown<W, B, V, BV, U>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const V: usize, const BV: usize, const U: usize> Logic
    for StreamDown<W, B, V, BV, U>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, idx);
        // The current slice moved to lane 0, then cut to V lanes.
        self.sl_data.next = 0.into();
        self.sl_keep.next = 0.into();
        self.nkeep.next = 0.into();
        for i in 0..(W / V) {
            if self.idx.q.val() == self.c_idx[i].val() {
                self.sl_data.next = self.s_axis.data.val() >> self.c_dsh[i].val();
                self.sl_keep.next = self.s_axis.keep.val() >> self.c_ksh[i].val();
            }
        }
        self.m_axis.data.next = bit_cast::<BV, B>(self.sl_data.val());
        self.m_axis.keep.next = bit_cast::<V, W>(self.sl_keep.val());
        // Whether the next slice has a kept lane (its first lane): none after the last slice.
        for i in 0..(W / V - 1) {
            if self.idx.q.val() == self.c_idx[i].val() {
                self.nkeep.next = self.s_axis.keep.val() >> self.c_ksh_next[i].val();
            }
        }
        self.more.next = self.nkeep.val().get_bit(0);
        self.fin.next =
            (self.idx.q.val() == self.c_last.val()) | (self.s_axis.last.val() & !self.more.val());
        self.m_axis.user.next = self.s_axis.user.val();
        self.m_axis.last.next = self.s_axis.last.val() & self.fin.val();
        self.m_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.m_axis.ready.val() & self.fin.val();
        if self.s_axis.valid.val() & self.m_axis.ready.val() {
            self.idx.d.next = self.idx.q.val() + 1;
            if self.fin.val() {
                self.idx.d.next = 0.into();
            }
        }
        if self.rst.val() {
            self.idx.d.next = 0.into();
        }
    }
}
