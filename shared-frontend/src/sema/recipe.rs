//! The rules both drivers follow around the per-item analyses, written once: the steps
//! of an item that other items read (and so that a cycle can go through), how a cycle is
//! reported (E0391), how a constant's value is computed, and the canonical order of a
//! crate's diagnostics. The staged pipeline runs them in stages over whole-crate tables,
//! the query driver memoizes each step as a query; neither writes a rule again
//! (DESIGN.md Invariant 1, driver independence).
//!
//! Nothing here knows how a driver stores, caches or schedules its results: what a rule
//! needs is passed in — the [`SemaEnv`], the cycle's frames as (step, item) pairs, the
//! items in source order.

use crate::diag::Diagnostic;
use crate::sema::consteval::{eval_const_item, ConstEvalError};
use crate::sema::def::{DefId, DefKind, DefPath};
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::items::def_name;
use crate::sema::ty::ConstValue;
use crate::sema::typeck::typeck_const;
use crate::span::Span;
use crate::syntax::ast::ConstDef;

/// A step of an item that other items read through [`SemaEnv`], so a step a cycle can go
/// through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// A function's signature (`typeck::fn_sig`).
    FnSig,
    /// A struct's fields (`typeck::struct_fields`).
    StructFields,
    /// The type a type alias stands for (`typeck::alias_ty`).
    AliasTy,
    /// A constant's declared type (`typeck::const_ty`).
    ConstTy,
    /// A constant's value ([`const_value`]).
    ConstValue,
}

impl Step {
    /// How rustc names the step in cycle errors, before the item's name.
    pub const fn description(self) -> &'static str {
        match self {
            Step::FnSig => "computing function signature of",
            Step::StructFields => "computing the fields of",
            Step::AliasTy => "expanding type alias",
            Step::ConstTy => "computing type of",
            Step::ConstValue => "simplifying constant for the type system",
        }
    }

    /// The step of item `name`, as cycle errors say it:
    /// "computing function signature of `f`".
    pub fn describe(self, name: &str) -> String {
        format!("{} `{name}`", self.description())
    }
}

/// E0391, rustc's cycle error. `frames` are the steps on the cycle in call order,
/// starting with the one that was read again (the last one read it); `name_span` is the
/// name's span of the first frame's item, relative to that item; `def_path` gives an
/// item's def-path (items are named by it, without `crate::`).
pub fn cycle_error(
    frames: &[(Step, DefId)],
    name_span: Span,
    def_path: &dyn Fn(DefId) -> Option<DefPath>,
) -> Diagnostic {
    let describe = |&(step, def): &(Step, DefId)| {
        let name = def_path(def).map_or_else(|| String::from("{unknown}"), |p| def_name(&p));
        step.describe(&name)
    };
    let Some(first) = frames.first() else {
        return Diagnostic::error("cycle detected", name_span).with_code("E0391");
    };
    let first = describe(first);
    let mut diag =
        Diagnostic::error(format!("cycle detected when {first}"), name_span).with_code("E0391");
    for frame in &frames[1..] {
        diag = diag.with_note(format!("note: ...which requires {}...", describe(frame)));
    }
    diag.with_note(format!(
        "note: ...which again requires {first}, completing the cycle"
    ))
}

/// The diagnostics of step `(step, def)` when it was on a cycle, whatever its own
/// computation found — the rule for cycles, the same in both drivers: a step on a cycle
/// has no value, and the diagnostics found while computing it are dropped (rustc, too,
/// reports only the cycle); the cycle error is reported once, by the step that was read
/// again (the first of `frames`), at that step's place in the canonical order. `frames`
/// is the last cycle found through the step while it was being computed (a step can be
/// on several); `name_span` is the name's span of `def`, relative to it.
pub fn on_cycle(
    frames: &[(Step, DefId)],
    step: Step,
    def: DefId,
    name_span: Span,
    def_path: &dyn Fn(DefId) -> Option<DefPath>,
) -> Vec<Diagnostic> {
    if frames.first() == Some(&(step, def)) {
        vec![cycle_error(frames, name_span, def_path)]
    } else {
        Vec::new()
    }
}

/// The value of constant `def` (written in module `module`): its body type-checked and,
/// if that found no error, evaluated. `report` receives the body's diagnostics before the
/// evaluation starts (a single-run driver reports them in that order: a cycle found while
/// evaluating comes after them), then the evaluation's own error, if any; spans are
/// relative to the item. `Err` means the error was reported here or where it arose.
pub fn const_value(
    env: &dyn SemaEnv,
    def: DefId,
    module: DefId,
    ast: &ConstDef,
    report: &mut dyn FnMut(Vec<Diagnostic>),
) -> Result<ConstValue, ErrorReported> {
    let body = typeck_const(env, module, ast);
    let failed = body.has_errors();
    report(body.diagnostics);
    if failed {
        return Err(ErrorReported);
    }
    eval_const_item(env, def, &body.thir).map_err(|e| {
        if let ConstEvalError::Error(d) = e {
            report(vec![d]);
        }
        ErrorReported
    })
}

/// What finds diagnostics about one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// One of the item's steps.
    Step(Step),
    /// A struct's structural checks (`typeck::check_struct`: recursive types, size).
    CheckStruct,
    /// A function's body (`typeck::typeck_fn`).
    Typeck,
}

/// Where diagnostics are found, in the terms of the canonical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A check of an item.
    Item(Check, DefId),
    /// The entry point (`sema::entry`: `main` missing or of the wrong type).
    Main,
}

/// The checks of an item's signature level, by the item's kind, in order.
fn signature_checks(kind: DefKind) -> &'static [Check] {
    match kind {
        DefKind::Fn => &[Check::Step(Step::FnSig)],
        DefKind::Struct => &[Check::Step(Step::StructFields), Check::CheckStruct],
        DefKind::TypeAlias => &[Check::Step(Step::AliasTy)],
        DefKind::Const => &[Check::Step(Step::ConstTy)],
        DefKind::Mod => &[],
    }
}

/// The canonical order of a crate's diagnostics after those of loading, the item tree
/// and name resolution, given the crate's items in source order: per item, its
/// signature-level checks (a fn's signature; a struct's fields, then its structural
/// check; an alias's type; a constant's type); then the entry point; then every
/// constant's value; then every body. It does not depend on the order in which a driver
/// computed them.
pub fn canonical_order<I>(defs: I) -> impl Iterator<Item = Origin>
where
    I: IntoIterator<Item = (DefId, DefKind)>,
    I::IntoIter: Clone,
{
    let defs = defs.into_iter();
    let of_kind = |defs: I::IntoIter, kind: DefKind, check: Check| {
        defs.filter(move |&(_, k)| k == kind)
            .map(move |(def, _)| Origin::Item(check, def))
    };
    let signatures = defs.clone().flat_map(|(def, kind)| {
        signature_checks(kind)
            .iter()
            .map(move |&check| Origin::Item(check, def))
    });
    signatures
        .chain(std::iter::once(Origin::Main))
        .chain(of_kind(
            defs.clone(),
            DefKind::Const,
            Check::Step(Step::ConstValue),
        ))
        .chain(of_kind(defs, DefKind::Fn, Check::Typeck))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::def::DefPathHash;

    #[test]
    fn canonical_order_is_signatures_main_values_bodies() {
        let (f, s, c, m, a) = (
            DefPathHash(1),
            DefPathHash(2),
            DefPathHash(3),
            DefPathHash(4),
            DefPathHash(5),
        );
        let defs = [
            (f, DefKind::Fn),
            (s, DefKind::Struct),
            (m, DefKind::Mod),
            (c, DefKind::Const),
            (a, DefKind::TypeAlias),
        ];
        let order: Vec<Origin> = canonical_order(defs).collect();
        use Check::*;
        assert_eq!(
            order,
            [
                Origin::Item(Step(self::Step::FnSig), f),
                Origin::Item(Step(self::Step::StructFields), s),
                Origin::Item(CheckStruct, s),
                Origin::Item(Step(self::Step::ConstTy), c),
                Origin::Item(Step(self::Step::AliasTy), a),
                Origin::Main,
                Origin::Item(Step(self::Step::ConstValue), c),
                Origin::Item(Typeck, f),
            ]
        );
    }

    #[test]
    fn on_a_cycle_only_the_step_read_again_reports_and_only_the_cycle() {
        let (a, b) = (DefPathHash(1), DefPathHash(2));
        let frames = [(Step::AliasTy, a), (Step::ConstValue, b)];
        let path = |_| None;
        let first = on_cycle(&frames, Step::AliasTy, a, Span::new(0, 1), &path);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].code, Some("E0391"));
        assert!(on_cycle(&frames, Step::ConstValue, b, Span::new(0, 1), &path).is_empty());
        // The same item at another step is another participant.
        assert!(on_cycle(&frames, Step::ConstTy, a, Span::new(0, 1), &path).is_empty());
    }

    #[test]
    fn cycle_error_names_every_step_and_closes_the_cycle() {
        let path = |def: DefId| {
            let name = match def.0 {
                1 => "A",
                2 => "B",
                _ => return None,
            };
            let mut p = DefPath::root();
            p.segments.push(crate::sema::def::DefPathSegment {
                ns: crate::sema::def::Namespace::Value,
                name: crate::intern::Symbol::intern(name),
                disambiguator: 0,
            });
            Some(p)
        };
        let frames = [
            (Step::ConstTy, DefPathHash(1)),
            (Step::ConstValue, DefPathHash(2)),
            (Step::FnSig, DefPathHash(9)),
        ];
        let d = cycle_error(&frames, Span::new(6, 7), &path);
        assert_eq!(d.code, Some("E0391"));
        assert_eq!(d.message, "cycle detected when computing type of `A`");
        assert_eq!(d.labels[0].span, Span::new(6, 7));
        assert_eq!(
            d.notes,
            [
                "note: ...which requires simplifying constant for the type system `B`...",
                "note: ...which requires computing function signature of `{unknown}`...",
                "note: ...which again requires computing type of `A`, completing the cycle",
            ]
        );
    }
}
