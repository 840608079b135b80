//! A run as fathom jobs, in fio's option names (so every check fathom makes of a job file
//! applies): one job per WD and SD (its I/Os in flight are the SD's threads, its rate the
//! WD's share of the run's), one job per FWD over its trees' files.

use crate::model::{Arrival, Seek, Xfer};
use crate::runs::{Run, RunRate};
use anyhow::{anyhow, bail, Result};
use fathom::JobSpec;
use std::collections::HashMap;
use std::io::{Seek as _, SeekFrom};

pub(crate) mod concat;

/// How the jobs are made: choices outside the parameter file.
#[derive(Debug, Clone)]
pub struct JobOpts {
    /// The engine for raw I/O (an asynchronous one: threads are I/Os in flight).
    pub ioengine: String,
    /// Data validation: keyed blocks checked on every read (`-v`).
    pub validate: bool,
    /// Its reads around each write (`-vw`, `-vr`).
    pub dv_reads: crate::model::DvReads,
    /// Each SD's key block: its smallest transfer size over every run (vdbench's unit
    /// of validation; the others are multiples of it).
    pub key_blocks: HashMap<String, u64>,
    /// The validation map of every lun, kept across the runs of the execution.
    pub key_maps: fathom_job::KeyMaps,
    /// Journal folder for validation (`-j`): one journal per job.
    pub journal: Option<std::path::PathBuf>,
    /// Stop after this many validation errors (data_errors=): 1 stops at the first.
    pub data_errors: u64,
    /// compratio (general parameter; a WD's own wins).
    pub compratio: f64,
    /// dedupratio, dedupunit and dedupsets (a count, or a percentage of the units when
    /// the flag is set); None without dedup.
    pub dedup: Option<(f64, u64, f64, bool)>,
    /// `pattern=FILE`: the bytes every write buffer repeats (see [`crate::pattern`]).
    pub pattern: Option<Vec<u8>>,
    /// `concatenatesds=yes`: the WDs in the order they are defined (their concatenated
    /// SDs are numbered so: `concat#01` the first WD's); None without it.
    pub concat: Option<Vec<String>>,
}

/// vdbench's dedup for a job whose writes cover `len` bytes: by vdbench's arithmetic, a
/// ratio R over N units with S sets keeps N/R distinct blocks, N/R − S of them unique, so
/// a block is a duplicate with the chance 1 − 1/R + S/N.
fn dedup_units(
    jo: &JobOpts,
    len: u64,
    xfer: &Xfer,
    what: &str,
) -> Result<Option<fathom_job::DedupUnits>> {
    let Some((ratio, unit, sets, pct)) = jo.dedup else {
        return Ok(None);
    };
    if jo.validate {
        bail!("{what}: data validation (-v) together with dedupratio= is not implemented");
    }
    let sizes: Vec<u64> = match xfer {
        Xfer::Fixed(v) => vec![*v],
        Xfer::Split(v) => v.iter().map(|(s, _)| *s).collect(),
        Xfer::Range(a, _, _) => vec![*a],
    };
    if let Some(s) = sizes.iter().find(|s| *s % unit != 0) {
        bail!(
            "{what}: xfersize {s} is not a multiple of dedupunit={unit}; fathom's dedup fills \
             whole dedup units (make xfersize a multiple of dedupunit)"
        );
    }
    let n = (len / unit).max(1);
    let sets = if pct {
        (n as f64 * sets / 100.0).round()
    } else {
        sets
    }
    .clamp(1.0, n as f64) as u64;
    let dup = (1.0 - 1.0 / ratio + sets as f64 / n as f64).clamp(0.0, 1.0);
    Ok(Some(fathom_job::DedupUnits {
        unit,
        dup_ppm: (dup * 1e6).round() as u32,
        sets,
    }))
}

/// Data validation's key block of each SD (by name) and FSD (as `fsd=NAME`) its runs
/// use: the smallest transfer size any of its WDs or FWDs asks for (a file-system
/// format's included: fwd=format's xfersize, 128k without one); refused, as vdbench
/// refuses it, when another size is not a multiple of it.
pub fn key_blocks(runs: &[Run]) -> Result<HashMap<String, u64>> {
    let mut sizes: HashMap<String, Vec<u64>> = HashMap::new();
    let mut add = |key: String, x: &Xfer| {
        let mine: Vec<u64> = match x {
            Xfer::Fixed(v) => vec![*v],
            Xfer::Split(v) => v.iter().map(|(s, _)| *s).collect(),
            Xfer::Range(a, _, _) => vec![*a],
        };
        let e = sizes.entry(key).or_default();
        for x in mine {
            if !e.contains(&x) {
                e.push(x);
            }
        }
    };
    for r in runs {
        for w in &r.wds {
            for s in &w.sds {
                add(s.name.clone(), &w.p.xfer);
            }
        }
        let formats = !matches!(
            r.pace.format,
            crate::model::Format::No | crate::model::Format::Clean
        );
        let format_xfer = r
            .format_fwd
            .as_ref()
            .map_or(Xfer::Fixed(128 << 10), |f| f.xfer.clone());
        for f in &r.fwds {
            for fsd in &f.fsds {
                add(fsd_key(&fsd.name), &f.p.xfer);
                if formats {
                    add(fsd_key(&fsd.name), &format_xfer);
                }
            }
        }
    }
    let mut out = HashMap::new();
    for (key, mut v) in sizes {
        v.sort_unstable();
        let kb = v[0].max(1);
        if v.iter().any(|x| x % kb != 0) {
            let list: Vec<String> = v
                .iter()
                .map(|x| format!("Xfersize used in parameter file: {x}"))
                .collect();
            let (what, kind) = match key.strip_prefix("fsd=") {
                Some(_) => (key.clone(), "FSD"),
                None => (format!("sd={key}"), "SD"),
            };
            bail!(
                "{what}: Xfersize error. During Data Validation all data transfer sizes used \
                 for an {kind} must be a multiple of the lowest xfersize.\n(A format run may have \
                 added a transfer size of 128k; fwd=format,xfersize= sets it).\n{}",
                list.join("\n")
            );
        }
        out.insert(key, kb);
    }
    Ok(out)
}

/// An FSD's name among [`key_blocks`]' keys (apart from the SDs').
pub fn fsd_key(name: &str) -> String {
    format!("fsd={name}")
}

/// The options data validation adds to a job whose key block is `kb`: a checksummed header
/// per key block, checked by every read (no verify phase), no state file (the map is kept
/// in memory), vdbench's data_errors= as the job's stop.
fn dv_options(jo: &JobOpts, kb: u64, o: &mut Opts) {
    o.push(("verify".into(), "crc32c".into()));
    o.push(("verify_state_save".into(), "0".into()));
    o.push(("verify_interval".into(), kb.to_string()));
    o.push(("do_verify".into(), "0".into()));
    o.push((
        "verify_fatal".into(),
        if jo.data_errors <= 1 { "1" } else { "0" }.into(),
    ));
    if jo.data_errors > 1 {
        // vdbench goes on after a data error (up to data_errors=): counted.
        o.push(("continue_on_error".into(), "verify".into()));
    }
    o.push(("serialize_overlap".into(), "1".into()));
}

/// What data validation sets beyond fio's options: every read of a block written this
/// execution checked, a block with a known key read before it is written (not with -vw),
/// each write read back with -vr, and the execution's key maps.
fn dv_controls(jo: &JobOpts, spec: &mut JobSpec) {
    spec.control.verify_mixed_reads = jo.validate;
    spec.control.verify_pre_read = jo.validate && !jo.dv_reads.no_pre_read;
    spec.control.verify_read_after_write = jo.validate && jo.dv_reads.read_after_write;
    if jo.validate {
        spec.control.key_maps = Some(jo.key_maps.clone());
    }
}

/// Where the jobs run: one rank per host (`hd=` in order) under MPI; one place otherwise.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Place {
    /// This rank.
    pub rank: u32,
    /// The hosts' names, in rank order (empty: one host, everything runs here).
    pub hosts: Vec<String>,
}

impl Place {
    /// The ranks that run work placed with `host=` (None: every host).
    pub fn ranks(&self, host: Option<&str>) -> Result<Vec<u32>> {
        if self.hosts.is_empty() {
            return Ok(vec![0]);
        }
        match host {
            None => Ok((0..self.hosts.len() as u32).collect()),
            Some(h) => match self.hosts.iter().position(|x| x == h) {
                Some(i) => Ok(vec![i as u32]),
                None => bail!("host={h} names no hd= (hosts: {})", self.hosts.join(", ")),
            },
        }
    }
}

/// What each job of a run is: its WD (or FWD), its SD (or FSD) and, for a file-system
/// metadata operation, the operation; the job's name is `WD@SD` (`FWD@FSD#operation`).
#[derive(Debug, Clone, PartialEq)]
pub struct JobTag {
    /// WD or FWD name.
    pub wd: String,
    /// SD or FSD name.
    pub sd: String,
    /// The metadata operation a filetree job does (None: reads and writes).
    pub op: Option<String>,
}

impl JobTag {
    /// A tag for reads and writes.
    pub fn io(wd: &str, sd: &str) -> JobTag {
        JobTag {
            wd: wd.to_string(),
            sd: sd.to_string(),
            op: None,
        }
    }
    /// The job name for this pair.
    pub fn name(&self) -> String {
        match &self.op {
            Some(op) => format!("{}@{}#{op}", self.wd, self.sd),
            None => format!("{}@{}", self.wd, self.sd),
        }
    }
    /// The pair a job name stands for. (An operation is a word: the `#01` of a
    /// concatenated SD's name `concat#01` is not one.)
    pub fn of_name(n: &str) -> JobTag {
        let (n, op) = match n.rsplit_once('#') {
            Some((a, b)) if b.chars().all(|c| c.is_ascii_alphabetic()) && !b.is_empty() => {
                (a, Some(b.to_string()))
            }
            _ => (n, None),
        };
        let (wd, sd) = n.split_once('@').unwrap_or((n, n));
        JobTag {
            wd: wd.to_string(),
            sd: sd.to_string(),
            op,
        }
    }
}

/// Operations that add or remove files or directories.
const SHAPING: &[&str] = &["create", "delete", "mkdir", "rmdir", "copy", "move"];

/// A vdbench metadata operation as a filetree operation mix, its requested operation
/// first (vdbench's open and close each open a file and close it again).
pub fn meta_mix(op: &str) -> &'static str {
    match op {
        "open" => "open/50:close/50",
        "close" => "close/50:open/50",
        "getattr" => "stat/100",
        "move" => "rename/100",
        "create" => "create/100",
        "delete" => "delete/100",
        "mkdir" => "mkdir/100",
        "rmdir" => "rmdir/100",
        "setattr" => "setattr/100",
        "access" => "access/100",
        "copy" => "copy/100",
        _ => "",
    }
}

/// The size of a lun (file or device), None when it does not exist.
pub fn lun_size(lun: &str) -> Option<u64> {
    let mut f = std::fs::File::open(lun).ok()?;
    f.seek(SeekFrom::End(0)).ok()
}

fn bs_options(x: &Xfer, o: &mut Vec<(String, String)>) {
    match x {
        Xfer::Fixed(v) => o.push(("bs".into(), v.to_string())),
        Xfer::Split(v) => o.push((
            "bssplit".into(),
            v.iter()
                .map(|(s, p)| format!("{s}/{}", crate::value::show_num(*p)))
                .collect::<Vec<_>>()
                .join(":"),
        )),
        // check_static refused an alignment other than the smallest size: fathom's
        // sizes in a range are multiples of the smallest.
        Xfer::Range(a, b, _) => o.push(("bsrange".into(), format!("{a}-{b}"))),
    }
}

/// The jobs of `run` at `rate` (for a curve point, the rate asked for), with their tags.
pub fn raw_jobs(
    run: &Run,
    rate: RunRate,
    jo: &JobOpts,
    place: &Place,
) -> Result<Vec<(JobSpec, JobTag)>> {
    check_static(run)?;
    if jo.concat.is_some() {
        return concat::concat_jobs(run, rate, jo, place);
    }
    // Threads of an SD are shared by the WDs that use it.
    let mut users: HashMap<&str, u32> = HashMap::new();
    for w in &run.wds {
        for s in &w.sds {
            *users.entry(s.name.as_str()).or_default() += 1;
        }
    }
    let shares = wd_shares(run)?;
    let share = |w: &crate::runs::WdRun| -> f64 {
        let i = run.wds.iter().position(|x| std::ptr::eq(x, w)).unwrap_or(0);
        shares[i]
    };
    // Sizes first: maxdata as a multiple needs them all.
    let regions = sd_regions(run)?;
    // maxdata= up to 100 is a multiple of the active SDs' sizes (each SD once, its whole
    // size, whatever range its WDs use), as vdbench counts it.
    let mut seen: Vec<&str> = Vec::new();
    let mut total_sds = 0u64;
    let mut k = 0;
    for w in &run.wds {
        for s in &w.sds {
            if !seen.contains(&s.name.as_str()) {
                seen.push(&s.name);
                total_sds += regions[k].2;
            }
            k += 1;
        }
    }
    let maxdata = run
        .pace
        .maxdata
        .map(|m| if m <= 100.0 { m * total_sds as f64 } else { m });
    // Where each WD/SD pair runs (an SD without host= runs on every host).
    let mut ranks = Vec::new();
    for w in &run.wds {
        for s in &w.sds {
            ranks.push(place.ranks(s.host.as_deref().or(w.host.as_deref()))?);
        }
    }
    let njobs = ranks.iter().map(Vec::len).sum::<usize>().max(1) as f64;
    let prioritized = run.wds.iter().any(|w| w.p.priority.is_some());
    let mut out = Vec::new();
    let mut k = 0;
    for w in &run.wds {
        for s in &w.sds {
            let region = regions[k];
            let here = &ranks[k];
            k += 1;
            if !here.contains(&place.rank) {
                continue;
            }
            let sd_threads = w.p.threads.unwrap_or(s.threads);
            // With priorities the SD's threads are shared by its WDs, the waiting I/O of
            // the highest priority started first; without, each WD has its part of them.
            let prio = w.p.priority.filter(|_| prioritized);
            let pair = Pair {
                run,
                w,
                s,
                jo,
                region,
                // A rate is the run's total: hosts running the same pair share it.
                hosts: here.len() as f64,
                split: w.sds.len() as f64,
                threads: match prio {
                    Some(_) => sd_threads,
                    None => (sd_threads / users[s.name.as_str()]).max(1),
                },
            };
            let mut o = pair.where_and_what();
            pair.flags(&mut o)?;
            let streams = match w.p.streams {
                Some(n) => pair.streams(&mut o, n, here.len())?,
                None => 1.0,
            };
            pair.pace(
                &mut o,
                (rate, share(w)),
                maxdata.map(|m| m / njobs / streams),
                streams,
            );
            pair.validation(&mut o);
            let mut spec = pair.spec(&o)?;
            spec.control.depth_share = prio.map(|priority| fathom_job::DepthShare {
                group: format!("sd={}", s.name),
                depth: sd_threads,
                priority,
            });
            out.push((spec, JobTag::io(&w.name, &s.name)));
        }
    }
    Ok(out)
}

/// Each WD's share of the run's rate, in the run's order: its skew, the rest split
/// evenly over the WDs without one.
fn wd_shares(run: &Run) -> Result<Vec<f64>> {
    // (A WD with an iorate= of its own takes no part in the skew; skew=0 is none given.)
    let rated = |w: &crate::runs::WdRun| w.p.iorate.is_some_and(|r| r > 0.0);
    let skew_of = |w: &crate::runs::WdRun| w.p.skew.filter(|&s| s != 0.0);
    let skewed: f64 = run
        .wds
        .iter()
        .filter(|w| !rated(w))
        .filter_map(skew_of)
        .sum();
    if skewed > 100.0 + 1e-9 {
        bail!(
            "rd={}: the WDs' skews add up to {skewed}%, over 100",
            run.rd
        );
    }
    let unskewed = run
        .wds
        .iter()
        .filter(|w| !rated(w) && skew_of(w).is_none())
        .count();
    // As vdbench: when every WD gives its skew, they must add up to 100 (an RD that uses
    // some of the WDs only, whose skews were meant for all of them, is refused).
    if unskewed == 0 && run.wds.iter().any(|w| !rated(w)) && (skewed - 100.0).abs() > 1e-4 {
        bail!(
            "rd={}: Total skew must add up to 100: {skewed:.2} (as vdbench; give every WD of \
             the run a skew= that adds up to 100, or leave one WD's out to take the rest)",
            run.rd
        );
    }
    Ok(run
        .wds
        .iter()
        .map(|w| match skew_of(w) {
            // (A WD's own iorate= is its rate: no share of the run's.)
            _ if rated(w) => 0.0,
            Some(s) => s / 100.0,
            None => (100.0 - skewed) / 100.0 / unskewed.max(1) as f64,
        })
        .collect())
}

/// Each WD/SD pair's region of its SD, in the run's order (see [`Region`]).
fn sd_regions(run: &Run) -> Result<Vec<Region>> {
    let mut regions = Vec::new();
    for w in &run.wds {
        for s in &w.sds {
            let full = match (s.size, lun_size(&s.lun)) {
                (Some(z), _) => z,
                (None, Some(z)) if z > 0 => z,
                (None, _) => bail!(
                    "sd={}: lun={} does not exist (or is empty) and no size= is given; add size= to create it",
                    s.name,
                    s.lun
                ),
            };
            if full <= s.offset {
                bail!(
                    "sd={}: offset={} is past the end of lun={} ({} bytes)",
                    s.name,
                    s.offset,
                    s.lun,
                    full
                );
            }
            let avail = full - s.offset;
            let (a, mut b) = w.p.range.or(s.range).unwrap_or((0.0, 100.0));
            let unit = w.p.xfer.max().max(512);
            // An end from 100 to 200 percent wraps round the SD's end to its start; with
            // seekpct=eof vdbench sets it back to 100.
            if b > 100.0 && b <= 200.0 && matches!(w.p.seek, crate::model::Seek::Eof) {
                b = 100.0;
            }
            let wraps = b > 100.0 && b <= 200.0;
            // As vdbench: a start up to 100 is a percentage, past it bytes; an end past
            // 200 is bytes.
            let mut start = crate::model::range_bytes(a, 100.0, avail) / unit * unit;
            if wraps {
                let what = format!("wd={} sd={}: range=({},{})", w.name, s.name, a, b);
                if block0(s, unit) > 0 {
                    bail!(
                        "{what} wraps round the end of a lun under /dev, whose first block \
                         vdbench never touches (it draws again): not implemented; end the \
                         range at 100 or use two WDs"
                    );
                }
                if w.p.rhpct > 0.0 || w.p.whpct > 0.0 {
                    bail!("{what} wraps round the SD's end; with rhpct=/whpct= that is not implemented");
                }
                if w.p.streams.is_some() {
                    bail!("{what} wraps round the SD's end; with streams= that is not implemented");
                }
                // The region runs to the SD's end (whole transfers); the I/Os past it, up
                // to b percent, move back by that much to the SD's start, as vdbench's.
                let real_end = avail / unit * unit;
                let virt_end = crate::model::range_bytes(b, 200.0, avail) / unit * unit;
                if start + unit > real_end || virt_end <= real_end {
                    bail!("{what}: the SD's {avail} bytes hold no {unit}-byte transfer there");
                }
                regions.push((
                    s.offset + start,
                    real_end - start,
                    full,
                    Some((virt_end - real_end, real_end)),
                ));
                continue;
            }
            let end_at = crate::model::range_bytes(b, 200.0, avail);
            if end_at > avail {
                bail!(
                    "sd={}: the range ends at byte {end_at}, past the SD's {avail} bytes",
                    s.name
                );
            }
            if start == 0 {
                start = block0(s, unit);
            }
            let end = (end_at / unit * unit).max(start + unit);
            if end > avail {
                bail!(
                    "sd={}: {} bytes hold no {unit}-byte transfer",
                    s.name,
                    avail
                );
            }
            if w.p.hotband && end - start < 1_000_000 {
                bail!(
                    "wd={} sd={}: the hot band holds {} bytes; vdbench needs at least a \
                     megabyte (1000000 bytes)",
                    w.name,
                    s.name,
                    end - start
                );
            }
            regions.push((s.offset + start, end - start, full, None));
        }
    }
    Ok(regions)
}

/// Where I/O may start on an SD: vdbench never touches the first block of a lun under
/// /dev (a device's label; /dev/shm files too, by the same test), so there one transfer
/// (`unit`) in; elsewhere (or past an offset=) at 0.
fn block0(s: &crate::model::Sd, unit: u64) -> u64 {
    if s.offset == 0 && s.lun.starts_with("/dev") {
        unit
    } else {
        0
    }
}

/// A WD's part of an SD: (offset, length, the SD's whole size, and for a range= wrapping
/// round the SD's end: the bytes it reaches past the end and how far such I/Os move back).
type Region = (u64, u64, u64, Option<(u64, u64)>);

/// One WD on one SD in a raw run: a fathom job.
struct Pair<'a> {
    run: &'a Run,
    w: &'a crate::runs::WdRun,
    s: &'a crate::model::Sd,
    jo: &'a JobOpts,
    /// Where it works (see [`Region`]).
    region: Region,
    /// Hosts running this pair.
    hosts: f64,
    /// The jobs a WD's rate is split over on one host: its SDs (one, concatenated).
    split: f64,
    /// I/Os in flight: the SD's threads, shared by the WDs that use it.
    threads: u32,
}

type Opts = Vec<(String, String)>;

impl Pair<'_> {
    /// The target, its region, the transfer sizes and the access pattern.
    fn where_and_what(&self) -> Opts {
        let (w, s) = (self.w, self.s);
        let (offset, len, full, _) = self.region;
        let mut o: Opts = Vec::new();
        o.push(("filename".into(), s.lun.clone()));
        o.push(("ioengine".into(), self.jo.ioengine.clone()));
        o.push(("iodepth".into(), self.threads.to_string()));
        if s.size.is_some() && lun_size(&s.lun).is_none_or(|z| z < full) {
            // A missing (or short) file is made at size= first, as vdbench does.
            o.push(("filesize".into(), full.to_string()));
        }
        o.push(("offset".into(), offset.to_string()));
        o.push(("size".into(), len.to_string()));
        bs_options(&w.p.xfer, &mut o);
        let align = if s.align > 0 { s.align } else { w.p.xfer.min() };
        if !matches!(w.p.seek, Seek::Seq | Seek::Eof) && align != w.p.xfer.min() {
            o.push(("blockalign".into(), align.to_string()));
        }
        let rd = w.p.rdpct;
        let (seq, random_pct) = match w.p.seek {
            // Streams walk their parts sequentially, whatever seekpct= says (vdbench's
            // stream sets every I/O's address).
            _ if w.p.streams.is_some() => (true, None),
            Seek::Seq | Seek::Eof => (true, None),
            Seek::Pct(p) if p >= 100.0 => (false, None),
            Seek::Pct(p) if p <= 0.0 => (true, None),
            Seek::Pct(p) => (false, Some(p)),
        };
        let rw = match (seq, rd) {
            (true, r) if r >= 100.0 => "read",
            (true, r) if r <= 0.0 => "write",
            (true, _) => "rw",
            (false, r) if r >= 100.0 => "randread",
            (false, r) if r <= 0.0 => "randwrite",
            (false, _) => "randrw",
        };
        o.push(("rw".into(), rw.into()));
        if rd > 0.0 && rd < 100.0 {
            o.push(("rwmixread".into(), crate::value::show_num(rd)));
        }
        if let Some(p) = random_pct {
            o.push(("percentage_random".into(), format!("{}", p.round() as u32)));
        }
        if !seq {
            // vdbench draws each seek anew: no map of the blocks already done.
            o.push(("norandommap".into(), "1".into()));
        }
        o
    }

    /// Cache hits (rhpct=/whpct= in the hit area), openflags= and compression.
    fn flags(&self, o: &mut Opts) -> Result<()> {
        let (w, s, jo) = (self.w, self.s, self.jo);
        let len = self.region.1;
        if (w.p.rhpct > 0.0 || w.p.whpct > 0.0) && w.p.hotband {
            bail!(
                "wd={}: rhpct=/whpct= with hotband= is not implemented (vdbench sends the \
                 misses to the hot band and the hits to the hit area)",
                w.name
            );
        }
        if w.p.rhpct > 0.0 || w.p.whpct > 0.0 {
            let hit = s.hitarea.unwrap_or(w.p.hitarea).min(len);
            let rest = len - hit;
            if rest == 0 {
                bail!(
                    "wd={}: the hit area ({hit} bytes) covers the whole SD",
                    w.name
                );
            }
            // Hits in the first hitarea bytes, misses in the rest; reads and writes
            // each with their own split (fio's per-direction zone lists).
            let zone = |p: f64| {
                format!(
                    "{}/{hit}:{}/{rest}",
                    p.round() as u32,
                    100 - p.round() as u32
                )
            };
            o.push((
                "random_distribution".into(),
                format!("zoned_abs:{},{}", zone(w.p.rhpct), zone(w.p.whpct)),
            ));
        }
        let flags = w.p.flags.unwrap_or_default();
        // vdbench drops no cache: a run reads what the page cache holds.
        o.push(("invalidate".into(), "0".into()));
        if flags.direct {
            o.push(("direct".into(), "1".into()));
        }
        if flags.dsync {
            o.push(("sync".into(), "dsync".into()));
        } else if flags.sync {
            o.push(("sync".into(), "1".into()));
        }
        if flags.fsync {
            o.push(("fsync_on_close".into(), "1".into()));
        }
        let cr = w.p.compratio.unwrap_or(jo.compratio);
        if cr > 1.0 {
            o.push((
                "buffer_compress_percentage".into(),
                format!("{}", (100.0 - 100.0 / cr).round() as u32),
            ));
            o.push(("refill_buffers".into(), "1".into()));
        }
        Ok(())
    }

    /// streams=N: the SD in N equal parts (each a multiple of the largest transfer, a lun
    /// under /dev keeping its first block), each walked sequentially by its share of the
    /// threads, as vdbench's streams — fio's numjobs with offset_increment, reported as
    /// one. Returns N (the rate and maxdata are split over the streams).
    fn streams(&self, o: &mut Opts, n: u32, hosts: usize) -> Result<f64> {
        let (w, s) = (self.w, self.s);
        if hosts > 1 {
            bail!(
                "wd={} sd={}: streams= on an SD several hosts use is not implemented \
                 (give the WD host= or each host an SD of its own)",
                w.name,
                s.name
            );
        }
        let threads = w.p.threads.unwrap_or(s.threads);
        if threads % n != 0 {
            bail!(
                "wd={} sd={}: threads={threads} must be a multiple of streams={n} (as in \
                 vdbench: each stream has the same number of threads)",
                w.name,
                s.name
            );
        }
        let avail = self.region.2 - s.offset;
        let unit = w.p.xfer.max().max(512);
        let size = avail / n as u64 / unit * unit;
        let block0 = block0(s, unit);
        if size <= block0 {
            bail!(
                "sd={}: {avail} bytes in {n} streams leave none a {unit}-byte transfer",
                s.name
            );
        }
        o.retain(|(k, _)| !matches!(k.as_str(), "offset" | "size" | "iodepth"));
        o.push(("offset".into(), (s.offset + block0).to_string()));
        o.push(("offset_increment".into(), size.to_string()));
        o.push(("size".into(), (size - block0).to_string()));
        o.push(("numjobs".into(), n.to_string()));
        o.push(("group_reporting".into(), "1".into()));
        o.push(("iodepth".into(), (threads / n).to_string()));
        Ok(n as f64)
    }

    /// Rate, run time, maxdata (this pair's part of it) and the interval.
    fn pace(
        &self,
        o: &mut Opts,
        (rate, wshare): (RunRate, f64),
        maxdata: Option<f64>,
        clones: f64,
    ) {
        // A rate is per clone: the hosts running the pair and its streams share it.
        let (w, run, hosts) = (self.w, self.run, self.hosts * clones);
        // Rate: the WD's own, else its share of the run's, split over its SDs.
        let rate_of = |r: f64| -> f64 { w.p.iorate.unwrap_or(r * wshare) / self.split / hosts };
        if let RunRate::Fixed(r) = rate {
            o.push((
                "rate_iops".into(),
                format!("{}", rate_of(r).round().max(1.0)),
            ));
            if run.pace.arrival == Arrival::Exponential {
                o.push(("rate_process".into(), "poisson".into()));
            }
        } else if let Some(r) = w.p.iorate {
            o.push((
                "rate_iops".into(),
                format!("{}", (r / self.split / hosts).round().max(1.0)),
            ));
        }
        let secs = run.pace.elapsed + run.pace.warmup;
        o.push((
            "runtime".into(),
            format!("{}ms", (secs * 1000.0).round() as u64),
        ));
        if w.p.seek != Seek::Eof {
            o.push(("time_based".into(), "1".into()));
        }
        if let Some(m) = maxdata {
            let part = m.ceil().max(w.p.xfer.max() as f64) as u64;
            o.push(("io_size".into(), part.to_string()));
            // io_size past the region wraps to its start, as vdbench's maxdata does.
            o.retain(|(k, _)| k != "time_based");
        }
        let iv = format!("{}", (run.pace.interval * 1000.0).round() as u64);
        o.push(("bwavgtime".into(), iv.clone()));
        o.push(("iopsavgtime".into(), iv));
    }

    /// Data validation (-v) and its journal (-j).
    fn validation(&self, o: &mut Opts) {
        let (w, s, jo) = (self.w, self.s, self.jo);
        if !jo.validate {
            return;
        }
        let kb = jo.key_blocks.get(&s.name).copied().unwrap_or(512);
        dv_options(jo, kb, o);
        if let Some(dir) = &jo.journal {
            // An SD's own journal= folder wins.
            let dir = s
                .journal
                .as_ref()
                .map_or(dir.clone(), std::path::PathBuf::from);
            o.push((
                "verify_journal".into(),
                dir.join(format!("{}.{}.jnl", w.name, s.name))
                    .display()
                    .to_string(),
            ));
        }
    }

    /// The job from its options, with what vdbench's semantics add beyond fio's.
    fn spec(&self, o: &Opts) -> Result<JobSpec> {
        let (w, s, jo) = (self.w, self.s, self.jo);
        let name = JobTag::io(&w.name, &s.name).name();
        let mut b = fathom::Job::builder(name);
        for (k, v) in o {
            b = b.option(k.clone(), v.clone());
        }
        let mut spec = b
            .build()
            .map_err(|e| anyhow!("wd={} sd={}: {e}", w.name, s.name))?;
        spec.control.final_sample = true;
        // vdbench draws each I/O's direction on its own (rdpct=).
        spec.control.independent_mix = true;
        // stride=: the seeks seekpct= asks for skip on from the last I/O instead.
        // hotband=: the seeks follow vdbench's hot-band curve over the range. (Streams
        // make no seeks.)
        if w.p.streams.is_none() {
            spec.control.stride = w.p.stride;
            spec.control.hotband = w.p.hotband;
        }
        if w.p.rdpct < 100.0 {
            let what = format!("wd={} sd={}", w.name, s.name);
            spec.control.dedup_units = dedup_units(jo, self.region.1, &w.p.xfer, &what)?;
        }
        // iorate= is the total of reads and writes.
        spec.control.rate_combined = true;
        // openflags=fsync: when the SD is closed, at the run's end.
        spec.control.sync_at_end_only = true;
        // A sequential mix walks one position, each I/O a read or a write (fio's rw=rw
        // walks the file once for reads and once for writes).
        spec.control.one_position = true;
        spec.control.range_wrap = self.region.3;
        dv_controls(jo, &mut spec);
        Ok(spec)
    }
}

/// For each FSD of a run, the ranks that use it (in rank order). A tree used by several
/// hosts must say shared=yes; they then split its files.
pub fn fsd_shares(run: &Run, place: &Place) -> Result<Vec<(String, Vec<u32>)>> {
    let mut out: Vec<(String, Vec<u32>)> = Vec::new();
    for f in &run.fwds {
        let ranks = place.ranks(f.host.as_deref())?;
        for fsd in &f.fsds {
            let i = match out.iter().position(|(n, _)| *n == fsd.name) {
                Some(i) => i,
                None => {
                    out.push((fsd.name.clone(), Vec::new()));
                    out.len() - 1
                }
            };
            for r in &ranks {
                if !out[i].1.contains(r) {
                    out[i].1.push(*r);
                }
            }
            out[i].1.sort_unstable();
            if out[i].1.len() > 1 && !fsd.shared {
                bail!(
                    "fsd={} is used by {} hosts: add shared=yes to let them split its files",
                    fsd.name,
                    out[i].1.len()
                );
            }
        }
    }
    Ok(out)
}

/// The files of `fsd` this rank works on: all, or its share of a shared tree (file i goes
/// to the (i mod n)-th of the n hosts using it).
pub fn my_files(
    fsd: &crate::model::Fsd,
    shares: &[(String, Vec<u32>)],
    rank: u32,
) -> Vec<(std::path::PathBuf, u64)> {
    let all = crate::tree::file_list(fsd);
    let Some((_, users)) = shares.iter().find(|(n, _)| *n == fsd.name) else {
        return all;
    };
    let Some(pos) = users.iter().position(|r| *r == rank) else {
        return Vec::new();
    };
    let n = users.len();
    all.into_iter()
        .enumerate()
        .filter(|(i, _)| i % n == pos)
        .map(|(_, f)| f)
        .collect()
}

/// What can be refused before any file is looked at (`-s` refuses it too).
pub fn check_static(run: &Run) -> Result<()> {
    // The WDs' skews, before any run starts (as vdbench checks every RD first).
    if !run.wds.is_empty() {
        wd_shares(run)?;
    }
    // Reads and writes run on files held open; an operation that adds or removes files
    // beside them on the same tree would pull files from under them.
    for f in &run.fwds {
        if !f.p.operations.iter().any(|o| o == "read" || o == "write") {
            continue;
        }
        for g in &run.fwds {
            let Some(op) =
                g.p.operations
                    .iter()
                    .find(|o| SHAPING.contains(&o.as_str()))
            else {
                continue;
            };
            if let Some(fsd) = f
                .fsds
                .iter()
                .find(|x| g.fsds.iter().any(|y| y.name == x.name))
            {
                bail!(
                    "rd={} fwd={}: operation={op} beside reads or writes (fwd={}) on fsd={}: \
                     fathom reads and writes files it keeps open, so it does not run them with \
                     operations that add or remove files on the same tree; run them one after \
                     the other (foroperations=, or separate RDs)",
                    run.rd,
                    g.name,
                    f.name,
                    fsd.name
                );
            }
        }
    }
    for f in &run.fwds {
        if f.p.fileio_delete && f.p.rdpct.is_some() {
            bail!(
                "rd={} fwd={}: fileio=(sequential,delete) and rdpct= do not go together (as \
                 in vdbench): a file is deleted before it is written",
                run.rd,
                f.name
            );
        }
    }
    let xfers = run
        .wds
        .iter()
        .map(|w| (&w.name, &w.p.xfer))
        .chain(run.fwds.iter().map(|f| (&f.name, &f.p.xfer)));
    for (name, x) in xfers {
        if let Xfer::Range(a, b, al) = *x {
            if al != a {
                bail!("rd={} {name}: xfersize=({a},{b},{al}): an alignment other than the smallest size is not implemented (fathom's sizes are multiples of the smallest)", run.rd);
            }
        }
    }
    for w in &run.wds {
        let seq = matches!(w.p.seek, Seek::Seq | Seek::Eof)
            || matches!(w.p.seek, Seek::Pct(p) if p <= 0.0);
        if (w.p.rhpct > 0.0 || w.p.whpct > 0.0) && seq {
            bail!(
                "rd={} wd={}: rhpct=/whpct= need random I/O (seekpct above 0)",
                run.rd,
                w.name
            );
        }
    }
    if let Some(w) = run.wds.iter().find(|w| w.p.streams.is_some()) {
        if run.wds.len() > 1 {
            bail!(
                "rd={}: wd={} has streams=; as in vdbench, a run with streams has only that \
                 one WD",
                run.rd,
                w.name
            );
        }
    }
    check_priorities(run)
}

/// vdbench's rules for WD priority= and a WD's own iorate=: once any WD of a run has
/// either, every WD has a priority of its own, 1, 2, 3 … without gaps, and the WDs with
/// their own iorate= come before the others.
fn check_priorities(run: &Run) -> Result<()> {
    if !run
        .wds
        .iter()
        .any(|w| w.p.priority.is_some() || w.p.iorate.is_some())
    {
        return Ok(());
    }
    let hint = "give every WD of the run a priority of its own, 1 first (the WDs with their \
                own iorate= before the others), as vdbench requires";
    for w in &run.wds {
        if w.p.priority.is_none() {
            let why = if w.p.iorate.is_some() {
                "has its own iorate= but no priority="
            } else {
                "has no priority=, beside a WD with priority= or its own iorate="
            };
            bail!("rd={} wd={} {why}; {hint}", run.rd, w.name);
        }
    }
    let mut prios: Vec<u32> = run.wds.iter().filter_map(|w| w.p.priority).collect();
    prios.sort_unstable();
    if prios.windows(2).any(|p| p[0] == p[1]) {
        bail!("rd={}: two WDs have the same priority; {hint}", run.rd);
    }
    if prios.iter().enumerate().any(|(i, &p)| p != i as u32 + 1) {
        bail!(
            "rd={}: the WDs' priorities ({}) must run 1, 2, 3 … without gaps",
            run.rd,
            prios
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    let fixed = run.wds.iter().filter(|w| w.p.iorate.is_some());
    let lowest_free = run
        .wds
        .iter()
        .filter(|w| w.p.iorate.is_none())
        .filter_map(|w| w.p.priority)
        .min();
    if let Some(free) = lowest_free {
        if let Some(w) = fixed.into_iter().find(|w| w.p.priority >= Some(free)) {
            bail!(
                "rd={} wd={}: a WD with its own iorate= must come before (a smaller priority \
                 than) every WD without one",
                run.rd,
                w.name
            );
        }
    }
    Ok(())
}

/// The jobs of a file-system run: reads and writes over the trees' files (psync jobs,
/// each thread on files of its own), and each metadata operation as a filetree job on the
/// FSD's tree (its threads sharing one view of the tree, as vdbench's).
pub fn fs_jobs(
    run: &Run,
    rate: RunRate,
    jo: &JobOpts,
    place: &Place,
) -> Result<Vec<(JobSpec, JobTag)>> {
    let mut out = Vec::new();
    let total_threads: u32 = run.fwds.iter().map(|f| f.p.threads).sum();
    check_static(run)?;
    let shares = fsd_shares(run, place)?;
    for f in &run.fwds {
        let here = place.ranks(f.host.as_deref())?;
        if !here.contains(&place.rank) {
            continue;
        }
        if jo.validate {
            dv_fs_check(f, jo)?;
        }
        let hosts = here.len() as f64;
        let nops = f.p.operations.len();
        // threads= is the FWD's total, split over its FSDs and operations (at least one
        // each, as vdbench rounds up).
        let mut threads = (f.p.threads as usize).div_ceil(f.fsds.len() * nops).max(1);
        let share =
            f.p.skew
                .map_or(f.p.threads as f64 / total_threads as f64, |s| s / 100.0);
        // This host's share of the run's operations per second, for one FSD and operation.
        let mine = |r: f64| r * share / f.fsds.len() as f64 / nops as f64 / hosts;
        // A thread paces whole operations per second: a rate below one per thread runs
        // on fewer threads, so the total stays the rate asked for (fwdrate=1 with 16
        // threads is one operation a second, not 16).
        if let RunRate::Fixed(r) = rate {
            if mine(r) < threads as f64 {
                threads = (mine(r).floor() as usize).max(1);
            }
        }
        let per_thread = |r: f64| (mine(r) / threads as f64).round().max(1.0);
        for fsd in &f.fsds {
            for op in &f.p.operations {
                let mut common: Vec<(String, String)> = Vec::new();
                if let RunRate::Fixed(r) = rate {
                    common.push(("rate_iops".into(), format!("{}", per_thread(r))));
                    if run.pace.arrival == Arrival::Exponential {
                        common.push(("rate_process".into(), "poisson".into()));
                    }
                }
                let secs = run.pace.elapsed + run.pace.warmup;
                common.push((
                    "runtime".into(),
                    format!("{}ms", (secs * 1000.0).round() as u64),
                ));
                common.push(("time_based".into(), "1".into()));
                let iv = format!("{}", (run.pace.interval * 1000.0).round() as u64);
                common.push(("bwavgtime".into(), iv.clone()));
                common.push(("iopsavgtime".into(), iv));
                let made = if op == "read" || op == "write" {
                    io_jobs(f, fsd, op, threads, (&shares, place, jo), &common)?
                } else {
                    vec![meta_job(f, fsd, op, threads, &shares, &common)?]
                };
                out.extend(made);
            }
        }
    }
    Ok(out)
}

/// What data validation of a file-system run refuses: the operations that make, remove
/// or move a file's data outside its reads and writes (their keys are not kept),
/// `fileio=(random,shared)` (vdbench refuses it too), a delete before each sequential
/// write, and journals.
fn dv_fs_check(f: &crate::runs::FwdRun, jo: &JobOpts) -> Result<()> {
    const KEPT: [&str; 9] = [
        "read", "write", "mkdir", "rmdir", "getattr", "setattr", "access", "open", "close",
    ];
    if let Some(op) = f.p.operations.iter().find(|o| !KEPT.contains(&o.as_str())) {
        bail!(
            "fwd={}: operation={op} with data validation (-v) is not implemented: the keys of \
             the files it makes, removes or moves are not kept (validation covers the format \
             and operation=read/write; run {op} without -v)",
            f.name
        );
    }
    if f.p.fileio_shared {
        bail!(
            "fwd={}: 'fileio=(random,shared)' may not be used with Data Validation (as in vdbench)",
            f.name
        );
    }
    if f.p.fileio_delete {
        bail!(
            "fwd={}: fileio=(sequential,delete) with data validation (-v) is not implemented \
             (use fileio=sequential)",
            f.name
        );
    }
    if jo.journal.is_some() {
        bail!(
            "fwd={}: journals (-j, -jr, journal=) of file-system runs are not implemented; \
             -v validates them without a journal",
            f.name
        );
    }
    Ok(())
}

/// Data validation's format of `files` (made at their lengths): `threads` psync jobs, each
/// writing every n-th file whole in `xfer` pieces (where a file's length is not a multiple
/// of `xfer`: the largest whole number of key blocks up to `xfer` that every length is a
/// multiple of), every block keyed.
pub fn dv_format_jobs(
    fsd: &crate::model::Fsd,
    files: &[(std::path::PathBuf, u64)],
    (xfer, threads): (u64, usize),
    jo: &JobOpts,
    interval: f64,
) -> Result<Vec<JobSpec>> {
    let kb = jo
        .key_blocks
        .get(&fsd_key(&fsd.name))
        .copied()
        .unwrap_or(xfer);
    let bs = if files.iter().all(|(_, n)| n % xfer == 0) {
        xfer
    } else if let Some((p, n)) = files.iter().find(|(_, n)| n % kb != 0) {
        bail!(
            "fsd={}: {} is {n} bytes, not a multiple of the data validation key block \
             ({kb}, the smallest xfersize); give size= (or sizes=) multiples of it",
            fsd.name,
            p.display()
        );
    } else {
        // The largest write of whole key blocks, no larger than xfer, that every file's
        // length is a multiple of (vdbench's last write of a file is cut at its end).
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let g = files.iter().fold(0, |g, (_, n)| gcd(g, *n));
        let mut bs = (xfer.min(g) / kb).max(1) * kb;
        while bs > kb && g % bs != 0 {
            bs -= kb;
        }
        bs
    };
    let threads = threads.clamp(1, 256).min(files.len().max(1));
    let mut out = Vec::new();
    for t in 0..threads {
        let mine: Vec<String> = files
            .iter()
            .skip(t)
            .step_by(threads)
            .map(|(p, _)| p.display().to_string().replace(':', "\\:"))
            .collect();
        let mut o: Opts = vec![
            ("filename".into(), mine.join(":")),
            ("ioengine".into(), "psync".into()),
            ("rw".into(), "write".into()),
            ("bs".into(), bs.to_string()),
            ("file_service_type".into(), "sequential".into()),
            ("invalidate".into(), "0".into()),
        ];
        // Sampled per reporting interval (the format's report).
        let iv = format!("{}", (interval * 1000.0).round() as u64);
        o.push(("bwavgtime".into(), iv.clone()));
        o.push(("iopsavgtime".into(), iv));
        dv_options(jo, kb, &mut o);
        let mut b = fathom::Job::builder(format!("format.{}.{t}", fsd.name));
        for (k, v) in o {
            b = b.option(k, v);
        }
        let mut spec = b
            .build()
            .map_err(|e| anyhow!("fsd={} format: {e}", fsd.name))?;
        dv_controls(jo, &mut spec);
        spec.control.final_sample = true;
        // Each file opened (and closed) once, in the format's columns.
        spec.control.count_opens = true;
        if let Some(p) = &jo.pattern {
            spec.buffer_pattern = Some(p.clone());
        }
        out.push(spec);
    }
    Ok(out)
}

fn built(tag: JobTag, o: &[(String, String)], what: &str) -> Result<(JobSpec, JobTag)> {
    let mut b = fathom::Job::builder(tag.name());
    for (k, v) in o {
        b = b.option(k.clone(), v.clone());
    }
    let mut spec = b.build().map_err(|e| anyhow!("{what}: {e}"))?;
    spec.control.final_sample = true;
    // vdbench draws each I/O's direction on its own (rdpct=).
    spec.control.independent_mix = true;
    spec.control.rate_combined = true;
    spec.control.sync_at_end_only = true;
    Ok((spec, tag))
}

/// Reads and writes of `fsd`'s files, as vdbench gives a file to one thread at a time:
/// a psync job of `threads` clones over all of them, each file used by one thread at a
/// time across every FWD on the FSD (`Control::file_gate`). Under data validation each
/// thread keeps files of its own (every n-th; its key map is its own while it runs, so
/// two writers on one file would lose what the other wrote) and a lock keeps another
/// FWD's reads off a write half done. `fileio=(random,shared)`: all threads on all files
/// at once.
fn io_jobs(
    f: &crate::runs::FwdRun,
    fsd: &crate::model::Fsd,
    op: &str,
    threads: usize,
    (shares, place, jo): (&[(String, Vec<u32>)], &Place, &JobOpts),
    common: &[(String, String)],
) -> Result<Vec<(JobSpec, JobTag)>> {
    let all = crate::tree::working_set(fsd, my_files(fsd, shares, place.rank));
    if all.is_empty() {
        bail!(
            "fsd={}: the tree holds no files (or totalsize=/workingsetsize= hold none)",
            fsd.name
        );
    }
    let own_files = jo.validate && !f.p.fileio_shared;
    let parts: Vec<(Vec<(std::path::PathBuf, u64)>, usize)> = if own_files {
        if all.len() < threads {
            bail!(
                "fwd={}: {threads} threads but fsd={} has {} files for them under data \
                 validation (each thread keeps files of its own); give it more files or \
                 fewer threads",
                f.name,
                fsd.name,
                all.len()
            );
        }
        (0..threads)
            .map(|t| (all.iter().skip(t).step_by(threads).cloned().collect(), 1))
            .collect()
    } else {
        vec![(all, threads)]
    };
    let mut out = Vec::new();
    for (part, (files, numjobs)) in parts.into_iter().enumerate() {
        let mut o: Vec<(String, String)> = Vec::new();
        let names: Vec<String> = files
            .iter()
            .map(|(p, _)| p.display().to_string().replace(':', "\\:"))
            .collect();
        o.push(("filename".into(), names.join(":")));
        o.push(("ioengine".into(), "psync".into()));
        o.push(("numjobs".into(), numjobs.to_string()));
        // One reporting group per FWD and FSD: its threads are reported together,
        // apart from the other FWDs'.
        o.push(("group_reporting".into(), "1".into()));
        if part == 0 {
            o.push(("new_group".into(), "1".into()));
        }
        let rw = file_pattern(f, fsd, op, &files, &mut o);
        if jo.validate {
            let kb = jo.key_blocks.get(&fsd_key(&fsd.name)).copied();
            dv_options(jo, kb.unwrap_or(512), &mut o);
            // Another FWD on the FSD uses the same files: a read never sees a write
            // half done.
            o.push(("lockfile".into(), "readwrite".into()));
        }
        o.extend(common.iter().cloned());
        let what = format!("fwd={} fsd={}", f.name, fsd.name);
        let mut job = built(JobTag::io(&f.name, &fsd.name), &o, &what)?;
        // fileio=(sequential,delete): each file is removed and made anew before its
        // writes start (a delete and a create, in their columns).
        job.0.control.delete_before_write = f.p.fileio_delete && rw == "write";
        // As vdbench: each time a thread picks a file it opens it (and closes the one it
        // had), counted in the open and close columns.
        job.0.control.count_opens = true;
        // One thread on a file at a time, across every FWD on the FSD: a thread that
        // draws a busy file waits 200 µs and draws again, counted as vdbench's
        // FILE_BUSY (so more threads than files run, the others waiting their turn).
        job.0.control.file_gate = !jo.validate && !f.p.fileio_shared;
        if rw != "read" && rw != "randread" {
            let len = files.iter().map(|(_, n)| *n).sum();
            job.0.control.dedup_units = dedup_units(jo, len, &f.p.xfer, &what)?;
        }
        if jo.validate {
            dv_controls(jo, &mut job.0);
        }
        out.push(job);
    }
    Ok(out)
}

/// A file workload's transfer sizes, pattern, file selection and open flags; returns
/// its rw=.
fn file_pattern(
    f: &crate::runs::FwdRun,
    fsd: &crate::model::Fsd,
    op: &str,
    files: &[(std::path::PathBuf, u64)],
    o: &mut Vec<(String, String)>,
) -> &'static str {
    // A transfer never goes past a file's end: files smaller than xfersize are moved
    // whole (vdbench's transfer is then the file).
    let smallest = files.iter().map(|(_, n)| *n).min().unwrap_or(0);
    match f.p.xfer {
        Xfer::Fixed(x) if smallest > 0 && x > smallest => {
            o.push(("bs".into(), smallest.to_string()))
        }
        _ => bs_options(&f.p.xfer, o),
    }
    let rw = match (f.p.fileio_random, op, f.p.rdpct) {
        (r, _, Some(p)) if p > 0.0 && p < 100.0 => {
            o.push(("rwmixread".into(), crate::value::show_num(p)));
            if r {
                "randrw"
            } else {
                "rw"
            }
        }
        (true, "read", _) => "randread",
        (true, _, _) => "randwrite",
        (false, "read", _) => "read",
        (false, _, _) => "write",
    };
    o.push(("rw".into(), rw.into()));
    if f.p.fileio_random {
        // vdbench draws each block of a random file anew: no map of those done.
        o.push(("norandommap".into(), "1".into()));
    }
    let fst = if f.p.fileselect_seq {
        "sequential"
    } else {
        "random"
    };
    // A file is read (written) once through before the next is picked, unless
    // stopafter= says how many I/Os.
    let per_file = f.p.stopafter.unwrap_or_else(|| {
        let size = fsd.sizes.iter().map(|s| s.0).max().unwrap_or(0);
        (size / f.p.xfer.max().max(1)).max(1)
    });
    o.push(("file_service_type".into(), format!("{fst}:{per_file}")));
    let flags = f.p.flags.unwrap_or(fsd.flags);
    // vdbench drops no cache.
    o.push(("invalidate".into(), "0".into()));
    if flags.direct {
        o.push(("direct".into(), "1".into()));
    }
    if flags.fsync {
        o.push(("fsync_on_close".into(), "1".into()));
    }
    if flags.dsync {
        o.push(("sync".into(), "dsync".into()));
    }
    rw
}

/// A metadata operation on `fsd`'s tree: a filetree job in vdbench's names, its threads
/// sharing one view of the tree (a file or directory is one thread's at a time).
fn meta_job(
    f: &crate::runs::FwdRun,
    fsd: &crate::model::Fsd,
    op: &str,
    threads: usize,
    shares: &[(String, Vec<u32>)],
    common: &[(String, String)],
) -> Result<(JobSpec, JobTag)> {
    if shares
        .iter()
        .any(|(n, users)| *n == fsd.name && users.len() > 1)
    {
        bail!(
            "fwd={}: operation={op} on fsd={}, which several hosts share: metadata operations \
             on one tree from many hosts are not implemented (give the FWD host= or each host \
             an FSD of its own)",
            f.name,
            fsd.name
        );
    }
    let mut o: Vec<(String, String)> = vec![
        ("ioengine".into(), "filetree".into()),
        ("directory".into(), fsd.anchor.replace(':', "\\:")),
        ("tree_depth".into(), fsd.depth.to_string()),
        ("tree_width".into(), fsd.width.to_string()),
        ("nrfiles".into(), fsd.files.to_string()),
        (
            "tree_distribution".into(),
            if fsd.all { "all" } else { "bottom" }.into(),
        ),
        ("tree_names".into(), "vdbench".into()),
        ("tree_shared".into(), "1".into()),
        ("tree_format".into(), "no".into()),
        ("meta_mix".into(), meta_mix(op).into()),
        (
            "fileselect".into(),
            if f.p.fileselect_seq {
                "sequential"
            } else {
                "random"
            }
            .into(),
        ),
        ("bs".into(), f.p.xfer.max().max(512).to_string()),
        ("numjobs".into(), threads.to_string()),
        ("group_reporting".into(), "1".into()),
        ("new_group".into(), "1".into()),
    ];
    o.extend(common.iter().cloned());
    let tag = JobTag {
        wd: f.name.clone(),
        sd: fsd.name.clone(),
        op: Some(op.to_string()),
    };
    let (mut spec, tag) = built(
        tag,
        &o,
        &format!("fwd={} fsd={} operation={op}", f.name, fsd.name),
    )?;
    // A create makes the file and writes it whole (in xfersize writes), as vdbench does,
    // at the size sizes= gives it.
    spec.control.file_sizes = fsd.sizes.clone();
    Ok((spec, tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fathom_job::{RandomDist, RwKind};
    use std::path::Path;

    fn jobs_of(text: &str) -> Vec<(JobSpec, JobTag)> {
        jobs_result(text).unwrap()
    }

    pub(super) fn jobs_result(text: &str) -> Result<Vec<(JobSpec, JobTag)>> {
        let pf = crate::parse::read_str(Path::new("t"), text, &HashMap::new()).unwrap();
        let m = crate::model::Model::from_parm(&pf).unwrap();
        let runs = crate::runs::expand(&m).unwrap();
        let jo = JobOpts {
            ioengine: "libaio".into(),
            validate: false,
            dv_reads: Default::default(),
            key_blocks: HashMap::new(),
            key_maps: Default::default(),
            journal: None,
            data_errors: 50,
            compratio: 1.0,
            dedup: None,
            pattern: None,
            concat: m
                .general
                .concat
                .then(|| m.wds.iter().map(|w| w.name.clone()).collect()),
        };
        raw_jobs(&runs[0], runs[0].rate, &jo, &Place::default())
    }

    fn opt_of(spec: &JobSpec, k: &str) -> Option<String> {
        spec.job_options
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    }

    #[test]
    fn skews_that_do_not_add_up_to_100_are_refused_as_vdbench() {
        let base = "sd=sd1,lun=/nonexistent/x,size=100m\n\
                    wd=wd1,sd=sd1,rdpct=70,skew=75\n";
        // Every WD of the run gives its skew: 75 alone is refused.
        let e = jobs_result(&format!("{base}rd=rd1,wd=wd1,iorate=100\n")).unwrap_err();
        assert!(
            e.to_string()
                .contains("Total skew must add up to 100: 75.00"),
            "{e}"
        );
        // A WD without one takes the rest; skew=0 is none given.
        for other in ["", ",skew=0"] {
            let j = jobs_of(&format!(
                "{base}wd=wd2,sd=sd1,rdpct=0{other}\nrd=rd1,wd=wd*,iorate=100\n"
            ));
            let rates: Vec<String> = j
                .iter()
                .filter_map(|(s, _)| opt_of(s, "rate_iops"))
                .collect();
            assert_eq!(rates.len(), 2, "{rates:?}");
        }
    }

    #[test]
    fn a_hotband_is_a_range_with_the_hot_band_curve() {
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=100m
             wd=wd1,sd=sd1,rdpct=70,hotband=(10,20)
rd=rd1,wd=wd1
",
        );
        let spec = &j[0].0;
        assert!(spec.control.hotband);
        assert_eq!(opt_of(spec, "offset").as_deref(), Some("10485760"));
        assert_eq!(opt_of(spec, "size").as_deref(), Some("10485760"));
        // Bytes past 100 (the start) and past 200 (the end).
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=100m
             wd=wd1,sd=sd1,hotband=(16m,48m)
rd=rd1,wd=wd1
",
        );
        assert_eq!(opt_of(&j[0].0, "offset").as_deref(), Some("16777216"));
        assert_eq!(opt_of(&j[0].0, "size").as_deref(), Some("33554432"));
        // vdbench drops no page cache before a run.
        assert!(!j[0].0.invalidate);
        // A band under a decimal megabyte, and hit areas beside a hot band, are refused.
        let e = jobs_result(
            "sd=sd1,lun=/nonexistent/x,size=4m
wd=wd1,sd=sd1,hotband=(0,10)
rd=rd1,wd=wd1
",
        )
        .unwrap_err();
        assert!(e.to_string().contains("at least a megabyte"), "{e}");
        let e = jobs_result(
            "sd=sd1,lun=/nonexistent/x,size=64m
wd=wd1,sd=sd1,hotband=(0,50),rhpct=50
             rd=rd1,wd=wd1
",
        )
        .unwrap_err();
        assert!(e.to_string().contains("not implemented"), "{e}");
    }

    #[test]
    fn priorities_share_the_sds_threads_and_follow_vdbenchs_rules() {
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=64m,threads=8
             wd=vod,sd=sd1,iorate=100,priority=1,seekpct=seq
             wd=edit,sd=sd1,rdpct=50,priority=2
rd=rd1,wd=*,iorate=max
",
        );
        assert_eq!(j.len(), 2);
        for (k, prio) in [(0, 1), (1, 2)] {
            // Each may use all 8 threads; the group holds 8 in all.
            assert_eq!(opt_of(&j[k].0, "iodepth").as_deref(), Some("8"));
            assert_eq!(
                j[k].0.control.depth_share,
                Some(fathom_job::DepthShare {
                    group: "sd=sd1".into(),
                    depth: 8,
                    priority: prio
                })
            );
        }
        assert_eq!(opt_of(&j[0].0, "rate_iops").as_deref(), Some("100"));
        assert_eq!(opt_of(&j[1].0, "rate_iops"), None);
        // Without priorities: threads split, no group.
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=64m,threads=8
wd=a,sd=sd1
wd=b,sd=sd1
             rd=rd1,wd=*,iorate=max
",
        );
        assert_eq!(opt_of(&j[0].0, "iodepth").as_deref(), Some("4"));
        assert_eq!(j[0].0.control.depth_share, None);
        for (wds, want) in [
            (
                "wd=a,sd=sd1,iorate=100
wd=b,sd=sd1
",
                "has its own iorate= but no priority=",
            ),
            (
                "wd=a,sd=sd1,priority=1
wd=b,sd=sd1
",
                "has no priority=",
            ),
            (
                "wd=a,sd=sd1,priority=1
wd=b,sd=sd1,priority=1
",
                "the same priority",
            ),
            (
                "wd=a,sd=sd1,priority=1
wd=b,sd=sd1,priority=3
",
                "without gaps",
            ),
            (
                "wd=a,sd=sd1,priority=1
wd=b,sd=sd1,priority=2,iorate=50
",
                "must come before",
            ),
        ] {
            let e = jobs_result(&format!(
                "sd=sd1,lun=/nonexistent/x,size=64m
{wds}rd=rd1,wd=*,iorate=max
"
            ))
            .unwrap_err();
            assert!(e.to_string().contains(want), "{wds}: {e}");
        }
    }

    #[test]
    fn streams_split_the_sd_into_sequential_parts_with_their_threads() {
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=100m,threads=8
             wd=wd1,sd=sd1,xfersize=64k,rdpct=0,seekpct=random,streams=4
             rd=rd1,wd=wd1,iorate=800
",
        );
        let spec = &j[0].0;
        assert_eq!(spec.rw.kind, RwKind::Write, "streams walk sequentially");
        assert_eq!(opt_of(spec, "numjobs").as_deref(), Some("4"));
        assert_eq!(opt_of(spec, "iodepth").as_deref(), Some("2"));
        assert_eq!(opt_of(spec, "offset").as_deref(), Some("0"));
        assert_eq!(
            opt_of(spec, "offset_increment").as_deref(),
            Some("26214400")
        );
        assert_eq!(opt_of(spec, "size").as_deref(), Some("26214400"));
        assert_eq!(opt_of(spec, "norandommap"), None);
        // The run's rate is shared by the streams.
        assert_eq!(opt_of(spec, "rate_iops").as_deref(), Some("200"));
        // A read/write mix walks each stream along one position, as vdbench's stream.
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=64m,threads=8\n\
             wd=wd1,sd=sd1,streams=2,rdpct=50\nrd=rd1,wd=wd1\n",
        );
        assert_eq!(opt_of(&j[0].0, "rw").as_deref(), Some("rw"));
        assert_eq!(opt_of(&j[0].0, "rwmixread").as_deref(), Some("50"));
        assert!(j[0].0.control.one_position);
        for (text, want) in [
            (
                "wd=wd1,sd=sd1,streams=3
rd=rd1,wd=wd1",
                "must be a multiple of streams=3",
            ),
            (
                "wd=wd1,sd=sd1,streams=2
wd=wd2,sd=sd1
rd=rd1,wd=*",
                "only that one WD",
            ),
        ] {
            let e = jobs_result(&format!(
                "sd=sd1,lun=/nonexistent/x,size=64m,threads=8
{text}
"
            ))
            .unwrap_err();
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn a_luns_first_block_under_dev_is_never_touched() {
        let j = jobs_of(
            "sd=sd1,lun=/dev/nonexistent-fathom,size=64m
             wd=wd1,sd=sd1,xfersize=8k
rd=rd1,wd=wd1
",
        );
        assert_eq!(opt_of(&j[0].0, "offset").as_deref(), Some("8192"));
        assert_eq!(
            opt_of(&j[0].0, "size").as_deref(),
            Some(&*((64u64 << 20) - 8192).to_string())
        );
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=64m
wd=wd1,sd=sd1,xfersize=8k
rd=rd1,wd=wd1
",
        );
        assert_eq!(opt_of(&j[0].0, "offset").as_deref(), Some("0"));
    }

    #[test]
    fn hit_areas_are_zones_per_direction() {
        let j = jobs_of(
            "sd=sd1,lun=/nonexistent/x,size=16m\n\
             wd=wd1,sd=sd1,rdpct=50,rhpct=80,whpct=20,hitarea=1m\nrd=rd1,wd=wd1\n",
        );
        let spec = &j[0].0;
        assert_eq!(spec.rw.kind, RwKind::RandRw);
        let dirs = spec
            .random_distribution_dirs
            .as_ref()
            .expect("per-direction zones");
        assert_eq!(
            dirs[0],
            Some(RandomDist::ZonedAbs(vec![
                (80.0, 1 << 20),
                (20.0, 15 << 20)
            ]))
        );
        assert_eq!(
            dirs[1],
            Some(RandomDist::ZonedAbs(vec![
                (20.0, 1 << 20),
                (80.0, 15 << 20)
            ]))
        );
    }

    #[test]
    fn threads_seek_range_and_rates_map_to_job_options() {
        let j = jobs_of(
            "sd=default,size=64m,threads=8\nsd=sd1,lun=/nonexistent/a\nsd=sd2,lun=/nonexistent/b\n\
             wd=wa,sd=sd1,skew=75,seekpct=eof,rdpct=0,xfersize=64k,range=(50,100)\n\
             wd=wb,sd=sd*,skew=25,seekpct=30\n\
             rd=rd1,wd=(wa,wb),iorate=1000,distribution=deterministic\n",
        );
        assert_eq!(j.len(), 3);
        let opt = |i: usize, k: &str| -> Option<String> {
            j[i].0
                .job_options
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        // sd1 is shared by two WDs: 4 threads each; sd2 has wb alone: 8.
        assert_eq!(opt(0, "iodepth").as_deref(), Some("4"));
        assert_eq!(opt(2, "iodepth").as_deref(), Some("8"));
        // eof: once through the second half of sd1, no time_based.
        assert_eq!(j[0].0.rw.kind, RwKind::Write);
        assert_eq!(
            opt(0, "offset").as_deref(),
            Some(&*(32u64 << 20).to_string())
        );
        assert_eq!(opt(0, "time_based"), None);
        // 75% of 1000 for wa's one SD; 25% of 1000 over wb's two SDs.
        assert_eq!(opt(0, "rate_iops").as_deref(), Some("750"));
        assert_eq!(opt(1, "rate_iops").as_deref(), Some("125"));
        assert_eq!(opt(1, "percentage_random").as_deref(), Some("30"));
        // Seeks are drawn anew each time, as vdbench's: no random map.
        assert_eq!(opt(1, "norandommap").as_deref(), Some("1"));
        assert_eq!(opt(0, "norandommap"), None);
        assert_eq!(
            opt(1, "rate_process"),
            None,
            "deterministic arrivals are linear"
        );
        assert!(j[0].0.control.rate_combined && j[0].0.control.final_sample);
    }

    #[test]
    fn key_blocks_cover_fsds_and_their_format() {
        let runs = |t: &str| {
            let pf = crate::parse::read_str(Path::new("t"), t, &HashMap::new()).unwrap();
            let m = crate::model::Model::from_parm(&pf).unwrap();
            crate::runs::expand(&m).unwrap()
        };
        let text = |x: &str, format: &str| {
            format!(
                "fsd=f1,anchor=/tmp/kb,depth=1,width=1,files=2,size=1m\n\
                 fwd=w1,fsd=f1,operation=read,xfersize={x}\n\
                 rd=r1,fwd=w1,fwdrate=max,format={format},elapsed=2,interval=1\n"
            )
        };
        // The FSD's smallest transfer, the format's 128k beside it.
        let kb = key_blocks(&runs(&text("8k", "yes"))).unwrap();
        assert_eq!(kb.get(&fsd_key("f1")), Some(&8192));
        assert_eq!(kb.len(), 1);
        // 128k is not a multiple of 48k: refused, naming the FSD and the sizes.
        let e = key_blocks(&runs(&text("48k", "yes")))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("fsd=f1: Xfersize error"), "{e}");
        assert!(e.contains("131072") && e.contains("49152"), "{e}");
        // Without a format, 48k alone is the key block.
        let kb = key_blocks(&runs(&text("48k", "no"))).unwrap();
        assert_eq!(kb.get(&fsd_key("f1")), Some(&49152));
        // fwd=format's xfersize replaces the 128k.
        let t = text("48k", "yes").replacen("fwd=w1", "fwd=format,xfersize=96k\nfwd=w1", 1);
        let kb = key_blocks(&runs(&t)).unwrap();
        assert_eq!(kb.get(&fsd_key("f1")), Some(&49152));
    }
}
