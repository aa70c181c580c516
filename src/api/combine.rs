//! `api::combine` (`privpost combine`): joins the folders of a sweep (one per
//! point) into one tidy table, an overlay figure on the figure's main metric,
//! and a listing of the points with their manifests. Points must share one
//! profile and one base config (the same resolved config but for the swept
//! keys); a mixture is refused naming the folders.

use std::path::{Path, PathBuf};

use super::error::ApiError;
use crate::error::CommandError;
use crate::experiments::{self, Spec};
use crate::plot::overlay::{self, OverlayChart};
use crate::results::manifest::Manifest;
use crate::results::table::{Cell, Table};
use crate::results::{replace_dir, temp_dir_for, write_text};

/// What [`combine`] joins and where it writes.
#[derive(Debug, Clone, Default)]
pub struct CombineOptions {
    /// Figure folders written by `privpost run`; a figure's base name
    /// (results/foulds2016/fig2) stands for its sweep points fig2@….
    pub dirs: Vec<PathBuf>,
    /// Output folder (default: `<parent of the first>/<figure>.combined`).
    pub out: Option<PathBuf>,
    /// One overlay panel per value of this swept key (a second sweep axis).
    pub facet: Option<String>,
    /// `KEY=VALUE` filters: keep only the points whose swept KEY has this
    /// value (numbers compared as numbers), or `profile=NAME` (`profile=none`).
    pub filters: Vec<String>,
}

/// What [`combine`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Combined {
    pub figure: &'static str,
    /// The sweep points joined.
    pub points: usize,
    /// The rows of combined.csv.
    pub rows: usize,
    /// The folder written (combined.csv, combined.png/.svg, combined.json).
    pub folder: PathBuf,
}

/// A fault in the folders given.
fn input(message: impl Into<String>) -> ApiError {
    ApiError::input("dirs", message)
}

/// One sweep point as read.
struct Point {
    dir: PathBuf,
    name: String,
    manifest: Manifest,
    /// The swept keys and values (`set.KEY` columns of its summary).
    set: Vec<(String, String)>,
    summary: Table,
}

impl Point {
    fn profile(&self) -> Option<&str> {
        self.manifest.profile.as_deref()
    }

    /// The external figure this folder was drawn beside, if it is a
    /// `[compare]` helper run (not a sweep point).
    fn compare_for(&self) -> Option<&str> {
        self.manifest.compare_for.as_deref()
    }

    /// What must be equal across the points of one sweep: the figure, its
    /// own id, the profile, and the resolved config and seed with the swept
    /// keys taken out.
    fn base(&self) -> serde_json::Value {
        let mut config = self.manifest.resolved_config.clone();
        let mut seed = serde_json::json!(self.manifest.seed);
        for (key, _) in &self.set {
            if key == "seed" {
                seed = serde_json::Value::Null;
            }
            remove_dotted(&mut config, key);
        }
        // an external figure's comparison folder label, derived from its sweep point
        remove_dotted(&mut config, "compare.label");
        serde_json::json!({
            "figure": self.manifest.figure,
            "id": self.manifest.id,
            "profile": self.profile(),
            "seed": seed,
            "config": config,
        })
    }
}

fn remove_dotted(v: &mut serde_json::Value, key: &str) {
    match key.split_once('.') {
        None => {
            if let Some(o) = v.as_object_mut() {
                o.remove(key);
            }
        }
        Some((head, rest)) => {
            if let Some(inner) = v.get_mut(head) {
                remove_dotted(inner, rest);
            }
        }
    }
}

/// Two swept values are the same point when equal as numbers (`1` and
/// `1.0`), else as text.
fn same_value(a: &str, b: &str) -> bool {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Value order of two swept values: numbers by value (before text), text by text.
fn value_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        _ => a.cmp(b),
    }
}

/// The top-level keys in which two bases differ (for the refusal message).
fn differing(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    let mut keys = Vec::new();
    for part in ["figure", "id", "profile", "seed"] {
        if a.get(part) != b.get(part) {
            keys.push(part.to_string());
        }
    }
    let empty = serde_json::Map::new();
    let (ca, cb) = (
        a["config"].as_object().unwrap_or(&empty),
        b["config"].as_object().unwrap_or(&empty),
    );
    let mut names: Vec<&String> = ca.keys().chain(cb.keys()).collect();
    names.sort();
    names.dedup();
    for k in names {
        if ca.get(k) != cb.get(k) {
            keys.push(format!("`{k}`"));
        }
    }
    keys
}

/// A `--where KEY=VALUE` filter.
fn keep(p: &Point, filters: &[(String, String)]) -> bool {
    filters.iter().all(|(k, v)| {
        if k == "profile" {
            return match p.profile() {
                Some(name) => name == v,
                None => v == "none",
            };
        }
        p.set.iter().any(|(pk, pv)| pk == k && same_value(pv, v))
    })
}

fn read_point(dir: &Path) -> Result<(Point, &'static Spec), ApiError> {
    let bad = |m: String| input(format!("{}: {m}", dir.display()));
    if !dir.is_dir() {
        return Err(bad("not a folder".into()));
    }
    let manifest = Manifest::read(dir).map_err(|e| {
        input(format!(
            "{e}; give figure folders written by `privpost run`"
        ))
    })?;
    let id = manifest.figure.as_str();
    let spec = experiments::find_for(id, Some(&manifest)).ok_or_else(|| {
        bad(format!(
            "manifest.json names figure \"{id}\" (allowed: {})",
            experiments::known_ids()
        ))
    })?;
    let path = dir.join("summary.csv");
    let summary = Table::read_csv(&path).map_err(|e| bad(format!("summary.csv: {e}")))?;
    let n_set = summary
        .header
        .iter()
        .take_while(|h| h.starts_with("set."))
        .count();
    let rest: Vec<&str> = summary.header[n_set..].iter().map(String::as_str).collect();
    if rest != spec.summary_columns.get() {
        return Err(bad(format!(
            "summary.csv has columns {:?}; {id} writes {:?} after any set.KEY columns",
            summary.header,
            spec.summary_columns.get()
        )));
    }
    let set = (0..n_set)
        .map(|c| {
            let value = if summary.rows.is_empty() {
                String::new()
            } else {
                summary.s(0, c)
            };
            (summary.header[c]["set.".len()..].to_string(), value)
        })
        .collect();
    let name = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((
        Point {
            dir: dir.to_path_buf(),
            name,
            manifest,
            set,
            summary,
        },
        spec,
    ))
}

/// The label of a point in the overlay legend: its swept values, else its folder.
fn label(p: &Point) -> String {
    if p.set.is_empty() {
        p.name.clone()
    } else {
        p.set
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The sweep points `<dir>@…` beside a base folder `<dir>` (a figure's name
/// without `@`), sorted by name; empty if there are none.
fn points_of(dir: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(base)) = (dir.parent(), dir.file_name()) else {
        return Vec::new();
    };
    let base = base.to_string_lossy();
    if base.contains('@') {
        return Vec::new();
    }
    let prefix = format!("{base}@");
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| dir.with_file_name(e.file_name()))
        .filter(|p| is_sweep_point(p))
        .collect();
    found.sort();
    found
}

/// Whether a folder holds a sweep point: a manifest with a sweep point that
/// is not a `[compare]` helper run (a plain profile run such as `fig2@smoke`
/// is no point of a sweep).
fn is_sweep_point(dir: &Path) -> bool {
    match Manifest::read(dir) {
        Ok(m) => m.sweep_point.is_some() && m.compare_for.is_none(),
        // no manifest: no figure folder
        Err(e) if e.missing => false,
        // unreadable: kept, so that reading it names the problem
        Err(_) => true,
    }
}

/// The folders to combine: each argument as given, except a figure's base
/// name (`results/foulds2016/fig2`), which stands for its sweep points
/// `fig2@…` when it has any; a folder holding figure folders but no manifest
/// is refused naming what it holds.
fn expand(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, ApiError> {
    let mut out = Vec::new();
    for dir in dirs {
        let points = points_of(dir);
        if !points.is_empty() {
            out.extend(points);
            continue;
        }
        if dir.is_dir() && !dir.join("manifest.json").is_file() {
            let mut inside: Vec<String> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.path().join("manifest.json").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            inside.sort();
            return Err(input(format!(
                "{}: not a figure folder (no manifest.json){}",
                dir.display(),
                if inside.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; it holds the figure folders {} — give a figure's name (e.g. {}) for its sweep points",
                        inside.join(", "),
                        dir.join(inside[0].split('@').next().unwrap_or_default()).display()
                    )
                }
            )));
        }
        out.push(dir.clone());
    }
    Ok(out)
}

fn parse_filters(args: &CombineOptions) -> Result<Vec<(String, String)>, ApiError> {
    args.filters
        .iter()
        .map(|f| match f.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(ApiError::input("filters", format!(
                "--where {f}: expected KEY=VALUE (allowed: a swept key and its value, e.g. epsilon=1, or profile=NAME / profile=none)"
            ))),
        })
        .collect()
}

/// The points must be one sweep: one profile and one base config ([`Point::base`]),
/// and no point twice (`epsilon=1` beside `epsilon=1.0`); else refused with the
/// folders of each group named.
fn check_like(points: &[Point]) -> Result<(), ApiError> {
    let mut groups: Vec<(serde_json::Value, Vec<&Point>)> = Vec::new();
    for p in points {
        let b = p.base();
        match groups.iter_mut().find(|(g, _)| *g == b) {
            Some((_, members)) => members.push(p),
            None => groups.push((b, vec![p])),
        }
    }
    if groups.len() > 1 {
        let first = &groups[0].0;
        let lines: Vec<String> = groups
            .iter()
            .enumerate()
            .map(|(i, (b, members))| {
                let profile = b["profile"]
                    .as_str()
                    .map_or("no profile".to_string(), |p| format!("profile {p}"));
                let differs = if i == 0 {
                    String::new()
                } else {
                    format!(
                        "; differs from group 1 in {}",
                        differing(first, b).join(", ")
                    )
                };
                format!(
                    "  group {} ({profile}{differs}): {}",
                    i + 1,
                    members
                        .iter()
                        .map(|p| p.dir.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        return Err(input(format!(
            "these folders are not points of one sweep (one profile, one base config):\n{}\n(allowed: the folders of one group; pick one with --where profile=NAME or --where KEY=VALUE, or name its folders)",
            lines.join("\n")
        )));
    }
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            let same = a.set.len() == b.set.len()
                && a.set
                    .iter()
                    .all(|(k, va)| b.set.iter().any(|(kb, vb)| kb == k && same_value(va, vb)));
            if same {
                return Err(input(format!(
                    "{} and {}: the same sweep point twice ({} and {}) (allowed: each point once)",
                    a.dir.display(),
                    b.dir.display(),
                    label(a),
                    label(b)
                )));
            }
        }
    }
    Ok(())
}

/// Joins the sweep points of `args.dirs` and writes the combined folder (see
/// the module header); nothing is written when a point is refused.
pub fn combine(args: &CombineOptions) -> Result<Combined, ApiError> {
    let filters = parse_filters(args)?;
    let dirs = expand(&args.dirs)?;
    let mut points = Vec::new();
    let mut spec: Option<&'static Spec> = None;
    for dir in &dirs {
        let (point, s) = read_point(dir)?;
        if let Some(first) = spec {
            if first.id != s.id {
                return Err(input(format!(
                    "{}: figure {} differs from {} of {} (combine joins points of one figure)",
                    dir.display(),
                    s.id,
                    first.id,
                    dirs[0].display()
                )));
            }
        }
        if points.iter().any(|p: &Point| p.dir == point.dir) {
            return Err(input(format!("{}: given twice", dir.display())));
        }
        if let Some(external) = point.compare_for() {
            return Err(input(format!(
                "{}: a comparison run drawn beside the external figure {external}, not a sweep point (allowed: sweep-point folders of one figure)",
                dir.display()
            )));
        }
        spec = Some(s);
        points.push(point);
    }
    let spec = spec.ok_or_else(|| input("combine: no folders given"))?;
    let given = points.len();
    points.retain(|p| keep(p, &filters));
    if points.is_empty() {
        return Err(ApiError::input(
            "filters",
            format!(
                "--where {}: none of the {given} folder(s) matches (their points: {})",
                args.filters.join(" --where "),
                dirs.iter()
                    .map(|d| d
                        .file_name()
                        .map_or(String::new(), |n| n.to_string_lossy().into_owned()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    check_like(&points)?;
    // in value order: by each swept key in turn, numbers by value
    points.sort_by(|a, b| {
        for (k, va) in &a.set {
            let vb = b
                .set
                .iter()
                .find(|(kb, _)| kb == k)
                .map(|(_, v)| v.as_str());
            let o = value_order(va, vb.unwrap_or(""));
            if o.is_ne() {
                return o;
            }
        }
        a.name.cmp(&b.name)
    });
    // set.KEY columns: every key swept in any point, in first-seen order
    let mut keys: Vec<String> = Vec::new();
    for p in &points {
        for (k, _) in &p.set {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    let mut header = vec!["point".to_string()];
    header.extend(keys.iter().map(|k| format!("set.{k}")));
    header.extend(spec.summary_columns.get().iter().map(|s| s.to_string()));
    let mut rows = Vec::new();
    for p in &points {
        let n_set = p.set.len();
        for r in &p.summary.rows {
            let mut row = vec![Cell::Str(label(p))];
            for k in &keys {
                row.push(
                    p.set
                        .iter()
                        .find(|(pk, _)| pk == k)
                        .map_or(Cell::Empty, |(_, v)| Cell::Str(v.clone())),
                );
            }
            row.extend(r[n_set..].iter().cloned());
            rows.push(row);
        }
    }
    let table = Table { header, rows };

    let out = match &args.out {
        Some(o) => o.clone(),
        None => {
            let first = &points[0].dir;
            let leaf = spec.id.rsplit('/').next().unwrap_or(spec.id);
            first
                .parent()
                .unwrap_or(Path::new("."))
                .join(format!("{leaf}.combined"))
        }
    };
    if points.iter().any(|p| p.dir == out) {
        return Err(ApiError::input(
            "out",
            format!(
                "--out {}: is one of the folders being combined",
                out.display()
            ),
        ));
    }
    let panels = overlay::panels(&table, &spec.overlay, 0, args.facet.as_deref()).map_err(|e| {
        ApiError::input(
            "facet",
            format!("{}: cannot draw the overlay: {}", spec.id, e.0),
        )
    })?;
    let chart = OverlayChart {
        title: format!(
            "{} — {} sweep point(s){}",
            spec.id,
            points.len(),
            points[0]
                .profile()
                .map(|p| format!(", {p} profile (not the paper's scale)"))
                .unwrap_or_default()
        ),
        x: spec.overlay.x_label.to_string(),
        y: spec.overlay.y_label.to_string(),
        panels,
        points: points.iter().map(label).collect(),
    };
    let listing = serde_json::json!({
        "figure": spec.id,
        "overlay": { "x": spec.overlay.x, "y": spec.overlay.y, "series": spec.overlay.series, "facet": args.facet },
        "swept_keys": keys,
        "points": points.iter().map(|p| serde_json::json!({
            "folder": p.dir.display().to_string(),
            "label": label(p),
            "set": p.set.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
            "summary_rows": p.summary.rows.len(),
            "manifest": p.manifest,
        })).collect::<Vec<_>>(),
    });
    let tmp = temp_dir_for(&out)
        .map_err(|e| ApiError::from_command("out", CommandError::Failed(e.into())))?;
    let written = (|| -> anyhow::Result<()> {
        let path = tmp.join("combined.csv");
        table
            .write_csv(&path)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        crate::plot::render_as_in(&chart, &tmp, "combined")?;
        write_text(
            &tmp.join("combined.json"),
            &(serde_json::to_string_pretty(&listing)? + "\n"),
        )?;
        replace_dir(&tmp, &out)?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(ApiError::from_command("out", CommandError::Failed(e)));
    }
    Ok(Combined {
        figure: spec.id,
        points: points.len(),
        rows: table.rows.len(),
        folder: out,
    })
}
