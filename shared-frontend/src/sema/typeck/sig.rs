//! Types written in the source: lowering them to [`Ty`], and the signature-level entry
//! points (function signatures, struct fields, aliases, constant types, `main`).
//!
//! A type path resolves in the type namespace; aliases expand to what they stand for; an
//! array length is a constant expression of type `usize`, evaluated at once (a literal or
//! a `usize` constant directly, anything else by checking it as a constant and running
//! [`eval_const`] on it). An array type larger than [`MAX_VALUE_SIZE`] is an
//! implementation-limit error.

use std::sync::Arc;

use super::expr::{self, Scopes};
use crate::diag::Diagnostic;
use crate::ir::layout::LayoutCache;
use crate::limits::MAX_VALUE_SIZE;
use crate::sema::consteval::{eval_const, ConstEvalError};
use crate::sema::def::{DefId, DefKind, IntConstKind, Namespace, Res, Vis};
use crate::sema::env::SemaEnv;
use crate::sema::ty::{ConstValue, DisplayTy, FieldTy, FnSig, IntTy, StructFields, Ty};
use crate::span::Span;
use crate::syntax::ast::{
    Arena, ConstDef, ExprId, ExprKind, FnDef, IntLit, IntSuffix, PathRef, PathSegmentKind,
    StructDef, TypeAliasDef, TypeId, TypeKind, Visibility,
};

/// Where types are lowered: the module they are written in, the item's arena, and (in a
/// body) the locals an array length must not name.
pub(super) struct LowerCx<'a> {
    pub env: &'a dyn SemaEnv,
    pub module: DefId,
    pub arena: &'a Arena,
    pub outer_locals: Option<&'a Scopes>,
    /// Expression nesting depth so far (array lengths inside bodies continue it).
    pub depth: u32,
}

impl<'a> LowerCx<'a> {
    fn signature(env: &'a dyn SemaEnv, module: DefId, arena: &'a Arena) -> LowerCx<'a> {
        LowerCx {
            env,
            module,
            arena,
            outer_locals: None,
            depth: 0,
        }
    }
}

/// How rustc names a resolution in "expected X, found …".
pub(super) fn res_descr(env: &dyn SemaEnv, res: Res) -> String {
    match res {
        Res::Def(kind, def) => format!("{} `{}`", kind.descr(), env.def_name(def)),
        Res::PrimInt(t) => format!("builtin type `{}`", t.name()),
        Res::PrimBool => "builtin type `bool`".to_string(),
        Res::IntConst(t, kind) => format!(
            "associated constant `{}::{}`",
            t.name(),
            match kind {
                IntConstKind::Min => "MIN",
                IntConstKind::Max => "MAX",
            }
        ),
    }
}

/// Rust's primitive types that Rill does not have.
const OTHER_PRIMITIVES: [&str; 12] = [
    "i8", "i16", "i128", "isize", "u8", "u16", "u32", "u128", "f32", "f64", "char", "str",
];

/// When a path that failed to resolve starts with a primitive type of Rust that Rill
/// lacks (`u8`, `u8::MAX`), that is what to report: it is outside the subset.
pub(super) fn other_primitive(path: PathRef<'_>) -> Option<Diagnostic> {
    let first = path.segments.first()?;
    let PathSegmentKind::Name(name) = first.kind else {
        return None;
    };
    OTHER_PRIMITIVES
        .contains(&name.as_str())
        .then(|| Diagnostic::unsupported(format_args!("the type `{name}`"), first.span))
}

/// Rewords a resolver's "cannot find value/type `x`" for where the path is written, as
/// rustc words it: "cannot find function `f`" for a callee, "cannot find struct, variant
/// or union type `S`" (E0422) for a struct literal.
pub(super) fn reword_not_found(
    mut d: Diagnostic,
    looked_for: &str,
    code: Option<&'static str>,
) -> Diagnostic {
    for prefix in ["cannot find value ", "cannot find type "] {
        if let Some(rest) = d.message.strip_prefix(prefix) {
            d.message = format!("cannot find {looked_for} {rest}");
            if code.is_some() {
                d.code = code;
            }
            break;
        }
    }
    d
}

/// Renders a final type as rustc does.
pub(super) fn ty_name(env: &dyn SemaEnv, ty: &Ty) -> String {
    DisplayTy {
        ty,
        struct_name: |d| env.def_name(d),
    }
    .to_string()
}

/// Lowers the type `id` of `cx.arena`, reporting errors into `diags`.
pub(super) fn lower_ty(cx: &LowerCx<'_>, id: TypeId, diags: &mut Vec<Diagnostic>) -> Ty {
    let ty = &cx.arena[id];
    match &ty.kind {
        TypeKind::Path(path) => {
            match cx
                .env
                .resolve_path(cx.module, cx.arena.path(path), Namespace::Type)
            {
                Ok(Res::PrimInt(i)) => Ty::Int(i),
                Ok(Res::PrimBool) => Ty::Bool,
                Ok(Res::Def(DefKind::Struct, def)) => Ty::Struct(def),
                Ok(Res::Def(DefKind::TypeAlias, def)) => cx.env.alias_ty(def).unwrap_or(Ty::Error),
                Ok(res) => {
                    let what = res_descr(cx.env, res);
                    diags.push(
                        Diagnostic::error(format!("expected type, found {what}"), path.span())
                            .with_code("E0573")
                            .with_label_message("not a type"),
                    );
                    Ty::Error
                }
                Err(d) => {
                    diags.push(other_primitive(cx.arena.path(path)).unwrap_or(d));
                    Ty::Error
                }
            }
        }
        TypeKind::Array(elem, len) => {
            // Recursion follows the nesting of the written type.
            let elem = lower_ty(cx, *elem, diags);
            let len = eval_array_len(cx, *len, diags);
            match (elem, len) {
                (Ty::Error, _) | (_, None) => Ty::Error,
                (elem, Some(n)) => {
                    let t = Ty::Array(Arc::new(elem), n);
                    if check_value_size(cx.env, &mut LayoutCache::default(), &t, ty.span, diags) {
                        t
                    } else {
                        Ty::Error
                    }
                }
            }
        }
        TypeKind::Unit => Ty::Unit,
        // The parser reports `!` as unsupported.
        TypeKind::Never => Ty::Error,
        TypeKind::Error => Ty::Error,
    }
}

/// Whether a value of type `ty` fits in [`MAX_VALUE_SIZE`]; reports at `span` if not.
pub(super) fn check_value_size(
    env: &dyn SemaEnv,
    layouts: &mut LayoutCache,
    ty: &Ty,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let size = layouts.layout_of(env, ty).size;
    if size <= MAX_VALUE_SIZE {
        return true;
    }
    let name = ty_name(env, ty);
    diags.push(
        Diagnostic::error(
            format!(
                "values of the type `{name}` are too big: the size of one value is limited \
                 to {MAX_VALUE_SIZE} bytes (implementation limit `MAX_VALUE_SIZE`)"
            ),
            span,
        )
        .with_note(format!(
            "note: the size of `{name}` is {}",
            if size == u64::MAX {
                "more than 18446744073709551615 bytes".to_string()
            } else {
                format!("{size} bytes")
            }
        )),
    );
    false
}

/// Evaluates the array length `expr` (a `usize` constant expression); `None` after
/// reporting why it has no value.
pub(super) fn eval_array_len(
    cx: &LowerCx<'_>,
    expr: ExprId,
    diags: &mut Vec<Diagnostic>,
) -> Option<u64> {
    let mut e = expr;
    while let ExprKind::Paren(inner) = cx.arena[e].kind {
        e = inner;
    }
    // The usual lengths need neither a typed tree nor the evaluator.
    match &cx.arena[e].kind {
        ExprKind::Int(lit) => {
            if let IntLit {
                value: Some(v),
                suffix: None | Some(IntSuffix::Usize),
                ..
            } = cx.arena.int_lit(*lit)
            {
                if v.get() <= u64::MAX as u128 {
                    return Some(v.get() as u64);
                }
            }
        }
        ExprKind::Path(path) => {
            let path = cx.arena.path(path);
            let is_local = expr::Checker::single_name(path)
                .is_some_and(|n| cx.outer_locals.is_some_and(|s| s.lookup(n).is_some()));
            if !is_local {
                if let Ok(Res::Def(DefKind::Const, def)) =
                    cx.env.resolve_path(cx.module, path, Namespace::Value)
                {
                    match cx.env.const_ty(def) {
                        Ok(Ty::Int(IntTy::Usize)) => {
                            return match cx.env.const_value(def).as_deref() {
                                Ok(ConstValue::Int(_, n)) => Some(*n),
                                _ => None,
                            };
                        }
                        Err(_) | Ok(Ty::Error) => return None,
                        Ok(_) => {}
                    }
                }
            }
        }
        _ => {}
    }
    let result = expr::check_anon_const(cx, expr, Ty::Int(IntTy::Usize));
    let failed = result.has_errors();
    diags.extend(result.diagnostics);
    if failed {
        return None;
    }
    match eval_const(cx.env, &result.thir) {
        Ok(ConstValue::Int(_, n)) => Some(n),
        Ok(_) | Err(ConstEvalError::Reported) => None,
        Err(ConstEvalError::Error(d)) => {
            diags.push(d);
            None
        }
    }
}

/// The signature of a function written in `module`: parameter and return types.
pub fn fn_sig(env: &dyn SemaEnv, module: DefId, def: &FnDef) -> (FnSig, Vec<Diagnostic>) {
    let cx = LowerCx::signature(env, module, &def.arena);
    let mut diags = Vec::new();
    let params = def
        .params
        .iter()
        .map(|p| lower_ty(&cx, p.ty, &mut diags))
        .collect();
    let ret = def.ret.map_or(Ty::Unit, |t| lower_ty(&cx, t, &mut diags));
    (FnSig { params, ret }, diags)
}

/// The fields of a struct written in `module`, in declaration order. A private field is
/// visible in `module` and its descendants. A repeated field name is E0124 (the first
/// one counts).
pub fn struct_fields(
    env: &dyn SemaEnv,
    module: DefId,
    def: &StructDef,
) -> (StructFields, Vec<Diagnostic>) {
    let cx = LowerCx::signature(env, module, &def.arena);
    let mut diags = Vec::new();
    let mut fields: Vec<FieldTy> = Vec::with_capacity(def.fields.len());
    for (i, f) in def.fields.iter().enumerate() {
        let ty = lower_ty(&cx, f.ty, &mut diags);
        if let Some(first) = def.fields[..i].iter().find(|g| g.name.name == f.name.name) {
            diags.push(
                Diagnostic::error(
                    format!("field `{}` is already declared", f.name.name),
                    f.name.span,
                )
                .with_code("E0124")
                .with_label_message("field already declared")
                .with_secondary(
                    first.name.span,
                    format!("`{}` first declared here", f.name.name),
                ),
            );
        }
        fields.push(FieldTy {
            name: f.name.name,
            ty,
            vis: match f.vis {
                Visibility::Pub => Vis::Public,
                Visibility::Private => Vis::Restricted(module),
            },
        });
    }
    (StructFields { fields }, diags)
}

/// The type a type alias stands for.
pub fn alias_ty(env: &dyn SemaEnv, module: DefId, def: &TypeAliasDef) -> (Ty, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let ty = lower_ty(
        &LowerCx::signature(env, module, &def.arena),
        def.ty,
        &mut diags,
    );
    (ty, diags)
}

/// The declared type of a constant.
pub fn const_ty(env: &dyn SemaEnv, module: DefId, def: &ConstDef) -> (Ty, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let ty = lower_ty(
        &LowerCx::signature(env, module, &def.arena),
        def.ty,
        &mut diags,
    );
    (ty, diags)
}

/// Checks the signature of the crate's `fn main` (its existence is the driver's
/// business): no parameters (E0580) and a `()` result (E0277), as rustc requires.
pub fn check_main_sig(env: &dyn SemaEnv, def: &FnDef, sig: &FnSig) -> Option<Diagnostic> {
    if !matches!(sig.ret, Ty::Unit | Ty::Error) {
        let span = def.ret.map_or(def.name.span, |t| def.arena[t].span);
        let name = ty_name(env, &sig.ret);
        return Some(
            Diagnostic::error(format!("`main` has invalid return type `{name}`"), span)
                .with_code("E0277")
                .with_label_message("`main` can only return types that implement `Termination`")
                .with_note("help: consider using `()`, or a `Result`"),
        );
    }
    if !def.params.is_empty() {
        let span = def.params[0].span.to(def.params[def.params.len() - 1].span);
        let found: Vec<String> = sig.params.iter().map(|t| ty_name(env, t)).collect();
        return Some(
            Diagnostic::error("`main` function has wrong type", span)
                .with_code("E0580")
                .with_label_message("incorrect number of function parameters")
                .with_note(format!(
                    "note: expected signature `fn()`\n   found signature `fn({})`",
                    found.join(", ")
                )),
        );
    }
    None
}
