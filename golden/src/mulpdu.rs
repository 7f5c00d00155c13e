//! MULPDU, the largest ULPDU that fits in one FPDU in one TCP segment (RFC 5044 section 4.5), and
//! the ULPDU size limits of section 3.
//!
//! With Markers:    `MULPDU = EMSS - (6 + 4 * Ceiling(EMSS / 512) + EMSS mod 4)`
//! Without Markers: `MULPDU = EMSS - (6 + EMSS mod 4)`
//!
//! "the MPA on TCP sender MUST NOT shrink the MULPDU below 128 octets" (4.5) and "The range of
//! MULPDU values MUST be between 128 octets and 64768 octets, inclusive" (3): the result is
//! clamped to that range.

/// The smallest MULPDU MPA may report (RFC 5044 4.5 and 3).
pub const MULPDU_MIN: u32 = 128;

/// The largest ULPDU DDP may post to MPA (RFC 5044 section 3): 64768 octets. It keeps the largest
/// FPDU, with worst-case Markers, inside one IP datagram and every FPDUPTR below 2^16.
pub const ULPDU_MAX: u32 = 64768;

/// The formula of RFC 5044 4.5 before the clamp: `None` when EMSS is too small for the overhead.
pub fn mulpdu_formula(emss: u32, markers: bool) -> Option<u32> {
    let overhead = if markers {
        6u64 + 4 * (emss as u64).div_ceil(512) + (emss % 4) as u64
    } else {
        6u64 + (emss % 4) as u64
    };
    (emss as u64).checked_sub(overhead).map(|v| v as u32)
}

/// MULPDU for an effective maximum segment size `emss` (RFC 5044 4.5), clamped to
/// [`MULPDU_MIN`]..=[`ULPDU_MAX`].
pub fn mulpdu(emss: u32, markers: bool) -> u32 {
    mulpdu_formula(emss, markers).unwrap_or(0).clamp(MULPDU_MIN, ULPDU_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_with_and_without_markers() {
        // EMSS 1460 (Ethernet MTU 1500, no TCP options): ceil(1460/512) = 3 Markers, 1460 mod 4 = 0.
        assert_eq!(mulpdu(1460, true), 1460 - (6 + 12));
        assert_eq!(mulpdu(1460, false), 1460 - 6);
        // EMSS 1448 (timestamps): 1448 mod 4 = 0, 3 Markers.
        assert_eq!(mulpdu(1448, true), 1430);
        // EMSS not a multiple of 4 loses the remainder.
        assert_eq!(mulpdu(1463, false), 1463 - 6 - 3);
        assert_eq!(mulpdu(1025, true), 1025 - (6 + 4 * 3 + 1));
        assert_eq!(mulpdu(9000, true), 9000 - (6 + 4 * 18));
    }

    #[test]
    fn never_below_128_never_above_64768() {
        for emss in [0, 1, 6, 100, 133] {
            assert_eq!(mulpdu(emss, true), 128, "emss {emss}");
            assert_eq!(mulpdu(emss, false), 128, "emss {emss}");
        }
        assert_eq!(mulpdu(134, false), 128);
        assert_eq!(mulpdu(136, false), 130);
        assert_eq!(mulpdu(u32::MAX, true), ULPDU_MAX);
        assert_eq!(mulpdu(70000, false), ULPDU_MAX);
        assert_eq!(mulpdu_formula(3, true), None);
    }

    #[test]
    fn a_mulpdu_sized_fpdu_fits_in_emss_with_worst_case_markers() {
        // Whatever the FPDU's position relative to the marker origin, an FPDU carrying MULPDU
        // octets must fit in EMSS (the purpose of the formula).
        for emss in (200..4000).step_by(7) {
            let m = mulpdu(emss, true) as usize;
            let body = 2 + m + (4 - (2 + m) % 4) % 4 + 4;
            for start in (0..512).step_by(4) {
                // Markers that land inside the FPDU push the rest out by 4 each.
                let mut len = body;
                let mut extra = 0;
                while (start..start + len).filter(|p| p % 512 == 0).count() > extra {
                    extra += 1;
                    len = body + 4 * extra;
                }
                assert!(len <= emss as usize, "emss {emss} start {start}: {len}");
            }
        }
    }
}
