//! In-order receive deframing: RFC 5044 section 6 (FPDU identification), 4.3 and 4.4 (Markers and
//! CRC on receive) and section 8 (error semantics).
//!
//! The receiver walks the ordered TCP byte stream by the ULPDU_Length chain (6, method 1): from an
//! FPDU's first octet it knows where its header is (after a leading Marker when one falls there),
//! reads ULPDU_Length, and so knows where the FPDU ends. "The ULPDU Length field MUST be used to
//! determine if the entire FPDU is present before forwarding the ULPDU" (6): nothing of an FPDU is
//! returned before the whole FPDU is present and verified.
//!
//! Checks, in the order section 8 implies:
//! 1. ULPDU_Length within the receiver's limit (by default the 64768 of section 3). Section 8
//!    has no code for this; the FPDU cannot be located, so it cannot be verified, and this model
//!    reports it as an invalid FPDU with code 2 (with CRC on or off), in its own error variant.
//! 2. CRC (when enabled): CRC32c over the FPDU with its Markers (4.4) against the CRC field
//!    (least significant octet first). Mismatch: code 2.
//! 3. "In the event that the CRC is valid", every Marker's FPDUPTR (low two bits treated as zero,
//!    4.2) against the boundary the length chain gives: FPDUPTR 0 for a Marker just before the
//!    ULPDU_Length field, the distance back to that field otherwise. Disagreement: code 3.
//! 4. A stream that ends inside an FPDU is reported as truncated, code 1 (the TCP connection
//!    closed with an FPDU incomplete). A stream that ends on an FPDU boundary is a normal end
//!    for this model ([`Deframer::finish`] returns `Ok`); telling DDP about the close (7.2) is
//!    the caller's business.
//!
//! The RDMAC draft words FPDUPTR as pointing to "the beginning of the FPDU"; this model uses the
//! RFC's reading (the ULPDU_Length field) for both. The two differ only for an FPDU that has a
//! leading Marker and also an inner Marker, which neither draft figure shows.
//!
//! "Once MPA delivers an error of any type, it MUST NOT pass or deliver any additional FPDUs on
//! that half connection" (8): after the first error the deframer returns nothing more, and keeps
//! returning that error.

use crate::crc::crc32c;
use crate::fpdu::{
    fpdu_wire_len, is_marker_position, pad_len, FrameError, FramingConfig, CRC_LEN, HEADER_LEN,
    MARKER_INTERVAL, MARKER_LEN,
};
use crate::mulpdu::ULPDU_MAX;
use std::fmt;

/// One ULPDU recovered from the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ulpdu {
    /// The ULPDU octets (no header, Markers, PAD or CRC).
    pub data: Vec<u8>,
    /// Index in the input stream (0 = the first octet given to the deframer) of the FPDU's first
    /// octet; a leading Marker that belongs to the FPDU counts as its first octet.
    pub fpdu_offset: u64,
    /// Stream position (relative to the marker origin, mod 2^32) of that first octet.
    pub fpdu_position: u32,
}

/// The first error on a half connection (RFC 5044 section 8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeframeError {
    /// The configuration is unusable (offset not a multiple of 4).
    Config(FrameError),
    /// Code 2: the CRC field does not match CRC32c over the FPDU.
    CrcMismatch { fpdu_offset: u64, computed: u32, received: u32 },
    /// Code 3: the CRC is valid (or off) but a Marker's FPDUPTR disagrees with the FPDU start the
    /// ULPDU_Length chain gives.
    MarkerMismatch { fpdu_offset: u64, marker_offset: u64, fpduptr: u16, expected: u16 },
    /// Code 2: ULPDU_Length exceeds the receiver's limit, so the FPDU cannot be verified.
    UlpduTooLong { fpdu_offset: u64, length: u16, limit: u32 },
    /// Code 1: the stream ended inside an FPDU.
    Truncated { fpdu_offset: u64, received: usize, needed: Option<usize> },
}

impl DeframeError {
    /// The RFC 5044 section 8 error code (0 for a configuration error, which is local).
    pub fn code(&self) -> u8 {
        match self {
            DeframeError::Config(_) => 0,
            DeframeError::Truncated { .. } => 1,
            DeframeError::CrcMismatch { .. } | DeframeError::UlpduTooLong { .. } => 2,
            DeframeError::MarkerMismatch { .. } => 3,
        }
    }

    /// Input index of the first octet of the FPDU the error belongs to.
    pub fn fpdu_offset(&self) -> Option<u64> {
        match *self {
            DeframeError::Config(_) => None,
            DeframeError::CrcMismatch { fpdu_offset, .. }
            | DeframeError::MarkerMismatch { fpdu_offset, .. }
            | DeframeError::UlpduTooLong { fpdu_offset, .. }
            | DeframeError::Truncated { fpdu_offset, .. } => Some(fpdu_offset),
        }
    }
}

impl fmt::Display for DeframeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeframeError::Config(e) => write!(f, "{e}"),
            DeframeError::CrcMismatch { fpdu_offset, computed, received } => write!(
                f,
                "error code 2: CRC mismatch in FPDU at stream offset {fpdu_offset} \
                 (computed {computed:08x}, received {received:08x})"
            ),
            DeframeError::MarkerMismatch { fpdu_offset, marker_offset, fpduptr, expected } => {
                write!(
                    f,
                    "error code 3: marker at stream offset {marker_offset} has FPDUPTR {fpduptr} \
                     but the FPDU at stream offset {fpdu_offset} needs {expected}"
                )
            }
            DeframeError::UlpduTooLong { fpdu_offset, length, limit } => write!(
                f,
                "error code 2: ULPDU_Length {length} in FPDU at stream offset {fpdu_offset} \
                 exceeds the receiver limit {limit}; the FPDU cannot be verified"
            ),
            DeframeError::Truncated { fpdu_offset, received, needed } => match needed {
                Some(n) => write!(
                    f,
                    "error code 1: stream ends inside the FPDU at stream offset {fpdu_offset} \
                     ({received} of {n} octets)"
                ),
                None => write!(
                    f,
                    "error code 1: stream ends inside the FPDU at stream offset {fpdu_offset} \
                     ({received} octets, header incomplete)"
                ),
            },
        }
    }
}

impl std::error::Error for DeframeError {}

/// Streaming in-order deframer for one half connection.
#[derive(Clone, Debug)]
pub struct Deframer {
    config: FramingConfig,
    max_ulpdu_len: u32,
    /// Octets received but not yet consumed; `pending[0]` is the first octet of the next FPDU.
    pending: Vec<u8>,
    /// Input index of `pending[0]`.
    pending_offset: u64,
    /// Stream position of `pending[0]`.
    position: u32,
    error: Option<DeframeError>,
}

impl Deframer {
    /// A deframer whose first input octet sits at stream position `config.offset`, accepting
    /// ULPDU_Length up to 64768 (RFC 5044 section 3).
    pub fn new(config: FramingConfig) -> Result<Self, DeframeError> {
        config.validate().map_err(DeframeError::Config)?;
        Ok(Deframer {
            config,
            max_ulpdu_len: ULPDU_MAX,
            pending: Vec::new(),
            pending_offset: 0,
            position: config.offset,
            error: None,
        })
    }

    /// Sets the largest ULPDU_Length accepted (a receiver's buffer size); longer ones are errors.
    /// Clamped to 64768 (RFC 5044 section 3), which keeps every FPDUPTR below 2^16.
    pub fn with_max_ulpdu_len(mut self, max: u32) -> Self {
        self.max_ulpdu_len = max.min(ULPDU_MAX);
        self
    }

    /// The first error seen, if any.
    pub fn error(&self) -> Option<&DeframeError> {
        self.error.as_ref()
    }

    /// Feeds octets; appends every ULPDU completed and verified by them to `out`. On the first
    /// error, returns it (after appending the good ULPDUs before it); every later call returns the
    /// same error and appends nothing.
    pub fn push(&mut self, data: &[u8], out: &mut Vec<Ulpdu>) -> Result<(), DeframeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.pending.extend_from_slice(data);
        let mut start = 0usize;
        let result = loop {
            match self.parse_one(start) {
                Ok(Some((ulpdu, used))) => {
                    out.push(ulpdu);
                    start += used;
                    self.position = self.position.wrapping_add(used as u32);
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.pending.drain(..start);
        self.pending_offset += start as u64;
        if let Err(e) = &result {
            self.error = Some(e.clone());
        }
        result
    }

    /// Declares the end of the stream: an error if it ended inside an FPDU (code 1).
    pub fn finish(&mut self) -> Result<(), DeframeError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let needed = self.needed_len(0);
        let e = DeframeError::Truncated {
            fpdu_offset: self.pending_offset,
            received: self.pending.len(),
            needed,
        };
        self.error = Some(e.clone());
        Err(e)
    }

    /// Wire length of the FPDU starting at `pending[start]`, once its header is present.
    fn needed_len(&self, start: usize) -> Option<usize> {
        fpdu_needed_len(self.config.markers, self.position, &self.pending[start..])
    }

    /// Parses the FPDU at `pending[start..]` (stream position `self.position`): `Ok(None)` when
    /// more octets are needed.
    fn parse_one(&self, start: usize) -> Result<Option<(Ulpdu, usize)>, DeframeError> {
        parse_fpdu(
            self.config,
            self.max_ulpdu_len,
            self.position,
            &self.pending[start..],
            self.pending_offset + start as u64,
        )
    }
}

/// Wire length (Markers included) of the FPDU whose first octet is `buf[0]` at stream position
/// `position`, once its ULPDU_Length field is in `buf` (after a leading Marker when one falls
/// at `position`); `None` before that.
pub fn fpdu_needed_len(markers: bool, position: u32, buf: &[u8]) -> Option<usize> {
    let lead = markers && is_marker_position(position);
    let h = if lead { MARKER_LEN } else { 0 };
    if buf.len() < h + HEADER_LEN {
        return None;
    }
    let len = u16::from_be_bytes([buf[h], buf[h + 1]]) as usize;
    Some(fpdu_wire_len(position, len, markers))
}

/// Parses and verifies the FPDU whose first octet is `buf[0]` (section 6 and 8), at stream
/// position `position` (relative to the Marker origin; `config.offset` is not used) and input
/// index `fpdu_offset` (used only in the result and in errors). `position` must be a multiple
/// of 4, as every FPDU start is (4.1, 4.3); the Marker arithmetic assumes it.
///
/// - `Ok(None)`: `buf` ends before the FPDU does (the FPDU is incomplete).
/// - `Ok(Some((ulpdu, wire_len)))`: a whole FPDU of `wire_len` octets whose CRC (when enabled)
///   and Markers check out; octets of `buf` after it are not looked at.
/// - `Err`: ULPDU_Length above `max_ulpdu_len` (as soon as the field is present), a CRC
///   mismatch, or a Marker whose FPDUPTR disagrees with the FPDU's start (with a good CRC).
///
/// Used by [`Deframer`] on the in-order stream and by the out-of-order receiver
/// ([`crate::receiver`]) on FPDUs located by Markers, by the length chain or by header
/// alignment.
pub fn parse_fpdu(
    config: FramingConfig,
    max_ulpdu_len: u32,
    position: u32,
    buf: &[u8],
    fpdu_offset: u64,
) -> Result<Option<(Ulpdu, usize)>, DeframeError> {
    let markers = config.markers;
    let first_pos = position;
    let mut i = 0usize;
    let mut pos = first_pos;
    let mut marker_error: Option<DeframeError> = None;
    let mut check_marker = |at: usize, expected: u16, bytes: &[u8]| {
        let fpduptr = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]);
        // 4.2: "receivers MUST always treat these [two low bits] as zero".
        if fpduptr & !3 != expected && marker_error.is_none() {
            marker_error = Some(DeframeError::MarkerMismatch {
                fpdu_offset,
                marker_offset: fpdu_offset + at as u64,
                fpduptr,
                expected,
            });
        }
    };
    let lead = markers && is_marker_position(pos);
    if lead {
        if buf.len() < MARKER_LEN {
            return Ok(None);
        }
        check_marker(0, 0, buf);
        i += MARKER_LEN;
        pos = pos.wrapping_add(MARKER_LEN as u32);
    }
    if buf.len() < i + HEADER_LEN {
        return Ok(None);
    }
    let length = u16::from_be_bytes([buf[i], buf[i + 1]]);
    if length as u32 > max_ulpdu_len {
        return Err(DeframeError::UlpduTooLong { fpdu_offset, length, limit: max_ulpdu_len });
    }
    let wire_len = fpdu_wire_len(first_pos, length as usize, markers);
    if buf.len() < wire_len {
        return Ok(None);
    }
    let header_pos = pos;
    let body_len = HEADER_LEN + length as usize + pad_len(length as usize);
    let mut body = Vec::with_capacity(body_len);
    while body.len() < body_len {
        if markers && pos != header_pos && is_marker_position(pos) {
            check_marker(i, pos.wrapping_sub(header_pos) as u16, buf);
            i += MARKER_LEN;
            pos = pos.wrapping_add(MARKER_LEN as u32);
        }
        let to_marker =
            if markers { (MARKER_INTERVAL - pos % MARKER_INTERVAL) as usize } else { usize::MAX };
        let run = to_marker.min(body_len - body.len());
        body.extend_from_slice(&buf[i..i + run]);
        i += run;
        pos = pos.wrapping_add(run as u32);
    }
    if markers && is_marker_position(pos) {
        check_marker(i, pos.wrapping_sub(header_pos) as u16, buf);
        i += MARKER_LEN;
    }
    debug_assert_eq!(i + CRC_LEN, wire_len);
    let received = u32::from_le_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]);
    if config.crc {
        let computed = crc32c(&buf[..i]);
        if computed != received {
            return Err(DeframeError::CrcMismatch { fpdu_offset, computed, received });
        }
    }
    if let Some(e) = marker_error {
        return Err(e);
    }
    body.truncate(HEADER_LEN + length as usize);
    body.drain(..HEADER_LEN);
    Ok(Some((Ulpdu { data: body, fpdu_offset, fpdu_position: first_pos }, wire_len)))
}

/// The result of deframing a whole stream: the ULPDUs before the first error, and that error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deframed {
    pub ulpdus: Vec<Ulpdu>,
    pub error: Option<DeframeError>,
}

/// Deframes a complete stream (the end of `stream` is the end of the connection).
pub fn deframe_stream(config: FramingConfig, stream: &[u8]) -> Deframed {
    deframe_stream_with_limit(config, stream, ULPDU_MAX)
}

/// [`deframe_stream`] with a receiver limit on ULPDU_Length.
pub fn deframe_stream_with_limit(config: FramingConfig, stream: &[u8], limit: u32) -> Deframed {
    let mut d = match Deframer::new(config) {
        Ok(d) => d.with_max_ulpdu_len(limit),
        Err(e) => return Deframed { ulpdus: Vec::new(), error: Some(e) },
    };
    let mut ulpdus = Vec::new();
    let error = d.push(stream, &mut ulpdus).and_then(|_| d.finish()).err();
    Deframed { ulpdus, error }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fpdu::frame_stream;

    fn cfg(markers: bool, crc: bool, offset: u32) -> FramingConfig {
        FramingConfig { markers, crc, offset }
    }

    #[test]
    fn round_trip_small_stream_fed_octet_by_octet() {
        let ulpdus: Vec<Vec<u8>> = (0..40).map(|n| vec![n as u8; n * 37 % 700]).collect();
        for markers in [false, true] {
            let c = cfg(markers, true, 8);
            let wire = frame_stream(c, &ulpdus).unwrap();
            let mut d = Deframer::new(c).unwrap();
            let mut out = Vec::new();
            for b in &wire {
                d.push(std::slice::from_ref(b), &mut out).unwrap();
            }
            d.finish().unwrap();
            let got: Vec<Vec<u8>> = out.into_iter().map(|u| u.data).collect();
            assert_eq!(got, ulpdus);
        }
    }

    #[test]
    fn crc_error_is_code_2_and_stops_delivery() {
        let c = cfg(false, true, 0);
        let mut wire = frame_stream(c, &[vec![1u8; 10], vec![2u8; 10], vec![3u8; 10]]).unwrap();
        wire[16 + 5] ^= 0x10; // inside the second FPDU (each is 16 octets)
        let r = deframe_stream(c, &wire);
        assert_eq!(r.ulpdus.len(), 1);
        assert_eq!(r.error.as_ref().unwrap().code(), 2);
        assert_eq!(r.error.unwrap().fpdu_offset(), Some(16));
    }

    #[test]
    fn crc_off_ignores_the_field() {
        let c = cfg(false, false, 0);
        let mut wire = frame_stream(c, &[vec![1u8; 10]]).unwrap();
        let n = wire.len();
        wire[n - 1] = 0xEE;
        let r = deframe_stream(c, &wire);
        assert_eq!(r.error, None);
        assert_eq!(r.ulpdus[0].data, vec![1u8; 10]);
    }

    #[test]
    fn bad_fpduptr_with_good_crc_is_code_3() {
        // CRC off so the marker corruption cannot show as a CRC error.
        let c = cfg(true, false, 0);
        let mut wire = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
        // Marker at stream position 512 = wire index 512; FPDUPTR in its last two octets.
        assert_eq!(&wire[512..516], &[0, 0, 0x01, 0xfc]);
        wire[515] = 0xf8;
        let r = deframe_stream(c, &wire);
        assert!(matches!(
            r.error,
            Some(DeframeError::MarkerMismatch {
                marker_offset: 512,
                fpduptr: 0x1f8,
                expected: 0x1fc,
                ..
            })
        ));
        assert_eq!(r.error.unwrap().code(), 3);
    }

    #[test]
    fn fpduptr_low_bits_are_ignored() {
        let c = cfg(true, false, 0);
        let mut wire = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
        wire[515] |= 3;
        assert_eq!(deframe_stream(c, &wire).error, None);
    }

    #[test]
    fn corrupted_marker_with_crc_on_is_code_2() {
        let c = cfg(true, true, 0);
        let mut wire = frame_stream(c, &[vec![5u8; 1000]]).unwrap();
        wire[515] = 0xf8;
        assert_eq!(deframe_stream(c, &wire).error.unwrap().code(), 2);
    }

    #[test]
    fn truncated_stream_is_code_1_after_the_good_fpdus() {
        let c = cfg(true, true, 0);
        let wire = frame_stream(c, &[vec![1u8; 100], vec![2u8; 100]]).unwrap();
        // The first FPDU is 112 octets (leading Marker, header, 100 + 2 PAD, CRC).
        for cut in [wire.len() - 1, 113, 114, 117] {
            let r = deframe_stream(c, &wire[..cut]);
            assert_eq!(r.ulpdus.len(), 1, "cut {cut}");
            assert_eq!(r.error.as_ref().unwrap().code(), 1);
        }
    }

    #[test]
    fn length_over_limit_is_reported_not_waited_for() {
        let c = cfg(false, true, 0);
        let r = deframe_stream(c, &[0xff, 0xff, 0, 0]);
        assert!(matches!(r.error, Some(DeframeError::UlpduTooLong { length: 0xffff, .. })));
        let wire = frame_stream(c, &[vec![0u8; 300]]).unwrap();
        let r = deframe_stream_with_limit(c, &wire, 299);
        assert!(matches!(
            r.error,
            Some(DeframeError::UlpduTooLong { length: 300, limit: 299, .. })
        ));
        assert_eq!(deframe_stream_with_limit(c, &wire, 300).error, None);
    }

    #[test]
    fn nothing_after_the_first_error() {
        let c = cfg(false, true, 0);
        let mut wire = frame_stream(c, &[vec![1u8; 4], vec![2u8; 4]]).unwrap();
        wire[3] ^= 1;
        let mut d = Deframer::new(c).unwrap();
        let mut out = Vec::new();
        assert!(d.push(&wire, &mut out).is_err());
        let good = frame_stream(c, &[vec![3u8; 4]]).unwrap();
        assert!(d.push(&good, &mut out).is_err());
        assert!(out.is_empty());
        assert!(d.finish().is_err());
    }
}
