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
