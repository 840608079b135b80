//! Fuzz targets (bolero) for everything fathom reads from outside: fio job files (INI and
//! TOML) and values, vdbench parameter files and command lines, each classic tool's
//! command line, native and fio JSON results, crash journals, and the iologs and blktrace
//! traces `read_iolog` replays. Each target is seeded
//! with real inputs (the job files in `jobs/`, the public vdbench fixtures, runbook command
//! lines, results and journals fathom writes at the start of the run) and mutates them.
//!
//! The property: any input is read or refused with an error, never a panic, and none takes
//! a second. Under `cargo test` each target runs a bounded smoke run; the long run is
//!
//! ```text
//! FATHOM_FUZZ_ITERATIONS=10000000 cargo test --release --test fuzz -- --test-threads=2
//! ```
//!
//! (`FATHOM_FUZZ_SECONDS=N` bounds each target's time too; each prints its count.)
//!
//! and `cargo bolero test --test fuzz TARGET` runs one under libFuzzer.

mod jobs;
mod journal;
mod replay;
mod results;
mod suites;
mod vdbench;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Run `target` on generated inputs: `default` of them, or `FATHOM_FUZZ_ITERATIONS`, for at
/// most `FATHOM_FUZZ_SECONDS` where that is set. Counts the inputs and fails on the first
/// one that takes over a second (five in a debug build), printing it.
pub fn fuzz(name: &str, default: usize, target: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    let env = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<u64>().ok());
    let n = env("FATHOM_FUZZ_ITERATIONS").map_or(default, |n| n as usize);
    let time = env("FATHOM_FUZZ_SECONDS").map_or(Duration::MAX, Duration::from_secs);
    let limit = Duration::from_secs(if cfg!(debug_assertions) { 5 } else { 1 });
    let count = AtomicU64::new(0);
    let slowest = Mutex::new((Duration::ZERO, Vec::new()));
    let started = Instant::now();
    bolero::check!()
        .with_iterations(n)
        .with_test_time(time)
        .for_each(|input: &[u8]| {
            let t = Instant::now();
            target(input);
            let took = t.elapsed();
            count.fetch_add(1, Ordering::Relaxed);
            let mut s = slowest.lock().unwrap();
            if took > s.0 {
                *s = (took, input.to_vec());
            }
            assert!(
                took < limit,
                "{name}: an input took {took:?}: {:?}",
                String::from_utf8_lossy(input)
            );
        });
    let s = slowest.lock().unwrap();
    eprintln!(
        "fuzz {name}: {} inputs in {:.1} s, 0 panics, slowest {:?} ({} bytes)",
        count.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        s.0,
        s.1.len()
    );
}

/// Reads choices out of a fuzz input.
pub struct Src<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Src<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Src { bytes, at: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn pick(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let v = u16::from_le_bytes([self.byte(), self.byte()]) as usize;
        v % n
    }

    pub fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// Up to `max` of the next bytes, as text.
    pub fn text(&mut self, max: usize) -> String {
        let len = self.pick(max + 1);
        let end = (self.at + len).min(self.bytes.len());
        let s = String::from_utf8_lossy(&self.bytes[self.at.min(end)..end]).into_owned();
        self.at = end.max(self.at);
        s
    }
}

/// `seed` with `text` inserted at a place chosen by `at`.
pub fn splice(seed: &str, at: usize, text: &str) -> String {
    let cut = seed
        .char_indices()
        .map(|(i, _)| i)
        .nth(at % seed.len().max(1))
        .unwrap_or(0);
    format!("{}{}{}", &seed[..cut], text, &seed[cut..])
}

/// The files in `dir` (relative to the project root), as text.
pub fn files_in(dir: &str) -> Vec<String> {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<_> = std::fs::read_dir(d)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v.iter()
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// A command line: `seed` changed a few times as `src` says, by replacing, inserting,
/// deleting and repeating words, words from `dict` among them, and changing values.
pub fn mutate_args(seed: &[&str], dict: &[&str], src: &mut Src) -> Vec<String> {
    let mut args: Vec<String> = seed.iter().map(|s| s.to_string()).collect();
    let times = 1 + src.pick(4);
    for _ in 0..times {
        let i = src.pick(args.len() + 1);
        match src.pick(7) {
            0 if i < args.len() => args[i] = src.text(16),
            1 => args.insert(i, dict[src.pick(dict.len())].to_string()),
            2 if i < args.len() => {
                args.remove(i);
            }
            3 if i < args.len() => {
                // A new value for an option: after '=' or as the next word.
                let v = src.text(12);
                match args[i].find('=') {
                    Some(eq) => args[i].truncate(eq + 1),
                    None => args[i].clear(),
                }
                args[i].push_str(&v);
            }
            4 if i < args.len() => {
                let w = args[i].clone();
                args.insert(i, w);
            }
            5 => {
                let w = format!("{}{}", dict[src.pick(dict.len())], src.text(8));
                args.insert(i, w);
            }
            _ => args.insert(i.min(args.len()), src.text(16)),
        }
    }
    args
}

/// `seed` (JSON) with a few of its values changed as `src` says: numbers made huge,
/// negative, fractional or zero, values of the wrong type, keys and elements dropped or
/// repeated, strings from the input. The result is valid JSON that reaches the readers'
/// checks of meaning, where random bytes would stop at the syntax.
pub fn mutate_json(seed: &serde_json::Value, src: &mut Src) -> String {
    let mut v = seed.clone();
    for _ in 0..1 + src.pick(4) {
        mutate_at(&mut v, src, 0);
    }
    serde_json::to_string(&v).expect("JSON serializes")
}

fn mutate_at(v: &mut serde_json::Value, src: &mut Src, depth: usize) {
    use serde_json::Value;
    // Go down into a child most of the time, so deep fields are reached.
    let descend = depth < 12 && src.pick(8) != 0;
    match v {
        Value::Object(m) if descend && !m.is_empty() => {
            let k = m.keys().nth(src.pick(m.len())).cloned().expect("a key");
            if src.pick(10) == 0 {
                m.remove(&k);
            } else {
                mutate_at(m.get_mut(&k).expect("the key"), src, depth + 1);
            }
            return;
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = src.pick(a.len());
            match src.pick(10) {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let e = a[i].clone();
                    a.insert(i, e);
                }
                _ => mutate_at(&mut a[i], src, depth + 1),
            }
            return;
        }
        _ => {}
    }
    *v = match src.pick(14) {
        0 => Value::Null,
        1 => Value::Bool(src.byte() & 1 == 1),
        2 => Value::from(u64::MAX),
        3 => Value::from(-1i64),
        4 => Value::from(0),
        5 => Value::from(1e308),
        6 => Value::from(-0.5),
        7 => Value::from(i64::MIN),
        8 => Value::from(src.text(24)),
        9 => Value::Array(Vec::new()),
        10 => serde_json::json!({}),
        11 => Value::from(u32::MAX as u64 + 1),
        12 => match v {
            Value::Number(n) => Value::from(n.as_f64().unwrap_or(0.0) * 1e6 + 0.5),
            _ => Value::from(src.pick(1 << 16) as u64),
        },
        _ => Value::from(u16::from_le_bytes([src.byte(), src.byte()]) as u64),
    };
}

/// Run this build's fathom with `args` in `dir`; its stdout.
pub fn fathom(dir: &std::path::Path, args: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fathom"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("fathom runs");
    assert!(
        o.status.success(),
        "fathom {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8")
}
