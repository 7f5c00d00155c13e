//! Writes `mpa_tx_w8`, `mpa_rx_w8` and `rnic_rx_w8` (or the tops named on the command line) to
//! `build/verilog/w8/`: a quick export for timing iterations on one width (it builds in a
//! fraction of the time the `rnic` binary takes). `EXPORT_WIDTH=W` exports width W instead, to
//! `build/verilog/w<W>/`.
//! `fpga/ecp5_ooc.sh build/verilog/w8/mpa_rx_w8.v mpa_rx_w8 156.25`
//!
//! Behind the `export-blocks` feature (`cargo run -p hdl --features export-blocks --example
//! export_w8`), since `cargo test` builds every example and this one instantiates three tops at
//! five widths.

use hdl::export::{mpa_rx_spec, mpa_tx_spec, rnic_rx_spec};
use std::path::Path;

fn main() {
    // Another width with EXPORT_WIDTH=W (4, 8, 16, 32, 64): build/verilog/w<W>/.
    let w: usize = std::env::var("EXPORT_WIDTH")
        .ok()
        .map(|v| v.parse().unwrap_or_else(|_| panic!("EXPORT_WIDTH: not a number: {v}")))
        .unwrap_or(8);
    let dir_name = format!("build/verilog/w{w}");
    let dir = Path::new(&dir_name);
    std::fs::create_dir_all(dir).unwrap();
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = vec!["mpa_tx".into(), "mpa_rx".into(), "rnic_rx".into()];
    }
    for name in names {
        let spec = match name.as_str() {
            "mpa_tx" => mpa_tx_spec(w),
            "mpa_rx" => mpa_rx_spec(w),
            "rnic_rx" => rnic_rx_spec(w),
            other => Err(format!("unknown top {other} (mpa_tx, mpa_rx, rnic_rx)")),
        }
        .unwrap_or_else(|e| panic!("{e}"));
        let top = hdl::export_top_for!(&spec).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join(format!("{}.v", spec.name()));
        std::fs::write(&path, top.verilog).unwrap();
        println!("{}", path.display());
    }
}
