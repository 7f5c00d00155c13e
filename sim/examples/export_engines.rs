//! Writes the bare CRC engine (no stream wrapper) for every width and both R1 group sizes, and
//! built resumable with the group size each width uses, to
//! `build/verilog/engines/`, and every exported top to `build/verilog/`, for `fpga/measure_crc.sh`.

use hdl::crc::engine::{CrcEngine, EngineOptions};
use hdl::export::export_block;
use std::path::Path;

macro_rules! engines {
    ($dir:expr, $($w:literal / $b:literal),*) => {$(
        for g in [2usize, 4] {
            let mut e = CrcEngine::<$w, $b>::with_options(&golden::crc::CRC32C, EngineOptions { group_bytes: g, resumable: false });
            let name = format!("crc_engine_w{}_g{}", $w, g);
            let top = export_block(&name, &mut e, "CrcEngine alone (CRC32c), for synthesis measurements").unwrap();
            std::fs::write($dir.join(format!("{name}.v")), top.verilog).unwrap();
        }
        let mut e = CrcEngine::<$w, $b>::with_options(&golden::crc::CRC32C, EngineOptions::resumable_for_width($w));
        let name = format!("crc_engine_resumable_w{}", $w);
        let top = export_block(&name, &mut e, "CrcEngine alone (CRC32c) with the resume logic, for synthesis measurements").unwrap();
        std::fs::write($dir.join(format!("{name}.v")), top.verilog).unwrap();
    )*};
}

fn main() {
    let dir = Path::new("build/verilog/engines");
    std::fs::create_dir_all(dir).unwrap();
    engines!(dir, 4 / 32, 8 / 64, 16 / 128, 32 / 256, 64 / 512);
    sim::export::write_tops(None, Path::new("build/verilog")).unwrap();
}
