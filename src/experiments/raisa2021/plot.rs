//! The comparison figure: MMD, error of the mean, error of the variances and
//! split-R̂ against ε, one curve per method (mean ± s.e. over repeats), and the
//! MMD's median and interquartile range over repeats (the spread the authors'
//! box plots show).

use std::path::Path;

use super::{Method, SummaryRow};
use crate::plot::grid::PanelGrid;
use crate::plot::{render, summary, Band, DrawError};
use crate::results::table::Table;

const BANANA: &str = "Banana (d = 2), n = 10⁵, δ = 10⁻⁶; chains sharing each budget, first half dropped; against the exact posterior; mean ± s.e. over repeats, and the MMD's median and quartiles";
const GAUSS: &str = "Ill-conditioned Gaussian (d = 10), n = 10⁵, δ = 10⁻⁶; chains sharing each budget, first half dropped; against the exact posterior; mean ± s.e. over repeats, and the MMD's median and quartiles";

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

/// Where the median-and-quartiles panel goes: beside the MMD's mean ± s.e.
const BOX_PANEL: usize = 1;
const BOX_TITLE: &str = "MMD: median, 25–75 % of repeats";
const BOX_Y: &str = "MMD, median and quartiles";

/// Methods' points in the median-and-quartiles panel stand side by side at each
/// ε, this far apart (in ε, or in decades of ε on a log axis).
const DODGE: f64 = 0.22;
const DODGE_LOG: f64 = 0.012;

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
    let (boxes, quartiles) = box_panel(
        &rows,
        &methods,
        |e| (!log || e > 0.0).then(|| x_of(e)),
        if log { DODGE_LOG } else { DODGE },
    );
    panels.insert(BOX_PANEL, (BOX_TITLE.to_string(), boxes));
    let mut intervals = vec![Vec::new(); panels.len()];
    intervals[BOX_PANEL] = quartiles;
    let mut y_descs: Vec<String> = PANELS.iter().map(|p| p.2.to_string()).collect();
    y_descs.insert(BOX_PANEL, BOX_Y.to_string());
    Ok(PanelGrid {
        rows: 1,
        cols: panels.len(),
        panels,
        x_desc: if log { "ε (log scale)" } else { "ε" }.into(),
        y_desc: String::new(),
        order: methods.iter().map(|m| m.as_str().to_string()).collect(),
        x_log10: log,
        subtitle: Some(subtitle.into()),
        y_descs,
        shared_y: false,
        intervals,
    })
}

/// The MMD's median per method and ε with its quartiles as whisker ends, the
/// methods set `dodge` apart around each ε (`x_of`: the axis position of an ε,
/// None to leave it out).
fn box_panel(
    rows: &[SummaryRow],
    methods: &[Method],
    x_of: impl Fn(f64) -> Option<f64>,
    dodge: f64,
) -> (Vec<Band>, Vec<Vec<(f64, f64)>>) {
    let centre = (methods.len() as f64 - 1.0) / 2.0;
    methods
        .iter()
        .enumerate()
        .map(|(k, &method)| {
            let (pts, ends): (Vec<_>, Vec<_>) = rows
                .iter()
                .filter(|r| r.method == method)
                .filter_map(|r| {
                    let x = x_of(r.epsilon)? + (k as f64 - centre) * dodge;
                    let (m, lo, hi) = (r.mmd_median?, r.mmd_q25?, r.mmd_q75?);
                    [m, lo, hi]
                        .iter()
                        .all(|v| v.is_finite())
                        .then_some(((x, m, 0.0), (lo, hi)))
                })
                .unzip();
            ((method.as_str().to_string(), pts), ends)
        })
        .unzip()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(method: Method, epsilon: f64, q: Option<(f64, f64, f64)>) -> SummaryRow {
        SummaryRow {
            method,
            epsilon,
            iterations_per_chain: 1,
            runs: 10,
            mmd_mean: Some(0.3),
            mmd_se: Some(0.01),
            mmd_median: q.map(|q| q.1),
            mmd_q25: q.map(|q| q.0),
            mmd_q75: q.map(|q| q.2),
            mmd_sd: None,
            mmd_sd_se: None,
            mean_error_mean: None,
            mean_error_se: None,
            var_error_mean: None,
            var_error_se: None,
            rhat_mean: None,
            rhat_se: None,
            acceptance_mean: None,
        }
    }

    /// The median-and-quartiles panel draws each method's median with its
    /// quartiles as whisker ends (not symmetric), methods side by side around ε;
    /// a row without quartiles (every repeat diverged) is left out.
    #[test]
    fn the_box_panel_draws_medians_between_quartiles() {
        let rows = [
            row(Method::Penalty, 2.0, Some((0.2, 0.25, 0.4))),
            row(Method::DpHmc, 2.0, Some((0.1, 0.3, 0.35))),
            row(Method::DpHmc, 4.0, None),
        ];
        let (bands, ends) = box_panel(&rows, &[Method::Penalty, Method::DpHmc], Some, 0.2);
        assert_eq!(bands[0], ("penalty".to_string(), vec![(1.9, 0.25, 0.0)]));
        assert_eq!(bands[1], ("dp_hmc".to_string(), vec![(2.1, 0.3, 0.0)]));
        assert_eq!(ends, vec![vec![(0.2, 0.4)], vec![(0.1, 0.35)]]);
        let g = grid(&Table::of_records(&rows), "").unwrap();
        assert_eq!(g.panels.len(), PANELS.len() + 1);
        assert_eq!(g.panels[BOX_PANEL].0, BOX_TITLE);
        assert_eq!(g.intervals[BOX_PANEL][1], vec![(0.1, 0.35)]);
        assert!(g.intervals[0].is_empty());
        assert_eq!(g.y_descs.len(), g.panels.len());
    }
}
