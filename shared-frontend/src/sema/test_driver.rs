//! A source-driven [`SemaEnv`] for tests: [`TestDriver`] loads a program from memory,
//! builds the item tree, resolves names with the real resolver, and answers `SemaEnv`
//! questions on demand with the frontend's own entry points (memoized, with cycles
//! turned into errors). What its queries record as diagnostics is a [`Reporting`]
//! option, so each test boundary shows what its snapshots expect.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diag::Diagnostic;
use crate::sema::consteval::{eval_const_item, ConstEvalError};
use crate::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::items::{ItemAst, ItemTree};
use crate::sema::modules::{load_crate_with, FileLoader, LoadedCrate, MemLoader};
use crate::sema::resolve::{resolve_crate, resolve_path, CrateScopes, ResolvedCrate};
use crate::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use crate::sema::typeck::{alias_ty, const_ty, fn_sig, struct_fields, typeck_const};
use crate::syntax::ast::Path as AstPath;
use crate::syntax::parser::parse_file;

/// What the queries of a [`TestDriver`] record in [`TestDriver::recorded`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reporting {
    /// Nothing: the test checks every item itself.
    Nothing,
    /// Every query records the diagnostics of what it computes, as a single-run driver.
    Queries,
    /// Only `const_value` records: the constant's type, body and evaluation errors, and a
    /// cycle through it (E0391).
    ConstValues,
}

/// A query of [`SemaEnv`] that computes, to key the cycle check.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Query {
    FnSig,
    StructFields,
    AliasTy,
    ConstTy,
    ConstValue,
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
    /// (query, def) being computed, to turn cycles into errors.
    active: RefCell<FxHashSet<(Query, DefId)>>,
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
        query: Query,
        def: DefId,
        compute: impl FnOnce() -> Result<T, ErrorReported>,
    ) -> Result<T, ErrorReported> {
        if let Some(v) = memo.borrow().get(&def) {
            return v.clone();
        }
        if !self.active.borrow_mut().insert((query, def)) {
            if query == Query::ConstValue && self.reporting == Reporting::ConstValues {
                self.recorded.borrow_mut().push(
                    Diagnostic::error_no_span(format!(
                        "cycle detected when evaluating `{}`",
                        self.def_name(def)
                    ))
                    .with_code("E0391"),
                );
            }
            return Err(ErrorReported);
        }
        let v = compute();
        self.active.borrow_mut().remove(&(query, def));
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
        let r = typeck_const(self, module, c);
        let failed = r.has_errors();
        diags.extend(r.diagnostics);
        if self.reporting == Reporting::Queries {
            // A single-run driver reports the body before evaluating it.
            self.record(def, std::mem::take(&mut diags));
        }
        let value = if failed {
            Err(ErrorReported)
        } else {
            match eval_const_item(self, def, &r.thir) {
                Ok(v) => Ok(Arc::new(v)),
                Err(ConstEvalError::Reported) => Err(ErrorReported),
                Err(ConstEvalError::Error(d)) => {
                    diags.push(d);
                    Err(ErrorReported)
                }
            }
        };
        if self.reporting != Reporting::Nothing {
            self.record(def, diags);
        }
        value
    }
}

impl SemaEnv for TestDriver {
    fn resolve_path(&self, from: DefId, path: &AstPath, ns: Namespace) -> Result<Res, Diagnostic> {
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
        self.cached(&self.sigs, Query::FnSig, def, || match self.ast(def) {
            Some(ItemAst::Fn(f)) => {
                let (sig, diags) = fn_sig(self, self.module_of(def), f);
                self.record_query(def, diags);
                Ok(Arc::new(sig))
            }
            _ => Err(ErrorReported),
        })
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.cached(&self.fields, Query::StructFields, def, || {
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
        self.cached(&self.aliases, Query::AliasTy, def, || match self.ast(def) {
            Some(ItemAst::TypeAlias(a)) => {
                let (ty, diags) = alias_ty(self, self.module_of(def), a);
                self.record_query(def, diags);
                Ok(ty)
            }
            _ => Err(ErrorReported),
        })
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.cached(&self.const_tys, Query::ConstTy, def, || {
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
        self.cached(&self.values, Query::ConstValue, def, || self.eval(def))
    }
}
