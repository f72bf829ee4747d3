//! A small deterministic PRNG (SplitMix64), so that a seed yields the same program on every
//! platform and in every process. No floating point is involved anywhere.

/// SplitMix64 (Steele, Lea, Flood 2014): one `u64` of state, passes BigCrush, and is fast.
#[derive(Clone, Debug)]
pub(crate) struct Rng {
    state: u64,
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng {
            state: seed ^ 0x5851_F42D_4C95_7F2D,
        }
    }

    /// An independent stream derived from this one's seed and `salt`, without advancing
    /// `self`: used where a part of the program must be regenerated identically.
    pub(crate) fn fork(&self, salt: u64) -> Rng {
        let mut r = Rng::new(self.state ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64();
        r
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below 2^-32 for our n).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        match (hi - lo).checked_add(1) {
            Some(n) => lo + self.below(n),
            None => self.next_u64(),
        }
    }

    pub(crate) fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// True with probability `percent`/100.
    pub(crate) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as u64
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// Index into `weights`, chosen with probability proportional to the weight.
    pub(crate) fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut x = self.below(total as u64) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        unreachable!("weights sum to {total}")
    }

    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn known_values_are_stable() {
        let mut r = Rng::new(0);
        let a: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut r = Rng::new(0);
        let b: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(a, b);
        assert_ne!(a[0], a[1]);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(7);
        for n in 1..50 {
            for _ in 0..20 {
                assert!(r.below(n) < n);
            }
        }
    }
}
