//! fio's JSON+ output: the JSON document plus, in every latency object with samples, a
//! `bins` map of fio's latency histogram (1856 buckets: values below 128 ns exact, then
//! groups of 64 buckets per power of two), keyed by each bucket's representative value in
//! ns, non-zero buckets only, so fio's `fio_jsonplus_clat2csv` reads it.
//!
//! fathom's HDR histograms (3 significant digits) are finer than fio's buckets and their
//! bucket edges fall on the same powers of two, so each HDR bucket lies inside exactly one
//! fio bucket: the bins are exact, not resampled.

use crate::Reporter;
use fathom_stats::{LatStat, RunResult};
use serde_json::{json, Map, Value};
use std::io::{self, Write};

pub use fathom_stats::fio_bins::{bucket_of, bucket_value, PLAT_NR};

/// The non-zero fio buckets of a population, keyed by bucket value.
pub fn bins(l: &LatStat) -> Map<String, Value> {
    let mut counts: std::collections::BTreeMap<u64, u64> = Default::default();
    for v in l.histogram().iter_recorded() {
        let lo = l.histogram().lowest_equivalent(v.value_iterated_to());
        *counts.entry(bucket_of(lo)).or_default() += v.count_at_value();
    }
    counts
        .into_iter()
        .map(|(idx, n)| (bucket_value(idx).to_string(), json!(n)))
        .collect()
}

/// The JSON+ format.
pub struct JsonPlus;

impl Reporter for JsonPlus {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        let mut doc = crate::json::document(run);
        if let Some(jobs) = doc.get_mut("jobs").and_then(|j| j.as_array_mut()) {
            for (jv, jr) in jobs.iter_mut().zip(&run.jobs) {
                for (i, d) in ["read", "write", "trim"].iter().enumerate() {
                    let ds = &jr.stats.dirs[i];
                    // As fio: bins for the latencies whose percentiles are reported.
                    let info = &jr.info;
                    for (key, l, shown) in [
                        ("slat_ns", &ds.slat, info.slat_percentiles),
                        ("clat_ns", &ds.clat, info.clat_percentiles),
                        ("lat_ns", &ds.lat, info.lat_percentiles),
                    ] {
                        if shown && l.count() > 0 {
                            jv[*d][key]["bins"] = Value::Object(bins(l));
                        }
                    }
                    // cmdprio: each priority's latencies carry their bins too.
                    let key = if info.lat_percentiles {
                        "lat_ns"
                    } else {
                        "clat_ns"
                    };
                    let shown = info.clat_percentiles || info.lat_percentiles;
                    if let Some(prios) = jv[*d].get_mut("prios").and_then(|p| p.as_array_mut()) {
                        let with = ds.prios.iter().filter(|p| p.lat.count() > 0);
                        for (pv, p) in prios.iter_mut().zip(with).filter(|_| shown) {
                            pv[key]["bins"] = Value::Object(bins(&p.lat));
                        }
                    }
                }
                // The syncs' latencies too, when their percentiles are shown.
                let info = &jr.info;
                let sync = &jr.stats.sync;
                if (info.clat_percentiles || info.lat_percentiles) && sync.count() > 0 {
                    jv["sync"]["lat_ns"]["bins"] = Value::Object(bins(sync));
                }
            }
        }
        let mut text = serde_json::to_vec_pretty(&doc).map_err(io::Error::other)?;
        text.push(b'\n');
        out.write_all(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_fio_s_layout() {
        // Exact below 128 ns.
        for v in [0, 1, 63, 64, 127] {
            assert_eq!(bucket_of(v), v);
            assert_eq!(bucket_value(v), v);
        }
        // 128..256 ns: 64 buckets of 2 ns, represented by their middle.
        assert_eq!(bucket_of(128), 128);
        assert_eq!(bucket_of(129), 128);
        assert_eq!(bucket_of(130), 129);
        assert_eq!(bucket_value(128), 129);
        // Every value lands in a bucket whose range holds it.
        for v in [1000u64, 4096, 123_456, 9_999_999, 1 << 33] {
            let idx = bucket_of(v);
            let mid = bucket_value(idx);
            let width = if idx < 128 {
                1
            } else {
                1u64 << ((idx >> 6) - 1)
            };
            assert!(
                v >= mid - width / 2 && v < mid + width / 2 + 1,
                "{v}: idx {idx} mid {mid}"
            );
        }
        assert_eq!(bucket_of(u64::MAX), PLAT_NR - 1);
    }

    #[test]
    fn bins_hold_every_sample() {
        let mut l = LatStat::new();
        for v in 0..50_000u64 {
            l.record(v * 37 % 2_000_003 + 1);
        }
        let b = bins(&l);
        let total: u64 = b.values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(total, 50_000);
        assert!(b.len() as u64 <= PLAT_NR);
    }
}
