//! Trace and density panels of MCMC draws: one row per parameter, the chains'
//! traces on the left (thin lines, no markers) and each chain's histogram
//! density on the right, so chains that disagree show in both.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style;
use super::{axis, tick, Draw, DrawError};

/// Most points of one chain's trace drawn (the draws are thinned evenly).
const TRACE_POINTS: usize = 1000;
/// Bins of each density histogram.
const BINS: usize = 30;

/// The draws of some parameters: `chains[p][c]` is chain c of parameter p.
pub struct TraceFigure {
    pub names: Vec<String>,
    pub chains: Vec<Vec<Vec<f64>>>,
    pub subtitle: Option<String>,
}

impl TraceFigure {
    fn chain_names(&self) -> Vec<String> {
        let n = self.chains.first().map_or(0, Vec::len);
        (1..=n).map(|c| format!("chain_{c}")).collect()
    }

    fn entries(&self) -> Vec<style::Entry> {
        self.chain_names()
            .iter()
            .enumerate()
            .map(|(k, n)| style::Entry::of(&style::series(n, k)))
            .collect()
    }
}

/// (lo, hi) of the finite values, widened when they coincide.
fn span<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 * lo.abs().max(1.0) {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    }
}

/// The histogram density of `values` on `BINS` bins over [lo, hi]: (centre, density).
fn density(values: &[f64], (lo, hi): (f64, f64)) -> Vec<(f64, f64)> {
    let width = (hi - lo) / BINS as f64;
    let mut counts = [0usize; BINS];
    for &x in values.iter().filter(|x| x.is_finite()) {
        counts[(((x - lo) / width) as usize).min(BINS - 1)] += 1;
    }
    let total = values.len().max(1) as f64 * width;
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (lo + (i as f64 + 0.5) * width, c as f64 / total))
        .collect()
}

impl Draw for TraceFigure {
    fn size(&self) -> (u32, u32) {
        let w = 1040;
        let head = style::heading_height(None, self.subtitle.as_deref(), w);
        (
            w,
            360 * self.names.len().max(1) as u32 + head + style::legend_height(&self.entries(), w),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let body = style::heading(&body, None, self.subtitle.as_deref())?;
        let areas = body.split_evenly((self.names.len().max(1), 2));
        let chain_names = self.chain_names();
        for (p, name) in self.names.iter().enumerate() {
            let chains = &self.chains[p];
            let (lo, hi) = span(chains.iter().flatten());
            let pad = 0.05 * (hi - lo);
            let draws = chains.iter().map(Vec::len).max().unwrap_or(1).max(2) as f64;
            // the traces
            let mut chart = ChartBuilder::on(&areas[2 * p])
                .caption(format!("{name}: trace"), ("sans-serif", style::TITLE))
                .margin(12)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(axis(1.0..draws)?, axis(lo - pad..hi + pad)?)?;
            style::mesh(&mut chart)
                .x_desc("draw after warm-up")
                .y_desc(name.as_str())
                .x_label_formatter(&|v: &f64| tick(v))
                .y_label_formatter(&|v: &f64| tick(v))
                .x_labels(6)
                .y_labels(6)
                .draw()?;
            for (c, values) in chains.iter().enumerate() {
                let color = style::series(&chain_names[c], c).color;
                let step = values.len().div_ceil(TRACE_POINTS).max(1);
                let line = values
                    .iter()
                    .enumerate()
                    .step_by(step)
                    .filter(|(_, v)| v.is_finite())
                    .map(|(i, &v)| ((i + 1) as f64, v));
                chart.draw_series(LineSeries::new(
                    line,
                    ShapeStyle::from(&color).stroke_width(1),
                ))?;
            }
            // the densities, one per chain
            let curves: Vec<Vec<(f64, f64)>> =
                chains.iter().map(|c| density(c, (lo, hi))).collect();
            let top = curves
                .iter()
                .flatten()
                .map(|p| p.1)
                .fold(0.0f64, f64::max)
                .max(f64::MIN_POSITIVE);
            let mut chart = ChartBuilder::on(&areas[2 * p + 1])
                .caption(format!("{name}: density"), ("sans-serif", style::TITLE))
                .margin(12)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(axis(lo - pad..hi + pad)?, axis(0.0..top * 1.08)?)?;
            style::mesh(&mut chart)
                .x_desc(name.as_str())
                .y_desc("density")
                .x_label_formatter(&|v: &f64| tick(v))
                .y_label_formatter(&|v: &f64| tick(v))
                .x_labels(6)
                .y_labels(6)
                .draw()?;
            for (c, curve) in curves.into_iter().enumerate() {
                let color = style::series(&chain_names[c], c).color;
                chart.draw_series(LineSeries::new(
                    curve,
                    ShapeStyle::from(&color).stroke_width(style::LINE),
                ))?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn density_integrates_to_one_and_spans_cover_the_draws() {
        let v: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin()).collect();
        let (lo, hi) = span(v.iter());
        assert!(lo >= -1.0 && hi <= 1.0 && hi > lo);
        let d = density(&v, (lo, hi));
        let width = (hi - lo) / BINS as f64;
        let mass: f64 = d.iter().map(|p| p.1 * width).sum();
        assert!((mass - 1.0).abs() < 1e-12, "{mass}");
        assert_eq!(span([2.0, 2.0].iter()), (1.5, 2.5));
    }

    #[test]
    fn the_figure_renders() {
        let dir = tempfile::tempdir().unwrap();
        let fig = TraceFigure {
            names: vec!["theta".into()],
            chains: vec![vec![vec![0.1, 0.4, 0.3, 0.2], vec![0.3, 0.2, 0.25, 0.5]]],
            subtitle: Some("test".into()),
        };
        crate::plot::render_as_in(&fig, dir.path(), "figure").unwrap();
        assert!(dir.path().join("figure.png").is_file());
        assert!(dir.path().join("figure.svg").is_file());
    }
}
