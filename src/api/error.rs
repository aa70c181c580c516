//! The one error of the typed API: what went wrong, of which kind, and — where
//! the fault is in something the caller gave — the argument, the key and the
//! file it names. The CLI maps the kind to an exit code (`From<ApiError> for
//! CommandError`); the Python module maps it to one exception class
//! (crates/privpost-python/src/error.rs).

use std::path::PathBuf;

use crate::error::CommandError;

/// Which kind of failure an [`ApiError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A value the caller gave is not allowed (CLI exit 2; Python `InputError`, a `ValueError`).
    Input,
    /// A file or folder the caller named does not exist (exit 2; `FileNotFoundError`).
    NotFound,
    /// A file could not be read or written (exit 1; `OSError`).
    Io,
    /// The work was stopped by the caller (Ctrl-C); nothing was written.
    Interrupted,
    /// The computation failed while running (exit 1; `RuntimeError`).
    Failed,
}

/// An error of the typed API (see the module header).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub kind: ErrorKind,
    /// The message, naming the file, key and what is allowed; with its causes.
    pub message: String,
    /// The argument of the API function at fault (`event`, `samples`, `delta`, …).
    pub argument: Option<&'static str>,
    /// The key inside that argument (`event.sigma`, `release.values`), when known.
    pub key: Option<String>,
    /// The file or folder concerned, when there is one.
    pub path: Option<PathBuf>,
}

impl ApiError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ApiError {
            kind,
            message: message.into(),
            argument: None,
            key: None,
            path: None,
        }
    }

    /// A value given for `argument` that is not allowed.
    pub fn input(argument: &'static str, message: impl Into<String>) -> Self {
        ApiError::new(ErrorKind::Input, message).with_argument(argument)
    }

    /// A path that does not exist.
    pub fn not_found(argument: &'static str, path: PathBuf, message: impl Into<String>) -> Self {
        let mut e = ApiError::new(ErrorKind::NotFound, message).with_argument(argument);
        e.path = Some(path);
        e
    }

    /// A failure while running.
    pub fn failed(message: impl Into<String>) -> Self {
        ApiError::new(ErrorKind::Failed, message)
    }

    /// The caller stopped the work.
    pub fn interrupted(message: impl Into<String>) -> Self {
        ApiError::new(ErrorKind::Interrupted, message)
    }

    pub fn with_argument(mut self, argument: &'static str) -> Self {
        self.argument = Some(argument);
        self
    }

    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// A command's error (its cause chain in the message) as the API's: bad
    /// input of `argument`, or a failure.
    pub fn from_command(argument: &'static str, e: CommandError) -> Self {
        let mut message = e.to_string();
        for cause in e.error().chain().skip(1) {
            message.push_str(&format!("\n  caused by: {cause}"));
        }
        match e {
            CommandError::Input(_) => ApiError::input(argument, message),
            CommandError::Failed(_) => ApiError::failed(message),
            CommandError::Interrupted(_) => ApiError::interrupted(message),
            CommandError::BrokenPipe(_) => ApiError {
                kind: ErrorKind::Io,
                ..ApiError::failed(message)
            },
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<ApiError> for CommandError {
    /// Bad input and a missing file exit 2; a read or write error and a
    /// failure while running exit 1; an interrupt exits 130.
    fn from(e: ApiError) -> Self {
        match e.kind {
            ErrorKind::Input | ErrorKind::NotFound => CommandError::input(e.message),
            ErrorKind::Interrupted => CommandError::Interrupted(anyhow::Error::msg(e.message)),
            ErrorKind::Io | ErrorKind::Failed => CommandError::failed(e.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ApiError, ErrorKind};
    use crate::error::CommandError;

    #[test]
    fn kinds_map_to_the_exit_codes() {
        let code = |e: ApiError| CommandError::from(e).exit_code();
        assert_eq!(code(ApiError::input("delta", "bad")), 2);
        assert_eq!(code(ApiError::not_found("folder", "x".into(), "no x")), 2);
        assert_eq!(code(ApiError::failed("broke")), 1);
        assert_eq!(code(ApiError::interrupted("stopped")), 130);
        let back = ApiError::from_command("event", CommandError::input("key `x`: unknown"));
        assert_eq!(back.kind, ErrorKind::Input);
        assert_eq!(back.argument, Some("event"));
    }
}
