//! Errors of planning and running jobs.

use std::path::PathBuf;

/// Why a job set could not be run. I/O errors *during* a job are not errors of the run:
/// they are recorded in the job's results (and make the binary exit 1).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The job cannot be planned as written.
    #[error("{location}: job '{job}': {message}")]
    Plan {
        /// Job name.
        job: String,
        /// Where the job's section is.
        location: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// Setting up a file failed before the clock started.
    #[error("job '{job}': {}", with_path(.path, .source))]
    Setup {
        /// Job name.
        job: String,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The engine cannot be made.
    #[error("{location}: job '{job}': {source}")]
    Engine {
        /// Job name.
        job: String,
        /// Where the job's section is.
        location: String,
        /// The cause.
        source: fathom_engine::EngineError,
    },
}

/// `path: cause`, unless the cause already names the path.
fn with_path(path: &std::path::Path, e: &std::io::Error) -> String {
    let text = e.to_string();
    let p = path.display().to_string();
    if text.starts_with(&p) {
        text
    } else {
        format!("{p}: {text}")
    }
}
