//! The README's library example: a disk check a service could run at start-up.
//! `cargo run --release --example readme`

use fathom::{Engine, Job, Runner, RwKind};
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join("fathom-readme-example");
    let job = Job::builder("startup-check")
        .rw(RwKind::RandRead)
        .bs(4096)
        .size(32 << 20)
        .engine(Engine::Psync)
        .directory(&dir)
        .runtime(Duration::from_secs(2))
        .option("unlink", "1")
        .build()?;

    let report = Runner::new(job)
        .on_job_end(|j| eprintln!("{} finished after {:?}", j.name, j.elapsed))
        .run()?;

    let read = &report.jobs[0].stats.dirs[0];
    let iops = read.ios as f64 / report.jobs[0].stats.runtime.as_secs_f64();
    println!(
        "{iops:.0} IOPS, p99 {:.1} µs, p99.9 {:.1} µs",
        read.clat.percentile(99.0) as f64 / 1e3,
        read.clat.percentile(99.9) as f64 / 1e3
    );
    // Keep the whole report (histograms included) for later comparison.
    std::fs::write(dir.with_extension("json"), serde_json::to_string(&report)?)?;
    Ok(())
}

#[test]
fn readme_example_runs() {
    main().unwrap();
    let dir = std::env::temp_dir().join("fathom-readme-example");
    let saved: fathom::Report =
        serde_json::from_str(&std::fs::read_to_string(dir.with_extension("json")).unwrap())
            .unwrap();
    assert_eq!(saved.jobs[0].stats.dirs[0].ios, 8192);
    assert!(
        !dir.join("startup-check.0.0").exists(),
        "unlink=1 removed the file"
    );
}
