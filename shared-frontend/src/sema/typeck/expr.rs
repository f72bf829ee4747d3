//! The body checker: its state, expectations, coercion, literals, paths, blocks,
//! statements and the entry points for bodies (control flow is in `flow.rs`, calls and
//! aggregates in `aggregate.rs`, operators in `ops.rs`, assignment in `place.rs`).
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

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::infer::{ITy, InferCtxt, VarKind};
use super::sig::{self, LowerCx};
use super::TypeckResult;
use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::ir::layout::LayoutCache;
use crate::limits::MAX_NESTING;
use crate::sema::def::{DefId, DefKind, Namespace, Res};
use crate::sema::env::SemaEnv;
use crate::sema::thir::{
    Bits64, ListRange, Local, LocalId, TExpr, TExprId, TExprKind, TLists, TStmt, TyId,
};
use crate::sema::ty::{FnSig, IntTy, Ty};
use crate::span::Span;
use crate::spare;
use crate::syntax::ast::{
    Arena, BinOp, Block, ConstDef, ExprId, ExprKind, FnDef, Ident, IntLit, IntSuffix, LitValue,
    PathRef, PathSegment, PathSegmentKind, Pattern, StmtId, StmtKind,
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
            Expect::Has(t) => Some(*t),
            _ => None,
        }
    }

    /// What the branches of an `if` expect: a hard expectation only, and not an
    /// unresolved general variable.
    pub(super) fn adjust_for_branches(&self, infer: &mut InferCtxt) -> Expect {
        match self {
            Expect::Has(t) if infer.var_kind(t) != Some(VarKind::General) => Expect::Has(*t),
            _ => Expect::None,
        }
    }
}

/// The locals in scope: a stack of bindings, innermost last, with shadowed ones still
/// on it. Bodies rarely have many locals in scope at once, so the first
/// [`Scopes::SCANNED`] bindings are found by scanning; bindings above them are also
/// entered in a map with an undo log, so lookups stay O(1) in long bodies and leaving a
/// scope restores what its bindings shadowed.
#[derive(Default)]
pub(super) struct Scopes {
    stack: Vec<(Symbol, LocalId)>,
    /// The innermost binding of each name among the bindings above the scanned ones.
    map: FxHashMap<Symbol, LocalId>,
    /// One entry per binding above the scanned ones: what it shadowed in `map`.
    undo: Vec<(Symbol, Option<LocalId>)>,
}

impl Scopes {
    const SCANNED: usize = 32;

    /// Empties the scopes for another body, keeping their buffers.
    fn clear(&mut self) {
        self.stack.clear();
        self.map.clear();
        self.undo.clear();
    }

    pub(super) fn lookup(&self, name: Symbol) -> Option<LocalId> {
        let scanned = if self.stack.len() > Self::SCANNED {
            // Every binding in the map is inner to the scanned ones.
            if let Some(&local) = self.map.get(&name) {
                return Some(local);
            }
            &self.stack[..Self::SCANNED]
        } else {
            &self.stack[..]
        };
        scanned
            .iter()
            .rev()
            .find(|&&(n, _)| n == name)
            .map(|&(_, local)| local)
    }

    pub(super) fn mark(&self) -> usize {
        self.stack.len()
    }

    pub(super) fn bind(&mut self, name: Symbol, local: LocalId) {
        if self.stack.len() >= Self::SCANNED {
            let prev = self.map.insert(name, local);
            self.undo.push((name, prev));
        }
        self.stack.push((name, local));
    }

    pub(super) fn reset(&mut self, mark: usize) {
        let keep = mark.saturating_sub(Self::SCANNED);
        while self.undo.len() > keep {
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
        self.stack.truncate(mark);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LoopKind {
    Loop,
    While,
    For,
}

pub(super) struct LoopCtx {
    pub kind: LoopKind,
    pub label: Option<Symbol>,
    /// `loop` only: the type `break` values coerce to, once known.
    pub ty: Option<ITy>,
    /// A `break` targets this loop.
    pub has_break: bool,
    /// A `break` targets this loop and does not itself diverge (`break return` does).
    pub may_break: bool,
    /// `break`/`continue` nodes whose target is patched when the loop node exists.
    pub jumps: Vec<TExprId>,
    /// The condition of this `while` is being checked.
    pub in_cond: bool,
    /// The loop's head (`while c`, `for i in r`), for E0571.
    pub head_span: Span,
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
    /// The `-` applied directly to this literal (parentheses aside): folded with it into
    /// one negative literal once the type is known, as rustc's THIR does, so that
    /// `const G: i32 = -2147483648;` negates nothing.
    pub negation: Option<TExprId>,
}

/// An operator applied to a `!` operand: rejected once the types are final (the `!`
/// became `()`), and worded with them.
pub(super) struct DeferredOp {
    pub op: BinOp,
    pub assign: bool,
    pub lhs: TExprId,
    pub rhs: TExprId,
    pub span: Span,
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
    pub exprs: Vec<TExpr>,
    /// The child lists of the nodes of `exprs`.
    pub lists: TLists,
    pub locals: Vec<Local>,
    /// The parameters are the first locals, declared before any other.
    pub param_count: usize,
    pub ret: ITy,
    pub diverges: bool,
    pub depth: u32,
    depth_reported: bool,
    /// The operand of the innermost unary `-` that is not itself negated (rustc's
    /// `negated_expr_id`): a literal there may be one past the maximum.
    pub neg_target: Option<ExprId>,
    pub diags: Vec<Diagnostic>,
    /// Inside the arguments of a `println!` (where assignments are outside the subset).
    pub in_println: u32,
    /// Everything else the checker works with (see [`Buffers`]).
    pub buf: Box<Buffers>,
}

/// The buffers a [`Checker`] needs only while it runs (everything but its output). A
/// checker takes the thread's spare set, clears it ([`Buffers::start`]) and gives it back
/// when it finishes ([`Checker::finish`]), so that checking many bodies does not allocate
/// them anew each time; a checker nested in another (for an array length) finds none
/// spare and starts with new ones.
#[derive(Default)]
pub(super) struct Buffers {
    pub infer: InferCtxt,
    /// The inference type of every node of [`Checker::exprs`].
    pub tys: Vec<ITy>,
    /// The inference type of every local of [`Checker::locals`].
    pub local_tys: Vec<ITy>,
    pub scopes: Scopes,
    pub loops: Vec<LoopCtx>,
    /// Left spines of binary chains being walked (a stack shared by nested chains).
    pub spine: Vec<ExprId>,
    pub lits: Vec<PendingLit>,
    /// Unary `-` applied to an integer variable: an error if it becomes unsigned.
    pub negs: Vec<(ITy, Span)>,
    pub casts: Vec<PendingCast>,
    pub deferred_ops: Vec<DeferredOp>,
    /// `for` loops in a constant: E0015, reported with the range's final type.
    pub const_fors: Vec<(TExprId, Span, bool)>,
    /// Calls whose callee's signature mentions a struct, with the callee path's span:
    /// candidates for "type `S` is private".
    pub struct_calls: Vec<(TExprId, Arc<FnSig>, Span)>,
    /// The array and repeat expressions, in order.
    pub array_exprs: Vec<TExprId>,
    /// The expression lists being built (a stack shared by nested lists: a finished list
    /// is copied to [`Checker::lists`] and popped).
    pub expr_stack: Vec<TExprId>,
    /// The struct literal field lists being built, as `expr_stack`.
    pub field_stack: Vec<(u32, TExprId)>,
    /// The block statement lists being built, as `expr_stack`.
    pub stmt_stack: Vec<TStmt>,
    /// Struct layouts for the size checks of array expressions.
    pub layouts: LayoutCache,
    /// Where [`Checker::exprs`] is built, so that the typed tree gets an array of exactly
    /// its length (moved out by [`Checker::into_output`]) rather than one grown, or sized
    /// by the syntax tree, with room to spare: the pipeline holds every body's typed tree
    /// at once.
    pub exprs: Vec<TExpr>,
    /// Where [`Checker::locals`] is built, as `exprs`.
    pub locals: Vec<Local>,
    /// The id of each final type so far ([`TLists::types`]), by the dense number of its
    /// inference type ([`ITy::dense_key`]; `u32::MAX`: none yet).
    pub type_ids: Vec<u32>,
}

impl Buffers {
    /// Empties every buffer for a body of about `exprs` expressions and `locals` locals,
    /// so that nothing a previous body left is seen.
    fn start(&mut self, exprs: usize, locals: usize) {
        let Buffers {
            infer,
            tys,
            local_tys,
            scopes,
            loops,
            spine,
            lits,
            negs,
            casts,
            deferred_ops,
            const_fors,
            struct_calls,
            array_exprs,
            expr_stack,
            field_stack,
            stmt_stack,
            layouts,
            exprs: built_exprs,
            locals: built_locals,
            type_ids,
        } = self;
        type_ids.clear();
        infer.reset(exprs / 4);
        tys.clear();
        tys.reserve(exprs);
        local_tys.clear();
        local_tys.reserve(locals);
        scopes.clear();
        loops.clear();
        spine.clear();
        lits.clear();
        lits.reserve(exprs / 4);
        negs.clear();
        casts.clear();
        deferred_ops.clear();
        const_fors.clear();
        struct_calls.clear();
        array_exprs.clear();
        expr_stack.clear();
        field_stack.clear();
        stmt_stack.clear();
        layouts.clear();
        built_exprs.clear();
        built_exprs.reserve(exprs);
        built_locals.clear();
        built_locals.reserve(locals);
    }
}

thread_local! {
    /// The spare [`Buffers`] of this thread.
    static SPARE: spare::Spare<Buffers> = const { std::cell::Cell::new(None) };
}

impl<'a> Checker<'a> {
    /// A checker for a body in `arena`. `whole_arena` says whether the body is all of
    /// the arena (a function or constant) or a small part of it (an array length), which
    /// only sizes the initial buffers.
    pub(super) fn new(
        env: &'a dyn SemaEnv,
        module: DefId,
        arena: &'a Arena,
        in_const: bool,
        outer_locals: Option<&'a Scopes>,
        depth: u32,
        whole_arena: bool,
    ) -> Checker<'a> {
        let (exprs, locals) = if whole_arena {
            (arena.exprs.len() + 1, arena.stmts.len() + 4)
        } else {
            (8, 0)
        };
        let mut buf = spare::take(&SPARE);
        buf.start(exprs, locals);
        let built_exprs = std::mem::take(&mut buf.exprs);
        let built_locals = std::mem::take(&mut buf.locals);
        Checker {
            env,
            module,
            arena,
            in_const,
            outer_locals,
            exprs: built_exprs,
            // Each list of the syntax tree gives at most one of the typed tree.
            lists: if whole_arena {
                TLists {
                    exprs: Vec::with_capacity(arena.expr_lists.len()),
                    fields: Vec::with_capacity(arena.field_inits.len()),
                    stmts: Vec::with_capacity(arena.stmt_lists.len()),
                    ..TLists::default()
                }
            } else {
                TLists::default()
            },
            locals: built_locals,
            param_count: 0,
            ret: ITy::Unit,
            diverges: false,
            depth,
            depth_reported: false,
            neg_target: None,
            diags: Vec::new(),
            in_println: 0,
            buf,
        }
    }

    /// Gives the buffers back for the next body's checker (the only place they go back).
    /// The typed nodes and locals are moved into arrays of their exact length.
    pub(super) fn into_output(self) -> (Vec<TExpr>, TLists, Vec<Local>, Vec<Diagnostic>) {
        let Checker {
            exprs: mut built_exprs,
            locals: mut built_locals,
            lists,
            diags,
            mut buf,
            ..
        } = self;
        // `append` copies the nodes' bytes and leaves the buffers empty for the next body.
        let mut exprs = Vec::with_capacity(built_exprs.len());
        exprs.append(&mut built_exprs);
        let mut locals = Vec::with_capacity(built_locals.len());
        locals.append(&mut built_locals);
        buf.exprs = built_exprs;
        buf.locals = built_locals;
        spare::give_back(&SPARE, buf);
        (exprs, lists, locals, diags)
    }

    /// Finishes the expression list pushed on [`Buffers::expr_stack`] since its length
    /// was `base`.
    pub(super) fn close_exprs(&mut self, base: usize) -> ListRange {
        let r = self.lists.push_exprs(&self.buf.expr_stack[base..]);
        self.buf.expr_stack.truncate(base);
        r
    }

    /// Finishes the field list pushed on [`Buffers::field_stack`] since its length was
    /// `base`.
    pub(super) fn close_fields(&mut self, base: usize) -> ListRange {
        let r = self.lists.push_fields(&self.buf.field_stack[base..]);
        self.buf.field_stack.truncate(base);
        r
    }

    /// Finishes the statement list pushed on [`Buffers::stmt_stack`] since its length was
    /// `base`.
    pub(super) fn close_stmts(&mut self, base: usize) -> ListRange {
        let r = self.lists.push_stmts(&self.buf.stmt_stack[base..]);
        self.buf.stmt_stack.truncate(base);
        r
    }

    // --- Small helpers --------------------------------------------------------------

    #[inline]
    pub(super) fn alloc(&mut self, kind: TExprKind, ty: ITy, span: Span) -> TExprId {
        let id = TExprId(self.exprs.len() as u32);
        self.exprs.push(TExpr {
            kind,
            // Given once the types are final (`resolve_types`).
            ty: TyId(u32::MAX),
            span,
        });
        self.buf.tys.push(ty);
        id
    }

    pub(super) fn error_node(&mut self, span: Span) -> TExprId {
        self.alloc(TExprKind::Error, ITy::Error, span)
    }

    pub(super) fn ty_of(&self, id: TExprId) -> ITy {
        self.buf.tys[id.0 as usize]
    }

    pub(super) fn span_of(&self, id: TExprId) -> Span {
        self.exprs[id.0 as usize].span
    }

    pub(super) fn resolved_ty(&mut self, id: TExprId) -> ITy {
        let t = &self.buf.tys[id.0 as usize];
        self.buf.infer.shallow(t)
    }

    pub(super) fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub(super) fn display(&mut self, ty: &ITy) -> String {
        self.buf.infer.display(ty, self.env)
    }

    pub(super) fn lower_cx(&self) -> LowerCx<'_> {
        LowerCx {
            env: self.env,
            module: self.module,
            arena: self.arena,
            outer_locals: Some(&self.buf.scopes),
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
        let e = self.buf.infer.describe(expected, self.env);
        let f = self.buf.infer.describe(found, self.env);
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
        if self.buf.infer.is_never(&t) {
            if self.buf.infer.is_never(target) {
                return (id, true);
            }
            self.buf.infer.mark_diverging(target);
            return (self.never_to_any(id, *target), true);
        }
        // Equal types unify without binding anything.
        if t == *target || self.buf.infer.unify(&t, target) {
            (id, true)
        } else {
            let span = self.span_of(id);
            self.mismatch(message, target, &t, span);
            (id, false)
        }
    }

    /// A `!` value with nothing to coerce to gets a fresh diverging variable (which
    /// defaults to `()`); anything else is returned as is.
    pub(super) fn never_to_fresh_var(&mut self, id: TExprId) -> TExprId {
        let t = self.ty_of(id);
        if self.buf.infer.is_never(&t) {
            let var = self.buf.infer.new_diverging_var(self.span_of(id));
            self.never_to_any(id, var)
        } else {
            id
        }
    }

    pub(super) fn check_expr_coercible(&mut self, e: ExprId, ty: &ITy) -> TExprId {
        let id = self.check_expr(e, &Expect::Has(*ty));
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
        if self.buf.infer.is_never(&self.buf.tys[id.0 as usize]) {
            self.diverges = true;
        }
        self.diverges |= old_diverges;
        self.depth -= 1;
        id
    }

    #[cold]
    #[inline(never)]
    pub(super) fn depth_limit(&mut self, e: ExprId) -> TExprId {
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

    pub(super) fn check_expr_kind(&mut self, e: ExprId, expect: &Expect) -> TExprId {
        let arena = self.arena;
        let expr = &arena[e];
        let span = expr.span;
        match &expr.kind {
            ExprKind::Missing => self.error_node(span),
            ExprKind::Int(lit) => self.check_int_lit(e, &arena.int_lit(*lit), span, expect),
            ExprKind::Bool(b) => self.alloc(TExprKind::Bool(*b), ITy::Bool, span),
            ExprKind::Unit => self.alloc(TExprKind::Unit, ITy::Unit, span),
            ExprKind::Path(path) => self.check_path_expr(arena.path(path), span),
            ExprKind::Paren(inner) => self.check_expr(*inner, expect),
            ExprKind::Unary(op, operand) => self.check_unary(e, *op, *operand, span, expect),
            ExprKind::Binary(..) => self.check_binary_chain(e),
            ExprKind::Assign(place, value) => self.check_assign(*place, *value, span),
            ExprKind::AssignOp(op, place, value) => self.check_assign_op(*op, *place, *value, span),
            ExprKind::Cast(source, ty) => self.check_cast(*source, *ty, span),
            ExprKind::Call(callee, args) => self.check_call(*callee, &arena[*args], span),
            ExprKind::Field(base, name) => self.check_field(*base, *name, span),
            ExprKind::Index(base, index) => self.check_index(*base, *index, span),
            ExprKind::StructLit(lit) => {
                let lit = &arena[*lit];
                self.check_struct_lit(arena.path(&lit.path), &arena[lit.fields], span)
            }
            ExprKind::Array(elems) => self.check_array(&arena[*elems], span, expect),
            ExprKind::Repeat(value, count) => self.check_repeat(*value, *count, span, expect),
            ExprKind::Block(block) => self.check_block(block, span, expect),
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => self.check_if(*cond, *then_branch, *else_branch, span, expect),
            ExprKind::While { label, cond, body } => self.check_while(*label, *cond, *body, span),
            ExprKind::Loop { label, body } => self.check_loop(*label, *body, span, expect),
            ExprKind::For(f) => {
                let f = &arena[*f];
                self.check_for(
                    f.label,
                    &f.pattern,
                    f.start,
                    f.end,
                    f.inclusive,
                    f.body,
                    span,
                )
            }
            ExprKind::Break { label, value } => self.check_break(*label, *value, span),
            ExprKind::Continue { label } => self.check_continue(*label, span),
            ExprKind::Return(value) => self.check_return(*value, span),
            ExprKind::Println { pieces, args } => {
                self.check_println(&arena[*pieces], &arena[*args], span)
            }
        }
    }

    pub(super) fn check_int_lit(
        &mut self,
        e: ExprId,
        lit: &IntLit,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
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
            None => match expect.to_option(&mut self.buf.infer) {
                Some(ITy::Int(t)) => ITy::Int(t),
                // Whatever was expected is broken: stay silent about the literal.
                Some(ITy::Error) => ITy::Error,
                _ => self.buf.infer.new_var(VarKind::Int, span),
            },
        };
        if lit.value.is_none() {
            self.report(
                Diagnostic::error("integer literal is too large", span)
                    .with_note("value exceeds limit of `340282366920938463463374607431768211455`"),
            );
        }
        let id = self.alloc(TExprKind::Int(Bits64::new(0)), ty, span);
        self.buf.lits.push(PendingLit {
            expr: id,
            value: lit.value.map(LitValue::get),
            negated: self.neg_target == Some(e),
            hex: lit.hex,
            negation: None,
        });
        id
    }

    /// A local's name, when `path` is a single plain identifier.
    pub(super) fn single_name(path: PathRef<'_>) -> Option<Symbol> {
        match path.segments {
            [PathSegment {
                kind: PathSegmentKind::Name(name),
                ..
            }] => Some(*name),
            _ => None,
        }
    }

    /// Reports E0435 if `name` is a local of the enclosing body (we are in an array
    /// length there).
    pub(super) fn outer_local_used(&mut self, name: Symbol, span: Span) -> bool {
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

    pub(super) fn check_path_expr(&mut self, path: PathRef<'_>, span: Span) -> TExprId {
        if let Some(name) = Self::single_name(path) {
            if let Some(local) = self.buf.scopes.lookup(name) {
                let ty = self.buf.local_tys[local.0 as usize];
                return self.alloc(TExprKind::Local(local), ty, span);
            }
            if self.outer_local_used(name, span) {
                return self.error_node(span);
            }
        }
        match self.env.resolve_path(self.module, path, Namespace::Value) {
            Ok(Res::Def(DefKind::Const, def)) => {
                let ty = match self.env.const_ty(def) {
                    Ok(t) => self.buf.infer.import_ty(&t),
                    Err(_) => ITy::Error,
                };
                let def = self.lists.push_def(def);
                self.alloc(TExprKind::ConstRef(def), ty, span)
            }
            Ok(Res::IntConst(t, kind)) => {
                let value = match kind {
                    crate::sema::def::IntConstKind::Min => t.min_i128(),
                    crate::sema::def::IntConstKind::Max => t.max_i128(),
                };
                let bits = t.normalize(value as u64);
                self.alloc(TExprKind::Int(Bits64::new(bits)), ITy::Int(t), span)
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
                self.report(sig::other_primitive(path).unwrap_or(d));
                self.error_node(span)
            }
        }
    }

    // --- Blocks and statements ------------------------------------------------------

    pub(super) fn check_block(&mut self, block: &Block, span: Span, expect: &Expect) -> TExprId {
        let mark = self.buf.scopes.mark();
        let arena = self.arena;
        let base = self.buf.stmt_stack.len();
        for &s in &arena[block.stmts] {
            self.check_stmt(s);
        }
        let stmts = self.close_stmts(base);
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
                Some(target) if !self.buf.infer.unify(&ITy::Unit, &target) => {
                    self.mismatch("mismatched types", &target, &ITy::Unit, span);
                    (None, ITy::Error)
                }
                _ => (None, ITy::Unit),
            },
        };
        self.buf.scopes.reset(mark);
        self.alloc(TExprKind::Block { stmts, tail }, ty, span)
    }

    /// Checks a statement and pushes it on [`Buffers::stmt_stack`] (unless it is empty).
    pub(super) fn check_stmt(&mut self, s: StmtId) {
        let stmt = &self.arena[s];
        match &stmt.kind {
            StmtKind::Let { pattern, ty, init } => {
                let annotated = ty.map(|t| {
                    let t = self.lower_ty(t);
                    self.buf.infer.import_ty(&t)
                });
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
                self.buf.stmt_stack.push(TStmt::Let { local, init });
            }
            StmtKind::Expr { expr, semi: true } => {
                let id = self.check_expr(*expr, &Expect::None);
                self.buf.stmt_stack.push(TStmt::Expr(id));
            }
            StmtKind::Expr { expr, semi: false } => {
                // A block-like expression statement must have type `()`.
                let id = self.check_expr_coercible(*expr, &ITy::Unit);
                self.buf.stmt_stack.push(TStmt::Expr(id));
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
        self.buf.local_tys.push(ty);
        if is_param {
            debug_assert_eq!(self.param_count, id.0 as usize);
            self.param_count += 1;
        }
        self.buf.scopes.bind(name.name, id);
        id
    }

    /// A binding named like a constant in scope is a constant pattern in rustc, which is
    /// refutable (E0005).
    pub(super) fn check_binding_name(&mut self, name: Ident, site: BindingSite) {
        let Some(Res::Def(DefKind::Const, def)) =
            self.env
                .lookup_name(self.module, name.name, Namespace::Value)
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
}

/// Reads each expression, statement and list element of a body once, in address order.
/// The syntax tree was written long before (the whole crate is parsed first) and checking
/// reads it in tree order; reading it this way first lets the memory loads overlap
/// instead of checking waiting on each in turn.
fn prefetch(arena: &Arena) {
    let a = arena.stmts.iter().fold(0u32, |a, s| a ^ s.span.lo);
    let a = arena.expr_lists.iter().fold(a, |a, e| a ^ e.0);
    let a = arena.stmt_lists.iter().fold(a, |a, s| a ^ s.0);
    let a = arena.field_inits.iter().fold(a, |a, f| a ^ f.value.0);
    std::hint::black_box(arena.exprs.iter().fold(a, |a, e| a ^ e.span.lo));
}

/// Checks a function body (see [`super::typeck_fn`]).
pub(super) fn check_fn_body(
    env: &dyn SemaEnv,
    id: DefId,
    module: DefId,
    def: &FnDef,
) -> TypeckResult {
    prefetch(&def.arena);
    let mut cx = Checker::new(env, module, &def.arena, false, None, 0, true);
    // The signature's own errors are reported by `fn_sig`. It was lowered when the
    // signatures were collected; lowering it again is needed only where it is not known.
    let sig = env
        .fn_sig(id)
        .unwrap_or_else(|_| Arc::new(sig::fn_sig(env, module, def).0));
    let (params, ret) = (&sig.params, sig.ret.clone());
    cx.ret = cx.buf.infer.import_ty(&ret);
    let mut param_ids = Vec::with_capacity(params.len());
    // Parameter lists are short: a set pays off only for long ones.
    const SCAN_PARAMS: usize = 16;
    let mut seen: FxHashSet<Symbol> = FxHashSet::default();
    for (i, (p, ty)) in def.params.iter().zip(params).enumerate() {
        let repeated = if def.params.len() <= SCAN_PARAMS {
            def.params[..i].iter().any(|q| q.name.name == p.name.name)
        } else {
            !seen.insert(p.name.name)
        };
        if repeated {
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
        let ty = cx.buf.infer.import_ty(ty);
        param_ids.push(cx.declare_local(p.name, p.mutable, ty, true));
    }
    let ret_ity = cx.ret;
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
    let mut cx = Checker::new(env, module, &def.arena, true, None, 0, true);
    cx.ret = cx.buf.infer.import_ty(&ty);
    let target = cx.ret;
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
        false,
    );
    cx.ret = cx.buf.infer.import_ty(&ty);
    let target = cx.ret;
    let body = cx.check_expr_coercible(expr, &target);
    cx.finish(Vec::new(), body, ty)
}
