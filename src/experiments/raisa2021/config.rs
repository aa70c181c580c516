//! The banana and Gaussian figures' config: its tables (penalty, DP-HMC, SG-MCMC), checked once, and what a checked config derives (budgets per method and ε, the chains' settings).

use super::{
    check, Accountant, Conversion, Deserialize, DpHmc, Method, ParamError, Penalty, SgKind, SgMcmc,
    SgldAccount,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PenaltyConfig {
    pub(super) tau: f64,
    pub(super) proposal_sd: f64,
    pub(super) clip: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HmcConfig {
    pub(super) tau_l: f64,
    pub(super) tau_g: f64,
    pub(super) step: f64,
    pub(super) leapfrog: u64,
    pub(super) clip_ratio: f64,
    pub(super) clip_grad: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SgConfig {
    pub(super) batch: u64,
    pub(super) clip: f64,
    pub(super) eta: f64,
    /// SGNHT's diffusion A (absent for SGLD)
    #[serde(default)]
    pub(super) diffusion: Option<f64>,
    /// the authors' total iteration count per ε (4 chains together)
    pub(super) published_iterations: Vec<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Config {
    pub(super) n_data: u64,
    pub(super) epsilons: Vec<f64>,
    pub(super) delta: f64,
    pub(super) repeats: u64,
    pub(super) chains: u64,
    pub(super) reference_draws: u64,
    pub(super) mmd_draws: u64,
    pub(super) methods: Vec<Method>,
    pub(super) penalty: PenaltyConfig,
    pub(super) dp_hmc: HmcConfig,
    pub(super) sgld: SgConfig,
    pub(super) sgnht: SgConfig,
    /// Whose inputs: privpost's own stream (`privpost`, the default) or, for the
    /// banana, the authors' data, reference draws and starts (`authors`).
    #[serde(default)]
    pub(super) inputs: Inputs,
    /// Keep every run's chains in `draws.csv` (the kept halves, thinned as scored);
    /// off by default: the paper-scale files run to hundreds of MB.
    #[serde(default)]
    pub(super) keep_draws: bool,
}

/// Where a figure's data, reference draws and chain starts come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inputs {
    /// drawn from privpost's keyed streams of the config's seed
    #[default]
    Privpost,
    /// the ones Räisä et al.'s code draws on JAX's pre-0.5 stream (banana only):
    /// data key 43247, reference key 56437, starts key 4236482 + repeat·chains + chain
    Authors,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

pub(super) fn positive(key: &str, v: f64) -> Result<f64, ParamError> {
    check::positive(key, v)
}

impl PenaltyConfig {
    /// The `[penalty]` table's own checks.
    fn check(&self) -> Result<(), ParamError> {
        positive("penalty.tau", self.tau)?;
        positive("penalty.proposal_sd", self.proposal_sd)?;
        positive("penalty.clip", self.clip)?;
        Ok(())
    }
}

impl HmcConfig {
    /// The `[dp_hmc]` table's own checks.
    fn check(&self) -> Result<(), ParamError> {
        let h = self;
        positive("dp_hmc.tau_l", h.tau_l)?;
        positive("dp_hmc.tau_g", h.tau_g)?;
        positive("dp_hmc.step", h.step)?;
        positive("dp_hmc.clip_ratio", h.clip_ratio)?;
        positive("dp_hmc.clip_grad", h.clip_grad)?;
        if !(1..=1000).contains(&h.leapfrog) {
            return Err(ParamError::new(
                "dp_hmc.leapfrog",
                h.leapfrog.to_string(),
                "1 ..= 1000 leapfrog steps",
            ));
        }
        Ok(())
    }
}

impl SgConfig {
    /// The `[sgld]` or `[sgnht]` table's checks (`name`), against the run's
    /// n_data, chains and ε list.
    fn check(&self, name: &str, c: &Config) -> Result<(), ParamError> {
        let s = self;
        if s.batch == 0 || s.batch > c.n_data {
            return Err(ParamError::new(
                format!("{name}.batch"),
                s.batch.to_string(),
                "1 ..= n_data",
            ));
        }
        positive(&format!("{name}.clip"), s.clip)?;
        positive(&format!("{name}.eta"), s.eta)?;
        // the noise multiplier b√v/(2C√(ηn)) must be a finite positive number
        let sigma = s.batch as f64 / (2.0 * s.clip * (s.eta * c.n_data as f64).sqrt());
        if !(sigma.is_finite() && sigma > 1e-6 && sigma < 1e6) {
            return Err(ParamError::new(
                format!("{name}.clip"),
                format!(
                    "{name}.batch = {}, {name}.clip = {}, {name}.eta = {} give the noise multiplier b/(2C√(ηn)) = {}",
                    s.batch,
                    check::short(s.clip),
                    check::short(s.eta),
                    check::short(sigma)
                ),
                "clip, eta and batch whose noise multiplier lies in [10⁻⁶, 10⁶]",
            ));
        }
        if s.published_iterations.len() != c.epsilons.len() {
            return Err(ParamError::new(
                format!("{name}.published_iterations"),
                format!(
                    "{} counts for {} ε",
                    s.published_iterations.len(),
                    c.epsilons.len()
                ),
                "one count per entry of epsilons, in the same order",
            ));
        }
        for &t in &s.published_iterations {
            if t < c.chains || t > 1_000_000_000 {
                return Err(ParamError::new(
                    format!("{name}.published_iterations"),
                    t.to_string(),
                    "chains ..= 10⁹ iterations (all chains together)",
                ));
            }
        }
        Ok(())
    }
}

pub(super) fn validate(c: &Config) -> Result<(), ParamError> {
    check::at_least("n_data", c.n_data, 100)?;
    if c.n_data > 10_000_000 {
        return Err(ParamError::new(
            "n_data",
            c.n_data.to_string(),
            "100 ..= 10⁷",
        ));
    }
    check::non_empty("epsilons", &c.epsilons)?;
    for (i, &e) in c.epsilons.iter().enumerate() {
        check::within("epsilons", e, 1e-3, 100.0, "ε in [0.001, 100]")?;
        if c.epsilons[..i].contains(&e) {
            return Err(ParamError::new(
                "epsilons",
                format!("{e} appears twice"),
                "distinct ε",
            ));
        }
    }
    check::within("delta", c.delta, 1e-30, 0.5, "10⁻³⁰ ≤ δ ≤ 0.5")?;
    check::at_least("repeats", c.repeats, 1)?;
    if c.repeats > 1000 {
        return Err(ParamError::new(
            "repeats",
            c.repeats.to_string(),
            "1 ..= 1000",
        ));
    }
    check::at_least("chains", c.chains, 2)?;
    if c.chains > 64 {
        return Err(ParamError::new("chains", c.chains.to_string(), "2 ..= 64"));
    }
    for (key, v) in [
        ("reference_draws", c.reference_draws),
        ("mmd_draws", c.mmd_draws),
    ] {
        check::at_least(key, v, 10)?;
        if v > 100_000 {
            return Err(ParamError::new(key, v.to_string(), "10 ..= 100000"));
        }
    }
    check::non_empty("methods", &c.methods)?;
    for (i, m) in c.methods.iter().enumerate() {
        if c.methods[..i].contains(m) {
            return Err(ParamError::new(
                "methods",
                format!("{} appears twice", m.as_str()),
                "distinct methods",
            ));
        }
    }
    c.penalty.check()?;
    c.dp_hmc.check()?;
    for (name, s) in [("sgld", &c.sgld), ("sgnht", &c.sgnht)] {
        s.check(name, c)?;
    }
    match c.sgnht.diffusion {
        Some(a) => {
            positive("sgnht.diffusion", a)?;
        }
        None => {
            return Err(ParamError::new(
                "sgnht.diffusion",
                "missing",
                "the thermostat's diffusion A > 0",
            ))
        }
    }
    if c.sgld.diffusion.is_some() {
        return Err(ParamError::new(
            "sgld.diffusion",
            "given",
            "no diffusion for DP-SGLD (SGNHT only)",
        ));
    }
    Ok(())
}

impl Config {
    pub(super) fn penalty(&self) -> Penalty {
        Penalty {
            tau: self.penalty.tau,
            n_exponent: 0.5,
            proposal_sd: self.penalty.proposal_sd,
            clip: self.penalty.clip,
            corrected: true,
        }
    }

    pub(super) fn hmc(&self) -> DpHmc {
        let h = &self.dp_hmc;
        DpHmc {
            tau_l: h.tau_l,
            tau_g: h.tau_g,
            clip_ratio: h.clip_ratio,
            clip_grad: h.clip_grad,
            leapfrog: h.leapfrog as usize,
            step: h.step,
        }
    }

    /// The stochastic-gradient sampler of a method (None for the exact MH ones).
    pub(super) fn sg(&self, m: Method) -> Option<SgMcmc> {
        let (s, kind) = match m {
            Method::DpSgldPublished => (
                &self.sgld,
                SgKind::Sgld {
                    variance_factor: 1.0,
                },
            ),
            Method::DpSgldCorrected => (
                &self.sgld,
                SgKind::Sgld {
                    variance_factor: 2.0,
                },
            ),
            Method::DpSgnht => (
                &self.sgnht,
                SgKind::Sgnht {
                    diffusion: self.sgnht.diffusion.unwrap_or(1.0),
                },
            ),
            Method::Penalty | Method::DpHmc => return None,
        };
        Some(SgMcmc {
            batch: s.batch as usize,
            clip: s.clip,
            eta: s.eta,
            kind,
        })
    }

    /// Total iterations of `m` at ε (index `e`): the budget its accounting allows.
    pub(super) fn iterations(&self, m: Method, e: usize) -> Result<u64, ParamError> {
        let (eps, n) = (self.epsilons[e], self.n_data as usize);
        // a τ so small that σ underflows to 0 releases without noise: no budget at all
        let noise_free = |key: &str, mu: f64| {
            if mu.is_finite() {
                Ok(())
            } else {
                Err(ParamError::new(
                    key,
                    format!("its noise underflows to 0 (μ per iteration = {mu})"),
                    "τ large enough that τ√n is a positive number",
                ))
            }
        };
        match m {
            Method::Penalty => noise_free(
                "penalty.tau",
                crate::privacy::gaussian_pld::penalty_mu(self.penalty.tau, self.n_data, 0.5),
            )?,
            Method::DpHmc => {
                let h = &self.dp_hmc;
                // the release whose noise underflows: the ratio's or the gradients'
                let key = if h.tau_l * h.tau_l * self.n_data as f64 > 0.0 {
                    "dp_hmc.tau_g"
                } else {
                    "dp_hmc.tau_l"
                };
                noise_free(
                    key,
                    crate::privacy::gaussian_pld::hmc_mu(h.tau_l, h.tau_g, h.leapfrog, self.n_data),
                )?
            }
            _ => {}
        }
        let total = match m {
            Method::Penalty => Accountant::Pld.max_iterations(
                crate::privacy::gaussian_pld::penalty_mu(self.penalty.tau, self.n_data, 0.5),
                eps,
                self.delta,
            ),
            Method::DpHmc => {
                let h = &self.dp_hmc;
                Accountant::Pld.max_iterations(
                    crate::privacy::gaussian_pld::hmc_mu(h.tau_l, h.tau_g, h.leapfrog, self.n_data),
                    eps,
                    self.delta,
                )
            }
            Method::DpSgldPublished => self.sgld.published_iterations[e],
            Method::DpSgnht => self.sgnht.published_iterations[e],
            Method::DpSgldCorrected => {
                let p = self.sg(m).map(|s| s.privacy(n)).ok_or_else(|| {
                    ParamError::new("methods", m.as_str(), "a stochastic-gradient method")
                })?;
                self.sgld_account(p.q(), p.dominating_sigma(), 0)
                    .largest_iterations(eps, Conversion::Improved, Some(513))
                    .map_err(|err| ParamError::new("epsilons", eps.to_string(), err.to_string()))?
                    .0
            }
        };
        let per_chain = total / self.chains;
        if per_chain > 100_000_000 {
            let (key, with) = match m {
                Method::Penalty => ("penalty.tau", "penalty.tau".to_string()),
                Method::DpHmc => ("dp_hmc.tau_l", "dp_hmc.tau_l and dp_hmc.tau_g".to_string()),
                _ => (
                    "sgld.clip",
                    "sgld.clip, sgld.eta and sgld.batch".to_string(),
                ),
            };
            return Err(ParamError::new(
                key,
                format!(
                    "{with} at ε = {eps} allow {per_chain} iterations per chain for {}",
                    m.as_str()
                ),
                "noise small enough that the budget allows at most 10⁸ iterations per chain",
            ));
        }
        if total / self.chains < 2 {
            return Err(ParamError::new(
                "epsilons",
                eps.to_string(),
                format!(
                    "an ε whose budget gives {} at least 2 iterations per chain (it allows {total} for {} chains)",
                    m.as_str(),
                    self.chains
                ),
            ));
        }
        Ok(total)
    }

    pub(super) fn sgld_account(&self, q: f64, sigma: f64, iterations: u64) -> SgldAccount {
        SgldAccount {
            q,
            sigma,
            iterations,
            delta: self.delta,
            // the best order for ε ≥ 0.001 at these δ lies far below (ln(1/δ)/ε + 1 ≲ 512 for ε ≥ 0.05)
            alpha_max: 512,
        }
    }
}
