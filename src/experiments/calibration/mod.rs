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
pub mod dirichlet;
pub mod logistic;
pub mod plot;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Deserialize;
use statrs::function::beta::beta_reg;

use crate::config::{check, deserialize, ParamError};
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
use crate::results::table::{Row, Table};
use crate::stats::calibration::{central_level, rank};
use cells::{distinct, CellData};

/// A posterior whose calibration is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
}

impl Method {
    pub const ALL: [Method; 10] = [
        Self::NonPrivate,
        Self::LaplaceNaive,
        Self::LaplaceNoiseAware,
        Self::CountNaive,
        Self::CountNoiseAware,
        Self::CountGibbs,
        Self::Ops,
        Self::Diffused,
        Self::ConcentratedBeta,
        Self::HellingerEm,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::NonPrivate => "non_private",
            Self::LaplaceNaive => "laplace_naive",
            Self::LaplaceNoiseAware => "laplace_noise_aware",
            Self::CountNaive => "count_naive",
            Self::CountNoiseAware => "count_noise_aware",
            Self::CountGibbs => "count_gibbs",
            Self::Ops => "ops",
            Self::Diffused => "diffused",
            Self::ConcentratedBeta => "concentrated_beta",
            Self::HellingerEm => "hellinger_em",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The release the method reads.
    fn release(self) -> Option<ReleaseKind> {
        match self {
            Self::NonPrivate => None,
            Self::LaplaceNaive | Self::LaplaceNoiseAware => Some(ReleaseKind::FouldsCounts),
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
        rdp_order: c.rdp_order,
        hellinger_delta: c.hellinger_delta,
        spaces,
    }))
}

/// Largest n of the smoothed-Hellinger method (its smooth sensitivity scans
/// the n + 1 candidates for each replication).
const MAX_HELLINGER_N: u64 = 10_000;

/// The two-category candidate spaces of Bun et al.'s mechanism, per n.
fn hellinger_spaces(prior: &BetaDist, n_values: &[u64]) -> Result<Vec<Space>, ParamError> {
    n_values
        .iter()
        .map(|&n| {
            if n > MAX_HELLINGER_N {
                return Err(ParamError::new(
                    "n_values",
                    n.to_string(),
                    "n ≤ 10000 when methods include hellinger_em (it scores all n + 1 candidates per replication)",
                ));
            }
            Space::new(
                vec![prior.alpha(), prior.beta()],
                n as u32,
                HellingerVariant::Correct,
            )
            .map_err(|e| ParamError::new("prior", e.to_string(), "a prior the mechanism accepts"))
        })
        .collect()
}

/// Per n, the largest Diffused and Concentrated coefficients whose release is
/// (λ, ε)-RDP (`BetaBernoulli::calibrate`, geumlek2017 §3).
fn geumlek_coefficients(
    prior: &BetaDist,
    n_values: &[u64],
    order: f64,
    epsilon: f64,
) -> Result<Vec<[Verified; 2]>, ParamError> {
    n_values
        .iter()
        .map(|&n| {
            let problem = GeumlekProblem::new(*prior, n);
            let cal = |a: Algorithm| {
                problem.calibrate(a, order, epsilon).map_err(|e| {
                    ParamError::new(
                        "epsilons",
                        format!("{e} (n = {n}, λ = {order})"),
                        "ε values the Diffused and Concentrated posteriors can meet at rdp_order",
                    )
                })
            };
            Ok([cal(Algorithm::Diffused)?, cal(Algorithm::Concentrated)?])
        })
        .collect()
}

fn releases(noise: NoiseMode, epsilon: f64, a0: f64) -> Result<Releases, ParamError> {
    check::epsilon("epsilons", epsilon)?;
    // below 1e-6 the Laplace scales exceed 2·10⁶ and the released counts, of
    // order 1/ε, make the naive posteriors' Beta CDFs undefined (NaN at 1e-300)
    check::within(
        "epsilons",
        epsilon,
        1e-6,
        1e6,
        "the noise-aware and naive posteriors are computed for Laplace scales up to 2·10⁶",
    )?;
    let bad = |e: &dyn std::fmt::Display| {
        ParamError::new(
            "epsilons",
            format!("{e} (noise = \"{}\")", noise.as_str()),
            "positive ε values whose Laplace scales 1/ε and 2/ε the exact sampler can hold",
        )
    };
    let ops = Ops::new(a0, epsilon).map_err(|_| {
        ParamError::new("a0", check::short(a0), "0 < a0 < 0.5 (the OPS truncation)")
    })?;
    Ok(Releases {
        epsilon,
        counts: counts_noise(noise, epsilon).map_err(|e| bad(&e))?,
        one: CountNoise::for_privacy(noise, ONE_COUNT_SENSITIVITY, epsilon).map_err(|e| bad(&e))?,
        ops,
        geumlek: Vec::new(),
    })
}

/// L1 sensitivity of the success count under replace-one neighbours with n
/// public (Bernstein & Sheldon's convention): one record changes it by at most 1.
pub const ONE_COUNT_SENSITIVITY: f64 = 1.0;

fn methods(names: &[String]) -> Result<Vec<Method>, ParamError> {
    parse_methods(names, &Method::ALL.map(Method::as_str), Method::parse)
}

/// The methods named in `names`, each once, each one of `allowed`.
fn parse_methods<M: PartialEq>(
    names: &[String],
    allowed: &[&str],
    parse: impl Fn(&str) -> Option<M>,
) -> Result<Vec<M>, ParamError> {
    check::non_empty("methods", names)?;
    let mut out = Vec::new();
    for name in names {
        let m = parse(name).ok_or_else(|| {
            ParamError::new(
                "methods",
                format!("unknown method {name:?}"),
                format!("any of {}", allowed.join(", ")),
            )
        })?;
        if out.contains(&m) {
            return Err(ParamError::new(
                "methods",
                format!("{name} appears twice"),
                "distinct methods",
            ));
        }
        out.push(m);
    }
    Ok(out)
}

/// The nominal credible levels: distinct, strictly between 0 and 1.
fn check_levels(levels: &[f64]) -> Result<(), ParamError> {
    check::non_empty("levels", levels)?;
    for &l in levels {
        if !(l > 0.0 && l < 1.0) {
            return Err(ParamError::new(
                "levels",
                check::short(l),
                "credible levels strictly between 0 and 1 (e.g. 0.05, 0.1, …, 0.95)",
            ));
        }
    }
    distinct("levels", levels)
}

/// (L, bins) of the SBC ranks: bins must divide L + 1.
fn check_sbc(draws: u64, bins: u64) -> Result<(usize, usize), ParamError> {
    let sbc_draws = check::points("sbc_draws", draws, 1)?;
    let sbc_bins = check::points("sbc_bins", bins, 2)?;
    if (sbc_draws + 1) % sbc_bins != 0 {
        return Err(ParamError::new(
            "sbc_bins",
            format!(
                "{sbc_bins} does not divide sbc_draws + 1 = {}",
                sbc_draws + 1
            ),
            "a divisor of sbc_draws + 1 (each bin holds the same number of ranks)",
        ));
    }
    Ok((sbc_draws, sbc_bins))
}

/// The Gibbs sampler's sweeps; when it runs it must keep at least L draws.
fn check_gibbs(
    burn_in: u64,
    draws: u64,
    sbc_draws: usize,
    runs: bool,
) -> Result<GibbsSettings, ParamError> {
    let gibbs = GibbsSettings {
        burn_in: check::points("gibbs_burn_in", burn_in, 0)?,
        draws: check::points("gibbs_draws", draws, 1)?,
    };
    if runs && gibbs.draws < sbc_draws {
        return Err(ParamError::new(
            "gibbs_draws",
            gibbs.draws.to_string(),
            format!(
                "at least sbc_draws = {sbc_draws} (the SBC rank thins the kept draws to sbc_draws)"
            ),
        ));
    }
    Ok(gibbs)
}

/// One replication's result for one method: a row of `data.csv`.
struct PitRow {
    epsilon: f64,
    n: u64,
    replication: usize,
    method: Method,
    theta_true: f64,
    pit: f64,
    rank: usize,
}

/// `data.csv`'s columns, in the order of [`PitRow::cells`].
pub const DATA_COLUMNS: [&str; 7] = [
    "epsilon",
    "n",
    "replication",
    "method",
    "theta_true",
    "pit",
    "rank",
];

impl PitRow {
    fn cells(&self) -> Row {
        vec![
            self.epsilon.into(),
            self.n.into(),
            self.replication.into(),
            self.method.as_str().into(),
            self.theta_true.into(),
            self.pit.into(),
            self.rank.into(),
        ]
    }
}

/// `summary.csv`'s columns, in the order of [`CellSummary::cells`].
pub const SUMMARY_COLUMNS: [&str; 11] = [
    "method",
    "epsilon",
    "n",
    "replications",
    "max_coverage_deviation",
    "worst_level",
    "simultaneous_band",
    "levels_outside_pointwise",
    "sbc_chi2",
    "sbc_p",
    "verdict",
];

/// `coverage.csv`'s columns: one row per (method, ε, n, level).
pub const COVERAGE_COLUMNS: [&str; 9] = [
    "method",
    "epsilon",
    "n",
    "level",
    "coverage",
    "deviation",
    "pointwise_low",
    "pointwise_high",
    "simultaneous_band",
];

/// The posterior a method gives from one replication, as what it can answer:
/// a CDF and draws, or draws only (the Gibbs sampler).
enum Posterior {
    Beta(BetaDist),
    Mixture(BetaMixture),
    Truncated(crate::expfam::truncated::TruncatedBeta),
    Draws(Vec<f64>),
}

impl Posterior {
    /// (PIT of θ*, SBC rank of θ* among `l` draws).
    fn check(&self, truth: f64, l: usize, rng: &mut ChaCha8Rng) -> (f64, usize) {
        let draws_of = |f: &dyn Fn(&mut ChaCha8Rng) -> f64, rng: &mut ChaCha8Rng| {
            (0..l).map(|_| f(rng)).collect::<Vec<f64>>()
        };
        match self {
            Self::Beta(d) => (
                beta_reg(d.alpha(), d.beta(), truth.clamp(0.0, 1.0)),
                rank(truth, &draws_of(&|r| d.sample(r), rng)),
            ),
            Self::Mixture(m) => (m.cdf(truth), rank(truth, &draws_of(&|r| m.sample(r), rng))),
            Self::Truncated(t) => (t.cdf(truth), rank(truth, &draws_of(&|r| t.sample(r), rng))),
            Self::Draws(d) => {
                // PIT from all kept draws (mid-rank); the SBC rank from l of them, evenly thinned
                let pit = (rank(truth, d) as f64 + 0.5) / (d.len() as f64 + 1.0);
                let thinned: Vec<f64> = (0..l).map(|j| d[(j + 1) * d.len() / l - 1]).collect();
                (pit, rank(truth, &thinned))
            }
        }
    }
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

/// One candidate's first count from the mechanism's exact output
/// probabilities (candidate, H, probability).
fn draw_candidate(outputs: &[(Vec<u32>, f64, f64)], rng: &mut ChaCha8Rng) -> f64 {
    let mut u: f64 = rng.random();
    for (r, _, p) in outputs {
        if u < *p {
            return f64::from(r[0]);
        }
        u -= p;
    }
    outputs.last().map_or(0.0, |o| f64::from(o.0[0]))
}

/// The releases of one replication.
struct Drawn {
    positives: f64,
    negatives: f64,
    y: f64,
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
                rows.push(
                    PitRow {
                        epsilon: rel.epsilon,
                        n,
                        replication,
                        method,
                        theta_true: theta,
                        pit,
                        rank,
                    }
                    .cells(),
                );
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(cells::summary_table(
            self.cells(data)?,
            &SUMMARY_COLUMNS,
            (self.sbc_draws, self.sbc_bins),
            &self.levels,
        ))
    }

    fn side_tables(&self, data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        Ok(cells::coverage_table(
            self.cells(data)?,
            &COVERAGE_COLUMNS,
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

/// The ledger: per ε, each release a method reads, once per method; a
/// noise-aware or naive posterior is post-processing of its release (the same
/// event, the same ε), so methods that read the same release claim the same.
fn ledger(
    prior: &BetaDist,
    n_values: &[u64],
    (order, hellinger_delta): (f64, f64),
    releases: &[Releases],
    methods: &[Method],
) -> Ledger {
    let mut out = Vec::new();
    for rel in releases {
        for &m in methods {
            let series = format!("method={}, epsilon={}", m.as_str(), rel.epsilon);
            let note = "one release per simulated dataset (each replication draws fresh data)";
            match m.release() {
                Some(ReleaseKind::Rdp) => {
                    out.extend(geumlek_entries(prior, n_values, order, rel, m));
                }
                Some(ReleaseKind::Hellinger) => out.push(
                    Entry::new(
                        series,
                        crate::hellinger::privacy_event(rel.epsilon, hellinger_delta),
                        Guarantee::ApproxDp {
                            epsilon: rel.epsilon,
                            delta: hellinger_delta,
                            conversion: Derivation::theorem("smooth-sensitivity exponential mechanism"),
                            order: None,
                        },
                    )
                    .when("the released posterior is checked; its candidate is drawn exactly from the n + 1 output probabilities"),
                ),
                None => out.push(
                    Entry::new(series, Event::NonPrivate, Guarantee::None)
                        .when("the non-private control"),
                ),
                Some(ReleaseKind::FouldsCounts) => out.push(
                    Entry::new(series, rel.counts.event(), Guarantee::PureDp { epsilon: rel.epsilon })
                        .when(note)
                        .when("the posterior is post-processing of the clamped noisy counts (Foulds eq. 16): no cost beyond the release"),
                ),
                Some(ReleaseKind::OneCount) => out.push(
                    Entry::new(series, rel.one.event(), Guarantee::PureDp { epsilon: rel.epsilon })
                        .when(note)
                        .when("the posterior is post-processing of the noisy count (Bernstein & Sheldon): no cost beyond the release"),
                ),
                Some(ReleaseKind::Ops) => out.push(
                    Entry::new(
                        series,
                        rel.ops.event(),
                        Guarantee::PureDp {
                            epsilon: rel.ops.epsilon_spent(),
                        },
                    )
                    .when(note)
                    .when("checks the law one OPS draw comes from; the release is one draw"),
                ),
            }
        }
    }
    out
}

/// A Geumlek method's entries at one ε, one per n: the coefficient, hence the
/// event, depends on n, and the claim is the ε the coefficient meets (below the
/// target where even c = 1, the plain posterior, is private enough).
fn geumlek_entries(
    prior: &BetaDist,
    n_values: &[u64],
    order: f64,
    rel: &Releases,
    m: Method,
) -> Vec<Entry> {
    let algorithm = m.geumlek().unwrap_or(Algorithm::Diffused);
    let k = usize::from(m == Method::ConcentratedBeta);
    n_values
        .iter()
        .enumerate()
        .map(|(ni, &n)| {
            let Verified {
                coefficient: c,
                epsilon,
                ..
            } = rel.geumlek[ni][k];
            Entry::new(
                format!("method={}, epsilon={}, n={n}", m.as_str(), rel.epsilon),
                GeumlekProblem::new(*prior, n).rdp_event(algorithm, c, &[order]),
                Guarantee::Rdp { order, epsilon },
            )
            .when(
                "checks the law one draw comes from; the release is one draw (exact Beta sampling)",
            )
        })
        .collect()
}

impl BetaBernoulli {
    /// The rows of `data` grouped by (method, ε, n), in config order.
    fn cells(&self, data: &Table) -> anyhow::Result<Vec<CellData>> {
        let col = |c: &str| data.col(c);
        let (m, e, n, pit, rk) = (
            col("method")?,
            col("epsilon")?,
            col("n")?,
            col("pit")?,
            col("rank")?,
        );
        let mut cells: Vec<CellData> = Vec::new();
        for method in &self.methods {
            for rel in &self.releases {
                for &nv in &self.n_values {
                    cells.push(CellData::new(vec![
                        method.as_str().into(),
                        rel.epsilon.into(),
                        nv.into(),
                    ]));
                }
            }
        }
        let per_method = self.releases.len() * self.n_values.len();
        for i in 0..data.rows.len() {
            let (mi, ei, ni) = (
                self.methods.iter().position(|x| x.as_str() == data.s(i, m)),
                self.releases.iter().position(|r| r.epsilon == data.f(i, e)),
                self.n_values.iter().position(|&x| x as f64 == data.f(i, n)),
            );
            let (Some(mi), Some(ei), Some(ni)) = (mi, ei, ni) else {
                anyhow::bail!("data row {i}: a method, ε or n not in the config");
            };
            let c = &mut cells[mi * per_method + ei * self.n_values.len() + ni];
            c.credible.push(central_level(data.f(i, pit)));
            c.ranks.push(data.f(i, rk) as usize);
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

    #[test]
    fn summary_columns_are_keys_then_the_shared_tail() {
        use cells::{COVERAGE_TAIL, SUMMARY_TAIL};
        assert_eq!(SUMMARY_COLUMNS[3..], SUMMARY_TAIL);
        assert_eq!(COVERAGE_COLUMNS[3..], COVERAGE_TAIL);
        assert_eq!(SUMMARY_COLUMNS[..3], COVERAGE_COLUMNS[..3]);
    }

    #[test]
    fn pit_rows_have_the_declared_columns() {
        let row = PitRow {
            epsilon: 1.0,
            n: 10,
            replication: 0,
            method: Method::Ops,
            theta_true: 0.5,
            pit: 0.5,
            rank: 3,
        };
        assert_eq!(row.cells().len(), DATA_COLUMNS.len());
        for m in Method::ALL {
            assert_eq!(Method::parse(m.as_str()), Some(m));
        }
    }
}
