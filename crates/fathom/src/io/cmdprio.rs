//! cmdprio (libaio, io_uring): which I/Os carry a priority of their own, chosen at random
//! per I/O as fio does, and the priorities each direction reports latencies under.

use fathom_job::{CmdPrio, Ddir, JobSpec};
use fathom_workload::Rng;

/// The I/Os of one block size: (size, total share, [(share, priority)]).
type SizePrios = (u64, u32, Vec<(u32, u16)>);

/// One direction's choice.
enum DirPick {
    /// No I/O of this direction takes a cmdprio priority.
    Off,
    /// `cmdprio_percentage`: this share of I/Os takes this priority.
    Share([(u32, u16); 1]),
    /// `cmdprio_bssplit`: per block size, (total share, [(share, prio)]).
    BySize(Vec<SizePrios>),
}

/// A clone's priority picker.
pub(crate) struct PrioPick {
    dirs: [DirPick; 2],
    /// The job's own priority (prio/prioclass; 0 without): what the other I/Os report
    /// under.
    default: u16,
    /// The value put in an I/O's command when it takes no cmdprio priority: the job's
    /// own on io_uring (as fio sets each submission's), 0 (the thread's) on libaio.
    plain: u16,
    rng: Rng,
}

impl PrioPick {
    /// The picker of a job with cmdprio options (None without).
    pub(crate) fn new(spec: &JobSpec, seed: u64) -> Option<PrioPick> {
        let c: &CmdPrio = &spec.cmdprio;
        if !c.active() {
            return None;
        }
        let dir = |d: usize| match &c.bssplit {
            Some(split) => DirPick::BySize({
                let mut out: Vec<SizePrios> = Vec::new();
                for s in &split[d] {
                    let prio = s.prio.unwrap_or_else(|| c.value(d));
                    match out.last_mut().filter(|e| e.0 == s.bs) {
                        Some(e) => {
                            e.1 += s.perc;
                            e.2.push((s.perc, prio));
                        }
                        None => out.push((s.bs, s.perc, vec![(s.perc, prio)])),
                    }
                }
                out
            }),
            None if c.percentage[d] > 0 => DirPick::Share([(c.percentage[d], c.value(d))]),
            None => DirPick::Off,
        };
        let default = spec.logs.ioprio;
        Some(PrioPick {
            dirs: [dir(0), dir(1)],
            default,
            plain: if spec.ioengine == "io_uring" {
                default
            } else {
                0
            },
            rng: Rng::new(seed ^ 0x10_9410),
        })
    }

    /// The priorities direction `d` reports under, in fio's order: the job's own, then
    /// each cmdprio one as first named.
    pub(crate) fn values(&self, d: usize) -> Vec<u16> {
        let mut v = vec![self.default];
        let mut add = |p: u16| {
            if !v.contains(&p) {
                v.push(p);
            }
        };
        match &self.dirs[d] {
            DirPick::Off => {}
            DirPick::Share([(_, prio)]) => add(*prio),
            DirPick::BySize(sizes) => {
                for (_, _, prios) in sizes {
                    for &(_, p) in prios {
                        add(p);
                    }
                }
            }
        }
        v
    }

    /// The priority of an I/O: (value for its command, priority its latency is reported
    /// under).
    #[inline]
    pub(crate) fn pick(&mut self, ddir: Ddir, len: u64) -> (u16, u16) {
        let plain = (self.plain, self.default);
        let d = match ddir {
            Ddir::Read => 0,
            Ddir::Write => 1,
            Ddir::Trim => return plain,
        };
        let (total, prios): (u32, &[(u32, u16)]) = match &self.dirs[d] {
            DirPick::Off => return plain,
            DirPick::Share(one) => (one[0].0, one.as_slice()),
            DirPick::BySize(sizes) => match sizes.iter().find(|s| s.0 == len) {
                Some((_, total, prios)) => (*total, prios.as_slice()),
                None => return plain,
            },
        };
        let r = self.rng.below(100) as u32;
        if r >= total {
            return plain;
        }
        let mut acc = 0;
        for &(perc, prio) in prios {
            acc += perc;
            if r < acc {
                return (prio, prio);
            }
        }
        plain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> JobSpec {
        let mut s = fathom_job::parse_fio_str(text, "t.fio")
            .expect("parses")
            .jobs
            .remove(0);
        s.logs.ioprio = 0;
        s
    }

    #[test]
    fn a_share_of_ios_takes_the_priority() {
        let s = spec("[a]\nioengine=libaio\ncmdprio_percentage=30\ncmdprio_class=2\ncmdprio=3\n");
        let mut p = PrioPick::new(&s, 7).expect("active");
        assert_eq!(p.values(0), vec![0, (2 << 13) | 3]);
        let n = 100_000;
        let hits = (0..n).filter(|_| p.pick(Ddir::Read, 4096).1 != 0).count();
        assert!((29_000..31_000).contains(&hits), "{hits}");
        // A trim never does.
        assert_eq!(p.pick(Ddir::Trim, 4096), (0, 0));
    }

    #[test]
    fn bssplit_picks_by_block_size() {
        let s = spec("[a]\nioengine=io_uring\ncmdprio_bssplit=4k/50/3/0:4k/50/2/1:64k/10\n");
        let mut p = PrioPick::new(&s, 3).expect("active");
        assert_eq!(p.values(1), vec![0, 3 << 13, (2 << 13) | 1, 1 << 13]);
        let mut seen = [0u32; 3];
        for _ in 0..10_000 {
            match p.pick(Ddir::Write, 4096).1 {
                x if x == 3 << 13 => seen[0] += 1,
                x if x == (2 << 13) | 1 => seen[1] += 1,
                _ => seen[2] += 1,
            }
        }
        assert_eq!(
            seen[2], 0,
            "4k I/Os always take one of their two priorities"
        );
        assert!(seen[0] > 4_500 && seen[1] > 4_500, "{seen:?}");
        // A size without an entry keeps the job's priority.
        assert_eq!(p.pick(Ddir::Write, 8192), (0, 0));
    }
}
