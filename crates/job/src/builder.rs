//! Building jobs in code, with the job file's option names.
//!
//! A [`JobBuilder`] collects options in order, exactly as lines of a job section, and
//! [`JobBuilder::build`] resolves them through the same option table as a job file, so a
//! job built in code and the same job written in a file are the same [`JobSpec`], with the
//! same checks and the same error messages (located at `<builder NAME>:N`, N counting the
//! options given).
//!
//! ```
//! use fathom_job::{Engine, Job, RwKind};
//! use std::time::Duration;
//! let job = Job::builder("randread")
//!     .rw(RwKind::RandRead)
//!     .bs(4096)
//!     .size(1 << 30)
//!     .engine(Engine::IoUring)
//!     .iodepth(32)
//!     .runtime(Duration::from_secs(10))
//!     .option("rate_iops", "5000")
//!     .build()
//!     .unwrap();
//! assert_eq!(job.iodepth, 32);
//! assert_eq!(job.ioengine, "io_uring");
//! let from_file = fathom_job::JobSpec::from_fio_str(
//!     "[randread]\nrw=randread\nbs=4096\nsize=1073741824\nioengine=io_uring\n\
//!      iodepth=32\nruntime=10000ms\nrate_iops=5000\n",
//! )
//! .unwrap();
//! assert_eq!(job.bs, from_file.bs);
//! assert_eq!(job.runtime, from_file.runtime);
//!
//! let err = Job::builder("bad").option("bs", "4q").build().unwrap_err();
//! assert!(err.to_string().contains("option 'bs'"), "{err}");
//! ```

use crate::error::JobError;
use crate::ini::{RawOpt, RawSection};
use crate::spec::{JobSet, JobSpec};
use crate::words::{Dialect, Location, RwKind};
use std::time::Duration;

/// An I/O engine, by name (`ioengine=`). [`Engine::Custom`] names an engine registered at
/// run time (`fathom_engine::register_engine`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// `sync`: read(2)/write(2) with lseek.
    Sync,
    /// `psync`: pread(2)/pwrite(2).
    Psync,
    /// `vsync`: readv(2)/writev(2).
    Vsync,
    /// `pvsync`: preadv(2)/pwritev(2).
    Pvsync,
    /// `pvsync2`: preadv2(2)/pwritev2(2) with flags.
    Pvsync2,
    /// `libaio`: Linux native AIO.
    Libaio,
    /// `io_uring`.
    IoUring,
    /// `mmap`: memory-mapped copies.
    Mmap,
    /// `tokio`: tokio's file API.
    Tokio,
    /// `null`: no I/O at all (measures fathom's own overhead).
    Null,
    /// Any other engine name, e.g. one registered by the embedding program.
    Custom(String),
}

impl Engine {
    /// The `ioengine=` name.
    pub fn name(&self) -> &str {
        match self {
            Engine::Sync => "sync",
            Engine::Psync => "psync",
            Engine::Vsync => "vsync",
            Engine::Pvsync => "pvsync",
            Engine::Pvsync2 => "pvsync2",
            Engine::Libaio => "libaio",
            Engine::IoUring => "io_uring",
            Engine::Mmap => "mmap",
            Engine::Tokio => "tokio",
            Engine::Null => "null",
            Engine::Custom(n) => n,
        }
    }
}

/// Entry point of the builder API: `Job::builder("name")`.
pub struct Job;

impl Job {
    /// Start a job called `name` (the section name of a job file).
    pub fn builder(name: impl Into<String>) -> JobBuilder {
        JobBuilder {
            name: name.into(),
            opts: Vec::new(),
        }
    }
}

/// Options of one job, in order; later ones win, as in a job file.
#[derive(Debug, Clone)]
pub struct JobBuilder {
    name: String,
    opts: Vec<(String, Option<String>)>,
}

macro_rules! setters {
    ($($(#[$doc:meta])* $fn:ident: $ty:ty => $opt:literal;)*) => {
        $(
            $(#[$doc])*
            pub fn $fn(self, v: $ty) -> Self {
                self.option($opt, v.to_string())
            }
        )*
    };
}

impl JobBuilder {
    /// Any job option by its job-file name (`"rate_iops"`, `"bssplit"`), with its value
    /// written as in a fio job file (`"4k"`, `"10s"`, `"4k/50:64k/50"`).
    pub fn option(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.opts.push((name.into(), Some(value.into())));
        self
    }
    /// A flag option without a value (`"time_based"`, `"group_reporting"`).
    pub fn flag(mut self, name: impl Into<String>) -> Self {
        self.opts.push((name.into(), None));
        self
    }
    /// `rw=`: the access pattern.
    pub fn rw(self, kind: RwKind) -> Self {
        self.option("rw", kind.name())
    }
    /// `ioengine=`.
    pub fn engine(self, engine: Engine) -> Self {
        let name = engine.name().to_string();
        self.option("ioengine", name)
    }
    /// `runtime=` (millisecond resolution).
    pub fn runtime(self, d: Duration) -> Self {
        self.option("runtime", format!("{}ms", d.as_millis()))
    }
    /// `ramp_time=` (millisecond resolution).
    pub fn ramp_time(self, d: Duration) -> Self {
        self.option("ramp_time", format!("{}ms", d.as_millis()))
    }
    /// `time_based`: run for the whole runtime, wrapping around the region.
    pub fn time_based(self) -> Self {
        self.flag("time_based")
    }
    /// `direct=1`: O_DIRECT.
    pub fn direct(self, on: bool) -> Self {
        self.option("direct", if on { "1" } else { "0" })
    }
    setters! {
        /// `bs=` in bytes, for every direction.
        bs: u64 => "bs";
        /// `size=` in bytes.
        size: u64 => "size";
        /// `io_size=` in bytes.
        io_size: u64 => "io_size";
        /// `offset=` in bytes.
        offset: u64 => "offset";
        /// `iodepth=`.
        iodepth: u32 => "iodepth";
        /// `numjobs=`: clones of this job.
        numjobs: u32 => "numjobs";
        /// `nrfiles=`.
        nrfiles: u32 => "nrfiles";
        /// `rwmixread=` percent.
        rwmixread: u32 => "rwmixread";
        /// `rate_iops=` for every direction.
        rate_iops: u64 => "rate_iops";
        /// `loops=`.
        loops: u32 => "loops";
        /// `randseed=`.
        randseed: u64 => "randseed";
    }
    /// `filename=` (several with `:`, as in a job file).
    pub fn filename(self, path: impl AsRef<std::path::Path>) -> Self {
        let p = path.as_ref().to_string_lossy().replace(':', "\\:");
        self.option("filename", p)
    }
    /// `directory=`.
    pub fn directory(self, path: impl AsRef<std::path::Path>) -> Self {
        let p = path.as_ref().to_string_lossy().replace(':', "\\:");
        self.option("directory", p)
    }
    /// Resolve the options into a [`JobSpec`] through the option table: every check a job
    /// file gets, with the same messages.
    pub fn build(self) -> Result<JobSpec, JobError> {
        let file = format!("<builder {}>", self.name);
        let section = RawSection {
            name: self.name.clone(),
            loc: Location {
                file: file.clone(),
                line: 0,
            },
            opts: self
                .opts
                .into_iter()
                .enumerate()
                .map(|(i, (name, value))| RawOpt {
                    name,
                    value,
                    loc: Location {
                        file: file.clone(),
                        line: i as u32 + 1,
                    },
                    keyword: false,
                    dialect: Dialect::Fio,
                })
                .collect(),
        };
        if section.is_global() {
            return Err(JobError::Syntax {
                loc: section.loc,
                msg: "a job's name may not start with \"global\" (fio reads such a section as \
                      global options)"
                    .into(),
            });
        }
        let (mut jobs, _) = crate::resolve::resolve(&[section], &[], &[], 0)?;
        Ok(jobs.remove(0).1)
    }
}

impl JobSpec {
    /// Parse a fio job file's text that holds exactly one job (`[global]` sections allowed).
    pub fn from_fio_str(text: &str) -> Result<JobSpec, JobError> {
        one(crate::parse_fio_str(text, "<string>")?)
    }
    /// Parse a TOML job file's text that holds exactly one job.
    pub fn from_toml_str(text: &str) -> Result<JobSpec, JobError> {
        one(crate::parse_toml_str(text, "<string>")?)
    }
}

fn one(set: JobSet) -> Result<JobSpec, JobError> {
    let n = set.jobs.len();
    let mut jobs = set.jobs;
    match n {
        1 => Ok(jobs.remove(0)),
        _ => Err(JobError::Syntax {
            loc: Location {
                file: "<string>".into(),
                line: 0,
            },
            msg: format!(
                "expected exactly one job, found {n}; use JobSet::from_fio_str for several"
            ),
        }),
    }
}

impl JobSet {
    /// Parse a fio job file's text (any number of jobs).
    pub fn from_fio_str(text: &str) -> Result<JobSet, JobError> {
        crate::parse_fio_str(text, "<string>")
    }
    /// Parse a TOML job file's text.
    pub fn from_toml_str(text: &str) -> Result<JobSet, JobError> {
        crate::parse_toml_str(text, "<string>")
    }
}

impl From<JobSpec> for JobSet {
    fn from(job: JobSpec) -> JobSet {
        JobSet {
            jobs: vec![job],
            global_options: Vec::new(),
        }
    }
}

impl From<Vec<JobSpec>> for JobSet {
    fn from(jobs: Vec<JobSpec>) -> JobSet {
        JobSet {
            jobs,
            global_options: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_errors_name_the_option_and_its_position() {
        let err = Job::builder("x")
            .bs(4096)
            .option("rw", "sideways")
            .build()
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("<builder x>:2: "), "{err}");
        assert!(err.contains("rw"), "{err}");
        let err = Job::builder("x").option("bz", "4k").build().unwrap_err();
        assert!(err.to_string().contains("did you mean 'bs'"), "{err}");
    }

    #[test]
    fn builder_equals_the_job_file() {
        let b = Job::builder("mix")
            .rw(RwKind::RandRw)
            .rwmixread(70)
            .option("bssplit", "4k/50:64k/50")
            .time_based()
            .runtime(Duration::from_millis(1500))
            .numjobs(2)
            .build()
            .unwrap();
        let f = JobSpec::from_fio_str(
            "[mix]\nrw=randrw\nrwmixread=70\nbssplit=4k/50:64k/50\ntime_based\nruntime=1500ms\nnumjobs=2\n",
        )
        .unwrap();
        // Everything but where it came from is the same.
        let strip = |mut j: JobSpec| {
            j.origin = Location::default();
            j
        };
        assert_eq!(strip(b), strip(f));
    }

    #[test]
    fn from_str_wants_exactly_one_job() {
        let e = JobSpec::from_fio_str("[a]\n[b]\n").unwrap_err();
        assert!(e.to_string().contains("found 2"), "{e}");
        assert_eq!(JobSet::from_fio_str("[a]\n[b]\n").unwrap().jobs.len(), 2);
        let t = JobSpec::from_toml_str("[[job]]\nname = \"t\"\nbs = \"8KiB\"\n").unwrap();
        assert_eq!(t.bs.0, [8192; 3]);
    }

    #[test]
    fn file_names_with_colons_stay_one_file() {
        let j = Job::builder("c").filename("/tmp/a:b").build().unwrap();
        assert_eq!(j.filenames, vec!["/tmp/a:b".to_string()]);
    }
}
