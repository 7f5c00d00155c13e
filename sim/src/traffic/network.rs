//! What the network does to a stream of TCP segments between sender and receiver: a
//! re-segmenting middlebox (RFC 5044 A.4), loss with retransmission, duplication, overlapping
//! retransmissions, reordering. Every function keeps the octets' values: a copy of an octet
//! always carries what the sender sent at that offset (bit errors are made by the sender,
//! [`super::sender::Fault::Crc`], so that every copy agrees).
//!
//! Segments are in stream offsets; the FIN rides on every segment that ends at the stream's end.

use super::sender::StreamSegment;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The octets `[a, b)` of the stream as one segment.
fn piece(wire: &[u8], a: u64, b: u64, end: u64, fin: bool) -> StreamSegment {
    StreamSegment {
        offset: a,
        payload: wire[a as usize..b as usize].to_vec(),
        fin: fin && b == end,
    }
}

/// Re-cuts the whole stream into segments of 1 to `max` octets at random points (a middlebox
/// that re-segments, or a sender whose TCP ignores FPDU boundaries).
pub fn resegment(
    rng: &mut ChaCha8Rng,
    wire: &[u8],
    fin: bool,
    min: usize,
    max: usize,
) -> Vec<StreamSegment> {
    let end = wire.len() as u64;
    let mut out = Vec::new();
    let mut at = 0u64;
    while at < end {
        let n = rng.gen_range(min.max(1)..=max.max(min.max(1))) as u64;
        let b = (at + n).min(end);
        out.push(piece(wire, at, b, end, fin));
        at = b;
    }
    if out.is_empty() && fin {
        out.push(StreamSegment { offset: 0, payload: Vec::new(), fin: true });
    }
    out
}

/// Loses each segment with probability `p`; a lost segment is retransmitted `delay_min` to
/// `delay_max` segments later, half of the time cut in two at a random point.
pub fn lose_and_retransmit(
    rng: &mut ChaCha8Rng,
    segs: Vec<StreamSegment>,
    p: f64,
    delay_min: usize,
    delay_max: usize,
) -> Vec<StreamSegment> {
    let mut out: Vec<(f64, StreamSegment)> = Vec::new();
    for (i, s) in segs.into_iter().enumerate() {
        if rng.gen_bool(p) {
            let later = i as f64 + rng.gen_range(delay_min..=delay_max.max(delay_min)) as f64 + 0.5;
            if s.payload.len() >= 2 && rng.gen_bool(0.5) {
                let cut = rng.gen_range(1..s.payload.len());
                let first = StreamSegment {
                    offset: s.offset,
                    payload: s.payload[..cut].to_vec(),
                    fin: false,
                };
                let second = StreamSegment {
                    offset: s.offset + cut as u64,
                    payload: s.payload[cut..].to_vec(),
                    fin: s.fin,
                };
                out.push((later, first));
                out.push((later + 0.25, second));
            } else {
                out.push((later, s));
            }
        } else {
            out.push((i as f64, s));
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.into_iter().map(|(_, s)| s).collect()
}

/// Sends a copy of each segment with probability `p`, up to `depth` segments later.
pub fn duplicate(
    rng: &mut ChaCha8Rng,
    segs: Vec<StreamSegment>,
    p: f64,
    depth: usize,
) -> Vec<StreamSegment> {
    let mut out: Vec<(f64, StreamSegment)> = Vec::new();
    for (i, s) in segs.into_iter().enumerate() {
        if rng.gen_bool(p) {
            out.push((i as f64 + rng.gen_range(0..=depth) as f64 + 0.5, s.clone()));
        }
        out.push((i as f64, s));
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.into_iter().map(|(_, s)| s).collect()
}

/// With probability `p` per pair of neighbouring segments, adds a retransmission that covers
/// the second half of the first and the first half of the second (old and new octets together),
/// up to `depth` segments later.
pub fn overlapping_retransmissions(
    rng: &mut ChaCha8Rng,
    wire: &[u8],
    segs: Vec<StreamSegment>,
    p: f64,
    depth: usize,
) -> Vec<StreamSegment> {
    let end = wire.len() as u64;
    let fin = segs.iter().any(|s| s.fin);
    let mut out: Vec<(f64, StreamSegment)> =
        segs.iter().cloned().enumerate().map(|(i, s)| (i as f64, s)).collect();
    for i in 0..segs.len().saturating_sub(1) {
        let (a, b) = (&segs[i], &segs[i + 1]);
        if a.payload.is_empty() || b.payload.is_empty() || !rng.gen_bool(p) {
            continue;
        }
        let from = a.offset + rng.gen_range(0..a.payload.len()) as u64;
        let to = b.offset + rng.gen_range(1..=b.payload.len()) as u64;
        if from < to && to <= end {
            let at = i as f64 + rng.gen_range(0..=depth) as f64 + 0.75;
            out.push((at, piece(wire, from, to, end, fin)));
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.into_iter().map(|(_, s)| s).collect()
}

/// Reorders: each segment moves up to `depth` positions later.
pub fn reorder(rng: &mut ChaCha8Rng, segs: Vec<StreamSegment>, depth: usize) -> Vec<StreamSegment> {
    let mut keyed: Vec<(usize, usize, StreamSegment)> =
        segs.into_iter().enumerate().map(|(i, s)| (i + rng.gen_range(0..=depth), i, s)).collect();
    keyed.sort_by_key(|k| (k.0, k.1));
    keyed.into_iter().map(|(_, _, s)| s).collect()
}
