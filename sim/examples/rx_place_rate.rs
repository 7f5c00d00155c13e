//! The golden receiver per traffic scenario (`make bench` writes this to
//! build/bench/rx_place.txt): fraction of DDP payload placed directly (zero copy), peak held
//! octets against RFC 5044 B.2's buffer estimates (BufferSizeAF = K2 * EMSS for aligned FPDUs,
//! about two segments per FPDU without alignment), refusals with the smallest buffer, and the
//! model's speed.
//!
//! `cargo run --release -p sim --example rx_place_rate [SEEDS]` (default 20 connections of 200
//! messages per scenario and setting).

use sim::traffic::{generate, run_receiver, Scenario, TrafficOptions};
use std::time::Instant;

struct Row {
    segments: u64,
    direct: u64,
    held: u64,
    peak_max: u64,
    peak_sum: u64,
    refused: u64,
    offers: u64,
    seconds: f64,
    octets: u64,
    runs: u64,
}

fn measure(scenario: Scenario, markers: bool, small: bool, seeds: u64) -> Row {
    let mut r = Row {
        segments: 0,
        direct: 0,
        held: 0,
        peak_max: 0,
        peak_sum: 0,
        refused: 0,
        offers: 0,
        seconds: 0.0,
        octets: 0,
        runs: 0,
    };
    for seed in 0..seeds {
        let o = TrafficOptions {
            scenario,
            seed: 1000 + seed,
            markers,
            records: if small { 4 } else { 256 },
            ..TrafficOptions::default()
        };
        let mut t = generate(&o);
        if small {
            t.config.reassembly_octets = t.config.min_reassembly_octets();
        }
        let start = Instant::now();
        let run = run_receiver(&t.config, &t.segments, false, Some(7), false).expect("run");
        r.seconds += start.elapsed().as_secs_f64();
        let m = run.receiver.metrics();
        r.segments += t.segments.len() as u64;
        r.offers += m.segments;
        r.refused += m.refused;
        r.direct += m.direct_octets;
        r.held += m.held_octets;
        r.peak_max = r.peak_max.max(m.peak_held_octets);
        r.peak_sum += m.peak_held_octets;
        r.octets += t.segments.iter().map(|s| s.payload.len() as u64).sum::<u64>();
        r.runs += 1;
    }
    r
}

fn main() {
    let seeds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let emss = TrafficOptions::default().emss as f64;
    println!("golden receiver, {seeds} connections of 200 messages per row, EMSS {emss}, CRC on,");
    println!("alignment detection on; large buffers: 256 KiB, 256 records; smallest: one largest");
    println!("FPDU of reassembly buffer (the in-order reserve) and 4 records, refused segments");
    println!("offered again 7 offers later. Peak held in octets and in EMSS (B.2: aligned ~1, not");
    println!("aligned ~2 per connection).");
    println!();
    println!("| scenario | Markers | direct (zero copy) | peak held, max (mean) | / EMSS | smallest buffer: refused offers | direct | segments/s | MB/s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut total = (0u64, 0f64);
    for scenario in Scenario::ALL {
        for markers in [false, true] {
            let big = measure(scenario, markers, false, seeds);
            let small = measure(scenario, markers, true, seeds);
            let frac = |r: &Row| r.direct as f64 / (r.direct + r.held).max(1) as f64;
            total.0 += big.offers;
            total.1 += big.seconds;
            println!(
                "| {} | {} | {:.3} | {} ({}) | {:.1} | {} of {} ({:.1} %) | {:.3} | {:.0} | {:.0} |",
                scenario.name(),
                if markers { "on" } else { "off" },
                frac(&big),
                big.peak_max,
                big.peak_sum / big.runs.max(1),
                big.peak_max as f64 / emss,
                small.refused,
                small.offers,
                100.0 * small.refused as f64 / small.offers.max(1) as f64,
                frac(&small),
                big.offers as f64 / big.seconds,
                big.octets as f64 / big.seconds / 1e6,
            );
        }
    }
    println!();
    println!(
        "model speed over all rows with large buffers: {:.0} segments/s (one core)",
        total.0 as f64 / total.1
    );
}
