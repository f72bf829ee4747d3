//! The query driver's [`SemaEnv`]: every question per-item analysis asks about the rest of
//! the crate is a query, so every answer is a recorded dependency.

use std::cell::RefCell;
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

/// How many modules' parents a [`QEnv`] remembers.
const PARENTS: usize = 4;

/// The last few answers of [`ScopeLookup::parent`] of one [`QEnv`].
///
/// A provider asks for the parents of the same few modules over and over (`super::` in
/// every path of a body written in one module, each privacy check walking up from it).
/// Within one provider execution the database does not change, so an answer is the same
/// every time, and a repeat of its read would add no edge (the engine keeps each read
/// once); a `QEnv` lives for one execution, so every execution still records the read.
///
/// Whole paths are not memoized this way: one execution repeats few of its paths (16% of
/// the resolutions of the generated 100k-line program, 5% of `lookup_name`'s), and a
/// memo's inserts cost more instructions than its hits save.
#[derive(Default)]
struct Parents {
    entries: [Option<(DefId, Option<DefId>)>; PARENTS],
    /// The entry the next new answer replaces.
    next: usize,
}

/// [`SemaEnv`] and [`ScopeLookup`] over the database, for one provider execution: build
/// one inside a provider ([`QEnv::new`]) and never keep it past the provider's return.
///
/// Answers that are a part of a query's value (a field of `def_info`, the value of a
/// step's output) are projected from the memo by reference ([`Query::with_value`]): the
/// reads are recorded the same, without a clone and a drop of the whole value per read.
pub struct QEnv<'a> {
    db: &'a RillDb,
    parents: RefCell<Parents>,
}

impl<'a> QEnv<'a> {
    /// An environment for one execution of a provider over `db`.
    pub fn new(db: &'a RillDb) -> QEnv<'a> {
        QEnv {
            db,
            parents: RefCell::default(),
        }
    }
}

impl QEnv<'_> {
    /// `f` of the item's `def_info`, if it has one.
    #[inline]
    fn def_info_with<R>(&self, def: DefId, f: impl FnOnce(&DefInfo) -> R) -> Option<R> {
        rq::def_info::with_value(self.db, def, |d| d.as_deref().map(f))
    }
}

impl ScopeLookup for QEnv<'_> {
    fn root(&self) -> DefId {
        root_def()
    }

    fn parent(&self, def: DefId) -> Option<DefId> {
        if let Some((_, parent)) = self
            .parents
            .borrow()
            .entries
            .iter()
            .flatten()
            .find(|e| e.0 == def)
        {
            return *parent;
        }
        let parent = self.def_info_with(def, |d| d.parent)?;
        let mut memo = self.parents.borrow_mut();
        let i = memo.next;
        memo.entries[i] = Some((def, parent));
        memo.next = (i + 1) % PARENTS;
        parent
    }

    fn name_in(&self, module: DefId, name: Symbol) -> NameBindings {
        self.db.resolve_name((module, name))
    }

    fn type_alias(&self, def: DefId) -> Option<(DefId, Arc<TypeAliasDef>)> {
        let (kind, parent) = self.def_info_with(def, |d| (d.kind, d.parent))?;
        if kind != DefKind::TypeAlias {
            return None;
        }
        match self.db.item_ast(def)?.ast {
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
        rq::fn_sig::with_value(self.db, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        rq::struct_fields::with_value(self.db, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        rq::alias_ty::with_value(self.db, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        rq::const_ty::with_value(self.db, def, |o| o.value.clone()).ok_or(ErrorReported)
    }

    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        rq::const_value::with_value(self.db, def, |o| o.value.clone()).ok_or(ErrorReported)
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
