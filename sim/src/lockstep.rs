//! Runs two engines in lock step and compares every output they are asked for.
//!
//! [`Lockstep`] is itself a [`CycleSim`]: every `set`, `eval` and `tick` goes to both engines,
//! every `get` reads both and records a mismatch if they differ, and before every clock edge
//! every output port of both is compared. Driving it with any testbench
//! replays the same stimulus on the rust-hdl model and on the exported Verilog, cycle for cycle.

use crate::{CycleSim, Port};

/// Two engines driven as one; see the module documentation.
pub struct Lockstep<'a> {
    a: Box<dyn CycleSim + 'a>,
    b: Box<dyn CycleSim + 'a>,
    scratch: Vec<u64>,
    strict: bool,
    /// Outputs that differed: port, cycle, both values (the first 20 are kept).
    pub mismatches: Vec<String>,
    /// Number of output reads compared.
    pub compared: u64,
}

impl<'a> Lockstep<'a> {
    /// Pairs `a` (whose values are returned) with `b`; their port lists must be identical.
    pub fn new(a: &'a mut dyn CycleSim, b: &'a mut dyn CycleSim) -> Result<Self, String> {
        Self::pair(Box::new(a), Box::new(b))
    }

    /// [`Lockstep::new`] owning both engines (to hand the pair to a driver that owns its
    /// simulation; combine with [`Lockstep::strict`], as the mismatches are then out of reach).
    pub fn pair(a: Box<dyn CycleSim + 'a>, b: Box<dyn CycleSim + 'a>) -> Result<Self, String> {
        let pa: Vec<(&str, usize)> = a.ports().iter().map(|p| (p.name.as_str(), p.width)).collect();
        let pb: Vec<(&str, usize)> = b.ports().iter().map(|p| (p.name.as_str(), p.width)).collect();
        if pa != pb {
            return Err(format!("port lists differ:\n{pa:?}\n{pb:?}"));
        }
        Ok(Lockstep { a, b, scratch: vec![], strict: false, mismatches: vec![], compared: 0 })
    }

    /// Panics at the first output that differs instead of recording it.
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }
}

/// A borrowed simulation is a simulation (so that [`Lockstep`] can hold borrowed and owned
/// engines alike).
impl<T: CycleSim + ?Sized> CycleSim for &mut T {
    fn engine(&self) -> &'static str {
        (**self).engine()
    }
    fn ports(&self) -> &[Port] {
        (**self).ports()
    }
    fn set(&mut self, port: usize, value: &[u64]) {
        (**self).set(port, value)
    }
    fn get(&mut self, port: usize, out: &mut [u64]) {
        (**self).get(port, out)
    }
    fn eval(&mut self) {
        (**self).eval()
    }
    fn tick(&mut self) {
        (**self).tick()
    }
    fn cycles(&self) -> u64 {
        (**self).cycles()
    }
}

impl CycleSim for Lockstep<'_> {
    fn engine(&self) -> &'static str {
        "lockstep"
    }
    fn ports(&self) -> &[Port] {
        self.a.ports()
    }
    fn set(&mut self, port: usize, value: &[u64]) {
        self.a.set(port, value);
        self.b.set(port, value);
    }
    fn get(&mut self, port: usize, out: &mut [u64]) {
        self.a.get(port, out);
        self.scratch.resize(out.len(), 0);
        self.b.get(port, &mut self.scratch);
        self.compared += 1;
        if out[..] != self.scratch[..] && self.mismatches.len() < 20 {
            let m = format!(
                "cycle {}: {} {} = {:x?}, {} = {:x?}",
                self.a.cycles(),
                self.a.ports()[port].name,
                self.a.engine(),
                out,
                self.b.engine(),
                self.scratch
            );
            assert!(!self.strict, "engines differ: {m}");
            self.mismatches.push(m);
        }
    }
    fn eval(&mut self) {
        self.a.eval();
        self.b.eval();
    }
    fn tick(&mut self) {
        // Every output, every cycle, whether or not the testbench looked at it.
        for port in 0..self.a.ports().len() {
            if self.a.ports()[port].dir == crate::PortDir::Output {
                let mut v = vec![0u64; crate::words_for(self.a.ports()[port].width)];
                self.get(port, &mut v);
            }
        }
        self.a.tick();
        self.b.tick();
    }
    fn cycles(&self) -> u64 {
        self.a.cycles()
    }
}
