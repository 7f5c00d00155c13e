//! The receive datapath of RFC 5044 for in-order TCP data (`mpa_rx`): TCP payload segments in,
//! verified ULPDUs out.
//!
//! ```text
//!  s_axis ─► RxRealigner ─► RxDelineator ─► RxCrcCheck ─► RxMarkerStripper ─► RxRelease ─► m_axis
//!  (segments)  A.4 (words)    section 6       4.4           4.2, 4.3, 6    6, 8 (verify
//!                                                                          before release)
//! ```
//! Errors travel in band: a block that finds one ends its output with an error packet (sideband
//! error bit and the RFC 5044 section 8 code), so the error reaches the output after exactly the
//! ULPDUs that came before it.
//!
//! The delineator is two blocks: [`walker::RxFpduWalker`] marks the FPDU boundaries of the word
//! stream from counts alone, [`cutter::RxFpduCutter`] cuts the stream at its marks.

pub mod conn_regs;
pub mod crc_check;
pub mod crc_ctx;
pub mod cut_ctx;
pub mod cutter;
pub mod delineator;
pub mod marker_stripper;
pub mod mpa_rx;
pub mod mpa_rx_conns;
pub mod mpa_rx_ctx;
pub mod mpa_rx_table;
pub mod realign_ctx;
pub mod realign_table;
pub mod realigner;
pub mod release;
pub mod release_regions;
pub mod strip_ctx;
pub mod verify;
pub mod walk_ctx;
pub mod walker;
