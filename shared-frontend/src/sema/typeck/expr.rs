//! The body checker: expressions, statements, blocks, loops, calls and literals.
//!
//! Expressions are checked top-down with an [`Expect`]ation and their typed nodes are
//! built bottom-up, so a node's children always have smaller ids than the node. Types
//! are [`ITy`]s until [`Checker::finish`] resolves them. As in rustc, a `diverges` flag
//! records whether the code checked so far in the current expression always diverges
//! (which gives a block without tail after a `return;` the type `!`).
//!
//! Recursion follows the nesting of the syntax tree, which the parser limits; chains that
//! the parser builds without nesting (`a + b + c + …`) are walked iteratively, and a
//! depth guard stops anything else long before the stack is at risk.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::infer::{ITy, InferCtxt, VarKind};
use super::sig::{self, LowerCx};
use super::TypeckResult;
use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::limits::MAX_NESTING;
use crate::sema::def::{DefId, DefKind, Namespace, Res};
use crate::sema::env::SemaEnv;
use crate::sema::thir::{Local, LocalId, TExpr, TExprId, TExprKind, TStmt};
use crate::sema::ty::{FnSig, IntTy, Ty};
use crate::span::Span;
use crate::syntax::ast::{
    Arena, Binding, Block, ConstDef, ExprId, ExprKind, FieldInit, FmtPiece, FnDef, Ident, IntLit,
    IntSuffix, Label, Path, PathSegment, PathSegmentKind, Pattern, StmtId, StmtKind,
};

/// How deep [`Checker::check_expr`] may recurse. The parser already limits nesting to
/// [`MAX_NESTING`]; postfix chains (`a.b.c`, `x as T as U`) are not nesting for it, so
/// allow some slack before reporting the limit ourselves.
const MAX_CHECK_DEPTH: u32 = 2 * MAX_NESTING;

/// What the context expects of an expression (rustc's `Expectation`).
#[derive(Clone, Debug)]
pub(super) enum Expect {
    None,
    /// The expression will be coerced to this type.
    Has(ITy),
    /// The expression is the operand of `as` with this target: a hint for literals only.
    Cast(ITy),
}

impl Expect {
    /// The type that unsuffixed literals and array elements may take their type from.
    pub(super) fn to_option(&self, infer: &mut InferCtxt) -> Option<ITy> {
        match self {
            Expect::None => None,
            Expect::Has(t) | Expect::Cast(t) => Some(infer.shallow(t)),
        }
    }

    /// The type the expression will be coerced to, if any.
    pub(super) fn only_has_type(&self) -> Option<ITy> {
        match self {
            Expect::Has(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// What the branches of an `if` expect: a hard expectation only, and not an
    /// unresolved general variable.
    fn adjust_for_branches(&self, infer: &mut InferCtxt) -> Expect {
        match self {
            Expect::Has(t) if infer.var_kind(t) != Some(VarKind::General) => Expect::Has(t.clone()),
            _ => Expect::None,
        }
    }
}

/// The locals in scope: a map with an undo log, so lookups are O(1) and leaving a scope
/// restores what its bindings shadowed.
#[derive(Default)]
pub(super) struct Scopes {
    map: FxHashMap<Symbol, LocalId>,
    undo: Vec<(Symbol, Option<LocalId>)>,
}

impl Scopes {
    pub(super) fn lookup(&self, name: Symbol) -> Option<LocalId> {
        self.map.get(&name).copied()
    }

    fn mark(&self) -> usize {
        self.undo.len()
    }

    fn bind(&mut self, name: Symbol, local: LocalId) {
        let prev = self.map.insert(name, local);
        self.undo.push((name, prev));
    }

    fn reset(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some((name, prev)) = self.undo.pop() else {
                break;
            };
            match prev {
                Some(p) => {
                    self.map.insert(name, p);
                }
                None => {
                    self.map.remove(&name);
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LoopKind {
    Loop,
    While,
    For,
}

pub(super) struct LoopCtx {
    kind: LoopKind,
    label: Option<Symbol>,
    /// `loop` only: the type `break` values coerce to, once known.
    ty: Option<ITy>,
    /// A `break` targets this loop.
    has_break: bool,
    /// A `break` targets this loop and does not itself diverge (`break return` does).
    may_break: bool,
    /// `break`/`continue` nodes whose target is patched when the loop node exists.
    jumps: Vec<TExprId>,
    /// The condition of this `while` is being checked.
    in_cond: bool,
    /// The loop's head (`while c`, `for i in r`), for E0571.
    head_span: Span,
}

/// Where a binding is introduced (for the wording of E0005).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BindingSite {
    Let,
    Param,
    For,
}

/// A literal whose range is checked once its type is final.
pub(super) struct PendingLit {
    pub expr: TExprId,
    pub value: Option<u128>,
    pub negated: bool,
    pub hex: bool,
}

/// A cast whose validity is decided once the source's type is final (as rustc defers
/// cast checks).
pub(super) struct PendingCast {
    pub expr: TExprId,
    pub source: TExprId,
    pub target: Ty,
}

pub(super) struct Checker<'a> {
    pub env: &'a dyn SemaEnv,
    pub module: DefId,
    pub arena: &'a Arena,
    /// Checking a constant initializer or an array length: no calls, `for`, `return`,
    /// `println!`.
    pub in_const: bool,
    /// The locals of the enclosing body when checking an array length inside it: naming
    /// one is E0435, not "cannot find value".
    pub outer_locals: Option<&'a Scopes>,
    pub infer: InferCtxt,
    pub exprs: Vec<TExpr>,
    /// The inference type of every node of `exprs`.
    pub tys: Vec<ITy>,
    pub locals: Vec<Local>,
    pub local_tys: Vec<ITy>,
    pub local_is_param: Vec<bool>,
    pub scopes: Scopes,
    pub loops: Vec<LoopCtx>,
    pub ret: ITy,
    pub diverges: bool,
    pub depth: u32,
    depth_reported: bool,
    /// The operand of the innermost unary `-` that is not itself negated (rustc's
    /// `negated_expr_id`): a literal there may be one past the maximum.
    pub neg_target: Option<ExprId>,
    /// Left spines of binary chains being walked (a stack shared by nested chains).
    pub spine: Vec<ExprId>,
    pub diags: Vec<Diagnostic>,
    pub lits: Vec<PendingLit>,
    /// Unary `-` applied to an integer variable: an error if it becomes unsigned.
    pub negs: Vec<(ITy, Span)>,
    pub casts: Vec<PendingCast>,
    /// `for` loops in a constant: E0015, reported with the range's final type.
    pub const_fors: Vec<(TExprId, Span, bool)>,
    /// Calls whose callee's signature mentions a struct, with the callee path's span:
    /// candidates for "type `S` is private".
    pub struct_calls: Vec<(TExprId, Arc<FnSig>, Span)>,
}

impl<'a> Checker<'a> {
    pub(super) fn new(
        env: &'a dyn SemaEnv,
        module: DefId,
        arena: &'a Arena,
        in_const: bool,
        outer_locals: Option<&'a Scopes>,
        depth: u32,
    ) -> Checker<'a> {
        Checker {
            env,
            module,
            arena,
            in_const,
            outer_locals,
            infer: InferCtxt::default(),
            exprs: Vec::with_capacity(arena.exprs.len() + 1),
            tys: Vec::with_capacity(arena.exprs.len() + 1),
            locals: Vec::new(),
            local_tys: Vec::new(),
            local_is_param: Vec::new(),
            scopes: Scopes::default(),
            loops: Vec::new(),
            ret: ITy::Unit,
            diverges: false,
            depth,
            depth_reported: false,
            neg_target: None,
            spine: Vec::new(),
            diags: Vec::new(),
            lits: Vec::new(),
            negs: Vec::new(),
            casts: Vec::new(),
            const_fors: Vec::new(),
            struct_calls: Vec::new(),
        }
    }

    // --- Small helpers --------------------------------------------------------------

    pub(super) fn alloc(&mut self, kind: TExprKind, ty: ITy, span: Span) -> TExprId {
        let id = TExprId(self.exprs.len() as u32);
        self.exprs.push(TExpr {
            kind,
            ty: Ty::Error,
            span,
        });
        self.tys.push(ty);
        id
    }

    pub(super) fn error_node(&mut self, span: Span) -> TExprId {
        self.alloc(TExprKind::Error, ITy::Error, span)
    }

    pub(super) fn ty_of(&self, id: TExprId) -> ITy {
        self.tys[id.0 as usize].clone()
    }

    pub(super) fn span_of(&self, id: TExprId) -> Span {
        self.exprs[id.0 as usize].span
    }

    pub(super) fn resolved_ty(&mut self, id: TExprId) -> ITy {
        let t = &self.tys[id.0 as usize];
        self.infer.shallow(t)
    }

    pub(super) fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub(super) fn display(&mut self, ty: &ITy) -> String {
        self.infer.display(ty, self.env)
    }

    pub(super) fn lower_cx(&self) -> LowerCx<'_> {
        LowerCx {
            env: self.env,
            module: self.module,
            arena: self.arena,
            outer_locals: Some(&self.scopes),
            depth: self.depth,
        }
    }

    /// Lowers a type written in the body (annotation, cast target), reporting errors.
    pub(super) fn lower_ty(&mut self, ty: crate::syntax::ast::TypeId) -> Ty {
        let mut diags = Vec::new();
        let t = sig::lower_ty(&self.lower_cx(), ty, &mut diags);
        self.diags.append(&mut diags);
        t
    }

    /// E0308 with rustc's label.
    pub(super) fn mismatch(&mut self, message: &str, expected: &ITy, found: &ITy, span: Span) {
        let e = self.infer.describe(expected, self.env);
        let f = self.infer.describe(found, self.env);
        self.report(
            Diagnostic::error(message, span)
                .with_code("E0308")
                .with_label_message(format!("expected {e}, found {f}")),
        );
    }

    /// Wraps a `!` node so that it has type `ty`.
    pub(super) fn never_to_any(&mut self, id: TExprId, ty: ITy) -> TExprId {
        let span = self.span_of(id);
        self.alloc(TExprKind::NeverToAny(id), ty, span)
    }

    /// Coerces a checked node to `target`: `!` becomes anything, otherwise the types
    /// must unify (E0308).
    pub(super) fn coerce(&mut self, id: TExprId, target: &ITy) -> TExprId {
        self.coerce_with(id, target, "mismatched types").0
    }

    /// Like [`Checker::coerce`] with rustc's message for the context; also tells whether
    /// the coercion succeeded.
    pub(super) fn coerce_with(
        &mut self,
        id: TExprId,
        target: &ITy,
        message: &str,
    ) -> (TExprId, bool) {
        let t = self.ty_of(id);
        if self.infer.is_never(&t) {
            if self.infer.is_never(target) {
                return (id, true);
            }
            self.infer.mark_diverging(target);
            return (self.never_to_any(id, target.clone()), true);
        }
        if self.infer.unify(&t, target) {
            (id, true)
        } else {
            let span = self.span_of(id);
            self.mismatch(message, target, &t, span);
            (id, false)
        }
    }

    /// A `!` value with nothing to coerce to gets a fresh diverging variable (which
    /// defaults to `()`); anything else is returned as is.
    fn never_to_fresh_var(&mut self, id: TExprId) -> TExprId {
        let t = self.ty_of(id);
        if self.infer.is_never(&t) {
            let var = self.infer.new_diverging_var(self.span_of(id));
            self.never_to_any(id, var)
        } else {
            id
        }
    }

    pub(super) fn check_expr_coercible(&mut self, e: ExprId, ty: &ITy) -> TExprId {
        let id = self.check_expr(e, &Expect::Has(ty.clone()));
        self.coerce(id, ty)
    }

    // --- Expressions ----------------------------------------------------------------

    pub(super) fn check_expr(&mut self, e: ExprId, expect: &Expect) -> TExprId {
        if self.depth >= MAX_CHECK_DEPTH {
            return self.depth_limit(e);
        }
        self.depth += 1;
        let old_diverges = std::mem::replace(&mut self.diverges, false);
        let id = self.check_expr_kind(e, expect);
        if self.infer.is_never(&self.tys[id.0 as usize]) {
            self.diverges = true;
        }
        self.diverges |= old_diverges;
        self.depth -= 1;
        id
    }

    #[cold]
    #[inline(never)]
    fn depth_limit(&mut self, e: ExprId) -> TExprId {
        let span = self.arena[e].span;
        if !self.depth_reported {
            self.depth_reported = true;
            self.report(Diagnostic::error(
                format!(
                    "expression nesting is deeper than the implementation limit of \
                     {MAX_NESTING} (MAX_NESTING)"
                ),
                span,
            ));
        }
        self.error_node(span)
    }

    fn check_expr_kind(&mut self, e: ExprId, expect: &Expect) -> TExprId {
        let arena = self.arena;
        let expr = &arena[e];
        let span = expr.span;
        match &expr.kind {
            ExprKind::Missing => self.error_node(span),
            ExprKind::Int(lit) => self.check_int_lit(e, lit, span, expect),
            ExprKind::Bool(b) => self.alloc(TExprKind::Bool(*b), ITy::Bool, span),
            ExprKind::Unit => self.alloc(TExprKind::Unit, ITy::Unit, span),
            ExprKind::Path(path) => self.check_path_expr(path, span),
            ExprKind::Paren(inner) => self.check_expr(*inner, expect),
            ExprKind::Unary(op, operand) => self.check_unary(e, *op, *operand, span, expect),
            ExprKind::Binary(..) => self.check_binary_chain(e),
            ExprKind::Assign(place, value) => self.check_assign(*place, *value, span),
            ExprKind::AssignOp(op, place, value) => self.check_assign_op(*op, *place, *value, span),
            ExprKind::Cast(source, ty) => self.check_cast(*source, *ty, span),
            ExprKind::Call(callee, args) => self.check_call(*callee, args, span),
            ExprKind::Field(base, name) => self.check_field(*base, *name, span),
            ExprKind::Index(base, index) => self.check_index(*base, *index, span),
            ExprKind::StructLit(path, fields) => self.check_struct_lit(path, fields, span),
            ExprKind::Array(elems) => self.check_array(elems, span, expect),
            ExprKind::Repeat(value, count) => self.check_repeat(*value, *count, span, expect),
            ExprKind::Block(block) => self.check_block(block, span, expect),
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => self.check_if(*cond, *then_branch, *else_branch, span, expect),
            ExprKind::While { label, cond, body } => self.check_while(*label, *cond, *body, span),
            ExprKind::Loop { label, body } => self.check_loop(*label, *body, span, expect),
            ExprKind::For {
                label,
                binding,
                start,
                end,
                inclusive,
                body,
            } => self.check_for(*label, *binding, *start, *end, *inclusive, *body, span),
            ExprKind::Break { label, value } => self.check_break(*label, *value, span),
            ExprKind::Continue { label } => self.check_continue(*label, span),
            ExprKind::Return(value) => self.check_return(*value, span),
            ExprKind::Println { pieces, args } => self.check_println(pieces, args, span),
        }
    }

    fn check_int_lit(&mut self, e: ExprId, lit: &IntLit, span: Span, expect: &Expect) -> TExprId {
        let ty = match lit.suffix {
            Some(IntSuffix::I32) => ITy::Int(IntTy::I32),
            Some(IntSuffix::I64) => ITy::Int(IntTy::I64),
            Some(IntSuffix::U64) => ITy::Int(IntTy::U64),
            Some(IntSuffix::Usize) => ITy::Int(IntTy::Usize),
            Some(IntSuffix::Other(suffix)) => {
                self.report(Diagnostic::unsupported(
                    format_args!("integer type `{suffix}`"),
                    span,
                ));
                return self.error_node(span);
            }
            None => match expect.to_option(&mut self.infer) {
                Some(ITy::Int(t)) => ITy::Int(t),
                // Whatever was expected is broken: stay silent about the literal.
                Some(ITy::Error) => ITy::Error,
                _ => self.infer.new_var(VarKind::Int, span),
            },
        };
        if lit.value.is_none() {
            self.report(
                Diagnostic::error("integer literal is too large", span)
                    .with_note("value exceeds limit of `340282366920938463463374607431768211455`"),
            );
        }
        let id = self.alloc(TExprKind::Int(0), ty, span);
        self.lits.push(PendingLit {
            expr: id,
            value: lit.value,
            negated: self.neg_target == Some(e),
            hex: lit.hex,
        });
        id
    }

    /// A local's name, when `path` is a single plain identifier.
    pub(super) fn single_name(path: &Path) -> Option<Symbol> {
        match path.segments.as_slice() {
            [PathSegment {
                kind: PathSegmentKind::Name(name),
                ..
            }] => Some(*name),
            _ => None,
        }
    }

    /// Reports E0435 if `name` is a local of the enclosing body (we are in an array
    /// length there).
    fn outer_local_used(&mut self, name: Symbol, span: Span) -> bool {
        if self.outer_locals.is_some_and(|s| s.lookup(name).is_some()) {
            self.report(
                Diagnostic::error("attempt to use a non-constant value in a constant", span)
                    .with_code("E0435")
                    .with_label_message("non-constant value"),
            );
            return true;
        }
        false
    }

    fn check_path_expr(&mut self, path: &Path, span: Span) -> TExprId {
        if let Some(name) = Self::single_name(path) {
            if let Some(local) = self.scopes.lookup(name) {
                let ty = self.local_tys[local.0 as usize].clone();
                return self.alloc(TExprKind::Local(local), ty, span);
            }
            if self.outer_local_used(name, span) {
                return self.error_node(span);
            }
        }
        match self.env.resolve_path(self.module, path, Namespace::Value) {
            Ok(Res::Def(DefKind::Const, def)) => {
                let ty = match self.env.const_ty(def) {
                    Ok(t) => ITy::from_ty(&t),
                    Err(_) => ITy::Error,
                };
                self.alloc(TExprKind::ConstRef(def), ty, span)
            }
            Ok(Res::IntConst(t, kind)) => {
                let value = match kind {
                    crate::sema::def::IntConstKind::Min => t.min_i128(),
                    crate::sema::def::IntConstKind::Max => t.max_i128(),
                };
                let bits = t.normalize(value as u64);
                self.alloc(TExprKind::Int(bits), ITy::Int(t), span)
            }
            Ok(Res::Def(DefKind::Fn, def)) => {
                let name = self.env.def_name(def);
                self.report(Diagnostic::unsupported(
                    format_args!("function `{name}` used as a value (only calls are supported)"),
                    span,
                ));
                self.error_node(span)
            }
            Ok(res) => {
                let what = sig::res_descr(self.env, res);
                self.report(
                    Diagnostic::error(format!("expected value, found {what}"), span)
                        .with_code("E0423")
                        .with_label_message("not a value"),
                );
                self.error_node(span)
            }
            Err(d) => {
                self.report(d);
                self.error_node(span)
            }
        }
    }

    // --- Blocks and statements ------------------------------------------------------

    fn check_block(&mut self, block: &Block, span: Span, expect: &Expect) -> TExprId {
        let mark = self.scopes.mark();
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for &s in &block.stmts {
            self.check_stmt(s, &mut stmts);
        }
        let (tail, ty) = match block.tail {
            Some(t) => {
                let id = self.check_expr(t, expect);
                match expect.only_has_type() {
                    Some(target) => (Some(self.coerce(id, &target)), target),
                    None => {
                        let ty = self.ty_of(id);
                        (Some(id), ty)
                    }
                }
            }
            None if self.diverges => (None, ITy::Never),
            None => match expect.only_has_type() {
                Some(target) if !self.infer.unify(&ITy::Unit, &target) => {
                    self.mismatch("mismatched types", &target, &ITy::Unit, span);
                    (None, ITy::Error)
                }
                _ => (None, ITy::Unit),
            },
        };
        self.scopes.reset(mark);
        self.alloc(TExprKind::Block { stmts, tail }, ty, span)
    }

    fn check_stmt(&mut self, s: StmtId, out: &mut Vec<TStmt>) {
        let stmt = &self.arena[s];
        match &stmt.kind {
            StmtKind::Let { pattern, ty, init } => {
                let annotated = ty.map(|t| ITy::from_ty(&self.lower_ty(t)));
                let (init, local_ty) = match annotated {
                    Some(t) => (self.check_expr_coercible(*init, &t), t),
                    None => {
                        let id = self.check_expr(*init, &Expect::None);
                        let id = self.never_to_fresh_var(id);
                        (id, self.ty_of(id))
                    }
                };
                let local = match pattern {
                    Pattern::Binding(b) => {
                        self.check_binding_name(b.name, BindingSite::Let);
                        Some(self.declare_local(b.name, b.mutable, local_ty, false))
                    }
                    Pattern::Wild(_) => None,
                };
                out.push(TStmt::Let { local, init });
            }
            StmtKind::Expr { expr, semi: true } => {
                let id = self.check_expr(*expr, &Expect::None);
                out.push(TStmt::Expr(id));
            }
            StmtKind::Expr { expr, semi: false } => {
                // A block-like expression statement must have type `()`.
                let id = self.check_expr_coercible(*expr, &ITy::Unit);
                out.push(TStmt::Expr(id));
            }
            StmtKind::Empty => {}
        }
    }

    pub(super) fn declare_local(
        &mut self,
        name: Ident,
        mutable: bool,
        ty: ITy,
        is_param: bool,
    ) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(Local {
            name: name.name,
            ty: Ty::Error,
            mutable,
            span: name.span,
        });
        self.local_tys.push(ty);
        self.local_is_param.push(is_param);
        self.scopes.bind(name.name, id);
        id
    }

    /// A binding named like a constant in scope is a constant pattern in rustc, which is
    /// refutable (E0005).
    pub(super) fn check_binding_name(&mut self, name: Ident, site: BindingSite) {
        let path = Path {
            segments: vec![PathSegment {
                kind: PathSegmentKind::Name(name.name),
                span: name.span,
            }],
            span: name.span,
        };
        let Ok(Res::Def(DefKind::Const, def)) =
            self.env.resolve_path(self.module, &path, Namespace::Value)
        else {
            return;
        };
        if self.env.const_ty(def) == Ok(Ty::Unit) {
            // Irrefutable in rustc (the pattern matches the one value of `()`), but not
            // a binding either.
            self.report(Diagnostic::unsupported(
                format_args!("binding named like the constant `{}`", name.name),
                name.span,
            ));
            return;
        }
        let message = match site {
            BindingSite::Let => "refutable pattern in local binding",
            BindingSite::Param => "refutable pattern in function argument",
            BindingSite::For => "refutable pattern in `for` loop binding",
        };
        self.report(
            Diagnostic::error(message, name.span)
                .with_code("E0005")
                .with_label_message("pattern not covered")
                .with_note(format!(
                    "`{}` is interpreted as a constant pattern, not a new variable",
                    name.name
                )),
        );
    }

    // --- Control flow ---------------------------------------------------------------

    fn check_if(
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
        let branch_expect = expect.adjust_for_branches(&mut self.infer);
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
                        match (self.infer.is_never(&then_ty), self.infer.is_never(&else_ty)) {
                            (true, true) => (then_id, Some(else_id), ITy::Never),
                            (true, false) => {
                                let then_id = self.never_to_any(then_id, else_ty.clone());
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
                        if ok && !self.infer.unify(&ITy::Unit, &target) {
                            self.missing_else(&target, span);
                        }
                        (then_id, None, target)
                    }
                    None => {
                        let then_ty = self.ty_of(then_id);
                        let then_id = if self.infer.is_never(&then_ty) {
                            self.never_to_any(then_id, ITy::Unit)
                        } else {
                            if !self.infer.unify(&then_ty, &ITy::Unit) {
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

    fn missing_else(&mut self, expected: &ITy, span: Span) {
        let e = self.infer.describe(expected, self.env);
        self.report(
            Diagnostic::error("`if` may be missing an `else` clause", span)
                .with_code("E0317")
                .with_label_message(format!("expected {e}, found `()`"))
                .with_note("`if` expressions without `else` evaluate to `()`"),
        );
    }

    fn push_loop(&mut self, kind: LoopKind, label: Option<Label>, ty: Option<ITy>, head: Span) {
        self.loops.push(LoopCtx {
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
    fn finish_loop(&mut self, ctx: LoopCtx, kind: TExprKind, ty: ITy, span: Span) -> TExprId {
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
    fn check_loop_body(&mut self, body: ExprId) -> TExprId {
        self.check_expr(body, &Expect::Has(ITy::Unit))
    }

    fn check_loop(
        &mut self,
        label: Option<Label>,
        body: ExprId,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
        self.push_loop(LoopKind::Loop, label, expect.only_has_type(), span);
        let body = self.check_loop_body(body);
        let Some(ctx) = self.loops.pop() else {
            return self.error_node(span);
        };
        // A loop that is never left diverges; otherwise nothing is known.
        self.diverges = !ctx.may_break;
        let ty = if ctx.has_break {
            ctx.ty.clone().unwrap_or(ITy::Unit)
        } else {
            ITy::Never
        };
        self.finish_loop(ctx, TExprKind::Loop { body }, ty, span)
    }

    fn check_while(
        &mut self,
        label: Option<Label>,
        cond: ExprId,
        body: ExprId,
        span: Span,
    ) -> TExprId {
        let head = Span::new(span.lo, self.arena[cond].span.hi);
        self.push_loop(LoopKind::While, label, None, head);
        let cond = self.check_expr_coercible(cond, &ITy::Bool);
        if let Some(ctx) = self.loops.last_mut() {
            ctx.in_cond = false;
        }
        let body = self.check_loop_body(body);
        let Some(ctx) = self.loops.pop() else {
            return self.error_node(span);
        };
        // The condition may be false at once: a `while` never diverges.
        self.diverges = false;
        self.finish_loop(ctx, TExprKind::While { cond, body }, ITy::Unit, span)
    }

    #[allow(clippy::too_many_arguments)]
    fn check_for(
        &mut self,
        label: Option<Label>,
        binding: Binding,
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
        let elem = match self.infer.shallow(&elem) {
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
            self.const_fors.push((start_id, range_span, inclusive));
        }
        let range_diverges = self.diverges;
        let head = Span::new(span.lo, range_span.hi);
        self.push_loop(LoopKind::For, label, None, head);
        let mark = self.scopes.mark();
        self.check_binding_name(binding.name, BindingSite::For);
        let local = self.declare_local(binding.name, binding.mutable, elem, false);
        let body = self.check_loop_body(body);
        self.scopes.reset(mark);
        let Some(ctx) = self.loops.pop() else {
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
    fn find_loop(&mut self, label: Option<Label>, is_break: bool, span: Span) -> Option<usize> {
        let what = if is_break { "break" } else { "continue" };
        match label {
            Some(label) => {
                let found = self.loops.iter().rposition(|l| l.label == Some(label.name));
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
            None => match self.loops.last() {
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
                Some(_) => Some(self.loops.len() - 1),
            },
        }
    }

    fn check_break(&mut self, label: Option<Label>, value: Option<ExprId>, span: Span) -> TExprId {
        let target = self.find_loop(label, true, span);
        let value = match (target, value) {
            (Some(i), Some(v)) if self.loops[i].kind == LoopKind::Loop => {
                let expect = match &self.loops[i].ty {
                    Some(t) => Expect::Has(t.clone()),
                    None => Expect::None,
                };
                let id = self.check_expr(v, &expect);
                let id = match self.loops[i].ty.clone() {
                    Some(t) => self.coerce(id, &t),
                    None => {
                        let id = self.never_to_fresh_var(id);
                        self.loops[i].ty = Some(self.ty_of(id));
                        id
                    }
                };
                Some(id)
            }
            (Some(i), Some(v)) => {
                let kind = if self.loops[i].kind == LoopKind::While {
                    "while"
                } else {
                    "for"
                };
                let head = self.loops[i].head_span;
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
                if self.loops[i].kind == LoopKind::Loop {
                    match self.loops[i].ty.clone() {
                        Some(t) => {
                            if !self.infer.unify(&ITy::Unit, &t) {
                                self.mismatch("mismatched types", &t, &ITy::Unit, span);
                            }
                        }
                        None => self.loops[i].ty = Some(ITy::Unit),
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
        let ctx = &mut self.loops[i];
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
        self.loops[i].jumps.push(id);
        id
    }

    fn check_continue(&mut self, label: Option<Label>, span: Span) -> TExprId {
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
        self.loops[i].jumps.push(id);
        id
    }

    fn check_return(&mut self, value: Option<ExprId>, span: Span) -> TExprId {
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
        let ret = self.ret.clone();
        let value = match value {
            Some(v) => Some(self.check_expr_coercible(v, &ret)),
            None => {
                if !self.infer.unify(&ITy::Unit, &ret) {
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

    // --- Calls, fields, indexing, aggregates ------------------------------------------

    fn check_call(&mut self, callee: ExprId, args: &[ExprId], span: Span) -> TExprId {
        enum Callee {
            Fn(DefId, Arc<FnSig>),
            NotFn(String),
            Failed,
        }
        let arena = self.arena;
        let mut callee_e = callee;
        while let ExprKind::Paren(inner) = arena[callee_e].kind {
            callee_e = inner;
        }
        let callee_span = arena[callee_e].span;
        let c = match &arena[callee_e].kind {
            ExprKind::Path(path) => {
                let local = Self::single_name(path).and_then(|n| self.scopes.lookup(n));
                if let Some(local) = local {
                    let ty = self.local_tys[local.0 as usize].clone();
                    Callee::NotFn(self.display(&ty))
                } else if Self::single_name(path)
                    .is_some_and(|n| self.outer_local_used(n, callee_span))
                {
                    Callee::Failed
                } else {
                    match self.env.resolve_path(self.module, path, Namespace::Value) {
                        Ok(Res::Def(DefKind::Fn, def)) => match self.env.fn_sig(def) {
                            Ok(sig) => Callee::Fn(def, sig),
                            Err(_) => Callee::Failed,
                        },
                        Ok(Res::Def(DefKind::Const, def)) => match self.env.const_ty(def) {
                            Ok(t) => Callee::NotFn(self.display(&ITy::from_ty(&t))),
                            Err(_) => Callee::Failed,
                        },
                        Ok(Res::IntConst(t, _)) => Callee::NotFn(t.name().to_string()),
                        Ok(res) => {
                            let what = sig::res_descr(self.env, res);
                            self.report(
                                Diagnostic::error(
                                    format!("expected function, found {what}"),
                                    callee_span,
                                )
                                .with_code("E0423"),
                            );
                            Callee::Failed
                        }
                        Err(d) => {
                            self.report(d);
                            Callee::Failed
                        }
                    }
                }
            }
            _ => {
                let id = self.check_expr(callee_e, &Expect::None);
                match self.resolved_ty(id) {
                    ITy::Error => Callee::Failed,
                    t => Callee::NotFn(self.display(&t)),
                }
            }
        };
        match c {
            Callee::Fn(def, sig) => {
                if self.in_const {
                    let name = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(
                            format!("cannot call non-const function `{name}` in constants"),
                            span,
                        )
                        .with_code("E0015")
                        .with_note(
                            "calls in constants are limited to constant functions, tuple \
                             structs and tuple variants",
                        ),
                    );
                }
                if args.len() != sig.params.len() {
                    let n = sig.params.len();
                    let m = args.len();
                    self.report(
                        Diagnostic::error(
                            format!(
                                "this function takes {n} argument{} but {m} argument{} {} \
                                 supplied",
                                if n == 1 { "" } else { "s" },
                                if m == 1 { "" } else { "s" },
                                if m == 1 { "was" } else { "were" },
                            ),
                            callee_span,
                        )
                        .with_code("E0061"),
                    );
                }
                let mut targs = Vec::with_capacity(args.len());
                for (i, &a) in args.iter().enumerate() {
                    let id = match sig.params.get(i) {
                        Some(p) => self.check_expr_coercible(a, &ITy::from_ty(p)),
                        None => self.check_expr(a, &Expect::None),
                    };
                    targs.push(id);
                }
                let ty = ITy::from_ty(&sig.ret);
                let id = self.alloc(
                    TExprKind::Call {
                        callee: def,
                        args: targs,
                    },
                    ty,
                    span,
                );
                let mentions_struct = sig.params.iter().chain([&sig.ret]).any(|t| {
                    let mut t = t;
                    while let Ty::Array(elem, _) = t {
                        t = elem;
                    }
                    matches!(t, Ty::Struct(_))
                });
                if mentions_struct {
                    self.struct_calls.push((id, sig, callee_span));
                }
                id
            }
            Callee::NotFn(found) => {
                self.report(
                    Diagnostic::error(format!("expected function, found `{found}`"), callee_span)
                        .with_code("E0618")
                        .with_label_message("call expression requires function"),
                );
                for &a in args {
                    self.check_expr(a, &Expect::None);
                }
                self.error_node(span)
            }
            Callee::Failed => {
                for &a in args {
                    self.check_expr(a, &Expect::None);
                }
                self.error_node(span)
            }
        }
    }

    fn check_field(&mut self, base: ExprId, name: Ident, span: Span) -> TExprId {
        let b = self.check_expr(base, &Expect::None);
        let bt = self.resolved_ty(b);
        let f = name.name;
        match bt {
            ITy::Struct(def) => {
                let Ok(fields) = self.env.struct_fields(def) else {
                    return self.error_node(span);
                };
                let Some(index) = fields.index_of(f) else {
                    let t = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(format!("no field `{f}` on type `{t}`"), name.span)
                            .with_code("E0609")
                            .with_label_message("unknown field"),
                    );
                    return self.error_node(span);
                };
                let field = &fields.fields[index];
                if !self.env.is_accessible(field.vis, self.module) {
                    let t = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(
                            format!("field `{f}` of struct `{t}` is private"),
                            name.span,
                        )
                        .with_code("E0616")
                        .with_label_message("private field"),
                    );
                }
                let ty = ITy::from_ty(&field.ty);
                self.alloc(
                    TExprKind::Field {
                        base: b,
                        index: index as u32,
                    },
                    ty,
                    span,
                )
            }
            ITy::Error => self.error_node(span),
            ITy::Var(_) if !self.infer.is_integral(&bt) => {
                self.annotations_needed(self.span_of(b));
                self.error_node(span)
            }
            ITy::Int(_) | ITy::Var(_) | ITy::Bool => {
                let t = self.display(&bt);
                self.report(
                    Diagnostic::error(
                        format!("`{t}` is a primitive type and therefore doesn't have fields"),
                        name.span,
                    )
                    .with_code("E0610"),
                );
                self.error_node(span)
            }
            ITy::Unit | ITy::Never | ITy::Array(..) => {
                let t = self.display(&bt);
                self.report(
                    Diagnostic::error(format!("no field `{f}` on type `{t}`"), name.span)
                        .with_code("E0609")
                        .with_label_message("unknown field"),
                );
                self.error_node(span)
            }
        }
    }

    pub(super) fn annotations_needed(&mut self, span: Span) {
        self.report(
            Diagnostic::error("type annotations needed", span)
                .with_code("E0282")
                .with_label_message("type must be known at this point"),
        );
    }

    fn check_index(&mut self, base: ExprId, index: ExprId, span: Span) -> TExprId {
        let b = self.check_expr(base, &Expect::None);
        let i = self.check_expr(index, &Expect::None);
        match self.resolved_ty(b) {
            ITy::Array(elem, _) => {
                let it = self.resolved_ty(i);
                let usize_ty = ITy::Int(IntTy::Usize);
                let i = if self.infer.is_never(&it) {
                    self.never_to_any(i, usize_ty)
                } else {
                    let ok = match &it {
                        ITy::Int(IntTy::Usize) | ITy::Error => true,
                        ITy::Var(_) if self.infer.is_integral(&it) => {
                            self.infer.unify(&it, &usize_ty)
                        }
                        _ => false,
                    };
                    if !ok {
                        let e = self.display(&elem);
                        let t = self.display(&it);
                        let ispan = self.span_of(i);
                        self.report(
                            Diagnostic::error(
                                format!("the type `[{e}]` cannot be indexed by `{t}`"),
                                ispan,
                            )
                            .with_code("E0277")
                            .with_label_message("slice indices are of type `usize`"),
                        );
                    }
                    i
                };
                self.alloc(
                    TExprKind::Index { base: b, index: i },
                    (*elem).clone(),
                    span,
                )
            }
            ITy::Error => self.error_node(span),
            bt @ ITy::Var(_) if !self.infer.is_integral(&bt) => {
                self.annotations_needed(self.span_of(b));
                self.error_node(span)
            }
            bt => {
                let t = self.display(&bt);
                self.report(
                    Diagnostic::error(format!("cannot index into a value of type `{t}`"), span)
                        .with_code("E0608"),
                );
                self.error_node(span)
            }
        }
    }

    fn check_struct_lit(&mut self, path: &Path, fields: &[FieldInit], span: Span) -> TExprId {
        let def = match self.env.resolve_path(self.module, path, Namespace::Type) {
            Ok(Res::Def(DefKind::Struct, def)) => Some(def),
            Ok(Res::Def(DefKind::TypeAlias, alias)) => match self.env.alias_ty(alias) {
                Ok(Ty::Struct(def)) => Some(def),
                Ok(Ty::Error) | Err(_) => None,
                Ok(t) => {
                    let t = self.display(&ITy::from_ty(&t));
                    self.report(
                        Diagnostic::error(
                            format!("expected struct, variant or union type, found `{t}`"),
                            path.span,
                        )
                        .with_code("E0071")
                        .with_label_message("not a struct"),
                    );
                    None
                }
            },
            Ok(res) => {
                let what = sig::res_descr(self.env, res);
                self.report(
                    Diagnostic::error(
                        format!("expected struct, variant or union type, found {what}"),
                        path.span,
                    )
                    .with_code("E0574")
                    .with_label_message("not a struct"),
                );
                None
            }
            Err(d) => {
                self.report(d);
                None
            }
        };
        let sf = def.and_then(|d| self.env.struct_fields(d).ok().map(|f| (d, f)));
        let Some((def, sf)) = sf else {
            for f in fields {
                self.check_expr(f.value, &Expect::None);
            }
            return self.error_node(span);
        };
        let mut seen = vec![false; sf.fields.len()];
        let mut out = Vec::with_capacity(fields.len());
        let mut field_errors = false;
        for f in fields {
            let name = f.name.name;
            match sf.index_of(name) {
                Some(i) => {
                    let field = &sf.fields[i];
                    let id = self.check_expr_coercible(f.value, &ITy::from_ty(&field.ty));
                    if !self.env.is_accessible(field.vis, self.module) {
                        let s = self.env.def_name(def);
                        self.report(
                            Diagnostic::error(
                                format!("field `{name}` of struct `{s}` is private"),
                                f.name.span,
                            )
                            .with_code("E0451")
                            .with_label_message("private field"),
                        );
                    }
                    if seen[i] {
                        field_errors = true;
                        self.report(
                            Diagnostic::error(
                                format!("field `{name}` specified more than once"),
                                f.name.span,
                            )
                            .with_code("E0062")
                            .with_label_message("used more than once"),
                        );
                    } else {
                        seen[i] = true;
                        out.push((i as u32, id));
                    }
                }
                None => {
                    field_errors = true;
                    let s = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(
                            format!("struct `{s}` has no field named `{name}`"),
                            f.name.span,
                        )
                        .with_code("E0560")
                        .with_label_message("unknown field"),
                    );
                    self.check_expr(f.value, &Expect::None);
                }
            }
        }
        if !field_errors && out.len() < sf.fields.len() {
            let missing: Vec<Symbol> = sf
                .fields
                .iter()
                .zip(&seen)
                .filter(|(_, &s)| !s)
                .map(|(f, _)| f.name)
                .collect();
            let s = self.env.def_name(def);
            let list = missing_list(&missing);
            let plural = if missing.len() == 1 { "" } else { "s" };
            self.report(
                Diagnostic::error(
                    format!("missing field{plural} {list} in initializer of `{s}`"),
                    path.span,
                )
                .with_code("E0063")
                .with_label_message(format!("missing {list}")),
            );
        }
        self.alloc(
            TExprKind::StructLit { def, fields: out },
            ITy::Struct(def),
            span,
        )
    }

    fn check_array(&mut self, elems: &[ExprId], span: Span, expect: &Expect) -> TExprId {
        let elem_ty = match expect.to_option(&mut self.infer) {
            Some(ITy::Array(e, _)) => (*e).clone(),
            _ => self.infer.new_var(VarKind::General, span),
        };
        let mut ids = Vec::with_capacity(elems.len());
        for &e in elems {
            ids.push(self.check_expr_coercible(e, &elem_ty));
        }
        let ty = ITy::Array(Rc::new(elem_ty), elems.len() as u64);
        self.alloc(TExprKind::Array(ids), ty, span)
    }

    fn check_repeat(
        &mut self,
        value: ExprId,
        count: ExprId,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
        let count = {
            let mut diags = Vec::new();
            let n = sig::eval_array_len(&self.lower_cx(), count, &mut diags);
            self.diags.append(&mut diags);
            n
        };
        let (value, elem) = match expect.to_option(&mut self.infer) {
            Some(ITy::Array(e, _)) => {
                let e = (*e).clone();
                (self.check_expr_coercible(value, &e), e)
            }
            _ => {
                let id = self.check_expr(value, &Expect::None);
                let id = self.never_to_fresh_var(id);
                (id, self.ty_of(id))
            }
        };
        match count {
            Some(count) => self.alloc(
                TExprKind::Repeat { value, count },
                ITy::Array(Rc::new(elem), count),
                span,
            ),
            None => self.error_node(span),
        }
    }

    /// `println!`: each argument an integer or `bool`. (The parser matched the arguments
    /// with the holes.)
    fn check_println(&mut self, pieces: &[FmtPiece], args: &[ExprId], span: Span) -> TExprId {
        if self.in_const {
            self.report(
                Diagnostic::error(
                    "cannot call non-const function `std::io::_print` in constants",
                    span,
                )
                .with_code("E0015"),
            );
        }
        let mut targs = Vec::with_capacity(args.len());
        for &a in args {
            let arg_span = self.arena[a].span;
            if matches!(self.arena[a].kind, ExprKind::Assign(..)) {
                // rustc reads `name = value` there as a named argument; the parser
                // reports it as unsupported.
                targs.push(self.error_node(arg_span));
                continue;
            }
            let id = self.check_expr(a, &Expect::None);
            let t = self.resolved_ty(id);
            let id = match t {
                ITy::Int(_) | ITy::Bool | ITy::Error => id,
                ITy::Never => self.never_to_any(id, ITy::Int(IntTy::I32)),
                ITy::Var(_) if self.infer.is_integral(&t) => id,
                ITy::Var(_) => {
                    self.annotations_needed(arg_span);
                    id
                }
                ITy::Unit | ITy::Struct(_) | ITy::Array(..) => {
                    let t = self.display(&t);
                    self.report(
                        Diagnostic::error(
                            format!("`{t}` doesn't implement `std::fmt::Display`"),
                            arg_span,
                        )
                        .with_code("E0277")
                        .with_label_message(format!(
                            "`{t}` cannot be formatted with the default formatter"
                        )),
                    );
                    id
                }
            };
            targs.push(id);
        }
        self.alloc(
            TExprKind::Println {
                pieces: Arc::from(pieces),
                args: targs,
            },
            ITy::Unit,
            span,
        )
    }
}

/// rustc's list of missing fields: `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``,
/// `` `a`, `b`, `c` and 2 other fields ``.
fn missing_list(names: &[Symbol]) -> String {
    let quoted = |n: &Symbol| format!("`{n}`");
    match names {
        [] => String::new(),
        [a] => quoted(a),
        _ if names.len() <= 3 => {
            let (last, init) = names.split_last().unwrap_or((&names[0], &[]));
            let init: Vec<String> = init.iter().map(quoted).collect();
            format!("{} and {}", init.join(", "), quoted(last))
        }
        _ => {
            let first: Vec<String> = names[..3].iter().map(quoted).collect();
            let rest = names.len() - 3;
            format!(
                "{} and {rest} other field{}",
                first.join(", "),
                if rest == 1 { "" } else { "s" }
            )
        }
    }
}

/// Checks a function body (see [`super::typeck_fn`]).
pub(super) fn check_fn_body(env: &dyn SemaEnv, module: DefId, def: &FnDef) -> TypeckResult {
    let mut cx = Checker::new(env, module, &def.arena, false, None, 0);
    // The signature's own errors are reported by `fn_sig`.
    let mut sig_diags = Vec::new();
    let (params, ret) = {
        let lcx = LowerCx {
            env,
            module,
            arena: &def.arena,
            outer_locals: None,
            depth: 0,
        };
        let params: Vec<Ty> = def
            .params
            .iter()
            .map(|p| sig::lower_ty(&lcx, p.ty, &mut sig_diags))
            .collect();
        let ret = def
            .ret
            .map_or(Ty::Unit, |t| sig::lower_ty(&lcx, t, &mut sig_diags));
        (params, ret)
    };
    cx.ret = ITy::from_ty(&ret);
    let mut param_ids = Vec::with_capacity(params.len());
    let mut seen: FxHashSet<Symbol> = FxHashSet::default();
    for (p, ty) in def.params.iter().zip(&params) {
        if !seen.insert(p.name.name) {
            cx.report(
                Diagnostic::error(
                    format!(
                        "identifier `{}` is bound more than once in this parameter list",
                        p.name.name
                    ),
                    p.name.span,
                )
                .with_code("E0415")
                .with_label_message("used as parameter more than once"),
            );
        }
        cx.check_binding_name(p.name, BindingSite::Param);
        param_ids.push(cx.declare_local(p.name, p.mutable, ITy::from_ty(ty), true));
    }
    let ret_ity = cx.ret.clone();
    let body = cx.check_expr_coercible(def.body, &ret_ity);
    cx.finish(param_ids, body, ret)
}

/// Checks a constant's initializer (see [`super::typeck_const`]).
pub(super) fn check_const_body(env: &dyn SemaEnv, module: DefId, def: &ConstDef) -> TypeckResult {
    let mut sig_diags = Vec::new();
    let ty = sig::lower_ty(
        &LowerCx {
            env,
            module,
            arena: &def.arena,
            outer_locals: None,
            depth: 0,
        },
        def.ty,
        &mut sig_diags,
    );
    let mut cx = Checker::new(env, module, &def.arena, true, None, 0);
    cx.ret = ITy::from_ty(&ty);
    let target = cx.ret.clone();
    let body = cx.check_expr_coercible(def.value, &target);
    cx.finish(Vec::new(), body, ty)
}

/// Checks an expression that must be a constant of type `ty` (an array length), in the
/// context `lcx` (whose `outer_locals` are the enclosing body's locals, if any).
pub(super) fn check_anon_const(lcx: &LowerCx<'_>, expr: ExprId, ty: Ty) -> TypeckResult {
    let mut cx = Checker::new(
        lcx.env,
        lcx.module,
        lcx.arena,
        true,
        lcx.outer_locals,
        lcx.depth,
    );
    cx.ret = ITy::from_ty(&ty);
    let target = cx.ret.clone();
    let body = cx.check_expr_coercible(expr, &target);
    cx.finish(Vec::new(), body, ty)
}
