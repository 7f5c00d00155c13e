//! `CutCtxPack`: the FPDU cutter's per-connection context record, packed and unpacked.
//!
//! DESIGN, "Connection state is explicit", and RFC 5044 Appendix B.2 (the receiver keeps the
//! FPDU it is assembling per connection). Everything [`super::cutter::RxFpduCutter`] remembers
//! about a connection's stream once a segment's words have all gone through it (it is not
//! `busy`) is one record in two parts:
//! - [`CutCtx`] (61 bits): the sequence number and Marker phase (word position modulo 128 from
//!   the origin) of the next beat's lane 0, whether an FPDU is open (its words so far not all
//!   out) and how many of its words are held, whether the stream has ended (FIN or an error),
//!   and how far back, in words, the open FPDU started;
//! - the held words themselves: the cutter's `acc`, `8W` bits of which lanes `0..held` count
//!   (at most `W/4 - 1` words: 32 bits at W = 8, 480 at W = 64).
//!
//! The open FPDU's sideband is not stored: its sequence number is the next beat's less `back`
//! words and its Marker distance `back` less the phase (modulo 128), as when its first word went
//! in; the settings in it (`markers`, `crc`) are the cutter's inputs, which a controller sets with
//! the record. Everything else in the cutter is per beat in flight (empty when it is not
//! `busy`).
//!
//! This block is the record's wiring and that arithmetic (no register): the cutter built
//! [`super::cutter::RxFpduCutter::with_context`] holds one (rust-hdl's `hdl_gen` cannot slice a
//! port that is an element of a vector, which the optional ports are).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rec_in` | in | 61 | a record ([`CutCtx`]) |
//! | `markers`, `crc` | in | 1 | the settings to put in the open FPDU's sideband |
//! | `in_seq`, `in_pos`, `in_open`, `in_dead` | out | 32, 7, 1, 1 | its fields |
//! | `in_c`, `in_c_oh`, `in_c_th` | out | 6, 16, 16 | its held-word count, as a count, one-hot and the mask of the lanes below it |
//! | `in_fuser` | out | 44 | the open FPDU's sideband ([`crate::sideband::RxFpduUser`]) |
//! | `seq`, `pos`, `open`, `dead`, `c`, `fuser` | in | 32, 7, 1, 1, 6, 44 | the cutter's registers |
//! | `rec_out` | out | 61 | them as a record (`back` 0 when no FPDU is open) |
//!
//! ### Parameters, latency
//! None; combinational.

use crate::sideband::{RxFpduUserFields, RX_FPDU_USER};
use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The cutter's context record: what it keeps about a connection's stream between
    /// segments, without the held words (a port of their own).
    CutCtx, prefix cut_ctx, bits 61, {
        /// Sequence number of the next beat's lane 0.
        seq: Bits<32> = 0,
        /// Its word position from the Marker origin, modulo 128 (the Marker phase).
        pos: Bits<7> = 32,
        /// An FPDU is open: its first word went in, its last has not.
        open: Bit = 39,
        /// The stream has ended (FIN or an error packet): every beat is dropped.
        dead: Bit = 40,
        /// Words of the open FPDU held (not yet out): 0 to W/4 - 1.
        held: Bits<4> = 41,
        /// Words from the open FPDU's first word to the next beat's lane 0 (0 when none is
        /// open).
        back: Bits<16> = 45,
    }
}

/// Width of a [`CutCtx`] record.
pub const CUT_CTX_BITS: usize = CutCtx::BITS;

impl CutCtx {
    /// The record of a connection whose MPA stream (an FPDU's first octet) starts at sequence
    /// number `seq`, its Marker origin at `origin`: what `rst` gives the cutter with `cfg_seq` /
    /// `cfg_origin`.
    pub fn fresh(seq: u32, origin: u32) -> Self {
        let pos = (seq.wrapping_sub(origin) >> 2) as u64 & 0x7F;
        CutCtx { seq: seq as u64, pos, ..Default::default() }
    }
}

/// The record's wiring; see the module documentation.
#[derive(LogicBlock)]
pub struct CutCtxPack {
    /// A record to unpack.
    pub rec_in: Signal<In, Bits<CUT_CTX_BITS>>,
    /// Markers on, for the open FPDU's sideband.
    pub markers: Signal<In, Bit>,
    /// CRC on, likewise.
    pub crc: Signal<In, Bit>,
    /// Its next beat's sequence number.
    pub in_seq: Signal<Out, Bits<32>>,
    /// Its Marker phase.
    pub in_pos: Signal<Out, Bits<7>>,
    /// Its FPDU-open flag.
    pub in_open: Signal<Out, Bit>,
    /// Its ended flag.
    pub in_dead: Signal<Out, Bit>,
    /// Its held-word count.
    pub in_c: Signal<Out, Bits<6>>,
    /// The count one-hot.
    pub in_c_oh: Signal<Out, Bits<16>>,
    /// The lanes below the count.
    pub in_c_th: Signal<Out, Bits<16>>,
    /// The open FPDU's sideband.
    pub in_fuser: Signal<Out, Bits<RX_FPDU_USER>>,
    /// The cutter's next beat's sequence number.
    pub seq: Signal<In, Bits<32>>,
    /// Its Marker phase.
    pub pos: Signal<In, Bits<7>>,
    /// Its FPDU-open flag.
    pub open: Signal<In, Bit>,
    /// Its ended flag.
    pub dead: Signal<In, Bit>,
    /// Its held-word count.
    pub c: Signal<In, Bits<6>>,
    /// The open FPDU's sideband.
    pub fuser: Signal<In, Bits<RX_FPDU_USER>>,
    /// The record of those registers.
    pub rec_out: Signal<Out, Bits<CUT_CTX_BITS>>,
    r_back: Signal<Local, Bits<16>>,
    r_back32: Signal<Local, Bits<32>>,
    r_back7: Signal<Local, Bits<7>>,
    back_oct: Signal<Local, Bits<32>>,
    c_one: Constant<Bits<16>>,
}

impl Default for CutCtxPack {
    fn default() -> Self {
        Self {
            rec_in: Default::default(),
            markers: Default::default(),
            crc: Default::default(),
            in_seq: Default::default(),
            in_pos: Default::default(),
            in_open: Default::default(),
            in_dead: Default::default(),
            in_c: Default::default(),
            in_c_oh: Default::default(),
            in_c_th: Default::default(),
            in_fuser: Default::default(),
            seq: Default::default(),
            pos: Default::default(),
            open: Default::default(),
            dead: Default::default(),
            c: Default::default(),
            fuser: Default::default(),
            rec_out: Default::default(),
            r_back: Default::default(),
            r_back32: Default::default(),
            r_back7: Default::default(),
            back_oct: Default::default(),
            c_one: Constant::new(1u64.into()),
        }
    }
}

impl Logic for CutCtxPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.in_seq.next = self.rec_in.val().get_value_cut_ctx_seq();
        self.in_pos.next = self.rec_in.val().get_value_cut_ctx_pos();
        self.in_open.next = self.rec_in.val().get_value_cut_ctx_open();
        self.in_dead.next = self.rec_in.val().get_value_cut_ctx_dead();
        self.in_c.next = bit_cast::<6, 4>(self.rec_in.val().get_value_cut_ctx_held());
        self.in_c_oh.next = self.c_one.val() << self.in_c.val();
        self.in_c_th.next = self.in_c_oh.val() - 1;
        // The open FPDU's sideband, as the sequencer made it from its first word's position.
        self.r_back.next = self.rec_in.val().get_value_cut_ctx_back();
        self.r_back32.next = bit_cast::<32, 16>(self.r_back.val());
        self.r_back7.next = self.r_back.val().get_bits::<7>(0);
        self.in_fuser.next = 0.into();
        self.in_fuser.next.set_value_rx_fpdu_seq(self.in_seq.val() - (self.r_back32.val() << 2));
        self.in_fuser.next.set_value_rx_fpdu_to_marker(self.r_back7.val() - self.in_pos.val());
        self.in_fuser.next.set_value_rx_fpdu_markers(self.markers.val());
        self.in_fuser.next.set_value_rx_fpdu_crc(self.crc.val());
        // And back: the words since the open FPDU's first.
        self.back_oct.next = self.seq.val() - self.fuser.val().get_value_rx_fpdu_seq();
        self.rec_out.next = 0.into();
        self.rec_out.next.set_value_cut_ctx_seq(self.seq.val());
        self.rec_out.next.set_value_cut_ctx_pos(self.pos.val());
        self.rec_out.next.set_value_cut_ctx_open(self.open.val());
        self.rec_out.next.set_value_cut_ctx_dead(self.dead.val());
        self.rec_out.next.set_value_cut_ctx_held(self.c.val().get_bits::<4>(0));
        if self.open.val() {
            self.rec_out.next.set_value_cut_ctx_back(self.back_oct.val().get_bits::<16>(2));
        }
    }
}
