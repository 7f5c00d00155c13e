//! Property tests of the golden framer and deframer (RFC 5044 4.1-4.4, 6, 8).

use golden::crc::crc32c;
use golden::deframe::{deframe_stream, DeframeError, Deframer};
use golden::fpdu::{frame_stream, is_marker_position, FramingConfig, MARKER_INTERVAL};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = FramingConfig> {
    (any::<bool>(), any::<bool>(), any::<u32>()).prop_map(|(markers, crc, off)| FramingConfig {
        markers,
        crc,
        offset: off & !3,
    })
}

fn ulpdus() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(
        (0usize..4000, any::<u8>()).prop_map(|(n, seed)| {
            (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
        }),
        1..8,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Framing then deframing returns the ULPDUs, whatever the sizes, settings and offset.
    #[test]
    fn frame_then_deframe_returns_the_ulpdus(cfg in config(), us in ulpdus()) {
        let wire = frame_stream(cfg, &us).unwrap();
        let d = deframe_stream(cfg, &wire);
        prop_assert_eq!(d.error, None);
        let got: Vec<Vec<u8>> = d.ulpdus.into_iter().map(|u| u.data).collect();
        prop_assert_eq!(got, us);
    }

    /// The same, fed in random pieces (any segmentation of the TCP stream).
    #[test]
    fn deframing_does_not_depend_on_segmentation(
        cfg in config(),
        us in ulpdus(),
        cuts in prop::collection::vec(1usize..3000, 1..40),
    ) {
        let wire = frame_stream(cfg, &us).unwrap();
        let mut d = Deframer::new(cfg).unwrap();
        let mut out = Vec::new();
        let mut at = 0;
        for c in cuts.iter().cycle() {
            if at >= wire.len() { break; }
            let end = (at + c).min(wire.len());
            d.push(&wire[at..end], &mut out).unwrap();
            at = end;
        }
        d.finish().unwrap();
        let got: Vec<Vec<u8>> = out.into_iter().map(|u| u.data).collect();
        prop_assert_eq!(got, us);
    }

    /// Every Marker sits at a multiple of 512 from the origin and points back to its FPDU's
    /// ULPDU_Length field (or is 0 between FPDUs), and every CRC covers its FPDU with its Markers.
    #[test]
    fn markers_and_crcs_are_where_the_rfc_puts_them(off in any::<u32>(), us in ulpdus()) {
        let cfg = FramingConfig { markers: true, crc: true, offset: off & !3 };
        let wire = frame_stream(cfg, &us).unwrap();
        let d = deframe_stream(cfg, &wire);
        prop_assert_eq!(d.error, None);
        let mut pos = cfg.offset;
        let mut idx = 0usize;
        for (k, u) in d.ulpdus.iter().enumerate() {
            prop_assert_eq!(u.fpdu_offset as usize, idx);
            let end = d.ulpdus.get(k + 1).map(|n| n.fpdu_offset as usize).unwrap_or(wire.len());
            let fpdu = &wire[idx..end];
            let lead = is_marker_position(pos);
            let header = if lead { pos.wrapping_add(4) } else { pos };
            for at in (0..fpdu.len()).step_by(4) {
                let p = pos.wrapping_add(at as u32);
                if p % MARKER_INTERVAL == 0 {
                    let ptr = u16::from_be_bytes([fpdu[at + 2], fpdu[at + 3]]) as u32;
                    prop_assert_eq!(&fpdu[at..at + 2], &[0u8, 0][..]);
                    let want = if at == 0 { 0 } else { p.wrapping_sub(header) };
                    prop_assert_eq!(ptr, want);
                }
            }
            let n = fpdu.len();
            prop_assert_eq!(crc32c(&fpdu[..n - 4]).to_le_bytes(), [fpdu[n-4], fpdu[n-3], fpdu[n-2], fpdu[n-1]]);
            pos = pos.wrapping_add(n as u32);
            idx = end;
        }
        prop_assert_eq!(idx, wire.len());
    }

    /// Any single flipped bit in a stream with CRC on is reported (code 2, 3, or a length or
    /// truncation error) and the corrupted FPDU is never returned as good data.
    #[test]
    fn a_flipped_bit_never_passes_as_good_data(
        markers in any::<bool>(),
        off in any::<u32>(),
        us in ulpdus(),
        which in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let cfg = FramingConfig { markers, crc: true, offset: off & !3 };
        let wire = frame_stream(cfg, &us).unwrap();
        prop_assume!(!wire.is_empty());
        let good = deframe_stream(cfg, &wire);
        let i = which.index(wire.len());
        let mut bad = wire.clone();
        bad[i] ^= 1 << bit;
        let d = deframe_stream(cfg, &bad);
        // The FPDU holding octet i: the last one starting at or before it.
        let hit = good.ulpdus.iter().rposition(|u| u.fpdu_offset as usize <= i).unwrap();
        match &d.error {
            Some(DeframeError::CrcMismatch { .. })
            | Some(DeframeError::MarkerMismatch { .. })
            | Some(DeframeError::UlpduTooLong { .. })
            | Some(DeframeError::Truncated { .. }) => {}
            other => prop_assert!(false, "bit {} of octet {} gave {:?}", bit, i, other),
        }
        // Everything returned is good data from before the damaged FPDU.
        prop_assert!(d.ulpdus.len() <= hit);
        for (a, b) in d.ulpdus.iter().zip(&good.ulpdus) {
            prop_assert_eq!(a, b);
        }
    }
}
