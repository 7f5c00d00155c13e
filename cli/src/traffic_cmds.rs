//! `rnic traffic` (a generated connection: segments, configuration, capture) and `rnic place`
//! (the golden receiver on segments: verdicts, deliveries, the error, memory, counters).
//!
//! Formats (other tools and the hardware tests use exactly these):
//! - segments: one per line, `SEQ HEX [fin]` in arrival order (`sim::traffic`);
//! - configuration: JSON (`golden::receiver::ReceiverConfig`);
//! - `rnic place` output: JSON Lines, `{"segment":I,"seq":S,"verdict":"accepted"|"refused"}` per
//!   offered segment, `{"deliver":{...}}` per delivery, `{"error":{...}}` at most once, then
//!   `{"memory":{...}}` per region and posted buffer, and `{"metrics":{...}}` last.

use crate::golden_cmds::read_stdin;
use crate::CliError;
use golden::receiver::ReceiverConfig;
use sim::traffic::{self, Fault, Scenario, TrafficOptions};
use std::io::Write;
use std::path::Path;

/// Settings of `rnic traffic`.
pub struct TrafficArgs<'a> {
    pub scenario: &'a str,
    pub seed: u64,
    pub markers: bool,
    pub no_crc: bool,
    pub messages: usize,
    pub emss: u32,
    pub reassembly: &'a str,
    pub records: u32,
    pub no_aligned_detect: bool,
    pub fault: Option<&'a str>,
    pub pcap: Option<&'a Path>,
    pub config_out: &'a Path,
}

/// `rnic traffic`: segments on stdout, the configuration to a file, optionally a capture.
pub fn traffic_cmd(a: TrafficArgs<'_>) -> Result<(), CliError> {
    let scenario = Scenario::by_name(a.scenario).map_err(CliError::usage)?;
    let fault = match a.fault {
        None => None,
        Some(name) => {
            if scenario != Scenario::Faults {
                return Err(CliError::usage("--fault needs --scenario faults"));
            }
            let f = Fault::by_name(name).ok_or_else(|| {
                let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                CliError::usage(format!("unknown fault {name:?} (one of: {})", names.join(", ")))
            })?;
            if !f.applies(a.markers, !a.no_crc) {
                return Err(CliError::usage(format!(
                    "fault {name} needs {}",
                    if f == Fault::Marker { "--markers" } else { "the CRC (no --no-crc)" }
                )));
            }
            Some(f)
        }
    };
    if a.emss < 128 || a.emss > 65535 {
        return Err(CliError::usage(format!("--emss {} is not in 128..=65535", a.emss)));
    }
    if a.messages == 0 {
        return Err(CliError::usage("--messages must be at least 1"));
    }
    let reassembly = match a.reassembly {
        "min" => 0,
        n => n.parse::<u64>().map_err(|_| {
            CliError::usage(format!("--reassembly {n:?}: a number of octets, or min"))
        })?,
    };
    let options = TrafficOptions {
        scenario,
        seed: a.seed,
        markers: a.markers,
        crc: !a.no_crc,
        messages: a.messages,
        emss: a.emss,
        reassembly_octets: reassembly,
        records: a.records,
        aligned_detect: !a.no_aligned_detect,
        fault,
    };
    let mut t = traffic::generate(&options);
    if reassembly == 0 {
        t.config.reassembly_octets = t.config.min_reassembly_octets();
    }
    t.config.validate().map_err(|e| CliError::usage(e.to_string()))?;
    let config = serde_json::to_string_pretty(&t.config).expect("the configuration serializes");
    std::fs::write(a.config_out, config + "\n")
        .map_err(|e| CliError::usage(format!("cannot write {}: {e}", a.config_out.display())))?;
    if let Some(path) = a.pcap {
        let packets: Vec<_> =
            t.segments.iter().map(|s| (s.seq, s.payload.as_slice(), s.fin)).collect();
        let cap = traffic::pcap::capture(t.config.markers, t.config.crc, t.config.origin, &packets);
        std::fs::write(path, cap)
            .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    out.write_all(traffic::format_segments(&t.segments).as_bytes()).map_err(CliError::io)?;
    out.flush().map_err(CliError::io)
}

/// `rnic place`: the golden receiver on the segments of standard input.
pub fn place_cmd(config: &Path, inorder: bool, retransmit: Option<usize>) -> Result<(), CliError> {
    let text = std::fs::read_to_string(config)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", config.display())))?;
    let cfg = ReceiverConfig::from_json(&text)
        .map_err(|e| CliError::input(format!("{}: {e}", config.display())))?;
    let segments = traffic::parse_segments(&read_stdin()?).map_err(CliError::input)?;
    let run = traffic::run_receiver(&cfg, &segments, inorder, retransmit, false)
        .map_err(CliError::input)?;
    let memory = run.receiver.memory();
    let metrics =
        serde_json::to_value(run.receiver.metrics()).map_err(|e| CliError::io(e.into()))?;
    let lines = traffic::place_output(&cfg, &run.log, |t| memory.get(t), Some(metrics));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for v in lines {
        writeln!(out, "{v}").map_err(CliError::io)?;
    }
    out.flush().map_err(CliError::io)?;
    match run.receiver.error() {
        Some(e) => Err(CliError::protocol(format!("error: {e}"))),
        None => Ok(()),
    }
}
