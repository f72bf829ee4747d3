//! The program's entry point: `fn main()` at the crate root, checked the same way by both
//! drivers (each finds `main` with its own tables and asks these functions what to say).

use std::path::Path;

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::sema::ty::{FnSig, Ty};
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
/// at the end of the root file's text; the span is absolute in the root file (`None`
/// when the root file could not be parsed).
pub fn missing_main(root: &Path, root_text: Option<&str>) -> (Diagnostic, Option<Span>) {
    let file_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let crate_name = file_name.trim_end_matches(".rs").to_string();
    let diag =
        Diagnostic::error_no_span(format!("`main` function not found in crate `{crate_name}`"))
            .with_code("E0601")
            .with_note(format!(
                "note: consider adding a `main` function to `{}`",
                root.display()
            ));
    let span = root_text.map(|text| {
        let end = text.trim_end().len() as u32;
        let last = text[..end as usize]
            .chars()
            .next_back()
            .map_or(0, |c| c.len_utf8() as u32);
        Span::new(end - last, end)
    });
    (diag, span)
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
