//! `rnic_rx` ([`hdl::place`]) under simulation: the engines, and a run of one connection against
//! models of everything around it.
//!
//! [`run_rnic`] plays the parts an FPGA design would put next to `rnic_rx`:
//! - a driver on the AXI4-Lite port ([`AxilMaster`]): the settings of a
//!   [`golden::receiver::ReceiverConfig`], every region registered (STag table), the posted
//!   buffers posted as the queue moves (slot `MSN mod 64`: a buffer is posted once the MSN 64
//!   below it was delivered), then enable;
//! - TCP: the segments in sequence order, overlaps trimmed ([`in_order_packets`]), with seeded
//!   idle cycles;
//! - a memory on the AXI4 write channels ([`SparseMemory`] with AW/W ready patterns and B
//!   responses after a random delay, optionally SLVERR for one burst). Every burst is checked as
//!   it is issued: INCR, full-width beats, at most 256 beats, not across 4 KiB, `wlast` on its
//!   last beat, and every strobed octet inside a region or posted buffer the peer may write *at
//!   that moment* (registered, valid, its protection domain, remote write; a buffer posted and
//!   not yet delivered). A write anywhere else ends the run with an error at once, and so does
//!   a record that comes out while a burst writing its message's memory is not answered yet;
//! - the consumer of `m_axis_evt`, with seeded backpressure.
//!
//! The records are translated into [`golden::receiver::Event`]s and the memory of every region
//! and buffer read back, so tests compare them with the golden receiver's.

use crate::stream::{
    HandshakeMonitor, Pattern, PatternGen, ReadyDriver, StreamDriver, StreamPorts,
};
use crate::traffic::TcpSegment;
use crate::Engine;
use crate::{words_for, CycleSim};
use golden::ddp::TerminateCode;
use golden::receiver::{Delivery, Event, ReceiveError, ReceiverConfig, Target};
use hdl::place::check::PlaceCheck;
use hdl::place::check_table::PlaceCheckTable;
use hdl::place::rnic_rx::{RnicRx, POSTED_SLOT_BITS, STAG_INDEX_BITS};
use hdl::place::{record, reg};
use hdl::rx::mpa_rx::buffer_bits;
use hdl::sideband::RxSegmentUser;
use hdl::with_width;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap, VecDeque};

crate::direct_top!([const W: usize, const B: usize, const A: usize, const SA: usize, const SN: usize,
    const PA: usize, const PN: usize, const RD: usize, const V: usize, const BV: usize]
    RnicRx<W, B, A, SA, SN, PA, PN, RD, V, BV> {
    in rst, sink s_axis, axi_master m_axi, axil_slave s_axil, source m_axis_evt, out vrd_valid,
    out vrd_accept, out vrd_seq
});

crate::direct_top!([const SA: usize, const PA: usize] PlaceCheck<SA, PA> {
    in rst, in cfg_pd, in cfg_window, in cfg_first_msn, in stop_in, header_in hdr,
    in st_lk_busy, out st_lk_index, out st_inv_en, out st_inv_index, in st_entry, in st_valid,
    in pb_lk_busy, out pb_lk_index, in pb_entry, in pb_valid, in st_wr_pend, in st_wr_index,
    out desc_valid, out desc_data, in desc_ready, out rec_valid, out rec_data, in rec_ready,
    out stopped, out err_valid, out err_code, out err_seq, out qn0_msn, out qn1_msn,
    out qn2_msn, out idle, out fpdu_pulse, out placed_pulse, out placed_len, out placed_ooo,
    out probe_valid, out probe_ok, out probe_tpl, out probe_inv, out probe_stag, out probe_dec,
    out skip_ask, in skip_hit, out skip_take, out skip_seq, in0 ctx_in, in0 ctx_load, out0 ctx_out,
    out0 ctx_idle
});

crate::direct_top!([const SA: usize, const PA: usize, const PT: usize] PlaceCheckTable<SA, PA, PT> {
    in rst, in tbl_we, in tbl_conn, in tbl_pd, in tbl_window, in tbl_first_msn, in stop_in,
    header_in hdr, in hdr_conn,
    in st_lk_busy, out st_lk_index, out st_inv_en, out st_inv_index, in st_entry, in st_valid,
    in pb_lk_busy, out pb_lk_index, in pb_entry, in pb_valid, in st_wr_pend, in st_wr_index,
    out desc_valid, out desc_data, in desc_ready, out rec_valid, out rec_data, in rec_ready,
    out stopped, out err_valid, out err_code, out err_seq, out qn0_msn, out qn1_msn,
    out qn2_msn, out idle, out fpdu_pulse, out placed_pulse, out placed_len, out placed_ooo,
    out probe_valid, out probe_ok, out probe_tpl, out probe_inv, out probe_stag, out probe_dec,
    out skip_ask, in skip_hit, out skip_take, out skip_seq, out conn, out switching
});

/// The placement checker for 16 connections ([`PlaceCheckTable`]) with `rnic_rx`'s table
/// sizes: `pb_lk_index` is the connection above the posted-buffer slot.
pub fn place_check_table(engine: Engine) -> Result<Box<dyn CycleSim>, String> {
    crate::tx::block_engine(
        engine,
        "place_check_table",
        PlaceCheckTable::<STAG_INDEX_BITS, POSTED_SLOT_BITS, { POSTED_SLOT_BITS + 4 }>::new(),
    )
}

/// The placement checker alone with `rnic_rx`'s table sizes ([`STAG_INDEX_BITS`],
/// [`POSTED_SLOT_BITS`]), built with its context ports (`ctx_in_0`, `ctx_load_0`, `ctx_out_0`,
/// `ctx_idle_0`; [`PlaceCheck::with_context`]) when `context`.
pub fn place_check(engine: Engine, context: bool) -> Result<Box<dyn CycleSim>, String> {
    type Check = PlaceCheck<STAG_INDEX_BITS, POSTED_SLOT_BITS>;
    if context {
        crate::tx::block_engine(engine, "place_check_ctx", Check::with_context())
    } else {
        crate::tx::block_engine(engine, "place_check", Check::new())
    }
}

/// STag table entries of the exported tops.
pub const STAG_ENTRIES: usize = 1 << STAG_INDEX_BITS;
/// Posted-buffer slots per queue of the exported tops.
pub const POSTED_PER_QUEUE: usize = 1 << (POSTED_SLOT_BITS - 2);

/// `rnic_rx_w<W>` on either engine (the rust-hdl model, VCD to `vcd` if given; or the exported
/// Verilog on Verilator).
pub fn rnic_rx_vcd(
    engine: Engine,
    width: usize,
    vcd: Option<&std::path::Path>,
) -> Result<Box<dyn CycleSim>, String> {
    let spec = hdl::export::rnic_rx_spec(width)?;
    with_width!(width, |W, B| {
        const A: usize = buffer_bits(W);
        const SN: usize = 1 << STAG_INDEX_BITS;
        const PN: usize = 1 << POSTED_SLOT_BITS;
        const RD: usize = hdl::place::reassembly::ring_bits(W);
        const V: usize = hdl::place::locate::locate_width(W);
        crate::tx::top_engine(
            engine,
            &spec,
            RnicRx::<W, B, A, STAG_INDEX_BITS, SN, POSTED_SLOT_BITS, PN, RD, V, { 8 * V }>::new,
            vcd,
        )
    })
}

/// [`rnic_rx_vcd`] without a waveform.
pub fn rnic_rx(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    rnic_rx_vcd(engine, width, None)
}

/// The largest ULPDU_Length `rnic_rx_w<W>` takes (its `mpa_rx` release buffer).
pub fn max_ulpdu(width: usize) -> Result<u32, String> {
    crate::rx::mpa_rx_max_ulpdu(width)
}

/// Why a configuration cannot be loaded into `rnic_rx_w<W>`, if it cannot.
pub fn check_fits(cfg: &ReceiverConfig, width: usize) -> Result<(), String> {
    let limit = max_ulpdu(width)?;
    if cfg.max_ulpdu > limit {
        return Err(format!(
            "max_ulpdu {} is above what rnic_rx_w{width} takes ({limit} octets, its release \
             buffer): set max_ulpdu in the configuration",
            cfg.max_ulpdu
        ));
    }
    let mut used = BTreeMap::new();
    for r in &cfg.regions {
        let index = (r.stag >> 8) as usize;
        if index >= STAG_ENTRIES {
            return Err(format!(
                "STag {:#010x}: index {index} (STag >> 8) is beyond the table's {STAG_ENTRIES} \
                 entries (the hardware looks STags up by index, the low 8 bits are the key)",
                r.stag
            ));
        }
        if let Some(other) = used.insert(index, r.stag) {
            return Err(format!(
                "STags {other:#010x} and {:#010x} have the same index {index} (STag >> 8): the \
                 table holds one of them",
                r.stag
            ));
        }
    }
    Ok(())
}

/// Whether the reassembly settings of `cfg` are the hardware's, so that its verdicts on
/// segments in any order are the golden receiver's: out-of-order placement off (the hardware
/// holds every out-of-order octet; CTRL's place bit clear) or on (with or without
/// header-alignment detection, CTRL's aligned bit), the window its 64 KiB ring, at most its
/// record table plus one (the one kept for the edge), and a budget that fits the 32-bit
/// register.
pub fn check_reassembly_fits(cfg: &ReceiverConfig) -> Result<(), String> {
    use hdl::place::reassembly::{MIN_RING_OCTETS, RECORD_ENTRIES};
    if cfg.reassembly_window != MIN_RING_OCTETS as u64 {
        return Err(format!(
            "reassembly_window must be {MIN_RING_OCTETS}, rnic_rx's ring (got {})",
            cfg.reassembly_window
        ));
    }
    if cfg.records as usize > RECORD_ENTRIES + 1 {
        return Err(format!(
            "records {} is above rnic_rx's table ({RECORD_ENTRIES} entries plus the edge's)",
            cfg.records
        ));
    }
    if cfg.reassembly_octets - cfg.in_order_reserve() > u32::MAX as u64 {
        return Err("reassembly_octets minus the in-order reserve is above 2^32 - 1".into());
    }
    Ok(())
}

/// `cfg` with the hardware's reassembly settings (see [`check_reassembly_fits`]): out-of-order
/// placement off, the 64 KiB window, `records` at most the table's.
pub fn hardware_reassembly(cfg: &ReceiverConfig) -> ReceiverConfig {
    let mut c = hardware_placement(cfg);
    c.place_out_of_order = false;
    c
}

/// `cfg` with the hardware's settings for out-of-order placement (see
/// [`check_reassembly_fits`]): placement on (header-alignment detection as `cfg` has it), the
/// 64 KiB window, `records` at most the table's.
pub fn hardware_placement(cfg: &ReceiverConfig) -> ReceiverConfig {
    use hdl::place::reassembly::{MIN_RING_OCTETS, RECORD_ENTRIES};
    let mut c = cfg.clone();
    c.place_out_of_order = true;
    c.reassembly_window = MIN_RING_OCTETS as u64;
    c.records = c.records.min(RECORD_ENTRIES as u32 + 1);
    c.reassembly_octets = c.reassembly_octets.min(c.in_order_reserve() + u32::MAX as u64);
    c
}

/// Where every region and posted buffer lives in the simulated memory.
#[derive(Clone, Debug)]
pub struct MemLayout {
    /// Target, address of its first octet, length.
    pub targets: Vec<(Target, u64, u64)>,
}

impl MemLayout {
    /// Regions then buffers, each at a fresh address above 4 GiB with a random misalignment
    /// (0..63 octets) and a random gap, so that payloads land at every lane and bursts cross
    /// 4 KiB boundaries.
    pub fn new(cfg: &ReceiverConfig, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut next = 0x0000_0001_0000_0000u64;
        let mut targets = Vec::new();
        let mut place = |t: Target, len: u64, rng: &mut ChaCha8Rng| {
            let addr = next + rng.gen_range(0..64u64);
            next = (addr + len + rng.gen_range(0..512u64) + 63) & !63;
            targets.push((t, addr, len));
        };
        for r in &cfg.regions {
            place(Target::Region(r.stag), r.len, &mut rng);
        }
        for p in &cfg.posted {
            place(Target::Buffer { qn: p.qn, msn: p.msn }, p.len, &mut rng);
        }
        MemLayout { targets }
    }

    /// The address of `t`.
    pub fn addr(&self, t: Target) -> Option<u64> {
        self.targets.iter().find(|x| x.0 == t).map(|x| x.1)
    }

    /// The target whose range holds `addr`.
    fn find(&self, addr: u64) -> Option<usize> {
        self.targets.iter().position(|&(_, a, l)| addr >= a && addr < a + l.max(1))
    }
}

/// A byte-addressed memory, 4 KiB pages allocated on first write (reads of unwritten octets
/// are 0).
#[derive(Default)]
pub struct SparseMemory {
    pages: HashMap<u64, Box<[u8; 4096]>>,
}

impl SparseMemory {
    /// Writes one octet.
    pub fn write(&mut self, addr: u64, v: u8) {
        let page = self.pages.entry(addr >> 12).or_insert_with(|| Box::new([0; 4096]));
        page[(addr & 4095) as usize] = v;
    }

    /// Reads `len` octets.
    pub fn read(&self, addr: u64, len: u64) -> Vec<u8> {
        (0..len)
            .map(|i| {
                let a = addr.wrapping_add(i);
                self.pages.get(&(a >> 12)).map_or(0, |p| p[(a & 4095) as usize])
            })
            .collect()
    }
}

/// An AXI4-Lite transaction for [`AxilMaster`].
#[derive(Clone, Copy, Debug)]
pub struct AxilOp {
    /// Register address.
    pub addr: u64,
    /// `Some(value)` for a write, `None` for a read.
    pub data: Option<u32>,
    /// Write strobes (0xF for a whole register).
    pub strb: u64,
    /// The response this transaction must get (0 OKAY, 2 SLVERR); another fails the run.
    pub expect_resp: u64,
}

impl AxilOp {
    /// A whole-register write that must succeed.
    pub fn write(addr: u64, data: u32) -> Self {
        AxilOp { addr, data: Some(data), strb: 0xF, expect_resp: 0 }
    }
    /// A read that must succeed.
    pub fn read(addr: u64) -> Self {
        AxilOp { addr, data: None, strb: 0, expect_resp: 0 }
    }
}

/// Port indices of an AXI4-Lite slave: each field is the index of the port `<prefix>_<field>`.
#[derive(Clone, Copy, Debug)]
pub struct AxilPorts {
    pub awaddr: usize,
    pub awvalid: usize,
    pub awready: usize,
    pub wdata: usize,
    pub wstrb: usize,
    pub wvalid: usize,
    pub wready: usize,
    pub bresp: usize,
    pub bvalid: usize,
    pub bready: usize,
    pub araddr: usize,
    pub arvalid: usize,
    pub arready: usize,
    pub rdata: usize,
    pub rresp: usize,
    pub rvalid: usize,
    pub rready: usize,
}

impl AxilPorts {
    /// The ports of the slave called `p` (`s_axil`).
    pub fn find(sim: &dyn CycleSim, p: &str) -> Result<Self, String> {
        let f = |n: &str| sim.port(&format!("{p}_{n}"));
        Ok(AxilPorts {
            awaddr: f("awaddr")?,
            awvalid: f("awvalid")?,
            awready: f("awready")?,
            wdata: f("wdata")?,
            wstrb: f("wstrb")?,
            wvalid: f("wvalid")?,
            wready: f("wready")?,
            bresp: f("bresp")?,
            bvalid: f("bvalid")?,
            bready: f("bready")?,
            araddr: f("araddr")?,
            arvalid: f("arvalid")?,
            arready: f("arready")?,
            rdata: f("rdata")?,
            rresp: f("rresp")?,
            rvalid: f("rvalid")?,
            rready: f("rready")?,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AxilPhase {
    Idle,
    Addr,
    Resp,
}

/// A cycle-level AXI4-Lite master: transactions one at a time from a queue, every response
/// checked against what the transaction expects.
pub struct AxilMaster {
    ports: AxilPorts,
    queue: VecDeque<AxilOp>,
    cur: Option<AxilOp>,
    phase: AxilPhase,
    /// When the master takes a response (`bready`, `rready`).
    resp_ready: PatternGen,
    /// Values read, in order.
    pub reads: VecDeque<(u64, u32)>,
    /// Transactions completed.
    pub done: u64,
    /// Cycles any transaction waited for an address handshake or a response.
    pub busy_cycles: u64,
}

impl AxilMaster {
    /// A master on the AXI4-Lite slave `prefix` (`s_axil`), taking responses when
    /// `resp_ready` says.
    pub fn new(sim: &dyn CycleSim, prefix: &str, resp_ready: Pattern) -> Result<Self, String> {
        Ok(AxilMaster {
            ports: AxilPorts::find(sim, prefix)?,
            queue: VecDeque::new(),
            cur: None,
            phase: AxilPhase::Idle,
            resp_ready: PatternGen::new(resp_ready),
            reads: VecDeque::new(),
            done: 0,
            busy_cycles: 0,
        })
    }

    /// Queues a transaction.
    pub fn push(&mut self, op: AxilOp) {
        self.queue.push_back(op);
    }

    /// Nothing queued or in flight.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.cur.is_none()
    }

    /// Every transaction has been handed to the slave (only responses may be outstanding).
    pub fn all_issued(&self) -> bool {
        self.queue.is_empty() && (self.cur.is_none() || self.phase == AxilPhase::Resp)
    }

    /// Drives this cycle's AXI4-Lite inputs (before `eval`).
    pub fn drive(&mut self, sim: &mut dyn CycleSim) {
        let p = self.ports;
        if self.cur.is_none() {
            if let Some(op) = self.queue.pop_front() {
                self.cur = Some(op);
                self.phase = AxilPhase::Addr;
            }
        }
        let (mut awv, mut wv, mut arv, mut bready, mut rready) = (0, 0, 0, 0, 0);
        let take = self.resp_ready.next_on() as u64;
        if let Some(op) = self.cur {
            self.busy_cycles += 1;
            match (self.phase, op.data) {
                (AxilPhase::Addr, Some(d)) => {
                    sim.set_u64(p.awaddr, op.addr);
                    sim.set_u64(p.wdata, d as u64);
                    sim.set_u64(p.wstrb, op.strb);
                    awv = 1;
                    wv = 1;
                }
                (AxilPhase::Addr, None) => {
                    sim.set_u64(p.araddr, op.addr);
                    arv = 1;
                }
                (AxilPhase::Resp, Some(_)) => bready = take,
                (AxilPhase::Resp, None) => rready = take,
                _ => {}
            }
        }
        sim.set_u64(p.awvalid, awv);
        sim.set_u64(p.wvalid, wv);
        sim.set_u64(p.arvalid, arv);
        sim.set_u64(p.bready, bready);
        sim.set_u64(p.rready, rready);
    }

    /// Samples this cycle's handshakes (after `eval`, before `tick`); an unexpected response
    /// is an error.
    pub fn sample(&mut self, sim: &mut dyn CycleSim) -> Result<(), String> {
        let p = self.ports;
        let Some(op) = self.cur else { return Ok(()) };
        match (self.phase, op.data) {
            (AxilPhase::Addr, Some(_)) => {
                let aw = sim.get_u64(p.awready) & 1 != 0;
                let w = sim.get_u64(p.wready) & 1 != 0;
                if aw != w {
                    return Err(format!(
                        "AXI4-Lite write to {:#x}: awready {aw} and wready {w} differ (the slave \
                         takes both together)",
                        op.addr
                    ));
                }
                if aw {
                    self.phase = AxilPhase::Resp;
                }
            }
            (AxilPhase::Addr, None) => {
                if sim.get_u64(p.arready) & 1 != 0 {
                    self.phase = AxilPhase::Resp;
                }
            }
            (AxilPhase::Resp, Some(_)) => {
                if sim.get_u64(p.bvalid) & 1 != 0 && sim.get_u64(p.bready) & 1 != 0 {
                    let resp = sim.get_u64(p.bresp);
                    if resp != op.expect_resp {
                        return Err(format!(
                            "AXI4-Lite write of {:#x} to {:#x}: response {resp}, expected {}",
                            op.data.unwrap_or(0),
                            op.addr,
                            op.expect_resp
                        ));
                    }
                    self.cur = None;
                    self.phase = AxilPhase::Idle;
                    self.done += 1;
                }
            }
            (AxilPhase::Resp, None) => {
                if sim.get_u64(p.rvalid) & 1 != 0 && sim.get_u64(p.rready) & 1 != 0 {
                    let resp = sim.get_u64(p.rresp);
                    if resp != op.expect_resp {
                        return Err(format!(
                            "AXI4-Lite read of {:#x}: response {resp}, expected {}",
                            op.addr, op.expect_resp
                        ));
                    }
                    self.reads.push_back((op.addr, sim.get_u64(p.rdata) as u32));
                    self.cur = None;
                    self.phase = AxilPhase::Idle;
                    self.done += 1;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Runs AXI4-Lite transactions one after the other on `sim` (nothing else driven but idle
/// streams), each checked against its expected response; returns the values read.
pub fn axil_run(sim: &mut dyn CycleSim, ops: &[AxilOp]) -> Result<Vec<(u64, u32)>, String> {
    let mut m = AxilMaster::new(sim, "s_axil", Pattern::Always)?;
    for op in ops {
        m.push(*op);
    }
    let s = StreamPorts::find(sim, "s_axis")?;
    sim.set_u64(s.valid, 0);
    let mut guard = 0u64;
    while !m.idle() {
        m.drive(sim);
        sim.eval();
        m.sample(sim)?;
        sim.tick();
        guard += 1;
        if guard > 100 + 50 * ops.len() as u64 {
            return Err(format!("AXI4-Lite: {} of {} transactions done", m.done, ops.len()));
        }
    }
    Ok(m.reads.into_iter().collect())
}

/// The register writes that register one region (STAG_CMD = 1).
pub fn register_region_ops(
    stag: u32,
    base: u64,
    len: u64,
    addr: u64,
    pd: u32,
    flags: u32,
) -> Vec<AxilOp> {
    vec![
        AxilOp::write(reg::STAG, stag),
        AxilOp::write(reg::STAG_BASE_LO, base as u32),
        AxilOp::write(reg::STAG_BASE_HI, (base >> 32) as u32),
        AxilOp::write(reg::STAG_LEN_LO, len as u32),
        AxilOp::write(reg::STAG_LEN_HI, (len >> 32) as u32),
        AxilOp::write(reg::STAG_ADDR_LO, addr as u32),
        AxilOp::write(reg::STAG_ADDR_HI, (addr >> 32) as u32),
        AxilOp::write(reg::STAG_PD, pd),
        AxilOp::write(reg::STAG_FLAGS, flags),
        AxilOp::write(reg::STAG_CMD, reg::CMD_STAG_WRITE),
    ]
}

/// The register writes that post one buffer (POST_CMD = 1).
pub fn post_buffer_ops(qn: u32, msn: u32, addr: u64, len: u32) -> Vec<AxilOp> {
    vec![
        AxilOp::write(reg::POST_QN, qn),
        AxilOp::write(reg::POST_MSN, msn),
        AxilOp::write(reg::POST_ADDR_LO, addr as u32),
        AxilOp::write(reg::POST_ADDR_HI, (addr >> 32) as u32),
        AxilOp::write(reg::POST_LEN, len),
        AxilOp::write(reg::POST_CMD, reg::CMD_POST),
    ]
}

/// The in-order byte stream TCP hands over, as `s_axis` packets: the segments sorted by
/// sequence number from `origin`, every octet once (overlaps and duplicates trimmed, octets
/// before `origin` dropped), FIN on the packet that carries the last octet. A gap (octets never
/// sent) is left as it is: the segments after it are out of sequence and `mpa_rx` drops them,
/// as in-order processing stops there.
pub fn in_order_packets(segments: &[TcpSegment], origin: u32) -> Vec<crate::packet::InPacket> {
    let mut out: Vec<crate::packet::InPacket> = Vec::new();
    let mut edge = 0u64;
    let mut fin_sent = false;
    for i in crate::traffic::in_order_indices(segments, origin) {
        let s = &segments[i];
        let start = s.seq.wrapping_sub(origin) as i32 as i64;
        let end = start + s.payload.len() as i64;
        if end < edge as i64 || fin_sent {
            continue;
        }
        let from = (edge as i64 - start).max(0) as usize;
        let from = from.min(s.payload.len());
        let payload = s.payload[from..].to_vec();
        let first = (start + from as i64).max(0) as u64;
        if payload.is_empty() && !s.fin {
            continue;
        }
        let seq = origin.wrapping_add(first as u32);
        out.push(crate::packet::InPacket {
            data: payload.clone(),
            user: RxSegmentUser { seq: seq as u64, fin: s.fin }.pack(),
        });
        edge = edge.max(first + payload.len() as u64);
        fin_sent |= s.fin;
    }
    out
}

/// Options of [`run_rnic`].
#[derive(Clone, Debug)]
pub struct RnicRunOptions {
    /// When TCP may offer a beat.
    pub idle: Pattern,
    /// When the record consumer is ready.
    pub evt_ready: Pattern,
    /// When the register driver takes a write or read response.
    pub axil_ready: Pattern,
    /// When the memory takes an address.
    pub aw_ready: Pattern,
    /// When the memory takes a data beat.
    pub w_ready: Pattern,
    /// Each write response comes 0..=this many cycles after its burst's last beat.
    pub b_delay_max: u64,
    /// The burst (counted from 0) whose response is SLVERR (its data is not stored).
    pub fail_burst: Option<u64>,
    /// Seed of the memory layout and the response delays.
    pub seed: u64,
    /// Quiet cycles that end the run once everything was sent.
    pub drain: u64,
    /// Cycles allowed per input beat (timeout), plus a fixed 20,000.
    pub cycles_per_beat: u64,
    /// Start without `rst`: clear CTRL.enable first (the connection resets once quiet; the
    /// tables keep their entries, which the new settings overwrite where the configuration has
    /// them), then load the configuration and enable.
    pub soft_start: bool,
    /// Offer the segments as given (any order, each with its own sequence number and FIN), one
    /// at a time: the next once the previous one's verdict came and the receiver has been quiet
    /// for `arrival_settle` cycles, so that every verdict sees the state the segments before it
    /// left (a golden receiver's view). Off: the segments in sequence order, trimmed as an
    /// in-order TCP hands them over ([`in_order_packets`]), back to back.
    pub arrival: bool,
    /// Quiet cycles between offers in `arrival` mode.
    pub arrival_settle: u64,
    /// In `arrival` mode, offer the segments back to back, as TCP hands them over, without
    /// waiting for verdicts or quiet periods. The verdicts are then the same as long as nothing
    /// stops the connection: `rnic_rx` decides the segments one after the other from its own
    /// reassembly state, which it updates in order, but an error or a Terminate reaches it some
    /// cycles after the segment that caused it, and a segment offered in between is judged as
    /// if the connection still ran. Use it only for streams without an error or a Terminate
    /// (the campaign checks that on the golden receiver first).
    pub arrival_quick: bool,
    /// Every this many cycles (0: never) while input beats are still to be offered, read a
    /// registered region's STag entry back through the register port (STAG_CMD = read, then
    /// its base, length, address and PD) and check it: the command's read takes the STag
    /// table's read port from the datapath's lookups for a cycle (`TableRam`'s `lk_busy`).
    pub stag_reads: u64,
}

impl Default for RnicRunOptions {
    fn default() -> Self {
        RnicRunOptions {
            idle: Pattern::Always,
            evt_ready: Pattern::Always,
            axil_ready: Pattern::Always,
            aw_ready: Pattern::Always,
            w_ready: Pattern::Always,
            b_delay_max: 0,
            fail_burst: None,
            seed: 1,
            drain: 300,
            cycles_per_beat: 60,
            soft_start: false,
            arrival: false,
            arrival_settle: 80,
            arrival_quick: false,
            stag_reads: 0,
        }
    }
}

impl RnicRunOptions {
    /// Random idle cycles, backpressure on the records, on AW and W and on the register
    /// responses, slow write responses.
    pub fn busy(seed: u64) -> Self {
        RnicRunOptions {
            idle: Pattern::Random { p: 0.7, seed: seed ^ 0x1 },
            evt_ready: Pattern::Random { p: 0.5, seed: seed ^ 0x2 },
            axil_ready: Pattern::Random { p: 0.5, seed: seed ^ 0x5 },
            aw_ready: Pattern::Random { p: 0.6, seed: seed ^ 0x3 },
            w_ready: Pattern::Random { p: 0.7, seed: seed ^ 0x4 },
            b_delay_max: 40,
            seed,
            ..Default::default()
        }
    }
}

/// Counts and times of a run.
#[derive(Clone, Debug, Default)]
pub struct RnicStats {
    /// Cycles from the first input beat offered to the end.
    pub cycles: u64,
    /// Input beats.
    pub beats_in: u64,
    /// AW bursts.
    pub bursts: u64,
    /// W beats.
    pub w_beats: u64,
    /// Octets written (strobed).
    pub octets_written: u64,
    /// Cycle of each input packet's last beat.
    pub in_last_cycles: Vec<u64>,
    /// Cycle of every W beat.
    pub w_cycles: Vec<u64>,
    /// Cycle of the first and last input beat.
    pub first_in: u64,
    /// See `first_in`.
    pub last_in: u64,
    /// Cycle of each record.
    pub record_cycles: Vec<u64>,
    /// Cycles the AXI4-Lite driver spent before enabling the connection.
    pub setup_cycles: u64,
    /// STag read-backs checked during traffic (`RnicRunOptions::stag_reads`), registers read.
    pub stag_reads_checked: u64,
    /// Every burst: its address, beats, the target it started in, the cycle of its AW.
    pub bursts_log: Vec<(u64, u64, Target, u64)>,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RnicRun {
    /// The records, as the golden receiver's events (an error's reason is "hardware").
    pub events: Vec<Event>,
    /// The records as they came out.
    pub records: Vec<Vec<u8>>,
    /// The memory of every region and posted buffer.
    pub memory: Vec<(Target, Vec<u8>)>,
    /// Counts and times.
    pub stats: RnicStats,
    /// The registers read at the end: STATUS, ERR_CODE, ERR_SEQ, CNT_FPDUS, CNT_PLACED_LO,
    /// CNT_RECORDS, CNT_BURSTS, CNT_RESPONSES, CNT_WRITE_ERRORS, QN0_MSN, CNT_REFUSED,
    /// REASM_HELD, REASM_RUNS, REASM_PEAK, REASM_LOCATED, REASM_LOCATED_OCTETS, REASM_PLACED,
    /// REASM_PLACED_OCTETS.
    pub final_regs: BTreeMap<u64, u32>,
    /// Every verdict, in order: the segment's sequence number and whether it was accepted.
    pub verdicts: Vec<(u32, bool)>,
}

/// A record as a golden event.
pub fn record_event(r: &[u8]) -> Result<Event, String> {
    let u32_at = |o: usize| u32::from_le_bytes(r[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(r[o..o + 8].try_into().unwrap());
    let seq = u32_at(record::SEQ);
    let flags = r[record::FLAGS];
    Ok(Event::Deliver(match r[record::KIND] {
        record::KIND_SEND => Delivery::Send {
            qn: u32_at(record::QN),
            msn: u32_at(record::MSN),
            len: u64_at(record::LEN),
            se: flags & record::FLAG_SE != 0,
            invalidate: (flags & record::FLAG_INVALIDATE != 0).then(|| u32_at(record::INV_STAG)),
            seq,
        },
        record::KIND_WRITE => Delivery::Write {
            stag: u32_at(record::STAG),
            to: u64_at(record::TO),
            len: u64_at(record::LEN),
            seq,
        },
        record::KIND_READ_RESPONSE => Delivery::ReadResponse {
            stag: u32_at(record::STAG),
            to: u64_at(record::TO),
            len: u64_at(record::LEN),
            seq,
        },
        record::KIND_READ_REQUEST => Delivery::ReadRequest {
            msn: u32_at(record::MSN),
            sink_stag: u32_at(record::SINK_STAG),
            sink_to: u64_at(record::SINK_TO),
            size: u32_at(record::SIZE),
            source_stag: u32_at(record::SOURCE_STAG),
            source_to: u64_at(record::SOURCE_TO),
            seq,
        },
        record::KIND_TERMINATE => Delivery::Terminate {
            msn: u32_at(record::MSN),
            layer: r[record::LAYER],
            etype: r[record::LAYER + 1],
            code: r[record::LAYER + 2],
            len: u64_at(record::LEN),
            seq,
        },
        record::KIND_ERROR => {
            return Ok(Event::Error(ReceiveError {
                code: TerminateCode {
                    layer: r[record::LAYER],
                    etype: r[record::LAYER + 1],
                    code: r[record::LAYER + 2],
                },
                seq,
                reason: if flags & record::FLAG_LOCAL != 0 {
                    "hardware: a memory write failed".into()
                } else {
                    "hardware".into()
                },
            }))
        }
        k => return Err(format!("record of unknown kind {k}: {r:02x?}")),
    }))
}

/// One burst as the memory model tracks it.
struct Burst {
    addr: u64,
    beats: u64,
    seen: u64,
    target: usize,
    index: u64,
    lo: u64,
    hi: u64,
}

/// The octets a burst whose response has not been given may still change: its strobed octets
/// once its beats are in, the whole of its beats (inside its target) before.
struct Unanswered {
    index: u64,
    lo: u64,
    hi: u64,
}

/// The AXI4 write slave and its checks.
struct AxiMemory {
    width: usize,
    layout: MemLayout,
    mem: SparseMemory,
    bursts: VecDeque<Burst>,
    pending_w: VecDeque<(Vec<u8>, u64, bool)>,
    unanswered: VecDeque<Unanswered>,
    responses: VecDeque<(u64, u64)>,
    presenting_b: bool,
    aw_ready: PatternGen,
    w_ready: PatternGen,
    aw_on: bool,
    w_on: bool,
    rng: ChaCha8Rng,
    b_delay_max: u64,
    fail_burst: Option<u64>,
    issued: u64,
    words: Vec<u64>,
}

/// Port indices of the AXI4 write channels.
#[derive(Clone, Copy)]
struct AxiPorts {
    awaddr: usize,
    awlen: usize,
    awsize: usize,
    awburst: usize,
    awvalid: usize,
    awready: usize,
    wdata: usize,
    wstrb: usize,
    wlast: usize,
    wvalid: usize,
    wready: usize,
    bresp: usize,
    bvalid: usize,
    bready: usize,
}

/// Which regions and buffers the peer may write now.
struct Shadow {
    allowed: Vec<bool>,
}

impl AxiMemory {
    fn check_burst(&self, b: &Burst, strb: u64, data: &[u8]) -> Result<Vec<(u64, u8)>, String> {
        let w = self.width as u64;
        let beat_addr = (b.addr & !(w - 1)) + b.seen * w;
        let (t, start, len) = self.layout.targets[b.target];
        let mut out = Vec::new();
        for lane in 0..w {
            if strb >> lane & 1 == 0 {
                continue;
            }
            let a = beat_addr + lane;
            if a < b.addr && b.seen == 0 {
                return Err(format!(
                    "burst {} at {:#x}: octet {a:#x} strobed before the burst's address",
                    b.index, b.addr
                ));
            }
            if a < start || a >= start + len {
                return Err(format!(
                    "burst {} at {:#x}: octet {a:#x} is outside {t:?} [{start:#x}, {:#x}) that \
                     the burst started in",
                    b.index,
                    b.addr,
                    start + len
                ));
            }
            out.push((a, data[lane as usize]));
        }
        Ok(out)
    }
}

/// Resets `rnic_rx`, loads `cfg` through the register port, sends `segments` (in sequence
/// order; see [`in_order_packets`]) and collects records and memory; see the module
/// documentation for what is checked on the way.
pub fn run_rnic(
    sim: &mut dyn CycleSim,
    cfg: &ReceiverConfig,
    segments: &[TcpSegment],
    opts: &RnicRunOptions,
) -> Result<RnicRun, String> {
    let s = StreamPorts::find(sim, "s_axis")?;
    let width = s.width;
    check_fits(cfg, width)?;
    let evt = StreamPorts::find(sim, "m_axis_evt")?;
    let f = |n: &str| sim.port(&format!("m_axi_{n}"));
    let ap = AxiPorts {
        awaddr: f("awaddr")?,
        awlen: f("awlen")?,
        awsize: f("awsize")?,
        awburst: f("awburst")?,
        awvalid: f("awvalid")?,
        awready: f("awready")?,
        wdata: f("wdata")?,
        wstrb: f("wstrb")?,
        wlast: f("wlast")?,
        wvalid: f("wvalid")?,
        wready: f("wready")?,
        bresp: f("bresp")?,
        bvalid: f("bvalid")?,
        bready: f("bready")?,
    };
    let layout = MemLayout::new(cfg, opts.seed);
    let mut axil = AxilMaster::new(sim, "s_axil", opts.axil_ready.clone())?;
    let mut mem = AxiMemory {
        width,
        layout: layout.clone(),
        mem: SparseMemory::default(),
        bursts: VecDeque::new(),
        pending_w: VecDeque::new(),
        unanswered: VecDeque::new(),
        responses: VecDeque::new(),
        presenting_b: false,
        aw_ready: PatternGen::new(opts.aw_ready.clone()),
        w_ready: PatternGen::new(opts.w_ready.clone()),
        aw_on: false,
        w_on: false,
        rng: ChaCha8Rng::seed_from_u64(opts.seed ^ 0xB0B),
        b_delay_max: opts.b_delay_max,
        fail_burst: opts.fail_burst,
        issued: 0,
        words: vec![0; words_for(8 * width)],
    };
    // What the peer may write: regions valid, of the stream's PD, with remote write; buffers
    // once posted, until delivered.
    let mut shadow = Shadow { allowed: vec![false; layout.targets.len()] };
    for (i, (t, _, _)) in layout.targets.iter().enumerate() {
        if let Target::Region(stag) = t {
            let r = cfg.regions.iter().find(|r| r.stag == *stag).expect("region");
            shadow.allowed[i] = r.valid && r.write && r.pd == cfg.pd;
        }
    }
    let target_index = |t: Target| layout.targets.iter().position(|x| x.0 == t);

    // Settings, regions, the first buffers of every queue, then enable.
    if opts.soft_start {
        axil.push(AxilOp::write(reg::CTRL, reg::CTRL_CRC));
    }
    let ctrl = reg::CTRL_ENABLE
        | if cfg.markers { reg::CTRL_MARKERS } else { 0 }
        | if cfg.crc { reg::CTRL_CRC } else { 0 }
        | if cfg.version == golden::receiver::VersionName::Rdmac { reg::CTRL_RDMAC } else { 0 }
        | if cfg.place_out_of_order { reg::CTRL_PLACE_OOO } else { 0 }
        | if cfg.place_out_of_order && cfg.aligned_detect { reg::CTRL_ALIGNED } else { 0 };
    for op in [
        AxilOp::write(reg::ORIGIN, cfg.origin),
        AxilOp::write(reg::MAX_ULPDU, cfg.max_ulpdu),
        AxilOp::write(reg::PD, cfg.pd),
        AxilOp::write(reg::MSN_WINDOW, cfg.msn_window),
        AxilOp::write(reg::FIRST_MSN, cfg.first_msn),
    ] {
        axil.push(op);
    }
    for r in &cfg.regions {
        let addr = layout.addr(Target::Region(r.stag)).expect("laid out");
        let flags = r.valid as u32 | (r.write as u32) << 1 | (r.read as u32) << 2;
        for op in register_region_ops(r.stag, r.base, r.len, addr, r.pd, flags) {
            axil.push(op);
        }
    }
    let mut base: [u32; 3] = [cfg.first_msn; 3];
    let mut posted = vec![false; cfg.posted.len()];
    let post_window =
        |axil: &mut AxilMaster, posted: &mut Vec<bool>, shadow: &mut Shadow, qn: u32, base: u32| {
            for (k, p) in cfg.posted.iter().enumerate() {
                if p.qn == qn && !posted[k] && p.msn.wrapping_sub(base) < POSTED_PER_QUEUE as u32 {
                    let t = Target::Buffer { qn: p.qn, msn: p.msn };
                    let addr = layout.addr(t).expect("laid out");
                    let len = u32::try_from(p.len).unwrap_or(u32::MAX);
                    for op in post_buffer_ops(p.qn, p.msn, addr, len) {
                        axil.push(op);
                    }
                    posted[k] = true;
                    if let Some(i) = target_index(t) {
                        shadow.allowed[i] = true;
                    }
                }
            }
        };
    for qn in 0..3 {
        post_window(&mut axil, &mut posted, &mut shadow, qn, base[qn as usize]);
    }
    let budget_octets = cfg.reassembly_octets.saturating_sub(cfg.in_order_reserve());
    axil.push(AxilOp::write(reg::REASM_BUDGET, u32::try_from(budget_octets).unwrap_or(u32::MAX)));
    axil.push(AxilOp::write(reg::REASM_RECORDS, cfg.records.saturating_sub(1).min(255)));
    axil.push(AxilOp::write(reg::CTRL, ctrl));

    let packets = if opts.arrival {
        segments
            .iter()
            .map(|x| crate::packet::InPacket {
                data: x.payload.clone(),
                user: RxSegmentUser { seq: x.seq as u64, fin: x.fin }.pack(),
            })
            .collect()
    } else {
        in_order_packets(segments, cfg.origin)
    };
    let per_packet: Vec<Vec<crate::stream::Beat>> = packets
        .iter()
        .map(|p| crate::packet::packet_beats(std::slice::from_ref(p), width, 0xA5))
        .collect();
    let total_in: u64 = per_packet.iter().map(|b| b.len() as u64).sum();
    let mut waiting: VecDeque<Vec<crate::stream::Beat>> = per_packet.into_iter().collect();
    let mut src = StreamDriver::new(s, opts.idle.clone());
    let mut offered = 0usize;
    if !opts.arrival || opts.arrival_quick {
        while let Some(b) = waiting.pop_front() {
            src.push(b);
            offered += 1;
        }
    }
    let (vrd_valid, vrd_accept, vrd_seq) =
        (sim.port("vrd_valid")?, sim.port("vrd_accept")?, sim.port("vrd_seq")?);
    let mut verdicts: Vec<(u32, bool)> = Vec::new();
    // The longest the receiver may work without a visible transfer: an FPDU held out of order
    // is read back into mpa_rx, which releases nothing before its CRC (its largest FPDU in
    // beats), then the pipeline and a delayed write response.
    let gap = (cfg.max_ulpdu as u64 + 64) / width as u64 + 200 + opts.b_delay_max;
    // With out-of-order placement, the in-order path reads placed FPDUs back and writes
    // nothing of them: a long Write's placed FPDUs pass without a visible transfer before its
    // message's record. So the run ends only when CNT_FPDUS, read after each quiet gap (one
    // FPDU takes less), has not moved since the last read.
    let probe_progress = opts.arrival && cfg.place_out_of_order;
    let (mut probing, mut last_fpdus) = (false, None);
    let mut settled = 0u64;
    let mut snk = ReadyDriver::new(evt, opts.evt_ready.clone());
    let mut mon_s = HandshakeMonitor::new("s_axis", s);
    let mut mon_e = HandshakeMonitor::new("m_axis_evt", evt);
    sim.set_u64(s.valid, 0);
    sim.set_u64(evt.ready, 0);
    sim.set_u64(ap.awready, 0);
    sim.set_u64(ap.wready, 0);
    sim.set_u64(ap.bvalid, 0);
    sim.set_u64(ap.bresp, 0);
    if !opts.soft_start {
        sim.reset(2)?;
    }
    let start = sim.cycles();
    let mut stats = RnicStats::default();
    let mut records: Vec<Vec<u8>> = Vec::new();
    let mut events = Vec::new();
    let mut quiet = 0u64;
    let mut finished = false;
    let mut enabled = false;
    let budget = 20_000
        + opts.cycles_per_beat * total_in
        + if opts.arrival { (opts.arrival_settle + 200) * packets.len() as u64 } else { 0 };
    let w = width as u64;
    let mut stag_read_want: Option<(u32, [u32; 4])> = None;
    let mut stag_read_next = 0usize;
    let mut stag_reads_checked = 0u64;
    loop {
        let now = sim.cycles();
        // ---- In arrival mode, the next segment once the last one is answered and settled. --
        if opts.arrival
            && enabled
            && src.pending() == 0
            && verdicts.len() == offered
            && settled > opts.arrival_settle.max(gap)
        {
            if let Some(b) = waiting.pop_front() {
                src.push(b);
                offered += 1;
                settled = 0;
            }
        }
        // ---- Drive (after rst, TCP offers beats from the start: none may be taken before
        // enable; after a soft start, the old connection is still enabled until CTRL is
        // written, so TCP waits). ----
        if enabled || !opts.soft_start {
            src.drive(sim);
        } else {
            sim.set_u64(s.valid, 0);
        }
        snk.drive(sim);
        axil.drive(sim);
        mem.aw_on = mem.aw_ready.next_on();
        mem.w_on = mem.w_ready.next_on();
        sim.set_u64(ap.awready, mem.aw_on as u64);
        sim.set_u64(ap.wready, mem.w_on as u64);
        if !mem.presenting_b {
            if let Some(&(due, resp)) = mem.responses.front() {
                if due <= now {
                    mem.presenting_b = true;
                    sim.set_u64(ap.bresp, resp);
                }
            }
        }
        sim.set_u64(ap.bvalid, mem.presenting_b as u64);
        sim.eval();

        // ---- Sample. ----
        if sim.get_u64(vrd_valid) & 1 != 0 {
            let seq = sim.get_u64(vrd_seq) as u32;
            let k = verdicts.len();
            if opts.arrival && segments.get(k).map(|x| x.seq) != Some(seq) {
                return Err(format!("cycle {now}: verdict {k} for sequence number {seq:#x}"));
            }
            verdicts.push((seq, sim.get_u64(vrd_accept) & 1 != 0));
        }
        mon_s.sample(sim, false);
        mon_e.sample(sim, false);
        let sent_before = src.sent;
        src.sample(sim);
        if src.sent > sent_before {
            if !enabled {
                return Err(format!("cycle {now}: s_axis took a beat before CTRL.enable"));
            }
            if stats.beats_in == 0 {
                stats.first_in = now;
            }
            stats.beats_in += 1;
            stats.last_in = now;
            quiet = 0;
        }
        axil.sample(sim)?;
        // ---- STag read-backs during traffic (`stag_reads`): each one's values checked. ----
        while let Some(&(a, v)) = axil.reads.front() {
            let k = match a {
                reg::STAG_BASE_LO => 0,
                reg::STAG_LEN_LO => 1,
                reg::STAG_ADDR_LO => 2,
                reg::STAG_PD => 3,
                _ => break,
            };
            axil.reads.pop_front();
            let Some((stag, want)) = &stag_read_want else {
                return Err(format!("cycle {now}: an STag register read nobody asked for"));
            };
            if v != want[k] {
                return Err(format!(
                    "cycle {now}: STag {stag:#x} read back during traffic: register {a:#x} is \
                     {v:#x}, registered {:#x}",
                    want[k]
                ));
            }
            stag_reads_checked += 1;
        }
        if opts.stag_reads > 0
            && enabled
            && src.pending() > 0
            && axil.idle()
            && now % opts.stag_reads == 0
            && !cfg.regions.is_empty()
        {
            let r = &cfg.regions[stag_read_next % cfg.regions.len()];
            stag_read_next += 1;
            let addr = layout.addr(Target::Region(r.stag)).expect("laid out");
            stag_read_want = Some((r.stag, [r.base as u32, r.len as u32, addr as u32, r.pd]));
            axil.push(AxilOp::write(reg::STAG, r.stag));
            axil.push(AxilOp::write(reg::STAG_CMD, reg::CMD_STAG_READ));
            for a in [reg::STAG_BASE_LO, reg::STAG_LEN_LO, reg::STAG_ADDR_LO, reg::STAG_PD] {
                axil.push(AxilOp::read(a));
            }
        }
        if !enabled && axil.all_issued() {
            enabled = true;
            stats.setup_cycles = now - start;
        }
        let nrec = snk.beats.len();
        snk.sample(sim);
        if snk.beats.len() > nrec {
            quiet = 0;
            let (_, b) = snk.beats.last().unwrap();
            if !b.last || b.keep != u64::MAX {
                return Err(format!("cycle {now}: a record beat without tlast or full tkeep"));
            }
            if finished {
                return Err(format!("cycle {now}: a record after the last one (error/Terminate)"));
            }
            let r = b.data.clone();
            if b.user != r[record::KIND] as u64 {
                return Err(format!("cycle {now}: record tuser {} is not its kind", b.user));
            }
            let e = record_event(&r)?;
            // No record before the writes of its message are answered.
            let range = match &e {
                Event::Deliver(Delivery::Send { qn, msn, len, .. }) => {
                    layout.addr(Target::Buffer { qn: *qn, msn: *msn }).map(|a| (a, *len))
                }
                Event::Deliver(Delivery::ReadRequest { msn, .. }) => {
                    layout.addr(Target::Buffer { qn: 1, msn: *msn }).map(|a| (a, 28))
                }
                Event::Deliver(Delivery::Terminate { msn, len, .. }) => {
                    layout.addr(Target::Buffer { qn: 2, msn: *msn }).map(|a| (a, *len))
                }
                Event::Deliver(
                    Delivery::Write { len, .. } | Delivery::ReadResponse { len, .. },
                ) if *len == 0 => {
                    // A zero-length message is not checked against its STag (RFC 5041 7.2):
                    // its TO may lie anywhere, and it writes nothing.
                    None
                }
                Event::Deliver(
                    Delivery::Write { stag, to, len, .. }
                    | Delivery::ReadResponse { stag, to, len, .. },
                ) => {
                    let at = cfg.regions.iter().find(|x| x.stag == *stag).and_then(|x| {
                        let a = layout.addr(Target::Region(*stag))?;
                        a.checked_add(to.checked_sub(x.base)?)
                    });
                    match at {
                        Some(a) => Some((a, *len)),
                        None => {
                            return Err(format!(
                                "cycle {now}: record {e:?} for octets outside every region"
                            ))
                        }
                    }
                }
                Event::Error(_) => None,
            };
            if let Some((a, len)) = range.filter(|(_, len)| *len > 0) {
                let end = a.saturating_add(len);
                if let Some(u) = mem.unanswered.iter().find(|u| u.lo < end && a < u.hi) {
                    return Err(format!(
                        "cycle {now}: record {e:?} before the response of burst {} (octets \
                         {:#x}..{:#x}) that writes its memory",
                        u.index, u.lo, u.hi
                    ));
                }
            }
            // The consumer's view: what the record releases or retires.
            match &e {
                Event::Deliver(Delivery::Send { qn, msn, invalidate, .. }) => {
                    if let Some(stag) = invalidate {
                        if let Some(i) = target_index(Target::Region(*stag)) {
                            shadow.allowed[i] = false;
                        }
                    }
                    if let Some(i) = target_index(Target::Buffer { qn: *qn, msn: *msn }) {
                        shadow.allowed[i] = false;
                    }
                    base[(*qn as usize).min(2)] = msn.wrapping_add(1);
                    post_window(
                        &mut axil,
                        &mut posted,
                        &mut shadow,
                        *qn,
                        base[(*qn as usize).min(2)],
                    );
                }
                Event::Deliver(Delivery::ReadRequest { msn, .. }) => {
                    if let Some(i) = target_index(Target::Buffer { qn: 1, msn: *msn }) {
                        shadow.allowed[i] = false;
                    }
                    base[1] = msn.wrapping_add(1);
                    post_window(&mut axil, &mut posted, &mut shadow, 1, base[1]);
                }
                Event::Deliver(Delivery::Terminate { .. }) | Event::Error(_) => finished = true,
                _ => {}
            }
            stats.record_cycles.push(now);
            events.push(e);
            records.push(r);
        }
        // AW.
        if mem.aw_on && sim.get_u64(ap.awvalid) & 1 != 0 {
            quiet = 0;
            let addr = sim.get_u64(ap.awaddr);
            let len = sim.get_u64(ap.awlen) + 1;
            let size = sim.get_u64(ap.awsize);
            let burst = sim.get_u64(ap.awburst);
            let index = mem.issued;
            mem.issued += 1;
            if size != w.trailing_zeros() as u64 || burst != 1 {
                return Err(format!("burst {index}: AWSIZE {size}, AWBURST {burst} (INCR of W)"));
            }
            let first_beat = addr & !(w - 1);
            if (first_beat & 4095) + len * w > 4096 {
                return Err(format!("burst {index} at {addr:#x}: {len} beats cross 4 KiB"));
            }
            let Some(t) = mem.layout.find(addr) else {
                return Err(format!(
                    "burst {index}: address {addr:#x} is in no region or posted buffer"
                ));
            };
            if !shadow.allowed[t] {
                return Err(format!(
                    "burst {index}: address {addr:#x} is in {:?}, which the peer may not write \
                     now",
                    mem.layout.targets[t].0
                ));
            }
            let (_, t_start, t_len) = mem.layout.targets[t];
            let hi = (first_beat + len * w).min(t_start + t_len);
            mem.unanswered.push_back(Unanswered { index, lo: addr, hi });
            mem.bursts.push_back(Burst {
                addr,
                beats: len,
                seen: 0,
                target: t,
                index,
                lo: u64::MAX,
                hi: 0,
            });
            stats.bursts_log.push((addr, len, mem.layout.targets[t].0, now));
            stats.bursts += 1;
        }
        // W (queued until its burst's address is known).
        if mem.w_on && sim.get_u64(ap.wvalid) & 1 != 0 {
            quiet = 0;
            sim.get(ap.wdata, &mut mem.words);
            let data = crate::bytes_from_words(&mem.words, width);
            let strb = sim.get_u64(ap.wstrb);
            let last = sim.get_u64(ap.wlast) & 1 != 0;
            mem.pending_w.push_back((data, strb, last));
            stats.w_beats += 1;
            stats.w_cycles.push(now);
        }
        while !mem.pending_w.is_empty() {
            let Some(pos) = mem.bursts.iter().position(|b| b.seen < b.beats) else { break };
            let (data, strb, last) = mem.pending_w.pop_front().unwrap();
            let octets = mem.check_burst(&mem.bursts[pos], strb, &data)?;
            let b = &mut mem.bursts[pos];
            b.seen += 1;
            if last != (b.seen == b.beats) {
                return Err(format!(
                    "burst {} at {:#x}: WLAST {last} on beat {} of {}",
                    b.index, b.addr, b.seen, b.beats
                ));
            }
            let fail = mem.fail_burst == Some(b.index);
            let done = b.seen == b.beats;
            if let (Some(f), Some(l)) = (octets.first(), octets.last()) {
                b.lo = b.lo.min(f.0);
                b.hi = b.hi.max(l.0 + 1);
            }
            if done {
                let (index, lo, hi) = (b.index, b.lo, b.hi.max(b.lo));
                if let Some(u) = mem.unanswered.iter_mut().find(|u| u.index == index) {
                    u.lo = lo;
                    u.hi = hi;
                }
            }
            stats.octets_written += octets.len() as u64;
            if !fail {
                for (a, v) in octets {
                    mem.mem.write(a, v);
                }
            }
            if done {
                let d = mem.rng.gen_range(0..=mem.b_delay_max);
                mem.responses.push_back((now + 1 + d, if fail { 2 } else { 0 }));
                mem.bursts.remove(pos);
            }
        }
        // B.
        if mem.presenting_b {
            if sim.get_u64(ap.bready) & 1 == 0 {
                return Err(format!("cycle {now}: bready low (the master keeps it high)"));
            }
            mem.responses.pop_front();
            mem.unanswered.pop_front();
            mem.presenting_b = false;
            quiet = 0;
        }
        sim.tick();
        quiet += 1;
        settled = if quiet > 1 { settled + 1 } else { 0 };
        if src.pending() == 0
            && waiting.is_empty()
            && (!opts.arrival || verdicts.len() == offered)
            && axil.idle()
            && mem.responses.is_empty()
            && mem.pending_w.is_empty()
            && quiet > opts.drain.max(gap)
        {
            if !probe_progress {
                break;
            }
            if !probing {
                axil.push(AxilOp::read(reg::CNT_FPDUS));
                probing = true;
            } else {
                probing = false;
                let now_fpdus = axil.reads.back().map(|r| r.1);
                if now_fpdus == last_fpdus {
                    break;
                }
                last_fpdus = now_fpdus;
                quiet = 0;
            }
        }
        if sim.cycles() - start > budget {
            return Err(format!(
                "timeout after {} cycles: {} of {total_in} input beats sent, {} records, {} \
                 bursts, AXI4-Lite {}",
                sim.cycles() - start,
                src.sent,
                records.len(),
                stats.bursts,
                if axil.idle() { "idle" } else { "busy" }
            ));
        }
    }
    stats.stag_reads_checked = stag_reads_checked;
    let violations: Vec<String> =
        mon_s.violations.iter().chain(&mon_e.violations).cloned().collect();
    if !violations.is_empty() {
        return Err(violations.join("\n"));
    }
    if !mem.bursts.is_empty() {
        return Err(format!("{} bursts never completed", mem.bursts.len()));
    }
    // The registers at the end.
    let regs = [
        reg::STATUS,
        reg::ERR_CODE,
        reg::ERR_SEQ,
        reg::CNT_FPDUS,
        reg::CNT_PLACED_LO,
        reg::CNT_RECORDS,
        reg::CNT_BURSTS,
        reg::CNT_RESPONSES,
        reg::CNT_WRITE_ERRORS,
        reg::QN0_MSN,
        reg::CNT_REFUSED,
        reg::REASM_HELD,
        reg::REASM_RUNS,
        reg::REASM_PEAK,
        reg::REASM_LOCATED,
        reg::REASM_LOCATED_OCTETS,
        reg::REASM_PLACED,
        reg::REASM_PLACED_OCTETS,
    ];
    for a in regs {
        axil.push(AxilOp::read(a));
    }
    let mut guard = 0;
    while !axil.idle() {
        axil.drive(sim);
        sim.set_u64(s.valid, 0);
        sim.eval();
        axil.sample(sim)?;
        sim.tick();
        guard += 1;
        if guard > 1000 {
            return Err("the register reads at the end did not complete".into());
        }
    }
    let final_regs: BTreeMap<u64, u32> = axil.reads.drain(..).collect();
    stats.cycles = sim.cycles() - start;
    stats.in_last_cycles = src.last_cycles.clone();
    let memory = layout.targets.iter().map(|&(t, a, l)| (t, mem.mem.read(a, l))).collect();
    Ok(RnicRun { events, records, memory, stats, final_regs, verdicts })
}

/// A workload for throughput measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// RDMA Writes of 4 KiB, DDP segments of MULPDU (EMSS 1460), one region.
    Writes4K,
    /// Sends of 64 octets, buffers posted before the stream starts.
    Sends64,
}

/// The connection of `workload`: `n` messages, framed (Markers as given, CRC on) and cut into
/// FPDU-aligned TCP segments of at most EMSS 1460.
pub fn workload(kind: Workload, n: usize, markers: bool) -> (ReceiverConfig, Vec<TcpSegment>) {
    use golden::ddp::{DdpSegment, Opcode, ProtocolVersion, TaggedHeader, UntaggedHeader};
    use golden::receiver::{PostedConfig, RegionConfig, VersionName};
    let v = ProtocolVersion::Rfc5040;
    let emss = 1460;
    let mulpdu = golden::mulpdu::mulpdu(emss, markers);
    let (stag, base, pd) = (0x0142u32, 0x1_0000_0000u64, 5u32);
    let mut ulpdus = Vec::new();
    let mut posted = Vec::new();
    for m in 0..n {
        match kind {
            Workload::Writes4K => {
                let data: Vec<u8> = (0..4096).map(|i| (i * 7 + m) as u8).collect();
                let chunk = mulpdu as usize - golden::ddp::TAGGED_HEADER_LEN;
                let pieces = data.len().div_ceil(chunk);
                for (k, c) in data.chunks(chunk).enumerate() {
                    let to = base + (m * 4096 + k * chunk) as u64;
                    let h = TaggedHeader::new(Opcode::RdmaWrite, k + 1 == pieces, stag, to, v);
                    ulpdus.push(DdpSegment::Tagged { header: h, payload: c.to_vec() }.encode());
                }
            }
            Workload::Sends64 => {
                let msn = m as u32 + 1;
                let data: Vec<u8> = (0..64).map(|i| (i * 3 + m) as u8).collect();
                let h = UntaggedHeader::new(Opcode::Send, true, 0, msn, 0, v);
                ulpdus.push(DdpSegment::Untagged { header: h, payload: data }.encode());
                posted.push(PostedConfig { qn: 0, msn, len: 64 });
            }
        }
    }
    let fc = golden::fpdu::FramingConfig { markers, crc: true, offset: 0 };
    let mut f = golden::fpdu::Framer::new(fc).expect("offset 0");
    let fpdus: Vec<(Vec<u8>, bool)> =
        ulpdus.iter().map(|u| (f.frame(u).expect("small ULPDU"), false)).collect();
    let origin = 0x7000_0000u32;
    let seg = golden::segment::segment_fpdus_with_push(&fpdus, emss, origin).expect("EMSS");
    let n_seg = seg.segments.len();
    let segments = seg
        .segments
        .into_iter()
        .enumerate()
        .map(|(i, s)| TcpSegment { seq: s.seq, payload: s.payload, fin: i + 1 == n_seg })
        .collect();
    let cfg = ReceiverConfig {
        markers,
        crc: true,
        origin,
        aligned_detect: true,
        reassembly_octets: 1 << 20,
        reassembly_window: golden::receiver::WINDOW,
        place_out_of_order: true,
        records: 64,
        pd,
        msn_window: POSTED_PER_QUEUE as u32,
        max_ulpdu: mulpdu,
        first_msn: 1,
        version: VersionName::Rfc5040,
        regions: vec![RegionConfig {
            stag,
            base,
            len: (n.max(1) * 4096) as u64,
            pd,
            write: true,
            read: false,
            valid: true,
        }],
        posted,
    };
    (cfg, segments)
}

/// Throughput of `rnic_rx_w<W>` on a workload, no idle, no backpressure: payload octets written
/// per cycle and TCP segment beats taken per cycle, from the first segment beat to the last
/// memory write beat; and the run itself.
pub fn measure_rate(
    engine: Engine,
    width: usize,
    kind: Workload,
    n: usize,
) -> Result<(f64, f64, RnicRun), String> {
    let (cfg, segments) = workload(kind, n, false);
    let mut sim = rnic_rx(engine, width)?;
    let run = run_rnic(sim.as_mut(), &cfg, &segments, &RnicRunOptions::default())?;
    if run.events.len() != n {
        return Err(format!("{} records for {n} messages", run.events.len()));
    }
    let last_w = *run.stats.w_cycles.last().ok_or("no memory writes")?;
    let span = (last_w - run.stats.first_in + 1) as f64;
    Ok((run.stats.octets_written as f64 / span, run.stats.beats_in as f64 / span, run))
}

/// Cycles from the transfer of an FPDU's last octet to its first memory write beat, for one
/// RDMA Write of `size` octets alone in one segment.
pub fn measure_latency(engine: Engine, width: usize, size: usize) -> Result<u64, String> {
    let (cfg, mut segments) = workload(Workload::Writes4K, 1, false);
    // One FPDU of `size` octets of payload, in one segment.
    let v = golden::ddp::ProtocolVersion::Rfc5040;
    let h = golden::ddp::TaggedHeader::new(
        golden::ddp::Opcode::RdmaWrite,
        true,
        cfg.regions[0].stag,
        cfg.regions[0].base,
        v,
    );
    let u = golden::ddp::DdpSegment::Tagged { header: h, payload: vec![0x5A; size] }.encode();
    let fc = golden::fpdu::FramingConfig { markers: false, crc: true, offset: 0 };
    let fpdu =
        golden::fpdu::Framer::new(fc).and_then(|mut f| f.frame(&u)).map_err(|e| e.to_string())?;
    segments.truncate(1);
    segments[0] = TcpSegment { seq: cfg.origin, payload: fpdu, fin: true };
    let mut cfg = cfg;
    cfg.max_ulpdu = max_ulpdu(width)?;
    let mut sim = rnic_rx(engine, width)?;
    let run = run_rnic(sim.as_mut(), &cfg, &segments, &RnicRunOptions::default())?;
    let last_in = *run.stats.in_last_cycles.first().ok_or("no input")?;
    let first_w = *run.stats.w_cycles.first().ok_or("no write")?;
    Ok(first_w - last_in)
}
