//! The calibration figure: one panel per (n, ε), the coverage deviation
//! ĉ(γ) − γ of each method against the nominal level γ, with the simultaneous
//! 95 % band of a calibrated posterior drawn as error bars around 0.

use std::path::Path;

use crate::plot::grid::PanelGrid;
use serde::Deserialize;

use super::cells::MultiKey;
use crate::plot::{read_checked, render, tick, Band, DrawError};
use crate::results::table::Table;

/// The band's series name (drawn in the house style's colour for unknown names).
pub const BAND: &str = "calibrated_95_band";

/// Subtitle of the Beta-Bernoulli figure.
const BETA: &str = "Beta-Bernoulli, θ* from the prior; coverage of central γ-intervals minus γ: 0 = calibrated, below 0 = overconfident; bars at 0: simultaneous 95 % band (DKW)";

/// Subtitle of the Dirichlet figure (its TARP rows).
const DIRICHLET: &str = "Dirichlet-Categorical (K = 3), θ* and the reference θ_r from the prior; TARP expected coverage of balls around θ_r minus γ: 0 = calibrated; an overconfident posterior puts f near 0 or 1 (above 0 at small γ), a too-wide one near ½; bars at 0: simultaneous 95 % band (DKW)";

/// Subtitle of the logistic-regression figure (its TARP rows).
const LOGISTIC: &str = "Logistic regression (d = 3), w* and the reference w_r from the prior N(0, I); the law one private draw comes from, by L independent chains of the figures' sampler; TARP expected coverage minus γ: 0 = calibrated; overconfident puts f near 0 or 1, too wide near ½; bars at 0: simultaneous 95 % band (DKW)";

/// `calibration/beta_bernoulli`: every row of `coverage.csv`.
pub fn draw(dir: &Path) -> Result<(), DrawError> {
    let t = read_checked(&dir.join("coverage.csv"))?;
    render(&grid(&points(&t)?, BETA), dir)
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

/// Subtitle of the data-augmentation models' figure (its TARP rows).
const DA_MODELS: &str = "Ju et al.'s naive-Bayes model and linear regression, θ* and the reference θ_r from the prior, a Laplace release of the statistic; TARP expected coverage minus γ of the data-augmentation MCMC posterior and of the naive one: 0 = calibrated; overconfident puts f near 0 or 1, too wide near ½; bars at 0: simultaneous 95 % band (DKW)";

/// `calibration/da_models`: the TARP rows of both models, a row of panels per (model, n).
pub fn draw_da_models(dir: &Path) -> Result<(), DrawError> {
    let t = read_checked(&dir.join("coverage.csv"))?;
    let keys: Vec<MultiKey> = t.records().map_err(|e| DrawError(e.0))?;
    let (points, models): (Vec<Point>, Vec<String>) = points(&t)?
        .into_iter()
        .zip(keys)
        .filter_map(|(p, k)| match k.quantity.as_str() {
            "tarp_naive_bayes" => Some((p, "naive Bayes, ".to_string())),
            "tarp_regression" => Some((p, "regression, ".to_string())),
            _ => None,
        })
        .unzip();
    render(&grid_by(&points, &models, DA_MODELS), dir)
}

/// The TARP rows of `coverage.csv` (the per-coordinate rows are in the CSVs).
fn draw_tarp(dir: &Path, subtitle: &str) -> Result<(), DrawError> {
    let t = read_checked(&dir.join("coverage.csv"))?;
    let keys: Vec<MultiKey> = t.records().map_err(|e| DrawError(e.0))?;
    let points = points(&t)?
        .into_iter()
        .zip(keys)
        .filter(|(_, k)| k.quantity == "tarp")
        .map(|(p, _)| p)
        .collect::<Vec<_>>();
    render(&grid(&points, subtitle), dir)
}

/// What the figure reads of a row of `coverage.csv` (either figure's).
#[derive(Deserialize)]
struct Point {
    method: String,
    epsilon: f64,
    n: u64,
    level: f64,
    deviation: f64,
    simultaneous_band: f64,
}

fn points(t: &Table) -> Result<Vec<Point>, DrawError> {
    t.records().map_err(|e| DrawError(e.0))
}

/// The distinct values of `key` over `points`, in order of appearance.
fn distinct_by<T: PartialEq>(points: &[Point], key: impl Fn(&Point) -> T) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for p in points {
        let v = key(p);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

fn grid(points: &[Point], subtitle: &str) -> PanelGrid {
    grid_by(points, &vec![String::new(); points.len()], subtitle)
}

/// Panels in rows of (prefix, n) and columns of ε, `prefixes[i]` the prefix of
/// `points[i]`; a panel's title starts with its prefix.
fn grid_by(points: &[Point], prefixes: &[String], subtitle: &str) -> PanelGrid {
    let methods = distinct_by(points, |p| p.method.clone());
    let eps = distinct_by(points, |p| p.epsilon);
    let mut ns: Vec<(&str, u64)> = Vec::new();
    for (p, pre) in points.iter().zip(prefixes) {
        if !ns.contains(&(pre.as_str(), p.n)) {
            ns.push((pre.as_str(), p.n));
        }
    }
    let mut panels = Vec::new();
    for &(pre, nv) in &ns {
        for &ev in &eps {
            let here: Vec<&Point> = points
                .iter()
                .zip(prefixes)
                .filter(|(p, q)| p.n == nv && p.epsilon == ev && q.as_str() == pre)
                .map(|(p, _)| p)
                .collect();
            let mut bands: Vec<Band> = methods
                .iter()
                .map(|name| {
                    let pts = here
                        .iter()
                        .filter(|p| p.method == *name)
                        .map(|p| (p.level, p.deviation, 0.0))
                        .collect();
                    (name.clone(), pts)
                })
                .collect();
            // the band is the same for every method of a panel (it depends on R)
            let first = methods.first().cloned().unwrap_or_default();
            let band_pts = here
                .iter()
                .filter(|p| p.method == first)
                .map(|p| (p.level, 0.0, p.simultaneous_band))
                .collect();
            bands.insert(0, (BAND.to_string(), band_pts));
            panels.push((format!("{pre}n = {nv}, ε = {}", tick(&ev)), bands));
        }
    }
    let mut order = vec![BAND.to_string()];
    order.extend(methods);
    PanelGrid {
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
        intervals: Vec::new(),
    }
}
