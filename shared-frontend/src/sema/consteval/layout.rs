//! The flat layout of values during constant evaluation.
//!
//! The evaluator stores a value as a run of 64-bit *slots*: an integer or a `bool` takes
//! one slot, `()` and `!` take none, an array is its elements one after another and a
//! struct its fields in declaration order. Copying a value is then a `memcpy`, and an
//! element or field of a variable is addressed by an offset, so `a[i] = v` on a large
//! array costs O(1).
//!
//! Every type also has a *cost*, its size as the evaluator and the resulting
//! [`ConstValue`](crate::sema::ty::ConstValue) tree see it: every integer, `bool` and `()`
//! counts as 8 bytes, and no value counts as less than 8 bytes (so `[(); N]` and
//! `[[i32; 0]; N]` are not free). The cost is held to `limits::MAX_VALUE_SIZE`, which bounds
//! the memory of every value and the size of every `ConstValue` the evaluator builds.
//!
//! Struct layouts are computed without recursion (struct nesting is not bounded by the
//! syntax nesting limit) and memoized per evaluation.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::sema::def::DefId;
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::ty::{StructFields, Ty};

/// Cost of one scalar and the minimum cost of any value, in bytes.
pub(super) const SCALAR_COST: u64 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Size {
    /// Number of slots (saturating).
    pub slots: u64,
    /// Bytes as counted against `MAX_VALUE_SIZE` (saturating).
    pub cost: u64,
}

pub(super) struct StructLayout {
    pub fields: Arc<StructFields>,
    /// Slot offset of each field, in declaration order.
    pub offsets: Box<[u64]>,
    pub size: Size,
}

#[derive(Default)]
pub(super) struct Layouts {
    /// `None` while the struct's layout is being computed (a cycle means the struct is
    /// recursive, which `check_struct` reports as E0072).
    structs: FxHashMap<DefId, Option<StructLayout>>,
    /// Array lengths of the type being measured, outermost first (reused buffer).
    lengths: Vec<u64>,
}

struct Pending {
    def: DefId,
    fields: Arc<StructFields>,
    next: usize,
    offsets: Vec<u64>,
    size: Size,
}

/// The innermost element type of a (possibly nested) array type.
fn peel_arrays(mut ty: &Ty) -> &Ty {
    while let Ty::Array(elem, _) = ty {
        ty = elem;
    }
    ty
}

impl Layouts {
    /// The size of a value of type `ty`. `Err` for `Ty::Error`, a struct whose fields
    /// could not be computed, or a recursive struct: errors reported elsewhere.
    pub fn size_of(&mut self, env: &dyn SemaEnv, ty: &Ty) -> Result<Size, ErrorReported> {
        // Fast path for the common scalar types.
        match ty {
            Ty::Int(_) | Ty::Bool => {
                return Ok(Size {
                    slots: 1,
                    cost: SCALAR_COST,
                })
            }
            Ty::Unit | Ty::Never => {
                return Ok(Size {
                    slots: 0,
                    cost: SCALAR_COST,
                })
            }
            _ => {}
        }
        let mut lengths = std::mem::take(&mut self.lengths);
        lengths.clear();
        let mut inner = ty;
        while let Ty::Array(elem, n) = inner {
            lengths.push(*n);
            inner = elem;
        }
        let result = match inner {
            Ty::Int(_) | Ty::Bool => Ok(Size {
                slots: 1,
                cost: SCALAR_COST,
            }),
            Ty::Unit | Ty::Never => Ok(Size {
                slots: 0,
                cost: SCALAR_COST,
            }),
            Ty::Struct(def) => self.struct_layout(env, *def).map(|l| l.size),
            Ty::Error | Ty::Array(..) => Err(ErrorReported),
        };
        let result = result.map(|mut size| {
            for &n in lengths.iter().rev() {
                size = Size {
                    slots: size.slots.saturating_mul(n),
                    cost: size.cost.saturating_mul(n).max(SCALAR_COST),
                };
            }
            size
        });
        self.lengths = lengths;
        result
    }

    /// The layout of struct `def`, computing it (and those of the structs it contains)
    /// with an explicit stack.
    pub fn struct_layout(
        &mut self,
        env: &dyn SemaEnv,
        def: DefId,
    ) -> Result<&StructLayout, ErrorReported> {
        if !matches!(self.structs.get(&def), Some(Some(_))) {
            self.compute_struct(env, def)?;
        }
        match self.structs.get(&def) {
            Some(Some(layout)) => Ok(layout),
            _ => Err(ErrorReported),
        }
    }

    #[inline(never)]
    fn compute_struct(&mut self, env: &dyn SemaEnv, def: DefId) -> Result<(), ErrorReported> {
        let mut work = vec![self.start(env, def)?];
        while let Some(top) = work.last() {
            let Some(field_ty) = top.fields.fields.get(top.next).map(|f| f.ty.clone()) else {
                let done = work.pop().ok_or(ErrorReported)?;
                let size = Size {
                    slots: done.size.slots,
                    cost: done.size.cost.max(SCALAR_COST),
                };
                self.structs.insert(
                    done.def,
                    Some(StructLayout {
                        fields: done.fields,
                        offsets: done.offsets.into_boxed_slice(),
                        size,
                    }),
                );
                continue;
            };
            if let Ty::Struct(inner) = peel_arrays(&field_ty) {
                match self.structs.get(inner) {
                    Some(Some(_)) => {}
                    // Recursive struct (E0072, reported by `check_struct`).
                    Some(None) => return Err(ErrorReported),
                    None => {
                        let pending = self.start(env, *inner)?;
                        work.push(pending);
                        continue;
                    }
                }
            }
            // Every struct inside the field's type is laid out now: no further descent.
            let size = self.size_of(env, &field_ty)?;
            let Some(top) = work.last_mut() else {
                return Err(ErrorReported);
            };
            top.offsets.push(top.size.slots);
            top.size.slots = top.size.slots.saturating_add(size.slots);
            top.size.cost = top.size.cost.saturating_add(size.cost);
            top.next += 1;
        }
        Ok(())
    }

    fn start(&mut self, env: &dyn SemaEnv, def: DefId) -> Result<Pending, ErrorReported> {
        let fields = env.struct_fields(def)?;
        self.structs.insert(def, None);
        Ok(Pending {
            def,
            offsets: Vec::with_capacity(fields.fields.len()),
            fields,
            next: 0,
            size: Size { slots: 0, cost: 0 },
        })
    }
}
