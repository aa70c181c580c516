//! Running an external figure's command for one task and reading its rows:
//! JSON on stdin, CSV on stdout, a time-out, and every failure named with the
//! task index, the row and the tail of the task's stderr.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{ColumnDecl, ColumnType};
use crate::plot::MAX_PLOT_VALUE;
use crate::results::table::Cell;

/// The most bytes read from a task's stdout (larger output is a failure).
const MAX_STDOUT: usize = 256 << 20;
/// The most rows one task may write.
const MAX_ROWS: usize = 1_000_000;
/// How much of a failing task's stderr is shown.
const STDERR_TAIL: usize = 2000;

/// A task of an external figure failed because of the user's command or its
/// output (exit 2, like any bad input): not a privpost failure.
#[derive(Debug, thiserror::Error)]
#[error("external task {task}: {message}{}", stderr_tail(.stderr))]
pub struct UserTaskError {
    pub task: usize,
    pub message: String,
    pub stderr: String,
}

fn stderr_tail(s: &str) -> String {
    let s = s.trim_end();
    if s.is_empty() {
        return String::new();
    }
    let start = s
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| s.len() - i <= STDERR_TAIL)
        .unwrap_or(0);
    format!(
        "\n--- the task's stderr{} ---\n{}",
        if start > 0 { " (last 2000 bytes)" } else { "" },
        &s[start..]
    )
}

/// The program of a command: a path (with a `/`) to an existing file, or a name found on PATH.
pub fn find_program(name: &str) -> Result<PathBuf, String> {
    if name.contains('/') {
        let p = Path::new(name);
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("\"{name}\": no such file"))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("\"{name}\": command not found on PATH"))
}

/// Runs `command` with `input` on stdin; its stdout, or the failure.
pub fn run(
    command: &[String],
    input: &serde_json::Value,
    timeout_seconds: f64,
    task: usize,
) -> Result<Vec<u8>, UserTaskError> {
    let fail = |message: String, stderr: String| UserTaskError {
        task,
        message,
        stderr,
    };
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        // its own process group: a time-out kills the command and its children
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot start `{}`: {e}", command[0]), String::new()))?;
    let mut stdin = child.stdin.take();
    let bytes = serde_json::to_vec(input).unwrap_or_default();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            // a command that does not read its input may close the pipe: not an error here
            let _ = s.write_all(&bytes).and_then(|()| s.write_all(b"\n"));
        }
        drop(stdin);
    });
    let out = child.stdout.take();
    let err = child.stderr.take();
    let reader = read_in_thread(out, MAX_STDOUT as u64 + 1);
    let err_reader = read_in_thread(err, 8 << 20);
    let pgid = child.id();
    super::reaper::register(pgid);
    let deadline = Instant::now() + Duration::from_secs_f64(timeout_seconds);
    let status = loop {
        if exited(pgid) {
            // the command is done: whatever it left running in its group goes too
            super::reaper::kill_group(pgid);
            break child.wait().ok();
        }
        if Instant::now() >= deadline || crate::term::interrupt::requested() {
            super::reaper::kill_group(pgid);
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    super::reaper::unregister(pgid);
    let _ = writer.join();
    // the group is gone, so stdout closes — unless a process left the group
    // (setsid) and holds it: then wait no longer than the time-out
    let grace = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    let Ok(stdout) = reader.recv_timeout(grace) else {
        return Err(fail(
            format!("a process it started kept its stdout open past timeout_seconds = {timeout_seconds} (it left the command's process group)"),
            String::new(),
        ));
    };
    let stderr = String::from_utf8_lossy(
        &err_reader
            .recv_timeout(Duration::from_secs(1))
            .unwrap_or_default(),
    )
    .into_owned();
    if stdout.len() > MAX_STDOUT {
        // checked before the status: the command was stopped by SIGPIPE when the
        // reading stopped, and "exited with status 141" would hide why
        return Err(fail(
            format!("wrote more than {MAX_STDOUT} bytes on stdout (allowed: at most {MAX_STDOUT}; the rest was not read)"),
            stderr,
        ));
    }
    match status {
        None if crate::term::interrupt::requested() => Err(fail(
            "interrupted (Ctrl-C) and was killed".to_string(),
            stderr,
        )),
        None => Err(fail(
            format!("timed out after {timeout_seconds} s (timeout_seconds) and was killed"),
            stderr,
        )),
        Some(s) if !s.success() => Err(fail(
            format!(
                "`{}` exited with {}",
                command.join(" "),
                s.code()
                    .map_or_else(|| "a signal".to_string(), |c| format!("status {c}"))
            ),
            stderr,
        )),
        Some(_) => Ok(stdout),
    }
}

/// Reads at most `cap` bytes of `pipe` in a thread; the bytes arrive on the channel
/// when the pipe closes (or the cap is reached).
fn read_in_thread(
    pipe: Option<impl Read + Send + 'static>,
    cap: u64,
) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = pipe {
            let _ = p.take(cap).read_to_end(&mut buf);
        }
        let _ = tx.send(buf);
    });
    rx
}

/// Whether the child `pid` has exited, without reaping it (waitid with WNOWAIT),
/// so that its process group id cannot be reused before the group is killed.
fn exited(pid: u32) -> bool {
    // SAFETY: waitid(2) fills the zeroed siginfo it is given; P_PID names our child
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        r == 0 && info.si_pid() != 0
    }
}

/// The rows of a task's stdout: a header equal to the declared names, then rows
/// of the declared types. Line numbers count stdout lines (the header is line 1).
pub fn parse_rows(
    out: &[u8],
    columns: &[ColumnDecl],
    task: usize,
) -> Result<Vec<Vec<Cell>>, UserTaskError> {
    let fail = |message: String| UserTaskError {
        task,
        message,
        stderr: String::new(),
    };
    let text = std::str::from_utf8(out).map_err(|e| fail(format!("stdout is not UTF-8: {e}")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let want: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    let Some((_, header)) = lines.next() else {
        return Err(fail(format!(
            "wrote nothing on stdout; expected a CSV header `{}` and rows",
            want.join(",")
        )));
    };
    let got: Vec<&str> = header.split(',').map(str::trim).collect();
    if got != want {
        return Err(fail(format!(
            "stdout line 1: header `{}`, the config declares `{}`",
            got.join(","),
            want.join(",")
        )));
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let line_no = i + 1;
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != columns.len() {
            return Err(fail(format!(
                "stdout line {line_no}: {} fields, expected {} ({})",
                fields.len(),
                columns.len(),
                want.join(",")
            )));
        }
        let mut row = Vec::with_capacity(fields.len());
        for (f, c) in fields.iter().zip(columns) {
            let bad = |what: &str| {
                fail(format!(
                    "stdout line {line_no}: column `{}` = {f:?} is not {what}",
                    c.name
                ))
            };
            row.push(match c.kind {
                // magnitudes beyond what a figure can draw are refused here, at the
                // row, not after every task ran (a row of 1e16 failed at plotting)
                ColumnType::Float => match f.parse::<f64>() {
                    Ok(x) if x.is_finite() && x.abs() <= MAX_PLOT_VALUE => Cell::Float(x),
                    _ => return Err(bad("a finite number of magnitude at most 1e15 (float)")),
                },
                ColumnType::Int => match f.parse::<i64>() {
                    Ok(x) if x.unsigned_abs() as f64 <= MAX_PLOT_VALUE => Cell::Int(x),
                    _ => return Err(bad("an integer of magnitude at most 1e15 (int)")),
                },
                ColumnType::String => {
                    if f.contains('"') {
                        return Err(bad("plain text (no quotes or commas)"));
                    }
                    Cell::Str(f.to_string())
                }
            });
        }
        rows.push(row);
        if rows.len() > MAX_ROWS {
            return Err(fail(format!("more than {MAX_ROWS} rows")));
        }
    }
    if rows.is_empty() {
        return Err(fail("wrote a header but no rows".into()));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<ColumnDecl> {
        vec![
            ColumnDecl {
                name: "mechanism".into(),
                kind: ColumnType::String,
            },
            ColumnDecl {
                name: "error".into(),
                kind: ColumnType::Float,
            },
            ColumnDecl {
                name: "k".into(),
                kind: ColumnType::Int,
            },
        ]
    }

    #[test]
    fn rows_are_checked_against_the_declared_columns() {
        let ok = parse_rows(
            b"mechanism,error,k\nmine,0.5,3\n\nmine,1e-3,4\n",
            &cols(),
            7,
        )
        .unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[1][1], Cell::Float(1e-3));
        for (out, want) in [
            (
                &b"mechanism,err,k\nmine,0.5,3\n"[..],
                "stdout line 1: header `mechanism,err,k`",
            ),
            (
                b"mechanism,error,k\nmine,0.5\n",
                "stdout line 2: 2 fields, expected 3",
            ),
            (
                b"mechanism,error,k\nmine,0.5,3\nmine,nan,3\n",
                "stdout line 3: column `error` = \"nan\"",
            ),
            (
                b"mechanism,error,k\nmine,0.5,3.5\n",
                "column `k` = \"3.5\" is not an integer",
            ),
            (b"", "wrote nothing"),
            (b"mechanism,error,k\n", "no rows"),
        ] {
            let e = parse_rows(out, &cols(), 7).unwrap_err().to_string();
            assert!(
                e.starts_with("external task 7: ") && e.contains(want),
                "{e}"
            );
        }
    }

    #[test]
    fn failures_carry_the_stderr_tail_and_time_outs_kill() {
        let sh = |script: &str| vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        let input = serde_json::json!({"task": 0});
        let out = run(&sh("cat"), &input, 10.0, 0).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().trim(), input.to_string());
        let e = run(&sh("echo boom >&2; exit 3"), &input, 10.0, 4)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("task 4") && e.contains("status 3") && e.contains("boom"),
            "{e}"
        );
        let t = Instant::now();
        let e = run(&sh("sleep 5"), &input, 0.2, 1).unwrap_err().to_string();
        assert!(e.contains("timed out after 0.2 s"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(4));
        assert!(find_program("definitely-not-a-command-xyz")
            .unwrap_err()
            .contains("not found"));
        assert!(find_program("sh").is_ok());
    }
}
