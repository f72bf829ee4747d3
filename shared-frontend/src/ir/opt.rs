//! Optimizations of one function at a time (intra-procedural, no inlining), each a pure
//! function of the function's IR, so a query engine can cache them per function:
//! constant folding and propagation with branch folding ([`fold_constants`]), copy
//! propagation ([`propagate`]), dead code elimination ([`eliminate_dead_code`]) and CFG
//! simplification ([`simplify_cfg`]). [`optimize`] runs them to a fixpoint and then
//! renumbers registers densely, so optimizing an optimized function changes nothing.
//!
//! Every pass preserves the interpreter's behaviour exactly ([`crate::ir::interp`]):
//! folding evaluates with the interpreter's own scalar semantics, and checks that panic
//! (branches to `Panic` blocks) are removed only when proven not taken.

mod cfg;
mod copyprop;
mod dce;
mod fold;
mod visit;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use cfg::simplify_cfg;
pub use copyprop::propagate;
pub use dce::eliminate_dead_code;
pub use fold::fold_constants;

use crate::ir::{IrFunction, ScalarTy, Terminator, VReg};

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
    optimize_with_stats(f).0
}

/// [`optimize`], also saying what it did.
pub fn optimize_with_stats(f: &IrFunction) -> (IrFunction, OptStats) {
    let mut stats = OptStats::default();
    let mut f = f.clone();
    if !well_formed_registers(&f) || !well_formed_blocks(&f) {
        // Malformed IR is left for the interpreter or backend to report.
        return (f, stats);
    }
    // Each pass says whether it changed the function; a round where none did is the
    // fixpoint (the passes are deterministic, so another round would change nothing).
    let mut sc = visit::Scratch::default();
    let mut fold_bufs = fold::FoldBufs::default();
    for _ in 0..MAX_ROUNDS {
        stats.rounds += 1;
        let mut changed =
            fold::fold_constants_unchecked(&mut f, &mut stats, &mut sc, &mut fold_bufs);
        changed |= copyprop::propagate_unchecked(&mut f, &mut stats, &mut sc);
        changed |= dce::eliminate_dead_code_unchecked(&mut f, &mut stats, &mut sc);
        changed |= cfg::simplify_cfg_unchecked(&mut f, &mut stats, &mut sc);
        if !changed {
            break;
        }
    }
    compact_registers(&mut f);
    (f, stats)
}

/// Renumbers registers densely: parameters first in order, then the others in order of
/// their old numbers; registers no longer mentioned are dropped.
pub fn compact_registers(f: &mut IrFunction) {
    if !well_formed_registers(f) {
        return;
    }
    let n = f.vregs.len();
    let mut used = vec![false; n];
    for &p in &f.params {
        used[p.0 as usize] = true;
    }
    for b in &f.blocks {
        for inst in &b.insts {
            visit::for_each_use(inst, |r| used[r.0 as usize] = true);
            if let Some(d) = visit::def_of(inst) {
                used[d.0 as usize] = true;
            }
        }
        if let Some(r) = visit::term_use(&b.term) {
            used[r.0 as usize] = true;
        }
    }
    let mut new = vec![visit::NONE; n];
    let mut vregs: Vec<ScalarTy> = Vec::with_capacity(n);
    let mut assign = |r: usize, new: &mut Vec<u32>| {
        if new[r] == visit::NONE {
            new[r] = vregs.len() as u32;
            vregs.push(f.vregs[r]);
        }
    };
    for &p in &f.params {
        assign(p.0 as usize, &mut new);
    }
    for (r, &u) in used.iter().enumerate() {
        if u {
            assign(r, &mut new);
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
            visit::map_uses(inst, map);
            visit::map_def(inst, map);
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
