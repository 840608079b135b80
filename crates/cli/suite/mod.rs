//! `fathom suite NAME ...`: the classic tools' methods, run by fathom and printed in their
//! familiar formats.

pub mod bonnie;
pub mod cdm;
pub mod curve;
pub mod dd;
pub mod ior;
pub mod iozone;
pub mod sysbench;

/// The suites and what they do.
pub const SUITES: &[(&str, &str)] = &[
    ("bonnie", "bonnie++ 2.00's twelve tests: text table and its 1.98 CSV line (bon_csv2txt reads it)"),
    ("curve", "vdbench's iorate=curve: a max run, then 10..100% of it; response time against rate (+SVG)"),
    ("dd", "dd's operands (if/of/bs/count/skip/seek/iflag/oflag/conv) and closing lines, plus latency percentiles"),
    ("ior", "IOR's write/read by --tasks: file per task (N-N) or one shared, segmented file (N-1)"),
    ("iozone", "iozone's 13 tests over its -a matrix of file and record sizes; table, CSV, SVG heat maps; -t throughput"),
    ("cdm", "CrystalDiskMark 8's tests (default or --profile=nvme): MB/s and IOPS, best of --loops"),
    ("sysbench", "sysbench fileio: prepare, run, cleanup with its options, defaults and report"),
];

fn help() -> String {
    let mut s =
        String::from("fathom suite NAME [OPTIONS]: run a classic tool's tests\n\nSuites:\n");
    for (n, d) in SUITES {
        s.push_str(&format!("  {n:<9} {d}\n"));
    }
    s.push_str(
        "\nExamples:\n  fathom suite dd if=/dev/zero of=/mnt/x bs=1M count=256 oflag=direct conv=fdatasync\n  \
         fathom suite dd if=/mnt/x of=/dev/null bs=1M iflag=direct\n  \
         fathom suite bonnie --dir=/mnt/disk --size=4g --ram=2g --files=16\n  \
         fathom suite curve --rw=randread --bs=4k --directory=/mnt --size=4g --ioengine=libaio --direct=1 --iodepth=16 --stop-curve=5ms --svg=curve.svg\n  \
         fathom suite ior -o /mnt/pfs -N 8 -b 16m -t 1m -s 4 -i 3 [-F]\n  \
         fathom suite iozone -a -g 64m -f /mnt/disk --svg=plots/\n  \
         fathom suite cdm --dir=/mnt/disk --size=1g --loops=3 --runtime=5\n  \
         fathom suite sysbench --file-total-size=1G --file-num=16 prepare\n  \
         fathom suite sysbench --file-total-size=1G --file-num=16 --file-test-mode=rndrw --time=30 run\n",
    );
    s
}

/// Run `fathom suite ARGS...` (ARGS after the word `suite`).
pub fn run(args: &[String]) -> anyhow::Result<u8> {
    match args.first().map(String::as_str) {
        None | Some("--help") | Some("-h") | Some("help") => {
            print!("{}", help());
            Ok(0)
        }
        Some("dd") => dd::run(&args[1..]),
        Some("bonnie") => bonnie::run(&args[1..]),
        Some("cdm") => cdm::run(&args[1..]),
        Some("curve") => curve::run(&args[1..]),
        Some("ior") => ior::run(&args[1..]),
        Some("iozone") => iozone::run(&args[1..]),
        Some("sysbench") => sysbench::main(&args[1..]),
        Some(other) => anyhow::bail!(
            "no suite '{other}'; available: {}",
            SUITES.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
        ),
    }
}
