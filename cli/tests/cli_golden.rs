//! The `rnic` golden subcommands, run as a user runs them: standard input, output, error and exit
//! status.

mod common;

use common::rnic;
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const FIG5_ULPDU: &str =
    "414300000000000000000000000100000000000000000000000000000000000000000000000000000000";

#[test]
fn frame_with_markers_reproduces_rfc5044_figure5() {
    let o = rnic(&["frame", "--markers"], &format!("{FIG5_ULPDU}\n"));
    assert!(o.status.success(), "{}", stderr(&o));
    let wire: String = stdout(&o).split_whitespace().collect();
    assert!(wire.starts_with("00000000002a4143"));
    assert!(wire.ends_with("52239983"));
    assert_eq!(wire.len(), 0x34 * 2);
}

#[test]
fn frame_then_deframe_round_trips_including_an_empty_ulpdu() {
    let input = format!("{FIG5_ULPDU}\n\n0102\nff\n");
    for args in
        [&["--markers"][..], &["--markers", "--offset", "508"][..], &["--no-crc"][..], &[][..]]
    {
        let framed = rnic(&[&["frame"], args].concat(), &input);
        assert!(framed.status.success());
        let back = rnic(&[&["deframe"], args].concat(), &stdout(&framed));
        assert!(back.status.success(), "{args:?}: {}", stderr(&back));
        assert_eq!(stdout(&back), input, "{args:?}");
    }
}

#[test]
fn deframe_reports_crc_error_with_code_2_after_the_good_ulpdus() {
    let framed = rnic(&["frame"], "0102\n0304\n0506\n");
    let mut lines: Vec<String> = stdout(&framed).lines().map(String::from).collect();
    // Corrupt the second FPDU's data.
    lines[1] = lines[1].replacen("0304", "0305", 1);
    let o = rnic(&["deframe"], &lines.join("\n"));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "0102\n");
    let err = stderr(&o);
    assert!(err.starts_with("error code 2: CRC mismatch in FPDU at stream offset 8"), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn deframe_reports_truncation_and_marker_errors() {
    let framed = rnic(&["frame", "--markers", "--no-crc"], &format!("{}\n", "ab".repeat(600)));
    let wire: String = stdout(&framed).split_whitespace().collect();
    let o = rnic(&["deframe", "--markers", "--no-crc"], &wire[..wire.len() - 2]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error code 1:"), "{}", stderr(&o));
    // The Marker at stream position 512 carries FPDUPTR 0x01fc (from the length field at 4).
    let at = 512 * 2;
    assert_eq!(&wire[at..at + 8], "000001fc");
    let bad = format!("{}000001f8{}", &wire[..at], &wire[at + 8..]);
    let o = rnic(&["deframe", "--markers", "--no-crc"], &bad);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error code 3:"), "{}", stderr(&o));
}

#[test]
fn bad_arguments_and_input_give_one_line_and_nonzero_exit() {
    for (args, input) in [
        (&["frame", "--offset", "6"][..], ""),
        (&["frame"][..], "xyz\n"),
        (&["frame"][..], "abc\n"),
        (&["deframe"][..], "0g"),
        (&["frobnicate"][..], ""),
        (&["mulpdu"][..], ""),
        (&["mulpdu", "--emss", "-3"][..], ""),
        (&["frame", "--offset", "99999999999"][..], ""),
    ] {
        let o = rnic(args, input);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error"), "{args:?}: {err}");
    }
    let big = format!("{}\n", "00".repeat(64769));
    let o = rnic(&["frame"], &big);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("64768"));
}

#[test]
fn vectors_pass_and_mulpdu_follows_section_4_5() {
    let o = rnic(&["vectors"], "");
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("15 passed, 0 failed"));
    assert_eq!(stdout(&rnic(&["mulpdu", "--emss", "1460", "--markers"], "")), "1442\n");
    assert_eq!(stdout(&rnic(&["mulpdu", "--emss", "1460"], "")), "1454\n");
    assert_eq!(stdout(&rnic(&["mulpdu", "--emss", "100"], "")), "128\n");
}
