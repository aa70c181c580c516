//! `calibration/logistic` (beyond the papers): the calibration of
//! the private logistic-regression posteriors of Geumlek et al. 2017 and
//! Minami et al. 2016 on a small synthetic task. For each ε and n, R
//! replications draw w* from the prior N(0, τ⁻¹I_d), n records with xᵢ uniform
//! on the unit sphere (‖x‖ = c = 1, Geumlek's Assumption 1) and yᵢ = ±1 with
//! P(yᵢ = 1) = σ(xᵢᵀw*), and a TARP reference point w_r from the prior; each
//! method's posterior is then sampled by L independent chains of the logistic
//! figures' sampler (`sampler = "imh"`, independence MH, by default; `"hmc"` or
//! `"slice"`: [`crate::experiments::logreg::Sampler`]) and checked per coordinate
//! (PIT and SBC rank of w*ₖ) and jointly by TARP (Lemos et al. 2023): a check of the
//! sampler as much as of the mechanisms.
//!
//! Every private method here releases **one draw** of a tempered or
//! concentrated posterior; one draw gives no interval. What is checked is the
//! law that one draw comes from: the posterior the mechanism samples. The prior
//! of the model is the data-generating prior N(0, τ⁻¹I) (Geumlek's N(0, (nβ₀)⁻¹I)
//! with nβ₀ = τ fixed across n), so only the non-private posterior is the exact
//! Bayesian posterior.

use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::Deserialize;

use super::cells::{self, distinct, CellData};
use crate::config::{check, deserialize, ParamError};
use crate::experiments::{logreg, parameter, Figure};
use crate::glm::calibrate::{Calibrated, Setting};
use crate::glm::{sigmoid, Posterior};
use crate::privacy::event::Conversion;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::table::{Row, Table};
use crate::stats::calibration::{randomized_pit, rank, tarp_rank};

/// A logistic-regression posterior whose calibration is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The posterior N(0, τ⁻¹I) × Πσ(yᵢxᵢᵀw): the control.
    NonPrivate,
    /// Geumlek et al. 2017 Algorithm 4: the prior's precision raised to nβ with
    /// β the smallest whose RDP curve (Theorem 16) converts to (ε, δ).
    Concentrated,
    /// Geumlek et al. 2017 Algorithm 5: the likelihood tempered by the largest
    /// ρ ≤ 1 whose RDP curve (Theorems 16–17) converts to (ε, δ).
    Diffuse,
    /// Minami et al. 2016: the Gibbs posterior exp(−β Σ loss)·prior with β from
    /// Theorem 7 at (ε, δ) (the logistic loss is c-Lipschitz, the prior
    /// τ-strongly log-concave).
    Gibbs,
    /// OPS as Geumlek §5.2 runs it: the prior truncated to the ball of radius
    /// c/β₀, the likelihood tempered by ρ = min(1, εβ₀/(4c²)); pure ε-DP.
    Ops,
}

privpost_core::names::name_table!(Method {
    NonPrivate => "non_private",
    Concentrated => "concentrated",
    Diffuse => "diffuse",
    Gibbs => "gibbs",
    Ops => "ops",
});

impl Method {
    /// The posterior the method samples, calibrated to (ε, δ) (OPS: pure ε).
    fn calibrate(self, s: &Setting, (epsilon, delta, conv): (f64, f64, Conversion)) -> Calibrated {
        match self {
            Self::NonPrivate => s.true_posterior(),
            Self::Concentrated => s.concentrated_dp(epsilon, delta, conv),
            Self::Diffuse => s.diffuse_dp(epsilon, delta, conv),
            Self::Gibbs => s.gibbs(epsilon, delta),
            Self::Ops => s.ops(epsilon),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    dim: u64,
    prior_precision: f64,
    epsilons: Vec<f64>,
    delta: f64,
    conversion: Conversion,
    n_values: Vec<u64>,
    replications: u64,
    replications_per_task: u64,
    methods: Vec<String>,
    levels: Vec<f64>,
    sbc_draws: u64,
    sbc_bins: u64,
    /// `imh` (default), `hmc` or `slice`, as the logistic figures
    #[serde(default = "default_sampler")]
    sampler: logreg::SamplerName,
    burn_in: u64,
    tune_iterations: u64,
    path_length: f64,
    /// the independence sampler's settings (`[imh]`)
    #[serde(default)]
    imh: logreg::ImhConfig,
}

fn default_sampler() -> logreg::SamplerName {
    logreg::SamplerName::Imh
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// Largest dimension (d ≤ 10: R replications × L chains stay cheap).
pub const MAX_DIM: u64 = 10;

/// Largest n (each leapfrog step costs n·d·L).
pub const MAX_N: u64 = 100_000;

/// The range of ε: below 1e-4 the Concentrated posterior's precision exceeds
/// 10⁹·τ and the chains' whitening loses precision; above 10³ every method but
/// OPS is the non-private posterior.
const EPSILON_RANGE: (f64, f64) = (1e-4, 1e3);

/// The calibration figure of the logistic-regression posteriors.
pub struct LogisticFigure {
    dim: usize,
    /// τ = nβ₀, the prior precision
    precision: f64,
    epsilons: Vec<f64>,
    delta: f64,
    conversion: Conversion,
    n_values: Vec<u64>,
    replications: usize,
    per_task: usize,
    methods: Vec<Method>,
    levels: Vec<f64>,
    sbc_draws: usize,
    sbc_bins: usize,
    sampler: logreg::Sampler,
    /// Per ε (config order), per n, per method (config order): what is sampled.
    calibrated: Vec<Vec<Vec<Calibrated>>>,
}

pub fn build(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Config = deserialize(params)?;
    if !(1..=MAX_DIM).contains(&c.dim) {
        return Err(ParamError::new(
            "dim",
            c.dim.to_string(),
            "1 ≤ d ≤ 10 (the number of coefficients of the synthetic task)",
        ));
    }
    check::within(
        "prior_precision",
        c.prior_precision,
        1e-6,
        1e6,
        "τ = nβ₀ of the prior N(0, τ⁻¹I) that also draws w*",
    )?;
    check::non_empty("epsilons", &c.epsilons)?;
    for &e in &c.epsilons {
        check::epsilon("epsilons", e)?;
        check::within(
            "epsilons",
            e,
            EPSILON_RANGE.0,
            EPSILON_RANGE.1,
            "the Concentrated posterior's precision stays samplable",
        )?;
    }
    distinct("epsilons", &c.epsilons)?;
    check::within(
        "delta",
        c.delta,
        1e-300,
        0.5,
        "the δ of the Concentrated, Diffuse and Gibbs posteriors, 0 < δ ≤ 0.5",
    )?;
    check::non_empty("n_values", &c.n_values)?;
    for &n in &c.n_values {
        check::at_least("n_values", n, 1)?;
        if n > MAX_N {
            return Err(ParamError::new(
                "n_values",
                n.to_string(),
                "1 ≤ n ≤ 100000 (every chain's leapfrog step costs n·d)",
            ));
        }
    }
    distinct(
        "n_values",
        &c.n_values.iter().map(|&n| n as f64).collect::<Vec<_>>(),
    )?;
    let replications = check::points("replications", c.replications, 2)?;
    let per_task = check::points("replications_per_task", c.replications_per_task, 1)?;
    let methods = super::parse_methods(
        &c.methods,
        &Method::ALL.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
        Method::parse,
    )?;
    super::check_levels(&c.levels)?;
    let (sbc_draws, sbc_bins) = super::check_sbc(c.sbc_draws, c.sbc_bins)?;
    let sampler = logreg::SamplerConfig {
        sampler: c.sampler,
        burn_in: check::points("burn_in", c.burn_in, 1)?,
        tune_iterations: check::points("tune_iterations", c.tune_iterations, 1)?,
        path_length: check::within(
            "path_length",
            c.path_length,
            1e-3,
            100.0,
            "HMC integration time per iteration, in whitened units",
        )?,
        imh: c.imh,
    }
    .validate()?;
    let calibrated = c
        .epsilons
        .iter()
        .map(|&e| {
            c.n_values
                .iter()
                .map(|&n| {
                    let s = setting(n, c.prior_precision);
                    methods
                        .iter()
                        .map(|m| m.calibrate(&s, (e, c.delta, c.conversion)))
                        .collect()
                })
                .collect()
        })
        .collect();
    Ok(Box::new(LogisticFigure {
        dim: c.dim as usize,
        precision: c.prior_precision,
        epsilons: c.epsilons,
        delta: c.delta,
        conversion: c.conversion,
        n_values: c.n_values,
        replications,
        per_task,
        methods,
        levels: c.levels,
        sbc_draws,
        sbc_bins,
        sampler,
        calibrated,
    }))
}

/// The task's constants: c = 1 (‖x‖ = 1), B = 1 (labels ±1), β₀ = τ/n.
fn setting(n: u64, precision: f64) -> Setting {
    Setting {
        n: n as usize,
        c: 1.0,
        b: 1.0,
        beta0: precision / n as f64,
    }
}

/// d-vector from N(0, τ⁻¹I).
fn prior_draw(d: usize, precision: f64, rng: &mut ChaCha8Rng) -> DVector<f64> {
    let sd = precision.sqrt().recip();
    DVector::from_fn(d, |_, _| {
        let z: f64 = StandardNormal.sample(rng);
        sd * z
    })
}

/// n records: xᵢ uniform on the unit sphere (a normalised Gaussian), yᵢ = ±1
/// with P(yᵢ = 1) = σ(xᵢᵀw).
fn simulate(n: usize, w: &DVector<f64>, rng: &mut ChaCha8Rng) -> (DMatrix<f64>, DVector<f64>) {
    let d = w.len();
    let mut x = DMatrix::zeros(n, d);
    let mut y = DVector::zeros(n);
    for i in 0..n {
        let mut z = prior_draw(d, 1.0, rng);
        let norm = z.norm();
        if norm > 0.0 {
            z /= norm;
        } else {
            z[0] = 1.0;
        }
        let u: f64 = rng.random();
        y[i] = if u < sigmoid(z.dot(w)) { 1.0 } else { -1.0 };
        x.set_row(i, &z.transpose());
    }
    (x, y)
}

/// Per coordinate (randomised PIT, SBC rank) of w*ₖ among the draws, then
/// TARP's (f, rank) for the reference w_r: all from the same L independent draws.
fn check(
    truth: &DVector<f64>,
    reference: &DVector<f64>,
    draws: &DMatrix<f64>,
    rng: &mut ChaCha8Rng,
) -> Vec<(f64, usize)> {
    let l = draws.ncols();
    let mut out: Vec<(f64, usize)> = (0..truth.len())
        .map(|j| {
            let coordinate: Vec<f64> = draws.row(j).iter().copied().collect();
            let r = rank(truth[j], &coordinate);
            (randomized_pit(r, l, rng.random()), r)
        })
        .collect();
    let columns: Vec<Vec<f64>> = draws
        .column_iter()
        .map(|c| c.iter().copied().collect())
        .collect();
    let r = tarp_rank(truth.as_slice(), &columns, reference.as_slice());
    out.push((randomized_pit(r, l, rng.random()), r));
    out
}

impl LogisticFigure {
    fn grid(&self) -> cells::Chunks {
        cells::Chunks {
            epsilons: self.epsilons.len(),
            n_values: self.n_values.len(),
            replications: self.replications,
            per_task: self.per_task,
        }
    }

    fn quantities(&self) -> Vec<String> {
        cells::quantity_names("w", self.dim)
    }

    /// L independent draws (d × L) of `cal`'s posterior given the data.
    fn draws(
        &self,
        cal: &Calibrated,
        (x, y): (&DMatrix<f64>, &DVector<f64>),
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<DMatrix<f64>> {
        let post = Posterior {
            x,
            y,
            rho: cal.rho,
            precision: cal.precision(x.nrows()),
            radius: cal.radius,
        };
        let (draws, _) = self
            .sampler
            .draws(&post, self.sbc_draws, rng)
            .map_err(|e| {
                anyhow::anyhow!(
                    "sampling the posterior (ρ = {}, nβ = {}): {e}",
                    cal.rho,
                    post.precision
                )
            })?;
        Ok(DMatrix::from_columns(&draws))
    }
}

impl Figure for LogisticFigure {
    fn parameters(&self) -> Vec<(String, String)> {
        vec![
            parameter(
                "prior and w*",
                format!("N(0, {}⁻¹·I_{})", self.precision, self.dim),
            ),
            parameter("δ", self.delta),
            parameter("RDP conversion", self.conversion.as_str()),
            parameter("replications R", self.replications),
            parameter(
                &format!("draws L (independent {} chains)", self.sampler.name()),
                self.sbc_draws,
            ),
        ]
    }

    fn task_count(&self) -> usize {
        self.grid().task_count()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} ε × {} n × {} replications, {} methods each (d = {})",
            self.epsilons.len(),
            self.n_values.len(),
            self.replications,
            self.methods.len(),
            self.dim
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let (_, ni, _, reps) = self.grid().task(index);
        let (n, d) = (self.n_values[ni] as f64, self.dim as f64);
        // per method: Newton's mode, then (HMC) leapfrog steps of L chains after
        // burn-in and of 8 pilot chains while tuning (about 3 gradients per
        // iteration at the whitened step size), or (IMH) the pilot and about
        // min_steps + 1 likelihood evaluations per chain, or (slice) d coordinate
        // updates of about six margin evaluations per sweep — each evaluation n·d
        // per chain plus n logistic terms
        let l = self.sbc_draws as f64;
        let evaluations = match self.sampler {
            logreg::Sampler::Hmc { burn_in, tune, .. } => {
                3.0 * (burn_in as f64 * l + tune as f64 * 8.0)
            }
            logreg::Sampler::Imh { settings, .. } => {
                crate::samplers::imh::PILOT as f64 + l * (settings.min_steps as f64 + 1.0)
            }
            logreg::Sampler::Slice { sweeps } => {
                sweeps as f64 * l * d * 6.0 * logreg::SLICE_FLOP_COST
            }
        };
        let per_method = evaluations * n * (2.0 * d + 20.0) + 40.0 * n * d * d;
        reps as f64 * self.methods.len() as f64 * per_method
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (e, ni, first, reps) = self.grid().task(index);
        let (epsilon, n) = (self.epsilons[e], self.n_values[ni]);
        let quantities = self.quantities();
        let mut rows = Vec::with_capacity(reps * self.methods.len() * (self.dim + 1));
        for replication in first..first + reps {
            let w = prior_draw(self.dim, self.precision, rng);
            let (x, y) = simulate(n as usize, &w, rng);
            let reference = prior_draw(self.dim, self.precision, rng);
            let rep = cells::Replication {
                epsilon,
                n,
                replication,
                theta: w.as_slice(),
                distance: (&w - &reference).norm(),
            };
            let replication_seed: u64 = rng.random();
            for (mi, &method) in self.methods.iter().enumerate() {
                let mut mrng = super::method_rng(replication_seed, method as u64);
                let draws = self.draws(&self.calibrated[e][ni][mi], (&x, &y), &mut mrng)?;
                let checks = check(&w, &reference, &draws, &mut mrng);
                rows.extend(cells::check_rows(
                    &rep,
                    method.as_str(),
                    &quantities,
                    &checks,
                ));
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(cells::summary_table(
            self.cells(data)?,
            cells::multi_summary_columns(),
            (self.sbc_draws, self.sbc_bins),
            &self.levels,
        ))
    }

    fn side_tables(&self, data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        Ok(cells::coverage_table(
            self.cells(data)?,
            cells::multi_coverage_columns(),
            &self.levels,
        ))
    }

    fn manifest_details(&self) -> serde_json::Value {
        let sampled: Vec<serde_json::Value> = self
            .epsilons
            .iter()
            .zip(&self.calibrated)
            .flat_map(|(eps, per_n)| {
                self.n_values.iter().zip(per_n).flat_map(move |(n, per_m)| {
                    self.methods.iter().zip(per_m).map(move |(m, cal)| {
                        serde_json::json!({
                            "method": m.as_str(), "epsilon": eps, "n": n,
                            "prior_precision": cal.precision(*n as usize), "rho": cal.rho,
                            "radius": cal.radius,
                        })
                    })
                })
            })
            .collect();
        serde_json::json!({
            "methods": self.methods.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
            "dim": self.dim,
            "levels": self.levels,
            "draws": self.sbc_draws,
            "sbc_bins": self.sbc_bins,
            "sampler": serde_json::to_value(self.sampler).unwrap_or_default(),
            "data": "x uniform on the unit sphere (c = 1), y = ±1 with P(y = 1) = σ(xᵀw*), w* from the prior",
            "one_draw": "every private method releases one draw; the check is of the law that draw comes from, sampled by L independent chains of the configured sampler",
            "tarp": "reference w_r drawn from the prior per replication (shared by the methods), Euclidean distance, f randomised: (rank + U)/(L + 1)",
            "sampled_posteriors": sampled,
            "verdict": "calibrated when the coverage curve stays inside the simultaneous 95 % DKW band at every level",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(self.ledger_entries())
    }
}

impl LogisticFigure {
    /// Per (method, ε, n) the claim of one release: what is sampled depends on
    /// n (OPS's ρ and radius; the others through nβ₀ = τ only), so each n has
    /// its entry.
    fn ledger_entries(&self) -> Ledger {
        let note = format!(
            "checks the law one draw comes from; the release is one draw per simulated dataset (each replication draws fresh data), sampled here by independent {} chains (accuracy: geumlek2017/samplers)",
            self.sampler.name()
        );
        let note = note.as_str();
        let mut out = Vec::new();
        for (e, &eps) in self.epsilons.iter().enumerate() {
            for (mi, &m) in self.methods.iter().enumerate() {
                for (ni, &n) in self.n_values.iter().enumerate() {
                    let s = setting(n, self.precision);
                    let cal = &self.calibrated[e][ni][mi];
                    let series = format!("method={}, epsilon={eps}, n={n}", m.as_str());
                    let (event, guarantee) = match m {
                        Method::NonPrivate => (Event::NonPrivate, Guarantee::None),
                        Method::Concentrated | Method::Diffuse => {
                            s.approx_dp_claim(cal, self.delta, self.conversion)
                        }
                        Method::Gibbs => s.gibbs_claim(cal, eps, self.delta),
                        Method::Ops => s.ops_claim(cal),
                    };
                    let entry = Entry::new(series, event, guarantee);
                    out.push(match m {
                        Method::NonPrivate => entry.when("the non-private control"),
                        _ => entry.when(note),
                    });
                }
            }
        }
        out
    }

    /// The rows of `data` grouped by (method, ε, n, quantity), in config order.
    fn cells(&self, data: &Table) -> anyhow::Result<Vec<CellData<cells::MultiKey>>> {
        let methods: Vec<&str> = self.methods.iter().map(|m| m.as_str()).collect();
        cells::MultiGrid {
            methods: &methods,
            epsilons: &self.epsilons,
            n_values: &self.n_values,
            quantities: &self.quantities(),
        }
        .cells(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn params(extra: &str) -> toml::Table {
        super::super::test_params("configs/calibration/logistic.toml", extra)
    }

    #[test]
    fn method_names_round_trip() {
        for &m in Method::ALL {
            assert_eq!(Method::parse(m.as_str()), Some(m));
        }
    }

    #[test]
    fn bad_settings_name_their_key() {
        for (extra, key) in [
            ("replications = 0", "replications"),
            ("epsilons = [0.0]", "epsilons"),
            ("epsilons = [-1.0]", "epsilons"),
            ("epsilons = [1e-300]", "epsilons"),
            ("epsilons = [1.0, 1.0]", "epsilons"),
            ("levels = [0.5, 1.0]", "levels"),
            ("levels = [0.0]", "levels"),
            ("n_values = [0]", "n_values"),
            ("n_values = [1000000]", "n_values"),
            ("dim = 0", "dim"),
            ("dim = 11", "dim"),
            ("prior_precision = 0.0", "prior_precision"),
            ("delta = 0.0", "delta"),
            ("delta = 1.0", "delta"),
            ("methods = [\"laplace_naive\"]", "methods"),
            ("sbc_bins = 7", "sbc_bins"),
            ("burn_in = 0", "burn_in"),
            ("path_length = 0.0", "path_length"),
        ] {
            let e = build(&params(extra), 1)
                .err()
                .unwrap_or_else(|| panic!("{extra} accepted"));
            assert_eq!(e.key, key, "{extra}: {e:?}");
        }
    }

    /// The simulated records: ‖x‖ = 1, and the labels follow σ(xᵀw*): the
    /// mean of (y + 1)/2 − σ(xᵀw) is 0 within 4 standard errors.
    #[test]
    fn simulated_records_follow_the_model() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let w = DVector::from_vec(vec![1.5, -0.5, 0.8]);
        let (x, y) = simulate(20_000, &w, &mut rng);
        assert!(x.row_iter().all(|r| (r.norm() - 1.0).abs() < 1e-12));
        let (mut resid, mut var) = (0.0, 0.0);
        for i in 0..x.nrows() {
            let p = sigmoid(x.row(i).transpose().dot(&w));
            resid += (y[i] + 1.0) / 2.0 - p;
            var += p * (1.0 - p);
        }
        assert!(
            resid.abs() < 4.0 * var.sqrt(),
            "{resid} vs sd {}",
            var.sqrt()
        );
        // the coordinates of x are uncorrelated with mean 0 and variance 1/d
        for j in 0..3 {
            let m: f64 = x.column(j).iter().sum::<f64>() / x.nrows() as f64;
            let v: f64 = x.column(j).iter().map(|a| a * a).sum::<f64>() / x.nrows() as f64;
            assert!(m.abs() < 0.02 && (v - 1.0 / 3.0).abs() < 0.02, "{m} {v}");
        }
    }

    /// The check of the check: the non-private posterior's ranks are uniform
    /// (SBC χ² p > 0.001, per coordinate and TARP) over 200 replications at
    /// n = 10 and n = 100; a posterior with the prior's precision multiplied
    /// by 50 (Concentrated at small ε) fails it (p < 1e-6).
    #[test]
    fn the_control_is_calibrated_and_a_concentrated_posterior_is_not() {
        let small = "replications = 200\nreplications_per_task = 200\nepsilons = [0.1]\nsbc_draws = 19\nsbc_bins = 10\nburn_in = 30\ntune_iterations = 20";
        for n in [10, 100] {
            let f = build(
                &params(&format!(
                    "{small}\nn_values = [{n}]\nmethods = [\"non_private\", \"concentrated\"]"
                )),
                1,
            )
            .unwrap();
            let rows = f.run_task(0, &mut ChaCha8Rng::seed_from_u64(5)).unwrap();
            let table = Table::new(crate::results::record::columns::<cells::CheckRow>(), rows);
            let summary = f.summarize(&table).unwrap();
            let keys: Vec<cells::MultiKey> = summary.records().unwrap();
            let tails: Vec<cells::SummaryTail> = summary.records().unwrap();
            for (k, t) in keys.iter().zip(&tails) {
                let (quantity, pv) = (&k.quantity, t.sbc_p);
                if k.method == "non_private" {
                    assert!(pv > 1e-3, "n = {n}, {quantity}: control p = {pv}");
                } else if quantity != "tarp" {
                    assert!(pv < 1e-6, "n = {n}, {quantity}: concentrated p = {pv}");
                }
            }
        }
    }

    /// What is sampled meets the claim: the ledger's (ε, δ) is at most the
    /// target ε for Concentrated and Diffuse, exactly it for Gibbs, and OPS
    /// claims pure ε.
    #[test]
    fn ledger_claims_are_at_most_the_target() {
        let f = build(&params(""), 1).unwrap();
        let ledger = f.ledger().unwrap();
        assert_eq!(ledger.len(), 4 * 5 * 3);
        for entry in &ledger {
            let target: f64 = entry
                .series
                .split("epsilon=")
                .nth(1)
                .and_then(|s| s.split(',').next())
                .and_then(|s| s.parse().ok())
                .unwrap();
            match &entry.guarantee {
                Guarantee::ApproxDp { epsilon, delta, .. } => {
                    assert!(
                        *epsilon <= target * (1.0 + 1e-12),
                        "{}: {epsilon}",
                        entry.series
                    );
                    assert_eq!(*delta, 1e-5);
                }
                Guarantee::PureDp { epsilon } => {
                    assert!(entry.series.starts_with("method=ops"));
                    assert!(
                        *epsilon <= target * (1.0 + 1e-12),
                        "{}: {epsilon}",
                        entry.series
                    );
                }
                Guarantee::None => assert!(entry.series.starts_with("method=non_private")),
                other => panic!("unexpected claim {other:?}"),
            }
        }
    }

    /// A method's rows do not depend on which other methods run.
    #[test]
    fn methods_do_not_disturb_each_other() {
        let small = "replications = 3\nreplications_per_task = 3\nn_values = [10]\nepsilons = [0.3]\nsbc_draws = 9\nsbc_bins = 5\nburn_in = 5\ntune_iterations = 5";
        let all = build(&params(small), 1).unwrap();
        let one = build(&params(&format!("{small}\nmethods = [\"gibbs\"]")), 1).unwrap();
        let rows_all = all.run_task(0, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
        let rows_one = one.run_task(0, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
        let pick: Vec<&Row> = rows_all
            .iter()
            .filter(|r| r[3].as_str() == "gibbs")
            .collect();
        assert_eq!(rows_one.len(), 3 * 4);
        assert_eq!(pick.len(), rows_one.len());
        for (a, b) in pick.iter().zip(&rows_one) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }
}
