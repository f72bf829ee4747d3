//! The incremental linker of the driver: the backend's [`LinkState`] kept across builds,
//! in memory for the builds of a [`Session`](crate::Session) and on disk beside the
//! query cache of the `image` goal (`<cache-dir>/image/link-state.bin`).
//!
//! A build with a link state patches it with the functions whose `codegen` changed since
//! the state was made ([`query::DatabaseExt::changed_keys_since`]). When the session's
//! start already re-validated every loaded memo ([`query::DatabaseExt::changes_are_complete`]:
//! the first build of a process on a cache), that list is complete as it is; otherwise
//! every function's `codegen` is first brought up to date without reading its value
//! (`ensure`: a blob persisted on disk stays undecoded). Only the changed blobs are read. The list of functions is
//! compared with the state's only when `crate_defs` or `main_fn` changed. Without a state
//! the build reads every function's `codegen` and links from scratch.
//!
//! On disk the state is tied to the query cache it was made with: its base file
//! (`link-state.bin`) and the journal of patches after it (`link-state.jnl`) lead, record
//! by record, from one cache generation ([`query::SaveReport::generation`]) to the next,
//! and are written only by a build that holds the cache's lock: after it saved the cache,
//! and, when it linked from scratch on a cache it loaded, for that cache at once (a state
//! lost to a killed or refused write is written again even if nothing else is). A build
//! that patched appends what it changed to the journal (in proportion to the patch); a link
//! from scratch, a whole-program patch or a journal grown past a quarter of the base
//! writes a new base (temporary file, then rename) and drops the journal. The base is
//! memory-mapped and read in place: opening it reads its header and directory, the
//! journal's records are applied, and the rest is checked when first used. The image maps
//! the base's code from the file too ([`LinkState::image`]), so a build that changed
//! nothing copies no code; the checks of that code run on a second thread during the first
//! build's start ([`LinkState::code_check`]), after the files' stamps read ahead there
//! when there are any (`stamp::Ahead`), or on a thread of their own. A state that
//! does not lead to the loaded cache's generation (older, or a write cut short) is
//! ignored; a damaged one is a warning; either way the build links from scratch.
//!
//! The base file is never written in place: a new base is a new file. Once every chunk of
//! its code has been checked, a build that saves records the file's metadata as it was
//! before the check (`link-state.checked`: size, times, inode and device), unless that
//! metadata was racy then (the files' rule, [`stamp::is_racy`]): a later write to the
//! file would leave it a later change time. A process that opens the base and finds the
//! same metadata takes its code as checked ([`LinkState::trust_base_code`]) instead of
//! hashing all of it again (16 MB at a million lines); any other metadata, or no record,
//! and the code is checked as before.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use backend::link::{LeanPlan, MappedFile, SavePlan};
use backend::{CodeBlob, Image, LinkError, LinkState};
use query::{Database, DatabaseExt, InPieces, Revision};
use serde::Serialize;
use shared_frontend::sema::def::{DefId, DefKind};

use shared_frontend::sema::modules::{system_time_ns, FileKind, FileStat};

use crate::env::root_def;
use crate::{rq, stamp, RillDb};

const FILE: &str = "link-state.bin";
const JOURNAL: &str = "link-state.jnl";
/// The metadata of the base file whose code was checked completely.
const CHECKED: &str = "link-state.checked";

/// What the link of a build did (`rill --stats-json`, key `link`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Linked from scratch (no usable link state) or patched.
    pub incremental: bool,
    /// Functions in the image.
    pub functions: usize,
    /// Functions whose code was read (all of them from scratch).
    pub relinked: usize,
    /// Of a patch: functions rewritten in their slot, moved, added and removed, and call
    /// sites re-patched because their callee moved.
    pub rewritten: usize,
    pub moved: usize,
    pub added: usize,
    pub removed: usize,
    pub call_sites: usize,
    /// A patch that had to patch every relocation again (the code outgrew the context's
    /// slack, or the holes were packed).
    pub whole_program: bool,
}

/// The link state and where it lives.
#[derive(Default)]
pub(crate) struct Linker {
    state: Option<LinkState>,
    /// The revision of the build that made `state` (`PREVIOUS_SESSION` for one loaded).
    made_at: Revision,
    /// `<cache-dir>/image`, for the `image` goal with a cache directory.
    dir: Option<PathBuf>,
    /// Damage found after opening (a part of the state checked when first used), reported
    /// with the build's warnings.
    warnings: Vec<String>,
    /// The generation of the cache the database loaded, until the first link: a link from
    /// scratch on it writes its base at once (see [`Linker::link`]).
    loaded: Option<u64>,
    /// The check of the opened base's code ([`LinkState::code_check`]), until the first
    /// build starts it ([`Linker::take_code_check`]).
    code_check: Option<CodeCheck>,
    /// The record of the opened base's metadata ([`checked_record`]) to write once its
    /// code is checked; `None` when it is trusted already, racy, or replaced.
    unrecorded: Option<Vec<u8>>,
}

/// The check of a link state's code, to run on a second thread while the build
/// re-validates its queries: the image made at the link checks every chunk of the base's
/// code, and finds those checked here done.
pub(crate) type CodeCheck = Box<dyn FnOnce() + Send>;

impl Linker {
    /// A linker that loads and saves its state in `dir` (the query cache's directory),
    /// for a database that loaded the cache of `generation`. With `trust_record` false
    /// (verify mode) the base's code is checked even when `link-state.checked` records it.
    pub(crate) fn open(
        dir: PathBuf,
        generation: Option<u64>,
        trust_record: bool,
        warnings: &mut Vec<String>,
    ) -> Linker {
        let state = generation.and_then(|g| match load(&dir, g) {
            Ok(state) => state,
            Err(e) => {
                warnings.push(format!(
                    "link state: `{}` ignored: {e}; linking from scratch",
                    dir.join(FILE).display()
                ));
                None
            }
        });
        let mut unrecorded = None;
        let mut trusted = false;
        if let Some(file) = state.as_ref().and_then(|s| s.base_file()) {
            // The time first, then the metadata: the check reads the code after both.
            let now = system_time_ns(std::time::SystemTime::now());
            if let Ok(meta) = file.metadata() {
                let record = checked_record(&meta);
                if trust_record && fs::read(dir.join(CHECKED)).is_ok_and(|r| r == record) {
                    trusted = true;
                } else if !stamp::is_racy(&FileStat::with_metadata(FileKind::File, &meta), now) {
                    unrecorded = Some(record);
                }
            }
        }
        if let (true, Some(state)) = (trusted, &state) {
            state.trust_base_code();
        }
        let code_check = state
            .as_ref()
            .filter(|_| !trusted)
            .and_then(|s| s.code_check())
            .map(|c| Box::new(c) as CodeCheck);
        Linker {
            state,
            made_at: Revision::PREVIOUS_SESSION,
            dir: Some(dir),
            warnings: Vec::new(),
            loaded: generation,
            code_check,
            unrecorded,
        }
    }

    /// Ends the linker of a process about to exit: a state read from a file (its base
    /// mapped, its few changes since in memory) is dropped, which unmaps the file, so that
    /// the program then runs without those pages; a state made in memory is left to the
    /// exit, as the database's memos are.
    pub(crate) fn leak(self) {
        match self.state {
            Some(state) if state.base_file().is_none() => std::mem::forget(state),
            state => drop(state),
        }
    }

    /// The check of the opened state's code, once; the caller starts it (on a thread of
    /// its own with [`start_code_check`], or after the stamps read ahead), so that the
    /// thread the build waits for first runs first.
    pub(crate) fn take_code_check(&mut self) -> Option<CodeCheck> {
        self.code_check.take()
    }

    /// Links the program: patches the state if there is one, else links from scratch
    /// (also when a part of the state turns out damaged). Calls `phase("codegen")` once
    /// the code is collected.
    pub(crate) fn link(
        &mut self,
        db: &RillDb,
        mut phase: impl FnMut(&'static str),
    ) -> (Result<Image, LinkError>, LinkStats) {
        let now = db.runtime().revision();
        let loaded = self.loaded.take();
        let mut phased = false;
        if let Some(mut state) = self.state.take() {
            let patched = collect_changes(db, &state, self.made_at).and_then(|c| {
                let (changed, removed, main, relinked) = c;
                // What the patch needs of the cache is read: the pages of it this build
                // mapped need not be held while the image is made (at 100k lines, 3.5 MiB
                // after a leaf edit, a quarter of the rebuild's peak).
                db.release_cache_pages();
                phase("codegen");
                phased = true;
                let p = state.patch(&changed, &removed, main)?;
                let image = state.image()?;
                let stats = LinkStats {
                    incremental: true,
                    functions: state.functions(),
                    relinked,
                    rewritten: p.rewritten,
                    moved: p.moved,
                    added: p.added,
                    removed: p.removed,
                    call_sites: p.call_sites,
                    whole_program: p.context_moved || p.compacted,
                };
                Ok((image, stats))
            });
            match patched {
                Ok((image, stats)) => {
                    self.state = Some(state);
                    self.made_at = now;
                    return (Ok(image), stats);
                }
                Err(LinkError::Damaged(e)) => {
                    let file = self.dir.as_ref().map(|d| d.join(FILE));
                    let file = file
                        .as_ref()
                        .map_or_else(String::new, |f| f.display().to_string());
                    self.warnings.push(format!(
                        "link state: `{file}` ignored: {e}; linking from scratch"
                    ));
                }
                // A program that does not link leaves no state: the next build links
                // from scratch.
                Err(e) => return (Err(e), LinkStats::default()),
            }
        }
        let (blobs, main) = program_code(db);
        if db.runtime().options().single_revision {
            // A session of one build reads none of its values once the code is
            // collected, and its save writes none from memory that its spill file keeps
            // (see the engine's `spill`): they are dropped before the link, the peak of a
            // build from scratch (at 100k lines, 3.3 MiB less heap; the code itself stays
            // held by `blobs` until the state has copied it).
            db.release_unsaved_values();
        }
        if !phased {
            phase("codegen");
        }
        let linked = LinkState::link(&blobs, main).and_then(|state| {
            let image = state.image()?;
            Ok((state, image))
        });
        drop(blobs);
        match linked {
            Ok((state, image)) => {
                let stats = LinkStats {
                    incremental: false,
                    functions: state.functions(),
                    relinked: state.functions(),
                    ..LinkStats::default()
                };
                self.state = Some(state);
                self.made_at = now;
                // A cache was loaded but no state on disk leads to it (a save killed or
                // refused after the cache was written, or a damaged state). A build that
                // finds everything else unchanged saves nothing, so the state is written
                // now, for the loaded cache: else every such build would link from scratch
                // until an edit. A build that saves the cache later appends to it.
                if let Some(generation) = loaded.filter(|_| db.runtime().persists()) {
                    let mut warnings = std::mem::take(&mut self.warnings);
                    self.save(generation, None, &mut warnings);
                    self.warnings = warnings;
                }
                (Ok(image), stats)
            }
            Err(e) => (Err(e), LinkStats::default()),
        }
    }

    /// Writes the state for the cache just saved with `generation` (when there is a
    /// directory for it): a journal record, or a new base.
    /// The warnings of the last link (damage found in the state while linking).
    pub(crate) fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    pub(crate) fn save(
        &mut self,
        generation: u64,
        planned: Option<Planned>,
        warnings: &mut Vec<String>,
    ) {
        warnings.append(&mut self.warnings);
        let (Some(dir), Some(state)) = (&self.dir, &mut self.state) else {
            return;
        };
        let plan = match planned.filter(|p| p.generation == generation) {
            Some(p) => p.plan,
            None => state.save_plan_lean(generation),
        };
        let plan = match plan {
            Ok(plan) => plan,
            Err(e) => {
                warnings.push(format!("link state: not saved: {e}"));
                self.state = None;
                return;
            }
        };
        let new_base = matches!(
            plan,
            LeanPlan::BaseHead { .. } | LeanPlan::Plan(SavePlan::Base(_))
        );
        match write(dir, &plan, state) {
            Ok(()) if new_base => {
                state.saved_lean(&plan, generation);
                // The record names the old file; the new one is checked when opened.
                self.unrecorded = None;
                let _ = fs::remove_file(dir.join(CHECKED));
            }
            Ok(()) => {
                state.saved_lean(&plan, generation);
                // The chunks the image did not check (those the journal replaces, or
                // not yet reached by the check's thread) are checked now, once per base.
                if self.unrecorded.is_some() && state.check_base_code() {
                    if let Some(record) = self.unrecorded.take() {
                        // A record cut short names no file: the code is checked again.
                        let _ = fs::write(dir.join(CHECKED), record);
                    }
                }
            }
            Err(e) => {
                // What is on disk no longer leads to this generation; the next process
                // links from scratch, and this one saves a new base next time.
                self.state = None;
                warnings.push(format!(
                    "link state: cannot write `{}`: {e}",
                    dir.join(FILE).display()
                ));
            }
        }
    }
}

/// Whether the file `name` of the cache directory is the base, which is never written in
/// place (see the module documentation): the journal and the record are.
pub(crate) fn file_replaced_whole(name: &std::ffi::OsStr) -> bool {
    name == FILE
}

/// What [`Linker::save`] writes for a cache generation, encoded ahead ([`Linker::plan`]).
pub(crate) struct Planned {
    generation: u64,
    plan: Result<LeanPlan, LinkError>,
}

impl Linker {
    /// Encodes what [`Linker::save`] will write for the cache of `generation`, without
    /// writing it: the driver runs this while the query cache of that generation is being
    /// written ([`query::DatabaseExt::save_with`]), and the state is written only once
    /// that cache is in place. `None` when nothing would be saved.
    pub(crate) fn plan(&self, generation: u64) -> Option<Planned> {
        let state = self.state.as_ref().filter(|_| self.dir.is_some())?;
        Some(Planned {
            generation,
            plan: state.save_plan_lean(generation),
        })
    }
}

/// What `link-state.checked` holds for a base file of metadata `meta`: its size, times,
/// inode and device (as the files' stamps read them). The one statement of the format:
/// the linker uses it, and so do the tests that forge or compare a record.
pub fn checked_record(meta: &fs::Metadata) -> Vec<u8> {
    let stat = FileStat::with_metadata(FileKind::File, meta);
    let mut r = b"rill link-state checked 1\n".to_vec();
    r.extend(stat.size.to_le_bytes());
    r.extend(stat.mtime_ns.to_le_bytes());
    r.extend(stat.ctime_ns.to_le_bytes());
    r.extend(stat.inode.to_le_bytes());
    r.extend(stat.device.to_le_bytes());
    r
}

/// Writes `plan` (of `state`) in `dir`.
fn write(dir: &Path, plan: &LeanPlan, state: &LinkState) -> std::io::Result<()> {
    let (head, code) = match plan {
        LeanPlan::BaseHead { head, .. } => (head, true),
        LeanPlan::Plan(SavePlan::Base(bytes)) => (bytes, false),
        LeanPlan::Plan(SavePlan::Journal { at, bytes }) => return write_journal(dir, *at, bytes),
    };
    remove_stale_temp_files(dir);
    let tmp = dir.join(format!("{FILE}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = InPieces(fs::File::create(&tmp)?);
        f.write_all(head)?;
        if code {
            // The code goes from the state's buffer, not from a copy in the plan.
            state.write_base_code(plan, &mut f)?;
        }
        drop(f);
        fs::rename(&tmp, dir.join(FILE))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    // The journal names the base it extends, so one left behind is ignored.
    match fs::remove_file(dir.join(JOURNAL)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Writes a journal record `bytes` at `at` of the journal in `dir`.
fn write_journal(dir: &Path, at: u64, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(JOURNAL))?;
    // A record cut short by a killed write is cut off here.
    f.set_len(at)?;
    f.write_all_at(bytes, at)
}

/// Removes the temporary base files a killed build left in `dir`. Only a build that holds
/// the cache's lock writes the state, so no other build is writing one.
fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{FILE}.tmp.");
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Runs a link state's code check on a thread of its own (a thread that cannot be started
/// leaves the checks to the image).
pub(crate) fn start_code_check(check: CodeCheck) {
    let _ = std::thread::Builder::new()
        .name("link-state-check".to_string())
        .spawn(check);
}

/// The state in `dir` if it leads to the cache of `generation`: `Ok(None)` when there is
/// none or it belongs to another cache, an error when it is damaged.
fn load(dir: &Path, generation: u64) -> Result<Option<LinkState>, String> {
    let file = match fs::File::open(dir.join(FILE)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let base = MappedFile::map(file).map_err(|e| e.to_string())?;
    let journal = match fs::read(dir.join(JOURNAL)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e.to_string()),
    };
    LinkState::open(Box::new(base), &journal, generation).map_err(|e| e.to_string())
}

type Changes = (Vec<(DefId, Arc<CodeBlob>)>, Vec<DefId>, DefId, usize);

/// Every function's machine code, in source order, and the entry point: what a link from
/// scratch needs. Read at the top level (not as a query of its own, whose memo would list
/// every function and be re-executed by any change of one).
fn program_code(db: &RillDb) -> (Vec<(DefId, Arc<CodeBlob>)>, DefId) {
    let blobs = db
        .crate_defs(())
        .iter()
        .filter(|(_, kind)| *kind == DefKind::Fn)
        .filter_map(|&(def, _)| Some((def, db.codegen(def)?)))
        .collect();
    (blobs, db.main_fn(()).unwrap_or_else(root_def))
}

/// What changed since the state was made at `made_at`: the functions with new code (or
/// new), the functions gone, the entry point, and how many blobs were read.
fn collect_changes(
    db: &RillDb,
    state: &LinkState,
    made_at: Revision,
) -> Result<Changes, LinkError> {
    let main = db.main_fn(()).unwrap_or_else(root_def);
    // When the session's start re-validated every loaded memo (pushing each change to
    // what depends on it), the change log is complete: nothing needs bringing up to date,
    // not even the list of items (bringing it up to date would check its whole record,
    // a value as large as the program, in a build that changed nothing).
    let complete = db.changes_are_complete();
    if !complete {
        db.ensure::<rq::crate_defs>(());
    }
    let defs_changed = !db.changed_keys_since::<rq::crate_defs>(made_at).is_empty()
        || !db.changed_keys_since::<rq::main_fn>(made_at).is_empty();
    // The functions of the program: the state's, unless the list of items changed.
    let fns: Option<HashSet<DefId>> = defs_changed.then(|| {
        db.crate_defs(())
            .iter()
            .filter(|(_, kind)| *kind == DefKind::Fn)
            .map(|&(def, _)| def)
            .collect()
    });
    // With a complete change log, the functions that are new to the state are found by
    // comparing the lists below, and the others' changes are in the log: no function's
    // `codegen` is looked at unless it changed.
    match &fns {
        _ if complete => {}
        Some(fns) => fns.iter().for_each(|&d| db.ensure::<rq::codegen>(d)),
        None => state
            .defs()?
            .into_iter()
            .for_each(|d| db.ensure::<rq::codegen>(d)),
    }
    let mut wanted: Vec<DefId> = Vec::new();
    for d in db.changed_keys_since::<rq::codegen>(made_at) {
        let is_fn = match &fns {
            Some(f) => f.contains(&d),
            None => state.contains(d)?,
        };
        if is_fn {
            wanted.push(d);
        }
    }
    let mut removed = Vec::new();
    if let Some(fns) = &fns {
        let linked: HashSet<DefId> = state.defs()?.into_iter().collect();
        let listed: HashSet<DefId> = wanted.iter().copied().collect();
        let mut added: Vec<DefId> = fns
            .iter()
            .copied()
            .filter(|d| !linked.contains(d) && !listed.contains(d))
            .collect();
        added.sort_unstable();
        wanted.extend(added);
        removed.extend(linked.iter().copied().filter(|d| !fns.contains(d)));
    }
    let mut changed = Vec::with_capacity(wanted.len());
    for def in wanted {
        match db.codegen(def) {
            Some(blob) => changed.push((def, blob)),
            None => removed.push(def),
        }
    }
    let relinked = changed.len();
    Ok((changed, removed, main, relinked))
}
