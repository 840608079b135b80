//! faultfs: a FUSE file system for fathom's tests. It passes every operation through to a
//! backing directory and, per file and offset range, injects faults: a fixed or random
//! latency, an error (EIO, ENOSPC, ...), short reads or writes, a write acknowledged but
//! never stored (lost), stored at a wrong offset (misdirected), stored only in part (torn)
//! or with a bit flipped.
//!
//! Files are opened with FUSE's direct I/O, so every read and write reaches faultfs (no
//! page cache in between) and a fault shows at the call that meets it.
//!
//! ```no_run
//! use faultfs::{Fault, FaultFs, Rule};
//! let backing = tempfile_dir();
//! let mnt = FaultFs::mount(&backing, "/tmp/faultfs-mnt").unwrap();
//! mnt.add(Rule::new(Fault::Error { errno: libc::EIO, on: faultfs::Op::Read }).range(4096..8192));
//! // ... run I/O under /tmp/faultfs-mnt; dropping `mnt` unmounts it.
//! # fn tempfile_dir() -> std::path::PathBuf { "/tmp".into() }
//! ```

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo,
    LockOwner, MountOption, OpenFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory,
    ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow, WriteFlags,
};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Which operations a fault applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Reads only.
    Read,
    /// Writes only.
    Write,
    /// Reads and writes.
    Both,
    /// fsync and fdatasync calls (a latency or an error; the rule's range is not
    /// looked at).
    Fsync,
}

/// What a request does, as the rules see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Io {
    Read,
    Write,
    Fsync,
}

impl Op {
    fn covers(self, io: Io) -> bool {
        match self {
            Op::Both => io != Io::Fsync,
            Op::Read => io == Io::Read,
            Op::Write => io == Io::Write,
            Op::Fsync => io == Io::Fsync,
        }
    }
}

/// A fault.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Wait this long (a value between `min` and `max`, uniform) before doing the I/O.
    Latency {
        /// Shortest delay.
        min: Duration,
        /// Longest delay (= min for a fixed delay).
        max: Duration,
        /// Operations delayed.
        on: Op,
    },
    /// Fail with this errno.
    Error {
        /// The errno (libc::EIO, libc::ENOSPC, ...).
        errno: i32,
        /// Operations failed.
        on: Op,
    },
    /// Transfer at most `keep` bytes and report that many.
    Short {
        /// Bytes transferred.
        keep: u32,
        /// Operations shortened.
        on: Op,
    },
    /// Acknowledge a write in full but store nothing (a lost write).
    DropWrite,
    /// Store a write `delta` bytes away from where it was aimed (a misdirected write).
    Misdirect {
        /// Offset error in bytes.
        delta: i64,
    },
    /// Store only the first `keep` bytes of a write but acknowledge all (a torn write).
    Tear {
        /// Bytes stored.
        keep: u32,
    },
    /// Store a write with one bit flipped at file offset `at` (when the write covers it).
    FlipBit {
        /// Absolute file offset of the damaged byte.
        at: u64,
        /// Bit number 0..8.
        bit: u8,
    },
}

/// Where and how often a fault strikes.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Only this file (path relative to the mount, e.g. `job.0.0`); None = every file.
    pub file: Option<String>,
    /// Only I/O overlapping this byte range of the file.
    pub range: Range<u64>,
    /// The fault.
    pub fault: Fault,
    /// Strike at most this many times (None = always).
    pub times: Option<u64>,
    /// Let this many matching I/Os pass untouched first.
    pub skip: u64,
}

impl Rule {
    /// A rule for every file and offset.
    pub fn new(fault: Fault) -> Rule {
        Rule {
            file: None,
            range: 0..u64::MAX,
            fault,
            times: None,
            skip: 0,
        }
    }
    /// Only for `file` (relative to the mount point).
    pub fn file(mut self, file: impl Into<String>) -> Rule {
        self.file = Some(file.into());
        self
    }
    /// Only for I/O overlapping `range`.
    pub fn range(mut self, range: Range<u64>) -> Rule {
        self.range = range;
        self
    }
    /// At most `n` times.
    pub fn times(mut self, n: u64) -> Rule {
        self.times = Some(n);
        self
    }
    /// Only after `n` matching I/Os have passed untouched (e.g. the second write of a
    /// block: `.skip(1)`).
    pub fn skip(mut self, n: u64) -> Rule {
        self.skip = n;
        self
    }
    fn hits(&self, file: &str, off: u64, len: u64) -> bool {
        self.file.as_deref().is_none_or(|f| f == file)
            && off < self.range.end
            && off + len.max(1) > self.range.start
            && self.times != Some(0)
    }
}

/// Counters of what faultfs saw and did.
#[derive(Debug, Default)]
pub struct Counters {
    /// Read requests.
    pub reads: AtomicU64,
    /// Write requests.
    pub writes: AtomicU64,
    /// Faults injected.
    pub injected: AtomicU64,
}

struct Inodes {
    paths: HashMap<u64, PathBuf>,
    by_path: HashMap<PathBuf, u64>,
    next: u64,
}

impl Inodes {
    fn ino(&mut self, rel: &Path) -> u64 {
        if let Some(&i) = self.by_path.get(rel) {
            return i;
        }
        let i = self.next;
        self.next += 1;
        self.paths.insert(i, rel.to_path_buf());
        self.by_path.insert(rel.to_path_buf(), i);
        i
    }
    fn rename(&mut self, from: &Path, to: &Path) {
        if let Some(i) = self.by_path.remove(from) {
            self.by_path.remove(to);
            self.by_path.insert(to.to_path_buf(), i);
            self.paths.insert(i, to.to_path_buf());
        }
    }
}

struct Fs {
    root: PathBuf,
    inodes: Mutex<Inodes>,
    files: Mutex<HashMap<u64, (Arc<File>, String)>>,
    next_fh: AtomicU64,
    rules: Arc<Mutex<Vec<Rule>>>,
    counters: Arc<Counters>,
    rng: Mutex<u64>,
}

const TTL: Duration = Duration::from_secs(0);

fn errno(e: &std::io::Error) -> Errno {
    Errno::from_i32(e.raw_os_error().unwrap_or(libc::EIO))
}

fn attr(ino: u64, md: &std::fs::Metadata) -> FileAttr {
    let t = |s: i64, ns: i64| UNIX_EPOCH + Duration::new(s.max(0) as u64, ns as u32);
    FileAttr {
        ino: INodeNo(ino),
        size: md.len(),
        blocks: md.blocks(),
        atime: t(md.atime(), md.atime_nsec()),
        mtime: t(md.mtime(), md.mtime_nsec()),
        ctime: t(md.ctime(), md.ctime_nsec()),
        crtime: UNIX_EPOCH,
        kind: if md.is_dir() {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: (md.permissions().mode() & 0o7777) as u16,
        nlink: md.nlink() as u32,
        uid: md.uid(),
        gid: md.gid(),
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

impl Fs {
    fn rel(&self, ino: INodeNo) -> Option<PathBuf> {
        self.inodes.lock().unwrap().paths.get(&ino.0).cloned()
    }
    fn child(&self, parent: INodeNo, name: &OsStr) -> Option<PathBuf> {
        self.rel(parent).map(|p| p.join(name))
    }
    fn real(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }
    fn entry(&self, rel: &Path, reply: ReplyEntry) {
        match std::fs::symlink_metadata(self.real(rel)) {
            Ok(md) => {
                let ino = self.inodes.lock().unwrap().ino(rel);
                reply.entry(&TTL, &attr(ino, &md), Generation(0));
            }
            Err(e) => reply.error(errno(&e)),
        }
    }
    /// The faults for this I/O; consumes counted rules.
    fn faults(&self, file: &str, off: u64, len: u64, io: Io) -> Vec<Fault> {
        let mut rules = self.rules.lock().unwrap();
        let mut out = Vec::new();
        for r in rules.iter_mut() {
            let applies = match &r.fault {
                Fault::Latency { on, .. } | Fault::Error { on, .. } => on.covers(io),
                Fault::Short { on, .. } => io != Io::Fsync && on.covers(io),
                _ => io == Io::Write,
            };
            let hits = if io == Io::Fsync {
                r.file.as_deref().is_none_or(|f| f == file) && r.times != Some(0)
            } else {
                r.hits(file, off, len)
            };
            if applies && hits {
                if r.skip > 0 {
                    r.skip -= 1;
                    continue;
                }
                if let Some(t) = &mut r.times {
                    *t -= 1;
                }
                out.push(r.fault.clone());
            }
        }
        if !out.is_empty() {
            self.counters.injected.fetch_add(1, Ordering::Relaxed);
        }
        out
    }
    fn delay(&self, faults: &[Fault]) {
        for f in faults {
            if let Fault::Latency { min, max, .. } = f {
                let span = max.saturating_sub(*min).as_nanos() as u64;
                let extra = if span > 0 {
                    let mut s = self.rng.lock().unwrap();
                    *s ^= *s << 13;
                    *s ^= *s >> 7;
                    *s ^= *s << 17;
                    *s % (span + 1)
                } else {
                    0
                };
                // This delay is a ground truth for latency tests, so it is kept exact: a
                // plain sleep overshoots by the timer slack (50 µs by default), and on a
                // virtual machine a CPU that went idle during the sleep wakes tens of µs
                // late. Delays up to 5 ms are spun whole; longer ones sleep all but the
                // last millisecond, then spin. The spin reads the clock without a pause
                // hint: a hypervisor may take a pause loop for a stuck lock and deschedule
                // the vCPU, overshooting by tens of µs.
                let until = std::time::Instant::now() + *min + Duration::from_nanos(extra);
                let left = until.saturating_duration_since(std::time::Instant::now());
                if left > Duration::from_millis(5) {
                    std::thread::sleep(left - Duration::from_millis(1));
                }
                while std::time::Instant::now() < until {}
            }
        }
    }
}

impl Filesystem for Fs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.child(parent, name) {
            Some(rel) => self.entry(&rel, reply),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        let Some(rel) = self.rel(ino) else {
            return reply.error(Errno::ENOENT);
        };
        match std::fs::symlink_metadata(self.real(&rel)) {
            Ok(md) => reply.attr(&TTL, &attr(ino.0, &md)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let Some(rel) = self.rel(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let real = self.real(&rel);
        let r = (|| -> std::io::Result<std::fs::Metadata> {
            if let Some(m) = mode {
                std::fs::set_permissions(&real, std::fs::Permissions::from_mode(m))?;
            }
            if let Some(s) = size {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&real)?
                    .set_len(s)?;
            }
            std::fs::symlink_metadata(&real)
        })();
        match r {
            Ok(md) => reply.attr(&TTL, &attr(ino.0, &md)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        _umask: u32,
        reply: ReplyEntry,
    ) {
        let Some(rel) = self.child(parent, name) else {
            return reply.error(Errno::ENOENT);
        };
        match std::fs::DirBuilder::new()
            .mode(mode)
            .create(self.real(&rel))
        {
            Ok(()) => self.entry(&rel, reply),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match self
            .child(parent, name)
            .map(|r| std::fs::remove_file(self.real(&r)))
        {
            Some(Ok(())) => reply.ok(),
            Some(Err(e)) => reply.error(errno(&e)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match self
            .child(parent, name)
            .map(|r| std::fs::remove_dir(self.real(&r)))
        {
            Some(Ok(())) => reply.ok(),
            Some(Err(e)) => reply.error(errno(&e)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        _flags: fuser::RenameFlags,
        reply: ReplyEmpty,
    ) {
        let (Some(from), Some(to)) = (self.child(parent, name), self.child(newparent, newname))
        else {
            return reply.error(Errno::ENOENT);
        };
        match std::fs::rename(self.real(&from), self.real(&to)) {
            Ok(()) => {
                self.inodes.lock().unwrap().rename(&from, &to);
                reply.ok()
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        let Some(rel) = self.rel(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let acc = flags.0 & libc::O_ACCMODE;
        let f = std::fs::OpenOptions::new()
            .read(acc != libc::O_WRONLY)
            .write(acc != libc::O_RDONLY)
            .open(self.real(&rel));
        match f {
            Ok(f) => {
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                let name = rel.to_string_lossy().into_owned();
                self.files.lock().unwrap().insert(fh, (Arc::new(f), name));
                reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        _umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let Some(rel) = self.child(parent, name) else {
            return reply.error(Errno::ENOENT);
        };
        let real = self.real(&rel);
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(flags & libc::O_TRUNC != 0)
            .mode(mode)
            .open(&real);
        match f.and_then(|f| f.metadata().map(|m| (f, m))) {
            Ok((f, md)) => {
                let ino = self.inodes.lock().unwrap().ino(&rel);
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                let name = rel.to_string_lossy().into_owned();
                self.files.lock().unwrap().insert(fh, (Arc::new(f), name));
                reply.created(
                    &TTL,
                    &attr(ino, &md),
                    Generation(0),
                    FileHandle(fh),
                    FopenFlags::FOPEN_DIRECT_IO,
                );
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        self.counters.reads.fetch_add(1, Ordering::Relaxed);
        let Some((f, name)) = self.files.lock().unwrap().get(&fh.0).cloned() else {
            return reply.error(Errno::EBADF);
        };
        let faults = self.faults(&name, offset, size as u64, Io::Read);
        self.delay(&faults);
        let mut size = size as usize;
        for fl in &faults {
            match fl {
                Fault::Error { errno, .. } => return reply.error(Errno::from_i32(*errno)),
                Fault::Short { keep, .. } => size = size.min(*keep as usize),
                _ => {}
            }
        }
        let mut buf = vec![0u8; size];
        let mut got = 0;
        while got < size {
            match f.read_at(&mut buf[got..], offset + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => return reply.error(errno(&e)),
            }
        }
        reply.data(&buf[..got]);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        let Some((f, name)) = self.files.lock().unwrap().get(&fh.0).cloned() else {
            return reply.error(Errno::EBADF);
        };
        let faults = self.faults(&name, offset, data.len() as u64, Io::Write);
        self.delay(&faults);
        let mut stored: Vec<u8> = data.to_vec();
        let mut at = offset;
        let mut ack = data.len();
        let mut store = true;
        for fl in &faults {
            match fl {
                Fault::Error { errno, .. } => return reply.error(Errno::from_i32(*errno)),
                Fault::Short { keep, .. } => {
                    ack = ack.min(*keep as usize);
                    stored.truncate(ack);
                }
                Fault::DropWrite => store = false,
                Fault::Misdirect { delta } => at = (at as i64 + delta).max(0) as u64,
                Fault::Tear { keep } => stored.truncate((*keep as usize).min(stored.len())),
                Fault::FlipBit { at: pos, bit } => {
                    if *pos >= offset && *pos < offset + stored.len() as u64 {
                        stored[(*pos - offset) as usize] ^= 1 << (bit % 8);
                    }
                }
                Fault::Latency { .. } => {}
            }
        }
        if store {
            if let Err(e) = f.write_all_at(&stored, at) {
                return reply.error(errno(&e));
            }
        }
        reply.written(ack as u32);
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.files.lock().unwrap().remove(&fh.0);
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        let Some((f, name)) = self.files.lock().unwrap().get(&fh.0).cloned() else {
            return reply.error(Errno::EBADF);
        };
        let faults = self.faults(&name, 0, 0, Io::Fsync);
        self.delay(&faults);
        if let Some(Fault::Error { errno, .. }) =
            faults.iter().find(|f| matches!(f, Fault::Error { .. }))
        {
            return reply.error(Errno::from_i32(*errno));
        }
        let r = if datasync {
            f.sync_data()
        } else {
            f.sync_all()
        };
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let Some(rel) = self.rel(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let rd = match std::fs::read_dir(self.real(&rel)) {
            Ok(rd) => rd,
            Err(e) => return reply.error(errno(&e)),
        };
        let mut entries: Vec<(u64, FileType, std::ffi::OsString)> = vec![
            (ino.0, FileType::Directory, ".".into()),
            (ino.0, FileType::Directory, "..".into()),
        ];
        for e in rd.flatten() {
            let kind = if e.file_type().is_ok_and(|t| t.is_dir()) {
                FileType::Directory
            } else {
                FileType::RegularFile
            };
            let child = self.inodes.lock().unwrap().ino(&rel.join(e.file_name()));
            entries.push((child, kind, e.file_name()));
        }
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let Ok(s) = nix::sys::statvfs::statvfs(&self.root) else {
            return reply.error(Errno::EIO);
        };
        reply.statfs(
            s.blocks(),
            s.blocks_free(),
            s.blocks_available(),
            s.files(),
            s.files_free(),
            s.block_size() as u32,
            s.name_max() as u32,
            s.fragment_size() as u32,
        );
    }
}

/// A mounted faultfs; dropping it unmounts.
pub struct Mounted {
    session: Option<fuser::BackgroundSession>,
    mountpoint: PathBuf,
    rules: Arc<Mutex<Vec<Rule>>>,
    counters: Arc<Counters>,
}

/// Entry point.
pub struct FaultFs;

impl FaultFs {
    /// Mount a pass-through of `backing` at `mountpoint` (created if missing).
    pub fn mount(
        backing: impl AsRef<Path>,
        mountpoint: impl AsRef<Path>,
    ) -> std::io::Result<Mounted> {
        let mountpoint = mountpoint.as_ref().to_path_buf();
        std::fs::create_dir_all(&mountpoint)?;
        let rules: Arc<Mutex<Vec<Rule>>> = Arc::default();
        let counters: Arc<Counters> = Arc::default();
        let mut inodes = Inodes {
            paths: HashMap::new(),
            by_path: HashMap::new(),
            next: 2,
        };
        inodes.paths.insert(1, PathBuf::new());
        inodes.by_path.insert(PathBuf::new(), 1);
        let fs = Fs {
            root: std::fs::canonicalize(backing.as_ref())?,
            inodes: Mutex::new(inodes),
            files: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            rules: rules.clone(),
            counters: counters.clone(),
            rng: Mutex::new(0x2545_F491_4F6C_DD1D),
        };
        let mut cfg = Config::default();
        cfg.mount_options = vec![MountOption::FSName("faultfs".into()), MountOption::RW];
        cfg.n_threads = Some(4);
        let session = fuser::spawn_mount(fs, &mountpoint, &cfg)?;
        Ok(Mounted {
            session: Some(session),
            mountpoint,
            rules,
            counters,
        })
    }
}

impl Mounted {
    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.mountpoint
    }
    /// Add a rule (takes effect for the next I/O).
    pub fn add(&self, rule: Rule) {
        self.rules.lock().unwrap().push(rule);
    }
    /// Remove every rule.
    pub fn clear(&self) {
        self.rules.lock().unwrap().clear();
    }
    /// What faultfs saw.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            let _ = s.umount_and_join();
        }
    }
}
