//! One write per signal per evaluation in the exported combinational blocks, so that
//! event-driven simulators (Icarus, Questa, Xcelium) run the exported Verilog at full speed.
//!
//! rust-hdl writes each block's `update` as one `always @(*)` block of blocking assignments, and
//! its habit (ours too) is a default followed by conditional overrides:
//!
//! ```verilog
//! always @(*) begin
//!     engine$keep = s_axis$keep;
//!     if (s_axis$last) begin
//!         engine$keep = s_axis$keep >> 32'h4;
//!     end
//!     ...
//! end
//! ```
//!
//! Each evaluation then changes `engine$keep` twice when `s_axis$last` is set (a zero-time
//! glitch), which wakes every process sensitive to it: the child block it feeds re-evaluates,
//! its outputs glitch the same way, the parent's block wakes again, and so on. The final values
//! are stable, but an event-driven simulator can ping-pong between the blocks for millions of
//! wake-ups per clock edge: `mpa_tx_w8` under Icarus 11 ran 200 cycles in 0.2 s and then did not
//! finish the 40 cycles after them in 100 s (8.9 million thread wake-ups, one time step).
//! Verilator and synthesis, which see the block as one function, are not affected.
//!
//! The fix, applied to every `always @(*)` block at export: every variable the block assigns,
//! `x`, is computed in a shadow `x__c` (declared beside `x`, same width) and copied to `x` once,
//! at the end of the block. `x` therefore changes at most once per evaluation, to its final
//! value, and not at all when that value is unchanged. Reads of `x` inside the block read `x__c`,
//! which holds `x`'s value from the last evaluation until the block assigns it, so every read
//! sees what it saw before and the logic is the same (Verilator replays and synthesis check
//! that). Sequential (`always @(posedge ...)`) blocks are left alone.

use std::collections::{HashMap, HashSet};

/// Rewrites every `always @(*)` block of `verilog` (rust-hdl's output, after renaming) as the
/// module documentation describes. Errors: a block without its `end`, or an assigned variable
/// without a `reg` declaration in its module.
pub fn shadow_combinational_blocks(verilog: &str) -> Result<String, String> {
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 4);
    // Process module by module (declarations are per module).
    let mut module: Vec<&str> = Vec::new();
    for line in verilog.lines() {
        module.push(line);
        if line.trim() == "endmodule" {
            out.push_str(&shadow_module(&module)?);
            module.clear();
        }
    }
    for line in module {
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// The suffix of a shadow variable.
pub const SHADOW_SUFFIX: &str = "__c";

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `line` with every identifier in `names` renamed to `name__c`. Number literals (`32'h4`,
/// `64'hffff`) are copied as they are, so a hex digit run is never taken for an identifier.
pub fn rename_identifiers(line: &str, names: &HashSet<String>) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() || c == '\'' {
            // A number, possibly sized and based: digits, ', base letter, digits/letters.
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '\'' || chars[i] == '_')
            {
                out.push(chars[i]);
                i += 1;
            }
        } else if is_ident_start(c) {
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push_str(&word);
            if names.contains(&word) {
                out.push_str(SHADOW_SUFFIX);
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The variable a blocking assignment line writes (`x = ...;` or `x[3:0] = ...;`).
fn assigned_name(line: &str) -> Option<String> {
    let t = line.trim_start();
    let first = t.chars().next()?;
    if !is_ident_start(first) {
        return None;
    }
    let name: String = t.chars().take_while(|&c| is_ident_char(c)).collect();
    if ["if", "else", "begin", "end", "case", "endcase", "default", "for"].contains(&name.as_str())
    {
        return None;
    }
    let rest = t[name.len()..].trim_start();
    let rest = if rest.starts_with('[') { rest[rest.find(']')? + 1..].trim_start() } else { rest };
    (rest.starts_with('=') && !rest.starts_with("==")).then_some(name)
}

/// Change of block depth on a line: `begin` at its end opens, `end` at its start closes.
fn depth_change(line: &str) -> i32 {
    let t = line.trim();
    let mut d = 0;
    if t == "end" || t.starts_with("end ") {
        d -= 1;
    }
    if t.ends_with(" begin") || t == "begin" {
        d += 1;
    }
    d
}

fn shadow_module(lines: &[&str]) -> Result<String, String> {
    // reg declarations: name -> (line index, width text).
    let mut decl: HashMap<String, (usize, String)> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        let t = t.strip_prefix("output ").unwrap_or(t).trim_start();
        if let Some(rest) = t.strip_prefix("reg ") {
            let rest = rest.trim_start();
            let (range, name) = if rest.starts_with('[') {
                let close = rest.find(']').ok_or("unterminated range in a reg declaration")?;
                (rest[..=close].to_string(), rest[close + 1..].trim())
            } else {
                (String::new(), rest)
            };
            let name = name.trim_end_matches(';').trim();
            if name.chars().all(is_ident_char) && !name.is_empty() {
                decl.insert(name.to_string(), (i, range));
            }
        }
    }
    let mut shadows: Vec<(usize, String)> = Vec::new(); // (declaration line, shadow declaration)
    let mut shadowed: HashSet<String> = HashSet::new();
    let mut body: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "always @(*) begin" {
            body.push(lines[i].to_string());
            i += 1;
            continue;
        }
        // The block: from this line to its matching `end`.
        let mut depth = 0;
        let mut j = i;
        loop {
            if j >= lines.len() {
                return Err(format!("always @(*) block at line {} has no end", i + 1));
            }
            depth += depth_change(lines[j]);
            if depth == 0 {
                break;
            }
            j += 1;
        }
        let inner = &lines[i + 1..j];
        let mut names: Vec<String> = Vec::new();
        for l in inner {
            if let Some(n) = assigned_name(l) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        let set: HashSet<String> = names.iter().cloned().collect();
        let indent: String = lines[i].chars().take_while(|c| c.is_whitespace()).collect();
        body.push(lines[i].to_string());
        for l in inner {
            body.push(rename_identifiers(l, &set));
        }
        for n in &names {
            body.push(format!("{indent}    {n} = {n}{SHADOW_SUFFIX};"));
            if shadowed.insert(n.clone()) {
                let (at, range) = decl.get(n).ok_or_else(|| {
                    format!("{n} is assigned in an always @(*) block but not declared reg")
                })?;
                let shadow = format!("{n}{SHADOW_SUFFIX}");
                if decl.contains_key(&shadow) {
                    return Err(format!("{shadow} already exists"));
                }
                let sep = if range.is_empty() { "" } else { " " };
                shadows.push((*at, format!("    reg {range}{sep}{shadow};")));
            }
        }
        body.push(lines[j].to_string());
        i = j + 1;
    }
    // Insert the shadow declarations after the module's last reg/wire declaration: declarations
    // come before the first always block in rust-hdl's output, and a shadow right after its
    // original keeps the pair together for readers.
    let first_always = lines.iter().position(|l| l.trim_start().starts_with("always"));
    let mut after: HashMap<usize, Vec<String>> = HashMap::new();
    for (at, d) in shadows {
        if first_always.is_some_and(|f| at > f) {
            return Err(format!("a reg declared after an always block: {d}"));
        }
        after.entry(at).or_default().push(d);
    }
    let mut out = String::new();
    // Map original line indices to body indices: declarations precede every always block, so
    // their indices are unchanged in `body`.
    for (k, line) in body.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        if let Some(ds) = after.get(&k) {
            for d in ds {
                out.push_str(d);
                out.push('\n');
            }
        }
    }
    Ok(out)
}
