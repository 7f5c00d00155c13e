//! The out-of-order side of [`Receiver`]: locating FPDUs inside an arriving segment (RFC 5044
//! section 6 methods 2 and 3, Appendix B.2 header alignment), choosing what it places, the
//! buffer and record budget, and refusal. The rules are in the module documentation of
//! [`super`].

use super::held::{intersection_len, normalize, subtract, total_len, Span};
use super::{invalidate_target, tagged_stag, PlacedFpdu, Receiver, Verdict};
use crate::ddp::{decode_with, DdpSegment, Opcode, ProtocolVersion, TerminateCode};
use crate::deframe::parse_fpdu;
use crate::fpdu::{FramingConfig, MARKER_INTERVAL, MARKER_LEN};
use std::collections::BTreeSet;

/// An FPDU an out-of-order segment will place if it is accepted.
struct Placing {
    start: u64,
    end: u64,
    segment: DdpSegment,
    placement: crate::ddp::Placement,
}

impl Receiver {
    pub(super) fn out_of_order(&mut self, s: u64, e: u64, bytes: &[u8], fin: bool) -> Verdict {
        if e > self.edge + self.cfg.reassembly_window {
            return Verdict::Refused;
        }
        let placing = self.choose_placements(s, e, bytes);
        // Budget: what the table and the buffer would hold with this segment.
        let new = self.new_spans(s, e);
        let placed_spans: Vec<Span> = placing.iter().map(|p| (p.start, p.end)).collect();
        let new_held = subtract(&new, &placed_spans);
        let touching = self.held.spans_touching(s, e);
        let freed = intersection_len(&touching, &placed_spans);
        let mut local = touching.clone();
        local.extend_from_slice(&new_held);
        let runs_after = self.held.run_count() - touching.len()
            + subtract(&normalize(local), &placed_spans).len();
        let in_order_run =
            self.held.run_containing(self.next_fpdu).filter(|_| self.next_fpdu < self.edge);
        let in_order_len = in_order_run.map_or(0, |(a, b)| b - a);
        let ooo_held_after = self.held.total() - in_order_len + total_len(&new_held) - freed;
        let ooo_records_after =
            runs_after - usize::from(in_order_run.is_some()) + self.placed.len() + placing.len();
        if ooo_held_after > self.ooo_budget
            || ooo_records_after as u64 > self.cfg.records as u64 - 1
        {
            return Verdict::Refused;
        }
        // Commit.
        for p in placing {
            let seq = self.seq_of(p.start);
            let n = p.segment.payload().len() as u64;
            if !self.memory.place(&p.placement, p.segment.payload(), seq) {
                self.fail(TerminateCode::DDP_CATASTROPHIC, p.start, "placement target lost".into());
                return Verdict::Accepted;
            }
            self.metrics.direct_octets += n;
            self.metrics.ooo_fpdus += 1;
            if let Some(stag) = invalidate_target(&p.segment) {
                *self.pending_invalidate.entry(stag).or_insert(0) += 1;
            }
            let keep_payload =
                matches!(p.segment.opcode(), Opcode::RdmaReadRequest | Opcode::Terminate);
            let segment = if keep_payload { p.segment } else { strip_payload(p.segment) };
            self.held.remove(p.start, p.end);
            self.placed.insert(p.start, PlacedFpdu { end: p.end, segment, payload_len: n });
        }
        for (a, b) in new_held {
            self.held.insert(a, &bytes[(a - s) as usize..(b - s) as usize]);
        }
        if fin {
            self.fin = Some(e);
        }
        Verdict::Accepted
    }

    /// The FPDUs inside the out-of-order segment `[s, e)` that it would place.
    fn choose_placements(&self, s: u64, e: u64, bytes: &[u8]) -> Vec<Placing> {
        let mut out: Vec<Placing> = Vec::new();
        let mut naming: BTreeSet<u32> = BTreeSet::new();
        for c in self.locate(s, e, bytes) {
            if self.placed.get(&c.start).is_some_and(|p| p.end == c.end)
                || self.overlaps_placed(c.start, c.end)
                || out.last().is_some_and(|p| p.end > c.start)
            {
                continue;
            }
            let Ok(segment) = decode_with(&c.ulpdu, self.version) else { continue };
            let Ok(placement) = self.model.place(&segment) else { continue };
            if let Some(stag) = tagged_stag(&segment) {
                if self.pending_invalidate.contains_key(&stag) || naming.contains(&stag) {
                    continue;
                }
            }
            if let Some(stag) = invalidate_target(&segment) {
                if self.model.check_invalidate(stag).is_err()
                    || self.pending_invalidate.contains_key(&stag)
                    || naming.contains(&stag)
                {
                    continue;
                }
                naming.insert(stag);
            }
            out.push(Placing { start: c.start, end: c.end, segment, placement });
        }
        out
    }

    /// The CRC-good FPDUs located inside `[s, e)`, in order of their first octet.
    fn locate(&self, s: u64, e: u64, bytes: &[u8]) -> Vec<Located> {
        if !self.cfg.crc || !self.cfg.place_out_of_order {
            return Vec::new();
        }
        // The chain onward from the placed FPDU that contains or ends at the first octet.
        let chain = self.placed.range(..=s).next_back().map(|(_, p)| p.end).filter(|&x| x >= s);
        let settings = LocateSettings {
            framing: self.framing,
            max_ulpdu: self.cfg.max_ulpdu,
            aligned_detect: self.cfg.aligned_detect,
            version: self.version,
        };
        locate_fpdus(&settings, chain, s, e, bytes)
    }
}

/// What [`locate_fpdus`] needs to know of the connection.
#[derive(Clone, Copy, Debug)]
pub struct LocateSettings {
    /// Markers on or off (`offset` is ignored: positions are offsets from the Marker origin).
    pub framing: FramingConfig,
    /// The largest ULPDU_Length accepted.
    pub max_ulpdu: u32,
    /// Appendix B.2 header-alignment detection.
    pub aligned_detect: bool,
    /// DDP/RDMAP version, for the header check of header alignment.
    pub version: ProtocolVersion,
}

/// A CRC-good FPDU found inside a segment by [`locate_fpdus`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Offset from the origin of its first octet.
    pub start: u64,
    /// Offset just after its last octet.
    pub end: u64,
    /// Its ULPDU.
    pub ulpdu: Vec<u8>,
}

/// The CRC-good FPDUs located inside the segment `[s, e)` (offsets from the Marker origin;
/// `bytes` its octets), in order of their first octet, none overlapping another (RFC 5044
/// section 6 methods 2 and 3, Appendix B.2).
///
/// Candidate starts, in this order: `s` when the segment is header-aligned (`aligned_detect`);
/// `chain` (the end of the placed FPDU that contains or ends at `s`); the start each Marker
/// inside the segment points at, Markers in stream order. A candidate is tried unless it lies
/// outside `[s, e)`, is not a multiple of 4, or lies before the first octet not yet tried: a
/// try follows the ULPDU_Length chain from the candidate while each FPDU is complete and
/// verifies (CRC, limit, FPDUPTR), and it has tried every octet up to and including the start
/// of the FPDU that ended it. So a Marker that disagrees with a chain already found is ignored,
/// and the hardware (`hdl::place::locate`) needs no sorting: it keeps the Markers' candidates
/// in arrival order.
pub fn locate_fpdus(
    settings: &LocateSettings,
    chain: Option<u64>,
    s: u64,
    e: u64,
    bytes: &[u8],
) -> Vec<Located> {
    let mut found = Vec::new();
    if e <= s {
        return found;
    }
    let mut candidates: Vec<u64> = Vec::new();
    if settings.aligned_detect && header_aligned(settings, s, e, bytes) {
        candidates.push(s);
    }
    candidates.extend(chain);
    if settings.framing.markers {
        let interval = MARKER_INTERVAL as u64;
        let mut m = s.div_ceil(interval) * interval;
        while m + MARKER_LEN as u64 <= e {
            let at = (m - s) as usize;
            let fpduptr = (u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) & !3) as u64;
            if fpduptr == 0 {
                candidates.push(m);
            } else if fpduptr <= m {
                let header = m - fpduptr;
                let lead = header >= 4 && (header - 4) % interval == 0;
                candidates.push(if lead { header - 4 } else { header });
            }
            m += interval;
        }
    }
    let mut untried = s;
    for c in candidates {
        // FPDUs start at multiples of 4 from the origin (4.1 PAD, 4.3).
        if c < untried || c >= e || c % 4 != 0 {
            continue;
        }
        let mut f = c;
        while f < e {
            let at = (f - s) as usize;
            match parse_fpdu(settings.framing, settings.max_ulpdu, f as u32, &bytes[at..], f) {
                Ok(Some((ulpdu, w))) => {
                    found.push(Located { start: f, end: f + w as u64, ulpdu: ulpdu.data });
                    f += w as u64;
                }
                _ => break,
            }
        }
        untried = f + 1;
    }
    found
}

/// Appendix B.2 header alignment: `[s, e)` is a chain of complete FPDUs with good CRCs and
/// valid DDP/RDMAP headers that ends exactly at `e`.
fn header_aligned(settings: &LocateSettings, s: u64, e: u64, bytes: &[u8]) -> bool {
    if s % 4 != 0 {
        return false;
    }
    let mut f = s;
    while f < e {
        let at = (f - s) as usize;
        match parse_fpdu(settings.framing, settings.max_ulpdu, f as u32, &bytes[at..], f) {
            Ok(Some((ulpdu, w))) if decode_with(&ulpdu.data, settings.version).is_ok() => {
                f += w as u64;
            }
            _ => return false,
        }
    }
    f == e
}

/// The segment with an empty payload (the record keeps only the header and the length).
fn strip_payload(segment: DdpSegment) -> DdpSegment {
    match segment {
        DdpSegment::Tagged { header, .. } => DdpSegment::Tagged { header, payload: Vec::new() },
        DdpSegment::Untagged { header, .. } => DdpSegment::Untagged { header, payload: Vec::new() },
    }
}
