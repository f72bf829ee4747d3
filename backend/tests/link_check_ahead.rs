//! The checks of a stored link state's code started ahead, on a thread of their own
//! (`LinkState::check_code_ahead`): the image made afterwards is the same, each code chunk
//! is hashed once whichever thread gets to it (but for one the threads may meet on), and a
//! damaged chunk still makes the image fail, wherever it is.

mod common;

use std::sync::Arc;

use backend::link::{MappedFile, SavePlan, CHECK_AHEAD_MIN};
use backend::{CodeBlob, LinkError, LinkState, RelocTarget, Relocation, RuntimeFn};
use shared_frontend::ir::builder::fn_def_id;
use shared_frontend::sema::def::DefId;

type Blobs = Vec<(DefId, Arc<CodeBlob>)>;

/// `n` functions of `size` bytes each (a call of the next, a runtime call, `ret`, then
/// data), and `main` calling the first.
fn program(n: usize, size: usize) -> (Blobs, DefId) {
    let defs: Vec<DefId> = (0..n).map(|i| fn_def_id(&format!("f{i}"))).collect();
    let blob = |callee: DefId| {
        let mut bytes = vec![0xe8, 0, 0, 0, 0, 0xff, 0x15, 0, 0, 0, 0, 0xc3];
        bytes.resize(size, 0x5a);
        CodeBlob {
            bytes,
            code_len: 12,
            data: Vec::new(),
            params: 0,
            relocations: vec![
                Relocation {
                    offset: 1,
                    target: RelocTarget::Function { callee, args: 0 },
                    addend: -4,
                },
                Relocation {
                    offset: 7,
                    target: RelocTarget::Runtime(RuntimeFn::Limit),
                    addend: -4,
                },
            ],
        }
    };
    let mut blobs: Blobs = (0..n)
        .map(|i| (defs[i], Arc::new(blob(defs[(i + 1) % n]))))
        .collect();
    let main = fn_def_id("main");
    blobs.push((main, Arc::new(blob(defs[0]))));
    (blobs, main)
}

/// A base file of the program's state, as a save writes it.
fn base_bytes() -> (Vec<u8>, usize) {
    let (blobs, main) = program(24, 64 * 1024);
    let state = LinkState::link(&blobs, main).unwrap();
    let code_len = state.code().unwrap().len();
    assert!(code_len >= CHECK_AHEAD_MIN, "{code_len}");
    let plan = state.save_plan(1).unwrap();
    let SavePlan::Base(bytes) = plan else {
        panic!("a first save writes a base");
    };
    (bytes, code_len)
}

/// The state in `bytes`, opened from a file as the driver opens it (mapped, so that the
/// image maps its code from the file).
fn open(bytes: &[u8]) -> LinkState {
    let file = common::unlinked_file(bytes);
    LinkState::open(Box::new(MappedFile::map(file).unwrap()), &[], 1)
        .unwrap()
        .expect("the state of tag 1")
}

#[test]
fn checked_ahead_the_image_is_the_same_and_the_chunks_are_hashed_once() {
    let (bytes, code_len) = base_bytes();
    let plain = open(&bytes);
    let at_open = plain.base_bytes_read();
    let expected = plain.image().unwrap();
    let plain_read = plain.base_bytes_read() - at_open;
    assert!(plain_read >= code_len as u64, "{plain_read} < {code_len}");
    for _ in 0..8 {
        let ahead = open(&bytes);
        let at_open = ahead.base_bytes_read();
        ahead.check_code_ahead();
        let image = ahead.image().unwrap();
        assert_eq!(image.code(), expected.code());
        assert_eq!(image.hash(), expected.hash());
        // Every chunk hashed once, by one thread or the other (what the image alone
        // read), but for the one both may meet on, which the image hashes rather than
        // waiting for.
        let read = ahead.base_bytes_read() - at_open;
        assert!(
            (plain_read..=plain_read + 4096).contains(&read),
            "{read} bytes read, {plain_read} without the thread"
        );
    }
}

#[test]
fn a_damaged_chunk_fails_the_image_wherever_it_is() {
    let (bytes, code_len) = base_bytes();
    let code_at = bytes.len() - code_len;
    // The first chunk (which the thread checks first), one in the middle, the last (which
    // the image checks first).
    for at in [code_at + 20, code_at + code_len / 2, bytes.len() - 3] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        for ahead in [false, true] {
            let state = open(&damaged);
            if ahead {
                state.check_code_ahead();
                // Give the thread time to reach the damaged chunk first, sometimes.
                std::thread::sleep(std::time::Duration::from_millis(if at < code_at + 100 {
                    5
                } else {
                    0
                }));
            }
            match state.image() {
                Err(LinkError::Damaged(_)) => {}
                Err(e) => panic!("byte {at}: {e}"),
                Ok(_) => panic!("byte {at}, ahead {ahead}: a damaged chunk made an image"),
            }
        }
    }
}

/// The memory the process holds of the file with inode `ino`, through every mapping of
/// it, in bytes (`Rss` of `/proc/self/smaps`).
#[cfg(target_os = "linux")]
fn resident_bytes_of(ino: u64) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("the process's mappings");
    let mut of_file = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first().is_some_and(|f| f.contains('-')) && fields.len() >= 5 {
            of_file = fields[4].parse::<u64>().is_ok_and(|i| i == ino);
        } else if of_file && fields.first() == Some(&"Rss:") {
            kib += fields[1].parse::<u64>().expect("a size in kB");
        }
    }
    kib * 1024
}

#[test]
#[cfg(target_os = "linux")]
fn the_check_ahead_does_not_keep_holding_the_code_it_read() {
    use std::os::unix::fs::MetadataExt;
    let (bytes, code_len) = base_bytes();
    let expected = open(&bytes).image().unwrap();
    let file = common::unlinked_file(&bytes);
    let ino = file.metadata().unwrap().ino();
    let state = LinkState::open(Box::new(MappedFile::map(file).unwrap()), &[], 1)
        .unwrap()
        .expect("the state of tag 1");
    let check = state
        .code_check()
        .expect("a base large enough to check ahead");
    let at_open = state.base_bytes_read();
    // On this thread, so that every chunk is hashed here.
    check();
    assert_eq!(state.base_bytes_read() - at_open, code_len as u64);
    // What it holds of the file is at most the pages before the code (the directory the
    // checks read), not the code it hashed.
    let before_code = (bytes.len() - code_len) as u64;
    let held = resident_bytes_of(ino);
    assert!(
        held <= before_code,
        "{held} bytes of the file held after the check; {before_code} precede the code"
    );
    // The image reads the code again where it maps it, and it is the same.
    let image = state.image().unwrap();
    assert_eq!(image.code(), expected.code());
    assert_eq!(image.hash(), expected.hash());
}
