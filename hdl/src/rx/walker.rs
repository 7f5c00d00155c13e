//! `RxFpduWalker`: marks where every FPDU of the in-order MPA stream starts and ends (RFC 5044
//! section 6: "the ULPDU Length field MUST be used to determine if the entire FPDU is present";
//! 4.3: a Marker every 512 octets from the origin, inside an FPDU's span or leading it), from
//! counts worked out before the decision, so that the decision itself is one selection.
//!
//! This is the first half of the delineator's decision split (issue 15: every `mpa_rx_w8` path
//! at W = 8 is the delineator's decision, which finds the FPDU ends, chains to the next header,
//! steps the gearbox and pops its input in one cycle). The walker only finds the boundaries;
//! [`super::cutter::RxFpduCutter`], which cuts FPDUs at its marks, is the other half
//! ([`super::delineator::RxDelineator`] is the two).
//!
//! ```text
//!  s_axis ─► A: input register, position p of lane 0 ────────► beat queues (words, p + n) ─┐
//!            └► B: per lane j, as if an FPDU's header were at j: P_j = (L_j + 9) / 4,     │
//!                  P_j + j, limit check, Marker at j, Marker distance                    │
//!               C: x_j = P_j - (words to the next Marker) - 1, P_j + j - n                │
//!               D: Markers inside m_j = 1 + x_j / 127 (when x_j >= 0)                     │
//!               E: o_j = j + P_j + m_j (next start from lane 0), o_j < n, o_j = n         │
//!               F: lane j's position p + j and next start p + o_j (a lane on a Marker     │
//!                  takes lane j + 1's: a leading Marker) ─► lane queues ─────────────────┤
//!  walk: ns (position of the next FPDU start): the lane whose position equals ns starts  ▼
//!        an FPDU, ns := its next start; the beat goes when ns is past it ─► m_axis (marks)
//! ```
//! Everything before the walk depends on the beat alone (its words and its position), so it
//! is a pipeline without a loop. Positions are word counts modulo 2^16 (an FPDU spans at most
//! 16,323 words, so equality is unambiguous); the walk's loop is one 16-bit equality per lane
//! against registers and a one-hot selection of the next start: no adder. Markers inside an
//! FPDU: with the header at word position h (mod 128 from the origin, never 0: that is a
//! Marker) and P body words, the first Marker comes d = 128 - h words on; there are none when
//! P <= d, else 1 + (P - d - 1) / 127 (127 body words between Markers); a Marker right after
//! the CRC field leads the next FPDU. The division by 127 is `(x + x / 128 + 1) / 128`, exact
//! for every x below 127 * 128 (P is at most 16,194).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet (an FPDU's first octet) and of the Marker origin, loaded while `rst` is high |
//! | `cfg_markers` | in | 1 | Markers on (keep it steady while a stream runs) |
//! | `cfg_max_ulpdu` | in | 16 | the largest ULPDU_Length accepted (values above 64768 count as 64768; keep it steady while a stream runs) |
//! | `s_axis` | in | 8W | the stream as words ([`super::realigner::RX_WORD_USER`]): whole words from lane 0 |
//! | `m_axis` | out | 8W | the same beats, in order, with [`RX_WALK_USER`]: `[0]` FIN, `[1]` octets lost, `[2]` a ULPDU_Length above the limit (nothing is marked after it), `[18:3]` the lanes that start an FPDU, `[34:19]` the lanes that end one |
//! | `busy` | out | 1 | a beat taken has not gone out |
//! | `ctx_in_0` | in | 34 | only when built [`RxFpduWalker::with_context`]: a connection's context record ([`WalkCtx`]) |
//! | `ctx_load_0` | in | 1 | likewise: load `ctx_in_0` (honoured only while `busy` is low; `s_axis.ready` is low in its cycle, whether or not it is honoured: the one path from an input to `ready`) |
//! | `ctx_out_0` | out | 34 | likewise: the record of the connection being served (final while `busy` is low, for the beats taken before) |
//!
//! A stream that ends inside an FPDU has that FPDU's start marked and no end.
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! Eight cycles from a beat's input handshake to its output when nothing waits (the input
//! register, four pipeline stages, the lane queues' write, their copy into registers, the
//! walk into the output queue; asserted by `testbench/tests/rx_walker.rs`). One beat per
//! cycle, and one cycle more for every FPDU start after the first in a beat (a beat with k
//! starts takes k cycles; with none, one), counting as a start the header that follows a
//! leading Marker in the previous beat's last word (a cycle, no mark: at most one per 128
//! words). The input takes beats while fewer than
//! [`WALK_DEPTH`] are inside (credits, returned a cycle after the beat leaves: `ready` is a
//! register, with no path from the walk or from `m_axis.ready`).
//!
//! ### Timing
//! The walk's loop is `ns` against each lane's registered position (a 16-bit equality) and a
//! one-hot selection; whether the walk stays on the beat is worked out per lane beside the
//! selection. The queues are distributed RAM; the lanes' entries are read at the head pointer
//! and the one after it into registers every cycle (two copies of each queue), and the last
//! pop chooses between them, so leaving a beat moves a pointer and enables no register (a
//! queue with an output register put that enable, fanned out to every bit of the beat and its
//! lanes, on the critical path). Measured alone (LFE5U-85F): 115.9 / 115.0 / 121.1 MHz at
//! W = 8, seeds 1 to 3; 71.4 at W = 64 (README).
//!
//! ### Reset
//! `rst` empties the block and starts at an FPDU boundary at `cfg_seq`.

use crate::keep_words::KeepWords;
use crate::lutram::LutRam;
use crate::rx::walk_ctx::WalkCtxPack;
pub use crate::rx::walk_ctx::{WalkCtx, WALK_CTX_BITS};
use crate::sideband::{
    RxWalkBeatFields, RxWalkUserFields, RxWordUserFields, RX_WALK_USER, RX_WORD_USER,
};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use rust_hdl::prelude::*;

/// Beats inside the walker at most (the queues' size and the input's credit limit).
pub const WALK_DEPTH: usize = 16;
// A lane's flags in its queue (beside its position and next-start queues), if an FPDU starts at
// the lane: the next FPDU starts in this beat; it starts right after the beat; ULPDU_Length
// above the limit; it starts with a Marker in the beat's last word (its header is the next
// beat's lane 0); the lane holds a word; it holds the beat's last word.
const FLAG_IN: u64 = 1;
const FLAG_END: u64 = 2;
const FLAG_BAD: u64 = 4;
const FLAG_PEND: u64 = 8;
const FLAG_VALID: u64 = 16;
const FLAG_LAST_LANE: u64 = 32;
/// Bits of a beat queue entry ([`crate::sideband::RxWalkBeat`]).
const BEAT_BITS: usize = crate::sideband::RxWalkBeat::BITS;

/// The walker; see the module documentation.
#[derive(LogicBlock)]
pub struct RxFpduWalker<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the stream's first octet.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the Marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers on.
    pub cfg_markers: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted.
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// The stream as words.
    pub s_axis: StreamSink<W, B, RX_WORD_USER>,
    /// The same beats with the FPDU boundaries marked.
    pub m_axis: StreamSource<W, B, RX_WALK_USER>,
    /// A beat taken has not gone out.
    pub busy: Signal<Out, Bit>,
    /// Only when built [`RxFpduWalker::with_context`] (one entry; none otherwise): a
    /// connection's context record ([`WalkCtx`]) to load.
    pub ctx_in: Vec<Signal<In, Bits<WALK_CTX_BITS>>>,
    /// Likewise: load `ctx_in` now (honoured only while `busy` is low; no beat is taken in its
    /// cycle, whether or not it is honoured).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: the record of the connection being served (final while `busy` is low).
    pub ctx_out: Vec<Signal<Out, Bits<WALK_CTX_BITS>>>,
    // Credits: beats taken and not yet walked; `rdy` (a register) is cnt < WALK_DEPTH after
    // this cycle.
    cnt: DFF<Bits<6>>,
    rdy: DFF<Bit>,
    take: Signal<Local, Bit>,
    cnt_next: Signal<Local, Bits<6>>,
    kw: KeepWords<W>,
    // A: the input register, and the word position of its lane 0 from the Marker origin
    // (mod 128).
    a_v: DFF<Bit>,
    a_data: DFF<Bits<B>>,
    a_n: DFF<Bits<6>>,
    a_user: DFF<Bits<RX_WORD_USER>>,
    a_last: DFF<Bit>,
    bpos: DFF<Bits<16>>,
    a_bpn: Signal<Local, Bits<16>>,
    p7: Signal<Local, Bits<7>>,
    // pos7 + j in 8 bits (bit 7: the lane's position wraps past 128).
    p8j: Vec<Signal<Local, Bits<8>>>,
    a_hw: Vec<Signal<Local, Bits<16>>>,
    a_len: Vec<Signal<Local, Bits<16>>>,
    // B: per lane, as if a header were there: P, P + j, the limit check, a Marker at the lane,
    // and the lane's position from the origin (mod 128) less 129 (16 bits).
    b_v: DFF<Bit>,
    b_n: DFF<Bits<6>>,
    b_bp: DFF<Bits<16>>,
    b_p: Vec<DFF<Bits<16>>>,
    b_pj: Vec<DFF<Bits<16>>>,
    b_ok: Vec<DFF<Bit>>,
    b_mk: Vec<DFF<Bit>>,
    b_tm: Vec<DFF<Bits<16>>>,
    b_x: Vec<Signal<Local, Bits<16>>>,
    pos16: Signal<Local, Bits<16>>,
    b_n16: Signal<Local, Bits<16>>,
    seq_off: Signal<Local, Bits<32>>,
    // C: x = P - d - 1 (d words to the next Marker) and whether it is >= 0; P + j - n.
    c_v: DFF<Bit>,
    c_n: DFF<Bits<6>>,
    c_bp: DFF<Bits<16>>,
    c_pj: Vec<DFF<Bits<16>>>,
    c_pjn: Vec<DFF<Bits<16>>>,
    c_x: Vec<DFF<Bits<16>>>,
    c_gt: Vec<DFF<Bit>>,
    c_ok: Vec<DFF<Bit>>,
    c_mk: Vec<DFF<Bit>>,
    c_sum: Vec<Signal<Local, Bits<16>>>,
    // D: the Markers inside the FPDU.
    d_v: DFF<Bit>,
    d_n: DFF<Bits<6>>,
    d_bp: DFF<Bits<16>>,
    d_pj: Vec<DFF<Bits<16>>>,
    d_pjn: Vec<DFF<Bits<16>>>,
    d_m: Vec<DFF<Bits<16>>>,
    d_ok: Vec<DFF<Bit>>,
    d_mk: Vec<DFF<Bit>>,
    d_on: Vec<Signal<Local, Bits<16>>>,
    // E: the next FPDU's start from lane 0 (o), o < n, o = n.
    e_v: DFF<Bit>,
    e_n: DFF<Bits<6>>,
    e_bp: DFF<Bits<16>>,
    e_bpn: Signal<Local, Bits<16>>,
    e_n16: Signal<Local, Bits<16>>,
    e_o: Vec<DFF<Bits<16>>>,
    e_lt: Vec<DFF<Bit>>,
    e_eq: Vec<DFF<Bit>>,
    e_ok: Vec<DFF<Bit>>,
    e_mk: Vec<DFF<Bit>>,
    // F: each lane's entry (a lane on a Marker takes the next lane's values).
    f_fl: Vec<Signal<Local, Bits<8>>>,
    f_fl2: Vec<Signal<Local, Bits<8>>>,
    f_nx: Vec<Signal<Local, Bits<16>>>,
    // The queues: distributed RAM, so that the walk's pop moves a pointer and loads no register
    // (the beat's words, sideband and the next beat's position written from A at `wa` and read
    // at `rd`; the lanes' entries written from F at `wf`; `cf` entries from F not yet walked).
    f_beat: LutRam<BEAT_BITS, 4>,
    f_bpn: LutRam<16, 4>,
    f_data: LutRam<B, 4>,
    f_pos: Vec<LutRam<16, 4>>,
    f_next: Vec<LutRam<16, 4>>,
    f_flags: Vec<LutRam<8, 4>>,
    // The lanes' queues twice, read at rd and rd + 1 into registers every cycle (x_*, y_*):
    // the head is y after a pop and x otherwise (selected by pop_q), so the walk's decision
    // reaches neither a read address nor a register enable.
    g_pos: Vec<LutRam<16, 4>>,
    g_next: Vec<LutRam<16, 4>>,
    g_flags: Vec<LutRam<8, 4>>,
    x_pos: Vec<DFF<Bits<16>>>,
    x_next: Vec<DFF<Bits<16>>>,
    x_flags: Vec<DFF<Bits<8>>>,
    y_pos: Vec<DFF<Bits<16>>>,
    y_next: Vec<DFF<Bits<16>>>,
    y_flags: Vec<DFF<Bits<8>>>,
    h_pos: Vec<Signal<Local, Bits<16>>>,
    h_next: Vec<Signal<Local, Bits<16>>>,
    h_flags: Vec<Signal<Local, Bits<8>>>,
    rd1: DFF<Bits<4>>,
    e_vq: DFF<Bit>,
    wa: DFF<Bits<4>>,
    wf: DFF<Bits<4>>,
    rd: DFF<Bits<4>>,
    cf: DFF<Bits<5>>,
    hv_r: DFF<Bit>,
    cf_next: Signal<Local, Bits<5>>,

    // The walk.
    // The position of the next FPDU start (words from the origin, mod 2^16).
    ns: DFF<Bits<16>>,
    hdr_only: DFF<Bit>,
    dead: DFF<Bit>,
    t_first: DFF<Bits<16>>,
    t_last: DFF<Bits<16>>,
    h_v: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    hit_l: Vec<Signal<Local, Bit>>,
    stay_l: Vec<Signal<Local, Bit>>,
    pop_q: DFF<Bit>,
    sel: Signal<Local, Bits<8>>,
    sel_next: Signal<Local, Bits<16>>,
    oh: Signal<Local, Bits<16>>,
    ll_mask: Signal<Local, Bits<16>>,
    h_keep: Signal<Local, Bits<W>>,
    hit: Signal<Local, Bit>,
    s_bad: Signal<Local, Bit>,
    s_pend: Signal<Local, Bit>,
    s_end: Signal<Local, Bit>,
    stay: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    no_eq_n: Signal<Local, Bit>,
    end_here: Signal<Local, Bit>,
    first_now: Signal<Local, Bits<16>>,
    last_now: Signal<Local, Bits<16>>,
    out_user: Signal<Local, Bits<RX_WALK_USER>>,
    out: StreamOutQ<W, B, RX_WALK_USER>,
    // Constants.
    c_ulpdu_max: Constant<Bits<16>>,
    c_p_add: Vec<Constant<Bits<16>>>,
    c_mkpos: Vec<Constant<Bits<7>>>,
    c_lane6: Vec<Constant<Bits<6>>>,
    c_lane6p1: Vec<Constant<Bits<6>>>,
    c_lane16: Vec<Constant<Bits<16>>>,
    c_bit: Vec<Constant<Bits<16>>>,
    c_wkeep: Vec<Constant<Bits<W>>>,
    c_lane8: Vec<Constant<Bits<8>>>,
    c_tm: Vec<Constant<Bits<16>>>,
    c_tm_wrap: Vec<Constant<Bits<16>>>,
    c_depth: Constant<Bits<6>>,
    c_fl_in: Constant<Bits<8>>,
    c_fl_end: Constant<Bits<8>>,
    c_fl_bad: Constant<Bits<8>>,
    c_fl_pend: Constant<Bits<8>>,
    c_fl_valid: Constant<Bits<8>>,
    c_fl_ll: Constant<Bits<8>>,
    c_fl_stay_mask: Constant<Bits<8>>,
    // The context record's wiring (one entry when built with the context ports).
    ctx: Vec<WalkCtxPack>,
}

impl<const W: usize, const B: usize> RxFpduWalker<W, B> {
    /// Builds the walker; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxFpduWalker", W, B, RX_WORD_USER);
        crate::tx::check_tx_width("RxFpduWalker", W);
        let words = W / 4;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            cfg_markers: Default::default(),
            cfg_max_ulpdu: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            busy: Default::default(),
            ctx_in: vec![],
            ctx_load: vec![],
            ctx_out: vec![],
            cnt: Default::default(),
            rdy: Default::default(),
            take: Default::default(),
            cnt_next: Default::default(),
            kw: KeepWords::new(),
            a_v: Default::default(),
            a_data: Default::default(),
            a_n: Default::default(),
            a_user: Default::default(),
            a_last: Default::default(),
            bpos: Default::default(),
            a_bpn: Default::default(),
            p7: Default::default(),
            p8j: (0..words).map(|_| Default::default()).collect(),
            a_hw: (0..words).map(|_| Default::default()).collect(),
            a_len: (0..words).map(|_| Default::default()).collect(),
            b_v: Default::default(),
            b_n: Default::default(),
            b_bp: Default::default(),
            b_p: (0..words).map(|_| Default::default()).collect(),
            b_pj: (0..words).map(|_| Default::default()).collect(),
            b_ok: (0..words).map(|_| Default::default()).collect(),
            b_mk: (0..words).map(|_| Default::default()).collect(),
            b_tm: (0..words).map(|_| Default::default()).collect(),
            b_x: (0..words).map(|_| Default::default()).collect(),
            pos16: Default::default(),
            b_n16: Default::default(),
            seq_off: Default::default(),
            c_v: Default::default(),
            c_n: Default::default(),
            c_bp: Default::default(),
            c_pj: (0..words).map(|_| Default::default()).collect(),
            c_pjn: (0..words).map(|_| Default::default()).collect(),
            c_x: (0..words).map(|_| Default::default()).collect(),
            c_gt: (0..words).map(|_| Default::default()).collect(),
            c_ok: (0..words).map(|_| Default::default()).collect(),
            c_mk: (0..words).map(|_| Default::default()).collect(),
            c_sum: (0..words).map(|_| Default::default()).collect(),
            d_v: Default::default(),
            d_n: Default::default(),
            d_bp: Default::default(),
            d_pj: (0..words).map(|_| Default::default()).collect(),
            d_pjn: (0..words).map(|_| Default::default()).collect(),
            d_m: (0..words).map(|_| Default::default()).collect(),
            d_ok: (0..words).map(|_| Default::default()).collect(),
            d_mk: (0..words).map(|_| Default::default()).collect(),
            d_on: (0..words).map(|_| Default::default()).collect(),
            e_v: Default::default(),
            e_n: Default::default(),
            e_bp: Default::default(),
            e_bpn: Default::default(),
            e_n16: Default::default(),
            e_o: (0..words).map(|_| Default::default()).collect(),
            e_lt: (0..words).map(|_| Default::default()).collect(),
            e_eq: (0..words).map(|_| Default::default()).collect(),
            e_ok: (0..words).map(|_| Default::default()).collect(),
            e_mk: (0..words).map(|_| Default::default()).collect(),
            f_fl: (0..words).map(|_| Default::default()).collect(),
            f_fl2: (0..words).map(|_| Default::default()).collect(),
            f_nx: (0..words).map(|_| Default::default()).collect(),
            f_beat: Default::default(),
            f_bpn: Default::default(),
            f_data: Default::default(),
            f_pos: (0..words).map(|_| Default::default()).collect(),
            f_next: (0..words).map(|_| Default::default()).collect(),
            f_flags: (0..words).map(|_| Default::default()).collect(),
            g_pos: (0..words).map(|_| Default::default()).collect(),
            g_next: (0..words).map(|_| Default::default()).collect(),
            g_flags: (0..words).map(|_| Default::default()).collect(),
            x_pos: (0..words).map(|_| Default::default()).collect(),
            x_next: (0..words).map(|_| Default::default()).collect(),
            x_flags: (0..words).map(|_| Default::default()).collect(),
            y_pos: (0..words).map(|_| Default::default()).collect(),
            y_next: (0..words).map(|_| Default::default()).collect(),
            y_flags: (0..words).map(|_| Default::default()).collect(),
            h_pos: (0..words).map(|_| Default::default()).collect(),
            h_next: (0..words).map(|_| Default::default()).collect(),
            h_flags: (0..words).map(|_| Default::default()).collect(),
            rd1: Default::default(),
            e_vq: Default::default(),
            wa: Default::default(),
            wf: Default::default(),
            rd: Default::default(),
            cf: Default::default(),
            hv_r: Default::default(),
            cf_next: Default::default(),

            ns: Default::default(),
            hdr_only: Default::default(),
            dead: Default::default(),
            t_first: Default::default(),
            t_last: Default::default(),
            h_v: Default::default(),
            go: Default::default(),
            hit_l: (0..words).map(|_| Default::default()).collect(),
            stay_l: (0..words).map(|_| Default::default()).collect(),
            pop_q: Default::default(),
            sel: Default::default(),
            sel_next: Default::default(),
            oh: Default::default(),
            ll_mask: Default::default(),
            h_keep: Default::default(),
            hit: Default::default(),
            s_bad: Default::default(),
            s_pend: Default::default(),
            s_end: Default::default(),
            stay: Default::default(),
            pop: Default::default(),
            no_eq_n: Default::default(),
            end_here: Default::default(),
            first_now: Default::default(),
            last_now: Default::default(),
            out_user: Default::default(),
            out: StreamOutQ::new(),
            c_ulpdu_max: Constant::new((golden::mulpdu::ULPDU_MAX as u64).into()),
            c_p_add: (0..words).map(|j| Constant::new(((9 + 4 * j) as u64).into())).collect(),
            c_mkpos: (0..words).map(|j| Constant::new((((128 - j) % 128) as u64).into())).collect(),
            c_lane6: (0..words).map(|j| Constant::new((j as u64).into())).collect(),
            c_lane6p1: (0..words).map(|j| Constant::new(((j + 1) as u64).into())).collect(),
            c_lane16: (0..words).map(|j| Constant::new((j as u64).into())).collect(),
            c_bit: (0..words).map(|j| Constant::new((1u64 << j).into())).collect(),
            c_wkeep: (0..words)
                .map(|j| Constant::new(Bits::<W>::from(0xFu64 << (4 * j))))
                .collect(),
            c_lane8: (0..words).map(|j| Constant::new((j as u64).into())).collect(),
            c_tm: (0..words)
                .map(|j| Constant::new(((j as u64).wrapping_sub(129) & 0xFFFF).into()))
                .collect(),
            c_tm_wrap: (0..words)
                .map(|j| Constant::new(((j as u64).wrapping_sub(257) & 0xFFFF).into()))
                .collect(),
            c_depth: Constant::new((WALK_DEPTH as u64).into()),
            c_fl_in: Constant::new(FLAG_IN.into()),
            c_fl_end: Constant::new(FLAG_END.into()),
            c_fl_bad: Constant::new(FLAG_BAD.into()),
            c_fl_pend: Constant::new(FLAG_PEND.into()),
            c_fl_valid: Constant::new(FLAG_VALID.into()),
            c_fl_ll: Constant::new(FLAG_LAST_LANE.into()),
            c_fl_stay_mask: Constant::new((FLAG_IN | FLAG_BAD | FLAG_PEND).into()),
            ctx: vec![],
        }
    }

    /// The walker with the context ports (`ctx_in`, `ctx_load`, `ctx_out`): while it is not
    /// `busy`, the state it keeps about a connection's stream is read out and another
    /// connection's loaded, so that one walker serves any number of connections (see
    /// [`WalkCtx`]; the connection's `cfg_markers` and `cfg_max_ulpdu` are set with its
    /// record). [`RxFpduWalker::new`] builds neither ports nor logic: `mpa_rx`'s Verilog does
    /// not change.
    pub fn with_context() -> Self {
        Self {
            ctx_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_out: vec![Default::default()],
            ctx: vec![WalkCtxPack::default()],
            ..Self::new()
        }
    }
}

impl<const W: usize, const B: usize> Default for RxFpduWalker<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxFpduWalker<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cnt, rdy, a_v, a_data, a_n, a_user, a_last, bpos, b_v, b_n, b_bp, c_v,
            c_n, c_bp, d_v, d_n, d_bp, e_v, e_n, e_bp, ns, pop_q, wa, wf, rd, rd1, e_vq, cf, hv_r,
            hdr_only, dead, t_first, t_last
        );
        self.f_beat.clock.next = self.clock.val();
        self.f_bpn.clock.next = self.clock.val();
        self.f_data.clock.next = self.clock.val();
        self.f_beat.write_address.next = self.wa.q.val();
        self.f_bpn.write_address.next = self.wa.q.val();
        self.f_data.write_address.next = self.wa.q.val();
        self.f_beat.read_address.next = self.rd.q.val();
        self.f_bpn.read_address.next = self.rd.q.val();
        self.f_data.read_address.next = self.rd.q.val();
        if self.a_v.q.val() {
            self.wa.d.next = self.wa.q.val() + 1;
        }
        if self.e_v.q.val() {
            self.wf.d.next = self.wf.q.val() + 1;
        }
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();

        // ---- Input: a beat is taken while fewer than WALK_DEPTH are inside. ----
        self.s_axis.ready.next = self.rdy.q.val() & !self.rst.val();
        self.take.next = self.s_axis.valid.val() & self.rdy.q.val() & !self.rst.val();
        // ---- Context record (only when built with it): read out, and loaded while nothing is
        // inside (no beat in the pipeline, the queues or the output queue); no beat is taken
        // in a load's cycle. The loads are written here, before the stages that assign these
        // registers only while a beat is inside.
        for k in 0..self.ctx.len() {
            self.ctx[k].rec_in.next = self.ctx_in[k].val();
            self.ctx[k].bpos.next = self.bpos.q.val();
            self.ctx[k].ns.next = self.ns.q.val();
            self.ctx[k].hdr_only.next = self.hdr_only.q.val();
            self.ctx[k].dead.next = self.dead.q.val();
            self.ctx_out[k].next = self.ctx[k].rec_out.val();
            if self.ctx_load[k].val() {
                self.s_axis.ready.next = false;
                self.take.next = false;
                if !self.cnt.q.val().any() & !self.out.m_axis.valid.val() {
                    self.bpos.d.next = self.ctx[k].in_bpos.val();
                    self.ns.d.next = self.ctx[k].in_ns.val();
                    self.hdr_only.d.next = self.ctx[k].in_hdr_only.val();
                    self.dead.d.next = self.ctx[k].in_dead.val();
                }
            }
        }
        self.kw.keep.next = self.s_axis.keep.val();
        self.a_v.d.next = self.take.val();
        self.a_data.d.next = self.s_axis.data.val();
        self.a_n.d.next = self.kw.words.val();
        self.a_user.d.next = self.s_axis.user.val();
        self.a_last.d.next = self.s_axis.last.val();
        // The beat and its words go to their queues at once; the lanes' values follow.
        self.f_data.write_enable.next = self.a_v.q.val();
        self.f_data.write_data.next = self.a_data.q.val();
        self.f_beat.write_enable.next = self.a_v.q.val();
        self.f_beat.write_data.next = 0.into();
        self.f_beat.write_data.next.set_value_rx_walk_beat_n(self.a_n.q.val());
        self.f_beat
            .write_data
            .next
            .set_value_rx_walk_beat_fin(self.a_user.q.val().get_value_rx_word_fin());
        self.f_beat
            .write_data
            .next
            .set_value_rx_walk_beat_lost(self.a_user.q.val().get_value_rx_word_lost());
        self.f_beat.write_data.next.set_value_rx_walk_beat_last(self.a_last.q.val());
        // The beat's position and the next beat's.
        self.a_bpn.next = self.bpos.q.val() + bit_cast::<16, 6>(self.a_n.q.val());
        if self.a_v.q.val() {
            self.bpos.d.next = self.a_bpn.val();
        }
        self.f_bpn.write_enable.next = self.a_v.q.val();
        self.f_bpn.write_data.next = self.a_bpn.val();
        self.p7.next = self.bpos.q.val().get_bits::<7>(0);
        self.pos16.next = bit_cast::<16, 7>(self.p7.val());

        // ---- B: each lane as a header. ----
        self.b_v.d.next = self.a_v.q.val();
        self.b_n.d.next = self.a_n.q.val();
        self.b_bp.d.next = self.bpos.q.val();
        for j in 0..(W / 4) {
            self.b_p[j].clock.next = self.clock.val();
            self.b_pj[j].clock.next = self.clock.val();
            self.b_ok[j].clock.next = self.clock.val();
            self.b_mk[j].clock.next = self.clock.val();
            self.b_tm[j].clock.next = self.clock.val();
            // ULPDU_Length if the header is at lane j: big-endian, octet 4j the high octet.
            self.a_hw[j].next = self.a_data.q.val().get_bits::<16>(j * 32);
            self.a_len[j].next =
                ((self.a_hw[j].val() & 0xFF) << 8) | ((self.a_hw[j].val() >> 8) & 0xFF);
            self.b_p[j].d.next = (self.a_len[j].val() + 9) >> 2;
            self.b_pj[j].d.next = (self.a_len[j].val() + self.c_p_add[j].val()) >> 2;
            self.b_ok[j].d.next = (self.a_len[j].val() <= self.cfg_max_ulpdu.val())
                & (self.a_len[j].val() <= self.c_ulpdu_max.val());
            self.b_mk[j].d.next = self.cfg_markers.val() & (self.p7.val() == self.c_mkpos[j].val());
            // h - 129 with h = (pos7 + j) mod 128, all in 16 bits (bit 15 is the sign below).
            self.b_tm[j].d.next = self.pos16.val() + self.c_tm[j].val();
            // (A carry, not p7 >= 128 - j: for j = 0 that comparison is constant, which
            // Verilator's lint rejects.)
            self.p8j[j].next = bit_cast::<8, 7>(self.p7.val()) + self.c_lane8[j].val();
            if self.p8j[j].val().get_bit(7) {
                self.b_tm[j].d.next = self.pos16.val() + self.c_tm_wrap[j].val();
            }
        }

        // ---- C: x = P + h - 129 (h the lane's position mod 128), P + j - n. ----
        self.c_v.d.next = self.b_v.q.val();
        self.c_n.d.next = self.b_n.q.val();
        self.c_bp.d.next = self.b_bp.q.val();
        self.b_n16.next = bit_cast::<16, 6>(self.b_n.q.val());
        for j in 0..(W / 4) {
            self.c_pj[j].clock.next = self.clock.val();
            self.c_pjn[j].clock.next = self.clock.val();
            self.c_x[j].clock.next = self.clock.val();
            self.c_gt[j].clock.next = self.clock.val();
            self.c_ok[j].clock.next = self.clock.val();
            self.c_mk[j].clock.next = self.clock.val();
            // x is below 16,384 when it is not negative for every length within the limit (P at
            // most 16,194; only lanes above the limit, which end the walk, reach more): bit 15
            // is its sign.
            self.b_x[j].next = self.b_p[j].q.val() + self.b_tm[j].q.val();
            self.c_x[j].d.next = self.b_x[j].val();
            self.c_gt[j].d.next = self.cfg_markers.val() & !self.b_x[j].val().get_bit(15);
            self.c_pj[j].d.next = self.b_pj[j].q.val();
            self.c_pjn[j].d.next = self.b_pj[j].q.val() - self.b_n16.val();
            self.c_ok[j].d.next = self.b_ok[j].q.val();
            self.c_mk[j].d.next = self.b_mk[j].q.val();
        }

        // ---- D: Markers inside: 1 + x / 127 = (x + x / 128 + 129) / 128. ----
        self.d_v.d.next = self.c_v.q.val();
        self.d_n.d.next = self.c_n.q.val();
        self.d_bp.d.next = self.c_bp.q.val();
        for j in 0..(W / 4) {
            self.d_pj[j].clock.next = self.clock.val();
            self.d_pjn[j].clock.next = self.clock.val();
            self.d_m[j].clock.next = self.clock.val();
            self.d_ok[j].clock.next = self.clock.val();
            self.d_mk[j].clock.next = self.clock.val();
            self.c_sum[j].next = self.c_x[j].q.val() + (self.c_x[j].q.val() >> 7) + 129;
            self.d_m[j].d.next = 0.into();
            if self.c_gt[j].q.val() {
                self.d_m[j].d.next = self.c_sum[j].val() >> 7;
            }
            self.d_pj[j].d.next = self.c_pj[j].q.val();
            self.d_pjn[j].d.next = self.c_pjn[j].q.val();
            self.d_ok[j].d.next = self.c_ok[j].q.val();
            self.d_mk[j].d.next = self.c_mk[j].q.val();
        }

        // ---- E: the next start from lane 0, and how it compares with the word count. ----
        self.e_v.d.next = self.d_v.q.val();
        self.e_n.d.next = self.d_n.q.val();
        self.e_bp.d.next = self.d_bp.q.val();
        for j in 0..(W / 4) {
            self.e_o[j].clock.next = self.clock.val();
            self.e_lt[j].clock.next = self.clock.val();
            self.e_eq[j].clock.next = self.clock.val();
            self.e_ok[j].clock.next = self.clock.val();
            self.e_mk[j].clock.next = self.clock.val();
            // o - n is at least -16 and below 32,768: bit 15 is its sign.
            self.e_o[j].d.next = self.d_pj[j].q.val() + self.d_m[j].q.val();
            self.d_on[j].next = self.d_pjn[j].q.val() + self.d_m[j].q.val();
            self.e_lt[j].d.next = self.d_on[j].val().get_bit(15);
            self.e_eq[j].d.next = !self.d_on[j].val().any();
            self.e_ok[j].d.next = self.d_ok[j].q.val();
            self.e_mk[j].d.next = self.d_mk[j].q.val();
        }

        // ---- F: each lane's position and next start (positions: the beat's plus offsets); a
        // lane on a Marker leads the FPDU whose header is the next lane (or, in the beat's last
        // word, the next beat's lane 0: pending, its next start that lane). ----
        self.e_n16.next = bit_cast::<16, 6>(self.e_n.q.val());
        self.e_bpn.next = self.e_bp.q.val() + self.e_n16.val();
        for j in 0..(W / 4) {
            self.f_pos[j].clock.next = self.clock.val();
            self.f_next[j].clock.next = self.clock.val();
            self.f_flags[j].clock.next = self.clock.val();
            self.f_pos[j].write_enable.next = self.e_v.q.val();
            self.f_next[j].write_enable.next = self.e_v.q.val();
            self.f_flags[j].write_enable.next = self.e_v.q.val();
            self.f_pos[j].write_address.next = self.wf.q.val();
            self.f_next[j].write_address.next = self.wf.q.val();
            self.f_flags[j].write_address.next = self.wf.q.val();
            self.f_pos[j].read_address.next = self.rd.q.val();
            self.f_next[j].read_address.next = self.rd.q.val();
            self.f_flags[j].read_address.next = self.rd.q.val();
            self.g_pos[j].clock.next = self.clock.val();
            self.g_next[j].clock.next = self.clock.val();
            self.g_flags[j].clock.next = self.clock.val();
            self.g_pos[j].write_enable.next = self.e_v.q.val();
            self.g_next[j].write_enable.next = self.e_v.q.val();
            self.g_flags[j].write_enable.next = self.e_v.q.val();
            self.g_pos[j].write_address.next = self.wf.q.val();
            self.g_next[j].write_address.next = self.wf.q.val();
            self.g_flags[j].write_address.next = self.wf.q.val();
            self.g_pos[j].read_address.next = self.rd1.q.val();
            self.g_next[j].read_address.next = self.rd1.q.val();
            self.g_flags[j].read_address.next = self.rd1.q.val();
            self.f_pos[j].write_data.next = self.e_bp.q.val() + self.c_lane16[j].val();
            self.g_pos[j].write_data.next = self.e_bp.q.val() + self.c_lane16[j].val();
            self.f_nx[j].next = self.e_bp.q.val() + self.e_o[j].q.val();
            self.f_fl[j].next = 0.into();
            if self.e_lt[j].q.val() {
                self.f_fl[j].next = self.f_fl[j].val() | self.c_fl_in.val();
            }
            if self.e_eq[j].q.val() {
                self.f_fl[j].next = self.f_fl[j].val() | self.c_fl_end.val();
            }
            if !self.e_ok[j].q.val() {
                self.f_fl[j].next = self.f_fl[j].val() | self.c_fl_bad.val();
            }
        }
        for j in 0..(W / 4 - 1) {
            if self.e_mk[j].q.val() {
                self.f_nx[j].next = self.e_bp.q.val() + self.e_o[j + 1].q.val();
                self.f_fl[j].next = 0.into();
                if self.e_lt[j + 1].q.val() {
                    self.f_fl[j].next = self.f_fl[j].val() | self.c_fl_in.val();
                }
                if self.e_eq[j + 1].q.val() {
                    self.f_fl[j].next = self.f_fl[j].val() | self.c_fl_end.val();
                }
                if !self.e_ok[j + 1].q.val() {
                    self.f_fl[j].next = self.f_fl[j].val() | self.c_fl_bad.val();
                }
                if self.c_lane6p1[j].val() >= self.e_n.q.val() {
                    self.f_fl[j].next = self.c_fl_pend.val();
                    self.f_nx[j].next = self.e_bpn.val();
                }
            }
        }
        for j in (W / 4 - 1)..(W / 4) {
            if self.e_mk[j].q.val() {
                self.f_fl[j].next = self.c_fl_pend.val();
                self.f_nx[j].next = self.e_bpn.val();
            }
        }
        for j in 0..(W / 4) {
            self.f_fl2[j].next = self.f_fl[j].val();
            if self.c_lane6[j].val() < self.e_n.q.val() {
                self.f_fl2[j].next = self.f_fl2[j].val() | self.c_fl_valid.val();
            }
            if self.c_lane6p1[j].val() == self.e_n.q.val() {
                self.f_fl2[j].next = self.f_fl2[j].val() | self.c_fl_ll.val();
            }
            self.f_flags[j].write_data.next = self.f_fl2[j].val();
            self.f_next[j].write_data.next = self.f_nx[j].val();
            self.g_flags[j].write_data.next = self.f_fl2[j].val();
            self.g_next[j].write_data.next = self.f_nx[j].val();
        }
        // The head's lane entries: registers loaded every cycle at rd and rd + 1.
        for j in 0..(W / 4) {
            self.x_pos[j].clock.next = self.clock.val();
            self.x_next[j].clock.next = self.clock.val();
            self.x_flags[j].clock.next = self.clock.val();
            self.y_pos[j].clock.next = self.clock.val();
            self.y_next[j].clock.next = self.clock.val();
            self.y_flags[j].clock.next = self.clock.val();
            self.x_pos[j].d.next = self.f_pos[j].read_data.val();
            self.x_next[j].d.next = self.f_next[j].read_data.val();
            self.x_flags[j].d.next = self.f_flags[j].read_data.val();
            self.y_pos[j].d.next = self.g_pos[j].read_data.val();
            self.y_next[j].d.next = self.g_next[j].read_data.val();
            self.y_flags[j].d.next = self.g_flags[j].read_data.val();
            self.h_pos[j].next = self.x_pos[j].q.val();
            self.h_next[j].next = self.x_next[j].q.val();
            self.h_flags[j].next = self.x_flags[j].q.val();
            if self.pop_q.q.val() {
                self.h_pos[j].next = self.y_pos[j].q.val();
                self.h_next[j].next = self.y_next[j].q.val();
                self.h_flags[j].next = self.y_flags[j].q.val();
            }
        }

        // ---- The walk, on the queues' heads (registers): the lane at ns starts an FPDU. ----
        self.h_v.next = self.hv_r.q.val();
        self.go.next = self.h_v.val() & self.out.s_axis.ready.val();
        self.hit.next = false;
        self.stay.next = false;
        self.sel.next = 0.into();
        self.sel_next.next = 0.into();
        self.oh.next = 0.into();
        for j in 0..(W / 4) {
            self.hit_l[j].next = (self.h_pos[j].val() == self.ns.q.val())
                & (self.h_flags[j].val() & self.c_fl_valid.val()).any()
                & !self.dead.q.val();
            // Stay on the beat: the FPDU starting here is followed by another in this beat
            // (per lane, so that the walk's pop does not wait for the selection).
            self.stay_l[j].next = self.hit_l[j].val()
                & ((self.h_flags[j].val() & self.c_fl_stay_mask.val()) == self.c_fl_in.val());
            if self.stay_l[j].val() {
                self.stay.next = true;
            }
            if self.hit_l[j].val() {
                self.hit.next = true;
                self.sel.next = self.sel.val() | self.h_flags[j].val();
                self.sel_next.next = self.sel_next.val() | self.h_next[j].val();
                self.oh.next = self.oh.val() | self.c_bit[j].val();
            }
        }
        self.ll_mask.next = 0.into();
        self.h_keep.next = 0.into();
        for j in 0..(W / 4) {
            if (self.h_flags[j].val() & self.c_fl_ll.val()).any() {
                self.ll_mask.next = self.ll_mask.val() | self.c_bit[j].val();
            }
            if (self.h_flags[j].val() & self.c_fl_valid.val()).any() {
                self.h_keep.next = self.h_keep.val() | self.c_wkeep[j].val();
            }
        }
        self.s_bad.next = (self.sel.val() & self.c_fl_bad.val()).any();
        self.s_pend.next = (self.sel.val() & self.c_fl_pend.val()).any();
        self.s_end.next = (self.sel.val() & self.c_fl_end.val()).any();
        self.pop.next = self.go.val() & !self.stay.val();
        // The next start right after the beat: the beat's last word ends an FPDU.
        self.no_eq_n.next = self.ns.q.val() == self.f_bpn.read_data.val();
        // Marks: the FPDU starting at ns (not when it is the header after a leading Marker of
        // the previous beat), the end of the one before it (the word before), and the end of
        // an FPDU that ends with the beat.
        self.first_now.next = 0.into();
        if self.hit.val() & !self.hdr_only.q.val() {
            self.first_now.next = self.oh.val();
        }
        self.last_now.next = self.oh.val() >> 1;
        self.end_here.next =
            (self.hit.val() & self.s_end.val() & !self.s_bad.val() & !self.s_pend.val())
                | (!self.hit.val() & !self.dead.q.val() & self.no_eq_n.val());
        if self.end_here.val() {
            self.last_now.next = self.last_now.val() | self.ll_mask.val();
        }
        if self.go.val() {
            if self.hit.val() {
                self.ns.d.next = self.sel_next.val();
                self.hdr_only.d.next = self.s_pend.val();
                if self.s_bad.val() {
                    self.dead.d.next = true;
                }
            }
            if self.stay.val() {
                self.t_first.d.next = self.t_first.q.val() | self.first_now.val();
                self.t_last.d.next = self.t_last.q.val() | self.last_now.val();
            } else {
                self.t_first.d.next = 0.into();
                self.t_last.d.next = 0.into();
            }
        }
        // The beat goes out when the walk leaves it.
        if self.pop.val() {
            self.rd.d.next = self.rd.q.val() + 1;
            self.rd1.d.next = self.rd1.q.val() + 1;
        }
        // An entry counts from the second cycle after its write (its registered copy).
        self.e_vq.d.next = self.e_v.q.val();
        self.cf_next.next = self.cf.q.val();
        if self.e_vq.q.val() & !self.pop.val() {
            self.cf_next.next = self.cf.q.val() + 1;
        }
        if !self.e_vq.q.val() & self.pop.val() {
            self.cf_next.next = self.cf.q.val() - 1;
        }
        self.cf.d.next = self.cf_next.val();
        self.hv_r.d.next = self.cf_next.val().any();
        self.out_user.next = 0.into();
        self.out_user
            .next
            .set_value_rx_walk_fin(self.f_beat.read_data.val().get_value_rx_walk_beat_fin());
        self.out_user
            .next
            .set_value_rx_walk_lost(self.f_beat.read_data.val().get_value_rx_walk_beat_lost());
        self.out_user.next.set_value_rx_walk_bad(self.hit.val() & self.s_bad.val());
        self.out_user.next.set_value_rx_walk_first(self.t_first.q.val() | self.first_now.val());
        self.out_user.next.set_value_rx_walk_last(self.t_last.q.val() | self.last_now.val());
        self.out.s_axis.valid.next = self.pop.val();
        self.out.s_axis.data.next = self.f_data.read_data.val();
        self.out.s_axis.keep.next = self.h_keep.val();
        self.out.s_axis.user.next = self.out_user.val();
        self.out.s_axis.last.next = self.f_beat.read_data.val().get_value_rx_walk_beat_last();

        // ---- Credits (a beat's is returned the cycle after it went: the walk's decision
        // does not reach the input's ready). ----
        self.pop_q.d.next = self.pop.val();
        self.cnt_next.next = self.cnt.q.val();
        if self.take.val() & !self.pop_q.q.val() {
            self.cnt_next.next = self.cnt.q.val() + 1;
        }
        if !self.take.val() & self.pop_q.q.val() {
            self.cnt_next.next = self.cnt.q.val() - 1;
        }
        self.cnt.d.next = self.cnt_next.val();
        self.rdy.d.next = self.cnt_next.val() < self.c_depth.val();
        self.busy.next = self.cnt.q.val().any() | self.out.m_axis.valid.val();
        self.seq_off.next = self.cfg_seq.val() - self.cfg_origin.val();

        if self.rst.val() {
            self.cnt.d.next = 0.into();
            self.rdy.d.next = false;
            self.pop_q.d.next = false;
            self.wa.d.next = 0.into();
            self.wf.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.rd1.d.next = 1.into();
            self.e_vq.d.next = false;
            self.cf.d.next = 0.into();
            self.hv_r.d.next = false;
            self.a_v.d.next = false;
            self.b_v.d.next = false;
            self.c_v.d.next = false;
            self.d_v.d.next = false;
            self.e_v.d.next = false;
            self.ns.d.next = self.seq_off.val().get_bits::<16>(2);
            self.hdr_only.d.next = false;
            self.dead.d.next = false;
            self.t_first.d.next = 0.into();
            self.t_last.d.next = 0.into();
            self.bpos.d.next = self.seq_off.val().get_bits::<16>(2);
        }
    }
}
