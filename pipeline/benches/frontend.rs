//! The staged pipeline, source text to checked program, to optimized IR and to a linked
//! image, on generated programs of 10k and 100k lines; throughput in lines per second.
//! Goals: at least 2M lines/s to optimized IR, 1M lines/s to a linked image, on one core.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rill_gen::{self as gen, GenConfig};
use shared_frontend::sema::modules::MemLoader;

fn program(lines: usize) -> (MemLoader, usize) {
    let p = gen::generate(&GenConfig {
        seed: 7,
        target_lines: lines,
        ..GenConfig::default()
    });
    let loader = MemLoader::new(p.files.iter().map(|f| (f.path.clone(), f.text.clone())));
    (loader, p.total_lines())
}

fn frontend(c: &mut Criterion) {
    let mut group = c.benchmark_group("frontend");
    group.sample_size(10);
    let mut targets = vec![10_000, 100_000];
    if std::env::var_os("RILL_BENCH_1M").is_some_and(|v| v == "1") {
        targets.push(1_000_000);
    }
    for target in targets {
        let (loader, lines) = program(target);
        group.throughput(Throughput::Elements(lines as u64));
        group.bench_with_input(
            BenchmarkId::new("source_to_optimized_ir", lines),
            &loader,
            |b, loader| {
                b.iter(|| {
                    let compiled =
                        pipeline::compile(loader, Path::new("main.rs"), pipeline::Until::Ir);
                    assert!(!compiled.has_errors());
                    assert!(compiled
                        .ir
                        .as_ref()
                        .is_some_and(|ir| !ir.functions.is_empty()));
                    compiled
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("source_to_linked_image", lines),
            &loader,
            |b, loader| {
                b.iter(|| {
                    let compiled =
                        pipeline::compile(loader, Path::new("main.rs"), pipeline::Until::Image);
                    assert!(!compiled.has_errors());
                    assert!(compiled.image.is_some());
                    compiled
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("source_to_checked", lines),
            &loader,
            |b, loader| {
                b.iter(|| {
                    let compiled =
                        pipeline::compile(loader, Path::new("main.rs"), pipeline::Until::Check);
                    assert!(!compiled.has_errors());
                    compiled
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, frontend);
criterion_main!(benches);
