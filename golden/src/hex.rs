//! Hex text helpers for the command-line tools and the vector files.
//!
//! Input is forgiving about layout (ASCII whitespace anywhere, upper or lower case) and strict
//! about content (an odd number of digits or a non-hex character is an error naming the column).
//! Output is lowercase with no separators.

use std::fmt;

/// Why a hex text could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexError {
    /// A character that is neither a hex digit nor whitespace, at a 0-based character index.
    BadDigit { index: usize, found: char },
    /// The digits do not pair up into octets.
    OddLength { digits: usize },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::BadDigit { index, found } => {
                write!(f, "invalid hex character {found:?} at column {}", index + 1)
            }
            HexError::OddLength { digits } => {
                write!(f, "odd number of hex digits ({digits}): octets need two digits each")
            }
        }
    }
}

impl std::error::Error for HexError {}

/// Decodes hex text into octets, ignoring ASCII whitespace.
pub fn decode(text: &str) -> Result<Vec<u8>, HexError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    let mut digits = 0usize;
    for (index, c) in text.chars().enumerate() {
        if c.is_ascii_whitespace() {
            continue;
        }
        let v = c.to_digit(16).ok_or(HexError::BadDigit { index, found: c })? as u8;
        digits += 1;
        match high.take() {
            None => high = Some(v),
            Some(h) => out.push((h << 4) | v),
        }
    }
    if high.is_some() {
        return Err(HexError::OddLength { digits });
    }
    Ok(out)
}

/// Encodes octets as lowercase hex with no separators.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_whitespace() {
        assert_eq!(decode("00 2A\tff\n").unwrap(), vec![0x00, 0x2a, 0xff]);
        assert_eq!(encode(&[0x00, 0x2a, 0xff]), "002aff");
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn bad_digit_and_odd_length_are_errors() {
        assert_eq!(decode("0g"), Err(HexError::BadDigit { index: 1, found: 'g' }));
        assert_eq!(decode("abc"), Err(HexError::OddLength { digits: 3 }));
    }
}
