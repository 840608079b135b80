//! fio job files (INI and TOML) and the value parsers.

use crate::{fuzz, splice};
use fathom_job::units::{eval_expr, parse_range, parse_size, parse_time, split_rwt, TimeUnit};
use fathom_job::{parse_fio_str, parse_toml_str, Dialect};

/// The job files in `jobs/` (and fio's examples where installed) with extension `ext`.
fn seeds(ext: &str) -> Vec<String> {
    let mut v = Vec::new();
    for dir in ["jobs", "jobs/suites", "/usr/share/doc/fio/examples"] {
        let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e == ext) {
                v.extend(std::fs::read_to_string(&p).ok());
            }
        }
    }
    if ext == "fio" {
        v.push("[global]\nbs=4k,8k\nsize=(1+2)*4m\n[a]\nrw=randrw:8\nbssplit=4k/10:64k/\n".into());
    }
    assert!(!v.is_empty(), "no .{ext} seeds");
    v
}

#[test]
fn fuzz_fio_parser() {
    let seeds = seeds("fio");
    fuzz("fio job file", 3000, |input| {
        let text = String::from_utf8_lossy(input);
        let _ = parse_fio_str(&text, "fuzz.fio");
        // Spliced into a real job file too, so deep paths are reached.
        let seed = &seeds[input.len() % seeds.len()];
        let _ = parse_fio_str(&splice(seed, input.len(), &text), "fuzz.fio");
    });
}

#[test]
fn fuzz_toml_parser() {
    let seeds = seeds("toml");
    fuzz("TOML job file", 3000, |input| {
        let text = String::from_utf8_lossy(input);
        let _ = parse_toml_str(&text, "fuzz.toml");
        let seed = &seeds[input.len() % seeds.len()];
        let _ = parse_toml_str(&splice(seed, input.len(), &text), "fuzz.toml");
        let _ = parse_toml_str(
            &format!(
                "[[job]]\nname = \"a\"\nbs = \"{}\"\n",
                text.replace(['"', '\\'], "")
            ),
            "f.toml",
        );
    });
}

#[test]
fn fuzz_value_parsers() {
    fuzz("option values", 5000, |input| {
        let s = String::from_utf8_lossy(input);
        let _ = parse_size(&s, 1024, Dialect::Fio);
        let _ = parse_size(&s, 1000, Dialect::Toml);
        let _ = parse_time(&s, TimeUnit::Seconds);
        let _ = parse_range(&s, |x| parse_size(x, 1024, Dialect::Fio));
        let _ = split_rwt(&s);
        let _ = eval_expr(&s, false);
        let _ = eval_expr(&s, true);
    });
}

#[test]
fn fuzz_command_line_jobs() {
    let seeds: [&[&str]; 4] = [
        &[
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--size=1g",
            "--iodepth=32",
        ],
        &[
            "--ioengine=libaio",
            "--direct=1",
            "--name=w",
            "--rw=write",
            "--bs=1m",
            "--numjobs=4",
            "--group_reporting",
        ],
        &[
            "--name=m",
            "--rw=randrw",
            "--rwmixread=70",
            "--bssplit=4k/50:64k/50",
            "--runtime=10",
            "--time_based",
            "--name=n",
            "--rw=read",
        ],
        &[
            "--thread",
            "--name=v",
            "--rw=randwrite",
            "--verify=crc32c",
            "--random_distribution=zipf:1.2",
            "--rate_iops=100,50",
        ],
    ];
    let dict = [
        "--name=x",
        "--rw=",
        "--bs=",
        "--size=",
        "--offset=",
        "--offset_increment=",
        "--filesize=",
        "--nrfiles=",
        "--numjobs=",
        "--iodepth=",
        "--rate=",
        "--rate_iops=",
        "--blocksize_range=",
        "--bssplit=",
        "--percentage_random=",
        "--zonemode=strided",
        "--zonesize=",
        "--zoneskip=",
        "--random_distribution=",
        "--verify=",
        "--loops=",
        "--number_ios=",
        "--io_size=",
        "--thinktime=",
        "--ioengine=",
        "--stonewall",
        "--new_group",
        "--wait_for=",
        "--filename=",
        "--directory=",
        "--file_service_type=",
        "--rw_sequencer=",
        "--ramp_time=",
        "--startdelay=",
        "--flow=",
        "--trim_percentage=",
        "--replay_redirect=",
        "--cpus_allowed=",
        "--exitall",
        "--write_bw_log=",
        "--log_avg_msec=",
    ];
    fuzz("command-line jobs", 3000, |input| {
        let mut src = crate::Src::new(input);
        let seed = seeds[src.pick(seeds.len())];
        let args = crate::mutate_args(seed, &dict, &mut src);
        let _ = fathom_job::parse_all(&args, &[], &[]);
    });
}
