//! DDP / RDMAP headers and the placement model: spec vectors, round trips, one test per rule,
//! boundaries, and hostile input.

use golden::crc::mpa_crc_field;
use golden::ddp::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const V1: ProtocolVersion = ProtocolVersion::Rfc5040;
const V0: ProtocolVersion = ProtocolVersion::RdmacDraft;

/// RFC 5044 Figure 5's ULPDU: untagged last Send, QN 0, MSN 1, MO 0, 24 zero octets.
fn figure5_ulpdu() -> Vec<u8> {
    let mut u = vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];
    u.extend_from_slice(&[0; 24]);
    u
}

#[test]
fn rfc5044_figure5_ulpdu_decodes_as_an_untagged_send() {
    let u = figure5_ulpdu();
    assert_eq!(u.len(), 42, "Figure 5's ULPDU Length is 0x2a");
    let seg = decode(&u).unwrap();
    let DdpSegment::Untagged { header, payload } = &seg else { panic!("tagged: {seg:?}") };
    assert_eq!(header.control, DdpControl { tagged: false, last: true, reserved: 0, version: 1 });
    assert_eq!(header.rdmap, RdmapControl { version: 1, reserved: 0, opcode: Opcode::Send });
    assert_eq!((header.invalidate_stag, header.qn, header.msn, header.mo), (0, 0, 1, 0));
    assert_eq!(payload, &vec![0u8; 24]);
    assert_eq!(seg.encode(), u);
    // The same header built from its fields.
    assert_eq!(UntaggedHeader::new(Opcode::Send, true, QN_SEND, 1, 0, V1).encode(), u[..18]);

    // Cross-check against the whole FPDU of Figure 5: Marker, ULPDU_Length, ULPDU, CRC 52 23 99 83.
    let mut fpdu = vec![0, 0, 0, 0, 0x00, 0x2a];
    fpdu.extend_from_slice(&seg.encode());
    assert_eq!(mpa_crc_field(&fpdu), [0x52, 0x23, 0x99, 0x83]);

    // Figure 6's ULPDU is the same with MSN 2.
    let mut u6 = u.clone();
    u6[13] = 2;
    let DdpSegment::Untagged { header, .. } = decode(&u6).unwrap() else { panic!() };
    assert_eq!(header.msn, 2);
}

#[test]
fn rdmac_draft_40_03_needs_the_rdmac_version() {
    let mut u = figure5_ulpdu();
    u[0] = 0x40;
    u[1] = 0x03;
    // Refused on an RFC connection: DDP version first (untagged code 6).
    let e = decode(&u).unwrap_err();
    assert_eq!(e, DdpError::DdpVersion { tagged: false, found: 0, expected: 1 });
    assert_eq!(e.terminate(), TerminateCode::DDP_UNTAGGED_INVALID_VERSION);
    assert_eq!(e.terminate(), TerminateCode { layer: 1, etype: 2, code: 6 });
    // Accepted when asked for.
    let seg = decode_with(&u, V0).unwrap();
    assert_eq!(seg.opcode(), Opcode::Send);
    assert_eq!(seg.control().version, 0);
    assert_eq!(seg.rdmap().version, 0);
    assert_eq!(seg.encode(), u);
    // And the RFC octets are refused on an RDMAC connection.
    let e = decode_with(&figure5_ulpdu(), V0).unwrap_err();
    assert_eq!(e, DdpError::DdpVersion { tagged: false, found: 1, expected: 0 });
}

/// A valid segment of `opcode` for `version` with `len` payload octets (Read Request and
/// Terminate get their fixed headers).
fn sample(opcode: Opcode, last: bool, len: usize, version: ProtocolVersion) -> DdpSegment {
    let payload: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
    match opcode.model().unwrap() {
        DdpModel::Tagged => DdpSegment::Tagged {
            header: TaggedHeader::new(opcode, last, 0x1234_5678, 0x0102_0304_0506_0708, version),
            payload,
        },
        DdpModel::Untagged { qn } => match opcode {
            Opcode::RdmaReadRequest => DdpSegment::read_request(
                9,
                &ReadRequestHeader {
                    sink_stag: 0xA1A2_A3A4,
                    sink_to: 0xB1B2_B3B4_B5B6_B7B8,
                    size: 0xC1C2_C3C4,
                    source_stag: 0xD1D2_D3D4,
                    source_to: 0xE1E2_E3E4_E5E6_E7E8,
                },
                version,
            ),
            Opcode::Terminate => DdpSegment::terminate(
                1,
                &TerminateControl {
                    code: TerminateCode::DDP_UNTAGGED_NO_BUFFER,
                    m: true,
                    d: true,
                    r: false,
                    reserved: 0,
                },
                &payload,
                version,
            ),
            _ => {
                let mut header = UntaggedHeader::new(opcode, last, qn, 77, 0x100, version);
                if opcode.carries_invalidate_stag() {
                    header.invalidate_stag = 0xCAFE_F00D;
                }
                DdpSegment::Untagged { header, payload }
            }
        },
    }
}

#[test]
fn every_opcode_round_trips_in_both_versions() {
    for version in [V1, V0] {
        for opcode in Opcode::ALL {
            for last in [true, false] {
                if opcode.single_segment() && !last {
                    continue;
                }
                for len in [0usize, 1, 3, 4, 17, 100] {
                    let seg = sample(opcode, last, len, version);
                    let bytes = seg.encode();
                    let back = decode_with(&bytes, version)
                        .unwrap_or_else(|e| panic!("{opcode} {version:?} len {len}: {e}"));
                    assert_eq!(back, seg, "{opcode} {version:?}");
                    assert_eq!(back.encode(), bytes);
                    assert_eq!(back.opcode(), opcode);
                    assert_eq!(back.is_last(), last || opcode.single_segment());
                    let hdr =
                        if back.is_tagged() { TAGGED_HEADER_LEN } else { UNTAGGED_HEADER_LEN };
                    assert_eq!(bytes.len(), hdr + back.payload().len());
                    assert_eq!(bytes[0] & 0x80 != 0, opcode.model() == Some(DdpModel::Tagged));
                    assert_eq!(bytes[1] & 0x0F, opcode.to_nibble());
                }
            }
        }
    }
}

#[test]
fn opcode_models_follow_the_table() {
    use DdpModel::*;
    let want = [
        (Opcode::RdmaWrite, 0, Tagged),
        (Opcode::RdmaReadRequest, 1, Untagged { qn: 1 }),
        (Opcode::RdmaReadResponse, 2, Tagged),
        (Opcode::Send, 3, Untagged { qn: 0 }),
        (Opcode::SendWithInvalidate, 4, Untagged { qn: 0 }),
        (Opcode::SendWithSolicitedEvent, 5, Untagged { qn: 0 }),
        (Opcode::SendWithSolicitedEventAndInvalidate, 6, Untagged { qn: 0 }),
        (Opcode::Terminate, 7, Untagged { qn: 2 }),
    ];
    for (op, n, model) in want {
        assert_eq!(op.to_nibble(), n);
        assert_eq!(Opcode::from_nibble(n), op);
        assert_eq!(op.model(), Some(model));
    }
    for n in 8..16 {
        assert_eq!(Opcode::from_nibble(n), Opcode::Reserved(n));
        assert_eq!(Opcode::Reserved(n).model(), None);
        assert_eq!(Opcode::Reserved(n).to_nibble(), n);
    }
    let inv: Vec<_> = Opcode::ALL.into_iter().filter(|o| o.carries_invalidate_stag()).collect();
    assert_eq!(inv, [Opcode::SendWithInvalidate, Opcode::SendWithSolicitedEventAndInvalidate]);
}

#[test]
fn header_layouts_are_big_endian() {
    let t = TaggedHeader::new(Opcode::RdmaWrite, false, 0x1122_3344, 0x5566_7788_99AA_BBCC, V1);
    assert_eq!(
        t.encode(),
        [0x81, 0x40, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC]
    );
    assert_eq!(TaggedHeader::decode(&t.encode()).unwrap(), t);
    let mut u = UntaggedHeader::new(Opcode::SendWithInvalidate, true, 0, 0x0A0B_0C0D, 0x10, V1);
    u.invalidate_stag = 0xDEAD_BEEF;
    assert_eq!(
        u.encode(),
        [0x41, 0x44, 0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 0, 0x0A, 0x0B, 0x0C, 0x0D, 0, 0, 0, 0x10]
    );
    assert_eq!(UntaggedHeader::decode(&u.encode()).unwrap(), u);
    let rr = ReadRequestHeader {
        sink_stag: 0x0102_0304,
        sink_to: 0x1112_1314_1516_1718,
        size: 0x2122_2324,
        source_stag: 0x3132_3334,
        source_to: 0x4142_4344_4546_4748,
    };
    let b = rr.encode();
    assert_eq!(b[..4], [1, 2, 3, 4]);
    assert_eq!(b[4..12], [0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18]);
    assert_eq!(b[12..16], [0x21, 0x22, 0x23, 0x24]);
    assert_eq!(b[16..20], [0x31, 0x32, 0x33, 0x34]);
    assert_eq!(b[20..28], [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48]);
    assert_eq!(ReadRequestHeader::decode(&b).unwrap(), rr);
    assert!(matches!(ReadRequestHeader::decode(&b[..27]), Err(DdpError::Truncated { .. })));
    let seg = DdpSegment::read_request(5, &rr, V1);
    assert_eq!(seg.read_request_header(), Some(rr));
    assert_eq!(decode(&seg.encode()).unwrap().read_request_header(), Some(rr));
}

#[test]
fn terminate_control_layout() {
    let tc = TerminateControl {
        code: TerminateCode::DDP_UNTAGGED_INVALID_VERSION,
        m: true,
        d: true,
        r: false,
        reserved: 0,
    };
    assert_eq!(tc.encode(), [0x12, 0x06, 0xC0, 0x00]);
    assert_eq!(TerminateControl::decode(&tc.encode()).unwrap(), tc);
    for b in [[0xFF, 0xFF, 0xFF, 0xFF], [0x02, 0x07, 0x20, 0x01]] {
        assert_eq!(TerminateControl::decode(&b).unwrap().encode(), b);
    }
    let seg = DdpSegment::terminate(1, &tc, &[1, 2, 3], V1);
    let back = decode(&seg.encode()).unwrap();
    assert_eq!(back.terminate_control(), Some(tc));
    assert_eq!(back.payload()[4..], [1, 2, 3]);
}

#[test]
fn reserved_bits_survive_and_are_not_checked() {
    let mut u = figure5_ulpdu();
    u[0] |= 0x3C;
    u[1] |= 0x30;
    u[2..6].copy_from_slice(&[9, 9, 9, 9]); // RsvdULP of a plain Send: not checked
    let seg = decode(&u).unwrap();
    assert_eq!(seg.control().reserved, 0xF);
    assert_eq!(seg.rdmap().reserved, 3);
    assert_eq!(seg.encode(), u);
}

// ----- validation rules, one test each -----

#[test]
fn invalid_ddp_version_tagged_is_code_4_untagged_code_6() {
    for dv in [0u8, 2, 3] {
        let mut t = sample(Opcode::RdmaWrite, true, 4, V1).encode();
        t[0] = (t[0] & !0x03) | dv;
        let e = decode(&t).unwrap_err();
        assert_eq!(e, DdpError::DdpVersion { tagged: true, found: dv, expected: 1 });
        assert_eq!(e.terminate(), TerminateCode { layer: 1, etype: 1, code: 4 });
        let mut u = sample(Opcode::Send, true, 4, V1).encode();
        u[0] = (u[0] & !0x03) | dv;
        let e = decode(&u).unwrap_err();
        assert_eq!(e, DdpError::DdpVersion { tagged: false, found: dv, expected: 1 });
        assert_eq!(e.terminate(), TerminateCode { layer: 1, etype: 2, code: 6 });
    }
    // The version is reported even when the rest of the header is missing.
    assert_eq!(
        decode(&[0x80, 0x40]).unwrap_err().terminate(),
        TerminateCode::DDP_TAGGED_INVALID_VERSION
    );
}

#[test]
fn invalid_rdmap_version() {
    let mut u = figure5_ulpdu();
    u[1] = 0x83; // RV 2
    let e = decode(&u).unwrap_err();
    assert_eq!(e, DdpError::RdmapVersion { found: 2, expected: 1 });
    assert_eq!(e.terminate(), TerminateCode { layer: 0, etype: 2, code: 5 });
    // DV 1 with RV 0 is neither generation.
    u[1] = 0x03;
    assert_eq!(decode(&u).unwrap_err(), DdpError::RdmapVersion { found: 0, expected: 1 });
    let mut u0 = figure5_ulpdu();
    u0[0] = 0x40;
    assert_eq!(decode_with(&u0, V0).unwrap_err(), DdpError::RdmapVersion { found: 1, expected: 0 });
}

#[test]
fn reserved_opcodes_are_refused_but_parse() {
    for op in 8..16u8 {
        for tagged in [false, true] {
            let mut u = figure5_ulpdu();
            u[0] |= if tagged { 0x80 } else { 0 };
            u[1] = 0x40 | op;
            let e = decode(&u).unwrap_err();
            assert_eq!(e, DdpError::ReservedOpcode(op));
            assert_eq!(e.terminate(), TerminateCode { layer: 0, etype: 2, code: 6 });
            let seg = DdpSegment::parse(&u).unwrap();
            assert_eq!(seg.opcode(), Opcode::Reserved(op));
            assert_eq!(seg.validate(V1), Err(DdpError::ReservedOpcode(op)));
            assert_eq!(seg.encode(), u);
        }
    }
}

#[test]
fn opcode_must_match_the_t_bit() {
    for opcode in Opcode::ALL {
        let good = sample(opcode, true, 40, V1).encode();
        let mut bad = good.clone();
        bad[0] ^= 0x80;
        let e = decode(&bad).unwrap_err();
        let tagged = bad[0] & 0x80 != 0;
        assert_eq!(e, DdpError::OpcodeModel { opcode, tagged }, "{opcode}");
        assert_eq!(e.terminate(), TerminateCode::RDMAP_UNEXPECTED_OPCODE);
    }
}

#[test]
fn queue_number_must_match_the_opcode() {
    for opcode in Opcode::ALL {
        let Some(DdpModel::Untagged { qn }) = opcode.model() else {
            continue;
        };
        for wrong in [0u32, 1, 2, 3, u32::MAX] {
            if wrong == qn {
                continue;
            }
            let mut b = sample(opcode, true, 8, V1).encode();
            b[6..10].copy_from_slice(&wrong.to_be_bytes());
            let e = decode(&b).unwrap_err();
            assert_eq!(e, DdpError::QueueMismatch { opcode, qn: wrong });
            assert_eq!(e.terminate(), TerminateCode { layer: 1, etype: 2, code: 1 });
        }
    }
}

#[test]
fn read_request_is_one_segment_of_exactly_28_octets() {
    let good = sample(Opcode::RdmaReadRequest, true, 0, V1).encode();
    assert_eq!(good.len(), UNTAGGED_HEADER_LEN + READ_REQUEST_HEADER_LEN);
    assert!(decode(&good).is_ok());
    for len in [0usize, 27, 29, 56] {
        let mut b = good[..UNTAGGED_HEADER_LEN].to_vec();
        b.resize(UNTAGGED_HEADER_LEN + len, 0);
        let e = decode(&b).unwrap_err();
        assert_eq!(e, DdpError::ReadRequestLength { len });
        assert_eq!(e.terminate(), TerminateCode::RDMAP_UNSPECIFIED);
    }
    let mut not_last = good.clone();
    not_last[0] &= !0x40;
    assert_eq!(
        decode(&not_last).unwrap_err(),
        DdpError::NotSingleSegment { opcode: Opcode::RdmaReadRequest }
    );
}

#[test]
fn terminate_is_one_segment_on_queue_2_with_its_control() {
    let good = sample(Opcode::Terminate, true, 0, V1).encode();
    assert_eq!(good.len(), UNTAGGED_HEADER_LEN + TERMINATE_CONTROL_LEN);
    assert_eq!(good[6..10], [0, 0, 0, 2]);
    assert!(decode(&good).is_ok());
    let short = &good[..good.len() - 1];
    assert_eq!(decode(short).unwrap_err(), DdpError::TerminateTooShort { len: 3 });
    let mut not_last = good.clone();
    not_last[0] &= !0x40;
    assert_eq!(
        decode(&not_last).unwrap_err(),
        DdpError::NotSingleSegment { opcode: Opcode::Terminate }
    );
}

#[test]
fn headers_cut_short_are_truncated_and_whole_headers_pass() {
    assert_eq!(decode(&[]).unwrap_err(), DdpError::Truncated { needed: 14, got: 0 });
    let t = sample(Opcode::RdmaWrite, true, 0, V1).encode();
    assert_eq!(t.len(), 14);
    assert!(decode(&t).is_ok(), "zero-length tagged segment");
    for cut in 1..14 {
        assert_eq!(decode(&t[..cut]).unwrap_err(), DdpError::Truncated { needed: 14, got: cut });
    }
    let u = sample(Opcode::Send, true, 0, V1).encode();
    assert_eq!(u.len(), 18);
    assert!(decode(&u).is_ok(), "zero-length untagged segment");
    for cut in 2..18 {
        let e = decode(&u[..cut]).unwrap_err();
        assert_eq!(e, DdpError::Truncated { needed: 18, got: cut });
        assert_eq!(e.terminate(), TerminateCode::DDP_CATASTROPHIC);
    }
}

// ----- placement -----

const PD: u32 = 7;
const STAG: u32 = 0x100;
const BASE: u64 = 0x1000;
const LEN: u64 = 0x100;
const RW: Access = Access { remote_write: true, remote_read: true };

fn model() -> PlacementModel {
    let mut m = PlacementModel::new(PD, 4);
    m.register(STAG, Region { base: BASE, len: LEN, access: RW, pd: PD, valid: true });
    m
}

fn write(stag: u32, to: u64, len: usize) -> DdpSegment {
    DdpSegment::Tagged {
        header: TaggedHeader::new(Opcode::RdmaWrite, true, stag, to, V1),
        payload: vec![0xAB; len],
    }
}

fn send(qn: u32, msn: u32, mo: u32, len: usize, last: bool) -> DdpSegment {
    DdpSegment::Untagged {
        header: UntaggedHeader::new(Opcode::Send, last, qn, msn, mo, V1),
        payload: vec![0xCD; len],
    }
}

fn tagged_fault(r: Result<Placement, PlacementError>) -> (TaggedFault, TerminateCode) {
    match r {
        Err(e @ PlacementError::Tagged { fault, .. }) => (fault, e.terminate()),
        other => panic!("expected a tagged error, got {other:?}"),
    }
}

fn untagged_fault(r: Result<Placement, PlacementError>) -> (UntaggedFault, TerminateCode) {
    match r {
        Err(e @ PlacementError::Untagged { fault, .. }) => (fault, e.terminate()),
        other => panic!("expected an untagged error, got {other:?}"),
    }
}

#[test]
fn tagged_placement_inside_the_region() {
    let m = model();
    assert_eq!(
        m.place(&write(STAG, BASE + 8, 16)),
        Ok(Placement::Tagged { stag: STAG, offset: 8, len: 16, last: true })
    );
    // Read Responses place the same way.
    let rr = DdpSegment::Tagged {
        header: TaggedHeader::new(Opcode::RdmaReadResponse, false, STAG, BASE, V1),
        payload: vec![1; LEN as usize],
    };
    assert_eq!(
        m.place(&rr),
        Ok(Placement::Tagged { stag: STAG, offset: 0, len: LEN, last: false })
    );
}

#[test]
fn tagged_bounds_exactly_at_the_end_passes_one_past_fails() {
    let m = model();
    let end = BASE + LEN;
    assert!(m.place(&write(STAG, end - 16, 16)).is_ok());
    assert_eq!(
        tagged_fault(m.place(&write(STAG, end - 15, 16))),
        (TaggedFault::BaseBounds, TerminateCode { layer: 1, etype: 1, code: 1 })
    );
    assert!(m.place(&write(STAG, end - 1, 1)).is_ok());
    assert_eq!(tagged_fault(m.place(&write(STAG, end, 1))).0, TaggedFault::BaseBounds);
    assert!(m.place(&write(STAG, BASE, LEN as usize)).is_ok());
    assert_eq!(
        tagged_fault(m.place(&write(STAG, BASE, LEN as usize + 1))).0,
        TaggedFault::BaseBounds
    );
    // Below the base.
    assert_eq!(tagged_fault(m.place(&write(STAG, BASE - 1, 1))).0, TaggedFault::BaseBounds);
    assert_eq!(tagged_fault(m.place(&write(STAG, 0, 1))).0, TaggedFault::BaseBounds);
    // Far beyond.
    assert_eq!(tagged_fault(m.place(&write(STAG, u64::MAX / 2, 1))).0, TaggedFault::BaseBounds);
}

#[test]
fn tagged_invalid_stag() {
    let mut m = model();
    let code = TerminateCode { layer: 1, etype: 1, code: 0 };
    assert_eq!(tagged_fault(m.place(&write(STAG + 1, BASE, 4))), (TaggedFault::InvalidStag, code));
    assert_eq!(tagged_fault(m.place(&write(0, 0, 4))), (TaggedFault::InvalidStag, code));
    assert!(m.invalidate(STAG));
    assert_eq!(tagged_fault(m.place(&write(STAG, BASE, 4))), (TaggedFault::InvalidStag, code));
    assert!(!m.invalidate(0xFFFF));
    m.deregister(STAG);
    assert_eq!(tagged_fault(m.place(&write(STAG, BASE, 4))).0, TaggedFault::InvalidStag);
}

#[test]
fn tagged_stag_not_associated_with_the_stream() {
    let mut m = model();
    m.register(0x200, Region { base: 0, len: 64, access: RW, pd: PD + 1, valid: true });
    assert_eq!(
        tagged_fault(m.place(&write(0x200, 0, 4))),
        (TaggedFault::NotAssociated, TerminateCode { layer: 1, etype: 1, code: 2 })
    );
}

#[test]
fn tagged_needs_remote_write() {
    let mut m = model();
    let ro = Access { remote_write: false, remote_read: true };
    m.register(0x300, Region { base: 0, len: 64, access: ro, pd: PD, valid: true });
    // DDP has no access-rights code: reported as invalid STag (as siw does).
    assert_eq!(
        tagged_fault(m.place(&write(0x300, 0, 4))),
        (TaggedFault::AccessRights, TerminateCode::DDP_TAGGED_INVALID_STAG)
    );
}

#[test]
fn tagged_to_wrap() {
    let mut m = model();
    // A region reaching the top of the TO space.
    m.register(
        0x400,
        Region { base: u64::MAX - 0xFF, len: 0x100, access: RW, pd: PD, valid: true },
    );
    // Last octet at 2^64 - 1: no wrap, inside the region.
    assert_eq!(
        m.place(&write(0x400, u64::MAX - 15, 16)),
        Ok(Placement::Tagged { stag: 0x400, offset: 0xF0, len: 16, last: true })
    );
    assert!(m.place(&write(0x400, u64::MAX, 1)).is_ok());
    // One more octet wraps.
    let code = TerminateCode { layer: 1, etype: 1, code: 3 };
    assert_eq!(
        tagged_fault(m.place(&write(0x400, u64::MAX - 14, 16))),
        (TaggedFault::ToWrap, code)
    );
    assert_eq!(tagged_fault(m.place(&write(0x400, u64::MAX, 2))), (TaggedFault::ToWrap, code));
    // Hostile TO on an ordinary region: wrap is reported before bounds.
    assert_eq!(tagged_fault(m.place(&write(STAG, u64::MAX, 4096))).0, TaggedFault::ToWrap);
}

#[test]
fn zero_length_tagged_segments_are_never_rejected() {
    let m = model();
    for (stag, to) in [(0u32, 0u64), (0, u64::MAX), (STAG, BASE + LEN + 5), (0xDEAD, 1)] {
        assert_eq!(
            m.place(&write(stag, to, 0)),
            Ok(Placement::TaggedEmpty { stag, to, last: true })
        );
    }
    // And STag 0 decodes fine.
    let b = write(0, 0, 0).encode();
    assert!(decode(&b).is_ok());
}

#[test]
fn untagged_placement_and_message_offset_bounds() {
    let mut m = model();
    m.post_buffer(QN_SEND, 1, 64).unwrap();
    assert_eq!(
        m.place(&send(0, 1, 0, 64, true)),
        Ok(Placement::Untagged { qn: 0, msn: 1, mo: 0, len: 64, last: true })
    );
    assert_eq!(
        m.place(&send(0, 1, 60, 4, false)),
        Ok(Placement::Untagged { qn: 0, msn: 1, mo: 60, len: 4, last: false })
    );
    // One past the end: too long (code 5).
    let too_long = TerminateCode { layer: 1, etype: 2, code: 5 };
    assert_eq!(
        untagged_fault(m.place(&send(0, 1, 60, 5, true))),
        (UntaggedFault::MessageTooLong, too_long)
    );
    assert_eq!(
        untagged_fault(m.place(&send(0, 1, 0, 65, true))),
        (UntaggedFault::MessageTooLong, too_long)
    );
    // MO exactly at the end with nothing to place passes; MO at the end with data is too long;
    // MO beyond the end is an invalid MO (code 4).
    assert!(m.place(&send(0, 1, 64, 0, true)).is_ok());
    assert_eq!(untagged_fault(m.place(&send(0, 1, 64, 1, true))).0, UntaggedFault::MessageTooLong);
    let bad_mo = TerminateCode { layer: 1, etype: 2, code: 4 };
    assert_eq!(
        untagged_fault(m.place(&send(0, 1, 65, 0, true))),
        (UntaggedFault::InvalidMo, bad_mo)
    );
    assert_eq!(
        untagged_fault(m.place(&send(0, 1, u32::MAX, 16, true))),
        (UntaggedFault::InvalidMo, bad_mo)
    );
}

#[test]
fn untagged_mo_near_u32_max_never_overflows() {
    let mut m = model();
    m.post_buffer(QN_SEND, 1, u64::from(u32::MAX) + 1).unwrap();
    assert!(m.place(&send(0, 1, u32::MAX, 1, true)).is_ok());
    assert_eq!(
        untagged_fault(m.place(&send(0, 1, u32::MAX, 2, true))).0,
        UntaggedFault::MessageTooLong
    );
    m.post_buffer(QN_SEND, 2, u64::MAX).unwrap();
    assert!(m.place(&send(0, 2, u32::MAX, 4096, true)).is_ok());
}

#[test]
fn untagged_invalid_qn() {
    let mut m = model();
    let code = TerminateCode { layer: 1, etype: 2, code: 1 };
    for qn in [3u32, 4, u32::MAX] {
        assert_eq!(
            untagged_fault(m.place(&send(qn, 1, 0, 1, true))),
            (UntaggedFault::InvalidQn, code)
        );
    }
    assert_eq!(m.post_buffer(3, 1, 8), Err(UntaggedFault::InvalidQn));
    m.add_queue(3);
    m.post_buffer(3, 1, 8).unwrap();
    assert!(m.place(&send(3, 1, 0, 8, true)).is_ok());
    m.remove_queue(3);
    assert_eq!(untagged_fault(m.place(&send(3, 1, 0, 8, true))).0, UntaggedFault::InvalidQn);
}

#[test]
fn untagged_no_buffer_for_msn() {
    let m = model();
    let code = TerminateCode { layer: 1, etype: 2, code: 2 };
    assert_eq!(untagged_fault(m.place(&send(0, 1, 0, 1, true))), (UntaggedFault::NoBuffer, code));
    // A zero-length Send still needs its buffer.
    assert_eq!(untagged_fault(m.place(&send(0, 2, 0, 0, true))).0, UntaggedFault::NoBuffer);
}

#[test]
fn untagged_msn_window() {
    let mut m = model(); // window 4, base 1: MSN 1..=4
    for msn in 1..=5 {
        m.post_buffer(QN_SEND, msn, 8).unwrap();
    }
    m.post_buffer(QN_SEND, 0, 8).unwrap();
    let code = TerminateCode { layer: 1, etype: 2, code: 3 };
    for msn in 1..=4 {
        assert!(m.place(&send(0, msn, 0, 8, true)).is_ok(), "msn {msn}");
    }
    assert_eq!(
        untagged_fault(m.place(&send(0, 5, 0, 8, true))),
        (UntaggedFault::MsnOutOfRange, code)
    );
    assert_eq!(
        untagged_fault(m.place(&send(0, 0, 0, 8, true))),
        (UntaggedFault::MsnOutOfRange, code)
    );
    assert_eq!(
        untagged_fault(m.place(&send(0, u32::MAX, 0, 8, true))).0,
        UntaggedFault::MsnOutOfRange
    );
    // Out of range wins over no buffer.
    assert_eq!(untagged_fault(m.place(&send(0, 1000, 0, 8, true))).0, UntaggedFault::MsnOutOfRange);
    // Retiring MSN 1 slides the window to 2..=5.
    assert_eq!(m.retire(QN_SEND), Some(Some(8)));
    assert_eq!(m.queue(QN_SEND).unwrap().base_msn, 2);
    assert!(m.place(&send(0, 5, 0, 8, true)).is_ok());
    assert_eq!(untagged_fault(m.place(&send(0, 1, 0, 8, true))).0, UntaggedFault::MsnOutOfRange);
    assert_eq!(m.retire(99), None);
}

#[test]
fn untagged_msn_window_wraps_modulo_2_32() {
    let mut m = model();
    m.queue_mut(QN_SEND).unwrap().base_msn = u32::MAX - 1;
    for msn in [u32::MAX - 1, u32::MAX, 0, 1] {
        m.post_buffer(QN_SEND, msn, 8).unwrap();
        assert!(m.place(&send(0, msn, 0, 8, true)).is_ok(), "msn {msn}");
    }
    m.post_buffer(QN_SEND, 2, 8).unwrap();
    assert_eq!(untagged_fault(m.place(&send(0, 2, 0, 8, true))).0, UntaggedFault::MsnOutOfRange);
    assert_eq!(m.retire(QN_SEND), Some(Some(8)));
    assert_eq!(m.retire(QN_SEND), Some(Some(8)));
    assert_eq!(m.queue(QN_SEND).unwrap().base_msn, 0);
}

#[test]
fn read_request_source_checks_use_rdmap_codes() {
    let mut m = model();
    let wo = Access { remote_write: true, remote_read: false };
    m.register(0x500, Region { base: 0, len: 64, access: wo, pd: PD, valid: true });
    m.register(0x600, Region { base: 0, len: 64, access: RW, pd: PD + 1, valid: true });
    m.register(0x700, Region { base: u64::MAX - 63, len: 64, access: RW, pd: PD, valid: true });
    let rr = |stag, to, size| ReadRequestHeader {
        source_stag: stag,
        source_to: to,
        size,
        ..Default::default()
    };
    assert_eq!(m.check_read_source(&rr(STAG, BASE + 16, 32)), Ok(16));
    assert_eq!(m.check_read_source(&rr(STAG, BASE + LEN - 32, 32)), Ok(LEN - 32));
    let code = |r: Result<u64, ReadSourceError>| r.unwrap_err().terminate();
    assert_eq!(
        code(m.check_read_source(&rr(STAG, BASE + LEN - 31, 32))),
        TerminateCode { layer: 0, etype: 1, code: 1 }
    );
    assert_eq!(
        code(m.check_read_source(&rr(0x999, 0, 1))),
        TerminateCode { layer: 0, etype: 1, code: 0 }
    );
    assert_eq!(
        code(m.check_read_source(&rr(0x500, 0, 1))),
        TerminateCode { layer: 0, etype: 1, code: 2 }
    );
    assert_eq!(
        code(m.check_read_source(&rr(0x600, 0, 1))),
        TerminateCode { layer: 0, etype: 1, code: 3 }
    );
    assert_eq!(
        code(m.check_read_source(&rr(0x700, u64::MAX, 2))),
        TerminateCode { layer: 0, etype: 1, code: 4 }
    );
    assert_eq!(m.check_read_source(&rr(0x700, u64::MAX, 1)), Ok(63));
    // Zero-size reads are not checked.
    assert_eq!(m.check_read_source(&rr(0, u64::MAX, 0)), Ok(0));
}

#[test]
fn error_messages_name_the_terminate_code() {
    let e = decode(&[0x82, 0x40]).unwrap_err();
    assert!(e.to_string().contains("layer 1 type 1 code 0x04"), "{e}");
    let m = model();
    let p = m.place(&send(9, 1, 0, 1, true)).unwrap_err();
    assert!(p.to_string().contains("layer 1 type 2 code 0x01"), "{p}");
}

// ----- hostile input -----

#[test]
fn random_bytes_never_panic_and_parse_round_trips() {
    let mut rng = StdRng::seed_from_u64(0x5041_5041);
    let mut m = model();
    m.post_buffer(QN_SEND, 1, 100).unwrap();
    m.post_buffer(QN_READ_REQUEST, 1, 28).unwrap();
    m.register(0, Region { base: 0, len: u64::MAX, access: RW, pd: PD, valid: true });
    let mut accepted = 0;
    for i in 0..200_000 {
        let len = rng.gen_range(0..80);
        let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        // Steer half of the inputs towards valid control octets so the deeper checks run.
        if i % 2 == 0 && len >= 2 {
            b[0] = (b[0] & 0xC0) | 1;
            b[1] = 0x40 | (b[1] & 0x07);
            if len >= 10 && b[0] & 0x80 == 0 {
                b[6..10].copy_from_slice(&[0, 0, 0, rng.gen_range(0..3)]);
            }
        }
        let d1 = decode(&b);
        let _ = decode_with(&b, V0);
        if let Ok(seg) = DdpSegment::parse(&b) {
            assert_eq!(seg.encode(), b, "parse/encode must be exact");
            let _ = seg.validate(V1);
            let _ = m.place(&seg);
            let _ = seg.read_request_header();
            let _ = seg.terminate_control();
        }
        if let Ok(seg) = d1 {
            accepted += 1;
            assert_eq!(seg.validate(V1), Ok(()));
            if let Err(e) = m.place(&seg) {
                let _ = e.to_string();
            }
        } else if let Err(e) = d1 {
            let _ = e.terminate();
            let _ = e.to_string();
        }
        if len >= 28 {
            let rr = ReadRequestHeader::decode(&b).unwrap();
            let _ = m.check_read_source(&rr);
        }
    }
    assert!(accepted > 1000, "only {accepted} random ULPDUs were valid");
}
