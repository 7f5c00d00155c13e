//! Idle output cycles of each transmit block alone, fed back to back with no backpressure:
//! a debugging aid for throughput (prints cycles and beats per block).
use golden::fpdu::FramingConfig;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::Engine;
use testbench::tx::{fpdu_user, framed_fpdus, plain_fpdu};

fn report(name: &str, res: &sim::packet::PacketResult) {
    let first = res.packets[0].first_cycle;
    let last = res.packets.last().unwrap().last_cycle;
    println!("{name}: {} beats out over {} cycles", res.beats_out, last - first + 1);
}

fn main() {
    let w: usize = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(4);
    let ulpdus: Vec<Vec<u8>> = (0..100).map(|k| vec![k as u8; 1000 + 7 * k]).collect();
    let mut f = sim::tx::framer(Engine::Verilator, w).unwrap();
    let p: Vec<InPacket> =
        ulpdus.iter().map(|u| InPacket { data: u.clone(), user: u.len() as u64 }).collect();
    report("framer", &run_packets(f.as_mut(), &p, &PacketRun::default()).unwrap());
    let mut m = sim::tx::marker_inserter(Engine::Verilator, w).unwrap();
    let p: Vec<InPacket> = ulpdus
        .iter()
        .map(|u| InPacket { data: plain_fpdu(u), user: fpdu_user(u.len(), true, true, false) })
        .collect();
    report("marker inserter", &run_packets(m.as_mut(), &p, &PacketRun::default()).unwrap());
    let fp = framed_fpdus(FramingConfig { markers: true, crc: true, offset: 0 }, &ulpdus);
    let p: Vec<InPacket> = fp
        .iter()
        .zip(&ulpdus)
        .map(|(f, u)| InPacket { data: f.clone(), user: fpdu_user(u.len(), true, true, false) })
        .collect();
    let mut c = sim::tx::crc_unit(Engine::Verilator, w).unwrap();
    report("crc unit", &run_packets(c.as_mut(), &p, &PacketRun::default()).unwrap());
    let mut s = sim::tx::segmenter(Engine::Verilator, w).unwrap();
    let opts = PacketRun { settings: vec![("cfg_emss".into(), 65535)], ..Default::default() };
    let p: Vec<InPacket> = p
        .iter()
        .enumerate()
        .map(|(k, x)| InPacket { data: x.data.clone(), user: x.user | (((k == 99) as u64) << 16) })
        .collect();
    report("segmenter", &run_packets(s.as_mut(), &p, &opts).unwrap());
}
