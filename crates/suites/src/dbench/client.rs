//! One dbench client: its loadfile lines carried out with file-system calls, as dbench's
//! file-system backend does them, each timed.

use super::load::{Kind, Line, KINDS};
use super::Opts;
use std::collections::HashMap;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The extended attribute a Windows server keeps DOS attributes in (dbench -x).
const DOS_ATTRIB: &str = "user.DosAttrib";

/// Count, total and worst time of one kind of operation.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpStat {
    pub count: u64,
    pub total: Duration,
    pub max: Duration,
}

/// What a client shows the monitor while it runs.
#[derive(Default)]
pub struct Shared {
    /// Bytes read and written.
    pub bytes: AtomicU64,
    /// Loadfile lines done.
    pub lines: AtomicU64,
    /// The longest operation since the monitor last looked, in ns.
    pub max_ns: AtomicU64,
    /// The longest operation of the measured part, in ns.
    pub worst_ns: AtomicU64,
    /// Its cleanup is done.
    pub cleaned: AtomicBool,
}

/// The flags the run shares with its clients.
pub struct Run<'a> {
    pub opts: &'a Opts,
    pub lines: &'a [Line],
    /// Set when the measured part starts (after the warmup): the clients start their
    /// tables afresh.
    pub measuring: &'a AtomicBool,
    /// Set when the time is up (or on a signal).
    pub done: &'a AtomicBool,
}

/// The file a line's handle (its first number) stands for.
fn handle<'m>(
    files: &'m HashMap<u64, (std::fs::File, PathBuf)>,
    l: &Line,
) -> Result<&'m (std::fs::File, PathBuf), String> {
    files
        .get(&l.nums[0])
        .ok_or_else(|| format!("handle {} was not found", l.nums[0]))
}

/// A client: its number, its files by handle and its table.
pub struct Client<'a> {
    id: u32,
    run: &'a Run<'a>,
    shared: &'a Shared,
    files: HashMap<u64, (std::fs::File, PathBuf)>,
    pub stats: [OpStat; KINDS.len()],
    measuring: bool,
    buf: Vec<u8>,
    /// For -R: bytes and time when the pace was last checked.
    paced: (u64, Instant),
}

impl<'a> Client<'a> {
    pub fn new(id: u32, run: &'a Run<'a>, shared: &'a Shared) -> Self {
        Client {
            id,
            run,
            shared,
            files: HashMap::new(),
            stats: [OpStat::default(); KINDS.len()],
            measuring: false,
            buf: Vec::new(),
            paced: (0, Instant::now()),
        }
    }

    /// A loadfile path for this client: under the working directory, `client1` standing
    /// for this client's own folder (as dbench: clients are numbered from 0).
    fn path(&self, p: &str) -> PathBuf {
        let own = p.replace("client1", &format!("client{}", self.id));
        let mut s = self.run.opts.dir.as_os_str().to_os_string();
        s.push(own);
        PathBuf::from(s)
    }

    /// Go round the loadfile until the run is done. An error ends the client (as a failed
    /// dbench child), naming the line.
    pub fn run(&mut self) -> Result<(), String> {
        loop {
            for l in self.run.lines {
                if self.run.done.load(Ordering::Relaxed) || crate::stopped() {
                    return Ok(());
                }
                if !self.measuring && self.run.measuring.load(Ordering::Relaxed) {
                    self.measuring = true;
                    self.stats = [OpStat::default(); KINDS.len()];
                }
                let t = Instant::now();
                self.one(l)
                    .map_err(|e| format!("client {} failed at line {}: {e}", self.id, l.no))?;
                let took = t.elapsed();
                let s = &mut self.stats[l.kind.index()];
                s.count += 1;
                s.total += took;
                s.max = s.max.max(took);
                let ns = took.as_nanos() as u64;
                self.shared.max_ns.fetch_max(ns, Ordering::Relaxed);
                if self.measuring {
                    self.shared.worst_ns.fetch_max(ns, Ordering::Relaxed);
                }
                self.shared.lines.fetch_add(1, Ordering::Relaxed);
                self.pace();
            }
        }
    }

    /// -R: sleep so this client's bytes go at the target rate.
    fn pace(&mut self) {
        let rate = self.run.opts.target_rate;
        if rate <= 0.0 {
            return;
        }
        let bytes = self.shared.bytes.load(Ordering::Relaxed);
        let due = (bytes - self.paced.0) as f64 / (rate * 1e6);
        let behind = due - self.paced.1.elapsed().as_secs_f64();
        if behind > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(behind.min(1.0)));
        }
        self.paced = (bytes, Instant::now());
    }

    fn handle(&self, l: &Line) -> Result<&(std::fs::File, PathBuf), String> {
        handle(&self.files, l)
    }

    /// Carry out one line.
    fn one(&mut self, l: &Line) -> Result<(), String> {
        let o = self.run.opts;
        match l.kind {
            Kind::NtCreateX => self.create(l),
            Kind::Close => {
                self.handle(l)?;
                self.files.remove(&l.nums[0]);
                Ok(())
            }
            Kind::WriteX => self.write_x(l),
            Kind::ReadX => self.read_x(l),
            Kind::Unlink | Kind::Rename | Kind::Mkdir | Kind::Rmdir => self.names(l),
            Kind::Deltree => {
                let _ = std::fs::remove_dir_all(self.path(&l.paths[0]));
                Ok(())
            }
            Kind::QPathInfo => {
                self.resolve(&self.path(&l.paths[0]));
                Ok(())
            }
            Kind::QFileInfo => {
                let (f, _) = self.handle(l)?;
                let _ = f.metadata();
                self.xattr_read(f);
                Ok(())
            }
            Kind::SFileInfo => self.set_file_info(l),
            Kind::QFsInfo => {
                let _ = nix::sys::statvfs::statvfs(&o.dir);
                Ok(())
            }
            Kind::Find => {
                self.find(l);
                Ok(())
            }
            Kind::Flush => {
                let (f, _) = self.handle(l)?;
                let _ = f.sync_all();
                Ok(())
            }
            Kind::LockX | Kind::UnlockX => self.lock(l),
        }
    }

    /// WriteX: the line's bytes at its offset (counted, not written, with --fake-io).
    fn write_x(&mut self, l: &Line) -> Result<(), String> {
        let (off, size, want) = (l.nums[1], l.nums[2] as usize, l.nums[3] as usize);
        if !self.run.opts.fake_io {
            if self.buf.len() < size {
                self.buf.resize(size, 0);
            }
            let (f, _) = handle(&self.files, l)?;
            let n = f
                .write_at(&self.buf[..size], off)
                .map_err(|e| format!("write failed on handle {} ({e})", l.nums[0]))?;
            if n != want {
                return Err(format!(
                    "wrote {n} bytes, expected to write {want} bytes on handle {}",
                    l.nums[0]
                ));
            }
            if self.run.opts.fsync {
                let _ = f.sync_all();
            }
        }
        self.shared.bytes.fetch_add(size as u64, Ordering::Relaxed);
        Ok(())
    }

    /// ReadX: the line's bytes from its offset; a short read is dbench's warning, not a
    /// failure.
    fn read_x(&mut self, l: &Line) -> Result<(), String> {
        let (off, size) = (l.nums[1], l.nums[2] as usize);
        if !self.run.opts.fake_io {
            if self.buf.len() < size {
                self.buf.resize(size, 0);
            }
            // (The table and the buffer borrowed apart.)
            let (f, _) = handle(&self.files, l)?;
            let _ = f.read_at(&mut self.buf[..size], off);
        }
        self.shared.bytes.fetch_add(size as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Unlink, Rename, Mkdir and Rmdir: a result other than the line expects is reported.
    fn names(&mut self, l: &Line) -> Result<(), String> {
        let o = self.run.opts;
        let p = self.path(&l.paths[0]);
        self.resolve(&p);
        match l.kind {
            Kind::Unlink => {
                self.expect(l, std::fs::remove_file(&p), "unlink", &p)?;
                self.sync_parent(&p);
            }
            Kind::Rename => {
                let b = self.path(&l.paths[1]);
                self.resolve(&b);
                self.expect(l, std::fs::rename(&p, &b), "rename", &p)?;
                self.sync_parent(&b);
            }
            Kind::Mkdir => {
                if !(o.stat_check && p.exists()) {
                    let _ = std::fs::create_dir(&p);
                }
            }
            _ => {
                if o.stat_check && !p.is_dir() {
                    return Ok(());
                }
                self.expect(l, std::fs::remove_dir(&p), "rmdir", &p)?;
                self.sync_parent(&p);
            }
        }
        Ok(())
    }

    /// SFileInfo: as dbench, the file's times set back a little, and its xattr written.
    fn set_file_info(&mut self, l: &Line) -> Result<(), String> {
        let (f, p) = self.handle(l)?;
        self.xattr_read(f);
        if let Ok(md) = f.metadata() {
            use std::os::unix::fs::MetadataExt;
            let t = |s: i64| nix::sys::time::TimeVal::new(s, 0);
            let _ = nix::sys::stat::utimes(p, &t(md.atime() - 10), &t(md.mtime() - 12));
            if !md.is_dir() {
                self.xattr_write(f);
            }
        }
        Ok(())
    }

    /// Find: a wildcard name lists its folder (up to the line's count of entries).
    fn find(&mut self, l: &Line) {
        let p = self.path(&l.paths[0]);
        self.resolve(&p);
        let name = p.to_string_lossy();
        if name.contains(['<', '>', '*', '?', '"']) {
            if let Some(dir) = p.parent() {
                if let Ok(rd) = std::fs::read_dir(dir) {
                    let _ = rd.take(l.nums[1] as usize).count();
                }
            }
        }
    }

    /// LockX and UnlockX: a POSIX record lock on the line's range (waiting for it).
    fn lock(&self, l: &Line) -> Result<(), String> {
        let (f, _) = self.handle(l)?;
        let lock = libc::flock {
            l_type: if l.kind == Kind::LockX {
                libc::F_WRLCK as i16
            } else {
                libc::F_UNLCK as i16
            },
            l_whence: libc::SEEK_SET as i16,
            l_start: l.nums[1] as i64,
            l_len: l.nums[2] as i64,
            l_pid: 0,
        };
        let _ = nix::fcntl::fcntl(f, nix::fcntl::FcntlArg::F_SETLKW(&lock));
        Ok(())
    }

    /// NTCreateX: open (or create, or truncate, or make the directory) as the line's
    /// create options and disposition say; a result other than expected is reported.
    fn create(&mut self, l: &Line) -> Result<(), String> {
        const FILE_DIRECTORY_FILE: u64 = 0x1;
        const FILE_CREATE: u64 = 2;
        const FILE_OVERWRITE: u64 = 4;
        const FILE_OVERWRITE_IF: u64 = 5;
        let o = self.run.opts;
        let (copts, disp, fnum) = (l.nums[0], l.nums[1], l.nums[2]);
        let p = self.path(&l.paths[0]);
        self.resolve(&p);
        let mut oo = std::fs::OpenOptions::new();
        oo.read(true).mode(0o600);
        let mut flags = if o.sync { libc::O_SYNC } else { 0 };
        let dir = copts & FILE_DIRECTORY_FILE != 0;
        if dir {
            if !(o.stat_check && p.exists()) {
                let _ = std::fs::create_dir(&p);
            }
            flags |= libc::O_DIRECTORY;
        } else {
            oo.write(true);
            let create = match disp {
                FILE_CREATE => !(o.stat_check && p.exists()),
                FILE_OVERWRITE | FILE_OVERWRITE_IF => {
                    oo.truncate(true);
                    true
                }
                _ => false,
            };
            oo.create(create);
        }
        oo.custom_flags(flags);
        let mut r = oo.open(&p);
        if matches!(&r, Err(e) if e.raw_os_error() == Some(libc::EISDIR)) {
            r = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY)
                .open(&p);
        }
        match (r, l.ok) {
            (Ok(f), true) => {
                if !dir {
                    self.xattr_write(&f);
                }
                self.files.insert(fnum, (f, p));
            }
            (Err(e), true) => println!(
                "[{}] open {} failed for handle {fnum} ({e})",
                l.no,
                p.display()
            ),
            (Ok(_), false) => println!(
                "[{}] open {} succeeded for handle {fnum}",
                l.no,
                p.display()
            ),
            (Err(_), false) => {}
        }
        Ok(())
    }

    /// A call whose success or failure the line predicts: a different outcome fails the
    /// client, as in dbench.
    fn expect(&self, l: &Line, r: std::io::Result<()>, what: &str, p: &Path) -> Result<(), String> {
        match (r, l.ok) {
            (Ok(()), true) | (Err(_), false) => Ok(()),
            (Err(e), true) => Err(format!(
                "{what} {} failed ({e}) - expected success",
                p.display()
            )),
            (Ok(()), false) => Err(format!(
                "{what} {} succeeded - expected it to fail",
                p.display()
            )),
        }
    }

    /// dbench's name resolution: a stat, and when it fails a case-blind look through the
    /// folder (as a Windows server would), unless --no-resolve.
    fn resolve(&self, p: &Path) {
        if std::fs::metadata(p).is_ok() || self.run.opts.no_resolve {
            return;
        }
        let (Some(dir), Some(name)) = (p.parent(), p.file_name()) else {
            return;
        };
        if let Ok(rd) = std::fs::read_dir(dir) {
            let want = name.to_string_lossy().to_lowercase();
            let _ = rd
                .flatten()
                .any(|e| e.file_name().to_string_lossy().to_lowercase() == want);
        }
    }

    /// -S: the folder of a changed name to stable storage.
    fn sync_parent(&self, p: &Path) {
        if !self.run.opts.sync_dir {
            return;
        }
        if let Some(d) = p.parent() {
            if let Ok(f) = std::fs::File::open(d) {
                let _ = f.sync_all();
            }
        }
    }

    /// -x: the DOS attribute a Windows server keeps in an extended attribute.
    fn xattr_write(&self, f: &std::fs::File) {
        if !self.run.opts.xattr {
            return;
        }
        let v = [0u8; 44];
        let _ = rustix::fs::fsetxattr(f, DOS_ATTRIB, &v, rustix::fs::XattrFlags::empty());
    }

    fn xattr_read(&self, f: &std::fs::File) {
        if !self.run.opts.xattr {
            return;
        }
        let mut v = [0u8; 44];
        let _ = rustix::fs::fgetxattr(f, DOS_ATTRIB, &mut v);
    }

    /// Remove this client's folder (dbench's cleanup).
    pub fn cleanup(&self) {
        let mut d = self.run.opts.dir.as_os_str().to_os_string();
        d.push(format!("/clients/client{}", self.id));
        let _ = std::fs::remove_dir_all(Path::new(&d));
        self.shared.cleaned.store(true, Ordering::Relaxed);
    }
}
