//! Optimizations of one function at a time (intra-procedural, no inlining), each a pure
//! function of the function's IR, so a query engine can cache them per function:
//! constant folding and propagation with branch folding ([`fold_constants`]), copy
//! propagation ([`propagate`]), dead code elimination ([`eliminate_dead_code`]) and CFG
//! simplification ([`simplify_cfg`]). [`optimize`] runs them to a fixpoint, in rounds
//! of fold, CFG simplification, copy propagation and dead code elimination (see
//! [`ORDER`]), and then renumbers registers densely, so optimizing an optimized function
//! changes nothing.
//!
//! Every pass preserves the interpreter's behaviour exactly ([`crate::ir::interp`]):
//! folding evaluates with the interpreter's own scalar semantics, and checks that panic
//! (branches to `Panic` blocks) are removed only when proven not taken.

mod cfg;
mod copyprop;
mod dce;
mod fold;
pub(super) mod visit;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use cfg::simplify_cfg;
pub use copyprop::propagate;
pub use dce::eliminate_dead_code;
pub use fold::fold_constants;

use crate::ir::{IrFunction, ScalarTy, Terminator, VReg};
use crate::spare;

/// Rounds of all passes [`optimize`] runs at most before it stops at a fixpoint.
pub const MAX_ROUNDS: u32 = 64;

/// What the passes did (counts of rewrites, summed over rounds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptStats {
    pub rounds: u32,
    /// Instructions replaced by a constant or a simpler instruction.
    pub folded_insts: u32,
    /// Branches turned into jumps.
    pub folded_branches: u32,
    /// Register reads redirected to a copy's source (and self-copies removed).
    pub copies_propagated: u32,
    pub dead_insts: u32,
    pub jumps_threaded: u32,
    pub blocks_merged: u32,
    pub blocks_removed: u32,
}

/// The optimized function.
pub fn optimize(f: &IrFunction) -> IrFunction {
    optimize_owned(f.clone()).0
}

/// [`optimize`] for a caller that no longer needs the unoptimized function: it is
/// rewritten in place instead of copied first.
pub fn optimize_in_place(f: IrFunction) -> IrFunction {
    optimize_owned(f).0
}

/// What one run of a pass changed, as far as the other passes care (see
/// [`enabled_by`]).
#[derive(Clone, Copy, Debug, Default)]
struct Changes {
    any: bool,
    /// A jump target or the block list changed.
    cfg: bool,
    /// A rewritten binary instruction now reads one register twice.
    same_operands: bool,
    /// A block ending in a jump lost its last instruction (jumps to it can go straight
    /// to its target now).
    emptied_block: bool,
    /// A branch became a jump (its condition is read no more).
    branches_to_jumps: bool,
}

const FOLD: u8 = 1;
const COPYPROP: u8 = 2;
const DCE: u8 = 4;
const CFG: u8 = 8;
const ALL: u8 = FOLD | COPYPROP | DCE | CFG;

/// The order of the passes in a round. CFG simplification comes right after folding, so
/// that copy propagation and dead code elimination see the blocks folding cut off gone
/// and chains of blocks merged: much of their cost is per block (dead code elimination's
/// liveness sets, their solution and a scan per block; copy propagation's gathering and
/// dominators). On the generated 100k-line program this makes [`optimize`] cost 7.6%
/// fewer instructions than the order fold, copy propagation, dead code elimination, CFG
/// simplification (191.2 M to 176.8 M: dead code elimination 53.3 M to 39.0 M, copy
/// propagation 25.3 M to 17.6 M, while CFG simplification, now the first pass to see
/// what folding cut off, grows from 19.2 M to 26.7 M).
///
/// The result is a fixpoint of all four passes in either order, with the same
/// instructions in every function of the corpus and of the generated 10k- and 100k-line
/// programs, but not always the same block order. A block `e` that a branch reaches and
/// that jumps to a block `s` it is the only predecessor of gets `s` merged into it when
/// CFG simplification runs first (`e`'s number survives, and dead code elimination then
/// removes `e`'s own instructions); in the other order `e` was already empty, the branch
/// was threaded past it to `s`, and `s`'s number survived (26 of the 5,210 functions of
/// the 100k-line program, none of the corpus). Copy propagation also no longer counts
/// writes in blocks folding cut off, so a copy whose source or destination was written
/// there too may now be propagated across blocks (no measured program has one).
pub(crate) const ORDER: [u8; 4] = [FOLD, CFG, COPYPROP, DCE];

/// The passes that may change something after `pass` made the changes `ch`, when the
/// analyses are `exact` (no size limit makes them give up precision). A pass left out
/// would change nothing, so skipping it leaves the result of [`optimize`] exactly that
/// of running every pass in every round:
/// - folding decides from the constant-analysis value of each operand at its read, from
///   the CFG edges it can take and from whether a binary instruction's operands are one
///   register. Dead code elimination removes writes no read sees; CFG simplification
///   only threads, merges and drops edges and blocks the analysis never took; copy
///   propagation replaces a read by one of a register holding the same analysis value.
///   None changes an operand's value, and folding's own rewrite leaves every value as
///   analysed (an algebraic identity's constant is its instruction's value in the
///   analysis), so folding is needed again only after copy propagation made a binary
///   instruction read one register twice.
/// - dead code elimination runs to its own fixpoint; only new reads going (folding, copy
///   propagation, a branch becoming a jump) can kill more. Merging, threading and
///   dropping unreachable blocks leave the liveness at every reachable read the same.
/// - CFG simplification looks at edges and at which blocks ending in a jump are empty:
///   it is needed again after branches were folded or such a block lost its last
///   instruction. Its own changes leave nothing for another run, except a block
///   without instructions that came to end in a jump (by threading or a merge): jumps
///   to it were not threaded through it.
/// - copy propagation depends on everything (definition counts, dominance, blocks), but
///   it does nothing at all in a function without copies.
fn enabled_by(pass: u8, ch: Changes, exact: bool) -> u8 {
    let when = |c: bool, p: u8| if c { p } else { 0 };
    if !ch.any {
        0
    } else if !exact {
        ALL
    } else {
        match pass {
            FOLD => COPYPROP | DCE | when(ch.cfg, CFG),
            COPYPROP => {
                COPYPROP
                    | DCE
                    | when(ch.same_operands, FOLD)
                    | when(ch.emptied_block || ch.cfg, CFG)
            }
            DCE => COPYPROP | when(ch.emptied_block, CFG),
            _ => COPYPROP | when(ch.emptied_block, CFG) | when(ch.branches_to_jumps, DCE),
        }
    }
}

thread_local! {
    /// Buffers reused by the [`optimize`] calls of one thread, so that optimizing many
    /// small functions does not allocate them anew each time. Results never depend on
    /// what is left here: every pass clears or resizes a buffer before reading it (or,
    /// for folding's per-block entry states, per-instruction actions, branch targets
    /// and scratch values, writes an element before reading it), and the cached
    /// analyses are marked stale when a call starts.
    static SCRATCH: spare::Spare<(visit::Scratch, fold::FoldBufs)> =
        const { std::cell::Cell::new(None) };
}

/// [`optimize`], also saying what it did.
pub fn optimize_with_stats(f: &IrFunction) -> (IrFunction, OptStats) {
    optimize_owned(f.clone())
}

fn optimize_owned(mut f: IrFunction) -> (IrFunction, OptStats) {
    let mut stats = OptStats::default();
    let mut bufs = spare::take(&SCRATCH);
    let (sc, fold_bufs) = &mut *bufs;
    sc.rpo_valid = false;
    sc.classes_valid = false;
    sc.reached_valid = false;
    sc.no_copies = false;
    // The first pass needs the register classes anyway; computing them checks the
    // registers (`well_formed_registers`).
    let classes = sc.take_classes(&f);
    let well_formed = classes.in_range && well_formed_blocks(&f);
    sc.put_classes(classes);
    if !well_formed {
        spare::give_back(&SCRATCH, bufs);
        // Malformed IR is left for the interpreter or backend to report.
        return (f, stats);
    }
    // Rounds of the passes in `ORDER`, skipping a pass that cannot change anything (see
    // `enabled_by`): nothing changed since it last ran, or only what it does not depend
    // on. A round where no pass is left to run is the fixpoint. Blocks and registers are
    // never added, so the analyses stay exact if they are at the start.
    let exact = f.blocks.len().saturating_mul(f.vregs.len()) <= fold::MAX_TRACKED;
    sc.superset_classes_ok = exact;
    sc.skip_unreachable = exact;
    let mut todo = ALL;
    for _ in 0..MAX_ROUNDS {
        if todo == 0 {
            break;
        }
        stats.rounds += 1;
        for pass in ORDER {
            if todo & pass == 0 {
                continue;
            }
            todo &= !pass;
            let ch = match pass {
                FOLD => fold::fold_constants_unchecked(&mut f, &mut stats, sc, fold_bufs),
                COPYPROP => copyprop::propagate_unchecked(&mut f, &mut stats, sc),
                DCE => dce::eliminate_dead_code_unchecked(&mut f, &mut stats, sc),
                _ => cfg::simplify_cfg_unchecked(&mut f, &mut stats, sc),
            };
            todo |= enabled_by(pass, ch, exact);
        }
    }
    compact_registers_unchecked(&mut f, sc);
    spare::give_back(&SCRATCH, bufs);
    (f, stats)
}

/// Renumbers registers densely: parameters first in order, then the others in order of
/// their old numbers; registers no longer mentioned are dropped.
pub fn compact_registers(f: &mut IrFunction) {
    if well_formed_registers(f) {
        compact_registers_unchecked(f, &mut visit::Scratch::default());
    }
}

/// [`compact_registers`] on a function known to be well-formed.
fn compact_registers_unchecked(f: &mut IrFunction, sc: &mut visit::Scratch) {
    let n = f.vregs.len();
    let used = &mut sc.visited;
    used.clear();
    used.resize(n, false);
    for &p in &f.params {
        used[p.0 as usize] = true;
    }
    for b in &f.blocks {
        for inst in &b.insts {
            if let Some(d) = visit::uses_then_def(inst, |r| used[r.0 as usize] = true) {
                used[d.0 as usize] = true;
            }
        }
        if let Some(r) = visit::term_use(&b.term) {
            used[r.0 as usize] = true;
        }
    }
    let new = &mut sc.u32s[0];
    new.clear();
    new.resize(n, visit::NONE);
    let mut vregs: Vec<ScalarTy> = Vec::with_capacity(n);
    let mut assign = |r: usize, new: &mut Vec<u32>| {
        if new[r] == visit::NONE {
            new[r] = vregs.len() as u32;
            vregs.push(f.vregs[r]);
        }
    };
    for &p in &f.params {
        assign(p.0 as usize, new);
    }
    for (r, &u) in used.iter().enumerate() {
        if u {
            assign(r, new);
        }
    }
    if vregs.len() == n && new.iter().enumerate().all(|(i, &r)| r == i as u32) {
        return;
    }
    let map = |r: VReg| VReg(new[r.0 as usize]);
    for p in &mut f.params {
        *p = map(*p);
    }
    for b in &mut f.blocks {
        for inst in &mut b.insts {
            visit::map_registers(inst, map);
        }
        visit::map_term_use(&mut b.term, map);
    }
    f.vregs = vregs;
}

/// Whether every register mentioned exists and every jump target too (the passes index
/// by both).
pub(crate) fn well_formed_registers(f: &IrFunction) -> bool {
    let n = f.vregs.len();
    let ok = |r: VReg| (r.0 as usize) < n;
    let mut good = f.params.iter().all(|&p| ok(p));
    for b in &f.blocks {
        for inst in &b.insts {
            visit::for_each_use(inst, |r| good &= ok(r));
            if let Some(d) = visit::def_of(inst) {
                good &= ok(d);
            }
        }
        if let Some(r) = visit::term_use(&b.term) {
            good &= ok(r);
        }
    }
    good && well_formed_blocks(f)
}

/// Whether every jump target exists.
pub(crate) fn well_formed_blocks(f: &IrFunction) -> bool {
    let n = f.blocks.len();
    !f.blocks.is_empty()
        && f.blocks.iter().all(|b| match b.term {
            Terminator::Jump(t) => (t.0 as usize) < n,
            Terminator::Branch {
                then_block,
                else_block,
                ..
            } => (then_block.0 as usize) < n && (else_block.0 as usize) < n,
            _ => true,
        })
}
