//! bonnie++'s six sequential and seek tests on one file: per character write, block
//! write, rewrite, per character read, block read, and random seeks.

use super::{aligned, check_stop, measure, open, unless_stopped, Measure, Opts, Rng};
use anyhow::Result;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// The six tests in bonnie++'s order (a test stopped by a signal, and those after it,
/// are None).
pub(super) fn io_tests(o: &Opts, path: &Path) -> Result<[Option<Measure>; 6]> {
    let chunks = o.size / o.chunk as u64;
    // Per character write and read: as bonnie++ 2.00, over the first `-f` bytes.
    let char_bytes = o.char_size.map(|c| c.min(o.size));
    let putc = match char_bytes {
        None => None,
        Some(n) => {
            eprint!("Writing a byte at a time...");
            let m = test_or_skip!(measure(|| putc(o, path, n)));
            eprintln!("done");
            m
        }
    };
    eprint!("Writing intelligently...");
    let mut buf = aligned(o.chunk);
    let block = test_or_skip!(measure(|| block_write(o, path, chunks, buf.as_mut_slice())));
    eprintln!("done");
    eprint!("Rewriting...");
    let rewrite = test_or_skip!(measure(|| rewrite(o, path, chunks, buf.as_mut_slice())));
    eprintln!("done");
    let getc = match char_bytes {
        None => None,
        Some(n) => {
            eprint!("Reading a byte at a time...");
            let m = test_or_skip!(measure(|| getc(path, n)));
            eprintln!("done");
            m
        }
    };
    eprint!("Reading intelligently...");
    let bread = test_or_skip!(measure(|| block_read(o, path, chunks, buf.as_mut_slice())));
    eprintln!("done");
    eprint!("start 'em...");
    let seeks = test_or_skip!(measure(|| seeks(o, path, chunks)));
    eprintln!();
    Ok([putc, block, rewrite, getc, bread, seeks])
}

/// Per character write: one write(2) of one byte per character (and with -b an fsync
/// after each). Returns KiB and the slowest write.
fn putc(o: &Opts, path: &Path, n: u64) -> Result<(f64, Duration)> {
    let mut f = open(path, true, true, false)?;
    let mut worst = Duration::ZERO;
    for i in 0..n {
        if i % 65536 == 0 {
            check_stop()?;
        }
        let t = Instant::now();
        f.write_all(&[(i & 0x7f) as u8])?;
        if o.fsync {
            f.sync_data()?;
        }
        worst = worst.max(t.elapsed());
    }
    Ok((n as f64 / 1024.0, worst))
}

/// Block write: the file in chunks, each stamped with its number.
fn block_write(o: &Opts, path: &Path, chunks: u64, buf: &mut [u8]) -> Result<(f64, Duration)> {
    let chunk = o.chunk as u64;
    let f = open(path, true, true, o.direct)?;
    let mut worst = Duration::ZERO;
    for c in 0..chunks {
        check_stop()?;
        buf[..8].copy_from_slice(&c.to_le_bytes());
        let t = Instant::now();
        f.write_all_at(buf, c * chunk)?;
        if o.fsync {
            f.sync_data()?;
        }
        worst = worst.max(t.elapsed());
    }
    f.sync_all()?;
    Ok(((chunks * chunk) as f64 / 1024.0, worst))
}

/// Rewrite: read a chunk, change it, write it back in place.
fn rewrite(o: &Opts, path: &Path, chunks: u64, buf: &mut [u8]) -> Result<(f64, Duration)> {
    let chunk = o.chunk as u64;
    let f = open(path, true, false, o.direct)?;
    let mut worst = Duration::ZERO;
    for c in 0..chunks {
        check_stop()?;
        let t = Instant::now();
        let off = c * chunk;
        f.read_exact_at(buf, off)?;
        buf[0] ^= 0xff;
        f.write_all_at(buf, off)?;
        if o.fsync {
            f.sync_data()?;
        }
        worst = worst.max(t.elapsed());
    }
    Ok(((chunks * chunk) as f64 / 1024.0, worst))
}

/// Per character read: one read(2) of one byte per character, as bonnie++ 2.00.
fn getc(path: &Path, n: u64) -> Result<(f64, Duration)> {
    let mut f = open(path, false, false, false)?;
    let mut byte = [0u8; 1];
    let mut worst = Duration::ZERO;
    let mut sum = 0u64;
    let mut done = 0u64;
    while done < n {
        if done % 65536 == 0 {
            check_stop()?;
        }
        let t = Instant::now();
        if f.read(&mut byte)? != 1 {
            break;
        }
        worst = worst.max(t.elapsed());
        sum = sum.wrapping_add(byte[0] as u64);
        done += 1;
    }
    std::hint::black_box(sum);
    Ok((done as f64 / 1024.0, worst))
}

/// Block read: the file in chunks.
fn block_read(o: &Opts, path: &Path, chunks: u64, buf: &mut [u8]) -> Result<(f64, Duration)> {
    let chunk = o.chunk as u64;
    let f = open(path, false, false, o.direct)?;
    let mut worst = Duration::ZERO;
    for c in 0..chunks {
        check_stop()?;
        let t = Instant::now();
        f.read_exact_at(buf, c * chunk)?;
        worst = worst.max(t.elapsed());
    }
    Ok(((chunks * chunk) as f64 / 1024.0, worst))
}

/// Random seeks: `-c`-style seekers in parallel, each reading random chunks and
/// rewriting one in ten.
fn seeks(o: &Opts, path: &Path, chunks: u64) -> Result<(f64, Duration)> {
    let results: Vec<Result<Duration>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..o.seekers)
            .map(|k| s.spawn(move || seeker(o, path, chunks, k)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("seeker"))
            .collect()
    });
    let mut worst = Duration::ZERO;
    for r in results {
        worst = worst.max(r?);
        eprint!("done...");
    }
    Ok(((o.seekers * o.seeks) as f64, worst))
}

/// One seeker: its share of the seeks; returns the slowest.
fn seeker(o: &Opts, path: &Path, chunks: u64, k: u32) -> Result<Duration> {
    let chunk = o.chunk as u64;
    let f = open(path, true, false, o.direct)?;
    let mut b = aligned(o.chunk);
    let mut rng = Rng(o.seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut worst = Duration::ZERO;
    for _ in 0..o.seeks {
        check_stop()?;
        let off = rng.next() % chunks.max(1) * chunk;
        let t = Instant::now();
        f.read_exact_at(b.as_mut_slice(), off)?;
        if rng.next() % 10 == 0 {
            b.as_mut_slice()[1] ^= 0x55;
            f.write_all_at(b.as_slice(), off)?;
        }
        worst = worst.max(t.elapsed());
    }
    Ok(worst)
}
