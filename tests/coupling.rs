//! End-to-end: xiong2025/coupling, Xiong & Ju's meeting-time benchmark — its
//! config refused where it is wrong, and the authors' give-up variant of the
//! proposal coupling run and named in the manifest.

mod common;

use common::*;

/// Each bad key exits 2 naming it, before anything is written.
#[test]
fn the_coupling_benchmark_refuses_bad_settings() {
    for (set, key) in [
        ("epsilons=[2.0]", "epsilons"),
        ("epsilons=[]", "epsilons"),
        ("kernels=[]", "kernels"),
        ("kernels=[\"gibbs\"]", "kernels"),
        ("repeats=0", "repeats"),
        ("cap=0", "cap"),
        ("fit=2000000", "fit"),
        ("n=0", "n"),
        ("proposal_give_up=2000000", "proposal_give_up"),
        ("proposal_give_up=-1", "proposal_give_up"),
    ] {
        let out = tempfile::tempdir().unwrap();
        let o = smoke_within(
            60,
            "xiong2025/coupling",
            out.path().to_str().unwrap(),
            &[set],
        );
        refused(&o, key);
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "{set}");
    }
}

/// `proposal_give_up` runs the authors' variant: a folder of its own whose
/// manifest says how the proposals were coupled, and every pair that met within
/// the cap has a meeting time within it.
#[test]
fn the_authors_give_up_variant_runs_and_says_so() {
    let out = tempfile::tempdir().unwrap();
    let o = smoke_within(
        120,
        "xiong2025/coupling",
        out.path().to_str().unwrap(),
        &["proposal_give_up=100"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = point_dir(out.path(), "xiong2025/coupling");
    let m = manifest(&dir.join("manifest.json"));
    let coupling = m.to_string();
    assert!(
        coupling.contains("copies chain 1 after 100 failed redraws"),
        "{coupling}"
    );
    let h = header(&dir.join("data.csv"));
    let (meeting, censored, cap) = (
        h.iter().position(|c| c == "meeting").unwrap(),
        h.iter().position(|c| c == "censored").unwrap(),
        h.iter().position(|c| c == "cap").unwrap(),
    );
    let rows = rows(&dir.join("data.csv"));
    assert_eq!(rows.len(), 2 * 2 * 3, "ε × repeats × kernels");
    for r in rows {
        let cap: u64 = r[cap].parse().unwrap();
        match r[censored].as_str() {
            "true" => assert!(r[meeting].is_empty(), "{r:?}"),
            _ => assert!(
                (1..=cap).contains(&r[meeting].parse::<u64>().unwrap()),
                "{r:?}"
            ),
        }
    }
}
