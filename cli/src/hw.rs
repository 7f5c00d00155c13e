//! Hardware commands: `rnic export`, `rnic sim crc`, `rnic sim tx`, `rnic vectors --hardware`.
//!
//! - [`export_cmd`]: writes every exported top (all widths, or one) as `<module>.v` into a
//!   directory (default `build/verilog/`), one line per file on standard output.
//! - [`sim_crc_cmd`]: reads messages from standard input, one per line in hex (an empty line is
//!   the empty message; spaces and `:` between bytes are allowed), runs them through the CRC
//!   top on the chosen engine, and prints per message the CRC value the hardware computed as
//!   8 lowercase hex digits (the value, not the wire bytes: `83992352` for RFC 5044 Figure 5).

use sim::Engine;
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// `rnic export [--width W] [--out DIR]`.
pub fn export_cmd(width: Option<usize>, out: PathBuf) -> Result<(), String> {
    if let Some(w) = width {
        check_width(w)?;
    }
    let files = sim::export::write_tops(width, &out)?;
    let mut so = std::io::stdout().lock();
    for f in files {
        writeln!(so, "{}", f.display()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// One line of the hardware vector table.
pub struct HwCheck {
    pub vector: String,
    pub check: String,
    pub pass: bool,
    pub detail: String,
}

/// The specification vectors through the hardware on `engine`, at every width: the CRC top
/// computes each figure's CRC field from the octets it covers and accepts the whole FPDU (its own
/// CRC at the end) as good; `mpa_tx` frames each figure's ULPDU into the figure byte for byte (a
/// Figure 6 as the second FPDU, after its 482-octet ULPDU); `mpa_rx` delivers each figure's ULPDU
/// from its MPA stream ([`golden::vectors::Vector::receive_stream`]); `rnic_rx` places and
/// delivers the Send of each figure's stream (Figure 6 after a Send of MSN 1) as the golden
/// receiver does.
pub fn hardware_vector_checks(engine: &str) -> Result<Vec<HwCheck>, String> {
    let engine = parse_engine(engine)?;
    let vectors = golden::vectors::all();
    let mut out = vec![];
    for w in hdl::export::WIDTHS {
        let mut sim = sim::crc::crc_top(engine, &golden::crc::CRC32C, w)?;
        let mut msgs = vec![];
        for v in &vectors {
            msgs.push(v.wire[..v.wire.len() - 4].to_vec());
            msgs.push(v.wire.clone());
        }
        let (res, _) =
            sim::crc::run_messages(sim.as_mut(), &msgs, &sim::crc::RunOptions::default())?;
        for (k, v) in vectors.iter().enumerate() {
            let (covered, whole) = (&res[2 * k], &res[2 * k + 1]);
            out.push(HwCheck {
                vector: v.name.clone(),
                check: format!("mpa_crc32c_w{w} ({engine}): CRC field"),
                pass: covered.crc == v.crc_value(),
                detail: format!("computed {:08x}, figure {:08x}", covered.crc, v.crc_value()),
            });
            out.push(HwCheck {
                vector: v.name.clone(),
                check: format!("mpa_crc32c_w{w} ({engine}): FPDU checks good"),
                pass: !whole.bad,
                detail: if whole.bad { "flagged bad".into() } else { "good".into() },
            });
        }
        let mut tx = sim::tx::mpa_tx(engine, w, None)?;
        for v in &vectors {
            let mut ulpdus = vec![];
            if let Some(p) = v.preceding_ulpdu() {
                ulpdus.push(sim::tx::TxUlpdu::new(p, true));
            }
            ulpdus.push(sim::tx::TxUlpdu::new(v.ulpdu.clone(), true));
            let settings = sim::tx::TxSettings {
                markers: v.markers,
                crc: v.crc,
                emss: 1460,
                seq: 0,
                origin: 0,
            };
            let run = sim::tx::run_tx(tx.as_mut(), &settings, &ulpdus, &Default::default())?;
            let got = run.segments.last().map(|(seq, p)| (*seq, p.clone()));
            let pass = got.as_ref().is_some_and(|(seq, p)| *seq == v.position && *p == v.wire);
            out.push(HwCheck {
                vector: v.name.clone(),
                check: format!("mpa_tx_w{w} ({engine}): frames the figure"),
                pass,
                detail: match got {
                    Some((seq, p)) if pass => format!("identical, {} octets at {seq:#x}", p.len()),
                    Some((seq, p)) => format!("differs: {} octets at {seq:#x}", p.len()),
                    None => "no segment".into(),
                },
            });
        }
        let mut rx = sim::rx::mpa_rx(engine, w)?;
        for v in &vectors {
            let (cfg, stream) = v.receive_stream();
            let segs = [sim::packet::InPacket::segment(stream, cfg.offset, true)];
            let settings = sim::rx::RxSettings {
                markers: cfg.markers,
                crc: cfg.crc,
                seq: cfg.offset,
                origin: 0,
                max_ulpdu: 0xFFFF,
            };
            let run = sim::rx::run_rx(rx.as_mut(), &settings, &segs, &Default::default())?;
            let got = run.ulpdus.last();
            let pass = run.error.is_none() && got.is_some_and(|u| u.data == v.ulpdu);
            out.push(HwCheck {
                vector: v.name.clone(),
                check: format!("mpa_rx_w{w} ({engine}): delivers the figure's ULPDU"),
                pass,
                detail: match (run.error, got) {
                    (Some(e), _) => format!("error code {} at {:#x}", e.code, e.seq),
                    (None, Some(u)) if pass => format!("identical, {} octets", u.data.len()),
                    (None, Some(u)) => format!("differs: {} octets", u.data.len()),
                    (None, None) => "no ULPDU".into(),
                },
            });
        }
        // rnic_rx: the figure's stream (from the Marker origin) through DDP placement, with
        // buffers posted for MSN 1 and 2: the deliveries, error and memory of the golden
        // receiver (Figure 6 follows a Send of MSN 1).
        let mut place = sim::place::rnic_rx(engine, w)?;
        for v in &vectors {
            let (cfg, stream) = v.receive_stream();
            if cfg.offset != 0 {
                continue;
            }
            let rcfg = golden::receiver::ReceiverConfig {
                markers: cfg.markers,
                crc: cfg.crc,
                origin: 0,
                aligned_detect: true,
                reassembly_octets: 1 << 16,
                reassembly_window: golden::receiver::WINDOW,
                place_out_of_order: true,
                records: 8,
                pd: 1,
                msn_window: 8,
                max_ulpdu: 1024,
                first_msn: 1,
                version: if v.ulpdu.first().is_some_and(|c| c & 3 == 0) {
                    golden::receiver::VersionName::Rdmac
                } else {
                    golden::receiver::VersionName::Rfc5040
                },
                regions: vec![],
                posted: (1..=2)
                    .map(|msn| golden::receiver::PostedConfig { qn: 0, msn, len: 1024 })
                    .collect(),
            };
            let segs = [sim::traffic::TcpSegment { seq: 0, payload: stream, fin: true }];
            let hw = sim::place::run_rnic(place.as_mut(), &rcfg, &segs, &Default::default())?;
            let gold = sim::traffic::run_receiver(&rcfg, &segs, true, None, false)?;
            let g: Vec<_> = gold.events().into_iter().cloned().collect();
            let memory_ok =
                hw.memory.iter().all(|(t, b)| gold.receiver.memory().get(*t) == Some(b));
            let delivered = g.iter().any(|e| matches!(e, golden::receiver::Event::Deliver(_)));
            // The hardware gives no reason for an error: compare codes and FPDUs.
            let plain = |e: &golden::receiver::Event| match e {
                golden::receiver::Event::Error(x) => format!("error {} at {}", x.code, x.seq),
                golden::receiver::Event::Deliver(d) => format!("{d:?}"),
            };
            let same = hw.events.iter().map(plain).eq(g.iter().map(plain));
            let pass = same && memory_ok && delivered;
            out.push(HwCheck {
                vector: v.name.clone(),
                check: format!("rnic_rx_w{w} ({engine}): places and delivers the Send"),
                pass,
                detail: if pass {
                    format!("{} record(s) and the buffer as the golden receiver", hw.events.len())
                } else {
                    format!("hardware {:?}, golden {:?}, memory equal: {memory_ok}", hw.events, g)
                },
            });
        }
    }
    Ok(out)
}

/// `rnic sim crc --width W [--poly crc32c|williams|ethernet] [--engine rusthdl|verilator]`.
pub fn sim_crc_cmd(width: usize, poly: &str, engine: &str) -> Result<(), String> {
    check_width(width)?;
    let def = golden::crc::by_name(poly)
        .ok_or_else(|| format!("unknown --poly {poly} (use crc32c, williams or ethernet)"))?;
    let engine = parse_engine(engine)?;
    let mut messages = vec![];
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        messages.push(parse_hex_line(&line).map_err(|e| format!("line {}: {e}", n + 1))?);
    }
    let mut sim = sim::crc::crc_top(engine, &def, width)?;
    let (results, _) =
        sim::crc::run_messages(sim.as_mut(), &messages, &sim::crc::RunOptions::default())?;
    let mut so = std::io::stdout().lock();
    for r in results {
        writeln!(so, "{:08x}", r.crc).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `rnic sim tx`: ULPDUs (one per line, hex) through `mpa_tx`; prints the MPA stream one FPDU
/// per line, as `rnic frame` does. Every ULPDU is pushed and EMSS is 65535, so every FPDU is one
/// TCP segment of its own and each segment is printed as one line.
pub fn sim_tx_cmd(
    width: usize,
    cfg: golden::fpdu::FramingConfig,
    engine: &str,
    vcd: Option<&std::path::Path>,
) -> Result<(), crate::CliError> {
    use crate::CliError;
    let engine = check_sim_args(width, engine, vcd)?;
    let ulpdus = crate::golden_cmds::parse_ulpdu_lines(&crate::golden_cmds::read_stdin()?)?;
    // The same input rules as `rnic frame` (RFC 5044 section 3 limit), with the same messages.
    for (n, u) in ulpdus.iter().enumerate() {
        if u.len() > golden::mulpdu::ULPDU_MAX as usize {
            let e = golden::fpdu::FrameError::UlpduTooLong { len: u.len() };
            return Err(CliError::input(format!("line {}: {e}", n + 1)));
        }
    }
    let mut sim = sim::tx::mpa_tx(engine, width, vcd).map_err(CliError::usage)?;
    let settings = sim::tx::TxSettings {
        markers: cfg.markers,
        crc: cfg.crc,
        emss: 65535,
        seq: cfg.offset,
        origin: 0,
    };
    let input: Vec<sim::tx::TxUlpdu> =
        ulpdus.into_iter().map(|u| sim::tx::TxUlpdu::new(u, true)).collect();
    let opts = sim::packet::PacketRun { expect_packets: Some(input.len()), ..Default::default() };
    let run = sim::tx::run_tx(sim.as_mut(), &settings, &input, &opts)
        .map_err(|e| CliError::check(format!("simulation: {e}")))?;
    if run.segments.len() != input.len() {
        return Err(CliError::check(format!(
            "simulation: {} segments for {} ULPDUs",
            run.segments.len(),
            input.len()
        )));
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (_, payload) in &run.segments {
        writeln!(out, "{}", golden::hex::encode(payload)).map_err(CliError::io)?;
    }
    out.flush().map_err(CliError::io)
}

/// `rnic sim rx`: an MPA stream (hex) through `mpa_rx`; prints the ULPDUs one per line and the
/// error as `rnic deframe` does. The stream starts at sequence number `offset` with the marker
/// origin at 0; it is one TCP segment, or random segments of 1..3000 octets with `resegment`.
pub fn sim_rx_cmd(
    width: usize,
    cfg: golden::fpdu::FramingConfig,
    max_ulpdu: u32,
    engine: &str,
    vcd: Option<&std::path::Path>,
    resegment: Option<u64>,
) -> Result<(), crate::CliError> {
    use crate::CliError;
    use rand::{Rng, SeedableRng};
    let engine = check_sim_args(width, engine, vcd)?;
    let stream = golden::hex::decode(&crate::golden_cmds::read_stdin()?)
        .map_err(|e| CliError::input(e.to_string()))?;
    let limit = max_ulpdu.min(sim::rx::mpa_rx_max_ulpdu(width).map_err(CliError::usage)?);
    let seq = cfg.offset;
    let mut segments = vec![];
    let mut at = 0usize;
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(resegment.unwrap_or(0));
    while at < stream.len() {
        let n = match resegment {
            Some(_) => r.gen_range(1..=3000usize).min(stream.len() - at),
            None => stream.len(),
        };
        let user = seq.wrapping_add(at as u32) as u64;
        segments.push(sim::packet::InPacket { data: stream[at..at + n].to_vec(), user });
        at += n;
    }
    // FIN after the last octet (an empty stream is one null segment with FIN).
    match segments.last_mut() {
        Some(s) => s.set_fin(),
        None => segments.push(sim::packet::InPacket::segment(vec![], seq, true)),
    }
    let mut sim = sim::rx::mpa_rx_vcd(engine, width, vcd).map_err(CliError::usage)?;
    let settings = sim::rx::RxSettings {
        markers: cfg.markers,
        crc: cfg.crc,
        seq,
        origin: 0,
        max_ulpdu: limit.min(0xFFFF) as u16,
    };
    let run = sim::rx::run_rx(sim.as_mut(), &settings, &segments, &Default::default())
        .map_err(|e| CliError::check(format!("simulation: {e}")))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for u in &run.ulpdus {
        writeln!(out, "{}", golden::hex::encode(&u.data)).map_err(CliError::io)?;
    }
    out.flush().map_err(CliError::io)?;
    let Some(e) = run.error else { return Ok(()) };
    let offset = e.seq.wrapping_sub(seq) as u64;
    let golden = golden::deframe::deframe_stream_with_limit(cfg, &stream, limit).error;
    match golden {
        Some(g) if g.code() == e.code && g.fpdu_offset() == Some(offset) => {
            Err(CliError::protocol(g.to_string()))
        }
        other => Err(CliError::protocol(format!(
            "error code {}: FPDU at stream offset {offset} (hardware); the golden model reports {}",
            e.code,
            other.map_or("no error".to_string(), |g| g.to_string())
        ))),
    }
}

/// The checks `rnic sim tx`, `rx` and `place` share: the width, the engine (returned), and a
/// VCD only on the rust-hdl engine.
fn check_sim_args(
    width: usize,
    engine: &str,
    vcd: Option<&std::path::Path>,
) -> Result<Engine, crate::CliError> {
    use crate::CliError;
    check_width(width).map_err(CliError::usage)?;
    let engine = parse_engine(engine).map_err(CliError::usage)?;
    if vcd.is_some() && engine != Engine::RustHdl {
        return Err(CliError::usage("--vcd needs --engine rusthdl"));
    }
    Ok(engine)
}

/// `--engine`'s value as an [`Engine`], or the usage error naming the option.
fn parse_engine(engine: &str) -> Result<Engine, String> {
    engine.parse().map_err(|_| format!("unknown --engine {engine} (use rusthdl or verilator)"))
}

fn check_width(w: usize) -> Result<(), String> {
    if hdl::export::WIDTHS.contains(&w) {
        Ok(())
    } else {
        Err(format!("--width {w} is not supported (use 4, 8, 16, 32 or 64)"))
    }
}

/// One message from a line of hex digits; spaces, tabs and `:` separate bytes and are ignored.
pub fn parse_hex_line(line: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<char> = line.chars().filter(|c| !c.is_whitespace() && *c != ':').collect();
    if digits.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    digits
        .chunks(2)
        .map(|p| {
            let s: String = p.iter().collect();
            u8::from_str_radix(&s, 16).map_err(|_| format!("not a hex byte: {s:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_lines_parse_with_separators_and_reject_garbage() {
        assert_eq!(parse_hex_line("").unwrap(), Vec::<u8>::new());
        assert_eq!(parse_hex_line("00 2a:41 43").unwrap(), vec![0x00, 0x2a, 0x41, 0x43]);
        assert_eq!(parse_hex_line("DEADbeef").unwrap(), vec![0xde, 0xad, 0xbe, 0xef]);
        assert!(parse_hex_line("abc").unwrap_err().contains("odd"));
        assert!(parse_hex_line("zz").unwrap_err().contains("not a hex byte"));
    }

    #[test]
    fn sim_crc_rejects_bad_width_poly_and_engine() {
        assert!(sim_crc_cmd(12, "crc32c", "rusthdl").unwrap_err().contains("--width 12"));
        assert!(sim_crc_cmd(8, "crc16", "rusthdl").unwrap_err().contains("--poly crc16"));
        assert!(sim_crc_cmd(8, "crc32c", "iverilog").unwrap_err().contains("--engine iverilog"));
    }
}

/// `rnic sim place`: the segments of standard input through `rnic_rx_w<W>` with the regions and
/// buffers of `config`; prints what `rnic place --inorder` prints (verdicts, deliveries, the
/// error, memory), each delivery and the error after the verdict of the segment that completed
/// its FPDU, then the hardware's counters as the metrics line. `arrival`: the segments in the
/// order given, the hardware's verdicts, what `rnic place` prints.
pub fn sim_place_cmd(
    width: usize,
    config: &std::path::Path,
    engine: &str,
    vcd: Option<&std::path::Path>,
    busy: Option<u64>,
    arrival: bool,
) -> Result<(), crate::CliError> {
    use crate::CliError;
    use golden::receiver::{Event, Receiver, ReceiverConfig, Verdict};
    use sim::traffic::LogEntry;
    let engine = check_sim_args(width, engine, vcd)?;
    let text = std::fs::read_to_string(config)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", config.display())))?;
    let cfg = ReceiverConfig::from_json(&text)
        .map_err(|e| CliError::input(format!("{}: {e}", config.display())))?;
    sim::place::check_fits(&cfg, width)
        .map_err(|e| CliError::input(format!("{}: {e}", config.display())))?;
    let segments = sim::traffic::parse_segments(&crate::golden_cmds::read_stdin()?)
        .map_err(CliError::input)?;
    let order = if arrival {
        sim::place::check_reassembly_fits(&cfg)
            .map_err(|e| CliError::input(format!("{}: {e}", config.display())))?;
        (0..segments.len()).collect()
    } else {
        sim::traffic::in_order_indices(&segments, cfg.origin)
    };
    // Input TCP could not have produced (beyond the window, after the FIN) is refused by the
    // receiver's rules, with its message, before any simulation.
    let mut check = Receiver::new(&cfg).map_err(|e| CliError::input(e.to_string()))?;
    for &i in &order {
        let s = &segments[i];
        check
            .segment(s.seq, &s.payload, s.fin)
            .map_err(|e| CliError::input(format!("segment {i}: {e}")))?;
    }

    let mut sim = sim::place::rnic_rx_vcd(engine, width, vcd).map_err(CliError::usage)?;
    let opts = match busy {
        Some(seed) => sim::place::RnicRunOptions::busy(seed),
        None => sim::place::RnicRunOptions::default(),
    };
    let opts = sim::place::RnicRunOptions { arrival, ..opts };
    let run = sim::place::run_rnic(sim.as_mut(), &cfg, &segments, &opts)
        .map_err(|e| CliError::check(format!("simulation: {e}")))?;

    // Which segment completed each event's FPDU: the in-order stream from the origin.
    let mut stream = Vec::new();
    for p in sim::place::in_order_packets(&segments, cfg.origin) {
        stream.extend_from_slice(&p.data);
    }
    let trigger = |e: &Event| -> u64 {
        let seq = match e {
            Event::Deliver(d) => delivery_seq(d),
            Event::Error(x) => x.seq,
        };
        let f = seq.wrapping_sub(cfg.origin) as u64;
        let rest = stream.get(f as usize..).unwrap_or(&[]);
        let end = stream.len() as u64;
        match golden::deframe::fpdu_needed_len(cfg.markers, f as u32, rest) {
            None => end,
            Some(need) => {
                let lead = cfg.markers && golden::fpdu::is_marker_position(f as u32);
                let len_end = f + 2 + if lead { 4 } else { 0 };
                let length = u16::from_be_bytes([
                    rest[len_end as usize - f as usize - 2],
                    rest[len_end as usize - f as usize - 1],
                ]);
                if length as u32 > cfg.max_ulpdu {
                    len_end
                } else {
                    (f + need as u64).min(end)
                }
            }
        }
    };
    let mut log = Vec::new();
    let mut events = run.events.iter().peekable();
    // The in-order edge after each offer: accepted octets contiguous from the origin.
    let mut edge = 0i64;
    let mut ahead: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    for (k, &i) in order.iter().enumerate() {
        let s = &segments[i];
        let accepted = if arrival { run.verdicts.get(k).is_some_and(|v| v.1) } else { true };
        let verdict = if accepted { Verdict::Accepted } else { Verdict::Refused };
        log.push(LogEntry::Verdict { segment: i, seq: s.seq, verdict });
        let start = s.seq.wrapping_sub(cfg.origin) as i32 as i64;
        let seg_end = start + s.payload.len() as i64;
        if accepted {
            if start <= edge {
                edge = edge.max(seg_end);
            } else {
                let e = ahead.entry(start).or_insert(seg_end);
                *e = (*e).max(seg_end);
            }
            while let Some((&a, &b)) = ahead.iter().next() {
                if a > edge {
                    break;
                }
                edge = edge.max(b);
                ahead.remove(&a);
            }
        }
        let last = k + 1 == order.len();
        while let Some(e) = events.peek() {
            if last || trigger(e) as i64 <= edge {
                log.push(LogEntry::Event((*e).clone()));
                events.next();
            } else {
                break;
            }
        }
    }
    let memory: std::collections::BTreeMap<golden::receiver::Target, &[u8]> =
        run.memory.iter().map(|(t, b)| (*t, b.as_slice())).collect();
    let r = &run.final_regs;
    let metrics = serde_json::json!({
        "segments": segments.len(),
        "refused": r[&hdl::place::reg::CNT_REFUSED],
        "peak_held_octets": r[&hdl::place::reg::REASM_PEAK],
        "located_fpdus": r[&hdl::place::reg::REASM_LOCATED],
        "located_octets": r[&hdl::place::reg::REASM_LOCATED_OCTETS],
        "fpdus": r[&hdl::place::reg::CNT_FPDUS],
        "records": r[&hdl::place::reg::CNT_RECORDS],
        "bursts": r[&hdl::place::reg::CNT_BURSTS],
        "octets_written": run.stats.octets_written,
        "cycles": run.stats.cycles,
        "engine": engine.name(),
        "width": width,
    });
    let lines = sim::traffic::place_output(&cfg, &log, |t| memory.get(&t).copied(), Some(metrics));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for v in lines {
        writeln!(out, "{v}").map_err(CliError::io)?;
    }
    out.flush().map_err(CliError::io)?;
    match run.events.iter().find_map(|e| match e {
        Event::Error(x) => Some(x),
        _ => None,
    }) {
        Some(x) => Err(CliError::protocol(format!(
            "error: {} at sequence number {}: reported by rnic_rx_w{width}",
            x.code, x.seq
        ))),
        None => Ok(()),
    }
}

/// The sequence number a delivery carries (its completing FPDU).
fn delivery_seq(d: &golden::receiver::Delivery) -> u32 {
    use golden::receiver::Delivery::*;
    match d {
        Send { seq, .. }
        | Write { seq, .. }
        | ReadResponse { seq, .. }
        | ReadRequest { seq, .. }
        | Terminate { seq, .. } => *seq,
    }
}
