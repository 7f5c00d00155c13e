//! DDP (RFC 5041) and RDMAP (RFC 5040) headers, their validation, and the placement model that
//! the hardware placement unit is checked against.
//!
//! The RFC texts are not in this repository; the layouts and codes come from `SPECS.md` (read from
//! three independent implementations), and RFC 5044 Figure 5 pins one untagged header byte for
//! byte. Items that only one source backs say so.
//!
//! # Wire layout (all multi-octet fields big-endian)
//!
//! ```text
//! octet 0, DDP control:   T(0x80) L(0x40) reserved(0x3C) DV(0x03)
//! octet 1, RDMAP control: RV(0xC0) reserved(0x30) OpCode(0x0F)      (first octet of RsvdULP)
//!
//! tagged   (14): ctrl(1) rdmap(1) STag(4) TO(8)                       payload...
//! untagged (18): ctrl(1) rdmap(1) RsvdULP/Inv STag(4) QN(4) MSN(4) MO(4)  payload...
//! ```
//!
//! RFC 5044 Figure 5's ULPDU `41 43 00000000 00000000 00000001 00000000` + 24 zero octets is an
//! untagged, last Send (DV 1, RV 1) on QN 0 with MSN 1 and MO 0. The RDMAC draft's `40 03` is the
//! same with DDP version 0 and RDMAP version 0 ([`ProtocolVersion::RdmacDraft`]).
//!
//! # Layers of this module
//! - Octet codecs: [`DdpControl`], [`RdmapControl`], [`Opcode`].
//! - Headers: [`TaggedHeader`], [`UntaggedHeader`], [`ReadRequestHeader`], [`TerminateControl`].
//! - Segments: [`DdpSegment`] with [`DdpSegment::parse`] (structure only), [`DdpSegment::validate`]
//!   (DDP and RDMAP rules) and [`decode`] / [`decode_with`] (both), [`DdpSegment::encode`].
//! - Errors carry the Terminate layer / type / code ([`TerminateCode`]) a receiver reports.
//! - Placement: [`PlacementModel`] (registered regions, posted untagged buffers) and
//!   [`PlacementModel::place`].
//!
//! # Decisions where the sources are silent or disagree
//! - Reserved opcodes 8..=15 decode to [`Opcode::Reserved`] (the octet always decodes and
//!   round-trips); validation refuses them with RDMAP "unexpected OpCode" (0/2/6), as siw does.
//!   An opcode whose DDP model disagrees with T gets the same code.
//! - A QN that is not the opcode's queue is DDP "invalid QN" (1/2/1).
//! - RDMA Read Request and Terminate must be single segments (L = 1); a Read Request's payload is
//!   exactly 28 octets, a Terminate's at least 4; these report RDMAP 0/2/0xFF (unspecified).
//! - A tagged segment without the remote-write right reports DDP "invalid STag" (1/1/0): DDP has
//!   no access-rights code (siw does the same). The RDMAP remote protection codes (layer 0 type 1)
//!   are used for the responder's check of a Read Request's data source.
//! - TO wrap means the segment's last octet, TO + length - 1, is beyond 2^64 - 1: a segment
//!   ending exactly at 2^64 is not a wrap.
//! - Zero-length tagged segments are not checked at all (STag 0, any TO); a zero-length untagged
//!   segment still needs its posted buffer.
//! - MSNs compare modulo 2^32 against a per-queue window base.
//!
//! Nothing here panics on hostile input: every length and offset sum is checked.

#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::fmt;

/// Length of a tagged DDP header, RDMAP control octet included.
pub const TAGGED_HEADER_LEN: usize = 14;
/// Length of an untagged DDP header, RsvdULP included.
pub const UNTAGGED_HEADER_LEN: usize = 18;
/// Length of the RDMA Read Request header that follows the untagged DDP header.
pub const READ_REQUEST_HEADER_LEN: usize = 28;
/// Length of the Terminate Control field that starts a Terminate message's payload.
pub const TERMINATE_CONTROL_LEN: usize = 4;

/// Untagged queue of Send, Send with Invalidate, Send with SE, Send with SE and Invalidate.
pub const QN_SEND: u32 = 0;
/// Untagged queue of RDMA Read Requests.
pub const QN_READ_REQUEST: u32 = 1;
/// Untagged queue of Terminate messages.
pub const QN_TERMINATE: u32 = 2;

/// The MSN of the first message on every untagged queue.
pub const FIRST_MSN: u32 = 1;

/// Which protocol generation a connection speaks; it fixes the DDP version (DV) and the RDMAP
/// version (RV) a receiver accepts. A connection speaks exactly one (RFC 5044 Appendix C: the MPA
/// negotiation decides), so the receiver accepts exactly one pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProtocolVersion {
    /// RFC 5041 DDP and RFC 5040 RDMAP: DV = 1, RV = 1.
    #[default]
    Rfc5040,
    /// The RDMA Consortium drafts (the `40 03` of the RDMAC MPA draft's dumps): DV = 0, RV = 0.
    RdmacDraft,
}

impl ProtocolVersion {
    /// The DDP version (DV) of this generation.
    pub const fn ddp_version(self) -> u8 {
        match self {
            ProtocolVersion::Rfc5040 => 1,
            ProtocolVersion::RdmacDraft => 0,
        }
    }

    /// The RDMAP version (RV) of this generation.
    pub const fn rdmap_version(self) -> u8 {
        match self {
            ProtocolVersion::Rfc5040 => 1,
            ProtocolVersion::RdmacDraft => 0,
        }
    }
}

/// The DDP control octet (octet 0 of every ULPDU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DdpControl {
    /// T (0x80): the segment is tagged.
    pub tagged: bool,
    /// L (0x40): the last segment of its DDP message.
    pub last: bool,
    /// The four reserved bits (0x3C), right-aligned (0..=15). Sent as 0; kept on decode so that
    /// decode/encode round-trips, never checked on receive.
    pub reserved: u8,
    /// DV (0x03): the DDP version (0..=3).
    pub version: u8,
}

impl DdpControl {
    /// T bit.
    pub const T: u8 = 0x80;
    /// L bit.
    pub const L: u8 = 0x40;
    /// Reserved bits.
    pub const RESERVED_MASK: u8 = 0x3C;
    /// DDP version field.
    pub const VERSION_MASK: u8 = 0x03;

    /// Splits an octet into its fields (every octet decodes).
    pub fn decode(octet: u8) -> Self {
        DdpControl {
            tagged: octet & Self::T != 0,
            last: octet & Self::L != 0,
            reserved: (octet & Self::RESERVED_MASK) >> 2,
            version: octet & Self::VERSION_MASK,
        }
    }

    /// The octet; fields wider than their bit width are truncated to it.
    pub fn encode(&self) -> u8 {
        (if self.tagged { Self::T } else { 0 })
            | (if self.last { Self::L } else { 0 })
            | ((self.reserved << 2) & Self::RESERVED_MASK)
            | (self.version & Self::VERSION_MASK)
    }
}

/// RDMAP opcodes (RFC 5040). The field is 4 bits; 8..=15 are reserved here (later RFCs assign
/// some), and decode to [`Opcode::Reserved`] so that the control octet always decodes and
/// round-trips. [`DdpSegment::validate`] rejects them ([`DdpError::ReservedOpcode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// 0: RDMA Write (tagged).
    RdmaWrite,
    /// 1: RDMA Read Request (untagged, QN 1, 28-octet [`ReadRequestHeader`]).
    RdmaReadRequest,
    /// 2: RDMA Read Response (tagged, at the request's sink STag / TO).
    RdmaReadResponse,
    /// 3: Send (untagged, QN 0).
    Send,
    /// 4: Send with Invalidate (untagged, QN 0, Invalidate STag in RsvdULP).
    SendWithInvalidate,
    /// 5: Send with Solicited Event (untagged, QN 0).
    SendWithSolicitedEvent,
    /// 6: Send with Solicited Event and Invalidate (untagged, QN 0, Invalidate STag in RsvdULP).
    SendWithSolicitedEventAndInvalidate,
    /// 7: Terminate (untagged, QN 2, [`TerminateControl`] first in the payload).
    Terminate,
    /// 8..=15: reserved. The value is the 4-bit opcode.
    Reserved(u8),
}

/// The DDP model an RDMAP message uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DdpModel {
    /// Tagged buffer model (STag, TO).
    Tagged,
    /// Untagged buffer model on queue `qn`.
    Untagged {
        /// The queue number the message must carry.
        qn: u32,
    },
}

impl Opcode {
    /// The eight defined opcodes, in numeric order.
    pub const ALL: [Opcode; 8] = [
        Opcode::RdmaWrite,
        Opcode::RdmaReadRequest,
        Opcode::RdmaReadResponse,
        Opcode::Send,
        Opcode::SendWithInvalidate,
        Opcode::SendWithSolicitedEvent,
        Opcode::SendWithSolicitedEventAndInvalidate,
        Opcode::Terminate,
    ];

    /// The opcode of the low 4 bits of `value` (the upper bits are ignored).
    pub fn from_nibble(value: u8) -> Opcode {
        match value & 0x0F {
            0 => Opcode::RdmaWrite,
            1 => Opcode::RdmaReadRequest,
            2 => Opcode::RdmaReadResponse,
            3 => Opcode::Send,
            4 => Opcode::SendWithInvalidate,
            5 => Opcode::SendWithSolicitedEvent,
            6 => Opcode::SendWithSolicitedEventAndInvalidate,
            7 => Opcode::Terminate,
            v => Opcode::Reserved(v),
        }
    }

    /// The 4-bit value (a [`Opcode::Reserved`] value is truncated to 4 bits).
    pub fn to_nibble(self) -> u8 {
        match self {
            Opcode::RdmaWrite => 0,
            Opcode::RdmaReadRequest => 1,
            Opcode::RdmaReadResponse => 2,
            Opcode::Send => 3,
            Opcode::SendWithInvalidate => 4,
            Opcode::SendWithSolicitedEvent => 5,
            Opcode::SendWithSolicitedEventAndInvalidate => 6,
            Opcode::Terminate => 7,
            Opcode::Reserved(v) => v & 0x0F,
        }
    }

    /// The DDP model and queue this opcode must use; `None` for a reserved opcode.
    pub fn model(self) -> Option<DdpModel> {
        match self {
            Opcode::RdmaWrite | Opcode::RdmaReadResponse => Some(DdpModel::Tagged),
            Opcode::RdmaReadRequest => Some(DdpModel::Untagged { qn: QN_READ_REQUEST }),
            Opcode::Send
            | Opcode::SendWithInvalidate
            | Opcode::SendWithSolicitedEvent
            | Opcode::SendWithSolicitedEventAndInvalidate => {
                Some(DdpModel::Untagged { qn: QN_SEND })
            }
            Opcode::Terminate => Some(DdpModel::Untagged { qn: QN_TERMINATE }),
            Opcode::Reserved(_) => None,
        }
    }

    /// True for the two Send variants whose RsvdULP carries an Invalidate STag.
    pub fn carries_invalidate_stag(self) -> bool {
        matches!(self, Opcode::SendWithInvalidate | Opcode::SendWithSolicitedEventAndInvalidate)
    }

    /// True for the two Send variants that ask for a solicited event.
    pub fn solicited_event(self) -> bool {
        matches!(self, Opcode::SendWithSolicitedEvent | Opcode::SendWithSolicitedEventAndInvalidate)
    }

    /// True for messages that must be a single DDP segment (L = 1): RDMA Read Request and
    /// Terminate.
    pub fn single_segment(self) -> bool {
        matches!(self, Opcode::RdmaReadRequest | Opcode::Terminate)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opcode::RdmaWrite => f.write_str("RDMA Write"),
            Opcode::RdmaReadRequest => f.write_str("RDMA Read Request"),
            Opcode::RdmaReadResponse => f.write_str("RDMA Read Response"),
            Opcode::Send => f.write_str("Send"),
            Opcode::SendWithInvalidate => f.write_str("Send with Invalidate"),
            Opcode::SendWithSolicitedEvent => f.write_str("Send with Solicited Event"),
            Opcode::SendWithSolicitedEventAndInvalidate => {
                f.write_str("Send with Solicited Event and Invalidate")
            }
            Opcode::Terminate => f.write_str("Terminate"),
            Opcode::Reserved(v) => write!(f, "reserved opcode {}", v & 0x0F),
        }
    }
}

/// The RDMAP control octet (octet 1 of every ULPDU, the first octet of DDP's RsvdULP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RdmapControl {
    /// RV (0xC0): the RDMAP version (0..=3).
    pub version: u8,
    /// The two reserved bits (0x30), right-aligned (0..=3). Sent as 0, kept on decode, never
    /// checked.
    pub reserved: u8,
    /// OpCode (0x0F).
    pub opcode: Opcode,
}

impl RdmapControl {
    /// RDMAP version field.
    pub const VERSION_MASK: u8 = 0xC0;
    /// Reserved bits.
    pub const RESERVED_MASK: u8 = 0x30;
    /// OpCode field.
    pub const OPCODE_MASK: u8 = 0x0F;

    /// A control octet of `version`'s RV for `opcode`, reserved bits 0.
    pub fn new(opcode: Opcode, version: ProtocolVersion) -> Self {
        RdmapControl { version: version.rdmap_version(), reserved: 0, opcode }
    }

    /// Splits an octet into its fields (every octet decodes).
    pub fn decode(octet: u8) -> Self {
        RdmapControl {
            version: (octet & Self::VERSION_MASK) >> 6,
            reserved: (octet & Self::RESERVED_MASK) >> 4,
            opcode: Opcode::from_nibble(octet),
        }
    }

    /// The octet; fields wider than their bit width are truncated to it.
    pub fn encode(&self) -> u8 {
        ((self.version << 6) & Self::VERSION_MASK)
            | ((self.reserved << 4) & Self::RESERVED_MASK)
            | self.opcode.to_nibble()
    }
}

/// A Terminate layer / error type / error code triple (RFC 5040 Terminate Control; RFC 5041 for
/// the DDP codes). The named constants follow SPECS.md for the DDP and MPA codes; the RDMAP
/// (layer 0) codes are those of Linux siw's `iwarp.h` (`rdmap_ecode`), not in SPECS.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TerminateCode {
    /// Layer: 0 RDMAP, 1 DDP, 2 LLP (MPA). 4 bits on the wire.
    pub layer: u8,
    /// Error type within the layer. 4 bits on the wire.
    pub etype: u8,
    /// Error code within the type. 8 bits.
    pub code: u8,
}

impl TerminateCode {
    /// Layer number of RDMAP.
    pub const LAYER_RDMAP: u8 = 0;
    /// Layer number of DDP.
    pub const LAYER_DDP: u8 = 1;
    /// Layer number of the lower layer protocol (MPA).
    pub const LAYER_LLP: u8 = 2;

    const fn new(layer: u8, etype: u8, code: u8) -> Self {
        TerminateCode { layer, etype, code }
    }

    /// RDMAP remote protection error: invalid STag (0/1/0).
    pub const RDMAP_INVALID_STAG: Self = Self::new(0, 1, 0x00);
    /// RDMAP remote protection error: base or bounds violation (0/1/1).
    pub const RDMAP_BASE_BOUNDS: Self = Self::new(0, 1, 0x01);
    /// RDMAP remote protection error: access rights violation (0/1/2).
    pub const RDMAP_ACCESS_RIGHTS: Self = Self::new(0, 1, 0x02);
    /// RDMAP remote protection error: STag not associated with the RDMAP stream (0/1/3).
    pub const RDMAP_STAG_NOT_ASSOCIATED: Self = Self::new(0, 1, 0x03);
    /// RDMAP remote protection error: TO wrap (0/1/4).
    pub const RDMAP_TO_WRAP: Self = Self::new(0, 1, 0x04);
    /// RDMAP remote operation error: invalid RDMAP version (0/2/5).
    pub const RDMAP_INVALID_VERSION: Self = Self::new(0, 2, 0x05);
    /// RDMAP remote operation error: unexpected OpCode (0/2/6).
    pub const RDMAP_UNEXPECTED_OPCODE: Self = Self::new(0, 2, 0x06);
    /// RDMAP remote protection error: cannot invalidate (0/1/9): a Send with Invalidate names
    /// an STag of another protection domain (Linux siw's `RDMAP_ECODE_CANNOT_INVALIDATE`).
    pub const RDMAP_CANNOT_INVALIDATE_PROTECTION: Self = Self::new(0, 1, 0x09);
    /// RDMAP remote operation error: cannot invalidate (0/2/9): a Send with Invalidate names an
    /// STag that is not registered or no longer valid (siw).
    pub const RDMAP_CANNOT_INVALIDATE: Self = Self::new(0, 2, 0x09);
    /// RDMAP remote operation error: unspecified (0/2/0xFF).
    pub const RDMAP_UNSPECIFIED: Self = Self::new(0, 2, 0xFF);

    /// DDP catastrophic error, code unspecified (1/0/0).
    pub const DDP_CATASTROPHIC: Self = Self::new(1, 0, 0);
    /// DDP tagged buffer error: invalid STag (1/1/0).
    pub const DDP_TAGGED_INVALID_STAG: Self = Self::new(1, 1, 0);
    /// DDP tagged buffer error: base or bounds violation (1/1/1).
    pub const DDP_TAGGED_BASE_BOUNDS: Self = Self::new(1, 1, 1);
    /// DDP tagged buffer error: STag not associated with the DDP stream (1/1/2).
    pub const DDP_TAGGED_STAG_NOT_ASSOCIATED: Self = Self::new(1, 1, 2);
    /// DDP tagged buffer error: TO wrap (1/1/3).
    pub const DDP_TAGGED_TO_WRAP: Self = Self::new(1, 1, 3);
    /// DDP tagged buffer error: invalid DDP version (1/1/4).
    pub const DDP_TAGGED_INVALID_VERSION: Self = Self::new(1, 1, 4);
    /// DDP untagged buffer error: invalid QN (1/2/1).
    pub const DDP_UNTAGGED_INVALID_QN: Self = Self::new(1, 2, 1);
    /// DDP untagged buffer error: invalid MSN, no buffer available (1/2/2).
    pub const DDP_UNTAGGED_NO_BUFFER: Self = Self::new(1, 2, 2);
    /// DDP untagged buffer error: invalid MSN, MSN range not valid (1/2/3).
    pub const DDP_UNTAGGED_MSN_RANGE: Self = Self::new(1, 2, 3);
    /// DDP untagged buffer error: invalid MO (1/2/4).
    pub const DDP_UNTAGGED_INVALID_MO: Self = Self::new(1, 2, 4);
    /// DDP untagged buffer error: DDP message too long for the available buffer (1/2/5).
    pub const DDP_UNTAGGED_TOO_LONG: Self = Self::new(1, 2, 5);
    /// DDP untagged buffer error: invalid DDP version (1/2/6).
    pub const DDP_UNTAGGED_INVALID_VERSION: Self = Self::new(1, 2, 6);

    /// MPA error: TCP connection lost (2/0/1).
    pub const MPA_CONNECTION_LOST: Self = Self::new(2, 0, 1);
    /// MPA error: received CRC error (2/0/2).
    pub const MPA_CRC: Self = Self::new(2, 0, 2);
    /// MPA error: Marker and ULPDU_Length disagree (2/0/3).
    pub const MPA_MARKER: Self = Self::new(2, 0, 3);
    /// MPA error: invalid Request/Reply frame (2/0/4).
    pub const MPA_INVALID_REQUEST_REPLY: Self = Self::new(2, 0, 4);
    /// MPA error (RFC 6581): local catastrophic (2/0/5).
    pub const MPA_LOCAL_CATASTROPHIC: Self = Self::new(2, 0, 5);
    /// MPA error (RFC 6581): insufficient IRD resources (2/0/6).
    pub const MPA_INSUFFICIENT_IRD: Self = Self::new(2, 0, 6);
    /// MPA error (RFC 6581): no matching RTR option (2/0/7).
    pub const MPA_NO_MATCHING_RTR: Self = Self::new(2, 0, 7);
}

impl fmt::Display for TerminateCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "layer {} type {} code {:#04x}", self.layer, self.etype, self.code)
    }
}

/// The Terminate Control field, the first 4 octets of a Terminate message's payload:
/// `Layer(4) EType(4) ErrorCode(8) M(1) D(1) R(1) reserved(13)`. M: the DDP Segment Length of the
/// terminated segment follows; D: its DDP header follows; R: the RDMA Read Request header follows.
/// Layout as in Linux siw's `struct iwarp_terminate` (not in SPECS.md). The rest of the payload is
/// left to the caller ([`DdpSegment::payload`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TerminateControl {
    /// Layer, error type and code; layer and type are truncated to 4 bits on encode.
    pub code: TerminateCode,
    /// M flag (0x8000 of the second 16-bit word).
    pub m: bool,
    /// D flag (0x4000).
    pub d: bool,
    /// R flag (0x2000).
    pub r: bool,
    /// The 13 reserved bits, right-aligned. Sent as 0, kept on decode.
    pub reserved: u16,
}

impl TerminateControl {
    /// The four octets.
    pub fn encode(&self) -> [u8; 4] {
        let flags: u16 = (if self.m { 0x8000 } else { 0 })
            | (if self.d { 0x4000 } else { 0 })
            | (if self.r { 0x2000 } else { 0 })
            | (self.reserved & 0x1FFF);
        let f = flags.to_be_bytes();
        [((self.code.layer & 0x0F) << 4) | (self.code.etype & 0x0F), self.code.code, f[0], f[1]]
    }

    /// Reads the first four octets of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DdpError> {
        let b: [u8; 4] = take(bytes, 0)?;
        let flags = u16::from_be_bytes([b[2], b[3]]);
        Ok(TerminateControl {
            code: TerminateCode { layer: b[0] >> 4, etype: b[0] & 0x0F, code: b[1] },
            m: flags & 0x8000 != 0,
            d: flags & 0x4000 != 0,
            r: flags & 0x2000 != 0,
            reserved: flags & 0x1FFF,
        })
    }
}

/// A tagged DDP header (14 octets): control, RDMAP control, STag, TO.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaggedHeader {
    /// DDP control octet. [`TaggedHeader::encode`] always writes T = 1.
    pub control: DdpControl,
    /// RDMAP control octet (RsvdULP of the tagged header).
    pub rdmap: RdmapControl,
    /// Steering Tag of the target buffer.
    pub stag: u32,
    /// Tagged Offset of the segment's first payload octet.
    pub to: u64,
}

impl TaggedHeader {
    /// A header of `version` for `opcode`, reserved bits 0.
    pub fn new(opcode: Opcode, last: bool, stag: u32, to: u64, version: ProtocolVersion) -> Self {
        TaggedHeader {
            control: DdpControl { tagged: true, last, reserved: 0, version: version.ddp_version() },
            rdmap: RdmapControl::new(opcode, version),
            stag,
            to,
        }
    }

    /// The 14 octets, T forced to 1.
    pub fn encode(&self) -> [u8; TAGGED_HEADER_LEN] {
        let mut out = [0u8; TAGGED_HEADER_LEN];
        out[0] = DdpControl { tagged: true, ..self.control }.encode();
        out[1] = self.rdmap.encode();
        out[2..6].copy_from_slice(&self.stag.to_be_bytes());
        out[6..14].copy_from_slice(&self.to.to_be_bytes());
        out
    }

    /// Reads the first 14 octets of `bytes` as a tagged header (T is decoded, not checked).
    pub fn decode(bytes: &[u8]) -> Result<Self, DdpError> {
        let b: [u8; TAGGED_HEADER_LEN] = take(bytes, 0)?;
        Ok(TaggedHeader {
            control: DdpControl::decode(b[0]),
            rdmap: RdmapControl::decode(b[1]),
            stag: be32(&b[2..6]),
            to: be64(&b[6..14]),
        })
    }
}

/// An untagged DDP header (18 octets): control, RsvdULP (RDMAP control + 4 octets), QN, MSN, MO.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UntaggedHeader {
    /// DDP control octet. [`UntaggedHeader::encode`] always writes T = 0.
    pub control: DdpControl,
    /// RDMAP control octet (first octet of RsvdULP).
    pub rdmap: RdmapControl,
    /// The last 4 octets of RsvdULP: the Invalidate STag for Send with Invalidate and Send with SE
    /// and Invalidate, 0 for every other opcode (sent as 0, not checked on receive).
    pub invalidate_stag: u32,
    /// Queue Number.
    pub qn: u32,
    /// Message Sequence Number (first message on a queue is 1; wraps modulo 2^32).
    pub msn: u32,
    /// Message Offset of the segment's first payload octet in its message.
    pub mo: u32,
}

impl UntaggedHeader {
    /// A header of `version` for `opcode` on `qn`, Invalidate STag 0, reserved bits 0.
    pub fn new(
        opcode: Opcode,
        last: bool,
        qn: u32,
        msn: u32,
        mo: u32,
        version: ProtocolVersion,
    ) -> Self {
        UntaggedHeader {
            control: DdpControl {
                tagged: false,
                last,
                reserved: 0,
                version: version.ddp_version(),
            },
            rdmap: RdmapControl::new(opcode, version),
            invalidate_stag: 0,
            qn,
            msn,
            mo,
        }
    }

    /// The 18 octets, T forced to 0.
    pub fn encode(&self) -> [u8; UNTAGGED_HEADER_LEN] {
        let mut out = [0u8; UNTAGGED_HEADER_LEN];
        out[0] = DdpControl { tagged: false, ..self.control }.encode();
        out[1] = self.rdmap.encode();
        out[2..6].copy_from_slice(&self.invalidate_stag.to_be_bytes());
        out[6..10].copy_from_slice(&self.qn.to_be_bytes());
        out[10..14].copy_from_slice(&self.msn.to_be_bytes());
        out[14..18].copy_from_slice(&self.mo.to_be_bytes());
        out
    }

    /// Reads the first 18 octets of `bytes` as an untagged header (T is decoded, not checked).
    pub fn decode(bytes: &[u8]) -> Result<Self, DdpError> {
        let b: [u8; UNTAGGED_HEADER_LEN] = take(bytes, 0)?;
        Ok(UntaggedHeader {
            control: DdpControl::decode(b[0]),
            rdmap: RdmapControl::decode(b[1]),
            invalidate_stag: be32(&b[2..6]),
            qn: be32(&b[6..10]),
            msn: be32(&b[10..14]),
            mo: be32(&b[14..18]),
        })
    }
}

/// The RDMA Read Request header (28 octets, the whole payload of a Read Request segment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadRequestHeader {
    /// Data Sink STag: where the requester wants the Read Response placed.
    pub sink_stag: u32,
    /// Data Sink Tagged Offset.
    pub sink_to: u64,
    /// RDMA Read Message Size in octets.
    pub size: u32,
    /// Data Source STag: the responder's buffer to read.
    pub source_stag: u32,
    /// Data Source Tagged Offset.
    pub source_to: u64,
}

impl ReadRequestHeader {
    /// The 28 octets: sink STag (4), sink TO (8), size (4), source STag (4), source TO (8).
    pub fn encode(&self) -> [u8; READ_REQUEST_HEADER_LEN] {
        let mut out = [0u8; READ_REQUEST_HEADER_LEN];
        out[0..4].copy_from_slice(&self.sink_stag.to_be_bytes());
        out[4..12].copy_from_slice(&self.sink_to.to_be_bytes());
        out[12..16].copy_from_slice(&self.size.to_be_bytes());
        out[16..20].copy_from_slice(&self.source_stag.to_be_bytes());
        out[20..28].copy_from_slice(&self.source_to.to_be_bytes());
        out
    }

    /// Reads the first 28 octets of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DdpError> {
        let b: [u8; READ_REQUEST_HEADER_LEN] = take(bytes, 0)?;
        Ok(ReadRequestHeader {
            sink_stag: be32(&b[0..4]),
            sink_to: be64(&b[4..12]),
            size: be32(&b[12..16]),
            source_stag: be32(&b[16..20]),
            source_to: be64(&b[20..28]),
        })
    }
}

/// One DDP segment (one ULPDU): its header and payload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DdpSegment {
    /// A tagged segment (T = 1).
    Tagged {
        /// The 14-octet header.
        header: TaggedHeader,
        /// The octets after the header, placed at the header's TO.
        payload: Vec<u8>,
    },
    /// An untagged segment (T = 0).
    Untagged {
        /// The 18-octet header.
        header: UntaggedHeader,
        /// The octets after the header (for a Read Request, the [`ReadRequestHeader`]; for a
        /// Terminate, the [`TerminateControl`] and what follows it).
        payload: Vec<u8>,
    },
}

impl DdpSegment {
    /// A single-segment RDMA Read Request (QN 1, L = 1, MO 0) with message number `msn`.
    pub fn read_request(msn: u32, request: &ReadRequestHeader, version: ProtocolVersion) -> Self {
        DdpSegment::Untagged {
            header: UntaggedHeader::new(
                Opcode::RdmaReadRequest,
                true,
                QN_READ_REQUEST,
                msn,
                0,
                version,
            ),
            payload: request.encode().to_vec(),
        }
    }

    /// A Terminate message (QN 2, L = 1, MO 0): the Terminate Control, then `rest` (the terminated
    /// segment's length and headers, when M / D / R say so).
    pub fn terminate(
        msn: u32,
        control: &TerminateControl,
        rest: &[u8],
        version: ProtocolVersion,
    ) -> Self {
        let mut payload = control.encode().to_vec();
        payload.extend_from_slice(rest);
        DdpSegment::Untagged {
            header: UntaggedHeader::new(Opcode::Terminate, true, QN_TERMINATE, msn, 0, version),
            payload,
        }
    }

    /// Splits a ULPDU into header and payload using only its structure: the T bit picks the
    /// header, which must be complete. No version, opcode or queue checks (see
    /// [`DdpSegment::validate`] and [`decode_with`]).
    pub fn parse(ulpdu: &[u8]) -> Result<Self, DdpError> {
        let first =
            *ulpdu.first().ok_or(DdpError::Truncated { needed: TAGGED_HEADER_LEN, got: 0 })?;
        if DdpControl::decode(first).tagged {
            let header = TaggedHeader::decode(ulpdu)?;
            Ok(DdpSegment::Tagged { header, payload: ulpdu[TAGGED_HEADER_LEN..].to_vec() })
        } else {
            let header = UntaggedHeader::decode(ulpdu)?;
            Ok(DdpSegment::Untagged { header, payload: ulpdu[UNTAGGED_HEADER_LEN..].to_vec() })
        }
    }

    /// The ULPDU octets: header (T from the variant) then payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = match self {
            DdpSegment::Tagged { header, .. } => header.encode().to_vec(),
            DdpSegment::Untagged { header, .. } => header.encode().to_vec(),
        };
        out.extend_from_slice(self.payload());
        out
    }

    /// True for the tagged variant.
    pub fn is_tagged(&self) -> bool {
        matches!(self, DdpSegment::Tagged { .. })
    }

    /// The DDP control octet's fields (T as the variant says).
    pub fn control(&self) -> DdpControl {
        match self {
            DdpSegment::Tagged { header, .. } => DdpControl { tagged: true, ..header.control },
            DdpSegment::Untagged { header, .. } => DdpControl { tagged: false, ..header.control },
        }
    }

    /// The RDMAP control octet's fields.
    pub fn rdmap(&self) -> RdmapControl {
        match self {
            DdpSegment::Tagged { header, .. } => header.rdmap,
            DdpSegment::Untagged { header, .. } => header.rdmap,
        }
    }

    /// The RDMAP opcode.
    pub fn opcode(&self) -> Opcode {
        self.rdmap().opcode
    }

    /// The L bit: this is the last segment of its DDP message.
    pub fn is_last(&self) -> bool {
        self.control().last
    }

    /// The payload (the octets after the DDP header).
    pub fn payload(&self) -> &[u8] {
        match self {
            DdpSegment::Tagged { payload, .. } | DdpSegment::Untagged { payload, .. } => payload,
        }
    }

    /// The Read Request header of an RDMA Read Request segment (`None` for any other opcode or
    /// for a payload shorter than 28 octets).
    pub fn read_request_header(&self) -> Option<ReadRequestHeader> {
        match self {
            DdpSegment::Untagged { header, payload }
                if header.rdmap.opcode == Opcode::RdmaReadRequest =>
            {
                ReadRequestHeader::decode(payload).ok()
            }
            _ => None,
        }
    }

    /// The Terminate Control of a Terminate segment (`None` for any other opcode or for a payload
    /// shorter than 4 octets).
    pub fn terminate_control(&self) -> Option<TerminateControl> {
        match self {
            DdpSegment::Untagged { header, payload }
                if header.rdmap.opcode == Opcode::Terminate =>
            {
                TerminateControl::decode(payload).ok()
            }
            _ => None,
        }
    }

    /// Checks the DDP and RDMAP rules for a connection speaking `version`, in this order:
    /// 1. DV equals `version`'s DDP version ([`DdpError::DdpVersion`]);
    /// 2. RV equals `version`'s RDMAP version ([`DdpError::RdmapVersion`]);
    /// 3. the opcode is not reserved ([`DdpError::ReservedOpcode`]);
    /// 4. the opcode's DDP model matches T ([`DdpError::OpcodeModel`]);
    /// 5. untagged: QN is the opcode's queue ([`DdpError::QueueMismatch`]);
    /// 6. Read Request and Terminate are single segments, L = 1 ([`DdpError::NotSingleSegment`]);
    /// 7. a Read Request's payload is exactly the 28-octet header
    ///    ([`DdpError::ReadRequestLength`]); a Terminate's payload holds at least the Terminate
    ///    Control ([`DdpError::TerminateTooShort`]).
    ///
    /// Reserved bits and the RsvdULP word of non-invalidating opcodes are not checked.
    pub fn validate(&self, version: ProtocolVersion) -> Result<(), DdpError> {
        check_control(self.control(), self.rdmap(), version)?;
        self.check_body()
    }

    /// Rules 5-7 of [`DdpSegment::validate`] (the control octets already checked).
    fn check_body(&self) -> Result<(), DdpError> {
        let opcode = self.opcode();
        if let DdpSegment::Untagged { header, payload } = self {
            if let Some(DdpModel::Untagged { qn }) = opcode.model() {
                if header.qn != qn {
                    return Err(DdpError::QueueMismatch { opcode, qn: header.qn });
                }
            }
            if opcode.single_segment() && !header.control.last {
                return Err(DdpError::NotSingleSegment { opcode });
            }
            match opcode {
                Opcode::RdmaReadRequest if payload.len() != READ_REQUEST_HEADER_LEN => {
                    return Err(DdpError::ReadRequestLength { len: payload.len() });
                }
                Opcode::Terminate if payload.len() < TERMINATE_CONTROL_LEN => {
                    return Err(DdpError::TerminateTooShort { len: payload.len() });
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Rules 1-4 of [`DdpSegment::validate`], on the two control octets alone.
fn check_control(
    ddp: DdpControl,
    rdmap: RdmapControl,
    version: ProtocolVersion,
) -> Result<Opcode, DdpError> {
    if ddp.version != version.ddp_version() {
        return Err(DdpError::DdpVersion {
            tagged: ddp.tagged,
            found: ddp.version,
            expected: version.ddp_version(),
        });
    }
    if rdmap.version != version.rdmap_version() {
        return Err(DdpError::RdmapVersion {
            found: rdmap.version,
            expected: version.rdmap_version(),
        });
    }
    let opcode = rdmap.opcode;
    match opcode.model() {
        None => Err(DdpError::ReservedOpcode(opcode.to_nibble())),
        Some(DdpModel::Tagged) if !ddp.tagged => {
            Err(DdpError::OpcodeModel { opcode, tagged: false })
        }
        Some(DdpModel::Untagged { .. }) if ddp.tagged => {
            Err(DdpError::OpcodeModel { opcode, tagged: true })
        }
        Some(_) => Ok(opcode),
    }
}

/// Decodes and validates one ULPDU of an RFC 5040/5041 connection
/// (`decode_with(ulpdu, ProtocolVersion::Rfc5040)`).
pub fn decode(ulpdu: &[u8]) -> Result<DdpSegment, DdpError> {
    decode_with(ulpdu, ProtocolVersion::Rfc5040)
}

/// Decodes and validates one ULPDU of a connection speaking `version`. The two control octets are
/// checked first (rules 1-4 of [`DdpSegment::validate`]: a wrong DDP version is reported even
/// when the rest of the header is missing), then the header length ([`DdpError::Truncated`]),
/// then rules 5-7.
pub fn decode_with(ulpdu: &[u8], version: ProtocolVersion) -> Result<DdpSegment, DdpError> {
    if let [c, r, ..] = *ulpdu {
        check_control(DdpControl::decode(c), RdmapControl::decode(r), version)?;
    }
    let segment = DdpSegment::parse(ulpdu)?;
    segment.check_body()?;
    Ok(segment)
}

/// Why a ULPDU is not a valid DDP/RDMAP segment. [`DdpError::terminate`] gives the Terminate
/// code a receiver reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DdpError {
    /// The input is shorter than the header (or field) being read.
    Truncated {
        /// Octets the header needs.
        needed: usize,
        /// Octets present.
        got: usize,
    },
    /// DV is not the connection's DDP version.
    DdpVersion {
        /// The T bit of the segment (picks the tagged or untagged code).
        tagged: bool,
        /// DV received.
        found: u8,
        /// DV expected.
        expected: u8,
    },
    /// RV is not the connection's RDMAP version.
    RdmapVersion {
        /// RV received.
        found: u8,
        /// RV expected.
        expected: u8,
    },
    /// The opcode is one of the reserved values 8..=15.
    ReservedOpcode(u8),
    /// The opcode's DDP model disagrees with the T bit.
    OpcodeModel {
        /// The opcode.
        opcode: Opcode,
        /// The T bit received.
        tagged: bool,
    },
    /// An untagged segment's QN is not the queue of its opcode.
    QueueMismatch {
        /// The opcode.
        opcode: Opcode,
        /// The QN received.
        qn: u32,
    },
    /// A Read Request or Terminate segment without L set.
    NotSingleSegment {
        /// The opcode.
        opcode: Opcode,
    },
    /// A Read Request whose payload is not exactly the 28-octet Read Request header.
    ReadRequestLength {
        /// Payload octets received.
        len: usize,
    },
    /// A Terminate whose payload is shorter than the 4-octet Terminate Control.
    TerminateTooShort {
        /// Payload octets received.
        len: usize,
    },
}

impl DdpError {
    /// The Terminate layer / type / code for this error:
    ///
    /// | error | code |
    /// |---|---|
    /// | `Truncated` | DDP catastrophic 1/0/0 (no code fits a header cut short) |
    /// | `DdpVersion` | 1/1/4 tagged, 1/2/6 untagged |
    /// | `RdmapVersion` | 0/2/5 |
    /// | `ReservedOpcode`, `OpcodeModel` | 0/2/6 unexpected OpCode |
    /// | `QueueMismatch` | 1/2/1 invalid QN |
    /// | `NotSingleSegment`, `ReadRequestLength`, `TerminateTooShort` | 0/2/0xFF unspecified |
    pub fn terminate(&self) -> TerminateCode {
        match self {
            DdpError::Truncated { .. } => TerminateCode::DDP_CATASTROPHIC,
            DdpError::DdpVersion { tagged: true, .. } => TerminateCode::DDP_TAGGED_INVALID_VERSION,
            DdpError::DdpVersion { tagged: false, .. } => {
                TerminateCode::DDP_UNTAGGED_INVALID_VERSION
            }
            DdpError::RdmapVersion { .. } => TerminateCode::RDMAP_INVALID_VERSION,
            DdpError::ReservedOpcode(_) | DdpError::OpcodeModel { .. } => {
                TerminateCode::RDMAP_UNEXPECTED_OPCODE
            }
            DdpError::QueueMismatch { .. } => TerminateCode::DDP_UNTAGGED_INVALID_QN,
            DdpError::NotSingleSegment { .. }
            | DdpError::ReadRequestLength { .. }
            | DdpError::TerminateTooShort { .. } => TerminateCode::RDMAP_UNSPECIFIED,
        }
    }
}

impl fmt::Display for DdpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DdpError::Truncated { needed, got } => {
                write!(f, "truncated: {needed} octets needed, {got} present")
            }
            DdpError::DdpVersion { found, expected, .. } => {
                write!(f, "invalid DDP version {found} (expected {expected})")
            }
            DdpError::RdmapVersion { found, expected } => {
                write!(f, "invalid RDMAP version {found} (expected {expected})")
            }
            DdpError::ReservedOpcode(v) => write!(f, "reserved RDMAP opcode {v}"),
            DdpError::OpcodeModel { opcode, tagged } => {
                write!(f, "{opcode} in a{} segment", if *tagged { " tagged" } else { "n untagged" })
            }
            DdpError::QueueMismatch { opcode, qn } => write!(f, "{opcode} on queue {qn}"),
            DdpError::NotSingleSegment { opcode } => {
                write!(f, "{opcode} segment without the L bit")
            }
            DdpError::ReadRequestLength { len } => {
                write!(f, "RDMA Read Request payload of {len} octets (must be 28)")
            }
            DdpError::TerminateTooShort { len } => {
                write!(f, "Terminate payload of {len} octets (at least 4)")
            }
        }
        .and_then(|_| write!(f, " [{}]", self.terminate()))
    }
}

impl std::error::Error for DdpError {}

// ---------------------------------------------------------------------------------------------
// Placement model
// ---------------------------------------------------------------------------------------------

/// Remote access rights of a registered region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Access {
    /// The peer may write it: RDMA Write, and RDMA Read Response into a Read's data sink.
    pub remote_write: bool,
    /// The peer may read it: the data source of an RDMA Read Request.
    pub remote_read: bool,
}

/// A registered memory region, as the STag table holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// Tagged Offset of the region's first octet (0 for zero-based regions, the virtual address
    /// for VA-based ones).
    pub base: u64,
    /// Length in octets: the region is `[base, base + len)` in TO space (never summed; see
    /// [`PlacementModel::place`]).
    pub len: u64,
    /// Remote access rights.
    pub access: Access,
    /// Protection domain; the STag is associated with a stream when this equals the stream's
    /// [`PlacementModel::pd`].
    pub pd: u32,
    /// The STag is valid (registered and not invalidated).
    pub valid: bool,
}

/// One untagged queue: the window base and the posted buffers by MSN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UntaggedQueue {
    /// The oldest MSN still expected (the first message's MSN is 1); advanced by
    /// [`PlacementModel::retire`].
    pub base_msn: u32,
    /// Posted buffer lengths by MSN.
    pub buffers: BTreeMap<u32, u64>,
}

impl Default for UntaggedQueue {
    fn default() -> Self {
        UntaggedQueue { base_msn: FIRST_MSN, buffers: BTreeMap::new() }
    }
}

/// Where a segment's payload goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// A tagged segment with payload: `len` octets at `offset` from the start of the region that
    /// `stag` names (`offset = TO - base`).
    Tagged {
        /// The STag.
        stag: u32,
        /// Octet offset in the region.
        offset: u64,
        /// Payload length.
        len: u64,
        /// The segment's L bit.
        last: bool,
    },
    /// A zero-length tagged segment: nothing is placed and nothing was checked (STag 0 and any TO
    /// are legal; MPA revision 2 uses such segments as ready-to-receive messages).
    TaggedEmpty {
        /// The STag carried.
        stag: u32,
        /// The TO carried.
        to: u64,
        /// The segment's L bit.
        last: bool,
    },
    /// An untagged segment: `len` octets at offset `mo` of the buffer posted for (`qn`, `msn`).
    Untagged {
        /// Queue.
        qn: u32,
        /// Message.
        msn: u32,
        /// Offset in the message's buffer.
        mo: u32,
        /// Payload length.
        len: u64,
        /// The segment's L bit: the message's last segment.
        last: bool,
    },
}

/// Why a tagged access is refused (the cause; the Terminate code depends on who asks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaggedFault {
    /// No region has this STag, or it is marked invalid.
    InvalidStag,
    /// The region belongs to another protection domain.
    NotAssociated,
    /// The region lacks the access right the operation needs.
    AccessRights,
    /// The segment's last octet, TO + length - 1, lies beyond 2^64 - 1.
    ToWrap,
    /// `[TO, TO + length)` is not inside `[base, base + len)`.
    BaseBounds,
}

/// Why an untagged segment cannot be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UntaggedFault {
    /// No such queue.
    InvalidQn,
    /// The MSN is outside the queue's window.
    MsnOutOfRange,
    /// The MSN is in the window but no buffer is posted for it.
    NoBuffer,
    /// MO lies beyond the end of the buffer.
    InvalidMo,
    /// MO is inside the buffer but MO + length runs past its end.
    MessageTooLong,
}

/// A refused placement, with the fields that caused it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlacementError {
    /// A tagged segment was refused.
    Tagged {
        /// STag.
        stag: u32,
        /// TO.
        to: u64,
        /// Payload length.
        len: u64,
        /// Cause.
        fault: TaggedFault,
    },
    /// An untagged segment was refused.
    Untagged {
        /// QN.
        qn: u32,
        /// MSN.
        msn: u32,
        /// MO.
        mo: u32,
        /// Payload length.
        len: u64,
        /// Cause.
        fault: UntaggedFault,
    },
}

impl PlacementError {
    /// The Terminate code (DDP layer): tagged 1/1/0 invalid STag (also for missing access rights,
    /// as siw does: DDP has no access-rights code), 1/1/1 bounds, 1/1/2 not associated, 1/1/3 TO
    /// wrap; untagged 1/2/1 QN, 1/2/2 no buffer, 1/2/3 MSN range, 1/2/4 MO, 1/2/5 too long.
    pub fn terminate(&self) -> TerminateCode {
        match self {
            PlacementError::Tagged { fault, .. } => match fault {
                TaggedFault::InvalidStag | TaggedFault::AccessRights => {
                    TerminateCode::DDP_TAGGED_INVALID_STAG
                }
                TaggedFault::BaseBounds => TerminateCode::DDP_TAGGED_BASE_BOUNDS,
                TaggedFault::NotAssociated => TerminateCode::DDP_TAGGED_STAG_NOT_ASSOCIATED,
                TaggedFault::ToWrap => TerminateCode::DDP_TAGGED_TO_WRAP,
            },
            PlacementError::Untagged { fault, .. } => match fault {
                UntaggedFault::InvalidQn => TerminateCode::DDP_UNTAGGED_INVALID_QN,
                UntaggedFault::NoBuffer => TerminateCode::DDP_UNTAGGED_NO_BUFFER,
                UntaggedFault::MsnOutOfRange => TerminateCode::DDP_UNTAGGED_MSN_RANGE,
                UntaggedFault::InvalidMo => TerminateCode::DDP_UNTAGGED_INVALID_MO,
                UntaggedFault::MessageTooLong => TerminateCode::DDP_UNTAGGED_TOO_LONG,
            },
        }
    }
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::Tagged { stag, to, len, fault } => write!(
                f,
                "tagged segment STag {stag:#010x} TO {to:#x} length {len}: {fault:?} [{}]",
                self.terminate()
            ),
            PlacementError::Untagged { qn, msn, mo, len, fault } => write!(
                f,
                "untagged segment QN {qn} MSN {msn} MO {mo} length {len}: {fault:?} [{}]",
                self.terminate()
            ),
        }
    }
}

impl std::error::Error for PlacementError {}

/// The responder-side check of an RDMA Read Request's data source failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReadSourceError {
    /// Data Source STag.
    pub stag: u32,
    /// Data Source TO.
    pub to: u64,
    /// Read size.
    pub size: u32,
    /// Cause.
    pub fault: TaggedFault,
}

impl ReadSourceError {
    /// The Terminate code (RDMAP remote protection errors, layer 0 type 1): 0 invalid STag,
    /// 1 bounds, 2 access rights, 3 not associated, 4 TO wrap.
    pub fn terminate(&self) -> TerminateCode {
        match self.fault {
            TaggedFault::InvalidStag => TerminateCode::RDMAP_INVALID_STAG,
            TaggedFault::BaseBounds => TerminateCode::RDMAP_BASE_BOUNDS,
            TaggedFault::AccessRights => TerminateCode::RDMAP_ACCESS_RIGHTS,
            TaggedFault::NotAssociated => TerminateCode::RDMAP_STAG_NOT_ASSOCIATED,
            TaggedFault::ToWrap => TerminateCode::RDMAP_TO_WRAP,
        }
    }
}

impl fmt::Display for ReadSourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read source STag {:#010x} TO {:#x} size {}: {:?} [{}]",
            self.stag,
            self.to,
            self.size,
            self.fault,
            self.terminate()
        )
    }
}

impl std::error::Error for ReadSourceError {}

/// The placement state of one DDP stream: the STag table it may use and its untagged queues.
///
/// [`PlacementModel::place`] is a pure function of this state and one segment; the caller
/// mutates the state (registering, invalidating, posting, retiring) as the consumer would.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementModel {
    /// The stream's protection domain: regions of other domains are "not associated".
    pub pd: u32,
    /// MSN window per queue: an MSN is in range when `msn - base_msn` (modulo 2^32) is below it.
    pub msn_window: u32,
    regions: BTreeMap<u32, Region>,
    queues: BTreeMap<u32, UntaggedQueue>,
}

impl PlacementModel {
    /// A stream in protection domain `pd` with the three RDMAP queues (QN 0, 1, 2), each
    /// expecting MSN 1 first, no buffers posted and no regions registered.
    pub fn new(pd: u32, msn_window: u32) -> Self {
        let queues = [QN_SEND, QN_READ_REQUEST, QN_TERMINATE]
            .into_iter()
            .map(|qn| (qn, UntaggedQueue::default()))
            .collect();
        PlacementModel { pd, msn_window, regions: BTreeMap::new(), queues }
    }

    /// Registers (or replaces) the region `stag` names; returns the previous entry.
    pub fn register(&mut self, stag: u32, region: Region) -> Option<Region> {
        self.regions.insert(stag, region)
    }

    /// Removes the region `stag` names.
    pub fn deregister(&mut self, stag: u32) -> Option<Region> {
        self.regions.remove(&stag)
    }

    /// Marks `stag` invalid (Send with Invalidate, local invalidate). False if unknown.
    pub fn invalidate(&mut self, stag: u32) -> bool {
        match self.regions.get_mut(&stag) {
            Some(r) => {
                r.valid = false;
                true
            }
            None => false,
        }
    }

    /// Whether a Send with Invalidate arriving on this stream may invalidate `stag` (RFC 5040:
    /// the STag must be valid and belong to the stream's protection domain). The Terminate code
    /// when it may not, as Linux siw reports it: RDMAP 0/2/9 (cannot invalidate) for an STag
    /// that is unknown or already invalid, 0/1/9 for one of another protection domain.
    pub fn check_invalidate(&self, stag: u32) -> Result<(), TerminateCode> {
        match self.regions.get(&stag) {
            Some(r) if r.valid && r.pd == self.pd => Ok(()),
            Some(r) if r.valid => Err(TerminateCode::RDMAP_CANNOT_INVALIDATE_PROTECTION),
            _ => Err(TerminateCode::RDMAP_CANNOT_INVALIDATE),
        }
    }

    /// The region `stag` names.
    pub fn region(&self, stag: u32) -> Option<&Region> {
        self.regions.get(&stag)
    }

    /// Adds an (empty) untagged queue `qn`, MSN base 1; an existing queue is left unchanged.
    pub fn add_queue(&mut self, qn: u32) {
        self.queues.entry(qn).or_default();
    }

    /// Removes queue `qn`, making it invalid.
    pub fn remove_queue(&mut self, qn: u32) -> Option<UntaggedQueue> {
        self.queues.remove(&qn)
    }

    /// Queue `qn`.
    pub fn queue(&self, qn: u32) -> Option<&UntaggedQueue> {
        self.queues.get(&qn)
    }

    /// Queue `qn`, mutable (to load a window base or a buffer set directly).
    pub fn queue_mut(&mut self, qn: u32) -> Option<&mut UntaggedQueue> {
        self.queues.get_mut(&qn)
    }

    /// Posts a buffer of `len` octets for message `msn` of queue `qn` (replacing any posted for
    /// that MSN). Fails with [`UntaggedFault::InvalidQn`] when the queue does not exist.
    pub fn post_buffer(&mut self, qn: u32, msn: u32, len: u64) -> Result<(), UntaggedFault> {
        let q = self.queues.get_mut(&qn).ok_or(UntaggedFault::InvalidQn)?;
        q.buffers.insert(msn, len);
        Ok(())
    }

    /// Completes the oldest message of queue `qn`: removes the buffer posted for its base MSN
    /// (returned) and advances the base by one (modulo 2^32). `None` if the queue does not exist.
    pub fn retire(&mut self, qn: u32) -> Option<Option<u64>> {
        let q = self.queues.get_mut(&qn)?;
        let buffer = q.buffers.remove(&q.base_msn);
        q.base_msn = q.base_msn.wrapping_add(1);
        Some(buffer)
    }

    /// Where `segment`'s payload goes, or the error a receiver terminates with.
    ///
    /// Tagged (zero-length payload: [`Placement::TaggedEmpty`] with no checks at all), in order:
    /// STag known and valid ([`TaggedFault::InvalidStag`]); region's PD is the stream's
    /// ([`TaggedFault::NotAssociated`]); remote write allowed ([`TaggedFault::AccessRights`]; RDMA
    /// Write and RDMA Read Response both write into local memory); the last octet TO + length - 1
    /// fits in 64 bits ([`TaggedFault::ToWrap`]); `base <= TO` and `TO - base + length <= len`
    /// ([`TaggedFault::BaseBounds`]). Ending exactly at the region's end is inside.
    ///
    /// Untagged, in order: the queue exists ([`UntaggedFault::InvalidQn`]); MSN within the window
    /// ([`UntaggedFault::MsnOutOfRange`]); a buffer is posted for the MSN
    /// ([`UntaggedFault::NoBuffer`]); `MO <= buffer length` ([`UntaggedFault::InvalidMo`]);
    /// `MO + length <= buffer length` ([`UntaggedFault::MessageTooLong`]). A zero-length untagged
    /// segment still needs its buffer (a zero-length Send consumes a receive buffer).
    ///
    /// The segment is expected to have passed [`DdpSegment::validate`]; placement looks only at
    /// the DDP fields.
    pub fn place(&self, segment: &DdpSegment) -> Result<Placement, PlacementError> {
        self.place_len(segment, segment.payload().len() as u64)
    }

    /// [`PlacementModel::place`] for a segment whose payload is `len` octets long; the payload
    /// carried by `segment` is not looked at. A receiver that keeps only the header of a
    /// segment it placed earlier checks it again this way.
    pub fn place_len(&self, segment: &DdpSegment, len: u64) -> Result<Placement, PlacementError> {
        match segment {
            DdpSegment::Tagged { header, .. } => {
                let (stag, to, last) = (header.stag, header.to, header.control.last);
                if len == 0 {
                    return Ok(Placement::TaggedEmpty { stag, to, last });
                }
                let offset = self
                    .check_tagged(stag, to, len, |a| a.remote_write)
                    .map_err(|fault| PlacementError::Tagged { stag, to, len, fault })?;
                Ok(Placement::Tagged { stag, offset, len, last })
            }
            DdpSegment::Untagged { header, .. } => {
                let (qn, msn, mo) = (header.qn, header.msn, header.mo);
                let err = |fault| PlacementError::Untagged { qn, msn, mo, len, fault };
                let q = self.queues.get(&qn).ok_or(err(UntaggedFault::InvalidQn))?;
                if msn.wrapping_sub(q.base_msn) >= self.msn_window {
                    return Err(err(UntaggedFault::MsnOutOfRange));
                }
                let buf = *q.buffers.get(&msn).ok_or(err(UntaggedFault::NoBuffer))?;
                if u64::from(mo) > buf {
                    return Err(err(UntaggedFault::InvalidMo));
                }
                match u64::from(mo).checked_add(len) {
                    Some(end) if end <= buf => {}
                    _ => return Err(err(UntaggedFault::MessageTooLong)),
                }
                Ok(Placement::Untagged { qn, msn, mo, len, last: header.control.last })
            }
        }
    }

    /// The responder's check of an RDMA Read Request's data source (remote read right, same
    /// order as the tagged checks of [`PlacementModel::place`]). Returns the octet offset of the
    /// source in its region. A zero-size read is not checked (`Ok(0)`).
    pub fn check_read_source(&self, request: &ReadRequestHeader) -> Result<u64, ReadSourceError> {
        let (stag, to, size) = (request.source_stag, request.source_to, request.size);
        if size == 0 {
            return Ok(0);
        }
        self.check_tagged(stag, to, u64::from(size), |a| a.remote_read)
            .map_err(|fault| ReadSourceError { stag, to, size, fault })
    }

    /// The tagged checks; returns the offset of `to` in the region.
    fn check_tagged(
        &self,
        stag: u32,
        to: u64,
        len: u64,
        allowed: impl Fn(&Access) -> bool,
    ) -> Result<u64, TaggedFault> {
        let region = match self.regions.get(&stag) {
            Some(r) if r.valid => r,
            _ => return Err(TaggedFault::InvalidStag),
        };
        if region.pd != self.pd {
            return Err(TaggedFault::NotAssociated);
        }
        if !allowed(&region.access) {
            return Err(TaggedFault::AccessRights);
        }
        // The last octet is at TO + len - 1 (len > 0 here): a segment ending exactly at 2^64
        // does not wrap.
        if to.checked_add(len.saturating_sub(1)).is_none() {
            return Err(TaggedFault::ToWrap);
        }
        let offset = to.checked_sub(region.base).ok_or(TaggedFault::BaseBounds)?;
        match region.len.checked_sub(offset) {
            Some(room) if len <= room => Ok(offset),
            _ => Err(TaggedFault::BaseBounds),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The `N` octets of `bytes` starting at `at`, or `Truncated`.
fn take<const N: usize>(bytes: &[u8], at: usize) -> Result<[u8; N], DdpError> {
    at.checked_add(N)
        .and_then(|end| bytes.get(at..end))
        .and_then(|s| s.try_into().ok())
        .ok_or(DdpError::Truncated { needed: at.saturating_add(N), got: bytes.len() })
}

fn be32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(b);
    u32::from_be_bytes(a)
}

fn be64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    u64::from_be_bytes(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_octets_of_figure5_and_the_rdmac_draft() {
        let c = DdpControl::decode(0x41);
        assert_eq!(c, DdpControl { tagged: false, last: true, reserved: 0, version: 1 });
        let r = RdmapControl::decode(0x43);
        assert_eq!(r, RdmapControl { version: 1, reserved: 0, opcode: Opcode::Send });
        assert_eq!(DdpControl::decode(0x40).version, 0);
        assert_eq!(RdmapControl::decode(0x03).version, 0);
    }

    #[test]
    fn every_control_octet_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(DdpControl::decode(b).encode(), b);
            assert_eq!(RdmapControl::decode(b).encode(), b);
        }
    }
}
