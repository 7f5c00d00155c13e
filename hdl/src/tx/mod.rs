//! The transmit datapath of RFC 5044 (`mpa_tx`): ULPDUs in, FPDU-aligned TCP segments out.
//!
//! ```text
//!  s_axis (ULPDUs) ─► TxFramer ─► TxMarkerInserter ─► TxCrcUnit ─► TxSegmenter ─► m_axis (segments)
//!                     4.1          4.2, 4.3             4.4          5.1, A.1, 4.5
//! ```
//!
//! Between the blocks every FPDU is its own packet starting at lane 0, a whole number of 4-octet
//! words, with the sideband [`TX_FPDU_USER`] on every beat: `[13:0]` P, the FPDU's length in
//! words before Markers are inserted (CRC field included), `[14]` Markers on, `[15]` CRC on,
//! `[16]` push. The settings are sampled once per ULPDU, by the framer, so every block applies the
//! same ones to the same FPDU.

pub mod crc_unit;
pub mod framer;
pub mod marker_inserter;
pub mod mpa_tx;
pub mod mulpdu;
pub mod segmenter;

pub use crate::sideband::{TX_FPDU_USER, TX_ULPDU_USER};

/// The narrowest W at which `TxCrcUnit`, `TxFramer` and `TxMarkerInserter` build their wide
/// forms (the CRC word written by a select per word; the length check's lane mismatches
/// registered before they are reduced; the inserter's output data always the gearbox's merged
/// beat; from [`TX_ROTATE_AHEAD_FROM_W`] more of them). Below it the
/// blocks build the narrow forms only, and their Verilog is the same text as before the wide
/// forms existed: at W = 8, any change to `mpa_tx`'s Verilog redraws the placement, and the
/// line rate there has 0.2 % margin (README, transmit path, stop 69). The wide forms are built
/// as one-entry vectors of signals and registers (none below this width), each assigned after
/// the narrow form it replaces, which synthesis then drops.
pub const TX_WIDE_FORMS_FROM_W: usize = 16;

/// 1 when the transmit blocks build their wide forms at width `w`, else 0 (the length of
/// their wide-form vectors).
pub const fn tx_wide_forms(w: usize) -> usize {
    if w >= TX_WIDE_FORMS_FROM_W {
        1
    } else {
        0
    }
}

/// The narrowest W at which the Marker inserter rotates its beats in its decide stage (its
/// gearbox then only merges) and the segmenter keeps a cut beat's second fragment in a register
/// of its own. Both help where the rotation's select fans out over many lanes: W = 64 went from
/// 87.6 to 97.2 MHz at seed 1. At W = 32 they take the inserter off the critical path, but the
/// segmenter's input position (`ipos_m2`) then limits at about the same Fmax (118.3 / 116.0 /
/// 108.1 MHz at seeds 1 / 2 / 3 against 111.2 / 118.4 / 115.3); at W = 16 the lane masks'
/// comparisons with registers cost more than the 4-lane rotation they replace (126.4 against
/// 143.9 MHz at seed 2). So W = 4 to 32 keep stop 69's forms and Verilog (README, transmit
/// path, stop 70).
pub const TX_ROTATE_AHEAD_FROM_W: usize = 64;

/// 1 when the transmit blocks rotate ahead of the gearbox at width `w`
/// ([`TX_ROTATE_AHEAD_FROM_W`]), else 0 (the length of those vectors).
pub const fn tx_rotate_ahead(w: usize) -> usize {
    if w >= TX_ROTATE_AHEAD_FROM_W {
        1
    } else {
        0
    }
}

/// `n` default-built entries: a wide-form vector's (`n` from [`tx_wide_forms`] or
/// [`tx_rotate_ahead`]).
pub(crate) fn wide_entries<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// The widths the transmit blocks accept: 4, 8, 16, 32 or 64 bytes (whole 4-octet words).
pub fn check_tx_width(block: &str, w: usize) {
    assert!(
        w.is_power_of_two() && (4..=64).contains(&w),
        "{block}: W must be 4, 8, 16, 32 or 64 bytes (got {w})"
    );
}
