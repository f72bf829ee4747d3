//! Finishing a body: what needs the final types.
//!
//! Once every expression is checked, the inference fallbacks apply (integer variables
//! become `i32`, diverging ones `()`), every type is made final, and the checks rustc
//! runs late run here: `-` on a type that turned out unsigned, literal ranges (the
//! `overflowing_literals` lint, an error by default, so even in dead code), casts, `for`
//! in constants, value sizes of array expressions, and type privacy (a private struct
//! type reaching an expression of a module that cannot see it).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::expr::{Buffers, Checker};
use super::infer::{ITy, VarId};
use super::sig::{check_value_size, ty_name};
use super::TypeckResult;
use crate::diag::Diagnostic;
use crate::sema::def::DefId;
use crate::sema::thir::{Bits64, CastFrom, LocalId, TExprId, TExprKind, TLists, TStmt, Thir, TyId};
use crate::sema::ty::{FnSig, Ty};
use crate::span::Span;

/// Calls `f` on every direct child of a node (whose lists are in `lists`).
pub(super) fn for_each_child(kind: &TExprKind, lists: &TLists, mut f: impl FnMut(TExprId)) {
    match kind {
        TExprKind::Int(_)
        | TExprKind::Bool(_)
        | TExprKind::Unit
        | TExprKind::Local(_)
        | TExprKind::ConstRef(_)
        | TExprKind::Continue { .. }
        | TExprKind::Error => {}
        TExprKind::Unary(_, a) | TExprKind::NeverToAny(a) => f(*a),
        TExprKind::Cast { source, .. } => f(*source),
        TExprKind::Field { base, .. } => f(*base),
        TExprKind::Repeat { value, .. } => f(*value),
        TExprKind::Loop { body } => f(*body),
        TExprKind::Binary(_, a, b)
        | TExprKind::LogicalAnd(a, b)
        | TExprKind::LogicalOr(a, b)
        | TExprKind::Index { base: a, index: b }
        | TExprKind::While { cond: a, body: b } => {
            f(*a);
            f(*b);
        }
        TExprKind::Assign { place, value } | TExprKind::AssignOp { place, value, .. } => {
            f(*place);
            f(*value);
        }
        TExprKind::Call { args, .. } | TExprKind::Array(args) | TExprKind::Println { args, .. } => {
            lists.exprs(*args).iter().copied().for_each(f)
        }
        TExprKind::StructLit { fields, .. } => {
            lists.fields(*fields).iter().for_each(|&(_, e)| f(e))
        }
        TExprKind::Block { stmts, tail } => {
            for s in lists.stmts(*stmts) {
                match s {
                    TStmt::Let { init, .. } => f(*init),
                    TStmt::Expr(e) => f(*e),
                }
            }
            if let Some(t) = tail {
                f(*t);
            }
        }
        TExprKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            f(*cond);
            f(*then_branch);
            if let Some(e) = else_branch {
                f(*e);
            }
        }
        TExprKind::For {
            start, end, body, ..
        } => {
            f(*start);
            f(*end);
            f(*body);
        }
        TExprKind::Break { value, .. } | TExprKind::Return(value) => {
            if let Some(v) = value {
                f(*v);
            }
        }
    }
}

/// The struct a type holds, under any number of array layers.
fn struct_in(ty: &Ty) -> Option<DefId> {
    let mut t = ty;
    while let Ty::Array(elem, _) = t {
        t = elem;
    }
    match t {
        Ty::Struct(d) => Some(*d),
        _ => None,
    }
}

impl Checker<'_> {
    pub(super) fn finish(mut self, params: Vec<LocalId>, body: TExprId, ret: Ty) -> TypeckResult {
        self.buf.infer.apply_fallback();
        self.check_negations();
        self.resolve_types();
        self.check_literals();
        self.check_casts();
        self.check_deferred_ops();
        self.check_const_fors();
        self.check_array_sizes();
        self.check_type_privacy();
        let (exprs, lists, locals, diagnostics) = self.into_output();
        TypeckResult {
            thir: Arc::new(Thir {
                exprs,
                lists,
                locals,
                params,
                body,
                ret,
            }),
            diagnostics,
        }
    }

    /// `-` applied to an integer variable that became unsigned (rustc reports the
    /// failed `Neg` bound).
    fn check_negations(&mut self) {
        let mut negs = std::mem::take(&mut self.buf.negs);
        for (ty, span) in negs.drain(..) {
            if let super::infer::ITy::Int(t) = self.buf.infer.shallow(&ty) {
                if !t.is_signed() {
                    let name = t.name();
                    self.report(
                        Diagnostic::error(
                            format!("the trait bound `{name}: Neg` is not satisfied"),
                            span,
                        )
                        .with_code("E0277")
                        .with_label_message(format!(
                            "the trait `Neg` is not implemented for `{name}`"
                        )),
                    );
                }
            }
        }
        self.buf.negs = negs;
    }

    /// Makes every type final.
    fn resolve_types(&mut self) {
        let mut reported: FxHashSet<VarId> = FxHashSet::default();
        let mut origins = Vec::new();
        let mut unresolved = |v: VarId, origin| {
            if reported.insert(v) {
                origins.push(origin);
            }
        };
        let Buffers {
            infer,
            tys,
            type_ids,
            ..
        } = &mut *self.buf;
        // Each distinct type gets one id, found by the dense number of its inference type
        // (`type_ids[key]`, `u32::MAX` while none; empty at the start of every body),
        // without hashing a type per node. An unresolved variable is reported here, once
        // for the node, and the node takes `Ty::Error`'s id.
        let types = &mut self.lists.types;
        for (e, t) in self.exprs.iter_mut().zip(tys.iter()) {
            let mut shallow = infer.shallow(t);
            if matches!(shallow, ITy::Var(_)) {
                infer.finalize(&shallow, &mut unresolved);
                shallow = ITy::Error;
            }
            let key = shallow.dense_key();
            if key >= type_ids.len() {
                type_ids.resize(key + 1, u32::MAX);
            }
            if type_ids[key] == u32::MAX {
                type_ids[key] = types.len() as u32;
                types.push(infer.finalize(&shallow, &mut unresolved));
            }
            e.ty = TyId(type_ids[key]);
        }
        let infer = &mut self.buf.infer;
        for (l, t) in self.locals.iter_mut().zip(&self.buf.local_tys) {
            l.ty = infer.finalize(t, &mut unresolved);
        }
        for origin in origins {
            self.annotations_needed(origin);
        }
    }

    /// Range checks (rustc's `overflowing_literals`, deny by default) and canonical bits.
    fn check_literals(&mut self) {
        let mut lits = std::mem::take(&mut self.buf.lits);
        for lit in lits.drain(..) {
            let e = &mut self.exprs[lit.expr.0 as usize];
            let (&Ty::Int(t), Some(v)) = (self.lists.ty(e.ty), lit.value) else {
                e.kind = TExprKind::Error;
                continue;
            };
            let bits = Bits64::new(t.normalize(v as u64));
            // A literal's node is an `Int` from the start: only its bits change.
            match &mut e.kind {
                TExprKind::Int(b) => *b = bits,
                kind => *kind = TExprKind::Int(bits),
            }
            if let Some(neg) = lit.negation {
                let n = &mut self.exprs[neg.0 as usize];
                if *self.lists.ty(n.ty) == Ty::Int(t) && t.is_signed() {
                    n.kind = TExprKind::Int(Bits64::new(t.normalize((v as u64).wrapping_neg())));
                }
            }
            let e = &self.exprs[lit.expr.0 as usize];
            let max = t.max_i128() as u128;
            if v <= max || (lit.negated && t.is_signed() && v == max + 1) {
                continue;
            }
            let span = e.span;
            let name = t.name();
            let sign = if lit.negated { "-" } else { "" };
            let note = if lit.hex {
                let wrapped = t.to_i128(t.normalize(v as u64));
                format!(
                    "note: the literal `{sign}{v:#x}` (decimal `{v}`) does not fit into the type \
                     `{name}` and will become `{wrapped}{name}`"
                )
            } else {
                format!(
                    "note: the literal `{sign}{v}` does not fit into the type `{name}` whose \
                     range is `{}..={}`",
                    t.min_i128(),
                    t.max_i128()
                )
            };
            self.report(
                Diagnostic::error(format!("literal out of range for `{name}`"), span)
                    .with_note(note),
            );
        }
        self.buf.lits = lits;
    }

    /// `as`: integer or `bool` to integer; rustc's errors for the rest.
    fn check_casts(&mut self) {
        let mut casts = std::mem::take(&mut self.buf.casts);
        for c in casts.drain(..) {
            let from = self.lists.ty(self.exprs[c.source.0 as usize].ty).clone();
            let span = self.exprs[c.expr.0 as usize].span;
            let kind = match (&from, &c.target) {
                (Ty::Error, _) | (_, Ty::Error) => TExprKind::Error,
                (Ty::Int(_) | Ty::Bool, Ty::Int(to)) => TExprKind::Cast {
                    source: c.source,
                    from: CastFrom::of(&from).unwrap_or(CastFrom::Bool),
                    to: *to,
                },
                (Ty::Int(_), Ty::Bool) => {
                    let f = ty_name(self.env, &from);
                    self.report(
                        Diagnostic::error(format!("cannot cast `{f}` as `bool`"), span)
                            .with_code("E0054")
                            .with_note("help: compare with zero instead: `x != 0`"),
                    );
                    TExprKind::Error
                }
                (a, b) if a == b => {
                    let f = ty_name(self.env, &from);
                    self.report(Diagnostic::unsupported(
                        format_args!("cast from `{f}` to itself"),
                        span,
                    ));
                    TExprKind::Error
                }
                _ => {
                    let f = ty_name(self.env, &from);
                    let t = ty_name(self.env, &c.target);
                    self.report(
                        Diagnostic::error(format!("non-primitive cast: `{f}` as `{t}`"), span)
                            .with_code("E0605")
                            .with_label_message(
                                "an `as` expression can only be used to convert between \
                                 primitive types or to coerce to a specific trait object",
                            ),
                    );
                    TExprKind::Error
                }
            };
            self.exprs[c.expr.0 as usize].kind = kind;
        }
        self.buf.casts = casts;
    }

    fn check_deferred_ops(&mut self) {
        let mut deferred_ops = std::mem::take(&mut self.buf.deferred_ops);
        for d in deferred_ops.drain(..) {
            let name = |ty: &Ty| match ty {
                Ty::Never => "()".to_string(),
                t => ty_name(self.env, t),
            };
            let l = name(self.lists.ty(self.exprs[d.lhs.0 as usize].ty));
            let r = name(self.lists.ty(self.exprs[d.rhs.0 as usize].ty));
            let message = super::ops::no_impl_message(d.op, d.assign, &l, &r);
            self.report(Diagnostic::error(message, d.span).with_code("E0277"));
        }
        self.buf.deferred_ops = deferred_ops;
    }

    fn check_const_fors(&mut self) {
        let mut const_fors = std::mem::take(&mut self.buf.const_fors);
        for (start, span, inclusive) in const_fors.drain(..) {
            let t = ty_name(self.env, self.lists.ty(self.exprs[start.0 as usize].ty));
            let range = if inclusive { "RangeInclusive" } else { "Range" };
            self.report(
                Diagnostic::error(
                    format!("cannot use `for` loop on `std::ops::{range}<{t}>` in constants"),
                    span,
                )
                .with_code("E0015")
                .with_note(
                    "calls in constants are limited to constant functions, tuple structs and \
                     tuple variants",
                ),
            );
        }
        self.buf.const_fors = const_fors;
    }

    /// Array expressions larger than the value-size limit (types written in the source
    /// were checked when lowered). One report per body is enough.
    fn check_array_sizes(&mut self) {
        if self.buf.array_exprs.is_empty() {
            return;
        }
        let layouts = &mut self.buf.layouts;
        for &id in &self.buf.array_exprs {
            let e = &self.exprs[id.0 as usize];
            let ty = self.lists.ty(e.ty);
            if !check_value_size(self.env, layouts, ty, e.span, &mut self.diags) {
                break;
            }
        }
    }

    /// rustc's type privacy: no expression may have a struct type that is not visible
    /// from this module, and no callee a signature mentioning one. Reported on the
    /// outermost such expression only.
    fn check_type_privacy(&mut self) {
        let env = self.env;
        let module = self.module;
        let mut private: FxHashMap<DefId, bool> = FxHashMap::default();
        let mut is_private = |ty: &Ty| -> Option<DefId> {
            let d = struct_in(ty)?;
            let p = *private
                .entry(d)
                .or_insert_with(|| !env.is_accessible(env.visibility(d), module));
            p.then_some(d)
        };
        let mut private_callees: FxHashMap<TExprId, (DefId, Span)> = FxHashMap::default();
        let mut struct_calls = std::mem::take(&mut self.buf.struct_calls);
        for (call, sig, span) in struct_calls.drain(..) {
            let FnSig { params, ret } = &*sig;
            if let Some(d) = params.iter().chain([ret]).find_map(&mut is_private) {
                private_callees.insert(call, (d, span));
            }
        }
        self.buf.struct_calls = struct_calls;
        // Every struct in a node's type is among the body's struct types: when none of
        // those is private, no node's type is.
        if private_callees.is_empty()
            && !self
                .buf
                .infer
                .structs()
                .iter()
                .any(|&d| is_private(&Ty::Struct(d)).is_some())
        {
            return;
        }
        let mut skip = vec![false; self.exprs.len()];
        for i in (0..self.exprs.len()).rev() {
            let e = &self.exprs[i];
            let found = if skip[i] {
                None
            } else if let Some(d) = is_private(self.lists.ty(e.ty)) {
                Some((d, e.span))
            } else {
                if let Some(&(d, span)) = private_callees.get(&TExprId(i as u32)) {
                    self.diags.push(private_type(env, d, span));
                }
                continue;
            };
            for_each_child(&e.kind, &self.lists, |c| skip[c.0 as usize] = true);
            if let Some((d, span)) = found {
                self.diags.push(private_type(env, d, span));
            }
        }
    }
}

fn private_type(
    env: &dyn crate::sema::env::SemaEnv,
    d: DefId,
    span: crate::span::Span,
) -> Diagnostic {
    Diagnostic::error(format!("type `{}` is private", env.def_name(d)), span)
        .with_label_message("private type")
}
