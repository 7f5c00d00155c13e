//! `RxRelease` (RFC 5044 section 6 verify-before-release, section 8 nothing after an error): a
//! ULPDU leaves only after its last beat arrived good; a bad one is dropped and becomes one
//! error packet; nothing leaves after it. A 16-beat buffer is filled to the largest packet it
//! accepts (15 beats) under backpressure: no deadlock, nothing lost. Every test runs on
//! `RxRelease` and on one connection's region of `RxReleaseRegions` (16 regions; one of 16
//! beats when small), which must behave the same (its several connections are tested in
//! `mpa_rx_ctx.rs`).

use hdl::sideband::RxUlpduUser;
use rand::Rng;
use sim::packet::{run_packets, InPacket, Packet, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;

/// `user` as an error packet with section 8 `code`.
fn with_error(user: u64, code: u64) -> u64 {
    RxUlpduUser { err: true, code, ..RxUlpduUser::unpack(user) }.pack()
}

/// A ULPDU packet as the Marker stripper hands it on: sequence number and length on every beat.
fn good(seq: u32, data: Vec<u8>) -> InPacket {
    let user = RxUlpduUser { seq: seq as u64, len: data.len() as u64, ..Default::default() }.pack();
    InPacket { data, user }
}

fn random_ulpdus(seed: u64, n: usize, max: usize) -> Vec<InPacket> {
    let mut r = rng(seed);
    (0..n)
        .map(|i| {
            let len = match r.gen_range(0..4) {
                0 => 0,
                1 => max,
                _ => r.gen_range(0..=max),
            };
            good(1000 * i as u32, (0..len).map(|_| r.gen()).collect())
        })
        .collect()
}

/// `RxRelease` (16 beats when `small`, 16 KiB otherwise), or with `regions` one connection of
/// `RxReleaseRegions` (16 regions of 16 beats when `small`, of 1 KiB otherwise).
fn build(w: usize, small: bool, regions: bool) -> Box<dyn sim::CycleSim> {
    if regions {
        sim::rx::release_regions(Engine::RustHdl, w, small).unwrap()
    } else {
        sim::rx::release(Engine::RustHdl, w, small).unwrap()
    }
}

fn run(
    w: usize,
    small: bool,
    regions: bool,
    input: &[InPacket],
    opts: &PacketRun,
) -> (Vec<Packet>, u64) {
    let mut sim = build(w, small, regions);
    let opts = PacketRun { pulses: vec!["dropped".into()], ..opts.clone() };
    let res = run_packets(sim.as_mut(), input, &opts).unwrap();
    (res.packets, res.pulse_counts[0])
}

fn assert_same(w: usize, out: &[Packet], want: &[InPacket]) {
    assert_eq!(out.len(), want.len(), "W={w}: packet count");
    for (i, (p, u)) in out.iter().zip(want).enumerate() {
        assert_eq!(p.data, u.data, "W={w}: ULPDU {i}");
        assert!(p.users.iter().all(|&x| x == u.user), "W={w}: ULPDU {i} sideband");
    }
}

#[test]
fn a_full_small_buffer_passes_everything_under_backpressure() {
    for w in [4usize, 8, 16, 32, 64] {
        // 16 beats: the largest packet is 15 beats.
        let input = random_ulpdus(w as u64, 60, 15 * w);
        for (idle, bp) in [(1.0, 1.0), (1.0, 0.3), (0.5, 0.9), (0.8, 0.5)] {
            let opts = PacketRun {
                idle: Pattern::Random { p: idle, seed: w as u64 },
                backpressure: Pattern::Random { p: bp, seed: 7 },
                ..PacketRun::default()
            };
            for regions in [false, true] {
                let (out, dropped) = run(w, true, regions, &input, &opts);
                assert_eq!(dropped, 0);
                assert_same(w, &out, &input);
            }
        }
    }
}

#[test]
fn packets_are_held_until_their_last_beat() {
    // No output beat of a packet before the input's last beat of that packet.
    for (w, regions) in [4usize, 8, 64].into_iter().flat_map(|w| [(w, false), (w, true)]) {
        let mut sim = build(w, false, regions);
        // A region of 1 KiB holds at most 1024 - W octets of ULPDU.
        let max = if regions { (40 * w).min(1024 - w) } else { 40 * w };
        let input = random_ulpdus(10 + w as u64, 30, max);
        let opts = PacketRun { idle: Pattern::Random { p: 0.5, seed: 3 }, ..PacketRun::default() };
        let res = run_packets(sim.as_mut(), &input, &opts).unwrap();
        assert_same(w, &res.packets, &input);
        for (i, p) in res.packets.iter().enumerate() {
            assert!(
                p.first_cycle >= res.in_last_cycles[i] + 3,
                "W={w} packet {i}: out at {} before its last beat in at {} + 3",
                p.first_cycle,
                res.in_last_cycles[i]
            );
        }
        // Nothing ahead and no backpressure: exactly the documented latency (one more with
        // regions: the read side's current descriptor register).
        let single = run_packets(sim.as_mut(), &input[1..2], &PacketRun::default()).unwrap();
        let latency = if regions { 4 } else { 3 };
        let got = single.packets[0].first_cycle - single.in_last_cycles[0];
        assert_eq!(got, latency, "W={w} regions {regions}: latency");
    }
}

#[test]
fn a_bad_ulpdu_is_dropped_and_nothing_follows() {
    for w in [4usize, 8, 16, 32, 64] {
        for (small, regions) in [(true, false), (false, false), (true, true), (false, true)] {
            let mut r = rng(w as u64 + small as u64);
            let max = match (small, regions) {
                (true, _) => 15 * w,
                (false, false) => 100 * w,
                (false, true) => (100 * w).min(1024 - w),
            };
            let mut input = random_ulpdus(20 + w as u64, 12, max);
            let bad_at = r.gen_range(0..input.len());
            let code = r.gen_range(1..4u64);
            // The Marker stripper's error packet: the octets it had sent, then a null beat.
            let keep = (r.gen_range(0..=input[bad_at].data.len()) / w) * w;
            input[bad_at].data.truncate(keep);
            let user = input[bad_at].user;
            let mut with_err = input[..bad_at].to_vec();
            with_err.push(InPacket { data: input[bad_at].data.clone(), user });
            let opts = PacketRun {
                backpressure: Pattern::Random { p: 0.5, seed: 1 },
                pulses: vec!["dropped".into()],
                ..PacketRun::default()
            };
            // The null beat: appended as a separate one-beat packet is not the same thing, so
            // build the error packet's beats here: data beats, then the flagged null beat.
            let mut sim = build(w, small, regions);
            let s = sim::stream::StreamPorts::find(sim.as_ref(), "s_axis").unwrap();
            let mut beats = sim::packet::packet_beats(&with_err, s.width, 0);
            if keep > 0 {
                beats.last_mut().unwrap().last = false;
            } else {
                beats.pop();
            }
            let mut null = sim::stream::message_beats(&[], w, with_error(user, code), 0);
            beats.append(&mut null);
            beats.extend(sim::packet::packet_beats(&input[bad_at + 1..], w, 0));
            let res = sim::packet::run_beats(sim.as_mut(), beats, &opts).unwrap();
            let out = &res.packets;
            assert_eq!(out.len(), bad_at + 1, "W={w}: nothing after the error packet");
            assert_same(w, &out[..bad_at], &input[..bad_at]);
            let e = &out[bad_at];
            assert_eq!(e.data.len(), 0, "W={w}: the error packet is one null beat");
            assert_eq!(e.users, vec![with_error(user, code)], "W={w}: error sideband");
            assert_eq!(res.pulse_counts, vec![1], "W={w}: one drop");
        }
    }
}

#[test]
fn one_beat_per_cycle_in_and_out_for_one_beat_packets() {
    for (w, regions) in [4usize, 8, 16, 32, 64].into_iter().flat_map(|w| [(w, false), (w, true)]) {
        let input: Vec<InPacket> =
            (0..300).map(|i| good(i, vec![i as u8; 1 + i as usize % w])).collect();
        let mut sim = build(w, false, regions);
        let res = run_packets(sim.as_mut(), &input, &PacketRun::default()).unwrap();
        assert_same(w, &res.packets, &input);
        let in_span = res.in_last_cycles.last().unwrap() - res.in_first_cycles[0] + 1;
        let out_span = res.packets.last().unwrap().last_cycle - res.packets[0].first_cycle + 1;
        assert_eq!(in_span, 300, "W={w}: input beats per cycle");
        assert_eq!(out_span, 300, "W={w}: output beats per cycle");
    }
}

/// Expected output of one region: (octets, every beat's sideband) per packet.
type Expected = Vec<(Vec<u8>, Vec<u64>)>;

/// `RxReleaseRegions` with several regions and loads between runs: two connections (regions 3
/// and 9 of 16, 16 beats each) alternate, each run a few ULPDUs that end with nothing open, an
/// open ULPDU, or a bad ULPDU and beats after it. After the last two the region is reused with
/// `RelCtx::renew` of its saved record (a new stream in the same region): the open ULPDU's beats
/// are dropped, the bad one's slots freed by its error packet. Each region is offered 67 to
/// 94 times its size in beats (at least 20 asserted), so slots not freed would stop it. Every W, with idle and backpressure:
/// each connection gets, tagged with it (`m_conn`), exactly its complete good ULPDUs and one
/// error packet per bad ULPDU, in its order.
#[test]
fn regions_are_reused_after_an_error_and_after_an_open_ulpdu() {
    use hdl::rx::release_regions::RelCtx;
    use sim::stream::{message_beats, Beat, ReadyDriver, StreamDriver, StreamPorts};
    let regions = [3u64, 9];
    for w in [4usize, 8, 16, 32, 64] {
        let mut r = rng(40 + w as u64);
        // Runs: (region index, beats, the region is renewed after it).
        let mut runs: Vec<(usize, Vec<Beat>, bool)> = vec![];
        let mut want: Vec<Expected> = vec![vec![], vec![]];
        let mut seq = 0u32;
        for i in 0..120 {
            let c = i % 2;
            let mut beats = vec![];
            for _ in 0..r.gen_range(1..4) {
                let len = r.gen_range(0..=15 * w);
                let data: Vec<u8> = (0..len).map(|_| r.gen()).collect();
                let user = good(seq, vec![0; len]).user;
                seq = seq.wrapping_add(1000);
                beats.extend(message_beats(&data, w, user, 0x5A));
                let n = message_beats(&data, w, user, 0).len();
                want[c].push((data, vec![user; n]));
            }
            let end = r.gen_range(0..4);
            let len = r.gen_range(w + 1..=15 * w);
            let data: Vec<u8> = (0..len).map(|_| r.gen()).collect();
            let user = good(seq, vec![0; len]).user;
            seq = seq.wrapping_add(1000);
            let full = message_beats(&data, w, user, 0x5A);
            match end {
                // An open ULPDU: its first beats only; renewed, they are dropped.
                0 => beats.extend(full[..r.gen_range(1..full.len())].iter().cloned()),
                // A bad ULPDU: some of its beats, then the error beat, then beats dropped.
                1 => {
                    let k = r.gen_range(0..full.len());
                    beats.extend(full[..k].iter().map(|b| Beat { last: false, ..b.clone() }));
                    let e = with_error(user, r.gen_range(1..4));
                    beats.extend(message_beats(&[], w, e, 0));
                    beats.extend(message_beats(&data, w, user, 0x5A));
                    want[c].push((vec![], vec![e]));
                }
                _ => {}
            }
            runs.push((c, beats, end < 2));
        }
        // Beats offered to each region (16 beats): many times its size, so that slots not freed
        // would stop it.
        for c in 0..2 {
            let n: usize = runs.iter().filter(|x| x.0 == c).map(|x| x.1.len()).sum();
            eprintln!(
                "W={w} region {}: {n} beats offered, {:.0} times its size",
                regions[c],
                n as f64 / 16.0
            );
            assert!(n >= 20 * 16, "W={w} region {}: only {n} beats", regions[c]);
        }
        let mut sim = sim::rx::release_regions(Engine::RustHdl, w, true).unwrap();
        let sim = sim.as_mut();
        let p = |n: &str| sim.port(n).unwrap();
        let (ctx_in, ctx_load, ctx_out, m_conn) =
            (p("ctx_in"), p("ctx_load"), p("ctx_out"), p("m_conn"));
        let mut src = StreamDriver::new(
            StreamPorts::find(sim, "s_axis").unwrap(),
            Pattern::Random { p: 0.7, seed: w as u64 },
        );
        let mut snk = ReadyDriver::new(
            StreamPorts::find(sim, "m_axis").unwrap(),
            Pattern::Random { p: 0.5, seed: 9 },
        );
        sim.set_u64(ctx_load, 0);
        sim.reset(2).unwrap();
        let mut rec: Vec<RelCtx> = regions.iter().map(|&c| RelCtx::fresh(c as u8)).collect();
        let mut renew = [false, false];
        let mut cur: Option<usize> = None;
        let mut got: Vec<Expected> = vec![vec![], vec![]];
        let mut open: Vec<(Vec<u8>, Vec<u64>)> = vec![Default::default(); 2];
        let (mut next, mut quiet) = (0, 0);
        for _ in 0..400_000 {
            let mut load = false;
            if src.pending() == 0 && next < runs.len() {
                let (c, beats, renewed) = runs[next].clone();
                if cur != Some(c) || renew[c] {
                    if let Some(o) = cur {
                        rec[o] = RelCtx::unpack(sim.get_u64(ctx_out));
                    }
                    if renew[c] {
                        rec[c] = RelCtx::renew(rec[c]);
                    }
                    sim.set_u64(ctx_in, rec[c].pack());
                    load = true;
                    cur = Some(c);
                }
                renew[c] = renewed;
                src.push(beats);
                next += 1;
            }
            sim.set_u64(ctx_load, load as u64);
            src.drive(sim);
            snk.drive(sim);
            sim.eval();
            let n = snk.beats.len();
            src.sample(sim);
            snk.sample(sim);
            quiet += 1;
            if snk.beats.len() > n {
                quiet = 0;
                let id = sim.get_u64(m_conn);
                let c = regions.iter().position(|&x| x == id).expect("a known connection");
                let b = &snk.beats[n].1;
                open[c].0.extend((0..w).filter(|i| (b.keep >> i) & 1 == 1).map(|i| b.data[i]));
                open[c].1.push(b.user);
                if b.last {
                    got[c].push(std::mem::take(&mut open[c]));
                }
            }
            sim.tick();
            if next == runs.len() && src.pending() == 0 && quiet > 200 {
                break;
            }
        }
        for c in 0..2 {
            assert_eq!(got[c].len(), want[c].len(), "W={w} region {}: packets", regions[c]);
            for (i, (g, e)) in got[c].iter().zip(&want[c]).enumerate() {
                assert_eq!(g, e, "W={w} region {} packet {i}", regions[c]);
            }
        }
    }
}
