//! What a command names: config files, figure ids, paper ids or `--all`, and
//! its `--set` overrides — turned into config paths and parsed overrides.

use std::path::{Path, PathBuf};

use crate::config::{ConfigError, ConfigFile, Override};
use crate::error::CommandError;
use crate::experiments;

/// Every `*.toml` under `dir`, sorted.
pub fn all_configs(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "toml")
                && path
                    .file_name()
                    .is_some_and(|n| n != crate::config::SHARED_PROFILES)
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)
        .map_err(|e| CommandError::input(format!("{}: cannot list configs: {e}", dir.display())))?;
    out.sort();
    Ok(out)
}

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    crate::config::closest(name, candidates)
}

/// A config a command names: a file on disk, or a built-in figure's config
/// compiled into the binary — used for a figure id (or a paper id, or `--all`)
/// when no `<configs>/<id>.toml` exists, so privpost runs from any folder. A
/// config file on disk always wins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigRef {
    File(PathBuf),
    /// The figure id of a built-in config.
    BuiltIn(&'static str),
}

impl ConfigRef {
    /// How messages and manifests name a built-in config (not a path on disk).
    pub const BUILT_IN: &'static str = "[built-in]";

    /// The config's path as messages show it: the file, or `[built-in] configs/<id>.toml`.
    pub fn path(&self) -> PathBuf {
        match self {
            Self::File(p) => p.clone(),
            Self::BuiltIn(id) => PathBuf::from(format!("{} configs/{id}.toml", Self::BUILT_IN)),
        }
    }

    /// Reads and parses the config (a built-in one from the binary's text).
    pub fn load(&self) -> Result<ConfigFile, ConfigError> {
        match self {
            Self::File(p) => ConfigFile::load(p),
            Self::BuiltIn(id) => {
                let spec = experiments::find(id).expect("a built-in id names a figure");
                ConfigFile::parse(spec.config_text, &self.path())
            }
        }
    }

    /// The target a later `privpost` process (a Slurm shard, `merge`) is given
    /// for the same config: a file's absolute path, a built-in config's id.
    pub fn as_target(&self) -> std::io::Result<String> {
        match self {
            Self::File(p) => std::path::absolute(p).map(|a| a.display().to_string()),
            Self::BuiltIn(id) => Ok(id.to_string()),
        }
    }

    /// A figure's config: `<config_dir>/<id>.toml` when there is a configs folder
    /// and anything is at that path, else the built-in one. Anything: a dangling
    /// link, a folder, a device or a pipe there is that config, which then fails to
    /// load with what it is — never a silent switch to the built-in config.
    pub fn figure(spec: &'static experiments::Spec, config_dir: Option<&Path>) -> Self {
        match config_dir.map(|d| d.join(format!("{}.toml", spec.id))) {
            Some(path) if std::fs::symlink_metadata(&path).is_ok() => Self::File(path),
            _ => Self::BuiltIn(spec.id),
        }
    }
}

/// The targets a later process is given for `configs` ([`ConfigRef::as_target`]).
pub fn as_targets(configs: &[ConfigRef]) -> std::io::Result<Vec<String>> {
    configs.iter().map(ConfigRef::as_target).collect()
}

impl std::fmt::Display for ConfigRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path().display())
    }
}

/// The configs folder a command reads figure ids from: `--configs DIR` (which must
/// exist), else `./configs` when it exists; `None` means built-in configs only.
pub fn config_dir(given: Option<&Path>) -> Result<Option<PathBuf>, CommandError> {
    match given {
        Some(dir) if dir.is_dir() => Ok(Some(dir.to_path_buf())),
        Some(dir) => Err(CommandError::input(format!(
            "--configs {}: no such folder (allowed: a folder holding <paper>/<figure>.toml, e.g. the repository's configs; without --configs, ./configs is used when it exists and the built-in configs otherwise)",
            dir.display()
        ))),
        None => {
            let dir = Path::new("configs");
            Ok(dir.is_dir().then(|| dir.to_path_buf()))
        }
    }
}

/// Turns the command's targets into configs: a path to a `.toml`, a figure id
/// (`foulds2016/fig2`: `<config_dir>/<id>.toml`, or the built-in config when that
/// file does not exist) or a paper id (each of its figures, the same way, and any
/// other config in `<config_dir>/<paper>/`).
pub fn targets(
    targets: &[String],
    config_dir: Option<&Path>,
) -> Result<Vec<ConfigRef>, CommandError> {
    let mut out = Vec::new();
    for t in targets {
        let path = PathBuf::from(t);
        if path.is_file() {
            out.push(ConfigRef::File(path));
            continue;
        }
        // a paper id (`foulds2016`): every config of that paper
        let paper_id = t.trim_end_matches('/');
        let figures: Vec<&'static experiments::Spec> = experiments::REGISTRY
            .iter()
            .filter(|s| s.id.split('/').next() == Some(paper_id))
            .collect();
        if !paper_id.contains(['/', '\\']) && !figures.is_empty() {
            let mut found: Vec<ConfigRef> = figures
                .iter()
                .map(|s| ConfigRef::figure(s, config_dir))
                .collect();
            if let Some(paper) = config_dir.map(|d| d.join(paper_id)).filter(|p| p.is_dir()) {
                let own = std::fs::read_dir(&paper)
                    .map_err(|e| CommandError::input(format!("{}: {e}", paper.display())))?
                    .flatten()
                    .map(|e| ConfigRef::File(e.path()))
                    .filter(|c| c.path().extension().is_some_and(|x| x == "toml"));
                for c in own {
                    if !found.contains(&c) {
                        found.push(c);
                    }
                }
            }
            found.sort_by_key(|c| c.path().file_name().map(|n| n.to_os_string()));
            out.extend(found);
            continue;
        }
        if let Some(spec) = experiments::find(t.trim_end_matches(".toml")) {
            out.push(ConfigRef::figure(spec, config_dir));
            continue;
        }
        let hint = did_you_mean(t, experiments::REGISTRY.iter().map(|s| s.id))
            .map(|id| format!(" (did you mean `{id}`?)"))
            .unwrap_or_default();
        return Err(CommandError::input(format!(
            "{t}: neither a config file, a figure id nor a paper id{hint} (allowed: a path to a .toml config, a paper id such as foulds2016 for all its figures, or one of {})",
            experiments::known_ids()
        )));
    }
    Ok(out)
}

/// Parses `--set` arguments (each a `KEY=VALUE`), refusing a key given twice.
pub fn overrides(set: &[String]) -> Result<Vec<Override>, CommandError> {
    let overrides: Vec<Override> = set
        .iter()
        .map(|s| Override::parse(s))
        .collect::<Result<_, _>>()?;
    crate::config::check_distinct(&overrides)?;
    Ok(overrides)
}

/// The configs of the command's targets and, with `--all`, every config in the
/// configs folder — or, when there is none, every built-in figure's config.
pub fn config_paths(
    targets_given: &[String],
    all: bool,
    config_dir: Option<&Path>,
) -> Result<Vec<ConfigRef>, CommandError> {
    let mut paths = targets(targets_given, config_dir)?;
    if all {
        match config_dir {
            Some(dir) => {
                let found = all_configs(dir)?;
                if found.is_empty() {
                    return Err(CommandError::input(format!(
                        "--all: {} holds no <paper>/<figure>.toml configs (allowed: a configs folder, or run from a folder without ./configs for the built-in ones)",
                        dir.display()
                    )));
                }
                paths.extend(found.into_iter().map(ConfigRef::File));
            }
            None => paths.extend(
                experiments::REGISTRY
                    .iter()
                    .map(|s| ConfigRef::BuiltIn(s.id)),
            ),
        }
    }
    if paths.is_empty() {
        return Err(CommandError::input(
            "nothing to run: give config files, figure ids or --all",
        ));
    }
    Ok(paths)
}
