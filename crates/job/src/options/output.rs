//! Reporting and units.

use super::{int_in, OptDef};
use crate::units::parse_bool;

const C: &str = "Reporting";

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "group_reporting",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Report each group as one job (clones and jobs merged exactly)",
        flag: true,
        apply: |j, v, _| {
            j.group_reporting = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "percentile_list",
        aliases: &[],
        category: C,
        ty: "float list",
        default: "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99",
        doc: "Latency percentiles to report, ':'-separated (at most 20)",
        flag: false,
        apply: |j, v, _| {
            let mut list = Vec::new();
            for p in v.split(':').filter(|s| !s.is_empty()) {
                let f: f64 = p
                    .trim()
                    .parse()
                    .map_err(|_| format!("'{p}' is not a number"))?;
                if !(f > 0.0 && f <= 100.0) {
                    return Err(format!("percentile {p} is not in (0, 100]"));
                }
                list.push(f);
            }
            if list.is_empty() || list.len() > 20 {
                return Err("give 1 to 20 percentiles, e.g. 50:99:99.9".into());
            }
            list.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
            j.percentile_list = list;
            Ok(())
        },
    },
    OptDef {
        name: "clat_percentiles",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "Report completion-latency percentiles",
        flag: false,
        apply: |j, v, _| {
            j.clat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "lat_percentiles",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Report total-latency percentiles too (as fio 3.33, beside clat's unless clat_percentiles=0)",
        flag: false,
        apply: |j, v, _| {
            j.lat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "kb_base",
        aliases: &[],
        category: C,
        ty: "1024|1000",
        default: "1024",
        doc: "Units: 1024 makes k = 1024 (and kib = 1000, as fio); 1000 makes k = 1000. In a job file it holds for the whole section; on the command line only for the options after it, as fio",
        flag: false,
        apply: |j, v, _| {
            j.kb_base = match int_in(v, 0, u32::MAX as u64)? {
                1024 => 1024,
                1000 => 1000,
                _ => return Err("kb_base is 1024 or 1000".into()),
            };
            Ok(())
        },
    },
];

/// A log name: the value, or the job's name when the option is given bare.
fn log_name(j: &crate::spec::JobSpec, v: &str) -> Option<String> {
    let v = v.trim();
    Some(if v.is_empty() || v == "1" {
        j.name.clone()
    } else {
        v.to_string()
    })
}

macro_rules! log_opt {
    ($name:literal, $field:ident, $doc:literal) => {
        OptDef {
            name: $name,
            aliases: &[],
            category: C,
            ty: "string",
            default: "",
            doc: $doc,
            flag: true,
            apply: |j, v, _| {
                j.logs.$field = log_name(j, v);
                Ok(())
            },
        }
    };
}

pub(super) static LOG_OPTS: &[OptDef] = &[
    OptDef {
        name: "unit_base",
        aliases: &[],
        category: C,
        ty: "0|1|8",
        default: "0",
        doc: "Bandwidth units of the normal output, as fio: 1 for bits (Kibit/s), 8 or 0 for bytes",
        flag: false,
        apply: |j, v, _| {
            j.unit_base = match v.trim() {
                "0" | "8" => 8,
                "1" => 1,
                _ => return Err("use 1 (bits), 8 (bytes) or 0 (auto: bytes)".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "significant_figures",
        aliases: &[],
        category: C,
        ty: "int 1-10",
        default: "4",
        doc: "Significant figures of IOPS and bandwidth in the normal output",
        flag: false,
        apply: |j, v, _| {
            j.sig_figs = int_in(v, 1, 10)?;
            Ok(())
        },
    },
    OptDef {
        name: "unified_rw_reporting",
        aliases: &[],
        category: C,
        ty: "none|mixed|both|0|1|2",
        default: "none",
        doc: "Report reads, writes and trims as one 'mixed' direction (mixed), or both apart and mixed (both)",
        flag: false,
        apply: |j, v, _| {
            j.unified_rw = match v.trim() {
                "none" | "0" => 0,
                "mixed" | "1" => 1,
                "both" | "2" => 2,
                _ => return Err("use none, mixed or both (0, 1, 2)".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "write_iolog",
        aliases: &[],
        category: C,
        ty: "path",
        default: "none",
        doc: "Append every issued I/O to PATH in fio's iolog version 3 format (fio --read_iolog replays it): each clone adds its block, file add/open lines first, close lines last",
        flag: false,
        apply: |j, v, _| {
            if v.trim().is_empty() {
                return Err("give a file name".into());
            }
            j.logs.iolog = Some(v.trim().to_string());
            Ok(())
        },
    },
    log_opt!(
        "write_bw_log",
        bw,
        "Write a bandwidth log NAME_bw.N.log (KiB/s; per I/O, or averaged over log_avg_msec)"
    ),
    log_opt!(
        "write_iops_log",
        iops,
        "Write an IOPS log NAME_iops.N.log (per I/O, or averaged over log_avg_msec)"
    ),
    log_opt!(
        "write_lat_log",
        lat,
        "Write latency logs NAME_slat.N.log, NAME_clat.N.log, NAME_lat.N.log (ns)"
    ),
    log_opt!(
        "write_hist_log",
        hist,
        "Write a completion latency histogram log NAME_clat_hist.N.log every log_hist_msec"
    ),
    OptDef {
        name: "log_avg_msec",
        aliases: &[],
        category: C,
        ty: "int (ms)",
        default: "0",
        doc: "Average log values over windows of this many ms (0: one line per I/O)",
        flag: false,
        apply: |j, v, _| {
            j.logs.avg_msec = int_in(v, 0, 86_400_000)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_hist_msec",
        aliases: &[],
        category: C,
        ty: "int (ms)",
        default: "0",
        doc: "Interval of the histogram log in ms (0: one line at the end)",
        flag: false,
        apply: |j, v, _| {
            j.logs.hist_msec = int_in(v, 0, 86_400_000)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_hist_coarseness",
        aliases: &[],
        category: C,
        ty: "int 0-6",
        default: "0",
        doc: "Merge 2^N adjacent buckets of the histogram log (0: all 1856 buckets)",
        flag: false,
        apply: |j, v, _| {
            j.logs.hist_coarseness = int_in(v, 0, 6)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_window_value",
        aliases: &["log_max_value"],
        category: C,
        ty: "avg|max",
        default: "avg",
        doc: "With log_avg_msec, log each window's average (avg, 0) or maximum (max, 1)",
        flag: false,
        apply: |j, v, _| {
            j.logs.window_max = match v.trim() {
                "avg" | "0" => false,
                "max" | "1" => true,
                "both" | "2" => {
                    return Err(
                        "both is not supported yet (fio 3.33 writes no log with it); \
                                use avg or max"
                            .into(),
                    )
                }
                _ => return Err("use avg or max".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "log_offset",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Add each I/O's offset to the log lines",
        flag: true,
        apply: |j, v, _| {
            j.logs.offset = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "per_job_logs",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "One log file per job clone (NAME_bw.N.log); 0 writes one file for all",
        flag: true,
        apply: |j, v, _| {
            j.logs.shared = !parse_bool(v)?;
            Ok(())
        },
    },
];
