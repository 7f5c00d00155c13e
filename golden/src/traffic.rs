//! The test traffic of the board loopback (`hdl::board`): the ULPDUs its traffic generator sends
//! and its checker expects, defined octet by octet so that software and hardware agree.
//!
//! ULPDU `n` (counting from 0 after reset):
//! - length `s_n & mask`, where `s_0` = [`TRAFFIC_SEED`] and `s_{n+1}` = [`lfsr_next`]`(s_n)`
//!   (a 16-bit Galois LFSR, polynomial x^16 + x^14 + x^13 + x^11 + 1, period 65535);
//! - octets: the 4-octet word at octet offset `4m` is `{n[7:0], m[23:0]}`, little-endian (octet
//!   `4m` is `m[7:0]`, octet `4m + 3` is `n[7:0]`), cut to the length. A dropped, repeated,
//!   reordered or altered octet, or a ULPDU delivered in the wrong place, changes what arrives.
//! - pushed (`push`, closing its TCP segment) when `n mod 4 == 3`.
//!
//! The content does not depend on the stream width: the generator at any `W` sends the same
//! octets.

/// The length LFSR's state after reset.
pub const TRAFFIC_SEED: u16 = 0xACE1;

/// One step of the length LFSR (right-shifting Galois form, taps 0xB400).
pub fn lfsr_next(s: u16) -> u16 {
    let out = s & 1;
    let s = s >> 1;
    if out != 0 {
        s ^ 0xB400
    } else {
        s
    }
}

/// The octets of ULPDU `n` of length `len`.
pub fn traffic_ulpdu(n: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            let m = (i / 4) as u32 & 0x00FF_FFFF;
            let word = ((n & 0xFF) << 24) | m;
            (word >> (8 * (i % 4))) as u8
        })
        .collect()
}

/// Whether ULPDU `n` is pushed.
pub fn traffic_push(n: u32) -> bool {
    n % 4 == 3
}

/// The first `count` ULPDUs after reset with length mask `mask`.
pub fn traffic_ulpdus(count: usize, mask: u16) -> Vec<Vec<u8>> {
    let mut s = TRAFFIC_SEED;
    (0..count)
        .map(|n| {
            let u = traffic_ulpdu(n as u32, (s & mask) as usize);
            s = lfsr_next(s);
            u
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lfsr_has_full_period() {
        let mut s = TRAFFIC_SEED;
        let mut n = 0u32;
        loop {
            s = lfsr_next(s);
            n += 1;
            assert_ne!(s, 0);
            if s == TRAFFIC_SEED {
                break;
            }
        }
        assert_eq!(n, 65535);
    }

    #[test]
    fn ulpdu_words_carry_index_and_offset() {
        let u = traffic_ulpdu(0x1_2345, 10);
        assert_eq!(u, [0, 0, 0, 0x45, 1, 0, 0, 0x45, 2, 0]);
        let lens: Vec<usize> = traffic_ulpdus(4, 0x3FF).iter().map(Vec::len).collect();
        let mut s = TRAFFIC_SEED;
        for l in lens {
            assert_eq!(l, (s & 0x3FF) as usize);
            s = lfsr_next(s);
        }
        assert!(traffic_push(3) && traffic_push(7) && !traffic_push(4));
    }
}
