//! The program's entry point: `fn main()` at the crate root, found and checked the same
//! way by both drivers (through their own [`SemaEnv`]).

use std::path::Path;

use crate::diag::{Diagnostic, Label};
use crate::intern::Symbol;
use crate::sema::def::{DefId, DefKind, Namespace, Res};
use crate::sema::env::SemaEnv;
use crate::sema::ty::{DisplayTy, FnSig, Ty};
use crate::span::Span;
use crate::syntax::ast::{Path as AstPath, PathSegment, PathSegmentKind, PathSegments};

/// The path `main`, to resolve in the crate root's value namespace.
pub fn main_path() -> AstPath {
    AstPath {
        segments: PathSegments::one(PathSegment {
            kind: PathSegmentKind::Name(Symbol::intern("main")),
            span: Span::default(),
        }),
        span: Span::default(),
    }
}

/// E0601: the crate has no `main`. rustc names the crate after the root file and points
/// at the end of the root file's text: the label's span is relative to the root file's
/// start, and there is no label when the root file could not be parsed (`root_text` is
/// `None`).
pub fn missing_main(root: &Path, root_text: Option<&str>) -> Diagnostic {
    let file_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let crate_name = file_name.trim_end_matches(".rs").to_string();
    let mut diag =
        Diagnostic::error_no_span(format!("`main` function not found in crate `{crate_name}`"))
            .with_code("E0601")
            .with_note(format!(
                "note: consider adding a `main` function to `{}`",
                root.display()
            ));
    if let Some(text) = root_text {
        let end = text.trim_end().len() as u32;
        let last = text[..end as usize]
            .chars()
            .next_back()
            .map_or(0, |c| c.len_utf8() as u32);
        diag.labels.push(Label {
            file: None,
            span: Span::new(end - last, end),
            message: String::new(),
        });
    }
    diag
}

/// The crate root's `fn main`: what `main` names in the root's value namespace, if that
/// is a function defined in the root itself (an imported function is no entry point).
/// `parent` gives an item's parent module.
pub fn find_main(
    env: &dyn SemaEnv,
    root: DefId,
    parent: &dyn Fn(DefId) -> Option<DefId>,
) -> Option<DefId> {
    match env.resolve_path(root, main_path().as_ref(), Namespace::Value) {
        Ok(Res::Def(DefKind::Fn, def)) if parent(def) == Some(root) => Some(def),
        _ => None,
    }
}

/// The signature check of `main` (found by [`find_main`]): [`check_main_signature`] with
/// types named as `env` names them. Nothing when its signature has errors of its own.
/// `name_span` gives `main`'s name, relative to its item (asked right after the
/// signature, so that a driver recording its reads records them in that order).
pub fn check_main(
    env: &dyn SemaEnv,
    main: DefId,
    name_span: &dyn Fn() -> Option<Span>,
) -> Option<Diagnostic> {
    let sig = env.fn_sig(main);
    let (Ok(sig), Some(name_span)) = (sig, name_span()) else {
        return None;
    };
    let ty_name = |ty: &Ty| {
        DisplayTy {
            ty,
            struct_name: |d| env.def_name(d),
        }
        .to_string()
    };
    check_main_signature(&sig, name_span, &ty_name)
}

/// E0580 / E0277: `main` must be `fn main()`. `name_span` is relative to `main`'s item;
/// `ty_name` prints a type as rustc does.
pub fn check_main_signature(
    sig: &FnSig,
    name_span: Span,
    ty_name: &dyn Fn(&Ty) -> String,
) -> Option<Diagnostic> {
    if !sig.params.is_empty() {
        return Some(
            Diagnostic::error("`main` function has wrong type", name_span)
                .with_code("E0580")
                .with_label_message("incorrect number of function parameters")
                .with_note("note: expected signature `fn()`"),
        );
    }
    if !matches!(sig.ret, Ty::Unit | Ty::Error) {
        return Some(
            Diagnostic::error(
                format!("`main` has invalid return type `{}`", ty_name(&sig.ret)),
                name_span,
            )
            .with_code("E0277")
            .with_label_message("`main` can only return types that implement `Termination`"),
        );
    }
    None
}
