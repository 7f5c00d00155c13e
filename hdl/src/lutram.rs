//! `LutRam`: a small memory with a synchronous write port and an asynchronous read port.
//!
//! A primitive, like rust-hdl's own `DFF` and `RAM`: a Rust model plus a few lines of custom
//! Verilog that Yosys maps to distributed RAM (`TRELLIS_DPR16X4` on ECP5, 16 words x 4 bits per
//! primitive; async read costs about one LUT). rust-hdl 0.46's `RAM` only reads synchronously.
//! The exported Verilog of every block that uses it is replayed against the Rust model in the
//! lockstep tests. No RFC section: infrastructure.
//!
//! ### Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | write clock |
//! | `write_enable`, `write_address`, `write_data` | in | 1, A, N | written at the rising edge |
//! | `read_address` | in | A | read address |
//! | `read_data` | out | N | `mem[read_address]`, combinationally (a write shows after its edge) |
//!
//! ### Parameters
//! `N` bits per word, `A` address bits (2^A words). Contents are undefined until written (the
//! Rust model starts at zero; never read a word before writing it).

use rust_hdl::prelude::*;

/// Synchronous-write, asynchronous-read memory; see the module documentation.
#[derive(LogicBlock)]
pub struct LutRam<const N: usize, const A: usize> {
    /// Write clock.
    pub clock: Signal<In, Clock>,
    /// Write this cycle.
    pub write_enable: Signal<In, Bit>,
    /// Word to write.
    pub write_address: Signal<In, Bits<A>>,
    /// Value to write.
    pub write_data: Signal<In, Bits<N>>,
    /// Word to read.
    pub read_address: Signal<In, Bits<A>>,
    /// The word read.
    pub read_data: Signal<Out, Bits<N>>,
    _mem: Vec<Bits<N>>,
}

impl<const N: usize, const A: usize> Default for LutRam<N, A> {
    fn default() -> Self {
        assert!(A <= 8, "LutRam: at most 8 address bits (got {A})");
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: vec![Bits::default(); 1 << A],
        }
    }
}

impl<const N: usize, const A: usize> Logic for LutRam<N, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            self._mem[self.write_address.val().index()] = self.write_data.val();
        }
        self.read_data.next = self._mem[self.read_address.val().index()];
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] lutram_words [0:{last}];

always @(posedge clock) begin
   if (write_enable) begin
      lutram_words[write_address] <= write_data;
   end
end

always @(*) begin
   read_data = lutram_words[read_address];
end
",
            msb = N - 1,
            last = (1 << A) - 1
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "lutram_write".into(),
            clock: "clock".into(),
            inputs: vec!["write_enable".into(), "write_address".into(), "write_data".into()],
            outputs: vec![],
        }]
    }
}
