//! `TxMarkerInserter`: puts a Marker at every 512th octet of the stream (RFC 5044 4.2, 4.3).
//!
//! FPDUs without Markers in (from [`super::framer::TxFramer`]), FPDUs with Markers out. A Marker
//! is 4 octets, RESERVED (0) then FPDUPTR (16 bits, big-endian): the number of octets from the
//! FPDU's ULPDU_Length field to the Marker. A Marker that falls just before an
//! FPDU's ULPDU_Length field carries FPDUPTR 0 and belongs to that FPDU (4.3, 4.4 rule 2); one
//! that falls between the PAD and the CRC field belongs to the current FPDU (4.4 rule 1). So,
//! per FPDU: a Marker goes in front of every word of the FPDU that would otherwise start at a
//! Marker position, and none after its last word (the CRC field).
//!
//! Every FPDU and every Marker is a whole number of 4-octet words at 4-octet aligned stream
//! positions, so the block works on 32-bit word lanes: W/4 lanes per beat, at most one Marker
//! per beat (W/4 <= 16 < 128 words between Markers).
//!
//! ```text
//!  to_marker = words to the next Marker position; a Marker at lane to_marker when < W/4
//!  body = acc[0..c) ++ input beat            (acc: words pushed out of earlier beats)
//!  out  = body[0..to_marker), Marker, body[to_marker..W/4-1)       (without a Marker: body[0..W/4))
//!  acc' = what is left of body               (one more word per Marker; an extra beat when full)
//! ```
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
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! One cycle (the output register slice). One output beat per cycle; the input is stalled one
//! cycle whenever Markers have pushed a whole beat's worth of words into `acc` (one cycle per
//! W/4 Markers) and for the last beat of an FPDU whose words no longer fit the beat.
//!
//! ### Reset
//! `rst` loads the stream position, empties `acc` and the output slice.

use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_skid::StreamSkid;
use crate::tx::TX_FPDU_USER;
use rust_hdl::prelude::*;

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
    out: StreamSkid<W, B, TX_FPDU_USER>,
    // Words to the next Marker position (mod 128).
    to_marker: DFF<Bits<7>>,
    misaligned: DFF<Bit>,
    // Words pushed out of earlier beats (lanes 0..c) and how many.
    acc: DFF<Bits<B>>,
    c: DFF<Bits<6>>,
    // The FPDU's input has ended; `acc` holds its last words.
    tail: DFF<Bit>,
    // Inside an FPDU (its first output beat has gone), words output so far, it began with a
    // Marker, its sideband.
    in_fpdu: DFF<Bit>,
    owords: DFF<Bits<16>>,
    lead: DFF<Bit>,
    user_q: DFF<Bits<TX_FPDU_USER>>,
    // Constants.
    c_ones: Constant<Bits<B>>,
    c_ones_w: Constant<Bits<W>>,
    c_words: Constant<Bits<6>>,
    c_top: Constant<Bits<16>>,
    c_rot_l: Vec<Constant<Bits<16>>>,
    c_rot_r: Vec<Constant<Bits<16>>>,
    c_cnt: Vec<Constant<Bits<6>>>,
    // Combinational.
    markers: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    n: Signal<Local, Bits<6>>,
    wedge: Signal<Local, Bits<W>>,
    avail: Signal<Local, Bits<6>>,
    mp: Signal<Local, Bit>,
    mk: Signal<Local, Bits<6>>,
    in_b: Signal<Local, Bits<B>>,
    rot: Signal<Local, Bits<B>>,
    mask_c: Signal<Local, Bits<B>>,
    base: Signal<Local, Bits<B>>,
    mask_lo: Signal<Local, Bits<B>>,
    mask_at: Signal<Local, Bits<B>>,
    marker: Signal<Local, Bits<32>>,
    ptr: Signal<Local, Bits<16>>,
    out_b: Signal<Local, Bits<B>>,
    words_out: Signal<Local, Bits<6>>,
    left: Signal<Local, Bits<6>>,
    user: Signal<Local, Bits<TX_FPDU_USER>>,
    start: Signal<Local, Bit>,
    pos: Signal<Local, Bits<32>>,
}

impl<const W: usize, const B: usize> TxMarkerInserter<W, B> {
    /// Builds the inserter; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("TxMarkerInserter", W, B, TX_FPDU_USER);
        crate::tx::check_tx_width("TxMarkerInserter", W);
        let words = W / 4;
        let stages = words.trailing_zeros() as usize;
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            cfg_misaligned: Default::default(),
            out: StreamSkid::new(),
            to_marker: Default::default(),
            misaligned: Default::default(),
            acc: Default::default(),
            c: Default::default(),
            tail: Default::default(),
            in_fpdu: Default::default(),
            owords: Default::default(),
            lead: Default::default(),
            user_q: Default::default(),
            c_ones: Constant::new(Bits::<B>::mask()),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_words: Constant::new((words as u64).into()),
            c_top: c16(B - 32),
            c_rot_l: (0..stages).map(|s| c16(32 << s)).collect(),
            c_rot_r: (0..stages).map(|s| c16(B - (32 << s))).collect(),
            c_cnt: (0..words).map(|k| Constant::new(((k + 1) as u64).into())).collect(),
            markers: Default::default(),
            take: Default::default(),
            emit: Default::default(),
            fin: Default::default(),
            n: Default::default(),
            wedge: Default::default(),
            avail: Default::default(),
            mp: Default::default(),
            mk: Default::default(),
            in_b: Default::default(),
            rot: Default::default(),
            mask_c: Default::default(),
            base: Default::default(),
            mask_lo: Default::default(),
            mask_at: Default::default(),
            marker: Default::default(),
            ptr: Default::default(),
            out_b: Default::default(),
            words_out: Default::default(),
            left: Default::default(),
            user: Default::default(),
            start: Default::default(),
            pos: Default::default(),
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
        dff_setup!(self, clock, to_marker, misaligned, acc, c, tail, in_fpdu, owords, lead, user_q);
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.cfg_misaligned.next = self.misaligned.q.val();

        // Take an input beat when the output can take a beat, the FPDU's input has not ended
        // and acc is not full; emit a beat when taking one, or from acc alone (full, or the tail).
        self.s_axis.ready.next = self.out.s_axis.ready.val()
            & !self.tail.q.val()
            & (self.c.q.val() != self.c_words.val());
        self.take.next = self.s_axis.valid.val()
            & self.out.s_axis.ready.val()
            & !self.tail.q.val()
            & (self.c.q.val() != self.c_words.val());
        self.emit.next = self.take.val()
            | (self.out.s_axis.ready.val()
                & (self.tail.q.val() | (self.c.q.val() == self.c_words.val())));
        self.fin.next = self.tail.q.val() | (self.take.val() & self.s_axis.last.val());
        self.start.next = !self.in_fpdu.q.val();
        self.user.next = self.user_q.q.val();
        if self.take.val() & self.start.val() {
            self.user.next = self.s_axis.user.val();
        }
        self.markers.next = self.user.val().get_bit(14);

        // Words in the input beat (keep is contiguous, whole words): the position of its edge.
        self.wedge.next = 0.into();
        for j in 0..(W / 4 - 1) {
            self.wedge.next = self.wedge.val().replace_bit(
                j,
                self.s_axis.keep.val().get_bit(j * 4) & !self.s_axis.keep.val().get_bit(j * 4 + 4),
            );
        }
        for j in (W / 4 - 1)..(W / 4) {
            self.wedge.next =
                self.wedge.val().replace_bit(j, self.s_axis.keep.val().get_bit(j * 4));
        }
        self.n.next = 0.into();
        for j in 0..(W / 4) {
            if self.wedge.val().get_bit(j) {
                self.n.next = self.n.val() | self.c_cnt[j].val();
            }
        }
        self.in_b.next = self.s_axis.data.val();
        if !self.take.val() {
            self.n.next = 0.into();
        }
        self.avail.next = self.c.q.val() + self.n.val();

        // A Marker in this beat: at lane to_marker, if Markers are on and a word of the FPDU follows it.
        self.mk.next = bit_cast::<6, 7>(self.to_marker.q.val());
        self.mp.next = self.markers.val()
            & (self.to_marker.q.val() < bit_cast::<7, 6>(self.c_words.val()))
            & (!self.fin.val() | (self.avail.val() > self.mk.val()));
        // FPDUPTR: octets from the ULPDU_Length field to the Marker (0 for a leading Marker).
        self.ptr.next = (self.owords.q.val() + bit_cast::<16, 6>(self.mk.val())) << 2;
        if self.lead.q.val() & !self.start.val() {
            self.ptr.next = self.ptr.val() - 4;
        }
        if self.start.val() {
            self.ptr.next = bit_cast::<16, 6>(self.mk.val()) << 2;
        }
        // The Marker word: octets 0, 0, FPDUPTR high, FPDUPTR low (lane 0 in bits 7:0).
        self.marker.next = (bit_cast::<32, 16>(self.ptr.val() >> 8) << 16)
            | (bit_cast::<32, 16>(self.ptr.val() & 0xFF) << 24);

        // body = acc[0..c) ++ input: the input rotated up by c lanes (log2(W/4) fixed stages).
        self.rot.next = self.in_b.val();
        for s in 0..self.c_rot_l.len() {
            if self.c.q.val().get_bit(s) {
                self.rot.next = (self.rot.val() << self.c_rot_l[s].val())
                    | (self.rot.val() >> self.c_rot_r[s].val());
            }
        }
        self.mask_c.next = !(self.c_ones.val() << (bit_cast::<16, 6>(self.c.q.val()) << 5));
        self.base.next =
            (self.acc.q.val() & self.mask_c.val()) | (self.rot.val() & !self.mask_c.val());
        // The output beat: the Marker at lane mk, the words after it moved up one lane.
        self.mask_lo.next = !(self.c_ones.val() << (bit_cast::<16, 6>(self.mk.val()) << 5));
        self.mask_at.next = !(self.c_ones.val() << ((bit_cast::<16, 6>(self.mk.val()) + 1) << 5))
            & !self.mask_lo.val();
        self.out_b.next = self.base.val();
        if self.mp.val() {
            self.out_b.next = (self.base.val() & self.mask_lo.val())
                | ((bit_cast::<B, 32>(self.marker.val())
                    << (bit_cast::<16, 6>(self.mk.val()) << 5))
                    & self.mask_at.val())
                | ((self.base.val() << 32) & !self.mask_lo.val() & !self.mask_at.val());
        }
        // Words out this beat and words left over for acc.
        self.words_out.next = self.c_words.val();
        self.left.next = 0.into();
        if self.mp.val() {
            if self.avail.val() + 1 > self.c_words.val() {
                self.left.next = self.avail.val() + 1 - self.c_words.val();
            } else {
                self.words_out.next = self.avail.val() + 1;
            }
        } else if self.avail.val() > self.c_words.val() {
            self.left.next = self.avail.val() - self.c_words.val();
        } else {
            self.words_out.next = self.avail.val();
        }

        self.out.s_axis.valid.next = self.emit.val();
        self.out.s_axis.data.next = self.out_b.val();
        self.out.s_axis.user.next = self.user.val();
        self.out.s_axis.last.next = self.fin.val() & (self.left.val() == 0);
        self.out.s_axis.keep.next = self.c_ones_w.val();
        if self.fin.val() & (self.left.val() == 0) {
            self.out.s_axis.keep.next =
                !(self.c_ones_w.val() << (bit_cast::<8, 6>(self.words_out.val()) << 2));
        }

        if self.emit.val() {
            self.c.d.next = self.left.val();
            if self.mp.val() {
                self.acc.d.next = (self.rot.val() << 32) | (self.base.val() >> self.c_top.val());
            } else {
                self.acc.d.next = self.rot.val();
            }
            self.to_marker.d.next = self.to_marker.q.val() - bit_cast::<7, 6>(self.words_out.val());
            if self.fin.val() & (self.left.val() == 0) {
                // The FPDU is complete.
                self.in_fpdu.d.next = false;
                self.tail.d.next = false;
            } else {
                self.in_fpdu.d.next = true;
                self.tail.d.next = self.fin.val();
                self.owords.d.next = self.owords.q.val() + bit_cast::<16, 6>(self.words_out.val());
                if self.start.val() {
                    self.owords.d.next = bit_cast::<16, 6>(self.words_out.val());
                    self.lead.d.next = self.mp.val() & (self.mk.val() == 0);
                    self.user_q.d.next = self.user.val();
                }
            }
        }
        // Reset: the stream position from the settings.
        self.pos.next = self.cfg_seq.val() - self.cfg_origin.val();
        if self.rst.val() {
            self.to_marker.d.next = bit_cast::<7, 32>((0 - self.pos.val()) >> 2);
            self.misaligned.d.next = (self.pos.val() & 3) != 0;
            self.c.d.next = 0.into();
            self.tail.d.next = false;
            self.in_fpdu.d.next = false;
        }
    }
}
