//! Name resolution: module scopes, `use` imports, paths and privacy.
//!
//! A module's scope (LANGUAGE.md "Scopes") holds its own items and its `use` imports,
//! in two namespaces: types (structs, aliases, modules) and values (fns, consts). The
//! primitive types are visible everywhere, below the scope. Nothing else is: a child
//! module reaches its parent's items only through a path.
//!
//! - [`resolve_crate`] builds every module's scope. Imports may name other imports, in
//!   any order and across modules, so they are resolved to a fixed point (see
//!   [`imports`]); what cannot be resolved then is a cycle or an unresolved import.
//! - [`resolve_path`] resolves one path written in a body or a signature, given the
//!   scopes through [`ScopeLookup`] (whole-crate tables in the pipeline, queries in the
//!   query driver). Its diagnostics keep the path's spans, relative to the item.
//!
//! Scopes hold no source positions, so moving an item leaves them equal.

mod imports;
mod path;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use crate::sema::items::{ItemAst, ItemTree, VisDisplay};
use crate::syntax::ast::{PathSegment, PathSegmentKind, TypeAliasDef};

pub use imports::{resolve_crate, resolve_imports, CrateItems, ResolvedImports};
pub use path::{lookup_name, resolve_path, resolve_path_as, PathSource};

/// A name bound in a module's scope.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// What the name stands for; `None` for the placeholder left by an import that
    /// failed to resolve (its error is reported once, where the import is).
    pub res: Option<Res>,
    /// For an item, its visibility; for an import, the `use`'s visibility, or the
    /// imported binding's when that is smaller (after E0364/E0365).
    pub vis: Vis,
    /// Bound by a `use` (rustc says "function import `f` is private").
    pub import: bool,
}

impl Binding {
    /// rustc's word for what the binding names: `function`, `module`, `struct import`, …
    pub fn descr(&self) -> String {
        let base = match self.res {
            Some(res) => res_descr(res),
            None => "item",
        };
        if self.import {
            format!("{base} import")
        } else {
            base.to_string()
        }
    }
}

/// rustc's word for a resolution (`function`, `builtin type`, …).
pub fn res_descr(res: Res) -> &'static str {
    match res {
        Res::Def(kind, _) => kind.descr(),
        Res::PrimInt(_) | Res::PrimBool => "builtin type",
        Res::IntConst(..) => "associated constant",
    }
}

/// The names bound in one module: its items and its imports.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleScope {
    pub types: FxHashMap<Symbol, Binding>,
    pub values: FxHashMap<Symbol, Binding>,
}

impl ModuleScope {
    pub fn get(&self, ns: Namespace, name: Symbol) -> Option<&Binding> {
        match ns {
            Namespace::Type => self.types.get(&name),
            Namespace::Value => self.values.get(&name),
        }
    }

    /// Every binding, types first, each namespace sorted by name text: an order that
    /// does not depend on interning or hashing (for stable fingerprints and listings).
    pub fn sorted(&self) -> Vec<(Namespace, Symbol, Binding)> {
        let mut out = Vec::with_capacity(self.types.len() + self.values.len());
        for (ns, map) in [
            (Namespace::Type, &self.types),
            (Namespace::Value, &self.values),
        ] {
            let start = out.len();
            out.extend(map.iter().map(|(&name, &b)| (ns, name, b)));
            out[start..].sort_by(|a, b| a.1.as_str().cmp(b.1.as_str()));
        }
        out
    }

    /// What `name` is bound to in both namespaces.
    pub fn name(&self, name: Symbol) -> NameBindings {
        NameBindings {
            types: self.types.get(&name).copied(),
            values: self.values.get(&name).copied(),
        }
    }

    fn map_mut(&mut self, ns: Namespace) -> &mut FxHashMap<Symbol, Binding> {
        match ns {
            Namespace::Type => &mut self.types,
            Namespace::Value => &mut self.values,
        }
    }
}

/// What one name is bound to in one module's scope, in each namespace: what resolving a
/// path reads of a scope, one name at a time.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NameBindings {
    pub types: Option<Binding>,
    pub values: Option<Binding>,
}

impl NameBindings {
    pub fn get(&self, ns: Namespace) -> Option<&Binding> {
        match ns {
            Namespace::Type => self.types.as_ref(),
            Namespace::Value => self.values.as_ref(),
        }
    }
}

/// Every module's scope, and the diagnostics of building them (anchored).
#[derive(Clone, Debug, Default)]
pub struct ResolvedCrate {
    pub scopes: FxHashMap<DefId, Arc<ModuleScope>>,
    /// Unresolved and private imports, clashes (E0252/E0255), re-exports of less visible
    /// items (E0364/E0365), sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// What [`resolve_path`] needs to know about the crate.
pub trait ScopeLookup {
    /// The crate root module.
    fn root(&self) -> DefId;
    /// The module an item (or module) is declared in; `None` for the root.
    fn parent(&self, def: DefId) -> Option<DefId>;
    /// What `name` is bound to in `module`'s scope (nothing for a module that does not
    /// exist). Paths read scopes only through this, one name at a time, so that a
    /// driver can record which names a path depended on.
    fn name_in(&self, module: DefId, name: Symbol) -> NameBindings;
    /// What `name` is bound to in `module`'s namespace `ns`: the same answer as
    /// `name_in(module, name).get(ns)`, which paths ask where only that namespace
    /// matters (as long as they succeed). An implementation may answer it more cheaply.
    fn binding_in(&self, module: DefId, name: Symbol, ns: Namespace) -> Option<Binding> {
        self.name_in(module, name).get(ns).copied()
    }
    /// A type alias's module and syntax (for `Alias::MAX`).
    fn type_alias(&self, def: DefId) -> Option<(DefId, Arc<TypeAliasDef>)>;
    /// An item's name.
    fn item_name(&self, def: DefId) -> Option<Symbol>;
}

/// Whether something with visibility `vis` can be seen from module `from`: it is public,
/// or `from` is the module it is restricted to or one of its descendants.
pub fn is_accessible(ctx: &dyn ScopeLookup, vis: Vis, from: DefId) -> bool {
    match vis {
        Vis::Public => true,
        Vis::Restricted(m) => {
            let mut cur = Some(from);
            while let Some(c) = cur {
                if c == m {
                    return true;
                }
                cur = ctx.parent(c);
            }
            false
        }
    }
}

/// Whether `a` is at least as visible as `b` (rustc's `is_at_least`).
pub(crate) fn vis_is_at_least(ctx: &dyn ScopeLookup, a: Vis, b: Vis) -> bool {
    match (a, b) {
        (Vis::Public, _) => true,
        (Vis::Restricted(_), Vis::Public) => false,
        (Vis::Restricted(_), Vis::Restricted(mb)) => is_accessible(ctx, a, mb),
    }
}

/// The whole-crate implementation of [`ScopeLookup`]: an item tree and its scopes.
#[derive(Clone, Copy)]
pub struct CrateScopes<'a> {
    pub tree: &'a ItemTree,
    pub resolved: &'a ResolvedCrate,
}

impl ScopeLookup for CrateScopes<'_> {
    fn root(&self) -> DefId {
        self.tree.root
    }

    fn parent(&self, def: DefId) -> Option<DefId> {
        self.tree.parent(def)
    }

    fn name_in(&self, module: DefId, name: Symbol) -> NameBindings {
        self.resolved
            .scopes
            .get(&module)
            .map(|s| s.name(name))
            .unwrap_or_default()
    }

    /// One probe of one namespace, where [`ScopeLookup::name_in`] reads both.
    fn binding_in(&self, module: DefId, name: Symbol, ns: Namespace) -> Option<Binding> {
        self.resolved.scopes.get(&module)?.get(ns, name).copied()
    }

    fn type_alias(&self, def: DefId) -> Option<(DefId, Arc<TypeAliasDef>)> {
        let d = self.tree.def(def)?;
        match &d.ast {
            ItemAst::TypeAlias(a) => Some((d.parent?, a.clone())),
            _ => None,
        }
    }

    fn item_name(&self, def: DefId) -> Option<Symbol> {
        self.tree.def(def).map(|d| d.name)
    }
}

/// A path as written: `crate::m::f`.
pub fn path_text(segments: &[PathSegment]) -> String {
    let mut s = String::new();
    for (i, seg) in segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        s.push_str(segment_text(seg.kind));
    }
    s
}

pub(crate) fn segment_text(kind: PathSegmentKind) -> &'static str {
    match kind {
        PathSegmentKind::Name(n) => n.as_str(),
        PathSegmentKind::Crate => "crate",
        PathSegmentKind::SelfMod => "self",
        PathSegmentKind::Super => "super",
    }
}

/// E0603 `function `f` is private`, at the segment that names it.
pub(crate) fn privacy_error(
    binding: &Binding,
    name: Symbol,
    span: crate::span::Span,
) -> Diagnostic {
    let descr = binding.descr();
    Diagnostic::error(format!("{descr} `{name}` is private"), span)
        .with_code("E0603")
        .with_label_message(format!("private {descr}"))
}

/// Lists every module's scope (sorted by name, types then values), for tests and
/// debugging: `crate::m: type S -> struct crate::m::S (pub)`.
pub fn dump_scopes(tree: &ItemTree, resolved: &ResolvedCrate) -> String {
    let mut out = String::new();
    for m in tree.modules() {
        let Some(scope) = resolved.scopes.get(&m.def) else {
            continue;
        };
        let path = tree
            .def(m.def)
            .map(|d| d.path.to_string())
            .unwrap_or_default();
        let _ = writeln!(out, "{path}");
        for (ns, name, b) in scope.sorted() {
            let what = match b.res {
                Some(Res::Def(kind, id)) => match tree.def(id) {
                    Some(d) => format!("{} {}", kind.descr(), d.path),
                    None => format!("{} {id}", kind.descr()),
                },
                Some(other) => format!("{other:?}"),
                None => String::from("<unresolved import>"),
            };
            let _ = writeln!(
                out,
                "  {} {name} -> {what} ({}{})",
                match ns {
                    Namespace::Type => "type ",
                    Namespace::Value => "value",
                },
                VisDisplay(tree, b.vis),
                if b.import { ", import" } else { "" }
            );
        }
    }
    out
}

/// Is `kind` something a struct literal may name?
pub(crate) fn is_struct_like(res: Res) -> bool {
    matches!(res, Res::Def(DefKind::Struct | DefKind::TypeAlias, _))
}
