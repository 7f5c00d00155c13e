//! `TxSegmenter`: packs FPDUs into FPDU-aligned TCP segments of at most EMSS octets (RFC 5044
//! 5.1, Appendix A.1).
//!
//! "Multiple FPDUs MAY be packed into a single TCP segment as determined by the EMSS calculation
//! as long as they are entirely contained in the TCP segment" (5.1). FPDUs go into the current
//! segment while it stays within EMSS; an FPDU that does not fit starts a new segment, so every
//! segment starts with an FPDU (its first octet, or the leading Marker that belongs to it). A
//! pushed FPDU (sideband bit 16) closes its segment. An FPDU longer than EMSS (its ULPDU was
//! larger than MULPDU, 4.5) starts a new segment, is cut into pieces of EMSS rounded down to a
//! multiple of 4 octets, and closes its last piece; `oversize` pulses for it. The rules are
//! [`golden::segment::segment_fpdus_with_push`]'s, with [`golden::segment::effective_emss`].
//!
//! A segment that is not closed stays open for the next FPDU: its last beat waits until the next
//! FPDU arrives and shows whether it fits (or pushes). Push the last FPDU of a burst, or set
//! `cfg_idle`: when the pipeline has been empty for `cfg_idle` cycles behind an FPDU that waits
//! for a successor (no input offered, nothing in F1..F3 or the head slice), the segment is closed
//! as if that FPDU had been pushed, so a ULP that waits for an answer never hangs.
//!
//! ```text
//!  s_axis ─► F1 ─► F2 ─► F2b ─► F3 ─► head (register slice) ─► gearbox ─► stage ─► out (3-slot queue) ─► m_axis
//!            y     wire  fit?, cut       fragments        acc + fragment      beat, words,  keep, sequence
//!                                                         rotated by c lanes  last          numbers
//! ```
//! F1..F3 work out, for each FPDU, its length on the wire from P (its length without Markers)
//! and the stream position `a` of its first word (mod 128 words): a leading Marker when `a = 0`,
//! then `m = ceil((P - room) / 127)` Markers inside, `room = 128 - a'` words before the first one
//! (`ceil(x/127)` exactly, from `y = x + 126`: `floor(y/127) = q + floor((q + r)/127)` with
//! `y = 128q + r`). F3 decides whether the FPDU fits the open segment, and cuts an oversize FPDU's
//! beats at its piece boundaries into fragments (a cut beat's second fragment moved down to
//! lane 0 on its way to the head slice), so the gearbox only ever appends a fragment's `k`
//! words, lanes 0..k, to the `c` words it holds and emits full beats, or a segment's last beat.
//! Its rotation and merge are the shared [`crate::gearbox::Gearbox`] on 4-octet words.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_emss` | in | 16 | EMSS in octets; below 128 it counts as 128. A segment is filled up to the EMSS in force when it was opened; an FPDU is oversize against the EMSS when it arrives |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet and of the marker origin, loaded while `rst` is high |
//! | `cfg_idle` | in | 16 | idle limit in cycles (0: none): an open segment whose last FPDU waits this long with nothing behind it is closed |
//! | `s_axis` | in | 8W | FPDUs (with Markers and CRC), one per packet, lane 0 first; `user` as [`super::TX_FPDU_USER`] |
//! | `m_axis` | out | 8W | TCP segment payloads, one per packet, lane 0 first |
//! | `m_axis.user` | out | 32 | on every beat of a segment: the TCP sequence number of its first octet |
//! | `oversize` | out | 1 | one-cycle pulse per FPDU longer than EMSS |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`. At W = 64
//! ([`crate::tx::TX_ROTATE_AHEAD_FROM_W`]) F3 also keeps its beat moved down by the cut (`B`
//! flip-flops more), loaded with the beat, so that a cut beat's second fragment is a register
//! into the head slice, not a shifter; W = 4 to 32 keep their Verilog text.
//!
//! ### Latency and throughput
//! Seven cycles from an input beat to its output beat when the segment goes on (F1, F2, F2b, F3,
//! the head slice, the output stage, the output queue). The gearbox's decision goes into an
//! output stage (the beat, its word count and `last`, registered without an enable); the stage
//! pushes it into a three-slot queue ([`crate::stream_outq3::StreamOutQ3`]) whose registered
//! `ready` counts the beat in the stage, and the beat's `keep` and sequence number are worked out
//! from the stage's registers, so the decision reaches neither (one cycle more than before stop
//! 52, for the Fmax). `m_axis` is a 3:1 multiplexer of registers. The datapath moves one
//! fragment per cycle: the output has one beat per cycle while a segment holds one FPDU; FPDUs
//! packed into one segment share beats, so the output then has fewer beats than the cycles the
//! FPDUs took (each FPDU is whole beats inside the transmit path). One more cycle is spent where a segment is closed because the next FPDU
//! does not fit and the closed segment's last beat is partial, and one per cut of an oversize
//! FPDU inside a beat (F3 offers the cut beat's two fragments in two cycles).
//!
//! ### Reset
//! `rst` loads the sequence number and stream position, empties the pipeline, the gearbox and the
//! register slices.

use crate::gearbox::Gearbox;
use crate::keep_words::KeepWords;
use crate::sideband::TxFpduUserFields;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq3::StreamOutQ3;
use crate::stream_skid::StreamSkid;
use crate::tx::TX_FPDU_USER;
use rust_hdl::prelude::*;

pub use crate::sideband::TX_SEGMENT_USER;

crate::sideband::sideband! {
    /// Fragment sideband between F3 and the gearbox (inside the block), on every fragment.
    FragUser, prefix frag, bits 9, {
        /// k: the fragment's words (lanes 0..k).
        k: Bits<6> = 0,
        /// The first fragment of an FPDU.
        first: Bit = 6,
        /// The FPDU does not fit the open segment (cb); set on its first fragment.
        cb: Bit = 7,
        /// The fragment ends a segment.
        seg_end: Bit = 8,
    }
}
const FRAG_USER: usize = FragUser::BITS;

/// The segmenter; see the module documentation.
#[derive(LogicBlock)]
pub struct TxSegmenter<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (loads the sequence number and position).
    pub rst: Signal<In, Bit>,
    /// EMSS in octets.
    pub cfg_emss: Signal<In, Bits<16>>,
    /// Sequence number of the stream's first octet.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Idle limit in cycles (0: none).
    pub cfg_idle: Signal<In, Bits<16>>,
    /// FPDUs.
    pub s_axis: StreamSink<W, B, TX_FPDU_USER>,
    /// Segments.
    pub m_axis: StreamSource<W, B, TX_SEGMENT_USER>,
    /// Pulse: an FPDU longer than EMSS.
    pub oversize: Signal<Out, Bit>,
    head: StreamSkid<W, B, FRAG_USER>,
    out: StreamOutQ3<W, B, TX_SEGMENT_USER>,
    // Input side: inside an FPDU; whether the stream position a of the next input word (mod 128)
    // is 0; a - 2 (16 bits: -2 and -1 for positions 0 and 1; its low 7 bits are a - 2 mod 128).
    in_mid: DFF<Bit>,
    ipos_zero: DFF<Bit>,
    ipos_m2: DFF<Bits<16>>,
    // F1.
    f1_v: DFF<Bit>,
    f1_data: DFF<Bits<B>>,
    f1_n: DFF<Bits<6>>,
    f1_last: DFF<Bit>,
    f1_first: DFF<Bit>,
    // P + 1 after a leading Marker (its words without inner Markers), summed in F1.
    f1_pl: DFF<Bits<16>>,
    f1_y: DFF<Bits<16>>,
    f1_markers: DFF<Bit>,
    f1_push: DFF<Bit>,
    // F2: q + r and P + lead + q of y = 128q + r.
    e2_v: DFF<Bit>,
    e2_data: DFF<Bits<B>>,
    e2_n: DFF<Bits<6>>,
    e2_last: DFF<Bit>,
    e2_first: DFF<Bit>,
    e2_ssum: DFF<Bits<8>>,
    e2_base: DFF<Bits<16>>,
    e2_base1: DFF<Bits<16>>,
    e2_base2: DFF<Bits<16>>,
    e2_pl: DFF<Bits<16>>,
    e2_needm: DFF<Bit>,
    e2_push: DFF<Bit>,
    // F2b: the wire length.
    f2_v: DFF<Bit>,
    f2_data: DFF<Bits<B>>,
    f2_n: DFF<Bits<6>>,
    f2_last: DFF<Bit>,
    f2_first: DFF<Bit>,
    f2_wire: DFF<Bits<16>>,
    f2_push: DFF<Bit>,
    // F3: the beat, its FPDU's decision, where the beat resumes after a cut, the words left in
    // the current piece of an oversize FPDU; the open segment's words.
    f3_v: DFF<Bit>,
    f3_data: DFF<Bits<B>>,
    f3_n: DFF<Bits<6>>,
    f3_last: DFF<Bit>,
    f3_first: DFF<Bit>,
    f3_cb: DFF<Bit>,
    f3_split: DFF<Bit>,
    f3_cut: DFF<Bits<6>>,
    f3_piece_end: DFF<Bit>,
    f3_phase: DFF<Bit>,
    // F3 holds a cut beat whose first fragment has not gone (f3_v & f3_split & !f3_phase), as
    // a register: the F stages' advance (a wide enable) reads it.
    f3_hold: DFF<Bit>,
    // At W = 64 (TX_ROTATE_AHEAD_FROM_W; empty below): F3's beat moved down by the cut,
    // worked out as F3 loads (from F2's beat and piece_left, the cut's source), so that the
    // second fragment of a cut beat is one 2:1 select into the head slice instead of a shifter
    // behind f3_split and f3_phase (the limit at W = 32 once the Marker inserter's rotation
    // had moved, README, transmit path, stop 70).
    f3_rest: Vec<DFF<Bits<B>>>,
    fp_ca: DFF<Bit>,
    fp_over: DFF<Bit>,
    fp_emw: DFF<Bits<16>>,
    // Words left in the current piece of an oversize FPDU when F2's beat enters F3.
    piece_left: DFF<Bits<16>>,
    // The open segment: words still free in it, whether one is open, EMSS in words.
    space: DFF<Bits<16>>,
    open_q: DFF<Bit>,
    emw_q: DFF<Bits<16>>,
    over_q: DFF<Bit>,
    // Gearbox: words waiting (lanes 0..c), a segment's end waiting to go, an FPDU's end waiting
    // for the next FPDU's decision, the rotation for the next fragment.
    // acc is acc_m or acc_r as acc_use_r says: both load every cycle (no wide enable behind the
    // decision logic), the choice is a register.
    acc_m: DFF<Bits<B>>,
    acc_r: DFF<Bits<B>>,
    acc_use_r: DFF<Bit>,
    c: DFF<Bits<6>>,
    room: DFF<Bits<6>>,
    c_full: DFF<Bit>,
    // !closing & !c_full: acc does not have to go out before a merge.
    st_ok: DFF<Bit>,
    closing: DFF<Bit>,
    pend: DFF<Bit>,
    rot_amt: DFF<Bits<6>>,
    // The output stage: the decided beat (data, its words, last), registered without an
    // enable, pushed into the output queue in the next cycle.
    s_v: DFF<Bit>,
    s_data: DFF<Bits<B>>,
    s_words: DFF<Bits<6>>,
    s_last: DFF<Bit>,
    // Sequence numbers, behind the stage: of the next octet into the queue, of the current
    // segment's first octet; the stage's beat is a segment's first.
    seq_out: DFF<Bits<32>>,
    seg_seq: DFF<Bits<32>>,
    seg_first: DFF<Bit>,
    // Idle limit: quiet cycles still to go (loaded with cfg_idle while not quiet, counted down
    // to 0 while quiet), the limit reached (registered).
    idle_left: DFF<Bits<16>>,
    idle_hit: DFF<Bit>,
    // Constants.
    c_ones_w: Constant<Bits<W>>,
    c_words: Constant<Bits<6>>,
    c_wmask: Constant<Bits<6>>,
    c_kmask: Constant<Bits<6>>,
    kw: KeepWords<W>,
    // Combinational: input and F stages.
    adv: Signal<Local, Bit>,
    in_take: Signal<Local, Bit>,
    in_first: Signal<Local, Bit>,
    in_n: Signal<Local, Bits<6>>,
    in_lead: Signal<Local, Bit>,
    in_a1m2: Signal<Local, Bits<16>>,
    // Per word count k = 0..=W/4: the next position (less 2, mod 128, and sign-extended), and
    // whether the input beat has k words; the one selected.
    ipos_k: Vec<Signal<Local, Bits<16>>>,
    ipos_k16: Vec<Signal<Local, Bits<16>>>,
    n_is: Vec<Signal<Local, Bit>>,
    ipos_sel: Signal<Local, Bits<16>>,
    ipos_zsel: Signal<Local, Bit>,
    c_k16: Vec<Constant<Bits<16>>>,
    c_k6: Vec<Constant<Bits<6>>>,
    // (126 - k) and (127 - k) mod 128, and the test against the first.
    c_z: Vec<Constant<Bits<16>>>,
    c_z1: Vec<Constant<Bits<16>>>,
    ipos_z: Vec<Signal<Local, Bit>>,
    in_p: Signal<Local, Bits<16>>,
    q: Signal<Local, Bits<16>>,
    m_extra: Signal<Local, Bits<16>>,
    emss: Signal<Local, Bits<16>>,
    emw: Signal<Local, Bits<16>>,
    cb: Signal<Local, Bit>,
    gt_space: Signal<Local, Bit>,
    open_n: Signal<Local, Bit>,
    ca: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    f3_go: Signal<Local, Bit>,
    small_left: Signal<Local, Bit>,
    split: Signal<Local, Bit>,
    piece_end: Signal<Local, Bit>,
    f_data: Signal<Local, Bits<B>>,
    fk: Signal<Local, Bits<6>>,
    flast: Signal<Local, Bit>,
    fseg_end: Signal<Local, Bit>,
    ffirst: Signal<Local, Bit>,
    fuser: Signal<Local, Bits<FRAG_USER>>,
    // Combinational: gearbox.
    h_k: Signal<Local, Bits<6>>,
    room_q: Signal<Local, Bits<6>>,
    c_q: Signal<Local, Bits<6>>,
    h_cb: Signal<Local, Bit>,
    h_seg_end: Signal<Local, Bit>,
    h_last: Signal<Local, Bit>,
    b_end: Signal<Local, Bit>,
    f_full: Signal<Local, Bit>,
    k_gt: Signal<Local, Bit>,
    k_eq: Signal<Local, Bit>,
    c_next: Signal<Local, Bits<6>>,
    acc: Signal<Local, Bits<B>>,
    gb: Gearbox<B>,
    rdy: Signal<Local, Bit>,
    hv: Signal<Local, Bit>,
    pcb: Signal<Local, Bit>,
    a_first: Signal<Local, Bit>,
    a_nohv: Signal<Local, Bit>,
    mg: Signal<Local, Bit>,
    m_room: Signal<Local, Bits<6>>,
    m_c: Signal<Local, Bits<6>>,
    room_next: Signal<Local, Bits<6>>,
    o_acc: Signal<Local, Bit>,
    o_emit: Signal<Local, Bit>,
    o_words: Signal<Local, Bits<6>>,
    o_last: Signal<Local, Bit>,
    pos: Signal<Local, Bits<32>>,
    quiet: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize> TxSegmenter<W, B> {
    /// Builds the segmenter; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("TxSegmenter", W, B, TX_FPDU_USER);
        crate::tx::check_tx_width("TxSegmenter", W);
        let words = W / 4;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_emss: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            cfg_idle: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            oversize: Default::default(),
            head: StreamSkid::loading_while_empty(),
            out: StreamOutQ3::new(),
            in_mid: Default::default(),
            ipos_zero: Default::default(),
            ipos_m2: Default::default(),
            f1_v: Default::default(),
            f1_data: Default::default(),
            f1_n: Default::default(),
            f1_last: Default::default(),
            f1_first: Default::default(),
            f1_pl: Default::default(),
            f1_y: Default::default(),
            f1_markers: Default::default(),
            f1_push: Default::default(),
            e2_v: Default::default(),
            e2_data: Default::default(),
            e2_n: Default::default(),
            e2_last: Default::default(),
            e2_first: Default::default(),
            e2_ssum: Default::default(),
            e2_base: Default::default(),
            e2_base1: Default::default(),
            e2_base2: Default::default(),
            e2_pl: Default::default(),
            e2_needm: Default::default(),
            e2_push: Default::default(),
            f2_v: Default::default(),
            f2_data: Default::default(),
            f2_n: Default::default(),
            f2_last: Default::default(),
            f2_first: Default::default(),
            f2_wire: Default::default(),
            f2_push: Default::default(),
            f3_v: Default::default(),
            f3_data: Default::default(),
            f3_n: Default::default(),
            f3_last: Default::default(),
            f3_first: Default::default(),
            f3_cb: Default::default(),
            f3_split: Default::default(),
            f3_cut: Default::default(),
            f3_rest: crate::tx::wide_entries(crate::tx::tx_rotate_ahead(W)),
            f3_piece_end: Default::default(),
            f3_phase: Default::default(),
            f3_hold: Default::default(),
            fp_ca: Default::default(),
            fp_over: Default::default(),
            fp_emw: Default::default(),
            piece_left: Default::default(),
            space: Default::default(),
            open_q: Default::default(),
            emw_q: Default::default(),
            over_q: Default::default(),
            acc_m: Default::default(),
            acc_r: Default::default(),
            acc_use_r: Default::default(),
            c: Default::default(),
            room: Default::default(),
            c_full: Default::default(),
            st_ok: Default::default(),
            closing: Default::default(),
            pend: Default::default(),
            rot_amt: Default::default(),
            s_v: Default::default(),
            s_data: Default::default(),
            s_words: Default::default(),
            s_last: Default::default(),
            seq_out: Default::default(),
            seg_seq: Default::default(),
            seg_first: Default::default(),
            idle_left: Default::default(),
            idle_hit: Default::default(),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_words: Constant::new((words as u64).into()),
            c_wmask: Constant::new(((words - 1) as u64).into()),
            c_kmask: Constant::new(((2 * words).next_power_of_two() as u64 - 1).into()),
            kw: KeepWords::new(),
            adv: Default::default(),
            in_take: Default::default(),
            in_first: Default::default(),
            in_n: Default::default(),
            in_lead: Default::default(),
            in_a1m2: Default::default(),
            ipos_k: (0..=words).map(|_| Default::default()).collect(),
            ipos_k16: (0..=words).map(|_| Default::default()).collect(),
            n_is: (0..=words).map(|_| Default::default()).collect(),
            ipos_sel: Default::default(),
            ipos_zsel: Default::default(),
            c_k16: (0..=words).map(|k| Constant::new((k as u64).into())).collect(),
            c_k6: (0..=words).map(|k| Constant::new((k as u64).into())).collect(),
            c_z: (0..=words).map(|k| Constant::new((((126 - k) & 127) as u64).into())).collect(),
            c_z1: (0..=words).map(|k| Constant::new((((127 - k) & 127) as u64).into())).collect(),
            ipos_z: (0..=words).map(|_| Default::default()).collect(),
            in_p: Default::default(),
            q: Default::default(),
            m_extra: Default::default(),
            emss: Default::default(),
            emw: Default::default(),
            cb: Default::default(),
            gt_space: Default::default(),
            open_n: Default::default(),
            ca: Default::default(),
            over: Default::default(),
            f3_go: Default::default(),
            small_left: Default::default(),
            split: Default::default(),
            piece_end: Default::default(),
            f_data: Default::default(),
            fk: Default::default(),
            flast: Default::default(),
            fseg_end: Default::default(),
            ffirst: Default::default(),
            fuser: Default::default(),
            h_k: Default::default(),
            room_q: Default::default(),
            c_q: Default::default(),
            h_cb: Default::default(),
            h_seg_end: Default::default(),
            h_last: Default::default(),
            b_end: Default::default(),
            f_full: Default::default(),
            k_gt: Default::default(),
            k_eq: Default::default(),
            c_next: Default::default(),
            acc: Default::default(),
            gb: Gearbox::new("TxSegmenter", 32),
            rdy: Default::default(),
            hv: Default::default(),
            pcb: Default::default(),
            a_first: Default::default(),
            a_nohv: Default::default(),
            mg: Default::default(),
            m_room: Default::default(),
            m_c: Default::default(),
            room_next: Default::default(),
            o_acc: Default::default(),
            o_emit: Default::default(),
            o_words: Default::default(),
            o_last: Default::default(),
            pos: Default::default(),
            quiet: Default::default(),
            flush: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for TxSegmenter<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TxSegmenter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_mid,
            ipos_zero,
            ipos_m2,
            f1_v,
            f1_data,
            f1_n,
            f1_last,
            f1_first,
            f1_pl,
            f1_y,
            f1_markers,
            f1_push,
            e2_v,
            e2_data,
            e2_n,
            e2_last,
            e2_first,
            e2_ssum,
            e2_base,
            e2_base1,
            e2_base2,
            e2_pl,
            e2_needm,
            e2_push,
            f2_v,
            f2_data,
            f2_n,
            f2_last,
            f2_first,
            f2_wire,
            f2_push,
            f3_v,
            f3_data,
            f3_n,
            f3_last,
            f3_first,
            f3_cb,
            f3_split,
            f3_cut,
            f3_piece_end,
            f3_phase,
            f3_hold,
            fp_ca,
            fp_over,
            fp_emw,
            piece_left,
            space,
            open_q,
            emw_q,
            over_q,
            acc_m,
            acc_r,
            acc_use_r,
            c,
            room,
            c_full,
            st_ok,
            closing,
            pend,
            rot_amt,
            s_v,
            s_data,
            s_words,
            s_last,
            seq_out,
            seg_seq,
            seg_first,
            idle_left,
            idle_hit
        );
        self.head.clock.next = self.clock.val();
        self.head.rst.next = self.rst.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.oversize.next = self.over_q.q.val();
        self.over_q.d.next = false;

        // ---- F3 -> head: the beat, or its two fragments where an oversize FPDU is cut. ----
        // Phase 0 offers words [0, cut) (or the whole beat), phase 1 the rest [cut, n), moved
        // down to lane 0 here (F3's registers into a word multiplexer), so that every fragment
        // starts at lane 0 and the gearbox's decision never waits for a lane offset.
        self.f_data.next = self.f3_data.q.val();
        self.fk.next = self.f3_n.q.val();
        self.flast.next = self.f3_last.q.val();
        self.fseg_end.next =
            self.f3_piece_end.q.val() | (self.f3_last.q.val() & self.fp_ca.q.val());
        if self.f3_split.q.val() {
            if self.f3_phase.q.val() {
                // (cut < n <= W/4: masked to the lane bits, a shifter of log2(W/4) stages.)
                self.f_data.next = self.f3_data.q.val()
                    >> (bit_cast::<16, 6>(self.f3_cut.q.val() & self.c_wmask.val()) << 5);
                self.fk.next = self.f3_n.q.val() - self.f3_cut.q.val();
                self.fseg_end.next = self.f3_last.q.val() & self.fp_ca.q.val();
            } else {
                self.fk.next = self.f3_cut.q.val();
                self.flast.next = false;
                self.fseg_end.next = true;
            }
        }
        self.ffirst.next = self.f3_first.q.val() & !self.f3_phase.q.val();
        self.fuser.next = 0.into();
        self.fuser.next.set_value_frag_k(self.fk.val());
        self.fuser.next.set_value_frag_first(self.ffirst.val());
        self.fuser.next.set_value_frag_cb(self.ffirst.val() & self.f3_cb.q.val());
        self.fuser.next.set_value_frag_seg_end(self.fseg_end.val());
        self.head.s_axis.valid.next = self.f3_v.q.val();
        self.head.s_axis.data.next = self.f_data.val();
        self.head.s_axis.keep.next = self.c_ones_w.val();
        self.head.s_axis.user.next = self.fuser.val();
        self.head.s_axis.last.next = self.flast.val();
        // The F stages move when the head slice takes F3's beat (or F3 is empty), but not while
        // F3 still has the second fragment of a cut beat to offer.
        self.f3_go.next = self.head.s_axis.ready.val() & self.f3_v.q.val();
        self.adv.next = self.head.s_axis.ready.val() & !self.f3_hold.q.val();
        if self.f3_go.val() {
            self.f3_phase.d.next = self.f3_split.q.val() & !self.f3_phase.q.val();
            // The first fragment of a cut beat went (with adv low, F3 holds nothing else).
            self.f3_hold.d.next = false;
        }
        // ---- The gearbox, on the head fragment. ----
        // Word counts (c, room, k) are at most W/4: masked to the bits that needs, so that
        // synthesis sees the upper bits are 0 and the comparisons and sums stay narrow.
        self.h_k.next = self.head.m_axis.user.val().get_value_frag_k() & self.c_kmask.val();
        self.room_q.next = self.room.q.val() & self.c_kmask.val();
        self.c_q.next = self.c.q.val() & self.c_kmask.val();
        self.h_cb.next = self.head.m_axis.user.val().get_value_frag_cb();
        self.h_seg_end.next = self.head.m_axis.user.val().get_value_frag_seg_end();
        self.h_last.next = self.head.m_axis.last.val();
        // The idle limit: an FPDU end waiting with nothing behind it (no input offered, the F
        // stages and the head slice empty) for cfg_idle cycles closes its segment.
        self.quiet.next = self.pend.q.val()
            & !self.s_axis.valid.val()
            & !self.in_mid.q.val()
            & !self.f1_v.q.val()
            & !self.e2_v.q.val()
            & !self.f2_v.q.val()
            & !self.f3_v.q.val()
            & !self.head.m_axis.valid.val();
        // idle_hit is set only in a quiet cycle, and nothing can enter the F stages or the head
        // slice in the cycle after one (no input was offered): behind idle_hit the path is
        // still empty, so the flush needs only pend (it stays off the pipeline's valid bits and
        // the input's). An FPDU offered in that very cycle opens the next segment.
        self.flush.next = self.idle_hit.q.val() & self.pend.q.val();
        // The count goes down from cfg_idle, so the limit is "at most one left" (a zero test of
        // the upper 15 bits) instead of an increment and a 16-bit comparison (mpa_tx_w4's
        // critical path, 6.7 ns).
        self.idle_left.d.next = self.cfg_idle.val();
        self.idle_hit.d.next = false;
        if self.quiet.val() {
            self.idle_left.d.next = self.idle_left.q.val();
            if self.idle_left.q.val().any() {
                self.idle_left.d.next = self.idle_left.q.val() - 1;
            }
            self.idle_hit.d.next = self.cfg_idle.val().any() & ((self.idle_left.q.val() >> 1) == 0);
        }
        // The gearbox's decision. Every input is a register (the head slice's entry, the output
        // queue's ready, the gearbox state), and each register's next value is written out on
        // its own from the few facts it depends on, with what the state guarantees folded in
        // (no chain of shared case signals before them): st_ok is !closing & !c_full; closing
        // and pend are never both set; idle_hit means the head slice is empty (see above), so
        // the idle limit acts only without a head fragment. Nothing moves without the output
        // queue's ready (rdy): then c, room and the flags hold, acc keeps its c words, and
        // acc_use_r and the stage's valid are 0.
        // With rdy:
        // - a head fragment (hv) behind a full acc (c_full) is chained: acc goes out and the
        //   fragment's k words become acc (no cycle lost: with c = W/4 the rotation register
        //   already holds 0; every fragment starts at lane 0, F3 moved a cut beat's second
        //   fragment down);
        // - else acc goes out alone ahead of the fragment when a segment's end waits (closing)
        //   or the FPDU pending does not fit the segment (pend & cb: a_first);
        // - else the fragment merges after acc's c words (mg): a full beat goes out when
        //   k > room (the other k - room words stay); the beat goes out with nothing left when
        //   the fragment ends a segment, or fills the beat exactly and is not its FPDU's last
        //   (b_end; an FPDU's last fragment waits in acc, pending, for the next FPDU's fit
        //   decision); else the fragment stays in acc;
        // - with no head fragment, acc goes out alone when a segment's end waits, when it is
        //   full with no FPDU end pending, or at the idle limit (a_nohv).
        self.rdy.next = self.out.s_axis.ready.val();
        self.hv.next = self.head.m_axis.valid.val();
        self.k_gt.next = self.h_k.val() > self.room_q.val();
        self.k_eq.next = self.h_k.val() == self.room_q.val();
        self.f_full.next = self.h_k.val() == self.c_words.val();
        self.pcb.next = self.pend.q.val() & self.h_cb.val();
        self.a_first.next = self.closing.q.val() | self.pcb.val();
        self.a_nohv.next =
            self.closing.q.val() | (self.c_full.q.val() & !self.pend.q.val()) | self.flush.val();
        self.mg.next = self.st_ok.q.val() & !self.pcb.val();
        self.b_end.next = self.h_seg_end.val() | (self.k_eq.val() & !self.h_last.val());
        // A merge's room and c: a full beat out (k > room), the beat out with nothing left, or
        // the fragment kept (c + k words).
        self.m_room.next = self.room_q.val() - self.h_k.val();
        self.m_c.next = self.c_q.val() + self.h_k.val();
        if self.b_end.val() {
            self.m_room.next = self.c_words.val();
            self.m_c.next = 0.into();
        }
        if self.k_gt.val() {
            self.m_room.next = self.c_words.val() + self.room_q.val() - self.h_k.val();
            self.m_c.next = self.h_k.val() - self.room_q.val();
        }
        self.room_next.next = self.room.q.val();
        self.c_next.next = self.c_q.val();
        if self.a_nohv.val() {
            self.room_next.next = self.c_words.val();
            self.c_next.next = 0.into();
        }
        if self.hv.val() {
            self.room_next.next = self.m_room.val();
            self.c_next.next = self.m_c.val();
            if self.a_first.val() {
                self.room_next.next = self.c_words.val();
                self.c_next.next = 0.into();
            }
            if self.c_full.q.val() {
                self.room_next.next = self.c_words.val() - self.h_k.val();
                self.c_next.next = self.h_k.val();
            }
        }
        // The flags, each from its own terms (with hv | without).
        self.closing.d.next = false;
        self.pend.d.next = self.pend.q.val() & !self.idle_hit.q.val();
        self.c_full.d.next = self.c_full.q.val()
            & !self.closing.q.val()
            & self.pend.q.val()
            & !self.idle_hit.q.val();
        self.st_ok.d.next = !self.c_full.d.val();
        if self.hv.val() {
            self.closing.d.next =
                self.h_seg_end.val() & (self.c_full.q.val() | (self.mg.val() & self.k_gt.val()));
            self.pend.d.next = self.h_last.val()
                & !self.h_seg_end.val()
                & (self.c_full.q.val() | (!self.closing.q.val() & !self.pcb.val()));
            self.c_full.d.next =
                self.mg.val() & self.k_eq.val() & self.h_last.val() & !self.h_seg_end.val();
            self.st_ok.d.next = self.a_first.val()
                | !((self.k_gt.val() & self.h_seg_end.val())
                    | (self.k_eq.val() & self.h_last.val() & !self.h_seg_end.val()));
            if self.c_full.q.val() {
                self.c_full.d.next = self.f_full.val();
                self.st_ok.d.next = !self.h_seg_end.val() & !self.f_full.val();
            }
        }
        // The output beat: acc alone (with hv: full or a_first; without: a_nohv), or
        // the merged beat when it fills (k > room) or ends (b_end).
        self.o_acc.next = !self.hv.val() | self.c_full.q.val() | self.a_first.val();
        self.o_emit.next = self.a_nohv.val();
        if self.hv.val() {
            self.o_emit.next = self.o_acc.val() | self.k_gt.val() | self.b_end.val();
        }
        self.o_words.next = self.c_q.val() + self.h_k.val();
        if self.k_gt.val() | self.k_eq.val() {
            self.o_words.next = self.c_words.val();
        }
        self.o_last.next = self.h_seg_end.val() & !self.k_gt.val();
        if self.o_acc.val() {
            self.o_words.next = self.c_q.val();
            self.o_last.next = self.a_first.val() | self.flush.val();
        }
        // The head fragment is taken when it chains or merges.
        self.head.m_axis.ready.next =
            self.rdy.val() & self.hv.val() & (self.c_full.q.val() | self.mg.val());
        // The data: the fragment rotated up by c lanes after acc's c words.
        self.acc.next = self.acc_m.q.val();
        if self.acc_use_r.q.val() {
            self.acc.next = self.acc_r.q.val();
        }
        // The shared gearbox: the beat rotated up by the lanes held, after acc's held lanes.
        self.gb.data.next = self.head.m_axis.data.val();
        self.gb.amt.next = bit_cast::<8, 6>(self.rot_amt.q.val());
        self.gb.acc.next = self.acc.val();
        self.gb.hold.next = bit_cast::<8, 6>(self.c_q.val());
        // The output stage: loaded every cycle, its valid the decision; the queue's ready
        // counts the beat it holds (s_next), so it is pushed in the next cycle unconditionally.
        // merged's lanes below c are acc's, so when acc goes out alone (c words) merged is its
        // beat too (the lanes above c are outside keep): no multiplexer on the data behind
        // the decision.
        self.s_v.d.next = self.rdy.val() & self.o_emit.val();
        self.s_data.d.next = self.gb.merged.val();
        self.s_words.d.next = self.o_words.val();
        self.s_last.d.next = self.o_last.val();
        self.out.s_next.next = self.rdy.val() & self.o_emit.val();
        self.out.s_axis.valid.next = self.s_v.q.val();
        self.out.s_axis.data.next = self.s_data.q.val();
        self.out.s_axis.last.next = self.s_last.q.val();
        self.out.s_axis.keep.next = !(self.c_ones_w.val()
            << (bit_cast::<8, 6>(self.s_words.q.val() & self.c_kmask.val()) << 2));
        // Sequence numbers, from the stage's registers: the beat carries its segment's first
        // sequence number (seq_out when it starts the segment).
        self.out.s_axis.user.next = self.seg_seq.q.val();
        if self.seg_first.q.val() {
            self.out.s_axis.user.next = self.seq_out.q.val();
        }
        if self.s_v.q.val() {
            self.seq_out.d.next = self.seq_out.q.val()
                + (bit_cast::<32, 6>(self.s_words.q.val() & self.c_kmask.val()) << 2);
            self.seg_first.d.next = self.s_last.q.val();
            if self.seg_first.q.val() {
                self.seg_seq.d.next = self.seq_out.q.val();
            }
        }
        // Gearbox state. acc: the fragment's leftover words (rot) after a full beat went out or
        // after a chain, else merged (acc's words stay in lanes 0..c, whatever else happened).
        self.acc_m.d.next = self.gb.merged.val();
        self.acc_r.d.next = self.gb.rot.val();
        self.acc_use_r.d.next = self.rdy.val()
            & self.hv.val()
            & (self.c_full.q.val() | (self.mg.val() & self.k_gt.val()));
        if !self.rdy.val() {
            self.room_next.next = self.room.q.val();
            self.c_next.next = self.c_q.val();
            self.closing.d.next = self.closing.q.val();
            self.pend.d.next = self.pend.q.val();
            self.c_full.d.next = self.c_full.q.val();
            self.st_ok.d.next = self.st_ok.q.val();
        }
        self.room.d.next = self.room_next.val();
        self.c.d.next = self.c_next.val();
        // The rotation for the next fragment: c's next value modulo a beat (a register of its
        // own beside c, for the rotation's fanout).
        self.rot_amt.d.next = self.c_next.val() & self.c_wmask.val();

        // ---- F1..F3: the FPDU's wire length and the fit decision. ----
        self.s_axis.ready.next = self.adv.val();
        self.in_take.next = self.s_axis.valid.val() & self.adv.val();
        self.in_first.next = !self.in_mid.q.val();
        // Words in the input beat (keep is contiguous, whole words).
        self.kw.keep.next = self.s_axis.keep.val();
        self.in_n.next = self.kw.words.val();
        // F1: a leading Marker when the FPDU starts on a Marker position; y = P + a' - 2 with
        // a' = 1 after a leading Marker, else the position a.
        self.in_p.next = bit_cast::<16, 14>(self.s_axis.user.val().get_value_tx_fpdu_words());
        self.in_lead.next =
            self.s_axis.user.val().get_value_tx_fpdu_markers() & self.ipos_zero.q.val();
        self.in_a1m2.next = self.ipos_m2.q.val();
        if self.in_lead.val() {
            self.in_a1m2.next = 0xFFFF.into();
        }
        if self.adv.val() {
            self.f1_v.d.next = self.in_take.val();
            self.f1_data.d.next = self.s_axis.data.val();
            self.f1_n.d.next = self.in_n.val();
            self.f1_last.d.next = self.s_axis.last.val();
            self.f1_first.d.next = self.in_first.val();
            self.f1_pl.d.next = self.in_p.val() + bit_cast::<16, 1>(self.in_lead.val().into());
            self.f1_y.d.next = self.in_p.val() + self.in_a1m2.val();
            self.f1_markers.d.next = self.s_axis.user.val().get_value_tx_fpdu_markers();
            self.f1_push.d.next = self.s_axis.user.val().get_value_tx_fpdu_push();
        }
        // The next position less 2, modulo 128, from ipos_m2's low bits (the position less 2
        // modulo 128); 126 and 127 are positions 0 and 1, whose a - 2 is negative (the 16-bit
        // value sign-extended from them). Each word count k's next value (ipos_m2 + k, its zero
        // test and sign extension) is worked out from the register beside the beat, and the
        // beat's word count selects one (a function of a few keep bits), so no adder or
        // comparison follows the input's keep.
        self.ipos_sel.next = 0.into();
        self.ipos_zsel.next = false;
        for k in 0..(W / 4 + 1) {
            self.ipos_k[k].next = ((self.ipos_m2.q.val() & 127) + self.c_k16[k].val()) & 127;
            // The sum is 126 or 127 (sign extension), or 126 (position 0), tested on the
            // register itself (equal to 126 - k or 127 - k mod 128), not after the adder.
            self.ipos_k16[k].next = self.ipos_k[k].val();
            self.ipos_z[k].next = (self.ipos_m2.q.val() & 127) == self.c_z[k].val();
            if self.ipos_z[k].val() | ((self.ipos_m2.q.val() & 127) == self.c_z1[k].val()) {
                self.ipos_k16[k].next = self.ipos_k[k].val() | 0xFF80;
            }
            self.n_is[k].next = self.in_n.val() == self.c_k6[k].val();
            if self.n_is[k].val() {
                self.ipos_sel.next = self.ipos_sel.val() | self.ipos_k16[k].val();
                self.ipos_zsel.next = self.ipos_zsel.val() | self.ipos_z[k].val();
            }
        }
        if self.in_take.val() {
            self.in_mid.d.next = !self.s_axis.last.val();
            self.ipos_zero.d.next = self.ipos_zsel.val();
            self.ipos_m2.d.next = self.ipos_sel.val();
        }
        // F2: m = ceil((P - room) / 127) = q + floor((q + r) / 127), y = 128q + r (q + r < 255).
        self.q.next = self.f1_y.q.val() >> 7;
        if self.adv.val() {
            self.e2_v.d.next = self.f1_v.q.val();
            self.e2_data.d.next = self.f1_data.q.val();
            self.e2_n.d.next = self.f1_n.q.val();
            self.e2_last.d.next = self.f1_last.q.val();
            self.e2_first.d.next = self.f1_first.q.val();
            self.e2_ssum.d.next = bit_cast::<8, 16>(self.q.val() + (self.f1_y.q.val() & 127));
            self.e2_pl.d.next = self.f1_pl.q.val();
            self.e2_base.d.next = self.f1_pl.q.val() + self.q.val();
            self.e2_base1.d.next = self.f1_pl.q.val() + self.q.val() + 1;
            self.e2_base2.d.next = self.f1_pl.q.val() + self.q.val() + 2;
            // Markers inside when P + a' > 128, i.e. y > 126.
            self.e2_needm.d.next = self.f1_markers.q.val() & (self.f1_y.q.val() > 126);
            self.e2_push.d.next = self.f1_push.q.val();
        }
        // F2b: the wire length, lead + P + m words (q + 0, 1 or 2 by q + r).
        // q + r >= 127 and >= 254 as bit tests (bit 7 or the low seven bits all ones; the upper
        // seven bits all ones), not carry chains.
        self.m_extra.next = self.e2_base.q.val();
        if ((self.e2_ssum.q.val() >> 7) != 0) | ((self.e2_ssum.q.val() & 127) == 127) {
            self.m_extra.next = self.e2_base1.q.val();
        }
        if (self.e2_ssum.q.val() >> 1) == 127 {
            self.m_extra.next = self.e2_base2.q.val();
        }
        if self.adv.val() {
            self.f2_v.d.next = self.e2_v.q.val();
            self.f2_data.d.next = self.e2_data.q.val();
            self.f2_n.d.next = self.e2_n.q.val();
            self.f2_last.d.next = self.e2_last.q.val();
            self.f2_first.d.next = self.e2_first.q.val();
            self.f2_wire.d.next = self.e2_pl.q.val();
            if self.e2_needm.q.val() {
                self.f2_wire.d.next = self.m_extra.val();
            }
            self.f2_push.d.next = self.e2_push.q.val();
        }
        // F3: does the FPDU fit the open segment? (All in 4-octet words; EMSS is sampled when a
        // segment opens, and for the oversize test, per FPDU.)
        self.emss.next = self.cfg_emss.val();
        if self.cfg_emss.val() < 128 {
            self.emss.next = 128.into();
        }
        self.emw_q.d.next = self.emss.val() >> 2;
        self.emw.next = self.emw_q.q.val();
        self.over.next = self.f2_wire.q.val() > self.emw.val();
        self.gt_space.next = self.f2_wire.q.val() > self.space.q.val();
        self.cb.next = self.open_q.q.val() & (self.over.val() | self.gt_space.val());
        self.ca.next = self.f2_push.q.val() | self.over.val();
        self.open_n.next = self.open_q.q.val();
        // The piece accounting of an oversize FPDU, for F2's beat (never cut in its first beat:
        // a piece is at least 32 words, a beat at most 16).
        self.small_left.next = (self.piece_left.q.val() & 0xFFC0) == 0;
        self.split.next = self.fp_over.q.val()
            & !self.f2_first.q.val()
            & self.small_left.val()
            & (bit_cast::<6, 16>(self.piece_left.q.val()) < self.f2_n.q.val());
        self.piece_end.next = self.fp_over.q.val()
            & !self.f2_first.q.val()
            & self.small_left.val()
            & (bit_cast::<6, 16>(self.piece_left.q.val()) <= self.f2_n.q.val());
        if self.adv.val() {
            self.f3_v.d.next = self.f2_v.q.val();
            self.f3_data.d.next = self.f2_data.q.val();
            self.f3_n.d.next = self.f2_n.q.val();
            self.f3_last.d.next = self.f2_last.q.val();
            self.f3_first.d.next = self.f2_first.q.val();
            self.f3_cb.d.next = self.cb.val();
            self.f3_split.d.next = self.split.val();
            self.f3_cut.d.next = bit_cast::<6, 16>(self.piece_left.q.val());
            self.f3_piece_end.d.next = self.piece_end.val();
            self.f3_phase.d.next = false;
            self.f3_hold.d.next = self.f2_v.q.val() & self.split.val();
            if self.f2_v.q.val() {
                if self.piece_end.val() {
                    self.piece_left.d.next = self.fp_emw.q.val()
                        - (bit_cast::<16, 6>(self.f2_n.q.val()) - self.piece_left.q.val());
                } else {
                    self.piece_left.d.next =
                        self.piece_left.q.val() - bit_cast::<16, 6>(self.f2_n.q.val());
                }
            }
            if self.f2_v.q.val() & self.f2_first.q.val() {
                self.fp_ca.d.next = self.ca.val();
                self.fp_over.d.next = self.over.val();
                self.fp_emw.d.next = self.emw.val();
                self.piece_left.d.next = self.emw.val() - bit_cast::<16, 6>(self.f2_n.q.val());
                // A pushed or oversize FPDU closes its segment; any other leaves one open (its
                // own or the one it joined), so open_q does not wait for the fit comparison.
                // space is loaded either way, since with no segment open it is not read: a new
                // segment's when none is open or the FPDU does not fit the open one (cb without
                // its oversize term: an oversize FPDU closes the segment, so what space gets
                // then does not matter). Only the comparison's carry chain and one LUT (open_q,
                // gt_space, the two candidates) come before it.
                self.open_n.next = !self.ca.val();
                if !self.open_q.q.val() | self.gt_space.val() {
                    self.space.d.next = self.emw.val() - self.f2_wire.q.val();
                } else {
                    self.space.d.next = self.space.q.val() - self.f2_wire.q.val();
                }
                self.over_q.d.next = self.over.val();
            }
        }

        // The idle limit closed the segment: the next FPDU opens a new one (the F stages are
        // empty, so no decision on the open segment is under way).
        if self.flush.val() & self.out.s_axis.ready.val() {
            self.open_n.next = false;
        }
        if self.rst.val() {
            self.open_n.next = false;
        }
        self.open_q.d.next = self.open_n.val();

        // Reset: sequence number and stream position from the settings.
        self.pos.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.ipos_zero.d.next = bit_cast::<7, 32>(self.pos.val() >> 2) == 0;
            self.ipos_m2.d.next = bit_cast::<16, 7>(bit_cast::<7, 32>(self.pos.val() >> 2)) - 2;
            self.seq_out.d.next = self.cfg_seq.val();
            self.seg_first.d.next = true;
            self.s_v.d.next = false;
            self.in_mid.d.next = false;
            self.f1_v.d.next = false;
            self.e2_v.d.next = false;
            self.f2_v.d.next = false;
            self.f3_v.d.next = false;
            self.f3_phase.d.next = false;
            self.f3_hold.d.next = false;
            self.c.d.next = 0.into();
            self.room.d.next = self.c_words.val();
            self.c_full.d.next = false;
            self.closing.d.next = false;
            self.pend.d.next = false;
            self.st_ok.d.next = true;
            self.rot_amt.d.next = 0.into();
            self.over_q.d.next = false;
            self.idle_left.d.next = self.cfg_idle.val();
            self.idle_hit.d.next = false;
        }

        // ---- W >= TX_ROTATE_AHEAD_FROM_W: the second fragment precomputed. ----
        for i in 0..self.f3_rest.len() {
            self.f3_rest[i].clock.next = self.clock.val();
            self.f3_rest[i].d.next = self.f3_rest[i].q.val();
            if self.adv.val() {
                self.f3_rest[i].d.next = self.f2_data.q.val()
                    >> (bit_cast::<16, 6>(
                        bit_cast::<6, 16>(self.piece_left.q.val()) & self.c_wmask.val(),
                    ) << 5);
            }
            self.head.s_axis.data.next = self.f3_data.q.val();
            if self.f3_split.q.val() & self.f3_phase.q.val() {
                self.head.s_axis.data.next = self.f3_rest[i].q.val();
            }
        }
    }
}
