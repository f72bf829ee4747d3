//! Instruction selection and encoding with dynasm, over the locations the allocator
//! chose. Scratch registers: `rax`, `rcx`, `rdx` (never allocated), used to materialize
//! constants and spilled operands, as the count of variable shifts (`cl`) and by
//! division (`rdx:rax`).

// dynasm's dynamic register operands (`Rq(r)`) expand to a conversion of the register
// number, which is already a `u8`.
#![allow(clippy::useless_conversion)]

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use shared_frontend::ir::builder::is_comparison;
use shared_frontend::ir::interp::scalar::canon;
use shared_frontend::ir::{
    Inst, IrBinOp, IrFunction, IrUnOp, PanicKind, PrintArg, ScalarTy, Terminator, VReg,
};

use super::analysis::{wide, Analysis, Loc, NONE};
use super::regs::*;
use crate::blob::{panic_code, ContextField, RelocTarget, Relocation, RuntimeFn};

pub(crate) type Asm = VecAssembler<X64Relocation>;

/// How much an [`Asm`] preallocates, by name (the assembler's own constructor takes these
/// as six positional counts after the base address); zero for what is not named.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AsmCapacity {
    /// Bytes of code and data.
    pub bytes: usize,
    /// Definitions of local, global and dynamic labels.
    pub local_labels: usize,
    pub global_labels: usize,
    pub dynamic_labels: usize,
    /// References to local or global labels, and to dynamic labels.
    pub static_references: usize,
    pub dynamic_references: usize,
}

impl AsmCapacity {
    /// An empty assembler based at address 0 with this much room.
    pub fn assembler(self) -> Asm {
        Asm::new_with_capacity(
            0,
            self.bytes,
            self.local_labels,
            self.global_labels,
            self.dynamic_labels,
            self.static_references,
            self.dynamic_references,
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    E,
    Ne,
    L,
    Le,
    G,
    Ge,
    B,
    Be,
    A,
    Ae,
}

impl Cond {
    fn negate(self) -> Cond {
        match self {
            Cond::E => Cond::Ne,
            Cond::Ne => Cond::E,
            Cond::L => Cond::Ge,
            Cond::Le => Cond::G,
            Cond::G => Cond::Le,
            Cond::Ge => Cond::L,
            Cond::B => Cond::Ae,
            Cond::Be => Cond::A,
            Cond::A => Cond::Be,
            Cond::Ae => Cond::B,
        }
    }

    /// The condition with the operands exchanged.
    fn swap(self) -> Cond {
        match self {
            Cond::E | Cond::Ne => self,
            Cond::L => Cond::G,
            Cond::Le => Cond::Ge,
            Cond::G => Cond::L,
            Cond::Ge => Cond::Le,
            Cond::B => Cond::A,
            Cond::Be => Cond::Ae,
            Cond::A => Cond::B,
            Cond::Ae => Cond::Be,
        }
    }

    fn of(op: IrBinOp, signed: bool) -> Cond {
        match (op, signed) {
            (IrBinOp::Eq, _) => Cond::E,
            (IrBinOp::Ne, _) => Cond::Ne,
            (IrBinOp::Lt, true) => Cond::L,
            (IrBinOp::Le, true) => Cond::Le,
            (IrBinOp::Gt, true) => Cond::G,
            (IrBinOp::Ge, true) => Cond::Ge,
            (IrBinOp::Lt, false) => Cond::B,
            (IrBinOp::Le, false) => Cond::Be,
            (IrBinOp::Gt, false) => Cond::A,
            _ => Cond::Ae,
        }
    }
}

/// A second operand of an ALU instruction.
#[derive(Clone, Copy)]
enum Opnd {
    R(u8),
    I(i32),
    /// `[rsp + disp]`
    M(i32),
}

fn fits_i32(v: u64) -> bool {
    (v as i64) == (v as i64 as i32 as i64)
}

fn fits_i8(v: i32) -> bool {
    v == v as i8 as i32
}

/// A move source in a parallel move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    Reg(u8),
    Spill(u32),
    Const(u64),
    /// `[rsp + disp]` (an incoming stack argument).
    Mem(i32),
    Zero,
}

macro_rules! alu {
    ($s:ident, $op:ident, $w:expr, $d:expr, $b:expr) => {{
        let d = $d;
        match ($w, $b) {
            (true, Opnd::R(r)) => dynasm!($s.ops ; .arch x64 ; $op Rq(d), Rq(r)),
            (false, Opnd::R(r)) => dynasm!($s.ops ; .arch x64 ; $op Rd(d), Rd(r)),
            (true, Opnd::I(i)) if fits_i8(i) => {
                dynasm!($s.ops ; .arch x64 ; $op Rq(d), BYTE Into::<_>::into(i as i8)) // cmp takes an i32 here
            }
            (false, Opnd::I(i)) if fits_i8(i) => {
                dynasm!($s.ops ; .arch x64 ; $op Rd(d), BYTE Into::<_>::into(i as i8)) // cmp takes an i32 here
            }
            (true, Opnd::I(i)) => dynasm!($s.ops ; .arch x64 ; $op Rq(d), DWORD i),
            (false, Opnd::I(i)) => dynasm!($s.ops ; .arch x64 ; $op Rd(d), DWORD i),
            (true, Opnd::M(m)) => dynasm!($s.ops ; .arch x64 ; $op Rq(d), QWORD [rsp + m]),
            (false, Opnd::M(m)) => dynasm!($s.ops ; .arch x64 ; $op Rd(d), DWORD [rsp + m]),
        }
    }};
}

pub(crate) struct Frame {
    /// Bytes `sub rsp` allocates after the pushes.
    pub size: u32,
    /// Callee-saved registers pushed, in push order: `pushed[..npushed]`.
    pushed: [u8; CALLEE_ORDER.len()],
    npushed: usize,
    pub spill_base: u32,
    /// Per IR slot: offset from rsp, and the alignment to apply dynamically (0 if none).
    pub slots: Vec<(u32, u32)>,
}

impl Frame {
    /// Callee-saved registers pushed, in push order.
    pub fn pushed(&self) -> &[u8] {
        &self.pushed[..self.npushed]
    }
}

pub(crate) fn layout_frame(f: &IrFunction, a: &Analysis) -> Frame {
    let mut pushed = [0u8; CALLEE_ORDER.len()];
    let mut npushed = 0;
    for r in CALLEE_ORDER {
        if a.callee_used & (1 << r) != 0 {
            pushed[npushed] = r;
            npushed += 1;
        }
    }
    let spill_base = 8 * a.max_stack_args;
    let mut cur = (spill_base + 8 * a.spill_slots) as u64;
    let mut slots = Vec::with_capacity(f.slots.len());
    for s in &f.slots {
        let al = (s.align.max(1) as u64).next_power_of_two();
        if al <= 16 {
            cur = cur.div_ceil(al) * al;
            slots.push((cur as u32, 0));
            cur += s.size as u64;
        } else {
            cur = cur.div_ceil(16) * 16;
            slots.push((cur as u32, al as u32));
            cur += s.size as u64 + al - 1;
        }
    }
    let mut size = cur.div_ceil(16) * 16;
    if npushed % 2 == 0 {
        size += 8;
    }
    Frame {
        size: size as u32,
        pushed,
        npushed,
        spill_base,
        slots,
    }
}

pub(crate) struct Emitter<'a> {
    pub f: &'a IrFunction,
    pub a: &'a Analysis,
    pub frame: &'a Frame,
    pub ops: Asm,
    pub relocs: Vec<Relocation>,
    pub blocks: Vec<DynamicLabel>,
    pub data: Vec<DynamicLabel>,
    /// The stub ending the run when the stack limit (or an interrupt) is hit.
    pub limit_stub: DynamicLabel,
    pub limit_used: bool,
    /// The function's name as data (for `Unreachable`), created on demand.
    pub name_label: Option<DynamicLabel>,
}

impl Emitter<'_> {
    fn ty(&self, v: VReg) -> ScalarTy {
        self.f.ty(v)
    }

    fn loc(&self, v: VReg) -> Loc {
        self.a.loc[v.0 as usize]
    }

    fn spill_off(&self, slot: u32) -> i32 {
        (self.frame.spill_base + 8 * slot) as i32
    }

    // ---- raw encodings with relocations ----

    fn reloc(&mut self, target: RelocTarget) {
        let offset = self.ops.offset().0 as u32;
        self.relocs.push(Relocation {
            offset,
            target,
            addend: -4,
        });
        self.ops.extend([0u8; 4]);
    }

    /// `cmp rsp, [rip + limit]; jb limit_stub`
    pub fn limit_check(&mut self) {
        self.ops.extend([0x48, 0x3b, 0x25]);
        self.reloc(RelocTarget::Context(ContextField::Limit));
        let l = self.limit_stub;
        dynasm!(self.ops ; .arch x64 ; jb =>l);
        self.limit_used = true;
    }

    /// `mov rdi, [rip + state]; call [rip + table(f)]`
    fn call_runtime(&mut self, f: RuntimeFn) {
        self.ops.extend([0x48, 0x8b, 0x3d]);
        self.reloc(RelocTarget::Context(ContextField::State));
        self.ops.extend([0xff, 0x15]);
        self.reloc(RelocTarget::Runtime(f));
    }

    // ---- moves ----

    fn mov_rr(&mut self, w: bool, d: u8, s: u8) {
        if d != s {
            if w {
                dynasm!(self.ops ; .arch x64 ; mov Rq(d), Rq(s));
            } else {
                dynasm!(self.ops ; .arch x64 ; mov Rd(d), Rd(s));
            }
        }
    }

    /// `d = c` (flags are clobbered when `c` is 0).
    fn mov_ri(&mut self, w: bool, d: u8, c: u64) {
        let c = if w { c } else { c as u32 as u64 };
        if c == 0 {
            dynasm!(self.ops ; .arch x64 ; xor Rd(d), Rd(d));
        } else if c <= u32::MAX as u64 {
            dynasm!(self.ops ; .arch x64 ; mov Rd(d), c as u32 as i32);
        } else if fits_i32(c) {
            dynasm!(self.ops ; .arch x64 ; mov Rq(d), c as i64 as i32);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov Rq(d), QWORD c as i64);
        }
    }

    fn load_spill(&mut self, d: u8, slot: u32) {
        let m = self.spill_off(slot);
        dynasm!(self.ops ; .arch x64 ; mov Rq(d), QWORD [rsp + m]);
    }

    fn store_spill(&mut self, slot: u32, s: u8) {
        let m = self.spill_off(slot);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + m], Rq(s));
    }

    fn move_src(&mut self, d: u8, s: Src) {
        match s {
            Src::Reg(r) => self.mov_rr(true, d, r),
            Src::Spill(slot) => self.load_spill(d, slot),
            Src::Const(c) => self.mov_ri(true, d, c),
            Src::Mem(m) => dynasm!(self.ops ; .arch x64 ; mov Rq(d), QWORD [rsp + m]),
            Src::Zero => self.mov_ri(true, d, 0),
        }
    }

    fn src_of(&self, v: VReg) -> Src {
        match self.loc(v) {
            Loc::Reg(r) => Src::Reg(r),
            Loc::Spill(s) => Src::Spill(s),
            Loc::Const(c) => Src::Const(c),
            Loc::None => Src::Zero,
        }
    }

    /// Puts `v`'s value into `d` (in `v`'s width).
    fn load(&mut self, d: u8, v: VReg) {
        let w = wide(self.ty(v));
        match self.loc(v) {
            Loc::Reg(r) => self.mov_rr(w, d, r),
            Loc::Spill(s) => self.load_spill(d, s),
            Loc::Const(c) => self.mov_ri(w, d, c),
            Loc::None => self.mov_ri(w, d, 0),
        }
    }

    /// The register holding `v`, loading it into `scratch` unless it is in one.
    fn src_reg(&mut self, v: VReg, scratch: u8) -> u8 {
        match self.loc(v) {
            Loc::Reg(r) => r,
            _ => {
                self.load(scratch, v);
                scratch
            }
        }
    }

    /// The register to compute `v` into: its own, or `scratch` (then [`Self::finish`]).
    fn dst_reg(&self, v: u32, scratch: u8) -> u8 {
        match self.a.loc[v as usize] {
            Loc::Reg(r) => r,
            _ => scratch,
        }
    }

    fn finish(&mut self, v: u32, r: u8) {
        if let Loc::Spill(s) = self.a.loc[v as usize] {
            self.store_spill(s, r);
        }
    }

    /// `v` as the second operand of an ALU instruction of width `w`.
    fn opnd(&mut self, v: VReg, w: bool, scratch: u8) -> Opnd {
        match self.loc(v) {
            Loc::Reg(r) => Opnd::R(r),
            Loc::Spill(s) => Opnd::M(self.spill_off(s)),
            Loc::Const(c) if !w => Opnd::I(c as u32 as i32),
            Loc::Const(c) if fits_i32(c) => Opnd::I(c as i64 as i32),
            _ => {
                self.load(scratch, v);
                Opnd::R(scratch)
            }
        }
    }

    /// Moves `srcs[i]` into `dsts[i]` as if all at once (destinations distinct, never
    /// rax, which breaks cycles; at most six). Sweeps over the moves in order, making each
    /// whose destination no pending move still reads.
    fn parallel_move(&mut self, dsts: &[u8], srcs: &mut [Src]) {
        let n = dsts.len();
        // Bit i: move i is still to be made.
        let mut pending = 0u8;
        // Per machine register, the pending moves reading it.
        let mut readers = [0u8; 16];
        for i in 0..n {
            if srcs[i] != Src::Reg(dsts[i]) {
                pending |= 1 << i;
                if let Src::Reg(r) = srcs[i] {
                    readers[r as usize] += 1;
                }
            }
        }
        while pending != 0 {
            let mut progress = false;
            for i in 0..n {
                if pending & (1 << i) == 0 || readers[dsts[i] as usize] != 0 {
                    continue;
                }
                self.move_src(dsts[i], srcs[i]);
                pending &= !(1 << i);
                if let Src::Reg(r) = srcs[i] {
                    readers[r as usize] -= 1;
                }
                progress = true;
            }
            if pending != 0 && !progress {
                // Only register cycles remain: free one destination through rax.
                let r = dsts[pending.trailing_zeros() as usize];
                self.mov_rr(true, RAX, r);
                for s in srcs.iter_mut() {
                    if *s == Src::Reg(r) {
                        *s = Src::Reg(RAX);
                    }
                }
                readers[RAX as usize] += readers[r as usize];
                readers[r as usize] = 0;
            }
        }
    }

    // ---- prologue and epilogue ----

    pub fn prologue(&mut self) {
        let frame = self.frame;
        for &r in frame.pushed() {
            dynasm!(self.ops ; .arch x64 ; push Rq(r));
        }
        let size = self.frame.size as i32;
        if size != 0 {
            dynasm!(self.ops ; .arch x64 ; sub rsp, size);
        }
        if self.a.calls_functions || size > 1 << 16 {
            self.limit_check();
        }
        // Parameters to their locations.
        let incoming = (self.frame.size + 8 * self.frame.pushed().len() as u32 + 8) as i32;
        let mut dsts = [0u8; 6];
        let mut srcs = [Src::Zero; 6];
        let mut n = 0;
        for (j, &p) in self.f.params.iter().enumerate() {
            let src = if j < 6 {
                Src::Reg(ARG_REGS[j])
            } else {
                Src::Mem(incoming + 8 * (j as i32 - 6))
            };
            match self.loc(p) {
                Loc::Spill(s) => {
                    let r = match src {
                        Src::Reg(r) => r,
                        _ => {
                            self.move_src(RAX, src);
                            RAX
                        }
                    };
                    self.store_spill(s, r);
                }
                Loc::Reg(r) if j < 6 => {
                    dsts[n] = r;
                    srcs[n] = src;
                    n += 1;
                }
                // Stack parameters in registers come last (below).
                _ => {}
            }
        }
        self.parallel_move(&dsts[..n], &mut srcs[..n]);
        for (j, &p) in self.f.params.iter().enumerate().skip(6) {
            if let Loc::Reg(r) = self.loc(p) {
                self.move_src(r, Src::Mem(incoming + 8 * (j as i32 - 6)));
            }
        }
    }

    fn epilogue(&mut self) {
        let size = self.frame.size as i32;
        if size != 0 {
            dynasm!(self.ops ; .arch x64 ; add rsp, size);
        }
        let frame = self.frame;
        for &r in frame.pushed().iter().rev() {
            dynasm!(self.ops ; .arch x64 ; pop Rq(r));
        }
        dynasm!(self.ops ; .arch x64 ; ret);
    }

    /// The stub behind [`Self::limit_check`]: undoes the frame (it may lie beyond the
    /// stack), realigns and calls the runtime, which does not return.
    pub fn limit_stub_code(&mut self) {
        let l = self.limit_stub;
        let size = self.frame.size as i32;
        dynasm!(self.ops ; .arch x64 ; =>l);
        if size != 0 {
            dynasm!(self.ops ; .arch x64 ; add rsp, size);
        }
        dynasm!(self.ops ; .arch x64 ; and rsp, -16);
        self.call_runtime(RuntimeFn::Limit);
    }

    // ---- blocks ----

    pub fn block(&mut self, bi: u32) {
        let l = self.blocks[bi as usize];
        dynasm!(self.ops ; .arch x64 ; =>l);
        let (lo, hi) = (
            self.a.blocks[bi as usize].first,
            self.a.blocks[bi as usize].term,
        );
        let f = self.f;
        for k in lo..hi {
            let e = self.a.entries[k as usize];
            let inst = &f.blocks[bi as usize].insts[e.inst as usize];
            self.inst(inst, e.def);
        }
        let e = self.a.entries[hi as usize];
        self.term(bi, e.fused_cmp);
    }

    fn inst(&mut self, inst: &Inst, def: u32) {
        match *inst {
            Inst::Const { dst, value } => {
                let d = self.dst_reg(def, RAX);
                self.mov_ri(wide(self.ty(dst)), d, canon(self.ty(dst), value));
                self.finish(def, d);
            }
            Inst::Copy { dst, src } | Inst::Cast { dst, src } => self.cast(def, self.ty(dst), src),
            Inst::Unary { op, dst, src } => {
                let ty = self.ty(dst);
                let w = wide(ty);
                let d = self.dst_reg(def, RAX);
                self.load(d, src);
                match (op, ty, w) {
                    (IrUnOp::Not, ScalarTy::Bool, _) => {
                        dynasm!(self.ops ; .arch x64 ; xor Rd(d), 1)
                    }
                    (IrUnOp::Not, _, true) => dynasm!(self.ops ; .arch x64 ; not Rq(d)),
                    (IrUnOp::Not, _, false) => dynasm!(self.ops ; .arch x64 ; not Rd(d)),
                    (IrUnOp::Neg, _, true) => dynasm!(self.ops ; .arch x64 ; neg Rq(d)),
                    (IrUnOp::Neg, _, false) => dynasm!(self.ops ; .arch x64 ; neg Rd(d)),
                }
                self.finish(def, d);
            }
            Inst::Binary { op, lhs, rhs, .. } => self.binary(op, def, lhs, rhs),
            Inst::SlotAddr { slot, .. } => {
                let d = self.dst_reg(def, RAX);
                let (off, al) = self.frame.slots[slot.0 as usize];
                if al == 0 {
                    let off = off as i32;
                    dynasm!(self.ops ; .arch x64 ; lea Rq(d), [rsp + off]);
                } else {
                    let off = (off + al - 1) as i32;
                    let mask = -(al as i32);
                    dynasm!(self.ops ; .arch x64 ; lea Rq(d), [rsp + off] ; and Rq(d), mask);
                }
                self.finish(def, d);
            }
            Inst::DataAddr { data, .. } => {
                let d = self.dst_reg(def, RAX);
                let l = self.data[data.0 as usize];
                dynasm!(self.ops ; .arch x64 ; lea Rq(d), [=>l]);
                self.finish(def, d);
            }
            Inst::Load { dst, addr, offset } => {
                let (a, off) = self.address(addr, offset);
                let d = self.dst_reg(def, RAX);
                match self.ty(dst) {
                    ScalarTy::Bool => {
                        dynasm!(self.ops ; .arch x64 ; movzx Rd(d), BYTE [Rq(a) + off])
                    }
                    ScalarTy::I32 => dynasm!(self.ops ; .arch x64 ; mov Rd(d), DWORD [Rq(a) + off]),
                    _ => dynasm!(self.ops ; .arch x64 ; mov Rq(d), QWORD [Rq(a) + off]),
                }
                self.finish(def, d);
            }
            Inst::Store { addr, offset, src } => {
                let (a, off) = self.address(addr, offset);
                let ty = self.ty(src);
                match self.loc(src) {
                    Loc::Const(c) => match ty {
                        ScalarTy::Bool => {
                            dynasm!(self.ops ; .arch x64 ; mov BYTE [Rq(a) + off], c as u8 as i8)
                        }
                        ScalarTy::I32 => {
                            dynasm!(self.ops ; .arch x64 ; mov DWORD [Rq(a) + off], c as u32 as i32)
                        }
                        _ if fits_i32(c) => {
                            dynasm!(self.ops ; .arch x64 ; mov QWORD [Rq(a) + off], c as i64 as i32)
                        }
                        _ => {
                            self.mov_ri(true, RAX, c);
                            dynasm!(self.ops ; .arch x64 ; mov QWORD [Rq(a) + off], rax)
                        }
                    },
                    _ => {
                        let s = self.src_reg(src, RAX);
                        match ty {
                            ScalarTy::Bool => {
                                dynasm!(self.ops ; .arch x64 ; mov BYTE [Rq(a) + off], Rb(s))
                            }
                            ScalarTy::I32 => {
                                dynasm!(self.ops ; .arch x64 ; mov DWORD [Rq(a) + off], Rd(s))
                            }
                            _ => dynasm!(self.ops ; .arch x64 ; mov QWORD [Rq(a) + off], Rq(s)),
                        }
                    }
                }
            }
            Inst::ElemAddr {
                base, index, scale, ..
            } => self.elem_addr(def, base, index, scale),
            Inst::MemCopy { dst, src, size } => self.mem_copy(dst, src, size),
            Inst::Call(ref call) => {
                let (callee, args) = (call.callee, &call.args);
                self.call_args(args);
                self.ops.push(0xe8);
                self.reloc(RelocTarget::Function {
                    callee,
                    args: args.len() as u32,
                });
                if def != NONE {
                    match self.a.loc[def as usize] {
                        Loc::Reg(r) => self.mov_rr(true, r, RAX),
                        Loc::Spill(s) => self.store_spill(s, RAX),
                        _ => {}
                    }
                }
            }
            Inst::Print(ref arg) => self.print(arg),
        }
    }

    /// A base register and displacement for `[addr + offset]` (rcx, rdx as scratch).
    fn address(&mut self, addr: VReg, offset: u32) -> (u8, i32) {
        let a = self.src_reg(addr, RCX);
        if offset <= i32::MAX as u32 {
            (a, offset as i32)
        } else {
            self.mov_ri(true, RDX, offset as u64);
            dynasm!(self.ops ; .arch x64 ; add rdx, Rq(a));
            (RDX, 0)
        }
    }

    fn cast(&mut self, def: u32, dt: ScalarTy, src: VReg) {
        let st = self.ty(src);
        let d = self.dst_reg(def, RAX);
        if let Loc::Const(c) = self.loc(src) {
            self.mov_ri(wide(dt), d, canon(dt, canon(st, c)));
        } else if wide(dt) && st == ScalarTy::I32 {
            match self.loc(src) {
                Loc::Reg(r) => dynasm!(self.ops ; .arch x64 ; movsxd Rq(d), Rd(r)),
                Loc::Spill(s) => {
                    let m = self.spill_off(s);
                    dynasm!(self.ops ; .arch x64 ; movsxd Rq(d), DWORD [rsp + m])
                }
                _ => self.mov_ri(true, d, 0),
            }
        } else if dt == ScalarTy::Bool && st != ScalarTy::Bool {
            self.load(d, src);
            dynasm!(self.ops ; .arch x64 ; and Rd(d), 1);
        } else {
            // Same width, truncation to 32 bits, or Bool (0/1) widened.
            let w = wide(dt) && wide(st);
            match self.loc(src) {
                Loc::Reg(r) => self.mov_rr(w, d, r),
                _ => self.load(d, src),
            }
        }
        self.finish(def, d);
    }

    fn binary(&mut self, op: IrBinOp, def: u32, lhs: VReg, rhs: VReg) {
        let ty = self.ty(lhs);
        let w = wide(ty);
        if is_comparison(op) {
            let cc = self.compare(op, lhs, rhs);
            self.setcc(cc);
            let d = self.dst_reg(def, RAX);
            dynasm!(self.ops ; .arch x64 ; movzx Rd(d), al);
            self.finish(def, d);
            return;
        }
        match op {
            IrBinOp::Div | IrBinOp::Rem => return self.divide(op, def, lhs, rhs),
            IrBinOp::Shl | IrBinOp::Shr => return self.shift(op, def, lhs, rhs),
            _ => {}
        }
        let commutative = !matches!(op, IrBinOp::Sub);
        let d = self.dst_reg(def, RAX);
        let (mut a, mut b) = (lhs, rhs);
        if commutative
            && (self.loc(b) == Loc::Reg(d)
                || (matches!(self.loc(a), Loc::Const(_)) && !matches!(self.loc(b), Loc::Const(_))))
        {
            std::mem::swap(&mut a, &mut b);
        }
        let bo = if self.loc(b) == Loc::Reg(d) && self.loc(a) != Loc::Reg(d) {
            self.mov_rr(w, RCX, d);
            Opnd::R(RCX)
        } else {
            self.opnd(b, w, RCX)
        };
        self.load(d, a);
        match op {
            IrBinOp::Add => alu!(self, add, w, d, bo),
            IrBinOp::Sub => alu!(self, sub, w, d, bo),
            IrBinOp::And => alu!(self, and, w, d, bo),
            IrBinOp::Or => alu!(self, or, w, d, bo),
            IrBinOp::Xor => alu!(self, xor, w, d, bo),
            _ => match (w, bo) {
                (true, Opnd::R(r)) => dynasm!(self.ops ; .arch x64 ; imul Rq(d), Rq(r)),
                (false, Opnd::R(r)) => dynasm!(self.ops ; .arch x64 ; imul Rd(d), Rd(r)),
                (true, Opnd::I(i)) => dynasm!(self.ops ; .arch x64 ; imul Rq(d), Rq(d), i),
                (false, Opnd::I(i)) => dynasm!(self.ops ; .arch x64 ; imul Rd(d), Rd(d), i),
                (true, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; imul Rq(d), QWORD [rsp + m]),
                (false, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; imul Rd(d), DWORD [rsp + m]),
            },
        }
        self.finish(def, d);
    }

    fn shift(&mut self, op: IrBinOp, def: u32, lhs: VReg, rhs: VReg) {
        let ty = self.ty(lhs);
        let w = wide(ty);
        let kind = match op {
            IrBinOp::Shl => 0,
            _ if ty.is_signed() => 1,
            _ => 2,
        };
        if let Loc::Const(c) = self.loc(rhs) {
            let amt = (c & if w { 63 } else { 31 }) as i8;
            let d = self.dst_reg(def, RAX);
            self.load(d, lhs);
            if amt != 0 {
                match (kind, w) {
                    (0, true) => dynasm!(self.ops ; .arch x64 ; shl Rq(d), amt),
                    (0, false) => dynasm!(self.ops ; .arch x64 ; shl Rd(d), amt),
                    (1, true) => dynasm!(self.ops ; .arch x64 ; sar Rq(d), amt),
                    (1, false) => dynasm!(self.ops ; .arch x64 ; sar Rd(d), amt),
                    (_, true) => dynasm!(self.ops ; .arch x64 ; shr Rq(d), amt),
                    (_, false) => dynasm!(self.ops ; .arch x64 ; shr Rd(d), amt),
                }
            }
            self.finish(def, d);
            return;
        }
        self.load(RCX, rhs);
        let d = self.dst_reg(def, RAX);
        self.load(d, lhs);
        match (kind, w) {
            (0, true) => dynasm!(self.ops ; .arch x64 ; shl Rq(d), cl),
            (0, false) => dynasm!(self.ops ; .arch x64 ; shl Rd(d), cl),
            (1, true) => dynasm!(self.ops ; .arch x64 ; sar Rq(d), cl),
            (1, false) => dynasm!(self.ops ; .arch x64 ; sar Rd(d), cl),
            (_, true) => dynasm!(self.ops ; .arch x64 ; shr Rq(d), cl),
            (_, false) => dynasm!(self.ops ; .arch x64 ; shr Rd(d), cl),
        }
        self.finish(def, d);
    }

    fn divide(&mut self, op: IrBinOp, def: u32, lhs: VReg, rhs: VReg) {
        let ty = self.ty(lhs);
        let w = wide(ty);
        let signed = ty.is_signed();
        self.load(RAX, lhs);
        let divisor = match self.loc(rhs) {
            Loc::Reg(r) => Opnd::R(r),
            Loc::Spill(s) => Opnd::M(self.spill_off(s)),
            _ => {
                self.load(RCX, rhs);
                Opnd::R(RCX)
            }
        };
        match (signed, w) {
            (true, true) => dynasm!(self.ops ; .arch x64 ; cqo),
            (true, false) => dynasm!(self.ops ; .arch x64 ; cdq),
            (false, _) => dynasm!(self.ops ; .arch x64 ; xor edx, edx),
        }
        match (signed, w, divisor) {
            (true, true, Opnd::R(r)) => dynasm!(self.ops ; .arch x64 ; idiv Rq(r)),
            (true, false, Opnd::R(r)) => dynasm!(self.ops ; .arch x64 ; idiv Rd(r)),
            (false, true, Opnd::R(r)) => dynasm!(self.ops ; .arch x64 ; div Rq(r)),
            (false, false, Opnd::R(r)) => dynasm!(self.ops ; .arch x64 ; div Rd(r)),
            (true, true, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; idiv QWORD [rsp + m]),
            (true, false, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; idiv DWORD [rsp + m]),
            (false, true, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; div QWORD [rsp + m]),
            (false, false, Opnd::M(m)) => dynasm!(self.ops ; .arch x64 ; div DWORD [rsp + m]),
            (_, _, Opnd::I(_)) => {}
        }
        let res = if op == IrBinOp::Div { RAX } else { RDX };
        match self.a.loc[def as usize] {
            Loc::Reg(r) => self.mov_rr(w, r, res),
            Loc::Spill(s) => self.store_spill(s, res),
            _ => {}
        }
    }

    /// Emits `cmp lhs, rhs` and returns the condition meaning `lhs op rhs`.
    fn compare(&mut self, op: IrBinOp, lhs: VReg, rhs: VReg) -> Cond {
        let ty = self.ty(lhs);
        let w = wide(ty);
        let mut cc = Cond::of(op, ty.is_signed());
        let (mut a, mut b) = (lhs, rhs);
        if matches!(self.loc(a), Loc::Const(_)) && !matches!(self.loc(b), Loc::Const(_)) {
            std::mem::swap(&mut a, &mut b);
            cc = cc.swap();
        }
        let ra = self.src_reg(a, RAX);
        let bo = self.opnd(b, w, RCX);
        match (bo, w) {
            (Opnd::I(0), true) if matches!(cc, Cond::E | Cond::Ne) => {
                dynasm!(self.ops ; .arch x64 ; test Rq(ra), Rq(ra))
            }
            (Opnd::I(0), false) if matches!(cc, Cond::E | Cond::Ne) => {
                dynasm!(self.ops ; .arch x64 ; test Rd(ra), Rd(ra))
            }
            _ => alu!(self, cmp, w, ra, bo),
        }
        cc
    }

    fn setcc(&mut self, cc: Cond) {
        match cc {
            Cond::E => dynasm!(self.ops ; .arch x64 ; sete al),
            Cond::Ne => dynasm!(self.ops ; .arch x64 ; setne al),
            Cond::L => dynasm!(self.ops ; .arch x64 ; setl al),
            Cond::Le => dynasm!(self.ops ; .arch x64 ; setle al),
            Cond::G => dynasm!(self.ops ; .arch x64 ; setg al),
            Cond::Ge => dynasm!(self.ops ; .arch x64 ; setge al),
            Cond::B => dynasm!(self.ops ; .arch x64 ; setb al),
            Cond::Be => dynasm!(self.ops ; .arch x64 ; setbe al),
            Cond::A => dynasm!(self.ops ; .arch x64 ; seta al),
            Cond::Ae => dynasm!(self.ops ; .arch x64 ; setae al),
        }
    }

    fn jcc(&mut self, cc: Cond, l: DynamicLabel) {
        match cc {
            Cond::E => dynasm!(self.ops ; .arch x64 ; je =>l),
            Cond::Ne => dynasm!(self.ops ; .arch x64 ; jne =>l),
            Cond::L => dynasm!(self.ops ; .arch x64 ; jl =>l),
            Cond::Le => dynasm!(self.ops ; .arch x64 ; jle =>l),
            Cond::G => dynasm!(self.ops ; .arch x64 ; jg =>l),
            Cond::Ge => dynasm!(self.ops ; .arch x64 ; jge =>l),
            Cond::B => dynasm!(self.ops ; .arch x64 ; jb =>l),
            Cond::Be => dynasm!(self.ops ; .arch x64 ; jbe =>l),
            Cond::A => dynasm!(self.ops ; .arch x64 ; ja =>l),
            Cond::Ae => dynasm!(self.ops ; .arch x64 ; jae =>l),
        }
    }

    fn elem_addr(&mut self, def: u32, base: VReg, index: VReg, scale: u32) {
        let b = self.src_reg(base, RCX);
        let d = self.dst_reg(def, RAX);
        if let Loc::Const(c) = self.loc(index) {
            let disp = c.wrapping_mul(scale as u64);
            if fits_i32(disp) {
                let disp = disp as i64 as i32;
                dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + disp]);
            } else {
                self.mov_ri(true, RDX, disp);
                dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + rdx]);
            }
            self.finish(def, d);
            return;
        }
        let i = self.src_reg(index, RDX);
        match scale {
            0 => self.mov_rr(true, d, b),
            1 => dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + Rq(i)]),
            2 => dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + Rq(i) * 2]),
            4 => dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + Rq(i) * 4]),
            8 => dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + Rq(i) * 8]),
            _ => {
                if scale <= i32::MAX as u32 {
                    let s = scale as i32;
                    dynasm!(self.ops ; .arch x64 ; imul rdx, Rq(i), s);
                } else {
                    self.mov_rr(true, RDX, i);
                    self.mov_ri(true, RAX, scale as u64);
                    dynasm!(self.ops ; .arch x64 ; imul rdx, rax);
                }
                dynasm!(self.ops ; .arch x64 ; lea Rq(d), [Rq(b) + rdx]);
            }
        }
        self.finish(def, d);
    }

    fn mem_copy(&mut self, dst: VReg, src: VReg, size: u32) {
        if size == 0 {
            return;
        }
        if size <= 64 {
            let s = self.src_reg(src, RDX);
            let d = self.src_reg(dst, RCX);
            let mut off = 0i32;
            let size = size as i32;
            while off + 8 <= size {
                dynasm!(self.ops ; .arch x64 ; mov rax, [Rq(s) + off] ; mov [Rq(d) + off], rax);
                off += 8;
            }
            if off + 4 <= size {
                dynasm!(self.ops ; .arch x64 ; mov eax, [Rq(s) + off] ; mov [Rq(d) + off], eax);
                off += 4;
            }
            if off + 2 <= size {
                dynasm!(self.ops ; .arch x64 ; mov ax, [Rq(s) + off] ; mov [Rq(d) + off], ax);
                off += 2;
            }
            if off < size {
                dynasm!(self.ops ; .arch x64 ; mov al, [Rq(s) + off] ; mov [Rq(d) + off], al);
            }
            return;
        }
        self.load(RAX, dst);
        self.load(RDX, src);
        let n = size as i32;
        dynasm!(self.ops
            ; .arch x64
            ; push rsi
            ; push rdi
            ; mov rdi, rax
            ; mov rsi, rdx
            ; mov ecx, n
            ; rep movsb
            ; pop rdi
            ; pop rsi
        );
    }

    fn call_args(&mut self, args: &[VReg]) {
        for (j, &v) in args.iter().enumerate().skip(6) {
            let m = 8 * (j as i32 - 6);
            match self.loc(v) {
                Loc::Reg(r) => dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + m], Rq(r)),
                Loc::Const(c) if fits_i32(c) => {
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + m], c as i64 as i32)
                }
                _ => {
                    let src = self.src_of(v);
                    self.move_src(RAX, src);
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + m], rax);
                }
            }
        }
        let n = args.len().min(6);
        let mut srcs = [Src::Zero; 6];
        for (j, &v) in args.iter().take(6).enumerate() {
            srcs[j] = self.src_of(v);
        }
        self.parallel_move(&ARG_REGS[..n], &mut srcs[..n]);
    }

    fn print(&mut self, arg: &PrintArg) {
        let rt = match *arg {
            PrintArg::Str(data) => {
                let l = self.data[data.0 as usize];
                let len = self.f.data[data.0 as usize].len() as u64;
                dynasm!(self.ops ; .arch x64 ; lea rsi, [=>l]);
                self.mov_ri(true, RDX, len);
                RuntimeFn::PrintStr
            }
            PrintArg::Int(v) => {
                let ty = self.ty(v);
                if ty == ScalarTy::I32 {
                    self.sign_extend_to(RSI, v);
                    RuntimeFn::PrintI64
                } else {
                    self.load(RSI, v);
                    if ty == ScalarTy::I64 {
                        RuntimeFn::PrintI64
                    } else {
                        RuntimeFn::PrintU64
                    }
                }
            }
            PrintArg::Bool(v) => {
                self.load(RSI, v);
                RuntimeFn::PrintBool
            }
        };
        self.call_runtime(rt);
    }

    fn sign_extend_to(&mut self, d: u8, v: VReg) {
        match self.loc(v) {
            Loc::Reg(r) => dynasm!(self.ops ; .arch x64 ; movsxd Rq(d), Rd(r)),
            Loc::Spill(s) => {
                let m = self.spill_off(s);
                dynasm!(self.ops ; .arch x64 ; movsxd Rq(d), DWORD [rsp + m])
            }
            Loc::Const(c) => self.mov_ri(true, d, c as u32 as i32 as i64 as u64),
            Loc::None => self.mov_ri(true, d, 0),
        }
    }

    // ---- terminators ----

    fn is_next(&self, bi: u32, target: u32) -> bool {
        self.a.blocks[target as usize].emit_index == self.a.blocks[bi as usize].emit_index + 1
    }

    /// Whether successor `which` (0 or 1) of `bi` is reached by a back edge.
    fn is_back(&self, bi: u32, which: u32) -> bool {
        self.a.blocks[bi as usize].back_edges & (1 << which) != 0
    }

    fn jump(&mut self, bi: u32, target: u32, back: bool) {
        if back {
            self.limit_check();
        }
        if !self.is_next(bi, target) {
            let l = self.blocks[target as usize];
            dynasm!(self.ops ; .arch x64 ; jmp =>l);
        }
    }

    fn term(&mut self, bi: u32, fused_cmp: u32) {
        let f = self.f;
        let b = &f.blocks[bi as usize];
        match b.term {
            Terminator::Jump(t) => self.jump(bi, t.0, self.is_back(bi, 0)),
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                let (t, e) = (then_block.0, else_block.0);
                if let (NONE, Loc::Const(c)) = (fused_cmp, self.loc(cond)) {
                    let which = (c & 1 == 0) as u32;
                    return self.jump(bi, if which == 0 { t } else { e }, self.is_back(bi, which));
                }
                if t == e {
                    return self.jump(bi, t, self.is_back(bi, 0) || self.is_back(bi, 1));
                }
                if self.is_back(bi, 0) || self.is_back(bi, 1) {
                    self.limit_check();
                }
                let cc = if fused_cmp != NONE {
                    match b.insts[fused_cmp as usize] {
                        Inst::Binary { op, lhs, rhs, .. } => self.compare(op, lhs, rhs),
                        _ => Cond::Ne,
                    }
                } else {
                    match self.loc(cond) {
                        Loc::Reg(r) => dynasm!(self.ops ; .arch x64 ; test Rd(r), Rd(r)),
                        Loc::Spill(s) => {
                            let m = self.spill_off(s);
                            dynasm!(self.ops ; .arch x64 ; cmp BYTE [rsp + m], 0)
                        }
                        _ => dynasm!(self.ops ; .arch x64 ; test eax, eax),
                    }
                    Cond::Ne
                };
                let (lt, le) = (self.blocks[t as usize], self.blocks[e as usize]);
                if self.is_next(bi, t) {
                    self.jcc(cc.negate(), le);
                } else {
                    self.jcc(cc, lt);
                    if !self.is_next(bi, e) {
                        dynasm!(self.ops ; .arch x64 ; jmp =>le);
                    }
                }
            }
            Terminator::Return(v) => {
                if let Some(v) = v {
                    self.load(RAX, v);
                }
                self.epilogue();
            }
            Terminator::Panic(kind) => {
                if let PanicKind::IndexOutOfBounds { index, len } = kind {
                    let ty = self.ty(index);
                    if ty == ScalarTy::I32 {
                        self.sign_extend_to(RSI, index);
                    } else {
                        self.load(RSI, index);
                    }
                    self.mov_ri(true, RDX, len);
                    self.mov_ri(true, RCX, ty.is_signed() as u64);
                    self.call_runtime(RuntimeFn::PanicBounds);
                } else {
                    self.mov_ri(true, RSI, panic_code(&kind) as u64);
                    self.call_runtime(RuntimeFn::Panic);
                }
            }
            Terminator::Unreachable => {
                let l = match self.name_label {
                    Some(l) => l,
                    None => {
                        let l = self.ops.new_dynamic_label();
                        self.name_label = Some(l);
                        l
                    }
                };
                dynasm!(self.ops ; .arch x64 ; lea rsi, [=>l]);
                self.mov_ri(true, RDX, self.f.name.len() as u64);
                self.mov_ri(true, RCX, bi as u64);
                self.call_runtime(RuntimeFn::Unreachable);
            }
        }
    }
}
