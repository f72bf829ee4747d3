//! The query driver's [`SemaEnv`]: every question per-item analysis asks about the rest of
//! the crate is a query, so every answer is a recorded dependency.

use std::sync::Arc;

use shared_frontend::diag::Diagnostic;
use shared_frontend::intern::Symbol;
use shared_frontend::sema::def::{DefId, DefKind, DefPath, Namespace, Res, Vis};
use shared_frontend::sema::env::{ErrorReported, PathSource, SemaEnv};
use shared_frontend::sema::items::ItemAst;
use shared_frontend::sema::resolve::{self, NameBindings, ScopeLookup};
use shared_frontend::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use shared_frontend::syntax::ast::{PathRef, TypeAliasDef};

use query::Query;

use super::{rq, DefInfo, RillDb};

/// The crate root's def id (the hash of the empty def-path), hashed once per process:
/// path resolution asks for it at every path that starts at the root.
pub fn root_def() -> DefId {
    static ROOT: std::sync::OnceLock<DefId> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| DefPath::root().hash())
}

/// [`SemaEnv`] and [`ScopeLookup`] over the database.
///
/// Answers that are a part of a query's value (a field of `def_info`, the value of a
/// step's output) are projected from the memo by reference ([`Query::with_value`]): the
/// reads are recorded the same, without a clone and a drop of the whole value per read.
#[derive(Clone, Copy)]
pub struct QEnv<'a>(pub &'a RillDb);

impl QEnv<'_> {
    /// `f` of the item's `def_info`, if it has one.
    #[inline]
    fn def_info_with<R>(&self, def: DefId, f: impl FnOnce(&DefInfo) -> R) -> Option<R> {
        rq::def_info::with_value(self.0, def, |d| d.as_deref().map(f))
    }
}

impl ScopeLookup for QEnv<'_> {
    fn root(&self) -> DefId {
        root_def()
    }

    fn parent(&self, def: DefId) -> Option<DefId> {
        self.def_info_with(def, |d| d.parent)?
    }

    fn name_in(&self, module: DefId, name: Symbol) -> NameBindings {
        self.0.resolve_name((module, name))
    }

    fn type_alias(&self, def: DefId) -> Option<(DefId, Arc<TypeAliasDef>)> {
        let (kind, parent) = self.def_info_with(def, |d| (d.kind, d.parent))?;
        if kind != DefKind::TypeAlias {
            return None;
        }
        match self.0.item_ast(def)?.ast {
            ItemAst::TypeAlias(a) => Some((parent?, a)),
            _ => None,
        }
    }

    fn item_name(&self, def: DefId) -> Option<Symbol> {
        self.def_info_with(def, |d| d.name)
    }
}

impl SemaEnv for QEnv<'_> {
    fn resolve_path(
        &self,
        from: DefId,
        path: PathRef<'_>,
        ns: Namespace,
    ) -> Result<Res, Diagnostic> {
        resolve::resolve_path(self, from, path, ns)
    }

    fn resolve_path_as(
        &self,
        from: DefId,
        path: PathRef<'_>,
        source: PathSource,
    ) -> Result<Res, Diagnostic> {
        resolve::resolve_path_as(self, from, path, source)
    }

    fn lookup_name(&self, from: DefId, name: Symbol, ns: Namespace) -> Option<Res> {
        resolve::lookup_name(self, from, name, ns)
    }

    fn is_accessible(&self, vis: Vis, from: DefId) -> bool {
        resolve::is_accessible(self, vis, from)
    }

    fn visibility(&self, def: DefId) -> Vis {
        self.def_info_with(def, |d| d.vis).unwrap_or(Vis::Public)
    }

    fn def_kind(&self, def: DefId) -> DefKind {
        self.def_info_with(def, |d| d.kind).unwrap_or(DefKind::Mod)
    }

    fn def_name(&self, def: DefId) -> String {
        self.def_info_with(def, |d| d.name.to_string())
            .unwrap_or_default()
    }

    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        rq::fn_sig::with_value(self.0, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        rq::struct_fields::with_value(self.0, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        rq::alias_ty::with_value(self.0, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        rq::const_ty::with_value(self.0, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        rq::const_value::with_value(self.0, def, |o| o.value.clone()).ok_or(ErrorReported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_def_is_the_hash_of_the_empty_def_path() {
        assert_eq!(root_def(), DefPath::root().hash());
        assert_eq!(root_def(), root_def());
    }
}
