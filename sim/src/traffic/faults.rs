//! The faults a generated stream can carry: each changes one message, one FPDU on the wire, or
//! the end of the stream, and names the error (RFC 5044 section 8, RFC 5041 / 5040 through
//! `SPECS.md`) in-order processing must report at that FPDU.

use super::sender::{Builder, ExpectedError, Message, SenderParams};
use golden::ddp::{DdpControl, DdpSegment, Opcode, RdmapControl, TerminateCode, QN_SEND};
use golden::receiver::{PostedConfig, RegionConfig};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A fault put into the stream; each names the error it must cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// An RDMA Write to an STag that is not registered: DDP 1/1/0.
    UnknownStag,
    /// An RDMA Write to a region registered invalid: DDP 1/1/0.
    InvalidStag,
    /// An RDMA Write to a region of another protection domain: DDP 1/1/2.
    OtherPd,
    /// An RDMA Write to a region without remote write: DDP 1/1/0.
    NoWriteRight,
    /// An RDMA Write ending one octet past its region: DDP 1/1/1.
    BoundsHigh,
    /// An RDMA Write starting one octet before its region: DDP 1/1/1.
    BoundsLow,
    /// An RDMA Write whose last octet is beyond 2^64 - 1: DDP 1/1/3.
    ToWrap,
    /// A Send whose MSN is beyond the window: DDP 1/2/3.
    MsnRange,
    /// A Send for which no buffer is posted: DDP 1/2/2.
    NoBuffer,
    /// A Send segment whose MO is beyond its buffer: DDP 1/2/4.
    BadMo,
    /// A Send longer than its buffer: DDP 1/2/5 at the segment that overflows.
    TooLong,
    /// A Send on queue 3: DDP 1/2/1.
    BadQn,
    /// DDP version 2 on a Send: DDP 1/2/6.
    DdpVersion,
    /// RDMAP version 2: RDMAP 0/2/5.
    RdmapVersion,
    /// Reserved opcode 9: RDMAP 0/2/6.
    ReservedOpcode,
    /// A tagged ULPDU one octet shorter than its 14-octet header: DDP 1/0/0.
    ShortUlpdu,
    /// A Send with Invalidate of a region, then an RDMA Write to it: DDP 1/1/0 at the Write.
    WriteAfterInvalidate,
    /// A Send with Invalidate naming an STag that is not registered: RDMAP 0/2/9.
    CannotInvalidate,
    /// One bit flipped inside an FPDU (CRC on): MPA 2/0/2.
    Crc,
    /// A Marker whose FPDUPTR is wrong while the FPDU's CRC covers it (Markers on): MPA 2/0/3.
    Marker,
    /// A ULPDU_Length above the receiver's limit: MPA 2/0/2.
    UlpduTooLong,
    /// One bit of an FPDU's ULPDU_Length flipped (CRC on): the FPDU ends elsewhere and its CRC
    /// cannot match, MPA 2/0/2.
    Length,
    /// The connection closes inside the last FPDU: MPA 2/0/1.
    Truncated,
}

impl Fault {
    /// Every fault, in a fixed order.
    pub const ALL: [Fault; 23] = [
        Fault::UnknownStag,
        Fault::InvalidStag,
        Fault::OtherPd,
        Fault::NoWriteRight,
        Fault::BoundsHigh,
        Fault::BoundsLow,
        Fault::ToWrap,
        Fault::MsnRange,
        Fault::NoBuffer,
        Fault::BadMo,
        Fault::TooLong,
        Fault::BadQn,
        Fault::DdpVersion,
        Fault::RdmapVersion,
        Fault::ReservedOpcode,
        Fault::ShortUlpdu,
        Fault::WriteAfterInvalidate,
        Fault::CannotInvalidate,
        Fault::Crc,
        Fault::Marker,
        Fault::UlpduTooLong,
        Fault::Length,
        Fault::Truncated,
    ];

    /// The name the command line uses (`bad-stag`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Fault::UnknownStag => "unknown-stag",
            Fault::InvalidStag => "invalid-stag",
            Fault::OtherPd => "pd",
            Fault::NoWriteRight => "no-write-right",
            Fault::BoundsHigh => "bounds-high",
            Fault::BoundsLow => "bounds-low",
            Fault::ToWrap => "to-wrap",
            Fault::MsnRange => "msn-range",
            Fault::NoBuffer => "no-buffer",
            Fault::BadMo => "mo",
            Fault::TooLong => "too-long",
            Fault::BadQn => "qn",
            Fault::DdpVersion => "ddp-version",
            Fault::RdmapVersion => "rdmap-version",
            Fault::ReservedOpcode => "opcode",
            Fault::ShortUlpdu => "short-ulpdu",
            Fault::WriteAfterInvalidate => "write-after-invalidate",
            Fault::CannotInvalidate => "cannot-invalidate",
            Fault::Crc => "crc",
            Fault::Marker => "marker",
            Fault::UlpduTooLong => "ulpdu-too-long",
            Fault::Length => "length",
            Fault::Truncated => "truncated",
        }
    }

    /// The fault called `name`.
    pub fn by_name(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The Terminate code in-order processing reports.
    pub fn code(self) -> TerminateCode {
        match self {
            Fault::UnknownStag
            | Fault::InvalidStag
            | Fault::NoWriteRight
            | Fault::WriteAfterInvalidate => TerminateCode::DDP_TAGGED_INVALID_STAG,
            Fault::OtherPd => TerminateCode::DDP_TAGGED_STAG_NOT_ASSOCIATED,
            Fault::BoundsHigh | Fault::BoundsLow => TerminateCode::DDP_TAGGED_BASE_BOUNDS,
            Fault::ToWrap => TerminateCode::DDP_TAGGED_TO_WRAP,
            Fault::MsnRange => TerminateCode::DDP_UNTAGGED_MSN_RANGE,
            Fault::NoBuffer => TerminateCode::DDP_UNTAGGED_NO_BUFFER,
            Fault::BadMo => TerminateCode::DDP_UNTAGGED_INVALID_MO,
            Fault::TooLong => TerminateCode::DDP_UNTAGGED_TOO_LONG,
            Fault::BadQn => TerminateCode::DDP_UNTAGGED_INVALID_QN,
            Fault::DdpVersion => TerminateCode::DDP_UNTAGGED_INVALID_VERSION,
            Fault::RdmapVersion => TerminateCode::RDMAP_INVALID_VERSION,
            Fault::ReservedOpcode => TerminateCode::RDMAP_UNEXPECTED_OPCODE,
            Fault::ShortUlpdu => TerminateCode::DDP_CATASTROPHIC,
            Fault::CannotInvalidate => TerminateCode::RDMAP_CANNOT_INVALIDATE,
            Fault::Crc | Fault::UlpduTooLong | Fault::Length => TerminateCode::MPA_CRC,
            Fault::Marker => TerminateCode::MPA_MARKER,
            Fault::Truncated => TerminateCode::MPA_CONNECTION_LOST,
        }
    }

    /// Whether the fault can be built with these settings (a flipped bit needs the CRC to be
    /// seen; a bad Marker needs Markers).
    pub fn applies(self, markers: bool, crc: bool) -> bool {
        match self {
            Fault::Crc | Fault::Length => crc,
            Fault::Marker => markers,
            _ => true,
        }
    }
}

/// Where a message fault sits and what it needs from the configuration.
#[derive(Clone, Copy, Debug)]
pub(super) struct FaultSpot {
    fault: Fault,
    /// An STag the fault refers to (its region is changed in the configuration).
    stag: u32,
    /// The Send's (QN, MSN), for buffer faults.
    msn: u32,
}

impl FaultSpot {
    /// Changes the message's DDP segments as the fault needs; returns the index of the segment
    /// that must fail.
    pub(super) fn apply_to_segments(&self, segs: &mut [DdpSegment], bases: &[(u32, u64)]) -> usize {
        let base_of = |stag: u32| bases.iter().find(|(s, _)| *s == stag).map_or(0, |(_, b)| *b);
        let last = segs.len() - 1;
        match self.fault {
            Fault::BoundsLow => {
                if let DdpSegment::Tagged { header, .. } = &mut segs[0] {
                    header.to = base_of(header.stag).wrapping_sub(1);
                }
                0
            }
            Fault::ToWrap => {
                if let DdpSegment::Tagged { header, payload } = &mut segs[0] {
                    header.to = 0u64.wrapping_sub(payload.len() as u64 - 1);
                }
                0
            }
            Fault::BadMo => {
                if let DdpSegment::Untagged { header, .. } = &mut segs[0] {
                    header.mo = 1 << 30;
                }
                0
            }
            Fault::BadQn => {
                for s in segs.iter_mut() {
                    if let DdpSegment::Untagged { header, .. } = s {
                        header.qn = 3;
                    }
                }
                0
            }
            Fault::MsnRange => {
                for s in segs.iter_mut() {
                    if let DdpSegment::Untagged { header, .. } = s {
                        header.msn = header.msn.wrapping_add(1 << 31);
                    }
                }
                0
            }
            Fault::DdpVersion => {
                if let DdpSegment::Untagged { header, .. } = &mut segs[0] {
                    header.control = DdpControl { version: 2, ..header.control };
                }
                0
            }
            Fault::RdmapVersion => {
                if let DdpSegment::Untagged { header, .. } = &mut segs[0] {
                    header.rdmap = RdmapControl { version: 2, ..header.rdmap };
                }
                0
            }
            Fault::ReservedOpcode => {
                if let DdpSegment::Untagged { header, .. } = &mut segs[0] {
                    header.rdmap = RdmapControl { opcode: Opcode::Reserved(9), ..header.rdmap };
                }
                0
            }
            Fault::TooLong | Fault::CannotInvalidate | Fault::UlpduTooLong | Fault::ShortUlpdu => {
                last
            }
            _ => 0,
        }
    }
}

/// Replaces the message just pushed with the one the fault needs; returns where it sits.
pub(super) fn inject_message_fault(
    b: &mut Builder<'_>,
    messages: &mut Vec<Message>,
    fault: Fault,
    top: usize,
) -> FaultSpot {
    let mut spot = FaultSpot { fault, stag: 0, msn: 0 };
    let tagged_to = |b: &mut Builder<'_>, r: usize, len: usize| {
        let off = b.allocate(r, len);
        (b.regions[r].cfg.stag, off)
    };
    let m = match fault {
        Fault::UnknownStag => {
            let stag = b.fresh_stag();
            let data = b.payload(100);
            Message::Tagged { opcode: Opcode::RdmaWrite, stag, to: 0, data }
        }
        // A region of its own for the Write, changed in the configuration (invalid, another PD,
        // read-only, one octet short: `apply_config_fault`) or written one octet before it.
        Fault::InvalidStag
        | Fault::OtherPd
        | Fault::NoWriteRight
        | Fault::BoundsLow
        | Fault::BoundsHigh => {
            let r = b.new_region(false);
            b.regions[r].retired = true;
            let (stag, to) = tagged_to(b, r, 100);
            spot.stag = stag;
            let data = b.payload(100);
            Message::Tagged { opcode: Opcode::RdmaWrite, stag, to, data }
        }
        Fault::ToWrap => {
            let stag = b.regions[top].cfg.stag;
            let data = b.payload(100);
            Message::Tagged { opcode: Opcode::RdmaWrite, stag, to: 0, data }
        }
        Fault::WriteAfterInvalidate => {
            // Send with Invalidate of a region, then a Write to a fresh range of it.
            let r = b.new_region(false);
            let stag = b.regions[r].cfg.stag;
            b.send_msn = b.send_msn.wrapping_add(1);
            let msn = b.send_msn;
            b.post(QN_SEND, msn, 20);
            let data = b.payload(20);
            messages.push(Message::Send {
                opcode: Opcode::SendWithInvalidate,
                qn: QN_SEND,
                msn,
                inv: stag,
                data,
            });
            b.regions[r].retired = true;
            let (_, to) = tagged_to(b, r, 100);
            let data = b.payload(100);
            Message::Tagged { opcode: Opcode::RdmaWrite, stag, to, data }
        }
        Fault::CannotInvalidate => {
            b.send_msn = b.send_msn.wrapping_add(1);
            let msn = b.send_msn;
            b.post(QN_SEND, msn, 20);
            let inv = b.fresh_stag();
            let data = b.payload(20);
            Message::Send { opcode: Opcode::SendWithInvalidate, qn: QN_SEND, msn, inv, data }
        }
        Fault::MsnRange
        | Fault::NoBuffer
        | Fault::BadMo
        | Fault::TooLong
        | Fault::BadQn
        | Fault::DdpVersion
        | Fault::RdmapVersion
        | Fault::ReservedOpcode => {
            b.send_msn = b.send_msn.wrapping_add(1);
            let msn = b.send_msn;
            spot.msn = msn;
            let len = if fault == Fault::TooLong { 3000 } else { 100 };
            b.post(QN_SEND, msn, len);
            let data = b.payload(len);
            Message::Send { opcode: Opcode::Send, qn: QN_SEND, msn, inv: 0, data }
        }
        Fault::ShortUlpdu | Fault::UlpduTooLong => {
            let r = b.active_region();
            let (stag, to) = tagged_to(b, r, 100);
            let data = b.payload(100);
            Message::Tagged { opcode: Opcode::RdmaWrite, stag, to, data }
        }
        // Wire faults: the message is an ordinary one.
        Fault::Crc | Fault::Marker | Fault::Length | Fault::Truncated => return spot,
    };
    messages.push(m);
    spot
}

/// The configuration side of a fault.
pub(super) fn apply_config_fault(
    fault: Fault,
    regions: &mut [RegionConfig],
    posted: &mut Vec<PostedConfig>,
    spot: Option<FaultSpot>,
) {
    let Some(spot) = spot else { return };
    let region = regions.iter_mut().find(|r| r.stag == spot.stag);
    match (fault, region) {
        (Fault::InvalidStag, Some(r)) => r.valid = false,
        (Fault::OtherPd, Some(r)) => r.pd = r.pd.wrapping_add(1),
        (Fault::NoWriteRight, Some(r)) => r.write = false,
        (Fault::BoundsHigh, Some(r)) => r.len -= 17, // the write's last octet is outside
        (Fault::NoBuffer, _) => posted.retain(|p| !(p.qn == QN_SEND && p.msn == spot.msn)),
        (Fault::TooLong, _) => {
            for p in posted.iter_mut().filter(|p| p.qn == QN_SEND && p.msn == spot.msn) {
                p.len = 2999;
            }
        }
        _ => {}
    }
}

/// Puts a wire fault (a flipped bit, a bad FPDUPTR, a damaged ULPDU_Length) into the framed
/// FPDUs, at the first suitable FPDU from `at` (a fraction of the way through); returns the
/// error it must cause. Message faults and truncation are not handled here.
pub(super) fn apply_wire_fault(
    fault: Fault,
    at: f64,
    p: &SenderParams,
    mulpdu: u32,
    rng: &mut ChaCha8Rng,
    fpdus: &mut [(Vec<u8>, bool)],
    fpdu_offsets: &[u64],
) -> Option<ExpectedError> {
    let offset = fpdu_offsets.last().zip(fpdus.last()).map_or(0, |(o, f)| o + f.0.len() as u64);
    let start = ((fpdus.len() as f64) * at) as usize;
    match fault {
        Fault::Crc => {
            // A bit of the ULPDU or PAD (not the leading Marker or ULPDU_Length, which would
            // move the FPDU's end and could turn the error into a truncation).
            let i = (start..fpdus.len()).chain(0..start).find(|&i| fpdus[i].0.len() >= 16)?;
            let f = &mut fpdus[i].0;
            let bit = rng.gen_range(8 * 8..(f.len() - 4) * 8);
            f[bit / 8] ^= 1 << (bit % 8);
            Some(ExpectedError { code: fault.code(), offset: fpdu_offsets[i] })
        }
        Fault::Length => {
            // Bit 4 of ULPDU_Length (a change of 16 octets either way) in an FPDU followed by
            // at least two largest FPDUs, so the FPDU it claims ends inside the stream.
            let room = 2 * (mulpdu as u64 + 64);
            let i = (start..fpdus.len())
                .chain(0..start)
                .find(|&i| fpdu_offsets[i] + fpdus[i].0.len() as u64 + room <= offset)?;
            let lead = if p.markers && fpdu_offsets[i] % 512 == 0 { 4 } else { 0 };
            fpdus[i].0[lead + 1] ^= 0x10;
            Some(ExpectedError { code: fault.code(), offset: fpdu_offsets[i] })
        }
        Fault::Marker => {
            // A Marker inside an FPDU (FPDUPTR > 0), off by 4, with the CRC recomputed.
            let (i, m) = (start..fpdus.len()).chain(0..start).find_map(|i| {
                let pos = fpdu_offsets[i];
                let len = fpdus[i].0.len() as u64;
                let m = (pos + 1).div_ceil(512) * 512;
                (m + 4 <= pos + len - 4).then_some((i, (m - pos) as usize))
            })?;
            let f = &mut fpdus[i].0;
            let ptr = u16::from_be_bytes([f[m + 2], f[m + 3]]).wrapping_add(4);
            f[m + 2..m + 4].copy_from_slice(&ptr.to_be_bytes());
            let n = f.len();
            if p.crc {
                let crc = golden::crc::crc32c(&f[..n - 4]).to_le_bytes();
                f[n - 4..].copy_from_slice(&crc);
            }
            Some(ExpectedError { code: fault.code(), offset: fpdu_offsets[i] })
        }
        _ => None,
    }
}
