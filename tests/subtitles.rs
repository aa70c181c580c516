//! A figure's subtitle states the guarantee it plots, from its own ledger
//!: Heikkilä Fig. 2's ε is the classic conversion the paper uses
//! (with the improved one beside it), and Fig. 3's DP-MCMC δ is the δ of the
//! plotted claim — the chain composed with its DPVI start.

mod common;

use std::path::Path;

use common::{privpost, stderr};

fn parameter(dir: &Path, figure: &str, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(figure).join("parameters.csv")).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    r.records()
        .map(|r| r.unwrap())
        .find(|r| &r[0] == name)
        .map(|r| r[1].to_string())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

fn ledger(dir: &Path, figure: &str) -> Vec<serde_json::Value> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(figure).join("manifest.json")).unwrap())
            .unwrap();
    m["privacy"].as_array().unwrap().clone()
}

#[test]
fn heikkila_subtitles_state_the_plotted_guarantee() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "run",
        "heikkila2019/fig2",
        "heikkila2019/fig3",
        "--smoke",
        "--out",
        out.path().to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Fig. 2: the classic claim first, as the paper, the improved one beside it
    let shown = parameter(out.path(), "heikkila2019/fig2@smoke", "(b) ε");
    let entries = ledger(out.path(), "heikkila2019/fig2@smoke");
    let claim = |conversion: &str| -> (f64, f64) {
        let e = entries
            .iter()
            .find(|e| e["series"] == format!("chain=private, conversion={conversion}"))
            .unwrap();
        (
            e["guarantee"]["epsilon"].as_f64().unwrap(),
            e["guarantee"]["delta"].as_f64().unwrap(),
        )
    };
    let (classic, delta) = claim("classic");
    let (improved, _) = claim("improved");
    assert!(
        shown.starts_with(&format!("{classic:.2} at δ = {delta:e} (classic")),
        "{shown} vs classic {classic}"
    );
    assert!(
        shown.contains(&format!("{improved:.2} by the improved")),
        "{shown}"
    );
    // Fig. 3: DP-MCMC's δ is the composed claim's
    let shown = parameter(out.path(), "heikkila2019/fig3@smoke", "DP-MCMC δ");
    let mcmc = ledger(out.path(), "heikkila2019/fig3@smoke")
        .into_iter()
        .find(|e| e["series"].as_str().unwrap().starts_with("method=dp_mcmc"))
        .unwrap();
    let delta = mcmc["guarantee"]["delta"].as_f64().unwrap();
    assert!(
        shown.starts_with(&format!("{delta:e} (chain")),
        "{shown} vs ledger δ {delta}"
    );
}
