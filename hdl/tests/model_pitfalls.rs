//! A source check for a rust-hdl modelling pitfall that the tests of one block may miss: in the
//! Rust model, a child block's input port (`self.child.port`, a DFF's `self.reg.d`) reads back as
//! its settled value, not the value just assigned in this `update`, while the generated Verilog
//! reads the new one. A statement that builds a child's input from itself
//! (`self.child.port.next = f(self.child.port.val())`) therefore gives different results on the
//! two engines. Build the value in a `Local` and assign it once.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `self.a.b[.c...]` paths (two levels or more) assigned with `.next =` in a statement that also
/// reads the same path's `.val()`.
fn self_reads(src: &str) -> Vec<String> {
    let mut found = vec![];
    for stmt in src.split(';') {
        let stmt: String = stmt.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(eq) = stmt.find(".next =") else { continue };
        let lhs = stmt[..eq].trim();
        let Some(start) = lhs.rfind("self.") else { continue };
        let path = &lhs[start..];
        if path.matches('.').count() < 2 {
            continue; // a signal of this block: Local and Out read back the new value
        }
        if stmt[eq..].contains(&format!("{path}.val()")) {
            found.push(stmt[start..].to_string());
        }
    }
    found
}

/// What `find` reports in every source file of the crate, as `file: finding` lines.
fn scan_sources(find: fn(&str) -> Vec<String>) -> Vec<String> {
    let mut files = vec![];
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let mut bad = vec![];
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        bad.extend(find(&src).into_iter().map(|s| format!("{}: {s}", f.display())));
    }
    bad
}

#[test]
fn no_child_input_is_built_from_itself() {
    let bad = scan_sources(self_reads);
    assert!(bad.is_empty(), "child inputs built from themselves:\n{}", bad.join("\n"));
}

#[test]
fn the_check_finds_the_pattern() {
    let src = "self.pre.s_axis.user.next = self.pre.s_axis.user.val().replace_bit(49, true);\n\
               self.x.next = self.x.val() + 1;\n\
               if c {\n    self.cnt.d.next =\n        self.cnt.d.val() + 1;\n}";
    let found = self_reads(src);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("self.pre.s_axis.user.next"));
    assert!(found[1].starts_with("self.cnt.d.next"));
}

/// Verilog-2005 and SystemVerilog-2017 reserved words that could pass for a signal or child
/// name (the generated Verilog names wires and instances after the Rust fields; Verilator and
/// Yosys reject a keyword there, as `expect` and `release` once did).
const HDL_KEYWORDS: &[&str] = &[
    "alias",
    "always",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "bit",
    "break",
    "buf",
    "byte",
    "case",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "enum",
    "event",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "global",
    "if",
    "iff",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interface",
    "intersect",
    "join",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "new",
    "nexttime",
    "nor",
    "not",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pure",
    "rand",
    "randc",
    "randcase",
    "real",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "sequence",
    "shortint",
    "shortreal",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "struct",
    "super",
    "supply0",
    "supply1",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "tran",
    "tri",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unsigned",
    "until",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wand",
    "weak",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

/// Field names (`name: Type,` lines) of `#[derive(LogicBlock)]` structs that are HDL keywords.
fn keyword_fields(src: &str) -> Vec<String> {
    let mut in_block = false;
    src.lines()
        .filter(|l| {
            if l.contains("#[derive(LogicBlock") {
                in_block = true;
            } else if l.starts_with('}') {
                in_block = false;
            }
            in_block
        })
        .filter_map(|l| {
            let l = l.trim().trim_start_matches("pub ");
            let (name, rest) = l.split_once(": ")?;
            let is_field = rest.ends_with(',')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && rest.starts_with(|c: char| c.is_ascii_uppercase());
            (is_field && HDL_KEYWORDS.contains(&name)).then(|| l.to_string())
        })
        .collect()
}

#[test]
fn no_signal_or_child_is_named_after_an_hdl_keyword() {
    let bad = scan_sources(keyword_fields);
    assert!(bad.is_empty(), "fields named after HDL keywords:\n{}", bad.join("\n"));
    let found = keyword_fields(
        "#[derive(LogicBlock)]\npub struct X {\n    expect: TrafficPattern<W, B>,\n    \
         want: Signal<Local, Bit>,\n}\nstruct Y {\n    output: Mat32,\n}\n",
    );
    assert_eq!(found, ["expect: TrafficPattern<W, B>,"]);
}
