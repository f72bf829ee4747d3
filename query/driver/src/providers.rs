//! The providers of the Rill queries: each calls the frontend or backend function the
//! pipeline calls at the same step, on the same inputs.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use shared_frontend::diag::Diagnostic;
use shared_frontend::intern::Symbol;
use shared_frontend::ir::{lower::lower_fn, opt, IrFunction};
use shared_frontend::limits::MAX_FILE_SIZE;
use shared_frontend::sema::def::{DefId, DefKind};
use shared_frontend::sema::entry;
use shared_frontend::sema::items::{ItemAst, ItemTree};
use shared_frontend::sema::modules::{load_crate_parsed, FileLoader, LoadedCrate};
use shared_frontend::sema::recipe::{self, Check, Origin, Step};
use shared_frontend::sema::resolve::{self, NameBindings};
use shared_frontend::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use shared_frontend::sema::typeck;
use shared_frontend::syntax::ast::SourceFileAst;
use shared_frontend::syntax::parser;

use super::env::{root_def, QEnv};
use super::skeleton;
use super::stamp;
use super::values::*;
use super::{rq, RillDb};
use query::{Cycle, CycleFrame, Query};

// ---------------------------------------------------------------------------------------
// Files and the crate's structure.

pub(super) fn p_file_stamp(db: &RillDb, path: PathBuf) -> FileStamp {
    stamp::stamp(db.host.loader.as_deref(), &path, db.host.change_detection)
}

/// The text is read only when the stamp changed (or when a dependent needs the bytes of
/// a file whose text is green from the previous session); a stamp that had to read the
/// file hands over what it read.
pub(super) fn p_file_text(db: &RillDb, path: PathBuf) -> Arc<FileText> {
    let stamp = db.file_stamp(path.clone());
    match stamp.text {
        Some(text) => text,
        None => Arc::new(stamp::read(db.host.loader.as_deref(), &path)),
    }
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

pub(super) fn p_file_skeleton(db: &RillDb, path: PathBuf) -> Arc<Skeleton> {
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

    fn is_file(&self, path: &Path) -> bool {
        self.0.file_text(path.to_path_buf()).is_file()
    }
}

/// The positionless loader: reads only each file's status, so that editing a file's text
/// does not re-run the module loader. A readable file loads as empty text (its skeleton
/// comes from `file_skeleton`); a rejected one as one invalid byte, which the loader
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

/// Stands for a file's parse errors in the positionless def map (their positions are not
/// known there); the positioned def map reports the real ones.
fn parse_error_marker() -> Diagnostic {
    Diagnostic::error_no_span("the file has syntax errors")
}

pub(super) fn p_def_map(db: &RillDb, (): ()) -> Shared<DefMap> {
    let root = db.crate_root(());
    let krate = load_crate_parsed(&StatusLoader(db), &root, &|path, _text| {
        let skeleton = db.file_skeleton(path.to_path_buf());
        let diags = if skeleton.parse_errors {
            vec![parse_error_marker()]
        } else {
            Vec::new()
        };
        (skeleton.ast.clone(), diags)
    });
    def_map_of(krate)
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
/// diagnostics (exactly when the positionless def map has some).
pub(super) fn p_positioned_def_map(db: &RillDb, (): ()) -> Shared<DefMap> {
    let root = db.crate_root(());
    let krate = load_crate_parsed(&QueryLoader(db), &root, &|path, _text| {
        let parsed = db.parse_file(path.to_path_buf());
        (skeleton::strip(&parsed.ast), parsed.diagnostics.clone())
    });
    def_map_of(krate)
}

pub(super) fn p_crate_structure(db: &RillDb, (): ()) -> Arc<CrateStructure> {
    let map = db.def_map(());
    let krate = &map.krate;
    let defs = map
        .tree
        .defs()
        .iter()
        .map(|d| {
            let info = DefInfo {
                kind: d.kind,
                path: d.path.clone(),
                name: d.name,
                parent: d.parent,
                vis: d.vis,
                name_span: d.name_span,
            };
            // In the positionless def map, an item's offset is its ordinal.
            let ordinal = match d.ast {
                ItemAst::Root => u32::MAX,
                _ => d.offset,
            };
            let source = DefSource {
                file: krate.sources.get(d.file).path.clone(),
                ordinal,
            };
            (d.id, info, source)
        })
        .collect();
    let scopes = map
        .tree
        .modules()
        .iter()
        .map(|m| {
            let scope = map.resolved.scopes.get(&m.def).cloned().unwrap_or_default();
            (m.def, scope)
        })
        .collect();
    let files = krate.sources.files.iter().map(|f| f.path.clone()).collect();
    Arc::new(CrateStructure::new(defs, scopes, files))
}

pub(super) fn p_structure_diagnostics(db: &RillDb, (): ()) -> Arc<Vec<PDiag>> {
    let quiet = {
        let map = db.def_map(());
        map.krate.diagnostics.is_empty()
            && map.tree.diagnostics.is_empty()
            && map.resolved.diagnostics.is_empty()
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
    let map = db.def_map(());
    if map.krate.root_unreadable {
        Some(
            map.krate
                .diagnostics
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_default(),
        )
    } else {
        None
    }
}

pub(super) fn p_crate_files(db: &RillDb, (): ()) -> Arc<Vec<PathBuf>> {
    Arc::new(db.crate_structure(()).files.clone())
}

pub(super) fn p_crate_defs(db: &RillDb, (): ()) -> Arc<Vec<(DefId, DefKind)>> {
    Arc::new(
        db.crate_structure(())
            .defs
            .iter()
            .map(|(id, info, _)| (*id, info.kind))
            .collect(),
    )
}

pub(super) fn p_def_shard_count(db: &RillDb, (): ()) -> u32 {
    db.crate_structure(()).def_shards.len() as u32
}

pub(super) fn p_def_shard(db: &RillDb, shard: u32) -> Arc<DefShard> {
    let s = db.crate_structure(());
    s.def_shards
        .get(shard as usize)
        .cloned()
        .unwrap_or_default()
}

pub(super) fn p_scope_shard_count(db: &RillDb, (): ()) -> u32 {
    db.crate_structure(()).scope_shards.len() as u32
}

pub(super) fn p_scope_shard(db: &RillDb, shard: u32) -> Arc<ScopeShard> {
    let s = db.crate_structure(());
    s.scope_shards
        .get(shard as usize)
        .cloned()
        .unwrap_or_default()
}

pub(super) fn p_file_defs(db: &RillDb, file: PathBuf) -> Arc<Vec<FileDef>> {
    let s = db.crate_structure(());
    s.file_defs.get(&file).cloned().unwrap_or_default()
}

/// The shard of the crate's defs that holds `def`, if it is one.
fn shard_with(db: &RillDb, def: DefId) -> Arc<DefShard> {
    db.def_shard(shard_of(def, db.def_shard_count(())))
}

pub(super) fn p_def_info(db: &RillDb, def: DefId) -> Option<Arc<DefInfo>> {
    let shard = shard_with(db, def);
    shard.def(def).map(|(_, info, _)| Arc::new(info.clone()))
}

/// The def's file from its shard, its ordinal from the file's list (which an edit of
/// another file leaves as it was).
pub(super) fn p_def_source(db: &RillDb, def: DefId) -> Option<DefSource> {
    let file = shard_with(db, def).def(def)?.2.clone();
    let ordinal = db
        .file_defs(file.clone())
        .iter()
        .find(|d| d.def == def)?
        .ordinal;
    Some(DefSource { file, ordinal })
}

pub(super) fn p_module_scope(db: &RillDb, module: DefId) -> Option<ScopeValue> {
    let shard = db.scope_shard(shard_of(module, db.scope_shard_count(())));
    shard.scope(module).map(|scope| ScopeValue(scope.clone()))
}

pub(super) fn p_resolve_name(db: &RillDb, (module, name): (DefId, Symbol)) -> NameBindings {
    db.module_scope(module)
        .map(|scope| scope.0.name(name))
        .unwrap_or_default()
}

pub(super) fn p_file_offsets(db: &RillDb, path: PathBuf) -> Arc<Vec<u32>> {
    Arc::new(db.parse_file(path).offsets.clone())
}

/// Modules have no syntax here: nothing reads it, and an inline module's items carry
/// absolute offsets, which its text alone would not determine.
pub(super) fn p_item_ast(db: &RillDb, def: DefId) -> Option<ItemSyntax> {
    let source = db.def_source(def)?;
    if source.ordinal == u32::MAX {
        return None;
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
        FileText::Bytes(b) => Arc::from(b.get(start..start + len)?),
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
    let (sig, diagnostics) = typeck::fn_sig(&QEnv(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(Arc::new(sig)),
        diagnostics,
    })
}

pub(super) fn p_struct_fields(db: &RillDb, def: DefId) -> Arc<SemaOut<Arc<StructFields>>> {
    let Some(ItemAst::Struct(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (fields, diagnostics) = typeck::struct_fields(&QEnv(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(Arc::new(fields)),
        diagnostics,
    })
}

pub(super) fn p_alias_ty(db: &RillDb, def: DefId) -> Arc<SemaOut<Ty>> {
    let Some(ItemAst::TypeAlias(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (ty, diagnostics) = typeck::alias_ty(&QEnv(db), module_of(db, def), &ast);
    Arc::new(SemaOut {
        value: Some(ty),
        diagnostics,
    })
}

pub(super) fn p_const_ty(db: &RillDb, def: DefId) -> Arc<SemaOut<Ty>> {
    let Some(ItemAst::Const(ast)) = item_syntax(db, def) else {
        return Arc::new(none());
    };
    let (ty, diagnostics) = typeck::const_ty(&QEnv(db), module_of(db, def), &ast);
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
    let value = recipe::const_value(&QEnv(db), def, module_of(db, def), &ast, &mut |d| {
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
    Arc::new(typeck::check_struct(&QEnv(db), def, &ast))
}

pub(super) fn p_typeck(db: &RillDb, def: DefId) -> Option<Arc<TypeckOut>> {
    let Some(ItemAst::Fn(ast)) = item_syntax(db, def) else {
        return None;
    };
    let result = typeck::typeck_fn(&QEnv(db), def, module_of(db, def), &ast);
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
    entry::find_main(&QEnv(db), root_def(), &|def| db.def_info(def)?.parent)
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
            if let Some(diag) = entry::check_main(&QEnv(db), main, &name_span) {
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
    let defs = db.file_defs(file);
    let mut found: Vec<(DiagPhase, DefId, Vec<PDiag>)> = Vec::new();
    for origin in recipe::canonical_order(defs.iter().map(|d| (d.def, d.kind))) {
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
    let name = db.def_info(def)?.path.to_string();
    let ir = lower_fn(&QEnv(db), def, name, &body.thir);
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
