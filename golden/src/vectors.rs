//! The specification vectors, as data: RFC 5044 section 4.4 Figures 5 and 6 and the RDMAC MPA
//! draft's Figures 5 and 6 (files under `golden/vectors/`, transcribed from the annotated hex dumps),
//! and the CRC-32C catalogue check value.
//!
//! A vector file holds `key: value` lines and the hex dump itself, one line per listed octet
//! count: `OFFSET  OCTET [OCTET]  annotation`. A line `...` stands for zero octets up to the next
//! listed count (the figures elide runs of zero data this way); any other gap or overlap is an
//! error. Octet counts are stream positions relative to the marker origin.
//!
//! [`check_all`] runs every vector through the golden framer and deframer; the hardware
//! testbenches use [`all`] to run the same vectors through the hardware.

use crate::crc::{crc32c, CRC32C};
use crate::deframe::deframe_stream;
use crate::fpdu::{frame_stream, FramingConfig};
use crate::hex;
use std::fmt;

/// The vector files, embedded at build time so every tool has them.
pub const FILES: [(&str, &str); 4] = [
    ("rfc5044-figure5.vec", include_str!("../vectors/rfc5044-figure5.vec")),
    ("rfc5044-figure6.vec", include_str!("../vectors/rfc5044-figure6.vec")),
    ("rdmac-figure5.vec", include_str!("../vectors/rdmac-figure5.vec")),
    ("rdmac-figure6.vec", include_str!("../vectors/rdmac-figure6.vec")),
];

/// The longest run of zero octets a `...` line may stand for (an FPDU is at most ~64 KiB).
const MAX_ZERO_RUN: u32 = 65536;

/// One hex-dump vector: an FPDU exactly as a figure shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vector {
    pub name: String,
    /// Where the figure is.
    pub source: String,
    pub markers: bool,
    pub crc: bool,
    /// Stream position (relative to the marker origin) of the first octet of `wire`.
    pub position: u32,
    /// The FPDU's octets as the figure lists them.
    pub wire: Vec<u8>,
    /// The ULPDU the FPDU carries.
    pub ulpdu: Vec<u8>,
    /// Length of the ULPDU in the (unshown) FPDU before this one, when the figure describes one.
    pub preceding_ulpdu_len: Option<usize>,
    /// DDP/RDMAP control octets of that preceding ULPDU.
    pub preceding_ulpdu_control: Vec<u8>,
}

impl Vector {
    /// The framing settings the figure was made with.
    pub fn config(&self) -> FramingConfig {
        FramingConfig { markers: self.markers, crc: self.crc, offset: self.position }
    }

    /// The CRC value the figure's CRC field carries (least significant octet first on the wire).
    pub fn crc_value(&self) -> u32 {
        let n = self.wire.len();
        CRC32C.from_wire_bytes([
            self.wire[n - 4],
            self.wire[n - 3],
            self.wire[n - 2],
            self.wire[n - 1],
        ])
    }

    /// The whole stream from the marker origin: the preceding FPDU (framed by the golden model from
    /// a ULPDU of the described length: its control octets, then zeros; MSN 1) followed by this
    /// figure's FPDU. `None` when the figure describes no preceding FPDU.
    pub fn preceding_ulpdu(&self) -> Option<Vec<u8>> {
        let len = self.preceding_ulpdu_len?;
        let mut u = vec![0u8; len];
        let c = self.preceding_ulpdu_control.len().min(len);
        u[..c].copy_from_slice(&self.preceding_ulpdu_control[..c]);
        if len >= 14 {
            u[13] = 1; // MSN = 1 of an untagged Send
        }
        Some(u)
    }
}

impl Vector {
    /// The MPA stream a receiver sees for this figure, with its framing settings: the preceding
    /// FPDU (when the figure describes one) framed from the marker origin, then the figure's FPDU;
    /// otherwise the figure's FPDU alone at the figure's position.
    pub fn receive_stream(&self) -> (FramingConfig, Vec<u8>) {
        match self.preceding_ulpdu() {
            Some(p) => {
                let cfg = FramingConfig { offset: 0, ..self.config() };
                let mut s = frame_stream(cfg, &[p]).expect("the preceding ULPDU frames");
                s.extend_from_slice(&self.wire);
                (cfg, s)
            }
            None => (self.config(), self.wire.clone()),
        }
    }
}

/// Why a vector file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorFileError {
    pub file: String,
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for VectorFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.reason)
    }
}

impl std::error::Error for VectorFileError {}

/// Parses one vector file.
pub fn parse(file: &str, text: &str) -> Result<Vector, VectorFileError> {
    let err =
        |line: usize, reason: String| VectorFileError { file: file.to_string(), line, reason };
    let mut v = Vector {
        name: String::new(),
        source: String::new(),
        markers: false,
        crc: false,
        position: 0,
        wire: Vec::new(),
        ulpdu: Vec::new(),
        preceding_ulpdu_len: None,
        preceding_ulpdu_control: Vec::new(),
    };
    let mut first_offset: Option<u32> = None;
    let mut zero_fill = false;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("...") {
            zero_fill = true;
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            if key.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                let value = value.trim();
                let flag = |value: &str| match value {
                    "on" => Ok(true),
                    "off" => Ok(false),
                    _ => Err(err(line_no, format!("expected on or off, found {value:?}"))),
                };
                match key {
                    "name" => v.name = value.to_string(),
                    "source" => v.source = value.to_string(),
                    "markers" => v.markers = flag(value)?,
                    "crc" => v.crc = flag(value)?,
                    "ulpdu" => {
                        v.ulpdu = hex::decode(value).map_err(|e| err(line_no, e.to_string()))?
                    }
                    "preceding-ulpdu-length" => {
                        v.preceding_ulpdu_len = Some(
                            value.parse().map_err(|e| err(line_no, format!("{value:?}: {e}")))?,
                        )
                    }
                    "preceding-ulpdu-control" => {
                        v.preceding_ulpdu_control =
                            hex::decode(value).map_err(|e| err(line_no, e.to_string()))?
                    }
                    _ => return Err(err(line_no, format!("unknown key {key:?}"))),
                }
                continue;
            }
        }
        // A dump line: OFFSET OCTET [OCTET] annotation...
        // The octets come first, single-space separated; the annotation follows after a run of
        // two or more spaces.
        let (offset_text, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let offset = u32::from_str_radix(offset_text, 16)
            .map_err(|_| err(line_no, format!("expected an octet count, found {offset_text:?}")))?;
        let rest = rest.trim_start();
        let octet_text = rest.split("  ").next().unwrap_or_default();
        let mut octets = Vec::new();
        for t in octet_text.split_whitespace() {
            if t.len() != 2 {
                return Err(err(line_no, format!("expected an octet, found {t:?}")));
            }
            octets.push(
                u8::from_str_radix(t, 16)
                    .map_err(|_| err(line_no, format!("expected an octet, found {t:?}")))?,
            );
        }
        if octets.is_empty() {
            return Err(err(line_no, "a dump line needs at least one octet".into()));
        }
        let start = *first_offset.get_or_insert(offset);
        let expected = start
            .checked_add(v.wire.len() as u32)
            .ok_or_else(|| err(line_no, "octet counts run past 2^32".into()))?;
        if offset < expected {
            return Err(err(line_no, format!("octet count {offset:04x} goes backwards")));
        }
        if offset > expected {
            if !zero_fill {
                return Err(err(
                    line_no,
                    format!("gap from {expected:04x} to {offset:04x} without a '...' line"),
                ));
            }
            if offset - expected > MAX_ZERO_RUN {
                return Err(err(line_no, format!("a '...' run of {} octets", offset - expected)));
            }
            v.wire.resize(v.wire.len() + (offset - expected) as usize, 0);
        }
        zero_fill = false;
        v.wire.extend_from_slice(&octets);
    }
    v.position = first_offset.ok_or_else(|| err(0, "no hex dump in the file".into()))?;
    if v.name.is_empty() {
        return Err(err(0, "missing name".into()));
    }
    if v.wire.len() < 8 || v.wire.len() % 4 != 0 {
        return Err(err(0, format!("an FPDU of {} octets is not possible", v.wire.len())));
    }
    Ok(v)
}

/// All embedded hex-dump vectors.
pub fn all() -> Vec<Vector> {
    FILES
        .iter()
        .map(|(file, text)| parse(file, text).unwrap_or_else(|e| panic!("embedded vector: {e}")))
        .collect()
}

/// The outcome of one check of one vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    pub vector: String,
    pub check: String,
    pub pass: bool,
    pub detail: String,
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    if a.len() != b.len() {
        return format!("length {} vs {}", a.len(), b.len());
    }
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("octet {i}: {:02x} vs {:02x}", a[i], b[i]),
        None => "identical".into(),
    }
}

/// Runs every vector through the golden model: the framer reproduces the figure byte for byte
/// (alone, at the figure's stream position, and, for Figure 6, as the second FPDU after the
/// described first one), the deframer returns the ULPDU with no error, and the CRC field is the
/// CRC32c of the octets before it. Also the CRC-32C catalogue check value.
pub fn check_all() -> Vec<CheckResult> {
    let mut results = Vec::new();
    let check_value = crc32c(b"123456789");
    results.push(CheckResult {
        vector: "crc32c-check".into(),
        check: "CRC-32C(\"123456789\") = e3069283".into(),
        pass: check_value == 0xE306_9283 && CRC32C.checksum(b"123456789") == check_value,
        detail: format!("{check_value:08x}"),
    });
    for v in all() {
        let cfg = v.config();
        let covered = &v.wire[..v.wire.len() - 4];
        let crc = crc32c(covered);
        results.push(CheckResult {
            vector: v.name.clone(),
            check: "CRC field = CRC32c of the FPDU".into(),
            pass: crc == v.crc_value(),
            detail: format!("computed {crc:08x}, figure {:08x}", v.crc_value()),
        });
        let framed = frame_stream(cfg, &[&v.ulpdu]);
        let (pass, detail) = match &framed {
            Ok(w) => (w == &v.wire, first_difference(w, &v.wire)),
            Err(e) => (false, e.to_string()),
        };
        results.push(CheckResult {
            vector: v.name.clone(),
            check: format!("framer reproduces the figure (offset {})", v.position),
            pass,
            detail,
        });
        if let Some(first) = v.preceding_ulpdu() {
            let start = FramingConfig { offset: 0, ..cfg };
            let (pass, detail) = match frame_stream(start, &[first.as_slice(), &v.ulpdu]) {
                Ok(w) if w.len() >= v.wire.len() => {
                    let tail_start = w.len() - v.wire.len();
                    let tail = &w[tail_start..];
                    (
                        tail == v.wire.as_slice() && tail_start as u32 == v.position,
                        format!(
                            "second FPDU at {tail_start:#x}, {}",
                            first_difference(tail, &v.wire)
                        ),
                    )
                }
                Ok(w) => (false, format!("stream too short: {}", w.len())),
                Err(e) => (false, e.to_string()),
            };
            results.push(CheckResult {
                vector: v.name.clone(),
                check: format!("second FPDU after a {}-octet ULPDU", first.len()),
                pass,
                detail,
            });
        }
        let d = deframe_stream(cfg, &v.wire);
        let pass = d.error.is_none() && d.ulpdus.len() == 1 && d.ulpdus[0].data == v.ulpdu;
        results.push(CheckResult {
            vector: v.name.clone(),
            check: "deframer accepts it and returns the ULPDU".into(),
            pass,
            detail: match &d.error {
                Some(e) => e.to_string(),
                None => format!("{} ULPDU(s)", d.ulpdus.len()),
            },
        });
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_vector_parses() {
        let vs = all();
        assert_eq!(vs.len(), 4);
        assert_eq!(vs[0].wire.len(), 0x34);
        assert_eq!(vs[0].position, 0);
        assert_eq!(vs[1].position, 0x1ec);
        assert_eq!(vs[1].wire.len(), 0x220 - 0x1ec);
        assert_eq!(vs[0].crc_value(), 0x8399_2352);
        assert_eq!(vs[2].wire.len(), 0x34);
        assert_eq!(vs[3].wire.len(), 0x220 - 0x1ec);
        for v in &vs {
            assert_eq!(v.ulpdu.len(), 42, "{}", v.name);
        }
    }

    #[test]
    fn every_check_passes() {
        for r in check_all() {
            assert!(r.pass, "{} / {}: {}", r.vector, r.check, r.detail);
        }
    }

    #[test]
    fn gaps_without_ellipsis_are_rejected() {
        let text = "name: x\nmarkers: on\ncrc: on\n0000 00\n0002 00\n";
        assert!(parse("t", text).unwrap_err().reason.contains("gap"));
    }

    #[test]
    fn a_changed_octet_in_a_figure_is_caught_by_crc_and_deframer() {
        let (file, text) = FILES[0];
        let changed = text.replace("0031    23", "0031    24");
        let v = parse(file, &changed).unwrap();
        assert_ne!(crc32c(&v.wire[..v.wire.len() - 4]), v.crc_value());
        let d = deframe_stream(v.config(), &v.wire);
        assert_eq!(d.error.map(|e| e.code()), Some(2));
        assert!(d.ulpdus.is_empty());
    }

    #[test]
    fn hostile_vector_files_are_errors_not_panics() {
        let bad = [
            "name: x\nffffffff 00\nffffffff 00\n",
            "name: x\nffffffff 00 00\n",
            "name: x\n0000 00\n...\nfffffff0 00\n",
            "name: x\n0000 0\n",
            "name: x\n0000 zz\n",
            "name: x\nzzzz 00\n",
            "name: x\nmarkers: maybe\n",
            "name: x\n",
        ];
        for text in bad {
            assert!(parse("t", text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn annotations_that_look_like_octets_are_not_read() {
        let text = "name: x\n0000    00 00   Be careful\n0002    00 00\n0004 00 00 00 00\n";
        assert_eq!(parse("t", text).unwrap().wire, vec![0u8; 8]);
    }
}
