//! `PlaceReassembly`: segment intake in any order, a reassembly ring in block RAM and a record
//! table of held runs; the in-order stream out to `mpa_rx`, a verdict per segment back to TCP.
//!
//! RFC 5044 Appendix A.3 (segments passed to MPA out of order; a receiver that holds them keeps
//! "a reassembly buffer"), A.4/A.5 (re-segmented and overlapping retransmissions) and B.1.4
//! (in-order delivery). The decisions are the golden receiver's ([`golden::receiver`]) with
//! `place_out_of_order` off and `reassembly_window` = the ring: every out-of-order octet is
//! held; a segment is refused when, with it, the out-of-order held octets would exceed
//! `cfg_budget` (the reassembly buffer minus the in-order reserve) or the out-of-order runs
//! `cfg_records` (the table minus the one kept for the edge), or when it ends beyond the ring.
//! Segments at or before the edge are never refused, so every stream completes.
//!
//! ```text
//!  s_axis ─► StreamSkid ─┬─ seq == edge ─────────────────► pass through ─┐
//!  (segments,            └─ otherwise: octets >= edge ─► ring (W lane RAMs, │
//!   any order)              addressed by seq mod RING)      ▲              ├─► StreamOutQ ─► m_axis
//!                            record table (RN runs) ──► verdict             │   (in order, seq, FIN)
//!                            run reached by the edge ──► read back from the ring ─┘
//!   beyond the edge: pass 1 ─► PlaceLocate ◄─ its reads from the ring ─► loc_* (located FPDUs)
//! ```
//!
//! - The **edge** is the sequence number of the first octet not yet passed on. A segment that
//!   starts at the edge goes straight through (one cycle per beat, nothing copied). A segment that
//!   starts before it and ends beyond it (a retransmission overlapping what was taken) has its new
//!   octets written to the ring and read back in order (it is trimmed, not dropped). A segment
//!   wholly before the edge is accepted and dropped (a duplicate).
//! - A segment beyond the edge is written to the ring while it streams in (octets beyond
//!   `edge + RING` are not); at its end the record table decides: new octets (the segment minus
//!   the runs it overlaps), runs after merging with the runs it overlaps or touches. Accepted:
//!   the runs merge into one record. Refused: nothing of it counts (the ring octets it wrote are
//!   not marked held; octets it shares with held runs are the same octets, A.3).
//! - When the edge advances (a segment at or overlapping the edge ended), every run it covers is
//!   dropped and the run it reaches (which starts at or before the new edge and ends beyond it)
//!   is read back from the ring and passed on, so the edge moves to that run's end.
//! - **Locating** (RFC 5044 section 6, methods 2 and 3): a segment beyond the edge also streams
//!   into [`PlaceLocate`]'s pass 1 as it goes into the ring; once it is in (and unless it ends
//!   beyond the ring or is empty), the locator's reads are served from the ring, and the FPDUs
//!   it verifies are reported on `loc_*` and counted, before the table decides. They are
//!   [`golden::receiver::locate_fpdus`]'s for the segment (header alignment off), chained from
//!   the placed FPDU that contains or ends at its first octet.
//! - **Placing** (`cfg_place` with `cfg_crc`; B.1.4, the golden receiver with
//!   `place_out_of_order`): before the tries, the block waits until the in-order path has
//!   decided everything complete it was given (`io_quiet`), then takes the header block's
//!   input (`ooo_sel`): every packet of a try goes out on `m_ooo` as a *probe*, whose header is
//!   decoded and checked by `rnic_rx`'s own header block and checker against the STag table
//!   and queues of that moment; its result (`probe_*`) is paired with the locator's verdict.
//!   With `cfg_aligned` (B.2 header alignment) the locator first tries the segment from its
//!   first octet without reporting; the block pairs that try's packets with their probes too
//!   and answers `al_ok` when every one verified and decoded (`probe_dec`), once every probe
//!   of it is back; the located FPDUs are then the golden receiver's with `aligned_detect`.
//!   A located FPDU goes on the *placing list* when its checks pass, it overlaps no placed FPDU,
//!   and (tagged with payload, or a Send with Invalidate) its STag is not named by a placed
//!   Send with Invalidate nor by one on the list. The table then counts, with the list, the
//!   held octets (the runs' octets less the placed FPDUs') and the records (held pieces of the
//!   runs, split at placed FPDUs, plus the placed FPDUs), and refuses as above. Accepted: each
//!   FPDU of the list enters the **placed table** (start, end, Send with Invalidate and its
//!   STag) and is read from the ring once more through the locator's path, its ULPDU going out
//!   on `m_ooo` as a *placement* (the checker writes it); then the header block goes back to
//!   the in-order stream. The ring keeps the placed FPDUs' octets (they are inside the runs),
//!   so when the edge reaches them they are read back like held octets: `mpa_rx` verifies them
//!   again, and the checker, told by `skip_hit` that the FPDU at that sequence number was
//!   placed, checks and accounts it with the state of that moment and discards its payload.
//!   The entry leaves the table when the checker takes it (`skip_take`).
//! - FIN: a FIN segment's end is remembered; FIN goes out on the beat that reaches it (a null
//!   beat if the beat that reached it had already gone).
//! - `stopped` (the connection ended: error or Terminate): every segment is accepted and
//!   dropped, the held runs are dropped.
//!
//! Sequence numbers are compared by 32-bit differences from the edge, so they may wrap through
//! 2^32 anywhere (RFC 793 arithmetic); every held run lies in `[edge, edge + RING)`.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset: table emptied, the edge loaded from `cfg_seq` |
//! | `cfg_seq` | in | 32 | sequence number of the first octet of the MPA stream (loaded while `rst`) |
//! | `cfg_budget` | in | 32 | out-of-order octets that may be held (`reassembly_octets` minus the in-order reserve) |
//! | `cfg_records` | in | 8 | out-of-order runs that may be held (`records - 1`; at most `RN`) |
//! | `stopped` | in | 1 | the connection has ended: accept and drop |
//! | `cfg_markers`, `cfg_crc`, `cfg_max_ulpdu` | in | 1, 1, 16 | the locator's settings (`cfg_seq` is the Marker origin); without CRCs nothing is located |
//! | `s_axis` | in | 8W | segments in any order, `tuser[31:0]` sequence number, `tuser[32]` FIN ([`crate::rx::realigner::RX_SEG_USER`]) |
//! | `m_axis` | out | 8W | segments in sequence order, each starting at the previous one's end, same sideband |
//! | `vrd_valid`, `vrd_accept`, `vrd_seq` | out | 1, 1, 32 | one pulse per segment (in arrival order): accepted or refused, and its sequence number |
//! | `held`, `runs` | out | 32, 8 | out-of-order octets and runs held now |
//! | `refused`, `peak_held` | out | 32 | segments refused; the most out-of-order octets held at once |
//! | `loc_valid`, `loc_start`, `loc_end` | out | 1, 32, 32 | pulse: an FPDU `[loc_start, loc_end)` located in the out-of-order segment being taken, in increasing order, before that segment's verdict |
//! | `located`, `located_octets` | out | 32 | FPDUs located, and their octets, since reset |
//! | `loc_watchdog` | out | 1 | sticky: the locator's watchdog ended a try (not expected; the tests assert it low) |
//! | `cfg_place` | in | 1 | place FPDUs located out of order (with `cfg_crc`) |
//! | `io_quiet` | in | 1 | the in-order path (`mpa_rx`, the header block, the checker) has decided every complete FPDU it was given and its header block is between packets |
//! | `probe_valid`, `probe_ok`, `probe_tpl`, `probe_inv`, `probe_stag`, `probe_dec` | in | 1, 1, 1, 1, 32, 1 | the checker's result for each probe, in order (`probe_dec`: its header decoded) |
//! | `cfg_aligned` | in | 1 | header-alignment detection (B.2; with `cfg_place`) |
//! | `m_ooo`, `ooo_sel` | out | 8W, 1 | probes and placements ([`crate::place::header::HDR_IN_USER`]) for the header block, and when it takes them instead of `mpa_rx`'s ULPDUs |
//! | `skip_seq`, `skip_hit` | in, out | 32, 1 | the sequence number of the checker's ULPDU in its stage D, and (a cycle later) whether it was placed out of order |
//! | `skip_take`, `skip_take_seq` | in | 1, 32 | the checker decided that ULPDU: its entry leaves the placed table |
//! | `placed_fpdus`, `placed_now` | out | 32, 8 | FPDUs placed out of order since reset; entries of the placed table now |
//!
//! ### Parameters
//! `W` bytes per beat (4..64), `B = 8W`, `D` ring word-address bits (the ring holds
//! `RING = W * 2^D` octets, at least 65536 so that any TCP segment overlapping the edge fits),
//! `RN` record-table entries (a power of two, 2..=128; the exported tops and every test use
//! [`RECORD_ENTRIES`] = 16), `V` bytes per beat of the locator's verification path with
//! `BV = 8V` ([`PlaceLocate`]; the tops and tests use `locate_width(W)`).
//!
//! ### Latency and throughput
//! One segment is handled at a time; each costs one cycle to decide its path from its first
//! beat. A segment at the edge then passes at one beat per cycle (`m_axis` one cycle behind
//! the input slice); when runs are held, five more cycles check which of them it reached. Any
//! other segment: one beat per cycle into the ring (each beat's write registered, rotated to
//! its lanes and written a cycle after it is taken), then cycles for the table (offsets,
//! comparisons, sums, the decision's sums, its comparisons, commit: six for a segment beyond
//! the edge, five for one overlapping it); a run read back: one cycle, then one beat per cycle.
//! Before its table work, a segment beyond the edge is located: four cycles after its last
//! beat, then per try a request, one beat per cycle from the ring (from the candidate to the
//! segment's end) and the verification path's latency ([`PlaceLocate`]); with Markers on a
//! segment usually needs one try, so the octets of a segment beyond the edge are read twice.
//! With placement on, the wait for `io_quiet`, the probes (the checker's five-stage pipeline,
//! overlapped with the read; each result then takes two cycles to pair and decide, one pair
//! per cycle), 2 RN + 2 cycles to count the records, and per placed
//! FPDU a third read of its octets; placed FPDUs pass `mpa_rx` once more when the edge reaches
//! them (their payload is not written again).
//!
//! ### On bad input
//! A segment longer than the ring or ending beyond it is refused (TCP's advertised window must be
//! at most `RING`; a segment the window allows is never lost). Nothing is written outside the
//! ring; no input hangs the block.

use crate::fifo::RegFifo;
use crate::place::header::HDR_IN_USER;
use crate::place::locate::PlaceLocate;
use crate::sideband::{RxSegmentUserFields, RX_SEG_USER};
use crate::stream::{check_stream_params, StreamSink, StreamSource};
use crate::stream_outq::StreamOutQ;
use crate::stream_skid::StreamSkid;
use rust_hdl::prelude::*;

/// The smallest ring: one largest TCP segment beyond the edge.
pub const MIN_RING_OCTETS: usize = 1 << 16;

// States (literals in `update`, which cannot name constants): 0 idle, 1 pass through,
// 2 into the ring, 3 segment end, 4..7 table evaluation, 20 the decision (a segment beyond
// the edge), 8 commit, 9 read back, 10 FIN check, 11 FIN beat, 12 locating (a read request
// or the end), 13 a read for the locator; with out-of-order placement: 14 the chain start,
// 15 waiting for the in-order path, 16 the last probes, 17 counting the records, 18 placing
// (a placement try), 19 its end, 21 the records' last count, 22 the chain start's choice.
// Segment modes: 0 drop, 2 overlaps the edge or older, 3 beyond the edge.

fn many<T: Default>(k: usize) -> Vec<T> {
    (0..k).map(|_| T::default()).collect()
}

/// The reassembly front end; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceReassembly<
    const W: usize,
    const B: usize,
    const D: usize,
    const RN: usize,
    const V: usize,
    const BV: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Sequence number of the first octet of the MPA stream.
    pub cfg_seq: Signal<In, Bits<32>>,
    /// Out-of-order octets that may be held.
    pub cfg_budget: Signal<In, Bits<32>>,
    /// Out-of-order runs that may be held.
    pub cfg_records: Signal<In, Bits<8>>,
    /// The connection has ended.
    pub stopped: Signal<In, Bit>,
    /// Markers on (the locator).
    pub cfg_markers: Signal<In, Bit>,
    /// CRCs on (the locator: nothing is located without them).
    pub cfg_crc: Signal<In, Bit>,
    /// Largest ULPDU_Length accepted (the locator).
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    /// Segments, any order.
    pub s_axis: StreamSink<W, B, RX_SEG_USER>,
    /// Segments, in order.
    pub m_axis: StreamSource<W, B, RX_SEG_USER>,
    /// Pulse: a verdict.
    pub vrd_valid: Signal<Out, Bit>,
    /// The verdict: accepted.
    pub vrd_accept: Signal<Out, Bit>,
    /// The verdict's segment.
    pub vrd_seq: Signal<Out, Bits<32>>,
    /// Out-of-order octets held.
    pub held: Signal<Out, Bits<32>>,
    /// Out-of-order runs held.
    pub runs: Signal<Out, Bits<8>>,
    /// Segments refused.
    pub refused: Signal<Out, Bits<32>>,
    /// Most out-of-order octets held at once.
    pub peak_held: Signal<Out, Bits<32>>,
    /// Pulse: an FPDU located in the out-of-order segment being taken (before its verdict).
    pub loc_valid: Signal<Out, Bit>,
    /// Its first octet.
    pub loc_start: Signal<Out, Bits<32>>,
    /// The octet after its last.
    pub loc_end: Signal<Out, Bits<32>>,
    /// FPDUs located in out-of-order segments.
    pub located: Signal<Out, Bits<32>>,
    /// Octets of the FPDUs located in out-of-order segments.
    pub located_octets: Signal<Out, Bits<32>>,
    /// Sticky: the locator's watchdog ended a try (not expected).
    pub loc_watchdog: Signal<Out, Bit>,
    /// Place FPDUs located in out-of-order segments (needs `cfg_crc`).
    pub cfg_place: Signal<In, Bit>,
    /// The in-order path has decided every FPDU complete in what it was given.
    pub io_quiet: Signal<In, Bit>,
    /// Pulse: a probe's result (the checker).
    pub probe_valid: Signal<In, Bit>,
    /// Its checks pass.
    pub probe_ok: Signal<In, Bit>,
    /// It is tagged with payload.
    pub probe_tpl: Signal<In, Bit>,
    /// It is the L = 1 segment of a Send with Invalidate.
    pub probe_inv: Signal<In, Bit>,
    /// Its STag or Invalidate STag.
    pub probe_stag: Signal<In, Bits<32>>,
    /// Its DDP/RDMAP header decoded (no header error).
    pub probe_dec: Signal<In, Bit>,
    /// Header-alignment detection (with `cfg_place`).
    pub cfg_aligned: Signal<In, Bit>,
    /// The checker's in-order ULPDU: its sequence number.
    pub skip_seq: Signal<In, Bits<32>>,
    /// It was placed out of order (registered).
    pub skip_hit: Signal<Out, Bit>,
    /// Pulse: the checker decided an in-order ULPDU placed out of order.
    pub skip_take: Signal<In, Bit>,
    /// Its sequence number.
    pub skip_take_seq: Signal<In, Bits<32>>,
    /// ULPDUs located out of order: probes and placements, for the header block.
    pub m_ooo: StreamSource<W, B, HDR_IN_USER>,
    /// The header block takes `m_ooo` (not the in-order stream).
    pub ooo_sel: Signal<Out, Bit>,
    /// FPDUs placed out of order since reset.
    pub placed_fpdus: Signal<Out, Bits<32>>,
    /// Out-of-order FPDUs placed and not yet passed by the edge.
    pub placed_now: Signal<Out, Bits<8>>,
    inp: StreamSkid<W, B, RX_SEG_USER>,
    loc: PlaceLocate<W, B, V, BV>,
    rdq: StreamSkid<W, B, RX_SEG_USER>,
    loc_rst: DFF<Bit>,
    located_q: DFF<Bits<32>>,
    loc_oct_q: DFF<Bits<32>>,
    out: StreamOutQ<W, B, RX_SEG_USER>,
    ring: Vec<RAM<Bits<8>, D>>,
    // Segment.
    state: DFF<Bits<5>>,
    rcv_edge: DFF<Bits<32>>,
    // `rcv_edge + RING`, written beside it (so that the idle state's bound for the ring write
    // is one subtraction from the segment's sequence number), and the segment's own
    // `s_seq + RING` for the pass-through end.
    edge_ring: DFF<Bits<32>>,
    s_ring: DFF<Bits<32>>,
    s_seq: DFF<Bits<32>>,
    s_mode: DFF<Bits<2>>,
    s_lo: DFF<Bits<32>>,
    r_hi: DFF<Bits<32>>,
    r_lo: DFF<Bits<32>>,
    s_len: DFF<Bits<32>>,
    s_fin: DFF<Bit>,
    s_beyond: DFF<Bit>,
    w_addr: DFF<Bits<32>>,
    w_a1: DFF<Bits<32>>,
    w_r: DFF<Bits<16>>,
    // The ring write, registered before its rotation to the lanes (the write lands a cycle
    // after the beat is taken; nothing reads the ring that soon): the octets to write as the
    // beat holds them, the beat, its rotation and its two word addresses.
    wq_take: DFF<Bit>,
    wq_m: DFF<Bits<W>>,
    wq_d: DFF<Bits<B>>,
    wq_r: DFF<Bits<16>>,
    wq_a0: DFF<Bits<D>>,
    wq_a1: DFF<Bits<D>>,
    // Table.
    st: Vec<DFF<Bits<17>>>,
    en: Vec<DFF<Bits<17>>>,
    r_s: Vec<DFF<Bits<17>>>,
    r_e: Vec<DFF<Bits<17>>>,
    rs_q: DFF<Bits<17>>,
    re_q: DFF<Bits<17>>,
    v: Vec<DFF<Bit>>,
    e_flag: Vec<DFF<Bit>>,
    e_left: Vec<DFF<Bit>>,
    e_right: Vec<DFF<Bit>>,
    e_val: Vec<DFF<Bits<17>>>,
    e_slot: Vec<DFF<Bit>>,
    ev_post: DFF<Bit>,
    ev_t: DFF<Bits<32>>,
    ev_from: DFF<Bits<32>>,
    ev_sumv: DFF<Bits<17>>,
    ev_sumf: DFF<Bits<8>>,
    ev_mst: DFF<Bits<17>>,
    ev_men: DFF<Bits<17>>,
    ev_hl: DFF<Bits<32>>,
    ev_dend: DFF<Bits<32>>,
    // The decision's registered sums (state 7, compared in state 20): the placed table's
    // valid entries, the records less them, the held octets after, new_runs within RN.
    npl_q: DFF<Bits<8>>,
    rb_q: DFF<Bits<8>>,
    ha_q: DFF<Bits<32>>,
    nr_ok: DFF<Bit>,
    ev_anyr: DFF<Bit>,
    ev_acc: DFF<Bit>,
    held_q: DFF<Bits<32>>,
    runs_q: DFF<Bits<8>>,
    refused_q: DFF<Bits<32>>,
    peak_q: DFF<Bits<32>>,
    fin_valid: DFF<Bit>,
    fin_end: DFF<Bits<32>>,
    fin_sent: DFF<Bit>,
    // Read back.
    d_seq: DFF<Bits<32>>,
    d_addr: DFF<Bits<32>>,
    d_a1: DFF<Bits<32>>,
    d_a2: DFF<Bits<32>>,
    d_rem: DFF<Bits<32>>,
    d_r: DFF<Bits<16>>,
    d_valid: DFF<Bit>,
    d_fin: DFF<Bit>,
    vrd_v: DFF<Bit>,
    vrd_a: DFF<Bit>,
    vrd_s: DFF<Bits<32>>,
    // Out-of-order placement: the placed table (FPDUs placed and not yet decided in order;
    // offsets from the edge recomputed every cycle), the placing list of the segment, the
    // pairing of probe results with the locator's verdicts, the count of records.
    pv: Vec<DFF<Bit>>,
    ppass: Vec<DFF<Bit>>,
    ps32: Vec<DFF<Bits<32>>>,
    ps: Vec<DFF<Bits<17>>>,
    pe: Vec<DFF<Bits<17>>>,
    plen: Vec<DFF<Bits<17>>>,
    pinv: Vec<DFF<Bit>>,
    pstag: Vec<DFF<Bits<32>>>,
    prs: Vec<DFF<Bits<17>>>,
    pre: Vec<DFF<Bits<17>>>,
    e_pass: Vec<DFF<Bit>>,
    ls: Vec<DFF<Bits<17>>>,
    le: Vec<DFF<Bits<17>>>,
    ls32: Vec<DFF<Bits<32>>>,
    le32: Vec<DFF<Bits<32>>>,
    linv: Vec<DFF<Bit>>,
    // Entry i of the list is in use (i < lc), kept as its own flag so that no comparison
    // with `lc` sits in front of the tables' tests (lc -> i < lc was the critical path).
    lval: Vec<DFF<Bit>>,
    lstag: Vec<DFF<Bits<32>>>,
    lc: DFF<Bits<8>>,
    lovf: DFF<Bit>,
    pkts: RegFifo<66>,
    probes: RegFifo<36>,
    pr_v: DFF<Bit>,
    al_nok: DFF<Bit>,
    al_q: DFF<Bit>,
    pr_pkt: DFF<Bits<66>>,
    pr_prb: DFF<Bits<36>>,
    pr_s17: DFF<Bits<17>>,
    pr_e17: DFF<Bits<17>>,
    // The pair's second stage: the decision, with the comparisons registered in the first.
    p2_v: DFF<Bit>,
    p2_pkt: DFF<Bits<66>>,
    p2_prb: DFF<Bits<36>>,
    p2_s17: DFF<Bits<17>>,
    p2_e17: DFF<Bits<17>>,
    p2_hit: DFF<Bit>,
    p2_name: DFF<Bit>,
    p2_fwd: DFF<Bit>,
    p2_acc: DFF<Bit>,
    lp_j: DFF<Bits<8>>,
    lp_nh: DFF<Bits<8>>,
    lp_nhp: DFF<Bits<8>>,
    lp_np: DFF<Bits<8>>,
    lp_oct: DFF<Bits<17>>,
    ch_v: DFF<Bit>,
    // The chain start as the placed FPDU's end less the edge (the locator's `chain_seq` is
    // the edge plus it).
    ch_t: DFF<Bits<17>>,
    // State 14's tests per placed entry, registered for state 22's choice: the entry contains
    // or ends at the segment's first octet (`ch_c`), starts there (`ch_b`).
    ch_c: Vec<DFF<Bit>>,
    ch_b: Vec<DFF<Bit>>,
    // The segment's start less the edge and whether it is inside the ring, registered with
    // its first beat (state 0) for state 14.
    srel_q: DFF<Bits<17>>,
    s_inring: DFF<Bit>,
    sel_q: DFF<Bit>,
    place_q: DFF<Bit>,
    poct_q: DFF<Bits<17>>,
    pcnt_q: DFF<Bits<32>>,
    pl_k: DFF<Bits<8>>,
    // The placing list's entry pl_k, registered (the 16-way choice is a cycle of its own), and
    // "they are pl_k's": state 18 waits a cycle after entering it for them.
    pk_seq: DFF<Bits<32>>,
    pk_end: DFF<Bits<32>>,
    pk_len: DFF<Bits<17>>,
    pk_inv: DFF<Bit>,
    pk_stag: DFF<Bits<32>>,
    pk_v: DFF<Bit>,
    pk_more: DFF<Bit>,
    pl_go: DFF<Bit>,
    skip_q: DFF<Bit>,
    /// The locator finished the segment while state 15 waited.
    done_q: DFF<Bit>,
    // Constants.
    c_w: Constant<Bits<32>>,
    c_wm1: Constant<Bits<32>>,
    c_lw: Constant<Bits<32>>,
    c_ring: Constant<Bits<32>>,
    c_rn: Constant<Bits<8>>,
    c_ones_w: Constant<Bits<W>>,
    c_cnt: Vec<Constant<Bits<32>>>,
    c_lane: Vec<Constant<Bits<16>>>,
    /// 8 * lane: the bit offset of each lane's octet.
    c_lane8: Vec<Constant<Bits<16>>>,
    c_rs: Vec<Constant<Bits<16>>>,
    c_mrl: Vec<Constant<Bits<16>>>,
    c_mrr: Vec<Constant<Bits<16>>>,
    c_drl: Vec<Constant<Bits<16>>>,
    c_drr: Vec<Constant<Bits<16>>>,
    c_idx: Vec<Constant<Bits<8>>>,
    c_jl: Vec<Constant<Bits<8>>>,
    c_jend: Constant<Bits<8>>,
    // Locals.
    useq: Signal<Local, Bits<32>>,
    rel: Signal<Local, Bits<32>>,
    nrel: Signal<Local, Bits<32>>,
    hrel: Signal<Local, Bits<32>>,
    rel_eq: Signal<Local, Bit>,
    n_in: Signal<Local, Bits<32>>,
    take: Signal<Local, Bit>,
    pass_take: Signal<Local, Bit>,
    dlo: Signal<Local, Bits<32>>,
    dhi: Signal<Local, Bits<32>>,
    mlo: Signal<Local, Bits<W>>,
    mhi: Signal<Local, Bits<W>>,
    wm: Signal<Local, Bits<W>>,
    wd: Signal<Local, Bits<B>>,
    a0: Signal<Local, Bits<D>>,
    a1: Signal<Local, Bits<D>>,
    rot_r: Signal<Local, Bits<16>>,
    e17: Signal<Local, Bits<17>>,
    s17: Signal<Local, Bits<17>>,
    len17: Signal<Local, Bits<17>>,
    t_rel: Signal<Local, Bits<32>>,
    men_rel: Signal<Local, Bits<17>>,
    lo_i: Vec<Signal<Local, Bits<17>>>,
    hi_i: Vec<Signal<Local, Bits<17>>>,
    tv: Vec<Signal<Local, Bits<17>>>,
    tf: Vec<Signal<Local, Bits<8>>>,
    sum_v: Signal<Local, Bits<17>>,
    sum_f: Signal<Local, Bits<8>>,
    or_st: Signal<Local, Bits<17>>,
    or_en: Signal<Local, Bits<17>>,
    any_l: Signal<Local, Bit>,
    any_r: Signal<Local, Bit>,
    found: Signal<Local, Bit>,
    new_held: Signal<Local, Bits<32>>,
    new_runs: Signal<Local, Bits<8>>,
    d_end: Signal<Local, Bits<32>>,
    d_push: Signal<Local, Bit>,
    d_last: Signal<Local, Bit>,
    d_n: Signal<Local, Bits<32>>,
    rdat: Signal<Local, Bits<B>>,
    /// One lane's octet of the ring read, as `rdat` gathers them.
    rlane: Signal<Local, Bits<8>>,
    e_end: Signal<Local, Bits<32>>,
    ooo_path: Signal<Local, Bit>,
    c_hit: Signal<Local, Bit>,
    c_name: Signal<Local, Bit>,
    c_acc: Signal<Local, Bit>,
    probes_back: Signal<Local, Bit>,
    al_quiet: Signal<Local, Bit>,
    x_v: Signal<Local, Bit>,
    // State 17's element, registered (valid, start, end).
    xq_v: DFF<Bit>,
    xq_s: DFF<Bits<17>>,
    xq_e: DFF<Bits<17>>,
    x_s: Signal<Local, Bits<17>>,
    x_e: Signal<Local, Bits<17>>,
    x_re: Signal<Local, Bit>,
    x_rs: Signal<Local, Bit>,
    x_ps: Signal<Local, Bit>,
    // The element's test results, registered (a third stage: the tables' comparisons and
    // their OR over RN entries into the counters' enables was the critical path).
    y_v: DFF<Bit>,
    y_re: DFF<Bit>,
    y_rs: DFF<Bit>,
    y_ps: DFF<Bit>,
    y_len: DFF<Bits<17>>,
    mst_rel: Signal<Local, Bits<17>>,
    // State 17's copies of the segment's run bounds as offsets from the edge, registered.
    mst_rel_q: DFF<Bits<17>>,
    men_rel_q: DFF<Bits<17>>,
    dend_rel: Signal<Local, Bits<17>>,
    pass_sum: Signal<Local, Bits<17>>,
    ptv: Vec<Signal<Local, Bits<17>>>,
    pcv: Vec<Signal<Local, Bits<8>>>,
    free_found: Signal<Local, Bit>,
    fslot: Vec<Signal<Local, Bit>>,
    rec_after: Signal<Local, Bits<8>>,
    held_after: Signal<Local, Bits<32>>,
    npl: Signal<Local, Bits<8>>,
}

impl<
        const W: usize,
        const B: usize,
        const D: usize,
        const RN: usize,
        const V: usize,
        const BV: usize,
    > PlaceReassembly<W, B, D, RN, V, BV>
{
    /// Builds the block; panics with a message naming the rule if a parameter is illegal.
    pub fn new() -> Self {
        check_stream_params("PlaceReassembly", W, B, RX_SEG_USER);
        crate::tx::check_tx_width("PlaceReassembly", W);
        assert!(
            W << D >= MIN_RING_OCTETS && W << D <= 1 << 24,
            "PlaceReassembly: the ring (W * 2^D = {} octets) must hold 64 KiB to 16 MiB",
            W << D
        );
        assert!(
            RN.is_power_of_two() && (2..=128).contains(&RN),
            "PlaceReassembly: RN = {RN} record entries must be a power of two in 2..=128"
        );
        let lw = W.trailing_zeros() as usize;
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        let c32 = |v: usize| Constant::new(Bits::<32>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_seq: Default::default(),
            cfg_budget: Default::default(),
            cfg_records: Default::default(),
            stopped: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_max_ulpdu: Default::default(),
            s_axis: StreamSink::new(),
            m_axis: StreamSource::new(),
            vrd_valid: Default::default(),
            vrd_accept: Default::default(),
            vrd_seq: Default::default(),
            held: Default::default(),
            runs: Default::default(),
            refused: Default::default(),
            peak_held: Default::default(),
            loc_valid: Default::default(),
            loc_start: Default::default(),
            loc_end: Default::default(),
            located: Default::default(),
            located_octets: Default::default(),
            loc_watchdog: Default::default(),
            cfg_place: Default::default(),
            io_quiet: Default::default(),
            probe_valid: Default::default(),
            probe_ok: Default::default(),
            probe_tpl: Default::default(),
            probe_inv: Default::default(),
            probe_stag: Default::default(),
            probe_dec: Default::default(),
            cfg_aligned: Default::default(),
            skip_seq: Default::default(),
            skip_hit: Default::default(),
            skip_take: Default::default(),
            skip_take_seq: Default::default(),
            m_ooo: StreamSource::new(),
            ooo_sel: Default::default(),
            placed_fpdus: Default::default(),
            placed_now: Default::default(),
            inp: StreamSkid::new(),
            loc: PlaceLocate::new(),
            rdq: StreamSkid::new(),
            loc_rst: Default::default(),
            located_q: Default::default(),
            loc_oct_q: Default::default(),
            out: StreamOutQ::new(),
            ring: many(W),
            state: Default::default(),
            rcv_edge: Default::default(),
            edge_ring: Default::default(),
            s_ring: Default::default(),
            s_seq: Default::default(),
            s_mode: Default::default(),
            s_lo: Default::default(),
            r_hi: Default::default(),
            r_lo: Default::default(),
            s_len: Default::default(),
            s_fin: Default::default(),
            s_beyond: Default::default(),
            w_addr: Default::default(),
            w_a1: Default::default(),
            w_r: Default::default(),
            wq_take: Default::default(),
            wq_m: Default::default(),
            wq_d: Default::default(),
            wq_r: Default::default(),
            wq_a0: Default::default(),
            wq_a1: Default::default(),
            st: many(RN),
            en: many(RN),
            r_s: many(RN),
            r_e: many(RN),
            rs_q: Default::default(),
            re_q: Default::default(),
            v: many(RN),
            e_flag: many(RN),
            e_left: many(RN),
            e_right: many(RN),
            e_val: many(RN),
            e_slot: many(RN),
            ev_post: Default::default(),
            ev_t: Default::default(),
            ev_from: Default::default(),
            ev_sumv: Default::default(),
            ev_sumf: Default::default(),
            ev_mst: Default::default(),
            ev_men: Default::default(),
            ev_hl: Default::default(),
            ev_dend: Default::default(),
            npl_q: Default::default(),
            rb_q: Default::default(),
            ha_q: Default::default(),
            nr_ok: Default::default(),
            ev_anyr: Default::default(),
            ev_acc: Default::default(),
            held_q: Default::default(),
            runs_q: Default::default(),
            refused_q: Default::default(),
            peak_q: Default::default(),
            fin_valid: Default::default(),
            fin_end: Default::default(),
            fin_sent: Default::default(),
            d_seq: Default::default(),
            d_addr: Default::default(),
            d_a1: Default::default(),
            d_a2: Default::default(),
            d_rem: Default::default(),
            d_r: Default::default(),
            d_valid: Default::default(),
            d_fin: Default::default(),
            vrd_v: Default::default(),
            vrd_a: Default::default(),
            vrd_s: Default::default(),
            pv: many(RN),
            ppass: many(RN),
            ps32: many(RN),
            ps: many(RN),
            pe: many(RN),
            plen: many(RN),
            pinv: many(RN),
            pstag: many(RN),
            prs: many(RN),
            pre: many(RN),
            e_pass: many(RN),
            ls: many(RN),
            le: many(RN),
            ls32: many(RN),
            le32: many(RN),
            linv: many(RN),
            lval: many(RN),
            lstag: many(RN),
            lc: Default::default(),
            lovf: Default::default(),
            pkts: RegFifo::new(8),
            probes: RegFifo::new(8),
            pr_v: Default::default(),
            al_nok: Default::default(),
            al_q: Default::default(),
            pr_pkt: Default::default(),
            pr_prb: Default::default(),
            pr_s17: Default::default(),
            pr_e17: Default::default(),
            p2_v: Default::default(),
            p2_pkt: Default::default(),
            p2_prb: Default::default(),
            p2_s17: Default::default(),
            p2_e17: Default::default(),
            p2_hit: Default::default(),
            p2_name: Default::default(),
            p2_fwd: Default::default(),
            p2_acc: Default::default(),
            lp_j: Default::default(),
            lp_nh: Default::default(),
            lp_nhp: Default::default(),
            lp_np: Default::default(),
            lp_oct: Default::default(),
            ch_v: Default::default(),
            ch_t: Default::default(),
            ch_c: many(RN),
            ch_b: many(RN),
            srel_q: Default::default(),
            s_inring: Default::default(),
            sel_q: Default::default(),
            place_q: Default::default(),
            poct_q: Default::default(),
            pcnt_q: Default::default(),
            pl_k: Default::default(),
            pk_seq: Default::default(),
            pk_end: Default::default(),
            pk_len: Default::default(),
            pk_inv: Default::default(),
            pk_stag: Default::default(),
            pk_v: Default::default(),
            pk_more: Default::default(),
            pl_go: Default::default(),
            skip_q: Default::default(),
            done_q: Default::default(),
            c_w: c32(W),
            c_wm1: c32(W - 1),
            c_lw: c32(lw),
            c_ring: c32(W << D),
            c_rn: Constant::new(Bits::<8>::from(RN as u64)),
            c_ones_w: Constant::new(Bits::<W>::mask()),
            c_cnt: (0..W).map(|k| c32(k + 1)).collect(),
            c_lane: (0..W).map(c16).collect(),
            c_lane8: (0..W).map(|l| c16(8 * l)).collect(),
            c_rs: (0..lw).map(|s| c16(1 << s)).collect(),
            c_mrl: (0..lw).map(|s| c16(1 << s)).collect(),
            c_mrr: (0..lw).map(|s| c16(W - (1 << s))).collect(),
            c_drl: (0..lw).map(|s| c16(8 << s)).collect(),
            c_drr: (0..lw).map(|s| c16(B - (8 << s))).collect(),
            c_idx: (0..RN).map(|i| Constant::new(Bits::<8>::from(i as u64))).collect(),
            c_jl: (RN..2 * RN).map(|i| Constant::new(Bits::<8>::from(i as u64))).collect(),
            c_jend: Constant::new(Bits::<8>::from((2 * RN - 1) as u64)),
            useq: Default::default(),
            rel: Default::default(),
            nrel: Default::default(),
            hrel: Default::default(),
            rel_eq: Default::default(),
            n_in: Default::default(),
            take: Default::default(),
            pass_take: Default::default(),
            dlo: Default::default(),
            dhi: Default::default(),
            mlo: Default::default(),
            mhi: Default::default(),
            wm: Default::default(),
            wd: Default::default(),
            a0: Default::default(),
            a1: Default::default(),
            rot_r: Default::default(),
            e17: Default::default(),
            s17: Default::default(),
            len17: Default::default(),
            t_rel: Default::default(),
            men_rel: Default::default(),
            lo_i: many(RN),
            hi_i: many(RN),
            tv: many(2 * RN - 1),
            tf: many(2 * RN - 1),
            sum_v: Default::default(),
            sum_f: Default::default(),
            or_st: Default::default(),
            or_en: Default::default(),
            any_l: Default::default(),
            any_r: Default::default(),
            found: Default::default(),
            new_held: Default::default(),
            new_runs: Default::default(),
            d_end: Default::default(),
            d_push: Default::default(),
            d_last: Default::default(),
            d_n: Default::default(),
            rdat: Default::default(),
            rlane: Default::default(),
            e_end: Default::default(),
            ooo_path: Default::default(),
            c_hit: Default::default(),
            c_name: Default::default(),
            c_acc: Default::default(),
            probes_back: Default::default(),
            al_quiet: Default::default(),
            x_v: Default::default(),
            xq_v: Default::default(),
            xq_s: Default::default(),
            xq_e: Default::default(),
            x_s: Default::default(),
            x_e: Default::default(),
            x_re: Default::default(),
            x_rs: Default::default(),
            x_ps: Default::default(),
            y_v: Default::default(),
            y_re: Default::default(),
            y_rs: Default::default(),
            y_ps: Default::default(),
            y_len: Default::default(),
            mst_rel: Default::default(),
            mst_rel_q: Default::default(),
            men_rel_q: Default::default(),
            dend_rel: Default::default(),
            pass_sum: Default::default(),
            ptv: many(2 * RN - 1),
            pcv: many(2 * RN - 1),
            free_found: Default::default(),
            fslot: many(RN),
            rec_after: Default::default(),
            held_after: Default::default(),
            npl: Default::default(),
        }
    }

    /// Octets the ring holds.
    pub const fn ring_octets() -> usize {
        W << D
    }
}

impl<
        const W: usize,
        const B: usize,
        const D: usize,
        const RN: usize,
        const V: usize,
        const BV: usize,
    > Default for PlaceReassembly<W, B, D, RN, V, BV>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const W: usize,
        const B: usize,
        const D: usize,
        const RN: usize,
        const V: usize,
        const BV: usize,
    > Logic for PlaceReassembly<W, B, D, RN, V, BV>
{
    #[hdl_gen]
    #[allow(clippy::single_element_loop)]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, rcv_edge, edge_ring, s_ring, s_seq, s_mode, s_lo, r_hi, r_lo,
            s_len, s_fin, s_beyond, w_addr, w_a1, d_a1, d_a2, w_r, ev_post, ev_t, ev_from, ev_sumv,
            ev_sumf, ev_mst, ev_men, ev_anyr, ev_hl, ev_dend, npl_q, rb_q, ha_q, nr_ok, rs_q, re_q,
            ev_acc, held_q, runs_q, refused_q, peak_q, fin_valid, fin_end, fin_sent, d_seq, d_addr,
            d_rem, d_r, d_valid, d_fin, vrd_v, vrd_a, vrd_s, loc_rst, located_q, loc_oct_q, lc,
            lovf, pr_v, al_nok, al_q, pr_pkt, pr_prb, pr_s17, pr_e17, p2_v, p2_pkt, p2_prb, p2_s17,
            p2_e17, p2_hit, p2_name, p2_fwd, p2_acc, mst_rel_q, men_rel_q, lp_j, lp_nh, lp_nhp,
            lp_np, lp_oct, xq_v, xq_s, xq_e, y_v, y_re, y_rs, y_ps, y_len, ch_v, ch_t, srel_q,
            s_inring, sel_q, place_q, poct_q, pcnt_q, pl_k, pk_seq, pk_end, pk_len, pk_inv,
            pk_stag, pk_v, pk_more, pl_go, skip_q, done_q, wq_take, wq_m, wq_d, wq_r, wq_a0, wq_a1
        );
        for i in 0..RN {
            self.pv[i].clock.next = self.clock.val();
            self.ppass[i].clock.next = self.clock.val();
            self.ps32[i].clock.next = self.clock.val();
            self.ch_c[i].clock.next = self.clock.val();
            self.ch_b[i].clock.next = self.clock.val();
            self.ps[i].clock.next = self.clock.val();
            self.pe[i].clock.next = self.clock.val();
            self.plen[i].clock.next = self.clock.val();
            self.pinv[i].clock.next = self.clock.val();
            self.pstag[i].clock.next = self.clock.val();
            self.prs[i].clock.next = self.clock.val();
            self.pre[i].clock.next = self.clock.val();
            self.e_pass[i].clock.next = self.clock.val();
            self.ls[i].clock.next = self.clock.val();
            self.le[i].clock.next = self.clock.val();
            self.ls32[i].clock.next = self.clock.val();
            self.le32[i].clock.next = self.clock.val();
            self.linv[i].clock.next = self.clock.val();
            self.lval[i].clock.next = self.clock.val();
            self.lstag[i].clock.next = self.clock.val();
            self.pv[i].d.next = self.pv[i].q.val();
            self.ppass[i].d.next = self.ppass[i].q.val();
            self.ps32[i].d.next = self.ps32[i].q.val();
            self.ch_c[i].d.next = self.ch_c[i].q.val();
            self.ch_b[i].d.next = self.ch_b[i].q.val();
            self.ps[i].d.next = self.ps[i].q.val();
            self.pe[i].d.next = self.pe[i].q.val();
            self.plen[i].d.next = self.plen[i].q.val();
            self.pinv[i].d.next = self.pinv[i].q.val();
            self.pstag[i].d.next = self.pstag[i].q.val();
            self.e_pass[i].d.next = self.e_pass[i].q.val();
            self.ls[i].d.next = self.ls[i].q.val();
            self.le[i].d.next = self.le[i].q.val();
            self.ls32[i].d.next = self.ls32[i].q.val();
            self.le32[i].d.next = self.le32[i].q.val();
            self.linv[i].d.next = self.linv[i].q.val();
            self.lval[i].d.next = self.lval[i].q.val();
            self.lstag[i].d.next = self.lstag[i].q.val();
        }
        self.pkts.clock.next = self.clock.val();
        self.pkts.rst.next = self.rst.val();
        self.probes.clock.next = self.clock.val();
        self.probes.rst.next = self.rst.val();
        for i in 0..RN {
            self.st[i].clock.next = self.clock.val();
            self.en[i].clock.next = self.clock.val();
            self.v[i].clock.next = self.clock.val();
            self.e_flag[i].clock.next = self.clock.val();
            self.e_left[i].clock.next = self.clock.val();
            self.e_right[i].clock.next = self.clock.val();
            self.e_val[i].clock.next = self.clock.val();
            self.e_slot[i].clock.next = self.clock.val();
            self.r_s[i].clock.next = self.clock.val();
            self.r_e[i].clock.next = self.clock.val();
            self.r_s[i].d.next = self.r_s[i].q.val();
            self.r_e[i].d.next = self.r_e[i].q.val();
            self.st[i].d.next = self.st[i].q.val();
            self.en[i].d.next = self.en[i].q.val();
            self.v[i].d.next = self.v[i].q.val();
            self.e_flag[i].d.next = self.e_flag[i].q.val();
            self.e_left[i].d.next = self.e_left[i].q.val();
            self.e_right[i].d.next = self.e_right[i].q.val();
            self.e_val[i].d.next = self.e_val[i].q.val();
            self.e_slot[i].d.next = self.e_slot[i].q.val();
        }
        self.inp.clock.next = self.clock.val();
        self.inp.rst.next = self.rst.val();
        self.out.clock.next = self.clock.val();
        self.out.rst.next = self.rst.val();
        self.inp.s_axis.data.next = self.s_axis.data.val();
        self.inp.s_axis.keep.next = self.s_axis.keep.val();
        self.inp.s_axis.user.next = self.s_axis.user.val();
        self.inp.s_axis.last.next = self.s_axis.last.val();
        self.inp.s_axis.valid.next = self.s_axis.valid.val();
        self.s_axis.ready.next = self.inp.s_axis.ready.val();
        self.m_axis.data.next = self.out.m_axis.data.val();
        self.m_axis.keep.next = self.out.m_axis.keep.val();
        self.m_axis.user.next = self.out.m_axis.user.val();
        self.m_axis.last.next = self.out.m_axis.last.val();
        self.m_axis.valid.next = self.out.m_axis.valid.val();
        self.out.m_axis.ready.next = self.m_axis.ready.val();
        self.vrd_valid.next = self.vrd_v.q.val();
        self.vrd_accept.next = self.vrd_a.q.val();
        self.vrd_seq.next = self.vrd_s.q.val();
        // Held: the runs' octets less those of the FPDUs placed out of order inside them.
        self.held.next = self.held_q.q.val() - bit_cast::<32, 17>(self.poct_q.q.val());
        self.runs.next = self.runs_q.q.val();
        self.refused.next = self.refused_q.q.val();
        self.peak_held.next = self.peak_q.q.val();
        self.vrd_v.d.next = false;
        self.ooo_path.next = self.cfg_place.val() & self.cfg_crc.val();

        // ---- The locator: pass 1 sees each out-of-order segment as it goes into the ring;
        // its reads (pass 2) are served from the ring in states 12 and 13. ----
        self.loc.clock.next = self.clock.val();
        self.loc.rst.next = self.rst.val() | self.loc_rst.q.val();
        self.loc_rst.d.next = false;
        self.loc.cfg_origin.next = self.cfg_seq.val();
        self.loc.cfg_markers.next = self.cfg_markers.val();
        self.loc.cfg_crc.next = self.cfg_crc.val();
        self.loc.cfg_max_ulpdu.next = self.cfg_max_ulpdu.val();
        self.loc.s_axis.data.next = self.inp.m_axis.data.val();
        self.loc.s_axis.keep.next = self.inp.m_axis.keep.val();
        self.loc.s_axis.user.next = self.inp.m_axis.user.val();
        self.loc.s_axis.last.next = self.inp.m_axis.last.val();
        self.loc.s_axis.valid.next =
            (self.state.q.val() == 2) & (self.s_mode.q.val() == 3) & self.inp.m_axis.valid.val();
        self.loc.chain_valid.next = self.ch_v.q.val();
        self.loc.chain_seq.next = self.rcv_edge.q.val() + bit_cast::<32, 17>(self.ch_t.q.val());
        self.loc.cfg_fwd.next = self.place_q.q.val();
        self.loc.cfg_aligned.next = self.cfg_aligned.val();
        self.loc.rd_ready.next = (self.state.q.val() == 12) | (self.state.q.val() == 19);
        self.m_ooo.data.next = self.loc.m_ulpdu.data.val();
        self.m_ooo.keep.next = self.loc.m_ulpdu.keep.val();
        self.m_ooo.user.next = self.loc.m_ulpdu.user.val();
        self.m_ooo.last.next = self.loc.m_ulpdu.last.val();
        self.m_ooo.valid.next = self.loc.m_ulpdu.valid.val();
        self.loc.m_ulpdu.ready.next = self.m_ooo.ready.val();
        self.ooo_sel.next = self.sel_q.q.val();
        self.placed_fpdus.next = self.pcnt_q.q.val();
        self.pk_seq.d.next = 0.into();
        self.pk_end.d.next = 0.into();
        self.pk_len.d.next = 0.into();
        self.pk_inv.d.next = false;
        self.pk_stag.d.next = 0.into();
        for k in 0..RN {
            if self.pl_k.q.val() == self.c_idx[k].val() {
                self.pk_seq.d.next = self.ls32[k].q.val();
                self.pk_end.d.next = self.le32[k].q.val();
                self.pk_len.d.next = self.le[k].q.val() - self.ls[k].q.val();
                self.pk_inv.d.next = self.linv[k].q.val();
                self.pk_stag.d.next = self.lstag[k].q.val();
            }
        }
        // pl_k changes only as state 18 is entered (from 8 or 19): the entry registered in
        // 18's first cycle is pl_k's from its second on.
        self.pk_v.d.next = self.state.q.val() == 18;
        self.loc.pl_seq.next = self.pk_seq.q.val();
        self.loc.pl_end.next = self.pk_end.q.val();
        // The locator's reads pass a register slice (its `ready` is a register: no path from
        // the locator's `ready` into the ring addresses).
        self.rdq.clock.next = self.clock.val();
        self.rdq.rst.next = self.rst.val() | self.loc_rst.q.val();
        self.loc.s_rd.data.next = self.rdq.m_axis.data.val();
        self.loc.s_rd.keep.next = self.rdq.m_axis.keep.val();
        self.loc.s_rd.user.next = self.rdq.m_axis.user.val();
        self.loc.s_rd.last.next = self.rdq.m_axis.last.val();
        self.loc.s_rd.valid.next = self.rdq.m_axis.valid.val();
        self.rdq.m_axis.ready.next = self.loc.s_rd.ready.val();
        self.rdq.s_axis.valid.next = (self.state.q.val() == 13) & self.d_valid.q.val();
        // Whether an FPDU of the list is left, registered like the entry (`lc` does not change
        // in state 18; the comparison in front of the locator's request was the critical path).
        self.pk_more.d.next = self.pl_k.q.val() != self.lc.q.val();
        self.loc.pl_valid.next =
            (self.state.q.val() == 18) & self.pk_v.q.val() & self.pk_more.q.val();
        self.loc_valid.next = self.loc.loc_valid.val();
        self.loc_start.next = self.loc.loc_start.val();
        self.loc_end.next = self.loc.loc_end.val();
        self.loc_watchdog.next = self.loc.watchdog.val();
        self.located.next = self.located_q.q.val();
        self.located_octets.next = self.loc_oct_q.q.val();
        if self.loc.loc_valid.val() {
            self.located_q.d.next = self.located_q.q.val() + 1;
            self.loc_oct_q.d.next =
                self.loc_oct_q.q.val() + (self.loc.loc_end.val() - self.loc.loc_start.val());
        }
        if (self.held_q.q.val() - bit_cast::<32, 17>(self.poct_q.q.val())) > self.peak_q.q.val() {
            self.peak_q.d.next = self.held_q.q.val() - bit_cast::<32, 17>(self.poct_q.q.val());
        }

        // ---- Defaults: nothing taken, nothing offered, nothing written. ----
        self.inp.m_axis.ready.next = false;
        self.out.s_axis.valid.next = false;
        self.out.s_axis.data.next = self.inp.m_axis.data.val();
        self.out.s_axis.keep.next = self.inp.m_axis.keep.val();
        self.out.s_axis.user.next = self.inp.m_axis.user.val();
        self.out.s_axis.last.next = self.inp.m_axis.last.val();
        self.take.next = (self.state.q.val() == 2)
            & self.inp.m_axis.valid.val()
            & ((self.s_mode.q.val() != 3) | self.loc.s_axis.ready.val());
        self.pass_take.next =
            (self.state.q.val() == 1) & self.inp.m_axis.valid.val() & self.out.s_axis.ready.val();
        self.useq.next = bit_cast::<32, RX_SEG_USER>(self.inp.m_axis.user.val());
        self.rel.next = self.useq.val() - self.rcv_edge.q.val();
        // Beside `rel`, not after it: -rel, RING - rel and rel == 0.
        self.nrel.next = self.rcv_edge.q.val() - self.useq.val();
        self.hrel.next = self.edge_ring.q.val() - self.useq.val();
        self.rel_eq.next = self.useq.val() == self.rcv_edge.q.val();
        self.d_end.next = self.ev_dend.q.val();
        self.n_in.next = 0.into();
        for k in 0..W {
            if self.inp.m_axis.keep.val().get_bit(k) {
                self.n_in.next = self.c_cnt[k].val();
            }
        }

        // ---- Ring write: the beat's octets with index in [lo, hi), rotated to their lanes. ----
        self.dlo.next = self.r_lo.q.val();
        self.dhi.next = self.r_hi.q.val();
        self.mlo.next = 0.into();
        if self.dlo.val().get_bit(31) | (self.dlo.val() == 0) {
            self.mlo.next = self.c_ones_w.val();
        } else if self.dlo.val() < self.c_w.val() {
            self.mlo.next = self.c_ones_w.val() << bit_cast::<16, 32>(self.dlo.val());
        }
        self.mhi.next = self.c_ones_w.val();
        if self.dhi.val().get_bit(31) | (self.dhi.val() == 0) {
            self.mhi.next = 0.into();
        } else if self.dhi.val() < self.c_w.val() {
            self.mhi.next = !(self.c_ones_w.val() << bit_cast::<16, 32>(self.dhi.val()));
        }
        self.wq_take.d.next = self.take.val();
        self.wq_m.d.next = self.inp.m_axis.keep.val() & self.mlo.val() & self.mhi.val();
        if self.s_mode.q.val() == 0 {
            self.wq_m.d.next = 0.into();
        }
        self.wq_d.d.next = self.inp.m_axis.data.val();
        self.wq_r.d.next = self.w_r.q.val();
        self.wq_a0.d.next = bit_cast::<D, 32>(self.w_addr.q.val());
        self.wq_a1.d.next = bit_cast::<D, 32>(self.w_a1.q.val());
        self.wm.next = self.wq_m.q.val();
        self.wd.next = self.wq_d.q.val();
        for s in 0..self.c_rs.len() {
            if (self.wq_r.q.val() & self.c_rs[s].val()) != 0 {
                self.wm.next =
                    (self.wm.val() << self.c_mrl[s].val()) | (self.wm.val() >> self.c_mrr[s].val());
                self.wd.next =
                    (self.wd.val() << self.c_drl[s].val()) | (self.wd.val() >> self.c_drr[s].val());
            }
        }
        self.a0.next = bit_cast::<D, 32>(self.w_addr.q.val());
        self.a1.next = bit_cast::<D, 32>(self.w_a1.q.val());
        self.rot_r.next = self.w_r.q.val();

        // ---- Ring read: the word of each lane for the next beat (its addresses are registers,
        // chosen by the handshake). ----
        self.d_push.next = false;

        self.d_n.next = self.d_rem.q.val();
        if self.d_rem.q.val() > self.c_w.val() {
            self.d_n.next = self.c_w.val();
        }
        self.d_last.next = self.d_rem.q.val() <= self.c_w.val();
        if (self.state.q.val() == 9) | (self.state.q.val() == 13) {
            self.rot_r.next = self.d_r.q.val();
            self.d_push.next = self.d_valid.q.val() & self.out.s_axis.ready.val();
            if self.state.q.val() == 13 {
                self.d_push.next = self.d_valid.q.val() & self.rdq.s_axis.ready.val();
            }
            self.a0.next = bit_cast::<D, 32>(self.d_addr.q.val());
            self.a1.next = bit_cast::<D, 32>(self.d_a1.q.val());
            if self.d_push.val() {
                self.a0.next = bit_cast::<D, 32>(self.d_a1.q.val());
                self.a1.next = bit_cast::<D, 32>(self.d_a2.q.val());
            }
        }
        for l in 0..W {
            self.ring[l].read_clock.next = self.clock.val();
            self.ring[l].write_clock.next = self.clock.val();
            self.ring[l].write_data.next = self.wd.val().get_bits::<8>(8 * l);
            self.ring[l].write_enable.next = self.wq_take.q.val() & self.wm.val().get_bit(l);
            self.ring[l].write_address.next = self.wq_a0.q.val();
            if self.c_lane[l].val() < self.wq_r.q.val() {
                self.ring[l].write_address.next = self.wq_a1.q.val();
            }
            self.ring[l].read_address.next = self.a0.val();
            if self.c_lane[l].val() < self.rot_r.val() {
                self.ring[l].read_address.next = self.a1.val();
            }
        }
        // Lane by lane (one shift and OR per lane; bit by bit, as `replace_bit`, Verilator spent
        // 40 % of `rnic_rx_w64`'s simulation time here: a shift of the whole word per bit).
        self.rdat.next = 0.into();
        // (`hdl_gen` evaluates a `bit_cast` argument outside the loop: the lane goes through
        // `rlane`.)
        for l in 0..W {
            self.rlane.next = self.ring[l].read_data.val();
            self.rdat.next =
                self.rdat.val() | (bit_cast::<B, 8>(self.rlane.val()) << self.c_lane8[l].val());
        }
        for s in 0..self.c_rs.len() {
            if (self.d_r.q.val() & self.c_rs[s].val()) != 0 {
                self.rdat.next = (self.rdat.val() >> self.c_drl[s].val())
                    | (self.rdat.val() << self.c_drr[s].val());
            }
        }
        self.rdq.s_axis.data.next = self.rdat.val();
        self.rdq.s_axis.keep.next = !(self.c_ones_w.val() << bit_cast::<16, 32>(self.d_n.val()));
        self.rdq.s_axis.last.next = self.d_last.val();
        self.rdq.s_axis.user.next = 0.into();

        // ---- Table evaluation, stage 0 (state 4): offsets from the edge in 17 bits (every held
        // run and every segment evaluated lies within RING <= 2^16 octets of the edge). ----
        self.e17.next = bit_cast::<17, 32>(self.rcv_edge.q.val());
        self.s17.next = bit_cast::<17, 32>(self.s_seq.q.val());
        self.len17.next = bit_cast::<17, 32>(self.s_len.q.val());
        self.t_rel.next = self.ev_t.q.val() - self.rcv_edge.q.val();
        if self.state.q.val() == 4 {
            self.rs_q.d.next = self.s17.val() - self.e17.val();
            self.re_q.d.next = self.s17.val() - self.e17.val() + self.len17.val();
            if self.ev_post.q.val() {
                // The new edge; a segment longer than the ring covers every run.
                self.re_q.d.next = bit_cast::<17, 32>(self.t_rel.val());
                if self.t_rel.val() > self.c_ring.val() {
                    self.re_q.d.next = bit_cast::<17, 32>(self.c_ring.val());
                }
            }
            for i in 0..RN {
                self.r_s[i].d.next = self.st[i].q.val() - self.e17.val();
                self.r_e[i].d.next = self.en[i].q.val() - self.e17.val();
            }
        }

        // ---- Stage 1 (state 5): each run against the segment (or the new edge). ----
        for i in 0..RN {
            self.lo_i[i].next = self.rs_q.q.val();
            if self.r_s[i].q.val() > self.rs_q.q.val() {
                self.lo_i[i].next = self.r_s[i].q.val();
            }
            self.hi_i[i].next = self.re_q.q.val();
            if self.r_e[i].q.val() < self.re_q.q.val() {
                self.hi_i[i].next = self.r_e[i].q.val();
            }
        }
        if self.state.q.val() == 5 {
            for i in 0..RN {
                if self.ev_post.q.val() {
                    // Dropped when the new edge reaches it; `right`: it goes beyond (read back).
                    self.e_flag[i].d.next =
                        self.v[i].q.val() & (self.r_s[i].q.val() <= self.re_q.q.val());
                    self.e_right[i].d.next = self.v[i].q.val()
                        & (self.r_s[i].q.val() <= self.re_q.q.val())
                        & (self.r_e[i].q.val() > self.re_q.q.val());
                    self.e_left[i].d.next = false;
                    self.e_val[i].d.next = self.r_e[i].q.val() - self.r_s[i].q.val();
                } else {
                    // Touches the segment; overlap in octets; extends it left or right.
                    self.e_flag[i].d.next = self.v[i].q.val()
                        & (self.r_s[i].q.val() <= self.re_q.q.val())
                        & (self.r_e[i].q.val() >= self.rs_q.q.val());
                    self.e_left[i].d.next = self.v[i].q.val()
                        & (self.r_s[i].q.val() < self.rs_q.q.val())
                        & (self.r_e[i].q.val() >= self.rs_q.q.val());
                    self.e_right[i].d.next = self.v[i].q.val()
                        & (self.r_s[i].q.val() <= self.re_q.q.val())
                        & (self.r_e[i].q.val() > self.re_q.q.val());
                    self.e_val[i].d.next = 0.into();
                    if self.v[i].q.val() & (self.hi_i[i].val() > self.lo_i[i].val()) {
                        self.e_val[i].d.next = self.hi_i[i].val() - self.lo_i[i].val();
                    }
                }
            }
        }

        // ---- Stage 2 (state 6): sums (a tree), merged bounds, a free entry. ----
        for i in 0..RN {
            self.tv[i].next = 0.into();
            self.tf[i].next = 0.into();
            if self.e_flag[i].q.val() {
                self.tv[i].next = self.e_val[i].q.val();
                self.tf[i].next = 1.into();
            }
        }
        for r in RN..(RN + 1_usize) {
            for k in RN..(2 * RN - 1_usize) {
                self.tv[k].next = self.tv[2 * k - 2 * r].val() + self.tv[2 * k - 2 * r + 1].val();
                self.tf[k].next = self.tf[2 * k - 2 * r].val() + self.tf[2 * k - 2 * r + 1].val();
            }
        }
        for r in RN..(RN + 1_usize) {
            self.sum_v.next = self.tv[2 * r - 2].val();
            self.sum_f.next = self.tf[2 * r - 2].val();
        }
        self.or_st.next = 0.into();
        self.or_en.next = 0.into();
        self.any_l.next = false;
        self.any_r.next = false;
        self.found.next = false;
        for i in 0..RN {
            if self.e_left[i].q.val() {
                self.or_st.next = self.or_st.val() | self.st[i].q.val();
                self.any_l.next = true;
            }
            if self.e_right[i].q.val() {
                self.or_en.next = self.or_en.val() | self.en[i].q.val();
                self.any_r.next = true;
            }
        }
        self.e_end.next = self.s_seq.q.val() + self.s_len.q.val();
        if self.state.q.val() == 6 {
            self.ev_sumv.d.next = self.sum_v.val();
            self.ev_sumf.d.next = self.sum_f.val();
            self.ev_mst.d.next = self.s17.val();
            if self.any_l.val() {
                self.ev_mst.d.next = self.or_st.val();
            }
            self.ev_men.d.next = self.s17.val() + self.len17.val();
            if self.any_r.val() {
                self.ev_men.d.next = self.or_en.val();
            }
            self.ev_anyr.d.next = self.any_r.val();
            self.ev_hl.d.next = self.held_q.q.val() + self.s_len.q.val();
            for i in 0..RN {
                self.e_slot[i].d.next = false;
                if !self.found.val() & (!self.v[i].q.val() | self.e_flag[i].q.val()) {
                    self.e_slot[i].d.next = true;
                    self.found.next = true;
                }
            }
        }

        // ---- Stage 3 (states 7 and 20): the decision; the new edge. ----
        // (The 17-bit difference is stored first: Verilog would widen it before the cast.)
        self.men_rel.next = self.ev_men.q.val() - self.e17.val();
        self.new_held.next = self.ev_hl.q.val() - bit_cast::<32, 17>(self.ev_sumv.q.val());
        self.new_runs.next = self.runs_q.q.val() + 1 - self.ev_sumf.q.val();
        // With out-of-order placement (state 17 counted them; all 0 without): the records are
        // the held pieces of the runs and the placed FPDUs (passed or not, and this segment's),
        // the held octets the runs' less the placed FPDUs'.
        // The placed table's valid entries, counted by an adder tree as the sums of stage 2 (a
        // chain of RN increments here was rnic_rx_w8's critical path after pass_sum's tree).
        for i in 0..RN {
            self.pcv[i].next = 0.into();
            if self.pv[i].q.val() {
                self.pcv[i].next = 1.into();
            }
        }
        for r in RN..(RN + 1_usize) {
            for k in RN..(2 * RN - 1_usize) {
                self.pcv[k].next =
                    self.pcv[2 * k - 2 * r].val() + self.pcv[2 * k - 2 * r + 1].val();
            }
        }
        for r in RN..(RN + 1_usize) {
            self.npl.next = self.pcv[2 * r - 2].val();
        }
        self.placed_now.next = self.npl.val();
        // The decision takes two cycles: state 7 registers the sums (the placed count `npl_q`
        // every cycle, so state 20 sees state 7's), state 20 compares them with the limits.
        self.npl_q.d.next = self.npl.val();
        self.rec_after.next = self.rb_q.q.val() + self.npl_q.q.val();
        self.held_after.next = self.new_held.val() - bit_cast::<32, 17>(self.lp_oct.q.val());
        if self.state.q.val() == 20 {
            self.ev_acc.d.next = (self.ha_q.q.val() <= self.cfg_budget.val())
                & (self.rec_after.val() <= self.cfg_records.val())
                & self.nr_ok.q.val()
                & ((self.npl_q.q.val() + self.lc.q.val()) <= self.c_rn.val())
                & !self.lovf.q.val();
        }
        if self.state.q.val() == 7 {
            self.rb_q.d.next =
                self.new_runs.val() - self.lp_nhp.q.val() + self.lp_nh.q.val() + self.lc.q.val();
            self.ha_q.d.next = self.held_after.val();
            self.nr_ok.d.next = self.new_runs.val() <= self.c_rn.val();
            self.ev_dend.d.next = self.ev_t.q.val();
            if self.ev_anyr.q.val() {
                self.ev_dend.d.next =
                    self.rcv_edge.q.val() + bit_cast::<32, 17>(self.men_rel.val());
            }
        }

        // ---- Out-of-order placement: the placed table's offsets from the edge (registered
        // every cycle; the edge does not move while a segment beyond it is handled). ----
        for i in 0..RN {
            self.prs[i].d.next = self.ps[i].q.val() - self.e17.val();
            self.pre[i].d.next = self.pe[i].q.val() - self.e17.val();
        }
        // The checker asks whether the in-order ULPDU in its stage D was placed out of order
        // (answered a cycle later, when it is in E); a ULPDU it decided leaves the table.
        self.skip_q.d.next = false;
        for i in 0..RN {
            if self.pv[i].q.val()
                & self.ppass[i].q.val()
                & (self.ps32[i].q.val() == self.skip_seq.val())
            {
                self.skip_q.d.next = true;
            }
            if self.skip_take.val()
                & self.ppass[i].q.val()
                & (self.ps32[i].q.val() == self.skip_take_seq.val())
            {
                self.pv[i].d.next = false;
            }
        }
        self.skip_hit.next = self.skip_q.q.val();

        // ---- Pairing: each packet the locator forwarded (its verdict) with its probe's
        // result (the checker), in order. ----
        self.pkts.push.next = self.loc.pkt_valid.val()
            & ((self.state.q.val() == 12)
                | (self.state.q.val() == 13)
                | (self.state.q.val() == 16));
        self.pkts.push_data.next = bit_cast::<66, 1>(self.loc.pkt_good.val().into())
            | (bit_cast::<66, 32>(self.loc.pkt_start.val()) << 1)
            | (bit_cast::<66, 32>(self.loc.pkt_end.val()) << 33)
            | (bit_cast::<66, 1>(self.loc.pkt_spec.val().into()) << 65);
        self.probes.push.next = self.probe_valid.val();
        self.probes.push_data.next = bit_cast::<36, 1>(self.probe_ok.val().into())
            | (bit_cast::<36, 1>(self.probe_tpl.val().into()) << 1)
            | (bit_cast::<36, 1>(self.probe_inv.val().into()) << 2)
            | (bit_cast::<36, 32>(self.probe_stag.val()) << 3)
            | (bit_cast::<36, 1>(self.probe_dec.val().into()) << 35);
        self.pkts.out_ready.next = self.pkts.out_valid.val() & self.probes.out_valid.val();
        self.probes.out_ready.next = self.pkts.out_valid.val() & self.probes.out_valid.val();
        self.pr_v.d.next = self.pkts.out_valid.val() & self.probes.out_valid.val();
        if self.pkts.out_valid.val() & self.probes.out_valid.val() {
            self.pr_pkt.d.next = self.pkts.out_data.val();
            self.pr_prb.d.next = self.probes.out_data.val();
            // Its offsets from the edge, registered with it (a subtraction in front of the
            // overlap comparisons was PlaceReassembly's critical path).
            self.pr_s17.d.next = bit_cast::<17, 66>(self.pkts.out_data.val() >> 1) - self.e17.val();
            self.pr_e17.d.next =
                bit_cast::<17, 66>(self.pkts.out_data.val() >> 33) - self.e17.val();
        }
        // A located FPDU is placed when it verified, its checks pass now, it overlaps no FPDU
        // placed before, and (tagged with payload, or a Send with Invalidate) its STag is not
        // named by a placed Send with Invalidate or by one placed from this segment. Two
        // stages: the first (`pr_*`) compares the pair with the placed table and the placing
        // list and registers the results; the second (`p2_*`) decides and appends to the list.
        // The placed table does not change while the pairs come in; the list grows by the
        // second stage's pair, which the first stage compares with its own pair (`p2_fwd`,
        // counted when that pair was appended, `p2_acc`).
        self.c_hit.next = false;
        self.c_name.next = false;
        for i in 0..RN {
            if self.pv[i].q.val()
                & !self.ppass[i].q.val()
                & (self.prs[i].q.val() < self.pr_e17.q.val())
                & (self.pr_s17.q.val() < self.pre[i].q.val())
            {
                self.c_hit.next = true;
            }
            if self.pv[i].q.val()
                & self.pinv[i].q.val()
                & (self.pstag[i].q.val() == bit_cast::<32, 36>(self.pr_prb.q.val() >> 3))
            {
                self.c_name.next = true;
            }
            if self.lval[i].q.val()
                & self.linv[i].q.val()
                & (self.lstag[i].q.val() == bit_cast::<32, 36>(self.pr_prb.q.val() >> 3))
            {
                self.c_name.next = true;
            }
        }
        self.p2_v.d.next = self.pr_v.q.val();
        self.p2_pkt.d.next = self.pr_pkt.q.val();
        self.p2_prb.d.next = self.pr_prb.q.val();
        self.p2_s17.d.next = self.pr_s17.q.val();
        self.p2_e17.d.next = self.pr_e17.q.val();
        self.p2_hit.d.next = self.c_hit.val();
        self.p2_name.d.next = self.c_name.val();
        self.p2_fwd.d.next = self.p2_prb.q.val().get_bit(2)
            & (bit_cast::<32, 36>(self.p2_prb.q.val() >> 3)
                == bit_cast::<32, 36>(self.pr_prb.q.val() >> 3));
        self.c_acc.next = self.p2_v.q.val()
            & !self.p2_pkt.q.val().get_bit(65)
            & self.p2_pkt.q.val().get_bit(0)
            & self.p2_prb.q.val().get_bit(0)
            & !self.p2_hit.q.val()
            & !((self.p2_prb.q.val().get_bit(1) | self.p2_prb.q.val().get_bit(2))
                & (self.p2_name.q.val() | (self.p2_fwd.q.val() & self.p2_acc.q.val())));
        self.p2_acc.d.next = self.c_acc.val();
        if self.c_acc.val() {
            if self.lc.q.val() == self.c_rn.val() {
                self.lovf.d.next = true;
            } else {
                self.lc.d.next = self.lc.q.val() + 1;
                for k in 0..RN {
                    if self.lc.q.val() == self.c_idx[k].val() {
                        self.ls[k].d.next = self.p2_s17.q.val();
                        self.le[k].d.next = self.p2_e17.q.val();
                        self.ls32[k].d.next = bit_cast::<32, 66>(self.p2_pkt.q.val() >> 1);
                        self.le32[k].d.next = bit_cast::<32, 66>(self.p2_pkt.q.val() >> 33);
                        self.linv[k].d.next = self.p2_prb.q.val().get_bit(2);
                        self.lval[k].d.next = true;
                        self.lstag[k].d.next = bit_cast::<32, 36>(self.p2_prb.q.val() >> 3);
                    }
                }
            }
        }

        // ---- B.2 header alignment: the packets of the locator's alignment try (every one must
        // verify and decode); the verdict once every probe of it is back (two quiet cycles). ----
        if self.pr_v.q.val()
            & self.pr_pkt.q.val().get_bit(65)
            & !(self.pr_pkt.q.val().get_bit(0) & self.pr_prb.q.val().get_bit(35))
        {
            self.al_nok.d.next = true;
        }
        // Every probe is back: no packet or result waiting to be paired, no pair registered,
        // nothing left in the locator's output (state 16 and the alignment verdict).
        self.probes_back.next = !self.pkts.out_valid.val()
            & !self.probes.out_valid.val()
            & !self.pr_v.q.val()
            & !self.p2_v.q.val()
            & !self.loc.m_ulpdu.valid.val();
        self.al_quiet.next = self.loc.al_wait.val() & self.probes_back.val();
        self.al_q.d.next = self.al_quiet.val();
        self.loc.al_valid.next = self.al_quiet.val() & self.al_q.q.val();
        self.loc.al_ok.next = !self.al_nok.q.val();
        if self.loc.al_valid.val() {
            self.al_nok.d.next = false;
            self.al_q.d.next = false;
        }

        // ---- The records with this segment (state 17, one element a cycle, in three stages:
        // the element chosen by `lp_j` is registered, then compared with the tables, then
        // counted): the
        // placed FPDUs not yet passed, then the placing list. Held pieces = runs - runs that
        // start with a placed FPDU + placed FPDUs followed by held octets (their end is neither
        // a run's end nor another placed FPDU's start); records = held pieces + placed. ----
        // Registered (a subtraction in front of these comparisons was the critical path): state
        // 6 writes `ev_mst` and `ev_men`, and the first element is compared in state 17's
        // second cycle, so the copies are current by then.
        self.mst_rel.next = self.ev_mst.q.val() - self.e17.val();
        self.mst_rel_q.d.next = self.mst_rel.val();
        self.men_rel_q.d.next = self.men_rel.val();
        self.x_v.next = false;
        self.x_s.next = 0.into();
        self.x_e.next = 0.into();
        for i in 0..RN {
            if self.lp_j.q.val() == self.c_idx[i].val() {
                self.x_v.next = self.pv[i].q.val() & !self.ppass[i].q.val();
                self.x_s.next = self.prs[i].q.val();
                self.x_e.next = self.pre[i].q.val();
            }
            if self.lp_j.q.val() == self.c_jl[i].val() {
                self.x_v.next = self.lval[i].q.val();
                self.x_s.next = self.ls[i].q.val();
                self.x_e.next = self.le[i].q.val();
            }
        }
        self.xq_v.d.next = self.x_v.val() & (self.state.q.val() == 17);
        self.xq_s.d.next = self.x_s.val();
        self.xq_e.d.next = self.x_e.val();
        self.x_re.next = self.xq_e.q.val() == self.men_rel_q.q.val();
        self.x_rs.next = self.xq_s.q.val() == self.mst_rel_q.q.val();
        self.x_ps.next = false;
        for i in 0..RN {
            if self.v[i].q.val() & !self.e_flag[i].q.val() {
                if self.r_e[i].q.val() == self.xq_e.q.val() {
                    self.x_re.next = true;
                }
                if self.r_s[i].q.val() == self.xq_s.q.val() {
                    self.x_rs.next = true;
                }
            }
            if self.pv[i].q.val()
                & !self.ppass[i].q.val()
                & (self.prs[i].q.val() == self.xq_e.q.val())
            {
                self.x_ps.next = true;
            }
            if self.lval[i].q.val() & (self.ls[i].q.val() == self.xq_e.q.val()) {
                self.x_ps.next = true;
            }
        }
        // The element registered last cycle (the tables do not change in states 17 and 21):
        // its tests registered, then counted.
        self.y_v.d.next = self.xq_v.q.val();
        self.y_re.d.next = self.x_re.val();
        self.y_rs.d.next = self.x_rs.val();
        self.y_ps.d.next = self.x_ps.val();
        self.y_len.d.next = self.xq_e.q.val() - self.xq_s.q.val();
        if self.y_v.q.val() {
            self.lp_oct.d.next = self.lp_oct.q.val() + self.y_len.q.val();
            if !self.y_re.q.val() & !self.y_ps.q.val() {
                self.lp_nh.d.next = self.lp_nh.q.val() + 1;
            }
            if self.y_rs.q.val() {
                self.lp_nhp.d.next = self.lp_nhp.q.val() + 1;
            }
        }
        if self.state.q.val() == 17 {
            self.lp_j.d.next = self.lp_j.q.val() + 1;
            // The last element chosen: it is tested during state 21 and counted during 23.
            if self.lp_j.q.val() == self.c_jend.val() {
                self.state.d.next = 21.into();
            }
        }
        // The edge passes the placed FPDUs it reaches (state 7: the run read back included).
        self.dend_rel.next = self.re_q.q.val();
        if self.ev_anyr.q.val() {
            self.dend_rel.next = self.men_rel.val();
        }
        // Their octets: an adder tree as in stage 2 (log2 RN adders deep; a chain of RN
        // conditional adders here was rnic_rx_w8's critical path, 21.1 MHz routed).
        for i in 0..RN {
            self.ptv[i].next = 0.into();
            if self.e_pass[i].q.val() {
                self.ptv[i].next = self.plen[i].q.val();
            }
        }
        for r in RN..(RN + 1_usize) {
            for k in RN..(2 * RN - 1_usize) {
                self.ptv[k].next =
                    self.ptv[2 * k - 2 * r].val() + self.ptv[2 * k - 2 * r + 1].val();
            }
        }
        for r in RN..(RN + 1_usize) {
            self.pass_sum.next = self.ptv[2 * r - 2].val();
        }
        // The first free entry of the placed table.
        self.free_found.next = false;
        for i in 0..RN {
            self.fslot[i].next = false;
            if !self.free_found.val() & !self.pv[i].q.val() {
                self.fslot[i].next = true;
                self.free_found.next = true;
            }
        }

        // ---- The segment's path. ----
        match self.state.q.val().index() {
            0 => {
                // S_IDLE: decide the segment's path from its first beat (not taken yet). The
                // intake's bounds and mode are loaded whatever the path (state 1 does not read
                // them), so their enables do not wait for the comparison with the edge.
                if self.inp.m_axis.valid.val() {
                    self.s_seq.d.next = self.useq.val();
                    self.s_ring.d.next = self.useq.val() + self.c_ring.val();
                    self.srel_q.d.next = bit_cast::<17, 32>(self.rel.val());
                    self.s_inring.d.next = self.rel.val() < self.c_ring.val();
                    self.s_len.d.next = 0.into();
                    self.s_beyond.d.next = false;
                    self.s_fin.d.next = false;
                    self.w_addr.d.next = self.useq.val() >> self.c_lw.val();
                    self.w_a1.d.next = (self.useq.val() >> self.c_lw.val()) + 1;
                    self.w_r.d.next = bit_cast::<16, 32>(self.useq.val() & self.c_wm1.val());
                    self.state.d.next = 2.into();
                    if self.stopped.val() | self.fin_sent.q.val() {
                        self.s_mode.d.next = 0.into();
                        self.s_lo.d.next = 0.into();
                        self.r_lo.d.next = 0.into();
                        self.r_hi.d.next = 0.into();
                    } else {
                        if self.rel.val().get_bit(31) {
                            self.s_mode.d.next = 2.into();
                            self.s_lo.d.next = self.nrel.val();
                            self.r_lo.d.next = self.nrel.val();
                            self.r_hi.d.next = self.hrel.val();
                        } else {
                            self.s_mode.d.next = 3.into();
                            self.s_lo.d.next = 0.into();
                            self.r_lo.d.next = 0.into();
                            self.r_hi.d.next = 0.into();
                            if self.rel.val() < self.c_ring.val() {
                                self.r_hi.d.next = self.hrel.val();
                            }
                        }
                        if self.rel_eq.val() {
                            self.state.d.next = 1.into();
                        } else if !self.rel.val().get_bit(31) {
                            // Out-of-order placement: the chain start first (state 14).
                            self.place_q.d.next = self.ooo_path.val();
                            self.ch_v.d.next = false;
                            self.lc.d.next = 0.into();
                            for i in 0..RN {
                                self.lval[i].d.next = false;
                            }
                            self.lovf.d.next = false;
                            if self.ooo_path.val() {
                                self.state.d.next = 14.into();
                            }
                        }
                    }
                }
            }
            1 => {
                // S_PASS: straight through.
                self.out.s_axis.valid.next = self.inp.m_axis.valid.val();
                self.inp.m_axis.ready.next = self.out.s_axis.ready.val();
                if self.pass_take.val() {
                    self.s_len.d.next = self.s_len.q.val() + self.n_in.val();
                    if self.inp.m_axis.last.val() {
                        self.vrd_v.d.next = true;
                        self.vrd_a.d.next = true;
                        self.vrd_s.d.next = self.s_seq.q.val();
                        self.ev_post.d.next = true;
                        self.ev_t.d.next =
                            self.s_seq.q.val() + self.s_len.q.val() + self.n_in.val();
                        self.ev_from.d.next =
                            self.s_seq.q.val() + self.s_len.q.val() + self.n_in.val();
                        if self.inp.m_axis.user.val().get_value_rx_seg_fin() {
                            self.fin_valid.d.next = true;
                            self.fin_sent.d.next = true;
                            self.fin_end.d.next =
                                self.s_seq.q.val() + self.s_len.q.val() + self.n_in.val();
                        }
                        self.state.d.next = 4.into();
                        if (self.runs_q.q.val() == 0)
                            & !(self.fin_valid.q.val() & !self.fin_sent.q.val())
                        {
                            // Nothing held: the edge moves to the segment's end at once.
                            self.rcv_edge.d.next =
                                self.s_seq.q.val() + self.s_len.q.val() + self.n_in.val();
                            self.edge_ring.d.next =
                                self.s_ring.q.val() + self.s_len.q.val() + self.n_in.val();
                            self.state.d.next = 0.into();
                        }
                    }
                }
            }
            2 => {
                // S_INTAKE: into the ring (and, beyond the edge, into the locator's pass 1).
                self.inp.m_axis.ready.next =
                    (self.s_mode.q.val() != 3) | self.loc.s_axis.ready.val();
                if self.take.val() {
                    self.r_lo.d.next = self.r_lo.q.val() - self.c_w.val();
                    self.r_hi.d.next = self.r_hi.q.val() - self.c_w.val();
                    self.w_addr.d.next = self.w_a1.q.val();
                    self.w_a1.d.next = self.w_a1.q.val() + 1;
                    self.s_len.d.next = self.s_len.q.val() + self.n_in.val();
                    if self.n_in.val() != 0 {
                        if self.dhi.val().get_bit(31) | (self.n_in.val() > self.dhi.val()) {
                            self.s_beyond.d.next = true;
                        }
                    }
                    if self.inp.m_axis.last.val() {
                        self.s_fin.d.next = self.inp.m_axis.user.val().get_value_rx_seg_fin();
                        self.state.d.next = 3.into();
                    }
                }
            }
            3 => {
                // S_END: the segment is in; what it is now that its length is known.
                self.state.d.next = 0.into();
                self.vrd_v.d.next = true;
                self.vrd_a.d.next = true;
                self.vrd_s.d.next = self.s_seq.q.val();
                if self.s_mode.q.val() == 2 {
                    if self.s_len.q.val() > self.s_lo.q.val() {
                        if self.s_beyond.q.val() {
                            self.vrd_a.d.next = false;
                            self.refused_q.d.next = self.refused_q.q.val() + 1;
                        } else {
                            self.ev_post.d.next = true;
                            self.ev_t.d.next = self.e_end.val();
                            self.ev_from.d.next = self.rcv_edge.q.val();
                            self.state.d.next = 4.into();
                            if self.s_fin.q.val() {
                                self.fin_valid.d.next = true;
                                self.fin_end.d.next = self.e_end.val();
                            }
                        }
                    } else if self.s_fin.q.val() & (self.e_end.val() == self.rcv_edge.q.val()) {
                        self.fin_valid.d.next = true;
                        self.fin_end.d.next = self.e_end.val();
                        self.state.d.next = 10.into();
                    }
                } else if self.s_mode.q.val() == 3 {
                    // Not located: beyond the ring, or empty (the locator is reset).
                    self.loc_rst.d.next = true;
                    if self.s_beyond.q.val() {
                        self.vrd_a.d.next = false;
                        self.refused_q.d.next = self.refused_q.q.val() + 1;
                    } else if self.s_len.q.val() == 0 {
                        if self.s_fin.q.val() {
                            self.fin_valid.d.next = true;
                            self.fin_end.d.next = self.e_end.val();
                        }
                    } else {
                        self.loc_rst.d.next = false;
                        self.vrd_v.d.next = false;
                        self.ev_post.d.next = false;
                        self.state.d.next = 12.into();
                        if self.place_q.q.val() {
                            self.state.d.next = 15.into();
                        }
                    }
                }
            }
            4 => {
                self.state.d.next = 5.into();
            }
            5 => {
                self.state.d.next = 6.into();
            }
            6 => {
                self.state.d.next = 7.into();
                self.lp_j.d.next = 0.into();
                self.lp_nh.d.next = 0.into();
                self.lp_nhp.d.next = 0.into();
                self.lp_oct.d.next = 0.into();
                if self.place_q.q.val() & !self.ev_post.q.val() {
                    self.state.d.next = 17.into();
                }
            }
            7 => {
                // A segment beyond the edge: its decision next (state 20); at the edge, none.
                self.state.d.next = 20.into();
                if self.ev_post.q.val() {
                    self.state.d.next = 8.into();
                }
                for i in 0..RN {
                    self.e_pass[i].d.next = self.pv[i].q.val()
                        & !self.ppass[i].q.val()
                        & (self.prs[i].q.val() < self.dend_rel.val());
                }
            }
            21 => {
                // The last element of state 17 tested (above).
                self.state.d.next = 23.into();
            }
            23 => {
                // The last element of state 17 counted (above).
                self.state.d.next = 7.into();
            }
            20 => {
                // The decision (ev_acc, above).
                self.state.d.next = 8.into();
            }
            8 => {
                // Commit.
                self.state.d.next = 0.into();
                if self.ev_post.q.val() {
                    for i in 0..RN {
                        if self.e_flag[i].q.val() {
                            self.v[i].d.next = false;
                        }
                    }
                    self.held_q.d.next =
                        self.held_q.q.val() - bit_cast::<32, 17>(self.ev_sumv.q.val());
                    self.runs_q.d.next = self.runs_q.q.val() - self.ev_sumf.q.val();
                    self.d_end.next = self.ev_dend.q.val();
                    self.rcv_edge.d.next = self.d_end.val();
                    self.edge_ring.d.next = self.d_end.val() + self.c_ring.val();
                    self.d_seq.d.next = self.ev_from.q.val();
                    self.d_addr.d.next = self.ev_from.q.val() >> self.c_lw.val();
                    self.d_a1.d.next = (self.ev_from.q.val() >> self.c_lw.val()) + 1;
                    self.d_a2.d.next = (self.ev_from.q.val() >> self.c_lw.val()) + 2;
                    self.d_r.d.next = bit_cast::<16, 32>(self.ev_from.q.val() & self.c_wm1.val());
                    self.d_rem.d.next = self.d_end.val() - self.ev_from.q.val();
                    self.d_valid.d.next = false;
                    self.d_fin.d.next = self.fin_valid.q.val()
                        & !self.fin_sent.q.val()
                        & (self.fin_end.q.val() == self.d_end.val());
                    // The placed FPDUs the edge passes: read back with their run, decided in
                    // order by the checker (which skips their writes), then dropped.
                    for i in 0..RN {
                        if self.e_pass[i].q.val() {
                            self.ppass[i].d.next = true;
                        }
                    }
                    self.poct_q.d.next = self.poct_q.q.val() - self.pass_sum.val();
                    if self.d_end.val() != self.ev_from.q.val() {
                        self.state.d.next = 9.into();
                    } else {
                        self.state.d.next = 10.into();
                    }
                } else {
                    self.vrd_v.d.next = true;
                    self.vrd_a.d.next = self.ev_acc.q.val();
                    self.vrd_s.d.next = self.s_seq.q.val();
                    if self.ev_acc.q.val() {
                        for i in 0..RN {
                            if self.e_flag[i].q.val() {
                                self.v[i].d.next = false;
                            }
                            if self.e_slot[i].q.val() {
                                self.v[i].d.next = true;
                                self.st[i].d.next = self.ev_mst.q.val();
                                self.en[i].d.next = self.ev_men.q.val();
                            }
                        }
                        self.held_q.d.next = self.new_held.val();
                        self.runs_q.d.next = self.new_runs.val();
                        if self.s_fin.q.val() {
                            self.fin_valid.d.next = true;
                            self.fin_end.d.next = self.e_end.val();
                        }
                        if self.place_q.q.val() {
                            // The placing list: into the table and placed (states 18, 19).
                            self.poct_q.d.next = self.lp_oct.q.val();
                            self.pcnt_q.d.next =
                                self.pcnt_q.q.val() + bit_cast::<32, 8>(self.lc.q.val());
                            self.pl_k.d.next = 0.into();
                            self.state.d.next = 18.into();
                        }
                    } else {
                        self.refused_q.d.next = self.refused_q.q.val() + 1;
                    }
                    if !self.ev_acc.q.val() | !self.place_q.q.val() {
                        self.sel_q.d.next = false;
                    }
                }
            }
            9 => {
                // S_DRAIN: a run read back from the ring.
                self.d_valid.d.next = true;
                self.out.s_axis.valid.next = self.d_valid.q.val();
                self.out.s_axis.data.next = self.rdat.val();
                self.out.s_axis.keep.next =
                    !(self.c_ones_w.val() << bit_cast::<16, 32>(self.d_n.val()));
                self.out.s_axis.last.next = self.d_last.val();
                self.out.s_axis.user.next = bit_cast::<RX_SEG_USER, 32>(self.d_seq.q.val());
                if self.d_last.val() & self.d_fin.q.val() {
                    self.out.s_axis.user.next =
                        bit_cast::<RX_SEG_USER, 32>(self.d_seq.q.val()) | 0x1_0000_0000_u64;
                }
                if self.d_push.val() {
                    self.d_addr.d.next = self.d_a1.q.val();
                    self.d_a1.d.next = self.d_a2.q.val();
                    self.d_a2.d.next = self.d_a2.q.val() + 1;
                    self.d_rem.d.next = self.d_rem.q.val() - self.d_n.val();
                    if self.d_last.val() {
                        self.state.d.next = 10.into();
                        if self.d_fin.q.val() {
                            self.fin_sent.d.next = true;
                            self.state.d.next = 0.into();
                        }
                    }
                }
            }
            10 => {
                // S_FINCHK: the edge reached a FIN that has not gone out.
                self.state.d.next = 0.into();
                if self.fin_valid.q.val()
                    & !self.fin_sent.q.val()
                    & (self.fin_end.q.val() == self.rcv_edge.q.val())
                {
                    self.state.d.next = 11.into();
                }
            }
            12 => {
                // S_LOCATE: the locator's read requests (below), until it has finished the
                // segment (it may have finished while state 15 waited); then the table.
                if self.loc.done.val() | self.done_q.q.val() {
                    self.done_q.d.next = false;
                    self.state.d.next = 4.into();
                    if self.place_q.q.val() {
                        self.state.d.next = 16.into();
                    }
                }
            }
            14 => {
                // S_CHAIN: the end of the placed FPDU that contains or ends at the segment's
                // first octet (the one starting there preferred), for the locator: each entry
                // tested here, the choice in state 22.
                self.state.d.next = 22.into();
                for i in 0..RN {
                    self.ch_c[i].d.next = self.s_inring.q.val()
                        & self.pv[i].q.val()
                        & !self.ppass[i].q.val()
                        & (self.prs[i].q.val() <= self.srel_q.q.val())
                        & (self.srel_q.q.val() <= self.pre[i].q.val());
                    self.ch_b[i].d.next = self.s_inring.q.val()
                        & self.pv[i].q.val()
                        & !self.ppass[i].q.val()
                        & (self.prs[i].q.val() == self.srel_q.q.val());
                }
            }
            22 => {
                self.state.d.next = 2.into();
                for i in 0..RN {
                    if self.ch_c[i].q.val() {
                        self.ch_v.d.next = true;
                        self.ch_t.d.next = self.pre[i].q.val();
                    }
                }
                for i in 0..RN {
                    if self.ch_b[i].q.val() {
                        self.ch_v.d.next = true;
                        self.ch_t.d.next = self.pre[i].q.val();
                    }
                }
            }
            15 => {
                // S_QUIET: the checks of located FPDUs see the state in-order processing has
                // left: wait until the in-order path has decided everything it was given. A
                // connection that stopped meanwhile takes the segment and drops it.
                if self.loc.done.val() {
                    self.done_q.d.next = true;
                }
                if self.stopped.val() {
                    self.done_q.d.next = false;
                    self.loc_rst.d.next = true;
                    self.vrd_v.d.next = true;
                    self.vrd_a.d.next = true;
                    self.vrd_s.d.next = self.s_seq.q.val();
                    self.state.d.next = 0.into();
                } else if self.io_quiet.val() & !self.out.m_axis.valid.val() {
                    self.sel_q.d.next = true;
                    self.state.d.next = 12.into();
                }
            }
            16 => {
                // S_PROBES: the last probes' results.
                if self.probes_back.val() {
                    self.state.d.next = 4.into();
                }
            }
            17 => {
                // S_COUNT: above.
            }
            18 => {
                // S_PLACE: the next FPDU of the placing list into the table, and its placement
                // try (the locator reads it from the ring through its path again, and the
                // ULPDU goes to the header block as a placement); at the end the header block
                // goes back to the in-order stream.
                self.pl_go.d.next = false;
                if self.pl_k.q.val() == self.lc.q.val() {
                    if !self.loc.m_ulpdu.valid.val() {
                        self.sel_q.d.next = false;
                        self.state.d.next = 0.into();
                    }
                } else {
                    if self.loc.pl_ready.val() & self.pk_v.q.val() {
                        self.pl_go.d.next = true;
                        self.state.d.next = 19.into();
                        for i in 0..RN {
                            if self.fslot[i].val() {
                                self.pv[i].d.next = true;
                                self.ppass[i].d.next = false;
                                self.ps32[i].d.next = self.pk_seq.q.val();
                                self.ps[i].d.next = bit_cast::<17, 32>(self.pk_seq.q.val());
                                self.pe[i].d.next = bit_cast::<17, 32>(self.pk_end.q.val());
                                self.plen[i].d.next = self.pk_len.q.val();
                                self.pinv[i].d.next = self.pk_inv.q.val();
                                self.pstag[i].d.next = self.pk_stag.q.val();
                            }
                        }
                    }
                }
            }
            19 => {
                // S_PLREAD: the placement try's read request (below), then its end.
                if self.loc.done.val() {
                    self.pl_k.d.next = self.pl_k.q.val() + 1;
                    self.pl_go.d.next = false;
                    self.state.d.next = 18.into();
                }
            }
            13 => {
                // S_LOCREAD: the segment from the requested octet, read back to the locator.
                self.d_valid.d.next = true;
                if self.d_push.val() {
                    self.d_addr.d.next = self.d_a1.q.val();
                    self.d_a1.d.next = self.d_a2.q.val();
                    self.d_a2.d.next = self.d_a2.q.val() + 1;
                    self.d_rem.d.next = self.d_rem.q.val() - self.d_n.val();
                    if self.d_last.val() {
                        self.state.d.next = 12.into();
                        if self.pl_go.q.val() {
                            self.state.d.next = 19.into();
                        }
                    }
                }
            }
            11 => {
                // S_FINNULL: a null beat with FIN.
                self.out.s_axis.valid.next = true;
                self.out.s_axis.keep.next = 0.into();
                self.out.s_axis.last.next = true;
                self.out.s_axis.user.next =
                    bit_cast::<RX_SEG_USER, 32>(self.rcv_edge.q.val()) | 0x1_0000_0000_u64;
                if self.out.s_axis.ready.val() {
                    self.fin_sent.d.next = true;
                    self.state.d.next = 0.into();
                }
            }
            _ => {
                self.state.d.next = 0.into();
            }
        }

        // ---- A read request of the locator (states 12 and 19): the ring from rd_seq. ----
        if ((self.state.q.val() == 12) | (self.state.q.val() == 19)) & self.loc.rd_valid.val() {
            self.d_seq.d.next = self.loc.rd_seq.val();
            self.d_addr.d.next = self.loc.rd_seq.val() >> self.c_lw.val();
            self.d_a1.d.next = (self.loc.rd_seq.val() >> self.c_lw.val()) + 1;
            self.d_a2.d.next = (self.loc.rd_seq.val() >> self.c_lw.val()) + 2;
            self.d_r.d.next = bit_cast::<16, 32>(self.loc.rd_seq.val() & self.c_wm1.val());
            self.d_rem.d.next = self.loc.rd_end.val() - self.loc.rd_seq.val();
            self.d_valid.d.next = false;
            self.state.d.next = 13.into();
        }

        // ---- The connection ended: the held runs are dropped. ----
        if self.stopped.val() {
            for i in 0..RN {
                self.v[i].d.next = false;
                self.pv[i].d.next = false;
            }
            self.held_q.d.next = 0.into();
            self.runs_q.d.next = 0.into();
            self.poct_q.d.next = 0.into();
        }

        // ---- Reset. ----
        if self.rst.val() | self.loc_rst.q.val() {
            self.al_nok.d.next = false;
            self.al_q.d.next = false;
        }
        if self.rst.val() {
            for i in 0..RN {
                self.v[i].d.next = false;
            }
            self.state.d.next = 0.into();
            self.rcv_edge.d.next = self.cfg_seq.val();
            self.edge_ring.d.next = self.cfg_seq.val() + self.c_ring.val();
            self.wq_take.d.next = false;
            self.held_q.d.next = 0.into();
            self.runs_q.d.next = 0.into();
            self.refused_q.d.next = 0.into();
            self.peak_q.d.next = 0.into();
            self.fin_valid.d.next = false;
            self.fin_sent.d.next = false;
            self.vrd_v.d.next = false;
            self.d_valid.d.next = false;
            self.loc_rst.d.next = false;
            self.located_q.d.next = 0.into();
            self.loc_oct_q.d.next = 0.into();
            for i in 0..RN {
                self.pv[i].d.next = false;
            }
            self.poct_q.d.next = 0.into();
            self.pcnt_q.d.next = 0.into();
            self.sel_q.d.next = false;
            self.place_q.d.next = false;
            self.ch_v.d.next = false;
            self.lc.d.next = 0.into();
            for i in 0..RN {
                self.lval[i].d.next = false;
            }
            self.lovf.d.next = false;
            self.pr_v.d.next = false;
            self.p2_v.d.next = false;
            self.p2_acc.d.next = false;
            self.pl_go.d.next = false;
            self.done_q.d.next = false;
        }
    }
}

/// Record-table entries of the exported tops.
pub const RECORD_ENTRIES: usize = 16;

/// Ring word-address bits for `width` bytes per beat: a 64 KiB ring.
pub const fn ring_bits(width: usize) -> usize {
    16 - width.trailing_zeros() as usize
}
