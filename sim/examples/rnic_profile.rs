//! Handshake profile of `rnic_rx` on back-to-back 64-octet Sends or 4 KiB Writes (the rust-hdl
//! model with a waveform, no idle, no backpressure): for every stream boundary inside, the
//! cycles that moved a beat, stalled or starved between the first segment beat and the last
//! memory write, and with `--trace` each boundary's cycle-by-cycle pattern. The block whose
//! input stalls while its output starves is the one that holds the rate.
//!
//! `cargo run --profile test -p sim --example rnic_profile -- [W] [sends|writes] [N] [--trace]`
//! (defaults 32, sends, 30); the waveform goes to `build/profile/rnic_rx_w<W>.vcd`.

use sim::place::{rnic_rx_vcd, run_rnic, workload, RnicRunOptions, Workload};
use sim::Engine;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let trace = args.iter().any(|a| a == "--trace");
    let pos: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let w: usize = pos.first().map_or(Ok(32), |s| s.parse()).map_err(|e| format!("W: {e}"))?;
    let kind = match pos.get(1).map(|s| s.as_str()) {
        None | Some("sends") => Workload::Sends64,
        Some("writes") => Workload::Writes4K,
        Some(k) => return Err(format!("workload {k}: sends or writes")),
    };
    let n: usize = pos.get(2).map_or(Ok(30), |s| s.parse()).map_err(|e| format!("N: {e}"))?;
    let dir = sim::workspace_root().join("build/profile");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("rnic_rx_w{w}.vcd"));
    let (cfg, segments) = workload(kind, n, false);
    let run = {
        let mut sim = rnic_rx_vcd(Engine::RustHdl, w, Some(&path))?;
        run_rnic(sim.as_mut(), &cfg, &segments, &RnicRunOptions::default())?
    };
    let first = run.stats.first_in;
    let last = *run.stats.w_cycles.last().ok_or("no memory writes")?;
    let vcd = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let p = sim::profile::profile(&vcd, first, last + 1)?;
    println!("rnic_rx_w{w}, {n} x {kind:?}: cycles {first}..={last} ({} cycles)", p.cycles);
    println!("| boundary | transfer | stall | starve |");
    println!("|---|---|---|---|");
    for b in p.boundaries.iter().filter(|b| b.transfer > 0) {
        println!("| {} | {} | {} | {} |", b.path, b.transfer, b.stall, b.starve);
    }
    if trace {
        for b in p.boundaries.iter().filter(|b| b.transfer > 0) {
            println!("{:50} {}", b.path, b.trace);
        }
    }
    Ok(())
}
