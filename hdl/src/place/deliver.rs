//! `PlaceDeliver`: records to the consumer in TCP order, each only once the memory writes of its
//! message (and of everything before it) are complete.
//!
//! RFC 5041 section 5: a message is delivered once all its segments are placed, in the order
//! sent; RFC 5040 section 5.6 / RFC 5044 section 8: after an error, nothing more is delivered.
//! The checker queues a record with every descriptor that completes a message (or fails); the
//! writer reports, for each such descriptor, how many bursts had been issued once its own were
//! (the fence). A record leaves when that many write responses have come back. A response that
//! is SLVERR or DECERR stops the connection: the records whose bursts all came before it are
//! delivered, then one error record (kind 6, flag "local", RDMAP 0/0/0 local catastrophic
//! error) and nothing else.
//!
//! ```text
//!  record FIFO ──┐
//!  fence FIFO ───┼─► responses >= fence? ─► output register ─► m_axis (64 octets per record)
//!  responses ────┘   (and before the first failed response)
//! ```
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset |
//! | `rec_valid`, `rec_data`, `rec_ready` | in, in, out | 1, 384, 1 | records from the checker ([`crate::place::record`], the first 48 octets) |
//! | `fence_valid`, `fence_data`, `fence_ready` | in, in, out | 1, 32, 1 | one fence per record, from the writer |
//! | `responses`, `b_err`, `b_err_at` | in | 32, 1, 32 | the writer's response count, first error and the count before it |
//! | `m_axis` | out | 512 | one record per beat (`keep` all ones, `last` set, `user` the kind), registered |
//! | `stop_out` | out | 1 | a memory write failed: stop placing (sticky until reset) |
//! | `finished` | out | 1 | the last record (an error or a received Terminate) went out |
//! | `record_pulse` | out | 1 | a record went out |
//! | `idle` | out | 1 | no record waiting |
//!
//! ### Latency and throughput
//! A record leaves two cycles after its fence is met, at most one record every two cycles.
//!
//! ### On bad input
//! Records after the last one (there are none from the checker; after a local error, those
//! behind it) are taken and dropped.

use crate::place::{record, term};
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// Bits of a record as the checker stores it.
const REC: usize = record::USED_BITS;

/// The delivery block; see the module documentation.
#[derive(LogicBlock)]
pub struct PlaceDeliver {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Record offered.
    pub rec_valid: Signal<In, Bit>,
    /// Record.
    pub rec_data: Signal<In, Bits<REC>>,
    /// Record taken.
    pub rec_ready: Signal<Out, Bit>,
    /// Fence offered.
    pub fence_valid: Signal<In, Bit>,
    /// Bursts the record waits for.
    pub fence_data: Signal<In, Bits<32>>,
    /// Fence taken.
    pub fence_ready: Signal<Out, Bit>,
    /// Write responses so far.
    pub responses: Signal<In, Bits<32>>,
    /// A write response was an error.
    pub b_err: Signal<In, Bit>,
    /// Responses before it.
    pub b_err_at: Signal<In, Bits<32>>,
    /// Records out.
    pub m_axis: StreamSource<64, 512, 8>,
    /// Stop placing.
    pub stop_out: Signal<Out, Bit>,
    /// The last record went out.
    pub finished: Signal<Out, Bit>,
    /// Pulse: a record went out.
    pub record_pulse: Signal<Out, Bit>,
    /// Nothing waiting.
    pub idle: Signal<Out, Bit>,
    ov: DFF<Bit>,
    odata: DFF<Bits<512>>,
    okind: DFF<Bits<8>>,
    fin: DFF<Bit>,
    stop: DFF<Bit>,
    pulse: DFF<Bit>,
    met_q: DFF<Bit>,
    before_q: DFF<Bit>,
    popped: DFF<Bit>,
    b_err_seen: DFF<Bit>,
    fv_q: DFF<Bit>,
    c_err_kind: Constant<Bits<8>>,
    c_term_kind: Constant<Bits<8>>,
    c_local: Constant<Bits<512>>,
    head: Signal<Local, Bit>,
    met: Signal<Local, Bit>,
    before_err: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    local_err: Signal<Local, Bit>,
    kind: Signal<Local, Bits<8>>,
    d_met: Signal<Local, Bits<32>>,
    d_err: Signal<Local, Bits<32>>,
}

impl PlaceDeliver {
    /// Builds the block.
    pub fn new() -> Self {
        let local = record::KIND_ERROR as u64 | ((record::FLAG_LOCAL as u64) << 8);
        let (layer, etype, code) = term::decode(term::RDMAP_LOCAL_CATASTROPHIC);
        let lcode = layer as u64 | (etype as u64) << 8 | (code as u64) << 16;
        let c_local =
            Bits::<512>::from(local) | (Bits::<512>::from(lcode) << (8 * record::LAYER as u64));
        Self {
            clock: Default::default(),
            rst: Default::default(),
            rec_valid: Default::default(),
            rec_data: Default::default(),
            rec_ready: Default::default(),
            fence_valid: Default::default(),
            fence_data: Default::default(),
            fence_ready: Default::default(),
            responses: Default::default(),
            b_err: Default::default(),
            b_err_at: Default::default(),
            m_axis: StreamSource::new(),
            stop_out: Default::default(),
            finished: Default::default(),
            record_pulse: Default::default(),
            idle: Default::default(),
            ov: Default::default(),
            odata: Default::default(),
            okind: Default::default(),
            fin: Default::default(),
            stop: Default::default(),
            pulse: Default::default(),
            met_q: Default::default(),
            before_q: Default::default(),
            popped: Default::default(),
            b_err_seen: Default::default(),
            fv_q: Default::default(),
            c_err_kind: Constant::new((record::KIND_ERROR as u64).into()),
            c_term_kind: Constant::new((record::KIND_TERMINATE as u64).into()),
            c_local: Constant::new(c_local),
            head: Default::default(),
            met: Default::default(),
            before_err: Default::default(),
            free: Default::default(),
            go: Default::default(),
            local_err: Default::default(),
            kind: Default::default(),
            d_met: Default::default(),
            d_err: Default::default(),
        }
    }
}

impl Default for PlaceDeliver {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for PlaceDeliver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ov, odata, okind, fin, stop, pulse, met_q, before_q, popped, b_err_seen,
            fv_q
        );
        self.m_axis.data.next = self.odata.q.val();
        self.m_axis.keep.next = 0xFFFF_FFFF_FFFF_FFFF_u64.into();
        self.m_axis.user.next = self.okind.q.val();
        self.m_axis.last.next = true;
        self.m_axis.valid.next = self.ov.q.val();
        self.stop_out.next = self.stop.q.val();
        self.finished.next = self.fin.q.val();
        self.record_pulse.next = self.pulse.q.val();
        self.pulse.d.next = false;
        if self.ov.q.val() & self.m_axis.ready.val() {
            self.ov.d.next = false;
        }
        self.free.next = !self.ov.q.val() | self.m_axis.ready.val();
        self.head.next = self.rec_valid.val() & self.fence_valid.val();
        // Wrap-safe: responses - fence >= 0, and fence <= the count before the first error.
        // Wrap-safe: responses - fence >= 0, and fence <= the count before the first error;
        // registered (a cycle late is safe: responses only grow), used only when the head was
        // the same last cycle (no pop, the fence already there).
        self.d_met.next = self.responses.val() - self.fence_data.val();
        self.d_err.next = self.b_err_at.val() - self.fence_data.val();
        self.met_q.d.next = !self.d_met.val().get_bit(31);
        self.before_q.d.next = !self.b_err.val() | !self.d_err.val().get_bit(31);
        self.fv_q.d.next = self.fence_valid.val();
        self.met.next = self.met_q.q.val() & self.fv_q.q.val() & !self.popped.q.val();
        self.before_err.next = self.before_q.q.val() & self.fv_q.q.val() & !self.popped.q.val();
        self.go.next = !self.fin.q.val()
            & self.free.val()
            & self.head.val()
            & self.met.val()
            & self.before_err.val();
        // A failed write: once no record that precedes it waits, the local error record.
        self.local_err.next = !self.fin.q.val()
            & self.free.val()
            & self.b_err.val()
            & !self.popped.q.val()
            & (!self.rec_valid.val()
                | (self.fence_valid.val()
                    & self.fv_q.q.val()
                    & !self.before_q.q.val()
                    & self.b_err_seen.q.val()));
        self.b_err_seen.d.next = self.b_err.val();
        self.popped.d.next = self.go.val();
        self.rec_ready.next = self.go.val() | self.fin.q.val();
        self.fence_ready.next = self.go.val() | self.fin.q.val();
        self.kind.next = self.rec_data.val().get_bits::<8>(0);
        if self.go.val() {
            self.ov.d.next = true;
            self.odata.d.next = bit_cast::<512, REC>(self.rec_data.val());
            self.okind.d.next = self.kind.val();
            self.pulse.d.next = true;
            if (self.kind.val() == self.c_err_kind.val())
                | (self.kind.val() == self.c_term_kind.val())
            {
                self.fin.d.next = true;
            }
        } else if self.local_err.val() {
            self.ov.d.next = true;
            self.odata.d.next = self.c_local.val();
            self.okind.d.next = self.c_err_kind.val();
            self.pulse.d.next = true;
            self.fin.d.next = true;
        }
        if self.b_err.val() {
            self.stop.d.next = true;
        }
        self.idle.next = !self.rec_valid.val() & !self.fence_valid.val() & !self.ov.q.val();
        if self.rst.val() {
            self.ov.d.next = false;
            self.fin.d.next = false;
            self.stop.d.next = false;
            self.pulse.d.next = false;
        }
    }
}
