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
    /// Looking at a target while planning failed (a file that cannot be laid out at run
    /// time is not a run error: it fails the jobs that use it, in their results).
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

/// The errno behind `e`: its own, or that of the error it wraps (a message added to a
/// system error), else the closest one for its kind.
pub(crate) fn errno_of(e: &std::io::Error) -> i32 {
    use std::io::ErrorKind as K;
    if let Some(n) = e.raw_os_error() {
        return n;
    }
    // Down the chain of wrapped causes to the first system error.
    let mut cause: Option<&(dyn std::error::Error + 'static)> =
        e.get_ref().map(|c| c as &(dyn std::error::Error + 'static));
    while let Some(c) = cause {
        if let Some(n) = c
            .downcast_ref::<std::io::Error>()
            .and_then(|x| x.raw_os_error())
        {
            return n;
        }
        cause = c.source();
    }
    match e.kind() {
        K::NotFound => libc::ENOENT,
        K::PermissionDenied => libc::EACCES,
        K::AlreadyExists => libc::EEXIST,
        K::InvalidInput | K::InvalidData => libc::EINVAL,
        K::StorageFull => libc::ENOSPC,
        K::ReadOnlyFilesystem => libc::EROFS,
        K::Interrupted => libc::EINTR,
        K::OutOfMemory => libc::ENOMEM,
        _ => libc::EIO,
    }
}

/// `path: cause`, unless the cause already names the path.
pub(crate) fn with_path(path: &std::path::Path, e: &std::io::Error) -> String {
    let text = e.to_string();
    let p = path.display().to_string();
    if text.starts_with(&p) {
        text
    } else {
        format!("{p}: {text}")
    }
}
