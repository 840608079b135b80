//! Run definitions: rates, arrivals, format modes, the RD and its for-loops.
use super::*;

/// The I/O rate of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Rate {
    /// As fast as it goes.
    Max,
    /// I/Os (or operations) per second; a list makes one run each.
    Fixed(Vec<f64>),
    /// A max run, then these percentages of it.
    Curve,
}

/// Arrival times of a fixed rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Exponential (vdbench's default): Poisson arrivals.
    Exponential,
    /// Evenly spaced.
    Deterministic,
}

/// What an RD does to an FSD's tree before it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    /// Nothing.
    No,
    /// Delete and rebuild.
    Yes,
    /// Build what is missing.
    Restart,
    /// Build, then skip the run.
    Only,
    /// Build what is missing, then skip the run.
    RestartOnly,
    /// Delete the tree, no run.
    Clean,
}

/// A run definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Rd {
    /// Name.
    pub name: String,
    /// WDs, resolved.
    pub wds: Vec<String>,
    /// `sd=` without `wd=`: a workload over these SDs, resolved.
    pub sds: Vec<String>,
    /// FWDs, resolved.
    pub fwds: Vec<String>,
    /// Workload overrides.
    pub wdp: Vec<Item>,
    /// File workload overrides.
    pub fwdp: Vec<Item>,
    /// FSD shape overrides.
    pub fsdp: Vec<Item>,
    /// Rate.
    pub rate: Rate,
    /// How its runs go (every run of the RD starts from these).
    pub pace: Pace,
    /// For-loops in the order written: (keyword without `for`, values as written).
    pub loops: Vec<(String, Vec<String>)>,
    /// What vdbench's banner lists as the run's `For loops:`, in its order: its for-loops
    /// and the workload parameters given on the RD (vdbench makes those one-value loops),
    /// a later one of a kind moved to the end: (label, the loop's parameter or None, the
    /// fixed value's text).
    pub shown: Vec<(String, Option<String>, String)>,
}

/// How a run goes: its length and reporting, warmup and pause, data limit, arrivals, tree
/// format and curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Pace {
    /// Curve points, percent.
    pub curve: Vec<f64>,
    /// End a curve once the response time passes this, ms.
    pub stopcurve: Option<f64>,
    /// Seconds measured.
    pub elapsed: f64,
    /// Reporting interval, seconds.
    pub interval: f64,
    /// Warmup seconds (reported, excluded from the average).
    pub warmup: f64,
    /// Pause after the run, seconds.
    pub pause: f64,
    /// Stop after this many bytes (a value up to 100: that many times the SDs' size).
    pub maxdata: Option<f64>,
    /// Arrivals.
    pub arrival: Arrival,
    /// File-system format.
    pub format: Format,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            curve: vec![10.0, 50.0, 70.0, 80.0, 90.0, 100.0],
            stopcurve: None,
            elapsed: 30.0,
            interval: 1.0,
            warmup: 0.0,
            pause: 0.0,
            maxdata: None,
            arrival: Arrival::Exponential,
            format: Format::No,
        }
    }
}

impl Default for Rd {
    fn default() -> Self {
        Rd {
            name: String::new(),
            wds: vec![],
            sds: vec![],
            fwds: vec![],
            wdp: vec![],
            fwdp: vec![],
            fsdp: vec![],
            rate: Rate::Max,
            pace: Pace::default(),
            loops: vec![],
            shown: vec![],
        }
    }
}

/// The RD's keywords (in alphabetical order), for "did you mean".
pub(super) const RD_KEYS: &[&str] = &[
    "compratio",
    "curve",
    "distribution",
    "elapsed",
    "fileio",
    "fileselect",
    "forcompratio",
    "fordepth",
    "forfiles",
    "forhitarea",
    "foriorate",
    "format",
    "foroperations",
    "forrdpct",
    "forrhpct",
    "forseekpct",
    "forsizes",
    "forthreads",
    "fortotalsize",
    "forwhpct",
    "forwidth",
    "forworkingsetsize",
    "forwss",
    "forxfersize",
    "fwd",
    "fwdrate",
    "hitarea",
    "interval",
    "iorate",
    "maxdata",
    "openflags",
    "operation",
    "operations",
    "pause",
    "rdpct",
    "rhpct",
    "sd",
    "seekpct",
    "skew",
    "stopcurve",
    "threads",
    "warmup",
    "wd",
    "whpct",
    "xfersize",
];

/// Every for-loop keyword, and the parameter it varies.
pub const FOR_KEYS: &[(&str, &str)] = &[
    ("forxfersize", "xfersize"),
    ("forthreads", "threads"),
    ("forrdpct", "rdpct"),
    ("forseekpct", "seekpct"),
    ("forrhpct", "rhpct"),
    ("forwhpct", "whpct"),
    ("forhitarea", "hitarea"),
    ("forcompratio", "compratio"),
    ("foriorate", "iorate"),
    ("foroperations", "operation"),
    ("fordepth", "depth"),
    ("forwidth", "width"),
    ("forfiles", "files"),
    ("forsizes", "sizes"),
    ("fortotalsize", "totalsize"),
    ("forworkingsetsize", "workingsetsize"),
    ("forwss", "workingsetsize"),
];

pub(super) fn rate(it: &Item) -> Result<Rate, VdbError> {
    match it.list.first().map(|s| s.to_ascii_lowercase()).as_deref() {
        Some("max") if it.list.len() == 1 => Ok(Rate::Max),
        Some("curve") if it.list.len() == 1 => Ok(Rate::Curve),
        _ => {
            let v = expand(it, number)?;
            if v.is_empty() || v.iter().any(|r| *r <= 0.0) {
                return Err(it.err("a rate above 0, max or curve"));
            }
            Ok(Rate::Fixed(v))
        }
    }
}

/// The RD keywords vdbench turns into one-value loops, with the label its banner shows.
const SHOWN_KEYS: &[(&str, &str)] = &[
    ("xfersize", "xfersize"),
    ("threads", "threads"),
    ("rdpct", "rdpct"),
    ("rhpct", "rhpct"),
    ("whpct", "whpct"),
    ("seekpct", "seekpct"),
    ("hitarea", "hitarea"),
    ("compratio", "comp"),
    ("depth", "depth"),
    ("width", "width"),
    ("files", "files"),
    ("sizes", "sizes"),
    ("totalsize", "totalsize"),
    ("workingsetsize", "wss"),
    ("wss", "wss"),
];

impl Rd {
    /// Keep vdbench's banner list (see [`Rd::shown`]) up to date with `it`.
    fn note_shown(&mut self, it: &Item) {
        let k = it.key.as_str();
        let (label, param) = if let Some((_, p)) = FOR_KEYS.iter().find(|(f, _)| *f == k) {
            let label = match *p {
                "compratio" => "comp",
                "workingsetsize" => "wss",
                x => x,
            };
            (label, Some(p.to_string()))
        } else if let Some((_, l)) = SHOWN_KEYS.iter().find(|(x, _)| *x == k) {
            (*l, None)
        } else {
            return;
        };
        self.shown.retain(|(l, _, _)| l != label);
        let fixed = match it.list.as_slice() {
            [one] => crate::value::loop_text(one),
            _ => it.raw.to_ascii_lowercase(),
        };
        self.shown.push((label.to_string(), param, fixed));
    }
    pub(super) fn apply(&mut self, it: &Item, names: &Names) -> Result<(), VdbError> {
        self.note_shown(it);
        match it.key.as_str() {
            "wd" => self.wds = names.resolve(it, &names.wd, "WD")?,
            "sd" => self.sds = names.resolve(it, &names.sd, "SD")?,
            "fwd" => self.fwds = names.resolve(it, &names.fwd, "FWD")?,
            "iorate" | "fwdrate" => self.rate = rate(it)?,
            "curve" => {
                self.pace.curve = expand(it, number)?;
                if self.pace.curve.is_empty() || self.pace.curve.iter().any(|p| *p <= 0.0) {
                    return Err(it.err("curve percentages must be above 0"));
                }
            }
            "stopcurve" => self.pace.stopcurve = Some(num(it)?),
            "elapsed" => self.pace.elapsed = secs(it.one()?).map_err(|e| it.err(e))?,
            "interval" => self.pace.interval = secs(it.one()?).map_err(|e| it.err(e))?,
            "warmup" => self.pace.warmup = secs(it.one()?).map_err(|e| it.err(e))?,
            "pause" => self.pace.pause = secs(it.one()?).map_err(|e| it.err(e))?,
            "maxdata" => {
                // A plain number keeps its fraction (maxdata=1.2: 1.2 times the SDs).
                let v = it.one()?;
                self.pace.maxdata = Some(match v.parse::<f64>() {
                    Ok(n) if n > 0.0 && n.is_finite() => n,
                    _ => size(v).map_err(|e| it.err(e))? as f64,
                });
            }
            "distribution" => {
                self.pace.arrival = match it.one()?.to_ascii_lowercase().as_str() {
                    "exponential" => Arrival::Exponential,
                    "deterministic" => Arrival::Deterministic,
                    "uniform" => {
                        return Err(it
                            .err("distribution=uniform is not implemented")
                            .hint("use exponential (Poisson) or deterministic"))
                    }
                    _ => return Err(it.err("use exponential, uniform or deterministic")),
                }
            }
            "format" => {
                let w: Vec<String> = it.list.iter().map(|s| s.to_ascii_lowercase()).collect();
                let w: Vec<&str> = w.iter().map(String::as_str).collect();
                self.pace.format = match w.as_slice() {
                    ["no"] => Format::No,
                    ["yes"] => Format::Yes,
                    ["restart"] => Format::Restart,
                    ["only"] | ["yes", "only"] | ["only", "yes"] => Format::Only,
                    ["restart", "only"] | ["only", "restart"] => Format::RestartOnly,
                    ["clean"] => Format::Clean,
                    _ => return Err(it.err("use no, yes, restart, only, (restart,only) or clean")),
                }
            }
            "threads" => {
                self.wdp.push(it.clone());
                self.fwdp.push(it.clone());
            }
            "operations" => {
                let mut x = it.clone();
                x.key = "operation".into();
                self.fwdp.push(x);
            }
            k if k.starts_with("for") => {
                let Some((_, param)) = FOR_KEYS.iter().find(|(f, _)| *f == k) else {
                    return Err(refuse_or_unknown(it, "RD", RD_KEYS));
                };
                let values = loop_values(it, param)?;
                if values.is_empty() {
                    return Err(it.err("a for-loop needs at least one value"));
                }
                self.loops.push((param.to_string(), values));
            }
            _ => {
                // Workload parameters, checked now, applied per run.
                let mut p = WdParams::default();
                let mut f = FwdParams::default();
                let mut s = Fsd::default();
                let w = p.apply(it)?;
                let fw = !w && f.apply(it)?;
                let sh = !w && !fw && s.apply_shape(it)?;
                if w {
                    self.wdp.push(it.clone());
                } else if fw {
                    self.fwdp.push(it.clone());
                } else if sh {
                    self.fsdp.push(it.clone());
                } else {
                    return Err(refuse_or_unknown(it, "RD", RD_KEYS));
                }
            }
        }
        Ok(())
    }
}

/// A for-loop's values, as words a parameter takes (ranges expanded).
pub(super) fn loop_values(it: &Item, param: &str) -> Result<Vec<String>, VdbError> {
    Ok(match param {
        "xfersize" | "hitarea" | "totalsize" | "workingsetsize" => expand(it, size_f)?
            .into_iter()
            .map(|v| crate::value::show_size(v as u64))
            .collect(),
        "sizes" => {
            if it.list.iter().any(|w| w.contains('-')) {
                expand(it, size_f)?
                    .into_iter()
                    .map(|v| crate::value::show_size(v as u64))
                    .collect()
            } else {
                it.list.clone()
            }
        }
        "operation" => {
            for w in &it.list {
                if !OPERATIONS.contains(&w.to_ascii_lowercase().as_str()) {
                    return Err(it.err(format!("unknown operation '{w}'")));
                }
            }
            it.list.clone()
        }
        "seekpct" => it.list.clone(),
        _ => expand(it, number)?
            .into_iter()
            .map(crate::value::show_num)
            .collect(),
    })
}
