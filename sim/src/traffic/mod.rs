//! Traffic models for the receive side: one connection's stream as a sender makes it and as the
//! network delivers it, the text format the tools exchange it in, a packet capture of it, and
//! the TCP side of a run (offering segments to a receiver, offering refused ones again).
//!
//! - [`sender`]: RDMAP messages -> DDP segments -> FPDUs -> FPDU-aligned TCP segments, the
//!   receiver configuration.
//! - [`faults`]: the faults a stream can carry and the error each must cause.
//! - [`network`]: re-segmentation, loss and retransmission, duplication, overlap, reordering.
//! - [`scenario`]: the named scenarios `rnic traffic` offers.
//! - [`pcap`]: the connection as Ethernet/IPv4/TCP packets.
//!
//! # Segment text format
//! One segment per line, in arrival order: `SEQ HEX`, where `SEQ` is the decimal sequence number
//! of the first octet and `HEX` the payload (`-` for none), optionally followed by `fin` when the
//! connection closes after the segment. Blank lines and lines starting with `#` are ignored.

pub mod faults;
pub mod network;
pub mod pcap;
pub mod scenario;
pub mod sender;

pub use faults::Fault;
pub use scenario::{generate, Scenario, TcpSegment, Traffic, TrafficOptions};

use golden::hex;
use golden::receiver::{Event, Receiver, ReceiverConfig, Verdict};
use std::collections::VecDeque;
use std::fmt::Write as _;

/// The segments in the text format.
pub fn format_segments(segments: &[TcpSegment]) -> String {
    let mut out = String::new();
    for s in segments {
        let data = if s.payload.is_empty() { "-".to_string() } else { hex::encode(&s.payload) };
        let _ = writeln!(out, "{} {}{}", s.seq, data, if s.fin { " fin" } else { "" });
    }
    out
}

/// Parses the text format; errors name the line.
pub fn parse_segments(text: &str) -> Result<Vec<TcpSegment>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |m: &str| format!("line {}: {m}", n + 1);
        let mut tok = line.split_whitespace();
        let seq: u32 = tok
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| bad("the sequence number must be a decimal number below 2^32"))?;
        let payload = match tok.next() {
            Some("-") => Vec::new(),
            Some(h) => hex::decode(h).map_err(|e| bad(&e.to_string()))?,
            None => {
                return Err(bad("a payload (hex, or - for none) must follow the sequence number"))
            }
        };
        let fin = match tok.next() {
            None => false,
            Some("fin") => true,
            Some(t) => return Err(bad(&format!("unexpected {t:?} (only `fin` may follow)"))),
        };
        if tok.next().is_some() {
            return Err(bad("too many fields"));
        }
        out.push(TcpSegment { seq, payload, fin });
    }
    Ok(out)
}

/// The indices of `segments` sorted by sequence number relative to `origin` (stable: copies
/// keep their arrival order), as an in-order TCP would hand them over.
pub fn in_order_indices(segments: &[TcpSegment], origin: u32) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..segments.len()).collect();
    idx.sort_by_key(|&i| segments[i].seq.wrapping_sub(origin));
    idx
}

/// One line of a receiver run's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogEntry {
    /// The verdict on an offered segment (`segment` indexes the input).
    Verdict {
        /// Index of the segment in the input.
        segment: usize,
        /// Its sequence number.
        seq: u32,
        /// The verdict.
        verdict: Verdict,
    },
    /// A delivery or the error, after the verdict of the segment that caused it.
    Event(Event),
}

/// A finished run: the log and the receiver as it ended (memory, metrics).
pub struct Run {
    /// Verdicts and events, in order.
    pub log: Vec<LogEntry>,
    /// The receiver.
    pub receiver: Receiver,
    /// Offers of refused segments that were never accepted (0 when `retransmit` was given).
    pub never_accepted: usize,
}

impl Run {
    /// The deliveries and the error, in order.
    pub fn events(&self) -> Vec<&Event> {
        self.log
            .iter()
            .filter_map(|l| match l {
                LogEntry::Event(e) => Some(e),
                LogEntry::Verdict { .. } => None,
            })
            .collect()
    }
}

/// Offers `segments` to a receiver for `config`: in arrival order, or sorted by sequence number
/// (`inorder`). With `retransmit = Some(k)`, a refused segment is offered again after `k` more
/// offers (TCP did not acknowledge it, so the sender sends it again), until every segment was
/// accepted; after `n` refusals in a row it goes `n` places back instead, so that the segments
/// behind a run of refused ones are reached (a sender also retransmits from the gap, which is
/// what the receiver is waiting for). Errors: bad configuration or input (a one-line message),
/// or no progress after 1000 offers per segment.
pub fn run_receiver(
    config: &ReceiverConfig,
    segments: &[TcpSegment],
    inorder: bool,
    retransmit: Option<usize>,
    record_writes: bool,
) -> Result<Run, String> {
    let mut receiver = Receiver::new(config).map_err(|e| e.to_string())?;
    if record_writes {
        receiver.record_writes();
    }
    let order: Vec<usize> = if inorder {
        in_order_indices(segments, config.origin)
    } else {
        (0..segments.len()).collect()
    };
    let mut queue: VecDeque<usize> = order.into_iter().collect();
    let mut log = Vec::with_capacity(segments.len() * 2);
    let mut never_accepted = 0;
    let limit = segments.len().saturating_mul(1000) + 10_000;
    let mut offers = 0usize;
    let mut refused_in_a_row = 0usize;
    while let Some(i) = queue.pop_front() {
        offers += 1;
        if offers > limit {
            return Err(format!("no progress after {offers} offers (livelock)"));
        }
        let s = &segments[i];
        let verdict =
            receiver.segment(s.seq, &s.payload, s.fin).map_err(|e| format!("segment {i}: {e}"))?;
        log.push(LogEntry::Verdict { segment: i, seq: s.seq, verdict });
        log.extend(receiver.take_events().into_iter().map(LogEntry::Event));
        if verdict == Verdict::Refused {
            refused_in_a_row += 1;
            match retransmit {
                Some(k) => queue.insert(k.max(refused_in_a_row).min(queue.len()), i),
                None => never_accepted += 1,
            }
        } else {
            refused_in_a_row = 0;
        }
    }
    Ok(Run { log, receiver, never_accepted })
}

/// The JSON Lines of `rnic place` (and `rnic sim place`), one value per line: the verdict and
/// events of `log`, then the memory of every region and posted buffer of `config` (`memory`
/// gives a target's octets), then `metrics` last if given.
pub fn place_output<'m>(
    config: &ReceiverConfig,
    log: &[LogEntry],
    memory: impl Fn(golden::receiver::Target) -> Option<&'m [u8]>,
    metrics: Option<serde_json::Value>,
) -> Vec<serde_json::Value> {
    use golden::receiver::Target;
    use serde_json::json;
    let mut out = Vec::with_capacity(log.len() + config.regions.len() + config.posted.len() + 1);
    for entry in log {
        out.push(match entry {
            LogEntry::Verdict { segment, seq, verdict } => {
                json!({"segment": segment, "seq": seq, "verdict": verdict})
            }
            LogEntry::Event(Event::Deliver(d)) => json!({ "deliver": d }),
            LogEntry::Event(Event::Error(e)) => json!({"error": {
                "layer": e.code.layer, "etype": e.code.etype, "code": e.code.code, "seq": e.seq
            }}),
        });
    }
    for r in &config.regions {
        let bytes = memory(Target::Region(r.stag)).unwrap_or(&[]);
        out.push(json!({"memory": {"stag": r.stag, "base": r.base, "hex": hex::encode(bytes)}}));
    }
    for p in &config.posted {
        let bytes = memory(Target::Buffer { qn: p.qn, msn: p.msn }).unwrap_or(&[]);
        out.push(json!({"memory": {"qn": p.qn, "msn": p.msn, "hex": hex::encode(bytes)}}));
    }
    if let Some(m) = metrics {
        out.push(json!({ "metrics": m }));
    }
    out
}
