//! `raisa2021/gmm`: Räisä et al.'s samplers on Heikkilä et al.'s GMM, so
//! the two papers' claims meet on one problem. The figure is heikkila2019 Fig. 3 —
//! the same data, DPVI start, Barker DP-MCMC and DP-SGLD runs, checkpoints and scores
//! (error of the running mean and variance against the exact tempered posterior, vs
//! ε spent) — with three chains added, each configured by its own table:
//!
//! - `[penalty]`: the penalty algorithm (Yildirim & Ermis 2019) with a random-walk
//!   proposal, on the full tempered data ([`Gmm`]);
//! - `[dp_hmc]`: DP-HMC (Räisä, Koskela, Honkela 2021);
//! - `[sgnht]`: DP-SGNHT (a b-record batch without replacement, as Räisä et al.).
//!
//! Their ε at a checkpoint after t iterations: penalty and DP-HMC by the tight
//! Gaussian-composition PLD of t iterations (`privacy::gaussian_pld`, the authors'
//! accounting); DP-SGNHT by the RDP of its dominating Poisson pair
//! (`privacy::sg_mcmc`) with the classic conversion, as Fig. 3 states DP-SGLD's.
//! Fig. 3 adds DPVI's ε to every chain that starts where DPVI lands (basic
//! composition); the new chains start there too.

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::config::{check, deserialize, ParamError};
use crate::dpmcmc::exact_mh::{DpHmc, Penalty, VanDerCorput};
use crate::dpmcmc::gmm::Gmm;
use crate::dpmcmc::sg_mcmc::{SgKind, SgMcmc};
use crate::experiments::heikkila2019::{self, fig3::ExtraChains};
use crate::experiments::Plan;
use crate::privacy::accountant::SgldAccount;
use crate::privacy::event::Conversion;
use crate::privacy::event::{Derivation, Event, Guarantee};
use crate::privacy::gaussian_pld::{event_mu, Accountant};
use crate::privacy::ledger::Entry;

/// The chain length and what of it is recorded: after `burn_in` iterations, every
/// `every` (as Fig. 3's DP-MCMC); the keys `iterations`, `burn_in`, `every` of each table.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    pub iterations: u64,
    pub burn_in: u64,
    pub every: u64,
}

/// `[penalty]`: τ, the random-walk proposal sd per coordinate and b (ratios clipped
/// to ±b‖θ′ − θ‖, in units of the tempered terms).
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct PenaltyTable {
    tau: f64,
    proposal_sd: f64,
    clip: f64,
    iterations: u64,
    burn_in: u64,
    every: u64,
}

/// `[dp_hmc]`: Räisä et al.'s parameters (τ_l, τ_g, η, L and the clip bounds of DP-HMC).
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct HmcTable {
    tau_l: f64,
    tau_g: f64,
    step: f64,
    leapfrog: u64,
    clip_ratio: f64,
    clip_grad: f64,
    iterations: u64,
    burn_in: u64,
    every: u64,
}

/// `[sgnht]`: batch b, clip C (tempered terms), η (h = η/N) and the diffusion A.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SgnhtTable {
    batch: u64,
    clip: f64,
    eta: f64,
    diffusion: f64,
    iterations: u64,
    burn_in: u64,
    every: u64,
}

/// The added chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    Penalty,
    DpHmc,
    DpSgnht,
}

impl Added {
    pub const ALL: [Added; 3] = [Added::Penalty, Added::DpHmc, Added::DpSgnht];

    /// The `method` column and the config table's name.
    pub fn name(self) -> &'static str {
        match self {
            Added::Penalty => "penalty",
            Added::DpHmc => "dp_hmc",
            Added::DpSgnht => "dp_sgnht",
        }
    }

    /// The config table of the chain.
    pub fn table(self) -> &'static str {
        match self {
            Added::Penalty => "penalty",
            Added::DpHmc => "dp_hmc",
            Added::DpSgnht => "sgnht",
        }
    }
}

/// The tables raisa2021/gmm adds to a Fig. 3 config, each optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddedChains {
    #[serde(default)]
    pub penalty: Option<PenaltyTable>,
    #[serde(default)]
    pub dp_hmc: Option<HmcTable>,
    #[serde(default)]
    pub sgnht: Option<SgnhtTable>,
}

/// The config tables of the added chains.
const TABLES: [&str; 3] = ["penalty", "dp_hmc", "sgnht"];

/// The parameters' schema: the added tables', then Fig. 3's
/// ([`crate::config::shape`]).
pub fn schema(path: &[String]) -> crate::config::shape::Shape {
    use crate::config::shape::shape_of;
    match path.first() {
        Some(head) if TABLES.contains(&head.as_str()) => shape_of::<AddedChains>(path),
        _ => heikkila2019::FIG3_SCHEMA(path),
    }
}

/// Validates a raisa2021/gmm config: its `[penalty]`, `[dp_hmc]` and `[sgnht]`
/// tables here, the rest as heikkila2019 Fig. 3's config
/// ([`heikkila2019::fig3::validate_with`], which runs the chains beside its own).
pub fn validate(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let mut fig3 = params.clone();
    let mut tables = toml::Table::new();
    for key in TABLES {
        if let Some(v) = fig3.remove(key) {
            tables.insert(key.to_string(), v);
        }
    }
    let chains: AddedChains = deserialize(&tables)?;
    heikkila2019::fig3::validate_with(&fig3, seed, Box::new(chains))
        .map_err(|e| e.also_allowing(&TABLES))
}

impl Schedule {
    /// The `iterations`, `burn_in`, `every` keys of `table`: a chain of 2 ..=
    /// MAX_ITERATIONS iterations with at least one checkpoint after its burn-in.
    fn check(&self, table: &str) -> Result<(), ParamError> {
        let s = self;
        let key = |k: &str| format!("{table}.{k}");
        if !(2..=MAX_ITERATIONS).contains(&s.iterations) {
            return Err(ParamError::new(
                key("iterations"),
                s.iterations.to_string(),
                format!("2 ..= {MAX_ITERATIONS}"),
            ));
        }
        if s.burn_in >= s.iterations {
            return Err(ParamError::new(
                key("burn_in"),
                format!(
                    "{} with {} = {}",
                    s.burn_in,
                    key("iterations"),
                    s.iterations
                ),
                format!("{} < {}", key("burn_in"), key("iterations")),
            ));
        }
        check::at_least(&key("every"), s.every, 1)?;
        if s.every > s.iterations - s.burn_in {
            return Err(ParamError::new(
                key("every"),
                s.every.to_string(),
                format!(
                    "at most {} − {} (one checkpoint at least)",
                    key("iterations"),
                    key("burn_in")
                ),
            ));
        }
        Ok(())
    }
}

/// One configured chain.
#[derive(Debug, Clone, Copy)]
enum Sampler {
    Penalty(Penalty),
    DpHmc(DpHmc),
    Sgnht(SgMcmc),
}

/// Most iterations of an added chain (each a pass over the N records for the
/// penalty algorithm and L + 2 passes for DP-HMC).
const MAX_ITERATIONS: u64 = 100_000_000;

impl AddedChains {
    /// The configured chains, in [`Added::ALL`] order.
    pub fn methods(&self) -> Vec<Added> {
        Added::ALL
            .into_iter()
            .filter(|m| self.schedule(*m).is_some())
            .collect()
    }

    pub fn schedule(&self, m: Added) -> Option<Schedule> {
        match m {
            Added::Penalty => self
                .penalty
                .as_ref()
                .map(|t| (t.iterations, t.burn_in, t.every)),
            Added::DpHmc => self
                .dp_hmc
                .as_ref()
                .map(|t| (t.iterations, t.burn_in, t.every)),
            Added::DpSgnht => self
                .sgnht
                .as_ref()
                .map(|t| (t.iterations, t.burn_in, t.every)),
        }
        .map(|(iterations, burn_in, every)| Schedule {
            iterations,
            burn_in,
            every,
        })
    }

    fn sampler(&self, m: Added) -> Option<Sampler> {
        Some(match m {
            Added::Penalty => {
                let t = self.penalty.as_ref()?;
                Sampler::Penalty(Penalty {
                    tau: t.tau,
                    n_exponent: 0.5,
                    proposal_sd: t.proposal_sd,
                    clip: t.clip,
                    corrected: true,
                })
            }
            Added::DpHmc => {
                let t = self.dp_hmc.as_ref()?;
                Sampler::DpHmc(DpHmc {
                    tau_l: t.tau_l,
                    tau_g: t.tau_g,
                    clip_ratio: t.clip_ratio,
                    clip_grad: t.clip_grad,
                    leapfrog: t.leapfrog as usize,
                    step: t.step,
                })
            }
            Added::DpSgnht => {
                let t = self.sgnht.as_ref()?;
                Sampler::Sgnht(SgMcmc {
                    batch: t.batch as usize,
                    clip: t.clip,
                    eta: t.eta,
                    kind: SgKind::Sgnht {
                        diffusion: t.diffusion,
                    },
                })
            }
        })
    }

    /// The `[sgnht]` table's checks, with the noise multiplier of its dominating
    /// pair one the accountant resolves.
    fn check_sgnht(&self, t: &SgnhtTable, n_data: u64) -> Result<(), ParamError> {
        let m = Added::DpSgnht;
        let key = |k: &str| format!("{}.{k}", m.table());
        let positive = |key: String, v: f64| check::positive(&key, v).map(|_| ());
        if t.batch == 0 || t.batch > n_data {
            return Err(ParamError::new(
                key("batch"),
                t.batch.to_string(),
                "1 ..= n_data",
            ));
        }
        positive(key("clip"), t.clip)?;
        check::within(
            &key("eta"),
            t.eta,
            1e-9,
            1e9,
            "η with h = η/N a step on the GMM's scale",
        )?;
        check::within(
            &key("diffusion"),
            t.diffusion,
            1e-6,
            1e6,
            "the thermostat's diffusion A",
        )?;
        // the dominating pair's noise multiplier b√(2A)/(2C√(ηN)) must be
        // one the accountant resolves
        let sigma = match self.sampler(m) {
            Some(Sampler::Sgnht(sg)) => sg.privacy(n_data as usize).dominating_sigma(),
            _ => f64::NAN,
        };
        if !(sigma.is_finite() && (1e-6..=1e6).contains(&sigma)) {
            return Err(ParamError::new(
                key("clip"),
                format!(
                    "{} = {}, {} = {}, {} = {}, {} = {} give the noise multiplier b√(2A)/(2C√(ηN)) = {}",
                    key("batch"),
                    t.batch,
                    key("clip"),
                    check::short(t.clip),
                    key("eta"),
                    check::short(t.eta),
                    key("diffusion"),
                    check::short(t.diffusion),
                    check::short(sigma)
                ),
                "clip, eta, batch and diffusion whose noise multiplier lies in [10⁻⁶, 10⁶]",
            ));
        }
        Ok(())
    }

    /// Checks every configured table (keys named `table.key`), and that each chain's
    /// ε can be computed at its last checkpoint.
    pub fn validate(&self, n_data: u64, delta: f64) -> Result<(), ParamError> {
        let positive = |key: String, v: f64| check::positive(&key, v).map(|_| ());
        for m in self.methods() {
            let table = m.table();
            let key = |k: &str| format!("{table}.{k}");
            if let Some(s) = self.schedule(m) {
                s.check(table)?;
            }
            match m {
                Added::Penalty => {
                    let t = self
                        .penalty
                        .as_ref()
                        .map(|t| (t.tau, t.proposal_sd, t.clip));
                    if let Some((tau, sd, clip)) = t {
                        positive(key("tau"), tau)?;
                        check::within(
                            &key("proposal_sd"),
                            sd,
                            1e-6,
                            1e3,
                            "a random-walk step on the GMM's scale",
                        )?;
                        positive(key("clip"), clip)?;
                    }
                }
                Added::DpHmc => {
                    if let Some(t) = &self.dp_hmc {
                        positive(key("tau_l"), t.tau_l)?;
                        positive(key("tau_g"), t.tau_g)?;
                        check::within(
                            &key("step"),
                            t.step,
                            1e-9,
                            10.0,
                            "a leapfrog step on the GMM's scale",
                        )?;
                        positive(key("clip_ratio"), t.clip_ratio)?;
                        positive(key("clip_grad"), t.clip_grad)?;
                        if !(1..=1000).contains(&t.leapfrog) {
                            return Err(ParamError::new(
                                key("leapfrog"),
                                t.leapfrog.to_string(),
                                "1 ..= 1000 leapfrog steps",
                            ));
                        }
                    }
                }
                Added::DpSgnht => {
                    if let Some(t) = &self.sgnht {
                        self.check_sgnht(t, n_data)?;
                    }
                }
            }
            // the privacy of the whole chain must be a finite number; a failure is blamed
            // on the key that sets the noise (for DP-HMC the release whose noise underflows)
            let noise_key = key(match (m, &self.dp_hmc) {
                (Added::Penalty, _) => "tau",
                (Added::DpHmc, Some(t)) if t.tau_l * t.tau_l * n_data as f64 > 0.0 => "tau_g",
                (Added::DpHmc, _) => "tau_l",
                (Added::DpSgnht, _) => "clip",
            });
            let last = self.checkpoints(m).last().copied().unwrap_or(0);
            let eps = self.epsilons(m, n_data, delta, &[last]).map_err(|e| {
                ParamError::new(
                    noise_key.clone(),
                    e.to_string(),
                    "settings whose ε can be computed",
                )
            })?;
            if !eps.iter().all(|e| e.is_finite()) {
                return Err(ParamError::new(
                    noise_key,
                    format!("ε after {last} iterations is not finite"),
                    "noise large enough for a finite ε",
                ));
            }
        }
        Ok(())
    }

    /// Checkpoints of a chain: the burn-in plus every `every` iterations.
    pub fn checkpoints(&self, m: Added) -> Vec<u64> {
        self.schedule(m).map_or_else(Vec::new, |s| {
            (1..=(s.iterations - s.burn_in) / s.every)
                .map(|k| s.burn_in + k * s.every)
                .collect()
        })
    }

    /// One iteration's Gaussian-composition event (penalty, DP-HMC).
    fn step_event(&self, m: Added, n: usize) -> Option<Event> {
        match self.sampler(m)? {
            Sampler::Penalty(p) => Some(p.event(n)),
            Sampler::DpHmc(h) => Some(h.event(n)),
            Sampler::Sgnht(_) => None,
        }
    }

    /// DP-SGNHT's accounting question (T given per call).
    fn sgnht_account(&self, n: usize, delta: f64, iterations: u64) -> Option<SgldAccount> {
        match self.sampler(Added::DpSgnht)? {
            Sampler::Sgnht(sg) => {
                let p = sg.privacy(n);
                Some(SgldAccount {
                    q: p.q(),
                    sigma: p.dominating_sigma(),
                    iterations,
                    delta,
                    alpha_max: 512,
                })
            }
            _ => None,
        }
    }

    /// ε of the chain alone after each of `ts` iterations, at δ.
    pub fn epsilons(
        &self,
        m: Added,
        n_data: u64,
        delta: f64,
        ts: &[u64],
    ) -> anyhow::Result<Vec<f64>> {
        let n = n_data as usize;
        if let Some(step) = self.step_event(m, n) {
            let mu =
                event_mu(&step).ok_or_else(|| anyhow::anyhow!("not a Gaussian composition"))?;
            return Ok(ts
                .iter()
                .map(|&t| Accountant::Pld.epsilon(t, mu, delta))
                .collect());
        }
        let account = self
            .sgnht_account(n, delta, 0)
            .ok_or_else(|| anyhow::anyhow!("{} is not configured", m.name()))?;
        Ok(account
            .curve(ts, Conversion::Classic)?
            .iter()
            .map(|s| s.epsilon)
            .collect())
    }

    /// The chain's own ledger entries at its checkpoints, named `method=…, iteration=t`.
    pub fn entries(&self, m: Added, n_data: u64, delta: f64) -> anyhow::Result<Vec<Entry>> {
        let n = n_data as usize;
        let ts = self.checkpoints(m);
        let series = |t: u64| format!("method={}, iteration={t}", m.name());
        if let Some(step) = self.step_event(m, n) {
            let eps = self.epsilons(m, n_data, delta, &ts)?;
            return Ok(ts
                .iter()
                .zip(eps)
                .map(|(&t, epsilon)| {
                    Entry::new(
                        series(t),
                        Event::repeat(t, step.clone()),
                        Guarantee::ApproxDp {
                            epsilon,
                            delta,
                            conversion: Derivation::Pld,
                            order: None,
                        },
                    )
                })
                .collect());
        }
        let account = self
            .sgnht_account(n, delta, 0)
            .ok_or_else(|| anyhow::anyhow!("{} is not configured", m.name()))?;
        Ok(account
            .entries(&ts, Conversion::Classic, series)?
            .into_iter()
            .map(|e| e.when("a fixed-size batch without replacement under substitution, stated by its dominating Poisson pair with σ = s/(2C) (privacy::sg_mcmc)"))
            .collect())
    }

    /// The manifest's account of the added chains: their settings and accounting.
    pub fn manifest(&self) -> serde_json::Value {
        serde_json::json!({
            "penalty": self.penalty,
            "dp_hmc": self.dp_hmc,
            "sgnht": self.sgnht,
            "model": "the tempered GMM: record i contributes τ ln p(xᵢ | θ), τ = N₀/N; clip bounds are in units of these terms",
            "start": "where DP-MCMC starts (DPVI's point, its ε composed as for DP-MCMC)",
            "epsilon": "penalty and DP-HMC: tight Gaussian-composition PLD of t iterations at delta_mcmc (privacy::gaussian_pld); DP-SGNHT: RDP of the dominating Poisson pair σ = s/(2C), classic conversion, at delta_mcmc",
        })
    }

    /// Estimated flops of one chain on n records.
    pub fn cost(&self, m: Added, n_data: u64) -> f64 {
        let (n, t) = (
            n_data as f64,
            self.schedule(m).map_or(0, |s| s.iterations) as f64,
        );
        match self.sampler(m) {
            Some(Sampler::Penalty(_)) => t * n * 40.0,
            Some(Sampler::DpHmc(h)) => t * n * 40.0 * (h.leapfrog as f64 + 2.0),
            // a gathered record costs about twice a streamed one (per-task times)
            Some(Sampler::Sgnht(s)) => t * s.batch as f64 * 100.0,
            None => 0.0,
        }
    }

    /// Runs chain `m` from `theta` on the tempered data, calling `after(t, θ)` after
    /// iteration t (1-based).
    pub fn run(
        &self,
        m: Added,
        model: &Gmm,
        theta: &mut [f64; 2],
        rng: &mut ChaCha8Rng,
        mut after: impl FnMut(u64, &[f64; 2]),
    ) -> anyhow::Result<()> {
        let s = self
            .schedule(m)
            .ok_or_else(|| anyhow::anyhow!("{} is not configured", m.name()))?;
        let mut scratch = Vec::new();
        match self.sampler(m) {
            Some(Sampler::Penalty(p)) => {
                for t in 1..=s.iterations {
                    p.step(model, theta, &mut scratch, rng);
                    after(t, theta);
                }
            }
            Some(Sampler::DpHmc(h)) => {
                let mut jitter = VanDerCorput::new(rng);
                for t in 1..=s.iterations {
                    h.step(model, theta, jitter.next_value(), &mut scratch, rng);
                    after(t, theta);
                }
            }
            Some(Sampler::Sgnht(sg)) => {
                sg.run(model, theta, s.iterations, rng, after);
            }
            None => anyhow::bail!("{} is not configured", m.name()),
        }
        Ok(())
    }
}

impl ExtraChains for AddedChains {
    fn names(&self) -> Vec<&'static str> {
        self.methods().into_iter().map(Added::name).collect()
    }
    fn delta_label(&self) -> &'static str {
        "penalty, DP-HMC, DP-SGNHT δ"
    }
    fn validate(&self, n_data: u64, delta: f64) -> Result<(), ParamError> {
        AddedChains::validate(self, n_data, delta)
    }
    fn schedule(&self, k: usize) -> (u64, u64) {
        let s = self.schedule(self.methods()[k]).unwrap_or(Schedule {
            iterations: 0,
            burn_in: 0,
            every: 1,
        });
        (s.burn_in, s.every)
    }
    fn epsilons(&self, k: usize, n_data: u64, delta: f64) -> Result<Vec<f64>, ParamError> {
        let m = self.methods()[k];
        AddedChains::epsilons(self, m, n_data, delta, &self.checkpoints(m)).map_err(|e| {
            ParamError::new(
                m.table().to_string(),
                e.to_string(),
                "settings whose ε can be computed",
            )
        })
    }
    fn cost(&self, k: usize, n_data: u64) -> f64 {
        AddedChains::cost(self, self.methods()[k], n_data)
    }
    fn run(
        &self,
        k: usize,
        model: &Gmm,
        theta: &mut [f64; 2],
        rng: &mut ChaCha8Rng,
        after: &mut dyn FnMut(u64, &[f64; 2]),
    ) -> anyhow::Result<()> {
        AddedChains::run(self, self.methods()[k], model, theta, rng, after)
    }
    fn entries(&self, k: usize, n_data: u64, delta: f64) -> anyhow::Result<Vec<Entry>> {
        AddedChains::entries(self, self.methods()[k], n_data, delta)
    }
    fn manifest(&self) -> serde_json::Value {
        AddedChains::manifest(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chains() -> AddedChains {
        let t: toml::Table = toml::from_str(
            r#"
            [penalty]
            tau = 13.0
            proposal_sd = 0.1
            clip = 3e-4
            iterations = 2000
            burn_in = 500
            every = 25
            [dp_hmc]
            tau_l = 2.0
            tau_g = 5.0
            step = 0.2
            leapfrog = 10
            clip_ratio = 3e-4
            clip_grad = 3e-4
            iterations = 200
            burn_in = 50
            every = 5
            [sgnht]
            batch = 100
            clip = 3e-4
            eta = 70.0
            diffusion = 1.0
            iterations = 60000
            burn_in = 10000
            every = 10000
            "#,
        )
        .unwrap();
        AddedChains {
            penalty: Some(t["penalty"].clone().try_into().unwrap()),
            dp_hmc: Some(t["dp_hmc"].clone().try_into().unwrap()),
            sgnht: Some(t["sgnht"].clone().try_into().unwrap()),
        }
    }

    /// Each chain's ε per checkpoint is its accounting by hand: penalty and DP-HMC
    /// the Gaussian PLD of t·μ with μ = 1/(2τ²n) (+ (L + 1)/(2τ_g²n) for DP-HMC);
    /// DP-SGNHT the RDP of the Poisson pair with σ = b√(2A)/(2C√(ηn)); every ledger
    /// entry states that ε and verifies against its event.
    #[test]
    fn added_chains_are_accounted_as_by_hand() {
        let (c, n, delta) = (chains(), 1_000_000u64, 1e-6);
        assert_eq!(c.methods(), Added::ALL.to_vec());
        c.validate(n, delta).unwrap();
        let ts = c.checkpoints(Added::Penalty);
        assert_eq!((ts.len(), ts[0], ts[59]), (60, 525, 2000));
        let nf = n as f64;
        let by_hand = |t: u64, mu: f64| crate::privacy::gaussian_pld::epsilon(delta, t as f64 * mu);
        for (m, mu) in [
            (Added::Penalty, 1.0 / (2.0 * 13.0 * 13.0 * nf)),
            (
                Added::DpHmc,
                1.0 / (2.0 * 4.0 * nf) + 11.0 / (2.0 * 25.0 * nf),
            ),
        ] {
            let ts = c.checkpoints(m);
            let eps = c.epsilons(m, n, delta, &ts).unwrap();
            let entries = c.entries(m, n, delta).unwrap();
            assert_eq!(entries.len(), ts.len());
            for ((t, e), entry) in ts.iter().zip(&eps).zip(&entries) {
                assert!((e - by_hand(*t, mu)).abs() <= 1e-12 * e, "{m:?} {t}");
                assert_eq!(entry.guarantee.epsilon_delta(), (*e, delta));
                entry.verify(1e-9).unwrap();
            }
            assert!(eps.windows(2).all(|w| w[0] < w[1]));
        }
        // 200 DP-HMC iterations at these settings: about 0.040 (the figure's notes)
        let hmc = c.epsilons(Added::DpHmc, n, delta, &[200]).unwrap()[0];
        assert!((hmc - 0.0401).abs() < 5e-4, "{hmc}");
        let ts = c.checkpoints(Added::DpSgnht);
        let sigma = 100.0 * 2f64.sqrt() / (2.0 * 3e-4 * (70.0 * nf).sqrt());
        let account = SgldAccount {
            q: 1e-4,
            sigma,
            iterations: 0,
            delta,
            alpha_max: 512,
        };
        let want: Vec<f64> = account
            .curve(&ts, Conversion::Classic)
            .unwrap()
            .iter()
            .map(|s| s.epsilon)
            .collect();
        assert_eq!(c.epsilons(Added::DpSgnht, n, delta, &ts).unwrap(), want);
        for (entry, e) in c
            .entries(Added::DpSgnht, n, delta)
            .unwrap()
            .iter()
            .zip(&want)
        {
            assert_eq!(entry.guarantee.epsilon_delta().0, *e);
            entry.verify(1e-9).unwrap();
        }
    }

    /// Bad tables are refused naming `table.key`.
    #[test]
    fn bad_tables_name_their_key() {
        let mut c = chains();
        c.dp_hmc.as_mut().unwrap().leapfrog = 0;
        let e = c.validate(1_000_000, 1e-6).unwrap_err();
        assert_eq!(e.key, "dp_hmc.leapfrog", "{e:?}");
        let mut c = chains();
        c.penalty.as_mut().unwrap().every = 5000;
        let e = c.validate(1_000_000, 1e-6).unwrap_err();
        assert_eq!(e.key, "penalty.every", "{e:?}");
        let mut c = chains();
        c.sgnht.as_mut().unwrap().batch = 2_000_000;
        let e = c.validate(1_000_000, 1e-6).unwrap_err();
        assert_eq!(e.key, "sgnht.batch", "{e:?}");
    }
}
