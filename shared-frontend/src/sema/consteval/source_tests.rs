//! Constant evaluation of whole programs, through the real parser, resolver and type
//! checker.
//!
//! [`Driver`] plays the staged driver for one in-memory `main.rs`: it answers
//! [`SemaEnv`] questions on demand (memoized, cycles turned into errors) and evaluates
//! every `const` item, used or not, as rustc does. `check` prints `NAME = value` for each
//! constant in source order, then every diagnostic rendered as rustc renders it, so a
//! snapshot can be compared line by line with rustc's output on the same program (the
//! expectations below were). Bless with `UPDATE_EXPECT=1`.

use std::cell::RefCell;
use std::path::Path as FsPath;
use std::sync::Arc;

use expect_test::{expect, Expect};
use rustc_hash::{FxHashMap, FxHashSet};

use super::*;
use crate::sema::def::{DefKind, Namespace, Res, Vis};
use crate::sema::env::ErrorReported;
use crate::sema::items::{ItemAst, ItemTree};
use crate::sema::modules::{load_crate_with, LoadedCrate, MemLoader};
use crate::sema::resolve::{resolve_crate, resolve_path, CrateScopes, ResolvedCrate};
use crate::sema::ty::{FnSig, StructFields};
use crate::sema::typeck::{
    alias_ty, check_struct, const_ty, fn_sig, struct_fields, typeck_const, typeck_fn,
};
use crate::syntax::ast::Path;
use crate::syntax::parser::parse_file;

type Memo<T> = RefCell<FxHashMap<DefId, Result<T, ErrorReported>>>;

struct Driver {
    krate: LoadedCrate,
    tree: ItemTree,
    resolved: ResolvedCrate,
    sigs: Memo<Arc<FnSig>>,
    fields: Memo<Arc<StructFields>>,
    aliases: Memo<Ty>,
    const_tys: Memo<Ty>,
    values: Memo<Arc<ConstValue>>,
    /// (query, def) being computed, to turn cycles into errors.
    active: RefCell<FxHashSet<(u8, DefId)>>,
    /// Diagnostics of constants evaluated on demand (each reported once).
    reported: RefCell<Vec<Diagnostic>>,
}

impl Driver {
    fn new(src: &str) -> Driver {
        let loader = MemLoader::new([("main.rs", src)]);
        let krate = load_crate_with(&loader, FsPath::new("main.rs"), &parse_file);
        let tree = ItemTree::build(&krate);
        let resolved = resolve_crate(&tree);
        Driver {
            krate,
            tree,
            resolved,
            sigs: Memo::default(),
            fields: Memo::default(),
            aliases: Memo::default(),
            const_tys: Memo::default(),
            values: Memo::default(),
            active: RefCell::default(),
            reported: RefCell::default(),
        }
    }

    fn cached<T: Clone>(
        &self,
        memo: &Memo<T>,
        query: u8,
        def: DefId,
        compute: impl FnOnce() -> Result<T, ErrorReported>,
    ) -> Result<T, ErrorReported> {
        if let Some(v) = memo.borrow().get(&def) {
            return v.clone();
        }
        if !self.active.borrow_mut().insert((query, def)) {
            if query == 4 {
                self.reported.borrow_mut().push(
                    Diagnostic::error_no_span(format!(
                        "cycle detected when evaluating `{}`",
                        self.def_name(def)
                    ))
                    .with_code("E0391"),
                );
            }
            return Err(ErrorReported);
        }
        let v = compute();
        self.active.borrow_mut().remove(&(query, def));
        memo.borrow_mut().insert(def, v.clone());
        v
    }

    fn module_of(&self, def: DefId) -> DefId {
        self.tree.parent(def).unwrap_or(self.tree.root)
    }

    fn anchor(&self, def: DefId, d: Diagnostic) -> Diagnostic {
        match self.tree.def(def) {
            Some(data) => d.anchor(data.file, data.offset),
            None => d,
        }
    }

    /// Type-checks and evaluates constant `def`: its value, or `Err` after recording
    /// the diagnostics.
    fn eval(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        let Some(ItemAst::Const(c)) = self.tree.def(def).map(|d| &d.ast) else {
            return Err(ErrorReported);
        };
        let module = self.module_of(def);
        let mut diags = const_ty(self, module, c).1;
        let r = typeck_const(self, module, c);
        diags.extend(r.diagnostics.iter().cloned());
        let value = if r.has_errors() {
            Err(ErrorReported)
        } else {
            match eval_const_item(self, def, &r.thir) {
                Ok(v) => Ok(Arc::new(v)),
                Err(ConstEvalError::Reported) => Err(ErrorReported),
                Err(ConstEvalError::Error(d)) => {
                    diags.push(d);
                    Err(ErrorReported)
                }
            }
        };
        let anchored: Vec<_> = diags.into_iter().map(|d| self.anchor(def, d)).collect();
        self.reported.borrow_mut().extend(anchored);
        value
    }
}

impl SemaEnv for Driver {
    fn resolve_path(&self, from: DefId, path: &Path, ns: Namespace) -> Result<Res, Diagnostic> {
        let scopes = CrateScopes {
            tree: &self.tree,
            resolved: &self.resolved,
        };
        resolve_path(&scopes, from, path, ns)
    }
    fn is_accessible(&self, vis: Vis, from: DefId) -> bool {
        self.tree.is_accessible(vis, from)
    }
    fn visibility(&self, def: DefId) -> Vis {
        self.tree.def(def).map_or(Vis::Public, |d| d.vis)
    }
    fn def_kind(&self, def: DefId) -> DefKind {
        self.tree.def(def).map_or(DefKind::Mod, |d| d.kind)
    }
    fn def_name(&self, def: DefId) -> String {
        self.tree.def_name(def)
    }
    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        self.cached(&self.sigs, 0, def, || {
            match self.tree.def(def).map(|d| &d.ast) {
                Some(ItemAst::Fn(f)) => Ok(Arc::new(fn_sig(self, self.module_of(def), f).0)),
                _ => Err(ErrorReported),
            }
        })
    }
    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.cached(&self.fields, 1, def, || {
            match self.tree.def(def).map(|d| &d.ast) {
                Some(ItemAst::Struct(s)) => {
                    Ok(Arc::new(struct_fields(self, self.module_of(def), s).0))
                }
                _ => Err(ErrorReported),
            }
        })
    }
    fn alias_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.cached(&self.aliases, 2, def, || {
            match self.tree.def(def).map(|d| &d.ast) {
                Some(ItemAst::TypeAlias(a)) => Ok(alias_ty(self, self.module_of(def), a).0),
                _ => Err(ErrorReported),
            }
        })
    }
    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.cached(&self.const_tys, 3, def, || {
            match self.tree.def(def).map(|d| &d.ast) {
                Some(ItemAst::Const(c)) => Ok(const_ty(self, self.module_of(def), c).0),
                _ => Err(ErrorReported),
            }
        })
    }
    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        self.cached(&self.values, 4, def, || self.eval(def))
    }
}

/// Evaluates every constant of `src` and prints `NAME = value` lines, then the
/// diagnostics of the whole program as rustc renders them.
fn check(src: &str, expect: Expect) {
    let driver = Driver::new(src);
    let mut out = String::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    diags.extend(driver.krate.diagnostics.iter().cloned());
    diags.extend(driver.tree.diagnostics.iter().cloned());
    diags.extend(driver.resolved.diagnostics.iter().cloned());
    for data in driver.tree.defs() {
        let def = data.id;
        let module = driver.module_of(def);
        match &data.ast {
            ItemAst::Const(_) => {
                if let Ok(v) = driver.const_value(def) {
                    let name = driver.def_name(def);
                    let v = const_to_string_with(&v, &|d| driver.def_name(d));
                    out.push_str(&format!("{name} = {v}\n"));
                }
            }
            ItemAst::Fn(f) => {
                let mut d = fn_sig(&driver, module, f).1;
                d.extend(typeck_fn(&driver, def, module, f).diagnostics);
                diags.extend(d.into_iter().map(|d| driver.anchor(def, d)));
            }
            ItemAst::Struct(s) => {
                let mut d = struct_fields(&driver, module, s).1;
                d.extend(check_struct(&driver, def, s));
                diags.extend(d.into_iter().map(|d| driver.anchor(def, d)));
            }
            _ => {}
        }
    }
    diags.extend(driver.reported.borrow().iter().cloned());
    if !diags.is_empty() {
        out.push_str(crate::diag::render(&diags, &driver.krate.sources, false).trim_end());
    }
    expect.assert_eq(&out);
}

#[test]
fn arithmetic_and_casts() {
    check(
        r#"
const A: i32 = 7 / -2 + 7 % -2 * 100;
const B: u64 = (-1i32) as u64 >> 60;
const C: i32 = 3000000000u64 as i32;
const D: i64 = i64::MIN / 3 + (1 << 62);
const E: usize = !0usize ^ (1 << 63);
const F: bool = -1 < 0 && !(1u64 > 2) || 1 / 0 == 0;
const H: i32 = 1i32 << 31 >> 31;
fn main() {}
"#,
        expect![[r#"
            A = 97
            B = 15
            C = -1294967296
            D = 1537228672809129302
            E = 9223372036854775807
            F = true
            H = -1
        "#]],
    );
}

/// rustc accepts both: a negated literal is one negative literal (typeck folds it, as
/// rustc's THIR does), so nothing is negated. `-i32::MIN` still negates, and fails.
#[test]
fn negated_minimum_literal() {
    check(
        r#"
const G: i32 = -2147483648;
const G2: i64 = -(9223372036854775808);
const G3: i32 = -i32::MIN;
fn main() {}
"#,
        expect![[r#"
            G = -2147483648
            G2 = -9223372036854775808
            error[E0080]: attempt to negate `i32::MIN`, which would overflow
             --> main.rs:4:17
              |
            4 | const G3: i32 = -i32::MIN;
              |                 ^^^^^^^^^ evaluation of `G3` failed here
              |"#]],
    );
}

#[test]
fn errors_are_worded_as_rustc_words_them() {
    check(
        r#"
const A: i32 = i32::MAX + 1;
const B: i32 = 1 / 0;
const C: i32 = { let a = [1, 2, 3]; let i = 5; a[i] };
const D: i32 = 1i32 << 32;
const E: i32 = -i32::MIN;
const F: i32 = i32::MIN / -1;
const G: u64 = 1u64 << 64;
const H: i32 = 1 % 0;
mod m { pub const I: usize = 3 - 5; }
fn main() {}
"#,
        expect![[r#"
            error[E0080]: attempt to compute `i32::MAX + 1_i32`, which would overflow
             --> main.rs:2:16
              |
            2 | const A: i32 = i32::MAX + 1;
              |                ^^^^^^^^^^^^ evaluation of `A` failed here
              |

            error[E0080]: attempt to divide `1_i32` by zero
             --> main.rs:3:16
              |
            3 | const B: i32 = 1 / 0;
              |                ^^^^^ evaluation of `B` failed here
              |

            error[E0080]: index out of bounds: the length is 3 but the index is 5
             --> main.rs:4:48
              |
            4 | const C: i32 = { let a = [1, 2, 3]; let i = 5; a[i] };
              |                                                ^^^^ evaluation of `C` failed here
              |

            error[E0080]: attempt to shift left by `32_i32`, which would overflow
             --> main.rs:5:16
              |
            5 | const D: i32 = 1i32 << 32;
              |                ^^^^^^^^^^ evaluation of `D` failed here
              |

            error[E0080]: attempt to negate `i32::MIN`, which would overflow
             --> main.rs:6:16
              |
            6 | const E: i32 = -i32::MIN;
              |                ^^^^^^^^^ evaluation of `E` failed here
              |

            error[E0080]: attempt to compute `i32::MIN / -1_i32`, which would overflow
             --> main.rs:7:16
              |
            7 | const F: i32 = i32::MIN / -1;
              |                ^^^^^^^^^^^^^ evaluation of `F` failed here
              |

            error[E0080]: attempt to shift left by `64_i32`, which would overflow
             --> main.rs:8:16
              |
            8 | const G: u64 = 1u64 << 64;
              |                ^^^^^^^^^^ evaluation of `G` failed here
              |

            error[E0080]: attempt to calculate the remainder of `1_i32` with a divisor of zero
             --> main.rs:9:16
              |
            9 | const H: i32 = 1 % 0;
              |                ^^^^^ evaluation of `H` failed here
              |

            error[E0080]: attempt to compute `3_usize - 5_usize`, which would overflow
              --> main.rs:10:30
               |
            10 | mod m { pub const I: usize = 3 - 5; }
               |                              ^^^^^ evaluation of `m::I` failed here
               |"#]],
    );
}

#[test]
fn places_and_evaluation_order() {
    check(
        r#"
const A: i32 = { let mut x = 1; x += { x = 10; 1 }; x };
const B: i32 = { let mut a = [1, 2]; a[{ a = [5, 6]; 0 }] };
const C: i32 = { let mut a = [1, 2]; a[{ a = [5, 6]; 0 }] += { a = [7, 8]; 1 }; a[0] };
const D: i32 = { let mut a = [1, 2]; a[5] = 1 / 0; 0 };
const E: i64 = { let mut a = [[1i64; 2]; 3]; a[1][7] = 3; 0 };
const F: i32 = { let mut a = [i32::MAX, 2]; a[0] += 1; 0 };
fn main() {}
"#,
        expect![[r#"
            A = 11
            B = 5
            C = 6
            error[E0080]: attempt to divide `1_i32` by zero
             --> main.rs:5:45
              |
            5 | const D: i32 = { let mut a = [1, 2]; a[5] = 1 / 0; 0 };
              |                                             ^^^^^ evaluation of `D` failed here
              |

            error[E0080]: index out of bounds: the length is 2 but the index is 7
             --> main.rs:6:46
              |
            6 | const E: i64 = { let mut a = [[1i64; 2]; 3]; a[1][7] = 3; 0 };
              |                                              ^^^^^^^ evaluation of `E` failed here
              |

            error[E0080]: attempt to compute `i32::MAX + 1_i32`, which would overflow
             --> main.rs:7:45
              |
            7 | const F: i32 = { let mut a = [i32::MAX, 2]; a[0] += 1; 0 };
              |                                             ^^^^^^^^^ evaluation of `F` failed here
              |"#]],
    );
}

#[test]
fn structs_arrays_and_other_constants() {
    check(
        r#"
#[derive(Clone, Copy)]
struct Point { x: i32, y: i64 }
type P = Point;
const ORIGIN: P = Point { y: 0, x: 0 };
const N: usize = 3;
const CORNERS: [Point; N] = {
    let mut c = [ORIGIN; N];
    let mut i = 0;
    while i < N {
        c[i].x = i as i32 * 10;
        c[i].y = -(i as i64);
        i += 1;
    }
    c
};
const SUM: i64 = CORNERS[1].x as i64 + CORNERS[2].y;
fn main() {}
"#,
        expect![[r#"
            ORIGIN = Point { 0: 0, 1: 0 }
            N = 3
            CORNERS = [Point { 0: 0, 1: 0 }, Point { 0: 10, 1: -1 }, Point { 0: 20, 1: -2 }]
            SUM = 8
        "#]],
    );
}

#[test]
fn loops_with_labels_and_break_values() {
    check(
        r#"
const FIRST_SQUARE_OVER_50: u64 = {
    let mut i = 0u64;
    loop {
        i += 1;
        if i * i > 50 { break i * i; }
    }
};
const PAIRS: i32 = {
    let mut n = 0;
    let mut a = 0;
    'outer: while a < 10 {
        a += 1;
        let mut b = 0;
        loop {
            b += 1;
            if b > a { continue 'outer; }
            if a + b == 12 { break 'outer; }
            n += 1;
        }
    }
    n
};
const TRIANGLE: [u64; 5] = {
    let mut t = [0u64; 5];
    let mut i = 1usize;
    while i < 5 { t[i] = t[i - 1] + i as u64; i += 1; }
    t
};
fn main() {}
"#,
        expect![[r#"
            FIRST_SQUARE_OVER_50 = 64
            PAIRS = 20
            TRIANGLE = [0, 1, 3, 6, 10]
        "#]],
    );
}

#[test]
fn failing_and_cyclic_constants() {
    check(
        r#"
const A: i32 = 1 / 0;
const B: i32 = A + 1;
const C: i32 = D;
const D: i32 = C;
fn main() {}
"#,
        expect![[r#"
            error[E0080]: attempt to divide `1_i32` by zero
             --> main.rs:2:16
              |
            2 | const A: i32 = 1 / 0;
              |                ^^^^^ evaluation of `A` failed here
              |

            error[E0391]: cycle detected when evaluating `C`"#]],
    );
}

#[test]
fn long_running_loop() {
    check(
        r#"
const A: u64 = { let mut i = 0u64; while i < 1999999 { i += 1; } i };
const B: u64 = { let mut i = 0u64; while i < 2000000 { i += 1; } i };
fn main() {}
"#,
        expect![[r#"
            A = 1999999
            error: constant evaluation is taking a long time
             --> main.rs:3:36
              |
            3 | const B: u64 = { let mut i = 0u64; while i < 2000000 { i += 1; } i };
              |                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
              |
              = note: Rill stops a constant's evaluation after 2000000 loop iterations (implementation limit `MAX_CONST_EVAL_STEPS`), as rustc's `long_running_const_eval` lint does"#]],
    );
}
