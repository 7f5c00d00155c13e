//! A packet-level harness for any block with one input stream (`s_axis`) and one output stream
//! (`m_axis`): packets in with their sideband, packets out with theirs, plus settings held on
//! plain input ports and one-cycle pulse outputs counted.
//!
//! Every run checks the handshake rules on both streams ([`crate::stream::HandshakeMonitor`]),
//! that nothing is offered out of reset, that the output stops (no beat after the expected
//! ones for `drain` cycles), and it fails with a message on a timeout instead of hanging.

use crate::stream::{
    message_beats, Beat, HandshakeMonitor, Pattern, ReadyDriver, StreamDriver, StreamPorts,
};
use crate::CycleSim;

/// A packet as a testbench sees it: its octets and the sideband of each beat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Packet {
    /// The octets (the bytes `keep` enabled, beat after beat).
    pub data: Vec<u8>,
    /// `tuser` of every beat, in order.
    pub users: Vec<u64>,
    /// Cycle (as `CycleSim::cycles()` before the edge) at which the first beat transferred.
    pub first_cycle: u64,
    /// Cycle at which the last beat transferred.
    pub last_cycle: u64,
}

impl Packet {
    /// The sideband of the first beat.
    pub fn user(&self) -> u64 {
        self.users[0]
    }
}

/// An input packet: octets and the sideband to put on every one of its beats.
#[derive(Clone, Debug)]
pub struct InPacket {
    /// The octets.
    pub data: Vec<u8>,
    /// `tuser` on every beat.
    pub user: u64,
}

impl InPacket {
    /// A TCP segment for the receive side: `data` from sequence number `seq`, FIN when the
    /// stream ends after it ([`hdl::sideband::RxSegmentUser`]).
    pub fn segment(data: Vec<u8>, seq: u32, fin: bool) -> Self {
        InPacket { data, user: hdl::sideband::RxSegmentUser { seq: seq as u64, fin }.pack() }
    }

    /// This segment with FIN set (the stream ends after it).
    pub fn set_fin(&mut self) {
        let f = hdl::sideband::RxSegmentUser::unpack(self.user);
        self.user = hdl::sideband::RxSegmentUser { fin: true, ..f }.pack();
    }
}

/// Options of [`run_packets`].
#[derive(Clone, Debug)]
pub struct PacketRun {
    /// When the source may offer a beat.
    pub idle: Pattern,
    /// When the sink is ready.
    pub backpressure: Pattern,
    /// Value of the bytes beyond `tkeep` on input beats (the block must ignore them).
    pub fill: u8,
    /// Cycles after the last expected output beat during which nothing more may come out.
    pub drain: usize,
    /// Settings: (port name, value), set before reset and held.
    pub settings: Vec<(String, u64)>,
    /// Output ports that pulse for one cycle per event: counted over the run.
    pub pulses: Vec<String>,
    /// Cycles allowed per input beat and per output beat (timeout).
    pub cycles_per_beat: u64,
    /// Output packets to wait for (`None`: until the input is sent and the output stays quiet
    /// for `drain` cycles).
    pub expect_packets: Option<usize>,
    /// Idle cycles after input packet `k`'s last beat was taken before packet `k + 1` is
    /// offered (missing entries: none; the `idle` pattern still applies inside packets).
    pub gaps: Vec<usize>,
}

impl Default for PacketRun {
    fn default() -> Self {
        PacketRun {
            idle: Pattern::Always,
            backpressure: Pattern::Always,
            fill: 0xA5,
            drain: 60,
            settings: vec![],
            pulses: vec![],
            cycles_per_beat: 40,
            expect_packets: None,
            gaps: vec![],
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct PacketResult {
    /// Output packets, in order.
    pub packets: Vec<Packet>,
    /// Pulse counts, in the order of [`PacketRun::pulses`].
    pub pulse_counts: Vec<u64>,
    /// Cycles from the end of reset to the end of the run (drain included).
    pub cycles: u64,
    /// Cycles from the end of reset to the last output beat.
    pub active_cycles: u64,
    /// Input and output beats transferred.
    pub beats_in: u64,
    /// Output beats.
    pub beats_out: u64,
    /// Cycles with `s_axis_tvalid` high and `s_axis_tready` low.
    pub input_stalls: u64,
    /// Cycles with `m_axis_tvalid` high and `m_axis_tready` low.
    pub output_stalls: u64,
    /// Cycle (as `CycleSim::cycles()` before the edge) at which each input packet's last beat
    /// transferred.
    pub in_last_cycles: Vec<u64>,
    /// Cycle at which each input packet's first beat transferred.
    pub in_first_cycles: Vec<u64>,
}

/// Splits packets into beats of `w` bytes.
pub fn packet_beats(packets: &[InPacket], w: usize, fill: u8) -> Vec<Beat> {
    packets.iter().flat_map(|p| message_beats(&p.data, w, p.user, fill)).collect()
}

/// Resets the block with `settings` applied, streams `packets` through it and collects what
/// comes out.
pub fn run_packets(
    sim: &mut dyn CycleSim,
    packets: &[InPacket],
    opts: &PacketRun,
) -> Result<PacketResult, String> {
    let s = StreamPorts::find(sim, "s_axis")?;
    run_beats(sim, packet_beats(packets, s.width, opts.fill), opts)
}

/// [`run_packets`] for input given beat by beat (a test that needs a sideband that changes
/// inside a packet builds its beats itself).
pub fn run_beats(
    sim: &mut dyn CycleSim,
    beats: Vec<Beat>,
    opts: &PacketRun,
) -> Result<PacketResult, String> {
    let s = StreamPorts::find(sim, "s_axis")?;
    let m = StreamPorts::find(sim, "m_axis")?;
    let pulse_ports: Vec<usize> =
        opts.pulses.iter().map(|n| sim.port(n)).collect::<Result<_, _>>()?;
    for (name, v) in &opts.settings {
        let p = sim.port(name)?;
        sim.set_u64(p, *v);
    }
    let mut src = StreamDriver::new(s, opts.idle.clone());
    let mut snk = ReadyDriver::new(m, opts.backpressure.clone());
    let mut mon_s = HandshakeMonitor::new("s_axis", s);
    let mut mon_m = HandshakeMonitor::new("m_axis", m);
    let total_in = beats.len() as u64;
    // Packets held back by `gaps`: (beats, idle cycles after the packet).
    let mut held: std::collections::VecDeque<(Vec<Beat>, usize)> = Default::default();
    if opts.gaps.is_empty() {
        src.push(beats);
    } else {
        let mut cur = vec![];
        for b in beats {
            let last = b.last;
            cur.push(b);
            if last {
                let gap = opts.gaps.get(held.len()).copied().unwrap_or(0);
                held.push_back((std::mem::take(&mut cur), gap));
            }
        }
        if !cur.is_empty() {
            held.push_back((cur, 0));
        }
    }
    let mut wait = 0usize;
    sim.set_u64(s.valid, 0);
    sim.set_u64(m.ready, 0);
    sim.reset(2)?;
    let start = sim.cycles();
    let mut pulse_counts = vec![0u64; pulse_ports.len()];
    let mut quiet = 0usize;
    let mut last_out = start;
    let mut packets_out = 0usize;
    loop {
        if src.pending() == 0 && !held.is_empty() {
            if wait == 0 {
                let (b, gap) = held.pop_front().unwrap();
                src.push(b);
                wait = gap;
            } else {
                wait -= 1;
            }
        }
        src.drive(sim);
        snk.drive(sim);
        sim.eval();
        if sim.cycles() == start && sim.get_u64(m.valid) & 1 != 0 {
            return Err("m_axis_tvalid is high right after reset".into());
        }
        for (k, &p) in pulse_ports.iter().enumerate() {
            pulse_counts[k] += sim.get_u64(p) & 1;
        }
        mon_s.sample(sim, false);
        mon_m.sample(sim, false);
        src.sample(sim);
        let before = snk.beats.len();
        snk.sample(sim);
        if snk.beats.len() > before {
            last_out = sim.cycles();
            quiet = 0;
            if snk.beats.last().unwrap().1.last {
                packets_out += 1;
            }
        } else {
            quiet += 1;
        }
        sim.tick();
        let done_in = src.pending() == 0 && held.is_empty();
        if !done_in {
            // The quiet time that ends a run counts from the last input beat.
            quiet = 0;
        }
        let enough = opts.expect_packets.map_or(true, |n| packets_out >= n);
        if done_in && enough && quiet > opts.drain {
            break;
        }
        if let Some(n) = opts.expect_packets {
            if packets_out > n {
                return Err(format!("{packets_out} output packets, expected {n}"));
            }
        }
        // Output beats extend the budget, but only up to a bound: a block that never stops
        // producing must time out, not run the machine out of memory.
        let out_counted = (snk.beats.len() as u64).min(4 * total_in + 1000);
        let budget = 2000 + opts.cycles_per_beat * (total_in + out_counted + 1);
        if sim.cycles() - start > budget {
            return Err(format!(
                "timeout after {} cycles: {} of {} input beats sent, {} output beats, {} packets",
                sim.cycles() - start,
                src.sent,
                total_in,
                snk.beats.len(),
                packets_out
            ));
        }
    }
    let violations: Vec<String> =
        mon_s.violations.iter().chain(&mon_m.violations).cloned().collect();
    if !violations.is_empty() {
        return Err(violations.join("\n"));
    }
    let mut out = vec![];
    let mut cur: Option<Packet> = None;
    for (cyc, b) in &snk.beats {
        let n = hdl::stream::keep_len(b.keep, m.width)
            .ok_or_else(|| format!("cycle {cyc}: keep {:#x} not contiguous", b.keep))?;
        let p = cur.get_or_insert_with(|| Packet {
            data: vec![],
            users: vec![],
            first_cycle: *cyc,
            last_cycle: *cyc,
        });
        p.data.extend_from_slice(&b.data[..n]);
        p.users.push(b.user);
        p.last_cycle = *cyc;
        if b.last {
            out.push(cur.take().unwrap());
        }
    }
    if let Some(p) = cur {
        return Err(format!(
            "the output stopped inside a packet ({} octets without a last beat)",
            p.data.len()
        ));
    }
    Ok(PacketResult {
        packets: out,
        pulse_counts,
        cycles: sim.cycles() - start,
        active_cycles: last_out.saturating_sub(start) + 1,
        beats_in: mon_s.transfers,
        beats_out: mon_m.transfers,
        input_stalls: mon_s.stalls,
        output_stalls: mon_m.stalls,
        in_last_cycles: src.last_cycles.clone(),
        in_first_cycles: src.first_cycles.clone(),
    })
}
