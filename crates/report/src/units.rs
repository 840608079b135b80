//! Number formatting as fio prints it: significant figures with unit prefixes, IEC and SI
//! byte rates, and the latency unit choice.

/// fio's `num2str`: `v` with at most `sig` digits before the unit step. Scales by `base`
/// (1000 or 1024) until the integer part has at most `sig` digits, then shows as many
/// decimals as fit in `sig` digits. Units are "", k, M, G, T, P (with "i" for base 1024
/// when `iec` is set).
pub fn num2str(v: f64, sig: usize, base: u32, iec: bool) -> String {
    const PREFIX: [&str; 7] = ["", "K", "M", "G", "T", "P", "E"];
    let mut x = v.max(0.0);
    let mut i = 0;
    let limit = 10f64.powi(sig as i32);
    while x.round() >= limit && i < PREFIX.len() - 1 {
        x /= base as f64;
        i += 1;
    }
    let int_digits = if x < 1.0 {
        1
    } else {
        (x.log10().floor() as usize) + 1
    };
    let decimals = if i == 0 && x.fract() == 0.0 {
        0
    } else {
        sig.saturating_sub(int_digits + 1)
    };
    let mut s = format!("{x:.decimals$}");
    // Rounding may add a digit (9.995 → 10.00): drop a decimal to keep the width.
    if decimals > 0 && s.len() > sig + 1 {
        s = format!("{x:.prec$}", prec = decimals - 1);
    }
    let unit = match (i, iec) {
        (0, _) => String::new(),
        (1, false) => "k".to_string(),
        (_, false) => PREFIX[i].to_string(),
        (_, true) => format!("{}i", PREFIX[i]),
    };
    format!("{s}{unit}")
}

/// A byte count as fio prints it: IEC (`96.8MiB`) or SI (`102MB`).
pub fn bytes(v: f64, iec: bool) -> String {
    let s = num2str(v, 4, if iec { 1024 } else { 1000 }, iec);
    format!("{s}B")
}

/// A count (IOPS) with k/M prefixes: `12.4k`.
pub fn count(v: f64) -> String {
    num2str(v, 4, 1000, false)
}

/// Latency unit for a min/max/mean/stddev line: nsec, usec or msec, with the divisor.
/// fio scales down when all four values exceed 1000 of the smaller unit.
pub fn lat_unit(min: u64, max: u64, mean: f64, dev: f64) -> (&'static str, f64) {
    let all_over = |d: f64| {
        (min as f64) > 1000.0 * d
            && (max as f64) > 1000.0 * d
            && mean > 1000.0 * d
            && dev > 1000.0 * d
    };
    if all_over(1000.0) {
        ("msec", 1e6)
    } else if all_over(1.0) {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
}

/// Unit for a percentile block, from its smallest and largest value (ns), as fio.
pub fn percentile_unit(minv: u64, maxv: u64) -> (&'static str, u64) {
    if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 1_000_000)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

/// The C library's `ctime` text for a Unix time in ms (local time), without newline:
/// `Sun Nov 22 12:27:25 2026`.
pub fn ctime(ms: u64) -> String {
    let t = (ms / 1000) as libc::time_t;
    // SAFETY: localtime_r writes into the zeroed tm we own; strftime writes at most
    // buf.len() bytes and returns the length written.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        let mut buf = [0u8; 64];
        let n = libc::strftime(
            buf.as_mut_ptr().cast(),
            buf.len(),
            c"%a %b %e %H:%M:%S %Y".as_ptr(),
            &tm,
        );
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num2str_matches_fio_outputs() {
        assert_eq!(count(12_400.0), "12.4k");
        assert_eq!(count(2_040_000.0), "2040k");
        assert_eq!(count(20_700.0), "20.7k");
        assert_eq!(count(9999.0), "9999");
        assert_eq!(count(123.0), "123");
        assert_eq!(count(1.5), "1.50");
        assert_eq!(bytes(48.4 * 1048576.0, true), "48.4MiB");
        assert_eq!(bytes(50_700_000.0, false), "50.7MB");
        assert_eq!(bytes(2595.0 * 1048576.0, true), "2595MiB");
        assert_eq!(bytes(102_000_000.0, false), "102MB");
        assert_eq!(bytes(7969.0 * 1048576.0, true), "7969MiB");
        assert_eq!(bytes(4_152_360.0, true), "4055KiB");
        assert_eq!(bytes(3.96 * 1048576.0 * 1024.0, true), "4055MiB");
        assert_eq!(bytes(1.5 * 1073741824.0 * 1024.0, true), "1536GiB");
        assert_eq!(
            bytes(15.0 * 1073741824.0 * 1024.0 * 1024.0, true),
            "15.0PiB"
        );
        assert_eq!(bytes(4096.0, true), "4096B");
        assert_eq!(bytes(16384.0, true), "16.0KiB");
        assert_eq!(bytes(0.0, true), "0B");
    }

    #[test]
    fn latency_units_follow_fio() {
        assert_eq!(lat_unit(18, 14582, 22.8, 165.5).0, "nsec");
        assert_eq!(lat_unit(41_000, 1_152_000, 79_910.0, 20_960.0).0, "usec");
        assert_eq!(lat_unit(2_000_000, 9_000_000, 3e6, 1.5e6).0, "msec");
        assert_eq!(percentile_unit(18, 14_528).0, "nsec");
        assert_eq!(percentile_unit(51_000, 570_000).0, "usec");
        assert_eq!(percentile_unit(3_000_000, 150_000_000).0, "msec");
    }

    #[test]
    fn ctime_has_fio_shape() {
        let s = ctime(1_700_000_000_000);
        assert_eq!(s.split_whitespace().count(), 5, "{s}");
    }
}
