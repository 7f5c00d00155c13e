//! The receive blocks ([`hdl::rx`]) under simulation: bindings for the direct-drive engine and
//! builders for either engine.

use crate::tx::block_engine;
use crate::CycleSim;
use crate::Engine;
use hdl::rx::crc_check::RxCrcCheck;
use hdl::rx::delineator::RxDelineator;
use hdl::rx::marker_stripper::RxMarkerStripper;
use hdl::rx::mpa_rx::{buffer_bits, MpaRx};
use hdl::rx::mpa_rx_conns::MpaRxConns;
use hdl::rx::mpa_rx_ctx::MpaRxCtx;
use hdl::rx::mpa_rx_table::MpaRxTable;
use hdl::rx::realign_table::RxRealignerTable;
use hdl::rx::realigner::RxRealigner;
use hdl::rx::release::RxRelease;
use hdl::rx::release_regions::RxReleaseRegions;
use hdl::rx::verify::RxVerify;
use hdl::rx::walker::RxFpduWalker;
use hdl::sideband::RxUlpduUser;
use hdl::with_width;

crate::direct_top!([const W: usize, const B: usize] RxRealigner<W, B> {
    in rst, in cfg_seq, in cfg_origin, sink s_axis, source m_axis, out err_seq, out seq_gap,
    out cfg_misaligned, out busy, in0 ctx_in, in0 ctx_load, out0 ctx_out, out0 ctx_idle
});

crate::direct_top!([const W: usize, const B: usize] RxRealignerTable<W, B> {
    in rst, in tbl_we, in tbl_conn, in tbl_rec, sink s_axis, source m_axis, out err_seq,
    out err_conn, out busy
});

crate::direct_top!([const W: usize, const B: usize] RxDelineator<W, B> {
    in rst, in cfg_seq, in cfg_origin, in cfg_markers, in cfg_crc, in cfg_max_ulpdu, sink s_axis,
    source m_axis, out busy, in0 ctx_walk_in, in0 ctx_cut_in, in0 ctx_words_in, in0 ctx_load,
    out0 ctx_walk_out, out0 ctx_cut_out, out0 ctx_words_out
});

crate::direct_top!([const W: usize, const B: usize] RxFpduWalker<W, B> {
    in rst, in cfg_seq, in cfg_origin, in cfg_markers, in cfg_max_ulpdu, sink s_axis,
    source m_axis, out busy, in0 ctx_in, in0 ctx_load, out0 ctx_out
});

crate::direct_top!([const W: usize, const B: usize] RxCrcCheck<W, B> {
    in rst, sink s_axis, source m_axis, out err_crc, in0 ctx_in, in0 ctx_load, in0 ctx_flush,
    out0 ctx_out, out0 ctx_idle
});

crate::direct_top!([const W: usize, const B: usize] RxMarkerStripper<W, B> {
    in rst, sink s_axis, source m_axis, out err_marker, in0 ctx_in, in0 ctx_words_in,
    in0 ctx_load, out0 ctx_out, out0 ctx_words_out, out0 ctx_idle
});

crate::direct_top!([const W: usize, const B: usize] RxVerify<W, B> {
    in rst, in cfg_seq, in cfg_origin, in cfg_markers, in cfg_crc, in cfg_max_ulpdu, sink s_axis,
    source m_axis, out fpdu_done, out fpdu_end, out err_seq, out seq_gap, out err_crc,
    out err_marker, out cfg_misaligned, out pkt_end, out front_busy,
    in0 ctx_realign_in, in0 ctx_walk_in, in0 ctx_cut_in, in0 ctx_cut_words_in, in0 ctx_crc_in,
    in0 ctx_strip_in, in0 ctx_strip_words_in, in0 ctx_end_in, in0 ctx_load, in0 ctx_flush,
    out0 ctx_realign_out, out0 ctx_walk_out, out0 ctx_cut_out, out0 ctx_cut_words_out,
    out0 ctx_crc_out, out0 ctx_strip_out, out0 ctx_strip_words_out, out0 ctx_end_out,
    out0 ctx_idle
});

crate::direct_top!([const W: usize, const B: usize, const A: usize] MpaRxCtx<W, B, A> {
    in rst, in cfg_seq, in cfg_origin, in cfg_markers, in cfg_crc, in cfg_max_ulpdu, sink s_axis,
    source m_axis, out m_conn, out err_seq, out seq_gap, out err_crc, out err_marker,
    out dropped, out cfg_misaligned,
    in0 ctx_realign_in, in0 ctx_walk_in, in0 ctx_cut_in, in0 ctx_cut_words_in, in0 ctx_crc_in,
    in0 ctx_strip_in, in0 ctx_strip_words_in, in0 ctx_end_in, in0 ctx_rel_in, in0 ctx_load,
    in0 ctx_flush, out0 ctx_realign_out, out0 ctx_walk_out, out0 ctx_cut_out,
    out0 ctx_cut_words_out, out0 ctx_crc_out, out0 ctx_strip_out, out0 ctx_strip_words_out,
    out0 ctx_end_out, out0 ctx_rel_out, out0 ctx_idle
});

/// `mpa_rx` serving `regions` connections with context records ([`MpaRxCtx`]; its 16 KiB
/// release buffer cut into a region per connection) at `width` bytes per beat.
pub fn mpa_rx_ctx(
    engine: Engine,
    width: usize,
    regions: usize,
) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    if !regions.is_power_of_two() || regions > 16 {
        return Err(format!("mpa_rx_ctx: regions = {regions} must be 1, 2, 4, 8 or 16"));
    }
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        block_engine(
            engine,
            &format!("mpa_rx_ctx_w{W}_r{regions}"),
            MpaRxCtx::<W, B, A>::new(regions),
        )
    })
}

crate::direct_top!([const W: usize, const B: usize, const A: usize] MpaRxTable<W, B, A> {
    in rst, in tbl_we, in tbl_conn, in tbl_seq, in tbl_origin, in tbl_markers,
    in tbl_crc_on, in tbl_max_ulpdu, sink s_axis, source m_axis, out m_conn, out err_seq,
    out err_crc, out err_marker, out dropped, out err_conn, out seq_gap, out cfg_misaligned,
    out switching
});

/// `mpa_rx` for 16 connections with their records in tables ([`MpaRxTable`]; a 16 KiB
/// release buffer, a region per connection) at `width` bytes per beat.
pub fn mpa_rx_table(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        block_engine(engine, &format!("mpa_rx_table_w{W}"), MpaRxTable::<W, B, A>::new())
    })
}

crate::direct_top!([const W: usize, const B: usize, const A: usize] MpaRxConns<W, B, A> {
    in rst, axil_slave s_axil, sink s_axis, source m_axis, out m_conn, out err_seq, out err_crc,
    out err_marker, out dropped, out err_conn, out switching, out seq_gap, out cfg_misaligned
});

/// [`mpa_rx_table`] behind its AXI4-Lite registers ([`MpaRxConns`]) at `width` bytes per beat: the
/// rust-hdl model or the exported top `mpa_rx_conns_w<W>` on Verilator.
pub fn mpa_rx_conns(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    let spec = hdl::export::mpa_rx_conns_spec(width)?;
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        crate::tx::top_engine(engine, &spec, MpaRxConns::<W, B, A>::new, None)
    })
}

/// [`MpaRxConns`]'s Verilog at `width`: the exported top `mpa_rx_conns_w<W>`.
pub fn mpa_rx_conns_verilog(width: usize) -> Result<hdl::export::ExportedTop, String> {
    crate::export::export_top(&hdl::export::mpa_rx_conns_spec(width)?)
}

/// The largest ULPDU_Length [`mpa_rx_ctx`] accepts with `regions` regions (a region's size).
pub fn mpa_rx_ctx_max_ulpdu(width: usize, regions: usize) -> Result<u32, String> {
    hdl::export::check_width(width)?;
    Ok(with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        MpaRxCtx::<W, B, A>::max_ulpdu(regions) as u32
    }))
}

/// The verification path (`mpa_rx` without its release buffer: ULPDUs cut-through with their
/// verdicts) at `width` bytes per beat; with `context`, built with every block's context
/// record ([`RxVerify::with_context`]).
pub fn verify(engine: Engine, width: usize, context: bool) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| if context {
        block_engine(engine, &format!("rx_verify_ctx_w{W}"), RxVerify::<W, B>::with_context())
    } else {
        block_engine(engine, &format!("rx_verify_w{W}"), RxVerify::<W, B>::new())
    })
}

/// The realigner alone at `width` bytes per beat.
pub fn realigner(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_realigner_w{W}"),
        RxRealigner::<W, B>::new()
    ))
}

/// The realigner built with its context ports ([`RxRealigner::with_context`]: `ctx_in_0`,
/// `ctx_load_0`, `ctx_out_0`, `ctx_idle_0`) at `width` bytes per beat.
pub fn realigner_with_context(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_realigner_ctx_w{W}"),
        RxRealigner::<W, B>::with_context()
    ))
}

/// The realigner with its table of 16 connections' records ([`RxRealignerTable`]) at `width`
/// bytes per beat.
pub fn realigner_table(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_realigner_table_w{W}"),
        RxRealignerTable::<W, B>::new()
    ))
}

/// Input beats per cycle of [`realigner_table`] for `conns` connections' `len`-octet segments in
/// sequence, the connection changing with every segment (round robin, 8 rounds), no idle, no
/// backpressure: each switch costs the realigner's drain and the load's cycle. With one
/// connection, no switch.
pub fn realigner_table_rate(
    engine: Engine,
    width: usize,
    conns: u64,
    len: usize,
) -> Result<f64, String> {
    use crate::stream::{message_beats, Pattern, ReadyDriver, StreamDriver, StreamPorts};
    use hdl::rx::realign_table::{RealignCtx, RxConnSegmentUser};
    let mut sim = realigner_table(engine, width)?;
    let sim = sim.as_mut();
    let (we, conn, rec) = (sim.port("tbl_we")?, sim.port("tbl_conn")?, sim.port("tbl_rec")?);
    sim.set_u64(we, 0);
    sim.reset(2)?;
    let seq0 = |c: u64| (c as u32).wrapping_mul(0x9E37_79B9);
    for c in 0..conns {
        sim.set_u64(we, 1);
        sim.set_u64(conn, c);
        sim.set_u64(rec, RealignCtx::fresh(seq0(c), 0).pack());
        sim.eval();
        sim.tick();
    }
    sim.set_u64(we, 0);
    let mut beats = vec![];
    for k in 0..8u32 {
        for c in 0..conns {
            let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31) ^ k as u8).collect();
            let seq = seq0(c).wrapping_add(k * len as u32);
            let user = RxConnSegmentUser { seq: seq as u64, fin: false, conn: c };
            beats.extend(message_beats(&data, width, user.pack(), 0));
        }
    }
    let total = beats.len() as u64;
    let mut src = StreamDriver::new(StreamPorts::find(sim, "s_axis")?, Pattern::Always);
    let mut snk = ReadyDriver::new(StreamPorts::find(sim, "m_axis")?, Pattern::Always);
    src.push(beats);
    let start = sim.cycles();
    while src.pending() > 0 {
        if sim.cycles() - start > 20 * total {
            return Err(format!("W={width}: {} of {total} beats taken", src.sent));
        }
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        src.sample(sim);
        snk.sample(sim);
        sim.tick();
    }
    Ok(total as f64 / (sim.cycles() - start) as f64)
}

/// The delineator alone at `width` bytes per beat.
pub fn delineator(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_delineator_w{W}"),
        RxDelineator::<W, B>::new()
    ))
}

/// The delineator built with the context ports of both halves
/// ([`RxDelineator::with_context`]: `ctx_walk_in_0`, `ctx_cut_in_0`, `ctx_words_in_0`,
/// `ctx_load_0` and the three `_out_0`) at `width` bytes per beat.
pub fn delineator_with_context(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_delineator_ctx_w{W}"),
        RxDelineator::<W, B>::with_context()
    ))
}

/// The FPDU walker alone at `width` bytes per beat.
pub fn walker(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_fpdu_walker_w{W}"),
        RxFpduWalker::<W, B>::new()
    ))
}

/// The FPDU walker built with its context ports ([`RxFpduWalker::with_context`]: `ctx_in_0`,
/// `ctx_load_0`, `ctx_out_0`) at `width` bytes per beat.
pub fn walker_with_context(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_fpdu_walker_ctx_w{W}"),
        RxFpduWalker::<W, B>::with_context()
    ))
}

/// The CRC check alone at `width` bytes per beat.
pub fn crc_check(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_crc_check_w{W}"),
        RxCrcCheck::<W, B>::new()
    ))
}

/// The CRC check built with its context ports and a resumable engine
/// ([`RxCrcCheck::with_context`]: `ctx_in_0`, `ctx_load_0`, `ctx_flush_0`, `ctx_out_0`,
/// `ctx_idle_0`) at `width` bytes per beat.
pub fn crc_check_with_context(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_crc_check_ctx_w{W}"),
        RxCrcCheck::<W, B>::with_context()
    ))
}

/// The Marker stripper (and PAD/CRC removal) alone at `width` bytes per beat.
pub fn marker_stripper(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_marker_stripper_w{W}"),
        RxMarkerStripper::<W, B>::new()
    ))
}

/// The Marker stripper built with its context ports ([`RxMarkerStripper::with_context`]:
/// `ctx_in_0`, `ctx_words_in_0`, `ctx_load_0`, `ctx_out_0`, `ctx_words_out_0`, `ctx_idle_0`) at
/// `width` bytes per beat.
pub fn marker_stripper_with_context(
    engine: Engine,
    width: usize,
) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_marker_stripper_ctx_w{W}"),
        RxMarkerStripper::<W, B>::with_context()
    ))
}

crate::direct_top!([const W: usize, const B: usize, const A: usize] RxRelease<W, B, A> {
    in rst, sink s_axis, source m_axis, out dropped
});

crate::direct_top!([const W: usize, const B: usize, const A: usize] MpaRx<W, B, A> {
    in rst, in cfg_seq, in cfg_origin, in cfg_markers, in cfg_crc, in cfg_max_ulpdu, sink s_axis,
    source m_axis, out err_seq, out seq_gap, out err_crc, out err_marker, out dropped,
    out cfg_misaligned, out pkt_end, out front_busy
});

/// The release buffer alone at `width` bytes per beat: 16 beats when `small` (to test a full
/// buffer), otherwise the size `mpa_rx` uses (16 KiB).
pub fn release(engine: Engine, width: usize, small: bool) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        if small {
            block_engine(engine, &format!("rx_release_w{W}_a4"), RxRelease::<W, B, 4>::new())
        } else {
            block_engine(engine, &format!("rx_release_w{W}"), RxRelease::<W, B, A>::new())
        }
    })
}

crate::direct_top!([const W: usize, const B: usize, const A: usize] RxReleaseRegions<W, B, A> {
    in rst, sink s_axis, source m_axis, out m_conn, out dropped, in ctx_in, in ctx_load,
    out ctx_out
});

/// The release buffer with 16 regions ([`RxReleaseRegions`]) alone at `width` bytes per beat,
/// connection 0 loaded (its fresh record, at `rst`): 16 beats per region when `small` (256 in
/// all), otherwise 1 KiB per region (the 16 KiB `mpa_rx` has).
pub fn release_regions(
    engine: Engine,
    width: usize,
    small: bool,
) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        if small {
            let b = RxReleaseRegions::<W, B, 8>::new(16);
            block_engine(engine, &format!("rx_release_regions_w{W}_a8"), b)
        } else {
            let b = RxReleaseRegions::<W, B, A>::new(16);
            block_engine(engine, &format!("rx_release_regions_w{W}"), b)
        }
    })
}

/// The receive datapath `mpa_rx` at `width` bytes per beat, as exported (`mpa_rx_w<W>`, a 16 KiB
/// release buffer); `vcd` (rusthdl only) writes every signal.
pub fn mpa_rx_vcd(
    engine: Engine,
    width: usize,
    vcd: Option<&std::path::Path>,
) -> Result<Box<dyn CycleSim>, String> {
    let spec = hdl::export::mpa_rx_spec(width)?;
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        crate::tx::top_engine(engine, &spec, MpaRx::<W, B, A>::new, vcd)
    })
}

/// [`mpa_rx_vcd`] without a waveform.
pub fn mpa_rx(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    mpa_rx_vcd(engine, width, None)
}

/// The largest ULPDU_Length the exported `mpa_rx_w<W>` accepts (its release buffer).
pub fn mpa_rx_max_ulpdu(width: usize) -> Result<u32, String> {
    hdl::export::check_width(width)?;
    Ok(with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        MpaRx::<W, B, A>::max_ulpdu() as u32
    }))
}

/// Settings of a receive run.
#[derive(Clone, Copy, Debug)]
pub struct RxSettings {
    /// Markers expected.
    pub markers: bool,
    /// CRCs checked.
    pub crc: bool,
    /// Sequence number of the first octet of the stream.
    pub seq: u32,
    /// Sequence number of the marker origin.
    pub origin: u32,
    /// Largest ULPDU_Length accepted (clamped by the hardware to its buffer).
    pub max_ulpdu: u16,
}

/// A ULPDU released by `mpa_rx`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxUlpdu {
    /// Sequence number of its FPDU.
    pub seq: u32,
    /// Its octets.
    pub data: Vec<u8>,
}

/// The error packet of `mpa_rx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxError {
    /// Sequence number of the FPDU found bad.
    pub seq: u32,
    /// RFC 5044 section 8 code (1, 2 or 3).
    pub code: u8,
}

/// What a receive run produced.
#[derive(Clone, Debug)]
pub struct RxRun {
    /// The ULPDUs released, in order.
    pub ulpdus: Vec<RxUlpdu>,
    /// The error packet, if one came (always the last packet).
    pub error: Option<RxError>,
    /// Pulse counts: err_seq, err_crc, err_marker, dropped.
    pub pulses: [u64; 4],
    /// The harness' statistics.
    pub stats: crate::packet::PacketResult,
}

/// Resets `mpa_rx` with `settings`, sends `segments` (sideband: `[31:0]` sequence number,
/// `[32]` FIN) and collects the ULPDUs and the error packet. Fails if an output packet breaks
/// the output rules: sideband not the same on every beat, a ULPDU whose length disagrees with
/// its ULPDU_Length, an error packet with octets or not the last packet.
pub fn run_rx(
    sim: &mut dyn CycleSim,
    settings: &RxSettings,
    segments: &[crate::packet::InPacket],
    opts: &crate::packet::PacketRun,
) -> Result<RxRun, String> {
    let opts = crate::packet::PacketRun {
        settings: vec![
            ("cfg_markers".into(), settings.markers as u64),
            ("cfg_crc".into(), settings.crc as u64),
            ("cfg_seq".into(), settings.seq as u64),
            ("cfg_origin".into(), settings.origin as u64),
            ("cfg_max_ulpdu".into(), settings.max_ulpdu as u64),
        ],
        pulses: vec!["err_seq".into(), "err_crc".into(), "err_marker".into(), "dropped".into()],
        ..opts.clone()
    };
    let res = crate::packet::run_packets(sim, segments, &opts)?;
    let mut ulpdus = vec![];
    let mut error = None;
    for (i, p) in res.packets.iter().enumerate() {
        let u = p.user();
        if p.users.iter().any(|&x| x != u) {
            return Err(format!("packet {i}: sideband changes inside the packet: {:x?}", p.users));
        }
        if error.is_some() {
            return Err(format!("packet {i} came after the error packet"));
        }
        let f = RxUlpduUser::unpack(u);
        let seq = f.seq as u32;
        if f.err {
            if !p.data.is_empty() || p.users.len() != 1 {
                return Err(format!("packet {i}: the error packet is not one null beat"));
            }
            error = Some(RxError { seq, code: f.code as u8 });
            continue;
        }
        let len = f.len as usize;
        if len != p.data.len() {
            return Err(format!(
                "packet {i}: {} octets released for ULPDU_Length {len}",
                p.data.len()
            ));
        }
        ulpdus.push(RxUlpdu { seq, data: p.data.clone() });
    }
    let c = &res.pulse_counts;
    Ok(RxRun { ulpdus, error, pulses: [c[0], c[1], c[2], c[3]], stats: res })
}

/// Segment beats per cycle through `mpa_rx` (first to last input beat) for `n` ULPDUs of `size`
/// octets framed with CRCs (and Markers when `markers`), one TCP segment per FPDU, no idle and no
/// backpressure.
pub fn measure_rate(
    engine: Engine,
    width: usize,
    size: usize,
    n: usize,
    markers: bool,
) -> Result<f64, String> {
    measure_rate_packed(engine, width, size, n, 1, markers)
}

/// [`measure_rate`] with `per_segment` FPDUs in each TCP segment (the last segment may hold
/// fewer), as a sender packs small FPDUs.
pub fn measure_rate_packed(
    engine: Engine,
    width: usize,
    size: usize,
    n: usize,
    per_segment: usize,
    markers: bool,
) -> Result<f64, String> {
    if per_segment == 0 {
        return Err("per_segment must be at least 1".into());
    }
    let cfg = golden::fpdu::FramingConfig { markers, crc: true, offset: 0 };
    let mut framer = golden::fpdu::Framer::new(cfg).map_err(|e| e.to_string())?;
    let mut segs: Vec<crate::packet::InPacket> = vec![];
    let mut seq = 0u32;
    for k in 0..n {
        let u: Vec<u8> = (0..size).map(|i| (i * 7 + k) as u8).collect();
        let fp = framer.frame(&u).map_err(|e| e.to_string())?;
        let len = fp.len() as u32;
        if k % per_segment == 0 {
            segs.push(crate::packet::InPacket { data: fp, user: seq as u64 });
        } else if let Some(s) = segs.last_mut() {
            s.data.extend_from_slice(&fp);
        }
        seq = seq.wrapping_add(len);
    }
    if let Some(s) = segs.last_mut() {
        s.set_fin();
    }
    let mut sim = mpa_rx(engine, width)?;
    let settings = RxSettings { markers, crc: true, seq: 0, origin: 0, max_ulpdu: 65535 };
    let opts = crate::packet::PacketRun { expect_packets: Some(n), ..Default::default() };
    let run = run_rx(sim.as_mut(), &settings, &segs, &opts)?;
    if run.ulpdus.len() != n || run.error.is_some() {
        return Err(format!("{} ULPDUs and {:?} for {n} good FPDUs", run.ulpdus.len(), run.error));
    }
    let st = &run.stats;
    let span = st.in_last_cycles.last().unwrap() - st.in_first_cycles[0] + 1;
    Ok(st.beats_in as f64 / span as f64)
}

/// Cycles from the transfer of an FPDU's last octet to the transfer of its ULPDU's first beat,
/// for one FPDU (a `size`-octet ULPDU, CRC on, no Markers) alone in one segment.
pub fn measure_latency(engine: Engine, width: usize, size: usize) -> Result<u64, String> {
    let cfg = golden::fpdu::FramingConfig { markers: false, crc: true, offset: 0 };
    let u: Vec<u8> = (0..size).map(|i| i as u8).collect();
    let fp =
        golden::fpdu::Framer::new(cfg).and_then(|mut f| f.frame(&u)).map_err(|e| e.to_string())?;
    let mut sim = mpa_rx(engine, width)?;
    let settings = RxSettings { markers: false, crc: true, seq: 0, origin: 0, max_ulpdu: 65535 };
    let opts = crate::packet::PacketRun { expect_packets: Some(1), ..Default::default() };
    let seg = [crate::packet::InPacket::segment(fp, 0, true)];
    let run = run_rx(sim.as_mut(), &settings, &seg, &opts)?;
    Ok(run.stats.packets[0].first_cycle - run.stats.in_last_cycles[0])
}
