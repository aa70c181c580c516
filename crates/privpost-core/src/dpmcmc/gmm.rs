//! The 2-d Gaussian-mixture problem of heikkila2019 §4 (Welling & Teh 2011,
//! Seita et al. 2017): θⱼ ~ N(0, σⱼ²), σ₁² = 10, σ₂² = 1;
//! xᵢ ~ ½ N(θ₁, σ_x²) + ½ N(θ₁ + θ₂, σ_x²), σ_x² = 2; data generated at θ = (0, 1).
//! The target is the tempered posterior p(θ) Πᵢ p(xᵢ | θ)^τ with τ = N₀/N.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Normal};

use super::model::{ClippedSums, RecordModel};
use crate::numeric::vmath;

pub const PRIOR_VAR: [f64; 2] = [10.0, 1.0];
pub const NOISE_VAR: f64 = 2.0;
pub const TRUE_THETA: [f64; 2] = [0.0, 1.0];

/// ln p(x | θ) for one observation.
#[inline]
pub fn log_lik(x: f64, theta: [f64; 2]) -> f64 {
    let (a, b) = exponents(x, theta);
    // ln(½e^a + ½e^b) = max(a, b) + ln(1 + e^{−|a−b|}) − ln 2: one exp, one ln_1p
    a.max(b) + vmath::ln1p_exp_neg((a - b).abs())
        - std::f64::consts::LN_2
        - 0.5 * (2.0 * std::f64::consts::PI * NOISE_VAR).ln()
}

/// The two components' exponents −(x − μₖ)²/(2σ_x²).
#[inline(always)]
fn exponents(x: f64, theta: [f64; 2]) -> (f64, f64) {
    let (d1, d2) = (x - theta[0], x - theta[0] - theta[1]);
    (
        -(d1 * d1) / (2.0 * NOISE_VAR),
        -(d2 * d2) / (2.0 * NOISE_VAR),
    )
}

/// ln p(x | θ) without the constant −ln 2 − ½ln(2πσ_x²), which cancels in ratios.
#[inline(always)]
fn log_lik_shape(x: f64, theta: [f64; 2]) -> f64 {
    let (a, b) = exponents(x, theta);
    a.max(b) + vmath::ln1p_exp_neg((a - b).abs())
}

/// Elements staged together in [`ratios_inner`]: 2·16 independent exp/ln1p chains
/// in flight (8 AVX2 vectors) instead of two, which is what bounds the polynomials.
const GROUP: usize = 16;

/// Calls `emit(rᵢ)` for every ratio rᵢ = `log_lik_shape(xᵢ, to) − log_lik_shape(xᵢ,
/// from)` in the order of `xs`, each with the same scalar operations: the staging over
/// groups only reorders independent elements, so the bits do not depend on it (tested
/// against the element-wise loop). A serial consumer (the in-order sums of the DP-MCMC
/// test) overlaps with the next group's polynomials.
#[inline(always)]
fn ratios_staged(xs: &[f64], from: [f64; 2], to: [f64; 2], mut emit: impl FnMut(f64)) {
    let full = xs.len() / GROUP * GROUP;
    for xc in xs[..full].as_chunks::<GROUP>().0 {
        // [0, GROUP): θ′ = to, [GROUP, 2·GROUP): θ = from
        let (mut top, mut gap) = ([0.0; 2 * GROUP], [0.0; 2 * GROUP]);
        for k in 0..GROUP {
            let (a, b) = exponents(xc[k], to);
            (top[k], gap[k]) = (a.max(b), (a - b).abs());
            let (a, b) = exponents(xc[k], from);
            (top[GROUP + k], gap[GROUP + k]) = (a.max(b), (a - b).abs());
        }
        let mut e = [0.0; 2 * GROUP];
        for k in 0..2 * GROUP {
            e[k] = vmath::exp_neg(gap[k]);
        }
        let mut shape = [0.0; 2 * GROUP];
        for k in 0..2 * GROUP {
            shape[k] = top[k] + vmath::ln1p_unit(e[k]);
        }
        let mut r = [0.0; GROUP];
        for k in 0..GROUP {
            r[k] = shape[k] - shape[GROUP + k];
        }
        for rk in r {
            emit(rk);
        }
    }
    for &x in &xs[full..] {
        emit(log_lik_shape(x, to) - log_lik_shape(x, from));
    }
}

#[inline(always)]
fn ratios_inner(xs: &[f64], from: [f64; 2], to: [f64; 2], out: &mut [f64]) {
    let mut slots = out.iter_mut();
    ratios_staged(xs, from, to, |r| {
        if let Some(slot) = slots.next() {
            *slot = r;
        }
    });
}

#[inline(always)]
fn clipped_sums_inner(xs: &[f64], from: [f64; 2], to: [f64; 2], clip: f64) -> ClippedSums {
    let mut sums = ClippedSums::default();
    ratios_staged(xs, from, to, |r| sums.add(r, clip));
    sums
}

vmath::dispatch!(clipped_sums_batch, clipped_sums_inner, (xs: &[f64], from: [f64; 2], to: [f64; 2], clip: f64) -> ClippedSums);

/// The in-order sums of the clipped ratios of every xᵢ ([`ClippedSums::add`]), fused
/// with their vectorised computation: the same bits as [`log_lik_ratios`] followed by
/// the sums, without the buffer.
pub fn clipped_ratio_sums(xs: &[f64], from: [f64; 2], to: [f64; 2], clip: f64) -> ClippedSums {
    clipped_sums_batch(xs, from, to, clip)
}

vmath::dispatch!(ratios_batch, ratios_inner, (xs: &[f64], from: [f64; 2], to: [f64; 2], out: &mut [f64]) -> ());

/// The log-likelihood ratios ln p(xᵢ | to) − ln p(xᵢ | from) of every xᵢ into `out`
/// (same length), vectorised ([`crate::numeric::vmath`]).
pub fn log_lik_ratios(xs: &[f64], from: [f64; 2], to: [f64; 2], out: &mut [f64]) {
    assert_eq!(xs.len(), out.len());
    ratios_batch(xs, from, to, out)
}

/// ∇_θ ln p(x | θ) of one observation, as the batched kernels compute it.
#[inline(always)]
fn grad_one(x: f64, theta: [f64; 2]) -> (f64, f64) {
    let (a, b) = exponents(x, theta);
    let (d1, d2) = (x - theta[0], x - theta[0] - theta[1]);
    // responsibility of the second component, σ(b − a), from e = e^{−|a−b|}
    let e = vmath::exp_neg((a - b).abs());
    let w2 = (if b >= a { 1.0 } else { e }) / (1.0 + e);
    let w1 = 1.0 - w2;
    ((w1 * d1 + w2 * d2) / NOISE_VAR, w2 * d2 / NOISE_VAR)
}

/// DP-SGLD's per-example terms (Li et al. 2019, as Heikkilä et al. 2019 §4 ran it):
/// v = τ ∇_θ ln p(x | θ), scaled to L2 norm `clip` when longer, into `g1`, `g2`;
/// returns how many were clipped. Every element gets the scalar arithmetic
/// (v·τ, ‖v‖² = v₁² + v₂², clip/‖v‖, v·scale), so the bits match an element-wise loop.
#[inline(always)]
fn clipped_inner(
    xs: &[f64],
    theta: [f64; 2],
    tau: f64,
    clip: f64,
    g1: &mut [f64],
    g2: &mut [f64],
) -> usize {
    let limit = clip * clip;
    let mut clipped = 0;
    for ((&x, o1), o2) in xs.iter().zip(g1.iter_mut()).zip(g2.iter_mut()) {
        let (u1, u2) = grad_one(x, theta);
        let (v1, v2) = (u1 * tau, u2 * tau);
        clipped += usize::from(v1 * v1 + v2 * v2 > limit);
        (*o1, *o2) = (v1, v2);
    }
    // rare at the paper's settings (‖v‖ ≈ 1e-4 against L = 0.01): a second pass scales
    // the long ones, so the square root and division stay out of the vector loop
    if clipped > 0 {
        for (o1, o2) in g1.iter_mut().zip(g2.iter_mut()) {
            let norm2 = *o1 * *o1 + *o2 * *o2;
            if norm2 > limit {
                let scale = clip / norm2.sqrt();
                *o1 *= scale;
                *o2 *= scale;
            }
        }
    }
    clipped
}

vmath::dispatch!(clipped_batch, clipped_inner, (xs: &[f64], theta: [f64; 2], tau: f64, clip: f64, g1: &mut [f64], g2: &mut [f64]) -> usize);

/// The clipped DP-SGLD terms of every xᵢ (`clipped_inner`), vectorised, added in
/// the order of `xs` to `sum`; returns how many were clipped.
pub fn clipped_grad_sum(
    xs: &[f64],
    theta: [f64; 2],
    tau: f64,
    clip: f64,
    sum: &mut [f64; 2],
) -> usize {
    const BLOCK: usize = 32;
    let (mut g1, mut g2) = ([0.0; BLOCK], [0.0; BLOCK]);
    let mut clipped = 0;
    for xc in xs.chunks(BLOCK) {
        let m = xc.len();
        clipped += clipped_batch(xc, theta, tau, clip, &mut g1[..m], &mut g2[..m]);
        for k in 0..m {
            sum[0] += g1[k];
            sum[1] += g2[k];
        }
    }
    clipped
}

/// ∇_θ ln p(x | θ) of one observation (the same arithmetic as [`clipped_grad_sum`]).
#[cfg(test)]
pub fn grad_log_lik(x: f64, theta: [f64; 2]) -> [f64; 2] {
    let (g1, g2) = grad_one(x, theta);
    [g1, g2]
}

/// ln p(θ) up to a constant.
#[inline]
pub fn log_prior(theta: [f64; 2]) -> f64 {
    -theta[0] * theta[0] / (2.0 * PRIOR_VAR[0]) - theta[1] * theta[1] / (2.0 * PRIOR_VAR[1])
}

/// N observations from the model at θ = (0, 1).
pub fn generate<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Vec<f64> {
    let noise = Normal::new(0.0, NOISE_VAR.sqrt()).unwrap_or_else(|_| unreachable!());
    (0..n)
        .map(|_| {
            let shift = if rng.random::<bool>() {
                TRUE_THETA[1]
            } else {
                0.0
            };
            TRUE_THETA[0] + shift + noise.sample(rng)
        })
        .collect()
}

/// Moments of a 2-d distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments2 {
    pub mean: [f64; 2],
    pub var: [f64; 2],
    pub corr: f64,
}

/// The exact tempered posterior by 2-d quadrature: the data enter through a
/// histogram (bin width `bin`), the density is evaluated on a `grid`² trapezoid
/// grid over θ₁ ∈ [−3, 4], θ₂ ∈ [−4.5, 4.5] (mass outside < 1e-12 for this model).
pub fn exact_posterior(data: &[f64], n0: f64, bin: f64, grid: usize) -> Moments2 {
    let tau = n0 / data.len() as f64;
    let lo = data.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = data.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let bins = ((hi - lo) / bin).ceil().max(1.0) as usize;
    let mut counts = vec![0.0; bins];
    for &x in data {
        counts[(((x - lo) / bin) as usize).min(bins - 1)] += 1.0;
    }
    let centres: Vec<(f64, f64)> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0.0)
        .map(|(i, &c)| (lo + (i as f64 + 0.5) * bin, c))
        .collect();
    let (a0, a1, b0, b1) = (-3.0, 4.0, -4.5, 4.5);
    let (ha, hb) = ((a1 - a0) / (grid - 1) as f64, (b1 - b0) / (grid - 1) as f64);
    let mut logd = vec![0.0; grid * grid];
    for i in 0..grid {
        for j in 0..grid {
            let th = [a0 + i as f64 * ha, b0 + j as f64 * hb];
            let ll: f64 = centres.iter().map(|&(x, c)| c * log_lik(x, th)).sum();
            logd[i * grid + j] = log_prior(th) + tau * ll;
        }
    }
    let max = logd.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (mut z, mut s1, mut s2, mut s11, mut s22, mut s12) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for i in 0..grid {
        for j in 0..grid {
            let w = if i == 0 || i == grid - 1 { 0.5 } else { 1.0 }
                * if j == 0 || j == grid - 1 { 0.5 } else { 1.0 };
            let p = w * (logd[i * grid + j] - max).exp();
            let (t1, t2) = (a0 + i as f64 * ha, b0 + j as f64 * hb);
            z += p;
            s1 += p * t1;
            s2 += p * t2;
            s11 += p * t1 * t1;
            s22 += p * t2 * t2;
            s12 += p * t1 * t2;
        }
    }
    let mean = [s1 / z, s2 / z];
    let var = [s11 / z - mean[0] * mean[0], s22 / z - mean[1] * mean[1]];
    let corr = (s12 / z - mean[0] * mean[1]) / (var[0] * var[1]).sqrt();
    Moments2 { mean, var, corr }
}

/// The GMM's N observations as a [`RecordModel`], each record contributing
/// τ ln p(xᵢ | θ): τ = N₀/N for the tempered target of heikkila2019 §4 (what DP-SGLD,
/// the penalty algorithm, DP-HMC and DP-SGNHT read), τ = 1 for the untempered terms
/// of the Barker chains (which scale their minibatch mean by N₀ themselves) and of
/// DPVI. Every per-record term is τ times the untempered one, so the clip bounds of
/// the samplers are in units of the model's terms. (With τ = 1 the scalings by τ are
/// exact: the terms are the untempered kernels' bits.)
pub struct Gmm<'a> {
    data: &'a [f64],
    tau: f64,
}

impl<'a> Gmm<'a> {
    /// `data` tempered to N₀ records (τ = N₀/N).
    pub fn new(data: &'a [f64], n0: f64) -> Self {
        Self {
            data,
            tau: n0 / data.len() as f64,
        }
    }

    /// `data` untempered (τ = 1).
    pub fn untempered(data: &'a [f64]) -> Self {
        Self { data, tau: 1.0 }
    }
}

impl RecordModel<2> for Gmm<'_> {
    fn n(&self) -> usize {
        self.data.len()
    }

    fn log_lik_ratios(&self, from: &[f64; 2], to: &[f64; 2], out: &mut [f64]) {
        log_lik_ratios(self.data, *from, *to, out);
        out.iter_mut().for_each(|r| *r *= self.tau);
    }

    fn batch_log_lik_ratios(
        &self,
        batch: &[usize],
        from: &[f64; 2],
        to: &[f64; 2],
        out: &mut [f64],
    ) {
        let xs: Vec<f64> = batch.iter().map(|&i| self.data[i]).collect();
        log_lik_ratios(&xs, *from, *to, out);
        out.iter_mut().for_each(|r| *r *= self.tau);
    }

    /// The fused kernel ([`clipped_ratio_sums`]) on the batch's values gathered into
    /// `scratch`, on the untempered ratios clipped to ±clip/τ, scaled by τ (sums) and
    /// τ² (squares): the same terms up to rounding, and the same bits when τ = 1.
    fn batch_clipped_ratio_sums(
        &self,
        batch: &[usize],
        from: &[f64; 2],
        to: &[f64; 2],
        clip: f64,
        scratch: &mut Vec<f64>,
    ) -> ClippedSums {
        scratch.clear();
        scratch.extend(batch.iter().map(|&i| self.data[i]));
        let sums = clipped_ratio_sums(scratch, *from, *to, clip / self.tau);
        ClippedSums {
            sum: self.tau * sums.sum,
            sum_sq: self.tau * self.tau * sums.sum_sq,
            clipped: sums.clipped,
        }
    }

    fn prefetch(&self, i: usize) {
        crate::numeric::pages::prefetch(&self.data[i]);
    }

    fn for_each_grad(&self, theta: &[f64; 2], f: &mut dyn FnMut(&[f64; 2])) {
        for &x in self.data {
            let (g1, g2) = grad_one(x, *theta);
            f(&[self.tau * g1, self.tau * g2]);
        }
    }

    fn batch_grads(&self, theta: &[f64; 2], batch: &[usize], f: &mut dyn FnMut(&[f64; 2])) {
        for &i in batch {
            let (g1, g2) = grad_one(self.data[i], *theta);
            f(&[self.tau * g1, self.tau * g2]);
        }
    }

    fn log_prior(&self, theta: &[f64; 2]) -> f64 {
        log_prior(*theta)
    }

    fn grad_log_prior(&self, theta: &[f64; 2]) -> [f64; 2] {
        [-theta[0] / PRIOR_VAR[0], -theta[1] / PRIOR_VAR[1]]
    }

    /// The fused DP-MCMC kernel ([`clipped_ratio_sums`]) on the untempered ratios
    /// clipped to ±bound/τ, times τ: the same terms up to rounding.
    fn clipped_ratio_sum(
        &self,
        from: &[f64; 2],
        to: &[f64; 2],
        bound: f64,
        _scratch: &mut Vec<f64>,
    ) -> (f64, u64) {
        let sums = clipped_ratio_sums(self.data, *from, *to, bound / self.tau);
        (self.tau * sums.sum, sums.clipped)
    }

    /// The vectorised kernel on the gathered batch, 256 records at a time (the
    /// terms and their order of addition do not depend on the chunk).
    fn clipped_batch_grad_sum(
        &self,
        theta: &[f64; 2],
        bound: f64,
        batch: &[usize],
    ) -> ([f64; 2], u64) {
        let mut buf = [0.0f64; 256];
        let (mut sum, mut clipped) = ([0.0; 2], 0);
        for chunk in batch.chunks(256) {
            for (b, &i) in buf.iter_mut().zip(chunk) {
                *b = self.data[i];
            }
            clipped += clipped_grad_sum(&buf[..chunk.len()], *theta, self.tau, bound, &mut sum);
        }
        (sum, clipped as u64)
    }

    /// The vectorised DP-SGLD kernel ([`clipped_grad_sum`]): the same terms τ∇ln p
    /// scaled to norm ≤ `bound`, added in record order.
    fn clipped_grad_sum(&self, theta: &[f64; 2], bound: f64) -> ([f64; 2], u64) {
        let mut sum = [0.0; 2];
        let clipped = clipped_grad_sum(self.data, *theta, self.tau, bound, &mut sum);
        (sum, clipped as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{setup_rng, Purpose};

    /// The batched ratios and gradients against the one-observation functions and a
    /// libm evaluation of the mixture, on points from both tails.
    #[test]
    fn batches_match_the_scalar_functions() {
        let xs: Vec<f64> = (0..1001).map(|i| -40.0 + 0.08 * i as f64).collect();
        let (from, to) = ([0.3, 0.9], [-0.2, 1.4]);
        let mut r = vec![0.0; xs.len()];
        log_lik_ratios(&xs, from, to, &mut r);
        for (i, &x) in xs.iter().enumerate() {
            // the staged batch (groups of 16 and a tail) is the element-wise loop, bit for bit
            let scalar = log_lik_shape(x, to) - log_lik_shape(x, from);
            assert_eq!(r[i].to_bits(), scalar.to_bits(), "{x}");
            let want = log_lik(x, to) - log_lik(x, from);
            assert!(
                (r[i] - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{x}: {} {want}",
                r[i]
            );
            let libm = |t: [f64; 2]| {
                let (a, b) = exponents(x, t);
                a.max(b) + (-(a - b).abs()).exp().ln_1p()
            };
            let want = libm(to) - libm(from);
            assert!((r[i] - want).abs() <= 1e-12 * want.abs().max(1.0));
        }
        // the fused clipped sums of the DP-MCMC test: bit for bit the ratios above added
        // in order by `ClippedSums::add`, with no, some and every ratio clipped
        for clip in [f64::INFINITY, 0.5, 1e-9] {
            let mut want = ClippedSums::default();
            for &ri in &r {
                want.add(ri, clip);
            }
            let got = clipped_ratio_sums(&xs, from, to, clip);
            assert_eq!(
                (got.sum.to_bits(), got.sum_sq.to_bits(), got.clipped),
                (want.sum.to_bits(), want.sum_sq.to_bits(), want.clipped),
                "clip {clip}"
            );
            if clip == 0.5 {
                assert!(got.clipped > 0 && got.clipped < xs.len() as u64);
            }
        }
        // the clipped DP-SGLD sum: bit for bit an element-wise loop in order, with no
        // example, some, and every example clipped
        let tau = 1e-2;
        for clip in [f64::INFINITY, 0.05, 1e-6] {
            let (mut want, mut want_clipped) = ([0.0; 2], 0);
            for &x in &xs {
                let g = grad_log_lik(x, to);
                let v = [g[0] * tau, g[1] * tau];
                let norm2 = v[0] * v[0] + v[1] * v[1];
                let v = if norm2 > clip * clip {
                    want_clipped += 1;
                    let s = clip / norm2.sqrt();
                    [v[0] * s, v[1] * s]
                } else {
                    v
                };
                want[0] += v[0];
                want[1] += v[1];
            }
            let mut sum = [0.0; 2];
            let clipped = clipped_grad_sum(&xs, to, tau, clip, &mut sum);
            assert_eq!((sum, clipped), (want, want_clipped), "clip {clip}");
            if clip == 0.05 {
                assert!(clipped > 0 && clipped < xs.len());
            }
        }
    }

    #[test]
    fn log_likelihood_is_the_mixture_density() {
        let th = [0.3, -0.7];
        for x in [-3.0, 0.0, 0.4, 5.0] {
            let n = |m: f64| (-(x - m) * (x - m) / 4.0).exp() / (4.0 * std::f64::consts::PI).sqrt();
            let direct = (0.5 * n(th[0]) + 0.5 * n(th[0] + th[1])).ln();
            assert!((log_lik(x, th) - direct).abs() < 1e-14);
        }
    }

    /// The exact posterior of the authors' data (N = 10⁶, N₀ = 100; their
    /// DPBayes/DP-MCMC-NeurIPS2019 data set, tests/reference/README.md): mean
    /// (0.4889, 0.0180), variance (0.2015, 0.7222), correlation −0.944. Our data are
    /// another draw from the same model (ours: mean (0.4903, 0.0181), variance
    /// (0.2023, 0.7255), correlation −0.9446).
    #[test]
    fn exact_posterior_matches_the_reference_moments() {
        let data = generate(1_000_000, &mut setup_rng(2019, Purpose::SharedData));
        let m = exact_posterior(&data, 100.0, 0.01, 161);
        let fine = exact_posterior(&data, 100.0, 0.005, 241);
        // quadrature converged
        for k in 0..2 {
            assert!(
                (m.mean[k] - fine.mean[k]).abs() < 1e-4 && (m.var[k] - fine.var[k]).abs() < 1e-4,
                "{m:?} vs {fine:?}"
            );
        }
        assert!(
            (m.mean[0] - 0.4889).abs() < 0.01 && (m.mean[1] - 0.0180).abs() < 0.01,
            "{m:?}"
        );
        assert!(
            (m.var[0] - 0.2015).abs() < 0.01 && (m.var[1] - 0.7222).abs() < 0.01,
            "{m:?}"
        );
        assert!((m.corr + 0.944).abs() < 0.005, "{m:?}");
        errln!("exact tempered posterior (our data): {m:?}");
    }

    /// The tempered GMM as a record model: ratios and gradients are τ times the
    /// untempered ones, the gradient matches a central difference of ln p, and the
    /// fused clipped sum equals the generic per-record clip (with none, some and every
    /// term clipped).
    #[test]
    fn tempered_gmm_is_tau_times_the_gmm() {
        use crate::dpmcmc::model::RecordModel;
        let data = generate(2000, &mut setup_rng(5, Purpose::SharedData));
        let m = Gmm::new(&data, 100.0);
        let tau = 100.0 / 2000.0;
        let (from, to) = ([0.3, 0.8], [0.45, 0.6]);
        let mut r = vec![0.0; data.len()];
        m.log_lik_ratios(&from, &to, &mut r);
        for (x, ri) in data.iter().zip(&r) {
            let want = tau * (log_lik(*x, to) - log_lik(*x, from));
            assert!((ri - want).abs() <= 1e-13 * want.abs().max(1e-3), "{x}");
        }
        let theta = [0.2, 1.1];
        let mut k = 0;
        m.for_each_grad(&theta, &mut |g| {
            let x = data[k];
            let h = 1e-6;
            for j in 0..2 {
                let (mut up, mut down) = (theta, theta);
                up[j] += h;
                down[j] -= h;
                let fd = tau * (log_lik(x, up) - log_lik(x, down)) / (2.0 * h);
                assert!((g[j] - fd).abs() < 1e-7, "{x} {j}: {} vs {fd}", g[j]);
            }
            k += 1;
        });
        assert_eq!(k, data.len());
        for bound in [f64::INFINITY, 0.05, 1e-6] {
            let (fused, fused_clipped) = m.clipped_grad_sum(&theta, bound);
            let (generic, generic_clipped) =
                crate::dpmcmc::model::generic_clipped_sum(&m, &theta, bound, None);
            assert_eq!(fused_clipped, generic_clipped, "bound {bound}");
            for j in 0..2 {
                assert!(
                    (fused[j] - generic[j]).abs() <= 1e-12 * generic[j].abs().max(1.0),
                    "bound {bound}: {fused:?} vs {generic:?}"
                );
            }
            if bound == 0.05 {
                assert!(fused_clipped > 0 && fused_clipped < data.len() as u64);
            }
        }
        // the fused ratio sum and batch sum against the generic paths
        let mut sorted: Vec<f64> = r.iter().map(|x| x.abs()).collect();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        for bound in [f64::INFINITY, median, 1e-12] {
            let mut scratch = Vec::new();
            let (fused, fused_clipped) = m.clipped_ratio_sum(&from, &to, bound, &mut scratch);
            let (mut want, mut want_clipped) = (0.0, 0);
            for ri in &r {
                if ri.abs() > bound {
                    want += bound.copysign(*ri);
                    want_clipped += 1;
                } else {
                    want += ri;
                }
            }
            assert_eq!(fused_clipped, want_clipped, "bound {bound}");
            assert!(
                (fused - want).abs() <= 1e-12 * want.abs().max(1e-6),
                "{fused} vs {want}"
            );
            if bound == median {
                assert!(fused_clipped > 0 && fused_clipped < data.len() as u64);
            }
        }
        let many: Vec<usize> = (0..300).map(|k| (k * 37) % data.len()).collect();
        for bound in [f64::INFINITY, 0.05, 1e-6] {
            let (fused, fused_clipped) = m.clipped_batch_grad_sum(&theta, bound, &many);
            let (want, want_clipped) =
                crate::dpmcmc::model::generic_clipped_sum(&m, &theta, bound, Some(&many));
            assert_eq!(fused_clipped, want_clipped);
            for j in 0..2 {
                assert!((fused[j] - want[j]).abs() <= 1e-12 * want[j].abs().max(1.0));
            }
        }
        let batch = [3, 1999, 0, 17];
        let mut got = Vec::new();
        m.batch_grads(&theta, &batch, &mut |g| got.push(*g));
        for (g, &i) in got.iter().zip(&batch) {
            let want = grad_log_lik(data[i], theta);
            assert_eq!(*g, [tau * want[0], tau * want[1]]);
        }
    }
}
