//! The pipeline's [`SemaEnv`]: whole-crate tables, filled on first use.
//!
//! Each table entry is computed once per run by the same frontend function the query
//! driver calls as a provider (the steps of `sema::recipe`). Re-entering an entry that is
//! still being computed is a cycle (`const A: i32 = B; const B: i32 = A;`): the entries
//! from the re-entered one to the innermost are its participants, and each, once
//! computed, follows the recipe's rule for cycles (`recipe::on_cycle`): it yields
//! `ErrorReported`, its own diagnostics are dropped, and the re-entered one reports the
//! cycle once, naming every item on it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use shared_frontend::diag::Diagnostic;
use shared_frontend::intern::Symbol;
use shared_frontend::ir::layout::StructLayout;
use shared_frontend::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use shared_frontend::sema::env::{ErrorReported, PathSource, SemaEnv};
use shared_frontend::sema::items::{ItemAst, ItemTree};
use shared_frontend::sema::recipe::{self, Check, Origin, Step};
use shared_frontend::sema::resolve::{self, ResolvedCrate};
use shared_frontend::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use shared_frontend::sema::typeck;
use shared_frontend::syntax::ast::{PathRef, PathSegment, PathSegmentKind};

/// Paths of at most this many segments are memoized in [`Tables::paths`].
const SHORT_PATH_LEN: usize = 4;

/// Longer paths of at most this many segments are memoized in [`Tables::long_paths`];
/// longer still, rare in practice, are resolved every time. Generated crates name items
/// through paths of up to 8 segments (`super::super::a::b::c::X`); one in ten has 5 or
/// more.
const LONG_PATH_LEN: usize = 8;

/// A path as resolution sees it: the module it is written in, where it is written, and
/// its segments without their spans (which only diagnostics use), so that it hashes and
/// compares as a few plain words. A segment is a symbol in `segs` and a 2-bit kind in
/// `tag` (a name, `crate`, `self`, `super`); a keyword's symbol, and every symbol past
/// the path's length, is [`Tables::filler`]. `N` is the most segments a key holds (at
/// most [`LONG_PATH_LEN`], so that the tag has room for every kind).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PathKey<const N: usize> {
    from: DefId,
    /// The source (2 bits), the length (4 bits) and the segments' kinds (2 bits each).
    tag: u32,
    segs: [Symbol; N],
}

impl<const N: usize> PathKey<N> {
    /// The key of a path of at most `N` segments `segs`.
    #[inline]
    fn new(filler: Symbol, from: DefId, segs: &[PathSegment], source: PathSource) -> PathKey<N> {
        debug_assert!(segs.len() <= N && N <= LONG_PATH_LEN);
        let mut syms = [filler; N];
        let mut tag = source as u32 | (segs.len() as u32) << 2;
        for (i, (k, s)) in syms.iter_mut().zip(segs).enumerate() {
            let kind = match s.kind {
                PathSegmentKind::Name(name) => {
                    *k = name;
                    0
                }
                PathSegmentKind::Crate => 1,
                PathSegmentKind::SelfMod => 2,
                PathSegmentKind::Super => 3,
            };
            tag |= kind << (6 + 2 * i);
        }
        PathKey {
            from,
            tag,
            segs: syms,
        }
    }
}

enum Entry<T> {
    InProgress,
    Done(Result<T, ErrorReported>),
}

type Memo<T> = RefCell<FxHashMap<DefId, Entry<T>>>;

/// An empty table with room for `n` entries.
fn memo<K, V>(n: usize) -> RefCell<FxHashMap<K, V>> {
    RefCell::new(FxHashMap::with_capacity_and_hasher(n, Default::default()))
}

pub struct Tables<'a> {
    /// The item tree, owned so that the pipeline can release each function's syntax
    /// once its body is type-checked ([`Tables::release_syntax`]).
    tree: ItemTree,
    resolved: &'a ResolvedCrate,
    fn_sigs: Memo<Arc<FnSig>>,
    struct_fields: Memo<Arc<StructFields>>,
    alias_tys: Memo<Ty>,
    const_tys: Memo<Ty>,
    const_values: Memo<Arc<ConstValue>>,
    /// Successful path resolutions. Resolution reads only the item tree and the resolved
    /// imports, so its answer for a key never changes; bodies name the same items over
    /// and over. Failures are not kept: their diagnostics carry the path's spans.
    paths: RefCell<FxHashMap<PathKey<SHORT_PATH_LEN>, Res>>,
    /// The same for paths longer than [`SHORT_PATH_LEN`], so that the short paths' keys
    /// stay small.
    long_paths: RefCell<FxHashMap<PathKey<LONG_PATH_LEN>, Res>>,
    /// The same for paths of one plain name (most paths in bodies), with a key that is
    /// cheaper to hash and compare.
    names: RefCell<FxHashMap<(DefId, Symbol, PathSource), Res>>,
    /// The symbol in a [`PathKey`] where a segment has none (`crate`'s, interned by the
    /// item tree for the root already).
    filler: Symbol,
    /// [`SemaEnv::lookup_name`]'s answers, found or not (no diagnostic is involved).
    lookups: RefCell<FxHashMap<(DefId, Symbol, Namespace), Option<Res>>>,
    /// Every name some module binds in the value namespace: any other name is found in
    /// no scope, which answers most lookups (of names for new local variables) at once.
    value_names: FxHashSet<Symbol>,
    /// Exact struct layouts (see `LayoutCache`), so that each is computed once per run
    /// rather than once per body that uses it.
    struct_layouts: RefCell<FxHashMap<DefId, Arc<StructLayout>>>,
    /// The entries being computed, innermost last: the cycle when one is re-entered.
    active: RefCell<Vec<Active>>,
    /// Anchored diagnostics by where they were found, emitted in the canonical order of
    /// [`Tables::take_diagnostics`] whatever the order the entries were filled in.
    diagnostics: RefCell<FxHashMap<Origin, Vec<Diagnostic>>>,
}

/// An entry being computed.
struct Active {
    step: Step,
    def: DefId,
    /// The last cycle found through this entry so far, as (step, item) frames starting
    /// with the re-entered one.
    cycle: Option<Rc<[(Step, DefId)]>>,
}

/// Every name bound in some module's value namespace.
fn value_names(resolved: &ResolvedCrate) -> FxHashSet<Symbol> {
    let scopes = resolved.scopes.values();
    let mut names = FxHashSet::with_capacity_and_hasher(
        scopes.clone().map(|s| s.values.len()).sum(),
        Default::default(),
    );
    for scope in scopes {
        names.extend(scope.values.keys().copied());
    }
    names
}

impl<'a> Tables<'a> {
    pub fn new(tree: ItemTree, resolved: &'a ResolvedCrate) -> Tables<'a> {
        let count = |kind: DefKind| tree.defs().iter().filter(|d| d.kind == kind).count();
        let fns = count(DefKind::Fn);
        let consts = count(DefKind::Const);
        // Bodies name about three distinct paths per item of the crate (measured on
        // generated crates of 10k and 100k lines), plain names and longer paths about
        // evenly: room for both without growing.
        let items = tree.defs().len();
        let (structs, aliases) = (count(DefKind::Struct), count(DefKind::TypeAlias));
        Tables {
            tree,
            resolved,
            fn_sigs: memo(fns),
            struct_fields: memo(structs),
            alias_tys: memo(aliases),
            const_tys: memo(consts),
            const_values: memo(consts),
            paths: memo(2 * items),
            long_paths: memo(items / 4),
            names: memo(2 * items),
            filler: Symbol::intern("crate"),
            lookups: memo(items),
            value_names: value_names(resolved),
            struct_layouts: Default::default(),
            active: Default::default(),
            diagnostics: Default::default(),
        }
    }

    /// The crate's item tree.
    pub fn tree(&self) -> &ItemTree {
        &self.tree
    }

    /// Takes the syntax of the `index`-th def of the tree out of it
    /// ([`ItemTree::release_syntax`]). Only for syntax nothing reads again: a function's
    /// once its signature is known (every signature is collected before any body is
    /// checked), a module's once the tree is built.
    pub fn release_syntax(&mut self, index: usize) -> ItemAst {
        self.tree.release_syntax(index)
    }

    /// Records diagnostics of `check` whose spans are relative to item `def`.
    pub fn report(&self, check: Check, def: DefId, diags: Vec<Diagnostic>) {
        if diags.is_empty() {
            return;
        }
        let (file, offset) = match self.tree.def(def) {
            Some(d) => (d.file, d.offset),
            None => (shared_frontend::span::FileId(0), 0),
        };
        self.diagnostics
            .borrow_mut()
            .entry(Origin::Item(check, def))
            .or_default()
            .extend(diags.into_iter().map(|d| d.anchor(file, offset)));
    }

    /// Records a diagnostic about the entry point (anchored, or without position).
    pub fn report_main(&self, diag: Diagnostic) {
        self.diagnostics
            .borrow_mut()
            .entry(Origin::Main)
            .or_default()
            .push(diag);
    }

    /// Every diagnostic so far, in the canonical order ([`recipe::canonical_order`]).
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        let mut found = std::mem::take(&mut *self.diagnostics.borrow_mut());
        let defs = self.tree.defs().iter().map(|d| (d.id, d.kind));
        recipe::canonical_order(defs)
            .filter_map(|origin| found.remove(&origin))
            .flatten()
            .collect()
    }

    fn memo<T: Clone>(
        &self,
        memo: &Memo<T>,
        step: Step,
        def: DefId,
        compute: impl FnOnce() -> Result<T, ErrorReported>,
    ) -> Result<T, ErrorReported> {
        match memo.borrow().get(&def) {
            Some(Entry::Done(v)) => return v.clone(),
            Some(Entry::InProgress) => {
                self.report_cycle(step, def);
                return Err(ErrorReported);
            }
            None => {}
        }
        memo.borrow_mut().insert(def, Entry::InProgress);
        self.active.borrow_mut().push(Active {
            step,
            def,
            cycle: None,
        });
        let value = compute();
        let frame = self.active.borrow_mut().pop();
        let value = match frame.and_then(|f| f.cycle) {
            Some(cycle) => {
                self.finish_on_cycle(&cycle, step, def);
                Err(ErrorReported)
            }
            None => value,
        };
        memo.borrow_mut().insert(def, Entry::Done(value.clone()));
        value
    }

    /// Entry `(step, def)` was re-entered: marks every entry from it to the innermost
    /// with the cycle they form.
    #[inline(never)]
    fn report_cycle(&self, step: Step, def: DefId) {
        let mut active = self.active.borrow_mut();
        let start = active
            .iter()
            .rposition(|f| (f.step, f.def) == (step, def))
            .unwrap_or(0);
        let cycle: Rc<[(Step, DefId)]> = active[start..].iter().map(|f| (f.step, f.def)).collect();
        for frame in &mut active[start..] {
            frame.cycle = Some(cycle.clone());
        }
    }

    /// Entry `(step, def)`, computed, was on `cycle`: its diagnostics are the recipe's.
    #[inline(never)]
    fn finish_on_cycle(&self, cycle: &[(Step, DefId)], step: Step, def: DefId) {
        self.diagnostics
            .borrow_mut()
            .remove(&Origin::Item(Check::Step(step), def));
        let diags = recipe::on_cycle(
            cycle,
            step,
            def,
            self.tree.def(def).map(|d| d.name_span).unwrap_or_default(),
            &|d| self.tree.def(d).map(|d| d.path.clone()),
        );
        self.report(Check::Step(step), def, diags);
    }

    /// Path resolution's view of the crate.
    fn scopes(&self) -> resolve::CrateScopes<'_> {
        resolve::CrateScopes {
            tree: &self.tree,
            resolved: self.resolved,
        }
    }

    /// [`SemaEnv::resolve_path_as`] for a path not resolved before (or not memoized):
    /// resolves it and remembers a success.
    #[inline(never)]
    fn resolve_path_cold(
        &self,
        from: DefId,
        path: PathRef<'_>,
        source: PathSource,
    ) -> Result<Res, Diagnostic> {
        let res = resolve::resolve_path_as(&self.scopes(), from, path, source)?;
        if let [seg] = path.segments {
            if let PathSegmentKind::Name(name) = seg.kind {
                self.names.borrow_mut().insert((from, name, source), res);
                return Ok(res);
            }
        }
        let segs = path.segments;
        if segs.len() <= SHORT_PATH_LEN {
            let key = PathKey::new(self.filler, from, segs, source);
            self.paths.borrow_mut().insert(key, res);
        } else if segs.len() <= LONG_PATH_LEN {
            let key = PathKey::new(self.filler, from, segs, source);
            self.long_paths.borrow_mut().insert(key, res);
        }
        Ok(res)
    }

    /// A path longer than [`SHORT_PATH_LEN`] resolved before, if it is memoized.
    #[inline(never)]
    fn long_path(&self, from: DefId, segs: &[PathSegment], source: PathSource) -> Option<Res> {
        if segs.len() > LONG_PATH_LEN {
            return None;
        }
        let key = PathKey::new(self.filler, from, segs, source);
        self.long_paths.borrow().get(&key).copied()
    }

    fn module_of(&self, def: DefId) -> DefId {
        self.tree.parent(def).unwrap_or(self.tree.root)
    }

    /// Structural checks of a struct (recursive types, size limit), reported once.
    pub fn check_struct(&self, def: DefId) {
        if let Some(ItemAst::Struct(ast)) = self.tree.def(def).map(|d| &d.ast) {
            let diags = typeck::check_struct(self, def, ast);
            self.report(Check::CheckStruct, def, diags);
        }
    }
}

impl SemaEnv for Tables<'_> {
    #[inline]
    fn resolve_path(
        &self,
        from: DefId,
        path: PathRef<'_>,
        ns: Namespace,
    ) -> Result<Res, Diagnostic> {
        let source = match ns {
            Namespace::Type => PathSource::Type,
            Namespace::Value => PathSource::Value,
        };
        self.resolve_path_as(from, path, source)
    }

    fn resolve_path_as(
        &self,
        from: DefId,
        path: PathRef<'_>,
        source: PathSource,
    ) -> Result<Res, Diagnostic> {
        let known = match path.segments {
            [seg] => match seg.kind {
                PathSegmentKind::Name(name) => {
                    self.names.borrow().get(&(from, name, source)).copied()
                }
                _ => None,
            },
            segs if segs.len() <= SHORT_PATH_LEN => {
                let key = PathKey::new(self.filler, from, segs, source);
                self.paths.borrow().get(&key).copied()
            }
            segs => self.long_path(from, segs, source),
        };
        match known {
            Some(res) => Ok(res),
            None => self.resolve_path_cold(from, path, source),
        }
    }

    fn lookup_name(&self, from: DefId, name: Symbol, ns: Namespace) -> Option<Res> {
        if ns == Namespace::Value && !self.value_names.contains(&name) {
            return None;
        }
        let key = (from, name, ns);
        if let Some(&res) = self.lookups.borrow().get(&key) {
            return res;
        }
        let res = resolve::lookup_name(&self.scopes(), from, name, ns);
        self.lookups.borrow_mut().insert(key, res);
        res
    }

    fn is_accessible(&self, vis: Vis, from: DefId) -> bool {
        self.tree.is_accessible(vis, from)
    }

    fn visibility(&self, def: DefId) -> Vis {
        self.tree.def(def).map(|d| d.vis).unwrap_or(Vis::Public)
    }

    fn def_kind(&self, def: DefId) -> DefKind {
        self.tree.def(def).map(|d| d.kind).unwrap_or(DefKind::Mod)
    }

    fn def_name(&self, def: DefId) -> String {
        // rustc prints items by their shortest unambiguous name, which is their own name
        // in all but contrived programs.
        self.tree
            .def(def)
            .map(|d| d.name.to_string())
            .unwrap_or_default()
    }

    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        self.memo(&self.fn_sigs, Step::FnSig, def, || {
            let Some(ItemAst::Fn(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (sig, diags) = typeck::fn_sig(self, self.module_of(def), ast);
            self.report(Check::Step(Step::FnSig), def, diags);
            Ok(Arc::new(sig))
        })
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.memo(&self.struct_fields, Step::StructFields, def, || {
            let Some(ItemAst::Struct(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (fields, diags) = typeck::struct_fields(self, self.module_of(def), ast);
            self.report(Check::Step(Step::StructFields), def, diags);
            Ok(Arc::new(fields))
        })
    }

    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.memo(&self.alias_tys, Step::AliasTy, def, || {
            let Some(ItemAst::TypeAlias(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (ty, diags) = typeck::alias_ty(self, self.module_of(def), ast);
            self.report(Check::Step(Step::AliasTy), def, diags);
            Ok(ty)
        })
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.memo(&self.const_tys, Step::ConstTy, def, || {
            let Some(ItemAst::Const(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (ty, diags) = typeck::const_ty(self, self.module_of(def), ast);
            self.report(Check::Step(Step::ConstTy), def, diags);
            Ok(ty)
        })
    }

    fn struct_layout(&self, def: DefId) -> Option<Arc<StructLayout>> {
        self.struct_layouts.borrow().get(&def).cloned()
    }

    fn remember_struct_layout(&self, def: DefId, layout: &Arc<StructLayout>) {
        self.struct_layouts
            .borrow_mut()
            .entry(def)
            .or_insert_with(|| layout.clone());
    }

    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        self.memo(&self.const_values, Step::ConstValue, def, || {
            let Some(ItemAst::Const(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let report = &mut |diags| self.report(Check::Step(Step::ConstValue), def, diags);
            recipe::const_value(self, def, self.module_of(def), ast, report).map(Arc::new)
        })
    }
}
