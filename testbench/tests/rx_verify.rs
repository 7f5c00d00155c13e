//! `RxVerify` built with every block's context record (DESIGN, "Connection state is explicit";
//! RFC 5044 B.2): TCP payload segments of several connections, cut anywhere and with
//! retransmissions, interleaved segment by segment through one verification path (realigner,
//! delineator, CRC check, Marker stripper); between connections the path is flushed and its
//! records swapped. Every width, both engines, idle and backpressure: each connection gets
//! exactly the ULPDUs, verdicts and error pulses it gets alone (through the rust-hdl model
//! of `RxVerify::new()`), and its FPDUs' ends
//! (`fpdu_done` / `fpdu_end`) as the golden framer's FPDUs give them.

use golden::fpdu::FramingConfig;
use hdl::rx::verify::{CrcCtx, CutCtx, RealignCtx, StripCtx, WalkCtx};
use hdl::sideband::RxUlpduUser;
use rand::Rng;
use sim::packet::{run_packets, InPacket, Packet, PacketRun};
use sim::stream::{message_beats, Pattern};
use sim::Engine;
use testbench::interleave::{assert_as_alone, run as run_interleaved, CtxConn, CtxPorts};
use testbench::rng;
use testbench::rx::{segments, with_retransmissions};
use testbench::tx::framed_fpdus;

const ULPDU_MAX: u64 = golden::mulpdu::ULPDU_MAX as u64;

struct Case {
    markers: bool,
    crc: bool,
    /// Stream position of the first FPDU from the Marker origin (octets).
    offset: u32,
    seq: u32,
    max_ulpdu: u64,
}

impl Case {
    fn origin(&self) -> u32 {
        self.seq.wrapping_sub(self.offset)
    }

    fn settings(&self) -> Vec<(String, u64)> {
        vec![
            ("cfg_seq".into(), self.seq as u64),
            ("cfg_origin".into(), self.origin() as u64),
            ("cfg_markers".into(), self.markers as u64),
            ("cfg_crc".into(), self.crc as u64),
            ("cfg_max_ulpdu".into(), self.max_ulpdu),
        ]
    }
}

fn ulpdus(r: &mut impl Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = if r.gen_bool(0.2) { r.gen_range(0..=1200) } else { r.gen_range(0..=120) };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect()
}

/// The ULPDU packets (octets, every beat's sideband) and CRC errors of `input` through the path
/// alone.
fn alone(engine: Engine, w: usize, case: &Case, input: &[InPacket]) -> (Vec<Packet>, u64) {
    let mut sim = sim::rx::verify(engine, w, false).unwrap();
    let opts = PacketRun {
        settings: case.settings(),
        pulses: vec!["err_crc".into()],
        ..Default::default()
    };
    let res = run_packets(sim.as_mut(), input, &opts).unwrap();
    (res.packets, res.pulse_counts[0])
}

/// Four connections' segments interleaved (see the module documentation); returns the switches
/// and the records saved with an FPDU open in the CRC check.
fn interleaved_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> (usize, usize, Vec<u64>) {
    let mut r = rng(seed);
    let cases = [
        Case { markers: true, crc: true, offset: 508, seq: 0xFFFF_F000, max_ulpdu: ULPDU_MAX },
        Case { markers: false, crc: false, offset: 12, seq: 1234, max_ulpdu: ULPDU_MAX },
        Case { markers: true, crc: true, offset: 0, seq: 77, max_ulpdu: 800 },
        Case { markers: true, crc: true, offset: 1000, seq: 5, max_ulpdu: ULPDU_MAX },
    ];
    let words = (8 * w).div_ceil(64);
    let mut refs = vec![];
    // Each connection's `fpdu_end` values: the end of every FPDU before the first error.
    let mut ends: Vec<Vec<u64>> = vec![];
    let mut conns: Vec<CtxConn> = cases
        .iter()
        .enumerate()
        .map(|(k, case)| {
            let cfg = FramingConfig { markers: case.markers, crc: case.crc, offset: case.offset };
            let mut u = ulpdus(&mut r, 30);
            if k == 2 {
                // Above connection 2's limit at ULPDU 24 only: code 2 from the delineator.
                u.iter_mut().for_each(|x| x.truncate(800));
                u[24] = vec![7; 900];
            }
            let mut fpdus = framed_fpdus(cfg, &u);
            if k == 3 {
                // One octet damaged in FPDU 20: code 2 from the CRC check.
                let n = fpdus[20].len();
                fpdus[20][n / 2] ^= 0x08;
            }
            // FPDUs before the first ULPDU_Length above the limit, and before the damaged one.
            let over = u.iter().position(|x| x.len() as u64 > case.max_ulpdu).unwrap_or(u.len());
            let good = if k == 3 { over.min(20) } else { over };
            let mut at = case.seq;
            ends.push(
                fpdus[..good]
                    .iter()
                    .map(|f| {
                        at = at.wrapping_add(f.len() as u32);
                        at as u64
                    })
                    .collect(),
            );
            let stream: Vec<u8> = fpdus.concat();
            let mut input = segments(&mut r, &stream, case.seq, 3 * w + 40, k != 1);
            with_retransmissions(&mut r, &stream, case.seq, &mut input, 30);
            refs.push(alone(Engine::RustHdl, w, case, &input));
            let o = case.origin();
            let record = vec![
                vec![RealignCtx::fresh(case.seq, o).pack()],
                vec![WalkCtx::fresh(case.seq, o).pack()],
                vec![CutCtx::fresh(case.seq, o).pack()],
                vec![0; words],
                vec![CrcCtx::default().pack()],
                vec![StripCtx::default().pack()],
                vec![0; words],
                vec![0],
            ];
            let settings = vec![case.markers as u64, case.crc as u64, case.max_ulpdu];
            let runs = input.iter().map(|p| message_beats(&p.data, w, p.user, 0x5A)).collect();
            CtxConn::with_runs(runs, record, settings)
        })
        .collect();
    let code = |p: &[Packet]| {
        let u = RxUlpduUser::unpack(*p.last().unwrap().users.last().unwrap());
        (u.err, u.code)
    };
    assert_eq!(code(&refs[2].0), (true, 2), "{engine} W={w}: connection 2 ends with code 2");
    assert_eq!((code(&refs[3].0), refs[3].1), ((true, 2), 1), "{engine} W={w}: connection 3");
    let mut sim = sim::rx::verify(engine, w, true).unwrap();
    let sim = sim.as_mut();
    let ports = CtxPorts::find(
        sim,
        &[
            ("ctx_realign_in_0", "ctx_realign_out_0"),
            ("ctx_walk_in_0", "ctx_walk_out_0"),
            ("ctx_cut_in_0", "ctx_cut_out_0"),
            ("ctx_cut_words_in_0", "ctx_cut_words_out_0"),
            ("ctx_crc_in_0", "ctx_crc_out_0"),
            ("ctx_strip_in_0", "ctx_strip_out_0"),
            ("ctx_strip_words_in_0", "ctx_strip_words_out_0"),
            ("ctx_end_in_0", "ctx_end_out_0"),
        ],
        "ctx_idle_0",
        true,
        Some("ctx_flush_0"),
        &["cfg_markers", "cfg_crc", "cfg_max_ulpdu"],
        Some("err_crc"),
    );
    let mut ports = ports;
    ports.event = Some((sim.port("fpdu_done").unwrap(), sim.port("fpdu_end").unwrap()));
    // Reset to an unrelated stream: every connection's records are loaded before its segments.
    for (n, v) in [("cfg_seq", 999), ("cfg_origin", 0), ("cfg_markers", 1), ("cfg_max_ulpdu", 9)] {
        let p = sim.port(n).unwrap();
        sim.set_u64(p, v);
    }
    sim.set_u64(ports.load, 0);
    sim.set_u64(ports.flush.unwrap(), 0);
    sim.reset(2).unwrap();
    let res = run_interleaved(sim, w, &ports, &mut conns, &mut r, idle, backpressure, 4_000_000);
    assert_as_alone(&format!("{engine} W={w}"), &conns, &refs);
    for (i, (c, e)) in conns.iter().zip(&ends).enumerate() {
        assert_eq!(c.events, *e, "{engine} W={w}: connection {i}: the FPDU ends (fpdu_end)");
    }
    let open = res.saved.iter().filter(|rec| CrcCtx::unpack(rec[4][0]).open).count();
    (res.switches, open, res.switch_cycles)
}

macro_rules! verify_context_tests {
    ($($(#[$attr:meta])* $name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        $(#[$attr])*
        fn $name() {
            let (n, open, cycles) =
                interleaved_connections($engine, $w, 1, Pattern::Always, Pattern::Always);
            assert!(n >= 20 && open > 0, "{} W={}: {n} switches, {open} with an FPDU open", $engine, $w);
            // A switch waits for the whole path's drain and the CRC check's flush: the
            // engine's latency (10 to 18 cycles) and the blocks' pipelines.
            let mean = cycles.iter().sum::<u64>() as f64 / cycles.len() as f64;
            let max = *cycles.iter().max().unwrap();
            eprintln!("{} W={}: {} switches, {mean:.1} cycles each on average, at most {max}", $engine, $w, cycles.len());
            assert!(max <= 60, "{} W={}: a switch took {max} cycles", $engine, $w);
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            interleaved_connections($engine, $w, 4, idle, bp);
        }
    )*};
}

verify_context_tests! {
    interleaved_connections_rusthdl_w4: Engine::RustHdl, 4;
    interleaved_connections_rusthdl_w8: Engine::RustHdl, 8;
    interleaved_connections_rusthdl_w16: Engine::RustHdl, 16;
    interleaved_connections_rusthdl_w32: Engine::RustHdl, 32;
    interleaved_connections_rusthdl_w64: Engine::RustHdl, 64;
    #[ignore = "Verilator at W = 4 (MpaRxCtx runs this path on Verilator at every W): make test-extra"]
    interleaved_connections_verilator_w4: Engine::Verilator, 4;
    interleaved_connections_verilator_w8: Engine::Verilator, 8;
    #[ignore = "Verilator at W = 16 (MpaRxCtx runs this path on Verilator at every W): make test-extra"]
    interleaved_connections_verilator_w16: Engine::Verilator, 16;
    #[ignore = "Verilator at W = 32 (MpaRxCtx runs this path on Verilator at every W): make test-extra"]
    interleaved_connections_verilator_w32: Engine::Verilator, 32;
    interleaved_connections_verilator_w64: Engine::Verilator, 64;
}

/// The path built with its context ports (not a top) passes Yosys `check -assert` and
/// Verilator's lint with width warnings, at both ends of the widths (Yosys at W = 64 in the next
/// test).
#[test]
fn verify_with_context_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    use hdl::rx::verify::RxVerify;
    use testbench::{check_block_verilog, lint_block_verilog};
    testbench::check_block_verilog_at!(
        4,
        "rx_verify_ctx",
        RxVerify,
        with_context,
        check_block_verilog
    );
    testbench::check_block_verilog_at!(
        64,
        "rx_verify_ctx",
        RxVerify,
        with_context,
        lint_block_verilog
    );
}

#[test]
#[ignore = "Yosys's check at W = 64 (9 s): make test-extra"]
fn verify_with_context_w64_export_passes_yosys_check() {
    use hdl::rx::verify::RxVerify;
    use testbench::check_block_verilog;
    testbench::check_block_verilog_at!(
        64,
        "rx_verify_ctx",
        RxVerify,
        with_context,
        check_block_verilog
    );
}
