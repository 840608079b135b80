//! `read_iolog`: a job that replays a recorded log. The logs are read and parsed here,
//! before the clock starts (a bad line is reported with its number before any I/O), and
//! each clone gets the log's files and the parsed log in place of a generated workload.

use super::clone::join_dir;
use super::types::*;
use crate::error::RunError;
use fathom_job::{JobSpec, Rw, RwKind};
use fathom_workload::replay::{self, Replay, ReplayOptions, Skip};
use fathom_workload::{splitmix64, FileRegion, Params};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The logs of a replaying job: the job as it runs (its pattern and block sizes those of
/// the logs) and each clone's log.
pub(crate) struct JobReplay {
    pub(crate) spec: JobSpec,
    pub(crate) logs: Vec<Arc<Replay>>,
}

fn options(spec: &JobSpec) -> ReplayOptions {
    let r = &spec.replay;
    let dir = spec.directories.first().map(String::as_str);
    ReplayOptions {
        no_stall: r.no_stall,
        time_scale: r.time_scale,
        redirect: r
            .redirect
            .as_deref()
            .map(|p| join_dir(dir, p).display().to_string()),
        align: r.align,
        scale: r.scale,
        skip: Skip {
            read: r.skip[0],
            write: r.skip[1],
            trim: r.skip[2],
            sync: r.skip[3],
        },
    }
}

/// The bytes of a log: a file, `-` (standard input) or a Unix socket to read to its end.
fn read_log(name: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let mut out = Vec::new();
    if name == "-" {
        std::io::stdin().lock().read_to_end(&mut out)?;
    } else if std::fs::metadata(name).is_ok_and(|m| m.file_type().is_socket()) {
        std::os::unix::net::UnixStream::connect(name)?.read_to_end(&mut out)?;
    } else {
        out = std::fs::read(name)?;
    }
    Ok(out)
}

/// The block device under /dev with this number (blktrace names devices by number).
fn find_device(dir: &Path, major: u32, minor: u32, depth: u32) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let entries = std::fs::read_dir(dir).ok()?;
    let mut subdirs = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        let Ok(md) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if md.is_dir() {
            subdirs.push(p);
        } else if md.file_type().is_block_device() {
            let rdev = md.rdev();
            if libc::major(rdev) == major && libc::minor(rdev) == minor {
                return Some(p.display().to_string());
            }
        }
    }
    if depth == 0 {
        return None;
    }
    subdirs
        .iter()
        .find_map(|d| find_device(d, major, minor, depth - 1))
}

/// fio's `--merge-blktrace-only`: for every job with `merge_blktrace_file`, merge the
/// traces its `read_iolog` names into that file; the merged files, in job order.
pub fn merge_blktraces_only(set: &fathom_job::JobSet) -> Result<Vec<PathBuf>, RunError> {
    let mut out = Vec::new();
    for spec in &set.jobs {
        let (Some(list), Some(file)) = (&spec.replay.read_iolog, &spec.replay.merge_file) else {
            continue;
        };
        let dir = spec.directories.first().map(String::as_str);
        let names: Vec<String> = list
            .split(':')
            .filter(|n| !n.is_empty())
            .map(|n| join_dir(dir, n).display().to_string())
            .collect();
        let path = join_dir(dir, file);
        merge_traces(spec, &names, &path)?;
        out.push(path);
    }
    if let (true, Some(first)) = (out.is_empty(), set.jobs.first()) {
        return Err(plan_err(
            first,
            "--merge-blktrace-only: no job sets merge_blktrace_file (with the traces to \
             merge in read_iolog=A:B)",
        ));
    }
    Ok(out)
}

/// merge_blktrace_file: merge the traces into one file, and name it.
fn merge_traces(spec: &JobSpec, names: &[String], out: &Path) -> Result<String, RunError> {
    let mut data = Vec::with_capacity(names.len());
    for n in names {
        data.push(read_log(n).map_err(|e| plan_err(spec, format!("read_iolog={n}: {e}")))?);
    }
    let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    let r = &spec.replay;
    let merged = replay::merge_blktrace(&refs, &r.merge_scalars, &r.merge_iters)
        .map_err(|(i, e)| plan_err(spec, format!("merge_blktrace_file: {}: {e}", names[i])))?;
    std::fs::write(out, merged)
        .map_err(|e| plan_err(spec, format!("merge_blktrace_file={}: {e}", out.display())))?;
    Ok(out.display().to_string())
}

/// Parse each clone's log and shape the job around them. None: the job replays nothing.
pub(crate) fn plan_replay(
    spec: &JobSpec,
    limits: Limits,
    warnings: &mut Vec<String>,
) -> Result<Option<JobReplay>, RunError> {
    let Some(list) = &spec.replay.read_iolog else {
        if spec.replay.merge_file.is_some() {
            return Err(plan_err(
                spec,
                "merge_blktrace_file merges the traces read_iolog names: add read_iolog=A:B",
            ));
        }
        return Ok(None);
    };
    if limits.parse_only {
        // fio's --parse-only reads no log either: the job file is checked, not its inputs.
        return Ok(None);
    }
    let names = log_names(spec, list)?;
    let logs = read_logs(spec, names, warnings)?;
    let mut dirs = [false; 3];
    let mut max_len = [0u64; 3];
    for r in &logs {
        let n = r.ios();
        for d in 0..3 {
            dirs[d] |= n[d] > 0;
            max_len[d] = max_len[d].max(r.max_len[d]);
        }
    }
    // A log of reads alone may check what it reads against a plain pattern (the same in
    // every block, whoever wrote it); other verify methods check fathom's own writes.
    let reads_only = !(dirs[1] || dirs[2]);
    if spec.verify.kind.is_some()
        && !(reads_only && spec.verify.kind == Some(fathom_job::VerifyKind::Pattern))
    {
        return Err(plan_err(
            spec,
            "verify checks what fathom's own generator wrote; a replayed log's writes are \
             not verified: drop verify= (or verify the target with a separate job; a log \
             of reads alone may be checked with verify=pattern)",
        ));
    }
    if limits.readonly && (dirs[1] || dirs[2]) {
        return Err(plan_err(
            spec,
            "the replayed log writes or trims, and --readonly forbids that; add \
             replay_skip=write,trim to replay only its reads",
        ));
    }
    if spec.loops > 1 {
        warnings.push(format!(
            "note: job '{}': a replay runs its log once (as fio); loops={} does not repeat it",
            spec.name, spec.loops
        ));
    }
    let s = shaped(spec, &logs, max_len, dirs);
    Ok(Some(JobReplay { spec: s, logs }))
}

/// The logs read_iolog names (relative to directory=; `-` is standard input), or the
/// one file merge_blktrace_file makes of them.
fn log_names(spec: &JobSpec, list: &str) -> Result<Vec<String>, RunError> {
    let dir = spec.directories.first().map(String::as_str);
    let names: Vec<String> = list
        .split(':')
        .filter(|n| !n.is_empty())
        .map(|n| {
            if n == "-" {
                n.to_string()
            } else {
                join_dir(dir, n).display().to_string()
            }
        })
        .collect();
    if names.is_empty() {
        return Err(plan_err(spec, "read_iolog names no file"));
    }
    Ok(match &spec.replay.merge_file {
        Some(out) => vec![merge_traces(spec, &names, &join_dir(dir, out))?],
        None => names,
    })
}

/// Each clone's log, parsed; a distinct log is read once, whatever number of clones
/// replay it.
fn read_logs(
    spec: &JobSpec,
    names: Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Arc<Replay>>, RunError> {
    let o = options(spec);
    let mut device = |maj: u32, min: u32| find_device(Path::new("/dev"), maj, min, 3);
    let mut parsed: Vec<(String, Arc<Replay>)> = Vec::new();
    let mut logs = Vec::with_capacity(spec.numjobs as usize);
    for jobnum in 0..spec.numjobs as usize {
        let name = &names[jobnum % names.len()];
        if let Some((_, r)) = parsed.iter().find(|(n, _)| n == name) {
            logs.push(r.clone());
            continue;
        }
        let shown = if name == "-" { "standard input" } else { name };
        let data =
            read_log(name).map_err(|e| plan_err(spec, format!("read_iolog={shown}: {e}")))?;
        let r = replay::parse_with(&data, &o, &mut device)
            .map_err(|e| plan_err(spec, format!("read_iolog={shown}: {e}")))?;
        for n in &r.notes {
            warnings.push(format!(
                "note: job '{}': read_iolog={shown}: {n}",
                spec.name
            ));
        }
        let r = Arc::new(r);
        parsed.push((name.clone(), r.clone()));
        logs.push(r);
    }
    Ok(logs)
}

/// The job as its logs shape it: the pattern their directions make, buffers for their
/// largest transfers, and a blktrace's queue depth.
fn shaped(spec: &JobSpec, logs: &[Arc<Replay>], max_len: [u64; 3], dirs: [bool; 3]) -> JobSpec {
    let mut s = spec.clone();
    s.rw = Rw {
        kind: match dirs {
            [true, false, false] => RwKind::Read,
            [false, true, false] => RwKind::Write,
            [false, false, true] => RwKind::Trim,
            [false, true, true] => RwKind::TrimWrite,
            // Any mix with reads: the files open for writing too.
            _ => RwKind::ReadWrite,
        },
        suffix: 0,
    };
    // Buffers hold the largest read or write; a trim moves no data, so a log of 1 GiB
    // trims needs no 1 GiB buffers (fio's t/jobs/t0038 checks the same).
    // A direction the log does not use keeps the job's size (a log of reads checked
    // against a pattern keeps the job's verify_interval, which the write size would cap).
    let size = |d: usize| {
        if max_len[d] > 0 {
            max_len[d]
        } else {
            spec.bs.0[d]
        }
        .max(512)
    };
    let trim = if max_len[2] > 0 { 512 } else { size(2) };
    s.bs = fathom_job::PerDir([size(0), size(1), trim]);
    s.bsrange = [None, None, None];
    s.bssplit = [Vec::new(), Vec::new(), Vec::new()];
    if let Some(d) = logs.iter().filter_map(|r| r.trace_depth).max() {
        // As fio: a blktrace replay without iodepth= runs at the trace's queue depth.
        if !spec.replay.iodepth_given {
            s.iodepth = d;
        }
    }
    s
}

/// A replaying clone: the log's files, whole, and the log itself.
pub(crate) fn replay_clone(
    ji: usize,
    spec: &JobSpec,
    jobnum: u32,
    log: &Arc<Replay>,
) -> PlannedClone {
    let files: Vec<PlannedFile> = log
        .files
        .iter()
        .zip(&log.extent)
        .map(|(p, &end)| PlannedFile {
            path: PathBuf::from(p),
            region: FileRegion { start: 0, len: end },
        })
        .collect();
    let mut seed_state = spec.randseed ^ ((ji as u64) << 40) ^ ((jobnum as u64) << 20);
    let seed = splitmix64(&mut seed_state);
    let mut params = Params::simple(spec.rw, 4096, FileRegion { start: 0, len: 0 }, seed);
    params.bs = spec.bs.0;
    params.files = files.iter().map(|f| f.region).collect();
    PlannedClone {
        jobnum,
        index: 0,
        files,
        params,
        tree: None,
        replay: Some(log.clone()),
        locks: Vec::new(),
        overlapped: false,
    }
}
