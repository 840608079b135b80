//! vdbench's abbreviated keywords: vdbench takes any leading part of most keywords
//! (`xf=4k` is `xfersize=4k`, `th=8` is `threads=8`, `e=60` in an RD is `elapsed=60`),
//! trying its keywords in a fixed order per definition and taking the first that the
//! word begins; a few must be written whole. These tables give each definition's
//! keywords in vdbench 5.04's order (read from its parameter scanner), `=` marking those
//! that must be whole; a word that is a keyword itself is never expanded.

use crate::parse::Kind;

/// General parameters (before the first definition).
const GENERAL: &[&str] = &[
    "=compression",
    "compratio",
    "compressionseed",
    "port",
    "pattern",
    "data_errors",
    "dataerrors",
    "swat",
    "validate",
    "=journal",
    "=startcmd",
    "=start_cmd",
    "=endcmd",
    "=end_cmd",
    "=heartbeat_error",
    "=debug",
    "unix2windows",
    "formatxfersize",
    "create_anchors",
    "formatsds",
    "report",
    "report_run_totals",
    "histogram",
    "psrset",
    "auxreport",
    "monitor",
    "concatenatesds",
    "messagescan",
    "abort_failed_skew",
    "misc",
    "=pattern_buffer",
    "=showlba",
    "=loop",
];

const HD: &[&str] = &[
    "system", "vdbench", "shell", "user", "jvms", "clients", "mount",
];

const SD: &[&str] = &[
    "host",
    "=hd",
    "lun",
    "count",
    "size",
    "threads",
    "hitarea",
    "offset",
    "align",
    "kstat",
    "instance",
    "replay",
    "journal",
    "resetlun",
    "resetbus",
    "openflags",
    "range",
    "streams",
];

const WD: &[&str] = &[
    "=sd",
    "skew",
    "xfersize",
    "readpct",
    "rdpct",
    "writepct",
    "wrpct",
    "range",
    "hotband",
    "seekpct",
    "stride",
    "priority",
    "iorate",
    "rhpct",
    "whpct",
    "host",
    "=hd",
    "openflags",
    "=user",
    "threads",
    "streams",
];

const FSD: &[&str] = &[
    "anchor",
    "journal",
    "host",
    "=hd",
    "width",
    "depth",
    "sizes",
    "shared",
    "wss",
    "workingsetsize",
    "total_size",
    "totalsize",
    "files",
    "distribution",
    "cleanup",
    "openflags",
    "=log",
    "count",
];

const FWD: &[&str] = &[
    "=fsd",
    "readpct",
    "rdpct",
    "stopafter",
    "operation",
    "fileselect",
    "=fileio",
    "xfersizes",
    "skew",
    "threads",
    "target",
    "host",
    "=hd",
    "openflags",
];

const RD: &[&str] = &[
    "=wd",
    "=sd",
    "=fsd",
    "iorate",
    "=maxdata",
    "=maxdataread",
    "=maxdatawritten",
    "curve",
    "stopcurve",
    "elapsed",
    "interval",
    "warmup",
    "=replay",
    "pause",
    "forxfersize",
    "forthreads",
    "forrdpct",
    "forrhpct",
    "forwhpct",
    "forseekpct",
    "forhitarea",
    "forcompratio",
    "forcompression",
    "fordepth",
    "forwidth",
    "forfiles",
    "forsizes",
    "fortotalsize",
    "forwss",
    "forworkingsetsize",
    "foroperations",
    "xfersize",
    "threads",
    "rdpct",
    "rhpct",
    "whpct",
    "seekpct",
    "hitarea",
    "compratio",
    "compression",
    "depth",
    "width",
    "files",
    "sizes",
    "totalsize",
    "wss",
    "workingsetsize",
    "distribution",
    "startcmd",
    "start_cmd",
    "endcmd",
    "end_cmd",
    "=fwd",
    "fwdrate",
    "operations",
    "format",
    "openflags",
    "mount",
];

/// The whole keyword vdbench reads `key` as in a definition of `kind` (None: general
/// parameters); `key` itself when it is whole already or begins none of them.
pub fn expand(kind: Option<Kind>, key: &str) -> String {
    let table = match kind {
        None => GENERAL,
        Some(Kind::Hd) => HD,
        Some(Kind::Sd) => SD,
        Some(Kind::Wd) => WD,
        Some(Kind::Fsd) => FSD,
        Some(Kind::Fwd) => FWD,
        Some(Kind::Rd) => RD,
    };
    if key.is_empty() || key.starts_with("dedup") {
        return key.to_string();
    }
    let whole = |e: &&str| e.trim_start_matches('=') == key;
    if table.iter().any(whole) {
        return key.to_string();
    }
    table
        .iter()
        .find(|e| !e.starts_with('=') && e.starts_with(key))
        .map_or_else(|| key.to_string(), |e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_parts_expand_in_vdbenchs_order() {
        assert_eq!(expand(Some(Kind::Wd), "xf"), "xfersize");
        assert_eq!(expand(Some(Kind::Wd), "rd"), "rdpct");
        assert_eq!(expand(Some(Kind::Wd), "r"), "readpct");
        assert_eq!(expand(Some(Kind::Wd), "s"), "skew");
        assert_eq!(expand(Some(Kind::Wd), "se"), "seekpct");
        assert_eq!(expand(Some(Kind::Wd), "th"), "threads");
        assert_eq!(expand(Some(Kind::Rd), "e"), "elapsed");
        assert_eq!(expand(Some(Kind::Rd), "i"), "iorate");
        assert_eq!(expand(Some(Kind::Rd), "in"), "interval");
        assert_eq!(expand(Some(Kind::Rd), "fortotal"), "fortotalsize");
        assert_eq!(expand(Some(Kind::Sd), "s"), "size");
        assert_eq!(expand(Some(Kind::Fsd), "size"), "sizes");
        assert_eq!(expand(Some(Kind::Fwd), "xfersize"), "xfersizes");
        assert_eq!(expand(None, "data"), "data_errors");
    }

    #[test]
    fn whole_words_and_unknown_words_stay() {
        // Keywords that must be whole are not reached by a leading part.
        assert_eq!(expand(Some(Kind::Rd), "max"), "max");
        assert_eq!(expand(Some(Kind::Rd), "maxdata"), "maxdata");
        assert_eq!(expand(Some(Kind::Fwd), "fileio"), "fileio");
        assert_eq!(expand(Some(Kind::Fwd), "file"), "fileselect");
        assert_eq!(expand(Some(Kind::Wd), "rdpct"), "rdpct");
        assert_eq!(expand(Some(Kind::Wd), "transfersize"), "transfersize");
        assert_eq!(expand(None, "dedupratio"), "dedupratio");
        assert_eq!(expand(None, "include"), "include");
        // vdbench tests compression= whole before compratio= and compressionseed=.
        assert_eq!(expand(None, "compression"), "compression");
    }
}
