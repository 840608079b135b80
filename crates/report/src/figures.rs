//! What a comparison needs of a result, per job and direction, read from fathom's
//! native results or from fio's JSON and JSON+ (a team's fio baselines): the totals, the
//! moments of the interval samples, the latency moments and percentiles, and the whole
//! latency histogram where the file holds one (native, JSON+ bins).

use fathom_stats::{LatStat, RunResult};

/// One job and direction.
#[derive(Debug, Clone)]
pub struct Figures {
    /// I/Os done.
    pub ios: u64,
    /// I/Os per second over the run.
    pub iops: f64,
    /// Bytes per second over the run.
    pub bw: f64,
    /// Mean, standard deviation and number of the interval samples of IOPS (n = 0: none).
    pub iops_samples: (f64, f64, f64),
    /// The same for bandwidth, in bytes per second.
    pub bw_samples: (f64, f64, f64),
    /// Completion latency: mean, standard deviation and count (ns).
    pub clat: (f64, f64, f64),
    /// Completion latency percentiles 50, 99 and 99.9 (ns).
    pub pct: [f64; 3],
    /// The whole completion-latency histogram, when the result holds one.
    pub hist: Option<LatStat>,
}

/// One job of a result.
#[derive(Debug, Clone)]
pub struct JobFigures {
    /// Job name.
    pub name: String,
    /// Read, write, trim (None: no I/O in that direction).
    pub dirs: [Option<Figures>; 3],
}

/// A result ready to compare: the (merged) run and its repetitions (empty or one for a
/// single run), and where it came from.
#[derive(Debug, Clone, Default)]
pub struct Figured {
    /// The jobs of the run.
    pub jobs: Vec<JobFigures>,
    /// The jobs of each repetition.
    pub repetitions: Vec<Vec<JobFigures>>,
    /// "fathom native", "fio JSON" or "fio JSON+".
    pub source: &'static str,
}

/// The figures of a fathom result.
pub fn of_run(r: &RunResult) -> Vec<JobFigures> {
    r.jobs
        .iter()
        .map(|j| JobFigures {
            name: j.name.clone(),
            dirs: [0, 1, 2].map(|d| {
                let secs = j.stats.dir_runtime(d).as_secs_f64();
                let per_s = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
                let s = &j.stats.dirs[d];
                (s.ios > 0).then(|| {
                    let iv = |f: fn(&fathom_stats::Sample) -> u64| {
                        let v: Vec<f64> = s
                            .samples
                            .iter()
                            .filter(|x| x.len_ms > 0)
                            .map(|x| f(x) as f64 * 1000.0 / x.len_ms as f64)
                            .collect();
                        moments(&v)
                    };
                    Figures {
                        ios: s.ios,
                        iops: per_s(s.ios),
                        bw: per_s(s.bytes),
                        iops_samples: iv(|x| x.ios),
                        bw_samples: iv(|x| x.bytes),
                        clat: (s.clat.mean(), s.clat.stddev(), s.clat.count() as f64),
                        pct: [50.0, 99.0, 99.9].map(|p| s.clat.percentile(p) as f64),
                        hist: Some(s.clat.clone()),
                    }
                })
            }),
        })
        .collect()
}

/// A native result with its repetitions.
pub fn of_native(r: &RunResult, reps: &[RunResult]) -> Figured {
    Figured {
        jobs: of_run(r),
        repetitions: reps.iter().map(of_run).collect(),
        source: "fathom native",
    }
}

/// The figures of fio's JSON (or JSON+, whose latency bins give the whole histogram).
/// fathom's own JSON output reads the same way.
pub fn of_fio_json(text: &str) -> Result<Figured, String> {
    let start = text
        .find('{')
        .ok_or("not JSON: no '{' (is this fio's JSON output?)")?;
    // fio may print a "note:" line before its JSON.
    let v: serde_json::Value =
        serde_json::from_str(&text[start..]).map_err(|e| format!("not JSON: {e}"))?;
    let jobs = v
        .get("jobs")
        .and_then(|j| j.as_array())
        .ok_or("no \"jobs\" array: not fio JSON")?;
    let f = |o: &serde_json::Value, k: &str| o.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);
    let mut plus = false;
    let mut out = Vec::new();
    for j in jobs {
        let name = j
            .get("jobname")
            .and_then(|x| x.as_str())
            .ok_or("a job without \"jobname\"")?
            .to_string();
        let dirs = ["read", "write", "trim"].map(|d| {
            let o = j.get(d)?;
            let ios = o.get("total_ios").and_then(|x| x.as_u64()).unwrap_or(0);
            if ios == 0 {
                return None;
            }
            let clat = o.get("clat_ns").cloned().unwrap_or_default();
            let hist = clat.get("bins").and_then(|b| b.as_object()).map(|bins| {
                let mut h = LatStat::new();
                for (k, n) in bins {
                    if let (Ok(ns), Some(n)) = (k.parse::<u64>(), n.as_u64()) {
                        h.record_n(ns, n);
                    }
                }
                h
            });
            plus |= hist.is_some();
            let pct = ["50.000000", "99.000000", "99.900000"].map(|k| {
                clat.get("percentile")
                    .and_then(|p| p.get(k))
                    .and_then(|x| x.as_f64())
                    .unwrap_or(f64::NAN)
            });
            Some(Figures {
                ios,
                iops: f(o, "iops"),
                bw: f(o, "bw_bytes"),
                iops_samples: (f(o, "iops_mean"), f(o, "iops_stddev"), f(o, "iops_samples")),
                // fio's bw_* figures are KiB/s.
                bw_samples: (
                    f(o, "bw_mean") * 1024.0,
                    f(o, "bw_dev") * 1024.0,
                    f(o, "bw_samples"),
                ),
                clat: (f(&clat, "mean"), f(&clat, "stddev"), f(&clat, "N")),
                pct,
                hist,
            })
        });
        out.push(JobFigures { name, dirs });
    }
    Ok(Figured {
        jobs: out,
        repetitions: Vec::new(),
        source: match (v.get("fathom version").is_some(), plus) {
            (true, true) => "fathom JSON+",
            (true, false) => "fathom JSON",
            (false, true) => "fio JSON+",
            (false, false) => "fio JSON",
        },
    })
}

/// Mean, sample standard deviation and count.
pub(crate) fn moments(v: &[f64]) -> (f64, f64, f64) {
    let n = v.len() as f64;
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt(), n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_json_reads_with_a_note_line_before_it_and_bins() {
        let text = r#"note: both iodepth >= 1 and synchronous I/O engine are selected
{"fio version": "fio-3.33", "jobs": [{"jobname": "a",
  "read": {"total_ios": 4, "iops": 2.0, "bw_bytes": 8192.0,
    "iops_mean": 2.5, "iops_stddev": 0.5, "iops_samples": 4,
    "bw_mean": 8.0, "bw_dev": 1.0, "bw_samples": 4,
    "clat_ns": {"mean": 150.0, "stddev": 50.0, "N": 4,
      "percentile": {"50.000000": 100, "99.000000": 200, "99.900000": 200},
      "bins": {"100": 2, "200": 2}}},
  "write": {"total_ios": 0}}]}"#;
        let f = of_fio_json(text).unwrap();
        assert_eq!(f.source, "fio JSON+");
        let r = f.jobs[0].dirs[0].as_ref().unwrap();
        assert!(f.jobs[0].dirs[1].is_none());
        assert_eq!((r.ios, r.iops, r.bw), (4, 2.0, 8192.0));
        assert_eq!(r.bw_samples, (8192.0, 1024.0, 4.0));
        assert_eq!(r.clat, (150.0, 50.0, 4.0));
        assert_eq!(r.pct, [100.0, 200.0, 200.0]);
        assert_eq!(r.hist.as_ref().unwrap().count(), 4);
        assert!(of_fio_json("{}").is_err());
        assert!(of_fio_json("plain text").is_err());
    }
}
