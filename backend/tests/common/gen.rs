//! Random well-formed IR programs from a seed: several functions (an acyclic call graph,
//! up to 9 parameters so some go on the stack, some returning aggregates through `sret`),
//! each a structured body of assignments over edge-value constants, all binary and
//! unary operations and casts, checked divisions (which may panic), `if`s, bounded loops,
//! arrays in stack slots with bounds checks (which may panic), copies of arrays, calls
//! and prints. Every register is written before it is read.

use shared_frontend::ir::builder::{fn_def_id, program, FunctionBuilder};
use shared_frontend::ir::{IrBinOp, IrProgram, IrUnOp, ScalarTy, SlotId, VReg};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

pub const INT_TYS: [ScalarTy; 3] = [ScalarTy::I32, ScalarTy::I64, ScalarTy::U64];
pub const ALL_TYS: [ScalarTy; 4] = [ScalarTy::I32, ScalarTy::I64, ScalarTy::U64, ScalarTy::Bool];

/// Interesting values of a type (as bits).
pub fn edge_values(ty: ScalarTy) -> Vec<u64> {
    match ty {
        ScalarTy::Bool => vec![0, 1],
        ScalarTy::I32 => [
            0i64, 1, -1, 2, 7, 31, 32, 33, 127, 128, -128, -129, 255, 256,
        ]
        .iter()
        .map(|&v| v as u64)
        .chain([
            i32::MAX as i64 as u64,
            i32::MIN as i64 as u64,
            0x1234_5678,
            (i32::MIN + 1) as i64 as u64,
        ])
        .collect(),
        _ => [0i64, 1, -1, 2, 63, 64, 65, 127, 128, -128, -129]
            .iter()
            .map(|&v| v as u64)
            .chain([
                (1u64 << 31) - 1,
                1 << 31,
                (-(1i64 << 31)) as u64,
                (-(1i64 << 31) - 1) as u64,
                1 << 32,
                u32::MAX as u64,
                i64::MAX as u64,
                i64::MIN as u64,
                u64::MAX - 1,
                0x0123_4567_89ab_cdef,
            ])
            .collect(),
    }
}

struct Sig {
    params: Vec<ScalarTy>,
    ret: Option<ScalarTy>,
    /// `sret` returning an array of this many i64.
    sret: Option<u32>,
}

struct FnGen<'a> {
    rng: &'a mut Rng,
    b: FunctionBuilder,
    vars: Vec<VReg>,
    sigs: &'a [Sig],
    names: &'a [String],
    me: usize,
    /// Arrays: slot, element type, length.
    arrays: Vec<(SlotId, ScalarTy, u32)>,
    budget: u32,
    /// Loop counters: read, never assigned by statements.
    counters: Vec<VReg>,
}

impl FnGen<'_> {
    fn var_of(&mut self, ty: ScalarTy) -> VReg {
        let cands: Vec<VReg> = self
            .vars
            .iter()
            .copied()
            .filter(|&v| self.b.ty(v) == ty)
            .collect();
        if cands.is_empty() || self.rng.chance(15) {
            let v = self.rng.pick(&edge_values(ty));
            let c = self.b.iconst(ty, v);
            return c;
        }
        self.rng.pick(&cands)
    }

    fn any_var(&mut self) -> VReg {
        self.rng.pick(&self.vars)
    }

    fn assign_target(&mut self, ty: ScalarTy) -> Option<VReg> {
        let cands: Vec<VReg> = self
            .vars
            .iter()
            .copied()
            .filter(|&v| self.b.ty(v) == ty && !self.counters.contains(&v))
            .collect();
        if cands.is_empty() {
            None
        } else {
            Some(self.rng.pick(&cands))
        }
    }

    /// Computes a value of type `ty` into a fresh register.
    fn expr(&mut self, ty: ScalarTy) -> VReg {
        let roll = self.rng.below(100);
        if ty == ScalarTy::Bool {
            return match roll {
                0..=49 => {
                    let t = self.rng.pick(&ALL_TYS);
                    let (a, b) = (self.var_of(t), self.var_of(t));
                    let op = self.rng.pick(&[
                        IrBinOp::Eq,
                        IrBinOp::Ne,
                        IrBinOp::Lt,
                        IrBinOp::Le,
                        IrBinOp::Gt,
                        IrBinOp::Ge,
                    ]);
                    self.b.binary(op, a, b)
                }
                50..=69 => {
                    let (a, b) = (self.var_of(ty), self.var_of(ty));
                    let op = self.rng.pick(&[IrBinOp::And, IrBinOp::Or, IrBinOp::Xor]);
                    self.b.binary(op, a, b)
                }
                70..=79 => {
                    let a = self.var_of(ty);
                    self.b.unary(IrUnOp::Not, a)
                }
                _ => {
                    let a = self.var_of(ty);
                    self.b.copy(a)
                }
            };
        }
        match roll {
            0..=49 => {
                let op = self.rng.pick(&[
                    IrBinOp::Add,
                    IrBinOp::Sub,
                    IrBinOp::Mul,
                    IrBinOp::And,
                    IrBinOp::Or,
                    IrBinOp::Xor,
                    IrBinOp::Shl,
                    IrBinOp::Shr,
                ]);
                let a = self.var_of(ty);
                let b = if matches!(op, IrBinOp::Shl | IrBinOp::Shr) {
                    let t = self.rng.pick(&INT_TYS);
                    self.var_of(t)
                } else {
                    self.var_of(ty)
                };
                self.b.binary(op, a, b)
            }
            50..=59 => {
                let op = self.rng.pick(&[IrBinOp::Div, IrBinOp::Rem]);
                let a = self.var_of(ty);
                let b = self.var_of(ty);
                self.b.checked_div(op, a, b)
            }
            60..=69 => {
                let op = self.rng.pick(&[IrUnOp::Neg, IrUnOp::Not]);
                let a = self.var_of(ty);
                self.b.unary(op, a)
            }
            70..=84 => {
                let t = self.rng.pick(&ALL_TYS);
                let a = self.var_of(t);
                self.b.cast(a, ty)
            }
            _ => {
                let v = self.rng.pick(&edge_values(ty));
                self.b.iconst(ty, v)
            }
        }
    }

    /// Statements in a nested scope: registers first defined there are not used after it
    /// (they may be unassigned on other paths).
    fn scoped(&mut self, depth: u32) {
        let (nvars, narrays) = (self.vars.len(), self.arrays.len());
        self.stmts(depth);
        self.vars.truncate(nvars);
        self.arrays.truncate(narrays);
    }

    fn stmts(&mut self, depth: u32) {
        let n = 1 + self.rng.below(6);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: u32) {
        let roll = self.rng.below(100);
        match roll {
            0..=34 => {
                let ty = self.rng.pick(&ALL_TYS);
                let e = self.expr(ty);
                match self.assign_target(ty) {
                    Some(t) if self.rng.chance(70) => self.b.assign(t, e),
                    _ => self.vars.push(e),
                }
            }
            35..=44 => {
                let v = self.any_var();
                if self.b.ty(v) == ScalarTy::Bool {
                    self.b.print_bool(v);
                } else {
                    self.b.print_int(v);
                }
                self.b.print_str(" ");
            }
            45..=54 if depth < 3 => {
                let c = self.expr(ScalarTy::Bool);
                let (t, e, j) = (self.b.block(), self.b.block(), self.b.block());
                self.b.branch(c, t, e);
                self.b.switch_to(t);
                self.scoped(depth + 1);
                self.b.jump(j);
                self.b.switch_to(e);
                if self.rng.chance(50) {
                    self.scoped(depth + 1);
                }
                self.b.jump(j);
                self.b.switch_to(j);
            }
            55..=62 if depth < 3 => {
                // for i in 0..n { body }
                let n = self.rng.below(6);
                let i = self.b.iconst(ScalarTy::I64, 0);
                let limit = self.b.iconst(ScalarTy::I64, n);
                let (head, body, exit) = (self.b.block(), self.b.block(), self.b.block());
                self.b.jump(head);
                self.b.switch_to(head);
                let c = self.b.binary(IrBinOp::Lt, i, limit);
                self.b.branch(c, body, exit);
                self.b.switch_to(body);
                let nvars = self.vars.len();
                self.vars.push(i);
                self.counters.push(i);
                self.scoped(depth + 1);
                self.counters.pop();
                self.vars.truncate(nvars);
                let one = self.b.iconst(ScalarTy::I64, 1);
                self.b.assign_binary(IrBinOp::Add, i, i, one);
                self.b.jump(head);
                self.b.switch_to(exit);
            }
            63..=72 => self.array_stmt(),
            73..=84 => self.call_stmt(),
            _ => {
                let ty = self.rng.pick(&INT_TYS);
                let e = self.expr(ty);
                self.vars.push(e);
            }
        }
    }

    fn array_stmt(&mut self) {
        if self.arrays.is_empty() || self.rng.chance(20) {
            let ty = self.rng.pick(&ALL_TYS);
            let len = 1 + self.rng.below(6) as u32;
            let size = ty.size();
            let slot = self.b.slot(size * len, size);
            // Initialize every element.
            let base = self.b.slot_addr(slot);
            for k in 0..len {
                let v = self.var_of(ty);
                self.b.store(base, k * size, v);
            }
            self.arrays.push((slot, ty, len));
            return;
        }
        let (slot, ty, len) = self.rng.pick(&self.arrays);
        let size = ty.size();
        let base = self.b.slot_addr(slot);
        match self.rng.below(3) {
            0 => {
                // a[i] = v, with i possibly out of bounds
                let raw = self.var_of(ScalarTy::U64);
                let m = self.b.iconst(ScalarTy::U64, len as u64 + 1);
                let idx = if self.rng.chance(80) {
                    self.b.checked_div(IrBinOp::Rem, raw, m)
                } else {
                    raw
                };
                self.b.bounds_check(idx, len as u64);
                let addr = self.b.elem_addr(base, idx, size);
                let v = self.var_of(ty);
                self.b.store(addr, 0, v);
            }
            1 => {
                let raw = self.var_of(ScalarTy::U64);
                let m = self.b.iconst(ScalarTy::U64, len as u64);
                let idx = self.b.checked_div(IrBinOp::Rem, raw, m);
                self.b.bounds_check(idx, len as u64);
                let addr = self.b.elem_addr(base, idx, size);
                let v = self.b.load(ty, addr, 0);
                self.vars.push(v);
            }
            _ => {
                // copy the array into a fresh slot and read an element back
                let copy = self.b.slot(size * len, size);
                let dst = self.b.slot_addr(copy);
                self.b.mem_copy(dst, base, size * len);
                let k = self.rng.below(len as u64) as u32;
                let v = self.b.load(ty, dst, k * size);
                self.vars.push(v);
            }
        }
    }

    fn call_stmt(&mut self) {
        let callees: Vec<usize> = (self.me + 1..self.sigs.len()).collect();
        if callees.is_empty() {
            return;
        }
        let j = self.rng.pick(&callees);
        let sig = &self.sigs[j];
        let mut args = Vec::new();
        let mut sret_slot = None;
        if let Some(n) = sig.sret {
            let slot = self.b.slot(8 * n, 8);
            let a = self.b.slot_addr(slot);
            args.push(a);
            sret_slot = Some((slot, n));
        }
        let params = sig.params.clone();
        for &t in &params {
            let v = self.var_of(t);
            args.push(v);
        }
        let callee = fn_def_id(&self.names[j]);
        let r = self.b.call(callee, &args, sig.ret);
        if let Some(r) = r {
            self.vars.push(r);
        }
        if let Some((slot, n)) = sret_slot {
            let a = self.b.slot_addr(slot);
            let k = self.rng.below(n as u64) as u32;
            let v = self.b.load(ScalarTy::I64, a, 8 * k);
            self.vars.push(v);
        }
    }
}

/// A random program: `main` and up to four other functions.
pub fn random_program(seed: u64) -> IrProgram {
    let mut rng = Rng::new(seed);
    let nfns = 1 + rng.below(5) as usize;
    let names: Vec<String> = (0..nfns)
        .map(|i| {
            if i == 0 {
                "main".to_string()
            } else {
                format!("f{i}")
            }
        })
        .collect();
    let mut sigs = Vec::new();
    for i in 0..nfns {
        if i == 0 {
            sigs.push(Sig {
                params: vec![],
                ret: None,
                sret: None,
            });
            continue;
        }
        let np = rng.below(10) as usize;
        let params = (0..np).map(|_| rng.pick(&ALL_TYS)).collect();
        let (ret, sret) = match rng.below(4) {
            0 => (None, None),
            1 => (None, Some(1 + rng.below(4) as u32)),
            _ => (Some(rng.pick(&ALL_TYS)), None),
        };
        sigs.push(Sig { params, ret, sret });
    }
    let mut functions = Vec::new();
    for i in 0..nfns {
        let mut b = FunctionBuilder::new(&names[i]);
        let sret_ptr = sigs[i].sret.map(|_| b.sret());
        let mut vars = Vec::new();
        for &t in &sigs[i].params {
            vars.push(b.param(t));
        }
        b.returns(sigs[i].ret);
        // A few initialized variables of each type.
        for &t in &ALL_TYS {
            for _ in 0..1 + rng.below(3) {
                let v = rng.pick(&edge_values(t));
                let r = b.reg(t);
                b.assign_const(r, v);
                vars.push(r);
            }
        }
        let mut g = FnGen {
            rng: &mut rng,
            b,
            vars,
            sigs: &sigs,
            names: &names,
            me: i,
            arrays: Vec::new(),
            budget: 40,
            counters: Vec::new(),
        };
        g.stmts(0);
        if let (Some(p), Some(n)) = (sret_ptr, sigs[i].sret) {
            for k in 0..n {
                let v = g.var_of(ScalarTy::I64);
                g.b.store(p, 8 * k, v);
            }
        }
        let ret = sigs[i].ret.map(|t| g.var_of(t));
        // Print a checksum of a few variables before returning.
        for _ in 0..3 {
            let v = g.any_var();
            if g.b.ty(v) == ScalarTy::Bool {
                g.b.print_bool(v);
            } else {
                g.b.print_int(v);
            }
            g.b.print_str(",");
        }
        g.b.print_str("\n");
        g.b.ret(ret);
        functions.push(g.b.finish());
    }
    program(functions, fn_def_id("main"))
}
