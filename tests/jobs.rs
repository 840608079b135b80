//! Every job file shipped in jobs/ parses and plans (`--parse-only`), and the quickstart's
//! TOML twin describes the same job as its fio file.

mod common;
use common::*;

fathomtest!(every_shipped_job_file_parses_and_plans, |env| {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let o = env.run(&["--parse-only", p.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
        n += 1;
    }
    assert!(n >= 2);
});

#[test]
fn the_quickstart_in_toml_is_the_same_job() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs");
    let a = fathom_job::parse_fio_str(
        &std::fs::read_to_string(dir.join("quickstart.fio")).unwrap(),
        "q.fio",
    )
    .unwrap();
    let b = fathom_job::parse_toml_str(
        &std::fs::read_to_string(dir.join("quickstart.toml")).unwrap(),
        "q.toml",
    )
    .unwrap();
    let (mut x, mut y) = (a.jobs[0].clone(), b.jobs[0].clone());
    for j in [&mut x, &mut y] {
        j.origin = Default::default();
        j.job_options.clear();
    }
    assert_eq!(x, y);
}
