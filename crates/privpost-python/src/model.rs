//! The engine's part of a model written in Python (`privpost.infer_model`,
//! python/privpost/_model.py): one chain's record-wise accept/reject over the
//! contributions the model proposes ([`privpost::api::ModelChain`]), against one
//! of privpost's laws or the user's own log density; and the draws' summary.
//!
//! Arrays cross as bytes of little-endian f64 (the module is built for the
//! stable ABI of Python 3.9, which has no buffer protocol): the contributions in
//! (one copy), the accepted mask out as n bytes of 0 or 1 (`numpy.frombuffer`
//! reads it without a copy).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyList};
use serde_json::{json, Value};

use privpost::api::{self, ApiError, ModelChain};
use privpost::damcmc::arrays::{ArraySweep, Density, LawDensity};

use crate::convert::{to_py, to_value};
use crate::error;

/// `bytes` as n × m f64 values; an error names `what` and the shape expected.
fn floats(bytes: &[u8], n: usize, m: usize, what: &str) -> Result<Vec<f64>, ApiError> {
    if bytes.len() != n * m * 8 {
        return Err(ApiError::input(
            "model",
            format!(
                "{what}: {} bytes, allowed: {n} × {m} float64 values ({} bytes)",
                bytes.len(),
                n * m * 8
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("chunks of 8")))
        .collect())
}

/// The user's log density ln η(s_dp | s), called with the whole statistic s
/// (a list of m floats) once per proposal that would change it.
struct PyDensity<'py> {
    f: Bound<'py, PyAny>,
    current: f64,
    pending: f64,
    s: Vec<f64>,
}

impl PyDensity<'_> {
    fn call(&self, s: &[f64]) -> PyResult<f64> {
        let py = self.f.py();
        let out = self.f.call1((PyList::new(py, s)?,))?;
        let bad = |found: String| {
            error::to_py(
                py,
                ApiError::input(
                    "release",
                    format!(
                        "release (the log density) returned {found} for the statistic {s:?}: allowed a real number or -inf (a statistic the mechanism cannot release from)"
                    ),
                ),
            )
        };
        let x: f64 = if out.is_instance_of::<PyFloat>() || out.hasattr("__float__")? {
            out.extract::<f64>()
                .or_else(|_| out.call_method0("__float__")?.extract::<f64>())
                .map_err(|_| bad(format!("{out}")))?
        } else {
            return Err(bad(format!("{} {out}", out.get_type().name()?)));
        };
        if x.is_nan() {
            return Err(bad("nan".into()));
        }
        if x == f64::INFINITY {
            return Err(bad("inf".into()));
        }
        Ok(x)
    }
}

impl Density for PyDensity<'_> {
    type Error = PyErr;

    fn reset(&mut self, stat: &[f64]) -> PyResult<f64> {
        self.current = self.call(stat)?;
        Ok(self.current)
    }

    fn ratio(&mut self, stat: &[f64], touched: &[(usize, f64)]) -> PyResult<f64> {
        self.s.clear();
        self.s.extend_from_slice(stat);
        for &(k, v) in touched {
            self.s[k] = v;
        }
        self.pending = self.call(&self.s)?;
        Ok(self.pending - self.current)
    }

    fn take(&mut self, _touched: &[(usize, f64)]) {
        self.current = self.pending;
    }
}

/// One chain's record-wise sweeps (module docs).
#[pyclass(module = "privpost._native")]
pub struct RecordSweep {
    chain: ModelChain,
    /// privpost's law, or None for the user's log density (given to each sweep)
    law: Option<LawDensity>,
    /// ln η at the statistic, for the user's log density
    ln_eta: f64,
    n: usize,
    m: usize,
    proposed: Vec<f64>,
    accepted: Vec<bool>,
}

#[pymethods]
impl RecordSweep {
    /// Chain `chain` of seed `seed` from its first records' contributions
    /// (n × m float64 bytes), against the law of `release` (a `[release]`
    /// table's keys) or, when it is callable, the user's log density.
    #[new]
    fn new(
        py: Python<'_>,
        contributions: &Bound<'_, PyBytes>,
        n: usize,
        m: usize,
        seed: u64,
        chain: usize,
        release: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let fail = |e: ApiError| error::to_py(py, e);
        if n == 0 || m == 0 {
            return Err(fail(ApiError::input(
                "model",
                format!("model.propose: {n} records of {m} contributions each; allowed: at least 1 record and 1 released value"),
            )));
        }
        let current = floats(contributions.as_bytes(), n, m, "contributions").map_err(fail)?;
        if !release.is_callable() {
            let value = to_value(release, "release").map_err(fail)?;
            let release = api::model_release(&value, m).map_err(fail)?;
            let mut law = LawDensity::new(release);
            let chain = ModelChain::start(current, m, seed, chain, |s| {
                let Ok(l) = law.reset(s);
                Ok(l)
            })
            .map_err(fail)?;
            Ok(Self {
                chain,
                law: Some(law),
                ln_eta: f64::NAN,
                n,
                m,
                proposed: Vec::new(),
                accepted: vec![false; n],
            })
        } else {
            let mut density = PyDensity {
                f: release.clone(),
                current: f64::NAN,
                pending: f64::NAN,
                s: Vec::new(),
            };
            let mut raised = None;
            let started = ModelChain::start(current, m, seed, chain, |s| {
                density.reset(s).map_err(|e| {
                    raised = Some(e);
                    ApiError::failed("the log density raised")
                })
            });
            if let Some(e) = raised {
                return Err(e);
            }
            Ok(Self {
                chain: started.map_err(fail)?,
                law: None,
                ln_eta: density.current,
                n,
                m,
                proposed: Vec::new(),
                accepted: vec![false; n],
            })
        }
    }

    /// One sweep over the proposals' contributions (n × m float64 bytes):
    /// the accepted mask as n bytes of 0 or 1. `log_density` is the user's,
    /// when the chain has no law.
    #[pyo3(signature = (proposed, log_density=None))]
    fn sweep<'py>(
        &mut self,
        py: Python<'py>,
        proposed: &Bound<'py, PyBytes>,
        log_density: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let fail = |e: ApiError| error::to_py(py, e);
        self.proposed = floats(proposed.as_bytes(), self.n, self.m, "proposals").map_err(fail)?;
        match (&mut self.law, log_density) {
            (Some(law), None) => {
                let (chain, proposed, accepted) =
                    (&mut self.chain, &self.proposed, &mut self.accepted);
                py.detach(|| {
                    let Ok(_) = chain.sweep(law, proposed, accepted);
                });
            }
            (None, Some(f)) => {
                let mut density = PyDensity {
                    f: f.clone(),
                    current: self.ln_eta,
                    pending: f64::NAN,
                    s: Vec::with_capacity(self.m),
                };
                self.chain
                    .sweep(&mut density, &self.proposed, &mut self.accepted)?;
                self.ln_eta = density.current;
            }
            _ => {
                return Err(fail(ApiError::input(
                    "release",
                    "log_density: given to each sweep exactly when the chain was made without a release table",
                )))
            }
        }
        let mask: Vec<u8> = self.accepted.iter().map(|&a| u8::from(a)).collect();
        Ok(PyBytes::new(py, &mask))
    }

    /// What the sweeps so far did: (sweeps, accepted, changing, moves).
    fn counts(&self) -> (u64, u64, u64, u64) {
        let d = self.chain.done;
        (self.chain.sweeps, d.accepted, d.changing, d.moves)
    }

    /// The statistic s of the current records (m floats).
    fn statistic(&self) -> Vec<f64> {
        self.chain.state.stat.clone()
    }
}

/// The summary of the draws (chains × draws × parameters float64 bytes) named
/// `names`, with the sweeps' counts after warm-up: rows (`parameter`, `mean`,
/// `sd`, `q05`, `q50`, `q95`, `rhat`, `ess_bulk`, `ess_tail`), `warnings`,
/// `acceptance`, `move_rate`.
#[pyfunction]
#[pyo3(signature = (names, draws, chains, per_chain, accepted, changing, moves, proposals))]
#[allow(clippy::too_many_arguments)] // the draws' shape and the four counters
pub fn summarize<'py>(
    py: Python<'py>,
    names: Vec<String>,
    draws: &Bound<'py, PyBytes>,
    chains: usize,
    per_chain: usize,
    accepted: u64,
    changing: u64,
    moves: u64,
    proposals: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let fail = |e: ApiError| error::to_py(py, e);
    let p = names.len();
    let flat = floats(draws.as_bytes(), chains * per_chain, p, "draws").map_err(fail)?;
    let nested: Vec<Vec<Vec<f64>>> = flat
        .chunks_exact((per_chain * p).max(1))
        .map(|c| c.chunks_exact(p.max(1)).map(<[f64]>::to_vec).collect())
        .collect();
    let done = ArraySweep {
        accepted,
        changing,
        moves,
    };
    let s = api::summarize(names, nested, done, proposals).map_err(fail)?;
    let value: Value = json!({
        "summary": serde_json::to_value(&s.summary).unwrap_or_default(),
        "warnings": s.warnings.iter().map(|w| w.message.clone()).collect::<Vec<_>>(),
        "acceptance": s.acceptance,
        "move_rate": s.move_rate,
    });
    to_py(py, &value)
}
