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
