//! DDP/RDMAP placement behind `mpa_rx` (RFC 5041, RFC 5040; RFC 5044 section 8 for the
//! errors), with TCP segments taken in any order in front of it (RFC 5044 A.3-A.5): the receive
//! side of an RNIC, exported as `rnic_rx_w<W>`.
//!
//! ```text
//!  s_axis ─► PlaceReassembly ─► MpaRx ─► PlaceHeader ──(header record)──► PlaceCheck ──(write descriptor)──► PlaceWriter ─► m_axi (AW/W/B)
//!  (TCP       (verified    │  6.1-6.3 decode,              │  STag table, posted          │  INCR bursts, strobes,
//!   segments)  ULPDUs)     │  DDP/RDMAP validation         │  buffers, bounds, MSN        │  shift to memory lanes
//!                          └──(ULPDU beats, FIFO)──────────┼──────────────────────────────┘        │
//!                                                          └──(record)──► PlaceDeliver ◄──(fence)──┘
//!                                                                          │ waits for the B responses
//!  s_axil ─► PlaceRegs (settings, STag table, posted buffers, counters)    ▼
//!                                                                      m_axis_evt (records)
//! ```
//!
//! Blocks (one per file): [`reassembly::PlaceReassembly`] (segments in any order, the
//! reassembly ring and record table, verdicts), [`header::PlaceHeader`] (header capture and validation),
//! [`table_ram::TableRam`] (the STag table and the posted untagged buffers, each one instance),
//! [`check::PlaceCheck`] (placement checks, message tracking, records; its per-connection
//! record [`check_ctx::CheckCtx`], and [`check_table::PlaceCheckTable`], the checker for 16
//! connections, not in the top yet),
//! [`writer::PlaceWriter`] (the AXI4 write master), [`deliver::PlaceDeliver`] (records in TCP
//! order, after their writes completed), [`regs::PlaceRegs`] (the AXI4-Lite register map), and
//! the top [`rnic_rx::RnicRx`].
//!
//! This module also declares, once, the layouts that cross block boundaries and the testbench:
//! the Terminate code encoding ([`term`]), the delivery record ([`record`]), the STag table entry
//! ([`stag_entry`]), the posted-buffer entry ([`posted_entry`]) and the register map ([`reg`]).

pub mod check;
pub mod check_ctx;
pub mod check_table;
pub mod deliver;
pub mod header;
pub mod locate;
pub mod reassembly;
pub mod regs;
pub mod rnic_rx;
pub mod table_ram;
pub mod writer;

/// Octets of a ULPDU the header block keeps: the untagged DDP header (18) and an RDMA Read
/// Request header (28).
pub const HEADER_CAPTURE: usize = 46;
/// [`HEADER_CAPTURE`] in bits.
pub const HEADER_CAPTURE_BITS: usize = 8 * HEADER_CAPTURE;
/// Octets of the offending ULPDU a Terminate record echoes: the untagged DDP header.
pub const ECHO_OCTETS: usize = 18;

/// Terminate codes as 16 bits, the first two octets of RFC 5040's Terminate Control:
/// `layer << 12 | etype << 8 | code` (layer 0 RDMAP, 1 DDP, 2 LLP/MPA).
pub mod term {
    /// The 16-bit encoding of a layer / type / code.
    pub const fn encode(layer: u8, etype: u8, code: u8) -> u16 {
        ((layer as u16 & 0xF) << 12) | ((etype as u16 & 0xF) << 8) | code as u16
    }
    /// The layer / type / code of a 16-bit encoding.
    pub const fn decode(v: u16) -> (u8, u8, u8) {
        ((v >> 12) as u8 & 0xF, (v >> 8) as u8 & 0xF, v as u8)
    }
    /// DDP tagged 1/1/0: invalid STag (also missing remote-write right).
    pub const DDP_TAGGED_INVALID_STAG: u16 = encode(1, 1, 0);
    /// DDP tagged 1/1/1: base or bounds violation.
    pub const DDP_TAGGED_BASE_BOUNDS: u16 = encode(1, 1, 1);
    /// DDP tagged 1/1/2: STag not associated with the stream (protection domain).
    pub const DDP_TAGGED_NOT_ASSOCIATED: u16 = encode(1, 1, 2);
    /// DDP tagged 1/1/3: TO wrap.
    pub const DDP_TAGGED_TO_WRAP: u16 = encode(1, 1, 3);
    /// DDP tagged 1/1/4: invalid DDP version.
    pub const DDP_TAGGED_VERSION: u16 = encode(1, 1, 4);
    /// DDP untagged 1/2/1: invalid QN.
    pub const DDP_UNTAGGED_QN: u16 = encode(1, 2, 1);
    /// DDP untagged 1/2/2: no buffer posted for the MSN.
    pub const DDP_UNTAGGED_NO_BUFFER: u16 = encode(1, 2, 2);
    /// DDP untagged 1/2/3: MSN outside the window.
    pub const DDP_UNTAGGED_MSN_RANGE: u16 = encode(1, 2, 3);
    /// DDP untagged 1/2/4: MO beyond the buffer.
    pub const DDP_UNTAGGED_MO: u16 = encode(1, 2, 4);
    /// DDP untagged 1/2/5: message too long for the buffer.
    pub const DDP_UNTAGGED_TOO_LONG: u16 = encode(1, 2, 5);
    /// DDP untagged 1/2/6: invalid DDP version.
    pub const DDP_UNTAGGED_VERSION: u16 = encode(1, 2, 6);
    /// DDP 1/0/0: catastrophic (a ULPDU shorter than its DDP header).
    pub const DDP_CATASTROPHIC: u16 = encode(1, 0, 0);
    /// RDMAP 0/0/0: local catastrophic error (a memory write failed).
    pub const RDMAP_LOCAL_CATASTROPHIC: u16 = encode(0, 0, 0);
    /// RDMAP 0/1/9: cannot invalidate an STag of another protection domain.
    pub const RDMAP_CANNOT_INVALIDATE_PD: u16 = encode(0, 1, 9);
    /// RDMAP 0/2/5: invalid RDMAP version.
    pub const RDMAP_VERSION: u16 = encode(0, 2, 5);
    /// RDMAP 0/2/6: unexpected opcode (reserved, or the wrong DDP model).
    pub const RDMAP_OPCODE: u16 = encode(0, 2, 6);
    /// RDMAP 0/2/9: cannot invalidate (unknown or invalid STag).
    pub const RDMAP_CANNOT_INVALIDATE: u16 = encode(0, 2, 9);
    /// RDMAP 0/2/0xFF: unspecified (Read Request or Terminate malformed).
    pub const RDMAP_UNSPECIFIED: u16 = encode(0, 2, 0xFF);
    /// MPA 2/0/1: the stream ended inside an FPDU (RFC 5044 section 8 code 1).
    pub const MPA_CONNECTION_LOST: u16 = encode(2, 0, 1);
    /// MPA 2/0/2: CRC error (or ULPDU_Length above the limit).
    pub const MPA_CRC: u16 = encode(2, 0, 2);
    /// MPA 2/0/3: Marker and ULPDU_Length disagree.
    pub const MPA_MARKER: u16 = encode(2, 0, 3);
}

/// The delivery record on `m_axis_evt`: one 64-octet beat per record, integers little-endian at
/// fixed octet offsets (octets 48-63 are 0). Kinds and the fields each fills:
///
/// | offset | size | Send (1) | Write (2) / Read Response (3) | Read Request (4) | Terminate received (5) | Error (6) |
/// |---|---|---|---|---|---|---|
/// | 0 | 1 | kind | kind | kind | kind | kind |
/// | 1 | 1 | flags: 0 SE, 1 Invalidate | | | | flags: 0 local (memory write error), 1 header echoed |
/// | 2 | 2 | | | | | ULPDU_Length of the failing FPDU (0 for an MPA error) |
/// | 4 | 4 | seq | seq | seq | seq | seq (0 for a local error) |
/// | 8 | 8 | length (MO + payload) | length (all segments) | | payload length | |
/// | 16 | 4 | MSN | STag (first segment) | MSN | MSN | |
/// | 20 | 4 | QN | | sink STag | layer, type, code (octets 20, 21, 22) | layer, type, code (octets 20, 21, 22) |
/// | 24 | 8 | Invalidate STag (4) | TO (first segment) | sink TO | | the first 18 octets of the ULPDU, in wire order (24-41) |
/// | 32 | 4 | | | size | | |
/// | 36 | 4 | | | source STag | | |
/// | 40 | 8 | | | source TO | | |
///
/// `seq` is the sequence number of the FPDU that completed the message (its L = 1 segment) or
/// that failed.
pub mod record {
    /// Octets per record (one beat of `m_axis_evt`).
    pub const OCTETS: usize = 64;
    /// Octets that carry fields (what the blocks store; the rest is 0).
    pub const USED_OCTETS: usize = 48;
    /// Bits the blocks store.
    pub const USED_BITS: usize = 8 * USED_OCTETS;
    /// Kind: Send, Send with Invalidate, with SE, with SE and Invalidate.
    pub const KIND_SEND: u8 = 1;
    /// Kind: RDMA Write completed.
    pub const KIND_WRITE: u8 = 2;
    /// Kind: RDMA Read Response completed.
    pub const KIND_READ_RESPONSE: u8 = 3;
    /// Kind: RDMA Read Request received.
    pub const KIND_READ_REQUEST: u8 = 4;
    /// Kind: Terminate message received from the peer (nothing follows).
    pub const KIND_TERMINATE: u8 = 5;
    /// Kind: this end's error (the Terminate it reports; nothing follows).
    pub const KIND_ERROR: u8 = 6;
    /// Send flag: solicited event.
    pub const FLAG_SE: u8 = 1;
    /// Send flag: the Send invalidated the STag at [`INV_STAG`].
    pub const FLAG_INVALIDATE: u8 = 2;
    /// Error flag: a memory write failed (AXI SLVERR/DECERR), not the peer's stream.
    pub const FLAG_LOCAL: u8 = 1;
    /// Error flag: octets 24-41 hold the failing ULPDU's first 18 octets.
    pub const FLAG_ECHO: u8 = 2;
    /// Offsets.
    pub const KIND: usize = 0;
    /// See the table.
    pub const FLAGS: usize = 1;
    /// See the table.
    pub const ULPDU_LEN: usize = 2;
    /// See the table.
    pub const SEQ: usize = 4;
    /// See the table.
    pub const LEN: usize = 8;
    /// See the table.
    pub const MSN: usize = 16;
    /// See the table (tagged).
    pub const STAG: usize = 16;
    /// See the table.
    pub const QN: usize = 20;
    /// See the table.
    pub const SINK_STAG: usize = 20;
    /// See the table (Terminate, Error): layer, then type, then code.
    pub const LAYER: usize = 20;
    /// See the table.
    pub const INV_STAG: usize = 24;
    /// See the table (tagged).
    pub const TO: usize = 24;
    /// See the table.
    pub const SINK_TO: usize = 24;
    /// See the table.
    pub const ECHO: usize = 24;
    /// See the table.
    pub const SIZE: usize = 32;
    /// See the table.
    pub const SOURCE_STAG: usize = 36;
    /// See the table.
    pub const SOURCE_TO: usize = 40;
}

/// One STag table entry as the block RAM stores it (the valid bit is kept beside it, in
/// registers): bit offsets and widths.
pub mod stag_entry {
    /// The full STag (the table is indexed by STag bits above the 8-bit key, and the entry must
    /// hold the same STag to match).
    pub const STAG: usize = 0;
    /// Tagged offset of the region's first octet.
    pub const BASE: usize = 32;
    /// Region length in octets.
    pub const LEN: usize = 96;
    /// Memory (AXI) address of the region's first octet.
    pub const ADDR: usize = 160;
    /// Protection domain.
    pub const PD: usize = 224;
    /// Remote write allowed.
    pub const WRITE: usize = 256;
    /// Remote read allowed.
    pub const READ: usize = 257;
    /// Bits per entry.
    pub const BITS: usize = 258;
}

/// A write descriptor, from the checker to the writer: one per ULPDU, in order.
pub mod desc {
    /// Memory address of the payload's first octet (64 bits).
    pub const ADDR: usize = 0;
    /// Payload octets to write (16 bits).
    pub const LEN: usize = 64;
    /// Header octets before the payload in the ULPDU (5 bits).
    pub const SKIP: usize = 80;
    /// Write the payload (else the ULPDU's beats are discarded).
    pub const WRITE: usize = 85;
    /// A record waits for this descriptor's writes: report the burst count when they are issued.
    pub const FENCE: usize = 86;
    /// Bits per descriptor.
    pub const BITS: usize = 87;
}

/// One posted-buffer entry as the block RAM stores it (valid bit beside it, in registers).
pub mod posted_entry {
    /// The MSN the buffer is posted for.
    pub const MSN: usize = 0;
    /// Memory (AXI) address of the buffer's first octet.
    pub const ADDR: usize = 32;
    /// Buffer length in octets.
    pub const LEN: usize = 96;
    /// Bits per entry.
    pub const BITS: usize = 128;
}

/// The AXI4-Lite register map (octet addresses, 32-bit registers). RO: read only; RW: read and
/// write; WO: a write starts a command (its B response comes when the command is done), a read
/// returns its status.
pub mod reg {
    /// RO: `0x524E5258` ("RNRX").
    pub const ID: u64 = 0x000;
    /// RO: `[7:0]` W, `[15:8]` log2 of the STag table entries, `[23:16]` log2 of the posted
    /// buffers per queue, `[31:24]` record-table entries of the reassembly buffer.
    pub const PARAMS: u64 = 0x004;
    /// RW: `[0]` enable (the connection runs; 0 stops taking segments and, once the writes in
    /// flight are done and the records taken, resets the connection), `[1]` Markers, `[2]` CRC,
    /// `[3]` RDMAC version (DDP/RDMAP version 0 instead of 1), `[4]` place FPDUs located in
    /// out-of-order segments (with CRC; off: every out-of-order octet is held), `[5]` with `[4]`,
    /// header-alignment detection (RFC 5044 B.2: an out-of-order segment that is a chain of
    /// complete FPDUs with good CRCs and valid DDP/RDMAP headers is placed from its first octet).
    pub const CTRL: u64 = 0x008;
    /// RO: `[0]` running, `[1]` stopped (error or Terminate), `[2]` an error was reported,
    /// `[3]` a Terminate was received, `[4]` a memory write failed, `[5]` resetting (enable
    /// low and the pipeline draining, or a table being cleared), `[6]` a command is running.
    pub const STATUS: u64 = 0x00C;
    /// RW: sequence number of the first octet of Full Operation (the Marker origin).
    pub const ORIGIN: u64 = 0x010;
    /// RW: largest ULPDU_Length accepted (clamped to the release buffer).
    pub const MAX_ULPDU: u64 = 0x014;
    /// RW: the stream's protection domain.
    pub const PD: u64 = 0x018;
    /// RW: MSN window of every untagged queue (1 to 2^31; other values are refused).
    pub const MSN_WINDOW: u64 = 0x01C;
    /// RW: the MSN every queue expects first (loaded when the connection starts).
    pub const FIRST_MSN: u64 = 0x020;
    /// RO: `[15:0]` Terminate code of the first error (`layer << 12 | type << 8 | code`),
    /// `[16]` valid, `[17]` local (memory write error).
    pub const ERR_CODE: u64 = 0x024;
    /// RO: sequence number of the failing FPDU.
    pub const ERR_SEQ: u64 = 0x028;
    /// RW: out-of-order octets the reassembly buffer may hold: `reassembly_octets` minus the
    /// in-order reserve (one largest FPDU); read when a segment ends. Default 0 (segments
    /// beyond the edge are refused).
    pub const REASM_BUDGET: u64 = 0x02C;
    /// RW: out-of-order runs of held octets the record table may hold (`records - 1`; at
    /// most the table's entries, PARAMS `[31:24]`). Default 0.
    pub const REASM_RECORDS: u64 = 0x030;
    /// RO: ULPDUs taken from `mpa_rx` (error packet included).
    pub const CNT_FPDUS: u64 = 0x040;
    /// RO: payload octets placed, low word.
    pub const CNT_PLACED_LO: u64 = 0x044;
    /// RO: payload octets placed, high word.
    pub const CNT_PLACED_HI: u64 = 0x048;
    /// RO: records delivered (errors included).
    pub const CNT_RECORDS: u64 = 0x04C;
    /// RO: write bursts issued (AW).
    pub const CNT_BURSTS: u64 = 0x050;
    /// RO: write responses received (B).
    pub const CNT_RESPONSES: u64 = 0x054;
    /// RO: write responses that were SLVERR or DECERR.
    pub const CNT_WRITE_ERRORS: u64 = 0x058;
    /// RO: segments `mpa_rx` dropped as out of sequence.
    pub const CNT_SEQ_DROPS: u64 = 0x05C;
    /// RO: expected MSN of queue 0 (Send).
    pub const QN0_MSN: u64 = 0x060;
    /// RO: expected MSN of queue 1 (RDMA Read Request).
    pub const QN1_MSN: u64 = 0x064;
    /// RO: expected MSN of queue 2 (Terminate).
    pub const QN2_MSN: u64 = 0x068;
    /// RO: segments refused (TCP must not acknowledge them).
    pub const CNT_REFUSED: u64 = 0x06C;
    /// RO: out-of-order octets held now.
    pub const REASM_HELD: u64 = 0x070;
    /// RO: out-of-order runs held now.
    pub const REASM_RUNS: u64 = 0x074;
    /// RO: the most out-of-order octets held at once.
    pub const REASM_PEAK: u64 = 0x078;
    /// RO: FPDUs located in out-of-order segments (RFC 5044 section 6: Markers, the length
    /// chain; verified, not yet placed from there).
    pub const REASM_LOCATED: u64 = 0x07C;
    /// RO: octets of the FPDUs counted by REASM_LOCATED.
    pub const REASM_LOCATED_OCTETS: u64 = 0x034;
    /// RO: FPDUs placed out of order (straight from the segment that carried them).
    pub const REASM_PLACED: u64 = 0x038;
    /// RO: DDP payload octets placed out of order.
    pub const REASM_PLACED_OCTETS: u64 = 0x03C;
    /// RW: STag of the entry to write, invalidate or read.
    pub const STAG: u64 = 0x080;
    /// RW: base TO, low word.
    pub const STAG_BASE_LO: u64 = 0x084;
    /// RW: base TO, high word.
    pub const STAG_BASE_HI: u64 = 0x088;
    /// RW: length, low word.
    pub const STAG_LEN_LO: u64 = 0x08C;
    /// RW: length, high word.
    pub const STAG_LEN_HI: u64 = 0x090;
    /// RW: memory address of the region's first octet, low word.
    pub const STAG_ADDR_LO: u64 = 0x094;
    /// RW: memory address, high word.
    pub const STAG_ADDR_HI: u64 = 0x098;
    /// RW: protection domain.
    pub const STAG_PD: u64 = 0x09C;
    /// RW: `[0]` valid, `[1]` remote write, `[2]` remote read.
    pub const STAG_FLAGS: u64 = 0x0A0;
    /// WO: 1 write the entry (the staging registers above), 2 invalidate the STag, 3 read the
    /// entry into the staging registers (valid 0 when the entry holds another STag). Another
    /// value is answered SLVERR. Read: `[0]` the last command was refused (SLVERR: the STag's
    /// index is beyond the table, or the entry to invalidate holds another STag or is already
    /// invalid), `[31]` busy.
    pub const STAG_CMD: u64 = 0x0A4;
    /// RW: queue of the buffer to post (0, 1 or 2).
    pub const POST_QN: u64 = 0x0C0;
    /// RW: MSN the buffer is for.
    pub const POST_MSN: u64 = 0x0C4;
    /// RW: memory address, low word.
    pub const POST_ADDR_LO: u64 = 0x0C8;
    /// RW: memory address, high word.
    pub const POST_ADDR_HI: u64 = 0x0CC;
    /// RW: length in octets.
    pub const POST_LEN: u64 = 0x0D0;
    /// WO: 1 post the buffer (it replaces whatever the slot `MSN mod entries` of that queue
    /// held). Read: `[0]` the last post was refused (SLVERR: QN above 2, or a value other than
    /// 1), `[31]` busy. Posted buffers belong to the connection: a connection reset forgets
    /// them.
    pub const POST_CMD: u64 = 0x0D4;
    /// The value of [`ID`].
    pub const ID_VALUE: u32 = 0x524E_5258;
    /// CTRL bits.
    pub const CTRL_ENABLE: u32 = 1;
    /// See [`CTRL`].
    pub const CTRL_MARKERS: u32 = 2;
    /// See [`CTRL`].
    pub const CTRL_CRC: u32 = 4;
    /// See [`CTRL`].
    pub const CTRL_RDMAC: u32 = 8;
    /// See [`CTRL`].
    pub const CTRL_PLACE_OOO: u32 = 16;
    /// See [`CTRL`].
    pub const CTRL_ALIGNED: u32 = 32;
    /// STAG_CMD commands.
    pub const CMD_STAG_WRITE: u32 = 1;
    /// See [`STAG_CMD`].
    pub const CMD_STAG_INVALIDATE: u32 = 2;
    /// See [`STAG_CMD`].
    pub const CMD_STAG_READ: u32 = 3;
    /// POST_CMD command.
    pub const CMD_POST: u32 = 1;
    /// Address bits of the register space.
    pub const ADDR_BITS: usize = 12;
}
