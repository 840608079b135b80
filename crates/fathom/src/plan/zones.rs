//! zonemode=zbd's zones: each file's zones with their write pointers, shared by every
//! clone of the run that uses the file (as fio keeps one zone table per file for the
//! whole run), and the planning checks: the options, and each region rounded to whole
//! zones as fio rounds it.
//!
//! The zones are emulated over a regular file or a block device without zones, as fio
//! 3.33 emulates them: every zone starts empty (its write pointer at its start) when the
//! run starts, whatever the file holds.

use super::{plan_err, PlannedFile};
use crate::error::RunError;
use fathom_job::{Ddir, JobSpec, RwKind, ZoneMode};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One file's zones.
#[derive(Debug)]
pub struct ZoneFile {
    /// Zone size: zone i starts at i × size.
    pub size: u64,
    /// Writable bytes of each zone (zonecapacity).
    pub capacity: u64,
    /// Each zone's write pointer.
    pub wp: Vec<u64>,
    /// Zones open for writing (tracked only with max_open_zones).
    pub open: Vec<bool>,
    /// The clone (its id + 1) whose I/O to the zone is in flight; 0: none. A zone has one
    /// I/O in flight at a time, as fio locks a zone from an I/O's issue to its end.
    pub held: Vec<u32>,
    /// A reset is due before the zone's next write (zone_reset_threshold).
    pub reset_due: Vec<bool>,
    /// The open zones, in the order they were opened.
    pub open_list: Vec<u32>,
    /// max_open_zones (0: no limit, open zones not tracked).
    pub max_open: u32,
    /// Bytes below the write pointers.
    pub data: u64,
    /// Writes until the next threshold reset (fio's write_cnt).
    pub write_cnt: u32,
}

impl ZoneFile {
    /// The zones of a file of `file_size` bytes, all empty.
    pub fn new(file_size: u64, spec: &JobSpec) -> ZoneFile {
        let size = spec.zonesize.max(1);
        let nr = file_size.div_ceil(size).max(1) as usize;
        let z = &spec.control.zbd;
        ZoneFile {
            size,
            capacity: if z.capacity == 0 { size } else { z.capacity },
            wp: (0..nr as u64).map(|i| i * size).collect(),
            open: vec![false; nr],
            held: vec![0; nr],
            reset_due: vec![false; nr],
            open_list: Vec::new(),
            max_open: z.max_open_zones,
            data: 0,
            write_cnt: u32::MAX,
        }
    }

    /// Number of zones.
    pub fn zones(&self) -> u32 {
        self.wp.len() as u32
    }

    /// The zone holding `offset` (the last zone for an offset past the end).
    pub fn zone_of(&self, offset: u64) -> u32 {
        ((offset / self.size) as u32).min(self.zones() - 1)
    }

    /// Zone `z`'s start.
    pub fn start(&self, z: u32) -> u64 {
        z as u64 * self.size
    }

    /// Where zone `z`'s writable part ends.
    pub fn cap_end(&self, z: u32) -> u64 {
        self.start(z) + self.capacity
    }

    /// Zone `z` has no room for `len` more bytes.
    pub fn full(&self, z: u32, len: u64) -> bool {
        self.wp[z as usize] + len > self.cap_end(z)
    }

    /// Empty zone `z` (its write pointer back to its start); true when it held data.
    pub fn reset(&mut self, z: u32) -> bool {
        let (start, wp) = (self.start(z), self.wp[z as usize]);
        self.reset_due[z as usize] = false;
        if wp == start {
            return false;
        }
        self.data -= wp - start;
        self.wp[z as usize] = start;
        true
    }

    /// Take zone `z` out of the open list.
    pub fn close(&mut self, z: u32) -> bool {
        if !self.open[z as usize] {
            return false;
        }
        self.open[z as usize] = false;
        self.open_list.retain(|&o| o != z);
        true
    }
}

/// Every file's zones in a run, by path.
pub type ZoneRegistry = Mutex<HashMap<PathBuf, Arc<Mutex<ZoneFile>>>>;

/// The zones of `path` in this run: made (empty) by the first clone to ask.
pub fn zones_for(
    reg: &ZoneRegistry,
    path: &Path,
    file_size: u64,
    spec: &JobSpec,
) -> Arc<Mutex<ZoneFile>> {
    let mut g = reg.lock().unwrap_or_else(|e| e.into_inner());
    g.entry(path.to_path_buf())
        .or_insert_with(|| Arc::new(Mutex::new(ZoneFile::new(file_size, spec))))
        .clone()
}

/// zonemode=zbd's options, checked as fio checks them (and what fathom does not build yet
/// refused by name).
pub(crate) fn check_zbd(spec: &JobSpec) -> Result<(), RunError> {
    if spec.zonemode != ZoneMode::Zbd {
        return Ok(());
    }
    let z = &spec.control.zbd;
    let zs = spec.zonesize;
    let err = |m: String| Err(plan_err(spec, m));
    if zs == 0 {
        return err(
            "zonemode=zbd needs zonesize= (the size of each emulated zone, e.g. zonesize=256m)"
                .into(),
        );
    }
    if zs < 512 {
        return err(format!(
            "zonesize={zs}: a zone is at least 512 bytes with zonemode=zbd"
        ));
    }
    if z.capacity > zs {
        return err(format!(
            "zonecapacity={} is larger than zonesize={zs}",
            z.capacity
        ));
    }
    if z.job_max_open_zones > 0 && z.max_open_zones == 0 {
        return err(
            "job_max_open_zones needs max_open_zones (the per-file limit) too, as in fio".into(),
        );
    }
    if spec.zoneskip > 0 {
        return err(
            "zoneskip with zonemode=zbd is not supported yet (zonemode=strided has it)".into(),
        );
    }
    if spec.verify.kind.is_some() {
        return err("verify with zonemode=zbd is not supported yet: fio resets the zones before writing and reads them back in write order; verify the file with zonemode=none".into());
    }
    if spec.rw.kind.trims() {
        let t = spec.bs.0[Ddir::Trim.index()];
        if spec.bsrange[2].is_some() || !spec.bssplit[2].is_empty() {
            return err(
                "bsrange and bssplit are not allowed for trims with zonemode=zbd (as in fio)"
                    .into(),
            );
        }
        if t != zs {
            return err(format!(
                "the trim block size {t} is not the zone size {zs}: with zonemode=zbd a trim \
                 resets one zone; set bs= (or the trim part of bs=) to the zone size"
            ));
        }
    }
    let wbs = spec.bsrange[1]
        .map_or(spec.bs.0[1], |r| r.1)
        .max(spec.bssplit[1].iter().map(|x| x.0).max().unwrap_or(0));
    if spec.rw.kind.writes() && wbs > zs {
        return err(format!(
            "a write block of {wbs} bytes is larger than the zone size {zs}: with \
             zonemode=zbd a write stays inside its zone"
        ));
    }
    Ok(())
}

/// A zbd job's files hold at least one zone each; and fio's rounding of the region to
/// whole zones (all but a sequential reader's):
/// a start inside a zone moves up to the next zone, an end inside a zone down to its
/// start, and no further than the file's last zone (its zones cover the file as it is
/// now, or, a file still to be made, the region); each change is said in `notes` as fio
/// says it.
pub(crate) fn align_regions(
    spec: &JobSpec,
    files: &mut [PlannedFile],
    notes: &mut Vec<String>,
) -> Result<(), RunError> {
    if spec.zonemode != ZoneMode::Zbd {
        return Ok(());
    }
    let zs = spec.zonesize.max(1);
    for f in files.iter_mut() {
        let name = f.path.display();
        if let Some(model) = zoned_model(&f.path) {
            return Err(plan_err(
                spec,
                format!("{name} is a zoned block device ({model}); fathom emulates zones over regular files and devices without zones, and does not drive real zones (no zone report or reset): use fio for it"),
            ));
        }
        let (mut off, mut len) = (f.region.start, f.region.len);
        let file_size = super::file_size(&f.path)
            .filter(|&n| n > 0)
            .unwrap_or(off + len);
        if file_size < zs {
            return Err(plan_err(
                spec,
                format!("{name}: the file's {file_size} bytes are fewer than one zone (zonesize {zs}), as fio refuses it"),
            ));
        }
        let table_end = file_size.div_ceil(zs) * zs;
        if len == 0 || off >= table_end || spec.rw.kind == RwKind::Read {
            continue;
        }
        let (off0, len0) = (off, len);
        let whole_zone = || {
            plan_err(
                spec,
                format!("{name}: with zonemode=zbd the I/O range must hold at least one whole zone (offset {off0}, {len0} bytes, zonesize {zs})"),
            )
        };
        if off % zs != 0 {
            let up = (off / zs + 1) * zs;
            if up >= off + len {
                return Err(whole_zone());
            }
            notes.push(format!("{name}: rounded up offset from {off} to {up}"));
            len -= up - off;
            off = up;
        }
        let end = ((off + len) / zs * zs).min(table_end);
        if end != off + len {
            if end <= off {
                return Err(whole_zone());
            }
            notes.push(format!(
                "{name}: rounded down io_size from {len} to {}",
                end - off
            ));
            len = end - off;
        }
        f.region.start = off;
        f.region.len = len;
    }
    Ok(())
}

/// A block device's zoned model when it has real zones (`host-managed`, `host-aware`):
/// sysfs's queue/zoned for the device, or for the disk a partition is on.
fn zoned_model(path: &Path) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let md = std::fs::metadata(path).ok()?;
    if !md.file_type().is_block_device() {
        return None;
    }
    let rdev = md.rdev();
    let (maj, min) = (nix::sys::stat::major(rdev), nix::sys::stat::minor(rdev));
    let dev = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    let model = std::fs::read_to_string(dev.join("queue/zoned"))
        .or_else(|_| std::fs::read_to_string(dev.join("../queue/zoned")))
        .ok()?;
    let model = model.trim();
    (!model.is_empty() && model != "none").then(|| model.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fathom_workload::FileRegion;

    fn zbd_spec(rw: RwKind) -> JobSpec {
        let mut s = JobSpec {
            zonemode: ZoneMode::Zbd,
            zonesize: 4 << 20,
            ..JobSpec::default()
        };
        s.rw.kind = rw;
        s
    }

    #[test]
    fn zones_cover_the_file_and_reset_to_their_start() {
        let mut spec = zbd_spec(RwKind::Write);
        spec.control.zbd.capacity = 3 << 20;
        let mut z = ZoneFile::new((10 << 20) + 1, &spec);
        assert_eq!(z.zones(), 3);
        assert_eq!(z.zone_of(9 << 20), 2);
        assert_eq!(z.zone_of(100 << 20), 2, "past the end: the last zone");
        assert_eq!(z.cap_end(1), (4 << 20) + (3 << 20));
        z.wp[1] = z.cap_end(1);
        z.data = 3 << 20;
        assert!(z.full(1, 4096));
        assert!(z.reset(1));
        assert!(!z.reset(1), "an empty zone needs no reset");
        assert_eq!((z.wp[1], z.data), (4 << 20, 0));
    }

    #[test]
    fn regions_are_rounded_to_whole_zones_as_fio_says() {
        let spec = zbd_spec(RwKind::Write);
        let mut files = vec![PlannedFile {
            path: PathBuf::from("/nonexistent/zbd-test"),
            region: FileRegion {
                start: 5 << 20,
                len: 30 << 20,
            },
        }];
        let mut notes = Vec::new();
        align_regions(&spec, &mut files, &mut notes).unwrap();
        assert_eq!(
            notes,
            [
                "/nonexistent/zbd-test: rounded up offset from 5242880 to 8388608",
                "/nonexistent/zbd-test: rounded down io_size from 28311552 to 25165824"
            ]
        );
        assert_eq!(
            (files[0].region.start, files[0].region.len),
            (8 << 20, 24 << 20)
        );
        // A sequential reader's region is left as it is; one too small for a zone is
        // refused.
        let mut r = files.clone();
        r[0].region = FileRegion {
            start: 1,
            len: (4 << 20) - 1,
        };
        align_regions(&zbd_spec(RwKind::Read), &mut r, &mut notes).unwrap();
        assert_eq!((r[0].region.start, r[0].region.len), (1, (4 << 20) - 1));
        let e = align_regions(&spec, &mut r, &mut notes).unwrap_err();
        assert!(e.to_string().contains("at least one whole zone"), "{e}");
        // A file smaller than a zone is refused, as fio refuses it.
        r[0].region = FileRegion {
            start: 0,
            len: 4096,
        };
        let e = align_regions(&zbd_spec(RwKind::Read), &mut r, &mut notes).unwrap_err();
        assert!(e.to_string().contains("fewer than one zone"), "{e}");
    }
}
