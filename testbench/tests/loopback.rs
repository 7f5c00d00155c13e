//! Transmit into receive: ULPDUs through `mpa_tx`, its TCP segments (with their sequence
//! numbers) through `mpa_rx`, the same ULPDUs out, at every width on both engines. Each side runs
//! with its own random idle and backpressure; the two hardware paths agree with each other, not
//! only with the golden model. A corrupted segment on the wire is reported by the receiver with
//! the code the golden deframer gives.

use golden::fpdu::FramingConfig;
use rand::Rng;
use sim::packet::{InPacket, PacketRun};
use sim::rx::{run_rx, RxSettings};
use sim::stream::Pattern;
use sim::tx::{run_tx, TxSettings, TxUlpdu};
use sim::Engine;
use testbench::rng;

struct Link {
    ulpdus: Vec<Vec<u8>>,
    tx: TxSettings,
    segments: Vec<InPacket>,
}

/// ULPDUs up to MULPDU through `mpa_tx`; the segments as the receiver takes them (the last with
/// FIN).
fn transmit(engine: Engine, w: usize, seed: u64, n: usize) -> Link {
    let mut r = rng(seed);
    let markers = r.gen_bool(0.6);
    let emss = [536u32, 1460, 9000][r.gen_range(0..3)];
    let mulpdu = golden::mulpdu::mulpdu(emss, markers) as usize;
    let seq: u32 = r.gen();
    let offset = r.gen_range(0..128u32) * 4;
    let tx =
        TxSettings { markers, crc: r.gen_bool(0.8), emss, seq, origin: seq.wrapping_sub(offset) };
    let ulpdus: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = if r.gen_bool(0.3) { mulpdu } else { r.gen_range(0..=mulpdu) };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect();
    let input: Vec<TxUlpdu> = ulpdus
        .iter()
        .enumerate()
        .map(|(i, u)| TxUlpdu::new(u.clone(), i + 1 == n || r.gen_bool(0.2)))
        .collect();
    let mut sim = sim::tx::mpa_tx(engine, w, None).unwrap();
    let opts = PacketRun {
        idle: Pattern::Random { p: 0.7, seed },
        backpressure: Pattern::Random { p: 0.8, seed: seed + 1 },
        ..PacketRun::default()
    };
    let run = run_tx(sim.as_mut(), &tx, &input, &opts).unwrap();
    assert_eq!((run.err_length, run.err_too_long, run.oversize_fpdus), (0, 0, 0));
    let mut segments: Vec<InPacket> =
        run.segments.iter().map(|(s, p)| InPacket::segment(p.clone(), *s, false)).collect();
    segments.last_mut().unwrap().set_fin();
    Link { ulpdus, tx, segments }
}

fn receive(engine: Engine, w: usize, link: &Link, seed: u64) -> sim::rx::RxRun {
    let mut sim = sim::rx::mpa_rx(engine, w).unwrap();
    let settings = RxSettings {
        markers: link.tx.markers,
        crc: link.tx.crc,
        seq: link.tx.seq,
        origin: link.tx.origin,
        max_ulpdu: 0xFFFF,
    };
    let opts = PacketRun {
        idle: Pattern::Random { p: 0.8, seed },
        backpressure: Pattern::Random { p: 0.7, seed: seed + 1 },
        ..PacketRun::default()
    };
    run_rx(sim.as_mut(), &settings, &link.segments, &opts).unwrap()
}

fn loop_at(engine: Engine, w: usize, runs: u64) {
    for k in 0..runs {
        let seed = 1000 * w as u64 + k;
        let link = transmit(engine, w, seed, 16);
        let rx = receive(engine, w, &link, seed);
        assert_eq!(rx.error, None, "{engine} W={w} seed {seed}");
        assert_eq!(rx.ulpdus.len(), link.ulpdus.len(), "{engine} W={w} seed {seed}");
        for (i, (got, sent)) in rx.ulpdus.iter().zip(&link.ulpdus).enumerate() {
            assert!(got.data == *sent, "{engine} W={w} seed {seed}: ULPDU {i}");
        }
    }
}

#[test]
fn loopback_every_width_rusthdl() {
    for w in hdl::export::WIDTHS {
        loop_at(Engine::RustHdl, w, 2);
    }
}

#[test]
fn loopback_every_width_verilator() {
    for w in hdl::export::WIDTHS {
        loop_at(Engine::Verilator, w, 4);
    }
}

#[test]
fn a_corrupted_segment_is_reported_as_the_golden_model_reports_it() {
    for (w, engine) in [(8usize, Engine::RustHdl), (32, Engine::Verilator)] {
        let mut r = rng(w as u64);
        let link = transmit(engine, w, 77 + w as u64, 12);
        let mut bad = Link { ulpdus: vec![], tx: link.tx, segments: link.segments.clone() };
        let s = r.gen_range(0..bad.segments.len());
        let seg = &mut bad.segments[s];
        let at = r.gen_range(0..seg.data.len());
        seg.data[at] ^= 1 << r.gen_range(0..8);
        let stream: Vec<u8> = bad.segments.iter().flat_map(|p| p.data.clone()).collect();
        let cfg = FramingConfig {
            markers: link.tx.markers,
            crc: link.tx.crc,
            offset: link.tx.seq.wrapping_sub(link.tx.origin),
        };
        let (want, want_err) =
            testbench::rx_check::expected(cfg, &stream, link.tx.seq, 16384 - w as u32);
        let rx = receive(engine, w, &bad, 5);
        assert_eq!(rx.error, want_err, "W={w}: segment {s} octet {at}");
        assert_eq!(rx.ulpdus, want, "W={w}");
    }
}
