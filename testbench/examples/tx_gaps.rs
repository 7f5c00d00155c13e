//! Where the output of mpa_tx is idle (no backpressure, input always valid): prints the gaps
//! between output beats and the segment/FPDU context. A debugging aid for the throughput test.
use rand::Rng;
use sim::packet::PacketRun;
use sim::tx::{mpa_tx, run_tx, TxSettings, TxUlpdu};
use sim::Engine;

fn main() {
    let w: usize = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(64);
    let mut sim = mpa_tx(Engine::Verilator, w, None).unwrap();
    let mut r = testbench::rng(5);
    let s = TxSettings { markers: true, crc: true, emss: 9000, seq: 0, origin: 0 };
    let u: Vec<TxUlpdu> =
        (0..200).map(|k| TxUlpdu::new(vec![k as u8; r.gen_range(1000..=4000)], k == 199)).collect();
    let got = run_tx(sim.as_mut(), &s, &u, &PacketRun::default()).unwrap();
    let mut prev: Option<u64> = None;
    let mut gaps = 0;
    for (i, p) in got.stats.packets.iter().enumerate() {
        let beats = p.users.len() as u64;
        let span = p.last_cycle - p.first_cycle + 1;
        if let Some(pc) = prev {
            let g = p.first_cycle - pc - 1;
            if g > 0 {
                println!("segment {i}: {g} idle cycles before it");
                gaps += g;
            }
        }
        if span != beats {
            println!("segment {i}: {beats} beats over {span} cycles");
            gaps += span - beats;
        }
        prev = Some(p.last_cycle);
    }
    println!("{} segments, {} idle cycles in all", got.stats.packets.len(), gaps);
}
