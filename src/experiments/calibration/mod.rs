//! Calibration checks of private posteriors (beyond the papers):
//! does a private posterior's 95 % interval contain the truth 95 % of the time?
//!
//! `calibration/beta_bernoulli`: for each ε and n, R replications draw θ* from
//! the prior, n Bernoulli(θ*) records, the releases of their counts, and each
//! method's posterior from its release; a replication records the PIT of θ*
//! (the posterior CDF at θ*) and its SBC rank among L posterior draws
//! (`stats::calibration`). Every method of one replication sees the same θ*,
//! data and releases.

pub mod cells;
pub mod da_models;
mod da_setup;
pub mod dirichlet;
pub mod logistic;
pub mod plot;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::{Deserialize, Serialize};
use statrs::function::beta::beta_reg;

use crate::config::{check, deserialize, ParamError};
use crate::damcmc;
use crate::experiments::{noise_parameter, parameter, Figure};
use crate::expfam::beta::BetaDist;
use crate::expfam::dirichlet::HellingerVariant;
use crate::expfam::mechanisms::{counts_noise, Algorithm, BetaBernoulli as GeumlekProblem, Ops};
use crate::expfam::noise_aware::{
    bs_gibbs, BetaMixture, CountLaw, GibbsSettings, Release, MAX_EXACT_N,
};
use crate::hellinger::{ExpMech, Space};
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Derivation, Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::privacy::noise::CountNoise;
use crate::privacy::search::Verified;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::stats::calibration::{central_level, rank};
use std::sync::OnceLock;

use cells::{distinct, CellData};

mod checks;
pub use checks::ONE_COUNT_SENSITIVITY;
use checks::{
    check_da, check_gibbs, check_levels, check_sbc, default_da_draws, default_da_warmup,
    geumlek_coefficients, hellinger_spaces, methods, parse_methods, releases,
};

mod ledger;
use ledger::ledger;

mod posterior;
use posterior::{draw_candidate, Drawn, Posterior};

/// A posterior whose calibration is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Beta(α + n₊, β + n₋): the control, calibrated by construction.
    NonPrivate,
    /// Foulds's Laplace mechanism as published: Beta(α + z₊, β + z₋) from the
    /// clamped noisy counts, as if they were the real ones.
    LaplaceNaive,
    /// The exact posterior given Foulds's release ([`BetaMixture::exact`]).
    LaplaceNoiseAware,
    /// Bernstein & Sheldon's naive baseline: Beta(α + y, β + n − y), floored at 0.001.
    CountNaive,
    /// The exact posterior given the one-count release.
    CountNoiseAware,
    /// Bernstein & Sheldon's noise-aware Gibbs sampler on the one-count release.
    CountGibbs,
    /// The distribution one OPS draw comes from (Foulds §3.1): the posterior
    /// tempered by T and truncated to [a₀, 1 − a₀]. One draw gives no interval;
    /// this checks the law it is drawn from.
    Ops,
    /// Geumlek et al. 2017 Algorithm 2 (diffused posterior, data weighted by r),
    /// calibrated to (λ, ε)-RDP at `rdp_order`: the law its one draw comes from.
    Diffused,
    /// Geumlek et al. 2017 Algorithm 3 (concentrated posterior, prior scaled by
    /// 1/m), calibrated likewise.
    ConcentratedBeta,
    /// Bun et al.'s smoothed-Hellinger exponential mechanism, k = 2: it releases
    /// the posterior Beta(α + r, β + n − r) of a candidate count r drawn with
    /// weight exp(−ε H / (2 S)); the released posterior itself is checked.
    HellingerEm,
    /// Data-augmentation MCMC (Ju et al. 2022, record-wise kernel) on Foulds's
    /// release: one chain of `da_warmup` warm-up and `da_draws` kept
    /// sweeps; a general sampler checked where the exact posterior is known.
    /// Declared last: a method's stream is keyed by its position (`method_rng`).
    DaMcmc,
}

privpost_core::names::name_table!(Method {
    NonPrivate => "non_private",
    LaplaceNaive => "laplace_naive",
    LaplaceNoiseAware => "laplace_noise_aware",
    CountNaive => "count_naive",
    CountNoiseAware => "count_noise_aware",
    CountGibbs => "count_gibbs",
    Ops => "ops",
    Diffused => "diffused",
    ConcentratedBeta => "concentrated_beta",
    HellingerEm => "hellinger_em",
    DaMcmc => "da_mcmc",
});

impl Method {
    /// The release the method reads.
    fn release(self) -> Option<ReleaseKind> {
        match self {
            Self::NonPrivate => None,
            Self::LaplaceNaive | Self::LaplaceNoiseAware | Self::DaMcmc => {
                Some(ReleaseKind::FouldsCounts)
            }
            Self::CountNaive | Self::CountNoiseAware | Self::CountGibbs => {
                Some(ReleaseKind::OneCount)
            }
            Self::Ops => Some(ReleaseKind::Ops),
            Self::Diffused | Self::ConcentratedBeta => Some(ReleaseKind::Rdp),
            Self::HellingerEm => Some(ReleaseKind::Hellinger),
        }
    }

    /// Geumlek's algorithm behind the method, if it is one.
    fn geumlek(self) -> Option<Algorithm> {
        match self {
            Self::Diffused => Some(Algorithm::Diffused),
            Self::ConcentratedBeta => Some(Algorithm::Concentrated),
            _ => None,
        }
    }
}

/// The privacy-relevant releases of one replication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReleaseKind {
    /// Laplace(2/ε) on (n₊, n₋), clamped at 0 (Foulds eq. 16).
    FouldsCounts,
    /// Laplace(1/ε) on n₊ (Bernstein & Sheldon).
    OneCount,
    /// One OPS sample at ε.
    Ops,
    /// One sample of a Geumlek posterior at (λ, ε)-RDP.
    Rdp,
    /// One release of Bun et al.'s mechanism at (ε, δ).
    Hellinger,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    noise: NoiseMode,
    prior: Vec<f64>,
    epsilons: Vec<f64>,
    n_values: Vec<u64>,
    replications: u64,
    replications_per_task: u64,
    methods: Vec<String>,
    levels: Vec<f64>,
    sbc_draws: u64,
    sbc_bins: u64,
    gibbs_burn_in: u64,
    gibbs_draws: u64,
    #[serde(default = "default_da_warmup")]
    da_warmup: u64,
    #[serde(default = "default_da_draws")]
    da_draws: u64,
    a0: f64,
    rdp_order: f64,
    hellinger_delta: f64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// The noise of each release at one ε.
struct Releases {
    epsilon: f64,
    counts: CountNoise,
    one: CountNoise,
    ops: Ops,
    /// Per n (config order): the Diffused and Concentrated coefficients
    /// calibrated to (λ, ε)-RDP, when a Geumlek method runs.
    geumlek: Vec<[Verified; 2]>,
}

/// The calibration figure of the Beta-Bernoulli posteriors.
pub struct BetaBernoulli {
    noise: NoiseMode,
    prior: BetaDist,
    releases: Vec<Releases>,
    n_values: Vec<u64>,
    replications: usize,
    per_task: usize,
    methods: Vec<Method>,
    levels: Vec<f64>,
    sbc_draws: usize,
    sbc_bins: usize,
    gibbs: GibbsSettings,
    /// the data-augmentation arm's (warm-up, kept) sweeps
    da: (usize, usize),
    rdp_order: f64,
    /// δ of the smoothed-Hellinger mechanism, and its candidate space per n
    /// (when the method runs).
    hellinger_delta: f64,
    spaces: Vec<Space>,
}

pub fn build(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Config = deserialize(params)?;
    let (a, b) = check::prior("prior", &c.prior)?;
    let prior = BetaDist::new(a, b)
        .map_err(|e| ParamError::new("prior", e.to_string(), "[alpha, beta] > 0"))?;
    check::non_empty("epsilons", &c.epsilons)?;
    let mut releases = c
        .epsilons
        .iter()
        .map(|&e| releases(c.noise, e, c.a0))
        .collect::<Result<Vec<_>, _>>()?;
    distinct("epsilons", &c.epsilons)?;
    check::non_empty("n_values", &c.n_values)?;
    for &n in &c.n_values {
        check::at_least("n_values", n, 1)?;
        if n > MAX_EXACT_N {
            return Err(ParamError::new(
                "n_values",
                n.to_string(),
                "1 ≤ n ≤ 100000 (the exact noise-aware posterior sums over n + 1 latent counts)",
            ));
        }
    }
    distinct(
        "n_values",
        &c.n_values.iter().map(|&n| n as f64).collect::<Vec<_>>(),
    )?;
    let replications = check::points("replications", c.replications, 2)?;
    let per_task = check::points("replications_per_task", c.replications_per_task, 1)?;
    let methods = methods(&c.methods)?;
    check::order("rdp_order", c.rdp_order)?;
    check::within(
        "hellinger_delta",
        c.hellinger_delta,
        1e-300,
        0.5,
        "the δ of the smoothed-Hellinger mechanism, 0 < δ ≤ 0.5",
    )?;
    let spaces = if methods.contains(&Method::HellingerEm) {
        hellinger_spaces(&prior, &c.n_values)?
    } else {
        Vec::new()
    };
    if methods.iter().any(|m| m.geumlek().is_some()) {
        for rel in &mut releases {
            rel.geumlek = geumlek_coefficients(&prior, &c.n_values, c.rdp_order, rel.epsilon)?;
        }
    }
    check_levels(&c.levels)?;
    let (sbc_draws, sbc_bins) = check_sbc(c.sbc_draws, c.sbc_bins)?;
    let gibbs = check_gibbs(
        c.gibbs_burn_in,
        c.gibbs_draws,
        sbc_draws,
        methods.contains(&Method::CountGibbs),
    )?;
    let da = check_da(
        c.da_warmup,
        c.da_draws,
        sbc_draws,
        methods.contains(&Method::DaMcmc),
    )?;
    Ok(Box::new(BetaBernoulli {
        noise: c.noise,
        prior,
        releases,
        n_values: c.n_values,
        replications,
        per_task,
        methods,
        levels: c.levels,
        sbc_draws,
        sbc_bins,
        gibbs,
        da,
        rdp_order: c.rdp_order,
        hellinger_delta: c.hellinger_delta,
        spaces,
    }))
}

/// One replication's result for one method: a row of `data.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PitRow {
    pub epsilon: f64,
    pub n: u64,
    pub replication: usize,
    pub method: Method,
    /// θ*, drawn from the prior
    pub theta_true: f64,
    /// the posterior CDF at θ*
    pub pit: f64,
    pub rank: usize,
}

/// A cell's key, the first columns of `summary.csv` and `coverage.csv`: a
/// method at one ε and n.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellKey {
    pub method: Method,
    pub epsilon: f64,
    pub n: u64,
}

/// `summary.csv`'s columns: [`CellKey`], then [`cells::SummaryTail`].
pub fn summary_columns() -> &'static [&'static str] {
    static C: OnceLock<Vec<&'static str>> = OnceLock::new();
    cells::joined::<CellKey, cells::SummaryTail>(&C)
}

/// `coverage.csv`'s columns: one row per (method, ε, n, level): [`CellKey`],
/// then [`cells::CoverageTail`].
pub fn coverage_columns() -> &'static [&'static str] {
    static C: OnceLock<Vec<&'static str>> = OnceLock::new();
    cells::joined::<CellKey, cells::CoverageTail>(&C)
}

impl BetaBernoulli {
    fn grid(&self) -> cells::Chunks {
        cells::Chunks {
            epsilons: self.releases.len(),
            n_values: self.n_values.len(),
            replications: self.replications,
            per_task: self.per_task,
        }
    }

    /// (ε index, n index, first replication, replications) of a task.
    fn task(&self, index: usize) -> (usize, usize, usize, usize) {
        self.grid().task(index)
    }

    /// The posterior of `method` from one replication's data and releases.
    fn posterior(
        &self,
        method: Method,
        rel: &Releases,
        n: u64,
        s: u64,
        drawn: &Drawn,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<Posterior> {
        let (a, b) = (self.prior.alpha(), self.prior.beta());
        let (nf, sf) = (n as f64, s as f64);
        let floor = |x: f64| x.max(1e-3);
        Ok(match method {
            Method::NonPrivate => Posterior::Beta(BetaDist::new(a + sf, b + nf - sf)?),
            Method::LaplaceNaive => {
                Posterior::Beta(BetaDist::new(a + drawn.positives, b + drawn.negatives)?)
            }
            Method::LaplaceNoiseAware => Posterior::Mixture(BetaMixture::exact(
                &self.prior,
                n,
                Release::FouldsCounts {
                    positives: drawn.positives,
                    negatives: drawn.negatives,
                },
                &CountLaw::of(&rel.counts),
            )?),
            Method::CountNaive => {
                Posterior::Beta(BetaDist::new(floor(a + drawn.y), floor(b + nf - drawn.y))?)
            }
            Method::CountNoiseAware => Posterior::Mixture(BetaMixture::exact(
                &self.prior,
                n,
                Release::OneCount { y: drawn.y },
                &CountLaw::of(&rel.one),
            )?),
            Method::DaMcmc => {
                let model = damcmc::models::Categorical::beta_bernoulli(
                    a,
                    b,
                    n as usize,
                    damcmc::models::Counts::All,
                )?;
                let release = damcmc::Release::new(
                    vec![drawn.positives, drawn.negatives],
                    damcmc::Noise::of_counts(&rel.counts),
                    damcmc::Clamp::NON_NEGATIVE,
                    2,
                )?;
                let draws =
                    damcmc::models::count_posterior(&model, &release, self.da, rng.random())?;
                Posterior::Draws(draws.iter().map(|t| t[0]).collect())
            }
            Method::CountGibbs => Posterior::Draws(bs_gibbs(
                &self.prior,
                n,
                drawn.y,
                rel.one.scale(),
                self.gibbs,
                rng,
            )),
            Method::Ops => Posterior::Truncated(rel.ops.distribution(&self.prior, sf, nf - sf)?),
            Method::HellingerEm => {
                let ni = self.n_values.iter().position(|&x| x == n).unwrap_or(0);
                let data = [s as u32, (n - s) as u32];
                let em = ExpMech::new(&self.spaces[ni], &data, rel.epsilon, self.hellinger_delta)?;
                let r = draw_candidate(&em.exact(), rng);
                Posterior::Beta(BetaDist::new(a + r, b + nf - r)?)
            }
            Method::Diffused | Method::ConcentratedBeta => {
                let ni = self.n_values.iter().position(|&x| x == n).unwrap_or(0);
                let k = usize::from(method == Method::ConcentratedBeta);
                let algorithm = method.geumlek().unwrap_or(Algorithm::Diffused);
                Posterior::Beta(GeumlekProblem::new(self.prior, n).posterior(
                    algorithm,
                    rel.geumlek[ni][k].coefficient,
                    sf,
                ))
            }
        })
    }
}

impl Figure for BetaBernoulli {
    fn parameters(&self) -> Vec<(String, String)> {
        [
            parameter(
                "prior",
                format!("Beta({}, {})", self.prior.alpha(), self.prior.beta()),
            ),
            parameter("replications R", self.replications),
            parameter("SBC draws L", self.sbc_draws),
        ]
        .into_iter()
        .chain(noise_parameter(self.noise))
        .collect()
    }

    fn task_count(&self) -> usize {
        self.grid().task_count()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} ε × {} n × {} replications, {} methods each",
            self.releases.len(),
            self.n_values.len(),
            self.replications,
            self.methods.len()
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let (_, ni, _, reps) = self.task(index);
        let n = self.n_values[ni] as f64;
        let per_rep: f64 = self
            .methods
            .iter()
            .map(|m| match m {
                // n + 1 log-weights, then the kept components' CDF and draws
                Method::LaplaceNoiseAware | Method::CountNoiseAware => {
                    200.0 * (n + 1.0) + 300.0 * self.sbc_draws as f64
                }
                Method::CountGibbs => 400.0 * (self.gibbs.burn_in + self.gibbs.draws) as f64,
                // a sweep over the n records and a Beta draw per iteration
                Method::DaMcmc => (60.0 * n + 200.0) * (self.da.0 + self.da.1) as f64,
                // smooth sensitivity and exact output probabilities over n + 1 candidates
                Method::HellingerEm => 300.0 * (n + 1.0) + 300.0 * self.sbc_draws as f64,
                _ => 300.0 * self.sbc_draws as f64,
            })
            .sum();
        reps as f64 * per_rep
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (e, ni, first, reps) = self.task(index);
        let (rel, n) = (&self.releases[e], self.n_values[ni]);
        let mut rows = Vec::with_capacity(reps * self.methods.len());
        for replication in first..first + reps {
            let theta = self.prior.sample(rng);
            let s = Binomial::new(n, theta)?.sample(rng);
            let (pos, neg) = (s as f64, (n - s) as f64);
            // the releases, drawn whether or not a method reads them, so that
            // each method's rows do not depend on which others run
            let drawn = {
                let mut r = rel.counts.rng(rng)?;
                let positives = rel.counts.add(pos, &mut r).max(0.0);
                let negatives = rel.counts.add(neg, &mut r).max(0.0);
                let mut r = rel.one.rng(rng)?;
                let y = rel.one.add(pos, &mut r);
                Drawn {
                    positives,
                    negatives,
                    y,
                }
            };
            // each method draws from its own stream, keyed by the replication
            let replication_seed: u64 = rng.random();
            for &method in &self.methods {
                let mut mrng = method_rng(replication_seed, method as u64);
                let post = self.posterior(method, rel, n, s, &drawn, &mut mrng)?;
                let (pit, rank) = post.check(theta, self.sbc_draws, &mut mrng);
                rows.push(to_row(&PitRow {
                    epsilon: rel.epsilon,
                    n,
                    replication,
                    method,
                    theta_true: theta,
                    pit,
                    rank,
                }));
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(cells::summary_table(
            self.cells(data)?,
            summary_columns(),
            (self.sbc_draws, self.sbc_bins),
            &self.levels,
        ))
    }

    fn side_tables(&self, data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        Ok(cells::coverage_table(
            self.cells(data)?,
            coverage_columns(),
            &self.levels,
        ))
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "methods": self.methods.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
            "levels": self.levels,
            "sbc_draws": self.sbc_draws,
            "sbc_bins": self.sbc_bins,
            "gibbs": { "burn_in": self.gibbs.burn_in, "draws": self.gibbs.draws },
            "da_mcmc": { "kernel": "record_wise (Ju et al. 2022)", "chains": 1, "warmup": self.da.0, "draws": self.da.1 },
            "verdict": "calibrated when the coverage curve stays inside the simultaneous 95 % DKW band at every level",
            "exact_posterior": "finite Beta mixture over the latent count (components below 1e-15 dropped)",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(ledger(
            &self.prior,
            &self.n_values,
            (self.rdp_order, self.hellinger_delta),
            &self.releases,
            &self.methods,
        ))
    }
}

/// A method's generator for one replication: from the replication's seed (one
/// draw of the task's stream whatever the methods) and the method, so adding or
/// removing a method changes no other method's rows.
fn method_rng(replication_seed: u64, method: u64) -> ChaCha8Rng {
    use rand::SeedableRng;
    let mut rng = ChaCha8Rng::seed_from_u64(replication_seed);
    rng.set_stream(1 + method);
    rng
}

impl BetaBernoulli {
    /// The rows of `data` grouped by (method, ε, n), in config order.
    fn cells(&self, data: &Table) -> anyhow::Result<Vec<CellData<CellKey>>> {
        let mut cells = Vec::new();
        for &method in &self.methods {
            for rel in &self.releases {
                for &n in &self.n_values {
                    cells.push(CellData::new(CellKey {
                        method,
                        epsilon: rel.epsilon,
                        n,
                    }));
                }
            }
        }
        let per_method = self.releases.len() * self.n_values.len();
        for (i, row) in data.record_iter::<PitRow>()?.enumerate() {
            let row = row?;
            let (mi, ei, ni) = (
                self.methods.iter().position(|&x| x == row.method),
                self.releases.iter().position(|r| r.epsilon == row.epsilon),
                self.n_values.iter().position(|&x| x == row.n),
            );
            let (Some(mi), Some(ei), Some(ni)) = (mi, ei, ni) else {
                anyhow::bail!("data row {i}: a method, ε or n not in the config");
            };
            let c = &mut cells[mi * per_method + ei * self.n_values.len() + ni];
            c.credible.push(central_level(row.pit));
            c.ranks.push(row.rank);
        }
        Ok(cells)
    }
}

/// A calibration config's parameters as `build` reads them (the run keys
/// removed), with `extra` TOML laid over them: what the figures' tests vary.
#[cfg(test)]
pub(crate) fn test_params(config: &str, extra: &str) -> toml::Table {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(config))
            .unwrap();
    let mut t: toml::Table = toml::from_str(&text).unwrap();
    for k in ["experiment", "description", "seed", "profile"] {
        t.remove(k);
    }
    let over: toml::Table = toml::from_str(extra).unwrap();
    t.extend(over);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(extra: &str) -> toml::Table {
        super::test_params("configs/calibration/beta_bernoulli.toml", extra)
    }

    /// Naive and noise-aware posteriors read the same release: the ledger of a
    /// figure with the noise-aware series claims exactly what it claims without.
    #[test]
    fn noise_aware_series_add_no_privacy_claim() {
        let claims = |methods: &str| {
            let f = build(&params(&format!("methods = {methods}")), 1).unwrap();
            let mut c: Vec<String> = f
                .ledger()
                .unwrap()
                .iter()
                .map(|e| format!("{:?} {:?}", e.event, e.guarantee))
                .collect();
            c.sort();
            c.dedup();
            c
        };
        let without = claims(r#"["non_private", "laplace_naive", "count_naive", "ops"]"#);
        let with = claims(
            r#"["non_private", "laplace_naive", "laplace_noise_aware", "count_naive", "count_noise_aware", "count_gibbs", "ops"]"#,
        );
        assert_eq!(with, without);
        assert!(without.len() > 1);
    }

    #[test]
    fn bad_settings_name_their_key() {
        for (extra, key) in [
            ("replications = 0", "replications"),
            ("epsilons = [0.0]", "epsilons"),
            ("epsilons = [-1.0]", "epsilons"),
            ("epsilons = [1e-300]", "epsilons"),
            ("levels = [0.5, 1.0]", "levels"),
            ("levels = [0.0]", "levels"),
            ("n_values = [100001]", "n_values"),
            ("methods = [\"laplace\"]", "methods"),
            ("sbc_bins = 7", "sbc_bins"),
            ("gibbs_draws = 10", "gibbs_draws"),
            ("hellinger_delta = 0.0", "hellinger_delta"),
            ("n_values = [20000]", "n_values"),
        ] {
            let e = build(&params(extra), 1)
                .err()
                .unwrap_or_else(|| panic!("{extra} accepted"));
            assert_eq!(e.key, key, "{extra}: {e:?}");
        }
    }

    /// A method's rows do not depend on which other methods run.
    #[test]
    fn methods_do_not_disturb_each_other() {
        use rand::SeedableRng;
        let small =
            "replications = 4\nreplications_per_task = 4\nn_values = [10]\nepsilons = [0.3]";
        let all = build(&params(small), 1).unwrap();
        let one = build(
            &params(&format!("{small}\nmethods = [\"count_noise_aware\"]")),
            1,
        )
        .unwrap();
        let rows_all = all.run_task(0, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
        let rows_one = one.run_task(0, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
        let pick: Vec<&Row> = rows_all
            .iter()
            .filter(|r| r[3].as_str() == "count_noise_aware")
            .collect();
        assert_eq!(pick.len(), rows_one.len());
        for (a, b) in pick.iter().zip(&rows_one) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }

    /// The headers the CSVs have always had; a method is written by its name.
    #[test]
    fn rows_have_the_csvs_columns_and_round_trip() {
        use crate::results::record::columns;
        let keys = ["method", "epsilon", "n"];
        assert_eq!(summary_columns()[..3], keys);
        assert_eq!(summary_columns()[3], "replications");
        assert_eq!(summary_columns().len(), 11);
        assert_eq!(coverage_columns()[..3], keys);
        assert_eq!(coverage_columns()[3], "level");
        assert_eq!(coverage_columns().len(), 9);
        assert_eq!(
            columns::<PitRow>(),
            [
                "epsilon",
                "n",
                "replication",
                "method",
                "theta_true",
                "pit",
                "rank"
            ]
        );
        let row = PitRow {
            epsilon: 1.0,
            n: 10,
            replication: 0,
            method: Method::ConcentratedBeta,
            theta_true: 0.5,
            pit: 0.25,
            rank: 3,
        };
        let table = Table::new(columns::<PitRow>(), vec![to_row(&row)]);
        assert_eq!(table.rows[0][3].as_str(), "concentrated_beta");
        assert_eq!(table.records::<PitRow>().unwrap(), [row]);
        for &m in Method::ALL {
            assert_eq!(Method::parse(m.as_str()), Some(m));
        }
    }
}
