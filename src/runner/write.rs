//! What a finished run writes: the tables (data, summary with the sweep's columns,
//! side tables, each refused if it holds a NaN) and the folder (CSVs, departures,
//! plots, manifest with the ledger), written into a temporary folder that the
//! caller swaps in.

use super::{
    estimate, rfc3339, write_text, CacheUse, Cell, Figure, Instant, Manifest, Options, Path,
    Resolved, Row, RunError, Spec, SystemTime, Table, Timings, WriteError,
};
use crate::results::cache;
use crate::runner::check_columns;
use crate::runner::with_sweep_columns;

/// The tables of a finished run.
pub(super) struct Outputs {
    pub data: Table,
    pub summary: Table,
    pub side: Vec<(String, Table)>,
    /// the kept posterior draws (`draws.csv`) and their layout
    pub draws: Option<(crate::results::draws::Layout, Table)>,
}

/// The facts of a run its manifest records.
pub(super) struct Facts<'a> {
    pub id: &'a str,
    pub key: &'a str,
    pub noise: crate::privacy::event::NoiseMode,
    pub jobs: usize,
    pub tasks: usize,
    pub computed: usize,
    pub cached: usize,
    pub started: SystemTime,
    pub clock: Instant,
    pub task_seconds: f64,
    pub summary_seconds: f64,
    pub options: &'a Options,
}

/// Summarises the rows into the run's tables (data.csv keeps what the figure
/// writes of it).
pub(super) fn outputs(
    spec: &Spec,
    figure: &dyn Figure,
    resolved: &Resolved,
    id: &str,
    tasks: impl Iterator<Item = Vec<Row>>,
) -> Result<Outputs, RunError> {
    // in task order: data.csv's rows, and the kept draws a figure splits off
    let mut draw_rows = Vec::new();
    let rows: Vec<Row> = tasks
        .flat_map(|task| {
            let (data, draws) = figure.split_task_rows(task);
            draw_rows.extend(draws);
            data
        })
        .collect();
    let id = id.to_string();
    // the column names the quantity; the keys this run changed name the cause
    let changed = if resolved.departures.is_empty() {
        String::new()
    } else {
        format!(
            "; this run departs from the paper's setting in: {}",
            resolved.departures.join("; ")
        )
    };
    let nan = |file: &'static str| {
        let figure = id.clone();
        let changed = changed.clone();
        move |c: crate::results::table::NanCell| RunError::NotANumber {
            figure,
            file,
            column: c.column,
            row: c.row,
            changed,
        }
    };
    let data = Table::new(spec.data_columns.get(), rows)
        .without_nan()
        .map_err(nan("data.csv"))?;
    let summary = figure
        .summarize(&data)
        .map_err(|source| RunError::Summary {
            figure: id.clone(),
            source,
        })?;
    check_columns(&id, "summary.csv", &summary, spec.summary_columns.get())?;
    let summary = with_sweep_columns(summary, resolved)
        .without_nan()
        .map_err(nan("summary.csv"))?;
    let mut side = figure
        .side_tables(&data)
        .map_err(|source| RunError::Summary {
            figure: id.clone(),
            source,
        })?;
    let parameters = figure.parameters();
    if !parameters.is_empty() {
        side.push((
            crate::plot::PARAMETERS.to_string(),
            Table::new(
                &["parameter", "value"],
                parameters
                    .into_iter()
                    .map(|(k, v)| vec![Cell::Str(k), Cell::Str(v)])
                    .collect(),
            ),
        ));
    }
    let side = side
        .into_iter()
        .map(|(name, table)| {
            let simple = name.ends_with(".csv")
                && !["data.csv", "summary.csv", crate::results::draws::FILE]
                    .contains(&name.as_str())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            if !simple {
                return Err(RunError::Summary {
                    figure: id.clone(),
                    source: anyhow::anyhow!(
                        "side table name {name:?} is not a plain new CSV file name"
                    ),
                });
            }
            let table = table.without_nan().map_err(|c| RunError::NotANumber {
                figure: id.clone(),
                file: "side table",
                column: c.column,
                row: c.row,
                changed: changed.clone(),
            })?;
            Ok((name, table))
        })
        .collect::<Result<Vec<_>, RunError>>()?;

    // kept draws may hold NaN (a diverged chain), written as empty cells
    let draws = figure
        .kept_draws(&data, draw_rows)
        .map_err(|source| RunError::Summary {
            figure: id.clone(),
            source,
        })?
        .map(|k| (k.layout(), k.into_table()));
    // what data.csv keeps (a figure may leave out rows its side tables hold)
    let data = figure.written_data(data);
    Ok(Outputs {
        data,
        summary,
        side,
        draws,
    })
}

/// Writes the run's folder into `tmp`: CSVs, departures, plots, manifest.
pub(super) fn folder(
    tmp: &Path,
    out: &Outputs,
    spec: &Spec,
    figure: &dyn Figure,
    resolved: &Resolved,
    facts: &Facts,
) -> Result<(), RunError> {
    let (data, summary, side) = (&out.data, &out.summary, &out.side);
    let (id, options, clock) = (facts.id.to_string(), facts.options, facts.clock);
    let (task_seconds, summary_seconds) = (facts.task_seconds, facts.summary_seconds);
    let cost = estimate::Cost::all(figure);
    let path = tmp.join("data.csv");
    data.write_csv(&path).map_err(|source| WriteError {
        path: path.display().to_string(),
        source,
    })?;
    crate::results::fault_point();
    let path = tmp.join("summary.csv");
    summary.write_csv(&path).map_err(|source| WriteError {
        path: path.display().to_string(),
        source,
    })?;
    crate::results::fault_point();
    let draws = out.draws.iter().map(|(l, t)| (&l.file, t));
    for (name, table) in side.iter().map(|(n, t)| (n, t)).chain(draws) {
        let path = tmp.join(name);
        table.write_csv(&path).map_err(|source| WriteError {
            path: path.display().to_string(),
            source,
        })?;
    }
    if !resolved.departures.is_empty() {
        let mut text = resolved.departures.join("\n");
        text.push('\n');
        write_text(&tmp.join(crate::config::DEPARTURES), &text)?;
    }
    let plot_clock = Instant::now();
    crate::plot::render_dir(&id, tmp, spec.plot)?;
    let plot_seconds = plot_clock.elapsed().as_secs_f64();
    let privacy = figure.ledger().map_err(|source| RunError::Summary {
        figure: id.clone(),
        source,
    })?;
    // what an attacker can do against each release, and its trade-off plot
    let attack_risk = crate::privacy::release_risk::release_risks(&privacy);
    let events: Vec<(&str, &crate::privacy::event::Event)> = privacy
        .iter()
        .map(|e| (e.series.as_str(), &e.event))
        .collect();
    crate::plot::tradeoff::render(tmp, &id, &attack_risk, &events)?;
    let manifest = Manifest {
        figure: id.clone(),
        description: resolved.description.clone(),
        config_file: resolved.file(),
        profile: resolved.profile.clone(),
        overrides: resolved.overrides.clone(),
        sweep_point: resolved.sweep_label.clone(),
        id: resolved.id.clone(),
        departures: Some(resolved.departures.clone()),
        compare_for: resolved.compare_for.clone(),
        seed: resolved.seed,
        resolved_config: serde_json::to_value(&resolved.params).unwrap_or_default(),
        command_line: crate::invocation::args(),
        privpost_version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: option_env!("PRIVPOST_GIT_COMMIT").map(str::to_string),
        git_dirty_at_build: option_env!("PRIVPOST_GIT_DIRTY").map(|s| s == "true"),
        jobs: facts.jobs,
        tasks: facts.tasks,
        data_rows: data.rows.len(),
        rng: Manifest::RNG.to_string(),
        noise: crate::results::manifest::NoiseRecord::of(facts.noise),
        cache: CacheUse {
            run_key: facts.key.to_string(),
            code_sha256: cache::code_id().to_string(),
            tasks_computed: facts.computed,
            tasks_from_cache: facts.cached,
        },
        shards: options.shards.clone(),
        started_at: rfc3339(facts.started),
        finished_at: rfc3339(SystemTime::now()),
        wall_seconds: options.prepare_seconds + clock.elapsed().as_secs_f64(),
        timings: Timings {
            prepare_seconds: options.prepare_seconds,
            tasks_seconds: task_seconds,
            summary_seconds,
            plot_seconds,
            cost_units: cost.total,
            max_task_cost_units: cost.max,
        },
        datasets: figure.datasets(),
        columns: [
            ("data.csv".to_string(), data.column_kinds()),
            ("summary.csv".to_string(), summary.column_kinds()),
        ]
        .into_iter()
        .collect(),
        attack_risk,
        privacy,
        draws: out.draws.as_ref().map(|(l, _)| l.clone()),
        details: figure.manifest_details(),
    };
    write_text(&tmp.join("manifest.json"), &manifest.to_json())?;
    Ok(())
}
