//! A file written in pieces of at most [`WRITE_PIECE`] bytes: the cache files a later
//! build maps and reads in place (the query cache, the link state's base).
//!
//! A file cache of large blocks (Linux's, on a file system with large folios) keeps a
//! file's bytes in blocks as large as the writes that put them there, up to megabytes for
//! one write, and a read through a mapping maps the whole block around the byte it reads:
//! a base written in one piece made opening it (its header and directory, a few KiB) map
//! 512 KiB, and the sections the query cache's writer wrote in one write each (its table,
//! keys and fingerprints, which a rebuild reads a few entries of) mapped 256 or 512 KiB
//! for each entry read, measured at 100k lines. In pieces of 64 KiB, the size a mapping's
//! read maps around a byte anyway, a build holds only the parts it reads. The bytes
//! written are the same; under another file cache nothing changes.

use std::io::{Seek, SeekFrom, Write};

/// The largest write [`InPieces`] makes.
pub const WRITE_PIECE: usize = 64 << 10;

/// A writer that hands `W` at most [`WRITE_PIECE`] bytes a write.
pub struct InPieces<W>(pub W);

impl<W: Write> Write for InPieces<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(&buf[..buf.len().min(WRITE_PIECE)])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl<W: Seek> Seek for InPieces<W> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.0.seek(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that keeps what it is given and the size of each write.
    #[derive(Default)]
    struct Recorder {
        writes: Vec<usize>,
        bytes: Vec<u8>,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.writes.push(buf.len());
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_file_is_written_in_pieces_of_the_mapped_size() {
        let data: Vec<u8> = (0..3 * WRITE_PIECE + 123)
            .map(|i| (i % 251) as u8)
            .collect();
        let mut w = InPieces(Recorder::default());
        w.write_all(&data[..10]).unwrap();
        w.write_all(&data[10..]).unwrap();
        w.flush().unwrap();
        assert_eq!(w.0.bytes, data);
        let rest = data.len() - 10;
        let mut expected = vec![10];
        expected.extend(std::iter::repeat_n(WRITE_PIECE, rest / WRITE_PIECE));
        expected.push(rest % WRITE_PIECE);
        assert_eq!(w.0.writes, expected);
    }

    /// Behind a buffer (as the query cache's writer has), a write larger than the buffer
    /// goes past it in pieces too, and a seek back to patch a header still lands.
    #[test]
    fn behind_a_buffer_large_writes_go_in_pieces_and_seeks_land() {
        let mut file = std::io::Cursor::new(Vec::new());
        {
            let mut w = std::io::BufWriter::with_capacity(1 << 12, InPieces(&mut file));
            w.write_all(&[0u8; 16]).unwrap();
            w.write_all(&vec![7u8; 5 * WRITE_PIECE]).unwrap();
            w.seek(SeekFrom::Start(0)).unwrap();
            w.write_all(b"head").unwrap();
            w.flush().unwrap();
        }
        let bytes = file.into_inner();
        assert_eq!(bytes.len(), 16 + 5 * WRITE_PIECE);
        assert_eq!(&bytes[..4], b"head");
        assert!(bytes[4..16].iter().all(|&b| b == 0));
        assert!(bytes[16..].iter().all(|&b| b == 7));
        // And the sizes the file was handed, through a recorder behind the same buffer.
        let mut w = std::io::BufWriter::with_capacity(1 << 12, InPieces(Recorder::default()));
        w.write_all(&[1u8; 100]).unwrap();
        w.write_all(&vec![2u8; 2 * WRITE_PIECE + 5]).unwrap();
        let rec = w.into_inner().map_err(|e| e.into_error()).unwrap().0;
        assert!(
            rec.writes.iter().all(|&n| n <= WRITE_PIECE),
            "{:?}",
            rec.writes
        );
        assert_eq!(rec.bytes.len(), 100 + 2 * WRITE_PIECE + 5);
    }
}
