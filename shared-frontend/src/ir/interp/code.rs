//! Translation of an [`IrProgram`] into the interpreter's flat code: one array of
//! fixed-size, type-specialized operations for all functions, with callees resolved to
//! function indices, blocks to code offsets, slots to frame offsets and data blobs to
//! addresses. The IR is validated on the way (register indices, types, arities), so the
//! execution loop never has to: malformed IR becomes an error here, never a host panic.

use rustc_hash::FxHashMap;

use super::scalar::canon;
use crate::ir::{
    CallInst, Inst, IrBinOp, IrFunction, IrProgram, IrUnOp, PanicKind, PrintArg, ScalarTy,
    Terminator, VReg,
};

/// "No register" in `dst`/`src` fields.
pub(super) const NONE: u32 = u32::MAX;
/// Addresses below this are never valid (a null guard).
pub(super) const DATA_BASE: u64 = 4096;

/// One operation. Register operands are indices relative to the frame's register base.
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    Const {
        dst: u32,
        val: u64,
    },
    Copy {
        dst: u32,
        src: u32,
    },
    Add32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Add64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Sub32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Sub64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Mul32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Mul64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    DivS32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    DivS64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    DivU64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    RemS32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    RemS64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    RemU64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    And {
        dst: u32,
        a: u32,
        b: u32,
    },
    Or {
        dst: u32,
        a: u32,
        b: u32,
    },
    Xor {
        dst: u32,
        a: u32,
        b: u32,
    },
    Shl32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Shl64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    ShrS32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    ShrS64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    ShrU64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    Eq {
        dst: u32,
        a: u32,
        b: u32,
    },
    Ne {
        dst: u32,
        a: u32,
        b: u32,
    },
    LtS {
        dst: u32,
        a: u32,
        b: u32,
    },
    LeS {
        dst: u32,
        a: u32,
        b: u32,
    },
    LtU {
        dst: u32,
        a: u32,
        b: u32,
    },
    LeU {
        dst: u32,
        a: u32,
        b: u32,
    },
    Neg32 {
        dst: u32,
        src: u32,
    },
    Neg64 {
        dst: u32,
        src: u32,
    },
    /// Bitwise not (canonical `I32` stays canonical).
    Not {
        dst: u32,
        src: u32,
    },
    NotBool {
        dst: u32,
        src: u32,
    },
    /// Truncation to `I32` (sign-extending its low 32 bits).
    ToI32 {
        dst: u32,
        src: u32,
    },
    ToBool {
        dst: u32,
        src: u32,
    },
    SlotAddr {
        dst: u32,
        off: u32,
    },
    Load8 {
        dst: u32,
        addr: u32,
        off: u32,
    },
    Load32 {
        dst: u32,
        addr: u32,
        off: u32,
    },
    Load64 {
        dst: u32,
        addr: u32,
        off: u32,
    },
    Store8 {
        addr: u32,
        off: u32,
        src: u32,
    },
    Store32 {
        addr: u32,
        off: u32,
        src: u32,
    },
    Store64 {
        addr: u32,
        off: u32,
        src: u32,
    },
    /// `dst = base + index * scale`, the scale in the following [`Op::Scale`].
    ElemAddr {
        dst: u32,
        base: u32,
        index: u32,
    },
    Scale(u32),
    MemCopy {
        dst: u32,
        src: u32,
        size: u32,
    },
    /// `args` indexes [`Code::call_args`], holding the callee's parameter count of
    /// caller registers.
    Call {
        dst: u32,
        func: u32,
        args: u32,
    },
    /// Bytes `start..start + len` of memory (a data blob).
    PrintStr {
        start: u32,
        len: u32,
    },
    PrintI {
        src: u32,
    },
    PrintU {
        src: u32,
    },
    PrintBool {
        src: u32,
    },
    Jump {
        target: u32,
    },
    Branch {
        cond: u32,
        then_pc: u32,
        else_pc: u32,
    },
    Return {
        src: u32,
    },
    Panic {
        panic: u32,
    },
    /// Executing this is an internal error: `msg` indexes [`Code::traps`].
    Trap {
        msg: u32,
    },
}

pub(super) struct Func {
    pub entry_pc: u32,
    pub nregs: u32,
    pub frame_size: u64,
    pub frame_align: u64,
    /// Parameter registers: `Code::params[params..params + nparams]`.
    pub params: u32,
    pub nparams: u32,
    pub name: String,
}

pub(super) struct PanicSite {
    pub kind: PanicKind,
    /// The index register (for `IndexOutOfBounds`) and whether it prints signed.
    pub index: u32,
    pub index_signed: bool,
}

pub(super) struct Code {
    pub ops: Vec<Op>,
    /// Fuel charged on entering the block starting at each op (0 elsewhere): its
    /// instructions plus its terminator.
    pub entry_cost: Vec<u32>,
    pub funcs: Vec<Func>,
    pub call_args: Vec<u32>,
    pub params: Vec<u32>,
    pub panics: Vec<PanicSite>,
    pub traps: Vec<String>,
    /// The read-only data of all functions, to be mapped at [`DATA_BASE`].
    pub data: Vec<u8>,
    pub main: u32,
}

/// Register classes that share a machine representation.
fn class(ty: ScalarTy) -> ScalarTy {
    match ty {
        ScalarTy::Ptr => ScalarTy::U64,
        t => t,
    }
}

fn is_wide(ty: ScalarTy) -> bool {
    matches!(ty, ScalarTy::I64 | ScalarTy::U64 | ScalarTy::Ptr)
}

/// Translates the whole program, or says why it is malformed.
pub(super) fn translate(program: &IrProgram) -> Result<Code, String> {
    let mut index: FxHashMap<_, u32> = FxHashMap::default();
    for (i, f) in program.functions.iter().enumerate() {
        if index.insert(f.def, i as u32).is_some() {
            return Err(format!("two functions with def-id {}", f.def));
        }
    }
    let main = *index
        .get(&program.main)
        .ok_or_else(|| format!("no main function {}", program.main))?;
    let main_fn = &program.functions[main as usize];
    if !main_fn.params.is_empty() {
        return Err(format!("{}: main takes parameters", main_fn.name));
    }
    if program.functions.len() >= u32::MAX as usize {
        return Err("too many functions".to_string());
    }

    // Lay out the data blobs of every function.
    let mut data = Vec::new();
    let mut data_addrs: Vec<Vec<u64>> = Vec::with_capacity(program.functions.len());
    for f in &program.functions {
        let mut addrs = Vec::with_capacity(f.data.len());
        for blob in &f.data {
            while data.len() % 16 != 0 {
                data.push(0);
            }
            addrs.push(DATA_BASE + data.len() as u64);
            data.extend_from_slice(blob);
        }
        data_addrs.push(addrs);
    }
    if DATA_BASE + data.len() as u64 + 16 > u32::MAX as u64 {
        return Err("read-only data larger than 4 GiB".to_string());
    }

    let mut code = Code {
        ops: Vec::new(),
        entry_cost: Vec::new(),
        funcs: Vec::with_capacity(program.functions.len()),
        call_args: Vec::new(),
        params: Vec::new(),
        panics: Vec::new(),
        traps: Vec::new(),
        data,
        main,
    };
    // Function headers first: calls need the callees' parameter counts.
    let mut slot_offsets = Vec::with_capacity(program.functions.len());
    for f in &program.functions {
        let nregs = f.vregs.len();
        if nregs >= NONE as usize {
            return Err(format!("{}: too many registers", f.name));
        }
        let (frame_size, frame_align, offsets) = layout_frame(f)?;
        slot_offsets.push(offsets);
        let params = code.params.len() as u32;
        for &p in &f.params {
            code.params.push(reg(f, p)?);
        }
        if f.sret && f.params.first().map(|&p| class(f.ty(p))) != Some(ScalarTy::U64) {
            return Err(format!("{}: sret without an address parameter", f.name));
        }
        code.funcs.push(Func {
            entry_pc: 0,
            nregs: nregs as u32,
            frame_size,
            frame_align,
            params,
            nparams: f.params.len() as u32,
            name: f.name.clone(),
        });
    }
    for (i, f) in program.functions.iter().enumerate() {
        let entry = Translator {
            f,
            code: &mut code,
            index: &index,
            program,
            slot_offsets: &slot_offsets[i],
            data_addrs: &data_addrs[i],
        }
        .function()?;
        code.funcs[i].entry_pc = entry;
    }
    if code.ops.len() >= u32::MAX as usize {
        return Err("program too large".to_string());
    }
    Ok(code)
}

/// Slot offsets within the frame, the frame's size and alignment.
fn layout_frame(f: &IrFunction) -> Result<(u64, u64, Vec<u64>), String> {
    let mut size = 0u64;
    let mut align = 16u64;
    let mut offsets = Vec::with_capacity(f.slots.len());
    for s in &f.slots {
        let a = s.align.max(1) as u64;
        if !a.is_power_of_two() || a > 4096 {
            return Err(format!("{}: bad slot alignment {}", f.name, s.align));
        }
        align = align.max(a);
        size = size.div_ceil(a) * a;
        offsets.push(size);
        size += s.size as u64;
    }
    if size >= u32::MAX as u64 {
        return Err(format!("{}: frame larger than 4 GiB", f.name));
    }
    Ok((size.div_ceil(16) * 16, align, offsets))
}

fn reg(f: &IrFunction, r: VReg) -> Result<u32, String> {
    if (r.0 as usize) < f.vregs.len() {
        Ok(r.0)
    } else {
        Err(format!("{}: register %{} out of range", f.name, r.0))
    }
}

struct Translator<'a> {
    f: &'a IrFunction,
    code: &'a mut Code,
    index: &'a FxHashMap<crate::sema::def::DefId, u32>,
    program: &'a IrProgram,
    slot_offsets: &'a [u64],
    data_addrs: &'a [u64],
}

impl Translator<'_> {
    fn function(mut self) -> Result<u32, String> {
        let f = self.f;
        if f.blocks.is_empty() {
            return Err(format!("{}: no blocks", f.name));
        }
        // Pass 1: block start offsets (every instruction is one op, except ElemAddr: two).
        let mut starts = Vec::with_capacity(f.blocks.len());
        let mut pc = self.code.ops.len();
        for b in &f.blocks {
            starts.push(pc as u32);
            for inst in &b.insts {
                pc += if matches!(inst, Inst::ElemAddr { .. }) {
                    2
                } else {
                    1
                };
            }
            pc += 1;
        }
        if pc >= u32::MAX as usize {
            return Err("program too large".to_string());
        }
        let entry = starts[0];
        for (bi, b) in f.blocks.iter().enumerate() {
            let cost = (b.insts.len() as u64 + 1).min(u32::MAX as u64) as u32;
            let start = self.code.ops.len();
            debug_assert_eq!(start as u32, starts[bi]);
            for inst in &b.insts {
                self.inst(inst)
                    .map_err(|e| format!("{}: block {bi}: {e}", f.name))?;
            }
            self.term(&b.term, &starts, bi)
                .map_err(|e| format!("{}: block {bi}: {e}", f.name))?;
            self.code.entry_cost.resize(self.code.ops.len(), 0);
            self.code.entry_cost[start] = cost;
        }
        Ok(entry)
    }

    fn r(&self, r: VReg) -> Result<u32, String> {
        if (r.0 as usize) < self.f.vregs.len() {
            Ok(r.0)
        } else {
            Err(format!("register %{} out of range", r.0))
        }
    }

    fn ty(&self, r: VReg) -> ScalarTy {
        self.f.vregs[r.0 as usize]
    }

    fn emit(&mut self, op: Op) {
        self.code.ops.push(op);
    }

    fn trap(&mut self, msg: String) {
        let msg_idx = self.code.traps.len() as u32;
        self.code.traps.push(format!("{}: {msg}", self.f.name));
        self.emit(Op::Trap { msg: msg_idx });
    }

    /// An op writing `canon(dst_ty, src)`.
    fn convert(&self, dst: VReg, src: VReg) -> Op {
        let (d, s) = (dst.0, src.0);
        let (dt, st) = (self.ty(dst), self.ty(src));
        match dt {
            ScalarTy::I32 if st == ScalarTy::I32 || st == ScalarTy::Bool => {
                Op::Copy { dst: d, src: s }
            }
            ScalarTy::I32 => Op::ToI32 { dst: d, src: s },
            ScalarTy::Bool if st == ScalarTy::Bool => Op::Copy { dst: d, src: s },
            ScalarTy::Bool => Op::ToBool { dst: d, src: s },
            _ => Op::Copy { dst: d, src: s },
        }
    }

    fn inst(&mut self, inst: &Inst) -> Result<(), String> {
        match *inst {
            Inst::Const { dst, value } => {
                let d = self.r(dst)?;
                let val = canon(self.ty(dst), value);
                self.emit(Op::Const { dst: d, val });
            }
            Inst::Copy { dst, src } | Inst::Cast { dst, src } => {
                self.r(dst)?;
                self.r(src)?;
                let op = self.convert(dst, src);
                self.emit(op);
            }
            Inst::Unary { op, dst, src } => {
                let (d, s) = (self.r(dst)?, self.r(src)?);
                let ty = self.ty(src);
                if class(self.ty(dst)) != class(ty) {
                    return Err(format!("{op:?} of {ty:?} into {:?}", self.ty(dst)));
                }
                self.emit(match (op, ty) {
                    (IrUnOp::Not, ScalarTy::Bool) => Op::NotBool { dst: d, src: s },
                    (IrUnOp::Not, _) => Op::Not { dst: d, src: s },
                    (IrUnOp::Neg, ScalarTy::I32) => Op::Neg32 { dst: d, src: s },
                    (IrUnOp::Neg, ScalarTy::Bool) => return Err("Neg of Bool".to_string()),
                    (IrUnOp::Neg, _) => Op::Neg64 { dst: d, src: s },
                });
            }
            Inst::Binary { op, dst, lhs, rhs } => {
                let (d, a, b) = (self.r(dst)?, self.r(lhs)?, self.r(rhs)?);
                let op = self.binary(op, self.ty(dst), self.ty(lhs), self.ty(rhs), d, a, b)?;
                self.emit(op);
            }
            Inst::SlotAddr { dst, slot } => {
                let d = self.ptr_reg(dst)?;
                let off = *self
                    .slot_offsets
                    .get(slot.0 as usize)
                    .ok_or_else(|| format!("slot {} out of range", slot.0))?;
                self.emit(Op::SlotAddr {
                    dst: d,
                    off: off as u32,
                });
            }
            Inst::DataAddr { dst, data } => {
                let d = self.ptr_reg(dst)?;
                let val = *self
                    .data_addrs
                    .get(data.0 as usize)
                    .ok_or_else(|| format!("data {} out of range", data.0))?;
                self.emit(Op::Const { dst: d, val });
            }
            Inst::Load { dst, addr, offset } => {
                let (d, a) = (self.r(dst)?, self.ptr_reg(addr)?);
                self.emit(match self.ty(dst) {
                    ScalarTy::Bool => Op::Load8 {
                        dst: d,
                        addr: a,
                        off: offset,
                    },
                    ScalarTy::I32 => Op::Load32 {
                        dst: d,
                        addr: a,
                        off: offset,
                    },
                    _ => Op::Load64 {
                        dst: d,
                        addr: a,
                        off: offset,
                    },
                });
            }
            Inst::Store { addr, offset, src } => {
                let (a, s) = (self.ptr_reg(addr)?, self.r(src)?);
                self.emit(match self.ty(src) {
                    ScalarTy::Bool => Op::Store8 {
                        addr: a,
                        off: offset,
                        src: s,
                    },
                    ScalarTy::I32 => Op::Store32 {
                        addr: a,
                        off: offset,
                        src: s,
                    },
                    _ => Op::Store64 {
                        addr: a,
                        off: offset,
                        src: s,
                    },
                });
            }
            Inst::ElemAddr {
                dst,
                base,
                index,
                scale,
            } => {
                let (d, b) = (self.ptr_reg(dst)?, self.ptr_reg(base)?);
                let i = self.r(index)?;
                if !is_wide(self.ty(index)) {
                    return Err(format!("ElemAddr index of type {:?}", self.ty(index)));
                }
                self.emit(Op::ElemAddr {
                    dst: d,
                    base: b,
                    index: i,
                });
                self.emit(Op::Scale(scale));
            }
            Inst::MemCopy { dst, src, size } => {
                let (d, s) = (self.ptr_reg(dst)?, self.ptr_reg(src)?);
                self.emit(Op::MemCopy {
                    dst: d,
                    src: s,
                    size,
                });
            }
            Inst::Call(ref call) => self.call(call)?,
            Inst::Print(ref arg) => self.print(arg)?,
        }
        Ok(())
    }

    /// Translates a call, checking its arguments and result against the callee's
    /// signature; a call of a function not in the program becomes a trap.
    fn call(&mut self, call: &CallInst) -> Result<(), String> {
        let CallInst {
            dst,
            callee,
            ref args,
        } = *call;
        let d = match dst {
            Some(d) => self.r(d)?,
            None => NONE,
        };
        for &a in args {
            self.r(a)?;
        }
        let Some(&func) = self.index.get(&callee) else {
            self.trap(format!("call of unknown function {callee}"));
            return Ok(());
        };
        let g = &self.program.functions[func as usize];
        if g.params.len() != args.len() {
            return Err(format!(
                "call of {} with {} arguments, expected {}",
                g.name,
                args.len(),
                g.params.len()
            ));
        }
        for (&a, &p) in args.iter().zip(&g.params) {
            if class(self.ty(a)) != class(g.ty(p)) {
                return Err(format!(
                    "call of {}: argument %{} of type {:?} for a parameter of type {:?}",
                    g.name,
                    a.0,
                    self.ty(a),
                    g.ty(p)
                ));
            }
        }
        match (dst, g.ret) {
            (None, None) => {}
            (Some(d), Some(t)) if class(self.ty(d)) == class(t) => {}
            _ => {
                return Err(format!(
                    "call of {} returning {:?} into {:?}",
                    g.name,
                    g.ret,
                    dst.map(|d| self.ty(d))
                ))
            }
        }
        let args_idx = self.code.call_args.len() as u32;
        self.code.call_args.extend(args.iter().map(|a| a.0));
        self.emit(Op::Call {
            dst: d,
            func,
            args: args_idx,
        });
        Ok(())
    }

    /// Translates one `println!` piece.
    fn print(&mut self, arg: &PrintArg) -> Result<(), String> {
        match *arg {
            PrintArg::Str(data) => {
                let start = *self
                    .data_addrs
                    .get(data.0 as usize)
                    .ok_or_else(|| format!("data {} out of range", data.0))?;
                let len = self.f.data[data.0 as usize].len() as u32;
                self.emit(Op::PrintStr {
                    start: start as u32,
                    len,
                });
            }
            PrintArg::Int(r) => {
                let s = self.r(r)?;
                self.emit(if self.ty(r).is_signed() {
                    Op::PrintI { src: s }
                } else {
                    Op::PrintU { src: s }
                });
            }
            PrintArg::Bool(r) => {
                let s = self.r(r)?;
                self.emit(Op::PrintBool { src: s });
            }
        }
        Ok(())
    }

    fn ptr_reg(&self, r: VReg) -> Result<u32, String> {
        let i = self.r(r)?;
        if class(self.ty(r)) != ScalarTy::U64 {
            return Err(format!("address %{} of type {:?}", r.0, self.ty(r)));
        }
        Ok(i)
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &self,
        op: IrBinOp,
        dt: ScalarTy,
        lt: ScalarTy,
        rt: ScalarTy,
        dst: u32,
        a: u32,
        b: u32,
    ) -> Result<Op, String> {
        use IrBinOp::*;
        let is_shift = matches!(op, Shl | Shr);
        let is_cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge);
        if !is_shift && class(lt) != class(rt) {
            return Err(format!("{op:?} of {lt:?} and {rt:?}"));
        }
        let want = if is_cmp { ScalarTy::Bool } else { class(lt) };
        if class(dt) != want {
            return Err(format!("{op:?} of {lt:?} into {dt:?}"));
        }
        let arith = matches!(op, Add | Sub | Mul | Div | Rem | Shl | Shr);
        if arith && lt == ScalarTy::Bool {
            return Err(format!("{op:?} of Bool"));
        }
        let narrow = lt == ScalarTy::I32;
        let signed = lt.is_signed();
        Ok(match op {
            Add if narrow => Op::Add32 { dst, a, b },
            Add => Op::Add64 { dst, a, b },
            Sub if narrow => Op::Sub32 { dst, a, b },
            Sub => Op::Sub64 { dst, a, b },
            Mul if narrow => Op::Mul32 { dst, a, b },
            Mul => Op::Mul64 { dst, a, b },
            Div if narrow => Op::DivS32 { dst, a, b },
            Div if signed => Op::DivS64 { dst, a, b },
            Div => Op::DivU64 { dst, a, b },
            Rem if narrow => Op::RemS32 { dst, a, b },
            Rem if signed => Op::RemS64 { dst, a, b },
            Rem => Op::RemU64 { dst, a, b },
            And => Op::And { dst, a, b },
            Or => Op::Or { dst, a, b },
            Xor => Op::Xor { dst, a, b },
            Shl if narrow => Op::Shl32 { dst, a, b },
            Shl => Op::Shl64 { dst, a, b },
            Shr if narrow => Op::ShrS32 { dst, a, b },
            Shr if signed => Op::ShrS64 { dst, a, b },
            Shr => Op::ShrU64 { dst, a, b },
            Eq => Op::Eq { dst, a, b },
            Ne => Op::Ne { dst, a, b },
            Lt if signed => Op::LtS { dst, a, b },
            Lt => Op::LtU { dst, a, b },
            Le if signed => Op::LeS { dst, a, b },
            Le => Op::LeU { dst, a, b },
            Gt if signed => Op::LtS { dst, a: b, b: a },
            Gt => Op::LtU { dst, a: b, b: a },
            Ge if signed => Op::LeS { dst, a: b, b: a },
            Ge => Op::LeU { dst, a: b, b: a },
        })
    }

    fn term(&mut self, term: &Terminator, starts: &[u32], bi: usize) -> Result<(), String> {
        let target = |b: crate::ir::BlockId| -> Result<u32, String> {
            starts
                .get(b.0 as usize)
                .copied()
                .ok_or_else(|| format!("block {} out of range", b.0))
        };
        match *term {
            Terminator::Jump(b) => {
                let t = target(b)?;
                self.emit(Op::Jump { target: t });
            }
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                let c = self.r(cond)?;
                let (t, e) = (target(then_block)?, target(else_block)?);
                self.emit(Op::Branch {
                    cond: c,
                    then_pc: t,
                    else_pc: e,
                });
            }
            Terminator::Return(v) => {
                let src = match (v, self.f.ret) {
                    (None, None) => NONE,
                    (Some(v), Some(t)) => {
                        let s = self.r(v)?;
                        if class(self.ty(v)) != class(t) {
                            return Err(format!(
                                "returns {:?} from a function returning {t:?}",
                                self.ty(v)
                            ));
                        }
                        s
                    }
                    (v, t) => return Err(format!("Return({v:?}) in a function returning {t:?}")),
                };
                self.emit(Op::Return { src });
            }
            Terminator::Panic(kind) => {
                let (index, index_signed) = match kind {
                    PanicKind::IndexOutOfBounds { index, .. } => {
                        (self.r(index)?, self.ty(index).is_signed())
                    }
                    _ => (NONE, false),
                };
                let panic = self.code.panics.len() as u32;
                self.code.panics.push(PanicSite {
                    kind,
                    index,
                    index_signed,
                });
                self.emit(Op::Panic { panic });
            }
            Terminator::Unreachable => {
                self.trap(format!("block {bi}: reached Unreachable"));
            }
        }
        Ok(())
    }
}
