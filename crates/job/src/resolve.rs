//! From raw sections to resolved jobs: `[global]` inheritance, option lookup, values.

use crate::error::JobError;
use crate::ini::{RawOpt, RawSection};
use crate::options::{self, Ctx};
use crate::spec::JobSpec;
use crate::units;
use crate::words::{Dialect, Location};

/// Apply options in order to a job (later ones win), as one section (see
/// [`apply_sections`]).
pub(crate) fn apply_opts(job: &mut JobSpec, opts: &[&RawOpt]) -> Result<(), JobError> {
    apply_sections(job, &[opts.to_vec()])
}

/// Apply options in order to a job (later ones win), given by section: the command
/// line's, each global section, the job's own. `kb_base` reaches the sizes as fio parses
/// them: on the command line a `kb_base` holds for the options after it
/// (`--size=1M --kb_base=1000` is 1 MiB); in a job file a section's `kb_base` holds for
/// the whole section, sizes written before it too, and for the sections after it that
/// have none (a global one for its jobs, not a job's for the globals); the command line's
/// `kb_base` is where the file's sections start from, while a file's does not reach a
/// command-line `--size`.
pub(crate) fn apply_sections(job: &mut JobSpec, sections: &[Vec<&RawOpt>]) -> Result<(), JobError> {
    let base = |o: &RawOpt| match o.value.as_deref().map(units::parse_int) {
        Some(Ok(1000)) => Some(1000),
        Some(Ok(1024)) => Some(1024),
        _ => None,
    };
    let on_cli = |o: &RawOpt| o.loc.file == CLI;
    let kb_of = |opts: &mut dyn Iterator<Item = &&RawOpt>, from: u32| {
        opts.filter(|o| o.name == "kb_base")
            .fold(from, |kb, o| base(o).unwrap_or(kb))
    };
    // The file's sections start from the command line's kb_base, all of it read.
    let mut inherited = kb_of(
        &mut sections.iter().flatten().filter(|o| on_cli(o)),
        job.kb_base,
    );
    let mut cli_kb = job.kb_base;
    let mut ctx = Ctx {
        dialect: Dialect::Fio,
        kb_base: job.kb_base,
    };
    for section in sections {
        let file_kb = kb_of(&mut section.iter().filter(|o| !on_cli(o)), inherited);
        for o in section {
            if on_cli(o) && o.name == "kb_base" {
                cli_kb = base(o).unwrap_or(cli_kb);
            }
            ctx.dialect = o.dialect;
            ctx.kb_base = if on_cli(o) { cli_kb } else { file_kb };
            apply_one(job, o, &ctx)?;
        }
        inherited = file_kb;
    }
    Ok(())
}

/// The location of options given on the command line.
const CLI: &str = "<command line>";

/// fio options fathom does not take whose default is off: a job file that sets one to
/// off (`trim_percentage=0`, `atomic=0`) asks for nothing, so it runs.
pub(crate) const OFF_IS_NOTHING: &[&str] = &[
    "atomic",
    "block_error_percentiles",
    "cgroup_nodelete",
    "trim_percentage",
    "trim_backlog",
    "trim_backlog_batch",
];

fn apply_one(job: &mut JobSpec, o: &RawOpt, ctx: &Ctx) -> Result<(), JobError> {
    let Some(def) = options::find(&o.name) else {
        let off = o
            .value
            .as_deref()
            .is_some_and(|v| crate::units::parse_bool(v) == Ok(false));
        if off && OFF_IS_NOTHING.contains(&o.name.as_str()) {
            return Ok(());
        }
        return Err(not_an_option(o));
    };
    // A number, size or time option written with nothing after '=' (`bs=`) has no value.
    let numeric = ["size", "int", "time"]
        .iter()
        .any(|t| def.ty.starts_with(t));
    let value = match &o.value {
        Some(v) if numeric && v.trim().is_empty() => {
            return Err(JobError::MissingValue {
                loc: o.loc.clone(),
                name: o.name.clone(),
                example: options::example(def).unwrap_or_else(|| "...".into()),
            })
        }
        Some(v) => v.clone(),
        None if def.flag => "1".to_string(),
        None => {
            return Err(JobError::MissingValue {
                loc: o.loc.clone(),
                name: o.name.clone(),
                example: options::example(def).unwrap_or_else(|| "...".into()),
            })
        }
    };
    let invalid = |value: &str, why: String| {
        let why = match options::example(def) {
            Some(ex) if !why.contains("e.g.") => format!("{why}; e.g. {}={ex}", o.name),
            _ => why,
        };
        // A huge value is shortened in the message.
        let value = if value.len() > 120 {
            let cut = value.char_indices().nth(60).map_or(value.len(), |(i, _)| i);
            format!("{}… ({} characters)", &value[..cut], value.len())
        } else {
            value.to_string()
        };
        JobError::InvalidValue {
            loc: o.loc.clone(),
            name: o.name.clone(),
            value,
            why,
        }
    };
    // A value with a reserved keyword and arithmetic is computed, as fio does with bc.
    let value = if o.keyword
        && !value.starts_with('(')
        && value.chars().any(|c| "+-*/".contains(c))
        && !value.contains(':')
    {
        units::eval_expr(&value, false)
            .map(|v| (v as i64).to_string())
            .map_err(|why| invalid(&value, why))?
    } else {
        value
    };
    let said = job.notes.len();
    if let Err(why) = (def.apply)(job, &value, ctx) {
        match first_of_many(def, &value, ctx) {
            Some((first, rest)) => {
                // fio reads a plain number's value part by part at its separators, checks
                // each as a value of the option, and keeps the first — or, for the options
                // it reads through a function of its own (size, offset, rwmixread, …),
                // the last: taken the same way, and said.
                let last = LAST_WINS.contains(&def.name);
                let (keep, others): (&str, Vec<&str>) = if last {
                    let mut all = vec![first];
                    all.extend(rest.iter().copied());
                    let keep = all.pop().unwrap_or(first);
                    (keep, all)
                } else {
                    (first, rest.clone())
                };
                for r in &others {
                    let mut scratch = job.clone();
                    (def.apply)(&mut scratch, r, ctx).map_err(|_| invalid(&value, why.clone()))?;
                }
                (def.apply)(job, keep, ctx).map_err(|_| invalid(&value, why))?;
                if others.is_empty() {
                    return Ok(());
                }
                let which = if last { "last" } else { "first" };
                job.notes.push(format!(
                    "{}={value}: fio keeps only the {which} value, {keep}, of an option that \
                     takes one; the rest ({}) is ignored, as in fio",
                    o.name,
                    others.join(", ")
                ));
            }
            None => return Err(invalid(&value, why)),
        }
    }
    for n in &mut job.notes[said..] {
        *n = format!("{}: {n}", o.loc);
    }
    Ok(())
}

/// The options whose value fio hands to a function of its own, part by part, so that of
/// `size=1m,2m` the last part holds (fio 3.33's size, io_size, offset, offset_increment,
/// zoneskip, rwmixread, rwmixwrite, buffer_compress_percentage, dedupe_percentage,
/// gtod_reduce, cpumask).
const LAST_WINS: &[&str] = &[
    "size",
    "io_size",
    "offset",
    "offset_increment",
    "zoneskip",
    "rwmixread",
    "rwmixwrite",
    "buffer_compress_percentage",
    "dedupe_percentage",
    "gtod_reduce",
    "cpumask",
];

/// fio's parse of a plain number, boolean, size or time option given several values
/// (`iodepth=4,8`, `direct=1:0`, `rwmixread=70-30`): it splits the value at `,` (else
/// `:`, else `-` past the first character) and reads each part as the option's value for
/// one direction, and an option with one value keeps the first. The first part and the
/// others; None where the option is not such a one or the value has no separator.
fn first_of_many<'v>(
    def: &options::OptDef,
    value: &'v str,
    ctx: &Ctx,
) -> Option<(&'v str, Vec<&'v str>)> {
    const SCALAR: &[&str] = &[
        "bool",
        "int",
        "int (%)",
        "int (ms)",
        "int (us)",
        "int 0-3",
        "int 0-6",
        "int 0-7",
        "int 1-10",
        "int (power of 2)",
        "size",
        "size or %",
        "size or percent",
        "time (s)",
        "time (ms)",
        "time (us)",
        "time (µs)",
    ];
    if ctx.dialect != crate::words::Dialect::Fio
        || !SCALAR.contains(&def.ty)
        || value.trim_start().starts_with('(')
    {
        return None;
    }
    let sep = if value.contains(',') {
        ','
    } else if value.contains(':') {
        ':'
    } else if value.get(1..).is_some_and(|t| t.contains('-')) {
        '-'
    } else {
        return None;
    };
    let mut parts = if sep == '-' {
        let at = 1 + value[1..].find('-')?;
        vec![&value[..at], &value[at + 1..]]
    } else {
        value.split(sep).collect::<Vec<_>>()
    };
    // A trailing separator (`iodepth=4,`) is dropped, as fio drops it.
    if parts.last().is_some_and(|p| p.trim().is_empty()) && parts.len() > 1 {
        parts.pop();
    }
    if parts.iter().any(|p| p.trim().is_empty()) {
        return None;
    }
    let first = parts.remove(0);
    Some((first, parts))
}

/// An option name fathom does not take: refused on purpose (why), an option of an
/// engine fathom does not have, not supported yet (why), or unknown (the nearest name).
fn not_an_option(o: &RawOpt) -> JobError {
    if let Some(why) = options::refusal(&o.name) {
        return JobError::Refused {
            loc: o.loc.clone(),
            name: o.name.clone(),
            why: why.to_string(),
        };
    }
    if let Some(engines) = options::engine_only(&o.name) {
        let list = match engines {
            [one] => format!("fio's {one} engine"),
            [first @ .., last] => format!("fio's {} and {last} engines", first.join(", ")),
            [] => "an fio engine".into(),
        };
        return JobError::Refused {
            loc: o.loc.clone(),
            name: o.name.clone(),
            why: format!(
                "it is an option of {list}, which fathom does not have (`fathom \
                 --enghelp` lists fathom's engines)"
            ),
        };
    }
    if let Some(why) = options::unsupported_why(&o.name) {
        return JobError::NotSupported {
            loc: o.loc.clone(),
            name: o.name.clone(),
            why: why.to_string(),
        };
    }
    let hint = options::suggest(&o.name)
        .map(|s| format!(" (did you mean '{s}'?)"))
        .unwrap_or_default();
    // A name no option could have is shortened in the message.
    let name = if o.name.len() > 64 {
        let cut = o
            .name
            .char_indices()
            .nth(32)
            .map_or(o.name.len(), |(i, _)| i);
        format!("{}… ({} characters)", &o.name[..cut], o.name.len())
    } else {
        o.name.clone()
    };
    JobError::UnknownOption {
        loc: o.loc.clone(),
        name,
        hint,
    }
}

/// Jobs with their section names, and the options of the global sections.
pub(crate) type Resolved = (Vec<(String, JobSpec)>, Vec<RawOpt>);

/// Turn sections into jobs. `base` are defaults applied before everything (command-line
/// globals), `tail` overrides applied after each job's own options (command-line options
/// given after the job files). Returns the jobs and the options of global sections.
pub(crate) fn resolve(
    sections: &[RawSection],
    base: &[RawOpt],
    tail: &[RawOpt],
    file_index: usize,
) -> Result<Resolved, JobError> {
    let mut globals: Vec<RawOpt> = Vec::new();
    // Where each global section's options end in `globals`.
    let mut ends: Vec<usize> = Vec::new();
    let mut jobs = Vec::new();
    for s in sections {
        if s.is_global() {
            // Check global options now, so a bad one is reported even without jobs.
            let mut probe = JobSpec::default();
            apply_sections(
                &mut probe,
                &by_section(base, (&globals, &ends), &s.opts, &[]),
            )?;
            globals.extend(s.opts.iter().cloned());
            ends.push(globals.len());
            continue;
        }
        let mut job = JobSpec {
            name: s.name.clone(),
            origin: s.loc.clone(),
            file_index,
            ..JobSpec::default()
        };
        // As fio: a job is named by its section (or its own name=); a name= in a global
        // section names no job.
        apply_sections(
            &mut job,
            &by_section(base, (&globals, &ends), &s.opts, tail),
        )?;
        job.job_options = s.opts.iter().chain(tail).map(RawOpt::shown).collect();
        jobs.push((s.name.clone(), job));
    }
    Ok((jobs, globals))
}

/// The sections a job's options come from, in order: the command line's globals, each
/// global section (`ends`: where each ends in `globals`; name= left out: it names no
/// job), then `own` and `after`.
fn by_section<'a>(
    base: &'a [RawOpt],
    (globals, ends): (&'a [RawOpt], &[usize]),
    own: &'a [RawOpt],
    after: &'a [RawOpt],
) -> Vec<Vec<&'a RawOpt>> {
    let named = |o: &&RawOpt| o.name != "name";
    let mut out: Vec<Vec<&RawOpt>> = vec![base.iter().filter(named).collect()];
    let mut start = 0;
    for &end in ends {
        out.push(globals[start..end].iter().filter(named).collect());
        start = end;
    }
    out.push(own.iter().collect());
    out.push(after.iter().collect());
    out
}

/// Command-line job options (`--name=a --rw=read ...`) as raw sections: options before
/// the first `--name` are returned as globals.
pub(crate) fn read_cli(args: &[String]) -> Result<(Vec<RawOpt>, Vec<RawSection>), JobError> {
    let loc = Location {
        file: CLI.into(),
        line: 0,
    };
    let mut globals = Vec::new();
    let mut sections: Vec<RawSection> = Vec::new();
    for a in args {
        let Some(body) = a.strip_prefix("--") else {
            return Err(JobError::Syntax {
                loc,
                msg: format!("'{a}' is not an option; job options look like --bs=4k"),
            });
        };
        let (body, keyword) = units::substitute(body);
        let (name, value) = match body.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (body.to_string(), None),
        };
        if name == "name" {
            let Some(v) = value else {
                return Err(JobError::Syntax {
                    loc,
                    msg: "--name needs a value, e.g. --name=randread".into(),
                });
            };
            // The name is one of the job's options too, as in fio's "job options".
            let opts = vec![RawOpt {
                name,
                value: Some(v.clone()),
                loc: loc.clone(),
                keyword,
                dialect: Dialect::Fio,
            }];
            sections.push(RawSection {
                name: v,
                loc: loc.clone(),
                opts,
            });
            continue;
        }
        let opt = RawOpt {
            name,
            value,
            loc: loc.clone(),
            keyword,
            dialect: Dialect::Fio,
        };
        match sections.last_mut() {
            Some(s) => s.opts.push(opt),
            None => globals.push(opt),
        }
    }
    Ok((globals, sections))
}
