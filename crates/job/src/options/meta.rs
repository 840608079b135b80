//! Metadata workloads (fathom extensions): directory trees and operation mixes.

use super::{int_in, OptDef};
use crate::spec::{MetaOp, TreeFormat};
use crate::units::parse_bool;

const C: &str = "Metadata workloads and directory trees (fathom extensions)";

/// `create/20:stat/60:delete/20` (or one operation alone, `stat`): percentages summing to
/// 100, each operation once.
fn meta_mix(v: &str) -> Result<Vec<(MetaOp, u32)>, String> {
    let names = || {
        MetaOp::ALL
            .iter()
            .map(|o| o.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out: Vec<(MetaOp, u32)> = Vec::new();
    for part in v.split(':').map(str::trim) {
        let (name, pct) = match part.split_once('/') {
            Some((n, p)) => (n.trim(), Some(p.trim())),
            None => (part, None),
        };
        let op = MetaOp::parse(name)
            .ok_or_else(|| format!("unknown operation '{name}'; use {}", names()))?;
        if out.iter().any(|(o, _)| *o == op) {
            return Err(format!("'{}' is listed twice", op.name()));
        }
        let pct = match pct {
            Some(p) => p
                .parse::<u32>()
                .map_err(|_| format!("'{p}' is not a whole percentage (in '{part}')"))?,
            None if v.contains('/') => {
                return Err(format!("'{part}' has no percentage; write {name}/N"))
            }
            None => 100,
        };
        out.push((op, pct));
    }
    let sum: u32 = out.iter().map(|(_, p)| p).sum();
    if sum != 100 {
        return Err(format!(
            "the percentages add up to {sum}, not 100 (e.g. create/20:stat/60:delete/20)"
        ));
    }
    if out.iter().any(|(o, p)| *o == MetaOp::Close && *p > 0)
        && !out.iter().any(|(o, p)| *o == MetaOp::Open && *p > 0)
    {
        return Err("close closes files an open left open: list open too".into());
    }
    out.retain(|(_, p)| *p > 0);
    Ok(out)
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "tree_depth",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0",
        doc: "Levels of directories under `directory` (vdbench depth); files go in the leaves. 0: the directory itself",
        flag: false,
        apply: |j, v, _| {
            j.tree.depth = int_in(v, 0, 16)?;
            Ok(())
        },
    },
    OptDef {
        name: "tree_width",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "Directories made in each directory of the level above (vdbench width): depth 2, width 3 gives 9 leaves",
        flag: false,
        apply: |j, v, _| {
            j.tree.width = int_in(v, 1, 1 << 20)?;
            Ok(())
        },
    },
    OptDef {
        name: "tree_distribution",
        aliases: &[],
        category: C,
        ty: "bottom|all",
        default: "bottom",
        doc: "nrfiles files in each leaf directory (bottom) or in every directory of the tree (all), as vdbench's distribution",
        flag: false,
        apply: |j, v, _| {
            j.tree.all_levels = match v {
                "bottom" => false,
                "all" => true,
                _ => return Err("use bottom or all".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "unique_dir",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Each clone works in a tree of its own, directory/tree.N for clone N (mdtest -u); 0: clones share one tree, each with its own files",
        flag: true,
        apply: |j, v, _| {
            j.tree.unique = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "tree_format",
        aliases: &[],
        category: C,
        ty: "no|dirs|restart|yes",
        default: "dirs",
        doc: "filetree: what is made before the clock starts (vdbench format): nothing, the directories, the missing directories and files, or everything afresh",
        flag: false,
        apply: |j, v, _| {
            j.tree.format = Some(match v {
                "no" | "0" => TreeFormat::No,
                "dirs" => TreeFormat::Dirs,
                "restart" => TreeFormat::Restart,
                "yes" | "1" => TreeFormat::Yes,
                _ => return Err("use no, dirs, restart or yes".into()),
            });
            Ok(())
        },
    },
    OptDef {
        name: "tree_names",
        aliases: &[],
        category: C,
        ty: "fathom|vdbench",
        default: "fathom",
        doc: "How a tree's entries are named: fathom's dN directories and filename_format files, or vdbench's vdb.LEVEL_N.dir and vdb_fNNNN.file",
        flag: false,
        apply: |j, v, _| {
            j.tree.vdbench_names = match v {
                "fathom" => false,
                "vdbench" => true,
                _ => return Err("use fathom or vdbench".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "tree_shared",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "filetree: the clones (and every tree_shared job on the same tree) share one view of the tree, each file or directory one clone's at a time, as vdbench's threads; 0: each clone has files of its own",
        flag: true,
        apply: |j, v, _| {
            j.tree.shared = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "meta_mix",
        aliases: &[],
        category: C,
        ty: "op/pct:…",
        default: "create/100",
        doc: "filetree: the operation mix in percent, from create, open, close, stat, setattr (utime), read, write, rename, delete (unlink), mkdir, rmdir, access, copy",
        flag: false,
        apply: |j, v, _| {
            j.meta_mix = meta_mix(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "fileselect",
        aliases: &[],
        category: C,
        ty: "random|sequential",
        default: "random",
        doc: "filetree: how each operation picks its file or directory (vdbench fileselect)",
        flag: false,
        apply: |j, v, _| {
            j.fileselect_sequential = match v {
                "random" => false,
                "sequential" | "seq" => true,
                _ => return Err("use random or sequential".into()),
            };
            Ok(())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_parse_and_check_their_sum() {
        assert_eq!(meta_mix("stat"), Ok(vec![(MetaOp::Stat, 100)]));
        assert_eq!(
            meta_mix("create/20:stat/60:unlink/20"),
            Ok(vec![
                (MetaOp::Create, 20),
                (MetaOp::Stat, 60),
                (MetaOp::Delete, 20)
            ])
        );
        assert!(meta_mix("create/20:stat/60").unwrap_err().contains("80"));
        assert!(meta_mix("crate/100")
            .unwrap_err()
            .contains("unknown operation"));
        assert!(meta_mix("stat/50:stat/50").unwrap_err().contains("twice"));
        assert!(meta_mix("close/100").unwrap_err().contains("open"));
        assert!(meta_mix("stat/100:open")
            .unwrap_err()
            .contains("percentage"));
    }
}
