//! Forged Rill caches whose values nest a million levels deep (DESIGN.md Invariant 6).
//!
//! The cache file of a real build of the Rill driver is taken apart (its sections, with a
//! mirror of the engine's on-disk layout), one persisted value is replaced by a deeply
//! nested one — a type alias standing for a million nested array types, a constant
//! holding a million nested arrays — its record, the index and the header (length,
//! checksums) are recomputed, as a forger would, and the next build (after an edit
//! that makes it read the forged value) must warn and equal a from-scratch build, without
//! overflowing the stack; the build after that must find a valid cache.

use std::path::Path;
use std::sync::Arc;

use query_driver::{self as rill, Build, BuildOptions, Goal};
use serde::Serialize;
use shared_frontend::sema::modules::MemLoader;
use shared_frontend::sema::ty::{ConstValue, IntTy, Ty};

/// The cache file's layout (format 7, see `query/engine/src/on_disk.rs`), as a forger
/// reads it.
const INDEX_LEN: usize = 208;
const SECTIONS: usize = 9;
/// Sections, in the index's order.
const KINDS: usize = 0;
const BODIES: usize = 1;
const KEYS: usize = 2;
const FPS: usize = 3;
const RECORDS: usize = 4;

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

/// Grouped offsets of `n` entries, as a list: a u32 per block of 16 entries, a u16 per
/// entry from its block's (`0xffff`: in the far list of (entry, offset) pairs after them).
fn ungroup(b: &[u8], n: usize) -> Vec<u32> {
    let blocks = n.div_ceil(16);
    let mut out: Vec<u32> = (0..n)
        .map(|i| {
            let d = u16::from_le_bytes(b[4 * blocks + 2 * i..][..2].try_into().unwrap());
            u32_at(b, 4 * (i / 16)) + u32::from(d)
        })
        .collect();
    for pair in b[4 * blocks + 2 * n..].chunks_exact(8) {
        out[u32_at(pair, 0) as usize] = u32_at(pair, 4);
    }
    out
}

/// `offsets` as grouped offsets (see [`ungroup`]).
fn group(offsets: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut far = Vec::new();
    for block in offsets.chunks(16) {
        out.extend_from_slice(&block[0].to_le_bytes());
    }
    for (i, &o) in offsets.iter().enumerate() {
        match o.checked_sub(offsets[i / 16 * 16]).filter(|&d| d < 0xffff) {
            Some(d) => out.extend_from_slice(&(d as u16).to_le_bytes()),
            None => {
                out.extend_from_slice(&0xffffu16.to_le_bytes());
                far.extend_from_slice(&(i as u32).to_le_bytes());
                far.extend_from_slice(&o.to_le_bytes());
            }
        }
    }
    out.extend_from_slice(&far);
    out
}

fn xxh64(b: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(b)
}

/// Reads a LEB128 varint (the cache file's own).
fn leb(b: &[u8], at: &mut usize) -> u32 {
    let mut x = 0;
    for shift in (0..35).step_by(7) {
        let byte = b[*at];
        *at += 1;
        x |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
    }
    x
}

fn put_leb(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// A cache file taken apart: its sections' bytes, and the index's other fields.
struct Parts {
    header: Vec<u8>,
    sections: Vec<Vec<u8>>,
    /// The node count and the section checksums, as the index holds them.
    tail: Vec<u8>,
}

fn split(file: &[u8]) -> Parts {
    let idx = &file[file.len() - INDEX_LEN..];
    let sections = (0..SECTIONS)
        .map(|i| {
            let (off, len) = (u64_at(idx, 16 * i), u64_at(idx, 16 * i + 8));
            file[off..off + len].to_vec()
        })
        .collect();
    Parts {
        header: file[..64].to_vec(),
        sections,
        tail: idx[16 * SECTIONS..].to_vec(),
    }
}

/// Writes the parts back as a file whose every checksum is right.
fn join(p: &Parts) -> Vec<u8> {
    let mut b = p.header.clone();
    let mut index = Vec::new();
    for s in &p.sections {
        index.extend_from_slice(&(b.len() as u64).to_le_bytes());
        index.extend_from_slice(&(s.len() as u64).to_le_bytes());
        b.extend_from_slice(s);
    }
    index.extend_from_slice(&p.tail);
    b.extend_from_slice(&index);
    let len = b.len() as u64;
    b[32..40].copy_from_slice(&len.to_le_bytes());
    let generation = u64::from_le_bytes(b[56..64].try_into().unwrap());
    let sum = xxh64(&index) ^ generation;
    b[40..48].copy_from_slice(&sum.to_le_bytes());
    b
}

/// The query kind names of the file.
fn kinds(p: &Parts) -> Vec<String> {
    let b = &p.sections[KINDS];
    let mut at = 4;
    (0..u32_at(b, 0))
        .map(|_| {
            let len = u32_at(b, at) as usize;
            let k = String::from_utf8(b[at + 4..at + 4 + len].to_vec()).unwrap();
            at += 4 + len;
            k
        })
        .collect()
}

/// Replaces, in every value of query `kind`, the encoding of `pattern` by `with` (the
/// record with the new value goes at the end of the bodies section, with its checksum,
/// and the node's record offset points to it); returns how many values were forged.
fn forge(p: &mut Parts, kind: &str, pattern: &[u8], with: &[u8]) -> usize {
    let k = kinds(p).iter().position(|n| n == kind).expect("kind") as u16;
    let mut forged = 0;
    let nodes = u64_at(&p.tail, 0);
    let mut records = ungroup(&p.sections[RECORDS], nodes);
    let keys = &p.sections[KEYS];
    let offsets_len = u32_at(keys, 4) as usize;
    let key_offsets = ungroup(&keys[8..8 + offsets_len], u32_at(keys, 0) as usize);
    for r in 0..nodes {
        let start = records[r] as usize;
        let body = &p.sections[BODIES][start..];
        let mut at = 4;
        let kind = leb(body, &mut at);
        let flags = body[at];
        at += 1;
        let has_value = flags & (1 << 2) != 0;
        if kind != u32::from(k) || !has_value {
            continue;
        }
        // Kind, flags, durability, key, fingerprint and edges stay; the value changes.
        let key = leb(body, &mut at) as usize;
        let mut fp = Vec::new();
        if flags & 1 != 0 {
            let i = leb(body, &mut at) as usize;
            fp = p.sections[FPS][16 * i..16 * i + 16].to_vec();
        }
        for _ in 0..leb(body, &mut at) {
            leb(body, &mut at);
        }
        let mut rec = body[4..at].to_vec();
        let len = leb(body, &mut at) as usize;
        let mut v = body[at..at + len].to_vec();
        let Some(at) = v.windows(pattern.len()).position(|w| w == pattern) else {
            continue;
        };
        v.splice(at..at + pattern.len(), with.iter().copied());
        put_leb(&mut rec, v.len() as u32);
        rec.extend_from_slice(&v);
        // The checksum covers the record, then its key's entry, then its fingerprint.
        let entries = &p.sections[KEYS][8 + offsets_len..];
        let start = key_offsets[key] as usize;
        let mut end = start + 16;
        end += leb(entries, &mut end) as usize;
        let seeded = xxhash_rust::xxh3::xxh3_64_with_seed;
        let sum = seeded(&fp, seeded(&entries[start..end], seeded(&rec, r as u64))) as u32;
        let new_start = p.sections[BODIES].len() as u32;
        p.sections[BODIES].extend_from_slice(&sum.to_le_bytes());
        p.sections[BODIES].extend_from_slice(&rec);
        records[r] = new_start;
        forged += 1;
    }
    p.sections[RECORDS] = group(&records);
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
