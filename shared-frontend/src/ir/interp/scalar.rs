//! The semantics of scalar operations, shared by the interpreter and constant folding so
//! that folding is exactly what execution would compute.
//!
//! Values are held in a *canonical* 64-bit form: `I32` sign-extended to 64 bits, `Bool` 0
//! or 1, `I64`/`U64`/`Ptr` as they are. Every operation takes canonical operands and
//! returns a canonical result, so comparisons can use 64-bit signed or unsigned order.

use crate::ir::{IrBinOp, IrUnOp, ScalarTy};

/// The canonical form of `bits` as a value of type `ty` (only `ty`'s width counts; a
/// `Bool` is its lowest bit).
#[inline(always)]
pub fn canon(ty: ScalarTy, bits: u64) -> u64 {
    match ty {
        ScalarTy::Bool => bits & 1,
        ScalarTy::I32 => bits as u32 as i32 as i64 as u64,
        ScalarTy::I64 | ScalarTy::U64 | ScalarTy::Ptr => bits,
    }
}

/// Number of value bits of an integer type (shift amounts are masked to this minus one).
#[inline(always)]
pub fn bits_of(ty: ScalarTy) -> u32 {
    match ty {
        ScalarTy::Bool => 1,
        ScalarTy::I32 => 32,
        ScalarTy::I64 | ScalarTy::U64 | ScalarTy::Ptr => 64,
    }
}

/// The smallest value of a signed type, canonical (0 for unsigned types).
pub fn signed_min(ty: ScalarTy) -> u64 {
    match ty {
        ScalarTy::I32 => i32::MIN as i64 as u64,
        ScalarTy::I64 => i64::MIN as u64,
        _ => 0,
    }
}

#[inline(always)]
pub fn shl32(a: u64, b: u64) -> u64 {
    ((a as u32) << (b & 31)) as i32 as i64 as u64
}

#[inline(always)]
pub fn shl64(a: u64, b: u64) -> u64 {
    a << (b & 63)
}

/// Arithmetic right shift of a canonical `I32` (its 64-bit form is sign-extended already).
#[inline(always)]
pub fn shr_s32(a: u64, b: u64) -> u64 {
    ((a as i64) >> (b & 31)) as u64
}

#[inline(always)]
pub fn shr_s64(a: u64, b: u64) -> u64 {
    ((a as i64) >> (b & 63)) as u64
}

#[inline(always)]
pub fn shr_u64(a: u64, b: u64) -> u64 {
    a >> (b & 63)
}

/// Signed division of canonical values; `None` when rustc's check would panic.
#[inline(always)]
pub fn div_s(ty: ScalarTy, a: u64, b: u64) -> Option<u64> {
    if b == 0 || (a == signed_min(ty) && b as i64 == -1) {
        return None;
    }
    Some(canon(ty, (a as i64).wrapping_div(b as i64) as u64))
}

#[inline(always)]
pub fn rem_s(ty: ScalarTy, a: u64, b: u64) -> Option<u64> {
    if b == 0 || (a == signed_min(ty) && b as i64 == -1) {
        return None;
    }
    Some(canon(ty, (a as i64).wrapping_rem(b as i64) as u64))
}

/// `lhs op rhs` computed in `ty` (the left operand's type), on canonical operands.
/// `None` for a division or remainder that would panic (zero divisor, `MIN / -1`).
pub fn eval_binary(op: IrBinOp, ty: ScalarTy, a: u64, b: u64) -> Option<u64> {
    let signed = ty.is_signed();
    Some(match op {
        IrBinOp::Add => canon(ty, a.wrapping_add(b)),
        IrBinOp::Sub => canon(ty, a.wrapping_sub(b)),
        IrBinOp::Mul => canon(ty, a.wrapping_mul(b)),
        IrBinOp::Div if signed => return div_s(ty, a, b),
        IrBinOp::Div => canon(ty, a.checked_div(b)?),
        IrBinOp::Rem if signed => return rem_s(ty, a, b),
        IrBinOp::Rem => canon(ty, a.checked_rem(b)?),
        IrBinOp::And => a & b,
        IrBinOp::Or => a | b,
        IrBinOp::Xor => a ^ b,
        IrBinOp::Shl => match bits_of(ty) {
            32 => shl32(a, b),
            64 => shl64(a, b),
            _ => a,
        },
        IrBinOp::Shr => match (bits_of(ty), signed) {
            (32, _) => shr_s32(a, b),
            (64, true) => shr_s64(a, b),
            (64, false) => shr_u64(a, b),
            _ => a,
        },
        IrBinOp::Eq => (a == b) as u64,
        IrBinOp::Ne => (a != b) as u64,
        IrBinOp::Lt => lt(signed, a, b) as u64,
        IrBinOp::Le => (!lt(signed, b, a)) as u64,
        IrBinOp::Gt => lt(signed, b, a) as u64,
        IrBinOp::Ge => (!lt(signed, a, b)) as u64,
    })
}

#[inline(always)]
fn lt(signed: bool, a: u64, b: u64) -> bool {
    if signed {
        (a as i64) < (b as i64)
    } else {
        a < b
    }
}

/// `op src` in `ty`, on a canonical operand.
pub fn eval_unary(op: IrUnOp, ty: ScalarTy, a: u64) -> u64 {
    match op {
        IrUnOp::Neg => canon(ty, a.wrapping_neg()),
        IrUnOp::Not => canon(ty, !a),
    }
}

/// `src as dst_ty` for a canonical `src` of any type: truncation, or sign or zero
/// extension by the source's signedness (which the canonical form already encodes).
#[inline(always)]
pub fn eval_cast(dst_ty: ScalarTy, a: u64) -> u64 {
    canon(dst_ty, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarTy::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(canon(I32, 0xffff_ffff), u64::MAX);
        assert_eq!(canon(I32, 0x1_0000_0005), 5);
        assert_eq!(canon(Bool, 2), 0);
        assert_eq!(canon(U64, u64::MAX), u64::MAX);
        assert_eq!(eval_unary(IrUnOp::Not, Bool, 1), 0);
        assert_eq!(eval_unary(IrUnOp::Not, I32, 0), u64::MAX);
    }
}
