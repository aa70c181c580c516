//! Foulds et al. §5 figures: state assignments per region over time (Fig. 3) and
//! per-state emission distributions (Figs. 4–5).

use crate::plot::{render, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::hmm::metrics::{best_matching, confusion};
use crate::plot::style::CATEGORIES;
use crate::plot::{first_seen, Draw, DrawError};
use crate::results::table::Table;

/// (month, one state per strip: None where unknown) of one cell.
pub type StateCell = (usize, Vec<Option<usize>>);

/// Per region: its name and cells; one horizontal strip per estimate.
pub struct States {
    pub title: String,
    pub strips: Vec<&'static str>,
    pub regions: Vec<(String, Vec<StateCell>)>,
    pub states: usize,
    pub x_desc: String,
}

/// Figure 3 (`last = false`: modal vs truth) or Figure 7 (`last = true`: modal of
/// the post-burn-in samples vs the last sample, and the truth) from the cell table.
/// The truth strip is left out when the data have none (CSV input).
pub fn states(rows: &[super::StateRow], last: bool) -> States {
    type Pick = fn(&super::StateRow) -> Option<usize>;
    let has_truth = rows.iter().any(|r| r.true_state.is_some());
    let mut cols: Vec<Pick> = vec![|r| Some(r.modal_state as usize)];
    let mut strips = vec!["modal over post-burn-in samples"];
    if last {
        cols.push(|r| Some(r.last_state as usize));
        strips.push("last sample");
    }
    if has_truth {
        cols.push(|r| r.true_state.map(|s| s as usize));
        strips.push("planted truth (relabelled to match)");
    }
    let mut states = 0;
    let (mut agree, mut total) = (0usize, 0usize);
    let mut regions: Vec<(String, Vec<StateCell>)> =
        first_seen(rows.iter().map(|r| r.region_name.as_str()))
            .into_iter()
            .map(|n| {
                let cells: Vec<StateCell> = rows
                    .iter()
                    .filter(|r| r.region_name == n)
                    .map(|r| {
                        agree += usize::from(r.modal_state == r.last_state);
                        total += 1;
                        (r.month as usize, cols.iter().map(|c| c(r)).collect())
                    })
                    .collect();
                for c in &cells {
                    states = c.1.iter().flatten().fold(states, |s, &k| s.max(k + 1));
                }
                (n.to_string(), cells)
            })
            .collect();
    // show the truth under the labels of the modal estimate it matches best
    if has_truth {
        let j = cols.len() - 1;
        let cells: Vec<&StateCell> = regions
            .iter()
            .flat_map(|r: &(String, Vec<StateCell>)| r.1.iter())
            .collect();
        let kt = cells
            .iter()
            .filter_map(|c| c.1[j])
            .max()
            .map_or(0, |m| m + 1);
        let ke = cells
            .iter()
            .filter_map(|c| c.1[0])
            .max()
            .map_or(0, |m| m + 1);
        if kt <= 8 && ke <= 12 {
            let pairs: Vec<(usize, usize)> = cells
                .iter()
                .filter_map(|c| Some((c.1[j]?, c.1[0]?)))
                .collect();
            let (tr, es): (Vec<usize>, Vec<usize>) = pairs.into_iter().unzip();
            let m = best_matching(&confusion(&tr, &es, kt, ke));
            let mut spare = ke.max(kt);
            let map: Vec<usize> = m
                .iter()
                .map(|e| {
                    e.unwrap_or_else(|| {
                        spare += 1;
                        spare - 1
                    })
                })
                .collect();
            for r in &mut regions {
                for c in &mut r.1 {
                    c.1[j] = c.1[j].map(|k| map[k]);
                }
            }
            for c in regions.iter().flat_map(|r| r.1.iter()) {
                states = c.1.iter().flatten().fold(states, |s, &k| s.max(k + 1));
            }
        }
    }
    let first = rows.iter().min_by_key(|r| r.month);
    let x_desc = match first {
        Some(r) => format!("month (month {} = {})", r.month, r.date),
        None => "month".into(),
    };
    let title = if last {
        format!(
            "bars per region: {} (last sample = modal in {:.0}% of cells)",
            strips.join(" / "),
            100.0 * agree as f64 / total.max(1) as f64
        )
    } else {
        format!("bars per region: {}", strips.join(" / "))
    };
    States {
        title,
        strips,
        regions,
        states,
        x_desc,
    }
}

impl States {
    fn entries(&self) -> Vec<crate::plot::style::Entry> {
        (0..self.states)
            .map(|k| crate::plot::style::Entry {
                label: format!("state {k}"),
                color: CATEGORIES[k % CATEGORIES.len()],
                marker: Some(crate::plot::style::Marker::Square),
                line: false,
                dashed: false,
            })
            .collect()
    }
}

impl Draw for States {
    fn size(&self) -> (u32, u32) {
        (
            1200,
            100 + (50 + 30 * self.strips.len() as u32) * self.regions.len() as u32
                + crate::plot::style::legend_height(&self.entries(), 1200),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let months = self
            .regions
            .iter()
            .flat_map(|r| r.1.iter().map(|c| c.0 + 1))
            .max()
            .unwrap_or(1);
        let rows = self.regions.len() as f64;
        let entries = self.entries();
        let (body, legend_area) = crate::plot::style::with_legend(root, &entries);
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .x_label_area_size(68)
            .y_label_area_size(17)
            .build_cartesian_2d(
                crate::plot::axis(0.0..months as f64)?,
                crate::plot::axis(0.0..rows)?,
            )?;
        chart
            .configure_mesh()
            .disable_mesh()
            .disable_y_axis()
            .x_desc(self.x_desc.as_str())
            .x_label_formatter(&|x: &f64| format!("{x:.0}"))
            .label_style(("sans-serif", crate::plot::style::px(14)))
            .draw()?;
        let n = self.strips.len() as f64;
        // each region: a name line, then the strips from top to bottom
        let (name_h, gap) = (0.3, 0.04);
        let strip_h = (1.0 - name_h - 0.06) / n;
        for (r, (name, cells)) in self.regions.iter().enumerate() {
            let top = rows - r as f64;
            chart.draw_series(std::iter::once(Text::new(
                name.clone(),
                (0.2, top - 0.05),
                ("sans-serif", crate::plot::style::px(13))
                    .into_font()
                    .color(&BLACK),
            )))?;
            for (month, values) in cells {
                let x = *month as f64;
                for (j, v) in values.iter().enumerate() {
                    let Some(k) = v else { continue };
                    let y0 = top - name_h - j as f64 * strip_h;
                    let color = CATEGORIES[k % CATEGORIES.len()];
                    let style = if self.strips[j].starts_with("planted truth") {
                        color.mix(0.55).filled()
                    } else {
                        color.filled()
                    };
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x, y0), (x + 1.0, y0 - strip_h + gap)],
                        style,
                    )))?;
                }
            }
        }
        crate::plot::style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// One state's emission summary.
#[derive(Clone, Default)]
pub struct StateEmissions {
    pub types: Vec<(String, f64)>,
    pub categories: Vec<(String, f64)>,
    /// P(= 1) of the three casualty features
    pub casualties: Vec<f64>,
    pub cells: usize,
}

/// Per state: its emission summary.
pub struct Emissions {
    pub states: Vec<StateEmissions>,
}

pub fn emissions(t: &Table) -> Result<Emissions, DrawError> {
    let rows: Vec<super::Fig45Row> = t.records().map_err(|e| DrawError(e.0))?;
    let k = rows.iter().map(|r| r.state as usize + 1).max().unwrap_or(0);
    let mut out = vec![StateEmissions::default(); k];
    for r in &rows {
        let s = &mut out[r.state as usize];
        s.cells = r.cells_in_state as usize;
        let p = r.probability;
        match r.feature.as_str() {
            "type" => s.types.push((r.label.clone(), p)),
            "category" => s.categories.push((r.label.clone(), p)),
            _ if r.value == 1 => s.casualties.push(p),
            _ => {}
        }
    }
    Ok(Emissions { states: out })
}

impl Draw for Emissions {
    fn size(&self) -> (u32, u32) {
        (1500, 60 + 520 * self.states.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let areas = root.split_evenly((self.states.len().max(1), 3));
        for (k, s) in self.states.iter().enumerate() {
            let color = CATEGORIES[k % CATEGORIES.len()];
            let probs = |v: &[(String, f64)]| v.iter().map(|x| x.1).collect::<Vec<f64>>();
            let names =
                |v: &[(String, f64)]| v.iter().map(|x| x.0.clone()).collect::<Vec<String>>();
            let panels: [(String, Vec<f64>, Vec<String>); 3] = [
                ("type".into(), probs(&s.types), names(&s.types)),
                (
                    "category".into(),
                    probs(&s.categories),
                    names(&s.categories),
                ),
                (
                    "P(casualty)".into(),
                    s.casualties.clone(),
                    ["friendly/host", "civilian", "enemy"]
                        .iter()
                        .map(|x| x.to_string())
                        .collect(),
                ),
            ];
            for (j, (name, probs, labels)) in panels.iter().enumerate() {
                let area = &areas[k * 3 + j];
                let top = probs.iter().copied().fold(0.0, f64::max).max(1e-3) * 1.1;
                let n = probs.len().max(1);
                // many values (the categories): name only the five most probable
                let shown: Vec<usize> = if probs.len() <= 12 {
                    (0..probs.len()).collect()
                } else {
                    // the five largest whose names do not touch: each at least
                    // `gap` bars from the ones already named
                    let mut idx: Vec<usize> = (0..probs.len()).collect();
                    idx.sort_by(|&a, &b| probs[b].total_cmp(&probs[a]));
                    let gap = (probs.len() / 12).max(2);
                    let mut named: Vec<usize> = Vec::new();
                    for i in idx {
                        if named.len() == 5 {
                            break;
                        }
                        if named.iter().all(|&j| i.abs_diff(j) >= gap) {
                            named.push(i);
                        }
                    }
                    named
                };
                let mut chart = ChartBuilder::on(area)
                    .caption(
                        if probs.len() > 12 {
                            format!("state {k} ({} cells): {name} (peaks named)", s.cells)
                        } else {
                            format!("state {k} ({} cells): {name}", s.cells)
                        },
                        ("sans-serif", crate::plot::style::TITLE - 4),
                    )
                    .margin(10)
                    .x_label_area_size(190)
                    .y_label_area_size(crate::plot::style::Y_AREA)
                    .build_cartesian_2d(
                        crate::plot::axis(-0.5..n as f64 - 0.5)?,
                        crate::plot::axis(0.0..top)?,
                    )?;
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .y_desc("probability")
                    .x_labels(n)
                    .y_labels(5)
                    .x_label_formatter(&|_: &f64| String::new())
                    .y_label_formatter(&crate::plot::tick)
                    .label_style(("sans-serif", crate::plot::style::TICK - 2))
                    .light_line_style(WHITE.mix(0.0))
                    .axis_desc_style(("sans-serif", crate::plot::style::DESC - 2))
                    .draw()?;
                chart.draw_series(probs.iter().enumerate().map(|(v, &p)| {
                    Rectangle::new([(v as f64 - 0.4, 0.0), (v as f64 + 0.4, p)], color.filled())
                }))?;
                // value names below the axis, read top to bottom, starting at the axis
                let font = ("sans-serif", crate::plot::style::TICK - 6)
                    .into_font()
                    .transform(FontTransform::Rotate90)
                    .color(&BLACK)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Center,
                    ));
                let (bx, by) = area.get_base_pixel();
                for &i in &shown {
                    let (x, y) = chart.backend_coord(&(i as f64, 0.0));
                    area.draw(&Text::new(
                        labels.get(i).cloned().unwrap_or_default(),
                        (x - bx, y - by + 8),
                        font.clone(),
                    ))?;
                }
            }
        }
        Ok(())
    }
}

/// Figure 6: one panel per (dataset, model), x = log10 ε, series mechanisms.
pub fn fig6(rows: &[super::Fig6Summary]) -> crate::plot::grid::PanelGrid {
    let order = first_seen(rows.iter().map(|r| r.mechanism.as_str()));
    let keys = first_seen(rows.iter().map(|r| (r.dataset.as_str(), r.model.as_str())));
    let panels = keys
        .iter()
        .map(|&(d, m)| {
            let bands = order
                .iter()
                .map(|&name| {
                    let pts = rows
                        .iter()
                        .filter(|r| r.dataset == d && r.model == m && r.mechanism == name)
                        .map(|r| (r.epsilon.log10(), r.mean, r.se))
                        .collect();
                    (name.to_string(), pts)
                })
                .collect();
            let model = match m {
                "naive_bayes" => "Naive Bayes",
                "hmm" => "HMM",
                other => other,
            };
            (format!("{model}, {}", title_case(d)), bands)
        })
        .collect();
    crate::plot::grid::PanelGrid {
        rows: 1,
        cols: keys.len(),
        panels,
        x_desc: "ε (log scale)".into(),
        y_desc: "test log-lik. per event".into(),
        order: order.into_iter().map(String::from).collect(),
        x_log10: true,
        subtitle: Some(
            "Synthetic war logs; mean ± s.e. over train/test splits; OPS: M samples averaged"
                .into(),
        ),

        y_descs: Vec::new(),
        shared_y: false,
        intervals: Vec::new(),
    }
}

/// foulds2016/recovery: columns datasets; rows ARI of the modal states, ARI of the
/// last sample, and the TV of the emissions; x = log10 ε, series mechanisms.
pub fn recovery(rows: &[super::recovery::RecoverySummary]) -> crate::plot::grid::PanelGrid {
    type Pick = fn(&super::recovery::RecoverySummary) -> (f64, f64);
    let order = first_seen(rows.iter().map(|r| r.mechanism.as_str()));
    let sets = first_seen(rows.iter().map(|r| r.dataset.as_str()));
    let metrics: [(Pick, &str); 3] = [
        (|r| (r.ari_modal_mean, r.ari_modal_se), "ARI (modal states)"),
        (|r| (r.ari_last_mean, r.ari_last_se), "ARI (last sample)"),
        (|r| (r.tv_mean, r.tv_se), "Emission TV (lower better)"),
    ];
    let mut panels = Vec::new();
    for (pick, title) in metrics {
        for &d in &sets {
            let bands = order
                .iter()
                .map(|&name| {
                    let pts = rows
                        .iter()
                        .filter(|r| r.dataset == d && r.mechanism == name)
                        .map(|r| {
                            let (m, s) = pick(r);
                            (r.epsilon.log10(), m, s)
                        })
                        .collect();
                    (name.to_string(), pts)
                })
                .collect();
            panels.push((format!("{title}, {}", title_case(d)), bands));
        }
    }
    crate::plot::grid::PanelGrid {
        rows: metrics.len(),
        cols: sets.len(),
        panels,
        x_desc: "ε (log scale)".into(),
        y_desc: "mean ± s.e. over repeats".into(),
        order: order.into_iter().map(String::from).collect(),
        x_log10: true,
        subtitle: Some("Synthetic war logs with planted states; model states = planted".into()),
        y_descs: Vec::new(),
        shared_y: false,
        intervals: Vec::new(),
    }
}

/// A preset or dataset name as a title word ("iraq" → "Iraq").
fn title_case(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// Foulds Fig. 3 (states per region) from `summary.csv`.
pub fn draw_fig3(dir: &Path) -> Result<(), DrawError> {
    draw_states(dir, false)
}

/// Foulds Fig. 7 (states under OPS, last sample vs modal) from `summary.csv`.
pub fn draw_fig7(dir: &Path) -> Result<(), DrawError> {
    draw_states(dir, true)
}

fn draw_states(dir: &Path, last: bool) -> Result<(), DrawError> {
    let rows = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    let mut figure = states(&rows, last);
    let own = std::mem::take(&mut figure.title);
    crate::plot::render_headed(figure, dir, Some("State per region and month"), Some(own))
}

/// Foulds Figs 4–5 (emissions) from `summary.csv`.
pub fn draw_fig4_5(dir: &Path) -> Result<(), DrawError> {
    crate::plot::render_headed(emissions(&summary(dir)?)?, dir, None, None)
}

/// Foulds Fig. 6 from `summary.csv`.
pub fn draw_fig6(dir: &Path) -> Result<(), DrawError> {
    let rows = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    render(&fig6(&rows), dir)
}

/// The recovery figure from `summary.csv`.
pub fn draw_recovery(dir: &Path) -> Result<(), DrawError> {
    let rows = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    render(&recovery(&rows), dir)
}
