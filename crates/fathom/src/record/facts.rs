//! Gathering [`HostFacts`] and [`TargetFacts`] for a run's result, and the block
//! devices' activity over it ([`DiskWatch`]).

use fathom_stats::{HostFacts, TargetFacts};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

fn uname() -> (String, String, String, String) {
    let Ok(u) = nix::sys::utsname::uname() else {
        return Default::default();
    };
    let field = |f: &std::ffi::OsStr| f.to_string_lossy().into_owned();
    (
        field(u.nodename()),
        field(u.sysname()),
        field(u.release()),
        field(u.machine()),
    )
}

/// The machine fathom runs on.
pub fn host() -> HostFacts {
    let (hostname, os, kernel, arch) = uname();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let mem_bytes = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024);
    HostFacts {
        hostname,
        os,
        kernel,
        arch,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        cpu_model,
        mem_bytes,
    }
}

/// File system type name for a statfs magic number (the common ones).
fn fs_name(magic: i64) -> String {
    match magic {
        0xEF53 => "ext4".into(), // ext2/3/4 share the magic
        0x5846_5342 => "xfs".into(),
        0x9123_683E => "btrfs".into(),
        0x0102_1994 => "tmpfs".into(),
        0x6573_5546 => "fuse".into(),
        0x794C_7630 => "overlayfs".into(),
        0x2FC1_2FC1 => "zfs".into(),
        0x6969 => "nfs".into(),
        0xFF53_4D42 | 0xFE53_4D42 => "cifs/smb".into(),
        0x4d44 => "vfat".into(),
        0x5346_544e => "ntfs".into(),
        0xF2F5_2010 => "f2fs".into(),
        0x0000_9fa0 => "proc".into(),
        0x6265_6572 => "sysfs".into(),
        0x0000_1373 => "devtmpfs".into(),
        m => format!("0x{m:x}"),
    }
}

fn sys_block_name(major: u32, minor: u32) -> Option<(String, String)> {
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let name = link.file_name()?.to_string_lossy().into_owned();
    // Partitions have the model on their parent device.
    let base = format!("/sys/dev/block/{major}:{minor}");
    let model = std::fs::read_to_string(format!("{base}/device/model"))
        .or_else(|_| std::fs::read_to_string(format!("{base}/../device/model")))
        .unwrap_or_default()
        .trim()
        .to_string();
    Some((name, model))
}

/// What `path` (used by `job`) is: kind, file system, device and size.
pub fn target(job: &str, path: &Path, diskless: bool) -> TargetFacts {
    let mut t = TargetFacts {
        job: job.to_string(),
        path: path.display().to_string(),
        kind: if diskless {
            "none".into()
        } else {
            "file".into()
        },
        ..Default::default()
    };
    if diskless {
        return t;
    }
    let Ok(md) = std::fs::metadata(path) else {
        return t;
    };
    let ft = md.file_type();
    let dev = if ft.is_block_device() {
        t.kind = "block device".into();
        t.size = std::fs::File::open(path)
            .and_then(|f| fathom_engine::device_size(std::os::fd::AsRawFd::as_raw_fd(&f)))
            .unwrap_or(0);
        md.rdev()
    } else if ft.is_char_device() {
        t.kind = "character device".into();
        md.rdev()
    } else {
        t.size = md.len();
        if let Ok(sfs) = nix::sys::statfs::statfs(path) {
            t.fs_type = fs_name(sfs.filesystem_type().0);
        }
        md.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    t.device = format!("{major}:{minor}");
    if let Some((name, model)) = sys_block_name(major, minor) {
        t.device = format!("{name} ({major}:{minor})");
        t.model = model;
    }
    t
}

/// The block device with number `dev`: its sysfs name and `stat` file.
fn block_device_of(dev: u64) -> Option<(String, PathBuf)> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let (name, _) = sys_block_name(major, minor)?;
    let stat = PathBuf::from(format!("/sys/dev/block/{major}:{minor}/stat"));
    stat.exists().then_some((name, stat))
}

/// The device number a path's data lives on: the device itself for a block device; for a
/// path not made yet, the nearest existing parent's.
fn device_number_of(path: &Path) -> Option<u64> {
    let md = path.ancestors().find_map(|p| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        std::fs::metadata(p).ok()
    })?;
    Some(if md.file_type().is_block_device() {
        md.rdev()
    } else {
        md.dev()
    })
}

/// The 11 counters of a block device's `stat` file.
fn read_stat(stat: &Path) -> Option<[u64; 11]> {
    let text = std::fs::read_to_string(stat).ok()?;
    let v: Vec<u64> = text
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    (v.len() >= 11).then(|| std::array::from_fn(|i| v[i]))
}

/// fio's disk utilisation: the devices under a run's files, read at its start and end.
pub struct DiskWatch {
    devs: Vec<(String, PathBuf, [u64; 11])>,
    t0: std::time::Instant,
}

impl DiskWatch {
    /// Note the counters of the devices holding `paths` (each device once; paths on no
    /// block device, such as tmpfs, have none).
    pub fn start<'a>(paths: impl Iterator<Item = &'a Path>) -> DiskWatch {
        let mut devs: Vec<(String, PathBuf, [u64; 11])> = Vec::new();
        // Sysfs is read once per device.
        let mut numbers = std::collections::HashSet::new();
        // Directories whose first path was a regular file (or not made yet): the rest of
        // their files are on the same device, so they are not looked up one by one (a
        // job may have 10^6 files); a directory of devices (/dev) has each one stat'ed.
        let mut plain_dirs: std::collections::HashSet<&Path> = Default::default();
        for p in paths {
            if p.parent().is_some_and(|d| plain_dirs.contains(d)) {
                continue;
            }
            let md = std::fs::metadata(p).ok();
            let device = md
                .as_ref()
                .is_some_and(|m| m.file_type().is_block_device() || m.file_type().is_char_device());
            if !device {
                plain_dirs.extend(p.parent());
            }
            let dev = match md {
                Some(m) if m.file_type().is_block_device() => Some(m.rdev()),
                Some(m) => Some(m.dev()),
                // Not made yet: the nearest existing parent's device.
                None => device_number_of(p),
            };
            let Some(dev) = dev else {
                continue;
            };
            if !numbers.insert(dev) {
                continue;
            }
            if let Some((name, stat)) = block_device_of(dev) {
                if devs.iter().all(|d| d.0 != name) {
                    if let Some(c) = read_stat(&stat) {
                        devs.push((name, stat, c));
                    }
                }
            }
        }
        DiskWatch {
            devs,
            t0: std::time::Instant::now(),
        }
    }

    /// What each device did since [`DiskWatch::start`].
    pub fn finish(self) -> Vec<fathom_stats::DiskUtil> {
        let ms = self.t0.elapsed().as_secs_f64() * 1000.0;
        self.devs
            .into_iter()
            .filter_map(|(name, stat, a)| {
                let b = read_stat(&stat)?;
                let d = |i: usize| b[i].saturating_sub(a[i]);
                Some(fathom_stats::DiskUtil {
                    name,
                    ios: [d(0), d(4)],
                    merges: [d(1), d(5)],
                    ticks: [d(3), d(7)],
                    in_queue: d(10),
                    util: if ms > 0.0 {
                        (d(9) as f64 * 100.0 / ms).min(100.0)
                    } else {
                        0.0
                    },
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_facts_are_filled_in() {
        let h = super::host();
        assert_eq!(h.os, "Linux");
        assert!(
            !h.kernel.is_empty() && h.cpus >= 1 && h.mem_bytes > 0,
            "{h:?}"
        );
    }

    #[test]
    fn a_tmpfs_file_is_named_as_such() {
        let dir = std::path::Path::new("/dev/shm");
        if !dir.exists() {
            return;
        }
        let p = dir.join(format!("fathom-facts-{}", std::process::id()));
        std::fs::write(&p, [0u8; 100]).unwrap();
        let t = super::target("j", &p, false);
        std::fs::remove_file(&p).unwrap();
        assert_eq!(
            (t.kind.as_str(), t.fs_type.as_str(), t.size),
            ("file", "tmpfs", 100)
        );
    }
}
