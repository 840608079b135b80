//! fio's latency histogram layout (1856 buckets: values below 128 exact, then groups of
//! 64 buckets per power of two), used by json+ output and histogram logs.

/// Bits of a fio bucket group (64 buckets per group).
pub const PLAT_BITS: u32 = 6;
/// Buckets per group.
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Number of fio buckets (29 groups × 64).
pub const PLAT_NR: u64 = 29 * PLAT_VAL;

/// fio's bucket index of a value in ns.
pub fn bucket_of(ns: u64) -> u64 {
    let msb = if ns == 0 { 0 } else { 63 - ns.leading_zeros() };
    if msb <= PLAT_BITS {
        return ns;
    }
    let shift = msb - PLAT_BITS;
    let base = (shift as u64 + 1) << PLAT_BITS;
    let offset = (ns >> shift) & (PLAT_VAL - 1);
    (base + offset).min(PLAT_NR - 1)
}

/// The value fio reports for bucket `idx`: exact below 128, else the middle of the bucket.
pub fn bucket_value(idx: u64) -> u64 {
    if idx < PLAT_VAL << 1 {
        return idx;
    }
    let shift = (idx >> PLAT_BITS) - 1;
    let start = 1u64 << (shift + PLAT_BITS as u64);
    let k = idx % PLAT_VAL;
    start + ((k as f64 + 0.5) * (1u64 << shift) as f64) as u64
}
