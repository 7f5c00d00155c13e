//! `PlaceWriter`: DDP payload into memory through an AXI4 write master (RFC 5041 section 3:
//! "placement" of the payload at its buffer address).
//!
//! One write descriptor per ULPDU ([`crate::place::desc`]: address, payload length, header
//! octets to skip, write or discard) and the ULPDU's beats (lane 0 the first octet of the ULPDU)
//! in; INCR bursts out, each at most 256 beats and never across a 4 KiB boundary (AXI4 A3.4.1),
//! the first starting at the payload's exact address, with write strobes on the partial first and
//! last beats. The payload is moved from its lanes in the ULPDU to the memory's lanes whatever
//! the header length and the address alignment (a two-beat window, a lane mask and a rotation).
//!
//! ```text
//!  desc ─► AW engine ─► AW slice (2) ─► m_axi_aw*   (bursts: min(256, to the 4 KiB boundary, left))
//!             │  └──► fence FIFO (bursts issued so far) ─► fence_* (to the delivery block)
//!             └──► W command FIFO ─► W engine ─► W slot ─► m_axi_w*
//!  s_axis (ULPDU beats) ─────────────────┘  prev | cur ─► lane merge ─► rotate right by r lanes
//!                                           (or a finished command's flush beat from prev)
//!  m_axi_b* ─► responses counted; SLVERR/DECERR: sticky error, the burst's number kept
//! ```
//!
//! A descriptor with the fence bit set yields one fence entry: the number of bursts issued once
//! its last burst is issued (into the AW slice, so before the bus takes it: no response can
//! come earlier). The delivery block releases a record when that many responses
//! have arrived, so no record is visible before its data is in memory. `bready` is always high.
//! AW and W are independent (neither waits for the other's ready, A3.3.1).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset (use only with the memory reset too: it abandons bursts) |
//! | `clr_err` | in | 1 | a new connection starts (the writer is idle): forget a failed response |
//! | `desc_valid`, `desc_data`, `desc_ready` | in, in, out | 1, 87, 1 | write descriptors |
//! | `s_axis` | in | 8W | the ULPDUs' beats, one packet per descriptor, in order |
//! | `m_axi` | | | AXI4 write channels ([`crate::axi::Axi4WriteMaster`]), registered |
//! | `fence_valid`, `fence_data`, `fence_ready` | out, out, in | 1, 32, 1 | fence entries (bursts issued), from a FIFO |
//! | `bursts`, `responses`, `write_errors` | out | 32 | counters: AW issued (into the AW slice, at most two ahead of the bus), B received, B with SLVERR/DECERR |
//! | `b_err`, `b_err_at` | out | 1, 32 | sticky: a response was an error; the number of responses before it |
//! | `idle` | out | 1 | no descriptor in progress and every burst answered |
//!
//! ### Parameters
//! `W` bytes per beat (the AXI data bus is 8W bits), `B = 8W`.
//!
//! ### Latency and throughput
//! The first AW two cycles after the descriptor (the first burst's length is worked out from
//! the descriptor in its own cycle, the burst goes into the two-entry AW slice in the next);
//! a descriptor's further bursts two cycles apart (a prep cycle each). A descriptor is taken
//! every cycle while each has a single burst (the next is taken in the cycle the engine's last
//! burst goes into the slice). The first W beat four cycles after the
//! descriptor or three after its first payload beat, whichever is later. One W beat per cycle
//! within a descriptor, and no cycle between descriptors: when a payload's last octets sit in
//! the ULPDU's last beat but need one more memory beat (the flush beat), that beat goes out in
//! the next cycle beside the next ULPDU's first beat, which writes nothing when its payload
//! starts after its header in memory lanes (header octets at least the address's lane);
//! otherwise the next ULPDU waits a cycle.
//!
//! ### On bad input
//! A descriptor with the write bit clear, or a zero length, writes nothing and discards its
//! ULPDU's beats; so does every descriptor taken after a response was SLVERR or DECERR (until
//! `clr_err`). Extra beats after a payload are consumed until the ULPDU's last beat. The
//! writer trusts the descriptor's address (the checker has bounded it).

use crate::axi::{
    Axi4WriteMaster, AXI_BOUNDARY, AXI_BURST_INCR, AXI_CACHE_NONBUFFERABLE, AXI_MAX_BURST,
};
use crate::fifo::RegFifo;
use crate::place::desc;
use crate::skid::SkidBuffer;
use crate::stream::{check_stream_params, StreamSink};
use rust_hdl::prelude::*;

/// Bits of a W command: `[0]` write, `[16:1]` length, `[22:17]` address mod W, `[27:23]` skip,
/// `[39:28]` address bits 11:0, `[55:40]` beats.
const WQ_BITS: usize = 56;

/// The writer; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceWriter<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// A new connection: forget the failed response (the writer is idle).
    pub clr_err: Signal<In, Bit>,
    /// Descriptor offered.
    pub desc_valid: Signal<In, Bit>,
    /// Descriptor.
    pub desc_data: Signal<In, Bits<{ desc::BITS }>>,
    /// Descriptor taken.
    pub desc_ready: Signal<Out, Bit>,
    /// ULPDU beats.
    pub s_axis: StreamSink<W, B, 1>,
    /// AXI4 write channels.
    pub m_axi: Axi4WriteMaster<W, B>,
    /// Fence entry offered.
    pub fence_valid: Signal<Out, Bit>,
    /// Bursts issued when the descriptor's last burst was issued.
    pub fence_data: Signal<Out, Bits<32>>,
    /// Fence entry taken.
    pub fence_ready: Signal<In, Bit>,
    /// AW bursts issued.
    pub bursts: Signal<Out, Bits<32>>,
    /// B responses received.
    pub responses: Signal<Out, Bits<32>>,
    /// B responses that were errors.
    pub write_errors: Signal<Out, Bits<32>>,
    /// Sticky: a response was an error.
    pub b_err: Signal<Out, Bit>,
    /// Responses received before the first error.
    pub b_err_at: Signal<Out, Bits<32>>,
    /// Nothing in progress, every burst answered.
    pub idle: Signal<Out, Bit>,
    wq: RegFifo<WQ_BITS>,
    fq: RegFifo<32>,
    // AW engine.
    a_busy: DFF<Bit>,
    a_addr: DFF<Bits<64>>,
    a_left: DFF<Bits<17>>,
    a_fence: DFF<Bit>,
    a_prep: DFF<Bit>,
    a_burst: DFF<Bits<17>>,
    a_last: DFF<Bit>,
    // The engine's item is a fenced descriptor that writes nothing: no burst, only its fence.
    a_zero: DFF<Bit>,
    // Issued bursts (`awlen` in bits 71:64, `awaddr` below) on their way to the bus.
    aw_q: SkidBuffer<Bits<72>>,
    aw_total: DFF<Bits<32>>,
    inflight: DFF<Bits<6>>,
    // W engine.
    w_busy: DFF<Bit>,
    // Beats of the command still to write, and three flags kept beside the count so that no
    // comparison of it sits in the handshake path: some left, exactly one left, none written.
    w_rem: DFF<Bits<17>>,
    w_more: DFF<Bit>,
    w_one: DFF<Bit>,
    w_two: DFF<Bit>,
    w_beat0: DFF<Bit>,
    w_need: DFF<Bits<8>>,
    w_r: DFF<Bits<8>>,
    w_pm: DFF<Bits<B>>,
    w_first: DFF<Bits<W>>,
    w_lastm: DFF<Bits<W>>,
    w_a12: DFF<Bits<12>>,
    w_bcnt: DFF<Bits<8>>,
    w_in_done: DFF<Bit>,
    prev: DFF<Bits<B>>,
    // A handed-off flush beat: waiting, its lane mask, rotation and strobes.
    fl_v: DFF<Bit>,
    fl_pm: DFF<Bits<B>>,
    fl_r: DFF<Bits<8>>,
    fl_strb: DFF<Bits<W>>,
    wv: DFF<Bit>,
    wdata: DFF<Bits<B>>,
    wstrb: DFF<Bits<W>>,
    wlast: DFF<Bit>,
    // B channel.
    b_cnt: DFF<Bits<32>>,
    berr: DFF<Bit>,
    berr_at: DFF<Bits<32>>,
    berr_cnt: DFF<Bits<32>>,
    // Constants.
    c_lw: Constant<Bits<8>>,
    c_wm1_64: Constant<Bits<64>>,
    c_w17: Constant<Bits<17>>,
    c_w12: Constant<Bits<12>>,
    c_last12: Constant<Bits<12>>,
    c_ones_w: Constant<Bits<W>>,
    c_ones_b: Constant<Bits<B>>,
    c_rot_r: Vec<Constant<Bits<16>>>,
    c_rot_l: Vec<Constant<Bits<16>>>,
    c_size: Constant<Bits<3>>,
    c_burst: Constant<Bits<2>>,
    c_cache: Constant<Bits<4>>,
    c_4k: Constant<Bits<17>>,
    c_maxb: Constant<Bits<17>>,
    c_maxb_m1: Constant<Bits<8>>,
    c_d_len: Constant<Bits<8>>,
    c_d_skip: Constant<Bits<8>>,
    c_d_write: Constant<Bits<8>>,
    c_d_fence: Constant<Bits<8>>,
    // Combinational: the descriptor.
    d_addr: Signal<Local, Bits<64>>,
    d_len: Signal<Local, Bits<17>>,
    d_skip: Signal<Local, Bits<8>>,
    d_a: Signal<Local, Bits<8>>,
    d_wr: Signal<Local, Bit>,
    d_fence: Signal<Local, Bit>,
    d_nb: Signal<Local, Bits<17>>,
    d_to4k: Signal<Local, Bits<17>>,
    d_cap: Signal<Local, Bits<17>>,
    a_free: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    // AW burst.
    to4k: Signal<Local, Bits<17>>,
    cap: Signal<Local, Bits<17>>,
    aw_go: Signal<Local, Bit>,
    aligned: Signal<Local, Bits<64>>,
    // W command.
    q_len: Signal<Local, Bits<17>>,
    q_a: Signal<Local, Bits<8>>,
    q_skip: Signal<Local, Bits<8>>,
    q_d: Signal<Local, Bits<8>>,
    q_e: Signal<Local, Bits<8>>,
    start: Signal<Local, Bit>,
    // W beat.
    slot_free: Signal<Local, Bit>,
    more: Signal<Local, Bit>,
    have: Signal<Local, Bit>,
    from_beat: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    cur: Signal<Local, Bits<B>>,
    merged: Signal<Local, Bits<B>>,
    rot: Signal<Local, Bits<B>>,
    is_last: Signal<Local, Bit>,
    q_n: Signal<Local, Bits<17>>,
    strb: Signal<Local, Bits<W>>,
    bl: Signal<Local, Bit>,
    w_done: Signal<Local, Bit>,
    fl_emit: Signal<Local, Bit>,
    may_take: Signal<Local, Bit>,
    rsel: Signal<Local, Bits<8>>,
    more_after: Signal<Local, Bit>,
    one_after: Signal<Local, Bit>,
    handoff: Signal<Local, Bit>,
    infl_next: Signal<Local, Bits<6>>,
}

impl<const W: usize, const B: usize> PlaceWriter<W, B> {
    /// Builds the writer; panics with a message naming the rule if `W`/`B` is illegal.
    pub fn new() -> Self {
        check_stream_params("PlaceWriter", W, B, 1);
        crate::tx::check_tx_width("PlaceWriter", W);
        let lw = W.trailing_zeros() as usize;
        let c8 = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            clr_err: Default::default(),
            desc_valid: Default::default(),
            desc_data: Default::default(),
            desc_ready: Default::default(),
            s_axis: StreamSink::new(),
            m_axi: Default::default(),
            fence_valid: Default::default(),
            fence_data: Default::default(),
            fence_ready: Default::default(),
            bursts: Default::default(),
            responses: Default::default(),
            write_errors: Default::default(),
            b_err: Default::default(),
            b_err_at: Default::default(),
            idle: Default::default(),
            wq: RegFifo::new(16),
            fq: RegFifo::new(16),
            a_busy: Default::default(),
            a_addr: Default::default(),
            a_left: Default::default(),
            a_fence: Default::default(),
            a_prep: Default::default(),
            a_burst: Default::default(),
            a_last: Default::default(),
            a_zero: Default::default(),
            aw_q: Default::default(),
            aw_total: Default::default(),
            inflight: Default::default(),
            w_busy: Default::default(),
            w_rem: Default::default(),
            w_more: Default::default(),
            w_one: Default::default(),
            w_two: Default::default(),
            w_beat0: Default::default(),
            w_need: Default::default(),
            w_r: Default::default(),
            w_pm: Default::default(),
            w_first: Default::default(),
            w_lastm: Default::default(),
            w_a12: Default::default(),
            w_bcnt: Default::default(),
            w_in_done: Default::default(),
            prev: Default::default(),
            fl_v: Default::default(),
            fl_pm: Default::default(),
            fl_r: Default::default(),
            fl_strb: Default::default(),
            wv: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            wlast: Default::default(),
            b_cnt: Default::default(),
            berr: Default::default(),
            berr_at: Default::default(),
            berr_cnt: Default::default(),
            c_lw: c8(lw),
            c_wm1_64: Constant::new(((W - 1) as u64).into()),
            c_w17: Constant::new((W as u64).into()),
            c_w12: Constant::new((W as u64).into()),
            c_last12: Constant::new(((4096 - W) as u64).into()),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_ones_b: Constant::new(Bits::<B>::mask()),
            c_rot_r: (0..lw).map(|s| c16(8 << s)).collect(),
            c_rot_l: (0..lw).map(|s| c16(B - (8 << s))).collect(),
            c_size: Constant::new((lw as u64).into()),
            c_burst: Constant::new(AXI_BURST_INCR.into()),
            c_cache: Constant::new(AXI_CACHE_NONBUFFERABLE.into()),
            c_4k: Constant::new((AXI_BOUNDARY as u64).into()),
            c_maxb: Constant::new((AXI_MAX_BURST as u64).into()),
            c_maxb_m1: Constant::new(((AXI_MAX_BURST - 1) as u64).into()),
            c_d_len: c8(desc::LEN),
            c_d_skip: c8(desc::SKIP),
            c_d_write: c8(desc::WRITE),
            c_d_fence: c8(desc::FENCE),
            d_addr: Default::default(),
            d_len: Default::default(),
            d_skip: Default::default(),
            d_a: Default::default(),
            d_wr: Default::default(),
            d_fence: Default::default(),
            d_nb: Default::default(),
            d_to4k: Default::default(),
            d_cap: Default::default(),
            a_free: Default::default(),
            accept: Default::default(),
            to4k: Default::default(),
            cap: Default::default(),
            aw_go: Default::default(),
            aligned: Default::default(),
            q_len: Default::default(),
            q_a: Default::default(),
            q_skip: Default::default(),
            q_d: Default::default(),
            q_e: Default::default(),
            start: Default::default(),
            slot_free: Default::default(),
            more: Default::default(),
            have: Default::default(),
            from_beat: Default::default(),
            flush: Default::default(),
            take: Default::default(),
            emit: Default::default(),
            cur: Default::default(),
            merged: Default::default(),
            rot: Default::default(),
            is_last: Default::default(),
            q_n: Default::default(),
            strb: Default::default(),
            bl: Default::default(),
            w_done: Default::default(),
            fl_emit: Default::default(),
            may_take: Default::default(),
            rsel: Default::default(),
            more_after: Default::default(),
            one_after: Default::default(),
            handoff: Default::default(),
            infl_next: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Default for PlaceWriter<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for PlaceWriter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, a_busy, a_addr, a_left, a_fence, a_prep, a_burst, a_last, a_zero,
            aw_total, inflight, w_busy, w_rem, w_more, w_one, w_two, w_beat0, w_need, w_r, w_pm,
            w_first, w_lastm, w_a12, w_bcnt, w_in_done, prev, fl_v, fl_pm, fl_r, fl_strb, wv,
            wdata, wstrb, wlast, b_cnt, berr, berr_at, berr_cnt
        );
        self.wq.clock.next = self.clock.val();
        self.wq.rst.next = self.rst.val();
        self.fq.clock.next = self.clock.val();
        self.fq.rst.next = self.rst.val();
        self.fence_valid.next = self.fq.out_valid.val();
        self.fence_data.next = self.fq.out_data.val();
        self.fq.out_ready.next = self.fence_ready.val();
        self.fq.push.next = false;
        self.wq.push.next = false;

        // ---- AXI outputs (registers and constants). ----
        self.aw_q.clock.next = self.clock.val();
        self.aw_q.rst.next = self.rst.val();
        self.m_axi.awaddr.next = self.aw_q.out_data.val().get_bits::<64>(0);
        self.m_axi.awlen.next = self.aw_q.out_data.val().get_bits::<8>(64);
        self.m_axi.awsize.next = self.c_size.val();
        self.m_axi.awburst.next = self.c_burst.val();
        self.m_axi.awcache.next = self.c_cache.val();
        self.m_axi.awprot.next = 0.into();
        self.m_axi.awvalid.next = self.aw_q.out_valid.val();
        self.aw_q.out_ready.next = self.m_axi.awready.val();
        self.m_axi.wdata.next = self.wdata.q.val();
        self.m_axi.wstrb.next = self.wstrb.q.val();
        self.m_axi.wlast.next = self.wlast.q.val();
        self.m_axi.wvalid.next = self.wv.q.val();
        self.m_axi.bready.next = true;
        self.bursts.next = self.aw_total.q.val();
        self.responses.next = self.b_cnt.q.val();
        self.write_errors.next = self.berr_cnt.q.val();
        self.b_err.next = self.berr.q.val();
        self.b_err_at.next = self.berr_at.q.val();

        // ---- Descriptor fields. ----
        self.d_addr.next = self.desc_data.val().get_bits::<64>(0);
        self.d_len.next =
            bit_cast::<17, 16>(self.desc_data.val().get_bits::<16>(self.c_d_len.val().index()));
        self.d_skip.next =
            bit_cast::<8, 5>(self.desc_data.val().get_bits::<5>(self.c_d_skip.val().index()));
        // After a failed response, descriptors write nothing (bursts already issued finish).
        self.d_wr.next = self.desc_data.val().get_bit(self.c_d_write.val().index())
            & (self.d_len.val() != 0)
            & !self.berr.q.val();
        self.d_fence.next = self.desc_data.val().get_bit(self.c_d_fence.val().index());
        self.d_a.next = bit_cast::<8, 64>(self.d_addr.val() & self.c_wm1_64.val());
        // Beats the payload touches: ceil((a + len) / W).
        self.d_nb.next = (bit_cast::<17, 8>(self.d_a.val()) + self.d_len.val() + self.c_w17.val()
            - 1)
            >> self.c_lw.val();
        if !self.d_wr.val() {
            self.d_nb.next = 0.into();
        }
        // The first burst, worked out from the descriptor itself: min(256, beats to the 4 KiB
        // boundary, beats of the payload). (4096 - W is also the mask of a beat's address.)
        self.d_to4k.next = (self.c_4k.val()
            - bit_cast::<17, 12>(self.d_addr.val().get_bits::<12>(0) & self.c_last12.val()))
            >> self.c_lw.val();
        self.d_cap.next = self.d_to4k.val();
        if self.d_to4k.val() > self.c_maxb.val() {
            self.d_cap.next = self.c_maxb.val();
        }

        // ---- AW engine: one item at a time (a written descriptor's bursts, or a fenced
        // descriptor's fence alone); a burst is issued into `aw_q` in the cycle after its
        // length is known, the first one's in the descriptor's cycle, the next ones' in a prep
        // cycle of their own: min(256, beats to the 4 KiB boundary, beats left). ----
        self.aligned.next = self.a_addr.q.val() & !self.c_wm1_64.val();
        self.to4k.next = (self.c_4k.val()
            - bit_cast::<17, 12>(self.aligned.val().get_bits::<12>(0)))
            >> self.c_lw.val();
        self.cap.next = self.to4k.val();
        if self.to4k.val() > self.c_maxb.val() {
            self.cap.next = self.c_maxb.val();
        }
        if self.a_busy.q.val() & !self.a_prep.q.val() {
            self.a_prep.d.next = true;
            self.a_burst.d.next = self.cap.val();
            self.a_last.d.next = self.a_left.q.val() <= self.cap.val();
            if self.a_left.q.val() <= self.cap.val() {
                self.a_burst.d.next = self.a_left.q.val();
            }
        }
        self.aw_go.next = self.a_busy.q.val()
            & self.a_prep.q.val()
            & (self.aw_q.in_ready.val() | self.a_zero.q.val());
        self.aw_q.in_valid.next = self.aw_go.val() & !self.a_zero.q.val();
        self.aw_q.in_data.next = bit_cast::<72, 64>(self.a_addr.q.val())
            | (bit_cast::<72, 8>(bit_cast::<8, 17>(self.a_burst.q.val() - 1)) << 64);
        // The fence of an item's last burst: the bursts issued once it is (pushed with it).
        self.fq.push_data.next = self.aw_total.q.val() + 1;
        if self.a_zero.q.val() {
            self.fq.push_data.next = self.aw_total.q.val();
        }
        if self.aw_go.val() {
            self.a_addr.d.next =
                self.aligned.val() + (bit_cast::<64, 17>(self.a_burst.q.val()) << self.c_lw.val());
            self.a_left.d.next = self.a_left.q.val() - self.a_burst.q.val();
            if !self.a_zero.q.val() {
                self.aw_total.d.next = self.aw_total.q.val() + 1;
            }
            self.a_prep.d.next = false;
            if self.a_last.q.val() {
                self.a_busy.d.next = false;
                self.fq.push.next = self.a_fence.q.val();
            }
        }

        // ---- Descriptor in: a W command for every descriptor, the AW engine for writes and
        // fences. Ready from registers only (it does not wait for valid): the engine is free or
        // its last burst goes out this cycle (`aw_q`'s ready is a register). ----
        self.a_free.next = !self.a_busy.q.val()
            | (self.a_prep.q.val()
                & self.a_last.q.val()
                & (self.aw_q.in_ready.val() | self.a_zero.q.val()));
        self.desc_ready.next = self.a_free.val()
            & self.wq.not_full.val()
            & self.fq.not_full.val()
            & (self.inflight.q.val() < 30);
        self.accept.next = self.desc_valid.val() & self.desc_ready.val();
        self.wq.push_data.next = bit_cast::<WQ_BITS, 1>(self.d_wr.val().into())
            | (bit_cast::<WQ_BITS, 16>(self.d_len.val().get_bits::<16>(0)) << 1)
            | (bit_cast::<WQ_BITS, 6>(self.d_a.val().get_bits::<6>(0)) << 17)
            | (bit_cast::<WQ_BITS, 5>(self.d_skip.val().get_bits::<5>(0)) << 23)
            | (bit_cast::<WQ_BITS, 12>(self.d_addr.val().get_bits::<12>(0)) << 28)
            | (bit_cast::<WQ_BITS, 16>(self.d_nb.val().get_bits::<16>(0)) << 40);
        if self.accept.val() {
            self.wq.push.next = true;
            if self.d_wr.val() | self.d_fence.val() {
                // Overrides the engine's update above (its last item ends this cycle).
                self.a_busy.d.next = true;
                self.a_prep.d.next = true;
                self.a_zero.d.next = !self.d_wr.val();
                self.a_addr.d.next = self.d_addr.val();
                self.a_left.d.next = self.d_nb.val();
                self.a_fence.d.next = self.d_fence.val();
                self.a_burst.d.next = self.d_cap.val();
                self.a_last.d.next = self.d_nb.val() <= self.d_cap.val();
                if self.d_nb.val() <= self.d_cap.val() {
                    self.a_burst.d.next = self.d_nb.val();
                }
            }
        }

        // ---- W engine: a command from the queue, then its beats. ----
        self.q_len.next = bit_cast::<17, 16>(self.wq.out_data.val().get_bits::<16>(1));
        self.q_a.next = bit_cast::<8, 6>(self.wq.out_data.val().get_bits::<6>(17));
        self.q_skip.next = bit_cast::<8, 5>(self.wq.out_data.val().get_bits::<5>(23));
        // skip - a + W >= 1: beats to consume before the first output, and the rotation.
        self.q_d.next = self.q_skip.val() + bit_cast::<8, 17>(self.c_w17.val()) - self.q_a.val();
        self.q_e.next = (self.q_a.val() + bit_cast::<8, 17>(self.q_len.val()))
            & bit_cast::<8, 64>(self.c_wm1_64.val());
        self.more.next = self.w_more.q.val();
        self.slot_free.next = !self.wv.q.val() | self.m_axi.wready.val();
        if self.wv.q.val() & self.m_axi.wready.val() {
            self.wv.d.next = false;
        }
        // A command's flush beat (its last octets, all in its last input beat) is handed off
        // when that beat is taken (`fl_*`): the command ends there and the next one starts; the
        // flush goes out from `prev` (still the old beat) while the next command takes only a
        // beat that writes nothing (its window's first), so the two overlap.
        self.fl_emit.next = self.fl_v.q.val() & self.slot_free.val();
        self.have.next = self.w_busy.q.val() & !self.w_in_done.q.val() & self.s_axis.valid.val();
        self.from_beat.next = self.have.val() & (self.w_need.q.val() == 0) & self.more.val();
        self.flush.next = self.w_busy.q.val() & self.w_in_done.q.val() & self.more.val();
        self.may_take.next = (!self.fl_v.q.val()
            & (!((self.w_need.q.val() == 0) & self.more.val()) | self.slot_free.val()))
            | (self.fl_emit.val() & (self.w_need.q.val() != 0));
        self.s_axis.ready.next =
            self.w_busy.q.val() & !self.w_in_done.q.val() & self.may_take.val();
        self.take.next = self.have.val() & self.may_take.val();
        self.emit.next =
            !self.fl_v.q.val() & (self.from_beat.val() | self.flush.val()) & self.slot_free.val();
        // The output beat: lanes r.. of the older beat, lanes ..r of the newer, rotated right
        // by r lanes (out lane j = payload octet at memory lane j); a handed-off flush beat:
        // its lanes of `prev`, rotated by its own r.
        self.cur.next = self.s_axis.data.val();
        if self.flush.val() {
            self.cur.next = 0.into();
        }
        self.merged.next =
            (self.prev.q.val() & self.w_pm.q.val()) | (self.cur.val() & !self.w_pm.q.val());
        self.rsel.next = self.w_r.q.val();
        if self.fl_v.q.val() {
            self.merged.next = self.prev.q.val() & self.fl_pm.q.val();
            self.rsel.next = self.fl_r.q.val();
        }
        self.rot.next = self.merged.val();
        for s in 0..self.c_rot_r.len() {
            if self.rsel.val().get_bit(s) {
                self.rot.next = (self.rot.val() >> self.c_rot_r[s].val())
                    | (self.rot.val() << self.c_rot_l[s].val());
            }
        }
        self.is_last.next = self.w_one.q.val();
        self.strb.next = self.c_ones_w.val();
        if self.w_beat0.q.val() {
            self.strb.next = self.w_first.q.val();
        }
        if self.is_last.val() {
            self.strb.next = self.strb.val() & self.w_lastm.q.val();
        }
        self.bl.next = self.is_last.val()
            | (self.w_bcnt.q.val() == self.c_maxb_m1.val())
            | (self.w_a12.q.val() == self.c_last12.val());
        if self.take.val() {
            self.prev.d.next = self.s_axis.data.val();
            if self.w_need.q.val() != 0 {
                self.w_need.d.next = self.w_need.q.val() - 1;
            }
            if self.s_axis.last.val() {
                self.w_in_done.d.next = true;
            }
        }
        if self.emit.val() {
            self.wv.d.next = true;
            self.wdata.d.next = self.rot.val();
            self.wstrb.d.next = self.strb.val();
            self.wlast.d.next = self.bl.val();
            self.w_rem.d.next = self.w_rem.q.val() - 1;
            self.w_more.d.next = !self.w_one.q.val();
            self.w_one.d.next = self.w_two.q.val();
            self.w_two.d.next = self.w_rem.q.val() == 3;
            self.w_beat0.d.next = false;
            self.w_a12.d.next = self.w_a12.q.val() + self.c_w12.val();
            self.w_bcnt.d.next = self.w_bcnt.q.val() + 1;
            if self.bl.val() {
                self.w_bcnt.d.next = 0.into();
            }
        }
        if self.fl_emit.val() {
            self.fl_v.d.next = false;
            self.wv.d.next = true;
            self.wdata.d.next = self.rot.val();
            self.wstrb.d.next = self.fl_strb.q.val();
            self.wlast.d.next = true;
        }
        // After this cycle: beats still to write, and exactly one.
        self.more_after.next = self.more.val() & !(self.emit.val() & self.is_last.val());
        self.one_after.next = self.w_one.q.val();
        if self.emit.val() {
            self.one_after.next = self.w_two.q.val();
        }
        self.handoff.next =
            self.take.val() & self.s_axis.last.val() & self.more_after.val() & self.one_after.val();
        if self.handoff.val() {
            self.fl_v.d.next = true;
            self.fl_pm.d.next = self.w_pm.q.val();
            self.fl_r.d.next = self.w_r.q.val();
            self.fl_strb.d.next = self.w_lastm.q.val();
            if self.w_beat0.q.val() & !self.emit.val() {
                self.fl_strb.d.next = self.w_first.q.val() & self.w_lastm.q.val();
            }
        }
        // A command ends in the cycle its last input beat is taken with nothing more to write
        // or only its flush beat (handed off), or its last output beat goes out after the input
        // was done; the next one starts in that cycle (its fields override the old command's).
        self.w_done.next = (self.w_busy.q.val()
            & (self.w_in_done.q.val() | (self.take.val() & self.s_axis.last.val()))
            & !self.more_after.val())
            | self.handoff.val();
        if self.w_done.val() {
            self.w_busy.d.next = false;
        }
        self.start.next = (!self.w_busy.q.val() | self.w_done.val()) & self.wq.out_valid.val();
        self.q_n.next = bit_cast::<17, 16>(self.wq.out_data.val().get_bits::<16>(40));
        self.wq.out_ready.next = self.start.val();
        if self.start.val() {
            self.w_busy.d.next = true;
            self.w_rem.d.next = self.q_n.val();
            self.w_more.d.next = self.q_n.val() != 0;
            self.w_one.d.next = self.q_n.val() == 1;
            self.w_two.d.next = self.q_n.val() == 2;
            self.w_beat0.d.next = true;
            self.w_need.d.next = self.q_d.val() >> self.c_lw.val();
            self.w_r.d.next = self.q_d.val() & bit_cast::<8, 64>(self.c_wm1_64.val());
            // Lanes r and above of the merged beat come from the older beat.
            self.w_pm.d.next = self.c_ones_b.val()
                << (bit_cast::<16, 8>(self.q_d.val() & bit_cast::<8, 64>(self.c_wm1_64.val()))
                    << 3);
            self.w_first.d.next = self.c_ones_w.val() << self.q_a.val();
            self.w_lastm.d.next = !(self.c_ones_w.val() << self.q_e.val());
            if self.q_e.val() == 0 {
                self.w_lastm.d.next = self.c_ones_w.val();
            }
            self.w_a12.d.next = self.wq.out_data.val().get_bits::<12>(28)
                & bit_cast::<12, 64>(!self.c_wm1_64.val());
            self.w_bcnt.d.next = 0.into();
            self.w_in_done.d.next = false;
        }
        // Descriptors accepted and not yet through the W engine.
        self.infl_next.next = self.inflight.q.val();
        if self.accept.val() & !self.w_done.val() {
            self.infl_next.next = self.inflight.q.val() + 1;
        }
        if !self.accept.val() & self.w_done.val() {
            self.infl_next.next = self.inflight.q.val() - 1;
        }
        self.inflight.d.next = self.infl_next.val();

        // ---- B channel: count, remember the first error. ----
        if self.m_axi.bvalid.val() {
            self.b_cnt.d.next = self.b_cnt.q.val() + 1;
            if self.m_axi.bresp.val() != 0 {
                self.berr_cnt.d.next = self.berr_cnt.q.val() + 1;
                if !self.berr.q.val() {
                    self.berr.d.next = true;
                    self.berr_at.d.next = self.b_cnt.q.val();
                }
            }
        }
        self.idle.next = (self.inflight.q.val() == 0)
            & !self.a_busy.q.val()
            & !self.aw_q.out_valid.val()
            & !self.fl_v.q.val()
            & !self.wv.q.val()
            & (self.b_cnt.q.val() == self.aw_total.q.val());

        if self.clr_err.val() {
            self.berr.d.next = false;
            self.berr_at.d.next = 0.into();
        }
        if self.rst.val() {
            self.a_busy.d.next = false;
            self.aw_total.d.next = 0.into();
            self.inflight.d.next = 0.into();
            self.w_busy.d.next = false;
            self.wv.d.next = false;
            self.fl_v.d.next = false;
            self.b_cnt.d.next = 0.into();
            self.berr.d.next = false;
            self.berr_at.d.next = 0.into();
            self.berr_cnt.d.next = 0.into();
        }
    }
}
