//! The textual form of the IR, for `rill emit --what ir` and snapshot tests.
//!
//! One function reads like this:
//!
//! ```text
//! fn crate::area(v0: ptr) -> i64 {
//!     slot0: size 16, align 8
//!     data0: "area = "
//! bb0:
//!     v1 = load.i64 [v0]
//!     v2 = load.i64 [v0+8]
//!     v3 = mul.i64 v1, v2
//!     return v3
//! }
//! ```
//!
//! Parameters with their types come first (`sret` marks the result address), then the
//! stack slots and read-only data blobs, then the blocks in order, one instruction per
//! line. An operation is suffixed with its operand type (`add.i32`, `lt.u64`; a cast with
//! source and target, `cast.i32.i64`). A blob that `print.str` prints is shown as a string,
//! any other as bytes. The form is stable: it depends on the function only.
//!
//! A callee is shown by its def-path hash, unless names are supplied
//! ([`IrFunction::display_with`]); a whole [`IrProgram`] names callees after its own
//! functions.

use std::fmt;

use crate::ir::{
    BlockId, CallInst, DataId, Inst, IrBinOp, IrFunction, IrProgram, IrUnOp, PanicKind, PrintArg,
    ScalarTy, SlotId, Terminator, VReg,
};
use crate::sema::def::DefId;

/// Blobs longer than this are shown cut, with their length.
const MAX_SHOWN_BYTES: usize = 64;

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}

impl fmt::Display for SlotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slot{}", self.0)
    }
}

impl fmt::Display for DataId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data{}", self.0)
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScalarTy::Bool => "bool",
            ScalarTy::I32 => "i32",
            ScalarTy::I64 => "i64",
            ScalarTy::U64 => "u64",
            ScalarTy::Ptr => "ptr",
        })
    }
}

fn binop_name(op: IrBinOp) -> &'static str {
    match op {
        IrBinOp::Add => "add",
        IrBinOp::Sub => "sub",
        IrBinOp::Mul => "mul",
        IrBinOp::Div => "div",
        IrBinOp::Rem => "rem",
        IrBinOp::And => "and",
        IrBinOp::Or => "or",
        IrBinOp::Xor => "xor",
        IrBinOp::Shl => "shl",
        IrBinOp::Shr => "shr",
        IrBinOp::Eq => "eq",
        IrBinOp::Ne => "ne",
        IrBinOp::Lt => "lt",
        IrBinOp::Le => "le",
        IrBinOp::Gt => "gt",
        IrBinOp::Ge => "ge",
    }
}

/// A constant's bits as a value of type `ty`.
struct ConstBits(ScalarTy, u64);

impl fmt::Display for ConstBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ConstBits(ty, v) = *self;
        match ty {
            ScalarTy::Bool => write!(f, "{}", v & 1 != 0),
            ScalarTy::I32 => write!(f, "{}", v as u32 as i32),
            ScalarTy::I64 => write!(f, "{}", v as i64),
            ScalarTy::U64 => write!(f, "{v}"),
            ScalarTy::Ptr => write!(f, "{v:#x}"),
        }
    }
}

/// `[v3+8]`, or `[v3]` without offset.
struct Addr(VReg, u32);

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            0 => write!(f, "[{}]", self.0),
            off => write!(f, "[{}+{}]", self.0, off),
        }
    }
}

/// A function with callee names resolved by a caller-supplied lookup.
pub struct DisplayIr<'a> {
    f: &'a IrFunction,
    names: &'a dyn Fn(DefId) -> Option<String>,
}

impl IrFunction {
    /// Displays the function, naming callees with `names` (falling back to their
    /// def-path hashes).
    pub fn display_with<'a>(&'a self, names: &'a dyn Fn(DefId) -> Option<String>) -> DisplayIr<'a> {
        DisplayIr { f: self, names }
    }
}

impl fmt::Display for IrFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display_with(&|_| None).fmt(f)
    }
}

/// Every function of the program, in order, callees named after the program's functions.
impl fmt::Display for IrProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |def: DefId| {
            self.functions
                .iter()
                .find(|g| g.def == def)
                .map(|g| g.name.clone())
        };
        for (i, func) in self.functions.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            func.display_with(&names).fmt(f)?;
        }
        Ok(())
    }
}

impl DisplayIr<'_> {
    fn callee(&self, def: DefId) -> String {
        (self.names)(def).unwrap_or_else(|| format!("#{def}"))
    }

    fn inst(&self, inst: &Inst, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = self.f;
        let ty = |v: VReg| {
            func.vregs
                .get(v.0 as usize)
                .copied()
                .unwrap_or(ScalarTy::U64)
        };
        match inst {
            Inst::Const { dst, value } => {
                write!(
                    f,
                    "{dst} = const.{} {}",
                    ty(*dst),
                    ConstBits(ty(*dst), *value)
                )
            }
            Inst::Copy { dst, src } => write!(f, "{dst} = copy.{} {src}", ty(*dst)),
            Inst::Unary { op, dst, src } => {
                let name = match op {
                    IrUnOp::Neg => "neg",
                    IrUnOp::Not => "not",
                };
                write!(f, "{dst} = {name}.{} {src}", ty(*src))
            }
            Inst::Binary { op, dst, lhs, rhs } => {
                write!(f, "{dst} = {}.{} {lhs}, {rhs}", binop_name(*op), ty(*lhs))
            }
            Inst::Cast { dst, src } => {
                write!(f, "{dst} = cast.{}.{} {src}", ty(*src), ty(*dst))
            }
            Inst::SlotAddr { dst, slot } => write!(f, "{dst} = slot_addr {slot}"),
            Inst::DataAddr { dst, data } => write!(f, "{dst} = data_addr {data}"),
            Inst::Load { dst, addr, offset } => {
                write!(f, "{dst} = load.{} {}", ty(*dst), Addr(*addr, *offset))
            }
            Inst::Store { addr, offset, src } => {
                write!(f, "store.{} {}, {src}", ty(*src), Addr(*addr, *offset))
            }
            Inst::ElemAddr {
                dst,
                base,
                index,
                scale,
            } => write!(f, "{dst} = elem_addr {base} + {index} * {scale}"),
            Inst::MemCopy { dst, src, size } => {
                write!(f, "memcopy {}, {}, {size}", Addr(*dst, 0), Addr(*src, 0))
            }
            Inst::Call(call) => {
                let CallInst { dst, callee, args } = &**call;
                if let Some(d) = dst {
                    write!(f, "{d} = call.{} ", ty(*d))?;
                } else {
                    f.write_str("call ")?;
                }
                write!(f, "{}(", self.callee(*callee))?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            Inst::Print(PrintArg::Str(d)) => {
                write!(f, "print.str {d} ")?;
                match func.data.get(d.0 as usize) {
                    Some(bytes) => write_text(bytes, f),
                    None => f.write_str("?"),
                }
            }
            Inst::Print(PrintArg::Int(v)) => write!(f, "print.{} {v}", ty(*v)),
            Inst::Print(PrintArg::Bool(v)) => write!(f, "print.bool {v}"),
        }
    }
}

fn write_text(bytes: &[u8], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let shown = &bytes[..bytes.len().min(MAX_SHOWN_BYTES)];
    write!(f, "{:?}", String::from_utf8_lossy(shown))?;
    if shown.len() < bytes.len() {
        write!(f, " … ({} bytes)", bytes.len())?;
    }
    Ok(())
}

fn write_bytes(bytes: &[u8], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let shown = &bytes[..bytes.len().min(MAX_SHOWN_BYTES)];
    f.write_str("[")?;
    for (i, b) in shown.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{b:02x}")?;
    }
    if shown.len() < bytes.len() {
        write!(f, " … ({} bytes)", bytes.len())?;
    }
    f.write_str("]")
}

fn write_terminator(term: &Terminator, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match term {
        Terminator::Jump(b) => write!(f, "jump {b}"),
        Terminator::Branch {
            cond,
            then_block,
            else_block,
        } => write!(f, "branch {cond}, {then_block}, {else_block}"),
        Terminator::Return(Some(v)) => write!(f, "return {v}"),
        Terminator::Return(None) => f.write_str("return"),
        Terminator::Panic(kind) => match kind {
            PanicKind::DivByZero => f.write_str("panic div_by_zero"),
            PanicKind::RemByZero => f.write_str("panic rem_by_zero"),
            PanicKind::DivOverflow => f.write_str("panic div_overflow"),
            PanicKind::RemOverflow => f.write_str("panic rem_overflow"),
            PanicKind::IndexOutOfBounds { index, len } => {
                write!(f, "panic index_out_of_bounds {index}, len {len}")
            }
        },
        Terminator::Unreachable => f.write_str("unreachable"),
    }
}

impl fmt::Display for DisplayIr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = self.f;
        let ty = |v: VReg| {
            func.vregs
                .get(v.0 as usize)
                .copied()
                .unwrap_or(ScalarTy::U64)
        };
        write!(f, "fn {}(", func.name)?;
        for (i, p) in func.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if i == 0 && func.sret {
                f.write_str("sret ")?;
            }
            write!(f, "{p}: {}", ty(*p))?;
        }
        f.write_str(")")?;
        if let Some(r) = func.ret {
            write!(f, " -> {r}")?;
        }
        f.write_str(" {\n")?;
        for (i, s) in func.slots.iter().enumerate() {
            writeln!(
                f,
                "    {}: size {}, align {}",
                SlotId(i as u32),
                s.size,
                s.align
            )?;
        }
        let printed: Vec<bool> = {
            let mut printed = vec![false; func.data.len()];
            for inst in func.blocks.iter().flat_map(|b| &b.insts) {
                if let Inst::Print(PrintArg::Str(d)) = inst {
                    if let Some(p) = printed.get_mut(d.0 as usize) {
                        *p = true;
                    }
                }
            }
            printed
        };
        for (i, bytes) in func.data.iter().enumerate() {
            write!(f, "    {}: ", DataId(i as u32))?;
            if printed[i] {
                write_text(bytes, f)?;
            } else {
                write_bytes(bytes, f)?;
            }
            f.write_str("\n")?;
        }
        for (i, block) in func.blocks.iter().enumerate() {
            writeln!(f, "{}:", BlockId(i as u32))?;
            for inst in &block.insts {
                f.write_str("    ")?;
                self.inst(inst, f)?;
                f.write_str("\n")?;
            }
            f.write_str("    ")?;
            write_terminator(&block.term, f)?;
            f.write_str("\n")?;
        }
        f.write_str("}\n")
    }
}
