//! Repetitions and A/B verdicts: summary statistics over repeated runs, and
//! `fathom compare BASE NEW` with a significance test per metric.
//!
//! The test depends on what the results hold:
//! - both sides have repetitions (`--repeat=N`, N ≥ 2): Welch's t-test on the
//!   per-repetition values of each metric, with a 95% confidence interval of the change;
//! - single runs: IOPS and bandwidth use the 500 ms interval samples (Welch's t-test;
//!   neighbouring samples are correlated, so treat tight p-values with care); the latency
//!   mean uses Welch's test on the exact moments of every I/O; latency percentiles use the
//!   Mann-Whitney U test on the two whole latency histograms (no interval for the change).
//!
//! A change is a verdict (faster/slower) only when it is significant (p < 0.05) *and* at
//! least the noise threshold in size; otherwise it is "within noise".

use crate::figures::{moments, Figured, Figures, JobFigures};
use fathom_stats::{LatStat, RunResult};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Direction names in result order.
const DIRS: [&str; 3] = ["read", "write", "trim"];

/// A compared metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum MetricKind {
    /// I/Os per second.
    Iops,
    /// Bytes per second.
    Bw,
    /// Mean completion latency.
    ClatMean,
    /// Median completion latency.
    ClatP50,
    /// 99th percentile completion latency.
    ClatP99,
    /// 99.9th percentile completion latency.
    ClatP999,
}

impl MetricKind {
    /// Every compared metric.
    pub const ALL: [MetricKind; 6] = [
        MetricKind::Iops,
        MetricKind::Bw,
        MetricKind::ClatMean,
        MetricKind::ClatP50,
        MetricKind::ClatP99,
        MetricKind::ClatP999,
    ];
    /// Name as used in tables and `--fail-if-slower=NAME=PCT`.
    pub fn name(self) -> &'static str {
        match self {
            MetricKind::Iops => "iops",
            MetricKind::Bw => "bw",
            MetricKind::ClatMean => "clat.mean",
            MetricKind::ClatP50 => "clat.p50",
            MetricKind::ClatP99 => "clat.p99",
            MetricKind::ClatP999 => "clat.p99.9",
        }
    }
    /// True when a larger value is better.
    pub fn higher_is_better(self) -> bool {
        matches!(self, MetricKind::Iops | MetricKind::Bw)
    }
    fn of_latency(self, l: &LatStat) -> f64 {
        match self {
            MetricKind::ClatMean => l.mean(),
            MetricKind::ClatP50 => l.percentile(50.0) as f64,
            MetricKind::ClatP99 => l.percentile(99.0) as f64,
            MetricKind::ClatP999 => l.percentile(99.9) as f64,
            _ => unreachable!("not a latency metric"),
        }
    }
}

/// The value of a metric for one job result and direction.
pub fn metric_value(m: MetricKind, j: &fathom_stats::JobResult, dir: usize) -> f64 {
    let d = &j.stats.dirs[dir];
    let secs = j.stats.dir_runtime(dir).as_secs_f64();
    match m {
        MetricKind::Iops if secs > 0.0 => d.ios as f64 / secs,
        MetricKind::Bw if secs > 0.0 => d.bytes as f64 / secs,
        MetricKind::Iops | MetricKind::Bw => 0.0,
        _ => m.of_latency(&d.clat),
    }
}

/// Two-sided t quantile for a 95% interval with `df` degrees of freedom.
fn t95(df: f64) -> f64 {
    if !(df.is_finite() && df > 0.0) {
        return f64::NAN;
    }
    // Beyond 10^5 degrees of freedom t is the normal to 5 digits (and statrs' inverse
    // can take very long there).
    if df > 1e5 {
        return 1.959_963_984_540_054;
    }
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |t| t.inverse_cdf(0.975))
}

/// Plain statistics of a set of values.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Describe {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// 95% confidence interval of the mean (t distribution; NaN for fewer than 2 values).
    pub ci95: (f64, f64),
}

/// Mean, stddev, min, max and the 95% confidence interval of the mean.
pub fn describe(v: &[f64]) -> Describe {
    let (mean, sd, n) = moments(v);
    let half = if n > 1.0 {
        t95(n - 1.0) * sd / n.sqrt()
    } else {
        f64::NAN
    };
    Describe {
        mean,
        stddev: sd,
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ci95: (mean - half, mean + half),
    }
}

/// Summary of one metric over repetitions.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RepeatSummary {
    /// Job name.
    pub job: String,
    /// Direction.
    pub dir: &'static str,
    /// Metric.
    pub metric: &'static str,
    /// One value per repetition.
    pub values: Vec<f64>,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// 95% confidence interval of the mean (t distribution).
    pub ci95: (f64, f64),
}

/// Per job, direction and metric: statistics over repeated runs of the same jobs.
pub fn summarize(runs: &[RunResult]) -> Vec<RepeatSummary> {
    let mut out = Vec::new();
    let Some(first) = runs.first() else {
        return out;
    };
    for (ji, job) in first.jobs.iter().enumerate() {
        for (d, dname) in DIRS.iter().enumerate() {
            if job.stats.dirs[d].ios == 0 {
                continue;
            }
            for m in MetricKind::ALL {
                let values: Vec<f64> = runs
                    .iter()
                    .filter_map(|r| r.jobs.get(ji))
                    .map(|j| metric_value(m, j, d))
                    .collect();
                let (mean, sd, n) = moments(&values);
                let half = if n > 1.0 {
                    t95(n - 1.0) * sd / n.sqrt()
                } else {
                    f64::NAN
                };
                out.push(RepeatSummary {
                    job: job.name.clone(),
                    dir: dname,
                    metric: m.name(),
                    min: values.iter().copied().fold(f64::INFINITY, f64::min),
                    max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    values,
                    mean,
                    stddev: sd,
                    ci95: (mean - half, mean + half),
                });
            }
        }
    }
    out
}

/// The repetitions table of the normal output.
pub fn repeat_table(rows: &[RepeatSummary], n: usize) -> String {
    let mut s = format!(
        "\nRepetitions: {n} runs (mean, sample stddev, min, max, 95% confidence interval of the mean)\n"
    );
    let head = [
        "job", "dir", "metric", "mean", "stddev", "min", "max", "95% CI", "cv",
    ];
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            let f = |v: f64| fmt_value(r.metric, v);
            let ci = if r.ci95.0.is_finite() {
                format!("[{}, {}]", f(r.ci95.0), f(r.ci95.1))
            } else {
                "n/a".into()
            };
            let cv = if r.mean != 0.0 {
                format!("{:.1}%", r.stddev / r.mean * 100.0)
            } else {
                "n/a".into()
            };
            [
                r.job.clone(),
                r.dir.to_string(),
                r.metric.to_string(),
                f(r.mean),
                f(r.stddev),
                f(r.min),
                f(r.max),
                ci,
                cv,
            ]
        })
        .collect();
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in &cells {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    for r in std::iter::once(head.map(String::from)).chain(cells) {
        let parts: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<width$}", width = w[i]))
            .collect();
        s.push_str("  ");
        s.push_str(parts.join("  ").trim_end());
        s.push('\n');
    }
    s
}

/// Welch's t-test on summary statistics: (p-value, degrees of freedom, standard error of
/// the difference).
pub fn welch(m1: f64, s1: f64, n1: f64, m2: f64, s2: f64, n2: f64) -> (f64, f64, f64) {
    if n1 < 2.0 || n2 < 2.0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let (v1, v2) = (s1 * s1 / n1, s2 * s2 / n2);
    let se = (v1 + v2).sqrt();
    if se == 0.0 {
        // No spread at all: identical means are no change, different ones are certain.
        return (if m1 == m2 { 1.0 } else { 0.0 }, f64::INFINITY, 0.0);
    }
    let df = (v1 + v2).powi(2) / (v1 * v1 / (n1 - 1.0) + v2 * v2 / (n2 - 1.0));
    let t = (m2 - m1) / se;
    let p = match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => 2.0 * (1.0 - dist.cdf(t.abs())),
        Err(_) => f64::NAN,
    };
    (p, df, se)
}

/// Mann-Whitney U test of two latency histograms (normal approximation with the tie
/// correction): the two-sided p-value that both come from one distribution.
pub fn mann_whitney(a: &LatStat, b: &LatStat) -> f64 {
    let (na, nb) = (a.count() as f64, b.count() as f64);
    if na == 0.0 || nb == 0.0 {
        return f64::NAN;
    }
    // Merge the recorded buckets of both histograms in value order.
    let mut va: Vec<(u64, u64)> = a
        .histogram()
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    let vb: Vec<(u64, u64)> = b
        .histogram()
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    va.sort_unstable();
    let (mut i, mut j) = (0, 0);
    let mut below = 0f64;
    let mut rank_sum_b = 0f64;
    let mut ties = 0f64;
    while i < va.len() || j < vb.len() {
        let v = match (va.get(i), vb.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => break,
        };
        let ca = if va.get(i).is_some_and(|x| x.0 == v) {
            i += 1;
            va[i - 1].1 as f64
        } else {
            0.0
        };
        let cb = if vb.get(j).is_some_and(|y| y.0 == v) {
            j += 1;
            vb[j - 1].1 as f64
        } else {
            0.0
        };
        let t = ca + cb;
        rank_sum_b += cb * (below + (t + 1.0) / 2.0);
        ties += t * t * t - t;
        below += t;
    }
    let u = rank_sum_b - nb * (nb + 1.0) / 2.0;
    let n = na + nb;
    let mean = na * nb / 2.0;
    let var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = (u - mean) / var.sqrt();
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    2.0 * (1.0 - normal.cdf(z.abs()))
}

/// A verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly better.
    Faster,
    /// Significantly worse.
    Slower,
    /// Not significant, or smaller than the noise threshold.
    WithinNoise,
}

impl Verdict {
    /// Lower-case words for tables.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
        }
    }
}

/// One compared metric.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    /// Job name.
    pub job: String,
    /// Direction.
    pub dir: &'static str,
    /// Metric name.
    pub metric: &'static str,
    /// Base value (mean over repetitions).
    pub base: f64,
    /// New value.
    pub new: f64,
    /// Change in percent of base (positive = larger).
    pub change_pct: f64,
    /// 95% confidence interval of the change in percent, when the test gives one.
    pub ci95_pct: Option<(f64, f64)>,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Which test: "welch (repetitions)", "welch (intervals)", "welch (every I/O)",
    /// "mann-whitney (histograms)", or "none (why)" when the data allowed none.
    pub test: &'static str,
    /// The verdict.
    pub verdict: Verdict,
    /// How much worse in percent (0 when not worse).
    pub worse_pct: f64,
}

/// Settings of a comparison.
#[derive(Debug, Clone, Copy)]
pub struct CompareOpts {
    /// Significance level (default 0.05).
    pub alpha: f64,
    /// Changes smaller than this many percent are noise (default 1).
    pub noise_pct: f64,
}

impl Default for CompareOpts {
    fn default() -> Self {
        CompareOpts {
            alpha: 0.05,
            noise_pct: 1.0,
        }
    }
}

/// A stored result with its repetitions (a single run is one repetition).
pub struct Side<'a> {
    /// The (merged) result.
    pub result: &'a RunResult,
    /// Each repetition; empty or one for a single run.
    pub repetitions: &'a [RunResult],
}

/// Compare every job, direction and metric present in both.
pub fn compare(base: &Side, new: &Side, o: CompareOpts) -> Vec<Comparison> {
    use crate::figures::of_native;
    compare_figured(
        &of_native(base.result, base.repetitions),
        &of_native(new.result, new.repetitions),
        o,
    )
}

fn value(m: MetricKind, f: &Figures) -> f64 {
    match m {
        MetricKind::Iops => f.iops,
        MetricKind::Bw => f.bw,
        MetricKind::ClatMean => f.clat.0,
        MetricKind::ClatP50 => f.pct[0],
        MetricKind::ClatP99 => f.pct[1],
        MetricKind::ClatP999 => f.pct[2],
    }
}

fn figures_of<'a>(jobs: &'a [JobFigures], name: &str, d: usize) -> Option<&'a Figures> {
    jobs.iter()
        .find(|j| j.name == name)
        .and_then(|j| j.dirs[d].as_ref())
}

/// The test a single-run pair allows for a metric: (p, standard error and degrees of
/// freedom for the interval, name of the test).
fn single_run_test(
    m: MetricKind,
    b: &Figures,
    n: &Figures,
) -> (f64, Option<(f64, f64)>, &'static str) {
    match m {
        MetricKind::Iops | MetricKind::Bw => {
            let (s1, s2) = if m == MetricKind::Iops {
                (b.iops_samples, n.iops_samples)
            } else {
                (b.bw_samples, n.bw_samples)
            };
            if s1.2 < 2.0 || s2.2 < 2.0 {
                return (f64::NAN, None, "none (fewer than 2 interval samples)");
            }
            let (p, df, se) = welch(s1.0, s1.1, s1.2, s2.0, s2.1, s2.2);
            // The change is of the run totals; the interval scales the samples'
            // standard error to them.
            let scale = if s1.0 > 0.0 { value(m, b) / s1.0 } else { 1.0 };
            (p, Some((se * scale, df)), "welch (intervals)")
        }
        MetricKind::ClatMean => {
            let (l1, l2) = (b.clat, n.clat);
            if l1.2 < 2.0 || l2.2 < 2.0 {
                return (f64::NAN, None, "none (fewer than 2 latencies)");
            }
            let (p, df, se) = welch(l1.0, l1.1, l1.2, l2.0, l2.1, l2.2);
            (p, Some((se, df)), "welch (every I/O)")
        }
        _ => match (&b.hist, &n.hist) {
            (Some(h1), Some(h2)) => (mann_whitney(h1, h2), None, "mann-whitney (histograms)"),
            _ => (
                f64::NAN,
                None,
                "none (fio JSON has no latency bins: use --output-format=json+)",
            ),
        },
    }
}

/// [`compare`] over results read from any source (native, fio JSON or JSON+): each row
/// names the test its data allowed, "none (...)" where it allowed none (a value only).
pub fn compare_figured(base: &Figured, new: &Figured, o: CompareOpts) -> Vec<Comparison> {
    let mut out = Vec::new();
    let reps = base.repetitions.len() >= 2 && new.repetitions.len() >= 2;
    for bj in &base.jobs {
        for (d, dname) in DIRS.iter().enumerate() {
            let (Some(bf), Some(nf)) = (bj.dirs[d].as_ref(), figures_of(&new.jobs, &bj.name, d))
            else {
                continue;
            };
            for m in MetricKind::ALL {
                let (b, n, p, se_df, test) = if reps {
                    let vals = |s: &Figured| -> Vec<f64> {
                        s.repetitions
                            .iter()
                            .filter_map(|r| figures_of(r, &bj.name, d))
                            .map(|f| value(m, f))
                            .collect()
                    };
                    let (m1, s1, n1) = moments(&vals(base));
                    let (m2, s2, n2) = moments(&vals(new));
                    let (p, df, se) = welch(m1, s1, n1, m2, s2, n2);
                    (m1, m2, p, Some((se, df)), "welch (repetitions)")
                } else {
                    let (p, se_df, test) = single_run_test(m, bf, nf);
                    (value(m, bf), value(m, nf), p, se_df, test)
                };
                let change = if b != 0.0 { (n - b) / b * 100.0 } else { 0.0 };
                let ci = se_df.and_then(|(se, df)| {
                    let h = t95(df) * se;
                    (h.is_finite() && b != 0.0)
                        .then(|| ((n - b - h) / b * 100.0, (n - b + h) / b * 100.0))
                });
                let significant = p.is_finite() && p < o.alpha && change.abs() >= o.noise_pct;
                let better = if m.higher_is_better() {
                    change > 0.0
                } else {
                    change < 0.0
                };
                let verdict = match (significant, better) {
                    (false, _) => Verdict::WithinNoise,
                    (true, true) => Verdict::Faster,
                    (true, false) => Verdict::Slower,
                };
                let worse_pct = if better { 0.0 } else { change.abs() };
                out.push(Comparison {
                    job: bj.name.clone(),
                    dir: dname,
                    metric: m.name(),
                    base: b,
                    new: n,
                    change_pct: change,
                    ci95_pct: ci,
                    p_value: p,
                    test,
                    verdict,
                    worse_pct,
                });
            }
        }
    }
    out
}

fn fmt_value(metric: &str, v: f64) -> String {
    match metric {
        "iops" => {
            if v >= 1e6 {
                format!("{:.2}M", v / 1e6)
            } else if v >= 1e3 {
                format!("{:.1}k", v / 1e3)
            } else {
                format!("{v:.1}")
            }
        }
        "bw" if v >= 1073741824.0 => format!("{:.2}GiB/s", v / 1073741824.0),
        "bw" => format!("{:.1}MiB/s", v / 1048576.0),
        _ => {
            if v >= 1e6 {
                format!("{:.2}ms", v / 1e6)
            } else if v >= 1e3 {
                format!("{:.1}us", v / 1e3)
            } else {
                format!("{v:.0}ns")
            }
        }
    }
}

fn fmt_ci(c: &Comparison) -> String {
    c.ci95_pct
        .map_or("n/a".into(), |(lo, hi)| format!("[{lo:+.1}%, {hi:+.1}%]"))
}

fn fmt_p(p: f64) -> String {
    if !p.is_finite() {
        "n/a".into()
    } else if p < 0.0001 {
        "<0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// A plain-text table for a terminal.
pub fn table(rows: &[Comparison]) -> String {
    let head = [
        "job", "dir", "metric", "base", "new", "change", "95% CI", "p", "verdict",
    ];
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|c| {
            [
                c.job.clone(),
                c.dir.to_string(),
                c.metric.to_string(),
                fmt_value(c.metric, c.base),
                fmt_value(c.metric, c.new),
                format!("{:+.1}%", c.change_pct),
                fmt_ci(c),
                fmt_p(c.p_value),
                c.verdict.words().to_string(),
            ]
        })
        .collect();
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in &cells {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut s = String::new();
    let line = |s: &mut String, r: &[String]| {
        let parts: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<width$}", width = w[i]))
            .collect();
        s.push_str(parts.join("  ").trim_end());
        s.push('\n');
    };
    line(&mut s, &head.map(String::from));
    for r in &cells {
        line(&mut s, r);
    }
    s.push_str(&untested(rows));
    s
}

/// A note naming the rows whose data allowed no test (their verdict is a value only).
fn untested(rows: &[Comparison]) -> String {
    let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in rows.iter().filter(|c| c.test.starts_with("none")) {
        match why.iter_mut().find(|(t, _)| *t == c.test) {
            Some((_, m)) if !m.contains(&c.metric) => m.push(c.metric),
            Some(_) => {}
            None => why.push((c.test, vec![c.metric])),
        }
    }
    why.iter()
        .map(|(t, m)| {
            format!(
                "no test for {}: {} (p n/a: within noise unless measured otherwise)\n",
                m.join(", "),
                t.trim_start_matches("none (").trim_end_matches(')')
            )
        })
        .collect()
}

/// A Markdown table (e.g. for a CI job summary).
pub fn markdown(rows: &[Comparison]) -> String {
    let mut s = String::from(
        "| job | dir | metric | base | new | change | 95% CI | p | verdict |\n\
         |---|---|---|---:|---:|---:|---|---:|---|\n",
    );
    for c in rows {
        let v = match c.verdict {
            Verdict::Slower => "**slower**",
            v => v.words(),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:+.1}% | {} | {} | {v} |\n",
            c.job,
            c.dir,
            c.metric,
            fmt_value(c.metric, c.base),
            fmt_value(c.metric, c.new),
            c.change_pct,
            fmt_ci(c),
            fmt_p(c.p_value),
        ));
    }
    let note = untested(rows);
    if !note.is_empty() {
        s.push('\n');
        s.push_str(&note);
    }
    s
}

/// `--fail-if-slower`: `PCT` for every metric, or `METRIC=PCT` pairs (comma list;
/// `iops=5,clat.p99=10`). Returns (metric or None for all, percent).
pub fn parse_gate(v: &str) -> Result<Vec<(Option<String>, f64)>, String> {
    v.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|part| {
            let (m, pct) = match part.split_once('=') {
                Some((m, p)) => (Some(m.trim().to_string()), p),
                None => (None, part),
            };
            if let Some(m) = &m {
                if !MetricKind::ALL.iter().any(|k| k.name() == m) {
                    return Err(format!(
                        "'{m}' is not a compared metric (use {})",
                        MetricKind::ALL.map(|k| k.name()).join(", ")
                    ));
                }
            }
            let pct: f64 = pct
                .trim()
                .trim_end_matches('%')
                .parse()
                .map_err(|_| format!("'{pct}' is not a percentage (e.g. 5 or iops=5)"))?;
            Ok((m, pct))
        })
        .collect()
}

/// The rows that break a gate: significantly slower by more than the threshold.
pub fn gate_failures<'a>(
    rows: &'a [Comparison],
    gate: &[(Option<String>, f64)],
) -> Vec<&'a Comparison> {
    rows.iter()
        .filter(|c| c.verdict == Verdict::Slower)
        .filter(|c| {
            gate.iter()
                .any(|(m, pct)| m.as_deref().is_none_or(|m| m == c.metric) && c.worse_pct > *pct)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_a_worked_example() {
        // Two samples with known Welch statistics (computed independently):
        // a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
        // b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
        // t = -2.46, df = 24.99, p = 0.021.
        let a = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let b = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        let (m1, s1, n1) = moments(&a);
        let (m2, s2, n2) = moments(&b);
        let (p, df, se) = welch(m1, s1, n1, m2, s2, n2);
        assert!((df - 24.99).abs() < 0.01, "df {df}");
        assert!(((m2 - m1) / se - 2.46).abs() < 0.01);
        assert!((p - 0.021).abs() < 0.001, "p {p}");
    }

    #[test]
    fn mann_whitney_sees_a_shift_and_not_a_copy() {
        let mut a = LatStat::new();
        let mut b = LatStat::new();
        let mut c = LatStat::new();
        for i in 0..2000u64 {
            let x = 100_000 + (i * 7919) % 50_000;
            a.record(x);
            c.record(x);
            b.record(x + 5_000);
        }
        assert!(mann_whitney(&a, &b) < 1e-6);
        assert!((mann_whitney(&a, &c) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn mann_whitney_matches_a_small_exact_case() {
        // a = 1,2,3 ; b = 4,5,6: U_b = 9, mean 4.5, var = 3*3*7/12 = 5.25, z = 1.964.
        let mut a = LatStat::new();
        let mut b = LatStat::new();
        for x in [1, 2, 3] {
            a.record(x);
        }
        for x in [4, 5, 6] {
            b.record(x);
        }
        let p = mann_whitney(&a, &b);
        assert!((p - 0.0495).abs() < 0.001, "p {p}");
    }

    #[test]
    fn summaries_have_t_intervals() {
        let s = summarize(&[]);
        assert!(s.is_empty());
        // t(0.975, 4) = 2.776
        assert!((t95(4.0) - 2.776).abs() < 0.001);
    }

    #[test]
    fn gates_parse_and_pick_slower_rows_only() {
        let g = parse_gate("5,clat.p99=10").unwrap();
        assert_eq!(g, vec![(None, 5.0), (Some("clat.p99".into()), 10.0)]);
        assert!(parse_gate("speed=5").is_err());
        assert!(parse_gate("x").is_err());
        let row = |verdict, worse| Comparison {
            job: "j".into(),
            dir: "read",
            metric: "iops",
            base: 1.0,
            new: 1.0,
            change_pct: 0.0,
            ci95_pct: None,
            p_value: 0.0,
            test: "",
            verdict,
            worse_pct: worse,
        };
        let rows = [
            row(Verdict::Slower, 6.0),
            row(Verdict::Slower, 4.0),
            row(Verdict::WithinNoise, 50.0),
        ];
        assert_eq!(gate_failures(&rows, &parse_gate("5").unwrap()).len(), 1);
        assert_eq!(
            gate_failures(&rows, &parse_gate("clat.p99=1").unwrap()).len(),
            0
        );
    }
}
