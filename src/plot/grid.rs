//! A grid of panels, each with mean ± s.e. curves: the layout of the
//! logistic-regression figures and of the HMM sweeps (Foulds Fig. 6, recovery).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{self, Entry};
use super::{tick, Band, Draw, DrawError};

/// Panels in a rows × cols grid, each a set of (x, mean, se) series.
pub struct PanelGrid {
    pub rows: usize,
    pub cols: usize,
    pub panels: Vec<(String, Vec<Band>)>,
    pub x_desc: String,
    pub y_desc: String,
    /// series names in legend and drawing order (display names, colours and
    /// markers come from the house style, `style::series`)
    pub order: Vec<String>,
    /// x values are log10 of the quantity: ticks at whole decades, labelled
    /// with the quantity itself (0.1, 1, 10)
    pub x_log10: bool,
    /// a line under the panels' titles: fixed parameters, "synthetic data", …
    pub subtitle: Option<String>,
    /// the y label of each panel, in panel order (empty: `y_desc` for all), for
    /// panels of different metrics (Räisä's four were all "score")
    pub y_descs: Vec<String>,
    /// one y range for every panel (cells of one quantity, compared across
    /// panels); else each panel fits its own
    pub shared_y: bool,
    /// whisker ends (low, high) of each point where they are not y ± spread (a
    /// median's interquartile range): `intervals[panel][band][point]`; a panel
    /// without an entry (or an empty one) draws y ± spread
    pub intervals: Vec<Vec<Vec<(f64, f64)>>>,
}

/// The whisker ends of a panel's points: its explicit intervals, or y ± spread.
fn whiskers(bands: &[Band], intervals: Option<&Vec<Vec<(f64, f64)>>>) -> Vec<Vec<(f64, f64)>> {
    bands
        .iter()
        .enumerate()
        .map(|(b, (_, pts))| {
            pts.iter()
                .enumerate()
                .map(|(i, p)| {
                    intervals
                        .and_then(|iv| iv.get(b))
                        .and_then(|iv| iv.get(i))
                        .copied()
                        .unwrap_or((p.1 - p.2.max(0.0), p.1 + p.2.max(0.0)))
                })
                .collect()
        })
        .collect()
}

/// The y range (whisker ends) of the finite points of a panel's bands.
fn span(bands: &[Band], intervals: Option<&Vec<Vec<(f64, f64)>>>) -> (f64, f64) {
    let (mut y_lo, mut y_hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (band, ends) in bands.iter().zip(whiskers(bands, intervals)) {
        for (p, (lo, hi)) in band.1.iter().zip(ends) {
            if p.1.is_finite() {
                y_lo = y_lo.min(lo.min(p.1));
                y_hi = y_hi.max(hi.max(p.1));
            }
        }
    }
    (y_lo, y_hi)
}

impl PanelGrid {
    /// Each panel's y range before padding: its own, or with `shared_y` the
    /// range of every panel's points.
    pub fn y_ranges(&self) -> Vec<(f64, f64)> {
        let own: Vec<(f64, f64)> = self
            .panels
            .iter()
            .enumerate()
            .map(|(k, (_, bands))| span(bands, self.intervals.get(k)))
            .collect();
        let all = own.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, b| {
            (a.0.min(b.0), a.1.max(b.1))
        });
        if self.shared_y {
            vec![all; own.len()]
        } else {
            own
        }
    }

    fn entries(&self) -> Vec<Entry> {
        self.order
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                self.panels
                    .iter()
                    .any(|(_, bands)| bands.iter().any(|b| &b.0 == *n && !b.1.is_empty()))
            })
            .map(|(k, n)| Entry::of(&style::series(n, k)))
            .collect()
    }
}

impl Draw for PanelGrid {
    fn size(&self) -> (u32, u32) {
        let w = 520 * self.cols.max(1) as u32;
        let head = style::heading_height(None, self.subtitle.as_deref(), w);
        (
            w,
            440 * self.rows.max(1) as u32 + head + style::legend_height(&self.entries(), w),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let body = style::heading(&body, None, self.subtitle.as_deref())?;
        let areas = body.split_evenly((self.rows.max(1), self.cols.max(1)));
        let y_ranges = self.y_ranges();
        for (k, ((title, bands), area)) in self.panels.iter().zip(areas.iter()).enumerate() {
            let pts = bands
                .iter()
                .flat_map(|b| b.1.iter())
                .filter(|p| p.1.is_finite());
            let (mut x_lo, mut x_hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in pts {
                x_lo = x_lo.min(p.0);
                x_hi = x_hi.max(p.0);
            }
            let (y_lo, y_hi) = y_ranges[k];
            let y_desc = self.y_descs.get(k).unwrap_or(&self.y_desc);
            if !x_lo.is_finite() {
                continue;
            }
            if x_hi <= x_lo {
                x_hi = x_lo + 1.0;
            }
            let pad = 0.06 * (y_hi - y_lo).max(1e-3);
            // a log axis spans whole decades, so its ticks (at decades) always show
            let (x_lo, x_hi) = if self.x_log10 {
                (x_lo.floor() - 0.08, x_hi.ceil() + 0.08)
            } else {
                (x_lo - 0.2, x_hi + 0.2)
            };
            let (y_lo, y_hi) = (y_lo - pad, y_hi + pad);
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", style::TITLE))
                .margin(12)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(
                    crate::plot::axis(x_lo..x_hi)?,
                    crate::plot::axis(y_lo..y_hi)?,
                )?;
            style::mesh(&mut chart)
                .x_desc(self.x_desc.as_str())
                .y_desc(y_desc.as_str())
                .x_label_formatter(&|v: &f64| {
                    if self.x_log10 {
                        if (v - v.round()).abs() < 1e-9 {
                            tick(&10f64.powi(v.round() as i32))
                        } else {
                            String::new()
                        }
                    } else {
                        tick(v)
                    }
                })
                // a tick a rounding error away from 0 (e.g. −1.1e−16) is labelled 0
                .y_label_formatter(&|v: &f64| {
                    tick(&if v.abs() < 1e-9 * (y_hi - y_lo) {
                        0.0
                    } else {
                        *v
                    })
                })
                .x_labels(if self.x_log10 {
                    ((x_hi - x_lo).round() as usize + 1).clamp(2, 6)
                } else {
                    6
                })
                .y_labels(6)
                .draw()?;
            // series that coincide (Minami's Gibbs posterior and the Diffuse one
            // at the base-rate error) stay visible: earlier series are drawn
            // first with wider lines and larger markers, so a later one on top
            // leaves a rim of each
            let last = self.order.len().saturating_sub(1);
            let ends = whiskers(bands, self.intervals.get(k));
            for ((name, pts), ends) in bands.iter().zip(ends) {
                let k = self.order.iter().position(|o| o == name).unwrap_or(0);
                let st = style::series(name, k);
                let color = st.color;
                let below = last.saturating_sub(k).min(3);
                let line_style =
                    ShapeStyle::from(&color).stroke_width(style::LINE + below.min(2) as u32);
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
                chart.draw_series(LineSeries::new(line, line_style))?;
                chart.draw_series(pts.iter().zip(ends).map(|(&(x, _, _), (lo, hi))| {
                    style::Whisker::new((x, lo), (x, hi), color, 5)
                }))?;
                chart.draw_series(pts.iter().map(|&(x, m, _)| {
                    style::Mark::new((x, m), st.marker, color, 4 + 2 * below as i32)
                }))?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(shared_y: bool) -> PanelGrid {
        let band = |y: f64| -> Band { ("laplace".into(), vec![(0.0, y, 0.1), (1.0, -y, 0.0)]) };
        PanelGrid {
            rows: 1,
            cols: 2,
            panels: vec![("a".into(), vec![band(0.2)]), ("b".into(), vec![band(0.6)])],
            x_desc: "x".into(),
            y_desc: "y".into(),
            order: vec!["laplace".into()],
            x_log10: false,
            subtitle: None,
            y_descs: Vec::new(),
            shared_y,
            intervals: Vec::new(),
        }
    }

    /// Cells of one quantity share one y range; others fit their own.
    #[test]
    fn shared_y_gives_every_panel_the_range_of_all() {
        let own = grid(false).y_ranges();
        assert_eq!(own[0], (-0.2, 0.30000000000000004));
        assert_eq!(own[1], (-0.6, 0.7));
        let shared = grid(true).y_ranges();
        assert_eq!(shared, vec![(-0.6, 0.7), (-0.6, 0.7)]);
    }

    /// A panel with explicit whisker ends (a median's interquartile range) spans
    /// them, not y ± spread; panels without keep y ± spread.
    #[test]
    fn explicit_intervals_set_the_whiskers_and_the_range() {
        let mut g = grid(false);
        g.intervals = vec![Vec::new(), vec![vec![(0.5, 0.9), (-0.7, -0.1)]]];
        let own = g.y_ranges();
        assert_eq!(own[0], (-0.2, 0.30000000000000004));
        assert_eq!(own[1], (-0.7, 0.9));
        let bands = &g.panels[1].1;
        assert_eq!(
            whiskers(bands, g.intervals.get(1))[0],
            vec![(0.5, 0.9), (-0.7, -0.1)]
        );
        assert_eq!(whiskers(bands, None)[0], vec![(0.5, 0.7), (-0.6, -0.6)]);
    }
}
