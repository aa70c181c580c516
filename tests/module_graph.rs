//! The module graph, derived from the source: every `crate::NAME` path in a file
//! under `src/NAME_OF_ITS_MODULE/` is an edge between top-level modules. The graph
//! must have no cycle, and the math modules must not reach up into the harness
//! (configs, data files, runner, results, plots, CLI). See docs/architecture.md.
//!
//! The math lives in its own crate (`crates/privpost-core`), which the harness
//! re-exports under the same names (`privpost::privacy` is
//! `privpost_core::privacy`), so both crates' files are read as one tree: the
//! core's `src/privacy/ledger.rs` is the harness's `src/privacy/ledger.rs`. The
//! compiler keeps math from importing the harness; these tests keep the layers
//! inside each crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules that import nothing of the crate but each other's leaves.
const LEAVES: [&str; 9] = [
    "input",
    "invocation",
    "jax_random",
    "names",
    "numeric",
    "rng",
    "stats",
    "term",
    "testutil",
];
/// The math: pure functions and types; may import leaves and each other only.
const MATH: [&str; 8] = [
    "privacy",
    "expfam",
    "glm",
    "hellinger",
    "dpmcmc",
    "samplers",
    "hmm",
    "damcmc",
];

/// Every `.rs` file of both crates with its text, the core's placed under the
/// harness's `src/` (its `lib.rs` left out: the harness's stands for both).
fn sources() -> (PathBuf, BTreeMap<PathBuf, String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let core = root.join("crates/privpost-core/src");
    let mut out = BTreeMap::new();
    for dir in [&src, &core] {
        let mut files = Vec::new();
        rust_files(dir, &mut files);
        for f in files {
            let rel = f.strip_prefix(dir).unwrap().to_path_buf();
            if dir == &core && rel == Path::new("lib.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                out.insert(src.join(&rel), text).is_none(),
                "{} is in both crates",
                rel.display()
            );
        }
    }
    (src, out)
}

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

/// Every `crate::NAME` in a text (comments included: a doc link is a dependency
/// too), but `crate::__NAME`: a `#[macro_export]` macro's own name at the crate
/// root (`names.rs` re-exports `__name_table` as `names::name_table`), not a module.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !name.starts_with("__") {
            out.insert(name);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let (src, files) = sources();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (f, text) in &files {
        let Some(m) = module_of(&src, f) else {
            continue;
        };
        let deps = g.entry(m.clone()).or_default();
        for d in crate_paths(text) {
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

// ---- the file graph: no two files import each other, directly or through others ----
//
// The same rules as `scripts/structure.py` (which reports the renovation's table):
// a file's non-test code (before its test module, comments dropped)
// imports a file when it names a path `crate::…`, `super::…` or `self::…` that
// resolves to that file; a path that stops at a `mod.rs` item re-exported from a
// child (`pub use child::Item`) resolves to the child; `mod x;` is no import, and
// neither is a parent's use of its own children by bare name (`fig1::build` in a
// `mod.rs` that declares `mod fig1;`): a parent may use what it declares.

type FileGraph = BTreeMap<String, BTreeSet<String>>;

/// A file's text before its test module: cut at the first `#[cfg(test)]`
/// whose next line opens a module; an item or import under its own
/// `#[cfg(test)]` (a test oracle beside the code it checks) stays.
fn before_tests(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]") {
        let at = from + i;
        let next = text[at + "#[cfg(test)]".len()..].trim_start();
        let opens_module = ["mod ", "pub mod ", "pub(crate) mod ", "pub(super) mod "]
            .iter()
            .any(|p| next.starts_with(p));
        if opens_module {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// The code of a file without its tests and comments (string contents kept).
fn code_of(text: &str) -> String {
    let text = before_tests(text);
    let mut out = String::new();
    let mut in_block = false;
    for line in text.lines() {
        let mut kept = String::new();
        let (mut in_str, mut chars) = (false, line.char_indices().peekable());
        while let Some((i, c)) = chars.next() {
            if in_block {
                if line[i..].starts_with("*/") {
                    in_block = false;
                    chars.next();
                }
                continue;
            }
            if c == '"' && !line[..i].ends_with('\\') {
                in_str = !in_str;
            } else if !in_str && line[i..].starts_with("//") {
                break;
            } else if !in_str && line[i..].starts_with("/*") {
                in_block = true;
                chars.next();
                continue;
            }
            kept.push(c);
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand_use(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
    let (prefix, body) = (&tree[..open], &tree[open + 1..close]);
    let (mut parts, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(|p| expand_use(p))
        .map(|e| {
            if e == "self" {
                prefix.trim_end_matches(':').to_string()
            } else {
                format!("{prefix}{e}")
            }
        })
        .collect()
}

/// Every path a file's code names: its `use` trees and its inline `crate::`,
/// `super::`, `self::` paths.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut s = code;
    while let Some(i) = s.find("use ") {
        let word_start = i == 0 || !s[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        rest.push_str(&s[..i]);
        let after = &s[i + 4..];
        match (word_start, after.find(';')) {
            (true, Some(end)) => {
                paths.extend(expand_use(&after[..end].replace('\n', " ")));
                s = &after[end + 1..];
            }
            _ => {
                rest.push_str("use ");
                s = after;
            }
        }
    }
    rest.push_str(s);
    for root in ["crate::", "super::", "self::"] {
        let mut t = rest.as_str();
        while let Some(i) = t.find(root) {
            let ok = i == 0 || !t[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            let tail: String = t[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            if ok {
                paths.push(tail.clone());
            }
            t = &t[i + tail.len().max(1)..];
        }
    }
    paths
}

/// The module path of a file: `src/a/b.rs` → [a, b]; `src/a/mod.rs` → [a].
fn file_module(src: &Path, f: &Path) -> Vec<String> {
    let rel = f.strip_prefix(src).unwrap().with_extension("");
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segs.last().is_some_and(|s| s == "mod" || s == "lib") {
        segs.pop();
    }
    segs
}

/// `Name → child` for the `pub use child::…::Name` lines of a file.
fn reexports(code: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in code.split(';') {
        let Some(i) = line.find("pub use ") else {
            continue;
        };
        for p in expand_use(&line[i + 8..].replace('\n', " ")) {
            let segs: Vec<&str> = p.split("::").map(str::trim).collect();
            if segs.len() >= 2 && !["crate", "super", "self"].contains(&segs[0]) {
                let name = segs[segs.len() - 1].rsplit(" as ").next().unwrap().trim();
                out.insert(name.to_string(), segs[0].to_string());
            }
        }
    }
    out
}

fn file_graph_of(src: &Path, files: &BTreeMap<PathBuf, String>) -> FileGraph {
    let name = |f: &Path| f.strip_prefix(src).unwrap().display().to_string();
    let by_module: BTreeMap<Vec<String>, &PathBuf> = files
        .keys()
        .filter(|f| f.file_name().is_some_and(|n| n != "main.rs"))
        .map(|f| (file_module(src, f), f))
        .collect();
    let codes: BTreeMap<&PathBuf, String> = files.iter().map(|(f, t)| (f, code_of(t))).collect();
    let rex: BTreeMap<&PathBuf, BTreeMap<String, String>> =
        codes.iter().map(|(f, c)| (*f, reexports(c))).collect();
    let mut g = FileGraph::new();
    for (f, code) in &codes {
        if f.file_name().is_some_and(|n| n == "main.rs") {
            continue;
        }
        let here = file_module(src, f);
        let deps = g.entry(name(f)).or_default();
        for p in named_paths(code) {
            let segs: Vec<&str> = p
                .split("::")
                .map(|s| s.split(" as ").next().unwrap().trim())
                .filter(|s| !s.is_empty())
                .collect();
            let (mut cur, mut rest) = match segs.first() {
                Some(&"crate") => (Vec::new(), &segs[1..]),
                Some(&"super") | Some(&"self") => {
                    let mut base = here.clone();
                    let mut k = 0;
                    while k < segs.len() && (segs[k] == "super" || segs[k] == "self") {
                        if segs[k] == "super" {
                            base.pop();
                        }
                        k += 1;
                    }
                    (base, &segs[k..])
                }
                _ => continue,
            };
            let mut target = by_module.get(&cur).copied();
            while let Some((s, tail)) = rest.split_first() {
                let mut next = cur.clone();
                next.push(s.to_string());
                if let Some(t) = by_module.get(&next) {
                    (cur, target, rest) = (next, Some(*t), tail);
                    continue;
                }
                if let Some(child) = target.and_then(|t| rex[t].get(*s)) {
                    let mut via = cur.clone();
                    via.push(child.clone());
                    if let Some(t) = by_module.get(&via) {
                        target = Some(*t);
                    }
                }
                break;
            }
            if let Some(t) = target.filter(|t| *t != *f) {
                deps.insert(name(t));
            }
        }
    }
    g
}

fn file_graph() -> FileGraph {
    let (src, texts) = sources();
    file_graph_of(&src, &texts)
}

#[test]
fn no_two_files_import_each_other_directly_or_through_others() {
    let g = file_graph();
    assert!(g.len() > 100, "files found: {}", g.len());
    // a few edges that exist, so the resolver is known to see through `use` trees,
    // inline paths and re-exports
    for (from, to) in [
        ("privacy/ledger.rs", "privacy/event.rs"),
        ("commands/account.rs", "api/planned.rs"),
        ("api/planned/mh.rs", "api/planned.rs"),
        ("dpmcmc/gmm.rs", "dpmcmc/model.rs"),
        ("dpmcmc/barker.rs", "dpmcmc/model.rs"),
    ] {
        assert!(
            g[from].contains(to),
            "{from} → {to} not found: {:?}",
            g[from]
        );
    }
    if let Some(c) = find_cycle(&g) {
        panic!("files import each other: {}", c.join(" → "));
    }
}

/// The file resolver on a made-up tree: a use tree, an inline path, a `super`
/// path, a re-export, and a comment that is not an import.
#[test]
fn the_file_resolver_finds_what_it_looks_for() {
    let src = Path::new("/x/src");
    let files: BTreeMap<PathBuf, String> = [
        ("a/mod.rs", "mod b; mod c;\npub use b::Thing;\n"),
        (
            "a/b.rs",
            "use super::c::{self, Other};\nfn f() { crate::d::g(); }\n",
        ),
        (
            "a/c.rs",
            "// crate::a::b is only a comment\nuse crate::a::Thing;\n",
        ),
        (
            "d.rs",
            "pub fn g() {}\n#[cfg(test)]\nmod t { use crate::a::b::X; }\n",
        ),
    ]
    .into_iter()
    .map(|(p, t)| (src.join(p), t.to_string()))
    .collect();
    let g = file_graph_of(src, &files);
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(g["a/b.rs"], set(&["a/c.rs", "d.rs"]));
    assert_eq!(
        g["a/c.rs"],
        set(&["a/b.rs"]),
        "the re-export resolves to its child"
    );
    assert_eq!(g["d.rs"], set(&[]), "test code is no import");
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a/b.rs".into(), "a/c.rs".into(), "a/b.rs".into()])
    );
}

/// A line can tell from its file what it uses: outside test code no file
/// imports its parent's or a sibling's names wholesale (`use super::*`,
/// `use crate::x::*`) and no module re-exports a child's wholesale
/// (`pub use child::*`); names are imported and re-exported one by one.
/// External preludes (`rayon::prelude::*`, `plotters::prelude::*`) are allowed.
#[test]
fn no_glob_imports_of_the_crates_own_modules_outside_tests() {
    let (_, files) = sources();
    let mut bad = Vec::new();
    for (path, text) in &files {
        if path.ends_with("tests.rs") {
            continue;
        }
        let code = before_tests(text);
        for (i, line) in code.lines().enumerate() {
            let t = line.trim_start();
            let Some(rest) = t
                .strip_prefix("pub use ")
                .or_else(|| t.strip_prefix("pub(crate) use "))
                .or_else(|| t.strip_prefix("pub(super) use "))
                .or_else(|| t.strip_prefix("use "))
            else {
                continue;
            };
            let own = ["crate::", "self::", "super::"]
                .iter()
                .any(|p| rest.starts_with(p));
            let reexport = t.starts_with("pub");
            if rest.trim_end().ends_with("::*;") && (own || reexport) {
                bad.push(format!("{}:{}: {t}", path.display(), i + 1));
            }
        }
    }
    assert!(files.len() > 100, "files found: {}", files.len());
    assert!(bad.is_empty(), "glob imports:\n{}", bad.join("\n"));
}

/// The most edges from a child file to its own parent module (`super::X` that
/// resolves to the parent's `mod.rs`): each is a place where a part reaches back
/// into the whole. Counted here so that the number can only fall; the
/// registry's rows (`experiments/registry.rs` → `experiments/mod.rs`'s `Spec`)
/// are the kind that stays.
const MAX_CHILD_TO_PARENT_EDGES: usize = 85;

#[test]
fn child_to_parent_edges_are_counted_and_do_not_grow() {
    let g = file_graph();
    let mut edges = Vec::new();
    for (from, deps) in &g {
        let Some(dir) = Path::new(from).parent() else {
            continue;
        };
        let parent_mod = dir.join("mod.rs").display().to_string();
        if from != &parent_mod && deps.contains(&parent_mod) {
            edges.push(format!("{from} → {parent_mod}"));
        }
    }
    eprintln!(
        "child → parent edges: {}\n{}",
        edges.len(),
        edges.join("\n")
    );
    assert!(
        edges.len() <= MAX_CHILD_TO_PARENT_EDGES,
        "{} child → parent edges (at most {MAX_CHILD_TO_PARENT_EDGES}): a part reaches back into its whole; import what it needs from the leaf that defines it:\n{}",
        edges.len(),
        edges.join("\n")
    );
}
