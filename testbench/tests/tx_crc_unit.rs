//! `TxCrcUnit` (RFC 5044 4.4) against the golden framer: FPDUs with Markers and a zero CRC field
//! in, the same FPDUs with their CRC out, at every width on both engines, with one-beat FPDUs
//! back to back (the case that needs the FIFO), idle and backpressure.

use golden::fpdu::FramingConfig;
use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::tx::{fpdu_user, framed_fpdus};

fn run(
    engine: Engine,
    w: usize,
    offset: u32,
    ulpdus: &[Vec<u8>],
    crc: bool,
    opts: PacketRun,
) -> u64 {
    let cfg = |crc| FramingConfig { markers: true, crc, offset };
    let input = framed_fpdus(cfg(false), ulpdus);
    let want = framed_fpdus(cfg(crc), ulpdus);
    let packets: Vec<InPacket> = input
        .iter()
        .zip(ulpdus)
        .map(|(f, u)| InPacket { data: f.clone(), user: fpdu_user(u.len(), true, crc, false) })
        .collect();
    let mut sim = sim::tx::crc_unit(engine, w).unwrap();
    let res = run_packets(sim.as_mut(), &packets, &opts).unwrap();
    assert_eq!(res.packets.len(), want.len(), "{engine} W={w}: FPDU count");
    for (i, (p, f)) in res.packets.iter().zip(&want).enumerate() {
        assert_eq!(p.data, *f, "{engine} W={w} offset {offset}: FPDU {i}");
        assert_eq!(p.user(), packets[i].user);
    }
    res.active_cycles
}

fn ulpdus(seed: u64, n: usize, max: usize) -> Vec<Vec<u8>> {
    let mut r = rng(seed);
    (0..n).map(|_| (0..r.gen_range(0..=max)).map(|_| r.gen()).collect()).collect()
}

macro_rules! crc_unit_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn random_fpdus_get_the_golden_crc() {
                for (k, offset) in [0u32, 492, 508, 4].into_iter().enumerate() {
                    run($engine, $w, offset, &ulpdus(k as u64 + $w, 30, 600), true, PacketRun::default());
                }
            }

            #[test]
            fn crc_with_idle_and_backpressure_and_crc_off() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.6, seed: 3 },
                    backpressure: Pattern::Random { p: 0.5, seed: 4 },
                    ..PacketRun::default()
                };
                run($engine, $w, 100, &ulpdus(40 + $w, 30, 300), true, opts.clone());
                run($engine, $w, 100, &ulpdus(41 + $w, 20, 300), false, opts);
            }

            #[test]
            fn one_beat_fpdus_back_to_back_flow_at_one_beat_per_cycle() {
                // Markers never fall inside: offset 4 and FPDUs of exactly W octets (or 4 at W=4
                // ... then two beats each), 100 of them.
                let len = if $w >= 8 { $w - 6 } else { 2 };
                let n = 100;
                let u: Vec<Vec<u8>> = (0..n).map(|k| vec![k as u8; len]).collect();
                let cycles = run($engine, $w, 4, &u[..n.min(100)], true, PacketRun::default());
                let beats = if $w >= 8 { n } else { 2 * n };
                // One beat per cycle after the latency of the first FPDU (markers every 512
                // octets add a few beats).
                let latency = 40;
                assert!(cycles <= beats as u64 + latency, "{} cycles for {} beats", cycles, beats);
            }
        }
    )*};
}

crc_unit_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}
