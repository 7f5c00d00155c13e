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

#[test]
fn no_child_input_is_built_from_itself() {
    let mut files = vec![];
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let mut bad = vec![];
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        for s in self_reads(&src) {
            bad.push(format!("{}: {s}", f.display()));
        }
    }
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
