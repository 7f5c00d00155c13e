//! `PlaceLocate` (RFC 5044 section 6 methods 2 and 3, 4.2 FPDUPTR): the FPDUs it locates in a
//! segment are [`golden::receiver::locate_fpdus`]'s, for segments cut anywhere from generated
//! MPA streams (Markers on and off, sequence numbers wrapping through 2^32), with corrupted
//! octets (CRCs, lengths, FPDUPTRs that disagree with the chain), with and without a start
//! known from a placed FPDU, at every width on both engines, under idle cycles.

use golden::fpdu::FramingConfig;
use golden::receiver::{locate_fpdus, LocateSettings};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim::locate::{locator, run_locate, LocateOptions, LocateSegment};
use sim::stream::Pattern;
use sim::traffic::{generate, Scenario, TrafficOptions};

/// One stream, `count` segments cut from it; returns the FPDUs located (to show the test
/// is not vacuous).
fn check(engine: &str, w: usize, seed: u64, markers: bool, count: usize, busy: bool) -> usize {
    let t = generate(&TrafficOptions {
        scenario: if seed % 3 == 0 { Scenario::Wrap } else { Scenario::InOrder },
        seed,
        markers,
        crc: true,
        messages: 30,
        ..Default::default()
    });
    let origin = t.config.origin;
    let wire = &t.sent.wire;
    let boundaries = &t.sent.fpdu_offsets;
    let settings = LocateSettings {
        framing: FramingConfig { markers, crc: true, offset: 0 },
        max_ulpdu: t.config.max_ulpdu,
        aligned_detect: false,
        version: t.config.version.protocol(),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed * 77 + w as u64);
    let mut segments = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..count {
        let a = rng.gen_range(0..wire.len() - 1);
        let max_len = if rng.gen_bool(0.1) { 12_000 } else { 3_000 };
        let b = (a + rng.gen_range(1..=max_len)).min(wire.len());
        let mut bytes = wire[a..b].to_vec();
        match rng.gen_range(0..10) {
            // A random octet changed: a CRC, a length, a header, a Marker.
            0 | 1 => {
                let i = rng.gen_range(0..bytes.len());
                bytes[i] ^= 1 << rng.gen_range(0..8);
            }
            // A Marker's FPDUPTR that disagrees with the chain.
            2 | 3 if markers => {
                let m = (a as u64).div_ceil(512) * 512;
                if m + 4 <= b as u64 {
                    let at = (m - a as u64) as usize;
                    let v = rng.gen_range(0..2048u16) & !3;
                    bytes[at + 2..at + 4].copy_from_slice(&v.to_be_bytes());
                }
            }
            _ => {}
        }
        let chain: Option<u64> = match rng.gen_range(0..8) {
            0 | 1 => boundaries.iter().copied().find(|&f| f >= a as u64),
            2 => Some(a as u64 + 4 * rng.gen_range(0..64)),
            3 => Some((a as u64).saturating_sub(4)),
            _ => None,
        };
        let found = locate_fpdus(&settings, chain, a as u64, b as u64, &bytes);
        expected.push(
            found
                .iter()
                .map(|l| (origin.wrapping_add(l.start as u32), origin.wrapping_add(l.end as u32)))
                .collect::<Vec<_>>(),
        );
        segments.push(LocateSegment {
            seq: origin.wrapping_add(a as u32),
            bytes,
            chain: chain.map(|c| origin.wrapping_add(c as u32)),
        });
    }
    let opts = LocateOptions {
        origin,
        markers,
        crc: true,
        max_ulpdu: t.config.max_ulpdu,
        idle: if busy { Pattern::Random { p: 0.7, seed } } else { Pattern::Always },
        read_idle: if busy { Pattern::Random { p: 0.6, seed: seed + 1 } } else { Pattern::Always },
        read_delay: if busy { 5 } else { 1 },
    };
    let mut sim = locator(engine, w).expect("build");
    let run = run_locate(sim.as_mut(), &segments, &opts)
        .unwrap_or_else(|e| panic!("{engine} W={w} seed {seed}: {e}"));
    assert!(!run.watchdog, "{engine} W={w} seed {seed}: a try timed out");
    for (k, (got, want)) in run.located.iter().zip(&expected).enumerate() {
        assert_eq!(
            got,
            want,
            "{engine} W={w} seed {seed} markers {markers}: segment {k} at {:#x}, {} octets, \
             chain {:?}, reads {:x?}",
            segments[k].seq,
            segments[k].bytes.len(),
            segments[k].chain,
            run.reads[k]
        );
    }
    expected.iter().map(Vec::len).sum()
}

/// CRCs off: nothing is located, nothing is read.
fn crc_off(engine: &str, w: usize) {
    let t = generate(&TrafficOptions { seed: 5, markers: true, crc: false, ..Default::default() });
    let seg = LocateSegment {
        seq: t.config.origin.wrapping_add(1000),
        bytes: t.sent.wire[1000..3000].to_vec(),
        chain: None,
    };
    let opts = LocateOptions { origin: t.config.origin, crc: false, ..Default::default() };
    let mut sim = locator(engine, w).expect("build");
    let run = run_locate(sim.as_mut(), &[seg], &opts).expect("run");
    assert_eq!(run.located, vec![Vec::<(u32, u32)>::new()]);
    assert_eq!(run.reads, vec![Vec::<(u32, u32)>::new()]);
}

macro_rules! locate_tests {
    ($($(#[$long:meta])? $name:ident: $engine:literal, $w:literal;)*) => {$(
        #[test]
        $(#[$long])?
        fn $name() {
            crc_off($engine, $w);
            let mut found = 0;
            for (k, seed) in [11u64, 12, 13, 14].into_iter().enumerate() {
                found += check($engine, $w, seed + $w, k % 2 == 0, 30, k >= 2);
            }
            eprintln!("{} W={}: {found} FPDUs located", $engine, $w);
            assert!(found > 50, "only {found} FPDUs located");
        }
    )*};
}

locate_tests! {
    rusthdl_w4: "rusthdl", 4;
    rusthdl_w8: "rusthdl", 8;
    rusthdl_w16: "rusthdl", 16;
    #[ignore = "the rust-hdl model at W = 32: make test-long"]
    rusthdl_w32: "rusthdl", 32;
    #[ignore = "the rust-hdl model at W = 64: make test-long"]
    rusthdl_w64: "rusthdl", 64;
    verilator_w4: "verilator", 4;
    verilator_w8: "verilator", 8;
    verilator_w16: "verilator", 16;
    verilator_w32: "verilator", 32;
    verilator_w64: "verilator", 64;
}
