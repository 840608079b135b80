//! The preset job library (`jobs/` in the source tree), built into the binary so
//! `--list-jobs` and `--show-job` work wherever fathom is installed.

/// Every preset job file: (file name, text). A test checks this matches `jobs/`.
pub const PRESETS: &[(&str, &str)] = &[
    ("cloud-iops.fio", include_str!("../../jobs/cloud-iops.fio")),
    (
        "cloud-iops.toml",
        include_str!("../../jobs/cloud-iops.toml"),
    ),
    (
        "latency-under-rate.fio",
        include_str!("../../jobs/latency-under-rate.fio"),
    ),
    (
        "latency-under-rate.toml",
        include_str!("../../jobs/latency-under-rate.toml"),
    ),
    (
        "metadata-storm.fio",
        include_str!("../../jobs/metadata-storm.fio"),
    ),
    (
        "metadata-storm.toml",
        include_str!("../../jobs/metadata-storm.toml"),
    ),
    ("oltp-8k.fio", include_str!("../../jobs/oltp-8k.fio")),
    ("oltp-8k.toml", include_str!("../../jobs/oltp-8k.toml")),
    ("quickstart.fio", include_str!("../../jobs/quickstart.fio")),
    (
        "quickstart.toml",
        include_str!("../../jobs/quickstart.toml"),
    ),
    (
        "randread-4k.fio",
        include_str!("../../jobs/randread-4k.fio"),
    ),
    (
        "randread-4k.toml",
        include_str!("../../jobs/randread-4k.toml"),
    ),
    (
        "randwrite-4k.fio",
        include_str!("../../jobs/randwrite-4k.fio"),
    ),
    (
        "randwrite-4k.toml",
        include_str!("../../jobs/randwrite-4k.toml"),
    ),
    ("redo-log.fio", include_str!("../../jobs/redo-log.fio")),
    ("redo-log.toml", include_str!("../../jobs/redo-log.toml")),
    ("seqread-1m.fio", include_str!("../../jobs/seqread-1m.fio")),
    (
        "seqread-1m.toml",
        include_str!("../../jobs/seqread-1m.toml"),
    ),
    (
        "seqwrite-1m.fio",
        include_str!("../../jobs/seqwrite-1m.fio"),
    ),
    (
        "seqwrite-1m.toml",
        include_str!("../../jobs/seqwrite-1m.toml"),
    ),
    (
        "ssd-precondition.fio",
        include_str!("../../jobs/ssd-precondition.fio"),
    ),
    (
        "ssd-precondition.toml",
        include_str!("../../jobs/ssd-precondition.toml"),
    ),
    (
        "suites/bonnie-block.fio",
        include_str!("../../jobs/suites/bonnie-block.fio"),
    ),
    ("suites/cdm.fio", include_str!("../../jobs/suites/cdm.fio")),
    (
        "suites/dd-dsync.fio",
        include_str!("../../jobs/suites/dd-dsync.fio"),
    ),
    (
        "suites/ior-file-per-task.fio",
        include_str!("../../jobs/suites/ior-file-per-task.fio"),
    ),
    (
        "suites/ior-shared.fio",
        include_str!("../../jobs/suites/ior-shared.fio"),
    ),
    (
        "suites/iozone-record.fio",
        include_str!("../../jobs/suites/iozone-record.fio"),
    ),
    (
        "suites/sysbench-rndrw.fio",
        include_str!("../../jobs/suites/sysbench-rndrw.fio"),
    ),
    (
        "verify-soak.fio",
        include_str!("../../jobs/verify-soak.fio"),
    ),
    (
        "verify-soak.toml",
        include_str!("../../jobs/verify-soak.toml"),
    ),
];

/// The one-line description of a preset: its first comment line.
pub fn describe(text: &str) -> &str {
    text.lines()
        .next()
        .map(|l| l.trim_start_matches([';', '#']).trim())
        .unwrap_or("")
}

/// `--list-jobs`: one line per preset name with the formats it comes in.
pub fn list() -> String {
    let mut names: Vec<&str> = PRESETS
        .iter()
        .map(|(f, _)| f.rsplit_once('.').map_or(*f, |(n, _)| n))
        .collect();
    names.dedup();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut s = String::from(
        "Preset job files (jobs/ in the source tree; `fathom --show-job=NAME` prints one,\n\
         `fathom --show-job=NAME.toml` its TOML form). Options after a job file override it:\n\
         \x20 fathom jobs/oltp-8k.fio --directory=/mnt/disk --size=4g\n\n",
    );
    for n in names {
        let fio = PRESETS.iter().find(|(f, _)| *f == format!("{n}.fio"));
        let toml = PRESETS.iter().find(|(f, _)| *f == format!("{n}.toml"));
        let kinds = match (fio.is_some(), toml.is_some()) {
            (true, true) => ".fio .toml",
            (true, false) => ".fio      ",
            _ => "     .toml",
        };
        let text = fio.or(toml).map_or("", |(_, t)| t);
        s.push_str(&format!("  {n:<width$}  {kinds}  {}\n", describe(text)));
    }
    s
}

/// `--show-job=NAME`: the text of a preset (`NAME` or `NAME.fio` or `NAME.toml`).
pub fn show(name: &str) -> Option<&'static str> {
    let want = if name.ends_with(".fio") || name.ends_with(".toml") {
        name.to_string()
    } else {
        format!("{name}.fio")
    };
    PRESETS.iter().find(|(f, _)| *f == want).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_jobs_is_a_preset_and_back() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/jobs");
        let mut on_disk: Vec<String> = Vec::new();
        for sub in ["", "suites/"] {
            on_disk.extend(
                std::fs::read_dir(format!("{dir}/{sub}"))
                    .unwrap()
                    .map(|e| format!("{sub}{}", e.unwrap().file_name().to_string_lossy()))
                    .filter(|n| n.ends_with(".fio") || n.ends_with(".toml")),
            );
        }
        on_disk.sort();
        let mut built_in: Vec<String> = PRESETS.iter().map(|(f, _)| f.to_string()).collect();
        built_in.sort();
        assert_eq!(
            on_disk, built_in,
            "jobs/ and PRESETS in crates/cli/presets.rs differ: add the new file there"
        );
        for (f, t) in PRESETS {
            let on = std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
            assert_eq!(&on, t);
            assert!(!describe(t).is_empty(), "{f} needs a first comment line");
        }
    }

    #[test]
    fn show_finds_by_name_with_or_without_extension() {
        assert!(show("quickstart").unwrap().contains("[quickstart]"));
        assert!(show("quickstart.toml").unwrap().contains("[[job]]"));
        assert!(show("nope").is_none());
        assert!(list().contains("quickstart"));
    }
}
