//! The documentation stays true to the registry: docs/outputs.md has a section per
//! figure naming every column of its `data.csv` and `summary.csv` (rendered from the
//! notes), the README's figure table is rendered from the notes, and
//! docs/architecture.md names every paper's folder.

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

/// docs/outputs.md's figure sections are rendered from the notes' `[outputs]`
/// tables (`privpost gallery --outputs-sections`): a new figure's section is written
/// in its notes file, and a section shared by two figures is named by both.
#[test]
fn outputs_md_figure_sections_are_rendered_from_the_notes() {
    let doc = read("docs/outputs.md");
    let (_, rendered) = doc
        .split_once(privpost::experiments::OUTPUTS_MARKER)
        .expect("docs/outputs.md lacks the marker line before its figure sections");
    let want = privpost::experiments::outputs_sections().unwrap();
    assert_eq!(
        rendered.trim(),
        want.trim(),
        "docs/outputs.md's figure sections differ from `privpost gallery --outputs-sections`"
    );
    for spec in privpost::experiments::REGISTRY {
        let o = spec.notes().unwrap().outputs;
        if let Some(with) = &o.with {
            let other = privpost::experiments::find(with).unwrap_or_else(|| {
                panic!("{}: [outputs] with = {with:?}: no such figure", spec.id)
            });
            assert!(
                other
                    .notes()
                    .unwrap()
                    .outputs
                    .also
                    .iter()
                    .any(|a| a == spec.id),
                "{}: [outputs] with = {with:?}, but {with}'s `also` does not name it",
                spec.id
            );
        }
    }
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
        for c in spec
            .data_columns
            .get()
            .iter()
            .chain(spec.summary_columns.get())
        {
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
        // a paper's folder, not each figure: a new figure of a known paper needs no
        // edit here (its code is in experiments/<paper>/ by the recipe)
        let paper = spec.id.split('/').next().unwrap_or(spec.id);
        assert!(
            arch.contains(&format!("{paper}/")),
            "docs/architecture.md lacks the paper folder {paper}/"
        );
    }
}

/// The README's figure table is rendered from the registry and the notes files
/// `docs/figures/<id>.toml` (`privpost gallery --readme-table`), as the notes page
/// and the gallery are: each figure's row is `| thumbnail | label | config |
/// status |`, the thumbnail (`docs/figures/thumbs/<paper>-<figure>.png`, a PNG
/// that exists) linking the figure's notes, and the table has no other row.
#[test]
fn readme_figure_table_rows_come_from_the_notes() {
    let readme = read("README.md");
    let table = privpost::experiments::readme_table().unwrap();
    assert!(
        readme.contains(&table),
        "README.md's figure table differs from `privpost gallery --readme-table`; paste its output:\n{table}"
    );
    for spec in privpost::experiments::REGISTRY {
        let t = privpost::gallery::thumbs::file_name(spec.id);
        let png = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/figures/thumbs").join(&t))
            .unwrap_or_else(|e| panic!("docs/figures/thumbs/{t}: {e} (privpost gallery results --thumbnails docs/figures/thumbs)"));
        assert!(
            png.starts_with(b"\x89PNG"),
            "docs/figures/thumbs/{t}: not a PNG"
        );
    }
    let rows = readme
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("`configs/"))
        .count();
    assert_eq!(
        rows,
        privpost::experiments::REGISTRY.len(),
        "README figure table rows"
    );
}

/// README.md rendered as GitHub renders it (CommonMark with GFM tables, by
/// pulldown-cmark): the figure table is one table holding a row for every registry
/// figure (a blank line before the raisa2021 rows cut the table in two, and
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

/// The README fits on a few screens, its figure table aside (a row per figure,
/// rendered from the notes: a new figure adds one); the rest lives in docs/.
#[test]
fn readme_stays_short_and_links_its_docs_pages() {
    let readme = read("README.md");
    let rows = privpost::experiments::REGISTRY.len();
    let lines = readme.lines().count() - rows;
    assert!(
        lines <= 176,
        "README.md has {lines} lines besides its {rows} figure rows (at most 176)"
    );
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

/// Where a text cites something a reader of the repository cannot open: a design
/// file outside it, or a numbered issue of a tracker that is not in the tree.
fn outside_citations(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut found = Vec::new();
    let facts = ["facts", " file"].concat();
    if let Some(i) = lower.find(&facts) {
        found.push(text[i..].chars().take(40).collect());
    }
    // the possessive of an unnamed issue is as far out of reach as a numbered one
    let unnamed = ["the issue", "'s"].concat();
    if let Some(i) = lower.find(&unnamed) {
        found.push(lower[i..].chars().take(40).collect());
    }
    for word in ["issue ", "issues ", "issue #"] {
        let mut rest = lower.as_str();
        while let Some(i) = rest.find(word) {
            let after = &rest[i + word.len()..];
            if after.starts_with(|c: char| c.is_ascii_digit()) {
                found.push(after.chars().take(30).collect());
            }
            rest = after;
        }
    }
    found
}

/// Provenance stays in the tree: no source, test or doc cites a file outside the
/// repository or an issue number (reference values cite `tests/reference/` or a
/// paper; see tests/reference/README.md).
#[test]
fn nothing_cites_a_file_or_an_issue_outside_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![
        root.join("src"),
        root.join("crates"),
        root.join("tests"),
        root.join("docs"),
        root.join("configs"),
        root.join("scripts"),
        root.join("benches"),
    ];
    let mut bad = Vec::new();
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // images
            };
            seen += 1;
            for hit in outside_citations(&text) {
                bad.push(format!("{}: …{hit}…", path.display()));
            }
        }
    }
    for hit in outside_citations(&read("README.md")) {
        bad.push(format!("README.md: …{hit}…"));
    }
    assert!(seen > 200, "files read: {seen}");
    assert!(
        bad.is_empty(),
        "citations outside the tree:\n{}",
        bad.join("\n")
    );
    // the check finds what it looks for
    assert_eq!(
        outside_citations(&["see Issue", " 47, item 3"].concat()).len(),
        1
    );
    assert_eq!(
        outside_citations(&["the ", "Facts", " File §2"].concat()).len(),
        1
    );
    assert_eq!(
        outside_citations(&["the ", "issue's target"].concat()).len(),
        1
    );
    assert!(outside_citations("an issue of taste; issues remain").is_empty());
}
