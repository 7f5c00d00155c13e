//! `RxDelineator` (RFC 5044 section 6): the in-order word stream becomes one packet per FPDU,
//! Markers inside the FPDU's span included, checked against the golden framer's FPDUs at every
//! width on both engines with idle and backpressure; a ULPDU_Length above the limit ends the
//! stream with code 2, a stream ending inside an FPDU with code 1.

use golden::fpdu::FramingConfig;
use hdl::sideband::RxFpduUser;
use rand::Rng;
use sim::packet::{run_packets, Packet, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::rx::word_stream;
use testbench::tx::framed_fpdus;

/// The ULPDU limit of RFC 5044 section 3, as the `cfg_max_ulpdu` value that accepts every length.
const ULPDU_MAX: u64 = golden::mulpdu::ULPDU_MAX as u64;
/// `user` as an error packet with section 8 `code`.
fn with_error(user: u64, code: u64) -> u64 {
    RxFpduUser { err: true, code, ..RxFpduUser::unpack(user) }.pack()
}

/// The error flag and code of a sideband.
fn error_of(user: u64) -> (bool, u64) {
    let f = RxFpduUser::unpack(user);
    (f.err, f.code)
}

struct Case {
    markers: bool,
    crc: bool,
    /// Stream position of the first FPDU (from the marker origin).
    offset: u32,
    seq: u32,
    max_ulpdu: u64,
}

impl Case {
    fn settings(&self) -> Vec<(String, u64)> {
        vec![
            ("cfg_seq".into(), self.seq as u64),
            ("cfg_origin".into(), self.seq.wrapping_sub(self.offset) as u64),
            ("cfg_markers".into(), self.markers as u64),
            ("cfg_crc".into(), self.crc as u64),
            ("cfg_max_ulpdu".into(), self.max_ulpdu),
        ]
    }

    /// The sideband of an FPDU starting `at` octets into the stream.
    fn user(&self, at: usize) -> u64 {
        let pos = self.offset.wrapping_add(at as u32);
        let to_mk = ((512 - pos % 512) % 512) / 4;
        RxFpduUser {
            seq: self.seq.wrapping_add(at as u32) as u64,
            to_marker: to_mk as u64,
            markers: self.markers,
            crc: self.crc,
            ..Default::default()
        }
        .pack()
    }
}

/// Runs `input` (word-stream packets) through the delineator.
fn run_input(
    engine: Engine,
    w: usize,
    case: &Case,
    input: &[sim::packet::InPacket],
    opts: PacketRun,
) -> Vec<Packet> {
    let mut sim = sim::rx::delineator(engine, w).unwrap();
    let opts = PacketRun { settings: case.settings(), ..opts };
    run_packets(sim.as_mut(), input, &opts).unwrap().packets
}

/// Runs the word stream of `stream` through the delineator.
fn run(
    engine: Engine,
    w: usize,
    case: &Case,
    stream: &[u8],
    lost: bool,
    seed: u64,
    opts: PacketRun,
) -> Vec<Packet> {
    let mut sim = sim::rx::delineator(engine, w).unwrap();
    let mut r = rng(seed);
    let input = word_stream(&mut r, stream, w, lost);
    let opts = PacketRun { settings: case.settings(), ..opts };
    run_packets(sim.as_mut(), &input, &opts).unwrap().packets
}

/// Every packet carries one sideband value on all its beats.
fn assert_uniform(p: &Packet) {
    assert!(
        p.users.iter().all(|&u| u == p.users[0]),
        "sideband changes inside a packet: {:x?}",
        p.users
    );
}

fn ulpdus(seed: u64, n: usize, max: usize) -> Vec<Vec<u8>> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| {
            let len =
                if r.gen_bool(0.1) { r.gen_range(0..=max) } else { r.gen_range(0..=max.min(200)) };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect()
}

fn check_fpdus(
    engine: Engine,
    w: usize,
    case: &Case,
    seed: u64,
    n: usize,
    max: usize,
    opts: PacketRun,
) {
    let cfg = FramingConfig { markers: case.markers, crc: case.crc, offset: case.offset };
    let fpdus = framed_fpdus(cfg, &ulpdus(seed, n, max));
    let stream: Vec<u8> = fpdus.concat();
    let out = run(engine, w, case, &stream, false, seed, opts);
    assert_eq!(out.len(), fpdus.len(), "{engine} W={w}: FPDU count");
    let mut at = 0usize;
    for (i, (p, f)) in out.iter().zip(&fpdus).enumerate() {
        assert_uniform(p);
        assert_eq!(p.data, *f, "{engine} W={w}: FPDU {i} ({} octets) at {at}", f.len());
        assert_eq!(p.user(), case.user(at), "{engine} W={w}: FPDU {i} sideband");
        at += f.len();
    }
}

macro_rules! delineator_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn fpdus_with_markers_from_every_start() {
                // Offsets that put the first FPDU on a Marker, right before one, anywhere.
                for (k, off) in [0u32, 4, 508, 504, 512 - 4 * ($w as u32 / 4), 1000, 2044].into_iter().enumerate() {
                    let case = Case { markers: true, crc: k % 2 == 0, offset: off, seq: 7u32.wrapping_sub(off) ^ 0x8000_0000, max_ulpdu: ULPDU_MAX };
                    check_fpdus($engine, $w, &case, k as u64 * 31 + $w, 40, 1500, PacketRun::default());
                }
            }

            #[test]
            fn fpdus_without_markers() {
                let case = Case { markers: false, crc: true, offset: 12, seq: u32::MAX - 40, max_ulpdu: ULPDU_MAX };
                check_fpdus($engine, $w, &case, 3 + $w, 60, 3000, PacketRun::default());
            }

            #[test]
            fn idle_and_backpressure() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.6, seed: 11 },
                    backpressure: Pattern::Random { p: 0.5, seed: 12 },
                    ..PacketRun::default()
                };
                let case = Case { markers: true, crc: true, offset: 496, seq: 1234, max_ulpdu: ULPDU_MAX };
                check_fpdus($engine, $w, &case, 99 + $w, 60, 900, opts);
            }
        }
    )*};
}

delineator_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}

#[test]
fn ulpdu_length_above_the_limit_ends_the_stream_with_code_2() {
    for w in [4, 8, 16, 64] {
        for markers in [false, true] {
            let case = Case { markers, crc: true, offset: 0, seq: 0, max_ulpdu: 100 };
            let cfg = FramingConfig { markers, crc: true, offset: 0 };
            let mut us = ulpdus(5, 6, 100);
            us[4] = vec![1; 101];
            let fpdus = framed_fpdus(cfg, &us);
            let stream = fpdus.concat();
            let out = run(Engine::RustHdl, w, &case, &stream, false, 1, PacketRun::default());
            assert_eq!(out.len(), 5, "W={w} markers={markers}: four FPDUs and the error");
            for (p, f) in out.iter().zip(&fpdus[..4]) {
                assert_eq!(p.data, *f);
            }
            let at: usize = fpdus[..4].iter().map(|f| f.len()).sum();
            let e = &out[4];
            assert_eq!(e.data.len(), 0, "W={w}: the error packet carries no words");
            assert_eq!(
                e.user(),
                with_error(case.user(at), 2),
                "W={w}: code 2 at the FPDU's sequence number"
            );
        }
    }
}

/// The FPDU with a ULPDU_Length above the limit starting at every word position from the
/// marker origin, so that it also starts with a Marker: with its header in the same beat and,
/// where the Marker is a beat's last word, in the next beat. The error carries the FPDU's own
/// sequence number and Marker distance (the Marker's, not the header's); its words are none or,
/// when the Marker was taken before the header was read, that Marker (the packet is not an
/// FPDU, as a code-1 packet's words are not).
#[test]
fn ulpdu_length_above_the_limit_at_every_marker_phase() {
    for w in [4, 8, 16, 64] {
        let (mut on_marker, mut taken_marker) = (0, 0);
        for off in (0..512u32).step_by(4) {
            let case = Case { markers: true, crc: true, offset: off, seq: 77, max_ulpdu: 100 };
            let cfg = FramingConfig { markers: true, crc: true, offset: off };
            let mut us = ulpdus(6, 6, 100);
            us[4] = vec![2; 101];
            let fpdus = framed_fpdus(cfg, &us);
            let stream = fpdus.concat();
            let out =
                run(Engine::RustHdl, w, &case, &stream, false, off as u64, PacketRun::default());
            assert_eq!(out.len(), 5, "W={w} offset {off}: four FPDUs and the error");
            for (p, f) in out.iter().zip(&fpdus[..4]) {
                assert_eq!(p.data, *f, "W={w} offset {off}");
            }
            let at: usize = fpdus[..4].iter().map(|f| f.len()).sum();
            let e = &out[4];
            let marker = (off as usize + at) % 512 == 0;
            if marker {
                on_marker += 1;
            }
            // Its words: none, or the leading Marker when it was taken before the header.
            assert!(
                e.data.is_empty() || (marker && e.data == stream[at..at + 4]),
                "W={w} offset {off}: the error packet's words {:x?}",
                e.data
            );
            assert_eq!(
                *e.users.last().unwrap(),
                with_error(case.user(at), 2),
                "W={w} offset {off}: code 2 with the FPDU's sideband (on a Marker: {marker})"
            );
            if !e.data.is_empty() {
                taken_marker += 1;
            }
        }
        assert!(on_marker > 0, "W={w}: no offset put the bad FPDU on a Marker");
        if w == 4 {
            // A Marker is a whole beat: it goes before the header is read.
            assert_eq!(taken_marker, on_marker, "W=4: the Marker went out before the error");
        }
    }
}

#[test]
fn stream_ending_inside_an_fpdu_ends_with_code_1() {
    for w in [4, 8, 32] {
        let case = Case { markers: true, crc: true, offset: 0, seq: 100, max_ulpdu: ULPDU_MAX };
        let cfg = FramingConfig { markers: true, crc: true, offset: 0 };
        let fpdus = framed_fpdus(cfg, &ulpdus(8, 12, 700));
        let whole: Vec<u8> = fpdus.concat();
        let mut r = rng(w as u64);
        for _ in 0..6 {
            // Cut inside the 10th FPDU, on a word boundary (the realigner hands on whole words).
            let start: usize = fpdus[..9].iter().map(|f| f.len()).sum();
            let cut = start + 4 * r.gen_range(1..fpdus[9].len() / 4);
            let out = run(
                Engine::RustHdl,
                w,
                &case,
                &whole[..cut],
                true,
                cut as u64,
                PacketRun::default(),
            );
            assert_eq!(out.len(), 10, "W={w} cut {cut}");
            for (p, f) in out.iter().zip(&fpdus[..9]) {
                assert_eq!(p.data, *f);
            }
            let e = &out[9];
            assert_eq!(e.data, whole[start..cut], "W={w} cut {cut}: the partial FPDU's words");
            assert_eq!(
                *e.users.last().unwrap(),
                with_error(case.user(start), 1),
                "W={w} cut {cut}"
            );
        }
        // The stream ends on an FPDU boundary, but with octets of a word lost: a null error.
        let out = run(Engine::RustHdl, w, &case, &whole, true, 3, PacketRun::default());
        assert_eq!(out.len(), 13, "W={w}: the FPDUs and the error");
        assert_eq!(out[12].data.len(), 0);
        assert_eq!(error_of(out[12].user()), (true, 1));
        // And a clean end: no error.
        let out = run(Engine::RustHdl, w, &case, &whole, false, 3, PacketRun::default());
        assert_eq!(out.len(), 12, "W={w}: a clean end");
    }
}

/// A stream cut a few words into an FPDU, at every FPDU of a run of short ones, at every W and
/// with output backpressure: its predecessors whole, then the code-1 packet with the cut FPDU's
/// words. Short FPDUs make the cut FPDU often the successor of one whose last fragment left a
/// tail, so its first fragment went in while that tail was leaving (the delineator's closing
/// cycle) or waited behind it. The rust-hdl model at every W (one word and one beat in), the
/// exported Verilog on Verilator at W = 8 and 64 (one word in).
#[test]
fn stream_cut_just_after_each_fpdu_boundary_ends_with_code_1() {
    for w in [4, 8, 16, 32, 64] {
        cut_after_each_boundary(Engine::RustHdl, w, &[1, w / 4]);
    }
}

#[test]
fn stream_cut_just_after_each_fpdu_boundary_ends_with_code_1_verilator() {
    for w in [8, 64] {
        cut_after_each_boundary(Engine::Verilator, w, &[1]);
    }
}

fn cut_after_each_boundary(engine: Engine, w: usize, cuts: &[usize]) {
    let case = Case { markers: false, crc: true, offset: 0, seq: 5, max_ulpdu: ULPDU_MAX };
    let cfg = FramingConfig { markers: false, crc: true, offset: 0 };
    let fpdus = framed_fpdus(cfg, &ulpdus(21, 24, 120));
    let whole: Vec<u8> = fpdus.concat();
    let opts = PacketRun {
        backpressure: Pattern::Random { p: 0.4, seed: w as u64 },
        ..PacketRun::default()
    };
    let mut start = 0usize;
    for (k, f) in fpdus.iter().enumerate() {
        for &words in cuts {
            let cut = start + 4 * words.min(f.len() / 4 - 1).max(1);
            let out = run(engine, w, &case, &whole[..cut], false, k as u64, opts.clone());
            let tag = format!("{engine} W={w} FPDU {k} cut {cut}");
            assert_eq!(out.len(), k + 1, "{tag}: packets");
            for (i, (p, g)) in out.iter().zip(&fpdus[..k]).enumerate() {
                assert_uniform(p);
                assert_eq!(p.data, *g, "{tag}: FPDU {i}");
                assert_eq!(p.user(), case.user(fpdus[..i].iter().map(|f| f.len()).sum()), "{tag}");
            }
            let e = &out[k];
            assert_eq!(e.data, whole[start..cut], "{tag}: the partial FPDU");
            assert_eq!(*e.users.last().unwrap(), with_error(case.user(start), 1), "{tag}");
        }
        start += f.len();
    }
}

#[test]
fn input_after_the_error_is_dropped() {
    let case = Case { markers: false, crc: true, offset: 0, seq: 0, max_ulpdu: 50 };
    let cfg = FramingConfig { markers: false, crc: true, offset: 0 };
    let mut us = ulpdus(2, 30, 50);
    us[1] = vec![0; 51];
    let stream = framed_fpdus(cfg, &us).concat();
    let out = run(Engine::RustHdl, 8, &case, &stream, false, 4, PacketRun::default());
    assert_eq!(out.len(), 2);
    assert_eq!(error_of(out[1].user()), (true, 2));
}

/// The stream's FIN on a beat of its own with no words (the realigner sends one when a FIN
/// segment carries nothing new): at an FPDU boundary no error; with octets of a word lost a
/// null code-1 packet; after a cut inside an FPDU a code-1 packet with that FPDU's words. At
/// every W on the rust-hdl model and at W = 8 on Verilator, with backpressure.
#[test]
fn stream_ending_with_an_empty_fin_beat() {
    use hdl::sideband::RxWordUser;
    let mut runs: Vec<(Engine, usize)> = [4, 8, 16, 32, 64].map(|w| (Engine::RustHdl, w)).to_vec();
    runs.push((Engine::Verilator, 8));
    for (engine, w) in runs {
        let case = Case { markers: true, crc: true, offset: 40, seq: 9, max_ulpdu: ULPDU_MAX };
        let cfg = FramingConfig { markers: true, crc: true, offset: 40 };
        let fpdus = framed_fpdus(cfg, &ulpdus(31, 10, 300));
        let whole: Vec<u8> = fpdus.concat();
        let start: usize = fpdus[..6].iter().map(|f| f.len()).sum();
        let cut = start + 8;
        let opts = PacketRun {
            backpressure: Pattern::Random { p: 0.3, seed: w as u64 },
            ..PacketRun::default()
        };
        for (stream, lost, n_fpdus) in
            [(&whole[..], false, 10), (&whole[..], true, 10), (&whole[..cut], false, 6)]
        {
            let tag = format!("{engine} W={w} {} octets, lost {lost}", stream.len());
            let mut input = word_stream(&mut rng(w as u64 + 5), stream, w, false);
            input.last_mut().unwrap().user = 0;
            input.push(sim::packet::InPacket {
                data: vec![],
                user: RxWordUser { fin: true, lost }.pack(),
            });
            let out = run_input(engine, w, &case, &input, opts.clone());
            for (i, (p, f)) in out.iter().zip(&fpdus[..n_fpdus]).enumerate() {
                assert_eq!(p.data, *f, "{tag}: FPDU {i}");
                assert_eq!(error_of(p.user()), (false, 0), "{tag}: FPDU {i}");
            }
            let errors = usize::from(lost || n_fpdus < fpdus.len());
            assert_eq!(out.len(), n_fpdus + errors, "{tag}: packets");
            if errors == 1 {
                let e = out.last().unwrap();
                assert_eq!(error_of(*e.users.last().unwrap()), (true, 1), "{tag}: code 1");
                let words = if lost { &[][..] } else { &whole[start..cut] };
                assert_eq!(e.data, words, "{tag}: the error packet's words");
            }
        }
    }
}

/// Several connections' word streams (the realigner's packets: one per segment) interleaved
/// packet by packet through one delineator built with its context records (DESIGN,
/// "Connection state is explicit"; RFC 5044 B.2), driven by [`testbench::interleave`]:
/// between packets of different connections, once the delineator is not `busy`, the served
/// connection's walker record, cutter record and held words are read out into the test's
/// table and the next one's loaded with its `cfg_markers`, `cfg_crc` and `cfg_max_ulpdu`.
/// FPDUs span packets, so a switch often leaves an FPDU open with words held, which its next
/// packet completes after other connections' FPDUs. Each connection must get exactly the
/// packets (octets and every beat's sideband) it gets alone (through the rust-hdl model built
/// without records): Markers on from three origins and
/// off, CRC on and off, a ULPDU_Length above the limit (code 2, nothing after it), a stream
/// ending inside an FPDU (code 1). Records with random contents offered while beats are inside
/// must change nothing. Returns the switches made and the records saved with an FPDU open,
/// with words held and ended.
fn interleaved_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> (usize, usize, usize, usize) {
    use hdl::rx::delineator::{CutCtx, WalkCtx};
    use sim::stream::message_beats;
    use testbench::interleave::{assert_as_alone, run as run_interleaved, CtxConn, CtxPorts};
    let mut r = rng(seed);
    let cases = [
        Case { markers: true, crc: true, offset: 508, seq: 0x1234_5678, max_ulpdu: ULPDU_MAX },
        Case { markers: false, crc: false, offset: 12, seq: u32::MAX - 40, max_ulpdu: ULPDU_MAX },
        Case { markers: true, crc: true, offset: 0, seq: 77, max_ulpdu: 250 },
        Case { markers: true, crc: false, offset: 1000, seq: 5, max_ulpdu: ULPDU_MAX },
    ];
    let words = (8 * w).div_ceil(64);
    let mut alone = vec![];
    let mut conns: Vec<CtxConn> = cases
        .iter()
        .enumerate()
        .map(|(k, case)| {
            let cfg = FramingConfig { markers: case.markers, crc: case.crc, offset: case.offset };
            let mut ulps = ulpdus(seed * 10 + k as u64, 30, 400);
            if k == 2 {
                // Above connection 2's limit (250).
                ulps[20] = (0..300).map(|_| r.gen()).collect();
            }
            if k < 2 {
                // FPDUs of 60,000 octets in two connections at once, open across switches:
                // the cutter's `back` (words since the open FPDU's start) goes past 10,000.
                ulps[1] = (0..60_000).map(|_| r.gen()).collect();
            }
            let mut stream: Vec<u8> = framed_fpdus(cfg, &ulps).concat();
            if k == 3 {
                // The stream ends inside an FPDU: code 1 with its words so far.
                stream.truncate(stream.len() - 8);
            }
            let input = word_stream(&mut r, &stream, w, false);
            alone.push((run_input(Engine::RustHdl, w, case, &input, PacketRun::default()), 0));
            let origin = case.seq.wrapping_sub(case.offset);
            let record = vec![
                vec![WalkCtx::fresh(case.seq, origin).pack()],
                vec![CutCtx::fresh(case.seq, origin).pack()],
                vec![0; words],
            ];
            let settings = vec![case.markers as u64, case.crc as u64, case.max_ulpdu];
            let runs = input.iter().map(|p| message_beats(&p.data, w, p.user, 0x5A)).collect();
            CtxConn::with_runs(runs, record, settings)
        })
        .collect();
    let end_code = |a: &(Vec<Packet>, u64)| error_of(*a.0.last().unwrap().users.last().unwrap());
    assert_eq!(end_code(&alone[2]), (true, 2), "{engine} W={w}: connection 2 ends with code 2");
    assert_eq!(end_code(&alone[3]), (true, 1), "{engine} W={w}: connection 3 ends with code 1");
    let mut sim = sim::rx::delineator_with_context(engine, w).unwrap();
    let sim = sim.as_mut();
    let ports = CtxPorts::find(
        sim,
        &[
            ("ctx_walk_in_0", "ctx_walk_out_0"),
            ("ctx_cut_in_0", "ctx_cut_out_0"),
            ("ctx_words_in_0", "ctx_words_out_0"),
        ],
        "busy",
        false,
        None,
        &["cfg_markers", "cfg_crc", "cfg_max_ulpdu"],
        None,
    );
    // Reset to an unrelated stream: every connection's records are loaded before its words.
    for (n, v) in [("cfg_seq", 999), ("cfg_origin", 0), ("cfg_markers", 1), ("cfg_max_ulpdu", 9)] {
        let p = sim.port(n).unwrap();
        sim.set_u64(p, v);
    }
    sim.set_u64(ports.load, 0);
    sim.reset(2).unwrap();
    let res = run_interleaved(sim, w, &ports, &mut conns, &mut r, idle, backpressure, 2_000_000);
    assert_as_alone(&format!("{engine} W={w}"), &conns, &alone);
    let recs: Vec<CutCtx> = res.saved.iter().map(|rec| CutCtx::unpack(rec[1][0])).collect();
    let open = recs.iter().filter(|c| c.open).count();
    let held = recs.iter().filter(|c| c.held > 0).count();
    let dead = recs.iter().filter(|c| c.dead).count();
    assert!(
        recs.iter().any(|c| c.open && c.back > 10_000),
        "{engine} W={w}: a record saved more than 10,000 words into an FPDU"
    );
    (res.switches, open, held, dead)
}

macro_rules! delineator_context_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        fn $name() {
            let (n, open, held, dead) =
                interleaved_connections($engine, $w, 1, Pattern::Always, Pattern::Always);
            assert!(n >= 20, "{} W={}: only {n} switches", $engine, $w);
            // Words are held only where a beat has more than one (W > 4).
            assert!(
                open > 0 && (held > 0) == ($w > 4) && dead > 0,
                "{} W={}: records saved with an FPDU open {open}, words held {held}, ended {dead}",
                $engine, $w
            );
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            interleaved_connections($engine, $w, 4, idle, bp);
        }
    )*};
}

delineator_context_tests! {
    interleaved_connections_rusthdl_w4: Engine::RustHdl, 4;
    interleaved_connections_rusthdl_w8: Engine::RustHdl, 8;
    interleaved_connections_rusthdl_w16: Engine::RustHdl, 16;
    interleaved_connections_rusthdl_w32: Engine::RustHdl, 32;
    interleaved_connections_rusthdl_w64: Engine::RustHdl, 64;
    interleaved_connections_verilator_w8: Engine::Verilator, 8;
    interleaved_connections_verilator_w64: Engine::Verilator, 64;
}

/// The delineator built with its context ports (not a top, so not in `export.rs`'s lists)
/// passes Yosys `check -assert` and Verilator's lint with width warnings, at both ends of the
/// widths.
#[test]
fn delineator_with_context_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    use hdl::rx::delineator::RxDelineator;
    testbench::check_block_verilog_w4_w64!("rx_delineator_ctx", RxDelineator, with_context);
}
