//! SIGINT/SIGTERM: the first one cancels the run (results so far are reported, files
//! with unlink=1 removed); a second SIGINT exits at once.

use fathom::CancelHandle;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

static SIGNAL: AtomicI32 = AtomicI32::new(0);
static STATUS: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_status(_sig: libc::c_int) {
    STATUS.store(1, Ordering::SeqCst);
}

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: an atomic swap and, on a repeat SIGINT, _exit.
    let prev = SIGNAL.swap(sig, Ordering::SeqCst);
    if prev != 0 && sig == libc::SIGINT {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

/// The installed handlers; tells the exit code for a signal that arrived.
pub struct Signals;

impl Signals {
    /// 130 after SIGINT, 143 after SIGTERM, None otherwise.
    pub fn exit_code(&self) -> Option<u8> {
        match SIGNAL.load(Ordering::SeqCst) {
            0 => None,
            s => Some(128 + s as u8),
        }
    }
}

/// Install handlers and a watcher thread that cancels the run on the first SIGINT or
/// SIGTERM and prints a status block on stderr for each SIGUSR1.
pub fn install(cancel: CancelHandle, board: std::sync::Arc<fathom::live::LiveBoard>) -> Signals {
    // SAFETY: installing a handler that only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGUSR1, on_status as *const () as libc::sighandler_t);
    }
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installing a handler that only touches an atomic and calls _exit.
        unsafe {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
    std::thread::Builder::new()
        .name("fathom-signals".into())
        .spawn(move || loop {
            if STATUS.swap(0, Ordering::SeqCst) != 0 {
                eprint!("{}", board.status());
            }
            if SIGNAL.load(Ordering::SeqCst) != 0 {
                cancel.cancel();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        })
        .expect("spawning the signal watcher");
    Signals
}

/// For `fathom suite`: the same handlers; a signal asks the suite to stop
/// ([`fathom_suites::stop::request`]): it ends its current test, prints what it measured,
/// removes its files and the binary exits 130/143.
pub fn install_for_suites() -> Signals {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installing a handler that only touches an atomic and calls _exit.
        unsafe {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
    std::thread::Builder::new()
        .name("fathom-signals".into())
        .spawn(|| loop {
            if SIGNAL.load(Ordering::SeqCst) != 0 {
                fathom_suites::stop::request();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        })
        .expect("spawning the signal watcher");
    Signals
}
