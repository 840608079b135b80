//! Which task's data each rank goes through: IOR's nodes (tasks per node, by-slot or
//! round-robin mapping), -C's constant and -Z's random task offsets (glibc's rand(), as IOR
//! draws them).

use super::Opts;
use anyhow::{bail, Result};
use fathom::Cluster;

/// Where IOR's tasks run, as IOR counts it: the ranks on rank 0's host (IOR's
/// numTasksOnNode0, the `tPN` column), the hosts, and whether rank 1 shares rank 0's host
/// (IOR's by-slot mapping, which -C's offset counts in whole nodes). IOR's test knobs
/// `IOR_FAKE_TASK_PER_NODES` and `IOR_FAKE_NODES` (read at rank 0) stand in for the first
/// two, as in IOR, with IOR's line saying so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Nodes {
    pub(super) on_node0: u32,
    pub(super) nodes: u32,
    pub(super) by_slot: bool,
}

pub(super) fn nodes(cl: &dyn Cluster, threads: u32, notes: &mut String) -> Nodes {
    let host = fathom::facts::host().hostname;
    let all = cl.gather_bytes(host.as_bytes());
    let fake = |name: &str| -> Option<u32> {
        let v = std::env::var(name).ok()?;
        // IOR reads it with atoi().
        let digits: String = v.trim().chars().take_while(char::is_ascii_digit).collect();
        Some(digits.parse().unwrap_or(0))
    };
    let mut n = [threads as f64, 1.0, 1.0];
    if let Some(h0) = all.first() {
        let distinct: std::collections::BTreeSet<&Vec<u8>> = all.iter().collect();
        n = [
            (all.iter().filter(|h| *h == h0).count() as u32 * threads) as f64,
            distinct.len() as f64,
            f64::from(u8::from(all.get(1).is_none_or(|h| h == h0))),
        ];
        if let Some(v) = fake("IOR_FAKE_NODES") {
            notes.push_str(&format!("Fake number of node: using {v}\n"));
            n[1] = v as f64;
        }
        if let Some(v) = fake("IOR_FAKE_TASK_PER_NODES") {
            notes.push_str(&format!("Fake tasks per node: using {v}\n"));
            n[0] = v as f64;
        }
    }
    let n = n.map(|v| cl.broadcast(v));
    Nodes {
        on_node0: n[0] as u32,
        nodes: n[1] as u32,
        by_slot: n[2] != 0.0,
    }
}

/// glibc's `rand()` after `srand(seed)` (its additive feedback generator, TYPE_3), which
/// IOR's -Z draws its task offsets from: the same seed gives IOR's offsets.
pub(super) struct GlibcRand {
    r: [u32; 34],
    i: usize,
}

impl GlibcRand {
    pub(super) fn new(seed: u32) -> Self {
        let mut r = [0u32; 34];
        r[0] = if seed == 0 { 1 } else { seed };
        for i in 1..31 {
            // 16807 x r mod (2^31 - 1) by Schrage's method, on the signed word, as glibc.
            let w = r[i - 1] as i32;
            let (hi, lo) = (w / 127_773, w % 127_773);
            let mut v = 16_807 * lo - 2_836 * hi;
            if v < 0 {
                v += 2_147_483_647;
            }
            r[i] = v as u32;
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        let mut g = GlibcRand { r, i: 0 };
        // The first 310 outputs are thrown away.
        for _ in 34..344 {
            g.step();
        }
        g
    }
    pub(super) fn step(&mut self) -> u32 {
        // r[k] = r[k-31] + r[k-3], over a ring of the last 34.
        let v = self.r[(self.i + 3) % 34].wrapping_add(self.r[(self.i + 31) % 34]);
        self.r[self.i % 34] = v;
        self.i += 1;
        v
    }
    pub(super) fn next(&mut self) -> u32 {
        self.step() >> 1
    }
}

/// The task whose data `rank` reads back in repetition `rep`'s read phase (IOR's
/// `(rank + rankOffset) % numTasks`): -C: `-Q` nodes on (whole nodes with a by-slot
/// mapping, else `-Q` ranks); -Z: a random task at least `-Q` nodes on (as far as there are
/// nodes), drawn with glibc's rand() seeded with rank + `-X`; -Z -Z: a shuffle of the tasks
/// seeded with `-X`. (-X below 0: its size plus the repetition.)
pub(super) fn read_task(o: &Opts, nodes: Nodes, tasks: u32, rank: u32, rep: u32) -> Result<u32> {
    let shift = if nodes.by_slot { nodes.on_node0 } else { 1 };
    let seed = if o.random_seed < 0 {
        (-o.random_seed + i64::from(rep)) as u32
    } else {
        o.random_seed as u32
    };
    let n = tasks.max(1);
    if o.reorder {
        let off = (u64::from(o.task_offset) * u64::from(shift) % u64::from(n)) as u32;
        return Ok((rank + off) % n);
    }
    match o.reorder_random {
        0 => Ok(rank),
        1 => {
            let node_off = o.task_offset.min(nodes.nodes.saturating_sub(1));
            let floor = u64::from(node_off) * u64::from(nodes.on_node0);
            if floor >= u64::from(n) {
                bail!(
                    "-Z with -Q {}: no task is {node_off} node(s) of {} tasks each away \
                     among {n} tasks (IOR would draw forever)",
                    o.task_offset,
                    nodes.on_node0
                );
            }
            let mut g = GlibcRand::new(rank.wrapping_add(seed));
            let mut off = g.next() % n;
            while u64::from(off) < floor {
                off = g.next() % n;
            }
            Ok((rank + off) % n)
        }
        _ => {
            let mut g = GlibcRand::new(seed);
            let mut order: Vec<u32> = (0..n).collect();
            for i in 0..n as usize {
                let t = i + (g.next() % (n - i as u32)) as usize;
                order.swap(i, t);
            }
            Ok(order[rank as usize % n as usize])
        }
    }
}

/// The task whose data `rank` checks after a write phase (-W): with -C, two nodes on (as
/// IOR 4.0), else its own.
pub(super) fn write_check_task(o: &Opts, nodes: Nodes, tasks: u32, rank: u32) -> u32 {
    if !o.reorder {
        return rank;
    }
    let shift = if nodes.by_slot { nodes.on_node0 } else { 1 };
    let n = tasks.max(1);
    (rank + (2 * u64::from(shift) % u64::from(n)) as u32) % n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }
    use crate::ior::parse;

    #[test]
    fn glibc_rand_gives_glibc_s_numbers() {
        // glibc 2.36's srand()/rand(), read with ctypes.
        for (seed, want) in [
            (0u32, [1804289383u32, 846930886, 1681692777, 1714636915]),
            (1, [1804289383, 846930886, 1681692777, 1714636915]),
            (5, [590011675, 99788765, 2131925610, 171864072]),
            (12345, [383100999, 858300821, 357768173, 455528251]),
            (4294967295, [254925627, 1205188300, 366127624, 1401405153]),
            (2147483648, [1336741213, 1210407648, 1447044896, 337392383]),
        ] {
            let mut g = GlibcRand::new(seed);
            let got: Vec<u32> = (0..4).map(|_| g.next()).collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn reordered_reads_take_ior_s_task_offsets() {
        let o = |f: &[&str]| parse(&args(f)).unwrap();
        let by_slot = Nodes {
            on_node0: 4,
            nodes: 2,
            by_slot: true,
        };
        let round_robin = Nodes {
            by_slot: false,
            ..by_slot
        };
        let reads = |o: &Opts, n: Nodes, rep: u32| -> Vec<u32> {
            (0..8)
                .map(|r| read_task(o, n, 8, r, rep).unwrap())
                .collect()
        };
        // -C: one node on (4 tasks by slot, 1 round robin); -Q2: two nodes (all 8: own).
        assert_eq!(reads(&o(&["-C"]), by_slot, 0), [4, 5, 6, 7, 0, 1, 2, 3]);
        assert_eq!(reads(&o(&["-C"]), round_robin, 0), [1, 2, 3, 4, 5, 6, 7, 0]);
        assert_eq!(
            reads(&o(&["-C", "-Q", "2"]), by_slot, 0),
            [0, 1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(reads(&o(&[]), by_slot, 0), [0, 1, 2, 3, 4, 5, 6, 7]);
        // -W with -C checks two nodes on.
        let c = o(&["-C"]);
        let w: Vec<u32> = (0..8)
            .map(|r| write_check_task(&c, round_robin, 8, r))
            .collect();
        assert_eq!(w, [2, 3, 4, 5, 6, 7, 0, 1]);
        // -Z: rand() seeded with rank + X, redrawn below a node away; each task reads
        // outside its node.
        let z = reads(&o(&["-Z"]), by_slot, 0);
        for (r, d) in z.iter().enumerate() {
            let off = (*d + 8 - r as u32) % 8;
            assert!(off >= 4, "rank {r} reads {d}: {z:?}");
            let mut g = GlibcRand::new(r as u32);
            let mut want = g.next() % 8;
            while want < 4 {
                want = g.next() % 8;
            }
            assert_eq!(off, want);
        }
        // -Z -Z: a shuffle, every task's data read once; -X below 0 changes per repetition.
        let zz = o(&["-Z", "-Z", "-X", "-3"]);
        let (a, b) = (reads(&zz, by_slot, 0), reads(&zz, by_slot, 1));
        for v in [&a, &b] {
            let mut s = v.clone();
            s.sort();
            assert_eq!(s, [0, 1, 2, 3, 4, 5, 6, 7]);
        }
        assert_ne!(a, b);
        // More than the tasks' nodes: IOR would draw forever; refused.
        let one = Nodes {
            on_node0: 8,
            nodes: 2,
            by_slot: true,
        };
        assert!(read_task(&o(&["-Z"]), one, 8, 0, 0).is_err());
    }
}
