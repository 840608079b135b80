//! Distributed runs on MPI (`--features mpi`): started under `mpirun`, every rank runs the
//! job set; ranks meet at a barrier before each phase starts its I/O; rank 0 gathers every
//! rank's complete result (histograms included), merges them exactly and alone writes the
//! report, with a per-rank breakdown. Started without `mpirun`, fathom runs as usual.

use fathom::plan::Rank;
use fathom::Report;

/// One rank's result as rank 0 sees it.
pub struct RankResult {
    /// The rank.
    pub rank: u32,
    /// Its result (host facts included).
    pub result: Report,
}

/// True when MPI's launcher started this process.
pub fn under_mpirun() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// The per-rank breakdown: for each job and direction, min/mean/max IOPS across ranks and
/// the slowest rank; first-done and last-done times.
pub fn breakdown(ranks: &[RankResult]) -> serde_json::Value {
    use serde_json::json;
    let per_rank: Vec<serde_json::Value> = ranks
        .iter()
        .map(|r| {
            let jobs: Vec<serde_json::Value> = r
                .result
                .jobs
                .iter()
                .map(|j| {
                    let secs = j.stats.runtime.as_secs_f64().max(1e-9);
                    let dir = |d: usize| {
                        json!({
                            "total_ios": j.stats.dirs[d].ios,
                            "io_bytes": j.stats.dirs[d].bytes,
                            "iops": j.stats.dirs[d].ios as f64 / secs,
                            "bw_bytes": j.stats.dirs[d].bytes as f64 / secs,
                        })
                    };
                    json!({
                        "jobname": j.name,
                        "job_start_ms": j.job_start_ms,
                        "runtime_ms": j.stats.runtime.as_millis() as u64,
                        "error": j.stats.error,
                        "read": dir(0),
                        "write": dir(1),
                        "trim": dir(2),
                    })
                })
                .collect();
            json!({
                "rank": r.rank,
                "hostname": r.result.host.hostname,
                "jobs": jobs,
            })
        })
        .collect();
    // Summary per job name and direction.
    let mut summary = Vec::new();
    if let Some(first) = ranks.first() {
        for j in &first.result.jobs {
            for (d, dn) in ["read", "write", "trim"].iter().enumerate() {
                let vals: Vec<(u32, f64, u128)> = ranks
                    .iter()
                    .filter_map(|r| {
                        let x = r.result.jobs.iter().find(|x| x.name == j.name)?;
                        let secs = x.stats.runtime.as_secs_f64().max(1e-9);
                        Some((
                            r.rank,
                            x.stats.dirs[d].ios as f64 / secs,
                            x.stats.runtime.as_millis(),
                        ))
                    })
                    .collect();
                if vals.iter().all(|v| v.1 == 0.0) {
                    continue;
                }
                let min = vals.iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
                let max = vals.iter().map(|v| v.1).fold(0.0, f64::max);
                let mean = vals.iter().map(|v| v.1).sum::<f64>() / vals.len() as f64;
                let slowest = vals
                    .iter()
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|v| v.0)
                    .unwrap_or(0);
                let first_done = vals.iter().map(|v| v.2).min().unwrap_or(0);
                let last_done = vals.iter().map(|v| v.2).max().unwrap_or(0);
                summary.push(json!({
                    "jobname": j.name,
                    "ddir": dn,
                    "iops_min": min,
                    "iops_mean": mean,
                    "iops_max": max,
                    "slowest_rank": slowest,
                    "first_done_ms": first_done as u64,
                    "last_done_ms": last_done as u64,
                }));
            }
        }
    }
    json!({ "ranks": ranks.len(), "summary": summary, "per_rank": per_rank })
}

/// The breakdown as a table for the normal output.
pub fn breakdown_table(b: &serde_json::Value) -> String {
    let mut s = format!(
        "\nPer-rank breakdown ({} ranks): IOPS min / mean / max, slowest rank, first/last done\n",
        b["ranks"]
    );
    for r in b["summary"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "  {} {:<5}: {:.0} / {:.0} / {:.0}  slowest rank {}  done {}-{} ms\n",
            r["jobname"].as_str().unwrap_or(""),
            r["ddir"].as_str().unwrap_or(""),
            r["iops_min"].as_f64().unwrap_or(0.0),
            r["iops_mean"].as_f64().unwrap_or(0.0),
            r["iops_max"].as_f64().unwrap_or(0.0),
            r["slowest_rank"],
            r["first_done_ms"],
            r["last_done_ms"]
        ));
    }
    for r in b["per_rank"].as_array().into_iter().flatten() {
        for j in r["jobs"].as_array().into_iter().flatten() {
            if j["error"].as_i64().unwrap_or(0) != 0 {
                s.push_str(&format!(
                    "  rank {} ({}): job {} failed with error {}\n",
                    r["rank"],
                    r["hostname"].as_str().unwrap_or("?"),
                    j["jobname"],
                    j["error"]
                ));
            }
        }
    }
    s
}

#[cfg(feature = "mpi")]
mod imp {
    use super::*;
    use mpi::traits::*;

    /// The tag of a rank's "I was stopped" message.
    const STOP_TAG: i32 = 7007;

    /// The MPI side of a run.
    pub struct Dist {
        _universe: mpi::environment::Universe,
        /// This rank and the size of the world.
        pub rank: Rank,
    }

    impl Dist {
        /// Initialise MPI when started under mpirun.
        pub fn detect() -> anyhow::Result<Option<Dist>> {
            if !under_mpirun() {
                return Ok(None);
            }
            let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
                .ok_or_else(|| anyhow::anyhow!("MPI was already initialised"))?;
            let w = universe.world();
            let rank = Rank {
                rank: w.rank() as u32,
                size: w.size() as u32,
            };
            Ok(Some(Dist {
                _universe: universe,
                rank,
            }))
        }

        /// Wait for every rank.
        pub fn barrier() {
            mpi::topology::SimpleCommunicator::world().barrier();
        }

        /// Wait for every rank and tell each whether any of them says `mine` (a barrier
        /// that also carries a stop).
        pub fn any(mine: bool) -> bool {
            use mpi::collective::SystemOperation;
            let world = mpi::topology::SimpleCommunicator::world();
            let mut all = 0i32;
            world.all_reduce_into(&(mine as i32), &mut all, SystemOperation::logical_or());
            all != 0
        }

        /// Tell every other rank that this one was stopped (a signal to this process
        /// alone), so that they stop their phase too rather than finish it. A one-int
        /// message each: sent at once (eagerly), never waiting for the receiver.
        pub fn announce_stop() {
            let world = mpi::topology::SimpleCommunicator::world();
            for r in (0..world.size()).filter(|&r| r != world.rank()) {
                world.process_at_rank(r).send_with_tag(&1i32, STOP_TAG);
            }
        }

        /// Whether another rank announced a stop since the last look (every announcement
        /// waiting is taken off the line).
        pub fn peer_stopped() -> bool {
            let world = mpi::topology::SimpleCommunicator::world();
            let mut any = false;
            while world
                .any_process()
                .immediate_probe_with_tag(STOP_TAG)
                .is_some()
            {
                let _: (i32, _) = world.any_process().receive_with_tag(STOP_TAG);
                any = true;
            }
            any
        }

        /// Every rank's bytes at rank 0, in rank order; an empty list elsewhere.
        pub fn gather_bytes(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
            let world = mpi::topology::SimpleCommunicator::world();
            let root = world.process_at_rank(0);
            let n = bytes.len() as i32;
            if self.rank.rank != 0 {
                root.gather_into(&n);
                root.gather_varcount_into(bytes);
                return Vec::new();
            }
            let mut counts = vec![0i32; self.rank.size as usize];
            root.gather_into_root(&n, &mut counts[..]);
            let displs: Vec<i32> = counts
                .iter()
                .scan(0, |acc, &c| {
                    let d = *acc;
                    *acc += c;
                    Some(d)
                })
                .collect();
            let mut buf = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
            {
                let mut part =
                    mpi::datatype::PartitionMut::new(&mut buf[..], counts.clone(), &displs[..]);
                root.gather_varcount_into_root(bytes, &mut part);
            }
            displs
                .iter()
                .zip(&counts)
                .map(|(&d, &c)| buf[d as usize..(d + c) as usize].to_vec())
                .collect()
        }

        /// Rank 0's value at every rank.
        pub fn broadcast_f64(&self, v: f64) -> f64 {
            let world = mpi::topology::SimpleCommunicator::world();
            let mut x = v;
            world.process_at_rank(0).broadcast_into(&mut x);
            x
        }

        /// Rank 0 tells every rank the exit code.
        pub fn agree_exit_code(&self, code: u8) -> u8 {
            let world = mpi::topology::SimpleCommunicator::world();
            let mut c = code as i32;
            world.process_at_rank(0).broadcast_into(&mut c);
            c as u8
        }
    }
}

#[cfg(feature = "mpi")]
pub use imp::Dist;

/// Without the `mpi` feature: refuse to pretend when started under mpirun.
#[cfg(not(feature = "mpi"))]
pub struct Dist {
    /// Never constructed.
    pub rank: Rank,
}

#[cfg(not(feature = "mpi"))]
impl Dist {
    /// Under mpirun without MPI support every rank would run alone and print its own
    /// report: say so instead.
    pub fn detect() -> anyhow::Result<Option<Dist>> {
        if under_mpirun() {
            anyhow::bail!(
                "started under mpirun, but this fathom was built without MPI support; \
                 build it with `cargo build --release --features mpi` (needs libopenmpi-dev \
                 and libclang-dev)"
            );
        }
        Ok(None)
    }
    /// Unreachable without MPI.
    pub fn barrier() {}
    /// Unreachable without MPI.
    pub fn any(mine: bool) -> bool {
        mine
    }
    /// Unreachable without MPI.
    pub fn announce_stop() {}
    /// Unreachable without MPI.
    pub fn peer_stopped() -> bool {
        false
    }
    /// Unreachable without MPI.
    pub fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        vec![mine.to_vec()]
    }
    /// Unreachable without MPI.
    pub fn agree_exit_code(&self, code: u8) -> u8 {
        code
    }
    /// Unreachable without MPI.
    pub fn broadcast_f64(&self, v: f64) -> f64 {
        v
    }
}

impl Dist {
    /// Gather every rank's result at rank 0 (native JSON, lossless). Rank 0 gets them
    /// all in rank order; the others get an empty list.
    pub fn gather(&self, mine: &Report) -> anyhow::Result<Vec<RankResult>> {
        let all = fathom::Cluster::gather(&Ranks(self), mine)
            .map_err(|e| anyhow::anyhow!("a rank's result: {e}"))?;
        Ok(all
            .into_iter()
            .enumerate()
            .map(|(r, result)| RankResult {
                rank: r as u32,
                result,
            })
            .collect())
    }
}

/// The MPI run as the front ends that run across ranks see it (vdbench's hosts, IOR's
/// and metarates' tasks).
pub struct Ranks<'a>(pub &'a Dist);

impl fathom::Cluster for Ranks<'_> {
    fn rank(&self) -> u32 {
        self.0.rank.rank
    }
    fn size(&self) -> u32 {
        self.0.rank.size
    }
    fn barrier(&self) {
        Dist::barrier();
    }
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.0.gather_bytes(mine)
    }
    fn broadcast(&self, v: f64) -> f64 {
        self.0.broadcast_f64(v)
    }
    fn any(&self, mine: bool) -> bool {
        Dist::any(mine)
    }
    fn stop_signals(&self) -> Option<fathom::cluster::StopSignals> {
        Some(Dist::stop_signals())
    }
}

impl Dist {
    /// This launcher's stop messages.
    pub fn stop_signals() -> fathom::cluster::StopSignals {
        fathom::cluster::StopSignals {
            announce: Dist::announce_stop,
            peer_stopped: Dist::peer_stopped,
        }
    }
}
