//! fathom-engine: the [`IoEngine`] trait, one file per engine, and what engines need around
//! them: aligned buffers ([`AlignedBuf`]), data patterns and file layout ([`layout`]).
//!
//! An engine opens files, queues I/Os, commits a batch and reaps completions. Synchronous
//! engines (`sync`, `psync`, `null`) do the I/O inside [`IoEngine::queue`] and return it
//! completed; asynchronous engines return it queued and hand it back from
//! [`IoEngine::reap`]. The one place that maps an engine name to an engine is [`create`].
//!
//! One file per engine, except the five synchronous fd engines (`sync`, `psync`, `vsync`,
//! `pvsync`, `pvsync2`), which share `fd.rs`: one transfer path (short transfers, EINTR,
//! trims) and a choice of the system call. `sys.rs` holds the file table and the calls
//! every fd engine makes.
//!
//! ```
//! use fathom_engine::{create, AlignedBuf, IoUnit, OpenOptions, Queued};
//! use fathom_job::Ddir;
//! let mut engine = create("null").unwrap();
//! let f = engine.open_file("unused".as_ref(), &OpenOptions::default()).unwrap();
//! let mut buf = AlignedBuf::new(4096, 4096);
//! let io = IoUnit { ddir: Ddir::Read, file: f, offset: 0, buf: buf.as_mut_ptr(), len: 4096, tag: 0, ioprio: 0 };
//! // SAFETY: `buf` outlives the I/O, which the null engine completes at once.
//! let done = unsafe { engine.queue(&io) }.unwrap();
//! assert!(matches!(done, Queued::Done(c) if c.res == 4096));
//! ```
#![deny(missing_docs)]

/// The file-table methods of an engine whose files are a `sys::Fds` in `self.fds`:
/// open, close, reopen, raw fd, sync and close-all, all by slot.
macro_rules! fd_file_methods {
    () => {
        fn open_file(
            &mut self,
            path: &std::path::Path,
            opts: &$crate::OpenOptions,
        ) -> std::io::Result<usize> {
            self.fds.open(path, opts)
        }
        fn close_file(&mut self, file: usize) -> std::io::Result<()> {
            self.fds.close(file)
        }
        fn add_closed_file(
            &mut self,
            _path: &std::path::Path,
            _opts: &$crate::OpenOptions,
        ) -> std::io::Result<usize> {
            Ok(self.fds.add_closed())
        }
        fn reopen_file(
            &mut self,
            file: usize,
            path: &std::path::Path,
            opts: &$crate::OpenOptions,
        ) -> std::io::Result<()> {
            self.fds.reopen(file, path, opts)
        }
        fn raw_fd(&self, file: usize) -> Option<i32> {
            Some(self.fds[file])
        }
        fn sync_file(&mut self, file: usize, data_only: bool) -> std::io::Result<()> {
            self.fds.sync(file, data_only)
        }
        fn close_files(&mut self) -> std::io::Result<()> {
            self.fds.close_all()
        }
    };
}

mod buf;
pub mod cpuio;
mod fd;
mod io_uring;
pub mod layout;
mod libaio;
mod meta;
mod mmap;
mod null;
mod pattern;
mod posixaio;
mod sys;
mod tokio;

pub use buf::{fill_random, AlignedBuf};
pub use meta::{fsop, StatType};
pub use pattern::{repeat as repeat_pattern, BufferContent, DedupeSet};
pub use sys::{device_size, errno_of, file_size, logical_block_size, set_write_hint, write_hint};

pub use fathom_job::Ddir;
use std::io;
use std::path::Path;

/// What an engine can do; the runner checks a job against these before the clock starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// I/Os complete later, through `reap` (the runner records slat for these).
    pub is_async: bool,
    /// The engine moves no data and needs no files (fio's diskless engines: null).
    pub diskless: bool,
    /// The engine cannot trim.
    pub no_trim: bool,
    /// The engine cannot do O_DIRECT (its data path copies through buffers it owns).
    pub no_direct: bool,
    /// Files can be closed and opened again one at a time ([`IoEngine::close_file`]), so
    /// `openfiles` can keep fewer files open than a job has.
    pub reopen: bool,
    /// A metadata engine (fio's filecreate, filestat, …) and the name of its operation:
    /// the runner calls [`IoEngine::file_op`] each time it opens a file, records that
    /// operation's time as the completion latency, and counts the job's I/Os without
    /// timing them (they are fake).
    pub metadata: Option<&'static str>,
    /// The I/Os move no bytes (fio's FIO_NOIO engines: cpuio): they are counted and timed,
    /// their bytes are not.
    pub no_data: bool,
}

impl Caps {
    /// An asynchronous engine over the job's file descriptors (libaio, posixaio):
    /// completions come through `reap`, and files can be reopened one at a time.
    pub const fn async_fd() -> Caps {
        Caps {
            is_async: true,
            diskless: false,
            no_trim: false,
            no_direct: false,
            reopen: true,
            metadata: None,
            no_data: false,
        }
    }
}

/// How to open a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// Open for writing too (the job writes or trims).
    pub write: bool,
    /// O_DIRECT.
    pub direct: bool,
    /// Create the file if missing.
    pub create: bool,
    /// O_SYNC.
    pub sync: bool,
    /// O_DSYNC.
    pub dsync: bool,
    /// Access advice given to the kernel on each open (fio's fadvise_hint): readahead
    /// policy for a file, the same advice with madvise for a mapping.
    pub advice: Advice,
}

/// fio's `fadvise_hint`, resolved: the advice given for a file when it is opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Advice {
    /// None given.
    #[default]
    None,
    /// POSIX_FADV_RANDOM (no readahead) / MADV_RANDOM.
    Random,
    /// POSIX_FADV_SEQUENTIAL (more readahead) / MADV_SEQUENTIAL.
    Sequential,
    /// POSIX_FADV_NOREUSE.
    NoReuse,
}

/// One I/O handed to an engine.
#[derive(Clone, Copy, Debug)]
pub struct IoUnit {
    /// Direction.
    pub ddir: Ddir,
    /// File index as returned by [`IoEngine::open_file`].
    pub file: usize,
    /// Byte offset.
    pub offset: u64,
    /// Data buffer: the source of a write, the destination of a read.
    pub buf: *mut u8,
    /// Length in bytes.
    pub len: usize,
    /// Caller's tag, returned in the completion.
    pub tag: u64,
    /// The I/O's own priority (an ioprio value, class << 13 | level; 0: the thread's),
    /// which libaio and io_uring put in the command (fio's cmdprio); others ignore it.
    pub ioprio: u16,
}

// SAFETY: an IoUnit is a description of an I/O; the buffer it points to is owned by the
// thread that runs the engine, which is the only one that dereferences it.
unsafe impl Send for IoUnit {}

/// A finished I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The tag of the [`IoUnit`].
    pub tag: u64,
    /// Bytes transferred (≥ 0), or a negated errno.
    pub res: i64,
    /// Times the I/O came back short and the remainder was reissued.
    pub short: u32,
}

/// What [`IoEngine::queue`] did with an I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    /// Done already (synchronous engines).
    Done(Completion),
    /// Queued; it will come back from [`IoEngine::reap`].
    Queued,
}

/// A buffer the runner owns for the engine's whole life (one per I/O slot), offered to
/// engines that register buffers with the kernel (io_uring `fixedbufs`).
#[derive(Clone, Copy, Debug)]
pub struct EngineBuf {
    /// Start of the buffer.
    pub ptr: *mut u8,
    /// Length in bytes.
    pub len: usize,
}

// SAFETY: a description of memory the runner owns; only the engine's thread uses it.
unsafe impl Send for EngineBuf {}

/// What an engine is created with: the job's engine-specific options (fio's per-engine
/// options, as parsed) and what the runner derives from the rest of the job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// `hipri`, `fixedbufs`, `registerfiles`, `sqthread_poll`, `nonvectored`, … as the
    /// job file sets them.
    pub job: fathom_job::EngineOpts,
    /// Completions are polled without waiting (`iodepth_batch_complete_min=0`).
    pub poll_reap: bool,
}

/// Errors of engine selection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// No engine of that name.
    #[error("unknown ioengine '{name}'; available: {available}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated names.
        available: String,
    },
    /// fio has the engine but fathom does not run it yet.
    #[error("ioengine '{name}' is not supported yet; available: {available}")]
    NotSupported {
        /// The name asked for.
        name: String,
        /// Comma-separated names.
        available: String,
    },
}

/// An I/O engine. One instance per job clone; it is used by one thread only.
pub trait IoEngine: Send {
    /// The engine's name.
    fn name(&self) -> &'static str;
    /// Its capabilities.
    fn caps(&self) -> Caps;
    /// Prepare for `depth` I/Os in flight; `bufs` are the runner's buffers, one per slot
    /// (an I/O's `tag` is its slot number).
    ///
    /// # Safety
    /// The buffers must stay valid (allocated, not moved) until the engine is dropped:
    /// engines may register them with the kernel.
    unsafe fn setup(&mut self, _depth: usize, _bufs: &[EngineBuf]) -> io::Result<()> {
        Ok(())
    }
    /// Check, before anything is set up, that the engine can run here at all (e.g. the
    /// kernel offers io_uring). The error says what is missing and what to use instead.
    fn probe(&self) -> io::Result<()> {
        Ok(())
    }
    /// Open a file; returns the index later I/Os refer to.
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize>;
    /// Queue one I/O.
    ///
    /// # Safety
    /// `io.buf` must point to `io.len` bytes, valid for reads (writes) and writes (reads),
    /// suitably aligned for the file's open mode, and must stay valid and untouched until
    /// the I/O is returned completed, by this call or by [`IoEngine::reap`].
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued>;
    /// Submit what was queued (async engines). Returns how many were submitted.
    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }
    /// Wait for at least `min` completions and append at most `max` of them to `out`
    /// (async engines). Returns how many were appended.
    fn reap(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }
    /// Wait up to `wait` for at least one completion and take at most `max` (a rate-limited
    /// job waiting for its next I/O's time reaps what completes meanwhile, so each
    /// completion is stamped when it happens). Engines without a timed wait poll, and
    /// when nothing has completed nap up to 100 µs and poll again (no busy loop).
    fn reap_until(
        &mut self,
        max: usize,
        out: &mut Vec<Completion>,
        wait: std::time::Duration,
    ) -> io::Result<usize> {
        let n = self.reap(0, max, out)?;
        if n > 0 || wait.is_zero() {
            return Ok(n);
        }
        std::thread::sleep(wait.min(std::time::Duration::from_micros(100)));
        self.reap(0, max, out)
    }
    /// Metadata engines ([`Caps::metadata`]): do the operation on file `file` (create it,
    /// stat it, remove it, …) and return how long the operation itself took, in ns.
    fn file_op(&mut self, _file: usize) -> io::Result<u64> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "not a metadata engine",
        ))
    }
    /// Close one file (no I/O of it in flight); its index stays valid for
    /// [`IoEngine::reopen_file`]. Engines with [`Caps::reopen`] implement this.
    fn close_file(&mut self, _file: usize) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("the {} engine keeps its files open", self.name()),
        ))
    }
    /// Give a file an index without keeping it open (`openfiles` below the number of
    /// files): [`IoEngine::reopen_file`] opens it when it is used. Engines with
    /// [`Caps::reopen`] only; by default the file is opened and closed again.
    fn add_closed_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        let i = self.open_file(path, opts)?;
        self.close_file(i)?;
        Ok(i)
    }
    /// Open again, at the same index, a file closed with [`IoEngine::close_file`].
    fn reopen_file(&mut self, _file: usize, _path: &Path, _opts: &OpenOptions) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("the {} engine keeps its files open", self.name()),
        ))
    }
    /// The file descriptor of file `file`, for engines that have one.
    fn raw_fd(&self, _file: usize) -> Option<i32> {
        None
    }
    /// sync_file_range(2) over `len` bytes at `offset` of a file with `flags`
    /// (SYNC_FILE_RANGE_WAIT_BEFORE = 1, WRITE = 2, WAIT_AFTER = 4).
    fn sync_range(&mut self, file: usize, offset: u64, len: u64, flags: u32) -> io::Result<()> {
        let fd = self.raw_fd(file).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "the {} engine has no file descriptor for sync_file_range",
                    self.name()
                ),
            )
        })?;
        // SAFETY: a plain system call on an fd the engine owns.
        let r =
            unsafe { libc::sync_file_range(fd, offset as i64, len as i64, flags as libc::c_uint) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    /// fsync (or fdatasync when `data_only`) a file.
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()>;
    /// Close every file.
    fn close_files(&mut self) -> io::Result<()>;
}

/// Engines fathom runs.
pub const ENGINES: &[(&str, &str)] = &[
    ("psync", "pread(2)/pwrite(2) at the I/O's offset (fio's default engine)"),
    ("sync", "lseek(2) then read(2)/write(2)"),
    ("cpuio", "burns CPU instead of doing I/O: cpuload percent of a CPU in cpuchunks-us bursts (cpumode=noop|qsort); counts I/Os, moves no bytes"),
    ("null", "completes every I/O at once without touching data; the overhead oracle"),
    ("vsync", "lseek(2) then readv(2)/writev(2)"),
    ("pvsync", "preadv(2)/pwritev(2)"),
    ("pvsync2", "preadv2(2)/pwritev2(2); options: hipri (RWF_HIPRI), nowait (RWF_NOWAIT)"),
    ("mmap", "mmap(2) the file (whole, or in 1 GiB windows) and copy; fsync is msync"),
    ("tokio", "tokio::fs::File (seek + read_exact/write_all) with iodepth operations on a current-thread runtime"),
    ("libaio", "Linux native AIO (io_submit/io_getevents); asynchronous with direct=1. Aliases: aio, linuxaio"),
    ("posixaio", "POSIX AIO (aio_read/aio_write, aio_suspend): glibc's helper threads, asynchronous on buffered files too"),
    ("io_uring", "io_uring submission/completion rings; options: fixedbufs, registerfiles, sqthread_poll, sqthread_poll_cpu, hipri, nonvectored, force_async"),
    ("filecreate", "creates each file (open O_CREAT); the create's time is the latency, the job's I/Os are fake"),
    ("filestat", "stat(2)s each laid-out file; option stat_type=stat|lstat|statx"),
    ("filedelete", "unlink(2)s each laid-out file"),
    ("dircreate", "mkdir(2)s each \"file\" name as a directory"),
    ("dirstat", "stat(2)s each directory (made before the clock); option stat_type"),
    ("dirdelete", "rmdir(2)s each directory (made before the clock)"),
    ("falloc", "fallocate(2) per I/O: a write allocates, a read allocates keeping the size, a trim punches a hole"),
    ("ftruncate", "ftruncate(2) to each write's offset (reads are EINVAL, as in fio)"),
    ("filetree", "fathom extension: a vdbench-style directory tree with a metadata operation mix (meta_mix, tree_depth, tree_width)"),
];

/// Engines fio has that fathom recognises but does not run yet.
const NOT_YET: &[&str] = &["io_uring_cmd", "splice", "sg", "e4defrag", "exec", "net"];

/// Makes an engine for one job clone.
pub type EngineFactory = dyn Fn(&EngineOptions) -> Box<dyn IoEngine> + Send + Sync;

type Registry = std::sync::RwLock<Vec<(String, std::sync::Arc<EngineFactory>)>>;

fn registry() -> &'static Registry {
    static R: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    R.get_or_init(Default::default)
}

/// Register a custom engine under `name`, so job files can say `ioengine=name`. An
/// embedder implements [`IoEngine`] for its own I/O path (a user-space cache, an object
/// store client) and registers a factory; each job clone gets its own instance.
/// Registering a built-in name or the same name twice replaces nothing and returns false.
pub fn register_engine(
    name: &str,
    factory: impl Fn(&EngineOptions) -> Box<dyn IoEngine> + Send + Sync + 'static,
) -> bool {
    if ENGINES.iter().any(|e| e.0 == name) || ["aio", "linuxaio"].contains(&name) {
        return false;
    }
    let mut r = registry().write().unwrap_or_else(|e| e.into_inner());
    if r.iter().any(|(n, _)| n == name) {
        return false;
    }
    r.push((name.to_string(), std::sync::Arc::new(factory)));
    true
}

/// Names of registered custom engines.
pub fn custom_engines() -> Vec<String> {
    let r = registry().read().unwrap_or_else(|e| e.into_inner());
    r.iter().map(|(n, _)| n.clone()).collect()
}

/// Make an engine by name with default engine options.
pub fn create(name: &str) -> Result<Box<dyn IoEngine>, EngineError> {
    create_with(name, &EngineOptions::default())
}

/// Make an engine by name: the one place that selects.
pub fn create_with(name: &str, opts: &EngineOptions) -> Result<Box<dyn IoEngine>, EngineError> {
    match name {
        "libaio" | "aio" | "linuxaio" => Ok(Box::new(libaio::Libaio::new(opts))),
        "posixaio" => Ok(Box::new(posixaio::PosixAio::default())),
        "io_uring" => Ok(Box::new(io_uring::IoUringEngine::new(*opts))),
        "mmap" => Ok(Box::new(mmap::Mmap::new(opts))),
        "tokio" => Ok(Box::new(tokio::TokioEngine::default())),
        "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" => Ok(Box::new(
            fd::FdEngine::named(name, opts).expect("an fd engine name"),
        )),
        "null" => Ok(Box::new(null::Null::default())),
        "cpuio" => Ok(Box::new(cpuio::CpuIo::new(
            opts.job.cpuchunks,
            opts.job.cpumode_qsort,
        ))),
        "falloc" => Ok(Box::new(meta::FileCall::falloc())),
        "ftruncate" => Ok(Box::new(meta::FileCall::ftruncate())),
        "filetree" => Ok(Box::new(FileTree)),
        n if meta::Kind::of(n).is_some() => Ok(Box::new(meta::MetaEngine::new(
            meta::Kind::of(n).expect("checked"),
            opts.job.stat_type,
        ))),
        _ => {
            let custom = {
                let r = registry().read().unwrap_or_else(|e| e.into_inner());
                r.iter().find(|(n, _)| n == name).map(|(_, f)| f.clone())
            };
            if let Some(f) = custom {
                return Ok(f(opts));
            }
            let mut names: Vec<String> = ENGINES.iter().map(|e| e.0.to_string()).collect();
            names.extend(custom_engines());
            let available = names.join(", ");
            if NOT_YET.contains(&name) {
                Err(EngineError::NotSupported {
                    name: name.into(),
                    available,
                })
            } else {
                Err(EngineError::Unknown {
                    name: name.into(),
                    available,
                })
            }
        }
    }
}

/// The `filetree` engine's stand-in: fathom runs `filetree` jobs with their own loop
/// (an operation mix over a directory tree, not I/Os), so this engine only names the
/// capabilities; an I/O queued to it is an error.
struct FileTree;

impl IoEngine for FileTree {
    fn name(&self) -> &'static str {
        "filetree"
    }
    fn caps(&self) -> Caps {
        Caps {
            diskless: true,
            no_trim: true,
            no_direct: true,
            metadata: Some("mix"),
            no_data: false,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, _path: &Path, _opts: &OpenOptions) -> io::Result<usize> {
        Ok(0)
    }
    unsafe fn queue(&mut self, _io: &IoUnit) -> io::Result<Queued> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "filetree jobs run operation mixes, not I/Os",
        ))
    }
    fn sync_file(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Capabilities of an engine by name, without making one.
pub fn caps_of(name: &str) -> Result<Caps, EngineError> {
    create(name).map(|e| e.caps())
}
