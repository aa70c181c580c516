//! The overlay figure of `privpost combine`, in the house style: the figure's main metric (its registry row's [`Overlay`]) against its
//! x; hue and marker = the mechanism as in the figure itself, shade = the sweep
//! point (light → dark in the points' order, which `combine` sorts by value),
//! so the legend has one entry per mechanism and one grey shade per point
//! instead of one per pair; ± one standard error as a band where the summary
//! has one, a series that is the same at every sweep point drawn once, axis
//! labels from the figure, and optionally one panel per value of a second key
//! (`--facet KEY`).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{self, Entry, Mark, Marker};
use super::{tick, Draw, DrawError};
use crate::results::table::Table;

/// A figure's main metric for overlays: `y` against `x`, one line per
/// distinct value of the `series` columns (within each sweep point), with the
/// figure's own axis labels.
#[derive(Debug, Clone, Copy)]
pub struct Overlay {
    pub x: &'static str,
    pub y: &'static str,
    pub series: &'static [&'static str],
    pub x_label: &'static str,
    pub y_label: &'static str,
}

/// Most lines drawn in one overlay (the legend lists them all up to this).
pub const MAX_LINES: usize = 40;

/// Columns whose values name a mechanism or sampler (shown by display name and
/// drawn in its colour).
const MECHANISM_COLUMNS: [&str; 4] = ["algorithm", "mechanism", "sampler", "method"];

/// How far towards white the first sweep point's shade lies (the last point
/// has the mechanism's own colour).
const LIGHTEST: f64 = 0.62;

/// The shade of point `i` of `n` of a colour: from `LIGHTEST` towards white
/// (the first) to the colour itself (the last).
pub fn shade(color: RGBColor, i: usize, n: usize) -> RGBColor {
    let t = if n <= 1 {
        1.0
    } else {
        i as f64 / (n - 1) as f64
    };
    let w = LIGHTEST * (1.0 - t);
    let mix = |c: u8| (c as f64 + (255.0 - c as f64) * w).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

/// Whether point `i` of `n` is drawn dashed: every other point counted back from
/// the last (solid), so neighbouring sweep points differ in dash as well as in
/// shade (shades alone could not be told apart at ε = 1 and 10).
pub fn dashed(i: usize, n: usize) -> bool {
    i < n && (n - 1 - i) % 2 == 1
}

/// The neutral colour of the legend's point shades.
const POINT_GREY: RGBColor = RGBColor(40, 40, 40);

/// One drawn line: its legend label, look, points and (x, low, high) band.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    /// The series (mechanism) it belongs to, as the legend names it.
    pub series: String,
    /// Its sweep point's position among the points (`None`: the same at every point).
    pub point: Option<usize>,
    /// The series' own colour (the line's colour is its shade for the point).
    pub base: RGBColor,
    pub color: RGBColor,
    pub marker: Marker,
    pub points: Vec<(f64, f64)>,
    pub band: Vec<(f64, f64, f64)>,
}

/// One panel: a facet value (or none) and its lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: Option<String>,
    pub lines: Vec<Line>,
}

/// The overlay chart.
pub struct OverlayChart {
    pub title: String,
    pub x: String,
    pub y: String,
    pub panels: Vec<Panel>,
    /// The sweep points' labels, in drawing (value) order: the legend's shades.
    pub points: Vec<String>,
}

/// The standard-error column of `y`, if the table has one: `se` beside
/// `mean`, `<y>_se`, or `y` with `_mean` replaced by `_se`.
fn se_column(t: &Table, y: &str) -> Option<usize> {
    let mut names = vec![format!("{y}_se"), y.replace("_mean", "_se")];
    if y == "mean" {
        names.push("se".into());
    }
    names
        .iter()
        .filter(|n| n.as_str() != y)
        .find_map(|n| t.col(n).ok())
}

/// A row's series: its full label and its mechanism (if a series column names one).
fn series_of(t: &Table, i: usize, overlay: &Overlay, cols: &[usize]) -> (String, Option<String>) {
    let mut label = Vec::new();
    let mut mechanism = None;
    for (&c, name) in cols.iter().zip(overlay.series) {
        let value = t.s(i, c);
        if MECHANISM_COLUMNS.contains(name) {
            label.push(style::series(&value, 0).label);
            mechanism = Some(value);
        } else {
            label.push(format!("{name} {value}"));
        }
    }
    (label.join(", "), mechanism)
}

/// The panels of a combined table: rows grouped by facet value (the `facet`
/// column, `set.KEY` or `KEY`), then by series and sweep point (`point_col`);
/// a series whose points are identical at every sweep point becomes one line.
/// A group of the combined table's rows: ((facet, series, point), mechanism,
/// (x, y, se) points in row order).
type Group = (
    (String, String, String),
    Option<String>,
    Vec<(f64, f64, f64)>,
);

/// The column `--facet` names (`set.KEY` or `KEY`).
fn facet_column(t: &Table, facet: Option<&str>) -> Result<Option<usize>, DrawError> {
    Ok(match facet {
        None => None,
        Some(k) => Some(
            t.col(&format!("set.{k}"))
                .or_else(|_| t.col(k))
                .map_err(|_| {
                    DrawError(format!(
                        "--facet {k}: the combined table has no column set.{k} or {k} (allowed: {})",
                        t.header.join(", ")
                    ))
                })?,
        ),
    })
}

/// The rows with finite x and y grouped by (facet, series, point), in row
/// order, and the sweep points in first-seen order.
fn group_rows(
    t: &Table,
    overlay: &Overlay,
    point_col: usize,
    facet: Option<&str>,
) -> Result<(Vec<Group>, Vec<String>), DrawError> {
    let x = t.col(overlay.x)?;
    let y = t.col(overlay.y)?;
    let se = se_column(t, overlay.y);
    let cols: Vec<usize> = overlay
        .series
        .iter()
        .map(|c| t.col(c))
        .collect::<Result<_, _>>()?;
    let facet_col = facet_column(t, facet)?;
    let mut groups: Vec<Group> = Vec::new();
    let mut points: Vec<String> = Vec::new();
    for i in 0..t.rows.len() {
        let (xv, yv) = (t.f(i, x), t.f(i, y));
        if !xv.is_finite() || !yv.is_finite() {
            continue;
        }
        let s = se.map_or(0.0, |c| t.f(i, c));
        let s = if s.is_finite() { s } else { 0.0 };
        let point = t.s(i, point_col);
        if !points.contains(&point) {
            points.push(point.clone());
        }
        let (series, mechanism) = series_of(t, i, overlay, &cols);
        let key = (
            facet_col.map_or(String::new(), |c| t.s(i, c)),
            series,
            point,
        );
        match groups.iter().position(|(k, _, _)| *k == key) {
            Some(g) => groups[g].2.push((xv, yv, s)),
            None => groups.push((key, mechanism, vec![(xv, yv, s)])),
        }
    }
    Ok((groups, points))
}

pub fn panels(
    t: &Table,
    overlay: &Overlay,
    point_col: usize,
    facet: Option<&str>,
) -> Result<Vec<Panel>, DrawError> {
    let se = se_column(t, overlay.y);
    let (groups, points) = group_rows(t, overlay, point_col, facet)?;
    if groups.is_empty() {
        return Err(DrawError(format!(
            "no row has finite `{}` and `{}`",
            overlay.x, overlay.y
        )));
    }
    let mut facets: Vec<String> = Vec::new();
    let mut series: Vec<String> = Vec::new();
    for ((f, s, _), _, _) in &groups {
        if !facets.contains(f) {
            facets.push(f.clone());
        }
        if !series.contains(s) {
            series.push(s.clone());
        }
    }
    let mut out = Vec::new();
    let mut drawn = 0;
    let n_points = points.len();
    for f in &facets {
        let mut lines = Vec::new();
        for (k, s) in series.iter().enumerate() {
            let mine: Vec<&Group> = groups
                .iter()
                .filter(|((gf, gs, _), _, _)| gf == f && gs == s)
                .collect();
            let Some(first) = mine.first() else { continue };
            let (color, marker) = first.1.as_deref().map_or_else(
                || (style::sequence(k), Marker::Circle),
                |m| {
                    let st = style::series(m, k);
                    (st.color, st.marker)
                },
            );
            // the same at every sweep point: drawn once
            let invariant = points.len() > 1
                && mine.len() == points.len()
                && mine.iter().all(|g| g.2 == first.2);
            let shown: Vec<_> = if invariant {
                vec![(format!("{s} (the same at every point)"), *first, None)]
            } else {
                mine.iter()
                    .map(|g| {
                        let p = points.iter().position(|p| *p == g.0 .2).unwrap_or(0);
                        (format!("{s} · {}", g.0 .2), *g, Some(p))
                    })
                    .collect()
            };
            for (label, g, point) in shown {
                if drawn == MAX_LINES {
                    break;
                }
                drawn += 1;
                lines.push(Line {
                    label,
                    series: if invariant {
                        format!("{s} (the same at every point)")
                    } else {
                        s.clone()
                    },
                    point,
                    base: color,
                    color: point.map_or(color, |p| shade(color, p, n_points)),
                    marker,
                    points: g.2.iter().map(|&(x, y, _)| (x, y)).collect(),
                    band: if se.is_some() && g.2.iter().any(|q| q.2 > 0.0) {
                        g.2.iter().map(|&(x, y, s)| (x, y - s, y + s)).collect()
                    } else {
                        Vec::new()
                    },
                });
            }
        }
        out.push(Panel {
            title: facet.map(|k| format!("{k} = {f}")),
            lines,
        });
    }
    Ok(out)
}

/// Positive values spanning more than two decades are drawn on a log scale.
fn wide_positive(values: impl Iterator<Item = f64>) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values {
        if v <= 0.0 {
            return false;
        }
        lo = lo.min(v);
        hi = hi.max(v);
    }
    hi / lo > 100.0
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else {
        let pad = lo.abs().max(1.0) * 0.05;
        (lo - pad, hi + pad)
    }
}

impl OverlayChart {
    fn lines(&self) -> impl Iterator<Item = &Line> {
        self.panels.iter().flat_map(|p| p.lines.iter())
    }

    /// The legend: one entry per series in its own colour and marker (a
    /// facet repeats its series), then one grey shade per sweep point.
    pub fn entries(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        for l in self.lines() {
            if !out.iter().any(|e| e.label == l.series) {
                out.push(Entry {
                    label: l.series.clone(),
                    color: l.base,
                    marker: Some(l.marker),
                    line: true,
                    dashed: false,
                });
            }
        }
        if self.lines().any(|l| l.point.is_some()) {
            let n = self.points.len();
            for (i, p) in self.points.iter().enumerate() {
                out.push(Entry {
                    label: p.clone(),
                    color: shade(POINT_GREY, i, n),
                    marker: None,
                    line: true,
                    dashed: dashed(i, n),
                });
            }
        }
        out
    }

    /// Panels per row of the facet grid.
    fn columns(&self) -> usize {
        self.panels.len().clamp(1, 3)
    }
}

impl Draw for OverlayChart {
    fn size(&self) -> (u32, u32) {
        let cols = self.columns() as u32;
        let rows = self.panels.len().div_ceil(self.columns()) as u32;
        let width = (700 * cols).max(1200);
        (
            width,
            80 + 620 * rows + style::legend_height(&self.entries(), width),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (area, legend_area) = style::with_legend(root, &entries);
        let area = area.titled(&self.title, ("sans-serif", style::TITLE))?;
        let all = || self.lines().flat_map(|l| l.points.iter());
        let log_x = wide_positive(all().map(|q| q.0));
        let log_y = wide_positive(
            all()
                .map(|q| q.1)
                .chain(self.lines().flat_map(|l| l.band.iter().map(|b| b.1))),
        );
        let map = |x: f64, y: f64| {
            (
                if log_x { x.log10() } else { x },
                if log_y {
                    y.max(f64::MIN_POSITIVE).log10()
                } else {
                    y
                },
            )
        };
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for l in self.lines() {
            let band = l.band.iter().flat_map(|&(x, lo, hi)| [(x, lo), (x, hi)]);
            for (x, y) in l.points.iter().copied().chain(band) {
                let (x, y) = map(x, y);
                if x.is_finite() && y.is_finite() {
                    x0 = x0.min(x);
                    x1 = x1.max(x);
                    y0 = y0.min(y);
                    y1 = y1.max(y);
                }
            }
        }
        let (x0, x1) = padded(x0, x1);
        let (y0, y1) = padded(y0, y1);
        let rows = self.panels.len().div_ceil(self.columns());
        let cells = area.split_evenly((rows, self.columns()));
        // on a log axis only the decades are labelled
        let log_tick = |log: bool, v: &f64| {
            if !log {
                tick(v)
            } else if (v - v.round()).abs() < 1e-9 {
                tick(&10f64.powf(v.round()))
            } else {
                String::new()
            }
        };
        let x_tick = |v: &f64| log_tick(log_x, v);
        let y_tick = |v: &f64| log_tick(log_y, v);
        let desc = |name: &str, log: bool| {
            if log {
                format!("{name} (log scale)")
            } else {
                name.to_string()
            }
        };
        for (panel, cell) in self.panels.iter().zip(cells.iter()) {
            let mut chart = ChartBuilder::on(cell);
            if let Some(t) = &panel.title {
                chart.caption(t, ("sans-serif", style::DESC));
            }
            let mut chart = chart
                .margin(12)
                .margin_right(30)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA + 20)
                .build_cartesian_2d(crate::plot::axis(x0..x1)?, crate::plot::axis(y0..y1)?)?;
            style::mesh(&mut chart)
                .x_desc(desc(&self.x, log_x))
                .y_desc(desc(&self.y, log_y))
                .x_label_formatter(&x_tick)
                .y_label_formatter(&y_tick)
                .light_line_style(RGBColor(235, 235, 235))
                .draw()?;
            for l in &panel.lines {
                if !l.band.is_empty() {
                    let upper = l.band.iter().map(|&(x, _, hi)| map(x, hi));
                    let lower = l.band.iter().rev().map(|&(x, lo, _)| map(x, lo));
                    let polygon: Vec<(f64, f64)> = upper.chain(lower).collect();
                    chart.draw_series(std::iter::once(Polygon::new(
                        polygon,
                        l.color.mix(0.15).filled(),
                    )))?;
                }
                let pts: Vec<(f64, f64)> = l.points.iter().map(|&(x, y)| map(x, y)).collect();
                let line = ShapeStyle::from(&l.color).stroke_width(style::LINE);
                if l.point.is_some_and(|p| dashed(p, self.points.len())) {
                    chart.draw_series(DashedLineSeries::new(pts.iter().copied(), 9, 6, line))?;
                } else {
                    chart.draw_series(LineSeries::new(pts.iter().copied(), line))?;
                }
                chart.draw_series(pts.iter().map(|&p| Mark::new(p, l.marker, l.color, 6)))?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::table::Cell;

    fn table(rows: &[(&str, &str, f64, f64, f64)]) -> Table {
        Table::new(
            &["point", "mechanism", "n", "mean", "se"],
            rows.iter()
                .map(|&(p, m, n, y, s)| {
                    vec![
                        Cell::Str(p.into()),
                        Cell::Str(m.into()),
                        n.into(),
                        y.into(),
                        s.into(),
                    ]
                })
                .collect(),
        )
    }

    const OVERLAY: Overlay = Overlay {
        x: "n",
        y: "mean",
        series: &["mechanism"],
        x_label: "N",
        y_label: "error",
    };

    /// Colour follows the mechanism (as in the figure), the marker the sweep
    /// point; a series equal at every point is drawn once; se becomes a band.
    #[test]
    fn lines_follow_the_house_style() {
        let t = table(&[
            ("e=1", "laplace", 1.0, 0.5, 0.1),
            ("e=1", "ops", 1.0, 0.6, 0.0),
            ("e=2", "laplace", 1.0, 0.4, 0.1),
            ("e=2", "ops", 1.0, 0.6, 0.0),
        ]);
        let p = panels(&t, &OVERLAY, 0, None).unwrap();
        assert_eq!(p.len(), 1);
        let lines = &p[0].lines;
        assert_eq!(lines.len(), 3, "{lines:?}");
        let laplace = style::series("laplace", 0);
        // one hue and marker per mechanism, a shade per point: light, then its own colour
        assert!(lines[..2].iter().all(|l| l.base == laplace.color));
        assert!(lines[..2].iter().all(|l| l.marker == laplace.marker));
        assert_eq!(lines[1].color, laplace.color);
        assert_ne!(lines[0].color, lines[1].color);
        let lighter = |a: RGBColor, b: RGBColor| {
            (a.0 as u32 + a.1 as u32 + a.2 as u32) > (b.0 as u32 + b.1 as u32 + b.2 as u32)
        };
        assert!(lighter(lines[0].color, lines[1].color));
        assert_eq!(lines[0].band, vec![(1.0, 0.4, 0.6)]);
        assert_eq!(lines[2].label, "OPS (the same at every point)");
        assert!(lines[2].band.is_empty());
        assert_eq!(lines[2].color, style::series("ops", 0).color);
    }

    /// Eleven points of three mechanisms: a legend of 3 + 11 entries, not 33.
    #[test]
    fn the_legend_names_mechanisms_and_point_shades_not_every_pair() {
        let mut rows = Vec::new();
        let names: Vec<String> = (0..11).map(|i| format!("e={i}")).collect();
        for (i, p) in names.iter().enumerate() {
            for m in ["laplace", "ops", "non_private"] {
                rows.push((p.as_str(), m, 1.0, i as f64 + m.len() as f64, 0.1));
            }
        }
        let t = table(&rows);
        let panels = panels(&t, &OVERLAY, 0, None).unwrap();
        let chart = OverlayChart {
            title: String::new(),
            x: String::new(),
            y: String::new(),
            panels,
            points: names.clone(),
        };
        let e = chart.entries();
        assert_eq!(
            e.len(),
            14,
            "{:?}",
            e.iter().map(|e| &e.label).collect::<Vec<_>>()
        );
        assert_eq!(e[0].label, "Laplace");
        assert_eq!(e[3].label, "e=0");
        assert_eq!(e[13].label, "e=10");
    }

    #[test]
    fn a_facet_splits_the_panels_and_an_unknown_one_is_named() {
        let mut t = table(&[
            ("a", "laplace", 1.0, 0.5, 0.1),
            ("b", "laplace", 1.0, 0.4, 0.1),
        ]);
        t.header.push("set.k".into());
        t.rows[0].push(Cell::Str("2".into()));
        t.rows[1].push(Cell::Str("3".into()));
        let p = panels(&t, &OVERLAY, 0, Some("k")).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].title.as_deref(), Some("k = 2"));
        let e = panels(&t, &OVERLAY, 0, Some("zz")).unwrap_err();
        assert!(
            e.0.contains("--facet zz") && e.0.contains("set.k"),
            "{}",
            e.0
        );
    }
}
