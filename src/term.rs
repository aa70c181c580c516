//! The terminal's error stream. `eprintln!` panics when stderr cannot be written
//! (`2>/dev/full`, a closed pipe), which made a run exit 101 mid-work; privpost's
//! messages go through the `errln!` macro instead, which remembers the failure
//! and goes on: the command then ends with exit status 1 ([`stderr_failed`]).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `args` (and a newline) to stderr; a failure is remembered, not a panic.
pub fn write_err(args: std::fmt::Arguments, newline: bool) {
    let mut e = std::io::stderr().lock();
    let r = e
        .write_fmt(args)
        .and_then(|()| if newline { e.write_all(b"\n") } else { Ok(()) })
        .and_then(|()| e.flush());
    if r.is_err() {
        FAILED.store(true, Ordering::SeqCst);
    }
}

/// Whether a message could not be written to stderr.
pub fn stderr_failed() -> bool {
    FAILED.load(Ordering::SeqCst)
}
