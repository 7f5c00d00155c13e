//! rust-hdl blocks of the iWARP MPA/DDP datapath and their Verilog export.
//!
//! - [`stream`]: the stream bundle every streaming block uses, with its handshake rules;
//! - [`crc`]: the pipelined parallel CRC engine (RFC 5044 4.4) and the exported CRC top;
//! - [`fifo`]: a small FIFO in distributed RAM ([`lutram`]); [`block_ram`]: block RAM without
//!   read-during-write bypass; [`skid`]: a two-entry register slice;
//! - [`gearbox`]: the lane rotator and merger shared by the segmenter, Marker inserter, realigner,
//!   delineator and Marker stripper;
//! - [`keep_words`]: whole 4-octet words in a beat from its `keep` (the MPA blocks' decoder);
//! - [`stream_fifo`]: a 32-beat stream FIFO in distributed RAM;
//! - [`stream_outq`]: a two-slot output queue for blocks whose emit decision comes late;
//!   [`stream_outq_rr`]: the same with a registered `ready` (the Marker inserter, the framer);
//!   [`stream_outq3`]: three slots behind an output stage register (the segmenter);
//! - [`stream_skid`]: the register slice every streaming block's output goes through;
//! - [`stream_down`], [`stream_up`]: a stream's beats cut into narrower ones and packed back
//!   (the locator's narrow verification path);
//! - [`tx`]: the transmit datapath (`mpa_tx`);
//! - [`rx`]: the receive datapath (`mpa_rx`);
//! - [`place`]: DDP/RDMAP placement behind `mpa_rx` (`rnic_rx`): header validation, STag table
//!   and posted buffers, AXI4 write master, records, AXI4-Lite registers;
//! - [`axi`]: AXI4 write-master and AXI4-Lite port groups; [`axil_reg_port`]: the AXI4-Lite
//!   slave handshakes both register blocks use;
//! - [`board`]: the board loopback (traffic generator, checker, pins) for ULX3S and iCE40;
//! - [`export`]: Verilog with plain module names and AXI4-Stream port names;
//! - [`comb_shadow`]: one write per signal per evaluation in the exported combinational blocks
//!   (event-driven simulators).

pub mod axi;
pub mod axil_reg_port;
pub mod block_ram;
pub mod board;
pub mod comb_shadow;
pub mod crc;
pub mod export;
pub mod fifo;
pub mod gearbox;
pub mod keep_words;
pub mod lane_select;
pub mod lutram;
pub mod place;
pub mod rx;
pub mod sideband;
pub mod skid;
pub mod stream;
pub mod stream_down;
pub mod stream_fifo;
pub mod stream_outq;
pub mod stream_outq3;
pub mod stream_outq_rr;
pub mod stream_skid;
pub mod stream_up;
pub mod tx;
