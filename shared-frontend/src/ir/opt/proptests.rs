//! Property tests: random well-formed functions (straight-line code, diamonds, bounded
//! loops, checked division, bounds-checked memory, calls) behave the same under the
//! interpreter before and after [`optimize`] and after each pass alone, `optimize` is
//! idempotent, and it gives exactly what running every pass in every round gives.
//! Cases: env `RILL_PROPTEST_CASES` (default 256).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::tests::listing;
use super::*;
use crate::ir::builder::{fn_def_id, program, FunctionBuilder};
use crate::ir::interp::{run, ExitStatus, InterpLimits, InterpOutcome};
use crate::ir::{IrBinOp, IrUnOp, ScalarTy};

const TYS: [ScalarTy; 4] = [ScalarTy::I32, ScalarTy::I64, ScalarTy::U64, ScalarTy::Bool];
const BINOPS: [IrBinOp; 16] = [
    IrBinOp::Add,
    IrBinOp::Sub,
    IrBinOp::Mul,
    IrBinOp::Div,
    IrBinOp::Rem,
    IrBinOp::And,
    IrBinOp::Or,
    IrBinOp::Xor,
    IrBinOp::Shl,
    IrBinOp::Shr,
    IrBinOp::Eq,
    IrBinOp::Ne,
    IrBinOp::Lt,
    IrBinOp::Le,
    IrBinOp::Gt,
    IrBinOp::Ge,
];

/// One statement of a random function. Operands are picks, resolved modulo the values
/// of the wanted type in scope (variables, then temporaries).
#[derive(Clone, Debug)]
enum Stmt {
    Const {
        ty: u8,
        value: u64,
    },
    Binary {
        op: u8,
        ty: u8,
        a: u8,
        b: u8,
        shift_ty: u8,
        into_var: bool,
    },
    Unary {
        neg: bool,
        ty: u8,
        a: u8,
    },
    Cast {
        from: u8,
        to: u8,
        a: u8,
    },
    Assign {
        ty: u8,
        var: u8,
        a: u8,
    },
    /// A new temporary holding a copy.
    Copy {
        ty: u8,
        a: u8,
    },
    Print {
        ty: u8,
        a: u8,
    },
    /// `arr[index & mask] = value` with a bounds check (len 5): masks 3 or 7.
    Store {
        index: u8,
        value: u8,
        wide: bool,
    },
    Load {
        index: u8,
    },
    Call {
        a: u8,
        b: u8,
    },
    If {
        cond: u8,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    Loop {
        n: u8,
        body: Vec<Stmt>,
    },
}

fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => (-3i64..=3).prop_map(|v| v as u64),
        2 => prop::sample::select(vec![
            i32::MIN as i64 as u64,
            i32::MAX as u64,
            i64::MIN as u64,
            i64::MAX as u64,
            u64::MAX,
            31,
            32,
            63,
            64,
        ]),
        1 => any::<u64>(),
    ]
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let leaf = prop_oneof![
        3 => (0..4u8, value()).prop_map(|(ty, value)| Stmt::Const { ty, value }),
        6 => (0..16u8, 0..4u8, any::<u8>(), any::<u8>(), 0..3u8, any::<bool>()).prop_map(
            |(op, ty, a, b, shift_ty, into_var)| Stmt::Binary {
                op,
                ty,
                a,
                b,
                shift_ty,
                into_var
            }
        ),
        1 => (any::<bool>(), 0..4u8, any::<u8>()).prop_map(|(neg, ty, a)| Stmt::Unary {
            neg,
            ty,
            a
        }),
        1 => (0..4u8, 0..3u8, any::<u8>()).prop_map(|(from, to, a)| Stmt::Cast { from, to, a }),
        2 => (0..4u8, any::<u8>(), any::<u8>()).prop_map(|(ty, var, a)| Stmt::Assign {
            ty,
            var,
            a
        }),
        2 => (0..4u8, any::<u8>()).prop_map(|(ty, a)| Stmt::Print { ty, a }),
        1 => (0..4u8, any::<u8>()).prop_map(|(ty, a)| Stmt::Copy { ty, a }),
        1 => (any::<u8>(), any::<u8>(), prop::bool::weighted(0.2)).prop_map(
            |(index, value, wide)| Stmt::Store { index, value, wide }
        ),
        1 => any::<u8>().prop_map(|index| Stmt::Load { index }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Stmt::Call { a, b }),
    ];
    leaf.prop_recursive(3, 64, 6, |inner| {
        prop_oneof![
            (
                any::<u8>(),
                prop::collection::vec(inner.clone(), 0..6),
                prop::collection::vec(inner.clone(), 0..6)
            )
                .prop_map(|(cond, then, els)| Stmt::If { cond, then, els }),
            (0..4u8, prop::collection::vec(inner, 0..6))
                .prop_map(|(n, body)| Stmt::Loop { n, body }),
        ]
    })
}

/// Builds a function from statements.
struct Gen {
    b: FunctionBuilder,
    /// Variables per type (assigned many times), then temporaries in scope.
    vars: [Vec<VReg>; 4],
    temps: [Vec<VReg>; 4],
    arr: VReg,
    /// Whether `Call` statements call the helper.
    calls: bool,
}

fn ty_index(ty: ScalarTy) -> usize {
    TYS.iter().position(|&t| t == ty).unwrap_or(0)
}

impl Gen {
    fn new(name: &str, params: &[ScalarTy], ret: Option<ScalarTy>, calls: bool) -> Gen {
        let mut b = FunctionBuilder::new(name);
        b.returns(ret);
        let mut vars: [Vec<VReg>; 4] = Default::default();
        for &p in params {
            let r = b.param(p);
            vars[ty_index(p)].push(r);
        }
        for (i, &ty) in TYS.iter().enumerate() {
            for init in [0u64, 5] {
                let r = b.iconst(ty, init);
                vars[i].push(r);
            }
        }
        let s = b.slot(40, 8);
        let arr = b.slot_addr(s);
        let zero = b.iconst(ScalarTy::I64, 0);
        for i in 0..5 {
            b.store(arr, i * 8, zero);
        }
        Gen {
            b,
            vars,
            temps: Default::default(),
            arr,
            calls,
        }
    }

    fn pick(&self, ty: usize, k: u8) -> VReg {
        let (v, t) = (&self.vars[ty], &self.temps[ty]);
        let k = k as usize % (v.len() + t.len());
        if k < v.len() {
            v[k]
        } else {
            t[k - v.len()]
        }
    }

    fn temp(&mut self, r: VReg) {
        let i = ty_index(self.b.ty(r));
        self.temps[i].push(r);
    }

    /// Statements in a scope; the temporaries it defines are printed at its end, so that
    /// every computed value is observable.
    fn block(&mut self, stmts: &[Stmt]) {
        let saved = self.temps.clone();
        for s in stmts {
            self.stmt(s);
        }
        let fresh: Vec<VReg> = saved
            .iter()
            .zip(&self.temps)
            .flat_map(|(old, now)| now[old.len()..].iter().copied())
            .collect();
        for r in fresh {
            self.print(r);
        }
        self.temps = saved;
    }

    fn print(&mut self, r: VReg) {
        if self.b.ty(r) == ScalarTy::Bool {
            self.b.print_bool(r);
        } else {
            self.b.print_int(r);
        }
        self.b.print_str(",");
    }

    fn stmt(&mut self, s: &Stmt) {
        match *s {
            Stmt::Const { ty, value } => {
                let r = self.b.iconst(TYS[ty as usize], value);
                self.temp(r);
            }
            Stmt::Binary {
                op,
                ty,
                a,
                b,
                shift_ty,
                into_var,
            } => {
                let op = BINOPS[op as usize];
                let t = ty as usize;
                let is_shift = matches!(op, IrBinOp::Shl | IrBinOp::Shr);
                let arith = matches!(
                    op,
                    IrBinOp::Add | IrBinOp::Sub | IrBinOp::Mul | IrBinOp::Div | IrBinOp::Rem
                ) || is_shift;
                if arith && TYS[t] == ScalarTy::Bool {
                    return;
                }
                let lhs = self.pick(t, a);
                let rhs = self.pick(if is_shift { shift_ty as usize } else { t }, b);
                if matches!(op, IrBinOp::Div | IrBinOp::Rem) {
                    // Mostly a divisor made odd (so rarely zero), sometimes any.
                    let rhs = if shift_ty == 0 {
                        rhs
                    } else {
                        let one = self.b.iconst(TYS[t], 1);
                        self.b.binary(IrBinOp::Or, rhs, one)
                    };
                    let r = self.b.checked_div(op, lhs, rhs);
                    self.temp(r);
                    return;
                }
                let result_ty = if crate::ir::builder::is_comparison(op) {
                    ScalarTy::Bool
                } else {
                    TYS[t]
                };
                if into_var {
                    let var = self.pick_var(ty_index(result_ty), a ^ b);
                    self.b.assign_binary(op, var, lhs, rhs);
                } else {
                    let r = self.b.binary(op, lhs, rhs);
                    self.temp(r);
                }
            }
            Stmt::Unary { neg, ty, a } => {
                if neg && TYS[ty as usize] == ScalarTy::Bool {
                    return;
                }
                let src = self.pick(ty as usize, a);
                let op = if neg { IrUnOp::Neg } else { IrUnOp::Not };
                let r = self.b.unary(op, src);
                self.temp(r);
            }
            Stmt::Cast { from, to, a } => {
                let src = self.pick(from as usize, a);
                let r = self.b.cast(src, TYS[to as usize]);
                self.temp(r);
            }
            Stmt::Assign { ty, var, a } => {
                let src = self.pick(ty as usize, a);
                let dst = self.pick_var(ty as usize, var);
                self.b.assign(dst, src);
            }
            Stmt::Copy { ty, a } => {
                let src = self.pick(ty as usize, a);
                let r = self.b.copy(src);
                self.temp(r);
            }
            Stmt::Print { ty, a } => {
                let r = self.pick(ty as usize, a);
                self.print(r);
            }
            Stmt::Store { index, value, wide } => {
                let i = self.index(index, wide);
                let v = self.pick(ty_index(ScalarTy::I64), value);
                let a = self.b.elem_addr(self.arr, i, 8);
                self.b.store(a, 0, v);
            }
            Stmt::Load { index } => {
                let i = self.index(index, false);
                let a = self.b.elem_addr(self.arr, i, 8);
                let r = self.b.load(ScalarTy::I64, a, 0);
                self.temp(r);
            }
            Stmt::Call { a, b } => {
                if !self.calls {
                    return;
                }
                let x = self.pick(ty_index(ScalarTy::I64), a);
                let y = self.pick(ty_index(ScalarTy::I32), b);
                let r = self
                    .b
                    .call(fn_def_id("helper"), &[x, y], Some(ScalarTy::I64));
                if let Some(r) = r {
                    self.temp(r);
                }
            }
            Stmt::If {
                cond,
                ref then,
                ref els,
            } => {
                let c = self.pick(ty_index(ScalarTy::Bool), cond);
                let (t, e, join) = (self.b.block(), self.b.block(), self.b.block());
                self.b.branch(c, t, e);
                self.b.switch_to(t);
                self.block(then);
                self.b.jump(join);
                self.b.switch_to(e);
                self.block(els);
                self.b.jump(join);
                self.b.switch_to(join);
            }
            Stmt::Loop { n, ref body } => {
                let counter = self.b.iconst(ScalarTy::U64, 0);
                let limit = self.b.iconst(ScalarTy::U64, n as u64);
                let (head, body_block, exit) = (self.b.block(), self.b.block(), self.b.block());
                self.b.jump(head);
                self.b.switch_to(head);
                let c = self.b.binary(IrBinOp::Lt, counter, limit);
                self.b.branch(c, body_block, exit);
                self.b.switch_to(body_block);
                self.block(body);
                let one = self.b.iconst(ScalarTy::U64, 1);
                self.b.assign_binary(IrBinOp::Add, counter, counter, one);
                self.b.jump(head);
                self.b.switch_to(exit);
            }
        }
    }

    fn pick_var(&self, ty: usize, k: u8) -> VReg {
        let v = &self.vars[ty];
        v[k as usize % v.len()]
    }

    /// A `U64` index derived from a value in scope, bounds-checked against 5.
    fn index(&mut self, k: u8, wide: bool) -> VReg {
        let v = self.pick(ty_index(ScalarTy::U64), k);
        let mask = self.b.iconst(ScalarTy::U64, if wide { 7 } else { 3 });
        let i = self.b.binary(IrBinOp::And, v, mask);
        self.b.bounds_check(i, 5);
        i
    }

    /// Prints every variable and returns.
    fn finish(mut self, ret: Option<(ScalarTy, u8)>) -> IrFunction {
        for ty in 0..4 {
            for r in self.vars[ty].clone() {
                self.print(r);
            }
        }
        self.b.print_str("\n");
        let v = ret.map(|(ty, k)| self.pick(ty_index(ty), k));
        self.b.ret(v);
        self.b.finish()
    }
}

fn build(main_body: &[Stmt], helper_body: &[Stmt], ret_pick: u8) -> Vec<IrFunction> {
    let mut m = Gen::new("main", &[], None, true);
    m.block(main_body);
    let main = m.finish(None);
    let mut h = Gen::new(
        "helper",
        &[ScalarTy::I64, ScalarTy::I32],
        Some(ScalarTy::I64),
        false,
    );
    h.block(helper_body);
    let helper = h.finish(Some((ScalarTy::I64, ret_pick)));
    vec![main, helper]
}

/// The program's output (as text) and how it ended.
fn exec(fns: Vec<IrFunction>) -> (String, ExitStatus) {
    let limits = InterpLimits {
        fuel: Some(5_000_000),
        ..InterpLimits::default()
    };
    let InterpOutcome { stdout, status } = run(&program(fns, fn_def_id("main")), &limits);
    (String::from_utf8_lossy(&stdout).into_owned(), status)
}

fn cases() -> u32 {
    std::env::var("RILL_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

type Pass = fn(&mut IrFunction, &mut OptStats);

/// [`optimize_with_stats`] without skipping passes: every pass in every round (in
/// [`ORDER`]) until a round changes nothing. `optimize` must give exactly its result and
/// its counts (in at most as many rounds).
pub(super) fn optimize_every_pass_every_round(f: &IrFunction) -> (IrFunction, OptStats) {
    let mut stats = OptStats::default();
    let mut f = f.clone();
    if !well_formed_registers(&f) {
        return (f, stats);
    }
    // The classes are recomputed whenever stale (no superset), but blocks unreachable
    // from the entry are left alone as `optimize` leaves them when exact.
    let mut sc = visit::Scratch {
        skip_unreachable: f.blocks.len().saturating_mul(f.vregs.len()) <= fold::MAX_TRACKED,
        ..visit::Scratch::default()
    };
    let mut bufs = fold::FoldBufs::default();
    for _ in 0..MAX_ROUNDS {
        stats.rounds += 1;
        let mut changed = false;
        for pass in ORDER {
            changed |= match pass {
                FOLD => fold::fold_constants_unchecked(&mut f, &mut stats, &mut sc, &mut bufs),
                COPYPROP => {
                    // Copy propagation looks for copies every time here.
                    sc.no_copies = false;
                    copyprop::propagate_unchecked(&mut f, &mut stats, &mut sc)
                }
                CFG => cfg::simplify_cfg_unchecked(&mut f, &mut stats, &mut sc),
                _ => dce::eliminate_dead_code_unchecked(&mut f, &mut stats, &mut sc),
            }
            .any;
        }
        if !changed {
            break;
        }
    }
    compact_registers(&mut f);
    (f, stats)
}

/// Whether `optimize` gives exactly what running every pass in every round gives.
pub(super) fn same_as_every_pass_every_round(f: &IrFunction) -> Result<(), String> {
    let (got, got_stats) = optimize_with_stats(f);
    let (want, want_stats) = optimize_every_pass_every_round(f);
    let same_counts = OptStats {
        rounds: want_stats.rounds,
        ..got_stats
    } == want_stats;
    if got != want || !same_counts || got_stats.rounds > want_stats.rounds {
        return Err(format!(
            "input:\n{}\nskipping passes:\n{}{:?}\nevery pass:\n{}{:?}",
            listing(f),
            listing(&got),
            got_stats,
            listing(&want),
            want_stats
        ));
    }
    Ok(())
}

#[test]
fn optimization_preserves_behaviour_and_is_idempotent() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        prop::collection::vec(stmt(), 0..24),
        prop::collection::vec(stmt(), 0..12),
        any::<u8>(),
    );
    let passes: [(&str, Pass); 4] = [
        ("fold_constants", fold_constants),
        ("propagate", propagate),
        ("eliminate_dead_code", eliminate_dead_code),
        ("simplify_cfg", simplify_cfg),
    ];
    let result = runner.run(&strategy, |(main_body, helper_body, ret_pick)| {
        let fns = build(&main_body, &helper_body, ret_pick);
        let want = exec(fns.clone());
        prop_assert!(
            !matches!(want.1, ExitStatus::InternalError(_) | ExitStatus::OutOfFuel),
            "{:?}",
            want.1
        );
        for (name, pass) in passes {
            let one: Vec<IrFunction> = fns
                .iter()
                .map(|f| {
                    let mut g = f.clone();
                    pass(&mut g, &mut OptStats::default());
                    g
                })
                .collect();
            let got = exec(one.clone());
            prop_assert_eq!(&got, &want, "after {} alone:\n{}", name, listing(&one[0]));
        }
        for f in &fns {
            if let Err(e) = same_as_every_pass_every_round(f) {
                prop_assert!(false, "{}", e);
            }
        }
        let opt: Vec<IrFunction> = fns.iter().map(optimize).collect();
        let got = exec(opt.clone());
        prop_assert_eq!(
            &got,
            &want,
            "before:\n{}{}\nafter:\n{}{}",
            listing(&fns[0]),
            listing(&fns[1]),
            listing(&opt[0]),
            listing(&opt[1])
        );
        for f in &opt {
            let again = optimize(f);
            prop_assert_eq!(&again, f, "not idempotent:\n{}", listing(f));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
