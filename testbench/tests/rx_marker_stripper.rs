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
