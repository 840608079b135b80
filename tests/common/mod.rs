//! Test harness: each test gets its own temp dir and a `fathom` command running there.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temp dir and a way to run the real binary inside it.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        // Under the target dir, on the same file system as the build (not tmpfs), so
        // O_DIRECT tests behave as on a disk.
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        Env {
            dir: tempfile::tempdir_in(base).unwrap(),
        }
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_fathom"));
        c.current_dir(self.dir.path());
        c
    }
    /// Run fathom with `args`; returns the output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }
}

/// Define a test with its own environment: `fathomtest!(name, |env| { ... });`
#[macro_export]
macro_rules! fathomtest {
    ($name:ident, |$env:ident| $body:block) => {
        #[test]
        fn $name() {
            let $env = $crate::common::Env::new();
            $body
        }
    };
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Parse stdout as exactly one JSON document (nothing before or after it).
pub fn json(o: &Output) -> serde_json::Value {
    let s = stdout(o);
    assert!(
        s.trim_start().starts_with('{'),
        "stdout must start with the JSON document:\n{s}\nstderr:\n{}",
        stderr(o)
    );
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("stdout is not one JSON document: {e}\n{s}"))
}

/// Peak resident memory of one run of `cmd` (stdout discarded), KiB, from wait4's
/// rusage of that child, and its exit status.
pub fn peak_rss_kib(cmd: &mut Command) -> (i64, std::process::ExitStatus) {
    let child = cmd.stdout(std::process::Stdio::null()).spawn().unwrap();
    let pid = child.id() as i32;
    std::mem::forget(child); // reaped here with wait4, for its rusage
    let mut status = 0;
    // SAFETY: wait4 on our own child fills the zeroed rusage.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut ru), pid);
        ru
    };
    use std::os::unix::process::ExitStatusExt;
    (ru.ru_maxrss, std::process::ExitStatus::from_raw(status))
}

/// fio's example job files (Debian's fio-examples), sorted; None when fio or the package
/// is missing (a panic where CI requires fio).
#[allow(dead_code)]
pub fn fio_example_files() -> Option<Vec<PathBuf>> {
    fio()?;
    let dir = Path::new("/usr/share/doc/fio/examples");
    if !dir.is_dir() {
        if std::env::var_os("FATHOM_REQUIRE_FIO").is_some() {
            panic!("fio's example job files are required: apt-get install fio-examples");
        }
        eprintln!("fio-examples not installed: skipping");
        return None;
    }
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    Some(files)
}

/// Run fio with `args` in `dir` and return what it printed; panics when fio fails.
#[allow(dead_code)]
pub fn fio_ok(fio: &Path, dir: &Path, args: &[&str]) -> std::process::Output {
    let o = Command::new(fio)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "fio {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Run fio with `args` in `dir`, its report thrown away (the files it writes are what a
/// test reads); panics when fio fails.
#[allow(dead_code)]
pub fn fio_quiet(fio: &Path, dir: &Path, args: &[&str]) {
    fio_ok(fio, dir, &[args, &["--output=/dev/null"]].concat());
}

/// fio, when installed. With FATHOM_REQUIRE_FIO=1 (CI) a missing fio fails the test.
pub fn fio() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("fio"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        if std::env::var_os("FATHOM_REQUIRE_FIO").is_some() {
            panic!("fio is required (FATHOM_REQUIRE_FIO is set) but not on PATH");
        }
        eprintln!("fio not installed: skipping the side-by-side comparison");
    }
    found
}

/// The faultfs FUSE rig over `env/backing`, mounted at `env/mnt` (None, with a note,
/// where FUSE is not available; with FATHOM_REQUIRE_FUSE=1 that fails the test).
pub fn faultfs_rig(env: &Env) -> Option<faultfs::Mounted> {
    let backing = env.path().join("backing");
    std::fs::create_dir(&backing).unwrap();
    match faultfs::FaultFs::mount(&backing, env.path().join("mnt")) {
        Ok(m) => Some(m),
        Err(e) => {
            assert!(
                std::env::var_os("FATHOM_REQUIRE_FUSE").is_none(),
                "faultfs: {e}"
            );
            eprintln!("cannot mount FUSE here ({e}): not tested");
            None
        }
    }
}

/// Start `cmd` with its output piped, SIGINT it after `after`; its output and the time
/// from the signal to its exit.
pub fn interrupt(mut cmd: Command, after: std::time::Duration) -> (Output, std::time::Duration) {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let t = std::time::Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    (o, t.elapsed())
}

/// Distinct 4 KiB blocks in the files, each alone and all together, over their blocks.
pub fn distinct_share(files: &[std::path::PathBuf]) -> (Vec<f64>, f64) {
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};
    let mut all = HashSet::new();
    let mut n_all = 0usize;
    let mut each = Vec::new();
    for f in files {
        let data = std::fs::read(f).unwrap();
        let mut mine = HashSet::new();
        for b in data.chunks(4096) {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            b.hash(&mut h);
            let v = h.finish();
            mine.insert(v);
            all.insert(v);
        }
        let n = data.len().div_ceil(4096);
        n_all += n;
        each.push(mine.len() as f64 / n as f64);
    }
    (each, all.len() as f64 / n_all as f64)
}

/// A small tmpfs mounted for the test, unmounted on drop.
pub struct SmallFs {
    pub dir: tempfile::TempDir,
}

impl SmallFs {
    pub fn new(size: &str) -> Option<SmallFs> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            if std::env::var_os("FATHOM_REQUIRE_LOOP").is_some() {
                panic!("mounting a tmpfs is required here (FATHOM_REQUIRE_LOOP) but failed");
            }
            eprintln!("cannot mount a tmpfs (needs root): not tested here");
            return None;
        }
        Some(SmallFs { dir })
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}
