//! Writes `mpa_tx_w8`, `mpa_rx_w8` and `rnic_rx_w8` (or the tops named on the command line) to
//! `build/verilog/w8/`: a quick export for timing iterations on one width (it builds only W = 8,
//! in a fraction of the time the `rnic` binary takes).
//! `fpga/ecp5_ooc.sh build/verilog/w8/mpa_rx_w8.v mpa_rx_w8 156.25`

use hdl::export::{export_top, mpa_rx_spec, mpa_tx_spec, rnic_rx_spec};
use std::path::Path;

fn main() {
    let dir = Path::new("build/verilog/w8");
    std::fs::create_dir_all(dir).unwrap();
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = vec!["mpa_tx".into(), "mpa_rx".into(), "rnic_rx".into()];
    }
    for name in names {
        let spec = match name.as_str() {
            "mpa_tx" => mpa_tx_spec(8),
            "mpa_rx" => mpa_rx_spec(8),
            "rnic_rx" => rnic_rx_spec(8),
            other => Err(format!("unknown top {other} (mpa_tx, mpa_rx, rnic_rx)")),
        }
        .unwrap_or_else(|e| panic!("{e}"));
        let top = export_top(&spec).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join(format!("{}.v", spec.name()));
        std::fs::write(&path, top.verilog).unwrap();
        println!("{}", path.display());
    }
}
