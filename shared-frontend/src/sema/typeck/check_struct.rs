//! Struct definitions: infinite size (E0072) and the value-size limit.
//!
//! A struct that contains itself by value, directly or through arrays (even of length 0,
//! as in rustc) or other structs, has infinite size. Each struct on such a cycle reports
//! its own error, naming the fields that lead back to it. Struct chains are followed with
//! an explicit stack: their depth is not bounded by any syntactic nesting limit.

use rustc_hash::FxHashSet;

use super::sig::check_value_size;
use crate::diag::Diagnostic;
use crate::ir::layout::LayoutCache;
use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::ty::Ty;
use crate::syntax::ast::StructDef;

/// The struct a field type holds by value, under any number of array layers.
fn struct_in(ty: &Ty) -> Option<DefId> {
    let mut t = ty;
    while let Ty::Array(elem, _) = t {
        t = elem;
    }
    match t {
        Ty::Struct(d) => Some(*d),
        _ => None,
    }
}

/// Checks the struct `self_def` (defined by `def`): E0072 for infinite size, then the
/// [`crate::limits::MAX_VALUE_SIZE`] limit. Field types come from
/// `env.struct_fields(self_def)`; their own errors are reported there.
pub fn check_struct(env: &dyn SemaEnv, self_def: DefId, def: &StructDef) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let Ok(fields) = env.struct_fields(self_def) else {
        return diags;
    };
    // Structs known not to lead back to `self_def`, shared by all fields.
    let mut visited: FxHashSet<DefId> = FxHashSet::default();
    let mut recursive_fields = Vec::new();
    for (i, f) in fields.fields.iter().enumerate() {
        let Some(start) = struct_in(&f.ty) else {
            continue;
        };
        if reaches(env, start, self_def, &mut visited) {
            recursive_fields.push(i);
            // A search that stopped early left structs marked but unexplored.
            visited.clear();
        }
    }
    if !recursive_fields.is_empty() {
        let name = env.def_name(self_def);
        let mut d = Diagnostic::error(
            format!("recursive type `{name}` has infinite size"),
            def.name.span,
        )
        .with_code("E0072");
        for i in recursive_fields {
            if let Some(field) = def.fields.get(i) {
                d = d.with_secondary(def.arena[field.ty].span, "recursive without indirection");
            }
        }
        diags.push(d.with_note(
            "help: insert some indirection (e.g., a `Box`, `Rc`, or `&`) to break the cycle",
        ));
        return diags;
    }
    check_value_size(
        env,
        &mut LayoutCache::default(),
        &Ty::Struct(self_def),
        def.name.span,
        &mut diags,
    );
    diags
}

/// Whether struct `start` contains `target` by value (or is it). Depth-first with an
/// explicit stack; `visited` keeps structs already known not to reach `target`.
fn reaches(env: &dyn SemaEnv, start: DefId, target: DefId, visited: &mut FxHashSet<DefId>) -> bool {
    if start == target {
        return true;
    }
    if !visited.insert(start) {
        return false;
    }
    let mut stack = vec![start];
    while let Some(d) = stack.pop() {
        let Ok(fields) = env.struct_fields(d) else {
            continue;
        };
        for f in &fields.fields {
            if let Some(inner) = struct_in(&f.ty) {
                if inner == target {
                    return true;
                }
                if visited.insert(inner) {
                    stack.push(inner);
                }
            }
        }
    }
    false
}
