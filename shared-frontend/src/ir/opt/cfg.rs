//! CFG simplification: branches with equal arms become jumps, jumps through empty
//! blocks go straight to their final target, a block reached only by a jump from one
//! other block is merged into it, unreachable blocks are removed, and the remaining
//! blocks are renumbered densely in their original order (the entry stays block 0).

use super::visit::{successors, Scratch, NONE};
use super::{Changes, OptStats};
use crate::ir::{BlockId, IrFunction, Terminator};

pub fn simplify_cfg(f: &mut IrFunction, stats: &mut OptStats) {
    if super::well_formed_registers(f) {
        simplify_cfg_unchecked(f, stats, &mut Scratch::default());
    }
}

/// [`simplify_cfg`] on a function known to be well-formed; what it changed in `f`
/// (`branches_to_jumps`: a branch with equal arms became a jump, so its condition is
/// read no more; `emptied_block`: after threading, a block without instructions came to
/// end in a jump, so another run may thread jumps through it).
pub(super) fn simplify_cfg_unchecked(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
) -> Changes {
    let before = *stats;
    // Blocks folding found unreachable are dropped below as they are: nothing in them
    // reaches a reachable block, so their jumps are not worth threading.
    let reached = std::mem::take(&mut sc.reached);
    let live = match sc.reached_valid && reached.len() == f.blocks.len() {
        true => &reached[..],
        false => &[][..],
    };
    sc.reached_valid = false;
    // Branches with equal arms.
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        if !live.is_empty() && !live[bi] {
            continue;
        }
        if let Terminator::Branch {
            then_block,
            else_block,
            ..
        } = b.term
        {
            if then_block == else_block {
                b.term = Terminator::Jump(then_block);
                stats.folded_branches += 1;
            }
        }
    }
    let mut new_empty_jump = thread_jumps(f, stats, live);
    sc.reached = reached;
    if *stats != before {
        sc.cfg_changed();
    }
    new_empty_jump |= merge_chains(f, stats, sc);
    remove_unreachable(f, stats, sc);
    let any = *stats != before;
    Changes {
        any,
        cfg: any,
        branches_to_jumps: stats.folded_branches != before.folded_branches,
        emptied_block: new_empty_jump,
        ..Changes::default()
    }
}

/// The final target of a jump to `b` through empty jump-only blocks.
fn final_target(f: &IrFunction, b: BlockId) -> BlockId {
    let mut t = b;
    // At most one step per block: a longer walk is a cycle of empty blocks.
    for _ in 0..f.blocks.len() {
        let block = &f.blocks[t.0 as usize];
        match block.term {
            Terminator::Jump(next) if block.insts.is_empty() && next != t => t = next,
            _ => return t,
        }
    }
    b
}

/// Threads every jump (only in the blocks `live` says reachable, unless it is empty);
/// whether a block without instructions had its branch turned into a jump (earlier
/// blocks' jumps to it are not threaded through it).
fn thread_jumps(f: &mut IrFunction, stats: &mut OptStats, live: &[bool]) -> bool {
    let mut new_empty_jump = false;
    for bi in 0..f.blocks.len() {
        if !live.is_empty() && !live[bi] {
            continue;
        }
        let mut term = f.blocks[bi].term.clone();
        let mut changed = false;
        match &mut term {
            Terminator::Jump(t) => {
                let nt = final_target(f, *t);
                changed = nt != *t;
                *t = nt;
            }
            Terminator::Branch {
                then_block,
                else_block,
                ..
            } => {
                for t in [then_block, else_block] {
                    let nt = final_target(f, *t);
                    changed |= nt != *t;
                    *t = nt;
                }
            }
            _ => {}
        }
        if changed {
            stats.jumps_threaded += 1;
            if let Terminator::Branch {
                then_block,
                else_block,
                ..
            } = term
            {
                if then_block == else_block {
                    term = Terminator::Jump(then_block);
                    stats.folded_branches += 1;
                    new_empty_jump |= f.blocks[bi].insts.is_empty();
                }
            }
            f.blocks[bi].term = term;
        }
    }
    new_empty_jump
}

/// Merges `b` into `a` when `a` ends in `Jump(b)` and that is `b`'s only incoming edge
/// from a reachable block; whether a merge left a block without instructions ending in a
/// jump.
fn merge_chains(f: &mut IrFunction, stats: &mut OptStats, sc: &mut Scratch) -> bool {
    let mut new_empty_jump = false;
    let n = f.blocks.len();
    let merged_before = stats.blocks_merged;
    sc.compute_rpo(f);
    let rpo = &sc.rpo;
    let npreds = &mut sc.u32s[0];
    npreds.clear();
    npreds.resize(n, 0);
    for &b in rpo {
        for s in successors(&f.blocks[b as usize].term).into_iter().flatten() {
            npreds[s.0 as usize] += 1;
        }
    }
    for &a in rpo {
        // A block merged away has no instructions and ends in `Unreachable`.
        let a = a as usize;
        let merged_into_a = stats.blocks_merged;
        // The instructions of the whole chain that will be merged into `a` (the same
        // conditions as the merges below), so that `a`'s list grows once rather than
        // once per merged block: folding leaves long chains where it cut off one arm of
        // nested conditionals. A chain visits a block at most once (one it entered again
        // would have two predecessors).
        let mut extra = 0;
        let mut tail = a;
        for _ in 0..n {
            let Terminator::Jump(t) = f.blocks[tail].term else {
                break;
            };
            let b = t.0 as usize;
            if b == a || b == 0 || npreds[b] != 1 {
                break;
            }
            extra += f.blocks[b].insts.len();
            tail = b;
        }
        if extra > 0 {
            f.blocks[a].insts.reserve(extra);
        }
        while let Terminator::Jump(t) = f.blocks[a].term {
            let b = t.0 as usize;
            if b == a || b == 0 || npreds[b] != 1 {
                break;
            }
            let mut taken = std::mem::take(&mut f.blocks[b].insts);
            let term = std::mem::replace(&mut f.blocks[b].term, Terminator::Unreachable);
            f.blocks[a].insts.append(&mut taken);
            f.blocks[a].term = term;
            npreds[b] = NONE;
            stats.blocks_merged += 1;
        }
        new_empty_jump |= stats.blocks_merged != merged_into_a
            && f.blocks[a].insts.is_empty()
            && matches!(f.blocks[a].term, Terminator::Jump(_));
    }
    if stats.blocks_merged != merged_before {
        // Contracting the edge into a block whose only predecessor jumps to it leaves the
        // depth-first order of the other blocks as it was: the block order stays valid
        // without the merged blocks (marked NONE), which are unreachable now.
        sc.classes_valid &= sc.superset_classes_ok;
        sc.rpo.retain(|&b| npreds[b as usize] != NONE);
        sc.rpo_index.fill(NONE);
        for (i, &b) in sc.rpo.iter().enumerate() {
            sc.rpo_index[b as usize] = i as u32;
        }
    }
    new_empty_jump
}

fn remove_unreachable(f: &mut IrFunction, stats: &mut OptStats, sc: &mut Scratch) {
    sc.compute_rpo(f);
    let rpo_index = &sc.rpo_index;
    let n = f.blocks.len();
    let new_id = &mut sc.u32s[0];
    new_id.clear();
    new_id.resize(n, NONE);
    let mut next = 0u32;
    for (b, id) in new_id.iter_mut().enumerate() {
        if rpo_index[b] != NONE {
            *id = next;
            next += 1;
        }
    }
    if next as usize == n {
        return;
    }
    stats.blocks_removed += n as u32 - next;
    // Renumbering keeps the depth-first order (the entry stays block 0).
    sc.classes_valid &= sc.superset_classes_ok;
    for b in &mut sc.rpo {
        *b = new_id[*b as usize];
    }
    sc.rpo_index.clear();
    sc.rpo_index.resize(next as usize, NONE);
    for (i, &b) in sc.rpo.iter().enumerate() {
        sc.rpo_index[b as usize] = i as u32;
    }
    // The kept blocks move down to their new numbers in place (a block's new number is
    // never above its old one), and the removed ones, swapped past them, are dropped
    // together at the end.
    let blocks = &mut f.blocks;
    for b in 0..n {
        let id = new_id[b];
        if id == NONE {
            continue;
        }
        let map = |t: &mut BlockId| *t = BlockId(new_id[t.0 as usize]);
        match &mut blocks[b].term {
            Terminator::Jump(t) => map(t),
            Terminator::Branch {
                then_block,
                else_block,
                ..
            } => {
                map(then_block);
                map(else_block);
            }
            _ => {}
        }
        if id as usize != b {
            blocks.swap(id as usize, b);
        }
    }
    blocks.truncate(next as usize);
}
