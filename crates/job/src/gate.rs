//! Assertions on results (fathom extension): `assert=read.iops>=50000,read.clat.p99<=2ms`
//! in a job, or `--assert=...` on the command line. A run whose results violate one exits
//! with code 3, naming each violated assertion and the measured value.
//!
//! Grammar: `DIR.METRIC OP VALUE`, comma-separated. `DIR` is `read`, `write` or `trim`;
//! `METRIC` is `iops`, `bw` (bytes/s; the value takes size suffixes and an optional `/s`:
//! `200MiB/s`, `1g`), `ios`, `bytes`, or a latency `slat|clat|lat|resp` `.` `mean|min|max|pN`
//! (`clat.p99`, `lat.p99.9`; the value takes time suffixes, default µs as fio's latency
//! options: `2ms`, `500us`, `800`). `OP` is `>=`, `<=`, `>`, `<` or `==`.
//!
//! ```
//! let a = fathom_job::gate::parse_list("read.iops>=50k,write.clat.p99.9<=2ms").unwrap();
//! assert_eq!(a.len(), 2);
//! assert_eq!(a[0].value, 50_000.0);
//! assert_eq!(a[1].value, 2_000_000.0); // ns
//! assert!(a[1].holds(1_500_000.0));
//! ```

use crate::units;
use crate::words::{Ddir, Dialect};

/// A latency population.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatKind {
    /// Submission latency.
    Slat,
    /// Completion latency.
    Clat,
    /// Total latency.
    Lat,
    /// Response latency from the intended issue time (rate-limited jobs).
    Resp,
}

/// A statistic of a latency population.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LatStatKind {
    /// Mean.
    Mean,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// A percentile (0, 100].
    Pct(f64),
}

/// What an assertion measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric {
    /// I/Os per second over the measured runtime.
    Iops,
    /// Bytes per second over the measured runtime.
    Bw,
    /// Completed I/Os.
    Ios,
    /// Bytes transferred.
    Bytes,
    /// A latency statistic in ns.
    Latency(LatKind, LatStatKind),
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `<`
    Lt,
    /// `==`
    Eq,
}

/// One assertion.
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    /// Direction.
    pub dir: Ddir,
    /// Metric.
    pub metric: Metric,
    /// Comparison.
    pub op: Op,
    /// Threshold in canonical units (ns for latencies, bytes/s for bw, counts).
    pub value: f64,
    /// As written.
    pub text: String,
}

impl Assertion {
    /// True if `measured` (canonical units) satisfies the assertion.
    pub fn holds(&self, measured: f64) -> bool {
        match self.op {
            Op::Ge => measured >= self.value,
            Op::Le => measured <= self.value,
            Op::Gt => measured > self.value,
            Op::Lt => measured < self.value,
            Op::Eq => measured == self.value,
        }
    }
    /// True for a latency metric (values print as times).
    pub fn is_latency(&self) -> bool {
        matches!(self.metric, Metric::Latency(..))
    }
}

fn count(v: &str) -> Result<f64, String> {
    let v = v.trim();
    let (num, mult) = match v.char_indices().last() {
        Some((i, 'k' | 'K')) => (&v[..i], 1e3),
        Some((i, 'm' | 'M')) => (&v[..i], 1e6),
        Some((i, 'g' | 'G')) => (&v[..i], 1e9),
        _ => (v, 1.0),
    };
    num.trim()
        .parse::<f64>()
        .map(|x| x * mult)
        .map_err(|_| format!("'{v}' is not a number (e.g. 50000 or 50k)"))
}

fn parse_one(s: &str) -> Result<Assertion, String> {
    let text = s.trim().to_string();
    let ops = [
        (">=", Op::Ge),
        ("<=", Op::Le),
        ("==", Op::Eq),
        (">", Op::Gt),
        ("<", Op::Lt),
    ];
    let Some((pos, sym, op)) = ops
        .iter()
        .filter_map(|(sym, op)| text.find(sym).map(|p| (p, *sym, *op)))
        .min_by_key(|(p, sym, _)| (*p, std::cmp::Reverse(sym.len())))
    else {
        return Err(format!(
            "'{text}' has no comparison; write e.g. read.iops>=50000 or read.clat.p99<=2ms"
        ));
    };
    let lhs = text[..pos].trim();
    let rhs = text[pos + sym.len()..].trim();
    let (dir, metric) = lhs.split_once('.').ok_or_else(|| {
        format!("'{lhs}': start with the direction, e.g. read.iops or write.clat.p99")
    })?;
    let dir = match dir {
        "read" => Ddir::Read,
        "write" => Ddir::Write,
        "trim" => Ddir::Trim,
        d => return Err(format!("'{d}' is not a direction: use read, write or trim")),
    };
    let metric = match metric {
        "iops" => Metric::Iops,
        "bw" => Metric::Bw,
        "ios" => Metric::Ios,
        "bytes" => Metric::Bytes,
        m => {
            let (kind, stat) = m.split_once('.').ok_or_else(|| bad_metric(m))?;
            let kind = match kind {
                "slat" => LatKind::Slat,
                "clat" => LatKind::Clat,
                "lat" => LatKind::Lat,
                "resp" => LatKind::Resp,
                _ => return Err(bad_metric(m)),
            };
            let stat = match stat {
                "mean" | "avg" => LatStatKind::Mean,
                "min" => LatStatKind::Min,
                "max" => LatStatKind::Max,
                p => {
                    let n: f64 = p
                        .strip_prefix('p')
                        .and_then(|x| x.parse().ok())
                        .ok_or_else(|| bad_metric(m))?;
                    if !(n > 0.0 && n <= 100.0) {
                        return Err(format!("percentile {n} is not in (0, 100]"));
                    }
                    LatStatKind::Pct(n)
                }
            };
            Metric::Latency(kind, stat)
        }
    };
    let value = match metric {
        Metric::Iops | Metric::Ios => count(rhs)?,
        Metric::Bw | Metric::Bytes => {
            let v = rhs.strip_suffix("/s").unwrap_or(rhs);
            // Written with B: strict units (MiB = 2^20, MB = 10^6); else fio's (1g = 2^30).
            let dialect = if v.ends_with('B') {
                Dialect::Toml
            } else {
                Dialect::Fio
            };
            units::parse_size(v, 1024, dialect)
                .map_err(|e| format!("'{rhs}': {e} (e.g. 200MiB/s or 1g)"))? as f64
        }
        Metric::Latency(..) => units::parse_time(rhs, units::TimeUnit::Micros)
            .map_err(|e| format!("'{rhs}': {e} (e.g. 2ms or 500us)"))?
            .as_nanos() as f64,
    };
    Ok(Assertion {
        dir,
        metric,
        op,
        value,
        text,
    })
}

fn bad_metric(m: &str) -> String {
    format!(
        "'{m}' is not a metric: use iops, bw, ios, bytes, or slat/clat/lat/resp with \
         .mean, .min, .max or .pN (e.g. clat.p99)"
    )
}

/// Parse a comma-separated list of assertions.
pub fn parse_list(v: &str) -> Result<Vec<Assertion>, String> {
    v.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(parse_one)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assertions_parse_with_units() {
        let a =
            parse_list("read.bw>=200MiB/s, trim.ios==10 ,write.lat.max<1s,read.clat.p99.99<=800")
                .unwrap();
        assert_eq!(a[0].value, 200.0 * 1048576.0);
        assert_eq!(parse_list("read.bw>=1g").unwrap()[0].value, 1073741824.0);
        assert_eq!(parse_list("read.bw>=5MB/s").unwrap()[0].value, 5e6);
        assert_eq!(
            (a[1].dir, a[1].metric, a[1].op, a[1].value),
            (Ddir::Trim, Metric::Ios, Op::Eq, 10.0)
        );
        assert_eq!(a[2].metric, Metric::Latency(LatKind::Lat, LatStatKind::Max));
        assert_eq!(a[2].op, Op::Lt);
        assert_eq!(a[3].value, 800_000.0, "a bare latency is in µs");
        assert_eq!(
            a[3].metric,
            Metric::Latency(LatKind::Clat, LatStatKind::Pct(99.99))
        );
    }

    #[test]
    fn bad_assertions_say_what_to_write() {
        for (s, want) in [
            ("read.iops", "no comparison"),
            ("iops>=5", "direction"),
            ("up.iops>=5", "not a direction"),
            ("read.speed>=5", "not a metric"),
            ("read.clat.p200<=1ms", "not in (0, 100]"),
            ("read.clat.p99<=fast", "e.g. 2ms"),
        ] {
            let e = parse_list(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }

    #[test]
    fn comparisons_hold_as_written() {
        let a = &parse_list("read.iops>=100").unwrap()[0];
        assert!(a.holds(100.0) && a.holds(101.0) && !a.holds(99.9));
        let b = &parse_list("read.iops>100").unwrap()[0];
        assert!(!b.holds(100.0));
    }
}
