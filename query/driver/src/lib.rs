//! The query-based driver: the frontend and backend functions the staged pipeline calls,
//! called as query providers at item granularity.
//!
//! ```text
//! dir_stamp(dir), file_stamp(file) [eval_always]: a path's stamp, a missing path's implied
//! by its directory's (`stamp`)
//!   ▼
//! path_stamp(file) ◄─ *_stamp    ─► file_text(file) ─► parse_file(file) ─► file_skeleton(file)
//!   file_status(file) ◄─ file_text                                        │          │
//!        └──────────► module_tree ◄─ file_modules(file) ◄─────────────────┘          │
//!                        │  (the `mod` items only)                                     │
//!                        └──────────► module_items(file module) ◄──────────────────────┘
//!                 ┌──────────────┬──────────┴──────┬────────────────┐
//!        module_defs(m)   module_uses(m)     item_binding(m, name)   def_info · def_source(def)
//!          │ (every file     │                  │                        ▲
//!          ▼  module's)      ▼                  ▼                        │
//!   crate_defs · def_homes ─► def_shard(s) ─► def_home(def) ─────────────┘
//!                          imports ─► module_imports(m) ─► resolve_name(m, name) ◄─ bodies
//!        def_info · def_source ─► item_ast(def) (syntax by ordinal)
//!        ▼
//!   fn_sig · struct_fields · alias_ty · const_ty · const_value · check_struct   (through SemaEnv)
//!        ▼
//!   typeck(fn) ─► optimize(fn) (lower + optimize) ─► codegen(fn) ─► link (`linker`: patched,
//!                                                                   or from scratch)
//!   *_diagnostics ─► file_diagnostics(file) ─► crate_diagnostics (canonical order)
//! ```
//!
//! DESIGN.md Invariant 5 (positions don't cascade) holds at every level. The item tree is
//! built per file module (`module_items`: a file's items and its inline modules', with
//! their def-paths) from that file's positionless skeleton (item offsets replaced by
//! ordinals), and the module tree from the files' `mod` items alone, never from file
//! texts: an edit that adds or removes no item leaves both green, and one that does
//! changes one file module's item tree. A def id is a hash, so its file module is found
//! through an index cut into shards by the id's bits (`def_shard`, projected per def by
//! `def_home`). Imports are resolved by one query (`imports`) that reads each module's
//! items one name at a time (`item_binding`), so an item that no import names does not
//! resolve them again. An item's syntax is found by its ordinal in its file, with spans
//! relative to the item, so moving an item changes no fingerprint below `item_ast`. Paths
//! read a module's scope one name at a time (`resolve_name`), so adding or removing an
//! item re-checks the bodies that use a name whose binding changed, not every body that
//! looks into its module. Positions come back only when diagnostics are reported
//! (`file_offsets`, and `positioned_def_map`, the whole crate's item tree and scopes,
//! built only when the positionless parts found an error).
//!
//! A file is not the unit of parsing either: `file_split` finds its items from its tokens
//! alone (`skeleton::split`), `split_chunk` compares their texts in chunks of
//! `skeleton::CHUNK_ITEMS` by ordinal, and `chunk_parse` parses a chunk's items one at a
//! time when one of its texts changed; the skeleton is assembled from the chunks'
//! (`chunk_skeleton`), and `item_ast` reads its chunk. So an edit inside an item parses
//! its chunk and re-executes its chunk's `item_ast`s, in a file of any size. Where the
//! split is unsure or an item does not parse cleanly on its own (`file_split_clean`),
//! `parse_file` decides, as before.
//!
//! The item steps other items read (`fn_sig` … `const_value`) are the steps of
//! `sema::recipe`, with its descriptions; a cycle through them becomes the recipe's
//! E0391 diagnostic, built from the engine's typed cycle frames. Diagnostics are part of
//! the values of the queries that find them and are collected in the recipe's canonical
//! order, which the pipeline also uses.

mod env;
mod linker;
mod providers;
mod skeleton;
pub mod stamp;
mod values;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use shared_frontend::diag::Diagnostic;
use shared_frontend::intern::Symbol;
use shared_frontend::ir::IrFunction;
use shared_frontend::sema::def::{DefId, DefKind};
use shared_frontend::sema::modules::{FileLoader, FsLoader};
use shared_frontend::sema::recipe::Step;
use shared_frontend::sema::resolve::NameBindings;
use shared_frontend::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use shared_frontend::span::{SourceFile, SourceMap};

pub use linker::{checked_record as link_state_checked_record, LinkStats};
use providers::*;
use query::{
    define_queries, CacheOptions, Database, DatabaseExt, Durability, Event, Options, StatsSnapshot,
    Verify,
};
use skeleton::{ChunkParse, ChunkSkeleton, FileSplit, SplitChunk};
pub use values::{
    shard_count, shard_of, ChangeDetection, DefInfo, DefMap, DefShard, DefSource, DiagPhase,
    FileDiagnostics, FileStamp, FileStatus, FileText, Granularity, Imports, ItemDef, ItemSyntax,
    ModuleInfo, ModuleItems, ModuleTree, ModuleUse, PDiag, Parsed, ScopeValue, SemaOut, Shared,
    Skeleton, SpanMode, TypeckOut, DEFS_PER_SHARD,
};

/// Whether rill never writes the file `name` of a cache directory (of its `check/` or
/// `image/` cache) in place: the engine's cache file ([`query::cache_file_replaced_whole`])
/// and the link state's base (`link-state.bin`). A new version of either is a new file
/// renamed over the old one, so a hard link to one is a snapshot of it that no later build
/// changes; every other file of the directory (the journals, the records of checked files,
/// the lock) may be written in place.
pub fn cache_file_replaced_whole(name: &std::ffi::OsStr) -> bool {
    query::cache_file_replaced_whole(name) || linker::file_replaced_whole(name)
}

/// What the providers may read besides queries: the file loader and how changes are
/// detected, read by the `eval_always` query `file_stamp` (and by `file_text`, whose
/// reads the stamp stands for).
#[derive(Default)]
pub struct Host {
    pub loader: Option<Arc<dyn FileLoader>>,
    pub change_detection: ChangeDetection,
    /// The loader is the file system's ([`FsLoader`]): the first build on a loaded cache
    /// may read the files' metadata ahead, on a second thread (`stamp::Ahead`).
    pub file_system: bool,
    /// The metadata read ahead for the current build.
    pub ahead: stamp::Ahead,
    /// The loader's paths are the file system's: a missing path's absence is implied by
    /// its directory's metadata, read with `std::fs` (`dir_stamp`, `path_stamp`), under
    /// [`ChangeDetection::Stat`].
    pub directories: bool,
    /// How many cycles the session's steps met (each cycle's fallback counts one).
    pub cycles: std::cell::Cell<u32>,
    /// The files whose content changed between their stamp's read and `file_text`'s in
    /// this session, each with how many times it did: part of their stamps from then on
    /// (`StampContent::Digest::raced`), so that the next build's stamp differs from the
    /// one that stands beside the text read after it, even if the content went back to
    /// what the stamp read.
    pub raced: std::cell::RefCell<std::collections::BTreeMap<PathBuf, u32>>,
    /// A file raced in the current build: the build is correct for the text it read, but
    /// its stamp does not stand for that text, so the cache is not saved.
    pub raced_now: std::cell::Cell<bool>,
}

define_queries! {
    /// The Rill compiler's database.
    pub struct RillDb { pub host: Host };
    /// One marker type per Rill query.
    pub mod rq;

    /// The path of the crate's root file.
    input [] fn crate_root(()) -> PathBuf, "naming the crate root", set_crate_root;
    /// Per item or per file dependencies (experiment E7).
    input [] fn granularity(()) -> Granularity, "choosing the granularity", set_granularity;
    /// Relative or absolute spans (experiment E5).
    input [] fn span_mode(()) -> SpanMode, "choosing the span mode", set_span_mode;

    /// A path's stamp (its metadata, or its content where that cannot stand for it:
    /// `stamp`), taken every session.
    query [eval_always] fn file_stamp(PathBuf) -> FileStamp, "looking at a source file", p_file_stamp;
    /// A directory's stamp (`stamp::dir_stamp`: its metadata, which changes when an entry
    /// is created, removed or renamed in it), taken every session: what implies that a
    /// path missing from it is still missing.
    query [eval_always] fn dir_stamp(PathBuf) -> stamp::DirStamp, "looking at a directory", p_dir_stamp;
    /// A path's stamp as `file_stamp` gives it, a missing path's implied by its
    /// directory's `dir_stamp` (with `Host::directories`; else the path's `file_stamp`).
    query [] fn path_stamp(PathBuf) -> FileStamp, "looking for a source file", p_path_stamp;
    /// A source file's bytes, read through the host's loader when its stamp changed.
    query [] fn file_text(PathBuf) -> Arc<FileText>, "reading a source file", p_file_text;
    /// A file's syntax tree (never hashed: its dependents compare their own results).
    query [no_hash] fn parse_file(PathBuf) -> Shared<Parsed>, "parsing a file", p_parse_file;
    /// A file's items found from its tokens alone, with their extents (`skeleton::split`;
    /// never hashed: its chunks are).
    query [no_hash] fn file_split(PathBuf) -> Shared<FileSplit>, "splitting a file into items", p_file_split;
    /// How many chunks of `skeleton::CHUNK_ITEMS` items the split file has (`None`: the
    /// file could not be split).
    query [cache_on_disk] fn file_chunk_count(PathBuf) -> Option<u32>, "counting the items of a file", p_file_chunk_count;
    /// The texts of one chunk of the split file's items, without positions: an edit inside
    /// one item changes its chunk only.
    query [] fn split_chunk((PathBuf, u32)) -> Option<Arc<SplitChunk>>, "collecting the texts of a file's items", p_split_chunk;
    /// One chunk's items, each parsed on its own (never hashed: its skeleton and the
    /// items' syntax are).
    query [no_hash] fn chunk_parse((PathBuf, u32)) -> Shared<ChunkParse>, "parsing a file's items", p_chunk_parse;
    /// One chunk's items without bodies or positions (`None`: one of them does not parse
    /// cleanly on its own).
    query [cache_on_disk] fn chunk_skeleton((PathBuf, u32)) -> Option<Arc<ChunkSkeleton>>, "collecting a file's items", p_chunk_skeleton;
    /// Whether the split file's items are its items (every chunk parsed cleanly): then its
    /// skeleton, offsets and items' syntax come from the chunks, else from `parse_file`.
    query [cache_on_disk] fn file_split_clean(PathBuf) -> bool, "checking the items of a file", p_file_split_clean;
    /// A file's items without bodies or positions: what the def map is built from.
    query [cache_on_disk] fn file_skeleton(PathBuf) -> Arc<Skeleton>, "collecting the items of a file", p_file_skeleton;
    /// Whether a file can be read, is within the size limit and is UTF-8.
    query [cache_on_disk] fn file_status(PathBuf) -> FileStatus, "checking a source file", p_file_status;
    /// The `mod` items of a file (`skeleton::strip_to_modules`): all the module tree reads.
    query [cache_on_disk] fn file_modules(PathBuf) -> Arc<Skeleton>, "collecting the modules of a file", p_file_modules;
    /// The crate's modules and files, without positions.
    query [cache_on_disk] fn module_tree(()) -> Arc<ModuleTree>, "building the module tree", p_module_tree;
    /// The item tree of one file module (its file's defs and `use` items), without
    /// positions: what a structure edit of that file changes, and no other file's.
    query [cache_on_disk] fn module_items(DefId) -> Arc<ModuleItems>, "collecting the items of a module", p_module_items;
    /// A file module's defs and kinds, in source order.
    query [cache_on_disk] fn module_defs(DefId) -> Arc<Vec<(DefId, DefKind)>>, "listing the items of a module", p_module_defs;
    /// A file module's `use` items: what import resolution reads of the module's file.
    query [cache_on_disk] fn module_uses(DefId) -> Arc<Vec<ModuleUse>>, "listing the imports of a module", p_module_uses;
    /// Whether a file module's item tree has errors.
    query [cache_on_disk] fn module_item_errors(DefId) -> bool, "checking the items of a module", p_module_item_errors;
    /// The positioned item tree and scopes, for the structure's diagnostics only (never
    /// hashed; built only when the positionless parts report an error).
    query [no_hash] fn positioned_def_map(()) -> Shared<DefMap>, "locating the crate's structure errors", p_positioned_def_map;
    /// Loading, item-tree and import diagnostics.
    query [cache_on_disk] fn structure_diagnostics(()) -> Arc<Vec<PDiag>>, "checking the crate's structure", p_structure_diagnostics;
    /// Set when the root file could not be read.
    query [cache_on_disk] fn crate_fatal(()) -> Option<String>, "checking the crate root", p_crate_fatal;
    /// Every source file, in load order.
    query [cache_on_disk] fn crate_files(()) -> Arc<Vec<PathBuf>>, "listing the crate's files", p_crate_files;
    /// Every def and its kind, in source order.
    query [cache_on_disk] fn crate_defs(()) -> Arc<Vec<(DefId, DefKind)>>, "listing the crate's items", p_crate_defs;
    /// Every def's file module, by shard (never hashed: each shard is).
    query [no_hash] fn def_homes(()) -> Shared<Vec<Arc<DefShard>>>, "indexing the crate's items", p_def_homes;
    /// How many shards the index of the crate's defs is cut into (`values::shard_count`).
    /// Persisted (four bytes), so that re-executing `def_home` reads it and its shard from
    /// the cache rather than building the whole index again.
    query [cache_on_disk] fn def_shard_count(()) -> u32, "counting the shards of the crate's items", p_def_shard_count;
    /// The file modules of the defs whose ids fall in one shard (`values::shard_of`).
    query [cache_on_disk] fn def_shard(u32) -> Arc<DefShard>, "collecting a shard of the crate's items", p_def_shard;
    /// The file module that declares a def, from its shard: what a def's other queries
    /// read, so that a change of its shard re-executes them only when their own entry
    /// changed. Not persisted (its node, fingerprint and edges are): a reader that
    /// re-executes finds it again in its shard, which is.
    query [] fn def_home(DefId) -> Option<DefId>, "finding an item's module", p_def_home;
    /// A def's kind, path, name, parent and visibility.
    query [cache_on_disk, own_hash] fn def_info(DefId) -> Option<Arc<DefInfo>>, "describing an item", p_def_info;
    /// A def's file and ordinal.
    query [cache_on_disk] fn def_source(DefId) -> Option<DefSource>, "locating an item", p_def_source;
    /// What one name is bound to among a module's items (not its imports): what import
    /// resolution reads of a module, one name at a time. Not persisted (its node,
    /// fingerprint and edges are): its readers (`resolve_name`, `imports`) are persisted
    /// and re-execute only when a binding changed, and then it is found again in the
    /// module's items.
    query [] fn item_binding((DefId, Symbol)) -> NameBindings, "looking up an item of a module", p_item_binding;
    /// Every module's imports, resolved to a fixed point (never hashed: each module's are).
    query [no_hash] fn imports(()) -> Shared<Imports>, "resolving the crate's imports", p_imports;
    /// Whether resolving the imports reported an error.
    query [cache_on_disk] fn import_errors(()) -> bool, "checking the crate's imports", p_import_errors;
    /// The names a module's `use` items bind.
    query [cache_on_disk, own_hash] fn module_imports(DefId) -> ScopeValue, "resolving a module's imports", p_module_imports;
    /// What one name is bound to in a module's scope (its item, else its import): what a
    /// path reads of a scope, so that adding or removing another name of the module stops
    /// here.
    query [cache_on_disk] fn resolve_name((DefId, Symbol)) -> NameBindings, "looking up a name in a module's scope", p_resolve_name;
    /// The absolute offset of each item of a file, by ordinal (for diagnostics only).
    query [] fn file_offsets(PathBuf) -> Arc<Vec<u32>>, "measuring a file", p_file_offsets;
    /// An item's syntax (spans relative to the item).
    query [] fn item_ast(DefId) -> Option<ItemSyntax>, "finding an item's syntax", p_item_ast;

    /// A function's signature.
    query [cache_on_disk, cycle_fallback(cycle_fn_sig), describe_key(def_path)] fn fn_sig(DefId) -> Arc<SemaOut<Arc<FnSig>>>, Step::FnSig.description(), p_fn_sig;
    /// A struct's fields.
    query [cache_on_disk, cycle_fallback(cycle_struct_fields), describe_key(def_path)] fn struct_fields(DefId) -> Arc<SemaOut<Arc<StructFields>>>, Step::StructFields.description(), p_struct_fields;
    /// The type a type alias stands for.
    query [cache_on_disk, cycle_fallback(cycle_alias_ty), describe_key(def_path)] fn alias_ty(DefId) -> Arc<SemaOut<Ty>>, Step::AliasTy.description(), p_alias_ty;
    /// A constant's declared type.
    query [cache_on_disk, cycle_fallback(cycle_const_ty), describe_key(def_path)] fn const_ty(DefId) -> Arc<SemaOut<Ty>>, Step::ConstTy.description(), p_const_ty;
    /// A constant's value.
    query [cache_on_disk, cycle_fallback(cycle_const_value), describe_key(def_path)] fn const_value(DefId) -> Arc<SemaOut<Arc<ConstValue>>>, Step::ConstValue.description(), p_const_value;
    /// A struct's structural checks (recursive types, size).
    query [cache_on_disk] fn check_struct(DefId) -> Arc<Vec<Diagnostic>>, "checking a struct", p_check_struct;
    /// A function body, type-checked (never hashed: `optimize` is where body edits that
    /// keep the code stop; hashing the typed tree too would cost more than the lowering it
    /// could save). Released once its diagnostics and its lowering have read it.
    query [no_hash, release_after(typeck_diagnostics, optimize)] fn typeck(DefId) -> Option<Arc<TypeckOut>>, "type-checking a function", p_typeck;
    /// A function body's diagnostics.
    query [cache_on_disk] fn typeck_diagnostics(DefId) -> Arc<Vec<Diagnostic>>, "collecting a function's diagnostics", p_typeck_diagnostics;
    /// The crate root's `fn main`.
    query [cache_on_disk] fn main_fn(()) -> Option<DefId>, "finding `main`", p_main_fn;
    /// The entry point's diagnostics.
    query [cache_on_disk] fn check_main(()) -> Arc<Vec<PDiag>>, "checking `main`", p_check_main;
    /// The diagnostics of a file's items, in their canonical order.
    query [cache_on_disk] fn file_diagnostics(PathBuf) -> Arc<FileDiagnostics>, "checking the items of a file", p_file_diagnostics;
    /// Every diagnostic of the crate, in the canonical order.
    query [cache_on_disk] fn crate_diagnostics(()) -> Arc<Vec<PDiag>>, "checking the crate", p_crate_diagnostics;

    /// A function's IR, lowered and optimized. Released once its code is generated.
    query [release_after(codegen)] fn optimize(DefId) -> Option<Arc<IrFunction>>, "optimizing a function", p_optimize;
    /// A function's machine code (bytes and relocations). Persisted although the link
    /// state holds the same code: when a build fails to write the link state after the
    /// query cache, the next build relinks from scratch, and then reads every function's
    /// code from here instead of generating it again.
    query [cache_on_disk] fn codegen(DefId) -> Option<Arc<backend::CodeBlob>>, "generating machine code", p_codegen;
}

/// How far a build goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Every check: all diagnostics, no code.
    Check,
    /// Machine code of every function, linked into an executable image.
    Image,
}

/// Options of a build.
#[derive(Default)]
pub struct BuildOptions {
    /// Persist to and load from this directory; `None` keeps nothing between runs.
    pub cache_dir: Option<PathBuf>,
    /// Engine options (hasher, cutoff, verify, event log); `cache` is set from `cache_dir`.
    pub engine: Options,
    pub granularity: Granularity,
    pub spans: SpanMode,
    /// How the files that changed since the previous build are found.
    pub change_detection: ChangeDetection,
    /// The process exits right after this build (the `rill` command): the database is
    /// not dropped, as freeing every memo one by one would only delay the exit.
    pub exit_after: bool,
}

impl BuildOptions {
    /// The same options for another build (the warning sink, which cannot be shared, is
    /// left out: that build's warnings are still collected in its [`Build`]).
    fn for_another_build(&self) -> BuildOptions {
        BuildOptions {
            cache_dir: self.cache_dir.clone(),
            engine: Options {
                hasher: self.engine.hasher,
                cutoff: self.engine.cutoff,
                verify: self.engine.verify,
                event_log: self.engine.event_log,
                cache: self.engine.cache.clone(),
                no_timing: self.engine.no_timing,
                on_warning: None,
                single_revision: self.engine.single_revision,
            },
            granularity: self.granularity,
            spans: self.spans,
            change_detection: self.change_detection,
            exit_after: self.exit_after,
        }
    }
}

/// The result of a build.
#[derive(Default)]
pub struct Build {
    /// The crate's files, in load order; filled only when there are diagnostics to render.
    pub sources: SourceMap,
    /// Anchored diagnostics, in the canonical order.
    pub diagnostics: Vec<Diagnostic>,
    /// The linked program (with `Goal::Image`, when there were no errors).
    pub image: Option<backend::Image>,
    /// Set when the root file could not be read: the driver's exit code 2.
    pub fatal: Option<String>,
    /// Wall time of each phase, in milliseconds.
    pub phases: Vec<(&'static str, f64)>,
    pub stats: StatsSnapshot,
    /// Cache warnings (a damaged cache, verify mismatches), for stderr.
    pub warnings: Vec<String>,
    /// Number of verify-mode mismatches (an untracked read).
    pub verify_mismatches: usize,
    /// What the link did (when it linked).
    pub link: Option<LinkStats>,
}

impl Build {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Identifies this compiler build, so that a cache written by another build is ignored:
/// the package version and the executable's size and modification time.
pub fn build_id() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}-{mtime}", m.len())
        })
        .unwrap_or_default();
    format!("rill {} {exe}", env!("CARGO_PKG_VERSION"))
}

/// A compilation session: one database, reused across builds in one process (the files
/// are stamped again at every build, and read again when their stamps changed).
pub struct Session {
    pub db: RillDb,
    builds: u32,
    linker: linker::Linker,
    /// A build from scratch of an image generates code while it checks, a batch of
    /// functions at a time ([`check_releasing_syntax`]); set by the one-build sessions of
    /// [`build`] and [`build_path`].
    code_early: bool,
    /// The last build generated code early and a cycle was found from there: its
    /// diagnostics may name another step of the cycle than the canonical order's reads
    /// would have, and the build must be made again without early code ([`build_in`]).
    early_code_met_cycle: bool,
    /// Warnings of opening the session, reported with the first build's.
    open_warnings: Vec<String>,
}

impl Session {
    /// Opens a session on the crate whose root file is `root`; with a cache directory,
    /// loads the previous session's graph (a damaged cache is a warning).
    ///
    /// The cache directory holds one cache per goal (`check/`, `image/`): a `check`
    /// computes no code, and saving its graph would drop the code of the last full build.
    pub fn new(
        loader: Arc<dyn FileLoader>,
        root: &Path,
        goal: Goal,
        mut options: BuildOptions,
    ) -> Session {
        let mut image_dir = None;
        if let Some(dir) = &options.cache_dir {
            let sub = match goal {
                Goal::Check => "check",
                Goal::Image => "image",
            };
            if goal == Goal::Image {
                image_dir = Some(dir.join(sub));
            }
            let mut cache = CacheOptions::new(dir.join(sub), build_id());
            // The cache is replaced atomically (temporary file, then rename) and checked
            // on load; without `fsync` a crash at the wrong moment can leave a damaged
            // file, which the next build detects and rebuilds from. `RILL_FSYNC=1` syncs.
            cache.fsync = std::env::var_os("RILL_FSYNC").is_some_and(|v| v == "1");
            options.engine.cache = Some(cache);
        }
        // Verify mode re-checks what the records of checked files let a build skip.
        let trust_records = options.engine.verify == Verify::Off;
        let mut db = RillDb::new(options.engine);
        db.host.loader = Some(loader);
        db.host.change_detection = options.change_detection;
        db.set_crate_root((), root.to_path_buf(), Durability::High);
        db.set_granularity((), options.granularity, Durability::High);
        db.set_span_mode((), options.spans, Durability::High);
        let mut open_warnings = Vec::new();
        let linker = match image_dir {
            Some(dir) => linker::Linker::open(
                dir,
                db.loaded_generation(),
                trust_records,
                &mut open_warnings,
            ),
            None => linker::Linker::default(),
        };
        Session {
            db,
            builds: 0,
            linker,
            code_early: false,
            early_code_met_cycle: false,
            open_warnings,
        }
    }

    /// Whether the first build of an image, with nothing loaded, generates code while it
    /// checks, a batch of functions at a time (see [`check_releasing_syntax`]): on in the
    /// one-build sessions of [`build`] and [`build_path`], off otherwise.
    pub fn set_code_early(&mut self, on: bool) {
        self.code_early = on;
    }

    /// Whether the last build generated code early and met a cycle there: its diagnostics
    /// may differ from the canonical order's, and [`build`] makes such a build again
    /// without early code.
    pub fn early_code_met_cycle(&self) -> bool {
        self.early_code_met_cycle
    }

    /// Replaces the loader (a test's in-memory files after an edit).
    pub fn set_loader(&mut self, loader: Arc<dyn FileLoader>) {
        self.db.host.loader = Some(loader);
    }

    /// Builds up to `goal`. Every build after the first starts a new revision, so the
    /// files are stamped again.
    pub fn build(&mut self, goal: Goal) -> Build {
        self.db.host.ahead = stamp::Ahead::default();
        self.db.host.raced_now.set(false);
        let mut code_check = self.linker.take_code_check();
        if self.builds > 0 {
            self.db.runtime_mut().new_revision();
        } else if self.db.host.file_system && self.db.host.change_detection == ChangeDetection::Stat
        {
            // The stamps' thread starts before the paths are decoded, and is handed them
            // as they are; the main thread stamps them after. The link state's code check
            // runs after them on the same thread: those paths are waited for first.
            let paths = self.db.volatile_nodes::<rq::file_stamp>();
            let dirs = self.db.volatile_nodes::<rq::dir_stamp>();
            let (ahead, mut feed) = stamp::Ahead::start(paths.len(), dirs.len(), &mut code_check);
            self.db.host.ahead = ahead;
            paths.decode(&self.db, |p| feed.file(p));
            dirs.decode(&self.db, |p| feed.dir(p));
        }
        if let Some(check) = code_check {
            linker::start_code_check(check);
        }
        self.builds += 1;
        let db = &self.db;
        let mut out = Build::default();
        let mut last = Instant::now();
        let mut phase = |out: &mut Build, name: &'static str| {
            let now = Instant::now();
            out.phases.push((name, (now - last).as_secs_f64() * 1e3));
            last = now;
        };

        // A root file that cannot be read leaves a crate with no files: there is nothing
        // to check, and the item tree's root module would point at a file the crate does
        // not have. The pipeline stops at the same point.
        out.fatal = db.crate_fatal(());
        if out.fatal.is_some() {
            phase(&mut out, "check");
            return out;
        }
        // (Code is generated early only by the first build of a session, with nothing
        // loaded: a later one finds most checks green, and its code is the linker's to
        // ask for.)
        let code_early = self.code_early && goal == Goal::Image && self.builds == 1;
        let mut early_ms = 0.0;
        self.early_code_met_cycle = false;
        let diags = if db.loaded_generation().is_none() {
            let checked = check_releasing_syntax(db, code_early);
            early_ms = checked.code_ms;
            self.early_code_met_cycle = checked.met_cycle;
            checked.diags
        } else {
            db.crate_diagnostics(())
        };
        // The files are needed only to place and render diagnostics: a build without any
        // does not read their list (a no-change build of a big crate would spend more
        // time checking and decoding it, and indexing lines, than checking).
        if !diags.is_empty() {
            let files = db.crate_files(());
            // Each file's id, the first one of its path (a search of the list for each
            // diagnostic grew with the diagnostics times the files).
            let mut by_path: rustc_hash::FxHashMap<&Path, u32> = Default::default();
            for (i, f) in files.iter().enumerate() {
                by_path.entry(f.as_path()).or_insert(i as u32);
            }
            let ids = |p: &Path| by_path.get(p).map(|&i| shared_frontend::span::FileId(i));
            out.diagnostics = diags.iter().map(|d| d.anchor(&ids)).collect();
            out.sources = source_map(db, &files);
        }
        phase(&mut out, "check");
        if goal == Goal::Image && !out.has_errors() {
            let (image, stats) = self.linker.link(db, |name| {
                phase(&mut out, name);
                // The code generated while checking is the code phase's.
                if name == "codegen" {
                    move_phase_time(&mut out.phases, "check", "codegen", early_ms);
                }
            });
            out.warnings.append(&mut self.linker.take_warnings());
            match image {
                Ok(image) => {
                    out.image = Some(image);
                    out.link = Some(stats);
                }
                Err(e) => out
                    .diagnostics
                    .push(Diagnostic::error_no_span(format!("linking failed: {e}"))),
            }
            phase(&mut out, "link");
        }
        out
    }

    /// Saves the cache (when there is a cache directory) and returns the statistics and
    /// warnings of the session so far. A build with errors keeps the previous cache, as
    /// rustc keeps its previous session directory: its graph stops before code, and the
    /// next build (the error fixed) finds the code of the last good build.
    ///
    /// A build that found everything green writes nothing: the cache on disk already
    /// holds this session's graph. Everything is green when the only queries that
    /// executed are those that execute in every session by their modifiers
    /// ([`query::Flags::executes_every_session`]: the file stamps, and the list of code
    /// handed to the linker, neither hashed nor persisted).
    pub fn finish(&mut self, out: &mut Build) {
        let start = Instant::now();
        let unchanged = self.db.executed_only_every_session()
            && self.db.runtime().verify_mismatches().is_empty();
        let raced = self.db.host.raced_now.get();
        if raced && self.db.runtime().persists() {
            out.warnings.push(
                "a source file changed while it was read: the build used what it read last, \
                 and the cache was not saved"
                    .to_string(),
            );
        }
        if self.db.runtime().persists()
            && !out.has_errors()
            && out.fatal.is_none()
            && !unchanged
            && !raced
        {
            // The link state's bytes are encoded while the cache's are written; the state
            // is written once the cache is in place (it belongs to that cache, and holds
            // its lock).
            if self.db.runtime().options().single_revision {
                // As before a link from scratch (see `Linker::link`), for the values a
                // patched link read or a build without code made.
                self.db.release_unsaved_values();
            }
            let linker = &self.linker;
            let mut planned = None;
            let report = self
                .db
                .save_with(&mut |generation| planned = linker.plan(generation));
            out.warnings.extend(report.warnings);
            if let Some(generation) = report.generation {
                self.linker.save(generation, planned, &mut out.warnings);
            }
        }
        out.phases
            .push(("save_cache", start.elapsed().as_secs_f64() * 1e3));
        out.stats = self.db.stats();
        out.warnings.extend(self.db.runtime().warnings());
        out.warnings.append(&mut self.open_warnings);
        out.verify_mismatches = self.db.runtime().verify_mismatches().len();
    }
}

/// Moves `ms` of the time of phase `from` to phase `to` (both already recorded).
fn move_phase_time(phases: &mut [(&'static str, f64)], from: &str, to: &str, ms: f64) {
    if ms <= 0.0 {
        return;
    }
    if let Some(p) = phases.iter_mut().find(|p| p.0 == from) {
        p.1 = (p.1 - ms).max(0.0);
    }
    if let Some(p) = phases.iter_mut().find(|p| p.0 == to) {
        p.1 += ms;
    }
}

/// How many functions' typed bodies a build with early code lets wait before it generates
/// their code ([`check_releasing_syntax`]): enough that checking and generating code take
/// turns a few times per 100k lines rather than at every file (turns at every file made a
/// build from scratch at 100k lines about 4 % slower, with the same instructions), few
/// enough that the bodies waiting stay a small part of the program's.
pub const CODE_BATCH: usize = 512;

/// What [`check_releasing_syntax`] found.
struct Checked {
    /// Every diagnostic of the crate.
    diags: Arc<Vec<PDiag>>,
    /// The time spent generating code early, in milliseconds.
    code_ms: f64,
    /// A cycle was found while generating code early.
    met_cycle: bool,
}

/// Every diagnostic of the crate, as `crate_diagnostics` finds them, releasing each file's
/// syntax as soon as every item of the file was checked (the pipeline releases a
/// function's syntax once its body is type-checked): a build that parses the whole crate
/// then never holds every file's syntax trees and every typed body at once.
///
/// With `code_early`, the functions of the files checked so far are also lowered,
/// optimized and compiled to machine code as soon as [`CODE_BATCH`] of them are waiting
/// (and those of the last file), as long as no error was found (the code is the linker's,
/// which then finds it up to date): each typed body is then released soon after its file
/// is checked, and its IR once its code exists, instead of every typed body being held
/// until the code of the whole crate is generated. This
/// changes nothing that a build reports but which step reports a cycle: generating a
/// function's code reads steps of other items (a constant's value, a struct's fields)
/// that the canonical order may not have read yet, and a cycle is reported by the step
/// on it that was read first. A build whose early code met a cycle says so
/// (`met_cycle`), and is made again without early code.
///
/// The files are checked in the order and by the reads of `crate_diagnostics`' provider,
/// which then finds each file's diagnostics up to date: the order in which items are first
/// read decides which item reports a cycle. After `file_diagnostics(file)`, every check of
/// each of the file's items is up to date, and with them every read of the items'
/// syntax (`item_ast`) and of the file's parses (`parse_file`, `chunk_parse`) but the
/// rare ones that place a structure error or an absolute span, which parse again.
fn check_releasing_syntax(db: &RillDb, code_early: bool) -> Checked {
    let structure = db.structure_diagnostics(());
    let mut code = code_early && !structure.iter().any(|d| d.diag.is_error());
    let mut code_ms = 0.0;
    let mut met_cycle = false;
    if db.crate_fatal(()).is_none() {
        let tree = db.module_tree(());
        let mut waiting: Vec<DefId> = Vec::new();
        let files = db.crate_files(());
        for (i, file) in files.iter().enumerate() {
            let found = db.file_diagnostics(file.clone());
            release_syntax(db, &tree, file);
            code &= !found.has_errors();
            if !code {
                continue;
            }
            for module in tree.file_modules(file) {
                for &(def, kind) in db.module_defs(module).iter() {
                    if kind == DefKind::Fn {
                        waiting.push(def);
                    }
                }
            }
            if waiting.len() < CODE_BATCH && i + 1 < files.len() {
                continue;
            }
            let start = Instant::now();
            let cycles = db.host.cycles.get();
            for def in waiting.drain(..) {
                db.ensure::<rq::codegen>(def);
            }
            code_ms += start.elapsed().as_secs_f64() * 1e3;
            if db.host.cycles.get() != cycles {
                met_cycle = true;
                code = false;
            }
        }
    }
    Checked {
        diags: db.crate_diagnostics(()),
        code_ms,
        met_cycle,
    }
}

/// Releases the syntax of `file`: its items' (`item_ast`, which shares its trees with the
/// parses) but its type aliases', its chunks' and its whole parse.
fn release_syntax(db: &RillDb, tree: &ModuleTree, file: &Path) {
    for module in tree.file_modules(file) {
        for &(def, kind) in db.module_defs(module).iter() {
            // A type alias's syntax is read again wherever a path goes through it
            // (`ScopeLookup::type_alias`), and is small: it is kept.
            if !matches!(kind, DefKind::Mod | DefKind::TypeAlias) {
                db.release::<rq::item_ast>(&def);
            }
        }
    }
    let path = file.to_path_buf();
    // Only a readable file was split (its skeleton read its chunks).
    if db.file_status(path.clone()) == FileStatus::Ok {
        for chunk in 0..db.file_chunk_count(path.clone()).unwrap_or(0) {
            db.release::<rq::chunk_parse>(&(path.clone(), chunk));
        }
    }
    db.release::<rq::parse_file>(&path);
}

/// One build in a fresh session (a `rill` process): load the cache, build, save.
pub fn build(loader: Arc<dyn FileLoader>, root: &Path, goal: Goal, options: BuildOptions) -> Build {
    build_in(loader, false, root, goal, options)
}

/// [`build`]; `file_system` tells that `loader` is [`FsLoader`].
fn build_in(
    loader: Arc<dyn FileLoader>,
    file_system: bool,
    root: &Path,
    goal: Goal,
    mut options: BuildOptions,
) -> Build {
    let start = Instant::now();
    let exit_after = options.exit_after;
    // The session builds once and ends: no later revision compares its results.
    options.engine.single_revision = true;
    // What a rebuild from scratch needs, kept only where verify mode may ask for one.
    let again = (options.engine.verify != Verify::Off)
        .then(|| (Arc::clone(&loader), options.for_another_build()));
    // What a build made again without early code needs (see `check_releasing_syntax`).
    let without_early_code = (Arc::clone(&loader), options.for_another_build());
    let open = |loader, options, code_early| {
        let mut session = Session::new(loader, root, goal, options);
        session.db.host.file_system = file_system;
        session.db.host.directories = file_system;
        session.set_code_early(code_early);
        session
    };
    let mut session = open(loader, options, true);
    let load_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut out = session.build(goal);
    if session.early_code_met_cycle {
        // The session is dropped first: it holds the cache directory's lock.
        drop(session);
        let (loader, options) = without_early_code;
        session = open(loader, options, false);
        out = session.build(goal);
    }
    out.phases.insert(0, ("load_cache", load_ms));
    session.finish(&mut out);
    if let Some((loader, options)) = again.filter(|_| out.verify_mismatches > 0) {
        // Verify mode found results the cache let through that re-execution contradicts:
        // this build may be stale. The save discarded the cache; build again from scratch
        // and report that build, with the warnings of both.
        drop(session);
        let mut again = build(loader, root, goal, options);
        let mut warnings = std::mem::take(&mut out.warnings);
        warnings.push("verify: the program was rebuilt from scratch".to_string());
        warnings.append(&mut again.warnings);
        again.warnings = warnings;
        again.verify_mismatches = out.verify_mismatches;
        return again;
    }
    if exit_after {
        // The program runs next, and the process exits: the files the session mapped (the
        // loaded cache, the link state's base) are closed before; the image maps its code
        // on its own.
        let Session { db, linker, .. } = session;
        linker.leak();
        db.leak();
    }
    out
}

/// [`build`] from the file system.
pub fn build_path(root: &Path, goal: Goal, options: BuildOptions) -> Build {
    build_in(Arc::new(FsLoader), true, root, goal, options)
}

/// The key of an event of the engine's log as a person reads it: an item as its def path
/// (`crate::geometry::area`, from the item's own `def_info`), a name looked up in a module
/// as the path it would have there (`crate::geometry::PI`), a file as its path, `()` as
/// nothing; any other key as `Debug` shows it.
pub fn event_key(db: &RillDb, event: &Event) -> String {
    if let Some(def) = query::event_key::<RillDb, DefId>(db, event) {
        return match db.def_info(def) {
            Some(info) => info.path.to_string(),
            None => format!("{def:?}"),
        };
    }
    if let Some((module, name)) = query::event_key::<RillDb, (DefId, Symbol)>(db, event) {
        return match db.def_info(module) {
            Some(info) => format!("{}::{name}", info.path),
            None => format!("{module:?}::{name}"),
        };
    }
    if let Some(path) = query::event_key::<RillDb, PathBuf>(db, event) {
        return path.display().to_string();
    }
    if query::event_key::<RillDb, ()>(db, event).is_some() {
        return String::new();
    }
    event.key.clone()
}

/// An event as one line of the log, its key shown by [`event_key`]:
/// `executed optimize(crate::geometry::area)`.
pub fn format_event(db: &RillDb, event: &Event) -> String {
    format!(
        "{} {}({})",
        event.kind.as_str(),
        event.query,
        event_key(db, event)
    )
}

/// The source map of the crate's files, in load order (the same ids as the pipeline's).
fn source_map(db: &RillDb, files: &[PathBuf]) -> SourceMap {
    let mut sources = SourceMap::default();
    for path in files {
        let text: Arc<str> = match &*db.file_text(path.clone()) {
            FileText::Bytes(b) => Arc::from(String::from_utf8_lossy(b).as_ref()),
            FileText::Error { .. } => Arc::from(""),
        };
        sources.add(SourceFile::new(path.clone(), text));
    }
    sources
}
