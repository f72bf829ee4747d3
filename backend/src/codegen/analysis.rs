//! The analyses before instruction selection: reachability and block order, local
//! fusions (a temporary copied straight into a variable, a comparison feeding the branch
//! right after it, single-definition constants rematerialized at their uses), liveness
//! over the CFG, live intervals and linear-scan register allocation with spilling.
//!
//! Instructions that survive fusion become [`Entry`]s numbered in *position order* (the
//! IR's block order, reachable blocks only); entry `k` reads its operands at position
//! `2k` and writes its result at `2k + 1`. A register's live interval is the hull of all
//! positions where it is live (from the dataflow's live-in/live-out sets, so loops are
//! covered whole) — conservative, but every value has one location for its whole life, so
//! there are no moves at block edges. Intervals that live across a call get callee-saved
//! registers or a stack slot.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use shared_frontend::ir::builder::is_comparison;
use shared_frontend::ir::{self, BasicBlock, Inst, IrFunction, ScalarTy, Terminator, VReg};

use super::regs::*;

pub(crate) const NONE: u32 = u32::MAX;

/// An instruction (or a block's terminator) that generates code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// Index into the block's instructions, [`NONE`] for the terminator.
    pub inst: u32,
    /// The register written (after copy fusion: the copy's destination), or [`NONE`].
    pub def: u32,
    /// For a branch: the index of the comparison fused into it, or [`NONE`].
    pub fused_cmp: u32,
    /// Entries before this one that call (a function or the runtime).
    calls_before: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// Never live (not used, or dead).
    None,
    Reg(u8),
    /// An 8-byte spill slot, by index.
    Spill(u32),
    /// A single-definition constant, rematerialized at each use (canonical bits).
    Const(u64),
}

/// What the analysis knows of one block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockInfo {
    /// The block's entries are `entries[first..=term]` ([`NONE`] if it is unreachable).
    pub first: u32,
    pub term: u32,
    /// Its index in `emit_order` (or [`NONE`]).
    pub emit_index: u32,
    /// Which successors (bit 0: the first, bit 1: the second) are reached by a back
    /// edge, where the stack-limit (interrupt) check goes.
    pub back_edges: u8,
    /// Reachability: 0 unvisited (so unreachable once the search is over), 1 on the
    /// depth-first search's stack, 2 finished.
    dfs: u8,
}

impl BlockInfo {
    fn reachable(&self) -> bool {
        self.dfs != 0
    }
}

pub(crate) struct Analysis {
    pub entries: Vec<Entry>,
    /// Per block, indexed by block.
    pub blocks: Vec<BlockInfo>,
    /// Reachable blocks in emission order: the entry block, the other blocks not ending in
    /// a panic, then the cold ones.
    pub emit_order: Vec<u32>,
    pub loc: Vec<Loc>,
    pub spill_slots: u32,
    /// Callee-saved registers used, as a mask.
    pub callee_used: u16,
    /// The most stack-passed arguments of any call.
    pub max_stack_args: u32,
    /// Any call of another function (the stack check is needed).
    pub calls_functions: bool,
    /// Entries that call a function or the runtime.
    pub calls: u32,
}

/// A terminator's successors as block indices, [`NONE`] where there is none.
pub(crate) fn successors(t: &Terminator) -> (u32, u32) {
    let [s1, s2] = ir::successors(t);
    (s1.map_or(NONE, |b| b.0), s2.map_or(NONE, |b| b.0))
}

/// Blocks whose code is placed last: panics and `Unreachable`.
fn is_cold(t: &Terminator) -> bool {
    matches!(t, Terminator::Panic(_) | Terminator::Unreachable)
}

/// Whether the result `t` of `insts[i]` can be written straight into the destination of
/// the copy `insts[i + 1]` (returned).
fn copy_fusion(insts: &[Inst], i: usize, t: u32, facts: &[RegFacts]) -> Option<VReg> {
    let Some(&Inst::Copy { dst, src }) = insts.get(i + 1) else {
        return None;
    };
    if t == NONE || src.0 != t || dst.0 == t {
        return None;
    }
    let r = &facts[t as usize];
    let ok = facts[dst.0 as usize].ty == r.ty && r.defs == 1 && r.uses == 1;
    ok.then_some(dst)
}

/// A comparison `insts[last]` whose only use is the block's branch.
fn cmp_fusion(insts: &[Inst], term: &Terminator, facts: &[RegFacts]) -> bool {
    let (Some(Inst::Binary { op, dst, .. }), Terminator::Branch { cond, .. }) =
        (insts.last(), term)
    else {
        return false;
    };
    let r = &facts[dst.0 as usize];
    is_comparison(*op) && dst == cond && r.defs == 1 && r.uses == 1
}

/// What the analysis knows of one register; one array of these replaces a dozen
/// parallel per-register arrays (and their allocations). The counts and the constant
/// come from the walk of [`super::validate`], the rest from [`analyze`].
#[derive(Clone, Copy)]
pub(crate) struct RegFacts {
    /// The canonical bits of a `Const` defining the register (the last one, if several),
    /// if `has_constant`.
    pub constant: u64,
    /// Definitions (a parameter counts as one) and uses over all blocks, saturating.
    pub defs: u32,
    pub uses: u32,
    /// The live interval's first and last positions (`u32::MAX`, 0 while empty).
    start: u32,
    end: u32,
    /// The register the value would like: `PHYS | machine register`, another virtual
    /// register (whose location is taken), or [`NONE`].
    hint: u32,
    /// The last reachable block (in position order) that defined the register so far.
    last_def_block: u32,
    pub ty: ScalarTy,
    pub has_constant: bool,
    /// That `Const` is followed by a copy of the register into another register of its
    /// type (so, with one use, it is fused into that copy rather than rematerialized).
    pub copied_next: bool,
    /// The register is a constant rematerialized at its uses ([`Loc::Const`]), so it is
    /// no operand and has no interval.
    remat: bool,
}

impl RegFacts {
    pub fn new(ty: ScalarTy) -> RegFacts {
        RegFacts {
            constant: 0,
            defs: 0,
            uses: 0,
            start: u32::MAX,
            end: 0,
            hint: NONE,
            last_def_block: NONE,
            ty,
            has_constant: false,
            copied_next: false,
            remat: false,
        }
    }

    fn extend(&mut self, p: u32) {
        self.start = self.start.min(p);
        self.end = self.end.max(p);
    }
}

/// Marks a hint that names a machine register rather than a virtual one.
const PHYS: u32 = 1 << 31;

/// The buffers of [`analyze`] (and of the [`Analysis`] it returns, given back with
/// [`Bufs::reclaim`]), reused from one function to the next. Results never depend on what
/// is left here: every buffer is cleared before it is filled.
#[derive(Default)]
pub(crate) struct Bufs {
    /// For [`super::validate::validate`] to fill.
    pub facts: Vec<RegFacts>,
    entries: Vec<Entry>,
    blocks: Vec<BlockInfo>,
    emit_order: Vec<u32>,
    loc: Vec<Loc>,
    /// The depth-first search's stack, then the liveness worklist.
    stack: Vec<u32>,
    /// (block, register): the register is read in the block before any definition there.
    gen_pairs: Vec<(u32, u32)>,
    /// Bitsets per block, indexed by register: live-in, live-out and kill, one after the
    /// other.
    sets: Vec<u64>,
    /// The predecessors of each block (see [`Ctx::build_predecessors`]).
    preds: Vec<u32>,
    /// The intervals in allocation order, as sort keys.
    order: Vec<u64>,
    /// The spilled registers.
    spilled: Vec<u32>,
    /// Spill slots in use, by the end of their interval.
    busy: BinaryHeap<Reverse<(u32, u32)>>,
    free_slots: Vec<u32>,
}

impl Bufs {
    /// Takes back the buffers of an analysis that is no longer needed.
    pub fn reclaim(&mut self, a: Analysis) {
        self.entries = a.entries;
        self.blocks = a.blocks;
        self.emit_order = a.emit_order;
        self.loc = a.loc;
    }
}

/// Analyzes a function that [`super::validate::validate`] accepted, given the facts it
/// gathered: the phases of [`Ctx`], in this order (each reads what the ones before it
/// computed).
pub(crate) fn analyze(f: &IrFunction, facts: Vec<RegFacts>, bufs: &mut Bufs) -> Analysis {
    let mut cx = Ctx::new(f, facts, bufs);
    cx.search_blocks();
    cx.choose_rematerialized();
    cx.hint_parameters();
    cx.number_entries();
    cx.order_blocks();
    cx.compute_liveness();
    cx.allocate_registers();
    cx.assign_spill_slots();
    cx.finish()
}

/// The state of one [`analyze`] call, filled in phase by phase: the function, the
/// buffers of [`Bufs`] (the facts in `b.facts`; [`Ctx::finish`] moves the results out)
/// and the scalar results.
struct Ctx<'a> {
    f: &'a IrFunction,
    b: &'a mut Bufs,
    /// Words per block in each of the three bitsets of `b.sets` (one bit per register).
    words: usize,
    max_stack_args: u32,
    calls_functions: bool,
    calls: u32,
    spill_slots: u32,
    callee_used: u16,
}

/// Records an operand `u` of entry `k` in block `bi` (constants are not operands): its
/// interval reaches the use, and a use before any definition in the block is a `gen`
/// pair.
#[inline(always)]
fn note_use(facts: &mut [RegFacts], gen_pairs: &mut Vec<(u32, u32)>, u: u32, bi: u32, k: u32) {
    let r = &mut facts[u as usize];
    if r.remat {
        return;
    }
    if r.last_def_block != bi {
        gen_pairs.push((bi, u));
    }
    r.extend(2 * k);
}

/// The register whose location the result of `inst` would like to share: the operand a
/// two-address instruction overwrites, or [`NONE`].
#[inline]
fn operand_hint(inst: &Inst) -> u32 {
    match *inst {
        Inst::Copy { src, .. } | Inst::Cast { src, .. } | Inst::Unary { src, .. } => src.0,
        Inst::Binary { lhs, op, .. } if !is_comparison(op) => lhs.0,
        _ => NONE,
    }
}

/// Whether an interval from `s` to `e` crosses a call: one at entry `k` is crossed if
/// `s <= 2k` and `e >= 2k + 2` (`calls` is the total, the prefix count past the end).
fn crosses_call(entries: &[Entry], calls: u32, s: u32, e: u32) -> bool {
    if e < 2 {
        return false;
    }
    let lo = s.div_ceil(2) as usize;
    let hi = ((e - 2) / 2) as usize + 1;
    let calls_before = |k: usize| entries.get(k).map_or(calls, |e| e.calls_before);
    lo < hi && calls_before(hi) > calls_before(lo)
}

/// The machine register named by a hint, if it names one: directly, or as the register
/// of the virtual register it names (`loc`).
#[inline]
fn hinted_register(h: u32, loc: &[Loc]) -> Option<u8> {
    if h == NONE {
        None
    } else if h & PHYS != 0 {
        Some((h & !PHYS) as u8)
    } else if let Loc::Reg(r) = loc[h as usize] {
        Some(r)
    } else {
        None
    }
}

impl<'a> Ctx<'a> {
    fn new(f: &'a IrFunction, facts: Vec<RegFacts>, b: &'a mut Bufs) -> Ctx<'a> {
        b.facts = facts;
        Ctx {
            f,
            b,
            words: f.vregs.len().div_ceil(64),
            max_stack_args: 0,
            calls_functions: false,
            calls: 0,
            spill_slots: 0,
            callee_used: 0,
        }
    }

    /// Reachability and back edges (edges to a block on the search's stack: every cycle
    /// has one), by an iterative depth-first search from the entry block over the
    /// terminators. Fills `b.blocks` (`dfs`, `back_edges`; the rest [`NONE`]).
    fn search_blocks(&mut self) {
        let f = self.f;
        let Bufs { blocks, stack, .. } = &mut self.b;
        blocks.clear();
        blocks.resize(
            f.blocks.len(),
            BlockInfo {
                first: NONE,
                term: NONE,
                emit_index: NONE,
                back_edges: 0,
                dfs: 0,
            },
        );
        // Each element is `4 * block + the successor to visit next` (blocks are fewer
        // than 2^30, see [`super::validate`]).
        stack.clear();
        stack.push(0);
        blocks[0].dfs = 1;
        while let Some(top) = stack.last_mut() {
            let (b, next) = (*top / 4, *top % 4);
            if next >= 2 {
                blocks[b as usize].dfs = 2;
                stack.pop();
                continue;
            }
            *top += 1;
            let (s1, s2) = successors(&f.blocks[b as usize].term);
            let s = if next == 0 { s1 } else { s2 };
            if s == NONE {
                continue;
            }
            match blocks[s as usize].dfs {
                0 => {
                    blocks[s as usize].dfs = 1;
                    stack.push(4 * s);
                }
                1 => blocks[b as usize].back_edges |= 1 << next,
                _ => {}
            }
        }
    }

    /// Single-definition constants not fused into a copy (see [`copy_fusion`]) are
    /// rematerialized at their uses. Reads the facts of validation; fills `b.loc` (with
    /// [`Loc::Const`] for those, [`Loc::None`] elsewhere) and marks them `remat`.
    fn choose_rematerialized(&mut self) {
        let Bufs { facts, loc, .. } = &mut self.b;
        loc.clear();
        loc.resize(self.f.vregs.len(), Loc::None);
        for (r, l) in facts.iter_mut().zip(loc.iter_mut()) {
            if r.has_constant && r.defs == 1 && !(r.copied_next && r.uses == 1) {
                r.remat = true;
                *l = Loc::Const(r.constant);
            }
        }
    }

    /// Parameter hints: the argument registers they arrive in (the allocatable ones).
    fn hint_parameters(&mut self) {
        for (j, &p) in self.f.params.iter().enumerate().take(6) {
            let r = ARG_REGS[j];
            if ALLOCATABLE & (1 << r) != 0 {
                self.b.facts[p.0 as usize].hint = PHYS | r as u32;
            }
        }
    }

    /// Entries in position order, block by block over the reachable blocks (see
    /// [`Ctx::number_block`]). Reads `b.blocks`' reachability and the facts; fills
    /// `b.entries`, the blocks' `first` and `term`, `b.gen_pairs`, the `kill` third of
    /// `b.sets` (the other two cleared for the liveness), and the call counts.
    fn number_entries(&mut self) {
        let f = self.f;
        let ninsts_total: usize = f.blocks.iter().map(|b| b.insts.len() + 1).sum();
        let Bufs {
            entries,
            gen_pairs,
            sets,
            ..
        } = &mut self.b;
        entries.clear();
        entries.reserve(ninsts_total);
        gen_pairs.clear();
        gen_pairs.reserve(ninsts_total);
        // Bitsets per block, indexed by register: live-in, live-out (see the liveness)
        // and kill.
        sets.clear();
        sets.resize(3 * f.blocks.len() * self.words, 0);
        for (bi, b) in f.blocks.iter().enumerate() {
            if self.b.blocks[bi].reachable() {
                self.number_block(bi as u32, b);
            }
        }
    }

    /// The entries of reachable block `bi`, and in the same walk: use and definition
    /// positions (the interval hulls before liveness widens them), hints, calls as a
    /// prefix count, the registers used in the block before any definition there (as
    /// `gen` pairs) and the registers it defines (`kill`). Fuses copies and the branch's
    /// comparison, and skips rematerialized constants and dead pure instructions.
    fn number_block(&mut self, bi: u32, b: &BasicBlock) {
        let (words, len) = (self.words, self.f.blocks.len() * self.words);
        let Bufs {
            facts,
            entries,
            blocks,
            gen_pairs,
            sets,
            ..
        } = &mut self.b;
        let kill = &mut sets[2 * len + bi as usize * words..][..words];
        blocks[bi as usize].first = entries.len() as u32;
        let fused_cmp = cmp_fusion(&b.insts, &b.term, facts);
        let ninsts = b.insts.len() - fused_cmp as usize;
        let mut i = 0;
        while i < ninsts {
            let inst = &b.insts[i];
            let mut def = ir::def_of(inst).map_or(NONE, |d| d.0);
            let mut skip_next = false;
            if let Some(v) = copy_fusion(&b.insts, i, def, facts) {
                def = v.0;
                skip_next = true;
            } else if def != NONE
                && (facts[def as usize].remat
                    || (facts[def as usize].uses == 0 && ir::is_pure(inst)))
            {
                i += 1;
                continue;
            }
            if def != NONE && facts[def as usize].uses == 0 && !skip_next {
                def = NONE;
            }
            let k = entries.len() as u32;
            ir::for_each_use(inst, |u| note_use(facts, gen_pairs, u.0, bi, k));
            if def != NONE {
                let r = &mut facts[def as usize];
                r.last_def_block = bi;
                r.extend(2 * k + 1);
                if r.hint == NONE {
                    r.hint = operand_hint(inst);
                }
                kill[def as usize / 64] |= 1 << (def % 64);
            }
            let call = matches!(inst, Inst::Call(_) | Inst::Print(_));
            if let Inst::Call(c) = inst {
                self.calls_functions = true;
                self.max_stack_args = self
                    .max_stack_args
                    .max(c.args.len().saturating_sub(6) as u32);
            }
            entries.push(Entry {
                inst: i as u32,
                def,
                fused_cmp: NONE,
                calls_before: self.calls,
            });
            self.calls += call as u32;
            i += 1 + skip_next as usize;
        }
        let k = entries.len() as u32;
        let mut fused = NONE;
        if fused_cmp {
            fused = ninsts as u32;
            if let Some(Inst::Binary { lhs, rhs, .. }) = b.insts.last() {
                for u in [*lhs, *rhs] {
                    note_use(facts, gen_pairs, u.0, bi, k);
                }
            }
        } else if let Some(u) = ir::term_use(&b.term) {
            note_use(facts, gen_pairs, u.0, bi, k);
        }
        blocks[bi as usize].term = k;
        entries.push(Entry {
            inst: NONE,
            def: NONE,
            fused_cmp: fused,
            calls_before: self.calls,
        });
    }

    /// Emission order: greedy fall-through chains (a block's first hot unplaced
    /// successor comes next), starting from the entry and then from the next unplaced
    /// block in IR order; cold blocks (panics, `Unreachable`) last. Reads reachability
    /// and the terminators; fills `b.emit_order` and the blocks' `emit_index`.
    fn order_blocks(&mut self) {
        let f = self.f;
        let nb = f.blocks.len();
        let cold = |b: usize| is_cold(&f.blocks[b].term);
        let Bufs {
            blocks, emit_order, ..
        } = &mut self.b;
        emit_order.clear();
        emit_order.reserve(nb);
        let mut seed = 0usize;
        let mut cur = Some(0u32);
        loop {
            let b = match cur {
                Some(b) => b,
                None => {
                    while seed < nb
                        && (blocks[seed].emit_index != NONE
                            || !blocks[seed].reachable()
                            || cold(seed))
                    {
                        seed += 1;
                    }
                    if seed == nb {
                        break;
                    }
                    seed as u32
                }
            };
            blocks[b as usize].emit_index = emit_order.len() as u32;
            emit_order.push(b);
            let (s1, s2) = successors(&f.blocks[b as usize].term);
            cur = [s1, s2]
                .into_iter()
                .find(|&s| s != NONE && blocks[s as usize].emit_index == NONE && !cold(s as usize));
        }
        for (b, info) in blocks.iter_mut().enumerate() {
            if info.reachable() && info.emit_index == NONE {
                info.emit_index = emit_order.len() as u32;
                emit_order.push(b as u32);
            }
        }
    }

    /// Liveness across blocks, widening the intervals (see [`Ctx::solve_liveness`]),
    /// then every parameter with an interval is live from position 0 (it arrives there).
    fn compute_liveness(&mut self) {
        self.b.preds.clear();
        if !self.b.gen_pairs.is_empty() {
            self.build_predecessors();
            self.solve_liveness();
        }
        for &p in &self.f.params {
            let r = &mut self.b.facts[p.0 as usize];
            if r.start != u32::MAX {
                r.start = 0;
            }
        }
    }

    /// The reachable predecessors of each block as one array in `b.preds`:
    /// `preds[first[b]..first[b + 1]]`, with `first` in the array's head (`nb + 1`
    /// entries, offsets counted from the array's start). Reads reachability and the
    /// terminators.
    fn build_predecessors(&mut self) {
        let f = self.f;
        let nb = f.blocks.len();
        let Bufs { blocks, preds, .. } = &mut self.b;
        preds.reserve(3 * nb + 1);
        preds.resize(nb + 1, 0u32);
        for (info, block) in blocks.iter().zip(&f.blocks) {
            if info.reachable() {
                let (s1, s2) = successors(&block.term);
                for s in [s1, s2] {
                    if s != NONE {
                        preds[s as usize] += 1;
                    }
                }
            }
        }
        let mut end = nb as u32 + 1;
        for p in &mut preds[..=nb] {
            end += *p;
            *p = end;
        }
        preds.resize(end as usize, 0);
        for b in (0..nb).rev() {
            if blocks[b].reachable() {
                let (s1, s2) = successors(&f.blocks[b].term);
                for s in [s1, s2] {
                    if s != NONE {
                        preds[s as usize] -= 1;
                        let at = preds[s as usize] as usize;
                        preds[at] = b as u32;
                    }
                }
            }
        }
    }

    /// Liveness over the CFG of the registers used in a block before any definition
    /// there (only those can be live across a block boundary), solved one register at a
    /// time by walking backwards from the blocks that use it before defining it (its
    /// `gen` blocks, `b.gen_pairs`): a block where it is live-in makes it live-out in
    /// every (reachable) predecessor (`b.preds`), and live-in there too unless that
    /// predecessor defines it (`kill`). This reaches the same least fixpoint as
    /// iterating the dataflow equations, visiting only the blocks where the register is
    /// live. Each block where it is live-in (live-out) widens its interval to the
    /// block's first (last) position. `b.stack` is the worklist.
    fn solve_liveness(&mut self) {
        let nb = self.f.blocks.len();
        let (words, len) = (self.words, nb * self.words);
        let Bufs {
            facts,
            blocks,
            stack: work,
            gen_pairs,
            sets,
            preds,
            ..
        } = &mut self.b;
        let (first, preds) = preds.split_at(nb + 1);
        let base = nb + 1;
        let (live_in, rest) = sets.split_at_mut(len);
        let (live_out, kill) = rest.split_at_mut(len);
        for &(b, v) in gen_pairs.iter() {
            let (w, bit) = (v as usize / 64, 1u64 << (v % 64));
            let i = b as usize * words + w;
            if live_in[i] & bit != 0 {
                continue;
            }
            let r = &mut facts[v as usize];
            live_in[i] |= bit;
            r.extend(2 * blocks[b as usize].first);
            work.clear();
            work.push(b);
            while let Some(x) = work.pop() {
                let x = x as usize;
                for &p in &preds[first[x] as usize - base..first[x + 1] as usize - base] {
                    let i = p as usize * words + w;
                    if live_out[i] & bit != 0 {
                        continue;
                    }
                    live_out[i] |= bit;
                    r.extend(2 * blocks[p as usize].term + 1);
                    if (kill[i] | live_in[i]) & bit == 0 {
                        live_in[i] |= bit;
                        r.extend(2 * blocks[p as usize].first);
                        work.push(p);
                    }
                }
            }
        }
    }

    /// Linear scan over the intervals by start (then register): each gets its hinted
    /// register if free and allowed, else the first free one in preference order (only
    /// callee-saved ones for intervals crossing a call), else the candidate interval
    /// that ends last is spilled. Reads the intervals, hints and `b.entries`' call
    /// counts; sets `b.loc` (spilled intervals get [`Loc::Spill`] and go in
    /// `b.spilled`; slots come later) and `callee_used`. `b.order` holds the sort keys.
    fn allocate_registers(&mut self) {
        let Bufs {
            facts,
            entries,
            loc,
            order,
            spilled,
            ..
        } = &mut self.b;
        // Each sort key packed as `start << 32 | register`.
        order.clear();
        order.reserve(facts.len());
        for (v, r) in facts.iter().enumerate() {
            if r.start != u32::MAX && !r.remat {
                order.push((r.start as u64) << 32 | v as u64);
            }
        }
        order.sort_unstable();
        spilled.clear();
        let mut free: u16 = ALLOCATABLE;
        // (end, vreg, reg); each holds a distinct allocatable register, so at most 12.
        let mut active = [(0u32, 0u32, 0u8); ALLOC_ORDER.len()];
        let mut nactive = 0usize;
        for &key in order.iter() {
            let v = key as u32;
            let RegFacts {
                start: s,
                end: e,
                hint: h,
                ..
            } = facts[v as usize];
            let mut kept = 0;
            for j in 0..nactive {
                let (ae, _, r) = active[j];
                if ae < s {
                    free |= 1 << r;
                } else {
                    active[kept] = active[j];
                    kept += 1;
                }
            }
            nactive = kept;
            let crossing = crosses_call(entries, self.calls, s, e);
            let allowed = if crossing { CALLEE_SAVED } else { ALLOCATABLE };
            let avail = free & allowed;
            let reg = if avail != 0 {
                match hinted_register(h, loc) {
                    Some(r) if avail & (1 << r) != 0 => r,
                    _ => {
                        let pref: &[u8] = if crossing {
                            &CALLEE_ORDER
                        } else {
                            &ALLOC_ORDER
                        };
                        *pref
                            .iter()
                            .find(|&&r| avail & (1 << r) != 0)
                            .unwrap_or(&pref[0])
                    }
                }
            } else {
                // Spill whichever of the candidates ends last.
                let cand = active[..nactive]
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| allowed & (1 << a.2) != 0)
                    .max_by_key(|(_, a)| (a.0, a.1))
                    .map(|(i, a)| (i, *a));
                match cand {
                    Some((i, (ae, av, r))) if ae > e => {
                        active[i] = active[nactive - 1];
                        nactive -= 1;
                        loc[av as usize] = Loc::Spill(0);
                        spilled.push(av);
                        free |= 1 << r;
                        r
                    }
                    _ => {
                        loc[v as usize] = Loc::Spill(0);
                        spilled.push(v);
                        continue;
                    }
                }
            };
            free &= !(1 << reg);
            if CALLEE_SAVED & (1 << reg) != 0 {
                self.callee_used |= 1 << reg;
            }
            loc[v as usize] = Loc::Reg(reg);
            active[nactive] = (e, v, reg);
            nactive += 1;
        }
    }

    /// Stack slots for the spilled intervals (`b.spilled`), by start, each slot reused
    /// once its interval has ended. Sets their `b.loc` and `spill_slots`; `b.busy` and
    /// `b.free_slots` are the slots in use (by end) and free.
    fn assign_spill_slots(&mut self) {
        let Bufs {
            facts,
            loc,
            spilled,
            busy,
            free_slots,
            ..
        } = &mut self.b;
        spilled.sort_unstable_by_key(|&v| (facts[v as usize].start, v));
        busy.clear();
        free_slots.clear();
        for &v in spilled.iter() {
            let RegFacts { start, end, .. } = facts[v as usize];
            while let Some(&Reverse((e, slot))) = busy.peek() {
                if e < start {
                    busy.pop();
                    free_slots.push(slot);
                } else {
                    break;
                }
            }
            let slot = free_slots.pop().unwrap_or_else(|| {
                self.spill_slots += 1;
                self.spill_slots - 1
            });
            loc[v as usize] = Loc::Spill(slot);
            busy.push(Reverse((end, slot)));
        }
    }

    /// The results, moved out of the buffers (which keep the rest).
    fn finish(self) -> Analysis {
        let b = self.b;
        Analysis {
            entries: std::mem::take(&mut b.entries),
            blocks: std::mem::take(&mut b.blocks),
            emit_order: std::mem::take(&mut b.emit_order),
            loc: std::mem::take(&mut b.loc),
            spill_slots: self.spill_slots,
            callee_used: self.callee_used,
            max_stack_args: self.max_stack_args,
            calls_functions: self.calls_functions,
            calls: self.calls,
        }
    }
}

/// Whether a value of this type lives in 64 bits.
pub(crate) fn wide(ty: ScalarTy) -> bool {
    super::validate::is_wide(ty)
}
