//! How this process was started and how to start privpost again: the command
//! line (the manifest's `command_line`), the file holding the running code (the
//! task cache's code id) and the command that runs privpost (the external
//! tasks' reaper, the Slurm scripts). The binary is all three itself; the Python
//! package's `privpost` command runs the same code inside Python and sets them
//! once at its start ([`set`]): its extension module's file, and
//! `python -m privpost`.

use std::path::PathBuf;
use std::sync::OnceLock;

/// What a host other than the binary (the Python package) says of itself.
#[derive(Debug, Clone)]
pub struct Host {
    /// the command line as the user typed it
    pub args: Vec<String>,
    /// the file holding the compiled code (the extension module)
    pub code_file: PathBuf,
    /// the words that run privpost again (`python -m privpost`)
    pub command: Vec<String>,
}

static HOST: OnceLock<Host> = OnceLock::new();

/// Sets the host once, before any work; a second call changes nothing.
pub fn set(host: Host) {
    let _ = HOST.set(host);
}

/// The command line of this invocation.
pub fn args() -> Vec<String> {
    match HOST.get() {
        Some(h) => h.args.clone(),
        None => std::env::args().collect(),
    }
}

/// The file whose bytes are the running code.
pub fn code_file() -> Option<PathBuf> {
    match HOST.get() {
        Some(h) => Some(h.code_file.clone()),
        None => std::env::current_exe().ok(),
    }
}

/// The words that run privpost again: the binary's canonical path, or the host's command.
pub fn command() -> std::io::Result<Vec<String>> {
    match HOST.get() {
        Some(h) => Ok(h.command.clone()),
        None => std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .map(|p| vec![p.display().to_string()]),
    }
}

/// `text` as one shell word.
pub fn sh_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./=:,@+-%".contains(c));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
