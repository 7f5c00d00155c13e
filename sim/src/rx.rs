//! The receive blocks ([`hdl::rx`]) under simulation: bindings for the direct-drive engine and
//! builders for either engine.

use crate::tx::block_engine;
use crate::CycleSim;
use hdl::rx::crc_check::RxCrcCheck;
use hdl::rx::deframer::RxDeframer;
use hdl::rx::delineator::RxDelineator;
use hdl::rx::realigner::RxRealigner;
use hdl::with_width;

crate::direct_top!([const W: usize, const B: usize] RxRealigner<W, B> {
    in rst, in cfg_seq, in cfg_origin, sink s_axis, source m_axis, out err_seq, out cfg_misaligned
});

crate::direct_top!([const W: usize, const B: usize] RxDelineator<W, B> {
    in rst, in cfg_seq, in cfg_origin, in cfg_markers, in cfg_crc, in cfg_max_ulpdu, sink s_axis,
    source m_axis
});

crate::direct_top!([const W: usize, const B: usize] RxCrcCheck<W, B> {
    in rst, sink s_axis, source m_axis, out err_crc
});

crate::direct_top!([const W: usize, const B: usize] RxDeframer<W, B> {
    in rst, sink s_axis, source m_axis, out err_marker
});

/// The realigner alone at `width` bytes per beat.
pub fn realigner(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_realigner_w{W}"),
        RxRealigner::<W, B>::new()
    ))
}

/// The delineator alone at `width` bytes per beat.
pub fn delineator(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_delineator_w{W}"),
        RxDelineator::<W, B>::new()
    ))
}

/// The CRC check alone at `width` bytes per beat.
pub fn crc_check(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_crc_check_w{W}"),
        RxCrcCheck::<W, B>::new()
    ))
}

/// The deframer (Marker stripper, PAD/CRC removal) alone at `width` bytes per beat.
pub fn deframer(engine: &str, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("rx_deframer_w{W}"),
        RxDeframer::<W, B>::new()
    ))
}
