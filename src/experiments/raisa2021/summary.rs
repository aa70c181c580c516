//! The banana and Gaussian figures' rows and summary: the columns of data.csv and summary.csv, the summary over repeats, and the ledger.

use super::{
    Comparison, Conversion, Derivation, Deserialize, Entry, Event, Guarantee, Ledger, Method,
    Serialize, Table,
};

/// A row of `data.csv`: one method's run at one ε and repeat (the scores empty
/// where a chain diverged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    pub method: Method,
    pub epsilon: f64,
    pub repeat: usize,
    pub iterations_per_chain: u64,
    /// draws kept over the chains (the first half of each dropped)
    pub kept_draws: usize,
    /// MMD to the exact posterior's reference draws
    pub mmd: Option<f64>,
    /// ‖mean − exact mean‖
    pub mean_error: Option<f64>,
    /// max over coordinates of |variance / exact variance − 1|
    pub var_error: Option<f64>,
    /// the largest split-R̂
    pub rhat: Option<f64>,
    pub acceptance: Option<f64>,
    pub clipped_ratio_fraction: Option<f64>,
    pub clipped_grad_fraction: Option<f64>,
}

/// A row of `summary.csv`: one method at one ε, over the repeats whose chains
/// produced every score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub method: Method,
    pub epsilon: f64,
    pub iterations_per_chain: u64,
    /// the repeats kept
    pub runs: usize,
    pub mmd_mean: Option<f64>,
    pub mmd_se: Option<f64>,
    pub mmd_median: Option<f64>,
    pub mmd_q25: Option<f64>,
    pub mmd_q75: Option<f64>,
    /// the standard deviation of the MMD over the repeats kept: how consistent a
    /// method is (Räisä et al.'s "more consistent")
    pub mmd_sd: Option<f64>,
    /// the standard error of `mmd_sd` itself (`stats::sd_se`)
    pub mmd_sd_se: Option<f64>,
    pub mean_error_mean: Option<f64>,
    pub mean_error_se: Option<f64>,
    pub var_error_mean: Option<f64>,
    pub var_error_se: Option<f64>,
    pub rhat_mean: Option<f64>,
    pub rhat_se: Option<f64>,
    pub acceptance_mean: Option<f64>,
}

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
/// quartiles of the MMD, and its standard deviation with that s.d.'s s.e.
pub(super) fn summarize(
    data: &Table,
    methods: &[Method],
    epsilons: &[f64],
) -> anyhow::Result<Table> {
    let data: Vec<RunRow> = data.records()?;
    let mut rows = Vec::new();
    for &method in methods {
        for &eps in epsilons {
            let all: Vec<&RunRow> = data
                .iter()
                .filter(|r| r.method == method && r.epsilon == eps)
                .collect();
            let Some(first) = all.first() else {
                continue;
            };
            // the repeats whose chains produced every score (MMD, mean and variance
            // errors): a diverged chain's repeat is left out of every column, and
            // `runs` counts the repeats kept (a diverged DP-SGNHT chain had left
            // empty moments beside runs = 2)
            let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
            let here: Vec<&RunRow> = all
                .iter()
                .copied()
                .filter(|r| {
                    [r.mmd, r.mean_error, r.var_error]
                        .into_iter()
                        .all(|x| finite(x).is_some())
                })
                .collect();
            let values = |score: fn(&RunRow) -> Option<f64>| -> Vec<f64> {
                here.iter().filter_map(|r| finite(score(r))).collect()
            };
            let moments = |score: fn(&RunRow) -> Option<f64>| {
                let mut acc = crate::stats::Moments::default();
                values(score).into_iter().for_each(|x| acc.push(x));
                let cell = |x: f64| (acc.count > 0 && x.is_finite()).then_some(x);
                (cell(acc.mean), cell(acc.se()))
            };
            let mut mmd = values(|r| r.mmd);
            mmd.sort_by(f64::total_cmp);
            let q = |p: f64| Some(crate::stats::quantile(&mmd, p)).filter(|v| v.is_finite());
            let (mmd_mean, mmd_se) = moments(|r| r.mmd);
            let (sd, sd_se) = crate::stats::sd_se(&mmd);
            let finite_cell = |x: f64| x.is_finite().then_some(x);
            let (mean_error_mean, mean_error_se) = moments(|r| r.mean_error);
            let (var_error_mean, var_error_se) = moments(|r| r.var_error);
            let (rhat_mean, rhat_se) = moments(|r| r.rhat);
            rows.push(SummaryRow {
                method,
                epsilon: eps,
                iterations_per_chain: first.iterations_per_chain,
                runs: here.len(),
                mmd_mean,
                mmd_se,
                mmd_median: q(0.5),
                mmd_q25: q(0.25),
                mmd_q75: q(0.75),
                mmd_sd: finite_cell(sd),
                mmd_sd_se: finite_cell(sd_se),
                mean_error_mean,
                mean_error_se,
                var_error_mean,
                var_error_se,
                rhat_mean,
                rhat_se,
                acceptance_mean: moments(|r| r.acceptance).0,
            });
        }
    }
    Ok(Table::of_records(&rows))
}
