//! `locate_fpdus` (RFC 5044 section 6 methods 2 and 3): what a segment cut from a stream with
//! Markers yields, and the rule for candidates (tried in order: the chain start, then the
//! Markers; one before the first untried octet skipped).

use golden::ddp::ProtocolVersion;
use golden::fpdu::{fpdu_wire_len, frame_stream, FramingConfig};
use golden::receiver::{locate_fpdus, LocateSettings};

fn settings(markers: bool) -> LocateSettings {
    LocateSettings {
        framing: FramingConfig { markers, crc: true, offset: 0 },
        max_ulpdu: 64768,
        aligned_detect: false,
        version: ProtocolVersion::default(),
    }
}

/// Ten FPDUs of 300-octet ULPDUs with Markers; their starts.
fn stream() -> (Vec<u8>, Vec<u64>) {
    let ulpdus: Vec<Vec<u8>> = (0..10u8).map(|k| vec![k; 300]).collect();
    let wire =
        frame_stream(FramingConfig { markers: true, crc: true, offset: 0 }, &ulpdus).unwrap();
    let mut starts = vec![0u64];
    for _ in 1..10 {
        let s = *starts.last().unwrap();
        starts.push(s + fpdu_wire_len(s as u32, 300, true) as u64);
    }
    assert_eq!(wire.len() as u64, starts[9] + fpdu_wire_len(starts[9] as u32, 300, true) as u64);
    (wire, starts)
}

/// The FPDU containing offset `x`.
fn containing(starts: &[u64], x: u64) -> u64 {
    starts.iter().copied().filter(|&f| f <= x).last().unwrap()
}

#[test]
fn markers_locate_every_complete_fpdu_after_the_first_one_they_point_at() {
    let (wire, starts) = stream();
    // From the middle of FPDU 1 to the middle of FPDU 8. The Marker at 512 lies in FPDU 1 and
    // points before the segment; the one at 1024 points at the FPDU it lies in, and the chain
    // takes the complete ones after it. FPDU 2, which no Marker points at, is not located.
    let (s, e) = (starts[1] + 20, starts[8] + 40);
    assert_eq!(containing(&starts, 512), starts[1]);
    let first = containing(&starts, 1024);
    assert!(first > starts[2]);
    let found = locate_fpdus(&settings(true), None, s, e, &wire[s as usize..e as usize]);
    let got: Vec<u64> = found.iter().map(|l| l.start).collect();
    let want: Vec<u64> = starts.iter().copied().filter(|&f| f >= first && f < starts[8]).collect();
    assert_eq!(got, want);
    assert_eq!(found.last().unwrap().end, starts[8]);
    let k = starts.iter().position(|&f| f == first).unwrap();
    assert_eq!(found[0].ulpdu, vec![k as u8; 300]);
    // Without Markers (a stream framed without them): nothing is located without a chain
    // start; from a chain start at FPDU 3, FPDUs 3 to 7.
    let ulpdus: Vec<Vec<u8>> = (0..10u8).map(|k| vec![k; 300]).collect();
    let plain =
        frame_stream(FramingConfig { markers: false, crc: true, offset: 0 }, &ulpdus).unwrap();
    let w = fpdu_wire_len(0, 300, false) as u64;
    let (s, e) = (w + 20, 8 * w + 40);
    let seg = &plain[s as usize..e as usize];
    assert!(locate_fpdus(&settings(false), None, s, e, seg).is_empty());
    let chained = locate_fpdus(&settings(false), Some(3 * w), s, e, seg);
    assert_eq!(
        chained.iter().map(|l| l.start).collect::<Vec<_>>(),
        (3..8).map(|k| k * w).collect::<Vec<_>>()
    );
}

#[test]
fn candidates_are_tried_in_order_and_one_before_the_first_untried_octet_is_skipped() {
    let (wire, starts) = stream();
    let (s, e) = (starts[0], starts[9]);
    let bytes = &wire[s as usize..e as usize];
    // Markers alone: every complete FPDU from the first.
    let all = locate_fpdus(&settings(true), None, s, e, bytes);
    assert_eq!(all.iter().map(|l| l.start).collect::<Vec<_>>(), starts[..9].to_vec());
    // The chain start comes first: from FPDU 2 the chain covers 2 to 8, and the Markers'
    // candidates (FPDUs 0 and 1, before the first untried octet) are skipped.
    let chained = locate_fpdus(&settings(true), Some(starts[2]), s, e, bytes);
    assert_eq!(chained.iter().map(|l| l.start).collect::<Vec<_>>(), starts[2..9].to_vec());
}

#[test]
fn a_marker_that_disagrees_with_the_chain_ends_it_at_its_fpdu() {
    let (mut wire, starts) = stream();
    let (s, e) = (starts[0], starts[9]);
    // The last Marker in the segment points 4 octets past the start of the FPDU it lies in.
    let m = (e - 4) / 512 * 512;
    let bad = containing(&starts, m);
    let p = (m - (bad + 4)) as u16;
    wire[m as usize + 2..m as usize + 4].copy_from_slice(&p.to_be_bytes());
    // That FPDU fails its FPDUPTR check, so the chain from the first Marker stops before it;
    // the damaged Marker's own candidate is tried and fails; no Marker points past it.
    let found = locate_fpdus(&settings(true), None, s, e, &wire[s as usize..e as usize]);
    let want: Vec<u64> = starts.iter().copied().filter(|&f| f < bad).collect();
    assert_eq!(found.iter().map(|l| l.start).collect::<Vec<_>>(), want);
}
