//! Resolving one path written in a body or a signature (`f`, `m::S`, `super::C`,
//! `i64::MAX`, `Alias::MIN`), with rustc's diagnostics.
//!
//! A path starts with `crate`, `self`, `super` (repeatable, also after `self`) or a name
//! in the current module's scope; every following segment but the last names a module,
//! and each must be visible from the module the path is written in. A segment naming a
//! type instead (a primitive, a struct or an alias) makes the rest type-relative: only
//! `MIN` and `MAX` of an integer type exist.

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::sema::def::{DefId, DefKind, IntConstKind, Namespace, Res};
use crate::sema::ty::IntTy;
use crate::span::Span;
use crate::syntax::ast::{ExprKind, PathRef, PathSegment, PathSegmentKind, TypeKind};

use super::{
    is_accessible, is_struct_like, path_text, privacy_error, segment_text, Binding, ScopeLookup,
};

/// Where a path is written, which picks its namespace and rustc's wording of errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathSource {
    /// A type (`let x: T`).
    Type,
    /// A value (`let x = C;`).
    Value,
    /// The callee of a call (`f()`): a value; "cannot find function".
    Call,
    /// The name of a struct literal (`S { … }`): a struct or an alias (E0422/E0574).
    Struct,
}

impl PathSource {
    pub fn ns(self) -> Namespace {
        match self {
            PathSource::Type | PathSource::Struct => Namespace::Type,
            PathSource::Value | PathSource::Call => Namespace::Value,
        }
    }

    /// What was looked for, in "cannot find {} `x`".
    fn looked_for(self) -> &'static str {
        match self {
            PathSource::Type => "type",
            PathSource::Value => "value",
            PathSource::Call => "function",
            PathSource::Struct => "struct, variant or union type",
        }
    }

    /// What was expected, in "expected {}, found …".
    fn expected(self) -> &'static str {
        match self {
            PathSource::Type => "type",
            PathSource::Value | PathSource::Call => "value",
            PathSource::Struct => "struct, variant or union type",
        }
    }

    fn not_found_code(self) -> &'static str {
        match self {
            PathSource::Struct => "E0422",
            _ => "E0425",
        }
    }

    fn wrong_kind_code(self) -> &'static str {
        match self {
            PathSource::Type => "E0573",
            PathSource::Value | PathSource::Call => "E0423",
            PathSource::Struct => "E0574",
        }
    }

    fn not_a(self) -> &'static str {
        match self {
            PathSource::Type => "not a type",
            PathSource::Value | PathSource::Call => "not a value",
            PathSource::Struct => "not a struct, variant or union type",
        }
    }
}

/// How many type aliases `Alias::MAX` may go through before it is taken for a cycle.
const MAX_ALIAS_CHAIN: u32 = 64;

/// Resolves `path`, written in module `from`, in namespace `ns`. Diagnostics carry the
/// path's spans (relative to the item that contains it).
pub fn resolve_path(
    ctx: &dyn ScopeLookup,
    from: DefId,
    path: PathRef<'_>,
    ns: Namespace,
) -> Result<Res, Diagnostic> {
    let source = match ns {
        Namespace::Type => PathSource::Type,
        Namespace::Value => PathSource::Value,
    };
    resolve_path_as(ctx, from, path, source)
}

/// [`resolve_path`] with rustc's wording for where the path is written (a callee, a
/// struct literal).
pub fn resolve_path_as(
    ctx: &dyn ScopeLookup,
    from: DefId,
    path: PathRef<'_>,
    source: PathSource,
) -> Result<Res, Diagnostic> {
    resolve(ctx, from, path, source, 0)
}

/// What the single name `name` denotes in module `from`'s namespace `ns`: what
/// [`resolve_path`] answers for a one-segment path when it succeeds, without building the
/// diagnostic when it does not.
pub fn lookup_name(ctx: &dyn ScopeLookup, from: DefId, name: Symbol, ns: Namespace) -> Option<Res> {
    if let Some(b) = ctx.binding_in(from, name, ns) {
        return b.res;
    }
    match ns {
        Namespace::Type => primitive(name),
        Namespace::Value => None,
    }
}

fn resolve(
    ctx: &dyn ScopeLookup,
    from: DefId,
    path: PathRef<'_>,
    source: PathSource,
    alias_depth: u32,
) -> Result<Res, Diagnostic> {
    let segs = &path.segments[..];
    let Some(first) = segs.first() else {
        return Err(Diagnostic::error("expected a path", path.span));
    };
    let ns = source.ns();

    // The module the walk is in, after the leading `crate` / `self` / `super`s.
    let mut module;
    let mut i;
    match first.kind {
        PathSegmentKind::Name(name) => {
            if segs.len() == 1 {
                return match ctx.binding_in(from, name, ns) {
                    Some(b) => single_segment(Some(&b), None, name, first.span, source),
                    None => {
                        let bound = ctx.name_in(from, name);
                        single_segment(None, bound.get(other(ns)), name, first.span, source)
                    }
                };
            }
            match ctx.binding_in(from, name, Namespace::Type) {
                Some(b) => match b.res {
                    None => return Err(failed_import(name, first.span)),
                    Some(Res::Def(DefKind::Mod, m)) => {
                        module = m;
                        i = 1;
                    }
                    Some(res) => return type_relative(ctx, segs, 1, res, source, alias_depth),
                },
                None => {
                    if let Some(prim) = primitive(name) {
                        return type_relative(ctx, segs, 1, prim, source, alias_depth);
                    }
                    return Err(first_segment_not_module(
                        ctx.binding_in(from, name, Namespace::Value).as_ref(),
                        name,
                        first.span,
                    ));
                }
            }
        }
        PathSegmentKind::Crate => {
            module = ctx.root();
            i = 1;
        }
        PathSegmentKind::SelfMod => {
            module = from;
            i = 1;
        }
        PathSegmentKind::Super => {
            module = from;
            i = 0;
        }
    }
    if first.kind != PathSegmentKind::Crate {
        while i < segs.len() && segs[i].kind == PathSegmentKind::Super {
            match ctx.parent(module) {
                Some(p) => module = p,
                None => return Err(too_many_supers(segs[i].span)),
            }
            i += 1;
        }
    }
    if i == segs.len() {
        return Err(keyword_path_not_item(segs, path.span, source));
    }

    // Every segment but the last names a module.
    while i + 1 < segs.len() {
        let seg = &segs[i];
        let name = segment_name(seg)?;
        match ctx.binding_in(module, name, Namespace::Type) {
            Some(b) => {
                if !is_accessible(ctx, b.vis, from) {
                    return Err(privacy_error(&b, name, seg.span));
                }
                match b.res {
                    None => return Err(failed_import(name, seg.span)),
                    Some(Res::Def(DefKind::Mod, m)) => module = m,
                    Some(res) => return type_relative(ctx, segs, i + 1, res, source, alias_depth),
                }
            }
            None => {
                let within = module_ref(&segs[i - 1]);
                let value = ctx.binding_in(module, name, Namespace::Value);
                let label = match value.and_then(|b| b.res) {
                    Some(res) => format!(
                        "expected type, found {} `{name}` in {within}",
                        super::res_descr(res)
                    ),
                    None => format!("could not find `{name}` in {within}"),
                };
                return Err(Diagnostic::error(
                    format!("cannot find `{name}` in {within}"),
                    seg.span,
                )
                .with_code("E0433")
                .with_label_message(label));
            }
        }
        i += 1;
    }

    // The last segment, in the namespace asked for.
    let last = &segs[i];
    let name = segment_name(last)?;
    match ctx.binding_in(module, name, ns) {
        Some(b) => {
            if !is_accessible(ctx, b.vis, from) {
                return Err(privacy_error(&b, name, last.span));
            }
            match b.res {
                None => Err(failed_import(name, last.span)),
                Some(res) => check_kind(res, segs, path.span, source),
            }
        }
        None => {
            if let Some(res) = ctx.binding_in(module, name, other(ns)).and_then(|b| b.res) {
                return Err(wrong_kind(res, &path_text(segs), path.span, source));
            }
            let prefix = &segs[..i];
            let (within, label) = if prefix.len() == 1 && prefix[0].kind == PathSegmentKind::Crate {
                (
                    String::from("the crate root"),
                    String::from("not found in the crate root"),
                )
            } else {
                let p = path_text(prefix);
                (format!("module `{p}`"), format!("not found in `{p}`"))
            };
            Err(Diagnostic::error(
                format!("cannot find {} `{name}` in {within}", source.looked_for()),
                last.span,
            )
            .with_code(source.not_found_code())
            .with_label_message(label))
        }
    }
}

fn other(ns: Namespace) -> Namespace {
    match ns {
        Namespace::Type => Namespace::Value,
        Namespace::Value => Namespace::Type,
    }
}

/// The primitive type a name stands for when nothing in scope has it.
pub(crate) fn primitive(name: Symbol) -> Option<Res> {
    Some(match name.as_str() {
        "i32" => Res::PrimInt(IntTy::I32),
        "i64" => Res::PrimInt(IntTy::I64),
        "u64" => Res::PrimInt(IntTy::U64),
        "usize" => Res::PrimInt(IntTy::Usize),
        "bool" => Res::PrimBool,
        _ => return None,
    })
}

fn segment_name(seg: &PathSegment) -> Result<Symbol, Diagnostic> {
    match seg.kind {
        PathSegmentKind::Name(n) => Ok(n),
        kw => Err(keyword_not_at_start(segment_text(kw), seg.span)),
    }
}

pub(crate) fn keyword_not_at_start(kw: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        format!("`{kw}` in paths can only be used in start position"),
        span,
    )
    .with_code("E0433")
    .with_label_message("can only be used in path start position")
}

pub(crate) fn too_many_supers(span: Span) -> Diagnostic {
    Diagnostic::error("too many leading `super` keywords", span)
        .with_code("E0433")
        .with_label_message("there are too many leading `super` keywords")
}

/// How rustc names the module a segment stands for in "could not find `x` in …".
pub(crate) fn module_ref(seg: &PathSegment) -> String {
    match seg.kind {
        PathSegmentKind::Crate => String::from("the crate root"),
        kind => format!("`{}`", segment_text(kind)),
    }
}

/// A name bound to an import that failed: its error was reported at the `use`.
fn failed_import(name: Symbol, span: Span) -> Diagnostic {
    Diagnostic::error(
        format!("cannot use `{name}`: its import failed to resolve"),
        span,
    )
    .with_label_message("unresolved import")
}

fn single_segment(
    here: Option<&Binding>,
    other_ns: Option<&Binding>,
    name: Symbol,
    span: Span,
    source: PathSource,
) -> Result<Res, Diagnostic> {
    let segs = [PathSegment {
        kind: PathSegmentKind::Name(name),
        span,
    }];
    if let Some(b) = here {
        // The module's own items and imports are always visible from it.
        return match b.res {
            None => Err(failed_import(name, span)),
            Some(res) => check_kind(res, &segs, span, source),
        };
    }
    if let Some(prim) = primitive(name) {
        return match source {
            PathSource::Type => Ok(prim),
            _ => Err(wrong_kind(prim, name.as_str(), span, source)),
        };
    }
    if let Some(res) = other_ns.and_then(|b| b.res) {
        return Err(wrong_kind(res, name.as_str(), span, source));
    }
    Err(Diagnostic::error(
        format!("cannot find {} `{name}` in this scope", source.looked_for()),
        span,
    )
    .with_code(source.not_found_code())
    .with_label_message("not found in this scope"))
}

/// A struct literal needs a struct (or an alias of one; the type checker looks further).
fn check_kind(
    res: Res,
    segs: &[PathSegment],
    span: Span,
    source: PathSource,
) -> Result<Res, Diagnostic> {
    if source == PathSource::Struct && !is_struct_like(res) {
        return Err(wrong_kind(res, &path_text(segs), span, source));
    }
    Ok(res)
}

/// E0423 / E0573 / E0574: `expected value, found struct `m::S``.
fn wrong_kind(res: Res, written: &str, span: Span, source: PathSource) -> Diagnostic {
    let d = Diagnostic::error(
        format!(
            "expected {}, found {} `{written}`",
            source.expected(),
            super::res_descr(res)
        ),
        span,
    )
    .with_code(source.wrong_kind_code());
    match res {
        // rustc suggests a struct literal instead of labelling.
        Res::Def(DefKind::Struct, _) if source != PathSource::Struct => d,
        _ => d.with_label_message(source.not_a()),
    }
}

/// A path that is only `crate`, `self` or `super`s.
fn keyword_path_not_item(segs: &[PathSegment], span: Span, source: PathSource) -> Diagnostic {
    let written = path_text(segs);
    if source.ns() == Namespace::Value
        && segs.len() == 1
        && segs[0].kind == PathSegmentKind::SelfMod
    {
        return Diagnostic::error("expected value, found module `self`", span)
            .with_code("E0424")
            .with_label_message(
                "`self` value is a keyword only available in methods with a `self` parameter",
            );
    }
    Diagnostic::error(
        format!("expected {}, found module `{written}`", source.expected()),
        span,
    )
    .with_code(source.wrong_kind_code())
    .with_label_message(source.not_a())
}

/// `q::x` where `q` is not a module in scope.
fn first_segment_not_module(value: Option<&Binding>, name: Symbol, span: Span) -> Diagnostic {
    if matches!(name.as_str(), "std" | "core" | "alloc") {
        return Diagnostic::unsupported(format!("paths into `{name}`"), span);
    }
    match value.and_then(|b| b.res) {
        Some(Res::Def(DefKind::Const, _)) => {
            Diagnostic::error(format!("cannot find type `{name}` in this scope"), span)
                .with_code("E0433")
                .with_label_message(format!("`{name}` is declared as a constant, not a type"))
        }
        Some(res) => Diagnostic::error(
            format!("cannot find module or crate `{name}` in this scope"),
            span,
        )
        .with_code("E0433")
        .with_label_message(format!(
            "{} `{name}` is not a crate or module",
            super::res_descr(res)
        )),
        None => Diagnostic::error(
            format!("cannot find module or crate `{name}` in this scope"),
            span,
        )
        .with_code("E0433")
        .with_label_message(format!(
            "use of unresolved module or unlinked crate `{name}`"
        )),
    }
}

/// `T::name…` where `segs[..next]` resolved to the type `base`.
fn type_relative(
    ctx: &dyn ScopeLookup,
    segs: &[PathSegment],
    next: usize,
    base: Res,
    source: PathSource,
    alias_depth: u32,
) -> Result<Res, Diagnostic> {
    let assoc = &segs[next];
    if source.ns() == Namespace::Type || next + 1 < segs.len() {
        // `T::X` as a type, or `T::X::y`: rustc wants `<T as Trait>::X`.
        let end = if source.ns() == Namespace::Type {
            segs[segs.len() - 1].span
        } else {
            assoc.span
        };
        return Err(
            Diagnostic::error("ambiguous associated type", segs[0].span.to(end)).with_code("E0223"),
        );
    }
    let name = segment_name(assoc)?;
    let type_written = path_text(&segs[..next]);
    associated_item(ctx, base, name, &type_written, assoc.span, alias_depth)
}

fn associated_item(
    ctx: &dyn ScopeLookup,
    base: Res,
    name: Symbol,
    type_written: &str,
    span: Span,
    alias_depth: u32,
) -> Result<Res, Diagnostic> {
    let kind_words = if name.as_str().starts_with(|c: char| c.is_ascii_lowercase()) {
        "function or associated item"
    } else {
        "associated item"
    };
    let no_item = |for_what: String, in_what: &str| {
        Diagnostic::error(
            format!("no {kind_words} named `{name}` found for {for_what} in the current scope"),
            span,
        )
        .with_code("E0599")
        .with_label_message(format!("{kind_words} not found in `{in_what}`"))
    };
    match base {
        Res::PrimInt(t) => match name.as_str() {
            "MIN" => Ok(Res::IntConst(t, IntConstKind::Min)),
            "MAX" => Ok(Res::IntConst(t, IntConstKind::Max)),
            _ => Err(Diagnostic::unsupported(
                format!(
                    "associated item `{}::{name}` (only `MIN` and `MAX` of integer types)",
                    t.name()
                ),
                span,
            )),
        },
        Res::PrimBool => Err(Diagnostic::unsupported(
            format!("associated item `bool::{name}`"),
            span,
        )),
        Res::Def(DefKind::Struct, s) => {
            let s_name = ctx
                .item_name(s)
                .map(|n| n.as_str().to_string())
                .unwrap_or_else(|| type_written.to_string());
            Err(no_item(format!("struct `{s_name}`"), &s_name))
        }
        Res::Def(DefKind::TypeAlias, a) => {
            if alias_depth >= MAX_ALIAS_CHAIN {
                return Err(Diagnostic::error(
                    format!("cycle detected when expanding type alias `{type_written}`"),
                    span,
                )
                .with_code("E0391"));
            }
            let Some((alias_module, alias)) = ctx.type_alias(a) else {
                return Err(alias_error(type_written, span));
            };
            let ty = &alias.arena[alias.ty];
            match &ty.kind {
                TypeKind::Path(p) => {
                    // The alias's own errors are reported where the alias is checked.
                    let p = alias.arena.path(p);
                    let target = resolve(ctx, alias_module, p, PathSource::Type, alias_depth + 1)
                        .map_err(|_| alias_error(type_written, span))?;
                    let target_written = path_text(p.segments);
                    associated_item(ctx, target, name, &target_written, span, alias_depth + 1)
                }
                TypeKind::Unit => Err(no_item(String::from("unit type `()`"), "()")),
                TypeKind::Array(elem, len) => {
                    let text = format!(
                        "[{}; {}]",
                        type_text(&alias.arena, *elem, 0),
                        len_text(&alias.arena, *len)
                    );
                    Err(no_item(format!("array `{text}`"), &text))
                }
                TypeKind::Never => Err(Diagnostic::unsupported("the never type `!`", span)),
                TypeKind::Error => Err(alias_error(type_written, span)),
            }
        }
        Res::Def(DefKind::Mod | DefKind::Fn | DefKind::Const, _) | Res::IntConst(..) => Err(
            Diagnostic::error(format!("cannot find `{name}` in `{type_written}`"), span)
                .with_code("E0433"),
        ),
    }
}

fn alias_error(alias: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        format!("cannot use `{alias}`: the type alias has errors"),
        span,
    )
    .with_label_message("type alias with errors")
}

/// A type as written, for messages (array lengths other than literals and paths as `_`).
fn type_text(
    arena: &crate::syntax::ast::Arena,
    ty: crate::syntax::ast::TypeId,
    depth: u32,
) -> String {
    if depth > 8 {
        return String::from("_");
    }
    match &arena[ty].kind {
        TypeKind::Path(p) => path_text(arena.path(p).segments),
        TypeKind::Array(elem, len) => format!(
            "[{}; {}]",
            type_text(arena, *elem, depth + 1),
            len_text(arena, *len)
        ),
        TypeKind::Unit => String::from("()"),
        TypeKind::Never => String::from("!"),
        TypeKind::Error => String::from("_"),
    }
}

fn len_text(arena: &crate::syntax::ast::Arena, len: crate::syntax::ast::ExprId) -> String {
    match &arena[len].kind {
        ExprKind::Int(lit) => match arena.int_lit(*lit).value {
            Some(v) => v.get().to_string(),
            None => String::from("_"),
        },
        ExprKind::Path(p) => path_text(arena.path(p).segments),
        _ => String::from("_"),
    }
}
