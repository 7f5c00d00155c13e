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

/// The widths the transmit blocks accept: 4, 8, 16, 32 or 64 bytes (whole 4-octet words).
pub fn check_tx_width(block: &str, w: usize) {
    assert!(
        w.is_power_of_two() && (4..=64).contains(&w),
        "{block}: W must be 4, 8, 16, 32 or 64 bytes (got {w})"
    );
}
