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
//! A state opened from disk ([`LinkState::open`]) reads its slots, reverse index and code
//! in place from the base file (`codec`) and keeps what changed since in memory: the
//! slots written or removed (`over`, with their own reverse index) and the code pages
//! written (copy-on-write, `Code`). A lookup reads the overlay, then the base; a patch
//! therefore reads and writes in proportion to the change. Saving ([`LinkState::save_plan`])
//! appends what changed since the last save to the journal, or writes a new base after a
//! link from scratch, a whole-program step, or once the journal is large.
//!
//! Every relocation is PC-relative and every function's slot is 16-byte aligned, so the
//! bytes of the buffer are those a from-scratch link produces when it places the
//! functions the same way ([`LinkState::link_at`]), and the hash is the same whatever the
//! placement.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use shared_frontend::sema::def::DefId;

use super::codec::{self, Base, BaseBytes, DecodeError, Record, Scalars, JPAGE};
use super::hash::{entry_hash, function_hash};
use super::{
    align_up, runtime_index, CodeSource, Image, LinkError, OffsetList, CONTEXT_WORDS, MAX_IMAGE,
    PAGE,
};
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
    /// The base file's tables, when the state was opened from one.
    base: Option<Arc<Base>>,
    code: Code,
    /// Slots written (`Some`) or removed (`None`) since the base; without a base, every
    /// slot.
    over: FxHashMap<DefId, Option<Slot>>,
    /// Callee → the functions of `over` that call it.
    over_callers: FxHashMap<DefId, FxHashSet<DefId>>,
    pub(crate) main: DefId,
    /// Offset of the run context page in the image (page-aligned, at least the buffer's
    /// length).
    pub(crate) context: usize,
    /// The image hash: the sum of the slots' hashes and the entry point's.
    hash: u128,
    /// Bytes of the buffer in slots (the rest are holes).
    live: usize,
    /// Functions linked.
    count: usize,
    /// What is on disk, when the state was opened or saved.
    disk: Option<Disk>,
    /// Slots of `over` written or removed since the last save.
    unsaved: FxHashSet<DefId>,
    /// The next save must write a new base (a link from scratch or a whole-program step).
    full: bool,
}

/// The files a state was opened from or last saved to.
#[derive(Clone, Copy, Debug)]
struct Disk {
    /// The base's id, named by the journal's header.
    id: u64,
    tag: u64,
    base_len: usize,
    /// Where the next journal record goes (0: the journal must be started).
    journal_len: usize,
}

/// How to save a state ([`LinkState::save_plan`]); after writing it, call
/// [`LinkState::saved`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SavePlan {
    /// Write these bytes as the new base file (atomically), then remove the journal.
    Base(Vec<u8>),
    /// Truncate the journal to `at` bytes and write these bytes there.
    Journal { at: u64, bytes: Vec<u8> },
}

/// How to save a state ([`LinkState::save_plan_lean`]) without a copy of its code: a new
/// base file whose bytes before the code are `head`, its code written from the state
/// itself ([`LinkState::write_base_code`]), or any other [`SavePlan`]. After writing it,
/// call [`LinkState::saved_lean`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeanPlan {
    /// Write `head`, then the state's code, as the new base file (atomically), then
    /// remove the journal.
    BaseHead {
        head: Vec<u8>,
        code_len: usize,
    },
    Plan(SavePlan),
}

/// The code buffer: the base's bytes (checked a chunk at a time) under the pages written
/// since, or a buffer of its own.
#[derive(Clone, Debug, Default)]
struct Code {
    base: Option<Arc<Base>>,
    /// The buffer, without a base.
    owned: Vec<u8>,
    /// Pages written over the base.
    pages: FxHashMap<usize, Box<[u8]>>,
    len: usize,
    /// Pages written since the last save.
    dirty: FxHashSet<usize>,
    /// A damaged base chunk met while writing: the buffer is not to be used.
    damaged: Option<DecodeError>,
}

impl Code {
    fn owned(bytes: Vec<u8>) -> Code {
        Code {
            len: bytes.len(),
            owned: bytes,
            ..Code::default()
        }
    }

    /// The page `p`, copied from the base on first write.
    fn page_mut(&mut self, p: usize) -> &mut [u8] {
        let Code {
            base,
            pages,
            damaged,
            ..
        } = self;
        pages.entry(p).or_insert_with(|| {
            let mut page = vec![0u8; JPAGE].into_boxed_slice();
            if let Some(base) = base {
                let at = p * JPAGE;
                let n = base.scalars.code_len.saturating_sub(at).min(JPAGE);
                match base.code(at, n) {
                    Ok(bytes) => page[..n].copy_from_slice(bytes),
                    Err(e) => *damaged = Some(e),
                }
            }
            page
        })
    }

    fn write(&mut self, at: usize, bytes: &[u8]) {
        let end = at + bytes.len();
        debug_assert!(end <= self.len);
        if bytes.is_empty() {
            return;
        }
        for p in at / JPAGE..end.div_ceil(JPAGE) {
            self.dirty.insert(p);
        }
        if self.base.is_none() {
            self.owned[at..end].copy_from_slice(bytes);
            return;
        }
        let mut done = 0;
        while done < bytes.len() {
            let pos = at + done;
            let (p, o) = (pos / JPAGE, pos % JPAGE);
            let n = (JPAGE - o).min(bytes.len() - done);
            self.page_mut(p)[o..o + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
        }
    }

    fn zero(&mut self, at: usize, len: usize) {
        // Zeroing page by page keeps a big hole from allocating a big buffer.
        let mut done = 0;
        while done < len {
            let n = (JPAGE - (at + done) % JPAGE).min(len - done);
            self.write(at + done, &[0u8; JPAGE][..n]);
            done += n;
        }
    }

    /// Grows the buffer to `len` bytes (zeros).
    fn grow(&mut self, len: usize) {
        if self.base.is_none() {
            self.owned.resize(len, 0);
        }
        self.len = self.len.max(len);
    }

    /// Copies the buffer into `out` (`len` bytes), checking the base's chunks.
    fn copy_into(&self, out: &mut [u8]) -> Result<(), DecodeError> {
        if let Some(e) = &self.damaged {
            return Err(e.clone());
        }
        let Some(base) = &self.base else {
            out[..self.len].copy_from_slice(&self.owned);
            return Ok(());
        };
        let n = base.scalars.code_len.min(self.len);
        out[..n].copy_from_slice(base.code(0, n)?);
        for (&p, page) in &self.pages {
            let at = p * JPAGE;
            let n = self.len.saturating_sub(at).min(JPAGE);
            out[at..at + n].copy_from_slice(&page[..n]);
        }
        Ok(())
    }

    /// Completes `out` (`len` bytes), which already holds the base's code as mapped from
    /// its file (zeros after it): checks every base chunk that no written page replaces,
    /// reading it where it is mapped, and writes the written pages over the others. The
    /// chunks are checked from last to first, towards a thread that checks them from first
    /// to last ([`LinkState::check_code_ahead`]), if one was started.
    fn fill_over_base(&self, out: &mut [u8]) -> Result<(), DecodeError> {
        if let Some(e) = &self.damaged {
            return Err(e.clone());
        }
        if let Some(base) = &self.base {
            let n = base.scalars.code_len.min(self.len);
            for k in (0..n.div_ceil(JPAGE)).rev() {
                if !self.pages.contains_key(&k) {
                    base.check_chunk(k, &out[k * JPAGE..((k + 1) * JPAGE).min(n)])?;
                }
            }
        }
        for (&p, page) in &self.pages {
            let at = p * JPAGE;
            let n = self.len.saturating_sub(at).min(JPAGE);
            out[at..at + n].copy_from_slice(&page[..n]);
        }
        Ok(())
    }

    /// The buffer as one vector.
    fn to_vec(&self) -> Result<Vec<u8>, DecodeError> {
        let mut out = vec![0u8; self.len];
        self.copy_into(&mut out)?;
        Ok(out)
    }

    /// Page `p` as a journal holds it (zero-padded).
    fn page(&self, p: usize) -> Result<Vec<u8>, DecodeError> {
        let at = p * JPAGE;
        let n = self.len.saturating_sub(at).min(JPAGE);
        let mut out = vec![0u8; JPAGE];
        match (&self.base, self.pages.get(&p)) {
            (_, Some(page)) => out.copy_from_slice(page),
            (Some(base), None) => {
                let m = base.scalars.code_len.saturating_sub(at).min(n);
                out[..m].copy_from_slice(base.code(at, m)?);
            }
            (None, None) => out[..n].copy_from_slice(&self.owned[at..at + n]),
        }
        out[n..].fill(0);
        Ok(out)
    }
}

/// The size of a base's code from which [`LinkState::check_code_ahead`] starts a thread
/// (hashing 1 MiB takes about 0.1 ms, starting a thread some 30 µs).
pub const CHECK_AHEAD_MIN: usize = 1 << 20;

fn damaged(e: DecodeError) -> LinkError {
    LinkError::Damaged(e.to_string())
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
    mut params_of: impl FnMut(DefId) -> Result<Option<u32>, LinkError>,
) -> Result<(), LinkError> {
    for r in &blob.relocations {
        if r.offset as usize + 4 > blob.bytes.len() {
            return Err(LinkError::BadRelocation(def));
        }
        if let RelocTarget::Function { callee, args } = r.target {
            check_call(def, callee, args, params_of(callee)?)?;
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
fn write_reloc(code: &mut Code, base: usize, r: &Relocation, target: usize) {
    let p = base + r.offset as usize;
    let v = target as i64 + r.addend as i64 - p as i64;
    if p + 4 <= code.len {
        code.write(p, &(v as i32).to_le_bytes());
    }
}

impl LinkState {
    /// Links `blobs` from scratch, placing them in this order, with entry point `main`.
    /// The checks and errors are those of [`super::link`].
    pub fn link(blobs: &[(DefId, Arc<CodeBlob>)], main: DefId) -> Result<LinkState, LinkError> {
        super::give_back_freed_memory();
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
        let mut params: FxHashMap<DefId, u32> = FxHashMap::default();
        params.reserve(blobs.len());
        for (def, blob) in blobs {
            if params.insert(*def, blob.params).is_some() {
                return Err(LinkError::DuplicateFunction(*def));
            }
        }
        let params_of = |d: DefId| Ok(params.get(&d).copied());
        match params.get(&main) {
            None => return Err(LinkError::NoMain(main)),
            Some(&p) if p != 0 => return Err(LinkError::MainTakesParameters(main)),
            Some(_) => {}
        }
        for (def, blob) in blobs {
            check_relocs(*def, blob, params_of)?;
        }
        let mut state = LinkState {
            base: None,
            code: Code::owned(vec![0; end]),
            over: FxHashMap::default(),
            over_callers: FxHashMap::default(),
            main,
            context,
            hash: entry_hash(main),
            live: 0,
            count: blobs.len(),
            disk: None,
            unsaved: FxHashSet::default(),
            full: true,
        };
        state.over.reserve(blobs.len());
        for ((def, blob), &(offset, cap)) in blobs.iter().zip(&placed) {
            state.code.owned[offset..offset + blob.bytes.len()].copy_from_slice(&blob.bytes);
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
            state.over.insert(*def, Some(slot));
        }
        state.patch_all();
        state.code.dirty.clear();
        Ok(state)
    }

    /// Opens the state a base file and its journal hold for `tag`: `Ok(None)` when they
    /// hold another tag's (stale), an error when they are damaged. Reads the base's
    /// header and directory and the journal's records that lead to `tag`; the rest of
    /// the base is checked when first used (a damaged part then makes the operation that
    /// uses it fail with [`LinkError::Damaged`]).
    pub fn open(
        base: Box<dyn BaseBytes>,
        journal: &[u8],
        tag: u64,
    ) -> Result<Option<LinkState>, DecodeError> {
        let base_len = (*base).as_ref().len();
        let base = Arc::new(Base::open(base)?);
        let Some((records, journal_len)) = codec::read_journal(journal, base.id, base.tag, tag)?
        else {
            return Ok(None);
        };
        let s = base.scalars;
        let mut state = LinkState {
            base: Some(base.clone()),
            code: Code {
                base: Some(base.clone()),
                len: s.code_len,
                ..Code::default()
            },
            over: FxHashMap::default(),
            over_callers: FxHashMap::default(),
            main: s.main,
            context: s.context,
            hash: s.hash,
            live: s.live,
            count: s.count,
            disk: Some(Disk {
                id: base.id,
                tag,
                base_len,
                journal_len,
            }),
            unsaved: FxHashSet::default(),
            full: false,
        };
        for r in records {
            if r.scalars.code_len < state.code.len {
                return Err(DecodeError::Invalid("a journal record shrinks the buffer"));
            }
            state.code.len = r.scalars.code_len;
            for (p, page) in r.pages {
                state.code.pages.insert(p, page.into_boxed_slice());
            }
            for d in r.removed {
                if let Some(Some(old)) = state.over.insert(d, None) {
                    state.remove_edges(&old);
                }
            }
            for slot in r.slots {
                if let Some(Some(old)) = state.over.remove(&slot.def) {
                    state.remove_edges(&old);
                }
                state.add_edges(&slot);
                state.over.insert(slot.def, Some(slot));
            }
            let Scalars {
                main,
                hash,
                context,
                live,
                count,
                ..
            } = r.scalars;
            (
                state.main,
                state.hash,
                state.context,
                state.live,
                state.count,
            ) = (main, hash, context, live, count);
        }
        Ok(Some(state))
    }

    /// Starts checking the base's code on a thread of its own, when it is big enough to be
    /// worth one ([`CHECK_AHEAD_MIN`]): an image made later ([`LinkState::image`]) checks
    /// every chunk it keeps, and finds those this thread checked already. The work is the
    /// same (each chunk is hashed once, by one thread); only the wait for it goes, where a
    /// second processor is free while the build validates its queries. The thread holds
    /// the base; it ends once every chunk is checked or claimed, or at a damaged one.
    pub fn check_code_ahead(&self) {
        if let Some(check) = self.code_check() {
            // A thread that cannot be started leaves the checks to the image.
            let _ = std::thread::Builder::new()
                .name("link-state-check".to_string())
                .spawn(check);
        }
    }

    /// The work [`LinkState::check_code_ahead`] runs on its thread, for the caller to run
    /// on a thread of its choice (after other work there, say); `None` when the base's
    /// code is smaller than [`CHECK_AHEAD_MIN`] or there is no base. Not running it, or
    /// running it late, only leaves more of the checks to the image.
    pub fn code_check(&self) -> Option<impl FnOnce() + Send + 'static> {
        let base = self.base.clone()?;
        (base.scalars.code_len >= CHECK_AHEAD_MIN).then_some(move || base.check_code())
    }

    /// The file the state's base was read from, if it was read from one.
    pub fn base_file(&self) -> Option<&std::fs::File> {
        self.base.as_ref()?.code_file().map(|(f, _)| f)
    }

    /// Takes the base's code as checked, without reading it, for a caller that knows its
    /// file to be unchanged since a complete check found every chunk good; no
    /// [`LinkState::code_check`] is then needed. Damage the caller cannot see (the file
    /// changed without a trace in its metadata) is then not found.
    pub fn trust_base_code(&self) {
        if let Some(base) = &self.base {
            base.trust_code();
        }
    }

    /// Checks the base's code chunks not checked yet (skipping those another thread is
    /// checking) on this thread; whether every chunk is now checked and good.
    pub fn check_base_code(&self) -> bool {
        match &self.base {
            Some(base) => {
                base.check_code();
                base.code_all_checked()
            }
            None => false,
        }
    }

    /// The state as the bytes of a base file with tag 0 ([`LinkState::decode`] reads them
    /// back).
    pub fn encode(&self) -> Result<Vec<u8>, LinkError> {
        self.encode_base(0)
    }

    /// Reads a base file [`LinkState::encode`] wrote, checking all of it; any damage is an
    /// error.
    pub fn decode(bytes: &[u8]) -> Result<LinkState, DecodeError> {
        let state = Self::open(Box::new(bytes.to_vec()), &[], 0)?
            .ok_or(DecodeError::Invalid("another tag"))?;
        let base = state.base.as_ref().ok_or(DecodeError::Invalid("no base"))?;
        for i in 0..base.slot_count() {
            base.slot_at(i)?;
        }
        base.check_edges()?;
        state.code.to_vec()?;
        Ok(state)
    }

    fn scalars(&self) -> Scalars {
        Scalars {
            main: self.main,
            hash: self.hash,
            context: self.context,
            code_len: self.code.len,
            live: self.live,
            count: self.count,
        }
    }

    fn encode_base(&self, tag: u64) -> Result<Vec<u8>, LinkError> {
        let mut slots = self.slots_borrowed()?;
        slots.sort_unstable_by_key(|s| s.def);
        codec::encode_base(tag, &self.scalars(), &slots, self.code.len, |out| {
            self.code.copy_into(out)
        })
        .map_err(damaged)
    }

    /// The bytes of a base file for `tag` before its code, when the code is a buffer of
    /// the state's own (not over a base): [`LinkState::write_base_code`] writes the rest.
    fn encode_base_head(&self, tag: u64) -> Result<Option<LeanPlan>, LinkError> {
        let code = &self.code;
        if code.base.is_some() || code.damaged.is_some() || code.owned.len() != code.len {
            return Ok(None);
        }
        let mut slots = self.slots_borrowed()?;
        slots.sort_unstable_by_key(|s| s.def);
        let head = codec::encode_base_head(tag, &self.scalars(), &slots, &code.owned);
        Ok(Some(LeanPlan::BaseHead {
            head,
            code_len: code.len,
        }))
    }

    /// A new base file for `tag`: its bytes before the code only, when the code can be
    /// written from the state ([`LinkState::encode_base_head`]), otherwise all of them.
    fn lean_base(&self, tag: u64) -> Result<LeanPlan, LinkError> {
        match self.encode_base_head(tag)? {
            Some(plan) => Ok(plan),
            None => self
                .encode_base(tag)
                .map(|b| LeanPlan::Plan(SavePlan::Base(b))),
        }
    }

    /// [`LinkState::save_plan`], except that a new base whose code is a buffer of the
    /// state's own is planned without a copy of that code ([`LeanPlan::BaseHead`]): the
    /// bytes written are the same.
    pub fn save_plan_lean(&self, tag: u64) -> Result<LeanPlan, LinkError> {
        match self.journal_plan(tag)? {
            Some(journal) => Ok(LeanPlan::Plan(journal)),
            None => self.lean_base(tag),
        }
    }

    /// Writes the code of a base file planned by [`LinkState::save_plan_lean`] (as
    /// [`LeanPlan::BaseHead`], of this state unchanged since) after its head.
    pub fn write_base_code(
        &self,
        plan: &LeanPlan,
        out: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        let code = &self.code;
        match plan {
            LeanPlan::BaseHead { code_len, .. }
                if code.base.is_none()
                    && code.owned.len() == *code_len
                    && code.len == *code_len =>
            {
                out.write_all(&code.owned)
            }
            _ => Err(std::io::Error::other(
                "the plan is not of this state's code",
            )),
        }
    }

    /// Records that `plan` (from [`LinkState::save_plan_lean`] for `tag`) was written.
    pub fn saved_lean(&mut self, plan: &LeanPlan, tag: u64) {
        match plan {
            LeanPlan::Plan(plan) => self.saved(plan, tag),
            LeanPlan::BaseHead { head, code_len } => {
                self.disk = Some(Disk {
                    id: codec::base_id(head),
                    tag,
                    base_len: head.len() + code_len,
                    journal_len: 0,
                });
                self.full = false;
                self.unsaved.clear();
                self.code.dirty.clear();
            }
        }
    }

    /// How to save the state for `tag`: a journal record of what changed since the last
    /// save when the state came from disk and the journal stays below a quarter of the
    /// base (plus 64 KiB), otherwise a new base.
    pub fn save_plan(&self, tag: u64) -> Result<SavePlan, LinkError> {
        match self.journal_plan(tag)? {
            Some(journal) => Ok(journal),
            None => self.encode_base(tag).map(SavePlan::Base),
        }
    }

    /// The journal record [`LinkState::save_plan`] plans for `tag`; `None` when a new base
    /// is to be written instead.
    fn journal_plan(&self, tag: u64) -> Result<Option<SavePlan>, LinkError> {
        let Some(disk) = self.disk.filter(|_| !self.full) else {
            return Ok(None);
        };
        let mut pages: Vec<usize> = self.code.dirty.iter().copied().collect();
        pages.sort_unstable();
        let mut defs: Vec<DefId> = self.unsaved.iter().copied().collect();
        defs.sort_unstable();
        let record = Record {
            prev: disk.tag,
            tag,
            scalars: self.scalars(),
            pages: pages
                .into_iter()
                .map(|p| Ok((p, self.code.page(p)?)))
                .collect::<Result<_, DecodeError>>()
                .map_err(damaged)?,
            slots: defs
                .iter()
                .filter_map(|d| self.over.get(d).cloned().flatten())
                .collect(),
            removed: defs
                .iter()
                .copied()
                .filter(|d| matches!(self.over.get(d), Some(None)))
                .collect(),
        };
        let mut bytes = Vec::new();
        let at = match disk.journal_len {
            0 => {
                bytes.extend(codec::journal_header(disk.id));
                0
            }
            n => n,
        };
        bytes.extend(codec::encode_record(&record));
        if at + bytes.len() > disk.base_len / 4 + 64 * 1024 {
            return Ok(None);
        }
        Ok(Some(SavePlan::Journal {
            at: at as u64,
            bytes,
        }))
    }

    /// Records that `plan` (from [`LinkState::save_plan`] for `tag`) was written.
    pub fn saved(&mut self, plan: &SavePlan, tag: u64) {
        let disk = match (plan, self.disk) {
            (SavePlan::Base(bytes), _) => Disk {
                id: codec::base_id(bytes),
                tag,
                base_len: bytes.len(),
                journal_len: 0,
            },
            (SavePlan::Journal { at, bytes }, Some(disk)) => Disk {
                tag,
                journal_len: *at as usize + bytes.len(),
                ..disk
            },
            (SavePlan::Journal { .. }, None) => return,
        };
        self.disk = Some(disk);
        self.full = false;
        self.unsaved.clear();
        self.code.dirty.clear();
    }

    /// Bytes of the base file read so far (0 without one): the header and directory at
    /// open, then the blocks of tables and code checked on first use.
    pub fn base_bytes_read(&self) -> u64 {
        self.base.as_ref().map_or(0, |b| b.bytes_read())
    }

    /// The slot of `def`, if linked.
    fn lookup(&self, def: DefId) -> Result<Option<Slot>, LinkError> {
        match (self.over.get(&def), &self.base) {
            (Some(s), _) => Ok(s.clone()),
            (None, Some(base)) => base.find(def).map_err(damaged),
            (None, None) => Ok(None),
        }
    }

    /// The offset and parameter count of `def`'s slot, without its relocations (see
    /// [`Base::find_entry`]).
    fn entry(&self, def: DefId) -> Result<Option<(usize, u32)>, LinkError> {
        match (self.over.get(&def), &self.base) {
            (Some(s), _) => Ok(s.as_ref().map(|s| (s.offset as usize, s.params))),
            (None, Some(base)) => base.find_entry(def).map_err(damaged),
            (None, None) => Ok(None),
        }
    }

    /// The functions that call `callee`.
    fn callers(&self, callee: DefId) -> Result<Vec<DefId>, LinkError> {
        let mut out: Vec<DefId> = match &self.base {
            Some(base) => base
                .callers(callee)
                .map_err(damaged)?
                .into_iter()
                .filter(|d| !self.over.contains_key(d))
                .collect(),
            None => Vec::new(),
        };
        out.extend(
            self.over_callers
                .get(&callee)
                .into_iter()
                .flatten()
                .copied(),
        );
        Ok(out)
    }

    /// Every slot, in no particular order: those of the base not written over, decoded,
    /// and those written since borrowed rather than cloned (without a base, every slot),
    /// so that encoding a base file copies no relocations.
    fn slots_borrowed(&self) -> Result<Vec<std::borrow::Cow<'_, Slot>>, LinkError> {
        use std::borrow::Cow;
        let mut out = Vec::with_capacity(self.count);
        if let Some(base) = &self.base {
            for i in 0..base.slot_count() {
                let s = base.slot_at(i).map_err(damaged)?;
                if !self.over.contains_key(&s.def) {
                    out.push(Cow::Owned(s));
                }
            }
        }
        out.extend(self.over.values().flatten().map(Cow::Borrowed));
        Ok(out)
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
        self.count
    }

    /// Whether function `def` is linked.
    pub fn contains(&self, def: DefId) -> Result<bool, LinkError> {
        Ok(self.lookup(def)?.is_some())
    }

    /// The linked functions' def-ids, in no particular order.
    pub fn defs(&self) -> Result<Vec<DefId>, LinkError> {
        let mut out = Vec::with_capacity(self.count);
        if let Some(base) = &self.base {
            for i in 0..base.slot_count() {
                let (d, _, _) = base.slot_place(i).map_err(damaged)?;
                if !self.over.contains_key(&d) {
                    out.push(d);
                }
            }
        }
        out.extend(self.over.values().flatten().map(|s| s.def));
        Ok(out)
    }

    /// The patched buffer (the image's code, holes zeroed).
    pub fn code(&self) -> Result<Vec<u8>, LinkError> {
        self.code.to_vec().map_err(damaged)
    }

    /// Where each function is placed.
    pub fn layout(&self) -> Result<Layout, LinkError> {
        let mut slots = self.places()?;
        slots.sort_unstable_by_key(|&(_, o, _)| o);
        Ok(Layout {
            context: self.context,
            slots,
        })
    }

    /// Every function's def-id, offset and slot size, in no particular order.
    fn places(&self) -> Result<Vec<(DefId, usize, usize)>, LinkError> {
        let mut out = Vec::with_capacity(self.count);
        if let Some(base) = &self.base {
            for i in 0..base.slot_count() {
                let p = base.slot_place(i).map_err(damaged)?;
                if !self.over.contains_key(&p.0) {
                    out.push(p);
                }
            }
        }
        let over = self.over.values().flatten();
        out.extend(over.map(|s| (s.def, s.offset as usize, s.cap as usize)));
        Ok(out)
    }

    /// The runnable image, W^X as always. With a base read from a file, the base's code
    /// is mapped from the file (private: only the pages written since the base are
    /// copied into it), and every chunk of it that the image keeps is checked where it
    /// is mapped, so no byte is copied and none runs unchecked. Otherwise, or where the
    /// file cannot be mapped executable (a `noexec` mount), the buffer is copied into a
    /// new mapping, its base chunks checked. The list of function offsets is made (and
    /// the base's slots read for it) when first asked for.
    pub fn image(&self) -> Result<Image, LinkError> {
        let main = self.entry(self.main)?.map_or(0, |(offset, _)| offset);
        if let Some((file, offset)) = self.code.base.as_ref().and_then(|b| b.code_file()) {
            let source = CodeSource {
                file,
                offset,
                len: self.code.base.as_ref().map_or(0, |b| b.scalars.code_len),
            };
            let mapped = Image::map(
                self.code.len,
                Some(source),
                |buf| self.code.fill_over_base(buf).map_err(damaged),
                self.context,
                main,
                self.offset_list(),
                self.hash,
            );
            match mapped {
                // Mapping the file was refused: copy instead.
                Err(LinkError::Map(_)) => {}
                other => return other,
            }
        }
        Image::map(
            self.code.len,
            None,
            |buf| self.code.copy_into(buf).map_err(damaged),
            self.context,
            main,
            self.offset_list(),
            self.hash,
        )
    }

    /// Makes the list of function offsets, in address order, when called.
    fn offset_list(&self) -> OffsetList {
        let (base, over) = (
            self.base.clone(),
            self.over
                .iter()
                .map(|(&d, s)| (d, s.as_ref().map(|s| s.offset as usize)))
                .collect::<Vec<_>>(),
        );
        Box::new(move || {
            let mut out: Vec<(DefId, usize)> = Vec::new();
            if let Some(base) = &base {
                let listed: FxHashSet<DefId> = over.iter().map(|&(d, _)| d).collect();
                for i in 0..base.slot_count() {
                    let (d, o, _) = base.slot_place(i).map_err(damaged)?;
                    if !listed.contains(&d) {
                        out.push((d, o));
                    }
                }
            }
            out.extend(over.iter().filter_map(|&(d, o)| Some((d, o?))));
            out.sort_unstable_by_key(|&(_, o)| o);
            Ok(out)
        })
    }

    /// Applies a change of the program: the functions of `changed` are new or have new
    /// code, those of `removed` are gone (a def-id in both counts as changed; a removed
    /// one that is not linked is ignored), and the entry point is `main`.
    ///
    /// The checks are those of a link from scratch (with the same errors; when there are
    /// several, which one is reported may differ). On an error nothing has changed. The
    /// slots read are those of the changed and removed functions, of their callees and
    /// of the callers of those that move or change their parameters.
    pub fn patch(
        &mut self,
        changed: &[(DefId, Arc<CodeBlob>)],
        removed: &[DefId],
        main: DefId,
    ) -> Result<PatchStats, LinkError> {
        // Check everything before touching anything, reading each slot needed once.
        let mut known: FxHashMap<DefId, Option<Slot>> = FxHashMap::default();
        let find = |known: &mut FxHashMap<DefId, Option<Slot>>, state: &LinkState, d: DefId| {
            if let Some(s) = known.get(&d) {
                return Ok(s.clone());
            }
            let s = state.lookup(d)?;
            known.insert(d, s.clone());
            Ok::<_, LinkError>(s)
        };
        let mut changed_at: FxHashMap<DefId, usize> = FxHashMap::default();
        changed_at.reserve(changed.len());
        for (i, (def, _)) in changed.iter().enumerate() {
            if changed_at.insert(*def, i).is_some() {
                return Err(LinkError::DuplicateFunction(*def));
            }
        }
        let mut gone: Vec<Slot> = Vec::new();
        for &d in removed {
            if changed_at.contains_key(&d) || gone.iter().any(|s| s.def == d) {
                continue;
            }
            if let Some(s) = find(&mut known, self, d)? {
                gone.push(s);
            }
        }
        let removed: FxHashSet<DefId> = gone.iter().map(|s| s.def).collect();
        let params_of =
            |known: &mut FxHashMap<DefId, Option<Slot>>, d: DefId| match changed_at.get(&d) {
                Some(&i) => Ok(Some(changed[i].1.params)),
                None if removed.contains(&d) => Ok(None),
                None => Ok(find(known, self, d)?.map(|s| s.params)),
            };
        // Of the entry point only its parameter count: its relocations are read when it
        // is changed, or a callee of it moves.
        let main_params = match changed_at.get(&main) {
            Some(&i) => Some(changed[i].1.params),
            None if removed.contains(&main) => None,
            None => self.entry(main)?.map(|(_, params)| params),
        };
        match main_params {
            None => return Err(LinkError::NoMain(main)),
            Some(p) if p != 0 => return Err(LinkError::MainTakesParameters(main)),
            Some(_) => {}
        }
        for (def, blob) in changed {
            check_relocs(*def, blob, |d| params_of(&mut known, d))?;
        }
        let mut old: Vec<Option<Slot>> = Vec::with_capacity(changed.len());
        for (def, _) in changed {
            old.push(find(&mut known, self, *def)?);
        }
        // Unchanged callers of removed functions and of functions whose parameter count
        // changed.
        let affected: Vec<DefId> = removed
            .iter()
            .copied()
            .chain(
                changed
                    .iter()
                    .zip(&old)
                    .filter(|((_, b), o)| o.as_ref().is_some_and(|o| o.params != b.params))
                    .map(|((d, _), _)| *d),
            )
            .collect();
        for callee in affected {
            for caller in self.callers(callee)? {
                if changed_at.contains_key(&caller) || removed.contains(&caller) {
                    continue;
                }
                let Some(slot) = find(&mut known, self, caller)? else {
                    continue;
                };
                for r in &slot.relocs {
                    if let RelocTarget::Function { callee: c, args } = r.target {
                        if c == callee {
                            check_call(caller, callee, args, params_of(&mut known, callee)?)?;
                        }
                    }
                }
            }
        }
        // Where the changed functions go, and whether a whole-program step follows.
        let mut end = self.code.len;
        let mut live = self.live;
        for s in &gone {
            live -= s.cap as usize;
        }
        let mut moves: Vec<bool> = Vec::with_capacity(changed.len());
        for ((_, blob), o) in changed.iter().zip(&old) {
            let len = blob.bytes.len();
            let fits = o.as_ref().is_some_and(|o| len <= o.cap as usize);
            if !fits {
                end += moved_cap(len);
                live = live - o.as_ref().map_or(0, |o| o.cap as usize) + moved_cap(len);
            }
            moves.push(!fits);
        }
        if end > MAX_IMAGE {
            return Err(LinkError::TooLarge);
        }
        let dead = end - live;
        let compact = dead > live && dead > 64 * 1024;
        let whole = compact || end > self.context;
        // The call sites to re-patch: the unchanged callers of the functions that move.
        let mut sites: Vec<(Slot, DefId)> = Vec::new();
        if !whole {
            for ((def, _), &m) in changed.iter().zip(&moves) {
                if !m {
                    continue;
                }
                for caller in self.callers(*def)? {
                    if changed_at.contains_key(&caller) || removed.contains(&caller) {
                        continue;
                    }
                    if let Some(slot) = find(&mut known, self, caller)? {
                        sites.push((slot, *def));
                    }
                }
            }
            // The callees of the changed functions, whose offsets the patch reads.
            for (_, blob) in changed {
                for r in &blob.relocations {
                    if let RelocTarget::Function { callee, .. } = r.target {
                        find(&mut known, self, callee)?;
                    }
                }
            }
        }
        if whole {
            self.materialize()?;
        }

        // Apply (nothing below fails).
        let mut stats = PatchStats::default();
        for slot in &gone {
            self.remove(slot);
            stats.removed += 1;
        }
        for (((def, blob), o), &m) in changed.iter().zip(old).zip(&moves) {
            let len = blob.bytes.len();
            let (offset, cap) = match &o {
                Some(o) if !m => {
                    stats.rewritten += 1;
                    (o.offset as usize, o.cap as usize)
                }
                _ => {
                    if let Some(o) = &o {
                        self.code.zero(o.offset as usize, o.cap as usize);
                        self.live -= o.cap as usize;
                        stats.moved += 1;
                    } else {
                        self.count += 1;
                        stats.added += 1;
                    }
                    let cap = moved_cap(len);
                    let at = self.code.len;
                    self.code.grow(at + cap);
                    self.live += cap;
                    (at, cap)
                }
            };
            if let Some(o) = &o {
                self.hash = self.hash.wrapping_sub(o.hash);
                if let Some(Some(cur)) = self.over.get(def) {
                    let cur = cur.clone();
                    self.remove_edges(&cur);
                }
            }
            let slot = Slot {
                def: *def,
                offset: offset as u32,
                len: len as u32,
                cap: cap as u32,
                params: blob.params,
                relocs: blob.relocations.clone(),
                hash: function_hash(*def, blob),
            };
            self.code.write(offset, &blob.bytes);
            self.code.zero(offset + len, cap - len);
            self.add_edges(&slot);
            self.hash = self.hash.wrapping_add(slot.hash);
            self.over.insert(*def, Some(slot));
            self.unsaved.insert(*def);
        }
        self.hash = self
            .hash
            .wrapping_sub(entry_hash(self.main))
            .wrapping_add(entry_hash(main));
        self.main = main;

        if compact {
            self.compact();
            stats.compacted = true;
        } else if whole {
            self.context = context_for(self.code.len);
            self.patch_all();
            stats.context_moved = true;
        } else {
            let (over, code, context) = (&self.over, &mut self.code, self.context);
            let offset_of = |d: DefId| {
                let s = match over.get(&d) {
                    Some(s) => s.as_ref(),
                    None => known.get(&d).and_then(|s| s.as_ref()),
                };
                s.map_or(0, |s| s.offset as usize)
            };
            for (def, _) in changed {
                if let Some(Some(slot)) = over.get(def) {
                    patch_slot(code, context, slot, None, offset_of);
                }
            }
            for (slot, callee) in &sites {
                stats.call_sites += patch_slot(code, context, slot, Some(*callee), offset_of);
            }
        }
        Ok(stats)
    }

    /// Brings every slot and the whole buffer into memory, leaving the base (before a
    /// whole-program step).
    fn materialize(&mut self) -> Result<(), LinkError> {
        if self.base.is_none() {
            return Ok(());
        }
        let slots: Vec<Slot> = self
            .slots_borrowed()?
            .into_iter()
            .map(std::borrow::Cow::into_owned)
            .collect();
        let code = self.code.to_vec().map_err(damaged)?;
        self.base = None;
        self.code = Code::owned(code);
        self.over.clear();
        self.over_callers.clear();
        for slot in slots {
            self.add_edges(&slot);
            self.over.insert(slot.def, Some(slot));
        }
        self.full = true;
        Ok(())
    }

    /// Removes the function of `slot` (linked): its slot becomes a zeroed hole.
    fn remove(&mut self, slot: &Slot) {
        if let Some(Some(cur)) = self.over.get(&slot.def) {
            let cur = cur.clone();
            self.remove_edges(&cur);
        }
        // Kept as removed (not dropped) so that the next journal record lists it.
        self.over.insert(slot.def, None);
        self.unsaved.insert(slot.def);
        self.code.zero(slot.offset as usize, slot.cap as usize);
        self.live -= slot.cap as usize;
        self.count -= 1;
        self.hash = self.hash.wrapping_sub(slot.hash);
    }

    fn add_edges(&mut self, slot: &Slot) {
        for r in &slot.relocs {
            if let RelocTarget::Function { callee, .. } = r.target {
                self.over_callers
                    .entry(callee)
                    .or_default()
                    .insert(slot.def);
            }
        }
    }

    fn remove_edges(&mut self, slot: &Slot) {
        for r in &slot.relocs {
            if let RelocTarget::Function { callee, .. } = r.target {
                if let Some(set) = self.over_callers.get_mut(&callee) {
                    set.remove(&slot.def);
                    if set.is_empty() {
                        self.over_callers.remove(&callee);
                    }
                }
            }
        }
    }

    /// Packs the slots in address order without holes, then patches every relocation
    /// (the state is in memory).
    fn compact(&mut self) {
        let mut order: Vec<DefId> = self.over.values().flatten().map(|s| s.def).collect();
        order.sort_unstable_by_key(|d| self.over[d].as_ref().map_or(0, |s| s.offset));
        let mut cur = 0usize;
        for d in order {
            let Some(Some(s)) = self.over.get_mut(&d) else {
                continue;
            };
            let (o, len, cap) = (s.offset as usize, s.len as usize, s.cap as usize);
            // Slots only move down (cur <= o), so a slot's bytes are moved before any
            // later slot overwrites them.
            self.code.owned.copy_within(o..o + len, cur);
            self.code.owned[cur + len..cur + cap].fill(0);
            s.offset = cur as u32;
            cur += cap;
        }
        self.code.owned.truncate(cur);
        self.code.len = cur;
        self.live = cur;
        if self.code.len > self.context {
            self.context = context_for(self.code.len);
        }
        self.patch_all();
    }

    /// Patches every relocation of every slot (the state is in memory).
    fn patch_all(&mut self) {
        let offsets: FxHashMap<DefId, usize> = self
            .over
            .values()
            .flatten()
            .map(|s| (s.def, s.offset as usize))
            .collect();
        let (over, code, context) = (&self.over, &mut self.code, self.context);
        for slot in over.values().flatten() {
            patch_slot(code, context, slot, None, |d| {
                offsets.get(&d).copied().unwrap_or(0)
            });
        }
    }
}

/// Patches the relocations of `slot` (only its calls of `only` when given) in `code`, with
/// the context page at `context` and the callees' offsets from `offset_of`; returns how
/// many it patched.
fn patch_slot(
    code: &mut Code,
    context: usize,
    slot: &Slot,
    only: Option<DefId>,
    offset_of: impl Fn(DefId) -> usize,
) -> usize {
    let base = slot.offset as usize;
    let mut n = 0;
    for r in &slot.relocs {
        let target = match r.target {
            RelocTarget::Function { callee, .. } => {
                if only.is_some_and(|d| d != callee) {
                    continue;
                }
                offset_of(callee)
            }
            _ if only.is_some() => continue,
            RelocTarget::Runtime(f) => context + 8 * (CONTEXT_WORDS + runtime_index(f)),
            RelocTarget::Context(c) => context + 8 * c.index(),
        };
        write_reloc(code, base, r, target);
        n += 1;
    }
    n
}
