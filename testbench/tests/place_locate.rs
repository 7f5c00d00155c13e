//! `PlaceLocate` (RFC 5044 section 6 methods 2 and 3, 4.2 FPDUPTR): the FPDUs it locates in a
//! segment are [`golden::receiver::locate_fpdus`]'s, for segments cut from generated MPA
//! streams (Markers on and off, sequence numbers wrapping through 2^32) anywhere, at FPDU
//! boundaries and 1 to 3 octets past them, of 1 to 65,536 octets, with corrupted octets (CRCs,
//! lengths, FPDUPTRs that disagree with the chain, leading-Marker values), a ULPDU_Length limit
//! below some FPDUs, with and without a start known from a placed FPDU, with and without
//! header-alignment detection (B.2; the run plays the header block: it decodes the alignment
//! try's packets with the golden decoder), at every width on both engines, under idle cycles.

use golden::fpdu::FramingConfig;
use golden::receiver::{locate_fpdus, LocateSettings};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim::locate::{locator, run_locate, LocateOptions, LocateSegment};
use sim::stream::Pattern;
use sim::traffic::{generate, Scenario, TrafficOptions};
use sim::Engine;

/// How `check` cuts and damages segments.
#[derive(Clone, Copy)]
struct Cuts {
    /// Messages in the stream.
    messages: usize,
    /// Segments cut from it.
    count: usize,
    /// Longest segment (octets).
    longest: usize,
    /// The locator's (and the golden function's) ULPDU_Length limit; `None`: the sender's.
    max_ulpdu: Option<u32>,
    /// The first segment is the longest, from the first Marker position after the origin.
    at_marker: bool,
}

/// One stream, segments cut from it as `cuts` says; returns the FPDUs located (to show the
/// test is not vacuous). Cuts: anywhere; from an FPDU start to 0 to 3 octets past another FPDU
/// end; 1 to 3 octets. Damage: one bit anywhere, or Markers' FPDUPTRs set to 0, to 508 mod
/// 512 (a leading Marker's value), or to any value. Chain starts: the next FPDU, anywhere, 1
/// to 3 octets before the end, before the segment. `aligned`: header-alignment detection;
/// returns then also the FPDUs located that the golden function without it does not locate.
fn check(
    engine: Engine,
    w: usize,
    seed: u64,
    markers: bool,
    cuts: Cuts,
    busy: bool,
    aligned: bool,
) -> (usize, usize) {
    let t = generate(&TrafficOptions {
        scenario: if seed % 3 == 0 { Scenario::Wrap } else { Scenario::InOrder },
        seed,
        markers,
        crc: true,
        messages: cuts.messages,
        ..Default::default()
    });
    let origin = t.config.origin;
    let wire = &t.sent.wire;
    let starts = &t.sent.fpdu_offsets;
    let max_ulpdu = cuts.max_ulpdu.unwrap_or(t.config.max_ulpdu);
    let settings = LocateSettings {
        framing: FramingConfig { markers, crc: true, offset: 0 },
        max_ulpdu,
        aligned_detect: aligned,
        version: t.config.version.protocol(),
    };
    let without = LocateSettings { aligned_detect: false, ..settings };
    let mut extra = 0;
    let mut rng = ChaCha8Rng::seed_from_u64(seed * 77 + w as u64);
    let mut segments = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..cuts.count {
        let (a, b) = match rng.gen_range(0..10) {
            _ if cuts.at_marker && segments.is_empty() => {
                assert!(wire.len() >= 512 + cuts.longest, "the stream is too short");
                (512, 512 + cuts.longest)
            }
            0..=5 => {
                let a = rng.gen_range(0..wire.len() - 1);
                (a, (a + rng.gen_range(1..=cuts.longest)).min(wire.len()))
            }
            6..=8 => {
                let i = rng.gen_range(0..starts.len());
                let j = (i + rng.gen_range(1..4)).min(starts.len());
                let end = starts.get(j).map_or(wire.len(), |&x| x as usize);
                (starts[i] as usize, (end + rng.gen_range(0..4)).min(wire.len()))
            }
            _ => {
                let a = rng.gen_range(0..wire.len() - 3);
                (a, a + rng.gen_range(1..4))
            }
        };
        let mut bytes = wire[a..b].to_vec();
        match rng.gen_range(0..10) {
            // A random octet changed: a CRC, a length, a header, a Marker.
            0 | 1 => {
                let i = rng.gen_range(0..bytes.len());
                bytes[i] ^= 1 << rng.gen_range(0..8);
            }
            // Markers' FPDUPTRs that disagree with the chain.
            2..=4 if markers => {
                let mut m = (a as u64).div_ceil(512) * 512;
                while m + 4 <= b as u64 {
                    if rng.gen_bool(0.5) {
                        let at = (m - a as u64) as usize;
                        let v: u16 = match rng.gen_range(0..4) {
                            0 => rng.gen_range(0..4),
                            1 => 508 + 512 * rng.gen_range(0..8),
                            _ => rng.gen(),
                        };
                        bytes[at + 2..at + 4].copy_from_slice(&v.to_be_bytes());
                    }
                    m += 512;
                }
            }
            _ => {}
        }
        let chain: Option<u64> = match rng.gen_range(0..10) {
            0..=2 => starts.iter().copied().find(|&f| f >= a as u64),
            3 => Some(a as u64 + 4 * rng.gen_range(0..64)),
            4 => Some((b as u64).saturating_sub(rng.gen_range(1..4)) & !3),
            5 => Some((a as u64).saturating_sub(4)),
            _ => None,
        };
        let found = locate_fpdus(&settings, chain, a as u64, b as u64, &bytes);
        let plain = locate_fpdus(&without, chain, a as u64, b as u64, &bytes);
        extra += found.iter().filter(|l| !plain.contains(l)).count();
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
        max_ulpdu,
        idle: if busy { Pattern::Random { p: 0.7, seed } } else { Pattern::Always },
        read_idle: if busy { Pattern::Random { p: 0.6, seed: seed + 1 } } else { Pattern::Always },
        read_delay: if busy { 5 } else { 1 },
        aligned: aligned.then_some(t.config.version.protocol()),
    };
    let mut sim = locator(engine, w).expect("build");
    let run = run_locate(sim.as_mut(), &segments, &opts)
        .unwrap_or_else(|e| panic!("{engine} W={w} seed {seed}: {e}"));
    assert!(!run.watchdog, "{engine} W={w} seed {seed}: a try timed out");
    for (k, (got, want)) in run.located.iter().zip(&expected).enumerate() {
        assert_eq!(
            got,
            want,
            "{engine} W={w} seed {seed} markers {markers} aligned {aligned}: segment {k} at \
             {:#x}, {} octets, chain {:?}, reads {:x?}",
            segments[k].seq,
            segments[k].bytes.len(),
            segments[k].chain,
            run.reads[k]
        );
    }
    (expected.iter().map(Vec::len).sum(), extra)
}

/// Segments of 65,536 octets (the ring; 128 Markers, every candidate kept) from a stream of
/// about 100 KiB, one starting on a Marker position, with Markers on.
fn longest(engine: Engine, w: usize) -> usize {
    let cuts = Cuts { messages: 120, count: 2, longest: 65_536, max_ulpdu: None, at_marker: true };
    check(engine, w, 31 + w as u64, true, cuts, false, false).0
}

/// CRCs off: nothing is located, nothing is read.
fn crc_off(engine: Engine, w: usize) {
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
    ($($(#[$long:meta])? $name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        $(#[$long])?
        fn $name() {
            crc_off($engine, $w);
            let (mut found, mut by_alignment) = (0, 0);
            for (k, seed) in [11u64, 12, 13, 14, 15].into_iter().enumerate() {
                // The last stream with a ULPDU_Length limit below some of its FPDUs; header
                // alignment on in the second, fourth and fifth (Markers off, off, on).
                let max_ulpdu = (k == 4).then_some(700);
                let cuts =
                    Cuts { messages: 30, count: 40, longest: 3_000, max_ulpdu, at_marker: false };
                let aligned = matches!(k, 1 | 3 | 4);
                let (n, x) = check($engine, $w, seed + $w, k % 2 == 0, cuts, k >= 2, aligned);
                found += n;
                by_alignment += x;
            }
            found += longest($engine, $w);
            eprintln!(
                "{} W={}: {found} FPDUs located, {by_alignment} of them only by header alignment",
                $engine, $w
            );
            assert!(found >= 50, "only {found} FPDUs located");
            assert!(by_alignment >= 5, "only {by_alignment} FPDUs located by header alignment");
        }
    )*};
}

locate_tests! {
    #[ignore = "the rust-hdl model at W = 4: make test-extra"]
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    #[ignore = "the rust-hdl model at W = 32: make test-extra"]
    rusthdl_w32: sim::Engine::RustHdl, 32;
    #[ignore = "the rust-hdl model at W = 64: make test-extra"]
    rusthdl_w64: sim::Engine::RustHdl, 64;
    #[ignore = "Verilator at W = 4 (rnic_rx runs the block at every W): make test-extra"]
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    #[ignore = "Verilator at W = 16 (rnic_rx runs the block at every W): make test-extra"]
    verilator_w16: sim::Engine::Verilator, 16;
    #[ignore = "Verilator at W = 32 (rnic_rx runs the block at every W): make test-extra"]
    verilator_w32: sim::Engine::Verilator, 32;
    verilator_w64: sim::Engine::Verilator, 64;
}

/// The block's exported Verilog at every width passes `yosys ... check -assert` and Verilator
/// lint, as the exported tops do (`export.rs`): it is not a top of its own, but it is what
/// `rnic_rx` will synthesize.
#[test]
fn exported_verilog_passes_yosys_check_assert_and_verilator_lint() {
    let dir = sim::workspace_root().join("target/testbench/place_locate_export");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for w in hdl::export::WIDTHS {
        let top = sim::locate::locator_verilog(w).unwrap();
        let file = dir.join(format!("{}.v", top.name));
        std::fs::write(&file, &top.verilog).unwrap();
        failures.extend(sim::tools::yosys_check(&file, &top.name).err());
        failures.extend(sim::tools::verilator_lint(&file, &top.name).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
