//! fio's replay options: `read_iolog` (a text iolog or a blktrace trace), the `replay_*`
//! adjustments and `merge_blktrace_*`.

use super::{int, int_in, size, OptDef};
use crate::units::parse_bool;

const C: &str = "Replay (read_iolog)";

/// fio's float list: numbers separated by `:`.
fn float_list(v: &str) -> Result<Vec<f64>, String> {
    v.split(':')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| {
            x.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && *f > 0.0)
                .ok_or_else(|| format!("'{x}' is not a positive number"))
        })
        .collect()
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "read_iolog",
        aliases: &["read_iolog_file"],
        category: C,
        ty: "path[:path...]",
        default: "none",
        doc: "Replay a recorded log instead of generating I/O: fio's text iolog (version 2 or 3, as write_iolog writes it) or a blktrace binary trace. The log's files, directions, offsets, lengths, syncs and times replace the job's own; clone N replays the N-th name of a :-separated list (round robin); - is standard input",
        flag: false,
        apply: |j, v, _| {
            let v = v.trim();
            if v.is_empty() {
                return Err("give the log's file name".into());
            }
            j.replay.read_iolog = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "read_iolog_chunked",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Accepted: fio reads a large log in parts to bound its memory; fathom parses the whole log before the run (so a bad line is reported before any I/O) into about 32 bytes per operation",
        flag: true,
        apply: |j, v, _| {
            j.replay.chunked = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "replay_no_stall",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Replay as fast as possible, ignoring the log's times",
        flag: true,
        apply: |j, v, _| {
            j.replay.no_stall = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "replay_time_scale",
        aliases: &[],
        category: C,
        ty: "int (%)",
        default: "100",
        doc: "Replay at this percent of the log's speed: 200 issues twice as fast, 50 half as fast",
        flag: false,
        apply: |j, v, _| {
            j.replay.time_scale = int_in(v, 1, u32::MAX as u64)?;
            Ok(())
        },
    },
    OptDef {
        name: "replay_redirect",
        aliases: &[],
        category: C,
        ty: "path",
        default: "none",
        doc: "Send every replayed I/O to this file or device, whatever the log names",
        flag: false,
        apply: |j, v, _| {
            let v = v.trim();
            if v.is_empty() {
                return Err("give a file or device".into());
            }
            j.replay.redirect = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "replay_align",
        aliases: &[],
        category: C,
        ty: "int (power of 2)",
        default: "0",
        doc: "Round replayed offsets down to this alignment (and a blktrace's lengths up)",
        flag: false,
        apply: |j, v, c| {
            let a = size(v, c)?;
            if !a.is_power_of_two() {
                return Err("must be a power of two (fio refuses 0 too)".into());
            }
            j.replay.align = a;
            Ok(())
        },
    },
    OptDef {
        name: "replay_scale",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "Divide replayed offsets by this (to replay a large device's trace on a smaller one)",
        flag: false,
        apply: |j, v, _| {
            let n = int(v)?;
            if n == 0 {
                return Err("must be at least 1".into());
            }
            j.replay.scale = n;
            Ok(())
        },
    },
    OptDef {
        name: "replay_skip",
        aliases: &[],
        category: C,
        ty: "list",
        default: "none",
        doc: "Leave these operations out of the replay: read, write, trim, sync (comma-separated)",
        flag: false,
        apply: |j, v, _| {
            let mut k = [false; 4];
            for w in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                let i = ["read", "write", "trim", "sync"]
                    .iter()
                    .position(|x| *x == w)
                    .ok_or_else(|| format!("'{w}' is not read, write, trim or sync"))?;
                k[i] = true;
            }
            j.replay.skip = k;
            Ok(())
        },
    },
    OptDef {
        name: "merge_blktrace_file",
        aliases: &[],
        category: C,
        ty: "path",
        default: "none",
        doc: "Merge the blktrace traces read_iolog names (a:b:...) by time into this file, then replay the merged trace",
        flag: false,
        apply: |j, v, _| {
            let v = v.trim();
            if v.is_empty() {
                return Err("give the merged trace's file name".into());
            }
            j.replay.merge_file = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "merge_blktrace_scalars",
        aliases: &[],
        category: C,
        ty: "float list",
        default: "100",
        doc: "Per merged trace, percent of its speed (100:50 halves the second's speed), separated by :",
        flag: false,
        apply: |j, v, _| {
            j.replay.merge_scalars = float_list(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "merge_blktrace_iters",
        aliases: &[],
        category: C,
        ty: "float list",
        default: "1",
        doc: "Per merged trace, how many times it runs back to back in the merge, separated by :",
        flag: false,
        apply: |j, v, _| {
            j.replay.merge_iters = float_list(v)?
                .into_iter()
                .map(|f| (f as u64).max(1))
                .collect();
            Ok(())
        },
    },
];
