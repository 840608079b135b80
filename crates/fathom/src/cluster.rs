//! Many processes as one run: what a launcher of ranks (the binary's MPI build under
//! `mpirun`) gives the front ends that run across hosts: vdbench's `hd=` hosts, IOR's and
//! metarates' tasks. The front ends only see this trait; the MPI calls stay in the binary.

use crate::{Report, Runner};

/// How the ranks tell each other of a stop within a phase: plain functions (the launcher's
/// messages), so that a run's poll can hold them.
#[derive(Clone, Copy)]
pub struct StopSignals {
    /// Tell every other rank that this one was stopped.
    pub announce: fn(),
    /// Whether another rank announced a stop since the last look.
    pub peer_stopped: fn() -> bool,
}

/// `runner` with a poll that passes stops between the ranks while a phase runs: a rank
/// stopped alone (a signal to that process) tells the others, and a rank told so cancels
/// its run, so every rank stops its phase within a poll rather than finish it first.
pub fn stop_with_peers(runner: Runner, s: StopSignals) -> Runner {
    let h = runner.cancel_handle();
    let (mut announced, mut by_peer) = (false, false);
    runner.on_poll(move || {
        if h.is_cancelled() {
            if !announced && !by_peer {
                announced = true;
                (s.announce)();
            }
        } else if (s.peer_stopped)() {
            by_peer = true;
            h.cancel();
        }
    })
}

/// The ranks of a distributed run, as seen from one of them.
pub trait Cluster {
    /// This rank (0 is the one that reports).
    fn rank(&self) -> u32;
    /// How many ranks.
    fn size(&self) -> u32;
    /// Wait for every rank.
    fn barrier(&self);
    /// Every rank's bytes, in rank order, at rank 0; an empty list elsewhere.
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>>;
    /// Rank 0's value, at every rank.
    fn broadcast(&self, v: f64) -> f64;
    /// Whether any rank says `mine`, at every rank (a barrier that carries a stop).
    fn any(&self, mine: bool) -> bool;
    /// How the ranks tell each other of a stop within a phase (None: one process).
    fn stop_signals(&self) -> Option<StopSignals> {
        None
    }

    /// Every rank's report, in rank order, at rank 0 (lossless: the native JSON); an empty
    /// list elsewhere.
    fn gather(&self, mine: &Report) -> Result<Vec<Report>, serde_json::Error> {
        let bytes = serde_json::to_vec(mine)?;
        self.gather_bytes(&bytes)
            .iter()
            .map(|b| serde_json::from_slice(b))
            .collect()
    }

    /// Every rank's numbers (the same count on each), in rank order, at rank 0; an empty
    /// list elsewhere.
    fn gather_f64(&self, mine: &[f64]) -> Vec<Vec<f64>> {
        let bytes: Vec<u8> = mine.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.gather_bytes(&bytes)
            .iter()
            .map(|b| {
                b.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect()
            })
            .collect()
    }
}

/// One process alone: rank 0 of 1 (a front end written for many ranks runs unchanged).
#[derive(Debug, Clone, Copy, Default)]
pub struct Alone;

impl Cluster for Alone {
    fn rank(&self) -> u32 {
        0
    }
    fn size(&self) -> u32 {
        1
    }
    fn barrier(&self) {}
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        vec![mine.to_vec()]
    }
    fn broadcast(&self, v: f64) -> f64 {
        v
    }
    fn any(&self, mine: bool) -> bool {
        mine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alone_gathers_its_own_numbers_and_report() {
        let g = Alone.gather_f64(&[1.5, -2.0, 1e300]);
        assert_eq!(g, vec![vec![1.5, -2.0, 1e300]]);
        let r = Report::default();
        let back = Alone.gather(&r).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(Alone.size(), 1);
        assert!(Alone.any(true) && !Alone.any(false));
    }
}
