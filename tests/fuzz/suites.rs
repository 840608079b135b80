//! Each classic tool's command line, as `fathom suite TOOL ...` and the links named as the
//! tools read it: runbook lines mutated word by word, with each tool's own options.

use crate::{fuzz, mutate_args, Src};
use fathom_suites::{bonnie, cdm, curve, dbench, dd, ior, iozone, metarates, sysbench};

type Parse = fn(&[String]);

/// (tool, runbook command lines, the tool's options, its parser)
type Tool = (
    &'static str,
    Vec<&'static [&'static str]>,
    &'static [&'static str],
    Parse,
);

fn tools() -> Vec<Tool> {
    vec![
        (
            "bonnie++",
            vec![
                &[
                    "-d",
                    "/mnt/raid",
                    "-s",
                    "16g",
                    "-r",
                    "8g",
                    "-n",
                    "16",
                    "-m",
                    "raid10",
                    "-u",
                    "root",
                    "-x",
                    "3",
                ],
                &[
                    "-d",
                    "/tmp",
                    "-s",
                    "2048:4k",
                    "-n",
                    "4:1024:16:8",
                    "-f",
                    "-b",
                    "-q",
                ],
                &[
                    "--dir=/mnt/disk",
                    "--size=8g",
                    "--files=16",
                    "--output-format=csv",
                ],
            ],
            &[
                "-d",
                "-s",
                "-r",
                "-n",
                "-m",
                "-u",
                "-g",
                "-x",
                "-y",
                "-z",
                "-Z",
                "-p",
                "-q",
                "-f",
                "-b",
                "-D",
                "-c",
                "-h",
                "--size=",
                "--ram=",
                "--files=",
                "--seeks=",
                "--seekers=",
                "--char-size=",
                "--fsync",
                "--direct",
                "--seed=",
                "2g",
                "0",
                "-1",
                "16:4k:1k:4",
            ],
            |a| {
                let _ = bonnie::parse(a);
            },
        ),
        (
            "cdm",
            vec![
                &["--dir=/mnt/disk", "--size=1g", "--loops=5"],
                &["--profile=nvme", "--runtime=5", "--ioengine=io_uring"],
            ],
            &[
                "--dir=",
                "--directory=",
                "--size=",
                "--loops=",
                "--runtime=",
                "--profile=",
                "--ioengine=",
                "1g",
                "0",
            ],
            |a| {
                let _ = cdm::parse(a);
            },
        ),
        (
            "curve",
            vec![&[
                "--rw=randread",
                "--bs=4k",
                "--directory=/mnt",
                "--size=4g",
                "--ioengine=libaio",
                "--iodepth=16",
                "--points=10,50,90,100",
                "--runtime=5",
                "--svg=c.svg",
            ]],
            &[
                "--points=",
                "--stop=",
                "--svg=",
                "--runtime=",
                "--rw=",
                "--bs=",
                "--rate_iops=",
                "--",
                "-",
                "100,50",
                "p99>2ms",
            ],
            |a| {
                let _ = curve::parse(a);
            },
        ),
        (
            "dbench",
            vec![
                &["100", "-t", "36000"],
                &[
                    "-t",
                    "60",
                    "-D",
                    "/mnt/share",
                    "-c",
                    "/usr/share/dbench/client.txt",
                    "-s",
                    "-S",
                    "8",
                ],
                &[
                    "--timelimit=5",
                    "--warmup=1",
                    "--per-client-results",
                    "--skip-cleanup",
                    "2",
                ],
            ],
            &[
                "-t",
                "-D",
                "-c",
                "-s",
                "-S",
                "-F",
                "-x",
                "-R",
                "-B",
                "-T",
                "--warmup=",
                "--clients-per-process=",
                "--no-resolve",
                "--stat-check",
                "--fake-io",
                "--help",
                "0",
                "10001",
                "-t60",
                "1.5",
            ],
            |a| {
                let _ = dbench::parse(a);
            },
        ),
        (
            "metarates",
            vec![
                &["-d", "junk", "-n", "1000000", "-C", "-U", "-S"],
                &["-d", "/mnt/pfs/m", "-n", "4096", "-C", "-s", "-u", "-k"],
                &["-djunk", "-n1000", "-CUSr", "3"],
            ],
            &[
                "-d",
                "-n",
                "-k",
                "-u",
                "-C",
                "-U",
                "-S",
                "-s",
                "-f",
                "-a",
                "-r",
                "-h",
                "-CUS",
                "-n0",
                "-r0",
                "-",
                "--",
                "18446744073709551616",
                "-dé",
            ],
            |a| {
                let _ = metarates::parse(a);
            },
        ),
        (
            "dd",
            vec![
                &[
                    "if=/dev/zero",
                    "of=/mnt/x",
                    "bs=1M",
                    "count=256",
                    "oflag=direct",
                    "conv=fdatasync",
                ],
                &[
                    "if=/mnt/x",
                    "of=/dev/null",
                    "bs=1M",
                    "iflag=direct",
                    "skip=4",
                    "status=progress",
                ],
            ],
            &[
                "if=",
                "of=",
                "bs=",
                "ibs=",
                "obs=",
                "count=",
                "skip=",
                "seek=",
                "iflag=",
                "oflag=",
                "conv=",
                "status=",
                "direct",
                "dsync",
                "sync",
                "fsync",
                "notrunc",
                "1G",
                "512",
                "0x10",
                "1kB",
                "2w",
                "9999999999999999999M",
            ],
            |a| {
                if let Ok(d) = dd::Dd::parse(a) {
                    let _ = d.job();
                }
            },
        ),
        (
            "IOR",
            vec![
                &[
                    "-a",
                    "POSIX",
                    "-o",
                    "/mnt/pfs/testFile",
                    "-N",
                    "8",
                    "-b",
                    "16m",
                    "-t",
                    "1m",
                    "-s",
                    "4",
                    "-i",
                    "3",
                ],
                &[
                    "-a", "POSIX", "-F", "-w", "-r", "-C", "-e", "-k", "-t", "47008", "-b",
                    "47008", "-s", "1000", "-z",
                ],
                &[
                    "--api=POSIX",
                    "--block=1g",
                    "--transfer=4m",
                    "--file-per-proc",
                    "--iterations=2",
                ],
            ],
            &[
                "-a",
                "-b",
                "-t",
                "-s",
                "-i",
                "-o",
                "-N",
                "-F",
                "-w",
                "-r",
                "-W",
                "-R",
                "-C",
                "-Q",
                "-e",
                "-Y",
                "-k",
                "-E",
                "-u",
                "-z",
                "-c",
                "-d",
                "-g",
                "-m",
                "-v",
                "-O",
                "-h",
                "useO_DIRECT=1,keepFile=1",
                "verbose=3,bogus=1",
                "-OsegmentCount=0",
                "--blockSize=64k",
                "--numTasks=0",
                "MPIIO",
                "HDF5",
                "1m",
                "0",
                "--transfer=",
                "--block=",
                "--segments=",
                "--tasks=",
                "--reorderTasks",
            ],
            |a| {
                let _ = ior::parse(a);
            },
        ),
        (
            "iozone",
            vec![
                &[
                    "-a",
                    "-g",
                    "256m",
                    "-f",
                    "/mnt/disk/iozone.tmp",
                    "-R",
                    "-b",
                    "out.xls",
                ],
                &[
                    "-i", "0", "-i", "1", "-i", "2", "-s", "1g", "-r", "4k", "-I", "-e", "-c",
                ],
                &[
                    "-t", "4", "-s", "64m", "-r", "128k", "-i", "0", "-F", "/a", "/b", "/c", "/d",
                ],
            ],
            &[
                "-a", "-g", "-n", "-y", "-q", "-s", "-r", "-i", "-f", "-F", "-t", "-I", "-e", "-c",
                "-w", "-O", "-M", "-R", "-b", "-z", "-h", "--svg=", "--csv=", "--dir=", "0", "1",
                "2", "8", "12", "4k", "16m", "-1",
            ],
            |a| {
                let _ = iozone::parse(a);
            },
        ),
        (
            "sysbench",
            vec![
                &[
                    "fileio",
                    "--file-total-size=8G",
                    "--file-test-mode=rndrw",
                    "--time=300",
                    "run",
                ],
                &[
                    "--file-num=4",
                    "--file-block-size=4096",
                    "--file-io-mode=async",
                    "--file-fsync-freq=0",
                    "prepare",
                ],
                &[
                    "--threads=16",
                    "--file-extra-flags=direct",
                    "--file-rw-ratio=2",
                    "--report-interval=1",
                    "--events=1000",
                    "run",
                ],
            ],
            &[
                "fileio",
                "prepare",
                "run",
                "cleanup",
                "--file-total-size=",
                "--file-test-mode=",
                "--file-num=",
                "--file-block-size=",
                "--file-io-mode=",
                "--file-async-backlog=",
                "--file-fsync-freq=",
                "--file-fsync-all=",
                "--file-fsync-end=",
                "--file-fsync-mode=",
                "--file-merged-requests=",
                "--file-rw-ratio=",
                "--file-extra-flags=",
                "--threads=",
                "--time=",
                "--events=",
                "--report-interval=",
                "--rate=",
                "--histogram",
                "--percentile=",
                "--validate",
                "seqwr",
                "rndrd",
                "off",
            ],
            |a| {
                let _ = sysbench::parse(a);
            },
        ),
    ]
}

#[test]
fn fuzz_suite_command_lines() {
    let tools = tools();
    fuzz("classic tools' command lines", 5000, |input| {
        let mut src = Src::new(input);
        let (_, seeds, dict, parse) = &tools[src.pick(tools.len())];
        let seed = seeds[src.pick(seeds.len())];
        parse(&mutate_args(seed, dict, &mut src));
        // Any words at all, as a runbook with a typo might have.
        let words: Vec<String> = String::from_utf8_lossy(input)
            .split_whitespace()
            .map(str::to_string)
            .collect();
        parse(&words);
    });
}

#[test]
fn fuzz_dbench_loadfiles() {
    let seed = dbench::load::builtin();
    let seed: String = seed.lines().take(200).collect::<Vec<_>>().join("\n");
    fuzz("dbench loadfiles", 3000, |input| {
        let text = String::from_utf8_lossy(input);
        let _ = dbench::load::parse(&text, "fuzz.txt");
        let _ = dbench::load::parse(&crate::splice(&seed, input.len(), &text), "fuzz.txt");
    });
}

#[test]
fn iozone_matrices_with_a_zero_or_huge_bound_are_refused_not_grown() {
    // Found by the fuzz run: `-n 0` doubled 0 forever (8 GiB allocation, then abort).
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert!(iozone::parse(&words("-a -n 0")).is_err());
    assert!(iozone::parse(&words("-a -y 0")).is_err());
    let o = iozone::parse(&words("-a -n 1k -g 4e")).unwrap();
    assert!(o.sizes.len() <= 64, "{}", o.sizes.len());
}
