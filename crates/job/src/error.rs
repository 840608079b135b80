//! Errors of parsing and resolving job files.

use crate::words::Location;

/// A job file, TOML file or command line could not be turned into jobs. Every variant
/// names where the problem is (file and line) and, where it helps, what to write instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// An option nobody knows.
    #[error("{loc}: unknown option '{name}'{hint}")]
    UnknownOption {
        /// Where.
        loc: Location,
        /// The name as written.
        name: String,
        /// " (did you mean 'x'?)" or empty.
        hint: String,
    },
    /// An option fio has that fathom does not implement yet.
    #[error("{loc}: option '{name}' is not supported yet: {why}")]
    NotSupported {
        /// Where.
        loc: Location,
        /// The name as written.
        name: String,
        /// Why, and what to use instead.
        why: String,
    },
    /// An fio option fathom deliberately does not take, with the reason and what to use.
    #[error("{loc}: option '{name}' is not available: {why}")]
    Refused {
        /// Where.
        loc: Location,
        /// The name as written.
        name: String,
        /// Why, and what to use instead.
        why: String,
    },
    /// A value that does not parse.
    #[error("{loc}: option '{name}': invalid value '{value}': {why}")]
    InvalidValue {
        /// Where.
        loc: Location,
        /// The option.
        name: String,
        /// The value as written.
        value: String,
        /// Why, and an example of a valid value.
        why: String,
    },
    /// An option that takes a value was given bare (`direct` instead of `direct=1`).
    #[error("{loc}: option '{name}' requires a value, e.g. {name}={example}")]
    MissingValue {
        /// Where.
        loc: Location,
        /// The name as written.
        name: String,
        /// A valid value for it.
        example: String,
    },
    /// A malformed line or file.
    #[error("{loc}: {msg}")]
    Syntax {
        /// Where.
        loc: Location,
        /// What is wrong.
        msg: String,
    },
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

impl JobError {
    /// The location the error points at, if any.
    pub fn location(&self) -> Option<&Location> {
        match self {
            JobError::UnknownOption { loc, .. }
            | JobError::NotSupported { loc, .. }
            | JobError::Refused { loc, .. }
            | JobError::InvalidValue { loc, .. }
            | JobError::MissingValue { loc, .. }
            | JobError::Syntax { loc, .. } => Some(loc),
            JobError::Io { .. } => None,
        }
    }
}
