//! Statistics of repeated measurements: median, minimum, maximum, the small fits the
//! paper quotes (geometric mean, log-log slope), and bootstrap confidence intervals of
//! statistics of paired rounds ([`bootstrap`], [`paired_ratio`]).

/// The spread of repeated samples of one measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

/// Median, minimum and maximum of `samples` (NaNs ignored); `None` when there is no
/// sample. The median of an even count is the mean of the two middle samples.
pub fn spread(samples: &[f64]) -> Option<Spread> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Some(Spread {
        median,
        min: v[0],
        max: v[n - 1],
        n,
    })
}

/// The geometric mean of positive values; `None` if there is none or one is not positive.
// `!(v > 0)` also rejects NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| !(*v > 0.0)) {
        return None;
    }
    let sum: f64 = values.iter().map(|v| v.ln()).sum();
    Some((sum / values.len() as f64).exp())
}

/// The least-squares slope of `ln y` against `ln x`: the exponent `k` of `y ≈ c·x^k`.
/// `None` with fewer than two distinct positive points.
pub fn loglog_slope(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    Some(sxy / sxx)
}

/// `a / b` when both exist and `b` is positive.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 && a.is_finite() => Some(a / b),
        _ => None,
    }
}

/// The median of `samples` (NaNs ignored).
pub fn median(samples: &[f64]) -> Option<f64> {
    spread(samples).map(|s| s.median)
}

/// A statistic with its bootstrap 95 % confidence interval: `value` is the statistic of
/// the measured rounds, `low` and `high` the 2.5th and 97.5th percentiles of the statistic
/// over resamples of the rounds, `n` the number of rounds (the smallest stratum's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub n: usize,
}

impl Interval {
    /// Whether `x` lies in `[low, high]`.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// Resamples of every bootstrap.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// The seed of every bootstrap: the same samples always give the same interval.
pub const BOOTSTRAP_SEED: u64 = 0x5eed_b007_57a9_0001;

/// SplitMix64: a small deterministic generator (no dependency, same stream everywhere).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is below 2^-50 for the counts used).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// One round of a paired measurement: the value of every side measured in it.
pub type Round = Vec<f64>;

/// The percentile bootstrap of `stat` over `strata`: each stratum is a list of rounds
/// (the rounds of one paired measurement; a round keeps its sides together), resampled
/// with replacement within the stratum, to the stratum's size, [`BOOTSTRAP_RESAMPLES`]
/// times with [`BOOTSTRAP_SEED`]. Resamples where `stat` has no value are left out.
/// `None` when `stat` has no value on the measured rounds; a single round per stratum
/// gives `low == high == value`.
pub fn bootstrap(
    strata: &[Vec<Round>],
    stat: impl Fn(&[Vec<Round>]) -> Option<f64>,
) -> Option<Interval> {
    let value = stat(strata).filter(|v| v.is_finite())?;
    let n = strata.iter().map(Vec::len).min().unwrap_or(0);
    if n == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(BOOTSTRAP_SEED);
    let mut resampled: Vec<Vec<Round>> = strata.to_vec();
    let mut stats = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for (stratum, out) in strata.iter().zip(resampled.iter_mut()) {
            for slot in out.iter_mut() {
                slot.clone_from(&stratum[rng.below(stratum.len())]);
            }
        }
        if let Some(v) = stat(&resampled).filter(|v| v.is_finite()) {
            stats.push(v);
        }
    }
    if stats.is_empty() {
        return Some(Interval {
            value,
            low: value,
            high: value,
            n,
        });
    }
    stats.sort_by(f64::total_cmp);
    Some(Interval {
        value,
        low: percentile(&stats, 0.025),
        high: percentile(&stats, 0.975),
        n,
    })
}

/// The `q` quantile of sorted `v` (linear interpolation between closest ranks).
fn percentile(v: &[f64], q: f64) -> f64 {
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// The ratio of the medians of two columns of `rounds` (`num` over `den`).
pub fn ratio_of_medians(rounds: &[Round], num: usize, den: usize) -> Option<f64> {
    let col = |i: usize| rounds.iter().map(|r| r[i]).collect::<Vec<_>>();
    ratio(median(&col(num)), median(&col(den)))
}

/// The ratio of medians of paired samples (`(numerator, denominator)`, one pair per
/// round), with its bootstrap interval (rounds resampled as pairs).
pub fn paired_ratio(pairs: &[(f64, f64)]) -> Option<Interval> {
    let rounds: Vec<Round> = pairs.iter().map(|&(a, b)| vec![a, b]).collect();
    bootstrap(&[rounds], |s| ratio_of_medians(&s[0], 0, 1))
}

/// The geometric mean over strata of each stratum's ratio of medians (columns 0 over
/// 1), with its bootstrap interval (each stratum's rounds resampled as pairs).
pub fn geomean_of_paired_ratios(strata: &[Vec<(f64, f64)>]) -> Option<Interval> {
    let strata: Vec<Vec<Round>> = strata
        .iter()
        .map(|s| s.iter().map(|&(a, b)| vec![a, b]).collect())
        .collect();
    if strata.is_empty() {
        return None;
    }
    bootstrap(&strata, |s| {
        let ratios: Option<Vec<f64>> = s.iter().map(|r| ratio_of_medians(r, 0, 1)).collect();
        geomean(&ratios?)
    })
}

/// The median of `samples` with its bootstrap interval.
pub fn median_interval(samples: &[f64]) -> Option<Interval> {
    let rounds: Vec<Round> = samples.iter().map(|&x| vec![x]).collect();
    bootstrap(&[rounds], |s| {
        median(&s[0].iter().map(|r| r[0]).collect::<Vec<_>>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_of_a_paired_ratio() {
        // Ten rounds whose ratio is about 2, with noise shared by both sides.
        let pairs: Vec<(f64, f64)> = (0..10)
            .map(|i| {
                let load = 1.0 + 0.1 * (i % 4) as f64;
                (20.0 * load + i as f64 * 0.3, 10.0 * load)
            })
            .collect();
        let iv = paired_ratio(&pairs).unwrap();
        assert_eq!(iv.n, 10);
        let direct = median(&pairs.iter().map(|p| p.0).collect::<Vec<_>>()).unwrap()
            / median(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()).unwrap();
        assert_eq!(iv.value, direct);
        assert!(iv.low <= iv.value && iv.value <= iv.high, "{iv:?}");
        assert!(iv.low > 1.5 && iv.high < 2.5, "{iv:?}");
        assert!(iv.low < iv.high, "{iv:?}");
        // Deterministic: the same samples, the same interval.
        assert_eq!(paired_ratio(&pairs), Some(iv));
        // One round: a degenerate interval; none: no interval.
        let one = paired_ratio(&[(3.0, 2.0)]).unwrap();
        assert_eq!((one.value, one.low, one.high, one.n), (1.5, 1.5, 1.5, 1));
        assert_eq!(paired_ratio(&[]), None);
        assert_eq!(paired_ratio(&[(1.0, 0.0)]), None);
        // Identical rounds: no spread.
        let same = paired_ratio(&[(4.0, 2.0); 5]).unwrap();
        assert_eq!((same.low, same.high), (2.0, 2.0));
    }

    #[test]
    fn bootstrap_of_a_geomean_and_a_median() {
        let a: Vec<(f64, f64)> = (0..8).map(|i| (2.0 + 0.01 * i as f64, 1.0)).collect();
        let b: Vec<(f64, f64)> = (0..8).map(|i| (8.0 + 0.01 * i as f64, 1.0)).collect();
        let iv = geomean_of_paired_ratios(&[a, b]).unwrap();
        assert!((iv.value - 4.0).abs() < 0.05, "{iv:?}");
        assert!(iv.contains(iv.value) && iv.high - iv.low < 0.2, "{iv:?}");
        assert_eq!(geomean_of_paired_ratios(&[]), None);
        let m = median_interval(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(m.value, 3.0);
        assert!(m.low >= 1.0 && m.high <= 5.0 && m.contains(3.0), "{m:?}");
    }

    #[test]
    fn splitmix_is_a_fixed_stream() {
        let mut a = SplitMix64::new(1);
        let mut b = SplitMix64::new(1);
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(xs, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert!(xs.windows(2).all(|w| w[0] != w[1]));
        assert!((0..100).all(|_| a.below(7) < 7));
    }

    #[test]
    fn spread_odd_even_and_empty() {
        let s = spread(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.n), (2.0, 1.0, 3.0, 3));
        let s = spread(&[4.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.n), (3.0, 1.0, 10.0, 4));
        let s = spread(&[5.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (5.0, 5.0, 5.0));
        assert_eq!(spread(&[]), None);
        assert_eq!(spread(&[f64::NAN]), None);
        let s = spread(&[f64::NAN, 7.0, 1.0]).unwrap();
        assert_eq!((s.median, s.n), (4.0, 2));
    }

    #[test]
    fn geomean_and_slope() {
        assert!((geomean(&[1.0, 4.0]).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(geomean(&[1.0, 0.0]), None);
        assert_eq!(geomean(&[]), None);
        let pts: Vec<(f64, f64)> = [1e3, 1e4, 1e5].iter().map(|x| (*x, 3.0 * x * x)).collect();
        assert!((loglog_slope(&pts).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(loglog_slope(&[(1.0, 1.0)]), None);
        assert_eq!(ratio(Some(1.0), Some(0.0)), None);
        assert_eq!(ratio(Some(1.0), Some(4.0)), Some(0.25));
        assert_eq!(ratio(None, Some(4.0)), None);
    }
}
