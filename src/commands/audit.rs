//! `privpost audit`: runs the `audit/mechanisms` figure (every mechanism's claim
//! against its exact or sampled privacy loss on worst-case neighbours, and the
//! broken variants that must fail), prints the audit table and exits 1 unless every
//! real mechanism passed and every broken variant failed.

use std::path::PathBuf;

use super::batch::{self, RunArgs};
use super::CommandError;
use crate::experiments::audit::{self, DEFS};
use crate::plan::did_you_mean;
use crate::plan::Selection;
use crate::results::table::Table;

/// The figure id the command runs.
pub const FIGURE: &str = crate::experiments::AUDIT_FIGURE;

/// Audit privacy claims: exact or statistical privacy loss on worst-case neighbours.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each audit computes the privacy loss of one release on worst-case neighbouring datasets:
exactly (quadrature or enumeration of both output distributions) where they are known, else from
seeded draws scored by the exact log-likelihood ratio (Clopper–Pearson ε_lcb; Rényi divergence with
an interval for RDP claims). FAIL iff the audited value exceeds the claim. Broken variants (half-scale
Laplace, untruncated OPS, uniform Barker noise, DP-SGLD noise variance h) must FAIL.

Writes <out>/audit/mechanisms/: summary.csv (the audit table), data.csv, figure.png/.svg,
manifest.json, scores-<audit>-<method>-<variant>.csv (label 1 = drawn on D, 0 = on D′) for
external auditors, and audit-tradeoff.csv/.png/.svg (each statistical audit's threshold tests as
points on its claimed trade-off curve, Clopper–Pearson bounds, μ-GDP lower bound). Exit 0: every
real mechanism passed (no point below its claimed curve) and every broken variant failed; 1
otherwise."
)]
pub struct AuditArgs {
    /// Audit ids (default: all); `--list` names them.
    #[arg(value_name = "AUDIT")]
    pub audits: Vec<String>,
    /// The config's [profile.smoke]: fewer draws, seconds to run (the CI check).
    #[arg(long)]
    pub smoke: bool,
    /// Skip the deliberately broken variants.
    #[arg(long)]
    pub no_broken: bool,
    /// Draws per neighbour of the statistical audits (1000 to 10^7; default: the config's).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub draws: Option<u64>,
    /// List the audits and exit.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub work: super::Work,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Folder holding configs/audit/mechanisms.toml.
    #[arg(long = "configs", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Audit your own mechanism instead: a CSV with columns `label` (1 = output drawn
    /// on D, 0 = on D′) and `score` (the output, or any statistic of it; high
    /// suggesting D), e.g. a scores-*.csv file of the built-in audit. Needs --claim.
    #[arg(long, value_name = "FILE.csv", requires = "claim")]
    pub samples: Option<PathBuf>,
    /// With --samples: the claim, `epsilon=E` (pure), `epsilon=E,delta=D`, or
    /// `epsilon=E,order=A` (Rényi DP; needs --log-ratio).
    #[arg(long, value_name = "CLAIM", requires = "samples")]
    pub claim: Option<String>,
    /// With --samples: `score` is the exact log density ratio ln p(x)/p′(x) of each
    /// output, which the Rényi estimator of an RDP claim needs. A ratio of +inf on D
    /// (or −inf on D′) makes the divergence infinite; a pure claim also fails when any
    /// draw's |ratio| exceeds ε.
    #[arg(long, requires = "samples")]
    pub log_ratio: bool,
    /// With --samples: the joint confidence level of the bounds.
    #[arg(long, default_value_t = 0.95, requires = "samples")]
    pub confidence: f64,
    /// With --samples: print one JSON object.
    #[arg(long, requires = "samples")]
    pub json: bool,
    /// With --samples: draw the claimed trade-off curve beside the observed points
    /// into DIR/audit-tradeoff.png and .svg (DIR must exist).
    #[arg(long, value_name = "DIR", requires = "samples")]
    pub plot: Option<PathBuf>,
}

pub fn audit(args: AuditArgs) -> Result<(), CommandError> {
    if let (Some(samples), Some(claim)) = (&args.samples, &args.claim) {
        return super::audit_samples::audit_samples(
            samples,
            claim,
            args.log_ratio,
            args.confidence,
            args.json,
            args.plot.as_deref(),
        );
    }
    let ids = audit::audit_ids();
    if args.list {
        for id in &ids {
            let defs: Vec<_> = DEFS.iter().filter(|d| d.id == *id).collect();
            let methods: Vec<&str> = defs.iter().map(|d| d.method.as_str()).collect();
            let mut broken: Vec<&str> = Vec::new();
            for b in defs.iter().flat_map(|d| d.broken.iter().copied()) {
                if !broken.contains(&b) {
                    broken.push(b);
                }
            }
            println!(
                "{id:<28} {:<12} {:<20} {}{}",
                defs[0].paper,
                methods.join("+"),
                defs[0].mechanism,
                if broken.is_empty() {
                    String::new()
                } else {
                    format!(" [broken: {}]", broken.join(", "))
                }
            );
        }
        return Ok(());
    }
    for a in &args.audits {
        if !ids.contains(&a.as_str()) {
            let hint = did_you_mean(a, ids.iter().copied())
                .map(|s| format!(" (did you mean {s}?)"))
                .unwrap_or_default();
            return Err(CommandError::input(format!(
                "audit {a:?} unknown{hint}; allowed values: {} (see privpost audit --list)",
                ids.join(", ")
            )));
        }
    }
    let mut set = Vec::new();
    if !args.audits.is_empty() {
        let quoted: Vec<String> = args.audits.iter().map(|a| format!("{a:?}")).collect();
        set.push(format!("audits=[{}]", quoted.join(",")));
    }
    if args.no_broken {
        set.push("broken=false".to_string());
    }
    if let Some(d) = args.draws {
        set.push(format!("draws={d}"));
    }
    let out = args.out.clone();
    let folders = batch::run_folders(RunArgs {
        selection: Selection {
            targets: vec![FIGURE.to_string()],
            all: false,
            smoke: args.smoke,
            profile: None,
            set,
            config_dir: args.config_dir,
        },
        work: args.work,
        out: out.clone(),
        keep_going: false,
        no_cache: false,
        shard: None,
        allow_long: false,
    })?;
    // a subset, --no-broken or --draws runs into `mechanisms@…`, beside the full audit
    let folder = folders
        .into_iter()
        .next()
        .unwrap_or_else(|| out.join(FIGURE));
    let path = folder.join("summary.csv");
    let t = Table::read_csv(&path).map_err(CommandError::failed)?;
    let points = folder.join(audit::TRADEOFF_FILE);
    let curve = if points.is_file() {
        Table::read_csv(&points).map_err(CommandError::failed)?
    } else {
        Table::new(&[], Vec::new())
    };
    report(&t, &curve).map_err(CommandError::Failed)
}

/// Prints the audit table and the sampled audits' trade-off points; an error naming
/// every audit whose verdict was not the expected one, and every real mechanism with
/// a point below its claimed curve.
fn report(t: &Table, curve: &Table) -> anyhow::Result<()> {
    let col = |n: &str| t.col(n);
    let (a, m, v, claim, ce, cd, order, au, ratio, verdict, ok) = (
        col("audit")?,
        col("method")?,
        col("variant")?,
        col("claim")?,
        col("claim_epsilon")?,
        col("claim_delta")?,
        col("order")?,
        col("audited_epsilon")?,
        col("epsilon_ratio")?,
        col("verdict")?,
        col("as_expected")?,
    );
    println!(
        "{:<28} {:<11} {:<14} {:<26} {:>12} {:>9} {:<8}",
        "audit", "method", "variant", "claim", "audited", "ratio", "verdict"
    );
    let mut wrong = Vec::new();
    for r in 0..t.rows.len() {
        let claim_text = match t.s(r, claim).as_str() {
            "rdp" => format!("RDP ε({}) = {:.4}", t.s(r, order), t.f(r, ce)),
            "approx" => format!("({:.4}, {:e})-DP", t.f(r, ce), t.f(r, cd)),
            _ => format!("{:.4}-DP", t.f(r, ce)),
        };
        let expected = if t.s(r, v) == "real" {
            ""
        } else {
            " (expected)"
        };
        println!(
            "{:<28} {:<11} {:<14} {:<26} {:>12.4} {:>9.3} {}{expected}",
            t.s(r, a),
            t.s(r, m),
            t.s(r, v),
            claim_text,
            t.f(r, au),
            t.f(r, ratio),
            t.s(r, verdict)
        );
        if t.s(r, ok) != "true" {
            wrong.push(format!(
                "{} {} {}: {}",
                t.s(r, a),
                t.s(r, m),
                t.s(r, v),
                t.s(r, verdict)
            ));
        }
    }
    let curves = if curve.header.is_empty() {
        Vec::new()
    } else {
        audit::audit_curves(curve)?
    };
    if !curves.is_empty() {
        println!(
            "trade-off curve (sampled audits; {}): threshold tests' Clopper–Pearson corners below the claimed curve, empirical μ-GDP lower bound",
            audit::TRADEOFF_FILE
        );
    }
    for c in &curves {
        let (below, n) = (c.below(), c.points.len());
        println!(
            "  {:<28} {:<14} {below:>3} of {n:<3} below   μ ≥ {:.4}",
            c.audit,
            c.variant,
            c.mu_lower()
        );
        if c.variant == "real" && below > 0 {
            wrong.push(format!(
                "{} statistical real: {below} trade-off points below the claimed curve",
                c.audit
            ));
        }
    }
    if wrong.is_empty() {
        println!("every real mechanism passed; every broken variant failed");
        Ok(())
    } else {
        anyhow::bail!(
            "{} audit(s) not as expected (a real mechanism failing, or a broken one passing): {}",
            wrong.len(),
            wrong.join("; ")
        )
    }
}
