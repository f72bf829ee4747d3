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
//! On disk the state is tied to the query cache it was made with: the file starts with
//! the cache's generation ([`query::SaveReport::generation`]) and is written (temporary
//! file, then rename) only by a build that saved the cache, after it did. A state whose
//! generation is not the loaded cache's is ignored; a damaged one is a warning; either
//! way the build links from scratch.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use backend::{CodeBlob, Image, LinkError, LinkState};
use query::{Database, DatabaseExt, Revision};
use serde::Serialize;
use shared_frontend::sema::def::{DefId, DefKind};

use crate::env::root_def;
use crate::{rq, RillDb};

const FILE: &str = "link-state.bin";
const MAGIC: [u8; 8] = *b"RILLLNKG";

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
}

impl Linker {
    /// A linker that loads and saves its state in `dir` (the query cache's directory),
    /// for a database that loaded the cache of `generation`.
    pub(crate) fn open(
        dir: PathBuf,
        generation: Option<u64>,
        warnings: &mut Vec<String>,
    ) -> Linker {
        let state = generation.and_then(|g| match load(&dir.join(FILE), g) {
            Ok(state) => state,
            Err(e) => {
                warnings.push(format!(
                    "link state: `{}` ignored: {e}; linking from scratch",
                    dir.join(FILE).display()
                ));
                None
            }
        });
        Linker {
            state,
            made_at: Revision::PREVIOUS_SESSION,
            dir: Some(dir),
        }
    }

    /// Links the program: patches the state if there is one, else links from scratch.
    /// Calls `phase("codegen")` once the code is collected.
    pub(crate) fn link(
        &mut self,
        db: &RillDb,
        mut phase: impl FnMut(&'static str),
    ) -> (Result<Image, LinkError>, LinkStats) {
        let now = db.runtime().revision();
        let result = match self.state.take() {
            Some(mut state) => {
                let (changed, removed, main, relinked) = collect_changes(db, &state, self.made_at);
                phase("codegen");
                match state.patch(&changed, &removed, main) {
                    Ok(p) => {
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
                        Ok((state, stats))
                    }
                    Err(e) => Err(e),
                }
            }
            None => {
                let (blobs, main) = program_code(db);
                phase("codegen");
                LinkState::link(&blobs, main).map(|state| {
                    let stats = LinkStats {
                        incremental: false,
                        functions: state.functions(),
                        relinked: state.functions(),
                        ..LinkStats::default()
                    };
                    (state, stats)
                })
            }
        };
        match result {
            Ok((state, stats)) => {
                let image = state.image();
                if image.is_ok() {
                    self.state = Some(state);
                    self.made_at = now;
                }
                (image, stats)
            }
            // A program that does not link leaves no state: the next build links from
            // scratch.
            Err(e) => (Err(e), LinkStats::default()),
        }
    }

    /// Writes the state for the cache just saved with `generation` (when there is a
    /// directory for it).
    pub(crate) fn save(&self, generation: u64, warnings: &mut Vec<String>) {
        let (Some(dir), Some(state)) = (&self.dir, &self.state) else {
            return;
        };
        let mut bytes = Vec::with_capacity(16 + state.code().len() + state.code().len() / 4);
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&generation.to_le_bytes());
        bytes.extend_from_slice(&state.encode());
        let tmp = dir.join(format!("{FILE}.tmp.{}", std::process::id()));
        let result = (|| {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            drop(f);
            fs::rename(&tmp, dir.join(FILE))
        })();
        match result {
            Ok(()) => {}
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                warnings.push(format!(
                    "link state: cannot write `{}`: {e}",
                    dir.join(FILE).display()
                ));
            }
        }
    }
}

/// The state in `path` if it belongs to the cache of `generation`: `Ok(None)` when there
/// is none or it belongs to another cache, an error when it is damaged.
fn load(path: &Path, generation: u64) -> Result<Option<LinkState>, String> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let Some((head, body)) = bytes.split_first_chunk::<16>() else {
        return Err("truncated".to_string());
    };
    if head[..8] != MAGIC {
        return Err("not a link state".to_string());
    }
    let mut g = [0u8; 8];
    g.copy_from_slice(&head[8..16]);
    if u64::from_le_bytes(g) != generation {
        return Ok(None);
    }
    LinkState::decode(body).map(Some).map_err(|e| e.to_string())
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
fn collect_changes(db: &RillDb, state: &LinkState, made_at: Revision) -> Changes {
    let main = db.main_fn(()).unwrap_or_else(root_def);
    db.ensure::<rq::crate_defs>(());
    // When the session's start re-validated every loaded memo (pushing each change to
    // what depends on it), the change log is complete: nothing needs bringing up to date.
    let complete = db.changes_are_complete();
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
    match &fns {
        Some(fns) => fns.iter().for_each(|&d| db.ensure::<rq::codegen>(d)),
        None if complete => {}
        None => state.defs().for_each(|d| db.ensure::<rq::codegen>(d)),
    }
    let is_fn = |d: &DefId| {
        fns.as_ref()
            .map_or_else(|| state.contains(*d), |f| f.contains(d))
    };
    let mut wanted: Vec<DefId> = db
        .changed_keys_since::<rq::codegen>(made_at)
        .into_iter()
        .filter(is_fn)
        .collect();
    let mut removed = Vec::new();
    if let Some(fns) = &fns {
        let listed: HashSet<DefId> = wanted.iter().copied().collect();
        let mut added: Vec<DefId> = fns
            .iter()
            .copied()
            .filter(|d| !state.contains(*d) && !listed.contains(d))
            .collect();
        added.sort_unstable();
        wanted.extend(added);
        removed.extend(state.defs().filter(|d| !fns.contains(d)));
    }
    let mut changed = Vec::with_capacity(wanted.len());
    for def in wanted {
        match db.codegen(def) {
            Some(blob) => changed.push((def, blob)),
            None => removed.push(def),
        }
    }
    let relinked = changed.len();
    (changed, removed, main, relinked)
}
