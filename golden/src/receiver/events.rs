//! What the receiver reports: a verdict per segment, deliveries in TCP order, at most one error,
//! and counters. All of it serializes to the JSON Lines `rnic place` writes.

use crate::ddp::{ReadRequestHeader, TerminateCode};
use serde::Serialize;
use std::fmt;

/// The verdict on one TCP segment, for TCP: acknowledge it or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every octet of the segment is placed, held, or was already received: TCP may acknowledge
    /// it.
    Accepted,
    /// The segment was not taken (the reassembly buffer or the record table has no room for what
    /// it would leave held); nothing of it was kept. TCP must not acknowledge it; the sender
    /// retransmits it.
    Refused,
}

/// A message handed to the consumer, in TCP order (RFC 5041: at most once, in send order).
/// `seq` is the sequence number of the first octet of the FPDU that completed the message (its
/// L = 1 segment).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Delivery {
    /// Send, Send with Invalidate, Send with Solicited Event, Send with SE and Invalidate.
    Send {
        /// Queue (always 0).
        qn: u32,
        /// Message sequence number.
        msn: u32,
        /// Message length: MO + payload length of the L = 1 segment.
        len: u64,
        /// Solicited Event requested.
        se: bool,
        /// The STag invalidated by this Send (invalid from this delivery on), if any.
        invalidate: Option<u32>,
        /// See the type's documentation.
        seq: u32,
    },
    /// An RDMA Write completed (its L = 1 segment placed in order).
    Write {
        /// STag of the first segment.
        stag: u32,
        /// TO of the first segment.
        to: u64,
        /// Payload octets of all its segments.
        len: u64,
        /// See the type's documentation.
        seq: u32,
    },
    /// An RDMA Read Response completed.
    ReadResponse {
        /// STag of the first segment.
        stag: u32,
        /// TO of the first segment.
        to: u64,
        /// Payload octets of all its segments.
        len: u64,
        /// See the type's documentation.
        seq: u32,
    },
    /// An RDMA Read Request: its 28-octet header, for the responder.
    ReadRequest {
        /// Message sequence number on queue 1.
        msn: u32,
        /// Data sink STag.
        sink_stag: u32,
        /// Data sink TO.
        sink_to: u64,
        /// Read size.
        size: u32,
        /// Data source STag.
        source_stag: u32,
        /// Data source TO.
        source_to: u64,
        /// See the type's documentation.
        seq: u32,
    },
    /// A Terminate message from the peer: its Terminate Control. Nothing is placed or delivered
    /// after it.
    Terminate {
        /// Message sequence number on queue 2.
        msn: u32,
        /// Layer of the peer's error.
        layer: u8,
        /// Error type.
        etype: u8,
        /// Error code.
        code: u8,
        /// Payload length (Terminate Control and what follows).
        len: u64,
        /// See the type's documentation.
        seq: u32,
    },
}

impl Delivery {
    /// The delivery of RDMA Read Request `msn` with header `r`.
    pub fn read_request(msn: u32, r: &ReadRequestHeader, seq: u32) -> Self {
        Delivery::ReadRequest {
            msn,
            sink_stag: r.sink_stag,
            sink_to: r.sink_to,
            size: r.size,
            source_stag: r.source_stag,
            source_to: r.source_to,
            seq,
        }
    }
}

/// The first error on the connection (RFC 5044 section 8 for MPA; RFC 5041 / 5040 codes for
/// DDP and RDMAP, `SPECS.md`). Reported when its FPDU is reached in TCP order; nothing is
/// placed or delivered after it, and nothing of the failing FPDU is written (except a tagged
/// FPDU placed out of order before the Send with Invalidate that precedes it arrived; see the
/// module documentation of [`crate::receiver`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiveError {
    /// Terminate layer / type / code.
    pub code: TerminateCode,
    /// Sequence number of the failing FPDU's first octet (a leading Marker included).
    pub seq: u32,
    /// What went wrong, for people.
    pub reason: String,
}

impl fmt::Display for ReceiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at sequence number {}: {}", self.code, self.seq, self.reason)
    }
}

/// One event, in the order the receiver produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A message delivered.
    Deliver(Delivery),
    /// The first error.
    Error(ReceiveError),
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Metrics {
    /// Segments offered (a refused segment offered again counts again).
    pub segments: u64,
    /// Segments refused.
    pub refused: u64,
    /// DDP payload octets placed straight from the segment that carried their whole FPDU (zero
    /// copy), in order or out of order.
    pub direct_octets: u64,
    /// DDP payload octets placed after a stay in the reassembly buffer.
    pub held_octets: u64,
    /// Most octets held at once (measured after each segment).
    pub peak_held_octets: u64,
    /// FPDUs placed out of order (a subset of all placements).
    pub ooo_fpdus: u64,
    /// Most records (placed FPDUs and held runs) in the table at once.
    pub peak_records: u64,
}

/// Input that a TCP which validated its segments (RFC 5044 A.3 1) cannot produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// The segment ends more than 2^30 octets ahead of the in-order edge (beyond any TCP
    /// window).
    OutsideWindow {
        /// The segment's sequence number.
        seq: u32,
    },
    /// Octets beyond the FIN.
    AfterFin {
        /// The segment's sequence number.
        seq: u32,
    },
    /// A second FIN at another sequence number.
    SecondFin {
        /// The segment's sequence number.
        seq: u32,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::OutsideWindow { seq } => write!(
                f,
                "segment at sequence number {seq} ends more than 2^30 octets ahead of the \
                 in-order edge (outside any TCP window)"
            ),
            InputError::AfterFin { seq } => {
                write!(f, "segment at sequence number {seq} carries octets after the FIN")
            }
            InputError::SecondFin { seq } => {
                write!(f, "segment at sequence number {seq} carries a second FIN elsewhere")
            }
        }
    }
}

impl std::error::Error for InputError {}
