//! `fathom suite dbench [OPTIONS] N` (or fathom linked as `dbench`): dbench's file-system
//! load. N clients, each a thread, replay an NBENCH loadfile (dbench's `client.txt` with
//! `-c`, or fathom's own office session by default) in their own folder under `-D`, for
//! `-t` seconds after a warmup, and the report is dbench 4.00's: a line a second, the
//! operation table (count, average and worst latency in ms) and the `Throughput` line.
//!
//! Each line is carried out as dbench's file-system backend does it (NTCreateX opens,
//! creates, truncates or makes a folder per its disposition; ReadX/WriteX are pread and
//! pwrite; LockX is fcntl; names are looked up case-blind when a stat fails). Throughput is
//! dbench's: bytes read and written in the measured part over its time, in 10^6 bytes/s.

mod client;
pub mod load;

use anyhow::{anyhow, bail, Context, Result};
use client::{Client, OpStat, Run, Shared};
use load::KINDS;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// dbench's options.
#[derive(Clone, Debug, PartialEq)]
pub struct Opts {
    /// Number of clients (the one positional argument).
    pub clients: u32,
    /// `-t`: seconds of the measured run.
    pub time: u64,
    /// `--warmup`: seconds of warmup before it (default a fifth of `-t`).
    pub warmup: Option<u64>,
    /// `-c`: the loadfile (None: fathom's own).
    pub loadfile: Option<PathBuf>,
    /// `-D`: working directory.
    pub dir: PathBuf,
    /// `-s`: files opened O_SYNC.
    pub sync: bool,
    /// `-S`: folders synced after changes.
    pub sync_dir: bool,
    /// `-F`: fsync after every write.
    pub fsync: bool,
    /// `-x`: DOS attributes in extended attributes.
    pub xattr: bool,
    /// `-R`: target MB/s per client (0: as fast as it goes).
    pub target_rate: f64,
    /// `--clients-per-process`.
    pub per_process: u32,
    /// `--no-resolve`.
    pub no_resolve: bool,
    /// `--stat-check`.
    pub stat_check: bool,
    /// `--fake-io`.
    pub fake_io: bool,
    /// `--skip-cleanup`.
    pub skip_cleanup: bool,
    /// `--per-client-results`.
    pub per_client: bool,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            clients: 0,
            time: 600,
            warmup: None,
            loadfile: None,
            dir: PathBuf::from("."),
            sync: false,
            sync_dir: false,
            fsync: false,
            xattr: false,
            target_rate: 0.0,
            per_process: 1,
            no_resolve: false,
            stat_check: false,
            fake_io: false,
            skip_cleanup: false,
            per_client: false,
        }
    }
}

/// `--help`.
pub const HELP: &str = "\
fathom suite dbench [OPTIONS] NCLIENTS   (or fathom linked as dbench)

dbench's file-system load: NCLIENTS clients replay an NBENCH loadfile in their own
folders under -D, and the report is dbench 4.00's.

  -t, --timelimit=SECS        measured run (600)
      --warmup=SECS           warmup before it (a fifth of -t)
  -c, --loadfile=FILE         NBENCH loadfile, e.g. /usr/share/dbench/client.txt
                              (default: fathom's own office session)
  -D, --directory=DIR         working directory (.)
  -s, --sync                  open files O_SYNC
  -S, --sync-dir              sync folders after changes
  -F, --fsync                 fsync after every write
  -x, --xattr                 keep DOS attributes in extended attributes
  -R, --target-rate=MB/S      pace each client to this rate
      --clients-per-process=N clients per process (reported as procs)
      --no-resolve            no case-blind name lookup after a failed stat
      --stat-check            stat before creating, removing or making folders
      --fake-io               count reads and writes without doing them
      --skip-cleanup          leave the clients' folders
      --per-client-results    a table per client too
  -h, --help                  this text

Example: fathom suite dbench -t 60 -D /mnt/share 8
Refused: -B/--backend, -T/--tcp-options, --server, --nfs (network backends).
";

/// The flags `parse` knows (for "did you mean").
const FLAGS: &[&str] = &[
    "-h",
    "--help",
    "-t",
    "--timelimit",
    "--warmup",
    "-c",
    "--loadfile",
    "-D",
    "--directory",
    "-s",
    "--sync",
    "-S",
    "--sync-dir",
    "-F",
    "--fsync",
    "-x",
    "--xattr",
    "-R",
    "--target-rate",
    "--clients-per-process",
    "--no-resolve",
    "--stat-check",
    "--fake-io",
    "--skip-cleanup",
    "--per-client-results",
    "--one-byte-write-fix",
    "-B",
    "--backend",
    "-T",
    "--tcp-options",
    "--server",
    "--nfs",
];

/// Read dbench's command line.
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts::default();
    let mut clients = None;
    let mut it = crate::Opts::new(args);
    let num = |k: &str, v: &str| -> Result<u64> {
        v.parse()
            .map_err(|_| anyhow!("{k}: '{v}' is not a whole number"))
    };
    while let Some((key, whole, inline)) = it.next_opt() {
        // Short options may carry their value attached (-t60).
        let (key, inline) = match key.as_bytes() {
            [b'-', c, rest @ ..]
                if c.is_ascii_alphabetic() && !rest.is_empty() && inline.is_none() =>
            {
                (&whole[..2], Some(whole[2..].to_string()))
            }
            _ => (key, inline),
        };
        match key {
            "-h" | "--help" | "-?" => bail!("{HELP}"),
            "-t" | "--timelimit" => o.time = num(key, &it.value(key, inline)?)?,
            "--warmup" => o.warmup = Some(num(key, &it.value(key, inline)?)?),
            "-c" | "--loadfile" => o.loadfile = Some(it.value(key, inline)?.into()),
            "-D" | "--directory" => o.dir = it.value(key, inline)?.into(),
            "-s" | "--sync" => o.sync = true,
            "-S" | "--sync-dir" => o.sync_dir = true,
            "-F" | "--fsync" => o.fsync = true,
            "-x" | "--xattr" => o.xattr = true,
            "-R" | "--target-rate" => {
                let v = it.value(key, inline)?;
                o.target_rate = v
                    .parse()
                    .map_err(|_| anyhow!("{key}: '{v}' is not a number"))?;
            }
            "--clients-per-process" => {
                o.per_process = num(key, &it.value(key, inline)?)?.max(1) as u32
            }
            "--no-resolve" => o.no_resolve = true,
            "--stat-check" => o.stat_check = true,
            "--fake-io" => o.fake_io = true,
            "--skip-cleanup" => o.skip_cleanup = true,
            "--per-client-results" => o.per_client = true,
            "--one-byte-write-fix" => {}
            "-B" | "--backend" | "-T" | "--tcp-options" | "--server" | "--nfs" => bail!(
                "{key}: dbench's network backends (smb, nfs, iscsi, scsi) are not fathom's; \
                 fathom runs the file-system backend on a local or mounted folder (-D)"
            ),
            k if k.starts_with('-') && k.len() > 1 => bail!(
                "unknown option '{whole}'{} (fathom suite dbench --help lists dbench's options)",
                crate::did_you_mean(whole, FLAGS)
            ),
            _ => {
                if clients.is_some() {
                    bail!("one number of clients, please ('{whole}' is a second)");
                }
                let n = num("NCLIENTS", whole)?;
                if n == 0 || n > 10_000 {
                    bail!("NCLIENTS: {n}; give 1 to 10000 clients");
                }
                clients = Some(n as u32);
            }
        }
    }
    o.clients = clients
        .ok_or_else(|| anyhow!("give the number of clients, e.g. `fathom suite dbench -t 60 4`"))?;
    Ok(o)
}

/// dbench's %g: six significant digits, trailing zeros dropped.
fn g6(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = x.abs().log10().floor() as i32;
    let decimals = (5 - digits).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The operation table, as dbench 4.00 prints it (rows with a count only).
fn table(stats: &[OpStat]) -> String {
    let mut s = String::from(" Operation      Count    AvgLat    MaxLat\n");
    s.push_str(" ----------------------------------------\n");
    for (i, (_, name)) in KINDS.iter().enumerate() {
        let st = stats[i];
        if st.count == 0 {
            continue;
        }
        s.push_str(&format!(
            " {name:<10}{:>10}{:>10.3}{:>10.3}\n",
            st.count,
            st.total.as_secs_f64() * 1000.0 / st.count as f64,
            st.max.as_secs_f64() * 1000.0
        ));
    }
    s
}

/// Run dbench. Exit 1 when a client failed (its line named), after the report.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "-h" || a == "--help" || a == "-?") {
        print!("{HELP}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    let (text, name) = match &o.loadfile {
        Some(p) => (
            fathom_job::read_text_bounded(p, 1 << 30)
                .with_context(|| format!("-c {}", p.display()))?,
            p.display().to_string(),
        ),
        None => (
            load::builtin(),
            "fathom's office session (built in)".to_string(),
        ),
    };
    let lines = load::parse(&text, &name)?;
    std::fs::create_dir_all(&o.dir).with_context(|| format!("-D {}", o.dir.display()))?;
    let warmup = o.warmup.unwrap_or(o.time / 5);
    println!("fathom dbench: dbench 4.00's file-system load and report\n");
    println!(
        "Running for {} seconds with load '{name}' and minimum warmup {warmup} secs",
        o.time
    );
    let n = o.clients as usize;
    println!("{n} of {n} processes prepared for launch   0 sec");
    println!("releasing clients");
    let measuring = AtomicBool::new(warmup == 0);
    let done = AtomicBool::new(false);
    let run = Run {
        opts: &o,
        lines: &lines,
        measuring: &measuring,
        done: &done,
    };
    let shared: Vec<Shared> = (0..n).map(|_| Shared::default()).collect();
    let (results, throughput) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (run, sh) = (&run, &shared[i]);
                s.spawn(move || {
                    let mut c = Client::new(i as u32, run, sh);
                    let r = c.run();
                    // A failed client stops the others, as dbench's exit does.
                    if r.is_err() {
                        run.done.store(true, Ordering::Relaxed);
                    }
                    if !run.opts.skip_cleanup {
                        c.cleanup();
                    }
                    (r, c.stats)
                })
            })
            .collect();
        let throughput = monitor(&o, warmup, &shared, &measuring, &done);
        let results: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("a dbench client panicked"))
            .collect();
        (results, throughput)
    });
    if !o.skip_cleanup {
        // The clients' common folder too, once empty (dbench leaves it).
        let _ = std::fs::remove_dir(o.dir.join("clients"));
    }
    report(&o, &results, &shared, throughput);
    let mut code = 0;
    for (r, _) in &results {
        if let Err(e) = r {
            eprintln!("fathom dbench: {e}");
            code = 1;
        }
    }
    Ok((code, vec![("throughput MB/s".into(), throughput)]))
}

/// dbench's report: the operations table over every client (and per client with -C),
/// then the throughput line.
fn report(
    o: &Opts,
    results: &[(Result<(), String>, [OpStat; KINDS.len()])],
    shared: &[Shared],
    throughput: f64,
) {
    println!();
    let mut sum = [OpStat::default(); KINDS.len()];
    for (_, st) in results {
        for (a, b) in sum.iter_mut().zip(st) {
            a.count += b.count;
            a.total += b.total;
            a.max = a.max.max(b.max);
        }
    }
    print!("{}", table(&sum));
    println!();
    if o.per_client {
        println!("Per client results:");
        for (i, (_, st)) in results.iter().enumerate() {
            println!(
                "Client {i} did {} lines and {} bytes",
                shared[i].lines.load(Ordering::Relaxed),
                shared[i].bytes.load(Ordering::Relaxed)
            );
            print!("{}", table(st));
            println!();
        }
    }
    let worst = shared
        .iter()
        .map(|s| s.worst_ns.load(Ordering::Relaxed))
        .max()
        .unwrap_or(0);
    println!(
        "Throughput {} MB/sec  {} clients  {} procs  max_latency={:.3} ms",
        g6(throughput),
        shared.len(),
        shared.len().div_ceil(o.per_process as usize),
        worst as f64 / 1e6
    );
}

/// The parent's loop: a line a second (warmup, execute, cleanup), the warmup's end (the
/// clients' tables restart), the time limit. Returns the measured throughput in MB/s.
fn monitor(
    o: &Opts,
    warmup: u64,
    shared: &[Shared],
    measuring: &AtomicBool,
    done: &AtomicBool,
) -> f64 {
    let n = shared.len();
    let total = |f: fn(&Shared) -> u64| shared.iter().map(f).sum::<u64>();
    let bytes = |s: &Shared| s.bytes.load(Ordering::Relaxed);
    let lines = |s: &Shared| s.lines.load(Ordering::Relaxed);
    let mut start = Instant::now();
    let mut base = 0u64;
    let mut in_warmup = warmup > 0;
    let mut throughput = 0.0;
    let mut next = Duration::from_secs(1);
    let mut end = None;
    loop {
        // Wake often enough to see a signal or a failed client at once.
        std::thread::sleep(Duration::from_millis(20));
        if crate::stopped() {
            done.store(true, Ordering::Relaxed);
        }
        let t = start.elapsed();
        if in_warmup && t.as_secs_f64() >= warmup as f64 {
            in_warmup = false;
            base = total(bytes);
            measuring.store(true, Ordering::Relaxed);
            start = Instant::now();
            next = Duration::from_secs(1);
            continue;
        }
        // The time is up, or a signal or a failed client ended the run (in the warmup
        // too: the figures are then the warmup's).
        let up = !in_warmup && t.as_secs() >= o.time;
        if end.is_none() && (up || done.load(Ordering::Relaxed)) {
            done.store(true, Ordering::Relaxed);
            let secs = t.as_secs_f64().max(1e-9);
            throughput = 1e-6 * total(bytes).saturating_sub(base) as f64 / secs;
            end = Some(t);
        }
        if let Some(e) = end {
            let left = shared
                .iter()
                .filter(|s| !s.cleaned.load(Ordering::Relaxed))
                .count();
            if left == 0 || o.skip_cleanup {
                println!("{:4}  cleanup {:3.0} sec", 0, e.as_secs_f64());
                return throughput;
            }
            if t >= next {
                println!("{left:4}  cleanup {:3.0} sec", t.as_secs_f64());
                next += Duration::from_secs(1);
            }
            continue;
        }
        if t < next {
            continue;
        }
        next += Duration::from_secs(1);
        let lat = shared
            .iter()
            .map(|s| s.max_ns.swap(0, Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        let secs = t.as_secs_f64();
        let mbs = 1e-6 * total(bytes).saturating_sub(base) as f64 / secs;
        if !in_warmup {
            throughput = mbs;
        }
        println!(
            "{n:4}  {:8}  {mbs:7.2} MB/sec  {} {secs:3.0} sec  latency {:.3} ms",
            total(lines) / n as u64,
            if in_warmup { "warmup" } else { "execute" },
            lat as f64 / 1e6
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn dbench_command_lines_parse_as_dbench_reads_them() {
        let o = parse(&args("100 -t 36000")).unwrap();
        assert_eq!((o.clients, o.time), (100, 36000));
        let o = parse(&args(
            "-t60 -D /mnt/x -c /usr/share/dbench/client.txt -s -S -F 4",
        ))
        .unwrap();
        assert_eq!(o.time, 60);
        assert_eq!(o.dir, PathBuf::from("/mnt/x"));
        assert!(o.sync && o.sync_dir && o.fsync);
        let o = parse(&args("--timelimit=5 --warmup=1 --directory=/d 2")).unwrap();
        assert_eq!((o.time, o.warmup, o.clients), (5, Some(1), 2));
        assert!(parse(&args("-t 5")).is_err());
        assert!(parse(&args("-B smb 2"))
            .unwrap_err()
            .to_string()
            .contains("network"));
        assert!(parse(&args("--bogus 2"))
            .unwrap_err()
            .to_string()
            .contains("--bogus"));
    }

    #[test]
    fn throughput_is_printed_as_dbench_prints_it() {
        assert_eq!(g6(783.066_4), "783.066");
        assert_eq!(g6(1234.5678), "1234.57");
        assert_eq!(g6(0.5), "0.5");
        assert_eq!(g6(12.0), "12");
    }
}
