//! `SkidBuffer`: a two-entry register slice that registers every signal in both directions.
//!
//! Between a block's internal queue and its output stream, so that the consumer's `ready` drives
//! only this slice (two registers wide), never the queue or the datapath behind it, and the
//! output `valid`/`data` and the upstream `ready` all come straight from registers.
//! No RFC section: infrastructure.
//!
//! ```text
//!  in_valid/in_data ──►[main]──► out_valid/out_data
//!          │            ▲
//!          └──►[skid]───┘        in_ready = !skid_valid (registered)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties both entries) |
//! | `in_valid`, `in_data` | in | 1, T | upstream offer |
//! | `in_ready` | out | 1 | registered: the slice takes the offer this cycle |
//! | `out_valid`, `out_data` | out | 1, T | registered: the offer downstream (stream rules hold) |
//! | `out_ready` | in | 1 | downstream takes it |
//!
//! ### Parameters, latency, throughput
//! `T`: any signal type. One cycle from `in` to `out`; one transfer per cycle in steady state.
//!
//! ### Reset
//! `rst` clears both valid bits; the data registers are not reset.

use rust_hdl::prelude::*;

/// Two-entry register slice; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct SkidBuffer<T: Synth> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Upstream offers `in_data`.
    pub in_valid: Signal<In, Bit>,
    /// Upstream data.
    pub in_data: Signal<In, T>,
    /// The slice accepts (registered).
    pub in_ready: Signal<Out, Bit>,
    /// Downstream offer (registered).
    pub out_valid: Signal<Out, Bit>,
    /// Downstream data (registered).
    pub out_data: Signal<Out, T>,
    /// Downstream accepts.
    pub out_ready: Signal<In, Bit>,
    main_valid: DFF<Bit>,
    main_data: DFF<T>,
    skid_valid: DFF<Bit>,
    skid_data: DFF<T>,
    take_in: Signal<Local, Bit>,
    take_out: Signal<Local, Bit>,
}

impl<T: Synth> Logic for SkidBuffer<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, main_valid, main_data, skid_valid, skid_data);
        self.take_in.next = self.in_valid.val() & !self.skid_valid.q.val();
        self.take_out.next = self.main_valid.q.val() & self.out_ready.val();
        if self.take_out.val() | !self.main_valid.q.val() {
            // The main register is free this cycle: refill it from the skid entry, else from
            // upstream.
            if self.skid_valid.q.val() {
                self.main_data.d.next = self.skid_data.q.val();
                self.main_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else {
                self.main_data.d.next = self.in_data.val();
                self.main_valid.d.next = self.take_in.val();
            }
        } else if self.take_in.val() {
            // Main is held: park the offer in the skid entry.
            self.skid_data.d.next = self.in_data.val();
            self.skid_valid.d.next = true;
        }
        self.in_ready.next = !self.skid_valid.q.val();
        self.out_valid.next = self.main_valid.q.val();
        self.out_data.next = self.main_data.q.val();
        if self.rst.val() {
            self.main_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}
