//! The data-safety guard: before a job writes or trims a block device, look for anything
//! that says the device holds data — a partition table, a file-system or volume
//! signature, a mount, another user holding it — and refuse unless the user overrides.
//! The probe only reads.

use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Something on a device that makes writing to it destructive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finding {
    /// A partition table ("MBR", "GPT").
    PartitionTable(&'static str),
    /// A file-system or volume signature ("ext2/3/4", "xfs", ...).
    Signature(&'static str),
    /// Mounted (the device or one of its partitions) at this mount point.
    Mounted(String),
    /// An exclusive open failed with EBUSY: held by a mount, LVM, RAID or swap.
    Busy,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::PartitionTable(t) => write!(f, "a {t} partition table"),
            Finding::Signature(s) => write!(f, "a {s} signature"),
            Finding::Mounted(m) => write!(f, "it is mounted at {m}"),
            Finding::Busy => write!(f, "it is in use (an exclusive open gave EBUSY)"),
        }
    }
}

/// A magic value at a byte offset.
struct Probe {
    name: &'static str,
    offset: usize,
    magic: &'static [u8],
    table: bool,
}

const PROBES: &[Probe] = &[
    Probe {
        name: "GPT",
        offset: 512,
        magic: b"EFI PART",
        table: true,
    },
    Probe {
        name: "GPT",
        offset: 4096,
        magic: b"EFI PART",
        table: true,
    },
    Probe {
        name: "ext2/3/4",
        offset: 1024 + 56,
        magic: &[0x53, 0xef],
        table: false,
    },
    Probe {
        name: "xfs",
        offset: 0,
        magic: b"XFSB",
        table: false,
    },
    Probe {
        name: "btrfs",
        offset: 65536 + 64,
        magic: b"_BHRfS_M",
        table: false,
    },
    Probe {
        name: "vfat",
        offset: 54,
        magic: b"FAT1",
        table: false,
    },
    Probe {
        name: "vfat",
        offset: 82,
        magic: b"FAT32",
        table: false,
    },
    Probe {
        name: "ntfs",
        offset: 3,
        magic: b"NTFS    ",
        table: false,
    },
    Probe {
        name: "LUKS",
        offset: 0,
        magic: b"LUKS\xba\xbe",
        table: false,
    },
    Probe {
        name: "Linux RAID (md 1.1)",
        offset: 0,
        magic: &[0xfc, 0x4e, 0x2b, 0xa9],
        table: false,
    },
    Probe {
        name: "Linux RAID (md 1.2)",
        offset: 4096,
        magic: &[0xfc, 0x4e, 0x2b, 0xa9],
        table: false,
    },
    Probe {
        name: "iso9660",
        offset: 32769,
        magic: b"CD001",
        table: false,
    },
    Probe {
        name: "swap",
        offset: 4096 - 10,
        magic: b"SWAPSPACE2",
        table: false,
    },
    Probe {
        name: "swap",
        offset: 4096 - 10,
        magic: b"SWAP-SPACE",
        table: false,
    },
];

/// Bytes read from the start of a device for probing.
pub const PROBE_LEN: usize = 72 * 1024;

/// Signatures in the first bytes of a device.
pub(crate) fn probe_bytes(b: &[u8]) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    fn push(out: &mut Vec<Finding>, f: Finding) {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    for p in PROBES {
        if b.len() >= p.offset + p.magic.len() && &b[p.offset..p.offset + p.magic.len()] == p.magic
        {
            let f = if p.table {
                Finding::PartitionTable(p.name)
            } else {
                Finding::Signature(p.name)
            };
            push(&mut out, f);
        }
    }
    // LVM2: "LABELONE" in one of the first four sectors, "LVM2 001" after it.
    for s in 0..4 {
        let o = s * 512;
        if b.len() >= o + 32 && &b[o..o + 8] == b"LABELONE" && &b[o + 24..o + 32] == b"LVM2 001" {
            push(&mut out, Finding::Signature("LVM2"));
        }
    }
    // MBR: 0x55AA with a plausible partition entry, unless a boot-sector file system
    // (vfat, ntfs) already explains the signature.
    if b.len() >= 512 && b[510] == 0x55 && b[511] == 0xaa && out.is_empty() {
        let entries = &b[446..510];
        let plausible = entries
            .chunks(16)
            .any(|e| (e[0] == 0x00 || e[0] == 0x80) && e[4] != 0);
        if plausible {
            push(&mut out, Finding::PartitionTable("MBR"));
        }
    }
    out
}

/// Findings for a path a job will write or trim. Anything that is not a block device
/// gives none.
pub fn check_block_device(path: &Path) -> io::Result<Vec<Finding>> {
    let md = match std::fs::metadata(path) {
        Ok(m) => m,
        // Not there yet: fathom will create it, so there is nothing to protect.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    if !md.file_type().is_block_device() {
        return Ok(Vec::new());
    }
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; PROBE_LEN];
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    let mut out = probe_bytes(&buf[..n]);
    // md 0.90/1.0 superblocks sit near the end of the device.
    if let Ok(len) = f.seek(SeekFrom::End(0)) {
        let at = (len & !(65536 - 1)).saturating_sub(65536);
        let mut tail = [0u8; 4];
        if len > 131072
            && f.seek(SeekFrom::Start(at)).is_ok()
            && f.read_exact(&mut tail).is_ok()
            && tail == [0xfc, 0x4e, 0x2b, 0xa9]
        {
            out.push(Finding::Signature("Linux RAID (md 0.90)"));
        }
    }
    drop(f);
    for m in mounts_of(md.rdev()) {
        out.push(Finding::Mounted(m));
    }
    // An exclusive open of a block device fails with EBUSY while the kernel holds it.
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
    {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => out.push(Finding::Busy),
        _ => {}
    }
    Ok(out)
}

/// Mount points of the device `rdev` or of its partitions (from /proc/self/mountinfo).
fn mounts_of(rdev: u64) -> Vec<String> {
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let me = format!("{major}:{minor}");
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in info.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 5 {
            continue;
        }
        let (dev, point) = (f[2], f[4]);
        if dev == me || parent_of(dev).as_deref() == Some(me.as_str()) {
            out.push(point.replace("\\040", " "));
        }
    }
    out
}

/// The whole disk's major:minor of a partition, from sysfs.
fn parent_of(dev: &str) -> Option<String> {
    let p = format!("/sys/dev/block/{dev}");
    if !Path::new(&format!("{p}/partition")).exists() {
        return None;
    }
    let parent = std::fs::canonicalize(format!("{p}/..")).ok()?.join("dev");
    Some(std::fs::read_to_string(parent).ok()?.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(offset: usize, magic: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; PROBE_LEN];
        b[offset..offset + magic.len()].copy_from_slice(magic);
        b
    }

    #[test]
    fn blank_and_random_devices_have_no_findings() {
        assert!(probe_bytes(&vec![0u8; PROBE_LEN]).is_empty());
        let mut x = 0x1234_5678_9abc_def0u64;
        let r: Vec<u8> = (0..PROBE_LEN)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert!(probe_bytes(&r).is_empty());
    }

    #[test]
    fn each_signature_is_found() {
        assert_eq!(
            probe_bytes(&with(1080, &[0x53, 0xef])),
            vec![Finding::Signature("ext2/3/4")]
        );
        assert_eq!(
            probe_bytes(&with(0, b"XFSB")),
            vec![Finding::Signature("xfs")]
        );
        assert_eq!(
            probe_bytes(&with(65600, b"_BHRfS_M")),
            vec![Finding::Signature("btrfs")]
        );
        assert_eq!(
            probe_bytes(&with(512, b"EFI PART")),
            vec![Finding::PartitionTable("GPT")]
        );
        assert_eq!(
            probe_bytes(&with(0, b"LUKS\xba\xbe")),
            vec![Finding::Signature("LUKS")]
        );
        assert_eq!(
            probe_bytes(&with(4086, b"SWAPSPACE2")),
            vec![Finding::Signature("swap")]
        );
        let mut lvm = with(512, b"LABELONE");
        lvm[512 + 24..512 + 32].copy_from_slice(b"LVM2 001");
        assert_eq!(probe_bytes(&lvm), vec![Finding::Signature("LVM2")]);
        let mut mbr = with(510, &[0x55, 0xaa]);
        mbr[446] = 0x80;
        mbr[450] = 0x83;
        assert_eq!(probe_bytes(&mbr), vec![Finding::PartitionTable("MBR")]);
        let mut fat = with(82, b"FAT32");
        fat[510] = 0x55;
        fat[511] = 0xaa;
        fat[450] = 0x0c;
        assert_eq!(
            probe_bytes(&fat),
            vec![Finding::Signature("vfat")],
            "not also MBR"
        );
    }

    #[test]
    fn regular_files_are_not_checked() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, with(1080, &[0x53, 0xef])).unwrap();
        assert!(check_block_device(&p).unwrap().is_empty());
    }
}
