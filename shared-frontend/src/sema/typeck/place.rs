//! Assignment: `place = value` and `place op= value`.
//!
//! A place is a local, or a field or element of a place (`p.a[i].x`). Assigning needs the
//! root local to be `mut`; rustc reports that in borrow checking (E0384, E0594), with the
//! place written as in `p.a[_].x`. A left-hand side that is no place (a literal, a call,
//! a constant) is E0070 (E0067 for `op=`). Rust also accepts assigning to a field or
//! element of a temporary (`f().x = 1`, which has no effect): that is outside the subset.

use super::expr::{Checker, Expect};
use super::infer::ITy;
use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::sema::thir::{LocalId, TExprId, TExprKind};
use crate::span::Span;
use crate::syntax::ast::{BinOp, ExprId, ExprKind};

/// One step from a place to a part of it, as rustc prints it.
enum Projection {
    Field(Symbol),
    Index,
}

impl Checker<'_> {
    pub(super) fn check_assign(&mut self, place: ExprId, value: ExprId, span: Span) -> TExprId {
        self.assignment_in_println(span);
        let p = self.check_expr(place, &Expect::None);
        let pt = self.ty_of(p);
        let v = self.check_expr_coercible(value, &pt);
        self.check_place(place, p, false, span);
        self.alloc(TExprKind::Assign { place: p, value: v }, ITy::Unit, span)
    }

    pub(super) fn check_assign_op(
        &mut self,
        op: BinOp,
        place: ExprId,
        value: ExprId,
        span: Span,
    ) -> TExprId {
        self.assignment_in_println(span);
        let p = self.check_expr(place, &Expect::None);
        let v = self.check_expr(value, &Expect::None);
        self.binary_result(op, p, v, true, span);
        self.check_place(place, p, true, span);
        self.alloc(
            TExprKind::AssignOp {
                op,
                place: p,
                value: v,
            },
            ITy::Unit,
            span,
        )
    }

    /// `println!` borrows its arguments, and an assignment among them can conflict with
    /// that in ways Rill does not model: outside the subset.
    fn assignment_in_println(&mut self, span: Span) {
        if self.in_println > 0 {
            self.report(Diagnostic::unsupported(
                "assignment inside `println!` arguments",
                span,
            ));
        }
    }

    /// Checks that the checked left-hand side `place` (syntax `place_e`) can be assigned.
    fn check_place(&mut self, place_e: ExprId, place: TExprId, compound: bool, span: Span) {
        // The typed chain tells what the root is (errors already reported stop here).
        let mut t = place;
        let mut projected = false;
        let root = loop {
            match &self.exprs[t.0 as usize].kind {
                TExprKind::Field { base, .. } | TExprKind::Index { base, .. } => {
                    t = *base;
                    projected = true;
                }
                TExprKind::Local(local) => break Some(*local),
                TExprKind::Error => return,
                _ => break None,
            }
        };
        let Some(root) = root else {
            if projected {
                self.report(Diagnostic::unsupported(
                    "assignment to a field or element of a temporary value",
                    self.arena[place_e].span,
                ));
            } else {
                let lhs = self.arena[place_e].span;
                self.report(
                    Diagnostic::error("invalid left-hand side of assignment", lhs)
                        .with_code(if compound { "E0067" } else { "E0070" })
                        .with_label_message("cannot assign to this expression"),
                );
            }
            return;
        };
        if self.locals[root.0 as usize].mutable {
            return;
        }
        self.report_immutable(root, place_e, projected, span);
    }

    fn report_immutable(&mut self, root: LocalId, place_e: ExprId, projected: bool, span: Span) {
        let name = self.locals[root.0 as usize].name;
        let d = if !projected {
            if (root.0 as usize) < self.param_count {
                Diagnostic::error(
                    format!("cannot assign to immutable argument `{name}`"),
                    span,
                )
                .with_code("E0384")
                .with_label_message("cannot assign to immutable argument")
            } else {
                Diagnostic::error(
                    format!("cannot assign twice to immutable variable `{name}`"),
                    span,
                )
                .with_code("E0384")
                .with_label_message("cannot assign twice to immutable variable")
                .with_secondary(
                    self.locals[root.0 as usize].span,
                    format!("first assignment to `{name}`"),
                )
            }
        } else {
            let mut projections = Vec::new();
            let mut e = place_e;
            loop {
                match &self.arena[e].kind {
                    ExprKind::Paren(inner) => e = *inner,
                    ExprKind::Field(base, f) => {
                        projections.push(Projection::Field(f.name));
                        e = *base;
                    }
                    ExprKind::Index(base, _) => {
                        projections.push(Projection::Index);
                        e = *base;
                    }
                    _ => break,
                }
            }
            let mut place = name.to_string();
            for p in projections.iter().rev() {
                match p {
                    Projection::Field(f) => {
                        place.push('.');
                        place.push_str(f.as_str());
                    }
                    Projection::Index => place.push_str("[_]"),
                }
            }
            Diagnostic::error(
                format!("cannot assign to `{place}`, as `{name}` is not declared as mutable"),
                span,
            )
            .with_code("E0594")
            .with_label_message("cannot assign")
        };
        self.report(d.with_note(format!(
            "help: consider changing this to be mutable: `mut {name}`"
        )));
    }
}
