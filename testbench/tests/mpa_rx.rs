//! `mpa_rx` (RFC 5044 4.2-4.4, 6, 8, A.4): TCP payload segments in, verified ULPDUs out, against
//! the golden deframer (`deframe_stream_with_limit`): the specification vectors as one segment
//! and cut at every octet; random streams cut into random segments at every width on both
//! engines with idle and backpressure; faults (flipped bits, FPDUPTR, ULPDU_Length, truncation)
//! reported with the golden model's code at the golden model's FPDU and nothing after.

use golden::fpdu::{Framer, FramingConfig};
use rand::Rng;
use sim::packet::{InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::rx::{segments, with_retransmissions};
use testbench::rx_check::{check, check_on};

/// The largest ULPDU_Length the exported tops accept (16 KiB buffer less one beat).
fn limit(w: usize) -> u32 {
    (16384 - w) as u32
}

fn one_segment(stream: &[u8], seq: u32) -> Vec<InPacket> {
    vec![InPacket::segment(stream.to_vec(), seq, true)]
}

fn cut_at(stream: &[u8], seq: u32, k: usize) -> Vec<InPacket> {
    vec![
        InPacket::segment(stream[..k].to_vec(), seq, false),
        InPacket::segment(stream[k..].to_vec(), seq.wrapping_add(k as u32), true),
    ]
}

fn vectors_at(engine: Engine, w: usize, every_octet: bool) {
    for v in golden::vectors::all() {
        let (cfg, stream) = v.receive_stream();
        let seq = 0x1000_0000;
        let run = check(
            engine,
            w,
            cfg,
            &stream,
            &one_segment(&stream, seq),
            seq,
            limit(w),
            &PacketRun::default(),
            &v.name,
        );
        assert!(run.error.is_none(), "{}: the figure is good", v.name);
        assert_eq!(run.ulpdus.last().unwrap().data, v.ulpdu, "{}: the figure's ULPDU", v.name);
        if every_octet {
            let mut sim = sim::rx::mpa_rx(engine, w).unwrap();
            let opts = PacketRun { drain: 10, ..PacketRun::default() };
            for k in 1..stream.len() {
                let what = format!("{} cut at {k}", v.name);
                let segs = cut_at(&stream, seq, k);
                check_on(
                    sim.as_mut(),
                    engine.name(),
                    w,
                    cfg,
                    &stream,
                    &segs,
                    seq,
                    limit(w),
                    &opts,
                    &what,
                );
            }
        }
    }
}

/// A random MPA stream: `n` ULPDUs of 0..`max` octets (a fifth of them up to `max`, the rest
/// up to 100), framed by the golden framer.
fn random_stream(r: &mut impl Rng, cfg: FramingConfig, n: usize, max: usize) -> Vec<u8> {
    let mut f = Framer::new(cfg).unwrap();
    let mut s = vec![];
    for _ in 0..n {
        let len = if r.gen_bool(0.2) { r.gen_range(0..=max) } else { r.gen_range(0..=100) };
        let u: Vec<u8> = (0..len).map(|_| r.gen()).collect();
        s.extend(f.frame(&u).unwrap());
    }
    s
}

fn random_cfg(r: &mut impl Rng) -> FramingConfig {
    FramingConfig {
        markers: r.gen_bool(0.6),
        crc: r.gen_bool(0.8),
        offset: r.gen_range(0..2048u32) * 4,
    }
}

/// Random streams, random segments, random settings; `faults` corrupts each stream first;
/// `retransmit` overlaps (up to 200 octets back) and duplicates segments
/// ([`with_retransmissions`]).
fn random_runs(
    engine: Engine,
    w: usize,
    seed: u64,
    runs: usize,
    opts: &PacketRun,
    faults: bool,
    retransmit: bool,
) {
    let mut r = rng(seed);
    for run in 0..runs {
        let cfg = random_cfg(&mut r);
        let seq: u32 =
            if r.gen_bool(0.5) { r.gen_range(u32::MAX - 20_000..=u32::MAX) } else { r.gen() };
        let n = r.gen_range(1..25);
        let mut stream = random_stream(&mut r, cfg, n, 4000);
        let mut what = format!("seed {seed} run {run} ({cfg:?}, seq {seq:#x})");
        if faults {
            what += &corrupt(&mut r, cfg, &mut stream);
        }
        let max_seg = if r.gen_bool(0.5) { 3000 } else { r.gen_range(1..64) };
        let mut segs = segments(&mut r, &stream, seq, max_seg, true);
        if retransmit {
            with_retransmissions(&mut r, &stream, seq, &mut segs, 200);
        }
        let run = check(engine, w, cfg, &stream, &segs, seq, limit(w), opts, &what);
        assert_eq!(run.pulses[0], 0, "{engine} W={w} {what}: no segment dropped for a gap");
    }
}

/// FPDU starts of a good stream.
fn fpdu_starts(cfg: FramingConfig, stream: &[u8]) -> Vec<usize> {
    golden::deframe::deframe_stream(cfg, stream)
        .ulpdus
        .iter()
        .map(|u| u.fpdu_offset as usize)
        .collect()
}

/// One fault: a flipped bit, a Marker's FPDUPTR, a ULPDU_Length (0, 0xFFFF, random) or a
/// truncated stream. Returns what it did.
fn corrupt(r: &mut impl Rng, cfg: FramingConfig, stream: &mut Vec<u8>) -> String {
    let starts = fpdu_starts(cfg, stream);
    let markers: Vec<usize> = (0..stream.len())
        .step_by(4)
        .filter(|&o| cfg.markers && (cfg.offset as usize + o) % 512 == 0)
        .collect();
    match r.gen_range(0..5) {
        0 if !stream.is_empty() => {
            let at = r.gen_range(0..stream.len());
            stream[at] ^= 1 << r.gen_range(0..8);
            format!(": bit flipped at {at}")
        }
        1 if !markers.is_empty() => {
            let m = markers[r.gen_range(0..markers.len())];
            stream[m + 2 + r.gen_range(0..2)] ^= 1 << r.gen_range(0..8);
            format!(": FPDUPTR of the Marker at {m}")
        }
        2 => {
            let f = starts[r.gen_range(0..starts.len())];
            let v: u16 = match r.gen_range(0..3) {
                0 => 0,
                1 => 0xFFFF,
                _ => r.gen(),
            };
            // The header's first two octets, unless a Marker sits there.
            let at = if markers.contains(&f) { f + 4 } else { f };
            stream[at..at + 2].copy_from_slice(&v.to_be_bytes());
            format!(": ULPDU_Length {v:#x} at {at}")
        }
        _ => {
            let keep = r.gen_range(0..stream.len());
            stream.truncate(keep);
            format!(": truncated to {keep}")
        }
    }
}

macro_rules! rx_tests {
    ($($name:ident: $engine:expr, $w:literal, $runs:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn vectors_as_one_segment() {
                vectors_at($engine, $w, false);
            }

            #[test]
            fn random_streams_and_segments() {
                random_runs($engine, $w, 100 + $w, $runs, &PacketRun::default(), false, false);
            }

            #[test]
            fn idle_and_backpressure() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.7, seed: 5 + $w },
                    backpressure: Pattern::Random { p: 0.6, seed: 6 + $w },
                    ..PacketRun::default()
                };
                random_runs($engine, $w, 200 + $w, $runs, &opts, false, false);
            }

            #[test]
            fn retransmissions_overlapping_what_was_taken_are_trimmed() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.8, seed: 7 + $w },
                    backpressure: Pattern::Random { p: 0.7, seed: 8 + $w },
                    ..PacketRun::default()
                };
                random_runs($engine, $w, 400 + $w, $runs, &opts, false, true);
            }

            #[test]
            fn faults_reported_as_the_golden_model_reports_them() {
                random_runs($engine, $w, 300 + $w, 2 * $runs, &PacketRun::default(), true, false);
            }
        }
    )*};
}

rx_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4, 6;
    rusthdl_w8: sim::Engine::RustHdl, 8, 6;
    rusthdl_w16: sim::Engine::RustHdl, 16, 6;
    rusthdl_w32: sim::Engine::RustHdl, 32, 4;
    rusthdl_w64: sim::Engine::RustHdl, 64, 4;
    verilator_w4: sim::Engine::Verilator, 4, 10;
    verilator_w8: sim::Engine::Verilator, 8, 10;
    verilator_w16: sim::Engine::Verilator, 16, 10;
    verilator_w32: sim::Engine::Verilator, 32, 10;
    verilator_w64: sim::Engine::Verilator, 64, 10;
}

#[test]
fn vectors_cut_at_every_octet() {
    // Every width on the exported Verilog (the model takes the vectors as one segment and
    // random cuts in the tests above, and cut at every octet at W = 8 in make test-long).
    for w in [4usize, 8, 16, 32, 64] {
        vectors_at(Engine::Verilator, w, true);
    }
}

/// The rust-hdl model at W = 8 with the vectors cut at every octet (30 s of the model's
/// speed): `make test-long`.
#[test]
#[ignore = "the rust-hdl model cut at every octet (30 s): make test-long"]
fn vectors_cut_at_every_octet_rusthdl_w8() {
    vectors_at(Engine::RustHdl, 8, true);
}

#[test]
fn ulpdu_length_above_the_limit_is_code_2_before_its_octets() {
    // The limit is the release buffer (16 KiB less one beat) or cfg_max_ulpdu, whichever is
    // lower; a ULPDU at the limit passes, one octet more is code 2 at that FPDU.
    let mut r = rng(9);
    for (w, engine) in [(4usize, Engine::RustHdl), (64, Engine::RustHdl), (8, Engine::Verilator)] {
        for lim in [limit(w), 1000] {
            let cfg = FramingConfig { markers: true, crc: true, offset: 0 };
            let mut f = Framer::new(cfg).unwrap();
            let mut stream = vec![];
            for len in [10usize, lim as usize, 20, lim as usize + 1, 30] {
                let u: Vec<u8> = (0..len).map(|_| r.gen()).collect();
                stream.extend(f.frame(&u).unwrap());
            }
            let seq = 0xFFFF_0000;
            let segs = segments(&mut r, &stream, seq, 3000, true);
            let run = check(
                engine,
                w,
                cfg,
                &stream,
                &segs,
                seq,
                lim,
                &PacketRun::default(),
                &format!("limit {lim}"),
            );
            assert_eq!(run.ulpdus.len(), 3, "W={w}: the ULPDU at the limit passes");
            assert_eq!(run.error.unwrap().code, 2, "W={w}");
            assert_eq!(run.pulses[3], 1, "W={w}: one drop");
        }
    }
    // cfg_max_ulpdu above the buffer is clamped to it.
    let w = 16;
    let cfg = FramingConfig { markers: false, crc: true, offset: 0 };
    let u = vec![7u8; limit(w) as usize + 1];
    let stream = Framer::new(cfg).unwrap().frame(&u).unwrap();
    let (want, err) = testbench::rx_check::expected(cfg, &stream, 0, limit(w));
    assert!(want.is_empty() && err.unwrap().code == 2);
    let mut sim = sim::rx::mpa_rx(Engine::RustHdl, w).unwrap();
    let settings =
        sim::rx::RxSettings { markers: false, crc: true, seq: 0, origin: 0, max_ulpdu: 0xFFFF };
    let run =
        sim::rx::run_rx(sim.as_mut(), &settings, &one_segment(&stream, 0), &PacketRun::default())
            .unwrap();
    assert!(run.ulpdus.is_empty());
    assert_eq!(run.error, err, "clamped to the buffer");
}

/// AXI4-Stream's convention (and AXI A3.2.1's rule): no combinational path from an input of
/// the exported `mpa_rx` to an output, `rst` aside (it forces `s_axis_tready` low in its
/// cycle). At every width on Verilator, random streams with idle and backpressure, every cycle
/// checked with every input flipped (`sim::comb_check`), and the ULPDUs the golden model's.
#[test]
fn outputs_do_not_follow_inputs_at_every_width() {
    let opts = PacketRun {
        idle: Pattern::Random { p: 0.7, seed: 3 },
        backpressure: Pattern::Random { p: 0.6, seed: 4 },
        ..PacketRun::default()
    };
    for w in hdl::export::WIDTHS {
        let mut model = sim::rx::mpa_rx(Engine::Verilator, w).unwrap();
        let mut sim = sim::comb_check::NoCombPaths::every_port(model.as_mut(), &["rst"]).unwrap();
        let mut r = rng(40 + w as u64);
        for run in 0..3 {
            let cfg = random_cfg(&mut r);
            let stream = random_stream(&mut r, cfg, 10, 600);
            let segs = segments(&mut r, &stream, 1000, 300, true);
            let what = format!("no comb paths, run {run}");
            check_on(&mut sim, "verilator", w, cfg, &stream, &segs, 1000, limit(w), &opts, &what);
        }
        assert!(sim.checked > 200, "W = {w}: {} cycles checked", sim.checked);
    }
}

#[test]
fn rate_at_every_width() {
    // Segment beats per cycle with one FPDU per segment: the delineator reads the next FPDU's
    // header beside its predecessor's last fragment, so an FPDU boundary costs no cycle and
    // 64-octet ULPDUs run at line rate too (issue 15's target: 0.95 at every W; README).
    for (w, floor_1448, floor_64) in
        [(4, 0.99, 0.98), (8, 0.99, 0.98), (16, 0.99, 0.98), (32, 0.99, 0.98), (64, 0.99, 0.98)]
    {
        let big = sim::rx::measure_rate(Engine::RustHdl, w, 1448, 20, true).unwrap();
        let small = sim::rx::measure_rate(Engine::RustHdl, w, 64, 100, true).unwrap();
        assert!(big >= floor_1448, "W={w}: {big:.3} beats/cycle with 1448-octet ULPDUs");
        assert!(small >= floor_64, "W={w}: {small:.3} beats/cycle with 64-octet ULPDUs");
    }
    // Sixteen 64-octet FPDUs per segment: the delineator's walk and its cutter take one cycle
    // per FPDU piece of a beat, so a beat holding pieces of two FPDUs takes two cycles and the
    // rate falls at wide W (issue 15's 0.95 met at W = 4 and 8, below it from W = 16; README).
    // These floors hold what is measured (1.000 / 0.954 / 0.847 / 0.753 / 0.637 since stop 61;
    // 0.999 / 0.946 / 0.828 / 0.712 / 0.564 from stop 43, 0.801 / 0.608 / 0.421 at W = 16 / 32 /
    // 64 before).
    for (w, floor) in [(4, 0.99), (8, 0.95), (16, 0.83), (32, 0.73), (64, 0.62)] {
        let packed = sim::rx::measure_rate_packed(Engine::RustHdl, w, 64, 96, 16, true).unwrap();
        assert!(packed >= floor, "W={w}: {packed:.3} beats/cycle, sixteen FPDUs per segment");
    }
}

#[test]
fn latency_from_last_octet_to_release() {
    // Measured and fixed here: the CRC engine's latency plus the blocks' registers. Since stop
    // 61 the delineator is the walker and the cutter (twelve cycles instead of three; 24 / 27 /
    // 29 / 31 / 33 for 64 octets before). At W = 16 to 64 the 1448-octet FPDU's beats take one
    // stall in the realigner's op register, so its last octet goes in a cycle earlier than the
    // model's flow would put it and its latency reads one cycle more.
    for (w, cycles_64, cycles_1448) in
        [(4, 33, 33), (8, 35, 35), (16, 37, 38), (32, 39, 40), (64, 41, 42)]
    {
        for (size, cycles) in [(64usize, cycles_64), (1448, cycles_1448)] {
            let l = sim::rx::measure_latency(Engine::RustHdl, w, size).unwrap();
            assert_eq!(l, cycles, "W={w}, {size}-octet ULPDU");
        }
        // An FPDU of one or two beats waits a cycle more in the CRC check.
        let l = sim::rx::measure_latency(Engine::RustHdl, w, 0).unwrap();
        assert!(l <= cycles_1448 + 1, "W={w}, empty ULPDU: {l} cycles");
    }
    assert_eq!(
        sim::rx::measure_latency(Engine::Verilator, 8, 100).unwrap(),
        35,
        "the exported Verilog"
    );
}

/// The rust-hdl model and the exported Verilog driven together at every W, every output
/// compared every cycle: random streams with faults, retransmissions, idle and backpressure,
/// also checked against the golden deframer.
#[test]
fn mpa_rx_engines_in_lockstep_at_every_width() {
    for w in hdl::export::WIDTHS {
        let mut a = sim::rx::mpa_rx(Engine::RustHdl, w).unwrap();
        let mut b = sim::rx::mpa_rx(Engine::Verilator, w).unwrap();
        let mut both = sim::lockstep::Lockstep::new(a.as_mut(), b.as_mut()).unwrap();
        let mut r = rng(300 + w as u64);
        let opts = PacketRun {
            idle: Pattern::Random { p: 0.7, seed: 31 + w as u64 },
            backpressure: Pattern::Random { p: 0.6, seed: 32 + w as u64 },
            ..PacketRun::default()
        };
        for run in 0..4 {
            let cfg = random_cfg(&mut r);
            let seq: u32 = r.gen_range(u32::MAX - 5000..=u32::MAX);
            let mut stream = random_stream(&mut r, cfg, 8, 2000);
            let mut what = format!("lockstep W={w} run {run} ({cfg:?})");
            if run % 2 == 1 {
                what += &corrupt(&mut r, cfg, &mut stream);
            }
            let mut segs = segments(&mut r, &stream, seq, 700, true);
            with_retransmissions(&mut r, &stream, seq, &mut segs, 100);
            check_on(&mut both, "lockstep", w, cfg, &stream, &segs, seq, limit(w), &opts, &what);
        }
        assert!(both.compared > 5_000, "W={w}: {} outputs compared", both.compared);
        assert!(
            both.mismatches.is_empty(),
            "W={w}: engines differ:\n{}",
            both.mismatches.join("\n")
        );
    }
}
