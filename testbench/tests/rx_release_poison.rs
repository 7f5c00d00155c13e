//! `RxRelease` and `RxReleaseRegions` never use a block RAM word read in the cycle it is
//! written.
//!
//! Its packet buffer is a [`hdl::block_ram::BlockRam`], whose read-during-write result is
//! undefined on the FPGA (no bypass logic: Yosys's `no_rw_check`). The read side reads the word
//! at its next read pointer every cycle, so such collisions happen whenever it catches up with
//! the write side; its design claim is that it never passes one on (a packet's descriptor comes
//! two cycles after its last beat's write, and the word is read again before it is used). Here
//! the model returns every collided read inverted (`RNIC_BRAM_POISON=1`, set before any block is
//! built; this file is its own test binary, so no other test sees it): the output must still be
//! the input, and collisions must have happened. A block that used a collided read would fail.

use hdl::block_ram::COLLISIONS;
use hdl::sideband::RxUlpduUser;
use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use std::sync::atomic::Ordering;
use testbench::rng;

#[test]
fn collided_reads_are_never_passed_on() {
    std::env::set_var("RNIC_BRAM_POISON", "1");
    for w in [4usize, 8, 16, 32, 64] {
        for (small, regions) in [(true, false), (false, false), (true, true), (false, true)] {
            let mut r = rng(70 + w as u64 + small as u64);
            // With regions (16 of them), one of 16 beats when small and of 1 KiB otherwise.
            let max = match (small, regions) {
                (true, _) => 15 * w,
                (false, false) => 40 * w,
                (false, true) => (40 * w).min(1024 - w),
            };
            let input: Vec<InPacket> = (0..80)
                .map(|i| {
                    let len = match r.gen_range(0..5) {
                        0 => 0,
                        1 => r.gen_range(1..=w),
                        2 => max,
                        _ => r.gen_range(0..=max),
                    };
                    let data: Vec<u8> = (0..len).map(|_| r.gen()).collect();
                    let user = RxUlpduUser {
                        seq: 3000 * i as u64,
                        len: data.len() as u64,
                        ..Default::default()
                    }
                    .pack();
                    InPacket { data, user }
                })
                .collect();
            for (idle, bp) in [(1.0, 1.0), (0.6, 1.0), (1.0, 0.4), (0.7, 0.7)] {
                let before = COLLISIONS.load(Ordering::Relaxed);
                let mut sim = if regions {
                    sim::rx::release_regions(Engine::RustHdl, w, small).unwrap()
                } else {
                    sim::rx::release(Engine::RustHdl, w, small).unwrap()
                };
                let opts = PacketRun {
                    idle: Pattern::Random { p: idle, seed: w as u64 + 1 },
                    backpressure: Pattern::Random { p: bp, seed: 9 },
                    ..PacketRun::default()
                };
                let res = run_packets(sim.as_mut(), &input, &opts).unwrap();
                let collided = COLLISIONS.load(Ordering::Relaxed) - before;
                let what = format!("W={w} small={small} regions={regions} ({idle}, {bp})");
                assert!(collided > 0, "{what}: no collision happened");
                assert_eq!(res.packets.len(), input.len(), "W={w} small={small}: packet count");
                for (i, (p, u)) in res.packets.iter().zip(&input).enumerate() {
                    assert_eq!(p.data, u.data, "W={w} small={small} ({idle}, {bp}): ULPDU {i}");
                    assert!(p.users.iter().all(|&x| x == u.user), "W={w}: ULPDU {i} sideband");
                }
            }
        }
    }
}
