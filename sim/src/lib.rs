//! Cycle-level simulation of the hardware blocks, with two engines behind one interface.
//!
//! - [`Engine`]: which engine a builder makes ([`Engine::RustHdl`] or [`Engine::Verilator`]).
//! - [`CycleSim`]: set inputs, settle, read outputs, step the clock. Ports are addressed by
//!   index into [`CycleSim::ports`], under their exported AXI4-Stream names (`s_axis_tdata`).
//! - [`rusthdl::RustHdlSim`]: drives the rust-hdl model directly (no threads), VCD on request.
//! - [`verilator::VerilatorSim`]: the exported Verilog compiled by Verilator into a shared
//!   library (cached under `target/verilator/`) and driven through a small C ABI.
//! - [`stream`]: stream drivers and ready drivers with seeded idle/backpressure patterns, and the
//!   handshake monitor that checks the rules of [`hdl::stream`] on every stream.
//! - [`lockstep::Lockstep`]: two engines driven as one, every output compared every cycle.
//! - [`icarus`]: a run recorded on any engine and replayed on the exported Verilog under Icarus.
//! - [`packet`]: a packet-level harness for any block with `s_axis` and `m_axis`;
//! - [`tx`]: the transmit blocks under simulation;
//! - [`rx`]: the receive blocks under simulation;
//! - [`place`]: `rnic_rx` under simulation, with models of its register driver, TCP, memory and
//!   record consumer;
//! - [`crc`]: the CRC top's harness (messages in, results out), shared by tests and the CLI.
//! - [`traffic`]: receive-side traffic: sender streams, network effects, scenarios, pcap, and
//!   offering segments to the golden receiver.
//! - [`profile`]: a waveform's handshake profile (beats moved, stalls, starved cycles at every
//!   stream boundary), to find which block holds a rate.
//! - [`tools`]: Yosys `check -assert` and Verilator lint of exported files.
//!
//! Values cross the interface as little-endian 64-bit words: bit `i` of a port is bit `i % 64`
//! of word `i / 64`; a port of `w` bits takes `ceil(w / 64)` words.

pub mod axil;
pub mod board;
pub mod comb_check;
pub mod crc;
pub mod engine;
pub mod export;
pub mod icarus;
pub mod locate;
pub mod lockstep;
pub mod packet;
pub mod place;
pub mod profile;
pub mod reassembly;
pub mod rusthdl;
pub mod rx;
pub mod stream;
pub mod tools;
pub mod traffic;
pub mod tx;
pub mod verilator;

pub use engine::Engine;
pub use hdl::export::{Port, PortDir};

/// Number of 64-bit words a port of `width` bits takes.
pub fn words_for(width: usize) -> usize {
    width.div_ceil(64).max(1)
}

/// One cycle-level simulation: a clocked block with named ports.
///
/// The cycle protocol every testbench follows: `set` the inputs for this cycle, `eval` (settle
/// combinational logic), `get` outputs and sample monitors, then `tick` (one rising clock edge,
/// which samples the inputs as set). Outputs read after `tick` and `eval` belong to the next
/// cycle.
pub trait CycleSim {
    /// The engine's name: `rusthdl` or `verilator`.
    fn engine(&self) -> &'static str;
    /// The block's ports, in declaration order, under their exported names (`clk` included; it
    /// is driven by [`CycleSim::tick`] only).
    fn ports(&self) -> &[Port];
    /// Sets an input port for the coming clock edge; `value` holds at least `words_for(width)`
    /// words; bits above the width are ignored.
    fn set(&mut self, port: usize, value: &[u64]);
    /// Reads a port into `out` (`words_for(width)` words); an input reads back as last set.
    fn get(&mut self, port: usize, out: &mut [u64]);
    /// Settles combinational logic after inputs changed.
    fn eval(&mut self);
    /// One rising clock edge (the inputs as set are sampled), then settles.
    fn tick(&mut self);
    /// Rising edges so far.
    fn cycles(&self) -> u64;

    /// The index of the port called `name`.
    fn port(&self, name: &str) -> Result<usize, String> {
        self.ports()
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| format!("{}: no port named {name}", self.engine()))
    }
    /// Sets a port of at most 64 bits.
    fn set_u64(&mut self, port: usize, value: u64) {
        self.set(port, &[value]);
    }
    /// Reads a port of at most 64 bits.
    fn get_u64(&mut self, port: usize) -> u64 {
        let mut w = [0u64; 1];
        self.get(port, &mut w);
        w[0]
    }
    /// Holds `rst` high for `cycles` rising edges, then low (settled).
    fn reset(&mut self, cycles: usize) -> Result<(), String> {
        let rst = self.port("rst")?;
        self.set_u64(rst, 1);
        for _ in 0..cycles {
            self.eval();
            self.tick();
        }
        self.set_u64(rst, 0);
        self.eval();
        Ok(())
    }
}

/// Packs bytes (byte 0 in bits 7:0) into little-endian words.
pub fn words_from_bytes(bytes: &[u8], out: &mut [u64]) {
    out.iter_mut().for_each(|w| *w = 0);
    for (i, &b) in bytes.iter().enumerate() {
        out[i / 8] |= (b as u64) << (8 * (i % 8));
    }
}

/// Unpacks little-endian words into `n` bytes.
pub fn bytes_from_words(words: &[u64], n: usize) -> Vec<u8> {
    (0..n).map(|i| (words[i / 8] >> (8 * (i % 8))) as u8).collect()
}

/// The workspace root (where `target/`, `build/` and `.venv/` live).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("sim/ has a parent")
        .to_path_buf()
}
