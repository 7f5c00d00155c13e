//! [`hdl::place::reassembly::PlaceReassembly`] under simulation: the binding for the direct-drive
//! engine, a builder for either engine, and a run that offers TCP segments in a given order and
//! collects the verdicts and the in-order segments that come out.

use crate::packet::{packet_beats, InPacket};
use crate::stream::{HandshakeMonitor, Pattern, ReadyDriver, StreamDriver, StreamPorts};
use crate::traffic::TcpSegment;
use crate::tx::block_engine;
use crate::CycleSim;
use crate::Engine;
use hdl::place::locate::locate_width;
use hdl::place::reassembly::{ring_bits, PlaceReassembly, RECORD_ENTRIES};
use hdl::sideband::RxSegmentUser;
use hdl::with_width;

crate::direct_top!([const W: usize, const B: usize, const D: usize, const RN: usize,
    const V: usize, const BV: usize] PlaceReassembly<W, B, D, RN, V, BV> {
    in rst, in cfg_seq, in cfg_budget, in cfg_records, in stopped, in cfg_markers, in cfg_crc,
    in cfg_max_ulpdu, sink s_axis, source m_axis, out vrd_valid, out vrd_accept, out vrd_seq,
    out held, out runs, out refused, out peak_held, out loc_valid, out loc_start, out loc_end,
    out located, out located_octets, out loc_watchdog, in cfg_place, in io_quiet,
    in probe_valid, in probe_ok, in probe_tpl, in probe_inv, in probe_stag, in probe_dec,
    in cfg_aligned, in skip_seq,
    out skip_hit, in skip_take, in skip_take_seq, source m_ooo, out ooo_sel, out placed_fpdus,
    out placed_now
});

/// The reassembly block alone at `width` bytes per beat: a 64 KiB ring and
/// [`RECORD_ENTRIES`] records, as `rnic_rx` builds it.
pub fn reassembly(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| {
        const D: usize = ring_bits(W);
        const V: usize = locate_width(W);
        block_engine(
            engine,
            &format!("place_reassembly_w{W}"),
            PlaceReassembly::<W, B, D, RECORD_ENTRIES, V, { 8 * V }>::new(),
        )
    })
}

/// Settings of [`run_reassembly`].
#[derive(Clone, Debug)]
pub struct ReassemblyOptions {
    /// Sequence number of the first octet of the stream.
    pub seq: u32,
    /// Out-of-order octets that may be held.
    pub budget: u32,
    /// Out-of-order runs that may be held.
    pub records: u32,
    /// Markers on (the locator).
    pub markers: bool,
    /// CRCs on (the locator locates nothing without them).
    pub crc: bool,
    /// Largest ULPDU_Length accepted (the locator).
    pub max_ulpdu: u32,
    /// When TCP may offer a beat.
    pub idle: Pattern,
    /// When `mpa_rx` takes a beat.
    pub backpressure: Pattern,
    /// Cycles allowed per input beat (timeout), plus a fixed 5,000.
    pub cycles_per_beat: u64,
}

impl Default for ReassemblyOptions {
    fn default() -> Self {
        ReassemblyOptions {
            seq: 0,
            budget: 1 << 20,
            records: 15,
            markers: false,
            crc: false,
            max_ulpdu: golden::mulpdu::ULPDU_MAX,
            idle: Pattern::Always,
            backpressure: Pattern::Always,
            cycles_per_beat: 20,
        }
    }
}

/// One segment that came out (in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutSegment {
    /// Sequence number of its first octet.
    pub seq: u32,
    /// FIN after it.
    pub fin: bool,
    /// The octets.
    pub data: Vec<u8>,
}

/// What [`run_reassembly`] saw.
#[derive(Clone, Debug, Default)]
pub struct ReassemblyRun {
    /// One per offered segment, in order: its sequence number and whether it was accepted.
    pub verdicts: Vec<(u32, bool)>,
    /// One per offered segment: the FPDUs located in it before its verdict, `[start, end)` as
    /// sequence numbers.
    pub located: Vec<Vec<(u32, u32)>>,
    /// The `located` and `located_octets` counters at the end.
    pub located_count: u64,
    /// See `located_count`.
    pub located_octets: u64,
    /// The segments passed on.
    pub out: Vec<OutSegment>,
    /// Cycles from reset to the end.
    pub cycles: u64,
    /// Input beats.
    pub beats_in: u64,
    /// `held`, `runs`, `refused`, `peak_held` at the end.
    pub held: u64,
    /// See `held`.
    pub runs: u64,
    /// See `held`.
    pub refused: u64,
    /// See `held`.
    pub peak_held: u64,
}

/// Resets the block with `opts`, offers `segments` in the order given and collects every
/// verdict and every segment passed on, checking the handshake rules on both streams and that
/// each verdict names the segment it answers.
pub fn run_reassembly(
    sim: &mut dyn CycleSim,
    segments: &[TcpSegment],
    opts: &ReassemblyOptions,
) -> Result<ReassemblyRun, String> {
    let s = StreamPorts::find(sim, "s_axis")?;
    let m = StreamPorts::find(sim, "m_axis")?;
    let port = |n: &str| sim.port(n);
    let (vv, va, vs) = (port("vrd_valid")?, port("vrd_accept")?, port("vrd_seq")?);
    let stats = [port("held")?, port("runs")?, port("refused")?, port("peak_held")?];
    let (lv, ls, le) = (port("loc_valid")?, port("loc_start")?, port("loc_end")?);
    let (lc, lo, lw) = (port("located")?, port("located_octets")?, port("loc_watchdog")?);
    for (n, v) in [
        ("cfg_seq", opts.seq as u64),
        ("cfg_budget", opts.budget as u64),
        ("cfg_records", opts.records as u64),
        ("stopped", 0),
        ("cfg_markers", opts.markers as u64),
        ("cfg_crc", opts.crc as u64),
        ("cfg_max_ulpdu", opts.max_ulpdu as u64),
    ] {
        let p = sim.port(n)?;
        sim.set_u64(p, v);
    }
    let packets: Vec<InPacket> = segments
        .iter()
        .map(|x| InPacket {
            data: x.payload.clone(),
            user: RxSegmentUser { seq: x.seq as u64, fin: x.fin }.pack(),
        })
        .collect();
    let beats = packet_beats(&packets, s.width, 0x5A);
    let total_in = beats.len() as u64;
    let mut src = StreamDriver::new(s, opts.idle.clone());
    src.push(beats);
    let mut snk = ReadyDriver::new(m, opts.backpressure.clone());
    let mut mon_s = HandshakeMonitor::new("s_axis", s);
    let mut mon_m = HandshakeMonitor::new("m_axis", m);
    sim.set_u64(s.valid, 0);
    sim.set_u64(m.ready, 0);
    sim.reset(2)?;
    let start = sim.cycles();
    let mut run = ReassemblyRun::default();
    let mut quiet = 0u64;
    let mut located = Vec::new();
    let budget = 5_000 + opts.cycles_per_beat * total_in;
    loop {
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        mon_s.sample(sim, false);
        mon_m.sample(sim, false);
        if sim.get_u64(vv) & 1 != 0 {
            let k = run.verdicts.len();
            let seq = sim.get_u64(vs) as u32;
            match segments.get(k) {
                Some(x) if x.seq == seq => {}
                _ => return Err(format!("verdict {k} for sequence number {seq:#x} unexpected")),
            }
            run.verdicts.push((seq, sim.get_u64(va) & 1 != 0));
            run.located.push(std::mem::take(&mut located));
            quiet = 0;
        }
        if sim.get_u64(lv) & 1 != 0 {
            located.push((sim.get_u64(ls) as u32, sim.get_u64(le) as u32));
            quiet = 0;
        }
        if sim.get_u64(lw) & 1 != 0 {
            return Err(format!("cycle {}: the locator's watchdog fired", sim.cycles() - start));
        }
        let sent = src.sent;
        src.sample(sim);
        let got = snk.beats.len();
        snk.sample(sim);
        if src.sent > sent || snk.beats.len() > got {
            quiet = 0;
        } else {
            quiet += 1;
        }
        sim.tick();
        if src.pending() == 0 && run.verdicts.len() == segments.len() && quiet > 200 {
            break;
        }
        if sim.cycles() - start > budget {
            return Err(format!(
                "timeout after {} cycles: {} of {total_in} input beats, {} of {} verdicts",
                sim.cycles() - start,
                src.sent,
                run.verdicts.len(),
                segments.len()
            ));
        }
    }
    if !located.is_empty() {
        return Err(format!("{} FPDUs located after the last verdict", located.len()));
    }
    let violations: Vec<String> =
        mon_s.violations.iter().chain(&mon_m.violations).cloned().collect();
    if !violations.is_empty() {
        return Err(violations.join("\n"));
    }
    let mut cur: Option<OutSegment> = None;
    for (cyc, b) in &snk.beats {
        let n = hdl::stream::keep_len(b.keep, m.width)
            .ok_or_else(|| format!("cycle {cyc}: keep {:#x} not contiguous", b.keep))?;
        let seg = cur.get_or_insert_with(|| OutSegment {
            seq: RxSegmentUser::unpack(b.user).seq as u32,
            fin: false,
            data: Vec::new(),
        });
        if RxSegmentUser::unpack(b.user).seq as u32 != seg.seq {
            return Err(format!("cycle {cyc}: tuser changed inside a segment"));
        }
        seg.data.extend_from_slice(&b.data[..n]);
        if b.last {
            seg.fin = RxSegmentUser::unpack(b.user).fin;
            run.out.push(cur.take().expect("segment"));
        } else if n != m.width {
            return Err(format!("cycle {cyc}: a beat that is not last has {n} octets"));
        }
    }
    if cur.is_some() {
        return Err("the output stopped inside a segment".into());
    }
    run.cycles = sim.cycles() - start;
    run.beats_in = total_in;
    let st: Vec<u64> = stats.iter().map(|&p| sim.get_u64(p)).collect();
    (run.held, run.runs, run.refused, run.peak_held) = (st[0], st[1], st[2], st[3]);
    (run.located_count, run.located_octets) = (sim.get_u64(lc), sim.get_u64(lo));
    Ok(run)
}

/// Checks that `out` is the stream `wire` (whose first octet has sequence number `origin`) from
/// its start, each segment starting where the previous one ended, at least `min_len` octets of
/// it, and FIN exactly once, on the last segment, when and only when all of `wire` came out and
/// `fin` was sent. Returns the octets that came out.
pub fn check_in_order(
    out: &[OutSegment],
    wire: &[u8],
    origin: u32,
    min_len: usize,
    fin: bool,
) -> Result<usize, String> {
    let mut at = 0usize;
    for (k, seg) in out.iter().enumerate() {
        if seg.seq != origin.wrapping_add(at as u32) {
            return Err(format!(
                "segment {k} out starts at {:#x}, the edge was {:#x}",
                seg.seq,
                origin.wrapping_add(at as u32)
            ));
        }
        if seg.data.is_empty() && !seg.fin {
            return Err(format!("segment {k} out is empty without FIN"));
        }
        let end = at + seg.data.len();
        if end > wire.len() || seg.data[..] != wire[at..end] {
            return Err(format!(
                "segment {k} out ({} octets at {at}) differs from the stream",
                seg.data.len()
            ));
        }
        if seg.fin && k + 1 != out.len() {
            return Err(format!("segment {k} out has FIN but is not the last"));
        }
        at = end;
    }
    if at < min_len {
        return Err(format!("{at} octets came out in order, expected at least {min_len}"));
    }
    let fin_out = out.last().is_some_and(|s| s.fin);
    if fin_out != (fin && at == wire.len()) {
        return Err(format!("FIN out {fin_out}, {at} of {} octets, FIN sent {fin}", wire.len()));
    }
    Ok(at)
}
