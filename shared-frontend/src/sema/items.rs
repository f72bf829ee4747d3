//! The item tree: every module, function, constant, struct and type alias of a crate,
//! named by its def-path and identified by the path's stable hash.
//!
//! A def-path is the chain of (namespace, name, disambiguator) from the crate root; the
//! disambiguator is non-zero only for the second, third, … item of one name in one
//! namespace of one module, which is an error (E0428) that is reported here. Everything
//! is kept in source order: a module's items in the order written, a file module's
//! contents right after the `mod` item that loads it. Items keep a shared handle
//! (`Arc`) on their syntax tree; nothing is copied.

use std::fmt::{self, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::limits::MAX_MODULE_DEPTH;
use crate::sema::def::{DefId, DefKind, DefPath, DefPathSegment, Namespace, Vis};
use crate::sema::modules::{child_module_dir, root_module_dir, LoadedCrate};
use crate::span::{FileId, Span};
use crate::syntax::ast::{
    ConstDef, FnDef, Item, ItemKind, ModDef, StructDef, TypeAliasDef, UseDef, Visibility,
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
    /// Builds the item tree of a loaded crate. Modules nested deeper than
    /// `MAX_MODULE_DEPTH` are left empty (loading reported them).
    pub fn build(krate: &LoadedCrate) -> ItemTree {
        let root_path = DefPath::root();
        let root = root_path.hash();
        let root_file = krate.root.unwrap_or(FileId(0));
        let mut b = Builder {
            krate,
            primitives: PRIMITIVE_TYPE_NAMES.map(Symbol::intern),
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

struct Builder<'a> {
    krate: &'a LoadedCrate,
    tree: ItemTree,
    /// [`PRIMITIVE_TYPE_NAMES`], interned once.
    primitives: [Symbol; 5],
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
        // (namespace, name) → (index of the first def in `defs`, how many so far).
        let mut seen: FxHashMap<(Namespace, Symbol), (u32, u32)> = FxHashMap::default();
        for item in items {
            let (kind, name, ast) = match &item.kind {
                ItemKind::Use(u) => {
                    self.tree.modules[module_idx].uses.push(UseItem {
                        file,
                        offset: item.offset,
                        vis: resolve_vis(item.vis, id),
                        def: u.clone(),
                    });
                    continue;
                }
                ItemKind::Fn(d) => (DefKind::Fn, d.name, ItemAst::Fn(d.clone())),
                ItemKind::Const(d) => (DefKind::Const, d.name, ItemAst::Const(d.clone())),
                ItemKind::Struct(d) => (DefKind::Struct, d.name, ItemAst::Struct(d.clone())),
                ItemKind::TypeAlias(d) => {
                    (DefKind::TypeAlias, d.name, ItemAst::TypeAlias(d.clone()))
                }
                ItemKind::Mod(d) => (DefKind::Mod, d.name, ItemAst::Mod(d.clone())),
            };
            let ns = kind.namespace();
            let name_span = name.span;
            let abs_name = name_span.shift(item.offset);
            let name_str = name.name.as_str();
            if self.primitives.contains(&name.name) {
                self.tree.diagnostics.push(
                    Diagnostic::unsupported(
                        format!("an item named like the primitive type `{name_str}`"),
                        abs_name,
                    )
                    .anchor(file, 0),
                );
            }
            let disambiguator = match seen.get_mut(&(ns, name.name)) {
                None => {
                    seen.insert((ns, name.name), (self.tree.defs.len() as u32, 1));
                    0
                }
                Some((first, count)) => {
                    let first = &self.tree.defs[*first as usize];
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
                    *count += 1;
                    *count - 1
                }
            };
            let path = module_path.child(DefPathSegment {
                ns,
                name: name.name,
                disambiguator,
            });
            let def_id = path.hash();
            let pushed = self.push_def(DefData {
                id: def_id,
                kind,
                path,
                name: name.name,
                parent: Some(id),
                vis: resolve_vis(item.vis, id),
                file,
                offset: item.offset,
                name_span,
                ast,
            });
            if !pushed {
                continue;
            }
            self.tree.modules[module_idx].items.push(def_id);
            if let ItemKind::Mod(m) = &item.kind {
                let child_dir = child_module_dir(&dir, name_str);
                if depth + 1 > MAX_MODULE_DEPTH {
                    // Reported while loading; the module stays empty.
                    let origin = if m.items.is_some() {
                        ModuleOrigin::Inline
                    } else {
                        ModuleOrigin::File
                    };
                    self.module(def_id, origin, None, &[], child_dir, depth + 1);
                    continue;
                }
                match &m.items {
                    Some(inner) => self.module(
                        def_id,
                        ModuleOrigin::Inline,
                        Some(file),
                        inner,
                        child_dir,
                        depth + 1,
                    ),
                    None => {
                        let child_file = self.krate.mod_file(file, item.offset);
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
                            depth + 1,
                        );
                    }
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
