//! `rnic_rx` throughput and latency at every width (Verilator, no idle, no backpressure):
//! payload octets written per cycle and segment beats taken per cycle for 4 KiB RDMA Writes
//! (DDP segments of MULPDU for EMSS 1460) and for 64-octet Sends; cycles from an FPDU's last
//! octet in to its first memory write beat. `make bench` writes this to build/bench/rnic_rate.txt.
//!
//! `cargo run --release -p sim --example rnic_rate`

use sim::place::{measure_latency, measure_rate, Workload};
use sim::Engine;

fn main() {
    println!("| W | 4 KiB Writes: payload octets/cycle | of W | segment beats/cycle | 64-octet Sends: payload octets/cycle | segment beats/cycle | latency (cycles), 1 KiB Write |");
    println!("|---|---|---|---|---|---|---|");
    for w in hdl::export::WIDTHS {
        let (wo, wb, _) =
            measure_rate(Engine::Verilator, w, Workload::Writes4K, 32).expect("writes");
        let (so, sb, _) = measure_rate(Engine::Verilator, w, Workload::Sends64, 60).expect("sends");
        let lat = measure_latency(Engine::Verilator, w, 1024).expect("latency");
        println!("| {w} | {wo:.2} | {:.3} | {wb:.3} | {so:.2} | {sb:.3} | {lat} |", wo / w as f64);
    }
}
