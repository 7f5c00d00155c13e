//! `BoardLoopback`: what runs on the board. Traffic generator → `mpa_tx` → wire → `mpa_rx` →
//! checker, status on eight LEDs.
//!
//! ```text
//!  TrafficGen ─► MpaTx ─► fault (btn[1]) ─► MpaRx ─► LoopbackChecker ─► ok, bad, flags ─► led
//!  (ULPDUs)      4.1-4.5, 5.1   one bit      4.2-4.4, 6, 8
//! ```
//! The generator sends the ULPDUs of [`golden::traffic`] forever; `mpa_tx` frames them into
//! FPDU-aligned TCP segments (RFC 5044 4.1-4.5, 5.1), which go straight into `mpa_rx` (the TCP
//! sequence number with each segment); the checker compares every ULPDU `mpa_rx` delivers with
//! the one sent. The MPA settings are the same on both sides: EMSS 1460, the stream starting at
//! sequence number 0xFFFF_F000 (it wraps after 4 KiB) with the Marker origin there, Markers and
//! CRC as the switches say. A button press flips one bit of the next segment beat on the wire
//! (lane 0, bit 0): with CRC on `mpa_rx` must report the error (section 8) and deliver nothing
//! of the damaged FPDU, so `rx_error` lights and `mismatch` stays dark.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | the board clock |
//! | `btn` | in | 2 | buttons, active high, asynchronous (two-register synchronizers): `[0]` restart (reset while held), `[1]` inject one bit error per press |
//! | `sw` | in | 2 | switches, read while in reset: `[0]` Markers off, `[1]` CRC off (all off: Markers and CRC on) |
//! | `led` | out | 8 | `[0]` heartbeat (clock bit 23), `[1]` pass (ULPDUs checked, no flag), `[2]` mismatch, `[3]` rx_error, `[5:4]` its section 8 code, `[6]` tx_error, `[7]` activity (`ok` bit 17) |
//! | `ok`, `bad`, `sent` | out | 32 | ULPDUs received equal / different / sent since reset |
//! | `mismatch`, `rx_error`, `rx_code` | out | 1, 1, 2 | the checker's flags (see [`LoopbackChecker`]) |
//! | `tx_error` | out | 1 | `mpa_tx` flagged a ULPDU (length disagreement or above 64768 octets; sticky) |
//! | `faults` | out | 16 | bit errors injected since reset |
//! | `in_reset` | out | 1 | the datapath is in reset |
//!
//! The board wrappers ([`crate::board::pins`]) connect `clock`, `btn`, `sw` and `led` to pins
//! and leave the counters open (for simulation).
//!
//! ### Parameters
//! `W` bytes per beat, `B = 8W`, `A` release buffer address bits (`mpa_rx` holds `2^A` beats);
//! `new(len_mask)`: ULPDU lengths are `LFSR & len_mask` (keep them within the release buffer:
//! `len_mask <= (2^A - 1) W`).
//!
//! ### Reset
//! 32 cycles of reset after configuration (registers start at 0) and after `btn[0]` is released.

use crate::board::checker::LoopbackChecker;
use crate::board::traffic_gen::TrafficGen;
use crate::rx::mpa_rx::MpaRx;
use crate::rx::realigner::RX_SEG_USER;
use crate::tx::mpa_tx::MpaTx;
use rust_hdl::prelude::*;

/// Sequence number of the first octet of the loopback's stream (and its Marker origin).
pub const LOOPBACK_SEQ: u32 = 0xFFFF_F000;
/// EMSS of the loopback's segments.
pub const LOOPBACK_EMSS: u16 = 1460;

/// The board loopback; see the module documentation.
#[derive(LogicBlock)]
pub struct BoardLoopback<const W: usize, const B: usize, const A: usize> {
    /// The board clock.
    pub clock: Signal<In, Clock>,
    /// Buttons: `[0]` restart, `[1]` inject a bit error.
    pub btn: Signal<In, Bits<2>>,
    /// Switches: `[0]` Markers off, `[1]` CRC off.
    pub sw: Signal<In, Bits<2>>,
    /// Status LEDs.
    pub led: Signal<Out, Bits<8>>,
    /// ULPDUs received equal to what was sent.
    pub ok: Signal<Out, Bits<32>>,
    /// ULPDUs received that differ.
    pub bad: Signal<Out, Bits<32>>,
    /// ULPDUs sent.
    pub sent: Signal<Out, Bits<32>>,
    /// A received ULPDU differed (sticky).
    pub mismatch: Signal<Out, Bit>,
    /// `mpa_rx` reported an error (sticky).
    pub rx_error: Signal<Out, Bit>,
    /// Its section 8 code.
    pub rx_code: Signal<Out, Bits<2>>,
    /// `mpa_tx` flagged a ULPDU (sticky).
    pub tx_error: Signal<Out, Bit>,
    /// Bit errors injected since reset.
    pub faults: Signal<Out, Bits<16>>,
    /// The datapath is in reset.
    pub in_reset: Signal<Out, Bit>,
    traffic: TrafficGen<W, B>,
    tx_path: MpaTx<W, B>,
    rx_path: MpaRx<W, B, A>,
    chk: LoopbackChecker<W, B>,
    btn_s1: DFF<Bits<2>>,
    btn_s2: DFF<Bits<2>>,
    sw_s1: DFF<Bits<2>>,
    sw_s2: DFF<Bits<2>>,
    por: DFF<Bits<5>>,
    rst_q: DFF<Bit>,
    markers_q: DFF<Bit>,
    crc_q: DFF<Bit>,
    fault_prev: DFF<Bit>,
    fault_pending: DFF<Bit>,
    fault_armed: DFF<Bit>,
    fault_count: DFF<Bits<16>>,
    tx_err_q: DFF<Bit>,
    beat: DFF<Bits<24>>,
    stalled: Signal<Local, Bit>,
    led_v: Signal<Local, Bits<8>>,
    c_seq: Constant<Bits<32>>,
    c_emss: Constant<Bits<16>>,
    c_len_mask: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> BoardLoopback<W, B, A> {
    /// Bytes per beat.
    pub const WIDTH: usize = W;
    /// Release buffer address bits.
    pub const BUFFER_BITS: usize = A;

    /// Builds the loopback with ULPDU lengths `LFSR & len_mask`; panics if a length could exceed
    /// the release buffer.
    pub fn new(len_mask: u16) -> Self {
        assert!(
            (len_mask as usize) <= MpaRx::<W, B, A>::max_ulpdu(),
            "BoardLoopback: len_mask {len_mask:#x} allows ULPDUs above the {}-octet release buffer limit",
            MpaRx::<W, B, A>::max_ulpdu()
        );
        Self {
            clock: Default::default(),
            btn: Default::default(),
            sw: Default::default(),
            led: Default::default(),
            ok: Default::default(),
            bad: Default::default(),
            sent: Default::default(),
            mismatch: Default::default(),
            rx_error: Default::default(),
            rx_code: Default::default(),
            tx_error: Default::default(),
            faults: Default::default(),
            in_reset: Default::default(),
            traffic: TrafficGen::new(),
            tx_path: MpaTx::new(),
            rx_path: MpaRx::new(),
            chk: LoopbackChecker::new(),
            btn_s1: Default::default(),
            btn_s2: Default::default(),
            sw_s1: Default::default(),
            sw_s2: Default::default(),
            por: Default::default(),
            rst_q: Default::default(),
            markers_q: Default::default(),
            crc_q: Default::default(),
            fault_prev: Default::default(),
            fault_pending: Default::default(),
            fault_armed: Default::default(),
            fault_count: Default::default(),
            tx_err_q: Default::default(),
            beat: Default::default(),
            stalled: Default::default(),
            led_v: Default::default(),
            c_seq: Constant::new((LOOPBACK_SEQ as u64).into()),
            c_emss: Constant::new((LOOPBACK_EMSS as u64).into()),
            c_len_mask: Constant::new((len_mask as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for BoardLoopback<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            btn_s1,
            btn_s2,
            sw_s1,
            sw_s2,
            por,
            rst_q,
            markers_q,
            crc_q,
            fault_prev,
            fault_pending,
            fault_armed,
            fault_count,
            tx_err_q,
            beat
        );
        self.traffic.clock.next = self.clock.val();
        self.tx_path.clock.next = self.clock.val();
        self.rx_path.clock.next = self.clock.val();
        self.chk.clock.next = self.clock.val();
        // Synchronizers; reset after configuration and while restart is held.
        self.btn_s1.d.next = self.btn.val();
        self.btn_s2.d.next = self.btn_s1.q.val();
        self.sw_s1.d.next = self.sw.val();
        self.sw_s2.d.next = self.sw_s1.q.val();
        if self.por.q.val() != 31 {
            self.por.d.next = self.por.q.val() + 1;
        }
        if self.btn_s2.q.val().get_bit(0) {
            self.por.d.next = 0.into();
        }
        self.rst_q.d.next = self.por.q.val() != 31;
        if self.rst_q.q.val() {
            self.markers_q.d.next = !self.sw_s2.q.val().get_bit(0);
            self.crc_q.d.next = !self.sw_s2.q.val().get_bit(1);
        }
        self.traffic.rst.next = self.rst_q.q.val();
        self.tx_path.rst.next = self.rst_q.q.val();
        self.rx_path.rst.next = self.rst_q.q.val();
        self.chk.rst.next = self.rst_q.q.val();
        // Settings, the same on both sides.
        self.traffic.cfg_len_mask.next = self.c_len_mask.val();
        self.chk.cfg_len_mask.next = self.c_len_mask.val();
        self.tx_path.cfg_markers.next = self.markers_q.q.val();
        self.tx_path.cfg_crc.next = self.crc_q.q.val();
        self.tx_path.cfg_emss.next = self.c_emss.val();
        // Every FPDU the traffic generator sends is pushed or followed: no idle limit.
        self.tx_path.cfg_idle.next = 0.into();
        self.tx_path.cfg_seq.next = self.c_seq.val();
        self.tx_path.cfg_origin.next = self.c_seq.val();
        self.rx_path.cfg_markers.next = self.markers_q.q.val();
        self.rx_path.cfg_crc.next = self.crc_q.q.val();
        self.rx_path.cfg_seq.next = self.c_seq.val();
        self.rx_path.cfg_origin.next = self.c_seq.val();
        self.rx_path.cfg_max_ulpdu.next = 0xFFFF.into();
        // Generator -> mpa_tx.
        self.tx_path.s_axis.data.next = self.traffic.m_axis.data.val();
        self.tx_path.s_axis.keep.next = self.traffic.m_axis.keep.val();
        self.tx_path.s_axis.user.next = self.traffic.m_axis.user.val();
        self.tx_path.s_axis.last.next = self.traffic.m_axis.last.val();
        self.tx_path.s_axis.valid.next = self.traffic.m_axis.valid.val();
        self.traffic.m_axis.ready.next = self.tx_path.s_axis.ready.val();
        // The wire: segments with their sequence numbers; one bit flipped per button press, on a
        // beat offered after the press (armed only while no beat waits, so a waiting beat never
        // changes).
        self.rx_path.s_axis.data.next = self.tx_path.m_axis.data.val();
        if self.fault_armed.q.val() {
            self.rx_path.s_axis.data.next = self.tx_path.m_axis.data.val() ^ 1;
        }
        self.rx_path.s_axis.keep.next = self.tx_path.m_axis.keep.val();
        self.rx_path.s_axis.user.next = bit_cast::<RX_SEG_USER, 32>(self.tx_path.m_axis.user.val());
        self.rx_path.s_axis.last.next = self.tx_path.m_axis.last.val();
        self.rx_path.s_axis.valid.next = self.tx_path.m_axis.valid.val();
        self.tx_path.m_axis.ready.next = self.rx_path.s_axis.ready.val();
        self.fault_prev.d.next = self.btn_s2.q.val().get_bit(1);
        if self.btn_s2.q.val().get_bit(1) & !self.fault_prev.q.val() {
            self.fault_pending.d.next = true;
        }
        self.stalled.next = self.tx_path.m_axis.valid.val() & !self.rx_path.s_axis.ready.val();
        if self.fault_armed.q.val() {
            if self.tx_path.m_axis.valid.val() & self.rx_path.s_axis.ready.val() {
                self.fault_armed.d.next = false;
                self.fault_count.d.next = self.fault_count.q.val() + 1;
            }
        } else if self.fault_pending.q.val() & !self.stalled.val() {
            self.fault_armed.d.next = true;
            self.fault_pending.d.next = false;
        }
        // mpa_rx -> checker.
        self.chk.s_axis.data.next = self.rx_path.m_axis.data.val();
        self.chk.s_axis.keep.next = self.rx_path.m_axis.keep.val();
        self.chk.s_axis.user.next = self.rx_path.m_axis.user.val();
        self.chk.s_axis.last.next = self.rx_path.m_axis.last.val();
        self.chk.s_axis.valid.next = self.rx_path.m_axis.valid.val();
        self.rx_path.m_axis.ready.next = self.chk.s_axis.ready.val();
        // Status.
        if self.tx_path.err_length.val() | self.tx_path.err_too_long.val() {
            self.tx_err_q.d.next = true;
        }
        if self.rst_q.q.val() {
            self.fault_pending.d.next = false;
            self.fault_armed.d.next = false;
            self.fault_count.d.next = 0.into();
            self.tx_err_q.d.next = false;
        }
        self.beat.d.next = self.beat.q.val() + 1;
        self.led_v.next = 0.into();
        self.led_v.next = self.led_v.val().replace_bit(0, self.beat.q.val().get_bit(23));
        self.led_v.next = self.led_v.val().replace_bit(
            1,
            (self.chk.ok.val() != 0)
                & !self.chk.mismatch.val()
                & !self.chk.rx_error.val()
                & !self.tx_err_q.q.val(),
        );
        self.led_v.next = self.led_v.val().replace_bit(2, self.chk.mismatch.val());
        self.led_v.next = self.led_v.val().replace_bit(3, self.chk.rx_error.val());
        self.led_v.next = self.led_v.val().replace_bit(4, self.chk.rx_code.val().get_bit(0));
        self.led_v.next = self.led_v.val().replace_bit(5, self.chk.rx_code.val().get_bit(1));
        self.led_v.next = self.led_v.val().replace_bit(6, self.tx_err_q.q.val());
        self.led_v.next = self.led_v.val().replace_bit(7, self.chk.ok.val().get_bit(17));
        self.led.next = self.led_v.val();
        self.ok.next = self.chk.ok.val();
        self.bad.next = self.chk.bad.val();
        self.sent.next = self.traffic.sent.val();
        self.mismatch.next = self.chk.mismatch.val();
        self.rx_error.next = self.chk.rx_error.val();
        self.rx_code.next = self.chk.rx_code.val();
        self.tx_error.next = self.tx_err_q.q.val();
        self.faults.next = self.fault_count.q.val();
        self.in_reset.next = self.rst_q.q.val();
    }
}
