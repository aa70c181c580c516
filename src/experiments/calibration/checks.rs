//! The Beta-Bernoulli calibration config's checks and what they derive: the methods, credible levels, SBC draws and bins, the Gibbs settings, the exponential mechanism's spaces, Geumlek's coefficients and the releases per ε.

use super::{
    check, counts_noise, distinct, Algorithm, BetaDist, CountNoise, GeumlekProblem, GibbsSettings,
    HellingerVariant, Method, Ops, ParamError, Releases, Space, Verified,
};
use crate::privacy::event::NoiseMode;

/// Largest n of the smoothed-Hellinger method (its smooth sensitivity scans
/// the n + 1 candidates for each replication).
pub(super) const MAX_HELLINGER_N: u64 = 10_000;

/// The two-category candidate spaces of Bun et al.'s mechanism, per n.
pub(super) fn hellinger_spaces(
    prior: &BetaDist,
    n_values: &[u64],
) -> Result<Vec<Space>, ParamError> {
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
pub(super) fn geumlek_coefficients(
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

pub(super) fn releases(noise: NoiseMode, epsilon: f64, a0: f64) -> Result<Releases, ParamError> {
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

pub(super) fn methods(names: &[String]) -> Result<Vec<Method>, ParamError> {
    parse_methods(
        names,
        &Method::ALL.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
        Method::parse,
    )
}

/// The methods named in `names`, each once, each one of `allowed`.
pub(super) fn parse_methods<M: PartialEq>(
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
pub(super) fn check_levels(levels: &[f64]) -> Result<(), ParamError> {
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
pub(super) fn check_sbc(draws: u64, bins: u64) -> Result<(usize, usize), ParamError> {
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
pub(super) fn check_gibbs(
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

/// The data-augmentation arm's (warm-up, kept) sweeps; when it runs it must keep
/// at least L draws.
pub(super) fn check_da(
    warmup: u64,
    draws: u64,
    sbc_draws: usize,
    runs: bool,
) -> Result<(usize, usize), ParamError> {
    let warmup = check::points("da_warmup", warmup, 0)?;
    let draws = check::points("da_draws", draws, 1)?;
    if runs && draws < sbc_draws {
        return Err(ParamError::new(
            "da_draws",
            draws.to_string(),
            format!(
                "at least sbc_draws = {sbc_draws} (the SBC rank thins the kept draws to sbc_draws)"
            ),
        ));
    }
    Ok((warmup, draws))
}

/// The default sweeps of the data-augmentation arm (a config may leave them out).
pub(super) fn default_da_warmup() -> u64 {
    200
}

pub(super) fn default_da_draws() -> u64 {
    500
}
