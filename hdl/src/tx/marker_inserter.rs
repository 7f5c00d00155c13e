//! `TxMarkerInserter`: puts a Marker at every 512th octet of the stream (RFC 5044 4.2, 4.3).
//!
//! FPDUs without Markers in (from [`super::framer::TxFramer`]), FPDUs with Markers out. A Marker
//! is 4 octets, RESERVED (0) then FPDUPTR (16 bits, big-endian): the number of octets from the
//! FPDU's ULPDU_Length field to the Marker. A Marker that falls just before an FPDU's
//! ULPDU_Length field carries FPDUPTR 0 and belongs to that FPDU (4.3, 4.4 rule 2); one that falls
//! between the PAD and the CRC field belongs to the current FPDU (4.4 rule 1). So, per FPDU: a
//! Marker goes in front of every word of the FPDU that would otherwise start at a Marker
//! position, and none after its last word (the CRC field).
//!
//! Every FPDU and every Marker is a whole number of 4-octet words at 4-octet aligned stream
//! positions, so the block works on 32-bit word lanes, W/4 per beat, with at most one Marker per
//! beat (W/4 <= 16 < 127 words between Markers). Three stages:
//!
//! ```text
//!  s_axis ─► in (register slice) ─► decide ─► mid (register slice) ─► expand ─► head (register slice) ─► gearbox ─► out (2-slot queue) ─► m_axis
//!   tb = FPDU words before the next Marker position, counted from this beat's lane 0:
//!   tb < n  ->  a Marker before word tb: n + 1 words (lanes 0..W/4-1, and one more word)
//!   tb' = tb < n ? tb + 127 - n : tb - n   (mod 128; tb < n is the borrow of tb - n)
//!  expand: the decided beat's words at and after lane tb move up one lane, the Marker in lane tb
//!  gearbox: acc[0..c) ++ expanded beat; full beats out, the rest kept (an extra beat when full)
//! ```
//! The decide stage's loop is one 7-bit compare and subtract per beat (and FPDUPTR's word
//! count); the expansion by lane masks works on the registered decision, in a cycle of its own;
//! the gearbox never looks at Markers.
//! The gearbox's rotation and merge are the shared [`crate::gearbox::Gearbox`] on 4-octet words.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq`, `cfg_origin` | in | 32 | TCP sequence number of the stream's first octet and of the marker origin; the stream position `cfg_seq - cfg_origin` (mod 2^32) is loaded while `rst` is high |
//! | `s_axis` | in | 8W | FPDUs without Markers, one per packet, lane 0 first, full beats but the last; `user` as [`super::TX_FPDU_USER`] (bit 14: Markers on for this FPDU) |
//! | `m_axis` | out | 8W | the same FPDUs with their Markers; `user` passed through |
//! | `cfg_misaligned` | out | 1 | `cfg_seq - cfg_origin` was not a multiple of 4 at reset (RFC 5044 4.3 puts FPDUs on 4-octet boundaries); the low two bits are then ignored |
//!
//! With Markers off for an FPDU (user bit 14 low) the FPDU passes unchanged and the stream
//! position still advances, as in the golden framer.
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`. From W = 16
//! ([`crate::tx::TX_WIDE_FORMS_FROM_W`]) the output data is always the gearbox's merged beat
//! (with a tail or a full `acc` waiting it equals `acc` in the lanes kept), without the select
//! of `acc` on the data path; W = 4 and 8 keep the select and their Verilog text.
//!
//! From W = 64 ([`crate::tx::TX_ROTATE_AHEAD_FROM_W`]), the gearbox's rotation moves two stages
//! earlier, into the decide stage.
//! The gearbox takes a beat of an FPDU with `c` equal to the Markers put into the FPDU's earlier
//! beats, modulo W/4: `c` is 0 at an FPDU's first beat (after the last beat of the one before,
//! nothing or a tail is held, and a tail goes out before the next take), every beat but the
//! last is full and so adds its Marker (if any) to `c`, and a full `acc` (`c` = W/4, that is 0
//! modulo W/4) goes out before the next take. The decide stage keeps that count (`rd`), rotates
//! the beat by it and builds the lane masks in the rotated lanes (tb compared with registers
//! `ul` that hold each lane's word index before rotation, stepped with `rd`, where the narrow
//! form compares with constants), and the expand stage works in the rotated lanes (its
//! words after the Marker move up one lane around the beat; the word pushed out is the one
//! that lands on lane `rd`, picked by a one-hot count of the expand stage's own, `re`). The
//! gearbox then only merges: its select is decoded from `c`, which no longer drives every
//! lane's rotation multiplexers (the limit at W = 64 before; README, transmit path, stop 70).
//! ```text
//!  wide form:  decide: rotate by rd ─► mid ─► expand (rotated lanes; extra = lane re) ─► head ─► merge by c ─► out
//! ```
//!
//! ### Latency and throughput
//! Four cycles (an input register, the decided-beat slice, the head slice, the output queue;
//! the decided-beat slice keeps the lane masks out of the decision's cycle; `m_axis` is a 2:1
//! multiplexer of registers, see [`crate::stream_outq_rr::StreamOutQRr`], its `ready` a register). One output beat per cycle; the input is held one cycle
//! whenever Markers have pushed a whole beat's worth of words into `acc` (once per W/4 Markers)
//! and for the last beat of an FPDU whose words no longer fit the beat.
//!
//! ### Reset
//! `rst` loads the stream position, empties `acc` and the register slices.

use crate::gearbox::Gearbox;
use crate::keep_words::KeepWords;
use crate::lane_select::LaneSelect;
use crate::sideband::TxFpduUserFields;
use crate::stream::{check_stream_params, ones_at, StreamSink, StreamSource};
use crate::stream_outq_rr::StreamOutQRr;
use crate::stream_skid::StreamSkid;
use crate::tx::{wide_entries, TX_FPDU_USER};
use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// Registered input sideband (inside the block): [`crate::sideband::TxFpduUser`] and the
    /// words in the beat.
    InsInUser, prefix ins_in, bits 29, {
        /// As [`crate::sideband::TxFpduUser`] (all of it).
        fpdu: Bits<TX_FPDU_USER> = 0,
        /// Words in the beat.
        words: Bits<6> = TX_FPDU_USER,
        /// Words in the beat plus one (for the FPDUPTR count after an inner Marker).
        words_p1: Bits<6> = TX_FPDU_USER + 6,
    }
}
const PRE_USER: usize = InsInUser::BITS;

crate::sideband::sideband! {
    /// Decided-beat sideband (inside the block), between the decision and the expansion: where
    /// this beat's Marker goes and what it says.
    InsMidUser, prefix ins_mid, bits TX_FPDU_USER + 54, {
        /// As [`crate::sideband::TxFpduUser`] (all of it).
        fpdu: Bits<TX_FPDU_USER> = 0,
        /// Words in the expanded beat: n, or n + 1 when a Marker goes in.
        words: Bits<6> = TX_FPDU_USER,
        /// Lanes (bit j: lane j) that keep their word: below the Marker, or all of them when
        /// no Marker goes into the beat. (At W = 64 the lanes are rotated with the beat, and
        /// "below" counts from the lane of the beat's word 0.)
        lo: Bits<16> = TX_FPDU_USER + 6,
        /// The lane that takes the Marker (none when no Marker goes into the beat); the lanes
        /// in neither take the word of the lane below (at W = 64, around the beat: lane 0
        /// takes lane W/4 - 1).
        at: Bits<16> = TX_FPDU_USER + 22,
        /// FPDUPTR of the Marker, in octets.
        ptr: Bits<16> = TX_FPDU_USER + 38,
    }
}
const MID_USER: usize = InsMidUser::BITS;

crate::sideband::sideband! {
    /// Expanded-beat sideband (inside the block), on every expanded beat.
    ExpUser, prefix exp, bits TX_FPDU_USER + 38, {
        /// As [`crate::sideband::TxFpduUser`] (all of it).
        fpdu: Bits<TX_FPDU_USER> = 0,
        /// Words in the expanded beat: n, or n + 1 when a Marker went in.
        words: Bits<6> = TX_FPDU_USER,
        /// The word pushed out above lane W/4 - 1 when there are W/4 + 1 (at W = 64, the
        /// beat's last word before rotation, taken from the lane of its word 0).
        extra: Bits<32> = TX_FPDU_USER + 6,
    }
}
const EXP_USER: usize = ExpUser::BITS;

/// The Marker inserter; see the module documentation.
#[derive(LogicBlock)]
pub struct TxMarkerInserter<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (loads the stream position).
    pub rst: Signal<In, Bit>,
    /// Sequence number of the stream's first octet.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// FPDUs without Markers.
    pub s_axis: StreamSink<W, B, TX_FPDU_USER>,
    /// FPDUs with Markers.
    pub m_axis: StreamSource<W, B, TX_FPDU_USER>,
    /// The configured stream position was not a multiple of 4.
    pub cfg_misaligned: Signal<Out, Bit>,
    pre: StreamSkid<W, B, PRE_USER>,
    mid: StreamSkid<W, B, MID_USER>,
    head: StreamSkid<W, B, EXP_USER>,
    out: StreamOutQRr<W, B, TX_FPDU_USER>,
    // Decide stage: FPDU words before the next Marker position (from the next beat's lane 0),
    // whether that is inside a beat, FPDUPTR of lane 0 in words (qw + qw_inc: the last beat's
    // inner Marker is added a beat late, as a carry in), inside an FPDU.
    tb: DFF<Bits<7>>,
    tb_in: DFF<Bit>,
    qw: DFF<Bits<16>>,
    qw_inc: DFF<Bit>,
    in_mid: DFF<Bit>,
    misaligned: DFF<Bit>,
    // Gearbox: words waiting (lanes 0..c, acc is acc_h or acc_n as acc_use_n says), full, an
    // FPDU's last words waiting, the FPDU's sideband.
    acc_h: DFF<Bits<B>>,
    acc_n: DFF<Bits<B>>,
    acc_use_n: DFF<Bit>,
    c: DFF<Bits<6>>,
    c_full: DFF<Bit>,
    tail: DFF<Bit>,
    user_q: DFF<Bits<TX_FPDU_USER>>,
    // Constants.
    c_ones_w: Constant<Bits<W>>,
    c_words: Constant<Bits<6>>,
    c_words2: Constant<Bits<7>>,
    c_kmask: Constant<Bits<6>>,
    c_top: Constant<Bits<16>>,
    c_lane7: Vec<Constant<Bits<7>>>,
    c_lane_mask: Vec<Constant<Bits<B>>>,
    c_lane_bit: Vec<Constant<Bits<16>>>,
    kw: KeepWords<W>,
    // Decide and expand stages, combinational.
    e_take: Signal<Local, Bit>,
    p_user: Signal<Local, Bits<PRE_USER>>,
    p_fpdu: Signal<Local, Bits<TX_FPDU_USER>>,
    p_data: Signal<Local, Bits<B>>,
    n: Signal<Local, Bits<6>>,
    n1: Signal<Local, Bits<6>>,
    markers: Signal<Local, Bit>,
    ins: Signal<Local, Bit>,
    lead: Signal<Local, Bit>,
    ptr: Signal<Local, Bits<16>>,
    mid_user: Signal<Local, Bits<MID_USER>>,
    m_user: Signal<Local, Bits<MID_USER>>,
    m_data: Signal<Local, Bits<B>>,
    put: Signal<Local, Bit>,
    lo_w: Signal<Local, Bits<16>>,
    at_w: Signal<Local, Bits<16>>,
    m_lo: Signal<Local, Bits<16>>,
    m_at: Signal<Local, Bits<16>>,
    marker: Signal<Local, Bits<32>>,
    marker_rep: Signal<Local, Bits<B>>,
    mask_lo: Signal<Local, Bits<B>>,
    mask_at: Signal<Local, Bits<B>>,
    exp_b: Signal<Local, Bits<B>>,
    exp_user: Signal<Local, Bits<EXP_USER>>,
    n_exp: Signal<Local, Bits<6>>,
    tb_next: Signal<Local, Bits<7>>,
    d0: Signal<Local, Bits<8>>,
    d1: Signal<Local, Bits<7>>,
    ptr_w: Signal<Local, Bits<17>>,
    qw_sum: Signal<Local, Bits<17>>,
    pos: Signal<Local, Bits<32>>,
    // Gearbox, combinational.
    h_n: Signal<Local, Bits<6>>,
    c_q: Signal<Local, Bits<6>>,
    h_hi: Signal<Local, Bits<32>>,
    h_last: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    total: Signal<Local, Bits<7>>,
    gt: Signal<Local, Bit>,
    acc: Signal<Local, Bits<B>>,
    gb: Gearbox<B>,
    words_out: Signal<Local, Bits<7>>,
    olast: Signal<Local, Bit>,
    // The wide form (W >= TX_WIDE_FORMS_FROM_W; empty below): the output data is the merged
    // beat in every case. With a tail or a full acc waiting the merged beat is acc in the lanes
    // kept (c lanes held; all of them when acc is full), so the select of acc on the data path
    // (limiting at W = 16 and 32) is not needed; the lanes above keep are not looked at (as on
    // every stream here).
    merged_only: Vec<Constant<Bit>>,
    // At W = 64 (TX_ROTATE_AHEAD_FROM_W; empty below): the rotation moves ahead of the
    // gearbox. A beat of an FPDU is taken by the gearbox with `c` equal to the Markers put into
    // the FPDU's earlier beats, modulo W/4 (`c` is 0 at an FPDU's first beat, every beat but
    // the last is full, and a full `acc` is emitted before the next take), so the decide stage
    // keeps that count itself (`rd`) and rotates the beat there, its lane masks built rotated
    // (from `ul`, each lane's word index before rotation); the expand stage works in the
    // rotated lanes (its own count, one-hot: `re`); the gearbox only merges, its select
    // decoded from `c` instead of `c` driving every lane's rotation multiplexers.
    rd: Vec<DFF<Bits<8>>>,
    gb_d: Vec<Gearbox<B>>,
    lo_r: Vec<Signal<Local, Bits<MID_USER>>>,
    at_r: Vec<Signal<Local, Bits<MID_USER>>>,
    mid_user_r: Vec<Signal<Local, Bits<MID_USER>>>,
    re: Vec<DFF<Bits<16>>>,
    sh_r: Vec<Signal<Local, Bits<B>>>,
    exp_r: Vec<Signal<Local, Bits<B>>>,
    extra_sel: Vec<LaneSelect<B, EXP_USER>>,
    exp_user_r: Vec<Signal<Local, Bits<EXP_USER>>>,
    extra_rep: Vec<Signal<Local, Bits<B>>>,
    c_lo_at: Vec<Constant<Bits<16>>>,
    c_at_at: Vec<Constant<Bits<16>>>,
    c_mid_keep: Vec<Constant<Bits<MID_USER>>>,
    c_extra_at: Vec<Constant<Bits<16>>>,
    c_exp_keep: Vec<Constant<Bits<EXP_USER>>>,
    ul: Vec<DFF<Bits<7>>>,
    c_bit_mid: Vec<Constant<Bits<MID_USER>>>,
    c_lanes16: Vec<Constant<Bits<16>>>,
    c_lanes8: Vec<Constant<Bits<8>>>,
    c_rot1_r: Vec<Constant<Bits<16>>>,
    c_lsh: Vec<Constant<Bits<16>>>,
}

impl<const W: usize, const B: usize> TxMarkerInserter<W, B> {
    /// Builds the inserter; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("TxMarkerInserter", W, B, TX_FPDU_USER);
        crate::tx::check_tx_width("TxMarkerInserter", W);
        let words = W / 4;
        let wide = crate::tx::tx_wide_forms(W);
        let ahead = crate::tx::tx_rotate_ahead(W);
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            cfg_misaligned: Default::default(),
            pre: StreamSkid::loading_while_empty(),
            mid: StreamSkid::loading_while_empty(),
            head: StreamSkid::loading_while_empty(),
            out: StreamOutQRr::new(),
            tb: Default::default(),
            tb_in: Default::default(),
            qw: Default::default(),
            qw_inc: Default::default(),
            in_mid: Default::default(),
            misaligned: Default::default(),
            acc_h: Default::default(),
            acc_n: Default::default(),
            acc_use_n: Default::default(),
            c: Default::default(),
            c_full: Default::default(),
            tail: Default::default(),
            user_q: Default::default(),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_words: Constant::new((words as u64).into()),
            c_words2: Constant::new(((2 * words) as u64).into()),
            c_kmask: Constant::new(((words + 2).next_power_of_two() as u64 - 1).into()),
            c_top: c16(B - 32),
            c_lane7: (0..words).map(|j| Constant::new((j as u64).into())).collect(),
            c_lane_mask: (0..words).map(|j| Constant::new(ones_at(32 * j, 32))).collect(),
            c_lane_bit: (0..words).map(|j| Constant::new((1u64 << j).into())).collect(),
            kw: KeepWords::new(),
            e_take: Default::default(),
            p_user: Default::default(),
            p_fpdu: Default::default(),
            p_data: Default::default(),
            n: Default::default(),
            n1: Default::default(),
            markers: Default::default(),
            ins: Default::default(),
            lead: Default::default(),
            ptr: Default::default(),
            mid_user: Default::default(),
            m_user: Default::default(),
            m_data: Default::default(),
            put: Default::default(),
            lo_w: Default::default(),
            at_w: Default::default(),
            m_lo: Default::default(),
            m_at: Default::default(),
            marker: Default::default(),
            marker_rep: Default::default(),
            mask_lo: Default::default(),
            mask_at: Default::default(),
            exp_b: Default::default(),
            exp_user: Default::default(),
            n_exp: Default::default(),
            tb_next: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            ptr_w: Default::default(),
            qw_sum: Default::default(),
            pos: Default::default(),
            h_n: Default::default(),
            c_q: Default::default(),
            h_hi: Default::default(),
            h_last: Default::default(),
            take: Default::default(),
            emit: Default::default(),
            total: Default::default(),
            gt: Default::default(),
            acc: Default::default(),
            gb: Gearbox::new("TxMarkerInserter", 32),
            words_out: Default::default(),
            olast: Default::default(),
            merged_only: (0..wide).map(|_| Constant::new(true)).collect(),
            rd: wide_entries(ahead),
            gb_d: (0..ahead).map(|_| Gearbox::new("TxMarkerInserter", 32)).collect(),
            lo_r: wide_entries(ahead),
            at_r: wide_entries(ahead),
            mid_user_r: wide_entries(ahead),
            re: wide_entries(ahead),
            sh_r: wide_entries(ahead),
            exp_r: wide_entries(ahead),
            extra_sel: wide_entries(ahead),
            exp_user_r: wide_entries(ahead),
            extra_rep: wide_entries(ahead),
            c_lo_at: (0..ahead).map(|_| c16(InsMidUser::LO_AT)).collect(),
            c_at_at: (0..ahead).map(|_| c16(InsMidUser::AT_AT)).collect(),
            c_mid_keep: (0..ahead)
                .map(|_| {
                    Constant::new(
                        !(ones_at::<MID_USER>(InsMidUser::LO_AT, 16)
                            | ones_at::<MID_USER>(InsMidUser::AT_AT, 16)),
                    )
                })
                .collect(),
            c_extra_at: (0..ahead).map(|_| c16(ExpUser::EXTRA_AT)).collect(),
            c_exp_keep: (0..ahead)
                .map(|_| Constant::new(!ones_at::<EXP_USER>(ExpUser::EXTRA_AT, 32)))
                .collect(),
            ul: wide_entries(ahead * words),
            c_bit_mid: (0..ahead * words).map(|j| Constant::new(ones_at(j, 1))).collect(),
            c_lanes16: (0..ahead).map(|_| c16((1 << words) - 1)).collect(),
            c_lanes8: (0..ahead).map(|_| Constant::new(((words - 1) as u64).into())).collect(),
            c_rot1_r: (0..ahead).map(|_| c16(words - 1)).collect(),
            c_lsh: (0..ahead * words).map(|j| c16(32 * j)).collect(),
        }
    }
}

impl<const W: usize, const B: usize> Default for TxMarkerInserter<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TxMarkerInserter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, tb, tb_in, qw, qw_inc, in_mid, misaligned, acc_h, acc_n, acc_use_n, c,
            c_full, tail, user_q
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
        self.cfg_misaligned.next = self.misaligned.q.val();

        // ---- Input register: the beat and its word count. ----
        self.pre.clock.next = self.clock.val();
        self.pre.rst.next = self.rst.val();
        // Words in the beat (keep is contiguous, whole words): the position of its edge.
        self.kw.keep.next = self.s_axis.keep.val();
        self.n.next = self.kw.words.val();
        self.pre.s_axis.data.next = self.s_axis.data.val();
        self.pre.s_axis.keep.next = self.s_axis.keep.val();
        self.pre.s_axis.user.next = 0.into();
        self.pre.s_axis.user.next.set_value_ins_in_fpdu(self.s_axis.user.val());
        self.pre.s_axis.user.next.set_value_ins_in_words(self.n.val());
        self.pre.s_axis.user.next.set_value_ins_in_words_p1(self.n.val() + 1);
        self.pre.s_axis.last.next = self.s_axis.last.val();
        self.pre.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.pre.s_axis.ready.val();

        // ---- Decide: where this beat's Marker goes (if any) and its FPDUPTR. ----
        self.p_user.next = self.pre.m_axis.user.val();
        self.p_data.next = self.pre.m_axis.data.val();
        self.pre.m_axis.ready.next = self.mid.s_axis.ready.val();
        self.e_take.next = self.pre.m_axis.valid.val() & self.mid.s_axis.ready.val();
        self.n.next = self.p_user.val().get_value_ins_in_words();
        self.n1.next = self.p_user.val().get_value_ins_in_words_p1();
        self.p_fpdu.next = self.p_user.val().get_value_ins_in_fpdu();
        self.markers.next = self.p_fpdu.val().get_value_tx_fpdu_markers();
        // A Marker before word tb of this beat, if it is one of the beat's words: tb < n is the
        // borrow of d0 = tb - n.
        self.d0.next = bit_cast::<8, 7>(self.tb.q.val()) - bit_cast::<8, 6>(self.n.val());
        self.ins.next = self.markers.val() & self.d0.val().get_bit(7);
        // FPDUPTR: octets from the ULPDU_Length field (word 0 of the FPDU) to the Marker; 0 for
        // the Marker in front of the FPDU.
        self.lead.next = !self.in_mid.q.val() & (self.tb.q.val() == 0);
        // qw + tb + qw_inc as one adder: qw_inc is each operand's extra low bit (the carry in).
        self.ptr_w.next = ((bit_cast::<17, 16>(self.qw.q.val()) << 1)
            | bit_cast::<17, 1>(self.qw_inc.q.val().into()))
            + ((bit_cast::<17, 7>(self.tb.q.val()) << 1)
                | bit_cast::<17, 1>(self.qw_inc.q.val().into()));
        self.ptr.next = bit_cast::<16, 17>(self.ptr_w.val() >> 1) << 2;
        if !self.in_mid.q.val() {
            self.ptr.next = bit_cast::<16, 7>(self.tb.q.val()) << 2;
        }
        self.n_exp.next = self.n.val();
        if self.ins.val() {
            self.n_exp.next = self.n1.val();
        }
        self.mid_user.next = 0.into();
        self.mid_user.next.set_value_ins_mid_fpdu(self.p_fpdu.val());
        self.mid_user.next.set_value_ins_mid_words(self.n_exp.val());
        // The lanes, from tb compared with each lane's index (constants): which keep their
        // word, which takes the Marker.
        self.put.next = self.markers.val() & self.tb_in.q.val();
        self.lo_w.next = 0.into();
        self.at_w.next = 0.into();
        for j in 0..(W / 4) {
            if !self.put.val() | (self.tb.q.val() > self.c_lane7[j].val()) {
                self.lo_w.next = self.lo_w.val() | self.c_lane_bit[j].val();
            }
            if self.put.val() & (self.tb.q.val() == self.c_lane7[j].val()) {
                self.at_w.next = self.at_w.val() | self.c_lane_bit[j].val();
            }
        }
        self.mid_user.next.set_value_ins_mid_lo(self.lo_w.val());
        self.mid_user.next.set_value_ins_mid_at(self.at_w.val());
        self.mid_user.next.set_value_ins_mid_ptr(self.ptr.val());
        self.mid.clock.next = self.clock.val();
        self.mid.rst.next = self.rst.val();
        self.mid.s_axis.valid.next = self.pre.m_axis.valid.val();
        self.mid.s_axis.data.next = self.p_data.val();
        self.mid.s_axis.keep.next = self.c_ones_w.val();
        self.mid.s_axis.user.next = self.mid_user.val();
        self.mid.s_axis.last.next = self.pre.m_axis.last.val();
        // tb' = tb - n, or tb + 127 - n = tb - (n + 1) after a Marker (mod 128); both
        // candidates side by side (n + 1 comes registered with the beat), and whether each is
        // inside a beat from d0.
        self.d1.next =
            bit_cast::<7, 8>(bit_cast::<8, 7>(self.tb.q.val()) - bit_cast::<8, 6>(self.n1.val()));
        self.tb_next.next = bit_cast::<7, 8>(self.d0.val());
        if self.ins.val() {
            self.tb_next.next = self.d1.val();
        }
        // FPDUPTR of the next beat's lane 0 less this beat's inner Marker: qw + qw_inc + n (one
        // adder, qw_inc as the carry in), so the Marker decision (the borrow of tb - n) only
        // loads qw_inc and is off qw's 16 bits.
        self.qw_sum.next = ((bit_cast::<17, 16>(self.qw.q.val()) << 1)
            | bit_cast::<17, 1>(self.qw_inc.q.val().into()))
            + ((bit_cast::<17, 6>(self.n.val()) << 1)
                | bit_cast::<17, 1>(self.qw_inc.q.val().into()));
        if self.e_take.val() {
            self.tb.d.next = self.tb_next.val();
            self.tb_in.d.next =
                bit_cast::<7, 8>(self.d0.val()) < bit_cast::<7, 6>(self.c_words.val());
            if self.ins.val() {
                self.tb_in.d.next = (bit_cast::<7, 8>(self.d0.val()) != 0)
                    & (bit_cast::<7, 8>(self.d0.val()) <= bit_cast::<7, 6>(self.c_words.val()));
            }
            self.in_mid.d.next = !self.pre.m_axis.last.val();
            // FPDUPTR of the next beat's lane 0: this beat's words and inner Marker counted
            // (the leading Marker is not: FPDUPTR counts from the ULPDU_Length field).
            self.qw.d.next = bit_cast::<16, 6>(self.n.val());
            if self.in_mid.q.val() {
                self.qw.d.next = bit_cast::<16, 17>(self.qw_sum.val() >> 1);
            }
            self.qw_inc.d.next = self.ins.val() & !self.lead.val();
        }

        // ---- Expand: one decided beat -> n or n + 1 words, the Marker in place. ----
        self.m_user.next = self.mid.m_axis.user.val();
        self.m_data.next = self.mid.m_axis.data.val();
        self.m_lo.next = self.m_user.val().get_value_ins_mid_lo();
        self.m_at.next = self.m_user.val().get_value_ins_mid_at();
        self.mid.m_axis.ready.next = self.head.s_axis.ready.val();
        // The Marker word: octets 0, 0, FPDUPTR high, FPDUPTR low (lane 0 in bits 7:0).
        self.marker.next = (bit_cast::<32, 16>(self.m_user.val().get_value_ins_mid_ptr() >> 8)
            << 16)
            | (bit_cast::<32, 16>(self.m_user.val().get_value_ins_mid_ptr() & 0xFF) << 24);
        // Words before lane tb stay, the Marker goes to lane tb, the words after move up one
        // lane (the last one into the sideband); with tb outside the beat every word stays.
        // Lane by lane from the registered lane bits (the Marker word in every lane): no
        // barrel shifter by tb and no comparison on the data path.
        self.mask_lo.next = 0.into();
        self.mask_at.next = 0.into();
        self.marker_rep.next = 0.into();
        for j in 0..(W / 4) {
            if self.m_lo.val().get_bit(j) {
                self.mask_lo.next = self.mask_lo.val() | self.c_lane_mask[j].val();
            }
            if self.m_at.val().get_bit(j) {
                self.mask_at.next = self.mask_at.val() | self.c_lane_mask[j].val();
            }
            self.marker_rep.next =
                (self.marker_rep.val() << 32) | bit_cast::<B, 32>(self.marker.val());
        }
        self.exp_b.next = (self.m_data.val() & self.mask_lo.val())
            | (self.marker_rep.val() & self.mask_at.val())
            | ((self.m_data.val() << 32) & !self.mask_lo.val() & !self.mask_at.val());
        self.exp_user.next = 0.into();
        self.exp_user.next.set_value_exp_fpdu(self.m_user.val().get_value_ins_mid_fpdu());
        self.exp_user.next.set_value_exp_words(self.m_user.val().get_value_ins_mid_words());
        self.exp_user
            .next
            .set_value_exp_extra(bit_cast::<32, B>(self.m_data.val() >> self.c_top.val()));
        self.head.s_axis.valid.next = self.mid.m_axis.valid.val();
        self.head.s_axis.data.next = self.exp_b.val();
        self.head.s_axis.keep.next = self.c_ones_w.val();
        self.head.s_axis.user.next = self.exp_user.val();
        self.head.s_axis.last.next = self.mid.m_axis.last.val();

        // ---- Gearbox: acc[0..c) ++ the expanded beat; full beats out. ----
        // Word counts (c <= W/4, n <= W/4 + 1) masked to the bits they need, so that synthesis
        // sees the upper bits are 0 and the sum and comparison stay narrow.
        self.h_n.next = self.head.m_axis.user.val().get_value_exp_words() & self.c_kmask.val();
        self.c_q.next = self.c.q.val() & self.c_kmask.val();
        self.h_hi.next = self.head.m_axis.user.val().get_value_exp_extra();
        self.h_last.next = self.head.m_axis.last.val();
        self.take.next = self.head.m_axis.valid.val()
            & self.out.s_axis.ready.val()
            & !self.tail.q.val()
            & !self.c_full.q.val();
        self.emit.next = self.take.val()
            | (self.out.s_axis.ready.val() & (self.tail.q.val() | self.c_full.q.val()));
        self.head.m_axis.ready.next = self.take.val();
        self.total.next = bit_cast::<7, 6>(self.c_q.val()) + bit_cast::<7, 6>(self.h_n.val());
        self.gt.next = self.total.val() > bit_cast::<7, 6>(self.c_words.val());
        // Data: the expanded beat rotated up by c lanes after acc's c words.
        self.acc.next = self.acc_h.q.val();
        if self.acc_use_n.q.val() {
            self.acc.next = self.acc_n.q.val();
        }
        // The shared gearbox: the beat rotated up by the lanes held, after acc's held lanes.
        self.gb.data.next = self.head.m_axis.data.val();
        self.gb.amt.next = bit_cast::<8, 6>(self.c_q.val());
        self.gb.acc.next = self.acc.val();
        self.gb.hold.next = bit_cast::<8, 6>(self.c_q.val());
        // The output beat: from acc alone (the tail of an FPDU, or acc full), else merged.
        self.out.s_axis.valid.next = self.emit.val();
        self.out.s_axis.data.next = self.gb.merged.val();
        self.out.s_axis.user.next = self.head.m_axis.user.val().get_value_exp_fpdu();
        self.words_out.next = self.c_words2.val() >> 1;
        self.olast.next = self.h_last.val() & !self.gt.val();
        if !self.gt.val() {
            self.words_out.next = self.total.val();
        }
        if self.tail.q.val() | self.c_full.q.val() {
            self.out.s_axis.data.next = self.acc.val();
            self.out.s_axis.user.next = self.user_q.q.val();
            self.words_out.next = bit_cast::<7, 6>(self.c_q.val());
            self.olast.next = self.tail.q.val();
        }
        for i in 0..self.merged_only.len() {
            if self.merged_only[i].val() {
                self.out.s_axis.data.next = self.gb.merged.val();
            }
        }
        self.out.s_axis.last.next = self.olast.val();
        self.out.s_axis.keep.next =
            !(self.c_ones_w.val() << (bit_cast::<8, 7>(self.words_out.val()) << 2));
        // acc: what is left of the expanded beat after a full beat went out (its first c words
        // rotated into lanes 0..c, the extra word in lane c), else unchanged.
        self.acc_h.d.next = self.acc.val();
        self.acc_n.d.next = (self.gb.rot.val() & self.gb.mask.val())
            | (bit_cast::<B, 32>(self.h_hi.val()) << (bit_cast::<16, 6>(self.c_q.val()) << 5));
        self.acc_use_n.d.next = self.take.val();
        if self.take.val() {
            self.user_q.d.next = self.head.m_axis.user.val().get_value_exp_fpdu();
            if self.gt.val() {
                self.c.d.next = bit_cast::<6, 7>(self.total.val()) - self.c_words.val();
                self.c_full.d.next = self.total.val() == self.c_words2.val();
                self.tail.d.next = self.h_last.val();
            } else {
                self.c.d.next = 0.into();
                self.c_full.d.next = false;
                self.tail.d.next = false;
            }
        } else if self.emit.val() {
            self.c.d.next = 0.into();
            self.c_full.d.next = false;
            self.tail.d.next = false;
        }

        // Reset: the stream position from the settings.
        self.pos.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.tb.d.next = bit_cast::<7, 32>((0 - self.pos.val()) >> 2);
            self.tb_in.d.next =
                bit_cast::<7, 32>((0 - self.pos.val()) >> 2) < bit_cast::<7, 6>(self.c_words.val());
            self.misaligned.d.next = (self.pos.val() & 3) != 0;
            self.in_mid.d.next = false;
            self.c.d.next = 0.into();
            self.c_full.d.next = false;
            self.tail.d.next = false;
            self.acc_use_n.d.next = false;
        }

        // ---- W >= TX_ROTATE_AHEAD_FROM_W: the rotation ahead of the gearbox. ----
        for i in 0..self.rd.len() {
            // Decide: the beat rotated up by rd (its lane masks below), the Markers put into the
            // FPDU's earlier beats (mod W/4); 0 again after an FPDU's last beat.
            self.rd[i].clock.next = self.clock.val();
            self.rd[i].d.next = self.rd[i].q.val();
            if self.e_take.val() {
                if self.pre.m_axis.last.val() {
                    self.rd[i].d.next = 0.into();
                } else if self.ins.val() {
                    self.rd[i].d.next = (self.rd[i].q.val() + 1) & self.c_lanes8[i].val();
                }
            }
            if self.rst.val() {
                self.rd[i].d.next = 0.into();
            }
            self.gb_d[i].data.next = self.p_data.val();
            self.gb_d[i].amt.next = self.rd[i].q.val();
            self.gb_d[i].acc.next = 0.into();
            self.gb_d[i].hold.next = 0.into();
            self.mid.s_axis.data.next = self.gb_d[i].rot.val();
            // The lane masks in the rotated lanes, from tb compared with each lane's index in
            // the beat before rotation (ul, registers: lane j shows word (j - rd) mod W/4), as
            // the narrow form compares tb with constants; no rotation behind the decision.
            // (In MID_USER's width, put into mid_user by shifts and masks: hdl_gen's field
            // setters and bit_cast evaluate their operand's width when they generate, which a
            // vector that is empty at some widths cannot give.)
            self.lo_r[i].next = 0.into();
            self.at_r[i].next = 0.into();
            for j in 0..self.ul.len() {
                if !self.put.val() | (self.tb.q.val() > self.ul[j].q.val()) {
                    self.lo_r[i].next = self.lo_r[i].val() | self.c_bit_mid[j].val();
                }
                if self.put.val() & (self.tb.q.val() == self.ul[j].q.val()) {
                    self.at_r[i].next = self.at_r[i].val() | self.c_bit_mid[j].val();
                }
            }
            // ul steps with rd: every lane shows the word one lane further back (a rotation of
            // the registers, no adders); lane j shows word j again after an FPDU's last beat.
            for j in 0..self.ul.len() {
                self.ul[j].clock.next = self.clock.val();
                self.ul[j].d.next = self.ul[j].q.val();
            }
            if self.e_take.val() & self.ins.val() {
                for j in 1..(W / 4) {
                    self.ul[j].d.next = self.ul[j - 1].q.val();
                }
                for j in (W / 4 - 1)..(W / 4) {
                    self.ul[0].d.next = self.ul[j].q.val();
                }
            }
            for j in 0..self.ul.len() {
                if (self.e_take.val() & self.pre.m_axis.last.val()) | self.rst.val() {
                    self.ul[j].d.next = self.c_lane7[j].val();
                }
            }
            self.mid_user_r[i].next = (self.mid_user.val() & self.c_mid_keep[i].val())
                | (self.lo_r[i].val() << self.c_lo_at[i].val())
                | (self.at_r[i].val() << self.c_at_at[i].val());
            self.mid.s_axis.user.next = self.mid_user_r[i].val();

            // Expand, in the rotated lanes: the words after the Marker move up one lane
            // around the beat (lane 0 takes lane W/4 - 1); the word pushed out of the beat
            // lands on the beat's word 0, lane re (one-hot), and goes to the sideband.
            self.re[i].clock.next = self.clock.val();
            self.re[i].d.next = self.re[i].q.val();
            if self.mid.m_axis.valid.val() & self.head.s_axis.ready.val() {
                if self.mid.m_axis.last.val() {
                    self.re[i].d.next = 1.into();
                } else if self.m_user.val().get_value_ins_mid_words() > self.c_words.val() {
                    self.re[i].d.next = ((self.re[i].q.val() << 1)
                        | (self.re[i].q.val() >> self.c_rot1_r[i].val()))
                        & self.c_lanes16[i].val();
                }
            }
            if self.rst.val() {
                self.re[i].d.next = 1.into();
            }
            self.sh_r[i].next = (self.m_data.val() << 32) | (self.m_data.val() >> self.c_top.val());
            self.exp_r[i].next = (self.m_data.val() & self.mask_lo.val())
                | (self.marker_rep.val() & self.mask_at.val())
                | (self.sh_r[i].val() & !self.mask_lo.val() & !self.mask_at.val());
            self.extra_sel[i].data.next = self.sh_r[i].val();
            self.extra_sel[i].sel.next = self.re[i].q.val();
            self.exp_user_r[i].next = (self.exp_user.val() & self.c_exp_keep[i].val())
                | (self.extra_sel[i].word.val() << self.c_extra_at[i].val());
            self.head.s_axis.data.next = self.exp_r[i].val();
            self.head.s_axis.user.next = self.exp_user_r[i].val();

            // Gearbox: the beat comes rotated, so no rotation; acc keeps the beat's first c
            // lanes and the pushed-out word above them (the lanes above c are not looked at).
            self.gb.amt.next = 0.into();
            self.extra_rep[i].next = 0.into();
            for j in 0..(W / 4) {
                self.extra_rep[i].next = self.extra_rep[i].val()
                    | (bit_cast::<B, 32>(self.h_hi.val()) << self.c_lsh[j].val());
            }
            self.acc_n.d.next = (self.head.m_axis.data.val() & self.gb.mask.val())
                | (self.extra_rep[i].val() & !self.gb.mask.val());
        }
    }
}
