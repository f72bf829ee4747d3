//! Checks that a function is well-formed enough to compile: register, block, slot and data
//! indices in range and operand types that the instruction selection relies on. A
//! malformed function compiles to code that ends the run with an internal error.
//!
//! The check is also the first walk of the analysis: as it looks at each register
//! operand it counts the register's definitions and uses, and it notes every constant
//! (see [`RegFacts`]), so the analysis does not walk the instructions a second time for
//! them.

use shared_frontend::ir::builder::is_comparison;
use shared_frontend::ir::interp::scalar::canon;
use shared_frontend::ir::{
    BlockId, Inst, IrBinOp, IrFunction, IrUnOp, PrintArg, ScalarTy, Terminator, VReg,
};

use super::analysis::RegFacts;

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

/// The largest frame (slots) a function may have.
pub(crate) const MAX_FRAME: u64 = 1 << 30;

/// Register operands, checked and counted.
struct Regs {
    facts: Vec<RegFacts>,
}

/// A register index out of range (the common error, kept small so that the checks of
/// well-formed operands stay cheap).
struct RegOutOfRange(u32);

impl From<RegOutOfRange> for String {
    fn from(e: RegOutOfRange) -> String {
        format!("register %{} out of range", e.0)
    }
}

impl Regs {
    #[inline]
    fn get(&mut self, v: VReg) -> Result<&mut RegFacts, RegOutOfRange> {
        self.facts.get_mut(v.0 as usize).ok_or(RegOutOfRange(v.0))
    }

    /// A register written.
    #[inline]
    fn def(&mut self, v: VReg) -> Result<ScalarTy, RegOutOfRange> {
        let r = self.get(v)?;
        r.defs = r.defs.saturating_add(1);
        Ok(r.ty)
    }

    /// A register read.
    #[inline]
    fn read(&mut self, v: VReg) -> Result<ScalarTy, RegOutOfRange> {
        let r = self.get(v)?;
        r.uses = r.uses.saturating_add(1);
        Ok(r.ty)
    }

    fn addr(t: ScalarTy, v: VReg) -> Result<(), String> {
        if class(t) != ScalarTy::U64 {
            return Err(format!("address %{} of type {t:?}", v.0));
        }
        Ok(())
    }

    /// A register written with an address.
    #[inline]
    fn def_addr(&mut self, v: VReg) -> Result<(), String> {
        let t = self.def(v)?;
        Self::addr(t, v)
    }

    /// A register read as an address.
    #[inline]
    fn read_addr(&mut self, v: VReg) -> Result<(), String> {
        let t = self.read(v)?;
        Self::addr(t, v)
    }
}

/// Checks `f`; on success, returns the counts of every register's definitions (a
/// parameter counts as one) and uses over all blocks, and its constant if a `Const`
/// defines it.
/// `facts` is a buffer to fill (its contents do not matter).
pub(crate) fn validate(f: &IrFunction, mut facts: Vec<RegFacts>) -> Result<Vec<RegFacts>, String> {
    let n = f.vregs.len();
    if f.blocks.is_empty() {
        return Err("no blocks".to_string());
    }
    if n >= (u32::MAX / 4) as usize || f.blocks.len() >= (u32::MAX / 4) as usize {
        return Err("function too large".to_string());
    }
    facts.clear();
    facts.extend(f.vregs.iter().map(|&ty| RegFacts::new(ty)));
    let mut regs = Regs { facts };
    for &p in &f.params {
        let r = regs.get(p)?;
        r.defs += 1;
        if r.defs > 1 {
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
    let block = |b: BlockId| -> Result<(), String> {
        if (b.0 as usize) < nb {
            Ok(())
        } else {
            Err(format!("block {} out of range", b.0))
        }
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        let ctx = |e: String| format!("block {bi}: {e}");
        for (i, inst) in b.insts.iter().enumerate() {
            check_inst(f, inst, &mut regs).map_err(ctx)?;
            if let Inst::Const { dst, value } = *inst {
                let r = &mut regs.facts[dst.0 as usize];
                let ty = r.ty;
                r.constant = canon(ty, value);
                r.has_constant = true;
                r.copied_next = matches!(
                    b.insts.get(i + 1),
                    Some(&Inst::Copy { dst: c, src })
                        if src == dst && c != dst && f.vregs.get(c.0 as usize) == Some(&ty)
                );
            }
        }
        match b.term {
            Terminator::Jump(t) => block(t).map_err(ctx)?,
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                regs.read(cond).map_err(|e| ctx(e.into()))?;
                block(then_block).map_err(ctx)?;
                block(else_block).map_err(ctx)?;
            }
            Terminator::Return(v) => match (v, f.ret) {
                (None, None) => {}
                (Some(v), Some(t))
                    if class(regs.read(v).map_err(|e| ctx(e.into()))?) == class(t) => {}
                (v, t) => return Err(ctx(format!("Return({v:?}) in a function returning {t:?}"))),
            },
            Terminator::Panic(shared_frontend::ir::PanicKind::IndexOutOfBounds {
                index, ..
            }) => {
                regs.read(index).map_err(|e| ctx(e.into()))?;
            }
            Terminator::Panic(_) | Terminator::Unreachable => {}
        }
    }
    Ok(regs.facts)
}

fn check_inst(f: &IrFunction, inst: &Inst, regs: &mut Regs) -> Result<(), String> {
    match *inst {
        Inst::Const { dst, .. } => {
            regs.def(dst)?;
        }
        Inst::Copy { dst, src } | Inst::Cast { dst, src } => {
            regs.def(dst)?;
            regs.read(src)?;
        }
        Inst::Unary { op, dst, src } => {
            let (d, s) = (regs.def(dst)?, regs.read(src)?);
            if class(d) != class(s) || (op == IrUnOp::Neg && s == ScalarTy::Bool) {
                return Err(format!("{op:?} of {s:?} into {d:?}"));
            }
        }
        Inst::Binary { op, dst, lhs, rhs } => {
            let (d, lt, rt) = (regs.def(dst)?, regs.read(lhs)?, regs.read(rhs)?);
            let shift = matches!(op, IrBinOp::Shl | IrBinOp::Shr);
            if !shift && class(lt) != class(rt) {
                return Err(format!("{op:?} of {lt:?} and {rt:?}"));
            }
            let want = if is_comparison(op) {
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
            regs.def_addr(dst)?;
            if slot.0 as usize >= f.slots.len() {
                return Err(format!("slot {} out of range", slot.0));
            }
        }
        Inst::DataAddr { dst, data } => {
            regs.def_addr(dst)?;
            if data.0 as usize >= f.data.len() {
                return Err(format!("data {} out of range", data.0));
            }
        }
        Inst::Load { dst, addr, .. } => {
            regs.def(dst)?;
            regs.read_addr(addr)?;
        }
        Inst::Store { addr, src, .. } => {
            regs.read_addr(addr)?;
            regs.read(src)?;
        }
        Inst::ElemAddr {
            dst, base, index, ..
        } => {
            regs.def_addr(dst)?;
            regs.read_addr(base)?;
            if !is_wide(regs.read(index)?) {
                return Err(format!("ElemAddr index of type {:?}", f.ty(index)));
            }
        }
        Inst::MemCopy { dst, src, .. } => {
            regs.read_addr(dst)?;
            regs.read_addr(src)?;
        }
        Inst::Call(ref call) => {
            let (dst, args) = (call.dst, &call.args);
            if let Some(d) = dst {
                regs.def(d)?;
            }
            for &a in args {
                regs.read(a)?;
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
                regs.read(v)?;
            }
        },
    }
    Ok(())
}
