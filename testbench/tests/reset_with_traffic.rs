//! Reset with traffic present, on every top at every width on both engines: beats are offered
//! on every input stream and every output is taken while `rst` is held for three cycles in the
//! middle of a run (just after a cycle in which the block took a beat). In every reset cycle
//! no input is ready (no beat is taken, so no source believes a beat was delivered that the
//! reset then dropped) and every handshake and pulse output is low (`*valid`, `*ready`, `err_*`,
//! `dropped`, `seq_gap`, `oversize_fpdu`). After the reset, the same simulation runs traffic
//! checked against the golden model.

use golden::crc::CRC32C;
use golden::fpdu::{Framer, FramingConfig};
use hdl::place::reg;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sim::packet::PacketRun;
use sim::place::{axil_run, AxilOp, RnicRunOptions};
use sim::tx::{run_tx, TxSettings, TxUlpdu};
use sim::Engine;
use sim::{words_for, CycleSim, PortDir};
use testbench::rnic::{check_connection, crafted_config, traffic};
use testbench::{assert_crcs, random_messages, rng};

/// The 1-bit outputs that must be low while `rst` is high.
fn quiet_outputs(sim: &dyn CycleSim) -> Vec<(usize, String)> {
    sim.ports()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.dir == PortDir::Output && p.width == 1)
        .filter(|(_, p)| {
            let n = p.name.as_str();
            n.ends_with("valid")
                || n.ends_with("ready")
                || n.starts_with("err_")
                || ["dropped", "seq_gap", "oversize_fpdu"].contains(&n)
        })
        .map(|(i, p)| (i, p.name.clone()))
        .collect()
}

/// Drives random beats into every input stream (`s_axis*`: data, keep, user random, `tvalid`
/// mostly high) and random `ready`s on every output stream, with the AXI write responses and
/// the register port idle, for `cycles` cycles or until the block took a beat on `s_axis` and
/// at least `min` cycles passed; then holds `rst` for three cycles with `tvalid` high on every
/// input stream and every AXI valid raised, checking [`quiet_outputs`] in each. Returns the
/// beats `s_axis` took before the reset.
fn reset_in_traffic(sim: &mut dyn CycleSim, r: &mut ChaCha8Rng, min: usize, what: &str) -> usize {
    let quiet = quiet_outputs(sim);
    assert!(
        quiet.iter().any(|(_, n)| n == "s_axis_tready"),
        "{what}: s_axis_tready among the checked outputs"
    );
    let inputs: Vec<(usize, String, usize)> = sim
        .ports()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.dir == PortDir::Input && p.name != "clk" && p.name != "rst")
        .map(|(i, p)| (i, p.name.clone(), p.width))
        .collect();
    let s_valid = sim.port("s_axis_tvalid").unwrap();
    let s_ready = sim.port("s_axis_tready").unwrap();
    let mut words = Vec::new();
    let mut drive = |sim: &mut dyn CycleSim, r: &mut ChaCha8Rng, in_reset: bool| {
        for (i, name, width) in &inputs {
            let v: u64 = if name.starts_with("s_axis_t") && name != "s_axis_tvalid" {
                words.clear();
                words.extend((0..words_for(*width)).map(|_| r.gen::<u64>()));
                sim.set(*i, &words);
                continue;
            } else if name == "s_axis_tvalid" {
                (in_reset || r.gen_bool(0.9)) as u64
            } else if name.ends_with("tready") || name == "m_axi_awready" || name == "m_axi_wready"
            {
                r.gen_bool(0.8) as u64
            } else if name.ends_with("valid") || name.ends_with("ready") {
                // The register port and the write responses: idle out of reset, offered in it.
                in_reset as u64
            } else {
                continue; // settings as the setup left them
            };
            sim.set_u64(*i, v);
        }
    };
    let mut taken = 0;
    let mut cycle = 0;
    loop {
        drive(sim, r, false);
        sim.eval();
        let took = sim.get_u64(s_valid) == 1 && sim.get_u64(s_ready) == 1;
        taken += took as usize;
        sim.tick();
        cycle += 1;
        if (took && cycle >= min) || cycle > 20 * min + 2000 {
            break;
        }
    }
    assert!(taken > 0, "{what}: the block took no beat before the reset");
    let rst = sim.port("rst").unwrap();
    sim.set_u64(rst, 1);
    for k in 0..3 {
        drive(sim, r, true);
        sim.eval();
        let loud: Vec<&str> =
            quiet.iter().filter(|(i, _)| sim.get_u64(*i) != 0).map(|(_, n)| n.as_str()).collect();
        assert!(loud.is_empty(), "{what}: reset cycle {k}: {loud:?} high");
        sim.tick();
    }
    sim.set_u64(rst, 0);
    sim.eval();
    taken
}

fn crc_top(engine: Engine, w: usize) {
    let mut sim = sim::crc::crc_top(engine, &CRC32C, w).unwrap();
    let what = format!("mpa_crc32c_w{w} {engine}");
    let mut r = rng(50 + w as u64);
    sim.reset(2).unwrap();
    for min in [5, 40] {
        reset_in_traffic(sim.as_mut(), &mut r, min, &what);
    }
    let msgs = random_messages(&mut r, 30, 0..=200);
    let (res, _) = sim::crc::run_messages(sim.as_mut(), &msgs, &Default::default()).unwrap();
    assert_crcs(&what, &CRC32C, &msgs, &res);
}

fn mpa_tx(engine: Engine, w: usize) {
    let mut sim = sim::tx::mpa_tx(engine, w, None).unwrap();
    let what = format!("mpa_tx_w{w} {engine}");
    let mut r = rng(60 + w as u64);
    let settings =
        TxSettings { markers: true, crc: true, emss: 1460, seq: 0xFFFF_F000, origin: 0xFFFF_E000 };
    let set = |sim: &mut dyn CycleSim| {
        for (n, v) in [
            ("cfg_markers", 1),
            ("cfg_crc", 1),
            ("cfg_emss", 1460),
            ("cfg_seq", settings.seq as u64),
            ("cfg_origin", settings.origin as u64),
        ] {
            let p = sim.port(n).unwrap();
            sim.set_u64(p, v);
        }
    };
    set(sim.as_mut());
    sim.reset(2).unwrap();
    for min in [5, 300] {
        reset_in_traffic(sim.as_mut(), &mut r, min, &what);
    }
    let ulpdus: Vec<TxUlpdu> = random_messages(&mut r, 12, 0..=3000)
        .into_iter()
        .enumerate()
        .map(|(k, d)| TxUlpdu::new(d, k % 4 == 3))
        .collect();
    let got = run_tx(sim.as_mut(), &settings, &ulpdus, &PacketRun::default()).unwrap();
    let want = testbench::tx_golden::expected(&settings, &ulpdus);
    let g: Vec<(u32, &[u8])> = got.segments.iter().map(|(s, p)| (*s, p.as_slice())).collect();
    let e: Vec<(u32, &[u8])> =
        want.segments.iter().map(|s| (s.seq, s.payload.as_slice())).collect();
    assert!(g == e, "{what}: segments after the reset differ from the golden model's");
}

fn mpa_rx(engine: Engine, w: usize) {
    let mut sim = sim::rx::mpa_rx(engine, w).unwrap();
    mpa_rx_on(sim.as_mut(), engine.name(), w);
}

fn mpa_rx_on(sim: &mut dyn CycleSim, engine: &str, w: usize) {
    let what = format!("mpa_rx_w{w} {engine}");
    let mut r = rng(70 + w as u64);
    let seq = 0xFFFF_FF00u32;
    let cfg = FramingConfig { markers: true, crc: true, offset: 0 };
    for (n, v) in [("cfg_markers", 1), ("cfg_crc", 1), ("cfg_max_ulpdu", 4000)] {
        let p = sim.port(n).unwrap();
        sim.set_u64(p, v);
    }
    for n in ["cfg_seq", "cfg_origin"] {
        let p = sim.port(n).unwrap();
        sim.set_u64(p, seq as u64);
    }
    sim.reset(2).unwrap();
    // Random beats carry random sequence numbers: mostly dropped as out of sequence, which is
    // traffic the block takes.
    for min in [5, 300] {
        reset_in_traffic(sim, &mut r, min, &what);
    }
    let mut framer = Framer::new(cfg).unwrap();
    let mut stream = Vec::new();
    for m in random_messages(&mut r, 10, 0..=2000) {
        stream.extend(framer.frame(&m).unwrap());
    }
    let segs = testbench::rx::segments(&mut r, &stream, seq, 1500, true);
    let limit = sim::rx::mpa_rx_max_ulpdu(w).unwrap();
    testbench::rx_check::check_on(
        sim,
        engine,
        w,
        cfg,
        &stream,
        &segs,
        seq,
        limit,
        &PacketRun::default(),
        &what,
    );
}

fn rnic_rx(engine: Engine, w: usize) {
    let mut sim = sim::place::rnic_rx(engine, w).unwrap();
    let what = format!("rnic_rx_w{w} {engine}");
    let mut r = rng(80 + w as u64);
    // Enabled with Markers and CRC and a reassembly budget, so that random segments are taken
    // (held, refused or dropped after the first error).
    let cfg = crafted_config(true);
    sim.reset(2).unwrap();
    let ops = [
        AxilOp::write(reg::ORIGIN, cfg.origin),
        AxilOp::write(reg::MAX_ULPDU, cfg.max_ulpdu),
        AxilOp::write(reg::REASM_BUDGET, 1 << 16),
        AxilOp::write(reg::REASM_RECORDS, 8),
        AxilOp::write(reg::CTRL, reg::CTRL_ENABLE | reg::CTRL_MARKERS | reg::CTRL_CRC),
    ];
    // The reset returns the registers to their defaults (disabled): set them up each time.
    for min in [5, 300] {
        axil_run(sim.as_mut(), &ops).unwrap();
        reset_in_traffic(sim.as_mut(), &mut r, min, &what);
    }
    let (cfg, segs) = traffic(sim::traffic::Scenario::InOrder, 3, true, true, 12, None);
    check_connection(sim.as_mut(), &cfg, &segs, &RnicRunOptions::default(), &what);
}

/// The random-initial-value mode of the Verilator engine (`RNIC_VERILATOR_X=unique`, which
/// `make test-x-initial` runs every Verilator test of the tops with) does what it says: every
/// register's initial value is guarded by the plusarg; made with two seeds, `mpa_rx_w8` shows
/// different register values on its outputs before the first reset, and made without a seed,
/// the declared values of the rust-hdl model; from each, reset with traffic and a
/// golden-checked run pass.
#[test]
fn random_initial_values_differ_by_seed_and_reset_clears_them() {
    let top = sim::export::export_top(&hdl::export::mpa_rx_spec(8).unwrap()).unwrap();
    let guarded = sim::verilator::with_guarded_initial_values(&top.verilog).unwrap();
    let initials = top.verilog.matches("initial begin").count();
    assert!(initials > 0);
    assert_eq!(
        guarded.matches("if (!$test$plusargs(\"rnic_random_initial\")) q = ").count(),
        initials,
        "every register's initial value guarded"
    );
    let outputs = |sim: &mut dyn CycleSim| -> Vec<Vec<u64>> {
        sim.eval();
        let ports: Vec<(usize, usize)> = sim
            .ports()
            .iter()
            .enumerate()
            .filter(|(_, p)| p.dir == PortDir::Output)
            .map(|(i, p)| (i, p.width))
            .collect();
        ports
            .into_iter()
            .map(|(i, width)| {
                let mut v = vec![0; words_for(width)];
                sim.get(i, &mut v);
                v
            })
            .collect()
    };
    let mut a = sim::verilator::VerilatorSim::build_random_initial(&top, 1).unwrap();
    let mut b = sim::verilator::VerilatorSim::build_random_initial(&top, 2).unwrap();
    let path = sim::verilator::build_library(&top).unwrap();
    let mut declared = sim::verilator::VerilatorSim::load(&path, top.ports.clone(), 0).unwrap();
    let mut model = sim::rx::mpa_rx(Engine::RustHdl, 8).unwrap();
    assert_ne!(outputs(&mut a), outputs(&mut b), "two seeds, two different initial states");
    assert_eq!(
        outputs(&mut declared),
        outputs(model.as_mut()),
        "without a seed, the declared initial values (the rust-hdl model's)"
    );
    for sim in [&mut a, &mut b, &mut declared] {
        mpa_rx_on(sim, "verilator (random initial values)", 8);
    }
}

macro_rules! reset_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            #[test]
            fn crc_top() {
                super::crc_top($engine, $w);
            }
            #[test]
            fn mpa_tx() {
                super::mpa_tx($engine, $w);
            }
            #[test]
            fn mpa_rx() {
                super::mpa_rx($engine, $w);
            }
            #[test]
            fn rnic_rx() {
                super::rnic_rx($engine, $w);
            }
        }
    )*};
}

reset_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w16: sim::Engine::Verilator, 16;
    verilator_w32: sim::Engine::Verilator, 32;
    verilator_w64: sim::Engine::Verilator, 64;
}
