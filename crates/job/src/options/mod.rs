//! The option table: one definition per option (name, aliases, category, type, default,
//! doc, and how it applies to a [`JobSpec`]). Help text and the parsers come from here.

mod engine;
mod files;
mod io;
mod output;
mod pattern;
mod time;
mod unsupported;

use crate::spec::{Dialect, JobSpec};
use crate::units;

/// What an option's value is applied with.
pub(crate) struct Ctx {
    /// Unit rules.
    pub dialect: Dialect,
    /// 1024 or 1000.
    pub kb_base: u32,
}

/// How an option changes a job.
pub(crate) type Apply = fn(&mut JobSpec, &str, &Ctx) -> Result<(), String>;

/// One job option.
pub struct OptDef {
    /// Canonical name.
    pub name: &'static str,
    /// Other names fio accepts.
    pub aliases: &'static [&'static str],
    /// Help category.
    pub category: &'static str,
    /// Value type, for help.
    pub ty: &'static str,
    /// Default, for help.
    pub default: &'static str,
    /// One-line description.
    pub doc: &'static str,
    /// May be given without a value (meaning 1), as fio's set-type options.
    pub flag: bool,
    pub(crate) apply: Apply,
}

/// Every implemented option.
pub fn table() -> impl Iterator<Item = &'static OptDef> {
    files::OPTS
        .iter()
        .chain(io::OPTS)
        .chain(time::OPTS)
        .chain(output::OPTS)
        .chain(engine::OPTS)
        .chain(pattern::OPTS)
}

/// The implemented option called `name` (or one of its aliases).
pub fn find(name: &str) -> Option<&'static OptDef> {
    table().find(|o| o.name == name || o.aliases.contains(&name))
}

/// True if fio has an option of this name that fathom does not implement yet.
pub fn is_unsupported(name: &str) -> bool {
    unsupported::NAMES.contains(&name)
}

/// The closest known option name, for "did you mean".
pub fn suggest(name: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    let candidates = table()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .chain(unsupported::NAMES.iter().copied());
    for c in candidates {
        let d = strsim::levenshtein(name, c);
        if d <= (name.len() / 3).max(2) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|b| b.1)
}

// ---- helpers shared by the category files ----

/// A size, or an arithmetic expression in `( )`.
pub(crate) fn size(v: &str, c: &Ctx) -> Result<u64, String> {
    if v.trim_start().starts_with('(') && c.dialect == Dialect::Fio {
        let x = units::eval_expr(v, false)?;
        if x < 0.0 {
            return Err("negative size".into());
        }
        return Ok(x as u64);
    }
    units::parse_size(v, c.kb_base, c.dialect)
}

/// A time with the option's default unit, or an expression (µs inside `( )`).
pub(crate) fn time(v: &str, unit: units::TimeUnit) -> Result<std::time::Duration, String> {
    if v.trim_start().starts_with('(') {
        let us = units::eval_expr(v, true)?;
        if us < 0.0 {
            return Err("negative time".into());
        }
        return Ok(std::time::Duration::from_nanos((us * 1000.0) as u64));
    }
    units::parse_time(v, unit)
}

/// An integer, or an expression.
pub(crate) fn int(v: &str) -> Result<u64, String> {
    if v.trim_start().starts_with('(') {
        let x = units::eval_expr(v, false)?;
        if x < 0.0 {
            return Err("negative value".into());
        }
        return Ok(x as u64);
    }
    units::parse_int(v)
}

/// A u32 in `lo..=hi`.
pub(crate) fn int_in(v: &str, lo: u64, hi: u64) -> Result<u32, String> {
    let n = int(v)?;
    if n < lo || n > hi {
        return Err(format!("must be between {lo} and {hi}"));
    }
    Ok(n as u32)
}

/// A size or a percentage (`50%`).
pub(crate) fn size_or_percent(v: &str, c: &Ctx) -> Result<crate::spec::SizeSpec, String> {
    if let Some(p) = v.trim().strip_suffix('%') {
        let p: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("'{p}' is not a percentage"))?;
        if !(p > 0.0 && p <= 100.0) {
            return Err("a percentage must be in (0, 100]".into());
        }
        return Ok(crate::spec::SizeSpec::Percent(p));
    }
    size(v, c).map(crate::spec::SizeSpec::Bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_alias_is_unique_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for o in table() {
            assert!(!o.doc.is_empty() && !o.category.is_empty(), "{}", o.name);
            for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                assert!(seen.insert(n), "duplicate option name {n}");
                assert!(
                    !is_unsupported(n),
                    "{n} is both implemented and unsupported"
                );
            }
        }
    }

    #[test]
    fn suggestions_find_close_names() {
        assert_eq!(suggest("rwmixred"), Some("rwmixread"));
        assert_eq!(suggest("blocksiz"), Some("blocksize"));
        assert_eq!(suggest("completely_different"), None);
    }
}
