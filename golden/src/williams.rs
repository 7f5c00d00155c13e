//! The RDMA/TCP segment format of draft-williams-rdmatcp-00 (September 2000): encode, decode,
//! validation, and framing recovery after a loss (draft section 5).
//!
//! # Segment layout (section 3; all multi-octet fields big-endian)
//!
//! ```text
//! 0      Version (1)
//! 1      res(4 bits, client use) B(0x08) E(0x04) type(0x03)
//! 2..4   Segment Length
//! 4..12  Connection ID (64 bits)
//! 12..16 Message Number
//! 16..18 order
//! 18     res.
//! 19     CLEN (control data length in 32-bit words)
//! Send, RDMA_Read_Response:      20..24 Data Offset                          (header 24 octets)
//! RDMA_Write, RDMA_Read_Request: 20..24 RDMA Buffer ID, 24..28 RDMA Buffer offset,
//!                                28..32 RDMA Length                           (header 32 octets)
//! then CLEN*4 octets of control data, the payload (none for RDMA_Read_Request),
//! 0..3 octets of zero padding to a multiple of 4, and the CRC-32 (4 octets).
//! ```
//!
//! Segment Length counts the header, control data and payload: everything before the padding.
//! The segment occupies `round_up_4(Segment Length) + 4` octets of the TCP stream (section 5).
//!
//! # Readings of the draft (decisions where it is silent)
//! - **CRC coverage.** "calculated across the entire segment": the padding exists "to make the
//!   segment a multiple of 4 bytes in length", so it is part of the segment and the CRC covers
//!   every octet from the Version octet through the last padding octet (everything before the CRC
//!   field), as MPA's CRC covers its PAD. A receiver computes it over the padding octets as
//!   received, whatever their value; their value is otherwise ignored ("ignored by the receiver").
//! - **CRC byte order.** "exactly that used for the ethernet CRC except that a different generator
//!   polynomial is used": the reflected algorithm, init and final xor all ones
//!   ([`crate::crc::CRC32_WILLIAMS`]), and the field carries the value least significant octet
//!   first, as Ethernet transmits its FCS ([`crate::crc::CrcDef::wire_bytes`]).
//! - **Type.** The field is 2 bits and all four values are assigned (0 Send, 1 RDMA_Write,
//!   2 RDMA_Read_Request, 3 RDMA_Read_Response), so no segment has an unknown type.
//! - **Per-segment MUSTs that the header alone shows** are checked on decode and refused on
//!   encode: an RDMA_Read_Request is exactly one segment (B and E set) without payload; the first
//!   segment of a Send or RDMA_Read_Response (B set) has Data Offset 0.
//! - **Reserved fields** (the 4 `res` bits, the `res.` octet) "may be used by the client
//!   protocol": carried through unchanged, never checked.
//!
//! # Framing recovery (section 5)
//! In order, segment boundaries follow from the length chain ([`next_segment_start`], [`walk`]).
//! After a loss the draft's recommended method is to assume that an RDMA segment starts at the
//! first octet of a TCP segment, check the header fields there (the random 64-bit Connection ID
//! above all; message number, CRC and other fields add confidence), and if they do not check out,
//! fall back to buffering the TCP segment until it can be processed in order:
//! [`recover_at_tcp_segment`]. [`scan_for_segment`] goes further than the draft and tries every
//! 4-octet-aligned stream position in a block of received data, with the same checks.

#![warn(missing_docs)]

use crate::crc::CRC32_WILLIAMS;
use std::fmt;

/// The only version this draft defines.
pub const VERSION: u8 = 1;
/// Octets common to all four headers (Version through CLEN).
pub const COMMON_HEADER_LEN: usize = 20;
/// Header length of Send and RDMA_Read_Response (common part + Data Offset).
pub const OFFSET_HEADER_LEN: usize = 24;
/// Header length of RDMA_Write and RDMA_Read_Request (common part + Buffer ID, offset, Length).
pub const RDMA_HEADER_LEN: usize = 32;
/// CRC field length.
pub const CRC_LEN: usize = 4;
/// Largest Segment Length (a 16-bit field).
pub const MAX_SEGMENT_LENGTH: usize = u16::MAX as usize;
/// Largest control data length in 32-bit words (CLEN is 8 bits).
pub const MAX_CONTROL_WORDS: usize = u8::MAX as usize;
/// The order value meaning "may be done immediately when received, unconditionally".
pub const ORDER_UNCONDITIONAL: u16 = 0xFFFF;

/// B bit in octet 1.
const B_BIT: u8 = 0x08;
/// E bit in octet 1.
const E_BIT: u8 = 0x04;
/// Type field in octet 1.
const TYPE_MASK: u8 = 0x03;

/// The four message types (the 2-bit type field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageType {
    /// 0: Send.
    Send,
    /// 1: RDMA_Write.
    RdmaWrite,
    /// 2: RDMA_Read_Request.
    RdmaReadRequest,
    /// 3: RDMA_Read_Response.
    RdmaReadResponse,
}

impl MessageType {
    /// All four, in numeric order.
    pub const ALL: [MessageType; 4] = [
        MessageType::Send,
        MessageType::RdmaWrite,
        MessageType::RdmaReadRequest,
        MessageType::RdmaReadResponse,
    ];

    /// The type of the low two bits of `bits` (every value is assigned).
    pub fn from_bits(bits: u8) -> Self {
        match bits & TYPE_MASK {
            0 => MessageType::Send,
            1 => MessageType::RdmaWrite,
            2 => MessageType::RdmaReadRequest,
            _ => MessageType::RdmaReadResponse,
        }
    }

    /// The 2-bit value.
    pub fn bits(self) -> u8 {
        match self {
            MessageType::Send => 0,
            MessageType::RdmaWrite => 1,
            MessageType::RdmaReadRequest => 2,
            MessageType::RdmaReadResponse => 3,
        }
    }

    /// Header length for this type: 24 (Data Offset) or 32 (Buffer ID, offset, Length).
    pub fn header_len(self) -> usize {
        match self {
            MessageType::Send | MessageType::RdmaReadResponse => OFFSET_HEADER_LEN,
            MessageType::RdmaWrite | MessageType::RdmaReadRequest => RDMA_HEADER_LEN,
        }
    }
}

/// The type-specific header fields, which also fix the message type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeFields {
    /// Send.
    Send {
        /// Payload octets sent in the message's earlier segments (control data not counted).
        data_offset: u32,
    },
    /// RDMA_Write.
    RdmaWrite {
        /// Target buffer (constant over the message).
        buffer_id: u32,
        /// Target offset of this segment's payload (advances by the octets sent).
        buffer_offset: u32,
        /// Total octets of the whole message (repeated in every segment).
        length: u32,
    },
    /// RDMA_Read_Request.
    RdmaReadRequest {
        /// Source buffer to read.
        buffer_id: u32,
        /// Source offset.
        buffer_offset: u32,
        /// Octets to read.
        length: u32,
    },
    /// RDMA_Read_Response.
    RdmaReadResponse {
        /// Payload octets sent in the response's earlier segments.
        data_offset: u32,
    },
}

impl TypeFields {
    /// The message type these fields belong to.
    pub fn message_type(&self) -> MessageType {
        match self {
            TypeFields::Send { .. } => MessageType::Send,
            TypeFields::RdmaWrite { .. } => MessageType::RdmaWrite,
            TypeFields::RdmaReadRequest { .. } => MessageType::RdmaReadRequest,
            TypeFields::RdmaReadResponse { .. } => MessageType::RdmaReadResponse,
        }
    }

    /// The Data Offset of a Send or RDMA_Read_Response.
    pub fn data_offset(&self) -> Option<u32> {
        match *self {
            TypeFields::Send { data_offset } | TypeFields::RdmaReadResponse { data_offset } => {
                Some(data_offset)
            }
            _ => None,
        }
    }

    fn encode_into(&self, out: &mut Vec<u8>) {
        match *self {
            TypeFields::Send { data_offset } | TypeFields::RdmaReadResponse { data_offset } => {
                out.extend_from_slice(&data_offset.to_be_bytes())
            }
            TypeFields::RdmaWrite { buffer_id, buffer_offset, length }
            | TypeFields::RdmaReadRequest { buffer_id, buffer_offset, length } => {
                out.extend_from_slice(&buffer_id.to_be_bytes());
                out.extend_from_slice(&buffer_offset.to_be_bytes());
                out.extend_from_slice(&length.to_be_bytes());
            }
        }
    }
}

/// The fixed header of a segment, as read off the wire before the control data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The 4 `res` bits of octet 1 (client protocol use), right-aligned.
    pub reserved: u8,
    /// B: first segment of its message.
    pub begin: bool,
    /// E: last segment of its message.
    pub end: bool,
    /// Segment Length: header + control data + payload octets.
    pub segment_length: u16,
    /// Connection ID.
    pub connection_id: u64,
    /// Message Number.
    pub message_number: u32,
    /// Ordering requirement ([`ORDER_UNCONDITIONAL`] = none).
    pub order: u16,
    /// The `res.` octet 18 (client protocol use).
    pub reserved_octet: u8,
    /// Control data length in 32-bit words.
    pub clen: u8,
    /// Type-specific fields.
    pub fields: TypeFields,
}

impl Header {
    /// Reads and checks the header at the start of `bytes` (which may hold more). Checks, in
    /// order: the common 20 octets are present ([`WilliamsError::Truncated`]); Version is 1
    /// ([`WilliamsError::Version`]); the type's header is present (`Truncated`); Segment Length
    /// covers the header ([`WilliamsError::LengthBelowHeader`]) and the control data
    /// ([`WilliamsError::ControlOverrun`]); an RDMA_Read_Request has no payload
    /// ([`WilliamsError::ReadRequestPayload`]) and both B and E
    /// ([`WilliamsError::ReadRequestNotSingleSegment`]); a Send or RDMA_Read_Response with B has
    /// Data Offset 0 ([`WilliamsError::BeginWithOffset`]).
    pub fn parse(bytes: &[u8]) -> Result<Header, WilliamsError> {
        need(bytes, COMMON_HEADER_LEN)?;
        if bytes[0] != VERSION {
            return Err(WilliamsError::Version(bytes[0]));
        }
        let ty = MessageType::from_bits(bytes[1]);
        let header_len = ty.header_len();
        need(bytes, header_len)?;
        let word = |at: usize| {
            u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let fields = match ty {
            MessageType::Send => TypeFields::Send { data_offset: word(20) },
            MessageType::RdmaReadResponse => TypeFields::RdmaReadResponse { data_offset: word(20) },
            MessageType::RdmaWrite => TypeFields::RdmaWrite {
                buffer_id: word(20),
                buffer_offset: word(24),
                length: word(28),
            },
            MessageType::RdmaReadRequest => TypeFields::RdmaReadRequest {
                buffer_id: word(20),
                buffer_offset: word(24),
                length: word(28),
            },
        };
        let header = Header {
            reserved: bytes[1] >> 4,
            begin: bytes[1] & B_BIT != 0,
            end: bytes[1] & E_BIT != 0,
            segment_length: u16::from_be_bytes([bytes[2], bytes[3]]),
            connection_id: u64::from_be_bytes([
                bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
            ]),
            message_number: word(12),
            order: u16::from_be_bytes([bytes[16], bytes[17]]),
            reserved_octet: bytes[18],
            clen: bytes[19],
            fields,
        };
        header.check()?;
        Ok(header)
    }

    /// The length and per-type rules of [`Header::parse`] (after the Version check).
    fn check(&self) -> Result<(), WilliamsError> {
        let seg_len = usize::from(self.segment_length);
        let header_len = self.message_type().header_len();
        if seg_len < header_len {
            return Err(WilliamsError::LengthBelowHeader {
                segment_length: self.segment_length,
                header_len,
            });
        }
        let with_control = self.payload_start();
        if seg_len < with_control {
            return Err(WilliamsError::ControlOverrun {
                segment_length: self.segment_length,
                header_and_control: with_control,
            });
        }
        if let TypeFields::RdmaReadRequest { .. } = self.fields {
            if seg_len != with_control {
                return Err(WilliamsError::ReadRequestPayload {
                    payload_len: seg_len - with_control,
                });
            }
            if !(self.begin && self.end) {
                return Err(WilliamsError::ReadRequestNotSingleSegment {
                    begin: self.begin,
                    end: self.end,
                });
            }
        }
        match self.fields.data_offset() {
            Some(data_offset) if self.begin && data_offset != 0 => {
                Err(WilliamsError::BeginWithOffset { data_offset })
            }
            _ => Ok(()),
        }
    }

    /// The message type.
    pub fn message_type(&self) -> MessageType {
        self.fields.message_type()
    }

    /// Octets before the payload: header plus control data.
    pub fn payload_start(&self) -> usize {
        self.message_type().header_len() + 4 * usize::from(self.clen)
    }

    /// Octets covered by the CRC: Segment Length rounded up to a multiple of 4 (padding
    /// included).
    pub fn crc_offset(&self) -> usize {
        padded(usize::from(self.segment_length))
    }

    /// Octets the segment occupies in the TCP stream: padded Segment Length plus the CRC.
    pub fn wire_len(&self) -> usize {
        self.crc_offset() + CRC_LEN
    }
}

/// One RDMA segment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// The 4 `res` bits of octet 1 (client protocol use), right-aligned; encoded modulo 16.
    pub reserved: u8,
    /// B: first segment of its message.
    pub begin: bool,
    /// E: last segment of its message.
    pub end: bool,
    /// Connection ID.
    pub connection_id: u64,
    /// Message Number.
    pub message_number: u32,
    /// Ordering requirement.
    pub order: u16,
    /// The `res.` octet 18.
    pub reserved_octet: u8,
    /// Type-specific fields (fix the message type).
    pub fields: TypeFields,
    /// Control data: a multiple of 4 octets, at most 255 words.
    pub control: Vec<u8>,
    /// Payload data (empty for RDMA_Read_Request).
    pub payload: Vec<u8>,
}

impl Segment {
    /// The message type.
    pub fn message_type(&self) -> MessageType {
        self.fields.message_type()
    }

    /// The Segment Length this segment encodes with (header + control + payload).
    pub fn segment_length(&self) -> usize {
        self.message_type().header_len() + self.control.len() + self.payload.len()
    }

    /// Octets on the wire: padded Segment Length plus the CRC.
    pub fn wire_len(&self) -> usize {
        padded(self.segment_length()) + CRC_LEN
    }

    /// The wire octets: header, control data, payload, zero padding, CRC-32 (LSB first, over
    /// everything before it). Refuses what a receiver would refuse: control data not a whole
    /// number of words or over 255 words, Segment Length over 65535, an RDMA_Read_Request with
    /// payload or without B and E, a first Send/RDMA_Read_Response segment with a Data Offset.
    pub fn encode(&self) -> Result<Vec<u8>, WilliamsError> {
        if self.control.len() % 4 != 0 {
            return Err(WilliamsError::ControlNotWords { len: self.control.len() });
        }
        let clen = self.control.len() / 4;
        if clen > MAX_CONTROL_WORDS {
            return Err(WilliamsError::ControlTooLong { words: clen });
        }
        let seg_len = self.segment_length();
        if seg_len > MAX_SEGMENT_LENGTH {
            return Err(WilliamsError::SegmentTooLong { segment_length: seg_len });
        }
        let header = Header {
            reserved: self.reserved & 0x0F,
            begin: self.begin,
            end: self.end,
            segment_length: seg_len as u16,
            connection_id: self.connection_id,
            message_number: self.message_number,
            order: self.order,
            reserved_octet: self.reserved_octet,
            clen: clen as u8,
            fields: self.fields,
        };
        header.check()?;
        let mut out = Vec::with_capacity(header.wire_len());
        out.push(VERSION);
        out.push(
            (header.reserved << 4)
                | if self.begin { B_BIT } else { 0 }
                | if self.end { E_BIT } else { 0 }
                | self.message_type().bits(),
        );
        out.extend_from_slice(&header.segment_length.to_be_bytes());
        out.extend_from_slice(&self.connection_id.to_be_bytes());
        out.extend_from_slice(&self.message_number.to_be_bytes());
        out.extend_from_slice(&self.order.to_be_bytes());
        out.push(self.reserved_octet);
        out.push(header.clen);
        self.fields.encode_into(&mut out);
        out.extend_from_slice(&self.control);
        out.extend_from_slice(&self.payload);
        out.resize(header.crc_offset(), 0);
        let crc = crc_field(&out);
        out.extend_from_slice(&crc);
        Ok(out)
    }

    /// Decodes the segment at the start of `bytes` (which may hold more of the stream) and
    /// returns it with its wire length. Header checks as [`Header::parse`]; then the whole
    /// segment must be present (`Truncated`) and its CRC must match
    /// ([`WilliamsError::CrcMismatch`]). Padding octets are not checked.
    pub fn decode(bytes: &[u8]) -> Result<(Segment, usize), WilliamsError> {
        let header = Header::parse(bytes)?;
        Self::decode_after_header(bytes, &header)
    }

    fn decode_after_header(bytes: &[u8], h: &Header) -> Result<(Segment, usize), WilliamsError> {
        let wire_len = h.wire_len();
        need(bytes, wire_len)?;
        let crc_at = h.crc_offset();
        let computed = CRC32_WILLIAMS.checksum(&bytes[..crc_at]);
        let carried = CRC32_WILLIAMS.from_wire_bytes([
            bytes[crc_at],
            bytes[crc_at + 1],
            bytes[crc_at + 2],
            bytes[crc_at + 3],
        ]);
        if carried != computed {
            return Err(WilliamsError::CrcMismatch { carried, computed });
        }
        let header_len = h.message_type().header_len();
        let payload_start = h.payload_start();
        let segment = Segment {
            reserved: h.reserved,
            begin: h.begin,
            end: h.end,
            connection_id: h.connection_id,
            message_number: h.message_number,
            order: h.order,
            reserved_octet: h.reserved_octet,
            fields: h.fields,
            control: bytes[header_len..payload_start].to_vec(),
            payload: bytes[payload_start..usize::from(h.segment_length)].to_vec(),
        };
        Ok((segment, wire_len))
    }
}

/// The CRC field for `covered` (the segment from its first octet through its padding):
/// [`CRC32_WILLIAMS`], least significant octet first.
pub fn crc_field(covered: &[u8]) -> [u8; 4] {
    CRC32_WILLIAMS.wire_bytes(CRC32_WILLIAMS.checksum(covered))
}

/// Why octets are not a valid segment (or a segment cannot be encoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WilliamsError {
    /// Fewer octets than the header or the whole segment needs.
    Truncated {
        /// Octets needed from the segment start.
        needed: usize,
        /// Octets present.
        got: usize,
    },
    /// Version is not 1.
    Version(u8),
    /// Segment Length is smaller than the header of the segment's type.
    LengthBelowHeader {
        /// Segment Length received.
        segment_length: u16,
        /// Header length of the type.
        header_len: usize,
    },
    /// Segment Length is smaller than the header plus CLEN words of control data.
    ControlOverrun {
        /// Segment Length received.
        segment_length: u16,
        /// Header plus control data octets.
        header_and_control: usize,
    },
    /// An RDMA_Read_Request with payload octets.
    ReadRequestPayload {
        /// Payload octets.
        payload_len: usize,
    },
    /// An RDMA_Read_Request without both B and E (it is always exactly one segment).
    ReadRequestNotSingleSegment {
        /// B received.
        begin: bool,
        /// E received.
        end: bool,
    },
    /// The first segment (B) of a Send or RDMA_Read_Response with a non-zero Data Offset.
    BeginWithOffset {
        /// Data Offset received.
        data_offset: u32,
    },
    /// The CRC field does not match the CRC of the segment.
    CrcMismatch {
        /// Value carried in the CRC field.
        carried: u32,
        /// Value computed over the segment.
        computed: u32,
    },
    /// The Connection ID is not the connection's.
    ConnectionId {
        /// The connection's ID.
        expected: u64,
        /// The ID received.
        found: u64,
    },
    /// The Message Number is outside the window the receiver expects.
    MessageNumber {
        /// The number received.
        found: u32,
    },
    /// Encode: control data is not a whole number of 32-bit words.
    ControlNotWords {
        /// Control data octets.
        len: usize,
    },
    /// Encode: more than 255 words of control data.
    ControlTooLong {
        /// Control data words.
        words: usize,
    },
    /// Encode: Segment Length would exceed 65535.
    SegmentTooLong {
        /// Header + control + payload octets.
        segment_length: usize,
    },
}

impl fmt::Display for WilliamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WilliamsError::Truncated { needed, got } => {
                write!(f, "truncated segment: {needed} octets needed, {got} present")
            }
            WilliamsError::Version(v) => write!(f, "version {v} (only 1 is defined)"),
            WilliamsError::LengthBelowHeader { segment_length, header_len } => {
                write!(f, "Segment Length {segment_length} is below the {header_len}-octet header")
            }
            WilliamsError::ControlOverrun { segment_length, header_and_control } => write!(
                f,
                "Segment Length {segment_length} is below header plus control data \
                 ({header_and_control} octets)"
            ),
            WilliamsError::ReadRequestPayload { payload_len } => {
                write!(f, "RDMA_Read_Request carries {payload_len} payload octets")
            }
            WilliamsError::ReadRequestNotSingleSegment { begin, end } => {
                write!(f, "RDMA_Read_Request with B={begin} E={end} (must be one segment)")
            }
            WilliamsError::BeginWithOffset { data_offset } => {
                write!(f, "first segment of a message with Data Offset {data_offset}")
            }
            WilliamsError::CrcMismatch { carried, computed } => {
                write!(f, "CRC mismatch: carried {carried:#010x}, computed {computed:#010x}")
            }
            WilliamsError::ConnectionId { expected, found } => {
                write!(f, "Connection ID {found:#018x}, expected {expected:#018x}")
            }
            WilliamsError::MessageNumber { found } => {
                write!(f, "Message Number {found} outside the expected window")
            }
            WilliamsError::ControlNotWords { len } => {
                write!(f, "{len} octets of control data is not a whole number of words")
            }
            WilliamsError::ControlTooLong { words } => {
                write!(f, "{words} words of control data (CLEN is at most 255)")
            }
            WilliamsError::SegmentTooLong { segment_length } => {
                write!(f, "Segment Length {segment_length} exceeds 65535")
            }
        }
    }
}

impl std::error::Error for WilliamsError {}

// ---------------------------------------------------------------------------------------------
// Framing (section 5)
// ---------------------------------------------------------------------------------------------

/// The start of the segment after the one starting at `start`, by the length chain alone
/// (section 5: Segment Length rounded up to a multiple of four, plus four for the CRC). `None`
/// when the Segment Length field is not yet in `stream`. No other field is looked at.
pub fn next_segment_start(stream: &[u8], start: usize) -> Option<usize> {
    let at = start.checked_add(2)?;
    let len = stream.get(at..at.checked_add(2)?)?;
    let seg_len = usize::from(u16::from_be_bytes([len[0], len[1]]));
    start.checked_add(padded(seg_len) + CRC_LEN)
}

/// A segment found in a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Offset of its first octet in the searched slice.
    pub offset: usize,
    /// Its wire length (padding and CRC included).
    pub wire_len: usize,
    /// The segment.
    pub segment: Segment,
}

/// The result of [`walk`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The segments decoded, in stream order.
    pub segments: Vec<Located>,
    /// Offset of the first octet not consumed: the start of the next segment.
    pub end: usize,
    /// Why the walk stopped before the end of the data: `None` when it consumed everything,
    /// `Some(Truncated)` when a segment starts at `end` but is incomplete (wait for more data),
    /// another error when the segment at `end` is invalid (framing is lost there).
    pub stopped: Option<WilliamsError>,
}

/// Walks `stream` from the known segment start `start` along the length chain, decoding and
/// checking every segment (header rules, CRC) and its Connection ID: every segment must carry
/// `connection_id`, or, when `None`, the ID of the first segment walked (section 3.4: the client
/// chooses it in the first segment and both directions use it thereafter).
pub fn walk(stream: &[u8], start: usize, connection_id: Option<u64>) -> Walk {
    let mut expected = connection_id;
    let mut at = start;
    let mut segments = Vec::new();
    let mut stopped = None;
    while at < stream.len() {
        match Segment::decode(&stream[at..]) {
            Ok((segment, wire_len)) => {
                let id = segment.connection_id;
                match expected {
                    Some(e) if e != id => {
                        stopped = Some(WilliamsError::ConnectionId { expected: e, found: id });
                        break;
                    }
                    _ => expected = Some(id),
                }
                segments.push(Located { offset: at, wire_len, segment });
                at += wire_len;
            }
            Err(e) => {
                stopped = Some(e);
                break;
            }
        }
    }
    Walk { segments, end: at, stopped }
}

/// A window of acceptable Message Numbers: `first`, `first + 1`, ... `count` numbers in all,
/// modulo 2^32 (Message Numbers wrap from 2^32-1 to 0). Covers both the next numbers expected and
/// the numbers of outstanding RDMA_Read_Requests (which RDMA_Read_Responses repeat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageWindow {
    /// First acceptable number.
    pub first: u32,
    /// How many numbers are acceptable (0: none).
    pub count: u32,
}

impl MessageWindow {
    /// True when `n` is in the window.
    pub fn contains(&self, n: u32) -> bool {
        n.wrapping_sub(self.first) < self.count
    }
}

/// What a receiver knows when it tries to recover framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecoveryContext {
    /// The connection's ID (every valid segment carries it).
    pub connection_id: u64,
    /// Optional Message Number plausibility check ("Checking the message number ... only
    /// enhances the confidence").
    pub message_window: Option<MessageWindow>,
}

/// Checks a candidate segment start at the beginning of `bytes`, in the order section 5 gives:
/// the Connection ID first ([`WilliamsError::ConnectionId`]; `Truncated` if its 12 octets are not
/// all present), then the header rules of [`Header::parse`] (version, lengths, per-type rules),
/// then the Message Number window ([`WilliamsError::MessageNumber`]), then the whole segment and
/// its CRC. Returns the segment and its wire length.
pub fn check_candidate(
    bytes: &[u8],
    ctx: &RecoveryContext,
) -> Result<(Segment, usize), WilliamsError> {
    let header = check_candidate_header(bytes, ctx)?;
    Segment::decode_after_header(bytes, &header)
}

/// The checks of [`check_candidate`] before the CRC.
fn check_candidate_header(bytes: &[u8], ctx: &RecoveryContext) -> Result<Header, WilliamsError> {
    need(bytes, 12)?;
    let mut id = [0u8; 8];
    id.copy_from_slice(&bytes[4..12]);
    let found = u64::from_be_bytes(id);
    if found != ctx.connection_id {
        return Err(WilliamsError::ConnectionId { expected: ctx.connection_id, found });
    }
    let header = Header::parse(bytes)?;
    if let Some(w) = ctx.message_window {
        if !w.contains(header.message_number) {
            return Err(WilliamsError::MessageNumber { found: header.message_number });
        }
    }
    Ok(header)
}

/// The outcome of [`recover_at_tcp_segment`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpSegmentRecovery {
    /// An RDMA segment starts at the TCP segment's first octet and checks out, CRC included;
    /// the walk continues along the length chain through the rest of the TCP segment (its
    /// `end` / `stopped` tell where and why it stopped).
    Aligned(Walk),
    /// The header fields at the first octet check out but the RDMA segment continues beyond this
    /// TCP segment, so its CRC cannot be checked yet. `wire_len` is the octets it occupies.
    HeaderOnly {
        /// The header.
        header: Header,
        /// Wire length of the RDMA segment.
        wire_len: usize,
    },
    /// The header fields do not check out: buffer this TCP segment until it can be processed in
    /// order (the draft's fallback). The error says which check failed first.
    BufferUntilInOrder(WilliamsError),
}

/// Section 5's recommended recovery for a TCP segment that arrives after a gap: assume an RDMA
/// segment starts at its first octet (`tcp_payload[0]`), check the header there
/// ([`check_candidate`]: Connection ID first, then version, type and length plausibility, the
/// Message Number window if given, then the CRC), and otherwise fall back to buffering.
pub fn recover_at_tcp_segment(tcp_payload: &[u8], ctx: &RecoveryContext) -> TcpSegmentRecovery {
    let header = match check_candidate_header(tcp_payload, ctx) {
        Ok(h) => h,
        Err(e) => return TcpSegmentRecovery::BufferUntilInOrder(e),
    };
    match Segment::decode_after_header(tcp_payload, &header) {
        Ok(_) => TcpSegmentRecovery::Aligned(walk(tcp_payload, 0, Some(ctx.connection_id))),
        Err(WilliamsError::Truncated { .. }) => {
            TcpSegmentRecovery::HeaderOnly { header, wire_len: header.wire_len() }
        }
        Err(e) => TcpSegmentRecovery::BufferUntilInOrder(e),
    }
}

/// The outcome of [`scan_for_segment`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanResult {
    /// A segment that passes every check of [`check_candidate`] starts at this offset.
    Found(Located),
    /// The candidate at `at` passes every check its octets allow (at least the Connection ID)
    /// but the data ends before its header or CRC: call again with more data. Earlier aligned
    /// positions were all rejected.
    Incomplete {
        /// Offset of the candidate in `data`.
        at: usize,
    },
    /// Every aligned position before `resume_at` was rejected and fewer than 12 octets (the
    /// Connection ID's end) remain after it.
    NotFound {
        /// First aligned offset not yet examined.
        resume_at: usize,
    },
}

/// Looks for the next segment start in `data`, received after a loss, whose first octet sits at
/// stream offset `data_offset` (octets from the first octet of the TCP stream; only its value
/// modulo 4 matters). Every segment occupies a multiple of 4 octets and the first one starts at
/// stream offset 0, so segments start only at positions 4-octet aligned to the stream start;
/// those positions are tried in order with [`check_candidate`], and the first that passes every
/// check is returned. A position whose Connection ID differs is never accepted.
///
/// This goes beyond section 5, which checks only the first octet of each TCP segment
/// ([`recover_at_tcp_segment`]); it serves receivers that lost track of TCP segment boundaries.
pub fn scan_for_segment(data: &[u8], data_offset: u64, ctx: &RecoveryContext) -> ScanResult {
    let first = ((4 - data_offset % 4) % 4) as usize;
    let mut at = first;
    while at < data.len() {
        match check_candidate(&data[at..], ctx) {
            Ok((segment, wire_len)) => {
                return ScanResult::Found(Located { offset: at, wire_len, segment });
            }
            Err(WilliamsError::Truncated { got, .. }) if got < 12 => {
                return ScanResult::NotFound { resume_at: at };
            }
            Err(WilliamsError::Truncated { .. }) => return ScanResult::Incomplete { at },
            Err(_) => at += 4,
        }
    }
    ScanResult::NotFound { resume_at: at }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `len` rounded up to a multiple of 4 (`len` is at most 65535 here).
fn padded(len: usize) -> usize {
    len.div_ceil(4) * 4
}

fn need(bytes: &[u8], needed: usize) -> Result<(), WilliamsError> {
    if bytes.len() < needed {
        Err(WilliamsError::Truncated { needed, got: bytes.len() })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_and_wire_length() {
        assert_eq!(padded(24), 24);
        assert_eq!(padded(25), 28);
        assert_eq!(padded(27), 28);
        assert_eq!(next_segment_start(&[1, 0, 0, 25], 0), Some(32));
        assert_eq!(next_segment_start(&[1, 0, 0], 0), None);
        assert_eq!(next_segment_start(&[], usize::MAX), None);
    }

    #[test]
    fn message_window_wraps() {
        let w = MessageWindow { first: u32::MAX - 1, count: 4 };
        assert!(w.contains(u32::MAX - 1) && w.contains(u32::MAX) && w.contains(0) && w.contains(1));
        assert!(!w.contains(2) && !w.contains(u32::MAX - 2));
    }
}
