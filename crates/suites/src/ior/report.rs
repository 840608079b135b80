//! IOR's report: the header of options, and the Max lines and summary table.

use super::tasks::Nodes;
use super::Opts;

pub(super) fn mib(b: f64) -> f64 {
    b / 1048576.0
}

/// IOR's header: the options, then the results table's head.
pub(super) fn options_text(o: &Opts, tasks: u32, nodes: Nodes) -> String {
    // IOR's lines on the order of the offsets and of the tasks' data.
    let order = match (o.reorder, o.reorder_random > 0) {
        (true, _) => format!(
            "ordering inter file : constant task offset\n\
             task offset         : {}\n",
            o.task_offset
        ),
        (false, true) => format!(
            "ordering inter file : random task offset\n\
             task offset         : {}\n\
             reorder random seed : {}\n",
            o.task_offset, o.random_seed
        ),
        (false, false) => "ordering inter file : no tasks offsets\n".to_string(),
    };
    // IOR's lines for -A and -D.
    let mut extra = String::new();
    if let Some(n) = o.ref_num {
        extra.push_str(&format!("refnum              : {n}\n"));
    }
    if o.deadline > 0 {
        extra.push_str(&format!(
            "stonewallingTime    : {}\n\
             stoneWallingWearOut : {}\n",
            o.deadline,
            u8::from(o.wear_out)
        ));
    }
    format!(
        "fathom {} (IOR method)\n\n\
         Options:\n\
         api                 : {}\n\
         access              : {}\n\
         segments            : {}\n\
         ordering in a file  : {}\n\
         {order}\
         nodes               : {}\n\
         tasks               : {}\n\
         clients per node    : {}\n\
         blocksize           : {} KiB\n\
         xfersize            : {} KiB\n\
         aggregate filesize  : {:.2} MiB\n\
         repetitions         : {}\n\
         {extra}\n\
         Results:\n\n\
         access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  total(s)   iter\n\
         ------    ---------  ----       ----------  ---------- ---------  --------   ----\n",
        fathom::VERSION,
        match (o.mmap, o.direct) {
            (true, _) => "MMAP (mmap)".to_string(),
            (false, d) => format!("POSIX (psync{})", if d { ", O_DIRECT" } else { "" }),
        },
        if o.file_per_proc {
            "file-per-process"
        } else {
            "single-shared-file"
        },
        o.segments,
        if o.random { "random" } else { "sequential" },
        nodes.nodes,
        tasks,
        nodes.on_node0,
        o.block >> 10,
        o.transfer >> 10,
        mib((o.block * o.segments * tasks as u64) as f64),
        o.iterations
    )
}

/// Each repetition's bandwidth, per phase that ran.
#[derive(Default)]
pub(super) struct Bandwidths {
    pub(super) writes: Vec<f64>,
    pub(super) reads: Vec<f64>,
}

/// The Max lines and the summary table of every phase that ran; returns the headline
/// figures.
pub(super) fn summary(
    o: &Opts,
    (tasks, per_node): (u32, u32),
    bw: &Bandwidths,
    s: &mut String,
) -> Vec<(String, f64)> {
    let (writes, reads) = (&bw.writes, &bw.reads);
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let max = v.iter().copied().fold(0.0, f64::max);
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        (max, min, mean, sd)
    };
    // Only the phases that ran (-w / -r), as IOR prints them.
    let phases: Vec<(&str, &str, &Vec<f64>)> =
        [("Write", "write", writes), ("Read", "read", reads)]
            .into_iter()
            .filter(|(_, _, v)| !v.is_empty())
            .collect();
    s.push('\n');
    for (title, _, v) in &phases {
        let (max, ..) = stats(v);
        let pad = if *title == "Read" { "  " } else { " " };
        s.push_str(&format!(
            "Max {title}:{pad}{:.2} MiB/sec ({:.2} MB/sec)\n",
            mib(max),
            max / 1e6
        ));
    }
    s.push_str(
        "\nSummary of all tests:\n\
         Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   #Tasks  tPN  reps\n",
    );
    for (_, name, v) in &phases {
        let (max, min, mean, sd) = stats(v);
        s.push_str(&format!(
            "{name:<9} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8} {:>4} {:>5}\n",
            mib(max),
            mib(min),
            mib(mean),
            mib(sd),
            tasks,
            per_node,
            o.iterations
        ));
    }
    phases
        .iter()
        .map(|(title, _, v)| (format!("Max {title} (MiB/s)"), mib(stats(v).0)))
        .collect()
}
