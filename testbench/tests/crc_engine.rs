//! The bare engine (`hdl::crc::CrcEngine`, the strobe interface MPA's transmit and receive
//! blocks use) on both engines: `start` restarts a message, gaps between strobes change nothing,
//! results come exactly `latency()` cycles after the last beat, back to back, and reset drops
//! what is in flight. Built resumable, messages cut into pieces of several connections,
//! interleaved, each piece resumed from the CRC value the engine gave for the one before
//! (RFC 5044 B.2's stored partial CRC), give the golden CRC of everything so far.

use golden::crc::CRC32C;
use hdl::crc::CrcEngine;
use hdl::stream::keep_for;
use hdl::with_width;
use sim::crc::{bare_engine, bare_engine_with};
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

macro_rules! resume_tests {
    ($name:ident, $w:expr, $engine:expr) => {
        mod $name {
            #[test]
            fn interleaved_pieces_resumed_from_stored_crcs_give_the_crc_so_far() {
                super::resumed_pieces($engine, $w, &golden::crc::CRC32C);
            }
        }
    };
}

resume_tests!(crc_engine_resume_w4_rusthdl, 4, sim::Engine::RustHdl);
resume_tests!(crc_engine_resume_w8_rusthdl, 8, sim::Engine::RustHdl);
resume_tests!(crc_engine_resume_w16_rusthdl, 16, sim::Engine::RustHdl);
resume_tests!(crc_engine_resume_w32_rusthdl, 32, sim::Engine::RustHdl);
resume_tests!(crc_engine_resume_w64_rusthdl, 64, sim::Engine::RustHdl);
resume_tests!(crc_engine_resume_w4_verilator, 4, sim::Engine::Verilator);
resume_tests!(crc_engine_resume_w8_verilator, 8, sim::Engine::Verilator);
resume_tests!(crc_engine_resume_w16_verilator, 16, sim::Engine::Verilator);
resume_tests!(crc_engine_resume_w32_verilator, 32, sim::Engine::Verilator);
resume_tests!(crc_engine_resume_w64_verilator, 64, sim::Engine::Verilator);

/// The other CRC definitions resume too (their matrices differ; the logic is the same), and so
/// does one whose finalize reverses the register (refin without refout; every definition here
/// has an identity finalize, so only this one checks the F^-1 in the resume matrices).
#[test]
fn crc_engine_resume_w8_rusthdl_ethernet_williams_and_a_reversing_finalize() {
    resumed_pieces(Engine::RustHdl, 8, &golden::crc::CRC32_ETHERNET);
    resumed_pieces(Engine::RustHdl, 8, &golden::crc::CRC32_WILLIAMS);
    let reversing = golden::crc::CrcDef { name: "crc32c_refout_off", refout: false, ..CRC32C };
    resumed_pieces(Engine::RustHdl, 8, &reversing);
}

/// Built as `mpa_tx` and `mpa_rx` build it, the engine has no resume ports and no resume
/// registers (so their Verilog did not change when resuming was added); built resumable, it
/// has both.
#[test]
fn crc_engine_has_resume_ports_only_when_built_resumable() {
    for resumable in [false, true] {
        let sim = bare_engine_with(Engine::RustHdl, &CRC32C, 8, resumable).unwrap();
        let names: Vec<&str> = sim.ports().iter().map(|p| p.name.as_str()).collect();
        for port in ["resume_0", "init_0"] {
            assert_eq!(names.contains(&port), resumable, "resumable={resumable}: {names:?}");
        }
    }
    // Nor any of its registers, at either end of the widths.
    for resumable in [false, true] {
        for w in [4usize, 64] {
            let opts = hdl::crc::engine::EngineOptions {
                resumable,
                ..hdl::crc::engine::EngineOptions::for_width(w)
            };
            let v = with_width!(w, |W, B| {
                let mut e = CrcEngine::<W, B>::with_options(&CRC32C, opts);
                hdl::export::export_block("crc_engine_probe", &mut e, "test").unwrap().verilog
            });
            for name in ["resume", "x0$", "ra1$", "na1$"] {
                assert_eq!(v.contains(name), resumable, "W={w} resumable={resumable}: {name}");
            }
        }
    }
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

/// Messages of several connections, each cut at random points into pieces (empty ones too,
/// half of them followed by their own CRC), sent as separate engine messages, interleaved
/// between the connections, with random gaps between beats and between pieces. The test keeps
/// each connection's context (the CRC value the engine gave for its last piece) and sends the
/// next piece with `resume` and that value once the result is out. Every piece's result must be
/// the golden CRC and bad flag of its connection's octets so far, at the documented latency.
/// `resume` also rides (with a random `init`) on beats that are not first, where it must be
/// ignored; a first piece is sent either plainly or resumed from the empty message's CRC.
fn resumed_pieces(engine: Engine, w: usize, def: &golden::crc::CrcDef) {
    use rand::seq::SliceRandom;
    use rand::Rng;
    let mut r = rng(0x4E5B + w as u64);
    let mut sim = bare_engine_with(engine, def, w, true).unwrap();
    let names = [
        "rst",
        "strobe",
        "start",
        "last",
        "data",
        "keep",
        "resume_0",
        "init_0",
        "crc_valid",
        "crc",
        "crc_bad",
    ];
    let p = names.map(|n| sim.port(n).unwrap());
    sim.reset(2).unwrap();
    let mut words = vec![0u64; words_for(8 * w)];
    // Per connection: its octets, its cut points (piece k is cuts[k]..cuts[k + 1]), the next
    // piece, and the CRC value so far (the context record).
    struct Conn {
        text: Vec<u8>,
        cuts: Vec<usize>,
        next: usize,
        crc: Option<u32>,
        waiting: bool,
    }
    let mut conns: Vec<Conn> = (0..40)
        .map(|i| {
            let len = r.gen_range(0..=5 * w + 3);
            let mut text: Vec<u8> = (0..len).map(|_| r.gen()).collect();
            if i % 2 == 0 {
                let c = golden_crc(def, &text);
                text.extend(def.wire_bytes(c));
            }
            let mut cuts: Vec<usize> =
                (0..r.gen_range(1..=5)).map(|_| r.gen_range(0..=text.len())).collect();
            cuts.push(0);
            cuts.push(text.len());
            if i % 3 == 1 {
                // An empty piece somewhere (a repeated cut): at large W random cuts rarely repeat.
                let k = cuts[r.gen_range(0..cuts.len())];
                cuts.push(k);
            }
            cuts.sort();
            Conn { text, cuts, next: 0, crc: None, waiting: false }
        })
        .collect();
    let pieces: usize = conns.iter().map(|c| c.cuts.len() - 1).sum();
    // Pieces sent and not yet answered, in order: (connection, cycle of the last beat).
    let mut owed: std::collections::VecDeque<(usize, u64)> = Default::default();
    // The beats of the piece being sent: (start, last, bytes, resume, init, first).
    let mut sending: std::collections::VecDeque<(bool, bool, Vec<u8>, bool, u32, bool)> =
        Default::default();
    // Resumed pieces that were empty, and resumed first beats right after another last beat.
    let (mut resumed_empty, mut resumed_back_to_back) = (0, 0);
    let mut last_before = false;
    let mut sending_conn = 0;
    let mut done = 0;
    let mut resumed = 0;
    let mut cycle = 0u64;
    while done < pieces {
        assert!(cycle < 100_000, "{engine} W={w}: stuck with {done} of {pieces} pieces");
        if sending.is_empty() && r.gen_bool(0.7) {
            let ready: Vec<usize> = (0..conns.len())
                .filter(|&i| !conns[i].waiting && conns[i].next + 1 < conns[i].cuts.len())
                .collect();
            if let Some(&i) = ready.choose(&mut r) {
                let c = &mut conns[i];
                let piece = c.text[c.cuts[c.next]..c.cuts[c.next + 1]].to_vec();
                let (resume, init) = match c.crc {
                    Some(v) => {
                        resumed += 1;
                        (true, v)
                    }
                    None if r.gen_bool(0.5) => (true, golden_crc(def, &[])),
                    None => (false, r.gen()),
                };
                let bs = beats(&piece, w);
                let n = bs.len();
                let explicit_start = r.gen_bool(0.5);
                for (k, d) in bs.into_iter().enumerate() {
                    let (res, ini) = if k == 0 { (resume, init) } else { (r.gen(), r.gen()) };
                    sending.push_back((k == 0 && explicit_start, k + 1 == n, d, res, ini, k == 0));
                }
                c.waiting = true;
                sending_conn = i;
            }
        }
        let beat = if !sending.is_empty() && r.gen_bool(0.8) { sending.pop_front() } else { None };
        let strobe = beat.is_some();
        let (start, last, bytes, resume, init, first) =
            beat.unwrap_or((r.gen(), r.gen(), vec![0xA5; w], r.gen(), r.gen(), false));
        if strobe && first && resume {
            resumed_empty += bytes.is_empty() as usize;
            resumed_back_to_back += last_before as usize;
        }
        last_before = strobe && last;
        words_from_bytes(&bytes, &mut words);
        sim.set(p[4], &words);
        sim.set_u64(p[5], keep_for(if strobe { bytes.len() } else { w }));
        sim.set_u64(p[1], strobe as u64);
        sim.set_u64(p[2], start as u64);
        sim.set_u64(p[3], last as u64);
        sim.set_u64(p[6], resume as u64);
        sim.set_u64(p[7], init as u64);
        sim.set_u64(p[0], 0);
        sim.eval();
        if strobe && last {
            owed.push_back((sending_conn, cycle));
        }
        if sim.get_u64(p[8]) & 1 != 0 {
            let (i, at) = owed.pop_front().expect("a result nobody is owed");
            let c = &mut conns[i];
            let so_far = &c.text[..c.cuts[c.next + 1]];
            let (crc, bad) = (sim.get_u64(p[9]) as u32, sim.get_u64(p[10]) & 1 != 0);
            let what = format!("{engine} W={w} {}: connection {i} piece {}", def.name, c.next);
            assert_eq!(crc, golden_crc(def, so_far), "{what}");
            assert_eq!(bad, golden_bad(def, so_far), "{what}: bad flag");
            assert_eq!((cycle - at) as usize, latency(w), "{what}: latency");
            c.crc = Some(crc);
            c.next += 1;
            c.waiting = false;
            done += 1;
        }
        sim.tick();
        cycle += 1;
    }
    assert!(owed.is_empty(), "{engine} W={w}: results missing");
    assert!(
        pieces >= 100 && resumed >= 60 && resumed_empty >= 3 && resumed_back_to_back >= 10,
        "{engine} W={w}: {pieces} pieces, {resumed} resumed, {resumed_empty} of them empty, \
         {resumed_back_to_back} right after another message's last beat"
    );
}

/// Random strobe-level traffic (gaps, `start` anywhere, null and partial last beats, resets,
/// `resume` with random `init`) on the rust-hdl model and the exported Verilog in lock step:
/// every output equal every cycle; built with and without the resume logic.
fn bare_lockstep(w: usize, resumable: bool) {
    use rand::Rng;
    let mut a = bare_engine_with(Engine::RustHdl, &CRC32C, w, resumable).unwrap();
    let mut b = bare_engine_with(Engine::Verilator, &CRC32C, w, resumable).unwrap();
    let mut both = sim::lockstep::Lockstep::new(a.as_mut(), b.as_mut()).unwrap();
    let names = ["rst", "strobe", "start", "last", "data", "keep"];
    let p = names.map(|n| both.port(n).unwrap());
    let resume = ["resume_0", "init_0"].map(|n| both.port(n).ok());
    assert_eq!(resume.iter().all(|p| p.is_some()), resumable, "W={w}: resume ports");
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
        if let [Some(q), Some(i)] = resume {
            both.set_u64(q, r.gen_bool(0.5) as u64);
            both.set_u64(i, r.gen::<u32>() as u64);
        }
        both.eval();
        results += both.get_u64(both.port("crc_valid").unwrap());
        both.tick();
    }
    assert!(both.mismatches.is_empty(), "W={w}:\n{}", both.mismatches.join("\n"));
    assert!(results > 300, "W={w}: only {results} results compared");
}

#[test]
fn crc_engine_w8_rusthdl_and_verilator_agree_on_random_strobes_starts_and_resets() {
    bare_lockstep(8, false);
}

#[test]
fn crc_engine_resumable_w8_rusthdl_and_verilator_agree_on_random_strobes_and_resumes() {
    bare_lockstep(8, true);
}

#[test]
fn crc_engine_resumable_w64_rusthdl_and_verilator_agree_on_random_strobes_and_resumes() {
    bare_lockstep(64, true);
}

#[test]
fn crc_engine_w64_rusthdl_and_verilator_agree_on_random_strobes_starts_and_resets() {
    bare_lockstep(64, false);
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

/// The resumable engine's exported Verilog (not a top, so not in `export.rs`'s lists) passes
/// Yosys `check -assert` and Verilator's lint with width warnings, at both ends of the widths.
#[test]
fn crc_engine_resumable_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    for w in [4usize, 64] {
        let opts = hdl::crc::engine::EngineOptions::resumable_for_width(w);
        let name = format!("crc_engine_resumable_w{w}");
        let v = with_width!(w, |W, B| {
            let mut e = CrcEngine::<W, B>::with_options(&CRC32C, opts);
            hdl::export::export_block(&name, &mut e, "test").unwrap().verilog
        });
        testbench::check_block_verilog(&name, &v);
    }
}
