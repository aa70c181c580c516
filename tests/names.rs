//! The names of closed sets are written once, in a `name_table!`
//! (crates/privpost-core/src/names.rs): where such an enum is also
//! (de)serialised, its serde names must be the table's, both ways; and no
//! hand-written `as_str` match of names is left in the sources.

use std::path::Path;

use privpost::damcmc::Kernel;
use privpost::experiments::{calibration, ju2022, raisa2021};
use privpost::expfam::dirichlet::HellingerVariant;
use privpost::expfam::mechanisms::Algorithm;
use privpost::hellinger::laplace::Rounding;
use privpost::privacy::event::{Conversion, NoiseMode};
use privpost::privacy::gaussian::GaussianCalibration;
use privpost::privacy::gaussian_pld::Accountant;

/// Every variant serialises to its table name (and, with `from`, reads back from it).
fn agree<T: serde::Serialize + std::fmt::Debug + PartialEq + Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    from: Option<fn(serde_json::Value) -> Option<T>>,
) {
    assert!(!all.is_empty());
    for &v in all {
        let serde_name = serde_json::to_value(v).unwrap();
        assert_eq!(serde_name.as_str(), Some(name(v)), "{v:?}");
        if let Some(from) = from {
            assert_eq!(from(serde_name), Some(v), "{v:?}");
        }
    }
}

fn de<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Option<T> {
    serde_json::from_value(v).ok()
}

#[test]
fn serde_names_are_the_name_tables() {
    agree(Kernel::ALL, Kernel::as_str, Some(de::<Kernel>));
    agree(
        HellingerVariant::ALL,
        HellingerVariant::as_str,
        Some(de::<HellingerVariant>),
    );
    agree(Algorithm::ALL, Algorithm::as_str, Some(de::<Algorithm>));
    agree(Rounding::ALL, Rounding::as_str, Some(de::<Rounding>));
    agree(Conversion::ALL, Conversion::as_str, Some(de::<Conversion>));
    agree(NoiseMode::ALL, NoiseMode::as_str, Some(de::<NoiseMode>));
    agree(
        GaussianCalibration::ALL,
        GaussianCalibration::as_str,
        Some(de::<GaussianCalibration>),
    );
    agree(Accountant::ALL, Accountant::as_str, None);
    agree(
        raisa2021::Method::ALL,
        raisa2021::Method::as_str,
        Some(de::<raisa2021::Method>),
    );
    agree(
        ju2022::Run::ALL,
        ju2022::Run::as_str,
        Some(de::<ju2022::Run>),
    );
    agree(
        calibration::Method::ALL,
        calibration::Method::as_str,
        Some(de::<calibration::Method>),
    );
}

/// Every `.rs` file of the workspace's sources.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_hand_written_name_match_is_left() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("crates"), &mut files);
    let mut found = Vec::new();
    for f in &files {
        if f.ends_with("names.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            // an `as_str` whose body matches variants to string literals
            if l.contains("fn as_str(self) -> &'static str") {
                let body = lines[i..lines.len().min(i + 4)].join("\n");
                if body.contains("match self") && body.contains("=> \"") {
                    found.push(format!("{}:{}", f.display(), i + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "name matches written by hand (use privpost_core::names::name_table!): {found:?}"
    );
}
