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
pub mod xiong2025;

use std::path::Path;

use crate::config::ParamError;
use crate::plot::overlay::Overlay;
use crate::plot::DrawError;

mod figure;
mod notes;
mod registry;
pub use figure::{noise_parameter, parameter, Cost, Deferred, Figure, Footprint, Plan, Ready};
pub use notes::{
    notes_markdown, outputs_sections, readme_table, thumbnail_file, Notes, NotesError, OutputsDoc,
    OUTPUTS_MARKER,
};
pub use registry::{AUDIT_FIGURE, REGISTRY};

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
pub fn find_for(
    id: &str,
    manifest: Option<&crate::results::manifest::Manifest>,
) -> Option<&'static Spec> {
    find(id).or_else(|| manifest.and_then(external::spec_of_manifest))
}

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
