//! The sending side of one connection, as the receiver sees it: RDMAP messages (RFC 5040) cut
//! into DDP segments at MULPDU (RFC 5041), framed into FPDUs (RFC 5044 4.1-4.4, Markers and
//! CRC as configured), and cut into FPDU-aligned TCP segments of at most EMSS (5.1, A.1), with
//! the receiver configuration (STag table, posted buffers) the stream needs.
//!
//! Memory is laid out so that no two messages write the same octet (the receiver's invariant
//! covers such streams only, see `golden::receiver`): every RDMA Write and Read Response gets a
//! fresh range of a region, every Send its own posted buffer. A Send with Invalidate names a
//! region that no later message writes. One region sits at the top of the 64-bit TO space, so
//! that writes ending exactly at 2^64 occur.
//!
//! Faults ([`super::faults::Fault`]) change one message (or one FPDU on the wire) in the middle of the stream;
//! [`SentStream::expected_error`] says which error, at which FPDU, in-order processing must
//! report.

use super::faults::{apply_config_fault, apply_wire_fault, inject_message_fault, Fault, FaultSpot};
use golden::ddp::{
    DdpSegment, Opcode, ProtocolVersion, ReadRequestHeader, TaggedHeader, TerminateCode,
    TerminateControl, UntaggedHeader, QN_READ_REQUEST, QN_SEND, QN_TERMINATE, TAGGED_HEADER_LEN,
    UNTAGGED_HEADER_LEN,
};
use golden::fpdu::{Framer, FramingConfig};
use golden::mulpdu::mulpdu;
use golden::receiver::{Delivery, PostedConfig, ReceiverConfig, RegionConfig, VersionName};
use golden::segment::segment_fpdus_with_push;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One TCP payload segment, in stream offsets (octets from the origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamSegment {
    /// Offset of the first octet.
    pub offset: u64,
    /// The octets.
    pub payload: Vec<u8>,
    /// The connection closes after the last octet.
    pub fin: bool,
}

impl StreamSegment {
    /// One past the last octet.
    pub fn end(&self) -> u64 {
        self.offset + self.payload.len() as u64
    }
}

/// What the sender sends.
#[derive(Clone, Debug)]
pub struct SenderParams {
    /// Markers on the wire.
    pub markers: bool,
    /// CRCs computed (off: the field is zero).
    pub crc: bool,
    /// Sequence number of the first FPDU's first octet.
    pub origin: u32,
    /// Effective maximum segment size.
    pub emss: u32,
    /// Messages to send (a Terminate, if any, is one of them).
    pub messages: usize,
    /// Largest message payload.
    pub max_message: usize,
    /// End the stream with a Terminate message.
    pub terminate: bool,
    /// Protocol generation.
    pub version: VersionName,
    /// Protection domain of the stream.
    pub pd: u32,
    /// MSN window the receiver uses.
    pub msn_window: u32,
    /// MSN of the first message on every queue.
    pub first_msn: u32,
    /// Reassembly buffer of the receiver configuration.
    pub reassembly_octets: u64,
    /// Records of the receiver configuration.
    pub records: u32,
    /// Header alignment detection in the receiver configuration.
    pub aligned_detect: bool,
    /// A fault, and the fraction of the way through the messages where it goes.
    pub fault: Option<(Fault, f64)>,
}

impl Default for SenderParams {
    fn default() -> Self {
        SenderParams {
            markers: false,
            crc: true,
            origin: 0x1000_0000,
            emss: 1460,
            messages: 200,
            max_message: 6000,
            terminate: false,
            version: VersionName::Rfc5040,
            pd: 0x55,
            msn_window: 1024,
            first_msn: 1,
            reassembly_octets: 256 * 1024,
            records: 256,
            aligned_detect: true,
            fault: None,
        }
    }
}

/// The error a fault must cause: its code and the offset of the failing FPDU's first octet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedError {
    /// Terminate code.
    pub code: TerminateCode,
    /// Offset (from the origin) of the FPDU's first octet.
    pub offset: u64,
}

/// A message as the sender meant it: the delivery a receiver must report for it and the octets
/// its memory must hold afterwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentMessage {
    /// The delivery (its `seq` is the first octet of the FPDU of its last DDP segment).
    pub delivery: Delivery,
    /// The payload the message carries (a Read Request: its 28-octet header; a Terminate: its
    /// Terminate Control and what follows).
    pub data: Vec<u8>,
}

/// The sender's stream and the receiver configuration that goes with it.
#[derive(Clone, Debug)]
pub struct SentStream {
    /// The receiver configuration (STag table, posted buffers, buffer sizes).
    pub config: ReceiverConfig,
    /// The DDP segments (ULPDUs), in order.
    pub ulpdus: Vec<Vec<u8>>,
    /// The offset of each FPDU's first octet.
    pub fpdu_offsets: Vec<u64>,
    /// The MPA stream, from the origin.
    pub wire: Vec<u8>,
    /// FPDU-aligned TCP segments (the last carries FIN).
    pub segments: Vec<StreamSegment>,
    /// MULPDU used (RFC 5044 4.5).
    pub mulpdu: u32,
    /// The error in-order processing must report (a fault was put in).
    pub expected_error: Option<ExpectedError>,
    /// The messages, in order, as the sender meant them (a faulty message included).
    pub messages: Vec<SentMessage>,
}

/// A message before DDP segmentation.
pub(super) enum Message {
    Tagged { opcode: Opcode, stag: u32, to: u64, data: Vec<u8> },
    Send { opcode: Opcode, qn: u32, msn: u32, inv: u32, data: Vec<u8> },
    Single(DdpSegment),
}

/// A region being filled: bump allocation of fresh ranges.
pub(super) struct RegionPlan {
    pub(super) cfg: RegionConfig,
    pub(super) next: u64,
    pub(super) retired: bool,
}

pub(super) struct Builder<'a> {
    pub(super) p: &'a SenderParams,
    pub(super) rng: &'a mut ChaCha8Rng,
    pub(super) version: ProtocolVersion,
    pub(super) regions: Vec<RegionPlan>,
    pub(super) posted: Vec<PostedConfig>,
    pub(super) send_msn: u32,
    pub(super) rr_msn: u32,
    pub(super) used_stags: Vec<u32>,
}

impl Builder<'_> {
    /// A new STag in the layout RNICs use, `index << 8 | key`: indexes 1, 2, 3, ... in the order
    /// of allocation (so that every STag has its own entry in a hardware table of 256 while
    /// fewer than 256 are allocated), a random 8-bit key.
    pub(super) fn fresh_stag(&mut self) -> u32 {
        let key: u32 = self.rng.gen_range(1..u32::MAX) & 0xFF;
        let stag = ((self.used_stags.len() as u32 + 1) << 8) | key;
        self.used_stags.push(stag);
        stag
    }

    pub(super) fn new_region(&mut self, top: bool) -> usize {
        let stag = self.fresh_stag();
        // The top region's base is fixed when its length is known (see `finish_regions`).
        let base = if top { 0 } else { self.rng.gen_range(1..1u64 << 35) << 12 };
        self.regions.push(RegionPlan {
            cfg: RegionConfig {
                stag,
                base,
                len: 0,
                pd: self.p.pd,
                write: true,
                read: true,
                valid: true,
            },
            next: 0,
            retired: false,
        });
        self.regions.len() - 1
    }

    pub(super) fn active_region(&mut self) -> usize {
        // Region 0 is the top-of-TO-space region: written on purpose, never invalidated.
        let active: Vec<usize> =
            (1..self.regions.len()).filter(|&i| !self.regions[i].retired).collect();
        if active.len() < 2 {
            return self.new_region(false);
        }
        *active.choose(self.rng).expect("an active region")
    }

    /// A fresh range of `len` octets in region `r`; returns its offset in the region.
    pub(super) fn allocate(&mut self, r: usize, len: usize) -> u64 {
        let gap = self.rng.gen_range(0..64u64);
        let off = self.regions[r].next + gap;
        self.regions[r].next = off + len as u64;
        off
    }

    pub(super) fn payload(&mut self, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        self.rng.fill(&mut v[..]);
        v
    }

    fn message_len(&mut self) -> usize {
        let max = self.p.max_message.max(1);
        match self.rng.gen_range(0..10) {
            0 => 0,
            1..=3 => self.rng.gen_range(1..=64.min(max)),
            4..=8 => self.rng.gen_range(1..=3000.min(max)),
            _ => self.rng.gen_range(1..=max),
        }
    }

    pub(super) fn post(&mut self, qn: u32, msn: u32, len: usize) {
        let slack = self.rng.gen_range(0..32);
        self.posted.push(PostedConfig { qn, msn, len: (len + slack) as u64 });
    }

    fn write(&mut self, opcode: Opcode) -> Message {
        let len = self.message_len();
        let r = self.active_region();
        let off = self.allocate(r, len);
        let data = self.payload(len);
        Message::Tagged { opcode, stag: self.regions[r].cfg.stag, to: off, data }
    }

    fn send(&mut self, opcode: Opcode) -> Message {
        let len = self.message_len();
        self.send_msn = self.send_msn.wrapping_add(1);
        let msn = self.send_msn;
        self.post(QN_SEND, msn, len);
        let mut inv = 0;
        if opcode.carries_invalidate_stag() {
            let r = self.active_region();
            self.regions[r].retired = true;
            inv = self.regions[r].cfg.stag;
        }
        let data = self.payload(len);
        Message::Send { opcode, qn: QN_SEND, msn, inv, data }
    }

    fn read_request(&mut self) -> Message {
        self.rr_msn = self.rr_msn.wrapping_add(1);
        let msn = self.rr_msn;
        self.post(QN_READ_REQUEST, msn, 28);
        let source = &self.regions[self.rng.gen_range(0..self.regions.len())].cfg;
        let request = ReadRequestHeader {
            sink_stag: self.rng.gen_range(1..u32::MAX),
            sink_to: self.rng.gen(),
            size: self.rng.gen_range(0..100_000),
            source_stag: source.stag,
            source_to: source.base,
        };
        Message::Single(DdpSegment::read_request(msn, &request, self.version))
    }

    fn terminate(&mut self) -> Message {
        let control = TerminateControl {
            code: TerminateCode::DDP_TAGGED_BASE_BOUNDS,
            m: false,
            d: true,
            r: false,
            reserved: 0,
        };
        let echoed = self.payload(TAGGED_HEADER_LEN);
        let msn = self.p.first_msn;
        self.post(QN_TERMINATE, msn, 4 + echoed.len());
        Message::Single(DdpSegment::terminate(msn, &control, &echoed, self.version))
    }

    fn random_message(&mut self) -> Message {
        match self.rng.gen_range(0..100) {
            0..=34 => self.write(Opcode::RdmaWrite),
            35..=44 => self.write(Opcode::RdmaReadResponse),
            45..=64 => self.send(Opcode::Send),
            65..=71 => self.send(Opcode::SendWithSolicitedEvent),
            72..=79 => self.send(Opcode::SendWithInvalidate),
            80..=84 => self.send(Opcode::SendWithSolicitedEventAndInvalidate),
            _ => self.read_request(),
        }
    }
}

/// A message's payload cut into DDP segment payloads of at most `room` octets (an empty message
/// is one empty segment).
fn payload_chunks(data: &[u8], room: usize) -> Vec<&[u8]> {
    if data.is_empty() {
        vec![data]
    } else {
        data.chunks(room).collect()
    }
}

/// DDP segments of one message (see [`payload_chunks`]).
fn ddp_segments(m: &Message, mulpdu: usize, version: ProtocolVersion) -> Vec<DdpSegment> {
    match m {
        Message::Single(s) => vec![s.clone()],
        Message::Tagged { opcode, stag, to, data } => {
            let chunks = payload_chunks(data, mulpdu - TAGGED_HEADER_LEN);
            let n = chunks.len();
            let mut at = 0u64;
            chunks
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let header =
                        TaggedHeader::new(*opcode, i + 1 == n, *stag, to.wrapping_add(at), version);
                    at += c.len() as u64;
                    DdpSegment::Tagged { header, payload: c.to_vec() }
                })
                .collect()
        }
        Message::Send { opcode, qn, msn, inv, data } => {
            let chunks = payload_chunks(data, mulpdu - UNTAGGED_HEADER_LEN);
            let n = chunks.len();
            let mut mo = 0u32;
            chunks
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut header =
                        UntaggedHeader::new(*opcode, i + 1 == n, *qn, *msn, mo, version);
                    header.invalidate_stag = *inv;
                    mo += c.len() as u32;
                    DdpSegment::Untagged { header, payload: c.to_vec() }
                })
                .collect()
        }
    }
}

/// Builds the stream of `p` from `rng`.
pub fn build_stream(p: &SenderParams, rng: &mut ChaCha8Rng) -> SentStream {
    let version = p.version.protocol();
    let mulpdu = mulpdu(p.emss, p.markers);
    let mut b = Builder {
        p,
        rng,
        version,
        regions: Vec::new(),
        posted: Vec::new(),
        send_msn: p.first_msn.wrapping_sub(1),
        rr_msn: p.first_msn.wrapping_sub(1),
        used_stags: Vec::new(),
    };
    let top = b.new_region(true);
    b.new_region(false);
    b.new_region(false);
    let fault_at = p.fault.map(|(f, at)| (f, ((p.messages as f64) * at) as usize));
    let mut messages: Vec<Message> = Vec::new();
    // Index of the message (and, within it, the DDP segment) whose FPDU must fail.
    let mut fault_message: Option<(usize, FaultSpot)> = None;
    let body = if p.terminate { p.messages.saturating_sub(1) } else { p.messages };
    for i in 0..body {
        // Every 16th message writes at the top of the TO space (some end exactly at 2^64).
        let m = if i % 16 == 5 {
            let len = b.message_len().max(1);
            let off = b.allocate(top, len);
            let data = b.payload(len);
            Message::Tagged {
                opcode: Opcode::RdmaWrite,
                stag: b.regions[top].cfg.stag,
                to: off,
                data,
            }
        } else {
            b.random_message()
        };
        messages.push(m);
        if let Some((fault, at)) = fault_at {
            if i == at.min(body.saturating_sub(1)) && fault_message.is_none() {
                let spot = inject_message_fault(&mut b, &mut messages, fault, top);
                fault_message = Some((messages.len() - 1, spot));
            }
        }
    }
    if p.terminate {
        messages.push(b.terminate());
    }
    // Regions: lengths now known; the top region ends exactly at 2^64.
    for (i, r) in b.regions.iter_mut().enumerate() {
        r.cfg.len = r.next + if i == top { 0 } else { 16 };
        if i == top {
            r.cfg.base = 0u64.wrapping_sub(r.cfg.len);
        }
    }
    // Tagged offsets were region offsets: make them TOs.
    let bases: Vec<(u32, u64)> = b.regions.iter().map(|r| (r.cfg.stag, r.cfg.base)).collect();
    let base_of = |stag: u32| bases.iter().find(|(s, _)| *s == stag).map_or(0, |(_, b)| *b);

    let mut ulpdus: Vec<Vec<u8>> = Vec::new();
    let mut push_after: Vec<bool> = Vec::new();
    let mut fault_ulpdu: Option<usize> = None;
    let mut last_ulpdu = Vec::new();
    for (mi, m) in messages.iter_mut().enumerate() {
        if let Message::Tagged { stag, to, .. } = m {
            *to = to.wrapping_add(base_of(*stag));
        }
        let mut segs = ddp_segments(m, mulpdu as usize, version);
        last_ulpdu.push(ulpdus.len() + segs.len() - 1);
        let first = ulpdus.len();
        if let Some((fm, spot)) = fault_message {
            if fm == mi {
                fault_ulpdu = Some(first + spot.apply_to_segments(&mut segs, &bases));
            }
        }
        let n = segs.len();
        for (k, s) in segs.into_iter().enumerate() {
            ulpdus.push(s.encode());
            push_after.push(k + 1 == n && b.rng.gen_bool(0.3));
        }
    }
    if let (Some(i), Some((Fault::ShortUlpdu, _))) = (fault_ulpdu, p.fault) {
        ulpdus[i].truncate(TAGGED_HEADER_LEN - 1);
    }
    if let (Some(i), Some((Fault::UlpduTooLong, _))) = (fault_ulpdu, p.fault) {
        ulpdus[i].resize(mulpdu as usize + 4, 0xA5);
    }

    // Framing.
    let cfg = FramingConfig { markers: p.markers, crc: p.crc, offset: 0 };
    let mut framer = Framer::new(cfg).expect("offset 0 is aligned");
    let mut fpdus: Vec<(Vec<u8>, bool)> = Vec::new();
    let mut fpdu_offsets = Vec::new();
    let mut offset = 0u64;
    for (u, push) in ulpdus.iter().zip(&push_after) {
        let f = framer.frame(u).expect("ULPDUs are below 64768 octets");
        fpdu_offsets.push(offset);
        offset += f.len() as u64;
        fpdus.push((f, *push));
    }
    let wire_fault =
        matches!(p.fault, Some((Fault::Crc | Fault::Marker | Fault::Length | Fault::Truncated, _)));
    let mut expected_error = fault_ulpdu
        .zip(p.fault)
        .filter(|_| !wire_fault)
        .map(|(i, (f, _))| ExpectedError { code: f.code(), offset: fpdu_offsets[i] });
    if let Some((fault, at)) = p.fault {
        if let Some(e) = apply_wire_fault(fault, at, p, mulpdu, b.rng, &mut fpdus, &fpdu_offsets) {
            expected_error = Some(e);
        }
    }
    let mut wire = Vec::with_capacity(offset as usize);
    for (f, _) in &fpdus {
        wire.extend_from_slice(f);
    }
    let seg = segment_fpdus_with_push(&fpdus, p.emss, 0).expect("EMSS is at least 4");
    let mut segments: Vec<StreamSegment> = seg
        .segments
        .into_iter()
        .map(|s| StreamSegment { offset: s.seq as u64, payload: s.payload, fin: false })
        .collect();
    if let Some((Fault::Truncated, _)) = p.fault {
        // Close inside the last FPDU: drop its last 1..=len-1 octets.
        let last = *fpdu_offsets.last().expect("an FPDU");
        let cut = b.rng.gen_range(last + 1..wire.len() as u64);
        wire.truncate(cut as usize);
        segments.retain(|s| s.offset < cut);
        if let Some(s) = segments.last_mut() {
            s.payload.truncate((cut - s.offset) as usize);
        }
        expected_error = Some(ExpectedError { code: Fault::Truncated.code(), offset: last });
    }
    if let Some(s) = segments.last_mut() {
        s.fin = true;
    }
    let sent_messages = messages
        .iter()
        .zip(&last_ulpdu)
        .map(|(m, &last)| sent_message(m, p.origin.wrapping_add(fpdu_offsets[last] as u32)))
        .collect();
    let mut regions: Vec<RegionConfig> = b.regions.iter().map(|r| r.cfg).collect();
    if let Some((fault, _)) = p.fault {
        apply_config_fault(fault, &mut regions, &mut b.posted, fault_message.map(|(_, s)| s));
    }
    let config = ReceiverConfig {
        markers: p.markers,
        crc: p.crc,
        origin: p.origin,
        aligned_detect: p.aligned_detect,
        reassembly_octets: p.reassembly_octets,
        reassembly_window: golden::receiver::WINDOW,
        place_out_of_order: true,
        records: p.records,
        pd: p.pd,
        msn_window: p.msn_window,
        max_ulpdu: mulpdu,
        first_msn: p.first_msn,
        version: p.version,
        regions,
        posted: b.posted,
    };
    SentStream {
        config,
        ulpdus,
        fpdu_offsets,
        wire,
        segments,
        mulpdu,
        expected_error,
        messages: sent_messages,
    }
}

/// The delivery and memory the sender means `m` to produce.
fn sent_message(m: &Message, seq: u32) -> SentMessage {
    match m {
        Message::Tagged { opcode, stag, to, data } => {
            let (stag, to, len) = (*stag, *to, data.len() as u64);
            let delivery = if *opcode == Opcode::RdmaReadResponse {
                Delivery::ReadResponse { stag, to, len, seq }
            } else {
                Delivery::Write { stag, to, len, seq }
            };
            SentMessage { delivery, data: data.clone() }
        }
        Message::Send { opcode, qn, msn, inv, data } => SentMessage {
            delivery: Delivery::Send {
                qn: *qn,
                msn: *msn,
                len: data.len() as u64,
                se: opcode.solicited_event(),
                invalidate: opcode.carries_invalidate_stag().then_some(*inv),
                seq,
            },
            data: data.clone(),
        },
        Message::Single(segment) => {
            let data = segment.payload().to_vec();
            let msn = match segment {
                DdpSegment::Untagged { header, .. } => header.msn,
                DdpSegment::Tagged { .. } => 0,
            };
            let delivery = match segment.read_request_header() {
                Some(r) => Delivery::read_request(msn, &r, seq),
                None => {
                    let t = segment.terminate_control().map(|t| t.code).unwrap_or(TerminateCode {
                        layer: 0,
                        etype: 0,
                        code: 0,
                    });
                    Delivery::Terminate {
                        msn,
                        layer: t.layer,
                        etype: t.etype,
                        code: t.code,
                        len: data.len() as u64,
                        seq,
                    }
                }
            };
            SentMessage { delivery, data }
        }
    }
}
