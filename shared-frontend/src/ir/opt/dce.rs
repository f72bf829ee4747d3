//! Dead code elimination: removes pure instructions whose result is never read, using a
//! backward liveness analysis over the registers that live across blocks (bitsets per
//! block) and a backward scan within each block. Calls, prints, stores and copies to
//! memory always stay.
//!
//! Within [`super::optimize`], blocks unreachable from the entry are left as they are
//! (see [`Scratch::skip_unreachable`]): nothing they do is seen by a reachable block
//! (their reads make nothing live there), and CFG simplification, which runs right after
//! folding (the only pass that cuts blocks off), has dropped them whole already.

use super::visit::{
    def_of, for_each_use, is_pure, successors, term_use, uses_then_def, RegClasses, Scratch, NONE,
};
use super::{Changes, OptStats};
use crate::ir::{Inst, IrFunction, Terminator};

/// Above this many (block, global register) bits, every global register is taken as live
/// at every block end (the analysis stays block-local).
const MAX_BITS: usize = 1 << 26;

struct BitSet {
    words: Vec<u64>,
    per_block: usize,
}

impl BitSet {
    /// A zeroed set in `words`'s allocation.
    fn new(blocks: usize, bits: usize, mut words: Vec<u64>) -> BitSet {
        let per_block = bits.div_ceil(64);
        words.clear();
        words.resize(blocks * per_block, 0);
        BitSet { words, per_block }
    }
    fn row(&self, b: usize) -> &[u64] {
        &self.words[b * self.per_block..(b + 1) * self.per_block]
    }
    fn row_mut(&mut self, b: usize) -> &mut [u64] {
        &mut self.words[b * self.per_block..(b + 1) * self.per_block]
    }
}

/// Whether two rows are equal (word by word: rows are short, mostly one word).
#[inline]
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn get(row: &[u64], i: usize) -> bool {
    row[i / 64] >> (i % 64) & 1 != 0
}
fn set(row: &mut [u64], i: usize) {
    row[i / 64] |= 1 << (i % 64);
}
fn clear(row: &mut [u64], i: usize) {
    row[i / 64] &= !(1 << (i % 64));
}

pub fn eliminate_dead_code(f: &mut IrFunction, stats: &mut OptStats) {
    if super::well_formed_registers(f) {
        eliminate_dead_code_unchecked(f, stats, &mut Scratch::default());
    }
}

/// [`eliminate_dead_code`] on a function known to be well-formed; what it changed in `f`
/// (only instructions go).
pub(super) fn eliminate_dead_code_unchecked(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
) -> Changes {
    let before = stats.dead_insts;
    // Removing a read of a register live across blocks can kill a write in another
    // block. With classes that stay put while instructions go (a superset of the globals
    // will do), sweeps over the blocks handle that (see `Dce::sweeps`); otherwise rounds
    // over every block repeat while it happens, each starting afresh.
    let mut dce = Dce::new(f, sc);
    let g = dce.classes.globals.len();
    if dce.incremental && f.blocks.len().saturating_mul(g) <= MAX_BITS {
        dce.sweeps(f, stats);
    } else if dce.incremental {
        // Too many bits for per-block sets: every round is block-local.
        dce.all_blocks(f, stats);
        while dce.removed_global_read {
            dce.all_blocks(f, stats);
        }
    } else {
        while {
            dce.all_blocks(f, stats);
            dce.removed_global_read
        } {
            dce.restart(f);
        }
    }
    let emptied_block = dce.emptied_block;
    dce.finish(sc);
    let any = stats.dead_insts != before;
    if any {
        // Only instructions went (terminators are untouched).
        sc.insts_changed();
    }
    Changes {
        any,
        emptied_block,
        ..Changes::default()
    }
}

/// The state of one [`eliminate_dead_code_unchecked`] call: the register classes and,
/// when `precise`, per block the globals read before written (`gen`), written (`kill`),
/// live on entry and on exit, all over the current instructions; buffers are the
/// scratch's.
struct Dce {
    classes: RegClasses,
    precise: bool,
    /// Whether the classes stay valid across rounds (see [`Scratch::superset_classes_ok`]).
    incremental: bool,
    gen: BitSet,
    kill: BitSet,
    live_in: BitSet,
    live_out: BitSet,
    /// The live-out sets the blocks were last scanned with (see [`Dce::sweeps`]).
    old_out: BitSet,
    /// The reachable blocks in postorder with their successors (NONE when absent), so
    /// that the liveness sweeps do not decode terminators (the CFG does not change here).
    order: Vec<[u32; 3]>,
    /// Whether every edge in `order` goes to a block earlier in it (no loops): then one
    /// sweep is stable.
    acyclic: bool,
    /// Per block, whether an edge in `order` goes to it from a block no later in
    /// reverse postorder (a sweep in postorder reads its live-in set before updating it).
    retreat_target: Vec<bool>,
    /// The blocks not in `order` (unreachable from the entry) that are scanned: none
    /// when [`Scratch::skip_unreachable`].
    unreachable: Vec<u32>,
    /// The live globals at the scan's point (see [`Dce::scan_live`]), and the globals the
    /// scanned block reads before writing and those it writes.
    cur: Vec<u64>,
    cur_gen: Vec<u64>,
    cur_kill: Vec<u64>,
    live_stamp: Vec<u32>,
    /// The stamp of the last scan.
    clock: u32,
    block_of: Vec<u32>,
    keep: Vec<bool>,
    /// Whether the last round removed a read of a global that a write in another block
    /// may have been live for.
    removed_global_read: bool,
    /// Whether a block ending in a jump lost its last instruction.
    emptied_block: bool,
}

impl Dce {
    fn new(f: &IrFunction, sc: &mut Scratch) -> Dce {
        let classes = sc.take_classes(f);
        let [w0, w1, w2, w3, w4, w5, w6, w7] = &mut sc.words;
        let mut dce = Dce {
            classes,
            precise: false,
            incremental: sc.superset_classes_ok,
            live_out: BitSet::new(0, 0, std::mem::take(w0)),
            gen: BitSet::new(0, 0, std::mem::take(w1)),
            kill: BitSet::new(0, 0, std::mem::take(w2)),
            live_in: BitSet::new(0, 0, std::mem::take(w3)),
            old_out: BitSet::new(0, 0, std::mem::take(w4)),
            order: std::mem::take(&mut sc.triples),
            acyclic: true,
            retreat_target: std::mem::take(&mut sc.flags),
            unreachable: std::mem::take(&mut sc.u32s[2]),
            cur: std::mem::take(w5),
            cur_gen: std::mem::take(w6),
            cur_kill: std::mem::take(w7),
            live_stamp: std::mem::take(&mut sc.u32s[0]),
            clock: 0,
            block_of: std::mem::take(&mut sc.block_of),
            keep: std::mem::take(&mut sc.visited),
            removed_global_read: false,
            emptied_block: false,
        };
        sc.compute_rpo(f);
        let nb = f.blocks.len();
        let rpo_index = &sc.rpo_index;
        dce.order.clear();
        dce.retreat_target.clear();
        dce.retreat_target.resize(nb, false);
        dce.order.extend(sc.rpo.iter().rev().map(|&b| {
            let [s0, s1] = successors(&f.blocks[b as usize].term).map(|s| s.map_or(NONE, |s| s.0));
            let ok = |s: u32| if (s as usize) < nb { s } else { NONE };
            let [s0, s1] = [ok(s0), ok(s1)];
            for s in [s0, s1] {
                if s != NONE && rpo_index[s as usize] <= rpo_index[b as usize] {
                    dce.acyclic = false;
                    dce.retreat_target[s as usize] = true;
                }
            }
            [b, s0, s1]
        }));
        dce.unreachable.clear();
        if !sc.skip_unreachable {
            dce.unreachable
                .extend((0..nb as u32).filter(|&b| rpo_index[b as usize] == NONE));
        }
        dce.live_stamp.clear();
        dce.live_stamp.resize(f.vregs.len(), 0);
        dce
    }

    /// Gives the buffers back.
    fn finish(self, sc: &mut Scratch) {
        sc.put_classes(self.classes);
        sc.triples = self.order;
        sc.flags = self.retreat_target;
        sc.u32s[0] = self.live_stamp;
        sc.block_of = self.block_of;
        sc.u32s[2] = self.unreachable;
        sc.visited = self.keep;
        sc.words = [
            self.live_out.words,
            self.gen.words,
            self.kill.words,
            self.live_in.words,
            self.old_out.words,
            self.cur,
            self.cur_gen,
            self.cur_kill,
        ];
    }

    /// Removes every dead instruction by sweeps over the blocks in postorder, each block
    /// scanned with the live-out set its successors' live-in sets give at that point. A
    /// block's successors come before it in postorder, except along loops: then the
    /// live-in sets start as the least solution of the liveness over the current
    /// instructions, which stays an over-approximation while instructions go (removing a
    /// dead instruction makes nothing live). A sweep that changed no block's gen or kill
    /// set left that solution exact, and scanned every block with it, so nothing dead is
    /// left; otherwise the liveness is solved afresh (along a loop, sets that only shrink
    /// from the old solution can stay larger than the new one) and the blocks whose
    /// live-out set changed are scanned again.
    fn sweeps(&mut self, f: &mut IrFunction, stats: &mut OptStats) {
        let nb = f.blocks.len();
        let g = self.classes.globals.len();
        let words = g.div_ceil(64);
        for v in [&mut self.cur, &mut self.cur_gen, &mut self.cur_kill] {
            v.clear();
            v.resize(words, 0);
        }
        // Nothing is live at the end of a block unreachable from the entry, and its
        // live-in set matters to no reachable block.
        for i in 0..self.unreachable.len() {
            self.cur.fill(0);
            self.scan_live(f, self.unreachable[i] as usize, stats);
        }
        self.live_in = BitSet::new(nb, g, std::mem::take(&mut self.live_in.words));
        if self.acyclic {
            for i in 0..self.order.len() {
                let [b, s0, s1] = self.order[i];
                self.load_out(s0, s1);
                self.scan_live(f, b as usize, stats);
                self.live_in.row_mut(b as usize).copy_from_slice(&self.cur);
            }
            return;
        }
        self.gen = BitSet::new(nb, g, std::mem::take(&mut self.gen.words));
        self.kill = BitSet::new(nb, g, std::mem::take(&mut self.kill.words));
        for i in 0..self.order.len() {
            self.gen_kill(f, self.order[i][0] as usize);
        }
        // The live-out set each block was last scanned with.
        self.old_out = BitSet::new(nb, g, std::mem::take(&mut self.old_out.words));
        let mut first = true;
        loop {
            self.solve(f, false);
            let mut changed = false;
            for i in 0..self.order.len() {
                let [b, s0, s1] = self.order[i];
                let b = b as usize;
                self.load_out(s0, s1);
                if first || !same(&self.cur, self.old_out.row(b)) {
                    self.old_out.row_mut(b).copy_from_slice(&self.cur);
                    self.scan_live(f, b, stats);
                    if !same(self.gen.row(b), &self.cur_gen)
                        || !same(self.kill.row(b), &self.cur_kill)
                    {
                        self.gen.row_mut(b).copy_from_slice(&self.cur_gen);
                        self.kill.row_mut(b).copy_from_slice(&self.cur_kill);
                        changed = true;
                    }
                } else {
                    let (gen, kill) = (self.gen.row(b), self.kill.row(b));
                    for ((c, &ge), &k) in self.cur.iter_mut().zip(gen).zip(kill) {
                        *c = ge | (*c & !k);
                    }
                }
                self.live_in.row_mut(b).copy_from_slice(&self.cur);
            }
            if !changed {
                return;
            }
            first = false;
        }
    }

    /// `cur` = the union of the live-in sets of the successors `s0` and `s1`.
    #[inline]
    fn load_out(&mut self, s0: u32, s1: u32) {
        let words = self.cur.len();
        let ins = &self.live_in.words;
        for (i, c) in self.cur.iter_mut().enumerate() {
            let mut out = 0u64;
            if s0 != NONE {
                out |= ins[s0 as usize * words + i];
            }
            if s1 != NONE {
                out |= ins[s1 as usize * words + i];
            }
            *c = out;
        }
    }

    /// Backward scan of block `bi` removing the pure instructions whose result is dead,
    /// with the live globals in `cur` (live-out on entry, live-in on return) and the
    /// other registers' liveness stamped; leaves the block's gen and kill sets (of the
    /// instructions kept) in `cur_gen` and `cur_kill`.
    fn scan_live(&mut self, f: &mut IrFunction, bi: usize, stats: &mut OptStats) {
        let global_index = &self.classes.global_index;
        let live_stamp = &mut self.live_stamp;
        self.clock += 1;
        let st = self.clock;
        let live = &mut self.cur[..];
        let gen = &mut self.cur_gen[..];
        let kill = &mut self.cur_kill[..];
        if let ([g], [k]) = (&mut *gen, &mut *kill) {
            // The common case, without a call to fill.
            (*g, *k) = (0, 0);
        } else {
            gen.fill(0);
            kill.fill(0);
        }
        let read = |r: u32, live: &mut [u64], gen: &mut [u64], live_stamp: &mut [u32]| {
            let gi = global_index[r as usize];
            if gi == NONE {
                live_stamp[r as usize] = st;
            } else {
                set(live, gi as usize);
                set(gen, gi as usize);
            }
        };
        let b = &mut f.blocks[bi];
        if let Some(r) = term_use(&b.term) {
            read(r.0, live, gen, live_stamp);
        }
        let keep = &mut self.keep;
        keep.clear();
        keep.resize(b.insts.len(), true);
        let mut removed = 0;
        for (i, inst) in b.insts.iter().enumerate().rev() {
            if let Some(d) = def_of(inst) {
                let d = d.0 as usize;
                let gi = global_index[d];
                let is_live = if gi == NONE {
                    live_stamp[d] == st
                } else {
                    get(live, gi as usize)
                };
                // Of the instructions that write a register only calls are not pure.
                debug_assert_eq!(is_pure(inst), !matches!(inst, Inst::Call(_)));
                if !is_live && !matches!(inst, Inst::Call(_)) {
                    keep[i] = false;
                    removed += 1;
                    continue;
                }
                if gi == NONE {
                    live_stamp[d] = 0;
                } else {
                    clear(live, gi as usize);
                    clear(gen, gi as usize);
                    set(kill, gi as usize);
                }
            }
            for_each_use(inst, |r| read(r.0, live, gen, live_stamp));
        }
        if removed > 0 {
            stats.dead_insts += removed;
            let mut it = keep.iter();
            b.insts.retain(|_| *it.next().unwrap_or(&true));
            self.emptied_block |= b.insts.is_empty() && matches!(b.term, Terminator::Jump(_));
        }
    }

    /// Reclassifies the registers after a round that removed instructions (the classes
    /// must be exact when a superset will not do).
    fn restart(&mut self, f: &IrFunction) {
        self.classes.recompute(f, &mut self.block_of);
    }

    /// One round over the blocks (the reachable ones, then those in `unreachable`):
    /// gen/kill, liveness, scan.
    fn all_blocks(&mut self, f: &mut IrFunction, stats: &mut OptStats) {
        let nb = f.blocks.len();
        let g = self.classes.globals.len();
        self.precise = nb.saturating_mul(g) <= MAX_BITS;
        if self.precise {
            self.gen = BitSet::new(nb, g, std::mem::take(&mut self.gen.words));
            self.kill = BitSet::new(nb, g, std::mem::take(&mut self.kill.words));
            for bi in 0..nb {
                self.gen_kill(f, bi);
            }
            self.solve(f, true);
        } else {
            self.live_out = BitSet::new(0, g, std::mem::take(&mut self.live_out.words));
        }
        self.removed_global_read = false;
        for i in 0..self.order.len() {
            self.scan(f, self.order[i][0] as usize, stats);
        }
        for i in 0..self.unreachable.len() {
            self.scan(f, self.unreachable[i] as usize, stats);
        }
    }

    /// Fills block `bi`'s (zeroed) gen and kill rows.
    fn gen_kill(&mut self, f: &IrFunction, bi: usize) {
        let classes = &self.classes;
        let (gen_row, kill_row) = (self.gen.row_mut(bi), self.kill.row_mut(bi));
        let read = |r: u32, gen_row: &mut [u64], kill_row: &[u64]| {
            let gi = classes.global_index[r as usize];
            if gi != NONE && !get(kill_row, gi as usize) {
                set(gen_row, gi as usize);
            }
        };
        let b = &f.blocks[bi];
        for inst in &b.insts {
            if let Some(d) = uses_then_def(inst, |r| read(r.0, gen_row, kill_row)) {
                let gi = classes.global_index[d.0 as usize];
                if gi != NONE {
                    set(kill_row, gi as usize);
                }
            }
        }
        if let Some(r) = term_use(&b.term) {
            read(r.0, gen_row, kill_row);
        }
    }

    /// live_in = gen | (live_out & !kill), from nothing live, iterating in postorder
    /// until stable (blocks unreachable from the entry keep nothing live; without loops
    /// one sweep is). A sweep where no retreating edge's target changed is stable: every
    /// other block's live-in set is read only after it is updated. `live_out` is filled
    /// in too when `with_out` (the sweeps compute each block's live-out set as they go).
    fn solve(&mut self, f: &IrFunction, with_out: bool) {
        let nb = f.blocks.len();
        let g = self.classes.globals.len();
        if with_out {
            self.live_out = BitSet::new(nb, g, std::mem::take(&mut self.live_out.words));
        }
        self.live_in = BitSet::new(nb, g, std::mem::take(&mut self.live_in.words));
        let (order, retreat_target) = (&self.order, &self.retreat_target);
        let (live_in, live_out) = (&mut self.live_in, &mut self.live_out);
        let (gen, kill) = (&self.gen, &self.kill);
        let words = live_in.per_block;
        if words == 1 && !with_out {
            // One word per block: the common case, without the loop over words.
            let (ins, gen, kill) = (&mut live_in.words, &gen.words, &kill.words);
            loop {
                let mut changed = false;
                for &[b, s0, s1] in order.iter() {
                    let b = b as usize;
                    let mut out = 0u64;
                    if s0 != NONE {
                        out |= ins[s0 as usize];
                    }
                    if s1 != NONE {
                        out |= ins[s1 as usize];
                    }
                    let v = gen[b] | (out & !kill[b]);
                    if v != ins[b] {
                        ins[b] = v;
                        changed |= retreat_target[b];
                    }
                }
                if !changed || self.acyclic {
                    return;
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &[b, s0, s1] in order.iter() {
                let b = b as usize;
                for i in 0..words {
                    let mut out = 0u64;
                    if s0 != NONE {
                        out |= live_in.words[s0 as usize * words + i];
                    }
                    if s1 != NONE {
                        out |= live_in.words[s1 as usize * words + i];
                    }
                    let at = b * words + i;
                    if with_out {
                        live_out.words[at] = out;
                    }
                    let v = gen.words[at] | (out & !kill.words[at]);
                    if v != live_in.words[at] {
                        live_in.words[at] = v;
                        changed |= retreat_target[b];
                    }
                }
            }
            changed &= !self.acyclic;
        }
    }

    /// Backward scan of block `bi` with a liveness per register (stamped), removing
    /// pure instructions whose result is dead.
    fn scan(&mut self, f: &mut IrFunction, bi: usize, stats: &mut OptStats) {
        let classes = &self.classes;
        let live_stamp = &mut self.live_stamp;
        // A fresh stamp per scan: a register is live here iff its stamp is `st`.
        self.clock += 1;
        let st = self.clock;
        if self.precise {
            for (wi, &w) in self.live_out.row(bi).iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let gi = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    live_stamp[classes.globals[gi].0 as usize] = st;
                }
            }
        } else {
            for r in &classes.globals {
                live_stamp[r.0 as usize] = st;
            }
        }
        let b = &mut f.blocks[bi];
        if let Some(r) = term_use(&b.term) {
            live_stamp[r.0 as usize] = st;
        }
        let keep = &mut self.keep;
        keep.clear();
        keep.resize(b.insts.len(), true);
        let (precise, gen) = (self.precise, &self.gen);
        let mut removed_global_read = false;
        let mut removed = 0;
        for (i, inst) in b.insts.iter().enumerate().rev() {
            let def = def_of(inst);
            if let Some(d) = def {
                // Of the instructions that write a register only calls are not pure.
                debug_assert_eq!(is_pure(inst), !matches!(inst, Inst::Call(_)));
                if !matches!(inst, Inst::Call(_)) && live_stamp[d.0 as usize] != st {
                    keep[i] = false;
                    removed += 1;
                    // A write the removed read saw is in another block only if the
                    // register is read before written in this one (in `gen`).
                    for_each_use(inst, |r| {
                        let gi = classes.global_index[r.0 as usize];
                        removed_global_read |=
                            gi != NONE && (!precise || get(gen.row(bi), gi as usize));
                    });
                    continue;
                }
                live_stamp[d.0 as usize] = 0;
            }
            for_each_use(inst, |r| live_stamp[r.0 as usize] = st);
        }
        self.removed_global_read |= removed_global_read;
        if removed > 0 {
            stats.dead_insts += removed;
            let mut it = keep.iter();
            b.insts.retain(|_| *it.next().unwrap_or(&true));
            self.emptied_block |= b.insts.is_empty() && matches!(b.term, Terminator::Jump(_));
        }
    }
}
