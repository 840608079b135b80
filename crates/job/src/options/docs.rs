//! The option reference (`docs/options.md`), generated from the option table so it can
//! never drift from what the parser accepts (a test compares the file with this output).

use super::{table, OptDef};

/// Options fathom has that fio does not (marked "fathom extension" in the reference).
pub const EXTENSIONS: &[&str] = &[
    "assert",
    "tree_depth",
    "tree_width",
    "tree_distribution",
    "unique_dir",
    "tree_format",
    "tree_names",
    "tree_shared",
    "meta_mix",
    "fileselect",
    "verify_journal",
    "segments",
    "stonewall_time",
];

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn row(o: &OptDef) -> String {
    let mut name = format!("`{}`", o.name);
    if EXTENSIONS.contains(&o.name) {
        name.push_str(" *(fathom extension)*");
    }
    let aliases = o
        .aliases
        .iter()
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let default = if o.default.is_empty() {
        String::new()
    } else {
        format!("`{}`", o.default)
    };
    let example = super::example(o)
        .map(|e| format!("`{}={}`", o.name, e))
        .unwrap_or_default();
    format!(
        "| {name} | {} | {} | {default} | {} | {example} |\n",
        cell(&aliases),
        cell(o.ty),
        cell(o.doc)
    )
}

/// The whole reference in Markdown.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Job options\n\n\
         <!-- Generated from the option table (crates/job/src/options); do not edit.\n     \
         Regenerate with: FATHOM_BLESS=1 cargo test -p fathom-job options_reference -->\n\n\
         Every option below is accepted in fio INI job files (`name=value`), in TOML job\n\
         files (`name = value`, strict units) and on the command line (`--name=value`).\n\
         Names and meanings are fio's unless marked *fathom extension*. `fathom\n\
         --cmdhelp=NAME` prints the same text for one option.\n\n\
         Value types: *size* takes fio's suffixes (`4k`, `1m`, `2g`; `kb_base` rules in .fio\n\
         files, strict `KiB`/`kB` in TOML), *time* takes `us`, `ms`, `s`, `m`, `h`, `d` (the\n\
         unit in parentheses is the default for a bare number), *R,W,T* lists give read,\n\
         write and trim values apart, *int* takes a size suffix as fio's integers do\n\
         (`iodepth=1k` is 1024), and *bool* is `0` or `1` (a bare flag means `1`).\n\n\
         In .fio files and fio-style command lines, a number, size, time or bool option given\n\
         several values (`iodepth=4,8`, `loops=2:3`) is taken as fio takes it: each value is\n\
         checked, the first is kept (the last for `size`, `io_size`, `offset`,\n\
         `offset_increment`, `zoneskip`, `rwmixread`, `rwmixwrite`,\n\
         `buffer_compress_percentage`, `dedupe_percentage`, `gtod_reduce`), and a note says so.\n",
    );
    let mut cats: Vec<&str> = Vec::new();
    for o in table() {
        if !cats.contains(&o.category) {
            cats.push(o.category);
        }
    }
    for c in cats {
        s.push_str(&format!("\n## {c}\n\n"));
        s.push_str("| option | aliases | type | default | description | example |\n");
        s.push_str("|---|---|---|---|---|---|\n");
        let mut opts: Vec<&OptDef> = table().filter(|o| o.category == c).collect();
        opts.sort_by_key(|o| o.name);
        for o in opts {
            s.push_str(&row(o));
        }
    }
    s.push_str(&format!(
        "\n## fio options refused on purpose\n\n\
         A job that uses one of these fails with the reason and what to use instead. \
         Set off (`0`, as fio's default), {} ask for nothing and are taken, here and in the \
         list of options not supported yet.\n\n\
         | option | why, and what to use |\n|---|---|\n",
        crate::resolve::OFF_IS_NOTHING
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for (n, why) in super::REFUSED {
        s.push_str(&format!("| `{n}` | {} |\n", cell(why)));
    }
    s.push_str(
        "\n## Options of fio engines fathom does not have\n\n\
         A job that sets one is refused with the engine named: what it needs is the engine.\n\n\
         | fio engines | options |\n|---|---|\n",
    );
    for (names, engines) in super::unsupported::ENGINE_ONLY {
        let opts: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        s.push_str(&format!(
            "| {} | {} |\n",
            engines.join(", "),
            opts.join(", ")
        ));
    }
    let mut not_yet: Vec<(&str, &str)> = super::unsupported::NAMES.to_vec();
    not_yet.sort_unstable();
    s.push_str(
        "\n## fio options not supported yet\n\n\
         fathom knows these fio options and refuses a job that uses them with \
         `FILE:LINE: option 'NAME' is not supported yet: WHY`, rather than ignoring them:\n\n\
         | option | why, and what to use |\n|---|---|\n",
    );
    for (n, why) in not_yet {
        s.push_str(&format!("| `{n}` | {} |\n", cell(why)));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn options_reference_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/options.md");
        let want = super::markdown();
        if std::env::var_os("FATHOM_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/options.md is stale: regenerate it with \
             `FATHOM_BLESS=1 cargo test -p fathom-job options_reference`"
        );
    }

    #[test]
    fn every_option_has_a_row_and_a_description() {
        let md = super::markdown();
        for o in super::table() {
            assert!(!o.doc.is_empty(), "{} has no doc", o.name);
            assert!(md.contains(&format!("| `{}`", o.name)), "{}", o.name);
        }
    }
}
