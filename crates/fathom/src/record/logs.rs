//! fio's log files: bandwidth, IOPS, latency and latency-histogram logs, with fio 3.33's
//! names (`NAME_bw.N.log`, `NAME_iops.N.log`, `NAME_slat.N.log`, `NAME_clat.N.log`,
//! `NAME_lat.N.log`, `NAME_clat_hist.N.log`; N numbers the job clones of the run from 1,
//! and `per_job_logs=0` drops it) and line formats, so fio's log tools read them:
//!
//! - per I/O (`log_avg_msec=0`): `time_ms, value, ddir, bs, prio` — bandwidth in KB/s of
//!   that I/O (bytes × 10⁶ / latency ns), IOPS 1, latencies in ns;
//! - averaged: `time_ms, value, ddir, 0, prio` at the end of each window of
//!   `log_avg_msec` with the window's mean (or `log_window_value=max`);
//! - windows end where the run ends, as in fio: a rate (bw, iops) or histogram log holds
//!   whole windows only; a latency log also holds the last, partial window, stamped with
//!   the run's end. I/Os still completing after a runtime deadline (the queue draining)
//!   belong to the last window of a latency log and to no window of a rate log, so no
//!   line is ever stamped after the run's end;
//! - `log_offset=1` adds the offset before `prio` (0 when averaged);
//! - histogram: `time_ms, ddir, bs, count, count, ...` every `log_hist_msec` for each
//!   direction with completions, over fio's 1856 buckets merged 2^`log_hist_coarseness`.
//!
//! Events are kept in memory per clone while it runs (about 40 bytes per I/O, only when a
//! log is asked for) and written when the clone ends, so the hot path never writes files.

use fathom_job::LogSpec;
use std::io::Write;
use std::path::PathBuf;

/// One completed I/O.
#[derive(Debug, Clone, Copy)]
pub struct LogEvent {
    /// Completion time, ns since the clone's measurement started.
    pub t_ns: u64,
    /// Direction index.
    pub ddir: u8,
    /// Bytes.
    pub bs: u32,
    /// Offset.
    pub offset: u64,
    /// Submission latency (for synchronous engines: the time from the I/O's start to its
    /// issue, 0 but for a verified write).
    pub slat: u64,
    /// Completion latency.
    pub clat: u64,
    /// The I/O's priority (ioprio value) for the priority column.
    pub ioprio: u16,
}

/// A clone's events.
#[derive(Debug, Default)]
pub struct IoLog {
    /// In completion order.
    pub events: Vec<LogEvent>,
    /// The engine is synchronous: no submission latencies (an event's `slat` is the time
    /// before its issue, in its total latency only; the slat log stays empty, as fio's).
    pub sync: bool,
}

fn file(name: &str, kind: &str, spec: &LogSpec, index: u32) -> PathBuf {
    if spec.shared {
        PathBuf::from(format!("{name}_{kind}.log"))
    } else {
        PathBuf::from(format!("{name}_{kind}.{index}.log"))
    }
}

/// One log line's fields besides its value.
#[derive(Clone, Copy, Default)]
struct At {
    t_ms: u64,
    ddir: u8,
    bs: u32,
    offset: u64,
    /// Issue time, ns since the log's start (`log_issue_time`; 0 where fio writes 0).
    issue_ns: u64,
    /// The I/O's priority (ioprio value); 0 on averaged lines, as fio.
    prio: u16,
}

/// `time, value, ddir, bs[, offset], prio[, issue]`: the priority column is fio's
/// 16-bit ioprio value in hex with `log_prio`, else 1 for the real-time class and 0
/// otherwise.
fn line_text(out: &mut String, at: At, value: &str, spec: &LogSpec) {
    use std::fmt::Write;
    let _ = write!(out, "{}, {value}, {}, {}", at.t_ms, at.ddir, at.bs);
    if spec.offset {
        let _ = write!(out, ", {}", at.offset);
    }
    if spec.log_prio {
        let _ = write!(out, ", 0x{:04x}", at.prio);
    } else {
        let _ = write!(out, ", {}", u8::from(at.prio >> 13 == 1));
    }
    if spec.issue_time {
        let _ = write!(out, ", {}", at.issue_ns);
    }
    out.push('\n');
}

fn line(out: &mut String, at: At, value: u64, spec: &LogSpec) {
    line_text(out, at, &value.to_string(), spec);
}

/// A rate log's per-event amount and the divisor of its per-second total.
type Rate<'a> = (&'a dyn Fn(&LogEvent) -> u64, u128);

/// Where the logged run ends, ns from the clone's start: its last completion, or the
/// runtime deadline when I/Os completed after it.
fn run_end(events: &[LogEvent], deadline_ns: Option<u64>) -> u64 {
    let last = events.iter().map(|e| e.t_ns).max().unwrap_or(0);
    deadline_ns.map_or(last, |d| last.min(d))
}

/// The windows of `win` ns up to `end`: (window end, events in it). Whole windows come
/// first; the events after the last whole one (a partial window, or I/Os drained after a
/// deadline on a window boundary) come last, as (end, tail) when `keep_tail`: a partial
/// window is stamped `end`, drained I/Os join the last whole window. Without `keep_tail`
/// the tail is left out.
fn windows(events: &[LogEvent], win: u64, end: u64, keep_tail: bool) -> Vec<(u64, &[LogEvent])> {
    let whole = end / win;
    let mut out = Vec::with_capacity(whole as usize + 1);
    let (mut i, mut last_from) = (0, 0);
    for k in 1..=whole {
        let stop = k * win;
        last_from = i;
        while i < events.len() && events[i].t_ns < stop {
            i += 1;
        }
        out.push((stop, &events[last_from..i]));
    }
    if keep_tail && i < events.len() {
        match out.last_mut() {
            // The run ended on a window boundary: the drained I/Os join that window.
            Some(last) if end == whole * win => last.1 = &events[last_from..],
            _ => out.push((end, &events[i..])),
        }
    }
    out
}

/// Lines of one value log: per I/O, or per window (mean or max of `value`, or the count
/// per second for `rate`), for a run that ended `end` ns after its start.
fn value_log(
    events: &[LogEvent],
    spec: &LogSpec,
    value: impl Fn(&LogEvent) -> u64,
    per_second: Option<Rate<'_>>,
    end: u64,
    issue: bool,
) -> String {
    let mut out = String::new();
    if spec.avg_msec == 0 {
        for e in events {
            let at = At {
                t_ms: e.t_ns / 1_000_000,
                ddir: e.ddir,
                bs: e.bs,
                offset: e.offset,
                // Issued once submitted: completion less the completion latency.
                issue_ns: if issue {
                    e.t_ns - e.clat.min(e.t_ns)
                } else {
                    0
                },
                prio: e.ioprio,
            };
            line(&mut out, at, value(e), spec);
        }
        return out;
    }
    let win = spec.avg_msec as u64 * 1_000_000;
    let window = |stop: u64, d: usize| At {
        t_ms: stop / 1_000_000,
        ddir: d as u8,
        ..At::default()
    };
    for (stop, evs) in windows(events, win, end, per_second.is_none()) {
        // Per direction: sum, max, count within the window.
        let mut acc = [(0u128, 0u64, 0u64); 3];
        for e in evs {
            let a = &mut acc[e.ddir as usize];
            let v = per_second.map_or_else(|| value(e), |(f, _)| f(e));
            a.0 += v as u128;
            a.1 = a.1.max(v);
            a.2 += 1;
        }
        for (d, a) in acc.iter().enumerate() {
            if a.2 == 0 {
                continue;
            }
            let v = match per_second {
                // A rate: the window's total per second.
                Some((_, div)) => (a.0 * 1000 / spec.avg_msec as u128 / div) as u64,
                None if spec.window_max => a.1,
                None => (a.0 / a.2 as u128) as u64,
            };
            if spec.window_both && per_second.is_none() {
                // Average and maximum: two value columns.
                let both = format!("{v}, {}", a.1);
                line_text(&mut out, window(stop, d), &both, spec);
            } else {
                line(&mut out, window(stop, d), v, spec);
            }
        }
    }
    out
}

fn hist_log(events: &[LogEvent], spec: &LogSpec, end: u64) -> String {
    use fathom_stats::fio_bins::{bucket_of, PLAT_NR};
    let merge = 1u64 << spec.hist_coarseness;
    let nbins = PLAT_NR.div_ceil(merge) as usize;
    let win = if spec.hist_msec == 0 {
        u64::MAX
    } else {
        spec.hist_msec as u64 * 1_000_000
    };
    let mut out = String::new();
    let wins: Vec<(u64, &[LogEvent])> = if win == u64::MAX {
        // One histogram of the whole run, stamped at its last completion.
        let last = events.iter().map(|e| e.t_ns).max();
        last.map(|t| (t, events)).into_iter().collect()
    } else {
        windows(events, win, end, false)
    };
    for (stop, evs) in wins {
        let mut bins = vec![vec![0u64; nbins]; 3];
        let mut bs = [0u32; 3];
        let mut seen = [false; 3];
        for e in evs {
            bins[e.ddir as usize][(bucket_of(e.clat) / merge) as usize] += 1;
            bs[e.ddir as usize] = e.bs;
            seen[e.ddir as usize] = true;
        }
        let t_ms = stop / 1_000_000;
        for d in 0..3 {
            if seen[d] {
                let counts: Vec<String> = bins[d].iter().map(u64::to_string).collect();
                out.push_str(&format!("{t_ms}, {d}, {}, {}\n", bs[d], counts.join(", ")));
            }
        }
    }
    out
}

fn write(path: &PathBuf, text: &str, shared: bool) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(shared)
        .write(true)
        .truncate(!shared)
        .open(path)?;
    // One write per clone, so clones sharing a file (per_job_logs=0) never interleave lines.
    f.write_all(text.as_bytes())
}

/// `log_unix_epoch`: each line's time stamp (its first field) plus `base_ms`.
fn shift_stamps(text: &str, base_ms: u64) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for l in text.lines() {
        let stamped = l
            .split_once(',')
            .and_then(|(t, rest)| Some((t.trim().parse::<u64>().ok()?, rest)));
        match stamped {
            Some((t, rest)) => {
                out.push_str(&(t + base_ms).to_string());
                out.push(',');
                out.push_str(rest);
            }
            None => out.push_str(l),
        }
        out.push('\n');
    }
    out
}

/// Where a log's time stamps count from, in ms on the clock `log_unix_epoch` or
/// `log_alternate_epoch` names (its `log_alternate_epoch_clock_id`), for a log that
/// started `since_start` ago; 0 for stamps from the job's start.
pub fn epoch_base_ms(spec: &LogSpec, since_start: std::time::Duration) -> u64 {
    if !spec.unix_epoch && !spec.alt_epoch {
        return 0;
    }
    // The clock id was checked when the job was parsed.
    let clock = nix::time::ClockId::from_raw(spec.epoch_clock);
    let Ok(ts) = nix::time::clock_gettime(clock) else {
        return 0;
    };
    let now_ms = ts.tv_sec() as u64 * 1000 + ts.tv_nsec() as u64 / 1_000_000;
    now_ms.saturating_sub(since_start.as_millis() as u64)
}

/// Write a clone's logs. `index` numbers the clone in the run from 1; `deadline_ns` is the
/// runtime deadline, ns after the log's start, when the run had one; `base` (ms, see
/// [`epoch_base_ms`]) is added to each time stamp.
pub fn write_logs(
    spec: &LogSpec,
    index: u32,
    log: &IoLog,
    deadline_ns: Option<u64>,
    base: u64,
) -> std::io::Result<()> {
    let ev = &log.events;
    let end = run_end(ev, deadline_ns);
    let write = |path: &PathBuf, text: &str, shared: bool| {
        if base > 0 {
            write(path, &shift_stamps(text, base), shared)
        } else {
            write(path, text, shared)
        }
    };
    if let Some(n) = &spec.bw {
        // KB/s of each I/O (bytes per ms of its completion latency, as fio); averaged:
        // KiB/s over the window.
        let per_io = |e: &LogEvent| (e.bs as u64 * 1_000_000) / e.clat.max(1);
        let text = if spec.avg_msec == 0 {
            value_log(ev, spec, per_io, None, end, false)
        } else {
            value_log(
                ev,
                spec,
                |_| 0,
                Some((&|e: &LogEvent| e.bs as u64, 1024)),
                end,
                false,
            )
        };
        write(&file(n, "bw", spec, index), &text, spec.shared)?;
    }
    if let Some(n) = &spec.iops {
        let text = if spec.avg_msec == 0 {
            value_log(ev, spec, |_| 1, None, end, false)
        } else {
            value_log(ev, spec, |_| 0, Some((&|_: &LogEvent| 1, 1)), end, false)
        };
        write(&file(n, "iops", spec, index), &text, spec.shared)?;
    }
    if let Some(n) = &spec.lat {
        let slat: Vec<LogEvent> = ev
            .iter()
            .filter(|e| e.slat > 0 && !log.sync)
            .copied()
            .collect();
        write(
            &file(n, "slat", spec, index),
            &value_log(&slat, spec, |e| e.slat, None, end, true),
            spec.shared,
        )?;
        write(
            &file(n, "clat", spec, index),
            &value_log(ev, spec, |e| e.clat, None, end, true),
            spec.shared,
        )?;
        write(
            &file(n, "lat", spec, index),
            &value_log(ev, spec, |e| e.slat + e.clat, None, end, false),
            spec.shared,
        )?;
    }
    if let Some(n) = &spec.hist {
        write(
            &file(n, "clat_hist", spec, index),
            &hist_log(ev, spec, end),
            spec.shared,
        )?;
    }
    Ok(())
}

/// At a clone's end: append its `write_iolog` block and write its log files (the first
/// failure becomes the clone's error when it has none). `deadline` is the runtime
/// deadline (ns after the measured window's start) and that start.
pub(crate) fn finish(
    (iolog, events): (Option<crate::record::iolog::IologWriter>, Option<&IoLog>),
    spec: &fathom_job::JobSpec,
    index: u32,
    (deadline_ns, measure_start): (Option<u64>, std::time::Instant),
    out: &mut crate::record::outcome::CloneOutcome,
) {
    let mut fail = |what: &str, e: std::io::Error| {
        if out.error_text.is_none() {
            out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
            out.error_text = Some(format!("{what}: {e}"));
        }
    };
    if let Some(w) = iolog {
        if let Err(e) = w.finish() {
            fail("write_iolog", e);
        }
    }
    if let Some(l) = events {
        let base = epoch_base_ms(&spec.logs, measure_start.elapsed());
        if let Err(e) = write_logs(&spec.logs, index, l, deadline_ns, base) {
            fail("writing the job's logs", e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t_ms: u64, ddir: u8, clat: u64) -> LogEvent {
        LogEvent {
            t_ns: t_ms * 1_000_000,
            ddir,
            bs: 4096,
            offset: 8192,
            slat: 0,
            clat,
            ioprio: 0,
        }
    }

    #[test]
    fn averaged_windows_as_fio() {
        let spec = LogSpec {
            avg_msec: 100,
            ..Default::default()
        };
        let events: Vec<LogEvent> = (0..300).map(|i| ev(i, (i % 2) as u8, 1000 + i)).collect();
        let text = value_log(&events, &spec, |e| e.clat, None, 300_000_000, false);
        let first: Vec<&str> = text.lines().take(2).collect();
        // Window [0,100): reads at even ms 0..98 (mean clat 1049), writes at odd (1050).
        assert_eq!(first, ["100, 1049, 0, 0, 0", "100, 1050, 1, 0, 0"]);
        // IOPS: 50 reads in 100 ms = 500/s.
        let iops = value_log(
            &events,
            &spec,
            |_| 0,
            Some((&|_: &LogEvent| 1, 1)),
            300_000_000,
            false,
        );
        assert!(iops.starts_with("100, 500, 0, 0, 0\n"), "{iops}");
    }

    #[test]
    fn both_logs_the_window_average_and_maximum() {
        let spec = LogSpec {
            avg_msec: 100,
            window_both: true,
            ..Default::default()
        };
        let events: Vec<LogEvent> = (0..100).map(|i| ev(i, 0, 1000 + i)).collect();
        let text = value_log(&events, &spec, |e| e.clat, None, 100_000_000, false);
        assert_eq!(text, "100, 1049, 1099, 0, 0, 0\n");
    }

    #[test]
    fn per_io_lines_and_offsets() {
        let spec = LogSpec {
            offset: true,
            ..Default::default()
        };
        let text = value_log(&[ev(5, 1, 777)], &spec, |e| e.clat, None, 5_000_000, false);
        assert_eq!(text, "5, 777, 1, 4096, 8192, 0\n");
    }

    #[test]
    fn histogram_lines_have_fio_s_bucket_count() {
        for (c, n) in [(0u32, 1856usize), (4, 116)] {
            let spec = LogSpec {
                hist_msec: 100,
                hist_coarseness: c,
                ..Default::default()
            };
            let text = hist_log(
                &[ev(1, 0, 5000), ev(2, 0, 5000), ev(150, 0, 99)],
                &spec,
                200_000_000,
            );
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 2);
            let f: Vec<&str> = lines[0].split(", ").collect();
            assert_eq!(f.len(), 3 + n);
            assert_eq!(f[..3], ["100", "0", "4096"]);
            assert_eq!(
                f[3..]
                    .iter()
                    .map(|x| x.parse::<u64>().unwrap())
                    .sum::<u64>(),
                2
            );
        }
    }

    /// Events every ms from 0 to `last_ms`, and the first column of each line.
    fn stamps(text: &str) -> Vec<u64> {
        text.lines()
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn unix_epoch_stamps_add_the_start() {
        let t = shift_stamps(
            "500, 10, 0, 0, 0\n1000, 12, 1, 4096, 0\n",
            1_700_000_000_000,
        );
        assert_eq!(
            t,
            "1700000000500, 10, 0, 0, 0\n1700000001000, 12, 1, 4096, 0\n"
        );
    }

    #[test]
    fn windows_end_where_the_run_ends() {
        let spec = LogSpec {
            avg_msec: 500,
            ..Default::default()
        };
        // A size-bounded run whose last I/O completes at 1729 ms.
        let events: Vec<LogEvent> = (0..1730).map(|i| ev(i, 0, 1000)).collect();
        let end = run_end(&events, None);
        let iops = value_log(
            &events,
            &spec,
            |_| 0,
            Some((&|_: &LogEvent| 1, 1)),
            end,
            false,
        );
        // Rate logs: whole windows only, each at the true rate.
        assert_eq!(
            iops,
            "500, 1000, 0, 0, 0\n1000, 1000, 0, 0, 0\n1500, 1000, 0, 0, 0\n"
        );
        // Latency logs: the partial window too, stamped at the run's end.
        let clat = value_log(&events, &spec, |e| e.clat, None, end, false);
        assert_eq!(stamps(&clat), [500, 1000, 1500, 1729]);

        // A 2 s time-based run: I/Os drained after the deadline (at 2000..2003 ms) make no
        // window of their own; the latency log counts them in its last window.
        let mut events: Vec<LogEvent> = (0..2000).map(|i| ev(i, 0, 1000)).collect();
        events.extend((2000..2004).map(|i| ev(i, 0, 9000)));
        let end = run_end(&events, Some(2_000_000_000));
        assert_eq!(end, 2_000_000_000);
        let iops = value_log(
            &events,
            &spec,
            |_| 0,
            Some((&|_: &LogEvent| 1, 1)),
            end,
            false,
        );
        assert_eq!(stamps(&iops), [500, 1000, 1500, 2000]);
        assert!(iops.lines().all(|l| l.contains(", 1000, ")), "{iops}");
        let clat = value_log(&events, &spec, |e| e.clat, None, end, false);
        assert_eq!(stamps(&clat), [500, 1000, 1500, 2000]);
        // (500 × 1000 + 4 × 9000) / 504: the window [1500, 2000) and the drained four.
        assert!(clat.ends_with("2000, 1063, 0, 0, 0\n"), "{clat}");
        let hist = LogSpec {
            hist_msec: 500,
            ..Default::default()
        };
        assert_eq!(
            stamps(&hist_log(&events, &hist, end)),
            [500, 1000, 1500, 2000]
        );
    }
}
