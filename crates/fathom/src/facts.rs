//! Gathering [`HostFacts`] and [`TargetFacts`] for a run's result.

use fathom_stats::{HostFacts, TargetFacts};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

fn uname() -> (String, String, String, String) {
    // SAFETY: uname fills the struct it is given; a zeroed utsname is valid input.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return Default::default();
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (
        field(&u.nodename),
        field(&u.sysname),
        field(&u.release),
        field(&u.machine),
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
        if let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
            // SAFETY: statfs writes into the zeroed struct; the path is NUL-terminated.
            let mut sfs: libc::statfs = unsafe { std::mem::zeroed() };
            if unsafe { libc::statfs(c.as_ptr(), &mut sfs) } == 0 {
                t.fs_type = fs_name(sfs.f_type as i64);
            }
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
