//! The exported Verilog on an event-driven simulator: each exported top at W = 8 (the CRC top
//! also at W = 4 and 64) runs a busy randomized test on the rust-hdl model while
//! `sim::icarus::Recorder` records every input and output of every cycle; the exported file
//! then replays those inputs under Icarus Verilog and must give the same outputs, cycle for
//! cycle. Before the export wrote one value per signal per evaluation (`hdl::comb_shadow`),
//! Icarus stalled on `mpa_tx_w8` within a few hundred cycles of traffic.

use rand::Rng;
use sim::icarus::{replay, Recorder};
use sim::packet::{InPacket, PacketRun};
use sim::stream::Pattern;
use sim::CycleSim;
use sim::Engine;
use testbench::rng;

fn dir(name: &str) -> std::path::PathBuf {
    sim::workspace_root().join("build/test-icarus").join(name)
}

/// Replays the recording of `run` (driven on `model`) on the export of `spec` under Icarus.
fn check(
    spec: hdl::export::TopSpec,
    model: &mut dyn CycleSim,
    run: impl FnOnce(&mut dyn CycleSim),
) {
    let top = sim::export::export_top(&spec).unwrap();
    let mut rec = Recorder::new(model);
    run(&mut rec);
    let trace = rec.trace;
    assert!(trace.inputs.len() > 500, "{}: only {} cycles", top.name, trace.inputs.len());
    let r = replay(&top.name, &top.verilog, &top.ports, &trace, &dir(&top.name)).unwrap();
    assert_eq!(r.cycles, trace.inputs.len());
    assert!(
        r.mismatches.is_empty(),
        "{}: Icarus differs from the model:\n{}",
        top.name,
        r.mismatches.join("\n")
    );
    // A floor far below the measured rate, high enough to catch a stall. The rate includes
    // `vvp`'s start on the whole design: `rnic_rx_w8` came out at 48 cycles/s
    // on 2026-12-02 with both test lanes and a place and route sharing the two cores (the floor
    // was 50), and passed in that day's clean-clone run, whose rate was not printed.
    let rate = r.cycles as f64 / r.seconds;
    assert!(rate > 20.0, "{}: {rate:.0} cycles/s on Icarus", top.name);
}

fn busy(seed: u64) -> PacketRun {
    PacketRun {
        idle: Pattern::Random { p: 0.9, seed },
        backpressure: Pattern::Random { p: 0.8, seed: seed + 1 },
        ..PacketRun::default()
    }
}

#[test]
fn crc_tops_on_icarus_match_the_model() {
    for w in [4, 8, 64] {
        let def = golden::crc::CRC32C;
        let mut model = sim::crc::rusthdl_engine(&def, w, None).unwrap();
        let mut r = rng(w as u64);
        let messages: Vec<Vec<u8>> =
            (0..200).map(|_| (0..r.gen_range(0..6 * w + 40)).map(|_| r.gen()).collect()).collect();
        let spec = hdl::export::crc_calc_spec(def, w).unwrap();
        check(spec, model.as_mut(), |sim| {
            let opts = sim::crc::RunOptions {
                idle: Pattern::Random { p: 0.8, seed: 3 },
                backpressure: Pattern::Random { p: 0.7, seed: 4 },
                ..Default::default()
            };
            sim::crc::run_messages(sim, &messages, &opts).unwrap();
        });
    }
}

#[test]
fn mpa_tx_w8_on_icarus_matches_the_model() {
    let mut model = sim::tx::mpa_tx(Engine::RustHdl, 8, None).unwrap();
    let mut r = rng(11);
    let ulpdus: Vec<sim::tx::TxUlpdu> = (0..40)
        .map(|i| {
            let len = r.gen_range(0..1500);
            sim::tx::TxUlpdu::new((0..len).map(|_| r.gen()).collect(), i % 5 == 4)
        })
        .collect();
    let settings = sim::tx::TxSettings {
        markers: true,
        crc: true,
        emss: 1460,
        seq: 0xFFFF_F000,
        origin: 0xFFFF_EFF0,
    };
    check(hdl::export::mpa_tx_spec(8).unwrap(), model.as_mut(), |sim| {
        let run = sim::tx::run_tx(sim, &settings, &ulpdus, &busy(5)).unwrap();
        assert!(!run.segments.is_empty());
    });
}

#[test]
fn mpa_rx_w8_on_icarus_matches_the_model() {
    let mut model = sim::rx::mpa_rx(Engine::RustHdl, 8).unwrap();
    let mut r = rng(12);
    let ulpdus: Vec<Vec<u8>> =
        (0..30).map(|_| (0..r.gen_range(0..1500)).map(|_| r.gen()).collect()).collect();
    let cfg = golden::fpdu::FramingConfig { markers: true, crc: true, offset: 0 };
    let wire = golden::fpdu::frame_stream(cfg, &ulpdus).unwrap();
    let origin = 0xFFFF_F800u32;
    let mut segments = Vec::new();
    let mut at = 0usize;
    while at < wire.len() {
        let n = r.gen_range(1..1500).min(wire.len() - at);
        let seq = origin.wrapping_add(at as u32);
        segments.push(InPacket::segment(wire[at..at + n].to_vec(), seq, at + n == wire.len()));
        at += n;
    }
    let settings = sim::rx::RxSettings {
        markers: true,
        crc: true,
        seq: origin,
        origin,
        max_ulpdu: sim::rx::mpa_rx_max_ulpdu(8).unwrap() as u16,
    };
    check(hdl::export::mpa_rx_spec(8).unwrap(), model.as_mut(), |sim| {
        let run = sim::rx::run_rx(sim, &settings, &segments, &busy(7)).unwrap();
        assert_eq!(run.ulpdus.len(), ulpdus.len());
    });
}

#[test]
fn rnic_rx_w8_on_icarus_matches_the_model() {
    let mut model = sim::place::rnic_rx(Engine::RustHdl, 8).unwrap();
    let (cfg, segs) =
        testbench::rnic::traffic(sim::traffic::Scenario::InOrder, 21, true, true, 6, None);
    check(hdl::export::rnic_rx_spec(8).unwrap(), model.as_mut(), |sim| {
        let opts = sim::place::RnicRunOptions::busy(21);
        let run = sim::place::run_rnic(sim, &cfg, &segs, &opts).unwrap();
        assert_eq!(run.events.len(), 6);
    });
}
