//! The sidebands (`user` fields) that travel between blocks, declared once.
//!
//! Each sideband is a set of named fields at fixed bit positions of a `Bits<N>` `user` signal.
//! [`sideband!`] declares, from one list of fields:
//! - `<Name>::BITS`, and `<Name>::<FIELD>_AT` / `<Name>::<FIELD>_WIDTH` for each field;
//! - a host-side struct `<Name>` (one Rust value per field: `bool` for one bit, `u64` above),
//!   with [`pack`](RxFpduUser::pack) and [`unpack`](RxFpduUser::unpack), for `sim`,
//!   `testbench` and `cli` (no raw bit positions there);
//! - a trait `<Name>Fields` on `Bits<N>`, with per field `get_value_<prefix>_<field>()`,
//!   `set_value_<prefix>_<field>(v)`, `get_my_width_<prefix>_<field>()` and
//!   `get_my_offset_<prefix>_<field>()`.
//!
//! The trait is how the blocks read and write the fields inside `#[hdl_gen] fn update`:
//! rust-hdl 0.46's `hdl_gen` turns `x.val().get_value_f()` into the Verilog slice
//! `x[(offset)+:(width)]` and the statement `x.next.set_value_f(v)` into the slice assignment
//! `x[(offset)+:(width)] = v`, computing offset and width by calling `get_my_offset_f` and
//! `get_my_width_f` when it generates the Verilog (the mechanism its `LogicStruct` fields use).
//! In the Rust model the same methods read and write the bits. So the Verilog and the model
//! both take the positions from here; a plain `get_bit(CONST)` would not work, because
//! `hdl_gen` would print the constant's name into the Verilog.
//!
//! The `prefix` keeps the method names of sidebands of the same width apart (the transmit
//! ULPDU and FPDU sidebands are both 17 bits).

use rust_hdl::prelude::*;

/// The value type of a field: [`Bit`] (host value `bool`) or `Bits<N>` (host value `u64`).
pub trait FieldValue: Copy {
    /// The host-side (`sim`, `testbench`) type of the value.
    type Host: Copy + Default + std::fmt::Debug + PartialEq + Eq;
    /// Reads the field at bit `at` of `u`.
    fn read<const U: usize>(u: Bits<U>, at: usize) -> Self;
    /// `u` with the field at bit `at` replaced by `self`.
    fn write<const U: usize>(self, u: Bits<U>, at: usize) -> Bits<U>;
    /// The host value as bits.
    fn host_to_u64(h: Self::Host) -> u64;
    /// The host value of bits (only the field's width is used).
    fn host_from_u64(v: u64) -> Self::Host;
}

impl FieldValue for Bit {
    type Host = bool;
    fn read<const U: usize>(u: Bits<U>, at: usize) -> Self {
        u.get_bit(at)
    }
    fn write<const U: usize>(self, u: Bits<U>, at: usize) -> Bits<U> {
        u.replace_bit(at, self)
    }
    fn host_to_u64(h: bool) -> u64 {
        h as u64
    }
    fn host_from_u64(v: u64) -> bool {
        v & 1 != 0
    }
}

impl<const N: usize> FieldValue for Bits<N> {
    type Host = u64;
    fn read<const U: usize>(u: Bits<U>, at: usize) -> Self {
        u.get_bits::<N>(at)
    }
    fn write<const U: usize>(self, u: Bits<U>, at: usize) -> Bits<U> {
        let mask = bit_cast::<U, N>(Bits::<N>::mask()) << (at as LiteralType);
        (u & !mask) | (bit_cast::<U, N>(self) << (at as LiteralType))
    }
    fn host_to_u64(h: u64) -> u64 {
        h
    }
    fn host_from_u64(v: u64) -> u64 {
        if N >= 64 {
            v
        } else {
            v & ((1u64 << N) - 1)
        }
    }
}

/// Declares one sideband; see the module documentation.
macro_rules! sideband {
    (
        $(#[$meta:meta])*
        $name:ident, prefix $prefix:ident, bits $bits:expr, {
            $( $(#[$fmeta:meta])* $field:ident: $ty:ty = $at:expr ),* $(,)?
        }
    ) => { paste::paste! {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: <$ty as $crate::sideband::FieldValue>::Host, )*
        }

        impl $name {
            /// Width of the `user` signal.
            pub const BITS: usize = $bits;
            $(
                #[doc = concat!("Lowest bit of `", stringify!($field), "`.")]
                pub const [<$field:upper _AT>]: usize = $at;
                #[doc = concat!("Bits of `", stringify!($field), "`.")]
                pub const [<$field:upper _WIDTH>]: usize = <$ty as Synth>::BITS;
            )*

            /// The `user` value of these fields (bits outside every field are 0).
            ///
            /// # Panics
            /// When a field's value does not fit its width (a caller's mistake, never masked), or
            /// the sideband is wider than 64 bits (only the blocks' internal ones are).
            pub fn pack(&self) -> u64 {
                Self::assert_host_width();
                let mut u = 0u64;
                $(
                    let v = <$ty as $crate::sideband::FieldValue>::host_to_u64(self.$field);
                    assert!(
                        Self::[<$field:upper _WIDTH>] >= 64
                            || v >> Self::[<$field:upper _WIDTH>] == 0,
                        "{}::{} = {v} does not fit {} bits",
                        stringify!($name), stringify!($field), Self::[<$field:upper _WIDTH>]
                    );
                    u |= v.checked_shl(Self::[<$field:upper _AT>] as u32).unwrap_or(0);
                )*
                u
            }

            /// The fields of a `user` value (bits outside every field are ignored).
            ///
            /// # Panics
            /// When the sideband is wider than 64 bits.
            pub fn unpack(u: u64) -> Self {
                Self::assert_host_width();
                Self {
                    $( $field: <$ty as $crate::sideband::FieldValue>::host_from_u64(
                        u.checked_shr(Self::[<$field:upper _AT>] as u32).unwrap_or(0)
                    ), )*
                }
            }

            // The host value is a u64: the shifts above cannot overflow below this width.
            fn assert_host_width() {
                assert!(
                    Self::BITS <= 64,
                    "{}: {} bits do not fit pack/unpack's u64",
                    stringify!($name), Self::BITS
                );
            }

            /// Every field as (name, lowest bit, width), in declaration order.
            pub fn layout() -> Vec<(&'static str, usize, usize)> {
                vec![$( (stringify!($field), Self::[<$field:upper _AT>],
                        Self::[<$field:upper _WIDTH>]) ),*]
            }
        }

        #[doc = concat!("The fields of [`", stringify!($name), "`] on its `Bits` signal, for `#[hdl_gen]` code.")]
        pub trait [<$name Fields>] {
            $(
                #[doc = concat!("Reads `", stringify!($field), "`.")]
                fn [<get_value_ $prefix _ $field>](&self) -> $ty;
                #[doc = concat!("Writes `", stringify!($field), "` (a statement on `.next`).")]
                fn [<set_value_ $prefix _ $field>](&mut self, v: $ty);
                #[doc = concat!("Width of `", stringify!($field), "` (`hdl_gen` calls it).")]
                fn [<get_my_width_ $prefix _ $field>](&self) -> usize;
                #[doc = concat!("Lowest bit of `", stringify!($field), "` (`hdl_gen` calls it).")]
                fn [<get_my_offset_ $prefix _ $field>](&self) -> usize;
            )*
        }

        impl [<$name Fields>] for Bits<{ $bits }> {
            $(
                fn [<get_value_ $prefix _ $field>](&self) -> $ty {
                    <$ty as $crate::sideband::FieldValue>::read(*self, $name::[<$field:upper _AT>])
                }
                fn [<set_value_ $prefix _ $field>](&mut self, v: $ty) {
                    *self = $crate::sideband::FieldValue::write(v, *self, $name::[<$field:upper _AT>]);
                }
                fn [<get_my_width_ $prefix _ $field>](&self) -> usize {
                    $name::[<$field:upper _WIDTH>]
                }
                fn [<get_my_offset_ $prefix _ $field>](&self) -> usize {
                    $name::[<$field:upper _AT>]
                }
            )*
        }
    }};
}
pub(crate) use sideband;

sideband! {
    /// Transmit ULPDU input (`mpa_tx`'s `s_axis_tuser`, the framer's input).
    TxUlpduUser, prefix tx_ulpdu, bits 17, {
        /// ULPDU_Length (RFC 5044 section 4.1), on every beat.
        len: Bits<16> = 0,
        /// Push: the segment may end after this FPDU.
        push: Bit = 16,
    }
}

sideband! {
    /// FPDU sideband between the transmit blocks (framer → Marker inserter → CRC unit →
    /// segmenter), on every beat of an FPDU.
    TxFpduUser, prefix tx_fpdu, bits 17, {
        /// P: the FPDU's words, the CRC field included.
        words: Bits<14> = 0,
        /// Markers on for this FPDU.
        markers: Bit = 14,
        /// CRC on for this FPDU.
        crc: Bit = 15,
        /// Push (from the ULPDU).
        push: Bit = 16,
    }
}

sideband! {
    /// Transmit segments (`mpa_tx`'s `m_axis_tuser`), on every beat.
    TxSegmentUser, prefix tx_seg, bits 32, {
        /// TCP sequence number of the segment's first octet.
        seq: Bits<32> = 0,
    }
}

sideband! {
    /// Receive TCP segments (`mpa_rx`'s and `rnic_rx`'s `s_axis_tuser`, the realigner's input).
    RxSegmentUser, prefix rx_seg, bits 33, {
        /// Sequence number of the segment's first octet (first beat).
        seq: Bits<32> = 0,
        /// FIN: the stream ends after this segment (last beat).
        fin: Bit = 32,
    }
}

sideband! {
    /// The in-order stream as words (realigner → delineator).
    RxWordUser, prefix rx_word, bits 2, {
        /// The stream ends after this beat.
        fin: Bit = 0,
        /// It ended inside a word (octets lost).
        lost: Bit = 1,
    }
}

sideband! {
    /// The word stream with its FPDU boundaries marked ([`crate::rx::walker::RxFpduWalker`]'s
    /// output), on every beat. Bit `j` of `first` and `last` is word lane `j`.
    RxWalkUser, prefix rx_walk, bits 35, {
        /// As [`RxWordUser::fin`].
        fin: Bit = 0,
        /// As [`RxWordUser::lost`].
        lost: Bit = 1,
        /// The header in this beat (of the last FPDU marked `first`, in this beat or, for an
        /// FPDU that starts with a Marker in the previous beat's last word, in that beat) has a
        /// ULPDU_Length above the limit: nothing is marked after it.
        bad: Bit = 2,
        /// Lanes holding an FPDU's first word (its leading Marker when it starts with one).
        first: Bits<16> = 3,
        /// Lanes holding an FPDU's last word (its CRC field).
        last: Bits<16> = 19,
    }
}

sideband! {
    /// One beat's entry in [`crate::rx::walker::RxFpduWalker`]'s beat queue.
    RxWalkBeat, prefix rx_walk_beat, bits 9, {
        /// Whole words in the beat.
        n: Bits<6> = 0,
        /// As [`RxWordUser::fin`].
        fin: Bit = 6,
        /// As [`RxWordUser::lost`].
        lost: Bit = 7,
        /// The beat's `last`.
        last: Bit = 8,
    }
}

sideband! {
    /// A beat inside [`crate::rx::cutter::RxFpduCutter`]'s input queue: the walker's sideband
    /// and where the beat's lane 0 is in the stream.
    RxCutIn, prefix rx_cut_in, bits 74, {
        /// The walker's sideband ([`RxWalkUser`]).
        walk: Bits<35> = 0,
        /// Sequence number of the beat's first octet.
        seq: Bits<32> = 35,
        /// Word position of the beat's lane 0 from the Marker origin, mod 128.
        pos: Bits<7> = 67,
    }
}

sideband! {
    /// A fragment command in [`crate::rx::cutter::RxFpduCutter`]: the words of one beat that
    /// belong to one FPDU, or an error packet's end.
    RxCutCmd, prefix rx_cut_cmd, bits 77, {
        /// The fragment's first lane.
        s: Bits<6> = 0,
        /// Its words (0 for an error packet that takes none).
        k: Bits<6> = 6,
        /// It ends its packet.
        ends: Bit = 12,
        /// It starts an FPDU (`fpdu` is that FPDU's sideband).
        start: Bit = 13,
        /// The packet is an error packet (set on its last beat).
        err: Bit = 14,
        /// The error's RFC 5044 section 8 code.
        code: Bits<2> = 15,
        /// The FPDU's sideband ([`RxFpduUser`]), when `start`.
        fpdu: Bits<44> = 17,
        /// `k` as a thermometer (bit j: k > j).
        kt: Bits<16> = 61,
    }
}

sideband! {
    /// A planned fragment in [`crate::rx::cutter::RxFpduCutter`]: a command with the words held
    /// before it worked out, so that applying it is selections only.
    RxCutPlan, prefix rx_cut_plan, bits 96, {
        /// Rotation of the beat toward higher lanes (c - s mod the words in a beat).
        amt: Bits<6> = 0,
        /// Words held in the accumulator before the fragment (c).
        hold: Bits<6> = 6,
        /// c + k fills a beat.
        full: Bit = 12,
        /// c + k overfills a beat (with `ends`: a tail).
        over: Bit = 13,
        /// As [`RxCutCmd::ends`].
        ends: Bit = 14,
        /// A beat goes out (`full` or `ends`).
        emits: Bit = 15,
        /// As [`RxCutCmd::start`].
        start: Bit = 16,
        /// As [`RxCutCmd::err`].
        err: Bit = 17,
        /// As [`RxCutCmd::code`].
        code: Bits<2> = 18,
        /// As [`RxCutCmd::fpdu`].
        fpdu: Bits<44> = 20,
        /// Words of the beat that goes out when it is not full (bit j: word j), c + k of them.
        w_tot: Bits<16> = 64,
        /// Words of the tail (c + k - words of them).
        w_tail: Bits<16> = 80,
    }
}

sideband! {
    /// FPDU packets (delineator → CRC check → Marker stripper), on every beat.
    RxFpduUser, prefix rx_fpdu, bits 44, {
        /// Sequence number of the FPDU's first octet.
        seq: Bits<32> = 0,
        /// Words from the FPDU's first word to the first Marker position (0: it starts with a
        /// Marker).
        to_marker: Bits<7> = 32,
        /// Markers on.
        markers: Bit = 39,
        /// CRC on.
        crc: Bit = 40,
        /// An error packet (it ends the stream).
        err: Bit = 41,
        /// The error's RFC 5044 section 8 code.
        code: Bits<2> = 42,
    }
}

sideband! {
    /// ULPDU packets (`mpa_rx`'s `m_axis_tuser`: Marker stripper → release buffer → DDP).
    RxUlpduUser, prefix rx_ulpdu, bits 51, {
        /// Sequence number of the FPDU's first octet.
        seq: Bits<32> = 0,
        /// ULPDU_Length.
        len: Bits<16> = 32,
        /// An error packet: one null beat, the last of the stream.
        err: Bit = 48,
        /// The error's RFC 5044 section 8 code (1: length or stream, 2: CRC or ULPDU_Length
        /// above the limit, 3: FPDUPTR).
        code: Bits<2> = 49,
    }
}

sideband! {
    /// ULPDU packets into the placement header decoder: [`RxUlpduUser`] and a mode
    /// (`crate::place::header::MODE_INORDER`, `MODE_PROBE`, `MODE_PLACE`).
    PlaceUlpduUser, prefix place_ulpdu, bits 53, {
        /// As [`RxUlpduUser::seq`].
        seq: Bits<32> = RxUlpduUser::SEQ_AT,
        /// As [`RxUlpduUser::len`].
        len: Bits<16> = RxUlpduUser::LEN_AT,
        /// As [`RxUlpduUser::err`].
        err: Bit = RxUlpduUser::ERR_AT,
        /// As [`RxUlpduUser::code`].
        code: Bits<2> = RxUlpduUser::CODE_AT,
        /// How the ULPDU is taken.
        mode: Bits<2> = RxUlpduUser::BITS,
    }
}

sideband! {
    /// The CRC top's result (`mpa_crc32c`'s `m_axis_tuser`).
    CrcResultUser, prefix crc_result, bits 1, {
        /// The message did not end with its own correct CRC.
        bad: Bit = 0,
    }
}

/// Width of `mpa_tx`'s ULPDU input sideband.
pub const TX_ULPDU_USER: usize = TxUlpduUser::BITS;
/// Width of the FPDU sideband between transmit blocks.
pub const TX_FPDU_USER: usize = TxFpduUser::BITS;
/// Width of the transmit segment sideband.
pub const TX_SEGMENT_USER: usize = TxSegmentUser::BITS;
/// Width of the receive segment sideband.
pub const RX_SEG_USER: usize = RxSegmentUser::BITS;
/// Width of the word-stream sideband.
pub const RX_WORD_USER: usize = RxWordUser::BITS;
/// Width of the walker's output sideband.
pub const RX_WALK_USER: usize = RxWalkUser::BITS;
/// Width of the FPDU-packet sideband.
pub const RX_FPDU_USER: usize = RxFpduUser::BITS;
/// Width of the cutter's input-queue sideband.
pub const RX_CUT_IN: usize = RxCutIn::BITS;
/// Width of the cutter's fragment commands.
pub const RX_CUT_CMD: usize = RxCutCmd::BITS;
/// Width of the cutter's planned fragments.
pub const RX_CUT_PLAN: usize = RxCutPlan::BITS;
/// Width of the ULPDU-packet sideband.
pub const RX_ULPDU_USER: usize = RxUlpduUser::BITS;
/// Width of the placement header decoder's input sideband.
pub const HDR_IN_USER: usize = PlaceUlpduUser::BITS;
