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
//! Without CRCs nothing is located out of order (section 6 locates only "FPDUs with valid CRCs"):
//! every out-of-order octet is held for the in-order walk.
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
pub mod memory;
pub mod messages;

pub use config::{PostedConfig, ReceiverConfig, RegionConfig, VersionName};
pub use events::{Delivery, Event, InputError, Metrics, ReceiveError, Verdict};
pub use memory::{Memory, Target, Write};

use crate::ddp::{
    decode_with, Access, DdpSegment, Opcode, PlacementModel, ProtocolVersion, Region,
    TerminateCode, QN_READ_REQUEST, QN_SEND, QN_TERMINATE,
};
use crate::deframe::{fpdu_needed_len, parse_fpdu, DeframeError};
use crate::fpdu::{FramingConfig, MARKER_INTERVAL, MARKER_LEN};
use held::{intersection_len, normalize, subtract, total_len, HeldOctets, Span};
use messages::MessageTracker;
use std::collections::{BTreeMap, BTreeSet, HashMap};

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

/// A CRC-good FPDU found inside an out-of-order segment.
struct Located {
    start: u64,
    end: u64,
    ulpdu: Vec<u8>,
}

/// An FPDU an out-of-order segment will place if it is accepted.
struct Placing {
    start: u64,
    end: u64,
    segment: DdpSegment,
    placement: crate::ddp::Placement,
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

    // -----------------------------------------------------------------------------------------
    // In order
    // -----------------------------------------------------------------------------------------

    fn in_order(&mut self, s: u64, e: u64, bytes: &[u8]) {
        for (a, b) in self.new_spans(self.edge, e) {
            self.held.insert(a, &bytes[(a - s) as usize..(b - s) as usize]);
        }
        loop {
            if let Some((_, end)) = self.held.run_containing(self.edge) {
                self.edge = end;
            } else if let Some(p) = self.placed.get(&self.edge) {
                self.edge = p.end;
            } else {
                break;
            }
        }
        self.walk(s, e);
    }

    /// The in-order walk (see the module documentation). `[s, e)` is the segment that brought
    /// the walk here (an FPDU entirely inside it was placed without a copy).
    fn walk(&mut self, s: u64, e: u64) {
        while !self.stopped {
            let f = self.next_fpdu;
            if self.fin == Some(f) || f >= self.edge {
                break;
            }
            if let Some(p) = self.placed.remove(&f) {
                self.next_fpdu = p.end;
                self.deliver_placed(f, p);
                continue;
            }
            if self.overlaps_placed(f, f + 1) {
                self.fail(
                    TerminateCode::MPA_CRC,
                    f,
                    "the ULPDU_Length chain points inside an FPDU placed out of order: \
                     this FPDU cannot be verified"
                        .into(),
                );
                break;
            }
            let Some(mut run) = self.held.take_run(f) else {
                // Not reachable: before the edge, every octet not consumed is held or placed.
                self.fail(TerminateCode::DDP_CATASTROPHIC, f, "receiver state lost".into());
                break;
            };
            let run_end = f + run.len() as u64;
            let mut cur = 0usize;
            let mut pos = f;
            while !self.stopped && cur < run.len() {
                let parsed =
                    parse_fpdu(self.framing, self.cfg.max_ulpdu, pos as u32, &run[cur..], pos);
                match parsed {
                    Ok(Some((ulpdu, w))) => {
                        let direct = s <= pos && pos + w as u64 <= e;
                        self.process_in_order(pos, ulpdu.data, direct);
                        cur += w;
                        pos += w as u64;
                        self.next_fpdu = pos;
                    }
                    Err(err) => {
                        self.fail(mpa_code(&err), pos, err.to_string());
                    }
                    Ok(None) => {
                        let needed = fpdu_needed_len(self.cfg.markers, pos as u32, &run[cur..]);
                        let end = needed.map(|n| pos + n as u64);
                        if run_end < self.edge && end.map_or(true, |end| end <= self.edge) {
                            // A placed FPDU starts at run_end, inside this FPDU, which is now
                            // complete (or whose ULPDU_Length field it splits): its CRC
                            // cannot be good, in-order processing reports code 2 here too.
                            self.fail(
                                TerminateCode::MPA_CRC,
                                pos,
                                "this FPDU overlaps an FPDU placed out of order: it cannot be \
                                 verified"
                                    .into(),
                            );
                        } else if self.fin == Some(self.edge) {
                            let e = DeframeError::Truncated {
                                fpdu_offset: pos,
                                received: run.len() - cur,
                                needed,
                            };
                            self.fail(mpa_code(&e), pos, e.to_string());
                        }
                        break;
                    }
                }
            }
            let partial = cur < run.len();
            run.drain(..cur);
            if !self.stopped {
                self.held.put_run(pos, run);
            }
            if partial {
                break;
            }
        }
    }

    /// An FPDU the walk found complete and MPA-valid in the held octets.
    fn process_in_order(&mut self, f: u64, ulpdu: Vec<u8>, direct: bool) {
        let seq = self.seq_of(f);
        let segment = match decode_with(&ulpdu, self.version) {
            Ok(s) => s,
            Err(err) => return self.fail(err.terminate(), f, err.to_string()),
        };
        let placement = match self.model.place(&segment) {
            Ok(p) => p,
            Err(err) => return self.fail(err.terminate(), f, err.to_string()),
        };
        if let Some(stag) = invalidate_target(&segment) {
            if let Err(code) = self.model.check_invalidate(stag) {
                return self.fail(code, f, format!("Send with Invalidate of STag {stag:#010x}"));
            }
        }
        if !self.memory.place(&placement, segment.payload(), seq) {
            return self.fail(TerminateCode::DDP_CATASTROPHIC, f, "placement target lost".into());
        }
        let n = segment.payload().len() as u64;
        if direct {
            self.metrics.direct_octets += n;
        } else {
            self.metrics.held_octets += n;
        }
        self.complete(&segment, n, seq);
    }

    /// A placed FPDU the walk reached: checked again with today's STag table and queues, then
    /// its message accounted for.
    fn deliver_placed(&mut self, f: u64, p: PlacedFpdu) {
        if let Some(stag) = invalidate_target(&p.segment) {
            if let Some(n) = self.pending_invalidate.get_mut(&stag) {
                *n -= 1;
                if *n == 0 {
                    self.pending_invalidate.remove(&stag);
                }
            }
        }
        if let Err(err) = self.model.place_len(&p.segment, p.payload_len) {
            return self.fail(err.terminate(), f, err.to_string());
        }
        if let Some(stag) = invalidate_target(&p.segment) {
            if let Err(code) = self.model.check_invalidate(stag) {
                return self.fail(code, f, format!("Send with Invalidate of STag {stag:#010x}"));
            }
        }
        self.complete(&p.segment, p.payload_len, self.seq_of(f));
    }

    /// Message accounting of one DDP segment reached in order: the delivery it completes, the
    /// invalidation and buffer consumption that go with it.
    fn complete(&mut self, segment: &DdpSegment, payload_len: u64, seq: u32) {
        let Some(d) = self.messages.account(segment, payload_len, seq) else { return };
        if let DdpSegment::Untagged { header, .. } = segment {
            if let Some(q) = self.model.queue_mut(header.qn) {
                q.buffers.remove(&header.msn);
                q.base_msn = header.msn.wrapping_add(1);
            }
        }
        if let Delivery::Send { invalidate: Some(stag), .. } = d {
            self.model.invalidate(stag);
        }
        let terminate = matches!(d, Delivery::Terminate { .. });
        self.push_event(Event::Deliver(d));
        if terminate {
            self.stop();
        }
    }

    // -----------------------------------------------------------------------------------------
    // Out of order
    // -----------------------------------------------------------------------------------------

    fn out_of_order(&mut self, s: u64, e: u64, bytes: &[u8], fin: bool) -> Verdict {
        let placing = self.choose_placements(s, e, bytes);
        // Budget: what the table and the buffer would hold with this segment.
        let new = self.new_spans(s, e);
        let placed_spans: Vec<Span> = placing.iter().map(|p| (p.start, p.end)).collect();
        let new_held = subtract(&new, &placed_spans);
        let touching = self.held.spans_touching(s, e);
        let freed = intersection_len(&touching, &placed_spans);
        let mut local = touching.clone();
        local.extend_from_slice(&new_held);
        let runs_after = self.held.run_count() - touching.len()
            + subtract(&normalize(local), &placed_spans).len();
        let in_order_run =
            self.held.run_containing(self.next_fpdu).filter(|_| self.next_fpdu < self.edge);
        let in_order_len = in_order_run.map_or(0, |(a, b)| b - a);
        let ooo_held_after = self.held.total() - in_order_len + total_len(&new_held) - freed;
        let ooo_records_after =
            runs_after - usize::from(in_order_run.is_some()) + self.placed.len() + placing.len();
        if ooo_held_after > self.ooo_budget
            || ooo_records_after as u64 > self.cfg.records as u64 - 1
        {
            return Verdict::Refused;
        }
        // Commit.
        for p in placing {
            let seq = self.seq_of(p.start);
            let n = p.segment.payload().len() as u64;
            if !self.memory.place(&p.placement, p.segment.payload(), seq) {
                self.fail(TerminateCode::DDP_CATASTROPHIC, p.start, "placement target lost".into());
                return Verdict::Accepted;
            }
            self.metrics.direct_octets += n;
            self.metrics.ooo_fpdus += 1;
            if let Some(stag) = invalidate_target(&p.segment) {
                *self.pending_invalidate.entry(stag).or_insert(0) += 1;
            }
            let keep_payload =
                matches!(p.segment.opcode(), Opcode::RdmaReadRequest | Opcode::Terminate);
            let segment = if keep_payload { p.segment } else { strip_payload(p.segment) };
            self.held.remove(p.start, p.end);
            self.placed.insert(p.start, PlacedFpdu { end: p.end, segment, payload_len: n });
        }
        for (a, b) in new_held {
            self.held.insert(a, &bytes[(a - s) as usize..(b - s) as usize]);
        }
        if fin {
            self.fin = Some(e);
        }
        Verdict::Accepted
    }

    /// The FPDUs inside the out-of-order segment `[s, e)` that it would place.
    fn choose_placements(&self, s: u64, e: u64, bytes: &[u8]) -> Vec<Placing> {
        let mut out: Vec<Placing> = Vec::new();
        let mut naming: BTreeSet<u32> = BTreeSet::new();
        for c in self.locate(s, e, bytes) {
            if self.placed.get(&c.start).is_some_and(|p| p.end == c.end)
                || self.overlaps_placed(c.start, c.end)
                || out.last().is_some_and(|p| p.end > c.start)
            {
                continue;
            }
            let Ok(segment) = decode_with(&c.ulpdu, self.version) else { continue };
            let Ok(placement) = self.model.place(&segment) else { continue };
            if let Some(stag) = tagged_stag(&segment) {
                if self.pending_invalidate.contains_key(&stag) || naming.contains(&stag) {
                    continue;
                }
            }
            if let Some(stag) = invalidate_target(&segment) {
                if self.model.check_invalidate(stag).is_err()
                    || self.pending_invalidate.contains_key(&stag)
                    || naming.contains(&stag)
                {
                    continue;
                }
                naming.insert(stag);
            }
            out.push(Placing { start: c.start, end: c.end, segment, placement });
        }
        out
    }

    /// The CRC-good FPDUs located inside `[s, e)`, in order of their first octet.
    fn locate(&self, s: u64, e: u64, bytes: &[u8]) -> Vec<Located> {
        let mut found = Vec::new();
        if !self.cfg.crc || e <= s {
            return found;
        }
        let mut starts: BTreeSet<u64> = BTreeSet::new();
        // The chain onward from the placed FPDU that contains or ends at the first octet.
        if let Some((_, p)) = self.placed.range(..=s).next_back() {
            if p.end >= s {
                starts.insert(p.end);
            }
        }
        if self.cfg.markers {
            let interval = MARKER_INTERVAL as u64;
            let mut m = s.div_ceil(interval) * interval;
            while m + MARKER_LEN as u64 <= e {
                let at = (m - s) as usize;
                let fpduptr = (u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) & !3) as u64;
                if fpduptr == 0 {
                    starts.insert(m);
                } else if fpduptr <= m {
                    let header = m - fpduptr;
                    let lead = header >= 4 && (header - 4) % interval == 0;
                    starts.insert(if lead { header - 4 } else { header });
                }
                m += interval;
            }
        }
        if self.cfg.aligned_detect && self.header_aligned(s, e, bytes) {
            starts.insert(s);
        }
        while let Some(f) = starts.pop_first() {
            // FPDUs start at multiples of 4 from the origin (4.1 PAD, 4.3).
            if f < s || f >= e || f % 4 != 0 {
                continue;
            }
            let at = (f - s) as usize;
            let parsed = parse_fpdu(self.framing, self.cfg.max_ulpdu, f as u32, &bytes[at..], f);
            if let Ok(Some((ulpdu, w))) = parsed {
                starts.insert(f + w as u64);
                found.push(Located { start: f, end: f + w as u64, ulpdu: ulpdu.data });
            }
        }
        found
    }

    /// Appendix B.2 header alignment: `[s, e)` is a chain of complete FPDUs with good CRCs and
    /// valid DDP/RDMAP headers that ends exactly at `e`.
    fn header_aligned(&self, s: u64, e: u64, bytes: &[u8]) -> bool {
        if s % 4 != 0 {
            return false;
        }
        let mut f = s;
        while f < e {
            let at = (f - s) as usize;
            match parse_fpdu(self.framing, self.cfg.max_ulpdu, f as u32, &bytes[at..], f) {
                Ok(Some((ulpdu, w))) if decode_with(&ulpdu.data, self.version).is_ok() => {
                    f += w as u64;
                }
                _ => return false,
            }
        }
        f == e
    }
}

/// The segment with an empty payload (the record keeps only the header and the length).
fn strip_payload(segment: DdpSegment) -> DdpSegment {
    match segment {
        DdpSegment::Tagged { header, .. } => DdpSegment::Tagged { header, payload: Vec::new() },
        DdpSegment::Untagged { header, .. } => DdpSegment::Untagged { header, payload: Vec::new() },
    }
}
