//! `privpost slurm`: writes sbatch scripts for a sharded run — job arrays with
//! one shard per array task (several arrays when the shards exceed the
//! cluster's MaxArraySize) and a merge job that runs after all of them
//! (`--dependency=afterok`) — and with `--submit` submits them with `sbatch`,
//! prints the job ids and exits: no process watches the jobs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::shards::ShardPlan;
use super::CommandError;
use crate::invocation::sh_quote;
use crate::plan::Selection;
use crate::runner::shard::MAX_SHARDS;

/// Slurm's default MaxArraySize (array indices 0..=1000).
const DEFAULT_MAX_ARRAY_SIZE: usize = 1001;

/// Write (and with --submit, submit) a Slurm job array of shards and the merge job after it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The scripts go to <out>/.privpost-shards/<plan>/slurm/ with submit.sh, which \
submits the array(s) and the merge job (afterok) and prints the job ids. Every array task runs \
`privpost run … --shard i/n` with --jobs following SLURM_CPUS_PER_TASK; the merge job runs \
`privpost merge <out> --plan <plan>`. The privpost binary, the configs and <out> must be on a file \
system every node sees.

A failed array task can be resubmitted alone (it reuses the tasks it had finished):
  sbatch --array=<index> <out>/.privpost-shards/<plan>/slurm/array-0.sbatch
and the merge after it:
  sbatch --dependency=afterok:<job id> <out>/.privpost-shards/<plan>/slurm/merge.sbatch"
)]
pub struct SlurmArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Output root shared by the shards and the merge.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Number of shards (array tasks).
    #[arg(long, default_value_t = 4, value_parser = super::integer_arg::<usize>)]
    pub shards: usize,
    /// Slurm partition (-p).
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit per array task and for the merge (minutes, HH:MM:SS or D-HH:MM:SS).
    #[arg(long)]
    pub time: Option<String>,
    /// CPUs per array task; privpost runs that many worker threads.
    #[arg(long, default_value_t = 1, value_parser = super::integer_arg::<usize>)]
    pub cpus_per_task: usize,
    /// Memory per array task (e.g. 4G; Slurm's --mem).
    #[arg(long)]
    pub mem: Option<String>,
    /// Largest array (the cluster's MaxArraySize); default: from `scontrol show config` with --submit, else 1001.
    #[arg(long)]
    pub max_array_size: Option<usize>,
    /// An extra `#SBATCH` option for every job (repeatable), e.g. --sbatch=--account=proj1.
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
    /// Submit with sbatch, print the job ids and exit.
    #[arg(long)]
    pub submit: bool,
}

/// Refuses a value that is not of Slurm's form for `flag`.
fn check_value(flag: &str, value: &str, ok: bool, allowed: &str) -> Result<(), CommandError> {
    if ok {
        Ok(())
    } else {
        Err(CommandError::input(format!(
            "{flag} {value}: allowed values are {allowed}"
        )))
    }
}

fn check_args(a: &SlurmArgs) -> Result<(), CommandError> {
    check_value(
        "--shards",
        &a.shards.to_string(),
        (1..=MAX_SHARDS).contains(&a.shards),
        &format!("whole numbers from 1 to {MAX_SHARDS}"),
    )?;
    check_value(
        "--cpus-per-task",
        &a.cpus_per_task.to_string(),
        (1..=1024).contains(&a.cpus_per_task),
        "whole numbers from 1 to 1024",
    )?;
    if let Some(p) = &a.partition {
        check_value(
            "--partition",
            p,
            !p.is_empty()
                && p.len() <= 64
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-,".contains(c)),
            "partition names (letters, digits, _ . - and , between several)",
        )?;
    }
    if let Some(t) = &a.time {
        let parts_ok = t
            .split(['-', ':'])
            .all(|p| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()));
        check_value(
            "--time",
            t,
            parts_ok && t.matches('-').count() <= 1 && t.matches(':').count() <= 2 && t.len() <= 16,
            "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS",
        )?;
    }
    if let Some(m) = &a.mem {
        let digits = m.trim_end_matches(['K', 'M', 'G', 'T']);
        check_value(
            "--mem",
            m,
            !digits.is_empty()
                && digits.len() <= 12
                && digits.chars().all(|c| c.is_ascii_digit())
                && m.len() <= digits.len() + 1,
            "a size such as 4000 (MB), 4000M, 16G or 1T",
        )?;
    }
    if let Some(n) = a.max_array_size {
        check_value(
            "--max-array-size",
            &n.to_string(),
            (1..=4_000_001).contains(&n),
            "whole numbers from 1 to 4000001",
        )?;
    }
    for o in &a.sbatch {
        check_value(
            "--sbatch",
            o,
            o.starts_with('-') && !o.contains(['\n', '\r']) && o.len() <= 200,
            "one sbatch option per flag, starting with - (e.g. --sbatch=--account=proj1), no line breaks",
        )?;
    }
    Ok(())
}

/// MaxArraySize from `scontrol show config`, if it answers.
fn cluster_max_array_size() -> Option<usize> {
    let out = Command::new("scontrol")
        .args(["show", "config"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "MaxArraySize")
            .then(|| v.trim().parse().ok())
            .flatten()
    })
}

/// A path as the value of an `#SBATCH` directive: double-quoted when it holds a
/// space (sbatch reads quoted directive values; an unquoted space ends the value,
/// "Invalid directive found in batch script").
fn directive_path(p: &Path) -> String {
    let s = p.display().to_string();
    if s.contains(char::is_whitespace) {
        format!("\"{s}\"")
    } else {
        s
    }
}

/// The `#SBATCH` lines every job shares.
fn common_lines(a: &SlurmArgs, cwd: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", a.cpus_per_task);
    if let Some(p) = &a.partition {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    if let Some(t) = &a.time {
        let _ = writeln!(s, "#SBATCH --time={t}");
    }
    if let Some(m) = &a.mem {
        let _ = writeln!(s, "#SBATCH --mem={m}");
    }
    let _ = writeln!(s, "#SBATCH --chdir={}", directive_path(cwd));
    for o in &a.sbatch {
        let _ = writeln!(s, "#SBATCH {o}");
    }
    s
}

/// The scripts of a plan: (file name, contents), arrays first, then merge.sbatch and submit.sh.
fn scripts(
    a: &SlurmArgs,
    p: &ShardPlan,
    slurm_dir: &Path,
    cwd: &Path,
    max_array: usize,
) -> Vec<(String, String)> {
    let plan = &p.plan;
    let logs = slurm_dir.join("logs");
    let run_line = p.run_line();
    let common = common_lines(a, cwd);
    let n = plan.shards;
    let mut files = Vec::new();
    let arrays = n.div_ceil(max_array);
    for k in 0..arrays {
        let offset = k * max_array;
        let size = max_array.min(n - offset);
        let text = format!(
            "#!/bin/bash\n\
             #SBATCH --job-name=privpost-{plan}-{k}\n\
             #SBATCH --array=0-{last}\n\
             {common}\
             #SBATCH --output={logs}\n\
             # privpost plan {plan}: shards {first}..{end} of {n}; array task i runs shard {offset} + i + 1.\n\
             # Resubmit one failed task alone: sbatch --array=<i> {this}\n\
             set -euo pipefail\n\
             shard=$(( {offset} + SLURM_ARRAY_TASK_ID + 1 ))\n\
             exec {run_line} --shard \"$shard/{n}\"\n",
            plan = plan.plan,
            last = size - 1,
            logs = directive_path(&logs.join("shard-%A_%a.out")),
            first = offset + 1,
            end = offset + size,
            this = slurm_dir.join(format!("array-{k}.sbatch")).display(),
        );
        files.push((format!("array-{k}.sbatch"), text));
    }
    let merge = format!(
        "#!/bin/bash\n\
         #SBATCH --job-name=privpost-{plan}-merge\n\
         {common}\
         #SBATCH --output={logs}\n\
         # Runs after every array task succeeded (submit.sh adds --dependency=afterok:<arrays>).\n\
         set -euo pipefail\n\
         exec {merge_line}\n",
        plan = plan.plan,
        logs = directive_path(&logs.join("merge-%j.out")),
        merge_line = p.merge_line(),
    );
    files.push(("merge.sbatch".into(), merge));
    let mut submit = format!(
        "#!/bin/bash\n\
         # Submits plan {plan}: {arrays} job array(s) of {n} shards, then the merge job after them.\n\
         # Prints the job ids and exits; nothing waits for the jobs.\n\
         set -euo pipefail\n\
         cd {dir}\n\
         ids=\"\"\n",
        plan = plan.plan,
        dir = sh_quote(&slurm_dir.display().to_string()),
    );
    for k in 0..arrays {
        let _ = write!(
            submit,
            "id=$(sbatch --parsable array-{k}.sbatch); id=${{id%%;*}}\n\
             echo \"array job {k}: $id\"\n\
             ids=\"$ids:$id\"\n"
        );
    }
    submit.push_str(
        "m=$(sbatch --parsable --kill-on-invalid-dep=yes --dependency=afterok$ids merge.sbatch); m=${m%%;*}\n\
         echo \"merge job: $m\"\n",
    );
    files.push(("submit.sh".into(), submit));
    files
}

/// `sbatch --parsable ARGS…`: the job id.
fn sbatch(args: &[&str], dir: &Path) -> Result<String, CommandError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| {
            CommandError::failed(format!(
                "cannot run sbatch ({e}); the scripts are written in {}: submit them on a machine with Slurm",
                dir.display()
            ))
        })?;
    if !out.status.success() {
        return Err(CommandError::failed(format!(
            "sbatch {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(CommandError::failed(format!(
            "sbatch {}: unexpected answer {:?}",
            args.join(" "),
            text.trim()
        )));
    }
    Ok(id)
}

pub fn slurm(args: SlurmArgs) -> Result<(), CommandError> {
    check_args(&args)?;
    let p = ShardPlan::prepare(
        &args.selection,
        &args.out,
        args.shards,
        "slurm (sharded jobs)",
    )?;
    let cwd = std::env::current_dir()
        .map_err(|e| CommandError::failed(format!("cannot read the working directory: {e}")))?;
    let max_array = match args.max_array_size {
        Some(n) => n,
        None if args.submit => cluster_max_array_size().unwrap_or(DEFAULT_MAX_ARRAY_SIZE),
        None => DEFAULT_MAX_ARRAY_SIZE,
    }
    .max(1);
    let (plan, planned) = (&p.plan, &p.planned);
    let slurm_dir = plan.dir(&p.out).join("slurm");
    let logs = slurm_dir.join("logs");
    std::fs::create_dir_all(&logs)
        .map_err(|e| CommandError::failed(format!("{}: cannot create: {e}", logs.display())))?;
    let files = scripts(&args, &p, &slurm_dir, &cwd, max_array);
    for (name, text) in &files {
        let path = slurm_dir.join(name);
        crate::results::write_text(&path, text).map_err(|e| CommandError::Failed(e.into()))?;
        if name.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755));
        }
    }
    let arrays: Vec<&String> = files
        .iter()
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("array-"))
        .collect();
    let tasks_hint = planned.len();
    errln!(
        "plan {}: {} figure run(s) in {} shard(s), {} job array(s) of at most {max_array}; scripts in {}",
        plan.plan,
        tasks_hint,
        args.shards,
        arrays.len(),
        slurm_dir.display()
    );
    let runs = planned
        .iter()
        .map(|p| (p.resolved.experiment.clone(), p.cost()));
    match crate::runner::estimate::shard_seconds(runs, args.shards, args.cpus_per_task) {
        Some(s) => errln!(
            "estimated wall time per array task: about {} ({} CPU(s) each; cost model calibrated on {}){}",
            crate::runner::human_duration(s),
            args.cpus_per_task,
            crate::runner::estimate::CALIBRATED_ON,
            if args.time.is_none() {
                format!(
                    "; suggested: --time {} (twice the estimate and 10 min)",
                    crate::runner::estimate::slurm_time(s)
                )
            } else {
                String::new()
            }
        ),
        None => errln!(
            "no wall-time estimate: a figure's cost is known only once its data is prepared (set --time from a smaller run's manifest timings)"
        ),
    }
    if !args.submit {
        crate::outln!(
            "submit with: bash {}",
            slurm_dir.join("submit.sh").display()
        );
        return Ok(());
    }
    let mut ids = Vec::new();
    for name in &arrays {
        let id = sbatch(&[name.as_str()], &slurm_dir)?;
        crate::outln!(
            "array job {}: {id}",
            name.trim_start_matches("array-")
                .trim_end_matches(".sbatch")
        );
        ids.push(id);
    }
    let dependency = format!("--dependency=afterok:{}", ids.join(":"));
    let merge = sbatch(
        &["--kill-on-invalid-dep=yes", &dependency, "merge.sbatch"],
        &slurm_dir,
    )?;
    crate::outln!("merge job: {merge}");
    crate::outln!(
        "results: {} once job {merge} has finished (squeue -j {}; logs in {})",
        p.out.display(),
        std::iter::once(merge.as_str())
            .chain(ids.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(","),
        logs.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_survive_quoting() {
        assert_eq!(sh_quote("configs/a.toml"), "configs/a.toml");
        assert_eq!(sh_quote("epsilon=[0.1,1]"), "'epsilon=[0.1,1]'");
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
        assert_eq!(sh_quote(""), "''");
    }
}
