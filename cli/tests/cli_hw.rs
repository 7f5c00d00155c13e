//! The `rnic` hardware subcommands (`export`, `sim crc`, `vectors --hardware`), run as a user
//! runs them: standard input, output, error and exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn rnic(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rnic"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rnic runs");
    // A command that rejects its arguments exits without reading: ignore a broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

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
    assert!(out.trim_end().ends_with(", 0 failed"));
}
