//! The providers of the Rill queries: each calls the frontend or backend function the
//! pipeline calls at the same step, on the same inputs.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use shared_frontend::diag::Diagnostic;
use shared_frontend::intern::Symbol;
use shared_frontend::ir::{lower::lower_fn, opt, IrFunction};
use shared_frontend::limits::MAX_FILE_SIZE;
use shared_frontend::sema::def::{DefId, DefKind, DefPath, Namespace, Vis};
use shared_frontend::sema::entry;
use shared_frontend::sema::items::{
    def_name, ChildModule, ItemAst, ItemTree, ModuleEntry, ModuleOrigin, ModuleWalk, UseItem,
};
use shared_frontend::sema::modules::{
    load_crate_parsed, FileKind, FileLoader, FileStat, LoadedCrate,
};
use shared_frontend::sema::recipe::{self, Check, Origin, Step};
use shared_frontend::sema::resolve::{self, Binding, CrateItems, NameBindings};
use shared_frontend::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use shared_frontend::sema::typeck;
use shared_frontend::span::{FileId, Span};
use shared_frontend::syntax::ast::Item;
use shared_frontend::syntax::ast::SourceFileAst;
use shared_frontend::syntax::parser;

use super::env::{root_def, QEnv};
use super::skeleton::{self, ChunkParse, ChunkSkeleton, FileSplit, SplitChunk, CHUNK_ITEMS};
use super::stamp;
use super::values::*;
use super::{rq, RillDb};
use query::{Cycle, CycleFrame, Database, Query};
use rustc_hash::FxHashMap;

// ---------------------------------------------------------------------------------------
// Files and the crate's structure.

pub(super) fn p_file_stamp(db: &RillDb, path: PathBuf) -> FileStamp {
    stamp::stamp_with(
        db.host.loader.as_deref(),
        &path,
        db.host.change_detection,
        db.runtime().options().hasher,
        &db.host.ahead,
        db.host.raced.borrow().get(&path).copied().unwrap_or(0),
    )
}

pub(super) fn p_dir_stamp(db: &RillDb, path: PathBuf) -> stamp::DirStamp {
    stamp::dir_stamp_with(&path, &db.host.ahead)
}

/// Whether a missing path's absence may be implied by its directory's stamp: the paths
/// are the file system's (`Host::directories`) and files are stamped by their metadata.
fn directory_stamps(db: &RillDb) -> bool {
    db.host.directories && db.host.change_detection == ChangeDetection::Stat
}

/// The stamp of a path as `file_stamp` gives it, without stamping a missing path on its
/// own (`stamp`'s "Directory stamps"). A path is looked at first: a file (or a special
/// file, or a path that cannot be looked at) is stamped by its own `file_stamp`, which
/// alone stands for it. A missing path or a directory, an entry of its directory, is
/// implied by that directory: the directory's own kind is found first (the crate root's
/// directory by its `dir_stamp`, a directory below it by its own `path_stamp`), then
/// - in a missing directory, the path is missing;
/// - in a directory, its `dir_stamp` is taken and the path looked at again, so that an
///   entry created, removed or replaced after that look changes the stamp: a missing
///   path or a directory is stamped by its kind, anything else by its `file_stamp`;
/// - in anything else (a file: `ENOTDIR`), the path is stamped by its `file_stamp`.
///
/// So a no-change rebuild stamps each file and each directory that holds a missing path
/// (or a directory looked into), and no missing path.
pub(super) fn p_path_stamp(db: &RillDb, path: PathBuf) -> FileStamp {
    if !directory_stamps(db) {
        return db.file_stamp(path);
    }
    let implied = |kind: &FileKind| matches!(kind, FileKind::Missing | FileKind::Directory);
    if !implied(&stamp::dir_stat(&path).kind) {
        return db.file_stamp(path);
    }
    let Some(dir) = path.parent() else {
        return db.file_stamp(path);
    };
    let root = db.crate_root(());
    let base = root.parent().unwrap_or(Path::new(""));
    // A directory below the crate root's is looked at as its parent's stamp implies.
    if dir != base && dir.starts_with(base) {
        match db.path_stamp(dir.to_path_buf()).stat.map(|s| s.kind) {
            Some(FileKind::Directory) => {}
            Some(FileKind::Missing) => return kind_stamp(FileKind::Missing),
            _ => return db.file_stamp(path),
        }
    }
    match db.dir_stamp(dir.to_path_buf()).stat.kind {
        FileKind::Directory => {}
        FileKind::Missing => return kind_stamp(FileKind::Missing),
        _ => return db.file_stamp(path),
    }
    match stamp::dir_stat(&path).kind {
        kind if implied(&kind) => kind_stamp(kind),
        _ => db.file_stamp(path),
    }
}

/// The stamp `file_stamp` gives a path of this kind that is not a file: its kind only.
fn kind_stamp(kind: FileKind) -> FileStamp {
    FileStamp {
        stat: Some(FileStat::of_kind(kind)),
        content: None,
    }
}

/// The text is read only when the stamp changed (or when a dependent needs the bytes of
/// a file whose text is green from the previous session). A racy file's stamp hands over
/// the text it read; a stamp that kept only a digest has the text read here checked
/// against it (`Host::raced`).
pub(super) fn p_file_text(db: &RillDb, path: PathBuf) -> Arc<FileText> {
    let stamp = if directory_stamps(db) {
        db.path_stamp(path.clone())
    } else {
        db.file_stamp(path.clone())
    };
    let text = match stamp.content {
        Some(StampContent::Text(text)) => return text,
        Some(StampContent::Digest { fingerprint, .. }) => {
            let text = stamp::read(db.host.loader.as_deref(), &path);
            let same = match &text {
                FileText::Bytes(b) => text_digest(b, db.runtime().options().hasher) == fingerprint,
                FileText::Error { .. } => false,
            };
            if !same {
                // Changed since the stamp read it: the build goes on with this text, and
                // the file's next stamp differs from this one whatever it then holds.
                *db.host.raced.borrow_mut().entry(path.clone()).or_insert(0) += 1;
                db.host.raced_now.set(true);
            }
            text
        }
        None => stamp::read(db.host.loader.as_deref(), &path),
    };
    Arc::new(text)
}

pub(super) fn p_parse_file(db: &RillDb, path: PathBuf) -> Shared<Parsed> {
    let text = db.file_text(path);
    // Unreadable, oversized and non-UTF-8 files are reported by the module loader, which
    // never asks for their syntax; an empty tree keeps this total.
    let (ast, diagnostics) = match &*text {
        FileText::Bytes(b) if b.len() <= MAX_FILE_SIZE => match std::str::from_utf8(b) {
            Ok(text) => parser::parse_file(text),
            Err(_) => (SourceFileAst::default(), Vec::new()),
        },
        _ => (SourceFileAst::default(), Vec::new()),
    };
    let (offsets, lengths) = skeleton::item_extents(&ast).into_iter().unzip();
    Shared(Arc::new(Parsed {
        ast: Arc::new(ast),
        diagnostics,
        offsets,
        lengths,
    }))
}

/// Files smaller than this are parsed whole (`parse_file`), never split: parsing such a
/// file again costs about as much as comparing its items, and splitting it first would
/// lex it twice in a build from scratch.
const SPLIT_MIN_BYTES: usize = 32 * 1024;

/// The file's items from its tokens alone (see `skeleton::split`), for a file of at least
/// [`SPLIT_MIN_BYTES`].
pub(super) fn p_file_split(db: &RillDb, path: PathBuf) -> Shared<FileSplit> {
    let text = db.file_text(path);
    let (text, pieces) = match &*text {
        FileText::Bytes(b) if b.len() >= SPLIT_MIN_BYTES => (
            b.clone(),
            std::str::from_utf8(b).ok().and_then(skeleton::split),
        ),
        FileText::Bytes(b) => (b.clone(), None),
        FileText::Error { .. } => (Arc::from(&[][..]), None),
    };
    Shared(Arc::new(FileSplit { text, pieces }))
}

pub(super) fn p_file_chunk_count(db: &RillDb, path: PathBuf) -> Option<u32> {
    let split = db.file_split(path);
    let items = split.pieces.as_ref()?.len() as u32;
    Some(items.div_ceil(CHUNK_ITEMS))
}

pub(super) fn p_split_chunk(db: &RillDb, (path, chunk): (PathBuf, u32)) -> Option<Arc<SplitChunk>> {
    let split = db.file_split(path);
    let start = chunk as usize * CHUNK_ITEMS as usize;
    let pieces = split.pieces.as_ref()?.get(start..)?;
    let pieces = &pieces[..pieces.len().min(CHUNK_ITEMS as usize)];
    if pieces.is_empty() {
        return None;
    }
    Some(Arc::new(SplitChunk {
        text: split.text.clone(),
        pieces: pieces.to_vec(),
    }))
}

pub(super) fn p_chunk_parse(db: &RillDb, key: (PathBuf, u32)) -> Shared<ChunkParse> {
    let chunk = db.split_chunk(key);
    let items = chunk.as_ref().and_then(|c| c.parse());
    Shared(Arc::new(ChunkParse { chunk, items }))
}

pub(super) fn p_chunk_skeleton(db: &RillDb, key: (PathBuf, u32)) -> Option<Arc<ChunkSkeleton>> {
    let parsed = db.chunk_parse(key);
    let (chunk, items) = (parsed.chunk.as_ref()?, parsed.items.as_ref()?);
    let stripped = chunk
        .pieces
        .iter()
        .zip(items)
        .map(|(p, item)| (p.depth, skeleton::strip_one(item)))
        .collect();
    Some(Arc::new(ChunkSkeleton(stripped)))
}

/// Whether every chunk of the split file parsed cleanly: then the items of the split are
/// the file's, with the same ordinals, and the file has no syntax errors.
pub(super) fn p_file_split_clean(db: &RillDb, path: PathBuf) -> bool {
    let Some(chunks) = db.file_chunk_count(path.clone()) else {
        return false;
    };
    (0..chunks).all(|c| db.chunk_skeleton((path.clone(), c)).is_some())
}

/// From the chunks of the split file when they are its items (an edit inside an item
/// parses that item's chunk only, and leaves every chunk's skeleton as it was), else from
/// the file's parse.
pub(super) fn p_file_skeleton(db: &RillDb, path: PathBuf) -> Arc<Skeleton> {
    if db.file_split_clean(path.clone()) {
        let chunks: Vec<Arc<ChunkSkeleton>> = (0..db.file_chunk_count(path.clone()).unwrap_or(0))
            .filter_map(|c| db.chunk_skeleton((path.clone(), c)))
            .collect();
        let items = chunks.iter().flat_map(|c| c.0.iter().cloned());
        return Arc::new(Skeleton {
            ast: skeleton::assemble(items),
            parse_errors: false,
        });
    }
    let parsed = db.parse_file(path);
    Arc::new(Skeleton {
        ast: skeleton::strip_positionless(&parsed.ast),
        parse_errors: parsed.diagnostics.iter().any(Diagnostic::is_error),
    })
}

pub(super) fn p_file_status(db: &RillDb, path: PathBuf) -> FileStatus {
    match &*db.file_text(path) {
        FileText::Bytes(b) if b.len() <= MAX_FILE_SIZE && std::str::from_utf8(b).is_ok() => {
            FileStatus::Ok
        }
        FileText::Bytes(_) => FileStatus::Rejected,
        FileText::Error {
            os,
            message,
            is_file,
        } => FileStatus::Unreadable {
            os: *os,
            message: message.clone(),
            is_file: *is_file,
        },
    }
}

/// The module loader's view of the files: every read is a `file_text` query.
struct QueryLoader<'a>(&'a RillDb);

impl FileLoader for QueryLoader<'_> {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0.file_text(path.to_path_buf()).to_io()
    }

    /// The query's own buffer, shared: no copy of the text.
    fn load_shared(&self, path: &Path) -> std::io::Result<Arc<[u8]>> {
        match &*self.0.file_text(path.to_path_buf()) {
            FileText::Bytes(b) => Ok(b.clone()),
            error => error.to_io().map(Arc::from),
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        self.0.file_text(path.to_path_buf()).is_file()
    }
}

/// The positionless loader: reads only each file's status, so that editing a file's text
/// does not re-run the module loader. A readable file loads as empty text (its `mod`
/// items come from `file_modules`); a rejected one as one invalid byte, which the loader
/// rejects in the same way (with a wrong position, so the positioned def map reports it).
struct StatusLoader<'a>(&'a RillDb);

impl FileLoader for StatusLoader<'_> {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        match self.0.file_status(path.to_path_buf()) {
            FileStatus::Ok => Ok(Vec::new()),
            FileStatus::Rejected => Ok(vec![0xff]),
            FileStatus::Unreadable {
                os,
                message,
                is_file,
            } => FileText::Error {
                os,
                message,
                is_file,
            }
            .to_io(),
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        match self.0.file_status(path.to_path_buf()) {
            FileStatus::Ok | FileStatus::Rejected => true,
            FileStatus::Unreadable { is_file, .. } => is_file,
        }
    }
}

/// Stands for a file's parse errors in the module tree (their positions are not known
/// there); the positioned def map reports the real ones.
fn parse_error_marker() -> Diagnostic {
    Diagnostic::error_no_span("the file has syntax errors")
}

pub(super) fn p_file_modules(db: &RillDb, path: PathBuf) -> Arc<Skeleton> {
    let skeleton = db.file_skeleton(path);
    Arc::new(Skeleton {
        ast: skeleton::strip_to_modules(&skeleton.ast),
        parse_errors: skeleton.parse_errors,
    })
}

/// The module tree: the module loader and the item tree run on the files' `mod` items
/// alone (`file_modules`), through the positionless loader.
pub(super) fn p_module_tree(db: &RillDb, (): ()) -> Arc<ModuleTree> {
    let root = db.crate_root(());
    let krate = load_crate_parsed(&StatusLoader(db), &root, &|path, _text| {
        let modules = db.file_modules(path.to_path_buf());
        let diags = if modules.parse_errors {
            vec![parse_error_marker()]
        } else {
            Vec::new()
        };
        (modules.ast.clone(), diags)
    });
    let tree = ItemTree::build(&krate);
    let mut modules: Vec<ModuleInfo> = Vec::with_capacity(tree.modules().len());
    let mut homes: FxHashMap<DefId, DefId> = FxHashMap::default();
    for m in tree.modules() {
        let Some(d) = tree.def(m.def) else {
            continue;
        };
        // Modules come in source order: an inline module's parent is already placed.
        let (home, file) = match m.origin {
            ModuleOrigin::Inline => {
                let parent = d.parent.and_then(|p| homes.get(&p).copied());
                (parent.unwrap_or(m.def), None)
            }
            ModuleOrigin::Root | ModuleOrigin::File => (m.def, m.file.map(|f| f.0)),
        };
        homes.insert(m.def, home);
        modules.push(ModuleInfo {
            def: m.def,
            path: d.path.clone(),
            parent: d.parent,
            vis: d.vis,
            home,
            file,
            depth: m.depth,
        });
    }
    let fatal = krate.root_unreadable.then(|| {
        krate
            .diagnostics
            .first()
            .map(|d| d.message.clone())
            .unwrap_or_default()
    });
    let files = krate.sources.files.iter().map(|f| f.path.clone()).collect();
    Arc::new(ModuleTree::new(
        modules,
        files,
        fatal,
        !krate.diagnostics.is_empty(),
    ))
}

/// The item tree of a file module, from its file's skeleton: the item tree's rules for
/// one file, by the item tree's own per-module walk.
pub(super) fn p_module_items(db: &RillDb, module: DefId) -> Arc<ModuleItems> {
    let tree = db.module_tree(());
    let mut out = ModuleItems::default();
    let Some(m) = tree.module(module).filter(|m| m.home == m.def) else {
        return Arc::new(out);
    };
    if let Some(file) = tree.file_of(m) {
        let skeleton = db.file_skeleton(file.clone());
        collect_items(&mut out, module, &m.path, &skeleton.ast.items, m.depth);
    }
    Arc::new(out)
}

/// One module's items (and its inline modules', each right after its `mod` item), named
/// by the item tree's walk ([`ModuleWalk`]); the skeleton's item offsets are ordinals.
fn collect_items(out: &mut ModuleItems, module: DefId, path: &DefPath, items: &[Item], depth: u32) {
    let walk = ModuleWalk::new(module, depth, items);
    let child_depth = walk.child_depth();
    for entry in walk {
        let d = match entry {
            ModuleEntry::Use { vis, def, .. } => {
                out.uses.push(ModuleUse {
                    module,
                    vis,
                    def: def.clone(),
                });
                continue;
            }
            ModuleEntry::Def(d) => d,
        };
        // Reported by the positioned item tree.
        out.has_errors |= d.is_error();
        let child = path.child(d.segment);
        let id = child.hash();
        // Deeper modules stay empty (loading reported them); a file module's items are
        // its own file's.
        let inline = match d.child {
            Some(ChildModule::Inline(inner)) => Some((inner, child.clone())),
            _ => None,
        };
        out.defs.push(ItemDef {
            id,
            info: DefInfo {
                kind: d.kind,
                path: child,
                name: d.segment.name,
                parent: Some(module),
                vis: d.vis,
                name_span: d.name_span,
            },
            ordinal: d.offset,
        });
        if let Some((inner, child)) = inline {
            collect_items(out, id, &child, inner, child_depth);
        }
    }
}

pub(super) fn p_module_defs(db: &RillDb, module: DefId) -> Arc<Vec<(DefId, DefKind)>> {
    let items = db.module_items(module);
    Arc::new(items.defs.iter().map(|d| (d.id, d.info.kind)).collect())
}

pub(super) fn p_module_uses(db: &RillDb, module: DefId) -> Arc<Vec<ModuleUse>> {
    Arc::new(db.module_items(module).uses.clone())
}

pub(super) fn p_module_item_errors(db: &RillDb, module: DefId) -> bool {
    db.module_items(module).has_errors
}

/// The file modules of the tree (the units of [`p_module_items`]).
fn file_modules(tree: &ModuleTree) -> impl Iterator<Item = DefId> + '_ {
    tree.modules
        .iter()
        .filter(|m| m.home == m.def)
        .map(|m| m.def)
}

/// The item tree and module scopes of a loaded crate.
fn def_map_of(krate: LoadedCrate) -> Shared<DefMap> {
    let tree = ItemTree::build(&krate);
    let resolved = resolve::resolve_crate(&tree);
    Shared(Arc::new(DefMap {
        krate,
        tree,
        resolved,
    }))
}

/// The def map with real positions and texts, built only to report the structure's
/// diagnostics (exactly when the positionless parts find some).
pub(super) fn p_positioned_def_map(db: &RillDb, (): ()) -> Shared<DefMap> {
    let root = db.crate_root(());
    let krate = load_crate_parsed(&QueryLoader(db), &root, &|path, _text| {
        let parsed = db.parse_file(path.to_path_buf());
        (skeleton::strip(&parsed.ast), parsed.diagnostics.clone())
    });
    def_map_of(krate)
}

pub(super) fn p_structure_diagnostics(db: &RillDb, (): ()) -> Arc<Vec<PDiag>> {
    let quiet = {
        let tree = db.module_tree(());
        !tree.has_errors
            && file_modules(&tree).all(|m| !db.module_item_errors(m))
            && !db.import_errors(())
    };
    if quiet {
        return Arc::new(Vec::new());
    }
    let map = db.positioned_def_map(());
    let sources = &map.krate.sources;
    Arc::new(
        map.krate
            .diagnostics
            .iter()
            .chain(&map.tree.diagnostics)
            .chain(&map.resolved.diagnostics)
            .map(|d| PDiag::from_anchored(d, sources))
            .collect(),
    )
}

pub(super) fn p_crate_fatal(db: &RillDb, (): ()) -> Option<String> {
    db.module_tree(()).fatal.clone()
}

pub(super) fn p_crate_files(db: &RillDb, (): ()) -> Arc<Vec<PathBuf>> {
    Arc::new(db.module_tree(()).files.clone())
}

/// The root, then each file module's defs, a file module's own right after its `mod`
/// item: the item tree's order.
pub(super) fn p_crate_defs(db: &RillDb, (): ()) -> Arc<Vec<(DefId, DefKind)>> {
    fn expand(db: &RillDb, tree: &ModuleTree, home: DefId, out: &mut Vec<(DefId, DefKind)>) {
        for &(def, kind) in db.module_defs(home).iter() {
            out.push((def, kind));
            if kind == DefKind::Mod && tree.module(def).is_some_and(|m| m.home == def) {
                // The nesting is bounded by `MAX_MODULE_DEPTH`.
                expand(db, tree, def, out);
            }
        }
    }
    let tree = db.module_tree(());
    let mut out = vec![(root_def(), DefKind::Mod)];
    expand(db, &tree, root_def(), &mut out);
    Arc::new(out)
}

pub(super) fn p_def_homes(db: &RillDb, (): ()) -> Shared<Vec<Arc<DefShard>>> {
    let tree = db.module_tree(());
    let lists: Vec<(DefId, Arc<Vec<(DefId, DefKind)>>)> = file_modules(&tree)
        .map(|m| (m, db.module_defs(m)))
        .collect();
    let total = 1 + lists.iter().map(|(_, l)| l.len()).sum::<usize>();
    let count = shard_count(total);
    let mut shards = vec![DefShard::default(); count as usize];
    shards[shard_of(root_def(), count) as usize]
        .homes
        .push((root_def(), root_def()));
    for (home, defs) in &lists {
        for &(def, _) in defs.iter() {
            shards[shard_of(def, count) as usize]
                .homes
                .push((def, *home));
        }
    }
    Shared(Arc::new(
        shards
            .into_iter()
            .map(|mut s| {
                s.homes.sort_unstable_by_key(|h| h.0);
                Arc::new(s)
            })
            .collect(),
    ))
}

pub(super) fn p_def_shard_count(db: &RillDb, (): ()) -> u32 {
    db.def_homes(()).len() as u32
}

pub(super) fn p_def_shard(db: &RillDb, shard: u32) -> Arc<DefShard> {
    db.def_homes(())
        .get(shard as usize)
        .cloned()
        .unwrap_or_default()
}

/// The file module that declares `def` (the root for the root).
pub(super) fn p_def_home(db: &RillDb, def: DefId) -> Option<DefId> {
    db.def_shard(shard_of(def, db.def_shard_count(())))
        .home(def)
}

pub(super) fn p_def_info(db: &RillDb, def: DefId) -> Option<Arc<DefInfo>> {
    let home = db.def_home(def)?;
    if def == root_def() {
        return Some(Arc::new(DefInfo {
            kind: DefKind::Mod,
            path: DefPath::root(),
            name: Symbol::intern("crate"),
            parent: None,
            vis: Vis::Public,
            name_span: Span::DUMMY,
        }));
    }
    let items = db.module_items(home);
    items.def(def).map(|d| Arc::new(d.info.clone()))
}

/// The def's file from its file module, its ordinal from the module's item tree (which
/// an edit of another file leaves as it was).
pub(super) fn p_def_source(db: &RillDb, def: DefId) -> Option<DefSource> {
    let home = db.def_home(def)?;
    let tree = db.module_tree(());
    if def == root_def() {
        return Some(DefSource {
            file: db.crate_root(()),
            ordinal: u32::MAX,
        });
    }
    let file = tree.file_of(tree.module(home)?)?.clone();
    let ordinal = db.module_items(home).def(def)?.ordinal;
    Some(DefSource { file, ordinal })
}

pub(super) fn p_item_binding(db: &RillDb, (module, name): (DefId, Symbol)) -> NameBindings {
    let tree = db.module_tree(());
    match tree.module(module) {
        Some(m) => db.module_items(m.home).binding(module, name),
        None => NameBindings::default(),
    }
}

/// Import resolution's view of the crate through queries: the module tree, each
/// module's `use` items, and its items one name at a time (`item_binding`), so that
/// adding an item no import names leaves the imports green.
struct QueryItems<'a> {
    db: &'a RillDb,
    tree: Arc<ModuleTree>,
}

impl CrateItems for QueryItems<'_> {
    fn root(&self) -> DefId {
        root_def()
    }
    fn module_count(&self) -> usize {
        self.tree.modules.len()
    }
    fn module_def(&self, idx: usize) -> DefId {
        self.tree.modules[idx].def
    }
    fn module_idx(&self, module: DefId) -> Option<usize> {
        self.tree.idx(module)
    }
    fn module_parent(&self, module: DefId) -> Option<DefId> {
        self.tree.module(module)?.parent
    }
    fn module_vis(&self, module: DefId) -> Vis {
        self.tree.module(module).map_or(Vis::Public, |m| m.vis)
    }
    fn module_name(&self, module: DefId) -> String {
        self.tree
            .module(module)
            .map_or_else(|| String::from("{unknown}"), |m| def_name(&m.path))
    }
    /// Positionless: a `use` item's offset is its index among the module's.
    fn uses(&self, idx: usize) -> Vec<UseItem> {
        let m = &self.tree.modules[idx];
        self.db
            .module_uses(m.home)
            .iter()
            .filter(|u| u.module == m.def)
            .enumerate()
            .map(|(i, u)| UseItem {
                file: FileId(0),
                offset: i as u32,
                vis: u.vis,
                def: u.def.clone(),
            })
            .collect()
    }
    fn item(&self, idx: usize, ns: Namespace, name: Symbol) -> Option<Binding> {
        let module = self.tree.modules[idx].def;
        self.db.item_binding((module, name)).get(ns).copied()
    }
    fn item_site(&self, item: DefId) -> Option<(FileId, Span)> {
        Some((FileId(0), self.db.def_info(item)?.name_span))
    }
}

pub(super) fn p_imports(db: &RillDb, (): ()) -> Shared<Imports> {
    let tree = db.module_tree(());
    let resolved = resolve::resolve_imports(&QueryItems {
        db,
        tree: tree.clone(),
    });
    let scopes = tree
        .modules
        .iter()
        .zip(resolved.scopes)
        .map(|(m, s)| (m.def, Arc::new(s)))
        .collect();
    Shared(Arc::new(Imports {
        scopes,
        has_errors: !resolved.diagnostics.is_empty(),
    }))
}

pub(super) fn p_import_errors(db: &RillDb, (): ()) -> bool {
    db.imports(()).has_errors
}

/// A module without `use` items has no imports: its scope does not depend on the
/// crate's import resolution, which runs again whenever any import may resolve otherwise.
pub(super) fn p_module_imports(db: &RillDb, module: DefId) -> ScopeValue {
    let tree = db.module_tree(());
    let has_uses = tree
        .module(module)
        .is_some_and(|m| db.module_uses(m.home).iter().any(|u| u.module == module));
    if !has_uses {
        return ScopeValue(Arc::default());
    }
    ScopeValue(
        db.imports(())
            .scopes
            .get(&module)
            .cloned()
            .unwrap_or_default(),
    )
}

/// A module's item of that name, else its import (an import does not replace an item:
/// the clash is reported).
pub(super) fn p_resolve_name(db: &RillDb, (module, name): (DefId, Symbol)) -> NameBindings {
    let items = db.item_binding((module, name));
    if items.types.is_some() && items.values.is_some() {
        return items;
    }
    let imported = db.module_imports(module).0.name(name);
    NameBindings {
        types: items.types.or(imported.types),
        values: items.values.or(imported.values),
    }
}

pub(super) fn p_file_offsets(db: &RillDb, path: PathBuf) -> Arc<Vec<u32>> {
    if db.file_split_clean(path.clone()) {
        if let Some(pieces) = &db.file_split(path.clone()).pieces {
            return Arc::new(pieces.iter().map(|p| p.lo).collect());
        }
    }
    Arc::new(db.parse_file(path).offsets.clone())
}

/// Modules have no syntax here: nothing reads it, and an inline module's items carry
/// absolute offsets, which its text alone would not determine.
pub(super) fn p_item_ast(db: &RillDb, def: DefId) -> Option<ItemSyntax> {
    let source = db.def_source(def)?;
    if source.ordinal == u32::MAX {
        return None;
    }
    if db.file_split_clean(source.file.clone()) {
        // The item's chunk, parsed again only when one of its items' texts changed.
        let parsed = db.chunk_parse((source.file.clone(), source.ordinal / CHUNK_ITEMS));
        let i = (source.ordinal % CHUNK_ITEMS) as usize;
        let (chunk, items) = (parsed.chunk.as_ref()?, parsed.items.as_ref()?);
        let ast = skeleton::item_ast_of(items.get(i)?)?;
        if matches!(ast, ItemAst::Mod(_)) {
            return None;
        }
        let position = match db.span_mode(()) {
            SpanMode::Relative => None,
            SpanMode::Absolute => Some(*db.file_offsets(source.file).get(source.ordinal as usize)?),
        };
        let piece = chunk.pieces.get(i)?;
        return Some(ItemSyntax {
            ast,
            text: TextSlice::new(&chunk.text, piece.lo as usize, piece.hi as usize)?,
            position,
        });
    }
    let parsed = db.parse_file(source.file.clone());
    let ast = skeleton::item_by_ordinal(&parsed.ast, source.ordinal)?;
    if matches!(ast, ItemAst::Mod(_)) {
        return None;
    }
    let i = source.ordinal as usize;
    let (start, len) = (
        *parsed.offsets.get(i)? as usize,
        *parsed.lengths.get(i)? as usize,
    );
    let text = match &*db.file_text(source.file) {
        FileText::Bytes(b) => TextSlice::new(b, start, start + len)?,
        FileText::Error { .. } => return None,
    };
    let position = match db.span_mode(()) {
        SpanMode::Relative => None,
        SpanMode::Absolute => Some(start as u32),
    };
    Some(ItemSyntax {
        ast,
        text,
        position,
    })
}

/// An item's syntax as the analyses of that item see it. Under file granularity they
/// also depend on the whole text of the item's file.
fn item_syntax(db: &RillDb, def: DefId) -> Option<ItemAst> {
    if db.granularity(()) == Granularity::File {
        if let Some(source) = db.def_source(def) {
            db.file_text(source.file);
        }
    }
    db.item_ast(def).map(|s| s.ast)
}

/// Where an item is, for reporting its diagnostics: its file and absolute offset.
fn def_anchor(db: &RillDb, def: DefId) -> Option<(PathBuf, u32)> {
    let source = db.def_source(def)?;
    let offsets = db.file_offsets(source.file.clone());
    let offset = offsets.get(source.ordinal as usize).copied().unwrap_or(0);
    Some((source.file, offset))
}

fn module_of(db: &RillDb, def: DefId) -> DefId {
    db.def_info(def)
        .and_then(|d| d.parent)
        .unwrap_or_else(root_def)
}

// ---------------------------------------------------------------------------------------
// Signatures, constants, bodies.

fn none<T>() -> SemaOut<T> {
    SemaOut {
        value: None,
        diagnostics: Vec::new(),
    }
}

pub(super) fn p_fn_sig(db: &RillDb, def: DefId) -> Arc<SemaOut<Arc<FnSig>>> {
    let Some(ItemAst::Fn(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (sig, diagnostics) = typeck::fn_sig(&QEnv::new(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(Arc::new(sig)),
        diagnostics,
    })
}

pub(super) fn p_struct_fields(db: &RillDb, def: DefId) -> Arc<SemaOut<Arc<StructFields>>> {
    let Some(ItemAst::Struct(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (fields, diagnostics) = typeck::struct_fields(&QEnv::new(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(Arc::new(fields)),
        diagnostics,
    })
}

pub(super) fn p_alias_ty(db: &RillDb, def: DefId) -> Arc<SemaOut<Ty>> {
    let Some(ItemAst::TypeAlias(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (ty, diagnostics) = typeck::alias_ty(&QEnv::new(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(ty),
        diagnostics,
    })
}

pub(super) fn p_const_ty(db: &RillDb, def: DefId) -> Arc<SemaOut<Ty>> {
    let Some(ItemAst::Const(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (ty, diagnostics) = typeck::const_ty(&QEnv::new(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(ty),
        diagnostics,
    })
}

pub(super) fn p_const_value(db: &RillDb, def: DefId) -> Arc<SemaOut<Arc<ConstValue>>> {
    let Some(ItemAst::Const(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let mut diagnostics = Vec::new();
    let value = recipe::const_value(&QEnv::new(db), def, module_of(db, def), &ast, &mut |d| {
        diagnostics.extend(d)
    });
    Arc::new(SemaOut {
        value: value.ok().map(Arc::new),
        diagnostics,
    })
}

pub(super) fn p_check_struct(db: &RillDb, def: DefId) -> Arc<Vec<Diagnostic>> {
    let Some(ItemAst::Struct(ast)) = item_syntax(db, def) else {
        return Arc::new(Vec::new());
    };
    Arc::new(typeck::check_struct(&QEnv::new(db), def, &ast))
}

pub(super) fn p_typeck(db: &RillDb, def: DefId) -> Option<Arc<TypeckOut>> {
    let Some(ItemAst::Fn(ast)) = item_syntax(db, def) else {
        return None;
    };
    let result = typeck::typeck_fn(&QEnv::new(db), def, module_of(db, def), &ast);
    Some(Arc::new(TypeckOut {
        thir: result.thir,
        diagnostics: result.diagnostics,
    }))
}

pub(super) fn p_typeck_diagnostics(db: &RillDb, def: DefId) -> Arc<Vec<Diagnostic>> {
    Arc::new(
        db.typeck(def)
            .map(|t| t.diagnostics.clone())
            .unwrap_or_default(),
    )
}

// ---------------------------------------------------------------------------------------
// Cycles: rustc's E0391, reported once, at the query that was read again.

/// The queries of the recipe's item steps, the only queries a cycle goes through (an
/// item's steps read other items only through these).
trait StepQuery: Query<Db = RillDb, Key = DefId> {
    const STEP: Step;
}

impl StepQuery for rq::fn_sig {
    const STEP: Step = Step::FnSig;
}

impl StepQuery for rq::struct_fields {
    const STEP: Step = Step::StructFields;
}

impl StepQuery for rq::alias_ty {
    const STEP: Step = Step::AliasTy;
}

impl StepQuery for rq::const_ty {
    const STEP: Step = Step::ConstTy;
}

impl StepQuery for rq::const_value {
    const STEP: Step = Step::ConstValue;
}

/// The step and item of a cycle frame (`None`: not a step's query).
fn frame_step(db: &RillDb, frame: &CycleFrame) -> Option<(Step, DefId)> {
    fn step<Q: StepQuery>(db: &RillDb, frame: &CycleFrame) -> Option<(Step, DefId)> {
        Some((Q::STEP, frame.key::<Q>(db)?))
    }
    step::<rq::fn_sig>(db, frame)
        .or_else(|| step::<rq::struct_fields>(db, frame))
        .or_else(|| step::<rq::alias_ty>(db, frame))
        .or_else(|| step::<rq::const_ty>(db, frame))
        .or_else(|| step::<rq::const_value>(db, frame))
}

/// A step's value on a cycle (the engine gives every participant its fallback, with the
/// last cycle found through it): no value, and the diagnostics of the recipe's rule for
/// cycles, E0391 if `Q(def)` is the query that was read again, nothing otherwise.
fn cycle_out<Q: StepQuery, T>(db: &RillDb, cycle: &Cycle, def: &DefId) -> SemaOut<T> {
    db.host.cycles.set(db.host.cycles.get() + 1);
    let frames: Vec<(Step, DefId)> = cycle
        .frames
        .iter()
        .filter_map(|f| frame_step(db, f))
        .collect();
    let span = db.def_info(*def).map(|d| d.name_span).unwrap_or_default();
    let def_path = |d| db.def_info(d).map(|info| info.path.clone());
    SemaOut {
        value: None,
        diagnostics: recipe::on_cycle(&frames, Q::STEP, *def, span, &def_path),
    }
}

/// An item's def-path, as the engine's descriptions of a cycle show the item.
pub(super) fn def_path(db: &RillDb, def: &DefId) -> String {
    db.def_info(*def)
        .map_or_else(|| format!("{def:?}"), |d| d.path.to_string())
}

pub(super) fn cycle_fn_sig(db: &RillDb, c: &Cycle, def: &DefId) -> Arc<SemaOut<Arc<FnSig>>> {
    Arc::new(cycle_out::<rq::fn_sig, _>(db, c, def))
}

pub(super) fn cycle_struct_fields(
    db: &RillDb,
    c: &Cycle,
    def: &DefId,
) -> Arc<SemaOut<Arc<StructFields>>> {
    Arc::new(cycle_out::<rq::struct_fields, _>(db, c, def))
}

pub(super) fn cycle_alias_ty(db: &RillDb, c: &Cycle, def: &DefId) -> Arc<SemaOut<Ty>> {
    Arc::new(cycle_out::<rq::alias_ty, _>(db, c, def))
}

pub(super) fn cycle_const_ty(db: &RillDb, c: &Cycle, def: &DefId) -> Arc<SemaOut<Ty>> {
    Arc::new(cycle_out::<rq::const_ty, _>(db, c, def))
}

pub(super) fn cycle_const_value(
    db: &RillDb,
    c: &Cycle,
    def: &DefId,
) -> Arc<SemaOut<Arc<ConstValue>>> {
    Arc::new(cycle_out::<rq::const_value, _>(db, c, def))
}

// ---------------------------------------------------------------------------------------
// The entry point and the crate's diagnostics.

pub(super) fn p_main_fn(db: &RillDb, (): ()) -> Option<DefId> {
    entry::find_main(&QEnv::new(db), root_def(), &|def| db.def_info(def)?.parent)
}

pub(super) fn p_check_main(db: &RillDb, (): ()) -> Arc<Vec<PDiag>> {
    let mut out = Vec::new();
    match db.main_fn(()) {
        None => {
            let root = db.crate_root(());
            let text = db.file_text(root.clone());
            // The pipeline points into the root file only when it was parsed (read, not
            // too large, valid UTF-8).
            let text = match &*text {
                FileText::Bytes(b) if b.len() <= MAX_FILE_SIZE => std::str::from_utf8(b).ok(),
                _ => None,
            };
            let diag = entry::missing_main(&root, text);
            out.push(PDiag::from_relative(&diag, &root, 0));
        }
        Some(main) => {
            let name_span = || db.def_info(main).map(|d| d.name_span);
            if let Some(diag) = entry::check_main(&QEnv::new(db), main, &name_span) {
                if let Some((file, offset)) = def_anchor(db, main) {
                    out.push(PDiag::from_relative(&diag, &file, offset));
                }
            }
        }
    }
    Arc::new(out)
}

/// Appends diagnostics relative to `def`, anchored where `def` is now.
fn push_relative(db: &RillDb, out: &mut Vec<PDiag>, def: DefId, diags: &[Diagnostic]) {
    if diags.is_empty() {
        return;
    }
    let (file, offset) = def_anchor(db, def).unwrap_or_default();
    out.extend(diags.iter().map(|d| PDiag::from_relative(d, &file, offset)));
}

/// The phase of the canonical order a check belongs to.
fn phase_of(check: Check) -> DiagPhase {
    match check {
        Check::Step(Step::ConstValue) => DiagPhase::Value,
        Check::Typeck => DiagPhase::Body,
        Check::Step(_) | Check::CheckStruct => DiagPhase::Signature,
    }
}

/// The diagnostics of the checks of one file's items, in the canonical order of the
/// file's items, anchored in the file (every item's diagnostics are relative to the
/// item). A change of one item's diagnostics re-executes its file's aggregate only.
pub(super) fn p_file_diagnostics(db: &RillDb, file: PathBuf) -> Arc<FileDiagnostics> {
    let tree = db.module_tree(());
    let lists: Vec<_> = tree
        .file_modules(&file)
        .map(|m| db.module_defs(m))
        .collect();
    let defs = lists.iter().flat_map(|l| l.iter().copied());
    let mut found: Vec<(DiagPhase, DefId, Vec<PDiag>)> = Vec::new();
    for origin in recipe::canonical_order(defs) {
        let Origin::Item(check, def) = origin else {
            continue;
        };
        let mut diags = Vec::new();
        let out = &mut diags;
        match check {
            Check::Step(Step::FnSig) => push_relative(db, out, def, &db.fn_sig(def).diagnostics),
            Check::Step(Step::StructFields) => {
                push_relative(db, out, def, &db.struct_fields(def).diagnostics)
            }
            Check::Step(Step::AliasTy) => {
                push_relative(db, out, def, &db.alias_ty(def).diagnostics)
            }
            Check::Step(Step::ConstTy) => {
                push_relative(db, out, def, &db.const_ty(def).diagnostics)
            }
            Check::Step(Step::ConstValue) => {
                push_relative(db, out, def, &db.const_value(def).diagnostics)
            }
            Check::CheckStruct => push_relative(db, out, def, &db.check_struct(def)),
            Check::Typeck => push_relative(db, out, def, &db.typeck_diagnostics(def)),
        }
        if diags.is_empty() {
            continue;
        }
        // An item's checks of one phase are consecutive (a struct's fields, then its
        // structural check).
        let phase = phase_of(check);
        match found.last_mut() {
            Some((p, d, list)) if *p == phase && *d == def => list.extend(diags),
            _ => found.push((phase, def, diags)),
        }
    }
    Arc::new(FileDiagnostics { found })
}

/// Every diagnostic of the crate: the structure's, then the rest in the recipe's
/// canonical order (the pipeline's too), merged from the files' aggregates: the crate's
/// items are read only when some file has diagnostics, to place them.
pub(super) fn p_crate_diagnostics(db: &RillDb, (): ()) -> Arc<Vec<PDiag>> {
    let mut out: Vec<PDiag> = db.structure_diagnostics(()).to_vec();
    if db.crate_fatal(()).is_some() {
        return Arc::new(out);
    }
    let per_file: Vec<Arc<FileDiagnostics>> = db
        .crate_files(())
        .iter()
        .map(|file| db.file_diagnostics(file.clone()))
        .collect();
    let mut found: rustc_hash::FxHashMap<(DiagPhase, DefId), &[PDiag]> = per_file
        .iter()
        .flat_map(|f| &f.found)
        .map(|(phase, def, diags)| ((*phase, *def), diags.as_slice()))
        .collect();
    if found.is_empty() {
        out.extend(db.check_main(()).iter().cloned());
        return Arc::new(out);
    }
    let defs = db.crate_defs(());
    for origin in recipe::canonical_order(defs.iter().copied()) {
        match origin {
            Origin::Main => out.extend(db.check_main(()).iter().cloned()),
            Origin::Item(check, def) => {
                if let Some(diags) = found.remove(&(phase_of(check), def)) {
                    out.extend(diags.iter().cloned());
                }
            }
        }
    }
    Arc::new(out)
}

// ---------------------------------------------------------------------------------------
// Code.

/// Lowering and optimizing in one query: the raw IR would never be hashed (cutoff happens
/// on the optimized IR), and keeping it would double the IR held in memory.
pub(super) fn p_optimize(db: &RillDb, def: DefId) -> Option<Arc<IrFunction>> {
    let body = db.typeck(def)?;
    let name = db.def_info(def)?.path.text();
    let ir = lower_fn(&QEnv::new(db), def, name, &body.thir);
    Some(Arc::new(opt::optimize_in_place(ir)))
}

pub(super) fn p_codegen(db: &RillDb, def: DefId) -> Option<Arc<backend::CodeBlob>> {
    let ir = db.optimize(def)?;
    Some(Arc::new(backend::codegen(&ir)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, Goal, Session};
    use shared_frontend::sema::modules::MemLoader;

    #[test]
    fn an_items_text_is_a_range_of_its_files_text_not_a_copy() {
        // `big.rs` is split into chunks (over `SPLIT_MIN_BYTES`), `main.rs` parsed whole:
        // both ways of finding an item's syntax.
        let big: String = (0..1200)
            .map(|i| format!("pub fn f{i}(x: i32) -> i32 {{ x + {i} }}\n"))
            .collect();
        assert!(big.len() >= SPLIT_MIN_BYTES);
        let main =
            "mod big;\nfn g(x: i32) -> i32 { x }\nfn main() { println!(\"{}\", big::f7(g(1))); }\n";
        let loader = Arc::new(MemLoader::new([
            ("main.rs", main),
            ("big.rs", big.as_str()),
        ]));
        let options = BuildOptions::default();
        let session = Session::new(loader, Path::new("main.rs"), Goal::Check, options);
        let db = &session.db;
        assert!(db.crate_diagnostics(()).is_empty());
        assert!(db.file_split_clean(PathBuf::from("big.rs")));
        assert!(!db.file_split_clean(PathBuf::from("main.rs")));
        let mut fns = 0;
        for (def, kind) in db.crate_defs(()).iter() {
            if *kind != DefKind::Fn {
                continue;
            }
            let source = db.def_source(*def).expect("a source");
            let syntax = db.item_ast(*def).expect("a function's syntax");
            let FileText::Bytes(file) = &*db.file_text(source.file.clone()) else {
                panic!("{} is readable", source.file.display());
            };
            let text = syntax.text.bytes();
            let name = db.def_info(*def).expect("info").name;
            assert!(std::str::from_utf8(text)
                .expect("UTF-8")
                .contains(&format!("fn {name}(")));
            // The text lies inside the file's own buffer.
            let (lo, hi) = (file.as_ptr() as usize, file.as_ptr() as usize + file.len());
            let at = text.as_ptr() as usize;
            assert!(
                lo <= at && at + text.len() <= hi,
                "{name}: a copy of the text"
            );
            fns += 1;
        }
        assert_eq!(fns, 1202);
        // Equal texts are equal syntax wherever their bytes are.
        let a = TextSlice::new(&Arc::from(&b"fn a() {}"[..]), 0, 9).expect("in range");
        let b = TextSlice::new(&Arc::from(&b"// x\nfn a() {}"[..]), 5, 14).expect("in range");
        assert_eq!(a.bytes(), b.bytes());
        assert!(TextSlice::new(&Arc::from(&b"fn"[..]), 1, 3).is_none());
    }

    #[test]
    fn a_cycle_is_reported_once_from_typed_frames_and_described_by_def_path() {
        let src =
            "mod m {\n    pub const A: i32 = B;\n    pub const B: i32 = A;\n}\nfn main() {}\n";
        let loader = Arc::new(MemLoader::new([("main.rs", src)]));
        let options = BuildOptions::default();
        let session = Session::new(loader, Path::new("main.rs"), Goal::Check, options);
        let db = &session.db;
        let def = |path: &str| {
            let defs = db.crate_defs(());
            let found = defs
                .iter()
                .find(|(d, _)| db.def_info(*d).is_some_and(|i| i.path.to_string() == path));
            found.expect("the item exists").0
        };
        let (a, b) = (def("crate::m::A"), def("crate::m::B"));
        // A is read again (A → B → A): the diagnostic is A's, B's value is silent.
        let value_a = db.const_value(a);
        assert_eq!(value_a.value, None);
        let [diag] = value_a.diagnostics.as_slice() else {
            panic!("one diagnostic: {:?}", value_a.diagnostics);
        };
        assert_eq!(
            diag.message,
            "cycle detected when simplifying constant for the type system `m::A`"
        );
        assert_eq!(
            diag.notes,
            [
                "note: ...which requires simplifying constant for the type system `m::B`...",
                "note: ...which again requires simplifying constant for the type system `m::A`, \
                 completing the cycle",
            ]
        );
        let value_b = db.const_value(b);
        assert_eq!((&value_b.value, value_b.diagnostics.len()), (&None, 0));
        // The engine's own description of the cycle uses the same words and def-paths.
        assert_eq!(
            <rq::const_value as Query>::DESCRIPTION,
            Step::ConstValue.description()
        );
        let describe_key = <rq::const_value as Query>::DESCRIBE_KEY.expect("set in the table");
        assert_eq!(describe_key(db, &a), "crate::m::A");
    }
}
