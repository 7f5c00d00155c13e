//! The two simulation engines, named once.
//!
//! Every builder in [`crate::tx`], [`crate::rx`], [`crate::place`], [`crate::crc`] and
//! [`crate::board`] takes an [`Engine`]: the rust-hdl model driven directly
//! ([`crate::rusthdl::RustHdlSim`]) or the exported Verilog on Verilator
//! ([`crate::verilator::VerilatorSim`]). The command line spells them `rusthdl` and `verilator`
//! ([`Engine::name`], [`std::str::FromStr`]).

use std::fmt;
use std::str::FromStr;

/// A simulation engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The rust-hdl model, driven directly (no threads); VCD on request.
    RustHdl,
    /// The exported Verilog, compiled by Verilator.
    Verilator,
}

impl Engine {
    /// Both engines, the model first.
    pub const ALL: [Engine; 2] = [Engine::RustHdl, Engine::Verilator];

    /// The name the command line and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Engine::RustHdl => "rusthdl",
            Engine::Verilator => "verilator",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Engine::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown engine {s} (use rusthdl or verilator)"))
    }
}
