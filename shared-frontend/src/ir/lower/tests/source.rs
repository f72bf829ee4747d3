//! Source-level lowering tests: a program is parsed, resolved and type-checked by the
//! real frontend through a [`TestDriver`] whose queries record their diagnostics, as a
//! single-run driver does, then lowered. `check` shows the IR of one function; `check_run`
//! runs the whole program with the reference interpreter.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use expect_test::{expect, Expect};

use crate::diag::{self, Diagnostic};
use crate::ir::interp::{self, InterpLimits};
use crate::ir::{IrFunction, IrProgram};
use crate::sema::def::DefId;
use crate::sema::env::SemaEnv;
use crate::sema::items::ItemAst;
use crate::sema::modules::MemLoader;
use crate::sema::test_driver::{Reporting, TestDriver};
use crate::sema::thir::Thir;
use crate::sema::typeck;

use super::super::lower_fn;

/// Type-checks every function of `env`'s program: `(def, path, body)` in item order, or
/// the rendered diagnostics.
fn bodies(env: &TestDriver) -> Result<Vec<(DefId, String, Arc<Thir>)>, String> {
    let mut bodies = Vec::new();
    for def in env.tree.defs() {
        match &def.ast {
            ItemAst::Fn(ast) => {
                let result = typeck::typeck_fn(env, def.id, env.module_of(def.id), ast);
                env.record(def.id, result.diagnostics);
                bodies.push((def.id, def.path.to_string(), result.thir));
            }
            ItemAst::Const(_) => drop(env.const_value(def.id)),
            _ => {}
        }
    }
    let mut diags = env.front_diagnostics();
    diags.extend(env.recorded());
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diag::render_short(&diags, &env.krate.sources));
    }
    Ok(bodies)
}

/// The lowered program of `src` (a single file), or its rendered diagnostics.
fn lower_program(src: &str) -> Result<(IrProgram, TestDriver), String> {
    let env = TestDriver::new(src, Reporting::Queries);
    let program = lower_env(&env)?;
    Ok((program, env))
}

fn lower_env(env: &TestDriver) -> Result<IrProgram, String> {
    let bodies = bodies(env)?;
    let functions = bodies
        .iter()
        .map(|(def, name, thir)| Arc::new(lower_fn(env, *def, name.clone(), thir)))
        .collect::<Vec<_>>();
    let main = functions
        .iter()
        .find(|f| f.name == "crate::main")
        .map(|f| f.def)
        .ok_or("no main")?;
    Ok(IrProgram { functions, main })
}

/// The IR of function `name` (a def-path like `crate::f`) of `src`.
fn check_fn(src: &str, name: &str, expect: Expect) {
    let shown = match lower_program(src) {
        Ok((program, _)) => {
            let f: &IrFunction = program
                .functions
                .iter()
                .find(|f| f.name == name)
                .expect("no such function");
            let names = |d: DefId| {
                program
                    .functions
                    .iter()
                    .find(|g| g.def == d)
                    .map(|g| g.name.clone())
            };
            f.display_with(&names).to_string()
        }
        Err(diags) => diags,
    };
    expect.assert_eq(&shown);
}

/// The IR of every function of `src`.
fn check(src: &str, expect: Expect) {
    let shown = match lower_program(src) {
        Ok((program, _)) => program.to_string(),
        Err(diags) => diags,
    };
    expect.assert_eq(&shown);
}

/// Runs `src` with the reference interpreter: its output and how it ended.
fn check_run(src: &str, expect: Expect) {
    let shown = match lower_program(src) {
        Ok((program, _)) => run(&program),
        Err(diags) => diags,
    };
    expect.assert_eq(&shown);
}

/// Runs the program; the optimized program must behave the same.
fn run(program: &IrProgram) -> String {
    let outcome = interp::run(program, &InterpLimits::default());
    let optimized = IrProgram {
        functions: program
            .functions
            .iter()
            .map(|f| Arc::new(crate::ir::opt::optimize(f)))
            .collect(),
        main: program.main,
    };
    assert_eq!(
        interp::run(&optimized, &InterpLimits::default()),
        outcome,
        "the optimized program behaves differently"
    );
    let mut out = String::from_utf8_lossy(&outcome.stdout).into_owned();
    out.push_str(&format!("[exit {}]", outcome.status.exit_code()));
    let status = outcome.status.to_string().replace('\n', " / ");
    if !status.is_empty() {
        out.push_str(&format!(" {status}"));
    }
    out.push('\n');
    out
}

// ---------------------------------------------------------------------------------------
// The corpus.

/// The files of corpus program `name` in `dir` (`NAME.rs`, or the directory `NAME/`), as
/// paths relative to the program's root directory with the root file `main.rs`.
fn corpus_files(dir: &Path, name: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let file = dir.join(format!("{name}.rs"));
    if let Ok(text) = std::fs::read(&file) {
        return vec![(PathBuf::from("main.rs"), text)];
    }
    let root = dir.join(name);
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(&root).unwrap().to_path_buf();
                files.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    files
}

/// Every program of the corpus's `run/` directory, lowered (not optimized) and run by the
/// reference interpreter, prints what rustc's build printed and ends the same way; the
/// optimized IR too.
#[test]
fn corpus_programs_behave_as_with_rustc() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/corpus/run");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_str()?.to_string();
            if p.is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs").map(str::to_string)
            }
        })
        .collect();
    names.sort();
    let mut failures = Vec::new();
    for name in &names {
        let loader = MemLoader::new(corpus_files(&dir, name));
        let env = TestDriver::with_loader(&loader, Path::new("main.rs"), Reporting::Queries);
        let program = match lower_env(&env) {
            Ok(p) => p,
            Err(diags) => {
                failures.push(format!("{name}: rejected: {diags}"));
                continue;
            }
        };
        let expected_stdout = std::fs::read(dir.join(format!("{name}.stdout"))).unwrap();
        let expected_exit = std::fs::read_to_string(dir.join(format!("{name}.exit"))).unwrap();
        let outcome = interp::run(&program, &InterpLimits::default());
        let stdout_ok = outcome.stdout == expected_stdout;
        let exit_ok = outcome.status.exit_code().to_string() == expected_exit.trim();
        if !stdout_ok || !exit_ok {
            failures.push(format!(
                "{name}: exit {} (rustc: {}), stdout {}: {}",
                outcome.status.exit_code(),
                expected_exit.trim(),
                if stdout_ok { "equal" } else { "differs" },
                outcome.status.to_string().replace('\n', " / ")
            ));
        }
        run(&program); // the optimized program behaves the same
    }
    assert!(names.len() >= 60, "corpus not found at {}", dir.display());
    assert!(
        failures.is_empty(),
        "{} of {} corpus programs differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Snapshots, one construct at a time.

#[test]
fn scalar_locals_live_in_registers_and_are_reassigned() {
    check_fn(
        "fn f(a: i32, mut b: i32) -> i32 { let mut x = a; x = x * 2; b += x; let y = b - 1; y }
         fn main() { println!(\"{}\", f(3, 4)); }",
        "crate::f",
        expect![[r#"
            fn crate::f(v0: i32, v1: i32) -> i32 {
            bb0:
                v2 = copy.i32 v0
                v3 = const.i32 2
                v2 = mul.i32 v2, v3
                v1 = add.i32 v1, v2
                v5 = const.i32 1
                v4 = sub.i32 v1, v5
                return v4
            }
        "#]],
    );
}

#[test]
fn division_checks_and_masked_shifts() {
    check_fn(
        "fn f(a: i64, b: i64, s: u64) -> i64 { (a / b) % (b << s) + (a >> 3i32) }
         fn main() { println!(\"{}\", f(-17, 5, 1)); }",
        "crate::f",
        expect![[r#"
            fn crate::f(v0: i64, v1: i64, v2: u64) -> i64 {
            bb0:
                v4 = const.i64 0
                v5 = ne.i64 v1, v4
                branch v5, bb1, bb8
            bb1:
                v6 = const.i64 -1
                v7 = ne.i64 v1, v6
                v8 = const.i64 -9223372036854775808
                v9 = ne.i64 v0, v8
                v10 = or.bool v7, v9
                branch v10, bb2, bb7
            bb2:
                v3 = div.i64 v0, v1
                v11 = shl.i64 v1, v2
                v13 = const.i64 0
                v14 = ne.i64 v11, v13
                branch v14, bb3, bb6
            bb3:
                v15 = const.i64 -1
                v16 = ne.i64 v11, v15
                v17 = const.i64 -9223372036854775808
                v18 = ne.i64 v3, v17
                v19 = or.bool v16, v18
                branch v19, bb4, bb5
            bb4:
                v12 = rem.i64 v3, v11
                v20 = const.i32 3
                v21 = shr.i64 v0, v20
                v22 = add.i64 v12, v21
                return v22
            bb5:
                panic rem_overflow
            bb6:
                panic rem_by_zero
            bb7:
                panic div_overflow
            bb8:
                panic div_by_zero
            }
        "#]],
    );
    check_run(
        "fn main() {
             let m = i32::MIN; let k = -1; let big = 33; let neg = -1; let wide = 36u64;
             println!(\"{} {} {}\", 1i32 << big, 1i32 << neg, -16i32 >> wide);
             println!(\"{} {} {}\", m + m, -m, m * k);
             println!(\"{}\", m / k);
         }",
        expect![[r#"
            2 -2147483648 -1
            0 -2147483648 -2147483648
            [exit 101] thread 'main' panicked: / attempt to divide with overflow
        "#]],
    );
}

#[test]
fn casts_and_unary_operators() {
    check(
        "fn main() {
             let a = -1i32; let b = 300i64; let t = true;
             println!(\"{} {} {} {} {}\", a as u64, b as i32, t as usize, !a, !t);
             println!(\"{} {}\", -(a as i64), (u64::MAX as i32));
         }",
        expect![[r#"
            fn crate::main() {
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 -1
                v1 = const.i64 300
                v2 = const.bool true
                v3 = cast.i32.u64 v0
                v4 = cast.i64.i32 v1
                v5 = cast.bool.u64 v2
                v6 = not.i32 v0
                v7 = not.bool v2
                print.u64 v3
                print.str data0 " "
                print.i32 v4
                print.str data0 " "
                print.u64 v5
                print.str data0 " "
                print.i32 v6
                print.str data0 " "
                print.bool v7
                print.str data1 "\n"
                v8 = cast.i32.i64 v0
                v9 = neg.i64 v8
                v10 = const.i32 -1
                print.i64 v9
                print.str data0 " "
                print.i32 v10
                print.str data1 "\n"
                return
            }
        "#]],
    );
}

#[test]
fn short_circuit_and_comparisons() {
    check(
        "fn t(x: bool) -> bool { println!(\"t({})\", x); x }
         fn main() {
             let r = t(false) && t(true) || !t(false) && (1 < 2) == (false < true);
             println!(\"{}\", r);
         }",
        expect![[r#"
            fn crate::t(v0: bool) -> bool {
                data0: "t("
                data1: ")\n"
            bb0:
                print.str data0 "t("
                print.bool v0
                print.str data1 ")\n"
                return v0
            }

            fn crate::main() {
                data0: "\n"
            bb0:
                v1 = const.bool false
                v0 = call.bool crate::t(v1)
                branch v0, bb1, bb2
            bb1:
                v2 = const.bool true
                v0 = call.bool crate::t(v2)
                jump bb2
            bb2:
                branch v0, bb5, bb3
            bb3:
                v3 = const.bool false
                v4 = call.bool crate::t(v3)
                v0 = not.bool v4
                branch v0, bb4, bb5
            bb4:
                v5 = const.i32 1
                v6 = const.i32 2
                v7 = lt.i32 v5, v6
                v8 = const.bool false
                v9 = const.bool true
                v10 = lt.bool v8, v9
                v0 = eq.bool v7, v10
                jump bb5
            bb5:
                print.bool v0
                print.str data0 "\n"
                return
            }
        "#]],
    );
}

#[test]
fn if_else_values_while_and_loop_with_break_value() {
    check_fn(
        "fn f(n: i32) -> i32 {
             let mut i = 0;
             let mut acc = if n > 0 { 1 } else { -1 };
             while i < n { i += 1; if i % 2 == 0 { continue; } acc *= 3; }
             let r = loop { if acc > 100 { break acc; } acc += 7; };
             r
         }
         fn main() { println!(\"{}\", f(5)); }",
        "crate::f",
        expect![[r#"
            fn crate::f(v0: i32) -> i32 {
            bb0:
                v1 = const.i32 0
                v3 = const.i32 0
                v4 = gt.i32 v0, v3
                branch v4, bb1, bb2
            bb1:
                v2 = const.i32 1
                jump bb3
            bb2:
                v2 = const.i32 -1
                jump bb3
            bb3:
                v5 = lt.i32 v1, v0
                branch v5, bb4, bb6
            bb4:
                v6 = const.i32 1
                v1 = add.i32 v1, v6
                v7 = const.i32 2
                v8 = rem.i32 v1, v7
                v9 = const.i32 0
                v10 = eq.i32 v8, v9
                branch v10, bb3, bb5
            bb5:
                v11 = const.i32 3
                v2 = mul.i32 v2, v11
                jump bb3
            bb6:
                v13 = const.i32 100
                v14 = gt.i32 v2, v13
                branch v14, bb7, bb9
            bb7:
                v12 = copy.i32 v2
                jump bb8
            bb8:
                return v12
            bb9:
                v15 = const.i32 7
                v2 = add.i32 v2, v15
                jump bb6
            }
        "#]],
    );
}

#[test]
fn labels_break_and_continue_across_loops() {
    check_run(
        "fn main() {
             let mut found = 0;
             'outer: for i in 1..10 {
                 let mut j = 0;
                 'inner: loop {
                     j += 1;
                     if j > i { continue 'outer; }
                     if i * j == 12 { found = i * 100 + j; break 'outer; }
                     if j == 3 { break 'inner; }
                 }
                 println!(\"{} {}\", i, j);
             }
             let v = 'l: loop { loop { break 'l found + 1; } };
             println!(\"{} {}\", found, v);
         }",
        expect![[r#"
            3 3
            403 404
            [exit 0]
        "#]],
    );
}

#[test]
fn for_ranges_evaluate_once_and_end_at_max() {
    check_fn(
        "fn main() {
             let mut n = 3u64;
             for i in 0..n { n += 1; println!(\"{}\", i); }
             for i in 18446744073709551614..=u64::MAX { println!(\"{}\", i); }
         }",
        "crate::main",
        expect![[r#"
            fn crate::main() {
                data0: "\n"
            bb0:
                v0 = const.u64 3
                v1 = const.u64 0
                v2 = copy.u64 v0
                jump bb1
            bb1:
                v3 = lt.u64 v1, v2
                branch v3, bb2, bb4
            bb2:
                v4 = copy.u64 v1
                v5 = const.u64 1
                v0 = add.u64 v0, v5
                print.u64 v4
                print.str data0 "\n"
                jump bb3
            bb3:
                v6 = const.u64 1
                v1 = add.u64 v1, v6
                jump bb1
            bb4:
                v7 = const.u64 18446744073709551614
                v8 = const.u64 18446744073709551615
                v9 = le.u64 v7, v8
                branch v9, bb5, bb8
            bb5:
                v10 = copy.u64 v7
                print.u64 v10
                print.str data0 "\n"
                jump bb6
            bb6:
                v11 = eq.u64 v7, v8
                branch v11, bb8, bb7
            bb7:
                v12 = const.u64 1
                v7 = add.u64 v7, v12
                jump bb5
            bb8:
                return
            }
        "#]],
    );
    check_run(
        "fn main() {
             let mut n = 3u64;
             for i in 0..n { n += 1; println!(\"{}\", i); }
             for i in 18446744073709551614..=u64::MAX { println!(\"{}\", i); }
             for i in 2147483646..=i32::MAX { println!(\"{}\", i); }
             for i in 5..3 { println!(\"never {}\", i); }
             for i in 5..=4 { println!(\"never {}\", i); }
             for mut i in 0..=2 { i *= 10; println!(\"{}\", i); }
             println!(\"{}\", n);
         }",
        expect![[r#"
            0
            1
            2
            18446744073709551614
            18446744073709551615
            2147483646
            2147483647
            0
            10
            20
            6
            [exit 0]
        "#]],
    );
}

#[test]
fn structs_and_arrays_in_slots_copied_on_read() {
    check_fn(
        "#[derive(Clone, Copy)]
         struct P { x: i32, y: i64, ok: bool }
         fn main() {
             let a = P { y: 2, x: 1, ok: true };
             let mut b = a;
             b.x = 10;
             let mut arr = [a, b];
             arr[1].y += 5;
             println!(\"{} {} {} {}\", a.x, b.x, arr[1].y, arr[0].ok);
         }",
        "crate::main",
        expect![[r#"
            fn crate::main() {
                slot0: size 24, align 8
                slot1: size 24, align 8
                slot2: size 48, align 8
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i64 2
                v1 = slot_addr slot0
                store.i64 [v1+8], v0
                v2 = const.i32 1
                store.i32 [v1], v2
                v3 = const.bool true
                store.bool [v1+16], v3
                v4 = slot_addr slot1
                memcopy [v4], [v1], 24
                v5 = const.i32 10
                store.i32 [v4], v5
                v6 = slot_addr slot2
                memcopy [v6], [v1], 24
                v7 = const.u64 24
                v8 = elem_addr v6 + v7 * 1
                memcopy [v8], [v4], 24
                v9 = const.i64 5
                v10 = load.i64 [v6+32]
                v11 = add.i64 v10, v9
                store.i64 [v6+32], v11
                v12 = load.i32 [v1]
                v13 = load.i32 [v4]
                v14 = load.i64 [v6+32]
                v15 = load.bool [v6+16]
                print.i32 v12
                print.str data0 " "
                print.i32 v13
                print.str data0 " "
                print.i64 v14
                print.str data0 " "
                print.bool v15
                print.str data1 "\n"
                return
            }
        "#]],
    );
}

#[test]
fn aggregate_arguments_and_results() {
    check(
        "#[derive(Clone, Copy)]
         struct P { x: i32, y: i32 }
         fn swap(mut p: P) -> P { let t = p.x; p.x = p.y; p.y = t; p }
         fn sum(a: [i32; 3]) -> i32 { a[0] + a[1] + a[2] }
         fn main() {
             let p = P { x: 1, y: 2 };
             let q = swap(p);
             println!(\"{} {} {}\", p.x, q.x, sum([q.x, q.y, swap(q).x]));
         }",
        expect![[r#"
            fn crate::swap(sret v0: ptr, v1: ptr) {
            bb0:
                v2 = load.i32 [v1]
                v3 = load.i32 [v1+4]
                store.i32 [v1], v3
                store.i32 [v1+4], v2
                memcopy [v0], [v1], 8
                return
            }

            fn crate::sum(v0: ptr) -> i32 {
            bb0:
                v1 = load.i32 [v0]
                v2 = load.i32 [v0+4]
                v3 = add.i32 v1, v2
                v4 = load.i32 [v0+8]
                v5 = add.i32 v3, v4
                return v5
            }

            fn crate::main() {
                slot0: size 8, align 4
                slot1: size 8, align 4
                slot2: size 8, align 4
                slot3: size 12, align 4
                slot4: size 8, align 4
                slot5: size 8, align 4
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 1
                v1 = slot_addr slot0
                store.i32 [v1], v0
                v2 = const.i32 2
                store.i32 [v1+4], v2
                v3 = slot_addr slot2
                memcopy [v3], [v1], 8
                v4 = slot_addr slot1
                call crate::swap(v4, v3)
                v5 = load.i32 [v1]
                v6 = load.i32 [v4]
                v7 = load.i32 [v4]
                v8 = slot_addr slot3
                store.i32 [v8], v7
                v9 = load.i32 [v4+4]
                store.i32 [v8+4], v9
                v10 = slot_addr slot4
                memcopy [v10], [v4], 8
                v11 = slot_addr slot5
                call crate::swap(v11, v10)
                v12 = load.i32 [v11]
                store.i32 [v8+8], v12
                v13 = call.i32 crate::sum(v8)
                print.i32 v5
                print.str data0 " "
                print.i32 v6
                print.str data0 " "
                print.i32 v13
                print.str data1 "\n"
                return
            }
        "#]],
    );
}

#[test]
fn evaluation_order_of_assignments_and_index_reads() {
    check_run(
        "fn f(x: usize) -> usize { println!(\"f({})\", x); x }
         fn g(x: i32) -> i32 { println!(\"g({})\", x); x }
         fn main() {
             let mut a = [[0i32; 2]; 2];
             a[f(1)][f(0)] = g(3);
             a[f(1)][f(1)] += g(4);
             let mut x = 1;
             let y = x + { x = 5; x };
             let mut c = [1, 2];
             let d = c[{ c[0] = 7; 0 }];
             let e = { c }[{ c[1] = 9; 1 }];
             println!(\"{} {} {} {} {}\", a[1][0] + a[1][1], y, x, d, e);
             a[f(5)][f(9)] = g(3);
         }",
        expect![[r#"
            g(3)
            f(1)
            f(0)
            g(4)
            f(1)
            f(1)
            7 6 5 7 2
            g(3)
            f(5)
            [exit 101] thread 'main' panicked: / index out of bounds: the len is 2 but the index is 5
        "#]],
    );
}

#[test]
fn constants_and_runtime_bounds_checks_on_const_arrays() {
    check(
        "const N: usize = 3;
         const T: [i64; N] = [10, 20, 30];
         const B: bool = N > 2;
         fn main() {
             let mut i = 0;
             while B && i <= N { println!(\"{}\", T[i]); i += 1; }
         }",
        expect![[r#"
            fn crate::main() {
                data0: [0a 00 00 00 00 00 00 00 14 00 00 00 00 00 00 00 1e 00 00 00 00 00 00 00]
                data1: "\n"
            bb0:
                v0 = const.u64 0
                jump bb1
            bb1:
                v1 = const.bool true
                branch v1, bb2, bb3
            bb2:
                v2 = const.u64 3
                v1 = le.u64 v0, v2
                jump bb3
            bb3:
                branch v1, bb4, bb7
            bb4:
                v3 = const.u64 3
                v4 = lt.u64 v0, v3
                branch v4, bb5, bb6
            bb5:
                v5 = data_addr data0
                v6 = elem_addr v5 + v0 * 8
                v7 = load.i64 [v6]
                print.i64 v7
                print.str data1 "\n"
                v8 = const.u64 1
                v0 = add.u64 v0, v8
                jump bb1
            bb6:
                panic index_out_of_bounds v0, len 3
            bb7:
                return
            }
        "#]],
    );
}

#[test]
fn println_pieces_and_repeat() {
    check(
        "fn main() {
             let a = [7u64; 3];
             let big = [0i32; 1000];
             println!(\"{{x}} = {}, {} and {}{}\", a[0], big[999], a[2], true);
             println!();
         }",
        expect![[r#"
            fn crate::main() {
                slot0: size 24, align 8
                slot1: size 4000, align 4
                data0: "{x} = "
                data1: ", "
                data2: " and "
                data3: "\n"
            bb0:
                v0 = const.u64 7
                v1 = slot_addr slot0
                store.u64 [v1], v0
                store.u64 [v1+8], v0
                store.u64 [v1+16], v0
                v2 = const.i32 0
                v3 = slot_addr slot1
                v4 = const.u64 0
                v5 = const.u64 1000
                jump bb1
            bb1:
                v6 = lt.u64 v4, v5
                branch v6, bb2, bb3
            bb2:
                v7 = elem_addr v3 + v4 * 4
                store.i32 [v7], v2
                v8 = const.u64 1
                v4 = add.u64 v4, v8
                jump bb1
            bb3:
                v10 = slot_addr slot0
                v9 = load.u64 [v10]
                v12 = slot_addr slot1
                v11 = load.i32 [v12+3996]
                v13 = load.u64 [v10+16]
                v14 = const.bool true
                print.str data0 "{x} = "
                print.u64 v9
                print.str data1 ", "
                print.i32 v11
                print.str data2 " and "
                print.u64 v13
                print.bool v14
                print.str data3 "\n"
                print.str data3 "\n"
                return
            }
        "#]],
    );
}

#[test]
fn divergence_in_expressions() {
    check_fn(
        "fn f(c: bool) -> i32 {
             let x: i32 = if c { return 1; } else { 2 };
             let y = x + loop { if c { break 5; } };
             if y > 3 { return y; }
             let z: i32 = { return 0; };
             y * z
         }
         fn main() { println!(\"{} {}\", f(true), f(false)); }",
        "crate::f",
        expect![[r#"
            fn crate::f(v0: bool) -> i32 {
            bb0:
                branch v0, bb1, bb2
            bb1:
                v2 = const.i32 1
                return v2
            bb2:
                v1 = const.i32 2
                jump bb3
            bb3:
                branch v0, bb4, bb3
            bb4:
                v5 = const.i32 5
                jump bb5
            bb5:
                v4 = add.i32 v1, v5
                v6 = const.i32 3
                v7 = gt.i32 v4, v6
                branch v7, bb6, bb7
            bb6:
                return v4
            bb7:
                v9 = const.i32 0
                return v9
            }
        "#]],
    );
}

// ---------------------------------------------------------------------------------------
// Programs checked against rustc (their expected output is rustc's).

#[test]
fn structs_consts_recursion_shadowing_and_wrapping_agree_with_rustc() {
    check_run(
        r#"
#[derive(Clone, Copy)]
struct S { a: bool, b: i64, c: bool, arr: [i32; 3] }
#[derive(Clone, Copy)]
struct W { s: S, k: [S; 2] }
const C: S = S { a: true, b: -7, c: false, arr: [1, 2, 3] };
const WS: W = W { s: C, k: [C, S { a: false, b: 9, c: true, arr: [4, 5, 6] }] };
fn mk(n: i64) -> S { S { a: n > 0, b: n, c: n < 0, arr: [n as i32, 0, -1] } }
fn sum(s: S, t: S) -> i64 { s.b + t.b + (s.arr[0] + t.arr[2]) as i64 }
fn bump(mut w: W) -> i64 { w.k[1].arr[2] += 100; w.s.b = 1; w.k[1].arr[2] as i64 + w.s.b }
fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
fn unit() {}
fn main() {
    let mut s = C;
    s.b = s.arr[2] as i64 + { s.arr[2] = 100; 1 };
    println!("{} {} {}", s.b, s.arr[2], C.arr[2]);
    let x = 1;
    let x = { let x = x + 1; x * 10 };
    println!("{}", x);
    println!("{}", sum(mk(3), mk(-4)));
    let w = WS;
    println!("{} {} {}", bump(w), w.k[1].arr[2], WS.k[1].b);
    let u = unit();
    let v = u;
    let _ = v;
    println!("{} {}", fib(20), 0u64);
    let z = 0usize;
    println!("{} {}", z - 1, (z as i32) - i32::MAX - 2);
    let mut grid = [[0u64; 3]; 3];
    for i in 0..3 { for j in 0..3 { grid[i][j] = (i * 3 + j) as u64; } }
    let g2 = grid;
    grid[1] = grid[2];
    println!("{} {} {}", grid[1][0], g2[1][0], grid[2][2]);
    let mut flags = [false; 5];
    flags[3] = true;
    let mut count = 0;
    for f in 0..5 { if flags[f] || f == 0 { count += 1; } }
    println!("{}", count);
    let mut i = 0;
    'a: while { if i == 3 { break 'a; } i < 10 } { i += 1; }
    println!("{}", i);
    let big = 1u64 << 63;
    println!("{} {} {}", big, big >> 63i32, (big as i64) >> 62);
}
"#,
        expect![[r#"
            4 100 3
            20
            1
            107 6 9
            6765 0
            18446744073709551615 2147483647
            6 3 8
            2
            3
            9223372036854775808 1 -2
            [exit 0]
        "#]],
    );
}

#[test]
fn compound_assignment_checks_division_after_the_place() {
    check_run(
        r#"
fn f(x: usize) -> usize { println!("f({})", x); x }
fn z() -> i32 { println!("z"); 0 }
fn main() {
    let mut a = [10, 20];
    a[f(1)] -= 1;
    println!("{}", a[1]);
    a[f(1)] /= z();
}
"#,
        expect![[r#"
            f(1)
            19
            z
            f(1)
            [exit 101] thread 'main' panicked: / attempt to divide by zero
        "#]],
    );
}

#[test]
fn compound_assignment_checks_bounds_before_the_division() {
    check_run(
        r#"
fn f(x: usize) -> usize { println!("f({})", x); x }
fn z() -> i32 { println!("z"); 0 }
fn main() {
    let mut a = [10, 20];
    a[f(5)] += z();
}
"#,
        expect![[r#"
            z
            f(5)
            [exit 101] thread 'main' panicked: / index out of bounds: the len is 2 but the index is 5
        "#]],
    );
}

#[test]
fn let_underscore_still_checks_the_bounds() {
    check_run(
        r#"
fn main() {
    let a = [1, 2, 3];
    let i = 7;
    println!("before");
    let _ = a[i];
    println!("after");
}
"#,
        expect![[r#"
            before
            [exit 101] thread 'main' panicked: / index out of bounds: the len is 3 but the index is 7
        "#]],
    );
}

#[test]
fn signed_remainder_overflow_panics() {
    check_run(
        r#"
fn main() {
    let m = i64::MIN;
    let k = -1;
    println!("{}", m + 0);
    println!("{}", m % k);
}
"#,
        expect![[r#"
            -9223372036854775808
            [exit 101] thread 'main' panicked: / attempt to calculate the remainder with overflow
        "#]],
    );
}
