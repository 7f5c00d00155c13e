//! `RxRealignerTable` (DESIGN "Connection state is explicit", RFC 5044 B.2 and A.4): segments of
//! several connections interleaved in any order of connections, cut anywhere, with
//! retransmissions and an out-of-sequence segment, through one realigner and its table of
//! context records, at every width on both engines, with idle and backpressure. Each
//! connection must get what it gets alone: its stream as whole words tagged with it, FIN and
//! lost octets flagged on its last beat, its dropped segment reported with its number. Then two
//! connections start a new stream from a new record written through the table port (one of them
//! the connection loaded, whose record must then not be written back over the new one).

use hdl::rx::realign_table::{RealignCtx, RxConnSegmentUser, RxConnWordUser};
use rand::Rng;
use sim::stream::{message_beats, Beat, Pattern, ReadyDriver, StreamDriver, StreamPorts};
use sim::{CycleSim, Engine};
use testbench::rng;
use testbench::rx::{segments, with_retransmissions};

/// One stream of one connection.
struct Stream {
    conn: u64,
    seq: u32,
    origin: u32,
    octets: Vec<u8>,
    /// Segments: (octets, sequence number, FIN).
    segs: Vec<(Vec<u8>, u32, bool)>,
    dropped: u64,
}

fn stream_for(r: &mut rand_chacha::ChaCha8Rng, conn: u64, w: usize, k: usize, gap: bool) -> Stream {
    let n = r.gen_range(200..900);
    let octets: Vec<u8> = (0..n).map(|_| r.gen()).collect();
    let seq = if k == 1 { u32::MAX - 40 } else { r.gen() };
    let origin = seq.wrapping_sub(400 + (k == 2) as u32);
    let max = [1, 3, w + 1, 3 * w, 40][k % 5].max(2);
    let mut segs = segments(r, &octets, seq, max, true);
    with_retransmissions(r, &octets, seq, &mut segs, 2 * w + 3);
    if gap {
        segs.insert(2, sim::packet::InPacket::segment(vec![7; 3], seq.wrapping_add(90_000), false));
    }
    // A segment after FIN: dropped without an error (the record says the stream has ended).
    let end = seq.wrapping_add(n as u32);
    segs.push(sim::packet::InPacket::segment(vec![0xEE; 6], end, false));
    let segs = segs
        .into_iter()
        .map(|p| {
            let u = hdl::sideband::RxSegmentUser::unpack(p.user);
            (p.data, u.seq as u32, u.fin)
        })
        .collect();
    Stream { conn, seq, origin, octets, segs, dropped: gap as u64 }
}

/// What came out for one connection.
#[derive(Default)]
struct Got {
    octets: Vec<u8>,
    /// (octets out so far, user) of every beat with a nonzero FIN/lost field.
    flags: Vec<(usize, u64)>,
    drops: u64,
}

/// Records written through the table port while [`run`] streams: `background`'s now and then
/// (30 % of the cycles), `first`'s in the cycle the first beat is offered.
#[derive(Clone, Copy, Default)]
struct Writes {
    background: Option<(u64, u64)>,
    first: Option<(u64, u64)>,
}

/// Writes records through the table port, one per cycle.
fn write_records(sim: &mut dyn CycleSim, recs: &[(u64, u64)]) {
    let (we, conn, rec) =
        (sim.port("tbl_we").unwrap(), sim.port("tbl_conn").unwrap(), sim.port("tbl_rec").unwrap());
    for &(c, v) in recs {
        sim.set_u64(we, 1);
        sim.set_u64(conn, c);
        sim.set_u64(rec, v);
        sim.eval();
        sim.tick();
    }
    sim.set_u64(we, 0);
    sim.eval();
}

/// Streams the segments of `streams`, interleaved (each connection's in order), and collects
/// each connection's words until the output is quiet.
fn run(
    sim: &mut dyn CycleSim,
    r: &mut rand_chacha::ChaCha8Rng,
    streams: &[Stream],
    w: usize,
    (idle, backpressure): (Pattern, Pattern),
    got: &mut std::collections::BTreeMap<u64, Got>,
    writes: Writes,
) {
    let mut next = vec![0usize; streams.len()];
    let mut beats: Vec<Beat> = vec![];
    loop {
        let left: Vec<usize> =
            (0..streams.len()).filter(|&i| next[i] < streams[i].segs.len()).collect();
        if left.is_empty() {
            break;
        }
        let i = left[r.gen_range(0..left.len())];
        // Now and then several segments of the same connection back to back.
        for _ in 0..r.gen_range(1..=3) {
            if next[i] == streams[i].segs.len() {
                break;
            }
            let (data, seq, fin) = &streams[i].segs[next[i]];
            let user = RxConnSegmentUser { seq: *seq as u64, fin: *fin, conn: streams[i].conn };
            beats.extend(message_beats(data, w, user.pack(), 0x5A));
            next[i] += 1;
        }
    }
    let s = StreamPorts::find(sim, "s_axis").unwrap();
    let m = StreamPorts::find(sim, "m_axis").unwrap();
    let (err_seq, err_conn) = (sim.port("err_seq").unwrap(), sim.port("err_conn").unwrap());
    let (we, wconn, wrec) =
        (sim.port("tbl_we").unwrap(), sim.port("tbl_conn").unwrap(), sim.port("tbl_rec").unwrap());
    let total = beats.len();
    let mut src = StreamDriver::new(s, idle);
    let mut snk = ReadyDriver::new(m, backpressure);
    src.push(beats);
    let mut quiet = 0;
    let limit = 40 * total as u64 + 2000;
    let start = sim.cycles();
    while quiet < 40 {
        assert!(sim.cycles() - start < limit, "W={w}: {} of {total} beats taken", src.sent);
        src.drive(sim);
        snk.drive(sim);
        // A record written through the port while segments switch (it has the write port
        // first: a switch waits for a cycle without it).
        let bg = if sim.cycles() == start {
            writes.first
        } else {
            writes.background.filter(|_| r.gen_bool(0.3))
        };
        sim.set_u64(we, bg.is_some() as u64);
        if let Some((c, v)) = bg {
            sim.set_u64(wconn, c);
            sim.set_u64(wrec, v);
        }
        sim.eval();
        let n = snk.beats.len();
        src.sample(sim);
        snk.sample(sim);
        if sim.get_u64(err_seq) & 1 == 1 {
            got.entry(sim.get_u64(err_conn)).or_default().drops += 1;
        }
        if snk.beats.len() > n {
            let b = &snk.beats[n].1;
            let u = RxConnWordUser::unpack(b.user);
            let g = got.entry(u.conn).or_default();
            g.octets.extend((0..w).filter(|i| (b.keep >> i) & 1 == 1).map(|i| b.data[i]));
            if u.fin || u.lost {
                g.flags.push((g.octets.len(), b.user & 3));
            }
        }
        let busy = src.pending() > 0 || sim.get_u64(sim.port("busy").unwrap()) & 1 == 1;
        quiet = if busy || snk.beats.len() > n { 0 } else { quiet + 1 };
        sim.tick();
    }
    sim.set_u64(we, 0);
}

/// The words, FIN flags and drops a connection must get for its streams in order.
fn check(engine: Engine, w: usize, conn: u64, streams: &[&Stream], g: &Got) {
    let mut words = vec![];
    let mut flags = vec![];
    for s in streams {
        let whole = s.octets.len() / 4 * 4;
        words.extend_from_slice(&s.octets[..whole]);
        flags.push((words.len(), 1 | (((s.octets.len() % 4 != 0) as u64) << 1)));
    }
    assert_eq!(g.octets.len(), words.len(), "{engine} W={w} connection {conn}: octets out");
    assert_eq!(g.octets, words, "{engine} W={w} connection {conn}: the words");
    assert_eq!(g.flags, flags, "{engine} W={w} connection {conn}: FIN / lost flags");
    let drops: u64 = streams.iter().map(|s| s.dropped).sum();
    assert_eq!(g.drops, drops, "{engine} W={w} connection {conn}: dropped segments");
}

fn interleaved(engine: Engine, w: usize, seed: u64, idle: Pattern, backpressure: Pattern) {
    let mut r = rng(seed);
    let conns = [0u64, 3, 7, 12, 15, 9];
    let first: Vec<Stream> =
        conns[..5].iter().enumerate().map(|(k, &c)| stream_for(&mut r, c, w, k, k == 3)).collect();
    let mut sim = sim::rx::realigner_table(engine, w).unwrap();
    let sim = sim.as_mut();
    sim.set_u64(sim.port("tbl_we").unwrap(), 0);
    sim.reset(2).unwrap();
    let recs: Vec<(u64, u64)> =
        first.iter().map(|s| (s.conn, RealignCtx::fresh(s.seq, s.origin).pack())).collect();
    write_records(sim, &recs);
    // Connection 9's record is written over and over while the first streams run.
    let late = stream_for(&mut r, 9, w, 6, false);
    let late_rec = (9, RealignCtx::fresh(late.seq, late.origin).pack());
    let mut got = Default::default();
    let patterns = (idle, backpressure);
    let writes = Writes { background: Some(late_rec), first: None };
    run(sim, &mut r, &first, w, patterns.clone(), &mut got, writes);
    // New streams: on the connection loaded now (the last segment's), from a new record, and
    // on connection 9.
    let loaded = {
        let m = StreamPorts::find(sim, "m_axis").unwrap();
        RxConnWordUser::unpack(sim.get_u64(m.user)).conn
    };
    let again = stream_for(&mut r, loaded, w, 5, false);
    write_records(sim, &[(loaded, RealignCtx::fresh(again.seq, again.origin).pack())]);
    let second = vec![again, late];
    run(sim, &mut r, &second, w, patterns, &mut got, Writes::default());
    for &c in &conns {
        let mine: Vec<&Stream> = first.iter().chain(&second).filter(|s| s.conn == c).collect();
        let empty = Got::default();
        check(engine, w, c, &mine, got.get(&c).unwrap_or(&empty));
    }
    assert!(got.keys().all(|c| conns.contains(c)), "{engine} W={w}: words of no connection");
}

/// A new record written for the connection loaded in the very cycle its next segment's first
/// beat is offered: that segment waits and goes on with the new record (taken with the old
/// one, whose stream had ended, it would be dropped, and the next segment would be a gap).
fn write_with_the_next_segment(engine: Engine, w: usize) {
    let mut r = rng(11);
    let mut sim = sim::rx::realigner_table(engine, w).unwrap();
    let sim = sim.as_mut();
    sim.set_u64(sim.port("tbl_we").unwrap(), 0);
    sim.reset(2).unwrap();
    let one = stream_for(&mut r, 5, w, 3, false);
    write_records(sim, &[(5, RealignCtx::fresh(one.seq, one.origin).pack())]);
    let mut got = Default::default();
    let patterns = (Pattern::Always, Pattern::Always);
    run(sim, &mut r, std::slice::from_ref(&one), w, patterns.clone(), &mut got, Writes::default());
    let two = stream_for(&mut r, 5, w, 4, false);
    let rec = (5, RealignCtx::fresh(two.seq, two.origin).pack());
    let writes = Writes { background: None, first: Some(rec) };
    run(sim, &mut r, std::slice::from_ref(&two), w, patterns, &mut got, writes);
    check(engine, w, 5, &[&one, &two], &got[&5]);
}

macro_rules! table_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        fn $name() {
            interleaved($engine, $w, 1, Pattern::Always, Pattern::Always);
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            interleaved($engine, $w, 4, idle, bp);
            write_with_the_next_segment($engine, $w);
        }
    )*};
}

table_tests! {
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

/// The table block's exported Verilog (the realigner with its context ports inside; not a top,
/// so not in `export.rs`'s lists) passes Yosys `check -assert` and Verilator's lint with width
/// warnings, at both ends of the widths.
#[test]
fn realigner_table_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    use hdl::rx::realign_table::RxRealignerTable;
    testbench::check_block_verilog_w4_w64!("rx_realigner_table", RxRealignerTable, new);
}

/// The cost of a switch, measured (`sim::rx::realigner_table_rate`, also in `make bench`):
/// 1448-octet and 64-octet segments of 4 connections in turn, against the same segments of one
/// connection (no switch), at every W; the floors are the measured rates less about 0.01.
#[test]
fn round_robin_connections_rate_at_every_width() {
    let floors =
        [(4, 0.79, 0.98), (8, 0.66, 0.97), (16, 0.49, 0.95), (32, 0.33, 0.91), (64, 0.19, 0.84)];
    for (w, small_min, big_min) in floors {
        let rate = |n, len| sim::rx::realigner_table_rate(Engine::RustHdl, w, n, len).unwrap();
        let (one, big, small) = (rate(1, 1448), rate(4, 1448), rate(4, 64));
        assert!(one >= 0.99, "W={w}: one connection at {one:.3} beats per cycle");
        assert!(big >= big_min, "W={w}: four connections' 1448-octet segments at {big:.3}");
        assert!(small >= small_min, "W={w}: four connections' 64-octet segments at {small:.3}");
    }
}
