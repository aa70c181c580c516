//! Every quotation in a figure's `claim` (docs/figures/<id>.toml, shown in the
//! gallery as "The paper") occurs in the paper's text: the texts are
//! in `../shared/papers/<paper id>-*.txt` beside the repository (not ours to
//! commit; CI has them), compared after normalising whitespace, line-break
//! hyphenation, quotes and case. Where the folder is absent the test says so
//! and skips. A claim without a quotation must say "Not in the paper…" (a figure
//! beyond the papers); those are listed.

mod common;

use std::path::PathBuf;

/// Whitespace collapsed, "-" + line break joined, curly quotes straightened,
/// the texts' inline-math `$` and markdown emphasis `*` marks dropped, the
/// PDF ligatures ﬁ ﬂ spelled out, no space before `,` `.` `;`, lower case.
fn normalise(text: &str) -> String {
    let text = text
        .replace(['’', '‘'], "'")
        .replace(['“', '”'], "\"")
        .replace(['$', '*'], "")
        .replace('ﬁ', "fi")
        .replace('ﬂ', "fl")
        .to_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '-' && chars.peek() == Some(&'\n') {
            // a hyphenated line break: join the word
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            continue;
        }
        if c.is_whitespace() {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out.replace(" ,", ",").replace(" .", ".").replace(" ;", ";")
}

/// The “…” quotations of a claim.
fn quotations(claim: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = claim;
    while let Some(i) = rest.find('“') {
        let after = &rest[i + '“'.len_utf8()..];
        let Some(j) = after.find('”') else { break };
        out.push(after[..j].to_string());
        rest = &after[j + '”'.len_utf8()..];
    }
    out
}

fn papers_dir() -> PathBuf {
    common::repo().join("..").join("shared").join("papers")
}

/// The paper's text for a figure id `paper/figure`: `<paper>-*.txt`.
fn paper_text(id: &str) -> Option<String> {
    let paper = id.split('/').next()?;
    let entry = std::fs::read_dir(papers_dir()).ok()?.find_map(|e| {
        let e = e.ok()?;
        let name = e.file_name().to_string_lossy().into_owned();
        (name.starts_with(&format!("{paper}-")) && name.ends_with(".txt")).then(|| e.path())
    })?;
    std::fs::read_to_string(entry).ok()
}

#[test]
fn every_quoted_claim_occurs_in_the_paper_text() {
    if !papers_dir().is_dir() {
        eprintln!(
            "skipped: {} is absent (the papers' texts are not part of the repository)",
            papers_dir().display()
        );
        return;
    }
    let (mut checked, mut unquoted) = (0, Vec::new());
    for spec in privpost::experiments::REGISTRY {
        let notes = spec.notes().unwrap();
        let quotes = quotations(&notes.claim);
        if quotes.is_empty() {
            // only a figure beyond the papers may have no quotation, and it says so
            assert!(
                notes.claim.starts_with("Not in the paper"),
                "{}: the claim quotes nothing from the paper and does not start with \"Not in the paper\": {}",
                spec.id,
                notes.claim
            );
            unquoted.push(spec.id);
            continue;
        }
        let Some(text) = paper_text(spec.id) else {
            // a paper privpost has no text for (e.g. the audit) cannot be quoted
            panic!(
                "{}: quotes its paper, but no text for it in {}",
                spec.id,
                papers_dir().display()
            );
        };
        let text = normalise(&text);
        for q in quotes {
            assert!(
                text.contains(&normalise(&q)),
                "{}: the claim quotes “{q}”, which is not in the paper's text",
                spec.id
            );
            checked += 1;
        }
    }
    eprintln!(
        "{checked} quotation(s) found in the papers; figures beyond the papers (nothing to quote): {}",
        unquoted.join(", ")
    );
    assert!(checked > 0);
    // the check can fail: a paraphrase is not in the text
    let foulds = normalise(&paper_text("foulds2016/fig2").unwrap());
    assert!(!foulds.contains(&normalise("OPS converges to the non-private error")));
}

#[test]
fn normalising_joins_hyphenated_lines_and_straightens_quotes() {
    assert_eq!(
        normalise("the  Laplace\nmecha-\n  nism’s “x” at $N = 10$ , y"),
        "the laplace mechanism's \"x\" at n = 10, y"
    );
    assert_eq!(quotations("a “b c” d “e”"), ["b c", "e"]);
}
