//! `RxRelease`: verify-before-release for the receive path (RFC 5044 section 6, 8).
//!
//! Section 6: "MPA MUST verify [the FPDU] before passing the ULPDU to the ULP"; section 8: after
//! an error no further FPDUs are delivered on that half connection. ULPDU packets from
//! [`super::marker_stripper::RxMarkerStripper`] (cut-through, verdict on the last beat) are written into a
//! packet buffer in block RAM; a packet's descriptor (sequence number, length, verdict) is queued
//! when its last beat arrives, and the read side starts a packet only when its descriptor is at
//! the head of the queue, so no octet leaves before its FPDU's CRC is known. A bad packet's beats
//! are never read: its descriptor becomes one error packet, a single null beat (`keep` 0, `last`)
//! whose sideband carries the error bit, the section 8 code and the FPDU's sequence number. After
//! it, every input beat is taken and dropped until reset (so the bad beats need no rollback).
//!
//! ```text
//!  s_axis ─► write at wr ─► BlockRam<8W, A> (data only) ─► read at rd ─► StreamOutQ ─► m_axis
//!   last beat: descriptor (seq, length, error, code) ─► RegFifo (32) ─┘ keep, last rebuilt
//!                                                                        from the length
//! ```
//! At most 30 descriptors wait (packets written, not yet read out); the input waits beyond that.
//! ```text
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `s_axis` | in | 8W | ULPDU packets, `user` as [`RX_ULPDU_USER`], verdict on the last beat; full beats except the last |
//! | `m_axis` | out | 8W | verified ULPDU packets (an empty ULPDU is one null beat) and at most one error packet (one null beat, `user[48]` set, code in `user[50:49]`) |
//! | `dropped` | out | 1 | pulse: a bad ULPDU was dropped |
//!
//! ### Parameters
//! `W` bytes per beat, `B = 8W`, `A` address bits: the buffer holds `2^A` beats. A ULPDU must fit
//! in `2^A - 1` beats ([`RxRelease::max_ulpdu`] octets): the delineator is set to reject longer
//! ULPDU_Lengths with code 2 before any of their octets arrive, so the buffer can never fill with
//! a packet it cannot commit. `mpa_rx` uses `2^A * W` = 16 KiB at every width (at least MULPDU for
//! EMSS 9000: 8,982 octets).
//!
//! ### Latency and throughput
//! The last beat of a good packet written at cycle t: its first beat leaves at t+3 (descriptor
//! FIFO, output queue). One beat per cycle in and out, one-beat packets included (asserted in
//! `testbench/tests/rx_release.rs`), while the buffer has room for the packet being written and
//! the one being read.
//!
//! ### Timing
//! The read side's last-beat decision (which pops the descriptor) reads registers only: each
//! descriptor carries "ULPDU_Length is W or less", worked out on the write side, and a packet's
//! later beats a register "octets left are W or less" updated beside the count.
//! The buffer is a [`BlockRam`]: no bypass for a word read in the cycle it is written (Yosys
//! otherwise compares the next read pointer with the write pointer and multiplexes the written
//! word into the read data, a path that limited `mpa_rx_w8` at two seeds of three at stop 59).
//! Such reads happen (the read side reads at its next pointer every cycle, also when it has
//! caught up with the write side) and are never used: a packet's descriptor reaches the read
//! side two cycles after its last beat's write, and the word at the read pointer is read again
//! in between. `testbench/tests/rx_release_poison.rs` shows it on a model that inverts every
//! such read.
//!
//! ### Reset
//! `rst` empties the buffer and the descriptor FIFO and revives the stream.

use crate::block_ram::BlockRam;
use crate::fifo::RegFifo;
use crate::sideband::{RxUlpduUserFields, RX_ULPDU_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// A descriptor (inside the block): [`crate::sideband::RxUlpduUser`] and whether the
    /// ULPDU fits one beat, worked out on the write side so the read side's last-beat decision
    /// reads registers only.
    RelDescUser, prefix rel_desc, bits RX_ULPDU_USER + 1, {
        /// As [`crate::sideband::RxUlpduUser::len`].
        len: Bits<16> = crate::sideband::RxUlpduUser::LEN_AT,
        /// As [`crate::sideband::RxUlpduUser::err`].
        err: Bit = crate::sideband::RxUlpduUser::ERR_AT,
        /// ULPDU_Length is W or less: the packet is one beat.
        one_beat: Bit = RX_ULPDU_USER,
    }
}
const DESC_USER: usize = RelDescUser::BITS;

/// The release buffer; see the module documentation.
#[derive(LogicBlock)]
pub struct RxRelease<const W: usize, const B: usize, const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// ULPDU packets, verdict on the last beat.
    pub s_axis: StreamSink<W, B, RX_ULPDU_USER>,
    /// Verified ULPDU packets and the error packet.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// Pulse: a bad ULPDU was dropped.
    pub dropped: Signal<Out, Bit>,
    ram: BlockRam<B, A>,
    desc: RegFifo<DESC_USER>,
    out: StreamOutQ<W, B, RX_ULPDU_USER>,
    // Write side.
    wr: DFF<Bits<16>>,
    ready_q: DFF<Bit>,
    dead: DFF<Bit>,
    dcnt: DFF<Bits<6>>,
    drop_q: DFF<Bit>,
    // Read side.
    rd: DFF<Bits<16>>,
    r_mid: DFF<Bit>,
    r_rem: DFF<Bits<16>>,
    // r_rem is W or less (the next beat is the packet's last).
    r_le: DFF<Bit>,
    // Constants.
    c_cap: Constant<Bits<16>>,
    c_cap_m1: Constant<Bits<16>>,
    c_amask: Constant<Bits<16>>,
    c_w: Constant<Bits<16>>,
    c_w2: Constant<Bits<16>>,
    c_ones_w: Constant<Bits<W>>,
    // Write side.
    take: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    occ: Signal<Local, Bits<16>>,
    push: Signal<Local, Bit>,
    room0: Signal<Local, Bit>,
    room1: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    dok0: Signal<Local, Bit>,
    dok1: Signal<Local, Bit>,
    dok: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    // Read side.
    d_user: Signal<Local, Bits<DESC_USER>>,
    push_user: Signal<Local, Bits<DESC_USER>>,
    cur_le: Signal<Local, Bit>,
    d_err: Signal<Local, Bit>,
    cur_rem: Signal<Local, Bits<16>>,
    head_ok: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    r_last: Signal<Local, Bit>,
    r_n: Signal<Local, Bits<16>>,
    rd_next: Signal<Local, Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> RxRelease<W, B, A> {
    /// Builds the buffer; panics with a message naming the rule if `W`/`B`/`A` is illegal.
    pub fn new() -> Self {
        check_stream_params("RxRelease", W, B, RX_ULPDU_USER);
        crate::tx::check_tx_width("RxRelease", W);
        assert!(
            (4..=15).contains(&A) && Self::max_ulpdu() <= golden::mulpdu::ULPDU_MAX as usize,
            "RxRelease: 2^A beats (A = {A}) must be 16 to 32768 beats and hold at most 64768 \
             octets of ULPDU"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            dropped: Default::default(),
            ram: Default::default(),
            desc: RegFifo::new(32),
            out: StreamOutQ::new(),
            wr: Default::default(),
            ready_q: Default::default(),
            dead: Default::default(),
            dcnt: Default::default(),
            drop_q: Default::default(),
            rd: Default::default(),
            r_mid: Default::default(),
            r_rem: Default::default(),
            r_le: Default::default(),
            c_w2: Constant::new(((2 * W) as u64).into()),
            c_cap: Constant::new((1u64 << A).into()),
            c_cap_m1: Constant::new(((1u64 << A) - 1).into()),
            c_amask: Constant::new(((1u64 << A) - 1).into()),
            c_w: Constant::new((W as u64).into()),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            take: Default::default(),
            ends: Default::default(),
            bad: Default::default(),
            occ: Default::default(),
            push: Default::default(),
            room0: Default::default(),
            room1: Default::default(),
            room: Default::default(),
            dok0: Default::default(),
            dok1: Default::default(),
            dok: Default::default(),
            pop: Default::default(),
            d_user: Default::default(),
            push_user: Default::default(),
            cur_le: Default::default(),
            d_err: Default::default(),
            cur_rem: Default::default(),
            head_ok: Default::default(),
            go: Default::default(),
            r_last: Default::default(),
            r_n: Default::default(),
            rd_next: Default::default(),
        }
    }

    /// Beats the buffer holds.
    pub const fn beats() -> usize {
        1 << A
    }

    /// The largest ULPDU the buffer can hold before release: `(2^A - 1) * W` octets (one beat is
    /// kept free for a bad packet's closing null beat).
    pub const fn max_ulpdu() -> usize {
        ((1 << A) - 1) * W
    }

    /// Cycles from the transfer of a good packet's last beat to the transfer of its first beat
    /// out, with nothing ahead of it and no backpressure.
    pub fn latency() -> usize {
        3
    }
}

impl<const W: usize, const B: usize, const A: usize> Default for RxRelease<W, B, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for RxRelease<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, ready_q, dead, dcnt, drop_q, rd, r_mid, r_rem, r_le);
        self.ram.clock.next = self.clock.val();
        self.desc.clock.next = self.clock.val();
        self.desc.rst.next = self.rst.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.dropped.next = self.drop_q.q.val();
        self.drop_q.d.next = false;

        // ---- Write side: every beat into the RAM; the last beat commits or rolls back. ----
        self.s_axis.ready.next = self.ready_q.q.val() | self.dead.q.val();
        self.take.next = self.s_axis.valid.val() & (self.ready_q.q.val() | self.dead.q.val());
        self.ends.next = self.take.val() & self.s_axis.last.val() & !self.dead.q.val();
        self.bad.next = self.s_axis.user.val().get_value_rx_ulpdu_err();
        self.ram.write_address.next = bit_cast::<A, 16>(self.wr.q.val() & self.c_amask.val());
        self.ram.write_data.next = self.s_axis.data.val();
        self.ram.write_enable.next =
            self.take.val() & !self.dead.q.val() & !(self.s_axis.last.val() & self.bad.val());
        if self.take.val() & !self.dead.q.val() {
            self.wr.d.next = self.wr.q.val() + 1;
        }
        if self.ends.val() & self.bad.val() {
            // The bad packet's beats are never read; its descriptor is the error packet.
            self.dead.d.next = true;
            self.drop_q.d.next = true;
        }
        // The descriptor reaches the read side two cycles after the last beat's RAM write, so
        // every beat of its packet is in the RAM when the read side starts it.
        self.push.next = self.ends.val();
        self.desc.push.next = self.push.val();
        self.push_user.next = bit_cast::<DESC_USER, RX_ULPDU_USER>(self.s_axis.user.val());
        self.push_user.next.set_value_rel_desc_one_beat(
            self.s_axis.user.val().get_value_rx_ulpdu_len() <= self.c_w.val(),
        );
        self.desc.push_data.next = self.push_user.val();

        // ---- Read side: the oldest descriptor's beats, keep and last rebuilt from its length. ----
        self.d_user.next = self.desc.out_data.val();
        self.d_err.next = self.d_user.val().get_value_rel_desc_err();
        // The octets left and "W or less" (registers only: no comparison before the decision).
        self.cur_rem.next = self.r_rem.q.val();
        self.cur_le.next = self.r_le.q.val();
        if !self.r_mid.q.val() {
            self.cur_rem.next = self.d_user.val().get_value_rel_desc_len();
            self.cur_le.next = self.d_user.val().get_value_rel_desc_one_beat();
        }
        self.head_ok.next = self.desc.out_valid.val();
        self.go.next = self.head_ok.val() & self.out.s_axis.ready.val();
        self.r_last.next = self.d_err.val() | self.cur_le.val();
        self.r_n.next = self.cur_rem.val();
        if !self.cur_le.val() {
            self.r_n.next = self.c_w.val();
        }
        if self.d_err.val() {
            self.r_n.next = 0.into();
        }
        self.out.s_axis.data.next = self.ram.read_data.val();
        self.out.s_axis.keep.next = !(self.c_ones_w.val() << self.r_n.val());
        self.out.s_axis.user.next = bit_cast::<RX_ULPDU_USER, DESC_USER>(self.d_user.val());
        self.out.s_axis.last.next = self.r_last.val();
        self.out.s_axis.valid.next = self.go.val();
        self.pop.next = self.go.val() & self.r_last.val();
        self.desc.out_ready.next = self.pop.val();
        self.rd_next.next = self.rd.q.val();
        if self.go.val() & !self.d_err.val() {
            self.rd_next.next = self.rd.q.val() + 1;
        }
        self.rd.d.next = self.rd_next.val();
        // The RAM reads every cycle: its output is always the word at the read pointer.
        self.ram.read_address.next = bit_cast::<A, 16>(self.rd_next.val() & self.c_amask.val());
        if self.go.val() {
            self.r_mid.d.next = !self.r_last.val();
            self.r_rem.d.next = self.cur_rem.val() - self.c_w.val();
            self.r_le.d.next = self.cur_rem.val() <= self.c_w2.val();
        }

        // ---- Room: beats (conservative by the reads of this cycle) and descriptors. ----
        // Both outcomes of this cycle's write (occupancy + 0 or + 1) and descriptor push are
        // compared beside the handshake, which only chooses: no adder after it.
        self.occ.next = self.wr.q.val() - self.rd.q.val();
        self.room0.next = self.occ.val() < self.c_cap.val();
        // occ + 1 < cap as occ < cap - 1: one comparison, no adder before it.
        self.room1.next = self.occ.val() < self.c_cap_m1.val();
        self.dok0.next = self.dcnt.q.val() < 30;
        self.dok1.next = self.dcnt.q.val() < 29;
        self.dcnt.d.next = self.dcnt.q.val();
        if self.push.val() & !self.pop.val() {
            self.dcnt.d.next = self.dcnt.q.val() + 1;
        }
        if !self.push.val() & self.pop.val() {
            self.dcnt.d.next = self.dcnt.q.val() - 1;
        }
        self.room.next = self.room0.val();
        if self.take.val() & !self.dead.q.val() {
            self.room.next = self.room1.val();
        }
        self.dok.next = self.dok0.val();
        if self.push.val() {
            self.dok.next = self.dok1.val();
        }
        self.ready_q.d.next = self.room.val() & self.dok.val();

        // Reset.
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.ram.read_address.next = 0.into();
            self.r_mid.d.next = false;
            self.dead.d.next = false;
            self.dcnt.d.next = 0.into();
            self.ready_q.d.next = true;
            self.drop_q.d.next = false;
        }
    }
}
