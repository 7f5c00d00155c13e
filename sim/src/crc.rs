//! The CRC top ([`hdl::crc::CrcCalc`]) under simulation: engines and a message-level harness.
//!
//! [`rusthdl_engine`] and [`verilator_engine`] build the same top on either engine;
//! [`run_messages`] sends messages through `s_axis` with an idle pattern, takes results from
//! `m_axis` with a backpressure pattern, checks the handshake rules on both streams and returns
//! one [`CrcResult`] per message.

use crate::export::export_top;
use crate::rusthdl::{from_words, to_words, Binding, DirectTop, RustHdlSim};
use crate::stream::{
    message_beats, HandshakeMonitor, Pattern, ReadyDriver, StreamDriver, StreamPorts,
};
use crate::verilator::VerilatorSim;
use crate::CycleSim;
use crate::Engine;
use golden::crc::CrcDef;
use hdl::crc::engine::EngineOptions;
use hdl::crc::{CrcCalc, CrcEngine};
use hdl::export::{crc_calc_spec, export_block};
use hdl::with_width;
use rust_hdl::prelude::*;
use std::path::Path;

impl<const W: usize, const B: usize> DirectTop for CrcCalc<W, B> {
    fn bind(name: &str) -> Option<Binding<Self>> {
        Some(match name {
            "clock" => Binding::Clock,
            "rst" => Binding::Input(|t, v| t.rst.next = from_words(v)),
            "s_axis$data" => Binding::Input(|t, v| t.s_axis.data.next = from_words(v)),
            "s_axis$keep" => Binding::Input(|t, v| t.s_axis.keep.next = from_words(v)),
            "s_axis$user" => Binding::Input(|t, v| t.s_axis.user.next = from_words(v)),
            "s_axis$last" => Binding::Input(|t, v| t.s_axis.last.next = from_words(v)),
            "s_axis$valid" => Binding::Input(|t, v| t.s_axis.valid.next = from_words(v)),
            "s_axis$ready" => Binding::Output(|t, o| to_words(t.s_axis.ready.val(), o)),
            "m_axis$data" => Binding::Output(|t, o| to_words(t.m_axis.data.val(), o)),
            "m_axis$keep" => Binding::Output(|t, o| to_words(t.m_axis.keep.val(), o)),
            "m_axis$user" => Binding::Output(|t, o| to_words(t.m_axis.user.val(), o)),
            "m_axis$last" => Binding::Output(|t, o| to_words(t.m_axis.last.val(), o)),
            "m_axis$valid" => Binding::Output(|t, o| to_words(t.m_axis.valid.val(), o)),
            "m_axis$ready" => Binding::Input(|t, v| t.m_axis.ready.next = from_words(v)),
            _ => return None,
        })
    }

    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl<const W: usize, const B: usize> DirectTop for CrcEngine<W, B> {
    fn bind(name: &str) -> Option<Binding<Self>> {
        Some(match name {
            "clock" => Binding::Clock,
            "rst" => Binding::Input(|t, v| t.rst.next = from_words(v)),
            "strobe" => Binding::Input(|t, v| t.strobe.next = from_words(v)),
            "start" => Binding::Input(|t, v| t.start.next = from_words(v)),
            "last" => Binding::Input(|t, v| t.last.next = from_words(v)),
            "data" => Binding::Input(|t, v| t.data.next = from_words(v)),
            "keep" => Binding::Input(|t, v| t.keep.next = from_words(v)),
            // Only an engine built resumable has these ports.
            "resume$0" => Binding::Input(|t, v| t.resume[0].next = from_words(v)),
            "init$0" => Binding::Input(|t, v| t.init[0].next = from_words(v)),
            "crc_valid" => Binding::Output(|t, o| to_words(t.crc_valid.val(), o)),
            "crc" => Binding::Output(|t, o| to_words(t.crc.val(), o)),
            "crc_bad" => Binding::Output(|t, o| to_words(t.crc_bad.val(), o)),
            _ => return None,
        })
    }

    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// The bare engine ([`CrcEngine`], strobe interface, ports `clk`, `rst`, `strobe`, `start`,
/// `last`, `data`, `keep`, `crc_valid`, `crc`, `crc_bad`) on either engine, built as the
/// transmit and receive blocks build it (without the resume logic), for tests of the interface
/// later blocks use directly.
pub fn bare_engine(
    engine: Engine,
    def: &CrcDef,
    width: usize,
) -> Result<Box<dyn CycleSim>, String> {
    bare_engine_with(engine, def, width, false)
}

/// [`bare_engine`], with the resume logic and its ports `resume_0`, `init_0` built when
/// `resumable` ([`EngineOptions::resumable`]).
pub fn bare_engine_with(
    engine: Engine,
    def: &CrcDef,
    width: usize,
    resumable: bool,
) -> Result<Box<dyn CycleSim>, String> {
    crc_calc_spec(*def, width)?;
    let opts = EngineOptions { resumable, ..EngineOptions::for_width(width) };
    with_width!(width, |W, B| match engine {
        Engine::RustHdl =>
            Ok(Box::new(RustHdlSim::new(CrcEngine::<W, B>::with_options(def, opts))?)
                as Box<dyn CycleSim>),
        Engine::Verilator => {
            let mut e = CrcEngine::<W, B>::with_options(def, opts);
            let kind = if resumable { "_resumable" } else { "" };
            let name = format!("crc_engine{kind}_{}_w{W}", def.name);
            let top = export_block(&name, &mut e, "CrcEngine alone (testbench use)")?;
            Ok(Box::new(VerilatorSim::build(&top)?) as Box<dyn CycleSim>)
        }
    })
}

/// The CRC top for `def` at `width` bytes on the rust-hdl engine (VCD to `vcd` if given).
pub fn rusthdl_engine(
    def: &CrcDef,
    width: usize,
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim>, String> {
    crc_calc_spec(*def, width)?;
    with_width!(width, |W, B| {
        let mut sim = RustHdlSim::new(CrcCalc::<W, B>::new(def))?;
        if let Some(p) = vcd {
            sim = sim.with_vcd(p)?;
        }
        Ok(Box::new(sim) as Box<dyn CycleSim>)
    })
}

/// The exported Verilog of the CRC top for `def` at `width` bytes, on Verilator.
pub fn verilator_engine(def: &CrcDef, width: usize) -> Result<Box<dyn CycleSim>, String> {
    let top = export_top(&crc_calc_spec(*def, width)?)?;
    Ok(Box::new(VerilatorSim::build(&top)?))
}

/// The CRC top on either engine.
pub fn crc_top(engine: Engine, def: &CrcDef, width: usize) -> Result<Box<dyn CycleSim>, String> {
    match engine {
        Engine::RustHdl => rusthdl_engine(def, width, None),
        Engine::Verilator => verilator_engine(def, width),
    }
}

/// One message's result as the hardware reported it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcResult {
    /// `m_axis_tdata`: the CRC value.
    pub crc: u32,
    /// `m_axis_tuser[0]`: the message did not end with its own correct CRC.
    pub bad: bool,
    /// Cycles from the transfer of the message's last beat to the transfer of its result.
    pub latency: u64,
}

/// What a run saw, beyond the results.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Clock cycles of the run (after reset).
    pub cycles: u64,
    /// Input beats transferred.
    pub beats_in: u64,
    /// Cycles in which `s_axis_tvalid` was high and `s_axis_tready` low.
    pub input_stalls: u64,
    /// Cycles in which `m_axis_tvalid` was high and `m_axis_tready` low.
    pub output_stalls: u64,
}

/// Options of [`run_messages`].
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// When the source may offer a beat.
    pub idle: Pattern,
    /// When the result sink is ready.
    pub backpressure: Pattern,
    /// Value of the bytes beyond `tkeep` (the block must ignore them).
    pub fill: u8,
    /// Idle cycles after the last result, checked for spurious results.
    pub drain: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { idle: Pattern::Always, backpressure: Pattern::Always, fill: 0xA5, drain: 40 }
    }
}

/// Resets the CRC top, sends `messages`, and returns one result per message. Fails on a
/// handshake violation, a malformed result beat, a timeout, or a result too many.
pub fn run_messages(
    sim: &mut dyn CycleSim,
    messages: &[Vec<u8>],
    opts: &RunOptions,
) -> Result<(Vec<CrcResult>, RunStats), String> {
    let s = StreamPorts::find(sim, "s_axis")?;
    let m = StreamPorts::find(sim, "m_axis")?;
    let w = s.width;
    let mut src = StreamDriver::new(s, opts.idle.clone());
    let mut snk = ReadyDriver::new(m, opts.backpressure.clone());
    let mut mon_s = HandshakeMonitor::new("s_axis", s);
    let mut mon_m = HandshakeMonitor::new("m_axis", m);
    for msg in messages {
        src.push(message_beats(msg, w, 0, opts.fill));
    }
    // Reset with the stream idle, checking that nothing is offered out of reset.
    sim.set_u64(s.valid, 0);
    sim.set_u64(m.ready, 0);
    sim.reset(2)?;
    // The top raises s_axis_tready one cycle after reset; start the run there.
    sim.eval();
    sim.tick();
    let start = sim.cycles();
    let total_beats: usize = src.pending();
    let budget = 1000 + 40 * (total_beats as u64 + messages.len() as u64);
    let mut idle_after = 0usize;
    loop {
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        mon_s.sample(sim, false);
        mon_m.sample(sim, false);
        src.sample(sim);
        snk.sample(sim);
        sim.tick();
        if snk.beats.len() > messages.len() {
            return Err(format!("{} results for {} messages", snk.beats.len(), messages.len()));
        }
        if snk.beats.len() == messages.len() && src.pending() == 0 {
            idle_after += 1;
            if idle_after > opts.drain {
                break;
            }
        }
        if sim.cycles() - start > budget {
            return Err(format!(
                "timeout after {} cycles: {} of {} beats sent, {} of {} results",
                sim.cycles() - start,
                src.sent,
                total_beats,
                snk.beats.len(),
                messages.len()
            ));
        }
    }
    let mut errors: Vec<String> =
        mon_s.violations.iter().chain(&mon_m.violations).cloned().collect();
    let mut results = Vec::with_capacity(messages.len());
    for (i, (cyc, b)) in snk.beats.iter().enumerate() {
        if b.keep != 0xF || !b.last {
            errors.push(format!("result {i}: keep {:#x} last {} (want 0xf, 1)", b.keep, b.last));
        }
        let crc = u32::from_le_bytes([b.data[0], b.data[1], b.data[2], b.data[3]]);
        results.push(CrcResult {
            crc,
            bad: hdl::sideband::CrcResultUser::unpack(b.user).bad,
            latency: cyc - src.last_cycles[i],
        });
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let stats = RunStats {
        cycles: sim.cycles() - start,
        beats_in: mon_s.transfers,
        input_stalls: mon_s.stalls,
        output_stalls: mon_m.stalls,
    };
    Ok((results, stats))
}
