//! Human-readable dumps of tokens and syntax trees, for `rill emit --what tokens|ast` and
//! for snapshot tests.
//!
//! Token dump: one line per token, `Kind lo..hi "text"`. Tree dump: one node per line,
//! indented by two spaces per level, `Kind details lo..hi` with spans relative to the
//! item (items show their absolute `offset`).

use std::fmt::Write;

use crate::span::Span;
use crate::syntax::ast::{
    Arena, ExprId, ExprKind, FmtPiece, ForLoop, IntLit, IntSuffix, Item, ItemKind, Label, LitValue,
    PathSegment, PathSegmentKind, Pattern, SourceFileAst, StmtKind, StructLit, TypeId, TypeKind,
    UseTree, UseTreeKind, Visibility,
};
use crate::syntax::lexer::{literal_suffix_start, Token, TokenKind};

/// One line per token: its kind, absolute span and text (escaped).
pub fn tokens_to_string(text: &str, tokens: &[Token]) -> String {
    let mut out = String::new();
    let mut lo = 0usize;
    for t in tokens {
        let hi = lo + t.len as usize;
        let s = text.get(lo..hi).unwrap_or("");
        let kind = match t.kind {
            TokenKind::Keyword(k) => format!("Keyword({})", k.as_str()),
            TokenKind::Literal { kind } => format!(
                "Literal {{ kind: {kind:?}, suffix_start: {} }}",
                literal_suffix_start(s)
            ),
            k => format!("{k:?}"),
        };
        let _ = writeln!(out, "{kind} {lo}..{hi} {s:?}");
        lo = hi;
    }
    out
}

/// The whole tree, one node per line.
pub fn ast_to_string(ast: &SourceFileAst) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    for item in &ast.items {
        p.item(item);
    }
    p.out
}

struct Printer {
    out: String,
    indent: usize,
}

fn sp(s: Span) -> String {
    format!("{}..{}", s.lo, s.hi)
}

fn path_str(segments: &[PathSegment]) -> String {
    let mut s = String::new();
    for (i, seg) in segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        match seg.kind {
            PathSegmentKind::Name(n) => s.push_str(n.as_str()),
            PathSegmentKind::Crate => s.push_str("crate"),
            PathSegmentKind::SelfMod => s.push_str("self"),
            PathSegmentKind::Super => s.push_str("super"),
        }
    }
    s
}

fn int_str(lit: &IntLit) -> String {
    let mut s = match lit.value.map(LitValue::get) {
        Some(v) if lit.hex => format!("{v:#x}"),
        Some(v) => v.to_string(),
        None => "<overflow>".to_string(),
    };
    match lit.suffix {
        None => {}
        Some(IntSuffix::I32) => s.push_str("i32"),
        Some(IntSuffix::I64) => s.push_str("i64"),
        Some(IntSuffix::U64) => s.push_str("u64"),
        Some(IntSuffix::Usize) => s.push_str("usize"),
        Some(IntSuffix::Other(sym)) => {
            let _ = write!(s, "{sym}(other)");
        }
    }
    s
}

/// `x`, `mut x` or `_`, for `let` and `for`.
fn pattern_str(p: &Pattern) -> String {
    match p {
        Pattern::Binding(b) if b.mutable => format!("mut {}", b.name.name),
        Pattern::Binding(b) => b.name.name.to_string(),
        Pattern::Wild(_) => "_".to_string(),
    }
}

fn label_str(l: &Option<Label>) -> String {
    match l {
        Some(l) => format!(" '{}", l.name),
        None => String::new(),
    }
}

impl Printer {
    fn line(&mut self, args: std::fmt::Arguments<'_>) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        let _ = self.out.write_fmt(args);
        self.out.push('\n');
    }

    fn nested(&mut self, f: impl FnOnce(&mut Printer)) {
        self.indent += 1;
        f(self);
        self.indent -= 1;
    }

    fn item(&mut self, item: &Item) {
        let vis = match item.vis {
            Visibility::Pub => "pub ",
            Visibility::Private => "",
        };
        let at = format!("@{} {}", item.offset, sp(item.span));
        match &item.kind {
            ItemKind::Fn(f) => {
                self.line(format_args!("{vis}Fn {} {at}", f.name.name));
                self.nested(|p| {
                    for param in &f.params {
                        let m = if param.mutable { "mut " } else { "" };
                        p.line(format_args!(
                            "Param {m}{} {}",
                            param.name.name,
                            sp(param.span)
                        ));
                        p.nested(|p| p.ty(&f.arena, param.ty));
                    }
                    if let Some(ret) = f.ret {
                        p.line(format_args!("Ret"));
                        p.nested(|p| p.ty(&f.arena, ret));
                    }
                    p.expr(&f.arena, f.body);
                });
            }
            ItemKind::Const(c) => {
                self.line(format_args!("{vis}Const {} {at}", c.name.name));
                self.nested(|p| {
                    p.ty(&c.arena, c.ty);
                    p.expr(&c.arena, c.value);
                });
            }
            ItemKind::Struct(s) => {
                self.line(format_args!("{vis}Struct {} {at}", s.name.name));
                self.nested(|p| {
                    for f in &s.fields {
                        let v = if f.vis == Visibility::Pub { "pub " } else { "" };
                        p.line(format_args!("Field {v}{} {}", f.name.name, sp(f.span)));
                        p.nested(|p| p.ty(&s.arena, f.ty));
                    }
                });
            }
            ItemKind::TypeAlias(t) => {
                self.line(format_args!("{vis}TypeAlias {} {at}", t.name.name));
                self.nested(|p| p.ty(&t.arena, t.ty));
            }
            ItemKind::Mod(m) => match &m.items {
                None => self.line(format_args!("{vis}Mod {}; {at}", m.name.name)),
                Some(items) => {
                    self.line(format_args!("{vis}Mod {} {at}", m.name.name));
                    self.nested(|p| {
                        for i in items {
                            p.item(i);
                        }
                    });
                }
            },
            ItemKind::Use(u) => {
                self.line(format_args!("{vis}Use {at}"));
                self.nested(|p| p.use_tree(&u.tree));
            }
        }
    }

    fn use_tree(&mut self, t: &UseTree) {
        match &t.kind {
            UseTreeKind::Simple { rename: None } => self.line(format_args!(
                "{} {}",
                path_str(&t.prefix.segments),
                sp(t.span)
            )),
            UseTreeKind::Simple { rename: Some(r) } => self.line(format_args!(
                "{} as {} {}",
                path_str(&t.prefix.segments),
                r.name,
                sp(t.span)
            )),
            UseTreeKind::Nested(trees) => {
                let sep = if t.prefix.segments.is_empty() {
                    ""
                } else {
                    "::"
                };
                self.line(format_args!(
                    "{}{sep}{{}} {}",
                    path_str(&t.prefix.segments),
                    sp(t.span)
                ));
                self.nested(|p| {
                    for t in trees {
                        p.use_tree(t);
                    }
                });
            }
        }
    }

    fn ty(&mut self, a: &Arena, id: TypeId) {
        let t = &a[id];
        match &t.kind {
            TypeKind::Path(path) => self.line(format_args!(
                "Type {} {}",
                path_str(a.path(path).segments),
                sp(t.span)
            )),
            TypeKind::Array(elem, len) => {
                self.line(format_args!("Type [;] {}", sp(t.span)));
                self.nested(|p| {
                    p.ty(a, *elem);
                    p.expr(a, *len);
                });
            }
            TypeKind::Unit => self.line(format_args!("Type () {}", sp(t.span))),
            TypeKind::Never => self.line(format_args!("Type ! {}", sp(t.span))),
            TypeKind::Error => self.line(format_args!("Type <error> {}", sp(t.span))),
        }
    }

    fn expr(&mut self, a: &Arena, id: ExprId) {
        let e = &a[id];
        let s = sp(e.span);
        match &e.kind {
            ExprKind::Missing => self.line(format_args!("Missing {s}")),
            ExprKind::Int(lit) => self.line(format_args!("Int {} {s}", int_str(&a.int_lit(*lit)))),
            ExprKind::Bool(b) => self.line(format_args!("Bool {b} {s}")),
            ExprKind::Unit => self.line(format_args!("Unit {s}")),
            ExprKind::Path(p) => {
                self.line(format_args!("Path {} {s}", path_str(a.path(p).segments)))
            }
            ExprKind::Paren(inner) => {
                self.line(format_args!("Paren {s}"));
                self.nested(|p| p.expr(a, *inner));
            }
            ExprKind::Unary(op, inner) => {
                let op = match op {
                    crate::syntax::ast::UnOp::Neg => "-",
                    crate::syntax::ast::UnOp::Not => "!",
                };
                self.line(format_args!("Unary {op} {s}"));
                self.nested(|p| p.expr(a, *inner));
            }
            ExprKind::Binary(op, l, r) => {
                self.line(format_args!("Binary {} {s}", op.as_str()));
                self.nested(|p| {
                    p.expr(a, *l);
                    p.expr(a, *r);
                });
            }
            ExprKind::Assign(l, r) => {
                self.line(format_args!("Assign {s}"));
                self.nested(|p| {
                    p.expr(a, *l);
                    p.expr(a, *r);
                });
            }
            ExprKind::AssignOp(op, l, r) => {
                self.line(format_args!("AssignOp {}= {s}", op.as_str()));
                self.nested(|p| {
                    p.expr(a, *l);
                    p.expr(a, *r);
                });
            }
            ExprKind::Cast(inner, ty) => {
                self.line(format_args!("Cast {s}"));
                self.nested(|p| {
                    p.expr(a, *inner);
                    p.ty(a, *ty);
                });
            }
            ExprKind::Call(callee, args) => {
                self.line(format_args!("Call {s}"));
                self.nested(|p| {
                    p.expr(a, *callee);
                    for arg in &a[*args] {
                        p.expr(a, *arg);
                    }
                });
            }
            ExprKind::Field(inner, name) => {
                self.line(format_args!("Field .{} {s}", name.name));
                self.nested(|p| p.expr(a, *inner));
            }
            ExprKind::Index(base, index) => {
                self.line(format_args!("Index {s}"));
                self.nested(|p| {
                    p.expr(a, *base);
                    p.expr(a, *index);
                });
            }
            ExprKind::StructLit(lit) => {
                let StructLit { path, fields } = &a[*lit];
                self.line(format_args!(
                    "StructLit {} {s}",
                    path_str(a.path(path).segments)
                ));
                self.nested(|p| {
                    for f in &a[*fields] {
                        let short = if f.shorthand { " (shorthand)" } else { "" };
                        p.line(format_args!(
                            "FieldInit {}{short} {}",
                            f.name.name,
                            sp(f.name.span)
                        ));
                        p.nested(|p| p.expr(a, f.value));
                    }
                });
            }
            ExprKind::Array(elems) => {
                self.line(format_args!("Array {s}"));
                self.nested(|p| {
                    for e in &a[*elems] {
                        p.expr(a, *e);
                    }
                });
            }
            ExprKind::Repeat(value, count) => {
                self.line(format_args!("Repeat {s}"));
                self.nested(|p| {
                    p.expr(a, *value);
                    p.expr(a, *count);
                });
            }
            ExprKind::Block(block) => {
                self.line(format_args!("Block {s}"));
                self.nested(|p| {
                    for &st in &a[block.stmts] {
                        p.stmt(a, st);
                    }
                    if let Some(tail) = block.tail {
                        p.line(format_args!("Tail"));
                        p.nested(|p| p.expr(a, tail));
                    }
                });
            }
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.line(format_args!("If {s}"));
                self.nested(|p| {
                    p.expr(a, *cond);
                    p.expr(a, *then_branch);
                    if let Some(e) = else_branch {
                        p.line(format_args!("Else"));
                        p.nested(|p| p.expr(a, *e));
                    }
                });
            }
            ExprKind::While { label, cond, body } => {
                self.line(format_args!("While{} {s}", label_str(label)));
                self.nested(|p| {
                    p.expr(a, *cond);
                    p.expr(a, *body);
                });
            }
            ExprKind::Loop { label, body } => {
                self.line(format_args!("Loop{} {s}", label_str(label)));
                self.nested(|p| p.expr(a, *body));
            }
            ExprKind::For(f) => {
                let ForLoop {
                    label,
                    pattern,
                    start,
                    end,
                    inclusive,
                    body,
                } = &a[*f];
                let dots = if *inclusive { "..=" } else { ".." };
                self.line(format_args!(
                    "For{} {} {dots} {s}",
                    label_str(label),
                    pattern_str(pattern)
                ));
                self.nested(|p| {
                    p.expr(a, *start);
                    p.expr(a, *end);
                    p.expr(a, *body);
                });
            }
            ExprKind::Break { label, value } => {
                self.line(format_args!("Break{} {s}", label_str(label)));
                if let Some(v) = value {
                    self.nested(|p| p.expr(a, *v));
                }
            }
            ExprKind::Continue { label } => {
                self.line(format_args!("Continue{} {s}", label_str(label)))
            }
            ExprKind::Return(value) => {
                self.line(format_args!("Return {s}"));
                if let Some(v) = value {
                    self.nested(|p| p.expr(a, *v));
                }
            }
            ExprKind::Println { pieces, args } => {
                let mut fmt = String::new();
                for piece in &a[*pieces] {
                    match piece {
                        FmtPiece::Text(t) => {
                            let _ = write!(fmt, "{t:?} ");
                        }
                        FmtPiece::Hole => fmt.push_str("{} "),
                    }
                }
                self.line(format_args!("Println {}{s}", fmt));
                self.nested(|p| {
                    for arg in &a[*args] {
                        p.expr(a, *arg);
                    }
                });
            }
        }
    }

    fn stmt(&mut self, a: &Arena, id: crate::syntax::ast::StmtId) {
        let st = &a[id];
        let s = sp(st.span);
        match &st.kind {
            StmtKind::Let { pattern, ty, init } => {
                self.line(format_args!("Let {} {s}", pattern_str(pattern)));
                self.nested(|p| {
                    if let Some(ty) = ty {
                        p.ty(a, *ty);
                    }
                    p.expr(a, *init);
                });
            }
            StmtKind::Expr { expr, semi } => {
                let semi = if *semi { "Semi" } else { "Expr" };
                self.line(format_args!("{semi} {s}"));
                self.nested(|p| p.expr(a, *expr));
            }
            StmtKind::Empty => self.line(format_args!("Empty {s}")),
        }
    }
}
