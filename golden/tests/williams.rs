//! The Williams RDMA/TCP format: round trips, layout, every validation error, the length chain,
//! framing recovery after loss, and hostile input.

use golden::crc::CRC32_WILLIAMS;
use golden::williams::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const CID: u64 = 0x0123_4567_89AB_CDEF;

fn fields(ty: MessageType, begin: bool, rng: &mut StdRng) -> TypeFields {
    let off = if begin { 0 } else { rng.gen() };
    match ty {
        MessageType::Send => TypeFields::Send { data_offset: off },
        MessageType::RdmaReadResponse => TypeFields::RdmaReadResponse { data_offset: off },
        MessageType::RdmaWrite => TypeFields::RdmaWrite {
            buffer_id: rng.gen(),
            buffer_offset: rng.gen(),
            length: rng.gen(),
        },
        MessageType::RdmaReadRequest => TypeFields::RdmaReadRequest {
            buffer_id: rng.gen(),
            buffer_offset: rng.gen(),
            length: rng.gen(),
        },
    }
}

fn segment(
    ty: MessageType,
    cid: u64,
    words: usize,
    payload_len: usize,
    rng: &mut StdRng,
) -> Segment {
    let rr = ty == MessageType::RdmaReadRequest;
    let begin = rr || rng.gen();
    let end = rr || rng.gen();
    Segment {
        reserved: rng.gen_range(0..16),
        begin,
        end,
        connection_id: cid,
        message_number: rng.gen(),
        order: rng.gen(),
        reserved_octet: rng.gen(),
        fields: fields(ty, begin, rng),
        control: (0..4 * words).map(|_| rng.gen()).collect(),
        payload: if rr { Vec::new() } else { (0..payload_len).map(|_| rng.gen()).collect() },
    }
}

fn random_segment(cid: u64, max_payload: usize, rng: &mut StdRng) -> Segment {
    let ty = MessageType::ALL[rng.gen_range(0..4)];
    let words = rng.gen_range(0..4);
    let len = rng.gen_range(0..=max_payload);
    segment(ty, cid, words, len, rng)
}

/// Rewrites the CRC of an encoded segment after its bytes were patched (Segment Length intact).
fn reseal(bytes: &mut [u8]) {
    let n = bytes.len() - CRC_LEN;
    let crc = crc_field(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc);
}

#[test]
fn all_types_round_trip_with_every_control_length_and_padding() {
    let mut rng = StdRng::seed_from_u64(1);
    for ty in MessageType::ALL {
        for words in [0usize, 1, 2, 3, 7, 255] {
            for payload_len in 0..64 {
                let seg = segment(ty, CID, words, payload_len, &mut rng);
                let bytes = seg.encode().unwrap();
                let seg_len = ty.header_len() + 4 * words + seg.payload.len();
                assert_eq!(seg.segment_length(), seg_len);
                assert_eq!(bytes.len(), seg_len.div_ceil(4) * 4 + 4);
                assert_eq!(bytes.len(), seg.wire_len());
                assert_eq!(bytes.len() % 4, 0);
                assert_eq!(bytes[0], VERSION);
                assert_eq!(bytes[1] & 0x03, ty.bits());
                assert_eq!(u16::from_be_bytes([bytes[2], bytes[3]]) as usize, seg_len);
                assert_eq!(bytes[19] as usize, words);
                // Padding is zero.
                assert!(bytes[seg_len..bytes.len() - 4].iter().all(|&b| b == 0));
                // CRC: over everything before it, least significant octet first.
                let crc = CRC32_WILLIAMS.checksum(&bytes[..bytes.len() - 4]);
                assert_eq!(bytes[bytes.len() - 4..], crc.to_le_bytes());
                // Decoding with trailing stream data returns the same segment and its length.
                let mut stream = bytes.clone();
                stream.extend_from_slice(&[0xEE; 9]);
                assert_eq!(Segment::decode(&stream), Ok((seg.clone(), bytes.len())));
                let h = Header::parse(&bytes).unwrap();
                assert_eq!(h.wire_len(), bytes.len());
                assert_eq!(h.message_type(), ty);
                assert_eq!(h.connection_id, CID);
            }
        }
    }
}

#[test]
fn header_layout_is_big_endian_as_drawn() {
    let seg = Segment {
        reserved: 0xA,
        begin: true,
        end: false,
        connection_id: 0x0102_0304_0506_0708,
        message_number: 0x1112_1314,
        order: 0x2122,
        reserved_octet: 0x33,
        fields: TypeFields::RdmaWrite {
            buffer_id: 0x4142_4344,
            buffer_offset: 0x5152_5354,
            length: 0x6162_6364,
        },
        control: vec![0x71, 0x72, 0x73, 0x74],
        payload: vec![0x81, 0x82, 0x83],
    };
    let b = seg.encode().unwrap();
    #[rustfmt::skip]
    let want_head = [
        0x01, 0xA9, 0x00, 39,                           // version; res=A B=1 E=0 type=1; length 32+4+3
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // Connection ID
        0x11, 0x12, 0x13, 0x14,                         // Message Number
        0x21, 0x22, 0x33, 0x01,                         // order, res., CLEN
        0x41, 0x42, 0x43, 0x44,                         // RDMA Buffer ID
        0x51, 0x52, 0x53, 0x54,                         // RDMA Buffer offset
        0x61, 0x62, 0x63, 0x64,                         // RDMA Length
        0x71, 0x72, 0x73, 0x74,                         // control data
        0x81, 0x82, 0x83, 0x00,                         // payload, one octet of padding
    ];
    assert_eq!(b[..40], want_head);
    assert_eq!(b.len(), 44);
    let send = Segment {
        fields: TypeFields::Send { data_offset: 0 },
        end: true,
        control: vec![],
        payload: vec![],
        ..seg
    };
    let b = send.encode().unwrap();
    assert_eq!(b[1], 0xAC); // B and E, type 0
    assert_eq!(b[2..4], [0, 24]);
    assert_eq!(b[20..24], [0, 0, 0, 0]);
    assert_eq!(b.len(), 28);
}

#[test]
fn version_must_be_1() {
    let mut rng = StdRng::seed_from_u64(2);
    let good = random_segment(CID, 10, &mut rng).encode().unwrap();
    for v in [0u8, 2, 0xFF] {
        let mut b = good.clone();
        b[0] = v;
        reseal(&mut b);
        assert_eq!(Segment::decode(&b), Err(WilliamsError::Version(v)));
    }
}

#[test]
fn segment_length_below_the_header() {
    let mut rng = StdRng::seed_from_u64(3);
    for ty in MessageType::ALL {
        let good = segment(ty, CID, 0, 0, &mut rng).encode().unwrap();
        let hl = ty.header_len();
        // Exactly the header passes.
        assert!(Segment::decode(&good).is_ok());
        for short in [0usize, 1, 20, hl - 1] {
            let mut b = good.clone();
            b[2..4].copy_from_slice(&(short as u16).to_be_bytes());
            assert_eq!(
                Header::parse(&b),
                Err(WilliamsError::LengthBelowHeader {
                    segment_length: short as u16,
                    header_len: hl
                })
            );
        }
    }
}

#[test]
fn segment_length_below_header_plus_control_data() {
    let mut rng = StdRng::seed_from_u64(4);
    for ty in MessageType::ALL {
        let seg = segment(ty, CID, 2, 0, &mut rng);
        let b = seg.encode().unwrap();
        let hl = ty.header_len();
        for words in [3u8, 255] {
            let mut bad = b.clone();
            bad[19] = words;
            reseal(&mut bad);
            assert_eq!(
                Segment::decode(&bad),
                Err(WilliamsError::ControlOverrun {
                    segment_length: (hl + 8) as u16,
                    header_and_control: hl + 4 * words as usize
                })
            );
        }
    }
}

#[test]
fn read_request_carries_no_payload_and_is_one_segment() {
    let mut rng = StdRng::seed_from_u64(5);
    let seg = segment(MessageType::RdmaReadRequest, CID, 1, 0, &mut rng);
    // Encode refuses a payload.
    let with_payload = Segment { payload: vec![1, 2, 3, 4], ..seg.clone() };
    assert_eq!(with_payload.encode(), Err(WilliamsError::ReadRequestPayload { payload_len: 4 }));
    // Decode refuses one: build it as a Write and retype it.
    let as_write = Segment {
        fields: TypeFields::RdmaWrite { buffer_id: 1, buffer_offset: 2, length: 3 },
        ..with_payload
    };
    let mut b = as_write.encode().unwrap();
    b[1] = (b[1] & !0x03) | MessageType::RdmaReadRequest.bits();
    reseal(&mut b);
    assert_eq!(Segment::decode(&b), Err(WilliamsError::ReadRequestPayload { payload_len: 4 }));
    // B and E both required.
    for (begin, end) in [(false, true), (true, false), (false, false)] {
        let s = Segment { begin, end, ..seg.clone() };
        let e = WilliamsError::ReadRequestNotSingleSegment { begin, end };
        assert_eq!(s.encode(), Err(e));
        let mut b = seg.encode().unwrap();
        b[1] &= !0x0C;
        b[1] |= if begin { 0x08 } else { 0 } | if end { 0x04 } else { 0 };
        reseal(&mut b);
        assert_eq!(Segment::decode(&b), Err(e));
    }
}

#[test]
fn first_segment_has_data_offset_zero() {
    for fields in
        [TypeFields::Send { data_offset: 5 }, TypeFields::RdmaReadResponse { data_offset: 5 }]
    {
        let s = Segment {
            reserved: 0,
            begin: true,
            end: true,
            connection_id: CID,
            message_number: 1,
            order: 0,
            reserved_octet: 0,
            fields,
            control: vec![],
            payload: vec![9; 5],
        };
        assert_eq!(s.encode(), Err(WilliamsError::BeginWithOffset { data_offset: 5 }));
        let mut b = Segment { begin: false, ..s.clone() }.encode().unwrap();
        assert!(Segment::decode(&b).is_ok(), "a later segment may have an offset");
        b[1] |= 0x08;
        reseal(&mut b);
        assert_eq!(Segment::decode(&b), Err(WilliamsError::BeginWithOffset { data_offset: 5 }));
    }
}

#[test]
fn truncated_input() {
    let mut rng = StdRng::seed_from_u64(6);
    for _ in 0..50 {
        let b = random_segment(CID, 40, &mut rng).encode().unwrap();
        for cut in 0..b.len() {
            match Segment::decode(&b[..cut]) {
                Err(WilliamsError::Truncated { needed, got }) => {
                    assert_eq!(got, cut);
                    assert!(needed > cut && needed <= b.len());
                }
                other => panic!("cut {cut}: {other:?}"),
            }
        }
        assert!(Segment::decode(&b).is_ok());
    }
}

#[test]
fn crc_mismatch_on_any_flipped_bit_after_the_header() {
    let mut rng = StdRng::seed_from_u64(7);
    let seg = segment(MessageType::Send, CID, 2, 21, &mut rng);
    let b = seg.encode().unwrap();
    let good_crc = CRC32_WILLIAMS.checksum(&b[..b.len() - 4]);
    // Every bit of the control data, payload, padding and the CRC itself.
    for i in 24..b.len() {
        for bit in 0..8 {
            let mut bad = b.clone();
            bad[i] ^= 1 << bit;
            match Segment::decode(&bad) {
                Err(WilliamsError::CrcMismatch { carried, computed }) => {
                    assert_ne!(carried, computed);
                    if i >= b.len() - 4 {
                        assert_eq!(computed, good_crc);
                    }
                }
                other => panic!("octet {i} bit {bit}: {other:?}"),
            }
        }
    }
    // Header fields that pass the other checks are covered too.
    let mut bad = b.clone();
    bad[12] ^= 1; // Message Number
    assert!(matches!(Segment::decode(&bad), Err(WilliamsError::CrcMismatch { .. })));
}

#[test]
fn nonzero_padding_is_ignored_but_covered_by_the_crc() {
    let mut rng = StdRng::seed_from_u64(8);
    let seg = segment(MessageType::RdmaReadResponse, CID, 0, 5, &mut rng);
    let b = seg.encode().unwrap();
    assert_eq!(b.len(), 24 + 8 + 4); // 29 octets of segment, 3 of padding
    let mut padded = b.clone();
    padded[29..32].copy_from_slice(&[0xFF, 0x01, 0x80]);
    // Sent with its CRC computed over the non-zero padding: accepted, same segment.
    reseal(&mut padded);
    assert_eq!(Segment::decode(&padded), Ok((seg, b.len())));
    // Changed after the CRC was computed: the CRC catches it.
    let mut changed = b.clone();
    changed[31] = 0x55;
    assert!(matches!(Segment::decode(&changed), Err(WilliamsError::CrcMismatch { .. })));
}

#[test]
fn encode_refuses_what_cannot_be_sent() {
    let mut rng = StdRng::seed_from_u64(9);
    let seg = segment(MessageType::RdmaWrite, CID, 0, 0, &mut rng);
    let s = Segment { control: vec![0; 5], ..seg.clone() };
    assert_eq!(s.encode(), Err(WilliamsError::ControlNotWords { len: 5 }));
    let s = Segment { control: vec![0; 256 * 4], ..seg.clone() };
    assert_eq!(s.encode(), Err(WilliamsError::ControlTooLong { words: 256 }));
    let max = MAX_SEGMENT_LENGTH - RDMA_HEADER_LEN;
    let s = Segment { payload: vec![0; max], ..seg.clone() };
    let b = s.encode().unwrap();
    assert_eq!(b[2..4], [0xFF, 0xFF]);
    assert_eq!(b.len(), 65536 + 4);
    assert_eq!(Segment::decode(&b).unwrap().0, s);
    let s = Segment { payload: vec![0; max + 1], ..seg };
    assert_eq!(s.encode(), Err(WilliamsError::SegmentTooLong { segment_length: 65536 }));
}

#[test]
fn every_type_value_is_assigned() {
    for bits in 0..4u8 {
        assert_eq!(MessageType::from_bits(bits).bits(), bits);
    }
    assert_eq!(MessageType::from_bits(0), MessageType::Send);
    assert_eq!(MessageType::from_bits(1), MessageType::RdmaWrite);
    assert_eq!(MessageType::from_bits(2), MessageType::RdmaReadRequest);
    assert_eq!(MessageType::from_bits(3), MessageType::RdmaReadResponse);
}

// ----- framing -----

/// A stream of `n` random segments of connection `cid`; returns it with the segment starts.
fn stream(
    n: usize,
    cid: u64,
    foreign: u64,
    rng: &mut StdRng,
) -> (Vec<u8>, Vec<usize>, Vec<Segment>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    let mut segs = Vec::new();
    for _ in 0..n {
        let mut seg = random_segment(cid, 200, rng);
        // Some payloads carry a complete, valid segment of another connection at an aligned
        // position (the payload starts 4-aligned): a decoy for the recovery scan.
        if seg.message_type() != MessageType::RdmaReadRequest && rng.gen_bool(0.3) {
            let decoy = random_segment(foreign, 40, rng).encode().unwrap();
            let mut p = decoy;
            p.extend((0..rng.gen_range(0..20)).map(|_| rng.gen::<u8>()));
            seg.payload = p;
        }
        starts.push(out.len());
        out.extend(seg.encode().unwrap());
        segs.push(seg);
    }
    (out, starts, segs)
}

#[test]
fn walk_follows_the_length_chain() {
    let mut rng = StdRng::seed_from_u64(10);
    let (s, starts, segs) = stream(40, CID, !CID, &mut rng);
    // The bare length chain visits exactly the segment starts.
    let mut at = 0;
    let mut chain = Vec::new();
    while at < s.len() {
        chain.push(at);
        at = next_segment_start(&s, at).unwrap();
    }
    assert_eq!(at, s.len());
    assert_eq!(chain, starts);

    let w = walk(&s, 0, Some(CID));
    assert_eq!(w.stopped, None);
    assert_eq!(w.end, s.len());
    assert_eq!(w.segments.iter().map(|l| l.offset).collect::<Vec<_>>(), starts);
    assert_eq!(w.segments.iter().map(|l| l.segment.clone()).collect::<Vec<_>>(), segs);
    // Learning the ID from the first segment gives the same walk.
    assert_eq!(walk(&s, 0, None), w);
    // From a later known start.
    let w5 = walk(&s, starts[5], Some(CID));
    assert_eq!(w5.segments.len(), 35);
    // A partial tail: stop at its start, Truncated.
    let cut = starts[20] + 10;
    let w = walk(&s[..cut], 0, Some(CID));
    assert_eq!(w.segments.len(), 20);
    assert_eq!(w.end, starts[20]);
    assert!(matches!(w.stopped, Some(WilliamsError::Truncated { .. })));
    // A segment of another connection ends the walk.
    let w = walk(&s, 0, Some(CID ^ 1));
    assert_eq!(w.segments.len(), 0);
    assert_eq!(w.stopped, Some(WilliamsError::ConnectionId { expected: CID ^ 1, found: CID }));
    // Corruption ends it at the bad segment.
    let mut bad = s.clone();
    bad[starts[7] + 24] ^= 0x10;
    let w = walk(&bad, 0, Some(CID));
    assert_eq!((w.segments.len(), w.end), (7, starts[7]));
}

#[test]
fn recovery_scan_finds_the_next_segment_after_random_loss() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut found_count = 0;
    for round in 0..400 {
        let cid: u64 = rng.gen();
        let foreign: u64 = rng.gen();
        let (s, starts, _) = stream(12, cid, foreign, &mut rng);
        // Lose `k` octets from a random position `p`; the receiver knows the stream offset of
        // what follows (TCP sequence numbers).
        let p = rng.gen_range(0..s.len());
        let k = rng.gen_range(1..=(s.len() - p).min(600));
        let resume = p + k;
        let data = &s[resume..];
        let ctx = RecoveryContext { connection_id: cid, message_window: None };
        let expected = starts.iter().copied().find(|&st| st >= resume);
        match scan_for_segment(data, resume as u64, &ctx) {
            ScanResult::Found(loc) => {
                assert_eq!(loc.segment.connection_id, cid);
                assert_eq!(Some(resume + loc.offset), expected, "round {round}");
                assert_eq!((resume + loc.offset) % 4, 0);
                // The chain continues from there to the end of the stream.
                let w = walk(data, loc.offset, Some(cid));
                assert_eq!((w.end, w.stopped), (data.len(), None));
                found_count += 1;
            }
            other => {
                assert_eq!(expected, None, "round {round}: {other:?}");
            }
        }
        // Never accept a foreign connection, whatever the alignment.
        let ctx_foreign = RecoveryContext { connection_id: foreign, message_window: None };
        if let ScanResult::Found(loc) = scan_for_segment(data, resume as u64, &ctx_foreign) {
            assert_eq!(loc.segment.connection_id, foreign);
        }
    }
    assert!(found_count > 300, "{found_count}");
}

#[test]
fn recovery_scan_skips_decoys_of_other_connections() {
    let mut rng = StdRng::seed_from_u64(12);
    let decoy = random_segment(0xBAD, 16, &mut rng).encode().unwrap();
    let mut carrier = segment(MessageType::Send, CID, 0, 0, &mut rng);
    carrier.begin = false;
    carrier.payload = decoy.clone();
    let next = segment(MessageType::RdmaWrite, CID, 1, 9, &mut rng);
    let mut s = carrier.encode().unwrap();
    let next_at = s.len();
    s.extend(next.encode().unwrap());
    // Resume just after the carrier's header: the decoy is the first aligned candidate.
    let data = &s[8..];
    let ctx = RecoveryContext { connection_id: CID, message_window: None };
    match scan_for_segment(data, 8, &ctx) {
        ScanResult::Found(loc) => {
            assert_eq!(loc.offset + 8, next_at);
            assert_eq!(loc.segment, next);
        }
        other => panic!("{other:?}"),
    }
    // The decoy itself is rejected on its Connection ID before anything else.
    assert_eq!(
        check_candidate(&s[24..], &ctx),
        Err(WilliamsError::ConnectionId { expected: CID, found: 0xBAD })
    );
    // ... and accepted by its own connection.
    let own = RecoveryContext { connection_id: 0xBAD, message_window: None };
    match scan_for_segment(data, 8, &own) {
        ScanResult::Found(loc) => assert_eq!(loc.offset + 8, 24),
        other => panic!("{other:?}"),
    }
}

#[test]
fn recovery_scan_respects_alignment_and_incomplete_data() {
    let mut rng = StdRng::seed_from_u64(13);
    let a = segment(MessageType::Send, CID, 0, 7, &mut rng).encode().unwrap();
    let b = segment(MessageType::Send, CID, 0, 100, &mut rng);
    let mut s = a.clone();
    s.extend(b.encode().unwrap());
    let ctx = RecoveryContext { connection_id: CID, message_window: None };
    // Data starting 2 octets into the stream: the first aligned candidate is data[2].
    match scan_for_segment(&s[2..], 2, &ctx) {
        ScanResult::Found(loc) => assert_eq!(loc.offset + 2, a.len()),
        other => panic!("{other:?}"),
    }
    // Misreported alignment: no aligned position holds a segment.
    assert!(!matches!(scan_for_segment(&s[2..], 0, &ctx), ScanResult::Found(_)));
    // The next segment's header and part of its payload arrived: wait for more data.
    let cut = a.len() + 40;
    assert_eq!(scan_for_segment(&s[4..cut], 4, &ctx), ScanResult::Incomplete { at: a.len() - 4 });
    // Too little data to see a Connection ID.
    assert_eq!(
        scan_for_segment(&s[4..a.len() + 8], 4, &ctx),
        ScanResult::NotFound { resume_at: a.len() - 4 }
    );
    assert_eq!(scan_for_segment(&[], 0, &ctx), ScanResult::NotFound { resume_at: 0 });
}

#[test]
fn message_number_window_adds_confidence() {
    let mut rng = StdRng::seed_from_u64(14);
    let mut seg = segment(MessageType::RdmaWrite, CID, 0, 8, &mut rng);
    seg.message_number = 1000;
    let b = seg.encode().unwrap();
    let inside = RecoveryContext {
        connection_id: CID,
        message_window: Some(MessageWindow { first: 998, count: 4 }),
    };
    assert!(check_candidate(&b, &inside).is_ok());
    let outside = RecoveryContext {
        connection_id: CID,
        message_window: Some(MessageWindow { first: 1001, count: 4 }),
    };
    assert_eq!(check_candidate(&b, &outside), Err(WilliamsError::MessageNumber { found: 1000 }));
    assert!(!matches!(scan_for_segment(&b, 0, &outside), ScanResult::Found(_)));
}

#[test]
fn candidate_checks_run_in_the_drafts_order() {
    let mut rng = StdRng::seed_from_u64(15);
    let mut b = segment(MessageType::Send, CID, 0, 8, &mut rng).encode().unwrap();
    let ctx = RecoveryContext { connection_id: CID, message_window: None };
    // Wrong version and wrong ID: the ID is reported.
    b[0] = 9;
    b[11] ^= 1;
    assert!(matches!(check_candidate(&b, &ctx), Err(WilliamsError::ConnectionId { .. })));
    // Right ID, wrong version: version.
    b[11] ^= 1;
    assert_eq!(check_candidate(&b, &ctx), Err(WilliamsError::Version(9)));
    // Header fine, CRC last.
    b[0] = 1;
    b[30] ^= 1;
    assert!(matches!(check_candidate(&b, &ctx), Err(WilliamsError::CrcMismatch { .. })));
    assert_eq!(
        check_candidate(&b[..11], &ctx),
        Err(WilliamsError::Truncated { needed: 12, got: 11 })
    );
}

#[test]
fn recovery_at_tcp_segment_boundaries_as_the_draft_recommends() {
    let mut rng = StdRng::seed_from_u64(16);
    for _ in 0..100 {
        let (s, starts, segs) = stream(20, CID, !CID, &mut rng);
        let ctx = RecoveryContext { connection_id: CID, message_window: None };
        // TCP segments aligned to RDMA segments, 1 to 3 RDMA segments each.
        let mut bounds = vec![0];
        let mut i = 0;
        while i < starts.len() {
            i += rng.gen_range(1..=3);
            bounds.push(if i < starts.len() { starts[i] } else { s.len() });
        }
        // Lose one TCP segment; the next one starts an RDMA segment.
        let lost = rng.gen_range(0..bounds.len() - 2);
        let (from, to) = (bounds[lost + 1], bounds[lost + 2]);
        match recover_at_tcp_segment(&s[from..to], &ctx) {
            TcpSegmentRecovery::Aligned(w) => {
                assert_eq!((w.end, w.stopped), (to - from, None));
                let first = starts.iter().position(|&x| x == from).unwrap();
                for (k, loc) in w.segments.iter().enumerate() {
                    assert_eq!(loc.offset + from, starts[first + k]);
                    assert_eq!(loc.segment, segs[first + k]);
                }
            }
            other => panic!("{other:?}"),
        }
        // A TCP segment that does not start on an RDMA segment: buffer it.
        let mid = from + 4 * rng.gen_range(1..(to - from) / 4);
        if !starts.contains(&mid) {
            assert!(matches!(
                recover_at_tcp_segment(&s[mid..to], &ctx),
                TcpSegmentRecovery::BufferUntilInOrder(_)
            ));
        }
        // A TCP segment holding only the start of a long RDMA segment: the header checks out,
        // the CRC has to wait.
        let seg = segs.iter().position(|g| g.wire_len() > 64);
        if let Some(j) = seg {
            match recover_at_tcp_segment(&s[starts[j]..starts[j] + 40], &ctx) {
                TcpSegmentRecovery::HeaderOnly { header, wire_len } => {
                    assert_eq!(header.connection_id, CID);
                    assert_eq!(wire_len, segs[j].wire_len());
                }
                other => panic!("{other:?}"),
            }
        }
    }
}

// ----- hostile input -----

#[test]
fn random_bytes_never_panic() {
    let mut rng = StdRng::seed_from_u64(17);
    let ctx = RecoveryContext {
        connection_id: CID,
        message_window: Some(MessageWindow { first: 0, count: u32::MAX }),
    };
    for i in 0..50_000 {
        let len = rng.gen_range(0..200);
        let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        // Plant plausible version and Connection ID in some inputs so the deeper checks run.
        if i % 2 == 0 {
            for at in (0..len).step_by(4) {
                if at + 12 <= len && rng.gen_bool(0.5) {
                    b[at] = VERSION;
                    b[at + 4..at + 12].copy_from_slice(&CID.to_be_bytes());
                }
            }
        }
        if let Ok((seg, n)) = Segment::decode(&b) {
            assert!(n <= b.len());
            assert_eq!(seg.wire_len(), n);
        }
        let _ = Header::parse(&b);
        let start = rng.gen_range(0..=len + 2);
        let w = walk(&b, start, None);
        if start <= len {
            assert!(w.end >= start && w.end <= len);
        } else {
            assert_eq!((w.end, w.segments.len()), (start, 0));
        }
        let _ = scan_for_segment(&b, rng.gen(), &ctx);
        let _ = recover_at_tcp_segment(&b, &ctx);
        let _ = next_segment_start(&b, rng.gen_range(0..=len + 2));
        let _ = next_segment_start(&b, usize::MAX - rng.gen_range(0..4));
        let _ = check_candidate(&b, &ctx).map_err(|e| e.to_string());
    }
}
