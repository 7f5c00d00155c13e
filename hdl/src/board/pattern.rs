//! `TrafficPattern`: the board loopback's ULPDU sequence, one beat at a time.
//!
//! Produces the ULPDUs of [`golden::traffic`] (lengths from a 16-bit LFSR masked by
//! `cfg_len_mask`; the word at octet offset `4m` of ULPDU `n` is `{n[7:0], m[23:0]}`) as stream
//! beats of `W` octets: the current beat's data, keep and last, and the current ULPDU's length,
//! index and push bit. `advance` moves to the next beat. The traffic generator drives a stream
//! with it; the checker holds a second copy and compares what arrives. Not a protocol block: it
//! is the board's test traffic (no RFC section).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset: back to ULPDU 0, beat 0 (`cfg_len_mask` is read at reset and at each ULPDU's end) |
//! | `cfg_len_mask` | in | 16 | ULPDU length = LFSR state & mask |
//! | `advance` | in | 1 | the current beat was used: move to the next beat (the next ULPDU after a last beat) |
//! | `data`, `keep`, `last` | out | 8W, W, 1 | the current beat (an empty ULPDU is one beat with `keep` 0) |
//! | `len` | out | 16 | the current ULPDU's length |
//! | `first` | out | 1 | the current beat is its ULPDU's first |
//! | `push` | out | 1 | the current ULPDU is pushed (`n mod 4 == 3`) |
//!
//! ### Parameters, latency
//! `W` bytes per beat (4..64, whole words), `B = 8W`. The outputs are functions of registers:
//! valid in the cycle after reset, the next beat's values in the cycle after `advance`.

use rust_hdl::prelude::*;

/// The ULPDU sequence; see the module documentation.
#[derive(LogicBlock)]
pub struct TrafficPattern<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// ULPDU length mask.
    pub cfg_len_mask: Signal<In, Bits<16>>,
    /// Move to the next beat.
    pub advance: Signal<In, Bit>,
    /// The current beat's octets.
    pub data: Signal<Out, Bits<B>>,
    /// The current beat's byte enables.
    pub keep: Signal<Out, Bits<W>>,
    /// The current beat ends its ULPDU.
    pub last: Signal<Out, Bit>,
    /// The current ULPDU's length.
    pub len: Signal<Out, Bits<16>>,
    /// The current beat is its ULPDU's first.
    pub first: Signal<Out, Bit>,
    /// The current ULPDU is pushed.
    pub push: Signal<Out, Bit>,
    n: DFF<Bits<16>>,
    lfsr: DFF<Bits<16>>,
    beat: DFF<Bits<16>>,
    rem: DFF<Bits<16>>,
    len_q: DFF<Bits<16>>,
    lfsr_nx: Signal<Local, Bits<16>>,
    base: Signal<Local, Bits<32>>,
    acc: Signal<Local, Bits<B>>,
    c_ones: Constant<Bits<W>>,
    c_w: Constant<Bits<16>>,
    c_seed: Constant<Bits<16>>,
    c_wshift: Constant<Bits<16>>,
    c_lsh: Vec<Constant<Bits<16>>>,
    c_words: Constant<Bits<B>>,
}

impl<const W: usize, const B: usize> TrafficPattern<W, B> {
    /// Builds the pattern; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        crate::tx::check_tx_width("TrafficPattern", W);
        crate::stream::check_stream_params("TrafficPattern", W, B, 1);
        let words = W / 4;
        // Word k of every beat carries k in its offset field: the constant part of the data.
        let mut c_words = Bits::<B>::default();
        for k in 0..words {
            c_words = c_words
                | (bit_cast::<B, 32>(Bits::<32>::from(k as u64))
                    << Bits::<16>::from((32 * k) as u64));
        }
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_len_mask: Default::default(),
            advance: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            len: Default::default(),
            first: Default::default(),
            push: Default::default(),
            n: Default::default(),
            lfsr: Default::default(),
            beat: Default::default(),
            rem: Default::default(),
            len_q: Default::default(),
            lfsr_nx: Default::default(),
            base: Default::default(),
            acc: Default::default(),
            c_ones: Constant::new(Bits::<W>::mask()),
            c_w: Constant::new((W as u64).into()),
            c_seed: Constant::new((golden::traffic::TRAFFIC_SEED as u64).into()),
            c_wshift: Constant::new((words.trailing_zeros() as u64).into()),
            c_lsh: (0..words).map(|j| Constant::new(((32 * j) as u64).into())).collect(),
            c_words: Constant::new(c_words),
        }
    }
}

impl<const W: usize, const B: usize> Default for TrafficPattern<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TrafficPattern<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, n, lfsr, beat, rem, len_q);
        // The next length: one Galois step (taps 0xB400).
        self.lfsr_nx.next = self.lfsr.q.val() >> 1;
        if self.lfsr.q.val().get_bit(0) {
            self.lfsr_nx.next = (self.lfsr.q.val() >> 1) ^ 0xB400;
        }
        // The current beat.
        self.last.next = self.rem.q.val() <= self.c_w.val();
        self.keep.next = self.c_ones.val();
        if self.rem.q.val() < self.c_w.val() {
            self.keep.next = !(self.c_ones.val() << self.rem.q.val());
        }
        self.base.next = (bit_cast::<32, 16>(self.n.q.val() & 0xFF) << 24)
            | (bit_cast::<32, 16>(self.beat.q.val()) << self.c_wshift.val());
        self.acc.next = self.c_words.val();
        for j in 0..(W / 4) {
            self.acc.next =
                self.acc.val() | (bit_cast::<B, 32>(self.base.val()) << self.c_lsh[j].val());
        }
        self.data.next = self.acc.val();
        self.len.next = self.len_q.q.val();
        self.first.next = self.beat.q.val() == 0;
        self.push.next = (self.n.q.val() & 3) == 3;
        // Advance.
        if self.advance.val() {
            if self.rem.q.val() <= self.c_w.val() {
                self.n.d.next = self.n.q.val() + 1;
                self.lfsr.d.next = self.lfsr_nx.val();
                self.beat.d.next = 0.into();
                self.rem.d.next = self.lfsr_nx.val() & self.cfg_len_mask.val();
                self.len_q.d.next = self.lfsr_nx.val() & self.cfg_len_mask.val();
            } else {
                self.beat.d.next = self.beat.q.val() + 1;
                self.rem.d.next = self.rem.q.val() - self.c_w.val();
            }
        }
        if self.rst.val() {
            self.n.d.next = 0.into();
            self.lfsr.d.next = self.c_seed.val();
            self.beat.d.next = 0.into();
            self.rem.d.next = self.c_seed.val() & self.cfg_len_mask.val();
            self.len_q.d.next = self.c_seed.val() & self.cfg_len_mask.val();
        }
    }
}
