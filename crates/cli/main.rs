//! The `fathom` binary: parse the command line and job files, run, report, exit.

mod args;
mod common;
mod dist;
mod live;
mod presets;
mod signals;
mod sub;

use anyhow::{Context, Result};
use args::Cli;
use clap::Parser;
use fathom::{RunError, Runner};
use fathom_report::Format;
use std::io::Write;
use std::process::ExitCode;

use common::*;
use sub::*;

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            if is_broken_pipe(&f.err) {
                return ExitCode::from(exit::OK);
            }
            eprintln!("fathom: error: {}", error_text(&f.err));
            ExitCode::from(f.code)
        }
    }
}

/// For `--ioengnie=null`: say it is unknown and suggest the closest job option or flag
/// (clap alone knows only fathom's own flags).
fn unknown_flag_message(e: &clap::Error) -> Option<String> {
    use clap::CommandFactory;
    let arg = match e.get(clap::error::ContextKind::InvalidArg)? {
        clap::error::ContextValue::String(s) => s.clone(),
        _ => return None,
    };
    let name = arg.strip_prefix("--")?.split('=').next()?.to_string();
    if name.len() > 64 {
        return Some(format!(
            "unknown option '--{}…' ({} characters); `fathom --help` lists fathom's flags",
            &name[..name.char_indices().nth(32).map_or(name.len(), |(i, _)| i)],
            name.len()
        ));
    }
    let own: Vec<String> = args::Cli::command()
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    let job = fathom_job::options::suggest(&name.replace('-', "_"));
    let flag = own
        .iter()
        .map(|f| (strsim::levenshtein(&name, f), f))
        .filter(|(d, _)| *d <= (name.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, f)| f.clone());
    let hint = match (job, flag) {
        (Some(j), _) => format!(" (did you mean the job option '--{j}'?)"),
        (None, Some(f)) => format!(" (did you mean '--{f}'?)"),
        (None, None) => String::new(),
    };
    Some(format!(
        "unknown option '--{name}'{hint}; `fathom --help` lists fathom's flags, \
         `fathom --cmdhelp` every job option"
    ))
}

/// fio's "NAME: Laying out IO file (1 file / 16MiB)" lines: per job, the files that do not
/// exist yet or are shorter than the job's region (fio's rule for laying a file out), with
/// the MiB they will hold.
fn layout_lines(plan: &fathom::plan::Plan) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut text = String::new();
    for j in plan
        .jobs
        .iter()
        .filter(|j| !j.caps.diskless && j.caps.metadata.is_none())
    {
        if j.spec.create_on_open {
            continue;
        }
        for c in &j.clones {
            let (mut n, mut bytes) = (0u32, 0u64);
            for f in &c.files {
                let end = f.region.start + f.region.len;
                let have = std::fs::metadata(&f.path).map_or(0, |m| m.len());
                let regular = std::fs::metadata(&f.path).map_or(true, |m| m.is_file());
                if regular && have < end && seen.insert(f.path.clone()) {
                    n += 1;
                    bytes += end;
                }
            }
            if n > 0 {
                let many = n > 1;
                text.push_str(&format!(
                    "{}: Laying out IO file{} ({n} file{} / {}{}MiB)\n",
                    j.spec.name,
                    if many { "s" } else { "" },
                    if many { "s" } else { "" },
                    if many { "total " } else { "" },
                    bytes >> 20
                ));
            }
        }
    }
    text
}

/// True when the binary was started under the name `fio` (a link or a copy).
fn invoked_as_fio(argv: &[std::ffi::OsString]) -> bool {
    argv.first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .is_some_and(|n| n == "fio")
}

/// The suite a binary name stands for: fathom linked (or copied) as a classic tool runs
/// that tool's suite with the command line as given (`ln -s fathom bonnie++`).
fn suite_of_name(argv: &[std::ffi::OsString]) -> Option<&'static str> {
    let name = std::path::Path::new(argv.first()?).file_name()?.to_str()?;
    Some(match name {
        "bonnie++" | "bonnie" => "bonnie",
        "iozone" => "iozone",
        "sysbench" => "sysbench",
        "IOR" | "ior" => "ior",
        "dd" => "dd",
        "dbench" => "dbench",
        "metarates" => "metarates",
        "vdbench" => "vdbench",
        _ => return None,
    })
}

/// `fio --version` (or `fio -v`) when fathom is linked as `fio`: fio's form first, so
/// scripts that parse `fio-X.Y` keep working, then what really runs.
fn fio_version(argv: &[std::ffi::OsString]) -> Option<Result<u8, Failure>> {
    if !(invoked_as_fio(argv) && argv.len() == 2 && argv[1] == "--version") {
        return None;
    }
    let text = format!(
        "fio-{} (fathom {})\n",
        fathom_report::FIO_COMPAT,
        env!("CARGO_PKG_VERSION")
    );
    Some(
        print_stdout(&text)
            .map(|()| exit::OK)
            .map_err(Failure::from),
    )
}

/// `fathom suite ...` (or fathom under a tool's name): SIGINT/SIGTERM stop the suite,
/// which prints what it measured and removes its files; the exit is then 130/143.
fn run_suite(args: &[String]) -> Result<u8, Failure> {
    let signals = signals::install_for_suites();
    // Under mpirun (the MPI build) this process is one rank: IOR and metarates run across
    // the ranks; a rank that fails leaves at once, so that mpirun stops the others rather
    // than leaving them at a barrier.
    let dist = dist::Dist::detect().map_err(usage)?;
    let r = match &dist {
        Some(d) => {
            let r = fathom_suites::run_with(args, &dist::Ranks(d));
            // Stop announcements that came after this rank's last step.
            dist::Dist::peer_stopped();
            if let (Err(e), None) = (&r, signals.exit_code()) {
                eprintln!(
                    "fathom: rank {} ({}): error: {e:#}",
                    d.rank.rank,
                    fathom::facts::host().hostname
                );
                std::process::exit(exit::USAGE.into());
            }
            r
        }
        None => fathom_suites::run(args),
    };
    match (signals.exit_code(), r) {
        (Some(code), Ok(_)) => Ok(code),
        (Some(code), Err(e)) => {
            eprintln!("fathom: suite stopped by a signal: {e:#}");
            Ok(code)
        }
        (None, r) => r.map_err(usage),
    }
}

/// `fathom vdbench ...` (or fathom linked as `vdbench`): a vdbench parameter file; signals
/// stop it as they stop a suite.
fn run_vdbench(args: &[String]) -> Result<u8, Failure> {
    let signals = signals::install_for_suites();
    let dist = dist::Dist::detect().map_err(usage)?;
    let cluster = dist.as_ref().map(dist::Ranks);
    let r = fathom_vdbench::main_with(args, cluster.as_ref().map(|c| c as &dyn fathom::Cluster));
    if dist.is_some() {
        // Stop announcements that came after this rank's last run.
        dist::Dist::peer_stopped();
    }
    match (signals.exit_code(), r) {
        (Some(code), Ok(_)) => Ok(code),
        (Some(code), Err(e)) => {
            eprintln!("fathom vdbench: stopped by a signal: {e:#}");
            Ok(code)
        }
        (None, r) => r.map_err(usage),
    }
}

/// The subcommands and the names fathom answers to (a suite's name, `vdbench`, `fio
/// --version`); None for a run of job files or command-line jobs.
fn subcommand(argv: &[std::ffi::OsString]) -> Option<Result<u8, Failure>> {
    if let Some(suite) = suite_of_name(argv) {
        let mut rest = vec![suite.to_string()];
        rest.extend(argv[1..].iter().map(|a| a.to_string_lossy().into_owned()));
        if suite == "vdbench" {
            return Some(run_vdbench(&rest[1..]));
        }
        return Some(run_suite(&rest));
    }
    if argv.get(1).is_some_and(|a| a == "vdbench") {
        let rest: Vec<String> = argv[2..]
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        return Some(run_vdbench(&rest));
    }
    if argv.get(1).is_some_and(|a| a == "install-links") {
        return Some(install_links(argv));
    }
    if argv.get(1).is_some_and(|a| a == "merge") {
        return Some(merge_main(&argv[1..]));
    }
    if argv.get(1).is_some_and(|a| a == "plot") {
        return Some(plot_main(&argv[1..]));
    }
    if argv.get(1).is_some_and(|a| a == "compare") {
        return Some(compare_main(&argv[1..]));
    }
    if argv.get(1).is_some_and(|a| a == "verify") {
        return Some(verify_main(&argv[1..]));
    }
    if argv.get(1).is_some_and(|a| a == "jobs") && argv.len() == 2 {
        // `fathom jobs`: the preset library, as --list-jobs.
        return Some(
            print_stdout(&presets::list())
                .map(|()| exit::OK)
                .map_err(Failure::from),
        );
    }
    if argv.get(1).is_some_and(|a| a == "suite") {
        let rest: Vec<String> = argv[2..]
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        return Some(run_suite(&rest));
    }
    None
}

/// fathom's own flags, or (a clap error, `--help`, `--version`: printed) the exit code.
fn parse_cli(clap_args: Vec<std::ffi::OsString>) -> Result<args::Cli, u8> {
    match args::Cli::try_parse_from(clap_args) {
        Ok(c) => Ok(c),
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => exit::OK,
                _ => exit::USAGE,
            };
            if e.kind() == ErrorKind::UnknownArgument {
                if let Some(msg) = unknown_flag_message(&e) {
                    eprintln!("fathom: error: {msg}");
                    return Err(code);
                }
            }
            let _ = e.print();
            Err(code)
        }
    }
}

/// The flags that print something and end (`--cmdhelp`, `--list-jobs`, `--show-job`,
/// `--completions`, `--man`, `--enghelp`, `--showcmd`): the exit code, or None to run.
fn info_only(cli: &args::Cli) -> Result<Option<u8>, Failure> {
    if let Some(opt) = &cli.cmdhelp {
        let name = (opt != "all").then_some(opt.as_str());
        let text = fathom_job::cmdhelp(name).map_err(usage)?;
        print_stdout(&text)?;
        return Ok(Some(exit::OK));
    }
    if cli.list_jobs {
        print_stdout(&presets::list())?;
        return Ok(Some(exit::OK));
    }
    if let Some(name) = &cli.show_job {
        let text = presets::show(name).ok_or_else(|| {
            usage(anyhow::anyhow!(
                "--show-job={name}: no preset of that name; `fathom --list-jobs` lists them"
            ))
        })?;
        print_stdout(text)?;
        return Ok(Some(exit::OK));
    }
    if let Some(shell) = cli.completions {
        use clap::CommandFactory;
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut args::Cli::command(), "fathom", &mut out);
        print_stdout(&String::from_utf8_lossy(&out))?;
        return Ok(Some(exit::OK));
    }
    if cli.man {
        use clap::CommandFactory;
        let mut out = Vec::new();
        clap_mangen::Man::new(args::Cli::command()).render(&mut out)?;
        print_stdout(&String::from_utf8_lossy(&out))?;
        return Ok(Some(exit::OK));
    }
    if let Some(engine) = &cli.enghelp {
        print_stdout(&enghelp(engine).map_err(usage)?)?;
        return Ok(Some(exit::OK));
    }
    if cli.showcmd {
        let prog = std::env::args_os()
            .next()
            .and_then(|a| {
                std::path::Path::new(&a)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "fathom".into());
        for f in &cli.files {
            let text =
                fathom_job::read_text_bounded(std::path::Path::new(f), fathom_job::MAX_JOB_FILE)
                    .with_context(|| format!("--showcmd {f}"))
                    .map_err(usage)?;
            print_stdout(&fathom_job::showcmd(&text, f, &prog).map_err(usage)?)?;
        }
        return Ok(Some(exit::OK));
    }
    Ok(None)
}

/// The main output (standard output or `--output`) and each `--output-format=F:FILE`'s
/// file; sinks on ranks other than 0.
fn open_outputs(
    cli: &args::Cli,
    format_files: &FormatFiles,
    is_root: bool,
) -> Result<Outputs, Failure> {
    let main_out: Box<dyn Write> = match (&cli.output, is_root) {
        (_, false) => Box::new(std::io::sink()),
        (Some(p), true) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("--output {}", p.display()))?,
        )),
        (None, true) => Box::new(std::io::stdout().lock()),
    };
    let mut outs = Outputs {
        main: main_out,
        files: Vec::new(),
    };
    for (f, path) in format_files {
        let w: Box<dyn Write> = if is_root {
            Box::new(std::io::BufWriter::new(
                std::fs::File::create(path)
                    .with_context(|| format!("--output-{} {}", f.name(), path.display()))?,
            ))
        } else {
            Box::new(std::io::sink())
        };
        outs.files.push((f.name(), w));
    }
    Ok(outs)
}

/// The exit code of a run: 130/143 after a signal (or a rank stopped by one), 1 after an
/// I/O error, 4 when an `assert=` check failed (each printed), else 0.
fn verdict(
    signals: &signals::Signals,
    plan: &fathom::plan::Plan,
    result: &fathom::Report,
    is_root: bool,
) -> u8 {
    if let Some(code) = signals.exit_code() {
        if is_root {
            eprintln!("fathom: interrupted: the results above cover the work done until then");
        }
        code
    } else if result.interrupted {
        // Stopped by another rank (a signal to that process alone): as interrupted here.
        if is_root {
            eprintln!(
                "fathom: interrupted (a rank was stopped): the results above cover the work \
                 done until then"
            );
        }
        130
    } else if result.jobs.iter().any(|j| j.stats.error != 0) {
        exit::IO_ERROR
    } else {
        let checks = if is_root {
            fathom::gate::evaluate(plan, result, &[])
        } else {
            Vec::new()
        };
        for c in &checks {
            let verdict = if c.ok { "ok" } else { "FAILED" };
            eprintln!(
                "fathom: assert {verdict}: job '{}': {} (measured {})",
                c.job, c.text, c.shown
            );
        }
        if checks.iter().any(|c| !c.ok) {
            exit::CHECK_FAILED
        } else {
            exit::OK
        }
    }
}

/// fio's preamble (a line per job group, the version, the number of threads) and
/// fathom's layout lines, before the run.
fn preamble(
    plan: &fathom::plan::Plan,
    ranks: u32,
    is_root: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let jobs: Vec<_> = plan
        .jobs
        .iter()
        .map(|j| {
            (
                j.spec.name.clone(),
                j.groupid,
                j.info(),
                j.clones.len() as u32 * ranks,
            )
        })
        .collect();
    fathom_report::write_preamble(&jobs, fathom::VERSION, plan.threads() * ranks, out)?;
    if is_root {
        out.write_all(layout_lines(plan).as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// The live view: fio's ETA line on standard error and `--status-interval` blocks.
struct LiveView {
    show_eta: bool,
    eta_every: std::time::Duration,
    eta_newline: Option<std::time::Duration>,
    status_every: Option<std::time::Duration>,
    stderr_tty: bool,
    /// Status blocks as text, as JSON (with a machine-readable output format), and on
    /// standard output (no `--output` file) or standard error.
    text: bool,
    json: bool,
    to_stdout: bool,
}

impl LiveView {
    /// `runner`, calling back every ETA or status period to print them.
    fn attach(self, runner: Runner, plan: &fathom::plan::Plan) -> Runner {
        let LiveView {
            show_eta,
            eta_every,
            eta_newline,
            status_every,
            stderr_tty,
            text,
            json,
            to_stdout,
        } = self;
        let shapes = live::shapes(plan);
        let period = match (show_eta, status_every) {
            (true, Some(s)) => eta_every.min(s),
            (true, None) => eta_every,
            (false, Some(s)) => s,
            (false, None) => unreachable!(),
        };
        let mut since_status = std::time::Duration::ZERO;
        let mut since_newline = std::time::Duration::ZERO;
        runner.on_interval(period, move |p| {
            if show_eta {
                live::print_eta(&live::eta_line(p, &shapes), stderr_tty);
                if let Some(every) = eta_newline {
                    since_newline += p.interval;
                    if since_newline + period / 2 >= every && stderr_tty {
                        since_newline = std::time::Duration::ZERO;
                        eprintln!();
                    }
                }
            }
            if let Some(every) = status_every {
                since_status += p.interval;
                if since_status + period / 2 >= every {
                    since_status = std::time::Duration::ZERO;
                    let mut block = String::new();
                    if text || !json {
                        block.push_str(&live::status_block(p));
                    }
                    if json {
                        block.push_str(&live::status_json(p));
                    }
                    if to_stdout {
                        let mut o = std::io::stdout().lock();
                        let _ = o.write_all(block.as_bytes());
                        let _ = o.flush();
                    } else {
                        eprint!("{block}");
                    }
                }
            }
        })
    }
}

fn real_main() -> Result<u8, Failure> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(done) = subcommand(&argv) {
        return done;
    }
    // fio's getopt forms (`-name=x`, `-thread`, `--runt=10`, `-o FILE`) as `--name=value`.
    let argv = args::fio_getopt(argv).map_err(|e| usage(anyhow::anyhow!(e)))?;
    if let Some(done) = fio_version(&argv) {
        return done;
    }
    let (clap_indexed, job_indexed) = args::split_args_indexed(argv);
    let clap_args: Vec<_> = clap_indexed.iter().map(|(_, a)| a.clone()).collect();
    if let Some(why) = args::fio_refusal(&clap_args) {
        return Err(usage(anyhow::anyhow!(why)));
    }
    let cli = match parse_cli(clap_args) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    if let Some(code) = info_only(&cli)? {
        return Ok(code);
    }
    let (formats, format_files) = select_formats(&cli).map_err(usage)?;
    let set = job_set(&cli, &clap_indexed, &job_indexed)?;
    // Under mpirun (built with --features mpi) this process is one rank of many.
    let me = Me::detect()?;
    if me.is_root {
        // A value read as fio reads it, not as written, is said (once, however many
        // jobs inherit it).
        let mut said = std::collections::BTreeSet::new();
        for n in set.jobs.iter().flat_map(|j| &j.notes) {
            if said.insert(n) {
                eprintln!("fathom: note: {n}");
            }
        }
    }
    if cli.merge_blktrace_only {
        // As fio's --merge-blktrace-only: the merged traces are written, no job runs.
        fathom::plan::merge_blktraces_only(&set).map_err(|e| usage(anyhow::anyhow!(e)))?;
        return Ok(exit::OK);
    }
    let mut runner = Runner::new(set);
    let timers = Timers::of(&cli, me.is_root)?;
    if me.dist.is_some() {
        runner = with_peers(runner);
    }
    let plan = runner
        .plan_with(fathom::plan::Limits {
            readonly: cli.readonly,
            allow_destructive: cli.allow_destructive,
            rank: me.rank,
            parse_only: cli.parse_only,
        })
        .map_err(|e| me.fail(usage(e)))?;
    if cli.parse_only {
        return Ok(exit::OK);
    }
    if cli.warnings_fatal {
        if let Some(w) = plan.warnings.first() {
            return Err(me.fail(usage(anyhow::anyhow!("{w} (--warnings-fatal)"))));
        }
    }
    if me.is_root && cli.warnings {
        for w in &plan.warnings {
            eprintln!("fathom: {w}");
        }
    }
    let mut outs = open_outputs(&cli, &format_files, me.is_root)?;
    if formats.contains(&Format::Normal) {
        preamble(
            &plan,
            me.rank.map_or(1, |r| r.size),
            me.is_root,
            outs.get(Format::Normal),
        )?;
    }
    if timers.show_eta || (timers.status_every.is_some() && me.is_root) {
        runner = timers.view(&cli, &formats).attach(runner, &plan);
    }
    let signals = signals::install(runner.cancel_handle(), runner.live_board(&plan));
    let mut ran = repetitions(&cli, &me, &runner, &plan, &formats, &mut outs)?;
    let result = write_results(&formats, &mut ran, &mut outs)?;
    outs.flush()?;
    if cli.bandwidth_log && me.is_root {
        write_bandwidth_logs(&result).context("--bandwidth-log")?;
    }
    if timers.show_eta && timers.stderr_tty {
        eprintln!();
    }
    // Notes and errors: each rank speaks for its own jobs.
    me.say(&ran.said, cli.warnings);
    let code = verdict(&signals, &plan, &result, me.is_root);
    // Every rank leaves with rank 0's verdict on the whole run.
    Ok(match &me.dist {
        Some(d) => {
            let code = d.agree_exit_code(code);
            // Stop announcements that reached this rank after its last phase: taken off
            // the line before MPI ends.
            dist::Dist::peer_stopped();
            code
        }
        None => code,
    })
}

/// The jobs of the job files and of the command line, with the command line's global
/// options over the files' (and --stonewall-time as a runtime).
fn job_set(
    cli: &Cli,
    clap_indexed: &[(usize, std::ffi::OsString)],
    job_indexed: &[(usize, String)],
) -> Result<fathom::JobSet, Failure> {
    let first_file = clap_indexed
        .iter()
        .skip(1)
        .find(|(_, a)| cli.files.iter().any(|f| a.as_os_str() == f.as_str()))
        .map(|(i, _)| *i);
    let (job_args, mut overrides) = args::partition_job_args(job_indexed, first_file);
    if let Some(t) = &cli.stonewall_time {
        // fathom's own flag takes decimals (1.5s); the job option is given whole units.
        let d = fathom_job::units::parse_time(t, fathom_job::units::TimeUnit::Seconds)
            .map_err(|e| usage(anyhow::anyhow!("--stonewall-time={t}: {e}")))?;
        overrides.push(format!("--runtime={}us", d.as_micros()));
    }
    let set = fathom_job::parse_all_overriding(&job_args, &overrides, &cli.files, &cli.section)
        .map_err(usage)?;
    if set.jobs.is_empty() {
        return Err(usage(anyhow::anyhow!(
            "no jobs to run; give a job file (e.g. `fathom jobs/quickstart.fio`) or a \
             command-line job (e.g. `fathom --name=test --rw=randread --size=64m`)"
        )));
    }
    Ok(set)
}

/// This process among the ranks of an MPI run (or alone).
struct Me {
    dist: Option<dist::Dist>,
    rank: Option<fathom::plan::Rank>,
    is_root: bool,
    /// "rank N (host): " before a rank's own messages; empty alone.
    who: String,
}

impl Me {
    fn detect() -> Result<Me, Failure> {
        let dist = dist::Dist::detect().map_err(usage)?;
        let rank = dist.as_ref().map(|d| d.rank);
        Ok(Me {
            is_root: rank.is_none_or(|r| r.rank == 0),
            who: rank.map_or(String::new(), |r| {
                format!("rank {} ({}): ", r.rank, fathom::facts::host().hostname)
            }),
            dist,
            rank,
        })
    }

    /// A rank that fails alone exits at once: mpirun then stops the others rather than
    /// leaving them at a barrier.
    fn fail(&self, f: Failure) -> Failure {
        if self.rank.is_some() {
            eprintln!("fathom: {}error: {}", self.who, error_text(&f.err));
            std::process::exit(f.code.into());
        }
        f
    }
}

impl Me {
    /// What this rank's jobs said: their notes (with --warnings) and errors.
    fn say(&self, said: &[(String, Vec<String>, Option<String>)], warnings: bool) {
        for (name, notes, error) in said {
            for n in notes.iter().filter(|_| warnings) {
                eprintln!("fathom: {}job '{name}': note: {n}", self.who);
            }
            if let Some(t) = error {
                eprintln!("fathom: {}job '{name}': {t}", self.who);
            }
        }
    }
}

/// The live view's timers: --eta, --eta-interval, --eta-newline, --status-interval.
struct Timers {
    show_eta: bool,
    eta_every: std::time::Duration,
    eta_newline: Option<std::time::Duration>,
    status_every: Option<std::time::Duration>,
    stderr_tty: bool,
}

impl Timers {
    /// The live view these timers and the outputs asked for make.
    fn view(&self, cli: &Cli, formats: &[Format]) -> LiveView {
        LiveView {
            show_eta: self.show_eta,
            eta_every: self.eta_every,
            eta_newline: self.eta_newline,
            status_every: self.status_every,
            stderr_tty: self.stderr_tty,
            text: formats.contains(&Format::Normal),
            json: formats
                .iter()
                .any(|f| matches!(f, Format::Json | Format::JsonPlus | Format::Native)),
            to_stdout: cli.output.is_none(),
        }
    }

    fn of(cli: &Cli, is_root: bool) -> Result<Timers, Failure> {
        let interval = |opt: &str, v: &str| -> Result<std::time::Duration, Failure> {
            fathom_job::units::parse_time(v, fathom_job::units::TimeUnit::Seconds)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| usage(anyhow::anyhow!("--{opt}={v}: a time such as 500ms or 2s")))
        };
        let stderr_tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
        Ok(Timers {
            show_eta: is_root
                && match cli.eta.as_str() {
                    "always" => true,
                    "never" => false,
                    _ => stderr_tty,
                },
            eta_every: interval("eta-interval", &cli.eta_interval)?,
            eta_newline: match &cli.eta_newline {
                Some(v) => Some(interval("eta-newline", v)?),
                None => None,
            },
            status_every: match &cli.status_interval {
                Some(v) => Some(interval("status-interval", v)?),
                None => None,
            },
            stderr_tty,
        })
    }
}

/// A rank of an MPI run: every rank starts each phase together; a rank stopped alone (a
/// signal to one process) stops every rank there, rather than leaving them at a barrier.
fn with_peers(runner: Runner) -> Runner {
    let h = runner.cancel_handle();
    let runner = runner.before_phase(move |_| {
        if dist::Dist::any(h.is_cancelled()) {
            h.cancel();
        }
    });
    // Within a phase: a rank stopped alone tells the others at once, and they stop
    // their phase too (within a poll, 50 ms) instead of finishing it first.
    fathom::cluster::stop_with_peers(runner, dist::Dist::stop_signals())
}

/// What the repetitions of a run gave.
struct Ran {
    /// Each repetition's result (every rank's, merged at rank 0).
    reps: Vec<fathom::Report>,
    /// What this rank's jobs said in the last repetition: (job, notes, error).
    said: Vec<(String, Vec<String>, Option<String>)>,
    /// Rank 0 of an MPI run: each rank's part, for the JSON and normal outputs.
    breakdown: Option<serde_json::Value>,
}

/// Run the plan --repeat times (each repetition's normal report printed as it ends when
/// there are several); a failed or interrupted repetition ends them alone.
fn repetitions(
    cli: &Cli,
    me: &Me,
    runner: &Runner,
    plan: &fathom::plan::Plan,
    formats: &[Format],
    outs: &mut Outputs,
) -> Result<Ran, Failure> {
    let n = cli.repeat as usize;
    let mut ran = Ran {
        reps: Vec::with_capacity(n),
        said: Vec::new(),
        breakdown: None,
    };
    for k in 0..n {
        if n > 1 && me.is_root {
            eprintln!("fathom: repetition {} of {n}", k + 1);
        }
        let mine = runner
            .run_planned(plan)
            .map_err(|e| match e {
                RunError::Setup { .. } => Failure {
                    code: exit::IO_ERROR,
                    err: e.into(),
                },
                e => usage(e),
            })
            .map_err(|f| me.fail(f))?;
        ran.said = mine
            .jobs
            .iter()
            .map(|j| (j.name.clone(), j.notes.clone(), j.error_text.clone()))
            .collect();
        // Every rank's result, merged exactly at rank 0.
        let r = match &me.dist {
            Some(d) => {
                let all = d.gather(&mine).map_err(|e| me.fail(usage(e)))?;
                if me.is_root {
                    ran.breakdown = Some(dist::breakdown(&all));
                    fathom::Report::merge(all.into_iter().map(|x| x.result).collect())
                        .map_err(|e| me.fail(usage(anyhow::anyhow!(e))))?
                } else {
                    mine
                }
            }
            None => mine,
        };
        if n > 1 && formats.contains(&Format::Normal) {
            let out = outs.get(Format::Normal);
            writeln!(out, "\n--- repetition {} of {n} ---", k + 1)?;
            fathom_report::reporter(Format::Normal).write_report(&r, out)?;
            out.flush()?;
        }
        // A distributed run does every repetition on every rank (no rank stops alone).
        let stop =
            me.dist.is_none() && (r.interrupted || r.jobs.iter().any(|j| j.stats.error != 0));
        ran.reps.push(r);
        if stop {
            break;
        }
    }
    Ok(ran)
}

/// The run's result in every format asked for (with several repetitions: their merge,
/// and the statistics across them); returns the result.
fn write_results(
    formats: &[Format],
    ran: &mut Ran,
    outs: &mut Outputs,
) -> Result<fathom::Report, Failure> {
    if ran.reps.len() != 1 {
        let result = fathom::Report::merge_sequential(ran.reps.clone())
            .map_err(|e| usage(anyhow::anyhow!(e)))?;
        write_repeated(formats, &result, &ran.reps, outs)?;
        return Ok(result);
    }
    let result = ran.reps.pop().expect("one run");
    for f in formats {
        let out = outs.get(*f);
        match (&ran.breakdown, f) {
            (Some(b), Format::Json) => json_with(&result, "fathom_ranks", b.clone(), out)?,
            (Some(b), Format::Normal) => {
                fathom_report::reporter(Format::Normal).write_report(&result, out)?;
                out.write_all(dist::breakdown_table(b).as_bytes())?;
            }
            _ => fathom_report::reporter(*f).write_report(&result, out)?,
        }
    }
    Ok(result)
}

/// `--bandwidth-log`: per direction, every job's interval samples added up by interval,
/// as fio's log lines (`time_ms, KiB/s, ddir, 0, 0`).
fn write_bandwidth_logs(run: &fathom::Report) -> std::io::Result<()> {
    for (d, name) in ["read", "write", "trim"].iter().enumerate() {
        let mut by_interval: Vec<(u64, u64, u64)> = Vec::new(); // (end ms, len ms, bytes)
        for j in &run.jobs {
            for (k, s) in j.stats.dirs[d].samples.iter().enumerate() {
                if by_interval.len() <= k {
                    by_interval.push((s.t_ms, s.len_ms, 0));
                }
                by_interval[k].2 += s.bytes;
            }
        }
        let mut text = String::new();
        for (t, len, bytes) in by_interval {
            if let Some(bps) = (bytes * 1000).checked_div(len) {
                text.push_str(&format!("{t}, {}, {d}, 0, 0\n", bps / 1024));
            }
        }
        std::fs::write(format!("agg-{name}_bw.log"), text)?;
    }
    Ok(())
}

/// fio's JSON document of `run` with one fathom extension key added at the top level.
fn json_with(
    run: &fathom::Report,
    key: &str,
    value: serde_json::Value,
    out: &mut dyn Write,
) -> Result<()> {
    let mut v = fathom_report::json::document(run);
    v[key] = value;
    let mut text = serde_json::to_vec_pretty(&v)?;
    text.push(b'\n');
    out.write_all(&text)?;
    Ok(())
}

/// Where each format goes: its own `--output-FORMAT` file, else the main output.
struct Outputs {
    main: Box<dyn Write>,
    files: Vec<(&'static str, Box<dyn Write>)>,
}

impl Outputs {
    fn get(&mut self, f: Format) -> &mut dyn Write {
        match self.files.iter().position(|(n, _)| *n == f.name()) {
            Some(i) => &mut *self.files[i].1,
            None => &mut *self.main,
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.main.flush()?;
        for (_, w) in &mut self.files {
            w.flush()?;
        }
        Ok(())
    }
}

/// The formats to write (in order) and the ones sent to their own files.
type FormatFiles = Vec<(Format, std::path::PathBuf)>;

fn select_formats(cli: &args::Cli) -> Result<(Vec<Format>, FormatFiles)> {
    let mut formats = if cli.minimal {
        vec![Format::Terse(3)]
    } else {
        fathom_report::parse_formats(&cli.output_format)
            .map_err(|e| anyhow::anyhow!("--output-format: {e}"))?
    };
    if cli.append_terse && !formats.iter().any(|f| matches!(f, Format::Terse(_))) {
        formats.push(Format::Terse(3));
    }
    let files: Vec<(Format, std::path::PathBuf)> = [
        (Format::Normal, &cli.output_normal),
        (Format::Terse(3), &cli.output_terse),
        (Format::Json, &cli.output_json),
        (Format::JsonPlus, &cli.output_json_plus),
        (Format::Csv, &cli.output_csv),
        (Format::Markdown, &cli.output_markdown),
        (Format::Native, &cli.output_native),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.clone().map(|p| (f, p)))
    .collect();
    // A format sent to its own file is selected too.
    for (f, _) in &files {
        if !formats.iter().any(|x| x.name() == f.name()) {
            formats.push(*f);
        }
    }
    if let Some(v) = cli.terse_version {
        for f in &mut formats {
            if let Format::Terse(x) = f {
                *x = v;
            }
        }
    }
    let files = files
        .into_iter()
        .map(|(f, p)| {
            (
                *formats.iter().find(|x| x.name() == f.name()).unwrap_or(&f),
                p,
            )
        })
        .collect();
    Ok((formats, files))
}

/// The output of `--repeat=N` (N > 1): each repetition was printed already in the normal
/// format; now the summary, and the machine formats of all repetitions.
fn write_repeated(
    formats: &[Format],
    merged: &fathom::Report,
    reps: &[fathom::Report],
    outs: &mut Outputs,
) -> Result<()> {
    let summary = fathom_report::compare::summarize(reps);
    for f in formats {
        let out = outs.get(*f);
        match f {
            Format::Normal => out
                .write_all(fathom_report::compare::repeat_table(&summary, reps.len()).as_bytes())?,
            Format::Native => fathom_report::native::write_with_repetitions(merged, reps, out)?,
            Format::Json => {
                // fio's JSON of all repetitions together, plus the per-metric statistics.
                let extra = serde_json::json!({ "count": reps.len(), "summary": summary });
                json_with(merged, "fathom_repetitions", extra, out)?;
            }
            f => fathom_report::reporter(*f).write_report(merged, out)?,
        }
    }
    Ok(())
}
