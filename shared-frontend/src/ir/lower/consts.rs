//! The bytes of an aggregate constant, laid out as in memory (little-endian, padding
//! zeroed), for a read-only data blob.

use std::sync::Arc;

use crate::ir::layout::StructLayout;
use crate::sema::ty::{ConstValue, IntTy, Ty};

use super::Lowerer;

/// An aggregate whose elements are being written.
enum Frame<'v> {
    Array {
        values: &'v [ConstValue],
        elem: Ty,
        stride: u64,
        base: u64,
        next: usize,
    },
    Struct {
        values: &'v [ConstValue],
        layout: Arc<StructLayout>,
        base: u64,
        next: usize,
    },
}

impl Lowerer<'_> {
    /// Serializes `value` of type `ty` into `size` bytes. Walks the value with an explicit
    /// stack (its depth is the type's nesting, which struct chains do not bound). A value
    /// that does not match its type (impossible after typeck) leaves zeros.
    pub(super) fn const_bytes(&mut self, ty: &Ty, value: &ConstValue, size: u32) -> Vec<u8> {
        let mut buf = vec![0u8; size as usize];
        let mut stack: Vec<Frame<'_>> = Vec::new();
        self.const_item(ty, value, 0, &mut buf, &mut stack);
        while let Some(frame) = stack.last_mut() {
            let (elem_ty, value, offset) = match frame {
                Frame::Array {
                    values,
                    elem,
                    stride,
                    base,
                    next,
                } => {
                    let Some(v) = values.get(*next) else {
                        stack.pop();
                        continue;
                    };
                    let offset = base.saturating_add((*next as u64).saturating_mul(*stride));
                    *next += 1;
                    (elem.clone(), v, offset)
                }
                Frame::Struct {
                    values,
                    layout,
                    base,
                    next,
                } => {
                    let (Some(v), Some(t), Some(off)) = (
                        values.get(*next),
                        layout.field_tys.get(*next),
                        layout.offsets.get(*next),
                    ) else {
                        stack.pop();
                        continue;
                    };
                    let offset = base.saturating_add(*off);
                    *next += 1;
                    (t.clone(), v, offset)
                }
            };
            self.const_item(&elem_ty, value, offset, &mut buf, &mut stack);
        }
        buf
    }

    /// Writes a scalar at `offset`, or pushes an aggregate's frame.
    fn const_item<'v>(
        &mut self,
        ty: &Ty,
        value: &'v ConstValue,
        offset: u64,
        buf: &mut [u8],
        stack: &mut Vec<Frame<'v>>,
    ) {
        let mut put = |bytes: &[u8]| {
            let Ok(start) = usize::try_from(offset) else {
                return;
            };
            if let Some(dst) = buf.get_mut(start..start.saturating_add(bytes.len())) {
                dst.copy_from_slice(bytes);
            }
        };
        match (ty, value) {
            (Ty::Int(IntTy::I32), ConstValue::Int(_, bits)) => put(&(*bits as u32).to_le_bytes()),
            (Ty::Int(_), ConstValue::Int(_, bits)) => put(&bits.to_le_bytes()),
            (Ty::Bool, ConstValue::Bool(b)) => put(&[*b as u8]),
            (Ty::Array(elem, _), ConstValue::Array(values)) => {
                let stride = self.buf.layouts.layout_of(self.env, elem).size;
                stack.push(Frame::Array {
                    values,
                    elem: Ty::clone(elem),
                    stride,
                    base: offset,
                    next: 0,
                });
            }
            (Ty::Struct(def), ConstValue::Struct(_, values)) => {
                let layout = self.buf.layouts.struct_layout(self.env, *def);
                stack.push(Frame::Struct {
                    values,
                    layout,
                    base: offset,
                    next: 0,
                });
            }
            _ => {}
        }
    }
}
