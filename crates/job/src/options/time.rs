//! Time, repetition and job control.

use super::{int, int_in, time, OptDef};
use crate::units::{parse_bool, parse_range, TimeUnit};

const C: &str = "Time and job control";

/// errno names fio accepts in ignore_error.
const ERRNOS: &[(&str, i32)] = &[
    ("EPERM", libc::EPERM),
    ("ENOENT", libc::ENOENT),
    ("EINTR", libc::EINTR),
    ("EIO", libc::EIO),
    ("ENXIO", libc::ENXIO),
    ("EBADF", libc::EBADF),
    ("EAGAIN", libc::EAGAIN),
    ("ENOMEM", libc::ENOMEM),
    ("EACCES", libc::EACCES),
    ("EFAULT", libc::EFAULT),
    ("EBUSY", libc::EBUSY),
    ("EEXIST", libc::EEXIST),
    ("ENODEV", libc::ENODEV),
    ("EINVAL", libc::EINVAL),
    ("EFBIG", libc::EFBIG),
    ("ENOSPC", libc::ENOSPC),
    ("ESPIPE", libc::ESPIPE),
    ("EROFS", libc::EROFS),
    ("EILSEQ", libc::EILSEQ),
    ("ENODATA", libc::ENODATA),
    ("ETIMEDOUT", libc::ETIMEDOUT),
    ("EOPNOTSUPP", libc::EOPNOTSUPP),
    ("EREMOTEIO", libc::EREMOTEIO),
    ("EDQUOT", libc::EDQUOT),
    ("EBADMSG", libc::EBADMSG),
    ("ENOLINK", libc::ENOLINK),
];

fn errno_list(s: &str) -> Result<Vec<i32>, String> {
    s.split(':')
        .filter(|x| !x.is_empty())
        .map(|x| {
            let x = x.trim();
            // As fio: a negative number is its errno (-5 is EIO); 0 is no error.
            if let Ok(n) = x.parse::<i32>() {
                if n == 0 {
                    return Err(
                        "unknown error 0 (fio refuses it too): use an errno, a number or a \
                         name like EIO"
                            .into(),
                    );
                }
                return Ok(n.saturating_abs());
            }
            ERRNOS
                .iter()
                .find(|(n, _)| *n == x)
                .map(|e| e.1)
                .ok_or_else(|| format!("unknown errno '{x}'; use a number or a name like EIO"))
        })
        .collect()
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "continue_on_error",
        aliases: &[],
        category: C,
        ty: "none|read|write|io|verify|all|0|1",
        default: "none",
        doc: "Keep going after I/O errors of this class (read, write, io = both, verify, all), as fio: only after the errnos of the class's ignore_error list, by default fio's non-fatal EIO and EILSEQ (so ENOSPC still ends the job); the errors are counted (total_err, first_error) and the I/Os in total_ios",
        flag: false,
        apply: |j, v, _| {
            // fio's bits: read 1, write 2, verify 4; set anew (a list given earlier in
            // ignore_error keeps its errnos, not its class).
            j.errors.classes = match v {
                "none" | "0" => [false; 3],
                "read" => [true, false, false],
                "write" => [false, true, false],
                "io" => [true, true, false],
                "verify" => [false, false, true],
                "all" | "1" => [true; 3],
                _ => return Err("use none, read, write, io, verify or all".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "ignore_error",
        aliases: &[],
        category: C,
        ty: "errno lists READ,WRITE,VERIFY",
        default: "",
        doc: "Errnos (names or numbers, ':'-separated) to go on after, per class READ,WRITE,VERIFY as fio (one list is reads' alone); a list turns on continue_on_error for its class and replaces its default EIO:EILSEQ",
        flag: false,
        apply: |j, v, _| {
            // As fio: the lists are READ,WRITE,VERIFY in that order (one list is reads'
            // alone); a non-empty list replaces its class's errnos and turns it on.
            let parts: Vec<&str> = v.trim().split(',').collect();
            if parts.len() > 3 {
                return Err("at most three lists: READ,WRITE,VERIFY".into());
            }
            for (i, p) in parts.iter().enumerate() {
                if p.is_empty() {
                    continue;
                }
                j.errors.lists[i] = Some(errno_list(p)?);
                j.errors.classes[i] = true;
            }
            Ok(())
        },
    },
    OptDef {
        name: "runtime",
        aliases: &["timeout"],
        category: C,
        ty: "time (s)",
        default: "0 (no limit)",
        doc: "Stop the job after this long (after ramp_time); 0 = no limit",
        flag: false,
        apply: |j, v, c| {
            let t = time(v, TimeUnit::Seconds, c)?;
            j.runtime = (!t.is_zero()).then_some(t);
            Ok(())
        },
    },
    OptDef {
        name: "stonewall_time",
        aliases: &[],
        category: C,
        ty: "time (s)",
        default: "0 (none)",
        doc: "IOR's stonewall deadline: the job stops this long after its (under MPI, synchronized) start, as runtime does; same as --stonewall-time",
        flag: false,
        apply: |j, v, c| {
            let t = time(v, TimeUnit::Seconds, c)?;
            j.runtime = (!t.is_zero()).then_some(t);
            Ok(())
        },
    },
    OptDef {
        name: "time_based",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Repeat the workload until runtime has passed",
        flag: true,
        apply: |j, v, _| {
            j.time_based = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "ramp_time",
        aliases: &[],
        category: C,
        ty: "time (s)",
        default: "0",
        doc: "Run this long before recording any statistics",
        flag: false,
        apply: |j, v, c| {
            j.ramp_time = time(v, TimeUnit::Seconds, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "steadystate",
        aliases: &["ss"],
        category: C,
        ty: "metric:limit[%]",
        default: "iops_slope:0.01%",
        doc: "End the job once iops, bw or lat (mean clat), or their _slope, stays within the limit over ss_dur",
        flag: false,
        apply: |j, v, _| {
            j.steadystate = steady(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "steadystate_duration",
        aliases: &["ss_dur"],
        category: C,
        ty: "time (s)",
        default: "0 (off)",
        doc: "The steady-state window; steady state is checked only when this is set",
        flag: false,
        apply: |j, v, c| {
            j.ss_dur = time(v, TimeUnit::Seconds, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "steadystate_ramp_time",
        aliases: &["ss_ramp"],
        category: C,
        ty: "time (s)",
        default: "0",
        doc: "Time before steady-state samples are collected",
        flag: false,
        apply: |j, v, c| {
            j.ss_ramp = time(v, TimeUnit::Seconds, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "steadystate_check_interval",
        aliases: &["ss_interval"],
        category: C,
        ty: "time (s)",
        default: "1",
        doc: "Steady-state sample period (whole seconds or ms, at least 100 ms)",
        flag: false,
        apply: |j, v, c| {
            let d = time(v, TimeUnit::Seconds, c)?;
            if d < std::time::Duration::from_millis(100) {
                return Err("must be at least 100ms".into());
            }
            j.ss_interval = d;
            Ok(())
        },
    },
    OptDef {
        name: "startdelay",
        aliases: &[],
        category: C,
        ty: "time range (s)",
        default: "0",
        doc: "Wait this long (or a random time in lo-hi) before starting",
        flag: false,
        apply: |j, v, c| {
            j.startdelay = parse_range(v, |x| time(x, TimeUnit::Seconds, c))?;
            Ok(())
        },
    },
    OptDef {
        name: "loops",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "Repeat the job's workload this many times (0 is one time, as in fio)",
        flag: false,
        apply: |j, v, _| {
            j.loops = int_in(v, 0, u32::MAX as u64)?.max(1);
            Ok(())
        },
    },
    OptDef {
        name: "number_ios",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0 (off)",
        doc: "Stop after this many I/Os per loop, counted over the whole job as fio counts them (number_ios x loops in all, the verify reads included; each loop runs until its pass ends or the count is reached); as in fio, a time_based job runs its full time",
        flag: false,
        apply: |j, v, _| {
            j.number_ios = int(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "numjobs",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "Run this many clones of the job, each in its own thread",
        flag: false,
        apply: |j, v, _| {
            j.numjobs = int_in(v, 1, 4096)?;
            Ok(())
        },
    },
    OptDef {
        name: "thread",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Accepted for fio compatibility: fathom always runs jobs as threads",
        flag: true,
        apply: |j, v, _| {
            j.thread = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "stonewall",
        aliases: &["wait_for_previous"],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Wait for all earlier jobs to finish before starting; starts a new group",
        flag: true,
        apply: |j, v, _| {
            j.stonewall = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "new_group",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Start a new reporting group",
        flag: true,
        apply: |j, v, _| {
            j.new_group = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "randrepeat",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "Seed the generators the same way every run, for repeatable I/O",
        flag: false,
        apply: |j, v, _| {
            j.randrepeat = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "allrandrepeat",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Seed every one of fio's generators from the thread's number alone, as fio \
              does (0xb1899bed times the thread, plus the generator's index): repeatable \
              even with randrepeat=0, whose seeds would come from the system; randseed \
              is then not used for them. With randrepeat=1 (the default) the random \
              offsets are seeded as without it; the other generators (the mix's \
              directions, block sizes, file service, zones) change",
        flag: false,
        apply: |j, v, _| {
            j.allrandrepeat = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "random_generator",
        aliases: &[],
        category: C,
        ty: "tausworthe|lfsr|tausworthe64",
        default: "tausworthe",
        doc: "fio's generators: a read/write mix's directions, block-size ranges and \
              splits and uniform random offsets are drawn from fio's own Tausworthe \
              generators, seeded as fio seeds them (tausworthe64: the 64-bit one, as \
              fio), so a job makes fio's I/Os. lfsr's promise (an I/O starts at every \
              block exactly once per pass, without a map of what I/Os cover, so mixed \
              sizes overlap as in fio's) is kept with a map of the starts, its order of \
              blocks fathom's own; norandommap changes nothing with lfsr, as in fio",
        flag: false,
        apply: |j, v, _| {
            (j.lfsr, j.rand64) = match v.trim() {
                "tausworthe" => (false, false),
                "tausworthe64" => (false, true),
                "lfsr" => (true, false),
                _ => return Err("use tausworthe, lfsr or tausworthe64".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "wait_for",
        aliases: &[],
        category: C,
        ty: "job name",
        default: "",
        doc: "Start this job only when every clone of the named (earlier) job has ended; \
              other jobs of the phase run meanwhile",
        flag: false,
        apply: |j, v, _| {
            let v = v.trim();
            if v.is_empty() {
                return Err("name the job to wait for, e.g. wait_for=prefill".into());
            }
            j.wait_for = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "exitall",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "When this job ends, stop the other jobs (those exit_what names)",
        flag: true,
        apply: |j, v, _| {
            j.exitall = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "exit_what",
        aliases: &[],
        category: C,
        ty: "group|stonewall|all",
        default: "group",
        doc: "Which jobs exitall stops: the job's reporting group, its stonewall phase, or all \
              (later phases do not start)",
        flag: false,
        apply: |j, v, _| {
            j.exit_what = match v.trim() {
                "group" => 0,
                "stonewall" => 1,
                "all" => 2,
                _ => return Err("use group, stonewall or all".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "cpus_allowed",
        aliases: &[],
        category: C,
        ty: "cpu list",
        default: "",
        doc: "CPUs the job's threads may run on: a list of CPUs and ranges, e.g. 0-3,6",
        flag: false,
        apply: |j, v, _| {
            j.cpus = Some(cpu_list(v)?);
            Ok(())
        },
    },
    OptDef {
        name: "cpumask",
        aliases: &[],
        category: C,
        ty: "int (bit mask)",
        default: "",
        doc: "CPUs the job's threads may run on, as a bit mask (0x5 = CPUs 0 and 2)",
        flag: false,
        apply: |j, v, _| {
            let m = int(v)?;
            if m == 0 {
                return Err("the mask selects no CPU".into());
            }
            j.cpus = Some((0..64).filter(|b| m >> b & 1 == 1).collect());
            Ok(())
        },
    },
    OptDef {
        name: "cpus_allowed_policy",
        aliases: &[],
        category: C,
        ty: "shared|split",
        default: "shared",
        doc: "shared: every clone may use every allowed CPU; split: each clone gets one, in turn",
        flag: false,
        apply: |j, v, _| {
            j.cpus_split = match v.trim() {
                "shared" => false,
                "split" => true,
                _ => return Err("use shared or split".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "nice",
        aliases: &[],
        category: C,
        ty: "int -20..19",
        default: "0",
        doc: "Run the job's threads with this nice value",
        flag: false,
        apply: |j, v, _| {
            let n: i32 = v
                .trim()
                .parse()
                .map_err(|_| "a number from -20 to 19".to_string())?;
            if !(-20..=19).contains(&n) {
                return Err("nice is from -20 to 19".into());
            }
            j.nice = Some(n);
            Ok(())
        },
    },
    OptDef {
        name: "prio",
        aliases: &[],
        category: C,
        ty: "int 0-7",
        default: "",
        doc: "I/O priority within the class (0 highest, 7 lowest), set with ioprio_set",
        flag: false,
        apply: |j, v, _| {
            j.prio = Some(super::int_in(v, 0, 7)?);
            Ok(())
        },
    },
    OptDef {
        name: "prioclass",
        aliases: &[],
        category: C,
        ty: "int 0-3",
        default: "",
        doc: "I/O priority class: 1 realtime, 2 best-effort, 3 idle, 0 none (the class follows the thread's nice value, as the kernel's default) (ioprio_set)",
        flag: false,
        apply: |j, v, _| {
            j.prioclass = Some(super::int_in(v, 0, 3)?);
            Ok(())
        },
    },
    OptDef {
        name: "randseed",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0x89",
        doc: "The seed of the random generators; as in fio, giving it turns randrepeat's fresh start of the draws at each loop off (the draws go on through the loops) and seeds a skewed random_distribution from fio's block seed instead of the file's name",
        flag: false,
        apply: |j, v, _| {
            j.randseed = int(v)?;
            j.randseed_set = true;
            Ok(())
        },
    },
];

/// `0-3,6` → [0, 1, 2, 3, 6].
pub(super) fn cpu_list(v: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let p = |x: &str| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{part}' is not a CPU or range"))
        };
        let (lo, hi) = (p(lo)?, p(hi)?);
        if lo > hi || hi >= 1024 {
            return Err(format!(
                "'{part}' is not a valid CPU range (CPUs 0 to 1023)"
            ));
        }
        out.extend(lo..=hi);
    }
    if out.is_empty() {
        return Err("no CPU given; e.g. cpus_allowed=0-3".into());
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// `iops_slope:0.1%`, `bw:5000000`, `lat:2%`.
fn steady(v: &str) -> Result<crate::spec::SteadyCriterion, String> {
    use crate::spec::{SteadyCriterion, SteadyMetric};
    let (m, lim) = v
        .split_once(':')
        .ok_or("write METRIC:LIMIT, e.g. iops_slope:0.1% (metrics: iops, bw, lat, and _slope)")?;
    let (metric, slope) = match m.trim() {
        "iops" => (SteadyMetric::Iops, false),
        "iops_slope" => (SteadyMetric::Iops, true),
        "bw" => (SteadyMetric::Bw, false),
        "bw_slope" => (SteadyMetric::Bw, true),
        "lat" => (SteadyMetric::Lat, false),
        "lat_slope" => (SteadyMetric::Lat, true),
        o => {
            return Err(format!(
                "unknown metric '{o}'; use iops, iops_slope, bw, bw_slope, lat or lat_slope"
            ))
        }
    };
    let lim = lim.trim();
    let (num, percent) = match lim.strip_suffix('%') {
        Some(n) => (n, true),
        None => (lim, false),
    };
    let limit: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{lim}' is not a number (a percent with %)"))?;
    if limit.is_nan() || limit < 0.0 {
        return Err("the limit must not be negative".into());
    }
    Ok(SteadyCriterion {
        metric,
        slope,
        limit,
        percent,
    })
}
