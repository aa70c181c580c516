//! Figures a reader can tell apart in grey print. Error bars
//! carry no circle of their own (plotters' `ErrorBar` drew a hollow one over
//! every marker, so squares and triangles read as circles), the markers are
//! drawn on top as in the legend, each panel names its metric, and ε spanning
//! a decade or more is drawn on a log axis (raisa2021/gmm, whose added
//! samplers also get a zoomed row).

mod common;

use common::{privpost, stderr};

fn svg(out: &std::path::Path, folder: &str) -> String {
    std::fs::read_to_string(out.join(folder).join("figure.svg")).unwrap()
}

#[test]
fn markers_show_over_error_bars_and_panels_name_their_metric() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "run",
        "foulds2016/fig2",
        "raisa2021/banana",
        "raisa2021/gmm",
        "--smoke",
        "-q",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Foulds Fig. 2: non-private circles, Laplace squares, OPS triangles — filled,
    // and no unfilled circle (the error bar's) anywhere
    let f2 = svg(out.path(), "foulds2016/fig2@smoke");
    let hollow = f2
        .split("<circle")
        .skip(1)
        .filter(|c| c.split('>').next().unwrap_or("").contains("fill=\"none\""))
        .count();
    assert_eq!(hollow, 0, "an error bar still draws a hollow circle");
    assert!(
        f2.contains("<rect") && f2.contains("<polygon"),
        "markers missing"
    );
    // Räisä's panels: each names its metric on its y axis, none says "score"
    let banana = svg(out.path(), "raisa2021/banana@smoke");
    for label in [
        "MMD (Gaussian kernel), mean ± s.e.",
        "‖mean − exact‖, mean ± s.e.",
        "max |var. ratio − 1|, mean ± s.e.",
        "largest split-R̂, mean ± s.e.",
    ] {
        assert!(banana.contains(label), "no y label {label:?}");
    }
    assert!(!banana.contains(">score<"));
    // the GMM comparison's budgets span decades: a log ε axis
    let gmm = svg(out.path(), "raisa2021/gmm@smoke");
    assert!(
        gmm.contains("ε spent (log scale)"),
        "raisa2021/gmm: linear ε axis"
    );
    // and the added samplers again on their own ε range (they spend a narrow band)
    assert!(
        gmm.contains("(c) as (a), added samplers zoomed"),
        "no zoomed row"
    );
    let f3 = privpost(&[
        "run",
        "heikkila2019/fig3",
        "--smoke",
        "-q",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(f3.status.success(), "{}", stderr(&f3));
    // Heikkilä's own Fig. 3 keeps the paper's linear axis and its two panels
    let f3 = svg(out.path(), "heikkila2019/fig3@smoke");
    assert!(!f3.contains("log scale") && !f3.contains("zoomed"));
}

/// Labels drawn by hand beside a chart stay on their rows and columns: a
/// chart's `backend_coord` is in the canvas's pixels while `area.draw` takes the
/// area's, so every file that places text from `backend_coord` must subtract the
/// area's `get_base_pixel` (the audit figure's row tags sat a row below their
/// markers under a smoke run's departures line). The drawn result is checked by
/// `plot::assert_shift_invariant` (audit/plot.rs); this finds the pattern anywhere.
#[test]
fn text_placed_from_chart_coordinates_subtracts_the_area_base() {
    let offenders: Vec<String> = source_files()
        .into_iter()
        .filter(|(_, code)| code.contains(".backend_coord(") && !code.contains("get_base_pixel()"))
        .map(|(p, _)| p)
        .collect();
    assert!(offenders.is_empty(), "{offenders:?}");
}

/// Every PNG is drawn through `plot::glyphs::GlyphBitMap`: plotters' own bitmap
/// text drops each glyph's left bearing ("data po ints"; the unit tests in
/// `src/plot/glyphs.rs` measure it). A bare `BitMapBackend` would bring it back.
#[test]
fn png_text_goes_through_the_glyph_fix() {
    let offenders: Vec<String> = source_files()
        .into_iter()
        .filter(|(_, code)| {
            code.matches("BitMapBackend::").count()
                != code.matches("GlyphBitMap(BitMapBackend::").count()
        })
        .map(|(p, _)| p)
        .collect();
    assert!(offenders.is_empty(), "{offenders:?}");
}

/// Every `.rs` file under `src/` outside `plot/glyphs.rs`, without its comment lines.
fn source_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![common::repo().join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("plot/glyphs.rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                let code: String = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                out.push((p.display().to_string(), code));
            }
        }
    }
    out
}
