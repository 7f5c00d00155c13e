//! `MpaRxCtx`: the receive datapath of `mpa_rx` serving several connections, its blocks' state
//! in context records and its release buffer cut into a region per connection (DESIGN,
//! "Connection state is explicit"; RFC 5044 sections 6 and 8, Appendix B.2). Four connections'
//! TCP payload segments, cut anywhere and with retransmissions, are interleaved segment by
//! segment; between connections the path is flushed and its records swapped, while verified
//! ULPDUs of any connection leave tagged with it (`m_conn`). Every width, both engines, idle and
//! backpressure: each connection gets exactly the ULPDUs, error packet and CRC error pulses it
//! gets alone through `mpa_rx` (its rust-hdl model) with the same ULPDU_Length limit. The rust-hdl
//! rows of `MpaRxCtx` and `MpaRxTable` at W = 16 and 32 run in `make test-extra` (stop 78):
//! `MpaRxConns`, which holds both, runs on the rust-hdl model at every W here, and `MpaRxCtx` on
//! Verilator at every W.

use golden::fpdu::FramingConfig;
use hdl::rx::mpa_rx_ctx::RelCtx;
use hdl::rx::verify::{CrcCtx, CutCtx, RealignCtx, StripCtx, WalkCtx};
use hdl::sideband::{RxSegmentUser, RxUlpduUser};
use rand::Rng;
use sim::packet::{run_packets, InPacket, Packet, PacketRun};
use sim::stream::{message_beats, Pattern};
use sim::Engine;
use testbench::interleave::{assert_as_alone, run as run_interleaved, CtxConn, CtxPorts};
use testbench::rng;
use testbench::rx::{segments, with_retransmissions};
use testbench::tx::framed_fpdus;

const ULPDU_MAX: u64 = golden::mulpdu::ULPDU_MAX as u64;
/// Regions of the release buffer: 16 KiB / 16, about 1 KiB per connection (960 to 1,020
/// octets of ULPDU at W = 64 to 4), so that a region fills and its input waits.
const REGIONS: usize = 16;

#[derive(Clone)]
struct Case {
    /// The connection's index (its region).
    conn: u8,
    markers: bool,
    crc: bool,
    /// Stream position of the first FPDU from the Marker origin (octets).
    offset: u32,
    seq: u32,
    max_ulpdu: u64,
}

impl Case {
    fn origin(&self) -> u32 {
        self.seq.wrapping_sub(self.offset)
    }
}

fn ulpdus(r: &mut impl Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = if r.gen_bool(0.3) { r.gen_range(0..=900) } else { r.gen_range(0..=120) };
            (0..len).map(|_| r.gen()).collect()
        })
        .collect()
}

/// What `mpa_rx` alone says about a connection beside its packets: its `err_seq` pulses, its
/// `seq_gap` and `cfg_misaligned` at the end, and its `dropped` and `err_marker` pulses.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct Flags {
    seq_errs: u64,
    gap: bool,
    misaligned: bool,
    drops: u64,
    marker_errs: u64,
}

impl Flags {
    /// What is compared per connection (the pulses of the release buffer may come while
    /// another connection is loaded: their totals are compared).
    fn per_connection(&self) -> (u64, bool, bool) {
        (self.seq_errs, self.gap, self.misaligned)
    }
}

/// The packets (octets, every beat's sideband), CRC errors and flags of `input` through
/// `mpa_rx` alone, with `max_ulpdu` as the region clamps it.
fn alone(w: usize, case: &Case, max_ulpdu: u64, input: &[InPacket]) -> ((Vec<Packet>, u64), Flags) {
    let mut sim = sim::rx::mpa_rx(Engine::RustHdl, w).unwrap();
    let opts = PacketRun {
        settings: vec![
            ("cfg_seq".into(), case.seq as u64),
            ("cfg_origin".into(), case.origin() as u64),
            ("cfg_markers".into(), case.markers as u64),
            ("cfg_crc".into(), case.crc as u64),
            ("cfg_max_ulpdu".into(), max_ulpdu),
        ],
        pulses: vec!["err_crc".into(), "err_seq".into(), "dropped".into(), "err_marker".into()],
        ..Default::default()
    };
    let res = run_packets(sim.as_mut(), input, &opts).unwrap();
    let mut level = |n: &str| {
        let p = sim.port(n).unwrap();
        sim.get_u64(p) & 1 == 1
    };
    let flags = Flags {
        seq_errs: res.pulse_counts[1],
        gap: level("seq_gap"),
        misaligned: level("cfg_misaligned"),
        drops: res.pulse_counts[2],
        marker_errs: res.pulse_counts[3],
    };
    ((res.packets, res.pulse_counts[0]), flags)
}

/// Four connections' traffic: their cases, TCP payload segments (with retransmissions), what
/// each gets alone through `mpa_rx`, and their first records (the nine parts).
struct Traffic {
    cases: [Case; 4],
    inputs: Vec<Vec<InPacket>>,
    refs: Vec<(Vec<Packet>, u64)>,
    records: Vec<Vec<Vec<u64>>>,
    flags: Vec<Flags>,
}

fn traffic(engine: Engine, w: usize, r: &mut rand_chacha::ChaCha8Rng) -> Traffic {
    let cases = [
        Case { conn: 0, markers: true, crc: true, offset: 508, seq: 0xFFFF_F000, max_ulpdu: 900 },
        // Its limit is clamped to the region: a 1,100-octet ULPDU is code 2.
        Case { conn: 5, markers: false, crc: false, offset: 12, seq: 1234, max_ulpdu: ULPDU_MAX },
        Case { conn: 10, markers: true, crc: true, offset: 0, seq: 77, max_ulpdu: 800 },
        Case { conn: 15, markers: true, crc: true, offset: 1000, seq: 5, max_ulpdu: 900 },
    ];
    let (mut inputs, mut refs, mut records, mut flags) = (vec![], vec![], vec![], vec![]);
    for (k, case) in cases.iter().enumerate() {
        let (input, alone, record, f) = stream(w, k, case, r);
        inputs.push(input);
        refs.push(alone);
        records.push(record);
        flags.push(f);
    }
    let code = |p: &[Packet]| {
        let u = RxUlpduUser::unpack(*p.last().unwrap().users.last().unwrap());
        (u.err, u.code)
    };
    let what = format!("{engine} W={w}");
    for (k, (want, pulses)) in [(1, ((true, 2), 0)), (2, ((true, 2), 0)), (3, ((true, 2), 1))] {
        assert_eq!((code(&refs[k].0), refs[k].1), (want, pulses), "{what}: connection {k} alone");
    }
    assert!(!code(&refs[0].0).0, "{what}: connection 0 alone ends without an error");
    Traffic { cases, inputs, refs, records, flags }
}

/// What a connection gets alone: its packets and CRC errors.
type Alone = (Vec<Packet>, u64);

/// One connection's stream (`kind` 0 to 3 as in [`traffic`], 4: thirty ULPDUs, nothing
/// wrong, 5: the same with its middle octet lost, a gap): its segments, what it gets alone
/// through `mpa_rx`, its first records and its flags alone.
fn stream(
    w: usize,
    kind: usize,
    case: &Case,
    r: &mut rand_chacha::ChaCha8Rng,
) -> (Vec<InPacket>, Alone, Vec<Vec<u64>>, Flags) {
    let region_max = sim::rx::mpa_rx_ctx_max_ulpdu(w, REGIONS).unwrap() as u64;
    let words = (8 * w).div_ceil(64);
    let k = kind;
    {
        // (A misaligned start is framed from the 4-octet grid below it: the framer takes
        // aligned offsets only; without Markers the octets are the same.)
        assert!(!case.markers || case.offset.is_multiple_of(4));
        let offset = case.offset & !3;
        let cfg = FramingConfig { markers: case.markers, crc: case.crc, offset };
        let mut u = ulpdus(r, 30);
        if k == 1 {
            u[25] = vec![3; 1100];
        }
        if k == 2 {
            // Above connection 2's limit at ULPDU 24 only: code 2 from the delineator.
            u.iter_mut().for_each(|x| x.truncate(800));
            u[24] = vec![7; 850];
        }
        let mut fpdus = framed_fpdus(cfg, &u);
        if k == 3 {
            // One octet damaged in FPDU 20: code 2 from the CRC check.
            let n = fpdus[20].len();
            fpdus[20][n / 2] ^= 0x08;
        }
        let stream: Vec<u8> = fpdus.concat();
        let mut input = segments(r, &stream, case.seq, 3 * w + 40, k != 1);
        with_retransmissions(r, &stream, case.seq, &mut input, 30);
        if k == 5 {
            // Every segment holding the stream's middle octet lost: a gap that stays.
            let mid = stream.len() / 2;
            input.retain(|g| {
                let start = (RxSegmentUser::unpack(g.user).seq as u32).wrapping_sub(case.seq);
                !(start as usize..start as usize + g.data.len()).contains(&mid)
            });
        }
        let (alone, flags) = alone(w, case, case.max_ulpdu.min(region_max), &input);
        let o = case.origin();
        let record = vec![
            vec![RealignCtx::fresh(case.seq, o).pack()],
            vec![WalkCtx::fresh(case.seq, o).pack()],
            vec![CutCtx::fresh(case.seq, o).pack()],
            vec![0; words],
            vec![CrcCtx::default().pack()],
            vec![StripCtx::default().pack()],
            vec![0; words],
            vec![0],
            vec![RelCtx::fresh(case.conn).pack()],
        ];
        (input, alone, record, flags)
    }
}

/// What one interleaved run saw: switches, output beats that left while another connection
/// was served, cycles per switch.
struct Seen {
    switches: usize,
    cross_beats: u64,
    cycles: Vec<u64>,
}

fn interleaved_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> Seen {
    let mut r = rng(seed);
    let t = traffic(engine, w, &mut r);
    let mut conns: Vec<CtxConn> = (0..4)
        .map(|k| {
            let case = &t.cases[k];
            let settings = vec![case.markers as u64, case.crc as u64, case.max_ulpdu];
            let runs =
                t.inputs[k].iter().map(|p| message_beats(&p.data, w, p.user, 0x5A)).collect();
            let mut c = CtxConn::with_runs(runs, t.records[k].clone(), settings);
            c.conn_id = case.conn as u64;
            c
        })
        .collect();
    let what = format!("{engine} W={w}");
    let mut sim = sim::rx::mpa_rx_ctx(engine, w, REGIONS).unwrap();
    let sim = sim.as_mut();
    let mut ports = CtxPorts::find(
        sim,
        &[
            ("ctx_realign_in_0", "ctx_realign_out_0"),
            ("ctx_walk_in_0", "ctx_walk_out_0"),
            ("ctx_cut_in_0", "ctx_cut_out_0"),
            ("ctx_cut_words_in_0", "ctx_cut_words_out_0"),
            ("ctx_crc_in_0", "ctx_crc_out_0"),
            ("ctx_strip_in_0", "ctx_strip_out_0"),
            ("ctx_strip_words_in_0", "ctx_strip_words_out_0"),
            ("ctx_end_in_0", "ctx_end_out_0"),
            ("ctx_rel_in_0", "ctx_rel_out_0"),
        ],
        "ctx_idle_0",
        true,
        Some("ctx_flush_0"),
        &["cfg_markers", "cfg_crc", "cfg_max_ulpdu"],
        Some("err_crc"),
    );
    ports.conn_out = Some(sim.port("m_conn").unwrap());
    // Reset to an unrelated stream: every connection's records are loaded before its segments.
    for (n, v) in [("cfg_seq", 999), ("cfg_origin", 0), ("cfg_markers", 1), ("cfg_max_ulpdu", 9)] {
        let p = sim.port(n).unwrap();
        sim.set_u64(p, v);
    }
    sim.set_u64(ports.load, 0);
    sim.set_u64(ports.flush.unwrap(), 0);
    sim.reset(2).unwrap();
    let res = run_interleaved(sim, w, &ports, &mut conns, &mut r, idle, backpressure, 4_000_000);
    assert_as_alone(&what, &conns, &t.refs);
    // Each record saved names its connection.
    for rec in &res.saved {
        let rel = RelCtx::unpack(rec[8][0]);
        assert!(t.cases.iter().any(|c| c.conn as u64 == rel.conn), "{what}: record {rel:?}");
    }
    Seen { switches: res.switches, cross_beats: res.cross_beats, cycles: res.switch_cycles }
}

/// The same four connections through `MpaRxTable`: opened through its table port after `rst`
/// (start, Marker origin, settings: the block builds the records), their segments tagged with
/// the connection and interleaved (a run of one to three segments of a connection at a time),
/// the block swapping records by itself. Once every segment has been taken, two connections
/// are opened again (new starts and settings, thirty ULPDUs) while the path still holds the
/// last: the one loaded and another, both ended (one with its error, unless the other three
/// are loaded); the one loaded opened misaligned (its start 2 octets off its Marker origin's
/// 4-octet grid), the other's stream with a gap. Each connection's `err_seq` pulses, and its
/// `seq_gap` and `cfg_misaligned` as last seen while it was loaded, are those of `mpa_rx`
/// alone. Returns the switches, the cycles each waited (`switching`) and the beats that
/// left while another connection was loaded.
fn table_connections(
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> Seen {
    connections_through(Host::Port, engine, w, seed, idle, backpressure)
}

/// How the host opens connections: `MpaRxTable`'s port, or `MpaRxConns`'s AXI4-Lite registers.
#[derive(Clone, Copy, PartialEq)]
enum Host {
    Port,
    Axil,
}

/// The AXI4-Lite writes that open `case`'s connection (OPEN_SEQ, OPEN_ORIGIN, OPEN_SET, OPEN).
fn open_ops(case: &Case) -> Vec<sim::place::AxilOp> {
    use hdl::rx::conn_regs::conn_reg;
    use sim::place::AxilOp;
    let limit = case.max_ulpdu.min(0xFFFF) as u32;
    let set = case.markers as u32 | (case.crc as u32) << 1 | limit << 16;
    vec![
        AxilOp::write(conn_reg::OPEN_SEQ, case.seq),
        AxilOp::write(conn_reg::OPEN_ORIGIN, case.origin()),
        AxilOp::write(conn_reg::OPEN_SET, set),
        AxilOp::write(conn_reg::OPEN, case.conn as u32),
    ]
}

/// [`table_connections`]' run with the host's side through `host`; through the registers it
/// also checks, at the end, what they read back against the pins and `mpa_rx` alone.
fn connections_through(
    host: Host,
    engine: Engine,
    w: usize,
    seed: u64,
    idle: Pattern,
    backpressure: Pattern,
) -> Seen {
    use hdl::rx::mpa_rx_table::RxConnSegmentUser;
    use sim::stream::{ReadyDriver, StreamDriver, StreamPorts};
    let mut r = rng(seed);
    let mut t = traffic(engine, w, &mut r);
    let (what, mut sim) = match host {
        Host::Port => (format!("{engine} W={w} table"), sim::rx::mpa_rx_table(engine, w).unwrap()),
        Host::Axil => (format!("{engine} W={w} conns"), sim::rx::mpa_rx_conns(engine, w).unwrap()),
    };
    let sim = sim.as_mut();
    let p = |n: &str| sim.port(n).unwrap();
    // The table's port (through the registers, `m_conn` stands in: it is never driven).
    let q = |n: &str| sim.port(n).unwrap_or_else(|_| sim.port("m_conn").unwrap());
    let (we, tconn, tseq, torigin) = (q("tbl_we"), q("tbl_conn"), q("tbl_seq"), q("tbl_origin"));
    let (tmk, tcrc, tmax) = (q("tbl_markers"), q("tbl_crc_on"), q("tbl_max_ulpdu"));
    let (m_conn, err_crc, err_conn, switching) =
        (p("m_conn"), p("err_crc"), p("err_conn"), p("switching"));
    let (seq_gap, misaligned, err_seq) = (p("seq_gap"), p("cfg_misaligned"), p("err_seq"));
    let (err_marker, dropped) = (p("err_marker"), p("dropped"));
    let (in_valid, in_ready) = (p("s_axis_tvalid"), p("s_axis_tready"));
    let mut src = StreamDriver::new(StreamPorts::find(sim, "s_axis").unwrap(), idle);
    let mut snk = ReadyDriver::new(StreamPorts::find(sim, "m_axis").unwrap(), backpressure.clone());
    let mut axil = match host {
        Host::Port => None,
        Host::Axil => Some(sim::place::AxilMaster::new(sim, "s_axil", backpressure).unwrap()),
    };
    if host == Host::Port {
        sim.set_u64(we, 0);
    }
    sim.reset(2).unwrap();
    // The host opens a connection: its start, Marker origin and settings (the block builds
    // the records).
    let write = |sim: &mut dyn sim::CycleSim, case: &Case| {
        sim.set_u64(we, 1);
        sim.set_u64(tconn, case.conn as u64);
        sim.set_u64(tseq, case.seq as u64);
        sim.set_u64(torigin, case.origin() as u64);
        sim.set_u64(tmk, case.markers as u64);
        sim.set_u64(tcrc, case.crc as u64);
        sim.set_u64(tmax, case.max_ulpdu);
    };
    let mut last_opened = t.cases[3].clone();
    match axil.as_mut() {
        None => {
            for k in 0..4 {
                write(sim, &t.cases[k]);
                sim.eval();
                sim.tick();
            }
            sim.set_u64(we, 0);
        }
        Some(m) => {
            for case in &t.cases {
                open_ops(case).into_iter().for_each(|op| m.push(op));
            }
            for _ in 0..2000 {
                m.drive(sim);
                sim.eval();
                m.sample(sim).unwrap();
                sim.tick();
                if m.idle() {
                    break;
                }
            }
            assert!(m.idle(), "{what}: the opening writes were not answered");
        }
    }
    // Segments, a run of one to three of a connection at a time.
    let order = |r: &mut rand_chacha::ChaCha8Rng, inputs: &[(usize, &Vec<InPacket>)]| {
        let mut order = vec![];
        let mut next = vec![0usize; inputs.len()];
        let mut cur = None;
        loop {
            let left: Vec<usize> =
                (0..inputs.len()).filter(|&i| next[i] < inputs[i].1.len()).collect();
            if left.is_empty() {
                return order;
            }
            let i = testbench::next_connection(r, &left, cur, false);
            for _ in 0..r.gen_range(1..=3) {
                if next[i] < inputs[i].1.len() {
                    order.push((inputs[i].0, inputs[i].1[next[i]].clone()));
                    next[i] += 1;
                }
            }
            cur = Some(i);
        }
    };
    let beats = |k: usize, g: &InPacket| {
        let f = RxSegmentUser::unpack(g.user);
        let user = RxConnSegmentUser { seq: f.seq, fin: f.fin, conn: t.cases[k].conn as u64 };
        message_beats(&g.data, w, user.pack(), 0x5A)
    };
    let first: Vec<(usize, &Vec<InPacket>)> = t.inputs.iter().enumerate().collect();
    for (k, g) in order(&mut r, &first) {
        src.push(beats(k, &g));
    }
    let index = |id: u64| t.cases.iter().position(|c| c.conn as u64 == id).unwrap();
    let mut got: Vec<Vec<Packet>> = vec![vec![]; 4];
    let mut open: Vec<Packet> = vec![Packet::default(); 4];
    let mut pulses = [0u64; 4];
    // Each connection's err_seq pulses, and its seq_gap and cfg_misaligned as last seen while
    // it was loaded.
    let mut seen_flags = [Flags::default(); 4];
    let (mut quiet, mut cycles, mut waiting, mut cross) = (0u64, vec![], 0u64, 0u64);
    let mut second = false;
    // Host writes waiting for their cycle (made in the loop, so that every cycle's output is
    // sampled).
    let mut writes: std::collections::VecDeque<Case> = Default::default();
    // The new streams' segments, sent once their records are written.
    let mut later: Vec<Vec<sim::stream::Beat>> = vec![];
    let (mut marker_pulses, mut dropped_pulses) = (0u64, 0u64);
    for _ in 0..8_000_000u64 {
        match axil.as_mut() {
            None => {
                sim.set_u64(we, 0);
                if let Some(case) = writes.pop_front() {
                    write(sim, &case);
                } else {
                    for b in later.drain(..) {
                        src.push(b);
                    }
                }
            }
            Some(m) => {
                // The registers' writes, one transaction at a time; the new streams' segments
                // once every write is answered (OPEN's pulse comes before its answer).
                while let Some(case) = writes.pop_front() {
                    open_ops(&case).into_iter().for_each(|op| m.push(op));
                    last_opened = case.clone();
                }
                if m.idle() {
                    for b in later.drain(..) {
                        src.push(b);
                    }
                }
                m.drive(sim);
            }
        }
        if src.pending() == 0 && !second {
            // Every segment taken: new streams for the connection loaded and another one.
            second = true;
            let a = index(sim.get_u64(err_conn));
            let b = (a + 1 + r.gen_range(0..3)) % 4;
            let mut renewed = vec![];
            // The one loaded opened with its start 2 octets off its Marker origin's 4-octet
            // grid (misaligned), the other with two segments lost (a gap).
            for (k, kind, markers, offset, seq) in
                [(a, 4, false, 202, 0x7FFF_FF00u32), (b, 5, true, 40, 3_000_000)]
            {
                let case =
                    Case { conn: t.cases[k].conn, markers, crc: true, offset, seq, max_ulpdu: 900 };
                let (input, alone, _, f) = stream(w, kind, &case, &mut r);
                writes.push_back(case);
                t.refs[k].0.extend(alone.0);
                t.refs[k].1 += alone.1;
                let old = t.flags[k];
                t.flags[k] = Flags {
                    seq_errs: old.seq_errs + f.seq_errs,
                    drops: old.drops + f.drops,
                    marker_errs: old.marker_errs + f.marker_errs,
                    ..f
                };
                renewed.push((k, input));
            }
            assert!(t.flags[a].misaligned && t.flags[b].gap, "{what}: {:?}", t.flags);
            let inputs: Vec<(usize, &Vec<InPacket>)> =
                renewed.iter().map(|(k, i)| (*k, i)).collect();
            for (k, g) in order(&mut r, &inputs) {
                later.push(beats(k, &g));
            }
        }
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        let n = snk.beats.len();
        src.sample(sim);
        snk.sample(sim);
        if let Some(m) = axil.as_mut() {
            m.sample(sim).unwrap();
        }
        marker_pulses += sim.get_u64(err_marker) & 1;
        dropped_pulses += sim.get_u64(dropped) & 1;
        let loaded = sim.get_u64(err_conn);
        if sim.get_u64(err_crc) & 1 == 1 {
            pulses[index(loaded)] += 1;
        }
        // (Before the first load `err_conn` names no connection of the run: nothing is loaded,
        // the flags are 0.)
        if let Some(c) = t.cases.iter().position(|c| c.conn as u64 == loaded) {
            let f = &mut seen_flags[c];
            f.seq_errs += sim.get_u64(err_seq) & 1;
            f.gap = sim.get_u64(seq_gap) & 1 == 1;
            f.misaligned = sim.get_u64(misaligned) & 1 == 1;
        }
        if sim.get_u64(switching) & 1 == 1 {
            waiting += 1;
        } else if waiting > 0 {
            cycles.push(waiting);
            waiting = 0;
        }
        // The run ends 200 cycles after the last beat in or out (segments after a gap are
        // dropped, and the last of them, with FIN, still ends the open FPDU).
        quiet += 1;
        if sim.get_u64(in_valid) & sim.get_u64(in_ready) & 1 == 1 {
            quiet = 0;
        }
        if snk.beats.len() > n {
            quiet = 0;
            let id = sim.get_u64(m_conn);
            cross += (id != loaded) as u64;
            let c = index(id);
            let b = &snk.beats[n].1;
            open[c].data.extend((0..w).filter(|i| (b.keep >> i) & 1 == 1).map(|i| b.data[i]));
            open[c].users.push(b.user);
            if b.last {
                got[c].push(std::mem::take(&mut open[c]));
            }
        }
        sim.tick();
        let host_idle = axil.as_ref().is_none_or(|m| m.idle());
        if second && later.is_empty() && src.pending() == 0 && host_idle && quiet > 200 {
            break;
        }
    }
    assert!(second && src.pending() == 0, "{what}: not every segment was taken");
    for k in 0..4 {
        let (want, want_pulses) = &t.refs[k];
        // Each packet's length and last sideband first: a readable difference when a packet
        // is missing or extra.
        let summary = |p: &[Packet]| -> Vec<(usize, RxUlpduUser)> {
            p.iter()
                .map(|x| (x.data.len(), RxUlpduUser::unpack(*x.users.last().unwrap())))
                .collect()
        };
        assert_eq!(summary(&got[k]), summary(want), "{what}: connection {k}: packets");
        assert_eq!(got[k].len(), want.len(), "{what}: connection {k}: packets");
        for (j, (g, e)) in got[k].iter().zip(want).enumerate() {
            assert_eq!(g.data, e.data, "{what}: connection {k} packet {j}: octets");
            assert_eq!(g.users, e.users, "{what}: connection {k} packet {j}: sideband");
        }
        assert_eq!(pulses[k], *want_pulses, "{what}: connection {k}: CRC errors");
        assert_eq!(
            seen_flags[k].per_connection(),
            t.flags[k].per_connection(),
            "{what}: connection {k}: err_seq, seq_gap, cfg_misaligned"
        );
    }
    let drops: u64 = t.flags.iter().map(|f| f.drops).sum();
    let marker_errs: u64 = t.flags.iter().map(|f| f.marker_errs).sum();
    assert_eq!(
        (dropped_pulses, marker_pulses),
        (drops, marker_errs),
        "{what}: dropped, err_marker"
    );
    assert!(drops > 0, "{what}: no ULPDU dropped");
    if host == Host::Axil {
        let mut pin = |port: usize| sim.get_u64(port) as u32;
        let status = pin(err_conn) | pin(switching) << 4 | pin(seq_gap) << 5 | pin(misaligned) << 6;
        let gaps = (0..4).filter(|&k| t.flags[k].gap).map(|k| 1u32 << t.cases[k].conn).sum();
        let seq_drops: u64 = t.flags.iter().map(|f| f.seq_errs).sum();
        let counters = [seq_drops, pulses.iter().sum(), marker_pulses, dropped_pulses];
        registers_read_back(sim, &what, w, status, gaps, counters, &last_opened);
    }
    Seen { switches: cycles.len(), cross_beats: cross, cycles }
}

/// Through `MpaRxConns`'s registers after a run: ID and PARAMS; STATUS, GAPS and the four
/// counters against the pins and `mpa_rx` alone; OPEN_SEQ, OPEN_ORIGIN, OPEN_SET and OPEN as
/// the last connection opened left them; bad input (a write with two strobes, a write to a
/// read-only register, OPEN with 16 or more, a read of an unmapped address) answered SLVERR,
/// changing nothing; an OPEN of another connection keeps GAPS, one of the connection with the
/// gap clears its bit. Then `rst` with everything offered: nothing is taken, and the registers
/// read their reset values.
#[allow(clippy::too_many_arguments)]
fn registers_read_back(
    sim: &mut dyn sim::CycleSim,
    what: &str,
    w: usize,
    status: u32,
    gaps: u32,
    counters: [u64; 4],
    last: &Case,
) {
    use hdl::rx::conn_regs::conn_reg as r;
    use sim::place::{axil_run, AxilOp};
    let max = sim::rx::mpa_rx_ctx_max_ulpdu(w, REGIONS).unwrap();
    let bad = |addr, data, strb| AxilOp { addr, data, strb, expect_resp: 2 };
    let opened = open_ops(last);
    let (last_set, conn) = (opened[2].data.unwrap(), last.conn as u32);
    assert!(gaps != 0, "{what}: no connection with a gap");
    let gapped = gaps.trailing_zeros();
    let other = (gapped + 1) % 16;
    let ops = [
        AxilOp::read(r::ID),
        AxilOp::read(r::PARAMS),
        AxilOp::read(r::STATUS),
        AxilOp::read(r::GAPS),
        AxilOp::read(r::CNT_SEQ_DROPS),
        AxilOp::read(r::CNT_CRC_ERRORS),
        AxilOp::read(r::CNT_MARKER_ERRORS),
        AxilOp::read(r::CNT_DROPPED),
        AxilOp::read(r::OPEN),
        AxilOp::read(r::OPEN_SEQ),
        AxilOp::read(r::OPEN_ORIGIN),
        AxilOp::read(r::OPEN_SET),
        bad(r::OPEN_SEQ, Some(0x1234_5678), 0x3),
        bad(r::ID, Some(1), 0xF),
        bad(r::OPEN, Some(0x10 | (conn ^ 1)), 0xF),
        bad(0x30, None, 0),
        AxilOp::read(r::OPEN_SEQ),
        AxilOp::read(r::OPEN),
        AxilOp::write(r::OPEN, other),
        AxilOp::read(r::GAPS),
        AxilOp::write(r::OPEN, gapped),
        AxilOp::read(r::GAPS),
    ];
    let got: Vec<u32> = axil_run(sim, &ops).unwrap().into_iter().map(|(_, v)| v).collect();
    assert_eq!(got.len(), 17, "{what}: reads answered");
    assert_eq!(got[0], r::ID_VALUE, "{what}: ID");
    assert_eq!(got[1], w as u32 | 16 << 8 | max << 16, "{what}: PARAMS");
    assert_eq!(got[2], status, "{what}: STATUS against the pins");
    assert_eq!(got[3], gaps, "{what}: GAPS: the connections whose stream has a gap");
    let c: Vec<u64> = got[4..8].iter().map(|&v| v as u64).collect();
    assert_eq!(c, counters, "{what}: counters (out of sequence, CRC, Marker, dropped)");
    assert!(counters[0] > 0 && counters[1] > 0 && counters[3] > 0, "{what}: {counters:?}");
    assert_eq!(got[8], conn | 0x100, "{what}: OPEN: the connection opened last");
    assert_eq!(got[9..12], [last.seq, last.origin(), last_set], "{what}: OPEN_SEQ/ORIGIN/SET");
    assert_eq!(got[12], 0, "{what}: an unmapped read is 0");
    assert_eq!(got[13], last.seq, "{what}: a write with two strobes changed OPEN_SEQ");
    assert_eq!(got[14], conn | 0x100, "{what}: OPEN with 16 or more changed OPEN");
    assert_eq!(got[15], gaps, "{what}: opening connection {other} changed GAPS");
    assert_eq!(got[16], gaps & !(1 << gapped), "{what}: opening connection {gapped}: GAPS");
    // In reset nothing is taken and no AXI4-Lite handshake happens; then the reset values.
    let p = |n: &str| sim.port(n).unwrap();
    let rst = p("rst");
    let offered: Vec<usize> =
        ["s_axis_tvalid", "s_axil_awvalid", "s_axil_wvalid", "s_axil_arvalid"].map(p).to_vec();
    let quiet: Vec<usize> = [
        "s_axis_tready",
        "s_axil_awready",
        "s_axil_wready",
        "s_axil_bvalid",
        "s_axil_arready",
        "s_axil_rvalid",
        "m_axis_tvalid",
        "err_seq",
        "err_crc",
        "err_marker",
        "dropped",
        "switching",
    ]
    .map(p)
    .to_vec();
    sim.set_u64(rst, 1);
    for cycle in 0..4 {
        offered.iter().for_each(|&o| sim.set_u64(o, 1));
        sim.eval();
        for &o in &quiet {
            assert_eq!(sim.get_u64(o), 0, "{what}: reset cycle {cycle}: {}", sim.ports()[o].name);
        }
        sim.tick();
    }
    offered.iter().for_each(|&o| sim.set_u64(o, 0));
    sim.set_u64(rst, 0);
    let reads = [r::OPEN, r::OPEN_SEQ, r::OPEN_ORIGIN, r::OPEN_SET, r::GAPS, r::CNT_SEQ_DROPS];
    let ops: Vec<AxilOp> = reads.iter().map(|&a| AxilOp::read(a)).collect();
    let got: Vec<u32> = axil_run(sim, &ops).unwrap().into_iter().map(|(_, v)| v).collect();
    assert_eq!(got, [0, 0, 0, r::OPEN_SET_RESET, 0, 0], "{what}: after rst");
}

macro_rules! mpa_rx_ctx_tests {
    ($($(#[$m:meta])* $name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        $(#[$m])*
        fn $name() {
            let seen = interleaved_connections($engine, $w, 1, Pattern::Always, Pattern::Always);
            let what = format!("{} W={}", $engine, $w);
            assert!(seen.switches >= 20, "{what}: {} switches", seen.switches);
            // Verified ULPDUs leave while other connections are served.
            assert!(seen.cross_beats > 0, "{what}: no beat left during another's turn");
            let mean = seen.cycles.iter().sum::<u64>() as f64 / seen.cycles.len() as f64;
            let max = *seen.cycles.iter().max().unwrap();
            eprintln!("{what}: {} switches, {mean:.1} cycles each on average, at most {max}; {} beats out during another's turn", seen.cycles.len(), seen.cross_beats);
            // The verification path's drain and flush, as in `rx_verify.rs`: the release
            // buffer adds nothing (its record is final in every cycle).
            assert!(max <= 60, "{what}: a switch took {max} cycles");
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            let seen = interleaved_connections($engine, $w, 4, idle, bp);
            assert!(seen.cross_beats > 0, "{what}: no beat left during another's turn");
        }
    )*};
}

mpa_rx_ctx_tests! {
    interleaved_connections_rusthdl_w4: Engine::RustHdl, 4;
    interleaved_connections_rusthdl_w8: Engine::RustHdl, 8;
    #[ignore = "the rust-hdl model at W = 16 and 32: make test-extra (stop 78)"]
    interleaved_connections_rusthdl_w16: Engine::RustHdl, 16;
    #[ignore = "the rust-hdl model at W = 16 and 32: make test-extra (stop 78)"]
    interleaved_connections_rusthdl_w32: Engine::RustHdl, 32;
    interleaved_connections_rusthdl_w64: Engine::RustHdl, 64;
    interleaved_connections_verilator_w4: Engine::Verilator, 4;
    interleaved_connections_verilator_w8: Engine::Verilator, 8;
    interleaved_connections_verilator_w16: Engine::Verilator, 16;
    interleaved_connections_verilator_w32: Engine::Verilator, 32;
    interleaved_connections_verilator_w64: Engine::Verilator, 64;
}

macro_rules! mpa_rx_table_tests {
    ($($(#[$m:meta])* $name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        $(#[$m])*
        fn $name() {
            let seen = table_connections($engine, $w, 1, Pattern::Always, Pattern::Always);
            let what = format!("{} W={} table", $engine, $w);
            assert!(seen.switches >= 20, "{what}: {} switches", seen.switches);
            assert!(seen.cross_beats > 0, "{what}: no beat left while another was loaded");
            let mean = seen.cycles.iter().sum::<u64>() as f64 / seen.cycles.len() as f64;
            let max = *seen.cycles.iter().max().unwrap();
            eprintln!("{what}: {} switches, {mean:.1} cycles each on average, at most {max}; {} beats out while another was loaded", seen.switches, seen.cross_beats);
            // The path's drain and flush, and now and then the wait for room in the region of
            // the ULPDU the path holds (1 KiB), which frees as the shared output reaches that
            // region's ULPDUs (up to 30 descriptors queued ahead): a bound for liveness only.
            assert!(max <= 2000, "{what}: a switch took {max} cycles");
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            let seen = table_connections($engine, $w, 4, idle, bp);
            assert!(seen.cross_beats > 0, "{what}: no beat left while another was loaded");
        }
    )*};
}

mpa_rx_table_tests! {
    table_connections_rusthdl_w4: Engine::RustHdl, 4;
    table_connections_rusthdl_w8: Engine::RustHdl, 8;
    #[ignore = "the rust-hdl model at W = 16 and 32: make test-extra (stop 78)"]
    table_connections_rusthdl_w16: Engine::RustHdl, 16;
    #[ignore = "the rust-hdl model at W = 16 and 32: make test-extra (stop 78)"]
    table_connections_rusthdl_w32: Engine::RustHdl, 32;
    table_connections_rusthdl_w64: Engine::RustHdl, 64;
    table_connections_verilator_w8: Engine::Verilator, 8;
    table_connections_verilator_w64: Engine::Verilator, 64;
}

macro_rules! mpa_rx_conns_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        #[test]
        fn $name() {
            // One run, with idle and backpressure (the AXI4-Lite responses taken under the
            // same backpressure): the table rows above run the same traffic without.
            let idle = Pattern::Random { p: 0.7, seed: 2 };
            let bp = Pattern::Random { p: 0.6, seed: 3 };
            let seen = connections_through(Host::Axil, $engine, $w, 1, idle, bp);
            let what = format!("{} W={} conns", $engine, $w);
            assert!(seen.switches >= 20, "{what}: {} switches", seen.switches);
            assert!(seen.cross_beats > 0, "{what}: no beat left while another was loaded");
        }
    )*};
}

mpa_rx_conns_tests! {
    conns_through_registers_rusthdl_w4: Engine::RustHdl, 4;
    conns_through_registers_rusthdl_w8: Engine::RustHdl, 8;
    conns_through_registers_rusthdl_w16: Engine::RustHdl, 16;
    conns_through_registers_rusthdl_w32: Engine::RustHdl, 32;
    conns_through_registers_rusthdl_w64: Engine::RustHdl, 64;
    conns_through_registers_verilator_w4: Engine::Verilator, 4;
    conns_through_registers_verilator_w8: Engine::Verilator, 8;
    conns_through_registers_verilator_w16: Engine::Verilator, 16;
    conns_through_registers_verilator_w32: Engine::Verilator, 32;
    conns_through_registers_verilator_w64: Engine::Verilator, 64;
}

/// `MpaRxCtx`, `MpaRxTable` and `MpaRxConns` (not tops) exported at width `w`, each checked by
/// `check` ([`testbench::check_block_verilog`] or [`testbench::lint_block_verilog`]).
fn check_mpa_rx_ctx_blocks(w: usize, check: fn(&str, &str)) {
    use hdl::rx::mpa_rx::buffer_bits;
    use hdl::rx::mpa_rx_ctx::MpaRxCtx;
    let name = format!("mpa_rx_ctx_w{w}");
    let v = hdl::with_width!(w, |W, B| {
        const A: usize = buffer_bits(W);
        let mut b = MpaRxCtx::<W, B, A>::new(REGIONS);
        hdl::export::export_block(&name, &mut b, "test").unwrap().verilog
    });
    check(&name, &v);
    let name = format!("mpa_rx_table_w{w}");
    let v = hdl::with_width!(w, |W, B| {
        const A: usize = buffer_bits(W);
        let mut b = hdl::rx::mpa_rx_table::MpaRxTable::<W, B, A>::new();
        hdl::export::export_block(&name, &mut b, "test").unwrap().verilog
    });
    check(&name, &v);
    let conns = sim::rx::mpa_rx_conns_verilog(w).unwrap();
    check(&conns.name, &conns.verilog);
}

/// `MpaRxCtx`, `MpaRxTable` and `MpaRxConns` (not tops) pass Yosys `check -assert` and Verilator's
/// lint with width warnings at W = 4, and the lint at W = 64 (Yosys at W = 64 in the next test).
#[test]
fn mpa_rx_ctx_w4_w64_export_passes_yosys_check_and_verilator_lint() {
    check_mpa_rx_ctx_blocks(4, testbench::check_block_verilog);
    check_mpa_rx_ctx_blocks(64, testbench::lint_block_verilog);
}

#[test]
#[ignore = "Yosys's check at W = 64 (about 32 s for the three): make test-extra"]
fn mpa_rx_ctx_w64_export_passes_yosys_check() {
    check_mpa_rx_ctx_blocks(64, testbench::check_block_verilog);
}
