//! Building every module's scope: items first, then `use` imports to a fixed point.
//!
//! Each `use` item is flattened into directives, one per leaf of its tree
//! (`use a::{b, c as d}` is `a::b` and `a::c as d`). A directive binds its target name
//! in its module in every namespace its last segment exists in. Resolving one may need
//! a name that another, still unresolved directive binds (`use m::x` where `m` itself
//! imports `x`); it then waits on that (module, name) until every directive that could
//! bind it is done, and is woken then: a worklist, linear in the number of directives
//! and the lengths of their paths, whatever order imports are written in.
//!
//! When the worklist is empty and directives still wait, they wait on each other: a
//! cycle (`mod a { pub use super::b::x; } mod b { pub use super::a::x; }`). Following
//! the waits from the first one in source order finds a cycle; the directive that closes
//! it is resolved as if the names it waits on were absent, which reports its error (as
//! rustc does, once per cycle), and its placeholder binding lets the others fail silently.

use std::collections::VecDeque;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diag::{Diagnostic, Label};
use crate::intern::Symbol;
use crate::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use crate::sema::items::{ns_descr, ns_kind_descr, ItemTree, UseItem, PRIMITIVE_TYPE_NAMES};
use crate::span::{FileId, Span};
use crate::syntax::ast::{PathSegment, PathSegmentKind, UseTree, UseTreeKind};

use super::path::{keyword_not_at_start, module_ref, primitive, too_many_supers};
use super::{
    path_text, privacy_error, vis_is_at_least, Binding, ModuleScope, NameBindings, ResolvedCrate,
    ScopeLookup,
};

/// Builds every module's scope and reports what is wrong with its imports.
pub fn resolve_crate(tree: &ItemTree) -> ResolvedCrate {
    let items = TreeItems::new(tree);
    let imports = resolve_imports(&items);
    let scopes = items
        .scopes
        .into_iter()
        .zip(imports.scopes)
        .enumerate()
        .map(|(i, (mut scope, imported))| {
            // An item keeps its name: an import of the same name was reported (E0255).
            for (ns, map) in [
                (Namespace::Type, imported.types),
                (Namespace::Value, imported.values),
            ] {
                for (name, b) in map {
                    scope.map_mut(ns).entry(name).or_insert(b);
                }
            }
            (tree.modules()[i].def, Arc::new(scope))
        })
        .collect();
    ResolvedCrate {
        scopes,
        diagnostics: imports.diagnostics,
    }
}

/// What resolving imports reads of a crate: its modules, in the item tree's order (which
/// decides the order of directives and so which of two clashing imports is reported),
/// their `use` items, and their items one name at a time, so that a driver can record
/// which names the imports depended on.
pub trait CrateItems {
    fn root(&self) -> DefId;
    fn module_count(&self) -> usize;
    /// The module at `idx` (an index into the item tree's modules).
    fn module_def(&self, idx: usize) -> DefId;
    fn module_idx(&self, module: DefId) -> Option<usize>;
    /// The module a module is declared in; `None` for the root.
    fn module_parent(&self, module: DefId) -> Option<DefId>;
    fn module_vis(&self, module: DefId) -> Vis;
    /// A module's name as messages show it (`a::b`).
    fn module_name(&self, module: DefId) -> String;
    /// The `use` items of the module at `idx`, in source order.
    fn uses(&self, idx: usize) -> Vec<UseItem>;
    /// What `name` is bound to among the items (not the imports) of the module at `idx`:
    /// the first item of that name in that namespace.
    fn item(&self, idx: usize, ns: Namespace, name: Symbol) -> Option<Binding>;
    /// Where an item's name is (its file and absolute span), for a clash's report.
    fn item_site(&self, item: DefId) -> Option<(FileId, Span)>;
}

/// Every module's imports: the bindings the `use` items add to each scope (indexed like
/// the modules of [`CrateItems`]; an item's own name is not replaced by an import of it,
/// which is reported), and the diagnostics.
#[derive(Clone, Debug, Default)]
pub struct ResolvedImports {
    pub scopes: Vec<ModuleScope>,
    /// Unresolved and private imports, clashes (E0252/E0255), re-exports of less visible
    /// items (E0364/E0365), sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// Resolves every `use` of the crate to a fixed point.
pub fn resolve_imports(items: &dyn CrateItems) -> ResolvedImports {
    let mut r = Resolver::new(items);
    r.collect_directives();
    r.run();
    r.finish()
}

/// [`CrateItems`] of an item tree: every module's items put in its scope first.
struct TreeItems<'a> {
    tree: &'a ItemTree,
    scopes: Vec<ModuleScope>,
}

impl<'a> TreeItems<'a> {
    /// Of two items with one name in one namespace, the first is bound (the duplicate
    /// was reported by the item tree).
    fn new(tree: &'a ItemTree) -> Self {
        let mut scopes = vec![ModuleScope::default(); tree.modules().len()];
        for (idx, m) in tree.modules().iter().enumerate() {
            for &id in &m.items {
                let Some(d) = tree.def(id) else {
                    continue;
                };
                let ns = d.kind.namespace();
                scopes[idx].map_mut(ns).entry(d.name).or_insert(Binding {
                    res: Some(Res::Def(d.kind, id)),
                    vis: d.vis,
                    import: false,
                });
            }
        }
        TreeItems { tree, scopes }
    }
}

impl CrateItems for TreeItems<'_> {
    fn root(&self) -> DefId {
        self.tree.root
    }
    fn module_count(&self) -> usize {
        self.tree.modules().len()
    }
    fn module_def(&self, idx: usize) -> DefId {
        self.tree.modules()[idx].def
    }
    fn module_idx(&self, module: DefId) -> Option<usize> {
        self.tree.module_idx(module)
    }
    fn module_parent(&self, module: DefId) -> Option<DefId> {
        self.tree.parent(module)
    }
    fn module_vis(&self, module: DefId) -> Vis {
        self.tree.def(module).map_or(Vis::Public, |d| d.vis)
    }
    fn module_name(&self, module: DefId) -> String {
        self.tree.def_name(module)
    }
    fn uses(&self, idx: usize) -> Vec<UseItem> {
        self.tree.modules()[idx].uses.clone()
    }
    fn item(&self, idx: usize, ns: Namespace, name: Symbol) -> Option<Binding> {
        self.scopes[idx].get(ns, name).copied()
    }
    fn item_site(&self, item: DefId) -> Option<(FileId, Span)> {
        let d = self.tree.def(item)?;
        Some((d.file, d.name_span.shift(d.offset)))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DirectiveKind {
    /// The last segment is a name, looked up in both namespaces.
    Name,
    /// The whole path names a module: `m::{self}`, `crate as c`, `super as s`.
    Module,
}

struct Directive {
    /// Index of the module in `tree.modules()`.
    module: u32,
    /// Index of the `use` item among all of the crate's, for grouping E0432.
    group: u32,
    file: FileId,
    /// Offset of the `use` item; spans below are relative to it.
    offset: u32,
    segments: Vec<PathSegment>,
    kind: DirectiveKind,
    /// The name bound; `None` when nothing is bound (`as _`, errors already reported).
    target: Option<Symbol>,
    /// The leaf's span (`c as d`).
    span: Span,
    /// The span of the name after `as`.
    rename_span: Option<Span>,
    vis: Vis,
}

/// What the lookup of one name found while imports are being resolved.
enum Look {
    Found(Binding),
    /// A directive that could bind the name is not done yet.
    Wait,
    NotFound,
}

type Key = (u32, Symbol);

/// How lookups treat names that unresolved directives may still bind.
#[derive(Clone, Copy)]
struct Mode {
    /// Breaking a cycle: such names are taken as absent instead of waited for.
    final_mode: bool,
    /// The resolving directive's own (module, target).
    own: Option<Key>,
}

enum Outcome {
    /// The bindings found, per namespace (type, value).
    Done([Option<Binding>; 2]),
    Wait(Key),
    Failed(Fail),
}

enum Fail {
    /// The path went through a failed import: already reported.
    Silent,
    /// E0432, grouped per `use` item: the path up to the failing segment, where, why.
    Unresolved {
        path: String,
        span: Span,
        label: String,
    },
    Other(Diagnostic),
}

struct Unresolved {
    directive: u32,
    path: String,
    span: Span,
    label: String,
}

struct Resolver<'a> {
    items: &'a dyn CrateItems,
    /// The imports of each module, indexed like its modules (the items are in `items`).
    scopes: Vec<ModuleScope>,
    /// Index of the crate root in `tree.modules()`.
    root_idx: u32,
    directives: Vec<Directive>,
    done: Vec<bool>,
    waiting_on: Vec<Option<Key>>,
    /// Directives not done yet, per (module, target).
    pending: FxHashMap<Key, u32>,
    /// Every directive per (module, target), in source order.
    targets: FxHashMap<Key, Vec<u32>>,
    waiters: FxHashMap<Key, Vec<u32>>,
    queue: VecDeque<u32>,
    /// Which directive bound an import binding, for clash reports.
    import_src: FxHashMap<(u32, Namespace, Symbol), u32>,
    unresolved: FxHashMap<u32, Vec<Unresolved>>,
    diagnostics: Vec<Diagnostic>,
}

fn ns_index(ns: Namespace) -> usize {
    match ns {
        Namespace::Type => 0,
        Namespace::Value => 1,
    }
}

const NAMESPACES: [Namespace; 2] = [Namespace::Type, Namespace::Value];

impl<'a> Resolver<'a> {
    fn new(items: &'a dyn CrateItems) -> Self {
        Resolver {
            items,
            scopes: vec![ModuleScope::default(); items.module_count()],
            root_idx: items.module_idx(items.root()).unwrap_or(0) as u32,
            directives: Vec::new(),
            done: Vec::new(),
            waiting_on: Vec::new(),
            pending: FxHashMap::default(),
            targets: FxHashMap::default(),
            waiters: FxHashMap::default(),
            queue: VecDeque::new(),
            import_src: FxHashMap::default(),
            unresolved: FxHashMap::default(),
            diagnostics: Vec::new(),
        }
    }

    fn module_def(&self, idx: u32) -> DefId {
        self.items.module_def(idx as usize)
    }

    fn module_idx(&self, def: DefId) -> Option<u32> {
        self.items.module_idx(def).map(|i| i as u32)
    }

    /// A name of a module's scope so far: its item, else what its imports bound.
    fn get(&self, module: u32, ns: Namespace, name: Symbol) -> Option<Binding> {
        self.items
            .item(module as usize, ns, name)
            .or_else(|| self.scopes[module as usize].get(ns, name).copied())
    }

    fn collect_directives(&mut self) {
        let mut group = 0u32;
        for idx in 0..self.items.module_count() {
            for u in &self.items.uses(idx) {
                self.flatten(idx as u32, group, u.file, u.offset, u.vis, &u.def.tree);
                group += 1;
            }
        }
        let n = self.directives.len();
        self.done = vec![false; n];
        self.waiting_on = vec![None; n];
        for (i, d) in self.directives.iter().enumerate() {
            if let Some(t) = d.target {
                *self.pending.entry((d.module, t)).or_insert(0) += 1;
                self.targets
                    .entry((d.module, t))
                    .or_default()
                    .push(i as u32);
            }
        }
        self.queue = (0..n as u32).collect();
    }

    /// Turns one `use` tree into directives, with an explicit stack (trees nest freely).
    fn flatten(
        &mut self,
        module: u32,
        group: u32,
        file: FileId,
        offset: u32,
        vis: Vis,
        tree: &UseTree,
    ) {
        // (tree, segments before it, inside braces)
        let mut stack: Vec<(&UseTree, Vec<PathSegment>, bool)> = vec![(tree, Vec::new(), false)];
        while let Some((t, prefix, in_braces)) = stack.pop() {
            let mut full = prefix.clone();
            full.extend_from_slice(&t.prefix.segments);
            let rename = match &t.kind {
                UseTreeKind::Nested(children) => {
                    for child in children.iter().rev() {
                        stack.push((child, full.clone(), true));
                    }
                    continue;
                }
                UseTreeKind::Simple { rename } => *rename,
            };
            let Some(last) = full.last().copied() else {
                continue;
            };
            let error = |me: &mut Self, d: Diagnostic| me.diagnostics.push(d.anchor(file, offset));
            let explicit_name = |me: &mut Self| -> Option<Symbol> {
                match rename {
                    Some(r) => Some(r.name),
                    None => {
                        me.diagnostics.push(
                            Diagnostic::error("imports need to be explicitly named", t.span)
                                .anchor(file, offset),
                        );
                        None
                    }
                }
            };
            let (segments, kind, target) = match last.kind {
                PathSegmentKind::SelfMod
                    if in_braces && t.prefix.segments.len() == 1 && full.len() > 1 =>
                {
                    // `m::{self}`: the module `m` itself.
                    let path: Vec<PathSegment> = full[..full.len() - 1].to_vec();
                    let target = match (rename, path.last().map(|s| s.kind)) {
                        (Some(r), _) => Some(r.name),
                        (None, Some(PathSegmentKind::Name(n))) => Some(n),
                        _ => explicit_name(self),
                    };
                    (path, DirectiveKind::Module, target)
                }
                PathSegmentKind::SelfMod if full.len() > 1 => {
                    error(
                        self,
                        Diagnostic::error(
                            "`self` imports are only allowed within a { } list",
                            last.span,
                        )
                        .with_code("E0429"),
                    );
                    continue;
                }
                PathSegmentKind::SelfMod | PathSegmentKind::Crate | PathSegmentKind::Super => {
                    let target = explicit_name(self);
                    (full, DirectiveKind::Module, target)
                }
                PathSegmentKind::Name(n) => (
                    full,
                    DirectiveKind::Name,
                    Some(rename.map_or(n, |r| r.name)),
                ),
            };
            let target = target.filter(|t| t.as_str() != "_");
            self.directives.push(Directive {
                module,
                group,
                file,
                offset,
                segments,
                kind,
                target,
                span: t.span,
                rename_span: rename.map(|r| r.span),
                vis,
            });
        }
    }

    fn lookup(&self, module: u32, name: Symbol, ns: Namespace, mode: Mode) -> Look {
        let found = self.get(module, ns, name);
        if let Some(b) = found {
            if !b.import {
                return Look::Found(b);
            }
        }
        if !mode.final_mode {
            let mut pending = self.pending.get(&(module, name)).copied().unwrap_or(0);
            if mode.own == Some((module, name)) {
                // A directive does not wait for itself (`use util::util;`).
                pending = pending.saturating_sub(1);
            }
            if pending > 0 {
                return Look::Wait;
            }
        }
        match found {
            Some(b) => Look::Found(b),
            None => Look::NotFound,
        }
    }

    fn ctx(&self) -> TreeParents<'_> {
        TreeParents(self.items)
    }

    fn accessible(&self, vis: Vis, from: u32) -> bool {
        super::is_accessible(&self.ctx(), vis, self.module_def(from))
    }

    fn resolve_directive(&self, di: u32, final_mode: bool) -> Outcome {
        let d = &self.directives[di as usize];
        let mode = Mode {
            final_mode,
            own: d.target.map(|t| (d.module, t)),
        };
        let segs = &d.segments[..];
        let from = d.module;
        let Some(first) = segs.first() else {
            return Outcome::Failed(Fail::Silent);
        };
        let mut module: u32;
        let mut i: usize;
        // The binding that named `module` (for `m::{self}` re-export checks).
        let mut module_binding: Option<Binding> = None;
        match first.kind {
            PathSegmentKind::Name(name) => {
                if segs.len() == 1 && d.kind == DirectiveKind::Name {
                    // `use f;`: a name of this module's own scope.
                    return self.last_segment(d, from, name, true, mode);
                }
                match self.lookup(from, name, Namespace::Type, mode) {
                    Look::Wait => return Outcome::Wait((from, name)),
                    Look::Found(b) => match b.res {
                        None => return Outcome::Failed(Fail::Silent),
                        Some(Res::Def(DefKind::Mod, m)) => {
                            module = self.module_idx(m).unwrap_or(self.root_idx);
                            module_binding = Some(b);
                            i = 1;
                        }
                        Some(res) => {
                            return Outcome::Failed(Fail::Unresolved {
                                path: path_text(&segs[..1]),
                                span: first.span,
                                label: format!("`{name}` is {}, not a module", a_descr(res)),
                            })
                        }
                    },
                    Look::NotFound => {
                        if primitive(name).is_some() {
                            return Outcome::Failed(Fail::Other(Diagnostic::unsupported(
                                format!("importing through the primitive type `{name}`"),
                                first.span,
                            )));
                        }
                        if matches!(name.as_str(), "std" | "core" | "alloc") {
                            return Outcome::Failed(Fail::Other(Diagnostic::unsupported(
                                format!("paths into `{name}`"),
                                first.span,
                            )));
                        }
                        let label = match self.lookup(from, name, Namespace::Value, mode) {
                            Look::Wait => return Outcome::Wait((from, name)),
                            Look::Found(Binding { res: Some(res), .. }) => {
                                format!("`{name}` is {}, not a module", a_descr(res))
                            }
                            _ => format!("use of unresolved module or unlinked crate `{name}`"),
                        };
                        return Outcome::Failed(Fail::Unresolved {
                            path: path_text(&segs[..1]),
                            span: first.span,
                            label,
                        });
                    }
                }
            }
            PathSegmentKind::Crate => {
                module = self.root_idx;
                i = 1;
            }
            PathSegmentKind::SelfMod => {
                module = from;
                i = 1;
            }
            PathSegmentKind::Super => {
                module = from;
                i = 0;
            }
        }
        if first.kind != PathSegmentKind::Crate {
            while i < segs.len() && segs[i].kind == PathSegmentKind::Super {
                match self
                    .items
                    .module_parent(self.module_def(module))
                    .and_then(|p| self.module_idx(p))
                {
                    Some(p) => module = p,
                    None => return Outcome::Failed(Fail::Other(too_many_supers(segs[i].span))),
                }
                i += 1;
            }
        }
        let module_segments_end = match d.kind {
            DirectiveKind::Module => segs.len(),
            DirectiveKind::Name => segs.len() - 1,
        };
        while i < module_segments_end {
            let seg = &segs[i];
            let PathSegmentKind::Name(name) = seg.kind else {
                return Outcome::Failed(Fail::Other(keyword_not_at_start(
                    super::segment_text(seg.kind),
                    seg.span,
                )));
            };
            let last_of_module_path = d.kind == DirectiveKind::Module && i + 1 == segs.len();
            match self.lookup(module, name, Namespace::Type, mode) {
                Look::Wait => return Outcome::Wait((module, name)),
                Look::Found(b) => {
                    if !self.accessible(b.vis, from) {
                        return Outcome::Failed(Fail::Other(privacy_error(&b, name, seg.span)));
                    }
                    match b.res {
                        None => return Outcome::Failed(Fail::Silent),
                        Some(Res::Def(DefKind::Mod, m)) => {
                            module = self.module_idx(m).unwrap_or(self.root_idx);
                            module_binding = Some(b);
                        }
                        Some(res) => {
                            return Outcome::Failed(Fail::Unresolved {
                                path: path_text(&segs[..=i]),
                                span: seg.span,
                                label: format!("`{name}` is {}, not a module", a_descr(res)),
                            })
                        }
                    }
                }
                Look::NotFound if last_of_module_path => {
                    return Outcome::Failed(Fail::Unresolved {
                        path: path_text(segs),
                        span: d.span,
                        label: self.no_name_in(name, module),
                    })
                }
                Look::NotFound => {
                    let within = module_ref(&segs[i - 1]);
                    let label = match self.lookup(module, name, Namespace::Value, mode) {
                        Look::Wait => return Outcome::Wait((module, name)),
                        Look::Found(Binding { res: Some(res), .. }) => format!(
                            "expected type, found {} `{name}` in {within}",
                            super::res_descr(res)
                        ),
                        _ => format!("could not find `{name}` in {within}"),
                    };
                    return Outcome::Failed(Fail::Unresolved {
                        path: path_text(&segs[..=i]),
                        span: seg.span,
                        label,
                    });
                }
            }
            i += 1;
        }
        match d.kind {
            DirectiveKind::Module => {
                let def = self.module_def(module);
                let binding = match module_binding {
                    // `m::{self}`, `self as x` or `super as x`: the module as it was named.
                    Some(b) if i > 0 && matches!(segs[i - 1].kind, PathSegmentKind::Name(_)) => b,
                    _ => Binding {
                        res: Some(Res::Def(DefKind::Mod, def)),
                        vis: self.items.module_vis(def),
                        import: false,
                    },
                };
                Outcome::Done([Some(binding), None])
            }
            DirectiveKind::Name => {
                let last = &segs[segs.len() - 1];
                let PathSegmentKind::Name(name) = last.kind else {
                    return Outcome::Failed(Fail::Silent);
                };
                self.last_segment(d, module, name, false, mode)
            }
        }
    }

    /// The last segment of a `Name` directive: `name` in `module`, in both namespaces.
    fn last_segment(
        &self,
        d: &Directive,
        module: u32,
        name: Symbol,
        own_scope: bool,
        mode: Mode,
    ) -> Outcome {
        let mut found: [Option<Binding>; 2] = [None, None];
        for ns in NAMESPACES {
            match self.lookup(module, name, ns, mode) {
                Look::Wait => return Outcome::Wait((module, name)),
                Look::Found(b) => found[ns_index(ns)] = Some(b),
                Look::NotFound => {}
            }
        }
        let segs = &d.segments;
        let last_span = segs.last().map_or(d.span, |s| s.span);
        if found.iter().all(Option::is_none) {
            if own_scope && primitive(name).is_some() {
                return Outcome::Failed(Fail::Other(Diagnostic::unsupported(
                    format!("importing the primitive type `{name}`"),
                    d.span,
                )));
            }
            let label = if own_scope {
                format!("no external crate `{name}`")
            } else {
                self.no_name_in(name, module)
            };
            return Outcome::Failed(Fail::Unresolved {
                path: path_text(segs),
                span: d.span,
                label,
            });
        }
        let mut visible: [Option<Binding>; 2] = [None, None];
        let mut first_private = None;
        for (slot, b) in found.iter().enumerate() {
            if let Some(b) = b {
                if own_scope || self.accessible(b.vis, d.module) {
                    visible[slot] = Some(*b);
                } else if first_private.is_none() {
                    first_private = Some(*b);
                }
            }
        }
        if visible.iter().all(Option::is_none) {
            if let Some(b) = first_private {
                return Outcome::Failed(Fail::Other(privacy_error(&b, name, last_span)));
            }
        }
        // A placeholder beside a real binding is dropped; placeholders alone: silent.
        for slot in &mut visible {
            if slot.is_some_and(|b| b.res.is_none()) {
                *slot = None;
            }
        }
        if visible.iter().all(Option::is_none) {
            return Outcome::Failed(Fail::Silent);
        }
        Outcome::Done(visible)
    }

    /// "no `x` in `a::b`" / "no `x` in the root".
    fn no_name_in(&self, name: Symbol, module: u32) -> String {
        let def = self.module_def(module);
        if def == self.items.root() {
            format!("no `{name}` in the root")
        } else {
            format!("no `{name}` in `{}`", self.items.module_name(def))
        }
    }

    fn run(&mut self) {
        let mut cursor = 0usize;
        loop {
            while let Some(di) = self.queue.pop_front() {
                if self.done[di as usize] {
                    continue;
                }
                match self.resolve_directive(di, false) {
                    Outcome::Wait(key) => {
                        self.waiting_on[di as usize] = Some(key);
                        self.waiters.entry(key).or_default().push(di);
                    }
                    outcome => self.complete(di, outcome),
                }
            }
            while cursor < self.directives.len() && self.done[cursor] {
                cursor += 1;
            }
            if cursor == self.directives.len() {
                break;
            }
            let forced = self.find_cycle(cursor as u32);
            let outcome = self.resolve_directive(forced, true);
            self.complete(forced, outcome);
        }
    }

    /// Follows waits from `start` (a directive that waits) until one repeats; returns
    /// the directive whose wait closes the cycle.
    fn find_cycle(&self, start: u32) -> u32 {
        let mut seen: FxHashMap<u32, ()> = FxHashMap::default();
        let mut cur = start;
        loop {
            seen.insert(cur, ());
            let Some(key) = self.waiting_on[cur as usize] else {
                return cur;
            };
            let next = self
                .targets
                .get(&key)
                .and_then(|ds| ds.iter().copied().find(|&d| !self.done[d as usize]));
            match next {
                Some(n) if !seen.contains_key(&n) => cur = n,
                _ => return cur,
            }
        }
    }

    fn complete(&mut self, di: u32, outcome: Outcome) {
        let (module, target, vis) = {
            let d = &self.directives[di as usize];
            (d.module, d.target, d.vis)
        };
        match outcome {
            Outcome::Done(found) => {
                let bindings = self.check_reexport(di, found);
                if let Some(t) = target.filter(|t| PRIMITIVE_TYPE_NAMES.contains(&t.as_str())) {
                    // It would shadow the primitive type in this module.
                    let d = &self.directives[di as usize];
                    let span = d.rename_span.unwrap_or(d.span);
                    self.diagnostics.push(
                        Diagnostic::unsupported(
                            format!("an import named like the primitive type `{t}`"),
                            span,
                        )
                        .anchor(d.file, d.offset),
                    );
                } else if let Some(t) = target {
                    for ns in NAMESPACES {
                        if let Some(b) = bindings[ns_index(ns)] {
                            self.define(di, module, ns, t, b);
                        }
                    }
                }
            }
            Outcome::Failed(fail) => {
                match fail {
                    Fail::Silent => {}
                    Fail::Unresolved { path, span, label } => {
                        let group = self.directives[di as usize].group;
                        self.unresolved.entry(group).or_default().push(Unresolved {
                            directive: di,
                            path,
                            span,
                            label,
                        });
                    }
                    Fail::Other(diag) => {
                        let d = &self.directives[di as usize];
                        self.diagnostics.push(diag.anchor(d.file, d.offset));
                    }
                }
                // (Under an item's name it is never seen: the item is looked up first.)
                if let Some(t) = target {
                    let placeholder = Binding {
                        res: None,
                        vis,
                        import: true,
                    };
                    for ns in NAMESPACES {
                        let map = self.scopes[module as usize].map_mut(ns);
                        map.entry(t).or_insert(placeholder);
                    }
                }
            }
            Outcome::Wait(_) => return,
        }
        self.done[di as usize] = true;
        if let Some(t) = target {
            let key = (module, t);
            if let Some(n) = self.pending.get_mut(&key) {
                *n -= 1;
                // At 1, the one left may be a waiter's own directive, which it does not
                // wait for (`use super::util; use util::util;`): wake them to see.
                if *n <= 1 {
                    if let Some(ws) = self.waiters.remove(&key) {
                        self.queue.extend(ws);
                    }
                }
            }
        }
    }

    /// E0364/E0365: a `pub use` of something less visible. The import's bindings get the
    /// `use`'s visibility, or the imported one's when that is smaller.
    fn check_reexport(&mut self, di: u32, found: [Option<Binding>; 2]) -> [Option<Binding>; 2] {
        let d = &self.directives[di as usize];
        let ctx = TreeParents(self.items);
        let mut out: [Option<Binding>; 2] = [None, None];
        let mut any_ok = false;
        let mut error: Option<(Namespace, Binding)> = None;
        for ns in NAMESPACES {
            let Some(b) = found[ns_index(ns)] else {
                continue;
            };
            let vis = if vis_is_at_least(&ctx, b.vis, d.vis) {
                any_ok = true;
                d.vis
            } else {
                error = Some((ns, b));
                b.vis
            };
            out[ns_index(ns)] = Some(Binding {
                res: b.res,
                vis,
                import: true,
            });
        }
        if let (false, Some((ns, b))) = (any_ok, error) {
            let name = match (d.kind, d.segments.last().map(|s| s.kind)) {
                (_, Some(PathSegmentKind::Name(n))) => n.as_str().to_string(),
                _ => d
                    .target
                    .map_or_else(String::new, |t| t.as_str().to_string()),
            };
            let crate_public = b.vis == Vis::Restricted(self.items.root());
            let what = if crate_public {
                format!(
                    "`{name}` is only public within the crate, and cannot be re-exported outside"
                )
            } else {
                format!("`{name}` is private, and cannot be re-exported")
            };
            let diag = match ns {
                Namespace::Value => Diagnostic::error(what, d.span)
                    .with_code("E0364")
                    .with_note(format!(
                        "note: consider marking `{name}` as `pub` in the imported module"
                    )),
                Namespace::Type => Diagnostic::error(what, d.span)
                    .with_code("E0365")
                    .with_label_message(if crate_public {
                        format!("re-export of crate public `{name}`")
                    } else {
                        format!("re-export of private `{name}`")
                    })
                    .with_note(format!(
                        "note: consider declaring type or module `{name}` with `pub`"
                    )),
            };
            self.diagnostics.push(diag.anchor(d.file, d.offset));
        }
        out
    }

    /// Binds an import's name; a clash with an item (E0255) or another import (E0252) is
    /// reported at the later of the two in source order, and the earlier one stays.
    fn define(&mut self, di: u32, module: u32, ns: Namespace, name: Symbol, b: Binding) {
        let existing = self.get(module, ns, name);
        match existing {
            None | Some(Binding { res: None, .. }) => {
                self.scopes[module as usize].map_mut(ns).insert(name, b);
                self.import_src.insert((module, ns, name), di);
            }
            Some(old) if !old.import => {
                // An item: it stays.
                let Some(Res::Def(_, item)) = old.res else {
                    return;
                };
                let Some((file, span)) = self.items.item_site(item) else {
                    return;
                };
                let d = &self.directives[di as usize];
                let item_site = Site {
                    file,
                    span,
                    import: false,
                    kind: old.res,
                };
                let import_site = Site {
                    file: d.file,
                    span: d.span.shift(d.offset),
                    import: true,
                    kind: b.res,
                };
                let diag = if (item_site.file, item_site.span.lo)
                    < (import_site.file, import_site.span.lo)
                {
                    clash(name, ns, item_site, import_site)
                } else {
                    clash(name, ns, import_site, item_site)
                };
                self.diagnostics.push(diag);
            }
            Some(old) => {
                let Some(&dj) = self.import_src.get(&(module, ns, name)) else {
                    return;
                };
                let site = |r: &Self, i: u32, kind: Option<Res>| {
                    let d = &r.directives[i as usize];
                    Site {
                        file: d.file,
                        span: d.span.shift(d.offset),
                        import: true,
                        kind,
                    }
                };
                let (earlier, later) = if dj < di {
                    (site(self, dj, old.res), site(self, di, b.res))
                } else {
                    self.scopes[module as usize].map_mut(ns).insert(name, b);
                    self.import_src.insert((module, ns, name), di);
                    (site(self, di, b.res), site(self, dj, old.res))
                };
                self.diagnostics.push(clash(name, ns, earlier, later));
            }
        }
    }

    fn finish(mut self) -> ResolvedImports {
        let mut groups: Vec<(u32, Vec<Unresolved>)> = self.unresolved.drain().collect();
        groups.sort_by_key(|(g, _)| *g);
        for (_, mut leaves) in groups {
            leaves.sort_by_key(|u| u.directive);
            let d = &self.directives[leaves[0].directive as usize];
            let (file, offset) = (d.file, d.offset);
            let paths: Vec<String> = leaves.iter().map(|u| format!("`{}`", u.path)).collect();
            let message = if leaves.len() == 1 {
                format!("unresolved import {}", paths[0])
            } else {
                format!("unresolved imports {}", paths.join(", "))
            };
            let mut diag = Diagnostic::error_no_span(message).with_code("E0432");
            for u in leaves {
                diag.labels.push(Label {
                    file: None,
                    span: u.span,
                    message: u.label,
                });
            }
            self.diagnostics.push(diag.anchor(file, offset));
        }
        self.diagnostics.sort_by_key(|d| {
            d.labels.first().map_or((u32::MAX, 0), |l| {
                (l.file.map_or(u32::MAX, |f| f.0), l.span.lo)
            })
        });
        ResolvedImports {
            scopes: self.scopes,
            diagnostics: self.diagnostics,
        }
    }
}

/// One side of a name clash.
#[derive(Clone, Copy)]
struct Site {
    file: FileId,
    span: Span,
    import: bool,
    kind: Option<Res>,
}

/// E0428 / E0252 / E0255, rustc's wording, primary at the later definition.
fn clash(name: Symbol, ns: Namespace, earlier: Site, later: Site) -> Diagnostic {
    let code = match (earlier.import, later.import) {
        (true, true) => "E0252",
        (false, false) => "E0428",
        _ => "E0255",
    };
    let old_kind = ns_kind_descr(
        ns,
        match earlier.kind {
            Some(Res::Def(kind, _)) => Some(kind),
            _ => None,
        },
    );
    let mut diag =
        Diagnostic::error_no_span(format!("the name `{name}` is defined multiple times"))
            .with_code(code)
            .with_note(format!(
                "note: `{name}` must be defined only once in the {} namespace of this module",
                ns_descr(ns)
            ));
    diag.labels.push(Label {
        file: Some(later.file),
        span: later.span,
        message: if later.import {
            format!("`{name}` reimported here")
        } else {
            format!("`{name}` redefined here")
        },
    });
    diag.labels.push(Label {
        file: Some(earlier.file),
        span: earlier.span,
        message: if earlier.import {
            format!("previous import of the {old_kind} `{name}` here")
        } else {
            format!("previous definition of the {old_kind} `{name}` here")
        },
    });
    diag
}

/// "a struct", "a type alias", "a function", "a constant": `S` is a struct, not a module.
fn a_descr(res: Res) -> String {
    let d = super::res_descr(res);
    let article = if d.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {d}")
}

/// The module tree alone, as a [`ScopeLookup`] for visibility checks while scopes are
/// still being built (scopes themselves are not asked for; visibility names modules, so
/// only modules' parents are).
struct TreeParents<'a>(&'a dyn CrateItems);

impl ScopeLookup for TreeParents<'_> {
    fn root(&self) -> DefId {
        self.0.root()
    }
    fn parent(&self, def: DefId) -> Option<DefId> {
        self.0.module_parent(def)
    }
    fn name_in(&self, _module: DefId, _name: Symbol) -> NameBindings {
        NameBindings::default()
    }
    fn type_alias(&self, _def: DefId) -> Option<(DefId, Arc<crate::syntax::ast::TypeAliasDef>)> {
        None
    }
    fn item_name(&self, _def: DefId) -> Option<Symbol> {
        None
    }
}
