//! MPA connection startup: the Request/Reply frames of RFC 5044 section 7.1.1, the startup rules
//! of 7.1.2, the enhanced connection establishment of MPA revision 2 (RFC 6581, as summarised in
//! `SPECS.md`) and the RDMAC interoperability behaviour of RFC 5044 Appendix C.
//!
//! # Frames (7.1.1, Figure 8)
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +---------------------------------------------------------------+
//! |  Key: "MPA ID Req Frame" or "MPA ID Rep Frame" (16 octets)    |
//! +-+-+-+-+-------+---------------+-------------------------------+
//! |M|C|R|E|  Res  |     Rev       |          PD_Length            |
//! +-+-+-+-+-------+---------------+-------------------------------+
//! |  [IRD/ORD block, 4 octets, revision 2 with E set]             |
//! |  Private Data (PD_Length octets in all, 0..512)               |
//! +---------------------------------------------------------------+
//! ```
//!
//! E is the enhanced-connection flag of RFC 6581 (0x10); in revisions 0 and 1 it is one of the
//! Res bits. [`Frame::encode`] writes a frame, [`Frame::decode`] / [`Frame::decode_with`] read
//! one from the start of a TCP byte stream that may hold fewer octets than the frame
//! ([`Decoded::Incomplete`]) or more (FPDUs may follow: [`Decoded::Complete`] says how many
//! octets the frame took).
//!
//! # Startup (7.1.2)
//!
//! [`Initiator`] and [`Responder`] are event-driven and clock-free: they take [`Event`]s (octets
//! from TCP, TCP closed, elapsed time, the ULP's accept/reject, the ULP's FPDUs, "an FPDU was
//! validated") and return [`Action`]s (send octets, ask the ULP about private data, enter Full
//! Operation with a [`Negotiated`] result, deliver FPDU octets, close TCP with an error, exit MPA
//! leaving TCP open, report a refused request). Each rule of 7.1.2 is one function here, named
//! after it.
//!
//! # RDMAC interoperability (Appendix C)
//!
//! [`RnicKind`] names the three RNIC types of C.1; [`appendix_c_outcome`] tabulates Figures 15,
//! 16 and 17, and the state machines behave the same way (the tests check every cell both ways).
//!
//! Bad input anywhere returns a typed [`StartupError`] carrying the RFC 5044 section 8 code where
//! one applies (4: invalid Request/Reply, 1: TCP closed) or the RFC 6581 code (6: insufficient
//! IRD, 7: no matching RTR option). Nothing here panics.

#![warn(missing_docs)]

use crate::fpdu::FramingConfig;
use std::fmt;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Constants (7.1.1, RFC 6581)
// ---------------------------------------------------------------------------------------------

/// Length of the Key field (7.1.1).
pub const KEY_LEN: usize = 16;
/// Octets before the Private Data: Key (16), flags (1), Rev (1), PD_Length (2) (7.1.1).
pub const FRAME_HEADER_LEN: usize = 20;
/// "MPA ID Req Frame", the Key an Initiator sends (7.1.1).
pub const KEY_REQUEST: [u8; KEY_LEN] = *b"MPA ID Req Frame";
/// "MPA ID Rep Frame", the Key a Responder sends (7.1.1).
pub const KEY_REPLY: [u8; KEY_LEN] = *b"MPA ID Rep Frame";
/// "The Private Data field MUST be between 0 and 512 octets in length" (7.1.1).
pub const PD_LENGTH_MAX: usize = 512;
/// M, the Marker bit of the flags octet (7.1.1).
pub const FLAG_M: u8 = 0x80;
/// C, the CRC bit (7.1.1).
pub const FLAG_C: u8 = 0x40;
/// R, the Rejected Connection bit (7.1.1).
pub const FLAG_R: u8 = 0x20;
/// The enhanced-connection flag of MPA revision 2 (RFC 6581): the Private Data starts with the
/// IRD/ORD block. A Res bit in revisions 0 and 1.
pub const FLAG_ENHANCED: u8 = 0x10;
/// The Res bits of revisions 0 and 1 (7.1.1).
pub const RES_MASK: u8 = 0x1F;
/// The Res bits of revision 2, which takes 0x10 for [`FLAG_ENHANCED`].
pub const RES_MASK_REV2: u8 = 0x0F;
/// MPA revision of an RDMAC RNIC's (upgraded) Request/Reply frames (Appendix C.1, Figure 14).
pub const REV_RDMAC: u8 = 0;
/// MPA revision of RFC 5044: "senders MUST set this field to one" (7.1.1).
pub const REV_1: u8 = 1;
/// MPA revision 2, enhanced connection establishment (RFC 6581).
pub const REV_2: u8 = 2;
/// Length of the revision 2 IRD/ORD block at the start of the Private Data (RFC 6581).
pub const IRD_ORD_LEN: usize = 4;
/// IRD and ORD are 14-bit fields (RFC 6581).
pub const IRD_ORD_MAX: u16 = 0x3FFF;
/// The special Marker a stream with Markers starts with (7.1.2 rule 7): RESERVED and FPDUPTR 0.
pub const MARKER_ZERO: [u8; 4] = [0, 0, 0, 0];

// ---------------------------------------------------------------------------------------------
// Errors (section 8, RFC 6581)
// ---------------------------------------------------------------------------------------------

/// Why a startup frame, a negotiation or a startup step failed.
///
/// [`StartupError::code`] gives the MPA error code of RFC 5044 section 8 (or RFC 6581) where one
/// applies; local conditions (timeouts, configuration, ULP misuse) have none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartupError {
    /// Code 4: the Key is neither "MPA ID Req Frame" nor "MPA ID Rep Frame" (7.1.1, 7.1.2 rule
    /// 5), detected at the first octet that matches neither.
    InvalidKey {
        /// The Key octets received, up to and including the first that matches neither Key.
        received: Vec<u8>,
    },
    /// Code 4: the other valid Key arrived (7.1.2 rule 5). An Initiator receiving a Request Key
    /// has detected an "Initiator/Initiator" startup (rule 8); see
    /// [`StartupError::is_initiator_initiator`].
    UnexpectedKey {
        /// The Key this endpoint waits for.
        expected: Key,
        /// The Key that arrived.
        received: Key,
    },
    /// Code 4: "If the MPA receiver cannot interoperate with the received version, then it MUST
    /// close the connection and report an error locally" (7.1.1 Rev; Appendix C.2.1, C.2.2).
    UnsupportedRevision {
        /// The Rev field received.
        rev: u8,
    },
    /// Code 4: PD_Length exceeds 512 (7.1.1 PD_Length).
    PdLengthTooLarge {
        /// The PD_Length field received.
        pd_length: u16,
    },
    /// Code 4: PD_Length exceeds the receiver's buffer for Private Data (7.1.2 rule 9).
    PrivateDataExceedsBuffer {
        /// The PD_Length field received.
        pd_length: u16,
        /// The receiver's Private Data buffer in octets.
        buffer: usize,
    },
    /// Code 4: the Private Data is shorter than PD_Length: the stream ended first (7.1.1
    /// PD_Length: "does not match the length of the Private Data field").
    PdLengthMismatch {
        /// The PD_Length field received.
        pd_length: u16,
        /// Private Data octets that arrived before the stream ended.
        received: usize,
    },
    /// Code 4: a revision 2 frame with the enhanced flag has PD_Length below 4, so it cannot hold
    /// the IRD/ORD block (RFC 6581).
    EnhancedPrivateDataTooShort {
        /// The PD_Length field received.
        pd_length: u16,
    },
    /// Code 4: octets followed a startup frame while its sender had to be silent: after a
    /// Request, the Initiator sends nothing until it has received the Reply (7.1.2 rule 3); after
    /// a Reply, the Responder sends nothing until it has received an FPDU (rule 4). Such octets
    /// are Private Data beyond PD_Length (7.1.1) or a rule violation; either way the frame is
    /// invalid.
    UnexpectedDataAfterFrame {
        /// The frame the octets followed.
        frame: Key,
        /// How many unexpected octets arrived.
        octets: usize,
    },
    /// Code 4: the Request carried the revision 2 IRD/ORD block and the Reply has Rev 2 without
    /// it (RFC 6581: a revision 2 Responder answers an enhanced Request with an enhanced Reply).
    EnhancedReplyMissing,
    /// Code 6 (RFC 6581): the peer's ORD exceeds this endpoint's IRD.
    InsufficientIrd {
        /// The peer's ORD.
        peer_ord: u16,
        /// This endpoint's IRD.
        ird: u16,
    },
    /// Code 7 (RFC 6581): no common zero-length RTR message type, or a Reply that does not pick
    /// exactly one of the offered types, or a peer-to-peer Request answered without the
    /// peer-to-peer flag.
    NoMatchingRtr {
        /// The RTR types the Initiator offered.
        offered: RtrTypes,
        /// The RTR types the Responder supports (at the Responder) or chose (at the Initiator).
        other: RtrTypes,
    },
    /// Code 1: the TCP connection closed (FIN, RST, loss) during startup or later (section 8).
    TcpClosed {
        /// Octets of an incomplete startup frame that had arrived (0 when none was pending).
        received: usize,
    },
    /// No octet of a Request arrived within the Responder's request timeout: a suspected
    /// "Responder/Responder" startup (7.1.2 rule 8). No section 8 code.
    RequestTimeout {
        /// Time waited.
        waited: Duration,
    },
    /// The startup frame did not complete within the startup timeout (7.1.2 rule 10). No
    /// section 8 code.
    StartupTimeout {
        /// Time waited.
        waited: Duration,
    },
    /// Local: private data handed to MPA would make PD_Length exceed 512 (7.1.1).
    PrivateDataTooLong {
        /// The PD_Length it would give.
        len: usize,
    },
    /// Local: an IRD or ORD above the 14-bit maximum (RFC 6581).
    IrdOrdTooLarge {
        /// The offending value.
        value: u16,
    },
    /// Local: this endpoint cannot send this revision (IETF RNICs send 1 or 2; revision 2 needs
    /// an IRD/ORD configuration).
    InvalidLocalRevision {
        /// The configured revision.
        rev: u8,
    },
    /// Local: the ULP asked to send an FPDU before Full Operation; refused, since "the
    /// receiver's ability to deal with Markers is unknown until the Request and Reply Frames
    /// have been received" (7.1.2 rule 2, note).
    SendBeforeFullOperation,
    /// Local: an accept or reject while no private data awaits the ULP's decision.
    NoPendingDecision,
}

impl StartupError {
    /// The MPA error code: RFC 5044 section 8 (1, 4) or RFC 6581 (6, 7). `None` for local
    /// conditions.
    pub fn code(&self) -> Option<u8> {
        use StartupError::*;
        match self {
            InvalidKey { .. }
            | UnexpectedKey { .. }
            | UnsupportedRevision { .. }
            | PdLengthTooLarge { .. }
            | PrivateDataExceedsBuffer { .. }
            | PdLengthMismatch { .. }
            | EnhancedPrivateDataTooShort { .. }
            | UnexpectedDataAfterFrame { .. }
            | EnhancedReplyMissing => Some(4),
            TcpClosed { .. } => Some(1),
            InsufficientIrd { .. } => Some(6),
            NoMatchingRtr { .. } => Some(7),
            RequestTimeout { .. }
            | StartupTimeout { .. }
            | PrivateDataTooLong { .. }
            | IrdOrdTooLarge { .. }
            | InvalidLocalRevision { .. }
            | SendBeforeFullOperation
            | NoPendingDecision => None,
        }
    }

    /// True for an Initiator that received a Request: an "Initiator/Initiator" startup (7.1.2
    /// rule 8).
    pub fn is_initiator_initiator(&self) -> bool {
        matches!(self, StartupError::UnexpectedKey { expected: Key::Reply, received: Key::Request })
    }
}

impl fmt::Display for StartupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use StartupError::*;
        if let Some(code) = self.code() {
            write!(f, "MPA error code {code}: ")?;
        }
        match self {
            InvalidKey { received } => {
                write!(f, "invalid Key {received:02x?} (RFC 5044 7.1.1, 7.1.2 rule 5)")
            }
            UnexpectedKey { expected, received } => {
                write!(f, "received {received} Key, expected {expected} (RFC 5044 7.1.2 rule 5)")?;
                if self.is_initiator_initiator() {
                    write!(f, ": Initiator/Initiator startup (rule 8)")?;
                }
                Ok(())
            }
            UnsupportedRevision { rev } => {
                write!(f, "cannot interoperate with MPA Rev {rev} (RFC 5044 7.1.1, Appendix C)")
            }
            PdLengthTooLarge { pd_length } => {
                write!(f, "PD_Length {pd_length} exceeds {PD_LENGTH_MAX} (RFC 5044 7.1.1)")
            }
            PrivateDataExceedsBuffer { pd_length, buffer } => write!(
                f,
                "PD_Length {pd_length} exceeds the {buffer}-octet Private Data buffer \
                 (RFC 5044 7.1.2 rule 9)"
            ),
            PdLengthMismatch { pd_length, received } => write!(
                f,
                "stream ended after {received} of {pd_length} Private Data octets \
                 (RFC 5044 7.1.1 PD_Length)"
            ),
            EnhancedPrivateDataTooShort { pd_length } => write!(
                f,
                "enhanced frame with PD_Length {pd_length} cannot hold the 4-octet IRD/ORD block \
                 (RFC 6581)"
            ),
            UnexpectedDataAfterFrame { frame, octets } => write!(
                f,
                "{octets} unexpected octets after the {frame} frame (PD_Length mismatch, \
                 RFC 5044 7.1.1; or 7.1.2 rules 3/4)"
            ),
            EnhancedReplyMissing => {
                write!(f, "Rev 2 Reply to an enhanced Request lacks the IRD/ORD block (RFC 6581)")
            }
            InsufficientIrd { peer_ord, ird } => {
                write!(f, "peer ORD {peer_ord} exceeds local IRD {ird} (RFC 6581)")
            }
            NoMatchingRtr { offered, other } => write!(
                f,
                "no matching RTR option: offered {offered}, other side {other} (RFC 6581)"
            ),
            TcpClosed { received } => write!(
                f,
                "TCP connection closed ({received} octets of a startup frame pending; \
                 RFC 5044 section 8)"
            ),
            RequestTimeout { waited } => write!(
                f,
                "no MPA Request Frame after {waited:?}: Responder/Responder startup suspected \
                 (RFC 5044 7.1.2 rule 8)"
            ),
            StartupTimeout { waited } => {
                write!(f, "startup frames incomplete after {waited:?} (RFC 5044 7.1.2 rule 10)")
            }
            PrivateDataTooLong { len } => write!(
                f,
                "private data would give PD_Length {len}, above {PD_LENGTH_MAX} (RFC 5044 7.1.1)"
            ),
            IrdOrdTooLarge { value } => {
                write!(f, "IRD/ORD {value} exceeds the 14-bit maximum {IRD_ORD_MAX} (RFC 6581)")
            }
            InvalidLocalRevision { rev } => {
                write!(f, "this endpoint cannot send MPA Rev {rev} (1, or 2 with IRD/ORD settings)")
            }
            SendBeforeFullOperation => {
                write!(f, "FPDU refused: not in Full Operation (RFC 5044 7.1.2 rule 2 note)")
            }
            NoPendingDecision => write!(f, "no private data awaits an accept/reject"),
        }
    }
}

impl std::error::Error for StartupError {}

// ---------------------------------------------------------------------------------------------
// Key, roles, RTR types, IRD/ORD block
// ---------------------------------------------------------------------------------------------

/// The two Keys of 7.1.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// "MPA ID Req Frame": the Initiator's MPA Request Frame.
    Request,
    /// "MPA ID Rep Frame": the Responder's MPA Reply Frame.
    Reply,
}

impl Key {
    /// The 16 Key octets (7.1.1).
    pub fn bytes(self) -> &'static [u8; KEY_LEN] {
        match self {
            Key::Request => &KEY_REQUEST,
            Key::Reply => &KEY_REPLY,
        }
    }

    /// The other Key.
    pub fn other(self) -> Key {
        match self {
            Key::Request => Key::Reply,
            Key::Reply => Key::Request,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Key::Request => "Request",
            Key::Reply => "Reply",
        })
    }
}

/// Initiator or Responder: "the Initiator is the side that sends first in the MPA startup
/// sequence" (7.1, not related to the TCP SYN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Sends the MPA Request Frame (rule 1).
    Initiator,
    /// Waits for the Request and sends the MPA Reply Frame (rule 2).
    Responder,
}

/// A zero-length ready-to-receive (RTR) message type of MPA revision 2 (RFC 6581): the
/// Initiator's first FPDU when peer-to-peer mode is negotiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rtr {
    /// Zero-length Send (B bit).
    Send,
    /// Zero-length RDMA Write (C bit).
    Write,
    /// Zero-length RDMA Read (D bit).
    Read,
}

impl Rtr {
    /// The order in which a Responder picks among offered types: Write, then Read, then Send
    /// (the choice of Linux siw; a Send needs a receive posted in advance).
    pub const PREFERENCE: [Rtr; 3] = [Rtr::Write, Rtr::Read, Rtr::Send];
}

/// A set of RTR types: the B, C, D bits of the IRD/ORD block (RFC 6581).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RtrTypes {
    /// B: zero-length Send.
    pub send: bool,
    /// C: zero-length RDMA Write.
    pub write: bool,
    /// D: zero-length RDMA Read.
    pub read: bool,
}

impl RtrTypes {
    /// No type.
    pub const NONE: RtrTypes = RtrTypes { send: false, write: false, read: false };
    /// All three types.
    pub const ALL: RtrTypes = RtrTypes { send: true, write: true, read: true };

    /// The set holding only `rtr`.
    pub fn only(rtr: Rtr) -> RtrTypes {
        let mut s = RtrTypes::NONE;
        s.insert(rtr);
        s
    }

    /// True when `rtr` is in the set.
    pub fn contains(self, rtr: Rtr) -> bool {
        match rtr {
            Rtr::Send => self.send,
            Rtr::Write => self.write,
            Rtr::Read => self.read,
        }
    }

    /// Adds `rtr` to the set.
    pub fn insert(&mut self, rtr: Rtr) {
        match rtr {
            Rtr::Send => self.send = true,
            Rtr::Write => self.write = true,
            Rtr::Read => self.read = true,
        }
    }

    /// Types in both sets.
    pub fn intersection(self, other: RtrTypes) -> RtrTypes {
        RtrTypes {
            send: self.send && other.send,
            write: self.write && other.write,
            read: self.read && other.read,
        }
    }

    /// Number of types in the set.
    pub fn count(self) -> usize {
        self.send as usize + self.write as usize + self.read as usize
    }

    /// The single type when the set holds exactly one.
    pub fn single(self) -> Option<Rtr> {
        if self.count() != 1 {
            return None;
        }
        Rtr::PREFERENCE.into_iter().find(|&r| self.contains(r))
    }
}

impl fmt::Display for RtrTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [(self.send, "Send"), (self.write, "Write"), (self.read, "Read")]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n)
            .collect();
        if names.is_empty() {
            f.write_str("{}")
        } else {
            write!(f, "{{{}}}", names.join(", "))
        }
    }
}

/// The 4-octet block at the start of a revision 2 enhanced frame's Private Data (RFC 6581):
///
/// ```text
/// |A|B|         IRD (14)          |C|D|          ORD (14)         |
/// ```
///
/// In a Request: the Initiator's IRD/ORD, A = peer-to-peer requested, B/C/D = the RTR types
/// offered. In a Reply: the Responder's IRD/ORD, A echoed, exactly one of B/C/D chosen. As a local
/// configuration ([`Config::ird_ord`]): this endpoint's IRD/ORD, whether it wants (Initiator) or
/// supports (Responder) peer-to-peer mode, and the RTR types it offers or supports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IrdOrd {
    /// A: peer-to-peer connection model.
    pub peer_to_peer: bool,
    /// B, C, D: zero-length Send, Write, Read as RTR message.
    pub rtr: RtrTypes,
    /// Inbound RDMA Read queue depth, 14 bits.
    pub ird: u16,
    /// Outbound RDMA Read queue depth, 14 bits.
    pub ord: u16,
}

impl IrdOrd {
    /// The block on the wire, big-endian (RFC 6581). IRD and ORD are truncated to 14 bits; use
    /// [`IrdOrd::validate`] to reject larger values.
    pub fn encode(&self) -> [u8; IRD_ORD_LEN] {
        let w0 = (u16::from(self.peer_to_peer) << 15)
            | (u16::from(self.rtr.send) << 14)
            | (self.ird & IRD_ORD_MAX);
        let w1 = (u16::from(self.rtr.write) << 15)
            | (u16::from(self.rtr.read) << 14)
            | (self.ord & IRD_ORD_MAX);
        let a = w0.to_be_bytes();
        let b = w1.to_be_bytes();
        [a[0], a[1], b[0], b[1]]
    }

    /// Reads the block from the first 4 octets of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<IrdOrd, StartupError> {
        if bytes.len() < IRD_ORD_LEN {
            return Err(StartupError::EnhancedPrivateDataTooShort {
                pd_length: bytes.len().min(u16::MAX as usize) as u16,
            });
        }
        let w0 = u16::from_be_bytes([bytes[0], bytes[1]]);
        let w1 = u16::from_be_bytes([bytes[2], bytes[3]]);
        Ok(IrdOrd {
            peer_to_peer: w0 & 0x8000 != 0,
            rtr: RtrTypes {
                send: w0 & 0x4000 != 0,
                write: w1 & 0x8000 != 0,
                read: w1 & 0x4000 != 0,
            },
            ird: w0 & IRD_ORD_MAX,
            ord: w1 & IRD_ORD_MAX,
        })
    }

    /// Checks IRD and ORD fit in 14 bits.
    pub fn validate(&self) -> Result<(), StartupError> {
        for value in [self.ird, self.ord] {
            if value > IRD_ORD_MAX {
                return Err(StartupError::IrdOrdTooLarge { value });
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The frame (7.1.1)
// ---------------------------------------------------------------------------------------------

/// An MPA Request or Reply Frame (7.1.1, Figure 8; RFC 6581 for the enhanced flag).
///
/// The fields are public so that a test can build any frame, valid or not; [`Frame::request`]
/// and [`Frame::reply`] build valid ones. [`Frame::encode`] writes exactly what the fields say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Request or Reply Key.
    pub key: Key,
    /// M: in a Request, Markers REQUIRED on FPDUs from the Responder; in a Reply, on FPDUs from
    /// the Initiator.
    pub m: bool,
    /// C: CRC preferred; CRCs are used when either frame sets it.
    pub c: bool,
    /// R: in a Reply, the Responder's ULP rejected the connection. "set to zero, and not checked
    /// on reception in the MPA Request Frame" (7.1.1 R).
    pub r: bool,
    /// The Res bits as on the wire: 5 bits (0x1F) in revisions 0 and 1, 4 bits (0x0F) in
    /// revision 2 or whenever [`Frame::ird_ord`] is present. "MUST be set to zero when sending,
    /// and not checked on reception" (7.1.1 Res).
    pub res: u8,
    /// Rev: the MPA revision (7.1.1; 0 for RDMAC frames, Appendix C; 2 for RFC 6581).
    pub rev: u8,
    /// The enhanced flag (0x10) with the IRD/ORD block it announces (RFC 6581). Decoded only in
    /// revision 2 frames; encoded whenever present.
    pub ird_ord: Option<IrdOrd>,
    /// The ULP's Private Data, after the IRD/ORD block when there is one.
    pub private_data: Vec<u8>,
}

/// What [`Frame::decode`] found at the start of a byte stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A whole, valid frame occupying the first `consumed` octets; octets after it (FPDUs)
    /// belong to the next layer.
    Complete {
        /// The frame.
        frame: Frame,
        /// Octets the frame took (20 + PD_Length).
        consumed: usize,
    },
    /// Everything so far is valid but the frame is not complete: at least `needed` octets (from
    /// the frame's first octet) are required to go further.
    Incomplete {
        /// A lower bound on the total octets needed.
        needed: usize,
    },
}

/// What a receiver accepts when decoding a frame (7.1.1, 7.1.2 rules 5 and 9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiveRules {
    /// The Key this receiver waits for (`None`: either).
    pub expected_key: Option<Key>,
    /// The highest Rev this receiver decodes (lower ones, down to 0, decode; the state machines
    /// then apply Appendix C).
    pub max_rev: u8,
    /// The receiver's Private Data buffer in octets (rule 9).
    pub private_data_buffer: usize,
}

impl Default for ReceiveRules {
    /// Either Key, revisions 0 to 2, a 512-octet buffer.
    fn default() -> Self {
        ReceiveRules { expected_key: None, max_rev: REV_2, private_data_buffer: PD_LENGTH_MAX }
    }
}

impl Frame {
    /// A valid Request: Key "MPA ID Req Frame", R = 0, Res = 0, no IRD/ORD block (rule 1).
    pub fn request(rev: u8, m: bool, c: bool, private_data: Vec<u8>) -> Frame {
        Frame { key: Key::Request, m, c, r: false, res: 0, rev, ird_ord: None, private_data }
    }

    /// A valid Reply: Key "MPA ID Rep Frame", Res = 0, `r` = rejected (rule 2).
    pub fn reply(rev: u8, m: bool, c: bool, r: bool, private_data: Vec<u8>) -> Frame {
        Frame { key: Key::Reply, m, c, r, res: 0, rev, ird_ord: None, private_data }
    }

    /// The same frame with the enhanced flag and this IRD/ORD block (RFC 6581).
    pub fn with_ird_ord(mut self, ird_ord: IrdOrd) -> Frame {
        self.ird_ord = Some(ird_ord);
        self
    }

    /// PD_Length: the Private Data length, the IRD/ORD block included (RFC 6581), as encoded
    /// (at most 65535).
    pub fn pd_length(&self) -> usize {
        let extra = if self.ird_ord.is_some() { IRD_ORD_LEN } else { 0 };
        self.private_data.len().saturating_add(extra).min(u16::MAX as usize)
    }

    /// Octets [`Frame::encode`] produces.
    pub fn encoded_len(&self) -> usize {
        FRAME_HEADER_LEN + self.pd_length()
    }

    /// Checks what a sender must respect: PD_Length at most 512 (7.1.1) and a 14-bit IRD/ORD
    /// (RFC 6581).
    pub fn validate(&self) -> Result<(), StartupError> {
        let len = self.private_data.len().saturating_add(if self.ird_ord.is_some() {
            IRD_ORD_LEN
        } else {
            0
        });
        if len > PD_LENGTH_MAX {
            return Err(StartupError::PrivateDataTooLong { len });
        }
        if let Some(io) = &self.ird_ord {
            io.validate()?;
        }
        Ok(())
    }

    /// The frame on the wire (7.1.1, Figure 8). Writes what the fields say, invalid or not;
    /// Private Data beyond what a 16-bit PD_Length can count (65535 octets) is not written.
    pub fn encode(&self) -> Vec<u8> {
        let pd_length = self.pd_length();
        let mut out = Vec::with_capacity(FRAME_HEADER_LEN + pd_length);
        out.extend_from_slice(self.key.bytes());
        let mut flags = 0u8;
        if self.m {
            flags |= FLAG_M;
        }
        if self.c {
            flags |= FLAG_C;
        }
        if self.r {
            flags |= FLAG_R;
        }
        if self.ird_ord.is_some() {
            flags |= FLAG_ENHANCED | (self.res & RES_MASK_REV2);
        } else {
            flags |= self.res & RES_MASK;
        }
        out.push(flags);
        out.push(self.rev);
        out.extend_from_slice(&(pd_length as u16).to_be_bytes());
        let mut room = pd_length;
        if let Some(io) = &self.ird_ord {
            out.extend_from_slice(&io.encode());
            room -= IRD_ORD_LEN;
        }
        out.extend_from_slice(&self.private_data[..room]);
        out
    }

    /// Decodes a frame of either Key, revision 0 to 2, with a 512-octet Private Data buffer
    /// ([`ReceiveRules::default`]).
    pub fn decode(bytes: &[u8]) -> Result<Decoded, StartupError> {
        Frame::decode_with(bytes, &ReceiveRules::default())
    }

    /// Decodes a frame from the start of a TCP byte stream, checking in the order the fields
    /// arrive, so that a bad frame is rejected as early as its octets allow:
    /// Key ([`check_key`]), Rev ([`check_rev`]), PD_Length ([`check_pd_length`],
    /// [`check_private_data_buffer`], [`check_enhanced_pd_length`]), then the Private Data.
    /// Res and, in a Request, R are not checked (7.1.1).
    pub fn decode_with(bytes: &[u8], rules: &ReceiveRules) -> Result<Decoded, StartupError> {
        let key = match check_key(bytes, rules.expected_key)? {
            Some(k) => k,
            None => return Ok(Decoded::Incomplete { needed: KEY_LEN }),
        };
        if bytes.len() < FRAME_HEADER_LEN {
            return Ok(Decoded::Incomplete { needed: FRAME_HEADER_LEN });
        }
        let flags = bytes[16];
        let rev = bytes[17];
        let pd_length = u16::from_be_bytes([bytes[18], bytes[19]]);
        check_rev(rev, rules.max_rev)?;
        check_pd_length(pd_length)?;
        check_private_data_buffer(pd_length, rules.private_data_buffer)?;
        let enhanced = rev == REV_2 && flags & FLAG_ENHANCED != 0;
        if enhanced {
            check_enhanced_pd_length(pd_length)?;
        }
        let total = FRAME_HEADER_LEN + pd_length as usize;
        if bytes.len() < total {
            return Ok(Decoded::Incomplete { needed: total });
        }
        let pd = &bytes[FRAME_HEADER_LEN..total];
        let (ird_ord, private_data) = if enhanced {
            (Some(IrdOrd::decode(pd)?), pd[IRD_ORD_LEN..].to_vec())
        } else {
            (None, pd.to_vec())
        };
        let res = if enhanced { flags & RES_MASK_REV2 } else { flags & RES_MASK };
        let frame = Frame {
            key,
            m: flags & FLAG_M != 0,
            c: flags & FLAG_C != 0,
            r: flags & FLAG_R != 0,
            res,
            rev,
            ird_ord,
            private_data,
        };
        Ok(Decoded::Complete { frame, consumed: total })
    }

    /// Decodes a frame from a stream that has ended (FIN or RST): an incomplete frame becomes an
    /// error. A complete header with fewer Private Data octets than PD_Length is the PD_Length
    /// mismatch of 7.1.1 (code 4); anything shorter (the header incomplete, or nothing at all) is
    /// the TCP connection closing during startup (code 1).
    pub fn decode_at_close(
        bytes: &[u8],
        rules: &ReceiveRules,
    ) -> Result<(Frame, usize), StartupError> {
        match Frame::decode_with(bytes, rules)? {
            Decoded::Complete { frame, consumed } => Ok((frame, consumed)),
            Decoded::Incomplete { .. } if bytes.len() >= FRAME_HEADER_LEN => {
                Err(StartupError::PdLengthMismatch {
                    pd_length: u16::from_be_bytes([bytes[18], bytes[19]]),
                    received: bytes.len() - FRAME_HEADER_LEN,
                })
            }
            Decoded::Incomplete { .. } => Err(StartupError::TcpClosed { received: bytes.len() }),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One function per receive check (7.1.1, 7.1.2)
// ---------------------------------------------------------------------------------------------

/// 7.1.1 Key, 7.1.2 rules 5 and 8: "Responder mode receivers MUST check this field ... and close
/// the connection and report an error locally if any other value is detected" (and likewise for
/// Initiators). Checks the octets available so far: `Ok(None)` while they are a valid prefix
/// (including, with fewer than 16, a prefix of the other Key, so that the error can name it),
/// `Ok(Some(key))` once 16 octets match `expected` (or either Key when `None`).
pub fn check_key(received: &[u8], expected: Option<Key>) -> Result<Option<Key>, StartupError> {
    let n = received.len().min(KEY_LEN);
    let seen = &received[..n];
    let wanted: &[Key] = match expected {
        Some(Key::Request) => &[Key::Request],
        Some(Key::Reply) => &[Key::Reply],
        None => &[Key::Request, Key::Reply],
    };
    for &k in wanted {
        if k.bytes()[..n] == *seen {
            return Ok(if n == KEY_LEN { Some(k) } else { None });
        }
    }
    if let Some(exp) = expected {
        let other = exp.other();
        if other.bytes()[..n] == *seen {
            if n < KEY_LEN {
                return Ok(None);
            }
            return Err(StartupError::UnexpectedKey { expected: exp, received: other });
        }
    }
    // Report the octets through the first one that matches neither Key, so that the error does
    // not depend on how the stream was segmented.
    let common = |k: Key| k.bytes().iter().zip(seen).take_while(|(a, b)| a == b).count();
    let first_bad = common(Key::Request).max(common(Key::Reply));
    Err(StartupError::InvalidKey { received: seen[..(first_bad + 1).min(n)].to_vec() })
}

/// 7.1.1 Rev: "MPA receivers compliant with this version of the specification MUST check this
/// field. If the MPA receiver cannot interoperate with the received version, then it MUST close
/// the connection". Revisions above `max_rev` fail here; revision 0 (RDMAC) is decoded and left
/// to the Appendix C policy of the receiver ([`responder_reply_plan`], [`initiator_check_reply`]).
pub fn check_rev(rev: u8, max_rev: u8) -> Result<(), StartupError> {
    if rev > max_rev {
        return Err(StartupError::UnsupportedRevision { rev });
    }
    Ok(())
}

/// 7.1.1 PD_Length: "if the length of the Private Data field exceeds 512 octets, the receiver
/// MUST close the connection and report an error locally".
pub fn check_pd_length(pd_length: u16) -> Result<(), StartupError> {
    if pd_length as usize > PD_LENGTH_MAX {
        return Err(StartupError::PdLengthTooLarge { pd_length });
    }
    Ok(())
}

/// 7.1.2 rule 9: "The buffer that receives the Private Data field MUST be large enough to receive
/// that data ... If any of the above fails, the startup frame MUST be considered improperly
/// formatted."
pub fn check_private_data_buffer(pd_length: u16, buffer: usize) -> Result<(), StartupError> {
    if pd_length as usize > buffer {
        return Err(StartupError::PrivateDataExceedsBuffer { pd_length, buffer });
    }
    Ok(())
}

/// RFC 6581: with the enhanced flag set, PD_Length counts the 4-octet IRD/ORD block, so it is at
/// least 4.
pub fn check_enhanced_pd_length(pd_length: u16) -> Result<(), StartupError> {
    if (pd_length as usize) < IRD_ORD_LEN {
        return Err(StartupError::EnhancedPrivateDataTooShort { pd_length });
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Negotiation (7.1.1 M and C, RFC 6581, Appendix C)
// ---------------------------------------------------------------------------------------------

/// 7.1.1 C: "When this bit is '1' in either the MPA Request Frame or MPA Reply Frame, CRCs MUST
/// be generated and checked by both endpoints."
pub fn crc_required(request_c: bool, reply_c: bool) -> bool {
    request_c || reply_c
}

/// Appendix C.1: "The RNIC either generates the RDMAC protocols on the wire (version is zero) or
/// uses the IETF protocols (version is one)". Version 0 as soon as either frame has Rev 0.
pub fn ddp_rdmap_version(request_rev: u8, reply_rev: u8) -> u8 {
    if request_rev == REV_RDMAC || reply_rev == REV_RDMAC {
        0
    } else {
        1
    }
}

/// Marker state per receive direction, written "X/Y" in Figures 15-17: "the receive direction
/// of the Initiator/Responder".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MarkerState {
    /// Markers on FPDUs the Initiator receives (sent by the Responder): the Request's M.
    pub initiator_rx: bool,
    /// Markers on FPDUs the Responder receives (sent by the Initiator): the Reply's M.
    pub responder_rx: bool,
}

/// 7.1.1 M: "When this bit is '1' in an MPA Request Frame, the Initiator declares that Markers
/// are REQUIRED in FPDUs sent from the Responder. When set to '1' in an MPA Reply Frame, this bit
/// declares that Markers are REQUIRED in FPDUs sent from the Initiator." With RDMAC DDP/RDMAP
/// (version 0), Markers are on both ways (Appendix C, Figure 14: RDMAC Markers 1).
pub fn marker_state(request_m: bool, reply_m: bool, ddp_rdmap_version: u8) -> MarkerState {
    if ddp_rdmap_version == 0 {
        MarkerState { initiator_rx: true, responder_rx: true }
    } else {
        MarkerState { initiator_rx: request_m, responder_rx: reply_m }
    }
}

/// IRD/ORD after negotiation, from one endpoint's point of view (RFC 6581).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NegotiatedIrdOrd {
    /// This endpoint's inbound RDMA Read queue depth.
    pub ird: u16,
    /// This endpoint's outbound RDMA Read limit: its own ORD, lowered to the peer's IRD.
    pub ord: u16,
}

/// RFC 6581 (SPECS.md): "An ORD above the peer's IRD ends the connection with MPA code 6."
pub fn check_peer_ord(peer_ord: u16, ird: u16) -> Result<(), StartupError> {
    if peer_ord > ird {
        return Err(StartupError::InsufficientIrd { peer_ord, ird });
    }
    Ok(())
}

/// IRD/ORD negotiation at either endpoint (RFC 6581): the peer's ORD must fit this endpoint's IRD
/// ([`check_peer_ord`], code 6); this endpoint's ORD is lowered to the peer's IRD (issuing fewer
/// reads than allowed is always safe).
pub fn negotiate_ird_ord(local: &IrdOrd, peer: &IrdOrd) -> Result<NegotiatedIrdOrd, StartupError> {
    check_peer_ord(peer.ord, local.ird)?;
    Ok(NegotiatedIrdOrd { ird: local.ird, ord: local.ord.min(peer.ird) })
}

/// The Responder's choice of RTR type (RFC 6581): "the initiator offers one or more RTR types and
/// the responder picks exactly one", here the first of [`Rtr::PREFERENCE`] both support. None in
/// common: code 7.
pub fn choose_rtr(offered: RtrTypes, supported: RtrTypes) -> Result<Rtr, StartupError> {
    let common = offered.intersection(supported);
    Rtr::PREFERENCE
        .into_iter()
        .find(|&r| common.contains(r))
        .ok_or(StartupError::NoMatchingRtr { offered, other: supported })
}

/// The Initiator's check of the Reply's RTR choice (RFC 6581): when the Request asked for
/// peer-to-peer mode, the Reply must set A too and pick exactly one of the offered types;
/// otherwise code 7. Without peer-to-peer in the Request there is no RTR (`Ok(None)`), whatever
/// the Reply says.
pub fn check_rtr_choice(request: &IrdOrd, reply: &IrdOrd) -> Result<Option<Rtr>, StartupError> {
    if !request.peer_to_peer {
        return Ok(None);
    }
    let err = StartupError::NoMatchingRtr { offered: request.rtr, other: reply.rtr };
    if !reply.peer_to_peer {
        return Err(err);
    }
    match reply.rtr.single() {
        Some(r) if request.rtr.contains(r) => Ok(Some(r)),
        _ => Err(err),
    }
}

/// The outcome of a successful startup, handed over with [`Action::FullOperation`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negotiated {
    /// The endpoint this result belongs to.
    pub role: Role,
    /// Rev of the Request.
    pub request_rev: u8,
    /// Rev of the Reply.
    pub reply_rev: u8,
    /// DDP/RDMAP version to generate: 1 (IETF) or 0 (RDMAC), Appendix C.1.
    pub ddp_rdmap_version: u8,
    /// Markers on FPDUs sent Initiator -> Responder (the Reply's M; both ways with RDMAC).
    pub markers_initiator_to_responder: bool,
    /// Markers on FPDUs sent Responder -> Initiator (the Request's M; both ways with RDMAC).
    pub markers_responder_to_initiator: bool,
    /// CRCs generated and checked both ways (either C, 7.1.1; always with RDMAC, C.1).
    pub crc: bool,
    /// Revision 2: IRD/ORD after negotiation; `None` without the enhanced exchange.
    pub ird_ord: Option<NegotiatedIrdOrd>,
    /// Revision 2: the peer-to-peer model was agreed.
    pub peer_to_peer: bool,
    /// Revision 2 peer-to-peer: the zero-length message the Initiator sends as its first FPDU.
    pub rtr: Option<Rtr>,
    /// The peer's Private Data (after the IRD/ORD block).
    pub peer_private_data: Vec<u8>,
}

impl Negotiated {
    /// The MPA revision in use: the Reply's, since the Responder answers with the lower of its
    /// own and the Request's (or 0 for an RDMAC peer, Appendix C). The Request's stays in
    /// [`Negotiated::request_rev`].
    pub fn mpa_rev(&self) -> u8 {
        self.reply_rev
    }

    /// Markers per receive direction, as in Figures 15-17.
    pub fn marker_state(&self) -> MarkerState {
        MarkerState {
            initiator_rx: self.markers_responder_to_initiator,
            responder_rx: self.markers_initiator_to_responder,
        }
    }

    /// This endpoint inserts Markers in what it sends.
    pub fn markers_tx(&self) -> bool {
        match self.role {
            Role::Initiator => self.markers_initiator_to_responder,
            Role::Responder => self.markers_responder_to_initiator,
        }
    }

    /// This endpoint expects Markers in what it receives.
    pub fn markers_rx(&self) -> bool {
        match self.role {
            Role::Initiator => self.markers_responder_to_initiator,
            Role::Responder => self.markers_initiator_to_responder,
        }
    }

    /// 7.1.2 rule 7: "When the first FPDU is to be sent, then if Markers are enabled, the first
    /// octets sent are the special Marker 0x00000000, followed by the start of the FPDU". The
    /// octets that precede the first FPDU's ULPDU_Length field: [`MARKER_ZERO`] or nothing.
    pub fn first_fpdu_prefix(&self) -> &'static [u8] {
        if self.markers_tx() {
            &MARKER_ZERO
        } else {
            &[]
        }
    }

    /// Transmit framing: the marker origin is the first octet after the startup frames, so the
    /// first FPDU starts at offset 0 and, with Markers, with the Marker 0x00000000 (rule 7).
    pub fn tx_framing(&self) -> FramingConfig {
        FramingConfig { markers: self.markers_tx(), crc: self.crc, offset: 0 }
    }

    /// Receive framing, the mirror of [`Negotiated::tx_framing`].
    pub fn rx_framing(&self) -> FramingConfig {
        FramingConfig { markers: self.markers_rx(), crc: self.crc, offset: 0 }
    }
}

// ---------------------------------------------------------------------------------------------
// Endpoint configuration and the decisions of each role
// ---------------------------------------------------------------------------------------------

/// The three RNIC types of Appendix C.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RnicKind {
    /// "Upgraded RDMAC RNIC": RDMAC protocols (DDP/RDMAP version 0), with a ULP that exchanges
    /// MPA Request/Reply Frames with Rev 0, M = 1 and C = 1 on its behalf (C.1, C.2.1, C.2.4). A
    /// bare RDMAC RNIC sends no frames at all (the RDMAC MPA draft has none) and cannot
    /// interoperate (Appendix C introduction).
    Rdmac,
    /// "Non-permissive IETF RNIC": IETF protocols only; closes on a Rev 0 peer (C.2.1, C.2.2).
    IetfNonPermissive,
    /// "Permissive IETF RNIC": falls back to RDMAC protocols, Markers and CRC for a Rev 0 peer
    /// (C.2.3 - C.2.5).
    IetfPermissive,
}

/// An endpoint's startup configuration. The timeouts are durations of whatever clock feeds
/// [`Event::Elapsed`]; the model has none of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// RNIC type (Appendix C.1).
    pub kind: RnicKind,
    /// Highest MPA revision this endpoint speaks: 1 or 2. An Initiator sends it; a Responder
    /// answers with the lower of it and the Request's. Ignored for [`RnicKind::Rdmac`] (0).
    pub rev: u8,
    /// M this endpoint sends: Markers REQUIRED on what it receives. Ignored for RDMAC (always 1).
    pub markers: bool,
    /// C this endpoint sends: CRC preferred. Ignored for RDMAC (always 1).
    pub crc: bool,
    /// Revision 2 settings (required when `rev` is 2): IRD, ORD, peer-to-peer wanted (Initiator)
    /// or supported (Responder), RTR types offered or supported.
    pub ird_ord: Option<IrdOrd>,
    /// The Initiator's Request Private Data (rule 1). Unused by a Responder, whose Reply Private
    /// Data comes with [`Event::UlpAccept`] / [`Event::UlpReject`].
    pub private_data: Vec<u8>,
    /// This endpoint's Private Data receive buffer (rule 9).
    pub private_data_buffer: usize,
    /// Responder: give up when no octet of a Request has arrived after this long, to detect
    /// "Responder/Responder" startups (rule 8).
    pub request_timeout: Option<Duration>,
    /// Give up when the awaited startup frame is still incomplete after this long (rule 10).
    pub startup_timeout: Option<Duration>,
}

impl Default for Config {
    /// A non-permissive IETF RNIC speaking revision 1, Markers off, CRC on, no Private Data, a
    /// 512-octet buffer and no timeouts.
    fn default() -> Self {
        Config {
            kind: RnicKind::IetfNonPermissive,
            rev: REV_1,
            markers: false,
            crc: true,
            ird_ord: None,
            private_data: Vec::new(),
            private_data_buffer: PD_LENGTH_MAX,
            request_timeout: None,
            startup_timeout: None,
        }
    }
}

impl Config {
    /// Checks the configuration: an IETF endpoint sends revision 1 or 2, revision 2 with IRD/ORD
    /// settings of 14 bits; the Request's Private Data fits 512 octets.
    pub fn validate(&self) -> Result<(), StartupError> {
        if self.kind != RnicKind::Rdmac {
            match (self.rev, &self.ird_ord) {
                (REV_1, _) => {}
                (REV_2, Some(io)) => io.validate()?,
                (rev, _) => return Err(StartupError::InvalidLocalRevision { rev }),
            }
        }
        build_request(self).validate()
    }

    fn sent_m(&self) -> bool {
        self.kind == RnicKind::Rdmac || self.markers
    }

    fn sent_c(&self) -> bool {
        self.kind == RnicKind::Rdmac || self.crc
    }

    fn sent_rev(&self) -> u8 {
        if self.kind == RnicKind::Rdmac {
            REV_RDMAC
        } else {
            self.rev
        }
    }

    fn enhanced(&self) -> Option<IrdOrd> {
        if self.sent_rev() == REV_2 {
            self.ird_ord
        } else {
            None
        }
    }

    fn receive_rules(&self, expected: Key) -> ReceiveRules {
        ReceiveRules {
            expected_key: Some(expected),
            max_rev: REV_2,
            private_data_buffer: self.private_data_buffer,
        }
    }
}

/// 7.1.2 rule 1: "When MPA is started in the Initiator mode, the MPA implementation MUST send a
/// valid MPA Request Frame. The MPA Request Frame MAY include ULP-supplied Private Data." RDMAC:
/// Rev 0 with M and C set (C.2.1); revision 2: with the IRD/ORD block (RFC 6581).
pub fn build_request(config: &Config) -> Frame {
    let frame = Frame::request(
        config.sent_rev(),
        config.sent_m(),
        config.sent_c(),
        config.private_data.clone(),
    );
    match config.enhanced() {
        Some(io) => frame.with_ird_ord(io),
        None => frame,
    }
}

/// What a Responder does with a valid Request, before its ULP sees the Private Data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyPlan {
    /// Ask the ULP; on acceptance reply with this frame (R = 0, the ULP's Private Data added)
    /// and enter Full Operation with this result (its `peer_private_data` is the Request's).
    AskUlp {
        /// The Reply to send, without the ULP's Private Data.
        reply: Frame,
        /// The result on acceptance.
        negotiated: Negotiated,
    },
    /// Refuse: send this Reply (R = 1), then close TCP with this error.
    RefuseAndClose {
        /// The Reply sent before closing.
        reply: Frame,
        /// The reason, with its code.
        error: StartupError,
    },
}

/// The Responder's decision on a valid Request (7.1.2 rule 2, Appendix C, RFC 6581):
/// - RDMAC: reply Rev 0, M = 1, C = 1 whatever the Request says (C.2.2, C.2.5).
/// - Permissive IETF, Rev 0 Request: reply Rev 0, M = 1, C = 1 and use RDMAC DDP/RDMAP (C.2.4;
///   "will never return an MPA Reply Frame with the M bit set to zero", C.2.3).
/// - Non-permissive IETF, Rev 0 Request: "send an MPA Reply Frame with the Rev field equal to one
///   and then gracefully close the connection" (C.2.1).
/// - Otherwise reply with the lower revision; with an enhanced revision 2 Request, negotiate
///   IRD/ORD ([`negotiate_ird_ord`], code 6) and the RTR type ([`choose_rtr`], code 7); a failure
///   is answered with a rejecting Reply, then TCP is closed.
///
/// R in the Request is ignored: "not checked on reception in the MPA Request Frame" (7.1.1).
pub fn responder_reply_plan(config: &Config, request: &Frame) -> ReplyPlan {
    let negotiated = |reply: &Frame, ird_ord, peer_to_peer, rtr| {
        let v = ddp_rdmap_version(request.rev, reply.rev);
        let markers = marker_state(request.m, reply.m, v);
        Negotiated {
            role: Role::Responder,
            request_rev: request.rev,
            reply_rev: reply.rev,
            ddp_rdmap_version: v,
            markers_initiator_to_responder: markers.responder_rx,
            markers_responder_to_initiator: markers.initiator_rx,
            crc: v == 0 || crc_required(request.c, reply.c),
            ird_ord,
            peer_to_peer,
            rtr,
            peer_private_data: request.private_data.clone(),
        }
    };
    let rdmac_reply = Frame::reply(REV_RDMAC, true, true, false, Vec::new());
    match (config.kind, request.rev) {
        (RnicKind::Rdmac, _) | (RnicKind::IetfPermissive, REV_RDMAC) => {
            let n = negotiated(&rdmac_reply, None, false, None);
            return ReplyPlan::AskUlp { reply: rdmac_reply, negotiated: n };
        }
        (RnicKind::IetfNonPermissive, REV_RDMAC) => {
            return ReplyPlan::RefuseAndClose {
                reply: Frame::reply(
                    config.sent_rev(),
                    config.markers,
                    config.crc,
                    true,
                    Vec::new(),
                ),
                error: StartupError::UnsupportedRevision { rev: REV_RDMAC },
            };
        }
        _ => {}
    }
    let rev = request.rev.min(config.sent_rev());
    let reply = Frame::reply(rev, config.markers, config.crc, false, Vec::new());
    let (local, peer) = match (rev, config.enhanced(), request.ird_ord) {
        (REV_2, Some(local), Some(peer)) => (local, peer),
        _ => {
            let n = negotiated(&reply, None, false, None);
            return ReplyPlan::AskUlp { reply, negotiated: n };
        }
    };
    let refuse = |error| {
        let block = IrdOrd { rtr: RtrTypes::NONE, ..local };
        ReplyPlan::RefuseAndClose {
            reply: Frame { r: true, ..reply.clone() }.with_ird_ord(block),
            error,
        }
    };
    let io = match negotiate_ird_ord(&local, &peer) {
        Ok(io) => io,
        Err(e) => return refuse(e),
    };
    let rtr = if peer.peer_to_peer {
        let supported = if local.peer_to_peer { local.rtr } else { RtrTypes::NONE };
        match choose_rtr(peer.rtr, supported) {
            Ok(r) => Some(r),
            Err(e) => return refuse(e),
        }
    } else {
        None
    };
    let block = IrdOrd {
        peer_to_peer: peer.peer_to_peer,
        rtr: rtr.map(RtrTypes::only).unwrap_or_default(),
        ird: io.ird,
        ord: io.ord,
    };
    let reply = reply.with_ird_ord(block);
    let n = negotiated(&reply, Some(io), peer.peer_to_peer, rtr);
    ReplyPlan::AskUlp { reply, negotiated: n }
}

/// What an Initiator makes of a valid Reply to its Request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyVerdict {
    /// R = 1: "the implementation MUST exit MPA, leaving the TCP connection open" (rule 3).
    Rejected,
    /// Acceptable to MPA: ask the ULP about the Private Data, then enter Full Operation with
    /// this result.
    Accepted(Negotiated),
}

/// The Initiator's checks of a valid Reply (7.1.2 rule 3, Appendix C, RFC 6581), in this order:
/// 1. Revision: Rev 0 from an RDMAC peer is accepted by a permissive Initiator, which then uses
///    RDMAC DDP/RDMAP with Markers and CRC (C.2.5), and makes a non-permissive one "gracefully
///    close the connection" (C.2.2). An RDMAC Initiator accepts only Rev 0. A Reply revision
///    above the Request's cannot be interpreted. All these failures are code 4.
/// 2. R = 1: rejected (rule 3).
/// 3. Revision 2 with an enhanced Request: the Reply must be enhanced (code 4), its ORD must fit
///    this IRD (code 6), its RTR choice must be one of those offered (code 7). A revision 1 Reply
///    to an enhanced Request is a Responder without revision 2: no IRD/ORD, no RTR.
pub fn initiator_check_reply(
    config: &Config,
    request: &Frame,
    reply: &Frame,
) -> Result<ReplyVerdict, StartupError> {
    let rdmac_peer = reply.rev == REV_RDMAC;
    let rev_ok = match config.kind {
        RnicKind::Rdmac => rdmac_peer,
        RnicKind::IetfPermissive => reply.rev <= request.rev,
        RnicKind::IetfNonPermissive => !rdmac_peer && reply.rev <= request.rev,
    };
    if !rev_ok {
        return Err(StartupError::UnsupportedRevision { rev: reply.rev });
    }
    if reply.r {
        return Ok(ReplyVerdict::Rejected);
    }
    let mut ird_ord = None;
    let mut peer_to_peer = false;
    let mut rtr = None;
    if let (Some(local), Some(offer), REV_2) = (config.enhanced(), request.ird_ord, reply.rev) {
        let answer = reply.ird_ord.ok_or(StartupError::EnhancedReplyMissing)?;
        ird_ord = Some(negotiate_ird_ord(&local, &answer)?);
        rtr = check_rtr_choice(&offer, &answer)?;
        peer_to_peer = offer.peer_to_peer;
    }
    let v = ddp_rdmap_version(request.rev, reply.rev);
    let markers = marker_state(request.m, reply.m, v);
    Ok(ReplyVerdict::Accepted(Negotiated {
        role: Role::Initiator,
        request_rev: request.rev,
        reply_rev: reply.rev,
        ddp_rdmap_version: v,
        markers_initiator_to_responder: markers.responder_rx,
        markers_responder_to_initiator: markers.initiator_rx,
        crc: v == 0 || crc_required(request.c, reply.c),
        ird_ord,
        peer_to_peer,
        rtr,
        peer_private_data: reply.private_data.clone(),
    }))
}

// ---------------------------------------------------------------------------------------------
// Appendix C, Figures 15, 16, 17
// ---------------------------------------------------------------------------------------------

/// One endpoint in the Appendix C figures: its RNIC type and the M (and C) it puts in its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Peer {
    /// RNIC type.
    pub kind: RnicKind,
    /// M in its frame (the figures' MARKER column). An RDMAC RNIC always sends 1.
    pub markers: bool,
    /// C in its frame. An RDMAC RNIC always sends 1.
    pub crc: bool,
}

impl Peer {
    /// An upgraded RDMAC RNIC: M = 1, C = 1 (C.2.1).
    pub fn rdmac() -> Peer {
        Peer { kind: RnicKind::Rdmac, markers: true, crc: true }
    }

    /// A non-permissive IETF RNIC with this M and C.
    pub fn non_permissive(markers: bool, crc: bool) -> Peer {
        Peer { kind: RnicKind::IetfNonPermissive, markers, crc }
    }

    /// A permissive IETF RNIC with this M and C.
    pub fn permissive(markers: bool, crc: bool) -> Peer {
        Peer { kind: RnicKind::IetfPermissive, markers, crc }
    }
}

/// A cell of Figures 15-17.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InteropOutcome {
    /// The connection reaches Full Operation.
    Connected {
        /// "V": DDP/RDMAP version, 0 (RDMAC) or 1 (IETF).
        ddp_rdmap_version: u8,
        /// "M=X/Y": Markers in the receive direction of the Initiator/Responder.
        markers: MarkerState,
        /// CRCs on (not in the figures: "there is no interoperability issue for CRCs", C.1).
        crc: bool,
    },
    /// "close": the endpoint `by` closes the connection with `error`.
    Closed {
        /// Which endpoint closes.
        by: Role,
        /// Its reason.
        error: StartupError,
    },
}

/// The outcome of an MPA startup between `initiator` and `responder`, as Appendix C tabulates
/// it (Figure 15: RDMAC and non-permissive IETF; Figure 16: RDMAC and permissive IETF; Figure 17:
/// non-permissive and permissive IETF; Figure 14 for RDMAC with RDMAC):
/// - Two IETF RNICs, permissive or not (Figures 15, 17): V = 1, Markers X/Y = the Request's M /
///   the Reply's M, CRC when either asks.
/// - RDMAC with RDMAC, or an RDMAC peer with a permissive IETF RNIC in either role (Figure 16):
///   V = 0, M = 1/1, CRC on. The permissive Responder's M = 0 column against an RDMAC Initiator is
///   "N/A": it "will never return an MPA Reply Frame with the M bit set to zero" (C.2.3), so the
///   outcome is that of its M = 1 column.
/// - RDMAC Initiator, non-permissive Responder: "close" (Figure 15); the Responder sends a Rev 1
///   Reply, then closes (C.2.1).
/// - Non-permissive Initiator, RDMAC Responder: "close"; the Initiator closes "after it reads the
///   incompatible Rev field in the MPA Reply Frame" (C.2.2).
pub fn appendix_c_outcome(initiator: Peer, responder: Peer) -> InteropOutcome {
    use RnicKind::*;
    let rdmac = InteropOutcome::Connected {
        ddp_rdmap_version: 0,
        markers: MarkerState { initiator_rx: true, responder_rx: true },
        crc: true,
    };
    match (initiator.kind, responder.kind) {
        (Rdmac, Rdmac) | (Rdmac, IetfPermissive) | (IetfPermissive, Rdmac) => rdmac,
        (Rdmac, IetfNonPermissive) => InteropOutcome::Closed {
            by: Role::Responder,
            error: StartupError::UnsupportedRevision { rev: REV_RDMAC },
        },
        (IetfNonPermissive, Rdmac) => InteropOutcome::Closed {
            by: Role::Initiator,
            error: StartupError::UnsupportedRevision { rev: REV_RDMAC },
        },
        (IetfNonPermissive | IetfPermissive, IetfNonPermissive | IetfPermissive) => {
            InteropOutcome::Connected {
                ddp_rdmap_version: 1,
                markers: MarkerState {
                    initiator_rx: initiator.markers,
                    responder_rx: responder.markers,
                },
                crc: crc_required(initiator.crc, responder.crc),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// State machines (7.1.2)
// ---------------------------------------------------------------------------------------------

/// An input to a startup state machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Octets received from TCP, in order.
    Received(Vec<u8>),
    /// The TCP connection closed (FIN, RST, loss).
    TcpClosed,
    /// Time passed since the previous `Elapsed` (or since start).
    Elapsed(Duration),
    /// The ULP accepts the peer's Private Data. A Responder sends these octets as its Reply
    /// Private Data; an Initiator ignores them.
    UlpAccept(Vec<u8>),
    /// The ULP rejects the peer's Private Data. A Responder sends these octets as its rejecting
    /// Reply's Private Data; an Initiator ignores them.
    UlpReject(Vec<u8>),
    /// The ULP wants to send an FPDU (already framed with [`Negotiated::tx_framing`]).
    UlpSend(Vec<u8>),
    /// The receive path validated an FPDU from the peer (7.1.2 rule 4 releases the Responder).
    FpduValidated,
}

/// Why MPA exited leaving TCP open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitReason {
    /// This endpoint's ULP rejected the peer's Private Data (rules 2, 3, 6).
    RejectedByUlp,
    /// The Responder's Reply has R = 1; the Reply is attached for its Private Data (rule 3,
    /// 7.1.4.2).
    RejectedByPeer(Frame),
}

/// An output of a startup state machine, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send these octets on TCP (a startup frame, or FPDUs).
    Send(Vec<u8>),
    /// The peer's frame arrived and is valid: the ULP examines its Private Data and answers with
    /// [`Event::UlpAccept`] or [`Event::UlpReject`] (7.1.2 rules 2, 3, 6; 7.1.4).
    PrivateDataReceived(Frame),
    /// MPA enters Full Operation with this result.
    FullOperation(Negotiated),
    /// Octets received in Full Operation, for the FPDU receive path.
    Deliver(Vec<u8>),
    /// Close the TCP connection and report this error (with its code) to the ULP.
    CloseTcp(StartupError),
    /// Exit MPA, leaving the TCP connection open: "The ULP may close TCP or use the connection
    /// for other purposes" (rules 2, 3).
    ExitMpa(ExitReason),
    /// A ULP request was refused; nothing else changes.
    Error(StartupError),
}

/// Where a state machine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// Waiting for the peer's startup frame (Request at a Responder, Reply at an Initiator).
    AwaitingFrame,
    /// Waiting for the ULP to accept or reject the peer's Private Data.
    AwaitingUlp,
    /// Full MPA/DDP Operation.
    FullOperation,
    /// MPA exited, TCP left open (a rejection).
    Exited,
    /// TCP closed (an error, or the peer closed).
    Closed,
}

/// Shared timer and receive-buffer bookkeeping of both roles.
#[derive(Clone, Debug)]
struct Startup {
    config: Config,
    state: State,
    rx: Vec<u8>,
    elapsed: Duration,
}

impl Startup {
    fn close(&mut self, error: StartupError) -> Vec<Action> {
        self.state = State::Closed;
        vec![Action::CloseTcp(error)]
    }

    /// Appends received octets and tries to decode the awaited frame.
    fn receive_frame(&mut self, data: &[u8], expected: Key) -> Result<Option<Frame>, StartupError> {
        self.rx.extend_from_slice(data);
        match Frame::decode_with(&self.rx, &self.config.receive_rules(expected))? {
            Decoded::Incomplete { .. } => Ok(None),
            Decoded::Complete { frame, consumed } => {
                let extra = self.rx.len() - consumed;
                self.rx.clear();
                if extra > 0 {
                    return Err(StartupError::UnexpectedDataAfterFrame {
                        frame: expected,
                        octets: extra,
                    });
                }
                Ok(Some(frame))
            }
        }
    }

    /// The TCP connection closed while waiting for a frame: an incomplete frame is an error
    /// (7.1.1 PD_Length, code 4, or code 1).
    fn tcp_closed(&mut self, expected: Key) -> Vec<Action> {
        let error = if self.state == State::AwaitingFrame {
            match Frame::decode_at_close(&self.rx, &self.config.receive_rules(expected)) {
                Err(e) => e,
                Ok(_) => StartupError::TcpClosed { received: self.rx.len() },
            }
        } else {
            StartupError::TcpClosed { received: 0 }
        };
        self.close(error)
    }

    /// 7.1.2 rule 10: "MPA implementations SHOULD implement a reasonable timeout while waiting
    /// for the entire set of startup frames".
    fn startup_timeout_expired(&self) -> bool {
        self.state == State::AwaitingFrame
            && self.config.startup_timeout.is_some_and(|t| self.elapsed >= t)
    }
}

/// The Initiator side of 7.1.2: sends the Request (rule 1), validates the Reply (rules 3, 5, 8,
/// 9), lets the ULP examine its Private Data, then enters Full Operation. Octets that follow the
/// Reply before this Initiator has sent its first FPDU break rule 4 at the Responder (or
/// PD_Length, 7.1.1) and close the connection.
#[derive(Clone, Debug)]
pub struct Initiator {
    core: Startup,
    request: Frame,
    pending: Option<Negotiated>,
    negotiated: Option<Negotiated>,
    first_fpdu_sent: bool,
}

impl Initiator {
    /// Starts MPA in Initiator mode: validates `config` and returns the machine with its first
    /// action, sending the Request (rule 1).
    pub fn start(config: Config) -> Result<(Initiator, Vec<Action>), StartupError> {
        config.validate()?;
        let request = build_request(&config);
        let send = vec![Action::Send(request.encode())];
        let core = Startup {
            config,
            state: State::AwaitingFrame,
            rx: Vec::new(),
            elapsed: Duration::ZERO,
        };
        Ok((
            Initiator { core, request, pending: None, negotiated: None, first_fpdu_sent: false },
            send,
        ))
    }

    /// Current state.
    pub fn state(&self) -> State {
        self.core.state
    }

    /// The Request this Initiator sent.
    pub fn request(&self) -> &Frame {
        &self.request
    }

    /// The result, once in Full Operation.
    pub fn negotiated(&self) -> Option<&Negotiated> {
        self.negotiated.as_ref()
    }

    /// Processes one event.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let state = self.core.state;
        if matches!(state, State::Exited | State::Closed) {
            return match event {
                Event::UlpSend(_) => vec![Action::Error(StartupError::SendBeforeFullOperation)],
                Event::UlpAccept(_) | Event::UlpReject(_) => {
                    vec![Action::Error(StartupError::NoPendingDecision)]
                }
                _ => Vec::new(),
            };
        }
        match event {
            Event::Received(data) => self.received(&data),
            Event::TcpClosed => self.core.tcp_closed(Key::Reply),
            Event::Elapsed(dt) => {
                self.core.elapsed = self.core.elapsed.saturating_add(dt);
                if self.core.startup_timeout_expired() {
                    let waited = self.core.elapsed;
                    return self.core.close(StartupError::StartupTimeout { waited });
                }
                Vec::new()
            }
            Event::UlpAccept(_) => match self.pending.take() {
                Some(n) => {
                    self.core.state = State::FullOperation;
                    self.negotiated = Some(n.clone());
                    vec![Action::FullOperation(n)]
                }
                None => vec![Action::Error(StartupError::NoPendingDecision)],
            },
            Event::UlpReject(_) => match self.pending.take() {
                // Rule 3: Private Data not acceptable: exit MPA, leaving TCP open.
                Some(_) => {
                    self.core.state = State::Exited;
                    vec![Action::ExitMpa(ExitReason::RejectedByUlp)]
                }
                None => vec![Action::Error(StartupError::NoPendingDecision)],
            },
            Event::UlpSend(fpdu) => {
                if state != State::FullOperation {
                    return vec![Action::Error(StartupError::SendBeforeFullOperation)];
                }
                self.first_fpdu_sent = true;
                vec![Action::Send(fpdu)]
            }
            Event::FpduValidated => Vec::new(),
        }
    }

    fn received(&mut self, data: &[u8]) -> Vec<Action> {
        if data.is_empty() {
            return Vec::new();
        }
        match self.core.state {
            State::AwaitingFrame => {}
            State::FullOperation if self.first_fpdu_sent => {
                return vec![Action::Deliver(data.to_vec())]
            }
            _ => {
                return self.core.close(StartupError::UnexpectedDataAfterFrame {
                    frame: Key::Reply,
                    octets: data.len(),
                })
            }
        }
        let reply = match self.core.receive_frame(data, Key::Reply) {
            Ok(Some(f)) => f,
            Ok(None) => return Vec::new(),
            Err(e) => return self.core.close(e),
        };
        match initiator_check_reply(&self.core.config, &self.request, &reply) {
            Err(e) => self.core.close(e),
            Ok(ReplyVerdict::Rejected) => {
                self.core.state = State::Exited;
                vec![Action::ExitMpa(ExitReason::RejectedByPeer(reply))]
            }
            Ok(ReplyVerdict::Accepted(n)) => {
                self.core.state = State::AwaitingUlp;
                self.pending = Some(n);
                vec![Action::PrivateDataReceived(reply)]
            }
        }
    }
}

/// The Responder side of 7.1.2: waits for a valid Request (rules 2, 5, 9), lets the ULP accept
/// (Reply with R = 0, Full Operation) or reject (Reply with R = 1, exit MPA leaving TCP open),
/// and sends no FPDU before it has been told an FPDU from the Initiator was validated (rule 4):
/// until then the ULP's FPDUs are queued. Detects a Responder/Responder startup by timeout
/// (rule 8).
#[derive(Clone, Debug)]
pub struct Responder {
    core: Startup,
    plan: Option<(Frame, Negotiated)>,
    negotiated: Option<Negotiated>,
    fpdu_validated: bool,
    queued: Vec<Vec<u8>>,
}

impl Responder {
    /// Starts MPA in Responder mode: it waits for the Request.
    pub fn start(config: Config) -> Result<Responder, StartupError> {
        config.validate()?;
        let core = Startup {
            config,
            state: State::AwaitingFrame,
            rx: Vec::new(),
            elapsed: Duration::ZERO,
        };
        Ok(Responder {
            core,
            plan: None,
            negotiated: None,
            fpdu_validated: false,
            queued: Vec::new(),
        })
    }

    /// Current state.
    pub fn state(&self) -> State {
        self.core.state
    }

    /// The result, once in Full Operation.
    pub fn negotiated(&self) -> Option<&Negotiated> {
        self.negotiated.as_ref()
    }

    /// Rule 4 is satisfied: an FPDU from the Initiator was validated, FPDUs may be sent.
    pub fn may_send_fpdus(&self) -> bool {
        self.core.state == State::FullOperation && self.fpdu_validated
    }

    /// FPDUs the ULP handed over that wait for rule 4.
    pub fn queued_fpdus(&self) -> usize {
        self.queued.len()
    }

    /// Processes one event.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let state = self.core.state;
        if matches!(state, State::Exited | State::Closed) {
            return match event {
                Event::UlpSend(_) => vec![Action::Error(StartupError::SendBeforeFullOperation)],
                Event::UlpAccept(_) | Event::UlpReject(_) => {
                    vec![Action::Error(StartupError::NoPendingDecision)]
                }
                _ => Vec::new(),
            };
        }
        match event {
            Event::Received(data) => self.received(&data),
            Event::TcpClosed => self.core.tcp_closed(Key::Request),
            Event::Elapsed(dt) => self.elapsed(dt),
            Event::UlpAccept(pd) => self.ulp_decides(pd, true),
            Event::UlpReject(pd) => self.ulp_decides(pd, false),
            Event::UlpSend(fpdu) => self.rule_4_send(fpdu),
            Event::FpduValidated => self.rule_4_release(),
        }
    }

    fn received(&mut self, data: &[u8]) -> Vec<Action> {
        if data.is_empty() {
            return Vec::new();
        }
        match self.core.state {
            State::AwaitingFrame => {}
            State::FullOperation => return vec![Action::Deliver(data.to_vec())],
            _ => {
                return self.core.close(StartupError::UnexpectedDataAfterFrame {
                    frame: Key::Request,
                    octets: data.len(),
                })
            }
        }
        let request = match self.core.receive_frame(data, Key::Request) {
            Ok(Some(f)) => f,
            Ok(None) => return Vec::new(),
            // Rule 2: "If the MPA Request Frame is improperly formatted, the implementation MUST
            // close the TCP connection and exit MPA."
            Err(e) => return self.core.close(e),
        };
        match responder_reply_plan(&self.core.config, &request) {
            ReplyPlan::RefuseAndClose { reply, error } => {
                let mut actions = vec![Action::Send(reply.encode())];
                actions.extend(self.core.close(error));
                actions
            }
            ReplyPlan::AskUlp { reply, negotiated } => {
                self.core.state = State::AwaitingUlp;
                self.plan = Some((reply, negotiated));
                vec![Action::PrivateDataReceived(request)]
            }
        }
    }

    /// Rules 8 and 10: the request timeout while no octet has arrived, the startup timeout
    /// while the Request is incomplete.
    fn elapsed(&mut self, dt: Duration) -> Vec<Action> {
        self.core.elapsed = self.core.elapsed.saturating_add(dt);
        let waited = self.core.elapsed;
        let no_request = self.core.state == State::AwaitingFrame
            && self.core.rx.is_empty()
            && self.core.config.request_timeout.is_some_and(|t| waited >= t);
        if no_request {
            return self.core.close(StartupError::RequestTimeout { waited });
        }
        if self.core.startup_timeout_expired() {
            return self.core.close(StartupError::StartupTimeout { waited });
        }
        Vec::new()
    }

    /// Rule 2: accepted, "return an MPA Reply Frame with the Rejected Connection bit set to '0'
    /// ... and the Responder SHOULD prepare to interpret any data received as FPDUs"; rejected,
    /// "return an MPA Reply Frame with the Rejected Connection bit set to '1' ... MUST exit MPA,
    /// leaving the TCP connection open".
    fn ulp_decides(&mut self, private_data: Vec<u8>, accept: bool) -> Vec<Action> {
        let (mut reply, negotiated) = match self.plan.take() {
            Some(p) => p,
            None => return vec![Action::Error(StartupError::NoPendingDecision)],
        };
        reply.private_data = private_data;
        reply.r = !accept;
        if let Err(e) = reply.validate() {
            reply.private_data.clear();
            self.plan = Some((reply, negotiated));
            return vec![Action::Error(e)];
        }
        let send = Action::Send(reply.encode());
        if accept {
            self.core.state = State::FullOperation;
            self.negotiated = Some(negotiated.clone());
            vec![send, Action::FullOperation(negotiated)]
        } else {
            self.core.state = State::Exited;
            vec![send, Action::ExitMpa(ExitReason::RejectedByUlp)]
        }
    }

    /// Rule 4: "MPA Responder mode implementations MUST receive and validate at least one FPDU
    /// before sending any FPDUs or Markers." Before that, the ULP's FPDUs are queued.
    fn rule_4_send(&mut self, fpdu: Vec<u8>) -> Vec<Action> {
        if self.core.state != State::FullOperation {
            return vec![Action::Error(StartupError::SendBeforeFullOperation)];
        }
        if self.fpdu_validated {
            vec![Action::Send(fpdu)]
        } else {
            self.queued.push(fpdu);
            Vec::new()
        }
    }

    /// Rule 4: the first validated FPDU releases the queued FPDUs, in order.
    fn rule_4_release(&mut self) -> Vec<Action> {
        if self.core.state != State::FullOperation || self.fpdu_validated {
            return Vec::new();
        }
        self.fpdu_validated = true;
        self.queued.drain(..).map(Action::Send).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_rfc_hex() {
        assert_eq!(
            KEY_REQUEST,
            [
                0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72, 0x61,
                0x6D, 0x65
            ]
        );
        assert_eq!(
            KEY_REPLY,
            [
                0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70, 0x20, 0x46, 0x72, 0x61,
                0x6D, 0x65
            ]
        );
    }

    #[test]
    fn check_key_waits_on_a_common_prefix_and_fails_on_the_first_bad_octet() {
        assert_eq!(check_key(b"MPA ID Re", Some(Key::Request)), Ok(None));
        assert_eq!(check_key(b"MPA ID Rep", Some(Key::Request)), Ok(None));
        assert_eq!(
            check_key(b"MPA X", Some(Key::Request)),
            Err(StartupError::InvalidKey { received: b"MPA X".to_vec() })
        );
        assert_eq!(check_key(b"", None), Ok(None));
        assert_eq!(check_key(&KEY_REPLY, None), Ok(Some(Key::Reply)));
    }

    #[test]
    fn ird_ord_block_bit_positions() {
        let io = IrdOrd {
            peer_to_peer: true,
            rtr: RtrTypes { send: true, write: false, read: true },
            ird: 0x1234,
            ord: 0x0005,
        };
        assert_eq!(io.encode(), [0xD2, 0x34, 0x40, 0x05]);
        assert_eq!(IrdOrd::decode(&io.encode()), Ok(io));
        let w = IrdOrd { rtr: RtrTypes::only(Rtr::Write), ..IrdOrd::default() };
        assert_eq!(w.encode(), [0x00, 0x00, 0x80, 0x00]);
    }

    #[test]
    fn rtr_preference_prefers_write_then_read_then_send() {
        assert_eq!(choose_rtr(RtrTypes::ALL, RtrTypes::ALL), Ok(Rtr::Write));
        assert_eq!(
            choose_rtr(RtrTypes { send: true, write: false, read: true }, RtrTypes::ALL),
            Ok(Rtr::Read)
        );
        assert_eq!(choose_rtr(RtrTypes::only(Rtr::Send), RtrTypes::ALL), Ok(Rtr::Send));
    }

    #[test]
    fn error_codes_follow_section_8_and_rfc_6581() {
        assert_eq!(StartupError::InvalidKey { received: vec![] }.code(), Some(4));
        assert_eq!(StartupError::TcpClosed { received: 0 }.code(), Some(1));
        assert_eq!(StartupError::InsufficientIrd { peer_ord: 2, ird: 1 }.code(), Some(6));
        assert_eq!(
            StartupError::NoMatchingRtr { offered: RtrTypes::NONE, other: RtrTypes::NONE }.code(),
            Some(7)
        );
        assert_eq!(StartupError::StartupTimeout { waited: Duration::ZERO }.code(), None);
        assert!(StartupError::PdLengthTooLarge { pd_length: 513 }
            .to_string()
            .starts_with("MPA error code 4"));
    }
}
