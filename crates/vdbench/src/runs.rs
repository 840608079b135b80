//! Runs: each RD expands into one run per combination of its for-loops (the first loop
//! written is the outermost, a list of rates the innermost), with the RD's workload
//! parameters laid over each WD's and the loop's values over both.

use crate::model::{positive, Fsd, FwdParams, Model, Pace, Rate, Sd, WdParams};
use crate::parse::{At, Item, VdbError};

/// The rate a run asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunRate {
    /// Uncontrolled.
    Max,
    /// I/Os (operations) per second.
    Fixed(f64),
    /// A curve: the max run, then points of it.
    Curve,
}

/// A WD as one run uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct WdRun {
    /// Name.
    pub name: String,
    /// Parameters after the RD's and the loop's.
    pub p: WdParams,
    /// Its SDs.
    pub sds: Vec<Sd>,
    /// Its host (`host=`; None: its SDs' hosts, or every host).
    pub host: Option<String>,
}

/// An FWD as one run uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct FwdRun {
    /// Name.
    pub name: String,
    /// Parameters after the RD's and the loop's.
    pub p: FwdParams,
    /// Its FSDs (shape after the loop's).
    pub fsds: Vec<Fsd>,
    /// Its host (`host=`; None: every host).
    pub host: Option<String>,
}

/// One run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The RD's name.
    pub rd: String,
    /// Loop values, as `key=value` words for the banner.
    pub loops: Vec<(String, String)>,
    /// Rate.
    pub rate: RunRate,
    /// Raw workloads.
    pub wds: Vec<WdRun>,
    /// File-system workloads.
    pub fwds: Vec<FwdRun>,
    /// `fwd=format` parameters (threads, xfersize) for building trees.
    pub format_fwd: Option<FwdParams>,
    /// What the banner lists after `For loops:` (`xfersize=4k`, ...), in vdbench's order.
    pub shown: Vec<String>,
    /// Length, reporting, warmup, pause, data limit (multiples of the SD sizes stay as
    /// given, up to 100), arrivals, format and curve: the RD's, with this run's loop
    /// values.
    pub pace: Pace,
}

impl Run {
    /// Raw (SD/WD) or file system (FSD/FWD).
    pub fn is_fs(&self) -> bool {
        !self.fwds.is_empty()
    }
    /// `For loops: xfersize=4k threads=8`, or `For loops: None`, as vdbench's banner
    /// lists them (the RD's workload parameters too).
    pub fn loop_text(&self) -> String {
        if self.shown.is_empty() {
            return "For loops: None".to_string();
        }
        format!("For loops: {}", self.shown.join(" "))
    }
    /// The threads the run asks for (the first SD's or FWD's, as the flat file shows).
    pub fn threads(&self) -> u32 {
        if let Some(w) = self.wds.first() {
            return w
                .p
                .threads
                .unwrap_or_else(|| w.sds.first().map_or(8, |s| s.threads));
        }
        self.fwds.first().map_or(1, |f| f.p.threads)
    }
}

fn item(key: &str, value: &str) -> Item {
    Item {
        key: key.to_string(),
        raw: value.to_string(),
        list: vec![value.to_string()],
        at: At::default(),
    }
}

/// vdbench's elapsed time for a run that ends when its work is done (a format).
pub const NO_ELAPSED: f64 = 99_999_998.0;

/// `formatsds=yes`: the run vdbench puts first, SD_format, writing every SD the raw
/// runs use whole, in order, two threads each, as fast as it goes (128k transfers, 512
/// bytes where an SD is under 128k, or formatxfersize=).
pub fn format_run(m: &Model, runs: &[Run]) -> Option<Run> {
    format_run_of(m, runs, None)
}

/// The SD_format run over the SDs named in `only` (None: every SD the raw runs use).
fn format_run_of(m: &Model, runs: &[Run], only: Option<&[String]>) -> Option<Run> {
    let mut sds: Vec<&Sd> = Vec::new();
    for s in runs
        .iter()
        .flat_map(|r| r.wds.iter())
        .flat_map(|w| w.sds.iter())
    {
        if only.is_some_and(|o| !o.contains(&s.name)) {
            continue;
        }
        if !sds.iter().any(|x| x.name == s.name) {
            sds.push(s);
        }
    }
    if sds.is_empty() {
        return None;
    }
    // The SDs' sizes as the runs see them: size=, else the lun's own.
    let smallest = sds
        .iter()
        .filter_map(|s| s.size.or_else(|| crate::jobs::lun_size(&s.lun)))
        .min()
        .unwrap_or(u64::MAX);
    let xfer =
        m.general
            .formatxfersize
            .unwrap_or(if smallest < 128 << 10 { 512 } else { 128 << 10 });
    let wds = sds
        .iter()
        .map(|s| WdRun {
            name: format!("SD_format_{}", s.name),
            p: WdParams {
                xfer: crate::model::Xfer::Fixed(xfer),
                rdpct: 0.0,
                seek: crate::model::Seek::Eof,
                threads: Some(2),
                ..WdParams::default()
            },
            sds: vec![(*s).clone()],
            host: None,
        })
        .collect();
    Some(Run {
        rd: "SD_format".into(),
        loops: Vec::new(),
        // What vdbench's banner says of its format run.
        shown: vec!["threads=2".into(), "iorate=max".into()],
        rate: RunRate::Max,
        wds,
        fwds: Vec::new(),
        format_fwd: None,
        pace: Pace {
            elapsed: NO_ELAPSED,
            interval: 1.0,
            ..Pace::default()
        },
    })
}

/// As vdbench without formatsds=: the SDs of the raw runs whose lun is a file (not under
/// /dev) that does not exist or is shorter than its size=, with the lines vdbench says
/// of them, and the SD_format run it puts first to write them whole (two threads,
/// 128k transfers, 512 bytes where one is under 128k). None when every lun is there.
pub fn missing_lun_format(m: &Model, runs: &[Run]) -> Option<(Vec<String>, Run)> {
    if m.general.formatsds || m.general.concat {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    for w in runs.iter().flat_map(|r| r.wds.iter()) {
        for s in &w.sds {
            let Some(size) = s.size else { continue };
            if s.lun.starts_with("/dev/") || s.lun.starts_with("\\\\") || names.contains(&s.name) {
                continue;
            }
            if crate::jobs::lun_size(&s.lun).is_some_and(|have| have >= size) {
                continue;
            }
            if said.is_empty() {
                said.push(
                    "Vdbench will attempt to expand a disk file if the requested file size is a multiple of 1mb"
                        .to_string(),
                );
            }
            let host = w
                .host
                .as_deref()
                .or(s.host.as_deref())
                .unwrap_or("localhost");
            said.push(format!(
                "lun={} does not exist or is too small. host={host}",
                s.lun
            ));
            names.push(s.name.clone());
        }
    }
    if names.is_empty() {
        return None;
    }
    let run = format_run_of(m, runs, Some(&names))?;
    if m.general.formatxfersize.is_none()
        && run
            .wds
            .iter()
            .any(|w| w.p.xfer == crate::model::Xfer::Fixed(512))
    {
        said.push("The creation of a very small file causes xfersize=512 to be set".to_string());
    }
    Some((said, run))
}

/// Every run of the model, in order.
pub fn expand(m: &Model) -> Result<Vec<Run>, VdbError> {
    let mut out = Vec::new();
    for rd in &m.rds {
        let mut dims: Vec<(String, Vec<String>)> = rd.loops.clone();
        let mut base_rate = match &rd.rate {
            Rate::Max => RunRate::Max,
            Rate::Curve => RunRate::Curve,
            Rate::Fixed(v) if v.len() == 1 => RunRate::Fixed(v[0]),
            Rate::Fixed(v) => {
                dims.push((
                    "iorate".into(),
                    v.iter().map(|r| crate::value::show_num(*r)).collect(),
                ));
                RunRate::Fixed(v[0])
            }
        };
        if dims.iter().any(|(k, _)| k == "iorate") && rd.rate == Rate::Curve {
            return Err(VdbError::new(
                &At::default(),
                Some("foriorate"),
                format!("rd={}: a curve and a list of rates together", rd.name),
            ));
        }
        let combos = dims
            .iter()
            .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
            .unwrap_or(usize::MAX);
        if combos > 100_000 {
            return Err(VdbError::new(
                &At::default(),
                Some("rd"),
                format!("rd={}: its for-loops make {combos} runs; fathom runs at most 100000 from one RD", rd.name),
            ));
        }
        // Every combination: an odometer whose last digit turns fastest.
        let mut idx = vec![0usize; dims.len()];
        loop {
            let combo: Vec<(String, String)> = dims
                .iter()
                .zip(&idx)
                .map(|((k, v), i)| (k.clone(), v[*i].clone()))
                .collect();
            let mut run = one_run(m, rd, &combo)?;
            if let Some((_, r)) = combo.iter().find(|(k, _)| k == "iorate") {
                base_rate = RunRate::Fixed(r.parse().unwrap_or(1.0));
            }
            run.rate = base_rate;
            out.push(run);
            let mut d = dims.len();
            loop {
                if d == 0 {
                    break;
                }
                d -= 1;
                idx[d] += 1;
                if idx[d] < dims[d].1.len() {
                    break;
                }
                idx[d] = 0;
                if d == 0 {
                    d = usize::MAX;
                    break;
                }
            }
            if dims.is_empty() || d == usize::MAX {
                break;
            }
        }
    }
    Ok(out)
}

fn one_run(m: &Model, rd: &crate::model::Rd, combo: &[(String, String)]) -> Result<Run, VdbError> {
    let loops: Vec<(String, String)> = combo.to_vec();
    let wds = wd_runs(m, rd, combo)?;
    let fwds = fwd_runs(m, rd, combo)?;
    if wds.is_empty() && fwds.is_empty() {
        return Err(VdbError::new(
            &At::default(),
            Some("rd"),
            format!("rd={}: its WDs use none of its SDs", rd.name),
        ));
    }
    let mut shown: Vec<String> = rd
        .shown
        .iter()
        .map(|(label, param, fixed)| {
            let v = param
                .as_ref()
                .and_then(|p| combo.iter().find(|(k, _)| k == p))
                .map_or_else(|| fixed.clone(), |(_, v)| crate::value::loop_text(v));
            format!("{label}={v}")
        })
        .collect();
    // An iorate= list is vdbench's innermost loop, listed last.
    if let Some((_, v)) = combo.iter().find(|(k, _)| k == "iorate") {
        if !rd.shown.iter().any(|(l, _, _)| l == "iorate") {
            shown.push(format!("iorate={}", crate::value::loop_text(v)));
        }
    }
    Ok(Run {
        rd: rd.name.clone(),
        loops,
        shown,
        rate: RunRate::Max,
        wds,
        fwds,
        format_fwd: m.format_fwd.clone(),
        pace: rd.pace.clone(),
    })
}

/// The run's raw workloads: its WDs (or one made of sd= alone) on the SDs the RD keeps,
/// with the RD's WD parameters and this loop's values over theirs.
fn wd_runs(
    m: &Model,
    rd: &crate::model::Rd,
    combo: &[(String, String)],
) -> Result<Vec<WdRun>, VdbError> {
    let mut wds = Vec::new();
    type RawWd = (String, WdParams, Vec<String>, Option<String>);
    let raw_wds: Vec<RawWd> = if rd.wds.is_empty() && !rd.sds.is_empty() {
        vec![(
            format!("{}_wd", rd.name),
            WdParams::default(),
            rd.sds.clone(),
            None,
        )]
    } else {
        rd.wds
            .iter()
            .map(|n| {
                let w = m.wd(n);
                let sds = if rd.sds.is_empty() {
                    w.sds.clone()
                } else {
                    w.sds
                        .iter()
                        .filter(|s| rd.sds.contains(s))
                        .cloned()
                        .collect()
                };
                (w.name.clone(), w.p.clone(), sds, w.host.clone())
            })
            .collect()
    };
    for (name, mut p, sds, host) in raw_wds {
        for it in &rd.wdp {
            if it.key == "threads" {
                p.threads = Some(positive(it)?);
            } else {
                p.apply(it)?;
            }
        }
        for (k, v) in combo {
            match k.as_str() {
                "threads" => p.threads = Some(positive(&item(k, v))?),
                "iorate" => {}
                _ => {
                    p.apply(&item(k, v))?;
                }
            }
        }
        if sds.is_empty() {
            continue;
        }
        wds.push(WdRun {
            name,
            p,
            sds: sds.iter().map(|s| m.sd(s).clone()).collect(),
            host,
        });
    }
    Ok(wds)
}

/// The run's file-system workloads, with the RD's FWD and FSD parameters and this loop's
/// values over theirs.
fn fwd_runs(
    m: &Model,
    rd: &crate::model::Rd,
    combo: &[(String, String)],
) -> Result<Vec<FwdRun>, VdbError> {
    let mut fwds = Vec::new();
    for n in &rd.fwds {
        let f = m.fwd(n);
        let mut p = f.p.clone();
        for it in &rd.fwdp {
            p.apply(it)?;
        }
        let mut fsds: Vec<Fsd> = f.fsds.iter().map(|s| m.fsd(s).clone()).collect();
        for s in &mut fsds {
            for it in &rd.fsdp {
                s.apply_shape(it)?;
            }
        }
        for (k, v) in combo {
            let it = item(k, v);
            match k.as_str() {
                "depth" | "width" | "files" | "sizes" | "totalsize" | "workingsetsize" => {
                    for s in &mut fsds {
                        s.apply_shape(&it)?;
                    }
                }
                "iorate" => {}
                _ => {
                    p.apply(&it)?;
                }
            }
        }
        fwds.push(FwdRun {
            name: f.name.clone(),
            p,
            fsds,
            host: f.host.clone(),
        });
    }
    Ok(fwds)
}

/// The `-s` listing: each run with its loop values, rate and length, no I/O.
pub fn simulate(runs: &[Run]) -> String {
    let mut s = String::new();
    for (i, r) in runs.iter().enumerate() {
        let rate = match r.rate {
            RunRate::Max => "Uncontrolled MAX".to_string(),
            RunRate::Curve => format!(
                "Uncontrolled curve, then {}",
                r.pace
                    .curve
                    .iter()
                    .map(|p| format!("{}%", crate::value::show_num(*p)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            RunRate::Fixed(v) => crate::value::show_num(v),
        };
        let what = if r.is_fs() {
            format!(
                "fwd={}",
                r.fwds
                    .iter()
                    .map(|w| w.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        } else {
            format!(
                "wd={}",
                r.wds
                    .iter()
                    .map(|w| w.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        s.push_str(&format!(
            "run {:>3}: rd={}; {what}; I/O rate: {rate}; elapsed={}{}; {}\n",
            i + 1,
            r.rd,
            crate::value::show_num(r.pace.elapsed),
            if r.pace.warmup > 0.0 {
                format!(" warmup={}", crate::value::show_num(r.pace.warmup))
            } else {
                String::new()
            },
            r.loop_text()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::Path;

    fn runs(s: &str) -> Vec<Run> {
        let pf = crate::parse::read_str(Path::new("t"), s, &HashMap::new()).unwrap();
        expand(&Model::from_parm(&pf).unwrap()).unwrap()
    }

    #[test]
    fn loops_nest_first_outermost_and_rates_innermost() {
        let r = runs(
            "sd=sd1,lun=/x,size=1m\nwd=wd1,sd=sd1\n\
             rd=rd1,wd=wd1,forxfersize=(4k,8k),forthreads=(1,2,4),iorate=(100,200)\n",
        );
        assert_eq!(r.len(), 12);
        assert_eq!(
            r[0].loops,
            vec![
                ("xfersize".into(), "4k".into()),
                ("threads".into(), "1".into()),
                ("iorate".into(), "100".into())
            ]
        );
        assert_eq!(r[1].rate, RunRate::Fixed(200.0));
        assert_eq!(r[2].loops[1].1, "2");
        assert_eq!(r[6].wds[0].p.xfer, crate::model::Xfer::Fixed(8192));
        assert_eq!(r[11].wds[0].p.threads, Some(4));
    }

    #[test]
    fn rd_parameters_override_and_sd_only_runs_get_a_workload() {
        let r = runs("sd=sd1,lun=/x,size=1m\nsd=sd2,lun=/y,size=1m\nrd=prep,sd=*,xfersize=256k,rdpct=0,seekpct=eof,maxdata=1\n");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].wds[0].sds.len(), 2);
        assert_eq!(r[0].wds[0].p.rdpct, 0.0);
        assert_eq!(r[0].wds[0].p.seek, crate::model::Seek::Eof);
        assert_eq!(r[0].pace.maxdata, Some(1.0));
        assert!(simulate(&r).contains("rd=prep"));
    }
}
