//! Typed definitions: general parameters, HD, SD, WD, FSD, FWD and RD, with `default`
//! definitions applied, names resolved (`sd=sd*`, `wd=(wd1,wd2)`), and every keyword
//! either understood or refused by name.

use crate::parse::{Def, Item, Kind, ParmFile, VdbError};
use crate::value::{expand, number, secs, size, size_f};

mod build;
mod fs;
mod raw;
mod rd;
pub use fs::*;
pub use raw::*;
pub use rd::*;

/// vdbench keywords fathom knows but does not implement, with why or what to use.
const REFUSED: &[(&str, &str)] = &[
    (
        "deduphotsets",
        "dedup hot sets are not implemented; dedupratio=, dedupunit= and dedupsets= are",
    ),
    (
        "dedupdirectory",
        "deduplicated data patterns are not implemented",
    ),
    (
        "replay",
        "I/O replay is not implemented; fathom runs fio iologs (read_iolog=) instead",
    ),
    ("rg", "replay groups are not implemented"),
    (
        "port",
        "fathom's many-host runs use MPI, not vdbench's port",
    ),
    (
        "patterns",
        "patterns= is not vdbench's keyword; a data pattern file is pattern=FILE",
    ),
    ("timeout", "timeout= is not implemented"),
    ("swat", "SWAT replay is not implemented"),
    ("tape", "tape testing is not implemented"),
    ("resetbus", "bus resets are not implemented"),
    ("mirror", "mirrored SDs are not implemented"),
    ("fwd_thread_adjust", "fwd_thread_adjust is not implemented"),
    (
        "clean_port_on_exit",
        "vdbench's many-host ports are not used",
    ),
    (
        "compression",
        "compression= was replaced by compratio= in vdbench 5.03",
    ),
];

fn refuse_or_unknown(it: &Item, kind: &str, known: &[&str]) -> VdbError {
    if let Some((_, why)) = REFUSED.iter().find(|(k, _)| *k == it.key) {
        return it
            .err(format!("vdbench's {} is not implemented by fathom", it.key))
            .hint(*why);
    }
    let mut best: Option<(usize, &str)> = None;
    for c in known {
        let d = strsim::levenshtein(&it.key, c);
        if d <= (it.key.len() / 3).max(2) && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    let e = it.err(format!("not a vdbench {kind} parameter"));
    match best {
        Some((_, c)) => e.hint(format!("did you mean {c}=?")),
        None => e.hint(format!("{kind} parameters: {}", known.join(", "))),
    }
}

/// The reads data validation makes beside the workload's own (vdbench's `-vw`, `-vr`,
/// `validate=`): by default a write to a block whose key is known reads and checks the
/// block first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DvReads {
    /// `-vw`, `validate=no_preread`: no read before a write.
    pub no_pre_read: bool,
    /// `-vr`, `-v2`, `validate=read_after_write`: each write read back at once.
    pub read_after_write: bool,
    /// `validate=ignore_zero_reads`: no count of blocks validated after a run, and no
    /// failure for a run that validated none.
    pub ignore_zero_reads: bool,
}

impl DvReads {
    /// Both sets of choices together (the command line's and the parameter file's).
    pub fn or(self, o: DvReads) -> DvReads {
        DvReads {
            no_pre_read: self.no_pre_read || o.no_pre_read,
            read_after_write: self.read_after_write || o.read_after_write,
            ignore_zero_reads: self.ignore_zero_reads || o.ignore_zero_reads,
        }
    }
}

/// General parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct General {
    /// Stop after this many data validation errors.
    pub data_errors: u64,
    /// Requested compression ratio (data pattern).
    pub compratio: f64,
    /// dedupratio= (1: no dedup).
    pub dedupratio: f64,
    /// dedupunit= (required with a dedupratio above 1).
    pub dedupunit: Option<u64>,
    /// dedupsets=: a count, or (when `dedupsets_pct`) a percentage of the dedup units.
    pub dedupsets: f64,
    /// See `dedupsets`.
    pub dedupsets_pct: bool,
    /// `validate=yes`: as `-v`.
    pub validate: bool,
    /// `validate=no_preread` / `read_after_write`: as `-vw` / `-vr`.
    pub dv_reads: DvReads,
    /// `journal=yes` or a folder: as `-j`.
    pub journal: Option<String>,
    /// `create_anchors=yes`: make missing FSD anchors.
    pub create_anchors: bool,
    /// `startcmd=` / `endcmd=`: shell commands before the first and after the last run.
    pub startcmd: Option<String>,
    /// See `startcmd`.
    pub endcmd: Option<String>,
    /// `loop=`: run every RD again, a number of times or for a time.
    pub repeat: Option<LoopSpec>,
    /// `monitor=FILE`: a file read at the end of each interval (`end_rd` / `shutdown`
    /// end the run, `end_vdbench` / `terminate` end the execution).
    pub monitor: Option<String>,
    /// `formatsds=yes`: write every SD the runs use whole before the first run.
    pub formatsds: bool,
    /// `formatxfersize=`: the transfer size of that format run.
    pub formatxfersize: Option<u64>,
    /// `pattern=FILE`: every write's data from this file (see `crate::pattern`).
    pub pattern: Option<String>,
    /// `showlba=yes`: each raw run's I/O trace in `HOST-0.showlba.txt`.
    pub showlba: bool,
    /// `concatenatesds=yes`: each WD's SDs, in its order, are one device laid end to end
    /// (see `crate::jobs::concat_jobs`).
    pub concat: bool,
    /// compratio= was given (even `compratio=1`): vdbench refuses it beside pattern=.
    pub compratio_coded: bool,
}

/// How often every run is repeated (`loop=` in the file, `-l` on the command line).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoopSpec {
    /// Until stopped (`-l` alone).
    Forever,
    /// This many passes in all (`loop=3`).
    Count(u64),
    /// Passes begin until this many seconds have gone since the first (`loop=2h`,
    /// `-l 600`); a pass that has begun ends whole.
    Secs(f64),
}

impl LoopSpec {
    /// `loop=`'s value (a number is a count) or `-l`'s (a number is seconds); s, m
    /// and h suffixes are times in both.
    pub fn parse(v: &str, bare_is_secs: bool) -> Result<LoopSpec, String> {
        let v = v.trim();
        let bad =
            || format!("'{v}': give a number of passes (loop=3) or a time (loop=30m, 2h, 600s)");
        if v.is_empty() {
            return Err(bad());
        }
        if !bare_is_secs && v.bytes().all(|b| b.is_ascii_digit()) {
            return match v.parse::<u64>() {
                Ok(0) => Err(format!("'{v}': at least one pass")),
                Ok(n) => Ok(LoopSpec::Count(n)),
                Err(_) => Err(bad()),
            };
        }
        // A time, as every other time in a parameter file.
        match secs(v) {
            Ok(t) if t >= 0.0 && t.is_finite() => Ok(LoopSpec::Secs(t)),
            _ => Err(bad()),
        }
    }
}

impl Default for General {
    fn default() -> Self {
        General {
            data_errors: 50,
            compratio: 1.0,
            dedupratio: 1.0,
            dedupunit: None,
            dedupsets: 5.0,
            dedupsets_pct: true,
            validate: false,
            dv_reads: DvReads::default(),
            journal: None,
            create_anchors: false,
            startcmd: None,
            endcmd: None,
            repeat: None,
            monitor: None,
            formatsds: false,
            formatxfersize: None,
            pattern: None,
            showlba: false,
            concat: false,
            compratio_coded: false,
        }
    }
}

const GENERAL_KEYS: &[&str] = &[
    "data_errors",
    "compratio",
    "dedupratio",
    "dedupunit",
    "dedupsets",
    "dedupflipflop",
    "validate",
    "journal",
    "messagescan",
    "jvms",
    "histogram",
    "report",
    "create_anchors",
    "startcmd",
    "start_cmd",
    "endcmd",
    "end_cmd",
    "formatsds",
    "formatxfersize",
    "loop",
    "monitor",
    "debug",
    "include",
    "abort_failed_skew",
    "fwd_thread_adjust",
    "showlba",
    "pattern",
    "concatenatesds",
];

fn yes(it: &Item) -> Result<bool, VdbError> {
    match it.one()?.to_ascii_lowercase().as_str() {
        "yes" | "y" | "true" | "1" => Ok(true),
        "no" | "n" | "false" | "0" => Ok(false),
        _ => Err(it.err("use yes or no")),
    }
}

fn num(it: &Item) -> Result<f64, VdbError> {
    number(it.one()?).map_err(|e| it.err(e))
}

fn pct(it: &Item) -> Result<f64, VdbError> {
    let v = num(it)?;
    if v > 100.0 {
        return Err(it.err("a percentage, 0 to 100"));
    }
    Ok(v)
}

fn bytes(it: &Item) -> Result<u64, VdbError> {
    size(it.one()?).map_err(|e| it.err(e))
}

impl General {
    fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
        match it.key.as_str() {
            "data_errors" | "dataerrors" => self.data_errors = num(it)? as u64,
            "compratio" => {
                self.compratio = num(it)?;
                self.compratio_coded = true;
                if self.compratio < 1.0 {
                    return Err(it.err("a ratio of at least 1 (compratio=2 is 2:1)"));
                }
            }
            "dedupratio" => {
                self.dedupratio = num(it)?;
                if self.dedupratio < 1.0 {
                    return Err(it.err("a ratio of at least 1 (dedupratio=2 is 2:1)"));
                }
            }
            "dedupunit" => {
                let u = bytes(it)?;
                if u < 512 || u % 512 != 0 {
                    return Err(it.err("a multiple of 512 bytes (e.g. dedupunit=8k)"));
                }
                self.dedupunit = Some(u);
            }
            "dedupsets" => {
                let v = it.one()?;
                self.dedupsets_pct = v.ends_with('%');
                self.dedupsets = number(v.trim_end_matches('%')).map_err(|e| it.err(e))?;
                if self.dedupsets <= 0.0 || (self.dedupsets_pct && self.dedupsets > 100.0) {
                    return Err(it.err(
                        "a count of sets, or a percentage of the dedup units (dedupsets=5%)",
                    ));
                }
            }
            "dedupflipflop" => {
                if !matches!(it.one()?.to_ascii_lowercase().as_str(), "no" | "n") {
                    return Err(it
                        .err("dedupflipflop=yes (or hot) is not implemented")
                        .hint(
                            "leave it out: duplicate blocks are rewritten with their set's content",
                        ));
                }
            }
            "validate" => {
                // vdbench: any value turns validation on, `no` anywhere off; each
                // value may be shortened to a prefix.
                let mut on = true;
                for v in &it.list {
                    let v = v.to_ascii_lowercase();
                    let is = |word: &str| !v.is_empty() && word.starts_with(v.as_str());
                    if is("no") {
                        on = false;
                    } else if is("continue_old_map") {
                        return Err(it
                            .err("validate=continue is no longer supported (as in vdbench)")
                            .hint(
                                "validate=yes starts a new map; -jr recovers one from its journal",
                            ));
                    } else if is("read_after_write") {
                        self.dv_reads.read_after_write = true;
                    } else if is("no_preread") {
                        self.dv_reads.no_pre_read = true;
                    } else if is("ignore_zero_reads") {
                        self.dv_reads.ignore_zero_reads = true;
                    } else if !(is("yes") || v == "time") {
                        return Err(it
                            .err(format!("unknown value {v} for validate="))
                            .hint("validate=yes, no, read_after_write, no_preread, ignore_zero_reads or time"));
                    }
                }
                self.validate = on;
            }
            "journal" => {
                let v = it.one()?;
                self.journal = match v.to_ascii_lowercase().as_str() {
                    "no" => None,
                    "yes" | "recover" | "noflush" | "maponly" => Some(String::new()),
                    _ => Some(v.to_string()),
                };
            }
            "messagescan" | "debug" | "abort_failed_skew" | "jvms" => {}
            "histogram" => {
                if it.list.first().map(String::as_str) != Some("default") {
                    return Err(it.err("only histogram=default is implemented (fathom's histograms are exact to 0.1%)"));
                }
            }
            "report" => {
                for w in &it.list {
                    if !matches!(
                        w.as_str(),
                        "host_detail"
                            | "slave_detail"
                            | "sd_detail"
                            | "no_sd_detail"
                            | "run_detail"
                            | "all"
                    ) {
                        return Err(it.err(format!("report={w} is not implemented")));
                    }
                }
            }
            "create_anchors" => self.create_anchors = yes(it)?,
            "startcmd" | "start_cmd" => self.startcmd = Some(it.raw.trim_matches('"').to_string()),
            "endcmd" | "end_cmd" => self.endcmd = Some(it.raw.trim_matches('"').to_string()),
            "formatsds" => self.formatsds = yes(it)?,
            "formatxfersize" => {
                let x = bytes(it)?;
                if x < 512 || x % 512 != 0 {
                    return Err(it.err("a multiple of 512 bytes (e.g. formatxfersize=1m)"));
                }
                self.formatxfersize = Some(x);
            }
            "loop" => self.repeat = Some(LoopSpec::parse(it.one()?, false).map_err(|e| it.err(e))?),
            "monitor" => self.monitor = Some(it.one()?.to_string()),
            // vdbench reads any word beginning with y as yes.
            "showlba" => self.showlba = it.one()?.to_ascii_lowercase().starts_with('y'),
            // As vdbench: a word beginning with y or n.
            "concatenatesds" => {
                let v = it.one()?.to_ascii_lowercase();
                self.concat = match v.chars().next() {
                    Some('y') => true,
                    Some('n') => false,
                    _ => return Err(it.err("concatenatesds= is yes or no")),
                };
            }
            "pattern" => {
                if it.list.len() > 1 {
                    return Err(it.err("only one pattern= file may be given"));
                }
                if self.pattern.is_some() {
                    return Err(it.err("pattern= may be given only once"));
                }
                self.pattern = Some(it.one()?.to_string());
            }
            _ => return Err(refuse_or_unknown(it, "general", GENERAL_KEYS)),
        }
        Ok(())
    }
}

/// A host.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hd {
    /// Name.
    pub name: String,
    /// `system=`: the host's address.
    pub system: Option<String>,
}

const HD_KEYS: &[&str] = &[
    "system", "vdbench", "user", "shell", "jvms", "clients", "mount",
];

/// Known names by kind, for resolving `sd=sd*` and `wd=(wd1,wd2)`.
#[derive(Debug, Default)]
struct Names {
    sd: Vec<String>,
    wd: Vec<String>,
    fsd: Vec<String>,
    fwd: Vec<String>,
}

fn glob(pat: &str, name: &str) -> bool {
    match pat.split_once('*') {
        None => pat == name,
        Some((a, b)) => name.len() >= a.len() + b.len() && name.starts_with(a) && name.ends_with(b),
    }
}

impl Names {
    fn resolve(&self, it: &Item, known: &[String], kind: &str) -> Result<Vec<String>, VdbError> {
        let mut out: Vec<String> = Vec::new();
        for w in &it.list {
            let hits: Vec<&String> = known.iter().filter(|n| glob(w, n)).collect();
            if hits.is_empty() {
                let e = it.err(format!("no {kind} named '{w}'"));
                return Err(if known.is_empty() {
                    e.hint(format!("define the {kind}s before the lines that use them"))
                } else {
                    e.hint(format!("{kind}s defined above: {}", known.join(", ")))
                });
            }
            for h in hits {
                if !out.contains(h) {
                    out.push(h.clone());
                }
            }
        }
        Ok(out)
    }
}

/// A whole parameter file, typed.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// General parameters.
    pub general: General,
    /// Hosts.
    pub hds: Vec<Hd>,
    /// Storage.
    pub sds: Vec<Sd>,
    /// Workloads.
    pub wds: Vec<Wd>,
    /// File systems.
    pub fsds: Vec<Fsd>,
    /// File workloads (`format` excluded).
    pub fwds: Vec<Fwd>,
    /// `fwd=format`: how trees are built.
    pub format_fwd: Option<FwdParams>,
    /// Runs.
    pub rds: Vec<Rd>,
}

impl Model {
    /// Type a parameter file.
    pub fn from_parm(pf: &ParmFile) -> Result<Model, VdbError> {
        build::Builder::build(pf)
    }

    /// The SD named `n`.
    pub fn sd(&self, n: &str) -> &Sd {
        self.sds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved SD names exist")
    }
    /// The WD named `n`.
    pub fn wd(&self, n: &str) -> &Wd {
        self.wds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved WD names exist")
    }
    /// The FSD named `n`.
    pub fn fsd(&self, n: &str) -> &Fsd {
        self.fsds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved FSD names exist")
    }
    /// The FWD named `n`.
    pub fn fwd(&self, n: &str) -> &Fwd {
        self.fwds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved FWD names exist")
    }
}

/// Split a general parameter file's definitions by kind (for the `-s` listing).
pub fn count_kind(pf: &ParmFile, k: Kind) -> usize {
    pf.defs
        .iter()
        .filter(|d: &&Def| d.kind == k && d.name != "default")
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::Path;

    fn model(s: &str) -> Result<Model, VdbError> {
        Model::from_parm(&crate::parse::read_str(Path::new("t"), s, &HashMap::new())?)
    }

    #[test]
    fn defaults_wildcards_and_overrides() {
        let m = model(
            "sd=default,size=1m,threads=4\nsd=sd1,lun=/tmp/a\nsd=sd2,lun=/tmp/b,threads=2\n\
             wd=wd1,sd=sd*,xfersize=(4k,30,64k,70),rdpct=70\nrd=rd1,wd=wd*,iorate=curve,forthreads=(1-4,d)\n",
        )
        .unwrap();
        assert_eq!(m.sds.len(), 2);
        assert_eq!(m.sds[0].threads, 4);
        assert_eq!(m.sds[1].threads, 2);
        assert_eq!(m.sds[1].size, Some(1 << 20));
        assert_eq!(m.wds[0].sds, vec!["sd1", "sd2"]);
        assert_eq!(
            m.wds[0].p.xfer,
            Xfer::Split(vec![(4096, 30.0), (65536, 70.0)])
        );
        assert_eq!(m.rds[0].rate, Rate::Curve);
        assert_eq!(
            m.rds[0].loops,
            vec![(
                "threads".to_string(),
                vec!["1".into(), "2".into(), "4".into()]
            )]
        );
    }

    #[test]
    fn jvms_is_accepted_without_effect() {
        // Common in public parameter files: vdbench's Java processes per host.
        let m = model(
            "jvms=4\nhd=default,jvms=8,shell=ssh\nhd=hd1,system=localhost\nsd=sd1,lun=/x\n\
             wd=wd1,sd=sd1\nrd=rd1,wd=wd1,elapsed=4,interval=1\n",
        )
        .expect("jvms= is accepted");
        assert_eq!(m.hds.len(), 1);
    }

    #[test]
    fn ranges_take_percentages_and_bytes_and_refuse_wrapping() {
        let m = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,range=(12.5,37.5)\nrd=rd1,wd=wd1\n").unwrap();
        assert_eq!(m.wds[0].p.range, Some((12.5, 37.5)));
        let m = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,range=(1g,2g)\nrd=rd1,wd=wd1\n").unwrap();
        assert_eq!(
            m.wds[0].p.range,
            Some(((1u64 << 30) as f64, (2u64 << 30) as f64))
        );
        assert!(!m.wds[0].p.hotband);
        let m = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,hotband=(10,20)\nrd=rd1,wd=wd1\n").unwrap();
        assert!(m.wds[0].p.hotband);
        assert_eq!(m.wds[0].p.range, Some((10.0, 20.0)));
        // An end from 100 to 200 percent wraps round the SD's end (less than 100% in all).
        let m = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,range=(90,110)\nrd=rd1,wd=wd1\n").unwrap();
        assert_eq!(m.wds[0].p.range, Some((90.0, 110.0)));
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,range=(50,150)\nrd=rd1,wd=wd1\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("range"));
        assert!(e.to_string().contains("100% or more"), "{e}");
        let e =
            model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,hotband=(90,110)\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("wraps"), "{e}");
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,range=(50,40)\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("from < to"), "{e}");
    }

    #[test]
    fn refused_and_unknown_keywords_are_named() {
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,replay=x\nrd=rd1,wd=wd1\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("replay"));
        assert!(e.to_string().contains("not implemented"), "{e}");
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,streams=1\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("at least two streams"), "{e}");
        // A leading part is vdbench's abbreviation; a misspelling is not.
        let m = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,rdpc=50\nrd=rd1,wd=wd1\n").unwrap();
        assert_eq!(m.wds[0].p.rdpct, 50.0);
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,rdpcx=50\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("did you mean rdpct="), "{e}");
        assert_eq!(e.at.line, 2);
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd9\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("no SD named 'sd9'"), "{e}");
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,elapsed=1,interval=1\n")
            .unwrap_err();
        assert!(e.to_string().contains("at least twice"), "{e}");
    }

    #[test]
    fn count_makes_numbered_sds() {
        let m = model("sd=sd,lun=/dev/loop,count=(0,3)\nwd=wd1,sd=sd*\nrd=r,wd=wd1\n").unwrap();
        let luns: Vec<&str> = m.sds.iter().map(|s| s.lun.as_str()).collect();
        assert_eq!(luns, vec!["/dev/loop0", "/dev/loop1", "/dev/loop2"]);
    }

    #[test]
    fn fs_tree_counts() {
        let m = model("fsd=fsd1,anchor=/tmp/t,depth=2,width=3,files=4,size=8k\nfwd=fwd1,fsd=fsd1,operation=read\nrd=rd1,fwd=fwd1,format=yes\n").unwrap();
        assert_eq!(m.fsds[0].total_files(), 36);
        assert_eq!(m.rds[0].pace.format, Format::Yes);
    }
}
