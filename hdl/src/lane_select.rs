//! `LaneSelect`: the 32-bit lane of a beat that a one-hot picks, as a `U`-bit value.
//!
//! The Marker inserter's wide form (RFC 5044 4.2, [`crate::tx::marker_inserter`]) takes the
//! word pushed out of an expanded beat from the lane that holds the beat's word 0 (the beat is
//! rotated by the Markers put into its FPDU so far), which it holds one-hot. This block is
//! that select: an AND-OR of the lanes, no barrel shifter and no decoder. It exists as a block so that a caller can build it inside a one-entry vector
//! (`hdl_gen` evaluates a `bit_cast`'s width when it generates, which a vector that is empty
//! at some widths cannot give it).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data` | in | B | the beat, lane `j` in bits `[32j+31:32j]` |
//! | `sel` | in | 16 | one-hot: bit `j` picks lane `j` (bits at and above B/32 are ignored; none set gives 0, several the OR of their lanes) |
//! | `word` | out | U | the picked lane in bits `[31:0]`, zeros above |
//!
//! ### Parameters
//! `B` bits per beat (32 to 512, whole 32-bit lanes); `U` output bits, at least 32.
//!
//! ### Latency, throughput, reset
//! Combinational (no clock, no reset).

use crate::stream::ones_at;
use rust_hdl::prelude::*;

/// The one-hot lane select; see the module documentation.
#[derive(LogicBlock)]
pub struct LaneSelect<const B: usize, const U: usize> {
    /// The beat.
    pub data: Signal<In, Bits<B>>,
    /// One-hot lane choice.
    pub sel: Signal<In, Bits<16>>,
    /// The picked lane, zero-extended.
    pub word: Signal<Out, Bits<U>>,
    c_lane_mask: Vec<Constant<Bits<B>>>,
    c_lsh: Vec<Constant<Bits<16>>>,
    picked: Signal<Local, Bits<B>>,
    folded: Signal<Local, Bits<B>>,
}

impl<const B: usize, const U: usize> LaneSelect<B, U> {
    /// Builds the select; panics with a message naming the rule if `B` or `U` is illegal.
    pub fn new() -> Self {
        assert!(
            B.is_multiple_of(32) && (32..=512).contains(&B) && U >= 32,
            "LaneSelect: B is whole 32-bit lanes, 32 to 512 bits, and U at least 32 (got B = \
             {B}, U = {U})"
        );
        let lanes = B / 32;
        Self {
            data: Default::default(),
            sel: Default::default(),
            word: Default::default(),
            c_lane_mask: (0..lanes).map(|j| Constant::new(ones_at(32 * j, 32))).collect(),
            c_lsh: (0..lanes).map(|j| Constant::new(((32 * j) as u64).into())).collect(),
            picked: Default::default(),
            folded: Default::default(),
        }
    }
}

impl<const B: usize, const U: usize> Default for LaneSelect<B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const B: usize, const U: usize> Logic for LaneSelect<B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        self.picked.next = 0.into();
        for j in 0..self.c_lane_mask.len() {
            if self.sel.val().get_bit(j) {
                self.picked.next =
                    self.picked.val() | (self.data.val() & self.c_lane_mask[j].val());
            }
        }
        self.folded.next = 0.into();
        for j in 0..self.c_lsh.len() {
            self.folded.next = self.folded.val() | (self.picked.val() >> self.c_lsh[j].val());
        }
        self.word.next = bit_cast::<U, 32>(bit_cast::<32, B>(self.folded.val()));
    }
}
