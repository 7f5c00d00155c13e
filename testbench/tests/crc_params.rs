//! Widths are checked when a block is built, with a message naming the block and the rule.

use golden::crc::CRC32C;
use hdl::crc::{CrcCalc, CrcEngine};
use hdl::stream::StreamSource;

#[test]
#[should_panic(expected = "CrcEngine: W must be 4, 8, 16, 32 or 64 bytes (got 12)")]
fn crc_engine_with_12_byte_beats_is_refused() {
    let _ = CrcEngine::<12, 96>::new(&CRC32C);
}

#[test]
#[should_panic(expected = "CrcCalc: data width B must be 8*W bits (W = 8 needs B = 64, got 60)")]
fn crc_calc_with_data_width_not_8w_is_refused() {
    let _ = CrcCalc::<8, 60>::new(&CRC32C);
}

#[test]
#[should_panic(expected = "StreamSource: stream user width U must be at least 1 bit")]
fn stream_source_with_no_user_bits_is_refused() {
    let _ = StreamSource::<4, 32, 0>::new();
}

#[test]
#[should_panic(expected = "CrcEngine: group_bytes must be 2 or 4")]
fn crc_engine_with_group_of_3_bytes_is_refused() {
    let _ = CrcEngine::<8, 64>::with_options(
        &CRC32C,
        hdl::crc::engine::EngineOptions { group_bytes: 3, resumable: false },
    );
}
