//! Inference types: [`Ty`] plus type variables, and their unification.
//!
//! Two kinds of variables exist, as in rustc. An *integer* variable stands for the type of
//! an unsuffixed literal that had no expected integer type; it unifies only with integer
//! types and defaults to `i32`. A *general* variable stands for a type known only later:
//! the element type of an array literal without an expected type, the value type of a
//! `loop` without one, or the target of a `!` coercion with nothing to coerce to. A general
//! variable that a `!` was coerced to is *diverging* and defaults to `()` (rustc's
//! fallback in edition 2021); any other unresolved general variable is an error
//! ("type annotations needed").
//!
//! Variables live in a union-find table owned by one body's checker; nothing here is
//! shared between bodies. So do array and struct types: an [`ITy`] names them by an index
//! into the same context, which keeps `ITy` an 8-byte `Copy` value.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::ty::{IntTy, Ty};
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct VarId(pub u32);

/// An array type of one body's [`InferCtxt`]. Array types are hash-consed there, so two
/// ids are equal exactly when their element types and lengths are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ArrayId(u32);

/// A struct type of one body's [`InferCtxt`]: an index standing for the struct's
/// [`DefId`] (which is 16 bytes), so that an [`ITy`] fits in a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct StructId(u32);

/// A type during inference. Equality is structural (variables compare by id, not by
/// what they are bound to), as array and struct types are interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum ITy {
    Int(IntTy),
    Bool,
    Unit,
    Never,
    /// See [`InferCtxt::struct_def`].
    Struct(StructId),
    /// See [`InferCtxt::array_parts`].
    Array(ArrayId),
    Var(VarId),
    Error,
}

impl ITy {
    /// A dense number for each type: the scalars first, then the body's structs and arrays
    /// by their ids, interleaved. Equal numbers make equal final types (see
    /// [`InferCtxt::finalize`]); a variable, unresolved once types are final, has the
    /// error's number.
    pub(super) fn dense_key(self) -> usize {
        match self {
            ITy::Int(i) => i as usize,
            ITy::Bool => 4,
            ITy::Unit => 5,
            ITy::Never => 6,
            ITy::Error | ITy::Var(_) => 7,
            ITy::Struct(StructId(id)) => 8 + 2 * id as usize,
            ITy::Array(ArrayId(id)) => 9 + 2 * id as usize,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VarKind {
    Int,
    General,
}

#[derive(Clone, Debug)]
struct VarData {
    /// Union-find parent; a root is its own parent.
    parent: u32,
    /// Meaningful at roots only.
    kind: VarKind,
    /// Meaningful at roots only: a `!` was coerced to this variable.
    diverging: bool,
    /// Meaningful at roots only. Never a bare `Var` or `Never`; for an integer variable,
    /// an integer type or `Error`.
    value: Option<ITy>,
    /// Where the variable was created (for "type annotations needed").
    origin: Span,
}

/// The type variables, array types and struct types of one body.
#[derive(Default)]
pub(super) struct InferCtxt {
    vars: Vec<VarData>,
    /// The struct of each [`StructId`] (see [`intern`]).
    structs: Vec<DefId>,
    struct_ids: FxHashMap<DefId, u32>,
    /// Element type and length of each [`ArrayId`] (see [`intern`]).
    arrays: Vec<(ITy, u64)>,
    array_ids: FxHashMap<(ITy, u64), u32>,
    /// The final type of each array type, filled by [`InferCtxt::finalize`] (which runs
    /// only once no variable can change any more).
    final_arrays: Vec<Option<Ty>>,
}

/// Bodies use few distinct array and struct types: up to this many are found by
/// scanning the list, more through the index.
const SCANNED_TYPES: usize = 8;

/// The index of `key` in `list`, appended if missing. `index` maps keys to indices once
/// the list is longer than [`SCANNED_TYPES`] (it is empty until then).
fn intern<K: Copy + Eq + std::hash::Hash>(
    list: &mut Vec<K>,
    index: &mut FxHashMap<K, u32>,
    key: K,
) -> u32 {
    if list.len() <= SCANNED_TYPES {
        if let Some(i) = list.iter().position(|&k| k == key) {
            return i as u32;
        }
    } else if let Some(&i) = index.get(&key) {
        return i;
    }
    let id = list.len() as u32;
    list.push(key);
    if list.len() > SCANNED_TYPES {
        if index.is_empty() {
            index.extend(list.iter().enumerate().map(|(i, &k)| (k, i as u32)));
        } else {
            index.insert(key, id);
        }
    }
    id
}

impl InferCtxt {
    /// Empties the context for another body, keeping its buffers, with room for `vars`
    /// variables before it grows.
    pub(super) fn reset(&mut self, vars: usize) {
        self.vars.clear();
        self.vars.reserve(vars);
        self.structs.clear();
        self.struct_ids.clear();
        self.arrays.clear();
        self.array_ids.clear();
        self.final_arrays.clear();
    }

    /// The type `[elem; n]`.
    pub(super) fn array(&mut self, elem: ITy, n: u64) -> ITy {
        let id = intern(&mut self.arrays, &mut self.array_ids, (elem, n));
        ITy::Array(ArrayId(id))
    }

    /// The type of struct `def`.
    pub(super) fn struct_ty(&mut self, def: DefId) -> ITy {
        let id = intern(&mut self.structs, &mut self.struct_ids, def);
        ITy::Struct(StructId(id))
    }

    /// Every struct that a type of this body holds (and possibly more).
    pub(super) fn structs(&self) -> &[DefId] {
        &self.structs
    }

    /// The struct a struct type stands for.
    pub(super) fn struct_def(&self, id: StructId) -> DefId {
        self.structs[id.0 as usize]
    }

    /// The element type and length of an array type.
    pub(super) fn array_parts(&self, id: ArrayId) -> (ITy, u64) {
        self.arrays[id.0 as usize]
    }

    /// A final type as an inference type (its structs and arrays entered in the table).
    pub(super) fn import_ty(&mut self, ty: &Ty) -> ITy {
        match ty {
            Ty::Int(i) => ITy::Int(*i),
            Ty::Bool => ITy::Bool,
            Ty::Unit => ITy::Unit,
            Ty::Never => ITy::Never,
            Ty::Struct(d) => self.struct_ty(*d),
            Ty::Array(elem, n) => {
                let elem = self.import_ty(elem);
                self.array(elem, *n)
            }
            Ty::Error => ITy::Error,
        }
    }

    pub(super) fn new_var(&mut self, kind: VarKind, origin: Span) -> ITy {
        let id = self.vars.len() as u32;
        self.vars.push(VarData {
            parent: id,
            kind,
            diverging: false,
            value: None,
            origin,
        });
        ITy::Var(VarId(id))
    }

    /// A fresh general variable that a `!` value is coerced to.
    pub(super) fn new_diverging_var(&mut self, origin: Span) -> ITy {
        let v = self.new_var(VarKind::General, origin);
        if let ITy::Var(id) = v {
            self.vars[id.0 as usize].diverging = true;
        }
        v
    }

    fn find(&mut self, v: VarId) -> u32 {
        let mut root = v.0;
        while self.vars[root as usize].parent != root {
            root = self.vars[root as usize].parent;
        }
        // Path compression, iteratively.
        let mut cur = v.0;
        while self.vars[cur as usize].parent != root {
            let next = self.vars[cur as usize].parent;
            self.vars[cur as usize].parent = root;
            cur = next;
        }
        root
    }

    /// Resolves a top-level variable to its value, or to its root variable.
    #[inline]
    pub(super) fn shallow(&mut self, ty: &ITy) -> ITy {
        match *ty {
            ITy::Var(v) => self.shallow_var(v),
            t => t,
        }
    }

    fn shallow_var(&mut self, v: VarId) -> ITy {
        let root = self.find(v);
        match self.vars[root as usize].value {
            Some(t) => t,
            None => ITy::Var(VarId(root)),
        }
    }

    /// The kind of an unresolved variable (`None` for anything else).
    pub(super) fn var_kind(&mut self, ty: &ITy) -> Option<VarKind> {
        match self.shallow(ty) {
            ITy::Var(v) => Some(self.vars[v.0 as usize].kind),
            _ => None,
        }
    }

    /// Marks the variable `ty` resolves to (if any) as the target of a `!` coercion.
    pub(super) fn mark_diverging(&mut self, ty: &ITy) {
        if let ITy::Var(v) = self.shallow(ty) {
            self.vars[v.0 as usize].diverging = true;
        }
    }

    /// Whether `ty` is `!`. Variables are never bound to `!` (see [`InferCtxt::bind`]), so
    /// this needs no resolution.
    pub(super) fn is_never(&self, ty: &ITy) -> bool {
        matches!(ty, ITy::Never)
    }

    /// An integer type or an integer variable.
    pub(super) fn is_integral(&mut self, ty: &ITy) -> bool {
        match self.shallow(ty) {
            ITy::Int(_) => true,
            ITy::Var(v) => self.vars[v.0 as usize].kind == VarKind::Int,
            _ => false,
        }
    }

    /// [`InferCtxt::is_integral`] for a type already resolved by [`InferCtxt::shallow`].
    pub(super) fn is_integral_resolved(&self, ty: ITy) -> bool {
        match ty {
            ITy::Int(_) => true,
            ITy::Var(v) => self.vars[v.0 as usize].kind == VarKind::Int,
            _ => false,
        }
    }

    /// Makes `a` and `b` equal; `false` if they cannot be. `Error` unifies with anything.
    /// Recursion follows array nesting only, which follows the nesting of the source.
    pub(super) fn unify(&mut self, a: &ITy, b: &ITy) -> bool {
        let a = self.shallow(a);
        let b = self.shallow(b);
        match (&a, &b) {
            // A variable that meets an error becomes one, so that nothing more is
            // reported about it (no default, no literal range check).
            (ITy::Var(v), ITy::Error) | (ITy::Error, ITy::Var(v)) => {
                self.vars[v.0 as usize].value = Some(ITy::Error);
                true
            }
            (ITy::Error, _) | (_, ITy::Error) => true,
            (ITy::Var(x), ITy::Var(y)) => {
                if x != y {
                    let (x, y) = (x.0 as usize, y.0 as usize);
                    let kind =
                        if self.vars[x].kind == VarKind::Int || self.vars[y].kind == VarKind::Int {
                            VarKind::Int
                        } else {
                            VarKind::General
                        };
                    let diverging = self.vars[x].diverging || self.vars[y].diverging;
                    self.vars[x].parent = y as u32;
                    self.vars[y].kind = kind;
                    self.vars[y].diverging = diverging;
                }
                true
            }
            (ITy::Var(v), t) | (t, ITy::Var(v)) => self.bind(*v, t),
            (ITy::Int(x), ITy::Int(y)) => x == y,
            (ITy::Array(x), ITy::Array(y)) => {
                x == y || {
                    let ((ea, na), (eb, nb)) = (self.array_parts(*x), self.array_parts(*y));
                    na == nb && self.unify(&ea, &eb)
                }
            }
            (ITy::Bool, ITy::Bool) | (ITy::Unit, ITy::Unit) | (ITy::Never, ITy::Never) => true,
            (ITy::Struct(x), ITy::Struct(y)) => x == y,
            _ => false,
        }
    }

    /// Binds a root variable to a non-variable type (never to `!`: a `!` value is coerced,
    /// not unified).
    fn bind(&mut self, v: VarId, t: &ITy) -> bool {
        let data = &self.vars[v.0 as usize];
        let ok = match data.kind {
            VarKind::Int => matches!(t, ITy::Int(_)),
            VarKind::General => !matches!(t, ITy::Never) && !self.occurs(v, t),
        };
        if ok {
            self.vars[v.0 as usize].value = Some(*t);
        }
        ok
    }

    fn occurs(&mut self, v: VarId, t: &ITy) -> bool {
        match t {
            ITy::Var(w) => self.find(*w) == v.0,
            ITy::Array(id) => {
                let elem = self.array_parts(*id).0;
                let elem = self.shallow(&elem);
                self.occurs(v, &elem)
            }
            _ => false,
        }
    }

    /// Applies the fallbacks: unresolved integer variables become `i32`, unresolved
    /// diverging variables `()`. Called once, when the body has been checked.
    pub(super) fn apply_fallback(&mut self) {
        for i in 0..self.vars.len() {
            let data = &self.vars[i];
            if data.parent != i as u32 || data.value.is_some() {
                continue;
            }
            let fallback = match data.kind {
                VarKind::Int => ITy::Int(IntTy::I32),
                VarKind::General if data.diverging => ITy::Unit,
                VarKind::General => continue,
            };
            self.vars[i].value = Some(fallback);
        }
    }

    /// The final type. An unresolved variable (possible only after
    /// [`InferCtxt::apply_fallback`] for non-diverging general variables) becomes
    /// `Ty::Error`, and its root is reported through `unresolved`.
    ///
    /// An array type is made final once and then cloned: its unresolved variables were
    /// reported the first time, and reporting is once per variable.
    // Inlined into its loops: most types are final as they are.
    #[inline(always)]
    pub(super) fn finalize(&mut self, ty: &ITy, unresolved: &mut dyn FnMut(VarId, Span)) -> Ty {
        match self.shallow(ty) {
            ITy::Int(i) => Ty::Int(i),
            ITy::Bool => Ty::Bool,
            ITy::Unit => Ty::Unit,
            ITy::Never => Ty::Never,
            ITy::Struct(d) => Ty::Struct(self.struct_def(d)),
            ITy::Array(id) => self.finalize_array(id, unresolved),
            ITy::Var(v) => {
                let origin = self.vars[v.0 as usize].origin;
                unresolved(v, origin);
                Ty::Error
            }
            ITy::Error => Ty::Error,
        }
    }

    /// [`InferCtxt::finalize`] for the array type `id`.
    #[inline(never)]
    fn finalize_array(&mut self, id: ArrayId, unresolved: &mut dyn FnMut(VarId, Span)) -> Ty {
        let i = id.0 as usize;
        if let Some(Some(t)) = self.final_arrays.get(i) {
            return t.clone();
        }
        let (elem, n) = self.array_parts(id);
        let t = match self.finalize(&elem, unresolved) {
            Ty::Error => Ty::Error,
            elem => Ty::Array(Arc::new(elem), n),
        };
        if self.final_arrays.len() <= i {
            self.final_arrays.resize(self.arrays.len(), None);
        }
        self.final_arrays[i] = Some(t.clone());
        t
    }

    /// Renders a type as rustc does while inference is under way: `{integer}` for an
    /// integer variable, `_` for a general one.
    pub(super) fn display(&mut self, ty: &ITy, env: &dyn SemaEnv) -> String {
        let mut out = String::new();
        self.display_into(ty, env, &mut out);
        out
    }

    fn display_into(&mut self, ty: &ITy, env: &dyn SemaEnv, out: &mut String) {
        match self.shallow(ty) {
            ITy::Int(i) => out.push_str(i.name()),
            ITy::Bool => out.push_str("bool"),
            ITy::Unit => out.push_str("()"),
            ITy::Never => out.push('!'),
            ITy::Struct(d) => out.push_str(&env.def_name(self.struct_def(d))),
            ITy::Array(id) => {
                let (elem, n) = self.array_parts(id);
                out.push('[');
                self.display_into(&elem, env, out);
                out.push_str("; ");
                out.push_str(&n.to_string());
                out.push(']');
            }
            ITy::Var(v) => match self.vars[v.0 as usize].kind {
                VarKind::Int => out.push_str("{integer}"),
                VarKind::General => out.push('_'),
            },
            ITy::Error => out.push_str("{type error}"),
        }
    }

    /// How rustc names a type in "expected X, found Y": `integer` for an integer
    /// variable, the type in backticks otherwise.
    pub(super) fn describe(&mut self, ty: &ITy, env: &dyn SemaEnv) -> String {
        if self.var_kind(ty) == Some(VarKind::Int) {
            "integer".to_string()
        } else {
            format!("`{}`", self.display(ty, env))
        }
    }
}
