//! NBENCH loadfiles: dbench's line format, read into operations, and fathom's own default
//! load (an office session written for fathom, in the same format).

use anyhow::{anyhow, bail, Result};

/// An operation of the loadfile, as dbench's file-system backend carries it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    NtCreateX,
    Close,
    Rename,
    Unlink,
    Deltree,
    Rmdir,
    Mkdir,
    QPathInfo,
    QFileInfo,
    QFsInfo,
    SFileInfo,
    Find,
    WriteX,
    ReadX,
    LockX,
    UnlockX,
    Flush,
}

/// The operations in the order dbench's table lists them, with their names there.
pub const KINDS: [(Kind, &str); 17] = [
    (Kind::NtCreateX, "NTCreateX"),
    (Kind::Close, "Close"),
    (Kind::Rename, "Rename"),
    (Kind::Unlink, "Unlink"),
    (Kind::Deltree, "Deltree"),
    (Kind::Rmdir, "Rmdir"),
    (Kind::Mkdir, "Mkdir"),
    (Kind::QPathInfo, "Qpathinfo"),
    (Kind::QFileInfo, "Qfileinfo"),
    (Kind::QFsInfo, "Qfsinfo"),
    (Kind::SFileInfo, "Sfileinfo"),
    (Kind::Find, "Find"),
    (Kind::WriteX, "WriteX"),
    (Kind::ReadX, "ReadX"),
    (Kind::LockX, "LockX"),
    (Kind::UnlockX, "UnlockX"),
    (Kind::Flush, "Flush"),
];

impl Kind {
    /// Its row in [`KINDS`].
    pub fn index(self) -> usize {
        KINDS
            .iter()
            .position(|k| k.0 == self)
            .expect("every kind is listed")
    }

    /// The loadfile's word for it (both dbench spellings).
    fn of_word(w: &str) -> Option<Kind> {
        Some(match w {
            "NTCreateX" => Kind::NtCreateX,
            "Close" => Kind::Close,
            "Rename" => Kind::Rename,
            "Unlink" => Kind::Unlink,
            "Deltree" => Kind::Deltree,
            "Rmdir" => Kind::Rmdir,
            "Mkdir" => Kind::Mkdir,
            "QUERY_PATH_INFORMATION" | "Qpathinfo" => Kind::QPathInfo,
            "QUERY_FILE_INFORMATION" | "Qfileinfo" => Kind::QFileInfo,
            "QUERY_FS_INFORMATION" | "Qfsinfo" => Kind::QFsInfo,
            "SET_FILE_INFORMATION" | "Sfileinfo" => Kind::SFileInfo,
            "FIND_FIRST" | "Find" => Kind::Find,
            "WriteX" => Kind::WriteX,
            "ReadX" => Kind::ReadX,
            "LockX" => Kind::LockX,
            "UnlockX" => Kind::UnlockX,
            "Flush" => Kind::Flush,
            _ => return None,
        })
    }

    /// (paths, numbers) the operation takes before its status.
    fn arity(self) -> (usize, usize) {
        match self {
            Kind::NtCreateX => (1, 3),
            Kind::Close | Kind::Flush => (0, 1),
            Kind::Rename => (2, 0),
            Kind::Unlink => (1, 0),
            Kind::Deltree | Kind::Rmdir | Kind::Mkdir => (1, 0),
            Kind::QPathInfo => (1, 1),
            Kind::QFileInfo | Kind::SFileInfo => (0, 2),
            Kind::QFsInfo => (0, 1),
            Kind::Find => (1, 3),
            Kind::WriteX | Kind::ReadX => (0, 4),
            Kind::LockX | Kind::UnlockX => (0, 3),
        }
    }
}

/// One line of a loadfile.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Line number in the file (from 1).
    pub no: usize,
    pub kind: Kind,
    /// Paths with '/' separators, relative to the working directory (`/clients/...`).
    pub paths: Vec<String>,
    pub nums: Vec<u64>,
    /// The status the operation is expected to end with is success.
    pub ok: bool,
}

/// Split a line into words, a quoted word as one.
fn words(line: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut it = line.chars().peekable();
    while let Some(&c) = it.peek() {
        if c.is_whitespace() {
            it.next();
            continue;
        }
        let mut w = String::new();
        if c == '"' {
            it.next();
            loop {
                match it.next() {
                    Some('"') => break,
                    Some(ch) => w.push(ch),
                    None => bail!("an unterminated quote"),
                }
            }
        } else {
            while let Some(&ch) = it.peek() {
                if ch.is_whitespace() {
                    break;
                }
                w.push(ch);
                it.next();
            }
        }
        out.push(w);
    }
    Ok(out)
}

fn number(w: &str) -> Option<u64> {
    match w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => w.parse().ok(),
    }
}

/// Whether an NT status word means success (dbench: NT_STATUS_OK or a zero 0x value).
fn status_ok(w: &str) -> bool {
    w == "NT_STATUS_OK" || number(w) == Some(0)
}

/// Read a loadfile. `name` names it in errors. Timestamped lines (`0.123 NTCreateX ...`,
/// newer dbench's format) are read with their times dropped; blank lines and `#`
/// comments are skipped.
pub fn parse(text: &str, name: &str) -> Result<Vec<Line>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        let at = |e: anyhow::Error| anyhow!("{name}:{no}: {e}");
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut w = words(t).map_err(at)?;
        if w.first().is_some_and(|x| x.parse::<f64>().is_ok()) {
            w.remove(0);
        }
        let Some(first) = w.first() else { continue };
        let kind = Kind::of_word(first).ok_or_else(|| {
            at(anyhow!(
                "'{first}' is not an operation of dbench's file-system backend (NTCreateX, \
                 Close, ReadX, WriteX, Unlink, Rename, Deltree, Mkdir, Rmdir, \
                 QUERY_PATH_INFORMATION, QUERY_FILE_INFORMATION, QUERY_FS_INFORMATION, \
                 SET_FILE_INFORMATION, FIND_FIRST, Flush, LockX, UnlockX)"
            ))
        })?;
        let (np, nn) = kind.arity();
        if w.len() < 1 + np + nn + 1 {
            return Err(at(anyhow!(
                "{first} takes {np} path(s), {nn} number(s) and a status; the line has {} words",
                w.len() - 1
            )));
        }
        let paths = w[1..1 + np].iter().map(|p| p.replace('\\', "/")).collect();
        let nums = w[1 + np..1 + np + nn]
            .iter()
            .map(|x| number(x).ok_or_else(|| at(anyhow!("'{x}' is not a number"))))
            .collect::<Result<Vec<u64>>>()?;
        let ok = status_ok(w.last().expect("a status"));
        out.push(Line {
            no,
            kind,
            paths,
            nums,
            ok,
        });
    }
    if out.is_empty() {
        bail!("{name}: no operations in the loadfile");
    }
    Ok(out)
}

/// fathom's default load: an office session per client, written for fathom in dbench's
/// format. Five programs' folders; documents created in 64 KiB writes, read back in
/// pieces, queried, locked, saved through a temporary file renamed over the original,
/// flushed, searched for, looked up before they exist; the folders removed at the end.
/// About 2,000 lines; each document is written twice and read three times.
pub fn builtin() -> String {
    let mut s = String::new();
    let mut push = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    let root = r"\clients\client1";
    let work = format!(r"{root}\office");
    push(format!("Deltree \"{root}\" NT_STATUS_OK"));
    push("Mkdir \"\\clients\" NT_STATUS_OK".into());
    push(format!("NTCreateX \"{root}\" 0x1 0x2 1 NT_STATUS_OK"));
    push("Close 1 NT_STATUS_OK".into());
    push(format!("NTCreateX \"{work}\" 0x1 0x2 2 NT_STATUS_OK"));
    push("Close 2 NT_STATUS_OK".into());
    push("QUERY_FS_INFORMATION 1 NT_STATUS_OK".into());
    let apps = ["LETTERS", "BUDGET", "SLIDES", "MAIL", "ORDERS"];
    let mut handle = 100u64;
    for (a, app) in apps.iter().enumerate() {
        let dir = format!(r"{work}\{app}");
        push(format!(
            "QUERY_PATH_INFORMATION \"{dir}\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND"
        ));
        push(format!("Mkdir \"{dir}\" NT_STATUS_OK"));
        for d in 0..6u64 {
            let doc = format!(r"{dir}\DOC{d}.DAT");
            let tmp = format!(r"{dir}\~SAVE{d}.TMP");
            // Sizes from 12 KiB to about 1.3 MiB, different per program and document.
            let size = (12 << 10) + ((a as u64 * 7 + d * 13) % 20) * (64 << 10) + d * 4096;
            push(format!(
                "QUERY_PATH_INFORMATION \"{doc}\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND"
            ));
            handle += 1;
            let h = handle;
            push(format!("NTCreateX \"{doc}\" 0x40 0x5 {h} NT_STATUS_OK"));
            let mut off = 0;
            while off < size {
                let n = (size - off).min(65536);
                push(format!("WriteX {h} {off} {n} {n} NT_STATUS_OK"));
                off += n;
            }
            push(format!("QUERY_FILE_INFORMATION {h} 1004 NT_STATUS_OK"));
            push(format!("Flush {h} NT_STATUS_OK"));
            push(format!("Close {h} NT_STATUS_OK"));
            // Opened three times and read, in pieces of 4 KiB up to 64 KiB.
            for pass in 0..3u64 {
                handle += 1;
                let h = handle;
                push(format!(
                    "QUERY_PATH_INFORMATION \"{doc}\" 1004 NT_STATUS_OK"
                ));
                push(format!("NTCreateX \"{doc}\" 0x40 0x1 {h} NT_STATUS_OK"));
                push(format!("QUERY_FILE_INFORMATION {h} 1004 NT_STATUS_OK"));
                let piece = 4096 << ((pass + d) % 5);
                let mut off = 0;
                while off < size {
                    let n = (size - off).min(piece);
                    push(format!("ReadX {h} {off} {n} {n} NT_STATUS_OK"));
                    off += n;
                }
                push(format!("LockX {h} {} 1 NT_STATUS_OK", size / 2));
                push(format!("UnlockX {h} {} 1 NT_STATUS_OK", size / 2));
                push(format!("SET_FILE_INFORMATION {h} 1004 NT_STATUS_OK"));
                push(format!("Close {h} NT_STATUS_OK"));
                push(format!(
                    "FIND_FIRST \"{dir}\\*\" 260 1366 {} NT_STATUS_OK",
                    d + 1
                ));
            }
            // Saved: the new version written to a temporary file that replaces it.
            handle += 1;
            let h = handle;
            push(format!("NTCreateX \"{tmp}\" 0x40 0x2 {h} NT_STATUS_OK"));
            let mut off = 0;
            while off < size {
                let n = (size - off).min(65536);
                push(format!("WriteX {h} {off} {n} {n} NT_STATUS_OK"));
                off += n;
            }
            push(format!("Flush {h} NT_STATUS_OK"));
            push(format!("Close {h} NT_STATUS_OK"));
            push(format!("Unlink \"{doc}\" 0x6 NT_STATUS_OK"));
            push(format!("Rename \"{tmp}\" \"{doc}\" NT_STATUS_OK"));
            push(format!(
                "FIND_FIRST \"{dir}\\~*.TMP\" 260 1366 0 NT_STATUS_NO_SUCH_FILE"
            ));
        }
        push("QUERY_FS_INFORMATION 1 NT_STATUS_OK".into());
    }
    for app in apps {
        let dir = format!(r"{work}\{app}");
        for d in 0..6 {
            push(format!("Unlink \"{dir}\\DOC{d}.DAT\" 0x6 NT_STATUS_OK"));
        }
        push(format!("Rmdir \"{dir}\" NT_STATUS_OK"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbench_lines_are_read_with_their_paths_numbers_and_status() {
        let l = parse(
            "NTCreateX \"\\clients\\client1\\a b\" 0x40 0x2 9937 NT_STATUS_OK\n\
             # a comment\n\
             0.52 ReadX 9937 0 4096 4096 NT_STATUS_OK\n\
             QUERY_PATH_INFORMATION \"\\clients\\client1\\x\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n",
            "t",
        )
        .unwrap();
        assert_eq!(l.len(), 3);
        assert_eq!(l[0].paths, ["/clients/client1/a b"]);
        assert_eq!(l[0].nums, [0x40, 2, 9937]);
        assert_eq!(l[1].kind, Kind::ReadX);
        assert_eq!(l[1].no, 3);
        assert!(!l[2].ok);
        let e = parse("Frobnicate 1 NT_STATUS_OK\n", "f").unwrap_err();
        assert!(e.to_string().starts_with("f:1: 'Frobnicate'"), "{e}");
        assert!(parse("WriteX 1 2 NT_STATUS_OK\n", "f").is_err());
    }

    #[test]
    fn the_builtin_load_reads_back_and_balances_its_handles() {
        let l = parse(&builtin(), "builtin").unwrap();
        assert!(l.len() > 1500, "{}", l.len());
        let mut open = std::collections::HashSet::new();
        for x in &l {
            match x.kind {
                Kind::NtCreateX => assert!(open.insert(x.nums[2]), "line {}", x.no),
                Kind::Close => assert!(open.remove(&x.nums[0]), "line {}", x.no),
                _ => {}
            }
        }
        assert!(open.is_empty());
        let bytes = |k: Kind| -> u64 { l.iter().filter(|x| x.kind == k).map(|x| x.nums[2]).sum() };
        let ratio = bytes(Kind::ReadX) as f64 / bytes(Kind::WriteX) as f64;
        assert!((1.2..4.0).contains(&ratio), "{ratio}");
    }
}
