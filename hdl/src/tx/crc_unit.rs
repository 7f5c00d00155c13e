//! `TxCrcUnit`: computes each FPDU's CRC and writes it into the FPDU's CRC field (RFC 5044 4.4).
//!
//! FPDUs with Markers in (from [`super::marker_inserter::TxMarkerInserter`]), the same FPDUs out
//! with the CRC field filled. The CRC is CRC32c over every octet of the FPDU before the CRC
//! field: a leading Marker (FPDUPTR 0), ULPDU_Length, ULPDU, PAD and any Marker between the PAD
//! and the CRC field (4.4 rules 1 and 2). It is written least significant octet first, which is
//! the CRC register value in lane order. With CRC off for an FPDU (sideband bit 15 low) the field
//! keeps the zeros the framer wrote (4.4: "may contain any value"; the golden framer writes 0).
//!
//! ```text
//!  s_axis ─┬──────────────────────► StreamFifo (32 beats) ──┐
//!          └─► CrcEngine (keep without the CRC word) ─► RegFifo (CRCs) ──┴─► patch the last
//!                                                                           word ─► m_axis
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `s_axis` | in | 8W | FPDUs, one per packet, lane 0 first; the last word of each is its CRC field; `user` as [`super::TX_FPDU_USER`] |
//! | `m_axis` | out | 8W | the FPDUs with the CRC field written; `user` passed through |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`. From W = 16
//! ([`crate::tx::TX_WIDE_FORMS_FROM_W`]) the CRC word is written by a 2:1 select per data bit
//! from the one-hot last word, not by a shifter from its encoded index (the same output for
//! every last beat, which always holds at least its CRC word; W = 4 and 8 keep the shifter and
//! their Verilog text).
//!
//! ### Latency and throughput
//! An FPDU's last beat leaves `CrcEngine::latency() + 3` cycles after it entered at the earliest
//! (15 at W = 8, 21 at W = 64; [`TxCrcUnit::latency`]); the beats before it stream through the
//! FIFO in 3. One beat per
//! cycle in steady state: the FIFO (32 beats) is deeper than the engine's latency, so FPDUs back
//! to back, one beat each, flow at full rate once the FIFO has filled to that latency.
//!
//! ### Reset
//! `rst` empties the FIFOs, the engine's pipeline and the output slice.

use crate::crc::engine::CrcEngine;
use crate::fifo::RegFifo;
use crate::keep_words::KeepWords;
use crate::sideband::TxFpduUserFields;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_fifo::StreamFifo;
use crate::stream_skid::StreamSkid;
use crate::tx::TX_FPDU_USER;
use golden::crc::CRC32C;
use rust_hdl::prelude::*;

/// The CRC unit; see the module documentation.
#[derive(LogicBlock)]
pub struct TxCrcUnit<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// FPDUs with a CRC field to fill.
    pub s_axis: StreamSink<W, B, TX_FPDU_USER>,
    /// FPDUs with their CRC.
    pub m_axis: StreamSource<W, B, TX_FPDU_USER>,
    engine: CrcEngine<W, B>,
    beats: StreamFifo<W, B, TX_FPDU_USER>,
    crcs: RegFifo<32>,
    out: StreamSkid<W, B, TX_FPDU_USER>,
    c_ones32: Constant<Bits<B>>,
    kw: KeepWords<W>,
    take: Signal<Local, Bit>,
    head_last: Signal<Local, Bit>,
    can_go: Signal<Local, Bit>,
    crc_lane: Signal<Local, Bits<6>>,
    sh: Signal<Local, Bits<16>>,
    patched: Signal<Local, Bits<B>>,
    // The wide form (W >= TX_WIDE_FORMS_FROM_W; empty below): the CRC word written by a select
    // per word, from the one-hot last word (each bit a function of two keep bits), in place of
    // the shifter driven by an encoded word index that limits W = 32 and 64.
    lw_mask: Vec<Signal<Local, Bits<W>>>,
    crc_mask: Vec<Signal<Local, Bits<B>>>,
    crc_rep: Vec<Signal<Local, Bits<B>>>,
    c_lsh: Vec<Constant<Bits<16>>>,
}

impl<const W: usize, const B: usize> TxCrcUnit<W, B> {
    /// Builds the CRC unit (CRC32c); panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("TxCrcUnit", W, B, TX_FPDU_USER);
        crate::tx::check_tx_width("TxCrcUnit", W);
        let wide = crate::tx::tx_wide_forms(W);
        assert!(
            CrcEngine::<W, B>::latency() + 3 < crate::stream_fifo::STREAM_FIFO_DEPTH,
            "TxCrcUnit: the beat FIFO must be deeper than the CRC latency"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            engine: CrcEngine::new(&CRC32C),
            beats: StreamFifo::new(),
            crcs: RegFifo::new(crate::stream_fifo::STREAM_FIFO_DEPTH),
            out: StreamSkid::loading_while_empty(),
            c_ones32: Constant::new(Bits::<B>::from(0xFFFF_FFFFu64)),
            kw: KeepWords::new(),
            take: Default::default(),
            head_last: Default::default(),
            can_go: Default::default(),
            crc_lane: Default::default(),
            sh: Default::default(),
            patched: Default::default(),
            lw_mask: crate::tx::wide_entries(wide),
            crc_mask: crate::tx::wide_entries(wide),
            crc_rep: crate::tx::wide_entries(wide),
            c_lsh: (0..wide * W / 4).map(|j| Constant::new(((32 * j) as u64).into())).collect(),
        }
    }

    /// Cycles from an FPDU's last beat entering to it leaving, with nothing ahead of it.
    pub fn latency() -> usize {
        CrcEngine::<W, B>::latency() + 3
    }
}

impl<const W: usize, const B: usize> Default for TxCrcUnit<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for TxCrcUnit<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.engine.clock.next = self.clock.val();
        self.beats.clock.next = self.clock.val();
        self.crcs.clock.next = self.clock.val();
        self.out.clock.next = self.clock.val();
        self.engine.rst.next = self.rst.val();
        self.beats.rst.next = self.rst.val();
        self.crcs.rst.next = self.rst.val();
        self.out.rst.next = self.rst.val();
        // In: every beat goes into the FIFO and through the engine, without its CRC word.
        self.s_axis.ready.next = self.beats.s_axis.ready.val();
        self.take.next = self.s_axis.valid.val() & self.beats.s_axis.ready.val();
        self.beats.s_axis.valid.next = self.s_axis.valid.val();
        self.beats.s_axis.data.next = self.s_axis.data.val();
        self.beats.s_axis.keep.next = self.s_axis.keep.val();
        self.beats.s_axis.user.next = self.s_axis.user.val();
        self.beats.s_axis.last.next = self.s_axis.last.val();
        self.engine.strobe.next = self.take.val();
        self.engine.start.next = false;
        self.engine.last.next = self.s_axis.last.val();
        self.engine.data.next = self.s_axis.data.val();
        self.engine.keep.next = self.s_axis.keep.val();
        if self.s_axis.last.val() {
            // The last word is the CRC field: the CRC covers the octets before it.
            self.engine.keep.next = self.s_axis.keep.val() >> 4;
        }
        self.crcs.push.next = self.engine.crc_valid.val();
        self.crcs.push_data.next = self.engine.crc.val();
        // Out: a beat leaves when the slice can take it; an FPDU's last beat also needs its CRC.
        self.head_last.next = self.beats.m_axis.valid.val() & self.beats.m_axis.last.val();
        self.can_go.next = self.beats.m_axis.valid.val()
            & self.out.s_axis.ready.val()
            & (!self.beats.m_axis.last.val() | self.crcs.out_valid.val());
        self.beats.m_axis.ready.next = self.can_go.val();
        self.crcs.out_ready.next = self.can_go.val() & self.beats.m_axis.last.val();
        // The CRC field is the last word of the last beat: lane n - 1 of n words.
        self.kw.keep.next = self.beats.m_axis.keep.val();
        self.crc_lane.next = self.kw.last_word.val();
        self.sh.next = bit_cast::<16, 6>(self.crc_lane.val()) << 5;
        self.patched.next = (self.beats.m_axis.data.val()
            & !(self.c_ones32.val() << self.sh.val()))
            | (bit_cast::<B, 32>(self.crcs.out_data.val()) << self.sh.val());
        for i in 0..self.lw_mask.len() {
            // Wide form: word j is the last when its first octet is kept and the next word's
            // is not; the patch is then one 2:1 select per data bit. (KeepWords computes the
            // same one-hot inside; exposing it as a port would change KeepWords' module text,
            // and with it mpa_tx_w8's Verilog, so it is written here again.)
            self.lw_mask[i].next = 0.into();
            for j in 0..(W / 4 - 1) {
                self.lw_mask[i].next = self.lw_mask[i].val().replace_bit(
                    j,
                    self.beats.m_axis.keep.val().get_bit(j * 4)
                        & !self.beats.m_axis.keep.val().get_bit(j * 4 + 4),
                );
            }
            for j in (W / 4 - 1)..(W / 4) {
                self.lw_mask[i].next = self.lw_mask[i]
                    .val()
                    .replace_bit(j, self.beats.m_axis.keep.val().get_bit(j * 4));
            }
            self.crc_mask[i].next = 0.into();
            self.crc_rep[i].next = 0.into();
            for j in 0..(W / 4) {
                self.crc_rep[i].next = self.crc_rep[i].val()
                    | (bit_cast::<B, 32>(self.crcs.out_data.val()) << self.c_lsh[j].val());
                if self.lw_mask[i].val().get_bit(j) {
                    self.crc_mask[i].next =
                        self.crc_mask[i].val() | (self.c_ones32.val() << self.c_lsh[j].val());
                }
            }
            self.patched.next = (self.beats.m_axis.data.val() & !self.crc_mask[i].val())
                | (self.crc_rep[i].val() & self.crc_mask[i].val());
        }
        self.out.s_axis.valid.next = self.can_go.val();
        self.out.s_axis.data.next = self.beats.m_axis.data.val();
        if self.head_last.val() & self.beats.m_axis.user.val().get_value_tx_fpdu_crc() {
            self.out.s_axis.data.next = self.patched.val();
        }
        self.out.s_axis.keep.next = self.beats.m_axis.keep.val();
        self.out.s_axis.user.next = self.beats.m_axis.user.val();
        self.out.s_axis.last.next = self.beats.m_axis.last.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
    }
}
