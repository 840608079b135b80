//! The subcommands besides running jobs: `merge`, `verify --journal`, `compare`, `plot`,
//! `install-links`, and the engine list of `--enghelp`.

use crate::args;
use crate::common::*;
use anyhow::{Context, Result};
use std::io::Write;

/// Parse a subcommand's arguments; on --help or a usage error, print clap's text and give
/// the exit code.
pub(crate) fn parse_sub<T: clap::Parser>(argv: &[std::ffi::OsString]) -> Result<T, u8> {
    T::try_parse_from(argv).map_err(|e| {
        let code = match e.kind() {
            clap::error::ErrorKind::DisplayHelp => exit::OK,
            _ => exit::USAGE,
        };
        let _ = e.print();
        code
    })
}

/// `fathom merge A B ...`: read native results (or fio's JSON+), add them, write the
/// merged result.
pub(crate) fn merge_main(argv: &[std::ffi::OsString]) -> Result<u8, Failure> {
    let cli = match parse_sub::<args::MergeCli>(argv) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let formats = fathom_report::parse_formats(&cli.output_format)
        .map_err(|e| usage(anyhow::anyhow!("--output-format: {e}")))?;
    let mut runs = Vec::new();
    for f in &cli.files {
        let text = if f == "-" {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .context("reading stdin")?;
            s
        } else {
            read_result_file(f)?
        };
        // A native result, or JSON+ written by fio (or by fathom): fio runs merge too.
        let run = match fathom_report::native::read(&text) {
            Ok(r) => r,
            Err(native_err) => fathom_report::fio_in::run_of_fio_json(&text).map_err(|e| {
                usage(anyhow::anyhow!(
                    "{f}: neither a native result ({native_err}) nor fio JSON+ ({e})"
                ))
            })?,
        };
        runs.push(run);
    }
    let merged = fathom::Report::merge(runs).map_err(|e| usage(anyhow::anyhow!("{e}")))?;
    let mut out: Box<dyn Write> = match &cli.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("--output {}", p.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    for f in &formats {
        fathom_report::reporter(*f).write_report(&merged, &mut out)?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// `fathom verify --journal PATH`: check a crashed journaled run.
pub(crate) fn verify_main(argv: &[std::ffi::OsString]) -> Result<u8, Failure> {
    let cli = match parse_sub::<args::VerifyCli>(argv) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let r = fathom::journal::check(&cli.journal).map_err(|e| usage(anyhow::anyhow!("{e}")))?;
    let mut out = std::io::stdout().lock();
    if cli.offsets {
        let files: std::collections::BTreeSet<_> = r.acknowledged.iter().map(|a| &a.0).collect();
        for (f, off) in &r.acknowledged {
            if files.len() > 1 {
                writeln!(out, "{}\t{off}", f.display())?;
            } else {
                writeln!(out, "{off}")?;
            }
        }
    } else {
        for f in &r.failures {
            writeln!(out, "{f}")?;
        }
        writeln!(
            out,
            "verify: {} acknowledged chunks ({} bytes) checked, {} failed; {} in flight at the crash",
            r.checked,
            r.bytes,
            r.failures.len(),
            r.in_flight
        )?;
    }
    out.flush()?;
    Ok(if r.failures.is_empty() {
        exit::OK
    } else {
        exit::IO_ERROR
    })
}

/// `fathom compare BASE NEW`: per-metric verdicts, optionally a CI gate.
pub(crate) fn compare_main(argv: &[std::ffi::OsString]) -> Result<u8, Failure> {
    let cli = match parse_sub::<args::CompareCli>(argv) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    use fathom_report::compare;
    let gate = match &cli.fail_if_slower {
        Some(g) => {
            compare::parse_gate(g).map_err(|e| usage(anyhow::anyhow!("--fail-if-slower: {e}")))?
        }
        None => Vec::new(),
    };
    // A native result, or JSON/JSON+ written by fio (or by fathom): fio baselines work.
    let load = |f: &str| -> Result<fathom_report::figures::Figured, Failure> {
        use fathom_report::figures;
        let text = read_result_file(f)?;
        match fathom_report::native::read_full(&text) {
            Ok((r, reps)) => Ok(figures::of_native(&r, &reps)),
            Err(native_err) => figures::of_fio_json(&text).map_err(|e| {
                usage(anyhow::anyhow!(
                    "{f}: neither a native result ({native_err}) nor fio JSON ({e})"
                ))
            }),
        }
    };
    let b = load(&cli.base)?;
    let n = load(&cli.new)?;
    let rows = compare::compare_figured(
        &b,
        &n,
        compare::CompareOpts {
            alpha: cli.alpha,
            noise_pct: cli.noise,
        },
    );
    if rows.is_empty() {
        return Err(usage(anyhow::anyhow!(
            "no job and direction with I/O in both results (jobs are matched by name)"
        )));
    }
    // Where a side is not a native result, say what each was read as.
    let sources = if b.source != "fathom native" || n.source != "fathom native" {
        format!(
            "base: {} ({}); new: {} ({})\n",
            cli.base, b.source, cli.new, n.source
        )
    } else {
        String::new()
    };
    let text = match cli.format.as_str() {
        "table" => compare::table(&rows) + &sources,
        "markdown" => compare::markdown(&rows),
        "json" => {
            let v = serde_json::json!({
                "base": cli.base,
                "new": cli.new,
                "base_source": b.source,
                "new_source": n.source,
                "alpha": cli.alpha,
                "noise_pct": cli.noise,
                "comparisons": rows,
                "gate_failures": compare::gate_failures(&rows, &gate).len(),
            });
            serde_json::to_string_pretty(&v).context("json")? + "\n"
        }
        f => {
            return Err(usage(anyhow::anyhow!(
                "--format={f}: use table, markdown or json"
            )))
        }
    };
    print_stdout(&text)?;
    let failed = compare::gate_failures(&rows, &gate);
    for c in &failed {
        eprintln!(
            "fathom: compare: job '{}' {} {} is {:.1}% worse (p={:.4}): over the --fail-if-slower limit",
            c.job, c.dir, c.metric, c.worse_pct, c.p_value
        );
    }
    Ok(if failed.is_empty() {
        exit::OK
    } else {
        exit::CHECK_FAILED
    })
}

/// `fathom plot A [B ...] -o DIR`: SVG charts of results.
pub(crate) fn plot_main(argv: &[std::ffi::OsString]) -> Result<u8, Failure> {
    let cli = match parse_sub::<args::PlotCli>(argv) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let mut inputs = Vec::new();
    for f in &cli.files {
        let text = read_result_file(f)?;
        let run = match fathom_report::native::read(&text) {
            Ok(r) => r,
            Err(native_err) => fathom_report::plot::from_fio_json(&text).map_err(|e| {
                usage(anyhow::anyhow!(
                    "{f}: neither a native result ({native_err}) nor fio JSON ({e})"
                ))
            })?,
        };
        let label = std::path::Path::new(f)
            .file_stem()
            .map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned());
        inputs.push(fathom_report::plot::Input { label, run });
    }
    let charts = fathom_report::plot::charts(&inputs).map_err(|e| usage(anyhow::anyhow!(e)))?;
    if charts.is_empty() {
        return Err(usage(anyhow::anyhow!(
            "nothing to plot: the results hold no I/O"
        )));
    }
    std::fs::create_dir_all(&cli.output)
        .with_context(|| format!("creating {}", cli.output.display()))?;
    let mut listing = String::new();
    for c in &charts {
        let p = cli.output.join(&c.file);
        std::fs::write(&p, &c.svg).with_context(|| format!("writing {}", p.display()))?;
        listing.push_str(&format!("{}  {}\n", p.display(), c.title));
    }
    print_stdout(&listing)?;
    Ok(exit::OK)
}

/// `fathom install-links DIR`: links named as the classic tools, to this binary.
pub(crate) fn install_links(argv: &[std::ffi::OsString]) -> Result<u8, Failure> {
    let help =
        "fathom install-links DIR: make DIR/bonnie++, iozone, sysbench, IOR, dd, dbench, vdbench and fio \
                links to this binary (existing files are left alone); run under those names, \
                fathom acts as the tool";
    let Some(dir) = argv
        .get(2)
        .filter(|d| !d.to_string_lossy().starts_with('-'))
    else {
        if argv.get(2).is_some_and(|a| a == "--help" || a == "-h") {
            print_stdout(&format!("{help}\n"))?;
            return Ok(exit::OK);
        }
        return Err(usage(anyhow::anyhow!("{help}")));
    };
    let dir = std::path::Path::new(dir);
    let me = std::env::current_exe().context("finding this binary")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for name in [
        "bonnie++",
        "iozone",
        "sysbench",
        "IOR",
        "dd",
        "dbench",
        "metarates",
        "vdbench",
        "fio",
    ] {
        let link = dir.join(name);
        if link.symlink_metadata().is_ok() {
            eprintln!("fathom: {} exists: left as it is", link.display());
            continue;
        }
        std::os::unix::fs::symlink(&me, &link)
            .with_context(|| format!("linking {}", link.display()))?;
        print_stdout(&format!("{} -> {}\n", link.display(), me.display()))?;
    }
    Ok(exit::OK)
}

/// Options each engine honours (their docs come from the option table).
pub(crate) const ENGINE_OPTIONS: &[(&str, &[&str])] = &[
    (
        "io_uring",
        &[
            "hipri",
            "fixedbufs",
            "registerfiles",
            "sqthread_poll",
            "sqthread_poll_cpu",
            "nonvectored",
            "force_async",
        ],
    ),
    ("libaio", &["userspace_reap"]),
    ("cpuio", &["cpuload", "cpuchunks", "cpumode"]),
    ("pvsync2", &["hipri", "nowait"]),
    ("filestat", &["stat_type"]),
    ("dirstat", &["stat_type"]),
    (
        "filetree",
        &[
            "meta_mix",
            "fileselect",
            "tree_format",
            "tree_names",
            "tree_shared",
            "tree_depth",
            "tree_width",
            "tree_distribution",
            "unique_dir",
            "stat_type",
        ],
    ),
];

pub(crate) fn enghelp(engine: &str) -> Result<String> {
    if engine.is_empty() {
        let mut s = String::from("Available I/O engines:\n");
        for (name, doc) in fathom_engine::ENGINES {
            s.push_str(&format!("  {name:<10} {doc}\n"));
        }
        s.push_str("\nfathom --enghelp=ENGINE lists an engine's options.\n");
        return Ok(s);
    }
    let engine = match engine {
        "aio" | "linuxaio" => "libaio",
        e => e,
    };
    let Some((name, doc)) = fathom_engine::ENGINES.iter().find(|e| e.0 == engine) else {
        fathom_engine::create(engine)?;
        anyhow::bail!("engine '{engine}' has no help");
    };
    let mut s = format!("{name}: {doc}\n");
    match ENGINE_OPTIONS.iter().find(|e| e.0 == engine) {
        Some((_, opts)) => {
            s.push_str("options:\n");
            for o in *opts {
                let doc = fathom_job::options::find(o).map(|d| d.doc).unwrap_or("");
                s.push_str(&format!("  {o:<18} {doc}\n"));
            }
        }
        None => s.push_str("  (no engine-specific options)\n"),
    }
    Ok(s)
}
