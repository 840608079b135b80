//! Access pattern details: block-size mixes, distributions, rates and think time.

use super::{int_in, size, time, Ctx, OptDef};
use crate::spec::{FileServiceKind, RandomDist};
use crate::units::{parse_bool, parse_range, split_rwt, split_rwt_numeric, TimeUnit};

const P: &str = "I/O pattern";
const R: &str = "Rate and think time";

/// A number from 0 to 1.
fn unit_float(s: &str) -> Result<f64, String> {
    let x = float(s)?;
    if !(0.0..=1.0).contains(&x) {
        return Err(format!("{x} is outside 0 to 1"));
    }
    Ok(x)
}

fn float(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .map_err(|_| format!("'{s}' is not a number"))
}

/// `random_distribution`.
pub(crate) fn distribution(v: &str, c: &Ctx) -> Result<RandomDist, String> {
    let (kind, rest) = v.split_once(':').unwrap_or((v, ""));
    let args: Vec<&str> = if rest.is_empty() {
        vec![]
    } else {
        rest.split(':').collect()
    };
    // (Not given: None, which fio reads as "turn by my first draw" for zipf and pareto.)
    let center = |i: usize| -> Result<Option<f64>, String> {
        match args.get(i) {
            Some(x) => {
                let c = float(x)?;
                if !(0.0..=1.0).contains(&c) {
                    return Err("center must be in [0, 1]".into());
                }
                Ok(Some(c))
            }
            None => Ok(None),
        }
    };
    Ok(match kind {
        "random" => RandomDist::Random,
        "zipf" => {
            let t = args.first().map(|x| float(x)).transpose()?.unwrap_or(1.1);
            if t <= 0.0 || t == 1.0 {
                return Err("zipf theta must be > 0 and not 1.0, e.g. zipf:1.2".into());
            }
            RandomDist::Zipf(t, center(1)?)
        }
        "pareto" => {
            let h = args.first().map(|x| float(x)).transpose()?.unwrap_or(0.2);
            if !(h > 0.0 && h < 1.0) {
                return Err("pareto h must be in (0, 1), e.g. pareto:0.2".into());
            }
            RandomDist::Pareto(h, center(1)?)
        }
        "normal" | "gauss" => {
            let d = args.first().map(|x| float(x)).transpose()?.unwrap_or(0.0);
            if !(0.0..100.0).contains(&d) {
                return Err("normal deviation is a percent in [0, 100)".into());
            }
            let ctr = center(1)?.unwrap_or(0.5);
            RandomDist::Normal(d, ctr)
        }
        "zoned" | "zoned_abs" => {
            // One direction's list (random_distribution splits per-direction lists).
            let list = rest;
            let mut zones = Vec::new();
            let mut total = 0.0;
            for z in list.split(':').filter(|z| !z.is_empty()) {
                let (pct, sz) = z
                    .split_once('/')
                    .ok_or("zones look like 60/10:30/20:10/70")?;
                let pct = float(pct)?;
                total += pct;
                zones.push((pct, sz));
            }
            if zones.is_empty() || total > 100.0 + 1e-9 {
                return Err(
                    "give zones as pct/size pairs whose percents add up to at most 100".into(),
                );
            }
            if kind == "zoned" {
                // A zone with no size (`20/`) gets the rest of the region, shared equally
                // among such zones (as fio).
                let given: Vec<Option<f64>> = zones
                    .iter()
                    .map(|(_, s)| {
                        let s = s.trim_end_matches('%');
                        (!s.is_empty()).then(|| float(s)).transpose()
                    })
                    .collect::<Result<_, String>>()?;
                let missing = given.iter().filter(|g| g.is_none()).count() as f64;
                let rest = (100.0 - given.iter().flatten().sum::<f64>()).max(0.0);
                RandomDist::Zoned(
                    zones
                        .iter()
                        .zip(given)
                        .map(|((p, _), g)| (*p, g.unwrap_or(rest / missing.max(1.0))))
                        .collect(),
                )
            } else {
                RandomDist::ZonedAbs(
                    zones
                        .into_iter()
                        .map(|(p, s)| Ok((p, size(s, c)?)))
                        .collect::<Result<_, String>>()?,
                )
            }
        }
        _ => {
            return Err(
                "use random, zipf:θ, pareto:h, normal:dev, zoned:... or zoned_abs:...".into(),
            )
        }
    })
}

/// One direction of `bssplit`: `bs/pct:bs/pct...`, blank percents share the rest.
pub(crate) fn bssplit_dir(v: &str, c: &Ctx) -> Result<Vec<(u64, f64)>, String> {
    let mut out: Vec<(u64, Option<f64>)> = Vec::new();
    for e in v.split(':').filter(|e| !e.is_empty()) {
        let (b, p) = e.split_once('/').unwrap_or((e, ""));
        let b = size(b, c)?;
        if b == 0 {
            return Err("block sizes must be greater than 0".into());
        }
        let p = if p.trim().is_empty() {
            None
        } else {
            Some(float(p)?)
        };
        out.push((b, p));
    }
    if out.is_empty() || out.len() > 64 {
        return Err("bssplit takes 1 to 64 entries, e.g. 4k/10:64k/50:32k/40".into());
    }
    let given: f64 = out.iter().filter_map(|e| e.1).sum();
    if given > 100.0 + 1e-9 {
        return Err(format!("the percentages add up to {given}, more than 100"));
    }
    let blanks = out.iter().filter(|e| e.1.is_none()).count();
    let share = if blanks > 0 {
        (100.0 - given) / blanks as f64
    } else {
        0.0
    };
    Ok(out
        .into_iter()
        .map(|(b, p)| (b, p.unwrap_or(share)))
        .collect())
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef { name: "softrandommap", aliases: &[], category: P, ty: "flag", default: "0", doc: "When the random map would not fit (more than half the machine's memory), run without one (as norandommap) instead of refusing the job", flag: true, apply: |j, v, _| { j.softrandommap = parse_bool(v)?; Ok(()) } },
    OptDef { name: "norandommap", aliases: &[], category: P, ty: "flag", default: "0", doc: "Do not track touched blocks: random I/O may hit a block twice in a pass", flag: true, apply: |j, v, _| { j.norandommap = parse_bool(v)?; Ok(()) } },
    OptDef { name: "random_distribution", aliases: &[], category: P, ty: "distribution", default: "random", doc: "random, zipf:θ, pareto:h, normal:dev (each with :center), zoned:pct/range%:..., zoned_abs:pct/size:...; drawn with fio 3.33's own generators, so a job makes fio's I/Os, offset for offset: zipf (fio's approximation), pareto and normal (fio's bell: the mean of twelve uniform draws plus up to ±dev/2 percent, so normal:50 is still a bell) over the file's ranges in its smallest block size, seeded per file as fio seeds them (its name's hash times the thread number; with randseed=, fio's block seed), the hot ranks scattered by fio's hash and turned by fio's first draw (zipf, pareto) unless :center places them; zoned and zoned_abs in whole percents take fio's zone draw, then its uniform place in the zone; zoned_abs zones past the file's end end the job at the first draw there, as fio's", flag: false, apply: |j, v, c| {
        let (kind, rest) = v.split_once(':').unwrap_or((v, ""));
        if matches!(kind, "zoned" | "zoned_abs") && rest.contains(',') {
            // Zones per direction, as bssplit: read, write, trim; a blank list is uniform.
            let parts: Vec<&str> = rest.split(',').collect();
            if parts.len() > 3 {
                return Err("at most three zone lists: read, write, trim".into());
            }
            let mut dirs: [Option<RandomDist>; 3] = [None, None, None];
            for (i, p) in parts.iter().enumerate() {
                if !p.trim().is_empty() {
                    dirs[i] = Some(distribution(&format!("{kind}:{}", p.trim()), c)?);
                }
            }
            j.random_distribution = dirs[0].clone().unwrap_or(RandomDist::Random);
            j.random_distribution_dirs = Some(dirs);
        } else {
            j.random_distribution = distribution(v, c)?;
            j.random_distribution_dirs = None;
        }
        Ok(())
    } },
    OptDef { name: "zonemode", aliases: &[], category: P, ty: "none|strided|zbd", default: "none (zonesize needs zonemode=strided or zbd, as in fio)", doc: "strided: I/O stays in a zone of zonerange bytes until zonesize bytes were transferred, then skips zoneskip bytes to the next zone; zones wrap at the file's end; with several files each file walks its own zones, the zone's bytes counted over all of them (as fio's thread counts them); over a file larger than the region the zones go on past the region's end until the job has done its size; a random offset is drawn over the whole zone (the random map sized by zonerange, as fio's), and one past the file's end ends the file there, as in fio. zbd: zones of zonesize bytes, emulated over a regular file or a device without zones as fio emulates them: each zone has a write pointer, empty when the run starts; writes go to their zone's write pointer (a full zone is reset first), reads stay below it (a job that only reads finds nothing to read unless an earlier job of the run wrote the zones, or read_beyond_wp=1); a device with real zones (host-managed SMR, ZNS) is refused", flag: false, apply: |j, v, _| { j.zonemode = match v { "none" => crate::spec::ZoneMode::None, "strided" => crate::spec::ZoneMode::Strided, "zbd" => crate::spec::ZoneMode::Zbd, _ => return Err("use none, strided or zbd".into()) }; Ok(()) } },
    OptDef { name: "zonesize", aliases: &[], category: P, ty: "size", default: "0", doc: "zonemode=strided: bytes transferred in a zone before moving to the next (larger than zonerange: the zone is gone over again); zonemode=zbd: the size of each zone (required)", flag: false, apply: |j, v, c| { j.zonesize = size(v, c)?; Ok(()) } },
    OptDef { name: "zonerange", aliases: &[], category: P, ty: "size", default: "zonesize", doc: "zonemode=strided: the length of a zone", flag: false, apply: |j, v, c| { j.zonerange = size(v, c)?; Ok(()) } },
    OptDef { name: "zoneskip", aliases: &[], category: P, ty: "size", default: "0", doc: "zonemode=strided: bytes skipped after each zone (zonemode=zbd: refused, not built yet)", flag: false, apply: |j, v, c| { j.zoneskip = size(v, c)?; Ok(()) } },
    OptDef { name: "zonecapacity", aliases: &[], category: P, ty: "size", default: "zonesize", doc: "zonemode=zbd: the bytes of each zone that can be written (at most zonesize); a sequential writer goes on at the next zone's start when it reaches a zone's capacity", flag: false, apply: |j, v, c| { j.control.zbd.capacity = size(v, c)?; Ok(()) } },
    OptDef { name: "read_beyond_wp", aliases: &[], category: P, ty: "bool", default: "0", doc: "zonemode=zbd: reads go where the pattern puts them, past the write pointers too (by default a read goes to a zone holding data and stays below its write pointer)", flag: false, apply: |j, v, _| { j.control.zbd.read_beyond_wp = parse_bool(v)?; Ok(()) } },
    OptDef { name: "max_open_zones", aliases: &[], category: P, ty: "int", default: "0", doc: "zonemode=zbd: at most this many zones of a file are open for writing at once (0: no limit); a write to another zone goes to an open one instead (at most 4096)", flag: false, apply: |j, v, _| { j.control.zbd.max_open_zones = int_in(v, 0, 4096)?; Ok(()) } },
    OptDef { name: "job_max_open_zones", aliases: &[], category: P, ty: "int", default: "0", doc: "zonemode=zbd: at most this many zones open for writing by one clone (needs max_open_zones)", flag: false, apply: |j, v, _| { j.control.zbd.job_max_open_zones = int_in(v, 0, 4096)?; Ok(()) } },
    OptDef { name: "ignore_zone_limits", aliases: &[], category: P, ty: "bool", default: "0", doc: "zonemode=zbd: do not ask a device for its open-zone limit; emulated zones have none, so only max_open_zones limits them either way", flag: false, apply: |j, v, _| { j.control.zbd.ignore_zone_limits = parse_bool(v)?; Ok(()) } },
    OptDef { name: "zone_reset_threshold", aliases: &[], category: P, ty: "float (0-1)", default: "0", doc: "zonemode=zbd: once this share of the job's range holds data, zone_reset_frequency of the writes reset their zone first", flag: false, apply: |j, v, _| { j.control.zbd.reset_threshold = unit_float(v)?; Ok(()) } },
    OptDef { name: "zone_reset_frequency", aliases: &[], category: P, ty: "float (0-1)", default: "0", doc: "zonemode=zbd: the share of writes (above zone_reset_threshold) that reset their zone first: 1 in 1/frequency", flag: false, apply: |j, v, _| { j.control.zbd.reset_frequency = unit_float(v)?; Ok(()) } },
    OptDef { name: "percentage_random", aliases: &[], category: P, ty: "int list R,W,T (%)", default: "100", doc: "Percent of I/Os at random offsets in a random pattern; the rest continue sequentially", flag: false, apply: |j, v, c| { for (i, p) in split_rwt_numeric(v, c.dialect).0.iter().enumerate() { if let Some(p) = p { j.percentage_random.0[i] = int_in(p, 0, 100)?; } } Ok(()) } },
    OptDef { name: "rw_sequencer", aliases: &[], category: P, ty: "sequential|identical", default: "sequential", doc: "With rw=randread:N: continue sequentially or repeat the same offset between random ones", flag: false, apply: |j, v, _| { j.rw_sequencer_identical = match v { "sequential" => false, "identical" => true, _ => return Err("use sequential or identical".into()) }; Ok(()) } },
    OptDef { name: "file_service_type", aliases: &[], category: P, ty: "random|roundrobin|sequential[:N]|zipf:θ|pareto:h|normal:dev", default: "roundrobin", doc: "Which file each I/O goes to: switching every N I/Os, or drawn from a distribution with fio's own generator and seed, so the files are fio's, I/O for I/O (over 1024 ranges per file: zipf:1.1 sends 86% of the I/Os to one file of 8; normal is fio's bell around the middle file; zipf and pareto turn the hottest place by fio's first draw unless :center places it); with a distribution an exhausted file starts over, as in fio, so the job does all its bytes", flag: false, apply: |j, v, c| {
        j.file_service_dist = None;
        let (k, n) = v.split_once(':').unwrap_or((v, ""));
        if matches!(k, "zipf" | "pareto" | "normal" | "gauss") {
            // The file of each I/O drawn from the distribution (its parameter after ':').
            j.file_service_dist = Some(distribution(v, c)?);
            return Ok(());
        }
        let n = if n.is_empty() { None } else { Some(int_in(n, 1, u32::MAX as u64)?) };
        j.file_service = match k {
            "roundrobin" => (FileServiceKind::RoundRobin, n.unwrap_or(1)),
            "random" => (FileServiceKind::Random, n.unwrap_or(1)),
            "sequential" => (FileServiceKind::Sequential, n.unwrap_or(0)),
            _ => return Err("use random, roundrobin or sequential (optionally :N), or zipf:θ, pareto:h, normal:dev".into()),
        };
        Ok(())
    } },
    OptDef { name: "bsrange", aliases: &["blocksize_range"], category: P, ty: "size ranges R,W,T", default: "", doc: "Block sizes drawn from lo-hi as fio draws them: lo plus a uniform share of hi, down to a multiple of lo, at most hi (see bs_unaligned); a value in bssplit's form (512/25:1k:...) is read as fio reads it, its first two sizes, with a note", flag: false, apply: bsrange },
    OptDef { name: "bs_unaligned", aliases: &["blocksize_unaligned"], category: P, ty: "flag", default: "0", doc: "bsrange sizes may be any multiple of 512, not only of the minimum", flag: true, apply: |j, v, _| { j.bs_unaligned = parse_bool(v)?; Ok(()) } },
    OptDef { name: "bssplit", aliases: &[], category: P, ty: "bs/pct:... R,W,T", default: "", doc: "Weighted block sizes, e.g. 4k/10:64k/50:32k/40; blank percents share the rest; without bs_unaligned each size is rounded down to a multiple of the smallest, as fio issues them", flag: false, apply: |j, v, c| {
        let parts: Vec<&str> = v.split(',').collect();
        for i in 0..3 {
            let part = parts.get(i).copied().or(if parts.len() == 1 { parts.first().copied() } else { None });
            if let Some(p) = part.filter(|p| !p.trim().is_empty()) {
                j.bssplit[i] = bssplit_dir(p, c)?;
            }
        }
        Ok(())
    } },
    OptDef { name: "bs_is_seq_rand", aliases: &[], category: P, ty: "flag", default: "0", doc: "Sequential I/Os use the read block size and random ones the write block size, whatever their direction", flag: true, apply: |j, v, _| { j.bs_is_seq_rand = parse_bool(v)?; Ok(()) } },
    OptDef { name: "blockalign", aliases: &["ba"], category: P, ty: "size list R,W,T", default: "bs", doc: "Alignment of random offsets; a value other than the smallest block size of a direction turns the random map off, as fio 3.33 does (norandommap: a block may be done twice, another not at all)", flag: false, apply: |j, v, c| { for (i, p) in split_rwt_numeric(v, c.dialect).0.iter().enumerate() { if let Some(p) = p { let a = size(p, c)?; if a == 0 { return Err("at least 1 (fio refuses 0; leave it out to align on the block size)".into()); } j.blockalign.0[i] = a; } } Ok(()) } },
    OptDef { name: "rate", aliases: &[], category: R, ty: "size list R,W,T (per s)", default: "0", doc: "Bandwidth limit per direction in bytes/s; each I/O gets an intended issue time. In a read/write mix each direction keeps its own limit, as in fio (the mix picks the direction only among those due; a direction without a limit fills the time the other waits)", flag: false, apply: |j, v, c| { for (i, p) in split_rwt_numeric(v, c.dialect).0.iter().enumerate() { if let Some(p) = p { j.rate.0[i] = size(p, c)?; } } Ok(()) } },
    OptDef { name: "rate_iops", aliases: &[], category: R, ty: "int list R,W,T", default: "0", doc: "IOPS limit per direction; each I/O gets an intended issue time. In a read/write mix each direction keeps its own limit, as in fio (rate_iops=200,100 with rwmixread=50: 200 reads and 100 writes a second)", flag: false, apply: |j, v, c| { for (i, p) in split_rwt_numeric(v, c.dialect).0.iter().enumerate() { if let Some(p) = p { j.rate_iops.0[i] = super::int(p)?; } } Ok(()) } },
    OptDef { name: "rate_min", aliases: &["ratemin"], category: R, ty: "size list R,W,T (per s)", default: "0", doc: "Least bandwidth per direction over each rate_cycle (after a 2 s settling time); below it the job fails", flag: false, apply: |j, v, c| { for (i, p) in split_rwt_numeric(v, c.dialect).0.iter().enumerate() { if let Some(p) = p { j.rate_min.0[i] = size(p, c)?; } } Ok(()) } },
    OptDef { name: "rate_iops_min", aliases: &[], category: R, ty: "int list R,W,T", default: "0", doc: "Least IOPS per direction over each rate_cycle (after a 2 s settling time); below it the job fails", flag: false, apply: |j, v, c| { for (i, p) in split_rwt_numeric(v, c.dialect).0.iter().enumerate() { if let Some(p) = p { j.rate_iops_min.0[i] = super::int(p)?; } } Ok(()) } },
    OptDef { name: "rate_cycle", aliases: &["ratecycle"], category: R, ty: "int (ms)", default: "1000", doc: "Window in ms over which rate_min and rate_iops_min are checked", flag: false, apply: |j, v, _| { j.rate_cycle = std::time::Duration::from_millis(u64::from(int_in(v, 1, 3_600_000)?)); Ok(()) } },
    OptDef { name: "rate_ignore_thinktime", aliases: &[], category: R, ty: "bool", default: "0", doc: "With a rate and a think time: after each stall the rate goes on from there instead of catching up on the I/Os the stall skipped", flag: true, apply: |j, v, _| { j.control.rate_ignore_thinktime = crate::units::parse_bool(v)?; Ok(()) } },
    OptDef { name: "rate_process", aliases: &[], category: R, ty: "linear|poisson", default: "linear", doc: "Evenly spaced or Poisson arrivals for rate limits", flag: false, apply: |j, v, _| { j.rate_poisson = match v { "linear" => false, "poisson" => true, _ => return Err("use linear or poisson".into()) }; Ok(()) } },
    OptDef { name: "thinktime", aliases: &[], category: R, ty: "time (us)", default: "0", doc: "Stall after each block of I/Os (microseconds without a unit)", flag: false, apply: |j, v, c| { j.thinktime = time(v, TimeUnit::Micros, c)?; Ok(()) } },
    OptDef { name: "thinktime_spin", aliases: &[], category: R, ty: "time (us)", default: "0", doc: "Of the think time, busy-spin this long (the rest sleeps)", flag: false, apply: |j, v, c| { j.thinktime_spin = time(v, TimeUnit::Micros, c)?; Ok(()) } },
    OptDef { name: "thinktime_blocks", aliases: &[], category: R, ty: "int", default: "1", doc: "I/Os between think-time stalls (0 acts as 1, as in fio)", flag: false, apply: |j, v, _| { j.thinktime_blocks = int_in(v, 0, u32::MAX as u64)?.max(1); Ok(()) } },
    OptDef {
        name: "thinktime_blocks_type",
        aliases: &[],
        category: R,
        ty: "complete|issue",
        default: "complete",
        doc: "Count completed (complete) or issued (issue) I/Os towards thinktime_blocks",
        flag: false,
        apply: |j, v, _| {
            j.thinktime_on_issue = match v.trim() {
                "complete" => false,
                "issue" => true,
                _ => return Err("use complete or issue".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "thinktime_iotime",
        aliases: &[],
        category: R,
        ty: "time (s)",
        default: "0",
        doc: "Stall for thinktime after this much I/O time (with thinktime_blocks > 1, whichever comes first)",
        flag: false,
        apply: |j, v, c| {
            j.thinktime_iotime = super::time(v, crate::units::TimeUnit::Seconds, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "latency_target",
        aliases: &[],
        category: R,
        ty: "time (µs)",
        default: "0 (off)",
        doc: "Find the highest queue depth (up to iodepth) whose I/Os meet this latency, by doubling and bisecting",
        flag: false,
        apply: |j, v, c| {
            j.latency_target = super::time(v, crate::units::TimeUnit::Micros, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "latency_window",
        aliases: &[],
        category: R,
        ty: "time (µs)",
        default: "0",
        doc: "With latency_target: how long each queue depth is tried before it is judged",
        flag: false,
        apply: |j, v, c| {
            j.latency_window = super::time(v, crate::units::TimeUnit::Micros, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "latency_percentile",
        aliases: &[],
        category: R,
        ty: "float (%)",
        default: "100",
        doc: "With latency_target: the share of I/Os in a window that must meet the target",
        flag: false,
        apply: |j, v, _| {
            let p: f64 = v
                .trim()
                .trim_end_matches('%')
                .parse()
                .map_err(|_| "a percentage, e.g. 99.9".to_string())?;
            if !(0.0..=100.0).contains(&p) || p == 0.0 {
                return Err("a percentage in (0, 100]".into());
            }
            j.latency_percentile = p;
            Ok(())
        },
    },
    OptDef {
        name: "latency_run",
        aliases: &[],
        category: R,
        ty: "bool",
        default: "0",
        doc: "With latency_target: keep adjusting the queue depth for the whole run instead of ending once the best depth has run one window",
        flag: false,
        apply: |j, v, _| {
            j.latency_run = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "flow",
        aliases: &[],
        category: R,
        ty: "int",
        default: "0 (off)",
        doc: "Weight in token-based flow control: jobs with the same flow_id do I/O in proportion to their weights (3 and 1: 3:1)",
        flag: false,
        apply: |j, v, _| {
            if v.trim().starts_with('-') {
                return Err("a weight is positive (fio's old negative flows are gone; give each job its share, e.g. 3 and 1)".into());
            }
            j.flow = super::int_in(v, 0, u32::MAX as u64)?;
            Ok(())
        },
    },
    OptDef {
        name: "flow_id",
        aliases: &[],
        category: R,
        ty: "int",
        default: "0",
        doc: "The flow group a job's flow weight belongs to",
        flag: false,
        apply: |j, v, _| {
            j.flow_id = super::int_in(v, 0, u32::MAX as u64)?;
            Ok(())
        },
    },
    OptDef {
        name: "flow_sleep",
        aliases: &[],
        category: R,
        ty: "time (µs)",
        default: "0",
        doc: "How long a job ahead of its flow share waits before trying again (0: yield and retry)",
        flag: false,
        apply: |j, v, c| {
            j.flow_sleep = super::time(v, crate::units::TimeUnit::Micros, c)?;
            Ok(())
        },
    },
];

/// `bsrange`: `lo-hi` per direction. A value written in bssplit's form
/// (`512/25:1k:25:2k:25:4k/25`, as in fio's own t/jobs) is read as fio reads it — the first
/// two sizes, each up to its `/`, the rest ignored — with a note that says so.
fn bsrange(j: &mut crate::spec::JobSpec, v: &str, c: &Ctx) -> Result<(), String> {
    for (i, p) in split_rwt(v).iter().enumerate() {
        let Some(p) = p else { continue };
        let (lo, hi) = if p.contains('/') {
            let sep = p
                .char_indices()
                .skip(1)
                .find(|(_, ch)| *ch == '-' || *ch == ':')
                .map(|(i, _)| i)
                .ok_or_else(|| {
                    format!("'{p}' is not a range (bssplit= takes sizes with shares)")
                })?;
            let head = |s: &str| s.split(['/', ':', '-']).next().unwrap_or("").to_string();
            let (a, b) = (size(&head(&p[..sep]), c)?, size(&head(&p[sep + 1..]), c)?);
            let (lo, hi) = if a > b { (b, a) } else { (a, b) };
            j.notes.push(format!(
                "bsrange={p} is read as fio reads it, {lo}-{hi} bytes: the '/' shares and \
                 the sizes after the second are ignored (bssplit= takes sizes with shares)"
            ));
            (lo, hi)
        } else {
            parse_range(p, |x| size(x, c))?
        };
        if lo == 0 {
            return Err("block sizes must be greater than 0".into());
        }
        j.bsrange[i] = Some((lo, hi));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::Dialect;

    fn c() -> Ctx {
        Ctx {
            dialect: Dialect::Fio,
            kb_base: 1024,
        }
    }

    #[test]
    fn bssplit_blank_shares_and_limits() {
        assert_eq!(
            bssplit_dir("4k/10:64k/50:32k/40", &c()),
            Ok(vec![(4096, 10.0), (65536, 50.0), (32768, 40.0)])
        );
        assert_eq!(
            bssplit_dir("1k/:4k/50:8k/", &c()),
            Ok(vec![(1024, 25.0), (4096, 50.0), (8192, 25.0)])
        );
        assert!(bssplit_dir("4k/60:8k/50", &c())
            .unwrap_err()
            .contains("more than 100"));
        let many = (0..65)
            .map(|i| format!("{}k/1", i + 1))
            .collect::<Vec<_>>()
            .join(":");
        assert!(bssplit_dir(&many, &c()).is_err());
    }

    #[test]
    fn distributions_parse_as_fio() {
        assert_eq!(
            distribution("zipf:1.2", &c()),
            Ok(RandomDist::Zipf(1.2, None))
        );
        assert_eq!(
            distribution("pareto:0.3:0.5", &c()),
            Ok(RandomDist::Pareto(0.3, Some(0.5)))
        );
        assert_eq!(
            distribution("normal:10", &c()),
            Ok(RandomDist::Normal(10.0, 0.5))
        );
        assert_eq!(
            distribution("zoned:60/10:30/20:10/70", &c()),
            Ok(RandomDist::Zoned(vec![
                (60.0, 10.0),
                (30.0, 20.0),
                (10.0, 70.0)
            ]))
        );
        assert_eq!(
            distribution("zoned_abs:60/20g:40/100g", &c()),
            Ok(RandomDist::ZonedAbs(vec![
                (60.0, 20 << 30),
                (40.0, 100 << 30)
            ]))
        );
        assert!(distribution("zipf:1.0", &c()).is_err());
        assert!(distribution("pareto:1.5", &c()).is_err());
        assert!(distribution("zoned:60/10:50/20", &c()).is_err());
    }
}
