//! `privpost cache`: what the task cache under an output root holds, and
//! clearing it (all of it, or only runs computed by other binaries).

use super::ArgError;
use std::path::PathBuf;

use super::CommandError;
use crate::results::cache;

/// Show or clear the task cache under --out.
#[derive(Debug, clap::Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum CacheAction {
    /// One line per cached run: figure, sweep point, tasks stored/total, size, and whether
    /// this binary can use it.
    Status {
        /// Output root whose cache to show.
        #[arg(long, default_value = "results")]
        out: PathBuf,
    },
    /// Remove cached runs (all; with --stale only those of other binaries; with
    /// --older-than only those unused for that long; both filters together).
    Clean {
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Keep the runs this binary computed; remove only the others.
        #[arg(long)]
        stale: bool,
        /// Remove only runs not used for this long: a number and a unit, s, m, h,
        /// d or w (e.g. 12h, 7d, 2w). A run counts as used when a run opened it
        /// or stored a task in it.
        #[arg(long, value_name = "AGE", value_parser = parse_age)]
        older_than: Option<std::time::Duration>,
    },
}

/// `--older-than`: a number and a unit (s, m, h, d, w).
fn parse_age(text: &str) -> Result<std::time::Duration, ArgError> {
    let allowed = "a number and a unit s, m, h, d or w, e.g. 12h, 7d, 2w";
    let t = text.trim();
    let unit = t
        .chars()
        .last()
        .ok_or_else(|| ArgError(format!("empty (allowed: {allowed})")))?;
    let seconds = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86_400.0,
        'w' => 604_800.0,
        _ => {
            return Err(ArgError(format!(
                "\"{text}\" has no unit (allowed: {allowed})"
            )))
        }
    };
    let n: f64 = t[..t.len() - 1].parse().map_err(|_| {
        ArgError(format!(
            "\"{text}\" is not a number with a unit (allowed: {allowed})"
        ))
    })?;
    if !(n.is_finite() && n >= 0.0 && n * seconds < 1e11) {
        return Err(ArgError(format!(
            "\"{text}\" is out of range (allowed: {allowed}, up to about 3000 years)"
        )));
    }
    Ok(std::time::Duration::from_secs_f64(n * seconds))
}

/// How long ago `t` was, in whole days/hours/minutes, for `cache status`.
fn ago(t: Option<std::time::SystemTime>) -> String {
    let Some(age) = t.and_then(|t| t.elapsed().ok()) else {
        return "unknown".into();
    };
    let s = age.as_secs();
    match s {
        0..=119 => format!("{s} s ago"),
        120..=7199 => format!("{} min ago", s / 60),
        7200..=172_799 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86_400),
    }
}

pub fn cache(args: &CacheArgs) -> Result<(), CommandError> {
    let (out, clean) = match &args.action {
        CacheAction::Status { out } => (out, None),
        CacheAction::Clean {
            out,
            stale,
            older_than,
        } => (out, Some((*stale, *older_than))),
    };
    let root = out.join(cache::DIR_NAME);
    let runs = cache::list(&root).map_err(|e| {
        CommandError::failed(format!("{}: cannot read the cache: {e}", root.display()))
    })?;
    let here = cache::code_id();
    let usable = |r: &cache::CachedRun| r.info.as_ref().is_some_and(|i| i.code == here);
    match clean {
        None => {
            if runs.is_empty() {
                crate::outln!("{}: empty", root.display());
                return Ok(());
            }
            let (mut bytes, mut disk, mut files) = (0, 0, 0);
            for r in &runs {
                bytes += r.bytes;
                disk += r.disk_bytes;
                files += r.files;
                let (figure, point, total) = match &r.info {
                    Some(i) => (
                        i.figure.clone(),
                        i.sweep_point.clone().unwrap_or_default(),
                        i.tasks.to_string(),
                    ),
                    None => ("?".into(), String::new(), "?".into()),
                };
                crate::outln!(
                    "{}  {:<22} {:<28} {:>6}/{:<6} tasks {:>4} files {:>10} bytes ({} on disk)  used {:<12} {}",
                    &r.key[..12.min(r.key.len())],
                    figure,
                    point,
                    r.tasks_stored,
                    total,
                    r.files,
                    r.bytes,
                    r.disk_bytes,
                    ago(r.last_used),
                    if usable(r) {
                        "this binary"
                    } else {
                        "other binary (stale)"
                    }
                );
            }
            for r in &runs {
                for (path, at, what) in &r.damaged {
                    crate::outln!(
                        "damaged: {} at byte {at}: {what} (its entries from there on are computed again)",
                        path.display()
                    );
                }
            }
            crate::outln!(
                "{} run(s), {} usable by this binary, {bytes} bytes in {files} files ({disk} bytes on disk) in {}",
                runs.len(),
                runs.iter().filter(|r| usable(r)).count(),
                root.display()
            );
        }
        Some((stale, older_than)) => {
            let old_enough = |r: &cache::CachedRun| match older_than {
                None => true,
                // a run whose age cannot be read is kept
                Some(limit) => r
                    .last_used
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= limit),
            };
            let mut removed = 0;
            for r in runs
                .iter()
                .filter(|r| (!stale || !usable(r)) && old_enough(r))
            {
                let dir = root.join(&r.key);
                std::fs::remove_dir_all(&dir).map_err(|e| {
                    CommandError::failed(format!("{}: cannot remove: {e}", dir.display()))
                })?;
                removed += 1;
            }
            if !stale && older_than.is_none() && root.is_dir() {
                let _ = std::fs::remove_dir(&root);
            }
            crate::outln!("removed {removed} cached run(s) from {}", root.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_parse_with_their_unit() {
        assert_eq!(parse_age("90s").unwrap().as_secs(), 90);
        assert_eq!(parse_age("12h").unwrap().as_secs(), 43_200);
        assert_eq!(parse_age("7d").unwrap().as_secs(), 604_800);
        assert_eq!(parse_age("2w").unwrap().as_secs(), 1_209_600);
        assert_eq!(parse_age("1.5h").unwrap().as_secs(), 5400);
        for bad in ["7", "", "d", "-1d", "nanh", "1e300w", "seven days"] {
            assert!(parse_age(bad).is_err(), "{bad}");
        }
    }
}
