//! Golden model of the iWARP MPA layer (RFC 5044) and its neighbours: the executable reading of
//! the specifications that every hardware block in this project is checked against.
//!
//! Transaction level, no clocks. Modules follow the RFC:
//! - [`crc`]: CRC definitions (CRC32c of 4.4, Ethernet, the Williams draft) and hardware matrices.
//! - [`fpdu`]: FPDU transmit framing with markers (4.1-4.4).
//! - [`deframe`]: in-order receive deframing, marker stripping, CRC and FPDUPTR checks (6, 8).
//! - [`mulpdu`]: MULPDU for an EMSS (4.5) and the ULPDU size limit (3).
//! - [`vectors`]: the hex-dump vectors of RFC 5044 and of the RDMAC draft, as data.
//! - [`segment`]: FPDU-aligned TCP segmentation on transmit (5.1, A.1).
//! - [`startup`]: MPA Request/Reply frames and the startup rules (7.1), RDMAC interoperability
//!   (Appendix C), MPA revision 2 (RFC 6581).
//! - [`ddp`]: DDP (RFC 5041) and RDMAP (RFC 5040) headers, opcodes, and the placement model.
//! - [`williams`]: the Williams RDMA/TCP segment format, CRC-32 and framing recovery.
//! - [`hex`]: hex text helpers shared by the tools.
//! - [`traffic`]: the test traffic of the board loopback (generator and checker).
//! - [`receiver`]: the RNIC receive side of one connection: out-of-order placement, in-order
//!   delivery, errors (6, 8, A.3-A.5, B.1.4, B.2; RFC 5041 / 5040).
//!
//! Bad input anywhere returns a typed error; nothing panics.

pub mod crc;
pub mod ddp;
pub mod deframe;
pub mod fpdu;
pub mod hex;
pub mod mulpdu;
pub mod receiver;
pub mod segment;
pub mod startup;
pub mod traffic;
pub mod vectors;
pub mod williams;
