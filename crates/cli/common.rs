//! What every part of the binary shares: exit codes, the error type that carries one,
//! error wording, reading result files, writing to stdout.

use anyhow::{Context, Result};
use std::io::Write;

/// Exit codes (documented in the README and --help).
pub(crate) mod exit {
    pub const OK: u8 = 0;
    pub const IO_ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const CHECK_FAILED: u8 = 3;
}

/// An error with the exit code it maps to.
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) err: anyhow::Error,
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure {
            code: exit::USAGE,
            err: e.into(),
        }
    }
}

pub(crate) fn usage(err: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: exit::USAGE,
        err: err.into(),
    }
}

pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A result file (native, fio JSON) of at most 4 GiB; devices are refused.
pub(crate) fn read_result_file(f: &str) -> Result<String> {
    fathom_job::read_text_bounded(std::path::Path::new(f), 4 << 30)
        .with_context(|| format!("reading {f}"))
}

/// An error and its causes, each said once: a cause whose text the message already holds
/// (an I/O error quoted by the error that wraps it) is not repeated.
pub(crate) fn error_text(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

pub(crate) fn print_stdout(s: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(s.as_bytes())?;
    o.flush()?;
    Ok(())
}
