//! The bare engine (`hdl::crc::CrcEngine`, the strobe interface MPA's transmit and receive
//! blocks use) on both engines: `start` restarts a message, gaps between strobes change nothing,
//! results come exactly `latency()` cycles after the last beat, back to back, and reset drops
//! what is in flight.

use golden::crc::CRC32C;
use hdl::crc::CrcEngine;
use hdl::stream::keep_for;
use hdl::with_width;
use sim::crc::bare_engine;
use sim::Engine;
use sim::{words_for, words_from_bytes, CycleSim};
use testbench::*;

/// One strobe-level beat: (strobe, start, last, bytes).
type Step = (bool, bool, bool, Vec<u8>);

struct Bare {
    sim: Box<dyn CycleSim>,
    w: usize,
    p: [usize; 9],
}

impl Bare {
    fn new(engine: Engine, w: usize) -> Self {
        let mut sim = bare_engine(engine, &CRC32C, w).unwrap();
        let names =
            ["rst", "strobe", "start", "last", "data", "keep", "crc_valid", "crc", "crc_bad"];
        let p = names.map(|n| sim.port(n).unwrap());
        sim.reset(2).unwrap();
        Bare { sim, w, p }
    }

    /// Runs the steps, then idles; returns (cycle index relative to the first step, crc, bad).
    fn run(&mut self, steps: &[Step], rst_at: Option<usize>) -> Vec<(usize, u32, bool)> {
        let mut out = vec![];
        let mut words = vec![0u64; words_for(8 * self.w)];
        for c in 0..steps.len() + 40 {
            let (strobe, start, last, bytes) =
                steps.get(c).cloned().unwrap_or((false, false, false, vec![]));
            words_from_bytes(&bytes, &mut words);
            self.sim.set(self.p[4], &words);
            self.sim.set_u64(self.p[5], keep_for(bytes.len()));
            self.sim.set_u64(self.p[1], strobe as u64);
            self.sim.set_u64(self.p[2], start as u64);
            self.sim.set_u64(self.p[3], last as u64);
            self.sim.set_u64(self.p[0], (rst_at == Some(c)) as u64);
            self.sim.eval();
            if self.sim.get_u64(self.p[6]) & 1 != 0 {
                out.push((
                    c,
                    self.sim.get_u64(self.p[7]) as u32,
                    self.sim.get_u64(self.p[8]) & 1 != 0,
                ));
            }
            self.sim.tick();
        }
        out
    }
}

fn beats(msg: &[u8], w: usize) -> Vec<Vec<u8>> {
    if msg.is_empty() {
        vec![vec![]]
    } else {
        msg.chunks(w).map(|c| c.to_vec()).collect()
    }
}

fn latency(w: usize) -> usize {
    with_width!(w, |W, B| CrcEngine::<W, B>::latency())
}

fn start_restarts_a_message(engine: Engine, w: usize) {
    let mut r = rng(0x57A7 + w as u64);
    let a = random_messages(&mut r, 1, 2 * w..=2 * w).remove(0);
    let b = random_messages(&mut r, 1, 3 * w / 2..=3 * w / 2).remove(0);
    // Two beats of `a` with no last, then `b` from a beat with start: the result is CRC(b).
    let mut steps: Vec<Step> = beats(&a, w).into_iter().map(|d| (true, false, false, d)).collect();
    let bb = beats(&b, w);
    let n = bb.len();
    for (i, d) in bb.into_iter().enumerate() {
        steps.push((true, i == 0, i + 1 == n, d));
    }
    let mut e = Bare::new(engine, w);
    let out = e.run(&steps, None);
    assert_eq!(out.len(), 1, "{engine} W={w}: one result");
    assert_eq!(
        out[0].1,
        golden_crc(&CRC32C, &b),
        "{engine} W={w}: start did not clear the register"
    );
}

fn gaps_latency_and_back_to_back(engine: Engine, w: usize) {
    let mut r = rng(0x6A95 + w as u64);
    let msgs = random_messages(&mut r, 30, 0..=3 * w + 1);
    // Message i is followed by i % 3 idle cycles (0: back to back); every other message also
    // has an idle cycle between its beats.
    let mut steps: Vec<Step> = vec![];
    let mut last_at = vec![];
    for (i, m) in msgs.iter().enumerate() {
        let bs = beats(m, w);
        let n = bs.len();
        for (k, d) in bs.into_iter().enumerate() {
            if k > 0 && i % 2 == 1 {
                steps.push((false, false, false, vec![0xEE; w]));
            }
            if k + 1 == n {
                last_at.push(steps.len());
            }
            steps.push((true, false, k + 1 == n, d));
        }
        for _ in 0..i % 3 {
            steps.push((false, true, true, vec![0x55; w])); // start/last without strobe: ignored
        }
    }
    let mut e = Bare::new(engine, w);
    let out = e.run(&steps, None);
    assert_eq!(out.len(), msgs.len(), "{engine} W={w}: one result per message");
    for (i, ((c, crc, bad), m)) in out.iter().zip(&msgs).enumerate() {
        assert_eq!(*crc, golden_crc(&CRC32C, m), "{engine} W={w}: message {i}");
        assert_eq!(*bad, golden_bad(&CRC32C, m), "{engine} W={w}: message {i} bad flag");
        assert_eq!(c - last_at[i], latency(w), "{engine} W={w}: message {i} latency");
    }
}

fn reset_drops_messages_in_flight(engine: Engine, w: usize) {
    let mut r = rng(0x4E5E + w as u64);
    let msgs = random_messages(&mut r, 3, w + 1..=2 * w);
    // Message 0 completes, message 1 is cut by reset one cycle after its last beat (its result
    // is in the pipeline), message 2 follows the reset: results for 0 and 2 only.
    let mut steps: Vec<Step> = vec![];
    let mut rst_at = None;
    for (i, m) in msgs.iter().enumerate() {
        let bs = beats(m, w);
        let n = bs.len();
        for (k, d) in bs.into_iter().enumerate() {
            steps.push((true, false, k + 1 == n, d));
        }
        if i == 0 {
            for _ in 0..latency(w) + 2 {
                steps.push((false, false, false, vec![]));
            }
        }
        if i == 1 {
            steps.push((false, false, false, vec![]));
            rst_at = Some(steps.len());
            steps.push((false, false, false, vec![]));
            steps.push((false, false, false, vec![]));
        }
    }
    let mut e = Bare::new(engine, w);
    let out = e.run(&steps, rst_at);
    let crcs: Vec<u32> = out.iter().map(|o| o.1).collect();
    assert_eq!(
        crcs,
        vec![golden_crc(&CRC32C, &msgs[0]), golden_crc(&CRC32C, &msgs[2])],
        "{engine} W={w}"
    );
}

macro_rules! bare_tests {
    ($name:ident, $w:expr, $engine:expr) => {
        mod $name {
            #[test]
            fn start_input_clears_the_register_mid_message() {
                super::start_restarts_a_message($engine, $w);
            }
            #[test]
            fn gaps_and_back_to_back_messages_give_golden_crcs_at_the_documented_latency() {
                super::gaps_latency_and_back_to_back($engine, $w);
            }
            #[test]
            fn reset_drops_results_in_flight_and_the_next_message_is_right() {
                super::reset_drops_messages_in_flight($engine, $w);
            }
        }
    };
}

bare_tests!(crc_engine_w4_rusthdl, 4, sim::Engine::RustHdl);
bare_tests!(crc_engine_w8_rusthdl, 8, sim::Engine::RustHdl);
bare_tests!(crc_engine_w64_rusthdl, 64, sim::Engine::RustHdl);
bare_tests!(crc_engine_w8_verilator, 8, sim::Engine::Verilator);
bare_tests!(crc_engine_w64_verilator, 64, sim::Engine::Verilator);

/// Random strobe-level traffic (gaps, `start` anywhere, null and partial last beats, resets)
/// on the rust-hdl model and the exported Verilog in lock step: every output equal every cycle.
fn bare_lockstep(w: usize) {
    use rand::Rng;
    let mut a = bare_engine(Engine::RustHdl, &CRC32C, w).unwrap();
    let mut b = bare_engine(Engine::Verilator, &CRC32C, w).unwrap();
    let mut both = sim::lockstep::Lockstep::new(a.as_mut(), b.as_mut()).unwrap();
    let names = ["rst", "strobe", "start", "last", "data", "keep"];
    let p = names.map(|n| both.port(n).unwrap());
    both.reset(2).unwrap();
    let mut r = rng(0xB10C + w as u64);
    let mut words = vec![0u64; words_for(8 * w)];
    let mut results = 0;
    for _ in 0..3000 {
        let strobe = r.gen_bool(0.8);
        let last = r.gen_bool(0.3);
        let n = if last { r.gen_range(0..=w) } else { w };
        let bytes: Vec<u8> = (0..w).map(|_| r.gen()).collect();
        words_from_bytes(&bytes, &mut words);
        both.set(p[4], &words);
        both.set_u64(p[5], keep_for(n));
        both.set_u64(p[1], strobe as u64);
        both.set_u64(p[2], r.gen_bool(0.05) as u64);
        both.set_u64(p[3], last as u64);
        both.set_u64(p[0], r.gen_bool(0.002) as u64);
        both.eval();
        results += both.get_u64(both.port("crc_valid").unwrap());
        both.tick();
    }
    assert!(both.mismatches.is_empty(), "W={w}:\n{}", both.mismatches.join("\n"));
    assert!(results > 300, "W={w}: only {results} results compared");
}

#[test]
fn crc_engine_w8_rusthdl_and_verilator_agree_on_random_strobes_starts_and_resets() {
    bare_lockstep(8);
}

#[test]
fn crc_engine_w64_rusthdl_and_verilator_agree_on_random_strobes_starts_and_resets() {
    bare_lockstep(64);
}

/// VCD on request: the rust-hdl engine writes every signal of the hierarchy, clock edge by edge.
#[test]
fn crc_w8_rusthdl_writes_a_vcd_with_the_engine_signals_on_request() {
    let dir = sim::workspace_root().join("target/testbench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("crc_w8.vcd");
    {
        let mut s = sim::crc::rusthdl_engine(&CRC32C, 8, Some(&path)).unwrap();
        let msgs = vec![b"123456789".to_vec()];
        let (res, stats) = sim::crc::run_messages(s.as_mut(), &msgs, &Default::default()).unwrap();
        assert_eq!(res[0].crc, 0xE306_9283);
        assert!(stats.cycles > 10);
    }
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$enddefinitions"), "no VCD header");
    for sig in ["crc_valid", "r3", "s_axis"] {
        assert!(vcd.contains(sig), "VCD lacks {sig}");
    }
    let stamps = vcd.lines().filter(|l| l.starts_with('#')).count();
    assert!(stamps > 20, "only {stamps} timestamps");
}
