//! The GF(2) matrices of the parallel CRC engine, derived from a [`golden::crc::CrcDef`].
//!
//! Not a block: the arithmetic that turns the golden model's CRC definition into the constant
//! masks of [`super::engine::CrcEngine`]. Everything here is computed when the engine is built;
//! nothing is typed in by hand, so the hardware and the golden model share one definition.
//!
//! Notation (registers in the orientation of [`golden::crc::CrcDef::update_register`]):
//! - `S_n` = `def.state_matrix(n)`: the register advanced over `n` zero octets;
//! - `D_W` = `def.data_matrix(W)`: the contribution of one W-octet beat (octet 0 first);
//! - one beat: `r' = S_W r + D_W d`.
//!
//! The engine runs its feedback register in a transformed basis (Derby, "High-speed CRC
//! computation using state-space transformations", GLOBECOM 2001): with `T` the Krylov basis
//! `[v, A v, ..., A^31 v]` of `A = S_W`, `C = T^-1 A T` is a companion matrix, so every next-state
//! bit of the loop is the XOR of at most two state bits and one input bit. The data matrix and the
//! first-beat constant are premultiplied by `T^-1` (feed-forward logic, pipelined freely) and `T`
//! is applied after the loop. If no `v` gives an invertible `T` (the matrix is not cyclic), the
//! identity is used and the loop keeps the plain `S_W` (correct, only slower).
//!
//! Partial last beats: the engine zero-pads a last beat of `k` octets to W, which leaves
//! `X = S_s R` with `R` the true register and `s = W - k` (0..W-1) the number of padding octets.
//! The un-shift barrel applies `S_(2^b)^-1` for each set bit `b` of `s` (log2(W) fixed matrices)
//! after the loop, where it costs latency but no loop timing. The barrel also runs in the
//! companion basis (`T^-1 S^-1 T`), so `T` is applied only once, folded into the output matrix
//! (`finalize * T`), and the residue check compares against `T^-1 residue`. A null last beat
//! (keep = 0) does not advance the loop at all (pad 0); a null first beat (the empty message)
//! loads `T^-1 init`.
//!
//! Resuming (RFC 5044 Appendix B.2's flow-through receiver: store the partial CRC per
//! connection, not the data): a message that continues one whose CRC value so far is `c` starts
//! from the register `R0 = F^-1 (c ^ xorout)`, with `F` the linear part of `finalize` (the
//! identity, or a bit reversal when only one of `refin` / `refout` is set). Its first beat then
//! adds `T^-1 S_W F^-1 (c ^ xorout)` in place of the first-beat constant, and a null first beat
//! loads `T^-1 F^-1 (c ^ xorout)`: two more constant matrices, applied to a 32-bit input.

use golden::crc::CrcDef;

/// A 32x32 GF(2) matrix as 32 columns: column `j` is the image of the unit vector `1 << j`.
pub type Mat32 = [u32; 32];

/// The identity matrix.
pub fn identity() -> Mat32 {
    let mut m = [0u32; 32];
    for (j, c) in m.iter_mut().enumerate() {
        *c = 1 << j;
    }
    m
}

/// `m * v`.
pub fn mul_vec(m: &Mat32, v: u32) -> u32 {
    golden::crc::apply_state(m, v)
}

/// `a * b`.
pub fn mul(a: &Mat32, b: &Mat32) -> Mat32 {
    let mut out = [0u32; 32];
    for (j, c) in out.iter_mut().enumerate() {
        *c = mul_vec(a, b[j]);
    }
    out
}

/// The inverse of `m`, if it is invertible (Gauss-Jordan on rows).
pub fn inverse(m: &Mat32) -> Option<Mat32> {
    // rows[i]: bit j = m[i][j]; aug[i]: the identity's row, transformed alongside.
    let mut rows = [0u32; 32];
    for (j, col) in m.iter().enumerate() {
        for (i, row) in rows.iter_mut().enumerate() {
            if (col >> i) & 1 != 0 {
                *row |= 1 << j;
            }
        }
    }
    let mut aug = [0u32; 32];
    for (i, a) in aug.iter_mut().enumerate() {
        *a = 1 << i;
    }
    for col in 0..32 {
        let pivot = (col..32).find(|&r| (rows[r] >> col) & 1 != 0)?;
        rows.swap(col, pivot);
        aug.swap(col, pivot);
        for r in 0..32 {
            if r != col && (rows[r] >> col) & 1 != 0 {
                rows[r] ^= rows[col];
                aug[r] ^= aug[col];
            }
        }
    }
    // aug now holds the rows of the inverse; turn them back into columns.
    let mut inv = [0u32; 32];
    for (i, row) in aug.iter().enumerate() {
        for (j, c) in inv.iter_mut().enumerate() {
            if (row >> j) & 1 != 0 {
                *c |= 1 << i;
            }
        }
    }
    Some(inv)
}

/// Row `i` of a matrix given as columns: bit `j` of the result is entry (i, j). Works for any
/// number of columns up to 32 starting at `first`.
pub fn row_mask(columns: &[u32], first: usize, count: usize, i: usize) -> u32 {
    let mut mask = 0u32;
    for j in 0..count {
        if (columns[first + j] >> i) & 1 != 0 {
            mask |= 1 << j;
        }
    }
    mask
}

/// Every matrix and constant the engine needs for one CRC definition and one beat width.
#[derive(Clone, Debug)]
pub struct EngineMatrices {
    /// Bytes per beat.
    pub width: usize,
    /// The change of basis `T` (identity when the loop matrix is not cyclic).
    pub t: Mat32,
    /// `T^-1`.
    pub t_inv: Mat32,
    /// The loop matrix in the transformed basis, `T^-1 S_W T`.
    pub loop_matrix: Mat32,
    /// `T^-1 D_W`: 8W columns, column `8*i+k` for octet `i` bit `k`.
    pub data: Vec<u32>,
    /// `T^-1 S_W init`: what a message's first beat adds in place of the cleared register.
    pub first: u32,
    /// `T^-1 init`: the register of an empty message (a null first beat).
    pub first_null: u32,
    /// `T^-1 S_W F^-1`: applied to `c ^ xorout`, what the first beat of a message resumed from
    /// the CRC value `c` adds in place of `first`.
    pub resume: Mat32,
    /// `T^-1 F^-1`: applied to `c ^ xorout`, the register of a resumed empty message.
    pub resume_null: Mat32,
    /// Un-shift barrel stage `b` (b = 0..log2(W)): `T^-1 S_(2^b)^-1 T`, applied when bit `b` of
    /// the pad count is set.
    pub unshift: Vec<Mat32>,
    /// `finalize * T`: from the transformed register to the CRC value (before `xorout`).
    pub output: Mat32,
    /// `def.xorout` as it leaves `finalize`.
    pub xorout: u32,
    /// `T^-1 residue`: the transformed register after a message and its correct CRC.
    pub residue: u32,
    /// True when the loop runs in companion form (at most two state bits per next-state bit).
    pub companion: bool,
}

/// Number of un-shift barrel stages for a beat of `w` bytes: enough bits for a pad of 0..w-1.
pub fn unshift_stages(w: usize) -> usize {
    w.trailing_zeros() as usize
}

/// Derives the engine's matrices for `def` at `w` (a power of two) bytes per beat.
pub fn derive(def: &CrcDef, w: usize) -> EngineMatrices {
    assert!(w.is_power_of_two(), "matrices: W must be a power of two (got {w})");
    let a = def.state_matrix(w);
    let (t, t_inv, companion) =
        krylov_basis(&a).map_or((identity(), identity(), false), |(t, ti)| (t, ti, true));
    let loop_matrix = mul(&t_inv, &mul(&a, &t));
    let data: Vec<u32> = def.data_matrix(w).iter().map(|&c| mul_vec(&t_inv, c)).collect();
    let unshift = (0..unshift_stages(w))
        .map(|b| {
            let inv = inverse(&def.state_matrix(1 << b))
                .expect("a CRC polynomial with an x^0 term has an invertible shift");
            mul(&t_inv, &mul(&inv, &t))
        })
        .collect();
    let mut finalize = [0u32; 32];
    let zero = def.finalize(0);
    for (j, c) in finalize.iter_mut().enumerate() {
        *c = def.finalize(1 << j) ^ zero;
    }
    let finalize_inv =
        inverse(&finalize).expect("finalize is the identity or a bit reversal, both invertible");
    EngineMatrices {
        width: w,
        t,
        t_inv,
        loop_matrix,
        data,
        first: mul_vec(&t_inv, mul_vec(&a, def.init_register())),
        first_null: mul_vec(&t_inv, def.init_register()),
        resume: mul(&t_inv, &mul(&a, &finalize_inv)),
        resume_null: mul(&t_inv, &finalize_inv),
        unshift,
        output: mul(&finalize, &t),
        xorout: zero,
        residue: mul_vec(&t_inv, def.residue_register()),
        companion,
    }
}

/// Splits a matrix into two whose sum is `m`, each holding about half of every row: the two
/// partial products of a pipelined product have at most `ceil(w/2)` inputs per output bit for a
/// row of weight `w` (a split by column halves can leave 16 inputs on one side).
pub fn split_balanced(m: &Mat32) -> (Mat32, Mat32) {
    let mut a = [0u32; 32];
    for i in 0..32 {
        let row = row_mask(m, 0, 32, i);
        let half = row.count_ones().div_ceil(2);
        let mut n = 0;
        for (j, col) in a.iter_mut().enumerate() {
            if (row >> j) & 1 != 0 && n < half {
                *col |= 1 << i;
                n += 1;
            }
        }
    }
    let mut b = [0u32; 32];
    for j in 0..32 {
        b[j] = m[j] ^ a[j];
    }
    (a, b)
}

/// A basis `T = [v, A v, ..., A^31 v]` that makes `T^-1 A T` a companion matrix, with `T^-1`.
fn krylov_basis(a: &Mat32) -> Option<(Mat32, Mat32)> {
    // Try the unit vectors, then a few fixed mixed vectors; any cyclic vector will do.
    let candidates = (0..32).map(|j| 1u32 << j).chain([0xFFFF_FFFF, 0x8000_0001, 0x1234_5679]);
    for v in candidates {
        let mut t = [0u32; 32];
        let mut x = v;
        for c in t.iter_mut() {
            *c = x;
            x = mul_vec(a, x);
        }
        if let Some(ti) = inverse(&t) {
            return Some((t, ti));
        }
    }
    None
}

/// Software model of the engine's arithmetic (not of its timing): the CRC value and the bad
/// flag of `message`, computed the way the hardware does it (beats with zero padding, transformed
/// basis, barrel, output matrix). Used by unit tests to pin the matrices before any simulation.
pub fn model(m: &EngineMatrices, message: &[u8]) -> (u32, bool) {
    model_resumed(m, None, message)
}

/// [`model`] for a message that continues one whose CRC value so far is `from` (the engine's
/// `resume` with `init = from`); `None` is a message of its own. The CRC value and the bad flag
/// are those of the whole message so far.
pub fn model_resumed(m: &EngineMatrices, from: Option<u32>, message: &[u8]) -> (u32, bool) {
    let w = m.width;
    // A message is sent as ceil(len/W) beats, the last one partial; an empty message is one
    // null beat (keep = 0).
    let beats: Vec<&[u8]> =
        if message.is_empty() { vec![&[]] } else { message.chunks(w).collect() };
    let mut r = 0u32;
    let mut pad = 0;
    for (n, beat) in beats.iter().enumerate() {
        let mut padded = beat.to_vec();
        padded.resize(w, 0);
        pad = if beat.is_empty() { 0 } else { w - beat.len() };
        let c = golden::crc::apply(&m.data, &padded);
        r = match (n == 0, beat.is_empty()) {
            (true, true) => from.map_or(m.first_null, |f| mul_vec(&m.resume_null, f ^ m.xorout)),
            (true, false) => c ^ from.map_or(m.first, |f| mul_vec(&m.resume, f ^ m.xorout)),
            (false, true) => r,
            (false, false) => mul_vec(&m.loop_matrix, r) ^ c,
        };
    }
    for (b, u) in m.unshift.iter().enumerate() {
        if (pad >> b) & 1 != 0 {
            r = mul_vec(u, r);
        }
    }
    (mul_vec(&m.output, r) ^ m.xorout, r != m.residue)
}
