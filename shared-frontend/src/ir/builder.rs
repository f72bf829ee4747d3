//! A small builder for hand-written IR, for tests of the optimizer, the interpreter and the
//! backend: new registers get their type on creation, so results of operations are typed
//! the way lowering types them.
//!
//! ```
//! use shared_frontend::ir::builder::{fn_def_id, program, FunctionBuilder};
//! use shared_frontend::ir::{IrBinOp, ScalarTy};
//! let mut b = FunctionBuilder::new("main");
//! let x = b.iconst(ScalarTy::I32, 40);
//! let y = b.iconst(ScalarTy::I32, 2);
//! let s = b.binary(IrBinOp::Add, x, y);
//! b.print_int(s);
//! b.print_str("\n");
//! b.ret(None);
//! let p = program(vec![b.finish()], fn_def_id("main"));
//! assert_eq!(p.functions.len(), 1);
//! ```

use std::sync::Arc;

use crate::intern::Symbol;
use crate::ir::{
    BasicBlock, BlockId, CallInst, DataId, Inst, IrBinOp, IrFunction, IrProgram, IrUnOp, PanicKind,
    PrintArg, ScalarTy, Slot, SlotId, Terminator, VReg,
};
use crate::sema::def::{DefId, DefPath, DefPathSegment, Namespace};

/// The def-path hash of a function `crate::name` (`name` may contain `::`).
pub fn fn_def_id(name: &str) -> DefId {
    let mut path = DefPath::root();
    let mut segments = name.split("::").peekable();
    while let Some(seg) = segments.next() {
        let ns = if segments.peek().is_some() {
            Namespace::Type
        } else {
            Namespace::Value
        };
        path = path.child(DefPathSegment {
            ns,
            name: Symbol::intern(seg),
            disambiguator: 0,
        });
    }
    path.hash()
}

/// A program of the given functions whose entry point is `main`.
pub fn program(functions: Vec<IrFunction>, main: DefId) -> IrProgram {
    IrProgram {
        functions: functions.into_iter().map(Arc::new).collect(),
        main,
    }
}

/// Builds one [`IrFunction`]; instructions go to the current block (initially block 0, the
/// entry). New blocks end in [`Terminator::Unreachable`] until terminated.
pub struct FunctionBuilder {
    f: IrFunction,
    current: BlockId,
}

impl FunctionBuilder {
    /// A function named `crate::name`, with def-id [`fn_def_id`]`(name)`, returning nothing.
    pub fn new(name: &str) -> FunctionBuilder {
        FunctionBuilder {
            f: IrFunction {
                def: fn_def_id(name),
                name: format!("crate::{name}"),
                params: Vec::new(),
                sret: false,
                ret: None,
                vregs: Vec::new(),
                slots: Vec::new(),
                data: Vec::new(),
                blocks: vec![BasicBlock {
                    insts: Vec::new(),
                    term: Terminator::Unreachable,
                }],
            },
            current: BlockId(0),
        }
    }

    pub fn def(&self) -> DefId {
        self.f.def
    }

    /// Sets the scalar return type.
    pub fn returns(&mut self, ty: Option<ScalarTy>) -> &mut Self {
        self.f.ret = ty;
        self
    }

    /// Makes the function `sret` and returns its result-address parameter (call first).
    pub fn sret(&mut self) -> VReg {
        self.f.sret = true;
        self.f.ret = None;
        let r = self.reg(ScalarTy::Ptr);
        self.f.params.insert(0, r);
        r
    }

    pub fn param(&mut self, ty: ScalarTy) -> VReg {
        let r = self.reg(ty);
        self.f.params.push(r);
        r
    }

    /// A fresh register.
    pub fn reg(&mut self, ty: ScalarTy) -> VReg {
        self.f.vregs.push(ty);
        VReg(self.f.vregs.len() as u32 - 1)
    }

    pub fn ty(&self, r: VReg) -> ScalarTy {
        self.f.vregs[r.0 as usize]
    }

    pub fn slot(&mut self, size: u32, align: u32) -> SlotId {
        self.f.slots.push(Slot { size, align });
        SlotId(self.f.slots.len() as u32 - 1)
    }

    pub fn data(&mut self, bytes: &[u8]) -> DataId {
        self.f.data.push(Arc::from(bytes));
        DataId(self.f.data.len() as u32 - 1)
    }

    /// A new empty block (does not switch to it).
    pub fn block(&mut self) -> BlockId {
        self.f.blocks.push(BasicBlock {
            insts: Vec::new(),
            term: Terminator::Unreachable,
        });
        BlockId(self.f.blocks.len() as u32 - 1)
    }

    pub fn switch_to(&mut self, b: BlockId) {
        self.current = b;
    }

    pub fn current(&self) -> BlockId {
        self.current
    }

    pub fn push(&mut self, inst: Inst) {
        self.f.blocks[self.current.0 as usize].insts.push(inst);
    }

    pub fn terminate(&mut self, term: Terminator) {
        self.f.blocks[self.current.0 as usize].term = term;
    }

    // ---- instructions producing a fresh register ----

    pub fn iconst(&mut self, ty: ScalarTy, value: u64) -> VReg {
        let dst = self.reg(ty);
        self.push(Inst::Const { dst, value });
        dst
    }

    /// A signed constant (`value`'s two's complement bits).
    pub fn sconst(&mut self, ty: ScalarTy, value: i64) -> VReg {
        self.iconst(ty, value as u64)
    }

    pub fn bconst(&mut self, value: bool) -> VReg {
        self.iconst(ScalarTy::Bool, value as u64)
    }

    pub fn copy(&mut self, src: VReg) -> VReg {
        let dst = self.reg(self.ty(src));
        self.push(Inst::Copy { dst, src });
        dst
    }

    pub fn unary(&mut self, op: IrUnOp, src: VReg) -> VReg {
        let dst = self.reg(self.ty(src));
        self.push(Inst::Unary { op, dst, src });
        dst
    }

    /// The result has `lhs`'s type, or `Bool` for comparisons.
    pub fn binary(&mut self, op: IrBinOp, lhs: VReg, rhs: VReg) -> VReg {
        let ty = if is_comparison(op) {
            ScalarTy::Bool
        } else {
            self.ty(lhs)
        };
        let dst = self.reg(ty);
        self.push(Inst::Binary { op, dst, lhs, rhs });
        dst
    }

    pub fn cast(&mut self, src: VReg, ty: ScalarTy) -> VReg {
        let dst = self.reg(ty);
        self.push(Inst::Cast { dst, src });
        dst
    }

    pub fn slot_addr(&mut self, slot: SlotId) -> VReg {
        let dst = self.reg(ScalarTy::Ptr);
        self.push(Inst::SlotAddr { dst, slot });
        dst
    }

    pub fn data_addr(&mut self, data: DataId) -> VReg {
        let dst = self.reg(ScalarTy::Ptr);
        self.push(Inst::DataAddr { dst, data });
        dst
    }

    pub fn load(&mut self, ty: ScalarTy, addr: VReg, offset: u32) -> VReg {
        let dst = self.reg(ty);
        self.push(Inst::Load { dst, addr, offset });
        dst
    }

    pub fn elem_addr(&mut self, base: VReg, index: VReg, scale: u32) -> VReg {
        let dst = self.reg(ScalarTy::Ptr);
        self.push(Inst::ElemAddr {
            dst,
            base,
            index,
            scale,
        });
        dst
    }

    /// A call; `ret` is the callee's scalar return type (`None` for `()` and `sret`).
    pub fn call(&mut self, callee: DefId, args: &[VReg], ret: Option<ScalarTy>) -> Option<VReg> {
        let dst = ret.map(|ty| self.reg(ty));
        self.push(Inst::Call(Box::new(CallInst {
            dst,
            callee,
            args: args.to_vec(),
        })));
        dst
    }

    // ---- instructions assigning existing registers ----

    pub fn assign_const(&mut self, dst: VReg, value: u64) {
        self.push(Inst::Const { dst, value });
    }

    pub fn assign(&mut self, dst: VReg, src: VReg) {
        self.push(Inst::Copy { dst, src });
    }

    pub fn assign_binary(&mut self, op: IrBinOp, dst: VReg, lhs: VReg, rhs: VReg) {
        self.push(Inst::Binary { op, dst, lhs, rhs });
    }

    pub fn store(&mut self, addr: VReg, offset: u32, src: VReg) {
        self.push(Inst::Store { addr, offset, src });
    }

    pub fn mem_copy(&mut self, dst: VReg, src: VReg, size: u32) {
        self.push(Inst::MemCopy { dst, src, size });
    }

    pub fn print_str(&mut self, text: &str) {
        let d = self.data(text.as_bytes());
        self.push(Inst::Print(PrintArg::Str(d)));
    }

    pub fn print_int(&mut self, r: VReg) {
        self.push(Inst::Print(PrintArg::Int(r)));
    }

    pub fn print_bool(&mut self, r: VReg) {
        self.push(Inst::Print(PrintArg::Bool(r)));
    }

    // ---- terminators ----

    pub fn jump(&mut self, target: BlockId) {
        self.terminate(Terminator::Jump(target));
    }

    pub fn branch(&mut self, cond: VReg, then_block: BlockId, else_block: BlockId) {
        self.terminate(Terminator::Branch {
            cond,
            then_block,
            else_block,
        });
    }

    pub fn ret(&mut self, value: Option<VReg>) {
        self.terminate(Terminator::Return(value));
    }

    pub fn panic(&mut self, kind: PanicKind) {
        self.terminate(Terminator::Panic(kind));
    }

    // ---- checked operations, shaped as lowering emits them ----

    /// `lhs / rhs` or `lhs % rhs` with the explicit checks (zero divisor, and `MIN / -1`
    /// for signed types) branching to panic blocks; continues in a new block.
    pub fn checked_div(&mut self, op: IrBinOp, lhs: VReg, rhs: VReg) -> VReg {
        let ty = self.ty(lhs);
        let is_div = op == IrBinOp::Div;
        let zero = self.iconst(ty, 0);
        let is_zero = self.binary(IrBinOp::Eq, rhs, zero);
        let panic_zero = self.block();
        let nonzero = self.block();
        self.branch(is_zero, panic_zero, nonzero);
        self.switch_to(panic_zero);
        self.panic(if is_div {
            PanicKind::DivByZero
        } else {
            PanicKind::RemByZero
        });
        self.switch_to(nonzero);
        if ty.is_signed() {
            let min = match ty {
                ScalarTy::I32 => i32::MIN as i64 as u64,
                _ => i64::MIN as u64,
            };
            let min = self.iconst(ty, min);
            let minus_one = self.sconst(ty, -1);
            let lhs_min = self.binary(IrBinOp::Eq, lhs, min);
            let rhs_m1 = self.binary(IrBinOp::Eq, rhs, minus_one);
            let overflow = self.binary(IrBinOp::And, lhs_min, rhs_m1);
            let panic_overflow = self.block();
            let ok = self.block();
            self.branch(overflow, panic_overflow, ok);
            self.switch_to(panic_overflow);
            self.panic(if is_div {
                PanicKind::DivOverflow
            } else {
                PanicKind::RemOverflow
            });
            self.switch_to(ok);
        }
        self.binary(op, lhs, rhs)
    }

    /// `index < len` or a panic; continues in a new block.
    pub fn bounds_check(&mut self, index: VReg, len: u64) {
        let len_reg = self.iconst(ScalarTy::U64, len);
        let ok = self.binary(IrBinOp::Lt, index, len_reg);
        let in_bounds = self.block();
        let out = self.block();
        self.branch(ok, in_bounds, out);
        self.switch_to(out);
        self.panic(PanicKind::IndexOutOfBounds { index, len });
        self.switch_to(in_bounds);
    }

    pub fn finish(self) -> IrFunction {
        self.f
    }
}

pub fn is_comparison(op: IrBinOp) -> bool {
    matches!(
        op,
        IrBinOp::Eq | IrBinOp::Ne | IrBinOp::Lt | IrBinOp::Le | IrBinOp::Gt | IrBinOp::Ge
    )
}
