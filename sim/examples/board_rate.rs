//! The board loopbacks in simulation: `cargo run --release -p sim --example board_rate`.
//! For each board core (generator -> mpa_tx -> mpa_rx -> checker), on both engines: ULPDU
//! octets delivered per cycle as a fraction of W (the loopback's goodput at the board clock,
//! after the 32-cycle power-up reset), and simulation speed in cycles per second (Verilator
//! timed without its build).

use hdl::board::pins::BOARDS;
use sim::board::{board_core, BoardDriver};
use sim::Engine;
use std::time::Instant;

fn main() -> Result<(), String> {
    println!("| board | W | engine | cycles | ULPDUs checked | goodput (of W octets/cycle) | MB/s at the board clock | sim speed (cycles/s) |");
    println!("|---|---|---|---|---|---|---|---|");
    for board in BOARDS {
        let i = board.info();
        for (engine, cycles) in [(Engine::RustHdl, 20_000u64), (Engine::Verilator, 400_000)] {
            let mut d = BoardDriver::new(board_core(engine, board)?)?;
            let t = Instant::now();
            d.run(cycles);
            let secs = t.elapsed().as_secs_f64();
            let st = d.status()?;
            if st.bad != 0 || st.mismatch || st.rx_error || st.tx_error {
                return Err(format!("{board:?} on {engine}: {st:?}"));
            }
            let octets: usize = golden::traffic::traffic_ulpdus(st.ok as usize, i.len_mask)
                .iter()
                .map(Vec::len)
                .sum();
            let per_cycle = octets as f64 / cycles as f64;
            println!(
                "| {} | {} | {engine} | {cycles} | {} | {:.3} | {:.1} | {:.0} |",
                i.name,
                i.width,
                st.ok,
                per_cycle / i.width as f64,
                per_cycle * i.clock_mhz,
                cycles as f64 / secs
            );
        }
    }
    Ok(())
}
