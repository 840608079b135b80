//! Metadata engines with fio's semantics, and the file-system operations they and
//! fathom's `filetree` workload are made of ([`fsop`]).
//!
//! fio's `filecreate`, `filestat`, `filedelete`, `dircreate`, `dirstat` and `dirdelete`
//! move no data: each time the runner "opens" a file (its first I/O, and again after
//! every full pass over it) the engine does the file's operation, and that operation's
//! time is the job's completion latency. The job's I/Os are fake (they count, in the
//! job's direction, but take no time and record no latency), exactly as fio counts them.

use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Instant;

pub use fathom_job::StatType;

/// The operation of one fio metadata engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    FileCreate,
    FileStat,
    FileDelete,
    DirCreate,
    DirStat,
    DirDelete,
}

impl Kind {
    pub(crate) fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "filecreate" => Kind::FileCreate,
            "filestat" => Kind::FileStat,
            "filedelete" => Kind::FileDelete,
            "dircreate" => Kind::DirCreate,
            "dirstat" => Kind::DirStat,
            "dirdelete" => Kind::DirDelete,
            _ => return None,
        })
    }
    fn engine(self) -> &'static str {
        match self {
            Kind::FileCreate => "filecreate",
            Kind::FileStat => "filestat",
            Kind::FileDelete => "filedelete",
            Kind::DirCreate => "dircreate",
            Kind::DirStat => "dirstat",
            Kind::DirDelete => "dirdelete",
        }
    }
    /// The operation's name in the per-operation results.
    fn op(self) -> &'static str {
        match self {
            Kind::FileCreate => "create",
            Kind::FileStat => "stat",
            Kind::FileDelete => "delete",
            Kind::DirCreate => "mkdir",
            Kind::DirStat => "dirstat",
            Kind::DirDelete => "rmdir",
        }
    }
}

/// One of fio's metadata engines.
pub struct MetaEngine {
    kind: Kind,
    stat_type: StatType,
    paths: Vec<CString>,
    /// The last parent directory known to exist.
    checked_dir: Option<std::path::PathBuf>,
}

impl MetaEngine {
    pub(crate) fn new(kind: Kind, stat_type: StatType) -> MetaEngine {
        MetaEngine {
            kind,
            stat_type,
            paths: Vec::new(),
            checked_dir: None,
        }
    }
}

impl IoEngine for MetaEngine {
    fn name(&self) -> &'static str {
        self.kind.engine()
    }
    fn caps(&self) -> Caps {
        Caps {
            is_async: false,
            // filestat and filedelete work on files fio lays out first; the others make
            // their own (or, for dirstat/dirdelete, make the directories at open).
            diskless: !matches!(self.kind, Kind::FileStat | Kind::FileDelete),
            no_trim: true,
            no_direct: true,
            reopen: false,
            metadata: Some(self.kind.op()),
            no_data: false,
        }
    }
    fn open_file(&mut self, path: &Path, _opts: &OpenOptions) -> io::Result<usize> {
        // The parent directory, checked once for a run of files in it.
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if self.checked_dir.as_deref() != Some(parent) {
                if !parent.is_dir() {
                    std::fs::create_dir_all(parent).map_err(|e| fsop::named(e, "mkdir", parent))?;
                }
                self.checked_dir = Some(parent.to_path_buf());
            }
        }
        if matches!(self.kind, Kind::DirStat | Kind::DirDelete) {
            // The directories to stat or remove are made before the clock starts.
            match std::fs::create_dir(path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(fsop::named(e, "mkdir", path)),
            }
        }
        self.paths.push(fsop::cpath(path)?);
        Ok(self.paths.len() - 1)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        // A fake I/O: counted, never done.
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res: io.len as i64,
            short: 0,
        }))
    }
    fn file_op(&mut self, file: usize) -> io::Result<u64> {
        let p = &self.paths[file];
        let t = Instant::now();
        let r = match self.kind {
            Kind::FileCreate => fsop::create_c(p, libc::O_RDWR).and_then(fsop::close),
            Kind::FileStat | Kind::DirStat => fsop::stat_c(p, self.stat_type),
            Kind::FileDelete => fsop::unlink_c(p),
            Kind::DirCreate => fsop::mkdir_c(p),
            Kind::DirDelete => fsop::rmdir_c(p),
        };
        let ns = t.elapsed().as_nanos() as u64;
        match r {
            Ok(()) => Ok(ns),
            Err(e) => Err(fsop::named(
                e,
                self.kind.op(),
                Path::new(std::ffi::OsStr::from_bytes(p.as_bytes())),
            )),
        }
    }
    fn sync_range(&mut self, _file: usize, _offset: u64, _len: u64, _flags: u32) -> io::Result<()> {
        Ok(())
    }
    fn sync_file(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.paths.clear();
        Ok(())
    }
}

/// File-system operations on paths, each one system call (or one open-transfer-close
/// sequence), with the errno kept in the error.
pub mod fsop {
    use super::StatType;
    use nix::fcntl::{OFlag, AT_FDCWD};
    use nix::sys::stat::Mode;
    use std::ffi::CString;
    use std::io;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// A path as a C string.
    pub fn cpath(path: &Path) -> io::Result<CString> {
        CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file name contains NUL"))
    }

    /// `e` with the operation and path in its text, errno kept.
    pub fn named(e: io::Error, op: &str, path: &Path) -> io::Error {
        let errno = crate::errno_of(&e).unwrap_or(libc::EIO);
        io::Error::new(
            e.kind(),
            crate::sys::OsText {
                errno,
                text: format!(
                    "{op} {}: {}",
                    path.display(),
                    io::Error::from_raw_os_error(errno)
                ),
            },
        )
    }

    /// open(O_CREAT | `mode`, 0600).
    pub fn create_c(p: &CString, mode: libc::c_int) -> io::Result<OwnedFd> {
        let flags = OFlag::from_bits_retain(libc::O_CREAT | libc::O_CLOEXEC | mode);
        Ok(nix::fcntl::open(
            p.as_c_str(),
            flags,
            Mode::from_bits_truncate(0o600),
        )?)
    }

    /// open(2) with `flags`.
    pub fn open_c(p: &CString, flags: libc::c_int) -> io::Result<OwnedFd> {
        let flags = OFlag::from_bits_retain(flags | libc::O_CLOEXEC);
        Ok(nix::fcntl::open(p.as_c_str(), flags, Mode::empty())?)
    }

    /// close(2), its error reported.
    pub fn close(fd: OwnedFd) -> io::Result<()> {
        crate::sys::close(fd)
    }

    /// stat(2), lstat(2) or statx(2).
    pub fn stat_c(p: &CString, how: StatType) -> io::Result<()> {
        match how {
            StatType::Stat => nix::sys::stat::stat(p.as_c_str()).map(drop)?,
            StatType::Lstat => nix::sys::stat::lstat(p.as_c_str()).map(drop)?,
            StatType::Statx => {
                // nix has no statx; rustix's is safe.
                rustix::fs::statx(
                    rustix::fs::CWD,
                    p.as_c_str(),
                    rustix::fs::AtFlags::empty(),
                    rustix::fs::StatxFlags::ALL,
                )
                .map(drop)?
            }
        }
        Ok(())
    }

    /// unlink(2).
    pub fn unlink_c(p: &CString) -> io::Result<()> {
        Ok(nix::unistd::unlink(p.as_c_str())?)
    }

    /// mkdir(2), mode 0700.
    pub fn mkdir_c(p: &CString) -> io::Result<()> {
        Ok(nix::unistd::mkdir(p.as_c_str(), Mode::S_IRWXU)?)
    }

    /// rmdir(2) (as unlinkat(AT_REMOVEDIR)).
    pub fn rmdir_c(p: &CString) -> io::Result<()> {
        use nix::unistd::{unlinkat, UnlinkatFlags};
        Ok(unlinkat(AT_FDCWD, p.as_c_str(), UnlinkatFlags::RemoveDir)?)
    }

    /// rename(2) (as renameat in the working directory).
    pub fn rename_c(from: &CString, to: &CString) -> io::Result<()> {
        Ok(nix::fcntl::renameat(
            AT_FDCWD,
            from.as_c_str(),
            AT_FDCWD,
            to.as_c_str(),
        )?)
    }

    /// Set access and modification times to now (utimensat(2)): a setattr.
    pub fn touch_c(p: &CString) -> io::Result<()> {
        use nix::sys::stat::{utimensat, UtimensatFlags};
        use nix::sys::time::TimeSpec;
        let now = TimeSpec::UTIME_NOW;
        Ok(utimensat(
            AT_FDCWD,
            p.as_c_str(),
            &now,
            &now,
            UtimensatFlags::FollowSymlink,
        )?)
    }

    /// access(2) for reading.
    pub fn access_c(p: &CString) -> io::Result<()> {
        Ok(nix::unistd::access(
            p.as_c_str(),
            nix::unistd::AccessFlags::R_OK,
        )?)
    }

    /// Copy all of `from` into `to` from their starts, in chunks of `buf.len()`; the bytes
    /// copied.
    pub fn copy_fd(from: impl AsFd, to: impl AsFd, buf: &mut [u8]) -> io::Result<u64> {
        let mut done = 0u64;
        loop {
            let r = nix::sys::uio::pread(from.as_fd(), buf, done as i64)?;
            if r == 0 {
                return Ok(done);
            }
            let mut w = 0;
            while w < r {
                let n = nix::sys::uio::pwrite(to.as_fd(), &buf[w..r], (done + w as u64) as i64)?;
                if n == 0 {
                    return Err(io::Error::from_raw_os_error(libc::EIO));
                }
                w += n;
            }
            done += r as u64;
        }
    }

    /// Write `len` bytes from the start of `fd` in chunks of at most `buf.len()`.
    pub fn write_fd(fd: impl AsFd, buf: &[u8], len: u64) -> io::Result<u64> {
        let mut done = 0u64;
        while done < len {
            let n = (len - done).min(buf.len() as u64) as usize;
            let r = nix::sys::uio::pwrite(fd.as_fd(), &buf[..n], done as i64)?;
            if r == 0 {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            done += r as u64;
        }
        Ok(done)
    }

    /// Read `fd` from its start to its end (or `limit` bytes) in chunks of `buf.len()`.
    pub fn read_fd(fd: impl AsFd, buf: &mut [u8], limit: u64) -> io::Result<u64> {
        let mut done = 0u64;
        while done < limit {
            let n = (limit - done).min(buf.len() as u64) as usize;
            let r = nix::sys::uio::pread(fd.as_fd(), &mut buf[..n], done as i64)?;
            if r == 0 {
                break;
            }
            done += r as u64;
        }
        Ok(done)
    }
}

/// fio's `falloc` and `ftruncate` engines. falloc: each I/O is a fallocate(2) of its
/// range (a write allocates, a read allocates keeping the size, a trim punches a hole).
/// ftruncate: each write truncates (or extends) the file to the I/O's offset; reads and
/// trims are invalid (EINVAL), as in fio.
pub struct FileCall {
    truncate: bool,
    files: crate::sys::Fds,
}

impl FileCall {
    /// The falloc engine.
    pub fn falloc() -> FileCall {
        FileCall {
            truncate: false,
            files: Default::default(),
        }
    }
    /// The ftruncate engine.
    pub fn ftruncate() -> FileCall {
        FileCall {
            truncate: true,
            files: Default::default(),
        }
    }
}

impl IoEngine for FileCall {
    fn name(&self) -> &'static str {
        if self.truncate {
            "ftruncate"
        } else {
            "falloc"
        }
    }
    fn caps(&self) -> Caps {
        Caps {
            // direct=1 opens with O_DIRECT, as fio does; the calls move no data.
            no_direct: false,
            no_trim: self.truncate,
            reopen: true,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        // falloc makes its files (fio's falloc opens with O_CREAT).
        let o = OpenOptions {
            write: opts.write || !self.truncate,
            create: opts.create || !self.truncate,
            ..*opts
        };
        self.files.open(path, &o)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let Some(fd) = self.files.borrow(io.file) else {
            return Ok(Queued::Done(Completion {
                tag: io.tag,
                res: -(libc::EBADF as i64),
                short: 0,
            }));
        };
        let r = if self.truncate {
            if io.ddir != crate::Ddir::Write {
                return Ok(Queued::Done(Completion {
                    tag: io.tag,
                    res: -(libc::EINVAL as i64),
                    short: 0,
                }));
            }
            nix::unistd::ftruncate(fd, io.offset as i64)
        } else {
            use nix::fcntl::FallocateFlags as F;
            let mode = match io.ddir {
                crate::Ddir::Read => F::FALLOC_FL_KEEP_SIZE,
                crate::Ddir::Write => F::empty(),
                crate::Ddir::Trim => F::FALLOC_FL_PUNCH_HOLE | F::FALLOC_FL_KEEP_SIZE,
            };
            nix::fcntl::fallocate(fd, mode, io.offset as i64, io.len as i64)
        };
        let res = match r {
            Ok(()) => io.len as i64,
            Err(e) => -(e as i64),
        };
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short: 0,
        }))
    }
    fn close_file(&mut self, file: usize) -> io::Result<()> {
        self.files.close(file)
    }
    fn reopen_file(&mut self, file: usize, path: &Path, opts: &OpenOptions) -> io::Result<()> {
        let o = OpenOptions {
            write: opts.write || !self.truncate,
            create: opts.create || !self.truncate,
            ..*opts
        };
        self.files.reopen(file, path, &o)
    }
    fn raw_fd(&self, file: usize) -> Option<i32> {
        Some(self.files[file])
    }
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        self.files.sync(file, data_only)
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.files.close_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_engine_does_its_operation_once_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("sub/a");
        let mut c = MetaEngine::new(Kind::FileCreate, StatType::Stat);
        let i = c.open_file(&f, &OpenOptions::default()).unwrap();
        assert!(!f.exists(), "open alone creates nothing");
        c.file_op(i).unwrap();
        assert!(f.is_file());
        for how in [StatType::Stat, StatType::Lstat, StatType::Statx] {
            let mut s = MetaEngine::new(Kind::FileStat, how);
            let i = s.open_file(&f, &OpenOptions::default()).unwrap();
            s.file_op(i).unwrap();
        }
        let mut d = MetaEngine::new(Kind::FileDelete, StatType::Stat);
        let i = d.open_file(&f, &OpenOptions::default()).unwrap();
        d.file_op(i).unwrap();
        assert!(!f.exists());
        let e = d.file_op(i).unwrap_err();
        assert_eq!(crate::errno_of(&e), Some(libc::ENOENT));
        assert!(e.to_string().contains("delete"), "{e}");

        let g = dir.path().join("d1");
        let mut m = MetaEngine::new(Kind::DirCreate, StatType::Stat);
        let i = m.open_file(&g, &OpenOptions::default()).unwrap();
        m.file_op(i).unwrap();
        assert!(g.is_dir());
        let h = dir.path().join("d2");
        let mut r = MetaEngine::new(Kind::DirDelete, StatType::Stat);
        let i = r.open_file(&h, &OpenOptions::default()).unwrap();
        assert!(
            h.is_dir(),
            "dirdelete makes its directories before the clock"
        );
        r.file_op(i).unwrap();
        assert!(!h.exists());
    }

    #[test]
    fn falloc_and_ftruncate_change_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        let mut e = FileCall::falloc();
        let i = e.open_file(&f, &OpenOptions::default()).unwrap();
        let io = IoUnit {
            ddir: crate::Ddir::Write,
            file: i,
            offset: 0,
            buf: std::ptr::null_mut(),
            len: 1 << 20,
            tag: 0,
            ioprio: 0,
        };
        // SAFETY: falloc never touches the buffer.
        let r = unsafe { e.queue(&io) }.unwrap();
        assert!(matches!(r, Queued::Done(c) if c.res == 1 << 20));
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 1 << 20);
        e.close_files().unwrap();
        let mut t = FileCall::ftruncate();
        let i = t
            .open_file(
                &f,
                &OpenOptions {
                    write: true,
                    ..Default::default()
                },
            )
            .unwrap();
        let io = IoUnit {
            offset: 4096,
            file: i,
            ..io
        };
        // SAFETY: ftruncate never touches the buffer.
        unsafe { t.queue(&io) }.unwrap();
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 4096);
        let rd = IoUnit {
            ddir: crate::Ddir::Read,
            ..io
        };
        // SAFETY: as above.
        let r = unsafe { t.queue(&rd) }.unwrap();
        assert!(matches!(r, Queued::Done(c) if c.res == -(libc::EINVAL as i64)));
    }
}
