//! `PlaceLocate`: finds the FPDUs inside one out-of-order TCP segment that can be verified on
//! their own (RFC 5044 section 6, methods 2 and 3: "the receiver can use the Markers to find
//! the FPDUs ... FPDUs with valid CRCs"; 4.2 FPDUPTR; Appendix B.2 header alignment), exactly
//! as [`golden::receiver::locate_fpdus`] does.
//!
//! Two passes over the segment. The first watches the segment as it streams in (into the
//! reassembly ring, in `rnic_rx`) and keeps the start each Marker inside it points at; the
//! second reads the segment back from where it was stored, once per candidate, through a
//! verification path of its own ([`RxVerify`], `mpa_rx` without its release buffer, reset at
//! the candidate, FIN on the segment's last octet) and reports every FPDU of the ULPDU_Length
//! chain that verifies. The path is `V` octets wide ([`locate_width`]: `W` up to 8, 8 above):
//! the read is cut into `V`-octet beats ([`StreamDown`]) and the path's ULPDUs are packed back
//! into `W`-octet beats ([`StreamUp`]), so at W = 16 to 64 the path costs what `mpa_rx_w8`'s
//! does, not a second `mpa_rx` of the port's width:
//!
//! ```text
//!  s_axis ─► input register ─► Marker in this beat? FPDUPTR ─► start ─► beyond the last? ─► LutRam (128, arrival order)
//!  (pass 1)                    (octets b-3 .. b+W-1)
//!  candidates: chain_seq first, then the LutRam; skip those before the first untried octet
//!      │ rd_* request [c, e)
//!      ▼
//!  s_rd ─► StreamDown ─► RxVerify (V, reset at c) ─┬─► ULPDU verdicts ─► StreamUp ─┬─► loc_*
//!  (pass 2)  W -> V                                 └─► FPDU ends ─► RegFifo (16) ──┘   (W)
//! ```
//!
//! - **Header alignment** (B.2; `cfg_aligned` with `cfg_fwd`): when the segment's first octet
//!   is a multiple of 4 from the origin, a first try from it (the *alignment try*) reports no
//!   FPDU on `loc_*`; its packets go out as probes like any try's, marked `pkt_spec`. When it
//!   is over the block waits (`al_wait`) for the verdict from outside (`al_valid`, `al_ok`:
//!   every packet verified and its DDP/RDMAP header decoded, which the header block downstream
//!   knows). The segment is header-aligned when the verdict is good (the try then ended at an
//!   FPDU that ends at the segment's end, as a try ends only there or at a bad packet): the
//!   same try runs again as a normal try, which reports, and it covers the segment, so every
//!   other candidate is skipped. Otherwise nothing counts as tried and the candidates below
//!   follow. The segment is read once more when it is aligned.
//! - **Candidates** (golden order): `chain_seq` when `chain_valid` (the end of the placed FPDU
//!   that contains or ends at the segment's first octet), then the Markers' in stream order. A
//!   Marker at `m` with `m + 4 <= e` and FPDUPTR `p` (low two bits ignored, 4.2) points at `m`
//!   when `p = 0`, otherwise at `m - p`, or 4 octets earlier when a Marker sits there (a leading
//!   Marker, 4.3: `p mod 512 = 508`); a start before the segment is dropped. A Marker whose
//!   start is not beyond the previous Marker's is dropped in pass 1 (the golden rule would skip
//!   it in pass 2), so the kept starts increase and at most 128 are kept (a segment of at most
//!   65,536 octets holds at most 128 Markers; the 129th and later of a longer one are ignored).
//! - **Tries**: a candidate before the first untried octet is skipped. Otherwise the segment
//!   from the candidate to its end is requested (`rd_*`) and streamed through the verification
//!   path; each FPDU it releases (CRC, ULPDU_Length limit and FPDUPTR checks as in `mpa_rx`)
//!   is reported on `loc_*`. The try ends at the first error packet (a bad FPDU, or FIN inside
//!   an FPDU: the segment ends in it) or at an FPDU that ends at the segment's end; everything
//!   up to the start of the FPDU that ended it is then tried. The rest of the read is drained.
//! - Without CRCs (`cfg_crc` low) nothing is located (section 6 locates FPDUs with valid CRCs).
//! - **Forwarding** (`cfg_fwd`, out-of-order placement in `rnic_rx`): every packet of a try,
//!   from the verification path, also goes out on `m_ulpdu` (mode [`MODE_PROBE`]: its header is
//!   checked downstream) through a register slice, with its verdict on `pkt_*` when its last
//!   beat leaves the path; the path then waits for `m_ulpdu`. Without it the packets are
//!   dropped here as they come.
//! - **Placement tries** (`pl_*`, taken when idle): the octets `[pl_seq, pl_end)`, one FPDU
//!   already located and verified, are read and run through the path again and the ULPDU goes
//!   out on `m_ulpdu` (mode [`MODE_PLACE`]: written downstream); then `done`.
//!
//! Positions are 32-bit sequence numbers; every comparison is of offsets from the segment's
//! first octet, so sequence numbers may wrap through 2^32 anywhere.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset |
//! | `cfg_origin` | in | 32 | sequence number of the Marker origin (4.3) |
//! | `cfg_markers`, `cfg_crc` | in | 1 | Markers and CRCs on for this direction |
//! | `cfg_max_ulpdu` | in | 16 | the largest ULPDU_Length accepted (at most 64768) |
//! | `s_axis` | in | 8W | the segment, one packet, `tuser[31:0]` the sequence number of its first octet ([`RX_SEG_USER`]), every beat but the last full (the Marker positions are counted in beats); taken at one beat per cycle when idle |
//! | `chain_valid`, `chain_seq` | in | 1, 32 | sampled with the segment's first beat: a start known from a placed FPDU |
//! | `rd_valid`, `rd_ready`, `rd_seq`, `rd_end` | out, in, out, out | 1, 1, 32, 32 | read request: the segment's octets `[rd_seq, rd_end)` |
//! | `s_rd` | in | 8W | the octets read, one packet, lane 0 first, every beat but the last full (its `tuser` is not used) |
//! | `loc_valid`, `loc_start`, `loc_end` | out | 1, 32, 32 | pulse: a located FPDU `[loc_start, loc_end)`, in increasing order |
//! | `done` | out | 1 | pulse: the segment (or the placement try) is finished (every FPDU reported); the next is taken |
//! | `watchdog` | out | 1 | sticky: a try was ended because nothing came out of the path for 4,095 cycles after its last octet went in (not expected; a test asserts it stays low) |
//! | `cfg_fwd` | in | 1 | forward the tries' packets on `m_ulpdu` and wait for it |
//! | `m_ulpdu` | out | 8W | the packets of the tries (with `cfg_fwd`) and of the placement tries ([`HDR_IN_USER`]: the path's `RX_ULPDU_USER` and the mode) |
//! | `pkt_valid`, `pkt_good`, `pkt_start`, `pkt_end` | out | 1, 1, 32, 32 | pulse per packet of a try forwarded on `m_ulpdu` (with `cfg_fwd`), in order: it verified (a located FPDU, also on `loc_*`), its first octet and the octet after its last |
//! | `pl_valid`, `pl_ready`, `pl_seq`, `pl_end` | in, out, in, in | 1, 1, 32, 32 | a placement try of `[pl_seq, pl_end)`: `pl_ready` (a register) says the block is idle; taken when both are high and no segment is offered (the reader offers neither while the other is going on) |
//! | `cfg_aligned` | in | 1 | header-alignment detection (used with `cfg_fwd`; sampled with the segment's first beat) |
//! | `pkt_spec` | out | 1 | with `pkt_valid`: the packet belongs to the alignment try |
//! | `al_wait`, `al_valid`, `al_ok` | out, in, in | 1 | the alignment try is over; pulse: its verdict, good when every packet of it verified and decoded (`al_valid` is taken only while `al_wait`) |
//!
//! ### Parameters
//! `W` bytes per beat (4, 8, 16, 32, 64), `B = 8W`; `V` bytes per beat of the verification
//! path (a divisor of `W`; the tops use [`locate_width`]`(W)`), `BV = 8V`.
//!
//! ### Latency and throughput
//! Pass 1: one beat per cycle (a three-stage pipeline), then four cycles. With header
//! alignment, the alignment try and the wait for its verdict come first. Pass 2: per try, one
//! cycle to choose, the request, the read at `V` octets per cycle (a beat per `W / V` cycles,
//! as the reader delivers), the path's latency (`mpa_rx`'s at width `V`, 23 to 32 cycles
//! measured at W = 4 to 64 with its release buffer, less that buffer's 3) and one or two
//! cycles to finish; two cycles to take a Marker candidate (its read from the LutRam is
//! registered before the choice; the first after a chain start waits one cycle more), one for
//! the chain start. Not measured on this block.
//!
//! ### Reset
//! `rst` empties everything; the next beat of `s_axis` starts a segment.

use crate::fifo::RegFifo;
use crate::lutram::LutRam;
use crate::place::header::{MODE_PLACE, MODE_PROBE};
use crate::rx::verify::RxVerify;
use crate::sideband::{
    PlaceUlpduUserFields, RxSegmentUserFields, RxUlpduUserFields, HDR_IN_USER, RX_SEG_USER,
    RX_ULPDU_USER,
};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_down::StreamDown;
use crate::stream_skid::StreamSkid;
use crate::stream_up::StreamUp;
use rust_hdl::prelude::*;

/// The verification path's width for a port of `w` octets: `w` up to 8, 8 above (a 10 GbE
/// port's rate at 156.25 MHz). The path is a whole `mpa_rx` (without its release buffer),
/// about a third of `rnic_rx`'s logic at W = 64 when built at the port's width; out-of-order
/// tries, the only traffic through it, then run at 8 octets a cycle at W = 16 to 64.
pub const fn locate_width(w: usize) -> usize {
    if w < 8 {
        w
    } else {
        8
    }
}

/// Marker candidates kept per segment.
pub const LOCATE_CANDIDATES: usize = 128;

// States (literals in `update`): 0 take the segment, 1 last beat in the register, 2 choose a
// candidate, 3 request (the path in reset), 4 try, 5 done, 6 waiting for the alignment verdict.

/// The FPDU locator; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceLocate<const W: usize, const B: usize, const V: usize, const BV: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the Marker origin.
    pub cfg_origin: Signal<In, Bits<32>>,
    /// Markers on.
    pub cfg_markers: Signal<In, Bit>,
    /// CRCs on.
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted.
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// The segment (pass 1).
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// A start known from a placed FPDU (with the first beat).
    pub chain_valid: Signal<In, Bit>,
    /// That start.
    pub chain_seq: Signal<In, Bits<32>>,
    /// Read request.
    pub rd_valid: Signal<Out, Bit>,
    /// Read request taken.
    pub rd_ready: Signal<In, Bit>,
    /// First octet to read.
    pub rd_seq: Signal<Out, Bits<32>>,
    /// Octet after the last to read.
    pub rd_end: Signal<Out, Bits<32>>,
    /// The octets read (pass 2).
    pub s_rd: StreamSink<W, B, RX_SEG_USER>,
    /// Pulse: a located FPDU.
    pub loc_valid: Signal<Out, Bit>,
    /// Its first octet.
    pub loc_start: Signal<Out, Bits<32>>,
    /// The octet after its last.
    pub loc_end: Signal<Out, Bits<32>>,
    /// Pulse: the segment is finished.
    pub done: Signal<Out, Bit>,
    /// Sticky: a try timed out.
    pub watchdog: Signal<Out, Bit>,
    /// Forward the tries' packets.
    pub cfg_fwd: Signal<In, Bit>,
    /// The packets of the tries and of the placement tries.
    pub m_ulpdu: StreamSource<W, B, HDR_IN_USER>,
    /// Pulse: a forwarded packet's verdict.
    pub pkt_valid: Signal<Out, Bit>,
    /// It verified.
    pub pkt_good: Signal<Out, Bit>,
    /// Its first octet.
    pub pkt_start: Signal<Out, Bits<32>>,
    /// The octet after its last (when it verified).
    pub pkt_end: Signal<Out, Bits<32>>,
    /// A placement try.
    pub pl_valid: Signal<In, Bit>,
    /// The placement try is taken.
    pub pl_ready: Signal<Out, Bit>,
    /// Its first octet.
    pub pl_seq: Signal<In, Bits<32>>,
    /// The octet after its last.
    pub pl_end: Signal<In, Bits<32>>,
    /// Header-alignment detection (with `cfg_fwd`).
    pub cfg_aligned: Signal<In, Bit>,
    /// The packet on `pkt_*` belongs to the alignment try.
    pub pkt_spec: Signal<Out, Bit>,
    /// The alignment try is over: waiting for its verdict.
    pub al_wait: Signal<Out, Bit>,
    /// Pulse: the alignment verdict.
    pub al_valid: Signal<In, Bit>,
    /// Every packet of the alignment try verified and its header decoded.
    pub al_ok: Signal<In, Bit>,
    rd_down: StreamDown<W, B, V, BV, 1>,
    verify: RxVerify<V, BV>,
    up: StreamUp<V, BV, W, B, RX_ULPDU_USER>,
    fwd: StreamSkid<W, B, HDR_IN_USER>,
    placing: DFF<Bit>,
    pkt_v: DFF<Bit>,
    pkt_g: DFF<Bit>,
    pkt_s: DFF<Bits<32>>,
    pkt_e: DFF<Bits<32>>,
    pkt_sp: DFF<Bit>,
    al_pend: DFF<Bit>,
    al_try: DFF<Bit>,
    al_bad: DFF<Bit>,
    al_got: DFF<Bit>,
    cands: LutRam<32, 7>,
    ends: RegFifo<32>,
    state: DFF<Bits<3>>,
    first: DFF<Bit>,
    // Pass 1: the input register and the position.
    v1: DFF<Bit>,
    d1: DFF<Bits<B>>,
    k1: DFF<Bits<W>>,
    last1: DFF<Bit>,
    first1: DFF<Bit>,
    seg_s: DFF<Bits<32>>,
    len: DFF<Bits<32>>,
    ph: DFF<Bits<9>>,
    tail: DFF<Bits<24>>,
    e_off: DFF<Bits<32>>,
    vb: DFF<Bit>,
    first_b: DFF<Bit>,
    in_b: DFF<Bit>,
    p_b: DFF<Bits<16>>,
    d_b: DFF<Bits<32>>,
    vc: DFF<Bit>,
    first_c: DFF<Bit>,
    ok_c: DFF<Bit>,
    cand_c: DFF<Bits<32>>,
    ch_pend: DFF<Bit>,
    ch_seq: DFF<Bits<32>>,
    have_last: DFF<Bit>,
    last_c: DFF<Bits<32>>,
    wr: DFF<Bits<8>>,
    rd: DFF<Bits<8>>,
    // Pass 2.
    pk_q: DFF<Bits<32>>,
    pk_ok: DFF<Bit>,
    ch_off: Signal<Local, Bits<32>>,
    untried: DFF<Bits<32>>,
    cur_c: DFF<Bits<32>>,
    c_seq: DFF<Bits<32>>,
    last_end: DFF<Bits<32>>,
    over: DFF<Bit>,
    rd_last: DFF<Bit>,
    wd: DFF<Bits<12>>,
    wd_hit: DFF<Bit>,
    loc_v: DFF<Bit>,
    loc_s: DFF<Bits<32>>,
    loc_e: DFF<Bits<32>>,
    // Constants.
    c_w9: Constant<Bits<9>>,
    c_3_9: Constant<Bits<9>>,
    c_1_9: Constant<Bits<9>>,
    c_508: Constant<Bits<9>>,
    c_3_32: Constant<Bits<32>>,
    c_4_32: Constant<Bits<32>>,
    c_fffc: Constant<Bits<16>>,
    c_tail: Constant<Bits<16>>,
    c_probe: Constant<Bits<2>>,
    c_place: Constant<Bits<2>>,
    c_cnt: Vec<Constant<Bits<32>>>,
    // Locals.
    take: Signal<Local, Bit>,
    n1: Signal<Local, Bits<32>>,
    u: Signal<Local, Bits<9>>,
    u16: Signal<Local, Bits<16>>,
    um1_16: Signal<Local, Bits<16>>,
    in_beat: Signal<Local, Bit>,
    kshift: Signal<Local, Bits<W>>,
    ch_rel: Signal<Local, Bits<32>>,
    al_rel: Signal<Local, Bits<32>>,
    lo: Signal<Local, Bits<8>>,
    hi: Signal<Local, Bits<8>>,
    p32: Signal<Local, Bits<32>>,
    hdr: Signal<Local, Bits<32>>,
    cand: Signal<Local, Bits<32>>,
    cand_ok: Signal<Local, Bit>,
    cnt: Signal<Local, Bits<8>>,
    push: Signal<Local, Bit>,
    pick: Signal<Local, Bits<32>>,
    chain_rst: Signal<Local, Bit>,
    out_take: Signal<Local, Bit>,
    s_err: Signal<Local, Bit>,
    end_off: Signal<Local, Bits<32>>,
    hold_last: Signal<Local, Bit>,
    fwd_on: Signal<Local, Bit>,
    rd_on: Signal<Local, Bit>,
    rd_pass: Signal<Local, Bit>,
    pl_take: Signal<Local, Bit>,
}

impl<const W: usize, const B: usize, const V: usize, const BV: usize> PlaceLocate<W, B, V, BV> {
    /// Builds the locator; panics if `W` is not 4, 8, 16, 32 or 64, `B != 8W`, or `V` does not
    /// divide `W` or `BV != 8V`.
    pub fn new() -> Self {
        check_stream_params("PlaceLocate", W, B, RX_SEG_USER);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_origin: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_max_ulpdu: Default::default(),
            s_axis: StreamSink::new(),
            chain_valid: Default::default(),
            chain_seq: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            rd_seq: Default::default(),
            rd_end: Default::default(),
            s_rd: StreamSink::new(),
            loc_valid: Default::default(),
            loc_start: Default::default(),
            loc_end: Default::default(),
            done: Default::default(),
            watchdog: Default::default(),
            cfg_fwd: Default::default(),
            m_ulpdu: StreamSource::new(),
            pkt_valid: Default::default(),
            pkt_good: Default::default(),
            pkt_start: Default::default(),
            pkt_end: Default::default(),
            pl_valid: Default::default(),
            pl_ready: Default::default(),
            pl_seq: Default::default(),
            pl_end: Default::default(),
            cfg_aligned: Default::default(),
            pkt_spec: Default::default(),
            al_wait: Default::default(),
            al_valid: Default::default(),
            al_ok: Default::default(),
            rd_down: StreamDown::new(),
            verify: RxVerify::new(),
            up: StreamUp::new(),
            fwd: StreamSkid::new(),
            placing: Default::default(),
            pkt_v: Default::default(),
            pkt_g: Default::default(),
            pkt_s: Default::default(),
            pkt_e: Default::default(),
            pkt_sp: Default::default(),
            al_pend: Default::default(),
            al_try: Default::default(),
            al_bad: Default::default(),
            al_got: Default::default(),
            cands: LutRam::default(),
            ends: RegFifo::new(16),
            state: Default::default(),
            first: Default::default(),
            v1: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            last1: Default::default(),
            first1: Default::default(),
            seg_s: Default::default(),
            len: Default::default(),
            ph: Default::default(),
            tail: Default::default(),
            e_off: Default::default(),
            vb: Default::default(),
            first_b: Default::default(),
            in_b: Default::default(),
            p_b: Default::default(),
            d_b: Default::default(),
            vc: Default::default(),
            first_c: Default::default(),
            ok_c: Default::default(),
            cand_c: Default::default(),
            ch_pend: Default::default(),
            ch_seq: Default::default(),
            have_last: Default::default(),
            last_c: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            pk_q: Default::default(),
            pk_ok: Default::default(),
            ch_off: Default::default(),
            untried: Default::default(),
            cur_c: Default::default(),
            c_seq: Default::default(),
            last_end: Default::default(),
            over: Default::default(),
            rd_last: Default::default(),
            wd: Default::default(),
            wd_hit: Default::default(),
            loc_v: Default::default(),
            loc_s: Default::default(),
            loc_e: Default::default(),
            c_w9: Constant::new((W as u64).into()),
            c_3_9: Constant::new(3u64.into()),
            c_1_9: Constant::new(1u64.into()),
            c_508: Constant::new(508u64.into()),
            c_3_32: Constant::new(3u64.into()),
            c_4_32: Constant::new(4u64.into()),
            c_fffc: Constant::new(0xFFFCu64.into()),
            c_tail: Constant::new(((B - 24) as u64).into()),
            c_probe: Constant::new(MODE_PROBE.into()),
            c_place: Constant::new(MODE_PLACE.into()),
            c_cnt: (0..W).map(|k| Constant::new(((k + 1) as u64).into())).collect(),
            take: Default::default(),
            n1: Default::default(),
            u: Default::default(),
            u16: Default::default(),
            um1_16: Default::default(),
            in_beat: Default::default(),
            kshift: Default::default(),
            ch_rel: Default::default(),
            al_rel: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            p32: Default::default(),
            hdr: Default::default(),
            cand: Default::default(),
            cand_ok: Default::default(),
            cnt: Default::default(),
            push: Default::default(),
            pick: Default::default(),
            chain_rst: Default::default(),
            out_take: Default::default(),
            s_err: Default::default(),
            end_off: Default::default(),
            hold_last: Default::default(),
            fwd_on: Default::default(),
            rd_on: Default::default(),
            rd_pass: Default::default(),
            pl_take: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const V: usize, const BV: usize> Default
    for PlaceLocate<W, B, V, BV>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const V: usize, const BV: usize> Logic
    for PlaceLocate<W, B, V, BV>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, first, v1, d1, k1, last1, first1, seg_s, len, ph, tail, e_off, vb,
            first_b, in_b, p_b, d_b, vc, first_c, ok_c, cand_c, ch_pend, ch_seq, have_last, last_c,
            wr, rd, untried, cur_c, c_seq, last_end, over, rd_last, wd, wd_hit, loc_v, loc_s,
            loc_e, placing, pkt_v, pkt_g, pkt_s, pkt_e, pkt_sp, al_pend, al_try, al_bad, al_got,
            pk_q, pk_ok
        );
        self.fwd.clock.next = self.clock.val();
        self.fwd.rst.next = self.rst.val();
        self.m_ulpdu.data.next = self.fwd.m_axis.data.val();
        self.m_ulpdu.keep.next = self.fwd.m_axis.keep.val();
        self.m_ulpdu.user.next = self.fwd.m_axis.user.val();
        self.m_ulpdu.last.next = self.fwd.m_axis.last.val();
        self.m_ulpdu.valid.next = self.fwd.m_axis.valid.val();
        self.fwd.m_axis.ready.next = self.m_ulpdu.ready.val();
        self.pkt_valid.next = self.pkt_v.q.val() & !self.rst.val();
        self.pkt_good.next = self.pkt_g.q.val();
        self.pkt_start.next = self.pkt_s.q.val();
        self.pkt_end.next = self.pkt_e.q.val();
        self.pkt_spec.next = self.pkt_sp.q.val();
        self.al_wait.next = (self.state.q.val() == 6) & !self.rst.val();
        self.pkt_v.d.next = false;
        self.verify.clock.next = self.clock.val();
        self.rd_down.clock.next = self.clock.val();
        self.up.clock.next = self.clock.val();
        self.cands.clock.next = self.clock.val();
        self.ends.clock.next = self.clock.val();

        // ---- Outputs. ----
        self.loc_valid.next = self.loc_v.q.val() & !self.rst.val();
        self.loc_start.next = self.loc_s.q.val();
        self.loc_end.next = self.loc_e.q.val();
        self.done.next = (self.state.q.val() == 5) & !self.rst.val();
        self.watchdog.next = self.wd_hit.q.val();
        self.rd_valid.next = (self.state.q.val() == 3) & !self.rst.val();
        self.rd_seq.next = self.c_seq.q.val();
        self.rd_end.next = self.seg_s.q.val() + self.e_off.q.val();
        self.loc_v.d.next = false;

        // ---- Pass 1: take the segment; the input register. ----
        self.s_axis.ready.next = (self.state.q.val() == 0) & !self.rst.val();
        self.take.next = self.s_axis.valid.val() & (self.state.q.val() == 0) & !self.rst.val();
        // A placement try: taken when idle and no segment is offered (state 3 with one
        // candidate, the FPDU's first octet; the try ends at the FPDU's end, then done).
        self.pl_take.next = self.pl_valid.val()
            & !self.s_axis.valid.val()
            & (self.state.q.val() == 0)
            & self.first.q.val()
            & !self.rst.val();
        // (From registers only: a ready that depended on `pl_valid` would close a loop, for
        // Verilator, through the reader's block, which also drives this block's inputs.)
        self.pl_ready.next = (self.state.q.val() == 0) & self.first.q.val();
        if self.pl_take.val() {
            self.placing.d.next = true;
            self.seg_s.d.next = self.pl_seq.val();
            self.e_off.d.next = self.pl_end.val() - self.pl_seq.val();
            self.cur_c.d.next = 0.into();
            self.c_seq.d.next = self.pl_seq.val();
            self.state.d.next = 3.into();
        }
        self.v1.d.next = self.take.val();
        if self.take.val() {
            self.d1.d.next = self.s_axis.data.val();
            self.k1.d.next = self.s_axis.keep.val();
            self.last1.d.next = self.s_axis.last.val();
            self.first1.d.next = self.first.q.val();
            if self.first.q.val() {
                self.seg_s.d.next = self.s_axis.user.val().get_value_rx_seg_seq();
                self.ch_pend.d.next = self.chain_valid.val();
                self.ch_seq.d.next = self.chain_seq.val();
                self.al_pend.d.next = self.cfg_aligned.val() & self.cfg_fwd.val();
                self.first.d.next = false;
            }
            if self.s_axis.last.val() {
                self.first.d.next = true;
                self.state.d.next = 1.into();
            }
        }

        // ---- Pass 1, stage 1: the Marker whose last octet is in the registered beat. The window
        // is the previous beat's last three octets and this beat: its octet u is the Marker's
        // first, u + 3 the lane of its last. ----
        self.n1.next = 0.into();
        for k in 0..W {
            if self.k1.q.val().get_bit(k) {
                self.n1.next = self.c_cnt[k].val();
            }
        }
        self.u.next = self.c_3_9.val() - self.ph.q.val();
        self.u16.next = bit_cast::<16, 9>(self.u.val()) << 3;
        self.um1_16.next = bit_cast::<16, 9>(self.u.val() - self.c_1_9.val()) << 3;
        self.kshift.next = self.k1.q.val() >> bit_cast::<16, 9>(self.u.val());
        self.in_beat.next = (self.u.val() < self.c_w9.val())
            & self.kshift.val().get_bit(0)
            & (!self.first1.q.val() | (self.u.val() >= self.c_3_9.val()));
        self.lo.next = bit_cast::<8, B>(self.d1.q.val() >> self.u16.val());
        self.hi.next = bit_cast::<8, B>(self.d1.q.val() >> self.um1_16.val());
        if self.u.val() == 0 {
            self.hi.next = bit_cast::<8, 24>(self.tail.q.val() >> 16);
        }
        self.vb.d.next = self.v1.q.val();
        self.first_b.d.next = self.first1.q.val();
        self.in_b.d.next = self.in_beat.val();
        self.p_b.d.next = ((bit_cast::<16, 8>(self.hi.val()) << 8)
            | bit_cast::<16, 8>(self.lo.val()))
            & self.c_fffc.val();
        self.d_b.d.next = self.len.q.val() + bit_cast::<32, 9>(self.u.val()) - self.c_3_32.val();
        if self.v1.q.val() {
            self.len.d.next = self.len.q.val() + self.n1.val();
            self.ph.d.next = self.ph.q.val() + self.c_w9.val();
            self.tail.d.next = bit_cast::<24, B>(self.d1.q.val() >> self.c_tail.val());
            if self.last1.q.val() {
                self.e_off.d.next = self.len.q.val() + self.n1.val();
            }
        }
        // The first beat of a segment: the position from its sequence number.
        if self.take.val() & self.first.q.val() {
            self.ph.d.next = bit_cast::<9, 32>(
                self.s_axis.user.val().get_value_rx_seg_seq() - self.cfg_origin.val(),
            );
            self.len.d.next = 0.into();
        }

        // ---- Pass 1, stage 2: the start the Marker points at (FPDUPTR p, low bits ignored:
        // p = 0 the Marker itself, else p octets back, 4 more for a leading Marker). ----
        self.p32.next = bit_cast::<32, 16>(self.p_b.q.val());
        self.hdr.next = self.d_b.q.val() - self.p32.val();
        self.cand.next = self.d_b.q.val();
        self.cand_ok.next = self.in_b.q.val();
        if self.p_b.q.val() != 0 {
            self.cand.next = self.hdr.val();
            self.cand_ok.next = self.in_b.q.val() & (self.p32.val() <= self.d_b.q.val());
            if bit_cast::<9, 16>(self.p_b.q.val()) == self.c_508.val() {
                self.cand.next = self.hdr.val() - self.c_4_32.val();
                self.cand_ok.next = self.in_b.q.val()
                    & (self.p32.val() <= self.d_b.q.val())
                    & (self.hdr.val() >= self.c_4_32.val());
            }
        }
        self.vc.d.next = self.vb.q.val();
        self.first_c.d.next = self.first_b.q.val();
        self.ok_c.d.next = self.cand_ok.val();
        self.cand_c.d.next = self.cand.val();

        // ---- Pass 1, stage 3: kept when beyond the previous kept start. ----
        self.cnt.next = self.wr.q.val() - self.rd.q.val();
        self.push.next = self.vc.q.val()
            & self.cfg_markers.val()
            & self.ok_c.q.val()
            & (!self.have_last.q.val()
                | self.first_c.q.val()
                | (self.cand_c.q.val() > self.last_c.q.val()))
            & !self.cnt.val().get_bit(7);
        self.cands.write_enable.next = self.push.val();
        self.cands.write_address.next = bit_cast::<7, 8>(self.wr.q.val());
        self.cands.write_data.next = self.cand_c.q.val();
        self.cands.read_address.next = bit_cast::<7, 8>(self.rd.q.val());
        if self.vc.q.val() & self.first_c.q.val() {
            self.have_last.d.next = false;
        }
        if self.push.val() {
            self.wr.d.next = self.wr.q.val() + 1;
            self.last_c.d.next = self.cand_c.q.val();
            self.have_last.d.next = true;
        }
        if (self.state.q.val() == 1) & !self.v1.q.val() & !self.vb.q.val() & !self.vc.q.val() {
            self.state.d.next = 2.into();
        }

        // ---- Pass 2: choose the next candidate. The candidate at `rd` is read into a register
        // first (`pk_q`, good when `pk_ok`: `rd` and the RAM unchanged since the cycle before,
        // and no chain start pending), so the decision below starts from registers: two cycles
        // per Marker candidate. While a chain start is pending `pk_q` loads the chain start's
        // offset instead: a register that loaded the read data alone was taken by Yosys into the
        // LutRam as a synchronous read port (an address register), which left the RAM's read in
        // front of the decision (README, stops 45 and 46); with the multiplexer in front it
        // stays a register. ----
        self.ch_off.next = self.ch_seq.q.val() - self.seg_s.q.val();
        self.pk_q.d.next = self.cands.read_data.val();
        if self.ch_pend.q.val() {
            self.pk_q.d.next = self.ch_off.val();
        }
        self.pk_ok.d.next = !self.push.val() & !self.ch_pend.q.val();
        self.pick.next = self.ch_off.val();
        self.ch_rel.next = self.ch_seq.q.val() - self.cfg_origin.val();
        self.al_rel.next = self.seg_s.q.val() - self.cfg_origin.val();
        if !self.ch_pend.q.val() {
            self.pick.next = self.pk_q.q.val();
        }
        if self.state.q.val() == 2 {
            if !self.cfg_crc.val() {
                self.state.d.next = 5.into();
            } else if self.ch_pend.q.val() {
                self.ch_pend.d.next = false;
                if (self.pick.val() < self.e_off.q.val())
                    & (self.ch_rel.val().get_bits::<2>(0) == 0)
                    & (self.pick.val() >= self.untried.q.val())
                {
                    self.state.d.next = 3.into();
                }
            } else if self.wr.q.val() != self.rd.q.val() {
                // (Until the candidate's read is in pk_q, the next cycle.)
                if self.pk_ok.q.val() {
                    self.rd.d.next = self.rd.q.val() + 1;
                    self.pk_ok.d.next = false;
                    if self.pick.val() >= self.untried.q.val() {
                        self.state.d.next = 3.into();
                    }
                }
            } else {
                self.state.d.next = 5.into();
            }
            self.cur_c.d.next = self.pick.val();
            self.c_seq.d.next = self.seg_s.q.val() + self.pick.val();
            // B.2 header alignment first: a try from the segment's first octet (a multiple of
            // 4 from the origin) that reports nothing; its verdict decides (state 6).
            if self.cfg_crc.val() & self.al_pend.q.val() {
                self.al_pend.d.next = false;
                self.ch_pend.d.next = self.ch_pend.q.val();
                self.rd.d.next = self.rd.q.val();
                self.state.d.next = 2.into();
                if self.al_rel.val().get_bits::<2>(0) == 0 {
                    self.al_try.d.next = true;
                    self.al_bad.d.next = false;
                    self.al_got.d.next = false;
                    self.state.d.next = 3.into();
                }
                self.cur_c.d.next = 0.into();
                self.c_seq.d.next = self.seg_s.q.val();
            }
        }

        // ---- Pass 2: the request (the verification path in reset meanwhile). ----
        self.chain_rst.next = self.rst.val() | (self.state.q.val() == 3);
        if (self.state.q.val() == 3) & self.rd_ready.val() {
            self.state.d.next = 4.into();
            self.over.d.next = false;
            self.rd_last.d.next = false;
            self.wd.d.next = 0.into();
            self.last_end.d.next = self.cur_c.q.val();
        }

        // ---- Pass 2: the verification path. ----
        self.verify.rst.next = self.chain_rst.val();
        self.ends.rst.next = self.chain_rst.val();
        self.verify.cfg_seq.next = self.c_seq.q.val();
        self.verify.cfg_origin.next = self.cfg_origin.val();
        self.verify.cfg_markers.next = self.cfg_markers.val();
        self.verify.cfg_crc.next = self.cfg_crc.val();
        self.verify.cfg_max_ulpdu.next = self.cfg_max_ulpdu.val();
        // s_rd -> the path, cut to V octets a beat: the try's sequence number, FIN on the last
        // slice; once the try is over the rest of the read is taken and dropped.
        self.rd_down.rst.next = self.chain_rst.val();
        self.rd_down.s_axis.data.next = self.s_rd.data.val();
        self.rd_down.s_axis.keep.next = self.s_rd.keep.val();
        self.rd_down.s_axis.user.next = 0.into();
        self.rd_down.s_axis.last.next = self.s_rd.last.val();
        // (Each of these is its own statement, none writing `s_rd.ready` while reading
        // `s_rd.last`: Verilator then orders them against the reader's block, which writes
        // `last` and reads `ready`, without seeing a loop.)
        self.rd_on.next = (self.state.q.val() == 4) & !self.rst.val();
        self.rd_pass.next = !self.over.q.val() & !self.rd_last.q.val();
        self.s_rd.ready.next = self.rd_on.val()
            & ((self.rd_pass.val() & self.rd_down.s_axis.ready.val())
                | (!self.rd_pass.val() & !self.rd_last.q.val()));
        self.rd_down.s_axis.valid.next =
            self.rd_on.val() & self.rd_pass.val() & self.s_rd.valid.val();
        self.verify.s_axis.data.next = self.rd_down.m_axis.data.val();
        self.verify.s_axis.keep.next = self.rd_down.m_axis.keep.val();
        self.verify.s_axis.user.next = 0.into();
        self.verify.s_axis.user.next.set_value_rx_seg_seq(self.c_seq.q.val());
        self.verify.s_axis.user.next.set_value_rx_seg_fin(self.rd_down.m_axis.last.val());
        self.verify.s_axis.last.next = self.rd_down.m_axis.last.val();
        self.verify.s_axis.valid.next = self.rd_down.m_axis.valid.val();
        self.rd_down.m_axis.ready.next = self.verify.s_axis.ready.val();
        if self.rd_on.val() & self.s_rd.valid.val() & self.s_rd.last.val() & self.s_rd.ready.val() {
            self.rd_last.d.next = true;
        }
        // The path's ULPDUs, packed back to W octets a beat.
        self.up.rst.next = self.chain_rst.val();
        self.up.s_axis.data.next = self.verify.m_axis.data.val();
        self.up.s_axis.keep.next = self.verify.m_axis.keep.val();
        self.up.s_axis.user.next = self.verify.m_axis.user.val();
        self.up.s_axis.last.next = self.verify.m_axis.last.val();
        self.up.s_axis.valid.next = self.verify.m_axis.valid.val();
        self.verify.m_axis.ready.next = self.up.s_axis.ready.val();
        // Each FPDU that left the CRC check without an error: its end, for its verdict.
        self.ends.push.next = self.verify.fpdu_done.val();
        self.ends.push_data.next = self.verify.fpdu_end.val();
        // The verdicts.
        self.s_err.next = self.up.m_axis.user.val().get_value_rx_ulpdu_err();
        // A good packet's last beat waits for its end from the CRC check.
        self.hold_last.next =
            self.up.m_axis.last.val() & !self.s_err.val() & !self.ends.out_valid.val();
        // Forwarded: the packets of a try (with cfg_fwd) or of a placement try.
        self.fwd_on.next = (self.state.q.val() == 4)
            & !self.over.q.val()
            & (self.cfg_fwd.val() | self.placing.q.val());
        self.up.m_axis.ready.next = true;
        if (self.state.q.val() == 4) & !self.over.q.val() & self.hold_last.val() {
            self.up.m_axis.ready.next = false;
        }
        self.fwd.s_axis.data.next = self.up.m_axis.data.val();
        self.fwd.s_axis.keep.next = self.up.m_axis.keep.val();
        self.fwd.s_axis.last.next = self.up.m_axis.last.val();
        // The ULPDU sideband and the mode above it (PlaceUlpduUser extends RxUlpduUser).
        self.fwd.s_axis.user.next =
            bit_cast::<HDR_IN_USER, RX_ULPDU_USER>(self.up.m_axis.user.val());
        self.fwd.s_axis.user.next.set_value_place_ulpdu_mode(self.c_probe.val());
        if self.placing.q.val() {
            self.fwd.s_axis.user.next.set_value_place_ulpdu_mode(self.c_place.val());
        }
        self.fwd.s_axis.valid.next = false;
        if self.fwd_on.val() {
            self.fwd.s_axis.valid.next = self.up.m_axis.valid.val() & !self.hold_last.val();
            self.up.m_axis.ready.next = self.fwd.s_axis.ready.val() & !self.hold_last.val();
        }
        self.out_take.next = (self.state.q.val() == 4)
            & !self.over.q.val()
            & self.up.m_axis.valid.val()
            & self.up.m_axis.ready.val()
            & self.up.m_axis.last.val();
        self.end_off.next = self.ends.out_data.val() - self.seg_s.q.val();
        self.ends.out_ready.next = false;
        if self.out_take.val() & self.fwd_on.val() & !self.placing.q.val() {
            self.pkt_v.d.next = true;
            self.pkt_g.d.next = !self.s_err.val();
            self.pkt_s.d.next = self.up.m_axis.user.val().get_value_rx_ulpdu_seq();
            self.pkt_e.d.next = self.ends.out_data.val();
            self.pkt_sp.d.next = self.al_try.q.val();
            self.al_got.d.next = true;
        }
        if self.out_take.val() {
            if self.s_err.val() {
                self.over.d.next = true;
            } else {
                self.ends.out_ready.next = true;
                self.loc_v.d.next = !self.placing.q.val() & !self.al_try.q.val();
                self.loc_s.d.next = self.up.m_axis.user.val().get_value_rx_ulpdu_seq();
                self.loc_e.d.next = self.ends.out_data.val();
                self.last_end.d.next = self.end_off.val();
                if self.end_off.val() == self.e_off.q.val() {
                    self.over.d.next = true;
                }
            }
        }
        // The watchdog (cycles without a packed W-octet beat out of the path once the read is in;
        // at most W / V - 1 between two while the path delivers), and the
        // end of a try.
        if (self.state.q.val() == 4) & self.rd_last.q.val() & !self.over.q.val() {
            self.wd.d.next = self.wd.q.val() + 1;
            if self.up.m_axis.valid.val() & self.up.m_axis.ready.val() {
                self.wd.d.next = 0.into();
            }
            if self.wd.q.val() == 4094 {
                self.over.d.next = true;
                self.wd_hit.d.next = true;
                self.al_bad.d.next = true;
            }
        }
        if (self.state.q.val() == 4) & self.over.q.val() & self.rd_last.q.val() {
            self.state.d.next = 2.into();
            self.untried.d.next = self.last_end.q.val() + 1;
            if self.placing.q.val() {
                self.state.d.next = 5.into();
            }
            if self.al_try.q.val() {
                self.state.d.next = 6.into();
                self.untried.d.next = self.untried.q.val();
            }
        }
        // ---- The alignment verdict: aligned, the same try again, reported; otherwise the
        // other candidates, nothing tried yet. ----
        if (self.state.q.val() == 6) & self.al_valid.val() {
            self.al_try.d.next = false;
            self.state.d.next = 2.into();
            if self.al_ok.val() & self.al_got.q.val() & !self.al_bad.q.val() {
                self.state.d.next = 3.into();
            }
        }

        // ---- Done: ready for the next segment. ----
        if self.state.q.val() == 5 {
            self.state.d.next = 0.into();
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.pk_ok.d.next = false;
            self.untried.d.next = 0.into();
            self.ch_pend.d.next = false;
            self.placing.d.next = false;
            self.al_pend.d.next = false;
            self.al_try.d.next = false;
        }

        if self.rst.val() {
            self.state.d.next = 0.into();
            self.first.d.next = true;
            self.v1.d.next = false;
            self.vb.d.next = false;
            self.vc.d.next = false;
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.pk_ok.d.next = false;
            self.untried.d.next = 0.into();
            self.ch_pend.d.next = false;
            self.have_last.d.next = false;
            self.over.d.next = false;
            self.rd_last.d.next = false;
            self.wd_hit.d.next = false;
            self.loc_v.d.next = false;
            self.placing.d.next = false;
            self.pkt_v.d.next = false;
            self.al_pend.d.next = false;
            self.al_try.d.next = false;
        }
    }
}
