//! Message completion (RFC 5041 / 5040): which DDP segment completes which message, and the
//! delivery it produces. Fed one DDP segment at a time in TCP order (the in-order walk).
//!
//! - Tagged (RDMA Write, RDMA Read Response): a message is the run of tagged segments up to and
//!   including the one with L = 1; it is reported with the STag and TO of its first segment and
//!   the payload octets of all of them. RDMAP sends one message at a time, so the open tagged
//!   message is the one the next tagged segment continues.
//! - Untagged Send variants: the L = 1 segment completes message (QN, MSN); its length is that
//!   segment's MO plus its payload length.
//! - RDMA Read Request and Terminate are single segments (validation guarantees L = 1).

use super::events::Delivery;
use crate::ddp::{DdpSegment, Opcode, ReadRequestHeader, TerminateControl};

#[derive(Clone, Copy, Debug)]
struct OpenTagged {
    opcode: Opcode,
    stag: u32,
    to: u64,
    len: u64,
}

/// The messages in progress.
#[derive(Clone, Debug, Default)]
pub struct MessageTracker {
    open_tagged: Option<OpenTagged>,
}

impl MessageTracker {
    /// Accounts for one placed DDP segment (its payload `payload_len` octets long; `segment`
    /// carries the payload itself only when the delivery needs it: Read Request, Terminate) and
    /// returns the delivery it completes, if any. `seq` is the FPDU's sequence number.
    pub fn account(
        &mut self,
        segment: &DdpSegment,
        payload_len: u64,
        seq: u32,
    ) -> Option<Delivery> {
        match segment {
            DdpSegment::Tagged { header, .. } => {
                let open = self.open_tagged.get_or_insert(OpenTagged {
                    opcode: header.rdmap.opcode,
                    stag: header.stag,
                    to: header.to,
                    len: 0,
                });
                open.len += payload_len;
                if !header.control.last {
                    return None;
                }
                let m = self.open_tagged.take()?;
                Some(match m.opcode {
                    Opcode::RdmaReadResponse => {
                        Delivery::ReadResponse { stag: m.stag, to: m.to, len: m.len, seq }
                    }
                    _ => Delivery::Write { stag: m.stag, to: m.to, len: m.len, seq },
                })
            }
            DdpSegment::Untagged { header, payload } => {
                if !header.control.last {
                    return None;
                }
                let op = header.rdmap.opcode;
                match op {
                    Opcode::RdmaReadRequest => {
                        let r = ReadRequestHeader::decode(payload).unwrap_or_default();
                        Some(Delivery::read_request(header.msn, &r, seq))
                    }
                    Opcode::Terminate => {
                        let (layer, etype, code) = match TerminateControl::decode(payload) {
                            Ok(t) => (t.code.layer, t.code.etype, t.code.code),
                            Err(_) => (0, 0, 0),
                        };
                        Some(Delivery::Terminate {
                            msn: header.msn,
                            layer,
                            etype,
                            code,
                            len: payload_len,
                            seq,
                        })
                    }
                    _ => Some(Delivery::Send {
                        qn: header.qn,
                        msn: header.msn,
                        len: header.mo as u64 + payload_len,
                        se: op.solicited_event(),
                        invalidate: op.carries_invalidate_stag().then_some(header.invalidate_stag),
                        seq,
                    }),
                }
            }
        }
    }
}
