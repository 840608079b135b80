//! The fio INI reader: sections, `key=value` lines, comments, `include`, `${ENV}` and
//! reserved keywords, with every option's file and line kept.
//!
//! Deliberate difference from fio: spaces around `=` are ignored (fio keeps leading blanks
//! of the value, so `bs = 8k` would be 8 bytes there).

use crate::error::JobError;
use crate::units::substitute;
use crate::words::{Dialect, Location};
use std::path::{Path, PathBuf};

/// One `key[=value]` as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawOpt {
    pub name: String,
    pub value: Option<String>,
    pub loc: Location,
    /// A reserved keyword ($ncpus, ...) was substituted in this line.
    pub keyword: bool,
    /// The unit rules of the value: a command-line default applied to a TOML job keeps
    /// fio's rules.
    pub dialect: Dialect,
}

impl RawOpt {
    /// The option as fio's `"job options"` print it: fio's name for it, the value as
    /// typed.
    pub fn shown(&self) -> (String, String) {
        (
            crate::options::fio_name(&self.name).to_string(),
            self.value.clone().unwrap_or_default(),
        )
    }
}

/// A `[section]` with its options.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawSection {
    pub name: String,
    pub loc: Location,
    pub opts: Vec<RawOpt>,
}

impl RawSection {
    /// fio treats any section whose name starts with "global" as global.
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

const MAX_INCLUDE_DEPTH: usize = 16;

/// Parse the text of a fio job file.
pub(crate) fn read_ini(text: &str, path: &str) -> Result<Vec<RawSection>, JobError> {
    let mut sections = Vec::new();
    read_lines(text, path, &mut sections, false, 0)?;
    Ok(sections)
}

fn read_lines(
    text: &str,
    path: &str,
    sections: &mut Vec<RawSection>,
    included: bool,
    depth: usize,
) -> Result<(), JobError> {
    for (i, raw) in text.split('\n').enumerate() {
        let loc = Location {
            file: path.to_string(),
            line: i as u32 + 1,
        };
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // Comments: whole lines and the rest of a line after ';' or '#', as fio.
        let line = match line.find([';', '#']) {
            Some(c) => &line[..c],
            None => line,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            if included {
                return Err(JobError::Syntax {
                    loc,
                    msg: "an included file may not contain [sections]".into(),
                });
            }
            let Some(name) = rest.strip_suffix(']') else {
                return Err(JobError::Syntax {
                    loc,
                    msg: format!("'{line}' has no closing ']'"),
                });
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(JobError::Syntax {
                    loc,
                    msg: "empty section name '[]'".into(),
                });
            }
            sections.push(RawSection {
                name: name.to_string(),
                loc,
                opts: Vec::new(),
            });
            continue;
        }
        if let Some(file) = line
            .strip_prefix("include ")
            .or_else(|| line.strip_prefix("include\t"))
        {
            if sections.is_empty() {
                return Err(JobError::Syntax {
                    loc,
                    msg: "include outside of any [section]".into(),
                });
            }
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(JobError::Syntax {
                    loc,
                    msg: format!("includes nested deeper than {MAX_INCLUDE_DEPTH}"),
                });
            }
            let target = resolve_include(file.trim(), path);
            let text = crate::read_text_bounded(&target, crate::MAX_JOB_FILE).map_err(|e| {
                JobError::Syntax {
                    loc: loc.clone(),
                    msg: format!("include {}: {e}", target.display()),
                }
            })?;
            let tpath = target.to_string_lossy().into_owned();
            read_lines(&text, &tpath, sections, true, depth + 1)?;
            continue;
        }
        let (line, keyword) = substitute(line);
        let (name, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (line.trim().to_string(), None),
        };
        let Some(section) = sections.last_mut() else {
            return Err(JobError::Syntax {
                loc,
                msg: format!(
                    "option '{name}' is outside of any [section]; put it under [global] or a job"
                ),
            });
        };
        section.opts.push(RawOpt {
            name,
            value,
            loc,
            keyword,
            dialect: Dialect::Fio,
        });
    }
    Ok(())
}

/// An include names a file as given, or relative to the including file's directory.
fn resolve_include(name: &str, including: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() || p.exists() {
        return p.to_path_buf();
    }
    match Path::new(including).parent() {
        Some(dir) => dir.join(p),
        None => p.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_options_and_comments() {
        let s = read_ini(
            "; leading comment\n[global]\nbs=4k # inline\n  rw = randread ;x\n\n[job1]\ntime_based\r\n# c\n[job1]\nsize=1m",
            "f.fio",
        )
        .unwrap();
        assert_eq!(s.len(), 3, "duplicate section names are separate jobs");
        assert!(s[0].is_global());
        assert_eq!(s[0].opts[0].value.as_deref(), Some("4k"));
        assert_eq!(s[0].opts[1].name, "rw");
        assert_eq!(s[0].opts[1].value.as_deref(), Some("randread"));
        assert_eq!(s[1].opts[0].value, None);
        assert_eq!(s[1].opts[0].loc.line, 7);
        assert_eq!(
            s[2].opts[0].value.as_deref(),
            Some("1m"),
            "no final newline"
        );
    }

    #[test]
    fn option_outside_a_section_is_an_error() {
        let e = read_ini("bs=4k\n[a]\n", "x.fio").unwrap_err().to_string();
        assert!(e.starts_with("x.fio:1:") && e.contains("outside"), "{e}");
    }

    #[test]
    fn includes_are_relative_and_report_their_own_lines() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("inc.fio"), "bs=8k\ninclude inner.fio\n").unwrap();
        std::fs::write(d.path().join("inner.fio"), "\nsize=2m\n").unwrap();
        let main = d.path().join("main.fio");
        std::fs::write(&main, "[a]\ninclude inc.fio\nrw=read\n").unwrap();
        let p = main.to_string_lossy().into_owned();
        let s = read_ini(&std::fs::read_to_string(&main).unwrap(), &p).unwrap();
        let names: Vec<&str> = s[0].opts.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, vec!["bs", "size", "rw"]);
        assert!(s[0].opts[1].loc.file.ends_with("inner.fio"));
        assert_eq!(s[0].opts[1].loc.line, 2);
        std::fs::write(d.path().join("bad.fio"), "[x]\n").unwrap();
        std::fs::write(&main, "[a]\ninclude bad.fio\n").unwrap();
        let e = read_ini(&std::fs::read_to_string(&main).unwrap(), &p).unwrap_err();
        assert!(e.to_string().contains("may not contain"), "{e}");
    }

    #[test]
    fn utf8_comments_and_env() {
        std::env::set_var("FATHOM_INI_TEST_BS", "16k");
        let s = read_ini("[a] \n# größe ✓\nbs=${FATHOM_INI_TEST_BS}\n", "u.fio").unwrap();
        assert_eq!(s[0].opts[0].value.as_deref(), Some("16k"));
    }
}
