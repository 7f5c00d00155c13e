//! `RealignCtxPack`: the realigner's per-connection context record, packed and unpacked.
//!
//! DESIGN, "Connection state is explicit", and RFC 5044 Appendix B.2 (the flow-through
//! receiver: store the stream position and what is left of the last word per connection, not
//! the data). Everything [`super::realigner::RxRealigner`] remembers about a connection
//! between two of its segments is one record, [`RealignCtx`] (61 bits): the next expected
//! sequence number, the 0 to 3 octets of the incomplete word after the last segment's whole
//! words went out and their count, whether the stream has ended (FIN), the sticky sequence-gap
//! flag and whether the configured start was misaligned. Everything else in the realigner is
//! per segment (cleared by a segment's last beat) or per beat in flight (empty when it is
//! idle).
//!
//! This block is only the record's wiring (no register, no logic beyond slices): the
//! realigner built [`super::realigner::RxRealigner::with_context`] holds one, so that the
//! field positions come from the record's declaration alone (rust-hdl's `hdl_gen` cannot slice
//! a port that is an element of a vector, which the optional ports are).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rec_in` | in | 61 | a record ([`RealignCtx`]) |
//! | `in_seq`, `in_held`, `in_held_n`, `in_done`, `in_gap`, `in_misaligned` | out | 32, B, 8, 1, 1, 1 | its fields (`in_held` in lanes 0 to 2 of a beat, `in_held_n` zero-extended) |
//! | `exp_seq`, `acc`, `a`, `done`, `gap`, `misaligned` | in | 32, B, 8, 1, 1, 1 | the realigner's registers |
//! | `rec_out` | out | 61 | them as a record (`acc`'s lanes 0 to 2, `a`'s two low bits) |
//!
//! ### Parameters, latency
//! `B = 8W` (W = 4 to 64). Combinational.

use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The realigner's context record: what it keeps about a connection between segments.
    RealignCtx, prefix realign_ctx, bits 61, {
        /// Sequence number of the next octet the stream expects.
        exp_seq: Bits<32> = 0,
        /// The incomplete word's octets (at most 3), the first in bits 0 to 7.
        held: Bits<24> = 32,
        /// How many octets `held` has (0 to 3).
        held_n: Bits<2> = 56,
        /// The stream has ended (a FIN segment was taken): later segments are dropped.
        done: Bit = 58,
        /// A segment beyond the next expected octet was dropped (sticky `seq_gap`).
        gap: Bit = 59,
        /// The configured start is not 4-octet aligned from the Marker origin.
        misaligned: Bit = 60,
    }
}

/// Width of a [`RealignCtx`] record.
pub const REALIGN_CTX_BITS: usize = RealignCtx::BITS;

impl RealignCtx {
    /// The record of a connection whose MPA stream starts at sequence number `seq`, its Marker
    /// origin at `origin`: what `rst` gives the realigner with `cfg_seq` / `cfg_origin`.
    pub fn fresh(seq: u32, origin: u32) -> Self {
        RealignCtx {
            exp_seq: seq as u64,
            misaligned: seq.wrapping_sub(origin) & 3 != 0,
            ..Default::default()
        }
    }
}

/// The record's wiring; see the module documentation.
#[derive(LogicBlock)]
pub struct RealignCtxPack<const B: usize> {
    /// A record to unpack.
    pub rec_in: Signal<In, Bits<REALIGN_CTX_BITS>>,
    /// Its next expected sequence number.
    pub in_seq: Signal<Out, Bits<32>>,
    /// Its held octets, in lanes 0 to 2.
    pub in_held: Signal<Out, Bits<B>>,
    /// How many octets it holds.
    pub in_held_n: Signal<Out, Bits<8>>,
    /// Its stream has ended.
    pub in_done: Signal<Out, Bit>,
    /// Its sticky gap flag.
    pub in_gap: Signal<Out, Bit>,
    /// Its misaligned flag.
    pub in_misaligned: Signal<Out, Bit>,
    /// The realigner's next expected sequence number.
    pub exp_seq: Signal<In, Bits<32>>,
    /// Its octet buffer.
    pub acc: Signal<In, Bits<B>>,
    /// Its held octet count.
    pub a: Signal<In, Bits<8>>,
    /// Its end-of-stream flag.
    pub done: Signal<In, Bit>,
    /// Its gap flag.
    pub gap: Signal<In, Bit>,
    /// Its misaligned flag.
    pub misaligned: Signal<In, Bit>,
    /// The record of those registers.
    pub rec_out: Signal<Out, Bits<REALIGN_CTX_BITS>>,
}

impl<const B: usize> RealignCtxPack<B> {
    /// The wiring for `B = 8W` bits per beat.
    pub fn new() -> Self {
        assert!(B >= 32 && B.is_multiple_of(32), "RealignCtxPack: B = {B} is not 8W for W >= 4");
        Self {
            rec_in: Default::default(),
            in_seq: Default::default(),
            in_held: Default::default(),
            in_held_n: Default::default(),
            in_done: Default::default(),
            in_gap: Default::default(),
            in_misaligned: Default::default(),
            exp_seq: Default::default(),
            acc: Default::default(),
            a: Default::default(),
            done: Default::default(),
            gap: Default::default(),
            misaligned: Default::default(),
            rec_out: Default::default(),
        }
    }
}

impl<const B: usize> Default for RealignCtxPack<B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const B: usize> Logic for RealignCtxPack<B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.in_seq.next = self.rec_in.val().get_value_realign_ctx_exp_seq();
        self.in_held.next = bit_cast::<B, 24>(self.rec_in.val().get_value_realign_ctx_held());
        self.in_held_n.next = bit_cast::<8, 2>(self.rec_in.val().get_value_realign_ctx_held_n());
        self.in_done.next = self.rec_in.val().get_value_realign_ctx_done();
        self.in_gap.next = self.rec_in.val().get_value_realign_ctx_gap();
        self.in_misaligned.next = self.rec_in.val().get_value_realign_ctx_misaligned();
        self.rec_out.next = 0.into();
        self.rec_out.next.set_value_realign_ctx_exp_seq(self.exp_seq.val());
        self.rec_out.next.set_value_realign_ctx_held(self.acc.val().get_bits::<24>(0));
        self.rec_out.next.set_value_realign_ctx_held_n(self.a.val().get_bits::<2>(0));
        self.rec_out.next.set_value_realign_ctx_done(self.done.val());
        self.rec_out.next.set_value_realign_ctx_gap(self.gap.val());
        self.rec_out.next.set_value_realign_ctx_misaligned(self.misaligned.val());
    }
}
