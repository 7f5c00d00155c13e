//! `WalkCtxPack`: the FPDU walker's per-connection context record, packed and unpacked.
//!
//! DESIGN, "Connection state is explicit", and RFC 5044 Appendix B.2 (the flow-through
//! receiver keeps the FPDU position per connection). Everything
//! [`super::walker::RxFpduWalker`] remembers about a connection's stream once a segment's
//! words have all left it is one record, [`WalkCtx`] (34 bits): the word position of the next
//! beat from the Marker origin, the position of the next FPDU start, whether that start is the
//! header after a leading Marker in the previous beat's last word, and whether a ULPDU_Length
//! above the limit was reached (nothing is marked after it). Everything else in the walker is
//! per beat in flight (empty when it is not `busy`). The settings `cfg_markers` and
//! `cfg_max_ulpdu` stay inputs: a controller sets the connection's while it loads its record.
//!
//! This block is the record's wiring only (slices, no register): the walker built
//! [`super::walker::RxFpduWalker::with_context`] holds one, so that the field positions come
//! from the record's declaration alone (rust-hdl's `hdl_gen` cannot slice a port that is an
//! element of a vector, which the optional ports are).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rec_in` | in | 34 | a record ([`WalkCtx`]) |
//! | `in_bpos`, `in_ns`, `in_hdr_only`, `in_dead` | out | 16, 16, 1, 1 | its fields |
//! | `bpos`, `ns`, `hdr_only`, `dead` | in | 16, 16, 1, 1 | the walker's registers |
//! | `rec_out` | out | 34 | them as a record |
//!
//! ### Parameters, latency
//! None; combinational.

use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The walker's context record: what it keeps about a connection's stream between segments.
    WalkCtx, prefix walk_ctx, bits 34, {
        /// Word position of the next beat's lane 0 from the Marker origin, modulo 2^16.
        bpos: Bits<16> = 0,
        /// Word position of the next FPDU's start, modulo 2^16.
        ns: Bits<16> = 16,
        /// That start is the header after a leading Marker (no mark for it).
        hdr_only: Bit = 32,
        /// A ULPDU_Length above the limit was reached: nothing more is marked.
        dead: Bit = 33,
    }
}

/// Width of a [`WalkCtx`] record.
pub const WALK_CTX_BITS: usize = WalkCtx::BITS;

impl WalkCtx {
    /// The record of a connection whose MPA stream (an FPDU's first octet) starts at sequence
    /// number `seq`, its Marker origin at `origin`: what `rst` gives the walker with `cfg_seq`
    /// / `cfg_origin`.
    pub fn fresh(seq: u32, origin: u32) -> Self {
        let words = (seq.wrapping_sub(origin) >> 2) as u64 & 0xFFFF;
        WalkCtx { bpos: words, ns: words, ..Default::default() }
    }
}

/// The record's wiring; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct WalkCtxPack {
    /// A record to unpack.
    pub rec_in: Signal<In, Bits<WALK_CTX_BITS>>,
    /// Its next beat's position.
    pub in_bpos: Signal<Out, Bits<16>>,
    /// Its next FPDU start.
    pub in_ns: Signal<Out, Bits<16>>,
    /// Its header-after-a-leading-Marker flag.
    pub in_hdr_only: Signal<Out, Bit>,
    /// Its stopped flag.
    pub in_dead: Signal<Out, Bit>,
    /// The walker's next beat's position.
    pub bpos: Signal<In, Bits<16>>,
    /// Its next FPDU start.
    pub ns: Signal<In, Bits<16>>,
    /// Its header-after-a-leading-Marker flag.
    pub hdr_only: Signal<In, Bit>,
    /// Its stopped flag.
    pub dead: Signal<In, Bit>,
    /// The record of those registers.
    pub rec_out: Signal<Out, Bits<WALK_CTX_BITS>>,
}

impl Logic for WalkCtxPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.in_bpos.next = self.rec_in.val().get_value_walk_ctx_bpos();
        self.in_ns.next = self.rec_in.val().get_value_walk_ctx_ns();
        self.in_hdr_only.next = self.rec_in.val().get_value_walk_ctx_hdr_only();
        self.in_dead.next = self.rec_in.val().get_value_walk_ctx_dead();
        self.rec_out.next = 0.into();
        self.rec_out.next.set_value_walk_ctx_bpos(self.bpos.val());
        self.rec_out.next.set_value_walk_ctx_ns(self.ns.val());
        self.rec_out.next.set_value_walk_ctx_hdr_only(self.hdr_only.val());
        self.rec_out.next.set_value_walk_ctx_dead(self.dead.val());
    }
}
