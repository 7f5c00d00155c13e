//! The transmit blocks ([`hdl::tx`]) under simulation: bindings for the direct-drive engine and
//! a builder for either engine.

use crate::rusthdl::RustHdlSim;
use crate::verilator::VerilatorSim;
use crate::CycleSim;
use hdl::export::export_block;
use hdl::tx::crc_unit::TxCrcUnit;
use hdl::tx::framer::TxFramer;
use hdl::tx::marker_inserter::TxMarkerInserter;
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
    in rst, in cfg_emss, in cfg_seq, in cfg_origin, sink s_axis, source m_axis, out oversize
});

/// Any block on either engine: the rust-hdl model driven directly (`rusthdl`) or its exported
/// Verilog, named `name`, on Verilator (`verilator`).
pub fn block_engine<T: crate::rusthdl::DirectTop + 'static>(
    engine: &str,
    name: &str,
    mut block: T,
) -> Result<Box<dyn CycleSim>, String> {
    match engine {
        "rusthdl" => Ok(Box::new(RustHdlSim::new(block)?)),
        "verilator" => {
            let top = export_block(name, &mut block, &format!("{name} (testbench build)"))?;
            Ok(Box::new(VerilatorSim::build(&top)?))
        }
        other => Err(format!("unknown engine {other} (use rusthdl or verilator)")),
    }
}

/// The framer alone at `width` bytes per beat.
pub fn framer(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_framer_w{W}"),
        TxFramer::<W, B>::new()
    ))
}

/// The Marker inserter alone at `width` bytes per beat.
pub fn marker_inserter(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_marker_inserter_w{W}"),
        TxMarkerInserter::<W, B>::new()
    ))
}

/// The CRC unit alone at `width` bytes per beat.
pub fn crc_unit(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_crc_unit_w{W}"),
        TxCrcUnit::<W, B>::new()
    ))
}

/// The segmenter alone at `width` bytes per beat.
pub fn segmenter(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("tx_segmenter_w{W}"),
        TxSegmenter::<W, B>::new()
    ))
}
