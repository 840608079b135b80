//! Live progress: each clone publishes its counters (relaxed stores at every 500 ms
//! sample, nothing per I/O) so a status request (SIGUSR1, a progress display) can read
//! them while the run goes on.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// One clone's published counters.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct LiveClone {
    /// Completed I/Os per direction.
    pub ios: [AtomicU64; 3],
    /// Completed bytes per direction.
    pub bytes: [AtomicU64; 3],
    /// ms of measured time (after ramp) at the last publication (0 = not started).
    pub at_ms: AtomicU64,
    /// Sum of every completion latency so far, ns (steady state's lat metric).
    pub clat_sum_ns: AtomicU64,
    /// Number of those latencies.
    pub clat_n: AtomicU64,
    /// With the `live_samples` setting: each interval sample as it is taken, per
    /// direction (read, write, trim), for a reader printing intervals while the run goes on.
    pub samples: std::sync::Mutex<[Vec<fathom_stats::Sample>; 3]>,
    /// With `live_samples`: the interval samples of the operations an I/O job records
    /// beside its I/O (`open`, `close`, `delete`, `create`), by name, each pushed before
    /// the directions' samples of the same interval.
    pub op_samples: std::sync::Mutex<Vec<(String, Vec<fathom_stats::Sample>)>>,
}

/// The board: one entry per clone, in plan order, with its job's name.
#[derive(Debug)]
pub struct LiveBoard {
    /// (job name, counters) per clone.
    pub clones: Vec<(String, LiveClone)>,
    /// When the run started.
    pub start: Instant,
}

impl LiveBoard {
    pub(crate) fn new(names: Vec<String>) -> LiveBoard {
        LiveBoard {
            clones: names
                .into_iter()
                .map(|n| (n, LiveClone::default()))
                .collect(),
            start: Instant::now(),
        }
    }

    /// A human-readable status block: per clone, I/Os, bytes and average rates so far.
    pub fn status(&self) -> String {
        let mut s = format!(
            "fathom status at {:.1}s:\n",
            self.start.elapsed().as_secs_f64()
        );
        for (i, (name, c)) in self.clones.iter().enumerate() {
            let secs = (c.at_ms.load(Ordering::Relaxed) as f64 / 1000.0).max(1e-9);
            let mut parts = Vec::new();
            for (d, dn) in ["read", "write", "trim"].iter().enumerate() {
                let ios = c.ios[d].load(Ordering::Relaxed);
                if ios == 0 {
                    continue;
                }
                let bytes = c.bytes[d].load(Ordering::Relaxed);
                parts.push(format!(
                    "{dn}: ios={ios} io={:.1}MiB IOPS={:.0} BW={:.1}MiB/s",
                    bytes as f64 / 1048576.0,
                    ios as f64 / secs,
                    bytes as f64 / 1048576.0 / secs
                ));
            }
            if parts.is_empty() {
                parts.push("no I/O yet".into());
            }
            s.push_str(&format!("  {name} #{i}: {}\n", parts.join(", ")));
        }
        s
    }
}

impl LiveClone {
    /// Publish counters (called by the clone's own thread).
    pub(crate) fn publish(&self, ios: [u64; 3], bytes: [u64; 3], at_ms: u64) {
        for d in 0..3 {
            self.ios[d].store(ios[d], Ordering::Relaxed);
            self.bytes[d].store(bytes[d], Ordering::Relaxed);
        }
        self.at_ms.store(at_ms, Ordering::Relaxed);
    }

    /// Hand over one interval's samples (`live_samples`), every direction (or
    /// operation) under one lock, so a reader never sees an interval half handed over.
    pub(crate) fn push_samples(&self, samples: &[(usize, fathom_stats::Sample)]) {
        if let Ok(mut g) = self.samples.lock() {
            for (dir, s) in samples {
                g[*dir].push(*s);
            }
        }
    }

    pub(crate) fn push_op_samples(&self, samples: &[(&str, fathom_stats::Sample)]) {
        if let Ok(mut g) = self.op_samples.lock() {
            for (name, s) in samples {
                match g.iter_mut().find(|(n, _)| n == name) {
                    Some((_, v)) => v.push(*s),
                    None => g.push((name.to_string(), vec![*s])),
                }
            }
        }
    }

    /// Publish a clone's counters with its completion latencies.
    pub(crate) fn publish_stats(&self, st: &fathom_stats::ThreadStats, at_ms: u64) {
        let d = &st.dirs;
        let (mut sum, mut n) = (0u128, 0u64);
        for x in d {
            let (s, c) = x.clat_sum_count();
            sum += s;
            n += c;
        }
        self.clat_sum_ns.store(sum as u64, Ordering::Relaxed);
        self.clat_n.store(n, Ordering::Relaxed);
        self.publish(
            [d[0].ios, d[1].ios, d[2].ios],
            [d[0].bytes, d[1].bytes, d[2].bytes],
            at_ms,
        );
    }
}
