//! fathom's native result format: the whole [`RunResult`] as JSON, losslessly (every
//! latency histogram in HdrHistogram's V2 encoding, interval samples, job options, host
//! and target facts, fathom's version), in a versioned envelope. `fathom merge` reads
//! these and adds runs exactly; later analysis (percentiles, plots, comparisons) needs
//! nothing else.

use fathom_stats::RunResult;
use std::io::{self, Write};

/// The envelope's `format` value.
pub const FORMAT: &str = "fathom-native";
/// The envelope's version; readers refuse a newer one.
pub const FORMAT_VERSION: u32 = 1;

#[derive(serde::Serialize)]
struct EnvelopeOut<'a> {
    format: &'static str,
    format_version: u32,
    result: &'a RunResult,
    #[serde(skip_serializing_if = "<[RunResult]>::is_empty")]
    repetitions: &'a [RunResult],
}

/// What a reader needs of the envelope (format and version are checked before).
#[derive(serde::Deserialize)]
struct EnvelopeIn {
    result: RunResult,
    #[serde(default)]
    repetitions: Vec<RunResult>,
}

/// Write a result with its repetitions (`--repeat=N`): `result` holds all repetitions
/// added one after another ([`RunResult::merge_sequential`]), `repetitions` each one.
pub fn write_with_repetitions(
    result: &RunResult,
    repetitions: &[RunResult],
    out: &mut dyn Write,
) -> io::Result<()> {
    let env = EnvelopeOut {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        result,
        repetitions,
    };
    let mut text = serde_json::to_vec(&env).map_err(io::Error::other)?;
    text.push(b'\n');
    out.write_all(&text)
}

/// Writes the native format.
pub struct Native;

impl crate::Reporter for Native {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        // Serialized first, then written: an I/O error (a closed pipe) stays an I/O error.
        write_with_repetitions(run, &[], out)
    }
}

/// Read a native result (as written by `--output-format=native`).
pub fn read(text: &str) -> Result<RunResult, String> {
    read_full(text).map(|(r, _)| r)
}

/// Read a native result and its repetitions (empty for a single run).
pub fn read_full(text: &str) -> Result<(RunResult, Vec<RunResult>), String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        let hint = if v.get("fio version").is_some() {
            " (this is fio-style JSON; write results with --output-format=native to merge them)"
        } else {
            ""
        };
        return Err(format!("not a fathom native result{hint}"));
    }
    let version = v
        .get("format_version")
        .and_then(|x| x.as_u64())
        .unwrap_or(0);
    if version > FORMAT_VERSION as u64 {
        return Err(format!(
            "native format version {version} is newer than this fathom reads \
             ({FORMAT_VERSION}); upgrade fathom"
        ));
    }
    let env: EnvelopeIn = serde_json::from_value(v).map_err(|e| format!("malformed: {e}"))?;
    Ok((env.result, env.repetitions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reporter;
    use fathom_stats::{JobResult, ThreadStats};

    #[test]
    fn native_round_trips_every_number() {
        let mut stats = ThreadStats::new();
        for i in 1..=5000u64 {
            stats.record_io(i as usize % 2, 4096, Some(i * 3), i * 1117 % 900_000 + 10);
        }
        stats.runtime = std::time::Duration::from_millis(1234);
        stats.finish();
        let run = RunResult {
            jobs: vec![JobResult {
                name: "x".into(),
                stats,
                ..Default::default()
            }],
            version: "0.1.0".into(),
            ..Default::default()
        };
        let mut out = Vec::new();
        Native.write_report(&run, &mut out).unwrap();
        let back = read(std::str::from_utf8(&out).unwrap()).unwrap();
        for d in 0..2 {
            let (a, b) = (&run.jobs[0].stats.dirs[d], &back.jobs[0].stats.dirs[d]);
            assert_eq!((a.ios, a.bytes), (b.ios, b.bytes));
            for (x, y) in [(&a.clat, &b.clat), (&a.slat, &b.slat), (&a.lat, &b.lat)] {
                assert_eq!(x.histogram(), y.histogram());
                assert_eq!((x.min(), x.max(), x.sum()), (y.min(), y.max(), y.sum()));
            }
        }
        assert_eq!(back.jobs[0].stats.runtime, run.jobs[0].stats.runtime);
        // Writing what was read gives the same bytes.
        let mut again = Vec::new();
        Native.write_report(&back, &mut again).unwrap();
        assert_eq!(out, again);
    }

    #[test]
    fn other_json_is_refused_with_a_reason() {
        let e = read(r#"{"fio version":"fio-3.33","jobs":[]}"#).unwrap_err();
        assert!(e.contains("--output-format=native"), "{e}");
        let e = read(r#"{"format":"fathom-native","format_version":99,"result":{}}"#).unwrap_err();
        assert!(e.contains("newer"), "{e}");
        assert!(read("nope").is_err());
    }
}
