//! Stream drivers, ready drivers and the handshake monitor (the rules of [`hdl::stream`]).
//!
//! Every cycle of a streaming test follows [`crate::CycleSim`]'s protocol:
//! 1. each [`StreamDriver`] presents a beat (or not) and each [`ReadyDriver`] sets `tready`;
//! 2. `eval`;
//! 3. each [`HandshakeMonitor`] samples its stream, drivers and ready drivers see whether a
//!    transfer happened ([`StreamDriver::sample`], [`ReadyDriver::sample`]);
//! 4. `tick`.
//!
//! Idle (gaps in `tvalid`) and backpressure (gaps in `tready`) come from [`Pattern`]s: always,
//! fixed duty cycles, or seeded random, so every failure replays.

use crate::{words_for, words_from_bytes, CycleSim};
use hdl::stream::keep_len;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// When a driver may present a beat (idle pattern) or a sink is ready (backpressure pattern).
#[derive(Clone, Debug)]
pub enum Pattern {
    /// Every cycle.
    Always,
    /// Repeats the given sequence of on/off cycles.
    Cycle(Vec<bool>),
    /// On with probability `p` each cycle, from a seeded generator.
    Random {
        /// Probability of an on cycle.
        p: f64,
        /// Seed.
        seed: u64,
    },
}

/// A [`Pattern`] being played.
pub struct PatternGen {
    pattern: Pattern,
    n: usize,
    rng: ChaCha8Rng,
}

impl PatternGen {
    /// Starts playing `pattern`.
    pub fn new(pattern: Pattern) -> Self {
        let seed = if let Pattern::Random { seed, .. } = pattern { seed } else { 0 };
        PatternGen { pattern, n: 0, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// This cycle's value.
    pub fn next_on(&mut self) -> bool {
        let v = match &self.pattern {
            Pattern::Always => true,
            Pattern::Cycle(seq) => seq.is_empty() || seq[self.n % seq.len()],
            Pattern::Random { p, .. } => self.rng.gen_bool(p.clamp(0.0, 1.0)),
        };
        self.n += 1;
        v
    }
}

/// One beat of a stream, as a testbench sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// W bytes, lane 0 first (bytes beyond `keep` are don't-care).
    pub data: Vec<u8>,
    /// Byte enables.
    pub keep: u64,
    /// Sideband.
    pub user: u64,
    /// Last beat of a message.
    pub last: bool,
}

/// Splits a message into beats of `w` bytes: full beats, then a partial last beat; an empty
/// message is one null beat (keep = 0). Bytes beyond `keep` are filled with `fill` (a test can
/// put garbage there: sinks must ignore it).
pub fn message_beats(msg: &[u8], w: usize, user: u64, fill: u8) -> Vec<Beat> {
    if msg.is_empty() {
        return vec![Beat { data: vec![fill; w], keep: 0, user, last: true }];
    }
    let n = msg.len().div_ceil(w);
    msg.chunks(w)
        .enumerate()
        .map(|(i, c)| {
            let mut data = c.to_vec();
            data.resize(w, fill);
            Beat { data, keep: hdl::stream::keep_for(c.len()), user, last: i + 1 == n }
        })
        .collect()
}

/// Port indices of one stream bundle (`<prefix>_tdata`, ...).
#[derive(Clone, Copy, Debug)]
pub struct StreamPorts {
    /// `tdata`.
    pub data: usize,
    /// `tkeep`.
    pub keep: usize,
    /// `tuser`.
    pub user: usize,
    /// `tlast`.
    pub last: usize,
    /// `tvalid`.
    pub valid: usize,
    /// `tready`.
    pub ready: usize,
    /// Bytes per beat (width of `tkeep`).
    pub width: usize,
    /// Words of `tdata`.
    pub data_words: usize,
}

impl StreamPorts {
    /// Looks up the bundle called `prefix` (`s_axis`, `m_axis`).
    pub fn find(sim: &dyn CycleSim, prefix: &str) -> Result<Self, String> {
        let p = |f: &str| sim.port(&format!("{prefix}_t{f}"));
        let keep = p("keep")?;
        let data = p("data")?;
        Ok(StreamPorts {
            data,
            keep,
            user: p("user")?,
            last: p("last")?,
            valid: p("valid")?,
            ready: p("ready")?,
            width: sim.ports()[keep].width,
            data_words: words_for(sim.ports()[data].width),
        })
    }
}

/// Drives a stream into the block (the block's sink port), obeying the handshake rules.
pub struct StreamDriver {
    ports: StreamPorts,
    beats: std::collections::VecDeque<Beat>,
    idle: PatternGen,
    presenting: bool,
    words: Vec<u64>,
    /// Beats transferred so far.
    pub sent: usize,
    /// Cycle numbers (as `CycleSim::cycles()` before the edge) of transfers of `last` beats.
    pub last_cycles: Vec<u64>,
    /// Cycle numbers of transfers of first beats (the beat after a `last`, and the very first).
    pub first_cycles: Vec<u64>,
    at_first: bool,
}

impl StreamDriver {
    /// A driver for the stream `ports`, with `idle` deciding when a new beat may be offered.
    pub fn new(ports: StreamPorts, idle: Pattern) -> Self {
        let words = vec![0; ports.data_words];
        StreamDriver {
            ports,
            beats: Default::default(),
            idle: PatternGen::new(idle),
            presenting: false,
            words,
            sent: 0,
            last_cycles: vec![],
            first_cycles: vec![],
            at_first: true,
        }
    }

    /// Queues beats.
    pub fn push(&mut self, beats: impl IntoIterator<Item = Beat>) {
        self.beats.extend(beats);
    }

    /// Beats not yet transferred.
    pub fn pending(&self) -> usize {
        self.beats.len()
    }

    /// Step 1: present a beat (a presented beat stays until it transfers).
    pub fn drive(&mut self, sim: &mut dyn CycleSim) {
        if !self.presenting && !self.beats.is_empty() && self.idle.next_on() {
            let b = &self.beats[0];
            words_from_bytes(&b.data, &mut self.words);
            sim.set(self.ports.data, &self.words);
            sim.set_u64(self.ports.keep, b.keep);
            sim.set_u64(self.ports.user, b.user);
            sim.set_u64(self.ports.last, b.last as u64);
            sim.set_u64(self.ports.valid, 1);
            self.presenting = true;
        } else if !self.presenting {
            sim.set_u64(self.ports.valid, 0);
        }
    }

    /// Step 3: after `eval`, sees whether the presented beat transfers at the coming edge.
    pub fn sample(&mut self, sim: &mut dyn CycleSim) {
        if self.presenting && sim.get_u64(self.ports.ready) & 1 != 0 {
            let b = self.beats.pop_front().expect("presenting a beat");
            if self.at_first {
                self.first_cycles.push(sim.cycles());
            }
            self.at_first = b.last;
            if b.last {
                self.last_cycles.push(sim.cycles());
            }
            self.sent += 1;
            self.presenting = false;
        }
    }
}

/// Drives `tready` of a stream out of the block (the block's source port) and collects beats.
pub struct ReadyDriver {
    ports: StreamPorts,
    ready: PatternGen,
    is_ready: bool,
    words: Vec<u64>,
    /// Beats received, with the cycle of their transfer.
    pub beats: Vec<(u64, Beat)>,
}

impl ReadyDriver {
    /// A ready driver for `ports`, with `backpressure` deciding when `tready` is high.
    pub fn new(ports: StreamPorts, backpressure: Pattern) -> Self {
        let words = vec![0; ports.data_words];
        ReadyDriver {
            ports,
            ready: PatternGen::new(backpressure),
            is_ready: false,
            words,
            beats: vec![],
        }
    }

    /// Step 1: set `tready` for this cycle.
    pub fn drive(&mut self, sim: &mut dyn CycleSim) {
        self.is_ready = self.ready.next_on();
        sim.set_u64(self.ports.ready, self.is_ready as u64);
    }

    /// Step 3: collect the beat if one transfers.
    pub fn sample(&mut self, sim: &mut dyn CycleSim) {
        if self.is_ready && sim.get_u64(self.ports.valid) & 1 != 0 {
            sim.get(self.ports.data, &mut self.words);
            let data = crate::bytes_from_words(&self.words, self.ports.width);
            let b = Beat {
                data,
                keep: sim.get_u64(self.ports.keep),
                user: sim.get_u64(self.ports.user),
                last: sim.get_u64(self.ports.last) & 1 != 0,
            };
            self.beats.push((sim.cycles(), b));
        }
    }
}

/// Checks the handshake rules of [`hdl::stream`] on one stream, every cycle.
pub struct HandshakeMonitor {
    name: String,
    ports: StreamPorts,
    prev: Option<(Vec<u64>, u64, u64, u64)>,
    words: Vec<u64>,
    /// Rule violations seen, with cycle numbers.
    pub violations: Vec<String>,
    /// Transfers seen.
    pub transfers: u64,
    /// Cycles in which `tvalid` was high and `tready` low.
    pub stalls: u64,
}

impl HandshakeMonitor {
    /// A monitor for the stream `ports`, reported as `name`.
    pub fn new(name: &str, ports: StreamPorts) -> Self {
        let words = vec![0; ports.data_words];
        HandshakeMonitor {
            name: name.into(),
            ports,
            prev: None,
            words,
            violations: vec![],
            transfers: 0,
            stalls: 0,
        }
    }

    /// Samples this cycle (after `eval`, before `tick`). `in_reset` suspends the checks.
    pub fn sample(&mut self, sim: &mut dyn CycleSim, in_reset: bool) {
        let cyc = sim.cycles();
        let valid = sim.get_u64(self.ports.valid) & 1 != 0;
        let ready = sim.get_u64(self.ports.ready) & 1 != 0;
        if in_reset {
            self.prev = None;
            return;
        }
        if !valid {
            if self.prev.is_some() {
                self.violations.push(format!(
                    "{}: cycle {cyc}: tvalid dropped before the beat transferred (rule 2)",
                    self.name
                ));
            }
            self.prev = None;
            return;
        }
        sim.get(self.ports.data, &mut self.words);
        let keep = sim.get_u64(self.ports.keep);
        let user = sim.get_u64(self.ports.user);
        let last = sim.get_u64(self.ports.last) & 1;
        // Compare only the bytes keep enables: the rest are don't-care (rule 4).
        let mut masked = self.words.clone();
        for (i, w) in masked.iter_mut().enumerate() {
            let mut m = 0u64;
            for b in 0..8 {
                if (keep >> (i * 8 + b)) & 1 != 0 {
                    m |= 0xff << (8 * b);
                }
            }
            *w &= m;
        }
        if let Some((pw, pk, pu, pl)) = &self.prev {
            if *pw != masked || *pk != keep || *pu != user || *pl != last {
                self.violations.push(format!(
                    "{}: cycle {cyc}: beat changed while waiting for tready (rule 2)",
                    self.name
                ));
            }
        }
        match keep_len(keep, self.ports.width) {
            None => self.violations.push(format!(
                "{}: cycle {cyc}: tkeep {keep:#x} not contiguous from lane 0 (rule 4)",
                self.name
            )),
            Some(n) if last == 0 && n != self.ports.width => self.violations.push(format!(
                "{}: cycle {cyc}: tkeep {keep:#x} on a beat that is not last (rule 4)",
                self.name
            )),
            _ => {}
        }
        if ready {
            self.transfers += 1;
            self.prev = None;
        } else {
            self.stalls += 1;
            self.prev = Some((masked, keep, user, last));
        }
    }

    /// Panics with every violation if there was any.
    pub fn assert_clean(&self) {
        assert!(
            self.violations.is_empty(),
            "handshake violations:\n{}",
            self.violations.join("\n")
        );
    }
}
