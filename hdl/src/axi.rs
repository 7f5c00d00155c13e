//! AXI4 port groups for memory-mapped interfaces: the write channels of an AXI4 master
//! ([`Axi4WriteMaster`]) and an AXI4-Lite slave ([`AxiLiteSlave`]).
//!
//! Exported with the usual AXI names: a group called `m_axi` becomes `m_axi_awaddr`,
//! `m_axi_wdata`, ..., one called `s_axil` becomes `s_axil_awaddr`, ... (see
//! [`crate::export::axi_port_name`]). Only the signals these blocks drive or read are present;
//! the rest of AXI4 takes its default (AWID 0, AWLOCK normal, AWQOS 0, no user signals).
//!
//! Handshake rules (AMBA AXI4, A3.2): a transfer on a channel is a cycle with `valid && ready`;
//! once `valid` is high the payload holds until the transfer; `valid` never waits for `ready`.
//! The write master below never waits for `awready` before raising `wvalid` or the other way
//! round (A3.3.1), and keeps `bready` high.
//!
//! No RFC section: infrastructure.

use rust_hdl::prelude::*;

/// `AWBURST` INCR.
pub const AXI_BURST_INCR: u64 = 1;
/// `AWCACHE` normal non-cacheable non-bufferable (A4.4: 0b0010): the write response comes from
/// the final destination, so a write is in memory once its response arrives.
pub const AXI_CACHE_NONBUFFERABLE: u64 = 2;
/// `BRESP` OKAY; 1 EXOKAY, 2 SLVERR, 3 DECERR.
pub const AXI_RESP_OKAY: u64 = 0;
/// The longest INCR burst (A3.4.1): 256 beats.
pub const AXI_MAX_BURST: usize = 256;
/// A burst never crosses a 4 KiB address boundary (A3.4.1).
pub const AXI_BOUNDARY: usize = 4096;

/// The write channels of an AXI4 master with a data bus of `W` bytes (`B = 8W` bits) and
/// 64-bit addresses (AW, W, B; exported as `m_axi_aw*`, `m_axi_w*`, `m_axi_b*`).
#[derive(LogicInterface, Default)]
pub struct Axi4WriteMaster<const W: usize, const B: usize> {
    /// AW: address of the burst's first octet.
    pub awaddr: Signal<Out, Bits<64>>,
    /// AW: beats in the burst minus one.
    pub awlen: Signal<Out, Bits<8>>,
    /// AW: log2 of the octets per beat (always the bus width).
    pub awsize: Signal<Out, Bits<3>>,
    /// AW: burst type (always INCR).
    pub awburst: Signal<Out, Bits<2>>,
    /// AW: memory attributes (normal, non-cacheable, non-bufferable).
    pub awcache: Signal<Out, Bits<4>>,
    /// AW: protection (unprivileged, secure, data).
    pub awprot: Signal<Out, Bits<3>>,
    /// AW: the master offers an address.
    pub awvalid: Signal<Out, Bit>,
    /// AW: the slave takes it.
    pub awready: Signal<In, Bit>,
    /// W: data, lane 0 at the lowest address of the beat.
    pub wdata: Signal<Out, Bits<B>>,
    /// W: byte strobes.
    pub wstrb: Signal<Out, Bits<W>>,
    /// W: last beat of the burst.
    pub wlast: Signal<Out, Bit>,
    /// W: the master offers a beat.
    pub wvalid: Signal<Out, Bit>,
    /// W: the slave takes it.
    pub wready: Signal<In, Bit>,
    /// B: response (0 OKAY, 2 SLVERR, 3 DECERR).
    pub bresp: Signal<In, Bits<2>>,
    /// B: the slave offers a response.
    pub bvalid: Signal<In, Bit>,
    /// B: the master takes it.
    pub bready: Signal<Out, Bit>,
}

/// An AXI4-Lite slave with 32-bit data and `A` address bits (exported as `s_axil_*`).
#[derive(LogicInterface, Default)]
pub struct AxiLiteSlave<const A: usize> {
    /// AW: register address (octets).
    pub awaddr: Signal<In, Bits<A>>,
    /// AW: the master offers an address.
    pub awvalid: Signal<In, Bit>,
    /// AW: the slave takes it.
    pub awready: Signal<Out, Bit>,
    /// W: data.
    pub wdata: Signal<In, Bits<32>>,
    /// W: byte strobes.
    pub wstrb: Signal<In, Bits<4>>,
    /// W: the master offers data.
    pub wvalid: Signal<In, Bit>,
    /// W: the slave takes it.
    pub wready: Signal<Out, Bit>,
    /// B: response.
    pub bresp: Signal<Out, Bits<2>>,
    /// B: the slave offers a response.
    pub bvalid: Signal<Out, Bit>,
    /// B: the master takes it.
    pub bready: Signal<In, Bit>,
    /// AR: register address (octets).
    pub araddr: Signal<In, Bits<A>>,
    /// AR: the master offers an address.
    pub arvalid: Signal<In, Bit>,
    /// AR: the slave takes it.
    pub arready: Signal<Out, Bit>,
    /// R: data.
    pub rdata: Signal<Out, Bits<32>>,
    /// R: response.
    pub rresp: Signal<Out, Bits<2>>,
    /// R: the slave offers data.
    pub rvalid: Signal<Out, Bit>,
    /// R: the master takes it.
    pub rready: Signal<In, Bit>,
}
