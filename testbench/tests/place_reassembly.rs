//! `PlaceReassembly` (RFC 5044 A.3-A.5, B.1.4): segments in any order, duplicated, overlapping,
//! re-cut, with sequence numbers wrapping through 2^32; the verdicts are the golden receiver's
//! with out-of-order placement off and the same buffer, table and window, and what comes out is
//! the stream in order, at every width on both engines, under idle cycles and backpressure.
//! The FPDUs the block locates in each out-of-order segment before its verdict are
//! [`golden::receiver::locate_fpdus`]'s for that segment (no placed FPDU to chain from, header
//! alignment off; `testbench::rnic::located_in_offers`).

use golden::receiver::{Delivery, Event, ReceiverConfig};
use sim::reassembly::{check_in_order, reassembly, run_reassembly, ReassemblyOptions};
use sim::stream::Pattern;
use sim::traffic::{generate, run_receiver, LogEntry, Scenario, TcpSegment, TrafficOptions};
use sim::Engine;

/// The ring of the exported tops.
const RING: u64 = 1 << 16;

/// The golden receiver's offers and verdicts for `segments` (refused segments offered again),
/// with the hardware's settings; the verdicts after the connection stopped (error or
/// Terminate delivered) are `None`: the block alone does not know the connection stopped.
fn golden_offers(
    cfg: &ReceiverConfig,
    segments: &[TcpSegment],
) -> (Vec<TcpSegment>, Vec<Option<bool>>, u32) {
    let run = run_receiver(cfg, segments, false, Some(3), false).expect("golden run");
    let mut offers = Vec::new();
    let mut verdicts = Vec::new();
    let mut stopped = false;
    for l in &run.log {
        match l {
            LogEntry::Verdict { segment, verdict, .. } => {
                offers.push(segments[*segment].clone());
                verdicts
                    .push((!stopped).then_some(*verdict == golden::receiver::Verdict::Accepted));
            }
            LogEntry::Event(Event::Error(_) | Event::Deliver(Delivery::Terminate { .. })) => {
                stopped = true;
            }
            LogEntry::Event(_) => {}
        }
    }
    (offers, verdicts, run.receiver.edge_seq())
}

fn hardware_config(t: &sim::traffic::Traffic) -> ReceiverConfig {
    let mut cfg = t.config.clone();
    cfg.place_out_of_order = false;
    cfg.reassembly_window = RING;
    cfg
}

/// One generated connection of `messages` messages through the block against the golden
/// receiver; returns the refusals, the peak held, the offers and the FPDUs located.
#[allow(clippy::too_many_arguments)]
fn check_n(
    engine: Engine,
    w: usize,
    scenario: Scenario,
    seed: u64,
    markers: bool,
    extra: u64,
    records: u32,
    busy: bool,
    messages: usize,
) -> (usize, u64, usize, u64) {
    let o = TrafficOptions {
        scenario,
        seed,
        markers,
        messages,
        reassembly_octets: 0,
        records,
        ..TrafficOptions::default()
    };
    let mut o = o;
    // The buffer: the in-order reserve plus `extra` octets for out-of-order segments.
    let probe = generate(&TrafficOptions { reassembly_octets: 1 << 20, ..o.clone() });
    o.reassembly_octets = probe.config.in_order_reserve() + extra;
    let t = generate(&o);
    let cfg = hardware_config(&t);
    let (offers, verdicts, edge_end) = golden_offers(&cfg, &t.segments);
    let mut sim = reassembly(engine, w).unwrap();
    let opts = ReassemblyOptions {
        seq: cfg.origin,
        budget: (cfg.reassembly_octets - cfg.in_order_reserve()) as u32,
        records: cfg.records - 1,
        markers: cfg.markers,
        crc: cfg.crc,
        max_ulpdu: cfg.max_ulpdu,
        idle: if busy { Pattern::Random { p: 0.7, seed } } else { Pattern::Always },
        backpressure: if busy {
            Pattern::Random { p: 0.6, seed: seed ^ 9 }
        } else {
            Pattern::Always
        },
        ..Default::default()
    };
    let tag = format!("{engine} W={w} {} seed {seed} markers {markers}", scenario.name());
    let run = run_reassembly(sim.as_mut(), &offers, &opts).unwrap_or_else(|e| panic!("{tag}: {e}"));
    assert_eq!(run.verdicts.len(), offers.len(), "{tag}: verdicts");
    let mut refused = 0;
    let located = testbench::rnic::located_in_offers(&cfg, &offers);
    for (k, (v, g)) in run.verdicts.iter().zip(&verdicts).enumerate() {
        if let Some(g) = g {
            assert_eq!(v.1, *g, "{tag}: verdict on offer {k} (seq {:#x})", v.0);
            assert_eq!(
                run.located[k], located[k],
                "{tag}: FPDUs located in offer {k} (seq {:#x})",
                v.0
            );
            refused += usize::from(!g);
        }
    }
    if verdicts.iter().all(Option::is_some) {
        let n: usize = located.iter().map(Vec::len).sum();
        let octets: u64 = located.iter().flatten().map(|&(a, b)| b.wrapping_sub(a) as u64).sum();
        assert_eq!(
            (run.located_count, run.located_octets),
            (n as u64, octets),
            "{tag}: located counters"
        );
    }
    let wire = &t.sent.wire;
    let min_len = edge_end.wrapping_sub(cfg.origin) as usize;
    let at = check_in_order(&run.out, wire, cfg.origin, min_len, true)
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
    if at == wire.len() {
        assert_eq!((run.held, run.runs), (0, 0), "{tag}: nothing held at the end");
    }
    assert!(run.refused as usize >= refused, "{tag}: refused counter");
    (refused, run.peak_held, offers.len(), run.located_count)
}

/// Hand-built: a segment ending beyond the ring is refused; a retransmission overlapping the
/// edge is trimmed and pulls the held run after it; an old duplicate is dropped; FIN arriving
/// out of order goes out on the beat that reaches it; after FIN everything is accepted and
/// dropped. Sequence numbers wrap through 2^32 on the way.
fn directed(engine: Engine, w: usize) {
    let origin = 0xFFFF_FE00u32;
    let wire: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    let seg = |a: usize, b: usize, fin: bool| TcpSegment {
        seq: origin.wrapping_add(a as u32),
        payload: if b <= wire.len() { wire[a..b].to_vec() } else { vec![0x77; b - a] },
        fin,
    };
    let offers = vec![
        seg(1000, 2000, false),
        seg(70_000, 70_100, false),
        seg(0, 500, false),
        seg(400, 1200, false),
        seg(100, 300, false),
        seg(2500, 3000, true),
        seg(2000, 2500, false),
        seg(2900, 3000, true),
    ];
    let mut sim = reassembly(engine, w).unwrap();
    let opts = ReassemblyOptions { seq: origin, budget: 4096, records: 2, ..Default::default() };
    let run = run_reassembly(sim.as_mut(), &offers, &opts).unwrap();
    let got: Vec<bool> = run.verdicts.iter().map(|v| v.1).collect();
    assert_eq!(got, [true, false, true, true, true, true, true, true], "{engine} W={w}");
    check_in_order(&run.out, &wire, origin, wire.len(), true)
        .unwrap_or_else(|e| panic!("{engine} W={w}: {e}"));
    let starts: Vec<u32> = run.out.iter().map(|o| o.seq.wrapping_sub(origin)).collect();
    assert_eq!(
        starts,
        [0, 500, 2000, 2500],
        "{engine} W={w}: pass, trimmed + held run, pass, held run"
    );
    assert_eq!((run.held, run.runs, run.refused, run.peak_held), (0, 0, 1, 1000), "{engine} W={w}");
    // The budget: 1000 held, 3097 more would exceed 4096 octets; a third run exceeds 2.
    let offers = vec![seg(1000, 2000, false), seg(2100, 5197, false), seg(2100, 5196, false)];
    let run = run_reassembly(
        sim.as_mut(),
        &offers,
        &ReassemblyOptions { seq: origin, budget: 4096, records: 2, ..Default::default() },
    )
    .unwrap();
    assert_eq!(run.verdicts.iter().map(|v| v.1).collect::<Vec<_>>(), [true, false, true]);
    let offers = vec![
        seg(1000, 1100, false),
        seg(1200, 1300, false),
        seg(1400, 1500, false),
        seg(1100, 1200, false),
        seg(1400, 1500, false),
    ];
    let run = run_reassembly(
        sim.as_mut(),
        &offers,
        &ReassemblyOptions { seq: origin, budget: 4096, records: 2, ..Default::default() },
    )
    .unwrap();
    assert_eq!(
        run.verdicts.iter().map(|v| v.1).collect::<Vec<_>>(),
        [true, true, false, true, true],
        "merging frees a record"
    );
    assert_eq!((run.held, run.runs), (400, 2));
}

/// `#[ignore]` rows (the rust-hdl model at W = 4, 16, 32 and 64; Verilator covers every W in
/// `make test`, and rnic_rx's lockstep tests run this block on both engines cycle by cycle at
/// every W) run in `make test-extra`.
macro_rules! reassembly_tests {
    ($($(#[$long:meta])? $name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        $(#[$long])?
        fn $name() {
            directed($engine, $w);
            let mut refusals = 0;
            let mut located = 0;
            // The rust-hdl row at W = 8 runs a quarter of the messages per connection (the
            // model is much slower than Verilator, which runs 40, as do the other rust-hdl rows
            // in make test-extra; rnic_rx's lockstep tests run this block on both engines
            // cycle by cycle).
            let messages = if $engine == Engine::RustHdl && $w == 8 { 10 } else { 40 };
            for (k, s) in Scenario::ALL.into_iter().enumerate() {
                let seed = 100 + k as u64 + $w;
                let (r, _, _, l) =
                    check_n($engine, $w, s, seed, k % 2 == 0, 1 << 20, 16, k % 3 == 1, messages);
                refusals += r;
                located += l;
            }
            assert_eq!(refusals, 0, "a large buffer refuses nothing");
            assert!(located > 0, "Markers locate FPDUs in out-of-order segments");
            // Small buffers: refusals, retransmissions, and every stream still completes.
            for (k, s) in [Scenario::Loss, Scenario::Mixed, Scenario::Wrap, Scenario::Dup]
                .into_iter()
                .enumerate()
            {
                let seed = 7 + k as u64 * 31 + $w;
                for (extra, records) in [(0, 1), (3000, 2), (9000, 4)] {
                    let (r, _, _, _) = check_n(
                        $engine, $w, s, seed, k % 2 == 1, extra, records, k % 2 == 0, messages,
                    );
                    refusals += r;
                }
            }
            assert!(refusals > 0, "small buffers must refuse something");
        }
    )*};
}

reassembly_tests! {
    #[ignore = "the rust-hdl model at W = 4: make test-extra"]
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    #[ignore = "the rust-hdl model at W = 16: make test-extra"]
    rusthdl_w16: sim::Engine::RustHdl, 16;
    #[ignore = "the rust-hdl model at W = 32: make test-extra"]
    rusthdl_w32: sim::Engine::RustHdl, 32;
    #[ignore = "the rust-hdl model at W = 64: make test-extra"]
    rusthdl_w64: sim::Engine::RustHdl, 64;
    #[ignore = "Verilator at W = 4 (rnic_rx runs the block at every W): make test-extra"]
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    #[ignore = "Verilator at W = 16 (rnic_rx runs the block at every W): make test-extra"]
    verilator_w16: sim::Engine::Verilator, 16;
    #[ignore = "Verilator at W = 32 (rnic_rx runs the block at every W): make test-extra"]
    verilator_w32: sim::Engine::Verilator, 32;
    verilator_w64: sim::Engine::Verilator, 64;
}

/// At least `target` segments through the exported Verilog at width `w` (every scenario,
/// seeds in turn, small buffers every third connection): every verdict the golden receiver's,
/// every stream in order.
fn campaign(w: usize, target: usize) -> usize {
    let mut total = 0;
    let mut seed = 1000;
    while total < target {
        for (k, s) in Scenario::ALL.into_iter().enumerate() {
            let small = (seed + k as u64) % 3 == 0;
            let (extra, records) = if small { (6000, 4) } else { (1 << 20, 17) };
            total +=
                check_n(Engine::Verilator, w, s, seed, k % 2 == 1, extra, records, false, 200).2;
        }
        seed += 1;
    }
    total
}

/// 1,000 segments per width in `make test`, more with `RNIC_REASM_CAMPAIGN_SEGMENTS` (the 10^5
/// segments per width of `make test-long` go through the whole `rnic_rx`, which contains this
/// block: `rnic_rx.rs`'s campaigns). One test per width, so that they run side by side.
fn campaign_at(w: usize) {
    let target = std::env::var("RNIC_REASM_CAMPAIGN_SEGMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000usize);
    let n = campaign(w, target);
    assert!(n >= target, "W={w}: {n} segments");
}

#[test]
fn campaign_on_verilator_w8() {
    campaign_at(8);
}

#[test]
fn campaign_on_verilator_w64() {
    campaign_at(64);
}
