//! Throughput of the golden framer and deframer next to the raw `crc32c` crate over the same
//! octets (the CRC is the floor: framing cannot be faster than the CRC it computes).
//!
//! Run with `make bench` (or `cargo bench -p golden --bench framing`); criterion writes its
//! estimates under `target/criterion/`, and `make bench` collects them into `build/bench/`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use golden::deframe::deframe_stream;
use golden::fpdu::{frame_stream, FramingConfig};

fn workload(ulpdu_len: usize, count: usize) -> Vec<Vec<u8>> {
    (0..count).map(|k| (0..ulpdu_len).map(|i| (i * 7 + k) as u8).collect()).collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("mpa");
    for &(ulpdu_len, markers) in &[(1442usize, true), (1454, false), (8000, true)] {
        let ulpdus = workload(ulpdu_len, 64);
        let cfg = FramingConfig { markers, crc: true, offset: 0 };
        let wire = frame_stream(cfg, &ulpdus).unwrap();
        let id = format!("{ulpdu_len}B_{}", if markers { "markers" } else { "nomarkers" });
        group.throughput(Throughput::Bytes(wire.len() as u64));
        group.bench_with_input(BenchmarkId::new("crc32c_raw", &id), &wire, |b, w| {
            b.iter(|| golden::crc::crc32c(black_box(w)))
        });
        group.bench_with_input(BenchmarkId::new("frame", &id), &ulpdus, |b, u| {
            b.iter(|| frame_stream(cfg, black_box(u)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("deframe", &id), &wire, |b, w| {
            b.iter(|| deframe_stream(cfg, black_box(w)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
