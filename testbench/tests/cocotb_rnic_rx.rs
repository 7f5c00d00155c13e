//! The exported `rnic_rx_w8` as a third party would test it: cocotb on Icarus with
//! cocotbext-axi's AXI-Stream source and sink, AXI-Lite master and write-only AXI RAM
//! (`testbench/cocotb/test_rnic_rx.py`), one connection per line of `testbench/cocotb/cases.txt`,
//! compared with the golden receiver in sequence order (records and memory).
//!
//! This test exports the Verilog, writes every case's files in the formats of `rnic traffic`
//! and `rnic place --inorder` (through the `sim` and `golden` crates, so no `rnic` binary is
//! needed and the golden result always comes from the code under test) and runs cocotb's
//! makefile flow (`make -C testbench/cocotb`) with the project's `.venv`. Files go to
//! `build/cocotb/cargo/` (the log of the run in `cocotb.log`). It needs `make deps` (cocotb and
//! cocotbext-axi in `.venv`, `iverilog`); `make test` runs that first, so a missing tool fails
//! the test instead of skipping it.

use golden::receiver::ReceiverConfig;
use sim::traffic::{self, Fault, Scenario, TrafficOptions};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest the cocotb run may take (it takes well under a minute here).
const TIMEOUT: Duration = Duration::from_secs(900);

fn root() -> PathBuf {
    sim::workspace_root()
}

/// The cases of `cases.txt`: name and the `rnic traffic` options they stand for.
fn cases() -> Vec<(String, TrafficOptions)> {
    let path = root().join("testbench/cocotb/cases.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut tok = line.split_whitespace();
        let name = tok.next().unwrap().to_string();
        // The defaults of `rnic traffic`.
        let mut o = TrafficOptions { messages: 200, ..TrafficOptions::default() };
        while let Some(flag) = tok.next() {
            let mut value =
                || tok.next().unwrap_or_else(|| panic!("cases.txt, {name}: {flag} needs a value"));
            match flag {
                "--scenario" => o.scenario = Scenario::by_name(value()).unwrap(),
                "--seed" => o.seed = value().parse().unwrap(),
                "--messages" => o.messages = value().parse().unwrap(),
                "--emss" => o.emss = value().parse().unwrap(),
                "--fault" => {
                    let f = value();
                    o.fault = Some(Fault::by_name(f).unwrap_or_else(|| panic!("fault {f}")));
                }
                "--markers" => o.markers = true,
                "--no-crc" => o.crc = false,
                other => panic!("cases.txt, {name}: this test does not know {other}"),
            }
        }
        out.push((name, o));
    }
    assert!(!out.is_empty(), "no cases in {}", path.display());
    out
}

/// The golden result as `rnic place --inorder` writes it, without the final metrics line.
fn golden_jsonl(cfg: &ReceiverConfig, segments: &[traffic::TcpSegment]) -> String {
    let run = traffic::run_receiver(cfg, segments, true, None, false).expect("golden run");
    let memory = run.receiver.memory();
    let mut s = String::new();
    for v in traffic::place_output(cfg, &run.log, |t| memory.get(t), None) {
        let _ = writeln!(s, "{v}");
    }
    s
}

/// Writes `text` to `path` unless it already holds it (so make sees an unchanged file).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// What this test needs from `make deps`; a message naming what is missing.
fn check_tools(python: &Path) -> Result<(), String> {
    let mut missing = Vec::new();
    if !python.is_file() {
        missing.push(format!("{} (the project venv)", python.display()));
    } else {
        let ok = Command::new(python)
            .args(["-c", "import cocotb, cocotb_tools, cocotbext.axi"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            missing
                .push("cocotb / cocotbext-axi in .venv (testbench/cocotb/requirements.txt)".into());
        }
    }
    if !sim::icarus::available() {
        missing.push("iverilog / vvp (Debian package iverilog)".into());
    }
    if !Command::new("make").arg("--version").output().is_ok_and(|o| o.status.success()) {
        missing.push("make".into());
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("missing: {}. Run `make deps` (make test does) first.", missing.join("; ")))
    }
}

#[test]
fn rnic_rx_w8_under_cocotb_with_cocotbext_axi_matches_golden() {
    let root = root();
    let python = root.join(".venv/bin/python");
    if let Err(e) = check_tools(&python) {
        panic!("{e}");
    }
    let out = root.join("build/cocotb/cargo");
    let verilog_dir = out.join("verilog");
    let cases_dir = out.join("cases");
    std::fs::create_dir_all(&verilog_dir).unwrap();

    // The Verilog, as `rnic export --width 8` writes it.
    let top = sim::export::export_top(&hdl::export::rnic_rx_spec(8).unwrap()).unwrap();
    let verilog = verilog_dir.join(format!("{}.v", top.name));
    write_if_changed(&verilog, &top.verilog);

    // Every case in the formats of `rnic traffic` and `rnic place --inorder`.
    let cases = cases();
    for (name, o) in &cases {
        let t = traffic::generate(o);
        t.config.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let cfg_text = serde_json::to_string_pretty(&t.config).expect("serializes") + "\n";
        let back = ReceiverConfig::from_json(&cfg_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, t.config, "{name}: the configuration JSON does not read back");
        sim::place::check_fits(&t.config, 8).unwrap_or_else(|e| panic!("{name}: {e}"));
        let d = cases_dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        write_if_changed(&d.join("cfg.json"), &cfg_text);
        write_if_changed(&d.join("segs.txt"), &traffic::format_segments(&t.segments));
        write_if_changed(&d.join("golden.jsonl"), &golden_jsonl(&t.config, &t.segments));
    }

    // cocotb's makefile flow.
    let results = out.join("results.xml");
    let _ = std::fs::remove_file(&results);
    let log_path = out.join("cocotb.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let _ = std::fs::remove_file(out.join("speed.txt"));
    let start = Instant::now();
    let mut child = Command::new("make")
        .arg("-C")
        .arg(root.join("testbench/cocotb"))
        .env("VENV", root.join(".venv"))
        .env("RNIC_VERILOG", &verilog)
        .env("RNIC_COCOTB_CASES", &cases_dir)
        .env("SIM_BUILD", out.join("sim_build"))
        .env("COCOTB_RESULTS_FILE", &results)
        .env("RNIC_COCOTB_SPEED", out.join("speed.txt"))
        .env_remove("RNIC_COCOTB_CASE")
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("make runs");
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("cocotb did not finish in {TIMEOUT:?}; see {}", log_path.display());
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let seconds = start.elapsed().as_secs_f64();
    let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
    let tail: Vec<&str> =
        log_text.lines().rev().take(60).collect::<Vec<_>>().into_iter().rev().collect();
    let xml = std::fs::read_to_string(&results).unwrap_or_else(|_| {
        panic!(
            "cocotb wrote no {} (make exited {status}); the end of {}:\n{}",
            results.display(),
            log_path.display(),
            tail.join("\n")
        )
    });
    let testcases = xml.matches("<testcase").count();
    let failures = xml.matches("<failure").count() + xml.matches("<error").count();
    let skipped = xml.matches("<skipped").count();
    println!(
        "cocotb: {testcases} tests, {failures} failed, {skipped} skipped in {seconds:.0} s; {}",
        std::fs::read_to_string(out.join("speed.txt"))
            .unwrap_or_default()
            .trim()
            .replace('\n', "; ")
    );
    assert!(
        status.success() && failures == 0 && skipped == 0 && testcases == cases.len(),
        "cocotb test of rnic_rx_w8: make exited {status}, {testcases} tests (expected {}), \
         {failures} failed, {skipped} skipped; the end of {}:\n{}",
        cases.len(),
        log_path.display(),
        tail.join("\n")
    );
}
