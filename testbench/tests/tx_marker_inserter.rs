//! `TxMarkerInserter` (RFC 5044 4.2, 4.3) against the golden framer: FPDUs around every Marker
//! position, random origins and sizes, at every width on both engines, idle and backpressure.

use golden::fpdu::FramingConfig;
use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::tx::{fpdu_user, framed_fpdus, plain_fpdu};

fn run(engine: Engine, w: usize, offset: u32, ulpdus: &[Vec<u8>], markers: bool, opts: PacketRun) {
    let packets: Vec<InPacket> = ulpdus
        .iter()
        .map(|u| InPacket { data: plain_fpdu(u), user: fpdu_user(u.len(), markers, false, false) })
        .collect();
    // The stream position is cfg_seq - cfg_origin; pick a sequence number that wraps.
    let seq = 0xFFFF_FF00u32;
    let origin = seq.wrapping_sub(offset);
    let mut sim = sim::tx::marker_inserter(engine, w).unwrap();
    let opts = PacketRun {
        settings: vec![("cfg_seq".into(), seq as u64), ("cfg_origin".into(), origin as u64)],
        pulses: vec!["cfg_misaligned".into()],
        ..opts
    };
    let res = run_packets(sim.as_mut(), &packets, &opts).unwrap();
    let want = framed_fpdus(FramingConfig { markers, crc: false, offset }, ulpdus);
    assert_eq!(res.packets.len(), want.len(), "{engine} W={w} offset {offset}: FPDU count");
    for (i, (p, f)) in res.packets.iter().zip(&want).enumerate() {
        assert_eq!(
            p.data,
            *f,
            "{engine} W={w} offset {offset}: FPDU {i} ({} octets of ULPDU)",
            ulpdus[i].len()
        );
        assert!(p.users.iter().all(|&u| u == packets[i].user), "{engine} W={w}: FPDU {i} sideband");
    }
    assert_eq!(res.pulse_counts, vec![0], "cfg_misaligned");
}

fn ulpdu(n: usize, tag: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31) ^ tag).collect()
}

/// FPDUs whose ends and starts fall on every word around the Marker positions.
fn around_markers(w: usize) -> Vec<(u32, Vec<Vec<u8>>)> {
    let mut cases = vec![];
    for offset in (0..512u32).step_by(4).filter(|o| *o < 4 * w as u32 + 8 || *o > 480) {
        cases.push((
            offset,
            vec![ulpdu(14, 1), ulpdu(490, 2), ulpdu(3, 3), ulpdu(1000, 4), ulpdu(0, 5)],
        ));
    }
    cases
}

fn random_stream(seed: u64, n: usize, max: usize) -> (u32, Vec<Vec<u8>>) {
    let mut r = rng(seed);
    let offset = r.gen_range(0..128u32) * 4;
    let u = (0..n)
        .map(|k| {
            let len = if r.gen_bool(0.3) { r.gen_range(500..=520) } else { r.gen_range(0..=max) };
            ulpdu(len, k as u8)
        })
        .collect();
    (offset, u)
}

macro_rules! inserter_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn fpdus_around_every_marker_position_match_golden() {
                for (offset, u) in around_markers($w) {
                    run($engine, $w, offset, &u, true, PacketRun::default());
                }
            }

            #[test]
            fn random_fpdus_with_idle_and_backpressure_match_golden() {
                for seed in 0..3 {
                    let (offset, u) = random_stream(seed * 100 + $w, 40, 1200);
                    let opts = PacketRun {
                        idle: Pattern::Random { p: 0.8, seed },
                        backpressure: Pattern::Random { p: 0.7, seed: seed + 50 },
                        ..PacketRun::default()
                    };
                    run($engine, $w, offset, &u, true, opts);
                }
            }

            /// FPDUs of 8,200 to 9,000 octets (16 Markers or more each), with idle cycles and
            /// backpressure: the Markers' count in an FPDU wraps modulo W/4 and fills `acc`
            /// with a beat of Markers at every W (at W = 64, `rd` and `re` wrap).
            #[test]
            fn long_fpdus_with_many_markers_match_golden() {
                let mut r = rng(700 + $w);
                let offset = r.gen_range(0..128u32) * 4;
                let u: Vec<Vec<u8>> =
                    (0..10).map(|k| ulpdu(r.gen_range(8200..=9000), k as u8)).collect();
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.8, seed: 3 },
                    backpressure: Pattern::Random { p: 0.7, seed: 4 },
                    ..PacketRun::default()
                };
                run($engine, $w, offset, &u, true, opts);
            }

            #[test]
            fn markers_off_passes_fpdus_unchanged() {
                let (offset, u) = random_stream(9 + $w, 20, 700);
                run($engine, $w, offset, &u, false, PacketRun::default());
            }
        }
    )*};
}

inserter_tests! {
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
fn misaligned_stream_position_is_flagged() {
    let mut sim = sim::tx::marker_inserter(Engine::RustHdl, 8).unwrap();
    let opts = PacketRun {
        settings: vec![("cfg_seq".into(), 1002), ("cfg_origin".into(), 1000)],
        ..PacketRun::default()
    };
    run_packets(sim.as_mut(), &[], &opts).unwrap();
    let p = sim.port("cfg_misaligned").unwrap();
    assert_eq!(sim.get_u64(p), 1);
}
