//! Property: any sequence of patches of a link state equals a link from scratch of the
//! same functions: the same image hash, the same bytes when placed the same way, the same
//! run. Patches grow and shrink functions (padding after their data, which no code reads),
//! add and remove functions that call others and the runtime, and swap in other programs.

mod common;

use std::sync::Arc;

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
    let limits = RunLimits::default();
    let (a, b) = (state.image().unwrap().run(&limits), fresh.run(&limits));
    assert_eq!((a.stdout, a.status), (b.stdout, b.status));
    // The state survives encoding.
    let decoded = LinkState::decode(&state.encode().unwrap()).expect("decodes");
    assert_eq!(decoded.hash(), state.hash());
    assert_eq!(decoded.code(), state.code());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn patches_equal_a_link_from_scratch(seed in any::<u64>(), steps in prop::collection::vec(step(), 1..12)) {
        let (mut blobs, mut main) = program_blobs(seed);
        let mut state = LinkState::link(&blobs, main).unwrap();
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
