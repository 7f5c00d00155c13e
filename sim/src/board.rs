//! The board loopback ([`hdl::board`]) under simulation: the generator, the checker and the
//! whole board core on either engine, and a driver that runs the core like a board does
//! (buttons, switches, LEDs).

use crate::tx::block_engine;
use crate::CycleSim;
use crate::Engine;
use hdl::board::checker::LoopbackChecker;
use hdl::board::loopback::BoardLoopback;
use hdl::board::pins::{Board, Hx8kCore, Ulx3sCore};
use hdl::board::traffic_gen::TrafficGen;
use hdl::with_width;

crate::direct_top!([const W: usize, const B: usize] TrafficGen<W, B> {
    in rst, in cfg_len_mask, source m_axis, out sent
});

crate::direct_top!([const W: usize, const B: usize] LoopbackChecker<W, B> {
    in rst, in cfg_len_mask, sink s_axis, out ok, out bad, out mismatch, out rx_error, out rx_code
});

crate::direct_top!([const W: usize, const B: usize, const A: usize] BoardLoopback<W, B, A> {
    in btn, in sw, out led, out ok, out bad, out sent, out mismatch, out rx_error, out rx_code,
    out tx_error, out faults, out in_reset
});

/// The traffic generator alone at `width` bytes per beat.
pub fn traffic_gen(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("traffic_gen_w{W}"),
        TrafficGen::<W, B>::new()
    ))
}

/// The loopback checker alone at `width` bytes per beat.
pub fn checker(engine: Engine, width: usize) -> Result<Box<dyn CycleSim>, String> {
    hdl::export::check_width(width)?;
    with_width!(width, |W, B| block_engine(
        engine,
        &format!("loopback_checker_w{W}"),
        LoopbackChecker::<W, B>::new()
    ))
}

/// The loopback core of `board` as the board runs it: the rust-hdl model or the exported
/// `<board>_loopback_core` on Verilator.
pub fn board_core(engine: Engine, board: Board) -> Result<Box<dyn CycleSim>, String> {
    let spec = hdl::export::board_spec(board);
    let mask = board.info().len_mask;
    match board {
        Board::Ulx3s => crate::tx::top_engine(engine, &spec, || Ulx3sCore::new(mask), None),
        Board::Hx8k => crate::tx::top_engine(engine, &spec, || Hx8kCore::new(mask), None),
    }
}

/// What the board shows after a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardStatus {
    /// The LEDs.
    pub led: u8,
    /// ULPDUs received equal to what was sent.
    pub ok: u32,
    /// ULPDUs received that differ.
    pub bad: u32,
    /// ULPDUs sent.
    pub sent: u32,
    /// The checker saw a different ULPDU.
    pub mismatch: bool,
    /// `mpa_rx` reported an error.
    pub rx_error: bool,
    /// Its section 8 code.
    pub rx_code: u8,
    /// `mpa_tx` flagged a ULPDU.
    pub tx_error: bool,
    /// Bit errors injected.
    pub faults: u16,
    /// In reset.
    pub in_reset: bool,
}

/// Drives a board core: buttons and switches in, status out.
pub struct BoardDriver {
    sim: Box<dyn CycleSim>,
    btn: usize,
    sw: usize,
    btn_v: u64,
    sw_v: u64,
}

impl BoardDriver {
    /// Wraps a board core simulation (buttons released, switches off).
    pub fn new(mut sim: Box<dyn CycleSim>) -> Result<Self, String> {
        let btn = sim.port("btn")?;
        let sw = sim.port("sw")?;
        sim.set_u64(btn, 0);
        sim.set_u64(sw, 0);
        sim.eval();
        Ok(Self { sim, btn, sw, btn_v: 0, sw_v: 0 })
    }

    /// Runs `cycles` clock cycles with the inputs as they are.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.sim.tick();
        }
    }

    /// Sets the switches (read at the next reset).
    pub fn set_switches(&mut self, markers_off: bool, crc_off: bool) {
        self.sw_v = markers_off as u64 | (crc_off as u64) << 1;
        self.sim.set_u64(self.sw, self.sw_v);
        self.sim.eval();
    }

    fn set_button(&mut self, bit: u64, down: bool) {
        self.btn_v = if down { self.btn_v | bit } else { self.btn_v & !bit };
        self.sim.set_u64(self.btn, self.btn_v);
        self.sim.eval();
    }

    /// Holds a button down for `cycles` cycles, then releases it.
    fn press(&mut self, bit: u64, cycles: u64) {
        self.set_button(bit, true);
        self.run(cycles);
        self.set_button(bit, false);
    }

    /// Presses restart for `cycles` cycles.
    pub fn restart(&mut self, cycles: u64) {
        self.press(1, cycles);
    }

    /// Presses the bit-error button for `cycles` cycles.
    pub fn inject(&mut self, cycles: u64) {
        self.press(2, cycles);
    }

    /// Cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// The status outputs now.
    pub fn status(&mut self) -> Result<BoardStatus, String> {
        let mut get = |name: &str| -> Result<u64, String> {
            let p = self.sim.port(name)?;
            Ok(self.sim.get_u64(p))
        };
        Ok(BoardStatus {
            led: get("led")? as u8,
            ok: get("ok")? as u32,
            bad: get("bad")? as u32,
            sent: get("sent")? as u32,
            mismatch: get("mismatch")? != 0,
            rx_error: get("rx_error")? != 0,
            rx_code: get("rx_code")? as u8,
            tx_error: get("tx_error")? != 0,
            faults: get("faults")? as u16,
            in_reset: get("in_reset")? != 0,
        })
    }
}
