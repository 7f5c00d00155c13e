//! `MpaTx`: the transmit datapath of RFC 5044, exported as `mpa_tx_w<W>`.
//!
//! ULPDUs in, FPDU-aligned TCP segment payloads out, byte for byte what
//! [`golden::fpdu::Framer`] and [`golden::segment::segment_fpdus_with_push`] produce:
//!
//! ```text
//!  s_axis ─► TxFramer ─► TxMarkerInserter ─► TxCrcUnit ─► TxSegmenter ─► m_axis
//!  (ULPDUs)   4.1         4.2, 4.3             4.4          5.1, A.1       (segments)
//!                                                 TxMulpdu (4.5) ─► mulpdu
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clk`, `rst` | in | 1 | clock; synchronous active-high reset; `cfg_seq`/`cfg_origin` are loaded while `rst` is high |
//! | `cfg_markers` | in | 1 | insert Markers (the M bit negotiated for this direction, 7.1.1); sampled per ULPDU |
//! | `cfg_crc` | in | 1 | compute CRCs (the C bits); sampled per ULPDU; when off the CRC field is 0 |
//! | `cfg_emss` | in | 16 | EMSS in octets (the TCP engine's current value); sampled per FPDU, below 128 counts as 128 |
//! | `cfg_idle` | in | 16 | idle limit in cycles, 0 for none: a segment left open behind an FPDU that was not pushed is sent once nothing has followed it for this long ([`super::segmenter::TxSegmenter`]) |
//! | `cfg_seq` | in | 32 | TCP sequence number of the first octet this block sends |
//! | `cfg_origin` | in | 32 | sequence number of the marker origin (4.3: the first octet after the MPA Request/Reply) |
//! | `s_axis_t*` | in | 8W | ULPDUs, one per packet, lane 0 first; `tuser[15:0]` ULPDU_Length and `tuser[16]` push, on the first beat; an empty ULPDU is one beat with `tkeep` 0 |
//! | `m_axis_t*` | out | 8W | TCP segment payloads, one per packet, lane 0 first; `tuser` (32) the sequence number of the segment's first octet |
//! | `mulpdu` | out | 16 | MULPDU for `cfg_emss` and `cfg_markers` (4.5), for DDP |
//! | `err_length` | out | 1 | pulse: a ULPDU's octet count disagreed with its ULPDU_Length (the FPDU still carries ULPDU_Length octets: zeros added, extras dropped) |
//! | `err_too_long` | out | 1 | pulse: a ULPDU_Length above 64768 (section 3); the ULPDU was dropped |
//! | `oversize_fpdu` | out | 1 | pulse: an FPDU longer than EMSS (its ULPDU exceeded MULPDU) was sent across segments |
//! | `cfg_misaligned` | out | 1 | `cfg_seq - cfg_origin` is not a multiple of 4 (the low bits are ignored) |
//!
//! A segment is closed when the next FPDU does not fit, after a pushed ULPDU, and around an
//! oversize FPDU; an open segment waits for the next ULPDU, so push the last ULPDU of a burst.
//!
//! ### Parameters
//! `W` bytes per beat: 4, 8, 16, 32, 64; `B = 8W`.
//!
//! ### Latency and throughput
//! First octet in to first octet out: 16 cycles ([`MpaTx::latency`]); an FPDU of one beat waits
//! for its CRC: [`MpaTx::latency_crc_wait`] (28 at W = 8, 34 at W = 64). Both are checked by the
//! tests. One beat per cycle at the output with no backpressure (measured above 0.999 at every
//! width); the input is held only for the octets framing adds (length, PAD, CRC, Markers).
//!
//! ### Reset
//! `rst` clears every block's control state and loads the sequence number and stream position.

use crate::stream::{StreamSink, StreamSource};
use crate::tx::crc_unit::TxCrcUnit;
use crate::tx::framer::TxFramer;
use crate::tx::marker_inserter::TxMarkerInserter;
use crate::tx::mulpdu::TxMulpdu;
use crate::tx::segmenter::{TxSegmenter, TX_SEGMENT_USER};
use crate::tx::TX_ULPDU_USER;
use rust_hdl::prelude::*;

/// The transmit datapath; see the module documentation.
#[derive(LogicBlock)]
pub struct MpaTx<const W: usize, const B: usize> {
    /// Clock (exported as `clk`).
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Markers on.
    pub cfg_markers: Signal<In, Bit>,
    /// CRC on.
    pub cfg_crc: Signal<In, Bit>,
    /// EMSS in octets.
    pub cfg_emss: Signal<In, Bits<16>>,
    /// Idle limit in cycles (0: none): a segment left open behind an unpushed FPDU closes after it.
    pub cfg_idle: Signal<In, Bits<16>>,
    /// Sequence number of the first octet sent.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// ULPDUs.
    pub s_axis: StreamSink<W, B, TX_ULPDU_USER>,
    /// Segments.
    pub m_axis: StreamSource<W, B, TX_SEGMENT_USER>,
    /// MULPDU for the current EMSS.
    pub mulpdu: Signal<Out, Bits<16>>,
    /// Pulse: ULPDU length disagreed with ULPDU_Length.
    pub err_length: Signal<Out, Bit>,
    /// Pulse: ULPDU_Length above 64768, dropped.
    pub err_too_long: Signal<Out, Bit>,
    /// Pulse: an FPDU longer than EMSS.
    pub oversize_fpdu: Signal<Out, Bit>,
    /// The stream position is not a multiple of 4.
    pub cfg_misaligned: Signal<Out, Bit>,
    framer: TxFramer<W, B>,
    marker_ins: TxMarkerInserter<W, B>,
    crc: TxCrcUnit<W, B>,
    segmenter: TxSegmenter<W, B>,
    mul: TxMulpdu,
}

impl<const W: usize, const B: usize> MpaTx<W, B> {
    /// Builds the transmit datapath; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        crate::tx::check_tx_width("MpaTx", W);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_emss: Default::default(),
            cfg_idle: Default::default(),
            cfg_seq: Default::default(),
            cfg_origin: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            mulpdu: Default::default(),
            err_length: Default::default(),
            err_too_long: Default::default(),
            oversize_fpdu: Default::default(),
            cfg_misaligned: Default::default(),
            framer: TxFramer::new(),
            marker_ins: TxMarkerInserter::new(),
            crc: TxCrcUnit::new(),
            segmenter: TxSegmenter::new(),
            mul: Default::default(),
        }
    }

    /// Cycles from the transfer of a ULPDU's first beat to the transfer of its segment's first
    /// beat, for an FPDU of more than one beat, nothing ahead of it and no backpressure: framer
    /// (2: input register, output queue), Marker inserter (4: input register, decided-beat
    /// register, head register, output queue), the CRC unit's FIFO (3), segmenter (7: F1, F2,
    /// F2b, F3, head register, output stage, output queue).
    pub fn latency() -> usize {
        2 + 4 + 3 + 7
    }

    /// The same for an FPDU of one beat, which waits in the CRC unit for its CRC.
    pub fn latency_crc_wait() -> usize {
        2 + 4 + TxCrcUnit::<W, B>::latency() + 7
    }
}

impl<const W: usize, const B: usize> Default for MpaTx<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for MpaTx<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.framer.clock.next = self.clock.val();
        self.marker_ins.clock.next = self.clock.val();
        self.crc.clock.next = self.clock.val();
        self.segmenter.clock.next = self.clock.val();
        self.mul.clock.next = self.clock.val();
        self.framer.rst.next = self.rst.val();
        self.marker_ins.rst.next = self.rst.val();
        self.crc.rst.next = self.rst.val();
        self.segmenter.rst.next = self.rst.val();
        // Settings.
        self.framer.cfg_markers.next = self.cfg_markers.val();
        self.framer.cfg_crc.next = self.cfg_crc.val();
        self.marker_ins.cfg_seq.next = self.cfg_seq.val();
        self.marker_ins.cfg_origin.next = self.cfg_origin.val();
        self.segmenter.cfg_emss.next = self.cfg_emss.val();
        self.segmenter.cfg_idle.next = self.cfg_idle.val();
        self.segmenter.cfg_seq.next = self.cfg_seq.val();
        self.segmenter.cfg_origin.next = self.cfg_origin.val();
        self.mul.cfg_emss.next = self.cfg_emss.val();
        self.mul.cfg_markers.next = self.cfg_markers.val();
        // s_axis -> framer.
        self.framer.s_axis.data.next = self.s_axis.data.val();
        self.framer.s_axis.keep.next = self.s_axis.keep.val();
        self.framer.s_axis.user.next = self.s_axis.user.val();
        self.framer.s_axis.last.next = self.s_axis.last.val();
        self.framer.s_axis.valid.next = self.s_axis.valid.val() & !self.rst.val();
        self.s_axis.ready.next = self.framer.s_axis.ready.val() & !self.rst.val();
        // framer -> Marker inserter.
        self.marker_ins.s_axis.data.next = self.framer.m_axis.data.val();
        self.marker_ins.s_axis.keep.next = self.framer.m_axis.keep.val();
        self.marker_ins.s_axis.user.next = self.framer.m_axis.user.val();
        self.marker_ins.s_axis.last.next = self.framer.m_axis.last.val();
        self.marker_ins.s_axis.valid.next = self.framer.m_axis.valid.val();
        self.framer.m_axis.ready.next = self.marker_ins.s_axis.ready.val();
        // Marker inserter -> CRC unit.
        self.crc.s_axis.data.next = self.marker_ins.m_axis.data.val();
        self.crc.s_axis.keep.next = self.marker_ins.m_axis.keep.val();
        self.crc.s_axis.user.next = self.marker_ins.m_axis.user.val();
        self.crc.s_axis.last.next = self.marker_ins.m_axis.last.val();
        self.crc.s_axis.valid.next = self.marker_ins.m_axis.valid.val();
        self.marker_ins.m_axis.ready.next = self.crc.s_axis.ready.val();
        // CRC unit -> segmenter.
        self.segmenter.s_axis.data.next = self.crc.m_axis.data.val();
        self.segmenter.s_axis.keep.next = self.crc.m_axis.keep.val();
        self.segmenter.s_axis.user.next = self.crc.m_axis.user.val();
        self.segmenter.s_axis.last.next = self.crc.m_axis.last.val();
        self.segmenter.s_axis.valid.next = self.crc.m_axis.valid.val();
        self.crc.m_axis.ready.next = self.segmenter.s_axis.ready.val();
        // segmenter -> m_axis.
        self.m_axis.data.next = self.segmenter.m_axis.data.val();
        self.m_axis.keep.next = self.segmenter.m_axis.keep.val();
        self.m_axis.user.next = self.segmenter.m_axis.user.val();
        self.m_axis.last.next = self.segmenter.m_axis.last.val();
        self.m_axis.valid.next = self.segmenter.m_axis.valid.val() & !self.rst.val();
        self.segmenter.m_axis.ready.next = self.m_axis.ready.val() & !self.rst.val();
        // Status.
        self.mulpdu.next = self.mul.mulpdu.val();
        self.err_length.next = self.framer.err_length.val() & !self.rst.val();
        self.err_too_long.next = self.framer.err_oversize.val() & !self.rst.val();
        self.oversize_fpdu.next = self.segmenter.oversize.val() & !self.rst.val();
        self.cfg_misaligned.next = self.marker_ins.cfg_misaligned.val();
    }
}
