//! The new-figure recipe of docs/architecture.md, walked: a copy of the crate gets a
//! scratch figure in exactly the hand-written files the recipe names (its module
//! with its `mod` line, its registry row, its config, its notes — templates in
//! `tests/new_figure/`), the generated files are made by the commands the recipe
//! names (`privpost gallery --readme-table`, `--outputs-sections`, `--notes-page`,
//! `--thumbnails` after a paper-scale run), and then the copy's registry-wide unit
//! tests and docs tests pass, and `check`, `run --smoke` and `list` know the figure.
//!
//! It builds the copy (debug profile, its own target folder below
//! `CARGO_TARGET_TMPDIR`), so it takes minutes: ignored in the main run, run by
//! `scripts/test.sh` after it (`cargo test --test new_figure -- --ignored`).

use std::path::{Path, PathBuf};
use std::process::Command;

const ID: &str = "foulds2016/scratch";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies the crate's sources and data (not its build output, results or history,
/// the top-level folders of those names).
fn copy_tree(from: &Path, to: &Path, top: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if top && ["target", ".git", "results"].contains(&name.as_ref()) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&*name));
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst, false);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

fn template(name: &str) -> String {
    std::fs::read_to_string(repo().join("tests/new_figure").join(name)).unwrap()
}

/// Runs a command in `dir`; its stdout, or a panic with both streams.
fn run(dir: &Path, target: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CI", "true")
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Replaces `old` (which must occur once) in the file at `path`.
fn edit(path: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.matches(old).count(), 1, "{}: {old:?}", path.display());
    std::fs::write(path, text.replacen(old, new, 1)).unwrap();
}

#[test]
#[ignore = "builds a copy of the crate; scripts/test.sh runs it after the main suite"]
fn a_new_figure_needs_only_the_files_the_recipe_names() {
    let work = tempfile::tempdir().unwrap();
    let copy = work.path().join("crate copy");
    copy_tree(&repo(), &copy, true);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("new-figure");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());

    // the hand-written files: module (and its `mod` line), registry row, config, notes
    std::fs::write(
        copy.join("src/experiments/foulds2016/scratch.rs"),
        template("module.rs"),
    )
    .unwrap();
    edit(
        &copy.join("src/experiments/foulds2016/mod.rs"),
        "pub mod hmm;\n",
        "pub mod hmm;\npub mod scratch;\n",
    );
    let registry = copy.join("src/experiments/registry.rs");
    let text = std::fs::read_to_string(&registry).unwrap();
    let end = text.rfind("];").expect("the registry's closing `];`");
    std::fs::write(
        &registry,
        format!(
            "{}{}{}",
            &text[..end],
            template("registry_row.rs"),
            &text[end..]
        ),
    )
    .unwrap();
    std::fs::write(
        copy.join("configs/foulds2016/scratch.toml"),
        template("config.toml"),
    )
    .unwrap();
    std::fs::write(
        copy.join("docs/figures/foulds2016/scratch.toml"),
        template("notes.toml"),
    )
    .unwrap();

    // the generated files, by the commands the recipe names
    run(
        &copy,
        &target,
        &cargo,
        &["build", "--locked", "--bin", "privpost"],
    );
    let bin = target.join("debug/privpost");
    let bin = bin.to_str().unwrap();
    let results = work.path().join("results");
    let results = results.to_str().unwrap();
    run(&copy, &target, bin, &["run", ID, "--out", results]);
    run(
        &copy,
        &target,
        bin,
        &["gallery", results, "--thumbnails", "docs/figures/thumbs"],
    );
    assert!(copy
        .join("docs/figures/thumbs/foulds2016-scratch.png")
        .is_file());
    let table = run(&copy, &target, bin, &["gallery", "--readme-table"]);
    let readme = std::fs::read_to_string(copy.join("README.md")).unwrap();
    let start = readme.find("| | figure | config | status |").unwrap();
    let stop = start + readme[start..].find("\n\n").unwrap();
    std::fs::write(
        copy.join("README.md"),
        format!(
            "{}{}{}",
            &readme[..start],
            table.trim_end(),
            &readme[stop..]
        ),
    )
    .unwrap();
    let sections = run(&copy, &target, bin, &["gallery", "--outputs-sections"]);
    let outputs = std::fs::read_to_string(copy.join("docs/outputs.md")).unwrap();
    let marker = privpost::experiments::OUTPUTS_MARKER;
    let head = &outputs[..outputs.find(marker).unwrap() + marker.len()];
    std::fs::write(
        copy.join("docs/outputs.md"),
        format!("{head}\n\n{}\n", sections.trim()),
    )
    .unwrap();
    let page = run(&copy, &target, bin, &["gallery", "--notes-page"]);
    std::fs::write(copy.join("docs/figures/README.md"), page).unwrap();

    // the registry-wide checks pick the figure up
    run(
        &copy,
        &target,
        &cargo,
        &["test", "--locked", "--lib", "experiments::tests::"],
    );
    run(
        &copy,
        &target,
        &cargo,
        &["test", "--locked", "--lib", "runner::estimate"],
    );
    run(
        &copy,
        &target,
        &cargo,
        &["test", "--locked", "--test", "docs"],
    );
    let listed = run(&copy, &target, bin, &["list"]);
    assert!(listed.contains(ID), "privpost list: {listed}");
    run(&copy, &target, bin, &["check", ID]);
    let smoke = work.path().join("smoke");
    run(
        &copy,
        &target,
        bin,
        &["run", ID, "--smoke", "--out", smoke.to_str().unwrap()],
    );
    assert!(smoke.join("foulds2016/scratch@smoke/figure.png").is_file());
}
