//! `StreamSkid`: a two-entry register slice for a whole stream bundle.
//!
//! The output stage of every streaming block: the block pushes beats into `s_axis` when
//! `s_axis.ready` (a register) is high, and `m_axis` is driven straight from registers, so no
//! combinational path crosses the block boundary in either direction (`m_axis.ready` reaches
//! only this slice's control). The same two-entry scheme as [`crate::skid::SkidBuffer`], with
//! the four payload fields of the bundle. No RFC section: infrastructure.
//!
//! ```text
//!  s_axis ──►[main]──► m_axis          s_axis.ready = !skid_valid (registered)
//!     │        ▲
//!     └─►[skid]┘
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties both entries) |
//! | `s_axis.{data,keep,user,last,valid}` | in | 8W, W, U, 1, 1 | the beat offered by the block |
//! | `s_axis.ready` | out | 1 | registered: a beat offered this cycle is taken |
//! | `m_axis.{data,keep,user,last,valid}` | out | 8W, W, U, 1, 1 | registered output beat (stream rules hold) |
//! | `m_axis.ready` | in | 1 | downstream takes the beat |
//!
//! ### Parameters, latency, throughput
//! `W` bytes, `B = 8W`, `U` user bits (checked in `new`). One cycle from `s_axis` to `m_axis`; one
//! beat per cycle in steady state. Unlike a plain AXI slice, `s_axis.ready` may be high while
//! `s_axis.valid` is low and a block may rely on it: a beat offered while `ready` is high is
//! always taken.
//!
//! [`StreamSkid::loading_while_empty`] makes the same slice with the skid entry's payload loaded
//! every cycle the entry is empty, so its enable is a register rather than the handshake.
//!
//! ### Reset
//! `rst` clears both valid bits; the payload registers are not reset.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Two-entry register slice for a stream; see the module documentation.
#[derive(LogicBlock)]
pub struct StreamSkid<const W: usize, const B: usize, const U: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Beats from the block.
    pub s_axis: StreamSink<W, B, U>,
    /// Registered beats to downstream.
    pub m_axis: StreamSource<W, B, U>,
    main_valid: DFF<Bit>,
    main_data: DFF<Bits<B>>,
    main_keep: DFF<Bits<W>>,
    main_user: DFF<Bits<U>>,
    main_last: DFF<Bit>,
    skid_valid: DFF<Bit>,
    skid_data: DFF<Bits<B>>,
    skid_keep: DFF<Bits<W>>,
    skid_user: DFF<Bits<U>>,
    skid_last: DFF<Bit>,
    take_in: Signal<Local, Bit>,
    take_out: Signal<Local, Bit>,
    c_load_empty: Constant<Bit>,
}

impl<const W: usize, const B: usize, const U: usize> StreamSkid<W, B, U> {
    /// A register slice; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        Self::build(false)
    }

    /// The same slice, with the skid entry's payload registers loaded every cycle the entry is
    /// empty (enabled by a register) instead of only when a beat goes into it (enabled by the
    /// handshake, a function of the downstream `ready`): the same outputs cycle for cycle, a
    /// shorter path into the payload's enables. Used where that path limits (the transmit
    /// blocks); on the receive blocks it measured slower (README, transmit path, stop 37).
    pub fn loading_while_empty() -> Self {
        Self::build(true)
    }

    fn build(load_empty: bool) -> Self {
        check_stream_params("StreamSkid", W, B, U);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            main_valid: Default::default(),
            main_data: Default::default(),
            main_keep: Default::default(),
            main_user: Default::default(),
            main_last: Default::default(),
            skid_valid: Default::default(),
            skid_data: Default::default(),
            skid_keep: Default::default(),
            skid_user: Default::default(),
            skid_last: Default::default(),
            take_in: Default::default(),
            take_out: Default::default(),
            c_load_empty: Constant::new(load_empty),
        }
    }
}

impl<const W: usize, const B: usize, const U: usize> Default for StreamSkid<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const U: usize> Logic for StreamSkid<W, B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, main_valid, main_data, main_keep, main_user, main_last, skid_valid,
            skid_data, skid_keep, skid_user, skid_last
        );
        self.take_in.next = self.s_axis.valid.val() & !self.skid_valid.q.val();
        self.take_out.next = self.main_valid.q.val() & self.m_axis.ready.val();
        if self.take_out.val() | !self.main_valid.q.val() {
            if self.skid_valid.q.val() {
                self.main_data.d.next = self.skid_data.q.val();
                self.main_keep.d.next = self.skid_keep.q.val();
                self.main_user.d.next = self.skid_user.q.val();
                self.main_last.d.next = self.skid_last.q.val();
                self.main_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.main_data.d.next = self.s_axis.data.val();
                self.main_keep.d.next = self.s_axis.keep.val();
                self.main_user.d.next = self.s_axis.user.val();
                self.main_last.d.next = self.s_axis.last.val();
                self.main_valid.d.next = self.take_in.val();
            }
        } else if self.take_in.val() {
            if !self.c_load_empty.val() {
                self.skid_data.d.next = self.s_axis.data.val();
                self.skid_keep.d.next = self.s_axis.keep.val();
                self.skid_user.d.next = self.s_axis.user.val();
                self.skid_last.d.next = self.s_axis.last.val();
            }
            self.skid_valid.d.next = true;
        }
        // `loading_while_empty`: the skid entry's payload follows the input while the entry is
        // empty (its enable a register, not the handshake); it is read only once skid_valid is set.
        if self.c_load_empty.val() & !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_axis.data.val();
            self.skid_keep.d.next = self.s_axis.keep.val();
            self.skid_user.d.next = self.s_axis.user.val();
            self.skid_last.d.next = self.s_axis.last.val();
        }
        self.s_axis.ready.next = !self.skid_valid.q.val();
        self.m_axis.valid.next = self.main_valid.q.val();
        self.m_axis.data.next = self.main_data.q.val();
        self.m_axis.keep.next = self.main_keep.q.val();
        self.m_axis.user.next = self.main_user.q.val();
        self.m_axis.last.next = self.main_last.q.val();
        if self.rst.val() {
            self.main_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}
