//! The board loopback: what a board runs to show the datapath working, and its pin wrappers.
//!
//! ```text
//!  TrafficGen ─► MpaTx ─► (one bit flipped per button press) ─► MpaRx ─► LoopbackChecker ─► LEDs
//! ```
//! - [`pattern`]: the ULPDU sequence of [`golden::traffic`], one beat at a time;
//! - [`traffic_gen`]: the generator (a stream of ULPDUs for `mpa_tx`);
//! - [`checker`]: compares what `mpa_rx` delivers with what was sent;
//! - [`loopback`]: the whole loopback with reset, switches, fault button and LEDs;
//! - [`pins`]: the boards (ULX3S, iCE40-HX8K breakout), their wrappers and constraint files.

pub mod checker;
pub mod loopback;
pub mod pattern;
pub mod pins;
pub mod traffic_gen;
