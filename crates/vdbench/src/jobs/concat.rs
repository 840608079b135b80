//! vdbench's SD concatenation (`concatenatesds=yes`), as vdbench 5.04's source and guide
//! describe it: each WD's SDs, in the order its `sd=` names them, are one device laid end
//! to end — a concatenated SD, `concat#01` for the first WD defined, `concat#02` for the
//! next — and the WD runs as one job over it: its range, hot band, seeks and streams are
//! of the whole concatenation. An I/O reaching past an SD's end goes to the next SD's
//! start (after the last, the first's), and the first block of every SD is never touched
//! (an I/O there moves one transfer in). The I/Os in flight are the WD's own `threads=`,
//! or the RD's `threads=` (or `forthreads=`) shared by all the run's WDs. As in vdbench:
//! the SDs must exist (nothing is made or grown), and neither data validation nor
//! `formatsds=` goes with it.

use super::{lun_size, wd_shares, JobTag, Pair, Region};
use crate::model::{range_bytes, Sd};
use crate::runs::{Run, RunRate, WdRun};
use anyhow::{bail, Result};
use fathom::JobSpec;

use super::{JobOpts, Place};

/// The run's jobs: one per WD, over its concatenated SD.
pub(super) fn concat_jobs(
    run: &Run,
    rate: RunRate,
    jo: &JobOpts,
    place: &Place,
) -> Result<Vec<(JobSpec, JobTag)>> {
    if jo.validate {
        bail!(
            "data validation (-v) and concatenatesds=yes may not be used together (as in vdbench)"
        );
    }
    if place.hosts.len() > 1 {
        bail!(
            "rd={}: concatenatesds=yes on several hosts is not implemented (run it on one)",
            run.rd
        );
    }
    let shares = wd_shares(run)?;
    let mut parts = Vec::new();
    for w in &run.wds {
        parts.push(concatenation(run, w, jo)?);
    }
    // maxdata= up to 100 is a multiple of the SDs' sizes, each SD once.
    let mut seen: Vec<&str> = Vec::new();
    let mut total_sds = 0u64;
    for (w, c) in run.wds.iter().zip(&parts) {
        for (s, &z) in w.sds.iter().zip(&c.sizes) {
            if !seen.contains(&s.name.as_str()) {
                seen.push(&s.name);
                total_sds += z;
            }
        }
    }
    let maxdata = run
        .pace
        .maxdata
        .map(|m| if m <= 100.0 { m * total_sds as f64 } else { m });
    let njobs = run.wds.len().max(1) as f64;
    let mut out = Vec::new();
    for ((w, c), share) in run.wds.iter().zip(parts).zip(shares) {
        let pair = Pair {
            run,
            w,
            s: &c.sd,
            jo,
            region: c.region,
            hosts: 1.0,
            split: 1.0,
            threads: c.threads,
        };
        let mut o = pair.where_and_what();
        for (k, v) in o.iter_mut() {
            if k == "filename" {
                *v = c.files.clone();
            }
        }
        pair.flags(&mut o)?;
        let streams = match w.p.streams {
            Some(n) => pair.streams(&mut o, n, 1)?,
            None => 1.0,
        };
        pair.pace(
            &mut o,
            (rate, share),
            maxdata.map(|m| m / njobs / streams),
            streams,
        );
        let mut spec = pair.spec(&o)?;
        spec.control.concat = Some(c.sizes.clone());
        if let Some(depth) = c.shared {
            // The RD's threads, shared by all the run's WDs.
            spec.control.depth_share = Some(fathom_job::DepthShare {
                group: "rd threads".into(),
                depth,
                priority: 1,
            });
        }
        out.push((spec, JobTag::io(&w.name, &c.sd.name)));
    }
    Ok(out)
}

/// One WD's concatenated SD.
struct Concatenation {
    /// Stands for the concatenation in the job's making (its name, threads, flags).
    sd: Sd,
    /// The SDs' luns, ':'-separated for the job's filename=.
    files: String,
    /// Each SD's size in the concatenation, in order.
    sizes: Vec<u64>,
    /// The WD's region of it (see [`Region`]).
    region: Region,
    /// I/Os in flight for the WD's job.
    threads: u32,
    /// The RD's threads when they are shared by all the WDs.
    shared: Option<u32>,
}

/// A WD's concatenated SD's name: `concat#01` for the first WD defined (a WD an RD makes
/// of its `sd=` alone comes after them all).
fn concat_name(jo: &JobOpts, wd: &str) -> String {
    let all = jo.concat.as_deref().unwrap_or_default();
    let number = all.iter().position(|n| n == wd).unwrap_or(all.len()) + 1;
    format!("concat#{number:02}")
}

fn concatenation(run: &Run, w: &WdRun, jo: &JobOpts) -> Result<Concatenation> {
    let what = format!("rd={} wd={}", run.rd, w.name);
    let name = concat_name(jo, &w.name);
    if w.p.rhpct > 0.0 || w.p.whpct > 0.0 {
        bail!("{what}: rhpct=/whpct= with concatenatesds=yes is not implemented (vdbench does not allow it either)");
    }
    if w.p.priority.is_some() {
        bail!("{what}: priority= with concatenatesds=yes is not implemented");
    }
    let mut sizes = Vec::new();
    let mut luns = Vec::new();
    for s in &w.sds {
        if s.offset != 0 {
            bail!(
                "{what} sd={}: offset= with concatenatesds=yes is not implemented",
                s.name
            );
        }
        if s.range.is_some() {
            bail!(
                "{what} sd={}: an SD's range= with concatenatesds=yes is not implemented; give \
                 the WD range= (it is of the whole concatenation)",
                s.name
            );
        }
        if s.flags != w.sds[0].flags {
            bail!(
                "{what}: its SDs' openflags= differ ({} and {}); with concatenatesds=yes they \
                 must agree (or give the WD openflags=)",
                w.sds[0].name,
                s.name
            );
        }
        let have = lun_size(&s.lun).filter(|&z| z > 0);
        let size = match (s.size, have) {
            (Some(z), Some(h)) if h >= z => z,
            (None, Some(h)) => h,
            _ => bail!(
                "sd={}: lun={} does not exist or is smaller than size=; as in vdbench, SDs are \
                 not made or grown with concatenatesds=yes (make them first, e.g. in a run \
                 without it)",
                s.name,
                s.lun
            ),
        };
        let unit = w.p.xfer.max().max(512);
        if size < 2 * unit {
            bail!(
                "sd={}: its {size} bytes hold no second {unit}-byte transfer (the first block \
                 of a concatenated SD is never touched)",
                s.name
            );
        }
        sizes.push(size);
        luns.push(s.lun.replace(':', "\\:"));
    }
    let total: u64 = sizes.iter().sum();
    let unit = w.p.xfer.max().max(512);
    let (a, b) = w.p.range.unwrap_or((0.0, 100.0));
    if b > 100.0 && b <= 200.0 {
        bail!("{what}: a range= wrapping round the end with concatenatesds=yes is not implemented");
    }
    // As vdbench: a concatenated SD's first block is never touched.
    let start = (range_bytes(a, 100.0, total) / unit * unit).max(unit);
    let end_at = range_bytes(b, 200.0, total);
    if end_at > total {
        bail!("{what}: the range ends at byte {end_at}, past the concatenation's {total} bytes");
    }
    let end = end_at / unit * unit;
    if end < start + unit {
        bail!("{what}: its range of {total} bytes concatenated holds no {unit}-byte transfer");
    }
    if w.p.hotband && end - start < 1_000_000 {
        bail!(
            "{what}: the hot band holds {} bytes; vdbench needs at least a megabyte (1000000 \
             bytes)",
            end - start
        );
    }
    let (threads, shared) = match (w.p.threads, w.p.own_threads) {
        (Some(t), _) => (t, Some(t)),
        (None, Some(t)) => (t, None),
        (None, None) => bail!(
            "wd={}: for SD concatenation each WD must request a threads= value, unless the \
             RD's threads= or forthreads= gives them (as in vdbench)",
            w.name
        ),
    };
    if let Some(n) = w.p.streams {
        if threads % n != 0 {
            bail!("{what}: threads={threads} must be a multiple of streams={n}");
        }
    }
    let sd = Sd {
        name,
        lun: String::new(),
        size: None,
        threads,
        flags: w.sds[0].flags,
        offset: 0,
        align: w.sds[0].align,
        range: None,
        host: None,
        hitarea: None,
        journal: None,
    };
    Ok(Concatenation {
        sd,
        files: luns.join(":"),
        sizes,
        region: (start, end - start, total, None),
        threads,
        shared,
    })
}

/// What vdbench says of a run with concatenated SDs, for its log (and the console): the
/// concatenations made, and sequential workloads without streams.
pub fn concat_notes(run: &Run, jo: &JobOpts) -> Vec<(String, bool)> {
    let mut notes = Vec::new();
    if jo.concat.is_none() || run.wds.is_empty() {
        return notes;
    }
    for w in &run.wds {
        let name = concat_name(jo, &w.name);
        let names: Vec<&str> = w.sds.iter().map(|s| s.name.as_str()).collect();
        notes.push((
            format!(
                "Concatenated SD {name} for wd={} is sd=({})",
                w.name,
                names.join(",")
            ),
            false,
        ));
        let seq = matches!(w.p.seek, crate::model::Seek::Seq | crate::model::Seek::Eof)
            || matches!(w.p.seek, crate::model::Seek::Pct(p) if p <= 0.0);
        if seq && w.p.streams.is_none() {
            notes.push((
                format!(
                    "rd={},wd={}: 100% sequential i/o while using SD concatenation without the \
                     streams= parameter may underestimate your performance",
                    run.rd, w.name
                ),
                true,
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::super::tests::jobs_result as jobs_result_with;
    use super::*;

    fn opt<'a>(spec: &'a JobSpec, k: &str) -> Option<&'a str> {
        spec.job_options
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn each_wd_is_one_job_over_its_sds_end_to_end() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, vec![0u8; 1 << 20]).unwrap();
        std::fs::write(&b, vec![0u8; 3 << 20]).unwrap();
        let text = format!(
            "concatenatesds=yes\nsd=sd1,lun={}\nsd=sd2,lun={}\n\
             wd=wd1,sd=(sd2,sd1),xfersize=8k,rdpct=100,threads=4\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n",
            a.display(),
            b.display()
        );
        let jobs = jobs_result_with(&text).unwrap();
        assert_eq!(jobs.len(), 1);
        let (spec, tag) = &jobs[0];
        assert_eq!(tag.sd, "concat#01");
        assert_eq!(spec.control.concat, Some(vec![3 << 20, 1 << 20]));
        assert_eq!(
            spec.filenames,
            vec![b.display().to_string(), a.display().to_string()]
        );
        assert_eq!(opt(spec, "iodepth"), Some("4"));
        // The concatenation's first block is never touched; the rest is the region.
        assert_eq!(opt(spec, "offset"), Some("8192"));
        assert_eq!(
            opt(spec, "size"),
            Some(((4 << 20) - 8192).to_string().as_str())
        );
        assert!(spec.control.depth_share.is_none());
    }

    #[test]
    fn the_rds_threads_are_shared_by_all_the_wds() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        std::fs::write(&a, vec![0u8; 1 << 20]).unwrap();
        let text = format!(
            "concatenatesds=yes\nsd=sd1,lun={}\n\
             wd=wd1,sd=sd1,rdpct=100\nwd=wd2,sd=sd1,rdpct=0,range=(50,100)\n\
             rd=rd1,wd=*,iorate=max,elapsed=2,interval=1,threads=6\n",
            a.display()
        );
        let jobs = jobs_result_with(&text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[1].1.sd, "concat#02");
        for (spec, _) in &jobs {
            let g = spec.control.depth_share.as_ref().unwrap();
            assert_eq!((g.depth, g.priority), (6, 1));
        }
        assert_eq!(opt(&jobs[1].0, "offset"), Some("524288"));
    }

    #[test]
    fn a_wd_an_rd_makes_of_its_sds_comes_after_the_defined_ones() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        std::fs::write(&a, vec![0u8; 1 << 20]).unwrap();
        let text = format!(
            "concatenatesds=yes\nsd=sd1,lun={}\nwd=wd1,sd=sd1,threads=2\n\
             rd=rd1,sd=sd1,iorate=max,elapsed=2,interval=1,threads=3\n",
            a.display()
        );
        let jobs = jobs_result_with(&text).unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(
            (jobs[0].1.wd.as_str(), jobs[0].1.sd.as_str()),
            ("rd1_wd", "concat#02")
        );
    }

    #[test]
    fn what_vdbench_refuses_with_concatenation_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        std::fs::write(&a, vec![0u8; 1 << 20]).unwrap();
        let run = |extra_sd: &str, wd: &str| {
            let text = format!(
                "concatenatesds=yes\nsd=sd1,lun={}{extra_sd}\nwd=wd1,sd=sd1{wd}\n\
                 rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n",
                a.display()
            );
            jobs_result_with(&text).unwrap_err().to_string()
        };
        assert!(
            run("", "").contains("must request a threads="),
            "{}",
            run("", "")
        );
        let e = run(",size=2m", ",threads=2");
        assert!(e.contains("not made or grown"), "{e}");
        let e = run("", ",threads=2,rhpct=50");
        assert!(e.contains("rhpct"), "{e}");
        let e = run(",range=(0,50)", ",threads=2");
        assert!(e.contains("give the WD range="), "{e}");
    }
}
