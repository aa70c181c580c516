//! Past one machine, through the binary: `run --shard i/n` + `merge` give the
//! CSVs of a single-machine run byte for byte; merge refuses missing shards,
//! rows of other code and changed configs; `privpost slurm` writes job arrays
//! split at MaxArraySize and submits them with an afterok merge (a stand-in
//! `sbatch` here; `scripts/slurm-local.sh` runs a real Slurm in CI).

mod common;

use std::path::{Path, PathBuf};

use common::{manifest, privpost, privpost_in, repo, stderr, stdout};

const SWEEP: [&str; 5] = [
    "foulds2016/fig2",
    "bun2018/fig2",
    "--smoke",
    "--set",
    "epsilon=0.1,1",
];

fn run(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut a = vec!["run", "--out", out.to_str().unwrap()];
    a.extend_from_slice(&SWEEP);
    a.extend_from_slice(extra);
    privpost(&a)
}

fn csvs(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                walk(&p, root, out);
            } else if name.ends_with(".csv") {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn assert_same_csvs(a: &Path, b: &Path) {
    let files = csvs(a);
    // data, summary and parameters of 2 figures × 2 sweep points
    assert_eq!(files.len(), 12, "{files:?}");
    assert_eq!(files, csvs(b));
    for f in files {
        assert!(
            std::fs::read(a.join(&f)).unwrap() == std::fs::read(b.join(&f)).unwrap(),
            "{} differs",
            f.display()
        );
    }
}

fn plan_dir(out: &Path) -> PathBuf {
    let root = out.join(".privpost-shards");
    let mut plans: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(plans.len(), 1);
    plans.pop().unwrap()
}

/// Three shards (in reverse order, one run twice) then merge: byte-identical
/// CSVs, the shards in every manifest, and a shard rerun computes nothing.
#[test]
fn shards_then_merge_equal_one_machine() {
    let single = tempfile::tempdir().unwrap();
    let o = run(single.path(), &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let out = tempfile::tempdir().unwrap();
    for i in [3, 1, 2] {
        let o = run(out.path(), &["--shard", &format!("{i}/3"), "-j", "1"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!("shard {i}/3 of plan")),
            "{}",
            stdout(&o)
        );
    }
    // a shard writes no figure folder
    assert!(!out.path().join("foulds2016").exists());
    // a rerun of a finished shard takes its tasks from the cache
    let o = run(out.path(), &["--shard", "2/3"]);
    assert!(stdout(&o).contains("(0 computed"), "{}", stdout(&o));

    let o = privpost(&["merge", out.path().to_str().unwrap(), "-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same_csvs(single.path(), out.path());
    let m = manifest(
        &out.path()
            .join("bun2018/fig2@smoke,epsilon=1/manifest.json"),
    );
    let shards = m["shards"]["shards"].as_array().unwrap();
    assert_eq!(m["shards"]["count"], 3);
    let tasks: u64 = shards.iter().map(|s| s["tasks"].as_u64().unwrap()).sum();
    assert_eq!(tasks, m["tasks"].as_u64().unwrap());
    assert_eq!(m["cache"]["tasks_computed"], 0);
    // a single-machine manifest has no shards
    let m = manifest(
        &single
            .path()
            .join("bun2018/fig2@smoke,epsilon=1/manifest.json"),
    );
    assert!(m.get("shards").is_none());
    // merging again: up to date
    let o = privpost(&["merge", out.path().to_str().unwrap()]);
    assert!(
        o.status.success() && stdout(&o).contains("up to date"),
        "{}",
        stdout(&o)
    );
}

/// A missing shard is named with its tasks, and nothing is written; rows of
/// other code and rows of changed configs are refused with the reason.
#[test]
fn merge_refuses_missing_foreign_and_stale_shards() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    for i in [1, 2] {
        let o = run(out.path(), &["--shard", &format!("{i}/3"), "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = privpost(&["merge", dir]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("owed by 1 of 3 shards"), "{e}");
    assert!(e.contains("shard 3/3 has not finished"), "{e}");
    assert!(
        e.contains("foulds2016/fig2@smoke,epsilon=0.1: tasks "),
        "{e}"
    );
    assert!(e.contains("--shard 3/3"), "{e}");
    assert!(!out.path().join("foulds2016").exists() && !out.path().join("bun2018").exists());

    // shard 3 "computed by other code": its record names another binary and
    // its rows are under that binary's keys, not ours
    let o = run(out.path(), &["--shard", "3/3", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let record_path = plan_dir(out.path()).join("shard-3-of-3.json");
    let mut record = manifest(&record_path);
    // another binary (and multi-byte text, which the message must not cut mid-character)
    record["code_sha256"] = format!("a{}", "é".repeat(40)).into();
    // its rows gone: the pack its process wrote (one per shard process and run)
    for run in record["runs"].as_array().unwrap() {
        let key = run["run_key"].as_str().unwrap();
        let tasks: Vec<String> = run["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| format!("privpost-rows 1 task {} rows", t.as_u64().unwrap()))
            .collect();
        let dir = out.path().join(".privpost-cache").join(key);
        for pack in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            let text = String::from_utf8_lossy(&std::fs::read(&pack).unwrap()).into_owned();
            if tasks.iter().any(|t| text.contains(t.as_str())) {
                std::fs::remove_file(pack).unwrap();
            }
        }
    }
    std::fs::write(&record_path, record.to_string()).unwrap();
    let o = privpost(&["merge", dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("shard 3/3 was computed by other code"),
        "{}",
        stderr(&o)
    );

    // --plan that does not exist; several plans need --plan
    let o = privpost(&["merge", dir, "--plan", "ffff"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--plan ffff: no such plan"),
        "{}",
        stderr(&o)
    );
    let o = run(out.path(), &["--shard", "1/1", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = privpost(&["merge", dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("2 plans match; choose one with --plan"),
        "{}",
        stderr(&o)
    );

    // an empty folder has no plan
    let empty = tempfile::tempdir().unwrap();
    let o = privpost(&["merge", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no sharded plan here"),
        "{}",
        stderr(&o)
    );
}

/// A config edited after its shards ran: merge names the changed figure.
#[test]
fn merge_refuses_rows_of_changed_configs() {
    let work = tempfile::tempdir().unwrap();
    let cfg = work.path().join("fig2.toml");
    std::fs::copy(repo().join("configs/bun2018/fig2.toml"), &cfg).unwrap();
    let out = work.path().join("out");
    let shard = |i: &str| {
        privpost(&[
            "run",
            cfg.to_str().unwrap(),
            "--smoke",
            "--out",
            out.to_str().unwrap(),
            "--shard",
            i,
            "-q",
        ])
    };
    for i in ["1/2", "2/2"] {
        let o = shard(i);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("seed = ", "seed = 1")).unwrap();
    let o = privpost(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("for other inputs (the configs or data files of bun2018/fig2@config=fig2,smoke changed since)"),
        "{}",
        stderr(&o)
    );
}

/// Runs one line `privpost shards` printed through `sh -c`, in the repository.
fn sh(line: &str) -> std::process::Output {
    std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(repo())
        .env("CI", "true")
        .output()
        .unwrap()
}

/// `privpost shards --emit commands`: one `run … --shard i/3` per line, each runnable
/// as printed by a shell (here one after another, last first; CI runs them through
/// GNU parallel, scripts/parallel-local.sh), then `--emit merge`'s line: the CSVs of
/// a single-machine run, byte for byte, with an output folder holding a space.
#[test]
fn shard_command_list_runs_and_merges_to_one_machine() {
    let single = tempfile::tempdir().unwrap();
    let o = run(single.path(), &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("shared results");
    let mut args = vec!["shards"];
    args.extend_from_slice(&SWEEP);
    args.extend_from_slice(&["--shards", "3", "--out", out.to_str().unwrap()]);
    let o = privpost(&[args.as_slice(), &["--emit", "commands", "--jobs", "2"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let commands = stdout(&o);
    let lines: Vec<&str> = commands.lines().collect();
    assert_eq!(lines.len(), 3, "{commands}");
    for (i, l) in lines.iter().enumerate() {
        assert!(
            l.ends_with(&format!(" --jobs 2 --shard {}/3", i + 1)),
            "{l}"
        );
        // the configs by absolute path, so a worker in another folder finds them
        assert!(
            l.contains("configs/foulds2016/fig2.toml") && l.contains("--profile smoke"),
            "{l}"
        );
    }
    // the merge line is on stderr with the plan, and alone on stdout with --emit merge
    let o2 = privpost(&[args.as_slice(), &["--emit", "merge"]].concat());
    assert!(o2.status.success(), "{}", stderr(&o2));
    let merge = stdout(&o2).trim().to_string();
    assert!(
        merge.contains(" merge ") && merge.contains("--plan "),
        "{merge}"
    );
    assert!(stderr(&o).contains(&merge), "{}", stderr(&o));
    // merging before the shards ran is refused
    let early = sh(&merge);
    assert_eq!(early.status.code(), Some(2), "{}", stderr(&early));
    for l in lines.iter().rev() {
        let r = sh(l);
        assert!(r.status.success(), "{l}: {}", stderr(&r));
    }
    let r = sh(&merge);
    assert!(r.status.success(), "{}", stderr(&r));
    assert_same_csvs(single.path(), &out);
}

/// Bad arguments of `shards` are refused (exit 2) before anything is written.
#[test]
fn shards_refuses_bad_arguments_before_writing() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("o");
    let o_str = out.to_str().unwrap();
    for bad in [
        vec!["--shards", "0"],
        vec!["--jobs", "0"],
        vec!["--emit", "yaml"],
        vec!["--set", "draws=-1"],
    ] {
        let mut a = vec!["shards", "bun2018/fig2", "--smoke", "--out", o_str];
        a.extend_from_slice(&bad);
        let o = privpost(&a);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{bad:?}");
        assert!(!out.exists(), "{bad:?} wrote {}", out.display());
    }
}

#[test]
fn bad_shard_arguments_are_refused() {
    let out = tempfile::tempdir().unwrap();
    for bad in ["0/4", "5/4", "x", "1/0", "2/1"] {
        let o = run(out.path(), &["--shard", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("allowed: i/n"), "{bad}: {}", stderr(&o));
    }
    let o = run(out.path(), &["--shard", "1/2", "--no-cache"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.path().join(".privpost-cache").exists());
}

/// `privpost slurm`: arrays split at --max-array-size, one shard per array
/// task, a merge script; --submit with a stand-in sbatch that records its
/// arguments: the merge depends (afterok) on every array.
#[test]
fn slurm_writes_arrays_and_submits_with_afterok() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let mut args = vec!["slurm"];
    args.extend_from_slice(&SWEEP);
    let out_s = out.to_str().unwrap().to_string();
    args.extend_from_slice(&[
        "--out",
        &out_s,
        "--shards",
        "5",
        "--max-array-size",
        "2",
        "--cpus-per-task",
        "2",
        "--time",
        "0-01:30:00",
        "--mem",
        "4G",
        "--partition",
        "short",
        "--sbatch=--account=proj1",
    ]);
    // the datasets folder goes to every shard and the merge
    let data = work.path().join("datasets here");
    std::fs::create_dir(&data).unwrap();
    let data_s = data.to_str().unwrap().to_string();
    args.extend_from_slice(&["--data", &data_s]);
    let o = privpost(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let slurm = plan_dir(&out).join("slurm");
    assert!(slurm.join("logs").is_dir());
    let names: Vec<String> = {
        let mut v: Vec<String> = std::fs::read_dir(&slurm)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names,
        [
            "array-0.sbatch",
            "array-1.sbatch",
            "array-2.sbatch",
            "logs",
            "merge.sbatch",
            "submit.sh"
        ]
    );
    let a2 = std::fs::read_to_string(slurm.join("array-2.sbatch")).unwrap();
    for line in [
        "#SBATCH --array=0-0",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --time=0-01:30:00",
        "#SBATCH --mem=4G",
        "#SBATCH --partition=short",
        "#SBATCH --account=proj1",
        "shard=$(( 4 + SLURM_ARRAY_TASK_ID + 1 ))",
        "--set epsilon=0.1,1",
        "--profile smoke",
        "--shard \"$shard/5\"",
        &format!("--data '{data_s}'"),
    ] {
        assert!(a2.contains(line), "{line} not in\n{a2}");
    }
    let a0 = std::fs::read_to_string(slurm.join("array-0.sbatch")).unwrap();
    assert!(a0.contains("#SBATCH --array=0-1") && a0.contains("shard=$(( 0 + SLURM_ARRAY_TASK_ID"));
    let merge = std::fs::read_to_string(slurm.join("merge.sbatch")).unwrap();
    assert!(
        merge.contains(" merge ")
            && merge.contains("--plan ")
            && merge.contains(&format!("--data '{data_s}'")),
        "{merge}"
    );

    // --submit with a stand-in sbatch on PATH
    let bin = work.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = work.path().join("sbatch.log");
    let fake = format!(
        "#!/bin/sh\necho \"$@\" >> {}\nn=$(wc -l < {})\necho \"$((100 + n));cluster\"\n",
        log.display(),
        log.display()
    );
    std::fs::write(bin.join("sbatch"), fake).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("sbatch"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    let path = format!("{}:/usr/bin:/bin", bin.display());
    args.push("--submit");
    let o = privpost_in(&repo(), &args, &[("PATH", Path::new(&path))]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("array job 0: 101") && s.contains("array job 2: 103"),
        "{s}"
    );
    assert!(s.contains("merge job: 104"), "{s}");
    let calls = std::fs::read_to_string(&log).unwrap();
    let last = calls.lines().last().unwrap();
    assert_eq!(
        last,
        "--parsable --kill-on-invalid-dep=yes --dependency=afterok:101:102:103 merge.sbatch"
    );

    // no sbatch at all: exit 1 naming where the scripts are
    let o = privpost_in(&repo(), &args, &[("PATH", Path::new("/nonexistent"))]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot run sbatch"), "{}", stderr(&o));
}

#[test]
fn slurm_refuses_bad_options_before_writing() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    for (flag, value, allowed) in [
        ("--time", "1h", "HH:MM:SS"),
        ("--mem", "lots", "16G"),
        ("--partition", "a b", "partition names"),
        ("--shards", "0", "from 1 to"),
        ("--cpus-per-task", "0", "from 1 to 1024"),
        ("--sbatch", "account=x", "starting with -"),
    ] {
        let arg = format!("{flag}={value}");
        let r = privpost(&["slurm", "bun2018/fig2", "--out", o, &arg]);
        assert_eq!(r.status.code(), Some(2), "{flag}");
        assert!(stderr(&r).contains(allowed), "{flag}: {}", stderr(&r));
    }
    let r = privpost(&["slurm", "bun2018/fig2", "--out", o, "--set", "draws=-1"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(!out.path().join(".privpost-shards").exists());
}
