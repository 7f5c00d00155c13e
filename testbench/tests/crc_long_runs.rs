//! 10^5 random messages per width through the exported Verilog (Verilator), at W = 8 and 64,
//! with random idle cycles and random backpressure; a quarter of the messages carry their own
//! CRC (the residue check must pass), the rest must be flagged exactly as the golden model says.

use golden::crc::CRC32C;
use sim::crc::{run_messages, verilator_engine, RunOptions};
use sim::stream::Pattern;
use testbench::*;

const MESSAGES: usize = 100_000;

fn long_run(w: usize) {
    let mut r = rng(0x1E5_0000 + w as u64);
    let mut msgs = random_messages(&mut r, MESSAGES, 0..=3 * w + 1);
    for m in msgs.iter_mut().step_by(4) {
        *m = with_own_crc(&CRC32C, m);
    }
    let mut sim = verilator_engine(&CRC32C, w).unwrap();
    let opts = RunOptions {
        idle: Pattern::Random { p: 0.9, seed: 1 },
        backpressure: Pattern::Random { p: 0.8, seed: 2 },
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let (res, stats) = run_messages(sim.as_mut(), &msgs, &opts).unwrap();
    eprintln!(
        "W={w}: {MESSAGES} messages, {} cycles in {:.2} s (harness included)",
        stats.cycles,
        t.elapsed().as_secs_f64()
    );
    assert_crcs(&format!("verilator W={w}"), &CRC32C, &msgs, &res);
    for (i, (m, r)) in msgs.iter().zip(&res).enumerate() {
        if i % 4 == 0 {
            assert!(!r.bad, "W={w}: message {i} with its own CRC flagged bad");
        } else {
            assert_eq!(r.bad, golden_bad(&CRC32C, m), "W={w}: message {i} bad flag");
        }
    }
}

#[test]
fn crc_w8_verilator_1e5_random_messages_with_idle_and_backpressure_match_golden() {
    long_run(8);
}

#[test]
fn crc_w64_verilator_1e5_random_messages_with_idle_and_backpressure_match_golden() {
    long_run(64);
}
