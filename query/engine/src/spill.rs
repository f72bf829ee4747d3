//! The encoded values a persisting database keeps for its save, held in a file instead of
//! in memory.
//!
//! A `cache_on_disk` value whose fingerprint is the hash of its encoding is encoded once,
//! when it is executed (`execute::fingerprint_raw`), and a database that will save its
//! cache keeps those bytes so as not to encode the value again when it saves. Kept in
//! memory, they were a second copy of every persisted value (as large as the cache file's
//! records) held from the value's execution to the save: at 100k lines, 2.9 MiB of the heap
//! at the end of a build, on which the save's own memory then comes. Here they are
//! appended to a file of the cache directory instead, written through a buffer of 64 KiB
//! as they come and read back by the save a window of 64 KiB at a time (the save reads
//! them in the order they were written), so that what the process holds of them at any
//! time is those two buffers.
//!
//! The file is removed as soon as it is created: only this database's descriptor names it,
//! so it disappears with the process however the process ends, and the cache directory
//! never shows it. A value whose bytes cannot be written (a full disk) or read back is
//! encoded again from its value by the save, or not saved when that is gone (released):
//! it is then computed again when a later build needs it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Where bytes are in a [`Spill`] file, in 8 bytes, and as many as an `Option` of it (a slot
/// of every query holds one): the offset in the high 40 bits (a file of up to 1 TiB), the
/// length plus one in the low 24 (a value of up to 16 MiB less 2 bytes). Bytes that do not
/// fit are not kept: the save encodes their value again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpillRef(std::num::NonZeroU64);

const _: () = assert!(std::mem::size_of::<Option<SpillRef>>() == 8);

/// The bits of a [`SpillRef`] that hold the length plus one.
const LEN_BITS: u32 = 24;
/// The longest bytes a [`SpillRef`] places.
const MAX_LEN: usize = (1 << LEN_BITS) - 2;
/// The largest offset a [`SpillRef`] holds.
const MAX_AT: u64 = (1 << (64 - LEN_BITS)) - 1;

impl SpillRef {
    /// The place of `len` bytes at `at`, if it fits.
    fn new(at: u64, len: usize) -> Option<SpillRef> {
        if len > MAX_LEN || at > MAX_AT {
            return None;
        }
        std::num::NonZeroU64::new(at << LEN_BITS | (len as u64 + 1)).map(SpillRef)
    }

    fn at(self) -> u64 {
        self.0.get() >> LEN_BITS
    }

    fn len(self) -> usize {
        (self.0.get() & ((1 << LEN_BITS) - 1)) as usize - 1
    }
}

/// Bytes appended through the buffer before it is written to the file.
const BUFFER: usize = 64 << 10;

/// Bytes read from the file at once by [`Spill::read_into`].
const WINDOW: usize = 64 << 10;

/// An append-only file of encoded values.
pub(crate) struct Spill {
    file: File,
    /// Bytes appended but not written to the file yet; they follow the file's `written`.
    buf: Vec<u8>,
    written: u64,
    /// The bytes of the file from `window_at` last read by [`Spill::read_into`], and how
    /// many reads they served.
    window: Vec<u8>,
    window_at: u64,
    window_hits: u32,
    /// A write failed: nothing is appended any more, and only the bytes before `written`
    /// are read back.
    failed: bool,
    /// Why the last write or read failed, until [`Spill::take_error`] takes it.
    error: Option<std::io::Error>,
}

impl Spill {
    /// A new, empty spill file in `dir` (the cache directory), already removed from it.
    pub(crate) fn create(dir: &Path) -> std::io::Result<Spill> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = dir.join(format!(
            "{}.spill.{}.{}",
            crate::cache_dir::TMP_PREFIX,
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        // Named by the descriptor alone from here on; a file that cannot be removed (a
        // system that does not allow it while open) is not used, and goes.
        if let Err(e) = std::fs::remove_file(&path) {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok(Spill {
            file,
            buf: Vec::new(),
            written: 0,
            window: Vec::new(),
            window_at: 0,
            window_hits: 0,
            failed: false,
            error: None,
        })
    }

    /// Appends `bytes`; where they are, or `None` if the file cannot take them: bytes
    /// whose place a [`SpillRef`] cannot say (nothing was appended; later bytes still
    /// are), or a failed write (nothing is appended from then on).
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Option<SpillRef> {
        if self.failed {
            return None;
        }
        // Where the bytes go (the same once the buffer is written), if a place can say it.
        let r = SpillRef::new(self.written + self.buf.len() as u64, bytes.len())?;
        if self.buf.len() + bytes.len() > BUFFER && !self.flush() {
            return None;
        }
        if bytes.len() >= BUFFER {
            // A value as large as the buffer goes to the file as it is.
            if let Err(e) = self.file.write_all(bytes) {
                self.failed = true;
                self.error = Some(e);
                return None;
            }
            self.written += bytes.len() as u64;
        } else {
            if self.buf.capacity() == 0 {
                self.buf.reserve_exact(BUFFER);
            }
            self.buf.extend_from_slice(bytes);
        }
        Some(r)
    }

    /// Writes the buffer to the file; false if that failed. After a failed write (of which
    /// some part may have reached the file) the bytes from the buffer's start on are never
    /// read: the places given for them are not where a later write would put anything.
    fn flush(&mut self) -> bool {
        match self.file.write_all(&self.buf) {
            Ok(()) => self.written += self.buf.len() as u64,
            Err(e) => {
                self.failed = true;
                self.error = Some(e);
            }
        }
        self.buf.clear();
        !self.failed
    }

    /// Whether every write succeeded: all the bytes pushed can be read back.
    pub(crate) fn intact(&self) -> bool {
        !self.failed
    }

    /// Why the last write or read failed, once.
    pub(crate) fn take_error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }

    /// Appends the bytes at `r` to `out`; false if they cannot be read (`out` unchanged).
    pub(crate) fn read_into(&mut self, r: SpillRef, out: &mut Vec<u8>) -> bool {
        let (at, len) = (r.at(), r.len());
        let Some(end) = at.checked_add(len as u64) else {
            return false;
        };
        if at >= self.written {
            if self.failed {
                return false;
            }
            // Still in the buffer.
            let from = (at - self.written) as usize;
            return match self.buf.get(from..from + len) {
                Some(b) => {
                    out.extend_from_slice(b);
                    true
                }
                None => false,
            };
        }
        if end > self.written {
            return false;
        }
        let in_window = at >= self.window_at && end <= self.window_at + self.window.len() as u64;
        if !in_window {
            // A save reads the values in the order they were appended (its order is
            // the graph's dependency order, in which they were computed): the next ones
            // follow in the file. A window that served one read only is followed by a
            // small one, so that reads in another order do not each read a large one.
            let size = if self.window_hits > 1 {
                WINDOW
            } else {
                WINDOW / 16
            };
            let size = (size as u64).max(len as u64).min(self.written - at) as usize;
            self.window.resize(size, 0);
            if let Err(e) = read_at(&self.file, &mut self.window, at) {
                self.window.clear();
                self.error = Some(e);
                return false;
            }
            self.window_at = at;
            self.window_hits = 0;
        }
        self.window_hits += 1;
        let from = (at - self.window_at) as usize;
        out.extend_from_slice(&self.window[from..from + len]);
        true
    }
}

/// Fills `buf` from `file` at `at`, without moving the file's position (appends go on at
/// its end).
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at)
}

/// Without a positioned read the bytes are not read back: the save encodes the value again.
#[cfg(not(unix))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(seed: u32, len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (seed as usize * 31 + i * 7) as u8)
            .collect()
    }

    #[test]
    fn what_is_pushed_reads_back_from_the_buffer_the_file_and_windows_read_before_it_grew() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Spill::create(dir.path()).unwrap();
        // Removed at once: the directory shows nothing.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let lens = [0, 1, 100, 5000, BUFFER - 1, BUFFER, 3 * BUFFER, 17, 40_000];
        let mut refs = Vec::new();
        for round in 0..40u32 {
            for (k, &len) in lens.iter().enumerate() {
                let b = bytes(round * 16 + k as u32, len);
                refs.push((s.push(&b).unwrap(), b));
            }
            // Read some back while more is being pushed: the buffer, the file, and a
            // window read before the file grew.
            for (r, b) in refs.iter().rev().step_by(5) {
                let mut out = vec![9];
                assert!(s.read_into(*r, &mut out));
                assert_eq!(&out[1..], &b[..]);
            }
        }
        for (r, b) in &refs {
            let mut out = Vec::new();
            assert!(s.read_into(*r, &mut out));
            assert_eq!(&out, b);
        }
        // A place past the end reads nothing.
        let mut out = Vec::new();
        let past = SpillRef::new(s.written + s.buf.len() as u64, 1).unwrap();
        assert!(!s.read_into(past, &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn a_place_holds_the_largest_offsets_and_lengths_it_says_and_no_larger() {
        for (at, len) in [
            (0, 0),
            (0, MAX_LEN),
            (MAX_AT, 0),
            (MAX_AT, MAX_LEN),
            (12345, 678),
        ] {
            let r = SpillRef::new(at, len).unwrap();
            assert_eq!((r.at(), r.len()), (at, len));
        }
        assert_eq!(SpillRef::new(MAX_AT + 1, 0), None);
        assert_eq!(SpillRef::new(0, MAX_LEN + 1), None);
    }

    #[test]
    fn bytes_longer_than_a_place_says_are_not_kept_and_the_file_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Spill::create(dir.path()).unwrap();
        let before = s.push(&bytes(1, 10)).unwrap();
        assert_eq!(s.push(&vec![7; MAX_LEN + 1]), None);
        // Nothing was appended, and the file is still whole.
        assert!(s.intact());
        let after = s.push(&bytes(2, 10)).unwrap();
        assert_eq!(after.at(), before.at() + 10);
        for (r, b) in [(before, bytes(1, 10)), (after, bytes(2, 10))] {
            let mut out = Vec::new();
            assert!(s.read_into(r, &mut out));
            assert_eq!(out, b);
        }
    }

    #[test]
    fn a_spill_cannot_be_made_where_nothing_can_be_written() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Spill::create(&dir.path().join("missing")).is_err());
    }
}
