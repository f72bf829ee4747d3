//! Control flow: `if`, `loop`, `while`, `for`, `break`, `continue` and `return`.
//!
//! As in rustc, an `if`'s branches share its expectation only when it is a hard one, a
//! `loop`'s type comes from its `break` values (`!` when nothing leaves it), `while` and
//! `for` have type `()`, and each construct sets the `diverges` flag as rustc does (a
//! `while` never diverges, an `if` only when the condition or both branches do).

use super::expr::{BindingSite, Checker, Expect, LoopCtx, LoopKind};
use super::infer::ITy;
use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::sema::thir::{TExprId, TExprKind};
use crate::span::Span;
use crate::syntax::ast::{ExprId, Ident, Label, Pattern};

impl Checker<'_> {
    pub(super) fn check_if(
        &mut self,
        cond: ExprId,
        then_branch: ExprId,
        else_branch: Option<ExprId>,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
        let c = self.check_expr_coercible(cond, &ITy::Bool);
        let cond_failed = self.ty_of(c) == ITy::Error;
        let cond_diverges = std::mem::replace(&mut self.diverges, false);
        let branch_expect = expect.adjust_for_branches(&mut self.buf.infer);
        let then_id = self.check_expr(then_branch, &branch_expect);
        let then_diverges = std::mem::replace(&mut self.diverges, false);
        let target = branch_expect.only_has_type();
        let (then_id, else_id, ty) = match else_branch {
            Some(else_branch) => {
                let else_id = self.check_expr(else_branch, &branch_expect);
                let else_diverges = self.diverges;
                self.diverges = cond_diverges || (then_diverges && else_diverges);
                const INCOMPATIBLE: &str = "`if` and `else` have incompatible types";
                match target {
                    Some(target) => {
                        let then_id = self.coerce(then_id, &target);
                        let (else_id, _) = self.coerce_with(else_id, &target, INCOMPATIBLE);
                        (then_id, Some(else_id), target)
                    }
                    None => {
                        let then_ty = self.ty_of(then_id);
                        let else_ty = self.ty_of(else_id);
                        match (
                            self.buf.infer.is_never(&then_ty),
                            self.buf.infer.is_never(&else_ty),
                        ) {
                            (true, true) => (then_id, Some(else_id), ITy::Never),
                            (true, false) => {
                                let then_id = self.never_to_any(then_id, else_ty);
                                (then_id, Some(else_id), else_ty)
                            }
                            (false, _) => {
                                let (else_id, _) =
                                    self.coerce_with(else_id, &then_ty, INCOMPATIBLE);
                                (then_id, Some(else_id), then_ty)
                            }
                        }
                    }
                }
            }
            None => {
                self.diverges = cond_diverges;
                match target {
                    Some(target) => {
                        let (then_id, ok) = self.coerce_with(then_id, &target, "mismatched types");
                        if ok && !self.buf.infer.unify(&ITy::Unit, &target) {
                            self.missing_else(&target, span);
                        }
                        (then_id, None, target)
                    }
                    None => {
                        let then_ty = self.ty_of(then_id);
                        let then_id = if self.buf.infer.is_never(&then_ty) {
                            self.never_to_any(then_id, ITy::Unit)
                        } else {
                            if !self.buf.infer.unify(&then_ty, &ITy::Unit) {
                                self.missing_else(&then_ty, span);
                            }
                            then_id
                        };
                        (then_id, None, ITy::Unit)
                    }
                }
            }
        };
        let ty = if cond_failed { ITy::Error } else { ty };
        self.alloc(
            TExprKind::If {
                cond: c,
                then_branch: then_id,
                else_branch: else_id,
            },
            ty,
            span,
        )
    }

    pub(super) fn missing_else(&mut self, expected: &ITy, span: Span) {
        let e = self.buf.infer.describe(expected, self.env);
        self.report(
            Diagnostic::error("`if` may be missing an `else` clause", span)
                .with_code("E0317")
                .with_label_message(format!("expected {e}, found `()`"))
                .with_note("`if` expressions without `else` evaluate to `()`"),
        );
    }

    pub(super) fn push_loop(
        &mut self,
        kind: LoopKind,
        label: Option<Label>,
        ty: Option<ITy>,
        head: Span,
    ) {
        self.buf.loops.push(LoopCtx {
            kind,
            label: label.map(|l| l.name),
            ty,
            has_break: false,
            may_break: false,
            jumps: Vec::new(),
            in_cond: kind == LoopKind::While,
            head_span: head,
        });
    }

    /// Allocates the loop node and points the `break`s and `continue`s at it.
    pub(super) fn finish_loop(
        &mut self,
        ctx: LoopCtx,
        kind: TExprKind,
        ty: ITy,
        span: Span,
    ) -> TExprId {
        let id = self.alloc(kind, ty, span);
        for j in ctx.jumps {
            match &mut self.exprs[j.0 as usize].kind {
                TExprKind::Break { target, .. } | TExprKind::Continue { target } => *target = id,
                _ => {}
            }
        }
        id
    }

    /// A loop body: a block of type `()` (or `!`).
    pub(super) fn check_loop_body(&mut self, body: ExprId) -> TExprId {
        self.check_expr(body, &Expect::Has(ITy::Unit))
    }

    pub(super) fn check_loop(
        &mut self,
        label: Option<Label>,
        body: ExprId,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
        self.push_loop(LoopKind::Loop, label, expect.only_has_type(), span);
        let body = self.check_loop_body(body);
        let Some(ctx) = self.buf.loops.pop() else {
            return self.error_node(span);
        };
        // A loop that is never left diverges; otherwise nothing is known.
        self.diverges = !ctx.may_break;
        let ty = if ctx.has_break {
            ctx.ty.unwrap_or(ITy::Unit)
        } else {
            ITy::Never
        };
        self.finish_loop(ctx, TExprKind::Loop { body }, ty, span)
    }

    pub(super) fn check_while(
        &mut self,
        label: Option<Label>,
        cond: ExprId,
        body: ExprId,
        span: Span,
    ) -> TExprId {
        let head = Span::new(span.lo, self.arena[cond].span.hi);
        self.push_loop(LoopKind::While, label, None, head);
        let cond = self.check_expr_coercible(cond, &ITy::Bool);
        if let Some(ctx) = self.buf.loops.last_mut() {
            ctx.in_cond = false;
        }
        let body = self.check_loop_body(body);
        let Some(ctx) = self.buf.loops.pop() else {
            return self.error_node(span);
        };
        // The condition may be false at once: a `while` never diverges.
        self.diverges = false;
        self.finish_loop(ctx, TExprKind::While { cond, body }, ITy::Unit, span)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_for(
        &mut self,
        label: Option<Label>,
        pattern: &Pattern,
        start: ExprId,
        end: ExprId,
        inclusive: bool,
        body: ExprId,
        span: Span,
    ) -> TExprId {
        let start_id = self.check_expr(start, &Expect::None);
        let start_id = self.never_to_fresh_var(start_id);
        let elem = self.ty_of(start_id);
        let end_id = self.check_expr_coercible(end, &elem);
        let range_span = self.arena[start].span.to(self.arena[end].span);
        let elem = match self.buf.infer.shallow(&elem) {
            ITy::Int(_) | ITy::Var(_) | ITy::Error => elem,
            other => {
                let t = self.display(&other);
                let range = if inclusive { "RangeInclusive" } else { "Range" };
                self.report(
                    Diagnostic::error(
                        format!("`std::ops::{range}<{t}>` is not an iterator"),
                        range_span,
                    )
                    .with_code("E0277")
                    .with_label_message(format!("`{range}<{t}>` is not an iterator")),
                );
                ITy::Error
            }
        };
        if self.in_const {
            self.buf.const_fors.push((start_id, range_span, inclusive));
        }
        let range_diverges = self.diverges;
        let head = Span::new(span.lo, range_span.hi);
        self.push_loop(LoopKind::For, label, None, head);
        let mark = self.buf.scopes.mark();
        let local = match pattern {
            Pattern::Binding(binding) => {
                self.check_binding_name(binding.name, BindingSite::For);
                self.declare_local(binding.name, binding.mutable, elem, false)
            }
            // The loop still needs its counter: a local named `_`, which no path can
            // name (`_` is not an identifier), so the body cannot see it.
            Pattern::Wild(wild) => {
                let name = Ident {
                    name: Symbol::intern("_"),
                    span: *wild,
                };
                self.declare_local(name, false, elem, false)
            }
        };
        let body = self.check_loop_body(body);
        self.buf.scopes.reset(mark);
        let Some(ctx) = self.buf.loops.pop() else {
            return self.error_node(span);
        };
        self.diverges = range_diverges;
        self.finish_loop(
            ctx,
            TExprKind::For {
                binding: local,
                start: start_id,
                end: end_id,
                inclusive,
                body,
            },
            ITy::Unit,
            span,
        )
    }

    /// The loop a `break`/`continue` leaves, or `None` after reporting why there is none.
    pub(super) fn find_loop(
        &mut self,
        label: Option<Label>,
        is_break: bool,
        span: Span,
    ) -> Option<usize> {
        let what = if is_break { "break" } else { "continue" };
        match label {
            Some(label) => {
                let found = self
                    .buf
                    .loops
                    .iter()
                    .rposition(|l| l.label == Some(label.name));
                if found.is_none() {
                    self.report(
                        Diagnostic::error(
                            format!("use of undeclared label `'{}`", label.name),
                            label.span,
                        )
                        .with_code("E0426")
                        .with_label_message(format!("undeclared label `'{}`", label.name)),
                    );
                }
                found
            }
            None => match self.buf.loops.last() {
                None => {
                    let (message, label) = if is_break {
                        (
                            "`break` outside of a loop or labeled block",
                            "cannot `break` outside of a loop or labeled block",
                        )
                    } else {
                        (
                            "`continue` outside of a loop",
                            "cannot `continue` outside of a loop",
                        )
                    };
                    self.report(
                        Diagnostic::error(message, span)
                            .with_code("E0268")
                            .with_label_message(label),
                    );
                    None
                }
                Some(l) if l.in_cond => {
                    self.report(
                        Diagnostic::error(
                            "`break` or `continue` with no label in the condition of a \
                             `while` loop",
                            span,
                        )
                        .with_code("E0590")
                        .with_label_message(format!(
                            "unlabeled `{what}` in the condition of a `while` loop"
                        )),
                    );
                    None
                }
                Some(_) => Some(self.buf.loops.len() - 1),
            },
        }
    }

    pub(super) fn check_break(
        &mut self,
        label: Option<Label>,
        value: Option<ExprId>,
        span: Span,
    ) -> TExprId {
        let target = self.find_loop(label, true, span);
        let value = match (target, value) {
            (Some(i), Some(v)) if self.buf.loops[i].kind == LoopKind::Loop => {
                let expect = match &self.buf.loops[i].ty {
                    Some(t) => Expect::Has(*t),
                    None => Expect::None,
                };
                let id = self.check_expr(v, &expect);
                let id = match self.buf.loops[i].ty {
                    Some(t) => self.coerce(id, &t),
                    None => {
                        let id = self.never_to_fresh_var(id);
                        self.buf.loops[i].ty = Some(self.ty_of(id));
                        id
                    }
                };
                Some(id)
            }
            (Some(i), Some(v)) => {
                let kind = if self.buf.loops[i].kind == LoopKind::While {
                    "while"
                } else {
                    "for"
                };
                let head = self.buf.loops[i].head_span;
                self.report(
                    Diagnostic::error(format!("`break` with value from a `{kind}` loop"), span)
                        .with_code("E0571")
                        .with_label_message(
                            "can only break with a value inside `loop` or breakable block",
                        )
                        .with_secondary(
                            head,
                            format!("you can't `break` with a value in a `{kind}` loop"),
                        ),
                );
                Some(self.check_expr(v, &Expect::None))
            }
            (None, Some(v)) => Some(self.check_expr(v, &Expect::None)),
            (Some(i), None) => {
                if self.buf.loops[i].kind == LoopKind::Loop {
                    match self.buf.loops[i].ty {
                        Some(t) => {
                            if !self.buf.infer.unify(&ITy::Unit, &t) {
                                self.mismatch("mismatched types", &t, &ITy::Unit, span);
                            }
                        }
                        None => self.buf.loops[i].ty = Some(ITy::Unit),
                    }
                }
                None
            }
            (None, None) => None,
        };
        let Some(i) = target else {
            return self.error_node(span);
        };
        let may_break = !self.diverges;
        let ctx = &mut self.buf.loops[i];
        ctx.has_break = true;
        ctx.may_break |= may_break;
        let id = self.alloc(
            TExprKind::Break {
                target: TExprId(u32::MAX),
                value,
            },
            ITy::Never,
            span,
        );
        self.buf.loops[i].jumps.push(id);
        id
    }

    pub(super) fn check_continue(&mut self, label: Option<Label>, span: Span) -> TExprId {
        let Some(i) = self.find_loop(label, false, span) else {
            return self.error_node(span);
        };
        let id = self.alloc(
            TExprKind::Continue {
                target: TExprId(u32::MAX),
            },
            ITy::Never,
            span,
        );
        self.buf.loops[i].jumps.push(id);
        id
    }

    pub(super) fn check_return(&mut self, value: Option<ExprId>, span: Span) -> TExprId {
        if self.in_const {
            self.report(
                Diagnostic::error("return statement outside of function body", span)
                    .with_code("E0572"),
            );
            if let Some(v) = value {
                self.check_expr(v, &Expect::None);
            }
            // Still diverges, so that no mismatch follows.
            return self.alloc(TExprKind::Error, ITy::Never, span);
        }
        let ret = self.ret;
        let value = match value {
            Some(v) => Some(self.check_expr_coercible(v, &ret)),
            None => {
                if !self.buf.infer.unify(&ITy::Unit, &ret) {
                    self.report(
                        Diagnostic::error(
                            "`return;` in a function whose return type is not `()`",
                            span,
                        )
                        .with_code("E0069")
                        .with_label_message("return type is not `()`"),
                    );
                }
                None
            }
        };
        self.alloc(TExprKind::Return(value), ITy::Never, span)
    }
}
