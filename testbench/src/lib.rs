//! Shared helpers of the cross-check tests in `tests/`: seeded message generators, the golden
//! CRC of a message, and the RFC 5044 Figure 5 FPDU.

use golden::crc::CrcDef;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded generator (every test names its seed, so every failure replays).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The connection whose segment goes next when several connections share one block through
/// their context records: among those with segments `left`, the one served now (`cur`) again
/// with probability 0.3, else any at random; with `force_switch`, another one if there is one.
pub fn next_connection(
    r: &mut ChaCha8Rng,
    left: &[usize],
    cur: Option<usize>,
    force_switch: bool,
) -> usize {
    let others: Vec<usize> = left.iter().copied().filter(|&c| Some(c) != cur).collect();
    let stay = cur.filter(|c| left.contains(c) && r.gen_bool(0.3));
    if force_switch && !others.is_empty() {
        others[r.gen_range(0..others.len())]
    } else {
        stay.unwrap_or_else(|| left[r.gen_range(0..left.len())])
    }
}

/// Exports a block that is not a top at W = 4 and 64, built as `$ty::<W, B>::$ctor()` (for
/// example `RxFpduWalker, with_context`), under the names `<prefix>_w4` / `<prefix>_w64`, and
/// runs [`check_block_verilog`] on each (Yosys `check -assert`, Verilator's lint).
#[macro_export]
macro_rules! check_block_verilog_w4_w64 {
    ($prefix:literal, $ty:ident, $ctor:ident) => {
        for w in [4usize, 64] {
            $crate::check_block_verilog_at!(w, $prefix, $ty, $ctor, $crate::check_block_verilog);
        }
    };
}

/// Exports a block that is not a top at width `$w` as [`check_block_verilog_w4_w64`] does and
/// runs `$check` on it ([`check_block_verilog`] or [`lint_block_verilog`]).
#[macro_export]
macro_rules! check_block_verilog_at {
    ($w:expr, $prefix:literal, $ty:ident, $ctor:ident, $check:path) => {{
        let w: usize = $w;
        let name = format!(concat!($prefix, "_w{}"), w);
        let v = hdl::with_width!(w, |W, B| {
            let mut b = $ty::<W, B>::$ctor();
            hdl::export::export_block(&name, &mut b, "test").unwrap().verilog
        });
        $check(&name, &v);
    }};
}

/// Writes `verilog`, the export of a block called `name` that is not a top (so not in
/// `export.rs`'s lists), under `target/testbench/<name>/` and runs Yosys `check -assert` and
/// Verilator's lint with width warnings on it.
pub fn check_block_verilog(name: &str, verilog: &str) {
    let file = write_block_verilog(name, verilog);
    sim::tools::yosys_check(&file, name).unwrap();
    sim::tools::verilator_lint(&file, name).unwrap();
}

/// [`check_block_verilog`] without Yosys: Verilator's lint only. For the largest blocks at W = 64,
/// whose Yosys check (9 to 12 s each) runs in `make test-extra`.
pub fn lint_block_verilog(name: &str, verilog: &str) {
    let file = write_block_verilog(name, verilog);
    sim::tools::verilator_lint(&file, name).unwrap();
}

fn write_block_verilog(name: &str, verilog: &str) -> std::path::PathBuf {
    let dir = sim::workspace_root().join("target/testbench").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.v"));
    std::fs::write(&file, verilog).unwrap();
    file
}

/// `n` random messages with lengths uniform in `lens`.
pub fn random_messages(
    rng: &mut ChaCha8Rng,
    n: usize,
    lens: std::ops::RangeInclusive<usize>,
) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = rng.gen_range(lens.clone());
            (0..len).map(|_| rng.gen()).collect()
        })
        .collect()
}

/// The CRC of `msg` by the golden model: the `crc32c` crate for CRC32c (an implementation
/// independent of the bitwise definition the hardware matrices come from), the bitwise
/// definition otherwise.
pub fn golden_crc(def: &CrcDef, msg: &[u8]) -> u32 {
    if def.name == golden::crc::CRC32C.name {
        golden::crc::crc32c(msg)
    } else {
        def.checksum(msg)
    }
}

/// `msg` followed by its own CRC as it travels on the wire.
pub fn with_own_crc(def: &CrcDef, msg: &[u8]) -> Vec<u8> {
    let mut v = msg.to_vec();
    v.extend(def.wire_bytes(golden_crc(def, msg)));
    v
}

/// The 48 octets RFC 5044 Figure 5's CRC covers (marker, ULPDU_Length 0x002a, DDP/RDMAP
/// header of an untagged Send, payload, pad); its CRC32c is 0x83992352 (field `52 23 99 83`).
pub fn rfc5044_figure5_covered() -> Vec<u8> {
    let mut fpdu = vec![0u8; 48];
    fpdu[5] = 0x2a;
    fpdu[6] = 0x41;
    fpdu[7] = 0x43;
    fpdu[0x13] = 0x01;
    fpdu
}

/// Compares hardware results with the golden model; panics naming the first few mismatches.
pub fn assert_crcs(
    what: &str,
    def: &CrcDef,
    messages: &[Vec<u8>],
    results: &[sim::crc::CrcResult],
) {
    assert_eq!(results.len(), messages.len(), "{what}: result count");
    let bad: Vec<String> = messages
        .iter()
        .zip(results)
        .enumerate()
        .filter(|(_, (m, r))| golden_crc(def, m) != r.crc)
        .map(|(i, (m, r))| {
            format!(
                "message {i} ({} bytes): hardware {:08x}, golden {:08x}",
                m.len(),
                r.crc,
                golden_crc(def, m)
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: {} CRC mismatches, first:\n{}",
        bad.len(),
        bad[..bad.len().min(5)].join("\n")
    );
}

/// The bad flag the hardware must report: the message does not end with its own correct CRC
/// (the register after it is not the residue).
pub fn golden_bad(def: &CrcDef, msg: &[u8]) -> bool {
    def.update_register(def.init_register(), msg) != def.residue_register()
}

/// Transmit-side expectations from the golden model.
pub mod interleave;

pub mod tx {
    use golden::fpdu::{Framer, FramingConfig};

    /// The sideband the transmit blocks carry with an FPDU (see `hdl::tx`).
    pub fn fpdu_user(ulpdu_len: usize, markers: bool, crc: bool, push: bool) -> u64 {
        (((ulpdu_len as u64 + 5) >> 2) + 1)
            | ((markers as u64) << 14)
            | ((crc as u64) << 15)
            | ((push as u64) << 16)
    }

    /// An FPDU without Markers and with a zero CRC field: what the framer emits.
    pub fn plain_fpdu(ulpdu: &[u8]) -> Vec<u8> {
        let cfg = FramingConfig { markers: false, crc: false, offset: 0 };
        Framer::new(cfg).unwrap().frame(ulpdu).unwrap()
    }

    /// The FPDUs of `ulpdus`, one per entry, framed by the golden model from stream position
    /// `cfg.offset`.
    pub fn framed_fpdus(cfg: FramingConfig, ulpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut f = Framer::new(cfg).unwrap();
        ulpdus.iter().map(|u| f.frame(u).unwrap()).collect()
    }
}

/// The golden expectation for a whole `mpa_tx` run.
pub mod tx_golden {
    use golden::fpdu::{Framer, FramingConfig};
    use golden::mulpdu::ULPDU_MAX;
    use golden::segment::{effective_emss, segment_fpdus_with_push, Segmentation};
    use sim::tx::{TxSettings, TxUlpdu};

    /// What the golden model sends for these ULPDUs: each framed with exactly its declared
    /// ULPDU_Length (the octets sent, cut or completed with zeros), those declared above 64768
    /// dropped, then segmented.
    pub fn expected(settings: &TxSettings, ulpdus: &[TxUlpdu]) -> Segmentation {
        let offset = settings.seq.wrapping_sub(settings.origin) & !3;
        let cfg = FramingConfig { markers: settings.markers, crc: settings.crc, offset };
        let mut framer = Framer::new(cfg).unwrap();
        let mut fpdus = vec![];
        for u in ulpdus.iter().filter(|u| u.declared <= ULPDU_MAX as usize) {
            let mut data = u.data[..u.data.len().min(u.declared)].to_vec();
            data.resize(u.declared, 0);
            fpdus.push((framer.frame(&data).unwrap(), u.push));
        }
        segment_fpdus_with_push(&fpdus, effective_emss(settings.emss), settings.seq).unwrap()
    }
}

/// Receive-side stimulus: segments cut from a byte stream, and word streams for the blocks after
/// the realigner.
pub mod rx {
    use hdl::sideband::{RxSegmentUser, RxWordUser};
    use rand::Rng;
    use rand_chacha::ChaCha8Rng;
    use sim::packet::InPacket;

    /// Cuts `stream` into segments of 1..=`max` octets (sequence numbers from `seq`); the last
    /// carries FIN when `fin`. Segment sideband: `[31:0]` sequence number, `[32]` FIN.
    pub fn segments(
        r: &mut ChaCha8Rng,
        stream: &[u8],
        seq: u32,
        max: usize,
        fin: bool,
    ) -> Vec<InPacket> {
        let mut out = vec![];
        let mut at = 0usize;
        while at < stream.len() {
            let n = r.gen_range(1..=max).min(stream.len() - at);
            let s = seq.wrapping_add(at as u32);
            out.push(InPacket::segment(stream[at..at + n].to_vec(), s, false));
            at += n;
        }
        if fin {
            match out.last_mut() {
                Some(p) => p.set_fin(),
                None => out.push(InPacket::segment(vec![], seq, true)),
            }
        }
        out
    }

    /// `segs` (of `stream`, in order, from sequence number `seq`) with retransmissions as TCP
    /// hands them over after a loss (RFC 5044 A.3): every third segment starts again 1 to
    /// `max_back` octets before its own start, and every seventh that does not end the stream is
    /// sent twice. A receiver must trim the octets it took already and drop the duplicates
    /// without an error.
    pub fn with_retransmissions(
        r: &mut ChaCha8Rng,
        stream: &[u8],
        seq: u32,
        segs: &mut Vec<InPacket>,
        max_back: usize,
    ) {
        let mut out = Vec::new();
        for (i, g) in segs.iter().enumerate() {
            let f = RxSegmentUser::unpack(g.user);
            let start = (f.seq as u32).wrapping_sub(seq) as usize;
            let mut g = g.clone();
            if i % 3 == 1 && start > 0 {
                let back = r.gen_range(1..=start.min(max_back));
                g.data = stream[start - back..start + g.data.len()].to_vec();
                let s = seq.wrapping_add((start - back) as u32) as u64;
                g.user = RxSegmentUser { seq: s, ..f }.pack();
            }
            if i % 7 == 3 && !f.fin {
                out.push(g.clone());
            }
            out.push(g);
        }
        *segs = out;
    }

    /// The word stream the realigner hands on, as packets of whole words: each packet is one or
    /// more beats (`w` octets) with a partial last beat allowed; the stream's final packet is one
    /// beat with the FIN bit (`[0]`), and `[1]` when `lost` octets of an incomplete word were lost.
    pub fn word_stream(r: &mut ChaCha8Rng, words: &[u8], w: usize, lost: bool) -> Vec<InPacket> {
        assert_eq!(words.len() % 4, 0);
        let mut out = vec![];
        let mut at = 0usize;
        loop {
            let left = words.len() - at;
            if left <= w {
                let user = RxWordUser { fin: true, lost }.pack();
                out.push(InPacket { data: words[at..].to_vec(), user });
                break;
            }
            let n = (r.gen_range(1..=3 * w / 4 + 1) * 4).min(left - 4);
            out.push(InPacket { data: words[at..at + n].to_vec(), user: 0 });
            at += n;
        }
        out
    }
}

/// The receive path against the golden deframer.
pub mod rx_check {
    use golden::deframe::deframe_stream_with_limit;
    use golden::fpdu::FramingConfig;
    use sim::packet::{InPacket, PacketRun};
    use sim::rx::{RxError, RxRun, RxSettings, RxUlpdu};

    /// What the golden deframer says `mpa_rx` must release for `stream` starting at sequence
    /// number `seq` with the marker origin at `seq - cfg.offset`: the ULPDUs with their FPDUs'
    /// sequence numbers, and the error.
    pub fn expected(
        cfg: FramingConfig,
        stream: &[u8],
        seq: u32,
        limit: u32,
    ) -> (Vec<RxUlpdu>, Option<RxError>) {
        let d = deframe_stream_with_limit(cfg, stream, limit);
        let ulpdus = d
            .ulpdus
            .iter()
            .map(|u| RxUlpdu { seq: seq.wrapping_add(u.fpdu_offset as u32), data: u.data.clone() })
            .collect();
        let error = d.error.map(|e| RxError {
            seq: seq.wrapping_add(e.fpdu_offset().expect("a stream error has an offset") as u32),
            code: e.code(),
        });
        (ulpdus, error)
    }

    /// Runs `segments` (of `stream`) through `mpa_rx` and asserts the golden deframer's
    /// ULPDUs and error; returns the run.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        engine: sim::Engine,
        w: usize,
        cfg: FramingConfig,
        stream: &[u8],
        segments: &[InPacket],
        seq: u32,
        limit: u32,
        opts: &PacketRun,
        what: &str,
    ) -> RxRun {
        let mut sim = sim::rx::mpa_rx(engine, w).unwrap();
        check_on(sim.as_mut(), engine.name(), w, cfg, stream, segments, seq, limit, opts, what)
    }

    /// [`check`] on a simulation already built (`mpa_rx` at `w`; it is reset first).
    #[allow(clippy::too_many_arguments)]
    pub fn check_on(
        sim: &mut dyn sim::CycleSim,
        engine: &str,
        w: usize,
        cfg: FramingConfig,
        stream: &[u8],
        segments: &[InPacket],
        seq: u32,
        limit: u32,
        opts: &PacketRun,
        what: &str,
    ) -> RxRun {
        let (want, want_err) = expected(cfg, stream, seq, limit);
        let settings = RxSettings {
            markers: cfg.markers,
            crc: cfg.crc,
            seq,
            origin: seq.wrapping_sub(cfg.offset),
            max_ulpdu: limit.min(0xFFFF) as u16,
        };
        let n = want.len() + want_err.is_some() as usize;
        let opts = PacketRun { expect_packets: Some(n), ..opts.clone() };
        let run = sim::rx::run_rx(sim, &settings, segments, &opts)
            .unwrap_or_else(|e| panic!("{engine} W={w} {what}: {e}"));
        assert_eq!(run.ulpdus.len(), want.len(), "{engine} W={w} {what}: ULPDU count");
        for (i, (g, h)) in want.iter().zip(&run.ulpdus).enumerate() {
            assert_eq!(h.seq, g.seq, "{engine} W={w} {what}: ULPDU {i} sequence number");
            assert!(h.data == g.data, "{engine} W={w} {what}: ULPDU {i} octets differ");
        }
        assert_eq!(run.error, want_err, "{engine} W={w} {what}: error");
        run
    }
}

/// `rnic_rx` against the golden receiver: one connection through the hardware
/// ([`sim::place::run_rnic`]) and through [`golden::receiver::Receiver`] in sequence order
/// (`rnic place --inorder`), with the same deliveries, the same error (code and FPDU) and the
/// same memory in every region and posted buffer.
pub mod rnic {
    use golden::fpdu::FramingConfig;
    use golden::receiver::{locate_fpdus, Event, LocateSettings, Receiver, ReceiverConfig};
    use sim::place::{run_rnic, RnicRun, RnicRunOptions};
    use sim::traffic::{run_receiver, TcpSegment};

    /// An event without the error's reason (the hardware has none to give).
    pub fn comparable(e: &Event) -> String {
        match e {
            Event::Deliver(d) => format!("{d:?}"),
            Event::Error(x) => format!("Error {} at seq {}", x.code, x.seq),
        }
    }

    /// Runs the connection on `sim` and on the golden receiver; panics (naming `what`) at the
    /// first difference. Returns the hardware run and the golden events.
    pub fn check_connection(
        sim: &mut dyn sim::CycleSim,
        cfg: &ReceiverConfig,
        segments: &[TcpSegment],
        opts: &RnicRunOptions,
        what: &str,
    ) -> (RnicRun, Vec<Event>) {
        let hw = run_rnic(sim, cfg, segments, opts)
            .unwrap_or_else(|e| panic!("{what}: hardware run failed: {e}"));
        let gold = run_receiver(cfg, segments, true, None, false)
            .unwrap_or_else(|e| panic!("{what}: golden run failed: {e}"));
        let g_events: Vec<Event> = gold.events().into_iter().cloned().collect();
        assert_same_run(&hw, &g_events, gold.receiver.memory(), what);
        (hw, g_events)
    }

    /// Panics, naming the first difference, unless the hardware's records and memory are the
    /// golden receiver's events and memory.
    fn assert_same_run(
        hw: &RnicRun,
        g_events: &[Event],
        memory: &golden::receiver::Memory,
        what: &str,
    ) {
        let hw_c: Vec<String> = hw.events.iter().map(comparable).collect();
        let g_c: Vec<String> = g_events.iter().map(comparable).collect();
        if hw_c != g_c {
            let first = hw_c
                .iter()
                .zip(&g_c)
                .position(|(a, b)| a != b)
                .unwrap_or(hw_c.len().min(g_c.len()));
            panic!(
                "{what}: events differ at #{first} ({} hardware, {} golden):\n  hardware: {:?}\n  golden:   {:?}",
                hw_c.len(),
                g_c.len(),
                hw_c.get(first),
                g_c.get(first)
            );
        }
        for (t, bytes) in &hw.memory {
            let g = memory.get(*t).unwrap_or_else(|| panic!("{what}: golden has no {t:?}"));
            if g != bytes.as_slice() {
                let at = g.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(0);
                panic!(
                    "{what}: memory of {t:?} differs at octet {at} of {}: hardware {:02x?}, golden {:02x?}",
                    g.len(),
                    &bytes[at..(at + 16).min(bytes.len())],
                    &g[at..(at + 16).min(g.len())]
                );
            }
        }
    }

    /// The connection `segments` (in arrival order) through the hardware, offered as the golden
    /// receiver offers them (refused segments again after 3 more offers) with the hardware's
    /// reassembly settings ([`sim::place::hardware_reassembly`] of `cfg`): the verdicts, the
    /// deliveries, the error and the memory must be the golden receiver's, and (the invariant)
    /// the golden receiver's deliveries and error those of the same segments in order. Returns
    /// the hardware run, the golden events and the golden run's refusals.
    pub fn check_arrival(
        sim: &mut dyn sim::CycleSim,
        cfg: &ReceiverConfig,
        segments: &[TcpSegment],
        opts: &RnicRunOptions,
        what: &str,
    ) -> (RnicRun, Vec<Event>, usize) {
        check_arrival_with(sim, &sim::place::hardware_reassembly(cfg), segments, opts, what)
    }

    /// [`check_arrival`] with out-of-order placement on ([`sim::place::hardware_placement`] of
    /// `cfg`: FPDUs located by Markers and the chain in out-of-order segments are placed from
    /// them): the verdicts, deliveries, error and memory must be the golden receiver's with
    /// the same settings, the FPDUs placed out of order (REASM_PLACED) as many as the golden
    /// receiver's, and its deliveries and error those of the same segments in order.
    pub fn check_placement(
        sim: &mut dyn sim::CycleSim,
        cfg: &ReceiverConfig,
        segments: &[TcpSegment],
        opts: &RnicRunOptions,
        what: &str,
    ) -> (RnicRun, Vec<Event>, usize) {
        let cfg = sim::place::hardware_placement(cfg);
        let r = check_arrival_with(sim, &cfg, segments, opts, what);
        let gold = run_receiver(&cfg, segments, false, Some(3), false)
            .unwrap_or_else(|e| panic!("{what}: golden run failed: {e}"));
        assert_eq!(
            r.0.final_regs[&hdl::place::reg::REASM_PLACED] as u64,
            gold.receiver.metrics().ooo_fpdus,
            "{what}: FPDUs placed out of order (REASM_PLACED against the golden receiver's)"
        );
        r
    }

    /// [`check_arrival`] with `cfg` as given (the hardware's settings).
    pub fn check_arrival_with(
        sim: &mut dyn sim::CycleSim,
        cfg: &ReceiverConfig,
        segments: &[TcpSegment],
        opts: &RnicRunOptions,
        what: &str,
    ) -> (RnicRun, Vec<Event>, usize) {
        use sim::traffic::LogEntry;
        let cfg = cfg.clone();
        let gold = run_receiver(&cfg, segments, false, Some(3), false)
            .unwrap_or_else(|e| panic!("{what}: golden run failed: {e}"));
        let inorder = run_receiver(&cfg, segments, true, None, false)
            .unwrap_or_else(|e| panic!("{what}: golden in-order run failed: {e}"));
        let g_c: Vec<String> = gold.events().into_iter().map(comparable).collect();
        let i_c: Vec<String> = inorder.events().into_iter().map(comparable).collect();
        assert_eq!(g_c, i_c, "{what}: golden, any order vs in order (the invariant)");
        let mut offers = Vec::new();
        let mut verdicts = Vec::new();
        for l in &gold.log {
            if let LogEntry::Verdict { segment, verdict, .. } = l {
                offers.push(segments[*segment].clone());
                verdicts.push(*verdict == golden::receiver::Verdict::Accepted);
            }
        }
        // Quick offers only where nothing stops the connection (see `arrival_quick`).
        let stops = gold.receiver.error().is_some()
            || gold
                .events()
                .into_iter()
                .any(|e| matches!(e, Event::Deliver(golden::receiver::Delivery::Terminate { .. })));
        let opts = RnicRunOptions {
            arrival: true,
            arrival_quick: opts.arrival_quick && !stops,
            ..opts.clone()
        };
        let hw = run_rnic(sim, &cfg, &offers, &opts)
            .unwrap_or_else(|e| panic!("{what}: hardware run failed: {e}"));
        let hw_v: Vec<bool> = hw.verdicts.iter().map(|v| v.1).collect();
        if hw_v != verdicts {
            let k = hw_v.iter().zip(&verdicts).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{what}: verdicts differ at offer {k} of {} (seq {:#x}): hardware {:?}, golden {:?}",
                verdicts.len(),
                offers[k.min(offers.len() - 1)].seq,
                hw_v.get(k),
                verdicts.get(k)
            );
        }
        let g_events: Vec<Event> = gold.events().into_iter().cloned().collect();
        assert_same_run(&hw, &g_events, gold.receiver.memory(), what);
        let refused = verdicts.iter().filter(|v| !**v).count();
        assert_eq!(hw.final_regs[&hdl::place::reg::CNT_REFUSED] as usize, refused, "{what}");
        if !stops && !cfg.place_out_of_order {
            let located = located_in_offers(&cfg, &offers);
            let n = located.iter().map(Vec::len).sum::<usize>() as u32;
            let octets: u32 = located.iter().flatten().map(|&(a, b)| b.wrapping_sub(a)).sum();
            let r = &hw.final_regs;
            assert_eq!(
                (r[&hdl::place::reg::REASM_LOCATED], r[&hdl::place::reg::REASM_LOCATED_OCTETS]),
                (n, octets),
                "{what}: FPDUs located in out-of-order segments, and their octets"
            );
        }
        (hw, g_events, refused)
    }

    /// Per offer (in the order offered), the FPDUs `PlaceReassembly` locates in it before its
    /// verdict, `[start, end)` as sequence numbers: [`locate_fpdus`] of the segment (no placed
    /// FPDU to chain from, header alignment off) when it starts beyond the golden receiver's
    /// in-order edge (replayed from the offers), is not empty, ends within
    /// `cfg.reassembly_window` of the edge and CRCs are on; nothing otherwise. Meaningful for
    /// the offers before the connection stops.
    pub fn located_in_offers(cfg: &ReceiverConfig, offers: &[TcpSegment]) -> Vec<Vec<(u32, u32)>> {
        let mut r = Receiver::new(cfg).expect("config");
        let settings = LocateSettings {
            framing: FramingConfig { markers: cfg.markers, crc: true, offset: 0 },
            max_ulpdu: cfg.max_ulpdu,
            aligned_detect: false,
            version: cfg.version.protocol(),
        };
        let mut out = Vec::new();
        for x in offers {
            let rel = x.seq.wrapping_sub(r.edge_seq()) as u64;
            let len = x.payload.len() as u64;
            let mut found = Vec::new();
            if cfg.crc
                && rel != 0
                && rel < 1 << 31
                && len != 0
                && rel + len <= cfg.reassembly_window
            {
                let s = x.seq.wrapping_sub(cfg.origin) as u64;
                for l in locate_fpdus(&settings, None, s, s + len, &x.payload) {
                    found.push((
                        cfg.origin.wrapping_add(l.start as u32),
                        cfg.origin.wrapping_add(l.end as u32),
                    ));
                }
            }
            out.push(found);
            r.segment(x.seq, &x.payload, x.fin).expect("golden segment");
        }
        out
    }

    /// Protection domain of [`crafted_config`].
    pub const PD: u32 = 7;
    /// Sequence number of the first octet of [`crafted_config`] (the stream wraps 2^32 after
    /// 4 KiB).
    pub const ORIGIN: u32 = 0xFFFF_F000;
    /// A writable region at TO [`BASE`], [`REGION_LEN`] octets.
    pub const STAG: u32 = 0x0155;
    /// Length of the [`STAG`] region: 1 MiB.
    pub const REGION_LEN: u64 = 1 << 20;
    /// Its base TO.
    pub const BASE: u64 = 0x0010_0000;
    /// A writable region whose last octet is at TO 2^64 - 1 (4 KiB).
    pub const STAG_TOP: u32 = 0x02AA;
    /// A region of another protection domain.
    pub const STAG_OTHER_PD: u32 = 0x0333;
    /// A region without remote write.
    pub const STAG_READ_ONLY: u32 = 0x0444;
    /// A region registered invalid.
    pub const STAG_INVALID: u32 = 0x0555;
    /// A writable region for Sends with Invalidate to invalidate.
    pub const STAG_VICTIM: u32 = 0x0666;
    /// Base TO of the other small regions.
    pub const SMALL_BASE: u64 = 0x2000;

    /// A configuration for hand-built streams: the regions above (4 KiB each but [`STAG`]),
    /// queue 0 with buffers of 4 KiB for MSNs 1..=12, queue 1 with 28-octet buffers for MSNs
    /// 1..=3, queue 2 with a 64-octet buffer for MSN 1; MSN window 16, ULPDU_Length limit 9000.
    pub fn crafted_config(markers: bool) -> ReceiverConfig {
        use golden::receiver::{PostedConfig, RegionConfig, VersionName};
        let region = |stag, base, len, pd, write, valid| RegionConfig {
            stag,
            base,
            len,
            pd,
            write,
            read: true,
            valid,
        };
        let mut posted: Vec<PostedConfig> =
            (1..=12).map(|msn| PostedConfig { qn: 0, msn, len: 4096 }).collect();
        posted.extend((1..=3).map(|msn| PostedConfig { qn: 1, msn, len: 28 }));
        posted.push(PostedConfig { qn: 2, msn: 1, len: 64 });
        ReceiverConfig {
            markers,
            crc: true,
            origin: ORIGIN,
            aligned_detect: true,
            reassembly_octets: 1 << 20,
            reassembly_window: golden::receiver::WINDOW,
            place_out_of_order: true,
            records: 64,
            pd: PD,
            msn_window: 16,
            max_ulpdu: 9000,
            first_msn: 1,
            version: VersionName::Rfc5040,
            regions: vec![
                region(STAG, BASE, REGION_LEN, PD, true, true),
                region(STAG_TOP, u64::MAX - 4095, 4096, PD, true, true),
                region(STAG_OTHER_PD, SMALL_BASE, 4096, PD + 1, true, true),
                region(STAG_READ_ONLY, SMALL_BASE, 4096, PD, false, true),
                region(STAG_INVALID, SMALL_BASE, 4096, PD, true, false),
                region(STAG_VICTIM, SMALL_BASE, 4096, PD, true, true),
            ],
            posted,
        }
    }

    /// `ulpdus` framed from the origin (Markers and CRC as `cfg` says) and cut into TCP
    /// segments of `cut` octets (the last one shorter, with FIN).
    pub fn crafted_segments(
        cfg: &ReceiverConfig,
        ulpdus: &[Vec<u8>],
        cut: usize,
    ) -> Vec<TcpSegment> {
        let fc = golden::fpdu::FramingConfig { markers: cfg.markers, crc: cfg.crc, offset: 0 };
        let mut f = golden::fpdu::Framer::new(fc).expect("offset 0");
        let mut wire = Vec::new();
        for u in ulpdus {
            f.frame_into(u, &mut wire).expect("ULPDU below 64768 octets");
        }
        let n = wire.len().div_ceil(cut.max(1)).max(1);
        (0..n)
            .map(|i| {
                let a = i * cut;
                let b = ((i + 1) * cut).min(wire.len());
                TcpSegment {
                    seq: cfg.origin.wrapping_add(a as u32),
                    payload: wire[a.min(b)..b].to_vec(),
                    fin: i + 1 == n,
                }
            })
            .collect()
    }

    /// A connection small enough for the rust-hdl model: `messages` messages of the generator
    /// (`sim::traffic`) for `scenario`, its segments and configuration.
    pub fn traffic(
        scenario: sim::traffic::Scenario,
        seed: u64,
        markers: bool,
        crc: bool,
        messages: usize,
        fault: Option<sim::traffic::Fault>,
    ) -> (ReceiverConfig, Vec<TcpSegment>) {
        let t = sim::traffic::generate(&sim::traffic::TrafficOptions {
            scenario,
            seed,
            markers,
            crc,
            messages,
            fault,
            ..Default::default()
        });
        (t.config, t.segments)
    }
}
