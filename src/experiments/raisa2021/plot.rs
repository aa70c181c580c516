//! The comparison figure: MMD, error of the mean, error of the variances and
//! split-R̂ against ε, one curve per method (mean ± s.e. over repeats).

use std::path::Path;

use super::{Method, SummaryRow};
use crate::plot::grid::PanelGrid;
use crate::plot::{render, summary, Band, DrawError};
use crate::results::table::Table;

const BANANA: &str = "Banana (d = 2), n = 10⁵, δ = 10⁻⁶; chains sharing each budget, first half dropped; against the exact posterior; mean ± s.e. over repeats";
const GAUSS: &str = "Ill-conditioned Gaussian (d = 10), n = 10⁵, δ = 10⁻⁶; chains sharing each budget, first half dropped; against the exact posterior; mean ± s.e. over repeats";

/// A panel's score: its mean and s.e. in a summary row.
type Score = fn(&SummaryRow) -> (Option<f64>, Option<f64>);

/// The four score panels: (the score, panel title, its y label: the metric it
/// shows).
const PANELS: [(Score, &str, &str); 4] = [
    (
        |r| (r.mmd_mean, r.mmd_se),
        "MMD to exact draws",
        "MMD (Gaussian kernel), mean ± s.e.",
    ),
    (
        |r| (r.mean_error_mean, r.mean_error_se),
        "‖mean − exact mean‖",
        "‖mean − exact‖, mean ± s.e.",
    ),
    (
        |r| (r.var_error_mean, r.var_error_se),
        "max |variance ratio − 1|",
        "max |var. ratio − 1|, mean ± s.e.",
    ),
    (
        |r| (r.rhat_mean, r.rhat_se),
        "split-R̂ (largest)",
        "largest split-R̂, mean ± s.e.",
    ),
];

/// The panel whose values are capped at [`RHAT_SHOWN`].
const RHAT_PANEL: usize = 3;

/// The largest split-R̂ drawn: a larger one (chains that did not move give 10¹⁶ or
/// ∞; 1.01 is the usual threshold) is drawn at this value, and the panel says so.
const RHAT_SHOWN: f64 = 10.0;

/// Positive ε values spanning a decade or more (this ratio) are drawn on a log axis.
const DECADES_FOR_LOG: f64 = 10.0;

pub fn banana(dir: &Path) -> Result<(), DrawError> {
    render(&grid(&summary(dir)?, BANANA)?, dir)
}

pub fn gauss(dir: &Path) -> Result<(), DrawError> {
    render(&grid(&summary(dir)?, GAUSS)?, dir)
}

fn grid(t: &Table, subtitle: &str) -> Result<PanelGrid, DrawError> {
    let rows: Vec<SummaryRow> = t.records().map_err(|e| DrawError(e.0))?;
    let mut methods: Vec<Method> = Vec::new();
    for r in &rows {
        if !methods.contains(&r.method) {
            methods.push(r.method);
        }
    }
    let eps: Vec<f64> = rows
        .iter()
        .map(|r| r.epsilon)
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    let (lo, hi) = eps
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    let log = hi / lo >= DECADES_FOR_LOG;
    let x_of = |x: f64| if log { x.log10() } else { x };
    let mut panels = Vec::new();
    for (k, (score, title, _)) in PANELS.into_iter().enumerate() {
        // R̂ of chains that did not move can be 10¹⁶ or ∞: drawn at the cap
        let cap = if k == RHAT_PANEL {
            RHAT_SHOWN
        } else {
            f64::INFINITY
        };
        let mut capped = false;
        let bands: Vec<Band> = methods
            .iter()
            .map(|&method| {
                let pts = rows
                    .iter()
                    .filter(|r| r.method == method)
                    .filter(|r| !log || r.epsilon > 0.0)
                    .filter_map(|r| {
                        let (mean, se) = score(r);
                        Some((r.epsilon, mean?, se.unwrap_or(f64::NAN)))
                    })
                    .filter(|&(_, y, _)| !y.is_nan() && (y.is_finite() || cap.is_finite()))
                    .map(|(e, y, s)| {
                        if y > cap {
                            capped = true;
                            (x_of(e), cap, 0.0)
                        } else {
                            (x_of(e), y, if s.is_finite() { s.max(0.0) } else { 0.0 })
                        }
                    })
                    .collect();
                (method.as_str().to_string(), pts)
            })
            .collect();
        let title = if capped {
            format!("{title}; above {RHAT_SHOWN}: drawn at {RHAT_SHOWN}")
        } else {
            title.to_string()
        };
        panels.push((title, bands));
    }
    Ok(PanelGrid {
        rows: 1,
        cols: PANELS.len(),
        panels,
        x_desc: if log { "ε (log scale)" } else { "ε" }.into(),
        y_desc: String::new(),
        order: methods.iter().map(|m| m.as_str().to_string()).collect(),
        x_log10: log,
        subtitle: Some(subtitle.into()),
        y_descs: PANELS.iter().map(|p| p.2.to_string()).collect(),
        shared_y: false,
    })
}

/// `raisa2021/gmm`: heikkila2019 Fig. 3's panels with Räisä's samplers, and a
/// second row with those samplers alone on their own ε range (they spend a narrow
/// band of ε beside DP-MCMC's); a row's ε on a log axis when it spans a decade.
pub fn gmm(dir: &Path) -> Result<(), DrawError> {
    crate::plot::render_headed(
        crate::experiments::heikkila2019::plot::Fig3::from_summary(&summary(dir)?)?
            .for_gmm(&["penalty", "dp_hmc", "dp_sgnht"]),
        dir,
        None,
        None,
    )
}
