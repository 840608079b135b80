//! Command-line arguments: fathom's own flags (clap) and fio-style job options.

use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;

/// fathom — a storage I/O benchmark and workload generator driven by fio-style job files.
#[derive(Parser, Debug)]
#[command(
    name = "fathom",
    version,
    about = "A storage I/O benchmark and workload generator driven by fio-style job files",
    long_about = "A storage I/O benchmark and workload generator driven by fio-style job files.\n\n\
Run fio INI job files (.fio) or TOML job files (.toml) as they are, or give a job on the\n\
command line as fio does: options before the first --name are global, each --name starts a\n\
job, e.g.\n\n    fathom --name=a --rw=randread --bs=4k --size=1g\n\n\
Every job option fathom knows is listed by --cmdhelp; --cmdhelp=OPTION explains one.",
    after_help = "Exit codes: 0 success, 1 a job hit an I/O error, 2 bad job file or usage, \
130/143 interrupted by SIGINT/SIGTERM (results so far are still printed)."
)]
pub struct Cli {
    /// Job files to run (fio INI, or TOML when the name ends in .toml; "-" reads stdin).
    #[arg(value_name = "JOBFILE")]
    pub files: Vec<String>,

    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Report formats, a comma list: normal, json.
    #[arg(long, value_name = "LIST", default_value = "normal")]
    pub output_format: String,

    /// Parse and validate the jobs, print nothing on success, do no I/O.
    #[arg(long)]
    pub parse_only: bool,

    /// Run only the job section NAME (repeatable).
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,

    /// Help on job options: all of them, or one (--cmdhelp=bs).
    #[arg(long, value_name = "OPTION", num_args = 0..=1, default_missing_value = "all", require_equals = true)]
    pub cmdhelp: Option<String>,

    /// Refuse every job that writes or trims, before anything is opened.
    #[arg(long)]
    pub readonly: bool,

    /// Write to block devices even when they carry a partition table, a file system or
    /// another signature, or are in use (fathom refuses by default).
    #[arg(long)]
    pub allow_destructive: bool,

    /// List the I/O engines (or describe one: --enghelp=psync).
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub enghelp: Option<String>,
}

/// Names of fathom's own long flags (everything else starting with `--` that names a job
/// option is a job option).
const OWN_FLAGS: &[&str] = &[
    "output",
    "output-format",
    "parse-only",
    "section",
    "cmdhelp",
    "enghelp",
    "readonly",
    "allow-destructive",
    "help",
    "version",
];

/// Split argv into (clap arguments, job options in order).
pub fn split_args(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    let mut clap_args = Vec::new();
    let mut job_args = Vec::new();
    let mut it = args.into_iter();
    if let Some(argv0) = it.next() {
        clap_args.push(argv0);
    }
    let mut after_double_dash = false;
    for a in it {
        if after_double_dash {
            clap_args.push(a);
            continue;
        }
        let s = a.to_string_lossy().to_string();
        if s == "--" {
            after_double_dash = true;
            clap_args.push(a);
            continue;
        }
        if let Some(rest) = s.strip_prefix("--") {
            let name = rest.split('=').next().unwrap_or("");
            if !OWN_FLAGS.contains(&name) && fathom_job::is_job_option(name) {
                job_args.push(s);
                continue;
            }
        }
        clap_args.push(a);
    }
    (clap_args, job_args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn job_options_are_split_from_own_flags() {
        let (c, j) = split_args(os(&[
            "fathom",
            "--output-format=json",
            "--size=1m",
            "--name=a",
            "--rw=randread",
            "job.fio",
            "--section",
            "x",
        ]));
        assert_eq!(j, vec!["--size=1m", "--name=a", "--rw=randread"]);
        assert_eq!(
            c,
            os(&[
                "fathom",
                "--output-format=json",
                "job.fio",
                "--section",
                "x"
            ])
        );
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
