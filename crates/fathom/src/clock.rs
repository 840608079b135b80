//! The hot path's clock: `Instant`s read from the CPU's time-stamp counter when the
//! kernel itself keeps time with it, else from `Instant::now()`.
//!
//! `Instant::now()` costs a vDSO `clock_gettime` call (about 20 ns here), taken two or three
//! times per I/O; reading the TSC costs a third of that. fathom uses the TSC only when Linux
//! trusts it as its own clocksource (`tsc`, which the kernel selects only when the counter is
//! invariant and synchronised across CPUs), and calibrates it against the system clock once
//! per process. The `Instant`s it returns are on the system clock's time line (origin plus
//! the scaled count), so they mix freely with `Instant::now()` (deadlines, sleeps).
//! `FATHOM_CLOCK=system` forces the system clock.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

struct Tsc {
    origin: Instant,
    tsc0: u64,
    /// ns per tick in 32.32 fixed point.
    mult: u64,
}

static CLOCK: OnceLock<Option<Tsc>> = OnceLock::new();

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rdtsc() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86_64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<Tsc> {
    if std::env::var("FATHOM_CLOCK").is_ok_and(|v| v == "system") {
        return None;
    }
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .ok()?;
    if source.trim() != "tsc" {
        return None;
    }
    // Two (Instant, TSC) pairs 10 ms apart; each pair read back to back.
    let pair = || {
        let a = rdtsc();
        let i = Instant::now();
        let b = rdtsc();
        (i, a / 2 + b / 2 + (a & b & 1))
    };
    let (i0, t0) = pair();
    std::thread::sleep(Duration::from_millis(10));
    let (i1, t1) = pair();
    let ns = i1.duration_since(i0).as_nanos();
    let ticks = t1.checked_sub(t0)? as u128;
    if ticks == 0 || ns == 0 {
        return None;
    }
    let mult = ((ns << 32) / ticks) as u64;
    // A TSC between 100 MHz and 20 GHz, or something is off: use the system clock.
    let ghz = ticks as f64 / ns as f64;
    if !(0.1..=20.0).contains(&ghz) {
        return None;
    }
    Some(Tsc {
        origin: i0,
        tsc0: t0,
        mult,
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Option<Tsc> {
    None
}

/// Set the clock up (calibration takes about 10 ms; call it before timing starts).
pub fn init() {
    CLOCK.get_or_init(calibrate);
}

/// True when the TSC is in use.
pub fn uses_tsc() -> bool {
    CLOCK.get_or_init(calibrate).is_some()
}

/// The current time.
#[inline(always)]
pub fn now() -> Instant {
    #[cfg(target_arch = "x86_64")]
    if let Some(Some(c)) = CLOCK.get() {
        let ticks = rdtsc().wrapping_sub(c.tsc0);
        let ns = ((ticks as u128 * c.mult as u128) >> 32) as u64;
        return c.origin + Duration::from_nanos(ns);
    }
    Instant::now()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_fast_clock_keeps_to_the_system_clock() {
        super::init();
        let (a, s0) = (super::now(), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(50));
        let (b, s1) = (super::now(), std::time::Instant::now());
        let fast = b.duration_since(a).as_nanos() as f64;
        let sys = s1.duration_since(s0).as_nanos() as f64;
        assert!(
            (fast / sys - 1.0).abs() < 0.001,
            "fast {fast} ns, system {sys} ns"
        );
        // Same time line: a fast reading lies between two system readings.
        let x = std::time::Instant::now();
        let y = super::now();
        let z = std::time::Instant::now();
        let slack = std::time::Duration::from_micros(20);
        assert!(y + slack >= x && y <= z + slack, "{x:?} {y:?} {z:?}");
        for _ in 0..1000 {
            let p = super::now();
            let q = super::now();
            assert!(q >= p, "monotone");
        }
    }
}
