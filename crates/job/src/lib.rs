//! fathom-job: job files in fio's INI dialect and in TOML, fio-style command-line jobs,
//! the option table, units, and the resolved [`JobSpec`].
//!
//! Parsing keeps what the user wrote (with file and line) apart from the resolved job:
//! raw sections and `key=value` pairs first, then each option applied through its one
//! definition in the option table. An option fio has that fathom does not implement is an
//! error naming it; an unknown option gets a did-you-mean.
//!
//! Modules, lowest first: `words` (the vocabulary: directions, patterns, sizes,
//! locations), [`units`] (numbers, sizes, times), [`gate`] (CI assertions), `spec` (the
//! resolved job), [`options`] (the option table, one module per area), then the readers:
//! `ini` (fio's dialect), `toml_in`, `resolve` (sections to jobs) and `builder`.
//!
//! # Where fathom deliberately differs from fio
//!
//! fio job files follow fio's rules (sections, `[global*]` scoping, comments, `include`,
//! `${ENV}`, `$ncpus`/`$pagesize`/`$mb_memory`, arithmetic, fio's inverted `kib` = 1000,
//! `R,W,T` lists, ranges), except where fio silently does something nobody means:
//!
//! - Spaces around `=` are ignored: `bs = 8k` is 8 KiB. fio keeps the leading blank of the
//!   value and reads it as 8 bytes.
//! - A time suffix fio does not know (`10sec`, `5min`) is an error suggesting `10s`/`5m`;
//!   fio multiplies by 1 and runs 10 µs.
//! - Booleans are still only 0 or 1, but `true`/`yes` get a hint to write 1.
//! - `ioengine` names are normalised (`aio`, `linuxaio` → `libaio`) but checked by the runner,
//!   which also knows engines registered at run time; an unknown engine is an error there.
//! - Every fio option fathom does not implement is an error ("not supported yet"), never
//!   ignored.
//! - TOML files use strict units (`KiB` = 1024, `kB` = 1000, `kb_base` has no effect), and a
//!   unit-less number is only a time for options counted in seconds (`runtime = 10`).
//!
//! ```
//! let set = fathom_job::parse_fio_str(
//!     "[global]\nbs=4k\nsize=16m\n[mixed]\nrw=randrw\nrwmixread=70\n",
//!     "example.fio",
//! )
//! .unwrap();
//! let job = &set.jobs[0];
//! assert_eq!(job.name, "mixed");
//! assert_eq!(job.bs.0, [4096; 3]);
//! assert_eq!(job.rwmixread, 70);
//!
//! let err = fathom_job::parse_fio_str("[a]\nbogus_option=1\n", "bad.fio").unwrap_err();
//! assert!(err.to_string().starts_with("bad.fio:2: unknown option 'bogus_option'"));
//! ```
#![deny(missing_docs)]

mod builder;
mod cmdprio;
mod control;
mod error;
pub mod gate;
mod ini;
pub mod options;
mod resolve;
mod spec;
mod toml_in;
pub mod units;
mod words;

pub use builder::{Engine, Job, JobBuilder};
pub use cmdprio::{ioprio_value, CmdPrio, PrioSplit, IOPRIO_CLASS_RT};
pub use control::{
    size_of_file, Control, DedupUnits, DepthShare, FadviseHint, KeyMap, KeyMaps, LockMode,
    NumaMode, NumaPolicy, Zbd,
};
pub use error::JobError;
pub use spec::*;
pub use words::*;

use ini::RawSection;

fn finish(
    sections: &[RawSection],
    base: &[ini::RawOpt],
    file_index: usize,
) -> Result<JobSet, JobError> {
    let (jobs, globals) = resolve::resolve(sections, base, &[], file_index)?;
    Ok(JobSet {
        jobs: jobs.into_iter().map(|(_, j)| j).collect(),
        global_options: globals.iter().map(ini::RawOpt::shown).collect(),
    })
}

/// Parse the text of a fio job file. `path` names it in messages and anchors `include`.
pub fn parse_fio_str(text: &str, path: &str) -> Result<JobSet, JobError> {
    finish(&ini::read_ini(text, path)?, &[], 0)
}

/// The largest job file (or include) fathom reads.
pub const MAX_JOB_FILE: u64 = 64 << 20;

/// Read a text file of at most `limit` bytes: a device is refused at once (`include
/// /dev/zero`), and a stream longer than the limit stops being read there, so no input
/// can make fathom read without end. Pipes and regular files are read.
pub fn read_text_bounded(path: &std::path::Path, limit: u64) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let bad = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    let ft = std::fs::metadata(path)?.file_type();
    if ft.is_block_device() || ft.is_char_device() || ft.is_dir() {
        return Err(bad("not a regular file".into()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(bad(format!(
            "larger than {limit} bytes: not a file fathom reads"
        )));
    }
    String::from_utf8(bytes).map_err(|_| bad("not a text file (invalid UTF-8)".into()))
}

/// fio's `--showcmd`: a job file (fio INI or TOML text) as one command line, `prog`
/// followed by each job's options in order: a `[global]` section's options, all of them
/// so far, before each job that follows it, then `--name=JOB` and the job's own options.
pub fn showcmd(text: &str, path: &str, prog: &str) -> Result<String, JobError> {
    let raw = if path.ends_with(".toml") {
        toml_in::read_toml(text, path)?
    } else {
        ini::read_ini(text, path)?
    };
    let opt = |o: &ini::RawOpt| match &o.value {
        Some(v) => format!("--{}={v}", o.name),
        None => format!("--{}", o.name),
    };
    let mut globals: Vec<String> = Vec::new();
    let mut line = prog.to_string();
    let mut fresh_globals = false;
    for sec in &raw {
        if sec.is_global() {
            globals.extend(sec.opts.iter().map(opt));
            fresh_globals = true;
            continue;
        }
        if fresh_globals {
            for g in &globals {
                line.push(' ');
                line.push_str(g);
            }
            fresh_globals = false;
        }
        line.push_str(&format!(" --name={}", sec.name));
        for o in &sec.opts {
            line.push(' ');
            line.push_str(&opt(o));
        }
    }
    line.push_str(" \n");
    Ok(line)
}

/// Parse the text of a TOML job file.
pub fn parse_toml_str(text: &str, path: &str) -> Result<JobSet, JobError> {
    finish(&toml_in::read_toml(text, path)?, &[], 0)
}

/// Parse everything a command line gives: `cli_args` are job options in order
/// (`--name=a`, `--rw=randread`, `--time_based`); options before the first `--name` are
/// defaults for every job, those of job files too (a file's own settings win).
/// `files` are job files (`-` is stdin; `.toml` files are TOML); the first job of each
/// file after the first waits for the jobs before it (fio's implicit stonewall).
/// `sections`, if not empty, keeps only the jobs of those sections.
pub fn parse_all(
    cli_args: &[String],
    files: &[String],
    sections: &[String],
) -> Result<JobSet, JobError> {
    parse_all_overriding(cli_args, &[], files, sections)
}

/// [`parse_all`] with `overrides`: job options (no `--name`) that win over what the job
/// files say, applied to every job after its own options. The binary passes the options
/// written after a job file on its command line (`fathom jobs/oltp.fio --size=4g`), while
/// those written before the first job file stay defaults, as in fio.
pub fn parse_all_overriding(
    cli_args: &[String],
    overrides: &[String],
    files: &[String],
    sections: &[String],
) -> Result<JobSet, JobError> {
    let (cli_globals, cli_sections) = resolve::read_cli(cli_args)?;
    let (tail, stray) = resolve::read_cli(overrides)?;
    if let Some(s) = stray.first() {
        return Err(JobError::Syntax {
            loc: s.loc.clone(),
            msg: format!(
                "--name={} may not be given among overriding options",
                s.name
            ),
        });
    }
    resolve::apply_opts(
        &mut JobSpec::default(),
        &cli_globals.iter().chain(&tail).collect::<Vec<_>>(),
    )?;
    let mut set = JobSet {
        jobs: Vec::new(),
        global_options: cli_globals.iter().map(ini::RawOpt::shown).collect(),
    };
    // Check the command-line globals even when they are all there is.
    resolve::apply_opts(
        &mut JobSpec::default(),
        &cli_globals.iter().collect::<Vec<_>>(),
    )?;
    let mut names: Vec<String> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let (text, path) = read_job_file(f)?;
        let raw = if path.ends_with(".toml") {
            toml_in::read_toml(&text, &path)?
        } else {
            ini::read_ini(&text, &path)?
        };
        let (jobs, globals) = resolve::resolve(&raw, &cli_globals, &tail, i)?;
        for (k, (name, mut job)) in jobs.into_iter().enumerate() {
            if i > 0 && k == 0 {
                job.stonewall = true;
            }
            names.push(name);
            set.jobs.push(job);
        }
        set.global_options
            .extend(globals.iter().map(ini::RawOpt::shown));
    }
    let (jobs, globals) = resolve::resolve(&cli_sections, &cli_globals, &tail, files.len())?;
    for (name, job) in jobs {
        names.push(name);
        set.jobs.push(job);
    }
    set.global_options
        .extend(globals.iter().map(ini::RawOpt::shown));
    if !sections.is_empty() {
        keep_sections(&mut set, &names, sections)?;
    }
    Ok(set)
}

/// A job file's text and the name errors give it (`-`: standard input).
fn read_job_file(f: &str) -> Result<(String, String), JobError> {
    Ok(if f == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| JobError::Io {
            path: "<stdin>".into(),
            source: e,
        })?;
        (s, "<stdin>".to_string())
    } else {
        let text = read_text_bounded(std::path::Path::new(f), MAX_JOB_FILE).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidInput {
                JobError::Syntax {
                    loc: Location {
                        file: f.to_string(),
                        line: 0,
                    },
                    msg: format!("{e}; give a fio job file or a .toml file"),
                }
            } else {
                JobError::Io {
                    path: f.to_string(),
                    source: e,
                }
            }
        })?;
        (text, f.to_string())
    })
}

/// --section: only the jobs of the sections named run (global may not be named).
fn keep_sections(set: &mut JobSet, names: &[String], sections: &[String]) -> Result<(), JobError> {
    for s in sections {
        if s == "global" {
            return Err(JobError::Syntax {
                loc: Location {
                    file: "<command line>".into(),
                    line: 0,
                },
                msg: "--section=global is not allowed: global sections always apply".into(),
            });
        }
        if !names.contains(s) {
            return Err(JobError::Syntax {
                loc: Location {
                    file: "<command line>".into(),
                    line: 0,
                },
                msg: format!(
                    "--section={s}: no job section of that name (have: {})",
                    names.join(", ")
                ),
            });
        }
    }
    let keep: Vec<bool> = names.iter().map(|n| sections.contains(n)).collect();
    let mut it = keep.iter();
    set.jobs.retain(|_| *it.next().expect("one flag per job"));
    Ok(())
}

/// True if `name` is a job option fathom knows (implemented or not yet).
pub fn is_job_option(name: &str) -> bool {
    name == "name" || options::find(name).is_some() || options::is_unsupported(name)
}

/// Every name a job option is known by on the command line (implemented or not yet, with
/// the aliases): what fio's getopt matches a `--prefix` of an option's name against.
pub fn job_option_names() -> impl Iterator<Item = &'static str> {
    std::iter::once("name")
        .chain(
            options::table().flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied())),
        )
        .chain(options::unsupported_names())
}

/// `--cmdhelp`: every option (None or "all"), or one option in full.
pub fn cmdhelp(option: Option<&str>) -> Result<String, JobError> {
    use std::fmt::Write;
    let mut s = String::new();
    match option {
        None | Some("all") => {
            let mut cats: Vec<&str> = Vec::new();
            for o in options::table() {
                if !cats.contains(&o.category) {
                    cats.push(o.category);
                }
            }
            let _ = writeln!(
                s,
                "Job options (name, aliases in parentheses, value type, description, default).\n\
                 A flag may be given bare (time_based) and then means 1.\n"
            );
            for c in cats {
                let _ = writeln!(s, "{c}:");
                for o in options::table().filter(|o| o.category == c) {
                    let names = if o.aliases.is_empty() {
                        o.name.to_string()
                    } else {
                        format!("{} ({})", o.name, o.aliases.join(", "))
                    };
                    let default = if o.default.is_empty() {
                        String::new()
                    } else {
                        format!(" [default: {}]", o.default)
                    };
                    let _ = writeln!(s, "  {names:<30} {:<22} {}{default}", o.ty, o.doc);
                }
                s.push('\n');
            }
            let _ = writeln!(
                s,
                "fio options fathom recognises but does not support yet (an error if used):"
            );
            let mut line = String::from(" ");
            for n in options::unsupported_names() {
                if line.len() + n.len() + 1 > 88 {
                    let _ = writeln!(s, "{line}");
                    line = String::from(" ");
                }
                line.push(' ');
                line.push_str(n);
            }
            let _ = writeln!(s, "{line}\n");
            let _ = writeln!(s, "--cmdhelp=OPTION shows one option in full.");
        }
        Some(name) => match options::find(name) {
            Some(o) => {
                let _ = writeln!(s, "{}: {}", o.name, o.doc);
                if !o.aliases.is_empty() {
                    let _ = writeln!(s, "  aliases : {}", o.aliases.join(", "));
                }
                let _ = writeln!(s, "  type    : {}", o.ty);
                let _ = writeln!(s, "  default : {}", o.default);
                let _ = writeln!(s, "  category: {}", o.category);
                if let Some(ex) = options::example(o) {
                    let _ = writeln!(s, "  example : {}={ex}", o.name);
                }
                if o.flag {
                    let _ = writeln!(s, "  may be given without a value (means 1)");
                }
            }
            None if options::is_unsupported(name) => {
                let why = options::unsupported_why(name)
                    .or_else(|| options::refusal(name))
                    .unwrap_or("an option of a fio engine fathom does not have");
                let _ = writeln!(s, "{name}: a fio option fathom does not take: {why}");
            }
            None => {
                return Err(JobError::UnknownOption {
                    loc: Location {
                        file: "--cmdhelp".into(),
                        line: 0,
                    },
                    name: name.into(),
                    hint: options::suggest(name)
                        .map(|x| format!(" (did you mean '{x}'?)"))
                        .unwrap_or_default(),
                })
            }
        },
    }
    Ok(s)
}

#[cfg(test)]
mod tests;
