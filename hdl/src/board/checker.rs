//! `LoopbackChecker`: the board loopback's checker, the other end of `mpa_rx`.
//!
//! Takes `mpa_rx`'s ULPDU packets and compares each with the ULPDU the traffic generator sent in
//! that place (its own [`TrafficPattern`], the sequence of [`golden::traffic`]): octets under
//! `keep`, `keep`, `last`, and the ULPDU_Length (`RxUlpduUser`'s `len`, `user[47:32]`) on the
//! first beat. A packet with every beat equal counts in `ok`; one that differs anywhere counts
//! in `bad` and sets the sticky `mismatch`. An error packet (`err`, `user[48]`, RFC 5044
//! section 8: `mpa_rx` stops after it)
//! sets the sticky `rx_error` and keeps its code; it is not compared. Always ready.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset: counts and flags cleared, expecting ULPDU 0 |
//! | `cfg_len_mask` | in | 16 | the generator's length mask |
//! | `s_axis` | in | 8W | `mpa_rx`'s output; `user` 51 bits: `[31:0]` sequence number, `[47:32]` ULPDU_Length, `[48]` error, `[50:49]` code |
//! | `ok` | out | 32 | ULPDUs received equal to what was sent |
//! | `bad` | out | 32 | ULPDUs received that differ |
//! | `mismatch` | out | 1 | a received ULPDU differed (sticky until reset) |
//! | `rx_error` | out | 1 | `mpa_rx` reported an error (sticky until reset) |
//! | `rx_code` | out | 2 | the section 8 code of that error |
//!
//! ### Parameters, latency, throughput
//! `W` bytes per beat (4..64), `B = 8W`. One beat per cycle; the counts and flags change in the
//! cycle after the beat.

use crate::board::pattern::TrafficPattern;
use crate::sideband::{RxUlpduUserFields, RX_ULPDU_USER};
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// The loopback checker; see the module documentation.
#[derive(LogicBlock)]
pub struct LoopbackChecker<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The generator's ULPDU length mask.
    pub cfg_len_mask: Signal<In, Bits<16>>,
    /// `mpa_rx`'s ULPDUs.
    pub s_axis: StreamSink<W, B, RX_ULPDU_USER>,
    /// ULPDUs equal to what was sent.
    pub ok: Signal<Out, Bits<32>>,
    /// ULPDUs that differ.
    pub bad: Signal<Out, Bits<32>>,
    /// A ULPDU differed (sticky).
    pub mismatch: Signal<Out, Bit>,
    /// `mpa_rx` reported an error (sticky).
    pub rx_error: Signal<Out, Bit>,
    /// That error's section 8 code.
    pub rx_code: Signal<Out, Bits<2>>,
    want: TrafficPattern<W, B>,
    ok_q: DFF<Bits<32>>,
    bad_q: DFF<Bits<32>>,
    pkt_bad: DFF<Bit>,
    mismatch_q: DFF<Bit>,
    err_q: DFF<Bit>,
    code_q: DFF<Bits<2>>,
    mask: Signal<Local, Bits<B>>,
    diff: Signal<Local, Bit>,
    is_err: Signal<Local, Bit>,
    c_ff: Constant<Bits<B>>,
    c_bsh: Vec<Constant<Bits<16>>>,
}

impl<const W: usize, const B: usize> LoopbackChecker<W, B> {
    /// Builds the checker; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_len_mask: Default::default(),
            s_axis: StreamSink::new(),
            ok: Default::default(),
            bad: Default::default(),
            mismatch: Default::default(),
            rx_error: Default::default(),
            rx_code: Default::default(),
            want: TrafficPattern::new(),
            ok_q: Default::default(),
            bad_q: Default::default(),
            pkt_bad: Default::default(),
            mismatch_q: Default::default(),
            err_q: Default::default(),
            code_q: Default::default(),
            mask: Default::default(),
            diff: Default::default(),
            is_err: Default::default(),
            c_ff: Constant::new(0xFF.into()),
            c_bsh: (0..W).map(|k| Constant::new(((8 * k) as u64).into())).collect(),
        }
    }
}

impl<const W: usize, const B: usize> Default for LoopbackChecker<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for LoopbackChecker<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ok_q, bad_q, pkt_bad, mismatch_q, err_q, code_q);
        self.want.clock.next = self.clock.val();
        self.want.rst.next = self.rst.val();
        self.want.cfg_len_mask.next = self.cfg_len_mask.val();
        self.s_axis.ready.next = true;
        // The octets that count: those under the received keep.
        self.mask.next = 0.into();
        for k in 0..W {
            if self.s_axis.keep.val().get_bit(k) {
                self.mask.next = self.mask.val() | (self.c_ff.val() << self.c_bsh[k].val());
            }
        }
        self.diff.next = ((self.s_axis.data.val() ^ self.want.data.val()) & self.mask.val()) != 0;
        if self.s_axis.keep.val() != self.want.keep.val() {
            self.diff.next = true;
        }
        if self.s_axis.last.val() != self.want.last.val() {
            self.diff.next = true;
        }
        if self.want.first.val()
            & (self.s_axis.user.val().get_value_rx_ulpdu_len() != self.want.len.val())
        {
            self.diff.next = true;
        }
        self.is_err.next = self.s_axis.user.val().get_value_rx_ulpdu_err();
        self.want.advance.next = self.s_axis.valid.val() & !self.is_err.val();
        if self.s_axis.valid.val() & self.is_err.val() {
            self.err_q.d.next = true;
            self.code_q.d.next = self.s_axis.user.val().get_value_rx_ulpdu_code();
        }
        if self.s_axis.valid.val() & !self.is_err.val() {
            if self.diff.val() {
                self.mismatch_q.d.next = true;
                self.pkt_bad.d.next = true;
            }
            if self.s_axis.last.val() {
                self.pkt_bad.d.next = false;
                if self.pkt_bad.q.val() | self.diff.val() {
                    self.bad_q.d.next = self.bad_q.q.val() + 1;
                } else {
                    self.ok_q.d.next = self.ok_q.q.val() + 1;
                }
            }
        }
        self.ok.next = self.ok_q.q.val();
        self.bad.next = self.bad_q.q.val();
        self.mismatch.next = self.mismatch_q.q.val();
        self.rx_error.next = self.err_q.q.val();
        self.rx_code.next = self.code_q.q.val();
        if self.rst.val() {
            self.ok_q.d.next = 0.into();
            self.bad_q.d.next = 0.into();
            self.pkt_bad.d.next = false;
            self.mismatch_q.d.next = false;
            self.err_q.d.next = false;
            self.code_q.d.next = 0.into();
        }
    }
}
