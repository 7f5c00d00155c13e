//! The golden-model subcommands: `frame`, `deframe`, `vectors`, `mulpdu`.
//!
//! Text formats (machine-friendly; other tools call these):
//! - ULPDUs: one per line, lowercase hex; an empty line is an empty ULPDU.
//! - MPA streams: lowercase hex, one FPDU per line on output; any whitespace is ignored on input.

use crate::CliError;
use golden::deframe::{deframe_stream_with_limit, Deframed};
use golden::fpdu::{Framer, FramingConfig};
use golden::hex;
use std::io::{Read, Write};

/// Reads all of standard input as UTF-8 text.
pub fn read_stdin() -> Result<String, CliError> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::input(format!("cannot read standard input: {e}")))?;
    Ok(text)
}

/// Parses one ULPDU per line (an empty line is an empty ULPDU).
pub fn parse_ulpdu_lines(text: &str) -> Result<Vec<Vec<u8>>, CliError> {
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            hex::decode(line).map_err(|e| CliError::input(format!("line {}: {e}", n + 1)))
        })
        .collect()
}

/// Frames the ULPDUs; returns the FPDUs, one per entry.
pub fn frame_ulpdus(cfg: FramingConfig, ulpdus: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, CliError> {
    let mut framer = Framer::new(cfg).map_err(|e| CliError::usage(e.to_string()))?;
    ulpdus
        .iter()
        .enumerate()
        .map(|(n, u)| framer.frame(u).map_err(|e| CliError::input(format!("line {}: {e}", n + 1))))
        .collect()
}

/// `rnic frame`: ULPDUs on stdin, the MPA stream (one FPDU per line) on stdout.
pub fn frame_cmd(cfg: FramingConfig) -> Result<(), CliError> {
    let ulpdus = parse_ulpdu_lines(&read_stdin()?)?;
    let fpdus = frame_ulpdus(cfg, &ulpdus)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for f in &fpdus {
        writeln!(out, "{}", hex::encode(f)).map_err(CliError::io)?;
    }
    out.flush().map_err(CliError::io)
}

/// Prints a deframing result the way `rnic deframe` does: the ULPDUs on stdout, then the error
/// (if any) on stderr with exit status 2.
pub fn report_deframed(d: &Deframed) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for u in &d.ulpdus {
        writeln!(out, "{}", hex::encode(&u.data)).map_err(CliError::io)?;
    }
    out.flush().map_err(CliError::io)?;
    match &d.error {
        None => Ok(()),
        Some(e) if e.code() == 0 => Err(CliError::usage(e.to_string())),
        Some(e) => Err(CliError::protocol(e.to_string())),
    }
}

/// `rnic deframe`: an MPA stream on stdin, one ULPDU per line on stdout.
pub fn deframe_cmd(cfg: FramingConfig, max_ulpdu: u32) -> Result<(), CliError> {
    cfg.validate().map_err(|e| CliError::usage(e.to_string()))?;
    let stream = hex::decode(&read_stdin()?).map_err(|e| CliError::input(e.to_string()))?;
    report_deframed(&deframe_stream_with_limit(cfg, &stream, max_ulpdu))
}

/// `rnic vectors`: the table of vector checks; fails unless all pass.
pub fn vectors_cmd() -> Result<(), CliError> {
    print_checks(
        golden::vectors::check_all()
            .into_iter()
            .map(|r| (r.vector, r.check, r.pass, r.detail))
            .collect(),
    )
}

/// Prints a vector table (vector, check, pass, detail); an error if any check failed.
pub fn print_checks(results: Vec<(String, String, bool, String)>) -> Result<(), CliError> {
    let w_vec = results.iter().map(|r| r.0.len()).max().unwrap_or(6).max(6);
    let w_chk = results.iter().map(|r| r.1.len()).max().unwrap_or(5).max(5);
    println!("{:<w_vec$}  {:<w_chk$}  result  detail", "vector", "check");
    for (vector, check, pass, detail) in &results {
        let verdict = if *pass { "pass" } else { "FAIL" };
        println!("{vector:<w_vec$}  {check:<w_chk$}  {verdict:<6}  {detail}");
    }
    let failed = results.iter().filter(|r| !r.2).count();
    println!("{} passed, {} failed", results.len() - failed, failed);
    if failed == 0 {
        Ok(())
    } else {
        Err(CliError::check(format!("{failed} vector check(s) failed")))
    }
}

/// `rnic mulpdu`: MULPDU for an EMSS (RFC 5044 4.5).
pub fn mulpdu_cmd(emss: u32, markers: bool) -> Result<(), CliError> {
    println!("{}", golden::mulpdu::mulpdu(emss, markers));
    Ok(())
}
