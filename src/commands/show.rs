//! `privpost show FIGURE_FOLDER`: a figure's summary (or any of its tables) in the
//! terminal as an aligned table — the audit's style — with the privacy ledger's
//! claim beside each row, or the same table as CSV, JSON or Markdown.
//!
//! A row's claim is read from the manifest's ledger (`privacy`): an entry belongs
//! to the row when every `key=value` of its series label whose key is a column of
//! the table has the row's value there (numbers compared as numbers), and at
//! least one key is such a column. The row shows the distinct claims of its
//! entries (`Guarantee::short_text`), a `*` marking a claim whose entry lists
//! conditions (when it holds: at convergence, once per fresh dataset, …; they
//! are in the manifest); a row no entry belongs to shows none.

use std::path::{Path, PathBuf};

use crate::numeric::sig;
use crate::outln;
use crate::privacy::event::Guarantee;
use crate::privacy::ledger::Entry;
use crate::results::manifest::Manifest;
use crate::results::table::{parse_f64, Cell, Table};
use crate::term::visible;

use super::CommandError;

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for the terminal, numbers to 6 significant digits.
    Table,
    /// The table's CSV with the `privacy` column added (values as written).
    Csv,
    /// `{figure, table, columns, rows}`, each row an object (numbers as numbers).
    Json,
    /// A Markdown table (numbers to 6 significant digits).
    Markdown,
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  privpost show results/foulds2016/fig6\n  privpost show results/foulds2016/fig6 --format markdown\n  privpost show results/calibration/dirichlet --table coverage --format csv"
)]
pub struct ShowArgs {
    /// A figure's output folder (as `privpost run` writes it), or its manifest.json.
    pub folder: PathBuf,
    /// table (aligned, for the terminal), csv, json or markdown.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Which table: `summary`, `data`, or a side table's name (its CSV file
    /// without `.csv`, e.g. `coverage`).
    #[arg(long, default_value = "summary")]
    pub table: String,
}

/// `privpost show`.
pub fn show(args: ShowArgs) -> Result<(), CommandError> {
    let (folder, manifest) = read_folder(&args.folder)?;
    let mut table = read_table(&folder, &args.table)?;
    let ledger = &manifest.privacy;
    let claims: Vec<String> = (0..table.rows.len())
        .map(|r| visible(&row_claims(&table, r, ledger)))
        .collect();
    // what a file says is shown, never obeyed: no cell, column or name reaches the
    // terminal with a control sequence in it, in any format
    for h in &mut table.header {
        *h = visible(h);
    }
    for cell in table.rows.iter_mut().flatten() {
        if let Cell::Str(s) = cell {
            *s = visible(s);
        }
    }
    let figure = visible(&manifest.figure);
    match args.format {
        Format::Table => print_aligned(&figure, &args.table, &table, &claims, ledger),
        Format::Markdown => print_markdown(&table, &claims),
        Format::Csv => print_csv(&table, &claims),
        Format::Json => print_json(&figure, &args.table, &table, &claims),
    }
}

/// The figure folder and its manifest: `path` is the folder or its manifest.json.
fn read_folder(path: &Path) -> Result<(PathBuf, Manifest), CommandError> {
    let (folder, file) = if path.is_dir() {
        (path.to_path_buf(), path.join("manifest.json"))
    } else if path.file_name().is_some_and(|n| n == "manifest.json") {
        let folder = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        (folder, path.to_path_buf())
    } else {
        return Err(CommandError::input(format!(
            "{}: not a figure folder (allowed: the folder `privpost run` wrote for a figure, e.g. results/foulds2016/fig6, or its manifest.json){}",
            path.display(),
            suggest(path)
        )));
    };
    if !file.is_file() {
        return Err(CommandError::input(format!(
            "{}: not a figure folder: no manifest.json (allowed: the folder `privpost run` wrote for a figure, e.g. results/foulds2016/fig6){}",
            folder.display(),
            suggest(&folder)
        )));
    }
    let manifest = Manifest::read(&file).map_err(CommandError::input)?;
    Ok((folder, manifest))
}

/// The figure folders near a wrong `path`, for the error: inside it (a paper's
/// folder such as results/foulds2016), beside it (a misspelt figure), or under
/// ./results; the closest name first when one is close.
fn suggest(path: &Path) -> String {
    let figures_in = |dir: &Path| -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().join("manifest.json").is_file())
            .map(|e| e.path().display().to_string())
            .collect();
        out.sort();
        out
    };
    let mut found = figures_in(path);
    if found.is_empty() {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            found = figures_in(parent);
        }
    }
    if found.is_empty() {
        let results = Path::new("results");
        found = std::fs::read_dir(results)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|e| figures_in(&e.path()))
            .collect();
        found.sort();
    }
    if found.is_empty() {
        return String::new();
    }
    let shown = path.display().to_string();
    let close = crate::plan::did_you_mean(&shown, found.iter().map(String::as_str));
    let list: Vec<&str> = found.iter().take(12).map(String::as_str).collect();
    let more = if found.len() > 12 {
        format!(", … ({} in all)", found.len())
    } else {
        String::new()
    };
    visible(&match close {
        Some(c) => format!(
            "; did you mean {c}? (figure folders: {}{more})",
            list.join(", ")
        ),
        None => format!("; figure folders: {}{more}", list.join(", ")),
    })
}

/// The CSV tables of a figure folder, by name (`summary`, `data`, side tables).
fn table_names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension().is_some_and(|x| x == "csv"))
                .then(|| p.file_stem()?.to_str().map(str::to_string))
                .flatten()
        })
        .collect();
    names.sort();
    names
}

fn read_table(folder: &Path, name: &str) -> Result<Table, CommandError> {
    let names = table_names(folder);
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid || !names.iter().any(|n| n == name) {
        return Err(CommandError::input(format!(
            "--table {name:?}: {} has no such table (allowed: {})",
            folder.display(),
            if names.is_empty() {
                "none: the folder holds no CSV table".to_string()
            } else {
                names.join(", ")
            }
        )));
    }
    let path = folder.join(format!("{name}.csv"));
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_TABLE_BYTES {
        return Err(CommandError::input(format!(
            "{}: {size} bytes (allowed: tables up to {} MB; read a larger one with a CSV reader)",
            path.display(),
            MAX_TABLE_BYTES >> 20
        )));
    }
    Table::read_csv(&path).map_err(|e| CommandError::input(e.0))
}

/// The largest table `show` reads.
const MAX_TABLE_BYTES: u64 = 256 << 20;

/// The `key=value` pairs of a series label (`panel=hmm:iraq, epsilon=0.5`).
fn label_pairs(series: &str) -> Vec<(&str, &str)> {
    series
        .split(", ")
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect()
}

/// Whether two cells are the same value: equal text, or equal numbers.
fn same_value(a: &str, b: &str) -> bool {
    a == b || matches!((parse_f64(a), parse_f64(b)), (Some(x), Some(y)) if x == y)
}

/// The distinct claims of the ledger entries that belong to row `r`.
fn row_claims(table: &Table, r: usize, ledger: &[Entry]) -> String {
    let mut out: Vec<String> = Vec::new();
    for e in ledger {
        let mut any = false;
        let fits = label_pairs(&e.series).iter().all(|(k, v)| {
            match table.header.iter().position(|h| h == k) {
                Some(c) => {
                    any = true;
                    same_value(&table.s(r, c), v)
                }
                None => true,
            }
        });
        if fits && any {
            let mut claim = e.guarantee.short_text();
            if !e.conditions.is_empty() && e.guarantee != Guarantee::None {
                claim.push('*');
            }
            if !out.contains(&claim) {
                out.push(claim);
            }
        }
    }
    out.join("; ")
}

/// A cell for display: a number to 6 significant digits, text as it is.
fn shown(cell: &str) -> String {
    match parse_f64(cell) {
        Some(x) if !cell.is_empty() && cell.parse::<i64>().is_err() => sig(x),
        _ => cell.to_string(),
    }
}

fn print_aligned(
    figure: &str,
    name: &str,
    table: &Table,
    claims: &[String],
    ledger: &[Entry],
) -> Result<(), CommandError> {
    let mut header: Vec<String> = table.header.clone();
    header.push("privacy".into());
    let rows: Vec<Vec<String>> = (0..table.rows.len())
        .map(|r| {
            let mut row: Vec<String> = (0..table.header.len())
                .map(|c| shown(&table.s(r, c)))
                .collect();
            row.push(claims[r].clone());
            row
        })
        .collect();
    let numeric: Vec<bool> = (0..header.len())
        .map(|c| {
            c < table.header.len()
                && rows
                    .iter()
                    .all(|r| r[c].is_empty() || parse_f64(&r[c]).is_some())
                && rows.iter().any(|r| !r[c].is_empty())
        })
        .collect();
    let width: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let pad = " ".repeat(width[c] - s.chars().count());
                if numeric[c] {
                    format!("{pad}{s}")
                } else if c + 1 == cells.len() {
                    s.clone()
                } else {
                    format!("{s}{pad}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    outln!("{figure} — {name}.csv, {} rows", rows.len());
    outln!("{}", line(&header));
    for r in &rows {
        outln!("{}", line(r));
    }
    if ledger.is_empty() {
        outln!("privacy: the manifest has no ledger");
    } else {
        let marked = claims.iter().any(|c| c.contains('*'));
        outln!(
            "privacy: the ledger's claim for each row ({} entries in manifest.json{}; `privpost account --manifest` re-verifies them)",
            ledger.len(),
            if marked {
                "; * the entry lists conditions for its claim there"
            } else {
                ""
            }
        );
    }
    Ok(())
}

fn print_markdown(table: &Table, claims: &[String]) -> Result<(), CommandError> {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut header: Vec<String> = table.header.iter().map(|h| esc(h)).collect();
    header.push("privacy".into());
    outln!("| {} |", header.join(" | "));
    outln!("|{}", "---|".repeat(header.len()));
    for (r, claim) in claims.iter().enumerate() {
        let mut row: Vec<String> = (0..table.header.len())
            .map(|c| esc(&shown(&table.s(r, c))))
            .collect();
        row.push(esc(claim));
        outln!("| {} |", row.join(" | "));
    }
    Ok(())
}

fn print_csv(table: &Table, claims: &[String]) -> Result<(), CommandError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let fail = |e: csv::Error| CommandError::failed(format!("cannot write CSV: {e}"));
    let mut header = table.header.clone();
    header.push("privacy".into());
    w.write_record(&header).map_err(fail)?;
    for (r, claim) in claims.iter().enumerate() {
        let mut row: Vec<String> = (0..table.header.len()).map(|c| table.s(r, c)).collect();
        row.push(claim.clone());
        w.write_record(&row).map_err(fail)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| CommandError::failed(format!("cannot write CSV: {e}")))?;
    let text = String::from_utf8_lossy(&bytes);
    outln!("{}", text.trim_end_matches('\n'));
    Ok(())
}

fn print_json(
    figure: &str,
    name: &str,
    table: &Table,
    claims: &[String],
) -> Result<(), CommandError> {
    let value = |s: String| -> serde_json::Value {
        match parse_f64(&s) {
            Some(x) if !s.is_empty() => serde_json::Number::from_f64(x)
                .map_or(serde_json::Value::String(s), serde_json::Value::Number),
            _ if s.is_empty() => serde_json::Value::Null,
            _ => serde_json::Value::String(s),
        }
    };
    let rows: Vec<serde_json::Value> = claims
        .iter()
        .enumerate()
        .map(|(r, claim)| {
            let mut o = serde_json::Map::new();
            for (c, h) in table.header.iter().enumerate() {
                o.insert(h.clone(), value(table.s(r, c)));
            }
            o.insert("privacy".into(), serde_json::Value::String(claim.clone()));
            serde_json::Value::Object(o)
        })
        .collect();
    let mut columns = table.header.clone();
    columns.push("privacy".into());
    let out = serde_json::json!({
        "figure": figure,
        "table": name,
        "columns": columns,
        "rows": rows,
    });
    outln!(
        "{}",
        serde_json::to_string_pretty(&out)
            .map_err(|e| CommandError::failed(format!("cannot write JSON: {e}")))?
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::event::Event;

    fn table() -> Table {
        let row = |cells: [&str; 4]| cells.iter().map(|&c| c.into()).collect();
        Table::new(
            &["dataset", "mechanism", "epsilon", "mean"],
            vec![
                row(["iraq", "laplace", "0.1", "-6.4"]),
                row(["iraq", "laplace", "1.0", "-5.7"]),
                row(["iraq", "non_private", "0.1", "-5.6"]),
            ],
        )
    }

    fn entry(series: &str, g: Guarantee, conditions: &[&str]) -> Entry {
        let mut e = Entry::new(series, Event::NonPrivate, g);
        e.conditions = conditions.iter().map(|s| s.to_string()).collect();
        e
    }

    /// A row takes the claims of the entries whose columns agree with it (numbers
    /// as numbers, keys that are not columns ignored), each distinct claim once,
    /// a conditional one marked; a row no entry names shows none.
    #[test]
    fn rows_take_the_claims_of_their_entries() {
        let t = table();
        let ledger = vec![
            entry(
                "panel=hmm:iraq, mechanism=laplace, epsilon=0.1",
                Guarantee::PureDp { epsilon: 0.1 },
                &[],
            ),
            entry(
                "panel=hmm:afghanistan, mechanism=laplace, epsilon=0.1",
                Guarantee::PureDp { epsilon: 0.1 },
                &[],
            ),
            entry(
                "panel=hmm:iraq, mechanism=laplace, epsilon=1",
                Guarantee::PureDp { epsilon: 1.0 },
                &["only at convergence"],
            ),
            entry("unrelated=1", Guarantee::PureDp { epsilon: 9.0 }, &[]),
        ];
        assert_eq!(row_claims(&t, 0, &ledger), "ε = 0.1");
        assert_eq!(row_claims(&t, 1, &ledger), "ε = 1*");
        assert_eq!(row_claims(&t, 2, &ledger), "");
        assert!(same_value("1", "1.0") && !same_value("0.1", "0.10000001"));
        assert_eq!(shown("-5.57132996570942"), "-5.57133");
        assert_eq!(shown("10"), "10");
        assert_eq!(shown("laplace"), "laplace");
    }
}
