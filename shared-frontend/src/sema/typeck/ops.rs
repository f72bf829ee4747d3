//! Operators: unary `-` and `!`, binary operators (also as the `op=` of compound
//! assignment), and `as` casts.
//!
//! rustc types these through traits; for the Rill types the outcome is simple: arithmetic
//! and bitwise operators need one integer type on both sides (bitwise ones also accept
//! `bool`), comparisons one integer or `bool` type, shifts an integer on each side (the
//! result has the left one's type). The diagnostics use rustc's wording for each way of
//! getting it wrong. A `!` operand counts as `()`, as rustc's fallback makes it.

use super::expr::{Checker, DeferredOp, Expect, PendingCast};
use super::infer::{ITy, VarKind};
use crate::diag::Diagnostic;
use crate::sema::thir::{TExprId, TExprKind};
use crate::sema::ty::IntTy;
use crate::span::Span;
use crate::syntax::ast::{BinOp, ExprId, ExprKind, TypeId, UnOp};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Category {
    Shortcircuit,
    Math,
    Bitwise,
    Shift,
    Comparison,
}

fn category(op: BinOp) -> Category {
    match op {
        BinOp::And | BinOp::Or => Category::Shortcircuit,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => Category::Math,
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => Category::Bitwise,
        BinOp::Shl | BinOp::Shr => Category::Shift,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            Category::Comparison
        }
    }
}

/// rustc's message when `lhs op rhs` has no implementation.
pub(super) fn no_impl_message(op: BinOp, assign: bool, lhs: &str, rhs: &str) -> String {
    match (op, assign) {
        (BinOp::Add, false) => format!("cannot add `{rhs}` to `{lhs}`"),
        (BinOp::Sub, false) => format!("cannot subtract `{rhs}` from `{lhs}`"),
        (BinOp::Mul, false) => format!("cannot multiply `{lhs}` by `{rhs}`"),
        (BinOp::Div, false) => format!("cannot divide `{lhs}` by `{rhs}`"),
        (BinOp::Rem, false) => {
            format!("cannot calculate the remainder of `{lhs}` divided by `{rhs}`")
        }
        (BinOp::Add, true) => format!("cannot add-assign `{rhs}` to `{lhs}`"),
        (BinOp::Sub, true) => format!("cannot subtract-assign `{rhs}` from `{lhs}`"),
        (BinOp::Mul, true) => format!("cannot multiply-assign `{lhs}` by `{rhs}`"),
        (BinOp::Div, true) => format!("cannot divide-assign `{lhs}` by `{rhs}`"),
        (BinOp::Rem, true) => {
            format!("cannot calculate and assign the remainder of `{lhs}` divided by `{rhs}`")
        }
        (op, false) if op.is_comparison() => format!("can't compare `{lhs}` with `{rhs}`"),
        (op, false) => format!("no implementation for `{lhs} {} {rhs}`", op.as_str()),
        (op, true) => format!("no implementation for `{lhs} {}= {rhs}`", op.as_str()),
    }
}

impl Checker<'_> {
    pub(super) fn check_unary(
        &mut self,
        e: ExprId,
        op: UnOp,
        operand: ExprId,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
        if op == UnOp::Neg && self.neg_target != Some(e) {
            // rustc's overflowing-literals lint lets the operand of a `-` that is not
            // itself negated be one past the maximum (`-2147483648`).
            let mut target = operand;
            while let ExprKind::Paren(inner) = self.arena[target].kind {
                target = inner;
            }
            self.neg_target = Some(target);
        }
        let o = self.check_expr(operand, expect);
        let t = self.resolved_ty(o);
        let sym = match op {
            UnOp::Neg => "-",
            UnOp::Not => "!",
        };
        let ok = match (&t, op) {
            (ITy::Error, _) => true,
            (ITy::Int(i), UnOp::Neg) if !i.is_signed() => {
                let name = i.name();
                self.report(
                    Diagnostic::error(
                        format!("cannot apply unary operator `-` to type `{name}`"),
                        span,
                    )
                    .with_code("E0600")
                    .with_label_message("cannot apply unary operator `-`")
                    .with_note("unsigned values cannot be negated"),
                );
                return self.alloc(TExprKind::Unary(op, o), ITy::Error, span);
            }
            (ITy::Int(_), _) | (ITy::Bool, UnOp::Not) => true,
            (ITy::Var(_), _) => match self.buf.infer.var_kind(&t) {
                Some(VarKind::Int) => {
                    if op == UnOp::Neg {
                        self.buf.negs.push((t, span));
                    }
                    true
                }
                _ => {
                    self.annotations_needed(self.span_of(o));
                    return self.error_node(span);
                }
            },
            _ => false,
        };
        if !ok {
            let name = self.display(&t);
            self.report(
                Diagnostic::error(
                    format!("cannot apply unary operator `{sym}` to type `{name}`"),
                    span,
                )
                .with_code("E0600")
                .with_label_message(format!("cannot apply unary operator `{sym}`")),
            );
            return self.alloc(TExprKind::Unary(op, o), ITy::Error, span);
        }
        let node = self.alloc(TExprKind::Unary(op, o), t, span);
        if op == UnOp::Neg {
            if let Some(lit) = self.buf.lits.last_mut() {
                if lit.expr == o && lit.negated {
                    lit.negation = Some(node);
                }
            }
        }
        node
    }

    /// A binary expression, walking the left spine of a chain (`a + b + c + …`, which
    /// the parser builds without nesting) iteratively.
    pub(super) fn check_binary_chain(&mut self, root: ExprId) -> TExprId {
        let arena = self.arena;
        let base = self.buf.spine.len();
        let mut leftmost = root;
        while let ExprKind::Binary(_, lhs, _) = arena[leftmost].kind {
            self.buf.spine.push(leftmost);
            leftmost = lhs;
        }
        let innermost_op = match self.buf.spine.last().map(|&n| &arena[n].kind) {
            Some(ExprKind::Binary(op, ..)) => *op,
            _ => return self.check_expr(root, &Expect::None),
        };
        let mut acc = if category(innermost_op) == Category::Shortcircuit {
            self.check_expr_coercible(leftmost, &ITy::Bool)
        } else {
            self.check_expr(leftmost, &Expect::None)
        };
        while self.buf.spine.len() > base {
            let Some(node) = self.buf.spine.pop() else {
                break;
            };
            let ExprKind::Binary(op, _, rhs) = arena[node].kind else {
                continue;
            };
            acc = self.check_binary_rest(op, acc, rhs, arena[node].span);
            // The next level up uses `acc` as its left operand.
            if self.buf.spine.len() > base {
                if let Some(ExprKind::Binary(next, ..)) =
                    self.buf.spine.last().map(|&n| &arena[n].kind)
                {
                    if category(*next) == Category::Shortcircuit {
                        acc = self.coerce(acc, &ITy::Bool);
                    }
                }
            }
        }
        acc
    }

    /// Checks the right operand of `lhs op rhs` (the left one is checked) and builds the
    /// node.
    fn check_binary_rest(&mut self, op: BinOp, lhs: TExprId, rhs: ExprId, span: Span) -> TExprId {
        if category(op) == Category::Shortcircuit {
            // The right operand may not run: its divergence does not count.
            let after_lhs = self.diverges;
            let r = self.check_expr_coercible(rhs, &ITy::Bool);
            self.diverges = after_lhs;
            let kind = if op == BinOp::And {
                TExprKind::LogicalAnd(lhs, r)
            } else {
                TExprKind::LogicalOr(lhs, r)
            };
            return self.alloc(kind, ITy::Bool, span);
        }
        let r = self.check_expr(rhs, &Expect::None);
        let ty = self.binary_result(op, lhs, r, false, span);
        self.alloc(TExprKind::Binary(op, lhs, r), ty, span)
    }

    /// The type of `lhs op rhs` (or the check of `lhs op= rhs` when `assign`), reporting
    /// what is wrong.
    pub(super) fn binary_result(
        &mut self,
        op: BinOp,
        lhs: TExprId,
        rhs: TExprId,
        assign: bool,
        span: Span,
    ) -> ITy {
        let lt = self.resolved_ty(lhs);
        let rt = self.resolved_ty(rhs);
        // The common case, settled without the checks below (which it passes): both
        // operands of one integer type, or both `bool` for a bitwise or comparison
        // operator.
        let cat = category(op);
        let same_prim = match (lt, rt) {
            (ITy::Int(a), ITy::Int(b)) => a == b,
            (ITy::Bool, ITy::Bool) => matches!(cat, Category::Bitwise | Category::Comparison),
            _ => false,
        };
        if same_prim && cat != Category::Shortcircuit {
            return match (assign, cat) {
                (true, _) => ITy::Unit,
                (false, Category::Comparison) => ITy::Bool,
                (false, _) => lt,
            };
        }
        // Integers or integer variables on both sides (`x + 1`): what the checks below
        // come to for them.
        if cat != Category::Shortcircuit
            && self.buf.infer.is_integral_resolved(lt)
            && self.buf.infer.is_integral_resolved(rt)
        {
            if cat != Category::Shift {
                let rhs_span = self.span_of(rhs);
                self.same_types(&lt, &rt, rhs_span);
            }
            return match (assign, cat) {
                (true, _) => ITy::Unit,
                (false, Category::Comparison) => ITy::Bool,
                (false, _) => lt,
            };
        }
        // rustc coerces a `!` operand to a fresh variable, which falls back to `()`; what
        // fails is then only known (and worded) after the fallback.
        let had_never = lt == ITy::Never || rt == ITy::Never;
        let never_as_unit = |t: ITy| if t == ITy::Never { ITy::Unit } else { t };
        let lt = never_as_unit(lt);
        let rt = never_as_unit(rt);
        let failed = if cat == Category::Comparison {
            ITy::Bool
        } else {
            ITy::Error
        };
        if lt == ITy::Error || rt == ITy::Error {
            // Silences a literal on the other side.
            self.buf.infer.unify(&lt, &rt);
            return match cat {
                Category::Comparison => ITy::Bool,
                _ if lt == ITy::Error => ITy::Error,
                _ => lt,
            };
        }
        for (t, id) in [(&lt, lhs), (&rt, rhs)] {
            if self.buf.infer.var_kind(t) == Some(VarKind::General) {
                self.annotations_needed(self.span_of(id));
                return failed;
            }
        }
        let l_int = self.buf.infer.is_integral(&lt);
        let r_int = self.buf.infer.is_integral(&rt);
        let rhs_span = self.span_of(rhs);
        let result = match cat {
            Category::Shift if l_int && r_int => lt,
            Category::Math if l_int && r_int => {
                self.same_types(&lt, &rt, rhs_span);
                lt
            }
            Category::Bitwise if (l_int && r_int) || (lt == ITy::Bool && rt == ITy::Bool) => {
                self.same_types(&lt, &rt, rhs_span);
                lt
            }
            Category::Comparison if (l_int || lt == ITy::Bool) && (r_int || rt == ITy::Bool) => {
                self.same_types(&lt, &rt, rhs_span);
                ITy::Bool
            }
            // Rust compares arrays and `()`, and rejects structs without `PartialEq`; all
            // are outside the subset.
            Category::Comparison if matches!(lt, ITy::Array(..) | ITy::Unit | ITy::Struct(_)) => {
                let t = self.display(&lt);
                self.report(Diagnostic::unsupported(
                    format_args!("comparison of `{t}`"),
                    span,
                ));
                ITy::Bool
            }
            _ if had_never => {
                self.buf.deferred_ops.push(DeferredOp {
                    op,
                    assign,
                    lhs,
                    rhs,
                    span,
                });
                failed
            }
            _ => {
                self.no_impl(op, assign, &lt, &rt, l_int, span);
                failed
            }
        };
        if assign {
            ITy::Unit
        } else {
            result
        }
    }

    fn same_types(&mut self, lt: &ITy, rt: &ITy, rhs_span: Span) {
        if !self.buf.infer.unify(lt, rt) {
            self.mismatch("mismatched types", lt, rt, rhs_span);
        }
    }

    /// The operator has no implementation for these operand types.
    fn no_impl(&mut self, op: BinOp, assign: bool, lt: &ITy, rt: &ITy, l_int: bool, span: Span) {
        let l = self.display(lt);
        let r = self.display(rt);
        let cat = category(op);
        // The left operand has implementations of the operator (for other right
        // operands): the trait bound fails (E0277). Otherwise nothing applies at all.
        let lhs_has_impls =
            l_int || (*lt == ITy::Bool && matches!(cat, Category::Bitwise | Category::Comparison));
        let d = if lhs_has_impls {
            Diagnostic::error(no_impl_message(op, assign, &l, &r), span).with_code("E0277")
        } else if assign {
            Diagnostic::error(
                format!(
                    "binary assignment operation `{}=` cannot be applied to type `{l}`",
                    op.as_str()
                ),
                span,
            )
            .with_code("E0368")
        } else if cat == Category::Comparison {
            Diagnostic::error(
                format!(
                    "binary operation `{}` cannot be applied to type `{l}`",
                    op.as_str()
                ),
                span,
            )
            .with_code("E0369")
        } else {
            Diagnostic::error(no_impl_message(op, false, &l, &r), span).with_code("E0369")
        };
        self.report(d);
    }

    pub(super) fn check_cast(&mut self, source: ExprId, ty: TypeId, span: Span) -> TExprId {
        let target = self.lower_ty(ty);
        let target_ity = self.buf.infer.import_ty(&target);
        let s = self.check_expr(source, &Expect::Cast(target_ity));
        let st = self.ty_of(s);
        if self.buf.infer.is_never(&st) {
            // A coercion, not a conversion.
            return self.alloc(TExprKind::NeverToAny(s), target_ity, span);
        }
        if self.buf.infer.var_kind(&st) == Some(VarKind::General) {
            self.annotations_needed(self.span_of(s));
            return self.error_node(span);
        }
        let id = self.alloc(
            TExprKind::Cast {
                source: s,
                from: crate::sema::thir::CastFrom::Int(IntTy::I32),
                to: IntTy::I32,
            },
            target_ity,
            span,
        );
        self.buf.casts.push(PendingCast {
            expr: id,
            source: s,
            target,
        });
        id
    }
}
