//! `TxMulpdu`: the largest ULPDU an FPDU may carry and still fit one TCP segment (RFC 5044 4.5).
//!
//! `MULPDU = EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)` with Markers, `EMSS - (6 + EMSS mod
//! 4)` without, never below 128 (4.5) and never above the 64768-octet ULPDU limit (section 3): the
//! value DDP reads to size its segments, as [`golden::mulpdu::mulpdu`] computes it.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | clock |
//! | `cfg_emss` | in | 16 | EMSS in octets |
//! | `cfg_markers` | in | 1 | Markers on in this direction |
//! | `mulpdu` | out | 16 | MULPDU in octets, two cycles after the inputs |
//!
//! No reset (the output follows the inputs); no stream. Throughput: a new value every cycle.

use golden::mulpdu::ULPDU_MAX;
use rust_hdl::prelude::*;

/// The MULPDU calculator; see the module documentation.
#[derive(LogicBlock)]
pub struct TxMulpdu {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// EMSS in octets.
    pub cfg_emss: Signal<In, Bits<16>>,
    /// Markers on.
    pub cfg_markers: Signal<In, Bit>,
    /// MULPDU in octets.
    pub mulpdu: Signal<Out, Bits<16>>,
    raw: DFF<Bits<17>>,
    result: DFF<Bits<16>>,
    emss: Signal<Local, Bits<17>>,
    overhead: Signal<Local, Bits<17>>,
    /// The ULPDU limit of section 3 ([`ULPDU_MAX`]).
    c_max: Constant<Bits<17>>,
}

impl Default for TxMulpdu {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            cfg_emss: Default::default(),
            cfg_markers: Default::default(),
            mulpdu: Default::default(),
            raw: Default::default(),
            result: Default::default(),
            emss: Default::default(),
            overhead: Default::default(),
            c_max: Constant::new((ULPDU_MAX as u64).into()),
        }
    }
}

impl Logic for TxMulpdu {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, raw, result);
        self.emss.next = bit_cast::<17, 16>(self.cfg_emss.val());
        self.overhead.next = (self.emss.val() & 3) + 6;
        if self.cfg_markers.val() {
            self.overhead.next = self.overhead.val() + (((self.emss.val() + 511) >> 9) << 2);
        }
        self.raw.d.next = 0.into();
        if self.emss.val() > self.overhead.val() {
            self.raw.d.next = self.emss.val() - self.overhead.val();
        }
        self.result.d.next = bit_cast::<16, 17>(self.raw.q.val());
        if self.raw.q.val() < 128 {
            self.result.d.next = 128.into();
        }
        if self.raw.q.val() > self.c_max.val() {
            self.result.d.next = bit_cast::<16, 17>(self.c_max.val());
        }
        self.mulpdu.next = self.result.q.val();
    }
}
