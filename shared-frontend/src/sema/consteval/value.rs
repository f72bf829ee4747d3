//! Converting between [`ConstValue`] trees and the evaluator's flat slots, and rendering
//! constant values as text.
//!
//! All three walks use explicit stacks: a value's depth follows struct nesting, which no
//! syntax limit bounds.

use std::fmt::Write;
use std::sync::Arc;

use crate::sema::consteval::layout::Layouts;
use crate::sema::def::DefId;
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::ty::{ConstValue, StructFields, Ty};

/// Appends the slots of `value` (its integers and bools in order) to `out`.
pub(super) fn flatten(value: &ConstValue, out: &mut Vec<u64>) {
    let mut stack = vec![std::slice::from_ref(value).iter()];
    while let Some(items) = stack.last_mut() {
        match items.next() {
            None => {
                stack.pop();
            }
            Some(ConstValue::Int(ty, bits)) => out.push(ty.normalize(*bits)),
            Some(ConstValue::Bool(b)) => out.push(*b as u64),
            Some(ConstValue::Unit) => {}
            Some(ConstValue::Array(items) | ConstValue::Struct(_, items)) => {
                stack.push(items.iter())
            }
        }
    }
}

/// Why slots could not be turned into a value.
pub(super) enum BuildError {
    /// A struct's fields or a type were erroneous (already reported).
    Reported,
    /// The slots do not match the type (an ill-typed tree).
    Mismatch,
}

impl From<ErrorReported> for BuildError {
    fn from(_: ErrorReported) -> BuildError {
        BuildError::Reported
    }
}

enum Partial {
    Array {
        elem: Arc<Ty>,
        len: u64,
        items: Vec<ConstValue>,
    },
    Struct {
        def: DefId,
        fields: Arc<StructFields>,
        items: Vec<ConstValue>,
    },
}

impl Partial {
    fn is_complete(&self) -> bool {
        match self {
            Partial::Array { len, items, .. } => items.len() as u64 == *len,
            Partial::Struct { fields, items, .. } => items.len() == fields.fields.len(),
        }
    }

    fn next_ty(&self) -> Ty {
        match self {
            Partial::Array { elem, .. } => Ty::clone(elem),
            Partial::Struct { fields, items, .. } => fields.fields[items.len()].ty.clone(),
        }
    }

    fn finish(self) -> ConstValue {
        match self {
            Partial::Array { items, .. } => ConstValue::Array(items.into()),
            Partial::Struct { def, items, .. } => ConstValue::Struct(def, items.into()),
        }
    }
}

/// Builds the canonical value of type `ty` from exactly the slots `slots`.
pub(super) fn build(
    layouts: &mut Layouts,
    env: &dyn SemaEnv,
    ty: &Ty,
    slots: &[u64],
) -> Result<ConstValue, BuildError> {
    let mut pos = 0usize;
    let mut open: Vec<Partial> = Vec::new();
    let mut next = ty.clone();
    loop {
        let mut value = match next {
            Ty::Int(int) => {
                let bits = *slots.get(pos).ok_or(BuildError::Mismatch)?;
                pos += 1;
                ConstValue::Int(int, int.normalize(bits))
            }
            Ty::Bool => {
                let bits = *slots.get(pos).ok_or(BuildError::Mismatch)?;
                pos += 1;
                ConstValue::Bool(bits != 0)
            }
            Ty::Unit => ConstValue::Unit,
            Ty::Array(elem, len) => match &*elem {
                // Arrays of scalars, the common large case, in one go.
                Ty::Int(int) => {
                    let items = take(slots, &mut pos, len)?;
                    ConstValue::Array(
                        items
                            .iter()
                            .map(|&b| ConstValue::Int(*int, int.normalize(b)))
                            .collect(),
                    )
                }
                Ty::Bool => {
                    let items = take(slots, &mut pos, len)?;
                    ConstValue::Array(items.iter().map(|&b| ConstValue::Bool(b != 0)).collect())
                }
                _ if len == 0 => ConstValue::Array(Arc::from([])),
                _ => {
                    // The cost limit bounds `len` (every element costs at least 8 bytes).
                    let capacity = usize::try_from(len).map_err(|_| BuildError::Mismatch)?;
                    let partial = Partial::Array {
                        elem: elem.clone(),
                        len,
                        items: Vec::with_capacity(capacity),
                    };
                    next = partial.next_ty();
                    open.push(partial);
                    continue;
                }
            },
            Ty::Struct(def) => {
                let fields = layouts.struct_layout(env, def)?.fields.clone();
                if fields.fields.is_empty() {
                    ConstValue::Struct(def, Arc::from([]))
                } else {
                    let partial = Partial::Struct {
                        def,
                        items: Vec::with_capacity(fields.fields.len()),
                        fields,
                    };
                    next = partial.next_ty();
                    open.push(partial);
                    continue;
                }
            }
            Ty::Never | Ty::Error => return Err(BuildError::Mismatch),
        };
        // Hand the finished value to the innermost open aggregate, closing every
        // aggregate it completes.
        loop {
            let Some(parent) = open.last_mut() else {
                return if pos == slots.len() {
                    Ok(value)
                } else {
                    Err(BuildError::Mismatch)
                };
            };
            match parent {
                Partial::Array { items, .. } | Partial::Struct { items, .. } => items.push(value),
            }
            if parent.is_complete() {
                value = open.pop().ok_or(BuildError::Mismatch)?.finish();
            } else {
                next = parent.next_ty();
                break;
            }
        }
    }
}

fn take<'s>(slots: &'s [u64], pos: &mut usize, len: u64) -> Result<&'s [u64], BuildError> {
    let len = usize::try_from(len).map_err(|_| BuildError::Mismatch)?;
    let end = pos.checked_add(len).ok_or(BuildError::Mismatch)?;
    let items = slots.get(*pos..end).ok_or(BuildError::Mismatch)?;
    *pos = end;
    Ok(items)
}

/// Renders a constant value in a Rust-like form: `-3`, `true`, `()`, `[1, 2, 3]`,
/// `S#1a2b3c4d { 0: 1, 1: [true] }`. Fields are shown by declaration index; structs by
/// the first 8 hex digits of their def-path hash (see [`const_to_string_with`] to name
/// them).
pub fn const_to_string(value: &ConstValue) -> String {
    const_to_string_with(value, &|def| format!("S#{:08x}", (def.0 >> 96) as u32))
}

/// Like [`const_to_string`], with struct names given by `struct_name` (for instance
/// `SemaEnv::def_name`).
pub fn const_to_string_with(value: &ConstValue, struct_name: &dyn Fn(DefId) -> String) -> String {
    enum Open<'v> {
        Array(std::slice::Iter<'v, ConstValue>, bool),
        Struct(std::iter::Enumerate<std::slice::Iter<'v, ConstValue>>),
    }
    let mut out = String::new();
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(v) = next.take() {
            match v {
                ConstValue::Int(ty, bits) => {
                    let _ = write!(out, "{}", ty.to_i128(*bits));
                }
                ConstValue::Bool(b) => {
                    let _ = write!(out, "{b}");
                }
                ConstValue::Unit => out.push_str("()"),
                ConstValue::Array(items) => {
                    out.push('[');
                    stack.push(Open::Array(items.iter(), true));
                }
                ConstValue::Struct(def, items) => {
                    out.push_str(&struct_name(*def));
                    out.push_str(" {");
                    stack.push(Open::Struct(items.iter().enumerate()));
                }
            }
        }
        let Some(top) = stack.last_mut() else {
            return out;
        };
        match top {
            Open::Array(items, first) => match items.next() {
                Some(v) => {
                    if !*first {
                        out.push_str(", ");
                    }
                    *first = false;
                    next = Some(v);
                }
                None => {
                    out.push(']');
                    stack.pop();
                }
            },
            Open::Struct(items) => match items.next() {
                Some((i, v)) => {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, " {i}: ");
                    next = Some(v);
                }
                None => {
                    out.push_str(if out.ends_with('{') { "}" } else { " }" });
                    stack.pop();
                }
            },
        }
    }
}
