//! Memory layout of Rill types, as the IR conventions in [`crate::ir`] fix it.
//!
//! `bool` is 1 byte, `i32` 4, `i64`/`u64`/`usize` 8, each aligned to its size; `()` (and
//! `!`) take no space. A struct lays out its fields in declaration order, each at the next
//! offset that is a multiple of its alignment; its alignment is the largest of its fields'
//! (1 when it has none) and its size is rounded up to that alignment, so an array's stride
//! is simply its element's size and `[T; N]` takes `N × size(T)` bytes.
//!
//! Sizes are computed with saturating arithmetic: typeck rejects values larger than
//! [`crate::limits::MAX_VALUE_SIZE`], and a type that is too big (or a recursive struct,
//! also an error reported elsewhere) must still not crash whoever asks. Struct chains are
//! followed with an explicit stack, never by recursion, since their depth is not bounded
//! by any syntactic nesting limit.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::ScalarTy;
use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::ty::{IntTy, Ty};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub size: u64,
    pub align: u32,
}

impl Layout {
    /// The layout of `()`, `!`, and of types that could not be laid out because of an
    /// error reported elsewhere.
    pub const EMPTY: Layout = Layout { size: 0, align: 1 };

    fn scalar(s: ScalarTy) -> Layout {
        Layout {
            size: s.size() as u64,
            align: s.size(),
        }
    }
}

/// The layout of one struct: its own layout, and its fields' offsets and types in
/// declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructLayout {
    pub layout: Layout,
    pub offsets: Vec<u64>,
    pub field_tys: Vec<Ty>,
}

impl StructLayout {
    fn empty() -> StructLayout {
        StructLayout {
            layout: Layout::EMPTY,
            offsets: Vec::new(),
            field_tys: Vec::new(),
        }
    }
}

/// How a value of a type is held in registers: integers and `bool` are scalars;
/// `()`, `!`, structs and arrays are not.
pub fn scalar_of(ty: &Ty) -> Option<ScalarTy> {
    match ty {
        Ty::Int(IntTy::I32) => Some(ScalarTy::I32),
        Ty::Int(IntTy::I64) => Some(ScalarTy::I64),
        Ty::Int(IntTy::U64 | IntTy::Usize) => Some(ScalarTy::U64),
        Ty::Bool => Some(ScalarTy::Bool),
        Ty::Unit | Ty::Never | Ty::Struct(_) | Ty::Array(..) | Ty::Error => None,
    }
}

/// The size and alignment of a value of type `ty`.
pub fn layout_of(env: &dyn SemaEnv, ty: &Ty) -> Layout {
    LayoutCache::default().layout_of(env, ty)
}

/// The byte offsets of a struct's fields, in declaration order (empty when its fields
/// could not be determined because of an error reported elsewhere).
pub fn struct_field_offsets(env: &dyn SemaEnv, def: DefId) -> Vec<u64> {
    LayoutCache::default()
        .struct_layout(env, def)
        .offsets
        .clone()
}

/// Rounds `n` up to a multiple of `align` (a power of two), saturating.
fn align_to(n: u64, align: u32) -> u64 {
    let mask = align as u64 - 1;
    n.saturating_add(mask) & !mask
}

/// Peels array layers off `ty`: the innermost element type and the product of the
/// counts (saturating). Iterative, because alias chains can nest arrays deeply.
fn peel_arrays(ty: &Ty) -> (&Ty, u64) {
    let mut count = 1u64;
    let mut t = ty;
    while let Ty::Array(elem, n) = t {
        count = count.saturating_mul(*n);
        t = elem;
    }
    (t, count)
}

/// Memoized struct layouts, for callers that ask about many types (lowering asks about
/// every local, field and element).
///
/// Each entry records whether it is *exact*: the struct's layout whatever was computed
/// before. It is not when the computation met a recursive struct or a struct whose fields
/// could not be determined (errors reported elsewhere): the sizes then given to the
/// structs involved depend on where the computation started. Exact layouts are shared
/// with the environment ([`SemaEnv::struct_layout`], [`SemaEnv::remember_struct_layout`]),
/// so that an implementation that memoizes them computes each once.
#[derive(Default)]
pub struct LayoutCache {
    structs: FxHashMap<DefId, (Arc<StructLayout>, bool)>,
}

impl LayoutCache {
    /// Forgets every layout (keeping the memory), for a new environment.
    pub fn clear(&mut self) {
        if !self.structs.is_empty() {
            self.structs.clear();
        }
    }

    pub fn layout_of(&mut self, env: &dyn SemaEnv, ty: &Ty) -> Layout {
        // `[[T; n]; m]` takes `m × n × size(T)` bytes: sizes are multiples of alignments.
        let (leaf, count) = peel_arrays(ty);
        let leaf = match leaf {
            Ty::Struct(def) => match self.structs.get(def) {
                Some((l, _)) => l.layout,
                None => self.struct_layout(env, *def).layout,
            },
            other => scalar_of(other).map_or(Layout::EMPTY, Layout::scalar),
        };
        Layout {
            size: if leaf.size == 0 {
                0
            } else {
                leaf.size.saturating_mul(count)
            },
            align: leaf.align,
        }
    }

    /// The byte offset of field `index` (in declaration order) of struct `def`; 0 when
    /// there is no such field (its fields could not be determined).
    pub fn field_offset(&mut self, env: &dyn SemaEnv, def: DefId, index: usize) -> u64 {
        let offset = |l: &StructLayout| l.offsets.get(index).copied().unwrap_or(0);
        match self.structs.get(&def) {
            Some((l, _)) => offset(l),
            None => offset(&self.struct_layout(env, def)),
        }
    }

    /// The layout of struct `def`, computing (and caching) those of the structs it
    /// contains first, with an explicit stack.
    pub fn struct_layout(&mut self, env: &dyn SemaEnv, def: DefId) -> Arc<StructLayout> {
        if let Some((l, _)) = self.structs.get(&def) {
            return l.clone();
        }
        if let Some(l) = env.struct_layout(def) {
            self.structs.insert(def, (l.clone(), true));
            return l;
        }
        let mut stack = vec![def];
        let mut on_stack: FxHashSet<DefId> = FxHashSet::default();
        on_stack.insert(def);
        let mut fields_of = FxHashMap::default();
        while let Some(&top) = stack.last() {
            let fields = fields_of
                .entry(top)
                .or_insert_with(|| env.struct_fields(top).ok())
                .clone();
            let Some(fields) = fields else {
                self.structs
                    .insert(top, (Arc::new(StructLayout::empty()), false));
                on_stack.remove(&top);
                stack.pop();
                continue;
            };
            // A field whose struct is not laid out yet goes first.
            let pending = fields
                .fields
                .iter()
                .find_map(|f| match peel_arrays(&f.ty).0 {
                    Ty::Struct(d) if !self.structs.contains_key(d) => Some(*d),
                    _ => None,
                });
            if let Some(d) = pending {
                if on_stack.contains(&d) {
                    // A recursive struct (E0072, reported by typeck): give it no size so
                    // that the computation ends.
                    self.structs
                        .insert(d, (Arc::new(StructLayout::empty()), false));
                } else if let Some(l) = env.struct_layout(d) {
                    self.structs.insert(d, (l, true));
                } else {
                    on_stack.insert(d);
                    stack.push(d);
                }
                continue;
            }
            let mut offset = 0u64;
            let mut align = 1u32;
            let mut exact = true;
            let mut offsets = Vec::with_capacity(fields.fields.len());
            let mut field_tys = Vec::with_capacity(fields.fields.len());
            for f in &fields.fields {
                if let Ty::Struct(d) = peel_arrays(&f.ty).0 {
                    exact &= self.structs.get(d).is_some_and(|&(_, e)| e);
                }
                let l = self.layout_of(env, &f.ty);
                offset = align_to(offset, l.align);
                offsets.push(offset);
                offset = offset.saturating_add(l.size);
                align = align.max(l.align);
                field_tys.push(f.ty.clone());
            }
            let layout = Arc::new(StructLayout {
                layout: Layout {
                    size: align_to(offset, align),
                    align,
                },
                offsets,
                field_tys,
            });
            if exact {
                env.remember_struct_layout(top, &layout);
            }
            self.structs.insert(top, (layout, exact));
            on_stack.remove(&top);
            stack.pop();
        }
        self.structs
            .get(&def)
            .map(|(l, _)| l.clone())
            .unwrap_or_else(|| Arc::new(StructLayout::empty()))
    }
}
