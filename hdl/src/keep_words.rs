//! `KeepWords`: how many whole 4-octet words a beat's `keep` covers.
//!
//! The MPA blocks move FPDUs as whole words (RFC 5044 4.1: an FPDU is a multiple of 4 octets), so
//! a beat's `keep` is `4k` contiguous ones; this decoder turns it into `k` without an adder: word
//! `j` is the last one when its first octet is kept and the next word's is not (a one-hot
//! "wedge"), and `words` is the OR of the constants `j + 1` selected by it.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `keep` | in | W | a beat's byte enables, whole words contiguous from lane 0 |
//! | `words` | out | 6 | whole words kept: 0..=W/4 |
//! | `last_word` | out | 6 | index of the last kept word (`words - 1`; 0 when none) |
//!
//! Combinational (no clock); only the first octet of each word is looked at.
//!
//! ### Parameters
//! `W` bytes per beat: 4, 8, 16, 32 or 64.

use rust_hdl::prelude::*;

/// The keep decoder; see the module documentation.
#[derive(LogicBlock)]
pub struct KeepWords<const W: usize> {
    /// Byte enables.
    pub keep: Signal<In, Bits<W>>,
    /// Whole words kept.
    pub words: Signal<Out, Bits<6>>,
    /// Index of the last kept word.
    pub last_word: Signal<Out, Bits<6>>,
    wedge: Signal<Local, Bits<W>>,
    c_count: Vec<Constant<Bits<6>>>,
    c_index: Vec<Constant<Bits<6>>>,
}

impl<const W: usize> KeepWords<W> {
    /// Builds the decoder; panics if `W` is not 4, 8, 16, 32 or 64.
    pub fn new() -> Self {
        crate::tx::check_tx_width("KeepWords", W);
        Self {
            keep: Default::default(),
            words: Default::default(),
            last_word: Default::default(),
            wedge: Default::default(),
            c_count: (0..W / 4).map(|j| Constant::new(((j + 1) as u64).into())).collect(),
            c_index: (0..W / 4).map(|j| Constant::new((j as u64).into())).collect(),
        }
    }
}

impl<const W: usize> Default for KeepWords<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for KeepWords<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.wedge.next = 0.into();
        for j in 0..(W / 4 - 1) {
            self.wedge.next = self.wedge.val().replace_bit(
                j,
                self.keep.val().get_bit(j * 4) & !self.keep.val().get_bit(j * 4 + 4),
            );
        }
        for j in (W / 4 - 1)..(W / 4) {
            self.wedge.next = self.wedge.val().replace_bit(j, self.keep.val().get_bit(j * 4));
        }
        self.words.next = 0.into();
        self.last_word.next = 0.into();
        for j in 0..(W / 4) {
            if self.wedge.val().get_bit(j) {
                self.words.next = self.words.val() | self.c_count[j].val();
                self.last_word.next = self.last_word.val() | self.c_index[j].val();
            }
        }
    }
}
