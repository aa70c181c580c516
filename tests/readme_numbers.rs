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
    /// the run's profile when it is not the paper's (a stated larger run such
    /// as raisa2021's `replication`): its folder is `figure@profile`
    profile: Option<String>,
    /// the replicate reduces (on data.csv): consecutive repeats of this many
    /// (its `repeat` column) form one replicate; unset, all repeats are one
    replicate_of: Option<usize>,
    /// the replicate reduces: "mean" (default) or "sd" of `column` over a
    /// replicate's repeats, each with its standard error
    statistic: Option<String>,
    /// the replicate reduces over several replicates: "min" or "max" of the
    /// per-replicate counts
    of: Option<String>,
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
        "replicate_wins"
        | "replicate_separated"
        | "difference"
        | "difference_se"
        | "statistic"
        | "statistic_se" => replicates(c, header, &picked),
        other => Err(format!("unknown reduce {other:?}")),
    }
}

/// A statistic of a replicate's values with its standard error.
type Est = (f64, f64);
type Stat = fn(&[f64]) -> Est;

/// The replicate reduces, on a figure's per-repeat rows (data.csv). Per
/// replicate and `group`: the statistic (mean or s.d. of `column` over the
/// replicate's repeats, empty cells left out) of series `a` and of `b`, each
/// with its standard error. `replicate_wins` counts the groups where a's is
/// below b's, `replicate_separated` those where it is below by more than two
/// standard errors of the difference; over several replicates `of` takes the
/// min or max count. `difference` is a's − b's and `difference_se` its s.e.,
/// `statistic` a's alone and `statistic_se` its s.e., for the one group and
/// replicate the filter leaves.
fn replicates(c: &Claim, header: &[String], picked: &[&Vec<String>]) -> Result<f64, String> {
    let col = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .ok_or_else(|| format!("no column {n}"))
    };
    let s = col(c
        .series
        .as_deref()
        .ok_or("replicate reduces need `series`")?)?;
    let reduce = c.reduce.as_deref().unwrap_or_default();
    let a = c.a.as_deref().ok_or("no a")?;
    // `statistic`: a's alone (b = a)
    let b = match (reduce.starts_with("statistic"), c.b.as_deref()) {
        (true, _) => a,
        (false, b) => b.ok_or("no b")?,
    };
    let g: Vec<usize> = c.group.iter().map(|n| col(n)).collect::<Result<_, _>>()?;
    let (v, rep) = (col(&c.column)?, col("repeat")?);
    type Pair = (Vec<f64>, Vec<f64>);
    let mut cells: BTreeMap<(usize, Vec<String>), Pair> = BTreeMap::new();
    for r in picked {
        let Ok(x) = r[v].parse::<f64>() else {
            continue; // an empty score: a diverged chain
        };
        let repeat: usize = r[rep]
            .parse()
            .map_err(|e| format!("repeat {}: {e}", r[rep]))?;
        let block = c.replicate_of.map_or(0, |k| repeat / k);
        let key: Vec<String> = g.iter().map(|&i| r[i].clone()).collect();
        let e = cells.entry((block, key)).or_default();
        if r[s] == a {
            e.0.push(x);
        }
        if r[s] == b {
            e.1.push(x);
        }
    }
    let stat = |xs: &[f64]| -> Result<(f64, f64), String> {
        let (want, f): (usize, Stat) = match c.statistic.as_deref().unwrap_or("mean") {
            "mean" => (2, privpost::stats::mean_se),
            "sd" => (4, privpost::stats::sd_se),
            other => return Err(format!("unknown statistic {other:?}")),
        };
        if xs.len() < want {
            return Err(format!("{} repeats in a replicate (want {want})", xs.len()));
        }
        Ok(f(xs))
    };
    let mut per_block: BTreeMap<usize, Vec<(Est, Est)>> = BTreeMap::new();
    for ((block, _), (xa, xb)) in &cells {
        per_block
            .entry(*block)
            .or_default()
            .push((stat(xa)?, stat(xb)?));
    }
    if per_block.is_empty() {
        return Err("no rows match".into());
    }
    if reduce.starts_with("difference") || reduce.starts_with("statistic") {
        let [((ma, sa), (mb, sb))] = per_block.values().flatten().copied().collect::<Vec<_>>()[..]
        else {
            return Err(format!("{reduce} needs exactly one group and replicate"));
        };
        return Ok(match reduce {
            "difference" => ma - mb,
            "difference_se" => sa.hypot(sb),
            "statistic" => ma,
            _ => sa,
        });
    }
    let counts: Vec<f64> = per_block
        .values()
        .map(|groups| {
            groups
                .iter()
                .filter(|((ma, sa), (mb, sb))| match reduce {
                    "replicate_wins" => ma < mb,
                    _ => ma + 2.0 * sa.hypot(*sb) < *mb,
                })
                .count() as f64
        })
        .collect();
    match (counts.as_slice(), c.of.as_deref()) {
        ([one], None) => Ok(*one),
        (_, Some("min")) => Ok(counts.iter().copied().fold(f64::INFINITY, f64::min)),
        (_, Some("max")) => Ok(counts.iter().copied().fold(0.0, f64::max)),
        (_, other) => Err(format!(
            "{} replicates: `of` must be \"min\" or \"max\", not {other:?}",
            counts.len()
        )),
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
        profile: None,
        replicate_of: None,
        statistic: None,
        of: None,
    };
    let x = compute(&c, &header, &rows).unwrap();
    assert_eq!(printed(x, "0.123", false), "0.123");
    assert_ne!(printed(x, "0.124", false), "0.124");
    assert_eq!(printed(0.8935, "0.89", true), "0.89");
    assert_eq!(printed(-5.6326, "−5.633", false), "-5.633");
}

/// The replicate reduces on a small table: two replicates of 4 repeats at two
/// ε; a wins both ε in the first replicate (by far, at ε = 1), one in the second.
#[test]
fn replicate_reduces_count_per_replicate_and_pool() {
    let header: Vec<String> = ["method", "epsilon", "repeat", "mmd"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut rows = Vec::new();
    let mut push = |m: &str, e: &str, base: f64, spread: [f64; 4], first: usize| {
        for (k, d) in spread.iter().enumerate() {
            let r = (first + k).to_string();
            rows.push(vec![m.into(), e.into(), r, (base + d).to_string()]);
        }
    };
    let wiggle = [0.0, 0.01, -0.01, 0.005];
    push("a", "1", 0.1, wiggle, 0);
    push("b", "1", 0.5, wiggle, 0);
    push("a", "2", 0.3, wiggle, 0);
    push("b", "2", 0.31, wiggle, 0);
    push("a", "1", 0.2, wiggle, 4);
    push("b", "1", 0.1, wiggle, 4);
    push("a", "2", 0.3, wiggle, 4);
    push("b", "2", 0.32, [0.0, 0.01, -0.01, f64::NAN], 4);
    rows.last_mut().unwrap()[3] = String::new(); // a diverged repeat: left out
    let mut c: Claim = toml::from_str(
        r#"readme = ""
value = ""
figure = ""
column = "mmd"
where = {}
series = "method"
a = "a"
b = "b"
group = ["epsilon"]
reduce = "replicate_wins"
replicate_of = 4
of = "min""#,
    )
    .unwrap();
    let picked: Vec<&Vec<String>> = rows.iter().collect();
    let run = |c: &Claim| compute(c, &header, &rows).unwrap();
    assert_eq!(run(&c), 1.0);
    c.of = Some("max".into());
    assert_eq!(run(&c), 2.0);
    c.reduce = Some("replicate_separated".into());
    assert_eq!(
        run(&c),
        1.0,
        "only ε = 1 of the first replicate is 2 s.e. apart"
    );
    c.of = None;
    assert!(
        replicates(&c, &header, &picked).is_err(),
        "two replicates need `of`"
    );
    // pooled: all 8 repeats one replicate; a's mean below b's at ε = 1 and 2
    c.replicate_of = None;
    c.reduce = Some("replicate_wins".into());
    assert_eq!(run(&c), 2.0);
    c.filter = [("epsilon".to_string(), "2".to_string())].into();
    c.reduce = Some("difference".into());
    let a2 = [0.3, 0.31, 0.29, 0.305, 0.3, 0.31, 0.29, 0.305];
    let b2 = [0.31, 0.32, 0.30, 0.315, 0.32, 0.33, 0.31];
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    assert!((run(&c) - (mean(&a2) - mean(&b2))).abs() < 1e-12);
    c.reduce = Some("difference_se".into());
    let se = |x: &[f64]| privpost::stats::mean_se(x).1;
    assert!((run(&c) - se(&a2).hypot(se(&b2))).abs() < 1e-12);
    c.statistic = Some("sd".into());
    let sd_se = |x: &[f64]| privpost::stats::sd_se(x);
    assert!((run(&c) - sd_se(&a2).1.hypot(sd_se(&b2).1)).abs() < 1e-12);
    c.reduce = Some("statistic".into());
    c.b = None;
    assert_eq!(run(&c), sd_se(&a2).0);
    c.reduce = Some("statistic_se".into());
    assert_eq!(run(&c), sd_se(&a2).1);
}

type Summary = (Vec<String>, Vec<Vec<String>>);

/// The folder of the run a claim reads: the paper's, or `figure@profile`.
fn folder(c: &Claim) -> String {
    match &c.profile {
        Some(p) => format!("{}@{p}", c.figure),
        None => c.figure.clone(),
    }
}

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
        let (header, rows) = match read_summary(&dir, &folder(&c), c.csv.as_deref()) {
            Ok(t) => t,
            Err(e) => {
                wrong.push(e);
                continue;
            }
        };
        // a paper-scale run (or the stated larger one), not a smoke one
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(folder(&c)).join("manifest.json")).unwrap(),
        )
        .unwrap();
        assert!(
            manifest["profile"].as_str() == c.profile.as_deref()
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
