//! `mpa_tx` output rate at every width (rust-hdl model, exact cycles):
//! `cargo run --release -p sim --example tx_rate`. TCP segment beats per cycle from the first
//! output beat to the last, CRC and Markers on, no idle and no backpressure; each run's output
//! is checked against the golden model first. One FPDU per segment (pushed: ULPDUs sized to
//! MULPDU, as DDP sends them), and FPDUs packed up to EMSS 1460 (small ULPDUs): the datapath
//! moves one FPDU beat per cycle and FPDUs never share a beat inside it, so packed small FPDUs
//! give fewer output beats than cycles at wide W.

use sim::Engine;

fn main() -> Result<(), String> {
    let emss = 1460;
    let m = golden::mulpdu::mulpdu(emss, true) as usize;
    println!(
        "| W | MULPDU ({m} octets), one per segment | 256-octet, packed | 64-octet, one per \
         segment | 64-octet, packed |"
    );
    println!("|---|---|---|---|---|");
    for w in hdl::export::WIDTHS {
        let r_m = sim::tx::measure_rate(Engine::RustHdl, w, m, 40, emss, true)?;
        let r256 = sim::tx::measure_rate(Engine::RustHdl, w, 256, 120, emss, false)?;
        let r64s = sim::tx::measure_rate(Engine::RustHdl, w, 64, 200, emss, true)?;
        let r64 = sim::tx::measure_rate(Engine::RustHdl, w, 64, 400, emss, false)?;
        println!("| {w} | {r_m:.3} | {r256:.3} | {r64s:.3} | {r64:.3} |");
    }
    Ok(())
}
