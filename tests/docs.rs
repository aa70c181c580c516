//! The documentation stays true to the registry: docs/outputs.md has a section per
//! figure naming every column of its `data.csv` and `summary.csv`, and the README's
//! figure table and docs/architecture.md name every figure.

use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The text of the section whose `## ` heading names `id` (followed by a space or a
/// comma), up to the next `## `.
fn section<'a>(doc: &'a str, id: &str) -> Option<&'a str> {
    let mut offset = 0;
    for line in doc.split_inclusive('\n') {
        let named = line.starts_with("## ")
            && (line.contains(&format!("{id} ")) || line.contains(&format!("{id},")));
        offset += line.len();
        if named {
            let rest = &doc[offset..];
            let end = rest.find("\n## ").map_or(rest.len(), |i| i);
            return Some(&rest[..end]);
        }
    }
    None
}

#[test]
fn outputs_md_documents_every_column_of_every_figure() {
    let doc = read("docs/outputs.md");
    let mut missing = Vec::new();
    for spec in privpost::experiments::REGISTRY {
        let Some(text) = section(&doc, spec.id) else {
            missing.push(format!("{}: no `## {} …` section", spec.id, spec.id));
            continue;
        };
        for c in spec.data_columns.iter().chain(spec.summary_columns) {
            if !text.contains(&format!("`{c}`")) {
                missing.push(format!("{}: column `{c}`", spec.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/outputs.md lacks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn readme_and_architecture_name_every_figure() {
    let readme = read("README.md");
    let arch = read("docs/architecture.md");
    for spec in privpost::experiments::REGISTRY {
        assert!(readme.contains(spec.config), "README lacks {}", spec.config);
        assert!(
            arch.contains(spec.id),
            "docs/architecture.md lacks {}",
            spec.id
        );
    }
}

/// The README's figure table and the gallery share one source, the notes files
/// `docs/figures/<id>.toml`: each figure's row is `| thumbnail | label | config |
/// status |`, the thumbnail (`docs/figures/thumbs/<paper>-<figure>.png`, a PNG
/// that exists) linking the figure's notes, and the table has no row for a
/// figure outside the registry.
#[test]
fn readme_figure_table_rows_come_from_the_notes() {
    let readme = read("README.md");
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("`configs/"))
        .collect();
    for spec in privpost::experiments::REGISTRY {
        let notes = spec.notes().unwrap();
        let t = privpost::gallery::thumbs::file_name(spec.id);
        let anchor = t.trim_end_matches(".png");
        let start = format!(
            "| <a href=\"docs/figures/README.md#{anchor}\"><img src=\"docs/figures/thumbs/{t}\" width=\"180\" alt=\"{}\"></a> | {} | `{}` |",
            spec.id, notes.label, spec.config
        );
        let png = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/figures/thumbs").join(&t))
            .unwrap_or_else(|e| panic!("docs/figures/thumbs/{t}: {e} (privpost gallery results --thumbnails docs/figures/thumbs)"));
        assert!(
            png.starts_with(b"\x89PNG"),
            "docs/figures/thumbs/{t}: not a PNG"
        );
        let row = rows
            .iter()
            .find(|r| r.starts_with(&start))
            .unwrap_or_else(|| {
                panic!(
                    "README table: no row starting {start:?} (docs/figures/{}.toml)",
                    spec.id
                )
            });
        assert!(
            row.ends_with(&format!("| {} |", notes.status)),
            "README table row of {} does not end with its notes' status {:?}: {row}",
            spec.id,
            notes.status
        );
    }
    assert_eq!(
        rows.len(),
        privpost::experiments::REGISTRY.len(),
        "README figure table rows: {rows:#?}"
    );
}

/// README.md rendered as GitHub renders it (CommonMark with GFM tables, by
/// pulldown-cmark): the figure table is one table holding a row for every registry
/// figure (issue 46: a blank line before the raisa2021 rows cut the table in two, and
/// the rows after it showed as text).
#[test]
fn readme_figure_table_renders_as_one_table() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let readme = read("README.md");
    let mut tables: Vec<(Vec<String>, usize)> = Vec::new();
    let (mut in_table, mut in_head) = (false, false);
    for ev in Parser::new_ext(&readme, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Table(_)) => {
                in_table = true;
                tables.push((Vec::new(), 0));
            }
            Event::End(TagEnd::Table) => in_table = false,
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) if in_table && !in_head => {
                tables.last_mut().unwrap().1 += 1;
            }
            Event::Html(t) | Event::InlineHtml(t) | Event::Text(t) | Event::Code(t) if in_table => {
                tables.last_mut().unwrap().0.push(t.to_string());
            }
            _ => {}
        }
    }
    let figure_tables: Vec<&(Vec<String>, usize)> = tables
        .iter()
        .filter(|(text, _)| text.iter().any(|t| t.contains("docs/figures/thumbs/")))
        .collect();
    assert_eq!(
        figure_tables.len(),
        1,
        "the figure table renders as {} tables",
        figure_tables.len()
    );
    let (text, rows) = figure_tables[0];
    let text = text.join(" ");
    assert_eq!(
        *rows,
        privpost::experiments::REGISTRY.len(),
        "rows of the rendered figure table"
    );
    for spec in privpost::experiments::REGISTRY {
        assert!(
            text.contains(&format!("alt=\"{}\"", spec.id)),
            "{} is not in the rendered figure table",
            spec.id
        );
    }
}

/// docs/figures/README.md is the notes files rendered (`privpost gallery
/// --notes-page`), so the page, the gallery and the README table cannot disagree.
#[test]
fn figure_notes_page_is_rendered_from_the_notes_files() {
    let want = privpost::experiments::notes_markdown().unwrap();
    let have = read("docs/figures/README.md");
    assert!(
        have.trim_end() == want.trim_end(),
        "docs/figures/README.md is out of date: run\n  privpost gallery --notes-page > docs/figures/README.md"
    );
}

/// The README fits on a few screens; the rest lives in docs/ (issue 30).
#[test]
fn readme_stays_short_and_links_its_docs_pages() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines (at most 200)");
    for page in [
        "docs/usage.md",
        "docs/configs.md",
        "docs/bring-your-own.md",
        "docs/privacy.md",
        "docs/methods.md",
        "docs/figures/README.md",
        "docs/cluster.md",
        "docs/performance.md",
        "docs/outputs.md",
        "docs/architecture.md",
    ] {
        assert!(
            readme.contains(&format!("]({page})")),
            "README lacks a link to {page}"
        );
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(page).is_file(),
            "{page} missing"
        );
    }
}
