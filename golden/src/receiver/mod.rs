//! The RNIC receive side of one connection, at transaction level: TCP payload segments in, in
//! any order, DDP payload placed into registered memory and posted buffers as early as the
//! specifications allow, messages delivered in TCP order, at most one error. This is the
//! reference the hardware placement unit is judged against: every decision below is one rule,
//! and the hardware with the same buffer sizes must make the same decisions.
//!
//! Specifications: RFC 5044 section 6 (locating FPDUs), 8 (errors), Appendix A.3 (segments
//! passed to MPA out of order, duplicates never overwrite validated FPDUs), A.4 and A.5
//! (re-segmentation, reassembly buffers), B.1.4 (out-of-order placement, in-order delivery),
//! B.2 (header alignment detection); RFC 5041 / 5040 through `SPECS.md` and [`crate::ddp`].
//!
//! # Model
//! Stream offsets count octets from `origin` (the first octet of Full Operation, also the
//! Marker origin), unwrapped to 64 bits; sequence numbers are mapped to offsets relative to the
//! in-order edge, so they may wrap through 2^32 anywhere. TCP has validated every segment
//! (A.3 1: checksum, window); copies of the same octet carry the same value.
//!
//! - The **in-order edge** is the first octet not received; every octet before it is received.
//!   Received octets are consumed (their FPDU was processed in order), **held** (in the
//!   reassembly buffer) or **placed** (inside an FPDU placed out of order; zero copy: its octets
//!   are not kept, only a record of it).
//! - **Records**: each placed FPDU and each maximal run of held octets is one record; the table
//!   holds at most `records`.
//!
//! # A segment that starts at or before the edge (in order)
//! Its new octets are held, the edge advances over everything now contiguous (held runs and
//! placed FPDUs), and the **in-order walk** processes FPDUs from the first unprocessed one by the
//! ULPDU_Length chain (section 6, method 1):
//! - a placed FPDU starting there is checked again against the current STag table and queues
//!   (an STag may have been invalidated by a Send delivered since), then delivered;
//! - otherwise the FPDU is read from the held octets once complete and verified exactly as
//!   [`crate::deframe`] does (ULPDU_Length limit, CRC, FPDUPTR), its DDP/RDMAP header decoded and
//!   validated ([`crate::ddp::decode_with`]), its placement checked
//!   ([`crate::ddp::PlacementModel::place`]) and, for the L = 1 segment of a Send with
//!   Invalidate, the STag to invalidate checked, all before anything is written; then its payload
//!   is written and its message completed ([`messages`]).
//!
//! The first failure is the connection's error; nothing is placed or delivered after it (section
//! 8), and nothing of the failing FPDU is written. A Terminate delivered ends the connection the
//! same way, without an error. Either way the held octets and the records are dropped. When the
//! stream ends (FIN) inside an FPDU, MPA error 1 at it. An in-order segment is never refused.
//!
//! # A segment that starts beyond the edge (out of order)
//! Only the segment's own octets are used to place: an FPDU is placed at once (zero copy) when it
//! lies entirely inside the segment, is **located** (section 6), passes the MPA checks, and its
//! DDP placement checks pass now. Located means its first octet (always a multiple of 4 octets
//! from the origin, 4.1 and 4.3; other candidates are ignored) is
//! - pointed at by a Marker inside the segment (method 2; Markers on): FPDUPTR 0 at Marker
//!   position P means the FPDU starts at P; otherwise its ULPDU_Length field is at P - FPDUPTR
//!   (low two bits ignored, 4.2) and it starts 4 octets earlier when a Marker precedes that field;
//! - the end of a CRC-good located FPDU (method 3, the chain onward), or the end of the placed
//!   FPDU that contains or ends at the segment's first octet;
//! - the segment's first octet when the segment is **header-aligned** (B.2, `aligned_detect`):
//!   a chain of complete FPDUs, each with a good CRC and a DDP/RDMAP header that validates,
//!   ending exactly at the segment's end. Meant for Markers off; with Markers on it also finds
//!   the FPDUs of segments that hold no Marker (every Marker such a segment holds must agree, as
//!   the CRC check of each FPDU includes the FPDUPTR check).
//!
//! The candidates are tried in that order (header alignment, the placed FPDU's end, the
//! Markers in stream order), each along the chain while its FPDUs verify; a candidate before
//! the first octet not yet tried is skipped, so the located FPDUs never overlap
//! ([`locate_fpdus`]).
//!
//! Without CRCs nothing is located out of order (section 6 locates only "FPDUs with valid CRCs"):
//! every out-of-order octet is held for the in-order walk. The same holds with
//! `place_out_of_order` off (a receiver that only reassembles, as the hardware does today).
//! A segment that ends more than `reassembly_window` octets beyond the edge is refused (a
//! buffer addressed by sequence number covers only that window).
//!
//! A located FPDU that duplicates an FPDU already placed is skipped (A.3 1: never overwritten;
//! its octets are not new). A located FPDU is not placed, and its new octets are held, when it
//! overlaps a placed FPDU, fails a DDP check now, is a tagged FPDU whose STag a placed but
//! undelivered Send with Invalidate names, or is the L = 1 segment of a Send with Invalidate
//! whose STag cannot be invalidated now or is already named by such a Send. Its errors, if any,
//! are reported when the walk reaches it, as in-order processing reports them.
//!
//! Every other new octet of the segment is held. The segment is **refused** (nothing of it kept;
//! TCP must not acknowledge it, the sender retransmits) when, with it, the out-of-order held
//! octets would exceed `reassembly_octets` minus the in-order reserve
//! ([`ReceiverConfig::in_order_reserve`], one largest FPDU) or the out-of-order records would
//! exceed `records - 1`. The reserve keeps room for the FPDU at the edge, so in-order segments
//! are never refused and every stream completes with `reassembly_octets` equal to the reserve
//! and `records` = 1.
//!
//! # The invariant, and where it stops
//! For any arrival order, with duplication, overlap, re-segmentation and refused segments
//! offered again, the deliveries, the memory of every delivered message and the first error are
//! those of the same segments processed in order: the walk makes every decision with the state
//! in-order processing would have at that FPDU. When the chain's FPDU overlaps an FPDU placed
//! out of order (a damaged ULPDU_Length, say), the walk waits, like in-order processing, until
//! that FPDU is complete (MPA error 2: its CRC cannot hold) or the stream ends inside it (error
//! 1). Two exceptions, both needing a peer that breaks the rules on purpose:
//! - A tagged FPDU placed out of order whose STag is invalidated by a Send with Invalidate that
//!   comes earlier in the stream but arrived later is written while the STag is still valid; the
//!   walk then reports the error in-order processing reports (invalid STag), and the message is
//!   never delivered, but its octets are in the region. No receiver that places before the gap
//!   is filled can avoid this; a Send with Invalidate placed before the Write arrives prevents
//!   it (the rule above; a Send with Invalidate that is only held does not).
//! - Two overlapping FPDUs that both verify: one located out of order (by a Marker, or by header
//!   alignment, which a peer can fool by embedding valid FPDUs in its payload and having its
//!   segments cut at their edges; turn `aligned_detect` off to rule that out), the other found
//!   by the length chain. The walk reports MPA error 2 at the chain's FPDU, whose octets were
//!   placed elsewhere, where in-order processing would take it. Without such crafting this needs
//!   a CRC collision.
//!
//! Streams in which two FPDUs address the same octet of a region or buffer are outside the
//! invariant, also when in-order processing would reject one of them (a reused MSN: the second
//! Send with MSN m may be placed before the first is delivered): RFC 5041 leaves such an octet
//! undefined until delivery, and the order of placement decides it. Every such write still lands
//! in a region or buffer the peer may write, and never in a message already delivered (its MSN
//! has left the window, its STag may be invalid).
//!
//! Nothing here panics on hostile input; every write is checked by the placement model against
//! the region or buffer it targets before it is made.

pub mod config;
pub mod events;
pub mod held;
mod in_order;
pub mod memory;
pub mod messages;
mod out_of_order;

pub use config::{PostedConfig, ReceiverConfig, RegionConfig, VersionName};
pub use events::{Delivery, Event, InputError, Metrics, ReceiveError, Verdict};
pub use memory::{Memory, Target, Write};
pub use out_of_order::{locate_fpdus, LocateSettings, Located};

use crate::ddp::{
    Access, DdpSegment, PlacementModel, ProtocolVersion, Region, TerminateCode, QN_READ_REQUEST,
    QN_SEND, QN_TERMINATE,
};
use crate::deframe::DeframeError;
use crate::fpdu::FramingConfig;
use held::{normalize, subtract, HeldOctets, Span};
use messages::MessageTracker;
use std::collections::{BTreeMap, HashMap};

/// How far ahead of the in-order edge a segment may end: 2^30 octets, TCP's largest window.
pub const WINDOW: u64 = 1 << 30;

/// An FPDU placed out of order, remembered until the walk reaches it.
#[derive(Clone, Debug)]
struct PlacedFpdu {
    /// Offset just after its last octet (CRC included).
    end: u64,
    /// Its DDP segment; the payload is kept only where delivery needs it (Read Request,
    /// Terminate).
    segment: DdpSegment,
    /// Payload octets.
    payload_len: u64,
}

/// The receive side of one connection.
#[derive(Clone, Debug)]
pub struct Receiver {
    cfg: ReceiverConfig,
    framing: FramingConfig,
    version: ProtocolVersion,
    model: PlacementModel,
    memory: Memory,
    held: HeldOctets,
    placed: BTreeMap<u64, PlacedFpdu>,
    /// STags named by placed, not yet delivered Sends with Invalidate (L = 1), with counts.
    pending_invalidate: HashMap<u32, u32>,
    /// First octet not received.
    edge: u64,
    /// First octet of the first FPDU not processed in order.
    next_fpdu: u64,
    fin: Option<u64>,
    stopped: bool,
    error: Option<ReceiveError>,
    events: Vec<Event>,
    messages: MessageTracker,
    metrics: Metrics,
    ooo_budget: u64,
}

/// Whether `segment` is the L = 1 segment of a Send with Invalidate, and its STag.
fn invalidate_target(segment: &DdpSegment) -> Option<u32> {
    match segment {
        DdpSegment::Untagged { header, .. }
            if header.control.last && header.rdmap.opcode.carries_invalidate_stag() =>
        {
            Some(header.invalidate_stag)
        }
        _ => None,
    }
}

/// The STag a tagged segment with payload writes through.
fn tagged_stag(segment: &DdpSegment) -> Option<u32> {
    match segment {
        DdpSegment::Tagged { header, payload } if !payload.is_empty() => Some(header.stag),
        _ => None,
    }
}

/// The MPA Terminate code of a deframing error (section 8 code 1, 2 or 3).
fn mpa_code(e: &DeframeError) -> TerminateCode {
    match e.code() {
        1 => TerminateCode::MPA_CONNECTION_LOST,
        3 => TerminateCode::MPA_MARKER,
        _ => TerminateCode::MPA_CRC,
    }
}

impl Receiver {
    /// A receiver for `cfg` (validated first): the STag table and posted buffers loaded, every
    /// queue expecting MSN 1, memory zeroed.
    pub fn new(cfg: &ReceiverConfig) -> Result<Self, config::ConfigError> {
        cfg.validate()?;
        let mut model = PlacementModel::new(cfg.pd, cfg.msn_window);
        for qn in [QN_SEND, QN_READ_REQUEST, QN_TERMINATE] {
            if let Some(q) = model.queue_mut(qn) {
                q.base_msn = cfg.first_msn;
            }
        }
        let mut targets = Vec::new();
        for r in &cfg.regions {
            model.register(
                r.stag,
                Region {
                    base: r.base,
                    len: r.len,
                    access: Access { remote_write: r.write, remote_read: r.read },
                    pd: r.pd,
                    valid: r.valid,
                },
            );
            targets.push((Target::Region(r.stag), r.len));
        }
        for p in &cfg.posted {
            model.post_buffer(p.qn, p.msn, p.len).map_err(|_| {
                config::ConfigError(format!("posted buffer on QN {} has no queue", p.qn))
            })?;
            targets.push((Target::Buffer { qn: p.qn, msn: p.msn }, p.len));
        }
        Ok(Receiver {
            framing: FramingConfig { markers: cfg.markers, crc: cfg.crc, offset: 0 },
            version: cfg.version.protocol(),
            model,
            memory: Memory::new(targets),
            held: HeldOctets::default(),
            placed: BTreeMap::new(),
            pending_invalidate: HashMap::new(),
            edge: 0,
            next_fpdu: 0,
            fin: None,
            stopped: false,
            error: None,
            events: Vec::new(),
            messages: MessageTracker::default(),
            metrics: Metrics::default(),
            ooo_budget: cfg.reassembly_octets - cfg.in_order_reserve(),
            cfg: cfg.clone(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }

    /// Records every memory write from now on ([`Receiver::memory`]`.writes()`).
    pub fn record_writes(&mut self) {
        self.memory.record_writes();
    }

    /// Takes one TCP payload segment: `seq` is the sequence number of its first octet, `fin`
    /// that the connection closes after its last octet. Returns the verdict for TCP; the
    /// deliveries and the error it caused are appended to [`Receiver::events`].
    pub fn segment(&mut self, seq: u32, payload: &[u8], fin: bool) -> Result<Verdict, InputError> {
        self.metrics.segments += 1;
        let rel = seq.wrapping_sub(self.seq_of(self.edge)) as i32 as i64;
        let s = self.edge as i64 + rel;
        let e = s + payload.len() as i64;
        if e > (self.edge + WINDOW) as i64 {
            self.metrics.segments -= 1;
            return Err(InputError::OutsideWindow { seq });
        }
        if e >= 0 {
            let e = e as u64;
            if let Some(f) = self.fin {
                if fin && e != f {
                    self.metrics.segments -= 1;
                    return Err(InputError::SecondFin { seq });
                }
                if e > f {
                    self.metrics.segments -= 1;
                    return Err(InputError::AfterFin { seq });
                }
            } else if fin && self.received_end() > e {
                self.metrics.segments -= 1;
                return Err(InputError::AfterFin { seq });
            }
        }
        if self.stopped || e < 0 {
            return Ok(Verdict::Accepted);
        }
        // Octets before the origin (startup frames retransmitted) are not MPA's.
        let (s, e) = (s.max(0) as u64, e as u64);
        let bytes = &payload[payload.len() - (e - s) as usize..];
        let verdict = if s <= self.edge {
            if fin {
                self.fin = Some(e);
            }
            self.in_order(s, e, bytes);
            Verdict::Accepted
        } else {
            self.out_of_order(s, e, bytes, fin)
        };
        if verdict == Verdict::Refused {
            self.metrics.refused += 1;
        }
        self.metrics.peak_held_octets = self.metrics.peak_held_octets.max(self.held.total());
        let records = (self.held.run_count() + self.placed.len()) as u64;
        self.metrics.peak_records = self.metrics.peak_records.max(records);
        Ok(verdict)
    }

    /// Events so far (deliveries and the error), in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Removes and returns the events so far.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// The first error, if one was reported.
    pub fn error(&self) -> Option<&ReceiveError> {
        self.error.as_ref()
    }

    /// Counters.
    pub fn metrics(&self) -> Metrics {
        self.metrics
    }

    /// Memory of every region and posted buffer.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The memory a delivered message occupies: the range its payload was placed in (tagged:
    /// from its first TO for its length; untagged: its buffer from octet 0 for its length).
    /// `None` when the range is not inside a region or buffer.
    pub fn message_memory(&self, d: &Delivery) -> Option<&[u8]> {
        let (target, offset, len) = match *d {
            Delivery::Write { stag, to, len, .. }
            | Delivery::ReadResponse { stag, to, len, .. } => {
                let base = self.model.region(stag)?.base;
                (Target::Region(stag), to.checked_sub(base)?, len)
            }
            Delivery::Send { qn, msn, len, .. } => (Target::Buffer { qn, msn }, 0, len),
            Delivery::ReadRequest { msn, .. } => {
                (Target::Buffer { qn: QN_READ_REQUEST, msn }, 0, 28)
            }
            Delivery::Terminate { msn, len, .. } => {
                (Target::Buffer { qn: QN_TERMINATE, msn }, 0, len)
            }
        };
        let end = offset.checked_add(len)?;
        self.memory.get(target)?.get(offset as usize..end as usize)
    }

    /// The placement state (STag table as invalidated so far, queues).
    pub fn placement_model(&self) -> &PlacementModel {
        &self.model
    }

    /// Sequence number of the in-order edge (TCP's RCV.NXT as far as MPA is concerned).
    pub fn edge_seq(&self) -> u32 {
        self.seq_of(self.edge)
    }

    /// Octets held now.
    pub fn held_octets(&self) -> u64 {
        self.held.total()
    }

    /// Records in the table now (placed FPDUs and held runs).
    pub fn records_in_use(&self) -> usize {
        self.held.run_count() + self.placed.len()
    }

    /// True once the FIN was reached on an FPDU boundary, an error was reported or a
    /// Terminate delivered: nothing more will be placed or delivered.
    pub fn finished(&self) -> bool {
        self.stopped || self.fin == Some(self.next_fpdu)
    }

    fn seq_of(&self, offset: u64) -> u32 {
        self.cfg.origin.wrapping_add(offset as u32)
    }

    /// One past the last octet received anywhere.
    fn received_end(&self) -> u64 {
        let last_placed = self.placed.iter().next_back().map_or(0, |(_, p)| p.end);
        self.edge.max(self.held.last_end()).max(last_placed)
    }

    fn push_event(&mut self, e: Event) {
        self.events.push(e);
        self.memory.events_before_next_write += 1;
    }

    fn fail(&mut self, code: TerminateCode, offset: u64, reason: String) {
        if self.error.is_none() {
            let e = ReceiveError { code, seq: self.seq_of(offset), reason };
            self.error = Some(e.clone());
            self.push_event(Event::Error(e));
        }
        self.stop();
    }

    /// Nothing more is placed or delivered: the held octets and the records are dropped.
    fn stop(&mut self) {
        self.stopped = true;
        self.held = HeldOctets::default();
        self.placed.clear();
        self.pending_invalidate.clear();
    }

    /// The spans of `[a, b)` that are neither held nor inside a placed FPDU (`a` >= edge).
    fn new_spans(&self, a: u64, b: u64) -> Vec<Span> {
        if a >= b {
            return Vec::new();
        }
        let mut covered = self.held.spans_touching(a, b);
        if let Some((&start, p)) = self.placed.range(..a).next_back() {
            covered.push((start, p.end));
        }
        covered.extend(self.placed.range(a..b).map(|(&start, p)| (start, p.end)));
        subtract(&[(a, b)], &normalize(covered))
    }

    /// Whether `[a, b)` overlaps a placed FPDU.
    fn overlaps_placed(&self, a: u64, b: u64) -> bool {
        self.placed.range(..b).next_back().is_some_and(|(_, p)| p.end > a)
    }
}
