//! `privpost combine`: joins the folders of a sweep (one per point) into one
//! tidy table, an overlay figure on the figure's main metric, and a listing of
//! the points with their manifests.

use std::path::{Path, PathBuf};

use super::CommandError;
use crate::experiments::{self, Spec};
use crate::plot::overlay::{self, OverlayChart};
use crate::results::table::{Cell, Table};
use crate::results::{replace_dir, temp_dir_for, write_text};

/// Join sweep-point folders of one figure into combined.csv, an overlay figure and combined.json.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  privpost run foulds2016/fig2 --smoke --set epsilon=0.1,1,10\n  privpost combine results/foulds2016/fig2      (= results/foulds2016/fig2@*)\n\
writes results/foulds2016/fig2.combined/{combined.csv, combined.png, combined.svg, combined.json}"
)]
pub struct CombineArgs {
    /// Figure folders written by `privpost run` (each with manifest.json and summary.csv);
    /// a figure's base name (results/foulds2016/fig2) stands for its sweep points fig2@….
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output folder (default: <parent of the first>/<figure>.combined).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// One overlay panel per value of this swept key (a second sweep axis).
    #[arg(long, value_name = "KEY")]
    pub facet: Option<String>,
}

/// One sweep point as read.
struct Point {
    dir: PathBuf,
    name: String,
    manifest: serde_json::Value,
    /// The swept keys and values (`set.KEY` columns of its summary).
    set: Vec<(String, String)>,
    summary: Table,
}

fn read_point(dir: &Path) -> Result<(Point, &'static Spec), CommandError> {
    let bad = |m: String| CommandError::input(format!("{}: {m}", dir.display()));
    if !dir.is_dir() {
        return Err(bad("not a folder".into()));
    }
    let text = std::fs::read_to_string(dir.join("manifest.json")).map_err(|e| {
        bad(format!(
            "cannot read manifest.json ({e}); give figure folders written by `privpost run`"
        ))
    })?;
    let manifest: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| bad(format!("manifest.json is not valid JSON: {e}")))?;
    let id = manifest
        .get("figure")
        .and_then(|f| f.as_str())
        .ok_or_else(|| bad("manifest.json has no `figure`".into()))?;
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
    if rest != spec.summary_columns {
        return Err(bad(format!(
            "summary.csv has columns {:?}; {id} writes {:?} after any set.KEY columns",
            summary.header, spec.summary_columns
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
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    found.sort();
    found
}

/// The folders to combine: each argument as given, except a figure's base
/// name (`results/foulds2016/fig2`), which stands for its sweep points
/// `fig2@…` when it has any; a folder holding figure folders but no manifest
/// is refused naming what it holds.
fn expand(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, CommandError> {
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
            return Err(CommandError::input(format!(
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

pub fn combine(args: &CombineArgs) -> Result<(), CommandError> {
    let dirs = expand(&args.dirs)?;
    let mut points = Vec::new();
    let mut spec: Option<&'static Spec> = None;
    for dir in &dirs {
        let (point, s) = read_point(dir)?;
        if let Some(first) = spec {
            if first.id != s.id {
                return Err(CommandError::input(format!(
                    "{}: figure {} differs from {} of {} (combine joins points of one figure)",
                    dir.display(),
                    s.id,
                    first.id,
                    dirs[0].display()
                )));
            }
        }
        if points.iter().any(|p: &Point| p.dir == point.dir) {
            return Err(CommandError::input(format!(
                "{}: given twice",
                dir.display()
            )));
        }
        spec = Some(s);
        points.push(point);
    }
    let spec = spec.ok_or_else(|| CommandError::input("combine: no folders given"))?;
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
    header.extend(spec.summary_columns.iter().map(|s| s.to_string()));
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
        return Err(CommandError::input(format!(
            "--out {}: is one of the folders being combined",
            out.display()
        )));
    }
    let panels = overlay::panels(&table, &spec.overlay, 0, args.facet.as_deref()).map_err(|e| {
        CommandError::input(format!("{}: cannot draw the overlay: {}", spec.id, e.0))
    })?;
    let chart = OverlayChart {
        title: format!("{} — {} sweep point(s)", spec.id, points.len()),
        x: spec.overlay.x_label.to_string(),
        y: spec.overlay.y_label.to_string(),
        panels,
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
    let tmp = temp_dir_for(&out).map_err(|e| CommandError::Failed(e.into()))?;
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
        return Err(CommandError::Failed(e));
    }
    crate::outln!(
        "combined {} point(s) of {} ({} rows) -> {}",
        points.len(),
        spec.id,
        table.rows.len(),
        out.join("combined.csv").display()
    );
    Ok(())
}
