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
use shared_frontend::syntax::ast::{Path, TypeAliasDef};

use super::RillDb;

/// The crate root's def id (the hash of the empty def-path), hashed once per process:
/// path resolution asks for it at every path that starts at the root.
pub fn root_def() -> DefId {
    static ROOT: std::sync::OnceLock<DefId> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| DefPath::root().hash())
}

/// [`SemaEnv`] and [`ScopeLookup`] over the database.
#[derive(Clone, Copy)]
pub struct QEnv<'a>(pub &'a RillDb);

impl ScopeLookup for QEnv<'_> {
    fn root(&self) -> DefId {
        root_def()
    }

    fn parent(&self, def: DefId) -> Option<DefId> {
        self.0.def_info(def)?.parent
    }

    fn name_in(&self, module: DefId, name: Symbol) -> NameBindings {
        self.0.resolve_name((module, name))
    }

    fn type_alias(&self, def: DefId) -> Option<(DefId, Arc<TypeAliasDef>)> {
        let info = self.0.def_info(def)?;
        if info.kind != DefKind::TypeAlias {
            return None;
        }
        match self.0.item_ast(def)?.ast {
            ItemAst::TypeAlias(a) => Some((info.parent?, a)),
            _ => None,
        }
    }

    fn item_name(&self, def: DefId) -> Option<Symbol> {
        self.0.def_info(def).map(|d| d.name)
    }
}

impl SemaEnv for QEnv<'_> {
    fn resolve_path(&self, from: DefId, path: &Path, ns: Namespace) -> Result<Res, Diagnostic> {
        resolve::resolve_path(self, from, path, ns)
    }

    fn resolve_path_as(
        &self,
        from: DefId,
        path: &Path,
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
        self.0.def_info(def).map_or(Vis::Public, |d| d.vis)
    }

    fn def_kind(&self, def: DefId) -> DefKind {
        self.0.def_info(def).map_or(DefKind::Mod, |d| d.kind)
    }

    fn def_name(&self, def: DefId) -> String {
        self.0
            .def_info(def)
            .map(|d| d.name.to_string())
            .unwrap_or_default()
    }

    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        self.0.fn_sig(def).value.clone().ok_or(ErrorReported)
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.0.struct_fields(def).value.clone().ok_or(ErrorReported)
    }

    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.0.alias_ty(def).value.clone().ok_or(ErrorReported)
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.0.const_ty(def).value.clone().ok_or(ErrorReported)
    }

    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        self.0.const_value(def).value.clone().ok_or(ErrorReported)
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
