//! vdbench's busy files: the threads of every workload on one file tree share its files,
//! each file used by one thread at a time. A thread that draws a file another holds
//! counts the draw (vdbench's `FILE_BUSY`), waits a moment and draws again; random
//! selection draws anew, sequential selection takes the tree's next file (one cursor for
//! all its threads, as vdbench's round robin over an anchor's list).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a thread waits after drawing a busy file (vdbench sleeps 200 µs).
pub const BUSY_WAIT: Duration = Duration::from_micros(200);

/// The shared state of one set of files: which are in use, and the sequential cursor.
/// Every user must list the same files in the same order (index i is the same path).
#[derive(Debug)]
pub struct FileGate {
    busy: Box<[AtomicBool]>,
    cursor: AtomicUsize,
}

impl FileGate {
    /// A gate over `n` files, all free.
    pub fn new(n: usize) -> Arc<FileGate> {
        Arc::new(FileGate {
            busy: (0..n).map(|_| AtomicBool::new(false)).collect(),
            cursor: AtomicUsize::new(0),
        })
    }

    /// Files behind the gate.
    pub fn len(&self) -> usize {
        self.busy.len()
    }

    /// No files.
    pub fn is_empty(&self) -> bool {
        self.busy.is_empty()
    }

    /// Take file `i` if nobody holds it.
    pub fn try_take(&self, i: usize) -> bool {
        self.busy[i]
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Give file `i` back.
    pub fn release(&self, i: usize) {
        self.busy[i].store(false, Ordering::Release);
    }

    /// The next file of a sequential walk shared by every thread.
    pub fn next_in_turn(&self) -> usize {
        self.cursor.fetch_add(1, Ordering::Relaxed) % self.busy.len().max(1)
    }
}

/// One thread's place at a gate: the file it holds, its busy draws, and when it stops
/// waiting (the run's end).
#[derive(Debug)]
pub(crate) struct GateHold {
    pub(crate) gate: Arc<FileGate>,
    pub(crate) held: Option<usize>,
    pub(crate) busy_draws: u64,
    pub(crate) until: Option<Instant>,
    /// The wait ran past `until` without a file: the thread's work is over.
    pub(crate) gave_up: bool,
}

impl GateHold {
    pub(crate) fn new(gate: Arc<FileGate>) -> GateHold {
        GateHold {
            gate,
            held: None,
            busy_draws: 0,
            until: None,
            gave_up: false,
        }
    }

    /// Leave the file held (if any) and take one: `draw()` again after each busy one,
    /// waiting [`BUSY_WAIT`] between draws. None when the wait ran past `until`.
    pub(crate) fn switch(&mut self, mut draw: impl FnMut(&FileGate) -> usize) -> Option<usize> {
        self.leave();
        let mut c = draw(&self.gate);
        loop {
            if self.gate.try_take(c) {
                self.held = Some(c);
                return Some(c);
            }
            self.busy_draws += 1;
            std::thread::sleep(BUSY_WAIT);
            if self.until.is_some_and(|u| Instant::now() >= u) {
                self.gave_up = true;
                return None;
            }
            c = draw(&self.gate);
        }
    }

    /// Give back the file held.
    pub(crate) fn leave(&mut self) {
        if let Some(h) = self.held.take() {
            self.gate.release(h);
        }
    }
}

impl Drop for GateHold {
    fn drop(&mut self) {
        self.leave();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_file_is_busy_until_given_back() {
        let g = FileGate::new(2);
        let mut a = GateHold::new(g.clone());
        let mut b = GateHold::new(g.clone());
        assert_eq!(a.switch(|_| 0), Some(0));
        // b draws 0 (busy), waits, then draws 1.
        let mut seq = [0, 1].into_iter();
        assert_eq!(b.switch(|_| seq.next().unwrap()), Some(1));
        assert_eq!(b.busy_draws, 1);
        // a moves on to 1 (busy: b) and then to 0 again (free: a gave it back first).
        let mut seq = [1, 0].into_iter();
        assert_eq!(a.switch(|_| seq.next().unwrap()), Some(0));
        assert_eq!(a.busy_draws, 1);
        drop(b);
        assert!(g.try_take(1), "dropping a hold gives its file back");
    }

    #[test]
    fn a_wait_ends_at_the_deadline() {
        let g = FileGate::new(1);
        assert!(g.try_take(0));
        let mut a = GateHold::new(g.clone());
        a.until = Some(Instant::now() + Duration::from_millis(5));
        assert_eq!(a.switch(|_| 0), None);
        assert!(a.gave_up);
        assert!(a.busy_draws >= 1);
    }

    #[test]
    fn the_sequential_cursor_is_shared() {
        let g = FileGate::new(3);
        let seen: Vec<usize> = (0..5).map(|_| g.next_in_turn()).collect();
        assert_eq!(seen, [0, 1, 2, 0, 1]);
    }
}
