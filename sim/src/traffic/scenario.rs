//! Named traffic scenarios: a seeded sender stream ([`super::sender`]) through a network
//! ([`super::network`]), as the TCP payload segments a receiver gets, in arrival order, with the
//! configuration that goes with them.
//!
//! | scenario | what arrives |
//! |---|---|
//! | `inorder` | FPDU-aligned segments in order |
//! | `aligned-ooo` | FPDU-aligned segments, each moved up to 8 places later |
//! | `middlebox` | the stream re-cut at random points (1 octet to EMSS), moved up to 4 places |
//! | `loss` | FPDU-aligned; 10 % lost and retransmitted 2 to 30 segments later, half of them cut in two |
//! | `dup` | duplicates (15 %) and retransmissions overlapping two segments (15 %), moved up to 3 places |
//! | `wrap` | sequence numbers wrap through 2^32 in mid-stream, MSNs start at 2^32 - 21 and wrap too; 1/3 re-cut, moved up to 6 places, 5 % duplicated |
//! | `faults` | one fault ([`Fault`], chosen by the seed among those the settings allow, or given), moved up to 4 places, 5 % duplicated |
//! | `mixed` | re-cut (1/2 of the runs), losses, duplicates, overlaps and reordering together |

use super::faults::Fault;
use super::network::{
    duplicate, lose_and_retransmit, overlapping_retransmissions, reorder, resegment,
};
use super::sender::{build_stream, ExpectedError, SenderParams, SentStream, StreamSegment};
use golden::ddp::TerminateCode;
use golden::receiver::ReceiverConfig;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A traffic scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// FPDU-aligned, in order.
    InOrder,
    /// FPDU-aligned, reordered.
    AlignedOoo,
    /// Re-segmented anywhere, reordered.
    Middlebox,
    /// Loss with retransmission.
    Loss,
    /// Duplicates and overlapping retransmissions.
    Dup,
    /// Sequence numbers wrapping through 2^32.
    Wrap,
    /// One fault.
    Faults,
    /// Everything at once.
    Mixed,
}

impl Scenario {
    /// Every scenario.
    pub const ALL: [Scenario; 8] = [
        Scenario::InOrder,
        Scenario::AlignedOoo,
        Scenario::Middlebox,
        Scenario::Loss,
        Scenario::Dup,
        Scenario::Wrap,
        Scenario::Faults,
        Scenario::Mixed,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::InOrder => "inorder",
            Scenario::AlignedOoo => "aligned-ooo",
            Scenario::Middlebox => "middlebox",
            Scenario::Loss => "loss",
            Scenario::Dup => "dup",
            Scenario::Wrap => "wrap",
            Scenario::Faults => "faults",
            Scenario::Mixed => "mixed",
        }
    }

    /// The scenario called `name`.
    pub fn by_name(name: &str) -> Result<Scenario, String> {
        Scenario::ALL.into_iter().find(|s| s.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Scenario::ALL.iter().map(|s| s.name()).collect();
            format!("unknown scenario {name:?} (one of: {})", names.join(", "))
        })
    }
}

/// Settings of one generated connection.
#[derive(Clone, Debug)]
pub struct TrafficOptions {
    /// The scenario.
    pub scenario: Scenario,
    /// Seed of everything random.
    pub seed: u64,
    /// Markers on.
    pub markers: bool,
    /// CRC on.
    pub crc: bool,
    /// Messages in the stream.
    pub messages: usize,
    /// EMSS of the sender.
    pub emss: u32,
    /// Receiver reassembly buffer (octets).
    pub reassembly_octets: u64,
    /// Receiver record table entries.
    pub records: u32,
    /// Header alignment detection (Markers off).
    pub aligned_detect: bool,
    /// For `faults`: this fault instead of one chosen by the seed.
    pub fault: Option<Fault>,
}

impl Default for TrafficOptions {
    fn default() -> Self {
        TrafficOptions {
            scenario: Scenario::InOrder,
            seed: 1,
            markers: false,
            crc: true,
            messages: 200,
            emss: 1460,
            reassembly_octets: 256 * 1024,
            records: 256,
            aligned_detect: true,
            fault: None,
        }
    }
}

/// One TCP payload segment as it arrives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpSegment {
    /// Sequence number of the first octet.
    pub seq: u32,
    /// The octets.
    pub payload: Vec<u8>,
    /// FIN after the last octet.
    pub fin: bool,
}

/// A generated connection.
#[derive(Clone, Debug)]
pub struct Traffic {
    /// The receiver configuration.
    pub config: ReceiverConfig,
    /// Segments in arrival order.
    pub segments: Vec<TcpSegment>,
    /// The sender's stream.
    pub sent: SentStream,
    /// The fault put in, if any.
    pub fault: Option<Fault>,
}

impl Traffic {
    /// The error in-order processing must report: code and sequence number of the failing
    /// FPDU.
    pub fn expected_error(&self) -> Option<(TerminateCode, u32)> {
        self.sent.expected_error.map(|ExpectedError { code, offset }| {
            (code, self.config.origin.wrapping_add(offset as u32))
        })
    }
}

/// Generates the connection `o` describes.
pub fn generate(o: &TrafficOptions) -> Traffic {
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed ^ 0x5EED_0F_7CF1C);
    let origin = if o.scenario == Scenario::Wrap {
        // About half way through the stream (roughly 1 KiB per message).
        0u32.wrapping_sub((o.messages as u32).saturating_mul(600) + rng.gen_range(0..4096))
    } else {
        rng.gen()
    };
    let fault = (o.scenario == Scenario::Faults).then(|| {
        o.fault.unwrap_or_else(|| {
            let ok: Vec<Fault> =
                Fault::ALL.into_iter().filter(|f| f.applies(o.markers, o.crc)).collect();
            *ok.choose(&mut rng).expect("faults apply")
        })
    });
    let params = SenderParams {
        markers: o.markers,
        crc: o.crc,
        origin,
        emss: o.emss,
        messages: o.messages.max(1),
        terminate: o.scenario == Scenario::InOrder || rng.gen_bool(0.25),
        reassembly_octets: o.reassembly_octets,
        records: o.records,
        aligned_detect: o.aligned_detect,
        fault: fault.map(|f| (f, rng.gen_range(0.3..0.8))),
        // `wrap` also wraps the message sequence numbers through 2^32.
        first_msn: if o.scenario == Scenario::Wrap { u32::MAX - 20 } else { 1 },
        ..SenderParams::default()
    };
    let sent = build_stream(&params, &mut rng);
    let wire = &sent.wire;
    let base = sent.segments.clone();
    let emss = o.emss as usize;
    let arrived: Vec<StreamSegment> = match o.scenario {
        Scenario::InOrder => base,
        Scenario::AlignedOoo => reorder(&mut rng, base, 8),
        Scenario::Middlebox => {
            let s = resegment(&mut rng, wire, true, 1, emss);
            reorder(&mut rng, s, 4)
        }
        Scenario::Loss => lose_and_retransmit(&mut rng, base, 0.1, 2, 30),
        Scenario::Dup => {
            let s = duplicate(&mut rng, base, 0.15, 6);
            let s = overlapping_retransmissions(&mut rng, wire, s, 0.15, 6);
            reorder(&mut rng, s, 3)
        }
        Scenario::Wrap => {
            let s = if rng.gen_bool(1.0 / 3.0) {
                resegment(&mut rng, wire, true, 1, emss)
            } else {
                base
            };
            let s = duplicate(&mut rng, s, 0.05, 4);
            reorder(&mut rng, s, 6)
        }
        Scenario::Faults => {
            let s = duplicate(&mut rng, base, 0.05, 4);
            reorder(&mut rng, s, 4)
        }
        Scenario::Mixed => {
            let s = if rng.gen_bool(0.5) { resegment(&mut rng, wire, true, 1, emss) } else { base };
            let s = lose_and_retransmit(&mut rng, s, 0.08, 2, 20);
            let s = duplicate(&mut rng, s, 0.08, 5);
            let s = overlapping_retransmissions(&mut rng, wire, s, 0.08, 5);
            reorder(&mut rng, s, 5)
        }
    };
    let segments = arrived
        .into_iter()
        .map(|s| TcpSegment {
            seq: origin.wrapping_add(s.offset as u32),
            payload: s.payload,
            fin: s.fin,
        })
        .collect();
    Traffic { config: sent.config.clone(), segments, sent, fault }
}
