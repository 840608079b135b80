//! `read_iolog` inputs: fio iologs (versions 2 and 3) and blktrace binary traces, as the
//! tools write them, with lines, words, numbers and record fields changed; the merge of
//! traces too. Each is parsed or refused, never a panic.

use crate::{fuzz, splice, Src};
use fathom_workload::replay::{merge_blktrace, parse_with, ReplayCursor, ReplayOptions, Skip};

const V3: &str = "fio version 3 iolog\n12 /mnt/a.0.0 add\n13 /mnt/a.0.1 add\n66 /mnt/a.0.0 open\n\
69 /mnt/a.0.0 read 0 4096\n223 /mnt/a.0.1 write 45056 8192\n300 /mnt/a.0.0 sync 45056 0\n\
301 /mnt/a.0.1 datasync 0 0\n450 /mnt/a.0.0 trim 4096 4096\n511 /mnt/a.0.0 close\n\
fio version 3 iolog\n0 /mnt/b add\n4 /mnt/b read 8192 512\n";
const V2: &str = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb read 0 4096\n\
/dev/sdb wait 300 0\n/dev/sdb write 4096 8192\n/dev/sdb close\n";
const WORDS: &[&str] = &[
    " read ",
    " write ",
    " trim ",
    " sync ",
    " datasync ",
    " wait ",
    " add ",
    " open ",
    " close ",
    "\n",
    "18446744073709551615",
    "4294967296",
    "-1",
    " 0 ",
    "fio version 2 iolog\n",
    "fio version 3 iolog\n",
    "fio version 1 iolog\n",
    "\t",
    "99999999999999999999",
];

/// A blktrace record (little-endian).
fn rec(time: u64, sector: u64, bytes: u32, action: u32, dev: u32, pdu: u16) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(0x6561_7407u32.to_le_bytes());
    v.extend(0u32.to_le_bytes());
    v.extend(time.to_le_bytes());
    v.extend(sector.to_le_bytes());
    v.extend(bytes.to_le_bytes());
    v.extend(action.to_le_bytes());
    v.extend(7u32.to_le_bytes());
    v.extend(dev.to_le_bytes());
    v.extend(0u32.to_le_bytes());
    v.extend(0u16.to_le_bytes());
    v.extend(pdu.to_le_bytes());
    v.extend(std::iter::repeat_n(0u8, pdu as usize));
    v
}

fn trace() -> Vec<u8> {
    let q = 1 | (1 << 20);
    let dev = (8 << 20) | 16;
    [
        rec(0, 0, 0, 1 | (1 << 26), dev, 6),
        rec(1_000, 8, 4096, q | (1 << 16), dev, 0),
        rec(5_000, 16, 8192, q | (1 << 17), dev, 0),
        rec(5_600, 48, 4096, 2 | (1 << 20) | (1 << 17), dev, 0),
        rec(9_000, 0, 0, q | (1 << 17) | (1 << 18), dev, 0),
        rec(10_000, 64, 4096, q | (1 << 29), (8 << 20) | 32, 0),
        rec(11_000, 0, 4096, 8 | (1 << 23) | (1 << 17), dev, 0),
    ]
    .concat()
}

fn options(src: &mut Src) -> ReplayOptions {
    let b = src.byte();
    ReplayOptions {
        no_stall: b & 1 != 0,
        time_scale: [1, 100, 200, 50, u32::MAX][src.pick(5)],
        redirect: (b & 2 != 0).then(|| "/dev/x".to_string()),
        align: [0, 512, 4096, 1 << 62][src.pick(4)],
        scale: [1, 2, 3, u64::MAX][src.pick(4)],
        skip: Skip {
            read: b & 4 != 0,
            write: b & 8 != 0,
            trim: b & 16 != 0,
            sync: b & 32 != 0,
        },
    }
}

/// Parse, then walk the whole replay as a clone would.
fn replay(data: &[u8], o: &ReplayOptions) {
    let mut dev = |_: u32, b: u32| (b != 32).then(|| format!("/dev/d{b}"));
    if let Ok(r) = parse_with(data, o, &mut dev) {
        let (n, bytes) = (r.ios(), r.bytes());
        let mut c = ReplayCursor::new(std::sync::Arc::new(r));
        let mut syncs = Vec::new();
        let mut seen = [0u64; 3];
        let mut moved = 0u64;
        while let Some(io) = c.next_io(&mut syncs) {
            seen[io.ddir.index()] += 1;
            moved += io.len;
        }
        assert_eq!((seen, moved), (n, bytes));
    }
}

#[test]
fn fuzz_iologs() {
    fuzz("iologs", 3000, |input| {
        let mut src = Src::new(input);
        let o = options(&mut src);
        let mut text = if src.byte() & 1 == 0 { V3 } else { V2 }.to_string();
        for _ in 0..1 + src.pick(4) {
            let at = src.pick(text.len() + 1);
            let ins = match src.pick(3) {
                0 => WORDS[src.pick(WORDS.len())].to_string(),
                1 => src.text(16),
                _ => {
                    // Delete a stretch.
                    let cut = text
                        .char_indices()
                        .map(|(i, _)| i)
                        .nth(at % text.len().max(1))
                        .unwrap_or(0);
                    let end = text[cut..]
                        .char_indices()
                        .map(|(i, _)| cut + i)
                        .nth(src.pick(24))
                        .unwrap_or(text.len());
                    text.replace_range(cut..end, "");
                    continue;
                }
            };
            text = splice(&text, at, &ins);
        }
        replay(text.as_bytes(), &o);
    });
}

#[test]
fn fuzz_blktrace() {
    let seed = trace();
    fuzz("blktrace traces", 3000, |input| {
        let mut src = Src::new(input);
        let o = options(&mut src);
        let mut t = seed.clone();
        for _ in 0..1 + src.pick(4) {
            match src.pick(4) {
                0 => t.truncate(src.pick(t.len() + 1)),
                1 if !t.is_empty() => {
                    let i = src.pick(t.len());
                    t[i] = src.byte();
                }
                2 if t.len() >= 48 => {
                    // A whole field of a record: time, sector, bytes, action, device, pdu.
                    let r = 48 * src.pick(t.len() / 48);
                    let at = r + [8, 16, 24, 28, 36, 46][src.pick(6)];
                    let v = u64::from_le_bytes([
                        src.byte(),
                        src.byte(),
                        0,
                        0,
                        src.byte(),
                        0,
                        0,
                        src.byte(),
                    ]);
                    let end = (at + 8).min(t.len());
                    t[at.min(end)..end].copy_from_slice(&v.to_le_bytes()[..end - at.min(end)]);
                }
                _ => {
                    let tail = src.text(64);
                    t.extend_from_slice(tail.as_bytes());
                }
            }
        }
        replay(&t, &o);
        let scalars = [vec![], vec![100.0, 50.0], vec![1e300, 0.001]][src.pick(3)].clone();
        let iters = [vec![], vec![1, 3], vec![200, 1]][src.pick(3)].clone();
        if let Ok(m) = merge_blktrace(&[&t, &seed], &scalars, &iters) {
            replay(&m, &o);
        }
    });
}
