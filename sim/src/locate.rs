//! [`hdl::place::locate::PlaceLocate`] under simulation: the binding for the direct-drive
//! engine, a builder for either engine, and a run that offers segments one at a time, serves
//! the block's read requests from the segment's octets (as the reassembly ring will) and
//! collects the FPDUs it locates.

use crate::packet::{packet_beats, InPacket};
use crate::stream::{HandshakeMonitor, Pattern, ReadyDriver, StreamDriver, StreamPorts};
use crate::tx::block_engine;
use crate::CycleSim;
use crate::Engine;
use hdl::place::locate::{locate_width, PlaceLocate};
use hdl::with_width;

crate::direct_top!([const W: usize, const B: usize, const V: usize, const BV: usize]
    PlaceLocate<W, B, V, BV> {
    in rst, in cfg_origin, in cfg_markers, in cfg_crc, in cfg_max_ulpdu, sink s_axis,
    in chain_valid, in chain_seq, out rd_valid, in rd_ready, out rd_seq, out rd_end, sink s_rd,
    out loc_valid, out loc_start, out loc_end, out done, out watchdog, in cfg_fwd,
    source m_ulpdu, out pkt_valid, out pkt_good, out pkt_start, out pkt_end, in pl_valid,
    out pl_ready, in pl_seq, in pl_end, in cfg_aligned, out pkt_spec, out al_wait, in al_valid,
    in al_ok
});

/// The locator alone at `width` bytes per beat.
pub fn locator(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| {
        const V: usize = locate_width(W);
        block_engine(
            engine,
            &format!("place_locate_w{W}"),
            PlaceLocate::<W, B, V, { 8 * V }>::new(),
        )
    })
}

/// The locator alone at `width` bytes per beat, exported (`place_locate_w<W>`): the Verilog
/// its Verilator engine is built from. Here rather than in a test so that `PlaceLocate` is
/// instantiated in this crate only (a test binary instantiating it at every width took 133 s
/// of codegen, the last 100 s of a clean `cargo test --no-run` on two cores).
pub fn locator_verilog(width: usize) -> Result<hdl::export::ExportedTop, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| {
        let name = format!("place_locate_w{W}");
        const V: usize = locate_width(W);
        let mut block = PlaceLocate::<W, B, V, { 8 * V }>::new();
        hdl::export::export_block(&name, &mut block, "PlaceLocate (export check)")
    })
}

/// One segment for [`run_locate`].
#[derive(Clone, Debug)]
pub struct LocateSegment {
    /// Sequence number of its first octet.
    pub seq: u32,
    /// Its octets (at least one).
    pub bytes: Vec<u8>,
    /// A start known from a placed FPDU.
    pub chain: Option<u32>,
}

/// Settings of [`run_locate`].
#[derive(Clone, Debug)]
pub struct LocateOptions {
    /// Sequence number of the Marker origin.
    pub origin: u32,
    /// Markers on.
    pub markers: bool,
    /// CRCs on.
    pub crc: bool,
    /// Largest ULPDU_Length accepted.
    pub max_ulpdu: u32,
    /// When a segment beat may be offered.
    pub idle: Pattern,
    /// When a read beat may be offered.
    pub read_idle: Pattern,
    /// Cycles from a read request to its first beat.
    pub read_delay: u64,
    /// Header-alignment detection (B.2): the run forwards the tries' packets (`cfg_fwd`),
    /// decodes each packet of an alignment try with [`golden::ddp::decode_with`] at this
    /// DDP/RDMAP version, as the header block downstream does in `rnic_rx`, and answers the
    /// verdict.
    pub aligned: Option<golden::ddp::ProtocolVersion>,
}

impl Default for LocateOptions {
    fn default() -> Self {
        LocateOptions {
            origin: 0,
            markers: true,
            crc: true,
            max_ulpdu: golden::mulpdu::ULPDU_MAX,
            idle: Pattern::Always,
            read_idle: Pattern::Always,
            read_delay: 2,
            aligned: None,
        }
    }
}

/// What [`run_locate`] saw.
#[derive(Clone, Debug, Default)]
pub struct LocateRun {
    /// Per segment, the located FPDUs `[start, end)` as sequence numbers.
    pub located: Vec<Vec<(u32, u32)>>,
    /// Per segment, the read requests `[seq, end)`.
    pub reads: Vec<Vec<(u32, u32)>>,
    /// Cycles from reset to the end.
    pub cycles: u64,
    /// `watchdog` at the end.
    pub watchdog: bool,
}

/// Resets the block with `opts`, offers `segments` one at a time (the next after `done`),
/// serves every read request from the segment's octets and collects every located FPDU,
/// checking the handshake rules and that each request lies inside its segment.
pub fn run_locate(
    sim: &mut dyn CycleSim,
    segments: &[LocateSegment],
    opts: &LocateOptions,
) -> Result<LocateRun, String> {
    let s = StreamPorts::find(sim, "s_axis")?;
    let r = StreamPorts::find(sim, "s_rd")?;
    let port = |n: &str| sim.port(n);
    let (rv, rr, rs, re) = (port("rd_valid")?, port("rd_ready")?, port("rd_seq")?, port("rd_end")?);
    let (lv, ls, le) = (port("loc_valid")?, port("loc_start")?, port("loc_end")?);
    let (done, wd) = (port("done")?, port("watchdog")?);
    let (cv, cs) = (port("chain_valid")?, port("chain_seq")?);
    let (pv, pg, psp) = (port("pkt_valid")?, port("pkt_good")?, port("pkt_spec")?);
    let (aw, av, ao) = (port("al_wait")?, port("al_valid")?, port("al_ok")?);
    let m = StreamPorts::find(sim, "m_ulpdu")?;
    for (n, v) in [
        ("cfg_origin", opts.origin as u64),
        ("cfg_markers", opts.markers as u64),
        ("cfg_crc", opts.crc as u64),
        ("cfg_max_ulpdu", opts.max_ulpdu as u64),
        ("cfg_fwd", opts.aligned.is_some() as u64),
        ("cfg_aligned", opts.aligned.is_some() as u64),
    ] {
        let p = sim.port(n)?;
        sim.set_u64(p, v);
    }
    let mut src = StreamDriver::new(s, opts.idle.clone());
    let mut rdd = StreamDriver::new(r, opts.read_idle.clone());
    let mut mon_s = HandshakeMonitor::new("s_axis", s);
    let mut mon_r = HandshakeMonitor::new("s_rd", r);
    sim.set_u64(s.valid, 0);
    sim.set_u64(r.valid, 0);
    sim.set_u64(rr, 0);
    sim.set_u64(av, 0);
    sim.set_u64(ao, 0);
    let mut sink = ReadyDriver::new(m, Pattern::Always);
    let mut mon_m = HandshakeMonitor::new("m_ulpdu", m);
    // Every forwarded packet has a verdict on pkt_* (before its last beat leaves m_ulpdu):
    // `kinds` holds whether each packet not yet out is the alignment try's. For that try, its
    // packets' verdicts and whether each decoded; answered once all of them are out.
    let mut kinds = std::collections::VecDeque::new();
    let (mut spec_good, mut spec_dec, mut cur): (Vec<bool>, Vec<bool>, Vec<u8>) =
        (Vec::new(), Vec::new(), Vec::new());
    let mut answer = false;
    sim.reset(2)?;
    let start = sim.cycles();
    let mut run = LocateRun::default();
    for (k, seg) in segments.iter().enumerate() {
        let n = seg.bytes.len() as u64;
        sim.set_u64(cv, seg.chain.is_some() as u64);
        sim.set_u64(cs, seg.chain.unwrap_or(0) as u64);
        src.push(packet_beats(
            &[InPacket::segment(seg.bytes.clone(), seg.seq, false)],
            s.width,
            0xA5,
        ));
        run.located.push(Vec::new());
        run.reads.push(Vec::new());
        let mut wait: Option<u64> = None;
        let mut pending_read: Option<(u32, u32)> = None;
        let limit = sim.cycles() + 10_000 + 400 * n / s.width as u64 * (1 + n / 512);
        loop {
            src.drive(sim);
            rdd.drive(sim);
            sink.drive(sim);
            sim.set_u64(av, answer as u64);
            sim.set_u64(ao, (spec_good.iter().zip(&spec_dec).all(|(g, d)| *g && *d)) as u64);
            // A read request is taken `read_delay` cycles after it is seen, once the previous
            // read has been delivered.
            let req = sim.get_u64(rv) & 1 != 0;
            let take = req && pending_read.is_none() && rdd.pending() == 0 && {
                let w = wait.get_or_insert(sim.cycles() + opts.read_delay);
                sim.cycles() >= *w
            };
            sim.set_u64(rr, take as u64);
            sim.eval();
            mon_s.sample(sim, false);
            mon_r.sample(sim, false);
            mon_m.sample(sim, false);
            if answer {
                spec_good.clear();
                spec_dec.clear();
            }
            if let Some(version) = opts.aligned {
                if sim.get_u64(pv) & 1 != 0 {
                    let spec = sim.get_u64(psp) & 1 != 0;
                    kinds.push_back(spec);
                    if spec {
                        spec_good.push(sim.get_u64(pg) & 1 != 0);
                    }
                }
                sink.sample(sim);
                for (_, b) in sink.beats.drain(..) {
                    cur.extend_from_slice(&b.data[..b.keep.count_ones() as usize]);
                    if b.last {
                        match kinds.pop_front() {
                            Some(true) => {
                                spec_dec.push(golden::ddp::decode_with(&cur, version).is_ok())
                            }
                            Some(false) => {}
                            None => return Err(format!("segment {k}: a packet without verdict")),
                        }
                        cur.clear();
                    }
                }
                // Answered in the next cycle (one cycle), once every packet of the try is out.
                answer = !answer && sim.get_u64(aw) & 1 != 0 && kinds.is_empty();
            }
            if take {
                let (a, b) = (sim.get_u64(rs) as u32, sim.get_u64(re) as u32);
                let (lo, hi) = (a.wrapping_sub(seg.seq) as u64, b.wrapping_sub(seg.seq) as u64);
                if lo >= hi || hi != n {
                    return Err(format!("segment {k}: read [{a:#x}, {b:#x}) is not a tail of it"));
                }
                run.reads[k].push((a, b));
                pending_read = Some((a, b));
                wait = None;
            }
            if sim.get_u64(lv) & 1 != 0 {
                run.located[k].push((sim.get_u64(ls) as u32, sim.get_u64(le) as u32));
            }
            let finished = sim.get_u64(done) & 1 != 0;
            src.sample(sim);
            rdd.sample(sim);
            sim.tick();
            if let Some((a, _)) = pending_read.take() {
                let lo = a.wrapping_sub(seg.seq) as usize;
                rdd.push(packet_beats(
                    &[InPacket { data: seg.bytes[lo..].to_vec(), user: 0 }],
                    r.width,
                    0x3C,
                ));
            }
            if finished {
                if src.pending() != 0 || rdd.pending() != 0 {
                    return Err(format!("segment {k}: done before its beats were taken"));
                }
                break;
            }
            if sim.cycles() > limit {
                return Err(format!("segment {k}: timeout ({} octets)", n));
            }
        }
    }
    run.cycles = sim.cycles() - start;
    run.watchdog = sim.get_u64(wd) & 1 != 0;
    let violations: Vec<String> = mon_s
        .violations
        .iter()
        .chain(&mon_r.violations)
        .chain(&mon_m.violations)
        .cloned()
        .collect();
    if !violations.is_empty() {
        return Err(violations.join("\n"));
    }
    Ok(run)
}
