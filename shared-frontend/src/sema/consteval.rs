//! Constant evaluation: the value of a type-checked `const` initializer, computed at
//! compile time as rustc's constant evaluator computes it for the Rill subset.
//!
//! Unlike run time, every arithmetic overflow, out-of-range shift amount, division or
//! remainder by zero (and `MIN / -1`, `MIN % -1`) and out-of-bounds index is a compile
//! error (E0080, rustc 1.95's wording, see [`arith`]); casts wrap. Evaluation order is
//! Rust's: operands left to right; for `place = value` and `place op= value` the value
//! first, then the place's indices left to right, each bounds-checked as soon as it is
//! evaluated; reading `a[i]` of a variable evaluates `i` before it reads `a`.
//!
//! How it works:
//! - Values are flat runs of 64-bit slots ([`layout`]): an operand stack holds
//!   intermediate values, each local variable has a fixed region, and the constants this
//!   one reads are flattened once into a third region. Places (`a[i].f`) are offsets into
//!   those regions, so indexing or assigning an element never copies its array.
//! - No recursion: an explicit frame stack walks the typed tree, so neither the tree's
//!   depth nor the depth of struct nesting can exhaust the native stack. `break` and
//!   `continue` unwind that stack to the loop they name.
//! - Limits: `MAX_CONST_EVAL_STEPS` loop iterations (rustc's `long_running_const_eval`
//!   stops at the same count), `MAX_VALUE_SIZE` per value, checked for every expression and
//!   variable *before* evaluation starts, and `MAX_CONST_EVAL_MEMORY` for all variables and
//!   operands together.
//!
//! API note: errors are [`ConstEvalError`], not a bare `Diagnostic`, so that a caller can
//! tell a new diagnostic from an error already reported elsewhere (a failing or cyclic
//! constant this one reads, an erroneous struct or type).

mod arith;
mod layout;
mod value;

#[cfg(test)]
mod source_tests;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::limits::{MAX_CONST_EVAL_MEMORY, MAX_CONST_EVAL_STEPS, MAX_VALUE_SIZE};
use crate::sema::def::DefId;
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::thir::{DefIdx, LocalId, TExpr, TExprId, TExprKind, TStmt, Thir};
use crate::sema::ty::{ConstValue, DisplayTy, Ty};
use crate::span::Span;
use crate::syntax::ast::{BinOp, UnOp};

use arith::OpError;
use layout::Layouts;

pub use value::{const_to_string, const_to_string_with};

/// Why a constant has no value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstEvalError {
    /// The error was already reported elsewhere (a constant this one reads failed or is
    /// part of a cycle, a struct or type is erroneous, or the tree contains
    /// `TExprKind::Error`): report nothing more.
    Reported,
    /// A new error, to be reported (spans relative to the item, `file: None`).
    Error(Diagnostic),
}

impl From<ErrorReported> for ConstEvalError {
    fn from(_: ErrorReported) -> ConstEvalError {
        ConstEvalError::Reported
    }
}

/// Evaluates the type-checked constant initializer `thir` (its root `thir.body`, of type
/// `thir.ret`). Error labels read "evaluation of constant value failed here"; use
/// [`eval_const_item`] to name the constant as rustc does.
pub fn eval_const(env: &dyn SemaEnv, thir: &Thir) -> Result<ConstValue, ConstEvalError> {
    Evaluator::new(env, thir, None).run()
}

/// [`eval_const`] for the `const` item `def`: error labels name it as rustc does
/// ("evaluation of `geometry::ORIGIN` failed here").
pub fn eval_const_item(
    env: &dyn SemaEnv,
    def: DefId,
    thir: &Thir,
) -> Result<ConstValue, ConstEvalError> {
    Evaluator::new(env, thir, Some(def)).run()
}

/// [`eval_const`] with another step limit, so that tests of runaway loops stay quick.
#[cfg(test)]
fn eval_const_with_step_limit(
    env: &dyn SemaEnv,
    thir: &Thir,
    max_steps: u64,
) -> Result<ConstValue, ConstEvalError> {
    let mut evaluator = Evaluator::new(env, thir, None);
    evaluator.max_steps = max_steps;
    evaluator.run()
}

type Result<T, E = ConstEvalError> = std::result::Result<T, E>;

/// A place is encoded in one operand slot: an offset into the locals' memory, or, with
/// this bit set, into the memory of the constants read.
const CONST_PLACE: u64 = 1 << 63;

/// One expression being evaluated. `phase` counts the sub-steps done (children entered);
/// `base` is the operand stack height when the expression started, where its result will
/// be.
#[derive(Clone, Copy, Debug)]
struct Frame {
    expr: TExprId,
    phase: u32,
    /// Evaluates the expression as a place: leaves one encoded place on the stack.
    place: bool,
    base: usize,
}

struct Evaluator<'a> {
    env: &'a dyn SemaEnv,
    thir: &'a Thir,
    /// The constant item, to name it in error labels.
    item: Option<DefId>,
    layouts: Layouts,
    /// Slots of each expression's value, by `TExprId`.
    expr_slots: Vec<u32>,
    /// Offset and slots of each local's region in `locals`, by `LocalId`.
    local_region: Vec<(usize, usize)>,
    locals: Vec<u64>,
    /// Flattened values of the constants read, and where each one is.
    consts: Vec<u64>,
    const_region: FxHashMap<DefId, (usize, usize)>,
    stack: Vec<u64>,
    frames: Vec<Frame>,
    /// Completed loop iterations, and how many make the evaluation fail.
    steps: u64,
    max_steps: u64,
    /// Reused buffers for reordering struct literal fields.
    scratch: Vec<u64>,
    scratch_pos: Vec<usize>,
}

/// Memory the evaluator may hold, in slots.
const MEMORY_SLOTS: usize = (MAX_CONST_EVAL_MEMORY / 8) as usize;

impl<'a> Evaluator<'a> {
    fn new(env: &'a dyn SemaEnv, thir: &'a Thir, item: Option<DefId>) -> Evaluator<'a> {
        Evaluator {
            env,
            thir,
            item,
            layouts: Layouts::default(),
            expr_slots: Vec::new(),
            local_region: Vec::new(),
            locals: Vec::new(),
            consts: Vec::new(),
            const_region: FxHashMap::default(),
            stack: Vec::new(),
            frames: Vec::new(),
            steps: 0,
            max_steps: MAX_CONST_EVAL_STEPS,
            scratch: Vec::new(),
            scratch_pos: Vec::new(),
        }
    }

    fn run(mut self) -> Result<ConstValue> {
        self.prepare()?;
        let root = self.thir.body;
        self.enter(root, false)?;
        while let Some(&frame) = self.frames.last() {
            self.step(frame)?;
        }
        let thir = self.thir;
        let span = self.expr(root)?.span;
        let ret = self.layouts.size_of(self.env, &thir.ret)?;
        if self.stack.len() as u64 != ret.slots {
            return Err(self.internal(span, "the result does not have the constant's type"));
        }
        match value::build(&mut self.layouts, self.env, &thir.ret, &self.stack) {
            Ok(v) => Ok(v),
            Err(value::BuildError::Reported) => Err(ConstEvalError::Reported),
            Err(value::BuildError::Mismatch) => {
                Err(self.internal(span, "the result does not have the constant's type"))
            }
        }
    }

    /// Sizes every expression and local before anything runs, so that no value larger
    /// than the limits is ever built, and lays out the locals.
    fn prepare(&mut self) -> Result<()> {
        let thir = self.thir;
        self.expr_slots.reserve_exact(thir.exprs.len());
        for e in &thir.exprs {
            if matches!(e.kind, TExprKind::Error) {
                return Err(ConstEvalError::Reported);
            }
            let slots = self.checked_size(self.ty(e)?, e.span)?;
            self.expr_slots.push(slots as u32);
        }
        let mut total = 0usize;
        self.local_region.reserve_exact(thir.locals.len());
        for local in &thir.locals {
            let slots = self.checked_size(&local.ty, local.span)?;
            self.local_region.push((total, slots));
            total += slots;
            if total > MEMORY_SLOTS {
                return Err(self.memory_error(local.span));
            }
        }
        // Zeroed memory is mapped lazily: locals never written cost nothing.
        self.locals = vec![0; total];
        // Leaves are pushed without a frame, so nothing checks their size later.
        for (i, e) in thir.exprs.iter().enumerate() {
            let slots = match e.kind {
                TExprKind::Local(l) => self.local(l, e.span)?.1,
                TExprKind::Int(_) | TExprKind::Bool(_) => 1,
                TExprKind::Unit => 0,
                _ => continue,
            };
            if slots != self.expr_slots[i] as usize {
                return Err(self.internal(e.span, "a literal or variable of another type"));
            }
        }
        Ok(())
    }

    /// The slots of a value of type `ty`, checking the value size limit.
    fn checked_size(&mut self, ty: &Ty, span: Span) -> Result<usize> {
        let size = self.layouts.size_of(self.env, ty)?;
        if size.cost > MAX_VALUE_SIZE {
            let env = self.env;
            let ty = DisplayTy {
                ty,
                struct_name: |d| env.def_name(d),
            };
            return Err(ConstEvalError::Error(
                Diagnostic::error(
                    format!("value of type `{ty}` is too large for constant evaluation"),
                    span,
                )
                .with_note(format!(
                    "note: constant evaluation holds at most {MAX_VALUE_SIZE} bytes per value, \
                     counting every integer, `bool` and `()` as 8 bytes \
                     (implementation limit `MAX_VALUE_SIZE`)"
                )),
            ));
        }
        // The cost bounds the slots (every slot costs 8 bytes).
        Ok(size.slots as usize)
    }

    // ---- the main loop ----

    /// Starts evaluating `e`: scalars, variables and constants are pushed at once, other
    /// expressions get a frame.
    fn enter(&mut self, e: TExprId, place: bool) -> Result<()> {
        let expr = self.expr(e)?;
        if place {
            if let TExprKind::Local(l) = expr.kind {
                let (offset, _) = self.local(l, expr.span)?;
                self.stack.push(offset as u64);
                return Ok(());
            }
        } else if self.leaf(expr)? {
            return Ok(());
        }
        // Frames form a chain of ancestors, each expression at most twice (as a value
        // and as a place): more means the "tree" has a cycle.
        if self.frames.len() > 2 * self.thir.exprs.len() {
            return Err(self.internal(expr.span, "a cycle in the tree"));
        }
        self.frames.push(Frame {
            expr: e,
            phase: 0,
            place,
            base: self.stack.len(),
        });
        Ok(())
    }

    /// Pushes the value of a literal, variable or constant; `false` for other kinds.
    fn leaf(&mut self, expr: &TExpr) -> Result<bool> {
        match expr.kind {
            TExprKind::Int(bits) => {
                let &Ty::Int(ty) = self.ty(expr)? else {
                    return Err(self.internal(expr.span, "an integer literal of another type"));
                };
                self.stack.push(ty.normalize(bits.get()));
            }
            TExprKind::Bool(b) => self.stack.push(b as u64),
            TExprKind::Unit => {}
            TExprKind::Local(l) => {
                let (offset, slots) = self.local(l, expr.span)?;
                self.copy_to_stack(false, offset, slots, expr.span)?;
            }
            TExprKind::ConstRef(def) => {
                let (offset, slots) = self.load_const(self.def(def, expr.span)?, expr)?;
                self.copy_to_stack(true, offset, slots, expr.span)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn step(&mut self, f: Frame) -> Result<()> {
        let expr = self.expr(f.expr)?;
        if f.place {
            return self.step_place(f, expr);
        }
        let span = expr.span;
        match &expr.kind {
            TExprKind::Int(_)
            | TExprKind::Bool(_)
            | TExprKind::Unit
            | TExprKind::Local(_)
            | TExprKind::ConstRef(_) => {
                self.leaf(expr)?;
                self.finish()
            }
            TExprKind::Unary(..)
            | TExprKind::Binary(..)
            | TExprKind::LogicalAnd(..)
            | TExprKind::LogicalOr(..)
            | TExprKind::Cast { .. } => self.step_operator(f, expr),
            TExprKind::Assign { .. } | TExprKind::AssignOp { .. } => self.step_assign(f, expr),
            TExprKind::Field { .. }
            | TExprKind::Index { .. }
            | TExprKind::StructLit { .. }
            | TExprKind::Array(_)
            | TExprKind::Repeat { .. } => self.step_aggregate(f, expr),
            TExprKind::Block { .. }
            | TExprKind::If { .. }
            | TExprKind::Loop { .. }
            | TExprKind::While { .. }
            | TExprKind::Break { .. }
            | TExprKind::Continue { .. }
            | TExprKind::NeverToAny(_) => self.step_control(f, expr),
            TExprKind::Call { .. } => Err(ConstEvalError::Error(
                Diagnostic::unsupported("function calls in constant evaluation", span)
                    .with_code("E0015"),
            )),
            TExprKind::For { .. } => Err(ConstEvalError::Error(
                Diagnostic::unsupported("`for` loops in constant evaluation", span)
                    .with_code("E0015"),
            )),
            TExprKind::Println { .. } => Err(ConstEvalError::Error(
                Diagnostic::unsupported("`println!` in constant evaluation", span)
                    .with_code("E0015"),
            )),
            TExprKind::Return(_) => Err(ConstEvalError::Error(Diagnostic::unsupported(
                "`return` in constant evaluation",
                span,
            ))),
            TExprKind::Error => Err(ConstEvalError::Reported),
        }
    }

    /// Operators and casts: evaluate the operands, then apply the operator (`&&` and
    /// `||` evaluate their right operand only when needed).
    fn step_operator(&mut self, f: Frame, expr: &'a TExpr) -> Result<()> {
        let span = expr.span;
        match &expr.kind {
            &TExprKind::Unary(op, operand) => {
                if f.phase == 0 {
                    return self.then_enter(1, operand, false);
                }
                let x = self.pop(span)?;
                let result = match (op, self.ty(expr)?) {
                    (UnOp::Neg, &Ty::Int(ty)) => arith::neg(ty, x),
                    (UnOp::Not, &Ty::Int(ty)) => Ok(arith::not(ty, x)),
                    (UnOp::Not, Ty::Bool) => Ok((x == 0) as u64),
                    _ => Err(OpError::IllTyped),
                };
                let v = self.op_result(result, span)?;
                self.stack.push(v);
                self.finish()
            }
            &TExprKind::Binary(op, lhs, rhs) => match f.phase {
                0 => self.then_enter(1, lhs, false),
                1 => self.then_enter(2, rhs, false),
                _ => {
                    let r = self.pop(span)?;
                    let l = self.pop(span)?;
                    let v = self.binary(op, lhs, rhs, l, r, span)?;
                    self.stack.push(v);
                    self.finish()
                }
            },
            &TExprKind::LogicalAnd(lhs, rhs) | &TExprKind::LogicalOr(lhs, rhs) => {
                let is_and = matches!(expr.kind, TExprKind::LogicalAnd(..));
                match f.phase {
                    0 => self.then_enter(1, lhs, false),
                    1 => {
                        let l = self.pop(span)? != 0;
                        if l == is_and {
                            self.then_enter(2, rhs, false)
                        } else {
                            self.stack.push(l as u64);
                            self.finish()
                        }
                    }
                    _ => self.finish(),
                }
            }
            TExprKind::Cast { source, to, .. } => {
                if f.phase == 0 {
                    return self.then_enter(1, *source, false);
                }
                if !matches!(self.ty(self.expr(*source)?)?, Ty::Int(_) | Ty::Bool) {
                    return Err(self.internal(span, "a cast from a non-scalar type"));
                }
                let x = self.pop(span)?;
                self.stack.push(arith::cast(*to, x));
                self.finish()
            }
            _ => Err(self.internal(span, "an operator step on another expression")),
        }
    }

    /// `=` and `op=`: evaluate the value, then the place, then store.
    fn step_assign(&mut self, f: Frame, expr: &'a TExpr) -> Result<()> {
        let span = expr.span;
        match expr.kind {
            TExprKind::Assign { place, value } => match f.phase {
                0 => self.then_enter(1, value, false),
                1 => self.then_enter(2, place, true),
                _ => {
                    let p = self.pop(span)?;
                    let offset = self.writable(p, span)?;
                    let slots = self.stack.len() - f.base;
                    if slots != self.expr_slots[place.0 as usize] as usize {
                        return Err(self.internal(span, "an assignment of another type"));
                    }
                    let Some(target) = self.locals.get_mut(offset..offset + slots) else {
                        return Err(self.internal(span, "a place out of memory"));
                    };
                    target.copy_from_slice(&self.stack[f.base..]);
                    self.stack.truncate(f.base);
                    self.finish()
                }
            },
            TExprKind::AssignOp { op, place, value } => match f.phase {
                0 => self.then_enter(1, value, false),
                1 => self.then_enter(2, place, true),
                _ => {
                    let p = self.pop(span)?;
                    let r = self.pop(span)?;
                    let offset = self.writable(p, span)?;
                    let Some(&l) = self.locals.get(offset) else {
                        return Err(self.internal(span, "a place out of memory"));
                    };
                    let v = self.binary(op, place, value, l, r, span)?;
                    self.locals[offset] = v;
                    self.finish()
                }
            },
            _ => Err(self.internal(span, "an assignment step on another expression")),
        }
    }

    /// Projections (`e.f`, `e[i]`) and aggregates (struct literals, arrays, repeats).
    fn step_aggregate(&mut self, f: Frame, expr: &'a TExpr) -> Result<()> {
        let span = expr.span;
        match &expr.kind {
            TExprKind::Field { base, index } => {
                if self.is_rooted_place(f.expr)? {
                    return self.read_place(f);
                }
                if f.phase == 0 {
                    return self.then_enter(1, *base, false);
                }
                let base_expr = self.expr(*base)?;
                let offset = self.field_offset(base_expr, *index)?;
                let slots = self.expr_slots[f.expr.0 as usize] as usize;
                self.keep(f.base, offset, slots, span)?;
                self.finish()
            }
            TExprKind::Index { base, index } => {
                if self.is_rooted_place(f.expr)? {
                    return self.read_place(f);
                }
                match f.phase {
                    0 => self.then_enter(1, *base, false),
                    1 => self.then_enter(2, *index, false),
                    _ => {
                        let i = self.pop(span)?;
                        let i = self.bounds_check(*base, i, span)?;
                        let slots = self.expr_slots[f.expr.0 as usize] as usize;
                        self.keep(f.base, i * slots, slots, span)?;
                        self.finish()
                    }
                }
            }
            TExprKind::StructLit { def, fields } => {
                let Some(fields) = self.thir.lists.get_fields(*fields) else {
                    return Err(self.internal(span, "a field list outside the body"));
                };
                let k = f.phase as usize;
                if let Some(&(_, field)) = fields.get(k) {
                    return self.then_enter(f.phase + 1, field, false);
                }
                self.reorder_fields(self.def(*def, span)?, fields, f.base, span)?;
                self.finish()
            }
            TExprKind::Array(elems) => {
                let Some(elems) = self.thir.lists.get_exprs(*elems) else {
                    return Err(self.internal(span, "an element list outside the body"));
                };
                match elems.get(f.phase as usize) {
                    Some(&elem) => self.then_enter(f.phase + 1, elem, false),
                    None => self.finish(),
                }
            }
            &TExprKind::Repeat { value, count } => {
                if f.phase == 0 {
                    return self.then_enter(1, value, false);
                }
                self.repeat(f.base, count.get(), span)?;
                self.finish()
            }
            _ => Err(self.internal(span, "an aggregate step on another expression")),
        }
    }

    /// Blocks and control flow: `if`, loops, `break`, `continue`, and `!` coerced.
    fn step_control(&mut self, f: Frame, expr: &'a TExpr) -> Result<()> {
        let span = expr.span;
        match &expr.kind {
            TExprKind::Block { stmts, tail } => {
                let Some(stmts) = self.thir.lists.get_stmts(*stmts) else {
                    return Err(self.internal(span, "a statement list outside the body"));
                };
                let k = (f.phase / 2) as usize;
                if let Some(stmt) = stmts.get(k) {
                    if f.phase & 1 == 0 {
                        let init = match stmt {
                            TStmt::Let { init, .. } => *init,
                            TStmt::Expr(e) => *e,
                        };
                        return self.then_enter(f.phase + 1, init, false);
                    }
                    if let TStmt::Let {
                        local: Some(l),
                        init,
                    } = stmt
                    {
                        self.store_local(*l, f.base, self.expr(*init)?.span)?;
                    }
                    self.stack.truncate(f.base);
                    self.set_phase(f.phase + 1);
                    return Ok(());
                }
                match tail {
                    Some(tail) if f.phase as usize == 2 * stmts.len() => {
                        self.then_enter(f.phase + 1, *tail, false)
                    }
                    _ => self.finish(),
                }
            }
            TExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => match f.phase {
                0 => self.then_enter(1, *cond, false),
                1 => {
                    if self.pop(span)? != 0 {
                        self.then_enter(2, *then_branch, false)
                    } else if let Some(else_branch) = else_branch {
                        self.then_enter(2, *else_branch, false)
                    } else {
                        self.finish()
                    }
                }
                _ => self.finish(),
            },
            &TExprKind::Loop { body } => {
                if f.phase > 0 {
                    // The body finished (or `continue`d): one iteration done.
                    self.stack.truncate(f.base);
                    self.count_iteration(span)?;
                }
                self.then_enter(1, body, false)
            }
            &TExprKind::While { cond, body } => match f.phase {
                0 => self.then_enter(1, cond, false),
                1 => {
                    if self.pop(span)? != 0 {
                        self.then_enter(2, body, false)
                    } else {
                        self.finish()
                    }
                }
                _ => {
                    self.stack.truncate(f.base);
                    self.count_iteration(span)?;
                    self.then_enter(1, cond, false)
                }
            },
            &TExprKind::Break { target, value } => match (f.phase, value) {
                (0, Some(value)) => self.then_enter(1, value, false),
                _ => {
                    let loop_frame = self.unwind_to(target, span)?;
                    let slots = self.stack.len() - f.base;
                    self.stack.copy_within(f.base.., loop_frame.base);
                    self.stack.truncate(loop_frame.base + slots);
                    // The loop is done, with this value.
                    self.finish()
                }
            },
            &TExprKind::Continue { target } => {
                let loop_frame = self.unwind_to(target, span)?;
                // The loop frame sees its body finished and starts the next iteration.
                self.stack.truncate(loop_frame.base);
                Ok(())
            }
            &TExprKind::NeverToAny(inner) => {
                if f.phase == 0 {
                    return self.then_enter(1, inner, false);
                }
                Err(self.internal(span, "a diverging expression finished"))
            }
            _ => Err(self.internal(span, "a control-flow step on another expression")),
        }
    }

    /// One step of evaluating a place (`local`, `CONST`, `p.f`, `p[i]`): leaves the
    /// encoded place on the stack.
    fn step_place(&mut self, f: Frame, expr: &'a TExpr) -> Result<()> {
        let span = expr.span;
        match expr.kind {
            TExprKind::Local(l) => {
                let (offset, _) = self.local(l, span)?;
                self.stack.push(offset as u64);
                self.finish()
            }
            TExprKind::ConstRef(def) => {
                let (offset, _) = self.load_const(self.def(def, expr.span)?, expr)?;
                self.stack.push(CONST_PLACE | offset as u64);
                self.finish()
            }
            TExprKind::Field { base, index } => {
                if f.phase == 0 {
                    return self.then_enter(1, base, true);
                }
                let p = self.pop(span)?;
                let offset = self.field_offset(self.expr(base)?, index)?;
                self.stack.push(p + offset as u64);
                self.finish()
            }
            TExprKind::Index { base, index } => match f.phase {
                0 => self.then_enter(1, base, true),
                1 => self.then_enter(2, index, false),
                _ => {
                    let i = self.pop(span)?;
                    let p = self.pop(span)?;
                    let i = self.bounds_check(base, i, span)?;
                    let slots = self.expr_slots[f.expr.0 as usize] as u64;
                    self.stack.push(p + i as u64 * slots);
                    self.finish()
                }
            },
            _ => Err(self.internal(span, "not a place expression")),
        }
    }

    /// Reads a field or element of a variable or constant: evaluates the place, then
    /// copies only the value there.
    fn read_place(&mut self, f: Frame) -> Result<()> {
        if f.phase == 0 {
            return self.then_enter(1, f.expr, true);
        }
        let span = self.expr(f.expr)?.span;
        let p = self.pop(span)?;
        let slots = self.expr_slots[f.expr.0 as usize] as usize;
        let is_const = p & CONST_PLACE != 0;
        let offset = (p & !CONST_PLACE) as usize;
        self.copy_to_stack(is_const, offset, slots, span)?;
        self.finish()
    }

    // ---- frames ----

    fn set_phase(&mut self, phase: u32) {
        if let Some(top) = self.frames.last_mut() {
            top.phase = phase;
        }
    }

    /// Advances the current frame to `phase` and starts evaluating `child`.
    fn then_enter(&mut self, phase: u32, child: TExprId, place: bool) -> Result<()> {
        self.set_phase(phase);
        self.enter(child, place)
    }

    /// Ends the current frame, checking that it left exactly its value on the stack.
    fn finish(&mut self) -> Result<()> {
        let Some(f) = self.frames.pop() else {
            return Err(self.internal(Span::DUMMY, "no expression to finish"));
        };
        let slots = if f.place {
            1
        } else {
            self.expr_slots[f.expr.0 as usize] as usize
        };
        if self.stack.len() != f.base + slots {
            let span = self.expr(f.expr)?.span;
            return Err(self.internal(span, "a value of the wrong size"));
        }
        Ok(())
    }

    /// Pops frames up to the frame of loop `target` (which stays on top) for `break` or
    /// `continue`.
    fn unwind_to(&mut self, target: TExprId, span: Span) -> Result<Frame> {
        while let Some(&top) = self.frames.last() {
            if top.expr == target && !top.place {
                return match self.expr(target)?.kind {
                    TExprKind::Loop { .. } | TExprKind::While { .. } => Ok(top),
                    _ => Err(self.internal(span, "`break` or `continue` to a non-loop")),
                };
            }
            self.frames.pop();
        }
        Err(self.internal(span, "`break` or `continue` outside its loop"))
    }

    fn count_iteration(&mut self, span: Span) -> Result<()> {
        self.steps += 1;
        if self.steps >= self.max_steps {
            // rustc's `long_running_const_eval` lint (deny by default) fires when its
            // counter of loop back-edges reaches 2 000 000, the same count.
            return Err(ConstEvalError::Error(
                Diagnostic::error("constant evaluation is taking a long time", span).with_note(
                    format!(
                        "note: Rill stops a constant's evaluation after {MAX_CONST_EVAL_STEPS} \
                         loop iterations (implementation limit `MAX_CONST_EVAL_STEPS`), \
                         as rustc's `long_running_const_eval` lint does"
                    ),
                ),
            ));
        }
        Ok(())
    }

    // ---- values ----

    fn expr(&self, e: TExprId) -> Result<&'a TExpr> {
        let thir = self.thir;
        match thir.exprs.get(e.0 as usize) {
            Some(expr) => Ok(expr),
            None => Err(self.internal(Span::DUMMY, "an expression id out of range")),
        }
    }

    /// The item `d` of this body stands for.
    fn def(&self, d: DefIdx, span: Span) -> Result<DefId> {
        match self.thir.lists.get_def(d) {
            Some(def) => Ok(def),
            None => Err(self.internal(span, "a def index out of range")),
        }
    }

    /// The final type of `expr`, a node of this body.
    fn ty(&self, expr: &TExpr) -> Result<&'a Ty> {
        match self.thir.lists.get_ty(expr.ty) {
            Some(ty) => Ok(ty),
            None => Err(self.internal(expr.span, "a type id out of range")),
        }
    }

    fn local(&self, l: LocalId, span: Span) -> Result<(usize, usize)> {
        match self.local_region.get(l.0 as usize) {
            Some(&region) => Ok(region),
            None => Err(self.internal(span, "a local id out of range")),
        }
    }

    /// Pops an operand of the current expression (never one below its frame, so that
    /// `stack.len() >= base` holds for every frame).
    fn pop(&mut self, span: Span) -> Result<u64> {
        let floor = self.frames.last().map_or(0, |f| f.base);
        if self.stack.len() <= floor {
            return Err(self.internal(span, "a missing operand"));
        }
        match self.stack.pop() {
            Some(v) => Ok(v),
            None => Err(self.internal(span, "a missing operand")),
        }
    }

    fn reserve(&mut self, slots: usize, span: Span) -> Result<()> {
        let used = self.stack.len() + self.locals.len() + self.consts.len();
        if used.saturating_add(slots) > MEMORY_SLOTS {
            return Err(self.memory_error(span));
        }
        Ok(())
    }

    /// Pushes `slots` slots from a local's (or a constant's) memory at `offset`.
    fn copy_to_stack(
        &mut self,
        from_consts: bool,
        offset: usize,
        slots: usize,
        span: Span,
    ) -> Result<()> {
        if slots == 1 {
            let memory = if from_consts {
                &self.consts
            } else {
                &self.locals
            };
            let Some(&v) = memory.get(offset) else {
                return Err(self.internal(span, "a place out of memory"));
            };
            self.stack.push(v);
            return Ok(());
        }
        self.reserve(slots, span)?;
        let memory = if from_consts {
            &self.consts
        } else {
            &self.locals
        };
        let Some(source) = memory.get(offset..offset + slots) else {
            return Err(self.internal(span, "a place out of memory"));
        };
        self.stack.extend_from_slice(source);
        Ok(())
    }

    /// Moves the value at the top of the stack, from `base` on, into local `l`.
    fn store_local(&mut self, l: LocalId, base: usize, span: Span) -> Result<()> {
        let (offset, slots) = self.local(l, span)?;
        if self.stack.len() != base + slots {
            return Err(self.internal(span, "a variable initialized at another type"));
        }
        self.locals[offset..offset + slots].copy_from_slice(&self.stack[base..]);
        self.stack.truncate(base);
        Ok(())
    }

    /// The offset in the locals' memory of a place that may be assigned.
    fn writable(&self, place: u64, span: Span) -> Result<usize> {
        if place & CONST_PLACE != 0 {
            return Err(ConstEvalError::Error(Diagnostic::unsupported(
                "assignment to a field or element of a constant item",
                span,
            )));
        }
        Ok(place as usize)
    }

    /// Replaces the aggregate at `base..` with its part `offset..offset + slots`.
    fn keep(&mut self, base: usize, offset: usize, slots: usize, span: Span) -> Result<()> {
        let from = base + offset;
        if from + slots > self.stack.len() {
            return Err(self.internal(span, "a field or element out of its aggregate"));
        }
        self.stack.copy_within(from..from + slots, base);
        self.stack.truncate(base + slots);
        Ok(())
    }

    /// `[v; count]` with `v` at `base..`.
    fn repeat(&mut self, base: usize, count: u64, span: Span) -> Result<()> {
        let slots = self.stack.len() - base;
        if count == 0 {
            self.stack.truncate(base);
            return Ok(());
        }
        if slots == 0 {
            return Ok(());
        }
        // `prepare` bounded this value's size, so the product fits.
        let total = slots.saturating_mul(count as usize);
        self.reserve(total - slots, span)?;
        self.stack.reserve(total - slots);
        // Doubling copies: O(log count) calls.
        while self.stack.len() - base < total {
            let filled = self.stack.len() - base;
            let more = filled.min(total - filled);
            self.stack.extend_from_within(base..base + more);
        }
        Ok(())
    }

    /// Puts a struct literal's fields, evaluated in the order written, in declaration
    /// order.
    fn reorder_fields(
        &mut self,
        def: DefId,
        fields: &[(u32, TExprId)],
        base: usize,
        span: Span,
    ) -> Result<()> {
        let declared = self
            .layouts
            .struct_layout(self.env, def)?
            .fields
            .fields
            .len();
        if fields.len() != declared {
            return Err(self.internal(span, "a struct literal with missing or extra fields"));
        }
        if fields
            .iter()
            .enumerate()
            .all(|(i, &(d, _))| d as usize == i)
        {
            return Ok(());
        }
        // Where each field written `w`-th starts on the stack, and which one is declared
        // `d`-th.
        let mut starts = std::mem::take(&mut self.scratch_pos);
        starts.clear();
        starts.resize(2 * declared, usize::MAX);
        let mut at = base;
        for (w, &(d, e)) in fields.iter().enumerate() {
            starts[w] = at;
            at += self.expr_slots[e.0 as usize] as usize;
            match starts.get_mut(declared + d as usize) {
                Some(slot) if *slot == usize::MAX => *slot = w,
                _ => {
                    self.scratch_pos = starts;
                    return Err(self.internal(span, "a struct literal with a repeated field"));
                }
            }
        }
        let mut reordered = std::mem::take(&mut self.scratch);
        reordered.clear();
        for d in 0..declared {
            let w = starts[declared + d];
            let start = starts[w];
            let slots = self.expr_slots[(fields[w].1).0 as usize] as usize;
            reordered.extend_from_slice(&self.stack[start..start + slots]);
        }
        self.stack[base..].copy_from_slice(&reordered);
        self.scratch = reordered;
        self.scratch_pos = starts;
        Ok(())
    }

    /// The slot offset of field `index` within a value of `base`'s (struct) type.
    fn field_offset(&mut self, base: &TExpr, index: u32) -> Result<usize> {
        let &Ty::Struct(def) = self.ty(base)? else {
            return Err(self.internal(base.span, "a field of a non-struct"));
        };
        let layout = self.layouts.struct_layout(self.env, def)?;
        match layout.offsets.get(index as usize) {
            Some(&offset) => Ok(offset as usize),
            None => Err(self.internal(base.span, "a field index out of range")),
        }
    }

    /// Checks index `i` against the length of array `base`'s type.
    fn bounds_check(&self, base: TExprId, i: u64, span: Span) -> Result<usize> {
        let base = self.expr(base)?;
        let &Ty::Array(_, len) = self.ty(base)? else {
            return Err(self.internal(span, "indexing a non-array"));
        };
        if i >= len {
            return Err(self.eval_error(
                span,
                format!("index out of bounds: the length is {len} but the index is {i}"),
            ));
        }
        Ok(i as usize)
    }

    /// Whether `e` is a field/element chain rooted at a variable or constant, which is
    /// read in place rather than by copying the whole aggregate.
    fn is_rooted_place(&self, mut e: TExprId) -> Result<bool> {
        // A chain longer than the tree has expressions is a cycle.
        for _ in 0..=self.thir.exprs.len() {
            match self.expr(e)?.kind {
                TExprKind::Field { base, .. } | TExprKind::Index { base, .. } => e = base,
                TExprKind::Local(_) | TExprKind::ConstRef(_) => return Ok(true),
                _ => return Ok(false),
            }
        }
        Err(self.internal(self.expr(e)?.span, "a cycle in the tree"))
    }

    /// The region of constant `def`'s flattened value, reading it from `env` the first
    /// time.
    fn load_const(&mut self, def: DefId, expr: &TExpr) -> Result<(usize, usize)> {
        if let Some(&region) = self.const_region.get(&def) {
            return Ok(region);
        }
        let value = self.env.const_value(def)?;
        let offset = self.consts.len();
        value::flatten(&value, &mut self.consts);
        let slots = self.consts.len() - offset;
        if slots != self.expr_slots_of(expr)? {
            return Err(self.internal(expr.span, "a constant's value has another type"));
        }
        if self.stack.len() + self.locals.len() + self.consts.len() > MEMORY_SLOTS {
            return Err(self.memory_error(expr.span));
        }
        self.const_region.insert(def, (offset, slots));
        Ok((offset, slots))
    }

    fn expr_slots_of(&mut self, expr: &TExpr) -> Result<usize> {
        let ty = self.ty(expr)?;
        Ok(self.layouts.size_of(self.env, ty)?.slots as usize)
    }

    /// `l op r` for a binary operator or compound assignment whose operands are the
    /// expressions `lhs` and `rhs`.
    fn binary(
        &self,
        op: BinOp,
        lhs: TExprId,
        rhs: TExprId,
        l: u64,
        r: u64,
        span: Span,
    ) -> Result<u64> {
        let result = match (self.ty(self.expr(lhs)?)?, self.ty(self.expr(rhs)?)?) {
            (&Ty::Int(ty), &Ty::Int(rhs_ty)) => {
                let is_shift = matches!(op, BinOp::Shl | BinOp::Shr);
                if !is_shift && rhs_ty != ty {
                    Err(OpError::IllTyped)
                } else {
                    arith::binary_int(op, ty, l, r, rhs_ty)
                }
            }
            (Ty::Bool, Ty::Bool) => arith::binary_bool(op, l != 0, r != 0).map(|b| b as u64),
            _ => Err(OpError::IllTyped),
        };
        self.op_result(result, span)
    }

    fn op_result(&self, result: Result<u64, OpError>, span: Span) -> Result<u64> {
        match result {
            Ok(v) => Ok(v),
            Err(OpError::Eval(message)) => Err(self.eval_error(span, message)),
            Err(OpError::IllTyped) => Err(self.internal(span, "an operator on the wrong types")),
        }
    }

    // ---- diagnostics ----

    /// E0080, worded as rustc 1.95 words it: the failure as the message, the label naming
    /// the constant.
    fn eval_error(&self, span: Span, message: String) -> ConstEvalError {
        let label = match self.item {
            Some(def) => format!("evaluation of `{}` failed here", self.env.def_name(def)),
            None => "evaluation of constant value failed here".to_string(),
        };
        ConstEvalError::Error(
            Diagnostic::error(message, span)
                .with_code("E0080")
                .with_label_message(label),
        )
    }

    fn memory_error(&self, span: Span) -> ConstEvalError {
        ConstEvalError::Error(Diagnostic::error(
            format!(
                "constant evaluation needs more than {MAX_CONST_EVAL_MEMORY} bytes \
                 (implementation limit `MAX_CONST_EVAL_MEMORY`)"
            ),
            span,
        ))
    }

    /// A tree that type checking should never have produced.
    #[cold]
    fn internal(&self, span: Span, what: &str) -> ConstEvalError {
        ConstEvalError::Error(Diagnostic::error(
            format!("internal compiler error: constant evaluation met {what}"),
            span,
        ))
    }
}
