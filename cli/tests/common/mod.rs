//! Running the `rnic` binary from the CLI tests (each test file uses a part of this).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `rnic args` with `stdin` on its standard input.
pub fn rnic(args: &[&str], stdin: &str) -> Output {
    rnic_in(std::path::Path::new("."), args, stdin)
}

/// Runs `rnic args` in the directory `dir` with `stdin` on its standard input.
pub fn rnic_in(dir: &std::path::Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rnic"))
        .current_dir(dir)
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

/// Output octets as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}
