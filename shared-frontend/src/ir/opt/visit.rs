//! What an instruction or terminator defines, reads and jumps to (public as
//! [`crate::ir`]'s def/use helpers: [`def_of`], [`for_each_use`], [`term_use`],
//! [`successors`], [`is_pure`]), and the analyses the passes share: register classes,
//! reverse postorder, dominators.

use crate::ir::{BlockId, Inst, IrFunction, PrintArg, Terminator, VReg};

pub(super) const NONE: u32 = u32::MAX;

/// The register an instruction writes.
#[inline]
pub fn def_of(inst: &Inst) -> Option<VReg> {
    match *inst {
        Inst::Const { dst, .. }
        | Inst::Copy { dst, .. }
        | Inst::Unary { dst, .. }
        | Inst::Binary { dst, .. }
        | Inst::Cast { dst, .. }
        | Inst::SlotAddr { dst, .. }
        | Inst::DataAddr { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::ElemAddr { dst, .. } => Some(dst),
        Inst::Call(ref call) => call.dst,
        Inst::Store { .. } | Inst::MemCopy { .. } | Inst::Print(_) => None,
    }
}

/// Calls `f` on every register an instruction reads, in operand order. Always inlined:
/// it runs once per instruction in the passes' and the backend's walks, where the call
/// (with `f`'s captures passed through memory) cost the backend's analysis 3% more
/// instructions.
#[inline(always)]
pub fn for_each_use(inst: &Inst, mut f: impl FnMut(VReg)) {
    match inst {
        Inst::Const { .. } | Inst::SlotAddr { .. } | Inst::DataAddr { .. } => {}
        Inst::Copy { src, .. } | Inst::Unary { src, .. } | Inst::Cast { src, .. } => f(*src),
        Inst::Binary { lhs, rhs, .. } => {
            f(*lhs);
            f(*rhs);
        }
        Inst::Load { addr, .. } => f(*addr),
        Inst::Store { addr, src, .. } => {
            f(*addr);
            f(*src);
        }
        Inst::ElemAddr { base, index, .. } => {
            f(*base);
            f(*index);
        }
        Inst::MemCopy { dst, src, .. } => {
            f(*dst);
            f(*src);
        }
        Inst::Call(call) => call.args.iter().for_each(|&a| f(a)),
        Inst::Print(PrintArg::Int(r) | PrintArg::Bool(r)) => f(*r),
        Inst::Print(PrintArg::Str(_)) => {}
    }
}

/// [`for_each_use`] then [`def_of`], deciding the instruction's kind once.
#[inline]
pub(super) fn uses_then_def(inst: &Inst, mut f: impl FnMut(VReg)) -> Option<VReg> {
    match inst {
        Inst::Const { dst, .. } | Inst::SlotAddr { dst, .. } | Inst::DataAddr { dst, .. } => {
            Some(*dst)
        }
        Inst::Copy { dst, src } | Inst::Unary { dst, src, .. } | Inst::Cast { dst, src } => {
            f(*src);
            Some(*dst)
        }
        Inst::Binary { dst, lhs, rhs, .. } => {
            f(*lhs);
            f(*rhs);
            Some(*dst)
        }
        Inst::Load { dst, addr, .. } => {
            f(*addr);
            Some(*dst)
        }
        Inst::Store { addr, src, .. } => {
            f(*addr);
            f(*src);
            None
        }
        Inst::ElemAddr {
            dst, base, index, ..
        } => {
            f(*base);
            f(*index);
            Some(*dst)
        }
        Inst::MemCopy { dst, src, .. } => {
            f(*dst);
            f(*src);
            None
        }
        Inst::Call(call) => {
            call.args.iter().for_each(|&a| f(a));
            call.dst
        }
        Inst::Print(PrintArg::Int(r) | PrintArg::Bool(r)) => {
            f(*r);
            None
        }
        Inst::Print(PrintArg::Str(_)) => None,
    }
}

/// [`map_uses`], then the same on the register the instruction writes, deciding the
/// instruction's kind once.
#[inline]
pub(super) fn map_registers(inst: &mut Inst, mut f: impl FnMut(VReg) -> VReg) {
    match inst {
        Inst::Const { dst, .. } | Inst::SlotAddr { dst, .. } | Inst::DataAddr { dst, .. } => {
            *dst = f(*dst)
        }
        Inst::Copy { dst, src } | Inst::Unary { dst, src, .. } | Inst::Cast { dst, src } => {
            *src = f(*src);
            *dst = f(*dst);
        }
        Inst::Binary { dst, lhs, rhs, .. } => {
            *lhs = f(*lhs);
            *rhs = f(*rhs);
            *dst = f(*dst);
        }
        Inst::Load { dst, addr, .. } => {
            *addr = f(*addr);
            *dst = f(*dst);
        }
        Inst::Store { addr, src, .. } => {
            *addr = f(*addr);
            *src = f(*src);
        }
        Inst::ElemAddr {
            dst, base, index, ..
        } => {
            *base = f(*base);
            *index = f(*index);
            *dst = f(*dst);
        }
        Inst::MemCopy { dst, src, .. } => {
            *dst = f(*dst);
            *src = f(*src);
        }
        Inst::Call(call) => {
            call.args.iter_mut().for_each(|a| *a = f(*a));
            if let Some(d) = &mut call.dst {
                *d = f(*d);
            }
        }
        Inst::Print(PrintArg::Int(r) | PrintArg::Bool(r)) => *r = f(*r),
        Inst::Print(PrintArg::Str(_)) => {}
    }
}

/// Rewrites every register an instruction reads.
#[inline]
pub(super) fn map_uses(inst: &mut Inst, mut f: impl FnMut(VReg) -> VReg) {
    match inst {
        Inst::Const { .. } | Inst::SlotAddr { .. } | Inst::DataAddr { .. } => {}
        Inst::Copy { src, .. } | Inst::Unary { src, .. } | Inst::Cast { src, .. } => *src = f(*src),
        Inst::Binary { lhs, rhs, .. } => {
            *lhs = f(*lhs);
            *rhs = f(*rhs);
        }
        Inst::Load { addr, .. } => *addr = f(*addr),
        Inst::Store { addr, src, .. } => {
            *addr = f(*addr);
            *src = f(*src);
        }
        Inst::ElemAddr { base, index, .. } => {
            *base = f(*base);
            *index = f(*index);
        }
        Inst::MemCopy { dst, src, .. } => {
            *dst = f(*dst);
            *src = f(*src);
        }
        Inst::Call(call) => call.args.iter_mut().for_each(|a| *a = f(*a)),
        Inst::Print(PrintArg::Int(r) | PrintArg::Bool(r)) => *r = f(*r),
        Inst::Print(PrintArg::Str(_)) => {}
    }
}

/// The register a terminator reads, if any.
#[inline]
pub fn term_use(t: &Terminator) -> Option<VReg> {
    match *t {
        Terminator::Branch { cond, .. } => Some(cond),
        Terminator::Return(v) => v,
        Terminator::Panic(crate::ir::PanicKind::IndexOutOfBounds { index, .. }) => Some(index),
        Terminator::Jump(_) | Terminator::Panic(_) | Terminator::Unreachable => None,
    }
}

#[inline]
pub(super) fn map_term_use(t: &mut Terminator, mut f: impl FnMut(VReg) -> VReg) {
    match t {
        Terminator::Branch { cond, .. } => *cond = f(*cond),
        Terminator::Return(Some(v)) => *v = f(*v),
        Terminator::Panic(crate::ir::PanicKind::IndexOutOfBounds { index, .. }) => {
            *index = f(*index)
        }
        Terminator::Jump(_)
        | Terminator::Return(None)
        | Terminator::Panic(_)
        | Terminator::Unreachable => {}
    }
}

/// The successors of a terminator (a branch with equal arms lists its target twice).
#[inline]
pub fn successors(t: &Terminator) -> [Option<BlockId>; 2] {
    match *t {
        Terminator::Jump(b) => [Some(b), None],
        Terminator::Branch {
            then_block,
            else_block,
            ..
        } => [Some(then_block), Some(else_block)],
        Terminator::Return(_) | Terminator::Panic(_) | Terminator::Unreachable => [None, None],
    }
}

/// Instructions without effects other than writing their register: removable when the
/// register is dead. (`Div`/`Rem` cannot trap: their checks are explicit branches.)
#[inline]
pub fn is_pure(inst: &Inst) -> bool {
    !matches!(
        inst,
        Inst::Call(_) | Inst::Print(_) | Inst::Store { .. } | Inst::MemCopy { .. }
    )
}

/// Whether a register is *local*: all its reads and writes are in one block and the
/// first of them is a write, so its value never flows between blocks (nor around a
/// block that loops to itself). The others are *global*, densely numbered.
pub(super) struct RegClasses {
    /// Dense index of each global register, [`NONE`] for local ones.
    pub global_index: Vec<u32>,
    pub globals: Vec<VReg>,
    /// Whether every register mentioned (parameters included) exists; out-of-range
    /// ones are otherwise ignored.
    pub in_range: bool,
}

impl RegClasses {
    /// Classifies `f`'s registers into these buffers (`block_of` is scratch).
    pub fn recompute(&mut self, f: &IrFunction, block_of: &mut Vec<u32>) {
        let n = f.vregs.len();
        // The block of the first occurrence, or NONE; and whether it is global already
        // (kept in `global_index` as 0 = local so far, 1 = global, until numbered).
        block_of.clear();
        block_of.resize(n, NONE);
        let global = &mut self.global_index;
        global.clear();
        global.resize(n, 0);
        let mut in_range = true;
        for &p in &f.params {
            match global.get_mut(p.0 as usize) {
                Some(g) => *g = 1,
                None => in_range = false,
            }
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            let bi = bi as u32;
            let mut touch = |r: VReg, is_def: bool| {
                let i = r.0 as usize;
                if i >= n {
                    in_range = false;
                    return;
                }
                if block_of[i] == NONE {
                    block_of[i] = bi;
                    if !is_def {
                        global[i] = 1;
                    }
                } else if block_of[i] != bi {
                    global[i] = 1;
                }
            };
            for inst in &b.insts {
                if let Some(d) = uses_then_def(inst, |r| touch(r, false)) {
                    touch(d, true);
                }
            }
            if let Some(r) = term_use(&b.term) {
                touch(r, false);
            }
        }
        self.in_range = in_range;
        self.globals.clear();
        for (i, g) in self.global_index.iter_mut().enumerate() {
            if *g != 0 {
                *g = self.globals.len() as u32;
                self.globals.push(VReg(i as u32));
            } else {
                *g = NONE;
            }
        }
    }
}

/// Buffers the passes reuse across passes and rounds of one [`super::optimize`] call.
#[derive(Default)]
pub(super) struct Scratch {
    pub rpo: Vec<u32>,
    pub rpo_index: Vec<u32>,
    pub classes: Option<RegClasses>,
    pub block_of: Vec<u32>,
    pub u32s: [Vec<u32>; 4],
    pub words: [Vec<u64>; 8],
    pub visited: Vec<bool>,
    pub flags: Vec<bool>,
    pub stack: Vec<(u32, u32, u32)>,
    pub copies: super::copyprop::CopyBufs,
    pub triples: Vec<[u32; 3]>,
    pub dom: Dominators,
    /// Whether `rpo`/`rpo_index` describe the function's current CFG: set by
    /// [`Scratch::compute_rpo`], cleared by every pass that changes a jump target or the
    /// block list ([`Scratch::cfg_changed`]).
    pub rpo_valid: bool,
    /// Whether `classes` describe the function's current instructions: set by
    /// [`Scratch::take_classes`], cleared by every pass that changes an instruction or a
    /// terminator ([`Scratch::insts_changed`]).
    pub classes_valid: bool,
    /// Whether classes that call global a register which is local by now are as good
    /// as exact ones (the passes give the same results when no size limit makes them
    /// imprecise). Then only a pass that makes registers read in new places
    /// ([`Scratch::reads_moved`]) makes the classes stale: removing instructions,
    /// replacing them by constants or copies of an operand, and changing the CFG only
    /// turn global registers into local ones.
    pub superset_classes_ok: bool,
    /// Whether copy propagation and dead code elimination may leave the blocks
    /// unreachable from the entry as they are. Set by [`super::optimize`] when the
    /// analyses are exact: there a block is unreachable only in the first round (as
    /// lowered) or after folding turned a branch into a jump, and either way CFG
    /// simplification runs next in the same round and drops such blocks whole before
    /// copy propagation and dead code elimination run, so rewriting them is work always
    /// thrown away (folding cuts off two thirds of the blocks of the generated 100k-line
    /// program). With exact analyses nothing else depends on them: folding never scans
    /// them, and their reads make nothing live in a reachable block.
    pub skip_unreachable: bool,
    /// Per block, whether it is reachable from the entry, as folding found it: valid
    /// while `reached_valid`, which folding sets and CFG simplification clears (no
    /// other pass changes a jump target or the block list).
    pub reached: Vec<bool>,
    pub reached_valid: bool,
    /// Whether no block holds a copy, as copy propagation found when it last looked (it
    /// then has nothing to do, and need not look again). Only folding makes copies (and
    /// clears this when it does); the other passes take copies away or leave them.
    pub no_copies: bool,
}

impl Scratch {
    /// Fills `rpo`/`rpo_index` for `f` (see [`rpo_into`]), unless they are up to date.
    pub fn compute_rpo(&mut self, f: &IrFunction) {
        if self.rpo_valid && self.rpo_index.len() == f.blocks.len() {
            return;
        }
        rpo_into(f, &mut self.rpo, &mut self.rpo_index, &mut self.stack);
        self.rpo_valid = true;
    }

    /// The register classes of `f`, in reused buffers (recomputed unless up to date);
    /// give them back with [`Scratch::put_classes`].
    pub fn take_classes(&mut self, f: &IrFunction) -> RegClasses {
        let valid = self.classes_valid && self.classes.is_some();
        let mut c = self.classes.take().unwrap_or(RegClasses {
            global_index: Vec::new(),
            globals: Vec::new(),
            in_range: true,
        });
        if !valid || c.global_index.len() != f.vregs.len() {
            c.recompute(f, &mut self.block_of);
        }
        self.classes_valid = true;
        c
    }

    pub fn put_classes(&mut self, c: RegClasses) {
        self.classes = Some(c);
    }

    /// A pass removed or simplified instructions (or terminators' registers): the
    /// classes are stale, unless a superset of the globals will do.
    pub fn insts_changed(&mut self) {
        self.classes_valid &= self.superset_classes_ok;
    }

    /// A pass made instructions read the registers `regs` where they did not read them:
    /// the classes are stale, unless a superset of the globals will do. Then these
    /// registers become global (a local one may be read in another block now), and the
    /// others can only have become local.
    pub fn reads_moved(&mut self, regs: &[VReg]) {
        match &mut self.classes {
            Some(c) if self.classes_valid && self.superset_classes_ok => {
                for &r in regs {
                    let gi = &mut c.global_index[r.0 as usize];
                    if *gi == NONE {
                        *gi = c.globals.len() as u32;
                        c.globals.push(r);
                    }
                }
            }
            _ => self.classes_valid = false,
        }
    }

    /// A pass changed jump targets or the block list: the block order is stale, and the
    /// classes are unless a superset of the globals will do.
    pub fn cfg_changed(&mut self) {
        self.classes_valid &= self.superset_classes_ok;
        self.rpo_valid = false;
    }
}

/// Blocks reachable from the entry in reverse postorder, and each block's position in it
/// ([`NONE`] when unreachable), into existing buffers (`stack` is scratch).
/// Out-of-range targets are ignored.
fn rpo_into(
    f: &IrFunction,
    post: &mut Vec<u32>,
    index: &mut Vec<u32>,
    stack: &mut Vec<(u32, u32, u32)>,
) {
    let n = f.blocks.len();
    post.clear();
    index.clear();
    if n == 0 {
        return;
    }
    // A visited block's index is not NONE (0 until numbered at the end).
    index.resize(n, NONE);
    // (block, its successors not visited yet from it; NONE when none), the terminator
    // decoded once per block. Every block is pushed at most once, so the stack is a
    // buffer of `n` entries with a top (a longer one keeps its length).
    let blocks = &f.blocks[..];
    let target = |t: BlockId| if (t.0 as usize) < n { t.0 } else { NONE };
    let entry = |b: u32| match blocks[b as usize].term {
        Terminator::Jump(t) => (b, target(t), NONE),
        Terminator::Branch {
            then_block,
            else_block,
            ..
        } => (b, target(then_block), target(else_block)),
        Terminator::Return(_) | Terminator::Panic(_) | Terminator::Unreachable => (b, NONE, NONE),
    };
    if stack.len() < n {
        stack.resize(n, (0, 0, 0));
    }
    post.reserve(n);
    stack[0] = entry(0);
    let mut top = 1usize;
    index[0] = 0;
    while top > 0 {
        let e = &mut stack[top - 1];
        let next = if e.1 != NONE {
            std::mem::replace(&mut e.1, NONE)
        } else if e.2 != NONE {
            std::mem::replace(&mut e.2, NONE)
        } else {
            post.push(e.0);
            top -= 1;
            continue;
        };
        if index[next as usize] == NONE {
            index[next as usize] = 0;
            stack[top] = entry(next);
            top += 1;
        }
    }
    post.reverse();
    for (i, &b) in post.iter().enumerate() {
        index[b as usize] = i as u32;
    }
}

/// The dominator tree of the reachable blocks (Cooper, Harvey and Kennedy's algorithm),
/// with preorder/postorder numbers answering "does a dominate b" in constant time; the
/// other fields are buffers reused by the next [`Dominators::compute`].
#[derive(Default)]
pub(super) struct Dominators {
    pre: Vec<u32>,
    post: Vec<u32>,
    edges: Vec<(u32, u32)>,
    pred_start: Vec<u32>,
    fill: Vec<u32>,
    preds: Vec<u32>,
    idom: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    stack: Vec<(u32, usize)>,
}

impl Dominators {
    /// Computes the tree of `f` with the block order `rpo`/`rpo_index` into `self`.
    pub fn compute(&mut self, f: &IrFunction, rpo: &[u32], rpo_index: &[u32]) {
        let n = f.blocks.len();
        // Predecessors of each block, flat: `preds[pred_start[b]..pred_start[b + 1]]`.
        let edges = &mut self.edges;
        edges.clear();
        for &b in rpo {
            for s in successors(&f.blocks[b as usize].term).into_iter().flatten() {
                if (s.0 as usize) < n && rpo_index[s.0 as usize] != NONE {
                    edges.push((b, s.0));
                }
            }
        }
        let pred_start = &mut self.pred_start;
        pred_start.clear();
        pred_start.resize(n + 1, 0);
        for &(_, s) in edges.iter() {
            pred_start[s as usize + 1] += 1;
        }
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(pred_start);
        let preds = &mut self.preds;
        preds.clear();
        preds.resize(pred_start[n] as usize, 0);
        for &(b, s) in edges.iter() {
            preds[fill[s as usize] as usize] = b;
            fill[s as usize] += 1;
        }
        let preds_of =
            |b: u32| &preds[pred_start[b as usize] as usize..pred_start[b as usize + 1] as usize];
        let idom = &mut self.idom;
        idom.clear();
        idom.resize(n, NONE);
        if let Some(&entry) = rpo.first() {
            idom[entry as usize] = entry;
        }
        let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while rpo_index[a as usize] > rpo_index[b as usize] {
                    a = idom[a as usize];
                }
                while rpo_index[b as usize] > rpo_index[a as usize] {
                    b = idom[b as usize];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new = NONE;
                for &p in preds_of(b) {
                    if idom[p as usize] == NONE {
                        continue;
                    }
                    new = if new == NONE {
                        p
                    } else {
                        intersect(idom, p, new)
                    };
                }
                if new != idom[b as usize] {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        // Number the tree; children flat like the predecessors.
        let child_start = &mut self.child_start;
        child_start.clear();
        child_start.resize(n + 1, 0);
        for &b in rpo.iter().skip(1) {
            if idom[b as usize] != NONE {
                child_start[idom[b as usize] as usize + 1] += 1;
            }
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        fill.clear();
        fill.extend_from_slice(child_start);
        let children = &mut self.children;
        children.clear();
        children.resize(child_start[n] as usize, 0);
        for &b in rpo.iter().skip(1) {
            let d = idom[b as usize];
            if d != NONE {
                children[fill[d as usize] as usize] = b;
                fill[d as usize] += 1;
            }
        }
        let children_of = |b: u32| {
            &children[child_start[b as usize] as usize..child_start[b as usize + 1] as usize]
        };
        let (pre, post) = (&mut self.pre, &mut self.post);
        pre.clear();
        pre.resize(n, NONE);
        post.clear();
        post.resize(n, NONE);
        let mut clock = 0u32;
        if let Some(&entry) = rpo.first() {
            let stack = &mut self.stack;
            stack.clear();
            stack.push((entry, 0));
            pre[entry as usize] = clock;
            clock += 1;
            while let Some(top) = stack.last_mut() {
                let (b, i) = *top;
                if let Some(&c) = children_of(b).get(i) {
                    top.1 += 1;
                    pre[c as usize] = clock;
                    clock += 1;
                    stack.push((c, 0));
                } else {
                    post[b as usize] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
    }

    /// Whether block `a` dominates block `b` (both reachable; a block dominates itself).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        self.pre[a] != NONE
            && self.pre[b] != NONE
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }
}
