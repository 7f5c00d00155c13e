//! `CrcCalc`: the exported CRC top. A stream of messages in, one CRC result per message out.
//!
//! Wraps [`CrcEngine`] with stream handshakes (RFC 5044 section 4.4 for the CRC itself): every
//! message on `s_axis` (beats up to and including `last`) produces one result beat on `m_axis`,
//! in order. Exported as `mpa_crc32c_w<W>` (and `crc32_williams_w<W>`, `crc32_ethernet_w<W>`).
//!
//! ```text
//!  s_axis ──► CrcEngine (latency L) ──► RegFifo (L+5, LUT RAM) ──► SkidBuffer ──► m_axis (CRC, bad)
//!     ▲                                                                            │
//!     └──── ready = credits left (results owed < L+5) ◄────────────────────────────┘
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `s_axis.{data,keep,last,valid}` | in | 8W, W, 1, 1 | the messages; stream rules of [`crate::stream`], null last beats (keep = 0) accepted |
//! | `s_axis.user` | in | 1 | ignored |
//! | `s_axis.ready` | out | 1 | registered; low only while L+5 messages are owed a result (`m_axis` stalled) |
//! | `m_axis.data` | out | 32 | the message's CRC value (for the reflected CRCs here, also its wire bytes in lane order) |
//! | `m_axis.user` | out | 1 | bit 0: bad, the message did not end with its own correct CRC |
//! | `m_axis.keep`, `m_axis.last` | out | 4, 1 | constant 0xF and 1: one beat per result |
//! | `m_axis.valid` / `m_axis.ready` | out / in | 1 | result handshake |
//!
//! ### Parameters
//! `W`: 4, 8, 16, 32 or 64 bytes; `B = 8*W`; the CRC definition.
//!
//! ### Latency and throughput
//! One input beat per cycle while `s_axis.ready` is high, messages back to back. A result is on
//! `m_axis` [`CrcCalc::latency`] = L + 3 cycles (queue write, queue output register, register
//! slice) after the cycle its last beat transferred, when the queue is empty: 13 at W=4, 15 at
//! W=8, 17 at W=16, 19 at W=32, 21 at W=64. Up to [`CrcCalc::credits`] = L+5 messages can be owed
//! a result (engine pipeline plus result queue), enough for one-beat messages back to back;
//! with a stalled `m_axis`, `s_axis.ready` drops once that many are owed, so nothing is ever
//! lost. `s_axis.ready` comes from a register; `m_axis.ready` drives only the register slice.
//!
//! ### Reset
//! `rst` clears the engine's control state and empties the result queue and the register slice;
//! `s_axis.ready` is low during reset and in the first cycle after it, and high from the second.

use crate::crc::engine::{check_engine_params, CrcEngine};
use crate::fifo::RegFifo;
use crate::skid::SkidBuffer;
use crate::stream::{StreamSink, StreamSource};
use golden::crc::CrcDef;
use rust_hdl::prelude::*;

/// The CRC calculator top; see the module documentation.
#[derive(LogicBlock)]
pub struct CrcCalc<const W: usize, const B: usize> {
    /// Clock (exported as `clk`).
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The messages.
    pub s_axis: StreamSink<W, B, 1>,
    /// One result per message.
    pub m_axis: StreamSource<4, 32, { crate::sideband::CrcResultUser::BITS }>,
    engine: CrcEngine<W, B>,
    // Queued results: bits 31:0 the CRC value, bit 32 the bad flag.
    results: RegFifo<33>,
    out: SkidBuffer<Bits<33>>,
    ready_q: DFF<Bit>,
    // Results owed, as a thermometer code (bit k set: more than k owed): one LUT per bit.
    owed: DFF<Bits<32>>,
    c_full: Constant<Bits<32>>,
    c_full_m1: Constant<Bits<32>>,
    accept: Signal<Local, Bit>,
    inc: Signal<Local, Bit>,
    dec: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> CrcCalc<W, B> {
    /// Builds the calculator for `def`; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new(def: &CrcDef) -> Self {
        check_engine_params("CrcCalc", W, B);
        assert!(
            Self::credits() <= 32,
            "CrcCalc: at most 32 credits (latency {} too long)",
            Self::credits()
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            engine: CrcEngine::new(def),
            results: RegFifo::new(Self::credits()),
            out: Default::default(),
            ready_q: Default::default(),
            owed: Default::default(),
            c_full: Constant::new((1u64 << (Self::credits() - 1)).into()),
            c_full_m1: Constant::new((1u64 << (Self::credits() - 2)).into()),
            accept: Default::default(),
            inc: Default::default(),
            dec: Default::default(),
        }
    }

    /// Messages that may be owed a result at once: enough for one-beat messages back to back
    /// (the top's latency plus two: the registered `ready` and the result beat itself), and the
    /// depth of the result queue.
    pub fn credits() -> usize {
        Self::latency() + 2
    }

    /// Cycles from the cycle a message's last beat transfers to the first cycle its result is
    /// valid on `m_axis` (empty queue).
    pub fn latency() -> usize {
        CrcEngine::<W, B>::latency() + 3
    }
}

impl<const W: usize, const B: usize> Logic for CrcCalc<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ready_q, owed);
        self.engine.clock.next = self.clock.val();
        self.results.clock.next = self.clock.val();
        self.out.clock.next = self.clock.val();
        self.engine.rst.next = self.rst.val();
        self.results.rst.next = self.rst.val();
        self.out.rst.next = self.rst.val();
        // Input side: the engine sees every transfer.
        self.accept.next = self.s_axis.valid.val() & self.ready_q.q.val() & !self.rst.val();
        self.s_axis.ready.next = self.ready_q.q.val() & !self.rst.val();
        self.engine.strobe.next = self.accept.val();
        self.engine.start.next = false;
        self.engine.last.next = self.s_axis.last.val();
        self.engine.data.next = self.s_axis.data.val();
        self.engine.keep.next = self.s_axis.keep.val();
        // Results into the queue: {bad, crc}.
        self.results.push.next = self.engine.crc_valid.val();
        self.results.push_data.next =
            bit_cast::<33, 32>(self.engine.crc.val()).replace_bit(32, self.engine.crc_bad.val());
        // Output side: queue -> register slice -> m_axis (m_axis.ready only reaches the slice).
        self.out.in_valid.next = self.results.out_valid.val();
        self.out.in_data.next = self.results.out_data.val();
        self.results.out_ready.next = self.out.in_ready.val();
        self.m_axis.valid.next = self.out.out_valid.val() & !self.rst.val();
        self.m_axis.data.next = self.out.out_data.val().get_bits::<32>(0);
        // A one-bit port is a Verilog scalar: no part-select, so the whole port is assigned
        // (CrcResultUser::bad is its only field).
        self.m_axis.user.next = self.out.out_data.val().get_bits::<1>(32);
        self.m_axis.keep.next = 15.into();
        self.m_axis.last.next = true;
        self.out.out_ready.next = self.m_axis.ready.val() & !self.rst.val();
        // Credits: a message is owed a result from its last beat until the result is taken.
        self.inc.next = self.accept.val() & self.s_axis.last.val();
        self.dec.next = self.out.out_valid.val() & self.m_axis.ready.val();
        // ready_q == (owed < credits) is kept as an invariant; c_full marks the thermometer bit
        // of "credits owed", c_full_m1 that of "credits - 1 owed".
        if self.inc.val() & !self.dec.val() {
            self.owed.d.next = (self.owed.q.val() << 1) | 1;
            self.ready_q.d.next = !(self.owed.q.val() & self.c_full_m1.val()).any();
        } else if self.dec.val() & !self.inc.val() {
            self.owed.d.next = self.owed.q.val() >> 1;
            self.ready_q.d.next = true;
        } else {
            self.ready_q.d.next = !(self.owed.q.val() & self.c_full.val()).any();
        }
        if self.rst.val() {
            self.owed.d.next = 0.into();
            self.ready_q.d.next = false;
        }
    }
}
