//! `StreamUp`: a stream of `V`-octet beats as a stream of `W`-octet beats (`V` divides `W`),
//! the mirror of [`crate::stream_down::StreamDown`]. No RFC section: infrastructure (it brings
//! [`crate::place::locate`]'s narrow verification path back to the port's width).
//!
//! Narrow beats are packed lane 0 first: the first `W / V - 1` of a wide beat are kept in an
//! accumulator, and the wide beat goes out with its final narrow beat (the `W / V`-th, or the
//! message's `last`), which passes through without a register. Every wide beat but a message's
//! last is therefore full when every narrow beat but the last is.
//!
//! ```text
//!  s_axis (V) ─┬─► acc[idx] (slices 0 .. W/V-2) ─┐
//!              └──────────────────────────────────┴─► acc | s_axis at slice idx ─► m_axis (W)
//!  m_axis.valid = s_axis.valid & final     s_axis.ready = final ? m_axis.ready : 1
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (the accumulator is emptied) |
//! | `s_axis` | in | 8V, V, U | the narrow stream (stream rules: every beat but the last full) |
//! | `m_axis` | out | 8W, W, U | the wide stream: `user` and `last` are the final narrow beat's |
//!
//! ### Parameters
//! `V` and `W` octets per beat (`V` divides `W`), `BV = 8V`, `B = 8W`, `U` user bits (checked
//! in `new`). At `V = W` the block is wires once reset (no accumulator is built; `idx` stays
//! 0).
//!
//! A null last narrow beat (keep 0) after some of a wide beat's slices is packed with them: the
//! wide packet then ends with those lanes kept, not with a null beat. (The locator's error
//! packets end with a null beat after octets that are not a ULPDU; downstream, a packet that
//! did not verify is not placed and its header result is not used, whatever its shape.)
//!
//! ### Latency and throughput
//! Combinational from the final narrow beat (`valid` does not depend on `ready`); one narrow
//! beat per cycle.
//!
//! ### Reset
//! `rst` empties the accumulator (`idx` and the kept lanes to 0).

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Narrow-to-wide stream converter; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamUp<const V: usize, const BV: usize, const W: usize, const B: usize, const U: usize>
{
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The narrow stream.
    pub s_axis: StreamSink<V, BV, U>,
    /// The wide stream.
    pub m_axis: StreamSource<W, B, U>,
    idx: DFF<Bits<8>>,
    acc_data: DFF<Bits<B>>,
    acc_keep: DFF<Bits<W>>,
    sh_data: Signal<Local, Bits<B>>,
    sh_keep: Signal<Local, Bits<W>>,
    fin: Signal<Local, Bit>,
    c_idx: Vec<Constant<Bits<8>>>,
    c_dsh: Vec<Constant<Bits<16>>>,
    c_ksh: Vec<Constant<Bits<8>>>,
    c_last: Constant<Bits<8>>,
}

impl<const V: usize, const BV: usize, const W: usize, const B: usize, const U: usize>
    StreamUp<V, BV, W, B, U>
{
    /// The converter; panics unless `V` divides `W`, `BV = 8V`, `B = 8W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamUp (input)", V, BV, U);
        check_stream_params("StreamUp (output)", W, B, U);
        assert!(
            V <= W && W % V == 0 && W / V <= 64,
            "StreamUp: V must divide W (got V = {V}, W = {W})"
        );
        let n = W / V;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            idx: Default::default(),
            acc_data: Default::default(),
            acc_keep: Default::default(),
            sh_data: Default::default(),
            sh_keep: Default::default(),
            fin: Default::default(),
            c_idx: (0..n).map(|i| Constant::new((i as u64).into())).collect(),
            c_dsh: (0..n).map(|i| Constant::new(((i * BV) as u64).into())).collect(),
            c_ksh: (0..n).map(|i| Constant::new(((i * V) as u64).into())).collect(),
            c_last: Constant::new(((n - 1) as u64).into()),
        }
    }
}

impl<const V: usize, const BV: usize, const W: usize, const B: usize, const U: usize> Default
    for StreamUp<V, BV, W, B, U>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const V: usize, const BV: usize, const W: usize, const B: usize, const U: usize> Logic
    for StreamUp<V, BV, W, B, U>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, idx, acc_data, acc_keep);
        // The narrow beat moved to its slice.
        self.sh_data.next = 0.into();
        self.sh_keep.next = 0.into();
        for i in 0..(W / V) {
            if self.idx.q.val() == self.c_idx[i].val() {
                self.sh_data.next =
                    bit_cast::<B, BV>(self.s_axis.data.val()) << self.c_dsh[i].val();
                self.sh_keep.next = bit_cast::<W, V>(self.s_axis.keep.val()) << self.c_ksh[i].val();
            }
        }
        self.fin.next = (self.idx.q.val() == self.c_last.val()) | self.s_axis.last.val();
        self.m_axis.data.next = self.sh_data.val();
        self.m_axis.keep.next = self.sh_keep.val();
        self.m_axis.user.next = self.s_axis.user.val();
        self.m_axis.last.next = self.s_axis.last.val();
        self.m_axis.valid.next = self.s_axis.valid.val() & self.fin.val();
        self.s_axis.ready.next = self.m_axis.ready.val() | !self.fin.val();
        // The accumulator exists only when a wide beat holds more than one narrow beat (a loop
        // of one pass or none, unrolled when the Verilog is written).
        for _k in 0..(W / V - 1).min(1) {
            self.m_axis.data.next = self.acc_data.q.val() | self.sh_data.val();
            self.m_axis.keep.next = self.acc_keep.q.val() | self.sh_keep.val();
            if self.s_axis.valid.val() & !self.fin.val() {
                self.idx.d.next = self.idx.q.val() + 1;
                self.acc_data.d.next = self.acc_data.q.val() | self.sh_data.val();
                self.acc_keep.d.next = self.acc_keep.q.val() | self.sh_keep.val();
            }
            if (self.s_axis.valid.val() & self.fin.val() & self.m_axis.ready.val()) | self.rst.val()
            {
                self.idx.d.next = 0.into();
                self.acc_data.d.next = 0.into();
                self.acc_keep.d.next = 0.into();
            }
        }
        // Outside the loop: at V = W too, `idx` (then never advanced) must leave reset at 0,
        // whatever value it powered up with, or `fin` would hold back every beat but a last.
        if self.rst.val() {
            self.idx.d.next = 0.into();
        }
    }
}
