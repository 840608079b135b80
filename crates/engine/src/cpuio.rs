//! `cpuio`: fio's CPU burner. Moves no data and opens no files; each "I/O" burns the CPU
//! for `cpuchunks` microseconds (`cpumode=noop`: a spin on the clock) or sorts fio's 256 Ki
//! 32-bit integers once (`cpumode=qsort`: up, down, their bytes, down again). The pause after each burn
//! that brings the load to `cpuload` percent is the runner's think time, set by the plan.

use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// Integers sorted per qsort burn: fio's 256 Ki of them (1 MiB; its source calls it
/// "256KB").
const QSORT_INTS: usize = 256 << 10;

/// The cpuio engine.
pub struct CpuIo {
    chunk: Duration,
    qsort: bool,
    data: Vec<i32>,
    /// The integers' bytes, for the byte sort.
    bytes: Vec<u8>,
    seed: u32,
}

impl CpuIo {
    /// A burner of `chunk_us` microseconds per I/O, or one sort round per I/O.
    pub fn new(chunk_us: u64, qsort: bool) -> CpuIo {
        CpuIo {
            chunk: Duration::from_micros(chunk_us),
            qsort,
            data: if qsort {
                vec![0; QSORT_INTS]
            } else {
                Vec::new()
            },
            bytes: if qsort {
                vec![0; QSORT_INTS * 4]
            } else {
                Vec::new()
            },
            seed: 0x9e37_79b9,
        }
    }

    /// One sort round over fresh pseudo-random integers; returns how long it took.
    pub fn sort_round(&mut self) -> Duration {
        let t = Instant::now();
        let mut x = self.seed;
        for v in &mut self.data {
            // xorshift32: cheap, and different data every round.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *v = x as i32;
        }
        self.seed = x;
        self.data.sort_unstable();
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        // As fio: the array's bytes sorted as bytes, then the integers they make sorted
        // down again.
        for (b, v) in self.bytes.chunks_exact_mut(4).zip(&self.data) {
            b.copy_from_slice(&v.to_ne_bytes());
        }
        self.bytes.sort_unstable();
        for (v, b) in self.data.iter_mut().zip(self.bytes.chunks_exact(4)) {
            *v = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
        }
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        std::hint::black_box(&self.data);
        t.elapsed()
    }

    fn spin(&self) {
        let t = Instant::now();
        while t.elapsed() < self.chunk {
            std::hint::spin_loop();
        }
    }
}

impl IoEngine for CpuIo {
    fn name(&self) -> &'static str {
        "cpuio"
    }
    fn caps(&self) -> Caps {
        Caps {
            diskless: true,
            no_data: true,
            reopen: true,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, _path: &Path, _opts: &OpenOptions) -> io::Result<usize> {
        Ok(0)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        if self.qsort {
            self.sort_round();
        } else {
            self.spin();
        }
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res: io.len as i64,
            short: 0,
        }))
    }
    fn close_file(&mut self, _file: usize) -> io::Result<()> {
        Ok(())
    }
    fn reopen_file(&mut self, _file: usize, _path: &Path, _opts: &OpenOptions) -> io::Result<()> {
        Ok(())
    }
    fn sync_file(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noop_burn_lasts_its_chunk_and_a_sort_round_sorts() {
        let e = CpuIo::new(2000, false);
        let t = Instant::now();
        e.spin();
        assert!(t.elapsed() >= Duration::from_micros(2000));
        let mut q = CpuIo::new(0, true);
        let took = q.sort_round();
        assert!(took > Duration::ZERO);
        assert!(
            q.data.windows(2).all(|w| w[0] >= w[1]),
            "sorted down at the end"
        );
    }
}
