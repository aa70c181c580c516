//! Foulds et al. §5 figures: state assignments per region over time (Fig. 3) and
//! per-state emission distributions (Figs. 4–5).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{distinct, Draw, DrawError, PALETTE};
use crate::runner::table::Table;

/// (month, modal state, true state) of one cell.
pub type StateCell = (usize, usize, usize);

/// Per region: its name and cells.
pub struct States {
    pub regions: Vec<(String, Vec<StateCell>)>,
    pub states: usize,
}

pub fn states(t: &Table) -> Result<States, DrawError> {
    let (name, month, modal, truth) = (
        t.col("region_name")?,
        t.col("month")?,
        t.col("modal_state")?,
        t.col("true_state")?,
    );
    let mut states = 0;
    let regions = distinct(t, name)
        .into_iter()
        .map(|n| {
            let cells: Vec<StateCell> = (0..t.rows.len())
                .filter(|&i| t.s(i, name) == n)
                .map(|i| {
                    (
                        t.f(i, month) as usize,
                        t.f(i, modal) as usize,
                        t.f(i, truth) as usize,
                    )
                })
                .collect();
            for c in &cells {
                states = states.max(c.1 + 1).max(c.2 + 1);
            }
            (n, cells)
        })
        .collect();
    Ok(States { regions, states })
}

impl Draw for States {
    fn size(&self) -> (u32, u32) {
        (1200, 120 + 90 * self.regions.len() as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let months = self
            .regions
            .iter()
            .flat_map(|r| r.1.iter().map(|c| c.0 + 1))
            .max()
            .unwrap_or(1);
        let rows = self.regions.len() as f64;
        let mut chart = ChartBuilder::on(root)
            .caption(
                "State per region and month: modal over post-burn-in sweeps (upper strip) vs planted truth (lower)",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(10)
            .build_cartesian_2d(0.0..months as f64, 0.0..rows)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .disable_y_axis()
            .x_desc("month (0 = January 2004)")
            .x_label_formatter(&|x: &f64| format!("{x:.0}"))
            .label_style(("sans-serif", 14))
            .draw()?;
        for (r, (name, cells)) in self.regions.iter().enumerate() {
            let top = rows - r as f64;
            chart.draw_series(std::iter::once(Text::new(
                name.clone(),
                (0.2, top - 0.9),
                ("sans-serif", 13).into_font().color(&BLACK),
            )))?;
            for &(m, modal, truth) in cells {
                let x = m as f64;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x, top - 0.05), (x + 1.0, top - 0.5)],
                    PALETTE[modal % PALETTE.len()].filled(),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x, top - 0.55), (x + 1.0, top - 0.8)],
                    PALETTE[truth % PALETTE.len()].mix(0.6).filled(),
                )))?;
            }
        }
        for k in 0..self.states {
            let color = PALETTE[k % PALETTE.len()];
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                .label(format!("state {k}"))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
                });
        }
        super::legend(&mut chart, SeriesLabelPosition::LowerRight, 13)?;
        Ok(())
    }
}

/// One state's type and category distributions, casualty P(= 1) ×3, and cell count.
pub type StateEmissions = (Vec<f64>, Vec<f64>, Vec<f64>, usize);

/// Per state: its emission summary.
pub struct Emissions {
    pub states: Vec<StateEmissions>,
}

pub fn emissions(t: &Table) -> Result<Emissions, DrawError> {
    let (state, feature, value, prob, cells) = (
        t.col("state")?,
        t.col("feature")?,
        t.col("value")?,
        t.col("probability")?,
        t.col("cells_in_state")?,
    );
    let k = (0..t.rows.len())
        .map(|i| t.f(i, state) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![(Vec::new(), Vec::new(), Vec::new(), 0usize); k];
    for i in 0..t.rows.len() {
        let s = &mut out[t.f(i, state) as usize];
        s.3 = t.f(i, cells) as usize;
        let p = t.f(i, prob);
        match t.s(i, feature).as_str() {
            "type" => s.0.push(p),
            "category" => s.1.push(p),
            _ if t.f(i, value) == 1.0 => s.2.push(p),
            _ => {}
        }
    }
    Ok(Emissions { states: out })
}

impl Draw for Emissions {
    fn size(&self) -> (u32, u32) {
        (1500, 60 + 300 * self.states.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let areas = root.split_evenly((self.states.len().max(1), 3));
        for (k, (types, cats, cas, cells)) in self.states.iter().enumerate() {
            let color = PALETTE[k % PALETTE.len()];
            let panels: [(&str, &Vec<f64>); 3] = [
                ("type", types),
                ("category", cats),
                ("casualty (friendly, civilian, enemy)", cas),
            ];
            for (j, (name, probs)) in panels.iter().enumerate() {
                let area = &areas[k * 3 + j];
                let top = probs.iter().copied().fold(0.0, f64::max).max(1e-3) * 1.1;
                let mut chart = ChartBuilder::on(area)
                    .caption(
                        format!("state {k} ({cells} cells): {name}"),
                        ("sans-serif", 16),
                    )
                    .margin(8)
                    .x_label_area_size(28)
                    .y_label_area_size(50)
                    .build_cartesian_2d(0.0..probs.len().max(1) as f64, 0.0..top)?;
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .x_desc("value")
                    .y_desc("probability")
                    .label_style(("sans-serif", 12))
                    .draw()?;
                chart.draw_series(probs.iter().enumerate().map(|(v, &p)| {
                    Rectangle::new([(v as f64 + 0.1, 0.0), (v as f64 + 0.9, p)], color.filled())
                }))?;
            }
        }
        Ok(())
    }
}

/// Figure 6: one panel per (dataset, model), x = log10 ε, series mechanisms.
pub fn fig6(t: &Table) -> Result<super::logreg::PanelGrid, DrawError> {
    let (ds, model, mech, eps, mean, se) = (
        t.col("dataset")?,
        t.col("model")?,
        t.col("mechanism")?,
        t.col("epsilon")?,
        t.col("mean")?,
        t.col("se")?,
    );
    let order = distinct(t, mech);
    let mut keys: Vec<(String, String)> = Vec::new();
    for i in 0..t.rows.len() {
        let k = (t.s(i, ds), t.s(i, model));
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let panels = keys
        .iter()
        .map(|(d, m)| {
            let bands = order
                .iter()
                .map(|name| {
                    let pts = (0..t.rows.len())
                        .filter(|&i| {
                            t.s(i, ds) == *d && t.s(i, model) == *m && t.s(i, mech) == *name
                        })
                        .map(|i| (t.f(i, eps).log10(), t.f(i, mean), t.f(i, se)))
                        .collect();
                    (name.clone(), pts)
                })
                .collect();
            (format!("{} ({d})", m.replace('_', " ")), bands)
        })
        .collect();
    Ok(super::logreg::PanelGrid {
        rows: 1,
        cols: keys.len(),
        panels,
        x_desc: "log10 ε".into(),
        y_desc: "test log-likelihood per event, mean ± s.e.".into(),
        order,
    })
}
