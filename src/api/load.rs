//! `api::load`: a folder privpost wrote — a figure's (`privpost run`) or a
//! posterior's (`privpost infer`) — with its manifest read typed
//! ([`FolderManifest::read`]) and its CSV tables listed. The
//! Python module's `privpost.load` reads the tables with pandas.

use std::path::{Path, PathBuf};

use super::error::ApiError;
use crate::results::manifest::FolderManifest;

/// What [`load`] found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Loaded {
    pub folder: PathBuf,
    #[serde(flatten)]
    pub manifest: FolderManifest,
    /// The folder's CSV files, by name.
    pub tables: Vec<PathBuf>,
}

/// Reads a folder privpost wrote (see the module header).
pub fn load(folder: &Path) -> Result<Loaded, ApiError> {
    let allowed =
        "allowed: a folder privpost wrote, e.g. results/foulds2016/fig2 or results/infer/NAME";
    if std::fs::symlink_metadata(folder).is_err() {
        return Err(ApiError::not_found(
            "folder",
            folder.to_path_buf(),
            format!("{}: no such folder ({allowed})", folder.display()),
        ));
    }
    if !folder.is_dir() {
        return Err(ApiError::input(
            "folder",
            format!("{}: not a folder ({allowed})", folder.display()),
        ));
    }
    let bad = |e: crate::results::manifest::ManifestError| {
        let what = if e.missing {
            format!(
                "{}: no manifest.json — not a folder privpost wrote ({allowed})",
                folder.display()
            )
        } else {
            e.to_string()
        };
        ApiError::input("folder", what).with_key("manifest.json")
    };
    let manifest = FolderManifest::read(folder).map_err(bad)?;
    let mut tables: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| ApiError::input("folder", format!("{}: {e}", folder.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv") && p.is_file())
        .collect();
    tables.sort();
    Ok(Loaded {
        folder: folder.to_path_buf(),
        manifest,
        tables,
    })
}

#[cfg(test)]
mod tests {
    use super::{load, FolderManifest};
    use crate::api::ErrorKind;
    use std::path::Path;

    fn reference(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/reference/manifests")
            .join(name)
    }

    /// Folders written by e1b8e2a, a figure's and an infer posterior's, load
    /// typed; the infer manifest writes back to the same JSON value.
    #[test]
    fn folders_of_e1b8e2a_load_typed() {
        let tmp = tempfile::tempdir().unwrap();
        let fig = tmp.path().join("fig2");
        std::fs::create_dir(&fig).unwrap();
        std::fs::copy(
            reference("e1b8e2a-foulds2016-fig2.json"),
            fig.join("manifest.json"),
        )
        .unwrap();
        std::fs::write(fig.join("summary.csv"), "a\n1\n").unwrap();
        let loaded = load(&fig).unwrap();
        assert!(
            matches!(loaded.manifest, FolderManifest::Figure(ref m) if m.figure == "foulds2016/fig2")
        );
        assert_eq!(loaded.tables, vec![fig.join("summary.csv")]);
        let post = tmp.path().join("release");
        std::fs::create_dir(&post).unwrap();
        let file = reference("e1b8e2a-infer.json");
        std::fs::copy(&file, post.join("manifest.json")).unwrap();
        let FolderManifest::Infer(m) = load(&post).unwrap().manifest else {
            panic!("an infer manifest")
        };
        assert_eq!(m.draws.parameters, ["theta1", "theta2", "theta3"]);
        let original: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(serde_json::to_value(&*m).unwrap(), original);
    }

    #[test]
    fn a_missing_or_foreign_folder_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let e = load(&tmp.path().join("nope")).unwrap_err();
        assert_eq!((e.kind, e.argument), (ErrorKind::NotFound, Some("folder")));
        let e = load(tmp.path()).unwrap_err();
        assert!(e.message.contains("no manifest.json"), "{e}");
        std::fs::write(tmp.path().join("manifest.json"), r#"{"command": "infer"}"#).unwrap();
        let e = load(tmp.path()).unwrap_err();
        assert!(e.message.contains("not an infer manifest"), "{e}");
    }
}
