//! The gallery: `<out>/index.html`, one self-contained page showing every figure
//! folder under an output root beside its paper — the PNG inline (linked to its
//! SVG), links to the CSVs and the manifest, the paper's claim and what matches
//! and what differs (the figure's notes, `docs/figures/<id>.toml`, shared with the
//! README's figure table), the provenance (commit, config, profile, wall time)
//! and a summary of the privacy ledger.
//!
//! Written after every `run`, `merge` and `audit`, and by `privpost gallery DIR`.
//! The page is a function of the folder's contents alone (no clock, no absolute
//! paths): it has no script, no external style sheet and no network reference,
//! and every link is relative, so it works from `file://` and when the folder is
//! copied elsewhere. A folder whose manifest cannot be read is listed with the
//! reason instead of stopping the page.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::experiments::{self, Notes, Spec};

pub mod thumbs;

/// The gallery's file name in the output root.
pub const FILE: &str = "index.html";

/// What `write` produced.
#[derive(Debug)]
pub struct Written {
    pub path: PathBuf,
    /// Figure folders shown (sweep points and combined folders included).
    pub folders: usize,
}

/// One folder of the output root.
#[derive(Debug)]
struct Folder {
    /// Path relative to the root, `paper/name`.
    rel: String,
    dir: PathBuf,
    /// Registry id it belongs to (from the manifest, or the folder name).
    id: String,
    kind: Kind,
}

impl Folder {
    /// The folder's registry row: a built-in figure, or an external one from its manifest.
    fn spec(&self) -> Option<&'static Spec> {
        match &self.kind {
            Kind::Figure(Ok(m)) => experiments::find_for(&self.id, Some(m)),
            _ => experiments::find(&self.id),
        }
    }
}

#[derive(Debug)]
enum Kind {
    /// A figure folder with its manifest (or the reason it could not be read).
    Figure(Result<Value, GalleryError>),
    /// A `privpost combine` folder.
    Combined,
}

/// Largest manifest read (the biggest privpost writes is well below 1 MB).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// A gallery page or a figure folder's manifest that cannot be read or written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GalleryError(pub String);

fn read_manifest(dir: &Path) -> Result<Value, GalleryError> {
    let path = dir.join("manifest.json");
    let len = std::fs::metadata(&path)
        .map_err(|e| GalleryError(format!("manifest.json: {e}")))?
        .len();
    if len > MAX_MANIFEST_BYTES {
        return Err(GalleryError(format!(
            "manifest.json: {len} bytes (allowed: at most {MAX_MANIFEST_BYTES})"
        )));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| GalleryError(format!("manifest.json: {e}")))?;
    serde_json::from_str(&text).map_err(|e| GalleryError(format!("manifest.json: {e}")))
}

fn sorted_dirs(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.file_type()?.is_dir() {
            continue;
        }
        out.push((name, entry.path()));
    }
    out.sort();
    Ok(out)
}

/// The figure folders of an output root, in registry order (then by name).
fn scan(root: &Path) -> std::io::Result<Vec<Folder>> {
    let mut found = Vec::new();
    for (paper, paper_dir) in sorted_dirs(root)? {
        for (name, dir) in sorted_dirs(&paper_dir)? {
            let rel = format!("{paper}/{name}");
            if dir.join("manifest.json").is_file() {
                let manifest = read_manifest(&dir);
                let id = manifest
                    .as_ref()
                    .ok()
                    .and_then(|m| m.get("figure")?.as_str().map(str::to_string))
                    .unwrap_or_else(|| {
                        format!("{paper}/{}", name.split('@').next().unwrap_or(&name))
                    });
                found.push(Folder {
                    rel,
                    dir,
                    id,
                    kind: Kind::Figure(manifest),
                });
            } else if dir.join("combined.json").is_file() {
                let leaf = name.trim_end_matches(".combined");
                found.push(Folder {
                    rel,
                    dir,
                    id: format!("{paper}/{}", leaf.split('@').next().unwrap_or(leaf)),
                    kind: Kind::Combined,
                });
            }
        }
    }
    let rank = |id: &str| {
        experiments::REGISTRY
            .iter()
            .position(|s| s.id == id)
            .unwrap_or(usize::MAX)
    };
    // the figure's own folder first, then its other folders (profiles, sweep
    // points), then comparison runs drawn beside an external figure, then
    // combined folders
    let sub = |f: &Folder| match &f.kind {
        Kind::Figure(_)
            if f.rel
                .ends_with(&f.id[f.id.find('/').map_or(0, |i| i + 1)..]) =>
        {
            0
        }
        Kind::Figure(Ok(m)) if m.get("compare_for").is_some_and(Value::is_string) => 2,
        Kind::Figure(_) => 1,
        Kind::Combined => 3,
    };
    found.sort_by(|a, b| {
        (rank(&a.id), &a.id, sub(a), &a.rel).cmp(&(rank(&b.id), &b.id, sub(b), &b.rel))
    });
    Ok(found)
}

/// Writes `<root>/index.html` (to a temporary name, then renamed).
pub fn write(root: &Path) -> Result<Written, GalleryError> {
    let folders = scan(root).map_err(|e| GalleryError(format!("{}: {e}", root.display())))?;
    let html = render(&folders);
    let path = root.join(FILE);
    // named and swept like every temporary (`.<leaf>.tmp-<pid>@<host>`): one a
    // killed run left behind is removed by the next run on this host
    crate::results::remove_stale(root, FILE);
    let tmp = root.join(format!(".{FILE}.tmp-{}", crate::results::owner_tag()));
    std::fs::write(&tmp, html).map_err(|e| GalleryError(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        GalleryError(format!("{}: {e}", path.display()))
    })?;
    Ok(Written {
        path,
        folders: folders.len(),
    })
}

/// Whether the root holds at least one figure or combined folder.
pub fn has_figures(root: &Path) -> bool {
    scan(root).is_ok_and(|f| !f.is_empty())
}

/// HTML text escaping.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A relative URL for a path below the root: each segment percent-encoded
/// (everything but unreserved characters), prefixed with `./` so a segment can
/// never read as a scheme.
pub fn href(rel: &str) -> String {
    let mut out = String::from(".");
    for seg in rel.split('/') {
        out.push('/');
        for b in seg.bytes() {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                out.push(b as char);
            } else {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// Notes text: escaped, with `code` spans kept as code.
fn prose(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in escape(s).split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

fn anchor(rel: &str) -> String {
    rel.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Shortest readable rendering of a privacy number.
fn num(x: f64) -> String {
    if x.is_infinite() {
        return "∞".into();
    }
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e5) {
        return format!("{x:.3e}");
    }
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn range(v: &[f64]) -> String {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if lo == hi {
        num(lo)
    } else {
        format!("{} – {}", num(lo), num(hi))
    }
}

/// One line per kind of claim in a manifest's ledger, plus its distinct conditions.
pub fn ledger_summary(manifest: &Value) -> Vec<String> {
    let Some(entries) = manifest.get("privacy").and_then(Value::as_array) else {
        return vec!["no privacy ledger in this manifest".into()];
    };
    if entries.is_empty() {
        return vec!["no privacy ledger entries".into()];
    }
    let (mut pure, mut approx_e, mut approx_d, mut rdp, mut curves, mut none) =
        (vec![], vec![], vec![], vec![], 0usize, 0usize);
    let mut conditions: Vec<(String, usize)> = Vec::new();
    for e in entries {
        let g = e.get("guarantee").unwrap_or(&Value::Null);
        let field = |k: &str| g.get(k).and_then(number);
        match g.get("kind").and_then(Value::as_str) {
            Some("pure_dp") => pure.extend(field("epsilon")),
            Some("approx_dp") => {
                approx_e.extend(field("epsilon"));
                approx_d.extend(field("delta"));
            }
            Some("rdp") => rdp.extend(field("order").zip(field("epsilon"))),
            Some("rdp_curve") => curves += 1,
            _ => none += 1,
        }
        for c in e
            .get("conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            match conditions.iter_mut().find(|(t, _)| t == c) {
                Some((_, n)) => *n += 1,
                None => conditions.push((c.to_string(), 1)),
            }
        }
    }
    let mut out = vec![format!(
        "{} entr{}",
        entries.len(),
        if entries.len() == 1 { "y" } else { "ies" }
    )];
    if !pure.is_empty() {
        out.push(format!("{} × ε-DP, ε = {}", pure.len(), range(&pure)));
    }
    if !approx_e.is_empty() {
        out.push(format!(
            "{} × (ε, δ)-DP, ε = {}, δ = {}",
            approx_e.len(),
            range(&approx_e),
            range(&approx_d)
        ));
    }
    if !rdp.is_empty() {
        let orders: Vec<f64> = rdp.iter().map(|p| p.0).collect();
        let eps: Vec<f64> = rdp.iter().map(|p| p.1).collect();
        out.push(format!(
            "{} × (λ, ε)-RDP, λ = {}, ε = {}",
            rdp.len(),
            range(&orders),
            range(&eps)
        ));
    }
    if curves > 0 {
        out.push(format!("{curves} × RDP curve (ε(λ) at each listed order)"));
    }
    if none > 0 {
        out.push(format!("{none} × no privacy (non-private baseline)"));
    }
    for (c, n) in conditions {
        out.push(format!(
            "condition ({n} entr{}): {c}",
            if n == 1 { "y" } else { "ies" }
        ));
    }
    out
}

fn files_of(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2.2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}\
img{max-width:100%;height:auto;border:1px solid #ddd;display:block;margin:.5em 0}\
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}\
dt{font-weight:bold;margin-top:.4em}dd{margin-left:1.2em}code{background:#f4f4f4;padding:0 .2em}\
.files a{margin-right:.8em}.err{color:#a00}.muted{color:#666;font-size:.9em}\
img.thumb{width:120px;margin:0}.grid{display:flex;flex-wrap:wrap;gap:.6em}.grid figure{margin:0;width:200px}\
.grid img{width:200px}.grid figcaption{font-size:.8em;word-break:break-all}";

fn render(folders: &[Folder]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>privpost gallery</title><style>{STYLE}</style></head><body>\n\
         <h1>privpost gallery</h1>\n<p>{} folder(s) of figures below this page, each beside the \
         paper it reproduces. Each figure links to its SVG, CSVs and manifest; the notes come from \
         <code>docs/figures/</code> in the repository.</p>\n",
        folders.len()
    );
    // contents
    h.push_str(
        "<p>The status says how each folder was run, as its run recorded it: at the paper's \
         setting (the shipped config as it is, with the figure's status there, e.g. reproduced), \
         or how it departs from it — the user's own config, a profile such as smoke (reduced: \
         never a reproduction), values changed by overrides or sweep points, a comparison run \
         drawn beside an external figure. A sweep point equal to the config's value is at the \
         paper's setting.</p>\n\
         <table><tr><th></th><th>figure</th><th>paper</th><th>status</th><th>wall time</th></tr>\n",
    );
    for f in folders {
        let spec = f.spec();
        let notes = spec.and_then(|s| s.notes().ok());
        let wall = match &f.kind {
            Kind::Figure(Ok(m)) => m
                .get("wall_seconds")
                .and_then(Value::as_f64)
                .map_or(String::new(), |s| format!("{s:.1} s")),
            _ => String::new(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{wall}</td></tr>",
            thumbnail(f, "thumb"),
            anchor(&f.rel),
            escape(&f.rel),
            notes.as_ref().map_or(String::new(), |n| escape(&format!(
                "{}, {}",
                n.paper, n.figure
            ))),
            escape(&run_status(f, notes.as_ref().map(|n| n.status.as_str()))),
        );
    }
    h.push_str("</table>\n");
    let missing: Vec<&str> = experiments::REGISTRY
        .iter()
        .map(|s| s.id)
        .filter(|id| !folders.iter().any(|f| f.id == *id))
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"muted\">Not in this folder (not run here): {}.</p>",
            escape(&missing.join(", "))
        );
    }
    let mut last_id = "";
    for f in folders {
        let spec = f.spec();
        if f.id != last_id {
            section_head(&mut h, &f.id, spec);
            last_id = &f.id;
            sweep_grid(&mut h, folders.iter().filter(|g| g.id == f.id));
        }
        folder(&mut h, f);
    }
    h.push_str("</body></html>\n");
    h
}

fn section_head(h: &mut String, id: &str, spec: Option<&Spec>) {
    let Some(spec) = spec else {
        let _ = writeln!(
            h,
            "<h2>{}</h2><p class=\"err\">not a figure of this build of privpost</p>",
            escape(id)
        );
        return;
    };
    match spec.notes() {
        Ok(Notes {
            paper,
            figure,
            claim,
            matches,
            differs,
            status,
            details,
            ..
        }) => {
            let _ = writeln!(
                h,
                "<h2>{} — {}</h2>\n<p><b>{}</b>, {} · <code>{}</code> · {}</p>\n<dl><dt>The paper</dt><dd>{}</dd>\
                 <dt>What matches</dt><dd>{}</dd><dt>What differs, and why</dt><dd>{}</dd></dl>",
                escape(&format!("{paper}, {figure}")),
                escape(spec.title),
                escape(&paper),
                escape(&figure),
                escape(spec.id),
                escape(&format!("status at the paper's scale: {status}")),
                prose(&claim),
                prose(&matches),
                prose(&differs)
            );
            if let Some(d) = details {
                let _ = writeln!(
                    h,
                    "<details><summary>Details</summary><p>{}</p></details>",
                    prose(&d)
                );
            }
        }
        Err(e) => {
            let _ = writeln!(
                h,
                "<h2>{}</h2><p class=\"err\">{}</p>",
                escape(spec.title),
                escape(&e.0)
            );
        }
    }
}

/// The folder's main picture (figure.png or combined.png) as a small image
/// linking to its section, or nothing if it has none.
fn thumbnail(f: &Folder, class: &str) -> String {
    ["figure.png", "combined.png"]
        .iter()
        .find(|n| f.dir.join(n).is_file())
        .map_or(String::new(), |n| {
            format!(
                "<a href=\"#{}\"><img class=\"{class}\" src=\"{}\" alt=\"{}\" loading=\"lazy\"></a>",
                anchor(&f.rel),
                href(&format!("{}/{n}", f.rel)),
                escape(&f.rel)
            )
        })
}

/// A figure run in several folders (sweep points, a profile, a combine): a
/// grid of their thumbnails, each captioned with its folder, before the
/// folders themselves.
fn sweep_grid<'a>(h: &mut String, same_figure: impl Iterator<Item = &'a Folder>) {
    let cells: Vec<String> = same_figure
        .map(|f| {
            format!(
                "<figure>{}<figcaption>{}</figcaption></figure>",
                thumbnail(f, "grid"),
                escape(f.rel.rsplit('/').next().unwrap_or(&f.rel))
            )
        })
        .collect();
    if cells.len() > 1 {
        let _ = writeln!(h, "<div class=\"grid\">{}</div>", cells.join(""));
    }
}

fn folder(h: &mut String, f: &Folder) {
    let _ = writeln!(
        h,
        "<h3 id=\"{}\"><code>{}</code></h3>",
        anchor(&f.rel),
        escape(&f.rel)
    );
    let files = files_of(&f.dir);
    let mut pngs: Vec<&String> = files.iter().filter(|n| n.ends_with(".png")).collect();
    pngs.sort_by_key(|n| (!matches!(n.as_str(), "figure.png" | "combined.png"), *n));
    for png in &pngs {
        let stem = png.trim_end_matches(".png");
        let img = format!(
            "<img src=\"{}\" alt=\"{} {}\" loading=\"eager\">",
            href(&format!("{}/{png}", f.rel)),
            escape(&f.rel),
            escape(stem)
        );
        if files.iter().any(|n| *n == format!("{stem}.svg")) {
            let _ = writeln!(
                h,
                "<a href=\"{}\">{img}</a>",
                href(&format!("{}/{stem}.svg", f.rel))
            );
        } else {
            let _ = writeln!(h, "{img}");
        }
    }
    if pngs.is_empty() {
        h.push_str("<p class=\"err\">no figure drawn in this folder</p>\n");
    }
    // links: the main files first, any further tables folded away
    let main = [
        "data.csv",
        "summary.csv",
        "manifest.json",
        "combined.csv",
        "combined.json",
    ];
    let link = |n: &str| {
        format!(
            "<a href=\"{}\">{}</a>",
            href(&format!("{}/{n}", f.rel)),
            escape(n)
        )
    };
    let mut line: Vec<String> = main
        .iter()
        .filter(|n| files.iter().any(|x| x == *n))
        .map(|n| link(n))
        .collect();
    line.extend(
        files
            .iter()
            .filter(|n| n.ends_with(".svg"))
            .map(|n| link(n)),
    );
    let _ = writeln!(h, "<p class=\"files\">{}</p>", line.join(" "));
    let extra: Vec<&String> = files
        .iter()
        .filter(|n| n.ends_with(".csv") && !main.contains(&n.as_str()))
        .collect();
    if !extra.is_empty() {
        let _ = writeln!(
            h,
            "<details><summary>{} further table(s)</summary><p class=\"files\">{}</p></details>",
            extra.len(),
            extra.iter().map(|n| link(n)).collect::<Vec<_>>().join(" ")
        );
    }
    match &f.kind {
        Kind::Combined => {
            h.push_str("<p class=\"muted\">sweep points joined by <code>privpost combine</code>; each point's provenance is in its own folder</p>\n");
        }
        Kind::Figure(Err(e)) => {
            let _ = writeln!(h, "<p class=\"err\">{}</p>", escape(&e.0));
        }
        Kind::Figure(Ok(m)) => provenance(h, m),
    }
}

/// How a folder was run, for the contents table: the figure's status at paper
/// scale (`paper_status`, from its notes) only when it ran at the paper's scale
/// with no override; a profile run, an overridden run or a sweep point says so
/// instead; a combined folder is flagged stale when one of its points was
/// re-run (or removed) after it was combined.
fn run_status(f: &Folder, paper_status: Option<&str>) -> String {
    match &f.kind {
        Kind::Combined => match stale_points(&f.dir) {
            Ok(stale) if stale.is_empty() => "combined sweep points".into(),
            Ok(stale) => format!(
                "STALE combine: {} re-run or removed since (run privpost combine again)",
                stale.join(", ")
            ),
            Err(e) => format!("combined (cannot check its points: {e})"),
        },
        Kind::Figure(Err(_)) => "unreadable manifest".into(),
        Kind::Figure(Ok(m)) => {
            let parts = departures_of(m);
            if parts.is_empty() {
                format!("paper scale: {}", paper_status.unwrap_or("no notes"))
            } else {
                parts.join("; ")
            }
        }
    }
}

/// How a run departs from the paper's setting, as its manifest records it
/// (own config, profile, changed values, comparison run); a manifest
/// written before that field existed is read by [`off_paper`]. Empty for a
/// paper-scale run.
fn departures_of(m: &Value) -> Vec<String> {
    match m.get("departures").and_then(Value::as_array) {
        Some(d) => d
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        None => off_paper(m),
    }
}

/// How a run's manifest departs from the paper's setting (its profile, a
/// sweep point or a `--set`); empty for a paper-scale run.
fn off_paper(m: &Value) -> Vec<String> {
    let profile = m.get("profile").and_then(Value::as_str);
    let overrides: Vec<&str> = m
        .get("overrides")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let point = m.get("sweep_point").and_then(Value::as_str);
    let mut parts = Vec::new();
    if let Some(p) = profile {
        parts.push(format!("{p} profile (reduced, not the paper's scale)"));
    }
    if let Some(p) = point {
        parts.push(format!("off-paper setting: sweep point {p}"));
    } else if !overrides.is_empty() {
        parts.push(format!("off-paper setting: --set {}", overrides.join(" ")));
    }
    parts
}

/// The points of a combined folder whose folder was re-run after the combine
/// (its manifest differs from the one combined) or is gone.
fn stale_points(dir: &Path) -> Result<Vec<String>, GalleryError> {
    let text = std::fs::read_to_string(dir.join("combined.json"))
        .map_err(|e| GalleryError(e.to_string()))?;
    let combined: Value = serde_json::from_str(&text).map_err(|e| GalleryError(e.to_string()))?;
    // points beside the combined folder (by name), or where combine read them
    let paper_dir = dir.parent().ok_or(GalleryError("no paper folder".into()))?;
    let locate = |folder: &str| {
        let given = Path::new(folder);
        match given.file_name() {
            Some(name) if paper_dir.join(name).is_dir() => paper_dir.join(name),
            _ => given.to_path_buf(),
        }
    };
    let mut stale = Vec::new();
    for p in combined
        .get("points")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let folder = p.get("folder").and_then(Value::as_str).unwrap_or("");
        // the whole manifest: a re-run writes new timings even within a second
        let then = p.get("manifest");
        let now = read_manifest(&locate(folder)).ok();
        if then.is_none() || then != now.as_ref() {
            stale.push(
                Path::new(folder)
                    .file_name()
                    .map_or(folder.to_string(), |n| n.to_string_lossy().into_owned()),
            );
        }
    }
    Ok(stale)
}

/// The run's noise mode and how its ledger entries drew their noise, e.g.
/// "exact (seeded, reproducible); entries: 2 exact, 4 float-only, 1 none".
fn noise_summary(m: &Value) -> String {
    let mode = m
        .pointer("/noise/mode")
        .and_then(Value::as_str)
        .unwrap_or("float");
    let how = match mode {
        "float" => "the papers' floating-point noise",
        "exact" => "CKS20 exact noise, seeded: reproducible, not secret",
        "secure" => "CKS20 exact noise from the system's random source: not reproducible",
        _ => "unknown mode",
    };
    let mut counts: Vec<(String, usize)> = Vec::new();
    for e in m
        .get("privacy")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let label = e
            .get("noise")
            .and_then(Value::as_str)
            .unwrap_or("unlabelled");
        match counts.iter_mut().find(|(l, _)| l == label) {
            Some(c) => c.1 += 1,
            None => counts.push((label.to_string(), 1)),
        }
    }
    let entries: Vec<String> = counts.iter().map(|(l, n)| format!("{n} {l}")).collect();
    if entries.is_empty() {
        format!("{mode} ({how})")
    } else {
        format!("{mode} ({how}); ledger entries: {}", entries.join(", "))
    }
}

fn provenance(h: &mut String, m: &Value) {
    let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let commit = match m.get("git_commit").and_then(Value::as_str) {
        Some(c) => {
            let dirty = m.get("git_dirty_at_build").and_then(Value::as_bool) == Some(true);
            format!(
                "{}{}",
                &c[..c.len().min(12)],
                if dirty { " (uncommitted changes)" } else { "" }
            )
        }
        None => "unknown".into(),
    };
    let overrides: Vec<String> = m
        .get("overrides")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let rows = [
        (
            "code",
            format!(
                "privpost {} at commit {commit}",
                m.get("privpost_version")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
            ),
        ),
        ("config", s("config_file")),
        (
            "profile",
            m.get("profile")
                .and_then(Value::as_str)
                .unwrap_or("paper scale (no profile)")
                .to_string(),
        ),
        (
            "overrides",
            if overrides.is_empty() {
                "none".into()
            } else {
                overrides.join(" ")
            },
        ),
        (
            "seed",
            m.get("seed").map_or(String::new(), |v| v.to_string()),
        ),
        (
            "tasks",
            format!(
                "{} on {} job(s)",
                m.get("tasks").map_or(String::new(), |v| v.to_string()),
                m.get("jobs").map_or(String::new(), |v| v.to_string())
            ),
        ),
        (
            "wall time",
            m.get("wall_seconds")
                .and_then(Value::as_f64)
                .map_or(String::new(), |w| format!("{w:.2} s")),
        ),
        ("finished", s("finished_at")),
        ("noise", noise_summary(m)),
    ];
    h.push_str("<table>");
    for (k, v) in rows {
        let _ = write!(h, "<tr><th>{k}</th><td>{}</td></tr>", escape(&v));
    }
    let ledger = ledger_summary(m);
    let _ = writeln!(
        h,
        "<tr><th>privacy ledger</th><td>{}</td></tr></table>",
        ledger
            .iter()
            .map(|l| escape(l))
            .collect::<Vec<_>>()
            .join("<br>")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_and_encoded() {
        assert_eq!(
            href("foulds2016/fig2@epsilon=0.1/figure.png"),
            "./foulds2016/fig2%40epsilon%3D0.1/figure.png"
        );
        assert_eq!(href("a b/c:d"), "./a%20b/c%3Ad");
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(prose("see `x<y` now"), "see <code>x&lt;y</code> now");
    }

    #[test]
    fn ledger_summary_counts_claims() {
        let m: Value = serde_json::json!({"privacy": [
            {"guarantee": {"kind": "pure_dp", "epsilon": 0.1}, "conditions": ["at convergence"]},
            {"guarantee": {"kind": "pure_dp", "epsilon": 10.0}, "conditions": ["at convergence"]},
            {"guarantee": {"kind": "approx_dp", "epsilon": "inf", "delta": 1e-5}},
            {"guarantee": {"kind": "none"}},
        ]});
        let s = ledger_summary(&m);
        assert_eq!(s[0], "4 entries");
        assert_eq!(s[1], "2 × ε-DP, ε = 0.1 – 10");
        assert_eq!(s[2], "1 × (ε, δ)-DP, ε = ∞, δ = 1.000e-5");
        assert_eq!(s[3], "1 × no privacy (non-private baseline)");
        assert_eq!(s[4], "condition (2 entries): at convergence");
    }

    #[test]
    fn noise_summary_names_the_mode_and_the_entries() {
        let m: Value = serde_json::json!({"noise": {"mode": "exact"}, "privacy": [
            {"noise": "exact"}, {"noise": "float-only"}, {"noise": "exact"},
        ]});
        assert_eq!(
            noise_summary(&m),
            "exact (CKS20 exact noise, seeded: reproducible, not secret); ledger entries: 2 exact, 1 float-only"
        );
        assert!(noise_summary(&serde_json::json!({})).starts_with("float ("));
    }
}
