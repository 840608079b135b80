//! The live view: fio's one-line progress display (`--eta`) and periodic per-interval
//! status blocks (`--status-interval`), both fed by the runner's interval events.

use fathom::{Plan, Progress};
use std::io::Write;
use std::time::Duration;

/// What each job contributes to the progress line.
pub struct JobShape {
    /// fio's state letter while running (R/r read, W/w write, M/m mixed, D/d trim;
    /// capital for sequential).
    pub letter: char,
    /// Clones.
    pub clones: u32,
    /// Bytes the job will move (0 when only time bounds it).
    pub bytes: u64,
    /// Its runtime limit.
    pub runtime: Option<Duration>,
}

/// The shapes of a plan's jobs.
pub fn shapes(plan: &Plan) -> Vec<JobShape> {
    plan.jobs
        .iter()
        .map(|j| {
            let k = j.spec.rw.kind;
            let mut c = match (k.reads(), k.writes(), k.trims()) {
                (true, true, _) => 'm',
                (true, false, _) => 'r',
                (false, true, true) => 'd',
                (false, true, false) => 'w',
                _ => 'd',
            };
            if !k.is_random() {
                c = c.to_ascii_uppercase();
            }
            let bytes = if j.spec.time_based {
                0
            } else {
                j.clones
                    .iter()
                    .map(|c| {
                        let region: u64 = c.files.iter().map(|f| f.region.len).sum();
                        j.spec.io_size.unwrap_or(region) * u64::from(j.spec.loops.max(1))
                    })
                    .sum()
            };
            JobShape {
                letter: c,
                clones: j.clones.len() as u32,
                bytes,
                runtime: j.spec.runtime,
            }
        })
        .collect()
}

fn rate(b: f64) -> String {
    fathom_report::units::short_rate(b, true)
}

fn count(v: f64) -> String {
    fathom_report::units::short_count(v)
}

/// fio's ETA line: `Jobs: N (f=N): [r(1)][45.5%][r=..,w=..][r=..,w=.. IOPS][eta 00m:06s]`.
pub fn eta_line(p: &Progress, shapes: &[JobShape]) -> String {
    let running: u32 = p
        .jobs
        .iter()
        .zip(shapes)
        .filter(|(j, _)| !j.done)
        .map(|(_, s)| s.clones)
        .sum();
    let mut states = String::new();
    for (j, s) in p.jobs.iter().zip(shapes) {
        let c = if j.done {
            '_'
        } else if j.ios.iter().sum::<u64>() == 0 {
            'P'
        } else {
            s.letter
        };
        states.push_str(&format!("{c}({})", s.clones));
    }
    // Progress: bytes where the size bounds a job, else time.
    let secs = p.elapsed.as_secs_f64();
    let mut frac: f64 = 0.0;
    let mut eta: f64 = 0.0;
    for (j, s) in p.jobs.iter().zip(shapes) {
        let done: u64 = j.bytes.iter().sum();
        let (f, left) = if j.done {
            (1.0, 0.0)
        } else if s.bytes > 0 {
            let f = (done as f64 / s.bytes as f64).min(1.0);
            let bps: f64 = (0..3).map(|d| p.interval_bw_of(j, d)).sum();
            let left = if bps > 0.0 {
                (s.bytes.saturating_sub(done)) as f64 / bps
            } else {
                0.0
            };
            (f, left)
        } else if let Some(rt) = s.runtime {
            let rt = rt.as_secs_f64().max(1e-9);
            ((secs / rt).min(1.0), (rt - secs).max(0.0))
        } else {
            (0.0, 0.0)
        };
        frac = frac.max(f);
        eta = eta.max(left);
    }
    let bw = |d: usize| -> f64 { p.jobs.iter().map(|j| p.interval_bw_of(j, d)).sum() };
    let iops = |d: usize| -> f64 { p.jobs.iter().map(|j| p.interval_iops_of(j, d)).sum() };
    let eta = eta.round() as u64;
    format!(
        "Jobs: {running} (f={running}): [{states}][{:.1}%][r={},w={}][r={},w={} IOPS][eta {:02}m:{:02}s]",
        frac * 100.0,
        rate(bw(0)),
        rate(bw(1)),
        count(iops(0)),
        count(iops(1)),
        eta / 60,
        eta % 60
    )
}

/// A per-interval status block (normal format).
pub fn status_block(p: &Progress) -> String {
    let mut s = format!(
        "fathom status at {:.1}s (this interval: {:.1}s):\n",
        p.elapsed.as_secs_f64(),
        p.interval.as_secs_f64()
    );
    for j in &p.jobs {
        let mut parts = Vec::new();
        for (d, dn) in ["read", "write", "trim"].iter().enumerate() {
            if j.ios[d] == 0 {
                continue;
            }
            parts.push(format!(
                "{dn}: IOPS={}, BW={} (interval), ios={} total",
                count(p.interval_iops_of(j, d)),
                rate(p.interval_bw_of(j, d)),
                j.ios[d]
            ));
        }
        if parts.is_empty() {
            parts.push("no I/O yet".into());
        }
        let state = if j.done { " (done)" } else { "" };
        s.push_str(&format!("  {}{state}: {}\n", j.name, parts.join("; ")));
    }
    s
}

/// A per-interval status object (json formats): one compact line.
pub fn status_json(p: &Progress) -> String {
    let jobs: Vec<serde_json::Value> = p
        .jobs
        .iter()
        .map(|j| {
            let dir = |d: usize| {
                serde_json::json!({
                    "total_ios": j.ios[d],
                    "io_bytes": j.bytes[d],
                    "interval_ios": j.interval_ios[d],
                    "interval_bytes": j.interval_bytes[d],
                    "iops": p.interval_iops_of(j, d),
                    "bw_bytes": p.interval_bw_of(j, d),
                })
            };
            serde_json::json!({
                "jobname": j.name,
                "done": j.done,
                "read": dir(0),
                "write": dir(1),
                "trim": dir(2),
            })
        })
        .collect();
    let v = serde_json::json!({
        "fathom_status": {
            "elapsed_ms": p.elapsed.as_millis() as u64,
            "interval_ms": p.interval.as_millis() as u64,
            "jobs": jobs,
        }
    });
    format!("{v}\n")
}

/// Where the ETA line goes: a TTY gets it rewritten in place, anything else a line each.
pub fn print_eta(line: &str, tty: bool) {
    let mut e = std::io::stderr().lock();
    if tty {
        let _ = write!(e, "\r{line}\x1b[K");
    } else {
        let _ = writeln!(e, "{line}");
    }
    let _ = e.flush();
}
