//! vdbench's values: sizes with binary suffixes, times with s/m/h, and number lists with
//! ranges (`(10-100,10)` steps, `(1k-64k,d)` doubling).

use crate::parse::{Item, VdbError};

/// A size: a number (decimals allowed) with an optional k/m/g/t suffix (powers of 1024).
pub fn size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        Some('b') if t.len() > 1 => return size(&t[..t.len() - 1]),
        _ => (t.as_str(), 1),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 4k, 1m, 1.5g)"))?;
    if v.is_nan() || v < 0.0 || !v.is_finite() {
        return Err(format!("'{s}' is not a size"));
    }
    Ok((v * mult as f64).round() as u64)
}

/// A number (decimals allowed).
pub fn number(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("'{s}' is not a number"))
}

/// A time in seconds: a number with an optional s, m or h.
pub fn secs(s: &str) -> Result<f64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = match t.chars().last() {
        Some('s') => (&t[..t.len() - 1], 1.0),
        Some('m') => (&t[..t.len() - 1], 60.0),
        Some('h') => (&t[..t.len() - 1], 3600.0),
        _ => (t.as_str(), 1.0),
    };
    number(num)
        .map(|v| v * mult)
        .map_err(|_| format!("'{s}' is not a time (seconds, or with s, m or h: 30, 5m, 1h)"))
}

/// Expand a value list of numbers or sizes read by `one`: single values, `a-b` ranges
/// followed by a step (`(10-100,10)`) or `d` for doubling (`(1k-64k,d)`); a range with
/// no step counts by one.
pub fn expand(item: &Item, one: fn(&str) -> Result<f64, String>) -> Result<Vec<f64>, VdbError> {
    let words = &item.list;
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if let Some((a, b)) = split_range(w) {
            let lo = one(a).map_err(|e| item.err(e))?;
            let hi = one(b).map_err(|e| item.err(e))?;
            if hi < lo {
                return Err(item.err(format!("the range '{w}' runs backwards")));
            }
            let next = words.get(i + 1).map(String::as_str);
            let mut v = lo;
            match next {
                Some("d") | Some("D") => {
                    if lo <= 0.0 {
                        return Err(item.err("a doubling range must start above 0"));
                    }
                    while v <= hi * (1.0 + 1e-9) {
                        out.push(v);
                        v *= 2.0;
                    }
                    i += 2;
                }
                Some(step) if one(step).is_ok() => {
                    let step = one(step).map_err(|e| item.err(e))?;
                    if step <= 0.0 {
                        return Err(item.err("a range's step must be above 0"));
                    }
                    while v <= hi * (1.0 + 1e-9) {
                        out.push(v);
                        v += step;
                    }
                    i += 2;
                }
                _ => {
                    while v <= hi * (1.0 + 1e-9) {
                        out.push(v);
                        v += 1.0;
                    }
                    i += 1;
                }
            }
            if out.len() > 100_000 {
                return Err(item.err("the range makes more than 100000 values"));
            }
        } else {
            out.push(one(w).map_err(|e| item.err(e))?);
            i += 1;
        }
    }
    Ok(out)
}

fn split_range(w: &str) -> Option<(&str, &str)> {
    // A '-' after the first character (a leading one would be a sign).
    let skip = w.chars().next()?.len_utf8();
    let i = w[skip..].find('-')? + skip;
    Some((&w[..i], &w[i + 1..]))
}

/// Sizes as f64 (for [`expand`]).
pub fn size_f(s: &str) -> Result<f64, String> {
    size(s).map(|v| v as f64)
}

/// A plain number as written (decimals kept: a percentage), or a size with a suffix.
pub fn number_or_size(s: &str) -> Result<f64, String> {
    number(s).or_else(|_| size_f(s))
}

/// vdbench's size suffixes, largest first.
const UNITS: [(&str, u64); 4] = [
    ("t", 1 << 40),
    ("g", 1 << 30),
    ("m", 1 << 20),
    ("k", 1 << 10),
];

/// A size as vdbench prints it in run banners and flat files (`4k`, `1m`, `512`).
pub fn show_size(v: u64) -> String {
    for (s, m) in UNITS {
        if v >= m && v % m == 0 {
            return format!("{}{s}", v / m);
        }
    }
    v.to_string()
}

/// A number as vdbench prints one with `%,d`: thousands grouped with commas.
pub fn grouped(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number without a needless fraction (`70`, `12.5`).
pub fn show_num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// A value as vdbench's run banner shows a loop's (`For loops: xfersize=256k threads=1`):
/// a size or number under 1024 as an integer, larger ones in k/m/g/t with up to three
/// decimals (none when whole); a word as written, in lower case.
pub fn loop_text(v: &str) -> String {
    let Ok(n) = size_f(v) else {
        return v.to_ascii_lowercase();
    };
    for (u, m) in UNITS {
        let m = m as f64;
        if n >= m {
            let t = format!("{:.3}", n / m);
            let t = t.strip_suffix(".000").unwrap_or(&t).to_string();
            return format!("{t}{u}");
        }
    }
    format!("{}", n as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::At;

    #[test]
    fn loop_values_read_as_vdbench_shows_them() {
        assert_eq!(loop_text("256K"), "256k");
        assert_eq!(loop_text("4096"), "4k");
        assert_eq!(loop_text("1536"), "1.500k");
        assert_eq!(loop_text("1m"), "1m");
        assert_eq!(loop_text("70"), "70");
        assert_eq!(loop_text("Random"), "random");
    }

    fn item(list: &[&str]) -> Item {
        Item {
            key: "k".into(),
            raw: String::new(),
            list: list.iter().map(|s| s.to_string()).collect(),
            at: At::default(),
        }
    }

    #[test]
    fn sizes_and_times() {
        assert_eq!(size("4k"), Ok(4096));
        assert_eq!(size("1.5m"), Ok(1572864));
        assert_eq!(size("202.5g"), Ok(217432719360));
        assert_eq!(size("512"), Ok(512));
        assert!(size("x").is_err());
        assert_eq!(secs("30"), Ok(30.0));
        assert_eq!(secs("5m"), Ok(300.0));
        assert_eq!(secs("100h"), Ok(360000.0));
    }

    #[test]
    fn ranges_step_double_and_plain() {
        assert_eq!(
            expand(&item(&["10-100", "10"]), number).unwrap(),
            (1..=10).map(|i| i as f64 * 10.0).collect::<Vec<_>>()
        );
        assert_eq!(
            expand(&item(&["5-100", "50"]), number).unwrap(),
            vec![5.0, 55.0]
        );
        let d = expand(&item(&["4k-512k", "d"]), size_f).unwrap();
        assert_eq!(d.len(), 8);
        assert_eq!(d[7], 524288.0);
        assert_eq!(
            expand(&item(&["1-4"]), number).unwrap(),
            vec![1.0, 2.0, 3.0, 4.0]
        );
        assert_eq!(
            expand(&item(&["1", "8", "64"]), number).unwrap(),
            vec![1.0, 8.0, 64.0]
        );
        assert!(expand(&item(&["9-1"]), number).is_err());
        assert_eq!(show_size(65536), "64k");
        assert_eq!(show_size(1000), "1000");
    }
}
