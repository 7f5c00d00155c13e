//! `TrafficGen`: the board loopback's traffic generator, a stream of ULPDUs for `mpa_tx`.
//!
//! Sends the ULPDUs of [`golden::traffic`] back to back, from ULPDU 0 after reset, forever, in
//! the `mpa_tx` input format (RFC 5044 4.1 framing happens downstream; this block only makes
//! ULPDUs): `user[15:0]` ULPDU_Length and `user[16]` push on every beat of a ULPDU. The beats
//! come from a [`TrafficPattern`]; `valid` is a register (high from the cycle after reset), the
//! beat's fields are functions of the pattern's registers, which move only when a beat transfers,
//! so the stream rules of [`crate::stream`] hold.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset: back to ULPDU 0 |
//! | `cfg_len_mask` | in | 16 | ULPDU length = LFSR state & mask (read at reset and between ULPDUs) |
//! | `m_axis` | out | 8W | ULPDUs; `user` [`crate::tx::TX_ULPDU_USER`] bits: `[15:0]` ULPDU_Length, `[16]` push |
//! | `sent` | out | 32 | ULPDUs sent since reset |
//!
//! ### Parameters, latency, throughput
//! `W` bytes per beat (4..64), `B = 8W`. One beat per cycle while `m_axis_tready` is high; the
//! first beat is offered in the second cycle after reset.

use crate::board::pattern::TrafficPattern;
use crate::stream::StreamSource;
use crate::tx::TX_ULPDU_USER;
use rust_hdl::prelude::*;

/// The traffic generator; see the module documentation.
#[derive(LogicBlock)]
pub struct TrafficGen<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// ULPDU length mask.
    pub cfg_len_mask: Signal<In, Bits<16>>,
    /// ULPDUs.
    pub m_axis: StreamSource<W, B, TX_ULPDU_USER>,
    /// ULPDUs sent since reset.
    pub sent: Signal<Out, Bits<32>>,
    pattern: TrafficPattern<W, B>,
    run: DFF<Bit>,
    count: DFF<Bits<32>>,
    go: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> TrafficGen<W, B> {
    /// Builds the generator; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_len_mask: Default::default(),
            m_axis: StreamSource::new(),
            sent: Default::default(),
            pattern: TrafficPattern::new(),
            run: Default::default(),
            count: Default::default(),
            go: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for TrafficGen<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TrafficGen<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, run, count);
        self.pattern.clock.next = self.clock.val();
        self.pattern.rst.next = self.rst.val();
        self.pattern.cfg_len_mask.next = self.cfg_len_mask.val();
        self.m_axis.data.next = self.pattern.data.val();
        self.m_axis.keep.next = self.pattern.keep.val();
        self.m_axis.last.next = self.pattern.last.val();
        self.m_axis.user.next = bit_cast::<TX_ULPDU_USER, 16>(self.pattern.len.val());
        if self.pattern.push.val() {
            self.m_axis.user.next = bit_cast::<TX_ULPDU_USER, 16>(self.pattern.len.val()) | 0x10000;
        }
        self.m_axis.valid.next = self.run.q.val();
        self.go.next = self.run.q.val() & self.m_axis.ready.val();
        self.pattern.advance.next = self.go.val();
        if self.go.val() & self.pattern.last.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        self.sent.next = self.count.q.val();
        self.run.d.next = !self.rst.val();
        if self.rst.val() {
            self.count.d.next = 0.into();
        }
    }
}
