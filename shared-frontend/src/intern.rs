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

/// Holds its index plus one: never zero, so that an `Option<Symbol>` (and an optional
/// label or name) takes no more room than a symbol.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Symbol(std::num::NonZeroU32);

struct Interner {
    map: FxHashMap<&'static str, Symbol>,
    strings: Vec<&'static str>,
}

/// The table's first size. Small: a rebuild interns a few dozen names, and an insert lands
/// on a page of the table chosen by the name's hash, so a table sized for a large crate
/// made a rebuild fault in some 40 of its pages (4096 entries: 490 page faults in all for a
/// leaf edit at 10k lines, 455 with 256), while growing it as a large crate's names come
/// costs a build from scratch 0.05 % more instructions (100k lines).
const INITIAL_SYMBOLS: usize = 256;

fn interner() -> &'static Mutex<Interner> {
    static INTERNER: OnceLock<Mutex<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| {
        Mutex::new(Interner {
            map: FxHashMap::with_capacity_and_hasher(INITIAL_SYMBOLS, Default::default()),
            strings: Vec::with_capacity(INITIAL_SYMBOLS),
        })
    })
}

impl Symbol {
    /// The symbol of the table's entry `index`.
    const fn at(index: usize) -> Symbol {
        match std::num::NonZeroU32::new(index as u32 + 1) {
            Some(n) => Symbol(n),
            None => panic!("more symbols than a u32 counts"),
        }
    }

    /// The symbol's entry in the table.
    #[inline]
    fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    pub fn intern(text: &str) -> Symbol {
        let mut table = interner().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&sym) = table.map.get(text) {
            return sym;
        }
        // Leaked on purpose: the table is append-only and lives for the whole process, so
        // `as_str` can hand out `&'static str` without holding the lock.
        let stored: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let sym = Symbol::at(table.strings.len());
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
            if let Some(s) = cache.get(self.index()) {
                return *s;
            }
            let table = interner().lock().unwrap_or_else(|e| e.into_inner());
            let have = cache.len();
            cache.extend_from_slice(&table.strings[have..]);
            cache[self.index()]
        })
    }
}

/// A per-thread table from identifier text to [`Symbol`], in front of the global
/// interner (whose lock and string hashing it saves on every repeated name). A parse
/// takes the thread's cache and gives it back when done, so names shared by the files of
/// a crate are looked up globally once. It only remembers answers of the append-only
/// global table, so it never changes which symbol a text gets.
///
/// Open addressing with linear probing. A text of up to 16 bytes is identified by its
/// length and two integers, with no byte comparison: up to 8 bytes packed into one, or
/// its first and its last 8 bytes (which overlap below 16 bytes, and together with the
/// length determine the text). A longer text is identified by a hash of its 8-byte words
/// and then its bytes.
pub(crate) struct SymbolCache {
    slots: Vec<SymbolSlot>,
    /// Occupied slots (kept at most half of `slots.len()`, a power of two).
    len: usize,
}

#[derive(Clone, Copy)]
struct SymbolSlot {
    /// The packed bytes (texts of up to 8 bytes), the first 8 bytes (9 to 16 bytes) or
    /// the hash (longer texts, whose bytes are then compared with the symbol's text).
    key: u64,
    /// The last 8 bytes of a text of 9 to 16 bytes; 0 otherwise.
    tail: u64,
    /// The text's length; 0 for an empty slot.
    len: u32,
    /// The text's symbol (meaningless in an empty slot).
    sym: Symbol,
}

const EMPTY_SLOT: SymbolSlot = SymbolSlot {
    key: 0,
    tail: 0,
    len: 0,
    sym: Symbol::at(0),
};

/// The longest text a slot identifies by its integers alone (see [`SymbolCache`]).
const WORDS_MAX_LEN: usize = 16;

/// Up to 8 bytes packed little-endian (zero-padded), without a per-byte loop.
#[inline(always)]
fn pack_short(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 8);
    if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
        lo | (hi << (8 * (n - 4)))
    } else if n > 0 {
        (b[0] as u64) | ((b[n / 2] as u64) << (8 * (n / 2))) | ((b[n - 1] as u64) << (8 * (n - 1)))
    } else {
        0
    }
}

#[inline(always)]
fn word_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes([
        b[i],
        b[i + 1],
        b[i + 2],
        b[i + 3],
        b[i + 4],
        b[i + 5],
        b[i + 6],
        b[i + 7],
    ])
}

/// The text of bytes cut from the source at token boundaries.
fn utf8(b: &[u8]) -> &str {
    std::str::from_utf8(b).expect("token boundaries are char boundaries")
}

const SYMBOL_HASH_MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// The probe hash of a text of up to 8 bytes, packed into `key`.
#[inline(always)]
fn short_hash(key: u64, n: usize) -> u64 {
    (key ^ n as u64).wrapping_mul(SYMBOL_HASH_MUL)
}

/// The probe hash of a text of 9 to 16 bytes from its first and last 8 bytes (the hash
/// of longer texts over their words, here of two words).
#[inline(always)]
fn words_hash(first: u64, last: u64, n: usize) -> u64 {
    let h = ((n as u64).rotate_left(23) ^ first).wrapping_mul(SYMBOL_HASH_MUL);
    (h.rotate_left(23) ^ last).wrapping_mul(SYMBOL_HASH_MUL)
}

thread_local! {
    static THREAD_SYMBOL_CACHE: std::cell::Cell<Option<SymbolCache>> = const { std::cell::Cell::new(None) };
}

impl SymbolCache {
    fn new() -> SymbolCache {
        SymbolCache {
            slots: vec![EMPTY_SLOT; 1024],
            len: 0,
        }
    }

    /// This thread's cache (a new one if it is in use or was never made).
    pub(crate) fn take_for_thread() -> SymbolCache {
        THREAD_SYMBOL_CACHE
            .with(|c| c.take())
            .unwrap_or_else(SymbolCache::new)
    }

    /// Makes this the thread's cache again, for the next [`SymbolCache::take_for_thread`].
    pub(crate) fn give_back(self) {
        THREAD_SYMBOL_CACHE.with(|c| c.set(Some(self)));
    }

    /// The symbol of an identifier's bytes (a slice of the source at token boundaries,
    /// so valid UTF-8).
    #[inline(always)]
    pub(crate) fn intern(&mut self, b: &[u8]) -> Symbol {
        let n = b.len();
        if n == 0 || n > u32::MAX as usize {
            return Symbol::intern(utf8(b));
        }
        let (key, tail, hash) = if n <= 8 {
            let key = pack_short(b);
            (key, 0, short_hash(key, n))
        } else if n <= WORDS_MAX_LEN {
            let (first, last) = (word_at(b, 0), word_at(b, n - 8));
            (first, last, words_hash(first, last, n))
        } else {
            let mut h = n as u64;
            let mut i = 0;
            while i + 8 < n {
                h = (h.rotate_left(23) ^ word_at(b, i)).wrapping_mul(SYMBOL_HASH_MUL);
                i += 8;
            }
            h = (h.rotate_left(23) ^ word_at(b, n - 8)).wrapping_mul(SYMBOL_HASH_MUL);
            (h, 0, h)
        };
        let mask = self.slots.len() - 1;
        let mut i = (hash >> 32) as usize & mask;
        loop {
            let slot = &self.slots[i];
            if slot.len == 0 {
                break;
            }
            if slot.key == key
                && slot.tail == tail
                && slot.len as usize == n
                && (n <= WORDS_MAX_LEN || slot.sym.as_str().as_bytes() == b)
            {
                return slot.sym;
            }
            i = (i + 1) & mask;
        }
        self.insert(i, key, tail, b)
    }

    /// A text not seen yet in this parse: interned globally, stored in empty slot `i`.
    #[cold]
    #[inline(never)]
    fn insert(&mut self, i: usize, key: u64, tail: u64, s: &[u8]) -> Symbol {
        let n = s.len();
        let sym = Symbol::intern(utf8(s));
        self.slots[i] = SymbolSlot {
            key,
            tail,
            len: n as u32,
            sym,
        };
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
        sym
    }

    #[cold]
    fn grow(&mut self) {
        let doubled = vec![EMPTY_SLOT; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        self.len = 0;
        for slot in old {
            if slot.len != 0 {
                self.slots_insert_fresh(slot);
            }
        }
    }

    /// Re-inserts a slot whose text is known to be absent (when growing).
    fn slots_insert_fresh(&mut self, slot: SymbolSlot) {
        let n = slot.len as usize;
        let hash = if n <= 8 {
            short_hash(slot.key, n)
        } else if n <= WORDS_MAX_LEN {
            words_hash(slot.key, slot.tail, n)
        } else {
            slot.key
        };
        let mask = self.slots.len() - 1;
        let mut i = (hash >> 32) as usize & mask;
        while self.slots[i].len != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
        self.len += 1;
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
    use super::{Symbol, SymbolCache};

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

    /// Texts of every length class (packed, first and last words, hashed) that share
    /// prefixes, suffixes and overlapping middles get the global interner's symbols, also
    /// across the cache's growth and on repeated lookups.
    #[test]
    fn thread_cache_agrees_with_the_global_table() {
        let mut texts = Vec::new();
        for len in 1..=40 {
            for variant in 0..40u8 {
                let mut t: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                // Change one byte: first, last, or one in the middle (which only the
                // overlap of the first and last words covers below 16 bytes).
                let at = (variant as usize * 7) % len;
                t[at] = b'A' + variant % 26;
                if variant >= 26 {
                    t[len - 1 - at] = b'_';
                }
                texts.push(String::from_utf8(t).unwrap());
            }
        }
        let mut cache = SymbolCache::new();
        for round in 0..2 {
            for t in &texts {
                let sym = cache.intern(t.as_bytes());
                assert_eq!(sym, Symbol::intern(t), "{t:?} in round {round}");
                assert_eq!(sym.as_str(), t);
            }
        }
        assert!(cache.slots.len() > 1024, "the cache grew");
    }
}
