//! `RxDelineator`: finds the FPDUs in the in-order MPA stream (RFC 5044 section 6) and emits each
//! as a packet of its own.
//!
//! "The ULPDU Length field MUST be used to determine if the entire FPDU is present" (6): from an
//! FPDU's first word the block reads ULPDU_Length (after a leading Marker when the FPDU starts on
//! a Marker position), so it knows the FPDU's P body words (ULPDU_Length, ULPDU, PAD, CRC:
//! `P = (ULPDU_Length + 5) / 4 + 1`), and walks the stream: a Marker (every 128th word from the
//! origin, 4.3) inside the FPDU's span is part of it; one that falls right after the CRC field
//! belongs to the next FPDU. ULPDU_Length above the limit ends the stream with error code 2 (the
//! FPDU cannot be verified, as in [`golden::deframe`]); a stream that ends inside an FPDU ends it
//! with code 1.
//!
//! ```text
//!  head beat words [s, n) ──► header cycle (unless chained): L -> rem = P, rotation set
//!                        └──► fragment cycles: [s, e) with e = s + rem + (Marker inside?),
//!                             or [s, n) and rem -= words that are not Markers; a last
//!                             fragment reads the next header at lane e (or lane 0 of the
//!                             next beat): chained, no header cycle
//!  fragments ─► acc (c words) + fragment rotated by c - s ─► full beats, the FPDU's last beat
//!               (a last fragment that overfills the beat leaves a tail in acc: it goes out
//!               next cycle, "closing", beside the next FPDU's first fragment when that
//!               fragment puts out nothing)
//! ```
//! The rotation and merge are the shared [`crate::gearbox::Gearbox`] on 4-octet words.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet (an FPDU's first octet) and of the marker origin, loaded while `rst` is high |
//! | `cfg_markers`, `cfg_crc` | in | 1 | this direction's settings, sampled per FPDU and passed on (`cfg_markers` through a register, the value of the cycle before the FPDU opens, for an FPDU with a header cycle; the port itself in the cycle that chains an FPDU: keep it steady while a stream runs) |
//! | `cfg_max_ulpdu` | in | 16 | the largest ULPDU_Length accepted (the release buffer's capacity; values above 64768 count as 64768), compared as each beat comes in (keep it steady while a stream runs) |
//! | `s_axis` | in | 8W | the stream as words ([`super::realigner::RX_WORD_USER`]) |
//! | `m_axis` | out | 8W | one FPDU per packet (Markers and CRC field included), lane 0 its first word; or an error packet |
//! | `busy` | out | 1 | a beat taken is still inside (input register, an FPDU's last beat still to go, output queue); low: every FPDU whose last word was taken has gone out |
//! | `m_axis.user` | out | [`RX_FPDU_USER`] | every beat: `[31:0]` sequence number of the FPDU's first octet, `[38:32]` words from its first word to the first Marker position (0: it starts with a Marker), `[39]` Markers on, `[40]` CRC on, `[41]` error packet, `[43:42]` its RFC 5044 section 8 code |
//!
//! An error packet ends the stream: nothing follows it. Its words (if any) are not an FPDU: a
//! code-1 packet carries the incomplete FPDU's words, a code-2 packet none or, when the FPDU
//! starts with a Marker taken before its header was read, that Marker; its sideband is the
//! FPDU's (sequence number and Marker distance of its first word).
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! From a word's input handshake to its output handshake when nothing waits: three cycles
//! (the input slice, whose copies of each lane's header candidate keep the input's adders and
//! comparisons out of the decisions; the head slice; the fragment cycle into the output queue),
//! four for the first word of an FPDU that needs a header cycle or waits behind its
//! predecessor's tail, and for a tail's words.
//! One fragment per cycle. An FPDU's header is read in the
//! cycle its predecessor's last fragment is taken ("chained": no cycle of its own) when the
//! header is in the head beat or in lane 0 of the next one (the head slice's second entry or
//! the beat offered now); otherwise it takes a header cycle: the first FPDU, one that starts
//! with a Marker (k + 2 cycles when that Marker is the last word of a beat), one whose
//! ULPDU_Length is above the limit. When the last fragment leaves a tail (its words overfill the
//! output beat), the tail goes out in the next cycle; the chained FPDU's first fragment is taken
//! in that cycle too when it neither ends the FPDU nor fills a beat (fewer words than a beat, and
//! the FPDU goes on past them), else it waits that cycle. So an FPDU spanning k beats takes k
//! cycles when chained and its predecessor leaves no tail or its first fragment overlaps the
//! tail, else k + 1; one FPDU per segment at 64 octets runs at 0.995 beats per cycle or more at
//! every W (measured, README; the `mpa_rx` rate test asserts 0.98). Several FPDUs in one beat
//! take one cycle each (a fragment per cycle). The error packet of a ULPDU_Length above the
//! limit leaves one cycle after its header cycle; a code-1 packet (the stream ended inside an
//! FPDU) one cycle after the cycle that saw the stream's last beat exhausted.
//!
//! ### Timing
//! The Markers setting in use is a register (no selection before the Marker decisions), and
//! each choice of fragment length comes with its own "beat full" flags and `keep` mask, worked
//! out beside the choice, so no comparison or decoder follows it. The head beat's words not yet
//! taken (`avail`) are a register too: the word count of the beat the head slice presents next
//! when the beat goes, else the count less this cycle's words. Whether the next Marker comes
//! before the FPDU's end (`rem > to_mk`) is a register as well, updated from registers beside the
//! decision, and the words left after a fragment are `rem - avail` (plus a Marker), whatever
//! the fragment's length (after the FPDU's last fragment `rem` is not used again). For chaining,
//! every lane's header candidate (P and the limit check) is worked out from the input beat and
//! kept beside it in the head slice, and each lane's Marker test from registers, so the lane
//! after the last fragment only selects one (each lane carries P + j as well, so that its test
//! against the Marker distance from lane j is one comparison of registers, no subtraction
//! first); for lane 0 of the beat offered now, the Marker test compares ULPDU_Length itself
//! with a threshold from registers (no adder after the beat).
//! That lane (s + rem + inc) is tested on a sum of log2(W/4) + 1 bits, enough where it is read
//! (s and rem are then at most a beat's words). The sequence number of lane s lags by the words
//! taken in the cycle before: their count is a register loaded every cycle, and the decision
//! loads only a flag (whether they were taken) into that sum.
//!
//! ### Reset
//! `rst` loads the position and sequence number, and starts at an FPDU boundary.

use crate::gearbox::Gearbox;
use crate::keep_words::KeepWords;
use crate::sideband::{RxFpduUserFields, RxWordUserFields, RX_WORD_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use crate::stream_skid::StreamSkid;
use rust_hdl::prelude::*;

pub use crate::sideband::RX_FPDU_USER;

/// The delineator; see the module documentation.
#[derive(LogicBlock)]
pub struct RxDelineator<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the stream's first octet.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers on.
    pub cfg_markers: Signal<In, Bit>,
    /// CRC on.
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted.
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// The stream as words.
    pub s_axis: StreamSink<W, B, RX_WORD_USER>,
    /// FPDU packets.
    pub m_axis: StreamSource<W, B, RX_FPDU_USER>,
    /// A beat taken is still inside (see the module documentation).
    pub busy: Signal<Out, Bit>,
    // The input register slice: the beat and, in copies beside its two entries, each lane's
    // header candidate worked out as the beat came in, so that only registers feed the head
    // stage's decisions (`pm_*` the main entry's, `ps_*` the second entry's).
    pre: StreamSkid<W, B, RX_WORD_USER>,
    pm_n: DFF<Bits<6>>,
    pm_len0: DFF<Bits<16>>,
    pm_p: Vec<DFF<Bits<16>>>,
    pm_q: Vec<DFF<Bits<9>>>,
    pm_ok: Vec<DFF<Bit>>,
    ps_n: DFF<Bits<6>>,
    ps_len0: DFF<Bits<16>>,
    ps_p: Vec<DFF<Bits<16>>>,
    ps_q: Vec<DFF<Bits<9>>>,
    ps_ok: Vec<DFF<Bit>>,
    head: StreamSkid<W, B, RX_WORD_USER>,
    out: StreamOutQ<W, B, RX_FPDU_USER>,
    // Where the stream is: the head beat's next word (lane s), words from it to the next Marker
    // position, its sequence number.
    s: DFF<Bits<6>>,
    to_mk: DFF<Bits<7>>,
    // to_mk + s: words from the head beat's lane 0 to the next Marker position.
    to_mk0: DFF<Bits<7>>,
    // to_mk - avail (words from the head beat's end to the next Marker position), and that
    // less 2: registers, for the Marker test of a header at the next beat's lane 0.
    te: DFF<Bits<7>>,
    te_m2: DFF<Bits<7>>,
    seq: DFF<Bits<32>>,
    // The fragment's word count of the cycle before, and whether it was taken: seq lags by
    // them (its adder is not after the decision; the count loads every cycle, the flag is the
    // decision's only load into this sum).
    wk_r: DFF<Bits<6>>,
    took_r: DFF<Bit>,
    // Words of the head beat not yet taken (h_n - s, kept as a register so no subtraction
    // precedes the decisions), and the word count of the beat in the head slice's second
    // entry (a copy of what the slice holds, loaded whenever that entry is free).
    avail_r: DFF<Bits<6>>,
    // avail as a thermometer (bit j: avail > j), kept beside avail_r, so the decisions compare
    // rem and to_mk with it through equality tests on constants, not carry chains.
    av_gt: Vec<DFF<Bit>>,
    skid_n: DFF<Bits<6>>,
    // Each lane's header candidate (P = (L + 9) / 4 of the lane's first two octets, and
    // whether L is within the limit), worked out from the input beat, carried by the input
    // slice's copies (`pm_*`, `ps_*`) and kept beside the beat in the head slice's entries
    // (copies, loaded as the slice loads its beats): `hd_m*` the main entry's, `hd_s*` the
    // second entry's. (The two slices' copies follow the same load rule, written twice; a
    // shared "copy beside a StreamSkid" block would hold it once.)
    hd_mp: Vec<DFF<Bits<16>>>,
    // P + j of each lane j for the chaining Marker test, as its low 8 bits and (bit 8)
    // whether it is 256 or more, copied like P (`*_q` beside `*_p`).
    hd_mq: Vec<DFF<Bits<9>>>,
    hd_mok: Vec<DFF<Bit>>,
    hd_sp: Vec<DFF<Bits<16>>>,
    hd_sq: Vec<DFF<Bits<9>>>,
    hd_sok: Vec<DFF<Bit>>,
    // Lane 0's ULPDU_Length in the head slice's second entry (for the Marker test of a header
    // read at the next beat's lane 0).
    hd_slen0: DFF<Bits<16>>,
    // FPDU state: in its body (rem known), its leading Marker taken (header next), the header
    // cycle done (rotation set), after the end.
    in_body: DFF<Bit>,
    lead_prep: DFF<Bit>,
    lead_done: DFF<Bit>,
    dead: DFF<Bit>,
    // A header with ULPDU_Length above the limit was read: its error packet (sideband in err2_r)
    // goes out next (from registers, not in the header's cycle).
    bad_len: DFF<Bit>,
    // The sideband of that error packet (set at every header cycle).
    err2_r: DFF<Bits<RX_FPDU_USER>>,
    // The stream ended inside an FPDU (or lost octets of a word): its code-1 error packet goes
    // out next, from registers (sideband in err1_r, loaded every cycle until then), so that
    // the end decision does not select the output queue's payload.
    end_err: DFF<Bit>,
    err1_r: DFF<Bits<RX_FPDU_USER>>,
    rem: DFF<Bits<16>>,
    // rem > to_mk: the Marker at to_mk comes before the FPDU's end (kept beside rem and to_mk,
    // so no comparison precedes the decision).
    mk_before_end: DFF<Bit>,
    // The Markers setting in use: the open FPDU's, else cfg_markers of the cycle before.
    mk_on: DFF<Bit>,
    fuser: DFF<Bits<RX_FPDU_USER>>,
    // The FPDU opened in the cycle before by a header read beside its predecessor's end: its
    // sideband is this cycle's new_user (fuser is loaded with it now).
    ch_q: DFF<Bit>,
    // Gearbox.
    acc_m: DFF<Bits<B>>,
    acc_r: DFF<Bits<B>>,
    acc_use_r: DFF<Bit>,
    c: DFF<Bits<6>>,
    // The FPDU's last beat is left in acc (acc_r), going out now; c is 0 in that cycle (the
    // tail is not held for merging), its keep is tk.
    closing: DFF<Bit>,
    tk: DFF<Bits<W>>,
    // The tail's sideband: the open FPDU's, loaded in every cycle that is not closing (a
    // chained successor loads fuser while the tail waits for the output).
    tu: DFF<Bits<RX_FPDU_USER>>,
    rot_amt: DFF<Bits<6>>,
    // Constants.
    c_ones_w: Constant<Bits<W>>,
    c_words: Constant<Bits<6>>,
    c_wmask: Constant<Bits<6>>,
    /// The ULPDU limit of section 3 ([`golden::mulpdu::ULPDU_MAX`]).
    c_ulpdu_max: Constant<Bits<16>>,
    kw: KeepWords<W>,
    c_lane: Vec<Constant<Bits<6>>>,
    c_lane7: Vec<Constant<Bits<7>>>,
    c_wkeep: Vec<Constant<Bits<W>>>,
    c_words7: Constant<Bits<7>>,
    c_words7m1: Constant<Bits<7>>,
    // words + j for lane j (the tail masks).
    c_tail7: Vec<Constant<Bits<7>>>,
    // Input stage: the input beat's candidates (r_*), and the input slice's main entry's
    // (i_*, the beat offered to the head slice).
    r_n: Signal<Local, Bits<6>>,
    r_hw: Vec<Signal<Local, Bits<16>>>,
    r_len: Vec<Signal<Local, Bits<16>>>,
    r_p: Vec<Signal<Local, Bits<16>>>,
    r_pj: Vec<Signal<Local, Bits<16>>>,
    r_q: Vec<Signal<Local, Bits<9>>>,
    i_q: Vec<Signal<Local, Bits<9>>>,
    c_p_add: Vec<Constant<Bits<16>>>,
    r_ok: Vec<Signal<Local, Bit>>,
    pre_load: Signal<Local, Bit>,
    i_n: Signal<Local, Bits<6>>,
    i_len0: Signal<Local, Bits<16>>,
    i_p: Vec<Signal<Local, Bits<16>>>,
    i_ok: Vec<Signal<Local, Bit>>,
    hd_load: Signal<Local, Bit>,
    // Core.
    n_next: Signal<Local, Bits<6>>,
    h_fin: Signal<Local, Bit>,
    h_lost: Signal<Local, Bit>,
    h_v: Signal<Local, Bit>,
    avail: Signal<Local, Bits<6>>,
    // avail == j for j = 0..=words (from av_gt), rem6 == j, and avail > 1.
    av_eq: Vec<Signal<Local, Bit>>,
    rem_is: Vec<Signal<Local, Bit>>,
    av_gt1: Signal<Local, Bit>,
    av_full: Signal<Local, Bit>,
    markers: Signal<Local, Bit>,
    lead: Signal<Local, Bit>,
    p_s: Signal<Local, Bits<16>>,
    ok_s: Signal<Local, Bit>,
    p_s1: Signal<Local, Bits<16>>,
    ok_s1: Signal<Local, Bit>,
    hdr_in: Signal<Local, Bit>,
    hdr_p: Signal<Local, Bits<16>>,
    go: Signal<Local, Bit>,
    t_end: Signal<Local, Bit>,
    t_hdr: Signal<Local, Bit>,
    t_lprep: Signal<Local, Bit>,
    t_lfrag: Signal<Local, Bit>,
    t_frag: Signal<Local, Bit>,
    hdr_ok: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    open_fpdu: Signal<Local, Bit>,
    open_next: Signal<Local, Bit>,
    mk_in: Signal<Local, Bit>,
    inc: Signal<Local, Bit>,
    rem_lt: Signal<Local, Bit>,
    hdr_mbe: Signal<Local, Bit>,
    hd_gt_tm: Vec<Signal<Local, Bit>>,
    gt_s: Signal<Local, Bit>,
    gt_s1: Signal<Local, Bit>,
    mbe_after_mk: Signal<Local, Bit>,
    rem_small: Signal<Local, Bit>,
    rem_p1_eq: Signal<Local, Bit>,
    k_all: Signal<Local, Bit>,
    rem_eq: Signal<Local, Bit>,
    rem6: Signal<Local, Bits<6>>,
    t_avail: Signal<Local, Bits<7>>,
    t_end0: Signal<Local, Bits<7>>,
    t_one: Signal<Local, Bits<7>>,
    ends: Signal<Local, Bit>,
    k: Signal<Local, Bits<6>>,
    f_last: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    gt: Signal<Local, Bit>,
    eq: Signal<Local, Bit>,
    gt_avail: Signal<Local, Bit>,
    gt_end0: Signal<Local, Bit>,
    gt_end1: Signal<Local, Bit>,
    gt_one: Signal<Local, Bit>,
    eq_avail: Signal<Local, Bit>,
    eq_end0: Signal<Local, Bit>,
    eq_end1: Signal<Local, Bit>,
    eq_one: Signal<Local, Bit>,
    m_avail: Signal<Local, Bits<W>>,
    m_end0: Signal<Local, Bits<W>>,
    m_end1: Signal<Local, Bits<W>>,
    m_one: Signal<Local, Bits<W>>,
    mt_end0: Signal<Local, Bits<W>>,
    mt_end1: Signal<Local, Bits<W>>,
    m_c: Signal<Local, Bits<W>>,
    m_total: Signal<Local, Bits<W>>,
    o_keep: Signal<Local, Bits<W>>,
    a_emit: Signal<Local, Bit>,
    b_emit: Signal<Local, Bit>,
    b_last: Signal<Local, Bit>,
    acc: Signal<Local, Bits<B>>,
    gb: Gearbox<B>,
    c_next: Signal<Local, Bits<6>>,
    c_take: Signal<Local, Bits<6>>,
    c_lo: Signal<Local, Bits<6>>,
    c_av_m: Signal<Local, Bits<6>>,
    c_one_m: Signal<Local, Bits<6>>,
    new_user: Signal<Local, Bits<RX_FPDU_USER>>,
    err2_user: Signal<Local, Bits<RX_FPDU_USER>>,
    err1_user: Signal<Local, Bits<RX_FPDU_USER>>,
    wu_now: Signal<Local, Bits<32>>,
    // The state after each choice of fragment length (see the state update).
    u_avail: Signal<Local, Bit>,
    u_e0: Signal<Local, Bit>,
    u_e1: Signal<Local, Bit>,
    u_one: Signal<Local, Bit>,
    s_avail: Signal<Local, Bits<6>>,
    s_one: Signal<Local, Bits<6>>,
    tm_avail: Signal<Local, Bits<7>>,
    tm_e0: Signal<Local, Bits<7>>,
    tm_e1: Signal<Local, Bits<7>>,
    tm_one: Signal<Local, Bits<7>>,
    av_e0: Signal<Local, Bits<6>>,
    av_e1: Signal<Local, Bits<6>>,
    av_one: Signal<Local, Bits<6>>,
    av_step: Signal<Local, Bits<6>>,
    seq_now: Signal<Local, Bits<32>>,
    pos: Signal<Local, Bits<32>>,
    // The next FPDU's header read in the cycle its predecessor's last fragment is taken.
    ch_e0: Signal<Local, Bits<6>>,
    ch_e1: Signal<Local, Bits<6>>,
    ch_hit: Vec<Signal<Local, Bit>>,
    ch_e0n: Signal<Local, Bits<6>>,
    ch_e1n: Signal<Local, Bits<6>>,
    c_emask: Constant<Bits<6>>,
    ch_good: Signal<Local, Bit>,
    ch_good_nb: Signal<Local, Bit>,
    ch_at_end: Signal<Local, Bit>,
    ch_okj: Vec<Signal<Local, Bit>>,
    ch_tgt: Vec<Signal<Local, Bits<8>>>,
    c_wraps: Vec<Constant<Bit>>,
    c_lane7w: Vec<Constant<Bits<7>>>,
    ch_mbej: Vec<Signal<Local, Bit>>,
    ch_p_nb: Signal<Local, Bits<16>>,
    ch_ok_nb: Signal<Local, Bit>,
    ch_mbe_nb: Signal<Local, Bit>,
    ch_q2_nb: Signal<Local, Bits<16>>,
    ch_len_nb: Signal<Local, Bits<16>>,
    ch_p: Signal<Local, Bits<16>>,
    ch_mbe: Signal<Local, Bit>,
    fuser_now: Signal<Local, Bits<RX_FPDU_USER>>,
    chain: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> RxDelineator<W, B> {
    /// Builds the delineator; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxDelineator", W, B, RX_WORD_USER);
        crate::tx::check_tx_width("RxDelineator", W);
        let words = W / 4;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_max_ulpdu: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            busy: Default::default(),
            pre: StreamSkid::loading_while_empty(),
            pm_n: Default::default(),
            pm_len0: Default::default(),
            pm_p: (0..words).map(|_| Default::default()).collect(),
            pm_q: (0..words).map(|_| Default::default()).collect(),
            pm_ok: (0..words).map(|_| Default::default()).collect(),
            ps_n: Default::default(),
            ps_len0: Default::default(),
            ps_p: (0..words).map(|_| Default::default()).collect(),
            ps_q: (0..words).map(|_| Default::default()).collect(),
            ps_ok: (0..words).map(|_| Default::default()).collect(),
            head: StreamSkid::new(),
            out: StreamOutQ::new(),
            s: Default::default(),
            to_mk: Default::default(),
            to_mk0: Default::default(),
            te: Default::default(),
            te_m2: Default::default(),
            seq: Default::default(),
            wk_r: Default::default(),
            took_r: Default::default(),
            avail_r: Default::default(),
            av_gt: (0..words).map(|_| Default::default()).collect(),
            skid_n: Default::default(),
            hd_mp: (0..words).map(|_| Default::default()).collect(),
            hd_mq: (0..words).map(|_| Default::default()).collect(),
            hd_mok: (0..words).map(|_| Default::default()).collect(),
            hd_sp: (0..words).map(|_| Default::default()).collect(),
            hd_sq: (0..words).map(|_| Default::default()).collect(),
            hd_sok: (0..words).map(|_| Default::default()).collect(),
            hd_slen0: Default::default(),
            in_body: Default::default(),
            lead_prep: Default::default(),
            lead_done: Default::default(),
            dead: Default::default(),
            bad_len: Default::default(),
            err2_r: Default::default(),
            end_err: Default::default(),
            err1_r: Default::default(),
            rem: Default::default(),
            mk_before_end: Default::default(),
            hdr_mbe: Default::default(),
            hd_gt_tm: (0..words).map(|_| Default::default()).collect(),
            gt_s: Default::default(),
            gt_s1: Default::default(),
            mbe_after_mk: Default::default(),
            mk_on: Default::default(),
            fuser: Default::default(),
            acc_m: Default::default(),
            acc_r: Default::default(),
            acc_use_r: Default::default(),
            c: Default::default(),
            closing: Default::default(),
            tk: Default::default(),
            tu: Default::default(),
            rot_amt: Default::default(),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_words: Constant::new((words as u64).into()),
            c_wmask: Constant::new(((words - 1) as u64).into()),
            c_ulpdu_max: Constant::new((golden::mulpdu::ULPDU_MAX as u64).into()),
            kw: KeepWords::new(),
            c_lane: (0..words).map(|k| Constant::new((k as u64).into())).collect(),
            c_lane7: (0..words).map(|k| Constant::new((k as u64).into())).collect(),
            c_wkeep: (0..words)
                .map(|k| Constant::new(Bits::<W>::from(0xFu64 << (4 * k))))
                .collect(),
            c_words7: Constant::new((words as u64).into()),
            c_words7m1: Constant::new(((words - 1) as u64).into()),
            c_tail7: (0..words).map(|k| Constant::new(((words + k) as u64).into())).collect(),
            r_n: Default::default(),
            r_hw: (0..words).map(|_| Default::default()).collect(),
            r_len: (0..words).map(|_| Default::default()).collect(),
            r_p: (0..words).map(|_| Default::default()).collect(),
            r_pj: (0..words).map(|_| Default::default()).collect(),
            r_q: (0..words).map(|_| Default::default()).collect(),
            i_q: (0..words).map(|_| Default::default()).collect(),
            c_p_add: (0..words).map(|j| Constant::new(((9 + 4 * j) as u64).into())).collect(),
            r_ok: (0..words).map(|_| Default::default()).collect(),
            pre_load: Default::default(),
            i_n: Default::default(),
            i_len0: Default::default(),
            i_p: (0..words).map(|_| Default::default()).collect(),
            i_ok: (0..words).map(|_| Default::default()).collect(),
            hd_load: Default::default(),
            n_next: Default::default(),
            h_fin: Default::default(),
            h_lost: Default::default(),
            h_v: Default::default(),
            avail: Default::default(),
            av_eq: (0..=words).map(|_| Default::default()).collect(),
            rem_is: (0..=words).map(|_| Default::default()).collect(),
            av_gt1: Default::default(),
            av_full: Default::default(),
            markers: Default::default(),
            lead: Default::default(),
            p_s: Default::default(),
            ok_s: Default::default(),
            p_s1: Default::default(),
            ok_s1: Default::default(),
            hdr_in: Default::default(),
            hdr_p: Default::default(),
            go: Default::default(),
            t_end: Default::default(),
            t_hdr: Default::default(),
            t_lprep: Default::default(),
            t_lfrag: Default::default(),
            t_frag: Default::default(),
            hdr_ok: Default::default(),
            take: Default::default(),
            open_fpdu: Default::default(),
            open_next: Default::default(),
            mk_in: Default::default(),
            inc: Default::default(),
            rem_lt: Default::default(),
            rem_small: Default::default(),
            rem_p1_eq: Default::default(),
            k_all: Default::default(),
            rem_eq: Default::default(),
            rem6: Default::default(),
            t_avail: Default::default(),
            t_end0: Default::default(),
            t_one: Default::default(),
            ends: Default::default(),
            k: Default::default(),
            f_last: Default::default(),
            pop: Default::default(),
            gt: Default::default(),
            eq: Default::default(),
            gt_avail: Default::default(),
            gt_end0: Default::default(),
            gt_end1: Default::default(),
            gt_one: Default::default(),
            eq_avail: Default::default(),
            eq_end0: Default::default(),
            eq_end1: Default::default(),
            eq_one: Default::default(),
            m_avail: Default::default(),
            m_end0: Default::default(),
            m_end1: Default::default(),
            m_one: Default::default(),
            mt_end0: Default::default(),
            mt_end1: Default::default(),
            m_c: Default::default(),
            m_total: Default::default(),
            o_keep: Default::default(),
            a_emit: Default::default(),
            b_emit: Default::default(),
            b_last: Default::default(),
            acc: Default::default(),
            gb: Gearbox::new("RxDelineator", 32),
            c_next: Default::default(),
            c_take: Default::default(),
            c_lo: Default::default(),
            c_av_m: Default::default(),
            c_one_m: Default::default(),
            new_user: Default::default(),
            err2_user: Default::default(),
            err1_user: Default::default(),
            wu_now: Default::default(),
            u_avail: Default::default(),
            u_e0: Default::default(),
            u_e1: Default::default(),
            u_one: Default::default(),
            s_avail: Default::default(),
            s_one: Default::default(),
            tm_avail: Default::default(),
            tm_e0: Default::default(),
            tm_e1: Default::default(),
            tm_one: Default::default(),
            av_e0: Default::default(),
            av_e1: Default::default(),
            av_one: Default::default(),
            av_step: Default::default(),
            seq_now: Default::default(),
            pos: Default::default(),
            ch_e0: Default::default(),
            ch_e1: Default::default(),
            ch_hit: (0..words).map(|_| Default::default()).collect(),
            ch_e0n: Default::default(),
            ch_e1n: Default::default(),
            c_emask: Constant::new(((2 * words - 1) as u64).into()),
            ch_good: Default::default(),
            ch_good_nb: Default::default(),
            ch_at_end: Default::default(),
            ch_okj: (0..words).map(|_| Default::default()).collect(),
            ch_tgt: (0..words).map(|_| Default::default()).collect(),
            c_wraps: (0..words).map(|j| Constant::new(j > 0)).collect(),
            c_lane7w: (0..words).map(|j| Constant::new((j.max(1) as u64).into())).collect(),
            ch_mbej: (0..words).map(|_| Default::default()).collect(),
            ch_p_nb: Default::default(),
            ch_ok_nb: Default::default(),
            ch_mbe_nb: Default::default(),
            ch_q2_nb: Default::default(),
            ch_len_nb: Default::default(),
            ch_p: Default::default(),
            ch_mbe: Default::default(),
            fuser_now: Default::default(),
            ch_q: Default::default(),
            chain: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for RxDelineator<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxDelineator<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s,
            to_mk,
            to_mk0,
            te,
            te_m2,
            seq,
            wk_r,
            took_r,
            avail_r,
            skid_n,
            in_body,
            lead_prep,
            lead_done,
            dead,
            bad_len,
            err2_r,
            end_err,
            err1_r,
            rem,
            mk_before_end,
            mk_on,
            fuser,
            ch_q,
            acc_m,
            acc_r,
            acc_use_r,
            c,
            closing,
            tk,
            tu,
            rot_amt
        );
        self.head.clock.next = self.clock.val();
        self.head.rst.next = self.rst.val();
        self.busy.next = self.pre.m_axis.valid.val()
            | self.head.m_axis.valid.val()
            | self.out.m_axis.valid.val()
            | self.closing.q.val()
            | self.bad_len.q.val()
            | self.end_err.q.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();

        // ---- Input stage: the beat, its word count, each lane's header candidate. ----
        self.kw.keep.next = self.s_axis.keep.val();
        self.r_n.next = self.kw.words.val();
        for j in 0..(W / 4) {
            // ULPDU_Length if an FPDU starts at lane j: big-endian, octet 4j the high octet.
            self.r_hw[j].next = self.s_axis.data.val().get_bits::<16>(j * 32);
            self.r_len[j].next =
                ((self.r_hw[j].val() & 0xFF) << 8) | ((self.r_hw[j].val() >> 8) & 0xFF);
            self.r_p[j].next = (self.r_len[j].val() + 9) >> 2;
            // P + j = (L + 9 + 4j) / 4: one adder beside P's.
            self.r_pj[j].next = (self.r_len[j].val() + self.c_p_add[j].val()) >> 2;
            self.r_q[j].next = self.r_pj[j].val().get_bits::<9>(0) & 0xFF;
            if (self.r_pj[j].val() >> 8) != 0 {
                self.r_q[j].next = self.r_q[j].val() | 0x100;
            }
            self.r_ok[j].next = (self.r_len[j].val() <= self.cfg_max_ulpdu.val())
                & (self.r_len[j].val() <= self.c_ulpdu_max.val());
        }
        // The input slice, and its entries' copies of the candidates (loaded as the slice
        // loads: the second entry whenever it is empty, the main entry when it is free or
        // taken, from the second entry if that is full, else from the input).
        self.pre.clock.next = self.clock.val();
        self.pre.rst.next = self.rst.val();
        self.pre.s_axis.data.next = self.s_axis.data.val();
        self.pre.s_axis.keep.next = self.s_axis.keep.val();
        self.pre.s_axis.user.next = self.s_axis.user.val();
        self.pre.s_axis.last.next = self.s_axis.last.val();
        self.pre.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.pre.s_axis.ready.val();
        self.pm_n.clock.next = self.clock.val();
        self.pm_len0.clock.next = self.clock.val();
        self.ps_n.clock.next = self.clock.val();
        self.ps_len0.clock.next = self.clock.val();
        self.ps_n.d.next = self.ps_n.q.val();
        self.ps_len0.d.next = self.ps_len0.q.val();
        if self.pre.s_axis.ready.val() {
            self.ps_n.d.next = self.r_n.val();
            self.ps_len0.d.next = self.r_len[0].val();
        }
        self.pre_load.next = self.pre.m_axis.ready.val() | !self.pre.m_axis.valid.val();
        self.pm_n.d.next = self.pm_n.q.val();
        self.pm_len0.d.next = self.pm_len0.q.val();
        if self.pre_load.val() {
            self.pm_n.d.next = self.r_n.val();
            self.pm_len0.d.next = self.r_len[0].val();
            if !self.pre.s_axis.ready.val() {
                self.pm_n.d.next = self.ps_n.q.val();
                self.pm_len0.d.next = self.ps_len0.q.val();
            }
        }
        self.i_n.next = self.pm_n.q.val();
        self.i_len0.next = self.pm_len0.q.val();
        for j in 0..(W / 4) {
            self.pm_p[j].clock.next = self.clock.val();
            self.pm_ok[j].clock.next = self.clock.val();
            self.ps_p[j].clock.next = self.clock.val();
            self.ps_ok[j].clock.next = self.clock.val();
            self.pm_q[j].clock.next = self.clock.val();
            self.ps_q[j].clock.next = self.clock.val();
            self.ps_q[j].d.next = self.ps_q[j].q.val();
            self.pm_q[j].d.next = self.pm_q[j].q.val();
            self.ps_p[j].d.next = self.ps_p[j].q.val();
            self.ps_ok[j].d.next = self.ps_ok[j].q.val();
            if self.pre.s_axis.ready.val() {
                self.ps_p[j].d.next = self.r_p[j].val();
                self.ps_q[j].d.next = self.r_q[j].val();
                self.ps_ok[j].d.next = self.r_ok[j].val();
            }
            self.pm_p[j].d.next = self.pm_p[j].q.val();
            self.pm_ok[j].d.next = self.pm_ok[j].q.val();
            if self.pre_load.val() {
                self.pm_p[j].d.next = self.r_p[j].val();
                self.pm_q[j].d.next = self.r_q[j].val();
                self.pm_ok[j].d.next = self.r_ok[j].val();
                if !self.pre.s_axis.ready.val() {
                    self.pm_p[j].d.next = self.ps_p[j].q.val();
                    self.pm_q[j].d.next = self.ps_q[j].q.val();
                    self.pm_ok[j].d.next = self.ps_ok[j].q.val();
                }
            }
            self.i_p[j].next = self.pm_p[j].q.val();
            self.i_q[j].next = self.pm_q[j].q.val();
            self.i_ok[j].next = self.pm_ok[j].q.val();
        }
        self.head.s_axis.data.next = self.pre.m_axis.data.val();
        self.head.s_axis.keep.next = self.pre.m_axis.keep.val();
        self.head.s_axis.user.next = self.pre.m_axis.user.val();
        self.head.s_axis.last.next = self.pre.m_axis.last.val();
        self.head.s_axis.valid.next = self.pre.m_axis.valid.val();
        self.pre.m_axis.ready.next = self.head.s_axis.ready.val();
        // The candidates follow their beats through the head slice (each entry's copy loads as
        // the entry does: the main entry when it is free or taken, from the second entry if
        // that is full, else from the input; the second entry whenever it is empty).
        self.hd_slen0.clock.next = self.clock.val();
        self.hd_slen0.d.next = self.hd_slen0.q.val();
        if self.head.s_axis.ready.val() {
            self.hd_slen0.d.next = self.i_len0.val();
        }
        for j in 0..(W / 4) {
            self.hd_mp[j].clock.next = self.clock.val();
            self.hd_mok[j].clock.next = self.clock.val();
            self.hd_sp[j].clock.next = self.clock.val();
            self.hd_sok[j].clock.next = self.clock.val();
            self.hd_mq[j].clock.next = self.clock.val();
            self.hd_sq[j].clock.next = self.clock.val();
            self.hd_sq[j].d.next = self.hd_sq[j].q.val();
            self.hd_sp[j].d.next = self.hd_sp[j].q.val();
            self.hd_sok[j].d.next = self.hd_sok[j].q.val();
            if self.head.s_axis.ready.val() {
                self.hd_sp[j].d.next = self.i_p[j].val();
                self.hd_sq[j].d.next = self.i_q[j].val();
                self.hd_sok[j].d.next = self.i_ok[j].val();
            }
        }

        // ---- The head beat. ----
        self.h_v.next = self.head.m_axis.valid.val();
        self.h_fin.next = self.head.m_axis.user.val().get_value_rx_word_fin();
        self.h_lost.next = self.head.m_axis.user.val().get_value_rx_word_lost();
        // Words of the head beat not yet taken.
        self.avail.next = self.avail_r.q.val();
        // avail == j from the thermometer: bit j - 1 set, bit j clear.
        self.av_eq[0].next = true;
        for j in 0..(W / 4) {
            self.av_gt[j].clock.next = self.clock.val();
            self.av_eq[j].next = self.av_eq[j].val() & !self.av_gt[j].q.val();
            self.av_eq[j + 1].next = self.av_gt[j].q.val();
        }
        self.av_gt1.next = !self.av_eq[0].val() & !self.av_eq[1].val();
        self.av_full.next = false;
        for j in (W / 4 - 1)..(W / 4) {
            self.av_full.next = self.av_gt[j].q.val();
        }
        // A register: the open FPDU's setting, or cfg_markers one cycle late (the setting is
        // sampled when an FPDU opens).
        self.markers.next = self.mk_on.q.val();
        // The FPDU's header: lane s, or s + 1 after a leading Marker (not yet taken). Both
        // lanes' candidates (P and the limit check, worked out as the beat came in) are
        // selected beside the Marker decision, and the header is in the beat when avail > lead
        // (no adder after the decision).
        self.lead.next = self.markers.val() & (self.to_mk.q.val() == 0) & !self.lead_done.q.val();
        self.p_s.next = 0.into();
        self.ok_s.next = false;
        for j in 0..(W / 4) {
            if self.s.q.val() == self.c_lane[j].val() {
                self.p_s.next = self.hd_mp[j].q.val();
                self.ok_s.next = self.hd_mok[j].q.val();
            }
        }
        self.p_s1.next = 0.into();
        self.ok_s1.next = false;
        for j in 0..(W / 4 - 1) {
            if self.s.q.val() == self.c_lane[j].val() {
                self.p_s1.next = self.hd_mp[j + 1].q.val();
                self.ok_s1.next = self.hd_mok[j + 1].q.val();
            }
        }
        self.hdr_p.next = self.p_s.val();
        if self.lead.val() {
            self.hdr_p.next = self.p_s1.val();
        }
        self.hdr_in.next = !self.av_eq[0].val();
        if self.lead.val() {
            self.hdr_in.next = self.av_gt1.val();
        }
        // What this cycle does with the head beat (at most one thing; nothing unless the output
        // can take a beat, so the gearbox's rotation and emissions stay in step):
        // - t_end: the beat is exhausted (or a null beat): FIN decides the stream's end;
        // - t_hdr: the FPDU's header is in the beat: read ULPDU_Length, set the rotation;
        // - t_lprep / t_lfrag: the FPDU starts with a Marker in the beat's last word and its
        //   header is in the next beat: set the rotation, then take the Marker alone;
        // - t_frag: in the FPDU's body: take words up to the FPDU's end or the beat's end.
        self.go.next = self.h_v.val() & !self.dead.q.val() & self.out.s_axis.ready.val();
        self.open_fpdu.next = self.in_body.q.val() | self.lead_done.q.val();
        self.t_end.next = self.go.val() & self.av_eq[0].val() & !self.closing.q.val();
        self.t_hdr.next =
            self.go.val() & !self.in_body.q.val() & !self.av_eq[0].val() & self.hdr_in.val();
        self.t_lprep.next = self.go.val()
            & !self.in_body.q.val()
            & !self.lead_done.q.val()
            & self.lead.val()
            & !self.av_eq[0].val()
            & !self.hdr_in.val()
            & !self.lead_prep.q.val();
        self.t_lfrag.next = self.go.val()
            & !self.in_body.q.val()
            & !self.lead_done.q.val()
            & self.lead.val()
            & !self.av_eq[0].val()
            & !self.hdr_in.val()
            & self.lead_prep.q.val()
            & !self.closing.q.val();
        // ULPDU_Length within the limit, for both header positions (lane s, s + 1); the
        // leading-Marker choice comes after them.
        self.hdr_ok.next = self.ok_s.val();
        if self.lead.val() {
            self.hdr_ok.next = self.ok_s1.val();
        }
        // In the body: the FPDU ends rem + inc words after lane s; a Marker at to_mk is inside
        // the FPDU when it comes before the last body word.
        self.mk_in.next = false;
        for j in 0..(W / 4) {
            if self.to_mk.q.val() == self.c_lane7[j].val() {
                self.mk_in.next = self.markers.val() & self.av_gt[j].q.val();
            }
        }
        // inc: the Marker at to_mk (< 128) comes before the FPDU's end, rem words away.
        self.inc.next = self.markers.val() & self.mk_before_end.q.val();
        // The FPDU ends in this beat when rem + inc <= avail: rem < avail with a Marker inside,
        // rem <= avail without (both compared beside inc, no adder in the decision).
        // avail <= 16, so only a rem below 32 can compare: 6-bit comparisons.
        self.rem6.next = bit_cast::<6, 16>(self.rem.q.val() & 0x3F);
        self.rem_small.next = (self.rem.q.val() >> 5) == 0;
        // rem6 == j for j = 0..=words, tested against constants; then rem < avail, rem ==
        // avail and rem + 1 == avail read off the thermometer.
        for j in 0..(W / 4) {
            self.rem_is[j].next = self.rem6.val() == self.c_lane[j].val();
            self.rem_is[j + 1].next = self.rem6.val() == self.c_words.val();
        }
        self.rem_lt.next = false;
        self.rem_eq.next = self.rem_small.val() & self.rem_is[0].val() & self.av_eq[0].val();
        self.rem_p1_eq.next = false;
        for j in 0..(W / 4) {
            if self.rem_is[j].val() {
                self.rem_lt.next = self.rem_small.val() & self.av_gt[j].q.val();
                self.rem_p1_eq.next = self.rem_small.val() & self.av_eq[j + 1].val();
            }
            if self.rem_is[j + 1].val() {
                self.rem_eq.next = self.rem_small.val() & self.av_eq[j + 1].val();
            }
        }
        self.ends.next = self.rem_lt.val() | (!self.inc.val() & self.rem_eq.val());
        // The fragment's words k: to the FPDU's end (rem + inc, at most avail), to the beat's
        // end, or the leading Marker alone; c + k for each choice is summed beside the choice
        // (carry select), so the choice is the last step before the output decision.
        // c is below a beat's words (an invariant): masking its high bits tells synthesis.
        self.c_lo.next = self.c.q.val() & self.c_wmask.val();
        self.c_av_m.next = (self.c_lo.val() + self.avail.val()) & self.c_wmask.val();
        self.c_one_m.next = (self.c_lo.val() + 1) & self.c_wmask.val();
        self.t_avail.next = bit_cast::<7, 6>(self.c_lo.val()) + bit_cast::<7, 6>(self.avail.val());
        self.t_end0.next = bit_cast::<7, 6>(self.c_lo.val()) + bit_cast::<7, 6>(self.rem6.val());
        self.t_one.next = bit_cast::<7, 6>(self.c_lo.val()) + 1;
        // Each choice's "more than a beat", "exactly a beat" and octet mask (bit j: more than
        // j / 4 words) are worked out beside the choice too, so no comparison or decoder
        // follows it.
        self.gt_avail.next = self.t_avail.val() > self.c_words7.val();
        self.gt_end0.next = self.t_end0.val() > self.c_words7.val();
        // c + rem + 1 against a constant is c + rem against that constant less one: the "+ 1"
        // choice compares t_end0 too (no second adder before the comparisons).
        self.gt_end1.next = self.t_end0.val() >= self.c_words7.val();
        // c + 1 never exceeds a beat (c < words).
        self.gt_one.next = false;
        self.eq_avail.next = self.t_avail.val() == self.c_words7.val();
        self.eq_end0.next = self.t_end0.val() == self.c_words7.val();
        self.eq_end1.next = self.t_end0.val() == self.c_words7m1.val();
        self.eq_one.next = self.t_one.val() == self.c_words7.val();
        // While an FPDU's tail leaves (closing: the next FPDU was chained, c is 0), that FPDU's
        // first fragment is taken when it puts out nothing (it neither ends the FPDU nor fills
        // the beat; with c = 0 the beat is filled exactly when avail is a whole beat, a test of
        // the register alone, not of c + avail); else it waits a cycle.
        self.t_frag.next = self.go.val()
            & self.in_body.q.val()
            & !self.av_eq[0].val()
            & (!self.closing.q.val() | (!self.ends.val() & !self.av_full.val()));
        self.m_avail.next = 0.into();
        self.m_end0.next = 0.into();
        self.m_one.next = 0.into();
        self.m_c.next = 0.into();
        for j in 0..(W / 4) {
            if self.t_avail.val() > self.c_lane7[j].val() {
                self.m_avail.next = self.m_avail.val() | self.c_wkeep[j].val();
            }
            if self.t_end0.val() > self.c_lane7[j].val() {
                self.m_end0.next = self.m_end0.val() | self.c_wkeep[j].val();
            }
            if self.t_one.val() > self.c_lane7[j].val() {
                self.m_one.next = self.m_one.val() | self.c_wkeep[j].val();
            }
            if self.c_lo.val() > self.c_lane[j].val() {
                self.m_c.next = self.m_c.val() | self.c_wkeep[j].val();
            }
        }
        // m_end1's bit j: c + rem + 1 > j, i.e. c + rem > j - 1 (lane 0 always).
        self.m_end1.next = self.c_wkeep[0].val();
        for j in 1..(W / 4) {
            if self.t_end0.val() > self.c_lane7[j - 1].val() {
                self.m_end1.next = self.m_end1.val() | self.c_wkeep[j].val();
            }
        }
        // The tail's keep when the FPDU's last fragment overfills the beat (bit j of its word j:
        // total - words > j), for both end choices, beside them as well.
        self.mt_end0.next = 0.into();
        self.mt_end1.next = 0.into();
        for j in 0..(W / 4) {
            if self.t_end0.val() > self.c_tail7[j].val() {
                self.mt_end0.next = self.mt_end0.val() | self.c_wkeep[j].val();
            }
            if self.t_end0.val() >= self.c_tail7[j].val() {
                self.mt_end1.next = self.mt_end1.val() | self.c_wkeep[j].val();
            }
        }
        self.k.next = self.avail.val();
        self.gt.next = self.gt_avail.val();
        self.eq.next = self.eq_avail.val();
        self.m_total.next = self.m_avail.val();
        if self.ends.val() {
            self.k.next = self.rem6.val() + bit_cast::<6, 1>(self.inc.val().into());
            self.gt.next = self.gt_end0.val();
            self.eq.next = self.eq_end0.val();
            self.m_total.next = self.m_end0.val();
            if self.inc.val() {
                self.gt.next = self.gt_end1.val();
                self.eq.next = self.eq_end1.val();
                self.m_total.next = self.m_end1.val();
            }
        }
        if self.t_lfrag.val() {
            self.k.next = 1.into();
            self.gt.next = self.gt_one.val();
            self.eq.next = self.eq_one.val();
            self.m_total.next = self.m_one.val();
        }
        // k == avail (the fragment runs to the beat's end), decided without k: always when the
        // FPDU does not end here, else when rem + inc == avail.
        self.k_all.next = !self.ends.val() | self.rem_eq.val();
        if self.ends.val() & self.inc.val() {
            self.k_all.next = self.rem_p1_eq.val();
        }
        if self.t_lfrag.val() {
            self.k_all.next = self.av_eq[1].val();
        }
        self.take.next = self.t_frag.val() | self.t_lfrag.val();
        self.f_last.next = self.t_frag.val() & self.ends.val();

        // ---- Gearbox: acc[0..c) ++ the fragment; full beats out, the FPDU's last beat. ----
        self.acc.next = self.acc_m.q.val();
        if self.acc_use_r.q.val() {
            self.acc.next = self.acc_r.q.val();
        }
        // The shared gearbox: the beat rotated up by the lanes held, after acc's held lanes.
        self.gb.data.next = self.head.m_axis.data.val();
        self.gb.amt.next = bit_cast::<8, 6>(self.rot_amt.q.val());
        self.gb.acc.next = self.acc.val();
        self.gb.hold.next = bit_cast::<8, 6>(self.c_lo.val());
        // Step A: a packet's last beat left over in acc goes out.
        self.a_emit.next = self.out.s_axis.ready.val() & self.closing.q.val();
        // Step B: a full beat, or the FPDU's last beat.
        self.b_emit.next = self.take.val() & (self.gt.val() | self.f_last.val() | self.eq.val());
        self.b_last.next = self.f_last.val() & !self.gt.val();
        // Sidebands: the FPDU's (set at its header cycle, or at its leading Marker); the error
        // packets' (code 2: ULPDU_Length above the limit; code 1: the stream ended inside an
        // FPDU).
        self.new_user.next = 0.into();
        // The sequence number of lane s: seq plus the words taken in the cycle before (from
        // registers only).
        self.wu_now.next = 0.into();
        if self.took_r.q.val() {
            self.wu_now.next = bit_cast::<32, 6>(self.wk_r.q.val());
        }
        self.seq_now.next = self.seq.q.val() + (self.wu_now.val() << 2);
        self.new_user.next.set_value_rx_fpdu_seq(self.seq_now.val());
        self.new_user.next.set_value_rx_fpdu_to_marker(self.to_mk.q.val());
        self.new_user.next.set_value_rx_fpdu_markers(self.markers.val());
        self.new_user.next.set_value_rx_fpdu_crc(self.cfg_crc.val());
        // The open FPDU's sideband: fuser, or in the cycle after its header was read beside
        // its predecessor's end (ch_q), this cycle's, which is the FPDU's first word's.
        self.fuser_now.next = self.fuser.q.val();
        if self.ch_q.q.val() {
            self.fuser_now.next = self.new_user.val();
            self.fuser.d.next = self.new_user.val();
        }
        // The tail's sideband, held while it waits.
        if !self.closing.q.val() {
            self.tu.d.next = self.fuser_now.val();
        }
        // After a leading Marker taken alone, the FPDU's own sideband (its first word is the
        // Marker's).
        self.err2_user.next = self.new_user.val();
        if self.lead_done.q.val() {
            self.err2_user.next = self.fuser.q.val();
        }
        self.err2_user.next.set_value_rx_fpdu_err(true);
        self.err2_user.next.set_value_rx_fpdu_code(2.into());
        self.err1_user.next = self.fuser_now.val();
        if !self.open_fpdu.val() {
            self.err1_user.next = self.new_user.val();
        }
        self.err1_user.next.set_value_rx_fpdu_err(true);
        self.err1_user.next.set_value_rx_fpdu_code(1.into());
        self.o_keep.next = self.c_ones_w.val();
        if !self.gt.val() {
            self.o_keep.next = self.m_total.val();
        }
        self.out.s_axis.valid.next = self.a_emit.val() | self.b_emit.val();
        self.out.s_axis.data.next = self.gb.merged.val();
        self.out.s_axis.user.next = self.fuser_now.val();
        self.out.s_axis.last.next = self.b_last.val();
        if self.a_emit.val() {
            // The tail, with its FPDU's sideband.
            self.out.s_axis.data.next = self.acc.val();
            self.out.s_axis.user.next = self.tu.q.val();
            self.out.s_axis.last.next = true;
            self.o_keep.next = self.tk.q.val();
        }
        // The error packet of a header with ULPDU_Length above the limit (nothing else is
        // emitted once `dead` is set).
        self.bad_len.d.next = self.bad_len.q.val();
        if self.bad_len.q.val() {
            // The FPDU's words taken so far (none, or its leading Marker), then the error.
            self.out.s_axis.valid.next = self.out.s_axis.ready.val();
            self.out.s_axis.data.next = self.acc.val();
            self.out.s_axis.user.next = self.err2_r.q.val();
            self.out.s_axis.last.next = true;
            self.o_keep.next = self.m_c.val();
            if self.out.s_axis.ready.val() {
                self.bad_len.d.next = false;
            }
        }
        // The stream ended: inside an FPDU (its words so far, held in acc with c kept, then
        // the error), or with octets of an incomplete word lost (a null error packet). The
        // packet leaves in the cycle after the end was seen (end_err), from registers.
        self.err1_r.d.next = self.err1_user.val();
        self.end_err.d.next = self.end_err.q.val();
        if self.end_err.q.val() {
            self.err1_r.d.next = self.err1_r.q.val();
            self.out.s_axis.valid.next = self.out.s_axis.ready.val();
            self.out.s_axis.data.next = self.acc.val();
            self.out.s_axis.user.next = self.err1_r.q.val();
            self.out.s_axis.last.next = true;
            self.o_keep.next = self.m_c.val();
            if self.out.s_axis.ready.val() {
                self.end_err.d.next = false;
            }
        }
        if self.t_end.val() & self.h_fin.val() & (self.open_fpdu.val() | self.h_lost.val()) {
            self.end_err.d.next = true;
        }
        self.out.s_axis.keep.next = self.o_keep.val();

        // ---- State. ----
        // rem > to_mk for the next cycle (mk_before_end, set below), worked out from registers
        // beside the decision. For the header: each lane's P against to_mk, then the header's
        // lane selected (lane s, or s + 1 after a leading Marker), so the comparisons run
        // beside the selection.
        for j in 0..(W / 4) {
            self.hd_gt_tm[j].next = self.hd_mp[j].q.val() > bit_cast::<16, 7>(self.to_mk.q.val());
        }
        self.gt_s.next = false;
        self.gt_s1.next = false;
        for j in 0..(W / 4) {
            if self.s.q.val() == self.c_lane[j].val() {
                self.gt_s.next = self.hd_gt_tm[j].val();
            }
        }
        for j in 0..(W / 4 - 1) {
            if self.s.q.val() == self.c_lane[j].val() {
                self.gt_s1.next = self.hd_gt_tm[j + 1].val();
            }
        }
        self.hdr_mbe.next = self.gt_s.val();
        if self.lead.val() {
            self.hdr_mbe.next = self.gt_s1.val();
        }
        self.mbe_after_mk.next = self.rem.q.val() > (bit_cast::<16, 7>(self.to_mk.q.val()) + 127);
        self.mk_before_end.d.next = self.mk_before_end.q.val();
        self.pop.next = false;
        self.acc_m.d.next = self.gb.merged.val();
        self.acc_r.d.next = self.gb.rot.val();
        self.acc_use_r.d.next = false;
        if self.closing.q.val() & !self.a_emit.val() {
            // The tail waits for the output: it stays in acc_r (c is 0, so merging would not
            // keep it).
            self.acc_r.d.next = self.acc_r.q.val();
            self.acc_use_r.d.next = true;
        }
        self.c_next.next = self.c.q.val();
        self.rot_amt.d.next = self.rot_amt.q.val();
        // (While closing, c is 0 already: nothing to clear when the tail goes.)
        if self.a_emit.val() {
            self.closing.d.next = false;
        }
        if self.t_end.val() {
            self.pop.next = true;
            if self.h_fin.val() {
                // c stays: a code-1 packet's words are acc[0..c) (end_err, next cycle).
                self.dead.d.next = true;
            }
        }
        if self.t_hdr.val() {
            // rem = P = (L + 5) / 4 + 1 body words; the first fragment starts at lane s. (With
            // ULPDU_Length above the limit this state is never used: `dead` stops the block.)
            self.rem.d.next = self.hdr_p.val();
            self.in_body.d.next = true;
            if !self.lead_done.q.val() {
                self.fuser.d.next = self.new_user.val();
            }
            self.rot_amt.d.next = (self.c_lo.val() - self.s.q.val()) & self.c_wmask.val();
            self.err2_r.d.next = self.err2_user.val();
            if !self.hdr_ok.val() {
                // The error packet goes out next cycle (after a leftover beat going out now).
                self.dead.d.next = true;
                self.bad_len.d.next = true;
            }
        }
        if self.t_lprep.val() {
            // The FPDU's sideband, for its leading Marker (taken alone next).
            self.fuser.d.next = self.new_user.val();
            self.lead_prep.d.next = true;
            self.rot_amt.d.next = (self.c_lo.val() - self.s.q.val()) & self.c_wmask.val();
        }
        // The tail's keep for each end choice, loaded in every cycle that is not closing (it
        // is used only while closing, and closing is set only from a cycle that is not).
        if !self.closing.q.val() {
            self.tk.d.next = self.mt_end0.val();
            if self.inc.val() {
                self.tk.d.next = self.mt_end1.val();
            }
        }
        // Words held after a fragment: c + k is below two beats (c < words, k <= words), so
        // what stays after a full beat goes out (c + k - words), and what stays when no beat
        // goes out (c + k < words), are both (c + k) mod words; 0 after an FPDU's last
        // fragment and after exactly a beat. Each choice's value is worked out beside the
        // choice from registers (c + avail, c + 1), so only a selection follows the decision.
        self.c_take.next = self.c_av_m.val();
        if self.ends.val() {
            self.c_take.next = 0.into();
        }
        if self.t_lfrag.val() {
            self.c_take.next = self.c_one_m.val();
        }
        if self.take.val() {
            self.c_next.next = self.c_take.val();
            if self.gt.val() {
                // A full beat out; the rest stays in acc_r: more of the FPDU, or its tail,
                // which leaves next cycle with keep tk and is not merged with anything (c = 0).
                self.acc_use_r.d.next = true;
                if self.f_last.val() {
                    self.closing.d.next = true;
                }
            }
            // Later fragments start at lane 0 of the next beat.
            self.rot_amt.d.next = self.c_take.val();
            if self.t_lfrag.val() {
                self.lead_done.d.next = true;
                self.lead_prep.d.next = false;
            }
            if self.t_frag.val() {
                // The words left after a fragment that does not end the FPDU (after one that
                // does, rem is not used again before the next header sets it).
                self.rem.d.next = self.rem.q.val() - bit_cast::<16, 6>(self.avail.val())
                    + bit_cast::<16, 1>(self.mk_in.val().into());
                if self.ends.val() {
                    self.in_body.d.next = false;
                    self.lead_done.d.next = false;
                }
            }
            // The beat is done when all its words are taken, except the stream's last beat:
            // its end is decided when it is exhausted (t_end).
            self.pop.next = self.k_all.val() & !self.h_fin.val();
        }
        // After the end, every beat is taken and dropped.
        if self.dead.q.val() & self.h_v.val() {
            self.pop.next = true;
        }
        // ---- The next FPDU's header, beside its predecessor's last fragment. ----
        // When the fragment ends an FPDU (its last beat goes out now, or its tail next cycle),
        // the next FPDU's ULPDU_Length is read here instead of in a header cycle of its own:
        // from the head beat's word after the fragment, or from lane 0 of the next beat when
        // the fragment ends the head beat (the beat in the head slice's second entry, or
        // the one offered now, which the head then takes). Not for a header after a leading
        // Marker, above the limit, or after a stream's last beat: those take the header cycle.
        // Every lane's candidate (its P, limit check, Marker distance and rem > to_mk) is worked
        // out from registers side by side; the lane after the fragment only selects one.
        // The fragment's words are rem + inc here (it ends the FPDU), so the next word is at
        // lane e = s + rem + inc: both sums (inc 0 and 1) are worked out from registers and
        // compared with each lane's index beside inc, so lane e is a one-hot choice.
        self.ch_e0.next = self.s.q.val() + self.rem6.val();
        self.ch_e1.next = self.s.q.val() + self.rem6.val() + 1;
        // The same sums on the low bits only, for the lane tests: they are read only when the
        // fragment ends the FPDU (rem and s at most a beat's words), so s + rem + 1 is below
        // two beats' words and its low bits decide the lane (a narrow adder, no carry chain
        // across all six bits before the comparisons).
        self.ch_e0n.next = ((self.s.q.val() & self.c_emask.val())
            + (self.rem6.val() & self.c_emask.val()))
            & self.c_emask.val();
        self.ch_e1n.next =
            ((self.s.q.val() & self.c_emask.val()) + (self.rem6.val() & self.c_emask.val()) + 1)
                & self.c_emask.val();
        // to_mk counts from lane s: from lane j it is T = to_mk0 - j (mod 128, to_mk0 = to_mk + s,
        // a register). The next FPDU starts with a Marker when that is 0, i.e. to_mk0 == j (no
        // subtraction); P > T is P + j > T + j, and T + j is to_mk0, or to_mk0 + 128 when
        // to_mk0 < j: P + j comes with the lane's candidate, so one comparison of registers
        // (its low 8 bits, or P + j >= 256) and no subtraction before it.
        self.ch_good.next = false;
        self.ch_p.next = 0.into();
        self.ch_mbe.next = false;
        for j in 0..(W / 4) {
            self.ch_tgt[j].next = bit_cast::<8, 7>(self.to_mk0.q.val());
            // (c_wraps[j]: j > 0, and c_lane7w[j] = max(j, 1): for lane 0 the test is constant
            // false without a comparison that Verilator's lint calls constant.)
            if self.c_wraps[j].val() & (self.to_mk0.q.val() < self.c_lane7w[j].val()) {
                self.ch_tgt[j].next = bit_cast::<8, 7>(self.to_mk0.q.val()) | 0x80;
            }
            self.ch_mbej[j].next = self.hd_mq[j].q.val().get_bit(8)
                | (self.hd_mq[j].q.val().get_bits::<8>(0) > self.ch_tgt[j].val());
            // A header that can be taken here: within the limit, not after a leading Marker.
            self.ch_okj[j].next = self.hd_mok[j].q.val()
                & !(self.cfg_markers.val() & (self.to_mk0.q.val() == self.c_lane7[j].val()));
            self.ch_hit[j].next = self.ch_e0n.val() == self.c_lane[j].val();
            if self.inc.val() {
                self.ch_hit[j].next = self.ch_e1n.val() == self.c_lane[j].val();
            }
            if self.ch_hit[j].val() {
                self.ch_good.next = self.ch_good.val() | self.ch_okj[j].val();
                self.ch_p.next = self.ch_p.val() | self.hd_mp[j].q.val();
                self.ch_mbe.next = self.ch_mbe.val() | self.ch_mbej[j].val();
            }
        }
        // Lane 0 of the next beat, when the fragment runs to the head beat's end (rem + inc =
        // avail): its Marker distance is to_mk less the head beat's words left.
        self.ch_p_nb.next = self.hd_sp[0].q.val();
        self.ch_ok_nb.next = self.hd_sok[0].q.val();
        if self.head.s_axis.ready.val() {
            self.ch_p_nb.next = self.i_p[0].val();
            self.ch_ok_nb.next = self.i_ok[0].val();
        }
        // That distance T = to_mk - avail is the register te. P > T with P = (L + 9) / 4 holds
        // when T < 2, else exactly when (L / 4, L % 4 == 3) > (T - 2, 0) taken as one number:
        // L itself against a register (te_m2 = T - 2), no adder after the beat's octets.
        self.ch_len_nb.next = self.hd_slen0.q.val();
        if self.head.s_axis.ready.val() {
            self.ch_len_nb.next = self.i_len0.val();
        }
        self.ch_q2_nb.next = ((self.ch_len_nb.val() >> 2) << 1)
            | bit_cast::<16, 1>(((self.ch_len_nb.val() & 3) == 3).into());
        self.ch_mbe_nb.next = ((self.te.q.val() >> 1) == 0)
            | (self.ch_q2_nb.val() > (bit_cast::<16, 7>(self.te_m2.q.val()) << 1));
        // The next beat's word count: the head slice's second entry's, else the input's.
        self.n_next.next = self.i_n.val();
        if !self.head.s_axis.ready.val() {
            self.n_next.next = self.skid_n.q.val();
        }
        // That beat is there (the head takes it as this one goes), not empty, and this one is
        // not the stream's last.
        self.ch_good_nb.next = self.ch_ok_nb.val()
            & !(self.cfg_markers.val() & (self.te.q.val() == 0))
            & !self.h_fin.val()
            & (!self.head.s_axis.ready.val() | self.pre.m_axis.valid.val())
            & (self.n_next.val() != 0);
        self.ch_at_end.next = self.rem_eq.val();
        if self.inc.val() {
            self.ch_at_end.next = self.rem_p1_eq.val();
        }
        if self.ch_at_end.val() {
            self.ch_good.next = self.ch_good_nb.val();
            self.ch_p.next = self.ch_p_nb.val();
            self.ch_mbe.next = self.ch_mbe_nb.val();
        }
        self.chain.next = self.t_frag.val() & self.ends.val() & self.ch_good.val();
        // Its sideband is the next cycle's (its first word is then at lane s): ch_q.
        self.ch_q.d.next = self.chain.val();
        if self.chain.val() {
            self.rem.d.next = self.ch_p.val();
            self.in_body.d.next = true;
            // Nothing is held for merging after this fragment (its last beat goes out now, or
            // its tail next cycle with c = 0): the next fragment starts at lane e of this beat,
            // or at lane 0 of the next.
            self.rot_amt.d.next = (self.c_words.val() - self.ch_e0.val()) & self.c_wmask.val();
            if self.inc.val() {
                self.rot_amt.d.next = (self.c_words.val() - self.ch_e1.val()) & self.c_wmask.val();
            }
            if self.ch_at_end.val() {
                self.rot_amt.d.next = 0.into();
            }
        }
        // rem > to_mk for the next cycle. It is read only in the body (through inc), so outside
        // it the header's value loads in every cycle (the last load is the header cycle's,
        // the only way into the body besides chaining). In the body: the chained FPDU's after
        // an FPDU's last fragment (when nothing chains, the body ends and the value is not
        // read); after a fragment that takes the Marker (rem - k + 1 against to_mk - k + 128),
        // rem > to_mk + 127; else as it was.
        if !self.in_body.q.val() {
            self.mk_before_end.d.next = self.hdr_mbe.val();
        } else if self.t_frag.val() {
            if self.ends.val() {
                self.mk_before_end.d.next = self.ch_mbe.val();
            } else if self.mk_in.val() {
                self.mk_before_end.d.next = self.mbe_after_mk.val();
            }
        }
        self.head.m_axis.ready.next = self.pop.val();
        // The head beat's candidates load as the head slice's main entry does.
        self.hd_load.next = self.pop.val() | !self.head.m_axis.valid.val();
        for j in 0..(W / 4) {
            self.hd_mp[j].d.next = self.hd_mp[j].q.val();
            self.hd_mq[j].d.next = self.hd_mq[j].q.val();
            self.hd_mok[j].d.next = self.hd_mok[j].q.val();
            if self.hd_load.val() {
                self.hd_mp[j].d.next = self.i_p[j].val();
                self.hd_mq[j].d.next = self.i_q[j].val();
                self.hd_mok[j].d.next = self.i_ok[j].val();
                if !self.head.s_axis.ready.val() {
                    self.hd_mp[j].d.next = self.hd_sp[j].q.val();
                    self.hd_mq[j].d.next = self.hd_sq[j].q.val();
                    self.hd_mok[j].d.next = self.hd_sok[j].q.val();
                }
            }
        }
        self.c.d.next = self.c_next.val();
        // s, to_mk and avail step by the words taken. Each register's value after each choice
        // of fragment length (the beat's rest, the FPDU's end without or with a Marker, the
        // leading Marker alone) is summed from registers beside the decision, which only
        // selects one (no adder after it).
        self.u_avail.next = self.t_frag.val() & !self.ends.val();
        self.u_e0.next = self.t_frag.val() & self.ends.val() & !self.inc.val();
        self.u_e1.next = self.t_frag.val() & self.ends.val() & self.inc.val();
        self.u_one.next = self.t_lfrag.val();
        self.s_avail.next = self.s.q.val() + self.avail.val();
        self.s_one.next = self.s.q.val() + 1;
        self.tm_avail.next = self.to_mk.q.val() - bit_cast::<7, 6>(self.avail.val());
        self.tm_e0.next = self.to_mk.q.val() - bit_cast::<7, 6>(self.rem6.val());
        self.tm_e1.next = self.to_mk.q.val() - bit_cast::<7, 6>(self.rem6.val()) - 1;
        self.tm_one.next = self.to_mk.q.val() - 1;
        self.av_e0.next = self.avail.val() - self.rem6.val();
        self.av_e1.next = self.avail.val() - self.rem6.val() - 1;
        self.av_one.next = self.avail.val() - 1;
        self.s.d.next = self.s.q.val();
        self.to_mk.d.next = self.to_mk.q.val();
        self.av_step.next = self.avail.val();
        if self.u_avail.val() {
            self.s.d.next = self.s_avail.val();
            self.to_mk.d.next = self.tm_avail.val();
            self.av_step.next = 0.into();
        }
        if self.u_e0.val() {
            self.s.d.next = self.ch_e0.val();
            self.to_mk.d.next = self.tm_e0.val();
            self.av_step.next = self.av_e0.val();
        }
        if self.u_e1.val() {
            self.s.d.next = self.ch_e1.val();
            self.to_mk.d.next = self.tm_e1.val();
            self.av_step.next = self.av_e1.val();
        }
        if self.u_one.val() {
            self.s.d.next = self.s_one.val();
            self.to_mk.d.next = self.tm_one.val();
            self.av_step.next = self.av_one.val();
        }
        if self.pop.val() {
            self.s.d.next = 0.into();
        }
        // to_mk + s, which changes only when a new head beat comes (s then goes to 0).
        self.to_mk0.d.next = self.to_mk0.q.val();
        if self.pop.val() {
            self.to_mk0.d.next = self.to_mk.d.val();
        }
        self.seq.d.next = self.seq_now.val();
        self.wk_r.d.next = self.k.val();
        self.took_r.d.next = self.take.val();
        // te = to_mk - avail (words from the head beat's end to the next Marker position) does
        // not change while the beat stays (both step by the words taken); when it goes (all its
        // words taken: to_mk - words = te) or the slice is empty (nothing taken: to_mk), it is
        // that less the next beat's word count. te_m2 = te - 2 beside it.
        self.te.d.next = self.te.q.val();
        self.te_m2.d.next = self.te_m2.q.val();
        if self.pop.val() | !self.h_v.val() {
            self.te.d.next = self.te.q.val() - bit_cast::<7, 6>(self.n_next.val());
            self.te_m2.d.next = self.te_m2.q.val() - bit_cast::<7, 6>(self.n_next.val());
            if !self.h_v.val() {
                self.te.d.next = self.to_mk.q.val() - bit_cast::<7, 6>(self.n_next.val());
                self.te_m2.d.next = self.to_mk.q.val() - 2 - bit_cast::<7, 6>(self.n_next.val());
            }
        }
        // avail's next value: the word count of the beat the head slice presents next (its
        // second entry's, else the input's) when the head beat goes or the slice is empty,
        // else the words left after this cycle's.
        self.skid_n.d.next = self.skid_n.q.val();
        if self.head.s_axis.ready.val() {
            self.skid_n.d.next = self.i_n.val();
        }
        if self.pop.val() | !self.h_v.val() {
            self.avail_r.d.next = self.n_next.val();
        } else {
            self.avail_r.d.next = self.av_step.val();
        }
        // The thermometer of the same value, each choice's worked out beside it.
        for j in 0..(W / 4) {
            self.av_gt[j].d.next = self.av_gt[j].q.val();
            if self.u_avail.val() {
                self.av_gt[j].d.next = false;
            }
            if self.u_e0.val() {
                self.av_gt[j].d.next = self.av_e0.val() > self.c_lane[j].val();
            }
            if self.u_e1.val() {
                self.av_gt[j].d.next = self.av_e1.val() > self.c_lane[j].val();
            }
            if self.u_one.val() {
                self.av_gt[j].d.next = self.av_one.val() > self.c_lane[j].val();
            }
            if self.pop.val() | !self.h_v.val() {
                self.av_gt[j].d.next = self.n_next.val() > self.c_lane[j].val();
            }
        }
        // The Markers setting is held while an FPDU is open (the next cycle's state).
        self.open_next.next = (self.open_fpdu.val() & !(self.t_frag.val() & self.ends.val()))
            | self.t_hdr.val()
            | self.t_lprep.val()
            | self.lead_prep.q.val();
        self.mk_on.d.next = self.cfg_markers.val();
        if self.open_next.val() {
            self.mk_on.d.next = self.mk_on.q.val();
        }

        // Reset.
        self.pos.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.s.d.next = 0.into();
            self.to_mk.d.next = bit_cast::<7, 32>((0 - self.pos.val()) >> 2);
            self.to_mk0.d.next = bit_cast::<7, 32>((0 - self.pos.val()) >> 2);
            self.seq.d.next = self.cfg_seq.val();
            self.took_r.d.next = false;
            self.in_body.d.next = false;
            self.mk_on.d.next = self.cfg_markers.val();
            self.lead_prep.d.next = false;
            self.lead_done.d.next = false;
            self.dead.d.next = false;
            self.bad_len.d.next = false;
            self.end_err.d.next = false;
            self.c.d.next = 0.into();
            self.closing.d.next = false;
            self.rot_amt.d.next = 0.into();
            self.acc_use_r.d.next = false;
            self.ch_q.d.next = false;
        }
    }
}
