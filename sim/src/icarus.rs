//! The exported Verilog on an event-driven simulator (Icarus Verilog, `iverilog` and `vvp` from
//! Debian), checked cycle for cycle against another engine.
//!
//! Icarus cannot be stepped from Rust the way Verilator is, so the check records and replays:
//! [`Recorder`] wraps any [`CycleSim`] and, at every clock edge, records the inputs as set and
//! every output (settled); [`replay`] writes those inputs into a file, runs a generated Verilog
//! testbench under `vvp` that applies them one cycle at a time (inputs, 1 ns to settle, outputs
//! written out, rising edge), and compares every output of every cycle with the recording. Any
//! testbench that drives a block through [`CycleSim`] therefore checks the exported Verilog on
//! Icarus too.

use crate::{words_for, CycleSim, Port, PortDir};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Inputs and outputs of every cycle of a run.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Per cycle, per input port (in port order, `clk` excluded): the value as words.
    pub inputs: Vec<Vec<Vec<u64>>>,
    /// Per cycle, per output port: the settled value before the clock edge.
    pub outputs: Vec<Vec<Vec<u64>>>,
}

/// A [`CycleSim`] that records a [`Trace`] of the engine it wraps.
pub struct Recorder<'a> {
    inner: &'a mut dyn CycleSim,
    current: Vec<Vec<u64>>,
    /// The recording.
    pub trace: Trace,
}

fn input_ports(ports: &[Port]) -> impl Iterator<Item = (usize, &Port)> {
    ports.iter().enumerate().filter(|(_, p)| p.dir == PortDir::Input && p.name != "clk")
}

fn output_ports(ports: &[Port]) -> impl Iterator<Item = (usize, &Port)> {
    ports.iter().enumerate().filter(|(_, p)| p.dir == PortDir::Output)
}

impl<'a> Recorder<'a> {
    /// Records `inner` from now on (inputs start at 0, as the engines start).
    pub fn new(inner: &'a mut dyn CycleSim) -> Self {
        let current = inner.ports().iter().map(|p| vec![0; words_for(p.width)]).collect();
        Recorder { inner, current, trace: Trace::default() }
    }
}

impl CycleSim for Recorder<'_> {
    fn engine(&self) -> &'static str {
        self.inner.engine()
    }
    fn ports(&self) -> &[Port] {
        self.inner.ports()
    }
    fn set(&mut self, port: usize, value: &[u64]) {
        let n = self.current[port].len();
        self.current[port].copy_from_slice(&value[..n]);
        let w = self.inner.ports()[port].width;
        if w % 64 != 0 {
            let last = n - 1;
            self.current[port][last] &= (1u64 << (w % 64)) - 1;
        }
        self.inner.set(port, value);
    }
    fn get(&mut self, port: usize, out: &mut [u64]) {
        self.inner.get(port, out);
    }
    fn eval(&mut self) {
        self.inner.eval();
    }
    fn tick(&mut self) {
        self.inner.eval();
        let ports: Vec<Port> = self.inner.ports().to_vec();
        let inputs = input_ports(&ports).map(|(i, _)| self.current[i].clone()).collect();
        let outputs = output_ports(&ports)
            .map(|(i, p)| {
                let mut v = vec![0; words_for(p.width)];
                self.inner.get(i, &mut v);
                v
            })
            .collect();
        self.trace.inputs.push(inputs);
        self.trace.outputs.push(outputs);
        self.inner.tick();
    }
    fn cycles(&self) -> u64 {
        self.inner.cycles()
    }
}

/// A value as `width` bits of hex (most significant digit first).
pub fn hex(words: &[u64], width: usize) -> String {
    let digits = width.div_ceil(4);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let bit = d * 4;
        let nibble = (words[bit / 64] >> (bit % 64)) & 0xF;
        s.push(char::from_digit(nibble as u32, 16).expect("a nibble"));
    }
    s
}

/// The result of a replay.
#[derive(Clone, Debug)]
pub struct Replay {
    /// Cycles replayed.
    pub cycles: usize,
    /// Outputs that differed (the first 20): cycle, port, Icarus's value, the recording's.
    pub mismatches: Vec<String>,
    /// Seconds `vvp` ran (the simulation alone, compilation excluded).
    pub seconds: f64,
}

/// Whether `iverilog` and `vvp` are installed.
pub fn available() -> bool {
    Command::new("iverilog").arg("-V").output().is_ok_and(|o| o.status.success())
}

/// Replays `trace` on the exported Verilog `verilog` (module `top`, ports `ports`) under Icarus,
/// in `dir`; compares every output of every cycle.
pub fn replay(
    top: &str,
    verilog: &str,
    ports: &[Port],
    trace: &Trace,
    dir: &Path,
) -> Result<Replay, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let ins: Vec<&Port> = input_ports(ports).map(|(_, p)| p).collect();
    let outs: Vec<&Port> = output_ports(ports).map(|(_, p)| p).collect();
    // Stimulus: one line per cycle, the inputs concatenated (first port most significant).
    let mut stim = String::new();
    for cycle in &trace.inputs {
        for (p, v) in ins.iter().zip(cycle) {
            stim.push_str(&hex(v, p.width.div_ceil(4) * 4));
        }
        stim.push('\n');
    }
    std::fs::write(dir.join("stim.hex"), stim).map_err(|e| e.to_string())?;
    let mut tb = String::new();
    let _ = writeln!(tb, "`timescale 1ns / 1ps\nmodule replay_tb;");
    let _ = writeln!(tb, "    reg clk = 1'b0;");
    for p in &ins {
        let _ = writeln!(tb, "    reg [{}:0] {} = 0;", p.width - 1, p.name);
    }
    for p in &outs {
        let _ = writeln!(tb, "    wire [{}:0] {};", p.width - 1, p.name);
    }
    let padded: usize = ins.iter().map(|p| p.width.div_ceil(4) * 4).sum();
    let _ = writeln!(
        tb,
        "    reg [{}:0] stim [0:{}];",
        padded.max(1) - 1,
        trace.inputs.len().max(1) - 1
    );
    let _ = writeln!(tb, "    integer i, fd;");
    let conns: Vec<String> = ports.iter().map(|p| format!(".{0}({0})", p.name)).collect();
    let _ = writeln!(tb, "    {top} dut({});", conns.join(", "));
    let _ = writeln!(tb, "    initial begin");
    let _ = writeln!(tb, "        $readmemh(\"stim.hex\", stim);");
    let _ = writeln!(tb, "        fd = $fopen(\"out.hex\", \"w\");");
    let _ = writeln!(tb, "        for (i = 0; i < {}; i = i + 1) begin", trace.inputs.len());
    // Unpack the padded fields: each port occupies its width rounded up to a nibble.
    let mut at = padded;
    for p in &ins {
        let field = p.width.div_ceil(4) * 4;
        at -= field;
        let _ = writeln!(tb, "            {} = stim[i][{}:{}];", p.name, at + p.width - 1, at);
    }
    let _ = writeln!(tb, "            #1;");
    // Each output in binary, so that an x or z is known bit by bit.
    let names: Vec<&str> = outs.iter().map(|p| p.name.as_str()).collect();
    let formats = vec!["%b"; outs.len()].join(" ");
    let _ = writeln!(tb, "            $fwrite(fd, \"{formats}\\n\", {});", names.join(", "));
    let _ = writeln!(tb, "            clk = 1'b1; #1; clk = 1'b0; #1;");
    let _ = writeln!(tb, "        end");
    let _ = writeln!(tb, "        $fclose(fd);\n        $finish;\n    end\nendmodule");
    std::fs::write(dir.join("replay_tb.v"), tb).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("dut.v"), verilog).map_err(|e| e.to_string())?;
    let compile = Command::new("iverilog")
        .current_dir(dir)
        .args(["-g2012", "-o", "replay.vvp", "replay_tb.v", "dut.v"])
        .output()
        .map_err(|e| format!("cannot run iverilog (apt-get install iverilog): {e}"))?;
    if !compile.status.success() {
        return Err(format!("iverilog: {}", String::from_utf8_lossy(&compile.stderr)));
    }
    let start = Instant::now();
    let run = Command::new("vvp")
        .current_dir(dir)
        .args(["-n", "replay.vvp"])
        .output()
        .map_err(|e| format!("cannot run vvp: {e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    if !run.status.success() {
        return Err(format!("vvp: {}", String::from_utf8_lossy(&run.stderr)));
    }
    let text = std::fs::read_to_string(dir.join("out.hex")).map_err(|e| e.to_string())?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != trace.outputs.len() {
        return Err(format!("vvp wrote {} cycles of {}", lines.len(), trace.outputs.len()));
    }
    // Stream payload outputs (`m_axis_tdata` ...) are compared only while their `tvalid` is
    // high in the recording: AXI4-Stream leaves them undefined otherwise (and a block RAM's
    // read data is X in Icarus until written, 0 in the model).
    let valid_of: Vec<Option<usize>> = outs
        .iter()
        .map(|p| {
            let (prefix, field) = p.name.rsplit_once("_t")?;
            (field != "valid")
                .then(|| outs.iter().position(|q| q.name == format!("{prefix}_tvalid")))
                .flatten()
        })
        .collect();
    let mut mismatches = Vec::new();
    for (c, (line, want)) in lines.iter().zip(&trace.outputs).enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() != outs.len() {
            return Err(format!(
                "cycle {c}: vvp wrote {} fields for {} outputs",
                fields.len(),
                outs.len()
            ));
        }
        for (k, (p, got)) in outs.iter().zip(&fields).enumerate() {
            if valid_of[k].is_some_and(|v| want[v][0] & 1 == 0) {
                continue;
            }
            let expected: String = (0..p.width)
                .rev()
                .map(|b| if (want[k][b / 64] >> (b % 64)) & 1 != 0 { '1' } else { '0' })
                .collect();
            if *got != expected && mismatches.len() < 20 {
                mismatches.push(format!(
                    "cycle {c}: {} icarus {got}, recorded {}",
                    p.name,
                    hex(&want[k], p.width)
                ));
            }
        }
    }
    Ok(Replay { cycles: lines.len(), mismatches, seconds })
}
