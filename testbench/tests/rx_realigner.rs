//! `RxRealigner` (RFC 5044 A.4): segments cut anywhere become the stream as whole words, at every
//! width on both engines, with idle and backpressure; retransmissions overlapping what was taken
//! are trimmed (whole beats and part of one skipped), duplicates dropped without an error, a
//! segment beyond the next expected octet dropped and counted (`err_seq`) and remembered
//! (`seq_gap`, sticky), also one that starts as far beyond it as a retransmission before it was
//! trimmed; FIN ends the stream, with lost octets flagged, and what follows it is
//! dropped (also while the FIN segment's last words are still being flushed).

use rand::Rng;
use sim::packet::{run_packets, InPacket, PacketRun};
use sim::stream::Pattern;
use sim::Engine;
use testbench::rng;
use testbench::rx::{segments, with_retransmissions};

fn run(
    engine: Engine,
    w: usize,
    stream: &[u8],
    segs: &[InPacket],
    seq: u32,
    dropped: u64,
    opts: PacketRun,
) {
    let mut sim = sim::rx::realigner(engine, w).unwrap();
    let opts = PacketRun {
        settings: vec![
            ("cfg_seq".into(), seq as u64),
            ("cfg_origin".into(), seq.wrapping_sub(400) as u64),
        ],
        pulses: vec!["err_seq".into()],
        ..opts
    };
    let res = run_packets(sim.as_mut(), segs, &opts).unwrap();
    let words: Vec<u8> = res.packets.iter().flat_map(|p| p.data.clone()).collect();
    let whole = stream.len() / 4 * 4;
    assert_eq!(words.len(), whole, "{engine} W={w}: octets out");
    assert_eq!(&words[..], &stream[..whole], "{engine} W={w}: the words");
    let users: Vec<u64> = res.packets.iter().flat_map(|p| p.users.clone()).collect();
    assert_eq!(
        users.last().copied(),
        Some(1 | (((stream.len() % 4 != 0) as u64) << 1)),
        "{engine} W={w}: FIN flags"
    );
    assert!(users[..users.len() - 1].iter().all(|&u| u == 0), "{engine} W={w}: FIN before the end");
    assert_eq!(res.pulse_counts, vec![dropped], "{engine} W={w}: dropped segments");
    let gap = sim.port("seq_gap").unwrap();
    assert_eq!(sim.get_u64(gap) & 1, (dropped > 0) as u64, "{engine} W={w}: seq_gap sticky");
    for p in &res.packets {
        assert_eq!(p.data.len() % 4, 0);
    }
}

fn stream(seed: u64, n: usize) -> Vec<u8> {
    let mut r = rng(seed);
    (0..n).map(|_| r.gen()).collect()
}

macro_rules! realigner_tests {
    ($($name:ident: $engine:expr, $w:literal;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn segments_cut_anywhere_become_whole_words() {
                for (k, max) in [1usize, 3, 5, $w + 1, 3 * $w, 700].into_iter().enumerate() {
                    let s = stream(k as u64 + $w, 600 + k);
                    let mut r = rng(k as u64);
                    let seq = u32::MAX - 100 + k as u32 * 4;
                    let segs = segments(&mut r, &s, seq, max, true);
                    run($engine, $w, &s, &segs, seq, 0, PacketRun::default());
                }
            }

            #[test]
            fn idle_backpressure_and_out_of_sequence_segments() {
                let s = stream(77 + $w, 2000);
                let mut r = rng(5);
                let seq = 1_000_000u32;
                let mut segs = segments(&mut r, &s, seq, 300, true);
                // Retransmissions overlapping what was taken by 1 to 3W + 5 octets (whole beats
                // and part of one to skip) and duplicates (nothing new: dropped without an
                // error), then a segment from the future (a gap: dropped and counted).
                with_retransmissions(&mut r, &s, seq, &mut segs, 3 * $w + 5);
                segs.insert(9, InPacket { data: vec![9; 40], user: (seq + 100_000) as u64 });
                let opts = PacketRun {
                    idle: Pattern::Random { p: 0.6, seed: 1 },
                    backpressure: Pattern::Random { p: 0.7, seed: 2 },
                    ..PacketRun::default()
                };
                run($engine, $w, &s, &segs, seq, 1, opts);
            }

            #[test]
            fn a_segment_as_far_beyond_as_a_retransmission_was_trimmed_is_a_gap() {
                // After a retransmission trimmed by t octets (whole beats and part of one), the
                // next expected octet is the retransmission's end, not t octets beyond it: a
                // segment that starts there is out of sequence (dropped, err_seq), and the
                // continuation right behind it is taken. Sequence numbers wrap through 2^32.
                let w: usize = $w;
                // u new octets: 1 (the trimmed beat is the retransmission's last) or W + 2.
                let cases = [1usize, 3, w - 1, w + 1, 2 * w + 3]
                    .into_iter()
                    .flat_map(|t| [1usize, w + 2].map(|u| (t, u)));
                for (k, (t, u)) in cases.enumerate() {
                    let a = 3 * w + 5;
                    let s = stream(k as u64 + 900, a + u + 4 * w + 7);
                    let seq = (u32::MAX - 2 * w as u32).wrapping_add(k as u32);
                    let at = |x: usize| seq.wrapping_add(x as u32);
                    let segs = vec![
                        InPacket::segment(s[..a].to_vec(), seq, false),
                        InPacket::segment(s[a - t..a + u].to_vec(), at(a - t), false),
                        InPacket::segment(vec![0xEE; 2 * w + 1], at(a + u + t), false),
                        InPacket::segment(s[a + u..].to_vec(), at(a + u), true),
                    ];
                    run($engine, w, &s, &segs, seq, 1, PacketRun::default());
                    let opts = PacketRun {
                        idle: Pattern::Random { p: 0.7, seed: k as u64 },
                        backpressure: Pattern::Random { p: 0.6, seed: k as u64 + 1 },
                        ..PacketRun::default()
                    };
                    run($engine, w, &s, &segs, seq, 1, opts);
                }
            }

            #[test]
            fn segments_after_fin_are_dropped_while_its_words_flush() {
                // A FIN segment whose last beat overfills the output beat leaves whole words to
                // flush after it; segments offered right behind it (the continuation, a
                // retransmission, one from the future, another FIN) are taken and dropped: no
                // octet of them comes out, no error, FIN flagged once, on the stream's last beat.
                let w: usize = $w;
                for (k, (first, fin_len)) in [1, 3, w - 1, w + 3]
                    .into_iter()
                    .flat_map(|a| [1, 5, w - 1, w + 5, 2 * w - 3, 2 * w + 5].map(|b| (a, b)))
                    .enumerate()
                {
                    let s = stream(k as u64 + 300, first + fin_len);
                    let seq = 7_000u32.wrapping_add(k as u32 * 13);
                    let end = seq.wrapping_add(s.len() as u32);
                    let segs = vec![
                        InPacket::segment(s[..first].to_vec(), seq, false),
                        InPacket::segment(s[first..].to_vec(), seq.wrapping_add(first as u32), true),
                        InPacket::segment(vec![0xA5; 2 * w + 5], end, false),
                        InPacket::segment(s[s.len() - 1..].to_vec(), end.wrapping_sub(1), false),
                        InPacket::segment(vec![0x5A; 9], end.wrapping_add(1000), false),
                        InPacket::segment(vec![0x3C; 3], end.wrapping_add(2 * w as u32 + 5), true),
                    ];
                    run($engine, w, &s, &segs, seq, 0, PacketRun::default());
                    let opts = PacketRun {
                        backpressure: Pattern::Random { p: 0.5, seed: k as u64 },
                        ..PacketRun::default()
                    };
                    run($engine, w, &s, &segs, seq, 0, opts);
                }
            }
        }
    )*};
}

realigner_tests! {
    rusthdl_w4: sim::Engine::RustHdl, 4;
    rusthdl_w8: sim::Engine::RustHdl, 8;
    rusthdl_w16: sim::Engine::RustHdl, 16;
    rusthdl_w32: sim::Engine::RustHdl, 32;
    rusthdl_w64: sim::Engine::RustHdl, 64;
    verilator_w4: sim::Engine::Verilator, 4;
    verilator_w8: sim::Engine::Verilator, 8;
    verilator_w64: sim::Engine::Verilator, 64;
}

#[test]
fn realigner_stream_ending_mid_word_and_empty_fin_segment() {
    for w in [4, 8, 64] {
        let s = stream(3, 101);
        let mut r = rng(9);
        let mut segs = segments(&mut r, &s, 0, 17, false);
        segs.push(InPacket::segment(vec![], 101, true));
        run(Engine::RustHdl, w, &s, &segs, 0, 0, PacketRun::default());
    }
}
