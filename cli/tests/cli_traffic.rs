//! `rnic traffic` and `rnic place`, run as a user (or a hardware test) runs them: files,
//! standard input and output, exit status.

mod common;

use common::{rnic, text};
use serde_json::Value;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../build/test-cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `rnic traffic` with `extra` arguments: (segments, config path).
fn traffic(name: &str, extra: &[&str]) -> (String, PathBuf) {
    let cfg = scratch(&format!("{name}.json"));
    let mut args = vec!["traffic", "--config-out", cfg.to_str().unwrap()];
    if !extra.contains(&"--messages") {
        args.extend(["--messages", "80"]);
    }
    args.extend_from_slice(extra);
    let o = rnic(&args, "");
    assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    (text(&o.stdout), cfg)
}

fn place(cfg: &PathBuf, segments: &str, extra: &[&str]) -> (Vec<Value>, i32) {
    let mut args = vec!["place", "--config", cfg.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = rnic(&args, segments);
    let lines =
        text(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    (lines, o.status.code().unwrap())
}

fn of_kind<'a>(lines: &'a [Value], kinds: &[&str]) -> Vec<&'a Value> {
    lines.iter().filter(|v| kinds.iter().any(|k| v.get(k).is_some())).collect()
}

#[test]
fn arrival_order_gives_the_deliveries_error_and_memory_of_the_in_order_run() {
    for (name, args, status) in [
        ("ooo", &["--scenario", "aligned-ooo", "--seed", "4"][..], 0),
        ("middlebox", &["--scenario", "middlebox", "--seed", "5", "--markers"][..], 0),
        ("crc", &["--scenario", "faults", "--fault", "crc", "--seed", "6"][..], 2),
        ("bounds", &["--scenario", "faults", "--fault", "bounds-high", "--markers"][..], 2),
    ] {
        let (segments, cfg) = traffic(name, args);
        let n = segments.lines().count();
        let (ooo, s1) = place(&cfg, &segments, &[]);
        let (inorder, s2) = place(&cfg, &segments, &["--inorder"]);
        assert_eq!((s1, s2), (status, status), "{name}: exit status");
        assert_eq!(of_kind(&ooo, &["segment"]).len(), n, "{name}: a verdict per segment");
        assert_eq!(of_kind(&ooo, &["deliver", "error"]), of_kind(&inorder, &["deliver", "error"]));
        assert!(!of_kind(&ooo, &["deliver"]).is_empty());
        if status == 0 {
            assert_eq!(of_kind(&ooo, &["memory"]), of_kind(&inorder, &["memory"]), "{name}");
        } else {
            let e = &of_kind(&ooo, &["error"])[0]["error"];
            assert!(e["layer"].is_u64() && e["etype"].is_u64() && e["code"].is_u64());
        }
        let config: Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
        let regions = config["regions"].as_array().unwrap().len();
        let posted = config["posted"].as_array().unwrap().len();
        assert_eq!(of_kind(&ooo, &["memory"]).len(), regions + posted);
        let metrics = &ooo.last().unwrap()["metrics"];
        assert_eq!(metrics["segments"].as_u64(), Some(n as u64), "{name}: metrics last");
    }
}

#[test]
fn smallest_buffer_refuses_and_retransmission_completes_the_stream() {
    let (segments, cfg) = traffic(
        "small",
        &["--scenario", "loss", "--seed", "2", "--reassembly", "min", "--records", "1"],
    );
    let (once, _) = place(&cfg, &segments, &[]);
    let refused = |lines: &[Value]| lines.iter().filter(|v| v["verdict"] == "refused").count();
    assert!(refused(&once) > 0, "the smallest buffer refuses out-of-order segments");
    let (again, status) = place(&cfg, &segments, &["--retransmit", "5"]);
    let (reference, _) = place(&cfg, &segments, &["--inorder"]);
    assert_eq!(status, 0);
    assert!(refused(&again) > 0);
    assert_eq!(of_kind(&again, &["deliver", "error"]), of_kind(&reference, &["deliver", "error"]));
    assert_eq!(of_kind(&again, &["memory"]), of_kind(&reference, &["memory"]));
}

#[test]
fn traffic_writes_a_pcap_and_a_configuration_the_receiver_reads() {
    let pcap = scratch("t.pcap");
    let (segments, cfg) =
        traffic("pcap", &["--scenario", "wrap", "--pcap", pcap.to_str().unwrap(), "--no-crc"]);
    let cap = std::fs::read(&pcap).unwrap();
    assert_eq!(&cap[..4], &[0xd4, 0xc3, 0xb2, 0xa1], "libpcap magic");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    assert_eq!(config["crc"], false);
    // Sequence numbers wrap: some segment's SEQ is below the origin.
    let origin = config["origin"].as_u64().unwrap();
    assert!(segments
        .lines()
        .any(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap() < origin));
    assert!(segments.lines().last().unwrap().ends_with(" fin"));
}

#[test]
fn bad_input_is_one_line_and_exit_status_1() {
    let (_, cfg) = traffic("bad", &["--scenario", "inorder"]);
    for (input, words) in [
        ("12 zz\n", "line 1"),
        ("x 00\n", "line 1"),
        ("1 00 fin\n2\n", "line 2"),
        ("1 00 nope\n", "line 1"),
    ] {
        let o = rnic(&["place", "--config", cfg.to_str().unwrap()], input);
        assert_eq!(o.status.code(), Some(1), "{input:?}");
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(words), "{err}");
    }
    let bogus = scratch("bogus.json");
    std::fs::write(&bogus, "{\"markers\": true}").unwrap();
    let o = rnic(&["place", "--config", bogus.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("bogus.json"));
    for args in [
        &["traffic", "--scenario", "nope", "--config-out", "/dev/null"][..],
        &["traffic", "--scenario", "inorder", "--fault", "crc", "--config-out", "/dev/null"][..],
        &["traffic", "--scenario", "faults", "--fault", "marker", "--config-out", "/dev/null"][..],
        &["traffic", "--scenario", "inorder", "--records", "0", "--config-out", "/dev/null"][..],
    ] {
        let o = rnic(args, "");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&o.stderr).lines().count(), 1);
    }
}

/// `rnic sim place` against `rnic place --inorder` on the same files: the same lines but the
/// metrics (verdicts, deliveries after the same segments, the error, memory) and the same exit
/// status, on both engines; segments given out of order (with duplicates) are put in order.
#[test]
fn sim_place_gives_the_output_of_place_inorder() {
    for (name, extra, engine, width, exit) in [
        (
            "hw-inorder",
            vec!["--scenario", "inorder", "--seed", "3", "--messages", "30"],
            "verilator",
            "8",
            0,
        ),
        (
            "hw-dup",
            vec!["--scenario", "dup", "--seed", "4", "--messages", "30", "--markers"],
            "verilator",
            "64",
            0,
        ),
        (
            "hw-crc",
            vec!["--scenario", "faults", "--fault", "crc", "--seed", "5", "--messages", "30"],
            "verilator",
            "16",
            2,
        ),
        (
            "hw-truncated",
            vec!["--scenario", "faults", "--fault", "truncated", "--seed", "7", "--messages", "8"],
            "verilator",
            "4",
            2,
        ),
        (
            "hw-pd",
            vec![
                "--scenario",
                "faults",
                "--fault",
                "pd",
                "--seed",
                "9",
                "--messages",
                "8",
                "--markers",
            ],
            "rusthdl",
            "8",
            2,
        ),
    ] {
        let (segs, cfg) = traffic(name, &extra);
        let (gold, gold_exit) = place(&cfg, &segs, &["--inorder"]);
        let args = [
            "sim",
            "place",
            "--config",
            cfg.to_str().unwrap(),
            "--width",
            width,
            "--engine",
            engine,
        ];
        let o = rnic(&args, &segs);
        let hw: Vec<Value> =
            text(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
        assert_eq!(o.status.code(), Some(exit), "{name}: {}", text(&o.stderr));
        assert_eq!(gold_exit, exit, "{name}: golden");
        let strip = |v: &[Value]| -> Vec<Value> {
            v.iter().filter(|x| x.get("metrics").is_none()).cloned().collect()
        };
        assert_eq!(strip(&hw), strip(&gold), "{name}: rnic sim place vs rnic place --inorder");
        let m = &hw.last().unwrap()["metrics"];
        assert!(m["cycles"].as_u64().unwrap() > 0 && m["engine"] == engine, "{name}: {m}");
        if exit == 2 {
            assert_eq!(text(&o.stderr).lines().count(), 1, "{name}: one line on stderr");
        }
    }
}

/// A configuration the hardware cannot hold is refused with one line and exit status 1.
#[test]
fn sim_place_refuses_a_configuration_beyond_the_hardware() {
    let (segs, cfg) = traffic("hw-refuse", &["--scenario", "inorder", "--messages", "4"]);
    let text_cfg = std::fs::read_to_string(&cfg).unwrap();
    for (what, want) in [("max_ulpdu", "max_ulpdu 20000"), ("stag index", "beyond the table")] {
        let bad = scratch(&format!("hw-refuse-{}.json", what.replace(' ', "-")));
        let mut v: Value = serde_json::from_str(&text_cfg).unwrap();
        match what {
            "max_ulpdu" => v["max_ulpdu"] = 20000.into(),
            _ => v["regions"][0]["stag"] = 0x0100_0155.into(),
        }
        std::fs::write(&bad, v.to_string()).unwrap();
        let o = rnic(
            &["sim", "place", "--config", bad.to_str().unwrap(), "--engine", "verilator"],
            &segs,
        );
        assert_eq!(o.status.code(), Some(1), "{what}");
        let e = text(&o.stderr);
        assert_eq!(e.lines().count(), 1, "{what}: {e}");
        assert!(e.contains(want), "{what}: {e}");
    }
}

/// `rnic sim place --arrival` against `rnic place` on the same files with the hardware's
/// reassembly settings, out-of-order placement on (without header-alignment detection) or off:
/// segments out of order, duplicated, re-cut, refused for a small buffer (and not offered
/// again): the same verdicts, deliveries, error and memory; a configuration without those
/// settings is refused with one line.
#[test]
fn sim_place_arrival_gives_the_output_of_place() {
    for (name, extra, engine, width, small, placing) in [
        (
            "hw-arr-loss",
            vec!["--scenario", "loss", "--seed", "11", "--messages", "24"],
            "verilator",
            "8",
            true,
            true,
        ),
        (
            "hw-arr-mixed",
            vec!["--scenario", "mixed", "--seed", "12", "--messages", "24", "--markers"],
            "verilator",
            "32",
            false,
            false,
        ),
        (
            "hw-arr-wrap",
            vec!["--scenario", "wrap", "--seed", "13", "--messages", "10"],
            "verilator",
            "16",
            false,
            true,
        ),
    ] {
        let (segs, cfg) = traffic(name, &extra);
        let text_cfg = std::fs::read_to_string(&cfg).unwrap();
        let o = rnic(&["sim", "place", "--arrival", "--config", cfg.to_str().unwrap()], &segs);
        assert_eq!(o.status.code(), Some(1), "{name}: default settings are not the hardware's");
        assert!(text(&o.stderr).contains("reassembly_window"), "{name}: {}", text(&o.stderr));
        let mut v: Value = serde_json::from_str(&text_cfg).unwrap();
        v["place_out_of_order"] = placing.into();
        v["reassembly_window"] = 65536.into();
        v["records"] = 3.into();
        if small {
            v["reassembly_octets"] = 6000.into();
        }
        let hw_cfg = scratch(&format!("{name}-hw.json"));
        std::fs::write(&hw_cfg, v.to_string()).unwrap();
        let (gold, gold_exit) = place(&hw_cfg, &segs, &[]);
        let args = [
            "sim",
            "place",
            "--arrival",
            "--config",
            hw_cfg.to_str().unwrap(),
            "--width",
            width,
            "--engine",
            engine,
        ];
        let o = rnic(&args, &segs);
        let hw: Vec<Value> =
            text(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
        assert_eq!(o.status.code(), Some(gold_exit), "{name}: {}", text(&o.stderr));
        let strip = |v: &[Value]| -> Vec<Value> {
            v.iter().filter(|x| x.get("metrics").is_none()).cloned().collect()
        };
        assert_eq!(strip(&hw), strip(&gold), "{name}: rnic sim place --arrival vs rnic place");
        let refused =
            of_kind(&gold, &["segment"]).iter().filter(|x| x["verdict"] == "refused").count()
                as u64;
        let m = &hw.last().unwrap()["metrics"];
        assert_eq!(m["refused"].as_u64(), Some(refused), "{name}: {m}");
        if small {
            assert!(refused > 0, "{name}: a small buffer refuses");
        }
    }
}
