//! `RxMarkerStripper` (RFC 5044 4.2, 4.3, 6, 8): FPDU packets become ULPDU packets (Markers, header,
//! PAD and CRC removed) at every width on both engines with idle and backpressure, checked
//! against the golden framer's input; a wrong FPDUPTR is code 3, an upstream error keeps its
//! code, and nothing leaves after an error.

use golden::fpdu::FramingConfig;
use hdl::sideband::{RxFpduUser, RxUlpduUser};
use rand::Rng;
use sim::packet::{run_packets, InPacket, Packet, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::tx::framed_fpdus;

/// The error packet's sideband: `user` with the error flag and section 8 `code`.
fn with_error(user: u64, code: u64) -> u64 {
    RxUlpduUser { err: true, code, ..RxUlpduUser::unpack(user) }.pack()
}

struct Stream {
    ulpdus: Vec<Vec<u8>>,
    input: Vec<InPacket>,
    /// Stream offset of each FPDU.
    starts: Vec<usize>,
}

/// FPDU packets as the CRC check hands them on, for ULPDUs of random sizes.
fn stream(seed: u64, n: usize, max: usize, markers: bool, offset: u32, seq: u32) -> Stream {
    let mut r = rng(seed);
    let ulpdus: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = if r.gen_bool(0.2) { r.gen_range(0..=max) } else { r.gen_range(0..=100) };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect();
    stream_of(ulpdus, markers, offset, seq)
}

/// FPDU packets as the CRC check hands them on, for `ulpdus`.
fn stream_of(ulpdus: Vec<Vec<u8>>, markers: bool, offset: u32, seq: u32) -> Stream {
    let cfg = FramingConfig { markers, crc: true, offset };
    let mut at = 0usize;
    let mut starts = vec![];
    let input = framed_fpdus(cfg, &ulpdus)
        .into_iter()
        .map(|f| {
            let pos = offset.wrapping_add(at as u32);
            let to_mk = ((512 - pos % 512) % 512) / 4;
            let user = RxFpduUser {
                seq: seq.wrapping_add(at as u32) as u64,
                to_marker: to_mk as u64,
                markers,
                crc: true,
                ..Default::default()
            }
            .pack();
            starts.push(at);
            at += f.len();
            InPacket { data: f, user }
        })
        .collect();
    Stream { ulpdus, input, starts }
}

fn run(engine: Engine, w: usize, input: &[InPacket], opts: &PacketRun) -> (Vec<Packet>, u64) {
    let mut sim = sim::rx::marker_stripper(engine, w).unwrap();
    let opts = PacketRun { pulses: vec!["err_marker".into()], ..opts.clone() };
    let res = run_packets(sim.as_mut(), input, &opts).unwrap();
    (res.packets, res.pulse_counts[0])
}

fn good_user(s: &Stream, i: usize) -> u64 {
    let seq = RxFpduUser::unpack(s.input[i].user).seq;
    RxUlpduUser { seq, len: s.ulpdus[i].len() as u64, ..Default::default() }.pack()
}

fn check_clean(engine: Engine, w: usize, s: &Stream, opts: &PacketRun) {
    let (out, errs) = run(engine, w, &s.input, opts);
    assert_eq!(errs, 0, "{engine} W={w}");
    assert_eq!(out.len(), s.ulpdus.len(), "{engine} W={w}: ULPDU count");
    for (i, (p, u)) in out.iter().zip(&s.ulpdus).enumerate() {
        assert_eq!(p.data, *u, "{engine} W={w}: ULPDU {i} ({} octets)", u.len());
        assert!(
            p.users.iter().all(|&x| x == good_user(s, i)),
            "{engine} W={w}: ULPDU {i} sideband {:x?}",
            p.users
        );
    }
}

macro_rules! marker_stripper_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn ulpdus_from_every_marker_phase() {
                for (k, off) in [0u32, 4, 508, 504, 512 - $w as u32, 1000, 2044].into_iter().enumerate() {
                    let s = stream(k as u64 * 7 + $w, 40, 1500, true, off, u32::MAX - 3000);
                    check_clean($engine, $w, &s, &PacketRun::default());
                }
                let s = stream(5 + $w, 60, 3000, false, 0, 77);
                check_clean($engine, $w, &s, &PacketRun::default());
            }

            #[test]
            fn idle_and_backpressure() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.6, seed: 21 },
                    backpressure: Pattern::Random { p: 0.5, seed: 22 },
                    ..PacketRun::default()
                };
                let s = stream(40 + $w, 60, 1200, true, 500, 9);
                check_clean($engine, $w, &s, &opts);
            }
        }
    )*};
}

marker_stripper_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}

/// Marker offsets (in the FPDU packet) of FPDU `i`.
fn marker_offsets(s: &Stream, i: usize, offset: u32) -> Vec<usize> {
    let pos = offset as usize + s.starts[i];
    (0..s.input[i].data.len()).step_by(4).filter(|o| (pos + o) % 512 == 0).collect()
}

#[test]
fn wrong_fpduptr_is_code_3_and_ends_the_stream() {
    for (w, engine) in [
        (4, Engine::RustHdl),
        (8, Engine::RustHdl),
        (16, Engine::RustHdl),
        (64, Engine::RustHdl),
        (64, Engine::Verilator),
    ] {
        let off = 200u32;
        let s = stream(w as u64, 40, 2000, true, off, 0);
        let mut r = rng(w as u64 + 1);
        let with: Vec<usize> =
            (0..s.input.len()).filter(|&i| !marker_offsets(&s, i, off).is_empty()).collect();
        for _ in 0..4 {
            let i = with[r.gen_range(0..with.len())];
            let mo = marker_offsets(&s, i, off);
            let m = mo[r.gen_range(0..mo.len())];
            // The low two bits of FPDUPTR are ignored (4.2): flipping them changes nothing.
            let mut input = s.input.clone();
            input[i].data[m + 3] ^= 3;
            let (out, errs) = run(engine, w, &input, &PacketRun::default());
            assert_eq!((out.len(), errs), (s.ulpdus.len(), 0), "W={w}: low bits of FPDUPTR");
            input[i].data[m + 2] ^= 1 << r.gen_range(0..8);
            let (out, errs) = run(engine, w, &input, &PacketRun::default());
            assert_eq!(errs, 1, "W={w} FPDU {i} marker at {m}");
            assert_eq!(out.len(), i + 1, "W={w} FPDU {i}: nothing after the error");
            for (j, p) in out[..i].iter().enumerate() {
                assert_eq!(p.data, s.ulpdus[j]);
            }
            let last = out[i].users.last().unwrap();
            assert_eq!(*last, with_error(good_user(&s, i), 3), "W={w}: code 3");
            assert_eq!(out[i].data.len() % w, 0, "W={w}: the error beat is null");
        }
    }
}

#[test]
fn upstream_errors_keep_their_code() {
    for (w, code) in [(4usize, 1u64), (8, 2), (32, 2), (64, 1)] {
        let s = stream(3 * w as u64, 20, 700, true, 0, 5);
        let mut input = s.input.clone();
        input[7].user = RxFpduUser { err: true, code, ..RxFpduUser::unpack(input[7].user) }.pack();
        let (out, errs) = run(Engine::RustHdl, w, &input, &PacketRun::default());
        assert_eq!(errs, 0);
        assert_eq!(out.len(), 8, "W={w}");
        let got = RxUlpduUser::unpack(*out[7].users.last().unwrap());
        assert_eq!((got.err, got.code), (true, code), "W={w}");
    }
}

#[test]
fn zero_length_error_packet() {
    // The delineator's code 2 for a ULPDU_Length above the limit: a packet of no words.
    let s = stream(1, 5, 100, false, 0, 0);
    let mut input = s.input[..3].to_vec();
    let user = RxFpduUser { seq: 123, err: true, code: 2, ..Default::default() }.pack();
    input.push(InPacket { data: vec![], user });
    input.extend(s.input[3..].iter().cloned());
    let (out, _) = run(Engine::RustHdl, 8, &input, &PacketRun::default());
    assert_eq!(out.len(), 4);
    assert_eq!(out[3].data.len(), 0);
    assert_eq!(out[3].user(), RxUlpduUser { seq: 123, err: true, code: 2, len: 0 }.pack());
}

/// Several connections' FPDU packets interleaved through one stripper built with its context
/// record (DESIGN, "Connection state is explicit"; RFC 5044 B.2), driven by
/// [`testbench::interleave`]: each connection's beats cut into runs of 1 to 6 beats (a run
/// ends anywhere, inside an FPDU too); between runs of different connections, once
/// `ctx_idle` is high, the served connection's record and held lanes go to the test's table
/// and the next one's are loaded. Each connection must get exactly the ULPDU packets (octets,
/// every beat's sideband) and code-3 pulses it gets alone (through the rust-hdl model built
/// without the record): Markers on from three phases and
/// off, ten FPDUs that each begin with a leading Marker (their first beat a run of its own),
/// ULPDUs of 0 to 1500 octets, one wrong FPDUPTR (code 3, nothing after it), an upstream
/// code-2 packet. Returns the switches and the records saved with an FPDU open, with lanes
/// held and before the open FPDU's ULPDU_Length.
fn interleaved_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> (usize, usize, usize, usize) {
    use hdl::rx::marker_stripper::StripCtx;
    use sim::stream::{message_beats, Beat};
    use testbench::interleave::{assert_as_alone, run as run_interleaved, CtxConn, CtxPorts};
    let mut r = rng(seed);
    let offsets = [0u32, 200, 508, 1000];
    let mut inputs: Vec<Vec<InPacket>> = offsets
        .iter()
        .enumerate()
        .map(|(k, &off)| stream(seed * 10 + k as u64, 40, 1500, k != 3, off, 77 * k as u32).input)
        .collect();
    // Connection 0 starts with ten FPDUs of 512 octets from the Marker origin: each begins
    // with a leading Marker, and its first beat is sent as a run of its own (at W = 4 the
    // Marker alone: the record is saved with the ULPDU_Length still to come).
    let mut u0: Vec<Vec<u8>> = (0..10).map(|_| (0..502).map(|_| r.gen()).collect()).collect();
    u0.extend(stream(seed * 10, 30, 1500, true, 0, 0).ulpdus);
    inputs[0] = stream_of(u0, true, 0, 0).input;
    assert!(inputs[0][..10].iter().all(|p| p.data.len() == 512));
    // Connection 1: a wrong FPDUPTR in the first Marker of FPDU 20 or later.
    let s1 = stream(seed * 10 + 1, 40, 1500, true, 200, 77);
    let (i, m) = (20..40)
        .find_map(|i| marker_offsets(&s1, i, 200).first().map(|&m| (i, m)))
        .expect("a Marker in FPDUs 20 to 39");
    inputs[1][i].data[m + 2] ^= 0x40;
    // Connection 3: an upstream code 2 (the CRC check's) at FPDU 30.
    inputs[3][30].user =
        RxFpduUser { err: true, code: 2, ..RxFpduUser::unpack(inputs[3][30].user) }.pack();
    let alone: Vec<_> =
        inputs.iter().map(|i| run(Engine::RustHdl, w, i, &PacketRun::default())).collect();
    assert_eq!(alone[1].1, 1, "{engine} W={w}: connection 1 has a code 3");
    let words = (8 * w).div_ceil(64);
    let mut conns: Vec<CtxConn> = inputs
        .iter()
        .enumerate()
        .map(|(k, input)| {
            let lead = if k == 0 { 10 } else { 0 };
            let beats: Vec<Beat> = input[lead..]
                .iter()
                .flat_map(|p| message_beats(&p.data, w, p.user, 0x3C))
                .collect();
            let record = vec![vec![StripCtx::default().pack()], vec![0; words]];
            let mut c = CtxConn::new(&mut r, &beats, 6, record, vec![]);
            for p in input[..lead].iter().rev() {
                let mut first = message_beats(&p.data, w, p.user, 0x3C);
                let rest = first.split_off(1);
                c.runs.push_front(rest);
                c.runs.push_front(first);
            }
            c
        })
        .collect();
    let mut sim = sim::rx::marker_stripper_with_context(engine, w).unwrap();
    let sim = sim.as_mut();
    let ports = CtxPorts::find(
        sim,
        &[("ctx_in_0", "ctx_out_0"), ("ctx_words_in_0", "ctx_words_out_0")],
        "ctx_idle_0",
        true,
        None,
        &[],
        Some("err_marker"),
    );
    sim.set_u64(ports.load, 0);
    sim.reset(2).unwrap();
    let res = run_interleaved(sim, w, &ports, &mut conns, &mut r, idle, backpressure, 2_000_000);
    assert_as_alone(&format!("{engine} W={w}"), &conns, &alone);
    let recs: Vec<StripCtx> = res.saved.iter().map(|rec| StripCtx::unpack(rec[0][0])).collect();
    let open = recs.iter().filter(|c| c.mid).count();
    let held = recs.iter().filter(|c| c.mid && c.held > 0).count();
    let unseen = recs.iter().filter(|c| c.mid && !c.seen).count();
    (res.switches, open, held, unseen)
}

macro_rules! stripper_context_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        fn $name() {
            let (n, open, held, unseen) =
                interleaved_connections($engine, $w, 1, Pattern::Always, Pattern::Always);
            // At W = 4 a leading Marker's beat is that word alone: saved before the header.
            assert!(
                n >= 20 && open > 0 && held > 0 && ($w > 4 || unseen > 0),
                "{} W={}: {n} switches, {open} with an FPDU open, {held} with lanes held, {unseen} before its header",
                $engine, $w
            );
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            interleaved_connections($engine, $w, 4, idle, bp);
        }
    )*};
}

stripper_context_tests! {
    interleaved_connections_rusthdl_w4: Engine::RustHdl, 4;
    interleaved_connections_rusthdl_w8: Engine::RustHdl, 8;
    interleaved_connections_rusthdl_w16: Engine::RustHdl, 16;
    interleaved_connections_rusthdl_w32: Engine::RustHdl, 32;
    interleaved_connections_rusthdl_w64: Engine::RustHdl, 64;
    interleaved_connections_verilator_w8: Engine::Verilator, 8;
    interleaved_connections_verilator_w64: Engine::Verilator, 64;
}

/// The stripper built with its context ports (not a top, so not in `export.rs`'s lists) passes
/// Yosys `check -assert` and Verilator's lint with width warnings, at both ends of the widths.
#[test]
fn marker_stripper_with_context_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    use hdl::rx::marker_stripper::RxMarkerStripper;
    testbench::check_block_verilog_w4_w64!(
        "rx_marker_stripper_ctx",
        RxMarkerStripper,
        with_context
    );
}
