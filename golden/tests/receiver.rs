//! The golden receiver (`golden::receiver`) on hand-built streams: one test per rule and edge
//! case (the randomized invariant runs are in `testbench/tests/receiver_invariant.rs`).

use golden::ddp::*;
use golden::fpdu::{Framer, FramingConfig};
use golden::receiver::*;

const PD: u32 = 7;
const ORIGIN: u32 = 1_000_000;
const STAG: u32 = 0x1234;
const BASE: u64 = 0x10_0000;

fn config(markers: bool) -> ReceiverConfig {
    ReceiverConfig {
        markers,
        crc: true,
        origin: ORIGIN,
        aligned_detect: true,
        reassembly_octets: 1 << 20,
        reassembly_window: golden::receiver::WINDOW,
        place_out_of_order: true,
        records: 64,
        pd: PD,
        msn_window: 16,
        max_ulpdu: 2000,
        first_msn: 1,
        version: VersionName::Rfc5040,
        regions: vec![RegionConfig {
            stag: STAG,
            base: BASE,
            len: 65536,
            pd: PD,
            write: true,
            read: true,
            valid: true,
        }],
        posted: (1..=8).map(|msn| PostedConfig { qn: 0, msn, len: 4096 }).collect(),
    }
}

fn write(to_off: u64, payload: &[u8], last: bool) -> Vec<u8> {
    let h =
        TaggedHeader::new(Opcode::RdmaWrite, last, STAG, BASE + to_off, ProtocolVersion::Rfc5040);
    DdpSegment::Tagged { header: h, payload: payload.to_vec() }.encode()
}

fn send(msn: u32, mo: u32, payload: &[u8], last: bool) -> Vec<u8> {
    let h = UntaggedHeader::new(Opcode::Send, last, QN_SEND, msn, mo, ProtocolVersion::Rfc5040);
    DdpSegment::Untagged { header: h, payload: payload.to_vec() }.encode()
}

/// Frames ULPDUs from the origin; returns the stream and each FPDU's offset.
fn frame(markers: bool, ulpdus: &[Vec<u8>]) -> (Vec<u8>, Vec<usize>) {
    let mut f = Framer::new(FramingConfig { markers, crc: true, offset: 0 }).unwrap();
    let mut wire = Vec::new();
    let mut at = Vec::new();
    for u in ulpdus {
        at.push(wire.len());
        f.frame_into(u, &mut wire).unwrap();
    }
    (wire, at)
}

fn seq(offset: usize) -> u32 {
    ORIGIN.wrapping_add(offset as u32)
}

/// Feeds `[a, b)` of `wire` as one segment (FIN when it reaches the end and `fin`).
fn feed(r: &mut Receiver, wire: &[u8], a: usize, b: usize, fin: bool) -> Verdict {
    r.segment(seq(a), &wire[a..b], fin && b == wire.len()).unwrap()
}

fn deliveries(r: &Receiver) -> Vec<Delivery> {
    r.events()
        .iter()
        .filter_map(|e| match e {
            Event::Deliver(d) => Some(d.clone()),
            Event::Error(_) => None,
        })
        .collect()
}

fn region(r: &Receiver) -> &[u8] {
    r.memory().get(Target::Region(STAG)).unwrap()
}

fn error_code(r: &Receiver) -> Option<(TerminateCode, u32)> {
    r.error().map(|e| (e.code, e.seq))
}

#[test]
fn rfc5044_figure5_is_delivered_as_a_send() {
    // Figure 5: Marker, ULPDU_Length 0x2a, untagged last Send QN 0 MSN 1 MO 0, 24 zero octets.
    let ulpdu = send(1, 0, &[0; 24], true);
    let (wire, _) = frame(true, &[ulpdu]);
    assert_eq!(&wire[wire.len() - 4..], &[0x52, 0x23, 0x99, 0x83], "Figure 5's CRC");
    let mut r = Receiver::new(&config(true)).unwrap();
    assert_eq!(feed(&mut r, &wire, 0, wire.len(), true), Verdict::Accepted);
    assert_eq!(
        deliveries(&r),
        vec![Delivery::Send { qn: 0, msn: 1, len: 24, se: false, invalidate: None, seq: ORIGIN }]
    );
    assert!(r.finished() && r.error().is_none());
}

#[test]
fn rdmac_draft_figure_needs_the_rdmac_version() {
    let mut u = send(1, 0, &[0; 24], true);
    u[0] = 0x40;
    u[1] = 0x03;
    let (wire, _) = frame(true, &[u]);
    let mut cfg = config(true);
    let mut r = Receiver::new(&cfg).unwrap();
    feed(&mut r, &wire, 0, wire.len(), false);
    assert_eq!(error_code(&r), Some((TerminateCode::DDP_UNTAGGED_INVALID_VERSION, ORIGIN)));
    cfg.version = VersionName::Rdmac;
    let mut r = Receiver::new(&cfg).unwrap();
    feed(&mut r, &wire, 0, wire.len(), false);
    assert_eq!(deliveries(&r).len(), 1);
}

/// For every opcode: the ULPDU one octet shorter than its opcode needs is an error at that
/// FPDU; exactly the header is accepted.
#[test]
fn ulpdu_shorter_than_its_header_for_every_opcode() {
    let v = ProtocolVersion::Rfc5040;
    for op in Opcode::ALL {
        let (tagged, qn, need) = match op.model().unwrap() {
            DdpModel::Tagged => (true, 0, TAGGED_HEADER_LEN),
            DdpModel::Untagged { qn } => (
                false,
                qn,
                UNTAGGED_HEADER_LEN
                    + match op {
                        Opcode::RdmaReadRequest => READ_REQUEST_HEADER_LEN,
                        Opcode::Terminate => TERMINATE_CONTROL_LEN,
                        _ => 0,
                    },
            ),
        };
        let full: Vec<u8> = if tagged {
            TaggedHeader::new(op, true, 0, 0, v).encode().to_vec()
        } else {
            let mut h = UntaggedHeader::new(op, true, qn, 1, 0, v);
            if op.carries_invalidate_stag() {
                h.invalidate_stag = STAG;
            }
            let mut u = h.encode().to_vec();
            u.resize(need, 0);
            u
        };
        assert_eq!(full.len(), need);
        let mut cfg = config(false);
        cfg.posted.push(PostedConfig { qn: 1, msn: 1, len: 28 });
        cfg.posted.push(PostedConfig { qn: 2, msn: 1, len: 4 });
        // Exactly the header: accepted and delivered.
        let (wire, _) = frame(false, &[full.clone()]);
        let mut r = Receiver::new(&cfg).unwrap();
        feed(&mut r, &wire, 0, wire.len(), true);
        assert!(r.error().is_none(), "{op}: {:?}", r.error());
        assert_eq!(deliveries(&r).len(), 1, "{op}");
        // One octet short: the error its decoder gives, at that FPDU, nothing delivered.
        let short = &full[..need - 1];
        let expected = decode_with(short, v).unwrap_err().terminate();
        let (wire, _) = frame(false, &[short.to_vec()]);
        let mut r = Receiver::new(&cfg).unwrap();
        feed(&mut r, &wire, 0, wire.len(), true);
        assert_eq!(error_code(&r), Some((expected, ORIGIN)), "{op}");
        assert!(deliveries(&r).is_empty(), "{op}");
        assert!(r.memory().iter().all(|(_, m)| m.iter().all(|&b| b == 0)), "{op}: written");
    }
}

#[test]
fn to_wrap_at_two_to_the_64_and_bounds_by_one_octet() {
    let mut cfg = config(false);
    cfg.regions[0].base = u64::MAX - 99; // [2^64 - 100, 2^64)
    cfg.regions[0].len = 100;
    let w = |to: u64, len: usize| {
        let h = TaggedHeader::new(Opcode::RdmaWrite, true, STAG, to, ProtocolVersion::Rfc5040);
        DdpSegment::Tagged { header: h, payload: vec![0xAB; len] }.encode()
    };
    let cases = [
        (u64::MAX - 9, 10, None), // ends exactly at 2^64
        (u64::MAX - 9, 11, Some(TerminateCode::DDP_TAGGED_TO_WRAP)), // one past 2^64
        (u64::MAX - 99, 100, None), // the whole region
        (u64::MAX - 100, 10, Some(TerminateCode::DDP_TAGGED_BASE_BOUNDS)), // one before
    ];
    for (to, len, err) in cases {
        let (wire, _) = frame(false, &[w(to, len)]);
        let mut r = Receiver::new(&cfg).unwrap();
        feed(&mut r, &wire, 0, wire.len(), false);
        assert_eq!(r.error().map(|e| e.code), err, "TO {to:#x} len {len}");
    }
    // One octet past the end of a region that does not end at 2^64.
    let cfg = config(false);
    for (off, len, err) in [(65536 - 10, 10, None), (65536 - 10, 11, true.then_some(()))] {
        let (wire, _) = frame(false, &[write(off, &vec![1; len], true)]);
        let mut r = Receiver::new(&cfg).unwrap();
        feed(&mut r, &wire, 0, wire.len(), false);
        assert_eq!(r.error().map(|e| e.code), err.map(|_| TerminateCode::DDP_TAGGED_BASE_BOUNDS));
    }
}

#[test]
fn msn_wraps_through_two_to_the_32() {
    let mut cfg = config(false);
    cfg.first_msn = u32::MAX - 1;
    cfg.posted = [u32::MAX - 1, u32::MAX, 0, 1]
        .into_iter()
        .map(|msn| PostedConfig { qn: 0, msn, len: 64 })
        .collect();
    let ulpdus: Vec<Vec<u8>> = [u32::MAX - 1, u32::MAX, 0, 1]
        .into_iter()
        .map(|m| send(m, 0, &[m as u8; 8], true))
        .collect();
    let (wire, _) = frame(false, &ulpdus);
    let mut r = Receiver::new(&cfg).unwrap();
    feed(&mut r, &wire, 0, wire.len(), true);
    let msns: Vec<u32> = deliveries(&r)
        .iter()
        .map(|d| match d {
            Delivery::Send { msn, .. } => *msn,
            _ => panic!("{d:?}"),
        })
        .collect();
    assert_eq!(msns, vec![u32::MAX - 1, u32::MAX, 0, 1]);
    assert!(r.error().is_none());
}

#[test]
fn zero_length_tagged_needs_nothing_but_zero_length_untagged_needs_its_buffer() {
    let empty_write = {
        let h = TaggedHeader::new(Opcode::RdmaWrite, true, 0, 12345, ProtocolVersion::Rfc5040);
        DdpSegment::Tagged { header: h, payload: Vec::new() }.encode()
    };
    let mut cfg = config(false);
    let (wire, _) = frame(false, &[empty_write, send(1, 0, &[], true)]);
    let mut r = Receiver::new(&cfg).unwrap();
    feed(&mut r, &wire, 0, wire.len(), true);
    assert!(r.error().is_none());
    assert_eq!(deliveries(&r).len(), 2);
    assert!(matches!(deliveries(&r)[0], Delivery::Write { stag: 0, to: 12345, len: 0, .. }));
    cfg.posted.retain(|p| p.msn != 1);
    let mut r = Receiver::new(&cfg).unwrap();
    feed(&mut r, &wire, 0, wire.len(), true);
    assert_eq!(r.error().map(|e| e.code), Some(TerminateCode::DDP_UNTAGGED_NO_BUFFER));
}

/// A Write, a Send with Invalidate of its region, a Write to the region: the third is an
/// error in order. Arriving before the Send, it is placed while the STag is valid and the walk
/// reports the in-order error (the documented exception); arriving after it, it is held and
/// never written.
#[test]
fn stag_invalidated_by_an_earlier_send_with_invalidate() {
    let inv = {
        let mut h = UntaggedHeader::new(
            Opcode::SendWithInvalidate,
            true,
            QN_SEND,
            1,
            0,
            ProtocolVersion::Rfc5040,
        );
        h.invalidate_stag = STAG;
        DdpSegment::Untagged { header: h, payload: vec![9; 40] }.encode()
    };
    let ulpdus = vec![write(0, &[1; 100], true), inv, write(1000, &[2; 100], true)];
    let (wire, at) = frame(false, &ulpdus);
    let cfg = config(false);
    let segs = [(0, at[1]), (at[1], at[2]), (at[2], wire.len())];
    let expected = Some((TerminateCode::DDP_TAGGED_INVALID_STAG, seq(at[2])));
    for order in [[0, 1, 2], [0, 2, 1], [1, 2, 0], [2, 1, 0], [2, 0, 1], [1, 0, 2]] {
        let mut r = Receiver::new(&cfg).unwrap();
        for &i in &order {
            let (a, b) = segs[i];
            assert_eq!(feed(&mut r, &wire, a, b, true), Verdict::Accepted);
        }
        assert_eq!(error_code(&r), expected, "order {order:?}");
        assert_eq!(deliveries(&r).len(), 2, "order {order:?}");
        let third_written = region(&r)[1000..1100].iter().all(|&b| b == 2);
        let third_before_send =
            order.iter().position(|&i| i == 2) < order.iter().position(|&i| i == 1);
        assert_eq!(third_written, third_before_send, "order {order:?}");
        assert!(region(&r)[..100].iter().all(|&b| b == 1));
    }
}

#[test]
fn out_of_order_fpdus_are_placed_at_once_and_delivered_in_order() {
    for markers in [false, true] {
        let ulpdus: Vec<Vec<u8>> =
            (0..6).map(|k| write(k * 200, &[k as u8 + 1; 150], true)).collect();
        let (wire, at) = frame(markers, &ulpdus);
        let mut r = Receiver::new(&config(markers)).unwrap();
        // FPDUs 3..6 first (one aligned segment), then 0..3.
        feed(&mut r, &wire, at[3], wire.len(), true);
        assert!(deliveries(&r).is_empty(), "nothing delivered before the gap is filled");
        assert_eq!(r.metrics().ooo_fpdus, 3);
        assert!(region(&r)[600..750].iter().all(|&b| b == 4), "placed out of order");
        assert_eq!(r.held_octets(), 0);
        feed(&mut r, &wire, 0, at[3], true);
        let d = deliveries(&r);
        assert_eq!(d.len(), 6);
        for (k, d) in d.iter().enumerate() {
            assert!(
                matches!(d, Delivery::Write { to, len: 150, .. } if *to == BASE + k as u64 * 200)
            );
        }
        assert_eq!(r.metrics().direct_octets, 6 * 150);
    }
}

#[test]
fn without_markers_or_alignment_out_of_order_octets_are_held() {
    let ulpdus: Vec<Vec<u8>> = (0..4).map(|k| write(k * 200, &[7; 150], true)).collect();
    let (wire, at) = frame(false, &ulpdus);
    let mut cfg = config(false);
    cfg.aligned_detect = false;
    let mut r = Receiver::new(&cfg).unwrap();
    feed(&mut r, &wire, at[2], wire.len(), true);
    assert_eq!((r.metrics().ooo_fpdus, r.held_octets()), (0, (wire.len() - at[2]) as u64));
    feed(&mut r, &wire, 0, at[2], true);
    assert_eq!(deliveries(&r).len(), 4);
    assert_eq!(r.metrics().held_octets, 2 * 150);
    assert_eq!(r.held_octets(), 0);
}

#[test]
fn a_retransmission_overlapping_placed_and_new_octets() {
    let ulpdus: Vec<Vec<u8>> = (0..5).map(|k| write(k * 200, &[k as u8 + 1; 150], true)).collect();
    let (wire, at) = frame(true, &ulpdus);
    let mut r = Receiver::new(&config(true)).unwrap();
    feed(&mut r, &wire, at[2], at[3], true); // FPDU 2 placed out of order
    assert_eq!(r.metrics().ooo_fpdus, 1);
    // Half of FPDU 2 (placed) and all of FPDU 3 (new): the chain from FPDU 2's end places 3.
    feed(&mut r, &wire, at[2] + 40, at[4], true);
    assert_eq!(r.metrics().ooo_fpdus, 2);
    assert_eq!(r.held_octets(), 0, "the placed half is not kept again");
    // A retransmission of FPDU 2 with different octets must not overwrite it.
    let mut forged = wire.clone();
    forged[at[2] + 30] ^= 0xFF;
    r.segment(seq(at[2]), &forged[at[2]..at[3]], false).unwrap();
    assert!(region(&r)[400..550].iter().all(|&b| b == 3));
    feed(&mut r, &wire, 0, at[2], true);
    feed(&mut r, &wire, at[4], wire.len(), true);
    assert_eq!(deliveries(&r).len(), 5);
    assert!(r.error().is_none() && r.finished());
}

#[test]
fn a_segment_starting_inside_an_fpdu_and_an_fpdu_split_in_its_length_field() {
    let ulpdus: Vec<Vec<u8>> = (0..4).map(|k| write(k * 700, &[k as u8 + 1; 600], true)).collect();
    for markers in [false, true] {
        let (wire, at) = frame(markers, &ulpdus);
        let lead = if markers { 4 } else { 0 };
        // Cut inside FPDU 1 and between the two octets of FPDU 2's ULPDU_Length.
        let cut1 = at[1] + 300;
        let cut2 = at[2] + lead + 1;
        let segs = [(0, cut1), (cut1, cut2), (cut2, wire.len())];
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]] {
            let mut r = Receiver::new(&config(markers)).unwrap();
            for &i in &order {
                feed(&mut r, &wire, segs[i].0, segs[i].1, true);
            }
            assert!(r.error().is_none(), "markers {markers} order {order:?}: {:?}", r.error());
            assert_eq!(deliveries(&r).len(), 4, "markers {markers} order {order:?}");
            for k in 0..4 {
                assert!(region(&r)[k * 700..k * 700 + 600].iter().all(|&b| b == k as u8 + 1));
            }
        }
    }
}

#[test]
fn an_out_of_order_fpdu_with_a_bad_crc_is_reported_only_in_order() {
    let ulpdus: Vec<Vec<u8>> = (0..4).map(|k| write(k * 200, &[k as u8 + 1; 150], true)).collect();
    let (mut wire, at) = frame(true, &ulpdus);
    wire[at[2] + 50] ^= 0x04;
    let mut r = Receiver::new(&config(true)).unwrap();
    feed(&mut r, &wire, at[3], wire.len(), true);
    feed(&mut r, &wire, at[2], at[3], true);
    assert!(r.error().is_none(), "not in order yet");
    assert_eq!(r.metrics().ooo_fpdus, 1, "FPDU 3 placed, FPDU 2 held");
    assert_eq!(r.held_octets(), (at[3] - at[2]) as u64);
    feed(&mut r, &wire, 0, at[2], true);
    assert_eq!(error_code(&r), Some((TerminateCode::MPA_CRC, seq(at[2]))));
    assert_eq!(deliveries(&r).len(), 2);
    assert!(region(&r)[400..550].iter().all(|&b| b == 0), "nothing of the failing FPDU");
}

#[test]
fn a_marker_that_disagrees_with_the_length_chain() {
    // One FPDU of 1000 octets from the origin: its inner Marker at 512 points back 508 octets.
    let ulpdus = vec![write(0, &[5; 986], true), write(2000, &[6; 100], true)];
    let (mut wire, at) = frame(true, &ulpdus);
    assert_eq!(&wire[512..516], &[0, 0, 0x01, 0xfc]);
    wire[515] = 0xf8; // FPDUPTR 0x1f8: the chain says 0x1fc
    let n = at[1];
    let crc = golden::crc::crc32c(&wire[..n - 4]).to_le_bytes();
    wire[n - 4..n].copy_from_slice(&crc); // a sender that computed the CRC over the bad Marker
    for order in [[0, 1], [1, 0]] {
        let segs = [(0, 600), (600, wire.len())];
        let mut r = Receiver::new(&config(true)).unwrap();
        for &i in &order {
            feed(&mut r, &wire, segs[i].0, segs[i].1, true);
        }
        assert_eq!(error_code(&r), Some((TerminateCode::MPA_MARKER, ORIGIN)), "{order:?}");
        assert!(deliveries(&r).is_empty());
    }
}

#[test]
fn truncated_stream_at_fin_is_mpa_error_1() {
    let ulpdus = vec![write(0, &[1; 100], true), write(200, &[2; 100], true)];
    let (wire, at) = frame(false, &ulpdus);
    let cut = at[1] + 50;
    let mut r = Receiver::new(&config(false)).unwrap();
    r.segment(seq(at[1]), &wire[at[1]..cut], true).unwrap(); // FIN first, out of order
    assert!(r.error().is_none());
    feed(&mut r, &wire, 0, at[1], false);
    assert_eq!(error_code(&r), Some((TerminateCode::MPA_CONNECTION_LOST, seq(at[1]))));
    assert_eq!(deliveries(&r).len(), 1);
}

#[test]
fn sequence_numbers_wrap_through_two_to_the_32() {
    let ulpdus: Vec<Vec<u8>> = (0..6).map(|k| write(k * 200, &[k as u8 + 1; 150], true)).collect();
    let (wire, at) = frame(true, &ulpdus);
    let mut cfg = config(true);
    cfg.origin = u32::MAX - 300; // wraps inside FPDU 1
    let mut r = Receiver::new(&cfg).unwrap();
    for k in [5, 3, 1, 4, 2, 0] {
        let b = if k == 5 { wire.len() } else { at[k + 1] };
        r.segment(cfg.origin.wrapping_add(at[k] as u32), &wire[at[k]..b], k == 5).unwrap();
    }
    assert_eq!(deliveries(&r).len(), 6);
    assert!(r.error().is_none() && r.finished());
}

#[test]
fn refusal_keeps_room_for_the_in_order_edge_and_nothing_of_a_refused_segment() {
    let ulpdus: Vec<Vec<u8>> =
        (0..6).map(|k| write(k * 2000, &[k as u8 + 1; 1500], true)).collect();
    let (wire, at) = frame(false, &ulpdus);
    let mut cfg = config(false);
    cfg.aligned_detect = false; // every out-of-order octet must be held
    cfg.reassembly_octets = cfg.min_reassembly_octets();
    cfg.records = 1;
    let mut r = Receiver::new(&cfg).unwrap();
    // Out of order: no room at all beyond the reserve.
    assert_eq!(feed(&mut r, &wire, at[3], at[4], false), Verdict::Refused);
    assert_eq!((r.held_octets(), r.records_in_use()), (0, 0));
    // In order, even a partial FPDU is taken.
    assert_eq!(feed(&mut r, &wire, 0, at[0] + 700, false), Verdict::Accepted);
    assert_eq!(r.held_octets(), 700);
    for k in 0..6 {
        let b = if k == 5 { wire.len() } else { at[k + 1] };
        assert_eq!(feed(&mut r, &wire, at[k], b, true), Verdict::Accepted, "FPDU {k}");
    }
    assert_eq!(deliveries(&r).len(), 6);
    assert_eq!(r.metrics().refused, 1);
    // A bigger buffer takes the out-of-order FPDU; a second run would exceed one record.
    cfg.reassembly_octets = cfg.min_reassembly_octets() + 2000;
    cfg.records = 2;
    let mut r = Receiver::new(&cfg).unwrap();
    assert_eq!(feed(&mut r, &wire, at[3], at[4], false), Verdict::Accepted);
    assert_eq!(feed(&mut r, &wire, at[5], wire.len(), true), Verdict::Refused, "records");
}

#[test]
fn bad_configuration_and_bad_input_are_errors_not_panics() {
    let mut c = config(false);
    c.reassembly_octets = c.min_reassembly_octets() - 1;
    assert!(Receiver::new(&c).unwrap_err().to_string().contains("reassembly_octets"));
    let mut c = config(false);
    c.records = 0;
    assert!(Receiver::new(&c).is_err());
    let mut c = config(false);
    c.regions.push(c.regions[0]);
    assert!(Receiver::new(&c).unwrap_err().to_string().contains("twice"));
    let mut c = config(false);
    c.posted.push(PostedConfig { qn: 5, msn: 1, len: 1 });
    assert!(Receiver::new(&c).is_err());
    assert!(ReceiverConfig::from_json("{\"markers\": true}").is_err());
    assert!(ReceiverConfig::from_json("not json").is_err());
    let json = serde_json::to_string(&config(true)).unwrap();
    assert_eq!(ReceiverConfig::from_json(&json).unwrap(), config(true));

    let mut r = Receiver::new(&config(false)).unwrap();
    assert!(matches!(
        r.segment(ORIGIN.wrapping_add(1 << 30), &[0; 8], false),
        Err(InputError::OutsideWindow { .. })
    ));
    r.segment(ORIGIN + 100, &[0; 4], true).unwrap();
    assert!(matches!(r.segment(ORIGIN + 100, &[0; 8], false), Err(InputError::AfterFin { .. })));
    assert!(matches!(r.segment(ORIGIN, &[0; 4], true), Err(InputError::SecondFin { .. })));
    // Hostile octets in order: an error, never a panic.
    let mut r = Receiver::new(&config(true)).unwrap();
    r.segment(ORIGIN, &[0xFF; 64], false).unwrap();
    assert_eq!(r.error().map(|e| e.code), Some(TerminateCode::MPA_CRC));
}

/// A hostile out-of-order segment that does not start at a multiple of 4 octets from the origin
/// (no FPDU can start there): nothing located, no panic.
#[test]
fn an_unaligned_out_of_order_segment_locates_nothing() {
    for markers in [false, true] {
        let mut r = Receiver::new(&config(markers)).unwrap();
        let v = r.segment(seq(1018), &[0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], false).unwrap();
        assert_eq!(v, Verdict::Accepted);
        assert_eq!((r.metrics().ooo_fpdus, r.held_octets()), (0, 12));
    }
}

/// A damaged ULPDU_Length makes the chain's FPDU overlap FPDUs placed out of order: the error
/// comes when in-order processing would give it (code 2 once the FPDU is complete, code 1 when
/// the stream ends inside it, nothing before).
#[test]
fn a_damaged_length_overlapping_placed_fpdus_gives_the_in_order_error() {
    let ulpdus: Vec<Vec<u8>> = (0..4).map(|k| write(k * 200, &[k as u8 + 1; 100], true)).collect();
    let (wire, at) = frame(false, &ulpdus);
    for (claimed, fin) in [(0x03_00u16, true), (0x03_00, false), (0x00_f0, true), (0x00_f0, false)]
    {
        let mut bad = wire.clone();
        bad[..2].copy_from_slice(&claimed.to_be_bytes());
        let n = bad.len();
        let segs = [(at[1], at[2]), (at[2], at[3]), (0, at[1]), (at[3], n)];
        let outcome = |order: &[usize]| {
            let mut r = Receiver::new(&config(false)).unwrap();
            for &i in order {
                let (a, b) = segs[i];
                r.segment(seq(a), &bad[a..b], fin && b == n).unwrap();
            }
            (error_code(&r), deliveries(&r), r.metrics().ooo_fpdus)
        };
        let (in_order, d0, _) = outcome(&[2, 0, 1, 3]);
        let (arrival, d1, placed) = outcome(&[0, 1, 2, 3]);
        assert!(placed > 0, "FPDUs were placed out of order");
        assert_eq!((arrival, d1), (in_order, d0), "claimed {claimed:#x} fin {fin}");
        let expected = match (claimed, fin) {
            // 0x300 octets reach past the stream's end (480 octets): truncated at FIN, nothing
            // without.
            (0x0300, true) => Some((TerminateCode::MPA_CONNECTION_LOST, ORIGIN)),
            (0x0300, false) => None,
            _ => Some((TerminateCode::MPA_CRC, ORIGIN)),
        };
        assert_eq!(in_order, expected, "claimed {claimed:#x} fin {fin}");
    }
}

#[test]
fn with_out_of_order_placement_off_every_out_of_order_octet_is_held() {
    for markers in [false, true] {
        let ulpdus: Vec<Vec<u8>> =
            (0..6).map(|k| write(k * 200, &[k as u8 + 1; 150], true)).collect();
        let (wire, at) = frame(markers, &ulpdus);
        let mut cfg = config(markers);
        cfg.place_out_of_order = false;
        let mut r = Receiver::new(&cfg).unwrap();
        feed(&mut r, &wire, at[3], wire.len(), true);
        assert_eq!(r.metrics().ooo_fpdus, 0, "nothing located with placement off");
        assert_eq!(r.held_octets(), (wire.len() - at[3]) as u64);
        assert!(region(&r)[600..750].iter().all(|&b| b == 0), "nothing written early");
        feed(&mut r, &wire, 0, at[3], true);
        assert_eq!(deliveries(&r).len(), 6);
        assert_eq!((r.metrics().direct_octets, r.held_octets()), (3 * 150, 0));
    }
}

#[test]
fn a_segment_ending_beyond_the_reassembly_window_is_refused() {
    let ulpdus: Vec<Vec<u8>> = (0..6).map(|k| write(k * 200, &[9; 150], true)).collect();
    let (wire, at) = frame(false, &ulpdus);
    let mut cfg = config(false);
    cfg.reassembly_window = at[4] as u64;
    let mut r = Receiver::new(&cfg).unwrap();
    // Ends exactly at edge + window: taken; one octet further: refused.
    assert_eq!(feed(&mut r, &wire, at[3], at[4], false), Verdict::Accepted);
    assert_eq!(feed(&mut r, &wire, at[4], at[4] + 1, false), Verdict::Refused);
    // In order, a segment is never refused, however long.
    assert_eq!(feed(&mut r, &wire, 0, wire.len(), true), Verdict::Accepted);
    assert_eq!(deliveries(&r).len(), 6);
    cfg.reassembly_window = 0;
    assert!(Receiver::new(&cfg).is_err(), "a zero window is a configuration error");
}
