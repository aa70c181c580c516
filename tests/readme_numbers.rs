//! The README's quoted results cannot drift from the CSVs: every number listed in
//! `tests/reference/readme-numbers.toml` is checked to appear in the README text it
//! names, its source columns to exist in the figure's registry row, and — when
//! `PRIVPOST_PAPER_RESULTS` names the output folder of a paper-scale run
//! (`scripts/readme-numbers.sh DIR`; `scripts/reproduce.sh` runs it at the end) —
//! its value to be recomputed from that run's `summary.csv`. Without that folder the
//! value check says so on stderr (a paper-scale run takes about half an hour, too
//! long for every CI run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Claim {
    readme: String,
    value: String,
    figure: String,
    column: String,
    #[serde(rename = "where")]
    filter: BTreeMap<String, String>,
    #[serde(default)]
    reduce: Option<String>,
    series: Option<String>,
    a: Option<String>,
    b: Option<String>,
    #[serde(default)]
    group: Vec<String>,
    #[serde(default)]
    floor: bool,
    /// "separated": the standard-error column of `column`
    se: Option<String>,
    /// the document quoting the number, if not README.md (a docs page or a
    /// figure's notes file)
    file: Option<String>,
    /// the figure's CSV the number comes from, if not summary.csv (a side
    /// table such as ju2022/loglinear's paired.csv; its columns are checked
    /// only against a run)
    csv: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
struct Claims {
    claim: Vec<Claim>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn claims() -> Vec<Claim> {
    let text = std::fs::read_to_string(repo().join("tests/reference/readme-numbers.toml")).unwrap();
    toml::from_str::<Claims>(&text).unwrap().claim
}

/// The text of a document that quotes numbers: a Markdown file as it is, a
/// figure's notes file (TOML) as its string fields.
fn document(file: &str) -> String {
    let text = std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    if !file.ends_with(".toml") {
        return text;
    }
    let table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    table
        .values()
        .filter_map(toml::Value::as_str)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whitespace runs as one space (the README wraps lines anywhere); U+2212 as '-'.
fn norm(s: &str) -> String {
    s.replace('−', "-")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn cell_eq(cell: &str, want: &str) -> bool {
    match (cell.parse::<f64>(), want.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => cell == want,
    }
}

/// The claim's number from a summary table.
fn compute(c: &Claim, header: &[String], rows: &[Vec<String>]) -> Result<f64, String> {
    let col = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .ok_or_else(|| format!("no column {n}"))
    };
    let mut filters = Vec::new();
    for (k, v) in &c.filter {
        filters.push((col(k)?, v.as_str()));
    }
    let picked: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| filters.iter().all(|&(i, v)| cell_eq(&r[i], v)))
        .collect();
    let vc = col(&c.column)?;
    let num = |r: &Vec<String>| r[vc].parse::<f64>().map_err(|e| format!("{}: {e}", r[vc]));
    match c.reduce.as_deref().unwrap_or("one") {
        "one" => match picked.as_slice() {
            [r] => num(r),
            other => Err(format!("{} rows match (want exactly 1)", other.len())),
        },
        "first" => picked
            .iter()
            .find(|r| !r[vc].is_empty())
            .map_or(Err("no non-empty cell".into()), |r| num(r)),
        "min" => {
            let v: Result<Vec<f64>, String> = picked.iter().map(|r| num(r)).collect();
            let v = v?;
            if v.is_empty() {
                return Err("no rows match".into());
            }
            Ok(v.into_iter().fold(f64::INFINITY, f64::min))
        }
        "count" => Ok(picked.len() as f64),
        "wins" => {
            let s = col(c.series.as_deref().ok_or("wins needs `series`")?)?;
            let (a, b) = (c.a.as_deref().ok_or("no a")?, c.b.as_deref().ok_or("no b")?);
            let g: Vec<usize> = c.group.iter().map(|n| col(n)).collect::<Result<_, _>>()?;
            let mut groups: BTreeMap<Vec<String>, (Option<f64>, Option<f64>)> = BTreeMap::new();
            for r in &picked {
                let key: Vec<String> = g.iter().map(|&i| r[i].clone()).collect();
                let e = groups.entry(key).or_default();
                if r[s] == a {
                    e.0 = Some(num(r)?);
                } else if r[s] == b {
                    e.1 = Some(num(r)?);
                }
            }
            if groups.is_empty() {
                return Err("no rows match".into());
            }
            Ok(groups
                .values()
                .filter(|(x, y)| matches!((x, y), (Some(x), Some(y)) if x < y))
                .count() as f64)
        }
        "separated" => {
            // groups where a and b differ by more than two standard errors of
            // the difference (independent estimates)
            let s = col(c.series.as_deref().ok_or("separated needs `series`")?)?;
            let se = col(c.se.as_deref().ok_or("separated needs `se`")?)?;
            let (a, b) = (c.a.as_deref().ok_or("no a")?, c.b.as_deref().ok_or("no b")?);
            let g: Vec<usize> = c.group.iter().map(|n| col(n)).collect::<Result<_, _>>()?;
            type Est = Option<(f64, f64)>;
            let mut groups: BTreeMap<Vec<String>, (Est, Est)> = BTreeMap::new();
            for r in &picked {
                let key: Vec<String> = g.iter().map(|&i| r[i].clone()).collect();
                let e = groups.entry(key).or_default();
                let v = Some((num(r)?, r[se].parse::<f64>().map_err(|e| e.to_string())?));
                if r[s] == a {
                    e.0 = v;
                } else if r[s] == b {
                    e.1 = v;
                }
            }
            if groups.is_empty() {
                return Err("no rows match".into());
            }
            Ok(groups
                .values()
                .filter(|p| match p {
                    (Some((x, sx)), Some((y, sy))) => (x - y).abs() > 2.0 * sx.hypot(*sy),
                    _ => false,
                })
                .count() as f64)
        }
        other => Err(format!("unknown reduce {other:?}")),
    }
}

/// `x` printed with the decimals of `value` (rounded, or floored for a lower bound).
fn printed(x: f64, value: &str, floor: bool) -> String {
    let v = value.replace('−', "-");
    let decimals = v.split('.').nth(1).map_or(0, str::len);
    let x = if floor {
        let f = 10f64.powi(decimals as i32);
        (x * f + 1e-9).floor() / f
    } else {
        x
    };
    format!("{x:.decimals$}")
}

#[test]
fn every_listed_number_is_quoted_in_the_readme_and_names_real_columns() {
    let claims = claims();
    assert!(claims.len() >= 40, "{} claims", claims.len());
    for c in &claims {
        let file = c.file.as_deref().unwrap_or("README.md");
        let doc = norm(&document(file));
        let text = norm(&c.readme);
        assert!(doc.contains(&text), "{file} lacks {:?}", c.readme);
        assert!(
            text.contains(&norm(&c.value)),
            "{:?} does not contain its value {:?}",
            c.readme,
            c.value
        );
        let spec = privpost::experiments::find(&c.figure)
            .unwrap_or_else(|| panic!("unknown figure {}", c.figure));
        if c.csv.is_some() {
            continue;
        }
        for col in c
            .filter
            .keys()
            .chain(std::iter::once(&c.column))
            .chain(c.series.iter())
            .chain(c.se.iter())
            .chain(c.group.iter())
        {
            assert!(
                spec.summary_columns.get().contains(&col.as_str()),
                "{}: summary.csv has no column {col}",
                c.figure
            );
        }
    }
    // the comparison itself: a changed number must fail
    let header: Vec<String> = ["k", "v"].iter().map(|s| s.to_string()).collect();
    let rows = vec![vec!["1".to_string(), "0.1234".to_string()]];
    let c = Claim {
        readme: String::new(),
        value: "0.123".into(),
        figure: String::new(),
        column: "v".into(),
        filter: [("k".to_string(), "1.0".to_string())].into(),
        reduce: None,
        series: None,
        a: None,
        b: None,
        group: vec![],
        floor: false,
        se: None,
        file: None,
        csv: None,
    };
    let x = compute(&c, &header, &rows).unwrap();
    assert_eq!(printed(x, "0.123", false), "0.123");
    assert_ne!(printed(x, "0.124", false), "0.124");
    assert_eq!(printed(0.8935, "0.89", true), "0.89");
    assert_eq!(printed(-5.6326, "−5.633", false), "-5.633");
}

type Summary = (Vec<String>, Vec<Vec<String>>);

fn read_summary(dir: &Path, figure: &str, csv: Option<&str>) -> Result<Summary, String> {
    let path = dir.join(figure).join(csv.unwrap_or("summary.csv"));
    let mut r = csv::Reader::from_path(&path)
        .map_err(|e| format!("{}: {e} (run the figure at paper scale)", path.display()))?;
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect();
    Ok((header, rows))
}

#[test]
fn readme_numbers_match_a_paper_scale_run() {
    let Some(dir) = std::env::var_os("PRIVPOST_PAPER_RESULTS") else {
        eprintln!(
            "NOT CHECKED: the README's numbers against a paper-scale run — set PRIVPOST_PAPER_RESULTS=<out> (scripts/readme-numbers.sh)"
        );
        return;
    };
    let dir = PathBuf::from(dir);
    let mut wrong = Vec::new();
    for c in claims() {
        let (header, rows) = match read_summary(&dir, &c.figure, c.csv.as_deref()) {
            Ok(t) => t,
            Err(e) => {
                wrong.push(e);
                continue;
            }
        };
        // a paper-scale run, not a smoke one
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(&c.figure).join("manifest.json")).unwrap(),
        )
        .unwrap();
        assert!(
            manifest["profile"].is_null()
                && manifest["overrides"]
                    .as_array()
                    .is_some_and(|o| o.is_empty()),
            "{}: not a paper-scale run (profile {}, overrides {})",
            c.figure,
            manifest["profile"],
            manifest["overrides"]
        );
        match compute(&c, &header, &rows) {
            Ok(x) => {
                let got = printed(x, &c.value, c.floor);
                if got != c.value.replace('−', "-") {
                    wrong.push(format!(
                        "{} {}: README says {} in {:?}, the run gives {x} ({got})",
                        c.figure, c.column, c.value, c.readme
                    ));
                }
            }
            Err(e) => wrong.push(format!("{} {:?}: {e}", c.figure, c.filter)),
        }
    }
    assert!(
        wrong.is_empty(),
        "README numbers that drifted:\n{}",
        wrong.join("\n")
    );
}
