//! The floating-point attack on the textbook Laplace mechanism (Mironov, CCS
//! 2012), as an audit: given an output y of c + Laplace(b) computed in doubles,
//! decide whether a neighbouring count c′ could have produced *exactly* that
//! double. Where it could not, the output identifies the input: the privacy loss
//! on that output is infinite, whatever ε the mechanism claims.
//!
//! privpost's float sampler ([`Laplace::sample`]) draws v = k·2⁻⁵³ (k uniform
//! below 2⁵³, `rand`'s f64), sets u = v − ½ and returns −b·sgn(u)·ln1p(−2|u|);
//! the release is fl(c + noise). Both steps are non-decreasing in k, so the
//! smallest k whose release reaches y is found by bisection over the 2⁵³ grid,
//! and y is reachable iff some k near it gives y exactly. A window of ±64 grid
//! points around the bisection's answer guards against a log1p that is not
//! perfectly monotone in its last bit.

use super::laplace::Laplace;

/// 2⁵³: the number of uniform doubles `rand` draws from.
const GRID: u64 = 1 << 53;

/// Half-width of the window checked around the bisection's answer.
const WINDOW: u64 = 64;

/// The float release of count `c` when the uniform draw is k·2⁻⁵³.
fn release(lap: &Laplace, c: f64, k: u64) -> f64 {
    c + lap.noise_at(k as f64 * (1.0 / GRID as f64))
}

/// Whether some uniform draw makes the float release of `c` equal `y` exactly.
pub fn reachable(lap: &Laplace, c: f64, y: f64) -> bool {
    // smallest k with release(k) ≥ y (release is non-decreasing in k)
    let (mut lo, mut hi) = (0u64, GRID);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if release(lap, c, mid) < y {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let from = lo.saturating_sub(WINDOW);
    let to = (lo + WINDOW).min(GRID - 1);
    (from..=to).any(|k| release(lap, c, k) == y)
}

/// Of `outputs` released from count `c`, how many no uniform draw could
/// produce from the neighbouring count `c2` (each identifies c).
pub fn identifying(lap: &Laplace, c2: f64, outputs: &[f64]) -> usize {
    outputs.iter().filter(|&&y| !reachable(lap, c2, y)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Every output is reachable from the count that produced it (the search
    /// finds the draw), and a large share is not reachable from the neighbour:
    /// Mironov's observation for this sampler.
    #[test]
    fn float_laplace_outputs_identify_their_input() {
        let lap = Laplace::for_privacy(2.0, 1.0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let outputs: Vec<f64> = (0..2000).map(|_| 5.0 + lap.sample(&mut rng)).collect();
        assert_eq!(identifying(&lap, 5.0, &outputs), 0);
        let share = identifying(&lap, 4.0, &outputs) as f64 / outputs.len() as f64;
        assert!(share > 0.2, "only {share} of outputs identify the input");
    }

    /// The bisection against a brute-force scan of 2·10⁵ grid points around the
    /// analytic inverse of the noise (−b·sgn(u)·ln(1 − 2|u|) = x ⇒ |u| =
    /// (1 − e^{−|x|/b})/2), for outputs of both counts checked against count 4.
    #[test]
    fn bisection_agrees_with_a_brute_force_scan() {
        let lap = Laplace::for_privacy(2.0, 1.0).unwrap();
        let b = lap.scale();
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let (mut reached, mut missed) = (0, 0);
        for i in 0..300 {
            let c = if i % 2 == 0 { 5.0 } else { 4.0 };
            let y = c + lap.sample(&mut rng);
            let x = y - 4.0;
            let u = 0.5 * (1.0 - (-x.abs() / b).exp()) * x.signum();
            let k0 = ((u + 0.5) * GRID as f64) as i64;
            let brute = (k0 - 100_000..=k0 + 100_000)
                .filter(|&k| (0..GRID as i64).contains(&k))
                .any(|k| release(&lap, 4.0, k as u64) == y);
            assert_eq!(reachable(&lap, 4.0, y), brute, "y = {y:e}");
            if brute {
                reached += 1
            } else {
                missed += 1
            }
        }
        // outputs of count 4 are all reachable from it; many of count 5 are not
        assert!(
            reached >= 150 && missed > 0,
            "{reached} reached, {missed} missed"
        );
    }
}
