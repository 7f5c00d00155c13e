//! Simulation speed of the exported tops under Icarus Verilog (event-driven) and Verilator, on
//! the same recorded stimulus: busy traffic (90 % of cycles offer a beat, 80 % ready) recorded
//! on the rust-hdl model, then replayed. `make bench` writes this to build/bench/icarus.txt.
//!
//! `cargo run --release -p sim --example icarus_speed`

use rand::{Rng, SeedableRng};
use sim::icarus::{replay, Recorder, Trace};
use sim::packet::{InPacket, PacketRun};
use sim::stream::Pattern;
use sim::verilator::VerilatorSim;
use sim::Engine;
use sim::{CycleSim, PortDir};
use std::time::Instant;

fn busy() -> PacketRun {
    PacketRun {
        idle: Pattern::Random { p: 0.9, seed: 1 },
        backpressure: Pattern::Random { p: 0.8, seed: 2 },
        ..PacketRun::default()
    }
}

/// Cycles per second of `trace` replayed on Verilator (inputs set, settle, clock edge).
fn verilator_rate(top: &hdl::export::ExportedTop, trace: &Trace) -> f64 {
    let mut v = VerilatorSim::build(top).expect("Verilator");
    let inputs: Vec<usize> = v
        .ports()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.dir == PortDir::Input && p.name != "clk")
        .map(|(i, _)| i)
        .collect();
    let start = Instant::now();
    for cycle in &trace.inputs {
        for (&i, val) in inputs.iter().zip(cycle) {
            v.set(i, val);
        }
        v.eval();
        v.tick();
    }
    trace.inputs.len() as f64 / start.elapsed().as_secs_f64()
}

fn measure(
    name: &str,
    spec: hdl::export::TopSpec,
    model: &mut dyn CycleSim,
    run: impl FnOnce(&mut dyn CycleSim),
) {
    let top = sim::export::export_top(&spec).expect("export");
    let mut rec = Recorder::new(model);
    run(&mut rec);
    let trace = rec.trace;
    let dir = sim::workspace_root().join("build/bench/icarus").join(&top.name);
    let r = replay(&top.name, &top.verilog, &top.ports, &trace, &dir).expect("Icarus");
    assert!(r.mismatches.is_empty(), "{name}: {:?}", r.mismatches);
    println!(
        "| {} | {} | {:.0} | {:.0} |",
        top.name,
        r.cycles,
        r.cycles as f64 / r.seconds,
        verilator_rate(&top, &trace)
    );
}

fn main() {
    println!("| top | cycles replayed | Icarus 11 cycles/s | Verilator cycles/s |");
    println!("|---|---|---|---|");
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    for w in [8, 64] {
        let def = golden::crc::CRC32C;
        let mut model = sim::crc::rusthdl_engine(&def, w, None).unwrap();
        let msgs: Vec<Vec<u8>> =
            (0..300).map(|_| (0..r.gen_range(0..8 * w)).map(|_| r.gen()).collect()).collect();
        measure("crc", hdl::export::crc_calc_spec(def, w).unwrap(), model.as_mut(), |sim| {
            let opts = sim::crc::RunOptions {
                idle: Pattern::Random { p: 0.9, seed: 1 },
                backpressure: Pattern::Random { p: 0.8, seed: 2 },
                ..Default::default()
            };
            sim::crc::run_messages(sim, &msgs, &opts).unwrap();
        });
    }
    for w in [8, 64] {
        let mut model = sim::tx::mpa_tx(Engine::RustHdl, w, None).unwrap();
        // Every fourth ULPDU pushed, the last one too (an unpushed last FPDU waits for a
        // successor).
        let n = if w == 8 { 32 } else { 64 };
        let ulpdus: Vec<sim::tx::TxUlpdu> = (0..n)
            .map(|i| {
                let data = (0..r.gen_range(0..1400)).map(|_| r.gen()).collect();
                sim::tx::TxUlpdu::new(data, i % 4 == 3)
            })
            .collect();
        let settings =
            sim::tx::TxSettings { markers: true, crc: true, emss: 1460, seq: 100, origin: 100 };
        measure("tx", hdl::export::mpa_tx_spec(w).unwrap(), model.as_mut(), |sim| {
            sim::tx::run_tx(sim, &settings, &ulpdus, &busy()).unwrap();
        });
    }
    for w in [8, 64] {
        let mut model = sim::rx::mpa_rx(Engine::RustHdl, w).unwrap();
        let ulpdus: Vec<Vec<u8>> = (0..(if w == 8 { 30 } else { 60 }))
            .map(|_| (0..r.gen_range(0..1500)).map(|_| r.gen()).collect())
            .collect();
        let wire = golden::fpdu::frame_stream(
            golden::fpdu::FramingConfig { markers: true, crc: true, offset: 0 },
            &ulpdus,
        )
        .unwrap();
        let n = wire.len().div_ceil(1460);
        let segments: Vec<InPacket> = wire
            .chunks(1460)
            .enumerate()
            .map(|(i, c)| {
                let fin = if i + 1 == n { 1u64 << 32 } else { 0 };
                InPacket { data: c.to_vec(), user: (i * 1460) as u64 | fin }
            })
            .collect();
        let settings = sim::rx::RxSettings {
            markers: true,
            crc: true,
            seq: 0,
            origin: 0,
            max_ulpdu: sim::rx::mpa_rx_max_ulpdu(w).unwrap() as u16,
        };
        measure("rx", hdl::export::mpa_rx_spec(w).unwrap(), model.as_mut(), |sim| {
            sim::rx::run_rx(sim, &settings, &segments, &busy()).unwrap();
        });
    }
    for w in [8, 64] {
        let mut model = sim::place::rnic_rx(Engine::RustHdl, w).unwrap();
        let t = sim::traffic::generate(&sim::traffic::TrafficOptions {
            messages: if w == 8 { 12 } else { 24 },
            markers: true,
            seed: 9,
            ..Default::default()
        });
        let opts = sim::place::RnicRunOptions {
            idle: Pattern::Random { p: 0.9, seed: 1 },
            evt_ready: Pattern::Random { p: 0.8, seed: 2 },
            aw_ready: Pattern::Random { p: 0.8, seed: 3 },
            w_ready: Pattern::Random { p: 0.8, seed: 4 },
            b_delay_max: 10,
            ..Default::default()
        };
        measure("rnic_rx", hdl::export::rnic_rx_spec(w).unwrap(), model.as_mut(), |sim| {
            sim::place::run_rnic(sim, &t.config, &t.segments, &opts).unwrap();
        });
    }
}
