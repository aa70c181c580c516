//! Scores against a known truth (the synthetic generator's planted model): the
//! adjusted Rand index of state assignments, the best matching of estimated to
//! true states, and total-variation distances of emission distributions.

/// Adjusted Rand index of two labelings (Hubert & Arabie 1985), from the
/// contingency table: (Σ C(n_ij,2) − E)/(½(Σ C(a_i,2) + Σ C(b_j,2)) − E) with
/// E = Σ C(a_i,2)·Σ C(b_j,2)/C(n,2). 1 for identical partitions (up to relabelling),
/// ≈ 0 for independent ones. When both partitions are trivial (one block each, or
/// all singletons) the ratio is 0/0 and the value is 1, as in scikit-learn.
pub fn adjusted_rand_index(a: &[usize], b: &[usize]) -> f64 {
    assert_eq!(a.len(), b.len(), "labelings of different lengths");
    let n = a.len();
    let ka = a.iter().max().map_or(0, |m| m + 1);
    let kb = b.iter().max().map_or(0, |m| m + 1);
    let mut table = vec![vec![0u64; kb]; ka];
    for (&x, &y) in a.iter().zip(b) {
        table[x][y] += 1;
    }
    let c2 = |m: u64| (m * m.saturating_sub(1)) as f64 / 2.0;
    let index: f64 = table.iter().flatten().map(|&m| c2(m)).sum();
    let rows: f64 = table.iter().map(|r| c2(r.iter().sum())).sum();
    let cols: f64 = (0..kb).map(|j| c2(table.iter().map(|r| r[j]).sum())).sum();
    let expected = rows * cols / c2(n as u64).max(1.0);
    let max = 0.5 * (rows + cols);
    if max == expected {
        return 1.0;
    }
    (index - expected) / (max - expected)
}

/// The injective map true state → estimated state that maximises the number of cells
/// on which they agree (`confusion[t][e]` = cells with true state t and estimate e),
/// by exhaustive search; `None` for a true state left unmatched when there are
/// fewer estimated states. Ties go to the lexicographically first map.
pub fn best_matching(confusion: &[Vec<usize>]) -> Vec<Option<usize>> {
    let kt = confusion.len();
    let ke = confusion.first().map_or(0, Vec::len);
    assert!(
        kt <= 8 && ke <= 12,
        "exhaustive matching is for small models"
    );
    fn go(
        t: usize,
        c: &[Vec<usize>],
        used: &mut Vec<bool>,
        cur: &mut Vec<Option<usize>>,
        score: usize,
        best: &mut (usize, Vec<Option<usize>>, bool),
    ) {
        if t == c.len() {
            if !best.2 || score > best.0 {
                *best = (score, cur.clone(), true);
            }
            return;
        }
        let free = used.iter().filter(|u| !**u).count();
        let remaining = c.len() - t;
        for e in 0..used.len() {
            if !used[e] {
                used[e] = true;
                cur.push(Some(e));
                go(t + 1, c, used, cur, score + c[t][e], best);
                cur.pop();
                used[e] = false;
            }
        }
        // leave t unmatched only when there are not enough estimated states
        if free < remaining {
            cur.push(None);
            go(t + 1, c, used, cur, score, best);
            cur.pop();
        }
    }
    let mut best = (0, Vec::new(), false);
    go(
        0,
        confusion,
        &mut vec![false; ke],
        &mut Vec::new(),
        0,
        &mut best,
    );
    best.1
}

/// Confusion counts between true and estimated labels.
pub fn confusion(truth: &[usize], estimate: &[usize], kt: usize, ke: usize) -> Vec<Vec<usize>> {
    let mut c = vec![vec![0usize; ke]; kt];
    for (&t, &e) in truth.iter().zip(estimate) {
        c[t][e] += 1;
    }
    c
}

/// Total variation ½ Σ |p − q|.
pub fn total_variation(p: &[f64], q: &[f64]) -> f64 {
    0.5 * p.iter().zip(q).map(|(a, b)| (a - b).abs()).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second method: count agreeing and disagreeing pairs directly, then
    /// ARI = 2(n00·n11 − n01·n10)/((n00 + n01)(n01 + n11) + (n00 + n10)(n10 + n11)).
    fn ari_by_pairs(a: &[usize], b: &[usize]) -> f64 {
        let (mut n11, mut n10, mut n01, mut n00) = (0f64, 0f64, 0f64, 0f64);
        for i in 0..a.len() {
            for j in i + 1..a.len() {
                match (a[i] == a[j], b[i] == b[j]) {
                    (true, true) => n11 += 1.0,
                    (true, false) => n10 += 1.0,
                    (false, true) => n01 += 1.0,
                    (false, false) => n00 += 1.0,
                }
            }
        }
        let den = (n00 + n01) * (n01 + n11) + (n00 + n10) * (n10 + n11);
        if den == 0.0 {
            1.0
        } else {
            2.0 * (n00 * n11 - n01 * n10) / den
        }
    }

    #[test]
    fn ari_matches_pair_counting_and_known_values() {
        // scikit-learn's documented example: adjusted_rand_score([0,0,1,1],[0,0,1,2]) = 0.5714…
        assert!((adjusted_rand_index(&[0, 0, 1, 1], &[0, 0, 1, 2]) - 4.0 / 7.0).abs() < 1e-12);
        assert_eq!(adjusted_rand_index(&[0, 0, 1, 1], &[1, 1, 0, 0]), 1.0);
        assert_eq!(adjusted_rand_index(&[0, 0, 0, 0], &[0, 1, 2, 3]), 0.0);
        assert_eq!(adjusted_rand_index(&[0, 0, 0], &[1, 1, 1]), 1.0);
        // pseudo-random labelings of many shapes
        let mut x: u64 = 12345;
        let mut next = |m: usize| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) as usize) % m
        };
        for n in [2usize, 5, 17, 60] {
            for (ka, kb) in [(2, 2), (3, 5), (1, 4), (6, 2)] {
                let a: Vec<usize> = (0..n).map(|_| next(ka)).collect();
                let mut b: Vec<usize> = (0..n).map(|_| next(kb)).collect();
                // make some agree
                for i in (0..n).step_by(3) {
                    b[i] = a[i] % kb;
                }
                let (f, g) = (adjusted_rand_index(&a, &b), ari_by_pairs(&a, &b));
                assert!((f - g).abs() < 1e-12, "n {n} ({ka},{kb}): {f} vs {g}");
                assert!((f - adjusted_rand_index(&b, &a)).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn matching_maximises_agreement() {
        let truth = [0, 0, 0, 1, 1, 2, 2, 2];
        let est = [2, 2, 1, 0, 0, 1, 1, 1];
        let c = confusion(&truth, &est, 3, 3);
        assert_eq!(best_matching(&c), vec![Some(2), Some(0), Some(1)]);
        // more estimated states than true ones
        let c = confusion(&[0, 0, 1, 1], &[3, 3, 1, 1], 2, 4);
        assert_eq!(best_matching(&c), vec![Some(3), Some(1)]);
        // fewer: one true state stays unmatched
        let c = confusion(&[0, 0, 1, 2, 2, 2], &[0, 0, 0, 1, 1, 1], 3, 2);
        assert_eq!(best_matching(&c), vec![Some(0), None, Some(1)]);
        // brute force over all permutations agrees on random tables
        let mut x: u64 = 7;
        for _ in 0..50 {
            let c: Vec<Vec<usize>> = (0..4)
                .map(|_| {
                    (0..4)
                        .map(|_| {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                            ((x >> 40) % 20) as usize
                        })
                        .collect()
                })
                .collect();
            let m = best_matching(&c);
            let score: usize = m.iter().enumerate().map(|(t, e)| c[t][e.unwrap()]).sum();
            let mut best = 0;
            for p in permutations(4) {
                best = best.max((0..4).map(|t| c[t][p[t]]).sum());
            }
            assert_eq!(score, best);
        }
        assert!((total_variation(&[0.5, 0.5], &[1.0, 0.0]) - 0.5).abs() < 1e-15);
    }

    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for i in 0..n {
                let mut q = p.clone();
                q.insert(i, n - 1);
                out.push(q);
            }
        }
        out
    }
}
