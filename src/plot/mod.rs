//! What every figure's plot shares: rendering to PNG and SVG with plotters from
//! the CSVs alone (never by rerunning anything), the house style (palette,
//! legend, ticks), polyline clipping and the panel grid. Each figure's own
//! drawing lives beside its experiment (`experiments/<paper>/plot.rs`) and is
//! named by its registry row. Text uses DejaVu Sans embedded in the binary
//! (plotters' `ab_glyph` feature), so figures render on a fresh headless machine
//! without system fonts or fontconfig.

pub mod glyphs;
pub mod grid;
pub mod overlay;
pub mod style;
pub mod trace;
pub mod tradeoff;

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::results::table::Table;

#[derive(Debug, thiserror::Error)]
#[error("plotting {figure}: {message}")]
pub struct PlotError {
    pub figure: String,
    pub message: String,
}

/// Error of a drawing step, before the figure is known.
#[derive(Debug)]
pub struct DrawError(pub String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        DrawError(e.to_string())
    }
}

impl From<crate::results::table::MissingColumn> for DrawError {
    fn from(e: crate::results::table::MissingColumn) -> Self {
        DrawError(e.to_string())
    }
}

/// A figure that can draw itself on any plotters backend.
pub trait Draw {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static;
}

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

/// A figure's drawing step: renders its plots into `dir` from the CSVs there
/// (each experiment's registry row names one).
pub type DrawFn = fn(&Path) -> Result<(), DrawError>;

/// Renders a figure's plots in `dir` with `draw`. Each file is written under a
/// temporary name and renamed when complete.
pub fn render_dir(figure: &str, dir: &Path, draw: DrawFn) -> Result<(), PlotError> {
    register_font();
    draw(dir).map_err(|DrawError(message)| PlotError {
        figure: figure.to_string(),
        message: format!("{message} (from {})", dir.join("summary.csv").display()),
    })
}

/// Largest magnitude a plotted number may have: privpost writes nothing near
/// it, and axis ranges built from larger values overflow.
pub const MAX_PLOT_VALUE: f64 = 1e15;

/// Checks every number of a table read for plotting: finite and at most
/// [`MAX_PLOT_VALUE`] in magnitude, except `inf` in an `epsilon` column (an
/// infinite privacy level, documented in docs/outputs.md). privpost never
/// writes NaN, so a NaN means the file was damaged or edited; without this
/// check an axis range built from it makes the renderer loop forever.
pub fn check_numbers(t: &Table, path: &Path) -> Result<(), DrawError> {
    // a column holding numbers must hold only numbers (or empty cells): a
    // stray word there would be read as NaN
    for c in 0..t.header.len() {
        let text = |row: &Vec<crate::results::table::Cell>| match row.get(c) {
            Some(crate::results::table::Cell::Str(s)) => s.trim().to_string(),
            _ => String::new(),
        };
        // numeric: at least two thirds of its non-empty cells are numbers (a
        // label column may hold a few number-like labels such as "0")
        let (mut numbers, mut words) = (0usize, 0usize);
        for row in &t.rows {
            let w = text(row);
            if w.parse::<f64>().is_ok() {
                numbers += 1;
            } else if !w.is_empty() {
                words += 1;
            }
        }
        if numbers == 0 || numbers < 2 * words {
            continue;
        }
        if let Some((r, word)) = t.rows.iter().enumerate().find_map(|(r, row)| {
            let w = text(row);
            (!w.is_empty() && w.parse::<f64>().is_err()).then_some((r, w))
        }) {
            return Err(DrawError(format!(
                "{}: column `{}`, row {}: {word:?} is not a number (allowed: numbers, or an empty cell, in a numeric column)",
                path.display(),
                t.header[c],
                r + 1
            )));
        }
    }
    for (r, row) in t.rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let text = match cell {
                crate::results::table::Cell::Str(s) => s.trim(),
                _ => continue,
            };
            let Ok(x) = text.parse::<f64>() else {
                continue;
            };
            let column = t.header.get(c).map_or("?", String::as_str);
            // a long table (`item`, `value`: the audit's data.csv) holds privacy
            // levels in `value` under the items naming an ε
            let epsilon_item = column == "value"
                && t.header.iter().position(|h| h == "item").is_some_and(|ic| {
                    matches!(
                        t.s(r, ic).as_str(),
                        "estimate" | "audited" | "ci_low" | "ci_high" | "claim_epsilon"
                    )
                });
            let inf_ok = x.is_infinite() && x > 0.0 && (column.contains("epsilon") || epsilon_item);
            // a split-R̂ of chains that never moved is astronomically large (2·10¹⁶
            // for DP-HMC at step 1): data, which the figures draw off-scale
            let rhat_ok = column.starts_with("rhat") && x > 0.0;
            if !inf_ok
                && !rhat_ok
                && (x.is_nan() || x.abs() > MAX_PLOT_VALUE)
                && !is_identifier(column)
            {
                return Err(DrawError(format!(
                    "{}: column `{column}`, row {}: {text} (allowed: finite numbers of magnitude at most {MAX_PLOT_VALUE:e}; `inf` only in an epsilon column, or in `value` under an ε item; any positive value in a split-R̂ column)",
                    path.display(),
                    r + 1
                )));
            }
        }
    }
    Ok(())
}

/// An axis range checked before plotters computes its key points, which loops
/// forever on a NaN or infinite end: both ends finite and at most
/// [`MAX_PLOT_VALUE`] in magnitude, `lo ≤ hi` (equal ends are widened by 5 %,
/// or by 1 around 0, so that a single value still gets an axis). Every chart
/// is built through this (or [`log_axis`]): no drawing depends on a range it has
/// not validated.
pub fn axis(r: std::ops::Range<f64>) -> Result<std::ops::Range<f64>, DrawError> {
    let (lo, hi) = (r.start, r.end);
    let ok = |x: f64| x.is_finite() && x.abs() <= MAX_PLOT_VALUE;
    if !(ok(lo) && ok(hi) && lo <= hi) {
        return Err(DrawError(format!(
            "an axis would run from {lo} to {hi}: a column the figure plots holds no usable numbers (allowed: finite numbers of magnitude at most {MAX_PLOT_VALUE:e})"
        )));
    }
    if lo == hi {
        let w = if lo == 0.0 { 1.0 } else { 0.05 * lo.abs() };
        return Ok(lo - w..hi + w);
    }
    Ok(lo..hi)
}

/// A logarithmic axis range, checked as [`axis`] and with `lo > 0` (the caller
/// applies `.log_scale()`).
pub fn log_axis(r: std::ops::Range<f64>) -> Result<std::ops::Range<f64>, DrawError> {
    let r = axis(r)?;
    if r.start <= 0.0 {
        return Err(DrawError(format!(
            "a logarithmic axis would run from {} to {}: a column the figure plots holds no positive numbers (allowed: numbers > 0 on a log axis)",
            r.start, r.end
        )));
    }
    Ok(r)
}

/// An identifier column (`seed`, `*_seed`): a number that names a stream, never
/// plotted, so any integer a config may hold is allowed there.
pub fn is_identifier(column: &str) -> bool {
    // a `set.KEY` column labels the sweep point (what `--set` gave), it is not
    // drawn on an axis
    column == "seed" || column.ends_with("_seed") || column.starts_with("set.")
}

/// Checks a table read for plotting against the column kinds its run recorded in
/// the manifest: it has rows; a column written with a number in every row still
/// has one in every row; a column written as numbers and empty cells holds no
/// word. A word or an empty cell where the run wrote numbers would otherwise be
/// drawn as nothing, or as NaN. (Rows may be removed or repeated: an edited
/// selection of a figure's rows is plotted.)
pub fn check_kinds(
    t: &Table,
    kinds: &std::collections::BTreeMap<String, crate::results::table::ColumnKind>,
    path: &Path,
) -> Result<(), DrawError> {
    if t.rows.is_empty() {
        return Err(DrawError(format!(
            "{}: no rows (allowed: the rows the run wrote)",
            path.display()
        )));
    }
    use crate::results::table::ColumnKind;
    for (c, name) in t.header.iter().enumerate() {
        let kind = kinds.get(name).copied();
        if !matches!(kind, Some(ColumnKind::Number | ColumnKind::NumberOrEmpty)) {
            continue;
        }
        for (r, row) in t.rows.iter().enumerate() {
            let text = match row.get(c) {
                Some(crate::results::table::Cell::Str(s)) => s.trim(),
                _ => "",
            };
            let ok = if text.is_empty() {
                kind == Some(ColumnKind::NumberOrEmpty)
            } else {
                text.parse::<f64>().is_ok()
            };
            if !ok {
                return Err(DrawError(format!(
                    "{}: column `{name}`, row {}: {text:?} where the run wrote a number (allowed: {})",
                    path.display(),
                    r + 1,
                    if kind == Some(ColumnKind::Number) {
                        "a number in every row of this column"
                    } else {
                        "numbers or empty cells in this column"
                    }
                )));
            }
        }
    }
    Ok(())
}

/// `summary.csv` of a figure folder, its numbers checked.
pub fn summary(dir: &Path) -> Result<Table, DrawError> {
    read_checked(&dir.join("summary.csv"))
}

/// The file of a figure folder holding its fixed parameters (columns
/// `parameter,value`), written by the run from `Figure::parameters`.
pub const PARAMETERS: &str = "parameters.csv";

/// Most parameters a subtitle shows (an edited file with more is cut there).
const MAX_PARAMETERS: usize = 16;

/// Most characters of a parameter's name or value a subtitle shows.
const MAX_PARAMETER_CHARS: usize = 120;

/// The fixed parameters of the figure in `dir` as one subtitle text,
/// "ε = 1 · N = 20 · prior = Beta(1, 1) · synthetic data", from its
/// `parameters.csv`; `None` when the folder has none (a figure without fixed
/// parameters, or a folder written before the file existed).
pub fn parameters(dir: &Path) -> Result<Option<String>, DrawError> {
    let path = dir.join(PARAMETERS);
    if !path.exists() {
        return Ok(None);
    }
    let t = Table::read_csv(&path).map_err(|e| DrawError(e.0))?;
    let col = |name: &str| {
        t.col(name).map_err(|e| {
            DrawError(format!(
                "{}: {e}; allowed: the columns parameter,value",
                path.display()
            ))
        })
    };
    let (p, v) = (col("parameter")?, col("value")?);
    let parts: Vec<String> = (0..t.rows.len().min(MAX_PARAMETERS))
        .map(|i| {
            // at most MAX_PARAMETER_CHARS characters each (an edited file)
            let cut = |s: String| s.chars().take(MAX_PARAMETER_CHARS).collect::<String>();
            let (name, value) = (cut(t.s(i, p)), cut(t.s(i, v)));
            if value.trim().is_empty() {
                name
            } else {
                format!("{name} = {value}")
            }
        })
        .collect();
    Ok((!parts.is_empty()).then(|| parts.join(" · ")))
}

/// Joins a figure's own subtitle (what its panels show) and its parameters.
pub fn subtitle(own: Option<String>, parameters: Option<String>) -> Option<String> {
    match (own, parameters) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// `data.csv` of a figure folder, its numbers checked.
pub fn data(dir: &Path) -> Result<Table, DrawError> {
    read_checked(&dir.join("data.csv"))
}

pub fn read_checked(path: &Path) -> Result<Table, DrawError> {
    let t = Table::read_csv(path).map_err(|e| DrawError(e.0))?;
    check_numbers(&t, path)?;
    Ok(t)
}

/// A figure under a heading: its title and a subtitle line (what its panels
/// show, and the fixed parameters of the run from `parameters.csv`).
pub struct Headed<D> {
    pub figure: D,
    pub title: Option<String>,
    pub subtitle: Option<String>,
}

impl<D: Draw> Draw for Headed<D> {
    fn size(&self) -> (u32, u32) {
        let (w, h) = self.figure.size();
        (
            w,
            h + style::heading_height(self.title.as_deref(), self.subtitle.as_deref(), w),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let body = style::heading(root, self.title.as_deref(), self.subtitle.as_deref())?;
        self.figure.draw(&body)
    }
}

/// Renders `figure.png` and `figure.svg` of `figure` under `title` and a
/// subtitle joining `own` (what the panels show) and the run's fixed
/// parameters read from `dir` ([`parameters`]).
pub fn render_headed<D: Draw>(
    figure: D,
    dir: &Path,
    title: Option<&str>,
    own: Option<String>,
) -> Result<(), DrawError> {
    let headed = Headed {
        figure,
        title: title.map(str::to_string),
        subtitle: subtitle(own, parameters(dir)?),
    };
    render(&headed, dir)
}

/// Renders `figure.png` and `figure.svg`.
pub fn render<D: Draw>(d: &D, dir: &Path) -> Result<(), DrawError> {
    render_as(d, dir, "figure")
}

/// Renders `<stem>.png` and `<stem>.svg` in `dir`, with the house font.
pub fn render_as_in<D: Draw>(d: &D, dir: &Path, stem: &str) -> Result<(), PlotError> {
    register_font();
    render_as(d, dir, stem).map_err(|DrawError(message)| PlotError {
        figure: stem.to_string(),
        message,
    })
}

/// Most characters of the departures line a figure shows (the manifest and
/// `departures.txt` keep them all).
const MAX_DEPARTURE_CHARS: usize = 600;

/// The line above a figure whose run departs from the paper's setting
/// ([`crate::config::DEPARTURES`] in its folder: own config, a profile such
/// as smoke, changed values); `None` for a paper-scale run.
pub fn departures(dir: &Path) -> Option<String> {
    let text = crate::input::read_found_text(&dir.join(crate::config::DEPARTURES)).ok()?;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let all = format!("NOT THE PAPER'S SETTING: {}", lines.join("; "));
    Some(all.chars().take(MAX_DEPARTURE_CHARS).collect())
}

/// Renders `<stem>.png` and `<stem>.svg`; a run that departs from the
/// paper's setting says so in a subtitle line above the figure ([`departures`]).
pub fn render_as<D: Draw>(d: &D, dir: &Path, stem: &str) -> Result<(), DrawError> {
    let note = departures(dir);
    let (w, h) = d.size();
    let extra = note
        .as_deref()
        .map_or(0, |n| style::heading_height(None, Some(n), w));
    let size = (w, h + extra);
    let io = |e: std::io::Error| DrawError(e.to_string());
    let png_tmp = dir.join(format!(".{stem}.tmp.png"));
    {
        let root = glyphs::GlyphBitMap(BitMapBackend::new(&png_tmp, size)).into_drawing_area();
        root.fill(&WHITE)?;
        let body = style::heading(&root, None, note.as_deref())?;
        d.draw(&body)?;
        root.present()?;
    }
    crate::results::fault_point();
    let svg_tmp = dir.join(format!(".{stem}.tmp.svg"));
    {
        let root = SVGBackend::new(&svg_tmp, size).into_drawing_area();
        root.fill(&WHITE)?;
        let body = style::heading(&root, None, note.as_deref())?;
        d.draw(&body)?;
        root.present()?;
    }
    crate::results::fault_point();
    std::fs::rename(&png_tmp, dir.join(format!("{stem}.png"))).map_err(io)?;
    crate::results::fault_point();
    std::fs::rename(&svg_tmp, dir.join(format!("{stem}.svg"))).map_err(io)?;
    crate::results::fault_point();
    Ok(())
}

/// Tick label with at most three significant digits and no trailing zeros.
pub fn tick(v: &f64) -> String {
    if *v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A named series of (x, mean, spread) points.
pub type Band = (String, Vec<(f64, f64, f64)>);

/// Splits a polyline at non-finite points and clips it to `y ≤ y_max`,
/// interpolating the crossing so a curve that leaves the axes ends on its edge.
pub fn clip_polyline(points: &[(f64, f64)], y_max: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    let mut prev: Option<(f64, f64)> = None;
    for &(x, y) in points {
        let inside = y.is_finite() && y <= y_max;
        match (prev, inside) {
            (Some((px, py)), true) if py > y_max && py.is_finite() => {
                current.push((px + (x - px) * (y_max - py) / (y - py), y_max));
                current.push((x, y));
            }
            (Some((px, py)), true) if py.is_infinite() && py > 0.0 => {
                current.push((px, y_max));
                current.push((x, y));
            }
            (_, true) => current.push((x, y)),
            (Some((px, py)), false) if py <= y_max && y > y_max => {
                let cx = if y.is_finite() {
                    px + (x - px) * (y_max - py) / (y - py)
                } else {
                    x
                };
                current.push((cx, y_max));
                out.push(std::mem::take(&mut current));
            }
            _ => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
        }
        prev = Some((x, y));
    }
    if !current.is_empty() {
        out.push(current);
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Reads (x, y) pairs of the rows where `key` columns equal the given values.
pub fn series(t: &Table, filter: &[(usize, &str)], x: usize, y: usize) -> Vec<(f64, f64)> {
    (0..t.rows.len())
        .filter(|&i| filter.iter().all(|&(c, v)| t.s(i, c) == v))
        .map(|i| (t.f(i, x), t.f(i, y)))
        .collect()
}

/// Distinct items in first-seen order (a typed record's column, say).
pub fn first_seen<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Distinct values of a column in first-seen order.
pub fn distinct(t: &Table, col: usize) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for i in 0..t.rows.len() {
        let v = t.s(i, col);
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen
}

/// Test support: `figure` drawn into an area that starts `SHIFT` px down the canvas
/// (as under a departures line) must be the same picture moved down by `SHIFT`: every
/// vertical coordinate of its SVG (`y`, `cy`, `y1`, `y2`, the y of `points`) exactly
/// `SHIFT` more, every other attribute equal. A label placed by the canvas's pixels
/// (`chart.backend_coord`) but drawn in the area's pixels fails it: the audit figure's
/// row tags once sat a row below their markers under a smoke run's line.
#[cfg(test)]
pub fn assert_shift_invariant<D: Draw>(figure: &D) {
    const SHIFT: u32 = 37;
    register_font();
    let (w, h) = figure.size();
    let svg = |shift: u32| {
        let mut out = String::new();
        {
            // no background fill: every element drawn is the figure's own
            let root = SVGBackend::with_string(&mut out, (w, h + shift)).into_drawing_area();
            let body = if shift == 0 {
                root.clone()
            } else {
                root.split_vertically(shift).1
            };
            figure.draw(&body).unwrap();
            root.present().unwrap();
        }
        out
    };
    let (plain, shifted) = (svg(0), svg(SHIFT));
    let attrs = |text: &str| -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut rest = text;
        while let Some(eq) = rest.find("=\"") {
            let name_start = rest[..eq].rfind([' ', '<', '\n']).map_or(0, |i| i + 1);
            let name = rest[name_start..eq].to_string();
            let value_end = rest[eq + 2..].find('"').map_or(rest.len(), |i| eq + 2 + i);
            out.push((name, rest[eq + 2..value_end].to_string()));
            rest = &rest[(value_end + 1).min(rest.len())..];
        }
        out
    };
    let (a, b) = (attrs(&plain), attrs(&shifted));
    assert_eq!(a.len(), b.len(), "the shifted figure draws other elements");
    let moved = |v: &str| -> String {
        v.parse::<i64>()
            .map(|y| (y + SHIFT as i64).to_string())
            .unwrap_or_else(|_| v.to_string())
    };
    for ((na, va), (nb, vb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        let want = match na.as_str() {
            "y" | "cy" | "y1" | "y2" => moved(va),
            "points" => va
                .split(' ')
                .map(|p| match p.split_once(',') {
                    Some((x, y)) => format!("{x},{}", moved(y)),
                    None => p.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" "),
            "height" | "viewBox" => continue,
            _ => va.clone(),
        };
        assert_eq!(
            &want, vb,
            "attribute {na}: {va} drawn at {vb} under a {SHIFT}-px line"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_make_one_subtitle_and_a_damaged_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(parameters(dir.path()).unwrap(), None);
        let path = dir.path().join(PARAMETERS);
        std::fs::write(
            &path,
            "parameter,value\nε,1\nprior,\"Beta(1, 1)\"\nsynthetic data,\n",
        )
        .unwrap();
        assert_eq!(
            parameters(dir.path()).unwrap().as_deref(),
            Some("ε = 1 · prior = Beta(1, 1) · synthetic data")
        );
        assert_eq!(
            subtitle(Some("own".into()), Some("ε = 1".into())).as_deref(),
            Some("own; ε = 1")
        );
        assert_eq!(subtitle(None, None), None);
        std::fs::write(&path, "name,value\nε,1\n").unwrap();
        let DrawError(e) = parameters(dir.path()).unwrap_err();
        assert!(e.contains(PARAMETERS) && e.contains("parameter"), "{e}");
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(&0.7000000000000001), "0.7");
        assert_eq!(tick(&0.30000000000000004), "0.3");
        assert_eq!(tick(&10000.0), "10000");
        assert_eq!(tick(&0.0125), "0.0125");
        assert_eq!(tick(&2.5), "2.5");
    }

    #[test]
    fn clipping_ends_curves_on_the_top_edge() {
        let pts = [
            (0.0, 0.5),
            (1.0, 1.5),
            (2.0, 3.0),
            (3.0, f64::INFINITY),
            (4.0, 1.0),
        ];
        let segs = clip_polyline(&pts, 2.0);
        assert_eq!(segs.len(), 2);
        assert_eq!(
            segs[0],
            vec![(0.0, 0.5), (1.0, 1.5), (1.0 + 0.5 / 1.5, 2.0)]
        );
        assert_eq!(segs[1], vec![(3.0, 2.0), (4.0, 1.0)]);
    }
}
