//! The comparison figure: MMD, error of the mean, error of the variances and
//! split-R̂ against ε, one curve per method (mean ± s.e. over repeats).

use std::path::Path;

use crate::plot::grid::PanelGrid;
use crate::plot::{distinct, render, summary, Band, DrawError};
use crate::results::table::Table;

const BANANA: &str = "Banana (d = 2), n = 10⁵, δ = 10⁻⁶; chains sharing each budget, first half dropped; against the exact posterior; mean ± s.e. over repeats";
const GAUSS: &str = "Ill-conditioned Gaussian (d = 10), n = 10⁵, δ = 10⁻⁶; chains sharing each budget, first half dropped; against the exact posterior; mean ± s.e. over repeats";

/// The four score panels: (summary column stem, panel title).
const PANELS: [(&str, &str); 4] = [
    ("mmd", "MMD to exact draws"),
    ("mean_error", "‖mean − exact mean‖"),
    ("var_error", "max |variance ratio − 1|"),
    ("rhat", "split-R̂ (largest)"),
];

pub fn banana(dir: &Path) -> Result<(), DrawError> {
    render(&grid(&summary(dir)?, BANANA)?, dir)
}

pub fn gauss(dir: &Path) -> Result<(), DrawError> {
    render(&grid(&summary(dir)?, GAUSS)?, dir)
}

fn grid(t: &Table, subtitle: &str) -> Result<PanelGrid, DrawError> {
    let (m, e) = (t.col("method")?, t.col("epsilon")?);
    let methods = distinct(t, m);
    let mut panels = Vec::new();
    for (stem, title) in PANELS {
        let (mean, se) = (
            t.col(&format!("{stem}_mean"))?,
            t.col(&format!("{stem}_se"))?,
        );
        let bands: Vec<Band> = methods
            .iter()
            .map(|name| {
                let pts = (0..t.rows.len())
                    .filter(|&i| t.s(i, m) == *name && t.f(i, mean).is_finite())
                    .map(|i| (t.f(i, e), t.f(i, mean), t.f(i, se).max(0.0)))
                    .collect();
                (name.clone(), pts)
            })
            .collect();
        panels.push((title.to_string(), bands));
    }
    Ok(PanelGrid {
        rows: 1,
        cols: PANELS.len(),
        panels,
        x_desc: "ε".into(),
        y_desc: "score".into(),
        order: methods,
        x_log10: false,
        subtitle: Some(subtitle.into()),
    })
}
