//! The option table: one definition per option (name, aliases, category, type, default,
//! doc, and how it applies to a [`JobSpec`]). Help text and the parsers come from here.

mod checks;
mod compat;
pub mod docs;
mod engine;
mod files;
mod io;
mod meta;
mod output;
mod pattern;
mod replay;
mod time;
mod unsupported;
mod verify;

use crate::spec::JobSpec;
use crate::units;
use crate::words::Dialect;

/// What an option's value is applied with.
pub(crate) struct Ctx {
    /// Unit rules.
    pub dialect: Dialect,
    /// 1024 or 1000.
    pub kb_base: u32,
}

/// How an option changes a job.
pub(crate) type Apply = fn(&mut JobSpec, &str, &Ctx) -> Result<(), String>;

/// One job option.
pub struct OptDef {
    /// Canonical name.
    pub name: &'static str,
    /// Other names fio accepts.
    pub aliases: &'static [&'static str],
    /// Help category.
    pub category: &'static str,
    /// Value type, for help.
    pub ty: &'static str,
    /// Default, for help.
    pub default: &'static str,
    /// One-line description.
    pub doc: &'static str,
    /// May be given without a value (meaning 1), as fio's set-type options.
    pub flag: bool,
    pub(crate) apply: Apply,
}

/// Every implemented option.
pub fn table() -> impl Iterator<Item = &'static OptDef> {
    files::OPTS
        .iter()
        .chain(io::OPTS)
        .chain(time::OPTS)
        .chain(output::OPTS)
        .chain(engine::OPTS)
        .chain(pattern::OPTS)
        .chain(checks::OPTS)
        .chain(meta::OPTS)
        .chain(verify::OPTS)
        .chain(output::LOG_OPTS)
        .chain(compat::OPTS)
        .chain(replay::OPTS)
}

/// The implemented option called `name` (or one of its aliases).
pub fn find(name: &str) -> Option<&'static OptDef> {
    table().find(|o| o.name == name || o.aliases.contains(&name))
}

/// The name fio 3.33 prints for an option typed as `typed` in its `"job options"` and
/// `"global options"`: the option's own name, not the alias or the shortened name
/// typed (`readwrite` → `rw`, `--blocka` → `ba`). A name fathom does not know is
/// printed as typed.
pub fn fio_name(typed: &str) -> &str {
    // fathom's names that fio spells otherwise.
    const FIO: &[(&str, &str)] = &[
        ("blockalign", "ba"),
        ("iomem", "mem"),
        ("iodepth_batch_submit", "iodepth_batch"),
        ("log_window_value", "log_max_value"),
    ];
    match find(typed) {
        Some(d) => FIO
            .iter()
            .find(|(ours, _)| *ours == d.name)
            .map_or(d.name, |(_, fio)| fio),
        None => typed,
    }
}

/// The fio engines an option belongs to, when they are engines fathom does not have.
pub fn engine_only(name: &str) -> Option<&'static [&'static str]> {
    unsupported::ENGINE_ONLY
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, engines)| *engines)
}

/// True if fio has an option of this name that fathom does not implement yet (engine-only
/// options included).
pub fn is_unsupported(name: &str) -> bool {
    unsupported_why(name).is_some() || refusal(name).is_some() || engine_only(name).is_some()
}

/// A data pattern as fio writes it (`0xHEX`, `"text"`, a number).
pub(crate) fn engine_pattern(v: &str) -> Result<Vec<u8>, String> {
    engine::pattern(v)
}

/// fio options fathom refuses on purpose: each name with the reason and what to use.
pub static REFUSED: &[(&str, &str)] = &[
    (
        "uid",
        "fathom runs every job as a thread of one process, so one job cannot switch user; \
         run fathom as that user (sudo -u USER fathom ...)",
    ),
    (
        "gid",
        "fathom runs every job as a thread of one process, so one job cannot switch group; \
         run fathom with that group (sudo -g GROUP fathom ...)",
    ),
    (
        "cgroup",
        "fathom runs every job as a thread of one process and does not move threads \
         between cgroups; run fathom in the cgroup (systemd-run --scope -p IOWeight=N \
         fathom ...)",
    ),
    (
        "cgroup_weight",
        "see cgroup: run fathom in a cgroup with that weight (systemd-run --scope \
         -p IOWeight=N fathom ...)",
    ),
    (
        "cgroup_nodelete",
        "see cgroup: fathom makes no cgroups, so there is none to keep",
    ),
    (
        "trim_percentage",
        "fathom checks trims with a trimming job (rw=trimwrite, randtrim or randrw with \
         trims) and verify with trim_verify_zero=1, which reads each trimmed block back as \
         zeroes; fio's trimming of a share of already verified blocks is not built",
    ),
    (
        "trim_backlog",
        "see trim_percentage: trims are verified through trim_verify_zero",
    ),
    (
        "trim_backlog_batch",
        "see trim_percentage: trims are verified through trim_verify_zero",
    ),
    (
        "ioscheduler",
        "fathom does not change a device's I/O scheduler for you; set it before the run \
         (echo NAME > /sys/block/DEV/queue/scheduler) and fathom records the device",
    ),
];

/// Why a fio option fathom knows is not supported yet, and what to use.
pub fn unsupported_why(name: &str) -> Option<&'static str> {
    unsupported::NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// fio options fathom refuses on purpose: the reason and what to use instead.
pub fn refusal(name: &str) -> Option<&'static str> {
    REFUSED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// Names of the fio options fathom recognises but does not implement yet (engine-only
/// options included).
pub fn unsupported_names() -> impl Iterator<Item = &'static str> {
    let engine_only = unsupported::ENGINE_ONLY
        .iter()
        .flat_map(|(n, _)| n.iter().copied());
    unsupported::NAMES
        .iter()
        .map(|(n, _)| *n)
        .chain(REFUSED.iter().map(|(n, _)| *n))
        .chain(engine_only)
}

/// The closest known option name, for "did you mean".
pub fn suggest(name: &str) -> Option<&'static str> {
    // No option name is longer than 64 characters: a longer one is no misspelling, and
    // comparing it would cost time in the square of its length.
    if name.len() > 64 {
        return None;
    }
    let mut best: Option<(usize, &'static str)> = None;
    let candidates = table()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .chain(unsupported_names());
    for c in candidates {
        let d = strsim::levenshtein(name, c);
        if d <= (name.len() / 3).max(2) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|b| b.1)
}

/// Example values of options whose type alone gives no good one.
const EXAMPLES: &[(&str, &str)] = &[
    ("name", "myjob"),
    ("description", "\"4k random reads\""),
    ("filename", "/dev/nvme0n1"),
    ("directory", "/mnt/test"),
    ("size", "1g"),
    ("filesize", "1m-4m"),
    ("io_size", "10g"),
    ("offset", "1m"),
    ("offset_increment", "1m"),
    ("rw", "randread"),
    ("ioengine", "io_uring"),
    ("rate", "10m"),
    ("rate_iops", "1000"),
    ("bsrange", "4k-64k"),
    ("bssplit", "4k/10:64k/90"),
    ("random_distribution", "zipf:1.2"),
    ("buffer_pattern", "0xdeadbeef"),
    ("ignore_error", "EIO:ENOSPC"),
    ("percentile_list", "50:99:99.9"),
    ("kb_base", "1000"),
    ("nonvectored", "0"),
    ("sqthread_poll_cpu", "0"),
    ("iomem_align", "4096"),
    ("assert", "read.iops>=1000,read.clat.p99<=2ms"),
    ("write_bw_log", "mylog"),
    ("write_iops_log", "mylog"),
    ("write_lat_log", "mylog"),
    ("write_hist_log", "mylog"),
    ("log_window_value", "max"),
    ("unit_base", "1"),
    ("random_generator", "lfsr"),
    ("cpus_allowed", "0-1"),
    ("numa_cpu_nodes", "0-1"),
    ("log_compression_cpus", "0-1"),
    ("verify_async_cpus", "0-1"),
    ("gtod_cpu", "0"),
    ("log_entries", "4096"),
    ("hipri_percentage", "50"),
    ("cmdprio_percentage", "30,60"),
    ("cmdprio_class", "2"),
    ("cmdprio", "3"),
    ("cmdprio_bssplit", "4k/20:64k/50/3/7"),
    ("write_hint", "long"),
    ("opendir", "/data/set"),
    ("dedupe_mode", "working_set"),
    ("dedupe_working_set_percentage", "10"),
    ("numa_mem_policy", "bind:0"),
    ("iomem", "malloc"),
    ("fadvise_hint", "random"),
    ("lockfile", "exclusive"),
    ("io_submit_mode", "inline"),
    ("threads", "4"),
    ("meta_mix", "create/20:stat/60:delete/20"),
    ("tree_depth", "3"),
    ("tree_width", "3"),
    ("tree_distribution", "all"),
    ("tree_format", "restart"),
    ("tree_names", "vdbench"),
    ("fileselect", "sequential"),
    ("stat_type", "statx"),
    ("sync_file_range", "wait_before,write:8"),
    ("flow", "3"),
    ("segments", "16"),
    ("stonewall_time", "30"),
    ("verify", "crc32c"),
    ("read_iolog", "/var/tmp/trace.iolog"),
    ("replay_redirect", "/dev/nvme0n1"),
    ("replay_align", "4096"),
    ("replay_skip", "write,trim"),
    ("merge_blktrace_file", "/var/tmp/merged.blk"),
    ("merge_blktrace_scalars", "100:50"),
    ("merge_blktrace_iters", "1:2"),
    ("verify_journal", "/var/tmp/job.journal"),
    ("verify_async", "2"),
    ("verify_interval", "4k"),
    ("verify_offset", "512"),
    ("verify_pattern", "0xdeadbeef"),
    ("verify_backlog", "64"),
    ("verify_backlog_batch", "32"),
    ("latency_target", "2ms"),
    ("latency_window", "500ms"),
    ("latency_percentile", "99.9"),
    ("flow_id", "1"),
    ("flow_sleep", "100us"),
    ("steadystate", "iops_slope:0.1%"),
    ("rate_min", "10m"),
    ("rate_iops_min", "500"),
    ("rate_cycle", "1000"),
    ("exit_what", "stonewall"),
    ("wait_for", "prefill"),
    ("thinktime_blocks_type", "issue"),
    ("thinktime_iotime", "1s"),
    ("cpumask", "0x3"),
    ("cpus_allowed_policy", "split"),
    ("nice", "5"),
    ("prio", "4"),
    ("prioclass", "2"),
    ("unified_rw_reporting", "mixed"),
    ("log_store_compressed", "0"),
    ("exec_prerun", "\"sync; echo 3 > /proc/sys/vm/drop_caches\""),
    ("exec_postrun", "\"dmesg | tail\""),
    ("max_latency", "50ms"),
];

/// A valid value for an option, for error messages and help (`bs` → `4k`).
pub fn example(def: &OptDef) -> Option<String> {
    let by_name = EXAMPLES
        .iter()
        .find(|(n, _)| *n == def.name)
        .map_or("", |(_, v)| v);
    if !by_name.is_empty() {
        return Some(by_name.to_string());
    }
    if def.flag || def.ty == "bool" {
        return Some("1".into());
    }
    let ty = def.ty;
    let guess = if ty.starts_with("time range") {
        "1s-5s"
    } else if ty.starts_with("time (us)") {
        "100us"
    } else if ty.starts_with("time") {
        "10s"
    } else if ty.starts_with("size") {
        "4k"
    } else if ty.starts_with("int (%)") {
        "50"
    } else if let Some((first, _)) = ty.split_once('|') {
        first
    } else if ty.starts_with("int") {
        if units::parse_int(def.default).is_ok() && def.default != "0" {
            def.default
        } else {
            "1"
        }
    } else if !def.default.is_empty() && !def.default.contains(' ') {
        def.default
    } else {
        return None;
    };
    Some(guess.to_string())
}

// ---- helpers shared by the category files ----

/// A size, or an arithmetic expression in `( )`.
pub(crate) fn size(v: &str, c: &Ctx) -> Result<u64, String> {
    let n = if v.trim_start().starts_with('(') && c.dialect == Dialect::Fio {
        let x = units::eval_expr(v, false)?;
        if x < 0.0 {
            return Err("negative size".into());
        }
        x as u64
    } else {
        if c.dialect == Dialect::Fio {
            if let Some(why) = units::fio_decimal_size(v, c.kb_base) {
                return Err(why);
            }
        }
        units::parse_size(v, c.kb_base, c.dialect)?
    };
    // File offsets are signed 64-bit: no size or offset can go past 8 EiB.
    if n > i64::MAX as u64 {
        return Err(format!(
            "{n} bytes is more than the 8 EiB ({}) a file offset can address",
            i64::MAX
        ));
    }
    Ok(n)
}

/// A time with the option's default unit, or an expression (µs inside `( )`).
///
/// In TOML a number without a unit is only accepted for options counted in seconds
/// (`runtime = 10`); microsecond options such as `thinktime` need one (`"100us"`), so a
/// TOML file never depends on a per-option default unit.
pub(crate) fn time(v: &str, unit: units::TimeUnit, c: &Ctx) -> Result<std::time::Duration, String> {
    if c.dialect == Dialect::Toml
        && unit != units::TimeUnit::Seconds
        && !v.is_empty()
        && v.trim().chars().all(|ch| ch.is_ascii_digit() || ch == '.')
        && v.trim().parse::<f64>().is_ok_and(|x| x != 0.0)
    {
        return Err(format!(
            "a TOML time needs a unit here, e.g. \"{}us\" or \"{}ms\"",
            v.trim(),
            v.trim()
        ));
    }
    if v.trim_start().starts_with('(') {
        let us = units::eval_expr(v, true)?;
        if us < 0.0 {
            return Err("negative time".into());
        }
        return Ok(std::time::Duration::from_nanos((us * 1000.0) as u64));
    }
    if c.dialect == Dialect::Fio {
        if let Some(why) = units::fio_decimal_time(v, unit) {
            return Err(why);
        }
    }
    units::parse_time(v, unit)
}

/// An integer, or an expression.
pub(crate) fn int(v: &str) -> Result<u64, String> {
    if v.trim_start().starts_with('(') {
        let x = units::eval_expr(v, false)?;
        if x < 0.0 {
            return Err("negative value".into());
        }
        return Ok(x as u64);
    }
    units::parse_int_suffixed(v).or_else(|e| {
        // As fio, which reads integers through a double: `iodepth=8.0`, `rwmixread=70.5`
        // (the fraction is dropped).
        let t = v.trim();
        match t.parse::<f64>() {
            Ok(x) if t.contains('.') && x.is_finite() && x >= 0.0 && x < u64::MAX as f64 => {
                Ok(x as u64)
            }
            _ => Err(e),
        }
    })
}

/// A u32 in `lo..=hi`.
pub(crate) fn int_in(v: &str, lo: u64, hi: u64) -> Result<u32, String> {
    let n = int(v)?;
    if n < lo || n > hi {
        return Err(format!("must be between {lo} and {hi}"));
    }
    Ok(n as u32)
}

/// A size or a percentage (`50%`).
pub(crate) fn size_or_percent(v: &str, c: &Ctx) -> Result<crate::words::SizeSpec, String> {
    if let Some(p) = v.trim().strip_suffix('%') {
        let p: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("'{p}' is not a percentage"))?;
        if !(p > 0.0 && p <= 100.0) {
            return Err("a percentage must be in (0, 100]".into());
        }
        return Ok(crate::words::SizeSpec::Percent(p));
    }
    size(v, c).map(crate::words::SizeSpec::Bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_shown_by_fios_own_names() {
        // fio 3.33's options with an alias, as (its name, the alias).
        for (name, alias) in [
            ("rw", "readwrite"),
            ("iodepth_batch", "iodepth_batch_submit"),
            ("iodepth_batch_complete_min", "iodepth_batch_complete"),
            ("io_size", "io_limit"),
            ("fill_device", "fill_fs"),
            ("offset", "fileoffset"),
            ("bs", "blocksize"),
            ("ba", "blockalign"),
            ("bsrange", "blocksize_range"),
            ("bs_unaligned", "blocksize_unaligned"),
            ("nrfiles", "nr_files"),
            ("runtime", "timeout"),
            ("mem", "iomem"),
            ("iomem_align", "mem_align"),
            ("rate_min", "ratemin"),
            ("rate_cycle", "ratecycle"),
            ("stonewall", "wait_for_previous"),
            ("disable_bw_measurement", "disable_bw"),
            ("steadystate", "ss"),
            ("steadystate_duration", "ss_dur"),
            ("steadystate_ramp_time", "ss_ramp"),
        ] {
            assert!(find(alias).is_some(), "{alias}");
            assert_eq!(fio_name(alias), name, "{alias}");
            assert_eq!(fio_name(name), name);
        }
        // fio's options of their own that fathom takes as aliases, and names it lacks.
        assert_eq!(fio_name("allrandrepeat"), "allrandrepeat");
        assert_eq!(fio_name("no_such_option"), "no_such_option");
        assert_eq!(fio_name("log_window_value"), "log_max_value");
    }

    #[test]
    fn every_name_and_alias_is_unique_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for o in table() {
            assert!(!o.doc.is_empty() && !o.category.is_empty(), "{}", o.name);
            for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                assert!(seen.insert(n), "duplicate option name {n}");
                assert!(
                    !is_unsupported(n),
                    "{n} is both implemented and unsupported"
                );
            }
        }
    }

    #[test]
    fn every_option_has_an_example_that_parses() {
        for dialect in [Dialect::Fio, Dialect::Toml] {
            let c = Ctx {
                dialect,
                kb_base: 1024,
            };
            for o in table() {
                let ex = example(o).unwrap_or_else(|| panic!("no example for {}", o.name));
                let mut j = JobSpec::default();
                (o.apply)(&mut j, &ex, &c)
                    .unwrap_or_else(|e| panic!("{}={ex} ({dialect:?}): {e}", o.name));
            }
        }
    }

    #[test]
    fn ignore_error_takes_negative_errnos_as_fio() {
        let c = Ctx {
            dialect: Dialect::Fio,
            kb_base: 1024,
        };
        let mut all = table();
        let o = all.find(|o| o.name == "ignore_error").unwrap();
        let mut j = JobSpec::default();
        (o.apply)(&mut j, "-5:ENOSPC,-28", &c).unwrap();
        assert_eq!(j.errors.lists[0], Some(vec![5, 28]));
        assert_eq!(j.errors.lists[1], Some(vec![28]));
        assert!((o.apply)(&mut j, "EIO:0", &c).is_err());
    }

    #[test]
    fn toml_times_in_microseconds_need_a_unit() {
        let toml = Ctx {
            dialect: Dialect::Toml,
            kb_base: 1024,
        };
        let fio = Ctx {
            dialect: Dialect::Fio,
            kb_base: 1024,
        };
        let us = units::TimeUnit::Micros;
        assert!(time("100", us, &toml).unwrap_err().contains("\"100us\""));
        assert_eq!(time("100us", us, &toml).unwrap().as_micros(), 100);
        assert_eq!(time("0", us, &toml).unwrap().as_micros(), 0);
        assert_eq!(time("100", us, &fio).unwrap().as_micros(), 100);
        let s = units::TimeUnit::Seconds;
        assert_eq!(time("10", s, &toml).unwrap().as_secs(), 10);
        assert_eq!(time("(1s+500ms)", s, &fio).unwrap().as_millis(), 1500);
    }

    #[test]
    fn suggestions_find_close_names() {
        assert_eq!(
            suggest(&"x".repeat(1 << 20)),
            None,
            "a huge name is not compared"
        );
        assert_eq!(suggest("rwmixred"), Some("rwmixread"));
        assert_eq!(suggest("blocksiz"), Some("blocksize"));
        assert_eq!(suggest("completely_different"), None);
    }
}
