//! `RxRealigner` (RFC 5044 A.4): segments cut anywhere become the stream as whole words, at every
//! width on both engines, with idle and backpressure; retransmissions overlapping what was taken
//! are trimmed (whole beats and part of one skipped), duplicates dropped without an error, a
//! segment beyond the next expected octet dropped and counted (`err_seq`) and remembered
//! (`seq_gap`, sticky), also one that starts as far beyond it as a retransmission before it was
//! trimmed; FIN ends the stream, with lost octets flagged, and what follows it is
//! dropped (also while the FIN segment's last words are still being flushed).

use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::rx::{segments, with_retransmissions};

fn run(
    engine: Engine,
    w: usize,
    stream: &[u8],
    segs: &[InPacket],
    seq: u32,
    dropped: u64,
    opts: PacketRun,
) {
    let mut sim = sim::rx::realigner(engine, w).unwrap();
    let opts = PacketRun {
        settings: vec![
            ("cfg_seq".into(), seq as u64),
            ("cfg_origin".into(), seq.wrapping_sub(400) as u64),
        ],
        pulses: vec!["err_seq".into()],
        ..opts
    };
    let res = run_packets(sim.as_mut(), segs, &opts).unwrap();
    let words: Vec<u8> = res.packets.iter().flat_map(|p| p.data.clone()).collect();
    let whole = stream.len() / 4 * 4;
    assert_eq!(words.len(), whole, "{engine} W={w}: octets out");
    assert_eq!(&words[..], &stream[..whole], "{engine} W={w}: the words");
    let users: Vec<u64> = res.packets.iter().flat_map(|p| p.users.clone()).collect();
    assert_eq!(
        users.last().copied(),
        Some(1 | (((stream.len() % 4 != 0) as u64) << 1)),
        "{engine} W={w}: FIN flags"
    );
    assert!(users[..users.len() - 1].iter().all(|&u| u == 0), "{engine} W={w}: FIN before the end");
    assert_eq!(res.pulse_counts, vec![dropped], "{engine} W={w}: dropped segments");
    let gap = sim.port("seq_gap").unwrap();
    assert_eq!(sim.get_u64(gap) & 1, (dropped > 0) as u64, "{engine} W={w}: seq_gap sticky");
    for p in &res.packets {
        assert_eq!(p.data.len() % 4, 0);
    }
}

fn stream(seed: u64, n: usize) -> Vec<u8> {
    let mut r = rng(seed);
    (0..n).map(|_| r.gen()).collect()
}

macro_rules! realigner_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn segments_cut_anywhere_become_whole_words() {
                for (k, max) in [1usize, 3, 5, $w + 1, 3 * $w, 700].into_iter().enumerate() {
                    let s = stream(k as u64 + $w, 600 + k);
                    let mut r = rng(k as u64);
                    let seq = u32::MAX - 100 + k as u32 * 4;
                    let segs = segments(&mut r, &s, seq, max, true);
                    run($engine, $w, &s, &segs, seq, 0, PacketRun::default());
                }
            }

            #[test]
            fn idle_backpressure_and_out_of_sequence_segments() {
                let s = stream(77 + $w, 2000);
                let mut r = rng(5);
                let seq = 1_000_000u32;
                let mut segs = segments(&mut r, &s, seq, 300, true);
                // Retransmissions overlapping what was taken by 1 to 3W + 5 octets (whole beats
                // and part of one to skip) and duplicates (nothing new: dropped without an
                // error), then a segment from the future (a gap: dropped and counted).
                with_retransmissions(&mut r, &s, seq, &mut segs, 3 * $w + 5);
                segs.insert(9, InPacket { data: vec![9; 40], user: (seq + 100_000) as u64 });
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.6, seed: 1 },
                    backpressure: Pattern::Random { p: 0.7, seed: 2 },
                    ..PacketRun::default()
                };
                run($engine, $w, &s, &segs, seq, 1, opts);
            }

            #[test]
            fn a_segment_as_far_beyond_as_a_retransmission_was_trimmed_is_a_gap() {
                // After a retransmission trimmed by t octets (whole beats and part of one), the
                // next expected octet is the retransmission's end, not t octets beyond it: a
                // segment that starts there is out of sequence (dropped, err_seq), and the
                // continuation right behind it is taken. Sequence numbers wrap through 2^32.
                let w: usize = $w;
                // u new octets: 1 (the trimmed beat is the retransmission's last) or W + 2.
                let cases = [1usize, 3, w - 1, w + 1, 2 * w + 3]
                    .into_iter()
                    .flat_map(|t| [1usize, w + 2].map(|u| (t, u)));
                for (k, (t, u)) in cases.enumerate() {
                    let a = 3 * w + 5;
                    let s = stream(k as u64 + 900, a + u + 4 * w + 7);
                    let seq = (u32::MAX - 2 * w as u32).wrapping_add(k as u32);
                    let at = |x: usize| seq.wrapping_add(x as u32);
                    let segs = vec![
                        InPacket::segment(s[..a].to_vec(), seq, false),
                        InPacket::segment(s[a - t..a + u].to_vec(), at(a - t), false),
                        InPacket::segment(vec![0xEE; 2 * w + 1], at(a + u + t), false),
                        InPacket::segment(s[a + u..].to_vec(), at(a + u), true),
                    ];
                    run($engine, w, &s, &segs, seq, 1, PacketRun::default());
                    let opts = PacketRun {
                        idle: Pattern::Random { p: 0.7, seed: k as u64 },
                        backpressure: Pattern::Random { p: 0.6, seed: k as u64 + 1 },
                        ..PacketRun::default()
                    };
                    run($engine, w, &s, &segs, seq, 1, opts);
                }
            }

            #[test]
            fn segments_after_fin_are_dropped_while_its_words_flush() {
                // A FIN segment whose last beat overfills the output beat leaves whole words to
                // flush after it; segments offered right behind it (the continuation, a
                // retransmission, one from the future, another FIN) are taken and dropped: no
                // octet of them comes out, no error, FIN flagged once, on the stream's last beat.
                let w: usize = $w;
                for (k, (first, fin_len)) in [1, 3, w - 1, w + 3]
                    .into_iter()
                    .flat_map(|a| [1, 5, w - 1, w + 5, 2 * w - 3, 2 * w + 5].map(|b| (a, b)))
                    .enumerate()
                {
                    let s = stream(k as u64 + 300, first + fin_len);
                    let seq = 7_000u32.wrapping_add(k as u32 * 13);
                    let end = seq.wrapping_add(s.len() as u32);
                    let segs = vec![
                        InPacket::segment(s[..first].to_vec(), seq, false),
                        InPacket::segment(s[first..].to_vec(), seq.wrapping_add(first as u32), true),
                        InPacket::segment(vec![0xA5; 2 * w + 5], end, false),
                        InPacket::segment(s[s.len() - 1..].to_vec(), end.wrapping_sub(1), false),
                        InPacket::segment(vec![0x5A; 9], end.wrapping_add(1000), false),
                        InPacket::segment(vec![0x3C; 3], end.wrapping_add(2 * w as u32 + 5), true),
                    ];
                    run($engine, w, &s, &segs, seq, 0, PacketRun::default());
                    let opts = PacketRun {
                        backpressure: Pattern::Random { p: 0.5, seed: k as u64 },
                        ..PacketRun::default()
                    };
                    run($engine, w, &s, &segs, seq, 0, opts);
                }
            }
        }
    )*};
}

realigner_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}

#[test]
fn realigner_stream_ending_mid_word_and_empty_fin_segment() {
    for w in [4, 8, 64] {
        let s = stream(3, 101);
        let mut r = rng(9);
        let mut segs = segments(&mut r, &s, 0, 17, false);
        segs.push(InPacket::segment(vec![], 101, true));
        run(Engine::RustHdl, w, &s, &segs, 0, 0, PacketRun::default());
    }
}

/// One connection of [`interleaved_connections`]: its stream and segments, and what the
/// realigner gave for it.
struct Conn {
    stream: Vec<u8>,
    seq: u32,
    misaligned: bool,
    segs: std::collections::VecDeque<InPacket>,
    dropped: u64,
    record: u64,
    out: Vec<u8>,
    users: Vec<u64>,
    lasts: Vec<usize>,
    pulses: u64,
}

/// Several connections' segments interleaved through one realigner built with its context
/// record (DESIGN, "Connection state is explicit"; RFC 5044 B.2): between segments of
/// different connections, once `ctx_idle`, the record of the one served is read out into a
/// table (here, the test's) and the next one's loaded. Each connection must get exactly what it
/// gets alone: its stream as whole words, FIN and lost octets flagged on its last beat, its
/// out-of-sequence segment counted (`err_seq`) and kept sticky in its record, its misaligned
/// flag; a segment after its FIN, offered after a switch back to it, is dropped without an
/// error. With `garbage`, records with random contents are offered with `ctx_load` while a
/// segment is inside (not `ctx_idle`): they must change nothing. Returns the most cycles from
/// a segment's last beat taken to `ctx_idle` (the cost of a switch; without `garbage`) and how
/// many switches came in the cycle of a gap pulse.
fn interleaved_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
    garbage: bool,
) -> (u64, u64) {
    use hdl::rx::realigner::RealignCtx;
    use sim::stream::{ReadyDriver, StreamDriver, StreamPorts};
    let mut r = rng(seed);
    let mut conns: Vec<Conn> = (0..4)
        .map(|c| {
            let stream = stream(seed * 10 + c, r.gen_range(300..1200));
            // Connection 1's sequence numbers wrap through 2^32; connection 2's start is not
            // 4-octet aligned from its origin.
            let seq = if c == 1 { u32::MAX - 60 } else { r.gen() };
            let misaligned = c == 2;
            let origin = seq.wrapping_sub(400 + misaligned as u32);
            let max = [1, 3, w + 1, 3 * w][c as usize % 4].max(2);
            let mut segs = segments(&mut r, &stream, seq, max, true);
            with_retransmissions(&mut r, &stream, seq, &mut segs, 2 * w + 3);
            let mut dropped = 0;
            if c == 3 {
                segs.insert(2, InPacket::segment(vec![7; 3], seq.wrapping_add(50_000), false));
                dropped = 1;
            }
            // After the FIN segment (the driver switches away then), one more: its record,
            // loaded again, says the stream has ended, so it is dropped without an error.
            let end = seq.wrapping_add(stream.len() as u32);
            segs.push(InPacket::segment(vec![0xEE; 6], end, false));
            Conn {
                stream,
                seq,
                misaligned,
                segs: segs.into(),
                dropped,
                record: RealignCtx::fresh(seq, origin).pack(),
                out: vec![],
                users: vec![],
                lasts: vec![],
                pulses: 0,
            }
        })
        .collect();
    let mut sim = sim::rx::realigner_with_context(engine, w).unwrap();
    let sim = sim.as_mut();
    let port = |sim: &dyn sim::CycleSim, n: &str| sim.port(n).unwrap();
    let (ctx_in, ctx_load) = (port(sim, "ctx_in_0"), port(sim, "ctx_load_0"));
    let (ctx_out, ctx_idle) = (port(sim, "ctx_out_0"), port(sim, "ctx_idle_0"));
    let (err_seq, misaligned) = (port(sim, "err_seq"), port(sim, "cfg_misaligned"));
    // Reset to an unrelated stream: every connection's record is loaded before its segments.
    let (cfg_seq, cfg_origin) = (port(sim, "cfg_seq"), port(sim, "cfg_origin"));
    sim.set_u64(cfg_seq, 12345);
    sim.set_u64(cfg_origin, 1);
    sim.set_u64(ctx_load, 0);
    sim.reset(2).unwrap();
    let s = StreamPorts::find(sim, "s_axis").unwrap();
    let m = StreamPorts::find(sim, "m_axis").unwrap();
    let mut src = StreamDriver::new(s, idle);
    let mut snk = ReadyDriver::new(m, backpressure);
    let mut cur: Option<usize> = None;
    // The connection whose segment goes next, picked once the one before is sent; after the
    // out-of-sequence segment, always another one (its record is read out while the gap's
    // pulse is still on its way into the sticky flag).
    let mut pick: Option<usize> = None;
    let mut force_switch = false;
    let mut last_taken: Option<u64> = None;
    let mut worst_switch = 0u64;
    // Switches in the cycle of a gap pulse (its sticky flag not yet set: the record has it).
    let mut gap_switches = 0u64;
    let mut loads = 0usize;
    for _ in 0..400_000u64 {
        let owner = cur;
        let is_idle = sim.get_u64(ctx_idle) & 1 == 1;
        let mut load = false;
        if is_idle {
            if let Some(t) = last_taken.take() {
                worst_switch = worst_switch.max(sim.cycles() - t);
            }
        }
        if src.pending() == 0 {
            // The next segment: the same connection again (no load) or another one.
            let left: Vec<usize> =
                (0..conns.len()).filter(|&c| !conns[c].segs.is_empty()).collect();
            if left.is_empty() {
                if is_idle {
                    let c = cur.unwrap();
                    conns[c].record = sim.get_u64(ctx_out);
                    break;
                }
            } else {
                let c = *pick.get_or_insert_with(|| {
                    testbench::next_connection(&mut r, &left, cur, force_switch)
                });
                // (The out-of-sequence segment is offered once the realigner is idle, so that
                // the switch after it comes in the cycle of its gap pulse.)
                let gap_next = conns[c].segs.front().is_some_and(|g| g.data == [7; 3]);
                if Some(c) == cur && (is_idle || !gap_next) {
                    let g = conns[c].segs.pop_front().unwrap();
                    let fin = hdl::sideband::RxSegmentUser::unpack(g.user).fin;
                    force_switch = g.data == [7; 3] || fin;
                    pick = None;
                    src.push(sim::stream::message_beats(&g.data, w, g.user, 0xA5));
                } else if is_idle {
                    if let Some(p) = cur {
                        conns[p].record = sim.get_u64(ctx_out);
                    }
                    sim.set_u64(ctx_in, conns[c].record);
                    load = true;
                    loads += 1;
                    gap_switches += sim.get_u64(err_seq) & 1;
                    cur = Some(c);
                }
            }
        }
        if !load && garbage && !is_idle && r.gen_bool(0.2) {
            sim.set_u64(ctx_in, r.gen::<u64>());
            load = true;
        }
        sim.set_u64(ctx_load, load as u64);
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        let (sent, got) = (src.sent, snk.beats.len());
        src.sample(sim);
        snk.sample(sim);
        if src.sent > sent && src.pending() == 0 && !garbage {
            last_taken = Some(sim.cycles());
        }
        if let Some(o) = owner {
            let k = &mut conns[o];
            if snk.beats.len() > got {
                let b = &snk.beats[got].1;
                for i in 0..w {
                    if (b.keep >> i) & 1 == 1 {
                        k.out.push(b.data[i]);
                    }
                }
                k.users.push(b.user);
                if b.last {
                    k.lasts.push(k.out.len());
                }
            }
            k.pulses += sim.get_u64(err_seq) & 1;
            if !is_idle {
                assert_eq!(
                    sim.get_u64(misaligned) & 1 == 1,
                    k.misaligned,
                    "{engine} W={w}: connection {o}'s misaligned flag"
                );
            }
        } else {
            assert_eq!(snk.beats.len(), got, "{engine} W={w}: a beat out before any connection");
        }
        sim.tick();
    }
    assert!(conns.iter().all(|c| c.segs.is_empty()), "{engine} W={w}: timed out");
    assert!(loads >= 8, "{engine} W={w}: only {loads} switches");
    for (i, c) in conns.iter().enumerate() {
        let whole = c.stream.len() / 4 * 4;
        assert_eq!(c.out.len(), whole, "{engine} W={w} connection {i}: octets out");
        assert_eq!(c.out[..], c.stream[..whole], "{engine} W={w} connection {i}: the words");
        let fin = 1 | (((c.stream.len() % 4 != 0) as u64) << 1);
        assert_eq!(c.users.last().copied(), Some(fin), "{engine} W={w} connection {i}: FIN");
        assert!(c.users[..c.users.len() - 1].iter().all(|&u| u == 0), "connection {i}: early FIN");
        assert!(c.lasts.iter().all(|&n| n % 4 == 0), "connection {i}: packets of whole words");
        assert_eq!(c.pulses, c.dropped, "{engine} W={w} connection {i}: dropped segments");
        let rec = RealignCtx::unpack(c.record);
        let end = c.seq.wrapping_add(c.stream.len() as u32);
        assert_eq!(rec.exp_seq, end as u64, "{engine} W={w} connection {i}: record's sequence");
        assert!(rec.done, "{engine} W={w} connection {i}: record's FIN");
        assert_eq!(rec.gap, c.dropped > 0, "{engine} W={w} connection {i}: record's gap");
        assert_eq!(rec.misaligned, c.misaligned, "{engine} W={w} connection {i}: misaligned");
        assert_eq!(rec.held_n, (c.stream.len() % 4) as u64, "connection {i}: octets held");
    }
    (worst_switch, gap_switches)
}

macro_rules! context_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn interleaved_connections_get_what_each_gets_alone() {
                // Without idle or backpressure a switch costs the pipeline's drain: from a
                // segment's last beat taken to `ctx_idle`, at most 8 cycles: the input slice,
                // two more when that beat is also a retransmission's first (its trim is
                // registered), the decision into the op register, a flush of whole words left,
                // the apply stage into the output queue, the queue, the beat taken.
                let (worst, gap_switches) =
                    interleaved_connections($engine, $w, 1, Pattern::Always, Pattern::Always, false);
                assert!(worst <= 8, "{} W={}: a switch waited {worst} cycles", $engine, $w);
                assert!(gap_switches > 0, "{} W={}: no switch in a gap pulse's cycle", $engine, $w);
                let idle = Pattern::Random { p: 0.7, seed: 3 };
                let bp = Pattern::Random { p: 0.6, seed: 4 };
                interleaved_connections($engine, $w, 2, idle, bp, false);
            }

            #[test]
            fn a_record_offered_while_a_segment_is_inside_changes_nothing() {
                let bp = Pattern::Random { p: 0.7, seed: 5 };
                interleaved_connections($engine, $w, 3, Pattern::Always, bp, true);
            }
        }
    )*};
}

context_tests! {
    ctx_rusthdl_w4: sim::Engine::RustHdl, 4;
    ctx_rusthdl_w8: sim::Engine::RustHdl, 8;
    ctx_rusthdl_w16: sim::Engine::RustHdl, 16;
    ctx_rusthdl_w32: sim::Engine::RustHdl, 32;
    ctx_rusthdl_w64: sim::Engine::RustHdl, 64;
    ctx_verilator_w4: sim::Engine::Verilator, 4;
    ctx_verilator_w8: sim::Engine::Verilator, 8;
    ctx_verilator_w16: sim::Engine::Verilator, 16;
    ctx_verilator_w32: sim::Engine::Verilator, 32;
    ctx_verilator_w64: sim::Engine::Verilator, 64;
}
