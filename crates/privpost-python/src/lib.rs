//! The Python package's extension module, `privpost._native` (PyO3; maturin
//! builds it: pyproject.toml). Typed functions over [`privpost::api`]: Python
//! values in (converted by `convert.rs`, numpy and pandas included), the API's
//! typed answers out as dicts of their serde fields, which
//! `python/privpost/_results.py` turns into result classes. Every error goes
//! through one mapping (`error.rs`). Each call runs the engine on a thread of its
//! own with the GIL released, while the calling thread wakes every 50 ms to
//! look for Ctrl-C (Python's handler only sets a flag): so calls from several
//! Python threads run at once, and KeyboardInterrupt is raised within a second
//! (`infer` stops its chains at their next sweep and writes nothing).
//! `main` is the whole CLI in-process (the `privpost` command pip installs).
//! `model.rs` is the engine's part of a model written in Python (`infer_model`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::{json, Value};

use privpost::api::{self, AccountOptions, ApiError, InferOptions, ReleaseSource, Samples};

mod convert;
mod error;
mod model;

use convert::{to_py, to_value};

/// How often a waiting call looks for Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own, the GIL released, and returns its
/// answer; on Ctrl-C sets the stop flag it is given and raises
/// KeyboardInterrupt — after the work has stopped when `wait` (it writes
/// files), at once otherwise (it writes nothing; its answer is dropped).
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    wait: bool,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send + 'static,
) -> PyResult<T> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work(flag));
    });
    // the receiver is moved into each GIL-free wait and handed back (it is
    // Send, not Sync)
    let mut rx = rx;
    loop {
        let (got, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match got {
            Ok(answer) => {
                let _ = worker.join();
                return Ok(answer);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    stop.store(true, Ordering::SeqCst);
                    if wait {
                        py.detach(move || {
                            let _ = rx.recv();
                            let _ = worker.join();
                        });
                    }
                    return Err(interrupt);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(PyRuntimeError::new_err(
                "privpost: the engine's thread ended without an answer (a bug: please report it)",
            )),
        }
    }
}

/// An API result as Python: the answer's serde fields as a dict, or the exception.
fn answer<'py, T: serde::Serialize>(
    py: Python<'py>,
    result: Result<T, ApiError>,
    extra: impl FnOnce(&mut Value),
) -> PyResult<Bound<'py, PyAny>> {
    let a = result.map_err(|e| error::to_py(py, e))?;
    let mut v = serde_json::to_value(&a).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    extra(&mut v);
    to_py(py, &v)
}

/// `privpost ARGS…` inside Python: the exit code. `code_file` is this
/// module's file (the cache's code id), `command` the words that run privpost.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>, code_file: PathBuf, command: Vec<String>) -> i32 {
    privpost::invocation::set(privpost::invocation::Host {
        args: argv.clone(),
        code_file,
        command,
    });
    let argv: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
    py.detach(|| privpost::cli::main(argv))
}

/// The privacy of an event, or a ledger entry verified ([`api::account`]):
/// the answer's fields (`question`, `answers`, …) with `schema`.
#[pyfunction]
#[pyo3(signature = (event, delta=None, target_epsilon=None, tight=true, pld_slack=None, alpha_max=None, fpr=None, prior=0.5, target_tpr=None, at_fpr=None, target_advantage=None))]
#[allow(clippy::too_many_arguments)]
fn account<'py>(
    py: Python<'py>,
    event: &Bound<'py, PyAny>,
    delta: Option<f64>,
    target_epsilon: Option<f64>,
    tight: bool,
    pld_slack: Option<f64>,
    alpha_max: Option<u32>,
    fpr: Option<Vec<f64>>,
    prior: f64,
    target_tpr: Option<f64>,
    at_fpr: Option<f64>,
    target_advantage: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let input = to_value(event, "event")
        .and_then(|v| api::read_event(&v, "event"))
        .map_err(|e| error::to_py(py, e))?;
    let options = AccountOptions {
        delta,
        target_epsilon,
        tight,
        pld_slack,
        alpha_max,
        fprs: fpr.unwrap_or_else(|| api::DEFAULT_FPRS.to_vec()),
        prior,
        target_tpr,
        at_fpr,
        target_advantage,
    };
    let result = interruptible(py, false, move |_| api::account(&input, &options, "event"))?;
    answer(py, result, |v| v["schema"] = json!("privpost-account/1"))
}

/// A run's ledger re-verified ([`api::verify_ledger`]): `manifest` is a
/// figure's folder or its manifest.json; each entry with its `reason` when
/// its claim does not hold.
#[pyfunction]
fn verify_ledger<'py>(py: Python<'py>, manifest: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let result = interruptible(py, false, move |_| api::verify_ledger(&manifest))?;
    let reasons: Vec<Option<String>> = result
        .as_ref()
        .map(|c| {
            c.entries
                .iter()
                .map(|e| e.verification.reason.clone())
                .collect()
        })
        .unwrap_or_default();
    answer(py, result, |v| {
        if let Some(entries) = v["entries"].as_array_mut() {
            for (entry, reason) in entries.iter_mut().zip(reasons) {
                entry["reason"] = json!(reason);
            }
        }
        v["schema"] = json!("privpost-account/1");
        v["question"] = json!("manifest");
        v["warnings"] = json!([]);
    })
}

/// The audit of a claim from outputs ([`api::audit_samples`]): `labels` (1 on
/// D, 0 on D′) and `scores`, or `path` to a `label,score` CSV file.
#[pyfunction]
#[pyo3(signature = (labels, scores, path, epsilon, delta=None, order=None, log_ratio=false, confidence=0.95))]
#[allow(clippy::too_many_arguments)] // the claim's three numbers and the audit's two settings
fn audit_samples<'py>(
    py: Python<'py>,
    labels: Option<Vec<f64>>,
    scores: Option<Vec<f64>>,
    path: Option<PathBuf>,
    epsilon: f64,
    delta: Option<f64>,
    order: Option<f64>,
    log_ratio: bool,
    confidence: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let claim =
        api::score_claim(epsilon, delta, order, log_ratio).map_err(|e| error::to_py(py, e))?;
    let result = interruptible(py, false, move |_| {
        let samples = match (path, labels, scores) {
            (Some(p), None, None) => Samples::read(&p, log_ratio)?,
            (None, Some(l), Some(s)) => Samples::from_columns(&l, &s, log_ratio)?,
            _ => {
                return Err(ApiError::input(
                    "samples",
                    "samples: a path, or labels and scores (not both)",
                ))
            }
        };
        api::audit_samples(&samples, claim, log_ratio, confidence)
    })?;
    answer(py, result, |v| {
        v["schema"] = json!("privpost-audit-samples/1")
    })
}

/// The posterior from a release ([`api::prepare`], [`api::infer`]): `release`
/// is a dict of a release file's keys (named `name`), or a path (a TOML file, or
/// a figure's folder or manifest with `recorded` naming its release). Returns
/// the folder written, the warnings (`kind`, `message`) and the chains' rates.
#[pyfunction]
#[pyo3(signature = (release, name=None, recorded=None, out=PathBuf::from("results"), jobs=None, allow_long=false))]
fn infer<'py>(
    py: Python<'py>,
    release: &Bound<'py, PyAny>,
    name: Option<String>,
    recorded: Option<String>,
    out: PathBuf,
    jobs: Option<usize>,
    allow_long: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let fail = |e: ApiError| error::to_py(py, e);
    let source = if release.is_instance_of::<PyString>() || release.hasattr("__fspath__")? {
        let path: PathBuf = release.extract()?;
        if api::infer::is_manifest(&path) {
            if name.is_some() {
                return Err(fail(ApiError::input(
                    "name",
                    "name: only with a dict or a TOML file as the release (a recorded release's folder is named by its figure folder and `recorded`)",
                )));
            }
            ReleaseSource::Recorded {
                manifest: path,
                name: recorded,
            }
        } else if let Some(r) = recorded {
            return Err(fail(ApiError::input(
                "recorded",
                format!(
                    "recorded = {r:?}: only with a figure's folder or manifest.json as the release"
                ),
            )));
        } else {
            ReleaseSource::File { path, name }
        }
    } else if release.is_instance_of::<PyDict>() {
        let value = to_value(release, "release").map_err(fail)?;
        let name = name.unwrap_or_else(|| content_name(&value));
        ReleaseSource::Value { value, name }
    } else {
        return Err(fail(ApiError::input(
            "release",
            format!(
                "release: a dict of a release file's keys, or a path (got {})",
                release.get_type().name()?
            ),
        )));
    };
    let prepared = api::prepare(&source).map_err(fail)?;
    let options = InferOptions {
        out,
        jobs,
        allow_long,
    };
    let result = interruptible(py, true, move |stop| api::infer(&prepared, &options, &stop))?;
    let outcome = result.map_err(fail)?;
    let warnings: Vec<Value> = outcome
        .warnings
        .iter()
        .map(|w| {
            json!({"kind": match w.kind {
                api::WarningKind::Convergence => "convergence",
                api::WarningKind::Departure => "departure",
            }, "message": w.message})
        })
        .collect();
    to_py(
        py,
        &json!({
            "folder": outcome.folder.display().to_string(),
            "warnings": warnings,
            "acceptance": outcome.acceptance,
            "move_rate": outcome.move_rate,
            "acceptance_bound": outcome.acceptance_bound,
            "kernel": outcome.kernel,
            "release_epsilon": outcome.release_epsilon,
            "wall_seconds": outcome.wall_seconds,
            "cpu_seconds": outcome.cpu_seconds,
        }),
    )
}

/// A folder privpost wrote ([`api::load`]): `kind` (`figure` or `infer`), its
/// `manifest` read typed, the `folder` and its CSV `tables`.
#[pyfunction]
fn load<'py>(py: Python<'py>, folder: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    answer(py, api::load(&folder), |_| ())
}

/// Figures computed and written ([`api::run`]): `targets` are figure ids,
/// paper ids or config files; the folders go under `out`. Returns the reports
/// (`figure`, `label`, `folder`, `tasks`, `computed`, `up_to_date`,
/// `wall_seconds`), the failures (`keep_going`), the gallery page and the
/// wall time. Ctrl-C stops the workers between tasks: the finished tasks stay
/// in the task cache and no folder is written.
#[pyfunction]
#[pyo3(signature = (targets, all=false, profile=None, set=Vec::new(), configs=None, out=PathBuf::from("results"), jobs=None, force=false, no_cache=false, keep_going=false, allow_long=false))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    targets: Vec<String>,
    all: bool,
    profile: Option<String>,
    set: Vec<String>,
    configs: Option<PathBuf>,
    out: PathBuf,
    jobs: Option<usize>,
    force: bool,
    no_cache: bool,
    keep_going: bool,
    allow_long: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let selection = privpost::plan::Selection {
        targets,
        all,
        smoke: false,
        profile,
        set,
        config_dir: configs,
    };
    let result = interruptible(py, true, move |stop| {
        let options = api::RunOptions {
            out,
            jobs,
            force,
            no_cache,
            allow_long,
            keep_going,
            progress: privpost::runner::Progress::Quiet,
            stop: Some(stop),
        };
        api::run(&selection, &options)
    })?;
    let outcome = result.map_err(|e| error::to_py(py, e))?;
    let value = json!({
        "reports": outcome.reports.iter().map(|r| json!({
            "figure": r.figure,
            "label": r.label,
            "folder": r.dir,
            "tasks": r.tasks,
            "computed": r.computed,
            "up_to_date": r.up_to_date,
            "wall_seconds": r.wall_seconds,
        })).collect::<Vec<_>>(),
        "failures": outcome.failures.iter().map(|f| json!({
            "figure": f.figure, "message": f.message,
        })).collect::<Vec<_>>(),
        "gallery": outcome.gallery.as_ref().ok(),
        "jobs": outcome.jobs,
        "wall_seconds": outcome.wall_seconds,
    });
    to_py(py, &value)
}

/// The folder name of a release given without one: `release-` and 12 hex
/// digits of the SHA-256 of its keys (sorted) as JSON, so two releases never
/// share a folder.
fn content_name(value: &Value) -> String {
    use sha2::{Digest, Sha256};
    let text = serde_json::to_string(value).unwrap_or_default();
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("release-{hex}")
}

/// The version `privpost --version` prints.
#[pyfunction]
fn version() -> &'static str {
    privpost::LONG_VERSION
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(account, m)?)?;
    m.add_function(wrap_pyfunction!(verify_ledger, m)?)?;
    m.add_function(wrap_pyfunction!(audit_samples, m)?)?;
    m.add_function(wrap_pyfunction!(infer, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(model::summarize, m)?)?;
    m.add_class::<model::RecordSweep>()?;
    // the most kept values (chains × draws × parameters), as `privpost infer`'s
    m.add("MAX_KEPT", privpost::config::release::MAX_KEPT)?;
    Ok(())
}
