//! Brute-force exact posteriors of small data-augmentation cases, for tests
//! here and in the harness (feature `testutil`): the reference a kernel, or a
//! published kernel, is checked against.

use super::Release;

/// The exact posterior means of every parameter of a naive-Bayes model with
/// I = 2 classes and K = 2 binary features, by brute force over the count
/// vectors of the 8 kinds of record: Σ_c w_c E[θ | c] with w_c the prior
/// predictive of the kinds' counts c times the release's density at c's tables.
pub fn naive_bayes_exact(
    alpha: &[f64],
    beta: &[Vec<Vec<f64>>],
    n: usize,
    release: &Release,
) -> Vec<f64> {
    use super::models::NaiveBayes;
    use super::AugmentedModel;
    use statrs::function::gamma::ln_gamma;
    let model = NaiveBayes::new(alpha.to_vec(), beta.to_vec(), n).unwrap();
    assert_eq!(model.statistic_len(), 8);
    // the kinds (class, answer 1, answer 2) and their counts c
    let kinds: Vec<[usize; 3]> = (0..8).map(|t| [t >> 2, (t >> 1) & 1, t & 1]).collect();
    let ln_seq = |prior: &[f64], counts: &[f64]| -> f64 {
        let a: f64 = prior.iter().sum();
        let m: f64 = counts.iter().sum();
        ln_gamma(a) - ln_gamma(a + m)
            + prior
                .iter()
                .zip(counts)
                .map(|(p, c)| ln_gamma(p + c) - ln_gamma(*p))
                .sum::<f64>()
    };
    let mut ln_w = Vec::new();
    let mut means: Vec<Vec<f64>> = Vec::new();
    let mut c = [0usize; 8];
    fn next(c: &mut [usize; 8], n: usize) -> bool {
        // the next composition of n into 8 parts, in lexicographic order
        loop {
            let mut i = 7;
            loop {
                c[i] += 1;
                if c.iter().sum::<usize>() <= n {
                    break;
                }
                c[i] = 0;
                if i == 0 {
                    return false;
                }
                i -= 1;
            }
            if c.iter().sum::<usize>() == n {
                return true;
            }
        }
    }
    c[7] = n;
    loop {
        let mut class = [0.0; 2];
        let mut tables = vec![vec![vec![0.0; 2]; 2]; 2]; // [k][i][j]
        let mut ln_multi = ln_gamma(n as f64 + 1.0);
        for (t, &ct) in c.iter().enumerate() {
            let [i, a1, a2] = kinds[t];
            class[i] += ct as f64;
            tables[0][i][a1] += ct as f64;
            tables[1][i][a2] += ct as f64;
            ln_multi -= ln_gamma(ct as f64 + 1.0);
        }
        let mut lw = ln_multi + ln_seq(alpha, &class);
        for k in 0..2 {
            for i in 0..2 {
                lw += ln_seq(&beta[k][i], &tables[k][i]);
            }
        }
        let mut stat = vec![0.0; 8];
        for k in 0..2 {
            for i in 0..2 {
                for j in 0..2 {
                    stat[model.cell(k, i, j)] = tables[k][i][j];
                }
            }
        }
        lw += release.ln_density(&stat);
        ln_w.push(lw);
        let total_a: f64 = alpha.iter().sum::<f64>() + n as f64;
        let mut m: Vec<f64> = (0..2).map(|i| (alpha[i] + class[i]) / total_a).collect();
        for k in 0..2 {
            for i in 0..2 {
                let bsum: f64 = beta[k][i].iter().sum::<f64>() + class[i];
                for j in 0..2 {
                    m.push((beta[k][i][j] + tables[k][i][j]) / bsum);
                }
            }
        }
        means.push(m);
        if !next(&mut c, n) {
            break;
        }
    }
    // every composition of n into 8 parts: C(n + 7, 7) (330 for n = 4)
    let compositions = (1..=7).fold(1usize, |acc, k| acc * (n + k) / k);
    assert_eq!(ln_w.len(), compositions);
    let top = ln_w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = ln_w.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = w.iter().sum();
    (0..model.parameter_names().len())
        .map(|p| w.iter().zip(&means).map(|(wc, m)| wc * m[p]).sum::<f64>() / total)
        .collect()
}
