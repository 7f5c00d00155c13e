//! FPDU-aligned TCP segmentation on transmit: RFC 5044 section 5.1, Appendix A.1 and 4.5.
//!
//! "Multiple FPDUs MAY be packed into a single TCP segment as determined by the EMSS calculation
//! as long as they are entirely contained in the TCP segment" (5.1). This model packs greedily:
//! FPDUs go into the current segment while the segment stays within EMSS; the next FPDU that does
//! not fit starts a new segment, so every segment starts with an FPDU (its first octet, or the
//! leading Marker that belongs to it).
//!
//! An FPDU longer than EMSS (its ULPDU was larger than MULPDU: DDP SHOULD NOT do this, but MPA
//! still sends it) starts a new segment and is cut into segments of EMSS rounded down to a
//! multiple of 4 octets (the last one shorter); only the first of those starts with an FPDU, and
//! the segment after the last piece starts afresh. Cutting at multiples of 4 keeps every segment
//! start 4-octet aligned relative to the marker origin, as every FPDU start is (4.3), which is
//! what lets the hardware segmenter work on 4-octet words. Such FPDUs are counted
//! ([`Segmentation::oversize_fpdus`]). Whole FPDUs are multiples of 4 octets, so "fits in EMSS"
//! and "fits in EMSS rounded down to 4" are the same test.
//!
//! Push: the sender may mark an FPDU as the end of what it has to send for now
//! ([`segment_fpdus_with_push`]); the segment is then closed after it even if the next FPDU would
//! fit (like TCP's PSH, or the end of a DDP message). Without it, a segment stays open for the
//! next FPDU.
//!
//! [`effective_emss`] is how the hardware segmenter reads its EMSS input: clamped to
//! 128..=65535 octets (an EMSS below 128 would leave less than the minimum MULPDU of 4.5), then
//! used as above.

/// One TCP segment's payload and the TCP sequence number of its first octet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u32,
    pub payload: Vec<u8>,
    /// The segment's first octet is the first octet of an FPDU.
    pub starts_with_fpdu: bool,
}

/// The segments and what it took to make them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segmentation {
    pub segments: Vec<Segment>,
    /// FPDUs longer than EMSS, which had to span segments.
    pub oversize_fpdus: usize,
}

/// Why the segments could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentError {
    /// An EMSS below 4 octets cannot carry a 4-octet word.
    ZeroEmss,
}

impl std::fmt::Display for SegmentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SegmentError::ZeroEmss => write!(f, "EMSS must be at least 4 octets"),
        }
    }
}

impl std::error::Error for SegmentError {}

/// Smallest EMSS the hardware segmenter uses (a smaller input is raised to it).
pub const EMSS_MIN: u32 = 128;

/// The EMSS the hardware segmenter applies for an EMSS input of `emss` (16 bits wide):
/// clamped to `EMSS_MIN..=65535`.
pub fn effective_emss(emss: u32) -> u32 {
    emss.clamp(EMSS_MIN, 65535)
}

/// Packs `fpdus` (each the wire octets of one FPDU, Markers included, in stream order) into
/// FPDU-aligned segments of at most `emss` octets, the first starting at sequence number `seq`.
/// No FPDU is pushed: the last segment simply ends with the last FPDU.
pub fn segment_fpdus<F: AsRef<[u8]>>(
    fpdus: &[F],
    emss: u32,
    seq: u32,
) -> Result<Segmentation, SegmentError> {
    let flagged: Vec<(&[u8], bool)> = fpdus.iter().map(|f| (f.as_ref(), false)).collect();
    segment_fpdus_with_push(&flagged, emss, seq)
}

/// As [`segment_fpdus`], with a push flag per FPDU: a pushed FPDU closes its segment.
pub fn segment_fpdus_with_push<F: AsRef<[u8]>>(
    fpdus: &[(F, bool)],
    emss: u32,
    seq: u32,
) -> Result<Segmentation, SegmentError> {
    // Pieces of an oversize FPDU are multiples of 4 octets (see the module documentation).
    let emss = (emss & !3) as usize;
    if emss == 0 {
        return Err(SegmentError::ZeroEmss);
    }
    let mut segments: Vec<Segment> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut next_seq = seq;
    let mut oversize = 0;
    let flush = |current: &mut Vec<u8>, next_seq: &mut u32, segments: &mut Vec<Segment>| {
        if !current.is_empty() {
            let payload = std::mem::take(current);
            let len = payload.len() as u32;
            segments.push(Segment { seq: *next_seq, payload, starts_with_fpdu: true });
            *next_seq = next_seq.wrapping_add(len);
        }
    };
    for (fpdu, push) in fpdus {
        let fpdu = fpdu.as_ref();
        if fpdu.len() > emss {
            flush(&mut current, &mut next_seq, &mut segments);
            oversize += 1;
            for (k, chunk) in fpdu.chunks(emss).enumerate() {
                segments.push(Segment {
                    seq: next_seq,
                    payload: chunk.to_vec(),
                    starts_with_fpdu: k == 0,
                });
                next_seq = next_seq.wrapping_add(chunk.len() as u32);
            }
            continue;
        }
        if current.len() + fpdu.len() > emss {
            flush(&mut current, &mut next_seq, &mut segments);
        }
        current.extend_from_slice(fpdu);
        if *push {
            flush(&mut current, &mut next_seq, &mut segments);
        }
    }
    flush(&mut current, &mut next_seq, &mut segments);
    Ok(Segmentation { segments, oversize_fpdus: oversize })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_whole_fpdus_up_to_emss() {
        let f = |n: usize| vec![n as u8; n];
        let s = segment_fpdus(&[f(8), f(12), f(16), f(4)], 24, 1000).unwrap();
        let lens: Vec<usize> = s.segments.iter().map(|s| s.payload.len()).collect();
        assert_eq!(lens, vec![20, 20]);
        assert_eq!(s.segments[0].seq, 1000);
        assert_eq!(s.segments[1].seq, 1020);
        assert!(s.segments.iter().all(|s| s.starts_with_fpdu));
        assert_eq!(s.oversize_fpdus, 0);
    }

    #[test]
    fn oversize_fpdu_is_cut_at_multiples_of_four() {
        // EMSS 23: pieces of 20 octets; whole FPDUs still pack up to 20 (they are multiples of 4).
        let s = segment_fpdus(&[vec![1u8; 8], vec![2u8; 52], vec![3u8; 8], vec![4u8; 12]], 23, 0)
            .unwrap();
        let lens: Vec<usize> = s.segments.iter().map(|s| s.payload.len()).collect();
        assert_eq!(lens, vec![8, 20, 20, 12, 20]);
        assert!(s.segments.iter().all(|s| s.seq % 4 == 0));
        assert_eq!(segment_fpdus(&[vec![0u8; 4]], 3, 0), Err(SegmentError::ZeroEmss));
    }

    #[test]
    fn push_closes_the_segment_after_the_fpdu() {
        let f = |n: usize| vec![n as u8; n];
        let s = segment_fpdus_with_push(
            &[(f(8), false), (f(4), true), (f(4), false), (f(8), false)],
            100,
            7,
        )
        .unwrap();
        let lens: Vec<usize> = s.segments.iter().map(|s| s.payload.len()).collect();
        assert_eq!(lens, vec![12, 12]);
        assert_eq!(s.segments[1].seq, 19);
        assert_eq!(effective_emss(3), 128);
        assert_eq!(effective_emss(70000), 65535);
        assert_eq!(effective_emss(1460), 1460);
    }

    #[test]
    fn oversize_fpdu_spans_segments_and_is_counted() {
        let s =
            segment_fpdus(&[vec![1u8; 8], vec![2u8; 50], vec![3u8; 8]], 20, u32::MAX - 3).unwrap();
        let lens: Vec<usize> = s.segments.iter().map(|s| s.payload.len()).collect();
        assert_eq!(lens, vec![8, 20, 20, 10, 8]);
        let starts: Vec<bool> = s.segments.iter().map(|s| s.starts_with_fpdu).collect();
        assert_eq!(starts, vec![true, true, false, false, true]);
        assert_eq!(s.oversize_fpdus, 1);
        assert_eq!(s.segments[1].seq, 4); // wrapped
        let joined: Vec<u8> = s.segments.iter().flat_map(|s| s.payload.clone()).collect();
        assert_eq!(joined.len(), 66);
    }

    #[test]
    fn zero_emss_is_an_error() {
        assert_eq!(segment_fpdus(&[vec![0u8; 4]], 0, 0), Err(SegmentError::ZeroEmss));
    }
}
