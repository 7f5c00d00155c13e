//! `RxRealignerTable` (one realigner, 16 connections' context records in a table) throughput
//! at every width (rust-hdl model, exact cycles): `cargo run --release -p sim --example
//! rx_conn_rate`. Input beats per cycle, no idle and no backpressure, 8 rounds of one segment
//! per connection in turn (round robin): each change of connection costs the realigner's
//! drain and the record's load.

use sim::Engine;

fn main() -> Result<(), String> {
    println!(
        "| W | one connection, 1448-octet segments | 4 connections in turn, 1448-octet | \
         4 in turn, 256-octet | 4 in turn, 64-octet |"
    );
    println!("|---|---|---|---|---|");
    for w in hdl::export::WIDTHS {
        let rate = |n, len| sim::rx::realigner_table_rate(Engine::RustHdl, w, n, len);
        let (one, big, mid, small) = (rate(1, 1448)?, rate(4, 1448)?, rate(4, 256)?, rate(4, 64)?);
        println!("| {w} | {one:.3} | {big:.3} | {mid:.3} | {small:.3} |");
    }
    Ok(())
}
