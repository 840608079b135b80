//! fio's verify family.

use super::{int_in, size, OptDef};
use crate::spec::VerifyKind;
use crate::units::parse_bool;

const C: &str = "Data integrity (verify)";

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "verify",
        aliases: &[],
        category: C,
        ty: "md5|crc64|crc32c|crc32c-intel|crc32|crc16|crc7|xxhash|sha1|sha256|sha512|sha3-224|sha3-256|sha3-384|sha3-512|meta|pattern|pattern_hdr|null|0",
        default: "0 (off)",
        doc: "Write each block with a header (magic, offset, clone, seed, generation, time, checksum) and check it on read back: corruption, misdirected, lost, torn and unwritten blocks are named exactly",
        flag: false,
        apply: |j, v, _| {
            if v == "0" || v == "none" {
                j.verify.kind = None;
                return Ok(());
            }
            j.verify.kind = Some(
                VerifyKind::NAMES
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|(_, k)| *k)
                    .ok_or_else(|| {
                        format!(
                            "unknown verify type; use one of {}",
                            VerifyKind::NAMES
                                .iter()
                                .map(|(n, _)| *n)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })?,
            );
            Ok(())
        },
    },
    OptDef {
        name: "verify_interval",
        aliases: &[],
        category: C,
        ty: "size",
        default: "the block size",
        doc: "Bytes per verified chunk, each with its own header (a divisor of every block size; at least 80, as fio, and at least the header: 64 bytes for crc32c, 120 for sha512)",
        flag: false,
        apply: |j, v, c| {
            let n = size(v, c)?;
            if n < 80 {
                return Err(
                    "at least 80 (fio's minimum, two of its headers; fio refuses 0 too: leave \
                     it out for the block size)"
                        .into(),
                );
            }
            j.verify.interval = n;
            Ok(())
        },
    },
    OptDef {
        name: "verify_offset",
        aliases: &[],
        category: C,
        ty: "size",
        default: "0",
        doc: "Put each chunk's header this far into the chunk instead of at its start; at least 40 (fio's header size: fio refuses less, 0 included)",
        flag: false,
        apply: |j, v, c| {
            let n = size(v, c)?;
            if n < 40 {
                return Err(format!(
                    "{n} is below 40: the offset must leave room for fio's 40-byte verify \
                     header before it, and fio refuses less (0 included); leave \
                     verify_offset out to keep the header at the chunk's start"
                ));
            }
            j.verify.offset = n;
            Ok(())
        },
    },
    OptDef {
        name: "verify_pattern",
        aliases: &[],
        category: C,
        ty: "pattern",
        default: "",
        doc: "Data pattern (0xHEX, \"text\" or a number; %o is the chunk's offset, 8 bytes) for verify=pattern or pattern_hdr; alone it means verify=pattern",
        flag: false,
        apply: |j, v, _| {
            // `%o` puts the chunk's offset (8 bytes) at that place in the pattern.
            let mut p = Vec::new();
            let mut at = Vec::new();
            for (i, part) in v.split("%o").enumerate() {
                if i > 0 {
                    at.push(p.len());
                    p.extend_from_slice(&[0u8; 8]);
                }
                if !part.is_empty() {
                    p.extend(super::engine_pattern(part)?);
                }
            }
            if p.is_empty() {
                return Err("the pattern is empty".into());
            }
            j.verify.pattern = Some(p);
            j.verify.pattern_offsets = at;
            if j.verify.kind.is_none() {
                j.verify.kind = Some(VerifyKind::Pattern);
            }
            Ok(())
        },
    },
    OptDef {
        name: "do_verify",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "Read back and check the written blocks after each loop's writes (as fio; with io_size, rounds of a pass written and read back until the reads and writes make io_size); not when the runtime ends the job, so a time-based job checks only through verify_backlog",
        flag: false,
        apply: |j, v, _| {
            j.verify.do_verify = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_only",
        aliases: &[],
        category: C,
        ty: "flag",
        default: "0",
        doc: "Write nothing: check what an earlier run of the same job wrote, read back in the blocks the job would have written (fio's dry run; headers must be self-consistent)",
        flag: true,
        apply: |j, v, _| {
            j.verify.only = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_backlog",
        aliases: &[],
        category: C,
        ty: "int (size suffixes allowed, as fio: 1m = 1048576 writes)",
        default: "0",
        doc: "After every N completed writes, check the blocks they wrote (keeps checking during the run)",
        flag: false,
        apply: |j, v, c| {
            j.verify.backlog = size(v, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_backlog_batch",
        aliases: &[],
        category: C,
        ty: "int",
        default: "verify_backlog",
        doc: "How many of the backlog's blocks each check reads",
        flag: false,
        apply: |j, v, _| {
            j.verify.backlog_batch = int_in(v, 0, u32::MAX as u64)? as u64;
            Ok(())
        },
    },
    OptDef {
        name: "verify_journal",
        aliases: &[],
        category: C,
        ty: "path",
        default: "",
        doc: "Crash-consistency journal: each verified write's intent before it is issued and its acknowledgement after, on stable storage (O_DSYNC); check it after a crash with `fathom verify --journal PATH` ($jobnum, or .N appended, per clone)",
        flag: false,
        apply: |j, v, _| {
            if v.is_empty() {
                return Err("give a path".into());
            }
            j.verify.journal = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "verify_dump",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Write each failed chunk as read (FILE.OFFSET.received) and as expected (FILE.OFFSET.expected) beside the file",
        flag: false,
        apply: |j, v, _| {
            j.verify.dump = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_async",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0",
        doc: "Threads that check read-back chunks (checksums off the reading thread)",
        flag: false,
        apply: |j, v, _| {
            j.verify.async_threads = int_in(v, 0, 256)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_async_cpus",
        aliases: &[],
        category: C,
        ty: "cpu list",
        default: "",
        doc: "The CPUs the verify_async threads run on (as cpus_allowed)",
        flag: false,
        apply: |j, v, _| {
            j.verify.async_cpus = Some(super::time::cpu_list(v)?);
            Ok(())
        },
    },
    OptDef {
        name: "verify_state_save",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "When the write phase is cut short (interrupted, runtime), save each chunk's generation to local-JOB-N-verify.state",
        flag: false,
        apply: |j, v, _| {
            j.verify.state_save = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_state_load",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Load local-JOB-N-verify.state first, so verify_only knows every chunk's generation (lost writes show)",
        flag: false,
        apply: |j, v, _| {
            j.verify.state_load = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "trim_verify_zero",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "With verify and trims: a trimmed chunk must read back as zeroes (0: trimmed chunks are not checked)",
        flag: false,
        apply: |j, v, _| {
            j.verify.trim_zero = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "experimental_verify",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Read back by replaying the job's writes from its seed, in the order they were written (as fio's experimental verify), instead of in offset order",
        flag: false,
        apply: |j, v, _| {
            j.verify.experimental = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "verify_fatal",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Stop at the first verify failure even where continue_on_error=verify would go on (the failure still counted as tolerated, exit 0, as fio); without continue_on_error the first failure ends the job anyway",
        flag: false,
        apply: |j, v, _| {
            j.verify.fatal = parse_bool(v)?;
            Ok(())
        },
    },
];
