//! The function under construction: registers, slots, data blobs and basic blocks, with
//! a cursor on the block being filled.
//!
//! Blocks are filled one at a time: code is appended to the current block until a
//! terminator ends it, then lowering switches to another block and never comes back.
//! The builder tracks whether the current block can be reached (a block is reachable
//! once a reachable block jumps to it; lowering switches to a block only after its
//! forward predecessors are emitted), so that lowering can skip statements after a
//! diverging expression. [`Builder::finish`] drops unreachable blocks and orders the
//! rest in reverse post-order, which keeps a branch's `then` side right after it.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::ir::{
    BasicBlock, BlockId, DataId, Inst, IrFunction, PanicKind, ScalarTy, Slot, SlotId, Terminator,
    VReg,
};
use crate::sema::def::DefId;

/// The constants of the current block: a short list scanned linearly (blocks hold few
/// constants), and a table for the rest once the list is full.
struct BlockConsts {
    first: Vec<(ScalarTy, u64, VReg)>,
    rest: FxHashMap<(ScalarTy, u64), VReg>,
}

impl BlockConsts {
    const SCANNED: usize = 16;

    fn new() -> BlockConsts {
        BlockConsts {
            first: Vec::new(),
            rest: FxHashMap::default(),
        }
    }

    fn get(&self, ty: ScalarTy, value: u64) -> Option<VReg> {
        for &(t, v, r) in &self.first {
            if v == value && t == ty {
                return Some(r);
            }
        }
        if self.rest.is_empty() {
            return None;
        }
        self.rest.get(&(ty, value)).copied()
    }

    fn insert(&mut self, ty: ScalarTy, value: u64, reg: VReg) {
        if self.first.len() < Self::SCANNED {
            self.first.push((ty, value, reg));
        } else {
            self.rest.insert((ty, value), reg);
        }
    }

    fn clear(&mut self) {
        self.first.clear();
        // `clear` costs the table's capacity: skip it when there is nothing to forget.
        if !self.rest.is_empty() {
            self.rest.clear();
        }
    }
}

struct BlockData {
    insts: Vec<Inst>,
    term: Option<Terminator>,
    /// A reachable block jumps here (or this is the entry).
    reached: bool,
}

pub(super) struct Builder {
    vregs: Vec<ScalarTy>,
    slots: Vec<Slot>,
    data: Vec<Arc<[u8]>>,
    data_index: FxHashMap<Arc<[u8]>, DataId>,
    blocks: Vec<BlockData>,
    cur: BlockId,
    /// The current block's instructions, moved into the block when lowering switches
    /// away (one buffer reused for every block, so filling a block does not regrow).
    cur_insts: Vec<Inst>,
    /// Whether the current block is reachable.
    pub(super) live: bool,
    /// Registers holding constants and addresses already computed in the current block;
    /// they are never reassigned, so the current block may reuse them.
    consts: BlockConsts,
    /// By slot: the register holding its address in the current block, if any (the
    /// slots set are listed in `slot_addrs_set`, to forget them when the block ends).
    slot_addrs: Vec<Option<VReg>>,
    slot_addrs_set: Vec<SlotId>,
    data_addrs: FxHashMap<DataId, VReg>,
    /// The shared block that panics with each payload-free kind.
    panic_blocks: [Option<BlockId>; 4],
    /// Buffers of [`Builder::finish`]: each block's resolved jump target, new numbers,
    /// post-order, and the depth-first search's stack.
    resolved: Vec<BlockId>,
    new_id: Vec<u32>,
    post: Vec<usize>,
    dfs: Vec<(usize, usize)>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// An empty builder; [`Builder::start`] prepares it for a function.
    pub(super) fn new() -> Builder {
        Builder {
            vregs: Vec::new(),
            slots: Vec::new(),
            data: Vec::new(),
            data_index: FxHashMap::default(),
            blocks: Vec::new(),
            cur: BlockId(0),
            cur_insts: Vec::new(),
            live: true,
            consts: BlockConsts::new(),
            slot_addrs: Vec::new(),
            slot_addrs_set: Vec::new(),
            data_addrs: FxHashMap::default(),
            panic_blocks: [None; 4],
            resolved: Vec::new(),
            new_id: Vec::new(),
            post: Vec::new(),
            dfs: Vec::new(),
        }
    }

    /// Starts a function whose body has `exprs` expressions (a hint for initial
    /// capacities), forgetting everything about the previous one but the buffers.
    pub(super) fn start(&mut self, exprs: usize) {
        self.vregs = Vec::with_capacity(exprs + 8);
        self.slots = Vec::new();
        self.data = Vec::new();
        if !self.data_index.is_empty() {
            self.data_index.clear();
        }
        self.blocks.clear();
        self.blocks.reserve(exprs / 4 + 4);
        self.cur = BlockId(0);
        self.cur_insts.clear();
        self.live = true;
        self.consts.clear();
        self.slot_addrs.clear();
        self.slot_addrs_set.clear();
        if !self.data_addrs.is_empty() {
            self.data_addrs.clear();
        }
        self.panic_blocks = [None; 4];
        let entry = self.new_block();
        self.blocks[entry.0 as usize].reached = true;
    }

    pub(super) fn new_vreg(&mut self, ty: ScalarTy) -> VReg {
        self.vregs.push(ty);
        VReg(self.vregs.len() as u32 - 1)
    }

    pub(super) fn vreg_ty(&self, v: VReg) -> ScalarTy {
        self.vregs[v.0 as usize]
    }

    pub(super) fn new_slot(&mut self, size: u32, align: u32) -> SlotId {
        self.slots.push(Slot { size, align });
        SlotId(self.slots.len() as u32 - 1)
    }

    /// A read-only blob with these bytes (one blob per distinct content).
    pub(super) fn data(&mut self, bytes: &[u8]) -> DataId {
        if let Some(&id) = self.data_index.get(bytes) {
            return id;
        }
        let blob: Arc<[u8]> = Arc::from(bytes);
        let id = DataId(self.data.len() as u32);
        self.data.push(blob.clone());
        self.data_index.insert(blob, id);
        id
    }

    pub(super) fn new_block(&mut self) -> BlockId {
        self.blocks.push(BlockData {
            insts: Vec::new(),
            term: None,
            reached: false,
        });
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub(super) fn emit(&mut self, inst: Inst) {
        self.cur_insts.push(inst);
    }

    /// Moves the buffered instructions into the current block.
    fn flush(&mut self) {
        if !self.cur_insts.is_empty() {
            let insts = &mut self.blocks[self.cur.0 as usize].insts;
            insts.reserve_exact(self.cur_insts.len());
            insts.append(&mut self.cur_insts);
        }
    }

    /// Ends the current block. Lowering must [`switch_to`](Self::switch_to) another
    /// block before emitting more code.
    pub(super) fn terminate(&mut self, term: Terminator) {
        if self.live {
            let mut mark = |b: BlockId| self.blocks[b.0 as usize].reached = true;
            match &term {
                Terminator::Jump(b) => mark(*b),
                Terminator::Branch {
                    then_block,
                    else_block,
                    ..
                } => {
                    mark(*then_block);
                    mark(*else_block);
                }
                Terminator::Return(_) | Terminator::Panic(_) | Terminator::Unreachable => {}
            }
        }
        let block = &mut self.blocks[self.cur.0 as usize];
        if block.term.is_none() {
            block.term = Some(term);
        }
    }

    pub(super) fn switch_to(&mut self, b: BlockId) {
        self.flush();
        self.cur = b;
        self.live = self.blocks[b.0 as usize].reached;
        self.consts.clear();
        for s in self.slot_addrs_set.drain(..) {
            self.slot_addrs[s.0 as usize] = None;
        }
        // `clear` costs the table's capacity: skip it when there is nothing to forget.
        if !self.data_addrs.is_empty() {
            self.data_addrs.clear();
        }
    }

    pub(super) fn goto(&mut self, target: BlockId) {
        self.terminate(Terminator::Jump(target));
    }

    /// Ends the current block with a terminator that does not continue here (`return`,
    /// `break`, a panic, …); what follows is lowered into a fresh, unreachable block.
    pub(super) fn diverge(&mut self, term: Terminator) {
        self.terminate(term);
        let dead = self.new_block();
        self.switch_to(dead);
    }

    /// Branches on `cond`; continues in the `then` side and returns the `else` block.
    pub(super) fn branch_then(&mut self, cond: VReg) -> BlockId {
        let then_block = self.new_block();
        let else_block = self.new_block();
        self.terminate(Terminator::Branch {
            cond,
            then_block,
            else_block,
        });
        self.switch_to(then_block);
        else_block
    }

    /// Continues when `ok` is true; panics with `kind` otherwise.
    pub(super) fn check(&mut self, ok: VReg, kind: PanicKind) {
        let slot = match kind {
            PanicKind::DivByZero => Some(0),
            PanicKind::RemByZero => Some(1),
            PanicKind::DivOverflow => Some(2),
            PanicKind::RemOverflow => Some(3),
            PanicKind::IndexOutOfBounds { .. } => None,
        };
        let panic_block = match slot.and_then(|i| self.panic_blocks[i]) {
            Some(b) => b,
            None => {
                let b = self.new_block();
                self.blocks[b.0 as usize].term = Some(Terminator::Panic(kind));
                if let Some(i) = slot {
                    self.panic_blocks[i] = Some(b);
                }
                b
            }
        };
        let cont = self.new_block();
        self.terminate(Terminator::Branch {
            cond: ok,
            then_block: cont,
            else_block: panic_block,
        });
        self.switch_to(cont);
    }

    /// A register holding `value` (canonical bits), shared within the current block.
    pub(super) fn const_reg(&mut self, ty: ScalarTy, value: u64) -> VReg {
        if let Some(v) = self.consts.get(ty, value) {
            return v;
        }
        let dst = self.new_vreg(ty);
        self.emit(Inst::Const { dst, value });
        self.consts.insert(ty, value, dst);
        dst
    }

    pub(super) fn slot_addr(&mut self, slot: SlotId) -> VReg {
        let i = slot.0 as usize;
        if let Some(Some(v)) = self.slot_addrs.get(i) {
            return *v;
        }
        let dst = self.new_vreg(ScalarTy::Ptr);
        self.emit(Inst::SlotAddr { dst, slot });
        if self.slot_addrs.len() <= i {
            self.slot_addrs.resize(self.slots.len().max(i + 1), None);
        }
        self.slot_addrs[i] = Some(dst);
        self.slot_addrs_set.push(slot);
        dst
    }

    pub(super) fn data_addr(&mut self, data: DataId) -> VReg {
        if let Some(&v) = self.data_addrs.get(&data) {
            return v;
        }
        let dst = self.new_vreg(ScalarTy::Ptr);
        self.emit(Inst::DataAddr { dst, data });
        self.data_addrs.insert(data, dst);
        dst
    }

    /// Where a jump or branch to each block should go (into `resolved`): to the end of
    /// the chain of blocks that are empty and only jump on (`loop {}`'s self-loop
    /// included, without looping).
    fn jump_targets(&mut self) {
        self.flush();
        let n = self.blocks.len();
        let forward = |blocks: &[BlockData], b: BlockId| -> Option<BlockId> {
            let data = &blocks[b.0 as usize];
            match data.term {
                Some(Terminator::Jump(t)) if data.insts.is_empty() && b.0 != 0 => Some(t),
                _ => None,
            }
        };
        // `UNRESOLVED` until computed.
        const UNRESOLVED: BlockId = BlockId(u32::MAX);
        let resolved = &mut self.resolved;
        resolved.clear();
        resolved.resize(n, UNRESOLVED);
        for start in 0..n {
            let mut b = BlockId(start as u32);
            let mut steps = 0;
            while let Some(t) = forward(&self.blocks, b) {
                let r = resolved[t.0 as usize];
                if r != UNRESOLVED {
                    b = r;
                    break;
                }
                b = t;
                steps += 1;
                if steps > n {
                    break;
                }
            }
            resolved[start] = b;
        }
    }

    /// The finished function: jumps through empty blocks go straight to their target,
    /// unreachable blocks are dropped, and the rest come in reverse post-order from the
    /// entry (a branch's `then` side first).
    pub(super) fn finish(
        &mut self,
        def: DefId,
        name: String,
        params: Vec<VReg>,
        sret: bool,
        ret: Option<ScalarTy>,
    ) -> IrFunction {
        self.jump_targets();
        let n = self.blocks.len();
        let target = &self.resolved;
        let blocks_data = &mut self.blocks;
        // The `k`-th successor of a block, counting from the last one, so that the first
        // successor is visited last and comes first in reverse post-order.
        let succ_from_last = |blocks: &[BlockData], b: usize, k: usize| -> Option<usize> {
            let t = match &blocks[b].term {
                Some(Terminator::Jump(t)) if k == 0 => *t,
                Some(Terminator::Branch {
                    then_block,
                    else_block,
                    ..
                }) => match k {
                    0 => *else_block,
                    1 => *then_block,
                    _ => return None,
                },
                _ => return None,
            };
            Some(target[t.0 as usize].0 as usize)
        };
        // Iterative depth-first search: (block, successors visited so far). `new_id`
        // doubles as the visited set (`u32::MAX`: not reached) until it is filled in.
        const UNSEEN: u32 = u32::MAX;
        const SEEN: u32 = u32::MAX - 1;
        let new_id = &mut self.new_id;
        new_id.clear();
        new_id.resize(n, UNSEEN);
        let post = &mut self.post;
        post.clear();
        let stack = &mut self.dfs;
        stack.clear();
        stack.push((0, 0));
        new_id[0] = SEEN;
        while let Some((b, k)) = stack.last_mut() {
            match succ_from_last(blocks_data, *b, *k) {
                Some(s) => {
                    *k += 1;
                    if new_id[s] == UNSEEN {
                        new_id[s] = SEEN;
                        stack.push((s, 0));
                    }
                }
                None => {
                    post.push(*b);
                    stack.pop();
                }
            }
        }
        for (i, &b) in post.iter().rev().enumerate() {
            new_id[b] = i as u32;
        }
        let remap = |b: BlockId| BlockId(new_id[target[b.0 as usize].0 as usize]);
        let mut blocks = Vec::with_capacity(post.len());
        for &b in post.iter().rev() {
            let data = &mut blocks_data[b];
            debug_assert!(
                data.reached,
                "block {b} is reachable but was lowered as dead"
            );
            let term = match data.term.take().unwrap_or(Terminator::Unreachable) {
                Terminator::Jump(t) => Terminator::Jump(remap(t)),
                Terminator::Branch {
                    cond,
                    then_block,
                    else_block,
                } => Terminator::Branch {
                    cond,
                    then_block: remap(then_block),
                    else_block: remap(else_block),
                },
                other => other,
            };
            blocks.push(BasicBlock {
                insts: std::mem::take(&mut data.insts),
                term,
            });
        }
        // The blobs are the function's now; the table is not needed any more.
        if !self.data_index.is_empty() {
            self.data_index.clear();
        }
        IrFunction {
            def,
            name,
            params,
            sret,
            ret,
            vregs: std::mem::take(&mut self.vregs),
            slots: std::mem::take(&mut self.slots),
            data: std::mem::take(&mut self.data),
            blocks,
        }
    }
}
