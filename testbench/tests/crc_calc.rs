//! The CRC top (`hdl::crc::CrcCalc`, exported as `mpa_crc32c_w<W>`) against the golden model,
//! at every width, on both engines: random messages of 0..3W+1 bytes and long ones, every
//! partial-beat length, the residue check, back-to-back one-beat messages, idle and
//! backpressure, RFC 5044 Figure 5 and the catalogue check value. Every run also checks the
//! handshake rules on both streams (`sim::crc::run_messages`).

use golden::crc::{CrcDef, CRC32C};
use hdl::crc::CrcCalc;
use hdl::with_width;
use sim::crc::{crc_top, run_messages, RunOptions};
use sim::stream::Pattern;
use sim::Engine;
use testbench::*;

fn run(
    engine: Engine,
    def: &CrcDef,
    w: usize,
    msgs: &[Vec<u8>],
    opts: &RunOptions,
) -> (Vec<sim::crc::CrcResult>, sim::crc::RunStats) {
    let mut sim = crc_top(engine, def, w).unwrap_or_else(|e| panic!("{engine} W={w}: {e}"));
    run_messages(sim.as_mut(), msgs, opts).unwrap_or_else(|e| panic!("{engine} W={w}: {e}"))
}

fn latency(w: usize) -> u64 {
    with_width!(w, |W, B| CrcCalc::<W, B>::latency() as u64)
}

/// Messages per random run: the rust-hdl model is ~100x slower than Verilator.
fn budget(engine: Engine) -> usize {
    if engine == Engine::Verilator {
        2000
    } else {
        150
    }
}

/// AXI4-Stream's convention: no combinational path from an input of the exported CRC top to
/// an output, `rst` aside. At every width on Verilator, random messages with idle and
/// backpressure, every cycle checked with every input flipped (`sim::comb_check`).
#[test]
fn crc_top_outputs_do_not_follow_inputs_at_every_width() {
    let opts = RunOptions {
        idle: Pattern::Random { p: 0.7, seed: 5 },
        backpressure: Pattern::Random { p: 0.6, seed: 6 },
        ..RunOptions::default()
    };
    for w in hdl::export::WIDTHS {
        let mut model = crc_top(Engine::Verilator, &CRC32C, w).unwrap();
        let mut sim = sim::comb_check::NoCombPaths::every_port(model.as_mut(), &["rst"]).unwrap();
        let mut r = rng(70 + w as u64);
        let msgs = random_messages(&mut r, 60, 0..=3 * w + 1);
        let (res, _) = run_messages(&mut sim, &msgs, &opts).unwrap();
        assert_crcs(&format!("no comb paths W={w}"), &CRC32C, &msgs, &res);
        assert!(sim.checked > 200, "W = {w}: {} cycles checked", sim.checked);
    }
}

fn random_lengths_match_golden(engine: Engine, w: usize) {
    let mut r = rng(0x5EED_0000 + w as u64);
    let mut msgs = random_messages(&mut r, budget(engine), 0..=3 * w + 1);
    msgs.extend(random_messages(&mut r, 3, 1500..=4000));
    let (res, _) = run(engine, &CRC32C, w, &msgs, &RunOptions::default());
    assert_crcs(&format!("{engine} W={w}"), &CRC32C, &msgs, &res);
    for (m, r) in msgs.iter().zip(&res) {
        assert_eq!(
            r.bad,
            golden_bad(&CRC32C, m),
            "{engine} W={w}: bad flag of a {}-byte message",
            m.len()
        );
    }
}

fn every_partial_beat_length(engine: Engine, w: usize) {
    // Every length from the empty message to two beats and one byte: every keep pattern of a
    // last beat, after zero, one and two full beats; each also with its own CRC appended (the
    // residue check must pass) and with that CRC corrupted in one bit (it must fail).
    let mut r = rng(0xBEA7 + w as u64);
    let mut msgs = vec![];
    for len in 0..=2 * w + 1 {
        let m: Vec<u8> = random_messages(&mut r, 1, len..=len).remove(0);
        let mut framed = with_own_crc(&CRC32C, &m);
        msgs.push(m);
        msgs.push(framed.clone());
        let n = framed.len();
        framed[n - 1 - len % 4] ^= 1 << (len % 8);
        msgs.push(framed);
    }
    let (res, _) = run(engine, &CRC32C, w, &msgs, &RunOptions::default());
    assert_crcs(&format!("{engine} W={w}"), &CRC32C, &msgs, &res);
    for (i, r) in res.iter().enumerate() {
        let len = i / 3;
        match i % 3 {
            1 => assert!(!r.bad, "{engine} W={w}: {len}-byte message with its own CRC flagged bad"),
            2 => assert!(r.bad, "{engine} W={w}: {len}-byte message with a corrupted CRC passed"),
            _ => assert_eq!(
                r.bad,
                golden_bad(&CRC32C, &msgs[i]),
                "{engine} W={w}: bad flag, {len} bytes"
            ),
        }
    }
}

fn idle_and_backpressure_match_golden(engine: Engine, w: usize) {
    let cases = [
        ("no idle, no backpressure", Pattern::Always, Pattern::Always),
        ("idle 1 in 4", Pattern::Cycle(vec![true, true, true, false]), Pattern::Always),
        ("ready 1 in 3", Pattern::Always, Pattern::Cycle(vec![true, false, false])),
        (
            "random idle and stalls",
            Pattern::Random { p: 0.6, seed: 7 + w as u64 },
            Pattern::Random { p: 0.3, seed: 11 },
        ),
    ];
    for (k, (what, idle, bp)) in cases.into_iter().enumerate() {
        let mut r = rng(0x1D1E + 100 * k as u64 + w as u64);
        // Short messages, so that a slow result sink runs out of credits and stalls the input.
        let msgs = random_messages(&mut r, budget(engine) / 2, 0..=w + 1);
        let opts = RunOptions { idle, backpressure: bp, ..Default::default() };
        let (res, stats) = run(engine, &CRC32C, w, &msgs, &opts);
        assert_crcs(&format!("{engine} W={w} {what}"), &CRC32C, &msgs, &res);
        if what == "ready 1 in 3" {
            assert!(
                stats.input_stalls > 0,
                "{engine} W={w}: a slow result sink never stalled the input"
            );
        }
        if what == "no idle, no backpressure" {
            assert_eq!(stats.input_stalls, 0, "{engine} W={w}: input stalled without backpressure");
        }
    }
}

fn back_to_back_one_beat_messages(engine: Engine, w: usize) {
    // One-beat messages (full and partial) with no idle cycle between them: the input never
    // stalls, one beat per cycle, every result exactly `latency` cycles after its last beat.
    let mut r = rng(0xB2B + w as u64);
    let msgs = random_messages(&mut r, budget(engine), 1..=w);
    let (res, stats) = run(engine, &CRC32C, w, &msgs, &RunOptions::default());
    assert_crcs(&format!("{engine} W={w}"), &CRC32C, &msgs, &res);
    assert_eq!(stats.input_stalls, 0, "{engine} W={w}: back-to-back messages stalled");
    assert_eq!(stats.beats_in, msgs.len() as u64);
    for (i, r) in res.iter().enumerate() {
        assert_eq!(r.latency, latency(w), "{engine} W={w}: result {i} latency");
    }
}

fn vectors(engine: Engine, w: usize) {
    let msgs = vec![b"123456789".to_vec(), rfc5044_figure5_covered(), vec![]];
    let (res, _) = run(engine, &CRC32C, w, &msgs, &RunOptions::default());
    assert_eq!(res[0].crc, 0xE306_9283, "{engine} W={w}: CRC32c check value");
    assert_eq!(res[1].crc, 0x8399_2352, "{engine} W={w}: RFC 5044 Figure 5");
    assert_eq!(res[2].crc, 0, "{engine} W={w}: empty message");
    // The FPDU of Figure 5 with its CRC field `52 23 99 83` passes the residue check.
    let mut fpdu = rfc5044_figure5_covered();
    fpdu.extend([0x52, 0x23, 0x99, 0x83]);
    let (res, _) = run(engine, &CRC32C, w, &[fpdu], &RunOptions::default());
    assert!(!res[0].bad, "{engine} W={w}: Figure 5 FPDU flagged bad");
}

macro_rules! crc_tests {
    ($name:ident, $w:expr, $engine:expr) => {
        mod $name {
            #[test]
            fn random_messages_of_0_to_3w_plus_1_bytes_and_long_ones_match_golden() {
                super::random_lengths_match_golden($engine, $w);
            }
            #[test]
            fn every_partial_beat_length_matches_golden_and_checks_its_own_crc() {
                super::every_partial_beat_length($engine, $w);
            }
            #[test]
            fn idle_and_backpressure_patterns_match_golden() {
                super::idle_and_backpressure_match_golden($engine, $w);
            }
            #[test]
            fn back_to_back_one_beat_messages_never_stall_and_meet_the_latency() {
                super::back_to_back_one_beat_messages($engine, $w);
            }
            #[test]
            fn check_value_figure5_and_empty_message_are_exact() {
                super::vectors($engine, $w);
            }
        }
    };
}

crc_tests!(crc_w4_rusthdl, 4, sim::Engine::RustHdl);
crc_tests!(crc_w8_rusthdl, 8, sim::Engine::RustHdl);
crc_tests!(crc_w16_rusthdl, 16, sim::Engine::RustHdl);
crc_tests!(crc_w32_rusthdl, 32, sim::Engine::RustHdl);
crc_tests!(crc_w64_rusthdl, 64, sim::Engine::RustHdl);
crc_tests!(crc_w4_verilator, 4, sim::Engine::Verilator);
crc_tests!(crc_w8_verilator, 8, sim::Engine::Verilator);
crc_tests!(crc_w16_verilator, 16, sim::Engine::Verilator);
crc_tests!(crc_w32_verilator, 32, sim::Engine::Verilator);
crc_tests!(crc_w64_verilator, 64, sim::Engine::Verilator);

/// The other two definitions through the same hardware: check values and random messages.
fn other_polys(engine: Engine, w: usize) {
    for def in [golden::crc::CRC32_WILLIAMS, golden::crc::CRC32_ETHERNET] {
        let mut r = rng(0x9017 + w as u64);
        let mut msgs = vec![b"123456789".to_vec()];
        msgs.extend(random_messages(&mut r, budget(engine) / 2, 0..=3 * w + 1));
        msgs.push(with_own_crc(&def, &msgs[5]));
        let (res, _) = run(engine, &def, w, &msgs, &RunOptions::default());
        assert_eq!(res[0].crc, def.check, "{engine} W={w} {}: check value", def.name);
        assert_crcs(&format!("{engine} W={w} {}", def.name), &def, &msgs, &res);
        assert!(!res.last().unwrap().bad, "{engine} W={w} {}: own CRC flagged bad", def.name);
    }
}

#[test]
fn crc_w8_williams_and_ethernet_on_rusthdl_match_golden() {
    other_polys(Engine::RustHdl, 8);
}

#[test]
fn crc_w8_williams_and_ethernet_on_verilator_match_golden() {
    other_polys(Engine::Verilator, 8);
}

#[test]
fn crc_w64_williams_and_ethernet_on_rusthdl_match_golden() {
    other_polys(Engine::RustHdl, 64);
}
