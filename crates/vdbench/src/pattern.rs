//! `pattern=FILE`: every write's data from a file, as vdbench 5.04 writes it (read in
//! its source for the semantics).
//!
//! vdbench reads the file once, at most twice its pattern buffer's size (the buffer is
//! 1 MiB, or the largest transfer rounded up to whole MiB), keeps a multiple of four bytes
//! of it (saying so when it cuts bytes off, "possible cr/lf?"), and repeats those bytes
//! to fill the buffer. It assembles each four bytes into a word most significant byte
//! first and copies the words into the write buffer in the machine's byte order, so on a
//! little-endian machine (x86, arm64) each group of four bytes lands reversed: a file
//! holding `ABCD` writes `DCBA`. fathom writes the same bytes vdbench writes on the
//! machine it runs on. Every write begins at the start of the buffer (vdbench writes from
//! the buffer's start whatever the offset), so a write of `n` bytes holds the first `n`
//! bytes of the repeated pattern: fio's `buffer_pattern` with these bytes.

use anyhow::{bail, Context, Result};
use std::io::Read;
use std::path::Path;

/// The pattern's bytes, as they land in every write buffer (repeated to the buffer's
/// length), and a note when bytes were cut off to a multiple of four.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub bytes: Vec<u8>,
    pub note: Option<String>,
    /// The file, as messages name it (its absolute path when it can be had).
    pub shown: std::path::PathBuf,
}

/// The pattern buffer's size (without vdbench's doubling) for transfers of up to
/// `max_xfer` bytes: 1 MiB, or `max_xfer` rounded up to whole MiB.
pub fn buffer_size(max_xfer: u64) -> u64 {
    const MB: u64 = 1 << 20;
    max_xfer.div_ceil(MB).max(1) * MB
}

/// Load `path` for transfers of up to `max_xfer` bytes.
pub fn load(path: &str, max_xfer: u64) -> Result<Loaded> {
    let p = Path::new(path);
    let shown = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let cap = 2 * buffer_size(max_xfer);
    let mut data = Vec::new();
    std::fs::File::open(p)
        .and_then(|f| f.take(cap).read_to_end(&mut data))
        .with_context(|| format!("pattern={path}: reading the data pattern file"))?;
    if data.is_empty() {
        bail!(
            "pattern={path}: the data pattern file {} is empty",
            shown.display()
        );
    }
    let keep = data.len() - data.len() % 4;
    let note = (keep != data.len()).then(|| {
        format!(
            "Data pattern length for file '{}' must be a multiple of 4: input length of {} \
             truncated to {keep} (possible cr/lf?)",
            shown.display(),
            data.len()
        )
    });
    if keep == 0 {
        bail!(
            "pattern={path}: the data pattern file {} must hold at least 4 bytes (it holds {})",
            shown.display(),
            data.len()
        );
    }
    data.truncate(keep);
    for w in data.chunks_exact_mut(4) {
        let word = u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
        w.copy_from_slice(&word.to_ne_bytes());
    }
    Ok(Loaded {
        bytes: data,
        note,
        shown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern file in the temporary directory, removed when the guard goes.
    struct Scratch(std::path::PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    impl std::fmt::Display for Scratch {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            self.0.display().fmt(f)
        }
    }

    fn file(name: &str, bytes: &[u8]) -> Scratch {
        let p =
            std::env::temp_dir().join(format!("fathom-vdb-pattern-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        Scratch(p)
    }

    #[test]
    fn words_land_in_the_machines_byte_order_as_vdbench_copies_them() {
        let l = load(&file("abcd", b"ABCDEFGH").to_string(), 4096).unwrap();
        let want: &[u8] = if cfg!(target_endian = "little") {
            b"DCBAHGFE"
        } else {
            b"ABCDEFGH"
        };
        assert_eq!(l.bytes, want);
        assert_eq!(l.note, None);
    }

    #[test]
    fn a_length_not_a_multiple_of_four_is_cut_with_a_note() {
        // A text file's newline makes it 5 bytes: vdbench keeps 4 and says why.
        let l = load(&file("nl", b"WXYZ\n").to_string(), 4096).unwrap();
        assert_eq!(l.bytes.len(), 4);
        let note = l.note.expect("a note");
        assert!(note.contains("input length of 5 truncated to 4"), "{note}");
        assert!(note.contains("cr/lf"), "{note}");
    }

    #[test]
    fn empty_and_too_short_files_are_refused() {
        let e = load(&file("empty", b"").to_string(), 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is empty"), "{e}");
        let e = load(&file("short", b"abc").to_string(), 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least 4 bytes"), "{e}");
        let e = load("/nonexistent/fathom/pattern", 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("pattern=/nonexistent/fathom/pattern"), "{e}");
    }

    #[test]
    fn at_most_twice_the_pattern_buffer_is_read() {
        assert_eq!(buffer_size(4096), 1 << 20);
        assert_eq!(buffer_size(1 << 20), 1 << 20);
        assert_eq!(buffer_size((1 << 20) + 1), 2 << 20);
        let big = vec![7u8; (3 << 20) + 3];
        let l = load(&file("big", &big).to_string(), 64 << 10).unwrap();
        assert_eq!(l.bytes.len(), 2 << 20);
        // Cut at the cap, not at the file's length: no note.
        assert_eq!(l.note, None);
    }
}
