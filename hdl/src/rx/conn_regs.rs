//! `MpaRxConnRegs`: the AXI4-Lite register map in front of [`super::mpa_rx_table::MpaRxTable`]:
//! opening connections, status and counters ([`conn_reg`] lists every register).
//!
//! No RFC section of its own: it is how a driver sets, per connection, what RFC 5044 7.1
//! negotiates (Markers and CRC in each direction: here the receive side's), where the stream
//! starts and its Marker origin (section 5: the first octet of Full Operation), and reads what
//! section 8 reports (out-of-sequence segments, CRC and Marker errors, dropped ULPDUs).
//!
//! Opening a connection: write OPEN_SEQ, OPEN_ORIGIN and OPEN_SET (they are kept, so connections
//! with the same settings need only OPEN_SEQ and OPEN_ORIGIN), then the connection's number to
//! OPEN. The cycle after OPEN's write is taken the block pulses `tbl_we` with those values, and
//! the table builds the connection's records; the write is answered in that cycle.
//!
//! Handshakes: [`crate::axil_reg_port::AxilRegPort`]'s (a write taken when address and data
//! are both offered, one cycle after both valids, and answered the next cycle; a read taken
//! one cycle after `arvalid` and answered the next; none while `rst` is high). Address bits
//! `[1:0]` are ignored (every register is a whole word).
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `rst` | in | 1 | clock; synchronous reset: OPEN_SEQ, OPEN_ORIGIN 0, OPEN_SET CRC on with ULPDU_Length limit 0xFFFF (Markers off), OPEN 0 (none opened), GAPS and the counters 0 (the counters wrap at 2^32); `tbl_we` low |
//! | `s_axil` | | | the AXI4-Lite slave ([`crate::axi::AxiLiteSlave`], 8 address bits) |
//! | `tbl_we`, `tbl_conn`, `tbl_seq`, `tbl_origin`, `tbl_markers`, `tbl_crc_on`, `tbl_max_ulpdu` | out | 1, 4, 32, 32, 1, 1, 16 | `MpaRxTable`'s host port (registered) |
//! | `err_seq`, `err_crc`, `err_marker`, `dropped` | in | 1 | the table's pulses, of the connection `err_conn` |
//! | `err_conn`, `switching`, `seq_gap`, `cfg_misaligned` | in | 4, 1, 1, 1 | the table's status |
//!
//! ### Parameters
//! `W` bytes per beat (reported in PARAMS); `max_ulpdu` (at build time) a region's largest
//! ULPDU_Length, reported in PARAMS.
//!
//! ### On bad input
//! A write with strobes other than all four octets, or to an address that is not a writable
//! register, is ignored and answered SLVERR; so is an OPEN whose value is 16 or more (nothing
//! is opened). A read of an unmapped address returns 0 with SLVERR.
//!
//! ### Latency
//! A write is answered two cycles after both valids, a read two cycles after `arvalid`; OPEN's
//! `tbl_we` is in the cycle after the write is taken.

use crate::axi::AxiLiteSlave;
use crate::axil_reg_port::AxilRegPort;
use crate::rx::realign_table::CONN_BITS;
use rust_hdl::prelude::*;

/// The register map (octet addresses; every register 32 bits, read and written whole).
pub mod conn_reg {
    /// Address bits of the AXI4-Lite slave.
    pub const ADDR_BITS: usize = 8;
    /// RO: [`ID_VALUE`] ("MRXC").
    pub const ID: u64 = 0x00;
    /// RO: `[7:0]` W, `[15:8]` connections (16), `[31:16]` a connection's largest
    /// ULPDU_Length (its release-buffer region, at most 0xFFFF; `MpaRxTable` clamps OPEN_SET's
    /// limit to it, OPEN_SET reads back what was written).
    pub const PARAMS: u64 = 0x04;
    /// RW: the sequence number of the opened stream's first octet (an FPDU's first octet).
    pub const OPEN_SEQ: u64 = 0x08;
    /// RW: the sequence number of its Marker origin.
    pub const OPEN_ORIGIN: u64 = 0x0C;
    /// RW: `[0]` Markers expected, `[1]` CRCs checked, `[31:16]` the largest ULPDU_Length
    /// accepted; the other bits read 0.
    pub const OPEN_SET: u64 = 0x10;
    /// W: `[3:0]` open this connection with OPEN_SEQ, OPEN_ORIGIN and OPEN_SET (a value of 16
    /// or more is refused). R: `[3:0]` the connection opened last, `[8]` one was opened since
    /// reset.
    pub const OPEN: u64 = 0x14;
    /// RO: `[3:0]` the connection loaded in the path, `[4]` a segment's first beat waits for a
    /// switch, `[5]` the connection loaded saw a gap (`seq_gap`), `[6]` its start is not
    /// 4-octet aligned to its Marker origin (`cfg_misaligned`); `[6:5]` are 0 while none is
    /// loaded.
    pub const STATUS: u64 = 0x18;
    /// RO: `[15:0]` one bit per connection: a segment of it was dropped out of sequence
    /// (`err_seq`) since it was last opened.
    pub const GAPS: u64 = 0x1C;
    /// RO: segments dropped out of sequence (`err_seq`), every connection, since reset.
    pub const CNT_SEQ_DROPS: u64 = 0x20;
    /// RO: FPDUs that failed the CRC check (`err_crc`).
    pub const CNT_CRC_ERRORS: u64 = 0x24;
    /// RO: FPDUs rejected for their FPDUPTR (`err_marker`).
    pub const CNT_MARKER_ERRORS: u64 = 0x28;
    /// RO: bad ULPDUs dropped (`dropped`).
    pub const CNT_DROPPED: u64 = 0x2C;
    /// ID's value: "MRXC".
    pub const ID_VALUE: u32 = 0x4D52_5843;
    /// OPEN_SET after reset: CRC on, Markers off, limit 0xFFFF.
    pub const OPEN_SET_RESET: u32 = 0xFFFF_0002;
}

const AB: usize = conn_reg::ADDR_BITS;

/// The register block; see the module documentation.
#[derive(LogicBlock)]
pub struct MpaRxConnRegs<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// The AXI4-Lite slave.
    pub s_axil: AxiLiteSlave<AB>,
    /// Table port: open a connection.
    pub tbl_we: Signal<Out, Bit>,
    /// Table port: the connection.
    pub tbl_conn: Signal<Out, Bits<CONN_BITS>>,
    /// Table port: its start.
    pub tbl_seq: Signal<Out, Bits<32>>,
    /// Table port: its Marker origin.
    pub tbl_origin: Signal<Out, Bits<32>>,
    /// Table port: Markers.
    pub tbl_markers: Signal<Out, Bit>,
    /// Table port: CRC.
    pub tbl_crc_on: Signal<Out, Bit>,
    /// Table port: ULPDU_Length limit.
    pub tbl_max_ulpdu: Signal<Out, Bits<16>>,
    /// Pulse: a segment was dropped out of sequence.
    pub err_seq: Signal<In, Bit>,
    /// Pulse: an FPDU failed the CRC check.
    pub err_crc: Signal<In, Bit>,
    /// Pulse: an FPDU was rejected for its FPDUPTR.
    pub err_marker: Signal<In, Bit>,
    /// Pulse: a bad ULPDU was dropped.
    pub dropped: Signal<In, Bit>,
    /// The connection loaded.
    pub err_conn: Signal<In, Bits<CONN_BITS>>,
    /// A segment's first beat waits for a switch.
    pub switching: Signal<In, Bit>,
    /// The connection loaded's gap flag.
    pub seq_gap: Signal<In, Bit>,
    /// The connection loaded's misaligned flag.
    pub cfg_misaligned: Signal<In, Bit>,
    /// The AXI4-Lite handshakes.
    port: AxilRegPort<AB, { AB - 2 }>,
    // Registers.
    seq: DFF<Bits<32>>,
    origin: DFF<Bits<32>>,
    set: DFF<Bits<32>>,
    conn: DFF<Bits<CONN_BITS>>,
    open_q: DFF<Bit>,
    opened: DFF<Bit>,
    gaps: DFF<Bits<16>>,
    n_seq: DFF<Bits<32>>,
    n_crc: DFF<Bits<32>>,
    n_marker: DFF<Bits<32>>,
    n_dropped: DFF<Bits<32>>,
    c_params: Constant<Bits<32>>,
    // Combinational.
    w_data: Signal<Local, Bits<32>>,
    status: Signal<Local, Bits<32>>,
    gap_set: Signal<Local, Bits<16>>,
    gap_clear: Signal<Local, Bits<16>>,
}

impl<const W: usize> MpaRxConnRegs<W> {
    /// Builds the block for a table whose regions hold ULPDUs of at most `max_ulpdu` octets
    /// (reported in PARAMS); panics with a message naming the rule if `W` is illegal.
    pub fn new(max_ulpdu: usize) -> Self {
        assert!(W < 256, "MpaRxConnRegs: W = {W} does not fit PARAMS[7:0]");
        // (ULPDU_Length is 16 bits: a region's capacity above that reads 0xFFFF.)
        let params = W as u64 | (1u64 << CONN_BITS) << 8 | (max_ulpdu.min(0xFFFF) as u64) << 16;
        Self {
            clock: Default::default(),
            rst: Default::default(),
            s_axil: Default::default(),
            tbl_we: Default::default(),
            tbl_conn: Default::default(),
            tbl_seq: Default::default(),
            tbl_origin: Default::default(),
            tbl_markers: Default::default(),
            tbl_crc_on: Default::default(),
            tbl_max_ulpdu: Default::default(),
            err_seq: Default::default(),
            err_crc: Default::default(),
            err_marker: Default::default(),
            dropped: Default::default(),
            err_conn: Default::default(),
            switching: Default::default(),
            seq_gap: Default::default(),
            cfg_misaligned: Default::default(),
            port: AxilRegPort::new(),
            seq: Default::default(),
            origin: Default::default(),
            set: Default::default(),
            conn: Default::default(),
            open_q: Default::default(),
            opened: Default::default(),
            gaps: Default::default(),
            n_seq: Default::default(),
            n_crc: Default::default(),
            n_marker: Default::default(),
            n_dropped: Default::default(),
            c_params: Constant::new(params.into()),
            w_data: Default::default(),
            status: Default::default(),
            gap_set: Default::default(),
            gap_clear: Default::default(),
        }
    }
}

// (`hdl_gen` translates an `if` inside a `match` arm, not a match guard.)
#[allow(clippy::collapsible_match)]
impl<const W: usize> Logic for MpaRxConnRegs<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, seq, origin, set, conn, open_q, opened, gaps, n_seq, n_crc, n_marker,
            n_dropped
        );
        self.port.clock.next = self.clock.val();
        self.port.rst.next = self.rst.val();
        AxiLiteSlave::<AB>::link(&mut self.s_axil, &mut self.port.s_axil);
        // ---- The table's port: OPEN's pulse a cycle after its write, the fields held. ----
        self.tbl_we.next = self.open_q.q.val() & !self.rst.val();
        self.tbl_conn.next = self.conn.q.val();
        self.tbl_seq.next = self.seq.q.val();
        self.tbl_origin.next = self.origin.q.val();
        self.tbl_markers.next = self.set.q.val().get_bit(0);
        self.tbl_crc_on.next = self.set.q.val().get_bit(1);
        self.tbl_max_ulpdu.next = self.set.q.val().get_bits::<16>(16);
        self.open_q.d.next = false;

        // ---- Counters, and each connection's gap since it was opened (an open clears its
        // bit, also against a pulse of its old stream in the same cycle). ----
        if self.err_seq.val() {
            self.n_seq.d.next = self.n_seq.q.val() + 1;
        }
        if self.err_crc.val() {
            self.n_crc.d.next = self.n_crc.q.val() + 1;
        }
        if self.err_marker.val() {
            self.n_marker.d.next = self.n_marker.q.val() + 1;
        }
        if self.dropped.val() {
            self.n_dropped.d.next = self.n_dropped.q.val() + 1;
        }
        self.gap_set.next = 0.into();
        if self.err_seq.val() {
            self.gap_set.next =
                bit_cast::<16, 1>(1.into()) << bit_cast::<16, CONN_BITS>(self.err_conn.val());
        }
        self.gap_clear.next = 0.into();
        if self.open_q.q.val() {
            self.gap_clear.next =
                bit_cast::<16, 1>(1.into()) << bit_cast::<16, CONN_BITS>(self.conn.q.val());
        }
        self.gaps.d.next = (self.gaps.q.val() | self.gap_set.val()) & !self.gap_clear.val();

        // ---- Writes (the handshakes are the port's): every one answered in its cycle. ----
        self.port.b_give.next = self.port.wr.val();
        self.port.b_err.next = false;
        self.w_data.next = self.port.wr_data.val();
        if self.port.wr.val() {
            if !self.port.wr_whole.val() {
                self.port.b_err.next = true;
            } else {
                match self.port.wr_addr.val().index() {
                    // OPEN_SEQ
                    2 => {
                        self.seq.d.next = self.w_data.val();
                    }
                    // OPEN_ORIGIN
                    3 => {
                        self.origin.d.next = self.w_data.val();
                    }
                    // OPEN_SET
                    4 => {
                        self.set.d.next = self.w_data.val() & 0xFFFF_0003_u64;
                    }
                    // OPEN
                    5 => {
                        if (self.w_data.val() >> 4) == 0 {
                            self.conn.d.next = self.w_data.val().get_bits::<4>(0);
                            self.open_q.d.next = true;
                            self.opened.d.next = true;
                        } else {
                            self.port.b_err.next = true;
                        }
                    }
                    _ => {
                        self.port.b_err.next = true;
                    }
                }
            }
        }

        // ---- Reads: the register mux, one case per register (word address = octet
        // address / 4); the port registers the answer. ----
        self.status.next = bit_cast::<32, CONN_BITS>(self.err_conn.val())
            | (bit_cast::<32, 1>(self.switching.val().into()) << 4)
            | (bit_cast::<32, 1>(self.seq_gap.val().into()) << 5)
            | (bit_cast::<32, 1>(self.cfg_misaligned.val().into()) << 6);
        self.port.rd_ok.next = true;
        self.port.rd_data.next = 0.into();
        match self.port.rd_addr.val().index() {
            // ID
            0 => {
                self.port.rd_data.next = 0x4D52_5843.into();
            }
            // PARAMS
            1 => {
                self.port.rd_data.next = self.c_params.val();
            }
            // OPEN_SEQ
            2 => {
                self.port.rd_data.next = self.seq.q.val();
            }
            // OPEN_ORIGIN
            3 => {
                self.port.rd_data.next = self.origin.q.val();
            }
            // OPEN_SET
            4 => {
                self.port.rd_data.next = self.set.q.val();
            }
            // OPEN
            5 => {
                self.port.rd_data.next = bit_cast::<32, CONN_BITS>(self.conn.q.val())
                    | (bit_cast::<32, 1>(self.opened.q.val().into()) << 8);
            }
            // STATUS
            6 => {
                self.port.rd_data.next = self.status.val();
            }
            // GAPS
            7 => {
                self.port.rd_data.next = bit_cast::<32, 16>(self.gaps.q.val());
            }
            // CNT_SEQ_DROPS
            8 => {
                self.port.rd_data.next = self.n_seq.q.val();
            }
            // CNT_CRC_ERRORS
            9 => {
                self.port.rd_data.next = self.n_crc.q.val();
            }
            // CNT_MARKER_ERRORS
            10 => {
                self.port.rd_data.next = self.n_marker.q.val();
            }
            // CNT_DROPPED
            11 => {
                self.port.rd_data.next = self.n_dropped.q.val();
            }
            _ => {
                self.port.rd_ok.next = false;
            }
        }
        if self.rst.val() {
            self.seq.d.next = 0.into();
            self.origin.d.next = 0.into();
            self.set.d.next = 0xFFFF_0002_u64.into();
            self.conn.d.next = 0.into();
            self.open_q.d.next = false;
            self.opened.d.next = false;
            self.gaps.d.next = 0.into();
            self.n_seq.d.next = 0.into();
            self.n_crc.d.next = 0.into();
            self.n_marker.d.next = 0.into();
            self.n_dropped.d.next = 0.into();
        }
    }
}
