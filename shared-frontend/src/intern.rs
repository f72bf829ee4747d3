//! Interned identifiers.
//!
//! A [`Symbol`] is a dense index into an append-only, process-wide table of strings. The
//! table never forgets or reorders an entry, so a symbol's identity *is* its text: two
//! symbols are equal exactly when their texts are. Nothing observable depends on the order
//! in which symbols were interned: `Symbol` deliberately implements no `Ord`, and stable
//! hashing (fingerprints, def-path hashes) always hashes the text, never the index.

use std::fmt;
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Symbol(u32);

struct Interner {
    map: FxHashMap<&'static str, Symbol>,
    strings: Vec<&'static str>,
}

fn interner() -> &'static Mutex<Interner> {
    static INTERNER: OnceLock<Mutex<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| {
        Mutex::new(Interner {
            map: FxHashMap::default(),
            strings: Vec::new(),
        })
    })
}

impl Symbol {
    pub fn intern(text: &str) -> Symbol {
        let mut table = interner().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&sym) = table.map.get(text) {
            return sym;
        }
        // Leaked on purpose: the table is append-only and lives for the whole process, so
        // `as_str` can hand out `&'static str` without holding the lock.
        let stored: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let sym = Symbol(table.strings.len() as u32);
        table.strings.push(stored);
        table.map.insert(stored, sym);
        sym
    }

    pub fn as_str(self) -> &'static str {
        // Each thread keeps a copy of the (append-only) table of leaked strings, refreshed
        // on a miss: reading a symbol takes no lock in the common case.
        thread_local! {
            static STRINGS: std::cell::RefCell<Vec<&'static str>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        STRINGS.with(|cache| {
            let mut cache = cache.borrow_mut();
            if let Some(s) = cache.get(self.0 as usize) {
                return *s;
            }
            let table = interner().lock().unwrap_or_else(|e| e.into_inner());
            let have = cache.len();
            cache.extend_from_slice(&table.strings[have..]);
            cache[self.0 as usize]
        })
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Serialized as its text (never the process-local index), so that cached values and
/// fingerprints are the same in every process.
impl serde::Serialize for Symbol {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Symbol {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Symbol, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Symbol;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a symbol's text")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Symbol, E> {
                Ok(Symbol::intern(v))
            }
        }
        d.deserialize_str(V)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Symbol;

    #[test]
    fn interning_is_idempotent_and_round_trips() {
        let a = Symbol::intern("geometry");
        let b = Symbol::intern("geometry");
        let c = Symbol::intern("area");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.as_str(), "geometry");
        assert_eq!(c.to_string(), "area");
    }
}
