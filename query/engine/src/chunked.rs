//! A vector in chunks of fixed size: the engine's nodes and each query's slots.
//!
//! A `Vec` that grows by doubling holds up to twice what it needs (89k nodes of a
//! 100k-line build in room for 131k), and while it grows it holds its old copy beside the
//! new one. The engine's tables only ever grow, one element at a time, and are read by
//! index: here the first chunk grows as a `Vec` does, up to [`ChunkedVec::CHUNK`] elements
//! (so a small table stays small), and every later chunk is allocated at that size once
//! and never moved. Room left unused is less than one chunk; nothing is ever copied to
//! grow past the first chunk. An index is a shift and a mask: one load more than a `Vec`.

use std::ops::{Index, IndexMut};

/// The bytes a full chunk takes by default (about: a power of two of elements that fits).
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

pub(crate) struct ChunkedVec<T, const BYTES: usize = CHUNK_BYTES> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T, const BYTES: usize> Default for ChunkedVec<T, BYTES> {
    fn default() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T, const BYTES: usize> ChunkedVec<T, BYTES> {
    /// log2 of the elements of a chunk: the most that fit in `BYTES` (at least 16).
    const SHIFT: u32 = {
        let size = if std::mem::size_of::<T>() == 0 {
            1
        } else {
            std::mem::size_of::<T>()
        };
        let fit = BYTES / size;
        if fit < 16 {
            4
        } else {
            usize::BITS - 1 - fit.leading_zeros()
        }
    };
    /// The elements of a full chunk.
    pub(crate) const CHUNK: usize = 1 << Self::SHIFT;
    const MASK: usize = Self::CHUNK - 1;

    /// `count` elements of all-zero bytes, the memory zeroed by the allocator: the pages
    /// of elements never used are never touched, if the allocator maps blocks of a chunk's
    /// size from the kernel (whose fresh pages are zero) rather than clearing memory it
    /// used before. `T` is not zero-sized (checked when the function is compiled).
    ///
    /// # Safety
    ///
    /// All-zero bytes must be a valid `T`.
    pub(crate) unsafe fn zeroed(count: usize) -> Self {
        const {
            assert!(
                std::mem::size_of::<T>() != 0,
                "a table of zero-sized elements"
            )
        };
        let mut chunks = Vec::with_capacity(count.div_ceil(Self::CHUNK));
        let mut left = count;
        while left > 0 {
            // The first chunk of a table shorter than a chunk is its length; every other
            // chunk is full size (the last one's room is filled by later pushes).
            let cap = count.min(Self::CHUNK);
            let len = left.min(cap);
            let layout = std::alloc::Layout::array::<T>(cap).expect("a chunk fits in memory");
            // SAFETY: the layout is that of `[T; cap]`, of non-zero size (`T` is not
            // zero-sized, `cap` is not zero); the allocation comes from the global
            // allocator with that layout, as `Vec::from_raw_parts` requires, and is
            // checked for null; its `len` elements are zero bytes, a valid `T` (the
            // caller's promise).
            chunks.push(unsafe {
                let p = std::alloc::alloc_zeroed(layout) as *mut T;
                if p.is_null() {
                    std::alloc::handle_alloc_error(layout);
                }
                Vec::from_raw_parts(p, len, cap)
            });
            left -= len;
        }
        ChunkedVec { chunks, len: count }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `value`; returns its index.
    #[inline]
    pub(crate) fn push(&mut self, value: T) -> usize {
        let i = self.len;
        match self.chunks.get_mut(i >> Self::SHIFT) {
            Some(chunk) if chunk.len() < chunk.capacity() => {
                debug_assert_eq!(chunk.len(), i & Self::MASK);
                // SAFETY: there is room for one more element.
                unsafe {
                    chunk.as_mut_ptr().add(chunk.len()).write(value);
                    chunk.set_len(chunk.len() + 1);
                }
            }
            _ => self.push_growing(value),
        }
        self.len += 1;
        i
    }

    /// [`ChunkedVec::push`] when the element's chunk is missing or full: a new chunk (the
    /// first grows as needed, every later one is full size), or the first one grown, by
    /// doubling, to a full chunk at most.
    #[cold]
    #[inline(never)]
    fn push_growing(&mut self, value: T) {
        let c = self.len >> Self::SHIFT;
        if c == self.chunks.len() {
            self.chunks.push(if c == 0 {
                Vec::new()
            } else {
                Vec::with_capacity(Self::CHUNK)
            });
        }
        let chunk = &mut self.chunks[c];
        if chunk.len() == chunk.capacity() {
            debug_assert_eq!(c, 0, "only the first chunk grows");
            let cap = (2 * chunk.capacity()).clamp(4, Self::CHUNK);
            chunk.reserve_exact(cap - chunk.len());
        }
        chunk.push(value);
    }

    /// Room for `additional` more elements, allocated now: the first chunk's up to its
    /// full size, then whole chunks.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let target = self.len.saturating_add(additional);
        if target == 0 {
            return;
        }
        if self.chunks.is_empty() {
            self.chunks.push(Vec::new());
        }
        let first = target.min(Self::CHUNK);
        let c0 = &mut self.chunks[0];
        c0.reserve_exact(first.saturating_sub(c0.len()));
        let chunks = target.div_ceil(Self::CHUNK);
        self.chunks
            .reserve(chunks.saturating_sub(self.chunks.len()));
        while self.chunks.len() < chunks {
            self.chunks.push(Vec::with_capacity(Self::CHUNK));
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i < self.len {
            // SAFETY: every index below `len` is held: chunk `i >> SHIFT` exists and
            // holds more than `i & MASK` elements (`push` fills the chunks in order, and
            // `zeroed` makes them so).
            Some(unsafe {
                self.chunks
                    .get_unchecked(i >> Self::SHIFT)
                    .get_unchecked(i & Self::MASK)
            })
        } else {
            None
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i < self.len {
            // SAFETY: as in `get`.
            Some(unsafe {
                self.chunks
                    .get_unchecked_mut(i >> Self::SHIFT)
                    .get_unchecked_mut(i & Self::MASK)
            })
        } else {
            None
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.chunks.iter_mut().flatten()
    }

    /// The bytes allocated for elements (used or not).
    #[cfg(test)]
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<T>())
            .sum()
    }
}

impl<T, const BYTES: usize> Index<usize> for ChunkedVec<T, BYTES> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(v) => v,
            None => out_of_bounds(i, self.len),
        }
    }
}

impl<T, const BYTES: usize> IndexMut<usize> for ChunkedVec<T, BYTES> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
        match self.get_mut(i) {
            Some(v) => v,
            None => out_of_bounds(i, len),
        }
    }
}

#[cold]
#[inline(never)]
fn out_of_bounds(i: usize, len: usize) -> ! {
    panic!("index {i} out of bounds of a table of {len}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn chunks_fit_their_bytes() {
        assert_eq!(ChunkedVec::<u8>::CHUNK, 64 * 1024);
        assert_eq!(ChunkedVec::<[u8; 64]>::CHUNK, 1024);
        // Not a power of two: the largest power of two of elements that fits.
        assert_eq!(ChunkedVec::<[u8; 160]>::CHUNK, 256);
        assert_eq!(ChunkedVec::<[u8; 100_000]>::CHUNK, 16);
        assert_eq!(ChunkedVec::<()>::CHUNK, 64 * 1024);
        assert_eq!(ChunkedVec::<[u8; 64], { 1 << 20 }>::CHUNK, 16 * 1024);
    }

    #[test]
    fn room_left_unused_is_less_than_a_chunk() {
        let mut v = ChunkedVec::<[u64; 8]>::default();
        let chunk = ChunkedVec::<[u64; 8]>::CHUNK;
        for i in 0..(10 * chunk + 37) {
            v.push([i as u64; 8]);
            assert!(v.allocated_bytes() < (v.len() + chunk) * 64);
        }
        // A small table stays small: the first chunk grows as a `Vec` does.
        let mut small = ChunkedVec::<[u64; 8]>::default();
        small.push([0; 8]);
        assert!(small.allocated_bytes() <= 8 * 64);
    }

    #[test]
    fn elements_do_not_move_once_past_the_first_chunk() {
        let mut v = ChunkedVec::<u32>::default();
        let chunk = ChunkedVec::<u32>::CHUNK;
        for i in 0..chunk + 1 {
            v.push(i as u32);
        }
        let at = &v[chunk] as *const u32;
        for i in 0..3 * chunk {
            v.push(i as u32);
        }
        assert_eq!(at, &v[chunk] as *const u32);
    }

    #[test]
    fn zeroed_elements_are_zero_and_the_table_grows_after_them() {
        for count in [
            0,
            1,
            5,
            ChunkedVec::<u64>::CHUNK,
            2 * ChunkedVec::<u64>::CHUNK + 3,
        ] {
            // SAFETY: zero bytes are a valid `u64`.
            let mut v = unsafe { ChunkedVec::<u64>::zeroed(count) };
            assert_eq!(v.len(), count);
            assert!(v.iter().all(|&x| x == 0));
            assert_eq!(v.push(7), count);
            assert_eq!(v[count], 7);
            for i in 0..2 * ChunkedVec::<u64>::CHUNK {
                v.push(i as u64);
            }
            assert_eq!(
                v.iter().filter(|&&x| x != 0).count(),
                2 * ChunkedVec::<u64>::CHUNK
            );
        }
    }

    #[test]
    #[should_panic(expected = "index 3 out of bounds of a table of 3")]
    fn an_index_past_the_end_panics() {
        let mut v = ChunkedVec::<u32>::default();
        for i in 0..3 {
            v.push(i);
        }
        let _ = v[3];
    }

    proptest! {
        /// Pushes, reserves, reads and writes agree with a `Vec`'s.
        #[test]
        fn behaves_as_a_vec(ops in proptest::collection::vec((0u8..4, 0usize..3000), 0..200)) {
            let mut v = ChunkedVec::<(u32, u64)>::default();
            let mut model: Vec<(u32, u64)> = Vec::new();
            for (op, n) in ops {
                match op {
                    0 => {
                        for k in 0..n {
                            let x = (model.len() as u32, (k * 7) as u64);
                            prop_assert_eq!(v.push(x), model.len());
                            model.push(x);
                        }
                    }
                    1 => v.reserve(n),
                    2 => {
                        if let Some(i) = n.checked_rem(model.len().max(1)).filter(|&i| i < model.len()) {
                            v[i].1 += 1;
                            model[i].1 += 1;
                        }
                    }
                    _ => {
                        for x in v.iter_mut() {
                            x.1 = x.1.wrapping_mul(3);
                        }
                        for x in &mut model {
                            x.1 = x.1.wrapping_mul(3);
                        }
                    }
                }
                prop_assert_eq!(v.len(), model.len());
                prop_assert_eq!(v.get(model.len()), None);
                prop_assert!(v.iter().eq(model.iter()));
                for (i, x) in model.iter().enumerate() {
                    prop_assert_eq!(&v[i], x);
                }
            }
        }
    }
}
