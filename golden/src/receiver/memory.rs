//! The memory DDP places into: every registered region and every posted buffer, octet for octet
//! (octets never written are 0), and a log of the writes for tests.

use crate::ddp::Placement;
use std::collections::BTreeMap;

/// Where a write landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// A registered region, by STag.
    Region(u32),
    /// A posted buffer, by queue and message number.
    Buffer {
        /// Queue.
        qn: u32,
        /// Message number.
        msn: u32,
    },
}

/// One write: `len` octets at `offset` of `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    /// Region or buffer.
    pub target: Target,
    /// Octet offset in it.
    pub offset: u64,
    /// Octets written.
    pub len: u64,
    /// Sequence number of the FPDU's first octet.
    pub seq: u32,
    /// Events (deliveries, the error) the receiver had produced before this write: orders the
    /// write among them.
    pub after_events: u64,
}

/// The contents of every region and posted buffer.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    buffers: BTreeMap<Target, Vec<u8>>,
    log: Option<Vec<Write>>,
    /// Events produced so far (kept by the receiver, stamped on each logged write).
    pub(crate) events_before_next_write: u64,
}

impl Memory {
    /// Zeroed memory for `targets` (target, length).
    pub fn new(targets: impl IntoIterator<Item = (Target, u64)>) -> Self {
        let buffers = targets.into_iter().map(|(t, len)| (t, vec![0u8; len as usize])).collect();
        Memory { buffers, log: None, events_before_next_write: 0 }
    }

    /// Starts recording every write ([`Memory::writes`]).
    pub fn record_writes(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    /// The writes recorded so far.
    pub fn writes(&self) -> &[Write] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Writes `payload` where `placement` says. Returns false, writing nothing, if the target
    /// does not exist or is too short (the placement checks make that impossible; the caller
    /// treats it as an internal error, never as a write somewhere else).
    pub fn place(&mut self, placement: &Placement, payload: &[u8], seq: u32) -> bool {
        let (target, offset) = match *placement {
            Placement::Tagged { stag, offset, .. } => (Target::Region(stag), offset),
            Placement::Untagged { qn, msn, mo, .. } => (Target::Buffer { qn, msn }, mo as u64),
            Placement::TaggedEmpty { .. } => return true,
        };
        if payload.is_empty() {
            return true;
        }
        let Some(buf) = self.buffers.get_mut(&target) else { return false };
        let Some(end) = offset.checked_add(payload.len() as u64) else { return false };
        let Some(dst) = buf.get_mut(offset as usize..end as usize) else { return false };
        dst.copy_from_slice(payload);
        if let Some(log) = &mut self.log {
            let after_events = self.events_before_next_write;
            log.push(Write { target, offset, len: payload.len() as u64, seq, after_events });
        }
        true
    }

    /// The contents of `target`.
    pub fn get(&self, target: Target) -> Option<&[u8]> {
        self.buffers.get(&target).map(Vec::as_slice)
    }

    /// Every target and its contents, regions first (by STag), then buffers (by QN, MSN).
    pub fn iter(&self) -> impl Iterator<Item = (Target, &[u8])> {
        self.buffers.iter().map(|(t, b)| (*t, b.as_slice()))
    }
}
