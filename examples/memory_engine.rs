//! A custom I/O engine: an embedder's own I/O path (here, a RAM disk shared by every job
//! clone) registered by name, then driven by an ordinary fio job file that says
//! `ioengine=memdisk`.
//!
//! Run it with `cargo run --release --example memory_engine`; `cargo test` runs its test.

use fathom::engine::{Caps, Completion, IoUnit, OpenOptions, Queued};
use fathom::{register_engine, IoEngine, JobSet, Runner};
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The "device": one growable byte vector per file name, shared by every engine instance.
#[derive(Clone, Default)]
struct RamDisk(Arc<Mutex<HashMap<String, Vec<u8>>>>);

/// One engine instance per job clone (fathom makes one per thread).
struct MemEngine {
    disk: RamDisk,
    /// Open files: index → name.
    files: Vec<String>,
}

impl IoEngine for MemEngine {
    fn name(&self) -> &'static str {
        "memdisk"
    }
    fn caps(&self) -> Caps {
        // No real files: fathom lays out nothing and the engine stores the data itself.
        Caps {
            diskless: true,
            no_direct: true,
            ..Default::default()
        }
    }
    fn open_file(&mut self, path: &Path, _opts: &OpenOptions) -> io::Result<usize> {
        self.files.push(path.to_string_lossy().into_owned());
        Ok(self.files.len() - 1)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let mut disk = self.disk.0.lock().unwrap();
        let data = disk.entry(self.files[io.file].clone()).or_default();
        let (start, end) = (io.offset as usize, io.offset as usize + io.len);
        // SAFETY: fathom hands us `io.len` valid bytes at `io.buf` until we return.
        let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len) };
        match io.ddir {
            fathom::engine::Ddir::Write => {
                if data.len() < end {
                    data.resize(end, 0);
                }
                data[start..end].copy_from_slice(buf);
            }
            fathom::engine::Ddir::Read => {
                // Unwritten space reads as zeroes, like a sparse file.
                buf.fill(0);
                let have = data.len().min(end);
                if have > start {
                    buf[..have - start].copy_from_slice(&data[start..have]);
                }
            }
            fathom::engine::Ddir::Trim => {
                if data.len() > start {
                    let stop = data.len().min(end);
                    data[start..stop].fill(0);
                }
            }
        }
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res: io.len as i64,
            short: 0,
        }))
    }
    fn sync_file(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.files.clear();
        Ok(())
    }
}

const JOBS: &str = "\
[global]
ioengine=memdisk
filename=ramdisk0
size=8m
bs=4k

[fill]
rw=write
buffer_pattern=0xa5

[check]
stonewall
rw=randread
";

/// Register the engine and run the job file; returns the report and the disk.
fn run() -> Result<(fathom::Report, RamDisk), Box<dyn std::error::Error>> {
    let disk = RamDisk::default();
    let shared = disk.clone();
    // Each job clone gets its own engine instance over the same disk.
    register_engine("memdisk", move |_opts| {
        Box::new(MemEngine {
            disk: shared.clone(),
            files: Vec::new(),
        })
    });
    let jobs = JobSet::from_fio_str(JOBS)?;
    let report = Runner::new(jobs).run()?;
    Ok((report, disk))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (report, disk) = run()?;
    for job in &report.jobs {
        for (d, name) in ["read", "write"].iter().enumerate() {
            let s = &job.stats.dirs[d];
            if s.ios > 0 {
                println!(
                    "{:>5} {name:>5}: {} I/Os, {} bytes, clat p50 {} ns, p99 {} ns",
                    job.name,
                    s.ios,
                    s.bytes,
                    s.clat.percentile(50.0),
                    s.clat.percentile(99.0)
                );
            }
        }
    }
    let disk = disk.0.lock().unwrap();
    println!(
        "ramdisk0 holds {} bytes",
        disk.get("ramdisk0").map_or(0, Vec::len)
    );
    Ok(())
}

#[test]
fn the_memory_engine_runs_a_job_file() {
    let (report, disk) = run().unwrap();
    let fill = &report.jobs[0].stats.dirs[1];
    let check = &report.jobs[1].stats.dirs[0];
    assert_eq!((fill.ios, fill.bytes), (2048, 8 << 20));
    assert_eq!((check.ios, check.bytes), (2048, 8 << 20));
    let disk = disk.0.lock().unwrap();
    let data = &disk["ramdisk0"];
    assert_eq!(data.len(), 8 << 20);
    assert!(
        data.iter().all(|&b| b == 0xa5),
        "every byte written as patterned"
    );
}
