//! Writes a model as source files. Every reference to an item is written as a path that is
//! valid from the referring module (an import, `super::`, `crate::`, a re-export, …); the
//! reference's hint picks one of the valid forms, so the same model always renders the
//! same text.

use std::fmt::Write as _;

use super::model::*;

/// The text of the file owned by `file_mod` (the root or a non-inline module).
pub(crate) fn render_file(m: &Model, file_mod: ModId) -> String {
    let mut r = Renderer {
        m,
        out: String::with_capacity(4096),
        from: file_mod,
        scope: Scope::default(),
    };
    r.module_body(file_mod, 0);
    r.out
}

/// Lines the renderer will use for the statements and tail of a block, excluding the lines
/// holding its braces. Used to steer the program size while generating.
pub(crate) fn block_lines(b: &Block) -> usize {
    let mut n = 0;
    for s in &b.stmts {
        n += 1 + stmt_extra_lines(s);
    }
    if let Some(t) = &b.tail {
        n += 1 + expr_extra_lines(t);
    }
    n
}

fn stmt_extra_lines(s: &Stmt) -> usize {
    let mut n = 0;
    match s {
        Stmt::Let { init, doc, .. } => n += expr_extra_lines(init) + doc.is_some() as usize,
        Stmt::LetWild(e) | Stmt::Expr(e) => n += expr_extra_lines(e),
        Stmt::Assign { value, .. } => n += expr_extra_lines(value),
        Stmt::Print(p) => n += p.args.iter().map(expr_extra_lines).sum::<usize>(),
        Stmt::Raw(t) => n += t.matches('\n').count(),
        Stmt::Comment(_) | Stmt::Blank => {}
    }
    n
}

/// Extra lines (beyond the one it starts on) an expression takes when rendered.
fn expr_extra_lines(e: &Expr) -> usize {
    match e {
        Expr::Block(b) | Expr::Loop(_, b) if multiline(b) => block_lines(b) + 1,
        Expr::While(_, _, b) => block_lines(b) + 1,
        Expr::For(f) => block_lines(&f.body) + 1,
        Expr::If(i) if if_multiline(i) => {
            let mut n = block_lines(&i.then) + 1;
            let mut els = &i.els;
            while let Some(e) = els {
                match e {
                    Else::Block(b) => {
                        n += block_lines(b) + 1;
                        els = &None;
                    }
                    Else::If(i2) => {
                        n += block_lines(&i2.then) + 1;
                        els = &i2.els;
                    }
                }
            }
            n
        }
        Expr::Binary(_, a, b) | Expr::Index(a, b) => expr_extra_lines(a) + expr_extra_lines(b),
        Expr::Unary(_, x) | Expr::Cast(x, _) | Expr::Paren(x) | Expr::Repeat(x, _) => {
            expr_extra_lines(x)
        }
        Expr::Field(x, ..) => expr_extra_lines(x),
        Expr::Call(c) => c.args.iter().map(expr_extra_lines).sum(),
        Expr::StructLit(s) => s.fields.iter().map(|f| expr_extra_lines(&f.value)).sum(),
        Expr::Array(es) => es.iter().map(expr_extra_lines).sum(),
        Expr::Break(_, Some(v)) | Expr::Return(Some(v)) => expr_extra_lines(v),
        _ => 0,
    }
}

/// A block is written on one line (`{ tail }`) when it is only a simple tail expression.
fn multiline(b: &Block) -> bool {
    !b.stmts.is_empty()
        || b.tail
            .as_ref()
            .is_some_and(|t| expr_extra_lines(t) > 0 || t.is_block_like())
}

fn if_multiline(i: &If) -> bool {
    if multiline(&i.then) {
        return true;
    }
    match &i.els {
        None => false,
        Some(Else::Block(b)) => multiline(b),
        Some(Else::If(_)) => true,
    }
}

/// Names visible in the module being rendered through its `use` declarations.
#[derive(Default)]
struct Scope {
    /// Imported items (including `pub use` re-exports) by target, with their local name.
    items: FastMap<ItemKey, String>,
    /// The modules imported by `use`.
    mods: Vec<ModId>,
    /// Path options computed so far for expressions in this module.
    memo: FastMap<ItemKey, Opts>,
}

struct Renderer<'m> {
    m: &'m Model,
    out: String,
    /// The module whose text is being written.
    from: ModId,
    scope: Scope,
}

/// Precedence of an expression for parenthesization (higher binds tighter).
fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, ..) => op.prec(),
        Expr::Cast(..) => 13,
        Expr::Unary(..) => 14,
        // `return e` and `break e` take everything to their right.
        Expr::Return(Some(_)) | Expr::Break(_, Some(_)) => 1,
        _ => 16,
    }
}

impl<'m> Renderer<'m> {
    fn nl(&mut self, indent: usize) {
        self.out.push('\n');
        for _ in 0..indent {
            self.out.push_str("    ");
        }
    }

    fn line_start(&mut self, indent: usize) {
        for _ in 0..indent {
            self.out.push_str("    ");
        }
    }

    fn enter_module(&mut self, m: ModId) -> Scope {
        let mut scope = Scope::default();
        for imp in &self.m.module(m).imports {
            let name = imp
                .alias
                .clone()
                .unwrap_or_else(|| self.m.item_name(imp.target).to_string());
            scope.items.insert(imp.target, name);
            if let ItemKey::Mod(im) = imp.target {
                scope.mods.push(im);
            }
        }
        self.from = m;
        std::mem::replace(&mut self.scope, scope)
    }

    // -----------------------------------------------------------------------------------
    // Modules and items

    fn module_body(&mut self, m: ModId, indent: usize) {
        let saved_from = self.from;
        let saved_scope = self.enter_module(m);
        let md = self.m.module(m);
        let mut first = true;
        if let Some(doc) = &md.inner_doc {
            self.line_start(indent);
            let _ = write!(self.out, "//! {doc}");
            self.out.push('\n');
            first = false;
        }
        if !md.imports.is_empty() {
            self.imports(m, indent);
            first = false;
        }
        for item in &md.items {
            if !first {
                self.out.push('\n');
            }
            first = false;
            self.item(item, indent);
        }
        self.from = saved_from;
        self.scope = saved_scope;
    }

    fn trivia(&mut self, t: &Trivia, indent: usize) {
        for _ in 0..t.blank_lines_before {
            self.out.push('\n');
        }
        if let Some(c) = &t.comment {
            self.line_start(indent);
            self.comment(c);
            self.out.push('\n');
        }
        if let Some(d) = &t.doc {
            self.line_start(indent);
            let _ = writeln!(self.out, "/// {d}");
        }
    }

    fn comment(&mut self, c: &Comment) {
        let _ = match c {
            Comment::Line(t) => write!(self.out, "// {t}"),
            Comment::Block(t) => write!(self.out, "/* {t} */"),
            Comment::FourSlash(t) => write!(self.out, "//// {t}"),
        };
    }

    fn vis(&mut self, is_pub: bool) {
        if is_pub {
            self.out.push_str("pub ");
        }
    }

    fn item(&mut self, item: &Item, indent: usize) {
        match item {
            Item::Fn(f) => self.func(*f, indent),
            Item::Const(c) => {
                let cd = self.m.konst(*c);
                self.trivia(&cd.trivia, indent);
                self.line_start(indent);
                self.vis(cd.is_pub);
                let _ = write!(self.out, "const {}: ", cd.name);
                self.ty(&cd.ty);
                self.out.push_str(" = ");
                self.expr(&cd.init, 0, indent, Ctx::default());
                self.out.push_str(";\n");
            }
            Item::Struct(s) => {
                let sd = self.m.strukt(*s);
                self.trivia(&sd.trivia, indent);
                self.line_start(indent);
                self.out.push_str(if sd.derive_swapped {
                    "#[derive(Copy, Clone)]\n"
                } else {
                    "#[derive(Clone, Copy)]\n"
                });
                self.line_start(indent);
                self.vis(sd.is_pub);
                let _ = write!(self.out, "struct {} {{", sd.name);
                for (i, f) in sd.fields.iter().enumerate() {
                    if let Some(d) = &f.doc {
                        self.nl(indent + 1);
                        let _ = write!(self.out, "/// {d}");
                    }
                    self.nl(indent + 1);
                    self.vis(f.is_pub);
                    self.out.push_str(&f.name);
                    self.out.push_str(": ");
                    self.ty(&f.ty);
                    if i + 1 < sd.fields.len() || sd.trailing_comma {
                        self.out.push(',');
                    }
                }
                self.nl(indent);
                self.out.push_str("}\n");
            }
            Item::Alias(a) => {
                let ad = self.m.alias(*a);
                self.trivia(&ad.trivia, indent);
                self.line_start(indent);
                self.vis(ad.is_pub);
                let _ = write!(self.out, "type {} = ", ad.name);
                self.ty(&ad.target);
                self.out.push_str(";\n");
            }
            Item::Mod(c) => {
                let md = self.m.module(*c);
                self.line_start(indent);
                self.vis(md.is_pub);
                let _ = write!(self.out, "mod {}", md.name);
                if md.layout == Layout::Inline {
                    self.out.push_str(" {\n");
                    self.module_body(*c, indent + 1);
                    self.line_start(indent);
                    self.out.push_str("}\n");
                } else {
                    self.out.push_str(";\n");
                }
            }
            Item::Raw(text) => {
                for line in text.lines() {
                    self.line_start(indent);
                    self.out.push_str(line);
                    self.out.push('\n');
                }
            }
        }
    }

    fn func(&mut self, f: FnId, indent: usize) {
        let fd = self.m.func(f);
        self.trivia(&fd.trivia, indent);
        self.line_start(indent);
        self.vis(fd.is_pub);
        self.out.push_str("fn ");
        self.out.push_str(&fd.name);
        self.out.push('(');
        for (i, p) in fd.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if p.mutable {
                self.out.push_str("mut ");
            }
            self.out.push_str(&local_name(p.name));
            self.out.push_str(": ");
            self.ty(&p.ty);
        }
        self.out.push(')');
        if let Some(r) = &fd.ret {
            self.out.push_str(" -> ");
            self.ty(r);
        }
        self.out.push_str(" {");
        let extra = fd.indent_extra as usize;
        // Extra indentation is applied by rendering the body into a scratch buffer.
        if extra == 0 {
            self.block_contents(&fd.body, indent + 1);
        } else {
            let start = self.out.len();
            self.block_contents(&fd.body, indent + 1);
            let body = self.out.split_off(start);
            let pad = " ".repeat(extra);
            for (i, line) in body.split('\n').enumerate() {
                if i > 0 {
                    self.out.push('\n');
                    if !line.is_empty() {
                        self.out.push_str(&pad);
                    }
                }
                self.out.push_str(line);
            }
        }
        self.nl(indent);
        self.out.push_str("}\n");
    }

    // -----------------------------------------------------------------------------------
    // Paths

    /// Writes a path naming `key` from the current module.
    fn path(&mut self, key: ItemKey, hint: PathHint) {
        // The options depend only on the module and the item: memoized per module.
        let opts = match self.scope.memo.get(&key) {
            Some(o) => o.clone(),
            None => {
                let mut o = Opts::default();
                self.path_options(key, PathMode::Expr, &mut o);
                self.scope.memo.insert(key, o.clone());
                o
            }
        };
        let mut opts = opts;
        if opts.is_empty() {
            // The generator only creates nameable references; reaching this is a bug.
            debug_assert!(false, "no valid path to {key:?} from {:?}", self.from);
            opts.push(PathOpt::Crate);
        }
        let opt = opts.get(hint as usize % opts.len());
        self.write_path(key, opt);
    }

    /// The valid ways to name `key` from the current module.
    fn path_options(&self, key: ItemKey, mode: PathMode, opts: &mut Opts) {
        let m = self.m;
        let from = self.from;
        let (home, is_pub) = m.item_home(key);
        if mode == PathMode::Expr {
            if home == from {
                opts.push(PathOpt::Bare);
            }
            if self.scope.items.contains_key(&key) {
                opts.push(PathOpt::Imported);
                opts.push(PathOpt::Imported);
            }
            // Through an imported module.
            for &im in &self.scope.mods {
                if m.path_ok(from, im, home, is_pub) {
                    opts.push(PathOpt::ViaModImport(im));
                }
            }
        }
        if home == from {
            opts.push(PathOpt::SelfPrefix);
        }
        if m.path_ok(from, ROOT, home, is_pub) {
            opts.push(PathOpt::Crate);
            if from != ROOT {
                opts.push(PathOpt::Super);
            }
            if home != from && m.is_under(home, from) && m.path_ok(from, from, home, is_pub) {
                opts.push(PathOpt::Child);
            }
        }
        // A re-export is never written through another re-export, so imports cannot form
        // a cycle; and never from the re-exporting module itself (that name is local).
        if mode != PathMode::PubUse {
            for (r, _) in m.reexport_paths(from, key) {
                if r != from {
                    opts.push(PathOpt::ViaReexport(r));
                }
            }
        }
    }

    fn write_path(&mut self, key: ItemKey, opt: PathOpt) {
        let m = self.m;
        let (home, _) = m.item_home(key);
        match opt {
            PathOpt::Bare => self.out.push_str(m.item_name(key)),
            PathOpt::Imported => {
                let name = &self.scope.items[&key];
                self.out.push_str(name);
            }
            PathOpt::SelfPrefix => {
                self.out.push_str("self::");
                self.out.push_str(m.item_name(key));
            }
            PathOpt::Crate => {
                self.out.push_str("crate::");
                self.mod_segments(ROOT, home);
                self.out.push_str(m.item_name(key));
            }
            PathOpt::Super => {
                let lca = self.lca(self.from, home);
                let mut cur = self.from;
                while cur != lca {
                    self.out.push_str("super::");
                    cur = m.module(cur).parent.expect("below lca");
                }
                if lca == self.from {
                    self.out.push_str("self::");
                }
                self.mod_segments(lca, home);
                self.out.push_str(m.item_name(key));
            }
            PathOpt::Child => {
                self.mod_segments(self.from, home);
                self.out.push_str(m.item_name(key));
            }
            PathOpt::ViaModImport(im) => {
                let local = self.scope.items[&ItemKey::Mod(im)].clone();
                self.out.push_str(&local);
                self.out.push_str("::");
                self.mod_segments(im, home);
                self.out.push_str(m.item_name(key));
            }
            PathOpt::ViaReexport(r) => {
                let exported = m
                    .reexport_paths(self.from, key)
                    .find(|(rr, _)| *rr == r)
                    .map(|(_, n)| n.to_string())
                    .expect("re-export");
                self.out.push_str("crate::");
                self.mod_segments(ROOT, r);
                self.out.push_str(&exported);
            }
        }
    }

    /// Writes `a::b::` for the modules strictly below `top` down to and including `bottom`.
    fn mod_segments(&mut self, top: ModId, bottom: ModId) {
        if bottom == top {
            return;
        }
        let md = self.m.module(bottom);
        self.mod_segments(top, md.parent.expect("below top"));
        self.out.push_str(&md.name);
        self.out.push_str("::");
    }

    fn lca(&self, a: ModId, b: ModId) -> ModId {
        let mut x = a;
        loop {
            if self.m.is_under(b, x) {
                return x;
            }
            x = self.m.module(x).parent.unwrap_or(ROOT);
        }
    }

    // -----------------------------------------------------------------------------------
    // Imports

    fn imports(&mut self, m: ModId, indent: usize) {
        let md = self.m.module(m);
        // Render each import's path segments, then group imports sharing a parent path
        // into one brace list.
        struct Entry {
            segs: Vec<String>,
            alias: Option<String>,
            is_pub: bool,
            is_mod: bool,
            hint: u8,
        }
        let mut entries = Vec::new();
        for imp in &md.imports {
            let mut opts = Opts::default();
            let mode = if imp.is_pub {
                PathMode::PubUse
            } else {
                PathMode::Use
            };
            self.path_options(imp.target, mode, &mut opts);
            if imp.alias.is_none() {
                // Without `as`, the import binds the last segment of its path: a renamed
                // re-export would bind the wrong name.
                let name = self.m.item_name(imp.target);
                opts.retain(|o| match o {
                    PathOpt::ViaReexport(r) => self
                        .m
                        .reexport_paths(m, imp.target)
                        .any(|(rr, n)| rr == *r && n == name),
                    _ => true,
                });
            }
            let opt = if opts.is_empty() {
                debug_assert!(false, "no valid use path to {:?} from {m:?}", imp.target);
                PathOpt::Crate
            } else {
                opts.get(imp.hint as usize % opts.len())
            };
            let start = self.out.len();
            self.write_path(imp.target, opt);
            let text = self.out.split_off(start);
            entries.push(Entry {
                segs: text.split("::").map(str::to_string).collect(),
                alias: imp.alias.clone(),
                is_pub: imp.is_pub,
                is_mod: matches!(imp.target, ItemKey::Mod(_)),
                hint: imp.hint,
            });
        }
        // Group key: (is_pub, parent path). A module import may join the group of its own
        // path as `self`.
        // (is_pub, parent path, members with their hints)
        type Group = (bool, Vec<String>, Vec<(String, u8)>);
        let mut groups: Vec<Group> = Vec::new();
        let mut pending_mods = Vec::new();
        for e in entries {
            if e.is_mod {
                pending_mods.push(e);
                continue;
            }
            let key = e.segs[..e.segs.len() - 1].to_vec();
            let mut member = e.segs.last().expect("non-empty path").clone();
            if let Some(a) = &e.alias {
                member = format!("{member} as {a}");
            }
            match groups
                .iter_mut()
                .find(|(p, k, _)| *p == e.is_pub && *k == key)
            {
                Some(g) => g.2.push((member, e.hint)),
                None => groups.push((e.is_pub, key, vec![(member, e.hint)])),
            }
        }
        for e in pending_mods {
            let alias = e
                .alias
                .as_ref()
                .map(|a| format!(" as {a}"))
                .unwrap_or_default();
            if let Some(g) = groups
                .iter_mut()
                .find(|(p, k, _)| *p == e.is_pub && *k == e.segs)
            {
                g.2.insert(0, (format!("self{alias}"), e.hint));
            } else {
                let key = e.segs[..e.segs.len() - 1].to_vec();
                let member = format!("{}{alias}", e.segs.last().expect("non-empty path"));
                groups.push((e.is_pub, key, vec![(member, e.hint)]));
            }
        }
        for (is_pub, key, members) in groups {
            self.line_start(indent);
            self.vis(is_pub);
            self.out.push_str("use ");
            let has_self = members.iter().any(|(m, _)| m.starts_with("self"));
            if members.len() == 1 && !has_self && members[0].1 % 4 != 0 {
                let _ = write!(self.out, "{}::{};", key.join("::"), members[0].0);
            } else {
                // Split the parent path at a point chosen by the first member's hint, so
                // that brace lists sometimes hold multi-segment paths (`a::{b::c, d}`).
                let fixed = if key[0] == "crate" || key[0] == "self" || key[0] == "super" {
                    key.iter().take_while(|s| *s == "super").count().max(1)
                } else {
                    1
                };
                let split = if has_self || key.len() <= fixed {
                    key.len()
                } else {
                    fixed + members[0].1 as usize % (key.len() - fixed + 1)
                };
                let rest = key[split..].join("::");
                let _ = write!(self.out, "{}::{{", key[..split].join("::"));
                for (i, (member, _)) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    if !rest.is_empty() {
                        self.out.push_str(&rest);
                        self.out.push_str("::");
                    }
                    self.out.push_str(member);
                }
                self.out.push_str("};");
            }
            self.out.push('\n');
        }
    }

    // -----------------------------------------------------------------------------------
    // Types

    fn ty(&mut self, t: &TyExpr) {
        match t {
            TyExpr::Int(i) => self.out.push_str(i.name()),
            TyExpr::Bool => self.out.push_str("bool"),
            TyExpr::Struct(s, h) => self.path(ItemKey::Struct(*s), *h),
            TyExpr::Alias(a, h) => self.path(ItemKey::Alias(*a), *h),
            TyExpr::Array(elem, len) => {
                self.out.push('[');
                self.ty(elem);
                self.out.push_str("; ");
                self.len(len);
                self.out.push(']');
            }
        }
    }

    fn len(&mut self, l: &LenExpr) {
        match l {
            LenExpr::Lit(n) => {
                push_u64(&mut self.out, *n);
            }
            LenExpr::Const(c, h) => self.path(ItemKey::Const(*c), *h),
            LenExpr::ConstMul(c, h, k) => {
                self.path(ItemKey::Const(*c), *h);
                let _ = write!(self.out, " * {k}");
            }
        }
    }

    fn cast_ty(&mut self, c: CastTy) {
        match c {
            CastTy::Int(i) => self.out.push_str(i.name()),
            CastTy::Alias(a, h) => self.path(ItemKey::Alias(a), h),
        }
    }

    // -----------------------------------------------------------------------------------
    // Statements

    /// Writes the statements and tail of a block, each on its own line at `indent`, with
    /// a leading newline (the caller writes the braces).
    fn block_contents(&mut self, b: &Block, indent: usize) {
        for s in &b.stmts {
            self.stmt(s, indent);
        }
        if let Some(t) = &b.tail {
            self.nl(indent);
            self.expr(
                t,
                0,
                indent,
                Ctx {
                    stmt_start: true,
                    ..Ctx::default()
                },
            );
        }
    }

    fn block(&mut self, b: &Block, indent: usize) {
        if b.stmts.is_empty() && b.tail.is_none() {
            self.out.push_str("{}");
        } else if !multiline(b) {
            self.out.push_str("{ ");
            let t = b.tail.as_ref().expect("single-line block has a tail");
            self.expr(
                t,
                0,
                indent,
                Ctx {
                    stmt_start: true,
                    ..Ctx::default()
                },
            );
            self.out.push_str(" }");
        } else {
            self.out.push('{');
            self.block_contents(b, indent + 1);
            self.nl(indent);
            self.out.push('}');
        }
    }

    fn stmt(&mut self, s: &Stmt, indent: usize) {
        if matches!(s, Stmt::Blank) {
            self.out.push('\n');
            return;
        }
        if let Stmt::Let { doc: Some(d), .. } = s {
            self.nl(indent);
            let _ = write!(self.out, "/// {d}");
        }
        self.nl(indent);
        match s {
            Stmt::Let {
                name,
                mutable,
                ty,
                init,
                ..
            } => {
                self.out
                    .push_str(if *mutable { "let mut " } else { "let " });
                self.out.push_str(&local_name(*name));
                if let Some(t) = ty {
                    self.out.push_str(": ");
                    self.ty(t);
                }
                self.out.push_str(" = ");
                self.expr(init, 0, indent, Ctx::default());
                self.out.push(';');
            }
            Stmt::LetWild(e) => {
                self.out.push_str("let _ = ");
                self.expr(e, 0, indent, Ctx::default());
                self.out.push(';');
            }
            Stmt::Assign { place, op, value } => {
                self.place(place, indent);
                match op {
                    Some(op) => {
                        self.out.push(' ');
                        self.out.push_str(op.token());
                        self.out.push_str("= ");
                    }
                    None => self.out.push_str(" = "),
                }
                self.expr(value, 0, indent, Ctx::default());
                self.out.push(';');
            }
            Stmt::Expr(e) => {
                self.expr(
                    e,
                    0,
                    indent,
                    Ctx {
                        stmt_start: true,
                        ..Ctx::default()
                    },
                );
                if !e.is_block_like() {
                    self.out.push(';');
                }
            }
            Stmt::Print(p) => {
                self.out.push_str("println!(");
                if !p.pieces.is_empty() {
                    self.out.push('"');
                    for (i, piece) in p.pieces.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str("{}");
                        }
                        for ch in piece.chars() {
                            match ch {
                                '{' => self.out.push_str("{{"),
                                '}' => self.out.push_str("}}"),
                                c => self.out.push(c),
                            }
                        }
                    }
                    self.out.push('"');
                    for a in &p.args {
                        self.out.push_str(", ");
                        self.expr(a, 0, indent, Ctx::default());
                    }
                    if p.trailing_comma {
                        self.out.push(',');
                    }
                }
                self.out.push_str(");");
            }
            Stmt::Comment(c) => self.comment(c),
            Stmt::Raw(t) => {
                for (i, line) in t.lines().enumerate() {
                    if i > 0 {
                        self.nl(indent);
                    }
                    self.out.push_str(line);
                }
            }
            Stmt::Blank => unreachable!(),
        }
    }

    fn place(&mut self, p: &Place, indent: usize) {
        match p {
            Place::Local(l) => self.out.push_str(&local_name(*l)),
            Place::Field(inner, s, f) => {
                self.place(inner, indent);
                self.out.push('.');
                self.out.push_str(&self.m.strukt(*s).field(*f).name);
            }
            Place::Index(inner, i) => {
                self.place(inner, indent);
                self.out.push('[');
                self.expr(i, 0, indent, Ctx::default());
                self.out.push(']');
            }
        }
    }

    // -----------------------------------------------------------------------------------
    // Expressions

    /// Writes `e`, parenthesized if its precedence is below `min_prec` or the context
    /// requires it.
    fn expr(&mut self, e: &Expr, min_prec: u8, indent: usize, ctx: Ctx) {
        let needs_parens = prec(e) < min_prec
            || (e.is_block_like() && !ctx.stmt_start && min_prec > 0)
            || (ctx.no_struct && (matches!(e, Expr::StructLit(_)) || e.is_block_like()))
            || (ctx.before_lt && matches!(e, Expr::Cast(..)));
        if needs_parens {
            self.out.push('(');
            self.expr_inner(e, indent, Ctx::default());
            self.out.push(')');
        } else {
            self.expr_inner(e, indent, ctx);
        }
    }

    fn expr_inner(&mut self, e: &Expr, indent: usize, ctx: Ctx) {
        // Contexts for operands: struct literals stay forbidden (if/while heads), and an
        // operand at the right end inherits whether a `<` follows.
        let sub = Ctx {
            stmt_start: false,
            no_struct: ctx.no_struct,
            before_lt: false,
        };
        let right = Ctx {
            before_lt: ctx.before_lt,
            ..sub
        };
        match e {
            Expr::Int(l) => self.int_lit(l),
            Expr::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Expr::Local(l) => self.out.push_str(&local_name(*l)),
            Expr::Const(c, h) => self.path(ItemKey::Const(*c), *h),
            Expr::Assoc { ty, max } => {
                self.cast_ty(*ty);
                self.out.push_str(if *max { "::MAX" } else { "::MIN" });
            }
            Expr::Unary(op, inner) => self.unary(*op, inner, indent, right),
            Expr::Binary(op, a, b) => self.binary(*op, a, b, indent, sub, right),
            Expr::Cast(inner, t) => {
                self.expr(inner, 13, indent, sub);
                self.out.push_str(" as ");
                self.cast_ty(*t);
            }
            Expr::Call(c) => {
                self.path(ItemKey::Fn(c.callee), c.hint);
                self.delimited('(', &c.args, ')', indent);
            }
            Expr::StructLit(s) => self.struct_lit(s, indent),
            Expr::Field(base, s, f) => {
                self.postfix_base(base, indent, sub);
                self.out.push('.');
                self.out.push_str(&self.m.strukt(*s).field(*f).name);
            }
            Expr::Array(es) => self.delimited('[', es, ']', indent),
            Expr::Repeat(x, len) => {
                self.out.push('[');
                self.expr(x, 0, indent, Ctx::default());
                self.out.push_str("; ");
                self.len(len);
                self.out.push(']');
            }
            Expr::Index(base, i) => {
                self.postfix_base(base, indent, sub);
                self.delimited('[', std::slice::from_ref(&**i), ']', indent);
            }
            Expr::Paren(x) => self.delimited('(', std::slice::from_ref(&**x), ')', indent),
            Expr::Block(b) => self.block(b, indent),
            Expr::If(i) => self.if_(i, indent),
            Expr::Loop(label, body) => {
                self.label(*label);
                self.out.push_str("loop ");
                self.block(body, indent);
            }
            Expr::While(label, cond, body) => self.while_(*label, cond, body, indent),
            Expr::For(f) => self.for_(f, indent),
            Expr::Break(label, v) => self.jump("break", *label, v.as_deref(), indent),
            Expr::Continue(label) => self.jump("continue", *label, None, indent),
            Expr::Return(v) => self.jump("return", None, v.as_deref(), indent),
        }
    }

    /// `-e` or `!e`; `- -e` is written `-(-e)`.
    fn unary(&mut self, op: UnOp, inner: &Expr, indent: usize, right: Ctx) {
        self.out.push(if op == UnOp::Neg { '-' } else { '!' });
        if matches!(inner, Expr::Unary(UnOp::Neg, _)) {
            self.out.push('(');
            self.expr(inner, 0, indent, Ctx::default());
            self.out.push(')');
        } else {
            self.expr(inner, 14, indent, right);
        }
    }

    /// `a op b`, in the operand contexts of [`Self::expr_inner`].
    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, indent: usize, sub: Ctx, right: Ctx) {
        let p = op.prec();
        let left = Ctx {
            before_lt: op.token().starts_with('<'),
            ..sub
        };
        // Comparisons do not chain: both operands must bind tighter.
        let lp = if op.is_comparison() { p + 1 } else { p };
        self.expr(a, lp, indent, left);
        self.out.push(' ');
        self.out.push_str(op.token());
        self.out.push(' ');
        self.expr(b, p + 1, indent, right);
    }

    /// `open e1, e2, … close`.
    fn delimited(&mut self, open: char, items: &[Expr], close: char, indent: usize) {
        self.out.push(open);
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(x, 0, indent, Ctx::default());
        }
        self.out.push(close);
    }

    /// The base of `base.field` or `base[i]`: binds tightest, and a struct literal there
    /// is parenthesized.
    fn postfix_base(&mut self, base: &Expr, indent: usize, sub: Ctx) {
        let ctx = Ctx {
            no_struct: true,
            ..sub
        };
        self.expr(base, 16, indent, ctx);
    }

    fn struct_lit(&mut self, s: &StructLit, indent: usize) {
        match s.alias {
            Some(a) => self.path(ItemKey::Alias(a), s.hint),
            None => self.path(ItemKey::Struct(s.st), s.hint),
        }
        let sd = self.m.strukt(s.st);
        self.out.push_str(" {");
        for (i, fi) in s.fields.iter().enumerate() {
            self.out.push_str(if i > 0 { ", " } else { " " });
            let name = &sd.field(fi.field).name;
            self.out.push_str(name);
            if !fi.shorthand {
                self.out.push_str(": ");
                self.expr(&fi.value, 0, indent, Ctx::default());
            }
        }
        if s.fields.is_empty() {
            self.out.push('}');
        } else {
            self.out
                .push_str(if s.hint % 8 == 0 { ", }" } else { " }" });
        }
    }

    fn while_(&mut self, label: Option<Label>, cond: &Expr, body: &Block, indent: usize) {
        self.label(label);
        self.out.push_str("while ");
        self.expr(cond, 0, indent, Ctx::head());
        self.out.push(' ');
        self.block_multi(body, indent);
    }

    fn for_(&mut self, f: &For, indent: usize) {
        self.label(f.label);
        self.out.push_str("for ");
        if f.mutable {
            self.out.push_str("mut ");
        }
        self.out.push_str(&local_name(f.var));
        self.out.push_str(" in ");
        // `..` binds looser than every binary operator.
        self.expr(&f.lo, 4, indent, Ctx::head());
        self.out.push_str(if f.inclusive { "..=" } else { ".." });
        self.expr(&f.hi, 4, indent, Ctx::head());
        self.out.push(' ');
        self.block_multi(&f.body, indent);
    }

    /// `break`, `continue` or `return`, with its label and value if it has them.
    fn jump(&mut self, keyword: &str, label: Option<Label>, value: Option<&Expr>, indent: usize) {
        self.out.push_str(keyword);
        if let Some(l) = label {
            let _ = write!(self.out, " '{}", label_name(l));
        }
        if let Some(v) = value {
            self.out.push(' ');
            self.expr(v, 0, indent, Ctx::default());
        }
    }

    /// Loop bodies are always written over several lines.
    fn block_multi(&mut self, b: &Block, indent: usize) {
        if b.stmts.is_empty() && b.tail.is_none() {
            self.out.push_str("{}");
        } else {
            self.out.push('{');
            self.block_contents(b, indent + 1);
            self.nl(indent);
            self.out.push('}');
        }
    }

    fn label(&mut self, l: Option<Label>) {
        if let Some(l) = l {
            self.out.push('\'');
            self.out.push_str(&label_name(l));
            self.out.push_str(": ");
        }
    }

    fn if_(&mut self, i: &If, indent: usize) {
        let multi = if_multiline(i);
        let mut cur = i;
        loop {
            self.out.push_str("if ");
            self.expr(&cur.cond, 0, indent, Ctx::head());
            self.out.push(' ');
            if multi {
                self.block_multi(&cur.then, indent);
            } else {
                self.block(&cur.then, indent);
            }
            match &cur.els {
                None => break,
                Some(Else::Block(b)) => {
                    self.out.push_str(" else ");
                    if multi {
                        self.block_multi(b, indent);
                    } else {
                        self.block(b, indent);
                    }
                    break;
                }
                Some(Else::If(next)) => {
                    self.out.push_str(" else ");
                    cur = next;
                }
            }
        }
    }

    fn int_lit(&mut self, l: &IntLit) {
        let v = l.value;
        let sep_suffix = match l.style {
            LitStyle::Dec => {
                push_u64(&mut self.out, v);
                false
            }
            LitStyle::Underscored => {
                push_grouped(&mut self.out, &v.to_string(), 3);
                true
            }
            LitStyle::Hex => {
                self.out.push_str("0x");
                push_grouped(&mut self.out, &format!("{v:x}"), 4);
                true
            }
            LitStyle::Bin => {
                let _ = write!(self.out, "0b{v:b}");
                true
            }
            LitStyle::Octal => {
                let _ = write!(self.out, "0o{v:o}");
                false
            }
            LitStyle::Zeros => {
                self.out.push_str("00");
                push_u64(&mut self.out, v);
                false
            }
        };
        if l.suffix {
            if sep_suffix {
                self.out.push('_');
            }
            self.out.push_str(l.ty.name());
        }
    }
}

/// Appends `digits` with `_` between groups of `group` digits, counted from the right.
fn push_grouped(out: &mut String, digits: &str, group: usize) {
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).rem_euclid(group) == 0 {
            out.push('_');
        }
        out.push(ch);
    }
}

/// How an expression is embedded in its surroundings.
#[derive(Clone, Copy, Default)]
struct Ctx {
    /// At the start of a statement: block-like expressions need no parentheses.
    stmt_start: bool,
    /// In the head of `if`/`while`/`for`: struct literals need parentheses.
    no_struct: bool,
    /// Immediately followed by `<` or `<<`: a trailing `as T` needs parentheses.
    before_lt: bool,
}

impl Ctx {
    /// The head of `if`, `while` or `for`, where a struct literal needs parentheses.
    fn head() -> Ctx {
        Ctx {
            no_struct: true,
            ..Ctx::default()
        }
    }
}

/// A short list of path options, without allocating.
#[derive(Default, Clone)]
struct Opts {
    buf: [Option<PathOpt>; 16],
    len: usize,
}

impl Opts {
    fn push(&mut self, o: PathOpt) {
        if self.len < self.buf.len() {
            self.buf[self.len] = Some(o);
            self.len += 1;
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, i: usize) -> PathOpt {
        self.buf[i].expect("within len")
    }

    fn retain(&mut self, mut keep: impl FnMut(&PathOpt) -> bool) {
        let mut n = 0;
        for i in 0..self.len {
            let o = self.get(i);
            if keep(&o) {
                self.buf[n] = Some(o);
                n += 1;
            }
        }
        self.len = n;
    }
}

/// Appends the decimal digits of `v`.
fn push_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&buf[i..]).expect("ascii digits"));
}

/// Where a path is written: `use` paths never start with a bare name or go through an
/// import, and `pub use` paths never go through a re-export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PathMode {
    Expr,
    Use,
    PubUse,
}

#[derive(Clone, Copy, Debug)]
enum PathOpt {
    /// `name` (item of the current module).
    Bare,
    /// The local name of a `use` import.
    Imported,
    /// `self::name`.
    SelfPrefix,
    /// `crate::a::b::name`.
    Crate,
    /// `super::super::a::name` (or `self::a::name` for a descendant).
    Super,
    /// `a::b::name` for an item in a descendant module.
    Child,
    /// `imported_mod::b::name`.
    ViaModImport(ModId),
    /// `crate::r::name` where `r` re-exports the item.
    ViaReexport(ModId),
}
