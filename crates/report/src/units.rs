//! Number formatting as fio prints it: `num2str` with its significant-figure and carry
//! rules, IEC and SI byte counts and rates, the latency unit choice for min/max lines and
//! percentile blocks, percentile precision, and `ctime`.
//!
//! ```
//! use fathom_report::units::{bytes, count, rate};
//! assert_eq!(count(12_403), "12.4k");
//! assert_eq!(rate(50_750_000, true), "48.4MiB/s");
//! assert_eq!(rate(50_750_000, false), "50.8MB/s");
//! assert_eq!(bytes(65_536, true), "64.0KiB");
//! ```

/// fio's `num2str` (base 1, no unit suffix): divides `num` by 1000 (SI) or 1024 (IEC,
/// `pow2`) until it has at most `maxlen` digits, then uses the digits left over for
/// decimals taken from the remainder of the *last* division only, rounding the last
/// decimal (a remainder ≥ half rounds the integer up when no decimal fits).
///
/// `num2str(12_403, 4, false) == "12.4k"`, `num2str(1_234_567, 4, false) == "1235k"`,
/// `num2str(9999, 4, false) == "9999"`.
pub fn num2str(num: u64, maxlen: usize, pow2: bool) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefix = if pow2 { &IEC } else { &SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let digits = |n: u64| n.to_string().len();

    let mut num = num;
    let mut post = 0usize;
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < prefix.len() {
        if digits(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    if post >= prefix.len() {
        post = 0;
    }
    let Some(modulo) = modulo else {
        return format!("{num}{}", prefix[post]);
    };
    let room = maxlen as i64 - digits(num) as i64;
    if room <= 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{}", prefix[post]);
    }
    let decimals = (room - 1) as usize;
    let frac = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    if frac.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}", &frac[2..], prefix[post])
}

/// A byte count with fio's 4 significant figures: IEC (`96.8MiB`) or SI (`102MB`).
pub fn bytes(n: u64, iec: bool) -> String {
    format!("{}B", num2str(n, 4, iec))
}

/// A byte rate (bytes/s) with fio's 4 significant figures: `48.4MiB/s` or `50.7MB/s`.
pub fn rate(bps: u64, iec: bool) -> String {
    format!("{}B/s", num2str(bps, 4, iec))
}

/// A count (IOPS) with SI prefixes and 4 significant figures: `12.4k`.
pub fn count(n: u64) -> String {
    num2str(n, 4, false)
}

/// A time unit fio scales latencies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatUnit {
    /// Nanoseconds (no scaling).
    Nsec,
    /// Microseconds.
    Usec,
    /// Milliseconds.
    Msec,
}

impl LatUnit {
    /// The name fio prints: `nsec`, `usec`, `msec`.
    pub fn name(self) -> &'static str {
        match self {
            LatUnit::Nsec => "nsec",
            LatUnit::Usec => "usec",
            LatUnit::Msec => "msec",
        }
    }
    /// Nanoseconds per unit.
    pub fn divisor(self) -> u64 {
        match self {
            LatUnit::Nsec => 1,
            LatUnit::Usec => 1_000,
            LatUnit::Msec => 1_000_000,
        }
    }
}

/// The unit of a `clat (usec): min=…` line (fio's `nsec_to_msec`/`nsec_to_usec`): msec
/// when min > 2 ms, max > 99.999999 ms and stddev > 1 ms; else usec when min > 2 µs,
/// max > 99.999 µs and stddev > 1 µs; else nsec. Inputs in ns.
pub fn lat_unit(min: u64, max: u64, stddev: f64) -> LatUnit {
    if min > 2_000_000 && max > 99_999_999 && stddev > 1_000_000.0 {
        LatUnit::Msec
    } else if min > 2000 && max > 99_999 && stddev > 1000.0 {
        LatUnit::Usec
    } else {
        LatUnit::Nsec
    }
}

/// The unit of a percentile block, from its smallest and largest value in ns: msec when
/// min > 2 ms and max > 99.999999 ms, usec when min > 2 µs and max > 99.999 µs.
pub fn percentile_unit(minv: u64, maxv: u64) -> LatUnit {
    if minv > 2_000_000 && maxv > 99_999_999 {
        LatUnit::Msec
    } else if minv > 2000 && maxv > 99_999 {
        LatUnit::Usec
    } else {
        LatUnit::Nsec
    }
}

/// A percentile block value in `unit`: fio rounds up at each step of 1000 (ceiling).
pub fn scale_up(ns: u64, unit: LatUnit) -> u64 {
    let steps = match unit {
        LatUnit::Nsec => 0,
        LatUnit::Usec => 1,
        LatUnit::Msec => 2,
    };
    (0..steps).fold(ns, |v, _| v.div_ceil(1000))
}

/// Decimals fio shows for percentile labels: the most digits after the point among the
/// list's values (fio counts them as typed; the default list gives 2). At most 6.
pub fn percentile_precision(list: &[f64]) -> usize {
    list.iter()
        .map(|&p| {
            (0..=6)
                .find(|&d| {
                    let s = 10f64.powi(d as i32);
                    ((p * s).round() - p * s).abs() < 1e-6
                })
                .unwrap_or(6)
        })
        .max()
        .unwrap_or(0)
}

/// The C library's `ctime` text for a Unix time in ms (local time), without newline:
/// `Sun Nov 22 12:27:25 2026`.
pub fn ctime(ms: u64) -> String {
    local_time(ms, c"%a %b %e %H:%M:%S %Y")
}

/// A Unix time in ms as local time in a `strftime` format (at most 63 bytes of text).
pub fn local_time(ms: u64, format: &std::ffi::CStr) -> String {
    let t = (ms / 1000) as libc::time_t;
    // SAFETY: localtime_r writes into the zeroed tm we own; strftime writes at most
    // buf.len() bytes and returns the length written.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        let mut buf = [0u8; 64];
        let n = libc::strftime(buf.as_mut_ptr().cast(), buf.len(), format.as_ptr(), &tm);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

/// A count per second as a short figure for tables and the live line: `12.40M`, `3.5k`,
/// `812`.
pub fn short_count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// A byte rate in binary units for tables (`1.25 GiB/s`, `812.4 MiB/s`, `96.0 KiB/s`)
/// or, `tight`, for the live line (`1.2GiB/s`, `812.4MiB/s`, `96KiB/s`).
pub fn short_rate(b: f64, tight: bool) -> String {
    const GIB: f64 = 1073741824.0;
    const MIB: f64 = 1048576.0;
    let (v, unit) = if b >= GIB {
        (b / GIB, "GiB/s")
    } else if b >= MIB {
        (b / MIB, "MiB/s")
    } else {
        (b / 1024.0, "KiB/s")
    };
    match (tight, unit) {
        (true, "KiB/s") => format!("{v:.0}{unit}"),
        (true, _) => format!("{v:.1}{unit}"),
        (false, "GiB/s") => format!("{v:.2} {unit}"),
        (false, _) => format!("{v:.1} {unit}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_figures_for_tables_and_the_live_line() {
        assert_eq!(short_count(12_403_000.0), "12.40M");
        assert_eq!(short_count(3_456.0), "3.5k");
        assert_eq!(short_count(812.4), "812");
        let g = 1.5 * 1073741824.0;
        assert_eq!(short_rate(g, false), "1.50 GiB/s");
        assert_eq!(short_rate(g, true), "1.5GiB/s");
        assert_eq!(short_rate(812.44 * 1048576.0, false), "812.4 MiB/s");
        assert_eq!(short_rate(812.44 * 1048576.0, true), "812.4MiB/s");
        assert_eq!(short_rate(96.0 * 1024.0, false), "96.0 KiB/s");
        assert_eq!(short_rate(96.0 * 1024.0, true), "96KiB/s");
    }

    use super::*;

    #[test]
    fn num2str_keeps_four_figures_with_fio_rounding() {
        assert_eq!(count(12_403), "12.4k");
        assert_eq!(count(12_450), "12.5k", "0.45 is just above a tie in binary");
        assert_eq!(
            num2str(49_408, 4, true),
            "48.2Ki",
            "0.25 → %.1f: exact ties go to even"
        );
        assert_eq!(count(12_460), "12.5k");
        assert_eq!(count(1_992_000), "1992k");
        assert_eq!(
            count(1_234_567),
            "1235k",
            "no room for decimals: carry rounds"
        );
        assert_eq!(count(1_234_467), "1234k");
        assert_eq!(count(9999), "9999");
        assert_eq!(count(10_000), "10.0k");
        assert_eq!(count(123), "123");
        assert_eq!(count(0), "0");
        assert_eq!(count(99_960), "100.0k", "fio's own carry quirk: 5 digits");
        assert_eq!(count(12_345_678), "12.3M", "only the last remainder counts");
        assert_eq!(num2str(1_152_000, 6, false), "1152.0k");
        assert_eq!(num2str(105_351, 6, false), "105351");
    }

    #[test]
    fn byte_counts_and_rates_in_iec_and_si() {
        // fio: BW=48.4MiB/s (50.7MB/s)(96.8MiB/2001msec), io=96.8MiB (102MB)
        let io = 24_792u64 * 4096;
        let bw = io * 1000 / 2001;
        assert_eq!(rate(bw, true), "48.4MiB/s");
        assert_eq!(rate(bw, false), "50.7MB/s");
        assert_eq!(bytes(io, true), "96.8MiB");
        assert_eq!(bytes(io, false), "102MB");
        // fio: BW=7781MiB/s (8159MB/s)(7968KiB/1msec)
        assert_eq!(rate(1992 * 4096 * 1000, true), "7781MiB/s");
        assert_eq!(rate(1992 * 4096 * 1000, false), "8159MB/s");
        assert_eq!(bytes(1992 * 4096, true), "7968KiB");
        assert_eq!(bytes(1992 * 4096, false), "8159kB");
        // fio: READ: bw=15.4GiB/s (16.5GB/s), io=15.8MiB (16.5MB) for 16160 KiB in 1 ms
        assert_eq!(rate(16_547_840_000, true), "15.4GiB/s");
        assert_eq!(rate(16_547_840_000, false), "16.5GB/s");
        assert_eq!(bytes(16_547_840, true), "15.8MiB");
        assert_eq!(bytes(16_547_840, false), "16.5MB");
        assert_eq!(bytes(4096, true), "4096B");
        assert_eq!(bytes(65_536, true), "64.0KiB");
        assert_eq!(bytes(1 << 20, true), "1024KiB");
        assert_eq!(bytes(0, true), "0B");
        assert_eq!(bytes(15 << 50, true), "15.0PiB");
    }

    #[test]
    fn latency_line_units_follow_fio() {
        // All three conditions (min, max, stddev) must hold to scale down.
        assert_eq!(lat_unit(18, 14_582, 165.5), LatUnit::Nsec);
        assert_eq!(lat_unit(41_000, 1_152_000, 20_960.0), LatUnit::Usec);
        assert_eq!(lat_unit(1314, 105_351, 2031.0), LatUnit::Nsec, "min ≤ 2 µs");
        assert_eq!(
            lat_unit(50_000, 99_999, 5000.0),
            LatUnit::Nsec,
            "max ≤ 99.999 µs"
        );
        assert_eq!(
            lat_unit(50_000, 149_000, 999.0),
            LatUnit::Nsec,
            "stddev ≤ 1 µs"
        );
        assert_eq!(lat_unit(2_000_001, 100_000_000, 1e6 + 1.0), LatUnit::Msec);
        assert_eq!(lat_unit(2_000_000, 100_000_000, 2e6), LatUnit::Usec);
    }

    #[test]
    fn percentile_units_and_rounding_follow_fio() {
        assert_eq!(percentile_unit(18, 14_528), LatUnit::Nsec);
        assert_eq!(percentile_unit(51_000, 570_000), LatUnit::Usec);
        assert_eq!(percentile_unit(2000, 570_000), LatUnit::Nsec);
        assert_eq!(percentile_unit(3_000_000, 150_000_000), LatUnit::Msec);
        assert_eq!(scale_up(50_001, LatUnit::Usec), 51);
        assert_eq!(scale_up(50_000, LatUnit::Usec), 50);
        assert_eq!(scale_up(3_000_001, LatUnit::Msec), 4);
        assert_eq!(percentile_precision(&[1.0, 5.0, 99.5, 99.95]), 2);
        assert_eq!(percentile_precision(&[50.0, 99.0]), 0);
        assert_eq!(percentile_precision(&[99.9]), 1);
    }

    #[test]
    fn ctime_has_fio_shape() {
        let s = ctime(1_700_000_000_000);
        assert_eq!(s.split_whitespace().count(), 5, "{s}");
    }
}
