//! `TxFramer` (RFC 5044 4.1) against the golden framer: every width, both engines, idle and
//! backpressure, ULPDU sizes around every beat boundary, and the defined outcomes of a wrong
//! ULPDU_Length and of an oversize ULPDU.

use golden::fpdu::{Framer, FramingConfig};
use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;

/// The ULPDU limit of RFC 5044 section 3.
const ULPDU_MAX: usize = golden::mulpdu::ULPDU_MAX as usize;

/// The FPDU (no Markers, CRC field zero) the framer must emit for `actual` octets declared as
/// `declared`: exactly `declared` ULPDU octets, the actual ones first, zeros after.
fn expected_fpdu(actual: &[u8], declared: usize) -> Vec<u8> {
    let mut u = actual[..actual.len().min(declared)].to_vec();
    u.resize(declared, 0);
    let cfg = FramingConfig { markers: false, crc: false, offset: 0 };
    Framer::new(cfg).unwrap().frame(&u).unwrap()
}

fn p_words(declared: usize) -> u64 {
    ((declared as u64 + 5) >> 2) + 1
}

struct Case {
    data: Vec<u8>,
    declared: usize,
    push: bool,
}

fn run(engine: Engine, w: usize, cases: &[Case], markers: bool, crc: bool, opts: PacketRun) {
    let packets: Vec<InPacket> = cases
        .iter()
        .map(|c| InPacket {
            data: c.data.clone(),
            user: hdl::sideband::TxUlpduUser { len: c.declared as u64 & 0xFFFF, push: c.push }
                .pack(),
        })
        .collect();
    let mut sim = sim::tx::framer(engine, w).unwrap();
    let opts = PacketRun {
        settings: vec![("cfg_markers".into(), markers as u64), ("cfg_crc".into(), crc as u64)],
        pulses: vec!["err_length".into(), "err_oversize".into()],
        ..opts
    };
    let res = run_packets(sim.as_mut(), &packets, &opts).unwrap();
    let framed: Vec<&Case> = cases.iter().filter(|c| c.declared <= ULPDU_MAX).collect();
    assert_eq!(res.packets.len(), framed.len(), "{engine} W={w}: FPDU count");
    for (i, (c, p)) in framed.iter().zip(&res.packets).enumerate() {
        let want = expected_fpdu(&c.data, c.declared);
        assert_eq!(p.data, want, "{engine} W={w}: FPDU {i} (declared {})", c.declared);
        let user = p_words(c.declared)
            | ((markers as u64) << 14)
            | ((crc as u64) << 15)
            | ((c.push as u64) << 16);
        assert!(
            p.users.iter().all(|&u| u == user),
            "{engine} W={w}: FPDU {i} sideband {:x?}",
            p.users
        );
    }
    let mismatched =
        cases.iter().filter(|c| c.declared <= ULPDU_MAX && c.declared != c.data.len()).count()
            as u64;
    let oversize = cases.iter().filter(|c| c.declared > ULPDU_MAX).count() as u64;
    assert_eq!(res.pulse_counts, vec![mismatched, oversize], "{engine} W={w}: error pulses");
}

fn good(data: Vec<u8>) -> Case {
    let declared = data.len();
    Case { data, declared, push: false }
}

fn random_cases(seed: u64, n: usize, max: usize) -> Vec<Case> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| {
            let len = r.gen_range(0..=max);
            let mut c = good((0..len).map(|_| r.gen()).collect());
            c.push = r.gen_bool(0.2);
            c
        })
        .collect()
}

fn every_length(w: usize) -> Vec<Case> {
    (0..=3 * w + 5).map(|n| good((0..n).map(|i| (i * 7 + n) as u8).collect())).collect()
}

fn bad_lengths(w: usize) -> Vec<Case> {
    let d = |n: usize| (0..n).map(|i| (i as u8) ^ 0x5A).collect::<Vec<u8>>();
    vec![
        good(d(10)),
        Case { data: d(3), declared: 20 + w, push: false }, // ends early
        good(d(2 * w)),
        Case { data: d(3 * w + 1), declared: 5, push: true }, // runs long
        Case { data: d(0), declared: 4, push: false },        // empty, declared 4
        Case { data: d(w), declared: 0, push: false },        // declared empty
        Case { data: d(70), declared: 65000, push: false },   // oversize: dropped
        Case { data: d(0), declared: 65535, push: false },    // oversize, one null beat
        good(d(w + 3)),
        Case { data: d(w + 1), declared: w, push: false }, // one octet too many
        Case { data: d(w - 1), declared: w, push: false }, // one octet short
        good(d(1)),
    ]
}

/// ULPDU_Lengths around the framer's mask thresholds (more than 128 octets left, 128 + W before
/// a full beat): exact, one beat and an octet short, one beat and an octet long.
fn threshold_lengths(w: usize) -> Vec<Case> {
    let d = |n: usize| (0..n).map(|i| (i as u8).wrapping_mul(7) ^ 0xA5).collect::<Vec<u8>>();
    let mut cases = Vec::new();
    for base in [128, 128 + w, 128 + 2 * w] {
        for l in base - 2..=base + 2 {
            cases.push(good(d(l)));
            cases.push(Case { data: d(l - w - 1), declared: l, push: false });
            cases.push(Case { data: d(l + w + 1), declared: l, push: true });
        }
    }
    cases
}

macro_rules! framer_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn every_ulpdu_length_to_3w_plus_5_matches_golden() {
                run($engine, $w, &every_length($w), false, true, PacketRun::default());
            }

            #[test]
            fn random_ulpdus_with_idle_and_backpressure_match_golden() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.7, seed: 11 },
                    backpressure: Pattern::Random { p: 0.6, seed: 12 },
                    ..PacketRun::default()
                };
                run($engine, $w, &random_cases(100 + $w, 60, 5 * $w), true, false, opts);
            }

            #[test]
            fn lengths_around_the_mask_thresholds_match_golden() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.8, seed: 21 },
                    backpressure: Pattern::Random { p: 0.7, seed: 22 },
                    ..PacketRun::default()
                };
                run($engine, $w, &threshold_lengths($w), true, true, opts);
            }

            #[test]
            fn wrong_lengths_are_completed_or_cut_and_reported() {
                let opts = PacketRun {
                    backpressure: Pattern::Cycle(vec![true, false, true]),
                    ..PacketRun::default()
                };
                run($engine, $w, &bad_lengths($w), true, true, opts);
            }
        }
    )*};
}

framer_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    // W = 16 and 32 too: the length check's wide form starts at W = 16 (hdl::tx).
    verilator_w16: sim::Engine::Verilator, 16;
    verilator_w32: sim::Engine::Verilator, 32;
    verilator_w64: sim::Engine::Verilator, 64;
}

#[test]
fn framer_w8_long_ulpdus_match_golden_at_full_rate() {
    let cases = random_cases(7, 12, 4000);
    run(Engine::RustHdl, 8, &cases, false, true, PacketRun::default());
}
