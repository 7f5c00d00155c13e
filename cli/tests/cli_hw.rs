//! The `rnic` hardware subcommands (`export`, `sim crc`, `vectors --hardware`), run as a user
//! runs them: standard input, output, error and exit status.

mod common;

use common::{rnic, rnic_in, text};

/// The 48 octets RFC 5044 Figure 5's CRC covers, in hex.
fn figure5_covered() -> String {
    let mut f = vec![0u8; 48];
    f[5] = 0x2a;
    f[6] = 0x41;
    f[7] = 0x43;
    f[0x13] = 1;
    f.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn sim_crc_prints_figure5_crc_value_at_every_width() {
    for w in ["4", "8", "16", "32", "64"] {
        let o = rnic(&["sim", "crc", "--width", w], &format!("{}\n\n", figure5_covered()));
        assert!(o.status.success(), "W={w}: {}", text(&o.stderr));
        // Figure 5's field is `52 23 99 83`; the empty message's CRC32c is 0.
        assert_eq!(text(&o.stdout), "83992352\n00000000\n", "W={w}");
    }
}

#[test]
fn sim_crc_on_verilator_matches_and_williams_poly_differs() {
    let o = rnic(&["sim", "crc", "--width", "8", "--engine", "verilator"], "313233343536373839\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "e3069283\n");
    let o = rnic(&["sim", "crc", "--width", "8", "--poly", "ethernet"], "313233343536373839\n");
    assert_eq!(text(&o.stdout), "cbf43926\n", "the CRC-32 (Ethernet) check value");
}

#[test]
fn sim_crc_rejects_bad_input_with_one_line_and_status_1() {
    for (args, input, want) in [
        (vec!["sim", "crc", "--width", "12"], "00\n", "--width 12"),
        (vec!["sim", "crc", "--engine", "iverilog"], "00\n", "--engine iverilog"),
        (vec!["sim", "crc"], "0g\n", "line 1"),
    ] {
        let o = rnic(&args, input);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = text(&o.stderr);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(want), "{e}");
    }
}

#[test]
fn export_writes_plain_named_tops_for_one_width() {
    let dir = std::env::temp_dir().join(format!("rnic-export-{}", std::process::id()));
    let o = rnic(&["export", "--width", "16", "--out", dir.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = std::fs::read_to_string(dir.join("mpa_crc32c_w16.v")).unwrap();
    assert!(v.contains("module mpa_crc32c_w16 ("));
    assert!(v.contains("input  wire [127:0] s_axis_tdata"));
    assert!(text(&o.stdout).lines().count() >= 3);
    let _ = std::fs::remove_dir_all(&dir);
    let o = rnic(&["export", "--width", "5"], "");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn vectors_through_the_hardware_all_pass() {
    let o = rnic(&["vectors", "--hardware"], "");
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("rfc5044-figure5  mpa_crc32c_w64"));
    for fig in ["rfc5044-figure5", "rfc5044-figure6", "rdmac-figure5", "rdmac-figure6"] {
        for w in [4, 8, 16, 32, 64] {
            let row = format!("{fig:<16} rnic_rx_w{w} (rusthdl): places and delivers the Send");
            assert!(out.lines().any(|l| l.starts_with(&row) && l.contains(" pass ")), "{row}");
        }
    }
    assert!(out.trim_end().ends_with(", 0 failed"));
}

/// ULPDU lines of assorted sizes (hex), from a simple generator.
fn ulpdu_lines(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let len = (next() % 1300) as usize;
            (0..len).map(|_| format!("{:02x}", next() as u8)).collect::<String>() + "\n"
        })
        .collect()
}

#[test]
fn sim_tx_prints_exactly_what_frame_prints() {
    for (k, (w, engine, opts)) in [
        ("4", "verilator", vec!["--markers"]),
        ("8", "rusthdl", vec!["--markers", "--offset", "500"]),
        ("16", "verilator", vec!["--no-crc"]),
        ("64", "verilator", vec!["--markers", "--offset", "4"]),
        ("8", "verilator", vec!["--markers", "--offset", "252"]),
        ("32", "verilator", vec![]),
    ]
    .into_iter()
    .enumerate()
    {
        let input = ulpdu_lines(k as u64 + 1, 12) + "\n";
        let mut args = vec!["sim", "tx", "--width", w, "--engine", engine];
        args.extend(&opts);
        let hw = rnic(&args, &input);
        assert!(hw.status.success(), "{args:?}: {}", text(&hw.stderr));
        let mut fargs = vec!["frame"];
        fargs.extend(&opts);
        let golden = rnic(&fargs, &input);
        assert!(golden.status.success());
        assert_eq!(text(&hw.stdout), text(&golden.stdout), "{args:?}");
        assert_eq!(text(&hw.stdout).lines().count(), 13);
    }
}

#[test]
fn sim_tx_rejects_what_frame_rejects_with_the_same_message() {
    let too_long = "00".repeat(64769) + "\n";
    for (args, input) in [
        (vec!["--offset", "6"], "00\n".to_string()),
        (vec!["--markers"], too_long),
        (vec![], "0\n".to_string()),
    ] {
        let mut hw_args = vec!["sim", "tx"];
        hw_args.extend(&args);
        let hw = rnic(&hw_args, &input);
        let mut f_args = vec!["frame"];
        f_args.extend(&args);
        let golden = rnic(&f_args, &input);
        assert_eq!(hw.status.code(), Some(1), "{args:?}");
        assert_eq!(golden.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&hw.stderr), text(&golden.stderr), "{args:?}");
    }
    let o = rnic(&["sim", "tx", "--engine", "verilator", "--vcd", "/tmp/x.vcd"], "00\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--vcd needs --engine rusthdl"));
}

#[test]
fn sim_tx_writes_a_vcd_on_request() {
    let path = std::env::temp_dir().join(format!("rnic-tx-{}.vcd", std::process::id()));
    let o = rnic(&["sim", "tx", "--width", "8", "--vcd", path.to_str().unwrap()], "0102\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$var") && vcd.contains("segmenter"), "not a VCD of mpa_tx");
    let _ = std::fs::remove_file(&path);
}

/// The MPA stream `rnic frame` makes of `ulpdus` with `opts`, as one hex line.
fn framed(opts: &[&str], ulpdus: &str) -> String {
    let mut args = vec!["frame"];
    args.extend(opts);
    let o = rnic(&args, ulpdus);
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout).lines().collect::<String>() + "\n"
}

#[test]
fn sim_rx_prints_exactly_what_deframe_prints() {
    for (k, (w, engine, opts, reseg)) in [
        ("4", "verilator", vec!["--markers"], Some("1")),
        ("8", "rusthdl", vec!["--markers", "--offset", "500"], None),
        ("16", "verilator", vec!["--no-crc"], Some("2")),
        ("64", "verilator", vec!["--markers", "--offset", "4"], Some("3")),
        ("8", "verilator", vec!["--markers", "--offset", "252"], Some("4")),
        ("32", "verilator", vec![], None),
    ]
    .into_iter()
    .enumerate()
    {
        let stream = framed(&opts, &(ulpdu_lines(k as u64 + 7, 12) + "\n"));
        let mut args = vec!["sim", "rx", "--width", w, "--engine", engine];
        args.extend(&opts);
        if let Some(seed) = reseg {
            args.extend(["--resegment", seed]);
        }
        let hw = rnic(&args, &stream);
        assert!(hw.status.success(), "{args:?}: {}", text(&hw.stderr));
        let mut dargs = vec!["deframe"];
        dargs.extend(&opts);
        let golden = rnic(&dargs, &stream);
        assert!(golden.status.success());
        assert_eq!(text(&hw.stdout), text(&golden.stdout), "{args:?}");
        assert_eq!(text(&hw.stdout).lines().count(), 13);
    }
}

#[test]
fn sim_rx_holds_a_large_ulpdu_until_its_crc_and_prints_it() {
    let big: String = (0..12000).map(|i| format!("{:02x}", (i * 13) as u8)).collect();
    let stream = framed(&["--markers"], &(big.clone() + "\n"));
    let hw = rnic(&["sim", "rx", "--width", "4", "--markers", "--resegment", "9"], &stream);
    assert!(hw.status.success(), "{}", text(&hw.stderr));
    assert_eq!(text(&hw.stdout), big + "\n");
}

#[test]
fn sim_rx_reports_errors_as_deframe_does() {
    let good = framed(&["--markers"], &(ulpdu_lines(3, 6) + "\n"));
    let good = good.trim().to_string();
    let mut bad_crc = good.clone().into_bytes();
    let at = bad_crc.len() / 2;
    bad_crc[at] = if bad_crc[at] == b'0' { b'1' } else { b'0' };
    let cases: Vec<(Vec<&str>, String, i32)> = vec![
        (vec!["--markers"], String::from_utf8(bad_crc).unwrap(), 2),
        (vec!["--markers"], good[..good.len() - 10].to_string(), 2),
        (vec!["--markers", "--max-ulpdu", "100"], good.clone(), 2),
        (vec!["--offset", "6"], good.clone(), 1),
        (vec![], "0g".to_string(), 1),
    ];
    for (opts, input, status) in cases {
        let mut hw_args = vec!["sim", "rx", "--width", "8"];
        hw_args.extend(&opts);
        let hw = rnic(&hw_args, &input);
        let mut d_args = vec!["deframe"];
        d_args.extend(&opts);
        let golden = rnic(&d_args, &input);
        assert_eq!(golden.status.code(), Some(status), "{opts:?}: {}", text(&golden.stderr));
        assert_eq!(hw.status.code(), Some(status), "{opts:?}: {}", text(&hw.stderr));
        assert_eq!(text(&hw.stderr), text(&golden.stderr), "{opts:?}");
        assert_eq!(text(&hw.stdout), text(&golden.stdout), "{opts:?}");
    }
}

#[test]
fn sim_rx_writes_a_vcd_on_request() {
    let path = std::env::temp_dir().join(format!("rnic-rx-{}.vcd", std::process::id()));
    let o = rnic(&["sim", "rx", "--width", "8", "--vcd", path.to_str().unwrap()], "000201020000\n");
    assert!(o.status.code().is_some(), "{}", text(&o.stderr));
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$var") && vcd.contains("rel_buf"), "not a VCD of mpa_rx");
    let _ = std::fs::remove_file(&path);
    let o = rnic(&["sim", "rx", "--engine", "verilator", "--vcd", "/tmp/x.vcd"], "00\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--vcd needs --engine rusthdl"));
}

#[test]
fn bitstream_names_the_boards_when_given_an_unknown_one() {
    let o = rnic(&["bitstream", "--board", "arty"], "");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.contains("unknown board \"arty\"") && e.contains("ulx3s, hx8k"), "{e}");
}

/// `rnic synth` with several seeds: one line per seed, the spread, the floor checked at the
/// worst seed (exit 2 below it), and the report keeping that seed's record. The CRC top at
/// W = 4 (the smallest), two seeds, in a directory under the workspace (the YoWASP tools see
/// only paths below their working directory's root); needs the `.venv` that `make test` installs.
#[test]
fn synth_over_seeds_reports_the_spread_and_checks_the_floor_at_the_worst_seed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = format!("build/test-synth-seeds-{}", std::process::id());
    let run = |args: &[&str]| rnic_in(&root, args, "");
    let o = run(&["export", "--width", "4", "--out", &format!("{dir}/verilog")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = run(&[
        "synth",
        "--top",
        "mpa_crc32c",
        "--width",
        "4",
        "--seed",
        "1,2",
        "--verilog-dir",
        &format!("{dir}/verilog"),
        "--out",
        &dir,
        "--min-fmax",
        "10000",
    ]);
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    let fmax_of = |seed: u64| -> f64 {
        let tag = format!("mpa_crc32c_w4 seed={seed} fmax_mhz=");
        let line = out.lines().find(|l| l.contains(&tag)).unwrap_or_else(|| panic!("{out}"));
        line.split(&tag).nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
    };
    let (f1, f2) = (fmax_of(1), fmax_of(2));
    assert!(f1 > 50.0 && f2 > 50.0, "{out}");
    let (worst, worst_f) = if f2 < f1 { (2, f2) } else { (1, f1) };
    let spread =
        out.lines().find(|l| l.contains("over 2 seeds")).unwrap_or_else(|| panic!("{out}"));
    assert!(spread.contains(&format!("min {worst_f:.1} (seed {worst})")), "{spread}");
    assert!(spread.contains(&format!("max {:.1}", f1.max(f2))), "{spread}");
    assert!(
        err.contains(&format!("Fmax {worst_f:.1} MHz at seed {worst} is below the floor")),
        "{err}"
    );
    for s in [1, 2] {
        let report = root.join(&dir).join(format!("ecp5-85f/mpa_crc32c_w4/report_seed{s}.json"));
        assert!(report.exists(), "{}", report.display());
    }
    let report = std::fs::read_to_string(root.join(&dir).join("report.json")).unwrap();
    assert!(report.contains(&format!("\"seed\": {worst}")), "{report}");
    let _ = std::fs::remove_dir_all(root.join(&dir));
}
