//! No user process outlives its run. Each external task runs in its own process
//! group; privpost kills the group on a time-out and when the command exits (its
//! background children with it). For the cases privpost cannot act on — Ctrl-C,
//! SIGTERM, SIGKILL, a crash — a small watcher process, `privpost __reap`, started
//! with the first task, is told each live group on its stdin (`+PGID` / `-PGID`
//! lines). When privpost ends, however it ends, the pipe closes, and the watcher
//! kills every group still listed, then exits. It sits in its own process group and
//! ignores SIGINT, SIGTERM and SIGHUP, so a Ctrl-C at the terminal reaches privpost
//! but not it.

use std::io::{BufRead, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The watcher's stdin; `None` until the first task, or when it could not start.
static WATCHER: Mutex<Option<Option<ChildStdin>>> = Mutex::new(None);

/// The hidden subcommand's name.
pub const SUBCOMMAND: &str = "__reap";

fn tell(line: &str) {
    let mut w = WATCHER.lock().unwrap_or_else(|e| e.into_inner());
    let pipe = w.get_or_insert_with(|| {
        use std::os::unix::process::CommandExt;
        let words = crate::invocation::command().ok()?;
        let (exe, first) = words.split_first()?;
        Command::new(exe)
            .args(first)
            .arg(SUBCOMMAND)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?
            .stdin
            .take()
    });
    if let Some(p) = pipe {
        // a watcher that is gone cannot be helped; the group is still killed
        // on a time-out and at the command's exit
        let _ = writeln!(p, "{line}").and_then(|()| p.flush());
    }
}

/// Lists `pgid` with the watcher.
pub fn register(pgid: u32) {
    tell(&format!("+{pgid}"));
}

/// Takes `pgid` off the watcher's list (its group was killed and reaped).
pub fn unregister(pgid: u32) {
    tell(&format!("-{pgid}"));
}

/// SIGKILL to every process of group `pgid`.
pub fn kill_group(pgid: u32) {
    // SAFETY: kill(2) on a process group privpost created; no memory is touched
    unsafe {
        libc::kill(-(pgid as i32), libc::SIGKILL);
    }
}

/// `privpost __reap`: read the list from stdin until it closes, then kill what
/// is left on it.
pub fn serve() -> i32 {
    // SAFETY: setting signal dispositions to SIG_IGN before any thread is started
    unsafe {
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            libc::signal(s, libc::SIG_IGN);
        }
    }
    let mut live = std::collections::BTreeSet::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (sign, id) = line.split_at(line.len().min(1));
        match (sign, id.trim().parse::<u32>()) {
            ("+", Ok(g)) => {
                live.insert(g);
            }
            ("-", Ok(g)) => {
                live.remove(&g);
            }
            _ => {}
        }
    }
    for g in live {
        kill_group(g);
    }
    0
}
