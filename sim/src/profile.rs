//! Handshake profile of a waveform: for every stream boundary inside a design (a scope with a
//! `valid` and a `ready`, or signals `<name>_valid` / `<name>_ready`), how many cycles moved a
//! beat, stalled (valid without ready) or starved (no valid). This is how a throughput limit is
//! located block by block: the block that stalls its input while its output starves is the one
//! that holds the rate (stop 42 found the writer's and the Marker stripper's cycles this way).
//!
//! Reads the VCD that [`crate::rusthdl::RustHdlSim`] writes (rust-hdl's `$scope module` per
//! struct field); values are sampled just before each rising edge of the top scope's `clock`,
//! when the cycle's combinational values have settled. `sim --example rnic_profile` runs it on
//! `rnic_rx`.

use std::collections::HashMap;

/// Counts of one boundary over the sampled cycles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Boundary {
    /// The boundary's path (`uut.writer.s_axis`, or `uut.writer.desc` for `desc_valid`).
    pub path: String,
    /// Cycles with valid and ready: a beat moved.
    pub transfer: u64,
    /// Cycles with valid and not ready.
    pub stall: u64,
    /// Cycles without valid.
    pub starve: u64,
    /// One character per sampled cycle: `T` transfer, `s` stall, `.` starve.
    pub trace: String,
}

/// The profile of a waveform.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Cycles sampled (rising edges of the top clock in the window).
    pub cycles: u64,
    /// Every boundary found, in the order of the VCD's declarations.
    pub boundaries: Vec<Boundary>,
}

/// Profiles `vcd` (the text of a VCD file) over the cycles `[from, to)` (counted from the first
/// rising edge, 0). Errors: no top-level `clock`, a malformed declaration.
pub fn profile(vcd: &str, from: u64, to: u64) -> Result<Profile, String> {
    let mut scope: Vec<&str> = Vec::new();
    let mut ids: HashMap<String, &str> = HashMap::new();
    let mut lines = vcd.lines();
    for line in lines.by_ref() {
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.first().copied() {
            Some("$scope") => scope.push(t.get(2).ok_or("a $scope without a name")?),
            Some("$upscope") => {
                scope.pop();
            }
            Some("$var") => {
                let (id, name) = match (t.get(3), t.get(4)) {
                    (Some(i), Some(n)) => (*i, *n),
                    _ => return Err(format!("a malformed $var: {line}")),
                };
                let mut path = scope.join(".");
                path.push('.');
                path.push_str(name);
                ids.insert(path, id);
            }
            Some("$enddefinitions") => break,
            _ => {}
        }
    }
    let clock = ids
        .iter()
        .find(|(p, _)| p.matches('.').count() == 1 && p.ends_with(".clock"))
        .map(|(_, id)| *id)
        .ok_or("no clock in the top scope")?;
    // Boundaries: P.valid + P.ready, or P_valid + P_ready.
    let mut pairs: Vec<(String, &str, &str)> = Vec::new();
    for (path, vid) in &ids {
        for (vs, rs) in [(".valid", ".ready"), ("_valid", "_ready")] {
            if let Some(base) = path.strip_suffix(vs) {
                if let Some(rid) = ids.get(&format!("{base}{rs}")) {
                    pairs.push((base.to_string(), vid, rid));
                }
            }
        }
    }
    pairs.sort();
    let mut value: HashMap<&str, bool> = HashMap::new();
    let mut out: Vec<Boundary> =
        pairs.iter().map(|(p, _, _)| Boundary { path: p.clone(), ..Default::default() }).collect();
    let mut edge = 0u64;
    for line in lines {
        let line = line.trim();
        let (v, id) = match line.chars().next() {
            Some(c @ ('0' | '1' | 'x' | 'z')) => (c == '1', &line[1..]),
            Some('b') => match line[1..].split_once(' ') {
                // Multi-bit values count as true when any bit is 1 (only 1-bit handshakes matter).
                Some((bits, id)) => (bits.contains('1'), id.trim()),
                None => continue,
            },
            _ => continue,
        };
        if id == clock && v && !value.get(clock).copied().unwrap_or(false) {
            if (from..to).contains(&edge) {
                for (b, (_, vid, rid)) in out.iter_mut().zip(&pairs) {
                    let valid = value.get(vid).copied().unwrap_or(false);
                    let ready = value.get(rid).copied().unwrap_or(false);
                    let c = match (valid, ready) {
                        (true, true) => {
                            b.transfer += 1;
                            'T'
                        }
                        (true, false) => {
                            b.stall += 1;
                            's'
                        }
                        _ => {
                            b.starve += 1;
                            '.'
                        }
                    };
                    b.trace.push(c);
                }
            }
            edge += 1;
        }
        value.insert(id, v);
    }
    Ok(Profile { cycles: edge.min(to).saturating_sub(from), boundaries: out })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two cycles: a stream `s` transfers then stalls; `x_valid`/`x_ready` starves then
    // transfers; `lone.valid` has no ready and is not a boundary.
    const VCD: &str = "$timescale 1 ps $end
$scope module uut $end
$var wire 1 ! clock $end
$scope module s $end
$var wire 1 \" valid $end
$var wire 1 # ready $end
$upscope $end
$var wire 1 $ x_valid $end
$var wire 1 % x_ready $end
$scope module lone $end
$var wire 1 & valid $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
1\"
1#
0$
b1 %
#5
1!
#10
0!
0#
1$
#15
1!
#20
0!
";

    #[test]
    fn counts_transfers_stalls_and_starved_cycles_per_boundary() {
        let p = profile(VCD, 0, 10).unwrap();
        assert_eq!(p.cycles, 2);
        let names: Vec<&str> = p.boundaries.iter().map(|b| b.path.as_str()).collect();
        assert_eq!(names, ["uut.s", "uut.x"]);
        assert_eq!(
            p.boundaries[0],
            Boundary { path: "uut.s".into(), transfer: 1, stall: 1, starve: 0, trace: "Ts".into() }
        );
        assert_eq!(
            p.boundaries[1],
            Boundary { path: "uut.x".into(), transfer: 1, stall: 0, starve: 1, trace: ".T".into() }
        );
        // A window: only the second cycle.
        let p = profile(VCD, 1, 2).unwrap();
        assert_eq!(p.boundaries[0].trace, "s");
    }

    #[test]
    fn a_waveform_without_a_top_clock_is_an_error() {
        assert!(profile("$scope module uut $end\n$enddefinitions $end\n", 0, 1).is_err());
    }
}
