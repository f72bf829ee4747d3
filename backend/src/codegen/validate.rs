//! Checks that a function is well-formed enough to compile: register, block, slot and data
//! indices in range and operand types that the instruction selection relies on. A
//! malformed function compiles to code that ends the run with an internal error.

use shared_frontend::ir::{
    Inst, IrBinOp, IrFunction, IrUnOp, PrintArg, ScalarTy, Terminator, VReg,
};

/// Register classes sharing a machine representation.
pub(crate) fn class(ty: ScalarTy) -> ScalarTy {
    match ty {
        ScalarTy::Ptr => ScalarTy::U64,
        t => t,
    }
}

pub(crate) fn is_wide(ty: ScalarTy) -> bool {
    matches!(ty, ScalarTy::I64 | ScalarTy::U64 | ScalarTy::Ptr)
}

pub(crate) fn is_cmp(op: IrBinOp) -> bool {
    matches!(
        op,
        IrBinOp::Eq | IrBinOp::Ne | IrBinOp::Lt | IrBinOp::Le | IrBinOp::Gt | IrBinOp::Ge
    )
}

/// The largest frame (slots) a function may have.
pub(crate) const MAX_FRAME: u64 = 1 << 30;

pub(crate) fn validate(f: &IrFunction) -> Result<(), String> {
    let n = f.vregs.len();
    if f.blocks.is_empty() {
        return Err("no blocks".to_string());
    }
    if n >= (u32::MAX / 4) as usize || f.blocks.len() >= (u32::MAX / 4) as usize {
        return Err("function too large".to_string());
    }
    let r = |v: VReg| -> Result<ScalarTy, String> {
        f.vregs
            .get(v.0 as usize)
            .copied()
            .ok_or_else(|| format!("register %{} out of range", v.0))
    };
    let ptr = |v: VReg| -> Result<(), String> {
        let t = r(v)?;
        if class(t) != ScalarTy::U64 {
            return Err(format!("address %{} of type {t:?}", v.0));
        }
        Ok(())
    };
    let mut seen = vec![false; n];
    for &p in &f.params {
        r(p)?;
        if std::mem::replace(&mut seen[p.0 as usize], true) {
            return Err(format!("parameter %{} twice", p.0));
        }
    }
    if f.sret && f.params.first().map(|&p| class(f.ty(p))) != Some(ScalarTy::U64) {
        return Err("sret without an address parameter".to_string());
    }
    let mut frame = 0u64;
    for s in &f.slots {
        if s.align > 4096 {
            return Err(format!("bad slot alignment {}", s.align));
        }
        frame += s.size as u64 + s.align as u64;
    }
    if frame > MAX_FRAME {
        return Err("frame larger than 1 GiB".to_string());
    }
    let nb = f.blocks.len();
    let block = |b: shared_frontend::ir::BlockId| -> Result<(), String> {
        if (b.0 as usize) < nb {
            Ok(())
        } else {
            Err(format!("block {} out of range", b.0))
        }
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        let ctx = |e: String| format!("block {bi}: {e}");
        for inst in &b.insts {
            check_inst(f, inst, &r, &ptr).map_err(ctx)?;
        }
        match b.term {
            Terminator::Jump(t) => block(t).map_err(ctx)?,
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                r(cond).map_err(ctx)?;
                block(then_block).map_err(ctx)?;
                block(else_block).map_err(ctx)?;
            }
            Terminator::Return(v) => match (v, f.ret) {
                (None, None) => {}
                (Some(v), Some(t)) if class(r(v).map_err(ctx)?) == class(t) => {}
                (v, t) => return Err(ctx(format!("Return({v:?}) in a function returning {t:?}"))),
            },
            Terminator::Panic(shared_frontend::ir::PanicKind::IndexOutOfBounds {
                index, ..
            }) => {
                r(index).map_err(ctx)?;
            }
            Terminator::Panic(_) | Terminator::Unreachable => {}
        }
    }
    Ok(())
}

fn check_inst(
    f: &IrFunction,
    inst: &Inst,
    r: &dyn Fn(VReg) -> Result<ScalarTy, String>,
    ptr: &dyn Fn(VReg) -> Result<(), String>,
) -> Result<(), String> {
    match *inst {
        Inst::Const { dst, .. } => {
            r(dst)?;
        }
        Inst::Copy { dst, src } | Inst::Cast { dst, src } => {
            r(dst)?;
            r(src)?;
        }
        Inst::Unary { op, dst, src } => {
            let (d, s) = (r(dst)?, r(src)?);
            if class(d) != class(s) || (op == IrUnOp::Neg && s == ScalarTy::Bool) {
                return Err(format!("{op:?} of {s:?} into {d:?}"));
            }
        }
        Inst::Binary { op, dst, lhs, rhs } => {
            let (d, lt, rt) = (r(dst)?, r(lhs)?, r(rhs)?);
            let shift = matches!(op, IrBinOp::Shl | IrBinOp::Shr);
            if !shift && class(lt) != class(rt) {
                return Err(format!("{op:?} of {lt:?} and {rt:?}"));
            }
            let want = if is_cmp(op) {
                ScalarTy::Bool
            } else {
                class(lt)
            };
            if class(d) != want {
                return Err(format!("{op:?} of {lt:?} into {d:?}"));
            }
            let arith = matches!(
                op,
                IrBinOp::Add
                    | IrBinOp::Sub
                    | IrBinOp::Mul
                    | IrBinOp::Div
                    | IrBinOp::Rem
                    | IrBinOp::Shl
                    | IrBinOp::Shr
            );
            if arith && (lt == ScalarTy::Bool || (shift && rt == ScalarTy::Bool)) {
                return Err(format!("{op:?} of Bool"));
            }
        }
        Inst::SlotAddr { dst, slot } => {
            ptr(dst)?;
            if slot.0 as usize >= f.slots.len() {
                return Err(format!("slot {} out of range", slot.0));
            }
        }
        Inst::DataAddr { dst, data } => {
            ptr(dst)?;
            if data.0 as usize >= f.data.len() {
                return Err(format!("data {} out of range", data.0));
            }
        }
        Inst::Load { dst, addr, .. } => {
            r(dst)?;
            ptr(addr)?;
        }
        Inst::Store { addr, src, .. } => {
            ptr(addr)?;
            r(src)?;
        }
        Inst::ElemAddr {
            dst, base, index, ..
        } => {
            ptr(dst)?;
            ptr(base)?;
            if !is_wide(r(index)?) {
                return Err(format!("ElemAddr index of type {:?}", f.ty(index)));
            }
        }
        Inst::MemCopy { dst, src, .. } => {
            ptr(dst)?;
            ptr(src)?;
        }
        Inst::Call { dst, ref args, .. } => {
            if let Some(d) = dst {
                r(d)?;
            }
            for &a in args {
                r(a)?;
            }
            if args.len() > 1 << 16 {
                return Err("too many arguments".to_string());
            }
        }
        Inst::Print(ref arg) => match *arg {
            PrintArg::Str(d) => {
                if d.0 as usize >= f.data.len() {
                    return Err(format!("data {} out of range", d.0));
                }
            }
            PrintArg::Int(v) | PrintArg::Bool(v) => {
                r(v)?;
            }
        },
    }
    Ok(())
}
