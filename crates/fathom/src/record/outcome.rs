//! What a clone's thread hands back (its statistics, errors and notes), and the error wording shared by the loops.

use fathom_stats::ThreadStats;
use std::time::Duration;

/// What a clone's thread hands back.
#[derive(Debug, Default)]
pub struct CloneOutcome {
    /// Recorded numbers.
    pub stats: ThreadStats,
    /// When the clone started (ms since the epoch).
    pub start_ms: u64,
    /// Wall time of the clone, start delay and ramp included.
    pub elapsed: Duration,
    /// Error description (errno, file, offset, length) if the clone failed.
    pub error_text: Option<String>,
    /// The first error tolerated under continue_on_error/ignore_error.
    pub first_error_text: Option<String>,
    /// Set-up the clone did itself before its clock started (a filetree format).
    pub setup: Duration,
    /// The job's steady-state verdict (on its first clone's outcome).
    pub steadystate: Option<fathom_stats::SteadyState>,
    /// What the user should know that is not an error (a failed exec_postrun).
    pub notes: Vec<String>,
}

/// fill_device: a full file system is where the job ends, not an error.
pub(crate) fn fills_device(spec: &fathom_job::JobSpec, errno: i32) -> bool {
    spec.control.fill_device && (errno == libc::ENOSPC || errno == libc::EDQUOT)
}

/// The system's text for an errno with its number once: "No space left on device (errno 28)".
pub(crate) fn errno_text(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let bare = text
        .strip_suffix(&format!(" (os error {errno})"))
        .unwrap_or(&text);
    format!("{bare} (errno {errno})")
}
