//! zonemode=zbd in the timing loop: each I/O the generator makes is steered to its zone
//! as fio steers it. A write goes to its zone's write pointer (a full zone is reset
//! first; with max_open_zones, to one of the open zones); a read goes to a zone holding
//! data and stays below its write pointer; a trim resets its zone. A zone has one I/O in
//! flight at a time (fio holds a zone's lock from an I/O's issue to its end), so a clone
//! whose next I/O finds its zone busy drains its own I/Os first, then waits for the zone.
//!
//! The zones themselves ([`ZoneFile`]) are the run's, shared by every clone on the file.

use crate::plan::zones::{zones_for, ZoneFile};
use crate::plan::{PlannedClone, PlannedJob};
use fathom_job::Ddir;
use fathom_workload::IoReq;
use std::sync::{Arc, Mutex, MutexGuard};

/// What becomes of the generator's next I/O.
pub(crate) enum Steer {
    /// Issue it (as steered).
    Go(IoReq),
    /// Drop it: a sequential writer's offset past its zone's capacity (it goes on at the
    /// next zone's start, as fio's does).
    Skip,
    /// Its zone has an I/O in flight: drain, or wait for the other clone, then ask again.
    Busy,
    /// Nothing more can be done (no zone to read or to open): the clone's work ends, with
    /// why.
    End(&'static str),
    /// An error ends the job (errno, text).
    Fail(i32, String),
}

/// One of the clone's files: its zones and the clone's range of them.
struct ZonedFile {
    zones: Arc<Mutex<ZoneFile>>,
    /// The clone's region: its start and length (fio's file_offset and io_size).
    offset: u64,
    io_size: u64,
    /// Its zones: min_zone..max_zone.
    min_zone: u32,
    max_zone: u32,
}

/// A clone's view of its files' zones.
pub(crate) struct ZbdClone {
    files: Vec<ZonedFile>,
    /// This clone (its id + 1 marks the zones it holds).
    me: u32,
    random: bool,
    /// The job both reads and writes (its first reads become writes while no zone holds
    /// data).
    reads_and_writes: bool,
    read_beyond_wp: bool,
    min_bs: [u64; 3],
    job_max_open: u32,
    /// Zones this clone opened and that are still open.
    my_open: u32,
    /// zone_reset_threshold and zone_reset_frequency.
    reset_threshold: f64,
    reset_frequency: f64,
    /// Zones reset by this clone.
    pub resets: u64,
    /// Zones this clone holds (file, zone): I/Os in flight.
    held: Vec<(usize, u32)>,
}

fn lock(z: &Mutex<ZoneFile>) -> MutexGuard<'_, ZoneFile> {
    z.lock().unwrap_or_else(|e| e.into_inner())
}

impl ZbdClone {
    /// The clone's zones (None unless the job has zonemode=zbd); a file's zones are made
    /// by the first clone to start on it, over the file's size then.
    pub(crate) fn new(job: &PlannedJob, clone: &PlannedClone) -> Option<Box<ZbdClone>> {
        let spec = &job.spec;
        // A replayed log's I/Os go where the log says (fio steers only generated ones).
        if spec.zonemode != fathom_job::ZoneMode::Zbd || clone.replay.is_some() {
            return None;
        }
        let files = clone
            .files
            .iter()
            .map(|f| {
                let size = crate::plan::file_size(&f.path)
                    .unwrap_or(0)
                    .max(f.region.start + f.region.len);
                let zones = zones_for(&job.zones, &f.path, size, spec);
                let (min_zone, max_zone) = {
                    let z = lock(&zones);
                    let lo = z.zone_of(f.region.start);
                    let end = f.region.start + f.region.len;
                    let hi = ((end / z.size) as u32).min(z.zones());
                    (lo, hi.max(lo + 1))
                };
                ZonedFile {
                    zones,
                    offset: f.region.start,
                    io_size: f.region.len,
                    min_zone,
                    max_zone,
                }
            })
            .collect();
        let k = spec.rw.kind;
        let z = &spec.control.zbd;
        let min_bs = [0, 1, 2].map(|d| {
            spec.bsrange[d]
                .map_or(spec.bs.0[d], |r| r.0)
                .min(
                    spec.bssplit[d]
                        .iter()
                        .map(|x| x.0)
                        .min()
                        .unwrap_or(u64::MAX),
                )
                .max(1)
        });
        Some(Box::new(ZbdClone {
            files,
            me: clone.index,
            random: k.is_random(),
            reads_and_writes: k.reads() && k.writes(),
            read_beyond_wp: z.read_beyond_wp,
            min_bs,
            job_max_open: z.job_max_open_zones,
            my_open: 0,
            reset_threshold: z.reset_threshold,
            reset_frequency: z.reset_frequency,
            resets: 0,
            held: Vec::new(),
        }))
    }

    /// Steer the generator's next I/O.
    pub(crate) fn steer(&mut self, mut req: IoReq) -> Steer {
        let zf = self.files[req.file].zones.clone();
        let mut z = lock(&zf);
        // The first reads of a job that reads and writes become writes while no zone
        // holds data (as fio: otherwise it would stop at once).
        if req.ddir == Ddir::Read && self.reads_and_writes && z.data == 0 && !self.read_beyond_wp {
            req.ddir = Ddir::Write;
        }
        let f = &self.files[req.file];
        if req.offset < f.offset || req.offset >= f.offset + f.io_size {
            return Steer::Go(req);
        }
        let zi = z.zone_of(req.offset);
        // A sequential writer at its zone's capacity goes on at the next zone's start.
        if !self.random
            && req.ddir == Ddir::Write
            && z.capacity < z.size
            && req.offset >= z.cap_end(zi)
        {
            return Steer::Skip;
        }
        if req.ddir == Ddir::Read && self.read_beyond_wp {
            return Steer::Go(req);
        }
        match req.ddir {
            Ddir::Read => self.read(&mut z, req, zi),
            Ddir::Write => self.write(&mut z, req, zi),
            _ => self.trim(&mut z, req, zi),
        }
    }

    /// Whether zone `zi` can be taken for an I/O now.
    fn free(&self, z: &ZoneFile, zi: u32) -> bool {
        z.held[zi as usize] == 0
    }

    fn hold(&mut self, z: &mut ZoneFile, file: usize, zi: u32) {
        z.held[zi as usize] = self.me + 1;
        self.held.push((file, zi));
    }

    /// A read: to a zone with data (the next one for a sequential reader, the nearest for
    /// a random one), inside what was written.
    fn read(&mut self, z: &mut ZoneFile, mut req: IoReq, orig: u32) -> Steer {
        let min_bs = self.min_bs[0];
        let f = &self.files[req.file];
        let mut zi = orig;
        let mut range = z.wp[zi as usize] - z.start(zi);
        if range < min_bs || (!self.random && req.offset + min_bs > z.wp[zi as usize]) {
            let Some(found) = find_zone(z, f, zi, min_bs, self.random) else {
                return Steer::End("no zone holds data to read below its write pointer (the zones start empty in each run: write them in an earlier job of the run, or set read_beyond_wp=1)");
            };
            zi = found;
            range = z.wp[zi as usize] - z.start(zi);
            if !self.random {
                req.offset = z.start(zi);
            }
        }
        if !self.free(z, zi) {
            return Steer::Busy;
        }
        if range <= req.len {
            req.offset = z.start(zi);
        } else if self.random {
            req.offset =
                z.start(zi) + ((req.offset - z.start(orig)) % (range - req.len)) / min_bs * min_bs;
        }
        let room = z.wp[zi as usize].saturating_sub(req.offset);
        let len = req.len.min(room) / min_bs * min_bs;
        if len < req.len {
            req.len = len;
        }
        if req.len == 0 {
            return Steer::End("no zone holds data to read below its write pointer");
        }
        self.hold(z, req.file, zi);
        Steer::Go(req)
    }

    /// A write: at its zone's write pointer (another open zone's when the open-zone limit
    /// is reached; a full zone is reset first).
    fn write(&mut self, z: &mut ZoneFile, mut req: IoReq, zi: u32) -> Steer {
        let min_bs = self.min_bs[1];
        if req.len > z.size {
            return Steer::Fail(
                libc::EINVAL,
                format!(
                    "zonemode=zbd: a write of {} bytes is larger than the zone size {}",
                    req.len, z.size
                ),
            );
        }
        let zi = if self.open_zone(z, zi) {
            zi
        } else {
            match self.other_open_zone(z, &req, zi) {
                Some(o) => o,
                None => return Steer::End("no zone could be opened for writing (max_open_zones / job_max_open_zones reached and every open zone full)"),
            }
        };
        if !self.free(z, zi) {
            return Steer::Busy;
        }
        let f = &self.files[req.file];
        if self.reset_frequency > 0.0 {
            let wp_data: u64 = (f.min_zone..f.max_zone)
                .map(|i| z.wp[i as usize] - z.start(i))
                .sum();
            if wp_data as f64 >= f.io_size as f64 * self.reset_threshold && self.count_down(z) {
                z.reset_due[zi as usize] = true;
            }
        }
        if z.reset_due[zi as usize] || z.full(zi, min_bs) {
            if z.reset(zi) {
                self.resets += 1;
            }
            if z.capacity < min_bs {
                return Steer::Fail(libc::EINVAL, format!("zonemode=zbd: the zone capacity {} is smaller than the block size {min_bs}", z.capacity));
            }
        }
        req.offset = z.wp[zi as usize];
        if req.offset >= f.offset + f.io_size {
            return Steer::Fail(
                libc::EINVAL,
                format!(
                    "zonemode=zbd: the write pointer {} is past the job's range",
                    req.offset
                ),
            );
        }
        let room = z.cap_end(zi) - req.offset;
        let len = req.len.min(room) / min_bs * min_bs;
        if len < min_bs {
            return Steer::Fail(libc::EIO, format!("zonemode=zbd: the zone's remaining {room} bytes are fewer than the block size {min_bs}"));
        }
        req.len = len;
        // The write pointer moves as the write is issued.
        let end = (req.offset + req.len).min(z.cap_end(zi));
        z.data += end - z.wp[zi as usize];
        z.wp[zi as usize] = end;
        self.hold(z, req.file, zi);
        Steer::Go(req)
    }

    /// A trim resets its zone (a random trimmer picks a zone holding data).
    fn trim(&mut self, z: &mut ZoneFile, mut req: IoReq, zi: u32) -> Steer {
        let mut zi = zi;
        if self.random && z.wp[zi as usize] == z.start(zi) {
            let f = &self.files[req.file];
            match find_zone(z, f, zi, 1, true) {
                Some(o) => {
                    zi = o;
                    req.offset = z.start(zi);
                }
                None => return Steer::End("no zone holds data to trim"),
            }
        }
        if req.offset != z.start(zi) {
            return Steer::Fail(
                libc::EINVAL,
                format!(
                    "zonemode=zbd: a trim at {} is not at a zone's start",
                    req.offset
                ),
            );
        }
        if !self.free(z, zi) {
            return Steer::Busy;
        }
        if z.reset(zi) {
            self.resets += 1;
        }
        self.hold(z, req.file, zi);
        Steer::Go(req)
    }

    /// Open zone `zi` for writing: true when it is open (or open zones are not tracked).
    fn open_zone(&mut self, z: &mut ZoneFile, zi: u32) -> bool {
        if z.max_open == 0 {
            return true;
        }
        if z.open[zi as usize] {
            // A zone that in-flight writes will fill counts as full, not open.
            return z.wp[zi as usize] < z.cap_end(zi);
        }
        if self.job_max_open > 0 && self.my_open >= self.job_max_open {
            return false;
        }
        if z.open_list.len() as u32 >= z.max_open {
            return false;
        }
        z.open[zi as usize] = true;
        z.open_list.push(zi);
        self.my_open += 1;
        true
    }

    /// The open-zone limit is reached: an open zone of the clone's range with room (one
    /// picked from the I/O's offset first), else the next zone that can be opened.
    fn other_open_zone(&mut self, z: &mut ZoneFile, req: &IoReq, zi: u32) -> Option<u32> {
        let min_bs = self.min_bs[1];
        let (lo, hi, offset, io_size) = {
            let f = &self.files[req.file];
            (f.min_zone, f.max_zone, f.offset, f.io_size)
        };
        let in_range = |o: u32| lo <= o && o < hi;
        let n = z.open_list.len();
        if n > 0 {
            // A quasi-random open zone, from the offset's place in the range (as fio).
            let pick =
                ((req.offset - offset) as u128 * n as u128 / io_size.max(1) as u128) as usize;
            let cand = (0..n)
                .map(|i| z.open_list[(pick + i) % n])
                .find(|&o| in_range(o));
            let c = cand?;
            if z.wp[c as usize] + min_bs <= z.cap_end(c) {
                return Some(c);
            }
        }
        // Open another: the zones after this one, going round the range.
        let mut cur = zi.clamp(lo, hi - 1);
        for _ in 0..(io_size / z.size).max(1) {
            cur = if cur + 1 >= hi { lo } else { cur + 1 };
            if z.open[cur as usize] {
                continue;
            }
            if self.open_zone(z, cur) {
                return Some(cur);
            }
        }
        // Any open zone of the range with room.
        z.open_list
            .iter()
            .copied()
            .find(|&o| in_range(o) && z.wp[o as usize] + min_bs <= z.cap_end(o))
    }

    /// zone_reset_frequency's countdown: true when this write is the one that resets.
    fn count_down(&self, z: &mut ZoneFile) -> bool {
        let every = || (1.0 / self.reset_frequency).min(u32::MAX as f64) as u32;
        if z.write_cnt == u32::MAX {
            z.write_cnt = every();
        }
        z.write_cnt = z.write_cnt.saturating_sub(1);
        if z.write_cnt == 0 {
            z.write_cnt = every();
            return true;
        }
        false
    }

    /// An I/O ended: its zone is free again, and a write that reached its zone's capacity
    /// closes the zone.
    pub(crate) fn done(&mut self, req: &IoReq) {
        let zf = self.files[req.file].zones.clone();
        let mut z = lock(&zf);
        let zi = z.zone_of(req.offset);
        let Some(k) = self.held.iter().position(|&h| h == (req.file, zi)) else {
            return;
        };
        self.held.swap_remove(k);
        z.held[zi as usize] = 0;
        if req.ddir == Ddir::Write && req.offset + req.len >= z.cap_end(zi) && z.close(zi) {
            self.my_open = self.my_open.saturating_sub(1);
        }
    }

    /// Free every zone this clone holds (it has no I/O in flight).
    pub(crate) fn release_all(&mut self) {
        for (file, zi) in self.held.drain(..) {
            let mut z = lock(&self.files[file].zones);
            if z.held[zi as usize] == self.me + 1 {
                z.held[zi as usize] = 0;
            }
        }
    }
}

impl Drop for ZbdClone {
    /// A clone that stops with I/Os in flight (an error, a signal) frees its zones for the
    /// others.
    fn drop(&mut self) {
        self.release_all();
    }
}

/// The next zone after `zi` (and, for random I/O, the nearest before it too) holding at
/// least `min` bytes below its write pointer, within the clone's range.
fn find_zone(z: &ZoneFile, f: &ZonedFile, zi: u32, min: u64, random: bool) -> Option<u32> {
    let has = |i: u32| z.start(i) + min <= z.wp[i as usize];
    let (lo, hi) = (f.min_zone as i64, f.max_zone as i64);
    let (mut up, mut down) = (zi as i64 + 1, zi as i64 - 1);
    while up < hi || down >= lo {
        if up < hi {
            if has(up as u32) {
                return Some(up as u32);
            }
        } else if !random {
            break;
        }
        if random && down >= lo && has(down as u32) {
            return Some(down as u32);
        }
        up += 1;
        down -= 1;
    }
    None
}
