//! The receiver's configuration: one connection's MPA settings, its buffer sizes, and the STag
//! table and posted buffers DDP places into. Read from JSON (`rnic place --config FILE`); the
//! traffic generator writes it and the hardware reads the same file.
//!
//! ```json
//! { "markers": true, "crc": true, "origin": 4294967000, "aligned_detect": true,
//!   "reassembly_octets": 65536, "records": 64, "pd": 7, "msn_window": 64,
//!   "max_ulpdu": 1424, "version": "rfc5040",
//!   "regions": [ { "stag": 4660, "base": 65536, "len": 8192, "pd": 7,
//!                  "write": true, "read": true, "valid": true } ],
//!   "posted":  [ { "qn": 0, "msn": 1, "len": 2048 } ] }
//! ```
//!
//! `aligned_detect` (default true), `reassembly_window` (default 2^30), `place_out_of_order`
//! (default true), `max_ulpdu` (default 64768, RFC 5044 section 3), `first_msn`
//! (default 1) and `version` (`rfc5040`, default, or `rdmac` for DDP/RDMAP version 0) may be left
//! out; every other field is required and unknown fields are refused.

use crate::ddp::ProtocolVersion;
use crate::fpdu::{fpdu_wire_len, MARKER_INTERVAL};
use crate::mulpdu::ULPDU_MAX;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// Largest region or posted buffer the model keeps in memory (octets).
pub const MAX_BUFFER_LEN: u64 = 64 << 20;
/// Largest sum of all regions and posted buffers (octets).
pub const MAX_TOTAL_MEMORY: u64 = 512 << 20;

/// The protocol generation, as the configuration file names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VersionName {
    /// RFC 5040 / 5041: DV = RV = 1.
    #[default]
    Rfc5040,
    /// The RDMA Consortium drafts: DV = RV = 0.
    Rdmac,
}

impl VersionName {
    /// The DDP/RDMAP versions a receiver accepts.
    pub fn protocol(self) -> ProtocolVersion {
        match self {
            VersionName::Rfc5040 => ProtocolVersion::Rfc5040,
            VersionName::Rdmac => ProtocolVersion::RdmacDraft,
        }
    }
}

/// One registered memory region (an STag table entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionConfig {
    /// The STag.
    pub stag: u32,
    /// Tagged Offset of the region's first octet.
    pub base: u64,
    /// Length in octets.
    pub len: u64,
    /// Protection domain.
    pub pd: u32,
    /// Remote write allowed (RDMA Write, RDMA Read Response).
    pub write: bool,
    /// Remote read allowed (the source of an RDMA Read Request).
    pub read: bool,
    /// Valid (registered and not invalidated) at the start.
    pub valid: bool,
}

/// One posted untagged buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostedConfig {
    /// Queue (0 Send, 1 RDMA Read Request, 2 Terminate).
    pub qn: u32,
    /// The message number the buffer is for.
    pub msn: u32,
    /// Length in octets.
    pub len: u64,
}

fn yes() -> bool {
    true
}

fn ulpdu_max() -> u32 {
    ULPDU_MAX
}

fn window() -> u64 {
    super::WINDOW
}
fn first_msn() -> u32 {
    crate::ddp::FIRST_MSN
}

/// One connection's receive configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiverConfig {
    /// Markers are in use on this half connection (RFC 5044 4.3, 7.1.1 M).
    pub markers: bool,
    /// CRCs are checked (4.4, 7.1.1 C).
    pub crc: bool,
    /// TCP sequence number of the first octet of Full Operation: the first FPDU's first octet,
    /// which is also the Marker origin (4.3: "immediately preceding the first FPDU").
    pub origin: u32,
    /// An out-of-order segment that is a chain of complete, CRC-good FPDUs with valid DDP
    /// headers ending exactly at its end is taken as FPDU-aligned (Appendix B.2). Meant for
    /// Markers off; with Markers on it locates the FPDUs of segments without a Marker.
    #[serde(default = "yes")]
    pub aligned_detect: bool,
    /// Reassembly buffer: octets held because they could not be placed yet.
    pub reassembly_octets: u64,
    /// An out-of-order segment that ends more than this many octets beyond the in-order edge
    /// is refused. A reassembly buffer addressed by sequence number (the hardware's ring,
    /// `PlaceReassembly`) covers only this window; the default, [`super::WINDOW`], is TCP's
    /// largest window (no limit beyond it).
    #[serde(default = "window")]
    pub reassembly_window: u64,
    /// FPDUs located in out-of-order segments are placed at once (zero copy). When false,
    /// every out-of-order octet is held and placed by the in-order walk (the hardware's
    /// `rnic_rx` today).
    #[serde(default = "yes")]
    pub place_out_of_order: bool,
    /// Entries of the table of placed FPDUs and held runs of octets.
    pub records: u32,
    /// The stream's protection domain.
    pub pd: u32,
    /// MSN window per untagged queue (an MSN is in range when `MSN - expected < msn_window`).
    pub msn_window: u32,
    /// Largest ULPDU_Length accepted; a larger one is MPA error 2 (RFC 5044 section 3, 8).
    #[serde(default = "ulpdu_max")]
    pub max_ulpdu: u32,
    /// The MSN of the first message on every untagged queue (RFC 5040: 1; other values test
    /// MSN wrap-around).
    #[serde(default = "first_msn")]
    pub first_msn: u32,
    /// DDP/RDMAP version accepted.
    #[serde(default)]
    pub version: VersionName,
    /// The STag table.
    pub regions: Vec<RegionConfig>,
    /// Posted untagged buffers.
    pub posted: Vec<PostedConfig>,
}

/// A configuration that cannot be used, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "configuration: {}", self.0)
    }
}

impl std::error::Error for ConfigError {}

/// The longest an FPDU carrying a ULPDU of `max_ulpdu` octets can be on the wire (Markers
/// included), over every 4-octet-aligned start position.
pub fn max_fpdu_wire_len(max_ulpdu: u32, markers: bool) -> u64 {
    (0..MARKER_INTERVAL)
        .step_by(4)
        .map(|start| fpdu_wire_len(start, max_ulpdu as usize, markers) as u64)
        .max()
        .unwrap_or(0)
}

impl ReceiverConfig {
    /// The part of the reassembly buffer kept for the in-order edge: one FPDU of the largest
    /// accepted size. Out-of-order octets may use only what is above it, so the FPDU at the
    /// in-order edge can always be completed (no livelock).
    pub fn in_order_reserve(&self) -> u64 {
        max_fpdu_wire_len(self.max_ulpdu, self.markers)
    }

    /// The smallest `reassembly_octets` that guarantees every stream completes: the reserve.
    /// (`records` must be at least 1 for the same reason.)
    pub fn min_reassembly_octets(&self) -> u64 {
        self.in_order_reserve()
    }

    /// Checks every rule; the message names the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        if self.max_ulpdu > ULPDU_MAX {
            return err(format!(
                "max_ulpdu {} is above {ULPDU_MAX} (RFC 5044 section 3)",
                self.max_ulpdu
            ));
        }
        if self.reassembly_octets < self.min_reassembly_octets() {
            return err(format!(
                "reassembly_octets {} is below {}, the largest FPDU (max_ulpdu {}{}): the in-order \
                 edge could not always advance",
                self.reassembly_octets,
                self.min_reassembly_octets(),
                self.max_ulpdu,
                if self.markers { ", Markers" } else { "" }
            ));
        }
        if self.reassembly_window == 0 || self.reassembly_window > super::WINDOW {
            return err(format!("reassembly_window {} is not in 1..=2^30", self.reassembly_window));
        }
        if self.records == 0 {
            return err("records must be at least 1 (one is kept for the in-order edge)".into());
        }
        if self.msn_window == 0 || self.msn_window > 1 << 31 {
            return err(format!("msn_window {} is not in 1..=2^31", self.msn_window));
        }
        let mut total = 0u64;
        let mut stags = BTreeSet::new();
        for r in &self.regions {
            if !stags.insert(r.stag) {
                return err(format!("STag {:#x} is registered twice", r.stag));
            }
            if r.len > MAX_BUFFER_LEN {
                return err(format!(
                    "region STag {:#x}: len {} is above the model's {MAX_BUFFER_LEN}",
                    r.stag, r.len
                ));
            }
            if r.len > 0 && r.base.checked_add(r.len - 1).is_none() {
                return err(format!("region STag {:#x}: base + len is beyond 2^64", r.stag));
            }
            total += r.len;
        }
        let mut posted = BTreeSet::new();
        for p in &self.posted {
            if p.qn > 2 {
                return err(format!("posted buffer on QN {}: only queues 0, 1 and 2 exist", p.qn));
            }
            if !posted.insert((p.qn, p.msn)) {
                return err(format!("two buffers posted for QN {} MSN {}", p.qn, p.msn));
            }
            if p.len > MAX_BUFFER_LEN {
                return err(format!(
                    "posted buffer QN {} MSN {}: len {} is above the model's {MAX_BUFFER_LEN}",
                    p.qn, p.msn, p.len
                ));
            }
            total += p.len;
        }
        if total > MAX_TOTAL_MEMORY {
            return err(format!(
                "regions and posted buffers total {total} octets, above the model's \
                 {MAX_TOTAL_MEMORY}"
            ));
        }
        Ok(())
    }

    /// Parses and validates a JSON configuration.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let c: ReceiverConfig =
            serde_json::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        c.validate()?;
        Ok(c)
    }
}
