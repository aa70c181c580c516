//! Plots of heikkila2019 Figures 1–3, drawn from their CSVs.

use crate::plot::{render_headed, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::style::{self, Entry};
use crate::plot::{tick, Draw, DrawError};
use crate::results::table::Table;

/// (panel, series label, conversion, points)
type Series = (String, String, String, Vec<(f64, f64)>);

/// ε vs q at fixed T (a) and ε vs T at fixed q (b); one line per N or b.
pub struct Fig1 {
    series: Vec<Series>,
    /// panel (c): (proposal variance, clipped fraction, acceptance)
    clipping: Vec<(f64, f64, f64)>,
}

impl Fig1 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig1Row> = t.records().map_err(|e| DrawError(e.0))?;
        let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
        let clipping = rows
            .iter()
            .filter(|r| r.panel == "c")
            .map(|r| {
                (
                    nan(r.proposal_variance),
                    nan(r.clipped_fraction),
                    nan(r.acceptance),
                )
            })
            .collect();
        let mut series = Vec::new();
        let panels =
            crate::plot::first_seen(rows.iter().map(|r| r.panel.as_str()).filter(|p| *p != "c"));
        let conversions = crate::plot::first_seen(rows.iter().map(|r| {
            r.conversion
                .map(|c| c.as_str().to_string())
                .unwrap_or_default()
        }));
        for p in panels {
            for c in &conversions {
                // a curve is N (panel a) or b (panel b)
                let key = |r: &super::Fig1Row| if p == "a" { r.n_data } else { r.batch };
                let mut keys: Vec<u64> = rows.iter().filter(|r| r.panel == p).map(key).collect();
                keys.dedup();
                for k in keys {
                    let pts = rows
                        .iter()
                        .filter(|r| {
                            r.panel == p
                                && r.conversion
                                    .map(|c| c.as_str().to_string())
                                    .unwrap_or_default()
                                    == *c
                                && key(r) == k
                        })
                        .map(|r| {
                            (
                                if p == "a" { r.q } else { r.iterations as f64 },
                                nan(r.epsilon),
                            )
                        })
                        .collect();
                    let name = if p == "a" {
                        format!("N = {:.0e}", k as f64)
                    } else {
                        format!("b = {k}")
                    };
                    series.push((p.to_string(), name, c.clone(), pts));
                }
            }
        }
        Ok(Self { series, clipping })
    }
}

impl Fig1 {
    /// Per panel, its series labels in colour order.
    fn labels(&self, panel: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in self.series.iter().filter(|s| s.0 == panel) {
            if !out.contains(&s.1) {
                out.push(s.1.clone());
            }
        }
        out
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e = Vec::new();
        for (panel, letter) in [("a", "(a)"), ("b", "(b)")] {
            for (i, l) in self.labels(panel).iter().enumerate() {
                e.push(Entry::rule(
                    &format!(
                        "{letter} {}",
                        l.replace("1e5", "10⁵")
                            .replace("1e6", "10⁶")
                            .replace("1e7", "10⁷")
                            .replace("1e8", "10⁸")
                    ),
                    style::sequence(i),
                    false,
                ));
            }
        }
        if !self.series.is_empty() {
            let grey = RGBColor(90, 90, 90);
            e.push(Entry::rule("classic conversion", grey, false));
            e.push(Entry::rule("improved conversion", grey, true));
        }
        e
    }
}

impl Fig1 {
    /// Panel (c): the fraction of clipped ratios against the proposal variance,
    /// each point labelled with the chain's acceptance.
    fn draw_clipping<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let (x_lo, x_hi) = self
            .clipping
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        let y_hi = self
            .clipping
            .iter()
            .map(|p| p.1)
            .fold(0.0, f64::max)
            .max(1e-6);
        // room on both sides for the centred acceptance labels
        let pad = ((x_hi - x_lo) * 0.12).max(1e-4);
        let mut chart = ChartBuilder::on(area)
            .caption(
                "(c) clipped ratios, GMM (labels: acceptance)",
                ("sans-serif", style::TITLE),
            )
            .margin(14)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA)
            .build_cartesian_2d(
                crate::plot::axis((x_lo - pad)..(x_hi + pad))?,
                crate::plot::axis(0.0..y_hi * 1.2)?,
            )?;
        style::mesh(&mut chart)
            .x_desc("proposal variance σₚ²")
            .y_desc("clipped fraction of ratios")
            .x_labels(5)
            .y_labels(6)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()?;
        let color = style::BLUE;
        let line = ShapeStyle::from(&color).stroke_width(style::LINE);
        chart.draw_series(LineSeries::new(
            self.clipping.iter().map(|p| (p.0, p.1)),
            line,
        ))?;
        chart.draw_series(
            self.clipping
                .iter()
                .map(|p| style::Mark::new((p.0, p.1), style::Marker::Circle, color, 6)),
        )?;
        let font = ("sans-serif", style::TICK - 4)
            .into_font()
            .color(&BLACK)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Bottom,
            ));
        chart.draw_series(self.clipping.iter().map(|p| {
            Text::new(
                format!("{:.2}", p.2),
                (p.0, p.1 + y_hi * 0.05),
                font.clone(),
            )
        }))?;
        Ok(())
    }
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (1800, 600 + style::legend_height(&self.entries(), 1800))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let panels: Vec<String> = {
            let mut v: Vec<String> = self.series.iter().map(|s| s.0.clone()).collect();
            v.dedup();
            v
        };
        let n_panels = panels.len() + usize::from(!self.clipping.is_empty());
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let areas = body.split_evenly((1, n_panels.max(1)));
        for (p, area) in panels.iter().zip(areas.iter()) {
            let mine: Vec<&Series> = self.series.iter().filter(|s| &s.0 == p).collect();
            let pts = mine
                .iter()
                .flat_map(|s| s.3.iter())
                .filter(|q| q.1 > 0.0 && q.1.is_finite());
            let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) =
                (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, 0.0f64);
            for q in pts {
                x_lo = x_lo.min(q.0);
                x_hi = x_hi.max(q.0);
                y_lo = y_lo.min(q.1);
                y_hi = y_hi.max(q.1);
            }
            if !x_lo.is_finite() {
                continue;
            }
            let (title, x_desc) = if p == "a" {
                ("(a) total ε vs sampling ratio q", "q = b/N")
            } else {
                ("(b) total ε vs iterations T", "iterations T")
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", style::TITLE))
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(
                    crate::plot::axis(x_lo..x_hi)?,
                    crate::plot::log_axis(y_lo * 0.8..y_hi * 1.25)?
                        .log_scale()
                        .with_key_points(style::log_ticks(y_lo * 0.8, y_hi * 1.25)),
                )?;
            style::mesh(&mut chart)
                .x_desc(x_desc)
                .x_labels(5)
                .y_desc("total ε")
                .y_label_formatter(&tick)
                .x_label_formatter(&tick)
                .draw()?;
            let labels = self.labels(p);
            for s in &mine {
                let i = labels.iter().position(|l| l == &s.1).unwrap_or(0);
                let color = style::sequence(i);
                let style = ShapeStyle::from(&color).stroke_width(style::LINE);
                let line: Vec<(f64, f64)> =
                    s.3.iter()
                        .copied()
                        .filter(|q| q.1 > 0.0 && q.1.is_finite())
                        .collect();
                if s.2 == "classic" {
                    chart.draw_series(LineSeries::new(line, style))?;
                } else {
                    chart.draw_series(DashedLineSeries::new(line, 8, 6, style))?;
                }
            }
        }
        if let (false, Some(area)) = (self.clipping.is_empty(), areas.get(panels.len())) {
            self.draw_clipping(area)?;
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Figure 2: scatter of the non-private and the private chain, side by side.
pub struct Fig2 {
    chains: Vec<(String, Vec<(f64, f64)>)>,
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig2Row> = t.records().map_err(|e| DrawError(e.0))?;
        let mut chains: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for r in &rows {
            match chains.iter_mut().find(|(c, _)| *c == r.chain) {
                Some((_, pts)) => pts.push((r.theta1, r.theta2)),
                None => chains.push((r.chain.clone(), vec![(r.theta1, r.theta2)])),
            }
        }
        Ok(Self { chains })
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        (1200, 640)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let areas = root.split_evenly((1, self.chains.len().max(1)));
        for (k, ((name, pts), area)) in self.chains.iter().zip(areas.iter()).enumerate() {
            let title = if name == "private" {
                format!(
                    "({}) DP-MCMC, {} samples after burn-in",
                    (b'a' + k as u8) as char,
                    pts.len()
                )
            } else {
                format!(
                    "({}) non-private, {} samples after burn-in",
                    (b'a' + k as u8) as char,
                    pts.len()
                )
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", style::TITLE - 4))
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA - 20)
                .build_cartesian_2d(crate::plot::axis(-2.5..2.5)?, crate::plot::axis(-2.5..2.6)?)?;
            style::mesh(&mut chart)
                .x_desc("θ₁")
                .y_desc("θ₂")
                .x_labels(6)
                .y_labels(6)
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .draw()?;
            let color = style::series(name, 0).color;
            chart.draw_series(
                pts.iter()
                    .filter(|p| p.0.abs() <= 2.5 && p.1 >= -2.5 && p.1 <= 2.6)
                    .map(|&p| Circle::new(p, 1, color.mix(0.08).filled())),
            )?;
        }
        Ok(())
    }
}

/// One Figure 3 series: (method, parameter, (ε, mean error, se, variance error, se)).
type ErrorSeries = (String, String, Vec<(f64, f64, f64, f64, f64)>);

/// Figure 3: error of the running mean (a) and variance (b) vs ε, against the exact posterior.
pub struct Fig3 {
    series: Vec<ErrorSeries>,
    /// ε on a log axis where a row's budgets span a decade (Räisä's samplers
    /// beside Heikkilä's on one GMM figure); Heikkilä's own Fig. 3
    /// keeps the paper's linear axis.
    log_eps: bool,
    /// Methods drawn again in a second row on their own ε range (Räisä's
    /// samplers spend a small band of ε, squeezed beside DP-MCMC's).
    zoom: Vec<String>,
}

/// Positive ε values spanning a decade or more (this ratio) are drawn on a log axis.
const DECADES_FOR_LOG: f64 = 10.0;

impl Fig3 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig3Summary> = t.records().map_err(|e| DrawError(e.0))?;
        let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
        let methods = crate::plot::first_seen(rows.iter().map(|r| r.method.as_str()));
        let mut series = Vec::new();
        for m in methods {
            for p in ["theta1", "theta2"] {
                let pts = rows
                    .iter()
                    .filter(|r| r.method == m && r.parameter == p && r.reference == "exact")
                    .map(|r| {
                        (
                            r.epsilon,
                            nan(r.mean_error),
                            nan(r.mean_error_se),
                            nan(r.var_error),
                            nan(r.var_error_se),
                        )
                    })
                    .collect();
                series.push((m.to_string(), p.to_string(), pts));
            }
        }
        Ok(Self {
            series,
            log_eps: false,
            zoom: Vec::new(),
        })
    }

    /// A row's ε on a log axis when its positive ε values span a decade or
    /// more; `zoom`'s methods drawn again in a second row on their own range.
    pub fn for_gmm(mut self, zoom: &[&str]) -> Self {
        self.log_eps = true;
        self.zoom = zoom
            .iter()
            .map(|m| m.to_string())
            .filter(|m| self.series.iter().any(|s| &s.0 == m))
            .collect();
        self
    }
}

/// Whether the positive ε of some series span a decade or more.
fn spans_decade(series: &[&ErrorSeries]) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for p in series.iter().flat_map(|s| s.2.iter()) {
        if p.0 > 0.0 && p.0.is_finite() {
            lo = lo.min(p.0);
            hi = hi.max(p.0);
        }
    }
    hi / lo >= DECADES_FOR_LOG
}

impl Fig3 {
    fn entries(&self) -> Vec<Entry> {
        let mut e: Vec<Entry> = Vec::new();
        for (k, (method, _, _)) in self.series.iter().enumerate() {
            let st = style::series(method, k);
            if !e.iter().any(|x| x.label == st.label) {
                e.push(Entry {
                    marker: None,
                    ..Entry::of(&st)
                });
            }
        }
        let grey = RGBColor(90, 90, 90);
        for (label, dashed) in [("θ₁", false), ("θ₂", true)] {
            e.push(Entry::rule(label, grey, dashed));
        }
        e
    }
}

impl Draw for Fig3 {
    fn size(&self) -> (u32, u32) {
        let rows = if self.zoom.is_empty() { 1 } else { 2 };
        (
            1400,
            600 * rows + style::legend_height(&self.entries(), 1400),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let rows = if self.zoom.is_empty() { 1 } else { 2 };
        let areas = body.split_evenly((rows, 2));
        for (cell, area) in areas.iter().enumerate() {
            let (row, k) = (cell / 2, cell % 2);
            let series: Vec<&ErrorSeries> = self
                .series
                .iter()
                .filter(|s| row == 0 || self.zoom.contains(&s.0))
                .collect();
            let value =
                |p: &(f64, f64, f64, f64, f64)| if k == 0 { (p.1, p.2) } else { (p.3, p.4) };
            // the drawn x: ε, or log10 ε on a log axis (ε ≤ 0 left out there)
            let log = self.log_eps && spans_decade(&series);
            let x_of = |e: f64| if log { e.log10() } else { e };
            let shown = |p: &&(f64, f64, f64, f64, f64)| p.0.is_finite() && (!log || p.0 > 0.0);
            let all = series
                .iter()
                .flat_map(|s| s.2.iter())
                .filter(shown)
                .map(|p| (x_of(p.0), p.1, p.2, p.3, p.4));
            let (mut x_lo, mut x_hi, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
            for p in all {
                x_lo = x_lo.min(p.0);
                x_hi = x_hi.max(p.0);
                let (v, se) = value(&p);
                if v.is_finite() {
                    y_hi = y_hi.max(v + se.max(0.0));
                }
            }
            if !x_lo.is_finite() {
                continue;
            }
            let title = match (row, k) {
                (0, 0) => "(a) error of the running mean".to_string(),
                (0, _) => "(b) error of the running variance".to_string(),
                (_, 0) => "(c) as (a), added samplers zoomed".to_string(),
                _ => "(d) as (b), added samplers zoomed".to_string(),
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", style::TITLE))
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(
                    crate::plot::axis(x_lo..x_hi)?,
                    crate::plot::axis(0.0..(y_hi * 1.1).max(1e-6))?,
                )?;
            let log_tick = |v: &f64| {
                if (v - v.round()).abs() < 1e-9 {
                    tick(&10f64.powf(v.round()))
                } else {
                    String::new()
                }
            };
            style::mesh(&mut chart)
                .x_desc(if log {
                    "ε spent (log scale)"
                } else {
                    "ε spent"
                })
                .y_desc("|running − exact|, mean ± s.e.")
                .x_labels(if log {
                    ((x_hi - x_lo).ceil() as usize + 1).clamp(2, 12)
                } else {
                    6
                })
                .y_labels(6)
                .x_label_formatter(&|v: &f64| if log { log_tick(v) } else { tick(v) })
                .y_label_formatter(&tick)
                .draw()?;
            for s in &series {
                let (method, param, pts) = (&s.0, &s.1, &s.2);
                // the legend's index of the series (colours of unknown names)
                let n = self
                    .series
                    .iter()
                    .position(|x| std::ptr::eq(x, *s))
                    .unwrap_or(0);
                let color = style::series(method, n).color;
                let pts: Vec<(f64, f64, f64, f64, f64)> = pts
                    .iter()
                    .filter(shown)
                    .map(|p| (x_of(p.0), p.1, p.2, p.3, p.4))
                    .collect();
                let mut band: Vec<(f64, f64)> =
                    pts.iter().map(|p| (p.0, value(p).0 + value(p).1)).collect();
                band.extend(
                    pts.iter()
                        .rev()
                        .map(|p| (p.0, (value(p).0 - value(p).1).max(0.0))),
                );
                chart.draw_series(std::iter::once(Polygon::new(
                    band,
                    color.mix(0.12).filled(),
                )))?;
                let line_style = ShapeStyle::from(&color).stroke_width(style::LINE);
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, value(p).0)).collect();
                if param == "theta1" {
                    chart.draw_series(LineSeries::new(line, line_style))?;
                } else {
                    chart.draw_series(DashedLineSeries::new(line, 8, 6, line_style))?;
                }
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Heikkilä Fig. 1 from `summary.csv`.
pub fn fig1(dir: &Path) -> Result<(), DrawError> {
    render_headed(
        Fig1::from_summary(&summary(dir)?)?,
        dir,
        None,
        Some("DP-MCMC with the subsampled Barker test".into()),
    )
}

/// Heikkilä Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    render_headed(Fig2::from_summary(&summary(dir)?)?, dir, None, None)
}

/// Heikkilä Fig. 3 from `summary.csv`.
pub fn fig3(dir: &Path) -> Result<(), DrawError> {
    render_headed(Fig3::from_summary(&summary(dir)?)?, dir, None, None)
}
