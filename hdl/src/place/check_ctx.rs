//! `CheckCtx`: what the placement checker ([`super::check::PlaceCheck`]) keeps about one
//! connection between its ULPDUs, as one context record (DESIGN, "Connection state is
//! explicit"; RFC 5044 Appendix B.2's flow-through receiver keeps per-connection state, not
//! data).
//!
//! RFC 5041 section 5.3: each untagged queue of a stream has its expected MSN (`base0` to
//! `base2`: queues 0 Send, 1 Read Request, 2 Terminate); RFC 5041 section 5 and the golden
//! receiver's message accounting (`golden::receiver::messages`): at most one tagged message is
//! open per stream, its first segment's STag and TO and its payload so far (`t_*`); RFC 5040
//! section 5.6 / RFC 5044 section 8: the stream's first error (`err_*`) and whether it has
//! ended (`stop`: an error, a received Terminate, or a failed memory write), after which every
//! ULPDU is discarded.
//!
//! The checker built [`super::check::PlaceCheck::with_context`] shows the record of the
//! connection it serves on `ctx_out_0` and loads another from `ctx_in_0` with `ctx_load_0`,
//! honoured while `ctx_idle_0` is high (nothing in flight, every descriptor and record out).
//! The settings (`cfg_pd`, `cfg_window`) are not in the record: they are the connection's,
//! set by whoever loads it, as `MpaRxTable` does for `mpa_rx`'s.
//!
//! What the record leaves out, and why that is exact: the MSNs as the lookup stage sees them
//! (`sb*`, moved past a message when its last segment enters the pipeline) equal the bases
//! whenever the checker is idle, except once the stream has stopped (an error, a Terminate,
//! `stop_in`: no later ULPDU is checked), so a load sets both from the record's bases. A probe (out-of-order
//! placement) of a stopped connection would see the bases where the checker alone sees `sb*`;
//! a stopped connection places nothing more, so its probes decide nothing.

use rust_hdl::prelude::*;

crate::sideband::sideband! {
    /// The checker's per-connection record (308 bits); [`fresh`] is a new stream's.
    CheckCtx, prefix chk_ctx, bits 308, {
        /// Queue 0's expected MSN (Send).
        base0: Bits<32> = 0,
        /// Queue 1's expected MSN (RDMA Read Request).
        base1: Bits<32> = 32,
        /// Queue 2's expected MSN (Terminate).
        base2: Bits<32> = 64,
        /// A tagged message is open: segments of it passed, its L = 1 segment has not.
        t_open: Bit = 96,
        /// The open tagged message is a Read Response.
        t_rresp: Bit = 97,
        /// Its first segment's STag.
        t_stag: Bits<32> = 98,
        /// Its first segment's tagged offset.
        t_to: Bits<64> = 130,
        /// Its payload octets so far.
        t_len: Bits<64> = 194,
        /// The stream has ended: every later ULPDU is discarded.
        stop: Bit = 258,
        /// The first error is known.
        err_valid: Bit = 259,
        /// Its Terminate code ([`crate::place::term`]).
        err_code: Bits<16> = 260,
        /// Its FPDU's sequence number.
        err_seq: Bits<32> = 276,
    }
}

/// Width of a [`CheckCtx`] record.
pub const CHECK_CTX_BITS: usize = CheckCtx::BITS;

/// A new stream's record, as 64-bit words (bit 0 of word 0 first): every queue expects
/// `first_msn`, no tagged message open, no error (what `PlaceCheck`'s reset gives with
/// `cfg_first_msn`).
pub fn fresh(first_msn: u32) -> Vec<u64> {
    let mut w = vec![0u64; CHECK_CTX_BITS.div_ceil(64)];
    for at in [CheckCtx::BASE0_AT, CheckCtx::BASE1_AT, CheckCtx::BASE2_AT] {
        put_bits(&mut w, at, 32, first_msn as u64);
    }
    w
}

/// Writes `width` (at most 64) bits of `v` at bit `at` of `words`.
pub fn put_bits(words: &mut [u64], at: usize, width: usize, v: u64) {
    for i in 0..width {
        let b = (v >> i) & 1;
        let p = at + i;
        words[p / 64] = (words[p / 64] & !(1u64 << (p % 64))) | (b << (p % 64));
    }
}

/// Reads `width` (at most 64) bits at bit `at` of `words`.
pub fn get_bits(words: &[u64], at: usize, width: usize) -> u64 {
    (0..width).fold(0u64, |v, i| {
        let p = at + i;
        v | (((words[p / 64] >> (p % 64)) & 1) << i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_tile_the_record_without_overlap() {
        let mut seen = vec![false; CHECK_CTX_BITS];
        for (name, at, width) in CheckCtx::layout() {
            for b in at..at + width {
                assert!(!seen[b], "{name} overlaps at bit {b}");
                seen[b] = true;
            }
        }
        assert!(seen.iter().all(|&s| s), "a bit of the record belongs to no field");
    }

    #[test]
    fn fresh_sets_the_three_bases_and_nothing_else() {
        let w = fresh(0x8000_0001);
        for (name, at, width) in CheckCtx::layout() {
            let want = if name.starts_with("base") { 0x8000_0001 } else { 0 };
            assert_eq!(get_bits(&w, at, width), want, "{name}");
        }
    }
}
