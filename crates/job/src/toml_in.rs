//! TOML job files: a `[global]` table and `[[job]]` tables (each with `name`), with the
//! same option names as fio job files. Values may be strings, integers, floats, booleans
//! or arrays (joined with ':'); sizes use strict units (KiB = 1024, kB = 1000).

use crate::error::JobError;
use crate::ini::{RawOpt, RawSection};
use crate::words::{Dialect, Location};
use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    #[serde(default)]
    global: Option<IndexMap<String, Spanned<toml::Value>>>,
    #[serde(default)]
    job: Vec<IndexMap<String, Spanned<toml::Value>>>,
}

fn line_of(text: &str, offset: usize) -> u32 {
    // Count newlines in bytes: a span may not fall on a char boundary.
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
        + 1
}

fn value_string(v: &toml::Value) -> Result<String, String> {
    Ok(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => (if *b { "1" } else { "0" }).to_string(),
        toml::Value::Array(a) => a
            .iter()
            .map(value_string)
            .collect::<Result<Vec<_>, _>>()?
            .join(":"),
        other => {
            return Err(format!(
                "a {} is not a valid option value",
                other.type_str()
            ))
        }
    })
}

/// Parse a TOML job file into raw sections (a "global" section first if present).
pub(crate) fn read_toml(text: &str, path: &str) -> Result<Vec<RawSection>, JobError> {
    let file: TomlFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
        JobError::Syntax {
            loc: Location {
                file: path.to_string(),
                line,
            },
            msg: format!(
                "{}; a TOML job file has a [global] table and [[job]] tables",
                e.message()
            ),
        }
    })?;
    let loc = |off: usize| Location {
        file: path.to_string(),
        line: line_of(text, off),
    };
    let convert = |map: &IndexMap<String, Spanned<toml::Value>>| -> Result<Vec<RawOpt>, JobError> {
        map.iter()
            .map(|(k, v)| {
                let value = value_string(v.get_ref()).map_err(|why| JobError::InvalidValue {
                    loc: loc(v.span().start),
                    name: k.clone(),
                    value: v.get_ref().to_string(),
                    why,
                })?;
                Ok(RawOpt {
                    name: k.clone(),
                    value: Some(value),
                    loc: loc(v.span().start),
                    keyword: false,
                    dialect: Dialect::Toml,
                })
            })
            .collect()
    };
    let mut out = Vec::new();
    if let Some(g) = &file.global {
        let first = g.values().next().map(|v| v.span().start).unwrap_or(0);
        out.push(RawSection {
            name: "global".into(),
            loc: loc(first),
            opts: convert(g)?,
        });
    }
    for job in &file.job {
        let first = job.values().next().map(|v| v.span().start).unwrap_or(0);
        let Some(name) = job.get("name") else {
            return Err(JobError::Syntax {
                loc: loc(first),
                msg: "a [[job]] table needs a name, e.g. name = \"randread\"".into(),
            });
        };
        let name = value_string(name.get_ref()).unwrap_or_default();
        out.push(RawSection {
            name,
            loc: loc(first),
            opts: convert(job)?,
        });
    }
    Ok(out)
}
