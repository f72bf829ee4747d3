//! A compact textual form of typed bodies, for snapshot tests and `rill emit`.
//!
//! It reads like Rust with the typing made visible: literals carry their type as a
//! suffix (`5i64`), locals are `name#id` with their type where they are declared, loops
//! are `loop@id` and the `break@id`/`continue@id` that leave them name that id, `!`
//! coercions are `never_to_any(e)`, the type follows (`: T`) every block, call, field,
//! index, constant and coercion, and `if<T>`/`loop@id<T>` carry theirs.

use std::fmt::Write as _;

use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::thir::{LocalId, TExprId, TExprKind, TStmt, Thir};
use crate::sema::ty::{DisplayTy, Ty};
use crate::syntax::ast::{FmtPiece, UnOp};

/// Prints a typed body: a header with the parameters and the result type
/// (`fn(x#0: i32) -> i32`; a constant's reads `fn() -> T`), then the body.
pub fn thir_to_string(thir: &Thir, env: &dyn SemaEnv) -> String {
    let mut p = Printer {
        thir,
        env,
        out: String::new(),
    };
    p.header();
    p.expr(thir.body, 0);
    p.out.push('\n');
    p.out
}

struct Printer<'a> {
    thir: &'a Thir,
    env: &'a dyn SemaEnv,
    out: String,
}

impl Printer<'_> {
    fn ty(&self, ty: &Ty) -> String {
        DisplayTy {
            ty,
            struct_name: |d| self.env.def_name(d),
        }
        .to_string()
    }

    fn local(&mut self, l: LocalId) {
        let local = &self.thir.locals[l.0 as usize];
        let _ = write!(self.out, "{}#{}", local.name, l.0);
    }

    fn local_decl(&mut self, l: LocalId) {
        if self.thir.locals[l.0 as usize].mutable {
            self.out.push_str("mut ");
        }
        self.local(l);
        let ty = self.ty(&self.thir.locals[l.0 as usize].ty);
        let _ = write!(self.out, ": {ty}");
    }

    fn header(&mut self) {
        let ret = self.ty(&self.thir.ret);
        self.out.push_str("fn(");
        for (i, &l) in self.thir.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.local_decl(l);
        }
        let _ = write!(self.out, ") -> {ret} ");
    }

    fn newline(&mut self, indent: usize) {
        self.out.push('\n');
        for _ in 0..indent {
            self.out.push_str("    ");
        }
    }

    fn typed(&mut self, id: TExprId) {
        let ty = self.ty(self.thir.ty(id));
        let _ = write!(self.out, ": {ty}");
    }

    fn list(&mut self, items: &[TExprId], indent: usize) {
        for (i, &a) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(a, indent);
        }
    }

    fn expr(&mut self, id: TExprId, indent: usize) {
        let e = &self.thir[id];
        match &e.kind {
            TExprKind::Int(bits) => match self.thir.ty_of(e) {
                Ty::Int(t) => {
                    let _ = write!(self.out, "{}{}", t.to_i128(bits.get()), t.name());
                }
                _ => self.out.push_str("{bad int}"),
            },
            TExprKind::Bool(b) => {
                let _ = write!(self.out, "{b}");
            }
            TExprKind::Unit => self.out.push_str("()"),
            TExprKind::Local(l) => self.local(*l),
            TExprKind::ConstRef(d) => {
                let name = self.env.def_name(self.thir.def(*d));
                self.out.push_str(&name);
                self.typed(id);
            }
            TExprKind::Unary(op, a) => {
                self.out.push_str(match op {
                    UnOp::Neg => "(-",
                    UnOp::Not => "(!",
                });
                self.expr(*a, indent);
                self.out.push(')');
            }
            TExprKind::Binary(op, a, b) => {
                self.out.push('(');
                self.expr(*a, indent);
                let _ = write!(self.out, " {} ", op.as_str());
                self.expr(*b, indent);
                self.out.push(')');
            }
            TExprKind::LogicalAnd(a, b) | TExprKind::LogicalOr(a, b) => {
                let op = if matches!(e.kind, TExprKind::LogicalAnd(..)) {
                    "&&"
                } else {
                    "||"
                };
                self.out.push('(');
                self.expr(*a, indent);
                let _ = write!(self.out, " {op} ");
                self.expr(*b, indent);
                self.out.push(')');
            }
            TExprKind::Assign { place, value } => {
                self.expr(*place, indent);
                self.out.push_str(" = ");
                self.expr(*value, indent);
            }
            TExprKind::AssignOp { op, place, value } => {
                self.expr(*place, indent);
                let _ = write!(self.out, " {}= ", op.as_str());
                self.expr(*value, indent);
            }
            TExprKind::Cast { source, from, to } => {
                let from = self.ty(&from.ty());
                self.out.push('(');
                self.expr(*source, indent);
                let _ = write!(self.out, " as {} [from {from}])", to.name());
            }
            TExprKind::Call { callee, args } => {
                let name = self.env.def_name(self.thir.def(*callee));
                let _ = write!(self.out, "{name}(");
                self.list(self.thir.expr_list(*args), indent);
                self.out.push(')');
                self.typed(id);
            }
            TExprKind::Field { base, index } => self.field(id, *base, *index, indent),
            TExprKind::Index { base, index } => {
                self.expr(*base, indent);
                self.out.push('[');
                self.expr(*index, indent);
                self.out.push(']');
                self.typed(id);
            }
            TExprKind::StructLit { def, fields } => {
                self.struct_lit(self.thir.def(*def), self.thir.fields(*fields), indent)
            }
            TExprKind::Array(elems) => {
                self.out.push('[');
                self.list(self.thir.expr_list(*elems), indent);
                self.out.push(']');
            }
            TExprKind::Repeat { value, count } => {
                self.out.push('[');
                self.expr(*value, indent);
                let _ = write!(self.out, "; {}]", count.get());
            }
            TExprKind::Block { stmts, tail } => {
                self.block(id, self.thir.stmts(*stmts), *tail, indent)
            }
            TExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let ty = self.ty(self.thir.ty_of(e));
                let _ = write!(self.out, "if<{ty}> ");
                self.expr(*cond, indent);
                self.out.push(' ');
                self.expr(*then_branch, indent);
                if let Some(e) = else_branch {
                    self.out.push_str(" else ");
                    self.expr(*e, indent);
                }
            }
            TExprKind::Loop { body } => {
                let ty = self.ty(self.thir.ty_of(e));
                let _ = write!(self.out, "loop@{}<{ty}> ", id.0);
                self.expr(*body, indent);
            }
            TExprKind::While { cond, body } => {
                let _ = write!(self.out, "while@{} ", id.0);
                self.expr(*cond, indent);
                self.out.push(' ');
                self.expr(*body, indent);
            }
            TExprKind::For {
                binding,
                start,
                end,
                inclusive,
                body,
            } => {
                let _ = write!(self.out, "for@{} ", id.0);
                self.local_decl(*binding);
                self.out.push_str(" in ");
                self.expr(*start, indent);
                self.out.push_str(if *inclusive { "..=" } else { ".." });
                self.expr(*end, indent);
                self.out.push(' ');
                self.expr(*body, indent);
            }
            TExprKind::Break { target, value } => {
                let _ = write!(self.out, "break@{}", target.0);
                if let Some(v) = value {
                    self.out.push(' ');
                    self.expr(*v, indent);
                }
            }
            TExprKind::Continue { target } => {
                let _ = write!(self.out, "continue@{}", target.0);
            }
            TExprKind::Return(value) => {
                self.out.push_str("return");
                if let Some(v) = value {
                    self.out.push(' ');
                    self.expr(*v, indent);
                }
            }
            TExprKind::Println { pieces, args } => self.println(
                self.thir.lists.pieces(*pieces),
                self.thir.expr_list(*args),
                indent,
            ),
            TExprKind::NeverToAny(a) => {
                self.out.push_str("never_to_any(");
                self.expr(*a, indent);
                self.out.push(')');
                self.typed(id);
            }
            TExprKind::Error => self.out.push_str("{error}"),
        }
    }

    /// `base.name`, or `base.index` when the struct's fields are not known.
    fn field(&mut self, id: TExprId, base: TExprId, index: u32, indent: usize) {
        self.expr(base, indent);
        let name = match self.thir.ty(base) {
            Ty::Struct(d) => self
                .env
                .struct_fields(*d)
                .ok()
                .and_then(|f| f.fields.get(index as usize).map(|f| f.name.to_string())),
            _ => None,
        };
        match name {
            Some(n) => {
                let _ = write!(self.out, ".{n}");
            }
            None => {
                let _ = write!(self.out, ".{index}");
            }
        }
        self.typed(id);
    }

    /// `S { name: value, .. }`, in the order written.
    fn struct_lit(&mut self, def: DefId, fields: &[(u32, TExprId)], indent: usize) {
        let name = self.env.def_name(def);
        let names = self.env.struct_fields(def).ok();
        let _ = write!(self.out, "{name} {{ ");
        for (i, &(index, value)) in fields.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match names.as_ref().and_then(|f| f.fields.get(index as usize)) {
                Some(f) => {
                    let _ = write!(self.out, "{}: ", f.name);
                }
                None => {
                    let _ = write!(self.out, "{index}: ");
                }
            }
            self.expr(value, indent);
        }
        self.out.push_str(" }");
    }

    /// A block, one statement a line.
    fn block(&mut self, id: TExprId, stmts: &[TStmt], tail: Option<TExprId>, indent: usize) {
        self.out.push('{');
        for s in stmts {
            self.newline(indent + 1);
            match s {
                TStmt::Let { local, init } => {
                    self.out.push_str("let ");
                    match local {
                        Some(l) => self.local_decl(*l),
                        None => self.out.push('_'),
                    }
                    self.out.push_str(" = ");
                    self.expr(*init, indent + 1);
                }
                TStmt::Expr(e) => self.expr(*e, indent + 1),
            }
            self.out.push(';');
        }
        if let Some(t) = tail {
            self.newline(indent + 1);
            self.expr(t, indent + 1);
        }
        self.newline(indent);
        self.out.push('}');
        self.typed(id);
    }

    /// `println!("…", args)`, with the format string re-escaped.
    fn println(&mut self, pieces: &[FmtPiece], args: &[TExprId], indent: usize) {
        self.out.push_str("println!(\"");
        for piece in pieces.iter() {
            match piece {
                FmtPiece::Hole => self.out.push_str("{}"),
                FmtPiece::Text(t) => {
                    for c in t.chars() {
                        match c {
                            '{' => self.out.push_str("{{"),
                            '}' => self.out.push_str("}}"),
                            _ => {
                                let _ = write!(self.out, "{}", c.escape_debug());
                            }
                        }
                    }
                }
            }
        }
        self.out.push('"');
        for &a in args {
            self.out.push_str(", ");
            self.expr(a, indent);
        }
        self.out.push(')');
    }
}
