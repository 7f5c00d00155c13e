//! `Gearbox`: the lane rotator and merger that every re-packing MPA block shares.
//!
//! Five blocks turn a stream whose beats carry a varying number of lanes into full beats: the
//! FPDU-aligned segmenter and the Marker inserter on transmit (RFC 5044 4.3 and 5.1; 4-octet
//! words), the realigner (octets, Appendix A.4's resegmented TCP payload), the FPDU delineator
//! (words, 4.3) and the Marker stripper (16-bit lanes, 5.1's Markers and 4.1's ULPDU_Length
//! removed) on receive. Each keeps the first `hold` lanes of an accumulator and appends the next
//! beat after them; the lanes that do not fit stay for the next beat. This block is that shifter
//! and merger, written once:
//!
//! ```text
//!  data ─► rotate up by amt lanes (log2(lanes) stages) ─────────────► rot
//!                                          │
//!  acc ──► lanes 0..hold ──────────────────┴─► merged = acc[0..hold) ++ rot[hold..)
//!          mask = ones in lanes 0..hold ─────► mask
//! ```
//!
//! When to rotate, how far, what to hold and when a beat is full stay in each block (their
//! rules differ: the segmenter cuts at segment ends, the stripper drops lanes), so the block is
//! combinational and has no state.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data` | in | B | the beat to append, lane 0 in bits `[L-1:0]` |
//! | `amt` | in | 8 | rotation toward higher lanes, in lanes; only its low `log2(B/L)` bits count (modulo the lanes in a beat) |
//! | `acc` | in | B | the accumulator (held lanes in lanes `0..hold`) |
//! | `hold` | in | 8 | lanes of `acc` kept in `merged`: 0..=B/L (B/L: `merged` is `acc`) |
//! | `rot` | out | B | `data` rotated up by `amt` lanes: lane `i` of `data` in lane `(i + amt) mod (B/L)` |
//! | `mask` | out | B | ones in the bits of lanes `0..hold` |
//! | `merged` | out | B | `acc` in lanes `0..hold`, `rot` in the others |
//!
//! ### Parameters
//! `B` bits per beat (32 to 512, a power of two); `lane_bits` L (constructor): 8, 16 or 32, at
//! most B. The rotator is `log2(B/L)` stages of 2:1 multiplexers.
//!
//! ### Latency, throughput, reset
//! Combinational (no clock, no reset): one beat per cycle, whatever the caller's rate.

use rust_hdl::prelude::*;

/// The shared lane rotator and merger; see the module documentation.
#[derive(LogicBlock)]
pub struct Gearbox<const B: usize> {
    /// The beat to append.
    pub data: Signal<In, Bits<B>>,
    /// Rotation toward higher lanes, in lanes (modulo the lanes in a beat).
    pub amt: Signal<In, Bits<8>>,
    /// The accumulator.
    pub acc: Signal<In, Bits<B>>,
    /// Lanes of `acc` kept in `merged`.
    pub hold: Signal<In, Bits<8>>,
    /// `data` rotated up by `amt` lanes.
    pub rot: Signal<Out, Bits<B>>,
    /// Ones in the bits of lanes `0..hold`.
    pub mask: Signal<Out, Bits<B>>,
    /// `acc` in lanes `0..hold`, `rot` above.
    pub merged: Signal<Out, Bits<B>>,
    // Stage s rotates by 2^s lanes: left by c_rot_l[s] bits, OR right by c_rot_r[s] = B - that.
    c_rot_l: Vec<Constant<Bits<16>>>,
    c_rot_r: Vec<Constant<Bits<16>>>,
    c_ones: Constant<Bits<B>>,
    c_lane_log: Constant<Bits<16>>,
    rot_s: Signal<Local, Bits<B>>,
    mask_s: Signal<Local, Bits<B>>,
}

/// Checks the gearbox's parameters; the message names the block that builds it.
fn check_gearbox(owner: &str, bits: usize, lane_bits: usize) {
    assert!(
        matches!(lane_bits, 8 | 16 | 32),
        "{owner}: the gearbox's lane is 8, 16 or 32 bits (got {lane_bits})"
    );
    assert!(
        bits.is_power_of_two() && (32..=512).contains(&bits) && bits >= lane_bits,
        "{owner}: the gearbox's beat is a power of two from 32 to 512 bits and at least one \
         lane (got {bits} bits, {lane_bits}-bit lanes)"
    );
}

impl<const B: usize> Gearbox<B> {
    /// Builds the gearbox for `lane_bits`-bit lanes inside the block `owner` (named in the
    /// panic message when the parameters are not legal: see the module documentation).
    pub fn new(owner: &str, lane_bits: usize) -> Self {
        check_gearbox(owner, B, lane_bits);
        let stages = (B / lane_bits).trailing_zeros() as usize;
        let c16 = |v: usize| Constant::new((v as u64).into());
        Self {
            data: Default::default(),
            amt: Default::default(),
            acc: Default::default(),
            hold: Default::default(),
            rot: Default::default(),
            mask: Default::default(),
            merged: Default::default(),
            c_rot_l: (0..stages).map(|s| c16(lane_bits << s)).collect(),
            c_rot_r: (0..stages).map(|s| c16(B - (lane_bits << s))).collect(),
            c_ones: Constant::new(Bits::<B>::mask()),
            c_lane_log: c16(lane_bits.trailing_zeros() as usize),
            rot_s: Default::default(),
            mask_s: Default::default(),
        }
    }
}

impl<const B: usize> Logic for Gearbox<B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rot_s.next = self.data.val();
        for s in 0..self.c_rot_l.len() {
            if self.amt.val().get_bit(s) {
                self.rot_s.next = (self.rot_s.val() << self.c_rot_l[s].val())
                    | (self.rot_s.val() >> self.c_rot_r[s].val());
            }
        }
        self.mask_s.next =
            !(self.c_ones.val() << (bit_cast::<16, 8>(self.hold.val()) << self.c_lane_log.val()));
        self.rot.next = self.rot_s.val();
        self.mask.next = self.mask_s.val();
        self.merged.next =
            (self.acc.val() & self.mask_s.val()) | (self.rot_s.val() & !self.mask_s.val());
    }
}
