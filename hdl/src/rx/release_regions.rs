//! `RxReleaseRegions`: verify-before-release (RFC 5044 sections 6, 8) for a verification path
//! that serves several connections, one region of the buffer per connection.
//!
//! Section 6: "MPA MUST verify [the FPDU] before passing the ULPDU to the ULP"; section 8: after
//! an error nothing more is delivered on that half connection. [`super::release::RxRelease`]
//! holds one connection's ULPDUs in one FIFO-ordered RAM. Here the path in front
//! ([`super::verify::RxVerify::with_context`]) switches connections between segments, and a
//! ULPDU may be open across a switch (its first beats in, its last one segment later), so the
//! buffer is cut into `regions` rings, one per connection, and the connection being written is
//! chosen by a context record, [`RelCtx`] (37 bits: the next beat's slot, the open ULPDU's
//! first slot, the stream ended, the connection), loaded with the path's other records.
//!
//! A ULPDU's descriptor (sequence number, length, verdict, connection, first slot) is queued when
//! its last beat arrives, in the order ULPDUs complete; the read side takes descriptors in that
//! order, so each connection's ULPDUs leave in its own order and complete ULPDUs of one
//! connection never wait behind another's open one. A bad ULPDU's beats are never read: its
//! descriptor becomes one error packet (a null beat, `keep` 0, `last`, the error bit and the
//! section 8 code in the sideband), and the record's `dead` drops every later beat of that
//! connection. The error packet frees the bad ULPDU's slots like a read ULPDU frees its own, so
//! a region is reused (a new connection in it, or the same one after a resynchronisation) with
//! [`RelCtx::renew`] of its last record, which also drops an open ULPDU's beats; never with
//! [`RelCtx::fresh`], which is for a region untouched since `rst`.
//!
//! ```text
//!  s_axis ─► write at (conn, wr) ─► BlockRam<8W, A> ─► read at (cur.conn, rd) ─► StreamOutQ ─► m_axis, m_conn
//!   last beat: descriptor ─► RegFifo (32) ─► cur (the packet being read)
//!   record (wr, start, dead, conn) ◄─► ctx_in / ctx_out      read pointers per region: rd_tab
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (empties every region; the loaded record becomes connection 0's fresh one) |
//! | `s_axis` | in | 8W | ULPDU packets of the connection loaded, `user` as [`RX_ULPDU_USER`], verdict on the last beat; full beats except the last |
//! | `m_axis` | out | 8W | verified ULPDU packets (an empty ULPDU is one null beat) and error packets, every beat's `user` the descriptor's |
//! | `m_conn` | out | 4 | the connection of the packet on `m_axis` |
//! | `dropped` | out | 1 | pulse: a bad ULPDU was dropped |
//! | `ctx_in`, `ctx_load` | in | 37, 1 | load this record ([`RelCtx`]; a connection's first is [`RelCtx::fresh`] after `rst`, [`RelCtx::renew`] of the region's last record after that); its `conn` must be below `regions` (higher bits are ignored, so such connections would share a region); no beat is taken in a load's cycle or the next two |
//! | `ctx_out` | out | 37 | the record of the connection loaded (final in any cycle without a beat taken: a beat is written in the cycle it is taken) |
//!
//! ### Parameters
//! `W` bytes per beat, `B = 8W`, `A` address bits (`2^A` beats in all); `regions` (constructor):
//! 1, 2, 4, 8 or 16, each `2^A / regions` beats. A ULPDU must fit in a region less one beat
//! ([`RxReleaseRegions::max_ulpdu`]); the path in front rejects longer ULPDU_Lengths (code 2)
//! before any of their octets arrive.
//!
//! ### Latency and throughput
//! A good packet's last beat written at cycle t: its first beat leaves at t+4 (descriptor FIFO,
//! the read side's current descriptor, output queue), one cycle more than `RxRelease`: the
//! current descriptor's register lets the next packet's first word be read (its slot is in the
//! next descriptor) in the cycle the current packet's last beat leaves. One beat per cycle in
//! and out, one-beat packets included (both asserted in `testbench/tests/rx_release.rs`). A
//! region's slots are freed when its packet has been read out whole. After a load the input
//! waits two cycles (its room is worked out for the new region from a register holding the
//! region's read pointer, a cycle late: the select of 16 pointers was this block's critical
//! path).
//!
//! ### Reset
//! `rst` empties the buffer, the descriptor FIFO and every region's read pointer, and loads
//! connection 0's fresh record.

use crate::block_ram::BlockRam;
use crate::fifo::RegFifo;
use crate::sideband::{RxUlpduUserFields, RX_ULPDU_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The release buffer's context record: where the connection loaded writes.
    RelCtx, prefix rel_ctx, bits 37, {
        /// Beats written into the connection's region (free-running; the next beat's slot is
        /// this modulo the region's size).
        wr: Bits<16> = 0,
        /// `wr` at the open ULPDU's first beat (equal to `wr` when none is open).
        start: Bits<16> = 16,
        /// The stream has ended (an error packet was queued): every beat is dropped.
        dead: Bit = 32,
        /// The connection, which is also its region (below `regions`).
        conn: Bits<4> = 33,
    }
}

/// Width of a [`RelCtx`] record.
pub const REL_CTX_BITS: usize = RelCtx::BITS;

impl RelCtx {
    /// The record of connection `conn` before its first ULPDU, for a region untouched since
    /// `rst`.
    pub fn fresh(conn: u8) -> Self {
        RelCtx { conn: conn as u64, ..Default::default() }
    }

    /// The record that starts the region of `last` (the region's last record saved) again for
    /// a new stream: nothing ended, and an open ULPDU's beats dropped (its slots written
    /// again). Every ULPDU and error packet queued before stays queued and leaves.
    pub fn renew(last: RelCtx) -> Self {
        RelCtx { wr: last.start, start: last.start, dead: false, conn: last.conn }
    }
}

crate::sideband::sideband! {
    /// A descriptor (inside the block): [`crate::sideband::RxUlpduUser`], whether the ULPDU
    /// fits one beat, its first slot and its connection.
    RegDescUser, prefix reg_desc, bits RX_ULPDU_USER + 21, {
        /// As [`crate::sideband::RxUlpduUser::len`].
        len: Bits<16> = crate::sideband::RxUlpduUser::LEN_AT,
        /// As [`crate::sideband::RxUlpduUser::err`].
        err: Bit = crate::sideband::RxUlpduUser::ERR_AT,
        /// ULPDU_Length is W or less: the packet is one beat.
        one_beat: Bit = RX_ULPDU_USER,
        /// The record's `start`: its first beat's slot (free-running); for an error packet,
        /// the slot after the bad ULPDU's last (what its region is freed up to).
        start: Bits<16> = RX_ULPDU_USER + 1,
        /// Its connection.
        conn: Bits<4> = RX_ULPDU_USER + 17,
    }
}
const DESC: usize = RegDescUser::BITS;

crate::sideband::sideband! {
    /// The output queue's `user` (inside the block): [`crate::sideband::RxUlpduUser`] and,
    /// above it, the connection.
    RegOutUser, prefix reg_out, bits RX_ULPDU_USER + 4, {
        /// The packet's connection.
        conn: Bits<4> = RX_ULPDU_USER,
    }
}
const OUT_USER: usize = RegOutUser::BITS;

/// The release buffer with a region per connection; see the module documentation.
#[derive(LogicBlock)]
pub struct RxReleaseRegions<const W: usize, const B: usize, const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// ULPDU packets of the connection loaded, verdict on the last beat.
    pub s_axis: StreamSink<W, B, RX_ULPDU_USER>,
    /// Verified ULPDU packets and error packets.
    pub m_axis: StreamSource<W, B, RX_ULPDU_USER>,
    /// The connection of the packet on `m_axis`.
    pub m_conn: Signal<Out, Bits<4>>,
    /// Pulse: a bad ULPDU was dropped.
    pub dropped: Signal<Out, Bit>,
    /// A record to load.
    pub ctx_in: Signal<In, Bits<REL_CTX_BITS>>,
    /// Load it.
    pub ctx_load: Signal<In, Bit>,
    /// The record of the connection loaded.
    pub ctx_out: Signal<Out, Bits<REL_CTX_BITS>>,
    ram: BlockRam<B, A>,
    desc: RegFifo<DESC>,
    out: StreamOutQ<W, B, OUT_USER>,
    // Write side: the record, and the room.
    wr: DFF<Bits<16>>,
    start: DFF<Bits<16>>,
    dead: DFF<Bit>,
    conn: DFF<Bits<4>>,
    ready_q: DFF<Bit>,
    // The loaded region's read pointer, a cycle late (it only moves forward, so the room is
    // conservative), and "a load was in the last cycle" (the pointer is not yet the region's).
    rd_cur: DFF<Bits<16>>,
    loaded: DFF<Bit>,
    dcnt: DFF<Bits<6>>,
    drop_q: DFF<Bit>,
    // Read side: every region's read pointer (free-running: slots up to it are free), the
    // packet being read.
    rd_tab: Vec<DFF<Bits<16>>>,
    c_idx: Vec<Constant<Bits<4>>>,
    cur_v: DFF<Bit>,
    cur: DFF<Bits<DESC>>,
    rd: DFF<Bits<16>>,
    r_rem: DFF<Bits<16>>,
    // r_rem is W or less (the beat being read is the packet's last).
    r_le: DFF<Bit>,
    // Constants.
    c_shift: Constant<Bits<16>>,
    c_rmask: Constant<Bits<16>>,
    c_cmask: Constant<Bits<4>>,
    c_cap: Constant<Bits<16>>,
    c_cap_m1: Constant<Bits<16>>,
    c_w: Constant<Bits<16>>,
    c_w2: Constant<Bits<16>>,
    c_ones_w: Constant<Bits<W>>,
    // Write side.
    take: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    rd_w: Signal<Local, Bits<16>>,
    occ: Signal<Local, Bits<16>>,
    room: Signal<Local, Bit>,
    dok: Signal<Local, Bit>,
    push_user: Signal<Local, Bits<DESC>>,
    in_rec: Signal<Local, Bits<REL_CTX_BITS>>,
    rec: Signal<Local, Bits<REL_CTX_BITS>>,
    // Read side.
    head: Signal<Local, Bits<DESC>>,
    cur_err: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    r_last: Signal<Local, Bit>,
    r_n: Signal<Local, Bits<16>>,
    advance: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    freed: Signal<Local, Bit>,
    rd_next: Signal<Local, Bits<16>>,
    rd_free: Signal<Local, Bits<16>>,
    r_conn: Signal<Local, Bits<4>>,
    out_user: Signal<Local, Bits<OUT_USER>>,
}

impl<const W: usize, const B: usize, const A: usize> RxReleaseRegions<W, B, A> {
    /// Builds the buffer with `regions` regions; panics with a message naming the rule if a
    /// parameter is illegal.
    pub fn new(regions: usize) -> Self {
        check_stream_params("RxReleaseRegions", W, B, RX_ULPDU_USER);
        crate::tx::check_tx_width("RxReleaseRegions", W);
        assert!(
            regions.is_power_of_two() && regions <= 16,
            "RxReleaseRegions: regions = {regions} must be 1, 2, 4, 8 or 16"
        );
        let shift = A - regions.trailing_zeros() as usize;
        assert!(
            (4..=15).contains(&A) && shift >= 4 && ((1usize << shift) - 1) * W <= 64768,
            "RxReleaseRegions: 2^A beats (A = {A}) must be 16 to 32768 beats, each of the \
             {regions} regions at least 16 beats and holding at most 64768 octets of ULPDU"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            m_conn: Default::default(),
            dropped: Default::default(),
            ctx_in: Default::default(),
            ctx_load: Default::default(),
            ctx_out: Default::default(),
            ram: Default::default(),
            desc: RegFifo::new(32),
            out: StreamOutQ::new(),
            wr: Default::default(),
            start: Default::default(),
            dead: Default::default(),
            conn: Default::default(),
            ready_q: Default::default(),
            rd_cur: Default::default(),
            loaded: Default::default(),
            dcnt: Default::default(),
            drop_q: Default::default(),
            rd_tab: (0..regions).map(|_| Default::default()).collect(),
            c_idx: (0..regions).map(|k| Constant::new((k as u64).into())).collect(),
            cur_v: Default::default(),
            cur: Default::default(),
            rd: Default::default(),
            r_rem: Default::default(),
            r_le: Default::default(),
            c_shift: Constant::new((shift as u64).into()),
            c_rmask: Constant::new(((1u64 << shift) - 1).into()),
            c_cmask: Constant::new(((regions - 1) as u64).into()),
            c_cap: Constant::new((1u64 << shift).into()),
            c_cap_m1: Constant::new(((1u64 << shift) - 1).into()),
            c_w: Constant::new((W as u64).into()),
            c_w2: Constant::new(((2 * W) as u64).into()),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            take: Default::default(),
            ends: Default::default(),
            bad: Default::default(),
            rd_w: Default::default(),
            occ: Default::default(),
            room: Default::default(),
            dok: Default::default(),
            push_user: Default::default(),
            in_rec: Default::default(),
            rec: Default::default(),
            head: Default::default(),
            cur_err: Default::default(),
            go: Default::default(),
            r_last: Default::default(),
            r_n: Default::default(),
            advance: Default::default(),
            pop: Default::default(),
            freed: Default::default(),
            rd_next: Default::default(),
            rd_free: Default::default(),
            r_conn: Default::default(),
            out_user: Default::default(),
        }
    }

    /// Beats of one region of a buffer of `regions` regions.
    pub const fn region_beats(regions: usize) -> usize {
        (1 << A) / regions
    }

    /// The largest ULPDU a region holds before release: `(2^A / regions - 1) * W` octets.
    pub const fn max_ulpdu(regions: usize) -> usize {
        (Self::region_beats(regions) - 1) * W
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for RxReleaseRegions<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wr, start, dead, conn, ready_q, rd_cur, loaded, dcnt, drop_q, cur_v, cur,
            rd, r_rem, r_le
        );
        self.ram.clock.next = self.clock.val();
        self.desc.clock.next = self.clock.val();
        self.desc.rst.next = self.rst.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = bit_cast::<RX_ULPDU_USER, OUT_USER>(self.out.m_axis.user.val());
        self.m_conn.next = self.out.m_axis.user.val().get_value_reg_out_conn();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.dropped.next = self.drop_q.q.val();
        self.drop_q.d.next = false;

        // ---- The record. ----
        self.rec.next = 0.into();
        self.rec.next.set_value_rel_ctx_wr(self.wr.q.val());
        self.rec.next.set_value_rel_ctx_start(self.start.q.val());
        self.rec.next.set_value_rel_ctx_dead(self.dead.q.val());
        self.rec.next.set_value_rel_ctx_conn(self.conn.q.val());
        self.ctx_out.next = self.rec.val();

        // ---- Write side: every beat into the connection's region; the last queues it. ----
        self.s_axis.ready.next = (self.ready_q.q.val() | self.dead.q.val()) & !self.ctx_load.val();
        self.take.next = self.s_axis.valid.val()
            & (self.ready_q.q.val() | self.dead.q.val())
            & !self.ctx_load.val();
        self.ends.next = self.take.val() & self.s_axis.last.val() & !self.dead.q.val();
        self.bad.next = self.s_axis.user.val().get_value_rx_ulpdu_err();
        self.ram.write_address.next = bit_cast::<A, 16>(
            (bit_cast::<16, 4>(self.conn.q.val()) << self.c_shift.val())
                | (self.wr.q.val() & self.c_rmask.val()),
        );
        self.ram.write_data.next = self.s_axis.data.val();
        self.ram.write_enable.next =
            self.take.val() & !self.dead.q.val() & !(self.s_axis.last.val() & self.bad.val());
        if self.take.val() & !self.dead.q.val() {
            self.wr.d.next = self.wr.q.val() + 1;
        }
        if self.ends.val() {
            self.start.d.next = self.wr.q.val() + 1;
        }
        if self.ends.val() & self.bad.val() {
            // The bad packet's beats are never read; its descriptor is the error packet.
            self.dead.d.next = true;
            self.drop_q.d.next = true;
        }
        self.desc.push.next = self.ends.val();
        self.push_user.next = bit_cast::<DESC, RX_ULPDU_USER>(self.s_axis.user.val());
        self.push_user.next.set_value_reg_desc_one_beat(
            self.s_axis.user.val().get_value_rx_ulpdu_len() <= self.c_w.val(),
        );
        self.push_user.next.set_value_reg_desc_start(self.start.q.val());
        if self.bad.val() {
            self.push_user.next.set_value_reg_desc_start(self.wr.q.val() + 1);
        }
        self.push_user.next.set_value_reg_desc_conn(self.conn.q.val());
        self.desc.push_data.next = self.push_user.val();

        // ---- Read side: the current descriptor's beats; the next taken as its last leaves. ----
        self.head.next = self.desc.out_data.val();
        self.cur_err.next = self.cur.q.val().get_value_reg_desc_err();
        self.go.next = self.cur_v.q.val() & self.out.s_axis.ready.val();
        self.r_last.next = self.cur_err.val() | self.r_le.q.val();
        self.r_n.next = self.r_rem.q.val();
        if !self.r_le.q.val() {
            self.r_n.next = self.c_w.val();
        }
        if self.cur_err.val() {
            self.r_n.next = 0.into();
        }
        self.out_user.next = bit_cast::<OUT_USER, DESC>(self.cur.q.val());
        self.out_user.next.set_value_reg_out_conn(self.cur.q.val().get_value_reg_desc_conn());
        self.out.s_axis.data.next = self.ram.read_data.val();
        self.out.s_axis.keep.next = !(self.c_ones_w.val() << self.r_n.val());
        self.out.s_axis.user.next = self.out_user.val();
        self.out.s_axis.last.next = self.r_last.val();
        self.out.s_axis.valid.next = self.cur_v.q.val();
        self.advance.next = !self.cur_v.q.val() | (self.go.val() & self.r_last.val());
        self.pop.next = self.advance.val() & self.desc.out_valid.val();
        self.desc.out_ready.next = self.advance.val();
        // A packet read out whole frees its region's slots: a good one up to its last beat's,
        // an error packet up to the bad ULPDU's (its descriptor's `start`, in `rd`).
        self.freed.next = self.go.val() & self.r_last.val();
        self.rd_free.next = self.rd.q.val() + 1;
        if self.cur_err.val() {
            self.rd_free.next = self.rd.q.val();
        }
        for k in 0..self.rd_tab.len() {
            self.rd_tab[k].clock.next = self.clock.val();
            self.rd_tab[k].d.next = self.rd_tab[k].q.val();
            if self.freed.val()
                & (self.cur.q.val().get_value_reg_desc_conn() == self.c_idx[k].val())
            {
                self.rd_tab[k].d.next = self.rd_free.val();
            }
            if self.rst.val() {
                self.rd_tab[k].d.next = 0.into();
            }
        }
        self.rd_next.next = self.rd.q.val();
        self.r_conn.next = self.cur.q.val().get_value_reg_desc_conn();
        if self.go.val() {
            self.rd_next.next = self.rd.q.val() + 1;
            self.r_rem.d.next = self.r_rem.q.val() - self.c_w.val();
            self.r_le.d.next = self.r_rem.q.val() <= self.c_w2.val();
        }
        if self.advance.val() {
            self.cur_v.d.next = self.desc.out_valid.val();
            self.cur.d.next = self.head.val();
            self.rd_next.next = self.head.val().get_value_reg_desc_start();
            self.r_conn.next = self.head.val().get_value_reg_desc_conn();
            self.r_rem.d.next = self.head.val().get_value_reg_desc_len();
            self.r_le.d.next = self.head.val().get_value_reg_desc_one_beat();
        }
        self.rd.d.next = self.rd_next.val();
        // The RAM reads every cycle: its output is the word at the read pointer.
        self.ram.read_address.next = bit_cast::<A, 16>(
            (bit_cast::<16, 4>(self.r_conn.val()) << self.c_shift.val())
                | (self.rd_next.val() & self.c_rmask.val()),
        );

        // ---- Room: the loaded connection's region, and descriptors. ----
        self.rd_w.next = self.rd_tab[0].q.val();
        for k in 0..self.rd_tab.len() {
            if self.conn.q.val() == self.c_idx[k].val() {
                self.rd_w.next = self.rd_tab[k].q.val();
            }
        }
        self.rd_cur.d.next = self.rd_w.val();
        self.loaded.d.next = self.ctx_load.val();
        self.occ.next = self.wr.q.val() - self.rd_cur.q.val();
        self.room.next = self.occ.val() < self.c_cap.val();
        if self.take.val() & !self.dead.q.val() {
            self.room.next = self.occ.val() < self.c_cap_m1.val();
        }
        self.dcnt.d.next = self.dcnt.q.val();
        if self.ends.val() & !self.pop.val() {
            self.dcnt.d.next = self.dcnt.q.val() + 1;
        }
        if !self.ends.val() & self.pop.val() {
            self.dcnt.d.next = self.dcnt.q.val() - 1;
        }
        self.dok.next = self.dcnt.q.val() < 30;
        if self.ends.val() {
            self.dok.next = self.dcnt.q.val() < 29;
        }
        self.ready_q.d.next = self.room.val() & self.dok.val() & !self.loaded.q.val();

        // ---- A load: the record in; the room is worked out again for its region. ----
        self.in_rec.next = self.ctx_in.val();
        if self.ctx_load.val() {
            self.wr.d.next = self.in_rec.val().get_value_rel_ctx_wr();
            self.start.d.next = self.in_rec.val().get_value_rel_ctx_start();
            self.dead.d.next = self.in_rec.val().get_value_rel_ctx_dead();
            self.conn.d.next = self.in_rec.val().get_value_rel_ctx_conn() & self.c_cmask.val();
            self.ready_q.d.next = false;
        }

        // Reset.
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.start.d.next = 0.into();
            self.dead.d.next = false;
            self.conn.d.next = 0.into();
            self.cur_v.d.next = false;
            self.loaded.d.next = false;
            self.rd_cur.d.next = 0.into();
            self.dcnt.d.next = 0.into();
            self.ready_q.d.next = true;
            self.drop_q.d.next = false;
        }
    }
}
