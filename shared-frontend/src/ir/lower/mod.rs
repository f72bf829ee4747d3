//! Lowering: one type-checked body ([`Thir`]) to one [`IrFunction`].
//!
//! A direct translation, following the conventions of [`crate::ir`]:
//! - scalar locals (integers, `bool`) live in virtual registers, reassigned in place;
//!   aggregate locals (structs, arrays) live in stack slots, and aggregate parameters in
//!   the caller's copy whose address is passed; `()` values take no storage at all (and
//!   `()` parameters are not passed);
//! - every aggregate is a `Copy` value: reading one as a value copies it (`MemCopy`), so
//!   `let b = a; b.x = 1;` leaves `a` alone;
//! - evaluation order is LANGUAGE.md's ("Evaluation order") and rustc's: left to right,
//!   except that an assignment evaluates its right-hand side first, then its place;
//!   indexing evaluates the base place, then the index, then checks the bounds, and reads
//!   the element last;
//! - every panic is an explicit branch to a block ending in [`Terminator::Panic`].
//!
//! Typeck already reported every error, and a body with errors is never lowered; still,
//! nothing here panics on unexpected input: an [`TExprKind::Error`] (or a callee whose
//! signature is unknown) becomes [`Terminator::Unreachable`].
//!
//! The one subtle point is *when* a value is read. An operand that names a place (a
//! scalar local's register, or an aggregate in a local's slot) is not copied eagerly;
//! it is copied ("stabilized") only when code evaluated before its use may assign to a
//! local (`x + { x = 5; x }` reads the old `x` on the left). Calls cannot change the
//! caller's locals (Rill has no references), so only `=` and `op=` count, found by a memoized
//! walk of the subexpressions asked about (`AssignInfo`).

mod builder;
mod consts;
mod expr;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;

use crate::ir::layout::{scalar_of, LayoutCache};
use crate::ir::{BlockId, DataId, IrFunction, ScalarTy, SlotId, Terminator, VReg};
use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::thir::{TExprId, TExprKind, TLists, TStmt, Thir};
use crate::sema::ty::Ty;
use crate::spare;

use builder::Builder;

/// The buffers of [`lower_fn`], reused by the calls of one thread so that lowering many
/// small functions does not allocate them anew each time. Results never depend on what
/// is left here: each call starts by clearing them ([`Scratch::start`]).
#[derive(Default)]
struct Scratch {
    b: Builder,
    layouts: LayoutCache,
    /// Where each local lives.
    locals: Vec<Storage>,
    loops: Vec<LoopCtx>,
    /// Whether evaluating an expression may assign to a local.
    assigns: AssignInfo,
    /// Expression chains being lowered (operator chains, place projections), as a stack
    /// shared by nested chains so that lowering them allocates nothing.
    scratch: Vec<TExprId>,
    /// The data blob of each aggregate constant used (looked up, never iterated).
    const_data: FxHashMap<DefId, DataId>,
}

impl Scratch {
    /// Empties every buffer for lowering `thir`.
    fn start(&mut self, thir: &Thir) {
        let Scratch {
            b,
            layouts,
            locals,
            loops,
            assigns,
            scratch,
            const_data,
        } = self;
        b.start(thir.exprs.len());
        layouts.clear();
        locals.clear();
        locals.resize(thir.locals.len(), Storage::Unassigned);
        loops.clear();
        assigns.reset(thir.exprs.len());
        scratch.clear();
        if !const_data.is_empty() {
            const_data.clear();
        }
    }
}

thread_local! {
    /// The [`Scratch`] buffers of this thread.
    static SCRATCH: spare::Spare<Scratch> = const { std::cell::Cell::new(None) };
}

/// Lowers the type-checked body `thir` of function `def` (named `name` in listings).
pub fn lower_fn(env: &dyn SemaEnv, def: DefId, name: String, thir: &Thir) -> IrFunction {
    let mut buf = spare::take(&SCRATCH);
    prefetch(thir);
    buf.start(thir);
    let mut cx = Lowerer {
        env,
        thir,
        buf,
        sret: None,
    };
    let mut params = Vec::with_capacity(thir.params.len() + 1);
    let ret_repr = cx.repr(&thir.ret);
    let sret = matches!(ret_repr, Repr::Mem(_));
    if sret {
        let p = cx.buf.b.new_vreg(ScalarTy::Ptr);
        cx.sret = Some(p);
        params.push(p);
    }
    for &local in &thir.params {
        match cx.local_storage(local) {
            Storage::Reg(v) | Storage::Addr(v) => params.push(v),
            Storage::Slot(_) | Storage::None | Storage::Unassigned => {}
        }
    }
    let body = thir.body;
    match ret_repr {
        Repr::Scalar(s) => {
            let v = cx.operand(body);
            let v = cx.expect_reg(v, s);
            cx.buf.b.terminate(Terminator::Return(Some(v)));
        }
        Repr::Mem(_) => {
            let dest = Mem::addr(cx.sret.unwrap_or(VReg(0)));
            cx.lower_into(body, Dest::Mem(dest));
            cx.buf.b.terminate(Terminator::Return(None));
        }
        Repr::None => {
            cx.expr(body, Dest::Ignore);
            cx.buf.b.terminate(Terminator::Return(None));
        }
    }
    let ret = match ret_repr {
        Repr::Scalar(s) => Some(s),
        Repr::Mem(_) | Repr::None => None,
    };
    let f = cx.buf.b.finish(def, name, params, sret, ret);
    spare::give_back(&SCRATCH, cx.buf);
    f
}

/// Reads each expression of `thir` once, in address order, and one entry per cache line
/// of its child lists. The body was written long before (the whole crate is type-checked
/// first) and lowering reads it in tree order; reading it this way first lets the memory
/// loads overlap instead of lowering waiting on each in turn.
fn prefetch(thir: &Thir) {
    let a = thir.exprs.iter().fold(0u32, |a, e| a ^ e.span.lo);
    let lists = &thir.lists;
    let a = lists.exprs.iter().step_by(16).fold(a, |a, x| a ^ x.0);
    let a = lists.fields.iter().step_by(8).fold(a, |a, f| a ^ f.1 .0);
    let a = lists.stmts.iter().step_by(5).fold(a, |a, s| match s {
        TStmt::Let { init, .. } | TStmt::Expr(init) => a ^ init.0,
    });
    std::hint::black_box(a);
}

/// How values of a type are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr {
    /// `()`, `!`, and types with errors: no storage.
    None,
    Scalar(ScalarTy),
    /// A struct or array of this size and alignment (a size of zero is possible).
    Mem(MemLayout),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MemLayout {
    size: u32,
    align: u32,
}

/// Where a local lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Storage {
    /// Not declared yet.
    Unassigned,
    /// `()`: nothing.
    None,
    Reg(VReg),
    Slot(SlotId),
    /// An aggregate parameter: the caller's copy, at the address in this register.
    Addr(VReg),
}

/// A memory location: a base address plus a constant offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mem {
    base: Base,
    offset: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Slot(SlotId),
    Data(DataId),
    /// An address in a register that is never reassigned.
    Addr(VReg),
}

impl Mem {
    fn slot(s: SlotId) -> Mem {
        Mem {
            base: Base::Slot(s),
            offset: 0,
        }
    }

    fn addr(v: VReg) -> Mem {
        Mem {
            base: Base::Addr(v),
            offset: 0,
        }
    }

    fn plus(self, by: u64) -> Mem {
        Mem {
            base: self.base,
            offset: u32::try_from(u64::from(self.offset).saturating_add(by)).unwrap_or(u32::MAX),
        }
    }
}

/// The result of evaluating an expression. `place` marks a value that is still the
/// storage of a local (a scalar local's register, or memory inside a local), which later
/// assignments would change: see [`Lowerer::stabilize`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// `()`, `!`, or a value that does not matter (unreachable code).
    None,
    Reg {
        v: VReg,
        place: bool,
    },
    Mem {
        mem: Mem,
        place: bool,
    },
}

impl Value {
    fn reg(v: VReg) -> Value {
        Value::Reg { v, place: false }
    }

    fn mem(mem: Mem) -> Value {
        Value::Mem { mem, place: false }
    }

    fn is_place(self) -> bool {
        match self {
            Value::None => false,
            Value::Reg { place, .. } | Value::Mem { place, .. } => place,
        }
    }
}

/// Where the caller wants an expression's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    /// Evaluated for its effects only.
    Ignore,
    /// Needed, anywhere.
    Any,
    /// In this register (a fresh one, or a local's that the expression cannot read).
    Reg(VReg),
    /// In this memory (fresh storage the expression cannot read).
    Mem(Mem),
}

struct LoopCtx {
    expr: TExprId,
    break_block: BlockId,
    continue_block: BlockId,
    /// Where `break value` puts the value.
    dest: Dest,
}

struct Lowerer<'a> {
    env: &'a dyn SemaEnv,
    thir: &'a Thir,
    /// Everything else lowering works with (see [`Scratch`]).
    buf: Box<Scratch>,
    sret: Option<VReg>,
}

impl<'a> Lowerer<'a> {
    fn repr(&mut self, ty: &Ty) -> Repr {
        if let Some(s) = scalar_of(ty) {
            return Repr::Scalar(s);
        }
        match ty {
            Ty::Struct(_) | Ty::Array(..) => {
                let l = self.buf.layouts.layout_of(self.env, ty);
                Repr::Mem(MemLayout {
                    size: u32::try_from(l.size).unwrap_or(u32::MAX),
                    align: l.align,
                })
            }
            _ => Repr::None,
        }
    }

    fn ty(&self, e: TExprId) -> &'a Ty {
        self.thir.ty(e)
    }

    fn assigns(&mut self, e: TExprId) -> bool {
        self.buf.assigns.get(self.thir, e)
    }

    fn local_storage(&mut self, local: crate::sema::thir::LocalId) -> Storage {
        let i = local.0 as usize;
        if i >= self.buf.locals.len() {
            return Storage::None;
        }
        if self.buf.locals[i] != Storage::Unassigned {
            return self.buf.locals[i];
        }
        let storage = match self.repr(&self.thir.locals[i].ty) {
            Repr::None => Storage::None,
            Repr::Scalar(s) => Storage::Reg(self.buf.b.new_vreg(s)),
            Repr::Mem(_) if self.thir.params.contains(&local) => {
                Storage::Addr(self.buf.b.new_vreg(ScalarTy::Ptr))
            }
            Repr::Mem(l) => Storage::Slot(self.buf.b.new_slot(l.size, l.align)),
        };
        self.buf.locals[i] = storage;
        storage
    }

    fn temp_slot(&mut self, l: MemLayout) -> Mem {
        Mem::slot(self.buf.b.new_slot(l.size, l.align))
    }

    /// A register of type `s` for `v`; when `v` is missing, the code is unreachable (or
    /// had an error): it ends with `Unreachable` and a fresh register stands for the
    /// value.
    fn expect_reg(&mut self, v: Value, s: ScalarTy) -> VReg {
        match v {
            Value::Reg { v, .. } => v,
            Value::None | Value::Mem { .. } => {
                if self.buf.b.live {
                    self.buf.b.diverge(Terminator::Unreachable);
                }
                self.buf.b.new_vreg(s)
            }
        }
    }

    /// A value that stands for the result of unreachable code.
    fn dummy(&mut self, ty: &Ty) -> Value {
        match self.repr(ty) {
            Repr::None => Value::None,
            Repr::Scalar(s) => Value::reg(self.buf.b.new_vreg(s)),
            Repr::Mem(_) => Value::mem(Mem::addr(self.buf.b.new_vreg(ScalarTy::Ptr))),
        }
    }

    /// Evaluates `e` into `dest` (nothing for `Ignore`/`Any`).
    fn lower_into(&mut self, e: TExprId, dest: Dest) {
        let v = self.expr(e, dest);
        let ty = self.ty(e);
        self.write(dest, v, ty);
    }

    /// Stores value `v` of type `ty` in `dest`.
    fn write(&mut self, dest: Dest, v: Value, ty: &Ty) {
        match (dest, v) {
            (Dest::Ignore | Dest::Any, _) | (_, Value::None) => {}
            (Dest::Reg(r), Value::Reg { v, .. }) => {
                if v != r {
                    self.buf.b.emit(crate::ir::Inst::Copy { dst: r, src: v });
                }
            }
            (Dest::Mem(m), Value::Reg { v, .. }) => self.store(m, v),
            (Dest::Mem(m), Value::Mem { mem, .. }) => {
                if let Repr::Mem(l) = self.repr(ty) {
                    self.mem_copy(m, mem, l.size);
                }
            }
            (Dest::Reg(_), Value::Mem { .. }) => {}
        }
    }

    /// The destination for a value of type `ty` when the caller asked for `dest`:
    /// a register or memory to build the value in, or `Ignore`.
    fn concrete_dest(&mut self, dest: Dest, ty: &Ty) -> Dest {
        if dest == Dest::Ignore {
            return Dest::Ignore;
        }
        match self.repr(ty) {
            Repr::None => Dest::Ignore,
            Repr::Scalar(s) => match dest {
                Dest::Reg(r) => Dest::Reg(r),
                _ => Dest::Reg(self.buf.b.new_vreg(s)),
            },
            Repr::Mem(l) => match dest {
                Dest::Mem(m) => Dest::Mem(m),
                _ => Dest::Mem(self.temp_slot(l)),
            },
        }
    }

    fn dest_value(dest: Dest) -> Value {
        match dest {
            Dest::Reg(r) => Value::reg(r),
            Dest::Mem(m) => Value::mem(m),
            Dest::Ignore | Dest::Any => Value::None,
        }
    }

    // -----------------------------------------------------------------------------------
    // Statements and control flow.

    fn block(&mut self, stmts: &'a [TStmt], tail: Option<TExprId>, dest: Dest) -> Value {
        for stmt in stmts {
            if !self.buf.b.live {
                // Everything after a diverging statement is unreachable.
                return Value::None;
            }
            match stmt {
                TStmt::Let {
                    local: Some(local),
                    init,
                } => match self.local_storage(*local) {
                    Storage::Reg(r) => self.lower_into(*init, Dest::Reg(r)),
                    Storage::Slot(s) => self.lower_into(*init, Dest::Mem(Mem::slot(s))),
                    Storage::Addr(a) => self.lower_into(*init, Dest::Mem(Mem::addr(a))),
                    Storage::None | Storage::Unassigned => {
                        self.expr(*init, Dest::Ignore);
                    }
                },
                TStmt::Let { local: None, init } | TStmt::Expr(init) => {
                    self.expr(*init, Dest::Ignore);
                }
            }
        }
        match tail {
            Some(t) if self.buf.b.live => self.expr(t, dest),
            _ => Value::None,
        }
    }

    fn if_expr(
        &mut self,
        e: TExprId,
        cond: TExprId,
        then_branch: TExprId,
        else_branch: Option<TExprId>,
        dest: Dest,
    ) -> Value {
        let c = self.operand(cond);
        let c = self.expect_reg(c, ScalarTy::Bool);
        let dest = self.concrete_dest(dest, self.ty(e));
        let join = self.buf.b.new_block();
        let else_block = self.buf.b.branch_then(c);
        self.lower_into(then_branch, dest);
        self.buf.b.goto(join);
        self.buf.b.switch_to(else_block);
        if let Some(else_branch) = else_branch {
            self.lower_into(else_branch, dest);
        }
        self.buf.b.goto(join);
        self.buf.b.switch_to(join);
        Self::dest_value(dest)
    }

    fn loop_expr(&mut self, e: TExprId, body: TExprId, dest: Dest) -> Value {
        let dest = self.concrete_dest(dest, self.ty(e));
        let header = self.buf.b.new_block();
        let exit = self.buf.b.new_block();
        self.buf.b.goto(header);
        self.buf.b.switch_to(header);
        self.buf.loops.push(LoopCtx {
            expr: e,
            break_block: exit,
            continue_block: header,
            dest,
        });
        self.expr(body, Dest::Ignore);
        self.buf.loops.pop();
        self.buf.b.goto(header);
        self.buf.b.switch_to(exit);
        Self::dest_value(dest)
    }

    /// `while cond { body }`. The loop is a target of `break`/`continue` in its
    /// condition too (`'a: while { if x { break 'a; } y } {}` is valid).
    fn while_expr(&mut self, e: TExprId, cond: TExprId, body: TExprId) {
        let header = self.buf.b.new_block();
        let body_block = self.buf.b.new_block();
        let exit = self.buf.b.new_block();
        self.buf.b.goto(header);
        self.buf.b.switch_to(header);
        self.buf.loops.push(LoopCtx {
            expr: e,
            break_block: exit,
            continue_block: header,
            dest: Dest::Ignore,
        });
        let c = self.operand(cond);
        let c = self.expect_reg(c, ScalarTy::Bool);
        self.buf.b.terminate(Terminator::Branch {
            cond: c,
            then_block: body_block,
            else_block: exit,
        });
        self.buf.b.switch_to(body_block);
        self.expr(body, Dest::Ignore);
        self.buf.loops.pop();
        self.buf.b.goto(header);
        self.buf.b.switch_to(exit);
    }

    /// `for binding in start..end` / `..=end`. The counter is a fresh register (the body
    /// may reassign a `mut` binding); the range is evaluated once. An exclusive range
    /// runs while `counter < end`; an inclusive one checks `start <= end` once, then
    /// leaves after the body when `counter == end`, before incrementing, so that
    /// `..=MAX` ends without overflowing.
    fn for_expr(
        &mut self,
        e: TExprId,
        binding: crate::sema::thir::LocalId,
        start: TExprId,
        end: TExprId,
        inclusive: bool,
        body: TExprId,
    ) {
        let Repr::Scalar(s) = self.repr(self.ty(start)) else {
            // An ill-typed range: evaluate what is there and stop.
            self.expr(start, Dest::Ignore);
            self.expr(end, Dest::Ignore);
            self.buf.b.diverge(Terminator::Unreachable);
            return;
        };
        let counter = self.buf.b.new_vreg(s);
        self.lower_into(start, Dest::Reg(counter));
        // The body may assign to a local named as the end: read it now.
        let end_val = self.operand(end);
        let mut end_v = self.expect_reg(end_val, s);
        if end_val.is_place() {
            end_v = self.copy_reg(end_v);
        }
        let cmp = if inclusive {
            crate::ir::IrBinOp::Le
        } else {
            crate::ir::IrBinOp::Lt
        };
        let exit = self.buf.b.new_block();
        let latch = self.buf.b.new_block();
        let body_block;
        let header;
        if inclusive {
            let c = self.binary_inst(cmp, ScalarTy::Bool, counter, end_v, None);
            body_block = self.buf.b.new_block();
            header = body_block;
            self.buf.b.terminate(Terminator::Branch {
                cond: c,
                then_block: body_block,
                else_block: exit,
            });
            self.buf.b.switch_to(body_block);
        } else {
            header = self.buf.b.new_block();
            self.buf.b.goto(header);
            self.buf.b.switch_to(header);
            let c = self.binary_inst(cmp, ScalarTy::Bool, counter, end_v, None);
            body_block = self.buf.b.new_block();
            self.buf.b.terminate(Terminator::Branch {
                cond: c,
                then_block: body_block,
                else_block: exit,
            });
            self.buf.b.switch_to(body_block);
        }
        if let Storage::Reg(bind) = self.local_storage(binding) {
            self.buf.b.emit(crate::ir::Inst::Copy {
                dst: bind,
                src: counter,
            });
        }
        self.buf.loops.push(LoopCtx {
            expr: e,
            break_block: exit,
            continue_block: latch,
            dest: Dest::Ignore,
        });
        self.expr(body, Dest::Ignore);
        self.buf.loops.pop();
        self.buf.b.goto(latch);
        self.buf.b.switch_to(latch);
        if inclusive {
            let done =
                self.binary_inst(crate::ir::IrBinOp::Eq, ScalarTy::Bool, counter, end_v, None);
            let incr = self.buf.b.new_block();
            self.buf.b.terminate(Terminator::Branch {
                cond: done,
                then_block: exit,
                else_block: incr,
            });
            self.buf.b.switch_to(incr);
        }
        let one = self.buf.b.const_reg(s, 1);
        self.buf.b.emit(crate::ir::Inst::Binary {
            op: crate::ir::IrBinOp::Add,
            dst: counter,
            lhs: counter,
            rhs: one,
        });
        self.buf.b.goto(header);
        self.buf.b.switch_to(exit);
    }

    fn find_loop(&self, target: TExprId) -> Option<usize> {
        self.buf.loops.iter().rposition(|l| l.expr == target)
    }

    fn break_expr(&mut self, target: TExprId, value: Option<TExprId>) {
        let Some(i) = self.find_loop(target) else {
            if let Some(v) = value {
                self.expr(v, Dest::Ignore);
            }
            self.buf.b.diverge(Terminator::Unreachable);
            return;
        };
        let (dest, exit) = (self.buf.loops[i].dest, self.buf.loops[i].break_block);
        if let Some(v) = value {
            self.lower_into(v, dest);
        }
        self.buf.b.diverge(Terminator::Jump(exit));
    }

    fn continue_expr(&mut self, target: TExprId) {
        let term = match self.find_loop(target) {
            Some(i) => Terminator::Jump(self.buf.loops[i].continue_block),
            None => Terminator::Unreachable,
        };
        self.buf.b.diverge(term);
    }

    fn return_expr(&mut self, value: Option<TExprId>) {
        let ret_ty = &self.thir.ret;
        let term = match (self.repr(ret_ty), value) {
            (Repr::Scalar(s), Some(v)) => {
                let r = self.operand(v);
                Terminator::Return(Some(self.expect_reg(r, s)))
            }
            (Repr::Mem(_), Some(v)) => {
                let dest = Mem::addr(self.sret.unwrap_or(VReg(0)));
                self.lower_into(v, Dest::Mem(dest));
                Terminator::Return(None)
            }
            (Repr::None, Some(v)) => {
                self.expr(v, Dest::Ignore);
                Terminator::Return(None)
            }
            (Repr::None, None) => Terminator::Return(None),
            (_, None) => Terminator::Unreachable,
        };
        self.buf.b.diverge(term);
    }
}

/// Whether evaluating an expression may assign to a local (it contains `=` or `op=`),
/// computed on demand for the subtrees lowering asks about, and memoized. Walks with an
/// explicit stack.
#[derive(Default)]
struct AssignInfo {
    /// 0: not computed, 1: no, 2: yes.
    known: Vec<u8>,
    stack: Vec<(TExprId, bool)>,
    children: Vec<TExprId>,
}

impl AssignInfo {
    /// Forgets everything, for a body of `n` expressions.
    fn reset(&mut self, n: usize) {
        self.known.clear();
        self.known.resize(n, 0);
    }

    fn get(&mut self, thir: &Thir, e: TExprId) -> bool {
        let n = self.known.len();
        let Some(&k) = self.known.get(e.0 as usize) else {
            return true;
        };
        if k != 0 {
            return k == 2;
        }
        self.stack.clear();
        self.stack.push((e, false));
        while let Some((x, expanded)) = self.stack.pop() {
            let i = x.0 as usize;
            if self.known[i] != 0 {
                continue;
            }
            let kind = &thir.exprs[i].kind;
            if matches!(kind, TExprKind::Assign { .. } | TExprKind::AssignOp { .. }) {
                self.known[i] = 2;
                continue;
            }
            self.children.clear();
            expr_children(kind, &thir.lists, &mut self.children);
            if expanded {
                // Children are done (or, in a malformed cyclic body, counted as "no").
                let any = self
                    .children
                    .iter()
                    .any(|c| matches!(self.known.get(c.0 as usize), None | Some(&2)));
                self.known[i] = 1 + any as u8;
            } else {
                self.stack.push((x, true));
                for &c in &self.children {
                    if (c.0 as usize) < n && self.known[c.0 as usize] == 0 {
                        self.stack.push((c, false));
                    }
                }
            }
        }
        self.known[e.0 as usize] == 2
    }
}

/// The direct subexpressions of an expression (statements' expressions included).
fn expr_children(kind: &TExprKind, lists: &TLists, out: &mut Vec<TExprId>) {
    match kind {
        TExprKind::Int(_)
        | TExprKind::Bool(_)
        | TExprKind::Unit
        | TExprKind::Local(_)
        | TExprKind::ConstRef(_)
        | TExprKind::Continue { .. }
        | TExprKind::Error => {}
        TExprKind::Unary(_, x) | TExprKind::Cast { source: x, .. } | TExprKind::NeverToAny(x) => {
            out.push(*x)
        }
        TExprKind::Field { base, .. } => out.push(*base),
        TExprKind::Loop { body } => out.push(*body),
        TExprKind::Repeat { value, .. } => out.push(*value),
        TExprKind::Binary(_, a, b)
        | TExprKind::LogicalAnd(a, b)
        | TExprKind::LogicalOr(a, b)
        | TExprKind::Assign { place: a, value: b }
        | TExprKind::AssignOp {
            place: a, value: b, ..
        }
        | TExprKind::Index { base: a, index: b }
        | TExprKind::While { cond: a, body: b } => out.extend([*a, *b]),
        TExprKind::Call { args, .. } | TExprKind::Array(args) | TExprKind::Println { args, .. } => {
            out.extend_from_slice(lists.exprs(*args))
        }
        TExprKind::StructLit { fields, .. } => {
            out.extend(lists.fields(*fields).iter().map(|f| f.1))
        }
        TExprKind::Block { stmts, tail } => {
            for s in lists.stmts(*stmts) {
                match s {
                    TStmt::Let { init, .. } | TStmt::Expr(init) => out.push(*init),
                }
            }
            out.extend(*tail);
        }
        TExprKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            out.extend([*cond, *then_branch]);
            out.extend(*else_branch);
        }
        TExprKind::For {
            start, end, body, ..
        } => out.extend([*start, *end, *body]),
        TExprKind::Break { value, .. } => out.extend(*value),
        TExprKind::Return(value) => out.extend(*value),
    }
}
