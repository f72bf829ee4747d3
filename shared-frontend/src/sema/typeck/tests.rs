//! Tests of type checking.

use super::infer::{ITy, InferCtxt, VarKind};
use crate::sema::ty::{IntTy, Ty};
use crate::span::Span;
use std::rc::Rc;

#[test]
fn integer_variables_unify_with_integers_only_and_default_to_i32() {
    let mut infer = InferCtxt::default();
    let a = infer.new_var(VarKind::Int, Span::DUMMY);
    let b = infer.new_var(VarKind::Int, Span::DUMMY);
    let c = infer.new_var(VarKind::Int, Span::DUMMY);
    assert!(!infer.unify(&a, &ITy::Bool));
    assert!(infer.unify(&a, &b));
    assert!(infer.unify(&b, &ITy::Int(IntTy::U64)));
    assert_eq!(infer.shallow(&a), ITy::Int(IntTy::U64));
    assert!(!infer.unify(&a, &ITy::Int(IntTy::I64)));
    infer.apply_fallback();
    let mut none = |_, _| panic!("no unresolved variables");
    assert_eq!(infer.finalize(&c, &mut none), Ty::Int(IntTy::I32));
}

#[test]
fn general_variables_take_any_type_and_diverging_ones_default_to_unit() {
    let mut infer = InferCtxt::default();
    let g = infer.new_var(VarKind::General, Span::DUMMY);
    let i = infer.new_var(VarKind::Int, Span::DUMMY);
    // A general variable unified with an integer variable becomes an integer variable.
    assert!(infer.unify(&g, &i));
    assert!(!infer.unify(&g, &ITy::Bool));
    let arr = infer.new_var(VarKind::General, Span::DUMMY);
    let elem = infer.new_var(VarKind::Int, Span::DUMMY);
    assert!(infer.unify(&arr, &ITy::Array(Rc::new(elem.clone()), 2)));
    // No infinite types.
    assert!(!infer.unify(&arr, &ITy::Array(Rc::new(arr.clone()), 2)));
    assert!(infer.unify(&arr, &ITy::Array(Rc::new(ITy::Int(IntTy::Usize)), 2)));
    let d = infer.new_diverging_var(Span::DUMMY);
    let lost = infer.new_var(VarKind::General, Span::new(3, 4));
    infer.apply_fallback();
    let mut unresolved = Vec::new();
    let mut report = |_, span| unresolved.push(span);
    assert_eq!(
        infer.finalize(&arr, &mut report),
        Ty::Array(std::sync::Arc::new(Ty::Int(IntTy::Usize)), 2)
    );
    assert_eq!(infer.finalize(&d, &mut report), Ty::Unit);
    assert_eq!(infer.finalize(&lost, &mut report), Ty::Error);
    assert_eq!(unresolved, vec![Span::new(3, 4)]);
}
