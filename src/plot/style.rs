//! The house style for figures meant for a paper: text sizes that read at one- and
//! two-column width, one colour-blind-safe colour and marker per mechanism across
//! every figure, display names instead of identifiers, and one legend per figure
//! drawn outside the panels.
//!
//! Sizes are in pixels of the rendered canvas. The canvases are 900–1800 px wide and
//! print at 3.3 in (one column) to 7 in (two columns), so 24 px text prints at about
//! 8 pt; the earlier 12–15 px text printed at 3–4 pt.

use plotters::chart::{ChartContext, MeshStyle};
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

use super::DrawError;

/// Scale of every text size against the pre-issue-13 style.
pub const TEXT_SCALE: f64 = 1.8;

/// A text size of the earlier style, scaled by [`TEXT_SCALE`].
pub fn px(old: u32) -> u32 {
    (old as f64 * TEXT_SCALE).round() as u32
}

/// Panel titles.
pub const TITLE: u32 = 30;
/// Axis descriptions.
pub const DESC: u32 = 26;
/// Tick labels.
pub const TICK: u32 = 24;
/// Legend entries.
pub const LEGEND: u32 = 24;
/// Data line width.
pub const LINE: u32 = 3;
/// Room below an x axis for its ticks and description.
pub const X_AREA: u32 = 78;
/// Room left of a y axis for its ticks and description.
pub const Y_AREA: u32 = 104;

/// Okabe–Ito colours (Wong 2011, Nature Methods 8:441), safe for the common forms of
/// colour blindness; yellow is left out (unreadable on white).
pub const BLACK_: RGBColor = RGBColor(0, 0, 0);
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub const GREEN: RGBColor = RGBColor(0, 158, 115);
pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub const SKY: RGBColor = RGBColor(86, 180, 233);
/// Reference lines and intervals: the grey of every figure.
pub const GREY: RGBColor = RGBColor(100, 100, 100);

/// A point marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
    /// A hollow circle.
    Ring,
}

/// How a series is drawn and named.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesStyle {
    pub label: String,
    pub color: RGBColor,
    pub marker: Marker,
}

fn style(label: &str, color: RGBColor, marker: Marker) -> SeriesStyle {
    SeriesStyle {
        label: label.into(),
        color,
        marker,
    }
}

/// The style of a mechanism (or reference) by its identifier in the CSVs: the same
/// colour and marker wherever it appears. Identifiers this table does not know get
/// a readable name (underscores as spaces, first letter capitalised) and a colour
/// by their position `k` among the figure's series.
pub fn series(name: &str, k: usize) -> SeriesStyle {
    use Marker::*;
    match name {
        "true_posterior" | "posterior" => style("True posterior", BLACK_, Circle),
        "non_private" | "nonprivate" => style("Non-private", BLACK_, Circle),
        "reference" => style("Reference chains", BLACK_, Circle),
        "laplace" => style("Laplace", VERMILLION, Square),
        "laplace_per_cell" => style("Laplace (per region-month)", ORANGE, Cross),
        "laplace_consistent" => style("Laplace, consistent histograms", PURPLE, Cross),
        "laplace_noise_aware_gibbs" => style("Laplace, noise-aware (Gibbs)", BLUE, Ring),
        "ops" => style("OPS", GREEN, Triangle),
        "ops_m10" => style("OPS (M = 10)", GREEN, Triangle),
        "ops_m100" => style("OPS (M = 100)", SKY, Diamond),
        "diffuse" => style("Diffuse (Alg. 5)", BLUE, Circle),
        "diffused" => style("Diffused (Alg. 2)", BLUE, Circle),
        "concentrated" => style("Concentrated (Alg. 4)", ORANGE, Square),
        "concentrated_beta" => style("Concentrated (Alg. 3)", ORANGE, Square),
        "gaussian" => style("Gaussian mechanism", PURPLE, Diamond),
        "gibbs" => style("Gibbs posterior (Minami Thm 7)", PURPLE, Diamond),
        // purple, not blue: the calibration figure draws it beside Geumlek's Diffused
        "hellinger_em" => style("Smoothed-Hellinger EM", PURPLE, Diamond),
        "laplace_dim" => style("Laplace (dimension-proportional)", VERMILLION, Square),
        "laplace_hist" => style("Laplace (histogram sensitivity)", ORANGE, Triangle),
        "dp_mcmc" | "private" => style("DP-MCMC", BLUE, Circle),
        "dp_sgld" => style("DP-SGLD (as published, noise h)", VERMILLION, Square),
        "dp_sgld_corrected" => style("DP-SGLD (noise 2h)", GREEN, Triangle),
        "dp_sgld_tight" => style("DP-SGLD (as published), tight PLD ε", PURPLE, Diamond),
        "hmc" => style("HMC (privpost)", BLUE, Circle),
        "imh" => style("Independence MH (privpost)", ORANGE, Triangle),
        // sky and black, not blue and purple: raisa2021/gmm draws them beside DP-MCMC
        // and the tight DP-SGLD curve
        "dp_hmc" => style("DP-HMC", SKY, Ring),
        "penalty" => style("Penalty algorithm", ORANGE, Square),
        "dp_sgld_published" => style(
            "DP-SGLD (as published: their count, noise h)",
            VERMILLION,
            Square,
        ),
        "dp_sgnht" => style("DP-SGNHT", BLACK_, Cross),
        "paper_slice" => style("Slice sampler (paper)", VERMILLION, Square),
        "laplace_naive" => style("Laplace, naive (Foulds)", VERMILLION, Square),
        "laplace_noise_aware" => style("Laplace, noise-aware (exact)", SKY, Circle),
        "count_naive" => style("B&S count release, naive", ORANGE, Cross),
        "count_noise_aware" => style("B&S count release, noise-aware (exact)", SKY, Diamond),
        "count_gibbs" => style("B&S count release, noise-aware Gibbs", PURPLE, Triangle),
        "da_mcmc" => style("Laplace, data-augmentation MCMC (Ju et al.)", SKY, Cross),
        "naive" => style("Naive (noisy statistics read as exact)", VERMILLION, Square),
        "published" => style(
            "Record-wise, ratio as their script computes it",
            VERMILLION,
            Square,
        ),
        "record_wise" => style("Record-wise (Ju et al.)", BLUE, Circle),
        "soma" => style("SOMA (Xiong & Ju)", GREEN, Triangle),
        "random_scan" => style("Random-scan IMwG", VERMILLION, Square),
        "systematic_scan" => style("Systematic-scan IMwG (record-wise)", BLUE, Circle),
        "data_generating" => style("Data-generating value", GREY, Ring),
        "acceptance_bound" => style("Lower bound e^(−Δ₁/b)", PURPLE, Cross),
        "calibrated_95_band" => style("Calibrated: 95 % band", GREY, Ring),
        other => {
            let mut label: String = other.replace('_', " ");
            if let Some(first) = label.get(..1) {
                label = first.to_uppercase() + &label[1..];
            }
            style(
                &label,
                sequence(k),
                [Circle, Square, Triangle, Diamond, Cross][k % 5],
            )
        }
    }
}

/// Colours for an ordered family of curves (a parameter's values, not mechanisms).
pub fn sequence(k: usize) -> RGBColor {
    [BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, BLACK_][k % 7]
}

/// Colours for the categories of a filled area (the states of an HMM): the
/// sequence plus Okabe–Ito yellow, which reads as an area though not as a line.
pub const CATEGORIES: [RGBColor; 8] = [
    BLUE,
    VERMILLION,
    GREEN,
    PURPLE,
    ORANGE,
    SKY,
    BLACK_,
    RGBColor(240, 228, 66),
];

/// Tick positions of a log axis over `[lo, hi]` (0 < lo < hi): the decades when
/// the range holds at least three of them, else the 1-2-5 steps, else 1…9 per
/// decade, so a narrow range still gets several labelled ticks.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let within = |steps: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| steps.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
            .collect()
    };
    for steps in [
        &[1.0][..],
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ] {
        let t = within(steps);
        if t.len() >= 3 {
            return t;
        }
    }
    within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
}

/// A marker of `size` px centred at a data point: a plotters element, drawn with
/// `chart.draw_series(points.map(|p| Mark::new(p, marker, color, size)))`.
pub struct Mark<C> {
    pub at: C,
    pub marker: Marker,
    pub color: RGBColor,
    pub size: i32,
}

impl<C> Mark<C> {
    pub fn new(at: C, marker: Marker, color: RGBColor, size: i32) -> Self {
        Mark {
            at,
            marker,
            color,
            size,
        }
    }
}

impl<'a, C> PointCollection<'a, C> for &'a Mark<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Mark<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        let s = self.size;
        let fill = self.color.filled();
        match self.marker {
            Marker::Circle => backend.draw_circle((x, y), s.max(0) as u32, &fill, true),
            Marker::Square => backend.draw_rect((x - s, y - s), (x + s, y + s), &fill, true),
            Marker::Triangle => backend.fill_polygon(
                vec![(x, y - s - 1), (x - s - 1, y + s), (x + s + 1, y + s)],
                &fill,
            ),
            Marker::Diamond => backend.fill_polygon(
                vec![
                    (x, y - s - 2),
                    (x + s + 1, y),
                    (x, y + s + 2),
                    (x - s - 1, y),
                ],
                &fill,
            ),
            Marker::Ring => {
                let ring = self.color.stroke_width(3);
                backend.draw_circle((x, y), s.max(0) as u32, &ring, false)
            }
            Marker::Cross => {
                let line = self.color.stroke_width(3);
                backend.draw_line((x - s, y - s), (x + s, y + s), &line)?;
                backend.draw_line((x - s, y + s), (x + s, y - s), &line)
            }
        }
    }
}

/// `color` mixed towards white by `1 − alpha` (an opaque tint; plotters'
/// `mix` is a transparency, which a `Whisker` does not take).
pub fn shade_of(color: RGBColor, alpha: f64) -> RGBColor {
    let mix = |c: u8| (c as f64 * alpha + 255.0 * (1.0 - alpha)).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

/// A vertical error bar from `lo` to `hi` (data points at the same x) with caps
/// of `cap` px each side, and nothing at the mean: plotters' `ErrorBar` draws a
/// hollow circle there, which hid every series' own marker. Draw
/// the markers after the bars.
pub struct Whisker<C> {
    pub ends: [C; 2],
    pub color: RGBColor,
    pub cap: i32,
    pub width: u32,
}

impl<C> Whisker<C> {
    pub fn new(lo: C, hi: C, color: RGBColor, cap: i32) -> Self {
        Whisker {
            ends: [lo, hi],
            color,
            cap,
            width: 2,
        }
    }
}

impl<'a, C> PointCollection<'a, C> for &'a Whisker<C> {
    type Point = &'a C;
    type IntoIter = std::slice::Iter<'a, C>;
    fn point_iter(self) -> Self::IntoIter {
        self.ends.iter()
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Whisker<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let (Some(a), Some(b)) = (points.next(), points.next()) else {
            return Ok(());
        };
        let line = self.color.stroke_width(self.width);
        backend.draw_line(a, b, &line)?;
        for (x, y) in [a, b] {
            backend.draw_line((x - self.cap, y), (x + self.cap, y), &line)?;
        }
        Ok(())
    }
}

/// One legend entry: a label, its colour and marker, and whether it is a line
/// (else a marker alone).
#[derive(Debug, Clone)]
pub struct Entry {
    pub label: String,
    pub color: RGBColor,
    pub marker: Option<Marker>,
    pub line: bool,
    /// Dashed line (a reference level).
    pub dashed: bool,
}

impl Entry {
    /// A marker alone (points, not lines).
    pub fn point(label: &str, color: RGBColor, marker: Marker) -> Self {
        Entry {
            label: label.into(),
            color,
            marker: Some(marker),
            line: false,
            dashed: false,
        }
    }

    /// A line without marker, dashed or solid (a reference level, an interval).
    pub fn rule(label: &str, color: RGBColor, dashed: bool) -> Self {
        Entry {
            label: label.into(),
            color,
            marker: None,
            line: true,
            dashed,
        }
    }

    pub fn of(s: &SeriesStyle) -> Self {
        Entry {
            label: s.label.clone(),
            color: s.color,
            marker: Some(s.marker),
            line: true,
            dashed: false,
        }
    }
}

const SWATCH: i32 = 44;

fn entry_width(e: &Entry) -> i32 {
    // DejaVu Sans averages about 0.56 em per character
    SWATCH + 14 + (e.label.chars().count() as f64 * LEGEND as f64 * 0.56) as i32 + 34
}

/// Rows the legend needs across `width` px.
pub fn legend_rows(entries: &[Entry], width: u32) -> u32 {
    let mut rows = 1;
    let mut x = 20;
    for e in entries {
        let w = entry_width(e);
        if x + w > width as i32 - 10 && x > 20 {
            rows += 1;
            x = 20;
        }
        x += w;
    }
    rows
}

/// Height of a legend strip for `entries` across `width` px.
pub fn legend_height(entries: &[Entry], width: u32) -> u32 {
    if entries.is_empty() {
        0
    } else {
        16 + 38 * legend_rows(entries, width)
    }
}

/// A chart's mesh in the house style: tick labels at [`TICK`], axis
/// descriptions at [`DESC`], and no minor grid (a caller's own
/// `.light_line_style` brings it back). Callers add their descriptions, label
/// counts and formatters, then `.draw()`.
pub fn mesh<'a, 'b, DB, XT, YT, X, Y>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
{
    let mut m = chart.configure_mesh();
    m.label_style(("sans-serif", TICK))
        .axis_desc_style(("sans-serif", DESC))
        .light_line_style(WHITE.mix(0.0));
    m
}

/// Estimated width in px of `text` at `size` px (DejaVu Sans averages about
/// 0.56 em per character).
fn text_width(text: &str, size: u32) -> u32 {
    (text.chars().count() as f64 * size as f64 * 0.56).ceil() as u32
}

/// The subtitle broken into lines that fit `width` px, at its " · " and "; "
/// separators.
fn subtitle_lines(subtitle: &str, width: u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    // pieces between separators; a piece wider than the line breaks at spaces
    let limit = width.saturating_sub(40);
    let pieces = subtitle.split_inclusive(['·', ';']).flat_map(|piece| {
        if text_width(piece.trim(), DESC) <= limit {
            vec![piece.to_string()]
        } else {
            piece.split_inclusive(' ').map(str::to_string).collect()
        }
    });
    for piece in pieces {
        let piece = piece.as_str();
        let candidate = format!("{line}{piece}");
        if !line.is_empty() && text_width(candidate.trim(), DESC) > limit {
            lines.push(line.trim().to_string());
            line = piece.to_string();
        } else {
            line = candidate;
        }
    }
    if !line.trim().is_empty() {
        lines.push(line.trim().to_string());
    }
    // an edited parameters.csv cannot grow the canvas without bound
    if lines.len() > MAX_SUBTITLE_LINES {
        lines.truncate(MAX_SUBTITLE_LINES);
        if let Some(last) = lines.last_mut() {
            last.push_str(" …");
        }
    }
    lines
}

/// Most lines a subtitle takes (more are cut, ending in "…").
const MAX_SUBTITLE_LINES: usize = 4;

/// Height of a figure's heading across `width` px: a title line (when given)
/// and the subtitle's lines.
pub fn heading_height(title: Option<&str>, subtitle: Option<&str>, width: u32) -> u32 {
    let title = if title.is_some() { 46 } else { 0 };
    let sub = subtitle.map_or(0, |s| 12 + 34 * subtitle_lines(s, width).len() as u32);
    title + sub
}

/// Draws a figure's heading at the top of `root` — the title centred, and
/// under it the subtitle (what is fixed: ε, N, prior, "synthetic data") in
/// grey, wrapped to the width — and returns the area below it.
pub fn heading<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: Option<&str>,
    subtitle: Option<&str>,
) -> Result<DrawingArea<DB, Shift>, DrawError>
where
    DB::ErrorType: 'static,
{
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let (w, h) = root.dim_in_pixel();
    let height = heading_height(title, subtitle, w).min(h / 2);
    if height == 0 {
        return Ok(root.clone());
    }
    let (head, rest) = root.split_vertically(height);
    let centre = Pos::new(HPos::Center, VPos::Top);
    let mut y = 12;
    if let Some(t) = title {
        head.draw(&Text::new(
            t.to_string(),
            (w as i32 / 2, y),
            ("sans-serif", TITLE).into_font().color(&BLACK).pos(centre),
        ))?;
        y += 46;
    }
    if let Some(s) = subtitle {
        for line in subtitle_lines(s, w) {
            head.draw(&Text::new(
                line,
                (w as i32 / 2, y),
                ("sans-serif", DESC)
                    .into_font()
                    .color(&RGBColor(60, 60, 60))
                    .pos(centre),
            ))?;
            y += 34;
        }
    }
    Ok(rest)
}

/// Splits off a strip at the bottom of `root` for the figure's legend; returns
/// (panels area, legend area).
pub fn with_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let (w, h) = root.dim_in_pixel();
    let strip = legend_height(entries, w).min(h / 2);
    root.split_vertically(h - strip)
}

/// Draws the figure's one legend in `area` (from [`with_legend`]), outside every
/// panel: entries in rows, centred.
pub fn legend_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    let (w, _) = area.dim_in_pixel();
    // rows of entries
    let mut rows: Vec<Vec<&Entry>> = vec![Vec::new()];
    let mut x = 20;
    for e in entries {
        let ew = entry_width(e);
        if x + ew > w as i32 - 10 && x > 20 {
            rows.push(Vec::new());
            x = 20;
        }
        rows.last_mut().expect("a row").push(e);
        x += ew;
    }
    let font = ("sans-serif", LEGEND).into_font().color(&BLACK).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    for (r, row) in rows.iter().enumerate() {
        let total: i32 = row.iter().map(|e| entry_width(e)).sum();
        let mut x = ((w as i32 - total) / 2).max(10);
        let y = 8 + 38 * r as i32 + 19;
        for e in row {
            if e.line {
                let style = ShapeStyle::from(&e.color).stroke_width(LINE);
                if e.dashed {
                    for k in 0..4 {
                        area.draw(&PathElement::new(
                            vec![(x + 12 * k, y), (x + 12 * k + 7, y)],
                            style,
                        ))?;
                    }
                } else {
                    area.draw(&PathElement::new(vec![(x, y), (x + SWATCH, y)], style))?;
                }
            }
            if let Some(m) = e.marker {
                area.draw(&Mark::new((x + SWATCH / 2, y), m, e.color, 6))?;
            }
            area.draw(&Text::new(
                e.label.clone(),
                (x + SWATCH + 12, y),
                font.clone(),
            ))?;
            x += entry_width(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each mechanism keeps one colour and marker wherever it appears, and no two
    /// mechanisms that share a figure share a colour.
    #[test]
    fn mechanisms_that_share_a_figure_are_told_apart() {
        let figures: [&[&str]; 11] = [
            &[
                "dp_mcmc",
                "dp_sgld",
                "dp_sgld_corrected",
                "dp_sgld_tight",
                "penalty",
                "dp_hmc",
                "dp_sgnht",
            ],
            &[
                "penalty",
                "dp_hmc",
                "dp_sgld_published",
                "dp_sgld_corrected",
                "dp_sgnht",
            ],
            &["concentrated", "diffuse", "ops", "true_posterior", "gibbs"],
            &[
                "laplace",
                "non_private",
                "ops_m10",
                "ops_m100",
                "laplace_per_cell",
                "laplace_consistent",
                "laplace_noise_aware_gibbs",
            ],
            &["laplace", "ops", "posterior"],
            &["hellinger_em", "laplace_dim", "laplace_hist"],
            &["dp_mcmc", "dp_sgld", "dp_sgld_corrected", "dp_sgld_tight"],
            &["hmc", "imh", "paper_slice", "reference"],
            &[
                "diffused",
                "concentrated_beta",
                "gaussian",
                "true_posterior",
            ],
            &[
                "non_private",
                "published",
                "record_wise",
                "soma",
                "data_generating",
                "acceptance_bound",
            ],
            &["soma", "random_scan", "systematic_scan"],
        ];
        for names in figures {
            let styles: Vec<SeriesStyle> = names.iter().map(|n| series(n, 0)).collect();
            for i in 0..styles.len() {
                assert!(!styles[i].label.contains('_'), "{}", styles[i].label);
                for j in 0..i {
                    assert_ne!(
                        styles[i].color, styles[j].color,
                        "{} vs {}",
                        names[i], names[j]
                    );
                }
            }
        }
        assert_eq!(series("ops", 3).color, series("ops_m10", 0).color);
        assert_eq!(series("some_new_thing", 2).label, "Some new thing");
        // the calibration figure has more series than colours: colour and marker together differ
        let calibration = [
            "calibrated_95_band",
            "non_private",
            "laplace_naive",
            "laplace_noise_aware",
            "count_naive",
            "count_noise_aware",
            "count_gibbs",
            "ops",
            "diffused",
            "concentrated_beta",
            "hellinger_em",
            "da_mcmc",
        ];
        let looks: Vec<(RGBColor, Marker)> = calibration
            .iter()
            .map(|n| {
                let s = series(n, 0);
                (s.color, s.marker)
            })
            .collect();
        for i in 0..looks.len() {
            for j in 0..i {
                assert_ne!(
                    looks[i], looks[j],
                    "{} vs {}",
                    calibration[i], calibration[j]
                );
            }
        }
    }

    #[test]
    fn subtitles_wrap_at_their_separators() {
        let long = "ε = 1 · true p = 0.3 · N = 20 · prior = Beta(1, 1) · OPS a₀ = 0.2 · successes = 6 (drawn from Binomial(N, p))";
        let lines = subtitle_lines(long, 900);
        assert!(lines.len() >= 2, "{lines:?}");
        assert_eq!(lines.join(" "), long);
        for l in &lines {
            assert!(text_width(l, DESC) <= 900, "{l}");
        }
        assert_eq!(subtitle_lines("ε = 1", 900), vec!["ε = 1".to_string()]);
        // one piece longer than the line breaks at its spaces
        let words = "modal over post-burn-in samples / last sample / planted truth (relabelled to match) (last sample = modal in 80% of cells)";
        let lines = subtitle_lines(words, 900);
        assert!(lines.len() >= 2 && lines.iter().all(|l| text_width(l, DESC) <= 900));
        assert_eq!(lines.join(" "), words);
        // a huge subtitle is cut to a few lines
        let huge = "word ".repeat(100_000);
        assert_eq!(subtitle_lines(&huge, 900).len(), MAX_SUBTITLE_LINES);
        assert_eq!(heading_height(None, None, 900), 0);
        assert!(heading_height(Some("t"), Some(long), 900) > heading_height(Some("t"), None, 900));
    }

    #[test]
    fn log_axes_get_at_least_three_ticks() {
        assert_eq!(log_ticks(0.05, 200.0), vec![0.1, 1.0, 10.0, 100.0]);
        assert_eq!(log_ticks(0.4, 3.0), vec![0.5, 1.0, 2.0]);
        let narrow = log_ticks(0.55, 0.95);
        assert_eq!(narrow.len(), 4, "{narrow:?}");
        assert!(log_ticks(1.0, 0.5).is_empty());
    }

    #[test]
    fn legends_wrap_into_rows() {
        let e: Vec<Entry> = (0..6)
            .map(|k| Entry::of(&series("laplace_dim", k)))
            .collect();
        assert_eq!(legend_rows(&e[..1], 1400), 1);
        assert!(legend_rows(&e, 900) >= 3);
        assert_eq!(legend_height(&[], 900), 0);
    }
}
