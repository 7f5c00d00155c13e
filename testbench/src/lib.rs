//! Shared helpers of the cross-check tests in `tests/`: seeded message generators, the golden
//! CRC of a message, and the RFC 5044 Figure 5 FPDU.

use golden::crc::CrcDef;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded generator (every test names its seed, so every failure replays).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
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
            out.push(InPacket { data: stream[at..at + n].to_vec(), user: s as u64 });
            at += n;
        }
        if fin {
            match out.last_mut() {
                Some(p) => p.user |= 1 << 32,
                None => out.push(InPacket { data: vec![], user: (seq as u64) | (1 << 32) }),
            }
        }
        out
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
                let user = 1 | ((lost as u64) << 1);
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
        let mut sim = sim::rx::mpa_rx(engine, w).unwrap();
        check_on(sim.as_mut(), engine, w, cfg, stream, segments, seq, limit, opts, what)
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
