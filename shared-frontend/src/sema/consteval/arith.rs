//! Integer and `bool` operators as constant evaluation performs them.
//!
//! At run time `+ - *`, unary `-` and shifts wrap (overflow checks are off), but rustc's
//! constant evaluator checks every operation: overflow, a shift amount outside
//! `0..bits`, division or remainder by zero and `MIN / -1`, `MIN % -1` are compile errors
//! (E0080). The messages below are rustc 1.95's, operands rendered as rustc renders a
//! `ConstInt` (`i32::MAX`, `u64::MAX`, `-1_i32`, `0_u64`). Casts never fail.
//!
//! Values are canonical 64-bit patterns (see [`IntTy::normalize`]); `bool` is 0 or 1.

use crate::sema::ty::IntTy;
use crate::syntax::ast::BinOp;

/// Why an operator could not produce a value.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum OpError {
    /// A constant-evaluation error (E0080) with rustc's message.
    Eval(String),
    /// The operator does not apply to these operand types (an ill-typed tree).
    IllTyped,
}

/// An integer as rustc prints it in const-eval messages (`ConstInt`'s alternate `Debug`):
/// the type's `MIN`/`MAX` by name (only `MAX` for unsigned types), anything else with a
/// type suffix.
pub(super) fn fmt_int(ty: IntTy, bits: u64) -> String {
    let v = ty.to_i128(bits);
    if ty.is_signed() && v == ty.min_i128() {
        format!("{}::MIN", ty.name())
    } else if v == ty.max_i128() {
        format!("{}::MAX", ty.name())
    } else {
        format!("{v}_{}", ty.name())
    }
}

/// The canonical bits of a mathematical value already known to be in `ty`'s range.
fn from_i128(ty: IntTy, v: i128) -> u64 {
    ty.normalize(v as u64)
}

fn in_range(ty: IntTy, v: i128) -> bool {
    ty.min_i128() <= v && v <= ty.max_i128()
}

/// `l op r` on integers of type `ty`; for shifts, `r` has type `rhs_ty`. Comparisons
/// yield 0 or 1.
pub(super) fn binary_int(
    op: BinOp,
    ty: IntTy,
    l: u64,
    r: u64,
    rhs_ty: IntTy,
) -> Result<u64, OpError> {
    let a = ty.to_i128(l);
    let overflow = |b: u64| {
        OpError::Eval(format!(
            "attempt to compute `{} {} {}`, which would overflow",
            fmt_int(ty, l),
            op.as_str(),
            fmt_int(ty, b)
        ))
    };
    let arith = |v: Option<i128>| match v {
        Some(v) if in_range(ty, v) => Ok(from_i128(ty, v)),
        _ => Err(overflow(r)),
    };
    match op {
        BinOp::Add => arith(a.checked_add(ty.to_i128(r))),
        BinOp::Sub => arith(a.checked_sub(ty.to_i128(r))),
        BinOp::Mul => arith(a.checked_mul(ty.to_i128(r))),
        BinOp::Div | BinOp::Rem => {
            let b = ty.to_i128(r);
            if b == 0 {
                let l = fmt_int(ty, l);
                return Err(OpError::Eval(if op == BinOp::Div {
                    format!("attempt to divide `{l}` by zero")
                } else {
                    format!("attempt to calculate the remainder of `{l}` with a divisor of zero")
                }));
            }
            if ty.is_signed() && a == ty.min_i128() && b == -1 {
                return Err(overflow(r));
            }
            // i128 division truncates toward zero, like Rust's.
            Ok(from_i128(ty, if op == BinOp::Div { a / b } else { a % b }))
        }
        BinOp::BitAnd => Ok(ty.normalize(l & r)),
        BinOp::BitOr => Ok(ty.normalize(l | r)),
        BinOp::BitXor => Ok(ty.normalize(l ^ r)),
        BinOp::Shl | BinOp::Shr => {
            let amount = rhs_ty.to_i128(r);
            if amount < 0 || amount >= ty.bits() as i128 {
                let dir = if op == BinOp::Shl { "left" } else { "right" };
                return Err(OpError::Eval(format!(
                    "attempt to shift {dir} by `{}`, which would overflow",
                    fmt_int(rhs_ty, r)
                )));
            }
            let amount = amount as u32;
            Ok(ty.normalize(if op == BinOp::Shl {
                l << amount
            } else if ty.is_signed() {
                // Canonical signed bits are sign-extended, so a 64-bit arithmetic shift
                // is right for `i32` too.
                ((l as i64) >> amount) as u64
            } else {
                l >> amount
            }))
        }
        BinOp::Eq => Ok((a == ty.to_i128(r)) as u64),
        BinOp::Ne => Ok((a != ty.to_i128(r)) as u64),
        BinOp::Lt => Ok((a < ty.to_i128(r)) as u64),
        BinOp::Le => Ok((a <= ty.to_i128(r)) as u64),
        BinOp::Gt => Ok((a > ty.to_i128(r)) as u64),
        BinOp::Ge => Ok((a >= ty.to_i128(r)) as u64),
        BinOp::And | BinOp::Or => Err(OpError::IllTyped),
    }
}

/// `l op r` on `bool`s (non-short-circuiting: `&`, `|`, `^` and comparisons, with
/// `false < true`).
pub(super) fn binary_bool(op: BinOp, l: bool, r: bool) -> Result<bool, OpError> {
    Ok(match op {
        BinOp::BitAnd => l & r,
        BinOp::BitOr => l | r,
        BinOp::BitXor => l ^ r,
        BinOp::Eq => l == r,
        BinOp::Ne => l != r,
        BinOp::Lt => !l & r,
        BinOp::Le => l <= r,
        BinOp::Gt => l & !r,
        BinOp::Ge => l >= r,
        _ => return Err(OpError::IllTyped),
    })
}

/// Unary `-` on a signed integer.
pub(super) fn neg(ty: IntTy, x: u64) -> Result<u64, OpError> {
    if !ty.is_signed() {
        return Err(OpError::IllTyped);
    }
    let v = ty.to_i128(x);
    if v == ty.min_i128() {
        return Err(OpError::Eval(format!(
            "attempt to negate `{}`, which would overflow",
            fmt_int(ty, x)
        )));
    }
    Ok(from_i128(ty, -v))
}

/// Unary `!` on an integer: bitwise not.
pub(super) fn not(ty: IntTy, x: u64) -> u64 {
    ty.normalize(!x)
}

/// `x as to`, where `x` is canonical bits of any integer type (sign-extended when signed)
/// or a `bool` (0 or 1): truncation to the target width, then sign- or zero-extension,
/// exactly Rust's `as`.
pub(super) fn cast(to: IntTy, x: u64) -> u64 {
    to.normalize(x)
}
