//! `RxCrcCtx`: the CRC check's per-connection context record and the logic that ends and
//! resumes an FPDU's CRC across a switch of connection.
//!
//! RFC 5044 Appendix B.2: a flow-through receiver keeps, per connection, "the partial CRC" of
//! the FPDU it is receiving, not its octets. [`super::crc_check::RxCrcCheck`] built
//! [`super::crc_check::RxCrcCheck::with_context`] holds one of these blocks and a resumable
//! [`crate::crc::engine::CrcEngine`]. What the check keeps about a connection once nothing of it
//! is inside is one record, [`CrcCtx`] (34 bits): whether an FPDU is open (beats of it went
//! through, its last has not), the CRC value of its octets so far, and whether the stream has
//! ended (an error packet went out; every beat after it is dropped).
//!
//! An open FPDU's running CRC is inside the engine's pipeline, so a switch takes one more step
//! than in the blocks before: `flush` ends the open FPDU's piece with a null `last` beat (no
//! octet), whose `crc` the engine gives [`crate::crc::engine::CrcEngine::latency`] cycles later;
//! this block takes it as the record's CRC (not as a verdict) and marks the next beat as one
//! that resumes from it (`resume` with `init`). Then `idle` rises: the record is final and a
//! `load` is honoured. The same connection may also go on without a load: its next beat
//! resumes from the stored value.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous active-high reset (no FPDU open, nothing pending) |
//! | `rec_in` | in | 34 | a record to load ([`CrcCtx`]) |
//! | `load` | in | 1 | load it (honoured while `idle`) |
//! | `flush` | in | 1 | end the open FPDU's piece in the engine (a no-op when none is open or its piece has ended; after the stream's end the piece is ended all the same, and its beats are dropped) |
//! | `take`, `last` | in | 1 | a beat is strobed into the engine this cycle; it is a packet's last |
//! | `crc_valid`, `crc` | in | 1, 32 | the engine's result |
//! | `drained` | in | 1 | nothing of the connection is in the check's beat FIFO (its count: a beat written shows at its head two cycles later) or output register |
//! | `dead` | in | 1 | the check's ended flag |
//! | `hold` | out | 1 | take no beat this cycle (a load or flush asked for, or a piece's CRC awaited) |
//! | `null_beat` | out | 1 | strobe a null `last` beat into the engine this cycle (the flush) |
//! | `resume`, `init` | out | 1, 32 | for the engine: the next first beat continues a message whose CRC so far is `init` |
//! | `piece` | out | 1 | this cycle's `crc_valid` is the flushed piece's, not an FPDU's verdict |
//! | `load_now`, `in_dead` | out | 1 | the load is honoured this cycle; the loaded ended flag |
//! | `idle` | out | 1 | nothing of the connection is inside and no FPDU's CRC is in the engine: `rec_out` is final |
//! | `rec_out` | out | 34 | the record of the connection being served |
//!
//! ### Parameters, latency
//! None. A flush takes `CrcEngine::latency() + 1` cycles to `idle` when nothing else is
//! inside (13 at W = 8, 19 at W = 64).

use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The CRC check's context record: what it keeps about a connection's stream between
    /// segments.
    CrcCtx, prefix crc_ctx, bits 34, {
        /// The CRC value of the open FPDU's octets so far (as the engine's `crc` gives it).
        crc: Bits<32> = 0,
        /// An FPDU is open: beats of it went through, its last has not.
        open: Bit = 32,
        /// The stream has ended (an error packet went out): every beat is dropped.
        dead: Bit = 33,
    }
}

/// Width of a [`CrcCtx`] record.
pub const CRC_CTX_BITS: usize = CrcCtx::BITS;

/// The record and its flush / resume logic; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct RxCrcCtx {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// A record to load.
    pub rec_in: Signal<In, Bits<CRC_CTX_BITS>>,
    /// Load it (honoured while `idle`).
    pub load: Signal<In, Bit>,
    /// End the open FPDU's piece in the engine.
    pub flush: Signal<In, Bit>,
    /// A beat is strobed into the engine this cycle.
    pub take: Signal<In, Bit>,
    /// That beat is a packet's last.
    pub last: Signal<In, Bit>,
    /// The engine's result strobe.
    pub crc_valid: Signal<In, Bit>,
    /// The engine's CRC value.
    pub crc: Signal<In, Bits<32>>,
    /// Nothing of the connection is in the check's beat FIFO or output register.
    pub drained: Signal<In, Bit>,
    /// The check's ended flag.
    pub dead: Signal<In, Bit>,
    /// Take no beat this cycle.
    pub hold: Signal<Out, Bit>,
    /// Strobe a null last beat into the engine this cycle.
    pub null_beat: Signal<Out, Bit>,
    /// The next first beat resumes.
    pub resume: Signal<Out, Bit>,
    /// From this CRC value.
    pub init: Signal<Out, Bits<32>>,
    /// This cycle's result is the flushed piece's.
    pub piece: Signal<Out, Bit>,
    /// The load is honoured this cycle.
    pub load_now: Signal<Out, Bit>,
    /// The loaded ended flag.
    pub in_dead: Signal<Out, Bit>,
    /// Nothing of the connection is inside; the record is final.
    pub idle: Signal<Out, Bit>,
    /// The record of the connection being served.
    pub rec_out: Signal<Out, Bits<CRC_CTX_BITS>>,
    // An FPDU is open; its CRC so far (valid when `rpend`); the next beat resumes from it; a
    // piece's result is awaited; results the engine still owes.
    open: DFF<Bit>,
    part: DFF<Bits<32>>,
    rpend: DFF<Bit>,
    pw: DFF<Bit>,
    nout: DFF<Bits<6>>,
    inc: Signal<Local, Bit>,
}

impl Logic for RxCrcCtx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, open, part, rpend, pw, nout);
        self.hold.next = self.load.val() | self.flush.val() | self.pw.q.val();
        self.null_beat.next =
            self.flush.val() & self.open.q.val() & !self.rpend.q.val() & !self.pw.q.val();
        self.resume.next = self.rpend.q.val();
        self.init.next = self.part.q.val();
        self.piece.next = self.crc_valid.val() & self.pw.q.val() & (self.nout.q.val() == 1);
        // Drained (the beat FIFO's count, not only its head), no result owed, and no FPDU's
        // CRC in the engine.
        self.idle.next = self.drained.val()
            & !self.nout.q.val().any()
            & (!self.open.q.val() | self.rpend.q.val());
        self.load_now.next = self.load.val() & self.idle.val();
        self.in_dead.next = self.rec_in.val().get_value_crc_ctx_dead();
        self.rec_out.next = 0.into();
        self.rec_out.next.set_value_crc_ctx_crc(self.part.q.val());
        self.rec_out.next.set_value_crc_ctx_open(self.open.q.val());
        self.rec_out.next.set_value_crc_ctx_dead(self.dead.val());
        if !self.open.q.val() {
            self.rec_out.next.set_value_crc_ctx_crc(0.into());
        }
        // Results owed: one per packet end or flush strobed, less one per result.
        self.inc.next = (self.take.val() & self.last.val()) | self.null_beat.val();
        if self.inc.val() & !self.crc_valid.val() {
            self.nout.d.next = self.nout.q.val() + 1;
        }
        if !self.inc.val() & self.crc_valid.val() {
            self.nout.d.next = self.nout.q.val() - 1;
        }
        if self.take.val() {
            self.open.d.next = !self.last.val();
            self.rpend.d.next = false;
        }
        if self.null_beat.val() {
            self.pw.d.next = true;
        }
        if self.piece.val() {
            self.pw.d.next = false;
            self.part.d.next = self.crc.val();
            self.rpend.d.next = true;
        }
        if self.load_now.val() {
            self.open.d.next = self.rec_in.val().get_value_crc_ctx_open();
            self.part.d.next = self.rec_in.val().get_value_crc_ctx_crc();
            self.rpend.d.next = self.rec_in.val().get_value_crc_ctx_open();
        }
        if self.rst.val() {
            self.open.d.next = false;
            self.rpend.d.next = false;
            self.pw.d.next = false;
            self.nout.d.next = 0.into();
        }
    }
}
