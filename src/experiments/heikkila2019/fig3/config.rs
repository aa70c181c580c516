//! Fig. 3's config, checked once, and the plan it validates into (the data, the DPVI start, the tasks of the chains and the added chains of raisa2021/gmm through `ExtraChains`).

use super::budgets::{tight_sgld_curve, MAX_TIGHT_POINTS};
use super::params::Fig3Config;
use super::{
    check, deserialize, generate, setup_rng, BarkerAccount, Conversion, Deferred, ExtraChains,
    Fig3, Fig3Task, Figure, NoExtraChains, ParamError, Plan, PrivateTest, Purpose, SgldAccount,
};
use crate::experiments::heikkila2019::account_error;
use crate::experiments::heikkila2019::check_alpha_max;
use crate::experiments::heikkila2019::check_proposal;
use crate::experiments::heikkila2019::check_start;
use crate::experiments::heikkila2019::private_test;
use crate::experiments::heikkila2019::resolve_start;

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG3_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig3Config>;

impl Fig3Config {
    /// DP-SGLD runs per variant: `sgld_runs`, or `runs` when unset.
    pub(super) fn sgld_runs(&self) -> u64 {
        self.sgld_runs.unwrap_or(self.runs)
    }

    /// The DP-MCMC checkpoints: the burn-in plus every `mcmc_every` iterations.
    pub(super) fn mcmc_checkpoints(&self) -> Vec<u64> {
        (1..=(self.mcmc_iterations - self.mcmc_burn_in) / self.mcmc_every)
            .map(|k| self.mcmc_burn_in + k * self.mcmc_every)
            .collect()
    }

    /// The DP-SGLD checkpoints: the burn-in plus every `sgld_every` steps.
    pub(super) fn sgld_checkpoints(&self) -> Vec<u64> {
        (1..=(self.sgld_iterations - self.sgld_burn_in) / self.sgld_every)
            .map(|k| self.sgld_burn_in + k * self.sgld_every)
            .collect()
    }

    /// The DP-MCMC chain's accounting question (T given per call).
    pub(super) fn mcmc_account(&self) -> BarkerAccount {
        BarkerAccount {
            n_data: self.n_data,
            batch: self.batch,
            iterations: 0,
            delta: self.delta_mcmc,
            alpha_max: self.alpha_max_mcmc,
        }
    }

    /// The published DP-SGLD's accounting question (T given per call).
    pub(super) fn sgld_account(&self) -> SgldAccount {
        let sgld = crate::dpmcmc::sgld::Sgld::paper(crate::dpmcmc::sgld::Noise::Published);
        SgldAccount {
            q: sgld.batch as f64 / self.n_data as f64,
            sigma: sgld.noise_multiplier(self.n_data as usize),
            iterations: 0,
            delta: self.delta_sgld,
            alpha_max: self.alpha_max_sgld,
        }
    }
}

pub fn validate_fig3(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    validate_with(params, seed, Box::new(NoExtraChains))
}

/// Fig. 3 with chains another figure adds ([`ExtraChains`]).
pub fn validate_with(
    params: &toml::Table,
    seed: u64,
    extra: Box<dyn ExtraChains>,
) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig3Config = deserialize(params)?;
    check::positive("n0", c.n0)?;
    check_proposal("proposal_variance", c.proposal_variance)?;
    check::at_least("runs", c.runs, 1)?;
    check::at_least("sgld_runs", c.sgld_runs(), 1)?;
    check::at_least("mcmc_every", c.mcmc_every, 1)?;
    check::at_least("sgld_every", c.sgld_every, 1)?;
    check::at_least("reference_iterations", c.reference_iterations, 2)?;
    for (method, burn_in, iterations) in [
        ("mcmc", c.mcmc_burn_in, c.mcmc_iterations),
        ("sgld", c.sgld_burn_in, c.sgld_iterations),
    ] {
        if burn_in >= iterations {
            return Err(ParamError::new(
                format!("{method}_burn_in"),
                format!(
                    "{method}_burn_in = {burn_in} is not below {method}_iterations = {iterations}"
                ),
                format!("{method}_burn_in < {method}_iterations"),
            ));
        }
    }
    let test = private_test(["batch", "n_data"], c.n_data, c.batch, c.n0, c.clip_factor)?;
    check_start(&c.start)?;
    // each tight checkpoint costs a privacy-loss-distribution evaluation (seconds)
    if c.sgld_tight_points > MAX_TIGHT_POINTS {
        return Err(ParamError::new(
            "sgld_tight_points",
            format!("{}", c.sgld_tight_points),
            format!("0 to {MAX_TIGHT_POINTS} checkpoints (each a tight-accountant evaluation of about a second)"),
        ));
    }
    // δ below 1e-20 is beyond what the tight accountant resolves (it fails, after
    // seconds of work at 1e-300); both chains' δ share the floor
    for (key, delta) in [("delta_mcmc", c.delta_mcmc), ("delta_sgld", c.delta_sgld)] {
        check::within(
            key,
            delta,
            1e-20,
            0.5,
            "no accountant here resolves a smaller δ; a larger one guarantees nothing",
        )?;
    }
    // the accounting questions, before any data is made (cheap: one count each)
    check_alpha_max("alpha_max_mcmc", c.alpha_max_mcmc, 4)?;
    check_alpha_max("alpha_max_sgld", c.alpha_max_sgld, 2)?;
    c.mcmc_account()
        .curve(&[c.mcmc_iterations], Conversion::Classic)
        .map_err(|e| account_error(e, "_mcmc"))?;
    c.sgld_account()
        .curve(&[c.sgld_iterations], Conversion::Classic)
        .map_err(|e| account_error(e, "_sgld"))?;
    // the tight accountant at the last checkpoint (the largest T, where it fails first)
    if c.sgld_tight_points > 0 {
        let last =
            c.sgld_burn_in + (c.sgld_iterations - c.sgld_burn_in) / c.sgld_every * c.sgld_every;
        tight_sgld_curve(&c, &[last])?;
    }
    extra.validate(c.n_data, c.delta_mcmc)?;
    let added_names: String = extra.names().iter().map(|m| format!(" + {m}")).collect();
    let description = format!(
        "reference chain + {} runs × (DP-MCMC of {} iterations{added_names}) + {} runs × {} DP-SGLD variants of {} steps = {} tasks (data and start made at run time)",
        c.runs,
        c.mcmc_iterations,
        c.sgld_runs(),
        c.sgld_variants.len(),
        c.sgld_iterations,
        1 + c.runs * (1 + extra.names().len() as u64)
            + c.sgld_runs() * c.sgld_variants.len() as u64
    );
    Ok(Box::new(Deferred {
        description,
        config: (c, seed, test, extra),
        prepare: |(c, seed, test, extra)| prepare_fig3(c, seed, test, extra),
    }))
}

/// Generates the data, fits the start and accounts every checkpoint.
pub(super) fn prepare_fig3(
    c: Fig3Config,
    seed: u64,
    test: PrivateTest,
    extra: Box<dyn ExtraChains>,
) -> Result<Box<dyn Figure>, ParamError> {
    let data = crate::numeric::pages::HugePageSlice::new(&generate(
        c.n_data as usize,
        &mut setup_rng(seed, Purpose::SharedData),
    ));
    let start = resolve_start(&c.start, &data, seed)?;
    // ε after the burn-in plus t recorded iterations, at every checkpoint (plus DPVI's, composed)
    let mcmc_eps = c
        .mcmc_account()
        .curve(&c.mcmc_checkpoints(), Conversion::Classic)
        .map_err(|e| account_error(e, "_mcmc"))?
        .iter()
        .map(|s| s.epsilon + start.dpvi_epsilon())
        .collect();
    let sgld_t = c.sgld_checkpoints();
    let sgld_eps = c
        .sgld_account()
        .curve(&sgld_t, Conversion::Classic)
        .map_err(|e| account_error(e, "_sgld"))?
        .iter()
        .map(|s| s.epsilon)
        .collect();
    let sgld_tight = tight_sgld_curve(&c, &sgld_t)?;
    let mut tasks = vec![Fig3Task::Reference];
    tasks.extend((0..c.runs).map(|run| Fig3Task::Mcmc { run }));
    for &noise in &c.sgld_variants {
        tasks.extend((0..c.sgld_runs()).map(|run| Fig3Task::Sgld { noise, run }));
    }
    let mut extra_eps = Vec::new();
    for k in 0..extra.names().len() {
        tasks.extend((0..c.runs).map(|run| Fig3Task::Extra { k, run }));
        let eps = extra.epsilons(k, c.n_data, c.delta_mcmc)?;
        extra_eps.push(eps.iter().map(|e| e + start.dpvi_epsilon()).collect());
    }
    let exact = crate::dpmcmc::gmm::exact_posterior(&data, c.n0, 0.01, 161);
    Ok(Box::new(Fig3 {
        extra,
        extra_eps,
        test,
        proposal_sd: c.proposal_variance.sqrt(),
        start,
        data,
        tasks,
        exact,
        mcmc_eps,
        sgld_eps,
        sgld_tight,
        c,
    }))
}
