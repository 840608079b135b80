//! Reading parameter files: lines into definitions.
//!
//! One definition per line, `kind=name,key=value,...`; a line that does not start with a
//! definition's kind continues the one before it (or, before any definition, adds general
//! parameters). `*`, `#` and `/` start comment lines. `$var` and `${var}` are replaced by
//! the values given on the command line (`var=value`), `include=FILE` reads another file
//! in place (relative to the file that names it). Values are a word or a parenthesised
//! list, `(4k,8k)`; ranges and suffixes are read where each keyword is interpreted.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The kinds of definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Host definition.
    Hd,
    /// Storage (raw) definition.
    Sd,
    /// Workload definition (raw).
    Wd,
    /// File-system storage definition.
    Fsd,
    /// File-system workload definition.
    Fwd,
    /// Run definition.
    Rd,
}

impl Kind {
    /// The keyword that starts this kind.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Hd => "hd",
            Kind::Sd => "sd",
            Kind::Wd => "wd",
            Kind::Fsd => "fsd",
            Kind::Fwd => "fwd",
            Kind::Rd => "rd",
        }
    }
    fn of(word: &str) -> Option<Kind> {
        Some(match word {
            "hd" | "host" => Kind::Hd,
            "sd" => Kind::Sd,
            "wd" => Kind::Wd,
            "fsd" => Kind::Fsd,
            "fwd" => Kind::Fwd,
            "rd" => Kind::Rd,
            _ => return None,
        })
    }
}

/// Where something was written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct At {
    /// The file.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// A parameter file error: where, which keyword, what, and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct VdbError {
    /// Where.
    pub at: At,
    /// The keyword concerned.
    pub key: Option<String>,
    /// What is wrong.
    pub msg: String,
    /// A suggestion.
    pub hint: Option<String>,
}

impl fmt::Display for VdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.line > 0 {
            write!(f, "{}: ", self.at)?;
        } else if !self.at.file.as_os_str().is_empty() {
            write!(f, "{}: ", self.at.file.display())?;
        }
        if let Some(k) = &self.key {
            write!(f, "'{k}': ")?;
        }
        write!(f, "{}", self.msg)?;
        if let Some(h) = &self.hint {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for VdbError {}

impl VdbError {
    /// An error at `at` about `key`.
    pub fn new(at: &At, key: Option<&str>, msg: impl Into<String>) -> VdbError {
        VdbError {
            at: at.clone(),
            key: key.map(str::to_string),
            msg: msg.into(),
            hint: None,
        }
    }
    /// With a suggestion.
    pub fn hint(mut self, h: impl Into<String>) -> VdbError {
        self.hint = Some(h.into());
        self
    }
}

/// One `key=value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The keyword, lower case.
    pub key: String,
    /// The value as written (after `$var` substitution).
    pub raw: String,
    /// The value's words: the list's members, or the one word.
    pub list: Vec<String>,
    /// Where.
    pub at: At,
}

impl Item {
    /// The single word of the value, or an error naming the keyword.
    pub fn one(&self) -> Result<&str, VdbError> {
        match self.list.as_slice() {
            [one] => Ok(one),
            _ => Err(
                VdbError::new(&self.at, Some(&self.key), "takes one value, not a list")
                    .hint(format!("write {}=VALUE", self.key)),
            ),
        }
    }
    /// An error about this item.
    pub fn err(&self, msg: impl Into<String>) -> VdbError {
        VdbError::new(&self.at, Some(&self.key), msg)
    }
}

/// A definition: `kind=name` and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Def {
    /// Its kind.
    pub kind: Kind,
    /// Its name (`default` sets defaults for those after it).
    pub name: String,
    /// Its parameters after the name, in order.
    pub items: Vec<Item>,
    /// Where it starts.
    pub at: At,
}

/// A parameter file (and what it includes), as read.
#[derive(Debug, Clone, Default)]
pub struct ParmFile {
    /// General parameters (before the first definition).
    pub general: Vec<Item>,
    /// Definitions in order.
    pub defs: Vec<Def>,
    /// The text as read, `$var`s replaced, includes inlined (for parmfile.html).
    pub text: String,
}

/// Read parameter files in order (several `-f` make one file), replacing `$var` with
/// `vars`.
pub fn read_files(paths: &[PathBuf], vars: &HashMap<String, String>) -> Result<ParmFile, VdbError> {
    let mut pf = ParmFile::default();
    let mut used = std::collections::HashSet::new();
    for p in paths {
        let text = std::fs::read_to_string(p).map_err(|e| {
            VdbError::new(
                &At {
                    file: p.clone(),
                    line: 0,
                },
                None,
                format!("cannot read: {e}"),
            )
        })?;
        read_text(&mut pf, p, &text, vars, &mut used, 0)?;
    }
    let mut unused: Vec<&String> = vars.keys().filter(|k| !used.contains(*k)).collect();
    unused.sort();
    for v in unused {
        eprintln!("fathom vdbench: warning: '{v}=' was given on the command line, but the parameter file has no ${v}");
    }
    Ok(pf)
}

/// Items with vdbench's abbreviated keywords written whole ([`crate::abbrev`]).
fn expand_keys(kind: Option<Kind>, items: &[Item]) -> Vec<Item> {
    items
        .iter()
        .map(|it| Item {
            key: crate::abbrev::expand(kind, &it.key),
            ..it.clone()
        })
        .collect()
}

/// vdbench's `+ key=value,...` on the command line: added to every RD after its own
/// parameters (so they win).
pub fn add_to_rds(pf: &mut ParmFile, extras: &str) -> Result<(), VdbError> {
    let at = At {
        file: PathBuf::from("command line '+'"),
        line: 0,
    };
    let mut items = Vec::new();
    for part in split_top(extras) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some((k, v)) = part
            .split_once('=')
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        else {
            return Err(
                VdbError::new(&at, None, format!("'{part}' is not keyword=value"))
                    .hint("after '+' give RD parameters: + iorate=max,elapsed=60"),
            );
        };
        items.push(Item {
            key: k.trim().to_ascii_lowercase(),
            list: words(v),
            raw: v.trim().to_string(),
            at: at.clone(),
        });
    }
    let mut any = false;
    for d in pf
        .defs
        .iter_mut()
        .filter(|d| d.kind == Kind::Rd && d.name != "default")
    {
        d.items.extend(expand_keys(Some(Kind::Rd), &items));
        any = true;
    }
    if !any {
        return Err(VdbError::new(
            &at,
            None,
            "the parameter file has no RD to add them to",
        ));
    }
    pf.text.push_str(&format!(
        "* added to every RD from the command line: {extras}\n"
    ));
    Ok(())
}

/// Read a parameter file's text (`name` for messages).
pub fn read_str(
    name: &Path,
    text: &str,
    vars: &HashMap<String, String>,
) -> Result<ParmFile, VdbError> {
    let mut pf = ParmFile::default();
    let mut used = std::collections::HashSet::new();
    read_text(&mut pf, name, text, vars, &mut used, 0)?;
    Ok(pf)
}

fn substitute(
    line: &str,
    at: &At,
    vars: &HashMap<String, String>,
    used: &mut std::collections::HashSet<String>,
) -> Result<String, VdbError> {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, len) = if let Some(b) = after.strip_prefix('{') {
            let end = b
                .find('}')
                .ok_or_else(|| VdbError::new(at, None, "'${' without its closing '}'"))?;
            (&b[..end], end + 2)
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        match vars.get(name) {
            Some(v) => {
                used.insert(name.to_string());
                out.push_str(v);
            }
            None => {
                return Err(
                    VdbError::new(at, None, format!("${name} has no value")).hint(format!(
                        "give it on the command line: fathom vdbench -f FILE {name}=VALUE"
                    )),
                )
            }
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Split at commas outside parentheses and quotes.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, false, 0);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quote = !quote,
            '(' if !quote => depth += 1,
            ')' if !quote => depth -= 1,
            ',' if !quote && depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn words(raw: &str) -> Vec<String> {
    let t = raw.trim();
    if let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        split_top(inner)
            .into_iter()
            .map(|w| w.trim().trim_matches('"').to_string())
            .filter(|w| !w.is_empty())
            .collect()
    } else {
        vec![t.trim_matches('"').to_string()]
    }
}

fn read_text(
    pf: &mut ParmFile,
    file: &Path,
    text: &str,
    vars: &HashMap<String, String>,
    used: &mut std::collections::HashSet<String>,
    depth: u32,
) -> Result<(), VdbError> {
    if depth > 16 {
        return Err(VdbError::new(
            &At {
                file: file.to_path_buf(),
                line: 0,
            },
            Some("include"),
            "includes nested more than 16 deep (does a file include itself?)",
        ));
    }
    for (n, line0) in text.lines().enumerate() {
        let at = At {
            file: file.to_path_buf(),
            line: n + 1,
        };
        let t = line0.trim();
        if t.is_empty() || t.starts_with('*') || t.starts_with('#') || t.starts_with('/') {
            pf.text.push_str(line0);
            pf.text.push('\n');
            continue;
        }
        let line = substitute(t, &at, vars, used)?;
        pf.text.push_str(&line);
        pf.text.push('\n');
        let mut items = Vec::new();
        for part in split_top(&line) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let Some((k, v)) = part.split_once('=') else {
                return Err(
                    VdbError::new(&at, None, format!("'{part}' is not keyword=value"))
                        .hint("parameters look like sd=sd1,lun=/dev/sdb,threads=8"),
                );
            };
            let key = k.trim().to_ascii_lowercase();
            if v.trim().is_empty() {
                return Err(VdbError::new(&at, Some(&key), "has no value"));
            }
            items.push(Item {
                list: words(v),
                raw: v.trim().to_string(),
                key,
                at: at.clone(),
            });
        }
        let Some(first) = items.first() else { continue };
        if first.key == "include" {
            let inc = PathBuf::from(first.one()?);
            let inc = if inc.is_absolute() || inc.exists() {
                inc
            } else {
                file.parent().unwrap_or(Path::new(".")).join(inc)
            };
            let body = std::fs::read_to_string(&inc)
                .map_err(|e| first.err(format!("cannot read {}: {e}", inc.display())))?;
            read_text(pf, &inc, &body, vars, used, depth + 1)?;
            continue;
        }
        match Kind::of(&first.key) {
            Some(kind) => {
                let name = first.one()?.to_string();
                pf.defs.push(Def {
                    kind,
                    name,
                    items: expand_keys(Some(kind), &items[1..]),
                    at,
                });
            }
            None => match pf.defs.last_mut() {
                Some(d) => d.items.extend(expand_keys(Some(d.kind), &items)),
                None => pf.general.extend(expand_keys(None, &items)),
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> ParmFile {
        read_str(Path::new("t.vdb"), s, &HashMap::new()).unwrap()
    }

    #[test]
    fn lines_comments_continuations_and_lists() {
        let pf = read(
            "* comment\nmessagescan=no\n# another\nsd=sd1,lun=/tmp/x,size=1m\n\
             wd=wd1,sd=sd*,xfersize=(4k,30,64k,70),\n  rdpct=70\nrd=rd1,wd=wd1,iorate=max\n",
        );
        assert_eq!(pf.general.len(), 1);
        assert_eq!(pf.general[0].key, "messagescan");
        assert_eq!(pf.defs.len(), 3);
        assert_eq!(pf.defs[1].kind, Kind::Wd);
        assert_eq!(pf.defs[1].items.len(), 3, "the continuation joins wd1");
        assert_eq!(pf.defs[1].items[1].list, vec!["4k", "30", "64k", "70"]);
        assert_eq!(pf.defs[1].items[2].at.line, 6);
    }

    #[test]
    fn variables_are_replaced_and_missing_ones_named() {
        let mut v = HashMap::new();
        v.insert("lun".to_string(), "/dev/sdb".to_string());
        let pf = read_str(Path::new("p"), "sd=sd1,lun=$lun\nsd=sd2,lun=${lun}2\n", &v).unwrap();
        assert_eq!(pf.defs[0].items[0].raw, "/dev/sdb");
        assert_eq!(pf.defs[1].items[0].raw, "/dev/sdb2");
        let e = read_str(Path::new("p"), "rd=rd1,threads=$threads\n", &v).unwrap_err();
        assert_eq!(e.at.line, 1);
        assert!(e.to_string().contains("$threads has no value"), "{e}");
        assert!(e.to_string().contains("threads=VALUE"), "{e}");
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let e = read_str(Path::new("p.vdb"), "sd=sd1\nwd=wd1,sd\n", &HashMap::new()).unwrap_err();
        assert!(e.to_string().starts_with("p.vdb:2: "), "{e}");
    }
}
