//! One mapping from the API's errors to Python's exceptions (the shape of
//! polars-python's `error.rs`): each [`ErrorKind`] to one class of
//! `privpost.errors`, which also derive from the built-in class that fits, so
//! `except ValueError` and `except privpost.InputError` both catch bad input:
//!
//! | kind          | class                  | also a              |
//! |---------------|------------------------|---------------------|
//! | `Input`       | `InputError`           | `ValueError`        |
//! | `NotFound`    | `PathNotFoundError`    | `FileNotFoundError` |
//! | `Io`          | `PrivpostOSError`      | `OSError`           |
//! | `Failed`      | `RunError`             | `RuntimeError`      |
//! | `Interrupted` | `KeyboardInterrupt`    |                     |
//!
//! Each instance carries `argument`, `key` and (for files) `filename`. A
//! message that names its argument by the command line's flag (`--jobs 0: …`,
//! the API's messages are the CLI's) names it by the keyword (`jobs = 0: …`).

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;

use privpost::api::{ApiError, ErrorKind};

/// The class name in `privpost.errors` of an error kind.
fn class(kind: ErrorKind) -> Option<&'static str> {
    match kind {
        ErrorKind::Input => Some("InputError"),
        ErrorKind::NotFound => Some("PathNotFoundError"),
        ErrorKind::Io => Some("PrivpostOSError"),
        ErrorKind::Failed => Some("RunError"),
        ErrorKind::Interrupted => None,
    }
}

/// `message` with a leading `--flag VALUE` of `argument` spelled as Python's
/// keyword, `argument = VALUE` (see the module header).
fn keyword_spelling(message: &str, argument: Option<&str>) -> String {
    let Some(argument) = argument else {
        return message.to_string();
    };
    let flag = format!("--{}", argument.replace('_', "-"));
    match message.strip_prefix(&flag) {
        Some(rest) if rest.starts_with(' ') => format!("{argument} ={rest}"),
        Some(rest) if rest.starts_with('=') => format!("{argument} = {}", &rest[1..]),
        _ => message.to_string(),
    }
}

/// The Python exception of an API error.
pub fn to_py(py: Python<'_>, e: ApiError) -> PyErr {
    let e = ApiError {
        message: keyword_spelling(&e.message, e.argument),
        ..e
    };
    let Some(name) = class(e.kind) else {
        return PyKeyboardInterrupt::new_err(e.message);
    };
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("privpost.errors")?.getattr(name)?;
        let obj = cls.call1((e.message.clone(),))?;
        obj.setattr("argument", e.argument)?;
        obj.setattr("key", e.key.clone())?;
        if let Some(path) = &e.path {
            obj.setattr("filename", path.display().to_string())?;
            if e.kind == ErrorKind::NotFound {
                obj.setattr("errno", 2)?; // ENOENT, as Python's own FileNotFoundError
            }
        }
        Ok(PyErr::from_value(obj))
    })();
    // the classes are the package's own: failing to make one is a broken install
    made.unwrap_or_else(|import| {
        PyRuntimeError::new_err(format!("{} (privpost.errors: {import})", e.message))
    })
}
