//! Lowering of expressions: operands, places, operators, calls and aggregates.

use std::sync::Arc;

use crate::ir::{CallInst, Inst, IrBinOp, IrUnOp, PanicKind, PrintArg, ScalarTy, Terminator, VReg};
use crate::sema::def::DefId;
use crate::sema::thir::{CastFrom, TExprId, TExprKind};
use crate::sema::ty::{IntTy, Ty};
use crate::syntax::ast::{BinOp, FmtPiece, UnOp};

use super::{Base, Dest, Lowerer, Mem, Repr, Storage, Value};

/// Arrays of at most this many elements are filled by `[e; N]` with one store per
/// element; longer ones with a loop.
const MAX_UNROLLED_REPEAT: u64 = 8;

fn ir_binop(op: BinOp) -> IrBinOp {
    match op {
        BinOp::Add => IrBinOp::Add,
        BinOp::Sub => IrBinOp::Sub,
        BinOp::Mul => IrBinOp::Mul,
        BinOp::Div => IrBinOp::Div,
        BinOp::Rem => IrBinOp::Rem,
        BinOp::BitAnd | BinOp::And => IrBinOp::And,
        BinOp::BitOr | BinOp::Or => IrBinOp::Or,
        BinOp::BitXor => IrBinOp::Xor,
        BinOp::Shl => IrBinOp::Shl,
        BinOp::Shr => IrBinOp::Shr,
        BinOp::Eq => IrBinOp::Eq,
        BinOp::Ne => IrBinOp::Ne,
        BinOp::Lt => IrBinOp::Lt,
        BinOp::Le => IrBinOp::Le,
        BinOp::Gt => IrBinOp::Gt,
        BinOp::Ge => IrBinOp::Ge,
    }
}

impl<'a> Lowerer<'a> {
    /// Whether evaluating any of `es` may assign to a local.
    fn any_assigns(&mut self, es: &[TExprId]) -> bool {
        es.iter().any(|&e| self.assigns(e))
    }

    /// Evaluates `e` for its value, wherever it is.
    pub(super) fn operand(&mut self, e: TExprId) -> Value {
        self.expr(e, Dest::Any)
    }

    /// Evaluates `e`. With `Dest::Reg`/`Dest::Mem` the result may be built directly in
    /// the destination (the returned value then is the destination), or not: callers
    /// that need it there use [`Lowerer::into_dest`].
    pub(super) fn expr(&mut self, e: TExprId, dest: Dest) -> Value {
        let thir = self.thir;
        let expr = &thir[e];
        let ty = thir.ty_of(expr);
        match &expr.kind {
            TExprKind::Int(bits) => self.constant(ty, bits.get(), dest),
            TExprKind::Bool(b) => self.constant(ty, *b as u64, dest),
            TExprKind::Unit => Value::None,
            TExprKind::Local(l) => match self.local_storage(*l) {
                Storage::Reg(v) => Value::Reg { v, place: true },
                Storage::Slot(s) => Value::Mem {
                    mem: Mem::slot(s),
                    place: true,
                },
                Storage::Addr(a) => Value::Mem {
                    mem: Mem::addr(a),
                    place: true,
                },
                Storage::None | Storage::Unassigned => Value::None,
            },
            TExprKind::ConstRef(def) => self.const_ref(thir.def(*def), ty, dest),
            TExprKind::Unary(op, x) => self.unary(*op, *x, ty, dest),
            TExprKind::Binary(..) => self.binary_chain(e, dest),
            TExprKind::LogicalAnd(a, b) => self.logical(true, *a, *b, dest),
            TExprKind::LogicalOr(a, b) => self.logical(false, *a, *b, dest),
            TExprKind::Assign { place, value } => {
                self.assign(*place, *value);
                Value::None
            }
            TExprKind::AssignOp { op, place, value } => {
                self.assign_op(*op, *place, *value);
                Value::None
            }
            TExprKind::Cast { source, from, to } => self.cast(*source, *from, *to, dest),
            TExprKind::Call { callee, args } => {
                self.call(thir.def(*callee), self.thir.expr_list(*args), ty, dest)
            }
            TExprKind::Field { .. } | TExprKind::Index { .. } => {
                let p = self.place(e);
                self.read(p, ty, dest)
            }
            TExprKind::StructLit { def, fields } => {
                self.struct_lit(thir.def(*def), self.thir.fields(*fields), ty, dest)
            }
            TExprKind::Array(elems) => self.array(self.thir.expr_list(*elems), ty, dest),
            TExprKind::Repeat { value, count } => self.repeat(*value, count.get(), ty, dest),
            TExprKind::Block { stmts, tail } => self.block(self.thir.stmts(*stmts), *tail, dest),
            TExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => self.if_expr(e, *cond, *then_branch, *else_branch, dest),
            TExprKind::Loop { body } => self.loop_expr(e, *body, dest),
            TExprKind::While { cond, body } => {
                self.while_expr(e, *cond, *body);
                Value::None
            }
            TExprKind::For {
                binding,
                start,
                end,
                inclusive,
                body,
            } => {
                self.for_expr(e, *binding, *start, *end, *inclusive, *body);
                Value::None
            }
            TExprKind::Break { target, value } => {
                self.break_expr(*target, *value);
                Value::None
            }
            TExprKind::Continue { target } => {
                self.continue_expr(*target);
                Value::None
            }
            TExprKind::Return(value) => {
                self.return_expr(*value);
                Value::None
            }
            TExprKind::Println { pieces, args } => {
                self.println(thir.lists.pieces(*pieces), self.thir.expr_list(*args));
                Value::None
            }
            TExprKind::NeverToAny(x) => {
                self.expr(*x, Dest::Ignore);
                if self.buf.b.live {
                    self.buf.b.diverge(Terminator::Unreachable);
                }
                self.dummy(ty)
            }
            TExprKind::Error => {
                self.buf.b.diverge(Terminator::Unreachable);
                self.dummy(ty)
            }
        }
    }

    /// The register for a scalar result: the destination's, or a fresh one.
    fn dst_reg(&mut self, dest: Dest, s: ScalarTy) -> VReg {
        match dest {
            Dest::Reg(r) if self.buf.b.vreg_ty(r) == s => r,
            _ => self.buf.b.new_vreg(s),
        }
    }

    pub(super) fn copy_reg(&mut self, src: VReg) -> VReg {
        let dst = self.buf.b.new_vreg(self.buf.b.vreg_ty(src));
        self.buf.b.emit(Inst::Copy { dst, src });
        dst
    }

    /// Copies a value that is still a local's storage, so that later assignments do not
    /// change it.
    pub(super) fn stabilize(&mut self, v: Value, ty: &Ty) -> Value {
        match v {
            Value::Reg { v, place: true } => Value::reg(self.copy_reg(v)),
            Value::Mem { mem, place: true } => match self.repr(ty) {
                Repr::Mem(l) => {
                    let tmp = self.temp_slot(l);
                    self.mem_copy(tmp, mem, l.size);
                    Value::mem(tmp)
                }
                Repr::None | Repr::Scalar(_) => v,
            },
            other => other,
        }
    }

    /// The value of an integer or `bool` literal (a negated integer literal included).
    fn literal(&self, e: TExprId) -> Option<u64> {
        let thir = self.thir;
        match &thir[e].kind {
            TExprKind::Int(bits) => Some(bits.get()),
            TExprKind::Bool(b) => Some(*b as u64),
            TExprKind::Unary(UnOp::Neg, x) => match (&thir[*x].kind, thir.ty(e)) {
                (TExprKind::Int(bits), Ty::Int(it)) => {
                    Some(it.normalize(bits.get().wrapping_neg()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn constant(&mut self, ty: &Ty, bits: u64, dest: Dest) -> Value {
        let Repr::Scalar(s) = self.repr(ty) else {
            return Value::None;
        };
        match dest {
            Dest::Ignore => Value::None,
            Dest::Reg(r) if self.buf.b.vreg_ty(r) == s => {
                self.buf.b.emit(Inst::Const {
                    dst: r,
                    value: bits,
                });
                Value::reg(r)
            }
            _ => Value::reg(self.buf.b.const_reg(s, bits)),
        }
    }

    fn const_ref(&mut self, def: DefId, ty: &Ty, dest: Dest) -> Value {
        let Ok(value) = self.env.const_value(def) else {
            self.buf.b.diverge(Terminator::Unreachable);
            return self.dummy(ty);
        };
        match self.repr(ty) {
            Repr::None => Value::None,
            Repr::Scalar(_) => {
                let bits = match &*value {
                    crate::sema::ty::ConstValue::Int(_, bits) => *bits,
                    crate::sema::ty::ConstValue::Bool(b) => *b as u64,
                    _ => {
                        self.buf.b.diverge(Terminator::Unreachable);
                        return self.dummy(ty);
                    }
                };
                self.constant(ty, bits, dest)
            }
            Repr::Mem(l) => {
                let data = match self.buf.const_data.get(&def) {
                    Some(&d) => d,
                    None => {
                        let bytes = self.const_bytes(ty, &value, l.size);
                        let d = self.buf.b.data(&bytes);
                        self.buf.const_data.insert(def, d);
                        d
                    }
                };
                Value::mem(Mem {
                    base: Base::Data(data),
                    offset: 0,
                })
            }
        }
    }

    fn unary(&mut self, op: UnOp, x: TExprId, ty: &Ty, dest: Dest) -> Value {
        let Repr::Scalar(s) = self.repr(ty) else {
            self.expr(x, Dest::Ignore);
            return Value::None;
        };
        if let Some(bits) = self.literal(x) {
            let folded = match (op, ty) {
                (UnOp::Neg, Ty::Int(it)) => Some(it.normalize(bits.wrapping_neg())),
                (UnOp::Not, Ty::Int(it)) => Some(it.normalize(!bits)),
                (UnOp::Not, Ty::Bool) => Some((bits == 0) as u64),
                _ => None,
            };
            if let Some(v) = folded {
                return self.constant(ty, v, dest);
            }
        }
        let v = self.operand(x);
        let src = self.expect_reg(v, s);
        let dst = self.dst_reg(dest, s);
        let op = match op {
            UnOp::Neg => IrUnOp::Neg,
            UnOp::Not => IrUnOp::Not,
        };
        self.buf.b.emit(Inst::Unary { op, dst, src });
        Value::reg(dst)
    }

    /// A chain of binary operators. Left-nested chains (`a + b + c + …`, as long as the
    /// source) are walked with a loop, not recursion.
    fn binary_chain(&mut self, e: TExprId, dest: Dest) -> Value {
        let thir = self.thir;
        // The chain's nodes go on the shared scratch stack above `base`; nested chains
        // (in right operands) push above them and truncate back before returning.
        let base = self.buf.scratch.len();
        let mut cur = e;
        while let TExprKind::Binary(_, l, _) = &thir[cur].kind {
            self.buf.scratch.push(cur);
            cur = *l;
        }
        let mut acc = self.operand(cur);
        for k in (base..self.buf.scratch.len()).rev() {
            let node = self.buf.scratch[k];
            let TExprKind::Binary(op, l, r) = &thir[node].kind else {
                continue;
            };
            let node_dest = if node == e { dest } else { Dest::Any };
            acc = self.binary(*op, *l, *r, acc, thir.ty(node), node_dest);
        }
        self.buf.scratch.truncate(base);
        acc
    }

    /// `lhs op r`, where `lhs` is the value of expression `l`, already evaluated.
    fn binary(
        &mut self,
        op: BinOp,
        l: TExprId,
        r: TExprId,
        lhs: Value,
        ty: &Ty,
        dest: Dest,
    ) -> Value {
        let Repr::Scalar(s) = self.repr(self.ty(l)) else {
            // `()` operands (only comparisons typecheck): the result is known.
            self.expr(r, Dest::Ignore);
            let v = matches!(op, BinOp::Eq | BinOp::Le | BinOp::Ge) as u64;
            return self.constant(ty, v, dest);
        };
        let mut a = self.expect_reg(lhs, s);
        if lhs.is_place() && self.assigns(r) {
            a = self.copy_reg(a);
        }
        let rs = match self.repr(self.ty(r)) {
            Repr::Scalar(rs) => rs,
            Repr::None | Repr::Mem(_) => s,
        };
        let rv = self.operand(r);
        let b = self.expect_reg(rv, rs);
        let result = if op.is_comparison() {
            ScalarTy::Bool
        } else {
            s
        };
        let dst = self.dst_reg(dest, result);
        let lits = (self.literal(l), self.literal(r));
        self.arith(op, s, a, b, dst, lits);
        Value::reg(dst)
    }

    /// `dst = a op b` on operand type `s`, with the division checks.
    fn arith(
        &mut self,
        op: BinOp,
        s: ScalarTy,
        a: VReg,
        b: VReg,
        dst: VReg,
        lits: (Option<u64>, Option<u64>),
    ) {
        match op {
            BinOp::Div => self.div_checks(false, s, a, b, lits),
            BinOp::Rem => self.div_checks(true, s, a, b, lits),
            _ => {}
        }
        self.buf.b.emit(Inst::Binary {
            op: ir_binop(op),
            dst,
            lhs: a,
            rhs: b,
        });
    }

    /// Panics unless `b != 0`, and for signed types unless `!(a == MIN && b == -1)`, in
    /// rustc's order. Checks that literal operands make unnecessary are left out.
    fn div_checks(
        &mut self,
        rem: bool,
        s: ScalarTy,
        a: VReg,
        b: VReg,
        (lhs_lit, rhs_lit): (Option<u64>, Option<u64>),
    ) {
        if !matches!(rhs_lit, Some(n) if n != 0) {
            let zero = self.buf.b.const_reg(s, 0);
            let ok = self.binary_inst(IrBinOp::Ne, ScalarTy::Bool, b, zero, None);
            let kind = if rem {
                PanicKind::RemByZero
            } else {
                PanicKind::DivByZero
            };
            self.buf.b.check(ok, kind);
        }
        if s.is_signed() {
            // Canonical bits: sign-extended to 64 bits.
            let minus_one = u64::MAX;
            let min = match s {
                ScalarTy::I32 => i32::MIN as i64 as u64,
                _ => i64::MIN as u64,
            };
            let safe = matches!(rhs_lit, Some(n) if n != minus_one)
                || matches!(lhs_lit, Some(n) if n != min);
            if !safe {
                let b_ok = (rhs_lit != Some(minus_one)).then(|| {
                    let m1 = self.buf.b.const_reg(s, minus_one);
                    self.binary_inst(IrBinOp::Ne, ScalarTy::Bool, b, m1, None)
                });
                let a_ok = (lhs_lit != Some(min)).then(|| {
                    let min = self.buf.b.const_reg(s, min);
                    self.binary_inst(IrBinOp::Ne, ScalarTy::Bool, a, min, None)
                });
                let ok = match (b_ok, a_ok) {
                    (Some(b_ok), Some(a_ok)) => {
                        self.binary_inst(IrBinOp::Or, ScalarTy::Bool, b_ok, a_ok, None)
                    }
                    (Some(ok), None) | (None, Some(ok)) => ok,
                    // `MIN / -1` written out: always panics.
                    (None, None) => self.buf.b.const_reg(ScalarTy::Bool, 0),
                };
                let kind = if rem {
                    PanicKind::RemOverflow
                } else {
                    PanicKind::DivOverflow
                };
                self.buf.b.check(ok, kind);
            }
        }
    }

    pub(super) fn binary_inst(
        &mut self,
        op: IrBinOp,
        result: ScalarTy,
        lhs: VReg,
        rhs: VReg,
        dst: Option<VReg>,
    ) -> VReg {
        let dst = dst.unwrap_or_else(|| self.buf.b.new_vreg(result));
        self.buf.b.emit(Inst::Binary { op, dst, lhs, rhs });
        dst
    }

    /// `a && b` / `a || b`: `b` is evaluated only when `a` does not decide.
    fn logical(&mut self, and: bool, a: TExprId, b: TExprId, dest: Dest) -> Value {
        let r = self.dst_reg(dest, ScalarTy::Bool);
        self.lower_into(a, Dest::Reg(r));
        let rhs_block = self.buf.b.new_block();
        let join = self.buf.b.new_block();
        let (then_block, else_block) = if and {
            (rhs_block, join)
        } else {
            (join, rhs_block)
        };
        self.buf.b.terminate(Terminator::Branch {
            cond: r,
            then_block,
            else_block,
        });
        self.buf.b.switch_to(rhs_block);
        self.lower_into(b, Dest::Reg(r));
        self.buf.b.goto(join);
        self.buf.b.switch_to(join);
        Value::reg(r)
    }

    fn cast(&mut self, source: TExprId, from: CastFrom, to: IntTy, dest: Dest) -> Value {
        let to_ty = Ty::Int(to);
        let (Some(fs), Repr::Scalar(ts)) = (super::scalar_of(&from.ty()), self.repr(&to_ty)) else {
            self.expr(source, Dest::Ignore);
            return self.dummy(&to_ty);
        };
        if let Some(bits) = self.literal(source) {
            // Canonical bits of the source (sign-extended when signed) are the source's
            // value extended to 64 bits; `normalize` truncates them to the target.
            return self.constant(&to_ty, to.normalize(bits), dest);
        }
        let v = self.operand(source);
        if fs == ts {
            return v;
        }
        let src = self.expect_reg(v, fs);
        let dst = self.dst_reg(dest, ts);
        self.buf.b.emit(Inst::Cast { dst, src });
        Value::reg(dst)
    }

    fn call(&mut self, callee: DefId, args: &'a [TExprId], ty: &Ty, dest: Dest) -> Value {
        let sig = match self.env.fn_sig(callee) {
            Ok(sig) if sig.params.len() == args.len() => sig,
            _ => {
                for &a in args {
                    self.expr(a, Dest::Ignore);
                }
                self.buf.b.diverge(Terminator::Unreachable);
                return self.dummy(ty);
            }
        };
        let mut regs = Vec::with_capacity(args.len() + 1);
        for (i, (&arg, pty)) in args.iter().zip(&sig.params).enumerate() {
            match self.repr(pty) {
                Repr::None => {
                    self.expr(arg, Dest::Ignore);
                }
                Repr::Scalar(s) => {
                    let v = self.operand(arg);
                    let mut r = self.expect_reg(v, s);
                    if v.is_place() && self.any_assigns(&args[i + 1..]) {
                        r = self.copy_reg(r);
                    }
                    regs.push(r);
                }
                Repr::Mem(l) => {
                    // The callee gets a copy of its own, which it may change.
                    let tmp = self.temp_slot(l);
                    self.lower_into(arg, Dest::Mem(tmp));
                    let addr = self.addr_of(tmp);
                    regs.push(addr);
                }
            }
        }
        let (dst, result) = match self.repr(&sig.ret) {
            Repr::Scalar(s) => {
                let d = self.dst_reg(dest, s);
                (Some(d), Value::reg(d))
            }
            Repr::Mem(l) => {
                let m = match dest {
                    Dest::Mem(m) => m,
                    _ => self.temp_slot(l),
                };
                let addr = self.addr_of(m);
                regs.insert(0, addr);
                (None, Value::mem(m))
            }
            Repr::None => (None, Value::None),
        };
        self.buf.b.emit(Inst::Call(Box::new(CallInst {
            dst,
            callee,
            args: regs,
        })));
        result
    }

    fn struct_lit(
        &mut self,
        def: DefId,
        fields: &'a [(u32, TExprId)],
        ty: &Ty,
        dest: Dest,
    ) -> Value {
        let dest = self.concrete_dest(dest, ty);
        let layout = self.buf.layouts.struct_layout(self.env, def);
        for &(index, field) in fields {
            match dest {
                Dest::Mem(m) => {
                    let offset = layout.offsets.get(index as usize).copied().unwrap_or(0);
                    self.lower_into(field, Dest::Mem(m.plus(offset)));
                }
                _ => {
                    self.expr(field, Dest::Ignore);
                }
            }
        }
        Self::dest_value(dest)
    }

    /// The distance between the elements of an array type.
    fn elem_stride(&mut self, array_ty: &Ty) -> u64 {
        match array_ty {
            Ty::Array(elem, _) => self.buf.layouts.layout_of(self.env, elem).size,
            _ => 0,
        }
    }

    fn array(&mut self, elems: &'a [TExprId], ty: &Ty, dest: Dest) -> Value {
        let dest = self.concrete_dest(dest, ty);
        let stride = self.elem_stride(ty);
        for (k, &el) in elems.iter().enumerate() {
            match dest {
                Dest::Mem(m) => {
                    let offset = (k as u64).saturating_mul(stride);
                    self.lower_into(el, Dest::Mem(m.plus(offset)));
                }
                _ => {
                    self.expr(el, Dest::Ignore);
                }
            }
        }
        Self::dest_value(dest)
    }

    /// `[value; count]`: `value` is evaluated once (also when `count` is 0), then
    /// stored in every element.
    fn repeat(&mut self, value: TExprId, count: u64, ty: &Ty, dest: Dest) -> Value {
        let dest = self.concrete_dest(dest, ty);
        let Dest::Mem(m) = dest else {
            self.expr(value, Dest::Ignore);
            return Value::None;
        };
        let stride = self.elem_stride(ty);
        let v = self.operand(value);
        if count == 0 || stride == 0 || !self.buf.b.live {
            return Value::mem(m);
        }
        let size = u32::try_from(stride).unwrap_or(u32::MAX);
        if count <= MAX_UNROLLED_REPEAT {
            for k in 0..count {
                let at = m.plus(k * stride);
                match v {
                    Value::Reg { v, .. } => self.store(at, v),
                    Value::Mem { mem, .. } => self.mem_copy(at, mem, size),
                    Value::None => {}
                }
            }
            return Value::mem(m);
        }
        let base = self.addr_of(m);
        let src = match v {
            Value::Mem { mem, .. } => Some(self.addr_of(mem)),
            _ => None,
        };
        let i = self.buf.b.new_vreg(ScalarTy::U64);
        self.buf.b.emit(Inst::Const { dst: i, value: 0 });
        let n = self.buf.b.const_reg(ScalarTy::U64, count);
        let header = self.buf.b.new_block();
        self.buf.b.goto(header);
        self.buf.b.switch_to(header);
        let c = self.binary_inst(IrBinOp::Lt, ScalarTy::Bool, i, n, None);
        let exit = self.buf.b.branch_then(c);
        let p = self.buf.b.new_vreg(ScalarTy::Ptr);
        self.buf.b.emit(Inst::ElemAddr {
            dst: p,
            base,
            index: i,
            scale: size,
        });
        match (v, src) {
            (Value::Reg { v, .. }, _) => self.buf.b.emit(Inst::Store {
                addr: p,
                offset: 0,
                src: v,
            }),
            (_, Some(src)) => self.buf.b.emit(Inst::MemCopy { dst: p, src, size }),
            _ => {}
        }
        let one = self.buf.b.const_reg(ScalarTy::U64, 1);
        self.buf.b.emit(Inst::Binary {
            op: IrBinOp::Add,
            dst: i,
            lhs: i,
            rhs: one,
        });
        self.buf.b.goto(header);
        self.buf.b.switch_to(exit);
        Value::mem(m)
    }

    /// `println!`: every argument is evaluated first, left to right; then the text and
    /// the values are printed, adjacent text merged into one blob, the newline included.
    fn println(&mut self, pieces: &Arc<[FmtPiece]>, args: &'a [TExprId]) {
        let mut values = Vec::with_capacity(args.len());
        for (i, &arg) in args.iter().enumerate() {
            let v = self.operand(arg);
            match self.repr(self.ty(arg)) {
                Repr::Scalar(s) => {
                    let mut r = self.expect_reg(v, s);
                    if v.is_place() && self.any_assigns(&args[i + 1..]) {
                        r = self.copy_reg(r);
                    }
                    values.push(Some(if s == ScalarTy::Bool {
                        PrintArg::Bool(r)
                    } else {
                        PrintArg::Int(r)
                    }));
                }
                Repr::None | Repr::Mem(_) => values.push(None),
            }
        }
        if !self.buf.b.live {
            return;
        }
        let mut text = String::new();
        let mut holes = values.into_iter();
        for piece in pieces.iter() {
            match piece {
                FmtPiece::Text(t) => text.push_str(t),
                FmtPiece::Hole => {
                    self.print_text(&mut text);
                    if let Some(Some(arg)) = holes.next() {
                        self.buf.b.emit(Inst::Print(arg));
                    }
                }
            }
        }
        text.push('\n');
        self.print_text(&mut text);
    }

    fn print_text(&mut self, text: &mut String) {
        if !text.is_empty() {
            let data = self.buf.b.data(text.as_bytes());
            self.buf.b.emit(Inst::Print(PrintArg::Str(data)));
            text.clear();
        }
    }

    // -----------------------------------------------------------------------------------
    // Places and memory.

    /// The location `e` denotes: a local's register or memory, with field and index
    /// projections applied (indices evaluated and bounds-checked, base first). An
    /// expression that is not a place is evaluated into a temporary.
    pub(super) fn place(&mut self, e: TExprId) -> Value {
        let thir = self.thir;
        // The projections go on the shared scratch stack (see `binary_chain`).
        let scratch_base = self.buf.scratch.len();
        let mut root = e;
        while let TExprKind::Field { base, .. } | TExprKind::Index { base, .. } = &thir[root].kind {
            self.buf.scratch.push(root);
            root = *base;
        }
        // A value expression (`{a}[i]`, `f()[i]`) is a copy, taken before the index is
        // evaluated; a local is read only after it.
        let root_is_place = matches!(thir[root].kind, TExprKind::Local(_));
        let mut v = self.operand(root);
        for k in (scratch_base..self.buf.scratch.len()).rev() {
            let node = self.buf.scratch[k];
            match &thir[node].kind {
                TExprKind::Field { base, index } => {
                    v = self.field(v, self.ty(*base), *index);
                }
                TExprKind::Index { base, index } => {
                    if !root_is_place && v.is_place() && self.assigns(*index) {
                        v = self.stabilize(v, self.ty(*base));
                    }
                    v = self.index(v, self.ty(*base), *index);
                }
                _ => {}
            }
        }
        self.buf.scratch.truncate(scratch_base);
        v
    }

    fn field(&mut self, base: Value, base_ty: &Ty, index: u32) -> Value {
        match (base, base_ty) {
            (Value::Mem { mem, place }, Ty::Struct(def)) => {
                let offset = self
                    .buf
                    .layouts
                    .field_offset(self.env, *def, index as usize);
                Value::Mem {
                    mem: mem.plus(offset),
                    place,
                }
            }
            _ => Value::None,
        }
    }

    /// `base[index]`: evaluates the index, checks it against the length, and addresses
    /// the element (a literal index in bounds becomes a constant offset).
    fn index(&mut self, base: Value, base_ty: &Ty, index: TExprId) -> Value {
        let Ty::Array(_, len) = base_ty else {
            self.expr(index, Dest::Ignore);
            return Value::None;
        };
        let len = *len;
        let stride = self.elem_stride(base_ty);
        if let Some(n) = self.literal(index) {
            if n < len {
                return match base {
                    Value::Mem { mem, place } => Value::Mem {
                        mem: mem.plus(n.saturating_mul(stride)),
                        place,
                    },
                    _ => Value::None,
                };
            }
        }
        let iv = self.operand(index);
        let i = self.expect_reg(iv, ScalarTy::U64);
        let len_reg = self.buf.b.const_reg(ScalarTy::U64, len);
        let ok = self.binary_inst(IrBinOp::Lt, ScalarTy::Bool, i, len_reg, None);
        self.buf
            .b
            .check(ok, PanicKind::IndexOutOfBounds { index: i, len });
        match base {
            Value::Mem { mem, place } => {
                let base_reg = self.base_addr(mem.base);
                let dst = self.buf.b.new_vreg(ScalarTy::Ptr);
                self.buf.b.emit(Inst::ElemAddr {
                    dst,
                    base: base_reg,
                    index: i,
                    scale: u32::try_from(stride).unwrap_or(u32::MAX),
                });
                Value::Mem {
                    mem: Mem {
                        base: Base::Addr(dst),
                        offset: mem.offset,
                    },
                    place,
                }
            }
            _ => Value::None,
        }
    }

    /// Reads a place as a value: scalars in memory are loaded; aggregates stay where
    /// they are (the caller copies them as needed).
    fn read(&mut self, p: Value, ty: &Ty, dest: Dest) -> Value {
        match (self.repr(ty), p) {
            (Repr::Scalar(s), Value::Mem { mem, .. }) => {
                if dest == Dest::Ignore {
                    return Value::None;
                }
                let dst = self.dst_reg(dest, s);
                let addr = self.base_addr(mem.base);
                self.buf.b.emit(Inst::Load {
                    dst,
                    addr,
                    offset: mem.offset,
                });
                Value::reg(dst)
            }
            (Repr::None, _) => Value::None,
            (_, p) => p,
        }
    }

    pub(super) fn base_addr(&mut self, base: Base) -> VReg {
        match base {
            Base::Slot(s) => self.buf.b.slot_addr(s),
            Base::Data(d) => self.buf.b.data_addr(d),
            Base::Addr(v) => v,
        }
    }

    /// The address of a location, offset included.
    pub(super) fn addr_of(&mut self, m: Mem) -> VReg {
        let base = self.base_addr(m.base);
        if m.offset == 0 {
            return base;
        }
        let offset = self.buf.b.const_reg(ScalarTy::U64, u64::from(m.offset));
        let dst = self.buf.b.new_vreg(ScalarTy::Ptr);
        self.buf.b.emit(Inst::ElemAddr {
            dst,
            base,
            index: offset,
            scale: 1,
        });
        dst
    }

    pub(super) fn store(&mut self, m: Mem, src: VReg) {
        let addr = self.base_addr(m.base);
        self.buf.b.emit(Inst::Store {
            addr,
            offset: m.offset,
            src,
        });
    }

    pub(super) fn mem_copy(&mut self, dst: Mem, src: Mem, size: u32) {
        if size == 0 || dst == src {
            return;
        }
        let d = self.addr_of(dst);
        let s = self.addr_of(src);
        self.buf.b.emit(Inst::MemCopy {
            dst: d,
            src: s,
            size,
        });
    }

    // -----------------------------------------------------------------------------------
    // Assignments.

    /// `place = value`: the value first, then the place (its indices and their bounds
    /// checks), then the store.
    fn assign(&mut self, place: TExprId, value: TExprId) {
        let ty = self.ty(place);
        match self.repr(ty) {
            Repr::None => {
                self.expr(value, Dest::Ignore);
                self.place(place);
            }
            Repr::Scalar(s) => {
                if let TExprKind::Local(l) = self.thir[place].kind {
                    if let Storage::Reg(x) = self.local_storage(l) {
                        if self.writes_result_last(value) {
                            // `x = e` where `e` reads everything before writing its
                            // result: compute it straight into `x`.
                            self.lower_into(value, Dest::Reg(x));
                            return;
                        }
                    }
                }
                let v = self.operand(value);
                let mut r = self.expect_reg(v, s);
                if v.is_place() && self.assigns(place) {
                    r = self.copy_reg(r);
                }
                match self.place(place) {
                    Value::Reg { v: dst, .. } => {
                        if dst != r {
                            self.buf.b.emit(Inst::Copy { dst, src: r });
                        }
                    }
                    Value::Mem { mem, .. } => self.store(mem, r),
                    Value::None => {}
                }
            }
            Repr::Mem(l) => {
                let mut v = self.operand(value);
                if v.is_place() && self.assigns(place) {
                    v = self.stabilize(v, ty);
                }
                if let (Value::Mem { mem: dst, .. }, Value::Mem { mem: src, .. }) =
                    (self.place(place), v)
                {
                    self.mem_copy(dst, src, l.size);
                }
            }
        }
    }

    /// Whether `e` writes its destination register only once, after every read it makes
    /// (so the destination may be a register `e` reads). Not so for `&&`/`||`, `if` and
    /// loops, which assign their result register before they are done.
    fn writes_result_last(&self, e: TExprId) -> bool {
        matches!(
            self.thir[e].kind,
            TExprKind::Int(_)
                | TExprKind::Bool(_)
                | TExprKind::Local(_)
                | TExprKind::ConstRef(_)
                | TExprKind::Unary(..)
                | TExprKind::Binary(..)
                | TExprKind::Cast { .. }
                | TExprKind::Call { .. }
                | TExprKind::Field { .. }
                | TExprKind::Index { .. }
        )
    }

    /// `place op= value`: the value first, then the place, then read, operate, write.
    fn assign_op(&mut self, op: BinOp, place: TExprId, value: TExprId) {
        let Repr::Scalar(s) = self.repr(self.ty(place)) else {
            self.expr(value, Dest::Ignore);
            self.place(place);
            return;
        };
        let vs = match self.repr(self.ty(value)) {
            Repr::Scalar(vs) => vs,
            Repr::None | Repr::Mem(_) => s,
        };
        let v = self.operand(value);
        let mut r = self.expect_reg(v, vs);
        if v.is_place() && self.assigns(place) {
            r = self.copy_reg(r);
        }
        let lits = (None, self.literal(value));
        match self.place(place) {
            Value::Reg { v: x, .. } => self.arith(op, s, x, r, x, lits),
            Value::Mem { mem, .. } => {
                let addr = self.base_addr(mem.base);
                let old = self.buf.b.new_vreg(s);
                self.buf.b.emit(Inst::Load {
                    dst: old,
                    addr,
                    offset: mem.offset,
                });
                let new = self.buf.b.new_vreg(s);
                self.arith(op, s, old, r, new, lits);
                self.buf.b.emit(Inst::Store {
                    addr,
                    offset: mem.offset,
                    src: new,
                });
            }
            Value::None => {}
        }
    }
}
