//! [`NoCombPaths`]: a [`CycleSim`] that checks, before every clock edge of the simulation it
//! wraps, that chosen outputs do not follow chosen inputs within the cycle. AMBA AXI A3.2.1:
//! "there must be no combinatorial paths between input and output signals" on a manager or
//! subordinate interface; a test wraps a block and lists its AXI ports.
//!
//! At each `tick` it settles and reads the outputs; then, with every listed input complemented
//! at once and with each listed input complemented alone (the others as set), it settles and
//! reads them again, and panics naming the first output that moved and the inputs flipped;
//! then it restores the inputs, settles, and ticks: `inputs + 2` extra settles per cycle.
//! Flipping one input alone finds paths that flipping all of them hides (an output `a ^ b`,
//! `a == b`); flipping all finds one that needs two inputs to change (`a & b` with both 0).
//!
//! A simulation check: it sees a path only in the states the run reaches, and only from
//! inputs listed (tests leave `rst` out: it forces readies and valids low in its cycle, as the
//! tops' convention says).

use crate::{words_for, CycleSim, Port, PortDir};

/// The wrapper; see the module documentation.
pub struct NoCombPaths<'a> {
    inner: &'a mut dyn CycleSim,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    /// Cycles checked.
    pub checked: u64,
}

impl<'a> NoCombPaths<'a> {
    /// Wraps `inner`; `inputs` and `outputs` are port names (an input listed as an output, or
    /// the other way round, is an error).
    pub fn new(
        inner: &'a mut dyn CycleSim,
        inputs: &[String],
        outputs: &[String],
    ) -> Result<Self, String> {
        let find = |sim: &dyn CycleSim, n: &str, dir: PortDir| -> Result<usize, String> {
            let i = sim.port(n)?;
            if sim.ports()[i].dir != dir {
                return Err(format!(
                    "{n}: not an {} port",
                    if dir == PortDir::Input { "input" } else { "output" }
                ));
            }
            Ok(i)
        };
        let ins =
            inputs.iter().map(|n| find(inner, n, PortDir::Input)).collect::<Result<_, _>>()?;
        let outs =
            outputs.iter().map(|n| find(inner, n, PortDir::Output)).collect::<Result<_, _>>()?;
        Ok(NoCombPaths { inner, inputs: ins, outputs: outs, checked: 0 })
    }

    /// Wraps `inner` with every input but `clk` and `except` (`rst`, say) against every output.
    pub fn every_port(inner: &'a mut dyn CycleSim, except: &[&str]) -> Result<Self, String> {
        let pick = |dir: PortDir| -> Vec<String> {
            inner
                .ports()
                .iter()
                .filter(|p| p.dir == dir && p.name != "clk" && !except.contains(&p.name.as_str()))
                .map(|p| p.name.clone())
                .collect()
        };
        let (ins, outs) = (pick(PortDir::Input), pick(PortDir::Output));
        Self::new(inner, &ins, &outs)
    }

    fn read_outputs(&mut self) -> Vec<Vec<u64>> {
        let outs = self.outputs.clone();
        outs.iter()
            .map(|&o| {
                let mut w = vec![0u64; words_for(self.inner.ports()[o].width)];
                self.inner.get(o, &mut w);
                w
            })
            .collect()
    }
}

impl CycleSim for NoCombPaths<'_> {
    fn engine(&self) -> &'static str {
        self.inner.engine()
    }
    fn ports(&self) -> &[Port] {
        self.inner.ports()
    }
    fn set(&mut self, port: usize, value: &[u64]) {
        self.inner.set(port, value);
    }
    fn get(&mut self, port: usize, out: &mut [u64]) {
        self.inner.get(port, out);
    }
    fn eval(&mut self) {
        self.inner.eval();
    }
    fn tick(&mut self) {
        self.inner.eval();
        let before = self.read_outputs();
        let ins = self.inputs.clone();
        let held: Vec<Vec<u64>> = ins
            .iter()
            .map(|&i| {
                let mut w = vec![0u64; words_for(self.inner.ports()[i].width)];
                self.inner.get(i, &mut w);
                w
            })
            .collect();
        let flip = |v: &Vec<u64>| -> Vec<u64> { v.iter().map(|w| !w).collect() };
        // Every input at once, then each alone.
        for k in 0..=ins.len() {
            for (j, (&i, v)) in ins.iter().zip(&held).enumerate() {
                let flipped = k == 0 || j == k - 1;
                self.inner.set(i, &if flipped { flip(v) } else { v.clone() });
            }
            self.inner.eval();
            let after = self.read_outputs();
            if let Some(o) = before.iter().zip(&after).position(|(b, a)| b != a) {
                let p = &self.inner.ports()[self.outputs[o]];
                let which = if k == 0 {
                    "every listed input".to_string()
                } else {
                    self.inner.ports()[ins[k - 1]].name.clone()
                };
                panic!(
                    "{}: cycle {}: output {} follows an input combinationally ({:x?} -> {:x?} \
                     with {which} flipped)",
                    self.inner.engine(),
                    self.inner.cycles(),
                    p.name,
                    before[o],
                    after[o]
                );
            }
        }
        for (&i, v) in ins.iter().zip(&held) {
            self.inner.set(i, v);
        }
        self.inner.eval();
        self.checked += 1;
        self.inner.tick();
    }
    fn cycles(&self) -> u64 {
        self.inner.cycles()
    }
}
