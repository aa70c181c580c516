//! `privpost infer RELEASE.toml`: the posterior of a model's parameters given a
//! researcher's own private release, by data-augmentation MCMC
//! ([`crate::damcmc`]; Ju et al. 2022). Writes `<out>/infer/<stem>/`: the draws,
//! their summary, a trace and density figure, and a manifest; prints the summary.
//! Inference is post-processing of the release: it adds no privacy cost.

use std::path::{Path, PathBuf};

use super::{CommandError, Work};
use crate::api::{self, InferOptions, InferOutcome, ReleaseSource};

/// Posterior of a model's parameters from a private release (data-augmentation MCMC).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "RELEASE.toml names the model, its prior, n, the mechanism, its scale and the
released values (docs/infer.md has every key):

  model = \"dirichlet_categorical\"      # or beta_bernoulli, naive_bayes
  prior = { alpha = [1.0, 1.0, 1.0] }
  n = 30
  [release]
  mechanism = \"laplace\"   # laplace | gaussian | discrete_laplace | discrete_gaussian
  scale = 2.0             # Laplace b, or Gaussian sigma
  values = [12.7, 9.1, 8.4]

Or a figure's manifest (its folder, or its manifest.json) and --release NAME: a release
the figure recorded (the ju2022 figures record each of theirs as epsilon=E/repeat=R).

Writes <out>/infer/<stem>/: draws.csv (chain, draw, one column per parameter), summary.csv
(mean, sd, quantiles, R-hat, bulk and tail ESS), figure.png/.svg (traces and densities) and
manifest.json. Inference is post-processing of the release: no privacy cost is added."
)]
pub struct InferArgs {
    /// The release file (TOML), or a figure's folder or manifest.json that records releases.
    #[arg(
        value_name = "RELEASE.toml | MANIFEST",
        required_unless_present = "example"
    )]
    pub file: Option<PathBuf>,
    /// Run a release whose estimated work is above one core-hour (up to 30
    /// core-days); without it such a release is refused with the estimate.
    #[arg(long)]
    pub allow_long: bool,
    /// Print an example release file (the one docs/infer.md explains) and exit:
    /// `privpost infer --example > release.toml` gives one to edit, from any folder.
    #[arg(long, conflicts_with_all = ["release"])]
    pub example: bool,
    /// With a manifest: the name of the recorded release to use.
    #[arg(long, value_name = "NAME")]
    pub release: Option<String>,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    #[command(flatten)]
    pub work: Work,
}

impl InferArgs {
    /// The release file or manifest (empty with `--example`, which needs none).
    pub fn file(&self) -> &Path {
        self.file.as_deref().unwrap_or(Path::new(""))
    }
}

/// The example release file (docs/examples/release.toml), carried by the binary.
pub const EXAMPLE: &str = include_str!("../../docs/examples/release.toml");

pub fn infer(args: InferArgs) -> Result<(), CommandError> {
    if args.example {
        crate::outln!("{}", EXAMPLE.trim_end());
        return Ok(());
    }
    infer_from(args)
}

/// `privpost infer`: read and check the release, say what will run, sample,
/// write the folder, print the summary and the warnings.
fn infer_from(args: InferArgs) -> Result<(), CommandError> {
    let source = if api::infer::is_manifest(args.file()) {
        ReleaseSource::Recorded {
            manifest: args.file().to_path_buf(),
            name: args.release.clone(),
        }
    } else if let Some(name) = &args.release {
        return Err(CommandError::input(format!(
            "--release {name}: only with a figure's manifest (allowed: a figure folder or its manifest.json as the file)"
        )));
    } else {
        ReleaseSource::File {
            path: args.file().to_path_buf(),
            name: None,
        }
    };
    let prepared = api::prepare(&source)?;
    let inf = &prepared.inference;
    let options = InferOptions {
        out: args.out.clone(),
        jobs: args.work.jobs,
        allow_long: args.allow_long,
    };
    api::infer::check(&prepared, &options)?;
    if !args.work.quiet {
        errln!(
            "infer: {} chains × ({} warm-up + {} draws), {} kernel, n = {}",
            inf.settings.chains,
            inf.settings.warmup,
            inf.settings.draws,
            inf.kernel_name(),
            inf.model.n()
        );
    }
    // the command is stopped by its signal; nothing sets this
    let never = std::sync::atomic::AtomicBool::new(false);
    let outcome = api::infer(&prepared, &options, &never)?;
    print_summary(&outcome)?;
    for w in &outcome.warnings {
        errln!("warning: {}", w.message);
    }
    if !args.work.quiet {
        errln!("wrote {}", outcome.folder.display());
    }
    Ok(())
}

fn print_summary(outcome: &InferOutcome) -> Result<(), CommandError> {
    let (summary, bound) = (&outcome.summary, outcome.acceptance_bound);
    crate::outln!(
        "{:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9}",
        "parameter",
        "mean",
        "sd",
        "5%",
        "50%",
        "95%",
        "R-hat",
        "ESS bulk",
        "ESS tail"
    );
    let opt =
        |x: Option<f64>, digits: usize| x.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    for s in summary {
        crate::outln!(
            "{:<10} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>7} {:>9} {:>9}",
            s.parameter,
            s.mean,
            s.sd,
            s.q05,
            s.q50,
            s.q95,
            opt(s.rhat, 3),
            opt(s.ess_bulk, 0),
            opt(s.ess_tail, 0)
        );
    }
    if outcome.kernel == "gibbs" {
        crate::outln!(
            "records: each record's true value drawn from its full conditional (Gibbs, no accept/reject); the release: randomized response, ε = {:.4}",
            outcome.release_epsilon.unwrap_or(f64::NAN)
        );
        return Ok(());
    }
    let bound_text = bound.map_or(
        "no e^-eps bound (Gaussian noise is not pure DP)".to_string(),
        |b| {
            let shown = if b < 1e-3 {
                format!("{b:.2e}")
            } else {
                format!("{b:.4}")
            };
            format!("bound e^-eps = {shown}, eps = L1 sensitivity / b")
        },
    );
    crate::outln!(
        "record acceptance {:.4} ({bound_text}); proposals that change the statistic accepted: {:.4}",
        outcome.acceptance,
        outcome.move_rate
    );
    Ok(())
}
