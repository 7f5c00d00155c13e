//! Receive rules of RFC 5044 (4.1, 4.2, 4.4, 6, 8), one test each, on streams built by the
//! golden framer and then altered the way a faulty or hostile sender would.

use golden::crc::crc32c;
use golden::deframe::{deframe_stream, DeframeError};
use golden::fpdu::{frame_stream, FramingConfig};
use golden::segment::segment_fpdus;

fn cfg(markers: bool, crc: bool, offset: u32) -> FramingConfig {
    FramingConfig { markers, crc, offset }
}

/// Rewrites the CRC field of the FPDU occupying `fpdu` (its wire octets) after an edit.
fn refresh_crc(fpdu: &mut [u8]) {
    let n = fpdu.len();
    let c = crc32c(&fpdu[..n - 4]).to_le_bytes();
    fpdu[n - 4..].copy_from_slice(&c);
}

#[test]
fn leading_marker_with_nonzero_fpduptr_is_code_3_even_with_a_valid_crc() {
    let c = cfg(true, true, 0);
    let mut wire = frame_stream(c, &[vec![1u8; 20]]).unwrap();
    wire[3] = 4; // the leading Marker must say 0
    refresh_crc(&mut wire);
    let d = deframe_stream(c, &wire);
    assert!(matches!(
        d.error,
        Some(DeframeError::MarkerMismatch { marker_offset: 0, fpduptr: 4, expected: 0, .. })
    ));
}

#[test]
fn marker_between_pad_and_crc_is_checked_code_3() {
    // FPDU from 496: length (2) + 14 octets = 16 octets of body ending at 512, Marker, CRC.
    let c = cfg(true, true, 496);
    let mut wire = frame_stream(c, &[vec![7u8; 14]]).unwrap();
    assert_eq!(&wire[16..20], &[0, 0, 0, 0x10]);
    wire[19] = 0x14;
    refresh_crc(&mut wire);
    let d = deframe_stream(c, &wire);
    assert!(matches!(
        d.error,
        Some(DeframeError::MarkerMismatch { marker_offset: 16, fpduptr: 0x14, expected: 0x10, .. })
    ));
}

#[test]
fn inner_marker_disagreeing_with_a_valid_crc_is_code_3() {
    let c = cfg(true, true, 0);
    let mut wire = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
    wire[515] = 0xf8;
    refresh_crc(&mut wire);
    assert_eq!(deframe_stream(c, &wire).error.map(|e| e.code()), Some(3));
}

#[test]
fn crc_mismatch_takes_precedence_over_marker_mismatch() {
    let c = cfg(true, true, 0);
    let mut wire = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
    wire[515] = 0xf8; // marker wrong and CRC now wrong too
    assert_eq!(deframe_stream(c, &wire).error.map(|e| e.code()), Some(2));
}

#[test]
fn nonzero_pad_and_marker_reserved_are_ignored_except_by_the_crc() {
    let c = cfg(true, true, 0);
    // 1000-octet ULPDU: PAD 2 octets; Marker at 512.
    let mut wire = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
    wire[512] = 0xAA; // Marker RESERVED
    wire[513] = 0x55;
    let n = wire.len();
    wire[n - 6] = 0x77; // PAD octets sit just before the CRC
    wire[n - 5] = 0x66;
    refresh_crc(&mut wire);
    let d = deframe_stream(c, &wire);
    assert_eq!(d.error, None);
    assert_eq!(d.ulpdus[0].data, vec![5u8; 1000]);
    // The same edits without refreshing the CRC are a CRC error.
    let mut stale = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
    stale[n - 6] = 0x77;
    assert_eq!(deframe_stream(c, &stale).error.map(|e| e.code()), Some(2));
}

#[test]
fn deframing_across_the_sequence_number_wrap() {
    let ulpdus: Vec<Vec<u8>> = (0..12).map(|k| vec![k as u8; 150 + 97 * k]).collect();
    for start in [u32::MAX - 3, u32::MAX - 511, u32::MAX - 1023 + 4] {
        let c = cfg(true, true, start & !3);
        let wire = frame_stream(c, &ulpdus).unwrap();
        let d = deframe_stream(c, &wire);
        assert_eq!(d.error, None, "start {start:#x}");
        let got: Vec<Vec<u8>> = d.ulpdus.iter().map(|u| u.data.clone()).collect();
        assert_eq!(got, ulpdus);
        // The FPDUs' stream positions run through the wrap.
        assert!(d.ulpdus.windows(2).any(|w| w[1].fpdu_position < w[0].fpdu_position));
    }
}

#[test]
fn ulpdu_length_zero_and_ffff_are_defined_outcomes() {
    let c = cfg(false, true, 0);
    // Length 0: a valid empty FPDU.
    let wire = frame_stream(c, &[Vec::<u8>::new()]).unwrap();
    assert_eq!(deframe_stream(c, &wire).ulpdus[0].data, Vec::<u8>::new());
    // A corrupted length field of 0xFFFF is over the 64768 limit: reported, not waited for.
    let mut wire = frame_stream(c, &[vec![1u8; 30]]).unwrap();
    wire[0] = 0xff;
    wire[1] = 0xff;
    let d = deframe_stream(c, &wire);
    assert!(matches!(d.error, Some(DeframeError::UlpduTooLong { length: 0xffff, .. })));
    // A length field of 0 in an FPDU that carried data: the CRC no longer matches.
    let mut wire = frame_stream(c, &[vec![1u8; 30]]).unwrap();
    wire[1] = 0;
    assert_eq!(deframe_stream(c, &wire).error.map(|e| e.code()), Some(2));
}

#[test]
fn receiver_limit_is_clamped_to_64768() {
    let c = cfg(false, false, 0);
    let d = golden::deframe::deframe_stream_with_limit(c, &[0xfd, 0x01, 0, 0], 65535);
    assert!(matches!(
        d.error,
        Some(DeframeError::UlpduTooLong { length: 0xfd01, limit: 64768, .. })
    ));
}

#[test]
fn segments_start_with_an_fpdu_including_its_leading_marker() {
    // FPDUs from the framer with Markers, packed into segments: each segment's first octets are
    // either a leading Marker (FPDUPTR 0) followed by an FPDU, or an FPDU's ULPDU_Length field.
    let c = cfg(true, true, 0);
    let mut framer = golden::fpdu::Framer::new(c).unwrap();
    let fpdus: Vec<Vec<u8>> =
        (0..40).map(|k| framer.frame(&vec![k as u8; 60 + 13 * k]).unwrap()).collect();
    let seg = segment_fpdus(&fpdus, 700, 0).unwrap();
    let wire: Vec<u8> = fpdus.concat();
    let d = deframe_stream(c, &wire);
    let starts: Vec<u64> = d.ulpdus.iter().map(|u| u.fpdu_offset).collect();
    let mut at = 0u64;
    let mut saw_leading_marker = false;
    for s in &seg.segments {
        assert!(s.payload.len() <= 700);
        assert!(starts.contains(&at), "segment at {at} does not start an FPDU");
        if (s.seq as u64) % 512 == 0 {
            assert_eq!(&s.payload[..4], &[0, 0, 0, 0]);
            saw_leading_marker = true;
        }
        at += s.payload.len() as u64;
    }
    assert_eq!(at, wire.len() as u64);
    assert!(saw_leading_marker, "the workload should put a Marker at a segment start");
}
