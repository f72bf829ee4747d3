//! The pipeline's [`SemaEnv`]: whole-crate tables, filled on first use.
//!
//! Each table entry is computed once per run by the same frontend function the query
//! driver calls as a provider. Re-entering an entry that is still being computed is a
//! cycle (`const A: i32 = B; const B: i32 = A;`): it is reported once, naming every item
//! on the cycle, and every participant yields `ErrorReported`.

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use shared_frontend::diag::Diagnostic;
use shared_frontend::sema::consteval;
use shared_frontend::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use shared_frontend::sema::env::{ErrorReported, PathSource, SemaEnv};
use shared_frontend::sema::items::{ItemAst, ItemTree};
use shared_frontend::sema::resolve::{self, ResolvedCrate};
use shared_frontend::sema::ty::{ConstValue, DisplayTy, FnSig, StructFields, Ty};
use shared_frontend::sema::typeck;
use shared_frontend::syntax::ast::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Table {
    FnSig,
    StructFields,
    AliasTy,
    ConstTy,
    ConstValue,
}

impl Table {
    /// How rustc names the step in cycle errors.
    fn describe(self, name: &str) -> String {
        match self {
            Table::FnSig => format!("computing function signature of `{name}`"),
            Table::StructFields => format!("computing the fields of `{name}`"),
            Table::AliasTy => format!("expanding type alias `{name}`"),
            Table::ConstTy => format!("computing type of `{name}`"),
            Table::ConstValue => format!("simplifying constant for the type system `{name}`"),
        }
    }
}

enum Slot<T> {
    InProgress,
    Done(Result<T, ErrorReported>),
}

type Memo<T> = RefCell<FxHashMap<DefId, Slot<T>>>;

pub struct Tables<'a> {
    tree: &'a ItemTree,
    resolved: &'a ResolvedCrate,
    fn_sigs: Memo<Arc<FnSig>>,
    struct_fields: Memo<Arc<StructFields>>,
    alias_tys: Memo<Ty>,
    const_tys: Memo<Ty>,
    const_values: Memo<Arc<ConstValue>>,
    /// The entries being computed, innermost last: the cycle when one is re-entered.
    active: RefCell<Vec<(Table, DefId)>>,
    diagnostics: RefCell<Vec<Diagnostic>>,
}

impl<'a> Tables<'a> {
    pub fn new(tree: &'a ItemTree, resolved: &'a ResolvedCrate) -> Tables<'a> {
        Tables {
            tree,
            resolved,
            fn_sigs: Default::default(),
            struct_fields: Default::default(),
            alias_tys: Default::default(),
            const_tys: Default::default(),
            const_values: Default::default(),
            active: Default::default(),
            diagnostics: Default::default(),
        }
    }

    /// Records diagnostics whose spans are relative to item `def`.
    pub fn report(&self, def: DefId, diags: Vec<Diagnostic>) {
        if diags.is_empty() {
            return;
        }
        let (file, offset) = match self.tree.def(def) {
            Some(d) => (d.file, d.offset),
            None => (shared_frontend::span::FileId(0), 0),
        };
        self.diagnostics
            .borrow_mut()
            .extend(diags.into_iter().map(|d| d.anchor(file, offset)));
    }

    /// Records a diagnostic that is already anchored (or has no position).
    pub fn report_anchored(&self, diag: Diagnostic) {
        self.diagnostics.borrow_mut().push(diag);
    }

    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diagnostics.borrow_mut())
    }

    pub fn ty_to_string(&self, ty: &Ty) -> String {
        DisplayTy {
            ty,
            struct_name: |d| self.def_name(d),
        }
        .to_string()
    }

    fn memo<T: Clone>(
        &self,
        memo: &Memo<T>,
        table: Table,
        def: DefId,
        compute: impl FnOnce() -> Result<T, ErrorReported>,
    ) -> Result<T, ErrorReported> {
        match memo.borrow().get(&def) {
            Some(Slot::Done(v)) => return v.clone(),
            Some(Slot::InProgress) => {
                self.report_cycle(table, def);
                return Err(ErrorReported);
            }
            None => {}
        }
        memo.borrow_mut().insert(def, Slot::InProgress);
        self.active.borrow_mut().push((table, def));
        let value = compute();
        self.active.borrow_mut().pop();
        // A cycle through this entry was reported while computing it; its value must
        // not depend on the partial result that broke the cycle.
        let value = match memo.borrow().get(&def) {
            Some(Slot::Done(Err(e))) => Err(*e),
            _ => value,
        };
        memo.borrow_mut().insert(def, Slot::Done(value.clone()));
        value
    }

    #[inline(never)]
    fn report_cycle(&self, table: Table, def: DefId) {
        let active = self.active.borrow();
        let start = active
            .iter()
            .rposition(|&(t, d)| t == table && d == def)
            .unwrap_or(0);
        let cycle = &active[start..];
        let name = |d: DefId| self.tree.def_name(d);
        let mut diag = Diagnostic::error(
            format!("cycle detected when {}", table.describe(&name(def))),
            self.tree.def(def).map(|d| d.name_span).unwrap_or_default(),
        )
        .with_code("E0391");
        for &(t, d) in cycle.iter().skip(1) {
            diag = diag.with_note(format!(
                "note: ...which requires {}...",
                t.describe(&name(d))
            ));
        }
        diag = diag.with_note(format!(
            "note: ...which again requires {}, completing the cycle",
            table.describe(&name(def))
        ));
        drop(active);
        self.report(def, vec![diag]);
    }

    fn module_of(&self, def: DefId) -> DefId {
        self.tree.parent(def).unwrap_or(self.tree.root)
    }

    /// Structural checks of a struct (recursive types, size limit), reported once.
    pub fn check_struct(&self, def: DefId) {
        if let Some(ItemAst::Struct(ast)) = self.tree.def(def).map(|d| &d.ast) {
            let diags = typeck::check_struct(self, def, ast);
            self.report(def, diags);
        }
    }
}

impl SemaEnv for Tables<'_> {
    fn resolve_path(&self, from: DefId, path: &Path, ns: Namespace) -> Result<Res, Diagnostic> {
        resolve::resolve_path(
            &resolve::CrateScopes {
                tree: self.tree,
                resolved: self.resolved,
            },
            from,
            path,
            ns,
        )
    }

    fn resolve_path_as(
        &self,
        from: DefId,
        path: &Path,
        source: PathSource,
    ) -> Result<Res, Diagnostic> {
        resolve::resolve_path_as(
            &resolve::CrateScopes {
                tree: self.tree,
                resolved: self.resolved,
            },
            from,
            path,
            source,
        )
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
        self.memo(&self.fn_sigs, Table::FnSig, def, || {
            let Some(ItemAst::Fn(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (sig, diags) = typeck::fn_sig(self, self.module_of(def), ast);
            self.report(def, diags);
            Ok(Arc::new(sig))
        })
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.memo(&self.struct_fields, Table::StructFields, def, || {
            let Some(ItemAst::Struct(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (fields, diags) = typeck::struct_fields(self, self.module_of(def), ast);
            self.report(def, diags);
            Ok(Arc::new(fields))
        })
    }

    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.memo(&self.alias_tys, Table::AliasTy, def, || {
            let Some(ItemAst::TypeAlias(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (ty, diags) = typeck::alias_ty(self, self.module_of(def), ast);
            self.report(def, diags);
            Ok(ty)
        })
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.memo(&self.const_tys, Table::ConstTy, def, || {
            let Some(ItemAst::Const(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let (ty, diags) = typeck::const_ty(self, self.module_of(def), ast);
            self.report(def, diags);
            Ok(ty)
        })
    }

    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        self.memo(&self.const_values, Table::ConstValue, def, || {
            let Some(ItemAst::Const(ast)) = self.tree.def(def).map(|d| &d.ast) else {
                return Err(ErrorReported);
            };
            let result = typeck::typeck_const(self, self.module_of(def), ast);
            let failed = result.diagnostics.iter().any(Diagnostic::is_error);
            self.report(def, result.diagnostics);
            if failed {
                return Err(ErrorReported);
            }
            match consteval::eval_const_item(self, def, &result.thir) {
                Ok(v) => Ok(Arc::new(v)),
                Err(consteval::ConstEvalError::Reported) => Err(ErrorReported),
                Err(consteval::ConstEvalError::Error(d)) => {
                    self.report(def, vec![d]);
                    Err(ErrorReported)
                }
            }
        })
    }
}
