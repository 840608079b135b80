//! The data-safety guard: before a job writes or trims a block device, look for anything
//! that says the device holds data — a partition table, a file-system or volume
//! signature, a mount (of the device or of one of its partitions), another user holding
//! it — so that fathom can refuse unless the user overrides.
//!
//! The check only reads: the device is opened read-only (so closing it triggers no udev
//! rescan), its first 1.06 MiB and last 128 KiB are read with ordinary buffered reads, and
//! nothing is ever written. A regular file gets the same signature check (a disk image)
//! and is refused while it backs an attached loop device.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// What the guard found on a device that makes writing to it destructive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finding {
    /// A partition table: "MBR" or "GPT".
    PartitionTable(&'static str),
    /// A file-system or volume signature: "ext4", "xfs", "LVM2", "swap", ...
    Signature(&'static str),
    /// The device, or a partition of it, is mounted at this mount point.
    Mounted(String),
    /// Opening it with `O_EXCL` failed with `EBUSY`: another user holds it (a mount,
    /// LVM, RAID, swap).
    Busy,
    /// A regular file that backs this attached loop device.
    LoopBacking(String),
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::PartitionTable(t) => write!(f, "{} {t} partition table", article(t)),
            Finding::Signature(s) => match phrase(s) {
                Some(p) => write!(f, "{p} signature"),
                None => write!(f, "{} {s} signature", article(s)),
            },
            Finding::Mounted(m) => write!(f, "it is mounted at {m}"),
            Finding::Busy => {
                f.write_str("it is in use by another user (opening it exclusively gave EBUSY)")
            }
            Finding::LoopBacking(dev) => write!(f, "it is the backing file of {dev}"),
        }
    }
}

/// "a" or "an" for a name as it is read aloud: "an MBR", "a GPT", "an ext4", "a zfs".
fn article(name: &str) -> &'static str {
    let b = name.as_bytes();
    let acronym = b.len() > 1 && b[0].is_ascii_uppercase() && b[1].is_ascii_uppercase();
    match b.first() {
        Some(b'a' | b'e' | b'i' | b'o' | b'u' | b'A' | b'E' | b'I' | b'O' | b'U') => "an",
        Some(b'F' | b'H' | b'L' | b'M' | b'N' | b'R' | b'S' | b'X') if acronym => "an",
        _ => "a",
    }
}

/// How a signature is named to a user.
fn phrase(name: &str) -> Option<&'static str> {
    Some(match name {
        "ext2" => "an ext2 (ext2/3/4 family) file system",
        "ext3" => "an ext3 (ext2/3/4 family) file system",
        "ext4" => "an ext4 (ext2/3/4 family) file system",
        "ext journal" => "an ext3/4 external journal (ext2/3/4 family)",
        "xfs" => "an xfs file system",
        "btrfs" => "a btrfs file system",
        "vfat" => "a vfat (FAT) file system",
        "exfat" => "an exfat file system",
        "ntfs" => "an ntfs file system",
        "iso9660" => "an iso9660 file system",
        "swap" => "a swap space",
        "LVM2" => "an LVM2 physical volume",
        "LUKS" => "a LUKS encrypted volume",
        "Linux RAID" => "a Linux RAID (md) member",
        "bcache" => "a bcache device",
        "f2fs" => "an f2fs file system",
        "squashfs" => "a squashfs file system",
        "bcachefs" => "a bcachefs file system",
        "zfs_member" => "a ZFS pool member",
        "ReFS" => "a ReFS file system",
        "jfs" => "a jfs file system",
        "reiserfs" => "a reiserfs file system",
        "ceph_bluestore" => "a Ceph BlueStore device",
        "DM_integrity" => "a dm-integrity device",
        "VMFS_volume_member" => "a VMFS volume member",
        "apfs" => "an APFS container",
        "hfsplus" => "an HFS+ file system",
        _ => return None,
    })
}

/// Bytes read from the start of a device: everything the start-relative probes look at
/// (the btrfs superblock at 64 KiB, swap headers for pages up to 64 KiB, ZFS's
/// uberblocks at 128-256 KiB, the VMFS volume header at 1 MiB).
const HEAD_LEN: usize = (1 << 20) + 64 * 1024;
/// Bytes read from the end of a device: md 0.90/1.0 superblocks and the backup GPT
/// header.
const TAIL_LEN: usize = 128 * 1024;

/// Where a probe's offsets are counted from.
#[derive(Clone, Copy)]
enum Base {
    /// The first byte of the device.
    Start,
    /// The end of the device (offsets are negative).
    End,
    /// md 0.90: the last 64 KiB-aligned 64 KiB block.
    Md090,
    /// md 1.0: 8 KiB before the end, rounded down to 4 KiB.
    Md10,
}

impl Base {
    fn resolve(self, len: u64) -> Option<u64> {
        match self {
            Base::Start => Some(0),
            Base::End => Some(len),
            Base::Md090 => (len & !0xffff).checked_sub(0x1_0000),
            Base::Md10 => len.checked_sub(0x2000).map(|o| o & !0xfff),
        }
    }
}

/// One signature: `magic` at one of the offsets `at` (from `base`), with the `also`
/// bytes at offsets relative to that match, then `check` (which may reject the match or
/// rename it) if there is one.
struct Probe {
    name: &'static str,
    table: bool,
    base: Base,
    at: &'static [i64],
    magic: &'static [u8],
    also: &'static [(u64, &'static [u8])],
    check: Option<fn(&Image, u64) -> Option<&'static str>>,
    /// The signature lives in the boot sector, so its 0x55AA there is not an MBR's.
    boot: bool,
}

const fn sig(name: &'static str, at: &'static [i64], magic: &'static [u8]) -> Probe {
    Probe {
        name,
        table: false,
        base: Base::Start,
        at,
        magic,
        also: &[],
        check: None,
        boot: false,
    }
}

const fn table(name: &'static str, at: &'static [i64], magic: &'static [u8]) -> Probe {
    Probe {
        table: true,
        ..sig(name, at, magic)
    }
}

impl Probe {
    const fn from(self, base: Base) -> Probe {
        Probe { base, ..self }
    }
    const fn also(self, also: &'static [(u64, &'static [u8])]) -> Probe {
        Probe { also, ..self }
    }
    const fn check(self, check: fn(&Image, u64) -> Option<&'static str>) -> Probe {
        Probe {
            check: Some(check),
            ..self
        }
    }
    const fn boot(self) -> Probe {
        Probe { boot: true, ..self }
    }
}

const MD_MAGIC_LE: [u8; 4] = 0xa92b_4efc_u32.to_le_bytes();
const MD_MAGIC_BE: [u8; 4] = 0xa92b_4efc_u32.to_be_bytes();
const BCACHE_MAGIC: [u8; 16] = [
    0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81,
];
/// Swap headers end at the end of the first page; pages of 4, 8, 16 and 64 KiB.
const SWAP_AT: &[i64] = &[4096 - 10, 8192 - 10, 16384 - 10, 65536 - 10];

/// Every signature the guard knows, in the order findings are reported.
const PROBES: &[Probe] = &[
    table("GPT", &[512, 4096], b"EFI PART").boot(),
    table("GPT", &[-512, -4096], b"EFI PART").from(Base::End),
    table("MBR", &[510], &[0x55, 0xaa]).check(mbr),
    sig("ext", &[1024 + 56], &[0x53, 0xef]).check(ext),
    sig("xfs", &[0], b"XFSB"),
    sig("btrfs", &[65536 + 64], b"_BHRfS_M"),
    sig("vfat", &[54], b"FAT12").boot(),
    sig("vfat", &[54], b"FAT16").boot(),
    sig("vfat", &[82], b"FAT32").boot(),
    sig("ntfs", &[3], b"NTFS    ").boot(),
    sig("exfat", &[3], b"EXFAT   ").boot(),
    sig("swap", SWAP_AT, b"SWAPSPACE2"),
    sig("swap", SWAP_AT, b"SWAP-SPACE"),
    sig("LVM2", &[0, 512, 1024, 1536], b"LABELONE").also(&[(24, b"LVM2 001")]),
    sig("LUKS", &[0], b"LUKS\xba\xbe"),
    // md superblocks: magic, then the major version (1 for 1.x, 0 for 0.90).
    sig("Linux RAID", &[0, 4096], &MD_MAGIC_LE).also(&[(4, &[1, 0, 0, 0])]),
    sig("Linux RAID", &[0], &MD_MAGIC_LE)
        .also(&[(4, &[1, 0, 0, 0])])
        .from(Base::Md10),
    sig("Linux RAID", &[0], &MD_MAGIC_LE)
        .also(&[(4, &[0, 0, 0, 0])])
        .from(Base::Md090),
    sig("Linux RAID", &[0], &MD_MAGIC_BE)
        .also(&[(4, &[0, 0, 0, 0])])
        .from(Base::Md090),
    sig("iso9660", &[32769], b"CD001"),
    sig("bcache", &[4096 + 24], &BCACHE_MAGIC),
    // Checked against util-linux blkid's list (its probes, not its code).
    sig("f2fs", &[1024], &0xF2F5_2010_u32.to_le_bytes()),
    sig("squashfs", &[0], b"hsqs"),
    sig("squashfs", &[0], b"sqsh"),
    sig("bcachefs", &[4096 + 24], &BCACHEFS_MAGIC),
    // The slots in use depend on the pool's history: the check counts them all.
    sig("zfs_member", &[ZFS_UBERBLOCKS], &[]).check(zfs),
    sig("ReFS", &[3], b"ReFS\0\0\0\0").also(&[(13, b"FSRS")]),
    sig("jfs", &[32768], b"JFS1"),
    sig("reiserfs", &[65536 + 52, 8192 + 52], b"ReIsErFs"),
    sig("reiserfs", &[65536 + 52], b"ReIsEr2Fs"),
    sig("reiserfs", &[65536 + 52], b"ReIsEr3Fs"),
    sig("ceph_bluestore", &[0], b"bluestore block device"),
    sig("DM_integrity", &[0], b"integrt\0"),
    sig(
        "VMFS_volume_member",
        &[1 << 20],
        &0xC001_D00D_u32.to_le_bytes(),
    ),
    sig("apfs", &[32], b"NXSB"),
    sig("hfsplus", &[1024], b"H+\0\x04"),
    sig("hfsplus", &[1024], b"HX\0\x05"),
];

const BCACHEFS_MAGIC: [u8; 16] = [
    0xc6, 0x85, 0x73, 0xf6, 0x66, 0xce, 0x90, 0xa9, 0xd9, 0x6a, 0x60, 0xcf, 0x80, 0x3d, 0xf7, 0xef,
];
/// ZFS uberblocks: an array of 1 KiB slots from 128 KiB in the first label.
const ZFS_UBERBLOCKS: i64 = 128 * 1024;
const ZFS_MAGIC_LE: [u8; 8] = 0x00ba_b10c_u64.to_le_bytes();
const ZFS_MAGIC_BE: [u8; 8] = 0x00ba_b10c_u64.to_be_bytes();

/// ZFS: the uberblock magic in at least 4 of the 128 slots of the first label (one match
/// alone could be chance).
fn zfs(img: &Image, at: u64) -> Option<&'static str> {
    let hits = (0..128u64)
        .filter(|k| {
            let o = at + k * 1024;
            img.get(o, 8)
                .is_some_and(|b| b == ZFS_MAGIC_LE || b == ZFS_MAGIC_BE)
        })
        .count();
    (hits >= 4).then_some("zfs_member")
}

/// An MBR: at least one plausible partition entry and no implausible one.
fn mbr(img: &Image, at: u64) -> Option<&'static str> {
    let entries = img.get(at - 64, 64)?;
    let mut used = 0;
    for e in entries.chunks(16) {
        if e[0] != 0x00 && e[0] != 0x80 {
            return None;
        }
        let sectors = u32::from_le_bytes([e[12], e[13], e[14], e[15]]);
        if e[4] != 0 && sectors != 0 {
            used += 1;
        }
    }
    (used > 0).then_some("MBR")
}

/// An ext2/3/4 superblock (magic at 56 in it) with sane sizes, named by its features.
fn ext(img: &Image, at: u64) -> Option<&'static str> {
    let sb = at - 56;
    let inodes = img.le32(sb)?;
    let log_block_size = img.le32(sb + 24)?;
    let rev_level = img.le32(sb + 76)?;
    if inodes == 0 || log_block_size > 6 || rev_level > 1 {
        return None;
    }
    let compat = img.le32(sb + 92)?;
    let incompat = img.le32(sb + 96)?;
    let ro_compat = img.le32(sb + 100)?;
    Some(if incompat & 0x8 != 0 {
        "ext journal"
    } else if incompat & !0x17 != 0 || ro_compat & !0x7 != 0 {
        // Anything beyond ext3's feature set: extents, 64bit, flex_bg, huge_file, ...
        "ext4"
    } else if compat & 0x4 != 0 {
        "ext3"
    } else {
        "ext2"
    })
}

/// Parts of a device (or an image of one) held in memory, at their offsets.
struct Image<'a> {
    len: u64,
    parts: [(u64, &'a [u8]); 2],
}

impl Image<'_> {
    /// `n` bytes at `off`, if one of the parts holds them all.
    fn get(&self, off: u64, n: usize) -> Option<&[u8]> {
        self.parts.iter().find_map(|&(start, bytes)| {
            let from = usize::try_from(off.checked_sub(start)?).ok()?;
            bytes.get(from..from.checked_add(n)?)
        })
    }

    fn le32(&self, off: u64) -> Option<u32> {
        let b = self.get(off, 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn matches(&self, off: u64, magic: &[u8]) -> bool {
        self.get(off, magic.len()) == Some(magic)
    }

    /// Every signature found, each reported once.
    fn probe(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut boot = false;
        for p in PROBES {
            let Some(base) = p.base.resolve(self.len) else {
                continue;
            };
            let hit = p.at.iter().find_map(|&rel| {
                let at = base.checked_add_signed(rel)?;
                let ok = self.matches(at, p.magic)
                    && p.also.iter().all(|&(o, m)| self.matches(at + o, m));
                if !ok {
                    return None;
                }
                p.check.map_or(Some(p.name), |check| check(self, at))
            });
            let Some(name) = hit else { continue };
            boot |= p.boot;
            let f = if p.table {
                Finding::PartitionTable(name)
            } else {
                Finding::Signature(name)
            };
            if !out.contains(&f) {
                out.push(f);
            }
        }
        if boot {
            // vfat, ntfs and the GPT's protective MBR end the boot sector in 0x55AA too.
            out.retain(|f| *f != Finding::PartitionTable("MBR"));
        }
        out
    }
}

/// The signatures in `image`, taken as a whole device's bytes: the probe
/// [`check_block_device`] runs on the head and tail it reads, over one buffer.
#[cfg(test)]
pub(crate) fn probe_bytes(image: &[u8]) -> Vec<Finding> {
    Image {
        len: image.len() as u64,
        parts: [(0, image), (0, &[])],
    }
    .probe()
}

/// Check a path a job will write or trim. A path that does not exist, a regular file or
/// anything else that is not a block device gives no findings. For a block device (or a
/// partition) this looks for partition tables and file-system or volume signatures
/// (reading, never writing), for mounts of it or of its partitions in
/// `/proc/self/mountinfo`, and opens it with `O_EXCL` (`EBUSY`: [`Finding::Busy`]).
/// Returns every finding; an empty list means writing destroys nothing anyone uses.
pub fn check_block_device(path: &Path) -> io::Result<Vec<Finding>> {
    check_target(path, false)
}

/// [`check_block_device`], and for a regular file: whether it backs an attached loop
/// device, and (with `probe_files`, for files of 1 MiB or more) whether it holds a disk
/// image with a partition table or a file-system signature.
pub fn check_target(path: &Path, probe_files: bool) -> io::Result<Vec<Finding>> {
    let md = match std::fs::metadata(path) {
        Ok(m) => m,
        // Not there yet: fathom will create a file, so there is nothing to protect.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    if md.file_type().is_file() {
        let mut out: Vec<Finding> = loops_backed_by(&md)
            .into_iter()
            .map(Finding::LoopBacking)
            .collect();
        if probe_files && md.len() >= 1 << 20 {
            let f = File::open(path)?;
            let len = md.len();
            let head = read_at(&f, 0, HEAD_LEN.min(len as usize))?;
            let tail_at = len.saturating_sub(TAIL_LEN as u64);
            let tail = read_at(&f, tail_at, (len - tail_at) as usize)?;
            out.extend(
                Image {
                    len,
                    parts: [(0, &head), (tail_at, &tail)],
                }
                .probe(),
            );
        }
        return Ok(out);
    }
    if !md.file_type().is_block_device() {
        return Ok(Vec::new());
    }
    let mut f = File::open(path)?;
    let len = f.seek(SeekFrom::End(0))?;
    let head = read_at(
        &f,
        0,
        HEAD_LEN.min(usize::try_from(len).unwrap_or(usize::MAX)),
    )?;
    let tail_at = len.saturating_sub(TAIL_LEN as u64);
    let tail = read_at(&f, tail_at, (len - tail_at) as usize)?;
    drop(f);
    let mut out = Image {
        len,
        parts: [(0, &head), (tail_at, &tail)],
    }
    .probe();
    out.extend(mounts_of(md.rdev()).into_iter().map(Finding::Mounted));
    // An exclusive open of a block device fails with EBUSY while the kernel holds it for
    // someone else: a mounted file system, device mapper (LVM, LUKS), md, swap.
    let excl = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path);
    if matches!(&excl, Err(e) if e.raw_os_error() == Some(libc::EBUSY)) {
        out.push(Finding::Busy);
    }
    Ok(out)
}

/// The loop devices (`/dev/loopN`) backed by the file with this device and inode number.
fn loops_backed_by(md: &std::fs::Metadata) -> Vec<String> {
    // Read from sysfs at most once a second (a job may check 10^6 files), so a loop
    // device attached since is seen by the next plan.
    type Backings = (std::time::Instant, Vec<(u64, u64, String)>);
    static CACHE: std::sync::Mutex<Option<Backings>> = std::sync::Mutex::new(None);
    let Ok(mut cache) = CACHE.lock() else {
        return Vec::new();
    };
    if cache
        .as_ref()
        .is_none_or(|(t, _)| t.elapsed() > std::time::Duration::from_secs(1))
    {
        *cache = Some((std::time::Instant::now(), loop_backings()));
    }
    cache
        .as_ref()
        .map(|(_, v)| {
            v.iter()
                .filter(|(dev, ino, _)| *dev == md.dev() && *ino == md.ino())
                .map(|(_, _, name)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Every attached loop device's backing file as (device, inode, /dev/loopN), from sysfs.
fn loop_backings() -> Vec<(u64, u64, String)> {
    let Ok(dir) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut out: Vec<(u64, u64, String)> = dir
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let backing = std::fs::read_to_string(e.path().join("loop/backing_file")).ok()?;
            let m = std::fs::metadata(backing.trim_end()).ok()?;
            Some((m.dev(), m.ino(), format!("/dev/{name}")))
        })
        .collect();
    out.sort();
    out
}

/// Up to `n` bytes at `off` (fewer only at the end of the device).
fn read_at(f: &File, off: u64, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match f.read_at(&mut buf[got..], off + got as u64) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(got);
    Ok(buf)
}

/// Mount points of the device `rdev` or of its partitions, from /proc/self/mountinfo:
/// by the major:minor field, or by a /dev source naming the device (btrfs reports an
/// anonymous major:minor).
fn mounts_of(rdev: u64) -> Vec<String> {
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let mut devs = vec![(major, minor)];
    devs.extend(partitions_of(major, minor));
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in info.lines() {
        // id parent major:minor root mount-point options [optional...] - type source ...
        let fields: Vec<&str> = line.split(' ').collect();
        let (Some(dev), Some(point)) = (fields.get(2), fields.get(4)) else {
            continue;
        };
        let by_number = parse_dev(dev).is_some_and(|d| devs.contains(&d));
        let by_source = fields
            .iter()
            .position(|&f| f == "-")
            .and_then(|i| fields.get(i + 2))
            .map(|s| unescape(s))
            .filter(|s| s.starts_with("/dev/"))
            .and_then(|s| std::fs::metadata(s).ok())
            .filter(|m| m.file_type().is_block_device())
            .is_some_and(|m| devs.contains(&(libc::major(m.rdev()), libc::minor(m.rdev()))));
        let point = unescape(point);
        if (by_number || by_source) && !out.contains(&point) {
            out.push(point);
        }
    }
    out
}

/// "8:1" → (8, 1).
fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The major:minor numbers of a whole disk's partitions, from sysfs.
fn partitions_of(major: u32, minor: u32) -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir(format!("/sys/dev/block/{major}:{minor}")) else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| e.path().join("partition").exists())
        .filter_map(|e| std::fs::read_to_string(e.path().join("dev")).ok())
        .filter_map(|d| parse_dev(d.trim()))
        .collect()
}

/// Undo mountinfo's octal escapes (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) if b[i] == b'\\' => {
                out.push(d.iter().fold(0u8, |v, c| v.wrapping_mul(8) + (c - b'0')));
                i += 4;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 MiB image with `magic` at `at`.
    fn with(at: usize, magic: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 1 << 20];
        put(&mut b, at, magic);
        b
    }

    fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
        b[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn sig(name: &'static str) -> Vec<Finding> {
        vec![Finding::Signature(name)]
    }

    /// An ext superblock: magic, a sane size, these features.
    fn ext_image(compat: u32, incompat: u32, ro_compat: u32) -> Vec<u8> {
        let mut b = with(1024 + 56, &[0x53, 0xef]);
        put(&mut b, 1024, &4096u32.to_le_bytes());
        put(&mut b, 1024 + 24, &2u32.to_le_bytes());
        put(&mut b, 1024 + 76, &1u32.to_le_bytes());
        put(&mut b, 1024 + 92, &compat.to_le_bytes());
        put(&mut b, 1024 + 96, &incompat.to_le_bytes());
        put(&mut b, 1024 + 100, &ro_compat.to_le_bytes());
        b
    }

    fn xorshift(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn blank_and_random_images_have_no_findings() {
        assert!(probe_bytes(&[]).is_empty());
        assert!(probe_bytes(&[0u8; 100]).is_empty());
        assert!(probe_bytes(&vec![0u8; 64 << 20]).is_empty());
        for seed in 1..=32 {
            let r = xorshift(0x9e37_79b9_7f4a_7c15 ^ seed, 1 << 20);
            assert_eq!(probe_bytes(&r), vec![], "seed {seed}");
        }
    }

    #[test]
    fn ext_is_named_by_its_features() {
        assert_eq!(probe_bytes(&ext_image(0, 0x2, 0x1)), sig("ext2"));
        assert_eq!(probe_bytes(&ext_image(0x4, 0x2, 0x1)), sig("ext3"));
        assert_eq!(probe_bytes(&ext_image(0x4, 0x2c2, 0x1)), sig("ext4"));
        assert_eq!(probe_bytes(&ext_image(0x4, 0x2, 0x400)), sig("ext4"));
        assert_eq!(probe_bytes(&ext_image(0, 0x8, 0)), sig("ext journal"));
        // The magic alone, with an impossible block size, is not a file system.
        let mut b = ext_image(0, 0, 0);
        put(&mut b, 1024 + 24, &40u32.to_le_bytes());
        assert!(probe_bytes(&b).is_empty());
        assert!(probe_bytes(&with(1080, &[0x53, 0xef])).is_empty());
    }

    /// Bytes to put at an offset.
    type Bytes<'a> = (usize, &'a [u8]);

    #[test]
    fn blkid_s_other_signatures_are_found() {
        let len = 2usize << 20;
        let zfs_le = 0x00ba_b10c_u64.to_le_bytes();
        let cases: &[(&[Bytes], &str)] = &[
            (&[(1024, &0xF2F5_2010_u32.to_le_bytes())], "f2fs"),
            (&[(0, b"hsqs")], "squashfs"),
            (&[(4096 + 24, &BCACHEFS_MAGIC)], "bcachefs"),
            (
                &[
                    (128 << 10, &zfs_le),
                    ((128 << 10) + 5 * 1024, &zfs_le),
                    ((128 << 10) + 9 * 1024, &zfs_le),
                    ((128 << 10) + 77 * 1024, &zfs_le),
                ],
                "zfs_member",
            ),
            (&[(3, b"ReFS\0\0\0\0"), (16, b"FSRS")], "ReFS"),
            (&[(32768, b"JFS1")], "jfs"),
            (&[(65536 + 52, b"ReIsEr2Fs")], "reiserfs"),
            (&[(0, b"bluestore block device")], "ceph_bluestore"),
            (&[(0, b"integrt\0")], "DM_integrity"),
            (
                &[(1 << 20, &0xC001_D00D_u32.to_le_bytes())],
                "VMFS_volume_member",
            ),
            (&[(32, b"NXSB")], "apfs"),
            (&[(1024, b"H+\0\x04")], "hfsplus"),
        ];
        for (bytes, want) in cases {
            let mut b = vec![0u8; len];
            for (at, m) in *bytes {
                put(&mut b, *at, m);
            }
            assert_eq!(probe_bytes(&b), vec![Finding::Signature(want)], "{want}");
            assert!(Finding::Signature(want).to_string().len() > want.len());
        }
        // Three ZFS uberblocks could be chance; ReFS without its second mark is not ReFS.
        let mut b = vec![0u8; len];
        for k in [0, 1, 2] {
            put(&mut b, (128 << 10) + k * 1024, &zfs_le);
        }
        put(&mut b, 3, b"ReFS\0\0\0\0");
        assert!(probe_bytes(&b).is_empty());
    }

    #[test]
    fn each_signature_is_found() {
        let md1 = [0xfc, 0x4e, 0x2b, 0xa9, 1, 0, 0, 0];
        let md0 = [0xfc, 0x4e, 0x2b, 0xa9, 0, 0, 0, 0];
        let len = 1usize << 20;
        let cases: &[(&[Bytes], Finding)] = &[
            (&[(0, b"XFSB")], Finding::Signature("xfs")),
            (&[(65536 + 64, b"_BHRfS_M")], Finding::Signature("btrfs")),
            (&[(512, b"EFI PART")], Finding::PartitionTable("GPT")),
            (&[(4096, b"EFI PART")], Finding::PartitionTable("GPT")),
            (&[(len - 512, b"EFI PART")], Finding::PartitionTable("GPT")),
            (&[(54, b"FAT12   ")], Finding::Signature("vfat")),
            (&[(54, b"FAT16   ")], Finding::Signature("vfat")),
            (&[(82, b"FAT32   ")], Finding::Signature("vfat")),
            (&[(3, b"NTFS    ")], Finding::Signature("ntfs")),
            (&[(3, b"EXFAT   ")], Finding::Signature("exfat")),
            (&[(4086, b"SWAPSPACE2")], Finding::Signature("swap")),
            (&[(4086, b"SWAP-SPACE")], Finding::Signature("swap")),
            (&[(65526, b"SWAPSPACE2")], Finding::Signature("swap")),
            (
                &[(1536, b"LABELONE"), (1536 + 24, b"LVM2 001")],
                Finding::Signature("LVM2"),
            ),
            (&[(0, b"LUKS\xba\xbe")], Finding::Signature("LUKS")),
            (&[(0, &md1)], Finding::Signature("Linux RAID")),
            (&[(4096, &md1)], Finding::Signature("Linux RAID")),
            (&[(len - 8192, &md1)], Finding::Signature("Linux RAID")),
            (&[(len - 65536, &md0)], Finding::Signature("Linux RAID")),
            (&[(32769, b"CD001")], Finding::Signature("iso9660")),
            (&[(4096 + 24, &BCACHE_MAGIC)], Finding::Signature("bcache")),
        ];
        for (bytes, want) in cases {
            let mut b = vec![0u8; len];
            for (at, m) in *bytes {
                put(&mut b, *at, m);
            }
            assert_eq!(probe_bytes(&b), vec![want.clone()], "{want}");
        }
        // Half a signature is none.
        assert!(probe_bytes(&with(1536, b"LABELONE")).is_empty());
        assert!(probe_bytes(&with(4096, &md1[..4])).is_empty());
    }

    #[test]
    fn md_superblocks_at_the_end_follow_the_device_size() {
        // 0.90: the last 64 KiB-aligned 64 KiB block; 1.0: 8 KiB from the end, 4 KiB
        // aligned. A size that is not a multiple of either moves them.
        let len = (1 << 20) + 5 * 4096 + 512;
        let mut b = vec![0u8; len];
        put(
            &mut b,
            (1 << 20) - 65536,
            &[0xfc, 0x4e, 0x2b, 0xa9, 0, 0, 0, 0],
        );
        assert_eq!(probe_bytes(&b), sig("Linux RAID"));
        let mut b = vec![0u8; len];
        put(
            &mut b,
            (len - 8192) & !4095,
            &[0xfc, 0x4e, 0x2b, 0xa9, 1, 0, 0, 0],
        );
        assert_eq!(probe_bytes(&b), sig("Linux RAID"));
    }

    fn mbr_image(boot: u8, kind: u8, sectors: u32) -> Vec<u8> {
        let mut b = with(510, &[0x55, 0xaa]);
        b[446] = boot;
        b[446 + 4] = kind;
        put(&mut b, 446 + 8, &2048u32.to_le_bytes());
        put(&mut b, 446 + 12, &sectors.to_le_bytes());
        b
    }

    #[test]
    fn an_mbr_needs_a_plausible_partition_entry() {
        let table = vec![Finding::PartitionTable("MBR")];
        assert_eq!(probe_bytes(&mbr_image(0x80, 0x83, 1 << 20)), table);
        assert_eq!(probe_bytes(&mbr_image(0x00, 0x07, 1 << 20)), table);
        // 0x55AA with no entries, an empty entry, or a bad boot flag is no table.
        assert!(probe_bytes(&with(510, &[0x55, 0xaa])).is_empty());
        assert!(probe_bytes(&mbr_image(0x80, 0x83, 0)).is_empty());
        assert!(probe_bytes(&mbr_image(0x13, 0x83, 1 << 20)).is_empty());
    }

    #[test]
    fn boot_sector_file_systems_are_not_also_an_mbr() {
        for (at, magic, name) in [
            (82, &b"FAT32   "[..], "vfat"),
            (54, b"FAT16   ", "vfat"),
            (3, b"NTFS    ", "ntfs"),
            (3, b"EXFAT   ", "exfat"),
        ] {
            let mut b = mbr_image(0x00, 0x0c, 1 << 20);
            put(&mut b, at, magic);
            assert_eq!(probe_bytes(&b), sig(name));
        }
        // A GPT's protective MBR is the GPT.
        let mut b = mbr_image(0x00, 0xee, u32::MAX);
        put(&mut b, 512, b"EFI PART");
        assert_eq!(probe_bytes(&b), vec![Finding::PartitionTable("GPT")]);
    }

    #[test]
    fn several_findings_are_all_reported_once() {
        let mut b = ext_image(0x4, 0x2c2, 0);
        put(&mut b, 32769, b"CD001");
        put(&mut b, 4096, b"EFI PART");
        put(&mut b, (1 << 20) - 4096, b"EFI PART");
        assert_eq!(
            probe_bytes(&b),
            vec![
                Finding::PartitionTable("GPT"),
                Finding::Signature("ext4"),
                Finding::Signature("iso9660"),
            ]
        );
    }

    #[test]
    fn findings_read_as_english() {
        let s = |f: Finding| f.to_string();
        assert_eq!(s(Finding::PartitionTable("GPT")), "a GPT partition table");
        assert_eq!(s(Finding::PartitionTable("MBR")), "an MBR partition table");
        assert_eq!(
            s(Finding::Signature("ext4")),
            "an ext4 (ext2/3/4 family) file system signature"
        );
        assert_eq!(s(Finding::Signature("xfs")), "an xfs file system signature");
        assert_eq!(s(Finding::Signature("swap")), "a swap space signature");
        assert_eq!(s(Finding::Signature("zfs")), "a zfs signature");
        assert_eq!(
            s(Finding::Mounted("/mnt/x".into())),
            "it is mounted at /mnt/x"
        );
        assert_eq!(
            s(Finding::Busy),
            "it is in use by another user (opening it exclusively gave EBUSY)"
        );
        for p in PROBES {
            assert!(
                phrase(p.name).is_some() || p.table || p.name == "ext",
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape(r"/mnt/a\040b\011c\134d"), "/mnt/a b\tc\\d");
        assert_eq!(unescape(r"/plain"), "/plain");
        assert_eq!(unescape(r"/odd\04"), r"/odd\04");
        assert_eq!(parse_dev("259:3"), Some((259, 3)));
        assert_eq!(parse_dev("x:3"), None);
    }

    #[test]
    fn only_block_devices_are_checked() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, ext_image(0x4, 0x2c2, 0)).unwrap();
        assert!(check_block_device(&p).unwrap().is_empty());
        assert!(check_block_device(&d.path().join("missing"))
            .unwrap()
            .is_empty());
        assert!(check_block_device(d.path()).unwrap().is_empty());
        assert!(check_block_device(Path::new("/dev/null"))
            .unwrap()
            .is_empty());
    }
}
