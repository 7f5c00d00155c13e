//! `RxDelineator`: finds the FPDUs in the in-order MPA stream (RFC 5044 section 6: "the ULPDU
//! Length field MUST be used to determine if the entire FPDU is present"; 4.3: a Marker inside
//! an FPDU's span is part of it, one right after its CRC field leads the next FPDU) and emits
//! each as a packet of its own. Two blocks: the walker that finds the FPDU boundaries from
//! ULPDU_Length and the Marker positions ([`super::walker::RxFpduWalker`]) and the cutter that
//! cuts the stream at them ([`super::cutter::RxFpduCutter`]). Until stop 61 this was one block
//! that found an FPDU's end, chained to the next header, stepped its gearbox and popped its
//! input in one cycle, the critical path of `mpa_rx` at W = 8 (issue 15); split, neither half
//! does both.
//!
//! ```text
//!  s_axis (words) ─► RxFpduWalker (first / last marks per lane, bad) ─► RxFpduCutter ─► m_axis
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_seq`, `cfg_origin` | in | 32 | sequence number of the stream's first octet (an FPDU's first octet) and of the Marker origin, loaded while `rst` is high |
//! | `cfg_markers`, `cfg_crc` | in | 1 | this direction's settings (keep them steady while a stream runs); passed on in each FPDU's sideband |
//! | `cfg_max_ulpdu` | in | 16 | the largest ULPDU_Length accepted (the release buffer's capacity; values above 64768 count as 64768) |
//! | `s_axis` | in | 8W | the stream as words ([`super::realigner::RX_WORD_USER`]) |
//! | `m_axis` | out | 8W | one FPDU per packet (Markers and CRC field included), lane 0 its first word; or an error packet |
//! | `m_axis.user` | out | [`RX_FPDU_USER`] | every beat: `[31:0]` sequence number of the FPDU's first octet, `[38:32]` words from its first word to the first Marker position (0: it starts with a Marker), `[39]` Markers on, `[40]` CRC on, `[41]` error packet, `[43:42]` its RFC 5044 section 8 code |
//! | `busy` | out | 1 | a beat taken is inside either half (an open FPDU's words held for its next beat do not count): low, every FPDU whose last word was taken has gone out |
//! | `ctx_walk_in_0`, `ctx_cut_in_0`, `ctx_words_in_0` | in | 34, 61, 8W | only when built [`RxDelineator::with_context`]: a connection's walker record ([`WalkCtx`]), cutter record ([`CutCtx`]) and held words |
//! | `ctx_load_0` | in | 1 | likewise: load them (honoured only while `busy` is low, by both halves in the same cycle; `s_axis.ready` is low in its cycle whether or not it is honoured); set the connection's `cfg_markers`, `cfg_crc` and `cfg_max_ulpdu` in the same cycle |
//! | `ctx_walk_out_0`, `ctx_cut_out_0`, `ctx_words_out_0` | out | 34, 61, 8W | likewise: those of the connection being served (final while `busy` is low) |
//!
//! An error packet ends the stream: nothing follows it. Code 2 when the walk reaches an FPDU
//! whose ULPDU_Length is above the limit (the packet carries none of its words, or only its
//! leading Marker when that was the previous beat's last word); code 1 when the stream ends
//! inside an FPDU (the packet carries its words so far) or with octets of a word lost (a null
//! beat). Its sideband is the FPDU's (sequence number and Marker distance of its first word).
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`.
//!
//! ### Latency and throughput
//! The walker's eight cycles and the cutter's four: twelve from a word's input handshake to
//! the output of the packet beat it completes when nothing waits (the one-block delineator
//! before stop 61: three). One beat per cycle, one cycle more per FPDU start after the first
//! in a beat (the walker's walk and the cutter's fragments each take one cycle per FPDU piece
//! of a beat); a tail leaves beside the next fragment unless that fragment puts out a beat.
//!
//! ### Reset
//! `rst` resets both halves: the stream starts at an FPDU boundary at `cfg_seq`.

use crate::rx::cutter::RxFpduCutter;
pub use crate::rx::cutter::{CutCtx, CUT_CTX_BITS};
use crate::rx::walker::RxFpduWalker;
pub use crate::rx::walker::{WalkCtx, WALK_CTX_BITS};
use crate::sideband::RX_WORD_USER;
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use rust_hdl::prelude::*;

pub use crate::sideband::RX_FPDU_USER;

/// The delineator (walker and cutter); see the module documentation.
#[derive(LogicBlock)]
pub struct RxDelineator<const W: usize, const B: usize> {
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
    /// CRC on.
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted.
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// The stream as words.
    pub s_axis: StreamSink<W, B, RX_WORD_USER>,
    /// FPDU packets.
    pub m_axis: StreamSource<W, B, RX_FPDU_USER>,
    /// A beat taken is inside.
    pub busy: Signal<Out, Bit>,
    /// Only when built [`RxDelineator::with_context`] (one entry, otherwise none): a
    /// connection's walker record ([`WalkCtx`]) to load.
    pub ctx_walk_in: Vec<Signal<In, Bits<WALK_CTX_BITS>>>,
    /// Likewise: its cutter record ([`CutCtx`]).
    pub ctx_cut_in: Vec<Signal<In, Bits<CUT_CTX_BITS>>>,
    /// Likewise: its held words (the cutter's).
    pub ctx_words_in: Vec<Signal<In, Bits<B>>>,
    /// Likewise: load the three now (honoured only while `busy` is low, by both halves
    /// together; no beat is taken in its cycle).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: the walker record of the connection being served (final while `busy` is low).
    pub ctx_walk_out: Vec<Signal<Out, Bits<WALK_CTX_BITS>>>,
    /// Likewise: its cutter record.
    pub ctx_cut_out: Vec<Signal<Out, Bits<CUT_CTX_BITS>>>,
    /// Likewise: its held words.
    pub ctx_words_out: Vec<Signal<Out, Bits<B>>>,
    walker: RxFpduWalker<W, B>,
    cutter: RxFpduCutter<W, B>,
}

impl<const W: usize, const B: usize> RxDelineator<W, B> {
    /// Builds both halves; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxDelineator", W, B, RX_WORD_USER);
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
            ctx_walk_in: vec![],
            ctx_cut_in: vec![],
            ctx_words_in: vec![],
            ctx_load: vec![],
            ctx_walk_out: vec![],
            ctx_cut_out: vec![],
            ctx_words_out: vec![],
            walker: RxFpduWalker::new(),
            cutter: RxFpduCutter::new(),
        }
    }

    /// The delineator with the context ports of both halves (`ctx_walk_in`, `ctx_cut_in`,
    /// `ctx_words_in`, `ctx_load`, and the three `_out`): while it is not `busy`, the state it
    /// keeps about a connection's stream is read out and another connection's loaded, so that
    /// one delineator serves any number of connections ([`WalkCtx`], [`CutCtx`] and the held
    /// words; the connection's `cfg_markers`, `cfg_crc` and `cfg_max_ulpdu` are set with its
    /// records). [`RxDelineator::new`] builds neither ports nor logic.
    pub fn with_context() -> Self {
        Self {
            ctx_walk_in: vec![Default::default()],
            ctx_cut_in: vec![Default::default()],
            ctx_words_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_walk_out: vec![Default::default()],
            ctx_cut_out: vec![Default::default()],
            ctx_words_out: vec![Default::default()],
            walker: RxFpduWalker::with_context(),
            cutter: RxFpduCutter::with_context(),
            ..Self::new()
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
        self.walker.clock.next = self.clock.val();
        self.walker.rst.next = self.rst.val();
        self.walker.cfg_seq.next = self.cfg_seq.val();
        self.walker.cfg_origin.next = self.cfg_origin.val();
        self.walker.cfg_markers.next = self.cfg_markers.val();
        self.walker.cfg_max_ulpdu.next = self.cfg_max_ulpdu.val();
        self.cutter.clock.next = self.clock.val();
        self.cutter.rst.next = self.rst.val();
        self.cutter.cfg_seq.next = self.cfg_seq.val();
        self.cutter.cfg_origin.next = self.cfg_origin.val();
        self.cutter.cfg_markers.next = self.cfg_markers.val();
        self.cutter.cfg_crc.next = self.cfg_crc.val();
        self.walker.s_axis.data.next = self.s_axis.data.val();
        self.walker.s_axis.keep.next = self.s_axis.keep.val();
        self.walker.s_axis.user.next = self.s_axis.user.val();
        self.walker.s_axis.last.next = self.s_axis.last.val();
        self.walker.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.walker.s_axis.ready.val();
        // Context records (only when built with them): a load goes to each half only while
        // the other is not busy (each honours it only while it is not busy itself), so both
        // load or neither; no beat goes in in its cycle.
        for k in 0..self.ctx_load.len() {
            self.walker.ctx_in[k].next = self.ctx_walk_in[k].val();
            self.walker.ctx_load[k].next = self.ctx_load[k].val() & !self.cutter.busy.val();
            self.cutter.ctx_in[k].next = self.ctx_cut_in[k].val();
            self.cutter.ctx_words_in[k].next = self.ctx_words_in[k].val();
            self.cutter.ctx_load[k].next = self.ctx_load[k].val() & !self.walker.busy.val();
            self.ctx_walk_out[k].next = self.walker.ctx_out[k].val();
            self.ctx_cut_out[k].next = self.cutter.ctx_out[k].val();
            self.ctx_words_out[k].next = self.cutter.ctx_words_out[k].val();
            if self.ctx_load[k].val() {
                self.walker.s_axis.valid.next = false;
                self.s_axis.ready.next = false;
            }
        }
        self.cutter.s_axis.data.next = self.walker.m_axis.data.val();
        self.cutter.s_axis.keep.next = self.walker.m_axis.keep.val();
        self.cutter.s_axis.user.next = self.walker.m_axis.user.val();
        self.cutter.s_axis.last.next = self.walker.m_axis.last.val();
        self.cutter.s_axis.valid.next = self.walker.m_axis.valid.val();
        self.walker.m_axis.ready.next = self.cutter.s_axis.ready.val();
        self.m_axis.data.next = self.cutter.m_axis.data.val();
        self.m_axis.keep.next = self.cutter.m_axis.keep.val();
        self.m_axis.user.next = self.cutter.m_axis.user.val();
        self.m_axis.last.next = self.cutter.m_axis.last.val();
        self.m_axis.valid.next = self.cutter.m_axis.valid.val();
        self.cutter.m_axis.ready.next = self.m_axis.ready.val();
        self.busy.next = self.walker.busy.val() | self.cutter.busy.val();
    }
}
