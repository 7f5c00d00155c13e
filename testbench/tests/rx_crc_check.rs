//! `RxCrcCheck` (RFC 5044 4.4, 6, 8): FPDU packets pass unchanged when their CRC is right or
//! off; the first FPDU with a wrong CRC leaves flagged with code 2 and nothing follows it; an
//! upstream error packet passes and ends the stream. Every width, both engines, idle and
//! backpressure, corruption anywhere in the FPDU (Markers and the CRC field included).

use golden::fpdu::FramingConfig;
use hdl::sideband::RxFpduUser;
use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::tx::framed_fpdus;

/// `user` as an error packet with section 8 `code`.
fn with_error(user: u64, code: u64) -> u64 {
    RxFpduUser { err: true, code, ..RxFpduUser::unpack(user) }.pack()
}

/// FPDU packets as the delineator hands them on (sideband: sequence number, Markers, CRC).
fn packets(seed: u64, n: usize, markers: bool, crc: bool) -> Vec<InPacket> {
    let mut r = rng(seed);
    let ulpdus: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = if r.gen_bool(0.2) { r.gen_range(0..=2000) } else { r.gen_range(0..=120) };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect();
    let cfg = FramingConfig { markers, crc, offset: 8 };
    let mut at = 0u64;
    framed_fpdus(cfg, &ulpdus)
        .into_iter()
        .map(|f| {
            let user = RxFpduUser { seq: at, markers, crc, ..Default::default() }.pack();
            at += f.len() as u64;
            InPacket { data: f, user }
        })
        .collect()
}

fn run(
    engine: Engine,
    w: usize,
    input: &[InPacket],
    opts: &PacketRun,
) -> (Vec<sim::packet::Packet>, u64) {
    let mut sim = sim::rx::crc_check(engine, w).unwrap();
    let opts = PacketRun { pulses: vec!["err_crc".into()], ..opts.clone() };
    let res = run_packets(sim.as_mut(), input, &opts).unwrap();
    (res.packets, res.pulse_counts[0])
}

fn check(engine: Engine, w: usize, seed: u64, opts: PacketRun) {
    let mut r = rng(seed ^ 0x55);
    // Clean FPDUs pass unchanged.
    let input = packets(seed, 50, true, true);
    let (out, errs) = run(engine, w, &input, &opts);
    assert_eq!(errs, 0, "{engine} W={w}");
    assert_eq!(out.len(), input.len(), "{engine} W={w}: packets");
    for (p, i) in out.iter().zip(&input) {
        assert_eq!(p.data, i.data);
        assert!(p.users.iter().all(|&u| u == i.user), "{engine} W={w}: sideband");
    }
    // One octet corrupted in FPDU k: FPDUs before it pass, it leaves flagged, nothing after.
    for _ in 0..3 {
        let mut input = packets(r.gen(), 30, r.gen_bool(0.5), true);
        let k = r.gen_range(0..input.len());
        let at = r.gen_range(0..input[k].data.len());
        input[k].data[at] ^= 1 << r.gen_range(0..8);
        let (out, errs) = run(engine, w, &input, &opts);
        assert_eq!(errs, 1, "{engine} W={w}: FPDU {k} octet {at}");
        assert_eq!(out.len(), k + 1, "{engine} W={w}: FPDU {k} octet {at}: packets out");
        let e = &out[k];
        assert_eq!(e.data, input[k].data);
        assert_eq!(
            *e.users.last().unwrap(),
            with_error(input[k].user, 2),
            "{engine} W={w}: the verdict"
        );
    }
    // CRC off: corrupted CRC fields pass.
    let mut input = packets(seed + 1, 20, false, false);
    for p in input.iter_mut() {
        let n = p.data.len();
        p.data[n - 1] ^= 0xFF;
    }
    let (out, errs) = run(engine, w, &input, &opts);
    assert_eq!((out.len(), errs), (20, 0), "{engine} W={w}: CRC off");
}

macro_rules! crc_check_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        fn $name() {
            check($engine, $w, $w, PacketRun::default());
            let opts = PacketRun {
                idle: Pattern::Random { p: 0.6, seed: 3 },
                backpressure: Pattern::Random { p: 0.5, seed: 4 },
                ..PacketRun::default()
            };
            check($engine, $w, 100 + $w, opts);
        }
    )*};
}

crc_check_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}

#[test]
fn upstream_error_packet_passes_and_ends_the_stream() {
    for w in [4, 16] {
        let mut input = packets(9, 10, true, true);
        // The delineator's code 1 error: a partial FPDU, flagged.
        let keep = input[6].data.len() / 8 * 4;
        input[6].data.truncate(keep);
        input[6].user = with_error(input[6].user, 1);
        let (out, errs) = run(Engine::RustHdl, w, &input, &PacketRun::default());
        assert_eq!(errs, 0, "W={w}: not a CRC error");
        assert_eq!(out.len(), 7, "W={w}");
        assert_eq!(out[6].data, input[6].data);
        assert_eq!(*out[6].users.last().unwrap(), input[6].user, "W={w}: code 1 kept");
    }
}

#[test]
fn full_rate_for_back_to_back_fpdus() {
    // One-beat FPDUs back to back: the FIFO covers the engine latency.
    let w = 16;
    let cfg = FramingConfig { markers: false, crc: true, offset: 0 };
    let ulpdus: Vec<Vec<u8>> = (0..300).map(|k| vec![k as u8; k % 7]).collect();
    let input: Vec<InPacket> = framed_fpdus(cfg, &ulpdus)
        .into_iter()
        .map(|f| InPacket { data: f, user: RxFpduUser { crc: true, ..Default::default() }.pack() })
        .collect();
    assert!(input.iter().all(|p| p.data.len() <= w));
    let mut sim = sim::rx::crc_check(Engine::RustHdl, w).unwrap();
    let res = run_packets(sim.as_mut(), &input, &PacketRun::default()).unwrap();
    assert_eq!(res.packets.len(), input.len());
    let span = res.packets.last().unwrap().last_cycle - res.packets[0].first_cycle + 1;
    assert!(span <= input.len() as u64 + 2, "{} beats in {span} cycles", input.len());
}
