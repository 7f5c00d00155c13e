//! `TxSegmenter` (RFC 5044 5.1, A.1) against `golden::segment::segment_fpdus_with_push`: FPDUs
//! framed by the golden model in, segments out with their sequence numbers, for EMSS values
//! around the FPDU sizes, oversize FPDUs, push, sequence numbers that wrap, at every width on
//! both engines, idle and backpressure.

use golden::fpdu::FramingConfig;
use golden::segment::{effective_emss, segment_fpdus_with_push};
use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::tx::{fpdu_user, framed_fpdus};

struct Stream {
    offset: u32,
    markers: bool,
    ulpdus: Vec<Vec<u8>>,
    push: Vec<bool>,
}

fn run(engine: Engine, w: usize, st: &Stream, emss: u32, seq: u32, opts: PacketRun) {
    let cfg = FramingConfig { markers: st.markers, crc: true, offset: st.offset };
    let fpdus = framed_fpdus(cfg, &st.ulpdus);
    let packets: Vec<InPacket> = fpdus
        .iter()
        .zip(&st.ulpdus)
        .zip(&st.push)
        .map(|((f, u), &p)| InPacket {
            data: f.clone(),
            user: fpdu_user(u.len(), st.markers, true, p),
        })
        .collect();
    let flagged: Vec<(&Vec<u8>, bool)> = fpdus.iter().zip(st.push.iter().copied()).collect();
    let want = segment_fpdus_with_push(&flagged, effective_emss(emss), seq).unwrap();
    let origin = seq.wrapping_sub(st.offset);
    let mut sim = sim::tx::segmenter(engine, w).unwrap();
    let opts = PacketRun {
        settings: vec![
            ("cfg_emss".into(), emss as u64),
            ("cfg_seq".into(), seq as u64),
            ("cfg_origin".into(), origin as u64),
        ],
        pulses: vec!["oversize".into()],
        ..opts
    };
    let res = run_packets(sim.as_mut(), &packets, &opts).unwrap();
    let what = format!("{engine} W={w} EMSS {emss} offset {} markers {}", st.offset, st.markers);
    let got: Vec<(u32, usize)> =
        res.packets.iter().map(|p| (p.user() as u32, p.data.len())).collect();
    let exp: Vec<(u32, usize)> = want.segments.iter().map(|s| (s.seq, s.payload.len())).collect();
    assert_eq!(got, exp, "{what}: segments (seq, length)");
    for (i, (p, s)) in res.packets.iter().zip(&want.segments).enumerate() {
        assert_eq!(p.data, s.payload, "{what}: segment {i}");
        assert!(p.users.iter().all(|&u| u == p.user()), "{what}: segment {i} sideband changes");
    }
    assert_eq!(res.pulse_counts, vec![want.oversize_fpdus as u64], "{what}: oversize FPDUs");
}

fn stream(seed: u64, n: usize, max: usize, markers: bool, push_p: f64) -> Stream {
    let mut r = rng(seed);
    let offset = r.gen_range(0..128u32) * 4;
    let ulpdus: Vec<Vec<u8>> =
        (0..n).map(|_| (0..r.gen_range(0..=max)).map(|_| r.gen()).collect()).collect();
    let mut push: Vec<bool> = (0..n).map(|_| r.gen_bool(push_p)).collect();
    *push.last_mut().unwrap() = true;
    Stream { offset, markers, ulpdus, push }
}

macro_rules! segmenter_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn small_fpdus_pack_into_segments_like_golden() {
                for (k, emss) in [128u32, 131, 200, 536, 1460].into_iter().enumerate() {
                    let st = stream(k as u64 * 7 + $w, 40, 150, k % 2 == 0, 0.1);
                    run($engine, $w, &st, emss, 1000 + k as u32 * 4, PacketRun::default());
                }
            }

            #[test]
            fn oversize_fpdus_are_cut_at_multiples_of_four() {
                for (k, emss) in [128u32, 257, 1461].into_iter().enumerate() {
                    let st = stream(k as u64 + 50 + $w, 12, 2200, true, 0.2);
                    run($engine, $w, &st, emss, u32::MAX - 40, PacketRun::default());
                }
            }

            /// Oversize FPDUs cut under idle cycles and backpressure: a cut beat's second
            /// fragment waits in F3 (`f3_rest` at W = 64).
            #[test]
            fn oversize_fpdus_cut_under_idle_and_backpressure_match_golden() {
                for (k, emss) in [128u32, 257].into_iter().enumerate() {
                    let opts = PacketRun {
                        idle: Pattern::Random { p: 0.7, seed: 7 + k as u64 },
                        backpressure: Pattern::Random { p: 0.6, seed: 9 + k as u64 },
                        ..PacketRun::default()
                    };
                    let st = stream(k as u64 + 60 + $w, 12, 2200, true, 0.2);
                    run($engine, $w, &st, emss, u32::MAX - 40, opts);
                }
            }

            #[test]
            fn segments_with_idle_and_backpressure_match_golden() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.7, seed: 5 },
                    backpressure: Pattern::Random { p: 0.6, seed: 6 },
                    ..PacketRun::default()
                };
                let st = stream(90 + $w, 40, 700, true, 0.15);
                run($engine, $w, &st, 1024, 77 * 4, opts);
            }
        }
    )*};
}

segmenter_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}

#[test]
fn emss_below_128_counts_as_128_and_push_closes_segments() {
    let st = Stream {
        offset: 0,
        markers: false,
        ulpdus: vec![vec![1; 20], vec![2; 20], vec![3; 20], vec![4; 100], vec![5; 8]],
        push: vec![false, true, false, false, true],
    };
    run(Engine::RustHdl, 8, &st, 10, 0, PacketRun::default());
}
