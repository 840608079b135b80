//! `parseflat`: columns out of a flat file into CSV, as vdbench's
//! `parseflat -i flatfile.html -o out.csv [-c COL ...] [-a] [-f COL VALUE ...]`.

use anyhow::{anyhow, bail, Result};

/// What to pull out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlatOpts {
    /// The flat file.
    pub input: String,
    /// The CSV written (`-` or none: stdout).
    pub output: Option<String>,
    /// Columns (none: all).
    pub columns: Vec<String>,
    /// Only the run averages.
    pub averages: bool,
    /// Keep rows whose column equals the value.
    pub filters: Vec<(String, String)>,
}

/// Read `parseflat` arguments.
pub fn parse_args(args: &[String]) -> Result<FlatOpts> {
    let mut o = FlatOpts::default();
    let mut i = 0;
    let mut mode = ' ';
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-i" => {
                o.input = args
                    .get(i + 1)
                    .cloned()
                    .ok_or_else(|| anyhow!("-i needs the flat file"))?;
                i += 2;
                mode = ' ';
                continue;
            }
            "-o" => {
                o.output = Some(
                    args.get(i + 1)
                        .cloned()
                        .ok_or_else(|| anyhow!("-o needs the CSV file"))?,
                );
                i += 2;
                mode = ' ';
                continue;
            }
            "-a" => {
                o.averages = true;
                mode = ' ';
            }
            "-c" => mode = 'c',
            "-f" => mode = 'f',
            _ if a.starts_with('-') && a.len() > 1 => {
                bail!("parseflat: unknown flag {a}; use -i -o -c -a -f")
            }
            _ => match mode {
                'c' => o.columns.push(a.to_string()),
                'f' => {
                    let v = args
                        .get(i + 1)
                        .ok_or_else(|| anyhow!("-f {a}: give the column and the value"))?;
                    o.filters.push((a.to_string(), v.clone()));
                    i += 1;
                }
                _ => bail!("parseflat: '{a}' follows no flag"),
            },
        }
        i += 1;
    }
    if o.input.is_empty() {
        bail!("parseflat -i flatfile.html [-o out.csv] [-c COL ...] [-a] [-f COL VALUE ...]");
    }
    Ok(o)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Turn a flat file's text into CSV.
pub fn to_csv(text: &str, o: &FlatOpts) -> Result<String> {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('*'));
    let head: Vec<&str> = lines
        .next()
        .ok_or_else(|| anyhow!("{}: no header line", o.input))?
        .split_whitespace()
        .collect();
    let find = |c: &str| -> Result<usize> {
        head.iter()
            .position(|h| h.eq_ignore_ascii_case(c))
            .ok_or_else(|| {
                anyhow!(
                    "no column '{c}' in {}; columns: {}",
                    o.input,
                    head.join(" ")
                )
            })
    };
    let cols: Vec<usize> = if o.columns.is_empty() {
        (0..head.len()).collect()
    } else {
        o.columns.iter().map(|c| find(c)).collect::<Result<_>>()?
    };
    let filters: Vec<(usize, &str)> = o
        .filters
        .iter()
        .map(|(c, v)| Ok((find(c)?, v.as_str())))
        .collect::<Result<_>>()?;
    let interval = find("Interval").ok();
    let mut out = cols
        .iter()
        .map(|&i| csv_field(head[i]))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for l in lines {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != head.len() {
            continue;
        }
        if o.averages && !interval.is_some_and(|i| f[i].starts_with("avg")) {
            continue;
        }
        if !filters.iter().all(|(i, v)| f[*i] == *v) {
            continue;
        }
        out.push_str(
            &cols
                .iter()
                .map(|&i| csv_field(f[i]))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_averages_and_filters() {
        let text = "* comment\nRun Interval rate resp\nrd1 1 100.0 0.5\nrd1 avg_2-2 90.0 0.4\nrd2 1 50.0 1.0\nrd2 avg_2-2 55.0 1.1\n";
        let o = parse_args(&[
            "-i".into(),
            "f".into(),
            "-c".into(),
            "run".into(),
            "rate".into(),
            "-a".into(),
        ])
        .unwrap();
        assert_eq!(to_csv(text, &o).unwrap(), "Run,rate\nrd1,90.0\nrd2,55.0\n");
        let o = parse_args(&[
            "-i".into(),
            "f".into(),
            "-f".into(),
            "Run".into(),
            "rd2".into(),
            "-c".into(),
            "resp".into(),
        ])
        .unwrap();
        assert_eq!(to_csv(text, &o).unwrap(), "resp\n1.0\n1.1\n");
        let o = parse_args(&["-i".into(), "f".into(), "-c".into(), "nope".into()]).unwrap();
        assert!(to_csv(text, &o)
            .unwrap_err()
            .to_string()
            .contains("no column 'nope'"));
    }
}
