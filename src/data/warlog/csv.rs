//! The war-log CSV reader and writer (schema in the parent module's docs).

use std::collections::BTreeSet;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::MAX_MONTHS;
use crate::hmm::{Record, FEATURES};

/// A parsed CSV file.
#[derive(Debug, Clone)]
pub struct CsvRecords {
    pub records: Vec<Record>,
    pub regions: Vec<String>,
    pub months: usize,
    pub first_month: String,
    pub types: Vec<String>,
    pub categories: Vec<String>,
    pub ignored_columns: Vec<String>,
    pub sha256: String,
}

impl CsvRecords {
    pub fn cards(&self) -> Vec<usize> {
        vec![self.types.len(), self.categories.len(), 2, 2, 2]
    }
}

/// The columns of the CSV schema, in the order `write_csv` uses.
pub const COLUMNS: [&str; 7] = [
    "region",
    "month",
    "type",
    "category",
    "friendly_or_hostnation_casualty",
    "civilian_casualty",
    "enemy_casualty_or_detained",
];

/// How many malformed rows an error lists before summarising.
const MAX_LISTED: usize = 10;

#[derive(Clone, Copy, PartialEq)]
enum MonthForm {
    Index,
    YearMonth,
}

fn parse_month(s: &str) -> Option<(MonthForm, i64)> {
    if let Ok(i) = s.parse::<i64>() {
        return (i >= 0).then_some((MonthForm::Index, i));
    }
    let (y, m) = s.split_once('-')?;
    if y.len() != 4 || m.len() != 2 {
        return None;
    }
    let (y, m) = (y.parse::<i64>().ok()?, m.parse::<i64>().ok()?);
    ((1..=12).contains(&m) && y >= 1000).then_some((MonthForm::YearMonth, y * 12 + m - 1))
}

fn parse_count(s: &str) -> Option<usize> {
    s.parse::<u64>().ok().map(|c| usize::from(c > 0))
}

/// Sorted distinct values in natural order: runs of digits compare as numbers
/// ("category 2" < "category 10", "2" < "10"), the rest as text.
fn vocabulary(values: BTreeSet<String>) -> Vec<String> {
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Part {
        Num(u128, usize),
        Text(String),
    }
    fn key(s: &str) -> Vec<Part> {
        let mut parts = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            let digits = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            if digits > 0 {
                let (d, r) = rest.split_at(digits);
                // numeric value first, then length so that "02" and "2" stay distinct
                parts.push(Part::Num(d.parse().unwrap_or(u128::MAX), d.len()));
                rest = r;
            } else {
                let text = rest
                    .find(|c: char| c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let (t, r) = rest.split_at(text);
                parts.push(Part::Text(t.to_string()));
                rest = r;
            }
        }
        parts
    }
    let mut v: Vec<String> = values.into_iter().collect();
    v.sort_by_cached_key(|s| key(s));
    v
}

/// Reads and checks a war-log CSV file (schema in the module docs). Every malformed
/// row is reported with its line number (the first ten listed, then a count). With
/// `types` / `categories` given, those are the features' domains, in that order, and a
/// value outside them is a malformed row; otherwise the domains are the values seen.
pub fn read_csv(
    path: &Path,
    types: Option<&[String]>,
    categories: Option<&[String]>,
) -> Result<CsvRecords, String> {
    let bytes =
        crate::input::read_input(path, crate::input::MAX_TABLE_BYTES).map_err(|e| e.to_string())?;
    let sha256 = format!("{:x}", Sha256::digest(&bytes));
    let file = path.display().to_string();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes.as_slice());
    let header = reader
        .headers()
        .map_err(|e| format!("{file}: line 1: {e}"))?
        .clone();
    debug_assert_eq!(&COLUMNS[2..], &FEATURES[..]);
    let mut index = [0usize; 7];
    for (slot, name) in index.iter_mut().zip(COLUMNS) {
        let found: Vec<usize> = header
            .iter()
            .enumerate()
            .filter(|(_, h)| *h == name)
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [i] => *slot = *i,
            [] => return Err(format!("{file}: line 1: the header has no column `{name}`")),
            _ => return Err(format!("{file}: line 1: column `{name}` appears twice")),
        }
    }
    let ignored_columns: Vec<String> = header
        .iter()
        .filter(|h| !COLUMNS.contains(h))
        .map(str::to_string)
        .collect();
    // first pass: check every row, collect raw values
    struct Raw {
        region: String,
        month: i64,
        type_: String,
        category: String,
        casualties: [usize; 3],
    }
    let mut raws = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut bad_rows = 0usize;
    let mut form: Option<(MonthForm, u64)> = None;
    for result in reader.records() {
        let rec = match result {
            Ok(r) => r,
            Err(e) => {
                bad_rows += 1;
                let line = e.position().map_or(0, |p| p.line());
                problems.push(format!("line {line}: {e}"));
                continue;
            }
        };
        let line = rec.position().map_or(0, |p| p.line());
        if rec.len() != header.len() {
            bad_rows += 1;
            problems.push(format!(
                "line {line}: {} fields, the header has {}",
                rec.len(),
                header.len()
            ));
            continue;
        }
        let field = |c: usize| rec.get(index[c]).unwrap_or("");
        let mut errs: Vec<String> = Vec::new();
        for (c, name) in [(0, "region"), (2, "type"), (3, "category")] {
            if field(c).is_empty() {
                errs.push(format!("empty `{name}`"));
            }
        }
        for (c, name, domain) in [(2, "type", types), (3, "category", categories)] {
            if let Some(d) = domain {
                if !field(c).is_empty() && !d.iter().any(|x| x == field(c)) {
                    errs.push(format!("`{name}` \"{}\" is not in {name}_values", field(c)));
                }
            }
        }
        let month = match parse_month(field(1)) {
            None => {
                errs.push(format!(
                    "`month` \"{}\" is neither YYYY-MM nor an index ≥ 0",
                    field(1)
                ));
                0
            }
            Some((f, m)) => {
                match form {
                    None => form = Some((f, line)),
                    Some((g, first)) if g != f => errs.push(format!(
                        "`month` \"{}\" mixes forms: line {first} used {}",
                        field(1),
                        if g == MonthForm::Index {
                            "an index"
                        } else {
                            "YYYY-MM"
                        }
                    )),
                    _ => {}
                }
                m
            }
        };
        let mut casualties = [0usize; 3];
        for (j, slot) in casualties.iter_mut().enumerate() {
            match parse_count(field(4 + j)) {
                Some(v) => *slot = v,
                None => errs.push(format!(
                    "`{}` \"{}\" is not a count ≥ 0",
                    COLUMNS[4 + j],
                    field(4 + j)
                )),
            }
        }
        if errs.is_empty() {
            raws.push(Raw {
                region: field(0).to_string(),
                month,
                type_: field(2).to_string(),
                category: field(3).to_string(),
                casualties,
            });
        } else {
            bad_rows += 1;
            problems.push(format!("line {line}: {}", errs.join("; ")));
        }
    }
    if bad_rows > 0 {
        let listed = problems
            .iter()
            .take(MAX_LISTED)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ");
        let more = if bad_rows > MAX_LISTED {
            format!("\n  … and {} more malformed rows", bad_rows - MAX_LISTED)
        } else {
            String::new()
        };
        return Err(format!(
            "{file}: {bad_rows} malformed row(s), nothing was run:\n  {listed}{more}"
        ));
    }
    if raws.is_empty() {
        return Err(format!("{file}: no records after the header"));
    }
    let regions = vocabulary(raws.iter().map(|r| r.region.clone()).collect());
    let types = types.map_or_else(
        || vocabulary(raws.iter().map(|r| r.type_.clone()).collect()),
        <[String]>::to_vec,
    );
    let categories = categories.map_or_else(
        || vocabulary(raws.iter().map(|r| r.category.clone()).collect()),
        <[String]>::to_vec,
    );
    for (name, v) in [("type", &types), ("category", &categories)] {
        if v.len() < 2 {
            return Err(format!(
                "{file}: column `{name}` takes a single value ({:?}); the model needs at least 2",
                v.first().map_or("", |s| s.as_str())
            ));
        }
    }
    let lo = raws.iter().map(|r| r.month).min().unwrap_or(0);
    let hi = raws.iter().map(|r| r.month).max().unwrap_or(0);
    let months = (hi - lo + 1) as usize;
    if months > MAX_MONTHS {
        return Err(format!(
            "{file}: months span {months} (more than {MAX_MONTHS}); check the `month` column"
        ));
    }
    let first_month = match form {
        Some((MonthForm::YearMonth, _)) => format!("{:04}-{:02}", lo / 12, lo % 12 + 1),
        _ => lo.to_string(),
    };
    let index_of = |v: &[String]| -> std::collections::HashMap<String, usize> {
        v.iter().enumerate().map(|(i, x)| (x.clone(), i)).collect()
    };
    let (ri, ti, ci) = (index_of(&regions), index_of(&types), index_of(&categories));
    let records = raws
        .iter()
        .map(|r| Record {
            region: ri[&r.region],
            month: (r.month - lo) as usize,
            values: [
                ti[&r.type_],
                ci[&r.category],
                r.casualties[0],
                r.casualties[1],
                r.casualties[2],
            ],
        })
        .collect();
    Ok(CsvRecords {
        records,
        regions,
        months,
        first_month,
        types,
        categories,
        ignored_columns,
        sha256,
    })
}

/// Writes records in the CSV schema (months as YYYY-MM from `first_month`): the
/// generator's output can be saved and read back, and tests use it.
pub fn write_csv(
    path: &Path,
    records: &[Record],
    region_names: &[String],
    value_labels: &[Vec<String>],
    first_year: i64,
) -> std::io::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(COLUMNS)?;
    for r in records {
        let m = first_year * 12 + r.month as i64;
        w.write_record([
            region_names[r.region].clone(),
            format!("{:04}-{:02}", m / 12, m % 12 + 1),
            value_labels[0][r.values[0]].clone(),
            value_labels[1][r.values[1]].clone(),
            r.values[2].to_string(),
            r.values[3].to_string(),
            r.values[4].to_string(),
        ])?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::warlog::DataSpec;
    use rand::SeedableRng;

    fn write(text: &str) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        f
    }

    const HEADER: &str = "region,month,type,category,friendly_or_hostnation_casualty,civilian_casualty,enemy_casualty_or_detained\n";

    #[test]
    fn csv_rows_become_records() {
        let f = write(&format!(
            "{HEADER}RC-EAST,2004-03,Enemy Action,Direct Fire,0,2,0\n\
             RC-EAST,2004-01,Friendly Action,Cache Found,1,0,5\n\
             RC-SOUTH, 2004-03 ,Enemy Action,IED Explosion,0,0,0\n"
        ));
        let c = read_csv(f.path(), None, None).unwrap();
        assert_eq!(c.regions, vec!["RC-EAST", "RC-SOUTH"]);
        assert_eq!(c.types, vec!["Enemy Action", "Friendly Action"]);
        assert_eq!(
            c.categories,
            vec!["Cache Found", "Direct Fire", "IED Explosion"]
        );
        assert_eq!((c.months, c.first_month.as_str()), (3, "2004-01"));
        assert_eq!(
            c.records[0],
            Record {
                region: 0,
                month: 2,
                values: [0, 1, 0, 1, 0]
            }
        );
        assert_eq!(c.records[1].values, [1, 0, 1, 0, 1]);
        assert_eq!(c.records[2].region, 1);
        // extra columns are ignored, column order is free, numbers sort naturally
        let f = write(
            "month,notes,region,type,category,civilian_casualty,friendly_or_hostnation_casualty,enemy_casualty_or_detained\n\
             5,x,A,10,1,0,0,0\n7,y,A,2,1,0,0,0\n5,z,B,2,3,0,0,0\n",
        );
        let c = read_csv(f.path(), None, None).unwrap();
        assert_eq!(c.ignored_columns, vec!["notes"]);
        assert_eq!(c.types, vec!["2", "10"]);
        let v = vocabulary(
            ["category 10", "category 2", "b", "a1", "a01", "-3"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        assert_eq!(v, vec!["-3", "a1", "a01", "b", "category 2", "category 10"]);
        assert_eq!((c.months, c.first_month.as_str()), (3, "5"));
        assert_eq!(c.records[1].month, 2);
    }

    #[test]
    fn malformed_rows_are_reported_with_line_numbers() {
        let f = write(&format!(
            "{HEADER}A,2004-01,t1,c1,0,0,0\n\
             A,2004-13,t1,c1,0,0,0\n\
             ,2004-02,t2,c1,0,0,0\n\
             A,2004-02,t2,c1,-1,0,x\n\
             A,2004-02,t2\n\
             A,7,t2,c1,0,0,0\n"
        ));
        let e = read_csv(f.path(), None, None).unwrap_err();
        assert!(e.contains("5 malformed row(s)"), "{e}");
        for needle in [
            "line 3: `month` \"2004-13\"",
            "line 4: empty `region`",
            "line 5: `friendly_or_hostnation_casualty` \"-1\"",
            "`enemy_casualty_or_detained` \"x\"",
            "line 6: 3 fields, the header has 7",
            "line 7: `month` \"7\" mixes forms: line 2 used YYYY-MM",
        ] {
            assert!(e.contains(needle), "missing {needle:?} in {e}");
        }
        let many: String = (0..25).map(|_| "A,bad,t,c,0,0,0\n").collect();
        let e = read_csv(write(&format!("{HEADER}{many}")).path(), None, None).unwrap_err();
        assert!(
            e.contains("25 malformed") && e.contains("… and 15 more"),
            "{e}"
        );
        let e = read_csv(write("region,month,type\nA,1,t\n").path(), None, None).unwrap_err();
        assert!(
            e.contains("line 1: the header has no column `category`"),
            "{e}"
        );
        let e = read_csv(
            write(&format!("{HEADER}A,1,t,c,0,0,0\nA,2,t,d,0,0,0\n")).path(),
            None,
            None,
        )
        .unwrap_err();
        assert!(e.contains("column `type` takes a single value"), "{e}");
        assert!(read_csv(Path::new("/nonexistent/x.csv"), None, None).is_err());
    }

    /// Fixed domains keep unseen values (K_d does not depend on the data) and turn
    /// values outside them into malformed rows.
    #[test]
    fn configured_domains_fix_the_cardinalities() {
        let f = write(&format!(
            "{HEADER}A,2004-01,t1,c1,0,0,0\nA,2004-02,t2,c1,0,0,0\n"
        ));
        let dom = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (t, c) = (dom(&["t2", "t1", "t3"]), dom(&["c1", "c2"]));
        let r = read_csv(f.path(), Some(&t), Some(&c)).unwrap();
        assert_eq!((r.cards(), &r.types), (vec![3, 2, 2, 2, 2], &t));
        assert_eq!(r.records[0].values[0], 1);
        let e = read_csv(f.path(), Some(&dom(&["t1", "t9"])), None).unwrap_err();
        assert!(
            e.contains("line 3: `type` \"t2\" is not in type_values"),
            "{e}"
        );
        let spec = |values: Vec<String>| DataSpec {
            source: Some(crate::data::warlog::Source::Csv),
            path: Some(f.path().display().to_string()),
            min_region_events: Some(1),
            type_values: Some(values),
            category_values: Some(c.clone()),
            ..DataSpec::default()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        assert_eq!(
            spec(dom(&["t1", "t1"]))
                .load("data", &mut rng)
                .unwrap_err()
                .key,
            "data.type_values"
        );
        assert_eq!(spec(t).load("data", &mut rng).unwrap().data.cards[0], 3);
        let e = DataSpec {
            category_values: Some(c),
            ..DataSpec::preset("iraq")
        }
        .load("data", &mut rng)
        .unwrap_err();
        assert_eq!(e.key, "data.category_values");
    }
}
