//! Verilog export: plain module names and AXI4-Stream port names.
//!
//! rust-hdl names the top `top`, every instance `top$child$...`, and the ports of a stream
//! bundle `s_axis$data`. Export renames every rust-hdl module to `<name>__core...` (so two
//! exported files never collide) and adds a hand-readable wrapper module `<name>` whose ports
//! follow AXI4-Stream: `clk`, `rst`, `s_axis_tdata`, `s_axis_tkeep`, `s_axis_tuser`,
//! `s_axis_tlast`, `s_axis_tvalid`, `s_axis_tready`, `m_axis_t*`.
//!
//! Every combinational block writes each of its variables once per evaluation
//! ([`crate::comb_shadow`]), so that event-driven simulators run the file at full speed.
//!
//! [`exportable_tops`] lists the tops for a width, [`export_top_at`] builds one at a width given
//! as a type parameter and [`export_block`] produces a block's file text and port list. The
//! runtime-width entry points (`export_top`, `write_tops`, the `rnic export` command) are
//! `sim::export`'s: instantiating every top at every width is minutes of compilation, and `sim`
//! instantiates them anyway for its engines.

use crate::board::pins::{Board, Hx8kCore, Ulx3sCore};
use crate::comb_shadow::shadow_combinational_blocks;
use crate::crc::CrcCalc;
use crate::place::rnic_rx::{RnicRx, POSTED_SLOT_BITS, STAG_INDEX_BITS};
use crate::rx::mpa_rx::{buffer_bits, MpaRx};
use crate::rx::mpa_rx_conns::MpaRxConns;
use crate::rx::mpa_rx_table::MpaRxTable;
use crate::tx::mpa_tx::MpaTx;
use golden::crc::{CrcDef, CRC32C, CRC32_ETHERNET, CRC32_WILLIAMS};
use rust_hdl::prelude::*;

/// The widths every streaming block is built and tested at.
pub const WIDTHS: [usize; 5] = [4, 8, 16, 32, 64];

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortDir {
    /// Driven by the testbench / the surrounding design.
    Input,
    /// Driven by the block.
    Output,
}

/// One port of an exported top, under its exported (AXI4-Stream) name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Exported name (`s_axis_tdata`).
    pub name: String,
    /// The name rust-hdl gives it (`s_axis$data`).
    pub hdl_name: String,
    /// Width in bits.
    pub width: usize,
    /// Direction.
    pub dir: PortDir,
}

/// One exported top: the module name, the Verilog text and the ports.
#[derive(Clone, Debug)]
pub struct ExportedTop {
    /// Module name, also the file stem (`mpa_crc32c_w8`).
    pub name: String,
    /// The whole file: renamed rust-hdl modules and the wrapper.
    pub verilog: String,
    /// The wrapper's ports, in declaration order.
    pub ports: Vec<Port>,
}

/// The kinds of top this crate exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopKind {
    /// [`CrcCalc`] with a CRC definition.
    CrcCalc(CrcDef),
    /// The transmit datapath [`MpaTx`].
    MpaTx,
    /// The receive datapath [`MpaRx`] with a 16 KiB release buffer ([`buffer_bits`]).
    MpaRx,
    /// `mpa_rx` for 16 connections behind AXI4-Lite registers [`MpaRxConns`] (a 16 KiB release
    /// buffer cut into 16 regions).
    MpaRxConns,
    /// The receive side of the RNIC [`RnicRx`] (`mpa_rx` with its 16 KiB buffer, 256 STags, 64
    /// posted buffers per queue).
    RnicRx,
    /// The loopback core of a board ([`BoardLoopback`](crate::board::loopback::BoardLoopback) in that board's configuration).
    Board(Board),
}

/// An exportable top: what to build and what to call it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopSpec {
    /// The block.
    pub kind: TopKind,
    /// Bytes per beat.
    pub width: usize,
}

impl TopSpec {
    /// The exported module name: `mpa_crc32c_w8`, `crc32_williams_w8`, `crc32_ethernet_w8`.
    pub fn name(&self) -> String {
        match self.kind {
            TopKind::CrcCalc(def) => format!("{}_w{}", crc_top_stem(&def), self.width),
            TopKind::MpaTx => format!("mpa_tx_w{}", self.width),
            TopKind::MpaRx => format!("mpa_rx_w{}", self.width),
            TopKind::MpaRxConns => format!("mpa_rx_conns_w{}", self.width),
            TopKind::RnicRx => format!("rnic_rx_w{}", self.width),
            TopKind::Board(b) => b.info().core.to_string(),
        }
    }
}

fn crc_top_stem(def: &CrcDef) -> String {
    if def.name == CRC32C.name {
        "mpa_crc32c".to_string()
    } else {
        format!("crc32_{}", def.name)
    }
}

/// `Ok` if `width` is one of [`WIDTHS`].
pub fn check_width(width: usize) -> Result<(), String> {
    if WIDTHS.contains(&width) {
        Ok(())
    } else {
        Err(format!("width {width} is not supported (use one of {WIDTHS:?})"))
    }
}

/// The CRC calculator spec for a definition and width.
pub fn crc_calc_spec(def: CrcDef, width: usize) -> Result<TopSpec, String> {
    check_width(width)?;
    Ok(TopSpec { kind: TopKind::CrcCalc(def), width })
}

/// The transmit datapath spec for a width.
pub fn mpa_tx_spec(width: usize) -> Result<TopSpec, String> {
    check_width(width)?;
    Ok(TopSpec { kind: TopKind::MpaTx, width })
}

/// The receive datapath spec for a width.
pub fn mpa_rx_spec(width: usize) -> Result<TopSpec, String> {
    check_width(width)?;
    Ok(TopSpec { kind: TopKind::MpaRx, width })
}

/// The 16-connection receive datapath spec for a width.
pub fn mpa_rx_conns_spec(width: usize) -> Result<TopSpec, String> {
    check_width(width)?;
    Ok(TopSpec { kind: TopKind::MpaRxConns, width })
}

/// The RNIC receive side spec for a width.
pub fn rnic_rx_spec(width: usize) -> Result<TopSpec, String> {
    check_width(width)?;
    Ok(TopSpec { kind: TopKind::RnicRx, width })
}

/// The loopback core of `board` (its width is the board's).
pub fn board_spec(board: Board) -> TopSpec {
    TopSpec { kind: TopKind::Board(board), width: board.info().width }
}

/// Every top exported at `width` bytes per beat.
pub fn exportable_tops(width: usize) -> Result<Vec<TopSpec>, String> {
    let mut tops: Vec<TopSpec> = [CRC32C, CRC32_WILLIAMS, CRC32_ETHERNET]
        .into_iter()
        .map(|d| crc_calc_spec(d, width))
        .collect::<Result<_, _>>()?;
    tops.push(mpa_tx_spec(width)?);
    tops.push(mpa_rx_spec(width)?);
    tops.push(mpa_rx_conns_spec(width)?);
    tops.push(rnic_rx_spec(width)?);
    Ok(tops)
}

/// Runs `$body` with `$w`/`$b` bound to the const parameters of a runtime width.
#[macro_export]
macro_rules! with_width {
    ($width:expr, |$w:ident, $b:ident| $body:expr) => {
        match $width {
            4 => {
                const $w: usize = 4;
                const $b: usize = 32;
                $body
            }
            8 => {
                const $w: usize = 8;
                const $b: usize = 64;
                $body
            }
            16 => {
                const $w: usize = 16;
                const $b: usize = 128;
                $body
            }
            32 => {
                const $w: usize = 32;
                const $b: usize = 256;
                $body
            }
            64 => {
                const $w: usize = 64;
                const $b: usize = 512;
                $body
            }
            other => panic!("width {other} is not one of 4, 8, 16, 32, 64"),
        }
    };
}

/// `export_top_at` for a runtime width (`$spec.width`), its parameters spelled out: instantiates
/// every top at every width where it is used (`sim::export::export_top`, the timing examples).
#[macro_export]
macro_rules! export_top_for {
    ($spec:expr) => {
        $crate::with_width!($spec.width, |W, B| {
            const A: usize = $crate::rx::mpa_rx::buffer_bits(W);
            const RD: usize = $crate::place::reassembly::ring_bits(W);
            const V: usize = $crate::place::locate::locate_width(W);
            $crate::export::export_top_at::<W, B, A, RD, V, { 8 * V }>($spec)
        })
    };
}

/// Builds and exports one top at `W` bytes per beat (`spec.width` must be `W`; a board's core
/// has its own width), with `B = 8W`, `A = buffer_bits(W)` (`mpa_rx`'s release buffer),
/// `RD = ring_bits(W)` (the reassembly ring) and `V = locate_width(W)`, `BV = 8V` (the
/// out-of-order locator's verification path), which stable Rust cannot derive from `W` inside a
/// generic function. Generic so that the tops are instantiated only where it is called:
/// `sim::export::export_top` picks the width at run time (see there for why it lives in `sim`),
/// [`export_top_for!`](crate::export_top_for) spells the parameters out.
pub fn export_top_at<
    const W: usize,
    const B: usize,
    const A: usize,
    const RD: usize,
    const V: usize,
    const BV: usize,
>(
    spec: &TopSpec,
) -> Result<ExportedTop, String> {
    if !matches!(spec.kind, TopKind::Board(_)) && spec.width != W {
        return Err(format!("{}: built at width {W}", spec.name()));
    }
    if B != 8 * W
        || A != buffer_bits(W)
        || RD != crate::place::reassembly::ring_bits(W)
        || V != crate::place::locate::locate_width(W)
        || BV != 8 * V
    {
        return Err(format!(
            "{}: export_top_at::<{W}, {B}, {A}, {RD}, {V}, {BV}>: B, A, RD, V or BV is not the one W = {W} needs",
            spec.name()
        ));
    }
    match spec.kind {
        TopKind::CrcCalc(def) => {
            let mut top = CrcCalc::<W, B>::new(&def);
            let header = format!(
                "CRC calculator (hdl::crc::CrcCalc<{W}, {B}>), {} (poly 0x{:08X}), {W} bytes per beat.\n\
                 One result beat per message: m_axis_tdata = CRC value, m_axis_tuser[0] = bad (the\n\
                 message did not end with its own correct CRC). Latency {} cycles from the last beat.",
                def.name,
                def.poly,
                CrcCalc::<W, B>::latency()
            );
            export_block(&spec.name(), &mut top, &header)
        }
        TopKind::MpaTx => {
            let mut top = MpaTx::<W, B>::new();
            let header = format!(
                "MPA transmit datapath (hdl::tx::mpa_tx::MpaTx<{W}, {B}>), RFC 5044 4.1-4.5, 5.1,\n\
                 {W} bytes per beat. ULPDUs in (s_axis_tuser[15:0] ULPDU_Length, [16] push), FPDU-\n\
                 aligned TCP segment payloads out (m_axis_tuser = sequence number of the first octet)."
            );
            export_block(&spec.name(), &mut top, &header)
        }
        TopKind::MpaRx => {
            let mut top = MpaRx::<W, B, A>::new();
            let header = format!(
                "MPA receive datapath (hdl::rx::mpa_rx::MpaRx<{W}, {B}, {A}>), RFC 5044 4.2-4.4, 6, 8,\n\
                 A.4, {W} bytes per beat. TCP payload segments in (s_axis_tuser[31:0] sequence number,\n\
                 [32] FIN), verified ULPDUs out (m_axis_tuser[31:0] FPDU sequence number, [47:32]\n\
                 ULPDU_Length, [48] error packet, [50:49] section 8 code). Release buffer {} beats,\n\
                 ULPDU_Length limit {} octets.",
                1usize << A,
                MpaRx::<W, B, A>::max_ulpdu()
            );
            export_block(&spec.name(), &mut top, &header)
        }
        TopKind::MpaRxConns => {
            let mut top = MpaRxConns::<W, B, A>::new();
            let header = format!(
                "MPA receive datapath for 16 connections (hdl::rx::mpa_rx_conns::MpaRxConns<{W}, {B}, {A}>),\n\
                 RFC 5044 4.2-4.4, 6, 7.1, 8, A.4, {W} bytes per beat. TCP payload segments of any of 16\n\
                 connections, interleaved, in (s_axis_tuser[31:0] sequence number, [32] FIN, [36:33]\n\
                 connection), verified ULPDUs out as on mpa_rx with their connection on m_conn; a\n\
                 connection is opened and read back through the AXI4-Lite slave s_axil_*. Release buffer\n\
                 {} beats in 16 regions, ULPDU_Length limit {} octets.",
                1usize << A,
                MpaRxTable::<W, B, A>::max_ulpdu()
            );
            export_block(&spec.name(), &mut top, &header)
        }
        TopKind::RnicRx => {
            const SN: usize = 1 << STAG_INDEX_BITS;
            const PN: usize = 1 << POSTED_SLOT_BITS;
            let mut top =
                RnicRx::<W, B, A, STAG_INDEX_BITS, SN, POSTED_SLOT_BITS, PN, RD, V, BV>::new();
            let header = format!(
                "RNIC receive side (hdl::place::rnic_rx::RnicRx<{W}, {B}, {A}, {STAG_INDEX_BITS}, {SN}, \
                 {POSTED_SLOT_BITS}, {PN}, {RD}, {V}, {BV}>), RFC 5044, 5041, 5040, {W} bytes per beat\n\
                 (the out-of-order locator's verification path {V} bytes per beat).\n\
                 TCP payload segments in any order (s_axis_tuser[31:0] sequence number, [32] FIN),\n\
                 a verdict per segment on vrd_valid/vrd_accept/vrd_seq, 64 KiB reassembly ring, DDP payload\n\
                 out through the AXI4 write master m_axi_*, records out on m_axis_evt (64 octets each),\n\
                 registers on the AXI4-Lite slave s_axil_*. {SN} STags, {} posted buffers per queue,\n\
                 ULPDU_Length limit {} octets.",
                PN / 4,
                RnicRx::<W, B, A, STAG_INDEX_BITS, SN, POSTED_SLOT_BITS, PN, RD, V, BV>::max_ulpdu()
            );
            export_block(&spec.name(), &mut top, &header)
        }
        TopKind::Board(board) => {
            let i = board.info();
            let header = format!(
                "Board loopback core for the {} (hdl::board::loopback::BoardLoopback<{}, {}, {}>):\n\
                 traffic generator -> mpa_tx -> mpa_rx -> checker, status on led[7:0]. ULPDU length\n\
                 mask 0x{:X}. The board wrapper {} connects it to the pins.",
                i.name,
                i.width,
                8 * i.width,
                i.buffer_bits,
                i.len_mask,
                i.top
            );
            match board {
                Board::Ulx3s => {
                    let mut top = Ulx3sCore::new(i.len_mask);
                    export_block(&spec.name(), &mut top, &header)
                }
                Board::Hx8k => {
                    let mut top = Hx8kCore::new(i.len_mask);
                    export_block(&spec.name(), &mut top, &header)
                }
            }
        }
    }
}

/// The exported name of a rust-hdl top-level port: `clock` -> `clk`; `<bundle>$<field>` ->
/// `<bundle>_t<field>` for the stream fields; any other `$` -> `_`.
pub fn axi_port_name(hdl_name: &str) -> String {
    if hdl_name == "clock" {
        return "clk".to_string();
    }
    if let Some((bundle, field)) = hdl_name.split_once('$') {
        if ["data", "keep", "user", "last", "valid", "ready"].contains(&field) {
            return format!("{bundle}_t{field}");
        }
    }
    hdl_name.replace('$', "_")
}

/// The top-level ports of a rust-hdl block, in declaration order, with exported names.
pub fn top_ports(top: &dyn Block) -> Vec<Port> {
    struct Ports {
        depth: usize,
        namespace: Vec<String>,
        ports: Vec<Port>,
    }
    impl Probe for Ports {
        fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.depth += 1;
        }
        fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
            self.namespace.push(name.to_string());
        }
        fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
            if self.depth != 1 {
                return;
            }
            let dir = match signal.kind() {
                AtomKind::InputParameter => PortDir::Input,
                AtomKind::OutputParameter => PortDir::Output,
                _ => return,
            };
            let mut full = self.namespace.join("$");
            if !full.is_empty() {
                full.push('$');
            }
            full.push_str(name);
            self.ports.push(Port {
                name: axi_port_name(&full),
                hdl_name: full,
                width: signal.bits(),
                dir,
            });
        }
        fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
            self.namespace.pop();
        }
        fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.depth -= 1;
        }
    }
    let mut p = Ports { depth: 0, namespace: vec![], ports: vec![] };
    top.accept("top", &mut p);
    p.ports
}

/// Exports a connected-or-not rust-hdl block as module `name`: checks it (`check_all`), renames
/// its modules and wraps it with AXI4-Stream port names. `header` becomes the file's comment.
/// A block whose export this process made already (the same [`ExportKey`]) gets that export
/// again without generating it.
pub fn export_block<T: Block>(
    name: &str,
    top: &mut T,
    header: &str,
) -> Result<ExportedTop, String> {
    top.connect_all();
    let key = ExportKey::of(name, header, top);
    let cache = EXPORTS.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(hit.clone());
    }
    let out = export_block_uncached(name, top, header)?;
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, out.clone());
    Ok(out)
}

/// The exports this process made, by [`ExportKey`]: a test builds the same model many times
/// (one simulation per case), and rust-hdl's Verilog generation compiles a regular expression per
/// identifier it writes, which was 60 % of the samples of a test that builds 42 delineator models
/// (stop 78, `perf`).
static EXPORTS: std::sync::OnceLock<
    std::sync::Mutex<std::collections::HashMap<ExportKey, ExportedTop>>,
> = std::sync::OnceLock::new();

/// Everything [`export_block_uncached`]'s text depends on, hashed (two 64-bit SipHash
/// digests with different prefixes): the name and header, and what rust-hdl's
/// `generate_verilog` and `check_all` and [`top_ports`] read from the tree, in visiting order:
/// every scope's and namespace's name and its `hdl()` code, every signal's name, kind, width,
/// connection and type descriptor, and a constant's value (names and texts quoted, so the
/// stream cannot be read two ways). A block built with other parameters differs in one of these
/// (a parameter reaches the Verilog only through a constant, a width or the code; this
/// project's own `hdl()` texts, `BlockRam`'s and `LutRam`'s, print their sizes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct ExportKey(u64, u64);

impl ExportKey {
    fn of<T: Block>(name: &str, header: &str, top: &T) -> ExportKey {
        use std::hash::Hasher;
        let mut probe = KeyProbe {
            a: std::collections::hash_map::DefaultHasher::new(),
            b: std::collections::hash_map::DefaultHasher::new(),
        };
        probe.b.write_u8(0x5a);
        probe.feed(format_args!("{name:?} {header:?}"));
        top.accept("top", &mut probe);
        ExportKey(probe.a.finish(), probe.b.finish())
    }
}

/// A [`Probe`] that feeds what it visits, formatted, into two hashers.
struct KeyProbe {
    a: std::collections::hash_map::DefaultHasher,
    b: std::collections::hash_map::DefaultHasher,
}

impl KeyProbe {
    fn feed(&mut self, args: std::fmt::Arguments) {
        use std::fmt::Write;
        // Writing into a hasher cannot fail.
        let _ = self.write_fmt(args);
    }
}

impl std::fmt::Write for KeyProbe {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        use std::hash::Hasher;
        self.a.write(s.as_bytes());
        self.b.write(s.as_bytes());
        Ok(())
    }
}

impl Probe for KeyProbe {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        self.feed(format_args!("<scope {name:?} {:?}>", node.hdl()));
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.feed(format_args!("<ns {name:?}>"));
    }
    fn visit_atom(&mut self, name: &str, s: &dyn Atom) {
        // A signal's value reaches the text only for a constant (`localparam`): a block
        // simulated before its export is the same block.
        let value = (s.kind() == AtomKind::Constant).then(|| s.verilog());
        self.feed(format_args!(
            "<atom {name:?} {:?} {} {} {:?} {:?}>",
            s.kind(),
            s.bits(),
            s.connected(),
            s.descriptor(),
            value
        ));
    }
    fn visit_end_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.feed(format_args!("</ns {name:?}>"));
    }
    fn visit_end_scope(&mut self, name: &str, _node: &dyn Block) {
        self.feed(format_args!("</scope {name:?}>"));
    }
}

fn export_block_uncached<T: Block>(
    name: &str,
    top: &mut T,
    header: &str,
) -> Result<ExportedTop, String> {
    check_all(top).map_err(|e| format!("{name}: rust-hdl check failed: {e:?}"))?;
    let raw = generate_verilog(top);
    let ports = top_ports(top);
    let core = format!("{name}__core");
    let body = shadow_combinational_blocks(&rename_modules(&raw, &core)?)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut v = String::new();
    v.push_str(&format!(
        "// {name}.v: generated by `rnic export` from the rust-hdl model. Do not edit.\n"
    ));
    for line in header.lines() {
        v.push_str(&format!("// {line}\n"));
    }
    v.push_str("// Ports:\n");
    for p in &ports {
        let dir = if p.dir == PortDir::Input { "in " } else { "out" };
        v.push_str(&format!("//   {dir} {:>4}  {}\n", p.width, p.name));
    }
    v.push_str("\n`timescale 1ns / 1ps\n\n");
    v.push_str(&wrapper(name, &core, &ports));
    v.push_str(&body);
    Ok(ExportedTop { name: name.to_string(), verilog: v, ports })
}

fn wrapper(name: &str, core: &str, ports: &[Port]) -> String {
    let mut v = format!("module {name} (\n");
    let decls: Vec<String> = ports
        .iter()
        .map(|p| {
            let dir = if p.dir == PortDir::Input { "input " } else { "output" };
            let range = if p.width == 1 { String::new() } else { format!("[{}:0] ", p.width - 1) };
            format!("    {dir} wire {range}{}", p.name)
        })
        .collect();
    v.push_str(&decls.join(",\n"));
    v.push_str("\n);\n\n");
    v.push_str(&format!("    {core} core (\n"));
    let conns: Vec<String> =
        ports.iter().map(|p| format!("        .{}({})", p.hdl_name, p.name)).collect();
    v.push_str(&conns.join(",\n"));
    v.push_str("\n    );\n\nendmodule\n");
    v
}

/// Renames rust-hdl's modules `top` / `top$a$b` to `<core>` / `<core>__a__b`, in declarations and
/// instantiations only.
fn rename_modules(raw: &str, core: &str) -> Result<String, String> {
    let mut names = std::collections::HashSet::new();
    for line in raw.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("module ") {
            let n = rest.split('(').next().unwrap_or("").trim();
            names.insert(n.to_string());
        }
    }
    if !names.contains("top") {
        return Err("rust-hdl output has no module `top`".into());
    }
    let map = |n: &str| -> String {
        let tail = n.strip_prefix("top").unwrap_or(n);
        format!("{core}{}", tail.replace('$', "__"))
    };
    let mut out = String::with_capacity(raw.len() + raw.len() / 8);
    for line in raw.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(rest) = trimmed.strip_prefix("module ") {
            let (n, tail) = rest.split_at(rest.find('(').unwrap_or(rest.len()));
            out.push_str(&format!("{indent}module {}{tail}\n", map(n.trim())));
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("endmodule") {
            let _ = rest;
            out.push_str(&format!("{indent}endmodule\n"));
            continue;
        }
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if names.contains(first) && trimmed.ends_with('(') {
            out.push_str(&format!("{indent}{}{}\n", map(first), &trimmed[first.len()..]));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}
