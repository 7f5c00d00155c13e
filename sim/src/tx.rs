//! The transmit blocks ([`hdl::tx`]) under simulation: bindings for the direct-drive engine and
//! a builder for either engine.

use crate::rusthdl::RustHdlSim;
use crate::verilator::VerilatorSim;
use crate::CycleSim;
use crate::Engine;
use hdl::export::export_block;
use hdl::sideband::TxUlpduUser;
use hdl::tx::crc_unit::TxCrcUnit;
use hdl::tx::framer::TxFramer;
use hdl::tx::marker_inserter::TxMarkerInserter;
use hdl::tx::mpa_tx::MpaTx;
use hdl::tx::segmenter::TxSegmenter;
use hdl::with_width;

crate::direct_top!([const W: usize, const B: usize] TxFramer<W, B> {
    in rst, in cfg_markers, in cfg_crc, sink s_axis, source m_axis, out err_length, out err_oversize
});

crate::direct_top!([const W: usize, const B: usize] TxMarkerInserter<W, B> {
    in rst, in cfg_seq, in cfg_origin, sink s_axis, source m_axis, out cfg_misaligned
});

crate::direct_top!([const W: usize, const B: usize] TxCrcUnit<W, B> {
    in rst, sink s_axis, source m_axis
});

crate::direct_top!([const W: usize, const B: usize] TxSegmenter<W, B> {
    in rst, in cfg_emss, in cfg_seq, in cfg_origin, in cfg_idle, sink s_axis, source m_axis,
    out oversize
});

crate::direct_top!([const W: usize, const B: usize] MpaTx<W, B> {
    in rst, in cfg_markers, in cfg_crc, in cfg_emss, in cfg_idle, in cfg_seq, in cfg_origin,
    sink s_axis,
    source m_axis, out mulpdu, out err_length, out err_too_long, out oversize_fpdu,
    out cfg_misaligned
});

/// Any block on either engine: the rust-hdl model driven directly (`rusthdl`) or its exported
/// Verilog, named `name`, on Verilator (`verilator`).
pub fn block_engine<T: crate::rusthdl::DirectTop + 'static>(
    engine: Engine,
    name: &str,
    mut block: T,
) -> Result<Box<dyn CycleSim>, String> {
    match engine {
        Engine::RustHdl => Ok(Box::new(RustHdlSim::new(block)?)),
        Engine::Verilator => {
            let top = export_block(name, &mut block, &format!("{name} (testbench build)"))?;
            Ok(Box::new(VerilatorSim::build(&top)?))
        }
    }
}

/// The framer alone at `width` bytes per beat.
pub fn framer(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_framer_w{W}"),
        TxFramer::<W, B>::new()
    ))
}

/// The Marker inserter alone at `width` bytes per beat.
pub fn marker_inserter(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_marker_inserter_w{W}"),
        TxMarkerInserter::<W, B>::new()
    ))
}

/// The CRC unit alone at `width` bytes per beat.
pub fn crc_unit(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_crc_unit_w{W}"),
        TxCrcUnit::<W, B>::new()
    ))
}

/// The segmenter alone at `width` bytes per beat.
pub fn segmenter(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_segmenter_w{W}"),
        TxSegmenter::<W, B>::new()
    ))
}

/// An exported top on either engine: the rust-hdl model `make` builds (every signal to `vcd` if
/// given; [`Engine::RustHdl`] only) or the exported Verilog of `spec` on Verilator.
pub fn top_engine<T: crate::rusthdl::DirectTop + 'static>(
    engine: Engine,
    spec: &hdl::export::TopSpec,
    make: impl FnOnce() -> T,
    vcd: Option<&std::path::Path>,
) -> Result<Box<dyn CycleSim>, String> {
    match engine {
        Engine::RustHdl => {
            let mut sim = RustHdlSim::new(make())?;
            if let Some(p) = vcd {
                sim = sim.with_vcd(p)?;
            }
            Ok(Box::new(sim))
        }
        Engine::Verilator => {
            if vcd.is_some() {
                return Err("a VCD needs the rusthdl engine".into());
            }
            let top = crate::export::export_top(spec)?;
            Ok(Box::new(VerilatorSim::build(&top)?))
        }
    }
}

/// The transmit datapath `mpa_tx` at `width` bytes per beat: the rust-hdl model (VCD to `vcd`
/// if given) or the exported `mpa_tx_w<W>.v` on Verilator.
pub fn mpa_tx(
    engine: Engine,
    width: usize,
    vcd: Option<&std::path::Path>,
) -> Result<Box<dyn CycleSim>, String> {
    let spec = hdl::export::mpa_tx_spec(width)?;
    with_width!(width, |W, B| top_engine(engine, &spec, MpaTx::<W, B>::new, vcd))
}

/// Settings of one `mpa_tx` run.
#[derive(Clone, Copy, Debug)]
pub struct TxSettings {
    /// Markers on.
    pub markers: bool,
    /// CRC on.
    pub crc: bool,
    /// EMSS in octets.
    pub emss: u32,
    /// Sequence number of the first octet.
    pub seq: u32,
    /// Sequence number of the marker origin.
    pub origin: u32,
}

/// One ULPDU for `mpa_tx`: its octets, the ULPDU_Length to declare, push.
#[derive(Clone, Debug)]
pub struct TxUlpdu {
    /// The octets sent.
    pub data: Vec<u8>,
    /// ULPDU_Length on the first beat (normally `data.len()`).
    pub declared: usize,
    /// Close the segment after this FPDU.
    pub push: bool,
}

impl TxUlpdu {
    /// A well-formed ULPDU.
    pub fn new(data: Vec<u8>, push: bool) -> Self {
        let declared = data.len();
        TxUlpdu { data, declared, push }
    }
}

/// What `mpa_tx` sent.
#[derive(Clone, Debug, Default)]
pub struct TxRun {
    /// Segments: sequence number of the first octet and payload.
    pub segments: Vec<(u32, Vec<u8>)>,
    /// Pulses counted: err_length, err_too_long, oversize_fpdu.
    pub err_length: u64,
    /// ULPDUs dropped for a ULPDU_Length above 64768.
    pub err_too_long: u64,
    /// FPDUs longer than EMSS.
    pub oversize_fpdus: u64,
    /// The MULPDU output at the end of the run.
    pub mulpdu: u32,
    /// The harness' statistics.
    pub stats: crate::packet::PacketResult,
}

/// Resets `mpa_tx` with `settings`, sends `ulpdus` and collects the segments. `cfg_idle` is 0
/// (no idle limit) unless `opts.settings` sets it (settings there are applied after these).
pub fn run_tx(
    sim: &mut dyn CycleSim,
    settings: &TxSettings,
    ulpdus: &[TxUlpdu],
    opts: &crate::packet::PacketRun,
) -> Result<TxRun, String> {
    let packets: Vec<crate::packet::InPacket> = ulpdus
        .iter()
        .map(|u| crate::packet::InPacket {
            data: u.data.clone(),
            // ULPDU_Length is the declared length's low 16 bits (the framer checks the rest
            // against the octets it gets).
            user: TxUlpduUser { len: u.declared as u64 & 0xFFFF, push: u.push }.pack(),
        })
        .collect();
    let opts = crate::packet::PacketRun {
        settings: vec![
            ("cfg_markers".into(), settings.markers as u64),
            ("cfg_crc".into(), settings.crc as u64),
            ("cfg_emss".into(), settings.emss.min(0xFFFF) as u64),
            ("cfg_seq".into(), settings.seq as u64),
            ("cfg_origin".into(), settings.origin as u64),
            ("cfg_idle".into(), 0),
        ]
        .into_iter()
        .chain(opts.settings.iter().cloned())
        .collect(),
        pulses: vec!["err_length".into(), "err_too_long".into(), "oversize_fpdu".into()],
        ..opts.clone()
    };
    let res = crate::packet::run_packets(sim, &packets, &opts)?;
    let m = sim.port("mulpdu")?;
    let mulpdu = sim.get_u64(m) as u32;
    Ok(TxRun {
        segments: res.packets.iter().map(|p| (p.user() as u32, p.data.clone())).collect(),
        err_length: res.pulse_counts[0],
        err_too_long: res.pulse_counts[1],
        oversize_fpdus: res.pulse_counts[2],
        mulpdu,
        stats: res,
    })
}

/// `mpa_tx`'s output rate for `n` ULPDUs of `size` octets (CRC and Markers on, EMSS `emss`, no
/// idle and no backpressure): output (TCP segment) beats per cycle from the first output beat
/// to the last. With `push_each` every FPDU closes its segment (one FPDU per segment, as DDP
/// sizes ULPDUs to MULPDU); without it FPDUs are packed up to EMSS and only the last is pushed.
/// The concatenated segments are checked against the golden framer's stream, and the segment
/// count against the golden segmenter's, so a rate is never reported for wrong output.
pub fn measure_rate(
    engine: Engine,
    width: usize,
    size: usize,
    n: usize,
    emss: u32,
    push_each: bool,
) -> Result<f64, String> {
    if n == 0 {
        return Err("n must be at least 1".into());
    }
    let settings = TxSettings { markers: true, crc: true, emss, seq: 0, origin: 0 };
    let ulpdus: Vec<TxUlpdu> = (0..n)
        .map(|k| {
            let data: Vec<u8> = (0..size).map(|i| (i * 13 + k * 7) as u8).collect();
            TxUlpdu::new(data, push_each || k + 1 == n)
        })
        .collect();
    let cfg = golden::fpdu::FramingConfig { markers: true, crc: true, offset: 0 };
    let mut framer = golden::fpdu::Framer::new(cfg).map_err(|e| e.to_string())?;
    let mut fpdus = vec![];
    for u in &ulpdus {
        fpdus.push((framer.frame(&u.data).map_err(|e| e.to_string())?, u.push));
    }
    let want: Vec<u8> = fpdus.iter().flat_map(|(f, _)| f.iter().copied()).collect();
    let emss_eff = golden::segment::effective_emss(emss);
    let want_segments = golden::segment::segment_fpdus_with_push(&fpdus, emss_eff, 0)
        .map_err(|e| format!("{e:?}"))?
        .segments
        .len();
    let mut sim = mpa_tx(engine, width, None)?;
    let run = run_tx(sim.as_mut(), &settings, &ulpdus, &crate::packet::PacketRun::default())?;
    let got: Vec<u8> = run.segments.iter().flat_map(|(_, d)| d.iter().copied()).collect();
    if got != want || run.segments.len() != want_segments {
        return Err(format!(
            "W={width}: {} octets in {} segments, the golden model {} in {want_segments}",
            got.len(),
            run.segments.len(),
            want.len()
        ));
    }
    let first = run.stats.packets[0].first_cycle;
    let last = run.stats.packets.last().map(|p| p.last_cycle).unwrap_or(first);
    Ok(run.stats.beats_out as f64 / (last - first + 1) as f64)
}
