//! Result files: fathom's native format and fio's JSON and JSON+ (fathom's and fio's own),
//! read as `fathom merge`, `compare` and `plot` read them, then merged, compared, written
//! in every format and drawn.

use crate::{fathom, fuzz, mutate_json, Src};
use fathom_report::{compare, figures, native, plot};

const JOB: &[&str] = &[
    "--ioengine=null",
    "--name=a",
    "--rw=randrw",
    "--bs=4k",
    "--size=1m",
    "--name=b",
    "--rw=read",
    "--bs=64k",
    "--size=2m",
];

fn with(format: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![format];
    args.extend_from_slice(extra);
    args.extend_from_slice(JOB);
    serde_json::from_str(&fathom(&std::env::temp_dir(), &args)).expect("JSON")
}

/// `fathom compare` of a result against itself.
fn compare_with_itself(f: &figures::Figured) {
    let o = compare::CompareOpts {
        alpha: 0.05,
        noise_pct: 1.0,
    };
    let _ = compare::compare_figured(f, f, o);
}

/// Everything a reader's result goes on to.
fn onwards(run: &fathom::RunResult, reps: &[fathom::RunResult]) {
    let f = figures::of_native(run, reps);
    compare_with_itself(&f);
    let mut sink = Vec::new();
    if let Ok(m) = fathom::RunResult::merge(vec![run.clone(), run.clone()]) {
        for fmt in fathom_report::parse_formats("normal,terse,json,json+,native,csv,markdown")
            .expect("formats")
        {
            let _ = fathom_report::reporter(fmt).write_report(&m, &mut sink);
        }
    }
    let _ = fathom::RunResult::merge_sequential(vec![run.clone(), run.clone()]);
    let _ = plot::charts(&[plot::Input {
        label: "fuzz".into(),
        run: run.clone(),
    }]);
}

#[test]
fn fuzz_native_results() {
    let seeds = [
        with("--output-format=native", &[]),
        with("--output-format=native", &["--repeat=2"]),
    ];
    fuzz("native results", 2000, |input| {
        let mut src = Src::new(input);
        let text = mutate_json(&seeds[src.pick(seeds.len())], &mut src);
        if let Ok((run, reps)) = native::read_full(&text) {
            onwards(&run, &reps);
        }
        let _ = native::read_full(&String::from_utf8_lossy(input));
    });
}

#[test]
fn fuzz_fio_json_results() {
    let mut seeds = vec![
        with("--output-format=json", &[]),
        with("--output-format=json+", &[]),
    ];
    // fio's own, where fio is installed.
    if let Ok(o) = std::process::Command::new("fio")
        .args([
            "--output-format=json+",
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--rw=randrw",
        ])
        .output()
    {
        let text = String::from_utf8_lossy(&o.stdout);
        if let Some(v) = text
            .find('{')
            .and_then(|i| serde_json::from_str(&text[i..]).ok())
        {
            seeds.push(v);
        }
    }
    fuzz("fio JSON results", 2000, |input| {
        let mut src = Src::new(input);
        let text = mutate_json(&seeds[src.pick(seeds.len())], &mut src);
        if let Ok(f) = figures::of_fio_json(&text) {
            compare_with_itself(&f);
        }
        if let Ok(run) = plot::from_fio_json(&text) {
            onwards(&run, &[]);
        }
        // As `fathom merge` reads fio's JSON+.
        if let Ok(run) = fathom_report::fio_in::run_of_fio_json(&text) {
            onwards(&run, &[]);
        }
        let raw = String::from_utf8_lossy(input);
        let _ = figures::of_fio_json(&raw);
        let _ = plot::from_fio_json(&raw);
        let _ = fathom_report::fio_in::run_of_fio_json(&raw);
    });
}
