//! The golden receiver's invariant over every traffic scenario (`sim::traffic`): whatever the
//! arrival order, with duplication, overlap, re-segmentation, loss and refused segments offered
//! again, the deliveries, the memory of every delivered message and the first error equal those
//! of the same segments in sequence order; and the in-order run gives what the sender meant
//! (its messages, their octets, the error its fault must cause). Markers on and off, alignment
//! detection on and off, CRC on and off, large buffers and the smallest ones (refusals happen);
//! at least 10^4 segments per scenario. Every write is checked against the STag table and the
//! posted buffers as they were when it was made.

use golden::receiver::{Delivery, Event, ReceiverConfig, Target};
use sim::traffic::{generate, run_receiver, Fault, Run, Scenario, Traffic, TrafficOptions};

/// What one connection contributed.
#[derive(Default)]
struct Tally {
    segments: usize,
    refused: u64,
    runs: usize,
}

fn deliveries(run: &Run) -> Vec<Delivery> {
    run.events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Deliver(d) => Some(d.clone()),
            Event::Error(_) => None,
        })
        .collect()
}

/// The deliveries and the error's code and sequence number (its reason is for people).
fn outcome(run: &Run) -> (Vec<Delivery>, Option<(golden::ddp::TerminateCode, u32)>) {
    (deliveries(run), run.receiver.error().map(|e| (e.code, e.seq)))
}

/// Every write of `run` lands inside a region or buffer of `cfg` that allowed it at that moment:
/// valid, of the stream's protection domain, writable, not invalidated by a delivery before it.
fn check_writes(cfg: &ReceiverConfig, run: &Run, what: &str) {
    let deliveries: Vec<&Event> = run.events();
    for w in run.receiver.memory().writes() {
        let end = w.offset + w.len;
        match w.target {
            Target::Region(stag) => {
                let r = cfg.regions.iter().find(|r| r.stag == stag);
                let r = r.unwrap_or_else(|| panic!("{what}: write to unknown STag {stag:#x}"));
                assert!(r.valid && r.pd == cfg.pd && r.write, "{what}: write to {r:?}");
                assert!(end <= r.len, "{what}: write [{}, {end}) past region {r:?}", w.offset);
                // Invalidated by a Send delivered before the write?
                let invalidated_at = deliveries.iter().position(|e| {
                    matches!(e, Event::Deliver(Delivery::Send { invalidate: Some(s), .. }) if *s == stag)
                });
                if let Some(j) = invalidated_at {
                    assert!(
                        w.after_events <= j as u64,
                        "{what}: write to STag {stag:#x} after its invalidation"
                    );
                }
            }
            Target::Buffer { qn, msn } => {
                let p = cfg.posted.iter().find(|p| p.qn == qn && p.msn == msn);
                let p = p.unwrap_or_else(|| panic!("{what}: write to unposted QN {qn} MSN {msn}"));
                assert!(end <= p.len, "{what}: write past buffer {p:?}");
            }
        }
    }
}

/// The invariant and the sender's view for one connection.
fn check(t: &Traffic, what: &str, tally: &mut Tally) {
    let reference = run_receiver(&t.config, &t.segments, true, None, true)
        .unwrap_or_else(|e| panic!("{what}: in-order run: {e}"));
    assert_eq!(reference.receiver.metrics().refused, 0, "{what}: an in-order segment was refused");
    let err = reference.receiver.error().map(|e| (e.code, e.seq));
    assert_eq!(err, t.expected_error(), "{what}: the in-order error is the fault's");

    // The in-order run gives what the sender meant, up to the error.
    let got = deliveries(&reference);
    let sent = &t.sent.messages;
    assert!(got.len() <= sent.len(), "{what}: more deliveries than messages");
    for (k, (d, m)) in got.iter().zip(sent).enumerate() {
        assert_eq!(d, &m.delivery, "{what}: delivery {k}");
        assert_eq!(
            reference.receiver.message_memory(d),
            Some(&m.data[..]),
            "{what}: memory of delivery {k}"
        );
    }
    if err.is_none() {
        assert_eq!(got.len(), sent.len(), "{what}: every message delivered");
        assert!(reference.receiver.finished(), "{what}: the stream did not end");
    } else {
        assert!(got.len() < sent.len(), "{what}: a message after the error");
    }

    // Arrival order, refused segments offered again 7 offers later.
    let run = run_receiver(&t.config, &t.segments, false, Some(7), true)
        .unwrap_or_else(|e| panic!("{what}: arrival-order run: {e}"));
    assert_eq!(run.never_accepted, 0);
    assert_eq!(outcome(&run), outcome(&reference), "{what}: deliveries and error differ");
    for d in &got {
        assert_eq!(
            run.receiver.message_memory(d),
            reference.receiver.message_memory(d),
            "{what}: memory of {d:?}"
        );
    }
    assert_eq!(run.receiver.finished(), reference.receiver.finished(), "{what}: finished");
    // Nothing of the failing FPDU is written (out of order, the one exception is a Write placed
    // before the Send with Invalidate that precedes it in the stream had arrived).
    if let Some((_, seq)) = err {
        let wrote = |r: &Run| r.receiver.memory().writes().iter().any(|w| w.seq == seq);
        assert!(!wrote(&reference), "{what}: the failing FPDU was written in order");
        if t.fault != Some(Fault::WriteAfterInvalidate) {
            assert!(!wrote(&run), "{what}: the failing FPDU was written");
        }
    }
    check_writes(&t.config, &run, what);
    let m = run.receiver.metrics();
    let reserve = t.config.in_order_reserve();
    assert!(
        m.peak_held_octets <= t.config.reassembly_octets,
        "{what}: {} octets held, buffer {}",
        m.peak_held_octets,
        t.config.reassembly_octets
    );
    assert!(m.peak_records <= t.config.records as u64, "{what}: records {}", m.peak_records);
    assert!(reserve > 0);
    tally.segments += t.segments.len();
    tally.refused += m.refused;
    tally.runs += 1;
}

/// Seeds per setting multiplied by `RNIC_RX_CAMPAIGN` (default 3, about 3.5 * 10^4 segments
/// per scenario in a second; `make rx-campaign` runs 100).
fn scale() -> u64 {
    std::env::var("RNIC_RX_CAMPAIGN").ok().and_then(|v| v.parse().ok()).unwrap_or(3).max(1)
}

/// Every setting combination for one scenario; returns what ran.
fn scenario_matrix(scenario: Scenario, seeds: u64) -> Tally {
    let seeds = seeds * scale();
    let mut tally = Tally::default();
    let combos: [(bool, bool, bool, bool); 10] = [
        // markers, aligned_detect, crc, small buffers
        (false, true, true, false),
        (false, false, true, false),
        (true, true, true, false),
        (true, false, true, false),
        (false, true, true, true),
        (false, false, true, true),
        (true, true, true, true),
        (true, false, true, true),
        (false, true, false, false),
        (true, true, false, true),
    ];
    for (markers, aligned, crc, small) in combos {
        for seed in 0..seeds {
            let o = TrafficOptions {
                scenario,
                seed: seed * 7919 + u64::from(markers) * 2 + u64::from(crc) * 3,
                markers,
                crc,
                aligned_detect: aligned,
                records: if small { 1 + (seed % 4) as u32 } else { 256 },
                ..TrafficOptions::default()
            };
            let mut t = generate(&o);
            if small {
                // The smallest buffer that guarantees progress, plus 0, 1 or 2 segments.
                t.config.reassembly_octets = t.config.min_reassembly_octets() + (seed % 3) * 1460;
            }
            let what = format!(
                "{} seed {} markers {markers} aligned {aligned} crc {crc} small {small} fault {:?}",
                scenario.name(),
                o.seed,
                t.fault.map(Fault::name)
            );
            check(&t, &what, &mut tally);
        }
    }
    assert!(
        tally.segments >= 10_000,
        "{}: only {} segments (at least 10^4 per scenario)",
        scenario.name(),
        tally.segments
    );
    tally
}

#[test]
fn invariant_inorder() {
    let t = scenario_matrix(Scenario::InOrder, 6);
    assert_eq!(t.refused, 0);
}

#[test]
fn invariant_aligned_ooo() {
    let t = scenario_matrix(Scenario::AlignedOoo, 6);
    assert!(t.refused > 0, "small buffers must refuse something");
}

#[test]
fn invariant_middlebox() {
    let t = scenario_matrix(Scenario::Middlebox, 5);
    assert!(t.refused > 0);
}

#[test]
fn invariant_loss() {
    let t = scenario_matrix(Scenario::Loss, 6);
    assert!(t.refused > 0);
}

#[test]
fn invariant_dup() {
    scenario_matrix(Scenario::Dup, 5);
}

#[test]
fn invariant_wrap() {
    scenario_matrix(Scenario::Wrap, 6);
}

#[test]
fn invariant_faults() {
    scenario_matrix(Scenario::Faults, 6);
}

#[test]
fn invariant_mixed() {
    scenario_matrix(Scenario::Mixed, 5);
}

/// Every fault, with Markers on and off, in arrival order and in order: the error the fault must
/// cause, at its FPDU, and nothing of that FPDU written.
#[test]
fn every_fault_gives_its_error_in_any_arrival_order() {
    let mut tally = Tally::default();
    for fault in Fault::ALL {
        for markers in [false, true] {
            if !fault.applies(markers, true) {
                continue;
            }
            for seed in 0..3 * scale() {
                let o = TrafficOptions {
                    scenario: Scenario::Faults,
                    seed,
                    markers,
                    messages: 60,
                    fault: Some(fault),
                    ..TrafficOptions::default()
                };
                let t = generate(&o);
                let what = format!("fault {} markers {markers} seed {seed}", fault.name());
                let (code, _) = t.expected_error().unwrap_or_else(|| panic!("{what}: no fault"));
                assert_eq!(code, fault.code(), "{what}");
                check(&t, &what, &mut tally);
            }
        }
    }
}
