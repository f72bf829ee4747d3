//! Builds a program model from a [`GenConfig`]: the module tree, then items module by
//! module (structs, aliases, constants, functions that call earlier functions), imports and
//! re-exports, printers, and finally `main`.
//!
//! Functions only call functions created before them (plus bounded self-recursion), so the
//! call graph is acyclic; each function's cost bound keeps the run time of `main` bounded
//! however large the program is.

use std::collections::HashSet;
use std::sync::Arc;

use super::body::{if_then, BodyGen, ModCtx, FN_COST_CAP, RECURSION_BOUND};
use super::consteval::{eval_const, Val};
use super::model::*;
use super::render::block_lines;
use super::rng::Rng;
use super::GenConfig;

const MOD_WORDS: &[&str] = &[
    "geometry",
    "physics",
    "ledger",
    "parser",
    "render",
    "table",
    "cache",
    "matrix",
    "stats",
    "queue",
    "graph",
    "inventory",
    "billing",
    "sensor",
    "network",
    "storage",
    "audit",
    "report",
    "util",
    "codec",
    "grid",
    "tiles",
    "paths",
    "timer",
    "bank",
    "orders",
    "shapes",
    "colors",
    "rules",
    "engine",
    "kernel",
    "layout",
    "metrics",
    "scoring",
    "search",
    "index",
    "vector",
    "buffer",
    "detail",
    "helpers",
    "model",
    "checks",
    "bounds",
    "units",
];
const FN_WORDS: &[&str] = &[
    "compute", "scale", "merge", "fold", "step", "blend", "mix", "clamp", "probe", "shift",
    "spread", "count", "pack", "unpack", "rotate", "measure", "weigh", "score", "check", "tally",
    "reduce", "expand", "split", "join", "walk", "scan", "seek", "grow", "shrink", "bump", "drift",
    "trace", "sample", "digest", "route", "align", "area", "volume", "lerp",
];
const CONST_WORDS: &[&str] = &[
    "LIMIT",
    "SCALE",
    "OFFSET",
    "BASE",
    "FACTOR",
    "MASK",
    "SEED",
    "THRESHOLD",
    "WIDTH",
    "HEIGHT",
    "TABLE",
    "ORIGIN",
    "GRID",
    "WEIGHTS",
    "STRIDE",
    "BIAS",
    "STEP",
    "PRIME",
];
const STRUCT_WORDS: &[&str] = &[
    "Point", "Vec2", "Rect", "Span", "Pair", "Cell", "Entry", "Stats", "Sample", "Frame", "Token",
    "Slot", "Budget", "Window", "Bounds", "Color", "Reading", "Account",
];
const ALIAS_WORDS: &[&str] = &[
    "Meters", "Index", "Score", "Count", "Row", "Cells", "Weight", "Tick",
];
/// Field names are local names too, so that struct literals can use the shorthand.
const FIELD_NAMES: &[&str] = &[
    "x", "y", "w", "h", "len", "id", "lo", "hi", "count", "score", "left", "right", "top", "size",
    "level", "weight", "flag", "depth", "width", "key", "base", "step", "total",
];

/// Upper bound on the summed cost of what `main` calls.
const MAIN_COST_CAP: u64 = 2_000_000;

/// Names declared in one module, per namespace, to keep imports from colliding.
#[derive(Default, Clone)]
struct Namespaces {
    values: HashSet<String>,
    types: HashSet<String>,
}

pub(crate) fn build(cfg: &GenConfig) -> Model {
    let mut b = Builder::new(cfg);
    b.run();
    b.m
}

struct Builder<'c> {
    cfg: &'c GenConfig,
    rng: Rng,
    m: Model,
    lines: usize,
    names: Vec<Namespaces>,
    neighbors: Vec<Vec<ModId>>,
    mod_fns: Vec<Vec<FnId>>,
    mod_consts: Vec<Vec<ConstId>>,
    mod_structs: Vec<Vec<StructId>>,
    mod_aliases: Vec<Vec<AliasId>>,
    children: Vec<Vec<ModId>>,
    counter: u32,
    cx: ModCtx,
    called: Vec<bool>,
    printers: Vec<FnId>,
}

impl<'c> Builder<'c> {
    fn new(cfg: &'c GenConfig) -> Builder<'c> {
        let root = Module {
            name: "crate".into(),
            parent: None,
            is_pub: true,
            layout: Layout::File,
            depth: 0,
            items: Vec::new(),
            imports: Vec::new(),
            inner_doc: None,
        };
        Builder {
            cfg,
            rng: Rng::new(cfg.seed),
            m: Model {
                mods: vec![Arc::new(root)],
                fns: Vec::new(),
                consts: Vec::new(),
                structs: Vec::new(),
                aliases: Vec::new(),
                main: FnId(0),
                pending_error: None,
                fresh: 0,
                reexports: Default::default(),
            },
            lines: 0,
            names: vec![Namespaces::default()],
            neighbors: vec![Vec::new()],
            mod_fns: vec![Vec::new()],
            mod_consts: vec![Vec::new()],
            mod_structs: vec![Vec::new()],
            mod_aliases: vec![Vec::new()],
            children: vec![Vec::new()],
            counter: 0,
            cx: ModCtx::default(),
            called: Vec::new(),
            printers: Vec::new(),
        }
    }

    fn fresh(&mut self) -> u32 {
        self.counter += 1;
        self.counter
    }

    fn module_mut(&mut self, m: ModId) -> &mut Module {
        Arc::make_mut(&mut self.m.mods[m.idx()])
    }

    fn run(&mut self) {
        let target = self.cfg.target_lines.max(20);
        let est_fns = target / 15;
        let fpm = (est_fns / 5).clamp(2, self.cfg.fns_per_module.max(2));
        if self.rng.chance(30) {
            self.module_mut(ROOT).inner_doc = Some("A generated Rill program.".into());
            self.lines += 1;
        }
        let mut cur = ROOT;
        self.start_module(cur);
        let mut fns_here = 0;
        let budget = target.saturating_sub(40 + target / 50);
        while self.lines < budget {
            if fns_here >= fpm.div_ceil(if cur == ROOT { 2 } else { 1 }) {
                self.finish_module(cur);
                cur = self.new_module();
                self.start_module(cur);
                fns_here = 0;
            }
            if self.rng.chance(8) {
                self.gen_const(cur);
            } else {
                self.gen_fn(cur, FnKind::Normal);
                fns_here += 1;
            }
        }
        self.finish_module(cur);
        self.gen_printers();
        self.gen_main();
    }

    // -----------------------------------------------------------------------------------
    // Modules

    fn new_module(&mut self) -> ModId {
        let id = ModId(self.m.mods.len() as u32);
        let cands: Vec<ModId> = (0..self.m.mods.len() as u32)
            .map(ModId)
            .filter(|&m| self.m.module(m).depth < 3 && self.children[m.idx()].len() < 10)
            .collect();
        let parent = if cands.len() <= 1 || self.rng.chance(35) {
            ROOT
        } else if self.rng.chance(50) {
            cands[cands.len() - 1 - self.rng.index(cands.len().min(6))]
        } else {
            *self.rng.pick(&cands)
        };
        let pdepth = self.m.module(parent).depth;
        let layout = match self.rng.weighted(&[20, 50, 30]) {
            0 => Layout::Inline,
            1 => Layout::File,
            _ => Layout::ModRs,
        };
        let mut name = self.rng.pick(MOD_WORDS).to_string();
        if self.names[parent.idx()].types.contains(&name) {
            name = format!("{name}{}", self.fresh());
        }
        self.names[parent.idx()].types.insert(name.clone());
        let is_pub = self.rng.chance(65);
        let inner_doc = self.rng.chance(20).then(|| format!("The `{name}` module."));
        self.m.mods.push(Arc::new(Module {
            name,
            parent: Some(parent),
            is_pub,
            layout,
            depth: pdepth + 1,
            items: Vec::new(),
            imports: Vec::new(),
            inner_doc,
        }));
        self.names.push(Namespaces::default());
        self.mod_fns.push(Vec::new());
        self.mod_consts.push(Vec::new());
        self.mod_structs.push(Vec::new());
        self.mod_aliases.push(Vec::new());
        self.children.push(Vec::new());
        self.children[parent.idx()].push(id);
        // Place the declaration among the parent's items.
        let pos = {
            let items = &self.m.module(parent).items;
            if items.is_empty() || self.rng.chance(60) {
                items.len()
            } else {
                self.rng.index(items.len() + 1)
            }
        };
        self.module_mut(parent).items.insert(pos, Item::Mod(id));
        self.lines += if layout == Layout::Inline { 3 } else { 1 };
        // Neighbors: the parent, and a few earlier modules whose functions this one calls.
        let mut nb = vec![ROOT];
        if parent != ROOT {
            nb.push(parent);
        }
        let n_mods = self.m.mods.len() - 1;
        for _ in 0..3 {
            let k = if self.rng.chance(60) {
                n_mods - 1 - self.rng.index(n_mods.min(8))
            } else {
                self.rng.index(n_mods)
            };
            let k = ModId(k as u32);
            if !nb.contains(&k) {
                nb.push(k);
            }
        }
        self.neighbors.push(nb);
        id
    }

    /// Prepares the context for filling module `m` and creates its structs, aliases and
    /// first constants.
    fn start_module(&mut self, m: ModId) {
        self.neighbors_ctx(m);
        let n_structs = self.rng.range(if m == ROOT { 1 } else { 0 }, 2);
        for _ in 0..n_structs {
            self.gen_struct(m);
        }
        if self.rng.chance(50) {
            self.gen_alias(m);
        }
        if self.rng.chance(35) || m == ROOT {
            self.gen_len_const(m);
        }
        let n_consts = self.rng.range(1, 3);
        for _ in 0..n_consts {
            self.gen_const(m);
        }
    }

    /// Adds re-exports of some of the module's public items to an ancestor, and sometimes
    /// an item order shuffle.
    fn finish_module(&mut self, m: ModId) {
        if m == ROOT || !self.rng.chance(45) {
            return;
        }
        let mut keys: Vec<ItemKey> = Vec::new();
        keys.extend(
            self.mod_fns[m.idx()]
                .iter()
                .filter(|f| self.m.func(**f).is_pub)
                .map(|f| ItemKey::Fn(*f)),
        );
        keys.extend(
            self.mod_consts[m.idx()]
                .iter()
                .filter(|c| self.m.konst(**c).is_pub)
                .map(|c| ItemKey::Const(*c)),
        );
        keys.extend(
            self.mod_structs[m.idx()]
                .iter()
                .filter(|s| self.m.strukt(**s).is_pub)
                .map(|s| ItemKey::Struct(*s)),
        );
        if keys.is_empty() {
            return;
        }
        let n = self.rng.range(1, 2);
        for _ in 0..n {
            let key = *self.rng.pick(&keys);
            let parent = self.m.module(m).parent.expect("non-root");
            let target = if self.rng.chance(70) { parent } else { ROOT };
            let (home, is_pub) = self.m.item_home(key);
            if !self.m.path_ok(target, target, home, is_pub) {
                continue;
            }
            if self
                .m
                .module(target)
                .imports
                .iter()
                .any(|i| i.target == key)
            {
                continue;
            }
            let alias = self.rng.chance(30).then(|| self.alias_name(key));
            let local = alias
                .clone()
                .unwrap_or_else(|| self.m.item_name(key).to_string());
            if !self.name_free(target, key, &local) {
                continue;
            }
            self.claim_name(target, key, local);
            let hint = self.rng.next_u64() as u8;
            self.module_mut(target).imports.push(Import {
                target: key,
                alias: alias.clone(),
                is_pub: true,
                hint,
            });
            let exported = alias.unwrap_or_else(|| self.m.item_name(key).to_string());
            Arc::make_mut(&mut self.m.reexports)
                .entry(key)
                .or_default()
                .push((target, exported));
            self.lines += 1;
        }
    }

    fn alias_name(&mut self, key: ItemKey) -> String {
        let n = self.fresh();
        match key {
            ItemKey::Fn(_) => format!("{}_{n}", self.rng.pick(FN_WORDS)),
            ItemKey::Const(_) => format!("{}_{n}", self.rng.pick(CONST_WORDS)),
            ItemKey::Struct(_) | ItemKey::Alias(_) => format!("{}{n}", self.rng.pick(STRUCT_WORDS)),
            ItemKey::Mod(_) => format!("{}{n}", self.rng.pick(MOD_WORDS)),
        }
    }

    fn is_value(key: ItemKey) -> bool {
        matches!(key, ItemKey::Fn(_) | ItemKey::Const(_))
    }

    fn name_free(&self, m: ModId, key: ItemKey, name: &str) -> bool {
        let ns = &self.names[m.idx()];
        if Self::is_value(key) {
            !ns.values.contains(name)
        } else {
            !ns.types.contains(name)
        }
    }

    fn claim_name(&mut self, m: ModId, key: ItemKey, name: String) {
        let ns = &mut self.names[m.idx()];
        if Self::is_value(key) {
            ns.values.insert(name);
        } else {
            ns.types.insert(name);
        }
    }

    /// Adds `use` declarations for some of the items from other modules that `body`
    /// refers to.
    fn add_imports_for(&mut self, m: ModId, refs: Vec<ItemKey>) {
        for key in refs {
            let (home, _) = self.m.item_home(key);
            if home == m || !self.rng.chance(30) {
                continue;
            }
            let key = if self.rng.chance(20) && home != ROOT && !self.m.is_under(m, home) {
                // Import the item's module instead (`use crate::a::b;` then `b::f`).
                if self.m.module(home).parent == Some(m) {
                    continue;
                }
                ItemKey::Mod(home)
            } else {
                key
            };
            if self.m.module(m).imports.iter().any(|i| i.target == key) || !self.m.nameable(m, key)
            {
                continue;
            }
            // Reachable only through a renamed re-export: `use` binds the exported name,
            // so give the import its own name.
            let needs_alias = !self.m.reachable(m, key)
                && !self
                    .m
                    .reexport_paths(m, key)
                    .any(|(r, n)| r != m && n == self.m.item_name(key));
            let alias = (needs_alias || self.rng.chance(25)).then(|| self.alias_name(key));
            let local = alias
                .clone()
                .unwrap_or_else(|| self.m.item_name(key).to_string());
            if !self.name_free(m, key, &local) {
                continue;
            }
            self.claim_name(m, key, local);
            let hint = self.rng.next_u64() as u8;
            self.module_mut(m).imports.push(Import {
                target: key,
                alias,
                is_pub: false,
                hint,
            });
            self.lines += 1;
        }
    }

    // -----------------------------------------------------------------------------------
    // The module context

    // -----------------------------------------------------------------------------------
    // Items

    fn trivia(&mut self) -> Trivia {
        let comment = self.rng.chance(12).then(|| match self.rng.below(3) {
            0 => Comment::Line("helper for the code below".into()),
            1 => Comment::Block("kept small /* on purpose */".into()),
            _ => Comment::FourSlash("plain comment, not a doc".into()),
        });
        let doc = self.rng.chance(15).then(|| "Documented item.".to_string());
        Trivia {
            blank_lines_before: 0,
            comment,
            doc,
        }
    }

    fn gen_struct(&mut self, m: ModId) {
        let id = StructId(self.m.structs.len() as u32);
        let n = self.fresh();
        let name = format!("{}{n}", self.rng.pick(STRUCT_WORDS));
        let is_pub = self.rng.chance(75);
        let nf = self.rng.range(1, 4) as usize;
        let mut names: Vec<&str> = FIELD_NAMES.to_vec();
        self.rng.shuffle(&mut names);
        let mut fields = Vec::with_capacity(nf);
        for (i, fname) in names.iter().take(nf).enumerate() {
            let field_pub = self.rng.chance(if is_pub { 85 } else { 70 });
            let ty = match self.rng.below(100) {
                0..=59 => TyExpr::Int(*self.rng.pick(&IntTy::ALL)),
                60..=74 => TyExpr::Bool,
                75..=84 => TyExpr::Array(
                    Box::new(TyExpr::Int(*self.rng.pick(&IntTy::ALL))),
                    LenExpr::Lit(self.rng.range(1, 4)),
                ),
                _ => {
                    // A nested struct that is usable wherever this field is readable.
                    let cands: Vec<StructId> = self
                        .cx
                        .constructible
                        .iter()
                        .copied()
                        .filter(|s| self.m.strukt(*s).is_pub || !(is_pub && field_pub))
                        .collect();
                    if cands.is_empty() {
                        TyExpr::Int(IntTy::I64)
                    } else {
                        TyExpr::Struct(*self.rng.pick(&cands), self.rng.next_u64() as u8)
                    }
                }
            };
            let doc = self.rng.chance(8).then(|| "A field.".to_string());
            fields.push(FieldDef {
                id: FieldId(i as u32),
                name: fname.to_string(),
                is_pub: field_pub,
                ty,
                doc,
            });
        }
        let trivia = self.trivia();
        self.lines += nf + 4 + trivia_lines(&trivia);
        self.m.structs.push(Arc::new(StructDef {
            name: name.clone(),
            module: m,
            is_pub,
            next_field: nf as u32,
            fields,
            derive_swapped: self.rng.chance(20),
            trailing_comma: self.rng.chance(60),
            trivia,
        }));
        self.names[m.idx()].types.insert(name);
        self.place_item(m, Item::Struct(id));
        self.mod_structs[m.idx()].push(id);
        self.cx.add_struct(&self.m, id);
    }

    fn place_item(&mut self, m: ModId, item: Item) {
        let len = self.m.module(m).items.len();
        let pos = if len == 0 || self.rng.chance(75) {
            len
        } else {
            self.rng.index(len + 1)
        };
        self.module_mut(m).items.insert(pos, item);
    }

    fn gen_alias(&mut self, m: ModId) {
        let id = AliasId(self.m.aliases.len() as u32);
        let n = self.fresh();
        let name = format!("{}{n}", self.rng.pick(ALIAS_WORDS));
        let target = match self.rng.below(100) {
            0..=59 => TyExpr::Int(*self.rng.pick(&IntTy::ALL)),
            60..=84 if !self.cx.constructible.is_empty() => TyExpr::Struct(
                *self.rng.pick(&self.cx.constructible),
                self.rng.next_u64() as u8,
            ),
            85..=89 if !self.cx.aliases.is_empty() => {
                let (a, _) = *self.rng.pick(&self.cx.aliases);
                TyExpr::Alias(a, self.rng.next_u64() as u8)
            }
            _ => TyExpr::Array(
                Box::new(TyExpr::Int(*self.rng.pick(&IntTy::ALL))),
                LenExpr::Lit(self.rng.range(1, 4)),
            ),
        };
        // An alias is `pub` only if what it names is usable everywhere.
        let ty = self.m.canon(&target);
        let all_pub = match &ty {
            Ty::Struct(s) => self.m.strukt(*s).is_pub,
            Ty::Array(e, _) => !matches!(**e, Ty::Struct(s) if !self.m.strukt(s).is_pub),
            _ => true,
        };
        let is_pub = all_pub && self.rng.chance(70);
        let trivia = self.trivia();
        self.lines += 2 + trivia_lines(&trivia);
        self.m.aliases.push(Arc::new(AliasDef {
            name: name.clone(),
            module: m,
            is_pub,
            target,
            trivia,
        }));
        self.names[m.idx()].types.insert(name);
        self.place_item(m, Item::Alias(id));
        self.mod_aliases[m.idx()].push(id);
        self.cx.add_alias(&self.m, id);
    }

    fn push_const(
        &mut self,
        m: ModId,
        name: String,
        ty: TyExpr,
        init: Expr,
        value: Val,
        in_types: bool,
    ) -> ConstId {
        let id = ConstId(self.m.consts.len() as u32);
        let is_pub = self.rng.chance(70);
        let trivia = self.trivia();
        self.lines += 2 + trivia_lines(&trivia) + init_lines(&init);
        self.m.consts.push(Arc::new(ConstDef {
            name: name.clone(),
            module: m,
            is_pub,
            ty,
            init,
            value,
            in_types,
            trivia,
            removed: false,
        }));
        self.names[m.idx()].values.insert(name);
        self.place_item(m, Item::Const(id));
        self.mod_consts[m.idx()].push(id);
        self.cx.add_const(&self.m, id);
        id
    }

    /// A small `usize` constant used in array lengths (`[i64; LEN]`).
    fn gen_len_const(&mut self, m: ModId) {
        let n = self.fresh();
        let name = format!("LEN_{n}");
        let v = self.rng.range(1, 4);
        let init = if !self.cx.len_consts.is_empty() && self.rng.chance(40) {
            // LEN_A + 1, or LEN_A * 2 when small.
            let (c, cv) = *self.rng.pick(&self.cx.len_consts);
            let h = self.rng.next_u64() as u8;
            if cv <= 3 {
                Expr::Binary(
                    BinOp::Mul,
                    Box::new(Expr::Const(c, h)),
                    Box::new(int(IntTy::Usize, 2)),
                )
            } else {
                Expr::Binary(
                    BinOp::Sub,
                    Box::new(Expr::Const(c, h)),
                    Box::new(int(IntTy::Usize, 1)),
                )
            }
        } else {
            int(IntTy::Usize, v)
        };
        let value = eval_const(&self.m, &init).expect("length constant evaluates");
        self.push_const(m, name, TyExpr::Int(IntTy::Usize), init, value, true);
    }

    fn gen_const(&mut self, m: ModId) {
        let n = self.fresh();
        let word = self.rng.pick(CONST_WORDS);
        let name = format!("{word}_{n}");
        let mut rng = self.rng.fork(n as u64);
        let (ty, te) = {
            let mut bg = BodyGen::new(&self.m, &self.cx, &mut rng);
            match bg.rng.below(100) {
                0..=64 => {
                    let t = *bg.rng.pick(&IntTy::ALL);
                    let ty = Ty::Int(t);
                    let te = bg.spell(&ty);
                    (ty, te)
                }
                65..=71 => (Ty::Bool, TyExpr::Bool),
                72..=87 => {
                    let elem = if bg.rng.chance(25) && !self.cx.structs.is_empty() {
                        Ty::Struct(*bg.rng.pick(&self.cx.structs))
                    } else if bg.rng.chance(20) {
                        Ty::Array(
                            Box::new(Ty::Int(*bg.rng.pick(&IntTy::ALL))),
                            bg.rng.range(1, 3),
                        )
                    } else {
                        Ty::Int(*bg.rng.pick(&IntTy::ALL))
                    };
                    bg.array_ty(elem)
                }
                _ if !self.cx.structs.is_empty() => {
                    let s = *bg.rng.pick(&self.cx.structs);
                    let ty = Ty::Struct(s);
                    let te = bg.spell(&ty);
                    (ty, te)
                }
                _ => (Ty::Int(IntTy::I64), TyExpr::Int(IntTy::I64)),
            }
        };
        // Generate until the initializer evaluates (overflow etc. are compile errors).
        let mut found = None;
        for attempt in 0..12 {
            let mut bg = BodyGen::new(&self.m, &self.cx, &mut rng);
            bg.in_const = true;
            bg.allow_calls = false;
            let init = if attempt < 10 && bg.rng.chance(25) {
                bg.budget = bg.rng.range(1, 4) as i64;
                Expr::Block(Box::new(bg.block(&ty, 4)))
            } else if attempt < 10 {
                bg.expr(&ty, 3, true)
            } else {
                bg.max_expr_depth = 1;
                bg.expr(&ty, 1, true)
            };
            if let Ok(v) = eval_const(&self.m, &init) {
                found = Some((init, v));
                break;
            }
        }
        let (init, value) = match found {
            Some(f) => f,
            None => {
                let init = zero_value(&self.m, &ty);
                let v = eval_const(&self.m, &init).expect("zero value evaluates");
                (init, v)
            }
        };
        self.push_const(m, name, te, init, value, false);
    }

    fn gen_fn(&mut self, m: ModId, kind: FnKind) -> FnId {
        let id = FnId(self.m.fns.len() as u32);
        let n = self.fresh();
        let name = match kind {
            FnKind::Printer => format!("report_{n}"),
            FnKind::Main => "main".to_string(),
            _ => format!("{}_{n}", self.rng.pick(FN_WORDS)),
        };
        let kind = if kind == FnKind::Normal && self.rng.chance(5) {
            FnKind::Recursive
        } else {
            kind
        };
        let is_pub = matches!(kind, FnKind::Printer) || self.rng.chance(70);
        let mut rng = self.rng.fork(n as u64 ^ 0xF00D);
        let mut params = Vec::new();
        let mut bg = BodyGen::new(&self.m, &self.cx, &mut rng);
        bg.max_expr_depth = self.cfg.max_expr_depth.max(1);
        if kind == FnKind::Recursive {
            let l = bg.fresh_local();
            bg.bind(l, Ty::Int(IntTy::U64), false, false);
            params.push(Param {
                name: l,
                mutable: false,
                ty: TyExpr::Int(IntTy::U64),
            });
        }
        let np = bg.rng.range(0, 3);
        for _ in 0..np {
            // Printers are called from the root, so their parameters are scalars.
            let (ty, te) = bg.random_ty(kind != FnKind::Printer);
            let l = bg.fresh_local();
            let mutable = bg.rng.chance(15);
            bg.bind(l, ty, mutable, true);
            params.push(Param {
                name: l,
                mutable,
                ty: te,
            });
        }
        let (ret, ret_te) = if kind == FnKind::Recursive {
            let t = *bg.rng.pick(&IntTy::ALL);
            (Ty::Int(t), Some(TyExpr::Int(t)))
        } else if kind == FnKind::Printer || bg.rng.chance(12) {
            (Ty::Unit, None)
        } else {
            let (t, te) = bg.random_ty(true);
            (t, Some(te))
        };
        drop(bg);
        let trivia = self.trivia();
        let fd = FnDef {
            trivia,
            ..FnDef::declared(name.clone(), m, is_pub, kind, params, ret_te)
        };
        self.m.fns.push(Arc::new(fd));
        self.called.push(false);
        // The body, generated against the model that now contains this function's
        // signature (a recursive function calls itself).
        let stmts = self.cfg.stmts_per_fn.max(1) as u64;
        let mut bg = BodyGen::new(&self.m, &self.cx, &mut rng);
        bg.max_expr_depth = self.cfg.max_expr_depth.max(1);
        bg.this_fn = Some(id);
        bg.ret = Some(ret.clone());
        bg.allow_print = kind == FnKind::Printer;
        bg.budget = bg.rng.range(stmts.div_ceil(2), stmts * 3 / 2) as i64;
        for p in &self.m.func(id).params {
            let ty = self.m.canon(&p.ty);
            let shadowable =
                !(kind == FnKind::Recursive && bg_is_first(&self.m.func(id).params, p));
            bg.bind(p.name, ty, p.mutable, shadowable);
        }
        let body = if kind == FnKind::Recursive {
            bg.cost_cap = FN_COST_CAP / RECURSION_BOUND;
            recursive_body(&mut bg, id, &ret)
        } else {
            bg.fn_body(&ret)
        };
        let (cost, depth) = if kind == FnKind::Recursive {
            (
                bg.cost.max(1) * RECURSION_BOUND,
                bg.depth + RECURSION_BOUND as u32,
            )
        } else {
            (bg.cost.max(1), bg.depth + 1)
        };
        let refs = std::mem::take(&mut bg.refs);
        drop(bg);
        for r in &refs {
            if let ItemKey::Fn(f) = r {
                self.called[f.idx()] = true;
            }
        }
        let lines = 2 + block_lines(&body) + trivia_lines(&self.m.func(id).trivia);
        self.lines += lines;
        {
            let fd = Arc::make_mut(&mut self.m.fns[id.idx()]);
            fd.body = body;
            fd.cost = cost;
            fd.depth = depth;
        }
        self.names[m.idx()].values.insert(name);
        if kind != FnKind::Main {
            self.place_item(m, Item::Fn(id));
        }
        self.mod_fns[m.idx()].push(id);
        self.cx.add_fn(&self.m, id);
        self.add_imports_for(m, refs);
        id
    }

    /// Functions that print, each called once from `main`.
    fn gen_printers(&mut self) {
        let n = self.rng.range(1, 3);
        for _ in 0..n {
            // A module from which a `pub fn` is reachable from the root.
            let cands: Vec<ModId> = (0..self.m.mods.len() as u32)
                .map(ModId)
                .filter(|&m| self.m.path_ok(ROOT, ROOT, m, true))
                .collect();
            let m = *self.rng.pick(&cands);
            self.start_module_ctx_only(m);
            let f = self.gen_fn(m, FnKind::Printer);
            self.printers.push(f);
        }
    }

    /// The context of an existing module, for adding items to it after it was filled.
    fn start_module_ctx_only(&mut self, m: ModId) {
        self.neighbors_ctx(m);
        self.add_items_to_ctx(m);
    }

    /// A fresh context for module `m` with the items generated so far in its neighbors.
    fn neighbors_ctx(&mut self, m: ModId) {
        self.cx = ModCtx {
            module: m,
            ..ModCtx::default()
        };
        for n in self.neighbors[m.idx()].clone() {
            self.add_items_to_ctx(n);
        }
    }

    /// Makes the items generated so far in module `n` available to the current context.
    fn add_items_to_ctx(&mut self, n: ModId) {
        for &s in &self.mod_structs[n.idx()] {
            self.cx.add_struct(&self.m, s);
        }
        for &a in &self.mod_aliases[n.idx()] {
            self.cx.add_alias(&self.m, a);
        }
        for &c in &self.mod_consts[n.idx()] {
            self.cx.add_const(&self.m, c);
        }
        for &f in &self.mod_fns[n.idx()] {
            self.cx.add_fn(&self.m, f);
        }
    }

    fn gen_main(&mut self) {
        self.start_module_ctx_only(ROOT);
        // Entry points: functions nobody calls first, from all over the program.
        let mut cands: Vec<FnId> = Vec::new();
        let mut others: Vec<FnId> = Vec::new();
        for f in 0..self.m.fns.len() as u32 {
            let f = FnId(f);
            let fd = self.m.func(f);
            if fd.kind == FnKind::Printer
                || !self.m.nameable(ROOT, ItemKey::Fn(f))
                || !self.m.fn_sig_usable(ROOT, f)
            {
                continue;
            }
            if !fd
                .params
                .iter()
                .all(|p| self.cx.producible(&self.m.canon(&p.ty)))
            {
                continue;
            }
            if self.called[f.idx()] {
                others.push(f);
            } else {
                cands.push(f);
            }
        }
        self.rng.shuffle(&mut cands);
        self.rng.shuffle(&mut others);
        cands.extend(others);
        let id = FnId(self.m.fns.len() as u32);
        self.m.fns.push(Arc::new(FnDef::declared(
            "main".into(),
            ROOT,
            false,
            FnKind::Main,
            vec![],
            None,
        )));
        self.called.push(false);
        self.m.main = id;
        let mut rng = self.rng.fork(0x3A17);
        let mut bg = BodyGen::new(&self.m, &self.cx, &mut rng);
        bg.allow_print = true;
        bg.this_fn = Some(id);
        // No early `return` in main: it would skip the final output (and the panic).
        bg.ret = None;
        bg.cost_cap = MAIN_COST_CAP;
        let mut stmts = Vec::new();
        let checksum = bg.fresh_local();
        bg.bind(checksum, Ty::Int(IntTy::U64), false, false);
        stmts.push(Stmt::Let {
            name: checksum,
            mutable: true,
            ty: Some(TyExpr::Int(IntTy::U64)),
            init: int(IntTy::U64, 0),
            doc: None,
        });
        bg.budget = 4;
        while bg.budget > 0 {
            bg.stmt(&mut stmts);
        }
        let mut calls = 0;
        for f in cands {
            if calls >= self.cfg.max_main_calls {
                break;
            }
            let fd = self.m.func(f);
            if bg.cost + fd.cost > MAIN_COST_CAP {
                continue;
            }
            bg.cost += fd.cost;
            calls += 1;
            let call = bg.call_args(f);
            let ret = self.m.ret_ty(f);
            if ret == Ty::Unit {
                stmts.push(Stmt::Expr(call));
                continue;
            }
            let r = bg.fresh_local();
            stmts.push(Stmt::Let {
                name: r,
                mutable: false,
                ty: None,
                init: call,
                doc: None,
            });
            bg.bind(r, ret.clone(), false, true);
            let Some(proj) = project(&self.m, ROOT, Expr::Local(r), &ret) else {
                continue;
            };
            if bg.rng.chance(40) {
                let name = fd.name.clone();
                stmts.push(Stmt::Print(Print {
                    pieces: vec![format!("{name} = "), String::new()],
                    args: vec![proj],
                    trailing_comma: false,
                }));
            } else {
                // checksum = checksum * 31 ^ (proj as u64)  (wraps: overflow checks are off)
                let folded = Expr::Binary(
                    BinOp::BitXor,
                    Box::new(Expr::Binary(
                        BinOp::Mul,
                        Box::new(Expr::Local(checksum)),
                        Box::new(int(IntTy::U64, 31)),
                    )),
                    Box::new(Expr::Cast(Box::new(proj), CastTy::Int(IntTy::U64))),
                );
                stmts.push(Stmt::Assign {
                    place: Place::Local(checksum),
                    op: None,
                    value: folded,
                });
            }
        }
        for p in self.printers.clone() {
            let call = bg.call_args(p);
            stmts.push(Stmt::Expr(call));
        }
        bg.budget = 3;
        while bg.budget > 0 {
            bg.stmt(&mut stmts);
        }
        stmts.push(Stmt::Print(Print {
            pieces: vec!["checksum {} = ".into(), String::new()],
            args: vec![Expr::Local(checksum)],
            trailing_comma: bg.rng.chance(30),
        }));
        drop(bg);
        if self.cfg.panicking {
            let mut rng = self.rng.fork(0xDEAD);
            self.panic_tail(&mut stmts, checksum, &mut rng);
        }
        let body = Block { stmts, tail: None };
        self.lines += 3 + block_lines(&body);
        let fd = Arc::make_mut(&mut self.m.fns[id.idx()]);
        fd.body = body;
        self.place_item(ROOT, Item::Fn(id));
    }

    /// Statements that panic at run time after everything else was printed.
    fn panic_tail(&mut self, stmts: &mut Vec<Stmt>, checksum: Local, rng: &mut Rng) {
        // `checksum & 0` is zero at run time but not a constant, so rustc only warns.
        let zero = |t: IntTy| {
            Expr::Cast(
                Box::new(Expr::Paren(Box::new(Expr::Binary(
                    BinOp::BitAnd,
                    Box::new(Expr::Local(checksum)),
                    Box::new(int(IntTy::U64, 0)),
                )))),
                CastTy::Int(t),
            )
        };
        let d = local_by_name("d").expect("fixed name");
        let e = local_by_name("e").expect("fixed name");
        stmts.push(Stmt::Print(Print {
            pieces: vec!["about to fail".into()],
            args: vec![],
            trailing_comma: false,
        }));
        let (init, value) = match rng.below(3) {
            // Division by zero.
            0 => (
                zero(IntTy::I32),
                Expr::Binary(
                    BinOp::Div,
                    Box::new(int(IntTy::I32, 100)),
                    Box::new(Expr::Local(d)),
                ),
            ),
            // Index out of bounds.
            1 => (
                Expr::Binary(
                    BinOp::Add,
                    Box::new(zero(IntTy::Usize)),
                    Box::new(int(IntTy::Usize, 5)),
                ),
                Expr::Index(
                    Box::new(Expr::Array(vec![
                        int(IntTy::I64, 1),
                        int(IntTy::I64, 2),
                        int(IntTy::I64, 3),
                    ])),
                    Box::new(Expr::Local(d)),
                ),
            ),
            // i32::MIN / -1 overflows.
            _ => (
                Expr::Binary(
                    BinOp::Sub,
                    Box::new(zero(IntTy::I32)),
                    Box::new(int(IntTy::I32, 1)),
                ),
                Expr::Binary(
                    BinOp::Div,
                    Box::new(Expr::Assoc {
                        ty: CastTy::Int(IntTy::I32),
                        max: false,
                    }),
                    Box::new(Expr::Local(d)),
                ),
            ),
        };
        stmts.push(Stmt::Let {
            name: d,
            mutable: false,
            ty: None,
            init,
            doc: None,
        });
        stmts.push(Stmt::Let {
            name: e,
            mutable: false,
            ty: None,
            init: value,
            doc: None,
        });
        stmts.push(Stmt::Print(Print {
            pieces: vec!["unreachable ".into(), String::new()],
            args: vec![Expr::Local(e)],
            trailing_comma: false,
        }));
    }
}

fn bg_is_first(params: &[Param], p: &Param) -> bool {
    params.first().is_some_and(|f| f.name == p.name)
}

/// `if n == 0 { return base; } stmts…; combine(f(n - 1, …), …)`
fn recursive_body(bg: &mut BodyGen, me: FnId, ret: &Ty) -> Block {
    let fd = bg.m.func(me);
    let n = fd.params[0].name;
    let rest: Vec<Ty> = fd.params[1..].iter().map(|p| bg.m.canon(&p.ty)).collect();
    let mut stmts = Vec::new();
    let base = bg.expr(ret, 2, true);
    let cond = if bg.rng.chance(50) {
        Expr::Binary(
            BinOp::Eq,
            Box::new(Expr::Local(n)),
            Box::new(int(IntTy::U64, 0)),
        )
    } else {
        Expr::Binary(
            BinOp::Lt,
            Box::new(Expr::Local(n)),
            Box::new(int(IntTy::U64, 1)),
        )
    };
    stmts.push(if_then(
        cond,
        vec![Stmt::Expr(Expr::Return(Some(Box::new(base))))],
    ));
    while bg.budget > 0 {
        bg.stmt(&mut stmts);
    }
    let mut args = vec![Expr::Binary(
        BinOp::Sub,
        Box::new(Expr::Local(n)),
        Box::new(int(IntTy::U64, 1)),
    )];
    for t in &rest {
        args.push(bg.expr(t, 2, true));
    }
    let call = Expr::Call(Box::new(Call {
        callee: me,
        hint: bg.rng.next_u64() as u8,
        args,
    }));
    let other = bg.expr(ret, 2, true);
    let op = *bg.rng.pick(&[BinOp::Add, BinOp::BitXor, BinOp::Sub]);
    Block {
        stmts,
        tail: Some(Expr::Binary(op, Box::new(call), Box::new(other))),
    }
}

/// An integer or bool view of a value of type `ty`, for printing: the value itself, a
/// visible field, or an element.
pub(crate) fn project(m: &Model, from: ModId, e: Expr, ty: &Ty) -> Option<Expr> {
    match ty {
        Ty::Int(_) | Ty::Bool => Some(e),
        Ty::Unit => None,
        Ty::Struct(s) => {
            let sd = m.strukt(*s);
            for f in &sd.fields {
                if !m.field_visible(from, *s, f) {
                    continue;
                }
                let fty = m.canon(&f.ty);
                if let Some(p) = project(m, from, Expr::Field(Box::new(e.clone()), *s, f.id), &fty)
                {
                    return Some(p);
                }
            }
            None
        }
        Ty::Array(elem, _) => project(
            m,
            from,
            Expr::Index(Box::new(e), Box::new(int(IntTy::Usize, 0))),
            elem,
        ),
    }
}

/// An unsuffixed decimal literal that is not free to change (a bound, index or mask).
pub(crate) fn int(t: IntTy, v: u64) -> Expr {
    Expr::Int(IntLit {
        value: v,
        ty: t,
        suffix: false,
        style: LitStyle::Dec,
        free: false,
    })
}

/// A simple value of any type: `0`, `false`, a struct literal of zeros, `[0; n]`.
pub(crate) fn zero_value(m: &Model, ty: &Ty) -> Expr {
    match ty {
        Ty::Int(t) => int(*t, 0),
        Ty::Bool => Expr::Bool(false),
        Ty::Unit => Expr::Block(Box::default()),
        Ty::Struct(s) => {
            let sd = m.strukt(*s);
            let fields = sd
                .fields
                .iter()
                .map(|f| FieldInit {
                    field: f.id,
                    value: zero_value(m, &m.canon(&f.ty)),
                    shorthand: false,
                })
                .collect();
            Expr::StructLit(Box::new(StructLit {
                st: *s,
                hint: 0,
                alias: None,
                fields,
            }))
        }
        Ty::Array(e, n) => Expr::Repeat(Box::new(zero_value(m, e)), LenExpr::Lit(*n)),
    }
}

fn trivia_lines(t: &Trivia) -> usize {
    1 + t.blank_lines_before as usize + t.comment.is_some() as usize + t.doc.is_some() as usize
}

fn init_lines(e: &Expr) -> usize {
    let b = Block {
        stmts: vec![],
        tail: Some(e.clone()),
    };
    block_lines(&b) - 1
}
