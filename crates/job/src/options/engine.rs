//! Engine-specific options, queue-depth batching, open flags and buffer contents.

use super::{int, int_in, size, OptDef};
use crate::spec::{StatType, SyncMode};
use crate::units::parse_bool;

const E: &str = "Engine options";
const B: &str = "Buffers and queue depth";

/// fio's pattern syntax: `0x` hex bytes, a quoted string, or a decimal number.
pub(crate) fn pattern(v: &str) -> Result<Vec<u8>, String> {
    // fio's pattern: elements written one after another, no separator: "text", 'file'
    // (the file's bytes), 0xHEX, and decimal numbers (`"abcd"-120xdeadface` is "abcd",
    // then -12 as 4 bytes, then de ad fa ce).
    const MAX: usize = 512;
    let mut rest = v.trim();
    if rest.is_empty() {
        return Err("the pattern is empty; e.g. 0xdeadbeef".into());
    }
    let mut out = Vec::new();
    while !rest.is_empty() {
        let b = rest.as_bytes();
        if b[0] == b'"' || b[0] == b'\'' {
            let q = b[0] as char;
            let body = &rest[1..];
            let end = body
                .find(q)
                .ok_or_else(|| format!("the {q}...{q} element needs its closing {q}"))?;
            let inner = &body[..end];
            if inner.is_empty() {
                return Err(format!("an empty {q}{q} element"));
            }
            if q == '"' {
                out.extend_from_slice(inner.as_bytes());
            } else {
                // 'file': the file's bytes, as fio reads them (bounded).
                use std::io::Read;
                let mut data = Vec::new();
                std::fs::File::open(inner)
                    .and_then(|f| f.take(MAX as u64 + 1).read_to_end(&mut data))
                    .map_err(|e| format!("pattern file '{inner}': {e}"))?;
                if data.is_empty() || data.len() > MAX {
                    return Err(format!("pattern file '{inner}' must hold 1 to {MAX} bytes"));
                }
                out.extend(data);
            }
            rest = &body[end + 1..];
        } else if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' && b[2].is_ascii_hexdigit() {
            let digits = &rest[2..];
            let mut n = digits.bytes().take_while(u8::is_ascii_hexdigit).count();
            // `0xff0x14`: the 0 before the next x starts the next element.
            if n > 1 && digits.as_bytes().get(n).is_some_and(|c| c | 0x20 == b'x') {
                n -= 1;
            }
            let h = &digits[..n];
            let h = if n % 2 == 1 {
                format!("0{h}")
            } else {
                h.to_string()
            };
            for k in (0..h.len()).step_by(2) {
                out.push(u8::from_str_radix(&h[k..k + 2], 16).map_err(|e| e.to_string())?);
            }
            rest = &digits[n..];
        } else if b[0] == b'%' {
            return Err("a %o element is for verify_pattern only".into());
        } else {
            // A decimal number, up to the next 0x.
            let stop = rest
                .to_ascii_lowercase()
                .find("0x")
                .filter(|&p| p > 0)
                .unwrap_or(rest.len());
            let sign = usize::from(b[0] == b'-' || b[0] == b'+');
            let len = sign
                + rest[sign..stop]
                    .bytes()
                    .take_while(u8::is_ascii_digit)
                    .count();
            let text = &rest[..len];
            if len == sign {
                return Err(format!(
                    "'{}' is not a pattern element: use 0xHEX, \"text\" or a number",
                    rest.chars().take(16).collect::<String>()
                ));
            }
            let bytes: Vec<u8> = match text.parse::<i64>() {
                Ok(0) => vec![0],
                Ok(n) if (i32::MIN as i64..=u32::MAX as i64).contains(&n) => {
                    let u = n as u32;
                    let k = 4 - u.leading_zeros() as usize / 8;
                    u.to_le_bytes()[..k].to_vec()
                }
                _ => {
                    let n: u64 = text
                        .parse()
                        .map_err(|_| format!("'{text}' is out of range for a pattern"))?;
                    let k = 8 - n.leading_zeros() as usize / 8;
                    n.to_le_bytes()[..k].to_vec()
                }
            };
            out.extend(bytes);
            rest = &rest[len..];
        }
        if out.len() > MAX {
            return Err(format!("the pattern is longer than {MAX} bytes"));
        }
    }
    Ok(out)
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef { name: "hipri", aliases: &[], category: E, ty: "flag", default: "0", doc: "io_uring: polled completions (IOPOLL, direct I/O on a device that polls); pvsync2: RWF_HIPRI", flag: true, apply: |j, v, _| { j.engine.hipri = parse_bool(v)?; Ok(()) } },
    OptDef { name: "fixedbufs", aliases: &[], category: E, ty: "flag", default: "0", doc: "io_uring: register the I/O buffers with the kernel", flag: true, apply: |j, v, _| { j.engine.fixedbufs = parse_bool(v)?; Ok(()) } },
    OptDef { name: "registerfiles", aliases: &[], category: E, ty: "flag", default: "0", doc: "io_uring: register the files with the kernel", flag: true, apply: |j, v, _| { j.engine.registerfiles = parse_bool(v)?; Ok(()) } },
    OptDef { name: "sqthread_poll", aliases: &[], category: E, ty: "flag", default: "0", doc: "io_uring: a kernel thread polls the submission queue (no submit syscalls)", flag: true, apply: |j, v, _| { j.engine.sqthread_poll = parse_bool(v)?; Ok(()) } },
    OptDef { name: "sqthread_poll_cpu", aliases: &[], category: E, ty: "int", default: "any", doc: "io_uring: CPU for the polling thread", flag: false, apply: |j, v, _| { j.engine.sqthread_poll_cpu = Some(int_in(v, 0, 65535)?); Ok(()) } },
    OptDef { name: "nonvectored", aliases: &[], category: E, ty: "int", default: "-1", doc: "io_uring: 0 uses readv/writev; -1 (default) and 1 use the plain read/write opcodes", flag: false, apply: |j, v, _| { j.engine.nonvectored = match v.trim() { "-1" => -1, x => int_in(x, 0, 1)? as i32 }; Ok(()) } },
    OptDef { name: "force_async", aliases: &[], category: E, ty: "int", default: "0", doc: "io_uring: IOSQE_ASYNC on every submission (punt to a kernel worker)", flag: false, apply: |j, v, _| { j.engine.force_async = int(v)? > 0; Ok(()) } },
    OptDef { name: "nowait", aliases: &[], category: E, ty: "flag", default: "0", doc: "pvsync2: RWF_NOWAIT, fail with EAGAIN instead of blocking", flag: true, apply: |j, v, _| { j.engine.nowait = parse_bool(v)?; Ok(()) } },
    OptDef { name: "hipri_percentage", aliases: &[], category: E, ty: "int (%)", default: "100", doc: "pvsync2 with hipri: the percentage of I/Os that carry RWF_HIPRI (chosen at random per I/O)", flag: false, apply: |j, v, _| { j.engine.hipri_percentage = int_in(v, 0, 100)?; Ok(()) } },
    OptDef { name: "cmdprio_percentage", aliases: &[], category: E, ty: "int[,int] (%)", default: "0", doc: "libaio, io_uring: the percentage of reads[,writes] issued with the priority of cmdprio_class and cmdprio (chosen at random per I/O); per-priority completion latencies are reported", flag: false, apply: |j, v, _| { crate::cmdprio::set_rw(v, &mut j.cmdprio.percentage, |x| int_in(x, 0, 100)) } },
    OptDef { name: "cmdprio_class", aliases: &[], category: E, ty: "int[,int]", default: "1 (real-time)", doc: "libaio, io_uring: the priority class of cmdprio I/Os: 1 real-time, 2 best-effort, 3 idle", flag: false, apply: |j, v, _| { crate::cmdprio::set_rw(v, &mut j.cmdprio.class, |x| int_in(x, 1, 3).map(Some)) } },
    OptDef { name: "cmdprio", aliases: &[], category: E, ty: "int[,int]", default: "0", doc: "libaio, io_uring: the priority level of cmdprio I/Os, 0 (highest) to 7", flag: false, apply: |j, v, _| { crate::cmdprio::set_rw(v, &mut j.cmdprio.level, |x| int_in(x, 0, 7)) } },
    OptDef { name: "cmdprio_bssplit", aliases: &[], category: E, ty: "bs/pct[/class/level]:...[,...]", default: "none", doc: "libaio, io_uring: per block size, the percentage of I/Os issued with a priority (the entry's class and level, else cmdprio_class and cmdprio); exclusive with cmdprio_percentage", flag: false, apply: |j, v, c| { j.cmdprio.bssplit = Some(crate::cmdprio::bssplit(v, |x| size(x, c))?); Ok(()) } },
    OptDef { name: "thp", aliases: &[], category: E, ty: "flag", default: "0", doc: "mmap: ask for transparent huge pages on each mapping (madvise MADV_HUGEPAGE)", flag: true, apply: |j, v, _| { j.engine.thp = parse_bool(v)?; Ok(()) } },
    OptDef { name: "userspace_reap", aliases: &[], category: E, ty: "flag", default: "0", doc: "libaio: read completions from the ring in user space instead of io_getevents", flag: true, apply: |j, v, _| { j.engine.userspace_reap = parse_bool(v)?; Ok(()) } },
    OptDef { name: "stat_type", aliases: &[], category: E, ty: "stat|lstat|statx", default: "stat", doc: "filestat, dirstat and filetree: the system call that looks files up", flag: false, apply: |j, v, _| { j.engine.stat_type = match v { "stat" => StatType::Stat, "lstat" => StatType::Lstat, "statx" => StatType::Statx, _ => return Err("use stat, lstat or statx".into()) }; Ok(()) } },
    OptDef { name: "cpuload", aliases: &[], category: E, ty: "int (%)", default: "none (required)", doc: "cpuio: percent of a CPU each clone burns (over 100 is 100, as fio)", flag: false, apply: |j, v, _| { j.engine.cpuload = int(v)?.clamp(1, 100) as u32; Ok(()) } },
    OptDef { name: "cpuchunks", aliases: &[], category: E, ty: "int (us)", default: "50000", doc: "cpuio: microseconds of each burn; the pause after it makes the load cpuload%", flag: false, apply: |j, v, _| { j.engine.cpuchunks = int(v)?.clamp(1, 60_000_000); Ok(()) } },
    OptDef { name: "exit_on_io_done", aliases: &[], category: E, ty: "bool", default: "0", doc: "cpuio: end the job once every I/O job of the run (this phase's and the later ones') has ended", flag: true, apply: |j, v, _| { j.engine.exit_on_io_done = crate::units::parse_bool(v)?; Ok(()) } },
    OptDef { name: "cpumode", aliases: &[], category: E, ty: "noop|qsort", default: "noop", doc: "cpuio: spin (noop) or sort 256 KiB of integers each burn (qsort; the pause follows the measured time)", flag: false, apply: |j, v, _| { j.engine.cpumode_qsort = match v { "noop" => false, "qsort" => true, _ => return Err("use noop or qsort".into()) }; Ok(()) } },
    OptDef { name: "iodepth_batch_submit", aliases: &["iodepth_batch"], category: B, ty: "int", default: "1", doc: "I/Os queued per submit call (0 = iodepth)", flag: false, apply: |j, v, _| { j.iodepth_batch_submit = int_in(v, 0, 65536)?; Ok(()) } },
    OptDef { name: "iodepth_batch_complete_min", aliases: &["iodepth_batch_complete"], category: B, ty: "int", default: "1", doc: "Completions to wait for per reap (0 = poll)", flag: false, apply: |j, v, _| { j.iodepth_batch_complete_min = int_in(v, 0, 65536)?; Ok(()) } },
    OptDef { name: "iodepth_batch_complete_max", aliases: &[], category: B, ty: "int", default: "iodepth_batch_complete_min", doc: "Most completions taken per reap", flag: false, apply: |j, v, _| { j.iodepth_batch_complete_max = int_in(v, 0, 65536)?; Ok(()) } },
    OptDef { name: "iodepth_low", aliases: &[], category: B, ty: "int", default: "iodepth", doc: "Once the queue is full, refill only when it has drained to this depth", flag: false, apply: |j, v, _| { j.iodepth_low = Some(int_in(v, 0, 65536)?); Ok(()) } },
    OptDef { name: "sync", aliases: &[], category: B, ty: "none|sync|dsync|0|1", default: "none", doc: "Open files with O_SYNC (sync, 1) or O_DSYNC (dsync)", flag: false, apply: |j, v, _| { j.sync = match v { "none" | "0" => SyncMode::None, "sync" | "1" => SyncMode::Sync, "dsync" => SyncMode::Dsync, _ => return Err("use none, sync or dsync".into()) }; Ok(()) } },
    OptDef { name: "iomem_align", aliases: &["mem_align"], category: B, ty: "size", default: "page size", doc: "Alignment of I/O buffers (at least the page size)", flag: false, apply: |j, v, c| { let a = size(v, c)?; if a != 0 && !a.is_power_of_two() { return Err("must be a power of two".into()); } else if a > 64 << 20 { return Err("at most 64 MiB (2 MiB covers huge pages)".into()); } j.iomem_align = a; Ok(()) } },
    OptDef { name: "scramble_buffers", aliases: &[], category: B, ty: "bool", default: "1", doc: "Lightly scramble each write buffer so identical buffers do not dedupe", flag: false, apply: |j, v, _| { j.scramble_buffers = parse_bool(v)?; Ok(()) } },
    OptDef { name: "buffer_pattern", aliases: &[], category: B, ty: "pattern", default: "random data", doc: "Fill write buffers with a pattern: 0xHEX, \"text\" or a number", flag: false, apply: |j, v, _| { j.buffer_pattern = Some(pattern(v)?); Ok(()) } },
    OptDef { name: "buffer_compress_percentage", aliases: &[], category: B, ty: "int (%)", default: "unset", doc: "Make write data compress by about this percent", flag: false, apply: |j, v, _| { j.buffer_compress_percentage = Some(int_in(v, 0, 100)?); Ok(()) } },
    OptDef { name: "buffer_compress_chunk", aliases: &[], category: B, ty: "size", default: "512", doc: "Granularity of buffer_compress_percentage", flag: false, apply: |j, v, c| { let n = size(v, c)?; if n == 0 { return Err("must be greater than 0".into()); } j.buffer_compress_chunk = n; Ok(()) } },
    OptDef { name: "dedupe_mode", aliases: &[], category: B, ty: "repeat|working_set", default: "repeat", doc: "What a deduplicated write repeats: one earlier buffer (repeat), or a buffer picked at random from a working set of the job's first blocks (working_set, sized by dedupe_working_set_percentage)", flag: false, apply: |j, v, _| { j.dedupe_working_set = match v { "repeat" => false, "working_set" => true, _ => return Err("use repeat or working_set".into()) }; Ok(()) } },
    OptDef { name: "dedupe_working_set_percentage", aliases: &[], category: B, ty: "int (%)", default: "5", doc: "dedupe_mode=working_set: the working set's size in percent of the job's size", flag: false, apply: |j, v, _| { j.dedupe_working_set_percentage = int_in(v, 0, 100)?; Ok(()) } },
    OptDef { name: "dedupe_global", aliases: &[], category: B, ty: "bool", default: "0", doc: "dedupe_mode=working_set: one working set for every job that sets this, spread evenly over their blocks, so jobs deduplicate against each other", flag: true, apply: |j, v, _| { j.dedupe_global = parse_bool(v)?; Ok(()) } },
    OptDef { name: "dedupe_percentage", aliases: &[], category: B, ty: "int (%)", default: "0", doc: "Percent of writes whose buffer repeats earlier content (dedupable)", flag: false, apply: |j, v, _| { j.dedupe_percentage = int_in(v, 0, 100)?; Ok(()) } },
];

#[cfg(test)]
mod tests {
    use super::pattern;

    #[test]
    fn patterns_as_fio() {
        assert_eq!(pattern("0xdeadbeef"), Ok(vec![0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(pattern("0xabc"), Ok(vec![0x0a, 0xbc]));
        assert_eq!(pattern("\"ab\""), Ok(b"ab".to_vec()));
        assert_eq!(pattern("1"), Ok(vec![1]));
        assert_eq!(pattern("0"), Ok(vec![0]));
        assert!(pattern("0xzz").is_err());
        // Elements one after another, as fio: string, decimal (4 bytes for -12), hex.
        assert_eq!(
            pattern("\"abcd\"-120xdeadface"),
            Ok(vec![
                b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce
            ])
        );
        assert_eq!(pattern("0xff0x14"), Ok(vec![0xff, 0x14]));
        assert_eq!(pattern("0x12\"z\"300"), Ok(vec![0x12, b'z', 0x2c, 0x01]));
        // 'file': the file's bytes.
        let dir = std::env::temp_dir().join(format!("fathom-pat-{}", std::process::id()));
        std::fs::write(&dir, b"\x01\x02xyz").unwrap();
        let p = pattern(&format!("'{}'0x09", dir.display())).unwrap();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(p, b"\x01\x02xyz\x09");
        assert!(pattern("'/nonexistent/p'").is_err());
        assert!(pattern("\"open").is_err());
        assert!(pattern("abc").is_err());
    }
}
