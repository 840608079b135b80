//! Latency statistics: an HDR histogram in nanoseconds plus exact running moments.

use hdrhistogram::Histogram;

/// Significant figures kept by every latency histogram (relative error ≤ 0.05%).
pub const SIGFIGS: u8 = 3;

/// One latency population (e.g. read clat): an HDR histogram (ns, 3 significant digits)
/// for percentiles, and exact count/min/max/sum/sum of squares for the moments.
///
/// Merging two `LatStat`s with `+=` is exact: histograms add bucket by bucket and the
/// moments add, so a merged result equals recording every sample into one.
#[derive(Clone, Debug)]
pub struct LatStat {
    /// Made on the first sample: most populations of a job stay empty (a read job's
    /// write and trim sides, slat of engines without a submit phase), and an empty
    /// histogram would still cost 16 KiB per population per thread.
    hist: Option<Histogram<u64>>,
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sumsq: u128,
}

impl Default for LatStat {
    fn default() -> Self {
        Self::new()
    }
}

impl LatStat {
    /// An empty population.
    pub fn new() -> Self {
        LatStat {
            hist: None,
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sumsq: 0,
        }
    }

    /// Record one sample in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        // auto-resize is on: the histogram grows to hold any value it can represent;
        // a value beyond that (centuries in ns) is clamped rather than lost.
        let h = self.hist.get_or_insert_with(empty_histogram);
        if h.record(ns).is_err() {
            h.saturating_record(ns);
        }
        self.n += 1;
        if ns < self.min {
            self.min = ns;
        }
        if ns > self.max {
            self.max = ns;
        }
        self.sum += ns as u128;
        self.sumsq += (ns as u128) * (ns as u128);
    }

    /// A population read from another tool's histogram (fio's JSON+ bins: value, count)
    /// with that tool's exact moments: percentiles come from the bins, count, min, max,
    /// mean and standard deviation are the ones given (rounded to whole nanoseconds).
    pub fn from_bins(
        bins: impl IntoIterator<Item = (u64, u64)>,
        (n, min, max, mean, stddev): (u64, u64, u64, f64, f64),
    ) -> LatStat {
        let mut s = LatStat::new();
        for (ns, k) in bins {
            s.record_n(ns, k);
        }
        if n == 0 {
            return s;
        }
        s.n = n;
        s.min = min;
        s.max = max.max(min);
        let (nf, mean, sd) = (n as f64, mean.max(0.0), stddev.max(0.0));
        s.sum = (mean * nf).round() as u128;
        // Σx² from the sample variance: (n−1)·sd² + n·mean².
        let sumsq = (nf - 1.0).max(0.0) * sd * sd + nf * mean * mean;
        s.sumsq = if sumsq.is_finite() {
            sumsq.round() as u128
        } else {
            u128::MAX / (n as u128).max(1)
        };
        s
    }

    /// Record `n` samples of the same value (e.g. a histogram bucket read from a file).
    pub fn record_n(&mut self, ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        let h = self.hist.get_or_insert_with(empty_histogram);
        if h.record_n(ns, n).is_err() {
            h.saturating_record_n(ns, n);
        }
        self.n += n;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128 * n as u128;
        self.sumsq += (ns as u128) * (ns as u128) * n as u128;
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Smallest sample (0 when empty).
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }
    /// Largest sample (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Sum of all samples in ns.
    pub fn sum(&self) -> u128 {
        self.sum
    }
    /// Sum of the squares of all samples, ns².
    pub fn sumsq(&self) -> u128 {
        self.sumsq
    }
    /// Exact arithmetic mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Sample standard deviation (n−1 denominator, as fio), 0 for fewer than 2 samples.
    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        // Compute the variance from exact integer sums to avoid cancellation:
        // var = (n·Σx² − (Σx)²) / (n(n−1)).
        let n_i = self.n as u128;
        let num = n_i
            .checked_mul(self.sumsq)
            .and_then(|a| a.checked_sub(self.sum * self.sum));
        match num {
            Some(num) => ((num as f64) / (n * (n - 1.0))).sqrt(),
            None => {
                let mean = self.mean();
                let var = (self.sumsq as f64 - n * mean * mean) / (n - 1.0);
                var.max(0.0).sqrt()
            }
        }
    }
    /// The value at percentile `p` (0..=100): the smallest recorded value such that at
    /// least p% of samples are ≤ it, reported as the highest value equivalent to that
    /// histogram bucket (never more than 0.1% above the true sample), and clamped to max.
    pub fn percentile(&self, p: f64) -> u64 {
        let Some(h) = self.hist.as_ref().filter(|_| self.n > 0) else {
            return 0;
        };
        h.value_at_quantile(p / 100.0).min(self.max).max(self.min())
    }
    /// The underlying histogram (for lossless export).
    pub fn histogram(&self) -> &Histogram<u64> {
        static EMPTY: std::sync::OnceLock<Histogram<u64>> = std::sync::OnceLock::new();
        self.hist
            .as_ref()
            .unwrap_or_else(|| EMPTY.get_or_init(empty_histogram))
    }
}

/// An empty auto-resizing histogram with [`SIGFIGS`] significant figures (off the
/// recording path: made once per population).
#[cold]
#[inline(never)]
fn empty_histogram() -> Histogram<u64> {
    let mut h = Histogram::new(SIGFIGS).expect("3 significant figures is valid");
    h.auto(true);
    h
}

impl std::ops::AddAssign<&LatStat> for LatStat {
    fn add_assign(&mut self, o: &LatStat) {
        if o.n == 0 {
            return;
        }
        let theirs = o.histogram();
        match &mut self.hist {
            Some(h) => h.add(theirs).expect("auto-resizing histograms always add"),
            None => self.hist = Some(theirs.clone()),
        }
        self.n += o.n;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.sum += o.sum;
        self.sumsq += o.sumsq;
    }
}

/// The serialized form of a [`LatStat`]: exact moments plus the histogram in
/// HdrHistogram's V2 encoding, base64 (the format every HdrHistogram library reads).
#[derive(serde::Serialize, serde::Deserialize)]
struct LatStatRepr {
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    sumsq: u128,
    /// base64 of the V2-encoded histogram (empty when there are no samples).
    hist: String,
}

impl serde::Serialize for LatStat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine as _;
        use hdrhistogram::serialization::Serializer as _;
        let hist = if self.n == 0 {
            String::new()
        } else {
            let mut buf = Vec::new();
            hdrhistogram::serialization::V2Serializer::new()
                .serialize(self.histogram(), &mut buf)
                .map_err(|e| serde::ser::Error::custom(format!("histogram: {e:?}")))?;
            base64::engine::general_purpose::STANDARD.encode(buf)
        };
        LatStatRepr {
            count: self.n,
            min: self.min(),
            max: self.max,
            sum: self.sum,
            sumsq: self.sumsq,
            hist,
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for LatStat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use base64::Engine as _;
        use serde::de::Error;
        let r = LatStatRepr::deserialize(d)?;
        let mut out = LatStat::new();
        if r.count == 0 {
            return Ok(out);
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(r.hist.as_bytes())
            .map_err(|e| D::Error::custom(format!("histogram base64: {e}")))?;
        let mut h: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut &bytes[..])
            .map_err(|e| D::Error::custom(format!("histogram: {e:?}")))?;
        h.auto(true);
        if h.len() != r.count {
            return Err(D::Error::custom(format!(
                "histogram holds {} samples but count says {}",
                h.len(),
                r.count
            )));
        }
        out.hist = Some(h);
        out.n = r.count;
        out.min = r.min;
        out.max = r.max;
        out.sum = r.sum;
        out.sumsq = r.sumsq;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_exact() {
        let mut s = LatStat::new();
        for v in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            s.record(v);
        }
        assert_eq!(s.count(), 8);
        assert_eq!(s.min(), 2);
        assert_eq!(s.max(), 9);
        assert!((s.mean() - 5.0).abs() < 1e-12);
        // sample stddev of this set is sqrt(32/7)
        assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn percentiles_follow_the_samples() {
        let mut s = LatStat::new();
        for v in 1..=1000u64 {
            s.record(v * 1000);
        }
        let p50 = s.percentile(50.0) as f64;
        assert!((p50 - 500_000.0).abs() / 500_000.0 < 0.001, "{p50}");
        let p99 = s.percentile(99.0) as f64;
        assert!((p99 - 990_000.0).abs() / 990_000.0 < 0.001, "{p99}");
        assert_eq!(s.percentile(100.0), 1_000_000);
    }

    #[test]
    fn merge_equals_recording_everything_once() {
        let mut a = LatStat::new();
        let mut b = LatStat::new();
        let mut all = LatStat::new();
        for v in 0..5000u64 {
            let x = v * 37 % 100_003;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a += &b;
        assert_eq!(a.count(), all.count());
        assert_eq!(a.min(), all.min());
        assert_eq!(a.max(), all.max());
        assert_eq!(a.sum(), all.sum());
        assert_eq!(a.stddev(), all.stddev());
        for p in [1.0, 50.0, 99.0, 99.9] {
            assert_eq!(a.percentile(p), all.percentile(p));
        }
    }

    #[test]
    fn serialization_is_lossless() {
        let mut s = LatStat::new();
        for v in 0..20_000u64 {
            s.record(v * v % 9_999_991 + 17);
        }
        let text = serde_json::to_string(&s).unwrap();
        let back: LatStat = serde_json::from_str(&text).unwrap();
        assert_eq!(back.histogram(), s.histogram());
        assert_eq!(
            (back.count(), back.min(), back.max(), back.sum()),
            (s.count(), s.min(), s.max(), s.sum())
        );
        assert_eq!(back.stddev(), s.stddev());
        for p in [1.0, 50.0, 99.0, 99.99] {
            assert_eq!(back.percentile(p), s.percentile(p));
        }
        let empty: LatStat =
            serde_json::from_str(&serde_json::to_string(&LatStat::new()).unwrap()).unwrap();
        assert_eq!(empty.count(), 0);
        // A corrupted count is caught, not silently believed.
        let bad = text.replacen("\"count\":20000", "\"count\":20001", 1);
        assert!(serde_json::from_str::<LatStat>(&bad).is_err());
    }

    #[test]
    fn empty_population_reports_zeroes() {
        let s = LatStat::new();
        assert_eq!(
            (s.count(), s.min(), s.max(), s.percentile(99.0)),
            (0, 0, 0, 0)
        );
        assert_eq!(s.mean(), 0.0);
        assert_eq!(s.stddev(), 0.0);
    }
}
