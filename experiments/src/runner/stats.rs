//! Statistics of repeated measurements: median, minimum, maximum, and the small fits the
//! paper quotes (geometric mean, log-log slope).

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

#[cfg(test)]
mod tests {
    use super::*;

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
