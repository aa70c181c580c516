//! The Python package's extension module, `privpost._native` (PyO3; built by
//! maturin with the `python` feature). Each function runs the CLI's own code:
//! `main` is [`crate::cli::main`]; `account`, `audit_samples` and `infer` take
//! their options as the CLI's flags (parsed by the same clap structs, so the
//! same checks and messages) and their input as a value instead of a file, and
//! return what `--json` prints (or the folder `infer` wrote). Bad input raises
//! `ValueError` with the CLI's message; a failure while running, `RuntimeError`.
//! `python/privpost/__init__.py` wraps them (types, NaN, pandas, ArviZ).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::commands::{self, CommandError};

/// The error and its causes, as the CLI prints them, as a Python exception.
fn to_py(e: CommandError) -> PyErr {
    let mut message = e.to_string();
    for cause in e.error().chain().skip(1) {
        message.push_str(&format!("\n  caused by: {cause}"));
    }
    match e {
        CommandError::Input(_) => PyValueError::new_err(message),
        CommandError::Failed(_) => PyRuntimeError::new_err(message),
    }
}

/// The CLI's flags of one verb, parsed as the CLI parses them.
fn parse<T: Parser>(verb: &str, flags: Vec<String>) -> PyResult<T> {
    let argv = std::iter::once(verb.to_string()).chain(flags);
    T::try_parse_from(argv).map_err(|e| {
        let text = e.to_string();
        let first = text
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ");
        PyValueError::new_err(format!("{verb}: {first}"))
    })
}

fn json_in(text: &str, name: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
}

fn json_out(v: &serde_json::Value) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// `privpost ARGS…` inside Python: the exit code. `code_file` is this
/// module's file (the cache's code id), `command` the words that run privpost.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>, code_file: String, command: Vec<String>) -> i32 {
    crate::invocation::set(crate::invocation::Host {
        args: argv.clone(),
        code_file: PathBuf::from(code_file),
        command,
    });
    let argv: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
    py.detach(|| crate::cli::main(argv))
}

#[derive(Parser)]
struct AccountCli {
    #[command(flatten)]
    a: commands::account_types::AccountArgs,
}

/// `privpost account --event E --json FLAGS…` with the event given as JSON text:
/// the answer's JSON text (a ledger entry's verification says `holds`).
#[pyfunction]
fn account(py: Python<'_>, event: &str, flags: Vec<String>) -> PyResult<String> {
    let value = json_in(event, "event")?;
    let mut cli: AccountCli = parse("account", flags)?;
    cli.a.json = true;
    cli.a.event_value = Some((value, "event".into()));
    let (result, kept) = py.detach(|| commands::capture_json(|| commands::account::account(cli.a)));
    match (result, kept.last()) {
        (_, Some(v)) => json_out(v),
        (Err(e), None) => Err(to_py(e)),
        (Ok(()), None) => Err(PyRuntimeError::new_err("account: no answer")),
    }
}

/// `privpost audit --samples S --claim C --json` with the samples as CSV text
/// (`label,score`): the answer's JSON text (`verdict` PASS or FAIL).
#[pyfunction]
fn audit_samples(
    py: Python<'_>,
    csv: &str,
    claim: &str,
    log_ratio: bool,
    confidence: f64,
) -> PyResult<String> {
    let v = py
        .detach(|| {
            commands::audit_samples::audit_samples_value(
                csv.as_bytes(),
                "samples",
                claim,
                log_ratio,
                confidence,
            )
        })
        .map_err(to_py)?;
    json_out(&v)
}

#[derive(Parser)]
struct InferCli {
    #[command(flatten)]
    a: commands::infer::InferArgs,
}

/// `privpost infer` on a release given as JSON text, named `name`: the folder written.
#[pyfunction]
fn infer(py: Python<'_>, release: &str, name: &str, flags: Vec<String>) -> PyResult<String> {
    let value = json_in(release, name)?;
    let mut flags = flags;
    flags.insert(0, name.to_string());
    let mut cli: InferCli = parse("infer", flags)?;
    cli.a.given = Some((value, name.to_string()));
    // the chains run on a thread of their own while this one, holding the GIL
    // every 50 ms, looks for Ctrl-C (Python's handler only sets a flag): on it the
    // chains stop at their next sweep, nothing is written, and KeyboardInterrupt
    // is raised
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    cli.a.stop = Some(stop.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(commands::infer::infer_into(cli.a));
    });
    // the receiver is moved into each GIL-free wait and handed back (it is Send,
    // not Sync)
    let mut rx = rx;
    let outcome = loop {
        let (got, back) = py.detach(move || {
            let got = rx.recv_timeout(std::time::Duration::from_millis(50));
            (got, rx)
        });
        rx = back;
        match got {
            Ok(result) => break result,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                    py.detach(move || {
                        let _ = rx.recv();
                        let _ = worker.join();
                    });
                    return Err(interrupt);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "infer: the sampling thread ended without an answer",
                ))
            }
        }
    };
    let _ = worker.join();
    let dir = outcome.map_err(to_py)?;
    Ok(dir.display().to_string())
}

/// The version `privpost --version` prints.
#[pyfunction]
fn version() -> &'static str {
    env!("PRIVPOST_LONG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(account, m)?)?;
    m.add_function(wrap_pyfunction!(audit_samples, m)?)?;
    m.add_function(wrap_pyfunction!(infer, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
