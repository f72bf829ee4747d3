//! Forged Rill caches whose values nest a million levels deep (DESIGN.md Invariant 6).
//!
//! The cache file of a real build of the Rill driver is taken apart (the graph section is
//! decoded with a mirror of the engine's on-disk layout), one persisted value is replaced
//! by a deeply nested one — a type alias standing for a million nested array types, a
//! constant holding a million nested arrays — the node's length and the file's header
//! (length, checksum) are recomputed, as a forger would, and the next build (after an edit
//! that makes it read the forged value) must warn and equal a from-scratch build, without
//! overflowing the stack; the build after that must find a valid cache.

use std::path::Path;
use std::sync::Arc;

use query_driver::{self as rill, Build, BuildOptions, Goal};
use serde::Serialize;
use shared_frontend::sema::modules::MemLoader;
use shared_frontend::sema::ty::{ConstValue, IntTy, Ty};

/// Mirror of the engine's `DiskNode` (a 48-byte little-endian record on disk).
#[derive(Clone, Debug)]
struct DiskNode {
    kind: u16,
    flags: u8,
    durability: u8,
    key_fp: (u64, u64),
    fp: (u64, u64),
    deps_len: u32,
    key_len: u32,
    value_len: u32,
}

/// Mirror of the engine's `DiskGraph`.
#[derive(Clone, Debug)]
struct DiskGraph {
    kinds: Vec<String>,
    nodes: Vec<DiskNode>,
    edges: Vec<u32>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_le(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Decodes the graph section: kinds, node records, edges, each list after a u32 count.
fn decode_graph(b: &[u8]) -> DiskGraph {
    let mut at = 0;
    let count = |at: &mut usize| {
        let n = u32_at(b, *at) as usize;
        *at += 4;
        n
    };
    let kinds = (0..count(&mut at))
        .map(|_| {
            let len = u32_at(b, at) as usize;
            let k = String::from_utf8(b[at + 4..at + 4 + len].to_vec()).unwrap();
            at += 4 + len;
            k
        })
        .collect();
    let nodes = (0..count(&mut at))
        .map(|_| {
            let r = &b[at..at + 48];
            at += 48;
            DiskNode {
                kind: u16::from_le_bytes([r[0], r[1]]),
                flags: r[2],
                durability: r[3],
                key_fp: (u64_le(r, 4), u64_le(r, 12)),
                fp: (u64_le(r, 20), u64_le(r, 28)),
                deps_len: u32_at(r, 36),
                key_len: u32_at(r, 40),
                value_len: u32_at(r, 44),
            }
        })
        .collect();
    let edges = (0..count(&mut at))
        .map(|i| u32_at(b, at + 4 * i))
        .collect::<Vec<_>>();
    assert_eq!(at + 4 * edges.len(), b.len());
    DiskGraph {
        kinds,
        nodes,
        edges,
    }
}

/// Encodes the graph section as the engine does.
fn encode_graph(g: &DiskGraph) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(g.kinds.len() as u32).to_le_bytes());
    for k in &g.kinds {
        out.extend_from_slice(&(k.len() as u32).to_le_bytes());
        out.extend_from_slice(k.as_bytes());
    }
    out.extend_from_slice(&(g.nodes.len() as u32).to_le_bytes());
    for n in &g.nodes {
        out.extend_from_slice(&n.kind.to_le_bytes());
        out.push(n.flags);
        out.push(n.durability);
        for x in [n.key_fp.0, n.key_fp.1, n.fp.0, n.fp.1] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for x in [n.deps_len, n.key_len, n.value_len] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.extend_from_slice(&(g.edges.len() as u32).to_le_bytes());
    for e in &g.edges {
        out.extend_from_slice(&e.to_le_bytes());
    }
    out
}

const HAS_VALUE: u8 = 1 << 2;

/// A cache file taken apart.
struct Parts {
    header: Vec<u8>,
    graph: DiskGraph,
    keys: Vec<u8>,
    /// Each node's value bytes (`None` without a value).
    values: Vec<Option<Vec<u8>>>,
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

fn split(file: &[u8]) -> Parts {
    let f = &file[file.len() - 64..];
    let (goff, glen, koff, klen, voff) = (
        u64_at(f, 0),
        u64_at(f, 8),
        u64_at(f, 16),
        u64_at(f, 24),
        u64_at(f, 32),
    );
    let graph = decode_graph(&file[goff..goff + glen]);
    let mut at = voff;
    let values = graph
        .nodes
        .iter()
        .map(|node| {
            (node.flags & HAS_VALUE != 0).then(|| {
                let v = file[at..at + node.value_len as usize].to_vec();
                at += node.value_len as usize;
                v
            })
        })
        .collect();
    Parts {
        header: file[..64].to_vec(),
        graph,
        keys: file[koff..koff + klen].to_vec(),
        values,
    }
}

/// Writes the parts back as a file with a valid length and checksum.
fn join(p: &Parts) -> Vec<u8> {
    let graph = encode_graph(&p.graph);
    let values: Vec<u8> = p.values.iter().flatten().flatten().copied().collect();
    let mut b = p.header.clone();
    let goff = b.len();
    b.extend_from_slice(&graph);
    let koff = b.len();
    b.extend_from_slice(&p.keys);
    let voff = b.len();
    b.extend_from_slice(&values);
    for x in [
        goff,
        graph.len(),
        koff,
        p.keys.len(),
        voff,
        values.len(),
        p.graph.nodes.len(),
    ] {
        b.extend_from_slice(&(x as u64).to_le_bytes());
    }
    b.extend_from_slice(b"RILLIDX\x01");
    let len = b.len() as u64;
    b[32..40].copy_from_slice(&len.to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_128(&b[64..]);
    b[40..56].copy_from_slice(&sum.to_le_bytes());
    b
}

/// Replaces, in every value of query `kind`, the encoding of `pattern` by `with`;
/// returns how many values were forged.
fn forge(p: &mut Parts, kind: &str, pattern: &[u8], with: &[u8]) -> usize {
    let k = p.graph.kinds.iter().position(|n| n == kind).expect("kind") as u16;
    let mut forged = 0;
    for (node, value) in p.graph.nodes.iter_mut().zip(&mut p.values) {
        let Some(v) = value else { continue };
        if node.kind != k {
            continue;
        }
        let Some(at) = v.windows(pattern.len()).position(|w| w == pattern) else {
            continue;
        };
        v.splice(at..at + pattern.len(), with.iter().copied());
        node.value_len = v.len() as u32;
        forged += 1;
    }
    forged
}

fn build(main: &str, cache: Option<&Path>) -> Build {
    rill::build(
        Arc::new(MemLoader::new([("main.rs", main.as_bytes())])),
        Path::new("main.rs"),
        Goal::Image,
        BuildOptions {
            cache_dir: cache.map(Path::to_path_buf),
            ..BuildOptions::default()
        },
    )
}

/// What must equal a from-scratch build: the rendered diagnostics and the image.
fn shown(b: &Build) -> (String, Option<u128>) {
    (
        shared_frontend::diag::render(&b.diagnostics, &b.sources, false),
        b.image.as_ref().map(|i| i.hash()),
    )
}

const DEPTH: usize = 1_000_000;

/// Builds `v0` on a cache, forges the cache with `f`, builds `v1` on it (it must warn
/// with `warning` and equal a from-scratch build of `v1`), then builds `v1` again (no
/// warning, same result).
fn check(v0: &str, v1: &str, f: impl FnOnce(&mut Parts) -> usize, warning: &str) {
    let dir = tempfile::tempdir().unwrap();
    let first = build(v0, Some(dir.path()));
    assert!(!first.has_errors(), "{:?}", first.diagnostics);
    let file = dir.path().join("image").join("query-cache.bin");
    let mut parts = split(&std::fs::read(&file).unwrap());
    assert!(f(&mut parts) > 0, "nothing to forge");
    let forged = join(&parts);
    assert!(forged.len() > DEPTH);
    std::fs::write(&file, &forged).unwrap();

    let scratch = build(v1, None);
    assert!(scratch.image.is_some(), "{:?}", scratch.diagnostics);
    let got = build(v1, Some(dir.path()));
    assert_eq!(shown(&got), shown(&scratch));
    assert!(
        got.warnings
            .iter()
            .any(|w| w.contains(warning) && w.contains("nests more than")),
        "no warning about the forged value: {:?}",
        got.warnings
    );
    let again = build(v1, Some(dir.path()));
    assert_eq!(shown(&again), shown(&scratch));
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
}

fn enc<T: Serialize>(v: &T) -> Vec<u8> {
    query::codec_encode(v).unwrap()
}

#[test]
fn a_type_alias_of_a_million_nested_arrays() {
    let v0 = "type A = [i64; 3];\nfn first(a: A) -> i64 { a[0] }\nfn main() { let a: A = [1, 2, 3]; println!(\"{}\", first(a)); }\n";
    let v1 = v0.replace("first(a))", "first(a) + 1)");
    // `[i64; 3]` is `Array(Int(I64), 3)`: the variant, the element type, the length.
    let leaf = enc(&Ty::Int(IntTy::I64));
    let pattern = enc(&Ty::Array(Arc::new(Ty::Int(IntTy::I64)), 3));
    let array_tag = pattern[0];
    assert_eq!(pattern, [&[array_tag][..], &leaf, &[3]].concat());
    let mut deep = vec![array_tag; DEPTH];
    deep.extend_from_slice(&leaf);
    deep.extend(std::iter::repeat_n(3u8, DEPTH));
    check(
        v0,
        &v1,
        |p| forge(p, "alias_ty", &pattern, &deep),
        "cannot decode the value of `alias_ty`",
    );
}

#[test]
fn a_constant_of_a_million_nested_arrays() {
    let v0 = "const C: [i64; 1] = [5];\nfn get() -> i64 { C[0] }\nfn main() { println!(\"{}\", get()); }\n";
    let v1 = v0.replace("C[0] }", "C[0] * 2 }");
    let leaf = enc(&ConstValue::Int(IntTy::I64, 5));
    let pattern = enc(&ConstValue::Array(Arc::from(vec![ConstValue::Int(
        IntTy::I64,
        5,
    )])));
    // `Array([x])`: the variant, the length 1, the element.
    let prefix = &pattern[..pattern.len() - leaf.len()];
    assert_eq!(prefix.len(), 2);
    let mut deep = prefix.repeat(DEPTH);
    deep.extend_from_slice(&leaf);
    check(
        v0,
        &v1,
        |p| forge(p, "const_value", &pattern, &deep),
        "cannot decode the value of `const_value`",
    );
}

#[test]
fn a_type_nested_just_within_the_limit_still_loads() {
    // A valid, deeply nested (but legal) type round-trips through the codec.
    let mut ty = Ty::Int(IntTy::I64);
    for _ in 0..(query::MAX_DECODE_DEPTH - 8) {
        ty = Ty::Array(Arc::new(ty), 1);
    }
    let bytes = enc(&ty);
    let back: Ty = query::codec_decode(&bytes).unwrap();
    assert!(back == ty);
    // One level too many for the limit is an error.
    let mut deeper = ty;
    for _ in 0..16 {
        deeper = Ty::Array(Arc::new(deeper), 1);
    }
    let err = query::codec_decode::<Ty>(&enc(&deeper)).unwrap_err();
    assert!(err.contains("nests more than"), "{err}");
    // Dropping deep values recurses: drop them level by level, on this thread's stack.
    drop_deep(back);
    drop_deep(deeper);
}

/// Drops a nested array type iteratively.
fn drop_deep(mut ty: Ty) {
    while let Ty::Array(inner, _) = ty {
        ty = Arc::try_unwrap(inner).unwrap_or(Ty::Unit);
    }
}
