//! Figures 2 and 3 of the Bun et al. poster, from their summary.csv.

use crate::plot::{render_headed, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::style::{self, Entry};
use crate::plot::{tick, Draw, DrawError};
use crate::results::table::Table;

/// The house style of a mechanism (colour and display name).
fn style_of(mechanism: &str) -> (RGBColor, String) {
    let s = style::series(mechanism, 0);
    (s.color, s.label)
}

/// Legend entries for the mechanisms in `names`, plus the dashed crossover line.
fn entries(names: &[&str], crossover: bool, markers_only: bool) -> Vec<Entry> {
    let mut e: Vec<Entry> = Vec::new();
    for n in ["hellinger_em", "laplace_dim", "laplace_hist"] {
        if names.contains(&n) {
            let mut x = Entry::of(&style::series(n, 0));
            x.line = !markers_only;
            e.push(x);
        }
    }
    if crossover {
        e.push(Entry::rule(
            "n from which the EM beats that Laplace baseline",
            RGBColor(90, 90, 90),
            true,
        ));
    }
    e
}

/// Caption suffix when the authors' ln B was used (the distances are then not Hellinger).
/// Either figure's table names its Hellinger variant in every row.
fn variant_note(t: &Table) -> &'static str {
    #[derive(serde::Deserialize)]
    struct Variant {
        hellinger: String,
    }
    match t.records::<Variant>() {
        Ok(rows) if rows.iter().any(|r| r.hellinger == "as_published") => " [AS PUBLISHED ln B]",
        _ => "",
    }
}

/// One series: (x, mean or median, q25, q75).
type Quartiles = (String, Vec<(f64, f64, f64, f64)>);

/// Panel (a) series: (prior a, median, q25, q75, mean).
type PriorSweep = (String, Vec<(f64, f64, f64, f64, f64)>);

type Crossings = Vec<(String, f64)>;

/// A mechanism's (distance, probability) points.
type Scatter = (String, Vec<(f64, f64)>);

/// Figure 2: mean distance vs n, one panel per k, interquartile bars.
pub struct Fig2 {
    /// (k, series, crossover n per Laplace baseline)
    panels: Vec<(String, Vec<Quartiles>, Crossings)>,
    note: &'static str,
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig2Summary> = t.records().map_err(|e| DrawError(e.0))?;
        let mut panels = Vec::new();
        for kv in crate::plot::first_seen(rows.iter().map(|r| r.k)) {
            let mut series = Vec::new();
            let mut crossings = Vec::new();
            for mech in crate::plot::first_seen(rows.iter().map(|r| r.mechanism.as_str())) {
                let of: Vec<&super::Fig2Summary> = rows
                    .iter()
                    .filter(|r| r.k == kv && r.mechanism == mech)
                    .collect();
                if let Some(x) = of.first().and_then(|r| r.crossover_n) {
                    crossings.push((mech.to_string(), x as f64));
                }
                series.push((
                    mech.to_string(),
                    of.iter()
                        .map(|r| (r.n as f64, r.mean, r.q25, r.q75))
                        .collect(),
                ));
            }
            panels.push((kv.to_string(), series, crossings));
        }
        Ok(Self {
            panels,
            note: variant_note(t),
        })
    }
}

impl Fig2 {
    fn entries(&self) -> Vec<Entry> {
        let names: Vec<&str> = self
            .panels
            .iter()
            .flat_map(|p| p.1.iter().map(|s| s.0.as_str()))
            .collect();
        entries(&names, self.panels.iter().any(|p| !p.2.is_empty()), false)
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        (1650, 580 + style::legend_height(&self.entries(), 1650))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let areas = body.split_evenly((1, self.panels.len().max(1)));
        for (idx, ((k, series, crossings), area)) in
            self.panels.iter().zip(areas.iter()).enumerate()
        {
            let pts = series.iter().flat_map(|s| s.1.iter());
            let (mut x_lo, mut x_hi, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
            for p in pts {
                x_lo = x_lo.min(p.0);
                x_hi = x_hi.max(p.0);
                y_hi = y_hi.max(p.3).max(p.1);
            }
            let pad = ((x_hi - x_lo) * 0.04).max(1.0);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("({}) k = {k}{}", (b'a' + idx as u8) as char, self.note),
                    ("sans-serif", style::TITLE),
                )
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(
                    crate::plot::axis((x_lo - pad)..(x_hi + pad))?,
                    crate::plot::axis(0.0..(y_hi * 1.1).max(1e-6))?,
                )?;
            style::mesh(&mut chart)
                .x_desc("data size n")
                .x_labels(5)
                .y_labels(6)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&tick)
                .y_desc("Hellinger distance (bars: IQR)")
                .draw()?;
            for (mech, pts) in series {
                let st = style::series(mech, 0);
                let color = st.color;
                let line = ShapeStyle::from(&color).stroke_width(style::LINE);
                chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), line))?;
                let faint = style::shade_of(color, 0.6);
                chart.draw_series(
                    pts.iter()
                        .map(|p| style::Whisker::new((p.0, p.2), (p.0, p.3), faint, 4)),
                )?;
                chart.draw_series(
                    pts.iter()
                        .map(|p| style::Mark::new((p.0, p.1), st.marker, color, 5)),
                )?;
            }
            for (j, (mech, x)) in crossings.iter().enumerate() {
                let (color, _) = style_of(mech);
                chart.draw_series(DashedLineSeries::new(
                    vec![(*x, 0.0), (*x, y_hi * 1.1)],
                    8,
                    6,
                    ShapeStyle::from(&color.mix(0.8)).stroke_width(2),
                ))?;
                // the crossover's n beside its line, staggered when there are two
                chart.draw_series(std::iter::once(Text::new(
                    format!("n = {x:.0}"),
                    (*x + pad * 0.3, y_hi * (1.04 - 0.08 * j as f64)),
                    ("sans-serif", style::TICK - 2).into_font().color(&color),
                )))?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Figure 3: (a) median and IQR vs prior a; (b, c) exact P(output) vs distance.
pub struct Fig3 {
    prior: Vec<PriorSweep>,
    /// n of panel (a)
    prior_n: String,
    /// (panel letter, "k = …, n = …", per-mechanism (distance, probability) points)
    exact: Vec<(String, String, Vec<Scatter>)>,
    note: &'static str,
}

impl Fig3 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig3Row> = t.records().map_err(|e| DrawError(e.0))?;
        let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
        let prior_n = rows
            .iter()
            .find(|r| r.panel == "a")
            .map(|r| r.n.to_string())
            .unwrap_or_default();
        let mut mechs: Vec<String> = Vec::new();
        let mut panels: Vec<String> = Vec::new();
        for r in &rows {
            if !mechs.contains(&r.mechanism) {
                mechs.push(r.mechanism.clone());
            }
            if !panels.contains(&r.panel) {
                panels.push(r.panel.clone());
            }
        }
        let prior_series = mechs
            .iter()
            .map(|mech| {
                let pts = rows
                    .iter()
                    .filter(|r| r.panel == "a" && &r.mechanism == mech)
                    .map(|r| (r.prior, nan(r.q50), nan(r.q25), nan(r.q75), nan(r.mean)))
                    .collect();
                (mech.clone(), pts)
            })
            .collect();
        let mut exact = Vec::new();
        for p in panels.into_iter().filter(|p| p != "a") {
            let kv = rows
                .iter()
                .find(|r| r.panel == p)
                .map(|r| format!("k = {}, n = {}", r.k, r.n))
                .unwrap_or_default();
            let series = mechs
                .iter()
                .map(|mech| {
                    let pts = rows
                        .iter()
                        .filter(|r| r.panel == p && &r.mechanism == mech)
                        .map(|r| (nan(r.distance), nan(r.probability)))
                        .collect();
                    (mech.clone(), pts)
                })
                .collect();
            exact.push((p, kv, series));
        }
        Ok(Self {
            prior: prior_series,
            prior_n,
            exact,
            note: variant_note(t),
        })
    }
}

impl Fig3 {
    fn entries(&self) -> Vec<Entry> {
        let names: Vec<&str> = self
            .prior
            .iter()
            .map(|s| s.0.as_str())
            .chain(
                self.exact
                    .iter()
                    .flat_map(|e| e.2.iter().map(|s| s.0.as_str())),
            )
            .collect();
        entries(&names, false, false)
    }
}

impl Draw for Fig3 {
    fn size(&self) -> (u32, u32) {
        (1650, 580 + style::legend_height(&self.entries(), 1650))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let areas = body.split_evenly((1, 1 + self.exact.len()));
        // (a)
        let pts = self.prior.iter().flat_map(|s| s.1.iter());
        let (mut x_lo, mut x_hi, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for p in pts {
            x_lo = x_lo.min(p.0);
            x_hi = x_hi.max(p.0);
            y_hi = y_hi.max(p.3).max(p.4);
        }
        if x_lo.is_finite() {
            let mut chart = ChartBuilder::on(&areas[0])
                .caption(
                    format!("(a) k = 2, n = {}{}", self.prior_n, self.note),
                    ("sans-serif", style::TITLE - 2),
                )
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(
                    crate::plot::log_axis(x_lo * 0.9..x_hi * 1.1)?.log_scale(),
                    crate::plot::axis(0.0..(y_hi * 1.1).max(1e-6))?,
                )?;
            style::mesh(&mut chart)
                .x_desc("prior Beta(a, a): a")
                .y_desc("distance: mean, IQR bars")
                .y_labels(6)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&tick)
                .draw()?;
            // Distances take few discrete values, so quartiles of different mechanisms
            // coincide: show the mean as a line and the IQR as bars, offset per mechanism.
            for (i, (mech, pts)) in self.prior.iter().enumerate() {
                let (color, _) = style_of(mech);
                let line = ShapeStyle::from(&color).stroke_width(style::LINE);
                chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.4)), line))?;
                // one bar per log-spaced bin of the prior axis
                let shift = 1.0 + 0.035 * (i as f64 - 1.0);
                let bin = |x: f64| {
                    ((x / x_lo).ln() / (x_hi / x_lo).ln().max(1e-12) * 14.0).floor() as i64
                };
                let mut last_bin = i64::MIN;
                let mut bars = Vec::new();
                for p in pts {
                    if bin(p.0) != last_bin {
                        last_bin = bin(p.0);
                        bars.push(style::Whisker::new(
                            (p.0 * shift, p.2),
                            (p.0 * shift, p.3),
                            color,
                            3,
                        ));
                    }
                }
                chart.draw_series(bars)?;
            }
        }
        // (b, c)
        for ((p, k, series), area) in self.exact.iter().zip(areas.iter().skip(1)) {
            let all = series.iter().flat_map(|s| s.1.iter()).filter(|q| q.1 > 0.0);
            let (mut x_hi, mut y_lo, mut y_hi) = (0.0f64, 1.0f64, 0.0f64);
            for q in all {
                x_hi = x_hi.max(q.0);
                y_lo = y_lo.min(q.1);
                y_hi = y_hi.max(q.1);
            }
            let y_lo = y_lo.max(y_hi * 1e-12).max(1e-300);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("({p}) {k}{}", self.note),
                    ("sans-serif", style::TITLE - 2),
                )
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA + 10)
                .build_cartesian_2d(
                    crate::plot::axis(0.0..(x_hi * 1.05).max(1e-6))?,
                    crate::plot::log_axis(y_lo..y_hi * 2.0)?.log_scale(),
                )?;
            style::mesh(&mut chart)
                .x_desc("Hellinger distance")
                .y_desc("probability")
                .x_labels(5)
                .y_labels(6)
                .x_label_formatter(&tick)
                .y_label_formatter(&|y| format!("{y:.0e}"))
                .draw()?;
            // the baselines first, the EM (the subject) on top; smaller
            // markers where the points crowd, so no series hides another
            let crowded = series.iter().any(|s| s.1.len() > 150);
            let size = if crowded { 2 } else { 4 };
            for (mech, pts) in series.iter().rev() {
                let st = style::series(mech, 0);
                chart.draw_series(
                    pts.iter()
                        .filter(|q| q.1 >= y_lo)
                        .map(|q| style::Mark::new((q.0, q.1), st.marker, st.color, size)),
                )?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Bun Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    render_headed(
        Fig2::from_summary(&summary(dir)?)?,
        dir,
        None,
        Some("Hellinger distance of the released to the true posterior".into()),
    )
}

/// Bun Fig. 3 from `summary.csv`.
pub fn fig3(dir: &Path) -> Result<(), DrawError> {
    render_headed(
        Fig3::from_summary(&summary(dir)?)?,
        dir,
        None,
        Some(
            "(a) distance to the true posterior against the prior; (b, c) exact output distribution of the distance"
                .into(),
        ),
    )
}
