//! A researcher's release as a file (`privpost infer RELEASE.toml`): the model
//! and its prior, n, the mechanism, its scale and the released values, and the
//! sampler's settings — parsed and checked before any sampling.
//!
//! Records released by randomized response are a `[records]` table instead of
//! `[release]` (`model = "contingency_table"`, docs/infer.md): a CSV of the released
//! records, read relative to the release file ([`InferSpec::check_at`]).
//!
//! ```toml
//! model = "dirichlet_categorical"   # or beta_bernoulli, naive_bayes (docs/infer.md)
//! prior = { alpha = [1.0, 1.0, 1.0] }
//! n = 30
//! counts = "all"                    # all (K values) or free (the first K − 1)
//! [release]
//! mechanism = "laplace"             # laplace | gaussian | discrete_laplace | discrete_gaussian
//! scale = 2.0                       # Laplace b, or Gaussian σ
//! values = [12.7, 9.1, 8.4]
//! clamp = { lower = 0.0 }           # optional: where the mechanism clamped
//! [sampler]                         # optional
//! kernel = "record_wise"            # or soma
//! chains = 4
//! warmup = 1000
//! draws = 2000
//! seed = 0
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::damcmc::models::{Categorical, Counts, LinearRegression, NaiveBayes};
use crate::damcmc::randomized_response::{RrAttribute, RrTable};
use crate::damcmc::rr_logistic::RrLogistic;
use crate::damcmc::AugmentedModel;
use crate::damcmc::{Clamp, Kernel, Noise, Release, Settings};

/// The models `infer` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelName {
    BetaBernoulli,
    DirichletCategorical,
    NaiveBayes,
    LinearRegression,
    /// records released by randomized response, jointly categorical (`[records]`)
    ContingencyTable,
    /// a logistic regression whose labels were released by randomized response
    /// (`[records]` with the label and the covariates' columns)
    LogisticRegression,
}

impl ModelName {
    /// The models whose release is the records themselves (`[records]`).
    fn reads_records(self) -> bool {
        matches!(self, Self::ContingencyTable | Self::LogisticRegression)
    }
}

/// Which counts were released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountsName {
    #[default]
    All,
    Free,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorSpec {
    /// Dirichlet(α); for beta_bernoulli [a, b] of Beta(a, b) on P(x = 1)
    pub alpha: Option<Vec<f64>>,
    /// naive_bayes: Dirichlet(α) on the I classes
    pub classes: Option<Vec<f64>>,
    /// naive_bayes: per feature k, per class i, Dirichlet(β_{ki}) on its J_k answers
    pub answers: Option<Vec<Vec<Vec<f64>>>>,
    /// linear_regression, logistic_regression: β ~ N(0, τ²I)
    pub tau: Option<f64>,
}

/// linear_regression: the known data-generating law of the records and the
/// clamping bounds of the release (Ju et al. 2022 §5.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegressionSpec {
    /// the covariates' mean m (p values)
    pub mean: Vec<f64>,
    /// their covariance Σ (p rows of p values)
    pub cov: Vec<Vec<f64>>,
    /// the response's noise variance σ²
    pub noise_variance: f64,
    /// [lower, upper] of the covariates' clamp (each is mapped to [−1, 1])
    pub x_bounds: Vec<f64>,
    /// [lower, upper] of the response's clamp
    pub y_bounds: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClampSpec {
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseSpec {
    pub mechanism: String,
    pub scale: f64,
    pub values: Vec<f64>,
    #[serde(default)]
    pub clamp: ClampSpec,
}

impl ReleaseSpec {
    /// The release of a statistic of `statistic` coordinates, checked: the law and
    /// its scale, the clamp (finite, lower < upper, integers for a discrete law)
    /// and the values ([`Release::new`]); errors name the key as `release.<key>`.
    pub fn release(&self, statistic: usize) -> Result<Release, SpecError> {
        let noise = Noise::new(&self.mechanism, self.scale)
            .map_err(|e| bad(&format!("release.{}", e.key), e.found, e.allowed))?;
        let clamp = Clamp {
            lower: self.clamp.lower,
            upper: self.clamp.upper,
        };
        let bounds = [
            ("release.clamp.lower", clamp.lower),
            ("release.clamp.upper", clamp.upper),
        ];
        for (key, v) in bounds {
            if let Some(x) = v.filter(|x| !x.is_finite()) {
                return Err(bad(key, x, "a finite number"));
            }
            if let Some(x) = v.filter(|x| noise.is_discrete() && x.fract() != 0.0) {
                return Err(bad(
                    key,
                    x,
                    "an integer (a discrete law's released values are integers, and so is where it clamps)",
                ));
            }
        }
        if let (Some(lo), Some(hi)) = (clamp.lower, clamp.upper) {
            if lo >= hi {
                return Err(bad(
                    "release.clamp",
                    format!("lower {lo} ≥ upper {hi}"),
                    "lower < upper",
                ));
            }
        }
        Release::new(self.values.clone(), noise, clamp, statistic)
            .map_err(|e| bad(&format!("release.{}", e.key), e.found, e.allowed))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SamplerSpec {
    pub kernel: Kernel,
    pub chains: u64,
    pub warmup: u64,
    pub draws: u64,
    pub seed: u64,
}

impl Default for SamplerSpec {
    fn default() -> Self {
        Self {
            kernel: Kernel::RecordWise,
            chains: 4,
            warmup: 1000,
            draws: 2000,
            seed: 0,
        }
    }
}

/// One attribute of records released by randomized response: its CSV column, its
/// categories in order, and the probability the truth was reported (or the ε of
/// the k-ary channel).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeSpec {
    pub column: String,
    pub categories: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
}

/// Records released by randomized response (`contingency_table`,
/// `logistic_regression`): a CSV file of one row per released record, relative to
/// the release file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordsSpec {
    pub file: String,
    pub attributes: Vec<AttributeSpec>,
    /// logistic_regression: the public covariates' columns (an intercept is added)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covariates: Vec<String>,
}

/// The file as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InferSpec {
    pub model: ModelName,
    pub prior: PriorSpec,
    /// the records' number (`contingency_table`: the CSV's rows; 0 when not given)
    #[serde(default)]
    pub n: u64,
    #[serde(default)]
    pub counts: CountsName,
    /// linear_regression only
    pub regression: Option<RegressionSpec>,
    /// the noisy counts (every model but `contingency_table`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<ReleaseSpec>,
    /// the released records (`contingency_table`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<RecordsSpec>,
    #[serde(default)]
    pub sampler: SamplerSpec,
}

/// A release a figure recorded in its manifest (`details.releases`), for
/// `privpost infer MANIFEST --release NAME`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedRelease {
    /// unique within the manifest, e.g. `epsilon=1/repeat=0`
    pub name: String,
    /// the release file it stands for
    pub spec: InferSpec,
}

/// A key with a value it cannot take.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key}: {found} — allowed: {allowed}")]
pub struct SpecError {
    pub key: String,
    pub found: String,
    pub allowed: String,
}

/// A prior key the model needs and the file lacks.
fn need(key: &str, what: &str) -> SpecError {
    bad(&format!("prior.{key}"), "missing", what)
}

/// A model's error under the file's key: `n` as `n`, a key in `keys` as its
/// file key, any other under `prior.`.
fn model_error(e: crate::damcmc::models::ModelError, keys: &[(&str, &str)]) -> SpecError {
    let key = match keys.iter().find(|(k, _)| *k == e.key) {
        Some((_, file_key)) => file_key.to_string(),
        None if e.key == "n" => "n".to_string(),
        None => format!("prior.{}", e.key.trim_start_matches("prior.")),
    };
    bad(&key, e.found, e.allowed)
}

fn bad(key: &str, found: impl ToString, allowed: impl ToString) -> SpecError {
    SpecError {
        key: key.to_string(),
        found: found.to_string(),
        allowed: allowed.to_string(),
    }
}

/// The range of the regression's prior sd τ and noise variance σ²: τ = 10⁻³⁰⁰
/// made I/τ² infinite and the posterior's Cholesky factorisation panic, and τ =
/// 10⁴⁰ gave draws of 10⁴⁰ that only the figure refused, after all the sampling.
/// Within this range the draws stay far inside what a figure draws (|value| ≤ 10¹⁵)
/// and XᵀX/σ² + I/τ² far inside double precision.
pub const PRIOR_SCALE: (f64, f64) = (1e-12, 1e12);

/// The largest magnitude of the covariates' mean and covariance entries: with
/// n ≤ 10⁷ records every entry of XᵀX/σ² stays below 10¹²⁰.
pub const MAX_COVARIATE: f64 = 1e50;

/// Most records (the chains hold them all, each sweep visits each).
pub const MAX_N: u64 = 10_000_000;
/// Most chains.
pub const MAX_CHAINS: u64 = 64;
/// Most record proposals in a run (chains × iterations × n), whatever their
/// cost: a bound on the counters and the run, not a time (the time is
/// [`Inference::core_seconds`], capped by `infer`).
pub const MAX_PROPOSALS: f64 = 1e11;

/// CPU nanoseconds of one record proposal of the record-wise kernel, by model,
/// measured by `benches/infer-costs.sh` (2026-12-02, this project's 2-core
/// machine with a build on the other core: CPU time, one chain on one worker):
/// - `dirichlet_categorical`, Laplace: 42 ns at K = 3, 102 at K = 100 → 40 + 0.62K;
/// - `naive_bayes` (I = 2, J = 3), Laplace: 107 ns at 2 features, 519 at 10 → 52
///   per feature of 3 answers, taken as 17.5 per answer summed over the features;
/// - `linear_regression`, Laplace: 369 ns at p = 2, 2105 at p = 6 → 42(p + 1)².
fn record_ns(model: &AnyModel) -> f64 {
    match model {
        AnyModel::Categorical(m) => 40.0 + 0.62 * m.k() as f64,
        AnyModel::NaiveBayes(m) => 17.5 * m.levels().iter().sum::<usize>() as f64,
        AnyModel::LinearRegression(m) => 42.0 * ((m.parameter_names().len()) as f64).powi(2),
        AnyModel::ContingencyTable(_) => RR_ENTRY_NS,
        AnyModel::RrLogistic(_) => LOGIT_ENTRY_NS,
    }
}

/// CPU nanoseconds per channel entry of a randomized-response sweep (the
/// multinomial weights θ_x M(y, x) and a binomial draw per cell): an upper
/// figure, so that the work cap errs long.
const RR_ENTRY_NS: f64 = 20.0;

/// CPU nanoseconds per record and coefficient of a `logistic_regression`
/// iteration (a label's full conditional, the design's copy for the slice
/// sampler, and its sweeps' line evaluations): an upper figure of
/// `benches/infer-costs.sh`'s, so that the work cap errs long.
const LOGIT_ENTRY_NS: f64 = 150.0;

/// The noise law's cost over Laplace's, the largest measured over the models
/// (same bench): Gaussian 1.25–1.58 → 1.6; the discrete Laplace 2.3–3.1 → 3.2;
/// the discrete Gaussian 1.2–1.4 → 1.4, clamped too (its CDF at a bound is a
/// table look-up: 43 ns at σ = 100 with a value at the bound, K = 3).
fn law_factor(noise: &Noise) -> f64 {
    match noise {
        Noise::Laplace { .. } => 1.0,
        Noise::Gaussian { .. } => 1.6,
        Noise::DiscreteLaplace { .. } => 3.2,
        Noise::DiscreteGaussian { .. } => 1.4,
    }
}

/// The most core-seconds `infer` runs without `--allow-long`: one core-hour.
pub const WORK_CAP_SECONDS: f64 = 3600.0;

/// The most core-seconds even with `--allow-long`: 30 core-days.
pub const LONG_WORK_CAP_SECONDS: f64 = 30.0 * 86400.0;

/// Most kept values (chains × draws × parameters), held in memory: 0.8 GB.
pub const MAX_KEPT: f64 = 1e8;

/// How far beyond every possible statistic a Gaussian release may lie, in σ:
/// at 38σ the density is below e⁻⁷²², under the smallest normal double, so no
/// statistic could have given the value.
pub const MAX_GAUSSIAN_REACH: f64 = 38.0;

/// Refuses, before sampling, a release no statistic in `range` can explain: a
/// continuous law whose density underflows to 0 at every statistic (a scale so
/// small that |value − s|/scale overflows; told before as "a discrete release
/// needs an integer statistic"), and a Gaussian value more than
/// [`MAX_GAUSSIAN_REACH`] σ beyond the range (its chains pinned the statistic and
/// failed as "a noise scale that small").
fn check_reach(release: &Release, (lo, hi): (f64, f64)) -> Result<(), SpecError> {
    for (k, &z) in release.values.iter().enumerate() {
        let at = |s: f64| release.ln_coordinate(k, s);
        let clamped = release.clamp.lower == Some(z) || release.clamp.upper == Some(z);
        let farthest = if (z - lo).abs() > (z - hi).abs() {
            lo
        } else {
            hi
        };
        let nearest = z.clamp(lo, hi);
        if !clamped && !release.noise.is_discrete() && at(farthest) == f64::NEG_INFINITY {
            let scale = match release.noise {
                Noise::Laplace { scale } => scale,
                Noise::Gaussian { sigma } => sigma,
                _ => f64::NAN,
            };
            return Err(bad(
                "release.scale",
                scale,
                format!(
                    "a scale at which value {} = {z} has a positive density at every statistic n records can give ([{lo}, {hi}]): at {scale} the density at {farthest} underflows to 0",
                    k + 1
                ),
            ));
        }
        if let Noise::Gaussian { sigma } = release.noise {
            let beyond = (z - nearest).abs() / sigma;
            if !clamped && beyond > MAX_GAUSSIAN_REACH {
                return Err(bad(
                    "release.values",
                    format!("value {} = {z}, {beyond:.3e} σ beyond every statistic n records can give ([{lo}, {hi}])", k + 1),
                    format!(
                        "values within {MAX_GAUSSIAN_REACH} σ of [{lo}, {hi}] (farther, the density is below e⁻⁷²² at every statistic: no statistic could have given it; check the value, the scale and n)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The released records of `spec` in `path` as a table of counts per cell (the
/// cells of [`RrTable`]): a CSV with a header row naming exactly the attributes'
/// columns (in any order), each value one of its attribute's categories. Every
/// fault names the file, the row (the header is row 1) and the column.
fn read_records(path: &Path, spec: &RecordsSpec) -> Result<Vec<u64>, SpecError> {
    let file = |found: String, allowed: String| bad("records.file", found, allowed);
    let (header, mut reader) = open_records(path)?;
    let wanted: Vec<&str> = spec.attributes.iter().map(|a| a.column.as_str()).collect();
    let allowed_columns = format!("the columns {}, one per attribute", wanted.join(", "));
    let at = column_positions(path, &header, &wanted, "one per attribute")?;
    if let Some(extra) = header.iter().find(|h| !wanted.contains(&h.as_str())) {
        return Err(file(
            format!("{}: column {extra:?} is not an attribute", path.display()),
            format!("{allowed_columns} (the released records hold the released attributes alone)"),
        ));
    }
    let levels: Vec<usize> = spec.attributes.iter().map(|a| a.categories.len()).collect();
    let cells: usize = levels.iter().product();
    let mut counts = vec![0u64; cells];
    for (r, row) in reader.records().enumerate() {
        let row = row.map_err(|e| {
            file(
                format!("{}: row {}: {e}", path.display(), r + 2),
                "a CSV row per released record".into(),
            )
        })?;
        let mut cell = 0;
        for (a, &i) in spec.attributes.iter().zip(&at) {
            let v = row.get(i).unwrap_or("");
            let Some(k) = a.categories.iter().position(|c| c == v) else {
                return Err(file(
                    format!(
                        "{}: row {}, column {}: {v:?}",
                        path.display(),
                        r + 2,
                        a.column
                    ),
                    format!(
                        "one of the attribute's categories: {}",
                        a.categories.join(", ")
                    ),
                ));
            };
            cell = cell * a.categories.len() + k;
        }
        counts[cell] += 1;
    }
    Ok(counts)
}

/// Most records × coefficients of a `logistic_regression` (the design is held
/// three times: as read, and signed and transposed for the slice sampler).
pub const MAX_LOGIT_ENTRIES: u64 = 20_000_000;

/// Largest magnitude of a covariate value.
pub const MAX_COVARIATE_VALUE: f64 = 1e12;

/// The released labels (0 for the label's first category, 1 for its second) and
/// each record's covariates after an intercept of 1, from `path`: a CSV with a
/// header row holding the label's and the covariates' columns (others are
/// ignored). Every fault names the file, the row (the header is row 1) and the
/// column.
fn read_labelled(path: &Path, spec: &RecordsSpec) -> Result<(Vec<u8>, Vec<Vec<f64>>), SpecError> {
    let file = |found: String, allowed: String| bad("records.file", found, allowed);
    let (header, mut reader) = open_records(path)?;
    let label = &spec.attributes[0];
    let wanted: Vec<&str> = std::iter::once(label.column.as_str())
        .chain(spec.covariates.iter().map(String::as_str))
        .collect();
    let at = column_positions(
        path,
        &header,
        &wanted,
        "the label's column and each covariate's",
    )?;
    let (mut labels, mut x) = (Vec::new(), Vec::new());
    for (r, row) in reader.records().enumerate() {
        let row = row.map_err(|e| {
            file(
                format!("{}: row {}: {e}", path.display(), r + 2),
                "a CSV row per released record".into(),
            )
        })?;
        let v = row.get(at[0]).unwrap_or("");
        let Some(k) = label.categories.iter().position(|c| c == v) else {
            return Err(file(
                format!(
                    "{}: row {}, column {}: {v:?}",
                    path.display(),
                    r + 2,
                    label.column
                ),
                format!(
                    "one of the label's categories: {}",
                    label.categories.join(", ")
                ),
            ));
        };
        labels.push(k as u8);
        let mut xs = Vec::with_capacity(at.len());
        xs.push(1.0);
        for (&i, c) in at[1..].iter().zip(&spec.covariates) {
            let v = row.get(i).unwrap_or("");
            match v.trim().parse::<f64>() {
                Ok(z) if z.is_finite() && z.abs() <= MAX_COVARIATE_VALUE => xs.push(z),
                _ => {
                    return Err(file(
                        format!("{}: row {}, column {c}: {v:?}", path.display(), r + 2),
                        format!("a number of magnitude at most {MAX_COVARIATE_VALUE:e}"),
                    ))
                }
            }
        }
        x.push(xs);
    }
    Ok((labels, x))
}

/// A reader of a records file's rows, the file held in memory.
type Rows = csv::Reader<std::io::Cursor<Vec<u8>>>;

/// The records file's header and a reader of its rows.
fn open_records(path: &Path) -> Result<(Vec<String>, Rows), SpecError> {
    let file = |found: String, allowed: String| bad("records.file", found, allowed);
    // the input error names the path itself
    let bytes = crate::input::read_input(path, crate::input::MAX_TABLE_BYTES).map_err(|e| {
        file(
            e.to_string(),
            "a readable CSV file of the released records".into(),
        )
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(std::io::Cursor::new(bytes));
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| {
            file(
                format!("{}: {e}", path.display()),
                "a CSV file with a header row".into(),
            )
        })?
        .iter()
        .map(str::to_string)
        .collect();
    Ok((header, reader))
}

/// Where each of `wanted` stands in `header`.
fn column_positions(
    path: &Path,
    header: &[String],
    wanted: &[&str],
    what: &str,
) -> Result<Vec<usize>, SpecError> {
    wanted
        .iter()
        .map(|w| {
            header.iter().position(|h| h == w).ok_or_else(|| {
                bad(
                    "records.file",
                    format!(
                        "{}: no column {w:?} (the header has {})",
                        path.display(),
                        header.join(", ")
                    ),
                    format!("the columns {} ({what})", wanted.join(", ")),
                )
            })
        })
        .collect()
}

/// `p_` and the cell's categories joined by `_` (`p_Admitted_Male`) when every
/// category is made of letters, digits, `-`, `_` and `.`; otherwise their
/// positions from 1 (`p_1_2`).
fn cell_names(attributes: &[AttributeSpec], table: &RrTable) -> Vec<String> {
    let plain = attributes.iter().flat_map(|a| &a.categories).all(|c| {
        c.chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'))
    });
    if !plain {
        return table.parameter_names();
    }
    (0..table.cells())
        .map(|c| {
            let parts: Vec<&str> = table
                .categories(c)
                .iter()
                .zip(attributes)
                .map(|(&k, a)| a.categories[k].as_str())
                .collect();
            format!("p_{}", parts.join("_"))
        })
        .collect()
}

/// What a user should know about a release that `infer` still samples: a Laplace
/// value beyond every statistic the records can give.
pub fn release_warnings(release: &Release, (lo, hi): (f64, f64), counts_all: bool) -> Vec<String> {
    if !matches!(
        release.noise,
        Noise::Laplace { .. } | Noise::DiscreteLaplace { .. }
    ) {
        return Vec::new();
    }
    let clamped = |z: f64| release.clamp.lower == Some(z) || release.clamp.upper == Some(z);
    let beyond: Vec<String> = release
        .values
        .iter()
        .enumerate()
        .filter(|(_, &z)| !clamped(z) && !(lo..=hi).contains(&z))
        .map(|(k, z)| format!("value {} = {z}", k + 1))
        .collect();
    if beyond.is_empty() {
        return Vec::new();
    }
    let above = release.values.iter().all(|&z| z > hi);
    let below = release.values.iter().all(|&z| z < lo);
    let all = beyond.len() == release.values.len() && (above || below);
    let mut w = format!(
        "{} beyond every statistic {} records can give ([{lo}, {hi}]): under Laplace noise such a value says only that the statistic is near the nearer end (its likelihood is e^(±s/b) up to a constant, whatever its distance)",
        beyond.join(", "),
        hi.max(-lo)
    );
    if all && counts_all {
        w.push_str("; every value is, on the same side, and each table's counts sum to n, so the release carries no information: the posterior is the prior");
    }
    vec![w]
}

/// A model `infer` can sample.
#[derive(Debug, Clone)]
pub enum AnyModel {
    Categorical(Categorical),
    NaiveBayes(NaiveBayes),
    LinearRegression(LinearRegression),
    ContingencyTable(RrTable),
    RrLogistic(RrLogistic),
}

impl AnyModel {
    /// The number of records.
    pub fn n(&self) -> usize {
        match self {
            Self::Categorical(m) => m.n(),
            Self::NaiveBayes(m) => m.n(),
            Self::LinearRegression(m) => m.n(),
            Self::ContingencyTable(t) => t.n() as usize,
            Self::RrLogistic(m) => m.n(),
        }
    }

    pub fn statistic_len(&self) -> usize {
        match self {
            Self::Categorical(m) => m.statistic_len(),
            Self::NaiveBayes(m) => m.statistic_len(),
            Self::LinearRegression(m) => m.statistic_len(),
            Self::ContingencyTable(t) => t.cells(),
            Self::RrLogistic(m) => m.n(),
        }
    }

    /// Bounds every coordinate of the statistic can take: counts of n records lie
    /// in [0, n]; the regression's sums of n products of values in [−1, 1] in
    /// [−n, n] (its yᵀy and count entry in part of it: conservative).
    pub fn statistic_range(&self) -> (f64, f64) {
        match self {
            Self::Categorical(m) => (0.0, m.n() as f64),
            Self::NaiveBayes(m) => (0.0, m.n() as f64),
            Self::LinearRegression(m) => (-(m.n() as f64), m.n() as f64),
            Self::ContingencyTable(t) => (0.0, t.n() as f64),
            Self::RrLogistic(_) => (0.0, 1.0),
        }
    }

    pub fn l1_sensitivity(&self) -> f64 {
        match self {
            Self::Categorical(m) => m.l1_sensitivity(),
            Self::NaiveBayes(m) => m.l1_sensitivity(),
            Self::LinearRegression(m) => m.l1_sensitivity(),
            // one record moves one released cell's count down and another's up
            Self::ContingencyTable(_) => 2.0,
            // one record changes one released label
            Self::RrLogistic(_) => 1.0,
        }
    }

    pub fn parameters(&self) -> usize {
        match self {
            Self::Categorical(m) => m.parameter_names().len(),
            Self::NaiveBayes(m) => m.parameter_names().len(),
            Self::LinearRegression(m) => m.parameter_names().len(),
            Self::ContingencyTable(t) => t.cells(),
            Self::RrLogistic(m) => m.dim(),
        }
    }

    /// The ε of a release of randomized response (`None` for noisy counts, whose
    /// ε is the mechanism's and the sensitivity's).
    pub fn release_epsilon(&self) -> Option<f64> {
        match self {
            Self::ContingencyTable(t) => Some(t.epsilon()),
            Self::RrLogistic(m) => Some(m.epsilon()),
            _ => None,
        }
    }

    /// The work of one sweep in the units of [`Inference::proposals`]: n record
    /// proposals, C² channel entries for a randomized-response table, n·d record
    /// coefficients for the logistic regression.
    pub fn work_per_sweep(&self) -> f64 {
        match self {
            Self::ContingencyTable(t) => (t.cells() * t.cells()) as f64,
            Self::RrLogistic(m) => (m.n() * m.dim()) as f64,
            m => m.n() as f64,
        }
    }
}

/// What a checked file describes.
#[derive(Debug, Clone)]
pub struct Inference {
    pub model: AnyModel,
    /// the noisy counts' release (`None` for randomized response, whose release is
    /// the records the model holds)
    pub release: Option<Release>,
    pub settings: Settings,
}

impl Inference {
    /// CPU nanoseconds of one proposal (record-wise) or offer (SOMA) on this
    /// model and law. SOMA weighs every group of equal records at each offer: G
    /// groups at most (K categories; I·∏J_k answer patterns; n for the
    /// regression's continuous records, all distinct), measured at 13× the
    /// record-wise cost at G = 3, 40× at G = 18 and 804× at G = 500 (same bench),
    /// taken as 5·G^0.9 (above each measurement).
    pub fn proposal_ns(&self) -> f64 {
        let Some(release) = &self.release else {
            // randomized response: per unit of `work_per_sweep`
            return record_ns(&self.model);
        };
        let base = record_ns(&self.model) * law_factor(&release.noise);
        match self.settings.kernel {
            Kernel::RecordWise => base,
            Kernel::Soma => {
                let n = self.model.n() as f64;
                let groups = match &self.model {
                    AnyModel::Categorical(m) => m.k() as f64,
                    AnyModel::NaiveBayes(m) => m
                        .levels()
                        .iter()
                        .fold(m.classes() as f64, |acc, &j| acc * j as f64),
                    AnyModel::LinearRegression(_) => n,
                    AnyModel::ContingencyTable(t) => t.cells() as f64,
                    AnyModel::RrLogistic(m) => m.n() as f64,
                }
                .min(n)
                .max(1.0);
                base * 5.0 * groups.powf(0.9)
            }
        }
    }

    /// The record proposals (or offers) of the whole run: chains × (warm-up +
    /// draws) × n; for randomized response the channel entries its sweeps weigh,
    /// chains × (warm-up + draws) × C².
    pub fn proposals(&self) -> f64 {
        let s = &self.settings;
        s.chains as f64 * (s.warmup as f64 + s.draws as f64) * self.model.work_per_sweep()
    }

    /// The record kernel as the manifest and the messages name it: `gibbs` for
    /// randomized response (each record's true cell drawn from its full
    /// conditional), else the sampler's.
    pub fn kernel_name(&self) -> &'static str {
        match self.model {
            AnyModel::ContingencyTable(_) | AnyModel::RrLogistic(_) => "gibbs",
            _ => self.settings.kernel.as_str(),
        }
    }

    /// Runs the chains until `stop` is set: the noisy-count models on their
    /// release ([`crate::damcmc::sample_until`]), randomized response by its
    /// own Gibbs sampler.
    pub fn sample(
        &self,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<crate::damcmc::Draws, crate::damcmc::DaError> {
        let s = &self.settings;
        match (&self.model, &self.release) {
            (AnyModel::ContingencyTable(t), _) => t.sample(s, stop),
            (AnyModel::RrLogistic(m), _) => m.sample(s, stop),
            (AnyModel::Categorical(m), Some(r)) => crate::damcmc::sample_until(m, r, s, stop),
            (AnyModel::NaiveBayes(m), Some(r)) => crate::damcmc::sample_until(m, r, s, stop),
            (AnyModel::LinearRegression(m), Some(r)) => crate::damcmc::sample_until(m, r, s, stop),
            (_, None) => Err(crate::damcmc::DaError::Setting {
                key: "release",
                found: "missing".into(),
                allowed: "the noisy counts of the model's statistic".into(),
            }),
        }
    }

    /// The run's estimated CPU time in core-seconds: [`Self::proposals`] ×
    /// [`Self::proposal_ns`].
    pub fn core_seconds(&self) -> f64 {
        self.proposals() * self.proposal_ns() * 1e-9
    }
}

impl InferSpec {
    /// The model and prior the file names, checked.
    fn model(&self, base: &Path) -> Result<AnyModel, SpecError> {
        let p = &self.prior;
        let allowed: &[&str] = match self.model {
            ModelName::BetaBernoulli
            | ModelName::DirichletCategorical
            | ModelName::ContingencyTable => &["alpha"],
            ModelName::NaiveBayes => &["classes", "answers"],
            ModelName::LinearRegression | ModelName::LogisticRegression => &["tau"],
        };
        for (key, given) in [
            ("alpha", p.alpha.is_some()),
            ("classes", p.classes.is_some()),
            ("answers", p.answers.is_some()),
            ("tau", p.tau.is_some()),
        ] {
            if given && !allowed.contains(&key) {
                return Err(bad(
                    &format!("prior.{key}"),
                    "given",
                    format!("not a key of {} (see docs/infer.md)", self.model_name()),
                ));
            }
        }
        if self.regression.is_some() && self.model != ModelName::LinearRegression {
            return Err(bad(
                "regression",
                "given",
                format!("only for linear_regression, not {}", self.model_name()),
            ));
        }
        match self.model {
            ModelName::BetaBernoulli | ModelName::DirichletCategorical => self.categorical(),
            ModelName::NaiveBayes => self.naive_bayes(),
            ModelName::LinearRegression => self.regression(),
            ModelName::ContingencyTable => self.contingency(base),
            ModelName::LogisticRegression => self.logistic(base),
        }
    }

    fn categorical(&self) -> Result<AnyModel, SpecError> {
        let counts = match self.counts {
            CountsName::All => Counts::All,
            CountsName::Free => Counts::Free,
        };
        let alpha = self
            .prior
            .alpha
            .clone()
            .ok_or_else(|| need("alpha", "the Dirichlet (or Beta [a, b]) prior"))?;
        if self.model == ModelName::BetaBernoulli {
            let [a, b] = alpha[..] else {
                return Err(bad(
                    "prior.alpha",
                    format!("{} values", alpha.len()),
                    "[a, b] of Beta(a, b) for beta_bernoulli",
                ));
            };
            Categorical::beta_bernoulli(a, b, self.n as usize, counts)
        } else {
            Categorical::dirichlet(alpha, self.n as usize, counts)
        }
        .map(AnyModel::Categorical)
        .map_err(|e| model_error(e, &[("prior", "prior.alpha")]))
    }

    /// The `[records]` table of a model that reads records, and its attributes'
    /// channels, checked.
    fn records_channels(&self) -> Result<(&RecordsSpec, Vec<RrAttribute>), SpecError> {
        if self.counts != CountsName::All {
            return Err(bad(
                "counts",
                "free",
                format!(
                    "all ({} reads the released records, not counts)",
                    self.model_name()
                ),
            ));
        }
        let r = self.records.as_ref().ok_or_else(|| {
            bad(
                "records",
                "missing",
                "a [records] table: file (the released records, a CSV) and attributes",
            )
        })?;
        if r.attributes.is_empty() {
            return Err(bad("records.attributes", "none", "at least one attribute"));
        }
        let mut channels = Vec::with_capacity(r.attributes.len());
        for (i, a) in r.attributes.iter().enumerate() {
            let key = |k: &str| format!("records.attributes[{}].{k}", i + 1);
            if a.column.is_empty() || r.attributes[..i].iter().any(|b| b.column == a.column) {
                return Err(bad(
                    &key("column"),
                    format!("{:?}", a.column),
                    "a non-empty column name, one per attribute",
                ));
            }
            let distinct = a
                .categories
                .iter()
                .enumerate()
                .all(|(j, c)| !c.is_empty() && !a.categories[..j].contains(c));
            if a.categories.len() < 2 || !distinct {
                return Err(bad(
                    &key("categories"),
                    format!("{:?}", a.categories),
                    "at least 2 distinct, non-empty categories",
                ));
            }
            let k = a.categories.len();
            let channel = match (a.keep, a.epsilon) {
                (Some(keep), None) => RrAttribute::new(k, keep).map_err(|e| {
                    bad(&key("keep"), keep, format!("{} (k = {k})", e.allowed))
                })?,
                (None, Some(eps)) => RrAttribute::with_epsilon(k, eps).map_err(|e| {
                    bad(&key("epsilon"), eps, e.allowed)
                })?,
                _ => {
                    return Err(bad(
                        &key("keep"),
                        if a.keep.is_some() { "keep and epsilon" } else { "neither keep nor epsilon" },
                        "one of keep (the probability the truth was reported, in (1/k, 1]) or epsilon (the k-ary channel's ε > 0)",
                    ))
                }
            };
            channels.push(channel);
        }
        Ok((r, channels))
    }

    /// `n`, when given, against the records file's count.
    fn check_n(&self, records: u64) -> Result<(), SpecError> {
        if self.n != 0 && self.n != records {
            return Err(bad(
                "n",
                self.n,
                format!("the number of released records, {records} (or leave n out)"),
            ));
        }
        Ok(())
    }

    /// `contingency_table`: the attributes' channels, the prior and the released
    /// records read from `records.file` (relative to `base`).
    fn contingency(&self, base: &Path) -> Result<AnyModel, SpecError> {
        let (r, channels) = self.records_channels()?;
        if !r.covariates.is_empty() {
            return Err(bad(
                "records.covariates",
                "given",
                "only for logistic_regression (a contingency table's records are its attributes alone)",
            ));
        }
        let cells = channels.iter().map(|c| c.levels() as f64).product::<f64>();
        if cells > crate::damcmc::randomized_response::MAX_CELLS as f64 {
            return Err(bad(
                "records.attributes",
                format!("{cells} cells"),
                format!(
                    "at most {} cells (the product of the attributes' categories)",
                    crate::damcmc::randomized_response::MAX_CELLS
                ),
            ));
        }
        let alpha = self.prior.alpha.clone().ok_or_else(|| {
            need(
                "alpha",
                "Dirichlet(α) on the table's cells, one value per cell in the cell order",
            )
        })?;
        let released = read_records(&base.join(&r.file), r)?;
        let total: u64 = released.iter().sum();
        if total == 0 || total > MAX_N {
            return Err(bad(
                "records.file",
                format!("{total} records"),
                format!("1 to {MAX_N} records"),
            ));
        }
        self.check_n(total)?;
        let mut table = RrTable::new(channels, alpha, released)
            .map_err(|e| model_error(e, &[("alpha", "prior.alpha")]))?;
        table
            .set_names(cell_names(&r.attributes, &table))
            .map_err(|e| model_error(e, &[]))?;
        Ok(AnyModel::ContingencyTable(table))
    }

    /// `logistic_regression`: one binary label attribute (its second category is
    /// the modelled outcome), the covariates' columns, the prior sd τ, and the
    /// records read from `records.file` (relative to `base`).
    fn logistic(&self, base: &Path) -> Result<AnyModel, SpecError> {
        let (r, mut channels) = self.records_channels()?;
        if channels.len() != 1 || channels[0].levels() != 2 {
            return Err(bad(
                "records.attributes",
                format!(
                    "{} attribute(s) with {} categories",
                    channels.len(),
                    channels.iter().map(|c| c.levels().to_string()).collect::<Vec<_>>().join(", ")
                ),
                "one attribute, the released label, with 2 categories [negative, positive] (the model gives P(positive))",
            ));
        }
        let label = &r.attributes[0].column;
        for (j, c) in r.covariates.iter().enumerate() {
            if c.is_empty() || c == label || r.covariates[..j].contains(c) {
                return Err(bad(
                    &format!("records.covariates[{}]", j + 1),
                    format!("{c:?}"),
                    "a non-empty column name other than the label's, each once",
                ));
            }
        }
        if r.covariates.len() + 1 > crate::damcmc::rr_logistic::MAX_COEFFICIENTS {
            return Err(bad(
                "records.covariates",
                format!("{} columns", r.covariates.len()),
                format!(
                    "at most {} (an intercept is added)",
                    crate::damcmc::rr_logistic::MAX_COEFFICIENTS - 1
                ),
            ));
        }
        let tau = self
            .prior
            .tau
            .ok_or_else(|| need("tau", "the prior sd τ of every coefficient, β ~ N(0, τ²I)"))?;
        let (labels, x) = read_labelled(&base.join(&r.file), r)?;
        let n = labels.len() as u64;
        let d = (r.covariates.len() + 1) as u64;
        if n == 0 || n * d > MAX_LOGIT_ENTRIES {
            return Err(bad(
                "records.file",
                format!("{n} records of {d} coefficients"),
                format!("1 record or more, records × coefficients at most {MAX_LOGIT_ENTRIES:e}"),
            ));
        }
        self.check_n(n)?;
        let plain = |c: &str| {
            c.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'))
        };
        let names = std::iter::once("intercept".to_string())
            .chain(r.covariates.iter().enumerate().map(|(j, c)| {
                if plain(c) {
                    format!("b_{c}")
                } else {
                    format!("b_{}", j + 1)
                }
            }))
            .collect();
        RrLogistic::new(x, labels, channels.remove(0), tau, names)
            .map(AnyModel::RrLogistic)
            .map_err(|e| {
                model_error(
                    e,
                    &[
                        ("tau", "prior.tau"),
                        ("covariates", "records.covariates"),
                        ("label", "records.attributes[1]"),
                    ],
                )
            })
    }

    fn naive_bayes(&self) -> Result<AnyModel, SpecError> {
        if self.counts != CountsName::All {
            return Err(bad(
                "counts",
                "free",
                "all (naive_bayes releases every table)",
            ));
        }
        let p = &self.prior;
        let classes = p
            .classes
            .clone()
            .ok_or_else(|| need("classes", "Dirichlet(α) on the classes"))?;
        let answers = p.answers.clone().ok_or_else(|| {
            need(
                "answers",
                "per feature, per class, Dirichlet(β) on its answers",
            )
        })?;
        NaiveBayes::new(classes, answers, self.n as usize)
            .map(AnyModel::NaiveBayes)
            .map_err(|e| model_error(e, &[]))
    }

    fn regression(&self) -> Result<AnyModel, SpecError> {
        let tau = self
            .prior
            .tau
            .ok_or_else(|| need("tau", "the prior sd τ of β ~ N(0, τ²I)"))?;
        let r = self.regression.as_ref().ok_or_else(|| {
            bad(
                "regression",
                "missing",
                "a [regression] table: mean, cov, noise_variance, x_bounds, y_bounds",
            )
        })?;
        // two values each: a third was once dropped without a word
        let pair = |key: &str, v: &[f64]| match v {
            [lo, hi] => Ok((*lo, *hi)),
            _ => Err(bad(
                &format!("regression.{key}"),
                format!("{} values", v.len()),
                "[lower, upper]: two numbers",
            )),
        };
        let (x_bounds, y_bounds) = (
            pair("x_bounds", &r.x_bounds)?,
            pair("y_bounds", &r.y_bounds)?,
        );
        for (key, v, what) in [
            ("prior.tau", tau, "the prior sd τ of β"),
            (
                "regression.noise_variance",
                r.noise_variance,
                "the noise variance σ²",
            ),
        ] {
            if !(PRIOR_SCALE.0..=PRIOR_SCALE.1).contains(&v) {
                return Err(bad(
                    key,
                    v,
                    format!(
                        "{what} from {:e} to {:e} (farther out, the posterior precision XᵀX/σ² + I/τ² leaves double precision, or the draws what a figure can draw)",
                        PRIOR_SCALE.0, PRIOR_SCALE.1
                    ),
                ));
            }
        }
        let big = |v: f64| v.is_nan() || v.abs() > MAX_COVARIATE;
        if let Some(v) = r.mean.iter().copied().find(|v| big(*v)) {
            return Err(bad(
                "regression.mean",
                v,
                format!("finite values of magnitude at most {MAX_COVARIATE:e}"),
            ));
        }
        if let Some(v) = r.cov.iter().flatten().copied().find(|v| big(*v)) {
            return Err(bad(
                "regression.cov",
                v,
                format!("finite values of magnitude at most {MAX_COVARIATE:e}"),
            ));
        }
        LinearRegression::new(
            r.mean.clone(),
            r.cov.clone(),
            (r.noise_variance, tau),
            (x_bounds, y_bounds),
            self.n as usize,
        )
        .map(AnyModel::LinearRegression)
        .map_err(|e| {
            model_error(
                e,
                &[
                    ("tau", "prior.tau"),
                    ("sigma", "regression.cov"),
                    ("m", "regression.mean"),
                    ("sigma2", "regression.noise_variance"),
                    ("x_bounds", "regression.x_bounds"),
                    ("y_bounds", "regression.y_bounds"),
                ],
            )
        })
    }

    fn model_name(&self) -> &'static str {
        match self.model {
            ModelName::BetaBernoulli => "beta_bernoulli",
            ModelName::DirichletCategorical => "dirichlet_categorical",
            ModelName::NaiveBayes => "naive_bayes",
            ModelName::LinearRegression => "linear_regression",
            ModelName::ContingencyTable => "contingency_table",
            ModelName::LogisticRegression => "logistic_regression",
        }
    }

    /// Checks every key and builds the model, release and settings (a records
    /// file is read relative to the working folder).
    pub fn check(&self) -> Result<Inference, SpecError> {
        self.check_at(Path::new(""))
    }

    /// [`Self::check`], a records file read relative to `base` (the release
    /// file's folder).
    pub fn check_at(&self, base: &Path) -> Result<Inference, SpecError> {
        let (model, release) = if self.model.reads_records() {
            if self.release.is_some() {
                return Err(bad(
                    "release",
                    "given",
                    format!(
                        "not for {}: its release is the records themselves ([records])",
                        self.model_name()
                    ),
                ));
            }
            (self.model(base)?, None)
        } else {
            if self.records.is_some() {
                return Err(bad(
                    "records",
                    "given",
                    format!(
                        "only for contingency_table and logistic_regression, not {} (whose release is noisy counts: [release])",
                        self.model_name()
                    ),
                ));
            }
            let spec = self.release.as_ref().ok_or_else(|| {
                bad(
                    "release",
                    "missing",
                    "a [release] table: mechanism, scale and values",
                )
            })?;
            if self.n == 0 || self.n > MAX_N {
                return Err(bad("n", self.n, format!("1 ≤ n ≤ {MAX_N}")));
            }
            let model = self.model(base)?;
            let release = self.noisy_release(spec, &model)?;
            (model, Some(release))
        };
        if self.model.reads_records() && self.sampler.kernel == Kernel::Soma {
            return Err(bad(
                "sampler.kernel",
                "soma",
                "record_wise (the default): randomized response's records are drawn from their full conditional (Gibbs), with no offers to weigh",
            ));
        }
        self.settings_for(model, release)
    }

    /// The noisy counts' release of `spec` for `model`, checked.
    fn noisy_release(&self, spec: &ReleaseSpec, model: &AnyModel) -> Result<Release, SpecError> {
        if self.model == ModelName::LinearRegression
            && Noise::new(&spec.mechanism, 1.0).is_ok_and(|n| n.is_discrete())
        {
            return Err(bad(
                "release.mechanism",
                format!("{:?}", spec.mechanism),
                "laplace or gaussian for linear_regression (its statistics XᵀX, Xᵀy and yᵀy are sums of real products, not integers, so a discrete law cannot have released them)",
            ));
        }
        let release = spec.release(model.statistic_len()).map_err(|e| {
            if e.key == "release.values" && self.counts == CountsName::Free {
                SpecError {
                    allowed: format!("{} (counts = \"free\": the first K − 1 counts)", e.allowed),
                    ..e
                }
            } else {
                e
            }
        })?;
        check_reach(&release, model.statistic_range())?;
        Ok(release)
    }

    /// The sampler's settings, checked against the model's size.
    fn settings_for(
        &self,
        model: AnyModel,
        release: Option<Release>,
    ) -> Result<Inference, SpecError> {
        let s = &self.sampler;
        if s.chains == 0 || s.chains > MAX_CHAINS {
            return Err(bad(
                "sampler.chains",
                s.chains,
                format!("1 to {MAX_CHAINS}"),
            ));
        }
        if s.draws == 0 {
            return Err(bad("sampler.draws", 0, "at least 1 draw per chain"));
        }
        let parameters = model.parameters();
        let kept = s.chains as f64 * s.draws as f64 * parameters as f64;
        if kept > MAX_KEPT {
            return Err(bad(
                "sampler.draws",
                format!(
                    "{} draws × {} chains × {parameters} parameters = {kept:.3e} kept values",
                    s.draws, s.chains
                ),
                format!("at most {MAX_KEPT:.0e} kept values (8 bytes each)"),
            ));
        }
        let proposals =
            s.chains as f64 * (s.warmup as f64 + s.draws as f64) * model.work_per_sweep();
        if proposals > MAX_PROPOSALS {
            return Err(bad(
                "sampler",
                format!("chains × (warmup + draws) × n = {proposals:.3e} record proposals"),
                format!("at most {MAX_PROPOSALS:.0e} record proposals (a bound on the run's counters; its time is capped separately)"),
            ));
        }
        Ok(Inference {
            model,
            release,
            settings: Settings {
                warmup: s.warmup as usize,
                draws: s.draws as usize,
                chains: s.chains as usize,
                kernel: s.kernel,
                seed: s.seed,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Inference, String> {
        let spec: InferSpec = toml::from_str(text).map_err(|e| e.to_string())?;
        spec.check().map_err(|e| e.to_string())
    }

    const GOOD: &str = r#"
model = "dirichlet_categorical"
prior = { alpha = [1.0, 1.0, 1.0] }
n = 30
[release]
mechanism = "laplace"
scale = 2.0
values = [12.7, 9.1, 8.4]
"#;

    #[test]
    fn the_documented_example_parses() {
        let inf = parse(GOOD).unwrap();
        assert_eq!(inf.settings.chains, 4);
        assert_eq!(inf.settings.kernel, Kernel::RecordWise);
        assert_eq!(inf.release.unwrap().values, [12.7, 9.1, 8.4]);
    }

    const NB: &str = r#"
model = "naive_bayes"
prior = { classes = [1.0, 1.0], answers = [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]] }
n = 100
[release]
mechanism = "laplace"
scale = 4.0
values = [20.3, 31.0, 27.5, 19.9, 10.2, 22.0, 18.1, 15.5, 20.4, 12.2]
"#;

    /// Ju et al.'s naive-Bayes model: K tables of I × J_k counts, 2K sensitivity.
    #[test]
    fn naive_bayes_files_parse_and_name_their_keys() {
        let inf = parse(NB).unwrap();
        assert_eq!(inf.model.statistic_len(), 10);
        assert_eq!(inf.model.l1_sensitivity(), 4.0);
        assert_eq!(inf.model.parameters(), 2 + 4 + 6);
        for (text, key) in [
            (NB.replace("classes = [1.0, 1.0], ", ""), "prior.classes"),
            (
                NB.replace(
                    "[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]",
                    "[1.0, 1.0, 1.0], [1.0, 1.0]",
                ),
                "prior.answers",
            ),
            (
                NB.replace("prior = {", "prior = { alpha = [1.0, 1.0],"),
                "prior.alpha",
            ),
            (
                NB.replace("values = [20.3, ", "values = ["),
                "release.values",
            ),
            (
                NB.replace("n = 100", "n = 100\ncounts = \"free\""),
                "counts",
            ),
            (
                GOOD.replace(
                    "alpha = [1.0, 1.0, 1.0]",
                    "alpha = [1.0, 1.0, 1.0], classes = [1.0]",
                ),
                "prior.classes",
            ),
            (
                GOOD.replace("prior = { alpha = [1.0, 1.0, 1.0] }", "prior = {}"),
                "prior.alpha",
            ),
        ] {
            let e = parse(&text).unwrap_err();
            assert!(e.starts_with(&format!("{key}:")), "{key}: {e}");
        }
    }

    const LR: &str = r#"
model = "linear_regression"
prior = { tau = 1.0 }
n = 100
[regression]
mean = [0.5, -0.2]
cov = [[1.0, 0.3], [0.3, 1.0]]
noise_variance = 0.5
x_bounds = [-3.0, 3.0]
y_bounds = [-4.0, 4.0]
[release]
mechanism = "laplace"
scale = 2.0
values = [10.2, 4.1, -3.3, 20.5, 100.0, 3.1, 30.4, -2.2, 1.0, 28.7]
"#;

    /// Linear regression: X'Y (p + 1), Y'Y, and X'X's lower triangle.
    #[test]
    fn regression_files_parse_and_name_their_keys() {
        let inf = parse(LR).unwrap();
        assert_eq!(inf.model.statistic_len(), 10);
        assert_eq!(inf.model.parameters(), 3);
        for (text, key) in [
            (LR.replace("prior = { tau = 1.0 }", "prior = {}"), "prior.tau"),
            (LR.replace("tau = 1.0", "tau = 0.0"), "prior.tau"),
            (LR.replace("[[1.0, 0.3], [0.3, 1.0]]", "[[1.0, 3.0], [3.0, 1.0]]"), "regression.cov"),
            (LR.replace("[[1.0, 0.3], [0.3, 1.0]]", "[[1.0, 0.3], [0.2, 1.0]]"), "regression.cov"),
            (LR.replace("noise_variance = 0.5", "noise_variance = -1.0"), "regression.noise_variance"),
            (LR.replace("x_bounds = [-3.0, 3.0]", "x_bounds = [3.0, -3.0]"), "regression.x_bounds"),
            (LR.replace("mean = [0.5, -0.2]", "mean = [0.5]"), "regression.cov"),
            (format!("{GOOD}[regression]\nmean = [0.0]\ncov = [[1.0]]\nnoise_variance = 1.0\nx_bounds = [-1.0, 1.0]\ny_bounds = [-1.0, 1.0]\n"), "regression"),
        ] {
            let e = parse(&text).unwrap_err();
            assert!(e.starts_with(&format!("{key}:")), "{key}: {e}");
        }
    }

    /// `contingency_table` reads `[records]`, not `[release]`: each missing or
    /// misplaced table names its key before any file is read.
    #[test]
    fn contingency_tables_name_their_keys() {
        let rr = r#"
model = "contingency_table"
prior = { alpha = [1.0, 1.0] }
[records]
file = "no-such-file.csv"
attributes = [{ column = "a", categories = ["x", "y"], keep = 0.9 }]
"#;
        for (text, key) in [
            (rr.replace("[records]", "[other]"), "other"),
            (
                rr.replace(
                    "model = \"contingency_table\"",
                    "model = \"contingency_table\"\ncounts = \"free\"",
                ),
                "counts",
            ),
            (
                rr.replace(
                    "attributes = [{ column = \"a\", categories = [\"x\", \"y\"], keep = 0.9 }]",
                    "attributes = []",
                ),
                "records.attributes",
            ),
            (
                rr.replace("keep = 0.9", "keep = 0.9, epsilon = 2.0"),
                "records.attributes[1].keep",
            ),
            (
                rr.replace("prior = { alpha = [1.0, 1.0] }", "prior = { tau = 1.0 }"),
                "prior.tau",
            ),
            (rr.to_string(), "records.file"),
            (
                GOOD.replace(
                    "[release]",
                    "[records]\nfile = \"r.csv\"\nattributes = []\n[release]",
                ),
                "records",
            ),
            (
                rr.replace(
                    "model = \"contingency_table\"",
                    "model = \"dirichlet_categorical\"\nn = 3",
                ),
                "records",
            ),
        ] {
            let e = parse(&text).unwrap_err();
            // serde's own errors name the unknown key inside its parse error
            assert!(
                e.starts_with(&format!("{key}:")) || e.contains(&format!("unknown field `{key}`")),
                "{key}: {e}"
            );
        }
    }

    /// Each bad input names its key.
    #[test]
    fn bad_files_name_the_key() {
        let cases = [
            (
                GOOD.replace("values = [12.7, 9.1, 8.4]", "values = [12.7, 9.1]"),
                "release.values",
            ),
            (GOOD.replace("scale = 2.0", "scale = 0.0"), "release.scale"),
            (GOOD.replace("scale = 2.0", "scale = -1.0"), "release.scale"),
            (GOOD.replace("scale = 2.0", "scale = nan"), "release.scale"),
            (
                GOOD.replace("\"laplace\"", "\"cauchy\""),
                "release.mechanism",
            ),
            (GOOD.replace("n = 30", "n = 0"), "n"),
            (
                GOOD.replace("[1.0, 1.0, 1.0]", "[1.0, -1.0, 1.0]"),
                "prior.alpha",
            ),
            (
                GOOD.replace("[12.7, 9.1, 8.4]", "[12.7, nan, 8.4]"),
                "release.values",
            ),
            (format!("{GOOD}[sampler]\ndraws = 0\n"), "sampler.draws"),
            (format!("{GOOD}[sampler]\nchains = 0\n"), "sampler.chains"),
            (
                format!("{GOOD}[sampler]\ndraws = 100000000\n"),
                "sampler.draws",
            ),
            (
                format!(
                    "{}[sampler]\ndraws = 10000\n",
                    GOOD.replace("n = 30", "n = 10000000")
                ),
                "sampler",
            ),
        ];
        for (text, key) in cases {
            let e = parse(&text).unwrap_err();
            assert!(e.starts_with(&format!("{key}:")), "{key}: {e}");
        }
        // serde names unknown models and keys itself
        let e = parse(&GOOD.replace("dirichlet_categorical", "poisson")).unwrap_err();
        assert!(e.contains("poisson") && e.contains("beta_bernoulli"), "{e}");
        let e = parse(&format!("{GOOD}bogus = 1\n")).unwrap_err();
        assert!(e.contains("bogus"), "{e}");
        let e = parse(&GOOD.replace(
            "model = \"dirichlet_categorical\"",
            "model = \"beta_bernoulli\"",
        ))
        .unwrap_err();
        assert!(e.starts_with("prior.alpha:"), "{e}");
    }
}
