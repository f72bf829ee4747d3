//! `define_queries!`: the query table, declared in one place (rustc's `rustc_queries!`).
//!
//! ```text
//! query::define_queries! {
//!     /// The compiler's database.
//!     pub struct Db;
//!     /// One marker type per query (`queries::type_of` implements `query::Query`).
//!     pub mod queries;
//!
//!     /// The text of a source file, set by the driver.
//!     input [] fn source_text(FileKey) -> Arc<str>, "reading a source file", set_source_text;
//!     /// The syntax tree of a file.
//!     query [cache_on_disk] fn parse_file(FileKey) -> Arc<Ast>, "parsing a file", parse_file;
//!     /// The value of a constant (a cycle `const A = B; const B = A;` becomes an error).
//!     query [cycle_fallback(const_cycle)] fn const_value(DefId) -> ConstResult,
//!         "evaluating a constant", eval_const;
//! }
//! ```
//!
//! The database may carry fields of its own (`pub struct Db { pub host: Host };`): state
//! of the embedder that providers may read only where the table says so (an `eval_always`
//! query reading the file system through a loader). They start as `Default::default()`.
//!
//! Each line: doc comments, `input` or `query`, the modifiers in brackets, the name, the
//! key and value types, the description used in cycle errors (a constant `&str`
//! expression), and then the setter's name
//! (inputs: `db.set_source_text(key, value, durability)`) or the provider, a function in
//! scope `fn(&Db, Key) -> Value`. It generates the database struct with
//! `Db::new(options)`, one method per query (`db.parse_file(key)`), and the module of
//! marker types (the module sees the caller's items through `use super::*`).
//!
//! Modifiers:
//! - `eval_always` — the provider reads something untracked (the file system): it
//!   re-executes whenever validated in a new revision or session; dependents are spared by
//!   early cutoff;
//! - `no_hash` — the value is never hashed nor compared: a re-execution counts as a change
//!   (dependents re-execute), and it cannot be verified;
//! - `cache_on_disk` — the value is persisted (bincode through serde; `Value:
//!   Serialize + DeserializeOwned`) and decoded lazily, not only its fingerprint;
//! - `backdate_eq` — early cutoff compares values with `==` instead of fingerprints;
//! - `own_hash` — a `cache_on_disk` value is fingerprinted by its `StableHash`, not by the
//!   hash of its encoding (the default for `cache_on_disk`: the value is encoded once, and
//!   the bytes are fingerprinted and saved). For a value whose encoding is not canonical
//!   (a map in insertion order) or whose fingerprint hashes another view of it;
//! - `cycle_fallback(f)` — the value on a cycle, `f: fn(&Db, &Cycle, &Key) -> Value`
//!   (see [`crate::cycle`]).
//! - `describe_key(f)` — how a cycle's description shows the key,
//!   `f: fn(&Db, &Key) -> String` (an item's path rather than its hash); `Debug` without it.
//! - `release_after(q1, q2, ...)` — the value is released once each of the queries
//!   `q1, q2, ...` (of the same key type) is up to date for the same key in the current
//!   revision: the queries expected to be the last to read it. The memo stays; a later read
//!   re-executes the provider, which must give an equal value (providers are pure), and
//!   does not count as a change (see `release`). For a big intermediate value that one
//!   step of the same item consumes (a typed body, read by its lowering).
//!
//! Values must be `Clone + PartialEq` and, unless `no_hash`, [`crate::StableHash`]. Keys
//! must be `Clone + Eq + Hash + Debug + StableHash + Serialize + DeserializeOwned`: they
//! are persisted so that a node loaded from disk can be re-executed by index.

/// Declares a database and its query table. See the [module documentation](self).
#[macro_export]
macro_rules! define_queries {
    (
        $(#[$dattr:meta])*
        $vis:vis struct $Db:ident $({ $($(#[$fattr:meta])* $fvis:vis $field:ident : $fty:ty),* $(,)? })?;
        $(#[$mattr:meta])*
        $mvis:vis mod $queries:ident;
        $(
            $(#[$attr:meta])*
            $how:ident [$($m:ident $(($($marg:tt)*))?),* $(,)?]
            fn $name:ident($K:ty) -> $V:ty, $desc:expr, $target:ident;
        )*
    ) => {
        $(#[$dattr])*
        $vis struct $Db {
            runtime: $crate::Runtime,
            storage: $queries::Storage,
            $($($(#[$fattr])* $fvis $field: $fty,)*)?
        }

        $(#[$mattr])*
        #[allow(non_camel_case_types)]
        $mvis mod $queries {
            #[allow(unused_imports)]
            use super::*;

            /// The storage of every query of the table.
            #[derive(Default)]
            pub struct Storage {
                $(pub $name: $crate::QueryStorage<$name>,)*
            }

            #[repr(u16)]
            #[allow(dead_code, clippy::enum_variant_names)]
            enum Kind { $($name,)* }

            $(
                $(#[$attr])*
                pub struct $name {}

                impl $crate::Query for $name {
                    type Db = super::$Db;
                    type Key = $K;
                    type Value = $V;
                    const NAME: &'static str = stringify!($name);
                    const DESCRIPTION: &'static str = $desc;
                    const KIND: u16 = Kind::$name as u16;
                    const FLAGS: $crate::Flags = $crate::__query_flags!(@$how $($m)*);
                    const HASH: Option<fn(&$V, &mut $crate::StableHasher)> = $crate::__query_hash!((super::$Db) ($V) $($m)*);
                    const OWN_FINGERPRINT: fn(&$V) -> Option<$crate::Fingerprint> = $crate::__query_own_fingerprint!((super::$Db) ($V) $($m)*);
                    const CODEC: Option<$crate::Codec<$V>> = $crate::__query_codec!(($V) $($m)*);
                    const FALLBACK: Option<fn(&super::$Db, &$crate::Cycle, &$K) -> $V> =
                        $crate::__query_fallback!((super::$Db) ($K) ($V) $([$m $(($($marg)*))?])*);
                    const PROVIDER: Option<fn(&super::$Db, $K) -> $V> =
                        $crate::__query_provider!($how $target (super::$Db) ($K) ($V));
                    const DESCRIBE_KEY: Option<fn(&super::$Db, &$K) -> String> =
                        $crate::__query_describe_key!((super::$Db) ($K) $([$m $(($($marg)*))?])*);
                    const CONSUMERS: &'static [$crate::ConsumedFn<super::$Db, $K>] =
                        $crate::__query_consumers!((super::$Db) ($K) $([$m $(($($marg)*))?])*);
                    const CONSUMER_KINDS: &'static [u16] =
                        $crate::__query_consumer_kinds!($([$m $(($($marg)*))?])*);
                    #[inline]
                    fn storage(db: &super::$Db) -> &$crate::QueryStorage<Self> {
                        &db.storage.$name
                    }
                }
            )*
        }

        impl $crate::Database for $Db {
            const KINDS: &'static [$crate::KindVTable<Self>] = &[$($crate::KindVTable::of::<$queries::$name>(),)*];
            #[inline]
            fn runtime(&self) -> &$crate::Runtime {
                &self.runtime
            }
            fn runtime_mut(&mut self) -> &mut $crate::Runtime {
                &mut self.runtime
            }
        }

        #[allow(dead_code)]
        impl $Db {
            /// Creates the database; with a cache directory in the options, loads the
            /// previous session's graph (a damaged cache is a warning, never an error).
            pub fn new(options: $crate::Options) -> Self {
                $Db {
                    runtime: $crate::Runtime::new::<$Db>(options),
                    storage: ::std::default::Default::default(),
                    $($($field: ::std::default::Default::default(),)*)?
                }
            }

            $( $crate::__query_method!{ [$(#[$attr])*] $how $name $target ($K) ($V) $queries } )*
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_flags {
    (@input $($m:ident)*) => { $crate::Flags::INPUT $(.with($crate::__query_flag!($m)))* };
    (@query $($m:ident)*) => { $crate::Flags::NONE $(.with($crate::__query_flag!($m)))* };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_flag {
    (eval_always) => {
        $crate::Flags::EVAL_ALWAYS
    };
    (no_hash) => {
        $crate::Flags::NO_HASH
    };
    (cache_on_disk) => {
        $crate::Flags::CACHE_ON_DISK
    };
    (backdate_eq) => {
        $crate::Flags::BACKDATE_EQ
    };
    (own_hash) => {
        $crate::Flags::OWN_HASH
    };
    (cycle_fallback) => {
        $crate::Flags::NONE
    };
    (describe_key) => {
        $crate::Flags::NONE
    };
    (release_after) => {
        $crate::Flags::RELEASE
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_hash {
    (($Db:ty) ($V:ty)) => { Some($crate::__hash_value::<$Db, $V> as fn(&$V, &mut $crate::StableHasher)) };
    (($Db:ty) ($V:ty) no_hash $($rest:ident)*) => { None };
    (($Db:ty) ($V:ty) $other:ident $($rest:ident)*) => { $crate::__query_hash!(($Db) ($V) $($rest)*) };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_own_fingerprint {
    (($Db:ty) ($V:ty)) => { $crate::__value_fingerprint::<$Db, $V> as fn(&$V) -> Option<$crate::Fingerprint> };
    (($Db:ty) ($V:ty) no_hash $($rest:ident)*) => { |_| None };
    (($Db:ty) ($V:ty) $other:ident $($rest:ident)*) => { $crate::__query_own_fingerprint!(($Db) ($V) $($rest)*) };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_codec {
    (($V:ty)) => { None };
    (($V:ty) cache_on_disk $($rest:ident)*) => {
        Some($crate::Codec { encode: $crate::codec_encode_into::<$V>, decode: $crate::codec_decode::<$V> })
    };
    (($V:ty) $other:ident $($rest:ident)*) => { $crate::__query_codec!(($V) $($rest)*) };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_fallback {
    (($Db:ty) ($K:ty) ($V:ty)) => { None };
    (($Db:ty) ($K:ty) ($V:ty) [cycle_fallback($f:path)] $($rest:tt)*) => {
        Some($f as fn(&$Db, &$crate::Cycle, &$K) -> $V)
    };
    (($Db:ty) ($K:ty) ($V:ty) [$other:ident $($x:tt)*] $($rest:tt)*) => {
        $crate::__query_fallback!(($Db) ($K) ($V) $($rest)*)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_describe_key {
    (($Db:ty) ($K:ty)) => { None };
    (($Db:ty) ($K:ty) [describe_key($f:path)] $($rest:tt)*) => {
        Some($f as fn(&$Db, &$K) -> String)
    };
    (($Db:ty) ($K:ty) [$other:ident $($x:tt)*] $($rest:tt)*) => {
        $crate::__query_describe_key!(($Db) ($K) $($rest)*)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_consumers {
    (($Db:ty) ($K:ty)) => { &[] };
    (($Db:ty) ($K:ty) [release_after($($c:ident),+ $(,)?)] $($rest:tt)*) => {
        &[$($crate::__consumer_done::<$c> as $crate::ConsumedFn<$Db, $K>),+]
    };
    (($Db:ty) ($K:ty) [$other:ident $($x:tt)*] $($rest:tt)*) => {
        $crate::__query_consumers!(($Db) ($K) $($rest)*)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_consumer_kinds {
    () => { &[] };
    ([release_after($($c:ident),+ $(,)?)] $($rest:tt)*) => {
        &[$(<$c as $crate::Query>::KIND),+]
    };
    ([$other:ident $($x:tt)*] $($rest:tt)*) => {
        $crate::__query_consumer_kinds!($($rest)*)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_provider {
    (input $t:ident ($Db:ty) ($K:ty) ($V:ty)) => {
        None
    };
    (query $t:ident ($Db:ty) ($K:ty) ($V:ty)) => {
        Some($t as fn(&$Db, $K) -> $V)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __query_method {
    ([$($attr:tt)*] query $name:ident $target:ident ($K:ty) ($V:ty) $queries:ident) => {
        $($attr)*
        #[inline]
        pub fn $name(&self, key: $K) -> $V {
            $crate::fetch::<$queries::$name>(self, key)
        }
    };
    ([$($attr:tt)*] input $name:ident $target:ident ($K:ty) ($V:ty) $queries:ident) => {
        $($attr)*
        #[inline]
        pub fn $name(&self, key: $K) -> $V {
            $crate::fetch::<$queries::$name>(self, key)
        }

        #[doc = concat!("Sets the input `", stringify!($name), "`; a different value starts a new revision.")]
        pub fn $target(&mut self, key: $K, value: $V, durability: $crate::Durability) {
            $crate::set_input::<$queries::$name>(self, key, value, durability)
        }
    };
}

/// Hashes a value (the `HASH` of a query table line).
#[doc(hidden)]
pub fn __hash_value<Db, V: crate::StableHash<Db>>(v: &V, h: &mut crate::StableHasher) {
    crate::StableHash::<Db>::stable_hash(v, h)
}

/// A value's own fingerprint (the `OWN_FINGERPRINT` of a query table line).
#[doc(hidden)]
#[inline]
pub fn __value_fingerprint<Db, V: crate::StableHash<Db>>(v: &V) -> Option<crate::Fingerprint> {
    crate::StableHash::<Db>::value_fingerprint(v)
}
