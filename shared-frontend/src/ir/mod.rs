//! The IR: what the frontend hands to the backend and to the reference interpreter.
//!
//! One [`IrFunction`] per Rill function: a control-flow graph of basic blocks over
//! virtual registers of scalar type. Aggregates (structs, arrays) live in memory, in stack
//! slots or read-only data, and are handled through addresses. Every check that can panic
//! is explicit in the CFG (a branch to a block ending in [`Terminator::Panic`]), so the
//! backend never has to know the language's rules: `Div`/`Rem` are only reached with a
//! non-zero divisor and without `MIN / -1`, and loads and stores are always in bounds.
//!
//! # Conventions
//! - A register's value is meaningful only in its type's width (an `I32` register's upper
//!   32 bits are unspecified); `Bool` is 0 or 1.
//! - `usize` is [`ScalarTy::U64`] in the IR; addresses are [`ScalarTy::Ptr`].
//! - Memory layout: `bool` 1 byte, `i32` 4, `i64`/`u64`/`usize` 8, aligned to their size.
//!   Structs lay out fields in declaration order with natural alignment; arrays are
//!   `count × stride` with stride = element size rounded up to its alignment. `()` takes
//!   no space (see [`layout`]). Memory is little-endian; read-only data blobs hold
//!   constants of any type and are placed at 16-byte aligned addresses.
//! - Calls: scalar arguments in registers; an aggregate argument is passed as the address
//!   of a copy owned by the caller for the duration of the call (the callee may write to
//!   it, as to a `mut` parameter). A function returning an aggregate has `sret`: its first
//!   parameter is the address where it writes the result, and it returns nothing.
//!   Functions returning `()` return nothing, and parameters of type `()` are not passed.
//! - Virtual registers may be assigned more than once (a scalar local is one register).
//!   Block 0 is the entry.
//! - No source positions: machine code must not change when code moves (DESIGN.md
//!   Invariant 5).

pub mod builder;
pub mod interp;
pub mod layout;
pub mod lower;
pub mod opt;
pub mod print;

// What an instruction or terminator defines, reads and jumps to: the IR's def/use
// helpers, shared by the optimizer and the backend.
pub use opt::visit::{def_of, for_each_use, is_pure, successors, term_use};

use std::sync::Arc;

use crate::sema::def::DefId;

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct VReg(pub u32);
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct BlockId(pub u32);
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct SlotId(pub u32);
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct DataId(pub u32);

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarTy {
    Bool,
    I32,
    I64,
    U64,
    Ptr,
}

impl ScalarTy {
    /// Size in memory, in bytes.
    pub fn size(self) -> u32 {
        match self {
            ScalarTy::Bool => 1,
            ScalarTy::I32 => 4,
            ScalarTy::I64 | ScalarTy::U64 | ScalarTy::Ptr => 8,
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ScalarTy::I32 | ScalarTy::I64)
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IrUnOp {
    /// Wrapping negation.
    Neg,
    /// Bitwise not on integers, logical not on `Bool`.
    Not,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IrBinOp {
    /// Wrapping.
    Add,
    Sub,
    Mul,
    /// Truncating; the divisor is never 0 and `MIN / -1` never happens (checked before).
    Div,
    Rem,
    And,
    Or,
    Xor,
    /// The amount (any integer type) is masked to the left operand's width minus one.
    Shl,
    /// Arithmetic for signed types, logical for unsigned ones.
    Shr,
    /// Comparisons yield `Bool`; signedness from the operand type (`Bool`: false < true).
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// `dst = value`; `value` holds the constant's bits (only dst's width is meaningful).
    Const {
        dst: VReg,
        value: u64,
    },
    Copy {
        dst: VReg,
        src: VReg,
    },
    Unary {
        op: IrUnOp,
        dst: VReg,
        src: VReg,
    },
    /// The operation's type is `lhs`'s type.
    Binary {
        op: IrBinOp,
        dst: VReg,
        lhs: VReg,
        rhs: VReg,
    },
    /// Converts `src`'s type to `dst`'s type: truncation, sign or zero extension by the
    /// source's signedness, `Bool` to 0/1.
    Cast {
        dst: VReg,
        src: VReg,
    },
    /// Address of a stack slot of the current frame.
    SlotAddr {
        dst: VReg,
        slot: SlotId,
    },
    /// Address of a read-only data blob of the function.
    DataAddr {
        dst: VReg,
        data: DataId,
    },
    /// `dst = *(addr + offset)`, reading `dst`'s type.
    Load {
        dst: VReg,
        addr: VReg,
        offset: u32,
    },
    /// `*(addr + offset) = src`, writing `src`'s type.
    Store {
        addr: VReg,
        offset: u32,
        src: VReg,
    },
    /// `dst = base + index * scale` (`index` is `U64`, already bounds-checked).
    ElemAddr {
        dst: VReg,
        base: VReg,
        index: VReg,
        scale: u32,
    },
    /// Copies `size` bytes; the ranges are equal or disjoint.
    MemCopy {
        dst: VReg,
        src: VReg,
        size: u32,
    },
    /// Calls a function (see the calling convention). Out of line, so that the other
    /// instructions, which take at most 24 bytes, are not padded to a call's size.
    Call(Box<CallInst>),
    /// Appends to the program's output.
    Print(PrintArg),
}

/// A call of the function with def-path hash `callee`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallInst {
    pub dst: Option<VReg>,
    pub callee: DefId,
    pub args: Vec<VReg>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PrintArg {
    /// The bytes of a data blob (UTF-8 text, newlines included).
    Str(DataId),
    /// An integer in decimal, by the register's type's signedness.
    Int(VReg),
    /// `true` or `false`.
    Bool(VReg),
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PanicKind {
    DivByZero,
    RemByZero,
    /// `MIN / -1`
    DivOverflow,
    /// `MIN % -1`
    RemOverflow,
    IndexOutOfBounds {
        index: VReg,
        len: u64,
    },
}

impl PanicKind {
    /// The message rustc prints (without the location line).
    pub fn message(&self) -> &'static str {
        match self {
            PanicKind::DivByZero => "attempt to divide by zero",
            PanicKind::RemByZero => "attempt to calculate the remainder with a divisor of zero",
            PanicKind::DivOverflow => "attempt to divide with overflow",
            PanicKind::RemOverflow => "attempt to calculate the remainder with overflow",
            PanicKind::IndexOutOfBounds { .. } => "index out of bounds",
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    Jump(BlockId),
    Branch {
        cond: VReg,
        then_block: BlockId,
        else_block: BlockId,
    },
    Return(Option<VReg>),
    Panic(PanicKind),
    /// Control never gets here (after a diverging call's continuation, for example).
    Unreachable,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BasicBlock {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    pub size: u32,
    pub align: u32,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IrFunction {
    pub def: DefId,
    /// The def-path, for listings (`crate::geometry::area`).
    pub name: String,
    /// Parameter registers in order (the `sret` address first when `sret`).
    pub params: Vec<VReg>,
    pub sret: bool,
    /// `None` for `()` and for `sret` functions.
    pub ret: Option<ScalarTy>,
    /// The type of every virtual register, indexed by `VReg`.
    pub vregs: Vec<ScalarTy>,
    pub slots: Vec<Slot>,
    pub data: Vec<Arc<[u8]>>,
    pub blocks: Vec<BasicBlock>,
}

impl IrFunction {
    pub fn ty(&self, v: VReg) -> ScalarTy {
        self.vregs[v.0 as usize]
    }
}

/// The IR of a whole program, functions in a deterministic order.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IrProgram {
    pub functions: Vec<Arc<IrFunction>>,
    pub main: DefId,
}
