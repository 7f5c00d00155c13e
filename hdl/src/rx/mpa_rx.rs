//! `MpaRx`: the receive datapath of RFC 5044 for in-order TCP data, exported as `mpa_rx_w<W>`.
//!
//! TCP payload segments in (cut anywhere, A.4), verified ULPDUs out, with the ULPDUs and the
//! first error that [`golden::deframe::deframe_stream_with_limit`] finds in the same stream:
//!
//! ```text
//!  s_axis ─► RxRealigner ─► RxDelineator ─► RxCrcCheck ─► RxMarkerStripper ─► RxRelease ─► m_axis
//!  (segments)  A.4 words      6 (lengths)     4.4 (CRC)     4.2, 4.3       6, 8 (verify
//!            └──────────── RxVerify (cut-through) ──────────(Markers, PAD)┘  before release)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clk`, `rst` | in | 1 | clock; synchronous active-high reset; `cfg_seq`/`cfg_origin` are loaded while `rst` is high |
//! | `cfg_seq` | in | 32 | TCP sequence number of the first octet of the MPA stream (the first FPDU) |
//! | `cfg_origin` | in | 32 | sequence number of the marker origin (4.3: the first octet after the MPA Request/Reply) |
//! | `cfg_markers` | in | 1 | Markers expected (the M bit negotiated for this direction, 7.1.1) |
//! | `cfg_crc` | in | 1 | CRCs checked (the C bits); when off the CRC field is ignored |
//! | `cfg_max_ulpdu` | in | 16 | the largest ULPDU_Length accepted; clamped to the release buffer's [`MpaRx::max_ulpdu`] |
//! | `s_axis_t*` | in | 8W | TCP payload segments in sequence order, one per packet, lane 0 first, any length from 1 octet (a null beat is allowed with FIN); `tuser[31:0]` the sequence number of the first octet, `tuser[32]` FIN (the stream ends after this segment) |
//! | `m_axis_t*` | out | 8W | ULPDUs, one per packet (an empty ULPDU is one null beat); `tuser` (51): `[31:0]` the FPDU's sequence number, `[47:32]` ULPDU_Length; then at most one error packet, one null beat with `tuser[48]` set and the section 8 code in `tuser[50:49]` (1: length or stream error, 2: CRC or ULPDU_Length above the limit, 3: FPDUPTR) |
//! | `err_seq` | out | 1 | pulse: a segment beyond the next expected octet (a gap) was dropped (the path takes in-order segments; a retransmission overlapping what was taken is trimmed, one with nothing new dropped without an error) |
//! | `seq_gap` | out | 1 | sticky: `err_seq` pulsed since `rst` |
//! | `err_crc` | out | 1 | pulse: an FPDU failed the CRC check |
//! | `err_marker` | out | 1 | pulse: an FPDU was rejected for a Marker's FPDUPTR |
//! | `dropped` | out | 1 | pulse: a bad ULPDU was dropped in the release buffer |
//! | `cfg_misaligned` | out | 1 | `cfg_seq - cfg_origin` is not a multiple of 4 |
//! | `pkt_end`, `front_busy` | out | 1 | pulse: an FPDU (or error packet) was delineated, each becoming one ULPDU or error packet on `m_axis` until the first error; the front (realigner, delineator) holds a beat. Together they tell a consumer that counts the ULPDUs it took when everything complete that came in has come out ([`crate::place::rnic_rx`] does, before it checks an FPDU out of order) |
//!
//! Nothing is released after an error (section 8) until `rst`.
//!
//! ### Parameters
//! `W` bytes per beat (4..64), `B = 8W`, `A`: the release buffer holds `2^A` beats. The exported
//! tops use [`buffer_bits`]: 16 KiB at every width.
//!
//! ### Latency and throughput
//! From the transfer of an FPDU's last octet to the transfer of its ULPDU's first beat: 33, 35,
//! 38, 40, 42 cycles at W = 4, 8, 16, 32, 64 for a 1448-octet ULPDU (asserted in
//! `testbench/tests/mpa_rx.rs`; nine more than before stop 61, when the delineator became the
//! walker and the cutter). One input beat per cycle within an FPDU; an FPDU boundary costs no
//! cycle: 1.000 segment beats per cycle with 1448-, 256- and 64-octet ULPDUs, one FPDU per
//! segment; the delineator takes one cycle per FPDU piece of a beat, so sixteen 64-octet FPDUs
//! per segment run at 1.000 (W = 4), 0.954 (W = 8) down to 0.637 (W = 64) (`make bench`).
//!
//! ### Reset
//! `rst` clears every block and loads the sequence number and marker origin.

use crate::rx::marker_stripper::RX_ULPDU_USER;
use crate::rx::realigner::RX_SEG_USER;
use crate::rx::release::RxRelease;
use crate::rx::verify::RxVerify;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Release-buffer address bits for `width` bytes per beat: `2^A * width` = 16384 octets.
pub const fn buffer_bits(width: usize) -> usize {
    match width {
        4 => 12,
        8 => 11,
        16 => 10,
        32 => 9,
        _ => 8,
    }
}

/// The receive datapath; see the module documentation.
#[derive(LogicBlock)]
pub struct MpaRx<const W: usize, const B: usize, const A: usize> {
    /// Clock (exported as `clk`).
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the first octet of the stream.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Sequence number of the marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers expected.
    pub cfg_markers: Signal<In, Bit>,
    /// CRCs checked.
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted.
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// TCP payload segments.
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// Verified ULPDUs and the error packet.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// Pulse: a segment beyond the next expected octet (a gap) was dropped.
    pub err_seq: Signal<Out, Bit>,
    /// Sticky: a segment beyond the next expected octet was dropped since `rst`.
    pub seq_gap: Signal<Out, Bit>,
    /// Pulse: an FPDU failed the CRC check.
    pub err_crc: Signal<Out, Bit>,
    /// Pulse: an FPDU rejected for its FPDUPTR.
    pub err_marker: Signal<Out, Bit>,
    /// Pulse: a bad ULPDU was dropped.
    pub dropped: Signal<Out, Bit>,
    /// Pulse: a packet was delineated.
    pub pkt_end: Signal<Out, Bit>,
    /// The realigner or the delineator holds a beat.
    pub front_busy: Signal<Out, Bit>,
    /// The stream position is not a multiple of 4.
    pub cfg_misaligned: Signal<Out, Bit>,
    verify: RxVerify<W, B>,
    rel_buf: RxRelease<W, B, A>,
    c_limit: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> MpaRx<W, B, A> {
    /// Builds the receive datapath; panics with a message naming the rule if a parameter is
    /// illegal.
    pub fn new() -> Self {
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
            err_seq: Default::default(),
            seq_gap: Default::default(),
            err_crc: Default::default(),
            err_marker: Default::default(),
            dropped: Default::default(),
            pkt_end: Default::default(),
            front_busy: Default::default(),
            cfg_misaligned: Default::default(),
            verify: RxVerify::new(),
            rel_buf: RxRelease::new(),
            c_limit: Constant::new((Self::max_ulpdu() as u64).into()),
        }
    }

    /// The largest ULPDU_Length the path accepts (the release buffer's capacity).
    pub const fn max_ulpdu() -> usize {
        RxRelease::<W, B, A>::max_ulpdu()
    }
}

impl<const W: usize, const B: usize, const A: usize> Default for MpaRx<W, B, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for MpaRx<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.verify.clock.next = self.clock.val();
        self.rel_buf.clock.next = self.clock.val();
        self.verify.rst.next = self.rst.val();
        self.rel_buf.rst.next = self.rst.val();
        // Settings.
        self.verify.cfg_seq.next = self.cfg_seq.val();
        self.verify.cfg_origin.next = self.cfg_origin.val();
        self.verify.cfg_markers.next = self.cfg_markers.val();
        self.verify.cfg_crc.next = self.cfg_crc.val();
        self.verify.cfg_max_ulpdu.next = self.cfg_max_ulpdu.val();
        if self.cfg_max_ulpdu.val() > self.c_limit.val() {
            self.verify.cfg_max_ulpdu.next = self.c_limit.val();
        }
        // s_axis -> verification path.
        self.verify.s_axis.data.next = self.s_axis.data.val();
        self.verify.s_axis.keep.next = self.s_axis.keep.val();
        self.verify.s_axis.user.next = self.s_axis.user.val();
        self.verify.s_axis.last.next = self.s_axis.last.val();
        self.verify.s_axis.valid.next = self.s_axis.valid.val() & !self.rst.val();
        self.s_axis.ready.next = self.verify.s_axis.ready.val() & !self.rst.val();
        // verification path -> release buffer.
        self.rel_buf.s_axis.data.next = self.verify.m_axis.data.val();
        self.rel_buf.s_axis.keep.next = self.verify.m_axis.keep.val();
        self.rel_buf.s_axis.user.next = self.verify.m_axis.user.val();
        self.rel_buf.s_axis.last.next = self.verify.m_axis.last.val();
        self.rel_buf.s_axis.valid.next = self.verify.m_axis.valid.val();
        self.verify.m_axis.ready.next = self.rel_buf.s_axis.ready.val();
        // release buffer -> m_axis.
        self.m_axis.data.next = self.rel_buf.m_axis.data.val();
        self.m_axis.keep.next = self.rel_buf.m_axis.keep.val();
        self.m_axis.user.next = self.rel_buf.m_axis.user.val();
        self.m_axis.last.next = self.rel_buf.m_axis.last.val();
        self.m_axis.valid.next = self.rel_buf.m_axis.valid.val() & !self.rst.val();
        self.rel_buf.m_axis.ready.next = self.m_axis.ready.val() & !self.rst.val();
        // Status.
        self.err_seq.next = self.verify.err_seq.val() & !self.rst.val();
        self.seq_gap.next = self.verify.seq_gap.val() & !self.rst.val();
        self.err_crc.next = self.verify.err_crc.val() & !self.rst.val();
        self.err_marker.next = self.verify.err_marker.val() & !self.rst.val();
        self.dropped.next = self.rel_buf.dropped.val() & !self.rst.val();
        // (Not gated by `rst`: a consumer that counts it also resets with `rst`, and a path
        // from `rst` to it would close a loop through that consumer for Verilator.)
        self.pkt_end.next = self.verify.pkt_end.val();
        self.front_busy.next = self.verify.front_busy.val();
        self.cfg_misaligned.next = self.verify.cfg_misaligned.val();
    }
}
