//! MPA connection startup (RFC 5044 7.1, section 8, Appendix C; RFC 6581 as in SPECS.md):
//! one test per frame rule, startup rule and Appendix C figure row, plus random inputs.

use golden::fpdu::Framer;
use golden::startup::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::time::Duration;

// -------------------------------------------------------------------------------------------
// Helpers
// -------------------------------------------------------------------------------------------

fn complete(bytes: &[u8]) -> (Frame, usize) {
    match Frame::decode(bytes) {
        Ok(Decoded::Complete { frame, consumed }) => (frame, consumed),
        other => panic!("expected a complete frame, got {other:?}"),
    }
}

fn sent(actions: &[Action]) -> Vec<Vec<u8>> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send(b) => Some(b.clone()),
            _ => None,
        })
        .collect()
}

fn close_error(actions: &[Action]) -> Option<StartupError> {
    actions.iter().find_map(|a| match a {
        Action::CloseTcp(e) => Some(e.clone()),
        _ => None,
    })
}

fn full_operation(actions: &[Action]) -> Option<Negotiated> {
    actions.iter().find_map(|a| match a {
        Action::FullOperation(n) => Some(n.clone()),
        _ => None,
    })
}

fn ietf(rev: u8, markers: bool, crc: bool) -> Config {
    Config { rev, markers, crc, ..Config::default() }
}

fn rev2(ird_ord: IrdOrd) -> Config {
    Config { rev: REV_2, ird_ord: Some(ird_ord), ..Config::default() }
}

fn request_bytes(rev: u8, pd: &[u8]) -> Vec<u8> {
    Frame::request(rev, false, true, pd.to_vec()).encode()
}

/// A Responder that has received `request` and been asked about its Private Data.
fn responder_with_request(config: Config, request: &[u8]) -> (Responder, Vec<Action>) {
    let mut r = Responder::start(config).unwrap();
    let a = r.handle(Event::Received(request.to_vec()));
    (r, a)
}

/// An Initiator that has sent its Request and received `reply`.
fn initiator_with_reply(config: Config, reply: &[u8]) -> (Initiator, Vec<Action>) {
    let (mut i, _) = Initiator::start(config).unwrap();
    let a = i.handle(Event::Received(reply.to_vec()));
    (i, a)
}

/// Runs both state machines against each other over a loss-free TCP connection, both ULPs
/// accepting whatever Private Data arrives; returns every action in the order it was taken.
fn simulate(initiator: Config, responder: Config) -> Vec<(Role, Action)> {
    let (mut i, first) = Initiator::start(initiator).unwrap();
    let mut r = Responder::start(responder).unwrap();
    let mut work: VecDeque<(Role, Action)> =
        first.into_iter().map(|a| (Role::Initiator, a)).collect();
    let mut log = Vec::new();
    let mut steps = 0;
    while let Some((who, action)) = work.pop_front() {
        steps += 1;
        assert!(steps < 1000, "simulation does not settle");
        log.push((who, action.clone()));
        let (target, event) = match action {
            Action::Send(b) => (other(who), Event::Received(b)),
            Action::PrivateDataReceived(_) => (who, Event::UlpAccept(Vec::new())),
            Action::CloseTcp(_) => (other(who), Event::TcpClosed),
            _ => continue,
        };
        let out = match target {
            Role::Initiator => i.handle(event),
            Role::Responder => r.handle(event),
        };
        work.extend(out.into_iter().map(|a| (target, a)));
    }
    log
}

fn other(role: Role) -> Role {
    match role {
        Role::Initiator => Role::Responder,
        Role::Responder => Role::Initiator,
    }
}

/// The outcome of a simulated startup in the terms of Appendix C: the first close, or both
/// endpoints in Full Operation with the same parameters.
fn simulated_outcome(log: &[(Role, Action)]) -> InteropOutcome {
    if let Some((by, error)) = log.iter().find_map(|(w, a)| match a {
        Action::CloseTcp(e) => Some((*w, e.clone())),
        _ => None,
    }) {
        return InteropOutcome::Closed { by, error };
    }
    let result = |role| {
        log.iter()
            .find_map(|(w, a)| match a {
                Action::FullOperation(n) if *w == role => Some(n.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{role:?} never reached Full Operation: {log:?}"))
    };
    let (ni, nr) = (result(Role::Initiator), result(Role::Responder));
    assert_eq!(ni.ddp_rdmap_version, nr.ddp_rdmap_version);
    assert_eq!(ni.marker_state(), nr.marker_state());
    assert_eq!(ni.crc, nr.crc);
    InteropOutcome::Connected {
        ddp_rdmap_version: ni.ddp_rdmap_version,
        markers: ni.marker_state(),
        crc: ni.crc,
    }
}

fn peer_config(p: Peer) -> Config {
    Config { kind: p.kind, markers: p.markers, crc: p.crc, ..Config::default() }
}

// -------------------------------------------------------------------------------------------
// 7.1.1 Frame format
// -------------------------------------------------------------------------------------------

#[test]
fn request_encodes_key_flags_rev_and_pd_length_big_endian() {
    let f = Frame::request(REV_1, true, true, b"hello".to_vec());
    let b = f.encode();
    assert_eq!(&b[..16], b"MPA ID Req Frame");
    assert_eq!(b[16], 0xC0, "M and C set, R and Res zero");
    assert_eq!(b[17], 1, "Rev");
    assert_eq!(&b[18..20], &[0, 5], "PD_Length");
    assert_eq!(&b[20..], b"hello");
    assert_eq!(b.len(), f.encoded_len());
}

#[test]
fn reply_with_r_set_encodes_0x20_and_round_trips() {
    let f = Frame::reply(REV_1, false, false, true, vec![1, 2, 3]);
    let b = f.encode();
    assert_eq!(&b[..16], b"MPA ID Rep Frame");
    assert_eq!(b[16], 0x20);
    assert_eq!(complete(&b), (f, 23));
}

#[test]
fn decode_reports_incomplete_for_every_proper_prefix_of_a_valid_frame() {
    let b = Frame::request(REV_1, false, true, vec![0xAB; 40]).encode();
    for len in 0..b.len() {
        match Frame::decode(&b[..len]) {
            Ok(Decoded::Incomplete { needed }) => {
                assert!(needed > len && needed <= b.len(), "len {len} needed {needed}")
            }
            other => panic!("prefix of {len} octets: {other:?}"),
        }
    }
    assert_eq!(complete(&b).1, b.len());
}

#[test]
fn decode_reports_octets_consumed_when_fpdus_follow_in_the_same_stream() {
    let frame = Frame::reply(REV_1, true, true, false, b"pd".to_vec());
    let mut stream = frame.encode();
    stream.extend_from_slice(&[0, 0, 0, 0, 0x00, 0x2A, 0x41, 0x43]);
    let (f, consumed) = complete(&stream);
    assert_eq!(f, frame);
    assert_eq!(consumed, 22);
    assert_eq!(&stream[consumed..consumed + 4], &MARKER_ZERO);
}

#[test]
fn decode_rejects_pd_length_above_512_from_the_header_alone() {
    let mut b = request_bytes(REV_1, &[]);
    b[18..20].copy_from_slice(&513u16.to_be_bytes());
    let e = Frame::decode(&b).unwrap_err();
    assert_eq!(e, StartupError::PdLengthTooLarge { pd_length: 513 });
    assert_eq!(e.code(), Some(4));
}

#[test]
fn decode_accepts_pd_length_of_exactly_512() {
    let b = request_bytes(REV_1, &[7; 512]);
    let (f, consumed) = complete(&b);
    assert_eq!(f.private_data.len(), 512);
    assert_eq!(consumed, 532);
}

#[test]
fn decode_rejects_pd_length_above_the_receiver_buffer_rule_9() {
    let b = request_bytes(REV_1, &[7; 100]);
    let rules = ReceiveRules { private_data_buffer: 99, ..ReceiveRules::default() };
    let e = Frame::decode_with(&b[..20], &rules).unwrap_err();
    assert_eq!(e, StartupError::PrivateDataExceedsBuffer { pd_length: 100, buffer: 99 });
    assert_eq!(e.code(), Some(4));
    let rules = ReceiveRules { private_data_buffer: 100, ..ReceiveRules::default() };
    assert!(matches!(Frame::decode_with(&b, &rules), Ok(Decoded::Complete { .. })));
}

#[test]
fn decode_at_close_with_short_private_data_is_pd_length_mismatch_code_4() {
    let b = request_bytes(REV_1, &[1; 30]);
    let e = Frame::decode_at_close(&b[..35], &ReceiveRules::default()).unwrap_err();
    assert_eq!(e, StartupError::PdLengthMismatch { pd_length: 30, received: 15 });
    assert_eq!(e.code(), Some(4));
}

#[test]
fn decode_at_close_with_partial_header_is_tcp_closed_code_1() {
    let b = request_bytes(REV_1, &[]);
    for len in [0, 5, 16, 19] {
        let e = Frame::decode_at_close(&b[..len], &ReceiveRules::default()).unwrap_err();
        assert_eq!(e, StartupError::TcpClosed { received: len });
        assert_eq!(e.code(), Some(1));
    }
    assert!(Frame::decode_at_close(&b, &ReceiveRules::default()).is_ok());
}

#[test]
fn decode_rejects_invalid_key_at_its_first_bad_octet() {
    let e = Frame::decode(b"MPA ID Rex").unwrap_err();
    assert_eq!(e, StartupError::InvalidKey { received: b"MPA ID Rex".to_vec() });
    assert_eq!(e.code(), Some(4));
    let e = Frame::decode(b"GET / HTTP/1.1\r\n").unwrap_err();
    assert!(matches!(e, StartupError::InvalidKey { ref received } if received == b"G"));
}

#[test]
fn decode_rejects_rev_above_2_code_4() {
    let b = request_bytes(3, &[]);
    let e = Frame::decode(&b).unwrap_err();
    assert_eq!(e, StartupError::UnsupportedRevision { rev: 3 });
    assert_eq!(e.code(), Some(4));
    let rules = ReceiveRules { max_rev: REV_1, ..ReceiveRules::default() };
    assert_eq!(
        Frame::decode_with(&request_bytes(REV_2, &[]), &rules),
        Err(StartupError::UnsupportedRevision { rev: 2 })
    );
}

#[test]
fn decode_does_not_check_res_bits_7_1_1() {
    let mut f = Frame::request(REV_1, false, false, vec![]);
    f.res = 0x1F;
    let b = f.encode();
    assert_eq!(b[16], 0x1F);
    let (d, _) = complete(&b);
    assert_eq!(d.res, 0x1F);
    assert_eq!(d.ird_ord, None, "0x10 is a Res bit in revision 1, not the enhanced flag");
    let mut f2 = Frame::reply(REV_2, false, false, false, vec![]);
    f2.res = 0x0F;
    assert_eq!(complete(&f2.encode()).0, f2);
}

#[test]
fn decode_does_not_check_r_in_a_request_7_1_1() {
    let mut f = Frame::request(REV_1, false, true, vec![]);
    f.r = true;
    let (d, _) = complete(&f.encode());
    assert!(d.r);
    assert_eq!(d.key, Key::Request);
}

#[test]
fn frame_validate_rejects_private_data_beyond_512_octets_for_sending() {
    assert!(Frame::request(REV_1, false, true, vec![0; 512]).validate().is_ok());
    assert_eq!(
        Frame::request(REV_1, false, true, vec![0; 513]).validate(),
        Err(StartupError::PrivateDataTooLong { len: 513 })
    );
    let enhanced = Frame::request(REV_2, false, true, vec![0; 509]).with_ird_ord(IrdOrd::default());
    assert_eq!(enhanced.validate(), Err(StartupError::PrivateDataTooLong { len: 513 }));
}

// -------------------------------------------------------------------------------------------
// MPA revision 2 frames (RFC 6581)
// -------------------------------------------------------------------------------------------

#[test]
fn rev2_enhanced_frame_puts_ird_ord_first_and_counts_it_in_pd_length() {
    let io = IrdOrd { peer_to_peer: true, rtr: RtrTypes::ALL, ird: 16, ord: 8 };
    let f = Frame::request(REV_2, false, true, b"app".to_vec()).with_ird_ord(io);
    let b = f.encode();
    assert_eq!(b[16], 0x40 | 0x10);
    assert_eq!(b[17], 2);
    assert_eq!(&b[18..20], &[0, 7]);
    assert_eq!(&b[20..24], &[0xC0, 16, 0xC0, 8]);
    assert_eq!(&b[24..], b"app");
    let (d, consumed) = complete(&b);
    assert_eq!(d, f);
    assert_eq!(d.private_data, b"app");
    assert_eq!(consumed, 27);
}

#[test]
fn rev2_enhanced_frame_with_pd_length_below_4_is_rejected_code_4() {
    for pd_length in 0..4u16 {
        let mut b = Frame::request(REV_2, false, true, vec![0; pd_length as usize]).encode();
        b[16] |= FLAG_ENHANCED;
        let e = Frame::decode(&b[..20]).unwrap_err();
        assert_eq!(e, StartupError::EnhancedPrivateDataTooShort { pd_length });
        assert_eq!(e.code(), Some(4));
    }
}

#[test]
fn rev2_frame_without_the_enhanced_flag_has_no_ird_ord_block() {
    let f = Frame::request(REV_2, false, true, vec![0x80, 1, 0x80, 1]);
    let (d, _) = complete(&f.encode());
    assert_eq!(d.ird_ord, None);
    assert_eq!(d.private_data, vec![0x80, 1, 0x80, 1]);
}

#[test]
fn ird_ord_above_14_bits_is_rejected_locally() {
    let io = IrdOrd { ird: 0x4000, ..IrdOrd::default() };
    assert_eq!(io.validate(), Err(StartupError::IrdOrdTooLarge { value: 0x4000 }));
    let e = Initiator::start(rev2(io)).unwrap_err();
    assert_eq!(e, StartupError::IrdOrdTooLarge { value: 0x4000 });
    assert_eq!(e.code(), None);
}

#[test]
fn rev2_negotiation_helpers_codes_6_and_7() {
    let local = IrdOrd { ird: 4, ord: 16, ..IrdOrd::default() };
    let peer = IrdOrd { ird: 8, ord: 4, ..IrdOrd::default() };
    assert_eq!(negotiate_ird_ord(&local, &peer), Ok(NegotiatedIrdOrd { ird: 4, ord: 8 }));
    let greedy = IrdOrd { ord: 5, ..peer };
    let e = negotiate_ird_ord(&local, &greedy).unwrap_err();
    assert_eq!(e, StartupError::InsufficientIrd { peer_ord: 5, ird: 4 });
    assert_eq!(e.code(), Some(6));
    let e = choose_rtr(RtrTypes::only(Rtr::Send), RtrTypes::only(Rtr::Read)).unwrap_err();
    assert_eq!(e.code(), Some(7));
}

// -------------------------------------------------------------------------------------------
// 7.1.2 Startup rules
// -------------------------------------------------------------------------------------------

#[test]
fn rule_1_initiator_starts_by_sending_a_valid_request_with_its_private_data() {
    let cfg = Config { markers: true, private_data: b"hi".to_vec(), ..Config::default() };
    let (i, actions) = Initiator::start(cfg).unwrap();
    assert_eq!(actions.len(), 1);
    let (f, _) = complete(&sent(&actions)[0]);
    assert_eq!(f, Frame::request(REV_1, true, true, b"hi".to_vec()));
    assert_eq!(&f, i.request());
    assert_eq!(i.state(), State::AwaitingFrame);
}

#[test]
fn rule_1_initiator_refuses_to_start_with_private_data_over_512() {
    let cfg = Config { private_data: vec![0; 513], ..Config::default() };
    assert_eq!(Initiator::start(cfg).unwrap_err(), StartupError::PrivateDataTooLong { len: 513 });
    assert_eq!(
        Initiator::start(Config { rev: 3, ..Config::default() }).unwrap_err(),
        StartupError::InvalidLocalRevision { rev: 3 }
    );
    assert_eq!(
        Responder::start(Config { rev: 2, ird_ord: None, ..Config::default() }).unwrap_err(),
        StartupError::InvalidLocalRevision { rev: 2 }
    );
}

#[test]
fn rule_2_responder_sends_nothing_until_the_whole_request_arrives_octet_by_octet() {
    let req = request_bytes(REV_1, b"private");
    let mut r = Responder::start(Config::default()).unwrap();
    for (n, byte) in req.iter().enumerate() {
        let a = r.handle(Event::Received(vec![*byte]));
        if n + 1 < req.len() {
            assert!(a.is_empty(), "acted after {} octets: {a:?}", n + 1);
            assert_eq!(r.state(), State::AwaitingFrame);
        } else {
            assert_eq!(a, vec![Action::PrivateDataReceived(complete(&req).0)]);
            assert_eq!(r.state(), State::AwaitingUlp);
        }
    }
}

#[test]
fn rule_2_responder_accepting_replies_r0_with_ulp_private_data_and_enters_full_operation() {
    let (mut r, _) = responder_with_request(ietf(REV_1, true, false), &request_bytes(REV_1, b"q"));
    let a = r.handle(Event::UlpAccept(b"answer".to_vec()));
    let (reply, _) = complete(&sent(&a)[0]);
    assert_eq!(reply, Frame::reply(REV_1, true, false, false, b"answer".to_vec()));
    let n = full_operation(&a).expect("Full Operation");
    assert_eq!(n.role, Role::Responder);
    assert_eq!(n.peer_private_data, b"q");
    assert_eq!(r.state(), State::FullOperation);
    assert_eq!(r.negotiated(), Some(&n));
}

#[test]
fn rule_2_responder_rejecting_replies_r1_and_exits_mpa_leaving_tcp_open() {
    let (mut r, _) = responder_with_request(Config::default(), &request_bytes(REV_1, b"q"));
    let a = r.handle(Event::UlpReject(b"go away".to_vec()));
    assert_eq!(a.len(), 2);
    let (reply, _) = complete(&sent(&a)[0]);
    assert!(reply.r);
    assert_eq!(reply.private_data, b"go away");
    assert_eq!(a[1], Action::ExitMpa(ExitReason::RejectedByUlp));
    assert_eq!(close_error(&a), None, "TCP stays open");
    assert_eq!(r.state(), State::Exited);
    // MPA is gone: later octets are not MPA's.
    assert!(r.handle(Event::Received(vec![1, 2, 3])).is_empty());
}

#[test]
fn rule_2_responder_closes_tcp_with_code_4_on_an_improperly_formatted_request() {
    let mut req = request_bytes(REV_1, &[]);
    req[18..20].copy_from_slice(&600u16.to_be_bytes());
    let (r, a) = responder_with_request(Config::default(), &req);
    assert_eq!(a, vec![Action::CloseTcp(StartupError::PdLengthTooLarge { pd_length: 600 })]);
    assert_eq!(r.state(), State::Closed);
}

#[test]
fn rule_2_responder_ulp_private_data_over_512_is_refused_and_decision_stays_pending() {
    let (mut r, _) = responder_with_request(Config::default(), &request_bytes(REV_1, &[]));
    let a = r.handle(Event::UlpAccept(vec![0; 513]));
    assert_eq!(a, vec![Action::Error(StartupError::PrivateDataTooLong { len: 513 })]);
    assert_eq!(r.state(), State::AwaitingUlp);
    let a = r.handle(Event::UlpAccept(vec![0; 512]));
    assert!(full_operation(&a).is_some());
}

#[test]
fn rule_3_initiator_enters_full_operation_only_after_valid_reply_and_ulp_accept() {
    let reply = Frame::reply(REV_1, false, true, false, b"ok".to_vec()).encode();
    let (mut i, a) = initiator_with_reply(Config::default(), &reply);
    assert_eq!(a, vec![Action::PrivateDataReceived(complete(&reply).0)]);
    assert_eq!(i.state(), State::AwaitingUlp);
    assert_eq!(
        i.handle(Event::UlpSend(vec![0; 8])),
        vec![Action::Error(StartupError::SendBeforeFullOperation)]
    );
    let a = i.handle(Event::UlpAccept(Vec::new()));
    let n = full_operation(&a).unwrap();
    assert_eq!(n.role, Role::Initiator);
    assert_eq!(n.peer_private_data, b"ok");
    assert_eq!(i.state(), State::FullOperation);
}

#[test]
fn rule_3_initiator_exits_mpa_leaving_tcp_open_on_a_rejecting_reply() {
    let reply = Frame::reply(REV_1, false, true, true, b"no".to_vec());
    let (i, a) = initiator_with_reply(Config::default(), &reply.encode());
    assert_eq!(a, vec![Action::ExitMpa(ExitReason::RejectedByPeer(reply))]);
    assert_eq!(i.state(), State::Exited);
}

#[test]
fn rule_3_and_6_initiator_exits_mpa_when_its_ulp_rejects_the_reply_private_data() {
    let reply = Frame::reply(REV_1, false, true, false, b"bad".to_vec()).encode();
    let (mut i, _) = initiator_with_reply(Config::default(), &reply);
    let a = i.handle(Event::UlpReject(Vec::new()));
    assert_eq!(a, vec![Action::ExitMpa(ExitReason::RejectedByUlp)]);
    assert_eq!(i.state(), State::Exited);
}

#[test]
fn rule_3_initiator_closes_tcp_with_code_4_on_an_improperly_formatted_reply() {
    let mut reply = Frame::reply(REV_1, false, true, false, vec![]).encode();
    reply[17] = 9;
    let (i, a) = initiator_with_reply(Config::default(), &reply);
    assert_eq!(a, vec![Action::CloseTcp(StartupError::UnsupportedRevision { rev: 9 })]);
    assert_eq!(i.state(), State::Closed);
}

#[test]
fn rule_3_initiator_closes_on_a_reply_with_a_higher_revision_than_its_request() {
    let reply = Frame::reply(REV_2, false, true, false, vec![]).encode();
    let (_, a) = initiator_with_reply(Config::default(), &reply);
    assert_eq!(close_error(&a), Some(StartupError::UnsupportedRevision { rev: 2 }));
}

#[test]
fn rule_4_responder_queues_ulp_fpdus_until_an_fpdu_from_the_initiator_is_validated() {
    let (mut r, _) = responder_with_request(Config::default(), &request_bytes(REV_1, &[]));
    assert_eq!(
        r.handle(Event::UlpSend(vec![1])),
        vec![Action::Error(StartupError::SendBeforeFullOperation)],
        "no FPDU before the Reply"
    );
    r.handle(Event::UlpAccept(Vec::new()));
    assert!(r.handle(Event::UlpSend(vec![1, 1])).is_empty());
    assert!(r.handle(Event::UlpSend(vec![2, 2])).is_empty());
    assert_eq!(r.queued_fpdus(), 2);
    assert!(!r.may_send_fpdus());
    // The Initiator's first FPDU arrives; receiving alone does not release anything.
    let a = r.handle(Event::Received(vec![0, 0, 0, 0]));
    assert_eq!(a, vec![Action::Deliver(vec![0, 0, 0, 0])]);
    assert_eq!(r.queued_fpdus(), 2);
    // The receive path validated it: released in order.
    let a = r.handle(Event::FpduValidated);
    assert_eq!(a, vec![Action::Send(vec![1, 1]), Action::Send(vec![2, 2])]);
    assert!(r.may_send_fpdus());
    assert_eq!(r.handle(Event::UlpSend(vec![3])), vec![Action::Send(vec![3])]);
    assert!(r.handle(Event::FpduValidated).is_empty());
}

#[test]
fn rule_4_initiator_sends_fpdus_as_soon_as_it_is_in_full_operation() {
    let reply = Frame::reply(REV_1, false, true, false, vec![]).encode();
    let (mut i, _) = initiator_with_reply(Config::default(), &reply);
    i.handle(Event::UlpAccept(Vec::new()));
    assert_eq!(i.handle(Event::UlpSend(vec![9; 8])), vec![Action::Send(vec![9; 8])]);
    assert_eq!(i.handle(Event::Received(vec![5; 8])), vec![Action::Deliver(vec![5; 8])]);
}

#[test]
fn rule_4_initiator_closes_when_octets_follow_the_reply_before_its_first_fpdu() {
    let mut stream = Frame::reply(REV_1, false, true, false, vec![]).encode();
    stream.extend_from_slice(&[0, 6, 0x41, 0x43]);
    let (_, a) = initiator_with_reply(Config::default(), &stream);
    let e = close_error(&a).unwrap();
    assert_eq!(e, StartupError::UnexpectedDataAfterFrame { frame: Key::Reply, octets: 4 });
    assert_eq!(e.code(), Some(4));
    // The same after the ULP accepted but before the Initiator sent anything.
    let reply = Frame::reply(REV_1, false, true, false, vec![]).encode();
    let (mut i, _) = initiator_with_reply(Config::default(), &reply);
    i.handle(Event::UlpAccept(Vec::new()));
    let a = i.handle(Event::Received(vec![0; 4]));
    assert!(matches!(close_error(&a), Some(StartupError::UnexpectedDataAfterFrame { .. })));
}

#[test]
fn rule_3_responder_closes_when_octets_follow_the_request_before_its_reply() {
    let mut stream = request_bytes(REV_1, b"pd");
    stream.extend_from_slice(b"xy");
    let (_, a) = responder_with_request(Config::default(), &stream);
    assert_eq!(
        a,
        vec![Action::CloseTcp(StartupError::UnexpectedDataAfterFrame {
            frame: Key::Request,
            octets: 2
        })]
    );
    // Octets while the ULP decides are as bad.
    let (mut r, _) = responder_with_request(Config::default(), &request_bytes(REV_1, b"pd"));
    let a = r.handle(Event::Received(vec![0]));
    assert_eq!(close_error(&a).and_then(|e| e.code()), Some(4));
}

#[test]
fn rule_5_responder_closes_tcp_with_code_4_on_an_invalid_key() {
    let mut req = request_bytes(REV_1, &[]);
    req[3] = b'X';
    let (r, a) = responder_with_request(Config::default(), &req);
    let e = close_error(&a).unwrap();
    assert_eq!(e, StartupError::InvalidKey { received: b"MPAX".to_vec() });
    assert_eq!(e.code(), Some(4));
    assert_eq!(r.state(), State::Closed);
}

#[test]
fn rule_5_responder_rejects_a_reply_key_with_code_4() {
    let reply = Frame::reply(REV_1, false, true, false, vec![]).encode();
    let (_, a) = responder_with_request(Config::default(), &reply);
    let e = close_error(&a).unwrap();
    assert_eq!(e, StartupError::UnexpectedKey { expected: Key::Request, received: Key::Reply });
    assert_eq!(e.code(), Some(4));
    assert!(!e.is_initiator_initiator());
}

#[test]
fn rule_8_initiator_detects_initiator_initiator_when_a_request_key_arrives() {
    let (mut i, _) = Initiator::start(Config::default()).unwrap();
    let req = request_bytes(REV_1, &[]);
    // Up to octet 10 the two Keys agree; the error needs the whole Key.
    assert!(i.handle(Event::Received(req[..12].to_vec())).is_empty());
    let a = i.handle(Event::Received(req[12..].to_vec()));
    let e = close_error(&a).unwrap();
    assert!(e.is_initiator_initiator());
    assert_eq!(e.code(), Some(4));
    assert!(e.to_string().contains("Initiator/Initiator"));
}

#[test]
fn rule_8_two_initiators_both_close_on_the_other_request() {
    let (mut a, sa) = Initiator::start(Config::default()).unwrap();
    let (mut b, sb) = Initiator::start(Config::default()).unwrap();
    let ea = close_error(&a.handle(Event::Received(sent(&sb)[0].clone()))).unwrap();
    let eb = close_error(&b.handle(Event::Received(sent(&sa)[0].clone()))).unwrap();
    assert!(ea.is_initiator_initiator() && eb.is_initiator_initiator());
}

#[test]
fn rule_8_responder_times_out_waiting_for_a_request_as_responder_responder() {
    let cfg = Config { request_timeout: Some(Duration::from_secs(5)), ..Config::default() };
    let mut r = Responder::start(cfg).unwrap();
    assert!(r.handle(Event::Elapsed(Duration::from_millis(4999))).is_empty());
    let a = r.handle(Event::Elapsed(Duration::from_millis(1)));
    let e = close_error(&a).unwrap();
    assert_eq!(e, StartupError::RequestTimeout { waited: Duration::from_secs(5) });
    assert_eq!(e.code(), None);
    assert_eq!(r.state(), State::Closed);
}

#[test]
fn rule_8_two_responders_both_time_out() {
    let cfg = Config { request_timeout: Some(Duration::from_secs(1)), ..Config::default() };
    let mut a = Responder::start(cfg.clone()).unwrap();
    let mut b = Responder::start(cfg).unwrap();
    for r in [&mut a, &mut b] {
        let acts = r.handle(Event::Elapsed(Duration::from_secs(2)));
        assert!(matches!(close_error(&acts), Some(StartupError::RequestTimeout { .. })));
    }
}

#[test]
fn rule_8_request_timeout_does_not_fire_once_request_octets_have_arrived() {
    let cfg = Config { request_timeout: Some(Duration::from_secs(1)), ..Config::default() };
    let mut r = Responder::start(cfg).unwrap();
    r.handle(Event::Received(request_bytes(REV_1, &[])[..5].to_vec()));
    assert!(r.handle(Event::Elapsed(Duration::from_secs(10))).is_empty());
    assert_eq!(r.state(), State::AwaitingFrame);
}

#[test]
fn rule_9_responder_closes_when_pd_length_exceeds_its_private_data_buffer() {
    let cfg = Config { private_data_buffer: 16, ..Config::default() };
    let req = request_bytes(REV_1, &[0; 17]);
    let (_, a) = responder_with_request(cfg, &req[..20]);
    assert_eq!(
        close_error(&a),
        Some(StartupError::PrivateDataExceedsBuffer { pd_length: 17, buffer: 16 })
    );
}

#[test]
fn rule_9_initiator_closes_when_reply_pd_length_exceeds_its_buffer() {
    let cfg = Config { private_data_buffer: 0, ..Config::default() };
    let reply = Frame::reply(REV_1, false, true, false, vec![1]).encode();
    let (_, a) = initiator_with_reply(cfg, &reply);
    assert_eq!(close_error(&a).and_then(|e| e.code()), Some(4));
}

#[test]
fn rule_10_initiator_closes_on_startup_timeout_without_a_reply() {
    let cfg = Config { startup_timeout: Some(Duration::from_secs(3)), ..Config::default() };
    let (mut i, _) = Initiator::start(cfg).unwrap();
    i.handle(Event::Received(b"MPA ID".to_vec()));
    assert!(i.handle(Event::Elapsed(Duration::from_secs(2))).is_empty());
    let a = i.handle(Event::Elapsed(Duration::from_secs(1)));
    assert_eq!(
        a,
        vec![Action::CloseTcp(StartupError::StartupTimeout { waited: Duration::from_secs(3) })]
    );
    assert!(i.handle(Event::Elapsed(Duration::from_secs(1))).is_empty(), "closed once");
}

#[test]
fn rule_10_responder_closes_on_startup_timeout_with_an_incomplete_request() {
    let cfg = Config {
        request_timeout: Some(Duration::from_secs(1)),
        startup_timeout: Some(Duration::from_secs(10)),
        ..Config::default()
    };
    let mut r = Responder::start(cfg).unwrap();
    r.handle(Event::Received(request_bytes(REV_1, &[0; 10])[..25].to_vec()));
    assert!(r.handle(Event::Elapsed(Duration::from_secs(9))).is_empty());
    let a = r.handle(Event::Elapsed(Duration::from_secs(1)));
    assert!(matches!(close_error(&a), Some(StartupError::StartupTimeout { .. })));
}

#[test]
fn rule_10_timeouts_stop_once_the_frame_is_complete() {
    let cfg = Config { startup_timeout: Some(Duration::from_secs(1)), ..Config::default() };
    let (mut r, _) = responder_with_request(cfg, &request_bytes(REV_1, &[]));
    assert!(r.handle(Event::Elapsed(Duration::from_secs(60))).is_empty());
    assert_eq!(r.state(), State::AwaitingUlp);
    let huge = Duration::MAX;
    assert!(r.handle(Event::Elapsed(huge)).is_empty(), "saturating, no overflow panic");
}

#[test]
fn section_8_code_1_when_tcp_closes_before_the_frame_header() {
    let (mut i, _) = Initiator::start(Config::default()).unwrap();
    i.handle(Event::Received(b"MPA ID Rep".to_vec()));
    let a = i.handle(Event::TcpClosed);
    assert_eq!(a, vec![Action::CloseTcp(StartupError::TcpClosed { received: 10 })]);
    assert_eq!(i.state(), State::Closed);
}

#[test]
fn section_8_code_4_when_tcp_closes_before_pd_length_octets_arrive() {
    let mut r = Responder::start(Config::default()).unwrap();
    r.handle(Event::Received(request_bytes(REV_1, &[1; 8])[..24].to_vec()));
    let a = r.handle(Event::TcpClosed);
    assert_eq!(
        a,
        vec![Action::CloseTcp(StartupError::PdLengthMismatch { pd_length: 8, received: 4 })]
    );
}

#[test]
fn section_8_code_1_when_tcp_closes_in_full_operation_or_awaiting_ulp() {
    let (mut r, _) = responder_with_request(Config::default(), &request_bytes(REV_1, &[]));
    let a = r.handle(Event::TcpClosed);
    assert_eq!(close_error(&a).and_then(|e| e.code()), Some(1));
    assert_eq!(
        r.handle(Event::UlpAccept(vec![])),
        vec![Action::Error(StartupError::NoPendingDecision)]
    );
}

// -------------------------------------------------------------------------------------------
// Negotiated result: M, C per direction, rule 7
// -------------------------------------------------------------------------------------------

#[test]
fn markers_per_direction_follow_request_m_and_reply_m_7_1_1() {
    for (req_m, rep_m) in [(false, false), (false, true), (true, false), (true, true)] {
        let log = simulate(ietf(REV_1, req_m, true), ietf(REV_1, rep_m, true));
        let n = |role| {
            log.iter()
                .find_map(|(w, a)| match a {
                    Action::FullOperation(n) if *w == role => Some(n.clone()),
                    _ => None,
                })
                .unwrap()
        };
        let (ni, nr) = (n(Role::Initiator), n(Role::Responder));
        // Request M: Markers on FPDUs from the Responder; Reply M: on FPDUs from the Initiator.
        assert_eq!(ni.markers_responder_to_initiator, req_m);
        assert_eq!(ni.markers_initiator_to_responder, rep_m);
        assert_eq!(ni.markers_tx(), rep_m);
        assert_eq!(nr.markers_tx(), req_m);
        assert_eq!(ni.markers_rx(), nr.markers_tx());
        assert_eq!(ni.tx_framing().markers, nr.rx_framing().markers);
    }
}

#[test]
fn crc_is_on_when_either_frame_sets_c_7_1_1() {
    for (req_c, rep_c) in [(false, false), (false, true), (true, false), (true, true)] {
        let log = simulate(ietf(REV_1, false, req_c), ietf(REV_1, false, rep_c));
        match simulated_outcome(&log) {
            InteropOutcome::Connected { crc, .. } => assert_eq!(crc, req_c || rep_c),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn rule_7_first_octets_with_markers_are_the_zero_marker_then_ulpdu_length() {
    let log = simulate(ietf(REV_1, false, true), ietf(REV_1, true, true));
    let ni = log
        .iter()
        .find_map(|(w, a)| match a {
            Action::FullOperation(n) if *w == Role::Initiator => Some(n.clone()),
            _ => None,
        })
        .unwrap();
    assert!(ni.markers_tx());
    assert_eq!(ni.first_fpdu_prefix(), &MARKER_ZERO);
    assert_eq!(ni.tx_framing().offset, 0, "marker origin at the first FPDU");
    let wire = Framer::new(ni.tx_framing()).unwrap().frame(&[0xAA; 10]).unwrap();
    assert_eq!(&wire[..4], &MARKER_ZERO);
    assert_eq!(&wire[4..6], &[0, 10], "then the FPDU's ULPDU_Length");
    // The Responder's direction has no Markers: its first octets are the ULPDU_Length.
    let nr = log
        .iter()
        .find_map(|(w, a)| match a {
            Action::FullOperation(n) if *w == Role::Responder => Some(n.clone()),
            _ => None,
        })
        .unwrap();
    assert!(nr.first_fpdu_prefix().is_empty());
    let wire = Framer::new(nr.tx_framing()).unwrap().frame(&[0xAA; 10]).unwrap();
    assert_eq!(&wire[..2], &[0, 10]);
}

#[test]
fn rev2_initiator_falls_back_when_the_responder_speaks_revision_1() {
    let io = IrdOrd { peer_to_peer: true, rtr: RtrTypes::ALL, ird: 4, ord: 4 };
    let log = simulate(rev2(io), Config::default());
    let reply = log
        .iter()
        .find_map(|(w, a)| match a {
            Action::Send(b) if *w == Role::Responder => Some(complete(b).0),
            _ => None,
        })
        .unwrap();
    assert_eq!(reply.rev, REV_1);
    assert_eq!(reply.ird_ord, None);
    let n = log
        .iter()
        .find_map(|(w, a)| match a {
            Action::FullOperation(n) if *w == Role::Initiator => Some(n.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!((n.request_rev, n.reply_rev), (2, 1));
    assert_eq!(n.mpa_rev(), REV_1);
    assert_eq!(n.ird_ord, None);
    assert_eq!(n.rtr, None);
}

// -------------------------------------------------------------------------------------------
// MPA revision 2 negotiation (RFC 6581)
// -------------------------------------------------------------------------------------------

fn rev2_full_operation(init: IrdOrd, resp: IrdOrd) -> (Negotiated, Negotiated, Frame) {
    let log = simulate(rev2(init), rev2(resp));
    let get = |role| {
        log.iter()
            .find_map(|(w, a)| match a {
                Action::FullOperation(n) if *w == role => Some(n.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{log:?}"))
    };
    let reply = log
        .iter()
        .find_map(|(w, a)| match a {
            Action::Send(b) if *w == Role::Responder => Some(complete(b).0),
            _ => None,
        })
        .unwrap();
    (get(Role::Initiator), get(Role::Responder), reply)
}

#[test]
fn rev2_responder_picks_exactly_one_rtr_type_from_those_offered() {
    let offer = IrdOrd { peer_to_peer: true, rtr: RtrTypes::ALL, ird: 8, ord: 8 };
    let support = IrdOrd {
        peer_to_peer: true,
        rtr: RtrTypes { send: true, write: false, read: true },
        ird: 8,
        ord: 8,
    };
    let (ni, nr, reply) = rev2_full_operation(offer, support);
    let block = reply.ird_ord.unwrap();
    assert_eq!(block.rtr.count(), 1);
    assert!(block.peer_to_peer, "A echoed");
    assert_eq!(block.rtr.single(), Some(Rtr::Read));
    assert_eq!(ni.rtr, Some(Rtr::Read));
    assert_eq!(nr.rtr, Some(Rtr::Read));
    assert!(ni.peer_to_peer && nr.peer_to_peer);
}

#[test]
fn rev2_negotiated_result_reports_ird_ord_with_ord_lowered_to_the_peer_ird() {
    let init = IrdOrd { ird: 16, ord: 4, ..IrdOrd::default() };
    let resp = IrdOrd { ird: 8, ord: 32, ..IrdOrd::default() };
    let (ni, nr, reply) = rev2_full_operation(init, resp);
    assert_eq!(reply.rev, REV_2);
    assert_eq!(reply.ird_ord.unwrap().ord, 16, "Responder ORD lowered to the Initiator's IRD");
    assert_eq!(nr.ird_ord, Some(NegotiatedIrdOrd { ird: 8, ord: 16 }));
    assert_eq!(ni.ird_ord, Some(NegotiatedIrdOrd { ird: 16, ord: 4 }));
    assert_eq!(ni.rtr, None, "no peer-to-peer, no RTR");
    assert!(!ni.peer_to_peer);
}

#[test]
fn rev2_responder_closes_with_code_6_when_initiator_ord_exceeds_its_ird() {
    let init = IrdOrd { ird: 4, ord: 9, ..IrdOrd::default() };
    let req = Frame::request(REV_2, false, true, vec![]).with_ird_ord(init).encode();
    let (r, a) = responder_with_request(rev2(IrdOrd { ird: 8, ord: 8, ..IrdOrd::default() }), &req);
    let (reply, _) = complete(&sent(&a)[0]);
    assert!(reply.r, "a rejecting Reply precedes the close");
    let e = close_error(&a).unwrap();
    assert_eq!(e, StartupError::InsufficientIrd { peer_ord: 9, ird: 8 });
    assert_eq!(e.code(), Some(6));
    assert_eq!(r.state(), State::Closed);
}

#[test]
fn rev2_initiator_closes_with_code_6_when_reply_ord_exceeds_its_ird() {
    let local = IrdOrd { ird: 2, ord: 2, ..IrdOrd::default() };
    let reply = Frame::reply(REV_2, false, true, false, vec![])
        .with_ird_ord(IrdOrd { ird: 2, ord: 3, ..IrdOrd::default() })
        .encode();
    let (_, a) = initiator_with_reply(rev2(local), &reply);
    assert_eq!(close_error(&a), Some(StartupError::InsufficientIrd { peer_ord: 3, ird: 2 }));
}

#[test]
fn rev2_responder_closes_with_code_7_when_no_rtr_type_is_common() {
    let offer = IrdOrd { peer_to_peer: true, rtr: RtrTypes::only(Rtr::Send), ird: 1, ord: 1 };
    let support = IrdOrd { peer_to_peer: true, rtr: RtrTypes::only(Rtr::Write), ird: 1, ord: 1 };
    let req = Frame::request(REV_2, false, true, vec![]).with_ird_ord(offer).encode();
    let (_, a) = responder_with_request(rev2(support), &req);
    let e = close_error(&a).unwrap();
    assert_eq!(e.code(), Some(7));
    assert!(complete(&sent(&a)[0]).0.r);
    // A Responder without peer-to-peer support cannot answer a peer-to-peer Request either.
    let no_p2p = IrdOrd { peer_to_peer: false, rtr: RtrTypes::ALL, ird: 1, ord: 1 };
    let (_, a) = responder_with_request(rev2(no_p2p), &req);
    assert_eq!(close_error(&a).and_then(|e| e.code()), Some(7));
}

#[test]
fn rev2_initiator_closes_with_code_7_unless_reply_picks_exactly_one_offered_rtr() {
    let offer = IrdOrd {
        peer_to_peer: true,
        rtr: RtrTypes { send: false, write: true, read: true },
        ird: 4,
        ord: 4,
    };
    let answer = |p2p, rtr| {
        Frame::reply(REV_2, false, true, false, vec![])
            .with_ird_ord(IrdOrd { peer_to_peer: p2p, rtr, ird: 4, ord: 4 })
            .encode()
    };
    for (p2p, rtr) in [
        (true, RtrTypes { send: false, write: true, read: true }), // two types
        (true, RtrTypes::NONE),                                    // none
        (true, RtrTypes::only(Rtr::Send)),                         // not offered
        (false, RtrTypes::only(Rtr::Write)),                       // A not echoed
    ] {
        let (_, a) = initiator_with_reply(rev2(offer), &answer(p2p, rtr));
        let e = close_error(&a).unwrap_or_else(|| panic!("{rtr} accepted"));
        assert_eq!(e.code(), Some(7), "{rtr}");
    }
    let (_, a) = initiator_with_reply(rev2(offer), &answer(true, RtrTypes::only(Rtr::Read)));
    assert!(matches!(a[..], [Action::PrivateDataReceived(_)]));
}

#[test]
fn rev2_initiator_closes_with_code_4_when_rev2_reply_lacks_the_ird_ord_block() {
    let reply = Frame::reply(REV_2, false, true, false, vec![]).encode();
    let (_, a) = initiator_with_reply(rev2(IrdOrd::default()), &reply);
    assert_eq!(close_error(&a), Some(StartupError::EnhancedReplyMissing));
}

#[test]
fn rev2_ulp_private_data_follows_the_block_in_both_directions() {
    let io = IrdOrd { ird: 1, ord: 1, ..IrdOrd::default() };
    let cfg = Config { private_data: b"from-init".to_vec(), ..rev2(io) };
    let (_, first) = Initiator::start(cfg).unwrap();
    let (mut r, a) = responder_with_request(rev2(io), &sent(&first)[0]);
    match &a[..] {
        [Action::PrivateDataReceived(f)] => assert_eq!(f.private_data, b"from-init"),
        other => panic!("{other:?}"),
    }
    let a = r.handle(Event::UlpAccept(vec![0; 509]));
    assert_eq!(a, vec![Action::Error(StartupError::PrivateDataTooLong { len: 513 })]);
    let a = r.handle(Event::UlpAccept(b"from-resp".to_vec()));
    let (reply, _) = complete(&sent(&a)[0]);
    assert_eq!(reply.pd_length(), 4 + 9);
    assert_eq!(reply.private_data, b"from-resp");
    assert_eq!(full_operation(&a).unwrap().peer_private_data, b"from-init");
}

// -------------------------------------------------------------------------------------------
// Appendix C: RDMAC interoperability, Figures 15, 16, 17
// -------------------------------------------------------------------------------------------

const V0_M11: InteropOutcome = InteropOutcome::Connected {
    ddp_rdmap_version: 0,
    markers: MarkerState { initiator_rx: true, responder_rx: true },
    crc: true,
};

fn v1(x: bool, y: bool) -> InteropOutcome {
    InteropOutcome::Connected {
        ddp_rdmap_version: 1,
        markers: MarkerState { initiator_rx: x, responder_rx: y },
        crc: false,
    }
}

fn close_by(by: Role) -> InteropOutcome {
    InteropOutcome::Closed { by, error: StartupError::UnsupportedRevision { rev: 0 } }
}

/// Checks one figure cell twice: against the tabulating function and against the two state
/// machines run against each other. IETF endpoints here prefer no CRC, so a CRC in the result
/// comes from the RDMAC peer's C = 1 (C.1).
fn assert_cell(initiator: Peer, responder: Peer, expected: InteropOutcome) {
    assert_eq!(
        appendix_c_outcome(initiator, responder),
        expected,
        "function: {initiator:?} -> {responder:?}"
    );
    let log = simulate(peer_config(initiator), peer_config(responder));
    assert_eq!(simulated_outcome(&log), expected, "machines: {initiator:?} -> {responder:?}");
}

const NP0: Peer = Peer { kind: RnicKind::IetfNonPermissive, markers: false, crc: false };
const NP1: Peer = Peer { kind: RnicKind::IetfNonPermissive, markers: true, crc: false };
const P0: Peer = Peer { kind: RnicKind::IetfPermissive, markers: false, crc: false };
const P1: Peer = Peer { kind: RnicKind::IetfPermissive, markers: true, crc: false };
const RDMAC: Peer = Peer { kind: RnicKind::Rdmac, markers: true, crc: true };

/// Figure 15, row "RDMAC M=1": `V=0 M=1/1 | close | close`.
#[test]
fn figure_15_row_rdmac_initiator() {
    assert_cell(RDMAC, RDMAC, V0_M11);
    assert_cell(RDMAC, NP0, close_by(Role::Responder));
    assert_cell(RDMAC, NP1, close_by(Role::Responder));
}

/// Figure 15, row "IETF Non-perms. M=0": `close | V=1 M=0/0 | V=1 M=0/1`.
#[test]
fn figure_15_row_non_permissive_initiator_m0() {
    assert_cell(NP0, RDMAC, close_by(Role::Initiator));
    assert_cell(NP0, NP0, v1(false, false));
    assert_cell(NP0, NP1, v1(false, true));
}

/// Figure 15, row "IETF Non-perms. M=1": `close | V=1 M=1/0 | V=1 M=1/1`.
#[test]
fn figure_15_row_non_permissive_initiator_m1() {
    assert_cell(NP1, RDMAC, close_by(Role::Initiator));
    assert_cell(NP1, NP0, v1(true, false));
    assert_cell(NP1, NP1, v1(true, true));
}

/// C.2.1: "it would send an MPA Reply Frame with the Rev field equal to one and then gracefully
/// close the connection."
#[test]
fn appendix_c_2_1_non_permissive_responder_replies_rev_1_then_closes() {
    let rdmac_request = Frame::request(REV_RDMAC, true, true, vec![]);
    assert_eq!(complete(&rdmac_request.encode()).0, rdmac_request);
    let (r, a) = responder_with_request(peer_config(NP0), &rdmac_request.encode());
    assert_eq!(a.len(), 2);
    let (reply, _) = complete(&sent(&a)[0]);
    assert_eq!(reply.rev, REV_1);
    assert_eq!(a[1], Action::CloseTcp(StartupError::UnsupportedRevision { rev: 0 }));
    assert_eq!(r.state(), State::Closed);
}

/// C.2.2: "The Non-permissive IETF RNIC will gracefully close the connection after it reads the
/// incompatible Rev field in the MPA Reply Frame."
#[test]
fn appendix_c_2_2_non_permissive_initiator_closes_on_a_rev_0_reply() {
    let reply = Frame::reply(REV_RDMAC, true, true, false, vec![]).encode();
    let (i, a) = initiator_with_reply(peer_config(NP0), &reply);
    assert_eq!(a, vec![Action::CloseTcp(StartupError::UnsupportedRevision { rev: 0 })]);
    assert_eq!(i.state(), State::Closed);
}

/// Figure 16, row "RDMAC M=1": `V=0 M=1/1 | N/A | V=0 M=1/1`. The N/A cell: "as an MPA
/// Responder, the Permissive IETF RNIC will never return an MPA Reply Frame with the M bit set to
/// zero" (C.2.3), so a permissive Responder configured for M=0 answers with M=1.
#[test]
fn figure_16_row_rdmac_initiator() {
    assert_cell(RDMAC, RDMAC, V0_M11);
    assert_cell(RDMAC, P1, V0_M11);
    assert_cell(RDMAC, P0, V0_M11);
    let (mut r, _) =
        responder_with_request(peer_config(P0), &Frame::request(0, true, true, vec![]).encode());
    let (reply, _) = complete(&sent(&r.handle(Event::UlpAccept(vec![])))[0]);
    assert!(reply.m, "never M=0 to an RDMAC Initiator");
}

/// Figure 16, row "IETF Permissive M=0": `V=0 M=1/1 | V=1 M=0/0 | V=1 M=0/1`.
#[test]
fn figure_16_row_permissive_initiator_m0() {
    assert_cell(P0, RDMAC, V0_M11);
    assert_cell(P0, P0, v1(false, false));
    assert_cell(P0, P1, v1(false, true));
}

/// Figure 16, row "IETF Permissive M=1": `V=0 M=1/1 | V=1 M=1/0 | V=1 M=1/1`.
#[test]
fn figure_16_row_permissive_initiator_m1() {
    assert_cell(P1, RDMAC, V0_M11);
    assert_cell(P1, P0, v1(true, false));
    assert_cell(P1, P1, v1(true, true));
}

/// C.2.4: the Permissive Responder "sends an MPA Reply message with revision set to zero and the
/// M and C bits set to one. The Responder must inform its ULP that it is generating version zero
/// DDP/RDMAP messages."
#[test]
fn appendix_c_2_4_permissive_responder_replies_rev_0_m1_c1_and_uses_version_0() {
    let req = Frame::request(REV_RDMAC, true, true, vec![]).encode();
    let (mut r, _) = responder_with_request(peer_config(P0), &req);
    let a = r.handle(Event::UlpAccept(vec![]));
    let (reply, _) = complete(&sent(&a)[0]);
    assert_eq!((reply.rev, reply.m, reply.c, reply.r), (0, true, true, false));
    let n = full_operation(&a).unwrap();
    assert_eq!(n.ddp_rdmap_version, 0);
    assert!(n.crc && n.markers_tx() && n.markers_rx());
}

/// C.2.5: "Regardless of the value of the M bit in the MPA Request Frame, the ULP ... for the
/// RDMAC RNIC will create an MPA Reply Frame with Rev equal to zero and the M bit set to one ...
/// [the Initiator] should generate version zero DDP/RDMAP messages and enable MPA Markers and
/// CRC."
#[test]
fn appendix_c_2_5_permissive_initiator_adopts_version_0_markers_and_crc() {
    let (_, first) = Initiator::start(peer_config(P0)).unwrap();
    let (request, _) = complete(&sent(&first)[0]);
    assert_eq!((request.rev, request.m, request.c), (1, false, false));
    let (mut rd, _) = responder_with_request(peer_config(RDMAC), &sent(&first)[0]);
    let a = rd.handle(Event::UlpAccept(vec![]));
    let (reply, _) = complete(&sent(&a)[0]);
    assert_eq!((reply.rev, reply.m, reply.c), (0, true, true));
    let (mut i, _) = initiator_with_reply(peer_config(P0), &reply.encode());
    let n = full_operation(&i.handle(Event::UlpAccept(vec![]))).unwrap();
    assert_eq!(n.ddp_rdmap_version, 0);
    assert!(n.crc, "CRC on because of the RDMAC Reply's C=1 (the Request had C=0)");
    assert!(n.markers_tx() && n.markers_rx(), "Markers both ways although the Request had M=0");
}

/// Figure 17, every row: between IETF RNICs, "V=1" and "M=X/Y" with X the Initiator's and Y the
/// Responder's M, whether either is permissive or not ("an IETF RNIC cannot detect whether its
/// peer is a Permissive or Non-permissive RNIC").
#[test]
fn figure_17_row_non_permissive_initiator_m0() {
    for (resp, y) in [(NP0, false), (NP1, true), (P0, false), (P1, true)] {
        assert_cell(NP0, resp, v1(false, y));
    }
}

/// Figure 17, row "IETF Non-perms. M=1": `V=1 M=1/0 | V=1 M=1/1 | V=1 M=1/0 | V=1 M=1/1`.
#[test]
fn figure_17_row_non_permissive_initiator_m1() {
    for (resp, y) in [(NP0, false), (NP1, true), (P0, false), (P1, true)] {
        assert_cell(NP1, resp, v1(true, y));
    }
}

/// Figure 17, row "IETF Permissive M=0": `V=1 M=0/0 | V=1 M=0/1 | V=1 M=0/0 | V=1 M=0/1`.
#[test]
fn figure_17_row_permissive_initiator_m0() {
    for (resp, y) in [(NP0, false), (NP1, true), (P0, false), (P1, true)] {
        assert_cell(P0, resp, v1(false, y));
    }
}

/// Figure 17, row "IETF Permissive M=1": `V=1 M=1/0 | V=1 M=1/1 | V=1 M=1/0 | V=1 M=1/1`.
#[test]
fn figure_17_row_permissive_initiator_m1() {
    for (resp, y) in [(NP0, false), (NP1, true), (P0, false), (P1, true)] {
        assert_cell(P1, resp, v1(true, y));
    }
}

/// C.1: "Since the RDMAC RNIC will always request CRC use, then, according to the IETF MPA
/// specification, both peers MUST generate and check CRCs." Across every kind, M and C: the
/// machines agree with the tabulating function, revisions 1 and 2.
#[test]
fn machines_agree_with_appendix_c_outcome_for_every_kind_marker_and_crc() {
    let kinds = [RnicKind::Rdmac, RnicKind::IetfNonPermissive, RnicKind::IetfPermissive];
    let mut peers = Vec::new();
    for kind in kinds {
        for markers in [false, true] {
            for crc in [false, true] {
                if kind == RnicKind::Rdmac && !(markers && crc) {
                    continue;
                }
                peers.push(Peer { kind, markers, crc });
            }
        }
    }
    let mut cells = 0;
    for &i in &peers {
        for &r in &peers {
            for rev in [REV_1, REV_2] {
                let io = IrdOrd { ird: 4, ord: 4, ..IrdOrd::default() };
                let cfg = |p: Peer| Config { rev, ird_ord: Some(io), ..peer_config(p) };
                let log = simulate(cfg(i), cfg(r));
                assert_eq!(
                    simulated_outcome(&log),
                    appendix_c_outcome(i, r),
                    "{i:?} -> {r:?} rev {rev}"
                );
                cells += 1;
            }
        }
    }
    assert_eq!(cells, 9 * 9 * 2);
}

/// Appendix C introduction: "Without the exchange of MPA Request/Reply Frames, there is no
/// standard mechanism for enabling RDMAC RNICs to interoperate with IETF RNICs." An RDMAC RNIC
/// with no supporting ULP starts straight with FPDUs (Marker 0x00000000 first): the IETF Responder
/// sees an invalid Key at the first octet; an IETF Initiator never gets a Reply and times out.
#[test]
fn bare_rdmac_peer_without_frames_is_refused_by_key_or_timeout() {
    let rdmac_fpdus = [0u8, 0, 0, 0, 0x00, 0x2A, 0x40, 0x03];
    let (_, a) = responder_with_request(Config::default(), &rdmac_fpdus);
    let e = close_error(&a).unwrap();
    assert_eq!(e, StartupError::InvalidKey { received: vec![0] });
    assert_eq!(e.code(), Some(4));
    let cfg = Config { startup_timeout: Some(Duration::from_secs(2)), ..Config::default() };
    let (mut i, _) = Initiator::start(cfg).unwrap();
    let a = i.handle(Event::Elapsed(Duration::from_secs(2)));
    assert!(matches!(close_error(&a), Some(StartupError::StartupTimeout { .. })));
}

// -------------------------------------------------------------------------------------------
// Random inputs: nothing panics
// -------------------------------------------------------------------------------------------

fn random_frame(rng: &mut StdRng) -> Frame {
    let key = if rng.gen() { Key::Request } else { Key::Reply };
    let rev = rng.gen_range(0..=2u8);
    let enhanced = rev == 2 && rng.gen();
    let max = if enhanced { 508 } else { 512 };
    let len = if rng.gen_bool(0.2) { max } else { rng.gen_range(0..=max.min(64)) };
    let mut private_data = vec![0u8; len];
    rng.fill(&mut private_data[..]);
    let ird_ord = enhanced.then(|| IrdOrd {
        peer_to_peer: rng.gen(),
        rtr: RtrTypes { send: rng.gen(), write: rng.gen(), read: rng.gen() },
        ird: rng.gen_range(0..=IRD_ORD_MAX),
        ord: rng.gen_range(0..=IRD_ORD_MAX),
    });
    let res_mask = if rev == 2 { RES_MASK_REV2 } else { RES_MASK };
    Frame {
        key,
        m: rng.gen(),
        c: rng.gen(),
        r: rng.gen(),
        res: rng.gen::<u8>() & res_mask,
        rev,
        ird_ord,
        private_data,
    }
}

#[test]
fn decode_never_panics_on_random_byte_strings() {
    let mut rng = StdRng::seed_from_u64(0x5044_0701);
    let mut outcomes = [0usize; 3];
    for n in 0..20_000 {
        let len = rng.gen_range(0..600);
        let mut b = vec![0u8; len];
        rng.fill(&mut b[..]);
        if n % 2 == 0 && len >= 16 {
            // Half start with a valid Key so that the later checks are reached.
            let key = if rng.gen() { &KEY_REQUEST } else { &KEY_REPLY };
            b[..16].copy_from_slice(key);
            if len >= 20 && rng.gen() {
                b[17] = rng.gen_range(0..4);
                let pd = rng.gen_range(0..=520u16);
                b[18..20].copy_from_slice(&pd.to_be_bytes());
            }
        }
        let rules = ReceiveRules {
            expected_key: [None, Some(Key::Request), Some(Key::Reply)][rng.gen_range(0..3)],
            max_rev: rng.gen_range(0..=3),
            private_data_buffer: rng.gen_range(0..600),
        };
        match Frame::decode_with(&b, &rules) {
            Ok(Decoded::Complete { frame, consumed }) => {
                outcomes[0] += 1;
                assert!(consumed <= b.len());
                assert_eq!(frame.encode(), b[..consumed], "re-encoding gives the same octets");
            }
            Ok(Decoded::Incomplete { needed }) => {
                outcomes[1] += 1;
                assert!(needed > b.len());
            }
            Err(e) => {
                outcomes[2] += 1;
                assert!(!e.to_string().is_empty());
            }
        }
        let _ = Frame::decode_at_close(&b, &rules);
    }
    assert!(outcomes.iter().all(|&c| c > 100), "every outcome exercised: {outcomes:?}");
}

#[test]
fn decode_round_trips_random_valid_frames_and_never_panics_on_their_truncations() {
    let mut rng = StdRng::seed_from_u64(6581);
    for _ in 0..5_000 {
        let f = random_frame(&mut rng);
        assert!(f.validate().is_ok());
        let b = f.encode();
        assert_eq!(complete(&b), (f.clone(), b.len()));
        // Random truncation: always Incomplete, never an error.
        let cut = rng.gen_range(0..b.len());
        match Frame::decode(&b[..cut]) {
            Ok(Decoded::Incomplete { needed }) => assert!(needed > cut),
            other => panic!("truncation to {cut} of {f:?}: {other:?}"),
        }
        // Random corruption of one octet: any verdict, no panic.
        let mut c = b.clone();
        let at = rng.gen_range(0..c.len());
        c[at] ^= 1 << rng.gen_range(0..8);
        let _ = Frame::decode(&c);
        let _ = Frame::decode_at_close(&c[..rng.gen_range(0..=c.len())], &ReceiveRules::default());
    }
}

#[test]
fn state_machines_never_panic_and_stay_silent_after_closing_on_random_events() {
    let mut rng = StdRng::seed_from_u64(44);
    for round in 0..2_000 {
        let mut cfg = Config {
            kind: [RnicKind::Rdmac, RnicKind::IetfNonPermissive, RnicKind::IetfPermissive]
                [rng.gen_range(0..3)],
            markers: rng.gen(),
            crc: rng.gen(),
            private_data_buffer: rng.gen_range(0..600),
            request_timeout: Some(Duration::from_millis(rng.gen_range(1..100))),
            startup_timeout: Some(Duration::from_millis(rng.gen_range(1..200))),
            ..Config::default()
        };
        if rng.gen() {
            cfg.rev = REV_2;
            cfg.ird_ord = Some(IrdOrd {
                peer_to_peer: rng.gen(),
                rtr: RtrTypes { send: rng.gen(), write: rng.gen(), read: rng.gen() },
                ird: rng.gen_range(0..8),
                ord: rng.gen_range(0..8),
            });
        }
        // The peer's stream: a valid frame (either Key), maybe corrupted, maybe with trailing
        // octets, delivered in random pieces, mixed with random ULP and timer events.
        let mut stream = random_frame(&mut rng).encode();
        if rng.gen_bool(0.3) {
            let at = rng.gen_range(0..stream.len());
            stream[at] = rng.gen();
        }
        if rng.gen_bool(0.3) {
            stream.extend((0..rng.gen_range(1..10)).map(|_| rng.gen::<u8>()));
        }
        let mut events = Vec::new();
        let mut pos = 0;
        while pos < stream.len() {
            let n = rng.gen_range(1..=stream.len() - pos);
            events.push(Event::Received(stream[pos..pos + n].to_vec()));
            pos += n;
        }
        for _ in 0..rng.gen_range(0..6) {
            let e = match rng.gen_range(0..6) {
                0 => Event::UlpAccept(vec![0; rng.gen_range(0..520)]),
                1 => Event::UlpReject(vec![]),
                2 => Event::UlpSend(vec![1, 2, 3, 4]),
                3 => Event::FpduValidated,
                4 => Event::Elapsed(Duration::from_millis(rng.gen_range(0..150))),
                _ => Event::TcpClosed,
            };
            let at = rng.gen_range(0..=events.len());
            events.insert(at, e);
        }
        let (mut i, _) = Initiator::start(cfg.clone()).unwrap();
        let mut r = Responder::start(cfg).unwrap();
        let (mut i_done, mut r_done) = (false, false);
        for e in events {
            for (done, actions) in
                [(&mut i_done, i.handle(e.clone())), (&mut r_done, r.handle(e.clone()))]
            {
                for a in &actions {
                    if *done {
                        assert!(
                            matches!(a, Action::Error(_)),
                            "round {round}: {a:?} after closing/exiting"
                        );
                    }
                }
                if actions.iter().any(|a| matches!(a, Action::CloseTcp(_) | Action::ExitMpa(_))) {
                    *done = true;
                }
            }
        }
    }
}

#[test]
fn splitting_a_request_at_every_point_gives_the_same_result() {
    let req = request_bytes(REV_1, b"split me");
    let (_, whole) = responder_with_request(Config::default(), &req);
    for cut in 1..req.len() {
        let mut r = Responder::start(Config::default()).unwrap();
        let mut a = r.handle(Event::Received(req[..cut].to_vec()));
        a.extend(r.handle(Event::Received(req[cut..].to_vec())));
        assert_eq!(a, whole, "cut at {cut}");
    }
}
