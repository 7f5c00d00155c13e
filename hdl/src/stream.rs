//! The stream bundle: one AXI4-Stream-style interface used by every streaming block.
//!
//! One bundle, two views. A block that *receives* a stream holds a [`StreamSink`] (data in,
//! `ready` out); a block that *emits* one holds a [`StreamSource`] (data out, `ready` in).
//! The two are mirror images and `join` to each other. Exported Verilog names them
//! `s_axis_t*` (sink) and `m_axis_t*` (source), see [`crate::export`].
//!
//! | field | width | meaning |
//! |---|---|---|
//! | `data`  | `B = 8*W` | W bytes; lane `i` is `data[8*i+7 : 8*i]`, lane 0 is the first octet on the wire |
//! | `keep`  | `W`       | byte enables, contiguous from lane 0 |
//! | `user`  | `U`       | block-specific sideband (each block documents it) |
//! | `last`  | 1         | this beat ends a message (packet, FPDU, segment) |
//! | `valid` | 1         | the source offers a beat |
//! | `ready` | 1         | the sink accepts a beat |
//!
//! Handshake rules (the testbench's handshake monitor checks all of them on every stream):
//! 1. A beat transfers in a cycle where `valid && ready` at the rising clock edge; nothing else
//!    transfers anything.
//! 2. Once `valid` is high it stays high, and `data`, `keep`, `user`, `last` stay unchanged,
//!    until the beat transfers.
//! 3. `valid` never waits for `ready`: a source raises `valid` whether or not `ready` is high (no
//!    combinational path from `ready` to `valid`). A sink may wait for `valid` before raising
//!    `ready`, and may lower `ready` at any time while no beat is offered.
//! 4. `keep` is contiguous from lane 0. A beat that is not `last` has all W lanes set. The `last`
//!    beat has 1..=W lanes set, or 0 lanes (a null beat that only ends the message; a sink that
//!    accepts null beats says so, the CRC engine does: it is how a zero-length message is sent).
//!    Bytes in lanes whose `keep` bit is 0 are don't-care: sinks must ignore them.
//! 5. After reset (`rst` high for at least one cycle) `valid` is low until the source has a beat.
//!
//! Parameters: `W` bytes per beat (the project builds and tests 4, 8, 16, 32, 64), `B = 8*W` bits
//! of data (a second parameter because stable Rust cannot write `Bits<{8*W}>`; checked in
//! `new()`), `U >= 1` bits of sideband.

use rust_hdl::prelude::*;

/// Checks the bundle's width parameters; panics with a message naming the rule.
pub fn check_stream_params(block: &str, w: usize, b: usize, u: usize) {
    assert!(w >= 1, "{block}: stream width W must be at least 1 byte (got {w})");
    assert!(
        b == 8 * w,
        "{block}: stream data width B must be 8*W bits (W = {w} bytes needs B = {}, got {b})",
        8 * w
    );
    assert!(u >= 1, "{block}: stream user width U must be at least 1 bit (got {u})");
}

/// The receiving view of a stream (the block's input port group, exported as `s_axis_t*`).
#[derive(LogicInterface)]
#[join = "StreamSource"]
pub struct StreamSink<const W: usize, const B: usize, const U: usize> {
    /// W bytes, lane 0 (bits 7:0) first on the wire.
    pub data: Signal<In, Bits<B>>,
    /// Byte enables, contiguous from lane 0.
    pub keep: Signal<In, Bits<W>>,
    /// Block-specific sideband.
    pub user: Signal<In, Bits<U>>,
    /// Last beat of a message.
    pub last: Signal<In, Bit>,
    /// The source offers a beat.
    pub valid: Signal<In, Bit>,
    /// This block accepts the beat.
    pub ready: Signal<Out, Bit>,
}

/// The emitting view of a stream (the block's output port group, exported as `m_axis_t*`).
#[derive(LogicInterface)]
#[join = "StreamSink"]
pub struct StreamSource<const W: usize, const B: usize, const U: usize> {
    /// W bytes, lane 0 (bits 7:0) first on the wire.
    pub data: Signal<Out, Bits<B>>,
    /// Byte enables, contiguous from lane 0.
    pub keep: Signal<Out, Bits<W>>,
    /// Block-specific sideband.
    pub user: Signal<Out, Bits<U>>,
    /// Last beat of a message.
    pub last: Signal<Out, Bit>,
    /// This block offers a beat.
    pub valid: Signal<Out, Bit>,
    /// The sink accepts the beat.
    pub ready: Signal<In, Bit>,
}

impl<const W: usize, const B: usize, const U: usize> StreamSink<W, B, U> {
    /// A sink port group; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamSink", W, B, U);
        Self {
            data: Default::default(),
            keep: Default::default(),
            user: Default::default(),
            last: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const U: usize> Default for StreamSink<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const U: usize> StreamSource<W, B, U> {
    /// A source port group; panics unless `B == 8*W` and `U >= 1`.
    pub fn new() -> Self {
        check_stream_params("StreamSource", W, B, U);
        Self {
            data: Default::default(),
            keep: Default::default(),
            user: Default::default(),
            last: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const U: usize> Default for StreamSource<W, B, U> {
    fn default() -> Self {
        Self::new()
    }
}

/// The number of bytes a `keep` value enables, if it is contiguous from lane 0 (rule 4);
/// `None` otherwise. For testbenches and software models.
pub fn keep_len(keep: u64, w: usize) -> Option<usize> {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let k = keep & mask;
    if keep != k {
        return None;
    }
    let n = k.count_ones() as usize;
    let expect = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    (k == expect).then_some(n)
}

/// The `keep` value enabling lanes `0..n`.
pub fn keep_for(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// A constant with ones in bits `at..at + k` (lane masks and field masks built when a block is
/// constructed); bits at and above `N` are left out.
pub fn ones_at<const N: usize>(at: usize, k: usize) -> Bits<N> {
    let mut m = Bits::<N>::default();
    for b in at..(at + k).min(N) {
        m = m.replace_bit(b, true);
    }
    m
}
