//! Checking a run's results against the jobs' `assert` conditions (fathom extension).

use crate::plan::Plan;
use fathom_job::gate::{Assertion, LatKind, LatStatKind, Metric};
use fathom_stats::{JobResult, RunResult};

/// The outcome of one assertion on one reported job.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Reported job name.
    pub job: String,
    /// The assertion as written.
    pub text: String,
    /// The measured value in canonical units (ns, bytes/s, counts).
    pub measured: f64,
    /// The measured value for people (`3.41ms`, `61.2k`).
    pub shown: String,
    /// True if the condition held.
    pub ok: bool,
}

/// The value of `a`'s metric in `j`.
pub fn measure(a: &Assertion, j: &JobResult) -> f64 {
    let d = &j.stats.dirs[a.dir.index()];
    let secs = j.stats.runtime.as_secs_f64();
    let per_sec = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
    match a.metric {
        Metric::Iops => per_sec(d.ios),
        Metric::Bw => per_sec(d.bytes),
        Metric::Ios => d.ios as f64,
        Metric::Bytes => d.bytes as f64,
        Metric::Latency(kind, stat) => {
            let l = match kind {
                LatKind::Slat => &d.slat,
                LatKind::Clat => &d.clat,
                LatKind::Lat => &d.lat,
                LatKind::Resp => &d.resp,
            };
            match stat {
                LatStatKind::Mean => l.mean(),
                LatStatKind::Min => l.min() as f64,
                LatStatKind::Max => l.max() as f64,
                LatStatKind::Pct(p) => l.percentile(p) as f64,
            }
        }
    }
}

fn show(a: &Assertion, v: f64) -> String {
    match a.metric {
        Metric::Latency(..) => {
            if v >= 1e9 {
                format!("{:.3}s", v / 1e9)
            } else if v >= 1e6 {
                format!("{:.3}ms", v / 1e6)
            } else if v >= 1e3 {
                format!("{:.2}us", v / 1e3)
            } else {
                format!("{v:.0}ns")
            }
        }
        Metric::Bw | Metric::Bytes => {
            let suffix = if a.metric == Metric::Bw { "/s" } else { "" };
            if v >= 1073741824.0 {
                format!("{:.2}GiB{suffix}", v / 1073741824.0)
            } else if v >= 1048576.0 {
                format!("{:.2}MiB{suffix}", v / 1048576.0)
            } else {
                format!("{:.1}KiB{suffix}", v / 1024.0)
            }
        }
        Metric::Iops | Metric::Ios => {
            if v >= 1e6 {
                format!("{:.3}M", v / 1e6)
            } else if v >= 1e4 {
                format!("{:.1}k", v / 1e3)
            } else {
                format!("{v:.1}")
            }
        }
    }
}

/// Check every job's assertions, plus `extra` ones for every job. A job reported merged
/// (group_reporting) is checked against the assertions of every job in its group.
pub fn evaluate(plan: &Plan, run: &RunResult, extra: &[Assertion]) -> Vec<Checked> {
    let mut out = Vec::new();
    for j in &run.jobs {
        let merged = plan
            .jobs
            .iter()
            .any(|p| p.groupid == j.groupid && p.spec.group_reporting);
        let mut asserts: Vec<&Assertion> = plan
            .jobs
            .iter()
            .filter(|p| {
                if merged {
                    p.groupid == j.groupid
                } else {
                    p.spec.name == j.name && p.groupid == j.groupid
                }
            })
            .flat_map(|p| p.spec.asserts.iter())
            .chain(extra)
            .collect();
        asserts.dedup_by(|a, b| a.text == b.text);
        for a in asserts {
            let v = measure(a, j);
            out.push(Checked {
                job: j.name.clone(),
                text: a.text.clone(),
                measured: v,
                shown: show(a, v),
                ok: a.holds(v),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_engine_counts_are_known_truths() {
        let job = fathom_job::Job::builder("g")
            .engine(fathom_job::Engine::Null)
            .rw(fathom_job::RwKind::RandRead)
            .size(4 << 20)
            .option(
                "assert",
                "read.ios==1024,read.bytes>=4m,write.ios==0,read.iops<1",
            )
            .build()
            .unwrap();
        let runner = crate::Runner::new(job);
        let plan = runner.plan().unwrap();
        let run = runner.run_planned(&plan).unwrap();
        let c = evaluate(&plan, &run, &[]);
        let ok: Vec<bool> = c.iter().map(|c| c.ok).collect();
        assert_eq!(ok, [true, true, true, false], "{c:?}");
        assert_eq!(c[1].shown, "4.00MiB");
        let extra = fathom_job::gate::parse_list("read.clat.max<=1h").unwrap();
        let c = evaluate(&plan, &run, &extra);
        assert!(c.last().unwrap().ok);
    }
}
