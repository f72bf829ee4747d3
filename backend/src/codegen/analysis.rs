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

use shared_frontend::ir::interp::scalar::canon;
use shared_frontend::ir::{Inst, IrFunction, PanicKind, PrintArg, ScalarTy, Terminator, VReg};

use super::regs::*;
use super::validate::is_cmp;

pub(crate) const NONE: u32 = u32::MAX;

/// An instruction (or a block's terminator) that generates code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub block: u32,
    /// Index into the block's instructions, [`NONE`] for the terminator.
    pub inst: u32,
    /// The register written (after copy fusion: the copy's destination), or [`NONE`].
    pub def: u32,
    pub uses: u32,
    pub nuses: u32,
    /// A call (of a function or the runtime) that returns: caller-saved registers die.
    pub call: bool,
    /// For a branch: the index of the comparison fused into it, or [`NONE`].
    pub fused_cmp: u32,
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

pub(crate) struct Analysis {
    pub entries: Vec<Entry>,
    /// Entries of block `b` are `entries[block_first[b]..=block_term[b]]` (reachable only).
    pub block_first: Vec<u32>,
    pub block_term: Vec<u32>,
    /// Reachable blocks in emission order: the entry block, the other blocks not ending in
    /// a panic, then the cold ones.
    pub emit_order: Vec<u32>,
    /// Per block, its index in `emit_order` (or [`NONE`]).
    pub emit_index: Vec<u32>,
    /// Per block, which successors (bit 0: the first, bit 1: the second) are reached by
    /// a back edge, where the stack-limit (interrupt) check goes.
    pub back_edges: Vec<u8>,
    pub loc: Vec<Loc>,
    pub spill_slots: u32,
    /// Callee-saved registers used, as a mask.
    pub callee_used: u16,
    /// The most stack-passed arguments of any call.
    pub max_stack_args: u32,
    /// Any call of another function (the stack check is needed).
    pub calls_functions: bool,
}

pub(crate) fn successors(t: &Terminator) -> (u32, u32) {
    match *t {
        Terminator::Jump(b) => (b.0, NONE),
        Terminator::Branch {
            then_block,
            else_block,
            ..
        } => (then_block.0, else_block.0),
        _ => (NONE, NONE),
    }
}

fn inst_def(inst: &Inst) -> Option<VReg> {
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
        Inst::Call { dst, .. } => dst,
        Inst::Store { .. } | Inst::MemCopy { .. } | Inst::Print(_) => None,
    }
}

fn for_each_use(inst: &Inst, mut g: impl FnMut(VReg)) {
    match *inst {
        Inst::Const { .. } | Inst::SlotAddr { .. } | Inst::DataAddr { .. } => {}
        Inst::Copy { src, .. } | Inst::Unary { src, .. } | Inst::Cast { src, .. } => g(src),
        Inst::Binary { lhs, rhs, .. } => {
            g(lhs);
            g(rhs)
        }
        Inst::Load { addr, .. } => g(addr),
        Inst::Store { addr, src, .. } => {
            g(addr);
            g(src)
        }
        Inst::ElemAddr { base, index, .. } => {
            g(base);
            g(index)
        }
        Inst::MemCopy { dst, src, .. } => {
            g(dst);
            g(src)
        }
        Inst::Call { ref args, .. } => args.iter().for_each(|&a| g(a)),
        Inst::Print(PrintArg::Int(v)) | Inst::Print(PrintArg::Bool(v)) => g(v),
        Inst::Print(PrintArg::Str(_)) => {}
    }
}

fn term_uses(t: &Terminator, mut g: impl FnMut(VReg)) {
    match *t {
        Terminator::Branch { cond, .. } => g(cond),
        Terminator::Return(Some(v)) => g(v),
        Terminator::Panic(PanicKind::IndexOutOfBounds { index, .. }) => g(index),
        _ => {}
    }
}

fn is_pure(inst: &Inst) -> bool {
    !matches!(
        inst,
        Inst::Call { .. } | Inst::Store { .. } | Inst::MemCopy { .. } | Inst::Print(_)
    )
}

/// Whether the result `t` of `insts[i]` can be written straight into the destination of
/// the copy `insts[i + 1]` (returned).
fn copy_fusion(
    f: &IrFunction,
    insts: &[Inst],
    i: usize,
    defs: &[u32],
    uses: &[u32],
) -> Option<VReg> {
    let t = inst_def(&insts[i])?;
    let Some(Inst::Copy { dst, src }) = insts.get(i + 1) else {
        return None;
    };
    let ok = *src == t
        && *dst != t
        && f.ty(*dst) == f.ty(t)
        && defs[t.0 as usize] == 1
        && uses[t.0 as usize] == 1;
    ok.then_some(*dst)
}

/// A comparison `insts[last]` whose only use is the block's branch.
fn cmp_fusion(insts: &[Inst], term: &Terminator, defs: &[u32], uses: &[u32]) -> bool {
    let (Some(Inst::Binary { op, dst, .. }), Terminator::Branch { cond, .. }) =
        (insts.last(), term)
    else {
        return false;
    };
    is_cmp(*op) && dst == cond && defs[dst.0 as usize] == 1 && uses[dst.0 as usize] == 1
}

pub(crate) fn analyze(f: &IrFunction) -> Analysis {
    let n = f.vregs.len();
    let nb = f.blocks.len();

    // Reachability and back edges (edges to a block on the DFS stack: every cycle has
    // one), by an iterative depth-first search.
    let mut state = vec![0u8; nb]; // 0 unvisited, 1 on the stack, 2 finished
    let mut back_edges = vec![0u8; nb];
    let mut stack: Vec<(u32, u8)> = vec![(0, 0)];
    state[0] = 1;
    while let Some(top) = stack.last_mut() {
        let (b, next) = (top.0, top.1);
        if next >= 2 {
            state[b as usize] = 2;
            stack.pop();
            continue;
        }
        top.1 += 1;
        let (s1, s2) = successors(&f.blocks[b as usize].term);
        let s = if next == 0 { s1 } else { s2 };
        if s == NONE {
            continue;
        }
        match state[s as usize] {
            0 => {
                state[s as usize] = 1;
                stack.push((s, 0));
            }
            1 => back_edges[b as usize] |= 1 << next,
            _ => {}
        }
    }
    let reachable: Vec<bool> = state.iter().map(|&s| s != 0).collect();

    // Definition and use counts (over all blocks: conservative).
    let mut defs = vec![0u32; n];
    let mut uses = vec![0u32; n];
    for &p in &f.params {
        defs[p.0 as usize] += 1;
    }
    for b in &f.blocks {
        for inst in &b.insts {
            if let Some(d) = inst_def(inst) {
                defs[d.0 as usize] = defs[d.0 as usize].saturating_add(1);
            }
            for_each_use(inst, |u| {
                uses[u.0 as usize] = uses[u.0 as usize].saturating_add(1)
            });
        }
        term_uses(&b.term, |u| {
            uses[u.0 as usize] = uses[u.0 as usize].saturating_add(1)
        });
    }

    // Single-definition constants (not fused into a copy).
    let mut loc = vec![Loc::None; n];
    for b in &f.blocks {
        for (i, inst) in b.insts.iter().enumerate() {
            if let Inst::Const { dst, value } = *inst {
                if defs[dst.0 as usize] == 1 && copy_fusion(f, &b.insts, i, &defs, &uses).is_none()
                {
                    loc[dst.0 as usize] = Loc::Const(canon(f.ty(dst), value));
                }
            }
        }
    }
    let is_const = |loc: &[Loc], v: VReg| matches!(loc[v.0 as usize], Loc::Const(_));

    // Entries in position order.
    let mut entries: Vec<Entry> =
        Vec::with_capacity(f.blocks.iter().map(|b| b.insts.len() + 1).sum());
    let mut use_list: Vec<u32> = Vec::with_capacity(entries.capacity() * 2);
    let mut block_first = vec![NONE; nb];
    let mut block_term = vec![NONE; nb];
    let mut max_stack_args = 0u32;
    let mut calls_functions = false;
    for (bi, b) in f.blocks.iter().enumerate() {
        if !reachable[bi] {
            continue;
        }
        block_first[bi] = entries.len() as u32;
        let fused_cmp = cmp_fusion(&b.insts, &b.term, &defs, &uses);
        let ninsts = b.insts.len() - fused_cmp as usize;
        let mut i = 0;
        while i < ninsts {
            let inst = &b.insts[i];
            let mut def = inst_def(inst).map_or(NONE, |d| d.0);
            let mut skip_next = false;
            if let Some(v) = copy_fusion(f, &b.insts, i, &defs, &uses) {
                def = v.0;
                skip_next = true;
            } else if def != NONE
                && (is_const(&loc, VReg(def)) || (uses[def as usize] == 0 && is_pure(inst)))
            {
                i += 1;
                continue;
            }
            if def != NONE && uses[def as usize] == 0 && !skip_next {
                def = NONE;
            }
            let start = use_list.len() as u32;
            for_each_use(inst, |u| {
                if !is_const(&loc, u) {
                    use_list.push(u.0)
                }
            });
            let call = matches!(inst, Inst::Call { .. } | Inst::Print(_));
            if let Inst::Call { args, .. } = inst {
                calls_functions = true;
                max_stack_args = max_stack_args.max(args.len().saturating_sub(6) as u32);
            }
            entries.push(Entry {
                block: bi as u32,
                inst: i as u32,
                def,
                uses: start,
                nuses: use_list.len() as u32 - start,
                call,
                fused_cmp: NONE,
            });
            i += 1 + skip_next as usize;
        }
        let start = use_list.len() as u32;
        let mut fused = NONE;
        if fused_cmp {
            fused = ninsts as u32;
            if let Some(Inst::Binary { lhs, rhs, .. }) = b.insts.last() {
                for u in [*lhs, *rhs] {
                    if !is_const(&loc, u) {
                        use_list.push(u.0);
                    }
                }
            }
        } else {
            term_uses(&b.term, |u| {
                if !is_const(&loc, u) {
                    use_list.push(u.0)
                }
            });
        }
        block_term[bi] = entries.len() as u32;
        entries.push(Entry {
            block: bi as u32,
            inst: NONE,
            def: NONE,
            uses: start,
            nuses: use_list.len() as u32 - start,
            call: false,
            fused_cmp: fused,
        });
    }

    // Emission order: greedy fall-through chains (a block's first hot unplaced
    // successor comes next), starting from the entry and then from the next unplaced
    // block in IR order; cold blocks (panics, `Unreachable`) last.
    let cold = |b: usize| {
        matches!(
            f.blocks[b].term,
            Terminator::Panic(_) | Terminator::Unreachable
        )
    };
    let mut emit_order: Vec<u32> = Vec::with_capacity(nb);
    let mut placed = vec![false; nb];
    let mut seed = 0usize;
    let mut cur = Some(0u32);
    loop {
        let b = match cur {
            Some(b) => b,
            None => {
                while seed < nb && (placed[seed] || !reachable[seed] || cold(seed)) {
                    seed += 1;
                }
                if seed == nb {
                    break;
                }
                seed as u32
            }
        };
        placed[b as usize] = true;
        emit_order.push(b);
        let (s1, s2) = successors(&f.blocks[b as usize].term);
        cur = [s1, s2]
            .into_iter()
            .find(|&s| s != NONE && !placed[s as usize] && !cold(s as usize));
    }
    emit_order.extend(
        (0..nb)
            .filter(|&b| reachable[b] && !placed[b])
            .map(|b| b as u32),
    );
    let mut emit_index = vec![NONE; nb];
    for (i, &b) in emit_order.iter().enumerate() {
        emit_index[b as usize] = i as u32;
    }

    // Liveness over registers live across block boundaries ("globals").
    let pos_blocks: Vec<u32> = (0..nb as u32).filter(|&b| reachable[b as usize]).collect();
    let npb = pos_blocks.len();
    let mut dense = vec![NONE; nb];
    for (i, &b) in pos_blocks.iter().enumerate() {
        dense[b as usize] = i as u32;
    }
    let mut last_def = vec![NONE; n];
    let mut global_id = vec![NONE; n];
    let mut globals: Vec<u32> = Vec::new();
    let mut gen_pairs: Vec<(u32, u32)> = Vec::new();
    for (pi, &b) in pos_blocks.iter().enumerate() {
        let (lo, hi) = (block_first[b as usize], block_term[b as usize]);
        for e in &entries[lo as usize..=hi as usize] {
            for &u in &use_list[e.uses as usize..(e.uses + e.nuses) as usize] {
                if last_def[u as usize] != pi as u32 {
                    if global_id[u as usize] == NONE {
                        global_id[u as usize] = globals.len() as u32;
                        globals.push(u);
                    }
                    gen_pairs.push((pi as u32, global_id[u as usize]));
                }
            }
            if e.def != NONE {
                last_def[e.def as usize] = pi as u32;
            }
        }
    }
    let words = globals.len().div_ceil(64);
    let mut live_in = vec![0u64; npb * words];
    let mut live_out = vec![0u64; npb * words];
    if words > 0 {
        let mut gen = vec![0u64; npb * words];
        let mut kill = vec![0u64; npb * words];
        for &(pi, g) in &gen_pairs {
            gen[pi as usize * words + g as usize / 64] |= 1 << (g % 64);
        }
        for (pi, &b) in pos_blocks.iter().enumerate() {
            let (lo, hi) = (block_first[b as usize], block_term[b as usize]);
            for e in &entries[lo as usize..=hi as usize] {
                if e.def != NONE && global_id[e.def as usize] != NONE {
                    let g = global_id[e.def as usize] as usize;
                    kill[pi * words + g / 64] |= 1 << (g % 64);
                }
            }
        }
        let mut changed = true;
        let mut out = vec![0u64; words];
        while changed {
            changed = false;
            for pi in (0..npb).rev() {
                out.fill(0);
                let (s1, s2) = successors(&f.blocks[pos_blocks[pi] as usize].term);
                for s in [s1, s2] {
                    if s != NONE {
                        let si = dense[s as usize] as usize;
                        for w in 0..words {
                            out[w] |= live_in[si * words + w];
                        }
                    }
                }
                for w in 0..words {
                    let i = pi * words + w;
                    let new_in = gen[i] | (out[w] & !kill[i]);
                    if out[w] != live_out[i] || new_in != live_in[i] {
                        live_out[i] = out[w];
                        live_in[i] = new_in;
                        changed = true;
                    }
                }
            }
        }
    }

    // Intervals.
    let mut start = vec![u32::MAX; n];
    let mut end = vec![0u32; n];
    fn extend_at(start: &mut [u32], end: &mut [u32], v: u32, p: u32) {
        let v = v as usize;
        start[v] = start[v].min(p);
        end[v] = end[v].max(p);
    }
    let mut extend = |v: u32, p: u32| extend_at(&mut start, &mut end, v, p);
    for (pi, &b) in pos_blocks.iter().enumerate() {
        let bstart = 2 * block_first[b as usize];
        let bend = 2 * block_term[b as usize] + 1;
        for w in 0..words {
            let mut bits = live_in[pi * words + w];
            while bits != 0 {
                let g = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                extend(globals[g], bstart);
            }
            let mut bits = live_out[pi * words + w];
            while bits != 0 {
                let g = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                extend(globals[g], bend);
            }
        }
    }
    for (k, e) in entries.iter().enumerate() {
        for &u in &use_list[e.uses as usize..(e.uses + e.nuses) as usize] {
            extend(u, 2 * k as u32);
        }
        if e.def != NONE {
            extend(e.def, 2 * k as u32 + 1);
        }
    }
    for &p in &f.params {
        if start[p.0 as usize] != u32::MAX {
            start[p.0 as usize] = 0;
        }
    }

    // Calls, as a prefix count over entries.
    let mut calls_before = Vec::with_capacity(entries.len() + 1);
    let mut c = 0u32;
    for e in &entries {
        calls_before.push(c);
        c += e.call as u32;
    }
    calls_before.push(c);
    let crosses = |s: u32, e: u32| -> bool {
        // A call at entry k is crossed if s <= 2k and e >= 2k + 2.
        if e < 2 {
            return false;
        }
        let lo = s.div_ceil(2) as usize;
        let hi = ((e - 2) / 2) as usize + 1;
        lo < hi && calls_before[hi.min(entries.len())] > calls_before[lo.min(entries.len())]
    };

    // Hints: a register the value would like (to make a move disappear).
    let mut hint = vec![NONE; n];
    const PHYS: u32 = 1 << 31;
    for (j, &p) in f.params.iter().enumerate().take(6) {
        let r = ARG_REGS[j];
        if ALLOCATABLE & (1 << r) != 0 {
            hint[p.0 as usize] = PHYS | r as u32;
        }
    }
    for e in &entries {
        if e.inst == NONE || e.def == NONE || hint[e.def as usize] != NONE {
            continue;
        }
        let inst = &f.blocks[e.block as usize].insts[e.inst as usize];
        hint[e.def as usize] = match *inst {
            Inst::Copy { src, .. } | Inst::Cast { src, .. } | Inst::Unary { src, .. } => src.0,
            Inst::Binary { lhs, op, .. } if !is_cmp(op) => lhs.0,
            _ => NONE,
        };
    }

    // Linear scan.
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&v| start[v as usize] != u32::MAX && !matches!(loc[v as usize], Loc::Const(_)))
        .collect();
    order.sort_unstable_by_key(|&v| (start[v as usize], v));
    let mut free: u16 = ALLOCATABLE;
    let mut active: Vec<(u32, u32, u8)> = Vec::with_capacity(16); // (end, vreg, reg)
    let mut spilled: Vec<u32> = Vec::new();
    let mut callee_used = 0u16;
    for &v in &order {
        let (s, e) = (start[v as usize], end[v as usize]);
        active.retain(|&(ae, _, r)| {
            if ae < s {
                free |= 1 << r;
                false
            } else {
                true
            }
        });
        let crossing = crosses(s, e);
        let allowed = if crossing { CALLEE_SAVED } else { ALLOCATABLE };
        let avail = free & allowed;
        let reg = if avail != 0 {
            let h = hint[v as usize];
            let hr = if h == NONE {
                None
            } else if h & PHYS != 0 {
                Some((h & !PHYS) as u8)
            } else if let Loc::Reg(r) = loc[h as usize] {
                Some(r)
            } else {
                None
            };
            match hr {
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
            let cand = active
                .iter()
                .enumerate()
                .filter(|(_, a)| allowed & (1 << a.2) != 0)
                .max_by_key(|(_, a)| (a.0, a.1))
                .map(|(i, a)| (i, *a));
            match cand {
                Some((i, (ae, av, r))) if ae > e => {
                    active.swap_remove(i);
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
            callee_used |= 1 << reg;
        }
        loc[v as usize] = Loc::Reg(reg);
        active.push((e, v, reg));
    }

    // Stack slots for spilled intervals, reused once an interval ends.
    spilled.sort_unstable_by_key(|&v| (start[v as usize], v));
    let mut busy: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    let mut free_slots: Vec<u32> = Vec::new();
    let mut spill_slots = 0u32;
    for &v in &spilled {
        while let Some(&Reverse((e, slot))) = busy.peek() {
            if e < start[v as usize] {
                busy.pop();
                free_slots.push(slot);
            } else {
                break;
            }
        }
        let slot = free_slots.pop().unwrap_or_else(|| {
            spill_slots += 1;
            spill_slots - 1
        });
        loc[v as usize] = Loc::Spill(slot);
        busy.push(Reverse((end[v as usize], slot)));
    }

    Analysis {
        entries,
        block_first,
        block_term,
        emit_order,
        emit_index,
        back_edges,
        loc,
        spill_slots,
        callee_used,
        max_stack_args,
        calls_functions,
    }
}

/// Whether a value of this type lives in 64 bits.
pub(crate) fn wide(ty: ScalarTy) -> bool {
    super::validate::is_wide(ty)
}
