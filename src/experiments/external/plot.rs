//! The drawing of an external figure, from its folder alone: `summary.csv`, the
//! declaration in `plot_spec.csv`, and — with `compare` — the built-in figure's
//! `summary.csv` in the folder named there, drawn on the same axes.

use crate::results::table::TableReadError;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::plot::{render_headed, style, Draw, DrawError};
use crate::results::table::Table;

/// One curve: its label, style key, and (x, mean, se) points.
struct Curve {
    key: String,
    label: String,
    points: Vec<(f64, f64, f64)>,
    builtin: bool,
}

struct Panel {
    title: String,
    curves: Vec<Curve>,
}

struct ExternalPlot {
    panels: Vec<Panel>,
    log_x: bool,
    log_y: bool,
    x_label: String,
    y_label: String,
}

fn spec_value(t: &Table, key: &str) -> String {
    (0..t.rows.len())
        .find(|&i| t.s(i, 0) == key)
        .map(|i| t.s(i, 1))
        .unwrap_or_default()
}

/// Checks, before any drawing, that the folder's `plot_spec.csv` can be read and
/// names columns its `summary.csv` has (a damaged folder is bad input).
pub fn check(dir: &Path) -> Result<(), TableReadError> {
    let path = dir.join(super::PLOT_SPEC);
    let spec = crate::results::table::Table::read_csv(&path)?;
    let get = |k: &str| spec_value(&spec, k);
    let summary = crate::results::table::Table::read_csv(&dir.join("summary.csv"))?;
    let mut want = vec![
        get("x"),
        format!("{}_mean", get("y")),
        format!("{}_se", get("y")),
    ];
    want.extend(
        ["series", "facet"]
            .iter()
            .map(|k| get(k))
            .filter(|v| !v.is_empty()),
    );
    for c in want {
        if !summary.header.contains(&c) {
            return Err(TableReadError(format!(
                "{}: names column `{c}`, which {} does not have (allowed: {})",
                path.display(),
                dir.join("summary.csv").display(),
                summary.header.join(", ")
            )));
        }
    }
    Ok(())
}

/// Draws `figure.png` / `.svg` of an external figure folder.
pub fn draw(dir: &Path) -> Result<(), DrawError> {
    let spec = crate::plot::read_checked(&dir.join(super::PLOT_SPEC))?;
    let get = |k: &str| spec_value(&spec, k);
    let t = crate::plot::summary(dir)?;
    let x = t.col(&get("x"))?;
    let y = t.col(&format!("{}_mean", get("y")))?;
    let se = t.col(&format!("{}_se", get("y")))?;
    let series = match get("series").as_str() {
        "" => None,
        s => Some(t.col(s)?),
    };
    let facet = match get("facet").as_str() {
        "" => None,
        s => Some(t.col(s)?),
    };
    let facets: Vec<String> = match facet {
        Some(f) => crate::plot::distinct(&t, f),
        None => vec![String::new()],
    };
    let mut panels: Vec<Panel> = facets
        .iter()
        .map(|fv| {
            let rows: Vec<usize> = (0..t.rows.len())
                .filter(|&i| facet.is_none_or(|f| t.s(i, f) == *fv))
                .collect();
            let names: Vec<String> = match series {
                Some(s) => {
                    let mut v: Vec<String> = Vec::new();
                    for &i in &rows {
                        let n = t.s(i, s);
                        if !v.contains(&n) {
                            v.push(n);
                        }
                    }
                    v
                }
                None => vec![get("y")],
            };
            let curves = names
                .into_iter()
                .map(|n| {
                    let mut points: Vec<(f64, f64, f64)> = rows
                        .iter()
                        .filter(|&&i| series.is_none_or(|s| t.s(i, s) == n))
                        .map(|&i| (t.f(i, x), t.f(i, y), t.f(i, se)))
                        .collect();
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Curve {
                        label: style::series(&n, 0).label,
                        key: n,
                        points,
                        builtin: false,
                    }
                })
                .collect();
            Panel {
                title: match facet {
                    Some(f) => format!("{} = {fv}", t.header[f]),
                    None => String::new(),
                },
                curves,
            }
        })
        .collect();
    let mut note = None;
    if !get("compare_figure").is_empty() {
        let cdir = dir.join(get("compare_dir"));
        match crate::plot::summary(&cdir) {
            Ok(c) => {
                let curves = compare_curves(
                    &c,
                    &get("compare_x"),
                    &get("compare_y"),
                    &get("compare_series"),
                )?;
                for p in &mut panels {
                    p.curves.extend(curves.iter().map(|c| Curve {
                        key: c.key.clone(),
                        label: c.label.clone(),
                        points: c.points.clone(),
                        builtin: true,
                    }));
                }
                note = Some(format!(
                    "beside privpost's {} (same seed)",
                    get("compare_figure")
                ));
            }
            Err(_) => {
                note = Some(format!(
                    "{} not drawn: its folder {} has no summary.csv",
                    get("compare_figure"),
                    get("compare_dir")
                ))
            }
        }
    }
    let title = get("title");
    let plot = ExternalPlot {
        panels,
        log_x: get("log_x") == "true",
        log_y: get("log_y") == "true",
        x_label: get("x_label"),
        y_label: get("y_label"),
    };
    render_headed(plot, dir, Some(&title), note)
}

/// The built-in figure's curves from its overlay columns (series joined by `, `);
/// the standard error from the column `se` or `…_se` beside the metric, if any.
fn compare_curves(t: &Table, x: &str, y: &str, series: &str) -> Result<Vec<Curve>, DrawError> {
    let (xc, yc) = (t.col(x)?, t.col(y)?);
    let se_name = if y == "mean" {
        "se".to_string()
    } else {
        y.replace("_mean", "_se")
    };
    let sc = t.col(&se_name).ok();
    let series: Vec<usize> = series
        .split('+')
        .filter(|s| !s.is_empty())
        .map(|s| t.col(s))
        .collect::<Result<_, _>>()?;
    let mut curves: Vec<Curve> = Vec::new();
    for i in 0..t.rows.len() {
        let key = series
            .iter()
            .map(|&c| t.s(i, c))
            .collect::<Vec<_>>()
            .join(", ");
        let point = (t.f(i, xc), t.f(i, yc), sc.map_or(0.0, |c| t.f(i, c)));
        match curves.iter_mut().find(|c| c.key == key) {
            Some(c) => c.points.push(point),
            None => curves.push(Curve {
                label: format!("{} (privpost)", style::series(&key, 0).label),
                key,
                points: vec![point],
                builtin: true,
            }),
        }
    }
    for c in &mut curves {
        c.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(curves)
}

impl ExternalPlot {
    /// One legend entry per distinct curve key, in order of appearance.
    fn entries(&self) -> Vec<(String, style::Entry, style::SeriesStyle)> {
        let mut out: Vec<(String, style::Entry, style::SeriesStyle)> = Vec::new();
        for c in self.panels.iter().flat_map(|p| &p.curves) {
            let id = format!("{}{}", c.builtin, c.key);
            if out.iter().any(|(k, _, _)| *k == id) {
                continue;
            }
            let mut st = style::series(&c.key, out.len());
            st.label = c.label.clone();
            let mut e = style::Entry::of(&st);
            e.dashed = c.builtin;
            out.push((id, e, st));
        }
        out
    }
}

impl Draw for ExternalPlot {
    fn size(&self) -> (u32, u32) {
        let w = (200 + 720 * self.panels.len().min(3) as u32).max(1100);
        let entries: Vec<style::Entry> = self.entries().into_iter().map(|e| e.1).collect();
        (w, 620 + style::legend_height(&entries, w))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let styled = self.entries();
        let entries: Vec<style::Entry> = styled.iter().map(|e| e.1.clone()).collect();
        let (body, legend_area) = style::with_legend(root, &entries);
        let areas = body.split_evenly((1, self.panels.len().max(1)));
        for (panel, area) in self.panels.iter().zip(&areas) {
            self.draw_panel(panel, area, &styled)?;
        }
        style::legend_strip(&legend_area, &entries)
    }
}

impl ExternalPlot {
    /// The panel's axis ranges, padded (by a factor on a log axis): the finite
    /// points and their ± s.e. bars.
    fn ranges(&self, panel: &Panel) -> ((f64, f64), (f64, f64)) {
        let pts = || {
            panel
                .curves
                .iter()
                .flat_map(|c| c.points.iter())
                .filter(|p| {
                    p.0.is_finite()
                        && p.1.is_finite()
                        && (!self.log_x || p.0 > 0.0)
                        && (!self.log_y || p.1 > 0.0)
                })
        };
        let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for p in pts() {
            x_lo = x_lo.min(p.0);
            x_hi = x_hi.max(p.0);
            let se = if p.2.is_finite() { p.2 } else { 0.0 };
            y_lo = y_lo.min(if self.log_y { p.1 } else { p.1 - se });
            y_hi = y_hi.max(p.1 + se);
        }
        if !(x_lo.is_finite() && y_lo.is_finite()) {
            (x_lo, x_hi, y_lo, y_hi) = (1.0, 10.0, 1.0, 10.0);
        }
        let pad = |lo: f64, hi: f64, log: bool| {
            if log {
                (lo / 1.3, hi * 1.3)
            } else {
                let d = if hi > lo {
                    (hi - lo) * 0.06
                } else {
                    lo.abs().max(1.0) * 0.1
                };
                (lo - d, hi + d)
            }
        };
        let (x_lo, x_hi) = pad(x_lo, x_hi, self.log_x);
        let (y_lo, y_hi) = pad(y_lo, y_hi, self.log_y);
        ((x_lo, x_hi), (y_lo, y_hi))
    }

    fn draw_panel<DB: DrawingBackend>(
        &self,
        panel: &Panel,
        area: &DrawingArea<DB, Shift>,
        styled: &[(String, style::Entry, style::SeriesStyle)],
    ) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let ((x_lo, x_hi), (y_lo, y_hi)) = self.ranges(panel);
        let mut chart = ChartBuilder::on(area);
        chart
            .margin(14)
            .margin_right(40)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA);
        if !panel.title.is_empty() {
            chart.caption(&panel.title, ("sans-serif", style::LEGEND));
        }
        macro_rules! body {
            ($chart:expr) => {{
                let mut chart = $chart;
                style::mesh(&mut chart)
                    .x_desc(self.x_label.as_str())
                    .y_desc(self.y_label.as_str())
                    .x_label_formatter(&crate::plot::tick)
                    .y_label_formatter(&crate::plot::tick)
                    .draw()?;
                for c in &panel.curves {
                    let id = format!("{}{}", c.builtin, c.key);
                    let Some((_, _, st)) = styled.iter().find(|(k, _, _)| *k == id) else {
                        continue;
                    };
                    let color = st.color;
                    let line: Vec<(f64, f64)> = c
                        .points
                        .iter()
                        .filter(|p| (!self.log_x || p.0 > 0.0) && (!self.log_y || p.1 > 0.0))
                        .map(|p| (p.0, p.1))
                        .collect();
                    let stroke = ShapeStyle::from(&color).stroke_width(style::LINE);
                    if c.builtin {
                        chart.draw_series(DashedLineSeries::new(line.clone(), 10, 6, stroke))?;
                    } else {
                        chart.draw_series(LineSeries::new(line.clone(), stroke))?;
                    }
                    // bars first, the series' marker on top (as in the legend)
                    chart.draw_series(
                        c.points
                            .iter()
                            .filter(|p| {
                                p.2.is_finite()
                                    && p.2 > 0.0
                                    && (!self.log_x || p.0 > 0.0)
                                    && (!self.log_y || p.1 - p.2 > 0.0)
                            })
                            .map(|&(x, y, se)| {
                                style::Whisker::new((x, y - se), (x, y + se), color, 3)
                            }),
                    )?;
                    chart.draw_series(
                        line.iter()
                            .map(|&p| style::Mark::new(p, st.marker, color, 5)),
                    )?;
                }
            }};
        }
        match (self.log_x, self.log_y) {
            (true, true) => {
                body!(chart.build_cartesian_2d(
                    crate::plot::log_axis(x_lo..x_hi)?.log_scale(),
                    crate::plot::log_axis(y_lo..y_hi)?.log_scale()
                )?)
            }
            (true, false) => body!(chart.build_cartesian_2d(
                crate::plot::log_axis(x_lo..x_hi)?.log_scale(),
                crate::plot::axis(y_lo..y_hi)?
            )?),
            (false, true) => body!(chart.build_cartesian_2d(
                crate::plot::axis(x_lo..x_hi)?,
                crate::plot::log_axis(y_lo..y_hi)?.log_scale()
            )?),
            (false, false) => body!(chart.build_cartesian_2d(
                crate::plot::axis(x_lo..x_hi)?,
                crate::plot::axis(y_lo..y_hi)?
            )?),
        }
        Ok(())
    }
}
