//! Machine registers and their roles (the internal calling convention is System V's).

pub(crate) const RAX: u8 = 0;
pub(crate) const RCX: u8 = 1;
pub(crate) const RDX: u8 = 2;
pub(crate) const RBX: u8 = 3;
pub(crate) const RBP: u8 = 5;
pub(crate) const RSI: u8 = 6;
pub(crate) const RDI: u8 = 7;
pub(crate) const R8: u8 = 8;
pub(crate) const R9: u8 = 9;
pub(crate) const R10: u8 = 10;
pub(crate) const R11: u8 = 11;
pub(crate) const R12: u8 = 12;
pub(crate) const R13: u8 = 13;
pub(crate) const R14: u8 = 14;
pub(crate) const R15: u8 = 15;

/// Argument registers, in order.
pub(crate) const ARG_REGS: [u8; 6] = [RDI, RSI, RDX, RCX, R8, R9];
/// Registers the allocator hands out (rax, rcx and rdx are scratch; rsp is the stack).
pub(crate) const ALLOCATABLE: u16 = (1 << RBX)
    | (1 << RBP)
    | (1 << RSI)
    | (1 << RDI)
    | (1 << R8)
    | (1 << R9)
    | (1 << R10)
    | (1 << R11)
    | (1 << R12)
    | (1 << R13)
    | (1 << R14)
    | (1 << R15);
pub(crate) const CALLEE_SAVED: u16 =
    (1 << RBX) | (1 << RBP) | (1 << R12) | (1 << R13) | (1 << R14) | (1 << R15);
/// Preference for values not live across calls: caller-saved first.
pub(crate) const ALLOC_ORDER: [u8; 12] = [RSI, RDI, R8, R9, R10, R11, RBX, R12, R13, R14, R15, RBP];
/// Callee-saved registers, in preference and push order.
pub(crate) const CALLEE_ORDER: [u8; 6] = [RBX, R12, R13, R14, R15, RBP];
