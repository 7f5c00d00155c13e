//! The tests of `hdl`'s library pieces (the CRC matrices, the stream helpers, the sidebands'
//! layout, the gearbox, the Verilog export's names and its combinational-block rewrite), one
//! module per source file. They live here, not in `#[cfg(test)]` modules, so that `cargo test`
//! links them against the library it has already built instead of compiling the whole of `hdl`
//! a second time with `cfg(test)` (about 7 minutes of the clean build on two cores).

/// Runs a block's combinational logic until it stops changing (the stream tests' settle step).
fn settle_block<T: rust_hdl::prelude::Block>(b: &mut T) {
    for _ in 0..8 {
        b.update_all();
        if !b.has_changed() {
            break;
        }
    }
}

/// The stream tests' pseudo-random source (a 64-bit LCG, its upper 31 bits), from a seed.
fn lcg_source(seed: u64) -> impl FnMut() -> u64 {
    let mut lcg = seed;
    move || {
        lcg = lcg.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lcg >> 33
    }
}

// ---- src/crc/matrices.rs ----
mod crc_matrices {
    use golden::crc::{ALL, CRC32C};
    use hdl::crc::matrices::*;

    #[test]
    fn inverse_undoes_the_state_matrix() {
        for n in [1usize, 3, 8, 64] {
            let s = CRC32C.state_matrix(n);
            let inv = inverse(&s).unwrap();
            assert_eq!(mul(&s, &inv), identity());
            assert_eq!(mul(&inv, &s), identity());
        }
    }

    #[test]
    fn transformed_loop_is_a_companion_matrix_for_every_definition_and_width() {
        for def in ALL {
            for w in [4usize, 8, 16, 32, 64] {
                let m = derive(&def, w);
                assert!(m.companion, "{} W={w}: no cyclic vector", def.name);
                for i in 0..32 {
                    let row = row_mask(&m.loop_matrix, 0, 32, i);
                    let allowed = if i == 0 { 1u32 << 31 } else { (1u32 << (i - 1)) | (1 << 31) };
                    assert_eq!(row & !allowed, 0, "{} W={w} row {i} = {row:08x}", def.name);
                }
            }
        }
    }

    #[test]
    fn balanced_split_sums_to_the_matrix_and_halves_every_row() {
        let m = derive(&CRC32C, 8);
        for u in m.unshift.iter().chain([&m.output]) {
            let (a, b) = split_balanced(u);
            for j in 0..32 {
                assert_eq!(a[j] ^ b[j], u[j]);
            }
            for i in 0..32 {
                let (w, wa) =
                    (row_mask(u, 0, 32, i).count_ones(), row_mask(&a, 0, 32, i).count_ones());
                assert_eq!(wa, w.div_ceil(2));
            }
        }
    }

    #[test]
    fn engine_arithmetic_matches_golden_for_every_length_and_its_own_crc_passes() {
        for def in ALL {
            for w in [4usize, 8, 16, 32, 64] {
                let m = derive(&def, w);
                for len in 0..(3 * w + 2) {
                    let msg: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
                    let want = def.checksum(&msg);
                    let (crc, bad) = model(&m, &msg);
                    assert_eq!(crc, want, "{} W={w} len={len}", def.name);
                    assert!(
                        bad || def.update_register(def.init_register(), &msg)
                            == def.residue_register()
                    );
                    let mut framed = msg.clone();
                    framed.extend(def.wire_bytes(want));
                    assert!(
                        !model(&m, &framed).1,
                        "{} W={w} len={len}: own CRC flagged bad",
                        def.name
                    );
                }
            }
        }
    }

    /// A message cut anywhere (empty pieces too) and each piece resumed from the CRC value of
    /// what came before gives the CRC value and the bad flag of the whole so far, at every cut.
    #[test]
    fn resumed_pieces_give_the_crc_of_the_whole_so_far_for_every_cut() {
        // Every CRC here has refin == refout (finalize's linear part is the identity); one
        // definition with a bit-reversing finalize checks the F^-1 in the resume matrices.
        let reversing = golden::crc::CrcDef { name: "crc32c-refout-off", refout: false, ..CRC32C };
        for def in ALL.into_iter().chain([reversing]) {
            for w in [4usize, 8, 16, 32, 64] {
                let m = derive(&def, w);
                let msg: Vec<u8> = (0..3 * w + 5).map(|i| (i * 91 + w) as u8).collect();
                let mut framed = msg.clone();
                framed.extend(def.wire_bytes(def.checksum(&msg)));
                for text in [&msg, &framed] {
                    for cut in 0..=text.len() {
                        let (head, tail) = text.split_at(cut);
                        let (c0, _) = model(&m, head);
                        assert_eq!(c0, def.checksum(head));
                        let (c1, bad) = model_resumed(&m, Some(c0), tail);
                        assert_eq!(c1, def.checksum(text), "{} W={w} cut={cut}", def.name);
                        assert_eq!(
                            bad,
                            def.update_register(def.init_register(), text)
                                != def.residue_register(),
                            "{} W={w} cut={cut}: bad flag",
                            def.name
                        );
                    }
                }
                // Resuming from a message's own CRC value and adding nothing gives it back.
                assert_eq!(model_resumed(&m, Some(0x1234_5678), &[]).0, 0x1234_5678);
            }
        }
    }
}

// ---- src/stream_skid.rs ----
mod stream_skid {
    use hdl::stream_skid::*;
    use rust_hdl::prelude::*;

    use super::settle_block as settle;

    fn cycle<const W: usize, const B: usize, const U: usize>(s: &mut StreamSkid<W, B, U>) {
        s.clock.next = Clock::from(false);
        settle(s);
        s.clock.next = Clock::from(true);
        settle(s);
    }

    /// Both modes side by side under pseudo-random valid and ready: the same outputs every
    /// cycle, and every beat offered while `ready` is high comes out once, in order.
    #[test]
    fn loading_while_empty_gives_the_same_outputs_as_new() {
        let mut a = StreamSkid::<4, 32, 8>::new();
        let mut b = StreamSkid::<4, 32, 8>::loading_while_empty();
        a.connect_all();
        b.connect_all();
        check_all(&a).unwrap();
        let mut next = super::lcg_source(12345);
        let (mut sent, mut got) = (Vec::new(), Vec::new());
        let mut beat = 0u64;
        for cyc in 0..4000 {
            let rst = cyc < 2;
            let valid = next() % 3 != 0;
            let ready = next() % 4 != 0;
            let data = (beat * 0x0101_0101) as u32 ^ (next() as u32 & 0xFF00_0000);
            for s in [&mut a, &mut b] {
                s.rst.next = rst;
                s.s_axis.valid.next = valid;
                s.s_axis.data.next = (data as u64).into();
                s.s_axis.keep.next = ((beat & 15) as u64).into();
                s.s_axis.user.next = ((beat & 255) as u64).into();
                s.s_axis.last.next = beat % 5 == 0;
                s.m_axis.ready.next = ready;
                settle(s);
            }
            assert_eq!(a.s_axis.ready.val(), b.s_axis.ready.val(), "ready, cycle {cyc}");
            assert_eq!(a.m_axis.valid.val(), b.m_axis.valid.val(), "valid, cycle {cyc}");
            if a.m_axis.valid.val() {
                let out = |s: &StreamSkid<4, 32, 8>| {
                    (
                        s.m_axis.data.val().index(),
                        s.m_axis.keep.val().index(),
                        s.m_axis.user.val().index(),
                        s.m_axis.last.val(),
                    )
                };
                assert_eq!(out(&a), out(&b), "payload, cycle {cyc}");
                if ready && !rst {
                    got.push(out(&a));
                }
            }
            if valid && a.s_axis.ready.val() && !rst {
                sent.push((
                    data as usize,
                    (beat & 15) as usize,
                    (beat & 255) as usize,
                    beat % 5 == 0,
                ));
                beat += 1;
            }
            cycle(&mut a);
            cycle(&mut b);
        }
        assert!(got.len() > 1000, "only {} beats out", got.len());
        assert_eq!(got[..], sent[..got.len()], "beats out differ from beats in");
        assert!(sent.len() - got.len() <= 2, "beats lost: {} in, {} out", sent.len(), got.len());
    }
}

// ---- src/stream_down.rs, src/stream_up.rs ----
mod stream_down_up {
    use hdl::stream_down::StreamDown;
    use hdl::stream_up::StreamUp;
    use rust_hdl::prelude::*;

    use super::settle_block as settle;

    fn octets<const N: usize>(x: Bits<N>, n: usize) -> Vec<u8> {
        (0..n).map(|i| x.get_bits::<8>(8 * i).index() as u8).collect()
    }

    fn from_octets<const N: usize>(bytes: &[u8]) -> Bits<N> {
        let mut x = Bits::<N>::default();
        for (i, b) in bytes.iter().enumerate() {
            for k in 0..8 {
                x = x.replace_bit(8 * i + k, b >> k & 1 == 1);
            }
        }
        x
    }

    fn keep_of<const N: usize>(x: Bits<N>) -> usize {
        let k = (0..N).take_while(|&i| x.get_bit(i)).count();
        assert!((k..N).all(|i| !x.get_bit(i)), "keep {x:?} is not contiguous from lane 0");
        k
    }

    type Beat = (Vec<u8>, usize, bool);

    /// Random packets (1 to 3W octets, and null packets) through `StreamDown<W -> V>` and
    /// `StreamUp<V -> W>` in series, under random `valid` on the wide input and random `ready` on
    /// the wide output: the narrow beats are the wide ones cut in V-lane slices, lane 0 first,
    /// none empty but a null beat's, each full but a packet's last; the wide beats out are the
    /// beats in, with their `user`; neither block's `valid` waits for `ready`.
    fn round_trip<const W: usize, const B: usize, const V: usize, const BV: usize>(seed: u64) {
        let mut down = StreamDown::<W, B, V, BV, 8>::new();
        let mut up = StreamUp::<V, BV, W, B, 8>::new();
        down.connect_all();
        up.connect_all();
        let mut next = super::lcg_source(seed);
        // The wide beats to send, each with its user.
        let mut beats: Vec<(Beat, u8)> = Vec::new();
        for p in 0..120u64 {
            let len = if p % 11 == 5 { 0 } else { 1 + next() as usize % (3 * W) };
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let n = len.div_ceil(W).max(1);
            for b in 0..n {
                let chunk = bytes[(b * W).min(len)..((b + 1) * W).min(len)].to_vec();
                let k = chunk.len();
                beats.push(((chunk, k, b == n - 1), (p & 255) as u8));
            }
        }
        let mut narrow: Vec<(Beat, u8)> = Vec::new();
        let mut wide: Vec<(Beat, u8)> = Vec::new();
        let mut sent = 0;
        let mut offer = false;
        for cyc in 0..40 * beats.len() * (W / V) {
            let rst = cyc < 2;
            // A beat once offered stays offered until it is taken.
            offer = (offer || next() % 3 != 0) && sent < beats.len();
            let pull = next() % 4 != 0;
            if sent < beats.len() {
                let ((bytes, k, last), user) = &beats[sent];
                down.s_axis.data.next = from_octets::<B>(bytes);
                let mut keep = Bits::<W>::default();
                for i in 0..*k {
                    keep = keep.replace_bit(i, true);
                }
                down.s_axis.keep.next = keep;
                down.s_axis.user.next = (*user as u64).into();
                down.s_axis.last.next = *last;
            }
            for b in [&mut down.rst.next, &mut up.rst.next] {
                *b = rst;
            }
            down.s_axis.valid.next = offer && !rst;
            up.m_axis.ready.next = pull;
            for _ in 0..4 {
                settle(&mut down);
                up.s_axis.data.next = down.m_axis.data.val();
                up.s_axis.keep.next = down.m_axis.keep.val();
                up.s_axis.user.next = down.m_axis.user.val();
                up.s_axis.last.next = down.m_axis.last.val();
                up.s_axis.valid.next = down.m_axis.valid.val();
                settle(&mut up);
                down.m_axis.ready.next = up.s_axis.ready.val();
            }
            settle(&mut down);
            if !rst && down.m_axis.valid.val() && down.m_axis.ready.val() {
                let k = keep_of(down.m_axis.keep.val());
                narrow.push((
                    (octets(down.m_axis.data.val(), k), k, down.m_axis.last.val()),
                    down.m_axis.user.val().index() as u8,
                ));
            }
            if !rst && up.m_axis.valid.val() && pull {
                let k = keep_of(up.m_axis.keep.val());
                wide.push((
                    (octets(up.m_axis.data.val(), k), k, up.m_axis.last.val()),
                    up.m_axis.user.val().index() as u8,
                ));
            }
            if !rst && offer && down.s_axis.ready.val() {
                sent += 1;
                offer = false;
            }
            for clk in [false, true] {
                down.clock.next = Clock::from(clk);
                up.clock.next = Clock::from(clk);
                settle(&mut down);
                settle(&mut up);
            }
        }
        assert_eq!(sent, beats.len(), "W={W} V={V}: not every beat was taken");
        let expect_narrow: Vec<(Beat, u8)> = beats
            .iter()
            .flat_map(|((bytes, k, last), user)| {
                let n = k.div_ceil(V).max(1);
                (0..n).map(move |i| {
                    let s = bytes[(i * V).min(*k)..((i + 1) * V).min(*k)].to_vec();
                    let sk = s.len();
                    ((s, sk, *last && i == n - 1), *user)
                })
            })
            .collect();
        assert_eq!(narrow, expect_narrow, "W={W} V={V}: narrow beats");
        assert_eq!(wide, beats, "W={W} V={V}: wide beats out differ from beats in");
    }

    #[test]
    fn down_then_up_gives_back_every_beat() {
        round_trip::<8, 64, 4, 32>(1);
        round_trip::<8, 64, 8, 64>(2);
        round_trip::<16, 128, 8, 64>(3);
        round_trip::<16, 128, 4, 32>(4);
        round_trip::<64, 512, 8, 64>(5);
        // The pairs the tops build (locate_width): 4 / 4, 32 / 8 (8 / 8, 16 / 8, 64 / 8 above).
        round_trip::<4, 32, 4, 32>(6);
        round_trip::<32, 256, 8, 64>(7);
    }
}

// ---- src/stream_outq_rr.rs ----
mod stream_outq_rr {
    use hdl::stream_outq_rr::*;
    use rust_hdl::prelude::*;

    use super::settle_block as settle;

    fn cycle(q: &mut StreamOutQRr<4, 32, 8>) {
        q.clock.next = Clock::from(false);
        settle(q);
        q.clock.next = Clock::from(true);
        settle(q);
    }

    /// A producer that offers a beat only while `ready` is high (the queue's contract), a
    /// consumer with pseudo-random `ready`: every beat comes out once, in order; `ready` is high
    /// exactly while fewer than two beats are held; with both sides always willing, one beat
    /// per cycle.
    #[test]
    fn beats_keep_their_order_and_ready_counts_the_two_slots() {
        let mut q = StreamOutQRr::<4, 32, 8>::new();
        q.connect_all();
        check_all(&q).unwrap();
        let mut next = super::lcg_source(777);
        let (mut sent, mut got) = (Vec::new(), Vec::new());
        let mut beat = 0u64;
        let mut held = 0usize;
        let mut full_rate_out = 0;
        for cyc in 0..6000 {
            let rst = cyc < 2;
            // Cycles 4000..4100: both sides always willing.
            let steady = (4000..4100).contains(&cyc);
            let want = steady || next() % 3 != 0;
            let ready = steady || next() % 4 != 0;
            q.rst.next = rst;
            q.m_axis.ready.next = ready;
            settle(&mut q);
            let rdy = q.s_axis.ready.val();
            if !rst && cyc > 2 {
                assert_eq!(rdy, held < 2, "ready with {held} held, cycle {cyc}");
                assert_eq!(q.m_axis.valid.val(), held > 0, "valid with {held} held, cycle {cyc}");
            }
            let valid = want && rdy;
            let data = (beat as u32).wrapping_mul(0x9E37_79B9);
            q.s_axis.valid.next = valid;
            q.s_axis.data.next = (data as u64).into();
            q.s_axis.keep.next = (beat & 15).into();
            q.s_axis.user.next = (beat & 255).into();
            q.s_axis.last.next = beat % 3 == 0;
            settle(&mut q);
            let popped = q.m_axis.valid.val() && ready && !rst;
            if popped {
                got.push((
                    q.m_axis.data.val().index(),
                    q.m_axis.keep.val().index(),
                    q.m_axis.user.val().index(),
                    q.m_axis.last.val(),
                ));
                if steady && cyc > 4002 {
                    full_rate_out += 1;
                }
            }
            if valid && !rst {
                sent.push((
                    data as usize,
                    (beat & 15) as usize,
                    (beat & 255) as usize,
                    beat % 3 == 0,
                ));
                beat += 1;
            }
            held = if rst { 0 } else { held + (valid as usize) - (popped as usize) };
            cycle(&mut q);
        }
        assert!(got.len() > 2000, "only {} beats out", got.len());
        assert_eq!(got[..], sent[..got.len()], "beats out differ from beats in");
        assert_eq!(
            sent.len() - got.len(),
            held,
            "beats lost: {} in, {} out",
            sent.len(),
            got.len()
        );
        assert_eq!(full_rate_out, 97, "one beat per cycle while both sides are willing");
    }
}

// ---- src/stream_outq3.rs ----
mod stream_outq3 {
    use hdl::stream_outq3::*;
    use rust_hdl::prelude::*;

    use super::settle_block as settle;

    fn cycle(q: &mut StreamOutQ3<4, 32, 8>) {
        q.clock.next = Clock::from(false);
        settle(q);
        q.clock.next = Clock::from(true);
        settle(q);
    }

    /// A producer with an output stage: it announces a beat (`s_next`) only while `ready` is
    /// high and pushes it in the next cycle; a consumer with pseudo-random `ready`; a reset in
    /// the middle of the run with beats held and one in the stage. Every beat comes out once,
    /// in order, compared with a model queue as it leaves (a reset empties both); `ready` is
    /// high exactly while the beats held plus the one in the stage are at most two (from the
    /// cycle after a reset); `valid` while one is held; the third slot is used; with both sides
    /// always willing, one beat per cycle; at the end the queue drains to the model's last beat.
    #[test]
    fn beats_keep_their_order_and_ready_counts_the_staged_beat() {
        type Beat = (usize, usize, usize, bool);
        let mut q = StreamOutQ3::<4, 32, 8>::new();
        q.connect_all();
        check_all(&q).unwrap();
        let mut next = super::lcg_source(4242);
        let mut model: std::collections::VecDeque<Beat> = Default::default();
        let mut beat = 0u64;
        // The stage: the beat announced last cycle, if any.
        let mut stage: Option<Beat> = None;
        let (mut out, mut full_rate_out, mut full_seen, mut reset_with_beats) = (0, 0, 0, 0);
        let end = 8000;
        for cyc in 0..end + 10 {
            // Resets: at the start, and twice in the run (cycles 3000, 6001..6003).
            let rst = cyc < 2 || cyc == 3000 || (6001..6004).contains(&cyc);
            // Cycles 5000..5100: both sides always willing; after `end`, drain only.
            let steady = (5000..5100).contains(&cyc);
            let want = cyc < end && (steady || next() % 3 != 0);
            let ready = cyc >= end || steady || next() % 4 != 0;
            q.rst.next = rst;
            q.m_axis.ready.next = ready;
            settle(&mut q);
            let rdy = q.s_axis.ready.val();
            if cyc >= 2 {
                let held = model.len();
                let staged = stage.is_some() as usize;
                assert_eq!(rdy, held + staged <= 2, "ready with {held} held, cycle {cyc}");
                assert_eq!(q.m_axis.valid.val(), held > 0, "valid with {held} held, cycle {cyc}");
                full_seen += (held == 3) as usize;
            }
            // The producer announces while ready (also during a reset, as the segmenter may).
            let announce = want && rdy;
            q.s_next.next = announce;
            q.s_axis.valid.next = stage.is_some();
            let (d, k, u, l) = stage.unwrap_or((0x5555_5555, 3, 0x55, false));
            q.s_axis.data.next = (d as u64).into();
            q.s_axis.keep.next = (k as u64).into();
            q.s_axis.user.next = (u as u64).into();
            q.s_axis.last.next = l;
            settle(&mut q);
            if q.m_axis.valid.val() && ready && !rst {
                let got = (
                    q.m_axis.data.val().index(),
                    q.m_axis.keep.val().index(),
                    q.m_axis.user.val().index(),
                    q.m_axis.last.val(),
                );
                assert_eq!(Some(got), model.pop_front(), "beat out, cycle {cyc}");
                out += 1;
                if steady && cyc > 5003 {
                    full_rate_out += 1;
                }
            }
            if rst {
                // A reset drops what is held and what is in the stage (the segmenter clears
                // its stage in the same cycle).
                reset_with_beats += (!model.is_empty() && stage.is_some()) as usize;
                model.clear();
                stage = None;
            } else if let Some(b) = stage.take() {
                model.push_back(b);
            }
            if announce && !rst {
                let data = (beat as u32).wrapping_mul(0x9E37_79B9);
                stage = Some((
                    data as usize,
                    (beat & 15) as usize,
                    (beat & 255) as usize,
                    beat % 3 == 0,
                ));
                beat += 1;
            }
            cycle(&mut q);
        }
        assert!(out > 3000, "only {out} beats out");
        assert!(full_seen > 0, "the queue never held three beats");
        assert!(reset_with_beats > 0, "no reset met held and staged beats");
        assert!(model.is_empty() && stage.is_none(), "{} beats never came out", model.len());
        assert_eq!(full_rate_out, 96, "one beat per cycle while both sides are willing");
    }
}

// ---- src/comb_shadow.rs ----
mod comb_shadow {
    use hdl::comb_shadow::*;
    use std::collections::HashSet;

    #[test]
    fn a_default_then_override_becomes_one_write() {
        let v = "module m(a, b, y);\n    input wire a;\n    input wire [3:0] b;\n    output reg  [3:0] y;\n    reg  t;\n    always @(*) begin\n        t = a;\n        y = b;\n        if (t) begin\n            y = b >> 32'h1;\n        end\n    end\nendmodule\n";
        let s = shadow_combinational_blocks(v).unwrap();
        assert!(s.contains("    output reg  [3:0] y;\n    reg [3:0] y__c;\n"), "{s}");
        assert!(s.contains("    reg  t;\n    reg t__c;\n"), "{s}");
        assert!(s.contains("        t__c = a;\n        y__c = b;\n        if (t__c) begin\n            y__c = b >> 32'h1;"), "{s}");
        assert!(
            s.contains("        y = y__c;\n        t = t__c;\n    end\n")
                || s.contains("        t = t__c;\n        y = y__c;\n    end\n"),
            "{s}"
        );
    }

    #[test]
    fn literals_and_longer_names_are_not_renamed() {
        let names: HashSet<String> = ["hf".to_string(), "x".to_string()].into();
        assert_eq!(
            rename_identifiers("x = 32'hf & x$y | xx | hf;", &names),
            "x__c = 32'hf & x$y | xx | hf__c;"
        );
    }

    #[test]
    fn sequential_blocks_are_left_alone() {
        let v = "module m(clock, q);\n    input wire clock;\n    output reg  q;\n    always @(posedge clock) begin\n        q <= ~q;\n    end\nendmodule\n";
        assert_eq!(shadow_combinational_blocks(v).unwrap(), v);
    }
}

// ---- src/export.rs ----
mod export {
    use golden::crc::CRC32C;
    use hdl::export::*;

    #[test]
    fn axi_names_follow_axi4_stream() {
        assert_eq!(axi_port_name("clock"), "clk");
        assert_eq!(axi_port_name("rst"), "rst");
        assert_eq!(axi_port_name("s_axis$data"), "s_axis_tdata");
        assert_eq!(axi_port_name("m_axis$ready"), "m_axis_tready");
        assert_eq!(axi_port_name("stat$count"), "stat_count");
    }

    #[test]
    fn crc_top_w8_exports_plain_module_and_port_names() {
        let spec = crc_calc_spec(CRC32C, 8).unwrap();
        assert_eq!(spec.name(), "mpa_crc32c_w8");
        // The block itself, as `sim::export::export_top` builds it for this spec.
        let mut block = hdl::crc::CrcCalc::<8, 64>::new(&CRC32C);
        let top = export_block(&spec.name(), &mut block, "test").unwrap();
        let names: Vec<&str> = top.ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "clk",
                "rst",
                "s_axis_tdata",
                "s_axis_tkeep",
                "s_axis_tuser",
                "s_axis_tlast",
                "s_axis_tvalid",
                "s_axis_tready",
                "m_axis_tdata",
                "m_axis_tkeep",
                "m_axis_tuser",
                "m_axis_tlast",
                "m_axis_tvalid",
                "m_axis_tready"
            ]
        );
        assert!(top.verilog.contains("module mpa_crc32c_w8 (\n"));
        assert!(top.verilog.contains("module mpa_crc32c_w8__core("));
        assert!(!top.verilog.contains("module top"), "a rust-hdl module name survived");
        assert_eq!(top.ports[2].width, 64);
    }

    #[test]
    fn unsupported_width_is_an_error() {
        assert!(crc_calc_spec(CRC32C, 12).unwrap_err().contains("width 12"));
    }

    /// `export_block` reuses an export made earlier in the process only for the same block:
    /// blocks of one type and one name built with other runtime parameters (the polynomial: other
    /// constants; the engine's options: other sub-blocks and code) get their own text, and each
    /// gets the same text again on a second export.
    #[test]
    fn export_block_reuses_an_export_only_for_the_same_block() {
        use golden::crc::CRC32_ETHERNET;
        use hdl::crc::engine::{CrcEngine, EngineOptions};
        let calc = |def| export_block("x", &mut hdl::crc::CrcCalc::<8, 64>::new(def), "h").unwrap();
        let engine = |group_bytes, resumable| {
            let opts = EngineOptions { group_bytes, resumable };
            export_block("y", &mut CrcEngine::<8, 64>::with_options(&CRC32C, opts), "h").unwrap()
        };
        let texts = [
            calc(&CRC32C).verilog,
            calc(&CRC32_ETHERNET).verilog,
            engine(2, false).verilog,
            engine(4, false).verilog,
            engine(2, true).verilog,
        ];
        for (i, a) in texts.iter().enumerate() {
            for b in &texts[i + 1..] {
                assert_ne!(a, b, "two blocks got one text");
            }
        }
        assert_eq!(calc(&CRC32C).verilog, texts[0]);
        assert_eq!(calc(&CRC32_ETHERNET).verilog, texts[1]);
        assert_eq!(engine(2, false).verilog, texts[2]);
        assert_eq!(engine(4, false).verilog, texts[3]);
        assert_eq!(engine(2, true).verilog, texts[4]);
        // The header and the name are part of the text, so part of the key.
        let other = export_block("x", &mut hdl::crc::CrcCalc::<8, 64>::new(&CRC32C), "g").unwrap();
        assert_ne!(other.verilog, texts[0]);
        let renamed =
            export_block("z", &mut hdl::crc::CrcCalc::<8, 64>::new(&CRC32C), "h").unwrap();
        assert!(renamed.verilog.contains("module z ("), "the cached text of x came back");
        // Two blocks with the same signals whose code differs.
        let pass = export_block("c", &mut Pass::default(), "h").unwrap().verilog;
        let invert = export_block("c", &mut Invert::default(), "h").unwrap().verilog;
        assert_ne!(pass, invert, "the code is part of the key");
    }

    use rust_hdl::prelude::*;

    #[derive(LogicBlock, Default)]
    struct Pass {
        a: Signal<In, Bit>,
        y: Signal<Out, Bit>,
    }

    impl Logic for Pass {
        #[hdl_gen]
        fn update(&mut self) {
            self.y.next = self.a.val();
        }
    }

    #[derive(LogicBlock, Default)]
    struct Invert {
        a: Signal<In, Bit>,
        y: Signal<Out, Bit>,
    }

    impl Logic for Invert {
        #[hdl_gen]
        fn update(&mut self) {
            self.y.next = !self.a.val();
        }
    }
}

// ---- src/keep_words.rs ----
mod keep_words {
    use hdl::keep_words::*;
    use rust_hdl::prelude::*;

    fn decode<const W: usize>(keep: u64) -> (u64, u64) {
        let mut kw = KeepWords::<W>::new();
        kw.connect_all();
        kw.keep.next = keep.into();
        for _ in 0..4 {
            kw.update_all();
        }
        (kw.words.val().index() as u64, kw.last_word.val().index() as u64)
    }

    #[test]
    fn counts_whole_words_at_every_width() {
        fn all<const W: usize>() {
            for k in 0..=W / 4 {
                let keep = if 4 * k == 64 { u64::MAX } else { (1u64 << (4 * k)) - 1 };
                assert_eq!(
                    decode::<W>(keep),
                    (k as u64, k.saturating_sub(1) as u64),
                    "W={W} k={k}"
                );
            }
        }
        all::<4>();
        all::<8>();
        all::<16>();
        all::<32>();
        all::<64>();
    }
}

// ---- src/stream.rs ----
mod stream {
    use hdl::stream::*;

    #[test]
    fn keep_len_accepts_contiguous_patterns_only() {
        assert_eq!(keep_len(0, 8), Some(0));
        assert_eq!(keep_len(0b111, 8), Some(3));
        assert_eq!(keep_len(0xFF, 8), Some(8));
        assert_eq!(keep_len(u64::MAX, 64), Some(64));
        assert_eq!(keep_len(0b101, 8), None);
        assert_eq!(keep_len(0b110, 8), None);
        assert_eq!(keep_len(0x100, 8), None);
        assert_eq!(keep_for(5), 0b11111);
    }

    #[test]
    #[should_panic(expected = "StreamSink: stream data width B must be 8*W bits")]
    fn stream_sink_with_wrong_data_width_is_refused() {
        let _s = StreamSink::<8, 60, 1>::new();
    }
}

// ---- src/sideband.rs ----
mod sideband {
    use hdl::sideband::*;
    use rust_hdl::prelude::*;

    /// Every sideband's fields lie inside its width and do not overlap.
    fn check_layout(name: &str, bits: usize, layout: Vec<(&'static str, usize, usize)>) {
        let mut used = vec![false; bits];
        for (f, at, w) in layout {
            assert!(at + w <= bits, "{name}.{f}: bits {at}..{} past {bits}", at + w);
            for (b, u) in used.iter_mut().enumerate().skip(at).take(w) {
                assert!(!*u, "{name}.{f}: bit {b} used twice");
                *u = true;
            }
        }
    }

    #[test]
    fn fields_fit_and_do_not_overlap() {
        check_layout("TxUlpduUser", TxUlpduUser::BITS, TxUlpduUser::layout());
        check_layout("TxFpduUser", TxFpduUser::BITS, TxFpduUser::layout());
        check_layout("TxSegmentUser", TxSegmentUser::BITS, TxSegmentUser::layout());
        check_layout("RxSegmentUser", RxSegmentUser::BITS, RxSegmentUser::layout());
        check_layout("RxWordUser", RxWordUser::BITS, RxWordUser::layout());
        check_layout("RxFpduUser", RxFpduUser::BITS, RxFpduUser::layout());
        check_layout("RxUlpduUser", RxUlpduUser::BITS, RxUlpduUser::layout());
        check_layout("PlaceUlpduUser", PlaceUlpduUser::BITS, PlaceUlpduUser::layout());
        check_layout("CrcResultUser", CrcResultUser::BITS, CrcResultUser::layout());
        check_layout("RxWalkUser", RxWalkUser::BITS, RxWalkUser::layout());
        check_layout("RxWalkBeat", RxWalkBeat::BITS, RxWalkBeat::layout());
        check_layout("RxCutIn", RxCutIn::BITS, RxCutIn::layout());
        check_layout("RxCutCmd", RxCutCmd::BITS, RxCutCmd::layout());
        check_layout("RxCutPlan", RxCutPlan::BITS, RxCutPlan::layout());
        // The blocks' internal sidebands.
        use hdl::rx::marker_stripper::StripUser;
        use hdl::rx::realigner::AlignInUser;
        use hdl::tx::segmenter::FragUser;
        use hdl::tx::{framer::PreUser, marker_inserter::ExpUser, marker_inserter::InsInUser};
        check_layout("PreUser", PreUser::BITS, PreUser::layout());
        check_layout("InsInUser", InsInUser::BITS, InsInUser::layout());
        check_layout("ExpUser", ExpUser::BITS, ExpUser::layout());
        check_layout("FragUser", FragUser::BITS, FragUser::layout());
        check_layout("AlignInUser", AlignInUser::BITS, AlignInUser::layout());
        check_layout("StripUser", StripUser::BITS, StripUser::layout());
        // The placement sideband extends the ULPDU one: the same fields at the same bits.
        for ((a, x, w), (b, y, v)) in
            RxUlpduUser::layout().into_iter().zip(PlaceUlpduUser::layout())
        {
            assert_eq!((a, x, w), (b, y, v));
        }
    }

    #[test]
    fn pack_unpack_and_the_bits_accessors_agree() {
        let u = RxFpduUser {
            seq: 0xDEAD_BEEF,
            to_marker: 0x55,
            markers: true,
            crc: false,
            err: true,
            code: 2,
        };
        let packed = u.pack();
        assert_eq!(RxFpduUser::unpack(packed), u);
        let mut bits: Bits<RX_FPDU_USER> = packed.into();
        assert_eq!(bits.get_value_rx_fpdu_seq().to_u64(), 0xDEAD_BEEF);
        assert_eq!(bits.get_value_rx_fpdu_to_marker().to_u64(), 0x55);
        assert!(bits.get_value_rx_fpdu_markers() && !bits.get_value_rx_fpdu_crc());
        assert!(bits.get_value_rx_fpdu_err());
        assert_eq!(bits.get_value_rx_fpdu_code().to_u64(), 2);
        bits.set_value_rx_fpdu_code(1.into());
        bits.set_value_rx_fpdu_err(false);
        bits.set_value_rx_fpdu_crc(true);
        let back = RxFpduUser::unpack(bits.to_u64());
        assert_eq!(back, RxFpduUser { err: false, code: 1, crc: true, ..u });
        assert_eq!(bits.get_my_offset_rx_fpdu_code(), 42);
        assert_eq!(bits.get_my_width_rx_fpdu_code(), 2);
    }

    #[test]
    fn pack_refuses_a_sideband_wider_than_64_bits() {
        use hdl::tx::framer::PreUser;
        assert!(PreUser::BITS > 64, "the test needs a sideband wider than 64 bits");
        let panic = std::panic::catch_unwind(|| PreUser::default().pack())
            .expect_err("pack of a sideband wider than 64 bits must panic");
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|m| m.to_string()))
            .unwrap_or_default();
        assert_eq!(
            message,
            format!("PreUser: {} bits do not fit pack/unpack's u64", PreUser::BITS)
        );
    }

    #[test]
    #[should_panic(expected = "does not fit 2 bits")]
    fn pack_refuses_a_value_wider_than_its_field() {
        RxUlpduUser { code: 4, ..Default::default() }.pack();
    }
}

// ---- src/lane_select.rs ----
mod lane_select {
    use hdl::lane_select::*;
    use rust_hdl::prelude::*;

    /// Every one-hot, at every width, picks its lane, zero-extended; no bit set gives 0, two
    /// bits the OR of their lanes, and bits at and above the lanes are ignored.
    fn every_lane<const B: usize>() {
        let lanes = B / 32;
        let mut s = LaneSelect::<B, 55>::new();
        s.connect_all();
        let tag = |i: usize| 0x5a00_0000u64 | (0x11 * i as u64) << 8 | i as u64;
        let mut data = Bits::<B>::from(0u64);
        for i in 0..lanes {
            data = data | (Bits::<B>::from(tag(i)) << ((32 * i) as u64));
        }
        s.data.next = data;
        let mut cases: Vec<(u64, u64)> = (0..lanes).map(|j| (1u64 << j, tag(j))).collect();
        cases.push((0, 0));
        if lanes >= 2 {
            cases.push((0b11, tag(0) | tag(1)));
        }
        if lanes < 16 {
            cases.push((1 << lanes, 0));
        }
        for (sel, want) in cases {
            s.sel.next = sel.into();
            super::settle_block(&mut s);
            assert_eq!(s.word.val(), Bits::<55>::from(want), "B={B} sel={sel:#x}");
        }
    }

    #[test]
    fn lane_select_picks_the_lane_of_the_one_hot_at_every_width() {
        every_lane::<32>();
        every_lane::<64>();
        every_lane::<128>();
        every_lane::<256>();
        every_lane::<512>();
    }

    #[test]
    #[should_panic(expected = "LaneSelect: B is whole 32-bit lanes")]
    fn lane_select_rejects_a_narrow_output() {
        let _ = LaneSelect::<128, 16>::new();
    }
}

// ---- src/gearbox.rs ----
mod gearbox {
    use hdl::gearbox::*;
    use rust_hdl::prelude::*;

    /// One evaluation of the block on lane-tagged beats.
    fn eval<const B: usize>(g: &mut Gearbox<B>, data: Bits<B>, acc: Bits<B>, amt: u64, hold: u64) {
        g.data.next = data;
        g.acc.next = acc;
        g.amt.next = amt.into();
        g.hold.next = hold.into();
        for _ in 0..4 {
            g.update_all();
        }
    }

    fn lane<const B: usize>(x: Bits<B>, i: usize, lane_bits: usize) -> u64 {
        (x.get_bits::<32>(i * lane_bits).index() as u64) & ((1u64 << lane_bits) - 1)
    }

    /// Every rotation and every hold, for every lane size a beat of B bits allows: each lane of
    /// `data` and `acc` carries its own tag, so the lane mapping is checked exhaustively.
    fn exhaustive<const B: usize>() {
        for lane_bits in [8usize, 16, 32].into_iter().filter(|&l| l <= B) {
            let lanes = B / lane_bits;
            let mut g = Gearbox::<B>::new("gearbox test", lane_bits);
            g.connect_all();
            let mut data = Bits::<B>::from(0u64);
            let mut acc = Bits::<B>::from(0u64);
            for i in 0..lanes {
                data = data | (Bits::<B>::from(0x10 + i as u64) << ((i * lane_bits) as u64));
                acc = acc | (Bits::<B>::from(0x80 + i as u64) << ((i * lane_bits) as u64));
            }
            // amt's unused high bits must not matter: 0..256 covers them all.
            for amt in 0..256u64 {
                for hold in 0..=lanes as u64 {
                    eval(&mut g, data, acc, amt, hold);
                    for i in 0..lanes {
                        let from = (i + lanes - (amt as usize % lanes)) % lanes;
                        let want_rot = 0x10 + from as u64;
                        let got_rot = lane(g.rot.val(), i, lane_bits);
                        assert_eq!(got_rot, want_rot, "B={B} L={lane_bits} amt={amt} lane {i}");
                        let want = if (i as u64) < hold { 0x80 + i as u64 } else { want_rot };
                        let got = lane(g.merged.val(), i, lane_bits);
                        assert_eq!(got, want, "B={B} L={lane_bits} amt={amt} hold={hold} lane {i}");
                        let m = lane(g.mask.val(), i, lane_bits);
                        let want_m = if (i as u64) < hold { (1u64 << lane_bits) - 1 } else { 0 };
                        assert_eq!(m, want_m, "B={B} L={lane_bits} hold={hold} mask lane {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn gearbox_maps_every_lane_for_every_rotation_and_hold_w4_w8_w16() {
        exhaustive::<32>();
        exhaustive::<64>();
        exhaustive::<128>();
    }

    #[test]
    fn gearbox_maps_every_lane_for_every_rotation_and_hold_w32_w64() {
        exhaustive::<256>();
        exhaustive::<512>();
    }

    #[test]
    #[should_panic(expected = "realigner: the gearbox's lane is 8, 16 or 32 bits (got 12)")]
    fn gearbox_rejects_an_odd_lane() {
        let _ = Gearbox::<64>::new("realigner", 12);
    }

    #[test]
    #[should_panic(expected = "stripper: the gearbox's beat is a power of two")]
    fn gearbox_rejects_a_beat_narrower_than_a_lane() {
        let _ = Gearbox::<16>::new("stripper", 32);
    }
}
