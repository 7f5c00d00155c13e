//! `RxFpduWalker` (RFC 5044 section 6, 4.3): every FPDU's first and last word marked, checked
//! against the golden framer's FPDUs (Markers inside and leading, every start position from the
//! origin, ULPDUs from 0 octets to the limit) at every width on both engines, with idle and
//! backpressure; a ULPDU_Length above the limit marks its beat `bad` and nothing after it; a
//! stream that ends inside an FPDU has its start marked and no end.

use golden::fpdu::FramingConfig;
use hdl::sideband::{RxWalkUser, RxWordUser};
use rand::Rng;
use sim::packet::{run_packets, InPacket, Packet, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::rx::word_stream;
use testbench::tx::framed_fpdus;

const ULPDU_MAX: u64 = golden::mulpdu::ULPDU_MAX as u64;

struct Case {
    markers: bool,
    /// Stream position of the first FPDU from the Marker origin (octets).
    offset: u32,
    seq: u32,
    max_ulpdu: u64,
}

impl Case {
    fn settings(&self) -> Vec<(String, u64)> {
        vec![
            ("cfg_seq".into(), self.seq as u64),
            ("cfg_origin".into(), self.seq.wrapping_sub(self.offset) as u64),
            ("cfg_markers".into(), self.markers as u64),
            ("cfg_max_ulpdu".into(), self.max_ulpdu),
        ]
    }
}

/// What the walker must mark, by word index from the stream's start.
#[derive(Default)]
struct Marks {
    first: Vec<usize>,
    last: Vec<usize>,
    /// Word index of the header with a ULPDU_Length above the limit.
    bad_header: Option<usize>,
}

/// The marks of `fpdus` (whole FPDUs as the golden framer makes them) in a stream of `words`
/// words; FPDU `bad` (if any) has a ULPDU_Length above the limit.
fn expected(case: &Case, fpdus: &[Vec<u8>], words: usize, bad: Option<usize>) -> Marks {
    let mut m = Marks::default();
    let mut at = 0usize;
    for (i, f) in fpdus.iter().enumerate() {
        let w0 = at / 4;
        if w0 >= words {
            break;
        }
        m.first.push(w0);
        if Some(i) == bad {
            let leading = case.markers && (case.offset as usize + at) % 512 == 0;
            m.bad_header = Some(w0 + leading as usize);
            break;
        }
        let w_end = (at + f.len()) / 4;
        if w_end <= words {
            m.last.push(w_end - 1);
        }
        at += f.len();
    }
    m
}

/// Runs `stream` (whole words) through the walker and checks every beat's marks.
fn check(
    engine: Engine,
    w: usize,
    case: &Case,
    stream: &[u8],
    marks: &Marks,
    seed: u64,
    opts: PacketRun,
) -> sim::packet::PacketResult {
    let mut sim = sim::rx::walker(engine, w).unwrap();
    let mut r = rng(seed);
    let input: Vec<InPacket> = word_stream(&mut r, stream, w, false);
    let opts = PacketRun { settings: case.settings(), ..opts };
    let res = run_packets(sim.as_mut(), &input, &opts).unwrap();
    verify(engine, w, &input, &res.packets, marks);
    res
}

/// Checks the walker's output `packets` for `input` (the same beats, with every beat's marks).
fn verify(engine: Engine, w: usize, input: &[InPacket], packets: &[Packet], marks: &Marks) {
    assert_eq!(packets.len(), input.len(), "{engine} W={w}: packets");
    let mut word = 0usize;
    let mut bad_seen = false;
    for (k, (p, i)) in packets.iter().zip(input).enumerate() {
        assert_eq!(p.data, i.data, "{engine} W={w}: packet {k}'s words");
        let beats = i.data.len().div_ceil(w).max(1);
        assert_eq!(p.users.len(), beats, "{engine} W={w}: packet {k}'s beats");
        for (b, &u) in p.users.iter().enumerate() {
            let n = (i.data.len() - b * w).min(w) / 4;
            let f = RxWalkUser::unpack(u);
            let mut first = 0u64;
            let mut last = 0u64;
            for j in 0..n {
                if marks.first.contains(&(word + j)) {
                    first |= 1 << j;
                }
                if marks.last.contains(&(word + j)) {
                    last |= 1 << j;
                }
            }
            let bad = marks.bad_header.is_some_and(|h| (word..word + n).contains(&h));
            let at = format!("{engine} W={w}: packet {k} beat {b} (words {word}..{})", word + n);
            assert_eq!(f.first, first, "{at}: first marks");
            assert_eq!(f.last, last, "{at}: last marks");
            assert_eq!(f.bad, bad, "{at}: bad");
            bad_seen |= f.bad;
            let fin = k + 1 == input.len() && b + 1 == beats;
            assert_eq!(f.fin, fin, "{at}: FIN");
            word += n;
        }
    }
    assert_eq!(bad_seen, marks.bad_header.is_some(), "{engine} W={w}: the bad header");
}

fn ulpdus(seed: u64, n: usize, max: usize) -> Vec<Vec<u8>> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| {
            let len = match r.gen_range(0..10) {
                0 => r.gen_range(0..=max),
                1..=4 => r.gen_range(0..=16),
                _ => r.gen_range(0..=max.min(300)),
            };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect()
}

fn check_fpdus(
    engine: Engine,
    w: usize,
    case: &Case,
    seed: u64,
    n: usize,
    max: usize,
    opts: PacketRun,
) {
    let cfg = FramingConfig { markers: case.markers, crc: true, offset: case.offset };
    let fpdus = framed_fpdus(cfg, &ulpdus(seed, n, max));
    let stream: Vec<u8> = fpdus.concat();
    let marks = expected(case, &fpdus, stream.len() / 4, None);
    check(engine, w, case, &stream, &marks, seed, opts);
}

/// Several connections' word streams (the realigner's packets: one per segment) interleaved
/// packet by packet through one walker built with its context record (DESIGN, "Connection
/// state is explicit"; RFC 5044 B.2): between packets of different connections, once the
/// walker is not `busy`, the record of the one served is read out into the test's table, and
/// the next one's loaded with its `cfg_markers` / `cfg_max_ulpdu`. Each connection must get
/// exactly the marks it gets alone (Markers on from three origins, off, a ULPDU_Length above
/// the limit after which nothing is marked). A packet of a connection that comes right after
/// a switch back to it starts at its recorded position. Records with random contents offered
/// while beats are inside must change nothing. Returns the switches made and how many records
/// were saved with `hdr_only` and with `dead` set.
fn interleaved_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> (usize, usize, usize) {
    use hdl::rx::walker::WalkCtx;
    use sim::stream::{message_beats, ReadyDriver, StreamDriver, StreamPorts};
    let mut r = rng(seed);
    let cases = [
        Case { markers: true, offset: 508, seq: 0x1234_5678, max_ulpdu: ULPDU_MAX },
        Case { markers: false, offset: 12, seq: u32::MAX - 40, max_ulpdu: ULPDU_MAX },
        Case { markers: true, offset: 0, seq: 77, max_ulpdu: 250 },
        Case { markers: true, offset: 1000, seq: 5, max_ulpdu: ULPDU_MAX },
    ];
    struct Conn {
        input: std::collections::VecDeque<InPacket>,
        all: Vec<InPacket>,
        marks: Marks,
        record: u64,
        out: Vec<Packet>,
        cur: Packet,
    }
    let mut conns: Vec<Conn> = cases
        .iter()
        .enumerate()
        .map(|(k, case)| {
            let cfg = FramingConfig { markers: case.markers, crc: true, offset: case.offset };
            let ulps = ulpdus(seed * 10 + k as u64, 30, 400);
            let bad = ulps.iter().position(|u| u.len() as u64 > case.max_ulpdu);
            let fpdus = framed_fpdus(cfg, &ulps);
            let stream: Vec<u8> = fpdus.concat();
            let marks = expected(case, &fpdus, stream.len() / 4, bad);
            let mut all = word_stream(&mut r, &stream, w, false);
            if case.offset == 0 {
                // The stream starts with a leading Marker: a first packet of that word alone
                // leaves its FPDU's header for the next packet (`hdr_only` in the record,
                // across the switch that follows it).
                let rest = all[0].data.split_off(4);
                if !rest.is_empty() {
                    all.insert(1, InPacket { data: rest, user: all[0].user });
                    all[0].user = 0;
                }
            }
            let origin = case.seq.wrapping_sub(case.offset);
            Conn {
                input: all.clone().into(),
                all,
                marks,
                record: WalkCtx::fresh(case.seq, origin).pack(),
                out: vec![],
                cur: Packet::default(),
            }
        })
        .collect();
    assert!(conns[2].marks.bad_header.is_some(), "a ULPDU above the limit in connection 2");
    let mut sim = sim::rx::walker_with_context(engine, w).unwrap();
    let sim = sim.as_mut();
    let port = |sim: &dyn sim::CycleSim, n: &str| sim.port(n).unwrap();
    let (ctx_in, ctx_load, ctx_out) =
        (port(sim, "ctx_in_0"), port(sim, "ctx_load_0"), port(sim, "ctx_out_0"));
    let (busy, markers, max_ulpdu) =
        (port(sim, "busy"), port(sim, "cfg_markers"), port(sim, "cfg_max_ulpdu"));
    // Reset to an unrelated stream: every connection's record is loaded before its words.
    for (n, v) in [("cfg_seq", 999), ("cfg_origin", 0), ("cfg_markers", 1), ("cfg_max_ulpdu", 9)] {
        let p = port(sim, n);
        sim.set_u64(p, v);
    }
    sim.set_u64(ctx_load, 0);
    sim.reset(2).unwrap();
    let mut src = StreamDriver::new(StreamPorts::find(sim, "s_axis").unwrap(), idle);
    let mut snk = ReadyDriver::new(StreamPorts::find(sim, "m_axis").unwrap(), backpressure);
    let mut cur: Option<usize> = None;
    let mut pick: Option<usize> = None;
    let mut force_switch = false;
    let mut switches = 0usize;
    // Records saved with a header after a leading Marker pending, and after a ULPDU above the
    // limit.
    let (mut hdr_saves, mut dead_saves) = (0usize, 0usize);
    for _ in 0..2_000_000u64 {
        let owner = cur;
        let is_idle = sim.get_u64(busy) & 1 == 0;
        let mut load = false;
        if src.pending() == 0 {
            let left: Vec<usize> =
                (0..conns.len()).filter(|&c| !conns[c].input.is_empty()).collect();
            if left.is_empty() {
                if is_idle {
                    break;
                }
            } else {
                let c = *pick.get_or_insert_with(|| {
                    testbench::next_connection(&mut r, &left, cur, force_switch)
                });
                if Some(c) == cur {
                    force_switch =
                        cases[c].offset == 0 && conns[c].input.len() == conns[c].all.len();
                    let p = conns[c].input.pop_front().unwrap();
                    src.push(message_beats(&p.data, w, p.user, 0x5A));
                    pick = None;
                } else if is_idle {
                    if let Some(p) = cur {
                        conns[p].record = sim.get_u64(ctx_out);
                        let saved = WalkCtx::unpack(conns[p].record);
                        hdr_saves += saved.hdr_only as usize;
                        dead_saves += saved.dead as usize;
                    }
                    sim.set_u64(ctx_in, conns[c].record);
                    sim.set_u64(markers, cases[c].markers as u64);
                    sim.set_u64(max_ulpdu, cases[c].max_ulpdu);
                    load = true;
                    switches += 1;
                    cur = Some(c);
                }
            }
        }
        // Now and then a record with random contents offered while beats are inside: ignored.
        if !load && !is_idle && r.gen_bool(0.1) {
            sim.set_u64(ctx_in, r.gen::<u64>());
            load = true;
        }
        sim.set_u64(ctx_load, load as u64);
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        let got = snk.beats.len();
        src.sample(sim);
        snk.sample(sim);
        if snk.beats.len() > got {
            let o = owner.expect("a beat out before any connection");
            let b = &snk.beats[got].1;
            let k = &mut conns[o];
            k.cur.data.extend((0..w).filter(|i| (b.keep >> i) & 1 == 1).map(|i| b.data[i]));
            k.cur.users.push(b.user);
            if b.last {
                let p = std::mem::take(&mut k.cur);
                k.out.push(p);
            }
        }
        sim.tick();
    }
    for (i, c) in conns.iter().enumerate() {
        assert!(c.input.is_empty(), "{engine} W={w}: connection {i} not sent");
        verify(engine, w, &c.all, &c.out, &c.marks);
    }
    (switches, hdr_saves, dead_saves)
}

macro_rules! walker_context_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        fn $name() {
            let (n, hdr, dead) =
                interleaved_connections($engine, $w, 1, Pattern::Always, Pattern::Always);
            assert!(n >= 20, "{} W={}: only {n} switches", $engine, $w);
            assert!(hdr > 0 && dead > 0, "{} W={}: records saved with hdr_only {hdr}, dead {dead}", $engine, $w);
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            interleaved_connections($engine, $w, 4, idle, bp);
        }
    )*};
}

walker_context_tests! {
    interleaved_connections_rusthdl_w4: Engine::RustHdl, 4;
    interleaved_connections_rusthdl_w8: Engine::RustHdl, 8;
    interleaved_connections_rusthdl_w16: Engine::RustHdl, 16;
    interleaved_connections_rusthdl_w32: Engine::RustHdl, 32;
    interleaved_connections_rusthdl_w64: Engine::RustHdl, 64;
    interleaved_connections_verilator_w4: Engine::Verilator, 4;
    interleaved_connections_verilator_w8: Engine::Verilator, 8;
    interleaved_connections_verilator_w16: Engine::Verilator, 16;
    interleaved_connections_verilator_w32: Engine::Verilator, 32;
    interleaved_connections_verilator_w64: Engine::Verilator, 64;
}

macro_rules! walker_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn fpdus_with_markers_from_every_start() {
                for (k, off) in [0u32, 4, 508, 504, 512 - 4 * ($w as u32 / 4), 1000, 2044, 256].into_iter().enumerate() {
                    let case = Case { markers: true, offset: off, seq: 7u32.wrapping_sub(off) ^ 0x8000_0000, max_ulpdu: ULPDU_MAX };
                    check_fpdus($engine, $w, &case, k as u64 * 31 + $w, 60, 2000, PacketRun::default());
                }
            }

            #[test]
            fn fpdus_without_markers() {
                let case = Case { markers: false, offset: 12, seq: u32::MAX - 40, max_ulpdu: ULPDU_MAX };
                check_fpdus($engine, $w, &case, 3 + $w, 80, 3000, PacketRun::default());
            }

            #[test]
            fn idle_and_backpressure() {
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.6, seed: 11 },
                    backpressure: Pattern::Random { p: 0.5, seed: 12 },
                    ..PacketRun::default()
                };
                for markers in [true, false] {
                    let case = Case { markers, offset: 496, seq: 1234, max_ulpdu: ULPDU_MAX };
                    check_fpdus($engine, $w, &case, 99 + $w, 80, 1200, opts.clone());
                }
            }
        }
    )*};
}

walker_tests! {
    rusthdl_w4: Engine::RustHdl, 4;
    rusthdl_w8: Engine::RustHdl, 8;
    rusthdl_w16: Engine::RustHdl, 16;
    rusthdl_w32: Engine::RustHdl, 32;
    rusthdl_w64: Engine::RustHdl, 64;
    verilator_w8: Engine::Verilator, 8;
    verilator_w64: Engine::Verilator, 64;
}

/// The largest ULPDU (64768 octets: 127 Markers inside) and the smallest, from Marker-leading
/// and other starts.
#[test]
fn largest_and_smallest_ulpdus() {
    for w in [4, 16, 64] {
        for off in [0u32, 4, 500] {
            let case = Case { markers: true, offset: off, seq: 0xFFFF_0000, max_ulpdu: ULPDU_MAX };
            let cfg = FramingConfig { markers: true, crc: true, offset: off };
            let us = vec![
                vec![],
                vec![0x55; ULPDU_MAX as usize],
                vec![],
                vec![1; 2],
                vec![],
                vec![2; 64768 - 3],
            ];
            let fpdus = framed_fpdus(cfg, &us);
            let stream = fpdus.concat();
            let marks = expected(&case, &fpdus, stream.len() / 4, None);
            check(Engine::RustHdl, w, &case, &stream, &marks, 5, PacketRun::default());
        }
    }
}

/// A ULPDU_Length above the limit, the FPDU at every word position from the origin (so that it
/// also starts with a Marker, whose header may be in the next beat): its beat is marked bad and
/// nothing is marked after it.
#[test]
fn ulpdu_length_above_the_limit_stops_the_marks() {
    for w in [4, 8, 16, 64] {
        for markers in [false, true] {
            for pos in (0..512u32).step_by(4).filter(|p| !markers || p % 64 < 8 || p % 64 > 56) {
                let case = Case { markers, offset: pos, seq: 3, max_ulpdu: 100 };
                let cfg = FramingConfig { markers, crc: true, offset: pos };
                let mut us = ulpdus(5 + pos as u64, 6, 100);
                us[0] = vec![];
                let bad = 1 + (pos as usize / 4) % 4;
                us[bad] = vec![1; 101];
                let fpdus = framed_fpdus(cfg, &us);
                let stream = fpdus.concat();
                let marks = expected(&case, &fpdus, stream.len() / 4, Some(bad));
                check(Engine::RustHdl, w, &case, &stream, &marks, pos as u64, PacketRun::default());
            }
        }
    }
}

/// A stream that ends inside an FPDU (after any of its words): the FPDU's start is marked, its
/// end is not.
#[test]
fn stream_ending_inside_an_fpdu() {
    for w in [4, 8, 64] {
        let case = Case { markers: true, offset: 480, seq: 9, max_ulpdu: ULPDU_MAX };
        let cfg = FramingConfig { markers: true, crc: true, offset: 480 };
        let fpdus = framed_fpdus(cfg, &ulpdus(77, 8, 200));
        let stream = fpdus.concat();
        let total = stream.len() / 4;
        for cut in (1..total).step_by(3) {
            let marks = expected(&case, &fpdus, cut, None);
            check(
                Engine::RustHdl,
                w,
                &case,
                &stream[..cut * 4],
                &marks,
                cut as u64,
                PacketRun::default(),
            );
        }
    }
}

/// Throughput: one beat per cycle with FPDUs of at least a beat, no idle, no backpressure; and
/// with 16-octet ULPDUs (24-octet FPDUs) one cycle per FPDU start at most.
#[test]
fn one_beat_per_cycle() {
    for w in [4, 8, 16, 32, 64] {
        let case = Case { markers: true, offset: 0, seq: 0, max_ulpdu: ULPDU_MAX };
        let cfg = FramingConfig { markers: true, crc: true, offset: 0 };
        for (len, n) in [(1448usize, 40usize), (16, 400)] {
            let us: Vec<Vec<u8>> = (0..n).map(|i| vec![i as u8; len]).collect();
            let fpdus = framed_fpdus(cfg, &us);
            let stream: Vec<u8> = fpdus.concat();
            let marks = expected(&case, &fpdus, stream.len() / 4, None);
            // One input packet: the whole stream in full beats.
            let mut sim = sim::rx::walker(Engine::RustHdl, w).unwrap();
            let input = vec![InPacket {
                data: stream.clone(),
                user: RxWordUser { fin: true, lost: false }.pack(),
            }];
            let opts = PacketRun { settings: case.settings(), ..PacketRun::default() };
            let res = run_packets(sim.as_mut(), &input, &opts).unwrap();
            let p = &res.packets[0];
            // Eight cycles, one more per FPDU start after the first in the first beat.
            let first_starts = RxWalkUser::unpack(p.users[0]).first.count_ones() as u64;
            assert_eq!(
                p.first_cycle - res.in_first_cycles[0],
                7 + first_starts,
                "W={w}: latency from the first beat in to the first beat out"
            );
            let beats = p.users.len() as u64;
            let cycles = p.last_cycle - p.first_cycle + 1;
            let starts: u64 =
                p.users.iter().map(|&u| RxWalkUser::unpack(u).first.count_ones() as u64).sum();
            assert_eq!(starts as usize, marks.first.len(), "W={w}: every start marked");
            let extra: u64 = p
                .users
                .iter()
                .map(|&u| (RxWalkUser::unpack(u).first.count_ones() as u64).saturating_sub(1))
                .sum();
            assert!(
                cycles <= beats + extra + 1,
                "W={w} ULPDU {len}: {cycles} cycles for {beats} beats with {extra} second starts"
            );
            if len >= 1448 {
                assert!(
                    beats as f64 / cycles as f64 >= 0.99,
                    "W={w}: {beats} beats in {cycles} cycles"
                );
            }
        }
    }
}

/// FPDUs that end at every distance (in words) around a Marker, with one to three Markers
/// inside: ULPDUs near multiples of 508 octets (127 words between Markers), so the FPDU ends
/// drift through every position of the Marker period.
#[test]
fn fpdus_ending_next_to_markers() {
    for w in [4, 8, 16, 64] {
        let mut r = rng(40 + w as u64);
        let us: Vec<Vec<u8>> = (0..120)
            .map(|_| {
                let k = r.gen_range(1..=3usize);
                let len = (k * 508).saturating_sub(6) + r.gen_range(0..=24) - 12;
                vec![0xA5; len]
            })
            .collect();
        for off in [0u32, 8, 508] {
            let case = Case { markers: true, offset: off, seq: 100, max_ulpdu: ULPDU_MAX };
            let cfg = FramingConfig { markers: true, crc: true, offset: off };
            let fpdus = framed_fpdus(cfg, &us);
            let stream = fpdus.concat();
            let marks = expected(&case, &fpdus, stream.len() / 4, None);
            check(Engine::RustHdl, w, &case, &stream, &marks, 1, PacketRun::default());
        }
    }
}

/// The walker built with its context ports (not a top, so not in `export.rs`'s lists) passes
/// Yosys `check -assert` and Verilator's lint with width warnings, at both ends of the widths.
#[test]
fn walker_with_context_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    use hdl::rx::walker::RxFpduWalker;
    testbench::check_block_verilog_w4_w64!("rx_fpdu_walker_ctx", RxFpduWalker, with_context);
}
