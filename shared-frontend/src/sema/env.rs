//! What per-item semantic analysis may ask about the rest of the crate.
//!
//! Type checking one function, lowering one function or evaluating one constant needs
//! facts about other items (a callee's signature, a struct's fields, a constant's value).
//! They get them only through [`SemaEnv`], never by reaching into global state. The
//! staged pipeline implements it with whole-crate tables; the query driver implements it
//! with queries, which records every call as a dependency edge.

use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::ir::layout::StructLayout;
use crate::sema::def::{DefId, DefKind, Namespace, Res, Vis};
pub use crate::sema::resolve::PathSource;
use crate::sema::ty::{ConstValue, FnSig, StructFields, Ty};
use crate::syntax::ast::PathRef;

/// The error was already reported (where the failing item is checked, or as a cycle);
/// dependents stay silent and use [`Ty::Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorReported;

pub trait SemaEnv {
    /// Resolves a path written in module `from`, in namespace `ns`, checking that every
    /// segment is visible from `from`. The diagnostic's spans are those of `path` (so
    /// relative to the item that contains it).
    fn resolve_path(
        &self,
        from: DefId,
        path: PathRef<'_>,
        ns: Namespace,
    ) -> Result<Res, Diagnostic>;

    /// [`SemaEnv::resolve_path`] with rustc's wording for where the path is written: a
    /// callee reads "cannot find function `f`", a struct literal "cannot find struct …".
    fn resolve_path_as(
        &self,
        from: DefId,
        path: PathRef<'_>,
        source: PathSource,
    ) -> Result<Res, Diagnostic> {
        self.resolve_path(from, path, source.ns())
    }

    /// What the single name `name` denotes in module `from`'s namespace `ns`, or `None`
    /// (no diagnostic is built): the same answer as [`SemaEnv::resolve_path`] gives for a
    /// one-segment path, for checks that only ask whether a name is taken.
    fn lookup_name(&self, from: DefId, name: Symbol, ns: Namespace) -> Option<Res> {
        let segment = crate::syntax::ast::PathSegment {
            kind: crate::syntax::ast::PathSegmentKind::Name(name),
            span: crate::span::Span::default(),
        };
        let path = PathRef {
            segments: std::slice::from_ref(&segment),
            span: crate::span::Span::default(),
        };
        self.resolve_path(from, path, ns).ok()
    }

    /// Whether something with visibility `vis` can be seen from module `from`.
    fn is_accessible(&self, vis: Vis, from: DefId) -> bool;

    /// The item's declared visibility, resolved.
    fn visibility(&self, def: DefId) -> Vis;

    fn def_kind(&self, def: DefId) -> DefKind;

    /// The item's name as rustc prints it in messages (`Point`, `geometry::Point`).
    fn def_name(&self, def: DefId) -> String;

    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported>;

    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported>;

    /// The type a type alias stands for.
    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported>;

    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported>;

    /// The layout of struct `def` if an exact one was remembered
    /// ([`SemaEnv::remember_struct_layout`]); otherwise the caller computes it.
    fn struct_layout(&self, def: DefId) -> Option<Arc<StructLayout>> {
        let _ = def;
        None
    }

    /// Offers the exact layout of struct `def` (see [`crate::ir::layout::LayoutCache`])
    /// for [`SemaEnv::struct_layout`] to return later. Implementations may ignore it.
    fn remember_struct_layout(&self, def: DefId, layout: &Arc<StructLayout>) {
        let _ = (def, layout);
    }

    /// The value of a `const` item. A cycle (`const A: i32 = B; const B: i32 = A;`) is
    /// reported by the implementation (E0391) and yields `Err`.
    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported>;
}
