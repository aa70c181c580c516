//! Each figure's notes (`docs/figures/<id>.toml`: the paper's claim, what
//! matches, what differs) and what is rendered from them: docs/figures/README.md
//! ([`notes_markdown`]), the README's figure table ([`readme_table`]) and the
//! figures' sections of docs/outputs.md ([`outputs_sections`]).

use super::REGISTRY;

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

#[cfg(test)]
mod tests {
    use super::REGISTRY;

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
}
