//! The banana and Gaussian figures' rows and summary: the columns of data.csv and summary.csv, the summary over repeats, and the ledger.

use super::*;

/// Columns of `data.csv` (one row per method, ε and repeat).
pub const DATA: [&str; 12] = [
    "method",
    "epsilon",
    "repeat",
    "iterations_per_chain",
    "kept_draws",
    "mmd",
    "mean_error",
    "var_error",
    "rhat",
    "acceptance",
    "clipped_ratio_fraction",
    "clipped_grad_fraction",
];

/// Columns of `summary.csv` (one row per method and ε).
pub const SUMMARY: [&str; 16] = [
    "method",
    "epsilon",
    "iterations_per_chain",
    "runs",
    "mmd_mean",
    "mmd_se",
    "mmd_median",
    "mmd_q25",
    "mmd_q75",
    "mean_error_mean",
    "mean_error_se",
    "var_error_mean",
    "var_error_se",
    "rhat_mean",
    "rhat_se",
    "acceptance_mean",
];

pub(super) fn ledger(f: &Comparison) -> anyhow::Result<Ledger> {
    let c = &f.c;
    let n = c.n_data as usize;
    let mut out = Vec::new();
    for (mi, &m) in c.methods.iter().enumerate() {
        for (e, &eps) in c.epsilons.iter().enumerate() {
            let total = (f.iterations[mi][e] / c.chains) * c.chains;
            let series = format!("method={}, epsilon={eps}", m.as_str());
            let entry = match (m, c.sg(m)) {
                (_, Some(sg)) => {
                    let p = sg.privacy(n);
                    let spent = c
                        .sgld_account(p.q(), p.dominating_sigma(), total)
                        .entry(series, Conversion::Improved)?;
                    spent.when("a fixed-size batch without replacement under substitution, stated by its dominating Poisson pair with σ = s/(2C) (privacy::sg_mcmc)")
                }
                (Method::Penalty, None) => {
                    gaussian_entry(series, total, c.penalty().event(n), c.delta)
                }
                (_, None) => gaussian_entry(series, total, c.hmc().event(n), c.delta),
            };
            out.push(entry);
        }
    }
    Ok(out)
}

/// T iterations of a Gaussian-composition event at its tight (ε, δ).
pub(super) fn gaussian_entry(series: String, total: u64, step: Event, delta: f64) -> Entry {
    let event = Event::repeat(total, step);
    let epsilon = crate::privacy::gaussian_pld::event_mu(&event)
        .map(|mu| crate::privacy::gaussian_pld::epsilon(delta, mu))
        .unwrap_or(f64::INFINITY);
    Entry::new(
        series,
        event,
        Guarantee::ApproxDp {
            epsilon,
            delta,
            conversion: Derivation::Pld,
            order: None,
        },
    )
}

/// Per (method, ε): mean and s.e. of each score over repeats, the median and
/// quartiles of the MMD.
pub(super) fn summarize(
    data: &Table,
    methods: &[Method],
    epsilons: &[f64],
) -> anyhow::Result<Table> {
    let col = |n: &str| data.col(n);
    let (m, e, it) = (
        col("method")?,
        col("epsilon")?,
        col("iterations_per_chain")?,
    );
    let score_cols = ["mmd", "mean_error", "var_error", "rhat", "acceptance"]
        .map(col)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();
    for method in methods {
        for &eps in epsilons {
            let all: Vec<usize> = (0..data.rows.len())
                .filter(|&i| data.s(i, m) == method.as_str() && data.f(i, e) == eps)
                .collect();
            let Some(&first) = all.first() else {
                continue;
            };
            // the repeats whose chains produced every score (MMD, mean and variance
            // errors): a diverged chain's repeat is left out of every column, and
            // `runs` counts the repeats kept (a diverged DP-SGNHT chain had left
            // empty moments beside runs = 2)
            let here: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| score_cols[..3].iter().all(|&c| data.f(i, c).is_finite()))
                .collect();
            let values = |c: usize| -> Vec<f64> {
                here.iter()
                    .map(|&i| data.f(i, c))
                    .filter(|x| x.is_finite())
                    .collect()
            };
            let moments = |c: usize| -> (Cell, Cell) {
                let mut acc = crate::stats::Moments::default();
                values(c).into_iter().for_each(|x| acc.push(x));
                let cell = |x: f64| {
                    if acc.count > 0 && x.is_finite() {
                        Cell::from(x)
                    } else {
                        Cell::Empty
                    }
                };
                (cell(acc.mean), cell(acc.se()))
            };
            let mut mmd = values(score_cols[0]);
            mmd.sort_by(f64::total_cmp);
            let q = |p: f64| {
                let v = crate::stats::quantile(&mmd, p);
                if v.is_finite() {
                    Cell::from(v)
                } else {
                    Cell::Empty
                }
            };
            let (mmd_mean, mmd_se) = moments(score_cols[0]);
            let (me, me_se) = moments(score_cols[1]);
            let (ve, ve_se) = moments(score_cols[2]);
            let (rh, rh_se) = moments(score_cols[3]);
            let (acc, _) = moments(score_cols[4]);
            rows.push(vec![
                method.as_str().into(),
                eps.into(),
                (data.f(first, it) as u64).into(),
                here.len().into(),
                mmd_mean,
                mmd_se,
                q(0.5),
                q(0.25),
                q(0.75),
                me,
                me_se,
                ve,
                ve_se,
                rh,
                rh_se,
                acc,
            ]);
        }
    }
    Ok(Table::new(&SUMMARY, rows))
}
