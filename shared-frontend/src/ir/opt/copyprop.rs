//! Copy propagation: reads of `x` after `x = copy y` read `y` instead, so that the copy
//! can die.
//!
//! Across blocks this is done only where it is sound without a dataflow analysis: `x` and
//! `y` are each written once (a parameter counts as written at entry), `y`'s write
//! strictly dominates `x`'s, and `x`'s dominates the read. Then no path from the copy to
//! the read rewrites `y` without passing the copy again. Within a block, any copy is
//! propagated until either register is written again.

use super::visit::{def_of, map_term_use, map_uses, Scratch, NONE};
use super::{Changes, OptStats};
use crate::ir::{Inst, IrFunction, Terminator, VReg};

/// A program point: block and position (0 before the first instruction, `i + 1` at
/// instruction `i`, `len + 1` at the terminator).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Point {
    block: u32,
    pos: u32,
}

/// The copies of a function and what copy propagation needs to know about every
/// register, gathered in one scan (buffers reused across calls).
#[derive(Default)]
pub(super) struct CopyBufs {
    /// Writes per register (a parameter counts as one, at the entry).
    ndefs: Vec<u32>,
    /// Where the last write of each register is (`block` [`NONE`] when never written).
    def_at: Vec<Point>,
    /// Every copy `(block, dst, src)`, in block and instruction order.
    copies: Vec<(u32, VReg, VReg)>,
    /// Per register, the source its single-write copy can be replaced with, then the
    /// end of that chain ([`NONE`] when none).
    repl: Vec<u32>,
    root: Vec<u32>,
    /// Per register, the last copy written to it (`src`, `dst_version`, `src_version`).
    copy_of: Vec<(u32, u32, u32)>,
    /// The registers that reads were redirected to.
    moved: Vec<VReg>,
}

impl CopyBufs {
    /// Fills `ndefs`, `def_at` and `copies` for `f`.
    fn gather(&mut self, f: &IrFunction) {
        let n = f.vregs.len();
        self.ndefs.clear();
        self.ndefs.resize(n, 0);
        self.def_at.clear();
        self.def_at.resize(
            n,
            Point {
                block: NONE,
                pos: 0,
            },
        );
        self.copies.clear();
        for &p in &f.params {
            self.ndefs[p.0 as usize] += 1;
            self.def_at[p.0 as usize] = Point { block: 0, pos: 0 };
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            for (i, inst) in b.insts.iter().enumerate() {
                if let Some(d) = def_of(inst) {
                    self.ndefs[d.0 as usize] += 1;
                    self.def_at[d.0 as usize] = Point {
                        block: bi as u32,
                        pos: i as u32 + 1,
                    };
                    if let Inst::Copy { dst, src } = *inst {
                        self.copies.push((bi as u32, dst, src));
                    }
                }
            }
        }
    }
}

pub fn propagate(f: &mut IrFunction, stats: &mut OptStats) {
    if super::well_formed_registers(f) {
        propagate_unchecked(f, stats, &mut Scratch::default());
    }
}

/// [`propagate`] on a function known to be well-formed; what it changed in `f`
/// (`same_operands`: a rewritten binary instruction now reads one register twice;
/// `emptied_block`: a self-copy was the last instruction of a block ending in a jump).
pub(super) fn propagate_unchecked(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
) -> Changes {
    let mut ch = Changes::default();
    // Without copies there is nothing to propagate (and no self-copy to remove); once
    // found so, nothing need look again until folding makes one (`Scratch::no_copies`).
    if sc.no_copies
        || !f
            .blocks
            .iter()
            .any(|b| b.insts.iter().any(|i| matches!(i, Inst::Copy { .. })))
    {
        sc.no_copies = true;
        return ch;
    }
    let mut bufs = std::mem::take(&mut sc.copies);
    bufs.gather(f);
    bufs.moved.clear();
    let before = stats.copies_propagated;
    propagate_global(f, stats, sc, &mut bufs, &mut ch);
    propagate_local(f, stats, sc, &mut bufs, &mut ch);
    ch.any = stats.copies_propagated != before;
    if ch.any {
        // Only registers changed (terminators keep their targets), but some are read
        // in new places.
        sc.reads_moved(&bufs.moved);
    }
    sc.copies = bufs;
    ch
}

/// Whether `inst`, whose reads were just rewritten, is a binary operation reading one
/// register twice (folding may simplify it now).
#[inline]
fn reads_one_register_twice(inst: &Inst) -> bool {
    matches!(inst, Inst::Binary { lhs, rhs, .. } if lhs == rhs)
}

fn propagate_global(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
    bufs: &mut CopyBufs,
    ch: &mut Changes,
) {
    let n = f.vregs.len();
    sc.compute_rpo(f);
    let (rpo, rpo_index) = (&sc.rpo, &sc.rpo_index);
    let reachable = |b: u32| rpo_index[b as usize] != NONE;
    let CopyBufs {
        ndefs,
        def_at,
        copies,
        repl,
        root,
        moved,
        ..
    } = bufs;
    // Candidates: copies in reachable blocks between single-write registers of one type.
    let is_candidate = |&(bi, dst, src): &(u32, VReg, VReg)| {
        let (d, s) = (dst.0 as usize, src.0 as usize);
        reachable(bi)
            && d != s
            && ndefs[d] == 1
            && ndefs[s] == 1
            && f.vregs[d] == f.vregs[s]
            && def_at[s].block != NONE
            && reachable(def_at[s].block)
    };
    if !copies.iter().any(is_candidate) {
        return;
    }
    sc.dom.compute(f, rpo, rpo_index);
    let dom = &sc.dom;
    let dominates = |a: Point, b: Point, strictly: bool| {
        if a.block == b.block {
            a.pos < b.pos || (!strictly && a.pos == b.pos)
        } else {
            dom.dominates(a.block, b.block)
        }
    };
    // The source each single-write copy can be replaced with.
    repl.clear();
    repl.resize(n, NONE);
    let mut any = false;
    for c in copies.iter().filter(|c| is_candidate(c)) {
        let (d, s) = (c.1 .0 as usize, c.2 .0 as usize);
        if dominates(def_at[s], def_at[d], true) {
            repl[d] = s as u32;
            any = true;
        }
    }
    if !any {
        return;
    }
    // Resolve chains (acyclic: each step goes to a strictly dominating write).
    let resolve = |mut r: u32| {
        while repl[r as usize] != NONE {
            r = repl[r as usize];
        }
        r
    };
    root.clear();
    root.extend((0..n as u32).map(|r| {
        if repl[r as usize] == NONE {
            NONE
        } else {
            resolve(r)
        }
    }));
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        if !reachable(bi as u32) {
            continue;
        }
        let mut rewrite = |r: VReg, pos: u32| {
            let x = r.0 as usize;
            let here = Point {
                block: bi as u32,
                pos,
            };
            if root[x] != NONE && dominates(def_at[x], here, true) {
                stats.copies_propagated += 1;
                moved.push(VReg(root[x]));
                VReg(root[x])
            } else {
                r
            }
        };
        for (i, inst) in b.insts.iter_mut().enumerate() {
            let mut hit = false;
            map_uses(inst, |r| {
                let s = rewrite(r, i as u32 + 1);
                hit |= s != r;
                s
            });
            ch.same_operands |= hit && reads_one_register_twice(inst);
        }
        let end = b.insts.len() as u32 + 1;
        map_term_use(&mut b.term, |r| rewrite(r, end));
    }
}

fn propagate_local(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
    bufs: &mut CopyBufs,
    ch: &mut Changes,
) {
    let n = f.vregs.len();
    // A write counter per register; a recorded copy holds while neither side changed.
    let version = &mut sc.u32s[1];
    version.clear();
    version.resize(n, 0);
    let mut clock = 0u32;
    let copy_of = &mut bufs.copy_of;
    let moved = &mut bufs.moved;
    copy_of.clear();
    copy_of.resize(n, (NONE, 0, 0));
    let vregs = &f.vregs;
    // Blocks unreachable from the entry may be left alone (see
    // `Scratch::skip_unreachable`; `propagate_global` computed the block order).
    let skip_unreachable = sc.skip_unreachable;
    let rpo_index = &sc.rpo_index;
    // A copy is only propagated within its block: a block without one has nothing to
    // rewrite (the versions of its writes matter to no later block either).
    let mut last_block = NONE;
    for &(bi, _, _) in &bufs.copies {
        if bi == last_block {
            continue;
        }
        last_block = bi;
        if skip_unreachable && rpo_index[bi as usize] == NONE {
            continue;
        }
        let b = &mut f.blocks[bi as usize];
        // Versions only grow, so entries recorded before this block are older than this.
        let block_start = clock;
        let lookup = |copy_of: &[(u32, u32, u32)], version: &[u32], r: VReg| -> Option<u32> {
            let (src, dst_version, src_version) = copy_of[r.0 as usize];
            (src != NONE
                && dst_version == version[r.0 as usize]
                && dst_version > block_start
                && src_version == version[src as usize])
                .then_some(src)
        };
        let mut removed_self_copy = false;
        for inst in b.insts.iter_mut() {
            let mut hit = false;
            map_uses(inst, |r| match lookup(copy_of, version, r) {
                Some(s) => {
                    stats.copies_propagated += 1;
                    hit = true;
                    moved.push(VReg(s));
                    VReg(s)
                }
                None => r,
            });
            ch.same_operands |= hit && reads_one_register_twice(inst);
            if let Inst::Copy { dst, src } = *inst {
                if dst == src {
                    // Removed below.
                    stats.copies_propagated += 1;
                    removed_self_copy = true;
                    continue;
                }
            }
            if let Some(d) = def_of(inst) {
                clock += 1;
                version[d.0 as usize] = clock;
                if let Inst::Copy { dst, src } = *inst {
                    if vregs[dst.0 as usize] == vregs[src.0 as usize] {
                        copy_of[dst.0 as usize] = (src.0, clock, version[src.0 as usize]);
                    }
                }
            }
        }
        if removed_self_copy {
            b.insts
                .retain(|inst| !matches!(*inst, Inst::Copy { dst, src } if dst == src));
            ch.emptied_block |= b.insts.is_empty() && matches!(b.term, Terminator::Jump(_));
        }
        map_term_use(&mut b.term, |r| match lookup(copy_of, version, r) {
            Some(s) => {
                stats.copies_propagated += 1;
                moved.push(VReg(s));
                VReg(s)
            }
            None => r,
        });
    }
}
