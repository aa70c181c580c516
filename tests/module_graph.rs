//! The module graph, derived from the source: every `crate::NAME` path in a file
//! under `src/NAME_OF_ITS_MODULE/` is an edge between top-level modules. The graph
//! must have no cycle, and the math modules must not reach up into the harness
//! (configs, data files, runner, results, plots, CLI). See docs/architecture.md.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules that import nothing of the crate but each other's leaves.
const LEAVES: [&str; 6] = ["input", "numeric", "rng", "stats", "term", "testutil"];
/// The math: pure functions and types; may import leaves and each other only.
const MATH: [&str; 7] = [
    "privacy",
    "expfam",
    "glm",
    "hellinger",
    "dpmcmc",
    "samplers",
    "hmm",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module of a file: `src/x.rs` and `src/x/...` belong to `x`.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// Every `crate::NAME` in a text (comments included: a doc link is a dependency too).
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let Some(m) = module_of(&src, &f) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        let deps = g.entry(m.clone()).or_default();
        for d in crate_paths(&text) {
            if d != m {
                deps.insert(d);
            }
        }
    }
    g
}

/// A cycle through the graph, if there is one (depth-first search).
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            match state.get(d.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|x| x == d).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(d, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph();
    assert!(g.len() > 10, "modules found: {:?}", g.keys());
    if let Some(c) = find_cycle(&g) {
        panic!("import cycle: {}", c.join(" → "));
    }
}

#[test]
fn math_and_leaves_import_nothing_above_them() {
    let g = graph();
    for (m, deps) in &g {
        let allowed: Vec<&str> = if LEAVES.contains(&m.as_str()) {
            LEAVES.to_vec()
        } else if MATH.contains(&m.as_str()) {
            LEAVES.iter().chain(MATH.iter()).copied().collect()
        } else {
            continue;
        };
        for d in deps {
            assert!(
                allowed.contains(&d.as_str()),
                "upward edge: `{m}` (a {} module) imports `crate::{d}`",
                if LEAVES.contains(&m.as_str()) {
                    "leaf"
                } else {
                    "math"
                }
            );
        }
    }
}

/// The checks themselves: a cycle and an upward edge are found.
#[test]
fn the_checks_find_what_they_look_for() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert_eq!(find_cycle(&g), None);
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        crate_paths("use crate::config::{check}; x = crate::runner::run(); // crate::plot"),
        ["config", "plot", "runner"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}
