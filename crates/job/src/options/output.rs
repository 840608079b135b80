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
        doc: "Report total-latency percentiles (instead of completion latency)",
        flag: false,
        apply: |j, v, _| {
            j.lat_percentiles = parse_bool(v)?;
            if j.lat_percentiles {
                j.clat_percentiles = false;
            }
            Ok(())
        },
    },
    OptDef {
        name: "kb_base",
        aliases: &[],
        category: C,
        ty: "1024|1000",
        default: "1024",
        doc: "Units: 1024 makes k = 1024 (and kib = 1000, as fio); 1000 makes k = 1000",
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
