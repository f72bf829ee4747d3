//! A source-driven [`SemaEnv`] for tests: [`TestDriver`] loads a program from memory,
//! builds the item tree, resolves names with the real resolver, and answers `SemaEnv`
//! questions on demand with the frontend's own entry points and the drivers' recipe
//! (`sema::recipe`: memoized, a cycle reported as the drivers report it). What its
//! queries record as diagnostics is a [`Reporting`] option, so each test boundary shows
//! what its snapshots expect.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::items::{ItemAst, ItemTree};
use crate::sema::modules::{load_crate_with, FileLoader, LoadedCrate, MemLoader};
use crate::sema::recipe::{self, Step};
use crate::sema::resolve::{resolve_crate, resolve_path, CrateScopes, ResolvedCrate};
use crate::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use crate::sema::typeck::{alias_ty, const_ty, fn_sig, struct_fields};
use crate::syntax::ast::PathRef;
use crate::syntax::parser::parse_file;

/// What the queries of a [`TestDriver`] record in [`TestDriver::recorded`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reporting {
    /// Nothing: the test checks every item itself.
    Nothing,
    /// Every query records the diagnostics of what it computes, and every cycle, as a
    /// single-run driver.
    Queries,
    /// Only `const_value` records: the constant's type, body and evaluation errors, and a
    /// cycle through it (E0391).
    ConstValues,
}

type Memo<T> = RefCell<FxHashMap<DefId, Result<T, ErrorReported>>>;

pub(crate) struct TestDriver {
    pub(crate) krate: LoadedCrate,
    pub(crate) tree: ItemTree,
    pub(crate) resolved: ResolvedCrate,
    reporting: Reporting,
    sigs: Memo<Arc<FnSig>>,
    fields: Memo<Arc<StructFields>>,
    aliases: Memo<Ty>,
    const_tys: Memo<Ty>,
    values: Memo<Arc<ConstValue>>,
    /// The steps being computed, innermost last: the cycle when one is re-entered.
    active: RefCell<Vec<(Step, DefId)>>,
    /// What the queries recorded, anchored, in the order they recorded it.
    recorded: RefCell<Vec<Diagnostic>>,
}

impl TestDriver {
    /// The driver of one file `main.rs` with text `src`.
    pub(crate) fn new(src: &str, reporting: Reporting) -> TestDriver {
        let loader = MemLoader::new([("main.rs", src)]);
        TestDriver::with_loader(&loader, Path::new("main.rs"), reporting)
    }

    pub(crate) fn with_loader(
        loader: &dyn FileLoader,
        root: &Path,
        reporting: Reporting,
    ) -> TestDriver {
        let krate = load_crate_with(loader, root, &parse_file);
        let tree = ItemTree::build(&krate);
        let resolved = resolve_crate(&tree);
        TestDriver {
            krate,
            tree,
            resolved,
            reporting,
            sigs: Memo::default(),
            fields: Memo::default(),
            aliases: Memo::default(),
            const_tys: Memo::default(),
            values: Memo::default(),
            active: RefCell::default(),
            recorded: RefCell::default(),
        }
    }

    /// The diagnostics of loading, the item tree and name resolution, in that order.
    pub(crate) fn front_diagnostics(&self) -> Vec<Diagnostic> {
        let krate = &self.krate.diagnostics;
        let resolved = &self.resolved.diagnostics;
        krate
            .iter()
            .chain(&self.tree.diagnostics)
            .chain(resolved)
            .cloned()
            .collect()
    }

    /// What the queries recorded so far (see [`Reporting`]).
    pub(crate) fn recorded(&self) -> Vec<Diagnostic> {
        self.recorded.borrow().clone()
    }

    pub(crate) fn module_of(&self, def: DefId) -> DefId {
        self.tree.parent(def).unwrap_or(self.tree.root)
    }

    /// Makes a relative diagnostic of item `def` absolute.
    pub(crate) fn anchor(&self, def: DefId, d: Diagnostic) -> Diagnostic {
        match self.tree.def(def) {
            Some(data) => d.anchor(data.file, data.offset),
            None => d,
        }
    }

    fn ast(&self, def: DefId) -> Option<&ItemAst> {
        self.tree.def(def).map(|d| &d.ast)
    }

    /// Records diagnostics of item `def`, anchored.
    pub(crate) fn record(&self, def: DefId, diags: Vec<Diagnostic>) {
        let anchored = diags.into_iter().map(|d| self.anchor(def, d));
        self.recorded.borrow_mut().extend(anchored);
    }

    /// Records the diagnostics of an item query when every query records.
    fn record_query(&self, def: DefId, diags: Vec<Diagnostic>) {
        if self.reporting == Reporting::Queries {
            self.record(def, diags);
        }
    }

    fn cached<T: Clone>(
        &self,
        memo: &Memo<T>,
        step: Step,
        def: DefId,
        compute: impl FnOnce() -> Result<T, ErrorReported>,
    ) -> Result<T, ErrorReported> {
        if let Some(v) = memo.borrow().get(&def) {
            return v.clone();
        }
        let start = self.active.borrow().iter().position(|&f| f == (step, def));
        if let Some(start) = start {
            let records = match self.reporting {
                Reporting::Nothing => false,
                Reporting::Queries => true,
                Reporting::ConstValues => step == Step::ConstValue,
            };
            if records {
                let diag = recipe::cycle_error(
                    &self.active.borrow()[start..],
                    self.tree.def(def).map(|d| d.name_span).unwrap_or_default(),
                    &|d| self.tree.def(d).map(|d| d.path.clone()),
                );
                self.record(def, vec![diag]);
            }
            return Err(ErrorReported);
        }
        self.active.borrow_mut().push((step, def));
        let v = compute();
        self.active.borrow_mut().pop();
        memo.borrow_mut().insert(def, v.clone());
        v
    }

    /// Type-checks and evaluates constant `def`, recording what [`Reporting`] asks for.
    fn eval(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        let Some(ItemAst::Const(c)) = self.ast(def) else {
            return Err(ErrorReported);
        };
        let module = self.module_of(def);
        let mut diags = match self.reporting {
            Reporting::ConstValues => const_ty(self, module, c).1,
            Reporting::Nothing | Reporting::Queries => Vec::new(),
        };
        let value = recipe::const_value(self, def, module, c, &mut |found| {
            match self.reporting {
                Reporting::Nothing => {}
                // A single-run driver reports what it finds as it finds it.
                Reporting::Queries => self.record(def, found),
                Reporting::ConstValues => diags.extend(found),
            }
        });
        self.record(def, diags);
        value.map(Arc::new)
    }
}

impl SemaEnv for TestDriver {
    fn resolve_path(
        &self,
        from: DefId,
        path: PathRef<'_>,
        ns: Namespace,
    ) -> Result<Res, Diagnostic> {
        let scopes = CrateScopes {
            tree: &self.tree,
            resolved: &self.resolved,
        };
        resolve_path(&scopes, from, path, ns)
    }

    fn is_accessible(&self, vis: Vis, from: DefId) -> bool {
        self.tree.is_accessible(vis, from)
    }

    fn visibility(&self, def: DefId) -> Vis {
        self.tree.def(def).map_or(Vis::Public, |d| d.vis)
    }

    fn def_kind(&self, def: DefId) -> DefKind {
        self.tree.def(def).map_or(DefKind::Mod, |d| d.kind)
    }

    fn def_name(&self, def: DefId) -> String {
        self.tree.def_name(def)
    }

    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        self.cached(&self.sigs, Step::FnSig, def, || match self.ast(def) {
            Some(ItemAst::Fn(f)) => {
                let (sig, diags) = fn_sig(self, self.module_of(def), f);
                self.record_query(def, diags);
                Ok(Arc::new(sig))
            }
            _ => Err(ErrorReported),
        })
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.cached(&self.fields, Step::StructFields, def, || {
            match self.ast(def) {
                Some(ItemAst::Struct(s)) => {
                    let (fields, diags) = struct_fields(self, self.module_of(def), s);
                    self.record_query(def, diags);
                    Ok(Arc::new(fields))
                }
                _ => Err(ErrorReported),
            }
        })
    }

    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.cached(&self.aliases, Step::AliasTy, def, || match self.ast(def) {
            Some(ItemAst::TypeAlias(a)) => {
                let (ty, diags) = alias_ty(self, self.module_of(def), a);
                self.record_query(def, diags);
                Ok(ty)
            }
            _ => Err(ErrorReported),
        })
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.cached(&self.const_tys, Step::ConstTy, def, || {
            match self.ast(def) {
                Some(ItemAst::Const(c)) => {
                    let (ty, diags) = const_ty(self, self.module_of(def), c);
                    self.record_query(def, diags);
                    Ok(ty)
                }
                _ => Err(ErrorReported),
            }
        })
    }

    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        self.cached(&self.values, Step::ConstValue, def, || self.eval(def))
    }
}
