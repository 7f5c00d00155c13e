//! Several connections' beats through one block built with its context record (DESIGN,
//! "Connection state is explicit"; RFC 5044 B.2), the way a controller in front of it would
//! drive it: each connection's beats come in runs (a segment's share of the stream, which may
//! end inside a packet); between runs of different connections, with nothing offered, the
//! block's piece in flight is ended when it has a flush and is not idle already, and once it
//! says it is idle (from the cycle after the run's last beat went in) the served connection's
//! record (every part of it) is read into the test's table and the next connection's loaded,
//! with its settings, in one cycle. Records with random contents are
//! offered now and then while the block is not idle (they must change nothing), and flushes
//! at random while beats flow. Output beats are credited to the connection served when they
//! leave, so each connection's packets can be compared with what it gets alone.

use rand::Rng;
use sim::packet::Packet;
use sim::stream::{Beat, Pattern, ReadyDriver, StreamDriver, StreamPorts};
use sim::CycleSim;
use std::collections::VecDeque;

/// A block's context ports, by index.
pub struct CtxPorts {
    /// The record's parts: (input, output) port pairs (`ctx_in_0` / `ctx_out_0`, ...).
    pub parts: Vec<(usize, usize)>,
    /// `ctx_load_0`.
    pub load: usize,
    /// The port that says the block may switch: high when `idle_high` (`ctx_idle_0`), else low
    /// (`busy`).
    pub idle: usize,
    /// See `idle`.
    pub idle_high: bool,
    /// `ctx_flush_0`, for a block whose piece in flight must be ended before a switch.
    pub flush: Option<usize>,
    /// Per-connection settings set in the load's cycle (`cfg_markers`, ...).
    pub settings: Vec<usize>,
    /// A one-bit pulse output to count per connection (`err_crc`, ...).
    pub pulse: Option<usize>,
    /// A one-bit pulse output and a value output read with it, recorded per connection
    /// (`fpdu_done` / `fpdu_end`); set after [`CtxPorts::find`].
    pub event: Option<(usize, usize)>,
    /// An output naming the connection of each output beat (`m_conn`), for a block whose
    /// output leaves while other connections are served: beats are credited to the
    /// connection at this index of [`run`]'s `conns` whose `conn_id` it gives, not to the one
    /// served, and [`run`] ends only once no beat has come out for 200 cycles after the
    /// last run. Set after [`CtxPorts::find`].
    pub conn_out: Option<usize>,
}

impl CtxPorts {
    /// The ports named `parts` (pairs of input and output names), `load`, `idle` (high when
    /// `idle_high`), `flush`, `settings` and `pulse`.
    pub fn find(
        sim: &dyn CycleSim,
        parts: &[(&str, &str)],
        idle: &str,
        idle_high: bool,
        flush: Option<&str>,
        settings: &[&str],
        pulse: Option<&str>,
    ) -> Self {
        let p = |n: &str| sim.port(n).unwrap();
        CtxPorts {
            parts: parts.iter().map(|(i, o)| (p(i), p(o))).collect(),
            load: p("ctx_load_0"),
            idle: p(idle),
            idle_high,
            flush: flush.map(p),
            settings: settings.iter().map(|n| p(n)).collect(),
            pulse: pulse.map(p),
            event: None,
            conn_out: None,
        }
    }
}

/// One connection: its runs of beats, its record (one value per part, as 64-bit words) and
/// settings; filled in by [`run`]: its packets and pulses.
#[derive(Default)]
pub struct CtxConn {
    /// Beats to send, run by run.
    pub runs: VecDeque<Vec<Beat>>,
    /// Its record's parts (the fresh record before the run, the last saved after).
    pub record: Vec<Vec<u64>>,
    /// Its settings (as `CtxPorts::settings`).
    pub settings: Vec<u64>,
    /// The packets it got.
    pub out: Vec<Packet>,
    /// Pulses counted while it was served.
    pub pulses: u64,
    /// Values read at the event pulses while it was served.
    pub events: Vec<u64>,
    /// Its value on [`CtxPorts::conn_out`].
    pub conn_id: u64,
    cur: Packet,
}

impl CtxConn {
    /// A connection whose `beats` are cut into runs of 1 to `max_run` beats (anywhere, inside
    /// packets too), with its fresh `record` and `settings`.
    pub fn new(
        r: &mut impl Rng,
        beats: &[Beat],
        max_run: usize,
        record: Vec<Vec<u64>>,
        settings: Vec<u64>,
    ) -> Self {
        let mut runs = VecDeque::new();
        let mut at = 0;
        while at < beats.len() {
            let n = r.gen_range(1..=max_run).min(beats.len() - at);
            runs.push_back(beats[at..at + n].to_vec());
            at += n;
        }
        CtxConn { runs, record, settings, ..Default::default() }
    }
}

impl CtxConn {
    /// A connection whose runs are given (one segment's beats each, say).
    pub fn with_runs(runs: VecDeque<Vec<Beat>>, record: Vec<Vec<u64>>, settings: Vec<u64>) -> Self {
        CtxConn { runs, record, settings, ..Default::default() }
    }
}

/// What [`run`] saw.
#[derive(Debug, Default)]
pub struct CtxRun {
    /// Loads of another connection's record.
    pub switches: usize,
    /// Every record saved, as its parts.
    pub saved: Vec<Vec<Vec<u64>>>,
    /// For each switch after the first: cycles from the one after the served connection's
    /// last beat went in (the next run is another connection's) to the load.
    pub switch_cycles: Vec<u64>,
    /// Output beats of a connection other than the one served (with [`CtxPorts::conn_out`]).
    pub cross_beats: u64,
}

/// Runs `conns` through `sim` (reset before, with its settings for an unrelated stream) at
/// `w` bytes per beat, choosing the next run's connection with [`crate::next_connection`];
/// asserts that every run was sent, that no connection is left with a packet open, and that
/// it ends within `max_cycles`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    sim: &mut dyn CycleSim,
    w: usize,
    ports: &CtxPorts,
    conns: &mut [CtxConn],
    r: &mut rand_chacha::ChaCha8Rng,
    idle: Pattern,
    backpressure: Pattern,
    max_cycles: u64,
) -> CtxRun {
    let widths: Vec<usize> =
        ports.parts.iter().map(|&(i, _)| sim::words_for(sim.ports()[i].width)).collect();
    let mut src = StreamDriver::new(StreamPorts::find(sim, "s_axis").unwrap(), idle);
    let mut snk = ReadyDriver::new(StreamPorts::find(sim, "m_axis").unwrap(), backpressure);
    let mut res = CtxRun::default();
    let mut cur: Option<usize> = None;
    let mut pick: Option<usize> = None;
    let mut flushed = false;
    let mut done = false;
    let mut waiting = 0u64;
    // Cycles since the last output beat, counted once every run has been sent and served.
    let mut quiet: Option<u64> = None;
    for _ in 0..max_cycles {
        let owner = cur;
        let is_idle = (sim.get_u64(ports.idle) & 1 == 1) == ports.idle_high;
        let (mut load, mut flush) = (false, false);
        if src.pending() == 0 {
            let left: Vec<usize> =
                (0..conns.len()).filter(|&c| !conns[c].runs.is_empty()).collect();
            if left.is_empty() {
                if is_idle && (flushed || ports.flush.is_none()) {
                    match (ports.conn_out, quiet) {
                        (None, _) | (Some(_), Some(200..)) => {
                            done = true;
                            break;
                        }
                        (Some(_), None) => quiet = Some(0),
                        (Some(_), Some(_)) => {}
                    }
                }
                flush = !flushed;
                flushed = true;
            } else {
                let c = *pick.get_or_insert_with(|| crate::next_connection(r, &left, cur, false));
                if Some(c) == cur {
                    // Now and then the same connection's piece is ended too.
                    flush = r.gen_bool(0.3);
                    let run = conns[c].runs.pop_front().unwrap();
                    src.push(run);
                    pick = None;
                    flushed = false;
                } else if cur.is_some() && ports.flush.is_some() && !flushed && !is_idle {
                    // A flush only when the block is not idle already: when it is (no piece
                    // open, nothing inside), the load comes in the first cycle it says so.
                    flush = true;
                    flushed = true;
                    waiting += 1;
                } else if !is_idle {
                    waiting += 1;
                } else {
                    if let Some(p) = cur {
                        let rec: Vec<Vec<u64>> = ports
                            .parts
                            .iter()
                            .zip(&widths)
                            .map(|(&(_, o), &n)| {
                                let mut v = vec![0u64; n];
                                sim.get(o, &mut v);
                                v
                            })
                            .collect();
                        res.saved.push(rec.clone());
                        conns[p].record = rec;
                    }
                    for (&(i, _), v) in ports.parts.iter().zip(&conns[c].record) {
                        sim.set(i, v);
                    }
                    for (&p, &v) in ports.settings.iter().zip(&conns[c].settings) {
                        sim.set_u64(p, v);
                    }
                    if cur.is_some() {
                        res.switch_cycles.push(waiting);
                    }
                    waiting = 0;
                    load = true;
                    res.switches += 1;
                    cur = Some(c);
                    flushed = false;
                }
            }
        }
        // Now and then a flush while beats flow, and records with random contents offered
        // while the block is not idle (ignored).
        flush |= r.gen_bool(0.02);
        if !load && !is_idle && r.gen_bool(0.1) {
            for (&(i, _), &n) in ports.parts.iter().zip(&widths) {
                let junk: Vec<u64> = (0..n).map(|_| r.gen()).collect();
                sim.set(i, &junk);
            }
            load = true;
        }
        sim.set_u64(ports.load, load as u64);
        if let Some(f) = ports.flush {
            sim.set_u64(f, flush as u64);
        }
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        let got = snk.beats.len();
        src.sample(sim);
        snk.sample(sim);
        if let (Some(o), Some(p)) = (owner, ports.pulse) {
            conns[o].pulses += sim.get_u64(p) & 1;
        }
        if let (Some(o), Some((p, v))) = (owner, ports.event) {
            if sim.get_u64(p) & 1 == 1 {
                let value = sim.get_u64(v);
                conns[o].events.push(value);
            }
        }
        if let Some(q) = quiet.as_mut() {
            *q += 1;
        }
        if snk.beats.len() > got {
            let o = match ports.conn_out {
                None => owner.expect("a beat out before any connection"),
                Some(p) => {
                    let id = sim.get_u64(p);
                    conns.iter().position(|c| c.conn_id == id).unwrap_or_else(|| {
                        panic!("W={w}: a beat out for connection {id}, which is not one sent")
                    })
                }
            };
            if let Some(q) = quiet.as_mut() {
                *q = 0;
            }
            res.cross_beats += (Some(o) != owner) as u64;
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
    assert!(done, "W={w}: not done in {max_cycles} cycles");
    for (i, c) in conns.iter().enumerate() {
        assert!(c.runs.is_empty(), "W={w}: connection {i} not sent");
        assert!(c.cur.users.is_empty(), "W={w}: connection {i}: a packet left open");
    }
    res
}

/// Asserts that each connection got exactly the packets (octets and every beat's sideband) and
/// pulses it gets alone (`alone[i]`).
pub fn assert_as_alone(what: &str, conns: &[CtxConn], alone: &[(Vec<Packet>, u64)]) {
    for (i, (c, (want, pulses))) in conns.iter().zip(alone).enumerate() {
        assert_eq!(c.out.len(), want.len(), "{what}: connection {i}: packets");
        for (j, (got, want)) in c.out.iter().zip(want).enumerate() {
            assert_eq!(got.data, want.data, "{what}: connection {i} packet {j}: octets");
            assert_eq!(got.users, want.users, "{what}: connection {i} packet {j}: sideband");
        }
        assert_eq!(c.pulses, *pulses, "{what}: connection {i}: pulses");
    }
}
