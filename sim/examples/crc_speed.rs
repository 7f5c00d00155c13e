//! Simulated clock cycles per second of both engines on the CRC top, at W = 8 and 64:
//! `cargo run --release -p sim --example crc_speed`. Two figures per engine: the whole stream
//! harness (drivers, handshake monitors, result collection) at full rate, and the engine alone
//! (inputs set, evaluated and clocked every cycle, no harness).

use sim::crc::{crc_top, run_messages, RunOptions};
use sim::CycleSim;
use sim::Engine;
use std::time::Instant;

fn raw(sim: &mut dyn CycleSim, cycles: u64) -> f64 {
    let [valid, last, keep, ready, data, mvalid] = [
        "s_axis_tvalid",
        "s_axis_tlast",
        "s_axis_tkeep",
        "m_axis_tready",
        "s_axis_tdata",
        "m_axis_tvalid",
    ]
    .map(|n| sim.port(n).unwrap());
    let words = sim::words_for(sim.ports()[data].width);
    sim.reset(2).unwrap();
    let t = Instant::now();
    let mut w = vec![0u64; words];
    for c in 0..cycles {
        w[0] = c.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        sim.set(data, &w);
        sim.set_u64(valid, 1);
        sim.set_u64(keep, u64::MAX);
        sim.set_u64(last, (c % 3 == 2) as u64);
        sim.set_u64(ready, 1);
        sim.eval();
        let _ = sim.get_u64(mvalid);
        sim.tick();
    }
    cycles as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let def = golden::crc::CRC32C;
    for w in [8usize, 64] {
        for engine in Engine::ALL {
            let cycles = if engine == Engine::Verilator { 2_000_000 } else { 20_000 };
            let mut sim = crc_top(engine, &def, w).unwrap();
            let raw_rate = raw(sim.as_mut(), cycles);
            // Harness: random messages of 1..3W bytes at full rate.
            let n = (cycles / 2) as usize;
            let msgs: Vec<Vec<u8>> =
                (0..n).map(|i| vec![i as u8; 1 + (i * 7919) % (3 * w)]).collect();
            let t = Instant::now();
            let (_, stats) = run_messages(sim.as_mut(), &msgs, &RunOptions::default()).unwrap();
            let harness_rate = stats.cycles as f64 / t.elapsed().as_secs_f64();
            println!("W={w:2} {engine:9}: {raw_rate:>12.0} cycles/s alone, {harness_rate:>12.0} cycles/s with the stream harness");
        }
    }
}
