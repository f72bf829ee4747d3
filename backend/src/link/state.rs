//! The incremental link state: the code buffer with a slot per function, each function's
//! relocations, and the reverse index from a callee to the functions that call it.
//!
//! A link from scratch ([`LinkState::link`]) places the functions one after another, each
//! in a slot exactly as large as its bytes rounded up to 16. A patch
//! ([`LinkState::patch`]) rewrites a changed function in its slot when it fits and
//! otherwise moves it to the end of the buffer, in a slot with a quarter of slack; the
//! call sites of the functions that moved are re-patched through the reverse index, so
//! the work grows with the change, not with the program. The run context follows the
//! code with slack too; when the code outgrows it, or when the holes left by moved and
//! removed functions exceed the live code, every relocation is patched again (a rare,
//! whole-program step, counted in [`PatchStats`]).
//!
//! Every relocation is PC-relative and every function's slot is 16-byte aligned, so the
//! bytes of the buffer are those a from-scratch link produces when it places the
//! functions the same way ([`LinkState::link_at`]), and the hash is the same whatever the
//! placement.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use shared_frontend::sema::def::DefId;

use super::hash::{entry_hash, function_hash};
use super::{align_up, runtime_index, Image, LinkError, CONTEXT_WORDS, MAX_IMAGE, PAGE};
use crate::blob::{CodeBlob, RelocTarget, Relocation};

/// One function's place in the buffer and what patching it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub def: DefId,
    /// Start in the buffer (16-byte aligned).
    pub offset: u32,
    /// Length of the function's bytes.
    pub len: u32,
    /// Bytes reserved for it (`len` rounded up to 16, plus slack once it has moved).
    pub cap: u32,
    pub params: u32,
    pub relocs: Vec<Relocation>,
    /// Its part of the image hash ([`function_hash`]).
    pub hash: u128,
}

/// The incremental linker's state (see the module documentation).
#[derive(Clone, Debug)]
pub struct LinkState {
    /// The patched code and data of every function, holes zeroed.
    pub(crate) code: Vec<u8>,
    pub(crate) slots: Vec<Slot>,
    /// Slot index by def-id.
    index: FxHashMap<DefId, usize>,
    /// Callee → the functions that call it (derived from the slots' relocations).
    callers: FxHashMap<DefId, FxHashSet<DefId>>,
    pub(crate) main: DefId,
    /// Offset of the run context page in the image (page-aligned, at least the buffer's
    /// length).
    pub(crate) context: usize,
    /// The image hash: the sum of the slots' hashes and the entry point's.
    hash: u128,
    /// Bytes of the buffer in slots (the rest are holes).
    live: usize,
}

/// Where a link placed each function: its offset and slot size, and the context page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub context: usize,
    pub slots: Vec<(DefId, usize, usize)>,
}

/// What a [`LinkState::patch`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PatchStats {
    /// Changed functions rewritten in their slots.
    pub rewritten: usize,
    /// Changed functions that outgrew their slots and moved to the end.
    pub moved: usize,
    pub added: usize,
    pub removed: usize,
    /// Call sites in unchanged functions re-patched because their callee moved.
    pub call_sites: usize,
    /// The code outgrew the context's slack: every runtime and context reference was
    /// patched again.
    pub context_moved: bool,
    /// The holes outgrew the live code: the slots were packed and every relocation
    /// patched again.
    pub compacted: bool,
}

/// The context page's offset for `end` bytes of code: after it, with an eighth of slack
/// for growth.
fn context_for(end: usize) -> usize {
    align_up(end + end / 8 + 1, PAGE)
}

/// The slot size of a function of `len` bytes placed by a patch: a quarter of slack.
fn moved_cap(len: usize) -> usize {
    align_up(len + len / 4, 16).max(16)
}

/// Checks `blob`'s relocations against the parameter counts `params_of` gives.
fn check_relocs(
    def: DefId,
    blob: &CodeBlob,
    params_of: impl Fn(DefId) -> Option<u32>,
) -> Result<(), LinkError> {
    for r in &blob.relocations {
        if r.offset as usize + 4 > blob.bytes.len() {
            return Err(LinkError::BadRelocation(def));
        }
        if let RelocTarget::Function { callee, args } = r.target {
            check_call(def, callee, args, params_of(callee))?;
        }
    }
    Ok(())
}

fn check_call(
    caller: DefId,
    callee: DefId,
    args: u32,
    params: Option<u32>,
) -> Result<(), LinkError> {
    match params {
        None => Err(LinkError::UnresolvedFunction { caller, callee }),
        Some(params) if params != args => Err(LinkError::ArityMismatch {
            caller,
            callee,
            args,
            params,
        }),
        Some(_) => Ok(()),
    }
}

/// Writes `S + addend - P` into the field of relocation `r` of the function at `base`.
fn write_reloc(code: &mut [u8], base: usize, r: &Relocation, target: usize) {
    let p = base + r.offset as usize;
    let v = target as i64 + r.addend as i64 - p as i64;
    if let Some(field) = code.get_mut(p..p + 4) {
        field.copy_from_slice(&(v as i32).to_le_bytes());
    }
}

impl LinkState {
    /// Links `blobs` from scratch, placing them in this order, with entry point `main`.
    /// The checks and errors are those of [`super::link`].
    pub fn link(blobs: &[(DefId, Arc<CodeBlob>)], main: DefId) -> Result<LinkState, LinkError> {
        let mut placed = Vec::with_capacity(blobs.len());
        let mut cur = 0usize;
        let mut seen: FxHashSet<DefId> = FxHashSet::default();
        seen.reserve(blobs.len());
        for (def, blob) in blobs {
            if !seen.insert(*def) {
                return Err(LinkError::DuplicateFunction(*def));
            }
            let cap = align_up(blob.bytes.len(), 16);
            placed.push((cur, cap));
            cur += cap;
            if cur > MAX_IMAGE {
                return Err(LinkError::TooLarge);
            }
        }
        Self::place(blobs, main, placed, cur, context_for(cur))
    }

    /// Links `blobs` from scratch at the offsets and slot sizes of `layout` (which must
    /// hold every blob, without overlap, below its context page): the bytes a patched
    /// state with this layout must have.
    pub fn link_at(
        blobs: &[(DefId, Arc<CodeBlob>)],
        main: DefId,
        layout: &Layout,
    ) -> Result<LinkState, LinkError> {
        let at: FxHashMap<DefId, (usize, usize)> =
            layout.slots.iter().map(|&(d, o, c)| (d, (o, c))).collect();
        let mut placed = Vec::with_capacity(blobs.len());
        let mut end = 0;
        for (def, blob) in blobs {
            match at.get(def) {
                Some(&(o, c)) if o % 16 == 0 && blob.bytes.len() <= c && c % 16 == 0 => {
                    placed.push((o, c));
                    end = end.max(o + c);
                }
                _ => return Err(LinkError::BadLayout),
            }
        }
        let mut sorted = placed.clone();
        sorted.sort_unstable();
        let overlap = sorted.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0);
        if overlap || layout.context % PAGE != 0 || layout.context < end.max(1) || end > MAX_IMAGE {
            return Err(LinkError::BadLayout);
        }
        let end = layout
            .slots
            .iter()
            .map(|&(_, o, c)| o + c)
            .max()
            .unwrap_or(0)
            .max(end);
        if end > layout.context {
            return Err(LinkError::BadLayout);
        }
        Self::place(blobs, main, placed, end, layout.context)
    }

    /// Checks `blobs` and writes them at `placed` (offset and slot size each) in a buffer
    /// of `end` bytes, with the context page at `context`.
    fn place(
        blobs: &[(DefId, Arc<CodeBlob>)],
        main: DefId,
        placed: Vec<(usize, usize)>,
        end: usize,
        context: usize,
    ) -> Result<LinkState, LinkError> {
        let mut index: FxHashMap<DefId, usize> = FxHashMap::default();
        index.reserve(blobs.len());
        for (i, (def, _)) in blobs.iter().enumerate() {
            if index.insert(*def, i).is_some() {
                return Err(LinkError::DuplicateFunction(*def));
            }
        }
        let params_of = |d: DefId| index.get(&d).map(|&j| blobs[j].1.params);
        match params_of(main) {
            None => return Err(LinkError::NoMain(main)),
            Some(p) if p != 0 => return Err(LinkError::MainTakesParameters(main)),
            Some(_) => {}
        }
        for (def, blob) in blobs {
            check_relocs(*def, blob, params_of)?;
        }
        let mut state = LinkState {
            code: vec![0; end],
            slots: Vec::with_capacity(blobs.len()),
            index,
            callers: FxHashMap::default(),
            main,
            context,
            hash: entry_hash(main),
            live: 0,
        };
        for ((def, blob), &(offset, cap)) in blobs.iter().zip(&placed) {
            state.code[offset..offset + blob.bytes.len()].copy_from_slice(&blob.bytes);
            let slot = Slot {
                def: *def,
                offset: offset as u32,
                len: blob.bytes.len() as u32,
                cap: cap as u32,
                params: blob.params,
                relocs: blob.relocations.clone(),
                hash: function_hash(*def, blob),
            };
            state.add_edges(&slot);
            state.hash = state.hash.wrapping_add(slot.hash);
            state.live += cap;
            state.slots.push(slot);
        }
        for i in 0..state.slots.len() {
            state.patch_slot(i, None);
        }
        Ok(state)
    }

    /// Rebuilds the derived parts (index, reverse index, hash, live bytes) of a state
    /// made of stored parts, checking everything a patch or an image relies on, so that a
    /// state decoded from damaged bytes is an error, never a panic or wrong code
    /// placement.
    pub(crate) fn from_parts(
        code: Vec<u8>,
        slots: Vec<Slot>,
        main: DefId,
        context: usize,
    ) -> Result<LinkState, &'static str> {
        if code.len() > MAX_IMAGE || context % PAGE != 0 || context < code.len().max(1) {
            return Err("the buffer or the context page is out of range");
        }
        if context > MAX_IMAGE + MAX_IMAGE / 8 + PAGE {
            return Err("the context page is out of range");
        }
        let mut state = LinkState {
            code,
            slots: Vec::new(),
            index: FxHashMap::default(),
            callers: FxHashMap::default(),
            main,
            context,
            hash: entry_hash(main),
            live: 0,
        };
        let mut ranges = Vec::with_capacity(slots.len());
        state.index.reserve(slots.len());
        for (i, s) in slots.iter().enumerate() {
            let (o, len, cap) = (s.offset as usize, s.len as usize, s.cap as usize);
            if o % 16 != 0 || cap % 16 != 0 || len > cap || o + cap > state.code.len() {
                return Err("a slot outside the buffer");
            }
            if s.relocs.iter().any(|r| r.offset as usize + 4 > len) {
                return Err("a relocation outside its function");
            }
            if state.index.insert(s.def, i).is_some() {
                return Err("two slots of one function");
            }
            ranges.push((o, cap));
        }
        ranges.sort_unstable();
        if ranges.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
            return Err("overlapping slots");
        }
        let params_of = |d: DefId| state.index.get(&d).map(|&j| slots[j].params);
        if params_of(main) != Some(0) {
            return Err("no entry point without parameters");
        }
        for s in &slots {
            for r in &s.relocs {
                if let RelocTarget::Function { callee, args } = r.target {
                    if params_of(callee) != Some(args) {
                        return Err("an unresolved call");
                    }
                }
            }
        }
        for s in &slots {
            state.add_edges(s);
            state.hash = state.hash.wrapping_add(s.hash);
            state.live += s.cap as usize;
        }
        state.slots = slots;
        Ok(state)
    }

    /// The image hash of the linked program.
    pub fn hash(&self) -> u128 {
        self.hash
    }

    /// The entry point.
    pub fn main(&self) -> DefId {
        self.main
    }

    /// The number of functions linked.
    pub fn functions(&self) -> usize {
        self.slots.len()
    }

    /// Whether function `def` is linked.
    pub fn contains(&self, def: DefId) -> bool {
        self.index.contains_key(&def)
    }

    /// The linked functions' def-ids, in no particular order.
    pub fn defs(&self) -> impl Iterator<Item = DefId> + '_ {
        self.slots.iter().map(|s| s.def)
    }

    /// The patched buffer (the image's code, holes zeroed).
    pub fn code(&self) -> &[u8] {
        &self.code
    }

    /// Where each function is placed.
    pub fn layout(&self) -> Layout {
        let mut slots: Vec<_> = self
            .slots
            .iter()
            .map(|s| (s.def, s.offset as usize, s.cap as usize))
            .collect();
        slots.sort_unstable_by_key(|&(_, o, _)| o);
        Layout {
            context: self.context,
            slots,
        }
    }

    /// The runnable image: the buffer copied into a new mapping (W^X as always).
    pub fn image(&self) -> Result<Image, LinkError> {
        let layout = self.layout();
        let offsets = layout.slots.iter().map(|&(d, o, _)| (d, o)).collect();
        let main = self
            .index
            .get(&self.main)
            .map_or(0, |&i| self.slots[i].offset as usize);
        Image::map(&self.code, self.context, main, offsets, self.hash)
    }

    /// Applies a change of the program: the functions of `changed` are new or have new
    /// code, those of `removed` are gone (a def-id in both counts as changed; a removed
    /// one that is not linked is ignored), and the entry point is `main`.
    ///
    /// The checks are those of a link from scratch (with the same errors; when there are
    /// several, which one is reported may differ). On an error nothing has changed.
    pub fn patch(
        &mut self,
        changed: &[(DefId, Arc<CodeBlob>)],
        removed: &[DefId],
        main: DefId,
    ) -> Result<PatchStats, LinkError> {
        // Check everything before touching anything.
        let mut changed_at: FxHashMap<DefId, usize> = FxHashMap::default();
        changed_at.reserve(changed.len());
        for (i, (def, _)) in changed.iter().enumerate() {
            if changed_at.insert(*def, i).is_some() {
                return Err(LinkError::DuplicateFunction(*def));
            }
        }
        let removed: FxHashSet<DefId> = removed
            .iter()
            .copied()
            .filter(|d| !changed_at.contains_key(d) && self.index.contains_key(d))
            .collect();
        let params_of = |d: DefId| match changed_at.get(&d) {
            Some(&i) => Some(changed[i].1.params),
            None if removed.contains(&d) => None,
            None => self.index.get(&d).map(|&i| self.slots[i].params),
        };
        match params_of(main) {
            None => return Err(LinkError::NoMain(main)),
            Some(p) if p != 0 => return Err(LinkError::MainTakesParameters(main)),
            Some(_) => {}
        }
        for (def, blob) in changed {
            check_relocs(*def, blob, params_of)?;
        }
        // Unchanged callers of removed functions and of functions whose parameter count
        // changed.
        let old_params = |d: DefId| self.index.get(&d).map(|&i| self.slots[i].params);
        let affected = removed.iter().copied().chain(
            changed
                .iter()
                .filter(|(d, b)| old_params(*d).is_some_and(|p| p != b.params))
                .map(|(d, _)| *d),
        );
        for callee in affected {
            for &caller in self.callers.get(&callee).into_iter().flatten() {
                if changed_at.contains_key(&caller) || removed.contains(&caller) {
                    continue;
                }
                let slot = &self.slots[self.index[&caller]];
                for r in &slot.relocs {
                    if let RelocTarget::Function { callee: c, args } = r.target {
                        if c == callee {
                            check_call(caller, callee, args, params_of(callee))?;
                        }
                    }
                }
            }
        }
        let mut end = self.code.len();
        for (def, blob) in changed {
            let len = blob.bytes.len();
            let fits = self
                .index
                .get(def)
                .is_some_and(|&i| len <= self.slots[i].cap as usize);
            if !fits {
                end += moved_cap(len);
            }
        }
        if end > MAX_IMAGE {
            return Err(LinkError::TooLarge);
        }

        // Apply.
        let mut stats = PatchStats::default();
        for &def in &removed {
            self.remove(def);
            stats.removed += 1;
        }
        let mut moved = Vec::new();
        for (def, blob) in changed {
            let len = blob.bytes.len();
            let hash = function_hash(*def, blob);
            let i = match self.index.get(def) {
                Some(&i) => {
                    let old = self.slots[i].clone();
                    self.remove_edges(&old);
                    self.hash = self.hash.wrapping_sub(old.hash);
                    let (o, cap) = (old.offset as usize, old.cap as usize);
                    if len <= cap {
                        stats.rewritten += 1;
                    } else {
                        self.code[o..o + cap].fill(0);
                        self.live -= cap;
                        let new_cap = moved_cap(len);
                        let at = self.code.len();
                        self.code.resize(at + new_cap, 0);
                        self.live += new_cap;
                        self.slots[i].offset = at as u32;
                        self.slots[i].cap = new_cap as u32;
                        moved.push(*def);
                        stats.moved += 1;
                    }
                    i
                }
                None => {
                    let cap = moved_cap(len);
                    let at = self.code.len();
                    self.code.resize(at + cap, 0);
                    self.live += cap;
                    self.slots.push(Slot {
                        def: *def,
                        offset: at as u32,
                        len: 0,
                        cap: cap as u32,
                        params: 0,
                        relocs: Vec::new(),
                        hash: 0,
                    });
                    self.index.insert(*def, self.slots.len() - 1);
                    stats.added += 1;
                    self.slots.len() - 1
                }
            };
            let s = &mut self.slots[i];
            let (o, cap) = (s.offset as usize, s.cap as usize);
            s.len = len as u32;
            s.params = blob.params;
            s.relocs.clone_from(&blob.relocations);
            s.hash = hash;
            self.code[o..o + len].copy_from_slice(&blob.bytes);
            self.code[o + len..o + cap].fill(0);
            let slot = self.slots[i].clone();
            self.add_edges(&slot);
            self.hash = self.hash.wrapping_add(hash);
        }
        self.hash = self
            .hash
            .wrapping_sub(entry_hash(self.main))
            .wrapping_add(entry_hash(main));
        self.main = main;

        let dead = self.code.len() - self.live;
        if dead > self.live && dead > 64 * 1024 {
            self.compact();
            stats.compacted = true;
        } else if self.code.len() > self.context {
            self.context = context_for(self.code.len());
            for i in 0..self.slots.len() {
                self.patch_slot(i, None);
            }
            stats.context_moved = true;
        } else {
            for (def, _) in changed {
                self.patch_slot(self.index[def], None);
            }
            for def in moved {
                let callers: Vec<DefId> = self
                    .callers
                    .get(&def)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|c| !changed_at.contains_key(c))
                    .collect();
                for caller in callers {
                    stats.call_sites += self.patch_slot(self.index[&caller], Some(def));
                }
            }
        }
        Ok(stats)
    }

    /// Removes function `def` (linked): its slot becomes a zeroed hole.
    fn remove(&mut self, def: DefId) {
        let Some(i) = self.index.remove(&def) else {
            return;
        };
        let slot = self.slots.swap_remove(i);
        if let Some(s) = self.slots.get(i) {
            self.index.insert(s.def, i);
        }
        let (o, cap) = (slot.offset as usize, slot.cap as usize);
        self.code[o..o + cap].fill(0);
        self.live -= cap;
        self.remove_edges(&slot);
        self.hash = self.hash.wrapping_sub(slot.hash);
    }

    fn add_edges(&mut self, slot: &Slot) {
        for r in &slot.relocs {
            if let RelocTarget::Function { callee, .. } = r.target {
                self.callers.entry(callee).or_default().insert(slot.def);
            }
        }
    }

    fn remove_edges(&mut self, slot: &Slot) {
        for r in &slot.relocs {
            if let RelocTarget::Function { callee, .. } = r.target {
                if let Some(set) = self.callers.get_mut(&callee) {
                    set.remove(&slot.def);
                    if set.is_empty() {
                        self.callers.remove(&callee);
                    }
                }
            }
        }
    }

    /// Packs the slots in address order without holes, then patches every relocation.
    fn compact(&mut self) {
        let mut order: Vec<usize> = (0..self.slots.len()).collect();
        order.sort_unstable_by_key(|&i| self.slots[i].offset);
        let mut cur = 0usize;
        for i in order {
            let s = &mut self.slots[i];
            let (o, len, cap) = (s.offset as usize, s.len as usize, s.cap as usize);
            // Slots only move down (cur <= o), so a slot's bytes are moved before any
            // later slot overwrites them.
            self.code.copy_within(o..o + len, cur);
            self.code[cur + len..cur + cap].fill(0);
            s.offset = cur as u32;
            cur += cap;
        }
        self.code.truncate(cur);
        self.live = cur;
        if self.code.len() > self.context {
            self.context = context_for(self.code.len());
        }
        for i in 0..self.slots.len() {
            self.patch_slot(i, None);
        }
    }

    /// Patches the relocations of slot `i` (only its calls of `only` when given); returns
    /// how many it patched.
    fn patch_slot(&mut self, i: usize, only: Option<DefId>) -> usize {
        let LinkState {
            code,
            slots,
            index,
            context,
            ..
        } = self;
        let slot = &slots[i];
        let base = slot.offset as usize;
        let mut n = 0;
        for r in &slot.relocs {
            let target = match r.target {
                RelocTarget::Function { callee, .. } => {
                    if only.is_some_and(|d| d != callee) {
                        continue;
                    }
                    index.get(&callee).map_or(0, |&j| slots[j].offset as usize)
                }
                _ if only.is_some() => continue,
                RelocTarget::Runtime(f) => *context + 8 * (CONTEXT_WORDS + runtime_index(f)),
                RelocTarget::Context(c) => *context + 8 * c.index(),
            };
            write_reloc(code, base, r, target);
            n += 1;
        }
        n
    }
}
