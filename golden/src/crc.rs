//! CRC definitions: the one place every CRC in the project comes from.
//!
//! RFC 5044 section 4.4 requires CRC32c "in the manner described in the iSCSI Protocol document
//! for Header and Data Digests": the reflected CRC with polynomial 0x1EDC6F41 (0x82F63B78
//! reflected), register initialised to all ones and complemented at the end. The four octets of
//! the MPA CRC field are that value written **least significant byte first** (RFC 5044 Figure 5
//! ends `52 23 99 83`, which is CRC32c = 0x83992352 over the 48 octets before it).
//!
//! [`CrcDef`] describes a 32-bit CRC in the usual catalogue terms (polynomial, init, reflection,
//! final xor, check and residue values). It computes the CRC bit by bit, exactly as the definition
//! reads, and it derives the GF(2) matrices a parallel hardware engine needs
//! ([`CrcDef::state_matrix`], [`CrcDef::data_matrix`]). The hardware CRC generator in `hdl/` builds
//! its XOR trees from those matrices, so the software model and the hardware share one definition.
//!
//! Three definitions are provided:
//! - [`CRC32C`]: MPA (RFC 5044 4.4), iSCSI; fast path through the `crc32c` crate ([`crc32c`]).
//! - [`CRC32_ETHERNET`]: IEEE 802.3 CRC-32 (catalogue name CRC-32/ISO-HDLC).
//! - [`CRC32_WILLIAMS`]: the RDMA/TCP draft (draft-williams-rdmatcp-00, "CRC-32"): the Ethernet
//!   algorithm with the left-right reversed generator polynomial 0xDB710641.
//!
//! The "register" used below is the CRC register in the orientation of the algorithm: for a
//! reflected CRC (`refin`), bit 0 of the register holds the coefficient of x^31, as in the usual
//! right-shifting software loop. [`CrcDef::update_register`] is linear over GF(2) in
//! (register, data), which is what makes the matrices exact.

/// A 32-bit CRC definition in catalogue form (Williams' "A painless guide" parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcDef {
    /// Short name used on the command line and in reports.
    pub name: &'static str,
    /// Generator polynomial, normal (MSB-first) form, without the x^32 term.
    pub poly: u32,
    /// Initial register value (in the normal orientation, as catalogues give it).
    pub init: u32,
    /// Input bytes are processed least significant bit first.
    pub refin: bool,
    /// The final register is bit-reversed before the final xor.
    pub refout: bool,
    /// Value xored into the result.
    pub xorout: u32,
    /// Expected CRC of the ASCII string "123456789" (catalogue check value).
    pub check: u32,
    /// Register value left after running the CRC over a message followed by its own CRC,
    /// before the final xor, in catalogue orientation (catalogue "residue").
    pub residue: u32,
}

/// CRC32c (Castagnoli) as MPA uses it: RFC 5044 section 4.4 (iSCSI digests, RFC 3385).
pub const CRC32C: CrcDef = CrcDef {
    name: "crc32c",
    poly: 0x1EDC_6F41,
    init: 0xFFFF_FFFF,
    refin: true,
    refout: true,
    xorout: 0xFFFF_FFFF,
    check: 0xE306_9283,
    residue: 0xB798_B438,
};

/// Ethernet CRC-32 (IEEE 802.3; catalogue CRC-32/ISO-HDLC).
pub const CRC32_ETHERNET: CrcDef = CrcDef {
    name: "ethernet",
    poly: 0x04C1_1DB7,
    init: 0xFFFF_FFFF,
    refin: true,
    refout: true,
    xorout: 0xFFFF_FFFF,
    check: 0xCBF4_3926,
    residue: 0xDEBB_20E3,
};

/// The RDMA/TCP draft's CRC-32 (draft-williams-rdmatcp-00, section 3.4 "CRC-32"): "exactly that
/// used for the ethernet CRC except that a different generator polynomial is used", namely
/// x^32+x^31+x^30+x^28+x^27+x^25+x^24+x^22+x^21+x^20+x^16+x^10+x^9+x^6+1 = 0xDB710641.
/// No catalogue lists it; its check and residue values are computed by this module's bitwise
/// definition, cross-checked by an independent Python computation when they were recorded, and the
/// polynomial is pinned by a test that rebuilds it from the terms the draft spells out.
pub const CRC32_WILLIAMS: CrcDef = CrcDef {
    name: "williams",
    poly: 0xDB71_0641,
    init: 0xFFFF_FFFF,
    refin: true,
    refout: true,
    xorout: 0xFFFF_FFFF,
    check: 0xE07E_661E,
    residue: 0x46AF_6449,
};

/// All definitions, for command-line lookup.
pub const ALL: [CrcDef; 3] = [CRC32C, CRC32_WILLIAMS, CRC32_ETHERNET];

/// Looks a definition up by its [`CrcDef::name`].
pub fn by_name(name: &str) -> Option<CrcDef> {
    ALL.iter().copied().find(|d| d.name == name)
}

impl CrcDef {
    /// The polynomial in the orientation of the register (reflected when `refin`).
    pub fn register_poly(&self) -> u32 {
        if self.refin {
            self.poly.reverse_bits()
        } else {
            self.poly
        }
    }

    /// The register value before the first byte.
    pub fn init_register(&self) -> u32 {
        if self.refin {
            self.init.reverse_bits()
        } else {
            self.init
        }
    }

    /// Advances the raw register over `data`, bit by bit, as the definition reads. No init, no
    /// final xor: this map is linear over GF(2) in (`reg`, `data`).
    pub fn update_register(&self, mut reg: u32, data: &[u8]) -> u32 {
        let poly = self.register_poly();
        for &byte in data {
            if self.refin {
                reg ^= byte as u32;
                for _ in 0..8 {
                    reg = if reg & 1 != 0 { (reg >> 1) ^ poly } else { reg >> 1 };
                }
            } else {
                reg ^= (byte as u32) << 24;
                for _ in 0..8 {
                    reg = if reg & 0x8000_0000 != 0 { (reg << 1) ^ poly } else { reg << 1 };
                }
            }
        }
        reg
    }

    /// Turns a raw register into the CRC value (output reflection and final xor).
    pub fn finalize(&self, reg: u32) -> u32 {
        let out = if self.refin == self.refout { reg } else { reg.reverse_bits() };
        out ^ self.xorout
    }

    /// The CRC of `data`, computed bit by bit from the definition.
    pub fn checksum(&self, data: &[u8]) -> u32 {
        self.finalize(self.update_register(self.init_register(), data))
    }

    /// The CRC value as it travels on the wire after the message: least significant byte first
    /// for reflected CRCs (MPA, Ethernet, Williams), most significant first otherwise.
    pub fn wire_bytes(&self, value: u32) -> [u8; 4] {
        if self.refout {
            value.to_le_bytes()
        } else {
            value.to_be_bytes()
        }
    }

    /// Reads a CRC value from its four wire bytes (inverse of [`CrcDef::wire_bytes`]).
    pub fn from_wire_bytes(&self, bytes: [u8; 4]) -> u32 {
        if self.refout {
            u32::from_le_bytes(bytes)
        } else {
            u32::from_be_bytes(bytes)
        }
    }

    /// The raw register left after a message followed by its correct wire CRC: a constant,
    /// whatever the message. Hardware checkers compare against this instead of the carried CRC.
    pub fn residue_register(&self) -> u32 {
        if self.refin == self.refout {
            self.residue
        } else {
            self.residue.reverse_bits()
        }
    }

    /// State transition matrix for `nbytes` octets of zero data: column `j` (entry `j`) is the
    /// register after advancing the unit register `1 << j` over `nbytes` zero octets. A register
    /// `r` advanced over `nbytes` octets of data `d` is
    /// `apply(state_matrix(n), r) ^ apply(data_matrix(n), d)`.
    pub fn state_matrix(&self, nbytes: usize) -> [u32; 32] {
        let zeros = vec![0u8; nbytes];
        let mut m = [0u32; 32];
        for (j, col) in m.iter_mut().enumerate() {
            *col = self.update_register(1 << j, &zeros);
        }
        m
    }

    /// Data matrix for `nbytes` octets: entry `8*i + k` is the register produced from a zero
    /// register by the data whose only set bit is bit `k` of octet `i` (octet 0 first on the wire).
    pub fn data_matrix(&self, nbytes: usize) -> Vec<u32> {
        let mut m = Vec::with_capacity(nbytes * 8);
        let mut data = vec![0u8; nbytes];
        for i in 0..nbytes {
            for k in 0..8 {
                data[i] = 1 << k;
                m.push(self.update_register(0, &data));
                data[i] = 0;
            }
        }
        m
    }
}

/// Multiplies a GF(2) matrix given as columns by a bit vector: the xor of the columns whose bit
/// is set in `v`.
pub fn apply(columns: &[u32], v: &[u8]) -> u32 {
    let mut acc = 0u32;
    for (idx, col) in columns.iter().enumerate() {
        if (v[idx / 8] >> (idx % 8)) & 1 != 0 {
            acc ^= col;
        }
    }
    acc
}

/// Applies a 32x32 matrix (columns) to a register value.
pub fn apply_state(columns: &[u32; 32], reg: u32) -> u32 {
    let mut acc = 0u32;
    for (j, col) in columns.iter().enumerate() {
        if (reg >> j) & 1 != 0 {
            acc ^= col;
        }
    }
    acc
}

/// CRC32c of `data` through the `crc32c` crate (hardware accelerated where available): the value
/// MPA places in the CRC field (written LSB first, see [`mpa_crc_field`]).
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c::crc32c(data)
}

/// Continues a CRC32c over more data (the crate's append form): `crc32c_append(crc32c(a), b)`
/// equals `crc32c(a ++ b)`.
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    crc32c::crc32c_append(crc, data)
}

/// The four octets of the MPA CRC field for `covered` (RFC 5044 4.4: CRC32c, LSB first).
pub fn mpa_crc_field(covered: &[u8]) -> [u8; 4] {
    crc32c(covered).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: &[u8] = b"123456789";

    #[test]
    fn every_definition_meets_its_check_value() {
        for d in ALL {
            assert_eq!(d.checksum(CHECK), d.check, "{}", d.name);
        }
    }

    #[test]
    fn every_definition_meets_its_residue() {
        for d in ALL {
            for msg in [&b""[..], CHECK, &[0xA5; 37][..]] {
                let mut framed = msg.to_vec();
                framed.extend(d.wire_bytes(d.checksum(msg)));
                let reg = d.update_register(d.init_register(), &framed);
                assert_eq!(reg, d.residue_register(), "{} over {} bytes", d.name, msg.len());
            }
        }
    }

    #[test]
    fn bitwise_crc32c_agrees_with_the_crate() {
        let mut x = 0x1234_5678u32;
        for len in 0..300 {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            assert_eq!(CRC32C.checksum(&data), crc32c(&data), "len {len}");
        }
    }

    #[test]
    fn williams_polynomial_is_the_drafts_spelled_out_terms() {
        // x^32 + x^31 + x^30 + x^28 + x^27 + x^25 + x^24 + x^22 + x^21 + x^20 + x^16 + x^10 + x^9
        // + x^6 + 1 (draft-williams-rdmatcp-00 section 3.4), x^32 dropped.
        let terms = [31, 30, 28, 27, 25, 24, 22, 21, 20, 16, 10, 9, 6, 0];
        let poly = terms.iter().fold(0u32, |p, t| p | (1 << t));
        assert_eq!(poly, CRC32_WILLIAMS.poly);
        // "the standard ethernet polynomial with a left-right reversal": reversing the 33-bit
        // polynomial maps x^k to x^(32-k).
        let eth33 = (1u64 << 32) | CRC32_ETHERNET.poly as u64;
        let rev33 = (0..33).fold(0u64, |r, k| r | (((eth33 >> k) & 1) << (32 - k)));
        assert_eq!(rev33 as u32, CRC32_WILLIAMS.poly);
    }

    #[test]
    fn matrices_reproduce_the_bitwise_update() {
        for d in ALL {
            for n in [1usize, 3, 4, 8, 13] {
                let s = d.state_matrix(n);
                let m = d.data_matrix(n);
                let data: Vec<u8> =
                    (0..n).map(|i| (i as u8).wrapping_mul(97).wrapping_add(5)).collect();
                let reg = 0xDEAD_BEEF;
                assert_eq!(apply_state(&s, reg) ^ apply(&m, &data), d.update_register(reg, &data));
            }
        }
    }

    #[test]
    fn rfc5044_figure5_crc_value_and_field() {
        let mut fpdu = vec![0u8; 48];
        fpdu[5] = 0x2a;
        fpdu[6] = 0x41;
        fpdu[7] = 0x43;
        fpdu[0x13] = 0x01;
        assert_eq!(crc32c(&fpdu), 0x8399_2352);
        assert_eq!(mpa_crc_field(&fpdu), [0x52, 0x23, 0x99, 0x83]);
    }

    #[test]
    fn lookup_by_name() {
        assert_eq!(by_name("crc32c"), Some(CRC32C));
        assert_eq!(by_name("williams"), Some(CRC32_WILLIAMS));
        assert_eq!(by_name("ethernet"), Some(CRC32_ETHERNET));
        assert_eq!(by_name("crc16"), None);
    }
}
