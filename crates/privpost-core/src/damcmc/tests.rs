//! The engine against exact posteriors: privpost's noise-aware mixtures
//! (`expfam::noise_aware*`) for the Laplace releases, and the brute-force sum
//! over count vectors p(c | release) ∝ DirMult(c | n, α) Π_k η(z_k | c_k) for
//! the Gaussian ones — both kernels, clamped and unclamped, continuous and
//! discrete noise. Agreement is judged by Monte Carlo error from the chains' own
//! ESS; a noise-ignoring posterior fails the same check (the check has power).

#![cfg(test)]

use statrs::function::beta::ln_beta;
use statrs::function::factorial::ln_binomial;

use super::exact::naive_bayes_exact;
use super::models::{Categorical, Counts};
use super::*;
use crate::expfam::beta::BetaDist;
use crate::expfam::noise_aware::{self, BetaMixture, CountLaw};
use crate::expfam::noise_aware_dirichlet::{CountsRelease, DirichletMixture};

fn settings(kernel: Kernel, seed: u64) -> Settings {
    Settings {
        warmup: 500,
        draws: 4000,
        chains: 4,
        kernel,
        seed,
    }
}

/// x with F(x) = p, by bisection.
fn quantile(m: &BetaMixture, p: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if m.cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// How far `chains` of θ are from the exact law, in Monte Carlo standard errors:
/// the mean (s.e. sd/√ESS) and the CDF at the exact 10 %, 50 % and 90 %
/// quantiles (s.e. √(F(1 − F)/ESS)), ESS the smaller of bulk and tail.
fn z_scores(chains: &[Vec<f64>], exact: &BetaMixture) -> Vec<f64> {
    let diag = crate::stats::diagnostics::rank_diagnostics(chains).unwrap();
    assert!(diag.rhat.unwrap() < 1.01, "R̂ {:?}", diag.rhat);
    let ess = diag.ess_bulk.min(diag.ess_tail);
    assert!(ess > 400.0, "ESS {ess}");
    let pooled: Vec<f64> = chains.iter().flatten().copied().collect();
    let n = pooled.len() as f64;
    let mean = pooled.iter().sum::<f64>() / n;
    let sd = (pooled.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    let mut z = vec![(mean - exact.mean()) / (sd / ess.sqrt())];
    for p in [0.1, 0.5, 0.9] {
        let x = quantile(exact, p);
        let f = pooled.iter().filter(|&&v| v <= x).count() as f64 / n;
        z.push((f - p) / (p * (1.0 - p) / ess).sqrt());
    }
    z
}

/// Within 4.5 standard errors everywhere (each check fails by chance with
/// probability below 1e-5 under a correct sampler).
fn assert_close(chains: &[Vec<f64>], exact: &BetaMixture, what: &str) {
    let z = z_scores(chains, exact);
    assert!(z.iter().all(|v| v.abs() < 4.5), "{what}: z = {z:?}");
}

/// The Beta mixture over s = 0..n with weights ∝ BetaBinomial(s) · e^{ln_eta(s)}.
fn beta_brute_force(a: f64, b: f64, n: u64, ln_eta: impl Fn(f64) -> f64) -> BetaMixture {
    let nf = n as f64;
    let ln_w: Vec<f64> = (0..=n)
        .map(|s| {
            let sf = s as f64;
            ln_binomial(n, s) + ln_beta(a + sf, b + nf - sf) + ln_eta(sf)
        })
        .collect();
    let top = ln_w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    BetaMixture::from_components(
        (0..=n)
            .map(|s| {
                (
                    (ln_w[s as usize] - top).exp(),
                    a + s as f64,
                    b + nf - s as f64,
                )
            })
            .collect(),
    )
}

fn run(model: &Categorical, release: &Release, kernel: Kernel, seed: u64) -> Draws {
    sample(model, release, &settings(kernel, seed)).unwrap()
}

#[test]
fn beta_bernoulli_matches_the_exact_noise_aware_posteriors() {
    let (a, b, n) = (2.0, 3.0, 30u64);
    let prior = BetaDist::new(a, b).unwrap();
    // Foulds eq. (16): both counts, Laplace b = 4 (ε = 0.5), clamped at 0; the
    // negatives fell on the clamp
    let foulds = (
        vec![11.3, 0.0],
        noise_aware::Release::FouldsCounts {
            positives: 11.3,
            negatives: 0.0,
        },
    );
    // Bernstein & Sheldon: the positives alone, unclamped, Laplace b = 2
    let one = (vec![9.6], noise_aware::Release::OneCount { y: 9.6 });
    let cases = [
        (
            "laplace",
            4.0,
            Counts::All,
            Clamp::NON_NEGATIVE,
            foulds.clone(),
        ),
        (
            "discrete_laplace",
            4.0,
            Counts::All,
            Clamp::NON_NEGATIVE,
            (
                vec![12.0, 0.0],
                noise_aware::Release::FouldsCounts {
                    positives: 12.0,
                    negatives: 0.0,
                },
            ),
        ),
        ("laplace", 2.0, Counts::Free, Clamp::NONE, one),
    ];
    for (seed, (mech, scale, counts, clamp, (values, oracle_release))) in
        cases.into_iter().enumerate()
    {
        let law = match mech {
            "laplace" => CountLaw::Laplace { scale },
            _ => CountLaw::DiscreteLaplace { scale },
        };
        let exact = BetaMixture::exact(&prior, n, oracle_release, &law).unwrap();
        let model = Categorical::beta_bernoulli(a, b, n as usize, counts).unwrap();
        let release = Release::new(
            values.clone(),
            Noise::new(mech, scale).unwrap(),
            clamp,
            model.statistic_len(),
        )
        .unwrap();
        for kernel in [Kernel::RecordWise, Kernel::Soma] {
            let draws = run(&model, &release, kernel, seed as u64);
            assert_close(
                &draws.parameter(0),
                &exact,
                &format!("{mech} {counts:?} {kernel:?}"),
            );
            if let Some(bound) = acceptance_bound(&release.noise, model.l1_sensitivity()) {
                if kernel == Kernel::RecordWise {
                    assert!(
                        draws.acceptance() >= bound,
                        "{mech}: {} < {bound}",
                        draws.acceptance()
                    );
                }
            }
        }
        // the check has power: the posterior that takes the noisy counts as
        // real ones is far from the exact one
        let naive = match counts {
            Counts::All => BetaMixture::from_components(vec![(1.0, a + values[0], b + values[1])]),
            Counts::Free => {
                BetaMixture::from_components(vec![(1.0, a + values[0], b + n as f64 - values[0])])
            }
        };
        let draws = run(&model, &release, Kernel::RecordWise, seed as u64);
        let z = z_scores(&draws.parameter(0), &naive);
        assert!(z.iter().any(|v| v.abs() > 4.5), "{mech}: naive z = {z:?}");
    }
}

#[test]
fn beta_bernoulli_matches_brute_force_for_gaussian_releases() {
    let (a, b, n) = (1.5, 1.5, 25u64);
    let sigma: f64 = 3.0;
    // both counts, unclamped Gaussian; the positives alone, discrete Gaussian
    let model = Categorical::beta_bernoulli(a, b, n as usize, Counts::All).unwrap();
    let release = Release::new(
        vec![14.2, 17.5],
        Noise::new("gaussian", sigma).unwrap(),
        Clamp::NONE,
        2,
    )
    .unwrap();
    let exact = beta_brute_force(a, b, n, |s| {
        -((14.2 - s).powi(2) + (17.5 - (n as f64 - s)).powi(2)) / (2.0 * sigma * sigma)
    });
    let free = Categorical::beta_bernoulli(a, b, n as usize, Counts::Free).unwrap();
    let discrete = Release::new(
        vec![7.0],
        Noise::new("discrete_gaussian", 2.5).unwrap(),
        Clamp::NONE,
        1,
    )
    .unwrap();
    let exact_discrete = beta_brute_force(a, b, n, |s| -((7.0 - s).powi(2)) / (2.0 * 2.5 * 2.5));
    for kernel in [Kernel::RecordWise, Kernel::Soma] {
        assert_close(
            &run(&model, &release, kernel, 11).parameter(0),
            &exact,
            &format!("gaussian {kernel:?}"),
        );
        assert_close(
            &run(&free, &discrete, kernel, 12).parameter(0),
            &exact_discrete,
            &format!("discrete gaussian {kernel:?}"),
        );
    }
}

/// The marginal of coordinate j of Σ_c w_c Dirichlet(α + c): Σ_c w_c Beta(α_j + c_j, A + n − α_j − c_j).
fn dirichlet_brute_force_marginal(
    alpha: &[f64; 3],
    n: u32,
    j: usize,
    ln_eta: impl Fn(&[f64; 3]) -> f64,
) -> BetaMixture {
    let total: f64 = alpha.iter().sum::<f64>() + n as f64;
    let mut comps = Vec::new();
    let mut ln_w = Vec::new();
    for c0 in 0..=n {
        for c1 in 0..=n - c0 {
            let c = [c0 as f64, c1 as f64, (n - c0 - c1) as f64];
            // DirMult(c | n, α) up to constants: Π Γ(α_k + c_k)/c_k!
            let lw: f64 = (0..3)
                .map(|k| {
                    statrs::function::gamma::ln_gamma(alpha[k] + c[k])
                        - statrs::function::gamma::ln_gamma(c[k] + 1.0)
                })
                .sum::<f64>()
                + ln_eta(&c);
            ln_w.push(lw);
            comps.push((alpha[j] + c[j], total - alpha[j] - c[j]));
        }
    }
    let top = ln_w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    BetaMixture::from_components(
        ln_w.iter()
            .zip(comps)
            .map(|(lw, (p, q))| ((lw - top).exp(), p, q))
            .collect(),
    )
}

#[test]
fn dirichlet_categorical_matches_the_exact_noise_aware_posteriors() {
    let alpha = [1.0, 2.0, 1.5];
    let n = 20u32;
    // Foulds: all counts, Laplace b = 2, clamped (the middle count on the clamp)
    let model = Categorical::dirichlet(alpha.to_vec(), n as usize, Counts::All).unwrap();
    let values = vec![8.2, 0.0, 9.7];
    let release = Release::new(
        values.clone(),
        Noise::new("laplace", 2.0).unwrap(),
        Clamp::NON_NEGATIVE,
        3,
    )
    .unwrap();
    let exact = DirichletMixture::exact(
        &alpha,
        n as u64,
        &CountsRelease::Foulds(values),
        &CountLaw::Laplace { scale: 2.0 },
    )
    .unwrap();
    // free counts, discrete Laplace b = 1.5, unclamped
    let free = Categorical::dirichlet(alpha.to_vec(), n as usize, Counts::Free).unwrap();
    let free_values = vec![6.0, 9.0];
    let free_release = Release::new(
        free_values.clone(),
        Noise::new("discrete_laplace", 1.5).unwrap(),
        Clamp::NONE,
        2,
    )
    .unwrap();
    let free_exact = DirichletMixture::exact(
        &alpha,
        n as u64,
        &CountsRelease::Free(free_values),
        &CountLaw::DiscreteLaplace { scale: 1.5 },
    )
    .unwrap();
    // all counts, Gaussian σ = 2, unclamped: brute force
    let gauss_values = [5.5, 3.1, 12.9];
    let gauss = Release::new(
        gauss_values.to_vec(),
        Noise::new("gaussian", 2.0).unwrap(),
        Clamp::NONE,
        3,
    )
    .unwrap();
    for kernel in [Kernel::RecordWise, Kernel::Soma] {
        let d = run(&model, &release, kernel, 21);
        let f = run(&free, &free_release, kernel, 22);
        let g = run(&model, &gauss, kernel, 23);
        for j in 0..3 {
            assert_close(
                &d.parameter(j),
                &exact.marginal(j),
                &format!("foulds θ{j} {kernel:?}"),
            );
            assert_close(
                &f.parameter(j),
                &free_exact.marginal(j),
                &format!("free θ{j} {kernel:?}"),
            );
            let brute = dirichlet_brute_force_marginal(&alpha, n, j, |c| {
                -(0..3)
                    .map(|k| (gauss_values[k] - c[k]).powi(2))
                    .sum::<f64>()
                    / 8.0
            });
            assert_close(
                &g.parameter(j),
                &brute,
                &format!("gaussian θ{j} {kernel:?}"),
            );
        }
    }
    // the brute force agrees with the exact mixture where both apply
    let brute = dirichlet_brute_force_marginal(&alpha, n, 0, |c| {
        let law = CountLaw::Laplace { scale: 2.0 };
        law.ln_clamped(8.2, c[0]) + law.ln_clamped(0.0, c[1]) + law.ln_clamped(9.7, c[2])
    });
    for x in [0.2, 0.35, 0.5] {
        assert!((brute.cdf(x) - exact.marginal(0).cdf(x)).abs() < 1e-9);
    }
}

/// Same seed, same draws, whatever the number of threads.
#[test]
fn draws_do_not_depend_on_the_thread_count() {
    let model = Categorical::dirichlet(vec![1.0, 1.0, 1.0], 15, Counts::All).unwrap();
    let release = Release::new(
        vec![4.0, 6.5, 3.0],
        Noise::new("laplace", 1.0).unwrap(),
        Clamp::NON_NEGATIVE,
        3,
    )
    .unwrap();
    for kernel in [Kernel::RecordWise, Kernel::Soma] {
        let s = Settings {
            warmup: 10,
            draws: 50,
            chains: 3,
            kernel,
            seed: 5,
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let three = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let a = one.install(|| sample(&model, &release, &s).unwrap());
        let b = three.install(|| sample(&model, &release, &s).unwrap());
        assert_eq!(a, b);
        let c = sample(&model, &release, &Settings { seed: 6, ..s }).unwrap();
        assert_ne!(a.chains, c.chains);
    }
}

#[test]
fn a_release_no_proposal_can_reach_stops_with_the_numbers() {
    // a release at (5, 5) with Laplace scale 0.001: warm-up walks the counts to
    // (5, 5), after which a change of either count costs e^{−1000}
    let model = Categorical::beta_bernoulli(1.0, 1.0, 10, Counts::All).unwrap();
    let release = Release::new(
        vec![5.0, 5.0],
        Noise::new("laplace", 0.001).unwrap(),
        Clamp::NONE,
        2,
    )
    .unwrap();
    let s = Settings {
        warmup: 50,
        draws: 100,
        chains: 2,
        kernel: Kernel::RecordWise,
        seed: 1,
    };
    match sample(&model, &release, &s).and_then(|d| d.check_mixing()) {
        Err(e @ DaError::NoMixing { rate, proposals }) => {
            assert_eq!(rate, 0.0);
            assert!(proposals > 500, "{proposals}");
            assert!(e.to_string().contains("cannot mix"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let zero = Settings { draws: 0, ..s };
    assert!(matches!(
        sample(&model, &release, &zero),
        Err(DaError::Setting { key: "draws", .. })
    ));
    let wrong = Release::new(
        vec![3.0],
        Noise::new("laplace", 1.0).unwrap(),
        Clamp::NONE,
        1,
    )
    .unwrap();
    assert!(matches!(
        sample(&model, &wrong, &s),
        Err(DaError::Release(_))
    ));
}

#[test]
fn merge_sums_each_coordinate_once_and_drops_zeros() {
    let mut d = vec![(2, 1.0), (0, -1.0), (2, 1.0), (0, 1.0), (5, 0.5)];
    merge(&mut d);
    d.sort_by_key(|a| a.0);
    assert_eq!(d, [(2, 2.0), (5, 0.5)]);
}

/// Ju et al.'s naive-Bayes model against the exact posterior by brute force: I = 2
/// classes, K = 2 binary features, n = 4 records (8 kinds of record, 330 count
/// vectors, [`naive_bayes_exact`]).
#[test]
fn naive_bayes_matches_brute_force() {
    use super::models::NaiveBayes;
    let alpha = vec![1.0, 2.0];
    let beta = vec![
        vec![vec![1.0, 1.0], vec![2.0, 0.5]],
        vec![vec![0.7, 1.3], vec![1.0, 1.0]],
    ];
    let n = 4usize;
    let model = NaiveBayes::new(alpha.clone(), beta.clone(), n).unwrap();
    assert_eq!(model.l1_sensitivity(), 4.0);
    let values = vec![1.3, 0.2, 2.1, 0.6, 0.9, 1.7, -0.4, 1.8];
    let b = 4.0; // 2K/ε at ε = 1
    let release = Release::new(
        values.clone(),
        Noise::new("laplace", b).unwrap(),
        Clamp::NONE,
        8,
    )
    .unwrap();
    let names = model.parameter_names();
    let exact = naive_bayes_exact(&alpha, &beta, n, &release);
    for kernel in [Kernel::RecordWise, Kernel::Soma] {
        let draws = sample(&model, &release, &settings(kernel, 31)).unwrap();
        for (p, name) in names.iter().enumerate() {
            let chains = draws.parameter(p);
            let diag = crate::stats::diagnostics::rank_diagnostics(&chains).unwrap();
            let pooled: Vec<f64> = chains.iter().flatten().copied().collect();
            let mean = pooled.iter().sum::<f64>() / pooled.len() as f64;
            let sd = (pooled.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / pooled.len() as f64)
                .sqrt();
            let z = (mean - exact[p]) / (sd / diag.ess_bulk.sqrt());
            assert!(
                z.abs() < 4.5,
                "{kernel:?} {name}: {mean} vs exact {} (z = {z})",
                exact[p]
            );
        }
    }
}

/// Ju et al.'s linear regression from noisy sufficient statistics against
/// self-normalised importance sampling from the prior (β and the records from
/// the model, weighted by the release's density): n = 3 records, one covariate,
/// Laplace noise of scale 0.2 on the 6 released values. An independent estimate
/// of the same posterior means, far from the prior's (the check has power).
#[test]
fn linear_regression_matches_importance_sampling() {
    use super::models::LinearRegression;
    use rand::SeedableRng;
    let model = LinearRegression::new(
        vec![0.5],
        vec![vec![1.0]],
        (0.5, 1.0),
        ((-2.0, 3.0), (-3.0, 3.0)),
        3,
    )
    .unwrap();
    assert_eq!(model.statistic_len(), 6);
    assert_eq!(model.l1_sensitivity(), 8.0);
    // the release of a dataset drawn at β = (0.3, 0.8), plus Laplace(0.2) noise
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let truth = vec![0.3, 0.8];
    let data: Vec<Vec<f64>> = (0..3)
        .map(|_| model.draw_record(&truth, &mut rng))
        .collect();
    let mut stat = [0.0; 6];
    let mut buf = Vec::new();
    for r in &data {
        buf.clear();
        model.contribution(r, &mut buf);
        for &(k, v) in &buf {
            stat[k] += v;
        }
    }
    let noise = Noise::new("laplace", 0.2).unwrap();
    let values: Vec<f64> = stat
        .iter()
        .map(|s| {
            let u: f64 = rng.random::<f64>() - 0.5;
            s - 0.2 * u.signum() * (1.0 - 2.0 * u.abs()).ln()
        })
        .collect();
    let release = Release::new(values, noise, Clamp::NONE, 6).unwrap();
    // importance sampling: 10⁶ draws of (β, records) from the model
    let draws = 1_000_000;
    let (mut sw, mut sw2) = (0.0, 0.0);
    let (mut m, mut m2) = ([0.0f64; 2], [0.0f64; 2]);
    let mut lw = Vec::with_capacity(draws);
    let mut betas = Vec::with_capacity(draws);
    for _ in 0..draws {
        let beta = model.draw_prior(&mut rng);
        let mut s = vec![0.0; 6];
        for _ in 0..3 {
            let r = model.draw_record(&beta, &mut rng);
            buf.clear();
            model.contribution(&r, &mut buf);
            for &(k, v) in &buf {
                s[k] += v;
            }
        }
        lw.push(release.ln_density(&s));
        betas.push(beta);
    }
    let top = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (l, b) in lw.iter().zip(&betas) {
        let w = (l - top).exp();
        sw += w;
        sw2 += w * w;
        for j in 0..2 {
            m[j] += w * b[j];
            m2[j] += w * b[j] * b[j];
        }
    }
    let ess_is = sw * sw / sw2;
    assert!(ess_is > 2000.0, "importance ESS {ess_is}");
    // the release moves the posterior far from the prior N(0, 1): the check has power
    let moved = (0..2).any(|j| {
        let mean = m[j] / sw;
        mean.abs() / ((m2[j] / sw - mean * mean).sqrt() / ess_is.sqrt()) > 20.0
    });
    assert!(moved, "{:?}", [m[0] / sw, m[1] / sw]);
    for kernel in [Kernel::RecordWise, Kernel::Soma] {
        let d = sample(&model, &release, &settings(kernel, 41)).unwrap();
        for j in 0..2 {
            let mean_is = m[j] / sw;
            let sd = (m2[j] / sw - mean_is * mean_is).sqrt();
            let se_is = sd / ess_is.sqrt();
            let chains = d.parameter(j);
            let diag = crate::stats::diagnostics::rank_diagnostics(&chains).unwrap();
            let pooled: Vec<f64> = chains.iter().flatten().copied().collect();
            let mean = pooled.iter().sum::<f64>() / pooled.len() as f64;
            let se = sd / diag.ess_bulk.sqrt();
            let z = (mean - mean_is) / (se * se + se_is * se_is).sqrt();
            assert!(
                z.abs() < 4.5,
                "{kernel:?} beta{j}: {mean} vs {mean_is} (z = {z}, ESS {})",
                diag.ess_bulk
            );
        }
    }
}

/// The regression statistic's L1 sensitivity: the closed form
/// 2(p + 1) + 1 + p + p(p + 1) (the sum of the coordinates' own sensitivities)
/// bounds the largest L1 distance between two records' contributions, found
/// over a grid of normalised values per coordinate; for p = 2 that search with
/// a Lipschitz margin also proves the true sensitivity below Ju et al.'s
/// Δ = 13 (so their scale 13/ε gives ε-DP; the closed form, 15, is
/// conservative): moving one record by h in every coordinate changes the L1
/// distance by at most 15h (the sum over coordinates of the largest partial
/// derivatives' absolute sums, 5 each), so the maximum is below the grid's
/// plus 2 · 15 · (half the spacing).
#[test]
fn regression_sensitivity_bounds() {
    use super::models::LinearRegression;
    for (p, m) in [(1usize, 41usize), (2, 21), (3, 7)] {
        let model = LinearRegression::new(
            vec![0.0; p],
            (0..p)
                .map(|i| (0..p).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
                .collect(),
            (1.0, 1.0),
            ((-10.0, 10.0), (-4.0, 6.0)),
            1,
        )
        .unwrap();
        let grid: Vec<f64> = (0..m)
            .map(|i| -1.0 + 2.0 * i as f64 / (m - 1) as f64)
            .collect();
        let raw = |v: f64, (lo, hi): (f64, f64)| lo + (v + 1.0) * (hi - lo) / 2.0;
        let mut stats = Vec::new();
        for code in 0..m.pow(p as u32 + 1) {
            let mut c = code;
            let mut r = Vec::with_capacity(p + 1);
            for j in 0..=p {
                let v = grid[c % m];
                c /= m;
                r.push(if j < p {
                    raw(v, (-10.0, 10.0))
                } else {
                    raw(v, (-4.0, 6.0))
                });
            }
            let mut out = Vec::new();
            model.contribution(&r, &mut out);
            let mut dense = vec![0.0; model.statistic_len()];
            for (k, x) in out {
                dense[k] += x;
            }
            stats.push(dense);
        }
        let mut most = 0.0f64;
        for a in &stats {
            for b in &stats {
                most = most.max(a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum());
            }
        }
        assert!(
            most <= model.l1_sensitivity() + 1e-12,
            "p = {p}: grid {most} above the closed form {}",
            model.l1_sensitivity()
        );
        if p == 2 {
            assert_eq!(model.l1_sensitivity(), 15.0);
            let margin = 2.0 * 15.0 * (1.0 / (m - 1) as f64);
            assert!((most - 9.37).abs() < 0.01, "grid maximum {most}");
            assert!(most + margin < 13.0, "{most} + {margin}");
        }
    }
}
