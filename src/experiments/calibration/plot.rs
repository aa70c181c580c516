//! The calibration figure: one panel per (n, ε), the coverage deviation
//! ĉ(γ) − γ of each method against the nominal level γ, with the simultaneous
//! 95 % band of a calibrated posterior drawn as error bars around 0.

use std::path::Path;

use crate::plot::grid::PanelGrid;
use crate::plot::{distinct, read_checked, render, tick, Band, DrawError};
use crate::results::table::Table;

/// The band's series name (drawn in the house style's colour for unknown names).
pub const BAND: &str = "calibrated_95_band";

/// Subtitle of the Beta-Bernoulli figure.
const BETA: &str = "Beta-Bernoulli, θ* from the prior; coverage of central γ-intervals minus γ: 0 = calibrated, below 0 = overconfident; bars at 0: simultaneous 95 % band (DKW)";

/// Subtitle of the Dirichlet figure (its TARP rows).
const DIRICHLET: &str = "Dirichlet-Categorical (K = 3), θ* and the reference θ_r from the prior; TARP expected coverage of balls around θ_r minus γ: 0 = calibrated; an overconfident posterior puts f near 0 or 1 (above 0 at small γ), a too-wide one near ½; bars at 0: simultaneous 95 % band (DKW)";

/// Subtitle of the logistic-regression figure (its TARP rows).
const LOGISTIC: &str = "Logistic regression (d = 3), w* and the reference w_r from the prior N(0, I); the law one private draw comes from, by L independent HMC chains; TARP expected coverage minus γ: 0 = calibrated; overconfident puts f near 0 or 1, too wide near ½; bars at 0: simultaneous 95 % band (DKW)";

/// `calibration/beta_bernoulli`: every row of `coverage.csv`.
pub fn draw(dir: &Path) -> Result<(), DrawError> {
    let t = read_checked(&dir.join("coverage.csv"))?;
    render(&grid(&t, BETA)?, dir)
}

/// `calibration/dirichlet`: the TARP rows of `coverage.csv` (the per-coordinate
/// rows are in the CSVs).
pub fn draw_dirichlet(dir: &Path) -> Result<(), DrawError> {
    draw_tarp(dir, DIRICHLET)
}

/// `calibration/logistic`: the TARP rows of `coverage.csv`.
pub fn draw_logistic(dir: &Path) -> Result<(), DrawError> {
    draw_tarp(dir, LOGISTIC)
}

/// The TARP rows of `coverage.csv` (the per-coordinate rows are in the CSVs).
fn draw_tarp(dir: &Path, subtitle: &str) -> Result<(), DrawError> {
    let mut t = read_checked(&dir.join("coverage.csv"))?;
    let q = t.col("quantity")?;
    t.rows.retain(|r| r[q].as_str() == "tarp");
    render(&grid(&t, subtitle)?, dir)
}

fn grid(t: &Table, subtitle: &str) -> Result<PanelGrid, DrawError> {
    let (m, e, n, level, dev, band) = (
        t.col("method")?,
        t.col("epsilon")?,
        t.col("n")?,
        t.col("level")?,
        t.col("deviation")?,
        t.col("simultaneous_band")?,
    );
    let methods = distinct(t, m);
    let (eps, ns) = (distinct(t, e), distinct(t, n));
    let mut panels = Vec::new();
    for nv in &ns {
        for ev in &eps {
            let here = |i: &usize| t.s(*i, n) == *nv && t.s(*i, e) == *ev;
            let mut bands: Vec<Band> = methods
                .iter()
                .map(|name| {
                    let pts = (0..t.rows.len())
                        .filter(|i| here(i) && t.s(*i, m) == *name)
                        .map(|i| (t.f(i, level), t.f(i, dev), 0.0))
                        .collect();
                    (name.clone(), pts)
                })
                .collect();
            // the band is the same for every method of a panel (it depends on R)
            let first = methods.first().cloned().unwrap_or_default();
            let band_pts = (0..t.rows.len())
                .filter(|i| here(i) && t.s(*i, m) == first)
                .map(|i| (t.f(i, level), 0.0, t.f(i, band)))
                .collect();
            bands.insert(0, (BAND.to_string(), band_pts));
            let eps_value: f64 = ev.parse().unwrap_or(f64::NAN);
            panels.push((format!("n = {nv}, ε = {}", tick(&eps_value)), bands));
        }
    }
    let mut order = vec![BAND.to_string()];
    order.extend(methods);
    Ok(PanelGrid {
        rows: ns.len(),
        cols: eps.len(),
        panels,
        x_desc: "credible level γ".into(),
        y_desc: "coverage − γ".into(),
        order,
        x_log10: false,
        subtitle: Some(subtitle.into()),
        y_descs: Vec::new(),
        shared_y: true,
    })
}
