//! Rough numbers for the backend: codegen + link throughput over the corpus (in source
//! lines per second of the programs' IR), and run time of the JIT against the interpreter
//! on a few compute-heavy corpus programs. `cargo run --release -p pipeline --example backend_measure`

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use shared_frontend::ir::interp::{self, InterpLimits};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/corpus/run");
    let mut programs = Vec::new();
    let mut lines = 0usize;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let compiled = pipeline::compile_path(&path, pipeline::Until::Ir);
            if let Some(ir) = compiled.ir {
                lines += std::fs::read_to_string(&path).unwrap().lines().count();
                programs.push((path.file_stem().unwrap().to_string_lossy().into_owned(), ir));
            }
        }
    }
    programs.sort_by(|a, b| a.0.cmp(&b.0));
    let insts: usize = programs
        .iter()
        .flat_map(|(_, p)| p.functions.iter())
        .map(|f| f.blocks.iter().map(|b| b.insts.len() + 1).sum::<usize>())
        .sum();
    let reps = 200;
    let t = Instant::now();
    let mut bytes = 0usize;
    for _ in 0..reps {
        for (_, p) in &programs {
            let blobs: Vec<_> = p
                .functions
                .iter()
                .map(|f| (f.def, Arc::new(backend::codegen(f))))
                .collect();
            bytes += blobs.iter().map(|(_, b)| b.bytes.len()).sum::<usize>();
            std::hint::black_box(&blobs);
        }
    }
    let cg = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for _ in 0..reps {
        for (_, p) in &programs {
            std::hint::black_box(backend::compile_program(p).unwrap());
        }
    }
    let all = t.elapsed().as_secs_f64();
    println!(
        "{} programs, {lines} lines, {insts} IR instructions; codegen {:.0} lines/s ({:.1} M IR inst/s, {} bytes/program-set); codegen+link {:.0} lines/s",
        programs.len(),
        (lines * reps) as f64 / cg,
        (insts * reps) as f64 / cg / 1e6,
        bytes / reps,
        (lines * reps) as f64 / all
    );
    let mut rows = Vec::new();
    for (name, p) in &programs {
        let image = backend::compile_program(p).unwrap();
        let t = Instant::now();
        let o = image.run(&backend::RunLimits::default());
        let jit = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let i = interp::run(p, &InterpLimits::default());
        let int = t.elapsed().as_secs_f64();
        assert_eq!(o.stdout, i.stdout, "{name}");
        rows.push((int / jit.max(1e-9), name.clone(), jit, int));
    }
    rows.sort_by(|a, b| b.3.partial_cmp(&a.3).unwrap());
    for (ratio, name, jit, int) in rows.iter().take(8) {
        println!(
            "{name:30} jit {:8.3} ms  interp {:8.3} ms  speedup {ratio:6.1}x",
            jit * 1e3,
            int * 1e3
        );
    }
}
