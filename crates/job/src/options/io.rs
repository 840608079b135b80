//! I/O pattern, block sizes, engine, depth, sync cadence and buffers.

use super::{int_in, size, OptDef};
use crate::units::{parse_bool, split_rwt_numeric};
use crate::words::{Rw, RwKind};

const C: &str = "I/O type, size and engine";

fn rw(v: &str, c: &super::Ctx) -> Result<Rw, String> {
    let (kind, suffix) = match v.split_once(':') {
        Some((k, n)) => (k, Some(n)),
        None => (v, None),
    };
    let kind = match kind {
        "read" => RwKind::Read,
        "write" => RwKind::Write,
        "trim" => RwKind::Trim,
        "randread" => RwKind::RandRead,
        "randwrite" => RwKind::RandWrite,
        "randtrim" => RwKind::RandTrim,
        "rw" | "readwrite" => RwKind::ReadWrite,
        "randrw" => RwKind::RandRw,
        "trimwrite" => RwKind::TrimWrite,
        "randtrimwrite" => RwKind::RandTrimWrite,
        _ => {
            return Err("use read, write, trim, randread, randwrite, randtrim, rw, \
                        randrw, trimwrite or randtrimwrite (optionally :N)"
                .into())
        }
    };
    let suffix = match suffix {
        // fio reads a random pattern's count as C's atoi does: its leading digits, a unit
        // after them dropped (`randwrite:8k` takes a new offset every 8 I/Os, not 8192).
        Some(n) if kind.is_random() => {
            let t = n.trim_start();
            let t = t.strip_prefix('+').unwrap_or(t);
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                return Err(format!(
                    "'{n}': a random pattern's suffix is a count of I/Os per random offset \
                     (randread:8)"
                ));
            }
            t[..digits]
                .parse::<i64>()
                .map_err(|_| format!("'{n}': too many I/Os per random offset"))?
        }
        // A negative stride moves back: `read:-8k` with `bs=4k` reads backwards.
        Some(n) => {
            let (sign, mag) = n.strip_prefix('-').map_or((1, n), |m| (-1, m));
            let stride =
                i64::try_from(size(mag, c)?).map_err(|_| format!("'{n}': too large a stride"))?;
            sign * stride
        }
        None => 0,
    };
    Ok(Rw { kind, suffix })
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "rw",
        aliases: &["readwrite"],
        category: C,
        ty: "pattern[:N]",
        default: "read",
        doc: "I/O pattern; :N adds N bytes of holes after each sequential I/O (negative N moves back: read:-8k with bs=4k reads backwards) or takes a new random offset every N I/Os (N read as fio reads it: its leading digits, so randwrite:8k is every 8)",
        flag: false,
        apply: |j, v, c| {
            j.rw = rw(v, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "rwmixread",
        aliases: &[],
        category: C,
        ty: "int (%)",
        default: "50",
        doc: "Percent of reads in a mixed pattern",
        flag: false,
        apply: |j, v, _| {
            j.rwmixread = int_in(v, 0, 100)?;
            Ok(())
        },
    },
    OptDef {
        name: "rwmixwrite",
        aliases: &[],
        category: C,
        ty: "int (%)",
        default: "50",
        doc: "Percent of writes in a mixed pattern (sets rwmixread to the rest)",
        flag: false,
        apply: |j, v, _| {
            j.rwmixread = 100 - int_in(v, 0, 100)?;
            Ok(())
        },
    },
    OptDef {
        name: "bs",
        aliases: &["blocksize"],
        category: C,
        ty: "size list R,W,T",
        default: "4k",
        doc: "Block size, per direction: bs=8k,32k reads 8 KiB and writes 32 KiB; as in fio, a list without a comma splits at ':' or '-' (bs=2k-8k is 2k reads and 8k writes, with a note: a range of sizes is bsrange=)",
        flag: false,
        apply: |j, v, c| {
            let (parts, other_sep) = split_rwt_numeric(v, c.dialect);
            for (i, part) in parts.iter().enumerate() {
                if let Some(p) = part {
                    let b = size(p, c)?;
                    if b == 0 {
                        return Err("block size must be greater than 0".into());
                    }
                    j.bs.0[i] = b;
                }
            }
            if other_sep {
                // fio's reading of `bs=2k-8k`, which may have been meant as a range.
                j.notes.push(format!(
                    "bs={v} is read as fio reads it, one size per direction: {} for reads, \
                     {} for writes, {} for trims (a range of sizes is bsrange={v})",
                    j.bs.0[0], j.bs.0[1], j.bs.0[2]
                ));
            }
            Ok(())
        },
    },
    OptDef {
        name: "ioengine",
        aliases: &[],
        category: C,
        ty: "engine",
        default: "psync",
        doc: "I/O engine (see --enghelp); aio and linuxaio mean libaio",
        flag: false,
        apply: |j, v, _| {
            let name = match v {
                "aio" | "linuxaio" => "libaio",
                other => other,
            };
            if name.starts_with("external:") {
                return Err("external engines are not supported; register a custom engine \
                            through the fathom library instead"
                    .into());
            }
            // The runner validates the name: it also knows engines registered at run time.
            j.ioengine = name.to_string();
            Ok(())
        },
    },
    OptDef {
        name: "iodepth",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "I/Os in flight (asynchronous engines; synchronous ones run at 1)",
        flag: false,
        apply: |j, v, _| {
            j.iodepth = int_in(v, 1, 65536)?;
            j.replay.iodepth_given = true;
            Ok(())
        },
    },
    OptDef {
        name: "direct",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Open files with O_DIRECT (bypass the page cache)",
        flag: false,
        apply: |j, v, _| {
            j.direct = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "buffered",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "The opposite of direct",
        flag: false,
        apply: |j, v, _| {
            j.direct = !parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "fsync",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0",
        doc: "fsync after every N writes, as fio decides it: before the next I/O (to that I/O's file), and again before each I/O while no write came since (in a mix, each read after the Nth write has its own); none after the last I/O. Counted in sync total_ios (fio's count of fsyncs)",
        flag: false,
        apply: |j, v, _| {
            j.fsync = int_in(v, 0, u32::MAX as u64)?;
            Ok(())
        },
    },
    OptDef {
        name: "fdatasync",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0",
        doc: "fdatasync after every N writes, as fsync= decides it (when fsync= falls due on the same write, only the fsync is made); timed in the sync latencies, not counted in sync total_ios (as fio)",
        flag: false,
        apply: |j, v, _| {
            j.fdatasync = int_in(v, 0, u32::MAX as u64)?;
            Ok(())
        },
    },
    OptDef {
        name: "sync_file_range",
        aliases: &[],
        category: C,
        ty: "flags:int",
        default: "",
        doc: "sync_file_range(2) over what was written to the file since its last sync, every N writes, decided as fsync= (fsync= and fdatasync= falling due on the same write go first); flags: wait_before, write, wait_after (comma-separated); timed in the sync latencies, not counted in sync total_ios (as fio)",
        flag: false,
        apply: |j, v, _| {
            let (flags, n) = v
                .rsplit_once(':')
                .ok_or("write FLAGS:N, e.g. wait_before,write:8")?;
            let mut f = 0u32;
            for w in flags.split(',').map(str::trim) {
                f |= match w {
                    "wait_before" => 1,
                    "write" => 2,
                    "wait_after" => 4,
                    o => {
                        return Err(format!(
                            "unknown flag '{o}'; use wait_before, write, wait_after"
                        ))
                    }
                };
            }
            let n = int_in(n, 1, u32::MAX as u64)?;
            j.sync_file_range = Some((f, n));
            Ok(())
        },
    },
    OptDef {
        name: "end_fsync",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "fsync the files at the end of each loop (and io_size pass) of a writing job, as fio",
        flag: false,
        apply: |j, v, _| {
            j.end_fsync = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "fsync_on_close",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "fsync each file when it is closed",
        flag: false,
        apply: |j, v, _| {
            j.fsync_on_close = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "zero_buffers",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Write zeroes instead of random data",
        flag: true,
        apply: |j, v, _| {
            j.zero_buffers = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "refill_buffers",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Generate new buffer contents for every write",
        flag: true,
        apply: |j, v, _| {
            j.refill_buffers = parse_bool(v)?;
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::Dialect;

    #[test]
    fn rw_suffixes() {
        let c = super::super::Ctx {
            dialect: Dialect::Fio,
            kb_base: 1024,
        };
        assert_eq!(
            rw("read:4k", &c),
            Ok(Rw {
                kind: RwKind::Read,
                suffix: 4096
            })
        );
        assert_eq!(
            rw("randread:8", &c),
            Ok(Rw {
                kind: RwKind::RandRead,
                suffix: 8
            })
        );
        assert_eq!(rw("read:-8k", &c).unwrap().suffix, -8192);
        // (A random pattern's count as fio's atoi reads it: the unit dropped.)
        assert_eq!(rw("randwrite:8k", &c).unwrap().suffix, 8);
        assert_eq!(rw("randread:16", &c).unwrap().suffix, 16);
        assert!(rw("randread:k", &c).is_err());
        assert!(rw("randread:-8", &c).is_err());
        assert_eq!(rw("readwrite", &c).unwrap().kind, RwKind::ReadWrite);
        assert!(rw("randomread", &c).is_err());
    }
}
