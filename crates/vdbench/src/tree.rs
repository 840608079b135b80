//! vdbench's file-system trees: `ANCHOR/vdb.1_1.dir/vdb.2_1.dir/.../vdb_f0001.file`
//! (level and number within the parent, from 1; files numbered from 1 in each directory
//! that holds files), and `vdb_control.file` in the anchor recording the shape, built
//! (format=yes, restart), checked (format=no) and removed (format=clean) here.

use crate::model::Fsd;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The control file's name.
pub const CONTROL: &str = "vdb_control.file";

/// Relative paths of every directory, parents first.
fn dirs(f: &Fsd) -> Vec<(u32, PathBuf)> {
    let mut out = vec![(0u32, PathBuf::new())];
    let mut level = vec![PathBuf::new()];
    for l in 1..=f.depth {
        let mut next = Vec::new();
        for parent in &level {
            for i in 1..=f.width {
                let p = parent.join(format!("vdb.{l}_{i}.dir"));
                out.push((l, p.clone()));
                next.push(p);
            }
        }
        level = next;
    }
    out
}

/// Every file of the tree with its size, in order.
pub fn file_list(f: &Fsd) -> Vec<(PathBuf, u64)> {
    let anchor = Path::new(&f.anchor);
    let mut out = Vec::new();
    let holders: Vec<PathBuf> = dirs(f)
        .into_iter()
        .filter(|(l, _)| f.all || *l == f.depth)
        .map(|(_, p)| p)
        .collect();
    let total = holders.len() as u64 * f.files as u64;
    let mut k = 0u64;
    let mut bytes = 0u64;
    for d in holders {
        for i in 1..=f.files {
            let size = size_of(f, k, total);
            // totalsize=: the files up to that much, in order.
            if f.totalsize.is_some_and(|t| bytes + size > t) {
                return out;
            }
            bytes += size;
            out.push((anchor.join(&d).join(format!("vdb_f{i:04}.file")), size));
            k += 1;
        }
    }
    out
}

/// The files a run reads and writes: all of `files`, or with workingsetsize= the first
/// ones, that much.
pub fn working_set(f: &Fsd, files: Vec<(PathBuf, u64)>) -> Vec<(PathBuf, u64)> {
    let Some(wss) = f.wss else { return files };
    let mut bytes = 0u64;
    files
        .into_iter()
        .take_while(|(_, n)| {
            bytes += n;
            bytes <= wss
        })
        .collect()
}

/// File k's size: the sizes= distribution laid over the files in order.
fn size_of(f: &Fsd, k: u64, total: u64) -> u64 {
    fathom_job::size_of_file(&f.sizes, k, total)
}

fn control_text(f: &Fsd) -> String {
    format!(
        "* vdbench control file (written by fathom)\nfsd={},depth={},width={},files={},sizes=({}),distribution={}\n",
        f.name,
        f.depth,
        f.width,
        f.files,
        f.sizes
            .iter()
            .map(|(s, p)| format!("{},{}", s, crate::value::show_num(*p)))
            .collect::<Vec<_>>()
            .join(","),
        if f.all { "all" } else { "bottom" }
    )
}

/// Remove the tree (the vdb directories and the control file; nothing else).
pub fn clean(f: &Fsd) -> Result<()> {
    let anchor = Path::new(&f.anchor);
    let Ok(rd) = std::fs::read_dir(anchor) else {
        return Ok(());
    };
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("vdb.") && n.ends_with(".dir") {
            std::fs::remove_dir_all(e.path())
                .with_context(|| format!("removing {}", e.path().display()))?;
        } else if n == CONTROL {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// What building did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Built {
    /// Directories made.
    pub dirs: u64,
    /// Files made or completed.
    pub files: u64,
    /// Bytes written (or, left to the caller, to write).
    pub bytes: u64,
    /// Without data: the files made or extended, each at its full length, for the caller
    /// to write whole (data validation's keyed format).
    pub unwritten: Vec<(PathBuf, u64)>,
}

/// One format thread's work: files made, bytes, the files left unwritten.
type Part = (u64, u64, Vec<(PathBuf, u64)>);

/// Build what is missing (`restart`), or everything after a clean (`yes`), writing
/// files in `xfer`-byte pieces on `threads` threads: `files` (all of the tree's, or this
/// host's share); with `pattern`, the files hold it (pattern=FILE). Without `data`, the
/// files are only made at their lengths and listed in [`Built::unwritten`]. `rec` notes
/// each operation for the format's report.
pub fn build(
    f: &Fsd,
    files: &[(PathBuf, u64)],
    (xfer, threads): (u64, usize),
    (create_anchor, data): (bool, bool),
    pattern: Option<&[u8]>,
    rec: Option<&crate::report::Recorder>,
) -> Result<Built> {
    if f.sizes.iter().all(|s| s.0 == 0) {
        bail!("fsd={}: no size= (or sizes=) for its files", f.name);
    }
    anchor(f, create_anchor)?;
    let anchor = Path::new(&f.anchor);
    let mut b = Built::default();
    for (_, d) in dirs(f).into_iter().skip(1) {
        let p = anchor.join(d);
        if !p.is_dir() {
            let t = std::time::Instant::now();
            match std::fs::create_dir(&p) {
                Ok(()) => {
                    b.dirs += 1;
                    if let Some(r) = rec {
                        r.meta("mkdir", t);
                    }
                }
                // Another host sharing the tree made it first.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e).with_context(|| format!("creating {}", p.display())),
            }
        }
    }
    let xfer = xfer.clamp(512, 16 << 20) as usize;
    let mut buf = vec![0u8; xfer];
    match pattern {
        Some(p) => fathom::engine::repeat_pattern(&mut buf, p),
        None => {
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            for c in buf.chunks_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = x.to_le_bytes();
                c.copy_from_slice(&v[..c.len()]);
            }
        }
    }
    // The files are written by `threads` threads (fwd=format's threads=), each taking
    // every n-th file.
    let threads = threads.clamp(1, 256).min(files.len().max(1));
    let parts: Vec<Result<Part>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let buf = &buf;
                sc.spawn(move || -> Result<Part> {
                    let (mut made, mut bytes, mut unwritten) = (0u64, 0u64, Vec::new());
                    for (p, size) in files.iter().skip(t).step_by(threads) {
                        let have = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
                        let exists = p.exists();
                        if have >= *size && exists {
                            continue;
                        }
                        let now = std::time::Instant::now;
                        // A new file is created (and closed), then opened for its writes,
                        // as vdbench's format does, each in its column.
                        if !exists {
                            let t = now();
                            std::fs::OpenOptions::new()
                                .create(true)
                                .write(true)
                                .truncate(false)
                                .open(p)
                                .with_context(|| format!("creating {}", p.display()))?;
                            if let Some(r) = rec {
                                r.meta("create", t);
                            }
                        }
                        let t = now();
                        let file = std::fs::OpenOptions::new()
                            .write(true)
                            .open(p)
                            .with_context(|| format!("opening {}", p.display()))?;
                        if !data {
                            file.set_len(*size)
                                .with_context(|| format!("sizing {}", p.display()))?;
                            unwritten.push((p.clone(), *size));
                            bytes += size - have;
                            made += 1;
                            continue;
                        }
                        if let Some(r) = rec {
                            r.meta("open", t);
                        }
                        let mut off = have;
                        while off < *size {
                            let n = ((size - off) as usize).min(xfer);
                            let t = now();
                            file.write_all_at(&buf[..n], off)
                                .with_context(|| format!("writing {}", p.display()))?;
                            if let Some(r) = rec {
                                r.write(n as u64, t);
                            }
                            off += n as u64;
                            bytes += n as u64;
                        }
                        let t = now();
                        drop(file);
                        if let Some(r) = rec {
                            r.meta("close", t);
                        }
                        made += 1;
                    }
                    Ok((made, bytes, unwritten))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a format thread panicked")))
            })
            .collect()
    });
    for p in parts {
        let (made, bytes, unwritten) = p?;
        b.files += made;
        b.bytes += bytes;
        b.unwritten.extend(unwritten);
    }
    b.unwritten.sort();
    let mut c = std::fs::File::create(anchor.join(CONTROL))?;
    c.write_all(control_text(f).as_bytes())?;
    Ok(b)
}

/// Make sure the anchor is there: made when its parent is (or with create_anchors=yes).
pub fn anchor(f: &Fsd, create_anchor: bool) -> Result<()> {
    let anchor = Path::new(&f.anchor);
    if !anchor.is_dir() {
        if create_anchor || anchor.parent().is_some_and(Path::is_dir) {
            std::fs::create_dir_all(anchor)
                .with_context(|| format!("fsd={}: creating anchor {}", f.name, anchor.display()))?;
        } else {
            bail!(
                "fsd={}: anchor {} does not exist (create_anchors=yes makes it)",
                f.name,
                anchor.display()
            );
        }
    }
    Ok(())
}

/// Check that the files are there in full (format=no).
pub fn check(f: &Fsd, files: &[(PathBuf, u64)]) -> Result<()> {
    for (p, size) in files.iter().cloned() {
        match std::fs::metadata(&p) {
            Ok(m) if m.len() >= size => {}
            Ok(_) => bail!(
                "fsd={}: {} is shorter than its size; run with format=restart to complete the tree",
                f.name,
                p.display()
            ),
            Err(_) => bail!(
                "fsd={}: {} is missing; run with format=yes (or restart) to build the tree",
                f.name,
                p.display()
            ),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_counts() {
        let f = Fsd {
            name: "fsd1".into(),
            anchor: "/a".into(),
            depth: 2,
            width: 2,
            files: 2,
            sizes: vec![(1024, 50.0), (4096, 50.0)],
            ..Fsd::default()
        };
        let l = file_list(&f);
        assert_eq!(l.len(), 8);
        assert_eq!(
            l[0].0,
            PathBuf::from("/a/vdb.1_1.dir/vdb.2_1.dir/vdb_f0001.file")
        );
        assert_eq!(
            l[7].0,
            PathBuf::from("/a/vdb.1_2.dir/vdb.2_2.dir/vdb_f0002.file")
        );
        assert_eq!(l[0].1, 1024);
        assert_eq!(l[7].1, 4096);
        let all = Fsd { all: true, ..f };
        assert_eq!(file_list(&all).len(), 14);
    }
}
