//! `mpa_rx` throughput and latency at every width (rust-hdl model, exact cycles):
//! `cargo run --release -p sim --example rx_rate`. Throughput: TCP segment beats per cycle, one
//! FPDU per segment (last column: 16 per segment), CRC and Markers on, no idle and no
//! backpressure. Latency: cycles from the
//! transfer of an FPDU's last octet to the transfer of its ULPDU's first beat.

use sim::Engine;

fn main() -> Result<(), String> {
    println!(
        "| W | latency (cycles) | beats/cycle, 1448-octet ULPDUs | 256-octet | 64-octet | \
         64-octet, 16 FPDUs per segment |"
    );
    println!("|---|---|---|---|---|---|");
    for w in hdl::export::WIDTHS {
        let lat = sim::rx::measure_latency(Engine::RustHdl, w, 1448)?;
        let r1448 = sim::rx::measure_rate(Engine::RustHdl, w, 1448, 20, true)?;
        let r256 = sim::rx::measure_rate(Engine::RustHdl, w, 256, 50, true)?;
        let r64 = sim::rx::measure_rate(Engine::RustHdl, w, 64, 100, true)?;
        let p64 = sim::rx::measure_rate_packed(Engine::RustHdl, w, 64, 96, 16, true)?;
        println!("| {w} | {lat} | {r1448:.3} | {r256:.3} | {r64:.3} | {p64:.3} |");
    }
    Ok(())
}
