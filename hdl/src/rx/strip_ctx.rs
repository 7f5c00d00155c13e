//! `StripCtxPack`: the Marker stripper's per-connection context record, packed and unpacked.
//!
//! DESIGN, "Connection state is explicit", and RFC 5044 Appendix B.2. What
//! [`super::marker_stripper::RxMarkerStripper`] keeps about a connection's stream once nothing
//! of it is inside (no beat in its strip register or output queue, no tail leaving) is one
//! record in two parts:
//! - [`StripCtx`] (63 bits): whether an FPDU packet is open, and for it the words to its next
//!   Marker position, the FPDUPTR that Marker must carry, whether a Marker so far had a wrong
//!   one, whether its ULPDU_Length went by and its value, the ULPDU octets left, the 16-bit
//!   lanes held; and whether the stream has ended (an error packet went out);
//! - the held lanes themselves: the stripper's `acc`, `8W` bits of which the lanes below `held`
//!   count (at most `W/2`, the ULPDU's last octets waiting for the FPDU's last beat).
//!
//! This block is the record's wiring (no register): the stripper built
//! [`super::marker_stripper::RxMarkerStripper::with_context`] holds one (rust-hdl's `hdl_gen`
//! cannot slice a port that is an element of a vector, which the optional ports are).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rec_in` | in | 63 | a record ([`StripCtx`]) |
//! | `wbytes` | in | 16 | W, to compare the octets left with |
//! | `in_mid`, `in_to_mk`, `in_pw`, `in_bad`, `in_seen`, `in_len`, `in_rem`, `in_rem_gt_w`, `in_c`, `in_dead` | out | 1, 7, 16, 1, 1, 16, 16, 1, 6, 1 | its fields, the FPDUPTR in octets, and whether more than W octets are left |
//! | `mid`, `to_mk`, `pw`, `bad`, `seen`, `len`, `rem`, `c`, `dead` | in | 1, 7, 16, 1, 1, 16, 16, 6, 1 | the stripper's registers |
//! | `rec_out` | out | 63 | them as a record |
//!
//! ### Parameters, latency
//! None; combinational.

use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The Marker stripper's context record: what it keeps about a connection's stream between
    /// segments, without the held lanes (a port of their own).
    StripCtx, prefix strip_ctx, bits 63, {
        /// An FPDU packet is open (its last beat has not come).
        mid: Bit = 0,
        /// Words from the next beat's lane 0 to the next Marker position, modulo 128.
        to_mk: Bits<7> = 1,
        /// The FPDUPTR that Marker must carry, in words (its octets / 4).
        pw: Bits<14> = 8,
        /// A Marker of the open FPDU had a wrong FPDUPTR.
        bad: Bit = 22,
        /// The open FPDU's ULPDU_Length went by.
        seen: Bit = 23,
        /// That ULPDU_Length.
        len: Bits<16> = 24,
        /// ULPDU octets of the open FPDU not yet collected.
        rem: Bits<16> = 40,
        /// 16-bit lanes held (0 to W/2).
        held: Bits<6> = 56,
        /// The stream has ended (an error packet went out): every beat is dropped.
        dead: Bit = 62,
    }
}

/// Width of a [`StripCtx`] record.
pub const STRIP_CTX_BITS: usize = StripCtx::BITS;

/// The record's wiring; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct StripCtxPack {
    /// A record to unpack.
    pub rec_in: Signal<In, Bits<STRIP_CTX_BITS>>,
    /// W.
    pub wbytes: Signal<In, Bits<16>>,
    /// Its open flag.
    pub in_mid: Signal<Out, Bit>,
    /// Its words to the next Marker.
    pub in_to_mk: Signal<Out, Bits<7>>,
    /// Its FPDUPTR, in octets.
    pub in_pw: Signal<Out, Bits<16>>,
    /// Its wrong-FPDUPTR flag.
    pub in_bad: Signal<Out, Bit>,
    /// Its ULPDU_Length-seen flag.
    pub in_seen: Signal<Out, Bit>,
    /// Its ULPDU_Length.
    pub in_len: Signal<Out, Bits<16>>,
    /// Its octets left.
    pub in_rem: Signal<Out, Bits<16>>,
    /// More than W of them.
    pub in_rem_gt_w: Signal<Out, Bit>,
    /// Its lanes held.
    pub in_c: Signal<Out, Bits<6>>,
    /// Its ended flag.
    pub in_dead: Signal<Out, Bit>,
    /// The stripper's open flag.
    pub mid: Signal<In, Bit>,
    /// Its words to the next Marker.
    pub to_mk: Signal<In, Bits<7>>,
    /// Its FPDUPTR, in octets (a multiple of 4).
    pub pw: Signal<In, Bits<16>>,
    /// Its wrong-FPDUPTR flag.
    pub bad: Signal<In, Bit>,
    /// Its ULPDU_Length-seen flag.
    pub seen: Signal<In, Bit>,
    /// Its ULPDU_Length.
    pub len: Signal<In, Bits<16>>,
    /// Its octets left.
    pub rem: Signal<In, Bits<16>>,
    /// Its lanes held.
    pub c: Signal<In, Bits<6>>,
    /// Its ended flag.
    pub dead: Signal<In, Bit>,
    /// The record of those registers.
    pub rec_out: Signal<Out, Bits<STRIP_CTX_BITS>>,
}

impl Logic for StripCtxPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.in_mid.next = self.rec_in.val().get_value_strip_ctx_mid();
        self.in_to_mk.next = self.rec_in.val().get_value_strip_ctx_to_mk();
        self.in_pw.next = bit_cast::<16, 14>(self.rec_in.val().get_value_strip_ctx_pw()) << 2;
        self.in_bad.next = self.rec_in.val().get_value_strip_ctx_bad();
        self.in_seen.next = self.rec_in.val().get_value_strip_ctx_seen();
        self.in_len.next = self.rec_in.val().get_value_strip_ctx_len();
        self.in_rem.next = self.rec_in.val().get_value_strip_ctx_rem();
        self.in_rem_gt_w.next = self.in_rem.val() > self.wbytes.val();
        self.in_c.next = self.rec_in.val().get_value_strip_ctx_held();
        self.in_dead.next = self.rec_in.val().get_value_strip_ctx_dead();
        self.rec_out.next = 0.into();
        self.rec_out.next.set_value_strip_ctx_mid(self.mid.val());
        self.rec_out.next.set_value_strip_ctx_to_mk(self.to_mk.val());
        self.rec_out.next.set_value_strip_ctx_pw(self.pw.val().get_bits::<14>(2));
        self.rec_out.next.set_value_strip_ctx_bad(self.bad.val());
        self.rec_out.next.set_value_strip_ctx_seen(self.seen.val());
        self.rec_out.next.set_value_strip_ctx_len(self.len.val());
        self.rec_out.next.set_value_strip_ctx_rem(self.rem.val());
        self.rec_out.next.set_value_strip_ctx_held(self.c.val());
        self.rec_out.next.set_value_strip_ctx_dead(self.dead.val());
    }
}
