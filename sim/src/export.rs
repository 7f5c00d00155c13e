//! The exported tops at a runtime width: [`export_top`] builds one [`TopSpec`]
//! ([`hdl::export::export_top_at`] at its width), [`write_tops`] writes every top of a width (the
//! `rnic export` command), [`board_verilog`] the file a board build synthesizes.
//!
//! Here rather than in `hdl::export`: picking the width at run time instantiates every top, with
//! all its blocks, at five widths, and that code is compiled by the crate that instantiates it.
//! `hdl` did, for these functions alone (347 of the 411 s `hdl` took in a clean test build on two
//! cores; 56 s without them), while this crate instantiates the same tops for its engines anyway.
//! `cli` and `testbench` call these.

use hdl::board::pins::Board;
use hdl::export::{board_spec, exportable_tops, ExportedTop, TopSpec, WIDTHS};
use std::path::{Path, PathBuf};

/// Builds and exports one top.
pub fn export_top(spec: &TopSpec) -> Result<ExportedTop, String> {
    hdl::export::check_width(spec.width)?;
    hdl::export_top_for!(spec)
}

/// Writes every top for `width` (all widths when `None`) into `out`; returns the files written.
pub fn write_tops(width: Option<usize>, out: &Path) -> Result<Vec<PathBuf>, String> {
    let widths: Vec<usize> = match width {
        Some(w) => vec![w],
        None => WIDTHS.to_vec(),
    };
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = vec![];
    for w in widths {
        for spec in exportable_tops(w)? {
            let top = export_top(&spec)?;
            let path = out.join(format!("{}.v", top.name));
            std::fs::write(&path, &top.verilog)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            written.push(path);
        }
    }
    Ok(written)
}

/// The file a board build synthesizes: the board's exported loopback core, then its pin wrapper
/// ([`Board::wrapper_verilog`]; after the core's `timescale, which it shares).
pub fn board_verilog(board: Board) -> Result<String, String> {
    let core = export_top(&board_spec(board))?;
    Ok(format!("{}\n{}", core.verilog, board.wrapper_verilog()))
}
