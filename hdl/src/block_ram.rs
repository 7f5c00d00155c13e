//! `BlockRam`: a simple dual-port memory (one write port, one registered read port, one clock)
//! whose read-during-write result is left undefined, so that Yosys maps it to block RAM without
//! the bypass logic it otherwise adds.
//!
//! A primitive, like rust-hdl's own `RAM` (same ports, one clock): a Rust model plus a few lines
//! of custom Verilog. rust-hdl's `RAM` is "read old data" when the read address is the one
//! written in the same cycle; the ECP5 block RAM (`DP16KD`) does not promise that across its
//! ports, so Yosys emulates it: a comparison of the two addresses, a register of the written
//! word and a multiplexer on the read data (stop 59: in `mpa_rx_w8` that bypass, behind the
//! release buffer's read pointer, was the critical path at two seeds of three). The
//! memory here carries Yosys's `no_rw_check` attribute (collisions are don't-care). The Rust
//! model returns the old word, as the exported Verilog does in simulation (so the two engines
//! stay in lockstep); with the environment variable `RNIC_BRAM_POISON=1` set when a block is
//! built, its model returns the old word inverted instead, so that a test can show that the
//! block never uses such a read ([`COLLISIONS`] counts them, to show they happened).
//! No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | the clock of both ports |
//! | `write_enable`, `write_address`, `write_data` | in | 1, A, N | written at the rising edge |
//! | `read_address` | in | A | read at the rising edge |
//! | `read_data` | out | N | the word at the address of the edge before; undefined (poisoned in the model) when that edge also wrote that address |
//!
//! ### Parameters
//! `N` bits per word, `A` address bits (2^A words). Contents are undefined until written (the
//! Rust model starts at zero; never use a word before writing it).
//!
//! ### Latency
//! One cycle from the read address to the data.

use rust_hdl::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Reads of a word in the cycle it was written, over every `BlockRam` model in the process.
pub static COLLISIONS: AtomicU64 = AtomicU64::new(0);

/// Simple dual-port block RAM with undefined read-during-write; see the module documentation.
#[derive(LogicBlock)]
pub struct BlockRam<const N: usize, const A: usize> {
    /// Clock of both ports.
    pub clock: Signal<In, Clock>,
    /// Write this cycle.
    pub write_enable: Signal<In, Bit>,
    /// Word to write.
    pub write_address: Signal<In, Bits<A>>,
    /// Value to write.
    pub write_data: Signal<In, Bits<N>>,
    /// Word to read (at the edge).
    pub read_address: Signal<In, Bits<A>>,
    /// The word read at the edge before.
    pub read_data: Signal<Out, Bits<N>>,
    _mem: Vec<Bits<N>>,
    _poison: bool,
}

impl<const N: usize, const A: usize> Default for BlockRam<N, A> {
    fn default() -> Self {
        assert!(A <= 16, "BlockRam: at most 16 address bits (got {A})");
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: vec![Bits::default(); 1 << A],
            _poison: std::env::var("RNIC_BRAM_POISON").is_ok_and(|v| v == "1"),
        }
    }
}

impl<const N: usize, const A: usize> Logic for BlockRam<N, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let ra = self.read_address.val().index();
            let old = self._mem[ra];
            let collides = self.write_enable.val() && self.write_address.val().index() == ra;
            self.read_data.next = old;
            if collides {
                COLLISIONS.fetch_add(1, Ordering::Relaxed);
                if self._poison {
                    self.read_data.next = !old;
                }
            }
            if self.write_enable.val() {
                self._mem[self.write_address.val().index()] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg [{msb}:0] bram_words [0:{last}];

always @(posedge clock) begin
   if (write_enable) begin
      bram_words[write_address] <= write_data;
   end
   read_data <= bram_words[read_address];
end
",
            msb = N - 1,
            last = (1 << A) - 1
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "bram".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_address".into(),
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}
