//! The trade-off plot of a figure's releases (`tradeoff.png`/`.svg`, written by the
//! run beside the figure): each curve is the smallest miss rate β an attacker can
//! have at false-positive rate α against one release (f-DP, `privacy::tradeoff`),
//! on a log α axis so the low-FPR regime the field reports (Carlini et al.'s
//! "TPR at low FPR") is visible. The dashed diagonal β = 1 − α is perfect privacy;
//! a curve further below it is a release an attacker can tell apart more easily.
//! A figure with many releases shows at most [`MAX_CURVES`] of them, spread evenly
//! over their advantage (the most and the least private always among them).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style;
use super::{tick, Draw, DrawError, PlotError};
use crate::privacy::event::Event;
use crate::privacy::release_risk::ReleaseRisk;
use crate::privacy::tradeoff::Curve;

/// Most curves one plot draws.
pub const MAX_CURVES: usize = 7;

/// Characters of a release's name in the legend (shortened in the middle).
const LABEL_CHARS: usize = 48;

/// The curves to draw: (label, (α, β) points).
pub struct TradeoffFigure {
    pub title: String,
    pub subtitle: String,
    pub curves: Vec<(String, Vec<(f64, f64)>)>,
}

/// How many curves are drawn of `n` distinct ones.
fn picked_len(n: usize) -> usize {
    n.min(MAX_CURVES)
}

fn short(label: &str) -> String {
    let n = label.chars().count();
    if n <= LABEL_CHARS {
        return label.to_string();
    }
    let half = (LABEL_CHARS - 1) / 2;
    let head: String = label.chars().take(half).collect();
    let tail: String = label.chars().skip(n - half).collect();
    format!("{head}…{tail}")
}

impl TradeoffFigure {
    /// The curves of `risks` (one per distinct event, at most [`MAX_CURVES`], spread
    /// over their advantage), each release's event found in `events` by its entry.
    /// `None` when no release has a curve.
    pub fn of(figure: &str, risks: &[ReleaseRisk], events: &[(&str, &Event)]) -> Option<Self> {
        let mut distinct: Vec<(&ReleaseRisk, &Event)> = Vec::new();
        for r in risks.iter().filter(|r| r.advantage.is_some()) {
            let Some(&(_, event)) = events.iter().find(|(s, _)| *s == r.entry) else {
                continue;
            };
            if !distinct.iter().any(|(_, e)| *e == event) {
                distinct.push((r, event));
            }
        }
        if distinct.is_empty() {
            return None;
        }
        distinct.sort_by(|a, b| {
            let adv = |r: &ReleaseRisk| r.advantage.unwrap_or(0.0);
            adv(b.0).total_cmp(&adv(a.0))
        });
        let n = distinct.len();
        let picked: Vec<usize> = if n <= MAX_CURVES {
            (0..n).collect()
        } else {
            let mut v: Vec<usize> = (0..MAX_CURVES)
                .map(|k| (k * (n - 1) + (MAX_CURVES - 1) / 2) / (MAX_CURVES - 1))
                .collect();
            v.dedup();
            v
        };
        let curves = picked
            .into_iter()
            .filter_map(|i| {
                let (r, event) = distinct[i];
                let curve = Curve::of_event(event).ok()?;
                let numbers = match (r.mu, r.tpr(1e-2)) {
                    (Some(mu), Some(t)) => {
                        format!(" (μ {}, TPR {} at FPR 0.01)", tick(&mu), tick(&t))
                    }
                    _ => String::new(),
                };
                Some((format!("{}{numbers}", short(&r.release)), curve.table(120)))
            })
            .collect();
        Some(TradeoffFigure {
            title: format!("{figure}: what a membership attacker can do against each release"),
            subtitle: format!(
                "f-DP trade-off curves{}; lower is riskier; μ-GDP and TPR as recorded in manifest.json",
                if n > MAX_CURVES {
                    format!(", {} of {n} distinct, spread over their advantage", picked_len(n))
                } else {
                    String::new()
                }
            ),
            curves,
        })
    }

    fn entries(&self) -> Vec<style::Entry> {
        let mut e: Vec<style::Entry> = self
            .curves
            .iter()
            .enumerate()
            .map(|(k, (label, _))| style::Entry::rule(label, style::sequence(k), false))
            .collect();
        e.push(style::Entry::rule(
            "β = 1 − α: perfect privacy",
            RGBColor(120, 120, 120),
            true,
        ));
        e
    }
}

/// Smallest α drawn (the log axis' left end).
const ALPHA_MIN: f64 = 1e-6;

impl Draw for TradeoffFigure {
    fn size(&self) -> (u32, u32) {
        let w = 1040;
        let head = style::heading_height(Some(&self.title), Some(&self.subtitle), w);
        (w, 620 + head + style::legend_height(&self.entries(), w))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let body = style::heading(&body, Some(&self.title), Some(&self.subtitle))?;
        let mut chart = ChartBuilder::on(&body)
            .margin(16)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA)
            .build_cartesian_2d((ALPHA_MIN..1.0).log_scale(), 0.0..1.0)?;
        style::mesh(&mut chart)
            .x_desc("α: the attacker's false-positive rate (log scale)")
            .y_desc("β: its smallest miss rate (1 − TPR)")
            .x_label_formatter(&|v: &f64| tick(v))
            .y_label_formatter(&|v: &f64| tick(v))
            .draw()?;
        let grey = RGBColor(120, 120, 120);
        let diagonal: Vec<(f64, f64)> = (0..=60)
            .map(|k| ALPHA_MIN.powf(1.0 - k as f64 / 60.0))
            .map(|a| (a, 1.0 - a))
            .collect();
        for pair in diagonal.chunks(2) {
            chart.draw_series(LineSeries::new(
                pair.iter().copied(),
                ShapeStyle::from(&grey).stroke_width(1),
            ))?;
        }
        for (k, (_, points)) in self.curves.iter().enumerate() {
            let line = points
                .iter()
                .copied()
                .filter(|&(a, b)| a >= ALPHA_MIN && b.is_finite());
            chart.draw_series(LineSeries::new(
                line,
                ShapeStyle::from(&style::sequence(k)).stroke_width(style::LINE),
            ))?;
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Writes `tradeoff.png` and `tradeoff.svg` of a figure's releases into `dir`;
/// nothing when no release has a curve.
pub fn render(
    dir: &Path,
    figure: &str,
    risks: &[ReleaseRisk],
    events: &[(&str, &Event)],
) -> Result<(), PlotError> {
    match TradeoffFigure::of(figure, risks, events) {
        Some(fig) => super::render_as_in(&fig, dir, "tradeoff"),
        None => Ok(()),
    }
}

/// One audit on the trade-off curve: the claimed curve beside the observed points
/// (linear axes): each threshold test's point (FPR, 1 − TPR) and its conservative
/// corner (the FPR's upper and the TPR's lower Clopper–Pearson bounds), red where
/// the corner lies below the claimed curve — a violation.
pub struct AuditPanel {
    /// Above the panel (empty: none).
    pub title: String,
    pub claimed: Vec<(f64, f64)>,
    pub points: Vec<crate::privacy::curve_audit::TradeoffPoint>,
}

impl AuditPanel {
    /// The panel of `claim`'s curve at 201 evenly spread α and the points found.
    pub fn new(
        title: String,
        claim: &crate::privacy::audit::ScoreClaim,
        points: Vec<crate::privacy::curve_audit::TradeoffPoint>,
    ) -> Self {
        let claimed = claim.curve();
        AuditPanel {
            title,
            claimed: (0..=200)
                .map(|k| k as f64 / 200.0)
                .map(|a| (a, claimed.beta(a)))
                .collect(),
            points,
        }
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let mut builder = ChartBuilder::on(area);
        builder
            .margin(16)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA);
        if !self.title.is_empty() {
            builder.caption(&self.title, ("sans-serif", style::TICK).into_font());
        }
        let mut chart = builder.build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
        style::mesh(&mut chart)
            .x_desc("α: false-positive rate")
            .y_desc("β: miss rate (1 − TPR)")
            .x_label_formatter(&|v: &f64| tick(v))
            .y_label_formatter(&|v: &f64| tick(v))
            .draw()?;
        chart.draw_series(LineSeries::new(
            self.claimed.iter().copied(),
            ShapeStyle::from(&style::sequence(0)).stroke_width(style::LINE),
        ))?;
        let grey = RGBColor(90, 90, 90);
        chart.draw_series(
            self.points
                .iter()
                .map(|p| Circle::new((p.fpr, 1.0 - p.tpr), 4, ShapeStyle::from(&grey))),
        )?;
        for p in &self.points {
            let color = if p.below_claim {
                RGBColor(200, 0, 0)
            } else {
                style::sequence(1)
            };
            chart.draw_series(std::iter::once(Cross::new(
                (p.fpr_upper, 1.0 - p.tpr_lower),
                6,
                ShapeStyle::from(&color).stroke_width(2),
            )))?;
        }
        Ok(())
    }
}

/// Audits on their claimed trade-off curves, one panel each (three to a row), with
/// one legend: `audit --samples --plot DIR` draws one, `privpost audit` one per
/// statistical audit (`audit-tradeoff.png`).
pub struct AuditFigure {
    pub title: String,
    pub panels: Vec<AuditPanel>,
}

/// Panels in a row of [`AuditFigure`].
const PANEL_COLUMNS: usize = 3;

impl AuditFigure {
    fn entries(&self) -> Vec<style::Entry> {
        vec![
            style::Entry::rule("claimed curve", style::sequence(0), false),
            style::Entry::point(
                "observed (FPR, 1 − TPR)",
                RGBColor(90, 90, 90),
                style::Marker::Circle,
            ),
            style::Entry::point(
                "its conservative corner (Clopper–Pearson)",
                style::sequence(1),
                style::Marker::Cross,
            ),
            style::Entry::point(
                "corner below the claimed curve: a violation",
                RGBColor(200, 0, 0),
                style::Marker::Cross,
            ),
        ]
    }

    /// (columns, rows) of the panel grid.
    fn grid(&self) -> (usize, usize) {
        let n = self.panels.len().max(1);
        let columns = n.min(PANEL_COLUMNS);
        (columns, n.div_ceil(columns))
    }
}

impl Draw for AuditFigure {
    fn size(&self) -> (u32, u32) {
        let (columns, rows) = self.grid();
        let (w, h) = if columns == 1 {
            (900, 640)
        } else {
            (600 * columns as u32, 520 * rows as u32)
        };
        let head = style::heading_height(Some(&self.title), None, w);
        (w, h + head + style::legend_height(&self.entries(), w))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let body = style::heading(&body, Some(&self.title), None)?;
        let (columns, rows) = self.grid();
        for (panel, area) in self.panels.iter().zip(body.split_evenly((rows, columns))) {
            panel.draw(&area)?;
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::event::Guarantee;
    use crate::privacy::ledger::Entry;
    use crate::privacy::release_risk::release_risks;

    #[test]
    fn curves_are_spread_over_the_releases_and_render() {
        let entries: Vec<Entry> = (1..=20)
            .map(|k| {
                Entry::new(
                    format!("sigma={k}"),
                    Event::Gaussian {
                        l2_sensitivity: 1.0,
                        sigma: k as f64 / 4.0,
                        rdp_scale: 0.5,
                    },
                    Guarantee::None,
                )
            })
            .collect();
        let risks = release_risks(&entries);
        let events: Vec<(&str, &Event)> = entries
            .iter()
            .map(|e| (e.series.as_str(), &e.event))
            .collect();
        let fig = TradeoffFigure::of("x", &risks, &events).expect("curves");
        assert_eq!(fig.curves.len(), MAX_CURVES);
        // the least and the most private are drawn
        assert!(
            fig.curves[0].0.starts_with("sigma=1 ("),
            "{}",
            fig.curves[0].0
        );
        assert!(
            fig.subtitle.contains("7 of 20 distinct"),
            "{}",
            fig.subtitle
        );
        assert!(fig.curves[MAX_CURVES - 1].0.starts_with("sigma=20 ("));
        let dir = tempfile::tempdir().unwrap();
        render(dir.path(), "x", &risks, &events).unwrap();
        assert!(dir.path().join("tradeoff.png").is_file());
        let svg = std::fs::read_to_string(dir.path().join("tradeoff.svg")).unwrap();
        assert!(svg.contains("perfect privacy"));
        assert_eq!(short(&"a".repeat(100)).chars().count(), LABEL_CHARS - 1);
    }
}
