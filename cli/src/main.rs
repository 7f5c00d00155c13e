//! `rnic`: the project's command line. Golden-model framing and deframing, the specification
//! vectors, MULPDU, and (as the hardware grows) Verilog export, simulation and synthesis.
//!
//! Exit status: 0 success; 1 invalid arguments or input (a one-line message on stderr); 2 an MPA
//! error found in the data (`deframe`: the RFC 5044 section 8 code and reason on stderr) or a
//! failed check (`vectors`).

mod golden_cmds;
mod hw;
mod synth;
mod traffic_cmds;

use clap::{Args, Parser, Subcommand};
use golden::fpdu::FramingConfig;
use std::process::ExitCode;

/// An error that ends the command: a one-line message and an exit status.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub status: u8,
}

impl CliError {
    /// Bad arguments.
    pub fn usage(message: impl Into<String>) -> Self {
        CliError { message: format!("error: {}", message.into()), status: 1 }
    }
    /// Bad input data (not hex, too long, ...).
    pub fn input(message: impl Into<String>) -> Self {
        CliError { message: format!("error: {}", message.into()), status: 1 }
    }
    /// An MPA protocol error found in the data (the message carries the section 8 code).
    pub fn protocol(message: impl Into<String>) -> Self {
        CliError { message: message.into(), status: 2 }
    }
    /// A check that failed.
    pub fn check(message: impl Into<String>) -> Self {
        CliError { message: format!("error: {}", message.into()), status: 2 }
    }
    /// An I/O failure on standard output.
    pub fn io(e: std::io::Error) -> Self {
        CliError { message: format!("error: output: {e}"), status: 1 }
    }
}

#[derive(Parser)]
#[command(
    name = "rnic",
    version,
    about = "iWARP MPA/DDP datapath: golden model, vectors, hardware"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Framing settings shared by frame and deframe.
#[derive(Args, Clone, Copy)]
struct FramingArgs {
    /// Insert (frame) or expect (deframe) Markers every 512 octets (RFC 5044 4.3).
    #[arg(long)]
    markers: bool,
    /// CRC off: the CRC field is zero on transmit and not checked on receive (RFC 5044 4.4).
    #[arg(long)]
    no_crc: bool,
    /// Stream position of the first octet relative to the marker origin (a multiple of 4; 0: the
    /// stream starts with a Marker when Markers are on).
    #[arg(long, default_value_t = 0)]
    offset: u32,
}

impl FramingArgs {
    fn config(self) -> Result<FramingConfig, CliError> {
        let cfg = FramingConfig { markers: self.markers, crc: !self.no_crc, offset: self.offset };
        cfg.validate().map_err(|e| CliError::usage(e.to_string()))?;
        Ok(cfg)
    }
}

#[derive(Subcommand)]
enum Command {
    /// ULPDUs (one per line, hex; an empty line is an empty ULPDU) on stdin -> MPA stream (hex,
    /// one FPDU per line) on stdout.
    Frame(FramingArgs),
    /// MPA stream (hex) on stdin -> ULPDUs (one per line) on stdout. On the first bad FPDU:
    /// the ULPDUs before it, then the RFC 5044 section 8 error code and reason on stderr (stream
    /// offsets count octets from the first octet of the input), exit status 2.
    Deframe {
        #[command(flatten)]
        framing: FramingArgs,
        /// Largest ULPDU_Length accepted (RFC 5044 section 3 limit by default).
        #[arg(long, default_value_t = golden::mulpdu::ULPDU_MAX)]
        max_ulpdu: u32,
    },
    /// Runs the RFC 5044 and RDMAC hex-dump vectors through the golden model (or, with
    /// --hardware, through the hardware in simulation at every width); exit 0 only if all pass.
    Vectors {
        /// Run the vectors through the hardware blocks instead of the golden model.
        #[arg(long)]
        hardware: bool,
        /// Simulation engine for --hardware: rusthdl or verilator.
        #[arg(long, default_value = "rusthdl")]
        engine: String,
    },
    /// Synthesis, place and route (Yosys, nextpnr, fixed seed) of one exported top; appends a
    /// record to build/fpga/report.json and rewrites report.md and fmax_luts.svg there.
    Synth {
        /// ecp5-85f (LFE5U-85F speed 6), ecp5-5g-85f (LFE5UM5G-85F), ice40-hx8k (HX8K ct256).
        #[arg(long, default_value = "ecp5-85f")]
        target: String,
        /// Exported top name without the width suffix, e.g. mpa_crc32c.
        #[arg(long)]
        top: String,
        /// Bytes per beat.
        #[arg(long, default_value_t = 8)]
        width: usize,
        /// Clock constraint in MHz.
        #[arg(long, default_value_t = 250.0)]
        freq: f64,
        /// nextpnr placement seed, or several separated by commas (one synthesis, one placement
        /// each; the report keeps the worst, a floor must hold at every seed).
        #[arg(long, value_delimiter = ',', default_value = "1")]
        seed: Vec<u64>,
        /// Directory holding the exported Verilog (TOP_wW.v).
        #[arg(long, default_value = "build/verilog")]
        verilog_dir: std::path::PathBuf,
        /// Where the run's files and the report go.
        #[arg(long, default_value = "build/fpga")]
        out: std::path::PathBuf,
        /// Fail (exit 2) when the achieved Fmax is below this many MHz.
        #[arg(long)]
        min_fmax: Option<f64>,
    },
    /// Board build: the loopback (traffic generator, mpa_tx, mpa_rx, checker, LEDs) on a board's
    /// pins, synthesized, placed and routed at the board clock (fixed seed) and packed into a
    /// bitstream under OUT/BOARD/ (ulx3s: ecppack .bit; hx8k: icepack .bin); adds a record to
    /// OUT/report.json. Fails if the design does not meet the board clock.
    Bitstream {
        /// ulx3s (LFE5U-85F, 25 MHz, W = 8) or hx8k (iCE40-HX8K breakout, 12 MHz, W = 4).
        #[arg(long, default_value = "ulx3s")]
        board: String,
        /// nextpnr placement seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the run's files go (a directory per board) and the report.
        #[arg(long, default_value = "build/fpga")]
        out: std::path::PathBuf,
    },
    /// Writes the exported Verilog tops (plain module names, AXI4-Stream ports), one file each.
    Export {
        /// Only this width (bytes per beat: 4, 8, 16, 32, 64); all widths by default.
        #[arg(long)]
        width: Option<usize>,
        /// Output directory.
        #[arg(long, default_value = "build/verilog")]
        out: std::path::PathBuf,
    },
    /// Runs data through a hardware block in cycle-level simulation.
    Sim {
        #[command(subcommand)]
        block: SimBlock,
    },
    /// A generated connection for the receive side: its TCP payload segments in arrival order on
    /// stdout (one per line, `SEQ HEX [fin]`, SEQ decimal, `-` for no payload) and the receiver
    /// configuration (JSON) in --config-out.
    Traffic {
        /// inorder, aligned-ooo, middlebox, loss, dup, wrap, faults, mixed.
        #[arg(long)]
        scenario: String,
        /// Seed of everything random.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Markers on (RFC 5044 4.3).
        #[arg(long)]
        markers: bool,
        /// CRC off (the CRC field is zero and not checked).
        #[arg(long)]
        no_crc: bool,
        /// Messages in the stream.
        #[arg(long, default_value_t = 200)]
        messages: usize,
        /// The sender's EMSS (128..=65535).
        #[arg(long, default_value_t = 1460)]
        emss: u32,
        /// Receiver reassembly buffer in octets, or `min`: the smallest that guarantees
        /// progress (one largest FPDU).
        #[arg(long, default_value = "262144")]
        reassembly: String,
        /// Receiver record table entries (placed FPDUs and held runs).
        #[arg(long, default_value_t = 256)]
        records: u32,
        /// Header alignment detection off in the configuration.
        #[arg(long)]
        no_aligned_detect: bool,
        /// With --scenario faults: this fault (unknown-stag, invalid-stag, pd, no-write-right,
        /// bounds-high, bounds-low, to-wrap, msn-range, no-buffer, mo, too-long, qn,
        /// ddp-version, rdmap-version, opcode, short-ulpdu, write-after-invalidate,
        /// cannot-invalidate, crc, marker, ulpdu-too-long, length, truncated) instead of one chosen by
        /// the seed.
        #[arg(long)]
        fault: Option<String>,
        /// Also write the connection as a packet capture (Ethernet/IPv4/TCP: handshake, MPA
        /// Request and Reply, the segments in arrival order).
        #[arg(long)]
        pcap: Option<std::path::PathBuf>,
        /// Where the receiver configuration goes.
        #[arg(long)]
        config_out: std::path::PathBuf,
    },
    /// The golden receiver (out-of-order placement, in-order delivery) on segments read from
    /// stdin in the `rnic traffic` format; JSON Lines on stdout: a verdict per offered
    /// segment, deliveries, the error, the memory of every region and posted buffer, counters.
    /// Exit 0, or 2 when an error was reported; bad input: one line on stderr, exit 1.
    Place {
        /// The receiver configuration (JSON, as `rnic traffic --config-out` writes it).
        #[arg(long)]
        config: std::path::PathBuf,
        /// Sort the segments by sequence number first (the reference run).
        #[arg(long)]
        inorder: bool,
        /// Offer a refused segment again after K more offers, as a sender retransmits what was
        /// not acknowledged (default: refused segments are not offered again).
        #[arg(long)]
        retransmit: Option<usize>,
    },
    /// MULPDU for an EMSS (RFC 5044 4.5).
    Mulpdu {
        /// Effective maximum segment size in octets.
        #[arg(long)]
        emss: u32,
        /// Markers are in use on this direction.
        #[arg(long)]
        markers: bool,
    },
}

/// The simulation settings `sim tx` and `sim rx` share.
#[derive(Args)]
struct SimArgs {
    /// Bytes per beat: 4, 8, 16, 32, 64.
    #[arg(long, default_value_t = 8)]
    width: usize,
    /// rusthdl (the model, driven directly) or verilator (the exported Verilog).
    #[arg(long, default_value = "rusthdl")]
    engine: String,
    /// Write a waveform of every signal (rusthdl engine only).
    #[arg(long)]
    vcd: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum SimBlock {
    /// ULPDUs (one per line, hex) through the transmit datapath `mpa_tx` -> the MPA stream, one
    /// FPDU per line: the same input, output and errors as `rnic frame`.
    Tx {
        #[command(flatten)]
        framing: FramingArgs,
        #[command(flatten)]
        hw: SimArgs,
    },
    /// An MPA stream (hex) on stdin through the receive datapath `mpa_rx` -> the ULPDUs, one per
    /// line: the same input, output, error message and exit status as `rnic deframe`. The ULPDUs,
    /// the error code and the FPDU it names come from the hardware; the message's details (CRC
    /// values, FPDUPTR) are the golden model's account of that same FPDU, and a disagreement
    /// between the two is reported as such (exit 2).
    Rx {
        #[command(flatten)]
        framing: FramingArgs,
        /// Largest ULPDU_Length accepted; the hardware's release buffer caps it (16384 - W).
        #[arg(long, default_value_t = golden::mulpdu::ULPDU_MAX)]
        max_ulpdu: u32,
        #[command(flatten)]
        hw: SimArgs,
        /// Cut the stream into random TCP segments of 1..3000 octets from this seed (default:
        /// one segment).
        #[arg(long)]
        resegment: Option<u64>,
    },
    /// TCP payload segments (the `rnic traffic` format) through `rnic_rx` with the regions and
    /// buffers of a receiver configuration: the same input, output (JSON Lines) and exit
    /// status as `rnic place --inorder`, produced by the hardware (segments in sequence order,
    /// overlaps trimmed as TCP delivers them); the metrics line is the hardware's own. With
    /// `--arrival`: the segments in the order given, verdicts by the hardware, the output of
    /// `rnic place` (without `--inorder`).
    Place {
        /// The receiver configuration (JSON, as `rnic traffic --config-out` writes it).
        #[arg(long)]
        config: std::path::PathBuf,
        #[command(flatten)]
        hw: SimArgs,
        /// Random idle cycles on the segments and backpressure on every output, from this seed.
        #[arg(long)]
        busy: Option<u64>,
        /// Offer the segments in the order given (one at a time, refused ones not again); the
        /// configuration must have the hardware's reassembly settings: "reassembly_window":
        /// 65536 and "records" at most 17 ("place_out_of_order" and "aligned_detect" as
        /// the golden receiver has them).
        #[arg(long)]
        arrival: bool,
    },
    /// One message per line (hex) on stdin -> the CRC value the hardware computed per message,
    /// 8 lowercase hex digits (the register value, not the wire bytes).
    Crc {
        /// Bytes per beat: 4, 8, 16, 32, 64.
        #[arg(long, default_value_t = 8)]
        width: usize,
        /// crc32c (MPA), williams (RDMA/TCP draft, 0xDB710641) or ethernet.
        #[arg(long, default_value = "crc32c")]
        poly: String,
        /// rusthdl (the model, driven directly) or verilator (the exported Verilog).
        #[arg(long, default_value = "rusthdl")]
        engine: String,
    },
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Frame(f) => golden_cmds::frame_cmd(f.config()?),
        Command::Deframe { framing, max_ulpdu } => {
            golden_cmds::deframe_cmd(framing.config()?, max_ulpdu)
        }
        Command::Vectors { hardware: false, .. } => golden_cmds::vectors_cmd(),
        Command::Vectors { hardware: true, engine } => golden_cmds::print_checks(
            hw::hardware_vector_checks(&engine)
                .map_err(CliError::usage)?
                .into_iter()
                .map(|c| (c.vector, c.check, c.pass, c.detail))
                .collect(),
        ),
        Command::Mulpdu { emss, markers } => golden_cmds::mulpdu_cmd(emss, markers),
        Command::Traffic {
            scenario,
            seed,
            markers,
            no_crc,
            messages,
            emss,
            reassembly,
            records,
            no_aligned_detect,
            fault,
            pcap,
            config_out,
        } => traffic_cmds::traffic_cmd(traffic_cmds::TrafficArgs {
            scenario: &scenario,
            seed,
            markers,
            no_crc,
            messages,
            emss,
            reassembly: &reassembly,
            records,
            no_aligned_detect,
            fault: fault.as_deref(),
            pcap: pcap.as_deref(),
            config_out: &config_out,
        }),
        Command::Place { config, inorder, retransmit } => {
            traffic_cmds::place_cmd(&config, inorder, retransmit)
        }
        Command::Export { width, out } => hw::export_cmd(width, out).map_err(CliError::usage),
        Command::Sim { block: SimBlock::Tx { framing, hw } } => {
            hw::sim_tx_cmd(hw.width, framing.config()?, &hw.engine, hw.vcd.as_deref())
        }
        Command::Sim { block: SimBlock::Rx { framing, max_ulpdu, hw, resegment } } => {
            let cfg = framing.config()?;
            hw::sim_rx_cmd(hw.width, cfg, max_ulpdu, &hw.engine, hw.vcd.as_deref(), resegment)
        }
        Command::Sim { block: SimBlock::Place { config, hw, busy, arrival } } => {
            hw::sim_place_cmd(hw.width, &config, &hw.engine, hw.vcd.as_deref(), busy, arrival)
        }
        Command::Sim { block: SimBlock::Crc { width, poly, engine } } => {
            hw::sim_crc_cmd(width, &poly, &engine).map_err(CliError::usage)
        }
        Command::Bitstream { board, seed, out } => {
            let b = hdl::board::pins::Board::by_name(&board).map_err(CliError::usage)?;
            let (rec, file) = synth::bitstream(b, seed, &out.join("board"))?;
            println!(
                "{} {} fmax_mhz={:.1} (board clock {} MHz) luts={} ffs={} brams={} seconds={}",
                rec.target,
                rec.top,
                rec.fmax_mhz,
                b.info().clock_mhz,
                rec.luts,
                rec.ffs,
                rec.brams,
                rec.seconds
            );
            println!("bitstream: {}", file.display());
            synth::update_report(&out, rec)?;
            Ok(())
        }
        Command::Synth { target, top, width, freq, seed, verilog_dir, out, min_fmax } => {
            let t = synth::target(&target)?;
            let name = format!("{top}_w{width}");
            let file = verilog_dir.join(format!("{name}.v"));
            let run_dir = out.join(t.name).join(&name);
            let recs = synth::synth_seeds(t, &file, &name, width, freq, &seed, &run_dir)?;
            for rec in &recs {
                println!(
                    "{} {} seed={} fmax_mhz={:.1} luts={} ffs={} brams={} seconds={}",
                    rec.target,
                    rec.top,
                    rec.seed,
                    rec.fmax_mhz,
                    rec.luts,
                    rec.ffs,
                    rec.brams,
                    rec.seconds
                );
            }
            let worst =
                synth::worst_seed(&recs).cloned().ok_or_else(|| CliError::usage("no seed"))?;
            if let (true, Some((min, mean, max))) = (recs.len() > 1, synth::seed_spread(&recs)) {
                println!(
                    "{name} on {} over {} seeds: Fmax min {min:.1} (seed {}), mean {mean:.1}, max {max:.1} MHz",
                    t.name,
                    recs.len(),
                    worst.seed
                );
            }
            let fmax = worst.fmax_mhz;
            let at =
                if recs.len() > 1 { format!(" at seed {}", worst.seed) } else { String::new() };
            synth::update_report(&out, worst)?;
            match min_fmax {
                Some(floor) if fmax < floor => Err(CliError::check(format!(
                    "{name} on {}: Fmax {fmax:.1} MHz{at} is below the floor of {floor} MHz",
                    t.name
                ))),
                Some(floor) => {
                    println!(
                        "{name} on {}: Fmax {fmax:.1} MHz{at} meets the floor of {floor} MHz",
                        t.name
                    );
                    Ok(())
                }
                None => Ok(()),
            }
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                print!("{e}");
                return ExitCode::SUCCESS;
            }
            // One line: clap's first line names the problem.
            let text = e.to_string();
            let first =
                text.lines().find(|l| !l.trim().is_empty()).unwrap_or("error: bad arguments");
            eprintln!("{first} (see rnic --help)");
            return ExitCode::from(1);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e.message);
            ExitCode::from(e.status)
        }
    }
}
