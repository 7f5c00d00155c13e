//! The board loopback, simulated as the boards would run it.
//!
//! - The traffic generator sends exactly [`golden::traffic`]'s ULPDUs (octets, ULPDU_Length,
//!   push), under random backpressure, obeying the stream rules, at every width.
//! - The checker counts equal ULPDUs, flags a changed octet, a wrong length and an `mpa_rx` error
//!   packet, at every width.
//! - The board cores (ULX3S: W = 8, 16 KiB release buffer; iCE40-HX8K: W = 4, 2 KiB) run
//!   generator -> mpa_tx -> mpa_rx -> checker with no error for tens of thousands of cycles at a
//!   measured rate; a bit error injected on the wire with CRC on is caught by `mpa_rx` (RFC 5044
//!   section 8) and nothing damaged reaches the checker; restart revives the link; with Markers
//!   and CRC off (the switches) the loopback still runs. The script runs on the rust-hdl model
//!   and the exported Verilog (Verilator) in lockstep: every output equal every cycle.
//! - The board files: every wrapper pin has a constraint; Yosys `check -assert` and Verilator
//!   lint pass on the file a board build synthesizes.

use golden::traffic::{traffic_push, traffic_ulpdus};
use hdl::board::pins::{Board, BOARDS};
use hdl::sideband::RxUlpduUser;
use sim::board::{board_core, checker, traffic_gen, BoardDriver, BoardStatus};
use sim::stream::{
    message_beats, HandshakeMonitor, Pattern, ReadyDriver, StreamDriver, StreamPorts,
};
use sim::CycleSim;
use sim::Engine;

fn reset(sim: &mut dyn CycleSim, mask: u16) {
    let p = sim.port("cfg_len_mask").unwrap();
    sim.set_u64(p, mask as u64);
    sim.reset(2).unwrap();
}

/// Collects `n` ULPDUs from the generator under random backpressure.
fn generator_sends_golden_traffic(engine: Engine, w: usize) {
    let mask = 0x1FF;
    let n = 24;
    let mut sim = traffic_gen(engine, w).unwrap();
    let m = StreamPorts::find(sim.as_ref(), "m_axis").unwrap();
    let mut snk = ReadyDriver::new(m, Pattern::Random { p: 0.6, seed: w as u64 });
    let mut mon = HandshakeMonitor::new("m_axis", m);
    sim.set_u64(m.ready, 0);
    reset(sim.as_mut(), mask);
    let mut packets = 0;
    let mut cycles = 0;
    while packets < n {
        snk.drive(sim.as_mut());
        sim.eval();
        mon.sample(sim.as_mut(), false);
        let before = snk.beats.len();
        snk.sample(sim.as_mut());
        if snk.beats.len() > before && snk.beats.last().unwrap().1.last {
            packets += 1;
        }
        sim.tick();
        cycles += 1;
        assert!(cycles < 100_000, "{engine} W={w}: generator stalled");
    }
    assert!(mon.violations.is_empty(), "{engine} W={w}: {:?}", mon.violations);
    let want = traffic_ulpdus(n, mask);
    let mut got: Vec<Vec<u8>> = vec![vec![]];
    let mut users: Vec<u64> = vec![];
    for (_, b) in &snk.beats {
        if got.last().unwrap().is_empty() {
            users.push(b.user);
        }
        let k = b.keep.count_ones() as usize;
        assert_eq!(b.keep, hdl::stream::keep_for(k), "{engine} W={w}: keep not contiguous");
        got.last_mut().unwrap().extend_from_slice(&b.data[..k]);
        if b.last {
            got.push(vec![]);
        }
    }
    got.pop();
    assert_eq!(got, want, "{engine} W={w}: generator octets");
    for (i, u) in users.iter().enumerate() {
        assert_eq!(u & 0xFFFF, want[i].len() as u64, "{engine} W={w}: ULPDU_Length of {i}");
        assert_eq!(u >> 16 & 1 != 0, traffic_push(i as u32), "{engine} W={w}: push of {i}");
    }
    let sent = sim.port("sent").unwrap();
    sim.eval();
    assert_eq!(sim.get_u64(sent), n as u64, "{engine} W={w}: sent count");
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Damage {
    None,
    /// Octet `i` of ULPDU `k` flipped.
    Octet(usize, usize),
    /// ULPDU `k` reports a wrong ULPDU_Length.
    Length(usize),
    /// An error packet with `code` after ULPDU `k`.
    ErrorPacket(usize, u64),
}

/// Feeds the checker ten golden ULPDUs (as `mpa_rx` delivers them) with `damage`.
fn check_run(engine: Engine, w: usize, damage: Damage) -> (u64, u64, bool, bool, u64) {
    let mask = 0xFF;
    let mut sim = checker(engine, w).unwrap();
    let s = StreamPorts::find(sim.as_ref(), "s_axis").unwrap();
    let mut src = StreamDriver::new(s, Pattern::Random { p: 0.7, seed: 3 });
    let ulpdus = traffic_ulpdus(10, mask);
    for (k, u) in ulpdus.iter().enumerate() {
        let mut u = u.clone();
        let mut len = u.len() as u64;
        if let Damage::Octet(dk, i) = damage {
            if dk == k {
                u[i] ^= 0x10;
            }
        }
        if damage == Damage::Length(k) {
            len ^= 4;
        }
        let user = RxUlpduUser { seq: 0x1000 + k as u64, len, ..Default::default() }.pack();
        src.push(message_beats(&u, w, user, 0xA5));
        if let Damage::ErrorPacket(ek, code) = damage {
            if ek == k {
                let user = RxUlpduUser { seq: 0x2000, len: 0, err: true, code }.pack();
                src.push(message_beats(&[], w, user, 0));
            }
        }
    }
    sim.set_u64(s.valid, 0);
    reset(sim.as_mut(), mask);
    while src.pending() > 0 {
        src.drive(sim.as_mut());
        sim.eval();
        src.sample(sim.as_mut());
        sim.tick();
    }
    sim.set_u64(s.valid, 0);
    sim.eval();
    sim.tick();
    let mut get = |n: &str| {
        let p = sim.port(n).unwrap();
        sim.get_u64(p)
    };
    (get("ok"), get("bad"), get("mismatch") != 0, get("rx_error") != 0, get("rx_code"))
}

fn checker_counts_and_flags(engine: Engine, w: usize) {
    assert_eq!(check_run(engine, w, Damage::None), (10, 0, false, false, 0), "{engine} W={w}");
    // Lengths of the first ULPDUs with mask 0xFF: pick a ULPDU with at least 8 octets.
    let ulpdus = traffic_ulpdus(10, 0xFF);
    let k = ulpdus.iter().position(|u| u.len() >= 8).unwrap();
    let last = ulpdus[k].len() - 1;
    for i in [0, 5, last] {
        assert_eq!(
            check_run(engine, w, Damage::Octet(k, i)),
            (9, 1, true, false, 0),
            "{engine} W={w}: octet {i} of ULPDU {k}"
        );
    }
    assert_eq!(check_run(engine, w, Damage::Length(k)), (9, 1, true, false, 0), "{engine} W={w}");
    for code in [1, 2, 3] {
        assert_eq!(
            check_run(engine, w, Damage::ErrorPacket(4, code)),
            (10, 0, false, true, code),
            "{engine} W={w}: error packet, code {code}"
        );
    }
}

macro_rules! unit_tests {
    ($($name:ident: $engine:expr, $w:expr;)*) => {
        mod units {
            use super::*;
            $(
                #[test]
                fn $name() {
                    generator_sends_golden_traffic($engine, $w);
                    checker_counts_and_flags($engine, $w);
                }
            )*
        }
    };
}

unit_tests! {
    generator_and_checker_rusthdl_w4: sim::Engine::RustHdl, 4;
    generator_and_checker_rusthdl_w8: sim::Engine::RustHdl, 8;
    generator_and_checker_rusthdl_w16: sim::Engine::RustHdl, 16;
    generator_and_checker_rusthdl_w32: sim::Engine::RustHdl, 32;
    generator_and_checker_rusthdl_w64: sim::Engine::RustHdl, 64;
    generator_and_checker_verilator_w8: sim::Engine::Verilator, 8;
    generator_and_checker_verilator_w64: sim::Engine::Verilator, 64;
}

/// Octets of the first `ok` ULPDUs of the board's traffic.
fn octets_delivered(board: Board, ok: u32) -> usize {
    traffic_ulpdus(ok as usize, board.info().len_mask).iter().map(Vec::len).sum()
}

const LED_PASS: u8 = 1 << 1;
const LED_MISMATCH: u8 = 1 << 2;
const LED_RX_ERROR: u8 = 1 << 3;
const LED_TX_ERROR: u8 = 1 << 6;
/// The LEDs that do not blink (heartbeat and activity masked off).
const LED_STEADY: u8 = 0b0111_1110;

fn clean(st: &BoardStatus) -> bool {
    st.bad == 0 && !st.mismatch && !st.rx_error && !st.tx_error && !st.in_reset
}

/// Runs the board script on `sim` (both engines in lockstep in the tests); returns the status
/// after every step and checks what each step must show.
fn board_script_on(sim: Box<dyn sim::CycleSim>, engine: &str, board: Board) -> Vec<BoardStatus> {
    let w = board.info().width;
    let mut d = BoardDriver::new(sim).unwrap();
    let mut trace = vec![];
    let tag = format!("{engine} {board:?}");

    // 1. Power-up: 32 cycles of reset, then traffic; nothing wrong for 16,000 cycles.
    d.run(34);
    let st = d.status().unwrap();
    assert!(!st.in_reset && st.ok == 0, "{tag}: after power-up reset {st:?}");
    d.run(16_000);
    let st = d.status().unwrap();
    trace.push(st);
    assert!(clean(&st), "{tag}: {st:?}");
    assert_eq!(st.led & LED_STEADY, LED_PASS, "{tag}: LEDs {:08b}", st.led);
    // Measured rate: ULPDU octets delivered per cycle, against W octets per cycle.
    let rate = octets_delivered(board, st.ok) as f64 / 16_034.0 / w as f64;
    assert!(rate > 0.85, "{tag}: {:.3} of line rate", rate);
    assert!(st.sent - st.ok <= 8, "{tag}: {} ULPDUs in flight", st.sent - st.ok);

    // 2. A bit error on the wire with CRC on: mpa_rx reports it, nothing damaged is delivered,
    //    delivery stops (section 8).
    d.inject(4);
    d.run(3_000);
    let st = d.status().unwrap();
    trace.push(st);
    assert_eq!(st.faults, 1, "{tag}: {st:?}");
    assert!(st.rx_error && !st.mismatch && st.bad == 0 && !st.tx_error, "{tag}: {st:?}");
    assert!((1..=3).contains(&st.rx_code), "{tag}: code {}", st.rx_code);
    assert_eq!(st.led & LED_STEADY, LED_RX_ERROR | st.rx_code << 4, "{tag}: LEDs {:08b}", st.led);
    d.run(2_000);
    let later = d.status().unwrap();
    assert_eq!(later.ok, st.ok, "{tag}: delivery after an error");

    // 3. Restart: counters and flags cleared, the link runs again.
    d.restart(10);
    d.run(8_000);
    let st = d.status().unwrap();
    trace.push(st);
    assert!(clean(&st) && st.ok > 20 && st.faults == 0, "{tag}: after restart {st:?}");

    // 4. A second error, then restart again: the same recovery (repeatable).
    d.inject(2);
    d.run(3_000);
    let st = d.status().unwrap();
    trace.push(st);
    assert!(st.rx_error && !st.mismatch, "{tag}: second fault {st:?}");
    d.restart(3);
    d.run(4_000);
    let st = d.status().unwrap();
    trace.push(st);
    assert!(clean(&st) && st.ok > 0, "{tag}: second restart {st:?}");

    if board == Board::Ulx3s {
        // 5. Switches: Markers off and CRC off (read at restart); clean run.
        for (markers_off, crc_off) in [(true, false), (false, true), (true, true)] {
            d.set_switches(markers_off, crc_off);
            d.restart(3);
            d.run(6_000);
            let st = d.status().unwrap();
            trace.push(st);
            assert!(clean(&st) && st.ok > 20, "{tag}: switches {markers_off} {crc_off}: {st:?}");
        }
        // 6. CRC off: a flipped bit is no longer caught by the CRC; the checker or mpa_rx's
        //    framing checks must still see it.
        d.inject(2);
        d.run(3_000);
        let st = d.status().unwrap();
        trace.push(st);
        assert!(st.mismatch || st.rx_error, "{tag}: undetected bit error with CRC off: {st:?}");
        assert_ne!(st.led & (LED_MISMATCH | LED_RX_ERROR), 0, "{tag}: LEDs {:08b}", st.led);
        assert_eq!(st.led & LED_PASS, 0, "{tag}: pass LED with an error");
        assert_eq!(st.led & LED_TX_ERROR, 0, "{tag}: tx error LED");
    }
    trace
}

/// The board's core on both engines in lockstep (every output compared every cycle, the first
/// difference fails) through the whole script: the script's checks hold on the rust-hdl model
/// and on the exported Verilog, and the two agree cycle for cycle (which also makes their status
/// traces equal, what running each engine on its own and comparing the traces checked before).
fn board_in_lockstep(board: Board) {
    let a = board_core(Engine::RustHdl, board).unwrap();
    let b = board_core(Engine::Verilator, board).unwrap();
    let both = sim::lockstep::Lockstep::pair(a, b).unwrap().strict();
    let trace = board_script_on(Box::new(both), "lockstep", board);
    assert!(trace.len() >= 2, "the script ran");
}

#[test]
fn ulx3s_board_engines_in_lockstep() {
    board_in_lockstep(Board::Ulx3s);
}

/// The HX8K board's script on the exported Verilog alone; its engines in lockstep (the rust-hdl
/// model's half of that test is most of its 32 s) run in `make test-long`.
#[test]
fn hx8k_board_script_on_verilator() {
    let core = board_core(Engine::Verilator, Board::Hx8k).unwrap();
    let trace = board_script_on(core, "hx8k verilator", Board::Hx8k);
    assert!(trace.len() >= 2, "the script ran");
}

#[test]
#[ignore = "the rust-hdl model in lockstep: make test-long (moved at stop 78)"]
fn hx8k_board_engines_in_lockstep() {
    board_in_lockstep(Board::Hx8k);
}

#[test]
fn every_board_pin_is_constrained_and_the_board_file_passes_the_checks() {
    let root = sim::workspace_root();
    for board in BOARDS {
        let i = board.info();
        let constraints = std::fs::read_to_string(root.join(i.constraints)).unwrap();
        // The wrapper's pins, read from the file a board build synthesizes (the core, whose name
        // starts with the wrapper's, comes first in it).
        let text = sim::export::board_verilog(board).unwrap();
        let ports = sim::tools::module_ports(&text, i.top).unwrap();
        assert!(ports.len() >= 2 && !ports.iter().any(|p| p.0 == "ok"), "{board:?}: {ports:?}");
        for (name, _, width) in &ports {
            let bits: Vec<String> = if *width == 1 {
                vec![name.clone()]
            } else {
                (0..*width).map(|b| format!("{name}[{b}]")).collect()
            };
            for bit in bits {
                let placed = constraints.lines().any(|l| {
                    l.starts_with(&format!("LOCATE COMP \"{bit}\" SITE"))
                        || l.starts_with(&format!("set_io {bit} "))
                });
                assert!(placed, "{board:?}: pin {bit} has no site in {}", i.constraints);
            }
        }
        if i.constraints.ends_with(".lpf") {
            let clk = &ports[0].0;
            assert!(
                constraints.contains(&format!("FREQUENCY PORT \"{clk}\" {} MHZ", i.clock_mhz)),
                "{board:?}: no clock constraint"
            );
        }
        // The file a board build synthesizes.
        let dir = root.join("target/board_check");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{}.v", i.top));
        std::fs::write(&file, &text).unwrap();
        sim::tools::yosys_check(&file, i.top).unwrap();
        sim::tools::verilator_lint(&file, i.top).unwrap();
        // The core's configuration is the one the board's facts state.
        assert_eq!(hdl::export::board_spec(board).width, i.width);
        assert!((i.len_mask as usize) < ((1usize << i.buffer_bits) - 1) * i.width);
    }
}
