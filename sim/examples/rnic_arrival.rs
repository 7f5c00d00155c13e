//! `rnic_rx` with segments in any order, per traffic scenario (Verilator, W = 8 and 64; `make bench`
//! writes this to build/bench/rnic_arrival.txt): segments offered (refused ones again after 3
//! more offers, as the golden receiver's run offers them), refused, the most out-of-order
//! octets the hardware held at once (REASM_PEAK), and the octets that went straight through
//! (segments that started at the in-order edge) against those that went through the ring.
//! For comparison, the golden receiver with out-of-order placement on: the fraction of DDP
//! payload it places straight from the segment, and its peak held octets. Located: the FPDUs
//! the hardware located and verified in out-of-order segments (REASM_LOCATED; every offer
//! beyond the edge, refused and duplicate ones included; with placement off, none is placed
//! from there) beside the FPDUs the golden receiver placed out of order. A second table per
//! width with out-of-order placement on (below). Throughput: DDP
//! payload octets written per cycle (as a share of W beside the same connection offered in
//! sequence order, and segment octets offered per cycle, refused and duplicate ones included,
//! as a share of W), from the first segment beat taken to the last memory write beat, with the
//! segments offered back to back (`arrival_quick`), no idle cycles, no backpressure; refused segments and their offers again
//! are in that time. A connection whose golden run stops (an error, or the Terminate that ends a
//! quarter of the generated connections) is offered with quiet periods between segments and is
//! left out of the throughput figure.
//!
//! `cargo run --release -p sim --example rnic_arrival [CONNECTIONS]` (default 3 of 60 messages
//! per scenario and buffer).

use sim::place::{hardware_placement, hardware_reassembly, run_rnic, RnicRunOptions};
use sim::traffic::{generate, run_receiver, LogEntry, Scenario, TrafficOptions};
use sim::Engine;

fn main() {
    let seeds: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    for w in [8usize, 64] {
        table(seeds, w);
        table_placement(seeds, w);
    }
}

/// The same connections with out-of-order placement on (CTRL place bit; the golden receiver
/// with the same settings makes the same decisions, which the tests check): FPDUs placed out of
/// order and their share of the DDP payload written, the peak of held octets, refusals,
/// throughput; beside the golden receiver's zero-copy fraction (direct: placed from the
/// segment that carried the whole FPDU, in order or not) and peak held (its peak includes the
/// partial FPDU at the edge, the hardware's does not).
fn table_placement(seeds: u64, w: usize) {
    let mut sim = sim::place::rnic_rx(Engine::Verilator, w).expect("rnic_rx");
    println!();
    println!("W = {w}, out-of-order placement on");
    println!();
    println!("| scenario | buffer | offers | refused | peak held (hardware) | FPDUs placed out of order | their share of the payload | payload octets/cycle | golden: direct (zero copy), peak held |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for scenario in Scenario::ALL.into_iter().skip(1) {
        for small in [false, true] {
            let (mut offers, mut refused, mut peak, mut placed, mut p_oct, mut all_oct) =
                (0usize, 0u64, 0u64, 0u64, 0u64, 0u64);
            let (mut octets, mut cycles, mut quick, mut io_octets, mut io_cycles) =
                (0u64, 0u64, 0, 0u64, 0u64);
            let (mut g_direct, mut g_payload, mut g_peak) = (0u64, 0u64, 0u64);
            for seed in 0..seeds {
                let t = connection(scenario, seed, small);
                let cfg = hardware_placement(&t.config);
                let (gold, list, opts) = offer_list(&cfg, &t, seed);
                let stop = !opts.arrival_quick;
                let hw = run_rnic(sim.as_mut(), &cfg, &list, &opts).expect("hardware run");
                let r = &hw.final_regs;
                use hdl::place::reg;
                if !stop {
                    quick += 1;
                    octets += hw.stats.octets_written;
                    cycles += hw.stats.w_cycles.last().map_or(0, |&c| c + 1 - hw.stats.first_in);
                    let io = RnicRunOptions { seed, ..Default::default() };
                    let x = run_rnic(sim.as_mut(), &cfg, &t.segments, &io).expect("in order");
                    io_octets += x.stats.octets_written;
                    io_cycles += x.stats.w_cycles.last().map_or(0, |&c| c + 1 - x.stats.first_in);
                }
                offers += list.len();
                refused += r[&reg::CNT_REFUSED] as u64;
                peak = peak.max(r[&reg::REASM_PEAK] as u64);
                placed += r[&reg::REASM_PLACED] as u64;
                p_oct += r[&reg::REASM_PLACED_OCTETS] as u64;
                all_oct += r[&reg::CNT_PLACED_LO] as u64;
                let m = gold.receiver.metrics();
                g_direct += m.direct_octets;
                g_payload += m.direct_octets + m.held_octets;
                g_peak = g_peak.max(m.peak_held_octets);
            }
            println!(
                "| {} | {} | {offers} | {refused} | {peak} | {placed} | {:.1} % | {} | {:.1} %, {g_peak} |",
                scenario.name(),
                if small { "reserve + 6000, 4 records" } else { "256 KiB, 17 records" },
                100.0 * p_oct as f64 / all_oct.max(1) as f64,
                if quick == 0 {
                    "n/a (every connection stops)".to_string()
                } else {
                    let c = cycles.max(1) as f64;
                    format!(
                        "{:.2} ({:.3} of W; in order {:.3})",
                        octets as f64 / c,
                        octets as f64 / c / w as f64,
                        io_octets as f64 / io_cycles.max(1) as f64 / w as f64,
                    )
                },
                100.0 * g_direct as f64 / g_payload.max(1) as f64,
            );
        }
    }
}

/// Connection `seed` of a scenario: 60 messages, Markers on odd seeds; a large buffer (256 KiB,
/// 17 records) or a small one (the in-order reserve plus 6,000 octets, 4 records).
fn connection(scenario: Scenario, seed: u64, small: bool) -> sim::traffic::Traffic {
    let mut t = generate(&TrafficOptions {
        scenario,
        seed: 500 + seed,
        markers: seed % 2 == 1,
        messages: 60,
        records: if small { 4 } else { 17 },
        ..Default::default()
    });
    if small {
        t.config.reassembly_octets = t.config.in_order_reserve() + 6000;
    }
    t
}

/// The golden receiver's run of `t` with `cfg`, the segments as it offers them (refused ones
/// again 3 offers later), and the hardware's run options: quick offers unless the connection
/// stops (an error or a Terminate).
fn offer_list(
    cfg: &golden::receiver::ReceiverConfig,
    t: &sim::traffic::Traffic,
    seed: u64,
) -> (sim::traffic::Run, Vec<sim::traffic::TcpSegment>, RnicRunOptions) {
    let gold = run_receiver(cfg, &t.segments, false, Some(3), false).expect("golden");
    let list: Vec<_> = gold
        .log
        .iter()
        .filter_map(|l| match l {
            LogEntry::Verdict { segment, .. } => Some(t.segments[*segment].clone()),
            _ => None,
        })
        .collect();
    let stop = gold.receiver.error().is_some()
        || gold.events().into_iter().any(|e| {
            matches!(
                e,
                golden::receiver::Event::Deliver(golden::receiver::Delivery::Terminate { .. })
            )
        });
    let opts = RnicRunOptions { arrival: true, arrival_quick: !stop, seed, ..Default::default() };
    (gold, list, opts)
}

fn table(seeds: u64, w: usize) {
    let mut sim = sim::place::rnic_rx(Engine::Verilator, w).expect("rnic_rx");
    println!();
    println!("W = {w}");
    println!();
    println!("| scenario | buffer | offers | refused | peak held (hardware) | straight through | through the ring | payload octets/cycle | golden with placement on: placed directly, peak held, refused | FPDUs located (hardware) / placed out of order (golden) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for scenario in Scenario::ALL.into_iter().skip(1) {
        for small in [false, true] {
            let (mut offers, mut refused, mut peak, mut straight, mut ring) = (0, 0, 0, 0u64, 0u64);
            let (mut g_direct, mut g_payload, mut g_peak, mut g_refused) = (0u64, 0u64, 0u64, 0u64);
            let (mut octets, mut wire, mut cycles, mut quick) = (0u64, 0u64, 0u64, 0);
            let (mut io_octets, mut io_cycles) = (0u64, 0u64);
            let (mut located, mut g_ooo) = (0u64, 0u64);
            for seed in 0..seeds {
                let t = connection(scenario, seed, small);
                let cfg = hardware_reassembly(&t.config);
                let (_, list, opts) = offer_list(&cfg, &t, seed);
                let stop = !opts.arrival_quick;
                let hw = run_rnic(sim.as_mut(), &cfg, &list, &opts).expect("hardware run");
                if !stop {
                    quick += 1;
                    octets += hw.stats.octets_written;
                    wire += list.iter().map(|x| x.payload.len() as u64).sum::<u64>();
                    // The same connection in sequence order (`in_order_packets`), for reference.
                    let io = RnicRunOptions { seed, ..Default::default() };
                    let r = run_rnic(sim.as_mut(), &cfg, &t.segments, &io).expect("in order");
                    io_octets += r.stats.octets_written;
                    io_cycles += r.stats.w_cycles.last().map_or(0, |&c| c + 1 - r.stats.first_in);
                    cycles += hw.stats.w_cycles.last().map_or(0, |&c| c + 1 - hw.stats.first_in);
                }
                offers += list.len();
                refused += hw.final_regs[&hdl::place::reg::CNT_REFUSED] as usize;
                peak = peak.max(hw.final_regs[&hdl::place::reg::REASM_PEAK] as u64);
                located += hw.final_regs[&hdl::place::reg::REASM_LOCATED] as u64;
                // What the reassembly block does with each accepted segment: straight through
                // when it starts at the edge, else its new octets through the ring.
                let mut edge = 0i64;
                let mut ahead = std::collections::BTreeMap::<i64, i64>::new();
                for (seg, (_, ok)) in list.iter().zip(&hw.verdicts) {
                    if !ok {
                        continue;
                    }
                    let s = seg.seq.wrapping_sub(cfg.origin) as i32 as i64;
                    let e = s + seg.payload.len() as i64;
                    if s == edge {
                        straight += (e - s) as u64;
                        edge = e;
                    } else if s < edge {
                        ring += (e - edge).max(0) as u64;
                        edge = edge.max(e);
                    } else {
                        let x = ahead.entry(s).or_insert(e);
                        *x = (*x).max(e);
                    }
                    while let Some((&a, &b)) = ahead.iter().next() {
                        if a > edge {
                            break;
                        }
                        if b > edge {
                            ring += (b - edge.max(a)) as u64;
                        }
                        edge = edge.max(b);
                        ahead.remove(&a);
                    }
                }
                let mut on = t.config.clone();
                on.records = cfg.records;
                on.reassembly_octets = cfg.reassembly_octets;
                let g = run_receiver(&on, &t.segments, false, Some(3), false).expect("golden on");
                let m = g.receiver.metrics();
                g_direct += m.direct_octets;
                g_payload += m.direct_octets + m.held_octets;
                g_peak = g_peak.max(m.peak_held_octets);
                g_refused += m.refused;
                g_ooo += m.ooo_fpdus;
            }
            println!(
                "| {} | {} | {offers} | {refused} | {peak} | {:.1} % | {:.1} % | {} | {:.1} %, {g_peak}, {g_refused} | {located} / {g_ooo} |",
                scenario.name(),
                if small { "reserve + 6000, 4 records" } else { "256 KiB, 17 records" },
                100.0 * straight as f64 / (straight + ring).max(1) as f64,
                100.0 * ring as f64 / (straight + ring).max(1) as f64,
                if quick == 0 {
                    "n/a (every connection stops)".to_string()
                } else {
                    let c = cycles.max(1) as f64;
                    format!(
                        "{:.2} ({:.3} of W; in order {:.3}); segment octets {:.3} of W",
                        octets as f64 / c,
                        octets as f64 / c / w as f64,
                        io_octets as f64 / io_cycles.max(1) as f64 / w as f64,
                        wire as f64 / c / w as f64
                    )
                },
                100.0 * g_direct as f64 / g_payload.max(1) as f64,
            );
        }
    }
}
