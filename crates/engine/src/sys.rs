//! Thin wrappers over the system calls the engines share.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::{Completion, IoUnit, OpenOptions, Queued};

/// `BLKGETSIZE64`: size of a block device in bytes.
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;

/// Open `path` with fathom's flags.
pub(crate) fn open(path: &Path, o: &OpenOptions) -> io::Result<OwnedFd> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file name contains NUL"))?;
    let mut flags = libc::O_CLOEXEC
        | if o.write {
            libc::O_RDWR
        } else {
            libc::O_RDONLY
        };
    if o.direct {
        flags |= libc::O_DIRECT;
    }
    if o.create {
        flags |= libc::O_CREAT;
    }
    if o.sync {
        flags |= libc::O_SYNC;
    }
    if o.dsync {
        flags |= libc::O_DSYNC;
    }
    let mode = nix::sys::stat::Mode::from_bits_truncate(0o644);
    let fd = nix::fcntl::open(
        c.as_c_str(),
        nix::fcntl::OFlag::from_bits_retain(flags),
        mode,
    )
    .map_err(|e| open_error(e.into(), path, o.direct))?;
    advise(&fd, o.advice);
    Ok(fd)
}

/// Give the kernel `advice` for the whole of `fd` (an advisory call: a file that takes no
/// advice, a pipe or a character device, is left as it is, as fio does).
pub(crate) fn advise(fd: impl std::os::fd::AsFd, advice: crate::Advice) {
    use nix::fcntl::PosixFadviseAdvice as A;
    let how = match advice {
        crate::Advice::None => return,
        crate::Advice::Random => A::POSIX_FADV_RANDOM,
        crate::Advice::Sequential => A::POSIX_FADV_SEQUENTIAL,
        crate::Advice::NoReuse => A::POSIX_FADV_NOREUSE,
    };
    let _ = nix::fcntl::posix_fadvise(fd, 0, 0, how);
}

/// An open error that names the file, and for O_DIRECT refusals says what to do. The
/// errno is kept, so the job's results report it.
fn open_error(e: io::Error, path: &Path, direct: bool) -> io::Error {
    let errno = e.raw_os_error().unwrap_or(libc::EIO);
    let text = if direct && errno == libc::EINVAL {
        format!(
            "{}: the file system refuses O_DIRECT (EINVAL); use direct=0",
            path.display()
        )
    } else {
        format!("{}: {e}", path.display())
    };
    io::Error::new(
        io::Error::from_raw_os_error(errno).kind(),
        OsText { errno, text },
    )
}

/// An error text that still carries its errno.
#[derive(Debug)]
pub(crate) struct OsText {
    pub errno: i32,
    pub text: String,
}

impl std::fmt::Display for OsText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for OsText {}

/// The errno of an error, looking through fathom's own wrappers.
pub fn errno_of(e: &io::Error) -> Option<i32> {
    e.raw_os_error().or_else(|| {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<OsText>())
            .map(|t| t.errno)
    })
}

/// fcntl commands of write lifetime hints (Linux 4.13+; not in the libc crate).
const F_GET_RW_HINT: libc::c_int = 1024 + 11;
const F_SET_RW_HINT: libc::c_int = 1024 + 12;

/// fcntl `cmd` on `path` with a u64 the kernel reads or writes.
fn rw_hint_fcntl(path: &Path, cmd: libc::c_int, hint: &mut u64) -> io::Result<()> {
    let f = std::fs::File::open(path)?;
    // SAFETY: F_GET_RW_HINT and F_SET_RW_HINT read or write one u64 through the pointer,
    // which points at `hint` and lives across the call.
    let r = unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&f), cmd, hint as *mut u64) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Set the write lifetime hint of `path`'s inode (fcntl F_SET_RW_HINT: 1 none, 2 short,
/// 3 medium, 4 long, 5 extreme).
pub fn set_write_hint(path: &Path, hint: u64) -> io::Result<()> {
    rw_hint_fcntl(path, F_SET_RW_HINT, &mut { hint })
}

/// The write lifetime hint of `path`'s inode (0: not set).
pub fn write_hint(path: &Path) -> io::Result<u64> {
    let mut hint = 0;
    rw_hint_fcntl(path, F_GET_RW_HINT, &mut hint)?;
    Ok(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_hint_set_reads_back() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("h");
        std::fs::write(&p, b"x").unwrap();
        for hint in [2, 5, 1] {
            set_write_hint(&p, hint).unwrap();
            assert_eq!(write_hint(&p).unwrap(), hint);
        }
        assert!(set_write_hint(&p, 99).is_err(), "no such hint");
        assert!(set_write_hint(&d.path().join("missing"), 2).is_err());
    }

    #[test]
    fn o_direct_refusal_names_the_file_and_the_fix_and_keeps_the_errno() {
        let e = open_error(
            io::Error::from_raw_os_error(libc::EINVAL),
            Path::new("/x/f"),
            true,
        );
        let s = e.to_string();
        assert!(
            s.contains("/x/f") && s.contains("O_DIRECT") && s.contains("direct=0"),
            "{s}"
        );
        assert_eq!(errno_of(&e), Some(libc::EINVAL));
        let e = open_error(
            io::Error::from_raw_os_error(libc::ENOENT),
            Path::new("/x/g"),
            false,
        );
        assert!(e.to_string().starts_with("/x/g: "));
        assert_eq!(errno_of(&e), Some(libc::ENOENT));
    }
}

/// Close an fd, reporting errors (a failed close can lose written data on NFS; dropping
/// an `OwnedFd` would not say).
pub(crate) fn close(fd: OwnedFd) -> io::Result<()> {
    Ok(nix::unistd::close(fd)?)
}

/// fsync/fdatasync an fd.
pub(crate) fn sync_fd(fd: BorrowedFd<'_>, data_only: bool) -> io::Result<()> {
    if data_only {
        nix::unistd::fdatasync(fd)?;
    } else {
        nix::unistd::fsync(fd)?;
    }
    Ok(())
}

fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}

/// Result of a read/write syscall as a kernel-style i64 (bytes, or negated errno).
pub(crate) fn ret(r: isize) -> i64 {
    if r < 0 {
        -(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        r as i64
    }
}

/// Size of an open block device.
pub fn device_size(fd: i32) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 into `size`.
    if unsafe { libc::ioctl(fd, BLKGETSIZE64 as _, &mut size) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}

/// Size of a file or block device at `path` (None if it does not exist).
pub fn file_size(path: &Path) -> io::Result<Option<u64>> {
    use std::os::unix::fs::FileTypeExt;
    let md = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if md.file_type().is_block_device() {
        let f = std::fs::File::open(path)?;
        use std::os::fd::AsRawFd;
        return device_size(f.as_raw_fd()).map(Some);
    }
    Ok(Some(md.len()))
}

/// Run a positional transfer to completion, reissuing the remainder of short transfers.
/// `op(buf, len, offset)` is one syscall. Returns (bytes or -errno, short count). A
/// transfer that returns 0 (end of file) ends the loop with what was done. With `once`
/// (IOR's -x), a short transfer is not reissued: EIO, the bytes it moved left as they are.
#[inline]
pub(crate) fn full_transfer(
    mut op: impl FnMut(*mut u8, usize, u64) -> i64,
    buf: *mut u8,
    len: usize,
    offset: u64,
    once: bool,
) -> (i64, u32) {
    let mut done = 0usize;
    let mut short = 0u32;
    loop {
        // SAFETY-free arithmetic: `done < len`, so the pointer stays inside the buffer.
        let r = op(buf.wrapping_add(done), len - done, offset + done as u64);
        if r < 0 {
            if r == -(libc::EINTR as i64) {
                continue;
            }
            return (r, short);
        }
        done += r as usize;
        if done >= len {
            return (done as i64, short);
        }
        if once {
            return (-(libc::EIO as i64), short + 1);
        }
        if r == 0 {
            return (done as i64, short);
        }
        short += 1;
    }
}

/// An fd engine's file table: a slot per file the job opened (its descriptor owned here,
/// none while it is closed), the raw numbers the hot path hands to the kernel (-1 while
/// closed), and each file's last known position for the engines that read and write at
/// the file position (`sync`, `vsync`).
#[derive(Default)]
pub(crate) struct Fds {
    owned: Vec<Option<OwnedFd>>,
    fds: Vec<i32>,
    /// Last known file position per slot (u64::MAX = unknown).
    pos: Vec<u64>,
}

impl Fds {
    /// Open `path` into a new slot; its index.
    pub(crate) fn open(&mut self, path: &Path, o: &OpenOptions) -> io::Result<usize> {
        let fd = open(path, o)?;
        self.fds.push(fd.as_raw_fd());
        self.owned.push(Some(fd));
        self.pos.push(0);
        Ok(self.fds.len() - 1)
    }
    /// A new slot with no file open in it (opened later with [`Fds::reopen`]); its index.
    pub(crate) fn add_closed(&mut self) -> usize {
        self.fds.push(-1);
        self.owned.push(None);
        self.pos.push(0);
        self.fds.len() - 1
    }
    /// Close the file in slot `i`, keeping the slot.
    pub(crate) fn close(&mut self, i: usize) -> io::Result<()> {
        self.fds[i] = -1;
        match self.owned[i].take() {
            Some(fd) => close(fd),
            None => Ok(()),
        }
    }
    /// Open `path` again into slot `i`.
    pub(crate) fn reopen(&mut self, i: usize, path: &Path, o: &OpenOptions) -> io::Result<()> {
        self.close(i)?;
        let fd = open(path, o)?;
        self.fds[i] = fd.as_raw_fd();
        self.owned[i] = Some(fd);
        self.pos[i] = 0;
        Ok(())
    }
    /// The descriptor open in slot `i` (None while the slot is closed).
    #[inline]
    pub(crate) fn borrow(&self, i: usize) -> Option<BorrowedFd<'_>> {
        self.owned[i].as_ref().map(|f| f.as_fd())
    }
    pub(crate) fn sync(&self, i: usize, data_only: bool) -> io::Result<()> {
        sync_fd(self.borrow(i).ok_or_else(ebadf)?, data_only)
    }
    /// Trim the I/O's range of its file, as a completed I/O.
    pub(crate) fn trim_done(&self, io: &IoUnit) -> Queued {
        trim_done(self.borrow(io.file), io)
    }
    /// Close every open file and forget every slot; the first error, after trying all.
    pub(crate) fn close_all(&mut self) -> io::Result<()> {
        self.pos.clear();
        self.fds.clear();
        let mut first = Ok(());
        for fd in self.owned.drain(..).flatten() {
            if let Err(e) = close(fd) {
                first = first.and(Err(e));
            }
        }
        first
    }
    pub(crate) fn as_slice(&self) -> &[i32] {
        &self.fds
    }
    /// Transfer `len` bytes at `offset` of slot `i` with `op(fd, buf, n)`, a call that
    /// works at the file position (read, write, readv, writev): like [`full_transfer`],
    /// seeking first only when the position is not already there, as fio does for
    /// sequential I/O.
    pub(crate) fn at_position(
        &mut self,
        i: usize,
        mut op: impl FnMut(i32, *mut u8, usize) -> isize,
        (buf, len, offset): (*mut u8, usize, u64),
        once: bool,
    ) -> (i64, u32) {
        let fd = self.fds[i];
        let Some(owned) = self.owned[i].as_ref() else {
            return (-(libc::EBADF as i64), 0);
        };
        let pos = &mut self.pos[i];
        full_transfer(
            |b, n, off| {
                if *pos != off {
                    use nix::unistd::{lseek, Whence};
                    if let Err(e) = lseek(owned.as_fd(), off as i64, Whence::SeekSet) {
                        *pos = u64::MAX;
                        return -(e as i64);
                    }
                    *pos = off;
                }
                let r = ret(op(fd, b, n));
                *pos = if r >= 0 { off + r as u64 } else { u64::MAX };
                r
            },
            buf,
            len,
            offset,
            once,
        )
    }
}

/// A trim done here and now, as a completed I/O (the engines without an asynchronous
/// discard); EBADF when the file is not open.
pub(crate) fn trim_done(fd: Option<BorrowedFd<'_>>, io: &IoUnit) -> Queued {
    Queued::Done(Completion {
        tag: io.tag,
        res: fd.map_or(-(libc::EBADF as i64), |fd| trim(fd, io.offset, io.len)),
        short: 0,
    })
}

impl std::ops::Index<usize> for Fds {
    type Output = i32;
    fn index(&self, i: usize) -> &i32 {
        &self.fds[i]
    }
}

/// A one-element iovec over `len` bytes at `buf`.
#[inline]
pub(crate) fn iov(buf: *mut u8, len: usize) -> libc::iovec {
    libc::iovec {
        iov_base: buf.cast(),
        iov_len: len,
    }
}

/// `BLKDISCARD`: discard a byte range of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// Trim `len` bytes at `offset`: BLKDISCARD on a block device, fallocate(PUNCH_HOLE |
/// KEEP_SIZE) on a file. Returns bytes trimmed or a negated errno.
pub(crate) fn trim(fd: BorrowedFd<'_>, offset: u64, len: usize) -> i64 {
    let st = match nix::sys::stat::fstat(fd) {
        Ok(st) => st,
        Err(e) => return -(e as i64),
    };
    if st.st_mode & libc::S_IFMT == libc::S_IFBLK {
        let range = [offset, len as u64];
        // SAFETY: BLKDISCARD reads two u64s (offset, length) from `range`, which lives
        // across the call; the fd is open (borrowed).
        if unsafe { libc::ioctl(fd.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) } < 0 {
            return ret(-1);
        }
        return len as i64;
    }
    use nix::fcntl::FallocateFlags as F;
    let punch = F::FALLOC_FL_PUNCH_HOLE | F::FALLOC_FL_KEEP_SIZE;
    match nix::fcntl::fallocate(fd, punch, offset as i64, len as i64) {
        Ok(()) => len as i64,
        Err(e) => -(e as i64),
    }
}

/// `BLKSSZGET`: logical block size of a block device.
const BLKSSZGET: libc::c_ulong = 0x1268;

/// Logical block size of the block device at `path` (None for anything else).
pub fn logical_block_size(path: &Path) -> Option<u64> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileTypeExt;
    let md = std::fs::metadata(path).ok()?;
    if !md.file_type().is_block_device() {
        return None;
    }
    let f = std::fs::File::open(path).ok()?;
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int into `size`.
    if unsafe { libc::ioctl(f.as_raw_fd(), BLKSSZGET as _, &mut size) } < 0 || size <= 0 {
        return None;
    }
    Some(size as u64)
}
