//! The gallery page's HTML: the sections per figure (notes, status), the thumbnails and sweep grids, and each run folder's provenance.

use super::files_of;
use super::{escape, Folder, Kind, Notes, Spec};
use crate::experiments;
use crate::gallery::anchor;
use crate::gallery::departures_of;
use crate::gallery::href;
use crate::gallery::ledger_summary;
use crate::gallery::noise_summary;
use crate::gallery::prose;
use crate::gallery::stale_points;
use crate::results::manifest::{InferManifest, Manifest};
use std::fmt::Write;

pub(super) const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2.2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}\
img{max-width:100%;height:auto;border:1px solid #ddd;display:block;margin:.5em 0}\
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}\
dt{font-weight:bold;margin-top:.4em}dd{margin-left:1.2em}code{background:#f4f4f4;padding:0 .2em}\
.files a{margin-right:.8em}.err{color:#a00}.muted{color:#666;font-size:.9em}\
img.thumb{width:120px;margin:0}.grid{display:flex;flex-wrap:wrap;gap:.6em}.grid figure{margin:0;width:200px}\
.grid img{width:200px}.grid figcaption{font-size:.8em;word-break:break-all}";

pub(super) fn render(folders: &[Folder]) -> String {
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
            Kind::Figure(Ok(m)) => format!("{:.1} s", m.wall_seconds),
            Kind::Posterior(m) => format!("{:.1} s", m.wall_seconds),
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
            if matches!(f.kind, Kind::Posterior(_)) {
                let _ = writeln!(
                    h,
                    "<h2>{}</h2><p>A posterior computed by <code>privpost infer</code> from a private release: not a figure of a paper.</p>",
                    escape(&f.id)
                );
            } else {
                section_head(&mut h, &f.id, spec);
            }
            last_id = &f.id;
            sweep_grid(&mut h, folders.iter().filter(|g| g.id == f.id));
        }
        folder(&mut h, f);
    }
    h.push_str("</body></html>\n");
    h
}

pub(super) fn section_head(h: &mut String, id: &str, spec: Option<&Spec>) {
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
pub(super) fn thumbnail(f: &Folder, class: &str) -> String {
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
pub(super) fn sweep_grid<'a>(h: &mut String, same_figure: impl Iterator<Item = &'a Folder>) {
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

pub(super) fn folder(h: &mut String, f: &Folder) {
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
        Kind::Posterior(m) => posterior(h, m),
    }
}

/// How a folder was run, for the contents table: the figure's status at paper
/// scale (`paper_status`, from its notes) only when it ran at the paper's scale
/// with no override; a profile run, an overridden run or a sweep point says so
/// instead; a combined folder is flagged stale when one of its points was
/// re-run (or removed) after it was combined.
pub(super) fn run_status(f: &Folder, paper_status: Option<&str>) -> String {
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
        Kind::Posterior(_) => "privpost infer posterior".into(),
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

/// An infer posterior's provenance: what it was computed from and how.
pub(super) fn posterior(h: &mut String, m: &InferManifest) {
    let bound = m
        .record_acceptance_bound
        .map_or(String::new(), |b| format!(" (bound e^-ε: {b:.4})"));
    let rows = [
        ("code", format!("privpost {}", m.privpost_version)),
        (
            "input",
            m.input.clone().unwrap_or_else(|| "not recorded".into()),
        ),
        ("method", m.method.clone()),
        ("kernel", m.kernel.clone()),
        (
            "chains",
            format!("{} (warm-up {}), seed {}", m.chains, m.warmup, m.seed),
        ),
        (
            "record acceptance",
            format!("{:.4}{bound}", m.record_acceptance),
        ),
        ("wall time", format!("{:.2} s", m.wall_seconds)),
        (
            "privacy",
            format!("added cost {}: {}", m.privacy.added_cost, m.privacy.why),
        ),
    ];
    h.push_str("<table>");
    for (k, v) in rows {
        let _ = write!(h, "<tr><th>{k}</th><td>{}</td></tr>", escape(&v));
    }
    let warnings = m.warnings.as_deref().unwrap_or_default();
    let _ = writeln!(
        h,
        "<tr><th>warnings</th><td>{}</td></tr></table>",
        if warnings.is_empty() {
            "none".to_string()
        } else {
            warnings
                .iter()
                .map(|w| escape(w))
                .collect::<Vec<_>>()
                .join("<br>")
        }
    );
}

pub(super) fn provenance(h: &mut String, m: &Manifest) {
    let commit = match &m.git_commit {
        Some(c) => {
            let dirty = m.git_dirty_at_build == Some(true);
            format!(
                "{}{}",
                c.get(..c.len().min(12)).unwrap_or(c),
                if dirty { " (uncommitted changes)" } else { "" }
            )
        }
        None => "unknown".into(),
    };
    let rows = [
        (
            "code",
            format!("privpost {} at commit {commit}", m.privpost_version),
        ),
        ("config", m.config_file.clone()),
        (
            "profile",
            m.profile
                .clone()
                .unwrap_or_else(|| "paper scale (no profile)".to_string()),
        ),
        (
            "overrides",
            if m.overrides.is_empty() {
                "none".into()
            } else {
                m.overrides.join(" ")
            },
        ),
        ("seed", m.seed.to_string()),
        ("tasks", format!("{} on {} job(s)", m.tasks, m.jobs)),
        ("wall time", format!("{:.2} s", m.wall_seconds)),
        ("finished", m.finished_at.clone()),
        ("noise", noise_summary(m)),
    ];
    h.push_str("<table>");
    for (k, v) in rows {
        let _ = write!(h, "<tr><th>{k}</th><td>{}</td></tr>", escape(&v));
    }
    let ledger = ledger_summary(m);
    let _ = writeln!(
        h,
        "<tr><th>privacy ledger</th><td>{}</td></tr>",
        ledger
            .iter()
            .map(|l| escape(l))
            .collect::<Vec<_>>()
            .join("<br>")
    );
    let _ = writeln!(
        h,
        "<tr><th>attack risk</th><td>{}</td></tr></table>",
        attack_risk(m)
    );
}

/// Each private release's guarantee beside what an attacker can do against it (μ-GDP
/// and the TPR at FPR 10⁻², as the run recorded them), folded away: a figure can
/// have hundreds of releases.
fn attack_risk(m: &Manifest) -> String {
    if m.attack_risk.is_empty() {
        return if m.privacy.is_empty() {
            "none (no private release)".into()
        } else {
            "not recorded (a manifest written before privpost recorded attack risks: `privpost account --manifest` computes them)".into()
        };
    }
    let mut rows = String::new();
    for r in &m.attack_risk {
        let claim = m
            .privacy
            .iter()
            .find(|e| e.series == r.entry)
            .map_or(String::new(), |e| e.guarantee.short_text());
        let (mu, tpr) = match &r.not_computed {
            Some(why) => (format!("not computed: {why}"), String::new()),
            None => (
                r.mu.map_or("none (errs < 1e-10)".into(), crate::numeric::sig),
                r.tpr(1e-2).map_or(String::new(), crate::numeric::sig),
            ),
        };
        let _ = write!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.release),
            escape(&claim),
            escape(&mu),
            escape(&tpr)
        );
    }
    format!(
        "<details><summary>{} private release{}: μ-GDP and the attacker's TPR at FPR 0.01 beside each guarantee (tradeoff.png draws the curves; docs/privacy.md explains them)</summary><table><tr><th>release</th><th>guarantee</th><th>μ</th><th>TPR at FPR 0.01</th></tr>{rows}</table></details>",
        m.attack_risk.len(),
        if m.attack_risk.len() == 1 { "" } else { "s" }
    )
}
