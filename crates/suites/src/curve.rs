//! `fathom suite curve`: vdbench's `iorate=curve`. A first run at the maximum rate, then
//! runs at fixed fractions of that maximum (10, 50, 70, 80, 90, 100% by default), each
//! rate-limited, reporting the achieved rate and the response time (measured from each
//! I/O's intended issue time, so queueing shows). `--stop-curve=T` ends the curve once
//! the mean response time exceeds T (vdbench's `stopcurve`). A table, and an SVG of
//! response time against rate.

use anyhow::{anyhow, bail, Result};
use fathom::Job;
use std::time::Duration;

/// Options.
#[derive(Debug, Clone)]
pub struct Opts {
    /// Job options in fio syntax (`--rw=randread`, `--bs=4k`, `--filename=...`).
    pub job: Vec<(String, String)>,
    /// Time per point.
    pub runtime: Duration,
    /// Fractions of the maximum, in percent.
    pub points: Vec<f64>,
    /// Stop once the mean response time exceeds this.
    pub stop: Option<Duration>,
    /// Where to write the SVG (optional).
    pub svg: Option<std::path::PathBuf>,
}

/// One point of the curve.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    /// Percent of the maximum asked for (None for the maximum run).
    pub pct: Option<f64>,
    /// IOPS asked for.
    pub target: f64,
    /// IOPS achieved.
    pub iops: f64,
    /// Mean response time, ns (service time for the uncapped run).
    pub resp_mean: f64,
    /// 99th percentile response time, ns.
    pub resp_p99: f64,
    /// Mean service (completion) time, ns.
    pub clat_mean: f64,
}

fn one_run(o: &Opts, rate: Option<u64>) -> Result<Point> {
    let mut b = Job::builder("curve")
        .time_based()
        .runtime(o.runtime)
        .flag("group_reporting");
    for (k, v) in &o.job {
        b = b.option(k.clone(), v.clone());
    }
    if let Some(r) = rate {
        b = b.option("rate_iops", r.max(1).to_string());
    }
    let mut spec = b.build()?;
    // The rate is the job's total, as vdbench's iorate= (and the uncapped run's max it is
    // a share of): one schedule for reads and writes together, not one per direction.
    spec.control.rate_combined = true;
    let j = super::run_step(spec, "")?;
    let secs = j.stats.runtime.as_secs_f64().max(1e-9);
    // Sum over directions (a mixed job's total rate).
    let mut ios = 0;
    let mut resp = fathom::LatStat::new();
    let mut clat = fathom::LatStat::new();
    for d in &j.stats.dirs {
        ios += d.ios;
        if d.resp.count() > 0 {
            resp += &d.resp;
        } else {
            resp += &d.lat;
        }
        clat += &d.clat;
    }
    Ok(Point {
        pct: None,
        target: rate.map_or(0.0, |r| r as f64),
        iops: ios as f64 / secs,
        resp_mean: resp.mean(),
        resp_p99: resp.percentile(99.0) as f64,
        clat_mean: clat.mean(),
    })
}

/// Run the curve.
pub fn run_curve(o: &Opts) -> Result<Vec<Point>> {
    eprintln!("fathom curve: maximum run...");
    let max = one_run(o, None)?;
    let mut out = vec![max];
    for &pct in &o.points {
        if super::stopped() {
            // A signal: the points measured so far are reported.
            break;
        }
        let target = (max.iops * pct / 100.0).round() as u64;
        eprintln!("fathom curve: {pct}% of max = {target} IOPS...");
        let mut p = match one_run(o, Some(target)) {
            Ok(p) => p,
            Err(_) if super::stopped() => break,
            Err(e) => return Err(e),
        };
        if super::stopped() {
            break;
        }
        p.pct = Some(pct);
        out.push(p);
        if let Some(stop) = o.stop {
            if p.resp_mean > stop.as_nanos() as f64 {
                eprintln!(
                    "fathom curve: mean response {:.3} ms is over --stop-curve {:.3} ms: stopping",
                    p.resp_mean / 1e6,
                    stop.as_secs_f64() * 1e3
                );
                break;
            }
        }
    }
    Ok(out)
}

/// The table.
pub fn table(points: &[Point]) -> String {
    let mut s = String::from(
        "   point   target IOPS      IOPS   resp mean(ms)  resp p99(ms)  service mean(ms)\n",
    );
    for p in points {
        let label = p.pct.map_or("max".to_string(), |x| format!("{x:.0}%"));
        let target = if p.pct.is_some() {
            format!("{:.0}", p.target)
        } else {
            "-".into()
        };
        s.push_str(&format!(
            "{label:>8} {target:>13} {:>9.0} {:>15.3} {:>13.3} {:>17.3}\n",
            p.iops,
            p.resp_mean / 1e6,
            p.resp_p99 / 1e6,
            p.clat_mean / 1e6
        ));
    }
    s
}

/// SVG: response time against achieved rate.
pub fn svg(points: &[Point]) -> Result<String> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.pct.is_some())
        .map(|p| (p.iops, p.resp_mean / 1e3))
        .collect();
    fathom_report::plot::xy(
        "response time against rate (iorate=curve)",
        "IOPS achieved",
        "mean response time (us)",
        &[("mean response".to_string(), pts)],
    )
    .map_err(|e| anyhow!(e))
}

/// Parse `fathom suite curve` arguments: fathom's own (`--runtime`, `--points`,
/// `--stop-curve`, `--svg`) and any job option (`--rw=randread`, `--filename=...`).
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts {
        job: Vec::new(),
        runtime: Duration::from_secs(10),
        points: vec![10.0, 50.0, 70.0, 80.0, 90.0, 100.0],
        stop: None,
        svg: None,
    };
    for a in args {
        let Some((k, v)) = a.strip_prefix("--").and_then(|x| x.split_once('=')) else {
            bail!("'{a}': options look like --rw=randread or --points=10,50,100");
        };
        match k {
            "runtime" => {
                o.runtime = fathom_job::units::parse_time(v, fathom_job::units::TimeUnit::Seconds)
                    .map_err(|e| anyhow!("--runtime: {e}"))?
            }
            "points" => {
                o.points = v
                    .split(',')
                    .map(|p| p.trim().trim_end_matches('%').parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| anyhow!("--points: percentages, e.g. 10,50,70,80,90,100"))?;
                if o.points.iter().any(|&p| !(p > 0.0 && p <= 1000.0)) {
                    bail!("--points: each must be above 0");
                }
            }
            "stop-curve" => {
                o.stop = Some(
                    fathom_job::units::parse_time(v, fathom_job::units::TimeUnit::Micros)
                        .map_err(|e| anyhow!("--stop-curve: {e}"))?,
                )
            }
            "svg" => o.svg = Some(v.into()),
            "rate_iops" | "rate" | "time_based" | "runtime_per_point" => {
                bail!("--{k}: the curve sets the rate itself")
            }
            _ if fathom_job::is_job_option(k) => o.job.push((k.to_string(), v.to_string())),
            _ => {
                let mut near = super::did_you_mean(
                    &format!("--{k}"),
                    &["--runtime", "--points", "--stop-curve", "--svg"],
                );
                if near.is_empty() {
                    if let Some(s) = fathom_job::options::suggest(k) {
                        near = format!(" (did you mean '--{s}'?)");
                    }
                }
                bail!("--{k} is neither a curve option nor a job option{near}")
            }
        }
    }
    if !o.job.iter().any(|(k, _)| k == "size" || k == "filename") {
        bail!("give the target: --filename=... or --directory=... --size=..., e.g. --rw=randread --bs=4k --size=1g");
    }
    Ok(o)
}

/// `--help`: curve's options.
pub const HELP: &str =
    "usage: fathom suite curve --JOBOPTION=VALUE... [--runtime=T] [--points=LIST]
                          [--stop-curve=TIME] [--svg=FILE]
vdbench's iorate=curve: an uncapped run, then runs held to a share of its IOPS; each
point's achieved rate and response time (from the intended issue time).
  --runtime=T         each point's length [10s]
  --points=LIST       percentages of the uncapped rate [10,50,70,80,90,100]
  --stop-curve=TIME   stop once the mean response time passes TIME (e.g. 5ms)
  --svg=FILE          the curve as an SVG chart
  --JOBOPTION=VALUE   any fio job option sets the workload (--rw=, --bs=, --filename=,
                      --directory= with --size=, --ioengine=, --iodepth=, ...); the curve
                      sets the rate itself (rate_iops, rate, time_based are refused)
e.g. fathom suite curve --rw=randread --bs=4k --directory=/mnt --size=4g --ioengine=libaio \
       --direct=1 --iodepth=16 --stop-curve=5ms --svg=curve.svg";

/// Run `fathom suite curve`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{HELP}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    let points = run_curve(&o)?;
    print!("{}", table(&points));
    if let Some(p) = &o.svg {
        std::fs::write(p, svg(&points)?)?;
        eprintln!("fathom curve: wrote {}", p.display());
    }
    let mut m = Vec::new();
    for p in &points {
        let at = p.pct.map_or("max".to_string(), |x| format!("{x:.0}%"));
        m.push((format!("IOPS @ {at}"), p.iops));
        m.push((format!("response mean (ms) @ {at}"), p.resp_mean / 1e6));
    }
    Ok((0, m))
}
