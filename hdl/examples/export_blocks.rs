//! Writes every transmit and receive block and the placement blocks (`place_check` has no width)
//! alone, with no stream wrapper beyond its own, for the widths given on the command line
//! (default 8) to `build/verilog/blocks/`, for per-block synthesis numbers
//! (`fpga/ecp5_ooc.sh build/verilog/blocks/tx_framer_w8.v tx_framer_w8`, or
//! `rnic synth --top place_locate --verilog-dir build/verilog/blocks`).
//!
//! Built only with the feature of its name (`cargo run -p hdl --features export-blocks
//! --example export_blocks 8`), so that `cargo test` does not spend minutes compiling it.

use hdl::export::export_block;
use hdl::place::check::PlaceCheck;
use hdl::place::header::PlaceHeader;
use hdl::place::locate::PlaceLocate;
use hdl::place::reassembly::{ring_bits, PlaceReassembly, RECORD_ENTRIES};
use hdl::place::rnic_rx::{POSTED_SLOT_BITS, STAG_INDEX_BITS};
use hdl::place::writer::PlaceWriter;
use hdl::rx::{
    crc_check::RxCrcCheck, delineator::RxDelineator, marker_stripper::RxMarkerStripper,
    realigner::RxRealigner,
};
use hdl::tx::{
    crc_unit::TxCrcUnit, framer::TxFramer, marker_inserter::TxMarkerInserter,
    segmenter::TxSegmenter,
};
use std::path::Path;

fn write<T: rust_hdl::prelude::Block>(dir: &Path, name: &str, mut b: T) {
    let top =
        export_block(name, &mut b, &format!("{name}: one block alone, for measurements")).unwrap();
    std::fs::write(dir.join(format!("{name}.v")), top.verilog).unwrap();
    println!("{}", dir.join(format!("{name}.v")).display());
}

fn main() {
    let dir = Path::new("build/verilog/blocks");
    std::fs::create_dir_all(dir).unwrap();
    let widths: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    for w in if widths.is_empty() { vec![8] } else { widths } {
        hdl::with_width!(w, |W, B| {
            write(dir, &format!("tx_framer_w{W}"), TxFramer::<W, B>::new());
            write(dir, &format!("tx_marker_inserter_w{W}"), TxMarkerInserter::<W, B>::new());
            write(dir, &format!("tx_crc_unit_w{W}"), TxCrcUnit::<W, B>::new());
            write(dir, &format!("tx_segmenter_w{W}"), TxSegmenter::<W, B>::new());
            write(dir, &format!("rx_realigner_w{W}"), RxRealigner::<W, B>::new());
            write(dir, &format!("rx_delineator_w{W}"), RxDelineator::<W, B>::new());
            write(dir, &format!("rx_crc_check_w{W}"), RxCrcCheck::<W, B>::new());
            write(dir, &format!("rx_marker_stripper_w{W}"), RxMarkerStripper::<W, B>::new());
            const V: usize = hdl::place::locate::locate_width(W);
            write(dir, &format!("place_locate_w{W}"), PlaceLocate::<W, B, V, { 8 * V }>::new());
            const RD: usize = ring_bits(W);
            write(
                dir,
                &format!("place_reassembly_w{W}"),
                PlaceReassembly::<W, B, RD, RECORD_ENTRIES, V, { 8 * V }>::new(),
            );
            write(dir, &format!("place_header_w{W}"), PlaceHeader::<W, B>::new());
            write(dir, &format!("place_writer_w{W}"), PlaceWriter::<W, B>::new());
        });
    }
    write(dir, "place_check", PlaceCheck::<STAG_INDEX_BITS, POSTED_SLOT_BITS>::new());
}
