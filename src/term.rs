//! The terminal's error stream. `eprintln!` panics when stderr cannot be written
//! (`2>/dev/full`, a closed pipe), which made a run exit 101 mid-work; privpost's
//! messages go through the `errln!` macro instead, which remembers the failure
//! and goes on: the command then ends with exit status 1 ([`stderr_failed`]).
//! And Ctrl-C from the terminal: [`interrupt`], the flag a run's first SIGINT
//! sets (the runner and an external figure's command both read it).

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

/// `text` with every character a terminal would act on written out as a visible
/// escape: C0 controls (ESC starts colour, cursor and title sequences; CR, BS
/// overwrite), DEL, the C1 controls (U+009B is a one-character CSI) and the bidi
/// overrides and isolates (U+202A–U+202E, U+2066–U+2069, which reorder what
/// follows) become `\x1b`, `\u{9b}`, `\u{202e}`. Tabs and newlines too: a cell
/// is one line. Text from a user's files (a CSV cell, a name) goes through this
/// before privpost prints it.
pub fn visible(text: &str) -> String {
    let acts =
        |c: char| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !text.chars().any(acts) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !acts(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out
}

/// Ctrl-C (SIGINT) while tasks run: the first sets a flag on which the workers
/// take no new task; the running ones finish and the run ends with
/// `RunError::Interrupted` (how many tasks are kept, how to resume), which the
/// command line exits 130 with; a second Ctrl-C exits at once. Finished tasks
/// are already in the task cache (each is stored as it finishes, atomically),
/// and no output folder is touched until every task is done.
pub mod interrupt {
    use std::sync::atomic::{AtomicBool, Ordering};

    static REQUESTED: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_sigint(_: libc::c_int) {
        // async-signal-safe: an atomic swap and _exit
        if REQUESTED.swap(true, Ordering::SeqCst) {
            unsafe { libc::_exit(130) };
        }
    }

    /// Installs the handler (once per process).
    pub fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let handler: extern "C" fn(libc::c_int) = on_sigint;
            // SAFETY: the handler only touches an atomic and calls _exit
            unsafe { libc::signal(libc::SIGINT, handler as libc::sighandler_t) };
        });
    }

    pub fn requested() -> bool {
        REQUESTED.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::visible;

    /// Every character a terminal acts on is escaped; text without them is as is.
    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(visible("ε = 0.1 — ok"), "ε = 0.1 — ok");
        assert_eq!(visible("a\u{1b}[31mred"), "a\\x1b[31mred");
        assert_eq!(visible("x\u{9b}2J"), "x\\u{9b}2J");
        assert_eq!(visible("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(visible("a\rb\u{7f}\n"), "a\\x0db\\x7f\\x0a");
        for c in (0u32..0x20).chain(0x7f..0xa0) {
            let s = char::from_u32(c).unwrap().to_string();
            assert!(!visible(&s).chars().any(char::is_control), "{c:#x}");
        }
    }
}
