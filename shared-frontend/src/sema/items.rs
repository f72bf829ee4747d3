//! The item tree: every module, function, constant, struct and type alias of a crate,
//! named by its def-path and identified by the path's stable hash.
//!
//! A def-path is the chain of (namespace, name, disambiguator) from the crate root; the
//! disambiguator is non-zero only for the second, third, … item of one name in one
//! namespace of one module, which is an error (E0428) that is reported here. Everything
//! is kept in source order: a module's items in the order written, a file module's
//! contents right after the `mod` item that loads it. Items keep a shared handle
//! (`Arc`) on their syntax tree; nothing is copied.
//!
//! The rules for one module's item list (def-path segments and their disambiguators,
//! E0428, primitive type names, visibilities, which child modules are entered up to
//! `MAX_MODULE_DEPTH`) are stated once, in [`ModuleWalk`]; the query driver builds its
//! per-file item trees with the same walk.

use std::collections::hash_map::Entry;
use std::fmt::{self, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::limits::MAX_MODULE_DEPTH;
use crate::sema::def::{DefId, DefKind, DefPath, DefPathSegment, Namespace, Vis};
use crate::sema::modules::{child_module_dir, root_module_dir, LoadedCrate};
use crate::span::{FileId, Span};
use crate::syntax::ast::{
    ConstDef, FnDef, Ident, Item, ItemKind, ModDef, StructDef, TypeAliasDef, UseDef, Visibility,
};

/// The names of the primitive types; items may not take them (`unsupported`).
pub const PRIMITIVE_TYPE_NAMES: [&str; 5] = ["i32", "i64", "u64", "usize", "bool"];

/// The syntax of a def, shared with the file's syntax tree.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub enum ItemAst {
    /// The crate root module (it has no declaration).
    Root,
    Mod(Arc<ModDef>),
    Fn(Arc<FnDef>),
    Const(Arc<ConstDef>),
    Struct(Arc<StructDef>),
    TypeAlias(Arc<TypeAliasDef>),
    /// The syntax was taken out of the tree by [`ItemTree::release_syntax`] once nothing
    /// would read it again (the pipeline releases a function's syntax tree as soon as its
    /// body is type-checked).
    Released,
}

/// One def of the crate.
#[derive(Clone, Debug)]
pub struct DefData {
    pub id: DefId,
    pub kind: DefKind,
    pub path: DefPath,
    /// The item's name (`crate` for the root module).
    pub name: Symbol,
    /// The module the item is declared in; `None` for the crate root.
    pub parent: Option<DefId>,
    pub vis: Vis,
    /// The file the declaration is in (for the root: the root file).
    pub file: FileId,
    /// Absolute offset of the item in `file`; every span of the item is relative to it.
    pub offset: u32,
    /// The name's span, relative to `offset` (empty for the root).
    pub name_span: Span,
    pub ast: ItemAst,
}

/// How a module's items are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleOrigin {
    Root,
    /// `mod name;`
    File,
    /// `mod name { … }`
    Inline,
}

/// A `use` item of a module.
#[derive(Clone, Debug)]
pub struct UseItem {
    pub file: FileId,
    /// Absolute offset of the item; the tree's spans are relative to it.
    pub offset: u32,
    pub vis: Vis,
    pub def: Arc<UseDef>,
}

/// One module of the crate.
#[derive(Clone, Debug)]
pub struct ModuleData {
    pub def: DefId,
    pub origin: ModuleOrigin,
    /// The module's defs (child modules included), in source order.
    pub items: Vec<DefId>,
    pub uses: Vec<UseItem>,
    /// The file holding the module's items; `None` when a file module's file could not
    /// be loaded (the module is then empty).
    pub file: Option<FileId>,
    /// The module's directory, where its `mod name;` items look for files.
    pub dir: PathBuf,
    /// 0 for the root.
    pub depth: u32,
}

/// Every def of a crate.
#[derive(Clone, Debug)]
pub struct ItemTree {
    pub root: DefId,
    /// Every def, in source order (pre-order: a module before its items).
    defs: Vec<DefData>,
    def_index: FxHashMap<DefId, u32>,
    /// Every module, in source order.
    modules: Vec<ModuleData>,
    module_index: FxHashMap<DefId, u32>,
    /// E0428 duplicates and primitive-named items, anchored.
    pub diagnostics: Vec<Diagnostic>,
}

impl ItemTree {
    /// Builds the item tree of a loaded crate, each module's items by [`ModuleWalk`].
    /// Modules nested deeper than `MAX_MODULE_DEPTH` are left empty (loading reported
    /// them).
    pub fn build(krate: &LoadedCrate) -> ItemTree {
        let root_path = DefPath::root();
        let root = root_path.hash();
        let root_file = krate.root.unwrap_or(FileId(0));
        let mut b = Builder {
            krate,
            tree: ItemTree {
                root,
                defs: Vec::new(),
                def_index: FxHashMap::default(),
                modules: Vec::new(),
                module_index: FxHashMap::default(),
                diagnostics: Vec::new(),
            },
        };
        b.push_def(DefData {
            id: root,
            kind: DefKind::Mod,
            path: root_path,
            name: Symbol::intern("crate"),
            parent: None,
            vis: Vis::Public,
            file: root_file,
            offset: 0,
            name_span: Span::DUMMY,
            ast: ItemAst::Root,
        });
        let items: &[Item] = match krate.root.and_then(|f| krate.ast(f)) {
            Some(ast) => &ast.items,
            None => &[],
        };
        b.module(
            root,
            ModuleOrigin::Root,
            krate.root,
            items,
            root_module_dir(&krate.root_path),
            0,
        );
        b.tree
    }

    /// Every def, in source order.
    pub fn defs(&self) -> &[DefData] {
        &self.defs
    }

    /// Every module, in source order.
    pub fn modules(&self) -> &[ModuleData] {
        &self.modules
    }

    /// Takes the syntax of the `index`-th def of [`ItemTree::defs`] out of the tree,
    /// leaving [`ItemAst::Released`]: the syntax is freed once the caller drops it (and
    /// every other holder of it, such as the file's syntax tree, has). Everything else the
    /// tree knows of the def stays.
    pub fn release_syntax(&mut self, index: usize) -> ItemAst {
        std::mem::replace(&mut self.defs[index].ast, ItemAst::Released)
    }

    pub fn def(&self, id: DefId) -> Option<&DefData> {
        self.def_index.get(&id).map(|&i| &self.defs[i as usize])
    }

    pub fn module(&self, id: DefId) -> Option<&ModuleData> {
        self.module_index
            .get(&id)
            .map(|&i| &self.modules[i as usize])
    }

    /// The dense index of a module in [`ItemTree::modules`].
    pub fn module_idx(&self, id: DefId) -> Option<usize> {
        self.module_index.get(&id).map(|&i| i as usize)
    }

    /// The module a def is declared in.
    pub fn parent(&self, id: DefId) -> Option<DefId> {
        self.def(id).and_then(|d| d.parent)
    }

    /// Whether something with visibility `vis` can be seen from module `from`: it is
    /// public, or `from` is the module it is restricted to or a descendant of it.
    pub fn is_accessible(&self, vis: Vis, from: DefId) -> bool {
        match vis {
            Vis::Public => true,
            Vis::Restricted(m) => {
                let mut cur = Some(from);
                while let Some(c) = cur {
                    if c == m {
                        return true;
                    }
                    cur = self.parent(c);
                }
                false
            }
        }
    }

    /// The def's name as rustc prints it in messages: its path without `crate::`
    /// (`Point`, `geometry::Point`; `crate` for the root).
    pub fn def_name(&self, id: DefId) -> String {
        match self.def(id) {
            Some(d) => def_name(&d.path),
            None => String::from("{unknown}"),
        }
    }

    /// The defs whose def-path is written `text` (`crate::geometry::area`, duplicates as
    /// `crate::f#1`): one per namespace at most, for `rill emit --item`.
    pub fn find_by_path(&self, text: &str) -> Vec<DefId> {
        self.defs
            .iter()
            .filter(|d| d.path.to_string() == text)
            .map(|d| d.id)
            .collect()
    }

    /// A listing of every def (path, kind, visibility, file and name position), one per
    /// line, and of every module's `use` items, for tests and `rill emit`.
    pub fn dump(&self, krate: &LoadedCrate) -> String {
        let mut out = String::new();
        for d in &self.defs {
            let indent = "  ".repeat(d.path.segments.len());
            let _ = write!(
                out,
                "{indent}{} {} {}",
                d.kind.descr(),
                d.path,
                VisDisplay(self, d.vis)
            );
            if let ItemAst::Root = d.ast {
            } else {
                let file = krate.sources.files.get(d.file.0 as usize);
                let (line, col) = file
                    .map(|f| f.line_col(d.offset + d.name_span.lo))
                    .unwrap_or((0, 0));
                let _ = write!(
                    out,
                    " @{}:{line}:{col}",
                    file.map(|f| f.path.display().to_string())
                        .unwrap_or_default()
                );
            }
            if let Some(m) = self.module(d.id) {
                let _ = write!(out, " dir={:?}", m.dir.display().to_string());
                if m.file.is_none() {
                    out.push_str(" (no file)");
                }
                if !m.uses.is_empty() {
                    let _ = write!(out, " uses={}", m.uses.len());
                }
            }
            out.push('\n');
        }
        out
    }
}

/// The def's name as rustc prints it in messages: the def-path without `crate::`.
pub fn def_name(path: &DefPath) -> String {
    if path.segments.is_empty() {
        return String::from("crate");
    }
    let mut s = String::new();
    for (i, seg) in path.segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        s.push_str(seg.name.as_str());
    }
    s
}

/// Shows a visibility as rustc writes it: `pub`, `pub(crate)`, `pub(in crate::m)`.
pub struct VisDisplay<'a>(pub &'a ItemTree, pub Vis);

impl fmt::Display for VisDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Vis::Public => f.write_str("pub"),
            Vis::Restricted(m) if m == self.0.root => f.write_str("pub(crate)"),
            Vis::Restricted(m) => match self.0.def(m) {
                Some(d) => write!(f, "pub(in {})", d.path),
                None => write!(f, "pub(in {m})"),
            },
        }
    }
}

/// "value" / "module" / "type": how rustc names what a duplicate name was first bound to.
pub(crate) fn ns_kind_descr(ns: Namespace, kind: Option<DefKind>) -> &'static str {
    match (ns, kind) {
        (Namespace::Value, _) => "value",
        (Namespace::Type, Some(DefKind::Mod)) => "module",
        (Namespace::Type, _) => "type",
    }
}

pub(crate) fn ns_descr(ns: Namespace) -> &'static str {
    match ns {
        Namespace::Type => "type",
        Namespace::Value => "value",
    }
}

/// [`PRIMITIVE_TYPE_NAMES`], interned once per process.
fn primitive_type_symbols() -> [Symbol; 5] {
    static SYMBOLS: OnceLock<[Symbol; 5]> = OnceLock::new();
    *SYMBOLS.get_or_init(|| PRIMITIVE_TYPE_NAMES.map(Symbol::intern))
}

/// A def's syntax, borrowed from its module's items.
#[derive(Clone, Copy, Debug)]
pub enum DefSyntax<'a> {
    Mod(&'a Arc<ModDef>),
    Fn(&'a Arc<FnDef>),
    Const(&'a Arc<ConstDef>),
    Struct(&'a Arc<StructDef>),
    TypeAlias(&'a Arc<TypeAliasDef>),
}

impl DefSyntax<'_> {
    /// The shared handle the item tree keeps.
    pub fn to_ast(self) -> ItemAst {
        match self {
            DefSyntax::Mod(d) => ItemAst::Mod(d.clone()),
            DefSyntax::Fn(d) => ItemAst::Fn(d.clone()),
            DefSyntax::Const(d) => ItemAst::Const(d.clone()),
            DefSyntax::Struct(d) => ItemAst::Struct(d.clone()),
            DefSyntax::TypeAlias(d) => ItemAst::TypeAlias(d.clone()),
        }
    }
}

/// Where the items of a child module (a `mod` item) are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChildModule<'a> {
    /// `mod name { … }`: its items, to walk at [`ModuleWalk::child_depth`].
    Inline(&'a [Item]),
    /// `mod name;`: its items are those of the file it loads.
    File,
    /// A module (written as the origin says) nested deeper than `MAX_MODULE_DEPTH`: it
    /// stays empty (loading reported it).
    TooDeep(ModuleOrigin),
}

/// The first def of a name in one namespace of a module, as a duplicate refers to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstDef {
    pub kind: DefKind,
    /// Absolute offset of the item.
    pub offset: u32,
    /// The name's span, relative to `offset`.
    pub name_span: Span,
}

/// One def among a module's items, named as the item tree names it.
#[derive(Clone, Copy, Debug)]
pub struct ModuleDef<'a> {
    pub kind: DefKind,
    pub syntax: DefSyntax<'a>,
    /// The def's last def-path segment (its disambiguator counts the earlier items of
    /// the same name and namespace in the module).
    pub segment: DefPathSegment,
    pub vis: Vis,
    /// Absolute offset of the item in its file (an ordinal in a skeleton).
    pub offset: u32,
    /// The name's span, relative to `offset`.
    pub name_span: Span,
    /// The item takes the name of a primitive type (`unsupported`).
    pub primitive_name: bool,
    /// The earlier def this one redefines (E0428): set exactly when the disambiguator
    /// is non-zero.
    pub duplicate_of: Option<FirstDef>,
    /// For a `mod` item: where its items are.
    pub child: Option<ChildModule<'a>>,
}

impl ModuleDef<'_> {
    /// Whether the item tree reports an error for this def (a duplicate name or a
    /// primitive type's name).
    #[inline]
    pub fn is_error(&self) -> bool {
        self.primitive_name || self.duplicate_of.is_some()
    }
}

/// One item of a module.
#[derive(Clone, Copy, Debug)]
pub enum ModuleEntry<'a> {
    /// A `use` item; it defines nothing.
    Use {
        /// Absolute offset of the item (an ordinal in a skeleton).
        offset: u32,
        vis: Vis,
        def: &'a Arc<UseDef>,
    },
    Def(ModuleDef<'a>),
}

/// The item tree's rules for one module's item list, in source order: each def's
/// def-path segment with its disambiguator, its visibility, whether it is an error (a
/// name defined twice in one namespace, E0428; a primitive type's name), and for a `mod`
/// item where its items are, up to `MAX_MODULE_DEPTH`. Both [`ItemTree::build`] and the
/// query driver's per-file item trees walk modules with it; the caller descends into
/// child modules (an inline module's items with a new walk at [`ModuleWalk::child_depth`]).
pub struct ModuleWalk<'a> {
    items: &'a [Item],
    /// The index in `items` of the next item.
    next: usize,
    module: DefId,
    depth: u32,
    primitives: [Symbol; 5],
    /// (namespace, name) → the index in `items` of the first def, how many defs took
    /// the name so far.
    seen: FxHashMap<(Namespace, Symbol), (u32, u32)>,
}

impl<'a> ModuleWalk<'a> {
    /// The walk over `items`, the items of `module`, a module at `depth` (0 for the root).
    #[inline]
    pub fn new(module: DefId, depth: u32, items: &'a [Item]) -> ModuleWalk<'a> {
        ModuleWalk {
            items,
            next: 0,
            module,
            depth,
            primitives: primitive_type_symbols(),
            seen: FxHashMap::default(),
        }
    }

    /// The depth of the module's child modules.
    #[inline]
    pub fn child_depth(&self) -> u32 {
        self.depth + 1
    }
}

impl<'a> Iterator for ModuleWalk<'a> {
    type Item = ModuleEntry<'a>;

    #[inline]
    fn next(&mut self) -> Option<ModuleEntry<'a>> {
        let items: &'a [Item] = self.items;
        let index = self.next;
        let item = items.get(index)?;
        self.next += 1;
        let vis = resolve_vis(item.vis, self.module);
        let (kind, name, syntax) = match def_of(item) {
            Ok(def) => def,
            Err(def) => {
                return Some(ModuleEntry::Use {
                    offset: item.offset,
                    vis,
                    def,
                })
            }
        };
        let ns = kind.namespace();
        let (disambiguator, first) = match self.seen.entry((ns, name.name)) {
            Entry::Vacant(slot) => {
                slot.insert((index as u32, 1));
                (0, None)
            }
            Entry::Occupied(mut slot) => {
                let (first, count) = slot.get_mut();
                *count += 1;
                (*count - 1, Some(*first))
            }
        };
        // Duplicates are rare: the first def is looked up again only for them.
        let duplicate_of = first.and_then(|i| {
            let first = &items[i as usize];
            def_of(first).ok().map(|(kind, name, _)| FirstDef {
                kind,
                offset: first.offset,
                name_span: name.span,
            })
        });
        let child = match &item.kind {
            ItemKind::Mod(m) => Some(match (&m.items, self.child_depth() > MAX_MODULE_DEPTH) {
                (Some(_), true) => ChildModule::TooDeep(ModuleOrigin::Inline),
                (None, true) => ChildModule::TooDeep(ModuleOrigin::File),
                (Some(inner), false) => ChildModule::Inline(inner),
                (None, false) => ChildModule::File,
            }),
            _ => None,
        };
        Some(ModuleEntry::Def(ModuleDef {
            kind,
            syntax,
            segment: DefPathSegment {
                ns,
                name: name.name,
                disambiguator,
            },
            vis,
            offset: item.offset,
            name_span: name.span,
            primitive_name: self.primitives.contains(&name.name),
            duplicate_of,
            child,
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (
            self.items.len() - self.next,
            Some(self.items.len() - self.next),
        )
    }
}

impl ExactSizeIterator for ModuleWalk<'_> {}

/// The kind, name and syntax of the def an item defines, or the `use` item it is.
#[inline]
fn def_of(item: &Item) -> Result<(DefKind, Ident, DefSyntax<'_>), &Arc<UseDef>> {
    Ok(match &item.kind {
        ItemKind::Use(def) => return Err(def),
        ItemKind::Fn(d) => (DefKind::Fn, d.name, DefSyntax::Fn(d)),
        ItemKind::Const(d) => (DefKind::Const, d.name, DefSyntax::Const(d)),
        ItemKind::Struct(d) => (DefKind::Struct, d.name, DefSyntax::Struct(d)),
        ItemKind::TypeAlias(d) => (DefKind::TypeAlias, d.name, DefSyntax::TypeAlias(d)),
        ItemKind::Mod(d) => (DefKind::Mod, d.name, DefSyntax::Mod(d)),
    })
}

struct Builder<'a> {
    krate: &'a LoadedCrate,
    tree: ItemTree,
}

impl Builder<'_> {
    fn push_def(&mut self, data: DefData) -> bool {
        if self.tree.def_index.contains_key(&data.id) {
            // Two distinct def-paths with one 128-bit hash: not expected to ever happen;
            // keep the first rather than corrupt the tables.
            return false;
        }
        self.tree
            .def_index
            .insert(data.id, self.tree.defs.len() as u32);
        self.tree.defs.push(data);
        true
    }

    fn module(
        &mut self,
        id: DefId,
        origin: ModuleOrigin,
        file: Option<FileId>,
        items: &[Item],
        dir: PathBuf,
        depth: u32,
    ) {
        let module_idx = self.tree.modules.len();
        self.tree.module_index.insert(id, module_idx as u32);
        self.tree.modules.push(ModuleData {
            def: id,
            origin,
            items: Vec::new(),
            uses: Vec::new(),
            file,
            dir: dir.clone(),
            depth,
        });
        let Some(file) = file else {
            return;
        };
        let module_path = self
            .tree
            .def(id)
            .map(|d| d.path.clone())
            .unwrap_or_default();
        let walk = ModuleWalk::new(id, depth, items);
        let child_depth = walk.child_depth();
        for entry in walk {
            let d = match entry {
                ModuleEntry::Use { offset, vis, def } => {
                    self.tree.modules[module_idx].uses.push(UseItem {
                        file,
                        offset,
                        vis,
                        def: def.clone(),
                    });
                    continue;
                }
                ModuleEntry::Def(d) => d,
            };
            let name = d.segment.name;
            let abs_name = d.name_span.shift(d.offset);
            let name_str = name.as_str();
            if d.primitive_name {
                self.tree.diagnostics.push(
                    Diagnostic::unsupported(
                        format!("an item named like the primitive type `{name_str}`"),
                        abs_name,
                    )
                    .anchor(file, 0),
                );
            }
            if let Some(first) = d.duplicate_of {
                let ns = d.segment.ns;
                self.tree.diagnostics.push(
                    Diagnostic::error(
                        format!("the name `{name_str}` is defined multiple times"),
                        abs_name,
                    )
                    .with_code("E0428")
                    .with_label_message(format!("`{name_str}` redefined here"))
                    // One module's items are all in one file.
                    .with_secondary(
                        first.name_span.shift(first.offset),
                        format!(
                            "previous definition of the {} `{name_str}` here",
                            ns_kind_descr(ns, Some(first.kind))
                        ),
                    )
                    .anchor(file, 0)
                    .with_note(format!(
                        "note: `{name_str}` must be defined only once in the {} namespace of this module",
                        ns_descr(ns)
                    )),
                );
            }
            let path = module_path.child(d.segment);
            let def_id = path.hash();
            let pushed = self.push_def(DefData {
                id: def_id,
                kind: d.kind,
                path,
                name,
                parent: Some(id),
                vis: d.vis,
                file,
                offset: d.offset,
                name_span: d.name_span,
                ast: d.syntax.to_ast(),
            });
            if !pushed {
                continue;
            }
            self.tree.modules[module_idx].items.push(def_id);
            let Some(child) = d.child else {
                continue;
            };
            let child_dir = child_module_dir(&dir, name_str);
            match child {
                ChildModule::Inline(inner) => self.module(
                    def_id,
                    ModuleOrigin::Inline,
                    Some(file),
                    inner,
                    child_dir,
                    child_depth,
                ),
                ChildModule::File => {
                    let child_file = self.krate.mod_file(file, d.offset);
                    let krate = self.krate;
                    let child_items: &[Item] = match child_file.and_then(|f| krate.ast(f)) {
                        Some(ast) => &ast.items,
                        None => &[],
                    };
                    self.module(
                        def_id,
                        ModuleOrigin::File,
                        child_file,
                        child_items,
                        child_dir,
                        child_depth,
                    );
                }
                // Reported while loading; the module stays empty.
                ChildModule::TooDeep(origin) => {
                    self.module(def_id, origin, None, &[], child_dir, child_depth)
                }
            }
        }
    }
}

fn resolve_vis(vis: Visibility, module: DefId) -> Vis {
    match vis {
        Visibility::Pub => Vis::Public,
        Visibility::Private => Vis::Restricted(module),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::SourceFileAst;
    use crate::syntax::parser::parse_file;

    fn parse(src: &str) -> SourceFileAst {
        let (ast, diags) = parse_file(src);
        assert!(diags.is_empty(), "{diags:?}");
        ast
    }

    fn defs(walk: ModuleWalk<'_>) -> Vec<ModuleDef<'_>> {
        walk.filter_map(|e| match e {
            ModuleEntry::Def(d) => Some(d),
            ModuleEntry::Use { .. } => None,
        })
        .collect()
    }

    /// (name, namespace, disambiguator) of each def.
    fn segments(defs: &[ModuleDef<'_>]) -> Vec<(String, Namespace, u32)> {
        defs.iter()
            .map(|d| {
                let s = d.segment;
                (s.name.as_str().to_owned(), s.ns, s.disambiguator)
            })
            .collect()
    }

    #[test]
    fn module_walk_numbers_duplicates_per_namespace_and_flags_errors() {
        let src = "pub fn f() {}\n\
                   fn f() {}\n\
                   const f: i32 = 1;\n\
                   #[derive(Clone, Copy)]\n\
                   struct S { x: i32 }\n\
                   pub type S = i32;\n\
                   mod S {}\n\
                   #[derive(Clone, Copy)]\n\
                   pub struct u64 { x: i32 }\n\
                   use crate::S;\n\
                   pub use crate::f;\n\
                   mod file;\n";
        let ast = parse(src);
        let module = DefPath::root().hash();
        let entries: Vec<_> = ModuleWalk::new(module, 0, &ast.items).collect();
        assert_eq!(entries.len(), 10);
        let uses: Vec<Vis> = entries
            .iter()
            .filter_map(|e| match e {
                ModuleEntry::Use { vis, .. } => Some(*vis),
                ModuleEntry::Def(_) => None,
            })
            .collect();
        assert_eq!(uses, [Vis::Restricted(module), Vis::Public]);

        let defs = defs(ModuleWalk::new(module, 0, &ast.items));
        use Namespace::{Type, Value};
        let seg = |n: &str, ns, d| (n.to_owned(), ns, d);
        assert_eq!(
            segments(&defs),
            [
                seg("f", Value, 0),
                seg("f", Value, 1),
                seg("f", Value, 2),
                seg("S", Type, 0),
                seg("S", Type, 1),
                seg("S", Type, 2),
                seg("u64", Type, 0),
                seg("file", Type, 0),
            ]
        );
        let kinds: Vec<DefKind> = defs.iter().map(|d| d.kind).collect();
        use DefKind::*;
        assert_eq!(kinds, [Fn, Fn, Const, Struct, TypeAlias, Mod, Struct, Mod]);

        // Each duplicate points at the first def of its name in its namespace.
        let first_f = FirstDef {
            kind: Fn,
            offset: defs[0].offset,
            name_span: defs[0].name_span,
        };
        let first_s = FirstDef {
            kind: Struct,
            offset: defs[3].offset,
            name_span: defs[3].name_span,
        };
        let dups: Vec<Option<FirstDef>> = defs.iter().map(|d| d.duplicate_of).collect();
        assert_eq!(
            dups,
            [
                None,
                Some(first_f),
                Some(first_f),
                None,
                Some(first_s),
                Some(first_s),
                None,
                None
            ]
        );
        // The first `fn f` starts the file; `S`'s name is `S`.
        assert_eq!(defs[0].offset, 0);
        let s = &defs[3];
        let name = s.name_span.shift(s.offset);
        assert_eq!(&src[name.lo as usize..name.hi as usize], "S");

        let primitive: Vec<bool> = defs.iter().map(|d| d.primitive_name).collect();
        assert_eq!(
            primitive,
            [false, false, false, false, false, false, true, false]
        );
        let errors: Vec<bool> = defs.iter().map(ModuleDef::is_error).collect();
        assert_eq!(errors, [false, true, true, false, true, true, true, false]);

        let vis: Vec<Vis> = defs.iter().map(|d| d.vis).collect();
        let private = Vis::Restricted(module);
        assert_eq!(
            vis,
            [
                Vis::Public,
                private,
                private,
                private,
                Vis::Public,
                private,
                Vis::Public,
                private
            ]
        );

        let children: Vec<Option<ChildModule<'_>>> = defs.iter().map(|d| d.child).collect();
        assert_eq!(
            children,
            [
                None,
                None,
                None,
                None,
                None,
                Some(ChildModule::Inline(&[])),
                None,
                Some(ChildModule::File)
            ]
        );
    }

    #[test]
    fn module_walk_stops_at_the_depth_limit() {
        let src = "mod a { pub mod b { fn g() {} } mod c; fn a() {} }\nmod d;\n";
        let ast = parse(src);
        let module = DefPath::root().hash();
        // The module holding these items is one level above the limit: `a` and `d` are
        // at the limit, `a`'s own modules beyond it.
        let depth = MAX_MODULE_DEPTH - 1;
        let walk = ModuleWalk::new(module, depth, &ast.items);
        assert_eq!(walk.child_depth(), MAX_MODULE_DEPTH);
        let top = defs(walk);
        assert_eq!(top.len(), 2);
        let Some(ChildModule::Inline(inner)) = top[0].child else {
            panic!("`a` is entered: {:?}", top[0].child);
        };
        assert_eq!(top[1].child, Some(ChildModule::File));

        let a = DefPath::root().child(top[0].segment).hash();
        let nested = defs(ModuleWalk::new(a, MAX_MODULE_DEPTH, inner));
        assert_eq!(
            segments(&nested),
            [
                ("b".to_owned(), Namespace::Type, 0),
                ("c".to_owned(), Namespace::Type, 0),
                // A function and a module of one name live in different namespaces.
                ("a".to_owned(), Namespace::Value, 0),
            ]
        );
        assert_eq!(
            nested.iter().map(|d| d.child).collect::<Vec<_>>(),
            [
                Some(ChildModule::TooDeep(ModuleOrigin::Inline)),
                Some(ChildModule::TooDeep(ModuleOrigin::File)),
                None
            ]
        );
        assert!(nested.iter().all(|d| !d.is_error()));
        // Visibilities are restricted to the module the walk is over.
        assert_eq!(nested[0].vis, Vis::Public);
        assert_eq!(nested[1].vis, Vis::Restricted(a));
    }
}
