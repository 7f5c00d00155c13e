//! `PlaceCheck`: the placement decision for each ULPDU, in TCP order: the DDP checks against the
//! STag table and the posted buffers, the message it completes, the record it produces.
//!
//! RFC 5041 section 7 (tagged: the STag exists and is valid, belongs to the stream's protection
//! domain, allows remote writes, [TO, TO + length) does not wrap and lies inside the region;
//! untagged: MSN inside the window, a buffer posted for it, MO and MO + length inside the
//! buffer; all of it checked once, before anything is written), section 5.3 (messages, MSN),
//! RFC 5040 (Send with Invalidate, Read Request, Terminate; the record each delivers). The rules
//! and their order are those of `golden::ddp::PlacementModel::place` and the golden receiver's
//! in-order walk; zero-length tagged segments are not checked, zero-length untagged ones need
//! their buffer.
//!
//! ```text
//!  hdr ─► A ─(lookup STag / posted buffer, window)─► B (entries) ─► C (compare) ─► D (decide) ─► E (emit) ─┬─► desc FIFO ─► writer
//!        └─► records in flight (FIFO, its head is E's) ──────────────────────────────────────────┘          └─► record FIFO ─► deliver
//! ```
//!
//! The five steps are a pipeline: a record is taken on `hdr` whenever E is empty or emits, so up
//! to four ULPDUs are in flight behind the one on `hdr`, one decided per cycle. What a ULPDU
//! changes is seen by the younger ones already in flight as follows. The MSN window (checked at A) uses the queues'
//! expected MSNs as A sees them: moved past a message's MSN when its L = 1 ULPDU is taken at A,
//! before its checks (`sb*`); if those checks fail, the stream stops and no younger ULPDU is
//! checked, so the difference never shows (`qn*_msn` are the values decided at E). A Send with
//! Invalidate invalidates its STag entry at E; a younger ULPDU that looked the same entry up
//! while it was in flight sees it invalid (`kill`, decided at its lookup, also before the
//! Invalidate's own checks, for the same reason). The open tagged message, the first error and
//! `stop` live at E, which decides ULPDUs one at a time in order.
//!
//! One descriptor per ULPDU goes to the writer (write `plen` octets at `addr`, or discard the
//! ULPDU's beats); a record goes to the delivery block when the ULPDU completes a message (Send,
//! RDMA Write, Read Response, Read Request, Terminate) or fails (the error record, the
//! Terminate this end reports: layer / type / code, the failing FPDU's sequence number and
//! ULPDU_Length, its first 18 octets). After an error or a received Terminate, every later
//! ULPDU is discarded without a record. A Send with Invalidate clears the STag's valid bit when
//! it passes its checks, so every later FPDU sees the STag invalid (its record, which follows
//! all earlier ones, is the consumer's notice).
//!
//! **Out-of-order placement** shares this block (the header record's mode,
//! [`super::header::MODE_PROBE`] / [`super::header::MODE_PLACE`]): a *probe* runs the same
//! lookups and checks against the state of this moment and reports the result on `probe_*`
//! (the golden receiver's `PlacementModel::place` and `check_invalidate` of a located FPDU),
//! with no descriptor, record or state change; a *place* ULPDU gets its descriptor (write when
//! the checks pass) and nothing else. An in-order ULPDU whose FPDU was placed out of order
//! (`skip_hit`, looked up by its sequence number) is checked again and accounted as usual, but
//! its descriptor discards the beats: its payload is already in memory (the golden receiver's
//! `deliver_placed`).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset (queues back to `cfg_first_msn`, the connection running) |
//! | `cfg_pd`, `cfg_window`, `cfg_first_msn` | in | 32 | protection domain, MSN window, first MSN of every queue (loaded in reset) |
//! | `stop_in` | in | 1 | stop placing (a memory write failed): every later ULPDU is discarded |
//! | `hdr` | in | | header records ([`super::header::HeaderIn`]) |
//! | `st_*` | | | the STag table ([`super::table_ram::TableRam`]): lookup (A's entry, every cycle; `st_lk_busy`: a command has the read port, A takes nothing), invalidation, the entry read |
//! | `pb_*` | | | the posted buffers: lookup (likewise, `pb_lk_busy`), the entry read |
//! | `desc_*` | out | 87 | write descriptors ([`super::desc`]), from a FIFO |
//! | `rec_*` | out | 384 | records ([`super::record`]), from a FIFO |
//! | `stopped` | out | 1 | an error or a Terminate ended the connection |
//! | `err_valid`, `err_code`, `err_seq` | out | 1, 16, 32 | the first error (sticky) |
//! | `fpdu_pulse`, `placed_pulse`, `placed_len` | out | 1, 1, 16 | counters: a ULPDU decided; payload octets sent to be written |
//! | `qn0_msn`, `qn1_msn`, `qn2_msn` | out | 32 | the MSN each queue expects next |
//! | `idle` | out | 1 | no header waiting, no descriptor or record in the FIFOs |
//! | `probe_valid`, `probe_ok`, `probe_tpl`, `probe_inv`, `probe_stag`, `probe_dec` | out | 1, 1, 1, 1, 32, 1 | pulse per probe: the checks pass; it is tagged with payload; it is the L = 1 segment of a Send with Invalidate; its STag (tagged) or Invalidate STag; its header decoded (no MPA or DDP/RDMAP header error: RFC 5044 B.2's header check) |
//! | `st_wr_pend`, `st_wr_index` | in | 1, SA | the STag table's command write (waiting or done now) and its entry: a ULPDU whose entry was rewritten after its lookup does not invalidate it |
//! | `skip_ask`, `skip_hit` | out, in | 32, 1 | the sequence number of D's ULPDU, and a cycle later whether it was placed out of order (taken in E's first cycle) |
//! | `skip_take`, `skip_seq` | out | 1, 32 | pulse: an in-order ULPDU with `skip_hit` was decided, and its sequence number |
//! | `ctx_in_0`, `ctx_load_0` | in | 308, 1 | only when built [`PlaceCheck::with_context`]: a connection's record ([`CheckCtx`]) and its load, honoured while `ctx_idle_0` is high (`rst` wins for every field it resets; the open message's STag, TO and kind it does not reset, and they mean nothing while no message is open) |
//! | `ctx_out_0`, `ctx_idle_0` | out | 308, 1 | likewise: the record of the connection served (its stop flag includes this cycle's `stop_in`), final while `ctx_idle_0` is high except for `stop_in` (`idle` in the cycle before, and no header offered now: a cycle after `idle`) |
//!
//! ### Serving many connections (`with_context`)
//! Built [`PlaceCheck::with_context`], the checker keeps what it knows about a connection
//! between ULPDUs in one record, [`CheckCtx`] (the queues' expected MSNs, the open tagged
//! message, the first error and the stop flag; 308 bits): a controller in front of it stops
//! offering headers, waits for `ctx_idle_0` (nothing in flight, the FIFOs empty, since the
//! cycle before: the load's enable then comes from a register and `hdr.valid`, not from the
//! FIFO counts), reads `ctx_out_0` into its table, and loads the next connection's record with `ctx_load_0` in one
//! cycle, with that connection's `cfg_pd` and `cfg_window`. Since stop 79; tested with four
//! connections interleaved against the checker alone per connection
//! (`testbench/tests/place_check_ctx.rs`). The posted-buffer slot (`pb_lk_index`) and the
//! STag index are the connection's as the caller maps them: the checker does not know which
//! connection it serves, and `stop_in` stops the connection served (in a load's cycle, the
//! one leaving: its record carries it).
//!
//! ### Parameters
//! `SA` STag table index bits, `PA` posted-buffer address bits (`PA - 2` per queue).
//!
//! ### Latency and throughput
//! Five cycles from a record on `hdr` to its descriptor and record pushed (lookup, read, two
//! compare stages, emit); one ULPDU per cycle in steady state (each stage moves when E is empty
//! or emits; E waits only for room in the descriptor or record FIFO). Before stop 41 it took
//! one ULPDU at a time (five cycles each): 64-octet Sends ran at 11.1 payload octets per cycle
//! at W = 32 and 64 then, 13.4 with the pipeline, 14.1 / 17.5 since stop 42 (the writer and
//! the Marker stripper keep up); the next limit is downstream (README).
//!
//! ### Fmax
//! Alone at W = 8 (LFE5U-85F, seed 1): 99.9 MHz, 7,075 LUT4, 3,450 FF (stop 42; before the
//! pipeline 102.0 MHz, 3,864 LUT4; 86.5 MHz at stop 41, when E's decision reached the write
//! enable of the records' LUT-RAM FIFO through `hdr.ready`: `RegFifo` now writes its free slot
//! every cycle and only the pointer follows the handshake).
//!
//! ### Races with the host
//! A command that rewrites an STag entry while ULPDUs that looked it up are in flight: those
//! ULPDUs are checked against the entry they read, and a Send with Invalidate among them does not
//! invalidate the new entry (`st_wr_pend`); a younger ULPDU that looked it up after the rewrite
//! but while such a Send was in flight sees the entry invalid. Posting buffers races the same
//! way: a ULPDU uses the posted-buffer entry as it was at its lookup.
//!
//! ### On bad input
//! A header record with an error, or a failed check, produces exactly one error record and a
//! discard descriptor, then nothing but discard descriptors. STags whose index is beyond the
//! table never match (invalid STag). Nothing is ever written outside a checked range.

use crate::fifo::RegFifo;
use crate::place::check_ctx::CheckCtxFields;
pub use crate::place::check_ctx::{CheckCtx, CHECK_CTX_BITS};
use crate::place::header::HeaderIn;
use crate::place::{desc, posted_entry, record, stag_entry, term};
use rust_hdl::prelude::*;

/// Bits of a record as the blocks store it.
pub const REC_BITS: usize = record::USED_BITS;
const ST_BITS: usize = stag_entry::BITS;
const PB_BITS: usize = posted_entry::BITS;

crate::sideband::sideband! {
    /// A header record inside the checker ([`HeaderIn`]'s fields): the entries of the queue of
    /// records in flight and the stage registers.
    CheckRec, prefix ck, bits 641, {
        /// Sequence number of the FPDU.
        seq: Bits<32> = 0,
        /// ULPDU_Length.
        ulen: Bits<16> = 32,
        /// A header or MPA error.
        err: Bit = 48,
        /// The error is MPA's.
        mpa: Bit = 49,
        /// The error's Terminate code.
        code: Bits<16> = 50,
        /// DDP tagged.
        tagged: Bit = 66,
        /// DDP L (last).
        last: Bit = 67,
        /// RDMAP opcode.
        opcode: Bits<4> = 68,
        /// STag (tagged) or Invalidate STag.
        stag: Bits<32> = 72,
        /// Tagged offset.
        to: Bits<64> = 104,
        /// Queue number.
        qn: Bits<2> = 168,
        /// Message sequence number.
        msn: Bits<32> = 170,
        /// Message offset.
        mo: Bits<32> = 202,
        /// Payload length.
        plen: Bits<16> = 234,
        /// Header beats/octets to skip (the descriptor's).
        skip: Bits<5> = 250,
        /// Read Request: sink STag.
        sink_stag: Bits<32> = 255,
        /// Read Request: sink TO.
        sink_to: Bits<64> = 287,
        /// Read Request: size.
        rd_size: Bits<32> = 351,
        /// Read Request: source STag.
        src_stag: Bits<32> = 383,
        /// Read Request: source TO.
        src_to: Bits<64> = 415,
        /// Terminate Control.
        tctl: Bits<16> = 479,
        /// The ULPDU's first octets (an error record's echo).
        echo: Bits<144> = 495,
        /// The record's mode (in order, probe, place).
        mode: Bits<2> = 639,
    }
}
const CK_BITS: usize = CheckRec::BITS;

/// The checker; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceCheck<const SA: usize, const PA: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The stream's protection domain.
    pub cfg_pd: Signal<In, Bits<32>>,
    /// MSN window.
    pub cfg_window: Signal<In, Bits<32>>,
    /// First MSN of every queue (loaded in reset).
    pub cfg_first_msn: Signal<In, Bits<32>>,
    /// Stop placing.
    pub stop_in: Signal<In, Bit>,
    /// Header records.
    pub hdr: HeaderIn,
    /// STag table: its read port is a command's this cycle (no lookup served, no record taken).
    pub st_lk_busy: Signal<In, Bit>,
    /// STag table: entry to look up.
    pub st_lk_index: Signal<Out, Bits<SA>>,
    /// STag table: invalidate.
    pub st_inv_en: Signal<Out, Bit>,
    /// STag table: entry to invalidate.
    pub st_inv_index: Signal<Out, Bits<SA>>,
    /// STag table: the entry read.
    pub st_entry: Signal<In, Bits<ST_BITS>>,
    /// STag table: its valid bit.
    pub st_valid: Signal<In, Bit>,
    /// Posted buffers: the same for their read port.
    pub pb_lk_busy: Signal<In, Bit>,
    /// Posted buffers: slot to look up.
    pub pb_lk_index: Signal<Out, Bits<PA>>,
    /// Posted buffers: the entry read.
    pub pb_entry: Signal<In, Bits<PB_BITS>>,
    /// Posted buffers: its valid bit.
    pub pb_valid: Signal<In, Bit>,
    /// STag table: a command write waits or is done in this cycle.
    pub st_wr_pend: Signal<In, Bit>,
    /// STag table: its entry.
    pub st_wr_index: Signal<In, Bits<SA>>,
    /// Descriptor offered.
    pub desc_valid: Signal<Out, Bit>,
    /// Descriptor.
    pub desc_data: Signal<Out, Bits<{ desc::BITS }>>,
    /// Descriptor taken.
    pub desc_ready: Signal<In, Bit>,
    /// Record offered.
    pub rec_valid: Signal<Out, Bit>,
    /// Record.
    pub rec_data: Signal<Out, Bits<REC_BITS>>,
    /// Record taken.
    pub rec_ready: Signal<In, Bit>,
    /// The connection is stopped.
    pub stopped: Signal<Out, Bit>,
    /// The first error is known.
    pub err_valid: Signal<Out, Bit>,
    /// Its Terminate code.
    pub err_code: Signal<Out, Bits<16>>,
    /// Its FPDU's sequence number.
    pub err_seq: Signal<Out, Bits<32>>,
    /// Pulse: a ULPDU was decided.
    pub fpdu_pulse: Signal<Out, Bit>,
    /// Pulse: payload sent to be written.
    pub placed_pulse: Signal<Out, Bit>,
    /// Its octets.
    pub placed_len: Signal<Out, Bits<16>>,
    /// They were placed out of order (a placement ULPDU).
    pub placed_ooo: Signal<Out, Bit>,
    /// Expected MSN of queue 0.
    pub qn0_msn: Signal<Out, Bits<32>>,
    /// Expected MSN of queue 1.
    pub qn1_msn: Signal<Out, Bits<32>>,
    /// Expected MSN of queue 2.
    pub qn2_msn: Signal<Out, Bits<32>>,
    /// No header waiting, nothing decided in the FIFOs.
    pub idle: Signal<Out, Bit>,
    /// Pulse: a probe was decided.
    pub probe_valid: Signal<Out, Bit>,
    /// Its checks pass.
    pub probe_ok: Signal<Out, Bit>,
    /// It is tagged and carries payload.
    pub probe_tpl: Signal<Out, Bit>,
    /// It is the L = 1 segment of a Send with Invalidate.
    pub probe_inv: Signal<Out, Bit>,
    /// Its STag (tagged) or Invalidate STag (untagged).
    pub probe_stag: Signal<Out, Bits<32>>,
    /// Its header decoded (no header error; B.2 header alignment).
    pub probe_dec: Signal<Out, Bit>,
    /// The sequence number of the ULPDU in stage D (asked of the placed table).
    pub skip_ask: Signal<Out, Bits<32>>,
    /// `skip_ask`'s ULPDU was placed out of order (a cycle after the question).
    pub skip_hit: Signal<In, Bit>,
    /// Pulse: an in-order ULPDU placed out of order was decided.
    pub skip_take: Signal<Out, Bit>,
    /// Its sequence number.
    pub skip_seq: Signal<Out, Bits<32>>,
    /// Only when built [`PlaceCheck::with_context`] (one entry, otherwise none): a
    /// connection's record to load ([`CheckCtx`]).
    pub ctx_in: Vec<Signal<In, Bits<CHECK_CTX_BITS>>>,
    /// Likewise: load `ctx_in` now (honoured only while `ctx_idle` is high).
    pub ctx_load: Vec<Signal<In, Bit>>,
    /// Likewise: the record of the connection being served (final while `ctx_idle` is high,
    /// but for this cycle's `stop_in`, which its stop flag includes).
    pub ctx_out: Vec<Signal<Out, Bits<CHECK_CTX_BITS>>>,
    /// Likewise: nothing in flight and every descriptor and record out since the cycle
    /// before (`idle` then), and no header offered now.
    pub ctx_idle: Vec<Signal<Out, Bit>>,
    dfifo: RegFifo<{ desc::BITS }>,
    rfifo: RegFifo<REC_BITS>,
    // The records in flight, in order: pushed when A takes one, popped when E emits it (its
    // head is E's record).
    hq: RegFifo<CK_BITS>,
    // The stages' valid bits and records (B..D use a few fields; synthesis drops the rest).
    vb: DFF<Bit>,
    vc: DFF<Bit>,
    vd: DFF<Bit>,
    ve: DFF<Bit>,
    hb: DFF<Bits<CK_BITS>>,
    hc: DFF<Bits<CK_BITS>>,
    hd: DFF<Bits<CK_BITS>>,
    // B's first cycle (the tables' outputs are its lookups'), and those outputs held after it.
    b_new: DFF<Bit>,
    st_h: DFF<Bits<ST_BITS>>,
    stv_h: DFF<Bit>,
    pb_h: DFF<Bits<PB_BITS>>,
    pbv_h: DFF<Bit>,
    // This stage's ULPDU invalidates its STag entry when it passes (B..D; E decides with its
    // checks).
    b_inv: DFF<Bit>,
    c_inv: DFF<Bit>,
    d_inv: DFF<Bit>,
    // An older ULPDU in flight at the lookup invalidates this STag entry (B, C).
    b_kill: DFF<Bit>,
    c_kill: DFF<Bit>,
    // A command rewrote the STag entry since the lookup (B..E): no invalidation then.
    b_dirty: DFF<Bit>,
    c_dirty: DFF<Bit>,
    d_dirty: DFF<Bit>,
    e_dirty: DFF<Bit>,
    // E's first cycle (skip_hit answers for it then), and the answer held.
    e_new: DFF<Bit>,
    e_skip: DFF<Bit>,
    stop: DFF<Bit>,
    // The queues' expected MSNs as decided (E), and as A sees them: moved past a message's MSN
    // when its L = 1 ULPDU is taken, before its checks (if they fail, the stream stops and no
    // later ULPDU is checked, so the difference is never seen).
    base0: DFF<Bits<32>>,
    base1: DFF<Bits<32>>,
    base2: DFF<Bits<32>>,
    sb0: DFF<Bits<32>>,
    sb1: DFF<Bits<32>>,
    sb2: DFF<Bits<32>>,
    // The open tagged message (RFC 5041: one at a time per stream).
    t_open: DFF<Bit>,
    t_rresp: DFF<Bit>,
    t_stag: DFF<Bits<32>>,
    t_to: DFF<Bits<64>>,
    t_len: DFF<Bits<64>>,
    // The lookups' checks (B, then C), the window (D).
    idx_ok: DFF<Bit>,
    win_ok: DFF<Bit>,
    c_idx_ok: DFF<Bit>,
    c_win_ok: DFF<Bit>,
    d_win_ok: DFF<Bit>,
    // C's entry fields that D uses (C's own registers hold the next ULPDU's by then).
    d_e_addr: DFF<Bits<64>>,
    d_p_addr: DFF<Bits<64>>,
    d_e_wr: DFF<Bit>,
    // The entries read (C).
    e_stag: DFF<Bits<32>>,
    e_base: DFF<Bits<64>>,
    e_len: DFF<Bits<64>>,
    e_addr: DFF<Bits<64>>,
    e_pd: DFF<Bits<32>>,
    e_wr: DFF<Bit>,
    e_valid: DFF<Bit>,
    p_msn: DFF<Bits<32>>,
    p_addr: DFF<Bits<64>>,
    p_len: DFF<Bits<32>>,
    p_valid: DFF<Bit>,
    // Compare stage.
    key_ok: DFF<Bit>,
    pd_ok: DFF<Bit>,
    wrap: DFF<Bit>,
    below: DFF<Bit>,
    off: DFF<Bits<64>>,
    end_to: DFF<Bits<65>>,
    r_end: DFF<Bits<65>>,
    buf_ok: DFF<Bit>,
    mo_ok: DFF<Bit>,
    end_ok: DFF<Bit>,
    // Decision.
    bad: DFF<Bit>,
    code: DFF<Bits<16>>,
    addr: DFF<Bits<64>>,
    // The first error.
    ev: DFF<Bit>,
    ecode: DFF<Bits<16>>,
    eseq: DFF<Bits<32>>,
    fpdu_q: DFF<Bit>,
    placed_q: DFF<Bit>,
    placed_len_q: DFF<Bits<16>>,
    placed_ooo_q: DFF<Bit>,
    probe_v: DFF<Bit>,
    probe_ok_q: DFF<Bit>,
    probe_tpl_q: DFF<Bit>,
    probe_inv_q: DFF<Bit>,
    probe_stag_q: DFF<Bits<32>>,
    probe_dec_q: DFF<Bit>,
    skip_v: DFF<Bit>,
    skip_s: DFF<Bits<32>>,
    // `idle` in the cycle before: a load needs it (and no header offered now), not `idle`
    // itself, whose FIFO counts would otherwise reach the state registers' enables.
    idle_q: DFF<Bit>,
    // Constants.
    c_ishift: Constant<Bits<8>>,
    c_qsh: Constant<Bits<8>>,
    c_msn_mask: Constant<Bits<32>>,
    c_e_inv_stag: Constant<Bits<16>>,
    c_e_pd: Constant<Bits<16>>,
    c_e_wrap: Constant<Bits<16>>,
    c_e_bounds: Constant<Bits<16>>,
    c_e_msn: Constant<Bits<16>>,
    c_e_nobuf: Constant<Bits<16>>,
    c_e_mo: Constant<Bits<16>>,
    c_e_toolong: Constant<Bits<16>>,
    c_e_noinv: Constant<Bits<16>>,
    c_e_noinv_pd: Constant<Bits<16>>,
    c_k_send: Constant<Bits<8>>,
    c_k_write: Constant<Bits<8>>,
    c_k_rresp: Constant<Bits<8>>,
    c_k_rreq: Constant<Bits<8>>,
    c_k_term: Constant<Bits<8>>,
    c_k_err: Constant<Bits<8>>,
    c_d_len: Constant<Bits<8>>,
    c_d_skip: Constant<Bits<8>>,
    c_d_write: Constant<Bits<8>>,
    c_d_fence: Constant<Bits<8>>,
    c_st_stag: Constant<Bits<16>>,
    c_st_base: Constant<Bits<16>>,
    c_st_len: Constant<Bits<16>>,
    c_st_addr: Constant<Bits<16>>,
    c_st_pd: Constant<Bits<16>>,
    c_st_write: Constant<Bits<16>>,
    c_pb_msn: Constant<Bits<16>>,
    c_pb_addr: Constant<Bits<16>>,
    c_pb_len: Constant<Bits<16>>,
    c_r_flags: Constant<Bits<16>>,
    c_r_ulen: Constant<Bits<16>>,
    c_r_seq: Constant<Bits<16>>,
    c_r_len: Constant<Bits<16>>,
    c_r_f16: Constant<Bits<16>>,
    c_r_f20: Constant<Bits<16>>,
    c_r_f24: Constant<Bits<16>>,
    c_r_f32: Constant<Bits<16>>,
    c_r_f36: Constant<Bits<16>>,
    c_r_f40: Constant<Bits<16>>,
    // Combinational.
    adv: Signal<Local, Bit>,
    a_take: Signal<Local, Bit>,
    a_rec: Signal<Local, Bits<CK_BITS>>,
    rq: Signal<Local, Bits<CK_BITS>>,
    a_idx: Signal<Local, Bits<SA>>,
    b_idx: Signal<Local, Bits<SA>>,
    c_idx: Signal<Local, Bits<SA>>,
    d_idx: Signal<Local, Bits<SA>>,
    e_idx: Signal<Local, Bits<SA>>,
    a_inv: Signal<Local, Bit>,
    kill: Signal<Local, Bit>,
    st_eff: Signal<Local, Bits<ST_BITS>>,
    stv_eff: Signal<Local, Bit>,
    pb_eff: Signal<Local, Bits<PB_BITS>>,
    pbv_eff: Signal<Local, Bit>,
    skip_eff: Signal<Local, Bit>,
    end33_c: Signal<Local, Bits<33>>,
    inv_d: Signal<Local, Bit>,
    // E's echo and Terminate Control (sliced further: Yosys reads no slice of a slice).
    r_echo: Signal<Local, Bits<{ crate::place::header::ECHO_BITS }>>,
    r_tctl: Signal<Local, Bits<16>>,
    base: Signal<Local, Bits<32>>,
    msn_d: Signal<Local, Bits<32>>,
    len64: Signal<Local, Bits<64>>,
    to_end: Signal<Local, Bits<65>>,
    end33: Signal<Local, Bits<33>>,
    bounds_ok: Signal<Local, Bit>,
    inv_needed: Signal<Local, Bit>,
    checked: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    want_rec: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    tot: Signal<Local, Bits<64>>,
    r_kind: Signal<Local, Bits<8>>,
    r_flags: Signal<Local, Bits<8>>,
    r_ulen: Signal<Local, Bits<16>>,
    r_len: Signal<Local, Bits<64>>,
    r_f16: Signal<Local, Bits<32>>,
    r_f20: Signal<Local, Bits<32>>,
    r_f24: Signal<Local, Bits<64>>,
    r_f32: Signal<Local, Bits<32>>,
    r_f36: Signal<Local, Bits<32>>,
    r_f40: Signal<Local, Bits<64>>,
    r_code: Signal<Local, Bits<16>>,
    m_in: Signal<Local, Bit>,
    m_probe: Signal<Local, Bit>,
    m_place: Signal<Local, Bit>,
    skip: Signal<Local, Bit>,
    // The context record: the state as it stands, a record being loaded, and its load.
    ctx_rec: Signal<Local, Bits<CHECK_CTX_BITS>>,
    ctx_ld: Signal<Local, Bits<CHECK_CTX_BITS>>,
    ctx_go: Signal<Local, Bit>,
}

impl<const SA: usize, const PA: usize> PlaceCheck<SA, PA> {
    /// Builds the checker; panics with a message naming the rule if a parameter is illegal.
    pub fn new() -> Self {
        assert!((1..=14).contains(&SA), "PlaceCheck: SA must be 1 to 14 index bits (got {SA})");
        assert!(
            (3..=14).contains(&PA),
            "PlaceCheck: PA must be 3 to 14 bits (2 for the queue, the rest per queue; got {PA})"
        );
        let c8 = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            cfg_pd: Default::default(),
            cfg_window: Default::default(),
            cfg_first_msn: Default::default(),
            stop_in: Default::default(),
            hdr: Default::default(),
            st_lk_busy: Default::default(),
            st_lk_index: Default::default(),
            st_inv_en: Default::default(),
            st_inv_index: Default::default(),
            st_entry: Default::default(),
            st_valid: Default::default(),
            pb_lk_busy: Default::default(),
            pb_lk_index: Default::default(),
            pb_entry: Default::default(),
            pb_valid: Default::default(),
            st_wr_pend: Default::default(),
            st_wr_index: Default::default(),
            desc_valid: Default::default(),
            desc_data: Default::default(),
            desc_ready: Default::default(),
            rec_valid: Default::default(),
            rec_data: Default::default(),
            rec_ready: Default::default(),
            stopped: Default::default(),
            err_valid: Default::default(),
            err_code: Default::default(),
            err_seq: Default::default(),
            fpdu_pulse: Default::default(),
            placed_pulse: Default::default(),
            placed_len: Default::default(),
            placed_ooo: Default::default(),
            qn0_msn: Default::default(),
            qn1_msn: Default::default(),
            qn2_msn: Default::default(),
            idle: Default::default(),
            probe_valid: Default::default(),
            probe_ok: Default::default(),
            probe_tpl: Default::default(),
            probe_inv: Default::default(),
            probe_stag: Default::default(),
            probe_dec: Default::default(),
            skip_ask: Default::default(),
            skip_hit: Default::default(),
            skip_take: Default::default(),
            skip_seq: Default::default(),
            ctx_in: vec![],
            ctx_load: vec![],
            ctx_out: vec![],
            ctx_idle: vec![],
            dfifo: RegFifo::new(16),
            rfifo: RegFifo::new(16),
            hq: RegFifo::new(8),
            vb: Default::default(),
            vc: Default::default(),
            vd: Default::default(),
            ve: Default::default(),
            hb: Default::default(),
            hc: Default::default(),
            hd: Default::default(),
            b_new: Default::default(),
            st_h: Default::default(),
            stv_h: Default::default(),
            pb_h: Default::default(),
            pbv_h: Default::default(),
            b_inv: Default::default(),
            c_inv: Default::default(),
            d_inv: Default::default(),
            b_kill: Default::default(),
            c_kill: Default::default(),
            b_dirty: Default::default(),
            c_dirty: Default::default(),
            d_dirty: Default::default(),
            e_dirty: Default::default(),
            e_new: Default::default(),
            e_skip: Default::default(),
            stop: Default::default(),
            base0: Default::default(),
            base1: Default::default(),
            base2: Default::default(),
            sb0: Default::default(),
            sb1: Default::default(),
            sb2: Default::default(),
            t_open: Default::default(),
            t_rresp: Default::default(),
            t_stag: Default::default(),
            t_to: Default::default(),
            t_len: Default::default(),
            idx_ok: Default::default(),
            win_ok: Default::default(),
            c_idx_ok: Default::default(),
            c_win_ok: Default::default(),
            d_win_ok: Default::default(),
            d_e_addr: Default::default(),
            d_p_addr: Default::default(),
            d_e_wr: Default::default(),
            e_stag: Default::default(),
            e_base: Default::default(),
            e_len: Default::default(),
            e_addr: Default::default(),
            e_pd: Default::default(),
            e_wr: Default::default(),
            e_valid: Default::default(),
            p_msn: Default::default(),
            p_addr: Default::default(),
            p_len: Default::default(),
            p_valid: Default::default(),
            key_ok: Default::default(),
            pd_ok: Default::default(),
            wrap: Default::default(),
            below: Default::default(),
            off: Default::default(),
            end_to: Default::default(),
            r_end: Default::default(),
            buf_ok: Default::default(),
            mo_ok: Default::default(),
            end_ok: Default::default(),
            bad: Default::default(),
            code: Default::default(),
            addr: Default::default(),
            ev: Default::default(),
            ecode: Default::default(),
            eseq: Default::default(),
            fpdu_q: Default::default(),
            placed_q: Default::default(),
            placed_len_q: Default::default(),
            placed_ooo_q: Default::default(),
            probe_v: Default::default(),
            probe_ok_q: Default::default(),
            probe_tpl_q: Default::default(),
            probe_inv_q: Default::default(),
            probe_stag_q: Default::default(),
            probe_dec_q: Default::default(),
            skip_v: Default::default(),
            skip_s: Default::default(),
            idle_q: Default::default(),
            c_ishift: Constant::new(((8 + SA) as u64).into()),
            c_qsh: Constant::new(((PA - 2) as u64).into()),
            c_msn_mask: Constant::new(((1u64 << (PA - 2)) - 1).into()),
            c_e_inv_stag: c16(term::DDP_TAGGED_INVALID_STAG as usize),
            c_e_pd: c16(term::DDP_TAGGED_NOT_ASSOCIATED as usize),
            c_e_wrap: c16(term::DDP_TAGGED_TO_WRAP as usize),
            c_e_bounds: c16(term::DDP_TAGGED_BASE_BOUNDS as usize),
            c_e_msn: c16(term::DDP_UNTAGGED_MSN_RANGE as usize),
            c_e_nobuf: c16(term::DDP_UNTAGGED_NO_BUFFER as usize),
            c_e_mo: c16(term::DDP_UNTAGGED_MO as usize),
            c_e_toolong: c16(term::DDP_UNTAGGED_TOO_LONG as usize),
            c_e_noinv: c16(term::RDMAP_CANNOT_INVALIDATE as usize),
            c_e_noinv_pd: c16(term::RDMAP_CANNOT_INVALIDATE_PD as usize),
            c_k_send: c8(record::KIND_SEND as usize),
            c_k_write: c8(record::KIND_WRITE as usize),
            c_k_rresp: c8(record::KIND_READ_RESPONSE as usize),
            c_k_rreq: c8(record::KIND_READ_REQUEST as usize),
            c_k_term: c8(record::KIND_TERMINATE as usize),
            c_k_err: c8(record::KIND_ERROR as usize),
            c_d_len: c8(desc::LEN),
            c_d_skip: c8(desc::SKIP),
            c_d_write: c8(desc::WRITE),
            c_d_fence: c8(desc::FENCE),
            c_st_stag: c16(stag_entry::STAG),
            c_st_base: c16(stag_entry::BASE),
            c_st_len: c16(stag_entry::LEN),
            c_st_addr: c16(stag_entry::ADDR),
            c_st_pd: c16(stag_entry::PD),
            c_st_write: c16(stag_entry::WRITE),
            c_pb_msn: c16(posted_entry::MSN),
            c_pb_addr: c16(posted_entry::ADDR),
            c_pb_len: c16(posted_entry::LEN),
            c_r_flags: c16(8 * record::FLAGS),
            c_r_ulen: c16(8 * record::ULPDU_LEN),
            c_r_seq: c16(8 * record::SEQ),
            c_r_len: c16(8 * record::LEN),
            c_r_f16: c16(8 * record::MSN),
            c_r_f20: c16(8 * record::QN),
            c_r_f24: c16(8 * record::INV_STAG),
            c_r_f32: c16(8 * record::SIZE),
            c_r_f36: c16(8 * record::SOURCE_STAG),
            c_r_f40: c16(8 * record::SOURCE_TO),
            adv: Default::default(),
            a_take: Default::default(),
            a_rec: Default::default(),
            rq: Default::default(),
            a_idx: Default::default(),
            b_idx: Default::default(),
            c_idx: Default::default(),
            d_idx: Default::default(),
            e_idx: Default::default(),
            a_inv: Default::default(),
            kill: Default::default(),
            st_eff: Default::default(),
            stv_eff: Default::default(),
            pb_eff: Default::default(),
            pbv_eff: Default::default(),
            skip_eff: Default::default(),
            end33_c: Default::default(),
            inv_d: Default::default(),
            r_echo: Default::default(),
            r_tctl: Default::default(),
            base: Default::default(),
            msn_d: Default::default(),
            len64: Default::default(),
            to_end: Default::default(),
            end33: Default::default(),
            bounds_ok: Default::default(),
            inv_needed: Default::default(),
            checked: Default::default(),
            ok: Default::default(),
            want_rec: Default::default(),
            go: Default::default(),
            first: Default::default(),
            tot: Default::default(),
            r_kind: Default::default(),
            r_flags: Default::default(),
            r_ulen: Default::default(),
            r_len: Default::default(),
            r_f16: Default::default(),
            r_f20: Default::default(),
            r_f24: Default::default(),
            r_f32: Default::default(),
            r_f36: Default::default(),
            r_f40: Default::default(),
            r_code: Default::default(),
            m_in: Default::default(),
            m_probe: Default::default(),
            m_place: Default::default(),
            skip: Default::default(),
            ctx_rec: Default::default(),
            ctx_ld: Default::default(),
            ctx_go: Default::default(),
        }
    }

    /// The checker with the context ports (`ctx_in`, `ctx_load`, `ctx_out`, `ctx_idle`): the
    /// per-connection state ([`CheckCtx`]) shown and loaded as one record, so that one
    /// checker serves any number of connections, one at a time (DESIGN, "Connection state is
    /// explicit"). Built without them ([`PlaceCheck::new`]) the record's logic is constant and
    /// synthesis removes it.
    pub fn with_context() -> Self {
        Self {
            ctx_in: vec![Default::default()],
            ctx_load: vec![Default::default()],
            ctx_out: vec![Default::default()],
            ctx_idle: vec![Default::default()],
            ..Self::new()
        }
    }
}

impl<const SA: usize, const PA: usize> Default for PlaceCheck<SA, PA> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const SA: usize, const PA: usize> Logic for PlaceCheck<SA, PA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            vb,
            vc,
            vd,
            ve,
            hb,
            hc,
            hd,
            b_new,
            st_h,
            stv_h,
            pb_h,
            pbv_h,
            b_inv,
            c_inv,
            d_inv,
            b_kill,
            c_kill,
            b_dirty,
            c_dirty,
            d_dirty,
            e_dirty,
            e_new,
            e_skip,
            stop,
            base0,
            base1,
            base2,
            sb0,
            sb1,
            sb2,
            t_open,
            t_rresp,
            t_stag,
            t_to,
            t_len,
            idx_ok,
            win_ok,
            c_idx_ok,
            c_win_ok,
            d_win_ok,
            d_e_addr,
            d_p_addr,
            d_e_wr,
            e_stag,
            e_base,
            e_len,
            e_addr,
            e_pd,
            e_wr,
            e_valid,
            p_msn,
            p_addr,
            p_len,
            p_valid,
            key_ok,
            pd_ok,
            wrap,
            below,
            off,
            end_to,
            r_end,
            buf_ok,
            mo_ok,
            end_ok,
            bad,
            code,
            addr,
            ev,
            ecode,
            eseq,
            fpdu_q,
            placed_q,
            placed_len_q,
            placed_ooo_q,
            probe_v,
            probe_ok_q,
            probe_tpl_q,
            probe_inv_q,
            probe_stag_q,
            probe_dec_q,
            skip_v,
            skip_s,
            idle_q
        );
        self.dfifo.clock.next = self.clock.val();
        self.dfifo.rst.next = self.rst.val();
        self.rfifo.clock.next = self.clock.val();
        self.rfifo.rst.next = self.rst.val();
        self.hq.clock.next = self.clock.val();
        self.hq.rst.next = self.rst.val();
        self.desc_valid.next = self.dfifo.out_valid.val();
        self.desc_data.next = self.dfifo.out_data.val();
        self.dfifo.out_ready.next = self.desc_ready.val();
        self.rec_valid.next = self.rfifo.out_valid.val();
        self.rec_data.next = self.rfifo.out_data.val();
        self.rfifo.out_ready.next = self.rec_ready.val();
        self.stopped.next = self.stop.q.val();
        self.err_valid.next = self.ev.q.val();
        self.err_code.next = self.ecode.q.val();
        self.err_seq.next = self.eseq.q.val();
        self.fpdu_pulse.next = self.fpdu_q.q.val();
        self.placed_pulse.next = self.placed_q.q.val();
        self.placed_len.next = self.placed_len_q.q.val();
        self.placed_ooo.next = self.placed_ooo_q.q.val();
        self.qn0_msn.next = self.base0.q.val();
        self.qn1_msn.next = self.base1.q.val();
        self.qn2_msn.next = self.base2.q.val();
        self.idle.next = !self.hdr.valid.val()
            & !self.vb.q.val()
            & !self.vc.q.val()
            & !self.vd.q.val()
            & !self.ve.q.val()
            & self.dfifo.empty.val()
            & self.rfifo.empty.val();
        self.fpdu_q.d.next = false;
        self.placed_q.d.next = false;
        self.probe_v.d.next = false;
        self.skip_v.d.next = false;
        self.probe_valid.next = self.probe_v.q.val();
        self.probe_ok.next = self.probe_ok_q.q.val();
        self.probe_tpl.next = self.probe_tpl_q.q.val();
        self.probe_inv.next = self.probe_inv_q.q.val();
        self.probe_stag.next = self.probe_stag_q.q.val();
        self.probe_dec.next = self.probe_dec_q.q.val();
        self.skip_take.next = self.skip_v.q.val();
        self.skip_seq.next = self.skip_s.q.val();
        // E's record (the head of the records in flight) and its mode (header::MODE_*): in
        // order, probe, place.
        self.rq.next = self.hq.out_data.val();
        self.m_in.next = self.rq.val().get_value_ck_mode() == 0;
        self.m_probe.next = self.rq.val().get_value_ck_mode() == 1;
        self.m_place.next = self.rq.val().get_value_ck_mode() == 2;
        if self.stop_in.val() {
            self.stop.d.next = true;
        }

        // ---- E: the (in-order) ULPDU's values from the head of the records in flight. ----
        self.len64.next = bit_cast::<64, 16>(self.rq.val().get_value_ck_plen());
        self.end33.next = bit_cast::<33, 32>(self.rq.val().get_value_ck_mo())
            + bit_cast::<33, 16>(self.rq.val().get_value_ck_plen());
        self.inv_needed.next = !self.rq.val().get_value_ck_tagged()
            & self.rq.val().get_value_ck_last()
            & ((self.rq.val().get_value_ck_opcode() == 4)
                | (self.rq.val().get_value_ck_opcode() == 6));
        self.st_inv_en.next = false;
        self.r_echo.next = self.rq.val().get_value_ck_echo();
        self.r_tctl.next = self.rq.val().get_value_ck_tctl();
        // `checked`: the checks ran (else the ULPDU is discarded: stopped, or a header error).
        self.checked.next = !self.stop.q.val() & !self.rq.val().get_value_ck_err();
        self.ok.next = self.checked.val() & !self.bad.q.val();
        self.r_code.next = self.code.q.val();
        if self.rq.val().get_value_ck_err() {
            self.r_code.next = self.rq.val().get_value_ck_code();
        }
        self.want_rec.next = self.m_in.val()
            & ((!self.stop.q.val() & (self.rq.val().get_value_ck_err() | self.bad.q.val()))
                | (self.ok.val() & self.rq.val().get_value_ck_last()));
        self.go.next = self.ve.q.val()
            & (self.m_probe.val()
                | (self.dfifo.not_full.val() & (self.rfifo.not_full.val() | !self.want_rec.val())));

        // ---- The pipeline: A (the record on `hdr`: the lookups), B (the tables' outputs), C
        // (compare), D (decide), E (emit). Every stage moves when E is empty or emits. ----
        self.adv.next = !self.ve.q.val() | self.go.val();
        // The tables read A's entries in every cycle; in a cycle whose read port is a command's
        // (`*_lk_busy`, registers) A takes nothing.
        self.a_take.next =
            self.hdr.valid.val() & self.adv.val() & !self.st_lk_busy.val() & !self.pb_lk_busy.val();
        self.hdr.ready.next = self.adv.val() & !self.st_lk_busy.val() & !self.pb_lk_busy.val();
        self.a_rec.next = 0.into();
        self.a_rec.next.set_value_ck_seq(self.hdr.seq.val());
        self.a_rec.next.set_value_ck_ulen(self.hdr.ulen.val());
        self.a_rec.next.set_value_ck_err(self.hdr.err.val());
        self.a_rec.next.set_value_ck_mpa(self.hdr.mpa.val());
        self.a_rec.next.set_value_ck_code(self.hdr.code.val());
        self.a_rec.next.set_value_ck_tagged(self.hdr.tagged.val());
        self.a_rec.next.set_value_ck_last(self.hdr.last.val());
        self.a_rec.next.set_value_ck_opcode(self.hdr.opcode.val());
        self.a_rec.next.set_value_ck_stag(self.hdr.stag.val());
        self.a_rec.next.set_value_ck_to(self.hdr.to.val());
        self.a_rec.next.set_value_ck_qn(self.hdr.qn.val());
        self.a_rec.next.set_value_ck_msn(self.hdr.msn.val());
        self.a_rec.next.set_value_ck_mo(self.hdr.mo.val());
        self.a_rec.next.set_value_ck_plen(self.hdr.plen.val());
        self.a_rec.next.set_value_ck_skip(self.hdr.skip.val());
        self.a_rec.next.set_value_ck_sink_stag(self.hdr.sink_stag.val());
        self.a_rec.next.set_value_ck_sink_to(self.hdr.sink_to.val());
        self.a_rec.next.set_value_ck_rd_size(self.hdr.rd_size.val());
        self.a_rec.next.set_value_ck_src_stag(self.hdr.src_stag.val());
        self.a_rec.next.set_value_ck_src_to(self.hdr.src_to.val());
        self.a_rec.next.set_value_ck_tctl(self.hdr.tctl.val());
        self.a_rec.next.set_value_ck_echo(self.hdr.echo.val());
        self.a_rec.next.set_value_ck_mode(self.hdr.mode.val());
        self.hq.push.next = self.a_take.val();
        self.hq.push_data.next = self.a_rec.val();
        self.hq.out_ready.next = self.go.val();
        self.a_inv.next = (self.hdr.mode.val() == 0)
            & !self.hdr.err.val()
            & !self.hdr.tagged.val()
            & self.hdr.last.val()
            & ((self.hdr.opcode.val() == 4) | (self.hdr.opcode.val() == 6));
        if self.adv.val() {
            self.vb.d.next = self.a_take.val();
            self.b_inv.d.next = self.a_inv.val();
            self.c_inv.d.next = self.b_inv.q.val();
            self.d_inv.d.next = self.c_inv.q.val();
            self.vc.d.next = self.vb.q.val();
            self.vd.d.next = self.vc.q.val();
            self.ve.d.next = self.vd.q.val();
            self.hb.d.next = self.a_rec.val();
            self.hc.d.next = self.hb.q.val();
            self.hd.d.next = self.hc.q.val();
        }
        // Each stage's STag entry, and whether its ULPDU invalidates that entry when it passes
        // (an in-order Send with Invalidate; before its checks, as for the bases).
        self.a_idx.next = bit_cast::<SA, 32>(self.hdr.stag.val() >> 8);
        self.b_idx.next = bit_cast::<SA, 32>(self.hb.q.val().get_value_ck_stag() >> 8);
        self.c_idx.next = bit_cast::<SA, 32>(self.hc.q.val().get_value_ck_stag() >> 8);
        self.d_idx.next = bit_cast::<SA, 32>(self.hd.q.val().get_value_ck_stag() >> 8);
        self.e_idx.next = bit_cast::<SA, 32>(self.rq.val().get_value_ck_stag() >> 8);
        // A lookup misses the invalidations of the older ULPDUs still in flight (E's happens in
        // this very cycle): one of them that invalidates the same entry makes it invalid here.
        self.kill.next =
            (self.vb.q.val() & self.b_inv.q.val() & (self.b_idx.val() == self.a_idx.val()))
                | (self.vc.q.val() & self.c_inv.q.val() & (self.c_idx.val() == self.a_idx.val()))
                | (self.vd.q.val() & self.d_inv.q.val() & (self.d_idx.val() == self.a_idx.val()))
                | (self.ve.q.val()
                    & self.inv_needed.val()
                    & self.m_in.val()
                    & !self.rq.val().get_value_ck_err()
                    & (self.e_idx.val() == self.a_idx.val()));
        // A command write to a stage's entry since its lookup (in the lookup's cycle too: the
        // read has the old entry): that stage's invalidation is skipped.
        if self.adv.val() {
            self.b_dirty.d.next =
                self.st_wr_pend.val() & (self.st_wr_index.val() == self.a_idx.val());
            self.c_dirty.d.next = self.b_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.b_idx.val()));
            self.d_dirty.d.next = self.c_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.c_idx.val()));
            self.e_dirty.d.next = self.d_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.d_idx.val()));
        } else {
            self.b_dirty.d.next = self.b_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.b_idx.val()));
            self.c_dirty.d.next = self.c_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.c_idx.val()));
            self.d_dirty.d.next = self.d_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.d_idx.val()));
            self.e_dirty.d.next = self.e_dirty.q.val()
                | (self.st_wr_pend.val() & (self.st_wr_index.val() == self.e_idx.val()));
        }

        // ---- A: lookups, STag table by index, posted buffer by queue and MSN; the window
        // against the bases as A sees them. ----
        self.st_lk_index.next = self.a_idx.val();
        self.pb_lk_index.next = (bit_cast::<PA, 2>(self.hdr.qn.val()) << self.c_qsh.val())
            | bit_cast::<PA, 32>(self.hdr.msn.val() & self.c_msn_mask.val());
        self.base.next = self.sb0.q.val();
        if self.hdr.qn.val() == 1 {
            self.base.next = self.sb1.q.val();
        }
        if self.hdr.qn.val() == 2 {
            self.base.next = self.sb2.q.val();
        }
        self.msn_d.next = self.hdr.msn.val() - self.base.val();
        if self.a_take.val() {
            self.idx_ok.d.next = (self.hdr.stag.val() >> self.c_ishift.val()) == 0;
            self.win_ok.d.next = self.msn_d.val() < self.cfg_window.val();
            self.b_kill.d.next = self.kill.val();
            if (self.hdr.mode.val() == 0)
                & !self.hdr.err.val()
                & !self.hdr.tagged.val()
                & self.hdr.last.val()
            {
                if self.hdr.qn.val() == 0 {
                    self.sb0.d.next = self.hdr.msn.val() + 1;
                }
                if self.hdr.qn.val() == 1 {
                    self.sb1.d.next = self.hdr.msn.val() + 1;
                }
                if self.hdr.qn.val() == 2 {
                    self.sb2.d.next = self.hdr.msn.val() + 1;
                }
            }
        }
        // ---- B: the entries are on the tables' outputs in its first cycle; held after it. ----
        self.b_new.d.next = self.a_take.val();
        self.st_eff.next = self.st_h.q.val();
        self.stv_eff.next = self.stv_h.q.val();
        self.pb_eff.next = self.pb_h.q.val();
        self.pbv_eff.next = self.pbv_h.q.val();
        if self.b_new.q.val() {
            self.st_eff.next = self.st_entry.val();
            self.stv_eff.next = self.st_valid.val();
            self.pb_eff.next = self.pb_entry.val();
            self.pbv_eff.next = self.pb_valid.val();
        }
        self.st_h.d.next = self.st_eff.val();
        self.stv_h.d.next = self.stv_eff.val();
        self.pb_h.d.next = self.pb_eff.val();
        self.pbv_h.d.next = self.pbv_eff.val();
        if self.adv.val() {
            self.e_stag.d.next = self.st_eff.val().get_bits::<32>(self.c_st_stag.val().index());
            self.e_base.d.next = self.st_eff.val().get_bits::<64>(self.c_st_base.val().index());
            self.e_len.d.next = self.st_eff.val().get_bits::<64>(self.c_st_len.val().index());
            self.e_addr.d.next = self.st_eff.val().get_bits::<64>(self.c_st_addr.val().index());
            self.e_pd.d.next = self.st_eff.val().get_bits::<32>(self.c_st_pd.val().index());
            self.e_wr.d.next = self.st_eff.val().get_bit(self.c_st_write.val().index());
            self.e_valid.d.next = self.stv_eff.val();
            self.p_msn.d.next = self.pb_eff.val().get_bits::<32>(self.c_pb_msn.val().index());
            self.p_addr.d.next = self.pb_eff.val().get_bits::<64>(self.c_pb_addr.val().index());
            self.p_len.d.next = self.pb_eff.val().get_bits::<32>(self.c_pb_len.val().index());
            self.p_valid.d.next = self.pbv_eff.val();
            self.c_idx_ok.d.next = self.idx_ok.q.val();
            self.c_win_ok.d.next = self.win_ok.q.val();
            self.c_kill.d.next = self.b_kill.q.val();
        }
        // ---- C: the comparisons that need no arithmetic in series. ----
        self.to_end.next = bit_cast::<65, 64>(self.hc.q.val().get_value_ck_to())
            + bit_cast::<65, 16>(self.hc.q.val().get_value_ck_plen());
        self.end33_c.next = bit_cast::<33, 32>(self.hc.q.val().get_value_ck_mo())
            + bit_cast::<33, 16>(self.hc.q.val().get_value_ck_plen());
        if self.adv.val() {
            self.key_ok.d.next = self.c_idx_ok.q.val()
                & self.e_valid.q.val()
                & !self.c_kill.q.val()
                & (self.e_stag.q.val() == self.hc.q.val().get_value_ck_stag());
            self.pd_ok.d.next = self.e_pd.q.val() == self.cfg_pd.val();
            // The last octet TO + len - 1 must fit in 64 bits: TO + len <= 2^64.
            self.end_to.d.next = self.to_end.val();
            self.wrap.d.next =
                self.to_end.val().get_bit(64) & (self.to_end.val().get_bits::<64>(0) != 0);
            self.r_end.d.next =
                bit_cast::<65, 64>(self.e_base.q.val()) + bit_cast::<65, 64>(self.e_len.q.val());
            self.below.d.next = self.hc.q.val().get_value_ck_to() < self.e_base.q.val();
            self.off.d.next = self.hc.q.val().get_value_ck_to() - self.e_base.q.val();
            self.buf_ok.d.next =
                self.p_valid.q.val() & (self.p_msn.q.val() == self.hc.q.val().get_value_ck_msn());
            self.mo_ok.d.next = self.hc.q.val().get_value_ck_mo() <= self.p_len.q.val();
            self.end_ok.d.next = self.end33_c.val() <= bit_cast::<33, 32>(self.p_len.q.val());
            self.d_win_ok.d.next = self.c_win_ok.q.val();
            self.d_e_addr.d.next = self.e_addr.q.val();
            self.d_p_addr.d.next = self.p_addr.q.val();
            self.d_e_wr.d.next = self.e_wr.q.val();
        }
        // ---- D: the first failing rule, and the address. ----
        // [TO, TO + len) inside [base, base + len): TO >= base and TO + len <= base + len (65
        // bits: a region may end exactly at 2^64).
        self.bounds_ok.next = !self.below.q.val() & (self.end_to.q.val() <= self.r_end.q.val());
        self.inv_d.next = !self.hd.q.val().get_value_ck_tagged()
            & self.hd.q.val().get_value_ck_last()
            & ((self.hd.q.val().get_value_ck_opcode() == 4)
                | (self.hd.q.val().get_value_ck_opcode() == 6));
        if self.adv.val() {
            self.bad.d.next = true;
            if self.hd.q.val().get_value_ck_tagged() {
                self.addr.d.next = self.d_e_addr.q.val() + self.off.q.val();
                if self.hd.q.val().get_value_ck_plen() == 0 {
                    self.bad.d.next = false;
                } else if !self.key_ok.q.val() {
                    self.code.d.next = self.c_e_inv_stag.val();
                } else if !self.pd_ok.q.val() {
                    self.code.d.next = self.c_e_pd.val();
                } else if !self.d_e_wr.q.val() {
                    self.code.d.next = self.c_e_inv_stag.val();
                } else if self.wrap.q.val() {
                    self.code.d.next = self.c_e_wrap.val();
                } else if !self.bounds_ok.val() {
                    self.code.d.next = self.c_e_bounds.val();
                } else {
                    self.bad.d.next = false;
                }
            } else {
                self.addr.d.next =
                    self.d_p_addr.q.val() + bit_cast::<64, 32>(self.hd.q.val().get_value_ck_mo());
                if !self.d_win_ok.q.val() {
                    self.code.d.next = self.c_e_msn.val();
                } else if !self.buf_ok.q.val() {
                    self.code.d.next = self.c_e_nobuf.val();
                } else if !self.mo_ok.q.val() {
                    self.code.d.next = self.c_e_mo.val();
                } else if !self.end_ok.q.val() {
                    self.code.d.next = self.c_e_toolong.val();
                } else if self.inv_d.val() & !self.key_ok.q.val() {
                    self.code.d.next = self.c_e_noinv.val();
                } else if self.inv_d.val() & !self.pd_ok.q.val() {
                    self.code.d.next = self.c_e_noinv_pd.val();
                } else {
                    self.bad.d.next = false;
                }
            }
        }
        // The placed table answers for D's ULPDU a cycle later, when it is E's.
        self.skip_ask.next = self.hd.q.val().get_value_ck_seq();
        self.e_new.d.next = self.adv.val() & self.vd.q.val();
        self.skip_eff.next = self.e_skip.q.val();
        if self.e_new.q.val() {
            self.skip_eff.next = self.skip_hit.val();
        }
        self.e_skip.d.next = self.skip_eff.val();

        self.st_inv_index.next = self.e_idx.val();

        // ---- EMIT: the descriptor, the record, the new state. ----
        // An in-order ULPDU placed out of order: checked and accounted, its beats discarded.
        self.skip.next = self.m_in.val() & self.skip_eff.val();
        self.dfifo.push.next = self.go.val() & !self.m_probe.val();
        self.dfifo.push_data.next = bit_cast::<{ desc::BITS }, 64>(self.addr.q.val())
            | (bit_cast::<{ desc::BITS }, 16>(self.rq.val().get_value_ck_plen())
                << self.c_d_len.val())
            | (bit_cast::<{ desc::BITS }, 5>(self.rq.val().get_value_ck_skip())
                << self.c_d_skip.val())
            | (bit_cast::<{ desc::BITS }, 1>((self.ok.val() & !self.skip.val()).into())
                << self.c_d_write.val())
            | (bit_cast::<{ desc::BITS }, 1>(self.want_rec.val().into()) << self.c_d_fence.val());
        self.rfifo.push.next = self.go.val() & self.want_rec.val();

        // The record's fields (module `record`): per kind.
        self.first.next = !self.t_open.q.val();
        self.tot.next = self.t_len.q.val() + self.len64.val();
        if self.first.val() {
            self.tot.next = self.len64.val();
        }
        self.r_kind.next = self.c_k_err.val();
        self.r_flags.next = 0.into();
        self.r_ulen.next = 0.into();
        self.r_len.next = 0.into();
        self.r_f16.next = 0.into();
        self.r_f20.next = 0.into();
        self.r_f24.next = 0.into();
        self.r_f32.next = 0.into();
        self.r_f36.next = 0.into();
        self.r_f40.next = 0.into();
        if !self.ok.val() {
            self.r_f20.next = bit_cast::<32, 4>(self.r_code.val().get_bits::<4>(12))
                | (bit_cast::<32, 4>(self.r_code.val().get_bits::<4>(8)) << 8)
                | (bit_cast::<32, 8>(self.r_code.val().get_bits::<8>(0)) << 16);
            // An MPA error has no DDP header to echo (the FPDU was not verified).
            if !self.rq.val().get_value_ck_mpa() {
                self.r_flags.next = 2.into();
                self.r_ulen.next = self.rq.val().get_value_ck_ulen();
                self.r_f24.next = self.r_echo.val().get_bits::<64>(0);
                self.r_f32.next = self.r_echo.val().get_bits::<32>(64);
                self.r_f36.next = self.r_echo.val().get_bits::<32>(96);
                self.r_f40.next = bit_cast::<64, 16>(self.r_echo.val().get_bits::<16>(128));
            }
        } else if self.rq.val().get_value_ck_tagged() {
            self.r_kind.next = self.c_k_write.val();
            if (self.first.val() & (self.rq.val().get_value_ck_opcode() == 2))
                | (!self.first.val() & self.t_rresp.q.val())
            {
                self.r_kind.next = self.c_k_rresp.val();
            }
            self.r_len.next = self.tot.val();
            self.r_f16.next = self.t_stag.q.val();
            self.r_f24.next = self.t_to.q.val();
            if self.first.val() {
                self.r_f16.next = self.rq.val().get_value_ck_stag();
                self.r_f24.next = self.rq.val().get_value_ck_to();
            }
        } else if self.rq.val().get_value_ck_opcode() == 1 {
            self.r_kind.next = self.c_k_rreq.val();
            self.r_f16.next = self.rq.val().get_value_ck_msn();
            self.r_f20.next = self.rq.val().get_value_ck_sink_stag();
            self.r_f24.next = self.rq.val().get_value_ck_sink_to();
            self.r_f32.next = self.rq.val().get_value_ck_rd_size();
            self.r_f36.next = self.rq.val().get_value_ck_src_stag();
            self.r_f40.next = self.rq.val().get_value_ck_src_to();
        } else if self.rq.val().get_value_ck_opcode() == 7 {
            self.r_kind.next = self.c_k_term.val();
            self.r_len.next = self.len64.val();
            self.r_f16.next = self.rq.val().get_value_ck_msn();
            self.r_f20.next = bit_cast::<32, 4>(self.r_tctl.val().get_bits::<4>(12))
                | (bit_cast::<32, 4>(self.r_tctl.val().get_bits::<4>(8)) << 8)
                | (bit_cast::<32, 8>(self.r_tctl.val().get_bits::<8>(0)) << 16);
        } else {
            self.r_kind.next = self.c_k_send.val();
            self.r_len.next = bit_cast::<64, 33>(self.end33.val());
            self.r_f16.next = self.rq.val().get_value_ck_msn();
            self.r_f20.next = bit_cast::<32, 2>(self.rq.val().get_value_ck_qn());
            if (self.rq.val().get_value_ck_opcode() == 5)
                | (self.rq.val().get_value_ck_opcode() == 6)
            {
                self.r_flags.next = self.r_flags.val() | 1;
            }
            if self.inv_needed.val() {
                self.r_flags.next = self.r_flags.val() | 2;
                self.r_f24.next = bit_cast::<64, 32>(self.rq.val().get_value_ck_stag());
            }
        }
        self.rfifo.push_data.next = bit_cast::<REC_BITS, 8>(self.r_kind.val())
            | (bit_cast::<REC_BITS, 8>(self.r_flags.val()) << self.c_r_flags.val())
            | (bit_cast::<REC_BITS, 16>(self.r_ulen.val()) << self.c_r_ulen.val())
            | (bit_cast::<REC_BITS, 32>(self.rq.val().get_value_ck_seq()) << self.c_r_seq.val())
            | (bit_cast::<REC_BITS, 64>(self.r_len.val()) << self.c_r_len.val())
            | (bit_cast::<REC_BITS, 32>(self.r_f16.val()) << self.c_r_f16.val())
            | (bit_cast::<REC_BITS, 32>(self.r_f20.val()) << self.c_r_f20.val())
            | (bit_cast::<REC_BITS, 64>(self.r_f24.val()) << self.c_r_f24.val())
            | (bit_cast::<REC_BITS, 32>(self.r_f32.val()) << self.c_r_f32.val())
            | (bit_cast::<REC_BITS, 32>(self.r_f36.val()) << self.c_r_f36.val())
            | (bit_cast::<REC_BITS, 64>(self.r_f40.val()) << self.c_r_f40.val());

        if self.go.val() & !self.m_in.val() {
            // Out of order: a probe's result, or a placement's descriptor; nothing else.
            if self.m_probe.val() {
                self.probe_v.d.next = true;
                self.probe_ok_q.d.next = self.ok.val();
                self.probe_tpl_q.d.next =
                    self.rq.val().get_value_ck_tagged() & (self.rq.val().get_value_ck_plen() != 0);
                self.probe_inv_q.d.next = self.inv_needed.val();
                self.probe_stag_q.d.next = self.rq.val().get_value_ck_stag();
                self.probe_dec_q.d.next = !self.rq.val().get_value_ck_err();
            } else if self.ok.val() & (self.rq.val().get_value_ck_plen() != 0) {
                self.placed_q.d.next = true;
                self.placed_len_q.d.next = self.rq.val().get_value_ck_plen();
                self.placed_ooo_q.d.next = true;
            }
        }
        if self.go.val() & self.m_in.val() {
            self.fpdu_q.d.next = true;
            if self.skip.val() {
                self.skip_v.d.next = true;
                self.skip_s.d.next = self.rq.val().get_value_ck_seq();
            }
            if self.ok.val() & (self.rq.val().get_value_ck_plen() != 0) & !self.skip.val() {
                self.placed_q.d.next = true;
                self.placed_len_q.d.next = self.rq.val().get_value_ck_plen();
                self.placed_ooo_q.d.next = false;
            }
            if !self.stop.q.val() & !self.ok.val() {
                // The first error (a header error or a failed check): nothing after it.
                self.stop.d.next = true;
                self.ev.d.next = true;
                self.ecode.d.next = self.r_code.val();
                self.eseq.d.next = self.rq.val().get_value_ck_seq();
            }
            if self.ok.val() & self.rq.val().get_value_ck_tagged() {
                // Message accounting (golden::receiver::messages): the first segment's STag and
                // TO, the payload of all of them, completed by L = 1.
                self.t_open.d.next = !self.rq.val().get_value_ck_last();
                self.t_len.d.next = self.tot.val();
                if self.first.val() {
                    self.t_rresp.d.next = self.rq.val().get_value_ck_opcode() == 2;
                    self.t_stag.d.next = self.rq.val().get_value_ck_stag();
                    self.t_to.d.next = self.rq.val().get_value_ck_to();
                }
            }
            if self.ok.val()
                & !self.rq.val().get_value_ck_tagged()
                & self.rq.val().get_value_ck_last()
            {
                // The message is complete: its queue moves past its MSN.
                if self.rq.val().get_value_ck_qn() == 0 {
                    self.base0.d.next = self.rq.val().get_value_ck_msn() + 1;
                }
                if self.rq.val().get_value_ck_qn() == 1 {
                    self.base1.d.next = self.rq.val().get_value_ck_msn() + 1;
                }
                if self.rq.val().get_value_ck_qn() == 2 {
                    self.base2.d.next = self.rq.val().get_value_ck_msn() + 1;
                    // A Terminate from the peer ends the connection.
                    self.stop.d.next = true;
                }
                if self.inv_needed.val() & !self.e_dirty.q.val() {
                    self.st_inv_en.next = true;
                }
            }
        }

        // ---- The context record (built `with_context`): shown, and loaded while idle. ----
        self.ctx_rec.next = 0.into();
        self.ctx_rec.next.set_value_chk_ctx_base0(self.base0.q.val());
        self.ctx_rec.next.set_value_chk_ctx_base1(self.base1.q.val());
        self.ctx_rec.next.set_value_chk_ctx_base2(self.base2.q.val());
        self.ctx_rec.next.set_value_chk_ctx_t_open(self.t_open.q.val());
        self.ctx_rec.next.set_value_chk_ctx_t_rresp(self.t_rresp.q.val());
        self.ctx_rec.next.set_value_chk_ctx_t_stag(self.t_stag.q.val());
        self.ctx_rec.next.set_value_chk_ctx_t_to(self.t_to.q.val());
        self.ctx_rec.next.set_value_chk_ctx_t_len(self.t_len.q.val());
        // `stop_in` of this cycle too: a load now must not lose it for the connection leaving.
        self.ctx_rec.next.set_value_chk_ctx_stop(self.stop.q.val() | self.stop_in.val());
        self.ctx_rec.next.set_value_chk_ctx_err_valid(self.ev.q.val());
        self.ctx_rec.next.set_value_chk_ctx_err_code(self.ecode.q.val());
        self.ctx_rec.next.set_value_chk_ctx_err_seq(self.eseq.q.val());
        self.ctx_go.next = false;
        self.ctx_ld.next = 0.into();
        // Nothing entered or left since an idle cycle (nothing is taken while no header is
        // offered, and an empty pipeline pushes nothing): still idle.
        self.idle_q.d.next = self.idle.val();
        for k in 0..self.ctx_in.len() {
            self.ctx_out[k].next = self.ctx_rec.val();
            self.ctx_idle[k].next = self.idle_q.q.val() & !self.hdr.valid.val();
            self.ctx_ld.next = self.ctx_in[k].val();
            self.ctx_go.next = self.ctx_load[k].val() & self.idle_q.q.val() & !self.hdr.valid.val();
        }
        if self.ctx_go.val() {
            self.base0.d.next = self.ctx_ld.val().get_value_chk_ctx_base0();
            self.base1.d.next = self.ctx_ld.val().get_value_chk_ctx_base1();
            self.base2.d.next = self.ctx_ld.val().get_value_chk_ctx_base2();
            self.sb0.d.next = self.ctx_ld.val().get_value_chk_ctx_base0();
            self.sb1.d.next = self.ctx_ld.val().get_value_chk_ctx_base1();
            self.sb2.d.next = self.ctx_ld.val().get_value_chk_ctx_base2();
            self.t_open.d.next = self.ctx_ld.val().get_value_chk_ctx_t_open();
            self.t_rresp.d.next = self.ctx_ld.val().get_value_chk_ctx_t_rresp();
            self.t_stag.d.next = self.ctx_ld.val().get_value_chk_ctx_t_stag();
            self.t_to.d.next = self.ctx_ld.val().get_value_chk_ctx_t_to();
            self.t_len.d.next = self.ctx_ld.val().get_value_chk_ctx_t_len();
            self.stop.d.next = self.ctx_ld.val().get_value_chk_ctx_stop();
            self.ev.d.next = self.ctx_ld.val().get_value_chk_ctx_err_valid();
            self.ecode.d.next = self.ctx_ld.val().get_value_chk_ctx_err_code();
            self.eseq.d.next = self.ctx_ld.val().get_value_chk_ctx_err_seq();
        }

        if self.rst.val() {
            // Everything is empty after the reset cycle.
            self.idle_q.d.next = true;
            self.vb.d.next = false;
            self.vc.d.next = false;
            self.vd.d.next = false;
            self.ve.d.next = false;
            self.b_new.d.next = false;
            self.e_new.d.next = false;
            self.sb0.d.next = self.cfg_first_msn.val();
            self.sb1.d.next = self.cfg_first_msn.val();
            self.sb2.d.next = self.cfg_first_msn.val();
            self.stop.d.next = false;
            self.ev.d.next = false;
            self.ecode.d.next = 0.into();
            self.eseq.d.next = 0.into();
            self.t_open.d.next = false;
            self.t_len.d.next = 0.into();
            self.base0.d.next = self.cfg_first_msn.val();
            self.base1.d.next = self.cfg_first_msn.val();
            self.base2.d.next = self.cfg_first_msn.val();
            self.fpdu_q.d.next = false;
            self.placed_q.d.next = false;
            self.probe_v.d.next = false;
            self.skip_v.d.next = false;
        }
    }
}
