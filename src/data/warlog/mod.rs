//! Where the war-log records of Foulds et al. §5 come from — the synthetic generator
//! (a preset, any of whose fields a config may override) or a CSV file of real
//! records — and §5's preprocessing into per-(region, month, feature) histograms.
//!
//! # CSV schema
//! A header row naming at least these columns (any order; further columns are
//! ignored and listed in the manifest):
//!
//! | column | values |
//! |---|---|
//! | `region` | region code, any non-empty text |
//! | `month` | `YYYY-MM`, or a month index (integer ≥ 0); one form per file |
//! | `type` | coarse event type, any non-empty text |
//! | `category` | fine event category, any non-empty text |
//! | `friendly_or_hostnation_casualty` | count ≥ 0 (binarised: 0 vs > 0) |
//! | `civilian_casualty` | count ≥ 0 (binarised) |
//! | `enemy_casualty_or_detained` | count ≥ 0 (binarised) |
//!
//! Months are numbered from the earliest month in the file; regions, types and
//! categories are indexed in natural sort order, unless the config fixes the
//! domains (`type_values`, `category_values`: then in that order, and values outside
//! them are malformed rows). Every malformed row is an error that names its line; no row is
//! dropped except by the preprocessing rules (empty region-months, regions with
//! fewer than `min_region_events` events). With `source = "csv"` the preset settings
//! of a `[data]` table are ignored (and listed in the manifest). As in the paper, the sets of regions,
//! months and values are treated as public; only the counts are protected.

use std::collections::BTreeSet;
use std::path::Path;

use rand::Rng;
use serde::Deserialize;

use crate::hmm::generate::{generate, Preset, Truth};
use crate::hmm::Histograms;

pub mod csv;
use crate::config::{deserialize, ParamError};
pub use csv::{read_csv, write_csv, CsvRecords, COLUMNS};

/// Default threshold for dropping near-empty regions (the paper's value is in its
/// unread supplement; ours keeps the five big regions of each preset).
pub const DEFAULT_MIN_REGION_EVENTS: usize = 500;

/// Largest expected number of generated events (keeps a typo from filling memory).
const MAX_EXPECTED_EVENTS: f64 = 2.0e7;

/// Largest month span of a CSV file (100 years).
pub(crate) const MAX_MONTHS: usize = 1200;

/// A data source as written in a config: `[data]` for the single-run figures,
/// `[datasets.NAME]` for Figure 6's panels.
#[derive(Debug, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    /// "preset" (default) or "csv"
    pub source: Option<Source>,
    /// generator preset: "iraq" or "afghanistan"
    pub preset: Option<String>,
    /// CSV file (source = "csv"), relative to the working directory
    pub path: Option<String>,
    /// the public domain of `type` (source = "csv"); default: the values in the file
    pub type_values: Option<Vec<String>>,
    /// the public domain of `category` (source = "csv"); default: the values in the file
    pub category_values: Option<Vec<String>>,
    /// regions with fewer events in total are dropped (§5: near-empty region codes)
    pub min_region_events: Option<usize>,
    // ---- preset overrides (see `Preset` for their meaning)
    pub region_names: Option<Vec<String>>,
    pub months: Option<usize>,
    pub types: Option<usize>,
    pub categories: Option<usize>,
    pub base_events: Option<f64>,
    pub region_factors: Option<Vec<f64>>,
    pub growth: Option<f64>,
    pub signature_types: Option<Vec<usize>>,
    pub change_months: Option<Vec<Vec<usize>>>,
    pub casualty_probs: Option<Vec<[f64; 3]>>,
}

/// Records after preprocessing, with what is known about where they came from.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// preset name, or the CSV file's stem
    pub name: String,
    pub data: Histograms,
    /// the planted model (generator only)
    pub truth: Option<Truth>,
    /// names of all regions (indexed by `Histograms::regions[i].0`)
    pub region_names: Vec<String>,
    /// label of month 0 ("2004-01" for the presets)
    pub first_month: String,
    /// per feature, the label of each value
    pub value_labels: Vec<Vec<String>>,
    /// for the manifest
    pub provenance: serde_json::Value,
}

/// Where the records come from (`source` in a `[data]` table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// the synthetic generator, from a preset and its overrides
    #[default]
    Preset,
    /// a CSV file of records (`path`)
    Csv,
}

/// Parses a `[data]`-style table; `key` is its dotted name, for errors.
pub fn parse_spec(value: Option<&toml::Value>, key: &str) -> Result<DataSpec, ParamError> {
    match value {
        None => Ok(DataSpec::default()),
        Some(toml::Value::Table(t)) => deserialize::<DataSpec>(t).map_err(|e| ParamError {
            key: format!("{key}.{}", e.key),
            ..e
        }),
        Some(other) => Err(ParamError::new(
            key,
            format!("expected a table, found {}", other.type_str()),
            "a table such as [data] with source, preset, path, min_region_events and preset overrides",
        )),
    }
}

impl DataSpec {
    /// A spec that uses the named preset unchanged.
    pub fn preset(name: &str) -> Self {
        Self {
            preset: Some(name.into()),
            ..Self::default()
        }
    }

    /// The source a panel names: its `[datasets.NAME]` table if there is one, else the
    /// preset `NAME` unchanged; `None` if it is neither.
    pub fn named(tables: Option<&toml::Table>, name: &str) -> Result<Option<Self>, ParamError> {
        match tables.and_then(|t| t.get(name)) {
            Some(v) => parse_spec(Some(v), &format!("datasets.{name}")).map(Some),
            None => Ok(Preset::named(name).map(|_| Self::preset(name))),
        }
    }

    /// Parses and validates every `[datasets.NAME]` table, also those no panel names
    /// (a typo in an unused table is refused, not silently ignored).
    pub fn check_all(tables: Option<&toml::Table>) -> Result<(), ParamError> {
        for (name, value) in tables.into_iter().flatten() {
            let key = format!("datasets.{name}");
            parse_spec(Some(value), &key)?.validate(&key)?;
        }
        Ok(())
    }

    pub fn min_region_events(&self) -> usize {
        self.min_region_events.unwrap_or(DEFAULT_MIN_REGION_EVENTS)
    }

    fn overrides(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut add = |set: bool, name: &'static str| {
            if set {
                v.push(name)
            }
        };
        add(self.region_names.is_some(), "region_names");
        add(self.months.is_some(), "months");
        add(self.types.is_some(), "types");
        add(self.categories.is_some(), "categories");
        add(self.base_events.is_some(), "base_events");
        add(self.region_factors.is_some(), "region_factors");
        add(self.growth.is_some(), "growth");
        add(self.signature_types.is_some(), "signature_types");
        add(self.change_months.is_some(), "change_months");
        add(self.casualty_probs.is_some(), "casualty_probs");
        v
    }

    /// The preset with this spec's overrides applied, validated.
    pub fn resolve_preset(&self, key: &str) -> Result<Preset, ParamError> {
        let name = self.preset.as_deref().unwrap_or("iraq");
        let mut p = Preset::named(name).ok_or_else(|| {
            ParamError::new(
                format!("{key}.preset"),
                format!("unknown preset \"{name}\""),
                "\"iraq\", \"afghanistan\"",
            )
        })?;
        macro_rules! set {
            ($($f:ident),*) => {$(if let Some(v) = &self.$f { p.$f = v.clone(); })*};
        }
        set!(
            region_names,
            months,
            types,
            categories,
            base_events,
            region_factors,
            growth,
            signature_types,
            change_months,
            casualty_probs
        );
        p.validate().map_err(|e| {
            ParamError::new(
                key,
                format!("preset \"{name}\" with overrides: {e}"),
                "overrides consistent with each other (one region_factors and change_months entry per region, one signature type and casualty triple per planted state)",
            )
        })?;
        let expected = p.expected_events();
        if expected > MAX_EXPECTED_EVENTS {
            return Err(ParamError::new(
                format!("{key}.base_events"),
                format!("the preset would generate about {expected:.3e} events"),
                format!("at most {MAX_EXPECTED_EVENTS:.0e} expected events"),
            ));
        }
        Ok(p)
    }

    /// A short description for `privpost check`: the preset or the file.
    pub fn describe(&self) -> String {
        match (self.source.unwrap_or_default(), &self.path) {
            (Source::Csv, Some(path)) => format!("records from {path}"),
            _ => format!(
                "synthetic {} records",
                self.preset.as_deref().unwrap_or("iraq")
            ),
        }
    }

    /// Checks the spec without generating or reading anything (what `privpost
    /// check` does): the source, the preset and its overrides, the CSV settings.
    /// [`Self::load`] calls it first.
    pub fn validate(&self, key: &str) -> Result<(), ParamError> {
        match self.source.unwrap_or_default() {
            Source::Preset => {
                for (set, name) in [
                    (self.path.is_some(), "path"),
                    (self.type_values.is_some(), "type_values"),
                    (self.category_values.is_some(), "category_values"),
                ] {
                    if set {
                        return Err(ParamError::new(
                            format!("{key}.{name}"),
                            "only read with source = \"csv\"",
                            "source = \"csv\" with path (and optionally type_values, category_values), or source = \"preset\" without them",
                        ));
                    }
                }
                self.resolve_preset(key)?;
            }
            Source::Csv => {
                self.path.as_deref().ok_or_else(|| {
                    ParamError::new(
                        format!("{key}.path"),
                        "missing",
                        "the CSV file to read (source = \"csv\")",
                    )
                })?;
                for (values, name) in [
                    (&self.type_values, "type_values"),
                    (&self.category_values, "category_values"),
                ] {
                    if let Some(v) = values {
                        let distinct: BTreeSet<&String> = v.iter().collect();
                        if v.len() < 2
                            || distinct.len() != v.len()
                            || v.iter().any(|x| x.trim().is_empty())
                        {
                            return Err(ParamError::new(
                                format!("{key}.{name}"),
                                format!("{v:?}"),
                                "at least 2 distinct, non-empty values",
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Generates or reads the records and preprocesses them. `rng` drives the
    /// generator only. `key` is the spec's dotted name in the config, for errors.
    pub fn load(&self, key: &str, rng: &mut impl Rng) -> Result<Dataset, ParamError> {
        self.validate(key)?;
        let min = self.min_region_events();
        let ds = match self.source.unwrap_or_default() {
            Source::Preset => {
                let p = self.resolve_preset(key)?;
                let (truth, records) = generate(&p, rng);
                let data = Histograms::aggregate(&records, p.regions(), p.months, &p.cards(), min);
                let labels = preset_value_labels(&p);
                Dataset {
                    name: p.name.clone(),
                    provenance: serde_json::json!({
                        "source": "preset",
                        "preset": p.name,
                        "overridden": self.overrides(),
                        "generated_events": records.len(),
                        "settings": serde_json::to_value(&p).unwrap_or_default(),
                    }),
                    data,
                    truth: Some(truth),
                    region_names: p.region_names.clone(),
                    first_month: "2004-01".into(),
                    value_labels: labels,
                }
            }
            Source::Csv => {
                // preset settings (e.g. from a config written for the generator, or
                // its smoke profile) do not apply; they are listed in the manifest
                let mut ignored = self.overrides();
                if self.preset.is_some() {
                    ignored.insert(0, "preset");
                }
                let path = self.path.as_deref().unwrap_or_default();
                let csv = read_csv(
                    Path::new(path),
                    self.type_values.as_deref(),
                    self.category_values.as_deref(),
                )
                .map_err(|e| ParamError::new(format!("{key}.path"), e, CSV_ALLOWED))?;
                let data = Histograms::aggregate(
                    &csv.records,
                    csv.regions.len(),
                    csv.months,
                    &csv.cards(),
                    min,
                );
                let name = Path::new(path)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "csv".into());
                let mut labels = vec![csv.types.clone(), csv.categories.clone()];
                labels.extend((0..3).map(|_| vec!["0".to_string(), "1".to_string()]));
                Dataset {
                    name,
                    provenance: serde_json::json!({
                        "source": "csv",
                        "path": path,
                        "sha256": csv.sha256,
                        "rows": csv.records.len(),
                        "regions": csv.regions,
                        "first_month": csv.first_month,
                        "months": csv.months,
                        "types": csv.types,
                        "categories": csv.categories,
                        "domains": {
                            "type": if self.type_values.is_some() { "fixed by type_values" } else { "read from the file" },
                            "category": if self.category_values.is_some() { "fixed by category_values" } else { "read from the file" },
                        },
                        "ignored_columns": csv.ignored_columns,
                        "ignored_preset_settings": ignored,
                        "note": "regions and months (and the values, unless type_values/category_values fix them) are read from the file and treated as public, as in the paper; only counts are protected",
                    }),
                    data,
                    truth: None,
                    region_names: csv.regions,
                    first_month: csv.first_month,
                    value_labels: labels,
                }
            }
        };
        if ds.data.regions.is_empty() {
            return Err(ParamError::new(
                format!("{key}.min_region_events"),
                format!(
                    "{min}: no region of \"{}\" has that many events, nothing is left",
                    ds.name
                ),
                "a threshold below the busiest region's total",
            ));
        }
        Ok(ds)
    }
}

const CSV_ALLOWED: &str = "a CSV file with header region, month (YYYY-MM or index), type, category, friendly_or_hostnation_casualty, civilian_casualty, enemy_casualty_or_detained (counts ≥ 0)";

/// Value labels of a preset's features (types named as in the text, categories by
/// number, casualties 0/1).
pub fn preset_value_labels(p: &Preset) -> Vec<Vec<String>> {
    let mut labels = vec![
        type_labels(p.types),
        (0..p.categories).map(|c| format!("category {c}")).collect(),
    ];
    labels.extend((0..3).map(|_| vec!["0".to_string(), "1".to_string()]));
    labels
}

/// Type names of the presets (the text's examples; the generator's first three
/// types are the signature types of its planted states).
fn type_labels(types: usize) -> Vec<String> {
    const NAMES: [&str; 10] = [
        "friendly action",
        "explosive hazard",
        "enemy action",
        "non-combat event",
        "suspicious incident",
        "criminal event",
        "friendly fire",
        "counter-insurgency",
        "threat report",
        "other",
    ];
    (0..types)
        .map(|t| {
            NAMES
                .get(t)
                .map_or_else(|| format!("type {t}"), |s| s.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Generated records written in the schema and read back give the same histograms.
    #[test]
    fn generator_output_round_trips_through_csv() {
        let spec = DataSpec {
            base_events: Some(5.0),
            min_region_events: Some(10),
            ..DataSpec::preset("afghanistan")
        };
        let p = spec.resolve_preset("data").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let (_, records) = generate(&p, &mut rng);
        let generated = spec
            .load("data", &mut rand_chacha::ChaCha8Rng::seed_from_u64(3))
            .unwrap();
        let f = tempfile::NamedTempFile::new().unwrap();
        write_csv(
            f.path(),
            &records,
            &p.region_names,
            &generated.value_labels,
            2004,
        )
        .unwrap();
        let read = DataSpec {
            source: Some(Source::Csv),
            path: Some(f.path().display().to_string()),
            min_region_events: Some(10),
            ..DataSpec::default()
        }
        .load("data", &mut rng)
        .unwrap();
        assert!(read.truth.is_none());
        assert_eq!(read.data.events(), generated.data.events());
        // indices may be permuted (sorted vocabularies): compare through the labels
        let label_hist = |ds: &Dataset| {
            let mut out = std::collections::BTreeMap::new();
            for (r, cells) in &ds.data.regions {
                for c in cells {
                    for (d, h) in c.counts.iter().enumerate() {
                        for (v, &x) in h.iter().enumerate() {
                            if x > 0.0 {
                                out.insert(
                                    (
                                        ds.region_names[*r].clone(),
                                        c.month,
                                        d,
                                        ds.value_labels[d][v].clone(),
                                    ),
                                    x,
                                );
                            }
                        }
                    }
                }
            }
            out
        };
        // the CSV's months start at its first observed month
        let shift = generated
            .data
            .regions
            .iter()
            .flat_map(|r| r.1.iter().map(|c| c.month))
            .min()
            .unwrap();
        let mut expected = label_hist(&generated);
        expected = expected
            .into_iter()
            .map(|((r, m, d, v), x)| ((r, m - shift, d, v), x))
            .collect();
        assert_eq!(label_hist(&read), expected);
    }

    #[test]
    fn every_preset_field_can_be_overridden() {
        let spec = DataSpec {
            region_names: Some(vec!["A".into(), "B".into()]),
            months: Some(24),
            types: Some(4),
            categories: Some(7),
            base_events: Some(20.0),
            region_factors: Some(vec![1.0, 2.0]),
            growth: Some(1.0),
            signature_types: Some(vec![3, 0]),
            change_months: Some(vec![vec![5], vec![12]]),
            casualty_probs: Some(vec![[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),
            ..DataSpec::preset("afghanistan")
        };
        let p = spec.resolve_preset("data").unwrap();
        assert_eq!(
            (p.regions(), p.months, p.cards(), p.states()),
            (2, 24, vec![4, 7, 2, 2, 2], 2)
        );
        let ds = spec
            .load("data", &mut rand_chacha::ChaCha8Rng::seed_from_u64(1))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(ds.region_names, vec!["A", "B"]);
        assert_eq!(ds.truth.unwrap().states[1][12], 1);
        // inconsistent overrides name the problem
        let bad = DataSpec {
            region_names: Some(vec!["A".into()]),
            ..DataSpec::preset("iraq")
        };
        let e = bad.resolve_preset("data").unwrap_err();
        assert!(e.message.contains("one entry per region"), "{e:?}");
        let huge = DataSpec {
            base_events: Some(1e9),
            ..DataSpec::preset("iraq")
        };
        assert_eq!(
            huge.resolve_preset("data").unwrap_err().key,
            "data.base_events"
        );
        let e = DataSpec {
            source: Some(Source::Csv),
            preset: Some("iraq".into()),
            ..DataSpec::default()
        }
        .load("data", &mut rand_chacha::ChaCha8Rng::seed_from_u64(1))
        .unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("data.path", "missing")
        );
        let mut t = toml::Table::new();
        t.insert("source".into(), toml::Value::String("xls".into()));
        let e = parse_spec(Some(&toml::Value::Table(t)), "data").unwrap_err();
        assert_eq!(e.key, "data.source");
    }
}
