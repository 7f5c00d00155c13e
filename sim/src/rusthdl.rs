//! The rust-hdl engine: the model itself, driven directly.
//!
//! rust-hdl's threaded `Simulation` costs ~100 us per cycle; driving the block directly
//! (`update_all` until nothing changes, the clock toggled by hand) is two orders of magnitude
//! faster and matches it cycle for cycle. A block becomes drivable by implementing [`DirectTop`],
//! which binds each exported port name to a field of the block.
//!
//! VCD: [`RustHdlSim::with_vcd`] writes every signal of the hierarchy at every clock edge
//! (about 45 times slower; for debugging only).

use crate::{words_for, CycleSim, Port, PortDir};
use rust_hdl::prelude::*;
use std::io::BufWriter;
use std::path::Path;

/// How a port of a block is reached.
pub enum Binding<T> {
    /// An input: writes the value into the block's input signal.
    Input(fn(&mut T, &[u64])),
    /// An output (or any readable signal): reads it into words.
    Output(fn(&T, &mut [u64])),
    /// The clock: driven by [`CycleSim::tick`].
    Clock,
}

/// A rust-hdl block that [`RustHdlSim`] can drive: its ports bound by their rust-hdl names
/// (`s_axis$data`), as [`hdl::export::top_ports`] lists them.
pub trait DirectTop: Block + Sized {
    /// The binding of the port rust-hdl calls `hdl_name`, or `None` if the block has no such port.
    fn bind(hdl_name: &str) -> Option<Binding<Self>>;
    /// The block's clock input.
    fn clock_signal(&mut self) -> &mut Signal<In, Clock>;
}

/// Conversion between a signal type and port words.
pub trait WordValue: Sized {
    /// From little-endian words (bits above the width ignored).
    fn from_words(w: &[u64]) -> Self;
    /// Into little-endian words.
    fn to_words(&self, out: &mut [u64]);
}

impl WordValue for bool {
    fn from_words(w: &[u64]) -> Self {
        w[0] & 1 != 0
    }
    fn to_words(&self, out: &mut [u64]) {
        out[0] = *self as u64;
    }
}

impl<const N: usize> WordValue for Bits<N> {
    fn from_words(w: &[u64]) -> Self {
        if N <= 64 {
            let mask = if N == 64 { u64::MAX } else { (1u64 << N) - 1 };
            Bits::from(w[0] & mask)
        } else {
            let mut a = [false; N];
            for (i, bit) in a.iter_mut().enumerate() {
                *bit = (w[i / 64] >> (i % 64)) & 1 != 0;
            }
            Bits::Long(a.into())
        }
    }
    fn to_words(&self, out: &mut [u64]) {
        if N <= 64 {
            out[0] = (*self).into();
        } else {
            out.iter_mut().for_each(|w| *w = 0);
            for i in 0..N {
                if self.get_bit(i) {
                    out[i / 64] |= 1 << (i % 64);
                }
            }
        }
    }
}

/// Converts words to a signal value (helper for [`DirectTop::bind`] closures).
pub fn from_words<T: WordValue>(w: &[u64]) -> T {
    T::from_words(w)
}

/// Converts a signal value to words (helper for [`DirectTop::bind`] closures).
pub fn to_words<T: WordValue>(v: T, out: &mut [u64]) {
    v.to_words(out)
}

/// Settle passes after which a block is declared oscillating.
const MAX_PASSES: usize = 200;

/// The direct-drive rust-hdl engine.
pub struct RustHdlSim<T: DirectTop> {
    top: T,
    ports: Vec<Port>,
    bindings: Vec<Binding<T>>,
    inputs: Vec<Vec<u64>>,
    cycles: u64,
    dirty: bool,
    passes: u64,
    vcd: Option<rust_hdl::core::vcd_probe::VCDProbe<BufWriter<std::fs::File>>>,
}

impl<T: DirectTop> RustHdlSim<T> {
    /// Connects and checks `top` (rust-hdl `check_all`), binds its ports and settles it.
    pub fn new(mut top: T) -> Result<Self, String> {
        top.connect_all();
        check_all(&top).map_err(|e| format!("rust-hdl check failed: {e:?}"))?;
        let ports = hdl::export::top_ports(&top);
        let mut bindings = Vec::with_capacity(ports.len());
        for p in &ports {
            let b = T::bind(&p.hdl_name)
                .ok_or_else(|| format!("no binding for port {}", p.hdl_name))?;
            match (&b, p.dir) {
                (Binding::Input(_), PortDir::Input) | (Binding::Clock, PortDir::Input) => {}
                (Binding::Output(_), PortDir::Output) => {}
                _ => return Err(format!("binding of {} has the wrong direction", p.hdl_name)),
            }
            bindings.push(b);
        }
        let inputs = ports.iter().map(|p| vec![0u64; words_for(p.width)]).collect();
        let mut sim = RustHdlSim {
            top,
            ports,
            bindings,
            inputs,
            cycles: 0,
            dirty: true,
            passes: 0,
            vcd: None,
        };
        sim.top.clock_signal().next = Clock::from(false);
        sim.settle();
        Ok(sim)
    }

    /// Also writes a VCD file of every signal, one timestamp per clock edge (10 time units per
    /// cycle, 1 ps each as rust-hdl declares them).
    pub fn with_vcd(mut self, path: &Path) -> Result<Self, String> {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut probe = write_vcd_header(BufWriter::new(f), &self.top);
        probe.timestamp(0).map_err(|e| e.to_string())?;
        self.vcd = Some(write_vcd_change(probe, &self.top));
        Ok(self)
    }

    /// The block being simulated.
    pub fn top(&self) -> &T {
        &self.top
    }

    /// Settle passes so far (each pass evaluates the whole hierarchy once).
    pub fn passes(&self) -> u64 {
        self.passes
    }

    fn settle(&mut self) {
        for _ in 0..MAX_PASSES {
            self.top.update_all();
            self.passes += 1;
            if !self.top.has_changed() {
                self.dirty = false;
                return;
            }
        }
        panic!("rust-hdl model did not settle after {MAX_PASSES} passes (combinational loop?)");
    }

    fn dump(&mut self, time: u64) {
        if let Some(mut probe) = self.vcd.take() {
            let _ = probe.timestamp(time);
            self.vcd = Some(write_vcd_change(probe, &self.top));
        }
    }
}

impl<T: DirectTop> Drop for RustHdlSim<T> {
    fn drop(&mut self) {
        if let Some(probe) = self.vcd.take() {
            drop(probe); // flushes the BufWriter
        }
    }
}

impl<T: DirectTop> CycleSim for RustHdlSim<T> {
    fn engine(&self) -> &'static str {
        "rusthdl"
    }

    fn ports(&self) -> &[Port] {
        &self.ports
    }

    fn set(&mut self, port: usize, value: &[u64]) {
        let n = self.inputs[port].len();
        self.inputs[port].copy_from_slice(&value[..n]);
        match &self.bindings[port] {
            Binding::Input(f) => f(&mut self.top, value),
            Binding::Clock => panic!("{} is driven by tick()", self.ports[port].name),
            Binding::Output(_) => panic!("{} is an output", self.ports[port].name),
        }
        self.dirty = true;
    }

    fn get(&mut self, port: usize, out: &mut [u64]) {
        if self.dirty {
            self.settle();
        }
        assert!(out.len() >= words_for(self.ports[port].width));
        match &self.bindings[port] {
            Binding::Output(f) => f(&self.top, out),
            _ => out[..self.inputs[port].len()].copy_from_slice(&self.inputs[port]),
        }
    }

    fn eval(&mut self) {
        // The falling clock edge is settled together with the new inputs (nothing reacts to it).
        if self.top.clock_signal().val().clk {
            self.top.clock_signal().next = Clock::from(false);
            self.dirty = true;
        }
        if self.dirty {
            self.settle();
            self.dump(self.cycles * 10 + 5);
        }
    }

    fn tick(&mut self) {
        self.eval();
        self.top.clock_signal().next = Clock::from(true);
        self.settle();
        self.cycles += 1;
        let t = self.cycles * 10;
        self.dump(t);
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }
}

/// Implements [`DirectTop`] for a block from a list of its ports: `in name` / `out name` for a
/// plain port, `sink name` / `source name` for a stream bundle (its six fields), `axi_master
/// name` / `axil_slave name` for the AXI4 write channels and the AXI4-Lite slave of
/// [`hdl::axi`], `header_in name` for the placement checker's header record input, `in0 name` / `out0 name` for the one entry of an optional port (a `Vec` of
/// one signal, rust-hdl's `name$0`). The block's clock must be the field `clock`.
///
/// ```ignore
/// sim::direct_top!([const W: usize, const B: usize] TxFramer<W, B> {
///     in rst, in cfg_markers, sink s_axis, source m_axis, out err_length
/// });
/// ```
#[macro_export]
macro_rules! direct_top {
    ([$($gen:tt)*] $ty:ty { $($kind:ident $field:ident),* $(,)? }) => {
        impl<$($gen)*> $crate::rusthdl::DirectTop for $ty {
            fn bind(name: &str) -> Option<$crate::rusthdl::Binding<Self>> {
                if name == "clock" {
                    return Some($crate::rusthdl::Binding::Clock);
                }
                $( $crate::direct_top!(@arm name, $kind $field); )*
                None
            }
            fn clock_signal(
                &mut self,
            ) -> &mut rust_hdl::prelude::Signal<rust_hdl::prelude::In, rust_hdl::prelude::Clock> {
                &mut self.clock
            }
        }
    };
    (@arm $n:ident, in $f:ident) => {
        if $n == stringify!($f) {
            return Some($crate::rusthdl::Binding::Input(|t, v| {
                t.$f.next = $crate::rusthdl::from_words(v)
            }));
        }
    };
    (@arm $n:ident, out $f:ident) => {
        if $n == stringify!($f) {
            return Some($crate::rusthdl::Binding::Output(|t, o| {
                $crate::rusthdl::to_words(t.$f.val(), o)
            }));
        }
    };
    // The one entry of an optional port (a `Vec` of one signal when built, empty otherwise:
    // rust-hdl names it `f$0`; a block built without it never asks for the name).
    (@arm $n:ident, in0 $f:ident) => {
        if $n == concat!(stringify!($f), "$0") {
            return Some($crate::rusthdl::Binding::Input(|t, v| {
                t.$f[0].next = $crate::rusthdl::from_words(v)
            }));
        }
    };
    (@arm $n:ident, out0 $f:ident) => {
        if $n == concat!(stringify!($f), "$0") {
            return Some($crate::rusthdl::Binding::Output(|t, o| {
                $crate::rusthdl::to_words(t.$f[0].val(), o)
            }));
        }
    };
    (@arm $n:ident, sink $f:ident) => {
        $crate::direct_top!(@field_in $n, $f, data);
        $crate::direct_top!(@field_in $n, $f, keep);
        $crate::direct_top!(@field_in $n, $f, user);
        $crate::direct_top!(@field_in $n, $f, last);
        $crate::direct_top!(@field_in $n, $f, valid);
        $crate::direct_top!(@field_out $n, $f, ready);
    };
    (@arm $n:ident, source $f:ident) => {
        $crate::direct_top!(@field_out $n, $f, data);
        $crate::direct_top!(@field_out $n, $f, keep);
        $crate::direct_top!(@field_out $n, $f, user);
        $crate::direct_top!(@field_out $n, $f, last);
        $crate::direct_top!(@field_out $n, $f, valid);
        $crate::direct_top!(@field_in $n, $f, ready);
    };
    (@arm $n:ident, axi_master $f:ident) => {
        $crate::direct_top!(@field_out $n, $f, awaddr);
        $crate::direct_top!(@field_out $n, $f, awlen);
        $crate::direct_top!(@field_out $n, $f, awsize);
        $crate::direct_top!(@field_out $n, $f, awburst);
        $crate::direct_top!(@field_out $n, $f, awcache);
        $crate::direct_top!(@field_out $n, $f, awprot);
        $crate::direct_top!(@field_out $n, $f, awvalid);
        $crate::direct_top!(@field_in $n, $f, awready);
        $crate::direct_top!(@field_out $n, $f, wdata);
        $crate::direct_top!(@field_out $n, $f, wstrb);
        $crate::direct_top!(@field_out $n, $f, wlast);
        $crate::direct_top!(@field_out $n, $f, wvalid);
        $crate::direct_top!(@field_in $n, $f, wready);
        $crate::direct_top!(@field_in $n, $f, bresp);
        $crate::direct_top!(@field_in $n, $f, bvalid);
        $crate::direct_top!(@field_out $n, $f, bready);
    };
    (@arm $n:ident, axil_slave $f:ident) => {
        $crate::direct_top!(@field_in $n, $f, awaddr);
        $crate::direct_top!(@field_in $n, $f, awvalid);
        $crate::direct_top!(@field_out $n, $f, awready);
        $crate::direct_top!(@field_in $n, $f, wdata);
        $crate::direct_top!(@field_in $n, $f, wstrb);
        $crate::direct_top!(@field_in $n, $f, wvalid);
        $crate::direct_top!(@field_out $n, $f, wready);
        $crate::direct_top!(@field_out $n, $f, bresp);
        $crate::direct_top!(@field_out $n, $f, bvalid);
        $crate::direct_top!(@field_in $n, $f, bready);
        $crate::direct_top!(@field_in $n, $f, araddr);
        $crate::direct_top!(@field_in $n, $f, arvalid);
        $crate::direct_top!(@field_out $n, $f, arready);
        $crate::direct_top!(@field_out $n, $f, rdata);
        $crate::direct_top!(@field_out $n, $f, rresp);
        $crate::direct_top!(@field_out $n, $f, rvalid);
        $crate::direct_top!(@field_in $n, $f, rready);
    };
    // The placement checker's header record input ([`hdl::place::header::HeaderIn`]).
    (@arm $n:ident, header_in $f:ident) => {
        $crate::direct_top!(@field_in $n, $f, valid);
        $crate::direct_top!(@field_out $n, $f, ready);
        $crate::direct_top!(@field_in $n, $f, seq);
        $crate::direct_top!(@field_in $n, $f, ulen);
        $crate::direct_top!(@field_in $n, $f, err);
        $crate::direct_top!(@field_in $n, $f, mpa);
        $crate::direct_top!(@field_in $n, $f, code);
        $crate::direct_top!(@field_in $n, $f, tagged);
        $crate::direct_top!(@field_in $n, $f, last);
        $crate::direct_top!(@field_in $n, $f, opcode);
        $crate::direct_top!(@field_in $n, $f, stag);
        $crate::direct_top!(@field_in $n, $f, to);
        $crate::direct_top!(@field_in $n, $f, qn);
        $crate::direct_top!(@field_in $n, $f, msn);
        $crate::direct_top!(@field_in $n, $f, mo);
        $crate::direct_top!(@field_in $n, $f, plen);
        $crate::direct_top!(@field_in $n, $f, skip);
        $crate::direct_top!(@field_in $n, $f, sink_stag);
        $crate::direct_top!(@field_in $n, $f, sink_to);
        $crate::direct_top!(@field_in $n, $f, rd_size);
        $crate::direct_top!(@field_in $n, $f, src_stag);
        $crate::direct_top!(@field_in $n, $f, src_to);
        $crate::direct_top!(@field_in $n, $f, tctl);
        $crate::direct_top!(@field_in $n, $f, echo);
        $crate::direct_top!(@field_in $n, $f, mode);
    };
    (@field_in $n:ident, $f:ident, $g:ident) => {
        if $n == concat!(stringify!($f), "$", stringify!($g)) {
            return Some($crate::rusthdl::Binding::Input(|t, v| {
                t.$f.$g.next = $crate::rusthdl::from_words(v)
            }));
        }
    };
    (@field_out $n:ident, $f:ident, $g:ident) => {
        if $n == concat!(stringify!($f), "$", stringify!($g)) {
            return Some($crate::rusthdl::Binding::Output(|t, o| {
                $crate::rusthdl::to_words(t.$f.$g.val(), o)
            }));
        }
    };
}
