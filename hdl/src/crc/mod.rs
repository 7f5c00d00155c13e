//! CRC blocks (RFC 5044 section 4.4): the pipelined parallel engine, its matrices, and the
//! exported stream top.

pub mod calc;
pub mod engine;
pub mod matrices;

pub use calc::CrcCalc;
pub use engine::CrcEngine;
