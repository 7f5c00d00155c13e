//! `AxilRegPort` (`hdl/src/axil_reg_port.rs`), the AXI4-Lite handshakes both register blocks
//! use, alone on both engines. The test is the master and the register block behind the port:
//! - writes with address and data raised at random times (each held until taken), the next
//!   often offered before the last one's response, a quarter of them with partial strobes,
//!   some to unmapped words, and an eighth of them table commands answered 1 to 6 cycles later
//!   (`b_give` from a countdown, SLVERR by their data's bit 0);
//! - reads at the same time, the register file answering `rd_addr` combinationally;
//! - responses taken under random backpressure, `b_give` also raised when nothing waits (the
//!   port must ignore it), and `rst` raised for 1 to 3 cycles at random moments (about one
//!   cycle in 300) with every valid offered;
//! - first, a write whose `wvalid` is withdrawn (AXI forbids it): nothing is written until both
//!   are offered again.
//!
//! Checked every cycle: no AXI output of the port changes when any AXI input does (AXI A3.2.1:
//! no combinational path); `awready` = `wready`, only with both valids, `wr` with them;
//! `arready` = `rd`, only with `arvalid`; `wr`'s address, data and strobes are the master's;
//! `wr_pending` while, and only while, a command waits; no response without a transaction
//! waiting for it, each the register block's answer, in order, held with its value until
//! taken; nothing in `rst`; something moves within 40 cycles whenever a transaction waits
//! outside a reset. A write or read answered at once has its response two cycles after its
//! valids, and at the end every transaction was answered but those a reset cut off (at most
//! two per channel per reset).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim::axil::{axil_reg_port, PORT_ADDR_BITS};
use sim::place::AxilPorts;
use sim::{CycleSim, Engine};
use std::collections::VecDeque;

/// Word addresses: registers below `CMD_FIRST`, table commands to `UNMAPPED_FIRST`, then
/// nothing.
const CMD_FIRST: u64 = 48;
const UNMAPPED_FIRST: u64 = 56;
const WORDS: usize = 1 << (PORT_ADDR_BITS - 2);

/// The slave's ports and the register side's.
struct Ports {
    axil: AxilPorts,
    rst: usize,
    wr: usize,
    wr_addr: usize,
    wr_data: usize,
    wr_whole: usize,
    wr_pending: usize,
    b_give: usize,
    b_err: usize,
    rd: usize,
    rd_addr: usize,
    rd_data: usize,
    rd_ok: usize,
}

impl Ports {
    fn find(sim: &dyn CycleSim) -> Ports {
        let f = |n: &str| sim.port(n).unwrap();
        Ports {
            axil: AxilPorts::find(sim, "s_axil").unwrap(),
            rst: f("rst"),
            wr: f("wr"),
            wr_addr: f("wr_addr"),
            wr_data: f("wr_data"),
            wr_whole: f("wr_whole"),
            wr_pending: f("wr_pending"),
            b_give: f("b_give"),
            b_err: f("b_err"),
            rd: f("rd"),
            rd_addr: f("rd_addr"),
            rd_data: f("rd_data"),
            rd_ok: f("rd_ok"),
        }
    }
}

/// A write the master offers: address and data raised independently, each held until taken.
struct WriteOp {
    addr: u64,
    data: u32,
    strb: u64,
    aw_up: bool,
    w_up: bool,
    /// Cycle both valids were first offered together (kept for a write offered with no
    /// response outstanding: its response's latency is checked).
    both_at: Option<u64>,
    alone: bool,
}

struct ReadOp {
    addr: u64,
    up: bool,
    at: Option<u64>,
    alone: bool,
}

/// Counts of what the run exercised (asserted non-zero, so the run covers each case).
#[derive(Default, Debug)]
struct Seen {
    writes: u64,
    reads: u64,
    commands: u64,
    slverr_writes: u64,
    slverr_reads: u64,
    ignored_gives: u64,
    resets: u64,
    immediate_latencies: u64,
}

fn run(engine: Engine, seed: u64, transactions: u64) {
    let mut sim = axil_reg_port(engine).unwrap();
    let p = Ports::find(sim.as_ref());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut regs: Vec<u32> = (0..WORDS as u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    sim.reset(2).unwrap();

    let mut seen = Seen::default();
    let mut wcur: Option<WriteOp> = None;
    let mut rcur: Option<ReadOp> = None;
    // Answers the master waits for: (resp, immediate's valid cycle) and (data, resp, cycle).
    let mut want_b: VecDeque<(u64, Option<u64>)> = VecDeque::new();
    let mut want_r: VecDeque<(u32, u64, Option<u64>)> = VecDeque::new();
    // A command waiting: (cycles left, SLVERR).
    let mut cmd: Option<(u32, bool)> = None;
    let (mut writes_issued, mut reads_issued) = (0u64, 0u64);
    // A response offered and not taken in the cycle before a reset (it must vanish in it).
    let mut resets_over_response = 0u64;
    let mut response_left = false;
    let (mut lost_writes, mut lost_reads) = (0u64, 0u64);
    let (mut b_left, mut r_left): (Option<u64>, Option<(u64, u64)>) = (None, None);
    let mut stalled = 0u32;
    let mut rst_left = 0u32;
    let mut cycle = 0u64;
    let limit = transactions * 40 + 1000;

    // Directed first: a write whose W is withdrawn (AXI forbids it) is not taken while W is
    // down, and is taken once both are offered again.
    let mut directed_taken = false;
    for (aw, w) in [(1, 1), (1, 0), (1, 0), (1, 1), (1, 1)] {
        sim.set_u64(p.axil.awaddr, 4);
        sim.set_u64(p.axil.wdata, 0x1234_5678);
        sim.set_u64(p.axil.wstrb, 0xF);
        sim.set_u64(p.axil.awvalid, aw);
        sim.set_u64(p.axil.wvalid, w);
        sim.eval();
        let wr = sim.get_u64(p.wr);
        sim.set_u64(p.b_give, wr);
        sim.eval();
        let taken = sim.get_u64(p.wr);
        assert_eq!(sim.get_u64(p.axil.awready), sim.get_u64(p.axil.wready));
        assert!(taken == 0 || w == 1, "{engine}: a write taken while wvalid was withdrawn");
        if taken == 1 {
            directed_taken = true;
            sim.set_u64(p.axil.awvalid, 0);
            sim.set_u64(p.axil.wvalid, 0);
            sim.tick();
            break;
        }
        sim.tick();
    }
    sim.set_u64(p.axil.awvalid, 0);
    sim.set_u64(p.axil.wvalid, 0);
    sim.set_u64(p.b_give, 0);
    sim.set_u64(p.axil.bready, 1);
    for _ in 0..3 {
        sim.eval();
        sim.tick();
    }
    assert!(directed_taken, "{engine}: the write offered again was not taken");
    sim.reset(1).unwrap();

    while writes_issued < transactions
        || reads_issued < transactions
        || wcur.is_some()
        || rcur.is_some()
        || !want_b.is_empty()
        || !want_r.is_empty()
        || cmd.is_some()
    {
        cycle += 1;
        assert!(cycle < limit, "{engine}: the run hangs ({seen:?})");
        if rst_left == 0 && cycle > 20 && rng.gen_range(0..300) == 0 {
            rst_left = rng.gen_range(1..=3);
            resets_over_response += response_left as u64;
        }
        let in_rst = rst_left > 0;
        // ---- The master's side. ----
        // A new write once the last one was taken, often before its response.
        if wcur.is_none() && writes_issued < transactions && !in_rst && rng.gen_range(0..2) == 0 {
            let alone = want_b.is_empty();
            let word = match rng.gen_range(0..8) {
                0 => rng.gen_range(CMD_FIRST..UNMAPPED_FIRST),
                1 => rng.gen_range(UNMAPPED_FIRST..WORDS as u64),
                _ => rng.gen_range(0..CMD_FIRST),
            };
            let strb = if rng.gen_range(0..4) == 0 { rng.gen_range(0..15) } else { 0xF };
            wcur = Some(WriteOp {
                addr: word * 4 + rng.gen_range(0..4),
                data: rng.gen(),
                strb,
                aw_up: false,
                w_up: false,
                both_at: None,
                alone,
            });
            writes_issued += 1;
        }
        if let Some(w) = wcur.as_mut() {
            w.aw_up |= rng.gen_range(0..3) != 0;
            w.w_up |= rng.gen_range(0..3) != 0;
            if w.aw_up && w.w_up && w.both_at.is_none() && w.alone {
                w.both_at = Some(cycle);
            }
        }
        if rcur.is_none() && reads_issued < transactions && !in_rst && rng.gen_range(0..2) == 0 {
            let alone = want_r.is_empty();
            rcur = Some(ReadOp {
                addr: rng.gen_range(0..WORDS as u64 * 4),
                up: false,
                at: None,
                alone,
            });
            reads_issued += 1;
        }
        if let Some(r) = rcur.as_mut() {
            if !r.up && rng.gen_range(0..3) != 0 {
                r.up = true;
                r.at = r.alone.then_some(cycle);
            }
        }
        let (aw, wv) = wcur.as_ref().map_or((false, false), |w| (w.aw_up, w.w_up));
        if let Some(w) = &wcur {
            sim.set_u64(p.axil.awaddr, w.addr);
            sim.set_u64(p.axil.wdata, w.data as u64);
            sim.set_u64(p.axil.wstrb, w.strb);
        }
        let arv = rcur.as_ref().is_some_and(|r| r.up);
        if let Some(r) = &rcur {
            sim.set_u64(p.axil.araddr, r.addr);
        }
        // In reset every valid is offered: nothing may be taken.
        sim.set_u64(p.axil.awvalid, (aw || in_rst) as u64);
        sim.set_u64(p.axil.wvalid, (wv || in_rst) as u64);
        sim.set_u64(p.axil.arvalid, (arv || in_rst) as u64);
        let bready = in_rst || rng.gen_range(0..3) != 0;
        let rready = in_rst || rng.gen_range(0..3) != 0;
        sim.set_u64(p.axil.bready, bready as u64);
        sim.set_u64(p.axil.rready, rready as u64);
        sim.set_u64(p.rst, in_rst as u64);

        // ---- The register block's side (combinational answers). ----
        sim.eval();
        let ra = sim.get_u64(p.rd_addr);
        let r_ok = ra < UNMAPPED_FIRST;
        let r_val = if r_ok { regs[ra as usize] } else { 0 };
        sim.set_u64(p.rd_data, r_val as u64);
        sim.set_u64(p.rd_ok, r_ok as u64);
        let wr = sim.get_u64(p.wr) == 1;
        let (wa, wd, whole) =
            (sim.get_u64(p.wr_addr), sim.get_u64(p.wr_data) as u32, sim.get_u64(p.wr_whole) == 1);
        let (mut give, mut err) = (false, false);
        let mut new_cmd = None;
        let mut reg_write = None;
        if wr {
            if !whole || wa >= UNMAPPED_FIRST {
                (give, err) = (true, true);
            } else if wa >= CMD_FIRST {
                new_cmd = Some((rng.gen_range(1..=6u32), wd & 1 == 1));
            } else {
                give = true;
                reg_write = Some((wa as usize, wd));
            }
        } else if let Some((left, e)) = cmd.as_mut().filter(|_| !in_rst) {
            *left -= 1;
            if *left == 0 {
                (give, err) = (true, *e);
            }
        } else if rng.gen_range(0..10) == 0 {
            // Nothing waits: the port must ignore this.
            (give, err) = (true, rng.gen());
            seen.ignored_gives += 1;
        }
        sim.set_u64(p.b_give, give as u64);
        sim.set_u64(p.b_err, err as u64);
        sim.eval();

        // ---- Checks. ----
        let ctx = format!("{engine} seed {seed} cycle {cycle}");
        // No AXI output may follow an AXI input within the cycle.
        let outs = [
            p.axil.awready,
            p.axil.wready,
            p.axil.arready,
            p.axil.bvalid,
            p.axil.bresp,
            p.axil.rvalid,
            p.axil.rdata,
            p.axil.rresp,
        ];
        let ins = [
            p.axil.awaddr,
            p.axil.awvalid,
            p.axil.wdata,
            p.axil.wstrb,
            p.axil.wvalid,
            p.axil.bready,
            p.axil.araddr,
            p.axil.arvalid,
            p.axil.rready,
        ];
        let before: Vec<u64> = outs.iter().map(|&o| sim.get_u64(o)).collect();
        let held: Vec<u64> = ins.iter().map(|&i| sim.get_u64(i)).collect();
        for (&i, &v) in ins.iter().zip(&held) {
            sim.set_u64(i, !v & 0xFFFF_FFFF);
        }
        sim.eval();
        let flipped: Vec<u64> = outs.iter().map(|&o| sim.get_u64(o)).collect();
        assert_eq!(before, flipped, "{ctx}: an AXI output follows an AXI input");
        for (&i, &v) in ins.iter().zip(&held) {
            sim.set_u64(i, v);
        }
        sim.eval();
        let g = |sim: &mut Box<dyn CycleSim>, port: usize| sim.get_u64(port) == 1;
        let (awr, wrdy, arr) =
            (g(&mut sim, p.axil.awready), g(&mut sim, p.axil.wready), g(&mut sim, p.axil.arready));
        let (bv, rv, rd) =
            (g(&mut sim, p.axil.bvalid), g(&mut sim, p.axil.rvalid), g(&mut sim, p.rd));
        let pending = g(&mut sim, p.wr_pending);
        assert!(
            awr == wrdy && wr == (awr && aw && wv),
            "{ctx}: awready {awr}, wready {wrdy}, wr {wr}"
        );
        assert!(!awr || (aw && wv), "{ctx}: awready without both valids");
        assert_eq!(arr, rd, "{ctx}: arready and rd differ");
        assert!(!arr || arv, "{ctx}: arready without arvalid");
        // A response offered and not taken stays, with its value (but across a reset).
        if !in_rst {
            if let Some(resp) = b_left {
                assert!(
                    bv && sim.get_u64(p.axil.bresp) == resp,
                    "{ctx}: a write response withdrawn"
                );
            }
            if let Some((d, resp)) = r_left {
                let now = (sim.get_u64(p.axil.rdata), sim.get_u64(p.axil.rresp));
                assert!(rv && now == (d, resp), "{ctx}: a read response withdrawn or changed");
            }
        }
        b_left = (bv && !bready).then(|| sim.get_u64(p.axil.bresp));
        r_left = (rv && !rready).then(|| (sim.get_u64(p.axil.rdata), sim.get_u64(p.axil.rresp)));
        // Something moves while a transaction waits.
        let waiting = wcur.is_some() || rcur.is_some() || !want_b.is_empty() || !want_r.is_empty();
        let moved = wr || rd || (bv && bready) || (rv && rready);
        stalled = if in_rst || moved || !waiting { 0 } else { stalled + 1 };
        assert!(stalled < 40, "{ctx}: nothing moved for {stalled} cycles ({seen:?})");
        if in_rst {
            assert!(!awr && !arr && !bv && !rv, "{ctx}: a handshake in reset");
            assert!(!pending, "{ctx}: wr_pending in reset");
        } else {
            assert_eq!(pending, cmd.is_some(), "{ctx}: wr_pending");
            if wr {
                let w = wcur.take().expect("a write taken with nothing offered");
                assert!(aw && wv, "{ctx}: a write taken without both valids");
                assert_eq!(wa, (w.addr >> 2) & (WORDS as u64 - 1), "{ctx}: wr_addr");
                assert_eq!(wd, w.data, "{ctx}: wr_data");
                assert_eq!(whole, w.strb == 0xF, "{ctx}: wr_whole");
                if let Some(c) = new_cmd {
                    cmd = Some(c);
                    seen.commands += 1;
                    want_b.push_back((2 * c.1 as u64, None));
                } else {
                    want_b.push_back((2 * err as u64, w.both_at));
                }
                if let Some((a, d)) = reg_write {
                    regs[a] = d;
                }
            } else if give && cmd.is_some_and(|(left, _)| left == 0) {
                cmd = None;
            }
            if rd {
                let r = rcur.take().expect("a read taken with nothing offered");
                assert_eq!(ra, (r.addr >> 2) & (WORDS as u64 - 1), "{ctx}: rd_addr");
                want_r.push_back((r_val, 2 * !r_ok as u64, r.at));
            }
            if bv {
                let &(resp, at) =
                    want_b.front().unwrap_or_else(|| panic!("{ctx}: bvalid, no write"));
                if cmd.is_some() && want_b.len() == 1 {
                    panic!("{ctx}: bvalid before the command's answer");
                }
                if let Some(at) = at {
                    // The first cycle of this response: two cycles after both valids.
                    assert_eq!(
                        cycle - at,
                        2,
                        "{ctx}: a write answered {} cycles after",
                        cycle - at
                    );
                    seen.immediate_latencies += 1;
                }
                if bready {
                    assert_eq!(sim.get_u64(p.axil.bresp), resp, "{ctx}: bresp");
                    seen.writes += 1;
                    seen.slverr_writes += (resp == 2) as u64;
                    want_b.pop_front();
                } else if let Some(f) = want_b.front_mut() {
                    f.1 = None;
                }
            }
            if rv {
                let &(d, resp, at) =
                    want_r.front().unwrap_or_else(|| panic!("{ctx}: rvalid, no read"));
                if let Some(at) = at {
                    assert_eq!(cycle - at, 2, "{ctx}: a read answered {} cycles after", cycle - at);
                }
                if rready {
                    assert_eq!(sim.get_u64(p.axil.rresp), resp, "{ctx}: rresp");
                    assert_eq!(sim.get_u64(p.axil.rdata) as u32, d, "{ctx}: rdata");
                    seen.reads += 1;
                    seen.slverr_reads += (resp == 2) as u64;
                    want_r.pop_front();
                } else if let Some(f) = want_r.front_mut() {
                    f.2 = None;
                }
            }
        }
        response_left = (bv && !bready) || (rv && !rready);
        sim.tick();
        if in_rst {
            rst_left -= 1;
            if rst_left == 0 {
                // The port forgot everything: so does the master.
                seen.resets += 1;
                lost_writes += wcur.is_some() as u64 + want_b.len() as u64;
                lost_reads += rcur.is_some() as u64 + want_r.len() as u64;
                wcur = None;
                rcur = None;
                want_b.clear();
                want_r.clear();
                cmd = None;
            }
        }
    }
    assert!(seen.resets >= 10, "{engine}: {seen:?}");
    assert!(resets_over_response > 0, "{engine}: no reset over an offered response");
    for (what, n) in [
        ("writes", seen.writes),
        ("reads", seen.reads),
        ("commands", seen.commands),
        ("SLVERR writes", seen.slverr_writes),
        ("SLVERR reads", seen.slverr_reads),
        ("ignored b_give", seen.ignored_gives),
        ("answers at two cycles", seen.immediate_latencies),
    ] {
        assert!(n > 0, "{engine}: no {what} in the run ({seen:?})");
    }
    // Every transaction answered, but those a reset cut off.
    assert!(lost_writes <= 2 * seen.resets && lost_reads <= 2 * seen.resets, "{seen:?}");
    assert_eq!(seen.writes + lost_writes, transactions, "{engine}: {seen:?}");
    assert_eq!(seen.reads + lost_reads, transactions, "{engine}: {seen:?}");
}

#[test]
fn port_handshakes_rusthdl() {
    run(Engine::RustHdl, 1, 3000);
}

#[test]
fn port_handshakes_verilator() {
    run(Engine::Verilator, 2, 3000);
}
