//! The stats JSON of `rill --stats-json` (DESIGN.md "Command-line contract"), written
//! directly: the same bytes `serde_json::to_vec_pretty` writes for the same
//! `serde_json::Value` (every object's keys sorted, two spaces of indent, numbers as
//! serde_json prints them), without building the value tree first. Building it (a `String`
//! per key, a B-tree per object, about 400 values) and printing it was a sixteenth of a
//! leaf edit's rebuild at 10k lines.

use query::{EngineStats, QueryStats, StatsSnapshot, Totals};
use query_driver::LinkStats;

/// One value of the stats JSON.
enum Json<'a> {
    Uint(u64),
    Float(f64),
    Bool(bool),
    Str(&'a str),
    /// Keys in any order; a key given twice keeps its last value (as a JSON map built
    /// from pairs does).
    Object(Vec<(&'a str, Json<'a>)>),
}

/// The stats JSON's bytes. `phases` in the order they ran (a phase named twice keeps its
/// last time); `image_hash` when something was linked.
pub fn render(
    arch: &str,
    total_ms: f64,
    phases: &[(&'static str, f64)],
    stats: Option<&StatsSnapshot>,
    link: Option<&LinkStats>,
    image_hash: Option<&str>,
) -> Vec<u8> {
    let phases = phases.iter().map(|&(n, ms)| (n, Json::Float(ms))).collect();
    let mut top = vec![
        ("arch", Json::Str(arch)),
        ("total_ms", Json::Float(total_ms)),
        ("phases_ms", Json::Object(phases)),
    ];
    match stats {
        Some(s) => {
            top.push(("totals", totals(&s.totals)));
            let queries = s.queries.iter().map(|(k, q)| (k.as_str(), query(q)));
            top.push(("queries", Json::Object(queries.collect())));
            top.push(("engine", engine(&s.engine)));
        }
        None => {
            let zero = Totals::default();
            top.push(("totals", totals(&zero)));
            top.push(("queries", Json::Object(Vec::new())));
        }
    }
    if let Some(link) = link {
        top.push(("link", link_stats(link)));
    }
    if let Some(h) = image_hash {
        top.push(("image_hash", Json::Str(h)));
    }
    let mut out = Vec::with_capacity(16 * 1024);
    write(&mut out, &Json::Object(top), 0);
    out
}

fn totals(t: &Totals) -> Json<'static> {
    let Totals {
        executed,
        green,
        loaded,
    } = *t;
    Json::Object(vec![
        ("executed", Json::Uint(executed)),
        ("green", Json::Uint(green)),
        ("loaded", Json::Uint(loaded)),
    ])
}

fn query(q: &QueryStats) -> Json<'static> {
    // Every field named: a new one must be added here too.
    let QueryStats {
        executed,
        green,
        loaded,
        promoted,
        verified,
        released,
        recomputed,
        hashed_bytes,
        provider_ms,
        hash_ms,
        encode_ms,
        load_ms,
        flags: _,
    } = *q;
    Json::Object(vec![
        ("encode_ms", Json::Float(encode_ms)),
        ("executed", Json::Uint(executed)),
        ("green", Json::Uint(green)),
        ("hash_ms", Json::Float(hash_ms)),
        ("hashed_bytes", Json::Uint(hashed_bytes)),
        ("load_ms", Json::Float(load_ms)),
        ("loaded", Json::Uint(loaded)),
        ("promoted", Json::Uint(promoted)),
        ("provider_ms", Json::Float(provider_ms)),
        ("recomputed", Json::Uint(recomputed)),
        ("released", Json::Uint(released)),
        ("verified", Json::Uint(verified)),
    ])
}

fn engine(e: &EngineStats) -> Json<'static> {
    let EngineStats {
        bookkeeping_ms,
        cache_load_ms,
        cache_save_ms,
        cache_bytes_read,
        cache_bytes_written,
        hashed_bytes,
        hash_ms,
        encode_ms,
        provider_ms,
        nodes,
        session_seeds,
        session_pushed,
    } = *e;
    Json::Object(vec![
        ("bookkeeping_ms", Json::Float(bookkeeping_ms)),
        ("cache_bytes_read", Json::Uint(cache_bytes_read)),
        ("cache_bytes_written", Json::Uint(cache_bytes_written)),
        ("cache_load_ms", Json::Float(cache_load_ms)),
        ("cache_save_ms", Json::Float(cache_save_ms)),
        ("encode_ms", Json::Float(encode_ms)),
        ("hash_ms", Json::Float(hash_ms)),
        ("hashed_bytes", Json::Uint(hashed_bytes)),
        ("nodes", Json::Uint(nodes)),
        ("provider_ms", Json::Float(provider_ms)),
        ("session_pushed", Json::Uint(session_pushed)),
        ("session_seeds", Json::Uint(session_seeds)),
    ])
}

fn link_stats(l: &LinkStats) -> Json<'static> {
    let LinkStats {
        incremental,
        functions,
        relinked,
        rewritten,
        moved,
        added,
        removed,
        call_sites,
        whole_program,
    } = *l;
    let n = |x: usize| Json::Uint(x as u64);
    Json::Object(vec![
        ("added", n(added)),
        ("call_sites", n(call_sites)),
        ("functions", n(functions)),
        ("incremental", Json::Bool(incremental)),
        ("moved", n(moved)),
        ("relinked", n(relinked)),
        ("removed", n(removed)),
        ("rewritten", n(rewritten)),
        ("whole_program", Json::Bool(whole_program)),
    ])
}

fn indent(out: &mut Vec<u8>, n: usize) {
    out.resize(out.len() + n, b' ');
}

/// The bytes a JSON string cannot hold as they are: controls, `"` and `\`, and (so that
/// only names of printable ASCII go unescaped) DEL and every byte of a multi-byte
/// character.
const NEEDS_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b < 0x20 || b >= 0x7f || b == b'"' as usize || b == b'\\' as usize;
        b += 1;
    }
    t
};

/// `s` as a JSON string: quoted as it is when nothing in it needs an escape (the names
/// of the stats JSON), otherwise escaped by serde_json.
fn string(out: &mut Vec<u8>, s: &str) {
    // A table lookup per byte: some 400 names are written per build.
    if !s.bytes().any(|b| NEEDS_ESCAPE[b as usize]) {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// `v` as serde_json's pretty printer writes it, its nested lines indented by `depth`
/// levels.
fn write(out: &mut Vec<u8>, v: &Json<'_>, depth: usize) {
    // Writing to a `Vec` cannot fail; serde_json prints a non-finite float as `null`.
    match v {
        // The number formatters serde_json writes with (`itoa`, and `zmij` for a finite
        // float), called directly rather than through a serializer per number.
        Json::Uint(x) => out.extend_from_slice(itoa::Buffer::new().format(*x).as_bytes()),
        Json::Float(x) if x.is_finite() => {
            out.extend_from_slice(zmij::Buffer::new().format_finite(*x).as_bytes())
        }
        Json::Float(_) => out.extend_from_slice(b"null"),
        Json::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Json::Str(s) => string(out, s),
        Json::Object(fields) => {
            if fields.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            // Sorted by key; of equal keys the last given, which a stable sort leaves last.
            // Most objects are given in that order already (their keys written sorted, or
            // the engine's map of query kinds), and are written as they are.
            let sorted = fields.windows(2).all(|w| w[0].0 < w[1].0);
            let mut order: Vec<usize> = Vec::new();
            if !sorted {
                order.extend(0..fields.len());
                order.sort_by(|&a, &b| fields[a].0.cmp(fields[b].0));
                order.dedup_by(|later, earlier| {
                    let same = fields[*later].0 == fields[*earlier].0;
                    if same {
                        *earlier = *later;
                    }
                    same
                });
            }
            let len = if sorted { fields.len() } else { order.len() };
            out.extend_from_slice(b"{\n");
            for n in 0..len {
                let i = if sorted { n } else { order[n] };
                if n > 0 {
                    out.extend_from_slice(b",\n");
                }
                indent(out, 2 * (depth + 1));
                string(out, fields[i].0);
                out.extend_from_slice(b": ");
                write(out, &fields[i].1, depth + 1);
            }
            out.push(b'\n');
            indent(out, 2 * depth);
            out.push(b'}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `rill` wrote before: the stats as a `serde_json::Value`, pretty-printed.
    fn reference(
        arch: &str,
        total_ms: f64,
        phases: &[(&'static str, f64)],
        stats: Option<&StatsSnapshot>,
        link: Option<&LinkStats>,
        image_hash: Option<&str>,
    ) -> Vec<u8> {
        let phases: serde_json::Map<String, serde_json::Value> = phases
            .iter()
            .map(|(name, ms)| (name.to_string(), serde_json::json!(ms)))
            .collect();
        let mut v = serde_json::json!({
            "arch": arch,
            "total_ms": total_ms,
            "phases_ms": phases,
            "totals": { "executed": 0, "green": 0, "loaded": 0 },
            "queries": {},
        });
        if let Some(s) = stats {
            v["totals"] = serde_json::json!(s.totals);
            v["queries"] = serde_json::json!(s.queries);
            v["engine"] = serde_json::json!(s.engine);
        }
        if let Some(link) = link {
            v["link"] = serde_json::json!(link);
        }
        if let Some(h) = image_hash {
            v["image_hash"] = serde_json::json!(h);
        }
        serde_json::to_vec_pretty(&v).unwrap()
    }

    fn snapshot() -> StatsSnapshot {
        let mut s = StatsSnapshot::default();
        for (i, name) in ["typeck", "codegen", "a\"quoted\\name", "file_text"]
            .into_iter()
            .enumerate()
        {
            let i = i as u64;
            let q = QueryStats {
                executed: i + 1,
                green: 1000 * i,
                loaded: u64::MAX - i,
                promoted: 3,
                verified: 4,
                released: 5,
                recomputed: 6,
                hashed_bytes: 123_456_789,
                provider_ms: 0.1 + i as f64,
                hash_ms: 1e-9,
                encode_ms: 2.5e-3 * i as f64,
                load_ms: 4.4324509999999995e17,
                ..QueryStats::default()
            };
            s.queries.insert(name.to_string(), q);
        }
        s.totals = Totals {
            executed: 7,
            green: 8,
            loaded: 9,
        };
        s.engine = EngineStats {
            bookkeeping_ms: 0.0,
            cache_load_ms: 0.061251,
            cache_save_ms: f64::NAN,
            cache_bytes_read: 969_643,
            cache_bytes_written: 0,
            hashed_bytes: 865,
            hash_ms: 1.5e300,
            encode_ms: 12.75,
            provider_ms: -0.25,
            nodes: 9131,
            session_seeds: 2,
            session_pushed: 1,
        };
        s
    }

    #[test]
    fn the_same_bytes_as_a_pretty_printed_value() {
        let stats = snapshot();
        let link = LinkStats {
            incremental: true,
            functions: 528,
            relinked: 1,
            rewritten: 1,
            moved: 2,
            added: 3,
            removed: 4,
            call_sites: 5,
            whole_program: false,
        };
        let phases: &[(&'static str, f64)] = &[
            ("load_cache", 0.193537),
            ("check", 0.116433),
            ("codegen", f64::INFINITY),
            ("check", 2.5),
            ("link", 4.4324509999999995),
        ];
        let hash = format!("{:032x}", 0x0c2a_0a1f_9efa_fc8a_u128);
        for stats in [None, Some(&stats)] {
            for link in [None, Some(&link)] {
                for image in [None, Some(hash.as_str())] {
                    for phases in [phases, &[]] {
                        let got = render("query", 12.75, phases, stats, link, image);
                        let want = reference("query", 12.75, phases, stats, link, image);
                        assert_eq!(
                            String::from_utf8(got).unwrap(),
                            String::from_utf8(want).unwrap()
                        );
                    }
                }
            }
        }
        let empty = render("pipeline", 1.0, &[], None, None, None);
        assert_eq!(empty, reference("pipeline", 1.0, &[], None, None, None));
    }
}
