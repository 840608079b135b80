//! SIGINT/SIGTERM: the first one cancels the run (results so far are reported, files
//! with unlink=1 removed); a second SIGINT exits at once. SIGUSR1 prints a status block.
//! The handlers are signal-hook's: they only store to atomics (and, for the repeated
//! SIGINT, exit), so no `unsafe` is needed here.

use fathom::CancelHandle;
use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// What the handlers write: the number of the latest SIGINT/SIGTERM (0 for none), whether
/// one has come, and a pending SIGUSR1.
struct Flags {
    signal: Arc<AtomicUsize>,
    any: Arc<AtomicBool>,
    status: Arc<AtomicBool>,
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Register the SIGINT/SIGTERM handlers (once; later calls return the same flags).
fn flags() -> &'static Flags {
    FLAGS.get_or_init(|| {
        let f = Flags {
            signal: Arc::new(AtomicUsize::new(0)),
            any: Arc::new(AtomicBool::new(false)),
            status: Arc::new(AtomicBool::new(false)),
        };
        // Registered before the flag below, so it sees `any` as it was before this
        // SIGINT: a SIGINT after an earlier SIGINT or SIGTERM exits at once with 130.
        signal_hook::flag::register_conditional_shutdown(SIGINT, 130, Arc::clone(&f.any))
            .expect("installing the SIGINT handler");
        for sig in [SIGINT, SIGTERM] {
            signal_hook::flag::register_usize(sig, Arc::clone(&f.signal), sig as usize)
                .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&f.any)))
                .expect("installing the SIGINT/SIGTERM handlers");
        }
        f
    })
}

/// The installed handlers; tells the exit code for a signal that arrived.
pub struct Signals;

impl Signals {
    /// 130 after SIGINT, 143 after SIGTERM, None otherwise.
    pub fn exit_code(&self) -> Option<u8> {
        match flags().signal.load(Ordering::SeqCst) {
            0 => None,
            s => Some(128 + s as u8),
        }
    }
}

/// Install handlers and a watcher thread that cancels the run on the first SIGINT or
/// SIGTERM and prints a status block on stderr for each SIGUSR1.
pub fn install(cancel: CancelHandle, board: std::sync::Arc<fathom::live::LiveBoard>) -> Signals {
    let f = flags();
    signal_hook::flag::register(SIGUSR1, Arc::clone(&f.status))
        .expect("installing the SIGUSR1 handler");
    std::thread::Builder::new()
        .name("fathom-signals".into())
        .spawn(move || loop {
            if f.status.swap(false, Ordering::SeqCst) {
                eprint!("{}", board.status());
            }
            if f.any.load(Ordering::SeqCst) {
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
    let f = flags();
    std::thread::Builder::new()
        .name("fathom-signals".into())
        .spawn(move || loop {
            if f.any.load(Ordering::SeqCst) {
                fathom_suites::stop::request();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        })
        .expect("spawning the signal watcher");
    Signals
}
