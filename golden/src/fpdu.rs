//! FPDU transmit framing: RFC 5044 sections 4.1 (FPDU format), 4.2 and 4.3 (Markers) and 4.4
//! (CRC calculation).
//!
//! An FPDU on the wire is
//!
//! ```text
//!   [Marker]  ULPDU_Length(2)  ULPDU  PAD(0..3, zero)  [Marker]  CRC(4)
//!             \___________ Markers every 512 octets ___________/
//! ```
//!
//! - ULPDU_Length (4.1): big-endian count of ULPDU octets only.
//! - PAD (4.1): zeros that make the FPDU (without Markers) a multiple of 4 octets.
//! - Markers (4.3): 4 octets, RESERVED (0) then FPDUPTR, at every 512th octet of the stream
//!   counted from the marker origin. FPDUPTR is the number of octets from the FPDU's ULPDU_Length
//!   field to the Marker; 0 when the Marker falls between FPDUs, in which case it belongs to (and is
//!   covered by the CRC of) the following FPDU. A Marker between PAD and CRC belongs to the current
//!   FPDU (4.4 rule 1).
//! - CRC (4.4): CRC32c from the FPDU's first octet (its leading Marker, if any) through the PAD and
//!   any Marker just before the CRC field, written least significant octet first. When CRCs are not
//!   in use the field is still present; this framer then writes zeros ("may contain any value").
//!
//! Stream positions are counted modulo 2^32 relative to the marker origin (TCP sequence numbers
//! wrap; 2^32 is a multiple of 512, so Marker positions survive the wrap). The first octet may sit
//! at any 4-octet-aligned offset from the origin; FPDUs are multiples of 4, so every FPDU and every
//! Marker then starts 4-octet aligned.

use crate::crc::crc32c;
use crate::mulpdu::ULPDU_MAX;
use std::fmt;

/// Marker spacing in octets (RFC 5044 4.3).
pub const MARKER_INTERVAL: u32 = 512;
/// Marker size in octets (RFC 5044 4.2).
pub const MARKER_LEN: usize = 4;
/// ULPDU_Length field size (4.1).
pub const HEADER_LEN: usize = 2;
/// CRC field size (4.1).
pub const CRC_LEN: usize = 4;

/// Per-direction framing settings, as negotiated at startup (7.1.1 M and C bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramingConfig {
    /// Markers are inserted (4.3).
    pub markers: bool,
    /// CRC32c is generated / checked (4.4). When false the field is still present.
    pub crc: bool,
    /// Stream position of the first octet relative to the marker origin, modulo 2^32. Must be a
    /// multiple of 4. 0 means the stream starts with a Marker (when Markers are on).
    pub offset: u32,
}

impl Default for FramingConfig {
    /// Markers off, CRC on (the RFC's default, 4.4), offset 0.
    fn default() -> Self {
        FramingConfig { markers: false, crc: true, offset: 0 }
    }
}

impl FramingConfig {
    /// Checks the settings: the offset must be a multiple of 4 (4.3: FPDUs and Markers are
    /// 4-octet aligned relative to the origin).
    pub fn validate(&self) -> Result<(), FrameError> {
        if self.offset % 4 != 0 {
            return Err(FrameError::UnalignedOffset(self.offset));
        }
        Ok(())
    }
}

/// Why a ULPDU could not be framed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The stream offset is not a multiple of 4.
    UnalignedOffset(u32),
    /// The ULPDU exceeds the 64768-octet limit of RFC 5044 section 3.
    UlpduTooLong { len: usize },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::UnalignedOffset(o) => {
                write!(f, "stream offset {o} is not a multiple of 4 (RFC 5044 4.3)")
            }
            FrameError::UlpduTooLong { len } => write!(
                f,
                "ULPDU of {len} octets exceeds the {ULPDU_MAX}-octet limit (RFC 5044 section 3)"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// Number of zero PAD octets after a ULPDU of `ulpdu_len` octets (4.1).
pub fn pad_len(ulpdu_len: usize) -> usize {
    (4 - (HEADER_LEN + ulpdu_len) % 4) % 4
}

/// True when a Marker starts at stream position `pos` (relative to the origin; 4.3).
pub fn is_marker_position(pos: u32) -> bool {
    pos % MARKER_INTERVAL == 0
}

/// The 4 octets of a Marker: RESERVED = 0, then FPDUPTR big-endian (4.2).
pub fn marker_bytes(fpduptr: u16) -> [u8; 4] {
    let p = fpduptr.to_be_bytes();
    [0, 0, p[0], p[1]]
}

/// Frames a sequence of ULPDUs into an MPA byte stream, one FPDU after the other, tracking the
/// stream position across FPDUs.
#[derive(Clone, Debug)]
pub struct Framer {
    config: FramingConfig,
    /// Stream position (relative to the marker origin, mod 2^32) of the next octet to emit.
    position: u32,
}

impl Framer {
    /// A framer whose first octet sits at `config.offset`.
    pub fn new(config: FramingConfig) -> Result<Self, FrameError> {
        config.validate()?;
        Ok(Framer { config, position: config.offset })
    }

    /// Stream position (relative to the marker origin) of the next octet this framer emits.
    pub fn position(&self) -> u32 {
        self.position
    }

    /// Appends one FPDU carrying `ulpdu` to `out` and returns its length on the wire (Markers
    /// included). RFC 5044 section 3 has DDP post ULPDUs of 1 to 64768 octets; this model also
    /// frames an empty ULPDU (ULPDU_Length 0, PAD 2), which the format represents without
    /// ambiguity and the receiver accepts.
    pub fn frame_into(&mut self, ulpdu: &[u8], out: &mut Vec<u8>) -> Result<usize, FrameError> {
        if ulpdu.len() > ULPDU_MAX as usize {
            return Err(FrameError::UlpduTooLong { len: ulpdu.len() });
        }
        let first = out.len();
        let markers = self.config.markers;
        let mut pos = self.position;
        // 4.3 / 4.4 rule 2: a Marker that falls just before the ULPDU_Length field belongs to this
        // FPDU, carries FPDUPTR 0 and is covered by this FPDU's CRC.
        if markers && is_marker_position(pos) {
            out.extend_from_slice(&marker_bytes(0));
            pos = pos.wrapping_add(MARKER_LEN as u32);
        }
        let header_pos = pos;
        let fpduptr = |at: u32| at.wrapping_sub(header_pos) as u16;

        // ULPDU_Length, ULPDU and PAD, in 4-octet words (everything here is 4-octet aligned).
        let mut body = Vec::with_capacity(HEADER_LEN + ulpdu.len() + 3);
        body.extend_from_slice(&(ulpdu.len() as u16).to_be_bytes());
        body.extend_from_slice(ulpdu);
        body.resize(body.len() + pad_len(ulpdu.len()), 0);
        // Copy the body in runs between Marker positions (every 512 octets of stream).
        let mut at = 0usize;
        while at < body.len() {
            if markers && pos != header_pos && is_marker_position(pos) {
                out.extend_from_slice(&marker_bytes(fpduptr(pos)));
                pos = pos.wrapping_add(MARKER_LEN as u32);
            }
            let to_marker = if markers {
                (MARKER_INTERVAL - pos % MARKER_INTERVAL) as usize
            } else {
                usize::MAX
            };
            let run = to_marker.min(body.len() - at);
            out.extend_from_slice(&body[at..at + run]);
            at += run;
            pos = pos.wrapping_add(run as u32);
        }
        // 4.4 rule 1: a Marker immediately after the PAD belongs to this FPDU and its CRC.
        if markers && is_marker_position(pos) {
            out.extend_from_slice(&marker_bytes(fpduptr(pos)));
            pos = pos.wrapping_add(MARKER_LEN as u32);
        }
        let crc = if self.config.crc { crc32c(&out[first..]).to_le_bytes() } else { [0; 4] };
        out.extend_from_slice(&crc);
        pos = pos.wrapping_add(CRC_LEN as u32);
        self.position = pos;
        Ok(out.len() - first)
    }

    /// One FPDU carrying `ulpdu`, as wire octets.
    pub fn frame(&mut self, ulpdu: &[u8]) -> Result<Vec<u8>, FrameError> {
        let mut out = Vec::new();
        self.frame_into(ulpdu, &mut out)?;
        Ok(out)
    }
}

/// Frames all `ulpdus` into one MPA stream.
pub fn frame_stream<U: AsRef<[u8]>>(
    config: FramingConfig,
    ulpdus: &[U],
) -> Result<Vec<u8>, FrameError> {
    let mut framer = Framer::new(config)?;
    let mut out = Vec::new();
    for u in ulpdus {
        framer.frame_into(u.as_ref(), &mut out)?;
    }
    Ok(out)
}

/// Wire length of an FPDU carrying `ulpdu_len` octets whose first octet sits at stream position
/// `start` (Markers included; 4.1-4.3). `start` must be a multiple of 4 (as every FPDU start is).
pub fn fpdu_wire_len(start: u32, ulpdu_len: usize, markers: bool) -> usize {
    let plain = HEADER_LEN + ulpdu_len + pad_len(ulpdu_len) + CRC_LEN;
    if !markers {
        return plain;
    }
    // A Marker goes in front of every 4-octet word (length, ULPDU, PAD, CRC) that would
    // otherwise start on a Marker position. From the first word's position r (mod 512), the
    // words fill 512 - r octets before the first Marker, then 508 octets between Markers.
    let mut r = (start % MARKER_INTERVAL) as usize;
    let mut len = 0usize;
    if r == 0 {
        len += MARKER_LEN; // leading Marker (FPDUPTR 0)
        r = MARKER_LEN;
    }
    let room = MARKER_INTERVAL as usize - r;
    let inner = if plain <= room {
        0
    } else {
        (plain - room).div_ceil(MARKER_INTERVAL as usize - MARKER_LEN)
    };
    len + plain + MARKER_LEN * inner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure5_ulpdu(msn: u8) -> Vec<u8> {
        let mut u = vec![0u8; 42];
        u[0] = 0x41;
        u[1] = 0x43;
        u[13] = msn;
        u
    }

    #[test]
    fn pad_makes_fpdu_a_multiple_of_four() {
        for len in 0..40 {
            assert_eq!((HEADER_LEN + len + pad_len(len)) % 4, 0);
            assert!(pad_len(len) < 4);
        }
    }

    #[test]
    fn first_fpdu_with_markers_starts_with_zero_marker() {
        let cfg = FramingConfig { markers: true, crc: true, offset: 0 };
        let wire = Framer::new(cfg).unwrap().frame(&figure5_ulpdu(1)).unwrap();
        assert_eq!(&wire[..6], &[0, 0, 0, 0, 0x00, 0x2a]);
        assert_eq!(&wire[wire.len() - 4..], &[0x52, 0x23, 0x99, 0x83]);
    }

    #[test]
    fn marker_inside_fpdu_points_back_to_length_field() {
        let cfg = FramingConfig { markers: true, crc: true, offset: 492 };
        let wire = Framer::new(cfg).unwrap().frame(&figure5_ulpdu(2)).unwrap();
        // Stream position 512 is wire index 20: FPDUPTR = 512 - 492 = 0x14.
        assert_eq!(&wire[20..24], &[0, 0, 0, 0x14]);
        assert_eq!(&wire[wire.len() - 4..], &[0x84, 0x92, 0x58, 0x98]);
    }

    #[test]
    fn marker_between_pad_and_crc_belongs_to_current_fpdu() {
        // FPDU starting at 500: length(2) + 6 octets = 8 octets of body, ending at 508? Use a body
        // that ends exactly at 512: start 496, body 16 = 2 + 14.
        let cfg = FramingConfig { markers: true, crc: true, offset: 496 };
        let ulpdu = [7u8; 14];
        let wire = Framer::new(cfg).unwrap().frame(&ulpdu).unwrap();
        assert_eq!(wire.len(), 16 + 4 + 4);
        assert_eq!(&wire[16..20], &[0, 0, 0, 16]);
        assert_eq!(&wire[20..], &crc32c(&wire[..20]).to_le_bytes());
    }

    #[test]
    fn marker_after_crc_belongs_to_next_fpdu_with_zero_pointer() {
        // First FPDU ends exactly at 512; the Marker at 512 falls between FPDUs.
        let cfg = FramingConfig { markers: true, crc: true, offset: 492 };
        let mut f = Framer::new(cfg).unwrap();
        let a = f.frame(&[1u8; 14]).unwrap(); // 2 + 14 + 0 pad + 4 = 20 octets: 492..512
        assert_eq!(a.len(), 20);
        let b = f.frame(&[2u8; 2]).unwrap();
        assert_eq!(&b[..4], &[0, 0, 0, 0]);
        assert_eq!(&b[4..6], &[0, 2]);
        // The Marker is covered by the second FPDU's CRC.
        assert_eq!(&b[b.len() - 4..], &crc32c(&b[..b.len() - 4]).to_le_bytes());
    }

    #[test]
    fn crc_off_leaves_the_field_present() {
        let cfg = FramingConfig { markers: false, crc: false, offset: 0 };
        let wire = Framer::new(cfg).unwrap().frame(&[1, 2, 3]).unwrap();
        assert_eq!(wire, vec![0, 3, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn empty_ulpdu_is_header_pad_crc() {
        let cfg = FramingConfig::default();
        let wire = Framer::new(cfg).unwrap().frame(&[]).unwrap();
        assert_eq!(wire.len(), 8);
        assert_eq!(&wire[..4], &[0, 0, 0, 0]);
    }

    #[test]
    fn oversized_ulpdu_and_unaligned_offset_are_errors() {
        let mut f = Framer::new(FramingConfig::default()).unwrap();
        assert_eq!(f.frame(&vec![0; 64769]), Err(FrameError::UlpduTooLong { len: 64769 }));
        assert!(f.frame(&vec![0; 64768]).is_ok());
        let cfg = FramingConfig { offset: 6, ..FramingConfig::default() };
        assert_eq!(Framer::new(cfg).unwrap_err(), FrameError::UnalignedOffset(6));
    }

    #[test]
    fn positions_wrap_at_two_to_the_32() {
        let cfg = FramingConfig { markers: true, crc: true, offset: u32::MAX - 7 };
        let mut f = Framer::new(cfg).unwrap();
        let wire = f.frame(&[9u8; 10]).unwrap();
        // 2^32 is a Marker position: 8 octets in (length + 6 octets of ULPDU).
        assert_eq!(&wire[8..12], &[0, 0, 0, 8]);
        assert_eq!(f.position(), (u32::MAX - 7).wrapping_add(wire.len() as u32));
    }

    #[test]
    fn wire_len_matches_framer() {
        for markers in [false, true] {
            for start in (0..1024u32).step_by(4) {
                for len in [0usize, 1, 13, 490, 511, 512, 513, 1500] {
                    let cfg = FramingConfig { markers, crc: true, offset: start };
                    let wire = Framer::new(cfg).unwrap().frame(&vec![0; len]).unwrap();
                    assert_eq!(fpdu_wire_len(start, len, markers), wire.len());
                }
            }
        }
    }
}
