//! Value parsers: sizes, times, booleans, per-direction lists, ranges and arithmetic, with
//! fio's rules for `.fio` files and command lines and strict units for TOML.
//!
//! ```
//! use fathom_job::units::{parse_size, parse_time, TimeUnit};
//! use fathom_job::Dialect;
//! assert_eq!(parse_size("4k", 1024, Dialect::Fio), Ok(4096));
//! assert_eq!(parse_size("4kib", 1024, Dialect::Fio), Ok(4000)); // fio's inverted IEC
//! assert_eq!(parse_size("4KiB", 1024, Dialect::Toml), Ok(4096));
//! assert_eq!(parse_time("500ms", TimeUnit::Seconds).unwrap().as_millis(), 500);
//! ```

use crate::words::Dialect;
use std::time::Duration;

/// Multiplier of a size suffix. `kb_base` 1024 (fio's default) makes `k` 1024 and the IEC
/// forms (`kib`) 1000, fio's legacy inversion; `kb_base` 1000 makes `k` 1000 and `kib`
/// 1024. TOML uses strict units whatever `kb_base` says: `k`/`kB` 1000, `Ki`/`KiB` 1024.
fn size_mult(suffix: &str, kb_base: u32, dialect: Dialect) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let s = s.as_str();
    if s.is_empty() || s == "b" {
        return Some(1);
    }
    let mut chars = s.chars();
    let letter = chars.next()?;
    let rest = chars.as_str();
    let power = match letter {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        'e' => 6,
        _ => return None,
    };
    let iec = match rest {
        "" | "b" => false,
        "i" | "ib" => true,
        _ => return None,
    };
    let base: u64 = match dialect {
        Dialect::Toml => {
            if iec {
                1024
            } else {
                1000
            }
        }
        Dialect::Fio => match (kb_base, iec) {
            (1000, false) | (1024, true) => 1000,
            _ => 1024,
        },
    };
    base.checked_pow(power)
}

/// Split a number from its suffix: `"16.5Gib"` → (`"16.5"`, `"Gib"`).
fn split_number(s: &str) -> (&str, &str) {
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Parse a size in bytes: `[0x]number[suffix]` (suffixes case-insensitive; `b` is bytes).
/// Fractions are allowed with a suffix (`1.5g`).
pub fn parse_size(s: &str, kb_base: u32, dialect: Dialect) -> Result<u64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty value; e.g. 4k".into());
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map_err(|_| format!("'{s}' is not a hex number"));
    }
    let (num, suffix) = split_number(s);
    if num.is_empty() {
        return Err("not a number; sizes look like 4096, 4k, 1m, 2g".into());
    }
    let mult = size_mult(suffix.trim(), kb_base, dialect).ok_or_else(|| {
        // `4k-64k` where one size goes: a range has its own options.
        let range = if suffix.contains('-') {
            " (one size here: a range of block sizes is bsrange=, e.g. bsrange=4k-64k)"
        } else {
            ""
        };
        format!(
            "unknown size suffix '{suffix}'; use k, m, g, t, p{}{range}",
            if dialect == Dialect::Toml {
                " (1000s) or Ki, Mi, Gi, Ti (1024s)"
            } else {
                ""
            }
        )
    })?;
    if num.contains('.') {
        let v: f64 = num
            .parse()
            .map_err(|_| format!("'{num}' is not a number"))?;
        let r = v * mult as f64;
        if !(0.0..1.8e19).contains(&r) {
            return Err("value out of range".into());
        }
        return Ok(r as u64);
    }
    let v: u64 = num
        .parse()
        .map_err(|_| format!("'{num}' is not a number"))?;
    v.checked_mul(mult)
        .ok_or_else(|| "value out of range".into())
}

/// fio 3.33 reads a size written with a decimal point only up to the point, dropping the
/// rest and the unit with it: `1.5k` is 1 byte, `2.0k` 2, `1.5m` 1. Such a size in a fio
/// job is refused (a job file with `bs=1.5k` does 1-byte I/Os in fio), with what fio
/// reads and the size meant in whole units. None when fio reads the value as written
/// (no point, or a whole number of bytes such as `4096.0`).
pub fn fio_decimal_size(s: &str, kb_base: u32) -> Option<String> {
    let s = s.trim();
    if s.starts_with("0x") || s.starts_with("0X") {
        return None;
    }
    let (num, suffix) = split_number(s);
    let (int, frac) = num.split_once('.')?;
    let suffix = suffix.trim();
    if suffix.is_empty() && frac.chars().all(|c| c == '0') {
        return None;
    }
    let int = if int.is_empty() { "0" } else { int };
    let meant = parse_size(s, kb_base, Dialect::Fio)
        .map(|m| format!(" ({m} bytes, as meant)"))
        .unwrap_or_default();
    Some(format!(
        "fio reads '{s}' as {int} byte(s): it stops at the '.', dropping the rest{}; write \
         the size in whole units{meant}",
        if suffix.is_empty() {
            ""
        } else {
            " and the unit"
        }
    ))
}

/// fio 3.33 reads a time written with a decimal point only up to the point too:
/// `runtime=1.5` and `runtime=1.5s` are 1 second, `ramp_time=0.5s` none. Such a time in a
/// fio job is refused with what fio reads and the whole-unit form; None for a value fio
/// reads as written (`30`, `2.0`).
pub fn fio_decimal_time(s: &str, default: TimeUnit) -> Option<String> {
    let s = s.trim();
    let (num, suffix) = split_number(s);
    let (int, frac) = num.split_once('.')?;
    if frac.chars().all(|c| c == '0') {
        return None;
    }
    let int = if int.is_empty() { "0" } else { int };
    let unit = match (suffix.trim(), default) {
        ("", TimeUnit::Seconds) => "s",
        ("", TimeUnit::Millis) => "ms",
        ("", TimeUnit::Micros) => "us",
        (u, _) => u,
    };
    let meant = parse_time(s, default)
        .map(|d| format!(" ({}us, as meant)", d.as_micros()))
        .unwrap_or_default();
    Some(format!(
        "fio reads '{s}' as {int}{unit}: it stops at the '.'; write the time in whole units, \
         a smaller one if need be{meant}"
    ))
}

/// Default unit of a time option without a suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds (runtime, ramp_time, startdelay, ...).
    Seconds,
    /// Microseconds (thinktime, latency_target, ...).
    Micros,
    /// Milliseconds (log_avg_msec, rate_cycle, ...).
    Millis,
}

/// Parse a time: suffixes `d`, `h`, `m` (minutes), `s`, `ms`/`msec`, `us`/`usec`,
/// case-insensitive; no suffix means `default`. fio reads an unknown suffix such as
/// `10sec` as 10 µs; fathom rejects it.
pub fn parse_time(s: &str, default: TimeUnit) -> Result<Duration, String> {
    let s = s.trim();
    let (num, suffix) = split_number(s);
    if num.is_empty() {
        return Err("not a number; times look like 30, 30s, 500ms, 2m".into());
    }
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{num}' is not a number"))?;
    let us_per = match suffix.to_ascii_lowercase().as_str() {
        "" => match default {
            TimeUnit::Seconds => 1e6,
            TimeUnit::Millis => 1e3,
            TimeUnit::Micros => 1.0,
        },
        "d" => 86_400e6,
        "h" => 3_600e6,
        "m" => 60e6,
        "s" => 1e6,
        "ms" | "msec" => 1e3,
        "us" | "usec" => 1.0,
        "ns" | "nsec" => 1e-3,
        other => {
            let fix = match other {
                "sec" | "secs" | "second" | "seconds" => Some("s"),
                "min" | "mins" | "minute" | "minutes" => Some("m"),
                "hr" | "hrs" | "hour" | "hours" => Some("h"),
                "day" | "days" => Some("d"),
                "millisecond" | "milliseconds" | "millis" => Some("ms"),
                "microsecond" | "microseconds" | "micros" => Some("us"),
                _ => None,
            };
            // fio multiplies by 1 here (10sec = 10 µs for a seconds option): an error is safer.
            return Err(match fix {
                Some(f) => format!(
                    "unknown time suffix '{suffix}' (fio would read {s} as {num} µs); \
                     write {num}{f}"
                ),
                None => format!("unknown time suffix '{suffix}'; use d, h, m, s, ms or us"),
            });
        }
    };
    let us = v * us_per;
    if !(0.0..1.8e19).contains(&us) {
        return Err("time out of range".into());
    }
    Ok(Duration::from_nanos((us * 1000.0).round() as u64))
}

/// Parse an integer (decimal or `0x` hex).
pub fn parse_int(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).map_err(|_| format!("'{s}' is not a hex number"));
    }
    s.parse::<u64>()
        .map_err(|_| format!("'{s}' is not a whole number"))
}

/// An integer option's value as fio reads it: a whole number with an optional size
/// suffix, in 1024s (`iodepth=1k` is 1024, as fio's integers go through its size
/// parser). A suffix fio would ignore (`numjobs=2x`: 2) is refused, saying so.
pub fn parse_int_suffixed(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, suffix) = split_number(t);
    let hex = t.len() > 1 && t.as_bytes()[..2].eq_ignore_ascii_case(b"0x");
    if hex || num.is_empty() || num.contains('.') || suffix.trim().is_empty() {
        return parse_int(t);
    }
    let n: u64 = num
        .parse()
        .map_err(|_| format!("'{t}' is not a whole number"))?;
    match size_mult(suffix.trim(), 1024, Dialect::Fio) {
        Some(m) => n
            .checked_mul(m)
            .ok_or_else(|| format!("'{t}' is out of range")),
        None => Err(format!(
            "'{t}' is not a whole number (fio would read {n} and ignore '{}'); write {n}",
            suffix.trim()
        )),
    }
}

/// Parse a boolean as fio does: an integer 0 or 1 (or `0x` hex). `true`/`yes` are refused,
/// as by fio, with a hint to write 1 (or 0).
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match parse_int(s) {
        Ok(0) => Ok(false),
        Ok(1) => Ok(true),
        _ => {
            let lower = s.trim().to_ascii_lowercase();
            Err(match lower.as_str() {
                "true" | "yes" | "on" | "y" => {
                    format!(
                        "booleans are 0 or 1 in fio job files: write 1 instead of '{}'",
                        s.trim()
                    )
                }
                "false" | "no" | "off" | "n" => {
                    format!(
                        "booleans are 0 or 1 in fio job files: write 0 instead of '{}'",
                        s.trim()
                    )
                }
                _ => "booleans are 0 or 1".into(),
            })
        }
    }
}

/// Split fio's per-direction list `R,W,T`: a value not followed by a comma applies to all
/// later directions; an empty field keeps that direction's default (None).
pub fn split_rwt(s: &str) -> [Option<&str>; 3] {
    let parts: Vec<&str> = s.split(',').collect();
    rwt_from_parts(&parts)
}

/// The directions of a split per-direction list (at least one part).
fn rwt_from_parts<'a>(parts: &[&'a str]) -> [Option<&'a str>; 3] {
    let mut out = [None, None, None];
    for (i, o) in out.iter_mut().enumerate() {
        let v = if i < parts.len() {
            parts[i]
        } else {
            // Past the end: the last field carries over unless it was empty.
            parts[parts.len() - 1]
        };
        let v = v.trim();
        *o = (!v.is_empty()).then_some(v);
    }
    out
}

/// Split a numeric per-direction value (bs=, blockalign=, rate=, rate_iops=, rate_min=,
/// rate_iops_min=, percentage_random=) as fio splits every numeric option's value: at
/// each `,`; where the rest has none, at its first `:`; where it has neither, at its first
/// `-` past its first character. So in a fio job `bs=2k-8k` and `bs=2k:8k` are
/// `bs=2k,8k` (reads 2k, writes and trims 8k; fio 3.33 runs them so). The second value
/// says whether a `:` or `-` split it (the caller may say how it was read). TOML takes
/// commas only.
pub fn split_rwt_numeric(s: &str, dialect: Dialect) -> ([Option<&str>; 3], bool) {
    if dialect == Dialect::Toml {
        return (split_rwt(s), false);
    }
    let mut parts = Vec::new();
    let mut rest = s;
    let mut other_sep = false;
    loop {
        let at = rest.find(',').or_else(|| {
            let i = rest.find(':').or_else(|| {
                rest.char_indices()
                    .skip(1)
                    .find(|(_, c)| *c == '-')
                    .map(|(i, _)| i)
            });
            other_sep |= i.is_some();
            i
        });
        match at {
            Some(i) => {
                parts.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            None => {
                parts.push(rest);
                break;
            }
        }
    }
    (rwt_from_parts(&parts), other_sep)
}

/// Parse a range `lo-hi`, `lo:hi` or `lo,hi` (swapped if lo > hi), or a single value
/// (lo = hi). As fio splits such a value (filesize=, startdelay=): at each `,`, else at
/// each `:`, else at a `-` past the first character; the first part is lo and the last
/// is hi (`filesize=256k,512k` is 256k-512k, as in fio).
pub fn parse_range<T: PartialOrd + Copy>(
    s: &str,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<(T, T), String> {
    let s = s.trim();
    // A trailing comma is dropped, as fio drops it.
    let s = s.strip_suffix(',').unwrap_or(s).trim();
    // A '-' at the start would be a sign, which no range value has.
    let parts: Vec<&str> = if s.contains(',') {
        s.split(',').collect()
    } else if s.contains(':') {
        s.split(':').collect()
    } else {
        match s.char_indices().skip(1).find(|(_, c)| *c == '-') {
            Some((i, _)) => vec![&s[..i], &s[i + 1..]],
            None => vec![s],
        }
    };
    match parts.as_slice() {
        [v] => {
            let v = one(v.trim())?;
            Ok((v, v))
        }
        [a, .., b] => {
            let (a, b) = (one(a.trim())?, one(b.trim())?);
            Ok(if a > b { (b, a) } else { (a, b) })
        }
        [] => unreachable!("split yields at least one part"),
    }
}

/// Split a `:`-separated path list; `\:` is a literal colon.
pub fn split_paths(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                chars.next();
                out.last_mut().expect("nonempty").push(':');
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("nonempty").push(c),
        }
    }
    out.into_iter().filter(|p| !p.is_empty()).collect()
}

/// fio's arithmetic: `+ - * / % ^` and parentheses over numbers with suffixes. Size
/// suffixes inside expressions are fio's hard-wired ones (k = 1024, kib = 1000); time
/// suffixes (when `time` is set) give microseconds, and a bare number is microseconds.
/// Integer semantics (as fio's `bc` with scale 0) when every operand is an integer.
pub fn eval_expr(s: &str, time: bool) -> Result<f64, String> {
    let toks = tokenize(s)?;
    let mut p = Parser {
        toks,
        pos: 0,
        time,
        depth: 0,
    };
    let v = p.expr()?;
    if p.pos != p.toks.len() {
        return Err(format!(
            "unexpected '{}' in expression",
            p.toks[p.pos].text()
        ));
    }
    Ok(v)
}

#[derive(Debug, Clone)]
enum Tok {
    Num(String),
    Op(char),
}

impl Tok {
    fn text(&self) -> String {
        match self {
            Tok::Num(s) => s.clone(),
            Tok::Op(c) => c.to_string(),
        }
    }
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if "+-*/%^()".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '.' {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '.') {
                i += 1;
            }
            out.push(Tok::Num(cs[start..i].iter().collect()));
        } else {
            return Err(format!("unexpected character '{c}' in expression"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    time: bool,
    /// Nesting so far (parentheses, signs, powers): bounded, so no input overflows the
    /// stack.
    depth: u32,
}

/// The deepest an expression may nest.
const MAX_NESTING: u32 = 256;

impl Parser {
    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(format!(
                "expression nested deeper than {MAX_NESTING} levels"
            ));
        }
        Ok(())
    }
    fn peek_op(&self) -> Option<char> {
        match self.toks.get(self.pos) {
            Some(Tok::Op(c)) => Some(*c),
            _ => None,
        }
    }
    fn expr(&mut self) -> Result<f64, String> {
        let mut v = self.term()?;
        while let Some(c @ ('+' | '-')) = self.peek_op() {
            self.pos += 1;
            let r = self.term()?;
            v = if c == '+' { v + r } else { v - r };
        }
        Ok(v)
    }
    fn term(&mut self) -> Result<f64, String> {
        let mut v = self.power()?;
        while let Some(c @ ('*' | '/' | '%')) = self.peek_op() {
            self.pos += 1;
            let r = self.power()?;
            v = match c {
                '*' => v * r,
                '/' => {
                    if r == 0.0 {
                        return Err("division by zero".into());
                    }
                    if v.fract() == 0.0 && r.fract() == 0.0 {
                        (v / r).trunc()
                    } else {
                        v / r
                    }
                }
                _ => {
                    if r == 0.0 {
                        return Err("division by zero".into());
                    }
                    v % r
                }
            };
        }
        Ok(v)
    }
    fn power(&mut self) -> Result<f64, String> {
        let b = self.unary()?;
        if self.peek_op() == Some('^') {
            self.pos += 1;
            self.deeper()?;
            let e = self.power()?;
            self.depth -= 1;
            return Ok(b.powf(e));
        }
        Ok(b)
    }
    fn unary(&mut self) -> Result<f64, String> {
        if self.peek_op() == Some('-') {
            self.pos += 1;
            self.deeper()?;
            let v = -self.unary()?;
            self.depth -= 1;
            return Ok(v);
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<f64, String> {
        match self.toks.get(self.pos).cloned() {
            Some(Tok::Op('(')) => {
                self.pos += 1;
                self.deeper()?;
                let v = self.expr()?;
                self.depth -= 1;
                if self.peek_op() != Some(')') {
                    return Err("missing ')'".into());
                }
                self.pos += 1;
                Ok(v)
            }
            Some(Tok::Num(n)) => {
                self.pos += 1;
                let (num, suffix) = split_number(&n);
                let v: f64 = num.parse().map_err(|_| format!("'{n}' is not a number"))?;
                let mult = if self.time {
                    match suffix.to_ascii_lowercase().as_str() {
                        "" | "us" | "usec" => 1.0,
                        "ms" | "msec" => 1e3,
                        "s" => 1e6,
                        "m" => 60e6,
                        "h" => 3600e6,
                        "d" => 86_400e6,
                        o => return Err(format!("unknown time suffix '{o}'")),
                    }
                } else {
                    size_mult(suffix, 1024, Dialect::Fio)
                        .ok_or_else(|| format!("unknown suffix '{suffix}'"))?
                        as f64
                };
                Ok(v * mult)
            }
            Some(t) => Err(format!("unexpected '{}' in expression", t.text())),
            None => Err("expression ends too early".into()),
        }
    }
}

/// Values of fio's reserved keywords.
pub fn keyword(name: &str) -> Option<u64> {
    use nix::unistd::{sysconf, SysconfVar};
    let sc = |k| sysconf(k).ok().flatten().unwrap_or(0);
    match name {
        "pagesize" => Some(sc(SysconfVar::PAGE_SIZE).max(1) as u64),
        "ncpus" => Some(sc(SysconfVar::_NPROCESSORS_CONF).max(1) as u64),
        "mb_memory" => {
            let pages = sc(SysconfVar::_PHYS_PAGES).max(0) as u64;
            let psz = sc(SysconfVar::PAGE_SIZE).max(1) as u64;
            Some(pages * psz / (1 << 20))
        }
        _ => None,
    }
}

/// Substitute `${VAR}` from the environment (undefined → empty) and fio's `$pagesize`,
/// `$mb_memory`, `$ncpus`. Returns the new text and whether a keyword was replaced.
pub fn substitute(s: &str) -> (String, bool) {
    let mut out = String::with_capacity(s.len());
    let mut keyword_used = false;
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(body) = after.strip_prefix('{') {
            if let Some(end) = body.find('}') {
                out.push_str(&std::env::var(&body[..end]).unwrap_or_default());
                rest = &body[end + 1..];
                continue;
            }
        }
        let word_len = after
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map(|(j, _)| j)
            .unwrap_or(after.len());
        match keyword(&after[..word_len]) {
            Some(v) => {
                out.push_str(&v.to_string());
                keyword_used = true;
                rest = &after[word_len..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, keyword_used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dialect::{Fio, Toml};

    #[test]
    fn integers_take_fios_size_suffixes_and_refuse_what_it_would_ignore() {
        assert_eq!(parse_int_suffixed("1k"), Ok(1024));
        assert_eq!(parse_int_suffixed(" 2M "), Ok(2 << 20));
        assert_eq!(parse_int_suffixed("32"), Ok(32));
        assert_eq!(parse_int_suffixed("0x10"), Ok(16));
        let e = parse_int_suffixed("2x").unwrap_err();
        assert!(
            e.contains("fio would read 2 and ignore 'x'); write 2"),
            "{e}"
        );
        assert!(parse_int_suffixed("1.5k").is_err());
        assert!(parse_int_suffixed("k").is_err());
        // A multi-byte character where a prefix is looked for (found by the fuzz test).
        assert!(parse_int_suffixed("\u{80}").is_err());
        assert!(parse_int_suffixed("7\u{80}").is_err());
    }

    #[test]
    fn fio_sizes_with_kb_base_1024() {
        for (s, v) in [
            ("4096", 4096),
            ("4k", 4096),
            ("4K", 4096),
            ("4kb", 4096),
            ("4KB", 4096),
            ("1m", 1 << 20),
            ("1g", 1 << 30),
            ("2t", 2 << 40),
            ("1p", 1 << 50),
            ("512b", 512),
            ("4kib", 4000),
            ("4KiB", 4000),
            ("1mib", 1_000_000),
            ("1mi", 1_000_000),
            ("0x10", 16),
            ("1.5k", 1536),
        ] {
            assert_eq!(parse_size(s, 1024, Fio), Ok(v), "{s}");
        }
    }

    #[test]
    fn fio_sizes_with_kb_base_1000() {
        assert_eq!(parse_size("4k", 1000, Fio), Ok(4000));
        assert_eq!(parse_size("4kib", 1000, Fio), Ok(4096));
        assert_eq!(parse_size("1m", 1000, Fio), Ok(1_000_000));
    }

    #[test]
    fn toml_sizes_are_strict() {
        assert_eq!(parse_size("4KiB", 1024, Toml), Ok(4096));
        assert_eq!(parse_size("4kB", 1024, Toml), Ok(4000));
        assert_eq!(parse_size("4k", 1024, Toml), Ok(4000));
        assert_eq!(parse_size("16MiB", 1000, Toml), Ok(16 << 20));
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("abc", 1024, Fio)
            .unwrap_err()
            .contains("not a number"));
        assert!(parse_size("4q", 1024, Fio).unwrap_err().contains("suffix"));
        assert!(parse_size("99999999999p", 1024, Fio).is_err());
    }

    #[test]
    fn times_with_default_units() {
        let s = |x| parse_time(x, TimeUnit::Seconds).unwrap();
        assert_eq!(s("10"), Duration::from_secs(10));
        assert_eq!(s("10s"), Duration::from_secs(10));
        assert_eq!(s("500ms"), Duration::from_millis(500));
        assert_eq!(s("500msec"), Duration::from_millis(500));
        assert_eq!(s("2m"), Duration::from_secs(120));
        assert_eq!(s("1h"), Duration::from_secs(3600));
        assert_eq!(s("1d"), Duration::from_secs(86400));
        assert_eq!(s("250us"), Duration::from_micros(250));
        assert_eq!(
            parse_time("100", TimeUnit::Micros).unwrap(),
            Duration::from_micros(100)
        );
        assert_eq!(
            parse_time("100", TimeUnit::Millis).unwrap(),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn sec_suffix_is_refused_not_read_as_microseconds() {
        let e = parse_time("10sec", TimeUnit::Seconds).unwrap_err();
        assert!(e.contains("10s"), "{e}");
        assert!(parse_time("5min", TimeUnit::Seconds).is_err());
    }

    #[test]
    fn booleans_are_integers() {
        assert_eq!(parse_bool("1"), Ok(true));
        assert_eq!(parse_bool("0"), Ok(false));
        assert_eq!(parse_bool("0x1"), Ok(true));
        assert!(parse_bool("true").is_err());
        assert!(parse_bool("2").is_err());
    }

    #[test]
    fn per_direction_lists_follow_fio() {
        assert_eq!(split_rwt("256k"), [Some("256k"); 3]);
        assert_eq!(split_rwt("8k,32k"), [Some("8k"), Some("32k"), Some("32k")]);
        assert_eq!(split_rwt("8k,32k,"), [Some("8k"), Some("32k"), None]);
        assert_eq!(split_rwt(",8k"), [None, Some("8k"), Some("8k")]);
        assert_eq!(split_rwt("500k,"), [Some("500k"), None, None]);
        assert_eq!(split_rwt(",500k"), [None, Some("500k"), Some("500k")]);
        assert_eq!(split_rwt("1k,2k,3k"), [Some("1k"), Some("2k"), Some("3k")]);
        // Numeric lists split at ':' or '-' where there is no comma, as fio's parser.
        let f = |s| split_rwt_numeric(s, Dialect::Fio);
        assert_eq!(f("2k-8k"), ([Some("2k"), Some("8k"), Some("8k")], true));
        assert_eq!(f("2k:8k"), ([Some("2k"), Some("8k"), Some("8k")], true));
        assert_eq!(f("1k:2k-3k"), ([Some("1k"), Some("2k"), Some("3k")], true));
        assert_eq!(f("1k,2k-3k"), ([Some("1k"), Some("2k"), Some("3k")], true));
        assert_eq!(f("8k,32k,"), ([Some("8k"), Some("32k"), None], false));
        assert_eq!(f("500k,"), ([Some("500k"), None, None], false));
        assert_eq!(f("4k"), ([Some("4k"); 3], false));
        assert_eq!(
            split_rwt_numeric("2k-8k", Dialect::Toml),
            ([Some("2k-8k"); 3], false)
        );
    }

    #[test]
    fn ranges_swap_and_accept_both_separators() {
        let p = |s| parse_range(s, |x| parse_size(x, 1024, Fio));
        assert_eq!(p("1k-4k"), Ok((1024, 4096)));
        assert_eq!(p("4k:1k"), Ok((1024, 4096)));
        assert_eq!(p("8k"), Ok((8192, 8192)));
        // fio splits a range option at commas too, first and last part.
        assert_eq!(p("256k,512k"), Ok((262144, 524288)));
        assert_eq!(p("512k,256k"), Ok((262144, 524288)));
        assert_eq!(p("1k,2k,3k"), Ok((1024, 3072)));
        assert_eq!(p("4k,"), Ok((4096, 4096)));
        assert!(p("4k,x").is_err());
    }

    #[test]
    fn path_lists_split_on_colons_with_escapes() {
        assert_eq!(split_paths("a:b"), vec!["a", "b"]);
        assert_eq!(split_paths(r"c\:d:e"), vec!["c:d", "e"]);
        assert_eq!(split_paths("/dev/sdb"), vec!["/dev/sdb"]);
    }

    #[test]
    fn multibyte_input_is_an_error_not_a_panic() {
        assert!(parse_size("4é", 1024, Fio).is_err());
        assert!(parse_size("é", 1024, Fio).is_err());
        assert!(parse_range("é-1", |x| parse_size(x, 1024, Fio)).is_err());
        assert!(parse_time("1é", TimeUnit::Seconds).is_err());
    }

    #[test]
    fn arithmetic_as_fio() {
        assert_eq!(eval_expr("10*10*1000*3", false), Ok(300_000.0));
        assert_eq!(eval_expr("(1+2)*4k", false), Ok(12288.0));
        assert_eq!(eval_expr("(2^10)", false), Ok(1024.0));
        assert_eq!(eval_expr("7/2", false), Ok(3.0));
        assert_eq!(eval_expr("7%4", false), Ok(3.0));
        assert_eq!(eval_expr("1kib", false), Ok(1000.0));
        assert_eq!(
            eval_expr("(10+5)", true),
            Ok(15.0),
            "time defaults to µs in ( )"
        );
        assert_eq!(eval_expr("(1s+500ms)", true), Ok(1_500_000.0));
        assert!(eval_expr("(1+", false).is_err());
        assert!(eval_expr("1/0", false).is_err());
    }

    #[test]
    fn keywords_and_environment_are_substituted() {
        std::env::set_var("FATHOM_UNITS_TEST", "4k");
        assert_eq!(substitute("bs=${FATHOM_UNITS_TEST}").0, "bs=4k");
        assert_eq!(substitute("${FATHOM_UNDEFINED_VAR_X}").0, "");
        let (s, used) = substitute("$ncpus/2");
        assert!(used);
        assert!(s.ends_with("/2") && s.len() > 2);
        let (s, used) = substitute("$notakeyword");
        assert_eq!((s.as_str(), used), ("$notakeyword", false));
        assert!(keyword("mb_memory").unwrap() > 0);
        assert!(keyword("pagesize").unwrap() >= 4096);
    }
}
