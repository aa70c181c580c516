//! Thumbnails of a paper-scale run for the README's figure table
//! (`privpost gallery DIR --thumbnails OUT`; the committed set lives in
//! `docs/figures/thumbs/`, one `<paper>-<figure>.png` per registry figure).
//!
//! Only a folder run at the paper's scale — no profile, no `--set`, not a sweep
//! point — gives a thumbnail: the README must not show a smoke or off-paper run
//! as the paper's figure.

use crate::gallery::GalleryError;
use std::path::{Path, PathBuf};

use crate::experiments::REGISTRY;

/// Width of a thumbnail in pixels (the README shows them at half that, sharp
/// on high-density screens).
pub const WIDTH: u32 = 360;

/// The thumbnail's file name of a registry id: `geumlek2017/fig1` → `geumlek2017-fig1.png`.
pub fn file_name(id: &str) -> String {
    crate::experiments::thumbnail_file(id)
}

/// What [`write()`] did: the ids written, and each figure skipped with the reason.
#[derive(Debug, Default)]
pub struct Thumbnails {
    pub written: Vec<String>,
    pub skipped: Vec<(String, String)>,
}

/// Writes a thumbnail of `root/<id>/figure.png` into `out` for every registry
/// figure whose folder under `root` ran at the paper's scale.
pub fn write(root: &Path, out: &Path) -> Result<Thumbnails, GalleryError> {
    let mut done = Thumbnails::default();
    for spec in REGISTRY {
        let dir = root.join(spec.id);
        match source(&dir) {
            Err(why) => done.skipped.push((spec.id.to_string(), why.0)),
            Ok(png) => {
                std::fs::create_dir_all(out)
                    .map_err(|e| GalleryError(format!("{}: {e}", out.display())))?;
                shrink(&png, &out.join(file_name(spec.id)))?;
                done.written.push(spec.id.to_string());
            }
        }
    }
    Ok(done)
}

/// The figure PNG of a paper-scale folder, or why there is none.
fn source(dir: &Path) -> Result<PathBuf, GalleryError> {
    let manifest = super::read_manifest(dir)?;
    let off = super::departures_of(&manifest);
    if !off.is_empty() {
        return Err(GalleryError(off.join("; ")));
    }
    let png = dir.join("figure.png");
    if png.is_file() {
        Ok(png)
    } else {
        Err(GalleryError("no figure.png".to_string()))
    }
}

/// The widest thumbnail, width over height: a figure wider than this (a row of
/// five panels) is cut to its left part, title and first panels, before it is
/// scaled; shrunk whole, raisa2021/banana's thumbnail was 75 px tall (37 px as the
/// README shows it), too small to read.
pub const MAX_ASPECT: f64 = 2.4;

/// `from` scaled to [`WIDTH`] (aspect kept, triangle filter; a figure wider than
/// [`MAX_ASPECT`] cut to its left part first), written atomically to `to`.
fn shrink(from: &Path, to: &Path) -> Result<(), GalleryError> {
    let mut img =
        image::open(from).map_err(|e| GalleryError(format!("{}: {e}", from.display())))?;
    let widest = (f64::from(img.height()) * MAX_ASPECT).round() as u32;
    if img.width() > widest && widest > 0 {
        img = img.crop_imm(0, 0, widest, img.height());
    }
    let height = ((img.height() as f64) * f64::from(WIDTH) / f64::from(img.width().max(1)))
        .round()
        .max(1.0) as u32;
    let small = img.resize_exact(WIDTH, height, image::imageops::FilterType::Triangle);
    let name = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = to.with_file_name(format!(".{name}.tmp-{}", crate::results::owner_tag()));
    small
        .save_with_format(&tmp, image::ImageFormat::Png)
        .and_then(|()| std::fs::rename(&tmp, to).map_err(image::ImageError::IoError))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            GalleryError(format!("{}: {e}", to.display()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbnails_are_named_by_registry_id() {
        assert_eq!(file_name("geumlek2017/fig1"), "geumlek2017-fig1.png");
        let mut names: Vec<String> = REGISTRY.iter().map(|s| file_name(s.id)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
    }

    /// A figure wider than MAX_ASPECT gives its left part, at a readable height.
    #[test]
    fn a_wide_figure_gives_its_left_part() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("wide.png"), dir.path().join("thumb.png"));
        let mut img = image::RgbImage::from_pixel(4000, 600, image::Rgb([255, 255, 255]));
        for x in 0..40 {
            img.put_pixel(x, 10, image::Rgb([0, 0, 0]));
        }
        img.save(&from).unwrap();
        shrink(&from, &to).unwrap();
        let t = image::open(&to).unwrap();
        assert_eq!(t.width(), WIDTH);
        assert_eq!(t.height(), (f64::from(WIDTH) / MAX_ASPECT).round() as u32);
    }

    /// A smoke folder gives no thumbnail; a paper-scale one gives a WIDTH-wide PNG.
    #[test]
    fn only_paper_scale_folders_give_thumbnails() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("thumbs");
        let fig = |id: &str, profile: Option<&str>, overrides: &[&str]| {
            let dir = root.path().join(id);
            std::fs::create_dir_all(&dir).unwrap();
            let manifest = crate::gallery::tests::reference_manifest(|m| {
                m["profile"] = profile.into();
                m["overrides"] = overrides.into();
                m["sweep_point"] = serde_json::Value::Null;
                m.as_object_mut().unwrap().remove("departures");
            });
            std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
            image::RgbImage::from_pixel(720, 480, image::Rgb([200, 10, 10]))
                .save(dir.join("figure.png"))
                .unwrap();
        };
        fig("foulds2016/fig1", None, &[]);
        fig("foulds2016/fig2", Some("smoke"), &[]);
        fig("foulds2016/fig3", None, &["epsilon=2"]);
        let done = write(root.path(), &out).unwrap();
        assert_eq!(done.written, vec!["foulds2016/fig1".to_string()]);
        let why = |id: &str| {
            done.skipped
                .iter()
                .find(|(s, _)| s == id)
                .unwrap()
                .1
                .clone()
        };
        assert!(why("foulds2016/fig2").contains("smoke profile"), "{done:?}");
        assert!(
            why("foulds2016/fig3").contains("--set epsilon=2"),
            "{done:?}"
        );
        assert!(
            why("foulds2016/fig4_5").contains("manifest.json"),
            "{done:?}"
        );
        let small = image::open(out.join("foulds2016-fig1.png")).unwrap();
        assert_eq!((small.width(), small.height()), (WIDTH, 240));
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
    }
}
