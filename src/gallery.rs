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
use crate::privacy::event::Guarantee;
use crate::results::manifest::{FolderManifest, InferManifest, Manifest};

mod html;
use html::render;

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
    Figure(Result<Box<Manifest>, GalleryError>),
    /// A `privpost combine` folder.
    Combined,
    /// A posterior `privpost infer` wrote (`<out>/infer/<name>/`).
    Posterior(Box<InferManifest>),
}

/// A gallery page or a figure folder's manifest that cannot be read or written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GalleryError(pub String);

/// A figure folder's manifest, typed ([`Manifest::read`]); the reason names
/// the file by its name alone, as the page shows no absolute path.
fn read_manifest(dir: &Path) -> Result<Manifest, GalleryError> {
    Manifest::read(dir).map_err(|e| GalleryError(format!("manifest.json: {}", e.what)))
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
                let manifest = match FolderManifest::read(&dir) {
                    Ok(FolderManifest::Infer(m)) => {
                        found.push(Folder {
                            id: rel.clone(),
                            rel,
                            dir,
                            kind: Kind::Posterior(m),
                        });
                        continue;
                    }
                    Ok(FolderManifest::Figure(m)) => Ok(m),
                    Err(e) => Err(GalleryError(format!("manifest.json: {}", e.what))),
                };
                let id = manifest
                    .as_ref()
                    .map(|m| m.figure.clone())
                    .unwrap_or_else(|_| {
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
        Kind::Figure(Ok(m)) if m.compare_for.is_some() => 2,
        Kind::Figure(_) => 1,
        Kind::Combined => 3,
        Kind::Posterior(_) => 0,
    };
    found.sort_by(|a, b| {
        (rank(&a.id), &a.id, sub(a))
            .cmp(&(rank(&b.id), &b.id, sub(b)))
            .then_with(|| natural_cmp(&a.rel, &b.rel))
    });
    Ok(found)
}

/// Folder names in the order a reader expects: numbers inside them compared as
/// numbers (`epsilon=3.16` before `epsilon=10`; as text, 10 came first), the
/// rest as text.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    // the number at the start of `s` (digits, a fraction, an exponent) and its length
    fn number(s: &str) -> Option<(f64, usize)> {
        let b = s.as_bytes();
        let digits =
            |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut end = digits(0);
        if end == 0 {
            return None;
        }
        if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1);
        }
        if matches!(b.get(end), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
            if b.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
                end = digits(end + 1 + sign);
            }
        }
        s[..end].parse().ok().map(|x| (x, end))
    }
    let (mut x, mut y) = (a, b);
    loop {
        match (number(x), number(y)) {
            (Some((p, i)), Some((q, j))) => match p.total_cmp(&q) {
                Ordering::Equal => {
                    (x, y) = (&x[i..], &y[j..]);
                    continue;
                }
                other => return other,
            },
            _ => {
                let (mut cx, mut cy) = (x.chars(), y.chars());
                match (cx.next(), cy.next()) {
                    (None, None) => return a.cmp(b),
                    (None, Some(_)) => return Ordering::Less,
                    (Some(_), None) => return Ordering::Greater,
                    (Some(c), Some(d)) if c == d => (x, y) = (cx.as_str(), cy.as_str()),
                    (Some(c), Some(d)) => return c.cmp(&d),
                }
            }
        }
    }
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
pub fn ledger_summary(manifest: &Manifest) -> Vec<String> {
    let entries = &manifest.privacy;
    if entries.is_empty() {
        return vec!["no privacy ledger entries".into()];
    }
    let (mut pure, mut approx_e, mut approx_d, mut rdp, mut curves, mut none) =
        (vec![], vec![], vec![], vec![], 0usize, 0usize);
    let mut conditions: Vec<(String, usize)> = Vec::new();
    for e in entries {
        match &e.guarantee {
            Guarantee::PureDp { epsilon } => pure.push(*epsilon),
            Guarantee::ApproxDp { epsilon, delta, .. } => {
                approx_e.push(*epsilon);
                approx_d.push(*delta);
            }
            Guarantee::Rdp { order, epsilon } => rdp.push((*order, *epsilon)),
            Guarantee::RdpCurve { .. } => curves += 1,
            Guarantee::None => none += 1,
        }
        for c in &e.conditions {
            match conditions.iter_mut().find(|(t, _)| t == c) {
                Some((_, n)) => *n += 1,
                None => conditions.push((c.clone(), 1)),
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

/// How a run departs from the paper's setting, as its manifest records it
/// (own config, profile, changed values, comparison run); a manifest
/// written before that field existed is read by [`off_paper`]. Empty for a
/// paper-scale run.
fn departures_of(m: &Manifest) -> Vec<String> {
    match &m.departures {
        Some(d) => d.clone(),
        None => off_paper(m),
    }
}

/// How a run's manifest departs from the paper's setting (its profile, a
/// sweep point or a `--set`); empty for a paper-scale run.
fn off_paper(m: &Manifest) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(p) = &m.profile {
        parts.push(format!("{p} profile (reduced, not the paper's scale)"));
    }
    if let Some(p) = &m.sweep_point {
        parts.push(format!("off-paper setting: sweep point {p}"));
    } else if !m.overrides.is_empty() {
        parts.push(format!(
            "off-paper setting: --set {}",
            m.overrides.join(" ")
        ));
    }
    parts
}

/// The points of a combined folder whose folder was re-run after the combine
/// (its manifest differs from the one combined) or is gone.
fn stale_points(dir: &Path) -> Result<Vec<String>, GalleryError> {
    let text = crate::input::read_found_text(&dir.join("combined.json"))
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
        let then = p
            .get("manifest")
            .and_then(|m| serde_json::from_value::<Manifest>(m.clone()).ok());
        let now = read_manifest(&locate(folder)).ok();
        if then.is_none() || then != now {
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
fn noise_summary(m: &Manifest) -> String {
    use crate::privacy::event::NoiseMode;
    let mode = m.noise.mode;
    let how = match mode {
        NoiseMode::Float => "the papers' floating-point noise",
        NoiseMode::Exact => "CKS20 exact noise, seeded: reproducible, not secret",
        NoiseMode::Secure => "CKS20 exact noise from the system's random source: not reproducible",
    };
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for e in &m.privacy {
        let label = if e.noise.is_empty() {
            "unlabelled"
        } else {
            e.noise.as_str()
        };
        match counts.iter_mut().find(|(l, _)| *l == label) {
            Some(c) => c.1 += 1,
            None => counts.push((label, 1)),
        }
    }
    let mode = mode.as_str();
    let entries: Vec<String> = counts.iter().map(|(l, n)| format!("{n} {l}")).collect();
    if entries.is_empty() {
        format!("{mode} ({how})")
    } else {
        format!("{mode} ({how}); ledger entries: {}", entries.join(", "))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// Sweep points in numeric order, text as text, equal numbers written
    /// differently kept apart.
    #[test]
    fn folders_sort_numbers_as_numbers() {
        let mut v = vec![
            "fig2@smoke,epsilon=10",
            "fig2@smoke,epsilon=3.16",
            "fig2@smoke,epsilon=0.1",
            "fig2",
            "fig2@smoke,epsilon=1e-3",
            "fig10",
            "fig2@smoke,epsilon=1.0",
            "fig2@smoke,epsilon=1",
        ];
        v.sort_by(|a, b| super::natural_cmp(a, b));
        assert_eq!(
            v,
            [
                "fig2",
                "fig2@smoke,epsilon=1e-3",
                "fig2@smoke,epsilon=0.1",
                "fig2@smoke,epsilon=1",
                "fig2@smoke,epsilon=1.0",
                "fig2@smoke,epsilon=3.16",
                "fig2@smoke,epsilon=10",
                "fig10",
            ]
        );
    }

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

    /// The manifest of tests/reference/manifests/ (written by e1b8e2a), as
    /// JSON edited by `edit`, typed: what a folder's `manifest.json` holds.
    pub(crate) fn reference_manifest(edit: impl FnOnce(&mut Value)) -> Value {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/reference/manifests/e1b8e2a-foulds2016-fig2.json");
        let mut m: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        edit(&mut m);
        m
    }

    fn typed(m: Value) -> Manifest {
        serde_json::from_value(m).unwrap()
    }

    #[test]
    fn ledger_summary_counts_claims() {
        let m = typed(reference_manifest(|m| {
            let entry = |guarantee: Value, conditions: Value| {
                serde_json::json!({"series": "s", "event": {"mechanism": "non_private"},
                    "guarantee": guarantee, "conditions": conditions})
            };
            let at = serde_json::json!(["at convergence"]);
            m["privacy"] = serde_json::json!([
                entry(
                    serde_json::json!({"kind": "pure_dp", "epsilon": 0.1}),
                    at.clone()
                ),
                entry(serde_json::json!({"kind": "pure_dp", "epsilon": 10.0}), at),
                entry(
                    serde_json::json!({"kind": "approx_dp", "epsilon": "inf", "delta": 1e-5,
                        "conversion": "theorem", "order": null}),
                    serde_json::json!([])
                ),
                entry(serde_json::json!({"kind": "none"}), serde_json::json!([])),
            ]);
        }));
        let s = ledger_summary(&m);
        assert_eq!(s[0], "4 entries");
        assert_eq!(s[1], "2 × ε-DP, ε = 0.1 – 10");
        assert_eq!(s[2], "1 × (ε, δ)-DP, ε = ∞, δ = 1.000e-5");
        assert_eq!(s[3], "1 × no privacy (non-private baseline)");
        assert_eq!(s[4], "condition (2 entries): at convergence");
    }

    #[test]
    fn noise_summary_names_the_mode_and_the_entries() {
        let m = typed(reference_manifest(|m| {
            m["noise"]["mode"] = "exact".into();
            let first = m["privacy"][0].clone();
            let labelled = |label: &str| {
                let mut e = first.clone();
                e["noise"] = label.into();
                e
            };
            m["privacy"] =
                serde_json::json!([labelled("exact"), labelled("float-only"), labelled("exact")]);
        }));
        assert_eq!(
            noise_summary(&m),
            "exact (CKS20 exact noise, seeded: reproducible, not secret); ledger entries: 2 exact, 1 float-only"
        );
        let plain = typed(reference_manifest(|m| {
            m.as_object_mut().unwrap().remove("noise");
            m["privacy"] = serde_json::json!([]);
        }));
        assert!(noise_summary(&plain).starts_with("float ("));
    }

    /// The gallery sets each release's μ and TPR at FPR 0.01 beside its guarantee,
    /// and says when a manifest records none.
    #[test]
    fn attack_risk_sits_beside_each_guarantee() {
        let old = typed(reference_manifest(|_| {}));
        let mut h = String::new();
        html::provenance(&mut h, &old);
        assert!(h.contains("not recorded"), "{h}");
        let risks = crate::privacy::release_risk::release_risks(&old.privacy);
        assert!(!risks.is_empty());
        let m = typed(reference_manifest(|m| {
            m["attack_risk"] = serde_json::to_value(&risks).unwrap();
        }));
        let mut h = String::new();
        html::provenance(&mut h, &m);
        let tpr = crate::numeric::sig(risks[0].tpr(1e-2).unwrap());
        assert!(h.contains("TPR at FPR 0.01") && h.contains(&tpr), "{h}");
        assert!(h.contains(&escape(&risks[0].release)), "{h}");
    }

    /// A manifest written before privpost recorded its departures is read
    /// from its profile, sweep point and overrides.
    #[test]
    fn departures_of_older_manifests_come_from_profile_and_overrides() {
        let m = typed(reference_manifest(|_| {}));
        assert_eq!(departures_of(&m)[1], "epsilon = 1 (config: 0.1)");
        let old = typed(reference_manifest(|m| {
            m.as_object_mut().unwrap().remove("departures");
        }));
        let set = typed(reference_manifest(|m| {
            m.as_object_mut().unwrap().remove("departures");
            m["sweep_point"] = Value::Null;
        }));
        assert_eq!(
            departures_of(&set)[1],
            "off-paper setting: --set epsilon=0.1,1,10"
        );
        assert_eq!(
            departures_of(&old),
            [
                "smoke profile (reduced, not the paper's scale)",
                "off-paper setting: sweep point epsilon=1"
            ]
        );
    }
}
