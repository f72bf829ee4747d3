//! Property: any sequence of patches of a link state equals a link from scratch of the
//! same functions: the same image hash, the same bytes when placed the same way, the same
//! run. Patches grow and shrink functions (padding after their data, which no code reads),
//! add and remove functions that call others and the runtime, and swap in other programs.

mod common;

use std::sync::Arc;

use backend::link::{LeanPlan, MappedFile, SavePlan};
use backend::{codegen, link, CodeBlob, LinkState, RelocTarget, Relocation, RunLimits, RuntimeFn};
use proptest::prelude::*;
use shared_frontend::ir::builder::fn_def_id;
use shared_frontend::sema::def::DefId;

type Blobs = Vec<(DefId, Arc<CodeBlob>)>;

fn program_blobs(seed: u64) -> (Blobs, DefId) {
    let p = common::gen::random_program(seed);
    let blobs = p
        .functions
        .iter()
        .map(|f| (f.def, Arc::new(codegen(f))))
        .collect();
    (blobs, p.main)
}

/// A function never called: `call callee; call [rt_limit]; ret`.
fn caller_of(callee: DefId, params: u32) -> CodeBlob {
    CodeBlob {
        bytes: vec![0xe8, 0, 0, 0, 0, 0xff, 0x15, 0, 0, 0, 0, 0xc3],
        code_len: 12,
        data: Vec::new(),
        params: 0,
        relocations: vec![
            Relocation {
                offset: 1,
                target: RelocTarget::Function {
                    callee,
                    args: params,
                },
                addend: -4,
            },
            Relocation {
                offset: 7,
                target: RelocTarget::Runtime(RuntimeFn::Limit),
                addend: -4,
            },
        ],
    }
}

#[derive(Clone, Debug)]
enum Step {
    /// Pad function `i` (modulo the count) with `n` bytes.
    Pad(usize, usize),
    /// Remove the padding of function `i`.
    Trim(usize),
    /// Add a function calling function `i`.
    AddCaller(usize),
    /// Remove the `i`th added function.
    RemoveCaller(usize),
    /// Replace everything with another program.
    Swap(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (any::<usize>(), 1..5000usize).prop_map(|(i, n)| Step::Pad(i, n)),
        2 => any::<usize>().prop_map(Step::Trim),
        2 => any::<usize>().prop_map(Step::AddCaller),
        1 => any::<usize>().prop_map(Step::RemoveCaller),
        1 => any::<u64>().prop_map(Step::Swap),
    ]
}

fn check_equal(state: &LinkState, blobs: &Blobs, main: DefId) {
    let fresh = link(blobs, main).expect("the program links from scratch");
    assert_eq!(state.hash(), fresh.hash());
    let placed = LinkState::link_at(blobs, main, &state.layout().unwrap()).expect("same layout");
    // The buffers agree up to the holes at their ends (zeroed, and a placement from
    // scratch ends with its last slot).
    let (a, b) = (state.code().unwrap(), placed.code().unwrap());
    let (a, b) = (a.as_slice(), b.as_slice());
    let n = a.len().max(b.len());
    let byte = |c: &[u8], i: usize| c.get(i).copied().unwrap_or(0);
    let first = (0..n).find(|&i| byte(a, i) != byte(b, i));
    assert_eq!(
        first,
        None,
        "the buffers differ (lengths {} and {})",
        a.len(),
        b.len()
    );
    let image = state.image().unwrap();
    assert_eq!(image.hash(), fresh.hash());
    assert!(
        image.code() == state.code().unwrap().as_slice(),
        "the image's code"
    );
    let limits = RunLimits::default();
    let (a, b) = (image.run(&limits), fresh.run(&limits));
    assert_eq!((a.stdout, a.status), (b.stdout, b.status));
    // The state survives encoding.
    let decoded = LinkState::decode(&state.encode().unwrap()).expect("decodes");
    assert_eq!(decoded.hash(), state.hash());
    assert_eq!(decoded.code(), state.code());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn patches_equal_a_link_from_scratch(seed in any::<u64>(), steps in prop::collection::vec(step(), 1..12), reopen in any::<bool>()) {
        let (mut blobs, mut main) = program_blobs(seed);
        let mut state = LinkState::link(&blobs, main).unwrap();
        let mut disk = Disk::default();
        disk.save(&mut state, 0);
        let mut added: Vec<DefId> = Vec::new();
        for (k, s) in steps.into_iter().enumerate() {
            let mut changed: Blobs = Vec::new();
            let mut removed = Vec::new();
            match s {
                Step::Pad(i, n) => {
                    let i = i % blobs.len();
                    let mut b = (*blobs[i].1).clone();
                    b.bytes.extend(std::iter::repeat_n(0x90, n));
                    blobs[i].1 = Arc::new(b);
                    changed.push(blobs[i].clone());
                }
                Step::Trim(i) => {
                    let i = i % blobs.len();
                    let mut b = (*blobs[i].1).clone();
                    let end = b.data.iter().map(|&(o, l)| (o + l) as usize).max().unwrap_or(0).max(b.code_len as usize);
                    b.bytes.truncate(end);
                    blobs[i].1 = Arc::new(b);
                    changed.push(blobs[i].clone());
                }
                Step::AddCaller(i) => {
                    let (callee, blob) = blobs[i % blobs.len()].clone();
                    let def = fn_def_id(&format!("caller{k}"));
                    let new = (def, Arc::new(caller_of(callee, blob.params)));
                    blobs.push(new.clone());
                    changed.push(new);
                    added.push(def);
                }
                Step::RemoveCaller(i) => {
                    if added.is_empty() { continue; }
                    let def = added.remove(i % added.len());
                    blobs.retain(|(d, _)| *d != def);
                    removed.push(def);
                }
                Step::Swap(seed) => {
                    let (new, new_main) = program_blobs(seed);
                    removed.extend(blobs.iter().map(|(d, _)| *d).filter(|d| !new.iter().any(|(n, _)| n == d)));
                    changed = new.clone();
                    blobs = new;
                    main = new_main;
                    added.clear();
                }
            }
            let patched = state.patch(&changed, &removed, main);
            match link(&blobs, main) {
                Ok(_) => {
                    prop_assert!(patched.is_ok(), "{patched:?}");
                    check_equal(&state, &blobs, main);
                    // Saved (a journal record or a new base) and opened again, the state
                    // is the same; every other step goes on from the opened one.
                    let tag = k as u64 + 1;
                    disk.save(&mut state, tag);
                    let opened = disk.open(tag).expect("opens").expect("leads to the tag");
                    check_equal(&opened, &blobs, main);
                    if reopen {
                        state = opened;
                    }
                }
                // A removed callee: both refuse, and the state is as it was.
                Err(_) => {
                    prop_assert!(patched.is_err());
                    return Ok(());
                }
            }
        }
    }
}

#[test]
fn damaged_state_bytes_are_errors() {
    let (blobs, main) = program_blobs(7);
    let bytes = LinkState::link(&blobs, main).unwrap().encode().unwrap();
    for at in (0..bytes.len()).step_by(7) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x41;
        assert!(LinkState::decode(&bad).is_err(), "byte {at}");
    }
    for len in (0..bytes.len()).step_by(5) {
        assert!(LinkState::decode(&bytes[..len]).is_err(), "cut at {len}");
    }
}

#[test]
fn a_patch_with_an_unresolved_call_changes_nothing() {
    let (blobs, main) = program_blobs(3);
    let mut state = LinkState::link(&blobs, main).unwrap();
    let before = (state.hash(), state.code().unwrap());
    let ghost = fn_def_id("ghost");
    let caller = (fn_def_id("caller"), Arc::new(caller_of(ghost, 0)));
    let err = state.patch(&[caller], &[], main).unwrap_err();
    assert_eq!(
        err,
        backend::LinkError::UnresolvedFunction {
            caller: fn_def_id("caller"),
            callee: ghost
        }
    );
    assert_eq!((state.hash(), state.code().unwrap()), before);
    assert_eq!(
        state.patch(&[], &[main], main).unwrap_err(),
        backend::LinkError::NoMain(main)
    );
}

/// A base file and a journal in memory, written as the driver writes them.
#[derive(Default)]
struct Disk {
    base: Vec<u8>,
    journal: Vec<u8>,
}

impl Disk {
    fn save(&mut self, state: &mut LinkState, tag: u64) -> usize {
        let plan = state.save_plan(tag).unwrap();
        let written = match &plan {
            SavePlan::Base(bytes) => {
                self.base = bytes.clone();
                self.journal.clear();
                bytes.len()
            }
            SavePlan::Journal { at, bytes } => {
                self.journal.truncate(*at as usize);
                self.journal.extend_from_slice(bytes);
                bytes.len()
            }
        };
        state.saved(&plan, tag);
        written
    }

    /// Opens the state from a base file, as the driver does: mapped, so that an image
    /// maps its code from the file.
    fn open(&self, tag: u64) -> Result<Option<LinkState>, backend::link::DecodeError> {
        let file = common::unlinked_file(&self.base);
        LinkState::open(Box::new(MappedFile::map(file).unwrap()), &self.journal, tag)
    }
}

/// A chain of `n` functions, each calling the next (the last returns), and `main`
/// calling the first: every function is 32 bytes of code and a runtime reference.
fn chain(n: usize) -> (Blobs, DefId) {
    let defs: Vec<DefId> = (0..n).map(|i| fn_def_id(&format!("f{i}"))).collect();
    let mut blobs: Blobs = defs
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let mut b = match defs.get(i + 1) {
                Some(&next) => caller_of(next, 0),
                None => caller_of(d, 0),
            };
            b.bytes.resize(32, 0x90);
            if i + 1 == n {
                b.relocations.remove(0);
            }
            (d, Arc::new(b))
        })
        .collect();
    let main = fn_def_id("main");
    blobs.push((main, Arc::new(caller_of(defs[0], 0))));
    (blobs, main)
}

/// A new base planned without a copy of the code: its head, then the code the state
/// writes, are the bytes of the plan that holds them all; recording either leads to the
/// same next save (a journal record over the same base).
#[test]
fn a_lean_base_plan_writes_the_bytes_of_a_whole_one() {
    let (blobs, main) = chain(300);
    let state = LinkState::link(&blobs, main).unwrap();
    let SavePlan::Base(whole) = state.save_plan(7).unwrap() else {
        panic!("a first save writes a base");
    };
    let lean = state.save_plan_lean(7).unwrap();
    let LeanPlan::BaseHead { head, code_len } = &lean else {
        panic!("a state of its own code is planned lean: {lean:?}");
    };
    let mut bytes = head.clone();
    state.write_base_code(&lean, &mut bytes).unwrap();
    assert_eq!(bytes.len(), head.len() + code_len);
    assert!(bytes == whole);

    // Recorded either way, the next save after a patch is the same journal record.
    let (def, blob) = blobs[150].clone();
    let mut grown = (*blob).clone();
    grown.bytes.resize(200, 0x90);
    let next = |lean_saved: bool| {
        let mut s = state.clone();
        if lean_saved {
            s.saved_lean(&lean, 7);
        } else {
            s.saved(&SavePlan::Base(whole.clone()), 7);
        }
        s.patch(&[(def, Arc::new(grown.clone()))], &[], main)
            .unwrap();
        s.save_plan(8).unwrap()
    };
    let plan = next(true);
    assert!(matches!(plan, SavePlan::Journal { .. }), "{plan:?}");
    assert_eq!(plan, next(false));
}

#[test]
fn a_one_function_patch_reads_and_writes_what_does_not_grow_with_the_program() {
    let mut seen = Vec::new();
    for n in [300, 6000] {
        let (blobs, main) = chain(n);
        let mut state = LinkState::link(&blobs, main).unwrap();
        let mut disk = Disk::default();
        disk.save(&mut state, 1);
        let mut opened = disk.open(1).unwrap().unwrap();
        let at_open = opened.base_bytes_read();
        // Grow a function in the middle: it moves, and its caller's call site is patched.
        let (def, blob) = blobs[n / 2].clone();
        let mut grown = (*blob).clone();
        grown.bytes.resize(200, 0x90);
        let stats = opened.patch(&[(def, Arc::new(grown))], &[], main).unwrap();
        assert_eq!((stats.moved, stats.call_sites), (1, 1));
        let read = opened.base_bytes_read() - at_open;
        let written = disk.save(&mut opened, 2);
        assert!(disk.open(2).unwrap().is_some());
        seen.push((n, at_open, read, written));
    }
    let (small, big) = (seen[0], seen[1]);
    // The patch reads a few blocks of the tables and pages of code, and writes a
    // journal record of the same size, whatever the program's size.
    assert!(big.2 <= small.2 + 8 * 1024, "{seen:?}");
    assert_eq!(big.3, small.3, "{seen:?}");
    assert!(big.2 < 64 * 1024, "{seen:?}");
}

#[test]
fn every_damaged_or_cut_byte_of_a_base_is_detected() {
    let (blobs, main) = chain(70);
    let state = LinkState::link(&blobs, main).unwrap();
    let bytes = state.encode().unwrap();
    let (hash, code) = (state.hash(), state.code().unwrap());
    let offsets = state.image().unwrap().function_offsets().unwrap().to_vec();
    assert_eq!(offsets.len(), blobs.len());
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x41;
        assert!(LinkState::decode(&bad).is_err(), "byte {at}");
        // Opened lazily, the damage is an error when the part is used, never another
        // image or another list of functions.
        if let Ok(Some(s)) = LinkState::open(Box::new(bad), &[], 0) {
            if let Ok(image) = s.image() {
                assert_eq!(
                    (image.hash(), image.code()),
                    (hash, code.as_slice()),
                    "byte {at}"
                );
                if let Ok(listed) = image.function_offsets() {
                    assert_eq!(listed, offsets.as_slice(), "byte {at}");
                }
            }
        }
    }
    for len in 0..bytes.len() {
        assert!(LinkState::decode(&bytes[..len]).is_err(), "cut at {len}");
        assert!(LinkState::open(Box::new(bytes[..len].to_vec()), &[], 0).is_err());
    }
}

#[test]
fn an_image_maps_its_code_from_the_base_file_and_checks_it() {
    let (blobs, main) = chain(3000);
    let mut state = LinkState::link(&blobs, main).unwrap();
    let mut disk = Disk::default();
    disk.save(&mut state, 0);
    // A journal on top: the image's pages that it wrote replace the file's.
    let (def, blob) = blobs[1500].clone();
    let mut grown = (*blob).clone();
    grown.bytes.resize(100, 0x90);
    state.patch(&[(def, Arc::new(grown))], &[], main).unwrap();
    disk.save(&mut state, 1);
    let code = state.code().unwrap();
    let opened = disk.open(1).unwrap().unwrap();
    let image = opened.image().unwrap();
    assert!(image.code() == code.as_slice());
    assert_eq!(image.hash(), state.hash());
    assert_eq!(
        image.function_offsets().unwrap(),
        state.image().unwrap().function_offsets().unwrap()
    );
    // The code is the file's mapping, not a copy.
    let addr = image.code().as_ptr() as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let mapping = maps.lines().find(|l| {
        let range = l.split(' ').next().unwrap_or_default();
        let (a, b) = range.split_once('-').unwrap();
        let (a, b) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16));
        (a.unwrap()..b.unwrap()).contains(&addr)
    });
    assert!(
        mapping.is_some_and(|l| l.contains("rill-backend-test")),
        "{mapping:?}"
    );
    // Every 4 KiB of code the image keeps from the file is checked: a damaged byte in any
    // of them makes the image an error, never another program.
    let code_at = disk.base.len() - LinkState::decode(&disk.base).unwrap().code().unwrap().len();
    assert_eq!(code_at % 4096, 0, "the code is page-aligned in the file");
    for at in (code_at..disk.base.len()).step_by(4096 - 7) {
        let mut bad = Disk {
            base: disk.base.clone(),
            journal: disk.journal.clone(),
        };
        bad.base[at] ^= 0x10;
        let opened = bad.open(1).unwrap().unwrap();
        match opened.image() {
            Err(backend::LinkError::Damaged(_)) => {}
            Ok(image) => {
                // Only a page the journal replaced may hide the damage.
                assert!(image.code() == code.as_slice(), "byte {at}");
            }
            Err(e) => panic!("byte {at}: {e}"),
        }
    }
}

#[test]
fn a_journal_cut_at_any_offset_is_stale_and_a_damaged_one_is_never_used() {
    let (mut blobs, main) = chain(40);
    let mut state = LinkState::link(&blobs, main).unwrap();
    let mut disk = Disk::default();
    disk.save(&mut state, 10);
    let mut ends = Vec::new();
    for (tag, i) in [(11, 5), (12, 20)] {
        let mut b = (*blobs[i].1).clone();
        b.bytes.resize(100 + i, 0x90);
        blobs[i].1 = Arc::new(b);
        state.patch(&[blobs[i].clone()], &[], main).unwrap();
        disk.save(&mut state, tag);
        assert!(matches!(
            state.save_plan(13).unwrap(),
            SavePlan::Journal { .. }
        ));
        ends.push(disk.journal.len());
    }
    let full = disk.journal.clone();
    let want = |tag: u64| {
        let s = link(&blobs, main).unwrap();
        (tag == 12).then(|| s.hash())
    };
    for len in 0..=full.len() {
        disk.journal = full[..len].to_vec();
        // Cut before the record of tag 12: that tag is stale.
        let got = disk.open(12).expect("a cut journal is not damaged");
        assert_eq!(got.is_some(), len == full.len(), "cut at {len}");
        if let Some(s) = got {
            assert_eq!(Some(s.image().unwrap().hash()), want(12));
        }
        // The first record alone leads to tag 11.
        assert_eq!(
            disk.open(11).unwrap().is_some(),
            len >= ends[0],
            "cut at {len}"
        );
        // The base alone is tag 10's.
        assert!(disk.open(10).unwrap().is_some());
    }
    let from_scratch = link(&blobs, main).unwrap();
    for at in 0..full.len() {
        let mut bad = full.clone();
        bad[at] ^= 0x41;
        disk.journal = bad;
        if let Ok(Some(s)) = disk.open(12) {
            let image = s.image().unwrap();
            assert_eq!(image.hash(), from_scratch.hash(), "byte {at}");
        }
    }
}

#[test]
fn trusted_base_code_is_not_checked_and_a_complete_check_is_reported() {
    let (blobs, main) = chain(3000);
    let mut state = LinkState::link(&blobs, main).unwrap();
    let mut disk = Disk::default();
    disk.save(&mut state, 0);
    let code = state.code().unwrap();
    let code_at = disk.base.len() - code.len();

    // A state without a base (linked in memory) has no base code to check.
    assert!(!state.check_base_code());
    assert!(state.base_file().is_none());

    // Read from its file: the check covers every chunk, and finds them good.
    let opened = disk.open(0).unwrap().unwrap();
    assert!(opened.base_file().is_some());
    assert!(opened.check_base_code());
    assert!(opened.image().unwrap().code() == code.as_slice());

    // A damaged chunk: the check says so, and so does the image.
    let mut bad = Disk {
        base: disk.base.clone(),
        journal: Vec::new(),
    };
    bad.base[code_at + 5000] ^= 0x10;
    let opened = bad.open(0).unwrap().unwrap();
    assert!(!opened.check_base_code());
    assert!(matches!(
        opened.image(),
        Err(backend::LinkError::Damaged(_))
    ));

    // Trusted (its file known unchanged since a complete check): not read for checking,
    // so the image is made from the bytes as they are.
    let opened = bad.open(0).unwrap().unwrap();
    opened.trust_base_code();
    assert!(opened.check_base_code());
    let image = opened.image().unwrap();
    assert!(image.code() != code.as_slice());
    assert_eq!(image.code().len(), code.len());
}
