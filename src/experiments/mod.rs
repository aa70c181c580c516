//! One module per paper: each figure validates its config into a plan, prepares
//! what its tasks share (datasets, a DPVI fit), runs a task as a pure function of
//! (parameters, RNG), aggregates the task rows into the figure's summary, draws
//! its plot from the CSVs, and states the privacy it spent as a ledger.
//!
//! [`REGISTRY`] has one row per figure; nothing else in the crate lists figures.

pub mod audit;
pub mod bun2018;
pub mod calibration;
pub mod external;
pub mod foulds2016;
pub mod geumlek2017;
pub mod heikkila2019;
pub mod ju2022;
pub mod logreg;
pub mod minami2016;
pub mod raisa2021;

use std::path::Path;

use crate::config::ParamError;
use crate::plot::overlay::Overlay;
use crate::plot::DrawError;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::columns;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;

mod registry;
pub use registry::{AUDIT_FIGURE, REGISTRY};

/// A prepared experiment, ready to run. Implementations are immutable and
/// shared across worker threads.
pub trait Figure: Send + Sync {
    /// Number of tasks in the plan; tasks are indexed 0..task_count().
    fn task_count(&self) -> usize;
    /// One line describing the grid, for `privpost check` and the progress line.
    fn grid_description(&self) -> String;
    /// Rows of task `index` (columns: the registry row's `data_columns`), using
    /// only `rng` for randomness.
    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>>;
    /// `summary.csv` (columns: the registry row's `summary_columns`) from the
    /// data rows, in task order.
    fn summarize(&self, data: &Table) -> anyhow::Result<Table>;
    /// Facts for the manifest that are not privacy claims: methods, settings, accuracies.
    fn manifest_details(&self) -> serde_json::Value;
    /// The privacy spent, one entry per series or grid point, from the mechanisms.
    fn ledger(&self) -> anyhow::Result<Ledger>;
    /// Further CSV files written beside `data.csv` and `summary.csv`, built from
    /// the data rows: (file name, table). The default writes none.
    fn side_tables(&self, _data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        Ok(Vec::new())
    }
    /// `data.csv` as written, from the task rows after the summary and the side
    /// tables were built from them. The default writes every row; a figure whose
    /// side tables already hold some rows in their own form (the audit's score
    /// files) leaves them out, so nothing is written twice.
    fn written_data(&self, data: Table) -> Table {
        data
    }
    /// Task `index`'s rows split into its data rows and the rows of posterior
    /// draws it keeps ([`crate::results::draws`]), which go to `draws.csv`
    /// instead of `data.csv`. The default keeps no draws.
    fn split_task_rows(&self, rows: Vec<Row>) -> (Vec<Row>, Vec<Row>) {
        (rows, Vec::new())
    }
    /// The posterior draws the run keeps, in the layout of
    /// [`crate::results::draws`]: from the draw rows split off the tasks (in
    /// task order), or from the data rows. The default keeps none.
    fn kept_draws(
        &self,
        _data: &Table,
        _draw_rows: Vec<Row>,
    ) -> anyhow::Result<Option<crate::results::draws::KeptDraws>> {
        Ok(None)
    }
    /// The fixed parameters a reader needs beside the figure (ε, N, the prior,
    /// δ, "synthetic data", …) as (name, value) pairs, from the resolved config
    /// of this run (so a `--set` changes them too). The run writes them to
    /// `parameters.csv`, and the plot shows them under the title
    /// ([`crate::plot::parameters`]); an empty value shows the name alone. The
    /// default has none.
    fn parameters(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// The datasets the figure read or generated.
    fn datasets(&self) -> Vec<DatasetRecord> {
        Vec::new()
    }
    /// Estimated work of task `index`, in floating-point operations (order of
    /// magnitude is what matters): `--shard` balances shards by it, across
    /// figures. The default suits a closed-form task (microseconds).
    fn task_cost(&self, _index: usize) -> f64 {
        1e4
    }
    /// The most memory task `index` holds at once, in bytes, where it grows with the
    /// config (draws kept, matrices of the data's dimension); 0 where it is small.
    /// `run` and `check` refuse a plan whose tasks, one per worker, would not fit
    /// ([`Footprint`]).
    fn task_memory(&self, _index: usize) -> f64 {
        0.0
    }
}

/// What the limits of `run` and `check` look at: the task count, the estimated
/// work and the largest task's memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    pub tasks: usize,
    pub flops: f64,
    pub memory: f64,
}

impl Footprint {
    /// Over the tasks `tasks` of `figure` (its task count is all of its tasks).
    pub fn of(figure: &dyn Figure, tasks: impl IntoIterator<Item = usize>) -> Footprint {
        tasks.into_iter().fold(
            Footprint {
                tasks: figure.task_count(),
                flops: 0.0,
                memory: 0.0,
            },
            |f, i| Footprint {
                flops: f.flops + figure.task_cost(i),
                memory: f.memory.max(figure.task_memory(i)),
                ..f
            },
        )
    }
}

/// The cost model's view of a figure (used by `runner::estimate`): the sum and the largest of its
/// tasks' costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub total: f64,
    pub max: f64,
}

impl Cost {
    /// Over the tasks `tasks` of `figure`.
    pub fn of(figure: &dyn Figure, tasks: impl IntoIterator<Item = usize>) -> Cost {
        tasks.into_iter().fold(
            Cost {
                total: 0.0,
                max: 0.0,
            },
            |c, i| {
                let x = figure.task_cost(i);
                Cost {
                    total: c.total + x,
                    max: c.max.max(x),
                }
            },
        )
    }

    /// Over every task of `figure`.
    pub fn all(figure: &dyn Figure) -> Cost {
        Cost::of(figure, 0..figure.task_count())
    }
}

/// One entry of [`Figure::parameters`]: a name and its value as shown.
pub fn parameter(name: &str, value: impl std::fmt::Display) -> (String, String) {
    (name.to_string(), value.to_string())
}

/// The noise mode as a [`Figure::parameters`] entry: none for `float` (the
/// papers' noise, so a float run's parameters are as before), else what the
/// additive releases drew from.
pub fn noise_parameter(mode: crate::privacy::event::NoiseMode) -> Option<(String, String)> {
    use crate::privacy::event::NoiseMode;
    match mode {
        NoiseMode::Float => None,
        NoiseMode::Exact => Some(parameter("noise", "exact (CKS20 discrete noise, seeded)")),
        NoiseMode::Secure => Some(parameter(
            "noise",
            "secure (CKS20 discrete noise, OS randomness: not reproducible)",
        )),
    }
}

/// A validated config that has not touched the world: no downloads, no dataset
/// generation, no fits, no files. `privpost check` stops here.
pub trait Plan {
    /// One line describing the grid and, when known without preparing, the task count.
    fn describe(&self) -> String;
    /// Prepares what the tasks share (fetching missing datasets, generating or
    /// reading data, fitting an initialisation). Called by `privpost run` only.
    fn prepare(self: Box<Self>) -> Result<Box<dyn Figure>, ParamError>;
    /// The cost of every task ([`Cost`]) where it is
    /// known without preparing; `None` where data or fits decide it.
    fn cost(&self) -> Option<Cost> {
        None
    }
    /// The plan's [`Footprint`] where it is known without preparing (`check`
    /// applies `run`'s limits to it); `None` where data decide it.
    fn footprint(&self) -> Option<Footprint> {
        None
    }
}

/// A figure whose validation already is its preparation (pure computation on
/// the config).
pub struct Ready(pub Box<dyn Figure>);

impl Plan for Ready {
    fn describe(&self) -> String {
        format!(
            "{}; {} tasks",
            self.0.grid_description(),
            self.0.task_count()
        )
    }

    fn prepare(self: Box<Self>) -> Result<Box<dyn Figure>, ParamError> {
        Ok(self.0)
    }

    fn cost(&self) -> Option<Cost> {
        Some(Cost::all(self.0.as_ref()))
    }

    fn footprint(&self) -> Option<Footprint> {
        Some(Footprint::of(self.0.as_ref(), 0..self.0.task_count()))
    }
}

/// A validated config whose preparation has side effects or costs: `prepare`
/// runs only under `privpost run`.
pub struct Deferred<C> {
    pub description: String,
    pub config: C,
    pub prepare: fn(C) -> Result<Box<dyn Figure>, ParamError>,
}

impl<C> Plan for Deferred<C> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn prepare(self: Box<Self>) -> Result<Box<dyn Figure>, ParamError> {
        (self.prepare)(self.config)
    }
}

/// Validates parameters into a plan; the seed feeds set-up streams.
pub type Validate = fn(&toml::Table, u64) -> Result<Box<dyn Plan>, ParamError>;
/// Draws a figure's plots into its output folder from the CSVs there.
pub type Draw = fn(&Path) -> Result<(), DrawError>;

/// A figure this build can reproduce: everything the rest of the crate needs to
/// know about it.
pub struct Spec {
    pub id: &'static str,
    pub title: &'static str,
    /// Default config, relative to the repository root.
    pub config: &'static str,
    /// The default config's text as shipped: a config that differs from it
    /// is the user's own (its runs never land in the paper's folder).
    pub config_text: &'static str,
    /// The figure's notes (`docs/figures/<id>.toml`: paper, figure number, the
    /// paper's claim, what matches and what differs), shown by the gallery and
    /// shared with the README's figure table; parsed by [`Spec::notes`].
    pub notes: &'static str,
    /// Validates parameters into a plan.
    pub validate: Validate,
    /// The parameters' schema: which keys take a list (`--set key=[a, b]` on a key
    /// the config does not set is a list value there, a sweep elsewhere).
    pub schema: crate::config::shape::Schema,
    /// Renders `figure.png`/`figure.svg` (and any further figures) from the CSVs.
    pub plot: Draw,
    /// Columns of `data.csv`, in order.
    pub data_columns: Columns,
    /// Columns of `summary.csv`, in order.
    pub summary_columns: Columns,
    /// The main metric, for `privpost combine`'s overlay of sweep points.
    pub overlay: Overlay,
    /// The wall-time model's calibration (`runner::estimate`), measured on a
    /// paper-scale run and printed for this row by `scripts/calibrate-estimates.sh`;
    /// `None` for an external figure.
    pub rate: Option<Rate>,
}

/// A CSV's columns: listed by hand, or declared by a typed row
/// (`results::record`: the struct's fields, in order) — the one declaration the
/// writer, the readers, the manifest and `docs/outputs.md` share.
#[derive(Debug, Clone, Copy)]
pub enum Columns {
    Listed(&'static [&'static str]),
    Record(fn() -> &'static [&'static str]),
}

impl Columns {
    pub fn get(self) -> &'static [&'static str] {
        match self {
            Columns::Listed(c) => c,
            Columns::Record(f) => f(),
        }
    }
}

/// A figure's calibration for the wall-time model (`runner::estimate`): from the
/// manifest of its paper-scale run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// seconds per cost unit on one core
    pub per_unit: f64,
    /// seconds outside the tasks: preparing, summary, plot, manifest
    pub fixed: f64,
    /// the paper-scale run's cost (every task), for a plan whose cost is only
    /// known once prepared
    pub paper: Cost,
}

pub fn find(id: &str) -> Option<&'static Spec> {
    REGISTRY.iter().find(|s| s.id == id)
}

/// The registry row of a figure folder's `id` and manifest: a built-in figure, or
/// an external figure described by its manifest's resolved config.
pub fn find_for(id: &str, manifest: Option<&serde_json::Value>) -> Option<&'static Spec> {
    find(id).or_else(|| manifest.and_then(external::spec_of_manifest))
}

/// A figure's notes (`docs/figures/<id>.toml`), embedded in the binary.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Notes {
    /// The paper, e.g. "Geumlek et al. 2017".
    pub paper: String,
    /// Its figure number ("Fig. 1"), or "beyond the paper".
    pub figure: String,
    /// The README figure table's first column.
    pub label: String,
    /// The README figure table's last column.
    pub status: String,
    /// The paper's claim or caption, in a sentence.
    pub claim: String,
    /// What privpost's output reproduces.
    pub matches: String,
    /// What differs from the paper, and why.
    pub differs: String,
    /// Optional longer notes (settings, evidence, what was measured): the
    /// gallery shows them under "Details".
    #[serde(default)]
    pub details: Option<String>,
    /// The figure's section of `docs/outputs.md`: what its CSVs hold, column by
    /// column (rendered by [`outputs_sections`]; every built-in figure has one,
    /// an external figure none).
    #[serde(default)]
    pub outputs: OutputsDoc,
}

/// A figure's section of `docs/outputs.md`, in its notes file (`[outputs]`):
/// a title and the text, or `with` the figure whose section documents both.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputsDoc {
    #[serde(default)]
    pub title: Option<String>,
    /// further figures the section documents (their notes say `with`)
    #[serde(default)]
    pub also: Vec<String>,
    #[serde(default)]
    pub text: Option<String>,
    /// the figure whose section documents this one
    #[serde(default)]
    pub with: Option<String>,
}

/// The line of `docs/outputs.md` after which its figure sections are rendered.
pub const OUTPUTS_MARKER: &str = "<!-- The sections below are rendered from the [outputs] tables of docs/figures/<id>.toml by `privpost gallery --outputs-sections`. -->";

/// The figure sections of `docs/outputs.md`, in registry order, from the notes'
/// `[outputs]` tables; `tests/docs.rs` checks the file is current and that each
/// section names every column of its figures.
pub fn outputs_sections() -> Result<String, NotesError> {
    use std::fmt::Write as _;
    let mut md = String::new();
    for spec in REGISTRY {
        let o = spec.notes()?.outputs;
        if o.with.is_some() {
            continue;
        }
        let (Some(title), Some(text)) = (&o.title, &o.text) else {
            return Err(NotesError(format!(
                "docs/figures/{}.toml: [outputs] needs `title` and `text`, or `with` naming the figure whose section documents it",
                spec.id
            )));
        };
        let ids: Vec<&str> = std::iter::once(spec.id)
            .chain(o.also.iter().map(String::as_str))
            .collect();
        let _ = write!(
            md,
            "\n## {} — {title}\n{}\n",
            ids.join(", "),
            text.trim_end()
        );
    }
    Ok(md)
}

/// The file name of a figure's README thumbnail (`docs/figures/thumbs/`):
/// `geumlek2017/fig1` → `geumlek2017-fig1.png`.
pub fn thumbnail_file(id: &str) -> String {
    format!("{}.png", id.replace('/', "-"))
}

/// A figure's notes file (`docs/figures/ID.toml`) that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NotesError(pub String);

/// `docs/figures/README.md`: the notes of every figure as one page (the field
/// guide, then a section per figure), rendered from the notes files so the page
/// and the gallery cannot disagree; `tests/docs.rs` checks the file is current.
pub fn notes_markdown() -> Result<String, NotesError> {
    use std::fmt::Write as _;
    let mut md = String::from(NOTES_PAGE_HEAD);
    for spec in REGISTRY {
        let n = spec.notes()?;
        let thumb = thumbnail_file(spec.id);
        let _ = write!(
            md,
            "\n<a id=\"{}\"></a>\n\n## {} — {} (`{}`)\n\n![{}](thumbs/{thumb})\n\n\
             **Status at the paper's scale:** {}\n\n\
             **The paper.** {}\n\n**What matches.** {}\n\n**What differs, and why.** {}\n",
            thumb.trim_end_matches(".png"),
            n.paper,
            n.figure,
            spec.id,
            spec.id,
            n.status,
            n.claim,
            n.matches,
            n.differs
        );
        if let Some(d) = &n.details {
            let _ = writeln!(md, "\n**Details.** {d}");
        }
    }
    Ok(md)
}

/// The README's figure table, rendered from the registry and the notes files
/// (`privpost gallery --readme-table`): a row per figure — its thumbnail linking
/// its notes, label, config and status.
pub fn readme_table() -> Result<String, NotesError> {
    use std::fmt::Write as _;
    let mut md = String::from("| | figure | config | status |\n|---|---|---|---|\n");
    for spec in REGISTRY {
        let n = spec.notes()?;
        let t = thumbnail_file(spec.id);
        let _ = writeln!(
            md,
            "| <a href=\"docs/figures/README.md#{}\"><img src=\"docs/figures/thumbs/{t}\" width=\"180\" alt=\"{}\"></a> | {} | `{}` | {} |",
            t.trim_end_matches(".png"),
            spec.id,
            n.label,
            spec.config,
            n.status
        );
    }
    Ok(md)
}

const NOTES_PAGE_HEAD: &str = "# Figure notes

<!-- Rendered from docs/figures/<paper>/<figure>.toml by `privpost gallery --notes-page`;
     edit those files, not this page (tests/docs.rs checks it is current). -->

One file per figure of the registry (`<paper>/<figure>.toml`, named by its registry id).
The binary embeds them: `privpost gallery` and the gallery written after every run show
them beside each figure, and the README's figure table takes its first and last columns
from `label` and `status` (`privpost gallery --readme-table`; `tests/docs.rs` checks
both ways). Quotations in `claim` are
checked against the papers' texts (`tests/claims.rs`); a figure beyond the papers says
\"Not in the paper\". The pictures are thumbnails of a paper-scale run
(`privpost gallery results --thumbnails docs/figures/thumbs`; its date is in the README).

| field | meaning |
|---|---|
| `paper` | the paper, e.g. \"Geumlek et al. 2017\" |
| `figure` | its figure number (\"Fig. 1\"), or \"beyond the paper\" |
| `label` | the README table's first column |
| `status` | the README table's last column |
| `claim` | the paper's claim, quoted with its location, or \"Not in the paper…\" |
| `matches` | what privpost's output reproduces, with numbers |
| `differs` | what differs from the paper, and why, with numbers |
| `details` | optional: settings, evidence and measurements beyond the summary |
| `[outputs]` | the figure's section of docs/outputs.md (`title`, `text`: what its CSVs hold, every column named; `also`: further figures it documents, whose `[outputs]` says `with`), rendered by `privpost gallery --outputs-sections` |
";

impl Spec {
    /// The figure's parsed notes. The files are part of the build and a unit test
    /// parses every one, so this cannot fail in a tested binary; it still
    /// returns the parse error rather than panicking.
    pub fn notes(&self) -> Result<Notes, NotesError> {
        toml::from_str(self.notes)
            .map_err(|e| NotesError(format!("docs/figures/{}.toml: {e}", self.id)))
    }
}

pub fn known_ids() -> String {
    REGISTRY.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN_TIME_TYPED: [&str; 4] = ["data", "datasets", "prior", "start"];

    /// Each figure's schema knows every key its shipped config sets (every profile),
    /// and says "list" exactly where the config writes a list: the schema, not a
    /// probe, decides whether `--set key=[a, b]` is a list or a sweep.
    #[test]
    fn every_schema_knows_its_configs_keys_and_their_shapes() {
        use crate::config::shape::Shape;
        fn walk(
            table: &toml::Table,
            path: &mut Vec<String>,
            f: &mut dyn FnMut(&[String], &toml::Value),
        ) {
            for (k, v) in table {
                path.push(k.clone());
                f(path, v);
                if let toml::Value::Table(t) = v {
                    walk(t, path, f);
                }
                path.pop();
            }
        }
        let mut checked = 0;
        for s in REGISTRY {
            let mut file: toml::Table = toml::from_str(s.config_text).unwrap();
            let profiles = match file.remove("profile") {
                Some(toml::Value::Table(p)) => p,
                _ => toml::Table::new(),
            };
            let mut tables = vec![file];
            tables.extend(profiles.into_iter().filter_map(|(_, p)| match p {
                toml::Value::Table(t) => Some(t),
                _ => None,
            }));
            for t in &tables {
                walk(t, &mut Vec::new(), &mut |path, v| {
                    if ["experiment", "seed", "description"].contains(&path[0].as_str()) {
                        return;
                    }
                    let want = if v.is_array() {
                        Shape::List
                    } else {
                        Shape::Single
                    };
                    let got = (s.schema)(path);
                    // the fields a figure parses itself (a data source, a prior
                    // in either form, a start point or "dpvi") are typed at run time
                    if got == Shape::Unknown && RUN_TIME_TYPED.contains(&path[0].as_str()) {
                        return;
                    }
                    assert_eq!(got, want, "{}: key {}", s.id, path.join("."));
                    checked += 1;
                });
            }
        }
        assert!(checked > 200, "keys checked: {checked}");
    }

    /// Every figure has notes with every field filled in.
    #[test]
    fn every_figure_has_notes() {
        for s in REGISTRY {
            let n = s.notes().unwrap();
            for (field, v) in [
                ("paper", &n.paper),
                ("figure", &n.figure),
                ("label", &n.label),
                ("status", &n.status),
                ("claim", &n.claim),
                ("matches", &n.matches),
                ("differs", &n.differs),
            ] {
                assert!(!v.trim().is_empty(), "{}: empty `{field}`", s.id);
            }
        }
    }

    /// A status is what was reproduced, never a measurement that goes stale
    /// ("1.7 min" stayed after the kernels made it 100 s); wall
    /// times come from each run's manifest.
    #[test]
    fn statuses_carry_no_wall_times() {
        for s in REGISTRY {
            let status = s.notes().unwrap().status;
            let words: Vec<&str> = status
                .split(|c: char| !c.is_alphanumeric() && c != '.')
                .collect();
            for w in words.windows(2) {
                let number = w[0].parse::<f64>().is_ok();
                let unit = ["s", "sec", "seconds", "min", "minutes", "h", "hours"].contains(&w[1]);
                assert!(
                    !(number && unit),
                    "{}: status {status:?} holds a time",
                    s.id
                );
            }
        }
    }

    /// Each figure's shipped config is embedded as it is on disk (a copy of
    /// it is the paper's config; anything else is the user's own).
    #[test]
    fn shipped_configs_are_embedded() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for s in REGISTRY {
            let disk = std::fs::read_to_string(root.join(s.config)).unwrap();
            assert_eq!(disk, s.config_text, "{}", s.id);
        }
    }

    /// `privpost combine` draws the overlay from summary columns the figure writes.
    #[test]
    fn overlays_name_summary_columns() {
        for s in REGISTRY {
            let o = &s.overlay;
            for c in [o.x, o.y].iter().chain(o.series) {
                assert!(
                    s.summary_columns.get().contains(c),
                    "{}: overlay column `{c}`",
                    s.id
                );
            }
        }
    }
}
