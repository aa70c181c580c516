//! Plots of heikkila2019 Figures 1–3, drawn from their CSVs.

use crate::plot::{render, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::{distinct, legend, Draw, DrawError, PALETTE};
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
        let (panel, n, b, q, iters, eps, conv) = (
            t.col("panel")?,
            t.col("n_data")?,
            t.col("batch")?,
            t.col("q")?,
            t.col("iterations")?,
            t.col("epsilon")?,
            t.col("conversion")?,
        );
        let mut series = Vec::new();
        let clipping = match (
            t.col("proposal_variance"),
            t.col("clipped_fraction"),
            t.col("acceptance"),
        ) {
            (Ok(v), Ok(c), Ok(a)) => (0..t.rows.len())
                .filter(|&i| t.s(i, panel) == "c")
                .map(|i| (t.f(i, v), t.f(i, c), t.f(i, a)))
                .collect(),
            _ => Vec::new(),
        };
        for p in distinct(t, panel).into_iter().filter(|p| p != "c") {
            for c in distinct(t, conv) {
                // a curve is N (panel a) or b (panel b)
                let key = if p == "a" { n } else { b };
                let keys: Vec<String> = {
                    let mut v: Vec<String> = (0..t.rows.len())
                        .filter(|&i| t.s(i, panel) == p)
                        .map(|i| t.s(i, key))
                        .collect();
                    v.dedup();
                    v
                };
                for k in keys {
                    let pts = (0..t.rows.len())
                        .filter(|&i| t.s(i, panel) == p && t.s(i, conv) == c && t.s(i, key) == k)
                        .map(|i| {
                            (
                                if p == "a" { t.f(i, q) } else { t.f(i, iters) },
                                t.f(i, eps),
                            )
                        })
                        .collect();
                    let name = if p == "a" {
                        format!("N = {:.0e}", k.parse::<f64>().unwrap_or(f64::NAN))
                    } else {
                        format!("b = {k}")
                    };
                    series.push((p.clone(), name, c.clone(), pts));
                }
            }
        }
        Ok(Self { series, clipping })
    }
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (1800, 560)
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
        let areas = root.split_evenly((1, n_panels.max(1)));
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
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(x_lo..x_hi, (y_lo * 0.8..y_hi * 1.25).log_scale())?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .x_labels(6)
                .y_desc("ε (solid: classic, dashed: improved conversion)")
                .y_label_formatter(&crate::plot::tick)
                .x_label_formatter(&crate::plot::tick)
                .label_style(("sans-serif", 14))
                .draw()?;
            let labels: Vec<String> = {
                let mut v: Vec<String> = mine.iter().map(|s| s.1.clone()).collect();
                v.dedup();
                let mut out = Vec::new();
                for x in v {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                out
            };
            for s in &mine {
                let i = labels.iter().position(|l| l == &s.1).unwrap_or(0);
                let color = PALETTE[i % PALETTE.len()];
                let style = ShapeStyle::from(&color).stroke_width(2);
                let line: Vec<(f64, f64)> =
                    s.3.iter()
                        .copied()
                        .filter(|q| q.1 > 0.0 && q.1.is_finite())
                        .collect();
                if s.2 == "classic" {
                    chart
                        .draw_series(LineSeries::new(line, style))?
                        .label(s.1.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                } else {
                    chart.draw_series(DashedLineSeries::new(line, 6, 4, style))?;
                }
            }
            legend(&mut chart, SeriesLabelPosition::LowerRight, 14)?;
        }
        if let (false, Some(area)) = (self.clipping.is_empty(), areas.get(panels.len())) {
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
            let pad = ((x_hi - x_lo) * 0.05).max(1e-4);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    "(c) clipped log-likelihood ratios (GMM)",
                    ("sans-serif", 20),
                )
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d((x_lo - pad)..(x_hi + pad), 0.0..y_hi * 1.15)?;
            chart
                .configure_mesh()
                .x_desc("proposal variance σ_p²")
                .y_desc("clipped log-likelihood ratios / (T·b)")
                .x_label_formatter(&crate::plot::tick)
                .y_label_formatter(&crate::plot::tick)
                .label_style(("sans-serif", 14))
                .draw()?;
            let color = PALETTE[0];
            let style = ShapeStyle::from(&color).stroke_width(2);
            chart
                .draw_series(LineSeries::new(
                    self.clipping.iter().map(|p| (p.0, p.1)),
                    style,
                ))?
                .label("clipped fraction")
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            chart.draw_series(
                self.clipping
                    .iter()
                    .map(|p| Circle::new((p.0, p.1), 4, color.filled())),
            )?;
            chart.draw_series(self.clipping.iter().map(|p| {
                Text::new(
                    format!("acc. {:.2}", p.2),
                    (p.0, p.1 + y_hi * 0.04),
                    ("sans-serif", 11).into_font(),
                )
            }))?;
            legend(&mut chart, SeriesLabelPosition::UpperLeft, 14)?;
        }
        Ok(())
    }
}

/// Figure 2: scatter of the non-private and the private chain, side by side.
pub struct Fig2 {
    chains: Vec<(String, Vec<(f64, f64)>)>,
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (chain, t1, t2) = (t.col("chain")?, t.col("theta1")?, t.col("theta2")?);
        let chains = distinct(t, chain)
            .into_iter()
            .map(|c| {
                let pts = (0..t.rows.len())
                    .filter(|&i| t.s(i, chain) == c)
                    .map(|i| (t.f(i, t1), t.f(i, t2)))
                    .collect();
                (c, pts)
            })
            .collect();
        Ok(Self { chains })
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        (1200, 600)
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
                    "({}) non-private chain, {} samples after burn-in",
                    (b'a' + k as u8) as char,
                    pts.len()
                )
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(55)
                .build_cartesian_2d(-2.5..2.5, -2.5..2.6)?;
            chart
                .configure_mesh()
                .x_desc("θ₁")
                .y_desc("θ₂")
                .label_style(("sans-serif", 14))
                .draw()?;
            let color = PALETTE[if name == "private" { 1 } else { 0 }];
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
}

impl Fig3 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (method, reference, eps, param) = (
            t.col("method")?,
            t.col("reference")?,
            t.col("epsilon")?,
            t.col("parameter")?,
        );
        let (me, mse, ve, vse) = (
            t.col("mean_error")?,
            t.col("mean_error_se")?,
            t.col("var_error")?,
            t.col("var_error_se")?,
        );
        let mut series = Vec::new();
        for m in distinct(t, method) {
            for p in ["theta1", "theta2"] {
                let pts = (0..t.rows.len())
                    .filter(|&i| {
                        t.s(i, method) == m && t.s(i, param) == p && t.s(i, reference) == "exact"
                    })
                    .map(|i| {
                        (
                            t.f(i, eps),
                            t.f(i, me),
                            t.f(i, mse),
                            t.f(i, ve),
                            t.f(i, vse),
                        )
                    })
                    .collect();
                series.push((m.clone(), p.to_string(), pts));
            }
        }
        Ok(Self { series })
    }
}

impl Draw for Fig3 {
    fn size(&self) -> (u32, u32) {
        (1400, 560)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let areas = root.split_evenly((1, 2));
        for (k, area) in areas.iter().enumerate() {
            let value =
                |p: &(f64, f64, f64, f64, f64)| if k == 0 { (p.1, p.2) } else { (p.3, p.4) };
            let all = self
                .series
                .iter()
                .flat_map(|s| s.2.iter())
                .filter(|p| p.0.is_finite());
            let (mut x_lo, mut x_hi, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
            for p in all {
                x_lo = x_lo.min(p.0);
                x_hi = x_hi.max(p.0);
                let (v, se) = value(p);
                if v.is_finite() {
                    y_hi = y_hi.max(v + se.max(0.0));
                }
            }
            if !x_lo.is_finite() {
                continue;
            }
            let title = if k == 0 {
                "(a) error of the running mean"
            } else {
                "(b) error of the running variance"
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(x_lo..x_hi, 0.0..(y_hi * 1.1).max(1e-6))?;
            chart
                .configure_mesh()
                .x_desc("ε spent (classic conversion; tight PLD where labelled)")
                .y_desc("|running − exact| (mean ± s.e. over runs; dashed: θ₂)")
                .x_label_formatter(&crate::plot::tick)
                .y_label_formatter(&crate::plot::tick)
                .label_style(("sans-serif", 14))
                .draw()?;
            for (method, param, pts) in &self.series {
                let (i, label) = match method.as_str() {
                    "dp_mcmc" => (0, "DP-MCMC"),
                    "dp_sgld" => (1, "DP-SGLD (as published)"),
                    "dp_sgld_tight" => (3, "DP-SGLD (as published), tight PLD ε"),
                    _ => (2, "DP-SGLD (corrected noise)"),
                };
                let color = PALETTE[i];
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
                let style = ShapeStyle::from(&color).stroke_width(2);
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, value(p).0)).collect();
                if param == "theta1" {
                    chart
                        .draw_series(LineSeries::new(line, style))?
                        .label(label)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                } else {
                    chart.draw_series(DashedLineSeries::new(line, 6, 4, style))?;
                }
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight, 14)?;
        }
        Ok(())
    }
}

/// Heikkilä Fig. 1 from `summary.csv`.
pub fn fig1(dir: &Path) -> Result<(), DrawError> {
    render(&Fig1::from_summary(&summary(dir)?)?, dir)
}

/// Heikkilä Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    render(&Fig2::from_summary(&summary(dir)?)?, dir)
}

/// Heikkilä Fig. 3 from `summary.csv`.
pub fn fig3(dir: &Path) -> Result<(), DrawError> {
    render(&Fig3::from_summary(&summary(dir)?)?, dir)
}
