//! Time, repetition and job control.

use super::{int, int_in, time, OptDef};
use crate::units::{parse_bool, parse_range, TimeUnit};

const C: &str = "Time and job control";

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "runtime",
        aliases: &["timeout"],
        category: C,
        ty: "time (s)",
        default: "0 (no limit)",
        doc: "Stop the job after this long (after ramp_time); 0 = no limit",
        flag: false,
        apply: |j, v, _| {
            let t = time(v, TimeUnit::Seconds)?;
            j.runtime = (!t.is_zero()).then_some(t);
            Ok(())
        },
    },
    OptDef {
        name: "time_based",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Repeat the workload until runtime has passed",
        flag: true,
        apply: |j, v, _| {
            j.time_based = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "ramp_time",
        aliases: &[],
        category: C,
        ty: "time (s)",
        default: "0",
        doc: "Run this long before recording any statistics",
        flag: false,
        apply: |j, v, _| {
            j.ramp_time = time(v, TimeUnit::Seconds)?;
            Ok(())
        },
    },
    OptDef {
        name: "startdelay",
        aliases: &[],
        category: C,
        ty: "time range (s)",
        default: "0",
        doc: "Wait this long (or a random time in lo-hi) before starting",
        flag: false,
        apply: |j, v, _| {
            j.startdelay = parse_range(v, |x| time(x, TimeUnit::Seconds))?;
            Ok(())
        },
    },
    OptDef {
        name: "loops",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "Repeat the job's workload this many times",
        flag: false,
        apply: |j, v, _| {
            j.loops = int_in(v, 1, u32::MAX as u64)?;
            Ok(())
        },
    },
    OptDef {
        name: "number_ios",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0 (off)",
        doc: "Stop each loop after this many I/Os",
        flag: false,
        apply: |j, v, _| {
            j.number_ios = int(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "numjobs",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "Run this many clones of the job, each in its own thread",
        flag: false,
        apply: |j, v, _| {
            j.numjobs = int_in(v, 1, 4096)?;
            Ok(())
        },
    },
    OptDef {
        name: "thread",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Accepted for fio compatibility: fathom always runs jobs as threads",
        flag: true,
        apply: |j, v, _| {
            j.thread = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "stonewall",
        aliases: &["wait_for_previous"],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Wait for all earlier jobs to finish before starting; starts a new group",
        flag: true,
        apply: |j, v, _| {
            j.stonewall = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "new_group",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Start a new reporting group",
        flag: true,
        apply: |j, v, _| {
            j.new_group = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "randrepeat",
        aliases: &["allrandrepeat"],
        category: C,
        ty: "bool",
        default: "1",
        doc: "Seed the generators the same way every run, for repeatable I/O",
        flag: false,
        apply: |j, v, _| {
            j.randrepeat = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "randseed",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0x89",
        doc: "The seed of the random generators",
        flag: false,
        apply: |j, v, _| {
            j.randseed = int(v)?;
            Ok(())
        },
    },
];
