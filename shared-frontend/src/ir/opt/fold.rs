//! Conditional constant propagation and folding: a forward dataflow analysis over the
//! CFG (registers may be assigned many times) that follows only the branch arms that can
//! be taken, then replaces instructions with known results by constants, simplifies
//! algebraic identities (`x + 0`, `x * 1`, `x << 0`, ...) and folds branches on known
//! conditions. An identity with a constant result (`x * 0`, `x - x`, `x | !0`, ...)
//! gives its instruction that value in the analysis itself, so what reads it folds in
//! the same run. Evaluation is [`crate::ir::interp::scalar`]'s, the interpreter's own.
//!
//! Registers read before any write hold 0 (as in the interpreter, which zeroes a frame's
//! registers); parameters are unknown. A division or remainder whose check would panic
//! is never folded: its check is a branch, and folding that branch is what removes it.

use super::visit::{def_of, RegClasses, Scratch, NONE};
use super::{Changes, OptStats};
use crate::ir::interp::scalar::{bits_of, canon, eval_binary, eval_cast, eval_unary};
use crate::ir::{BlockId, Inst, IrBinOp, IrFunction, ScalarTy, Terminator, VReg};

/// Above this many (block, global register) pairs the analysis tracks no register across
/// blocks (folding stays block-local), to bound time and memory.
pub(super) const MAX_TRACKED: usize = 1 << 20;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lat {
    Const(u64),
    Varying,
}

/// The values of all registers at one point of a scan: the tracked globals first and
/// contiguous (in global order, so a block's entry state loads and merges as one slice),
/// then every other register at `tracked + r`.
#[derive(Default)]
pub(super) struct Vals {
    slot_of: Vec<u32>,
    vals: Vec<Lat>,
}

impl Vals {
    /// Lays out the registers of `f` for `tracked` tracked globals. The untracked globals
    /// start unknown; the other slots are written before they are read (a tracked
    /// global's when a reached block is entered, a local's by its block's first write),
    /// so when every global is tracked they keep what they hold.
    fn reset(&mut self, f: &IrFunction, classes: &RegClasses, tracked: usize) {
        let n = f.vregs.len();
        self.slot_of.clear();
        self.slot_of.extend(
            classes.global_index[..n]
                .iter()
                .enumerate()
                .map(|(r, &gi)| {
                    if (gi as usize) < tracked {
                        gi
                    } else {
                        (tracked + r) as u32
                    }
                }),
        );
        if tracked == classes.globals.len() {
            if self.vals.len() < tracked + n {
                self.vals.resize(tracked + n, Lat::Varying);
            }
        } else {
            self.vals.clear();
            self.vals.resize(tracked + n, Lat::Varying);
        }
    }

    #[inline]
    fn get(&self, r: VReg) -> Lat {
        self.vals[self.slot_of[r.0 as usize] as usize]
    }

    #[inline]
    fn set(&mut self, r: VReg, v: Lat) {
        self.vals[self.slot_of[r.0 as usize] as usize] = v;
    }

    /// The tracked globals' values.
    #[inline]
    fn tracked(&mut self, t: usize) -> &mut [Lat] {
        &mut self.vals[..t]
    }
}

struct Analysis<'a> {
    f: &'a IrFunction,
    classes: RegClasses,
    /// How many global registers are tracked across blocks (all or none).
    tracked: usize,
    /// Per block, the values of tracked global registers on entry (`tracked` values per
    /// block), meaningful once the block is reached.
    state: Vec<Lat>,
    reached: Vec<bool>,
    /// Scratch values of all registers while scanning a block.
    vals: Vals,
    /// Untracked global registers written during the current scan (reset on next).
    dirty: Vec<VReg>,
    /// Per block, whether its last scan found something to rewrite: an instruction
    /// with a known result that is not that constant yet, a binary instruction an
    /// algebraic identity simplifies, or a branch with a known condition or equal arms.
    /// The last scan of a block sees its final entry state, so at the fixpoint this says
    /// exactly which blocks the rewrite changes.
    rewrite: Vec<bool>,
    /// Per block, the target its branch becomes a jump to, by its last scan ([`NONE`]
    /// when none).
    jump_to: Vec<u32>,
    /// Where each block's instructions start in `acts`.
    first_inst: Vec<u32>,
    /// What the rewrite does with each instruction, by its block's last scan
    /// (meaningful in reached blocks): at the fixpoint, with the final values, so the
    /// rewrite need not evaluate again.
    acts: Vec<Act>,
}

/// What the rewrite does with one instruction.
#[derive(Clone, Copy, Debug)]
enum Act {
    Keep,
    /// A pure instruction with a known result becomes `dst = value`.
    Fold(VReg, u64),
    /// An algebraic identity makes a binary instruction `dst = value`.
    Const(VReg, u64),
    /// An algebraic identity makes a binary instruction `dst = copy src`.
    Copy(VReg, VReg),
}

/// The buffers of an [`Analysis`], kept between calls.
#[derive(Default)]
pub(super) struct FoldBufs {
    state: Vec<Lat>,
    reached: Vec<bool>,
    vals: Vals,
    dirty: Vec<VReg>,
    block_dirty: Vec<bool>,
    rewrite: Vec<bool>,
    jump_to: Vec<u32>,
    first_inst: Vec<u32>,
    acts: Vec<Act>,
    /// The identity block order, when no reverse postorder is at hand.
    order: Vec<u32>,
}

impl<'a> Analysis<'a> {
    fn new(f: &'a IrFunction, classes: RegClasses, bufs: &mut FoldBufs) -> Analysis<'a> {
        let g = classes.globals.len();
        let tracked = if f.blocks.len().saturating_mul(g) <= MAX_TRACKED {
            g
        } else {
            0
        };
        // Only the entry's row is read before it is written (a block's row is first
        // written when the block is reached), so the others keep what they hold (and a
        // longer buffer is not cut: refilling it for the next function would cost a
        // write of every row).
        let mut state = std::mem::take(&mut bufs.state);
        grow(&mut state, f.blocks.len() * tracked, Lat::Const(0));
        let entry_row = tracked.min(state.len());
        state[..entry_row].fill(Lat::Const(0));
        let mut reached = std::mem::take(&mut bufs.reached);
        reached.clear();
        reached.resize(f.blocks.len(), false);
        for &p in &f.params {
            let gi = classes.global_index[p.0 as usize];
            if (gi as usize) < tracked {
                state[gi as usize] = Lat::Varying;
            }
        }
        if let Some(r) = reached.first_mut() {
            *r = true;
        }
        let mut vals = std::mem::take(&mut bufs.vals);
        vals.reset(f, &classes, tracked);
        let mut dirty = std::mem::take(&mut bufs.dirty);
        dirty.clear();
        let mut first_inst = std::mem::take(&mut bufs.first_inst);
        first_inst.clear();
        let mut count = 0u32;
        first_inst.extend(f.blocks.iter().map(|b| {
            let start = count;
            count += b.insts.len() as u32;
            start
        }));
        // Written by a block's scan before the rewrite reads them (it reads them for
        // reached blocks only, and every reached block is scanned).
        let mut acts = std::mem::take(&mut bufs.acts);
        grow(&mut acts, count as usize, Act::Keep);
        let mut jump_to = std::mem::take(&mut bufs.jump_to);
        grow(&mut jump_to, f.blocks.len(), NONE);
        let mut rewrite = std::mem::take(&mut bufs.rewrite);
        grow(&mut rewrite, f.blocks.len(), false);
        Analysis {
            f,
            classes,
            tracked,
            state,
            reached,
            vals,
            dirty,
            rewrite,
            jump_to,
            first_inst,
            acts,
        }
    }

    /// Loads a block's entry state into the scratch values.
    fn enter(&mut self, b: usize) {
        if !self.dirty.is_empty() {
            for r in self.dirty.drain(..) {
                self.vals.set(r, Lat::Varying);
            }
        }
        let t = self.tracked;
        if t != 0 && self.reached[b] {
            self.vals
                .tracked(t)
                .copy_from_slice(&self.state[b * t..(b + 1) * t]);
        }
    }

    fn val(&self, r: VReg) -> Lat {
        self.vals.get(r)
    }

    fn scan(&mut self, b: usize) {
        let f = self.f;
        let insts = &f.blocks[b].insts;
        let first = self.first_inst[b] as usize;
        let acts = &mut self.acts[first..first + insts.len()];
        let vals = &mut self.vals;
        let (classes, dirty) = (&self.classes, &mut self.dirty);
        // Globals are tracked all or none: untracked ones written here are reset on the
        // next entry.
        let untracked = self.tracked == 0;
        // The actions before `kept` are this scan's; `Keep` is written only up to an
        // instruction to rewrite (a block without one has its actions unread, unless
        // its branch is folded: then they are completed below).
        let mut kept = 0;
        for (i, inst) in insts.iter().enumerate() {
            // The register written, its value (known only for constants and copies,
            // casts, unary and binary instructions of known operands: all pure) and
            // what the rewrite does.
            let (d, v, act) = match *inst {
                Inst::Const { dst, value } => {
                    let c = canon(f.ty(dst), value);
                    let act = if c == value {
                        Act::Keep
                    } else {
                        Act::Fold(dst, c)
                    };
                    (dst, Lat::Const(c), act)
                }
                Inst::Copy { dst, src } | Inst::Cast { dst, src } => match vals.get(src) {
                    Lat::Const(s) => {
                        let c = eval_cast(f.ty(dst), s);
                        (dst, Lat::Const(c), Act::Fold(dst, c))
                    }
                    Lat::Varying => (dst, Lat::Varying, Act::Keep),
                },
                Inst::Unary { op, dst, src } => match vals.get(src) {
                    Lat::Const(s) => {
                        let c = canon(f.ty(dst), eval_unary(op, f.ty(src), s));
                        (dst, Lat::Const(c), Act::Fold(dst, c))
                    }
                    Lat::Varying => (dst, Lat::Varying, Act::Keep),
                },
                Inst::Binary { op, dst, lhs, rhs } => {
                    let (a, b) = (vals.get(lhs), vals.get(rhs));
                    let known = match (a, b) {
                        (Lat::Const(x), Lat::Const(y)) => {
                            eval_binary(op, f.ty(lhs), x, y).map(|v| canon(f.ty(dst), v))
                        }
                        _ => None,
                    };
                    match known {
                        Some(c) => (dst, Lat::Const(c), Act::Fold(dst, c)),
                        // An identity's constant is the instruction's value, so the
                        // reads of it fold in this run (`x * 0`, `x - x`, ...).
                        None => match simplify_binary(f, op, dst, lhs, rhs, a, b) {
                            Some(act @ Act::Const(_, c)) => (dst, Lat::Const(c), act),
                            Some(act) => (dst, Lat::Varying, act),
                            None => (dst, Lat::Varying, Act::Keep),
                        },
                    }
                }
                _ => match def_of(inst) {
                    Some(d) => (d, Lat::Varying, Act::Keep),
                    None => continue,
                },
            };
            vals.set(d, v);
            if untracked && classes.global_index[d.0 as usize] != NONE {
                dirty.push(d);
            }
            if !matches!(act, Act::Keep) {
                acts[kept..i].fill(Act::Keep);
                acts[i] = act;
                kept = i + 1;
            }
        }
        let rewrite = kept > 0;
        let mut jump_to = NONE;
        if let Terminator::Branch {
            cond,
            then_block,
            else_block,
        } = f.blocks[b].term
        {
            jump_to = match self.val(cond) {
                _ if then_block == else_block => then_block.0,
                Lat::Const(0) => else_block.0,
                Lat::Const(_) => then_block.0,
                Lat::Varying => NONE,
            };
        }
        if rewrite || jump_to != NONE {
            self.acts[first + kept..first + insts.len()].fill(Act::Keep);
        }
        self.jump_to[b] = jump_to;
        self.rewrite[b] = rewrite || jump_to != NONE;
    }

    /// The successors control can reach from the end of the scanned block.
    fn live_successors(&self, b: usize) -> [Option<u32>; 2] {
        match self.f.blocks[b].term {
            Terminator::Jump(t) => [Some(t.0), None],
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => match self.val(cond) {
                Lat::Const(0) => [Some(else_block.0), None],
                Lat::Const(_) => [Some(then_block.0), None],
                Lat::Varying => [Some(then_block.0), Some(else_block.0)],
            },
            _ => [None, None],
        }
    }

    /// Runs to a fixpoint, always visiting the changed block earliest in reverse
    /// postorder next: a loop is iterated until stable before the blocks after it in that
    /// order see its values. (The fixpoint does not depend on the order: the transfer
    /// functions and the edges taken are monotone.)
    fn solve(&mut self, rpo: &[u32], rpo_index: &[u32], dirty: &mut Vec<bool>) {
        let n = self.f.blocks.len();
        dirty.clear();
        dirty.resize(n, false);
        if n > 0 {
            dirty[0] = true;
        }
        // Every changed block is at `pos` or after it in `rpo`.
        let mut pos = 0;
        {
            while let Some(&b) = rpo.get(pos) {
                pos += 1;
                let b = b as usize;
                if !dirty[b] {
                    continue;
                }
                dirty[b] = false;
                self.enter(b);
                self.scan(b);
                for s in self.live_successors(b).into_iter().flatten() {
                    let s = s as usize;
                    if s >= n {
                        continue;
                    }
                    let t = self.tracked;
                    let exit = self.vals.tracked(t);
                    let row = &mut self.state[s * t..(s + 1) * t];
                    let changed = if !self.reached[s] {
                        self.reached[s] = true;
                        row.copy_from_slice(exit);
                        true
                    } else {
                        // The meet changes a slot exactly when it is a constant the
                        // exit value differs from.
                        let mut changed = false;
                        for (slot, &v) in row.iter_mut().zip(exit.iter()) {
                            if *slot != v && *slot != Lat::Varying {
                                *slot = Lat::Varying;
                                changed = true;
                            }
                        }
                        changed
                    };
                    if changed {
                        dirty[s] = true;
                        pos = pos.min(rpo_index[s] as usize);
                    }
                }
            }
        }
    }
}

/// All ones in a type's canonical form.
fn all_ones(ty: ScalarTy) -> u64 {
    canon(ty, u64::MAX)
}

/// An equivalent simpler instruction for `dst = lhs op rhs` with partly known operands.
fn simplify_binary(
    f: &IrFunction,
    op: IrBinOp,
    dst: VReg,
    lhs: VReg,
    rhs: VReg,
    a: Lat,
    b: Lat,
) -> Option<Act> {
    use IrBinOp::*;
    let ty = f.ty(lhs);
    let is = |l: Lat, v: u64| l == Lat::Const(v);
    let copy = |src: VReg| (f.ty(src) == f.ty(dst)).then_some(Act::Copy(dst, src));
    let konst = |v: u64| Some(Act::Const(dst, canon(f.ty(dst), v)));
    let ones = all_ones(ty);
    let same = lhs == rhs;
    match op {
        Add if is(b, 0) => copy(lhs),
        Add if is(a, 0) => copy(rhs),
        Sub if is(b, 0) => copy(lhs),
        Sub if same => konst(0),
        Mul if is(a, 0) || is(b, 0) => konst(0),
        Mul if is(b, 1) => copy(lhs),
        Mul if is(a, 1) => copy(rhs),
        Div if is(b, 1) => copy(lhs),
        Rem if is(b, 1) => konst(0),
        And if is(a, 0) || is(b, 0) => konst(0),
        And if is(b, ones) || same => copy(lhs),
        And if is(a, ones) => copy(rhs),
        Or if is(a, ones) || is(b, ones) => konst(ones),
        Or if is(b, 0) || same => copy(lhs),
        Or if is(a, 0) => copy(rhs),
        Xor if is(b, 0) => copy(lhs),
        Xor if is(a, 0) => copy(rhs),
        Xor if same => konst(0),
        Shl | Shr if is(a, 0) => konst(0),
        Shl | Shr => match b {
            Lat::Const(amount) if amount & (bits_of(ty) as u64 - 1) == 0 => copy(lhs),
            _ => None,
        },
        Eq | Le | Ge if same => konst(1),
        Ne | Lt | Gt if same => konst(0),
        _ => None,
    }
}

/// Constant propagation and folding, algebraic simplification and branch folding.
pub fn fold_constants(f: &mut IrFunction, stats: &mut OptStats) {
    if super::well_formed_registers(f) {
        fold_constants_unchecked(f, stats, &mut Scratch::default(), &mut FoldBufs::default());
    }
}

/// [`fold_constants`] on a function known to be well-formed; what it changed in `f`.
/// Another run finds nothing more: an algebraic identity's constant is the value the
/// analysis gives its instruction, so the rewrite leaves every value as analysed.
pub(super) fn fold_constants_unchecked(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
    bufs: &mut FoldBufs,
) -> Changes {
    let mut changed = false;
    let mut cfg_changed = false;
    let classes = sc.take_classes(f);
    let mut an = Analysis::new(f, classes, bufs);
    let mut block_dirty = std::mem::take(&mut bufs.block_dirty);
    if sc.rpo_valid && sc.rpo_index.len() == f.blocks.len() {
        an.solve(&sc.rpo, &sc.rpo_index, &mut block_dirty);
    } else {
        // The solution does not depend on the order of the visits, only their number
        // does: the block order itself is used instead of a reverse postorder computed
        // for this run alone. Lowering emits blocks in reverse postorder, and folding
        // is the first pass, whose branch folding makes a block order computed here
        // stale anyway (two thirds of the blocks of the generated 100k-line program are
        // cut off by the first run); a later pass computes the one it needs.
        let mut order = std::mem::take(&mut bufs.order);
        order.clear();
        order.extend(0..f.blocks.len() as u32);
        an.solve(&order, &order, &mut block_dirty);
        bufs.order = order;
    }
    bufs.block_dirty = block_dirty;
    let Analysis {
        classes,
        state,
        reached,
        vals,
        dirty,
        rewrite,
        jump_to,
        first_inst,
        acts,
        ..
    } = an;
    // Rewrite reached blocks as their last scans decided (those where there is something
    // to rewrite).
    for bi in 0..f.blocks.len() {
        if !reached[bi] || !rewrite[bi] {
            continue;
        }
        let block = &mut f.blocks[bi];
        let first = first_inst[bi] as usize;
        for (inst, &act) in block.insts.iter_mut().zip(&acts[first..]) {
            let new = match act {
                Act::Keep => continue,
                Act::Fold(dst, value) => {
                    if !matches!(inst, Inst::Const { .. }) {
                        stats.folded_insts += 1;
                    }
                    Inst::Const { dst, value }
                }
                Act::Const(dst, value) => {
                    stats.folded_insts += 1;
                    Inst::Const { dst, value }
                }
                Act::Copy(dst, src) => {
                    stats.folded_insts += 1;
                    sc.no_copies = false;
                    Inst::Copy { dst, src }
                }
            };
            *inst = new;
            changed = true;
        }
        if jump_to[bi] != NONE {
            block.term = Terminator::Jump(BlockId(jump_to[bi]));
            stats.folded_branches += 1;
            changed = true;
            cfg_changed = true;
        }
    }
    sc.put_classes(classes);
    if cfg_changed {
        sc.cfg_changed();
    } else if changed {
        sc.insts_changed();
    }
    // The reached blocks are exactly those reachable from the entry now (the rewrite
    // turned into jumps exactly the branches the analysis took one arm of): CFG
    // simplification, which comes next, need not thread jumps in the others.
    let mut reached = reached;
    std::mem::swap(&mut reached, &mut sc.reached);
    sc.reached_valid = true;
    *bufs = FoldBufs {
        state,
        reached,
        vals,
        dirty,
        block_dirty: std::mem::take(&mut bufs.block_dirty),
        rewrite,
        jump_to,
        first_inst,
        acts,
        order: std::mem::take(&mut bufs.order),
    };
    Changes {
        any: changed,
        cfg: cfg_changed,
        ..Changes::default()
    }
}

/// Makes `v` at least `n` long, filling new elements with `fill` (a longer buffer keeps
/// its length and contents).
fn grow<T: Copy>(v: &mut Vec<T>, n: usize, fill: T) {
    if v.len() < n {
        v.resize(n, fill);
    }
}
