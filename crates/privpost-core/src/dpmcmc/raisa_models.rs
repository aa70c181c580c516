//! The two targets of Räisä, Koskela, Honkela 2021 (their experiment code,
//! DPBayes/DP-HMC-experiments: the banana and the ill-conditioned Gaussian), with
//! their exact posteriors in closed form, so that reference draws are i.i.d.:
//!
//! - **banana** (d = 2): prior θ₁ ~ N(0, 1/τ₀), θ₂ + aθ₁² ~ N(0, 1/τ₀); records
//!   x₁ ~ N(θ₁, 1/τ₁), x₂ ~ N(θ₂ + aθ₁², 1/τ₂). With φ = (θ₁, θ₂ + aθ₁²) (Jacobian 1)
//!   the model is Gaussian in φ, so the posterior of φ is N(mᵢ, vᵢ) per coordinate,
//!   vᵢ = 1/(nτᵢ + τ₀), mᵢ = nτᵢx̄ᵢ·vᵢ, and θ = (φ₁, φ₂ − aφ₁²).
//! - **gauss** (d = 10): x ~ N(θ, Σ), Σ = QDQᵀ (Q from the QR factorisation of a
//!   U(0, 1) matrix, D = diag of Gamma(½, 1) draws: strongly ill-conditioned),
//!   prior N(0, 100²I); the posterior is N(μ, Λ⁻¹), Λ = nΣ⁻¹ + 10⁻⁴I,
//!   μ = Λ⁻¹Σ⁻¹Σᵢxᵢ (BDA3 §3.5). (Their code's reference uses the prior covariance
//!   100·I; the sampler's prior, and ours, is 100²·I — facts §5.)

use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma, StandardNormal};

use super::model::RecordModel;

fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

/// The banana model and its data.
#[derive(Debug, Clone)]
pub struct Banana {
    pub a: f64,
    pub tau0: f64,
    pub tau1: f64,
    pub tau2: f64,
    /// the records (x₁, x₂)
    pub xs: Vec<[f64; 2]>,
}

/// The paper's (a, τ₀, τ₁, τ₂): their experiments.py's banana.
const BANANA_PAPER: (f64, f64, f64, f64) = (20.0, 1e-3, 5e-4, 4e-4);

impl Banana {
    /// The paper's model on the records `xs`.
    fn with_records(xs: Vec<[f64; 2]>) -> Self {
        let (a, tau0, tau1, tau2) = BANANA_PAPER;
        Self {
            a,
            tau0,
            tau1,
            tau2,
            xs,
        }
    }

    /// The paper's settings (a = 20, τ₀ = 10⁻³, τ₁ = 5·10⁻⁴, τ₂ = 4·10⁻⁴) and n
    /// records drawn at θ = (0, 3).
    pub fn paper<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Self {
        let (a, _, tau1, tau2) = BANANA_PAPER;
        let theta = [0.0, 3.0];
        let xs = (0..n)
            .map(|_| {
                [
                    theta[0] + normal(rng) / tau1.sqrt(),
                    theta[1] + a * theta[0] * theta[0] + normal(rng) / tau2.sqrt(),
                ]
            })
            .collect();
        Self::with_records(xs)
    }

    /// The paper's settings with the authors' own n records, drawn as their
    /// `banana_model.py` draws them on JAX's pre-0.5 stream ([`crate::jax_random`]):
    /// key 43247 split in three, x₁ = z₁/√τ₁ and x₂ = z₂/√τ₂ + 3 at θ = (0, 3).
    pub fn authors(n: usize) -> Self {
        use crate::jax_random::Key;
        let (_, _, tau1, tau2) = BANANA_PAPER;
        let keys = Key::from_seed(43247).split(3);
        let (z1, z2) = (keys[0].normal(n), keys[1].normal(n));
        let (s1, s2) = (1.0 / tau1.sqrt(), 1.0 / tau2.sqrt());
        let xs = z1
            .iter()
            .zip(&z2)
            .map(|(&u, &v)| [u * s1 + 0.0, v * s2 + 3.0])
            .collect();
        Self::with_records(xs)
    }

    /// The authors' `count` reference draws of the exact posterior (their
    /// `generate_posterior_samples`: key 56437 split in three, φᵢ = zᵢ·√vᵢ + mᵢ,
    /// θ₂ = φ₂ − aφ₁²).
    pub fn authors_reference(&self, count: usize) -> Vec<[f64; 2]> {
        use crate::jax_random::Key;
        let n = self.xs.len() as f64;
        let mean = |k: usize| self.xs.iter().map(|x| x[k]).sum::<f64>() / n;
        let param = |tau: f64, k: usize| {
            let prec = n * tau + self.tau0;
            ((n * tau * mean(k)) / prec, 1.0 / prec.sqrt())
        };
        let ((m1, s1), (m2, s2)) = (param(self.tau1, 0), param(self.tau2, 1));
        let keys = Key::from_seed(56437).split(3);
        let (z1, z2) = (keys[0].normal(count), keys[1].normal(count));
        z1.iter()
            .zip(&z2)
            .map(|(&u, &v)| {
                let phi1 = u * s1 + m1;
                [phi1, (v * s2 + m2) - self.a * phi1 * phi1]
            })
            .collect()
    }

    /// The exact posterior of φ = (θ₁, θ₂ + aθ₁²): (means, variances).
    pub fn posterior_phi(&self) -> ([f64; 2], [f64; 2]) {
        let n = self.xs.len() as f64;
        let sums = self
            .xs
            .iter()
            .fold([0.0, 0.0], |s, x| [s[0] + x[0], s[1] + x[1]]);
        let v = [
            1.0 / (n * self.tau1 + self.tau0),
            1.0 / (n * self.tau2 + self.tau0),
        ];
        ([self.tau1 * sums[0] * v[0], self.tau2 * sums[1] * v[1]], v)
    }

    /// One exact posterior draw.
    pub fn posterior_draw<R: Rng + ?Sized>(&self, rng: &mut R) -> [f64; 2] {
        let (m, v) = self.posterior_phi();
        let phi1 = m[0] + v[0].sqrt() * normal(rng);
        let phi2 = m[1] + v[1].sqrt() * normal(rng);
        [phi1, phi2 - self.a * phi1 * phi1]
    }
}

impl RecordModel<2> for Banana {
    fn n(&self) -> usize {
        self.xs.len()
    }

    fn log_lik_ratios(&self, from: &[f64; 2], to: &[f64; 2], out: &mut [f64]) {
        let (c_from, c_to) = (
            from[1] + self.a * from[0] * from[0],
            to[1] + self.a * to[0] * to[0],
        );
        let tau = [self.tau1, self.tau2];
        for (r, x) in out.iter_mut().zip(&self.xs) {
            *r = banana_log_lik(x, [to[0], c_to], tau) - banana_log_lik(x, [from[0], c_from], tau);
        }
    }

    fn batch_log_lik_ratios(
        &self,
        batch: &[usize],
        from: &[f64; 2],
        to: &[f64; 2],
        out: &mut [f64],
    ) {
        let (c_from, c_to) = (
            from[1] + self.a * from[0] * from[0],
            to[1] + self.a * to[0] * to[0],
        );
        let tau = [self.tau1, self.tau2];
        for (r, &i) in out.iter_mut().zip(batch) {
            let x = &self.xs[i];
            *r = banana_log_lik(x, [to[0], c_to], tau) - banana_log_lik(x, [from[0], c_from], tau);
        }
    }

    fn for_each_grad(&self, theta: &[f64; 2], f: &mut dyn FnMut(&[f64; 2])) {
        let c = theta[1] + self.a * theta[0] * theta[0];
        for x in &self.xs {
            let e2 = self.tau2 * (x[1] - c);
            f(&[
                self.tau1 * (x[0] - theta[0]) + e2 * 2.0 * self.a * theta[0],
                e2,
            ]);
        }
    }

    fn batch_grads(&self, theta: &[f64; 2], batch: &[usize], f: &mut dyn FnMut(&[f64; 2])) {
        let c = theta[1] + self.a * theta[0] * theta[0];
        for &i in batch {
            let x = &self.xs[i];
            let e2 = self.tau2 * (x[1] - c);
            f(&[
                self.tau1 * (x[0] - theta[0]) + e2 * 2.0 * self.a * theta[0],
                e2,
            ]);
        }
    }

    /// The fused loop: per record g = (τ₁(x₁ − θ₁) + 2aθ₁e, e), e = τ₂(x₂ − θ₂ − aθ₁²),
    /// scaled to norm ≤ b; Σg is a linear function of Σ sᵢ(x₁ − θ₁) and Σ sᵢe.
    fn clipped_grad_sum(&self, theta: &[f64; 2], bound: f64) -> ([f64; 2], u64) {
        banana_clipped(&self.xs, *theta, [self.a, self.tau1, self.tau2, bound])
    }

    /// The fused loop on the gathered batch, 64 records at a time (chunk sums added
    /// in order).
    fn clipped_batch_grad_sum(
        &self,
        theta: &[f64; 2],
        bound: f64,
        batch: &[usize],
    ) -> ([f64; 2], u64) {
        let k = [self.a, self.tau1, self.tau2, bound];
        let mut buf = [[0.0f64; 2]; 64];
        let (mut sum, mut clipped) = ([0.0; 2], 0);
        for chunk in batch.chunks(64) {
            for (b, &i) in buf.iter_mut().zip(chunk) {
                *b = self.xs[i];
            }
            let (s, c) = banana_clipped(&buf[..chunk.len()], *theta, k);
            sum[0] += s[0];
            sum[1] += s[1];
            clipped += c;
        }
        (sum, clipped)
    }

    /// The ratios and their clipped in-order sum in one pass, with the AVX2 kernel
    /// `banana_ratio_sum_avx2` when the processor has it (the same bits as the
    /// trait's path through the buffer: tested).
    fn clipped_ratio_sum(
        &self,
        from: &[f64; 2],
        to: &[f64; 2],
        bound: f64,
        scratch: &mut Vec<f64>,
    ) -> (f64, u64) {
        let k = [self.a, self.tau1, self.tau2, bound];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was detected on this processor just now
            return unsafe { banana_ratio_sum_avx2(&self.xs, *from, *to, k) };
        }
        scratch.resize(self.n(), 0.0);
        self.log_lik_ratios(from, to, scratch);
        super::model::clipped_sum(scratch, bound)
    }

    fn log_prior(&self, theta: &[f64; 2]) -> f64 {
        let c = theta[1] + self.a * theta[0] * theta[0];
        -0.5 * self.tau0 * (theta[0] * theta[0] + c * c)
    }

    fn grad_log_prior(&self, theta: &[f64; 2]) -> [f64; 2] {
        let c = theta[1] + self.a * theta[0] * theta[0];
        [
            -self.tau0 * (theta[0] + c * 2.0 * self.a * theta[0]),
            -self.tau0 * c,
        ]
    }
}

/// Lanes of the banana's clipped-gradient sums.
const BANANA_LANES: usize = 4;

/// The banana's per-lane running sums of s·g₁, s·g₂ and the clipped count.
struct BananaLanes {
    s0: [f64; BANANA_LANES],
    s1: [f64; BANANA_LANES],
    count: [u64; BANANA_LANES],
}

impl BananaLanes {
    /// Adds record `x` to lane `l`; `k` = (θ₁, c, slope, τ₁, τ₂, b, b²) with
    /// c = θ₂ + aθ₁², slope = 2aθ₁.
    #[inline(always)]
    fn add(&mut self, l: usize, x: &[f64; 2], k: [f64; 7]) {
        let [theta0, c, slope, tau1, tau2, bound, b2] = k;
        let e = tau2 * (x[1] - c);
        let g0 = tau1 * (x[0] - theta0) + slope * e;
        let n2 = g0 * g0 + e * e;
        let scale = (bound / n2.sqrt()).min(1.0);
        self.s0[l] += scale * g0;
        self.s1[l] += scale * e;
        self.count[l] += u64::from(n2 > b2);
    }

    /// (Σ s·g, clipped count), the lanes added as (l₀ + l₁) + (l₂ + l₃).
    fn total(&self) -> ([f64; 2], u64) {
        let add = |v: [f64; BANANA_LANES]| (v[0] + v[1]) + (v[2] + v[3]);
        ([add(self.s0), add(self.s1)], self.count.iter().sum())
    }
}

/// The banana's clipped-gradient sum over `xs` ([`Banana::clipped_grad_sum`]):
/// four independent lanes (record i into lane i mod 4, added as (l₀ + l₁) + (l₂ + l₃));
/// `k` = (a, τ₁, τ₂, b). The portable path (and the reference of the AVX2 one).
fn banana_clipped_inner(xs: &[[f64; 2]], theta: [f64; 2], k: [f64; 4]) -> ([f64; 2], u64) {
    let [a, tau1, tau2, bound] = k;
    let c = theta[1] + a * theta[0] * theta[0];
    let slope = 2.0 * a * theta[0];
    let k = [theta[0], c, slope, tau1, tau2, bound, bound * bound];
    let mut acc = BananaLanes {
        s0: [0.0; BANANA_LANES],
        s1: [0.0; BANANA_LANES],
        count: [0; BANANA_LANES],
    };
    for (i, x) in xs.iter().enumerate() {
        acc.add(i % BANANA_LANES, x, k);
    }
    acc.total()
}

/// [`banana_clipped_inner`], with the AVX2 kernel [`banana_clipped_avx2`] when the
/// processor has it (the same bits: tested).
fn banana_clipped(xs: &[[f64; 2]], theta: [f64; 2], k: [f64; 4]) -> ([f64; 2], u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the feature was detected on this processor just now
        return unsafe { banana_clipped_avx2(xs, theta, k) };
    }
    banana_clipped_inner(xs, theta, k)
}

/// The first and second coordinates of 4 banana records (an `as_chunks::<4>()` chunk)
/// as two vectors whose lanes hold the records (0, 2, 1, 3): what unpacking the two
/// interleaved loads gives.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn load_banana4(chunk: &[[f64; 2]; 4]) -> [std::arch::x86_64::__m256d; 2] {
    use std::arch::x86_64::*;
    // SAFETY: 4 records of 2 f64 each are 8 contiguous f64
    let (lo, hi) = unsafe {
        let p = chunk.as_ptr().cast::<f64>();
        (_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)))
    };
    [_mm256_unpacklo_pd(lo, hi), _mm256_unpackhi_pd(lo, hi)]
}

/// ln p(x | θ) of one banana record up to a constant, t = (θ₁, θ₂ + aθ₁²),
/// τ = (τ₁, τ₂): −½(τ₁(x₁ − t₁)(x₁ − t₁) + τ₂(x₂ − t₂)(x₂ − t₂)), multiplied left to
/// right (the AVX2 ratio kernel repeats these operations lane by lane).
#[inline(always)]
fn banana_log_lik(x: &[f64; 2], t: [f64; 2], tau: [f64; 2]) -> f64 {
    -0.5 * (tau[0] * (x[0] - t[0]) * (x[0] - t[0]) + tau[1] * (x[1] - t[1]) * (x[1] - t[1]))
}

/// [`banana_clipped_inner`] written with AVX2 intrinsics: the compiler's own
/// vectorisation of it splits the square root and the division into scalar
/// operations (they were ≈ 3.5 ns of a record's ≈ 3.6 ns). The four records of a
/// chunk sit in the vector's lanes in the order (0, 2, 1, 3) (what unpacking the two
/// interleaved loads gives), each lane a running sum of the records ≡ its index mod
/// 4; the same IEEE operations per record (no fused multiply–add: each intrinsic is
/// one rounding), so the lanes, the leftover records and the final
/// (l₀ + l₁) + (l₂ + l₃) are bit for bit those of the portable loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn banana_clipped_avx2(xs: &[[f64; 2]], theta: [f64; 2], k: [f64; 4]) -> ([f64; 2], u64) {
    use std::arch::x86_64::*;
    let [a, tau1, tau2, bound] = k;
    let c = theta[1] + a * theta[0] * theta[0];
    let slope = 2.0 * a * theta[0];
    let b2 = bound * bound;
    let (vc, vt0, vslope) = (
        _mm256_set1_pd(c),
        _mm256_set1_pd(theta[0]),
        _mm256_set1_pd(slope),
    );
    let (vtau1, vtau2, vb, vb2, one) = (
        _mm256_set1_pd(tau1),
        _mm256_set1_pd(tau2),
        _mm256_set1_pd(bound),
        _mm256_set1_pd(b2),
        _mm256_set1_pd(1.0),
    );
    let (mut s0, mut s1, mut count) = (
        _mm256_setzero_pd(),
        _mm256_setzero_pd(),
        _mm256_setzero_si256(),
    );
    let (chunks, rest) = xs.as_chunks::<BANANA_LANES>();
    for chunk in chunks {
        let [x0, x1] = load_banana4(chunk);
        let e = _mm256_mul_pd(vtau2, _mm256_sub_pd(x1, vc));
        let g0 = _mm256_add_pd(
            _mm256_mul_pd(vtau1, _mm256_sub_pd(x0, vt0)),
            _mm256_mul_pd(vslope, e),
        );
        let n2 = _mm256_add_pd(_mm256_mul_pd(g0, g0), _mm256_mul_pd(e, e));
        // minpd(q, 1) is (q < 1) ? q : 1, so 1 for a NaN q, as f64::min(q, 1) gives
        let scale = _mm256_min_pd(_mm256_div_pd(vb, _mm256_sqrt_pd(n2)), one);
        s0 = _mm256_add_pd(s0, _mm256_mul_pd(scale, g0));
        s1 = _mm256_add_pd(s1, _mm256_mul_pd(scale, e));
        let over = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(n2, vb2));
        count = _mm256_sub_epi64(count, over);
    }
    let (mut f0, mut f1, mut fc) = ([0.0; BANANA_LANES], [0.0; BANANA_LANES], [0i64; 4]);
    // SAFETY: each store writes 4 values into an array of 4
    unsafe {
        _mm256_storeu_pd(f0.as_mut_ptr(), s0);
        _mm256_storeu_pd(f1.as_mut_ptr(), s1);
        _mm256_storeu_si256(fc.as_mut_ptr().cast(), count);
    }
    let order = |v: [f64; BANANA_LANES]| [v[0], v[2], v[1], v[3]];
    let mut acc = BananaLanes {
        s0: order(f0),
        s1: order(f1),
        count: [fc[0], fc[2], fc[1], fc[3]].map(|n| n as u64),
    };
    let kk = [theta[0], c, slope, tau1, tau2, bound, b2];
    for (l, x) in rest.iter().enumerate() {
        acc.add(l, x, kk);
    }
    acc.total()
}

/// The banana's clipped ratio sum Σᵢ clip(rᵢ(from, to), ±b) in record order and the
/// clipped count, `k` = (a, τ₁, τ₂, b): the ratios of four records at a time as
/// [`Banana::log_lik_ratios`] computes them (the same IEEE operations, one rounding
/// each), clipped as `model::clipped_sum` does (±|b| with rᵢ's sign when
/// |rᵢ| > b, so a NaN passes through), then added one by one in record order — the
/// one dependency chain that keeps the bits of the buffered path.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn banana_ratio_sum_avx2(xs: &[[f64; 2]], from: [f64; 2], to: [f64; 2], k: [f64; 4]) -> (f64, u64) {
    use std::arch::x86_64::*;
    let [a, tau1, tau2, bound] = k;
    let (c_from, c_to) = (from[1] + a * from[0] * from[0], to[1] + a * to[0] * to[0]);
    let (vt1, vf1, vct, vcf) = (
        _mm256_set1_pd(to[0]),
        _mm256_set1_pd(from[0]),
        _mm256_set1_pd(c_to),
        _mm256_set1_pd(c_from),
    );
    let (vtau1, vtau2, half) = (
        _mm256_set1_pd(tau1),
        _mm256_set1_pd(tau2),
        _mm256_set1_pd(-0.5),
    );
    let sign = _mm256_set1_pd(-0.0);
    let vb = _mm256_set1_pd(bound);
    let magnitude = _mm256_andnot_pd(sign, vb);
    // −½(τ₁(x₁ − t₁)(x₁ − t₁) + τ₂(x₂ − c)(x₂ − c)), multiplied left to right
    let l = |x0: __m256d, x1: __m256d, t1: __m256d, c: __m256d| {
        let d0 = _mm256_sub_pd(x0, t1);
        let d1 = _mm256_sub_pd(x1, c);
        let q0 = _mm256_mul_pd(_mm256_mul_pd(vtau1, d0), d0);
        let q1 = _mm256_mul_pd(_mm256_mul_pd(vtau2, d1), d1);
        _mm256_mul_pd(half, _mm256_add_pd(q0, q1))
    };
    let (mut sum, mut clipped) = (0.0, 0u64);
    let (chunks, rest) = xs.as_chunks::<4>();
    let mut v = [0.0; 4];
    for chunk in chunks {
        let [x0, x1] = load_banana4(chunk);
        let r = _mm256_sub_pd(l(x0, x1, vt1, vct), l(x0, x1, vf1, vcf));
        let over = _mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_andnot_pd(sign, r), vb);
        let capped = _mm256_or_pd(magnitude, _mm256_and_pd(sign, r));
        let term = _mm256_blendv_pd(r, capped, over);
        clipped += _mm256_movemask_pd(over).count_ones() as u64;
        // SAFETY: writes 4 values into an array of 4
        unsafe { _mm256_storeu_pd(v.as_mut_ptr(), term) };
        sum += v[0];
        sum += v[2];
        sum += v[1];
        sum += v[3];
    }
    let (c_from, c_to) = ([from[0], c_from], [to[0], c_to]);
    for x in rest {
        let r = banana_log_lik(x, c_to, [tau1, tau2]) - banana_log_lik(x, c_from, [tau1, tau2]);
        clipped += super::model::add_clipped(&mut sum, r, bound);
    }
    (sum, clipped)
}

/// Dimension of the Gaussian target.
pub const GAUSS_D: usize = 10;

type Mat = SMatrix<f64, GAUSS_D, GAUSS_D>;
type Vector = SVector<f64, GAUSS_D>;

/// The ill-conditioned 10-d Gaussian model and its data.
#[derive(Debug, Clone)]
pub struct Gauss {
    /// Σ⁻¹
    pub precision: Mat,
    /// the prior precision (10⁻⁴)
    pub prior_precision: f64,
    /// Σ⁻¹xᵢ of every record (what the ratios and gradients read)
    px: Vec<Vector>,
    /// ‖Σ⁻¹xᵢ‖² of every record
    px_sq: Vec<f64>,
    /// Σᵢ xᵢ
    sum: Vector,
}

impl Gauss {
    /// The paper's construction: Σ = QDQᵀ as in the module docs (from `rng`), n
    /// records at θ = (0, 3, 0, …, 0).
    pub fn paper<R: Rng + ?Sized>(n: usize, rng: &mut R) -> anyhow::Result<Self> {
        let u = DMatrix::from_fn(GAUSS_D, GAUSS_D, |_, _| rng.random::<f64>());
        let q = u.qr().q();
        let gamma = Gamma::new(0.5, 1.0)?;
        let diag: Vec<f64> = (0..GAUSS_D).map(|_| gamma.sample(rng)).collect();
        let sigma = &q * DMatrix::from_diagonal(&DVector::from_vec(diag.clone())) * q.transpose();
        let sigma = Mat::from_fn(|i, j| 0.5 * (sigma[(i, j)] + sigma[(j, i)]));
        let chol = sigma
            .cholesky()
            .ok_or_else(|| anyhow::anyhow!("Σ is not positive definite (eigenvalues {diag:?})"))?;
        let precision = chol.inverse();
        let mut theta = Vector::zeros();
        theta[1] = 3.0;
        let l = chol.l();
        let (mut px, mut sum) = (Vec::with_capacity(n), Vector::zeros());
        for _ in 0..n {
            let z = Vector::from_fn(|_, _| normal(rng));
            let x = theta + l * z;
            sum += x;
            px.push(precision * x);
        }
        let px_sq = px.iter().map(|p| p.norm_squared()).collect();
        Ok(Self {
            precision,
            prior_precision: 1e-4,
            px,
            px_sq,
            sum,
        })
    }

    /// The exact posterior: (mean, covariance).
    pub fn posterior(&self) -> (Vector, Mat) {
        let n = self.px.len() as f64;
        let lambda = self.precision * n + Mat::identity() * self.prior_precision;
        let cov = lambda.try_inverse().unwrap_or_else(Mat::zeros);
        (cov * (self.precision * self.sum), cov)
    }

    /// `count` exact posterior draws.
    pub fn posterior_draws<R: Rng + ?Sized>(
        &self,
        count: usize,
        rng: &mut R,
    ) -> Vec<[f64; GAUSS_D]> {
        let (mean, cov) = self.posterior();
        let l = cov.cholesky().map(|c| c.l()).unwrap_or_else(Mat::zeros);
        (0..count)
            .map(|_| {
                let z = Vector::from_fn(|_, _| normal(rng));
                let x = mean + l * z;
                std::array::from_fn(|i| x[i])
            })
            .collect()
    }
}

impl RecordModel<GAUSS_D> for Gauss {
    fn n(&self) -> usize {
        self.px.len()
    }

    /// rᵢ = Δᵀ(Σ⁻¹xᵢ) − ½(θ′ᵀΣ⁻¹θ′ − θᵀΣ⁻¹θ), Δ = θ′ − θ.
    fn log_lik_ratios(&self, from: &[f64; GAUSS_D], to: &[f64; GAUSS_D], out: &mut [f64]) {
        let (f, t) = (
            Vector::from_column_slice(from),
            Vector::from_column_slice(to),
        );
        let delta = t - f;
        let shift = 0.5 * (t.dot(&(self.precision * t)) - f.dot(&(self.precision * f)));
        for (r, p) in out.iter_mut().zip(&self.px) {
            *r = delta.dot(p) - shift;
        }
    }

    fn batch_log_lik_ratios(
        &self,
        batch: &[usize],
        from: &[f64; GAUSS_D],
        to: &[f64; GAUSS_D],
        out: &mut [f64],
    ) {
        let (f, t) = (
            Vector::from_column_slice(from),
            Vector::from_column_slice(to),
        );
        let delta = t - f;
        let shift = 0.5 * (t.dot(&(self.precision * t)) - f.dot(&(self.precision * f)));
        for (r, &i) in out.iter_mut().zip(batch) {
            *r = delta.dot(&self.px[i]) - shift;
        }
    }

    /// ∇ ln p(xᵢ | θ) = Σ⁻¹xᵢ − Σ⁻¹θ.
    fn for_each_grad(&self, theta: &[f64; GAUSS_D], f: &mut dyn FnMut(&[f64; GAUSS_D])) {
        let pt = self.precision * Vector::from_column_slice(theta);
        for p in &self.px {
            let g: [f64; GAUSS_D] = std::array::from_fn(|i| p[i] - pt[i]);
            f(&g);
        }
    }

    fn batch_grads(
        &self,
        theta: &[f64; GAUSS_D],
        batch: &[usize],
        f: &mut dyn FnMut(&[f64; GAUSS_D]),
    ) {
        let pt = self.precision * Vector::from_column_slice(theta);
        for &i in batch {
            let p = &self.px[i];
            let g: [f64; GAUSS_D] = std::array::from_fn(|k| p[k] - pt[k]);
            f(&g);
        }
    }

    /// The fused loop: gᵢ = Σ⁻¹xᵢ − Σ⁻¹θ, ‖gᵢ‖² = ‖Σ⁻¹xᵢ‖² − 2(Σ⁻¹xᵢ)ᵀΣ⁻¹θ + ‖Σ⁻¹θ‖²
    /// (the first term stored), so Σᵢ sᵢgᵢ = Σᵢ sᵢΣ⁻¹xᵢ − (Σᵢ sᵢ)Σ⁻¹θ.
    fn clipped_grad_sum(&self, theta: &[f64; GAUSS_D], bound: f64) -> ([f64; GAUSS_D], u64) {
        let pt = self.precision * Vector::from_column_slice(theta);
        let (acc, total, clipped) = gauss_clipped(&self.px, &self.px_sq, &pt, bound);
        let sum = acc - pt * total;
        (std::array::from_fn(|i| sum[i]), clipped)
    }

    fn log_prior(&self, theta: &[f64; GAUSS_D]) -> f64 {
        -0.5 * self.prior_precision * theta.iter().map(|x| x * x).sum::<f64>()
    }

    fn grad_log_prior(&self, theta: &[f64; GAUSS_D]) -> [f64; GAUSS_D] {
        std::array::from_fn(|i| -self.prior_precision * theta[i])
    }
}

/// The Gaussian's clipped sums (Σ sᵢΣ⁻¹xᵢ, Σ sᵢ, clipped count) with
/// sᵢ = min(1, b/‖gᵢ‖), ‖gᵢ‖² = ‖Σ⁻¹xᵢ‖² − 2(Σ⁻¹xᵢ)ᵀΣ⁻¹θ + ‖Σ⁻¹θ‖², in record order
/// with nalgebra's dot and axpy: the portable path and the reference of
/// [`gauss_clipped_avx2`].
fn gauss_clipped_inner(
    px: &[Vector],
    px_sq: &[f64],
    pt: &Vector,
    bound: f64,
) -> (Vector, f64, u64) {
    let pt2 = pt.norm_squared();
    let b2 = bound * bound;
    let (mut acc, mut total, mut clipped) = (Vector::zeros(), 0.0, 0u64);
    for (p, p2) in px.iter().zip(px_sq) {
        let n2 = (p2 - 2.0 * p.dot(pt) + pt2).max(0.0);
        let scale = if n2 > b2 { bound / n2.sqrt() } else { 1.0 };
        clipped += u64::from(n2 > b2);
        acc.axpy(scale, p, 1.0);
        total += scale;
    }
    (acc, total, clipped)
}

/// [`gauss_clipped_inner`], with the AVX2 kernel [`gauss_clipped_avx2`] when the
/// processor has it (the same bits: tested).
fn gauss_clipped(px: &[Vector], px_sq: &[f64], pt: &Vector, bound: f64) -> (Vector, f64, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the feature was detected on this processor just now
        return unsafe { gauss_clipped_avx2(px, px_sq, pt, bound) };
    }
    gauss_clipped_inner(px, px_sq, pt, bound)
}

/// [`gauss_clipped_inner`] with AVX2 vectors across a record's 10 coordinates
/// (4 + 4 + 2): the dot product in nalgebra's order for a 10-vector (accumulators
/// a_k = 0 + pₖtₖ for k < 8, then ((((0 + (a₀ + a₄)) + (a₁ + a₅)) + (a₂ + a₆)) +
/// (a₃ + a₇)) + p₈t₈ + p₉t₉), and its axpy y = s·p·1 + 1·y as s·p + y (multiplying by
/// 1 is exact); every operation one IEEE rounding, so the bits are the portable
/// path's (tested).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn gauss_clipped_avx2(px: &[Vector], px_sq: &[f64], pt: &Vector, bound: f64) -> (Vector, f64, u64) {
    use std::arch::x86_64::*;
    let pt2 = pt.norm_squared();
    let b2 = bound * bound;
    let t = pt.as_slice();
    // SAFETY: pt holds 10 contiguous f64: loads of 4 at 0 and 4, of 2 at 8
    let (t_lo, t_hi, t_89) = unsafe {
        (
            _mm256_loadu_pd(t.as_ptr()),
            _mm256_loadu_pd(t.as_ptr().add(4)),
            _mm_loadu_pd(t.as_ptr().add(8)),
        )
    };
    let zero = _mm256_setzero_pd();
    let (mut acc_lo, mut acc_hi, mut acc_89) = (zero, zero, _mm_setzero_pd());
    let (mut total, mut clipped) = (0.0, 0u64);
    let mut v = [0.0; 4];
    let mut w = [0.0; 2];
    for (p, p2) in px.iter().zip(px_sq) {
        let x = p.as_slice();
        // SAFETY: a record holds 10 contiguous f64; v and w take 4 and 2
        let (lo, hi, x89) = unsafe {
            (
                _mm256_loadu_pd(x.as_ptr()),
                _mm256_loadu_pd(x.as_ptr().add(4)),
                _mm_loadu_pd(x.as_ptr().add(8)),
            )
        };
        let a_lo = _mm256_add_pd(zero, _mm256_mul_pd(lo, t_lo));
        let a_hi = _mm256_add_pd(zero, _mm256_mul_pd(hi, t_hi));
        let a89 = _mm_mul_pd(x89, t_89);
        // SAFETY: 4 and 2 values into arrays of 4 and 2
        unsafe {
            _mm256_storeu_pd(v.as_mut_ptr(), _mm256_add_pd(a_lo, a_hi));
            _mm_storeu_pd(w.as_mut_ptr(), a89);
        }
        let mut dot = 0.0;
        dot += v[0];
        dot += v[1];
        dot += v[2];
        dot += v[3];
        dot += w[0];
        dot += w[1];
        let n2 = (p2 - 2.0 * dot + pt2).max(0.0);
        let scale = if n2 > b2 { bound / n2.sqrt() } else { 1.0 };
        clipped += u64::from(n2 > b2);
        let s4 = _mm256_set1_pd(scale);
        acc_lo = _mm256_add_pd(_mm256_mul_pd(s4, lo), acc_lo);
        acc_hi = _mm256_add_pd(_mm256_mul_pd(s4, hi), acc_hi);
        acc_89 = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(scale), x89), acc_89);
        total += scale;
    }
    let mut out = [0.0; GAUSS_D];
    // SAFETY: 4 + 4 + 2 values into an array of 10
    unsafe {
        _mm256_storeu_pd(out.as_mut_ptr(), acc_lo);
        _mm256_storeu_pd(out.as_mut_ptr().add(4), acc_hi);
        _mm_storeu_pd(out.as_mut_ptr().add(8), acc_89);
    }
    (Vector::from_column_slice(&out), total, clipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Ratios and gradients against finite differences of the log density; the
    /// records' log-likelihood sum plus the prior is the posterior up to a constant,
    /// so the exact posterior's mode has a zero total gradient.
    #[test]
    fn banana_ratios_gradients_and_posterior_agree() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let m = Banana::paper(2000, &mut rng);
        let (a, b) = ([0.01, 2.9], [0.02, 2.95]);
        let mut r = vec![0.0; m.n()];
        m.log_lik_ratios(&a, &b, &mut r);
        let total = |t: &[f64; 2]| {
            let mut out = vec![0.0; m.n()];
            m.log_lik_ratios(&[0.0, 0.0], t, &mut out);
            out.iter().sum::<f64>()
        };
        assert!((r.iter().sum::<f64>() - (total(&b) - total(&a))).abs() < 1e-9);
        let mut g = [0.0; 2];
        m.for_each_grad(&a, &mut |x| {
            g[0] += x[0];
            g[1] += x[1];
        });
        let h = 1e-6;
        for k in 0..2 {
            let (mut up, mut down) = (a, a);
            up[k] += h;
            down[k] -= h;
            let fd = (total(&up) - total(&down)) / (2.0 * h);
            assert!(
                (g[k] - fd).abs() < 1e-5 * fd.abs().max(1.0),
                "{k}: {} vs {fd}",
                g[k]
            );
            let pd = (m.log_prior(&up) - m.log_prior(&down)) / (2.0 * h);
            assert!((m.grad_log_prior(&a)[k] - pd).abs() < 1e-6);
        }
        // the posterior mode in φ maps to the θ where the total gradient vanishes
        let (mean, _) = m.posterior_phi();
        let mode = [mean[0], mean[1] - m.a * mean[0] * mean[0]];
        let mut g = m.grad_log_prior(&mode);
        m.for_each_grad(&mode, &mut |x| {
            g[0] += x[0];
            g[1] += x[1];
        });
        assert!(g[0].abs() < 1e-6 && g[1].abs() < 1e-6, "{g:?}");
    }

    /// The dispatched banana kernel (AVX2 on a processor that has it) gives the
    /// portable loop's bits: every length 0–13 and a long one (leftover records in
    /// every lane), records whose gradient is 0 (b/0 = ∞ → scale 1), NaN and ±∞
    /// records, bounds that clip none, some or all, and θ₁ = 0 (slope 0).
    #[test]
    fn banana_kernel_paths_give_the_same_bits() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut xs: Vec<[f64; 2]> = Banana::paper(1003, &mut rng).xs;
        let bits = |r: ([f64; 2], u64)| (r.0.map(f64::to_bits), r.1);
        for theta in [[0.02, 2.9], [0.0, 3.0], [-0.3, -1.0]] {
            let c = theta[1] + 20.0 * theta[0] * theta[0];
            xs[5] = [theta[0], c];
            for b in [1e-9, 0.05, 0.3, 1e12] {
                let k = [20.0, 5e-4, 4e-4, b];
                for len in (0..14).chain([1003]) {
                    let part = &xs[..len];
                    assert_eq!(
                        bits(banana_clipped(part, theta, k)),
                        bits(banana_clipped_inner(part, theta, k)),
                        "θ {theta:?}, b {b}, {len} records"
                    );
                }
            }
        }
        for odd in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            xs[2] = [odd, 1.0];
            xs[7] = [1.0, odd];
            let k = [20.0, 5e-4, 4e-4, 0.05];
            let (a, b) = (
                banana_clipped(&xs[..9], [0.02, 2.9], k),
                banana_clipped_inner(&xs[..9], [0.02, 2.9], k),
            );
            assert_eq!(a.1, b.1, "{odd}");
            for j in 0..2 {
                assert!(
                    a.0[j].to_bits() == b.0[j].to_bits() || (a.0[j].is_nan() && b.0[j].is_nan())
                );
            }
        }
    }

    /// The banana's fused ratio sum gives the bits of the buffered path
    /// (`log_lik_ratios` then `clipped_sum`), for lengths with every leftover count,
    /// bounds clipping none, some or all, a 0 bound, and NaN / ±∞ records.
    #[test]
    fn banana_ratio_sum_gives_the_buffered_bits() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut m = Banana::paper(1003, &mut rng);
        let all = m.xs.clone();
        let buffered = |m: &Banana, from: &[f64; 2], to: &[f64; 2], b: f64| {
            let mut r = vec![0.0; m.n()];
            m.log_lik_ratios(from, to, &mut r);
            crate::dpmcmc::model::clipped_sum(&r, b)
        };
        let mut scratch = Vec::new();
        for (from, to) in [([0.02, 2.9], [0.03, 2.85]), ([0.0, 3.0], [-0.2, 3.4])] {
            for b in [0.0, 1e-4, 0.01, 1e12] {
                for len in (0..14).chain([1003]) {
                    m.xs = all[..len].to_vec();
                    let (s, c) = m.clipped_ratio_sum(&from, &to, b, &mut scratch);
                    let (t, d) = buffered(&m, &from, &to, b);
                    assert_eq!(
                        (s.to_bits(), c),
                        (t.to_bits(), d),
                        "{from:?} {to:?} b {b}, {len}"
                    );
                }
            }
        }
        for odd in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            m.xs = all[..11].to_vec();
            m.xs[1] = [odd, 0.0];
            let (from, to) = ([0.02, 2.9], [0.03, 2.85]);
            let (s, c) = m.clipped_ratio_sum(&from, &to, 0.01, &mut scratch);
            let (t, d) = buffered(&m, &from, &to, 0.01);
            assert_eq!(c, d, "{odd}");
            assert!(
                s.to_bits() == t.to_bits() || (s.is_nan() && t.is_nan()),
                "{odd}: {s} {t}"
            );
        }
    }

    /// The Gaussian's AVX2 kernel gives the bits of the nalgebra loop, at θ inside
    /// and far outside the data (clipping some, all or none), with a record equal to
    /// Σ⁻¹θ (‖g‖ = 0) and with NaN / ±∞ records.
    #[test]
    fn gauss_kernel_paths_give_the_same_bits() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        let mut m = Gauss::paper(3001, &mut rng).unwrap();
        let check = |m: &Gauss, theta: [f64; GAUSS_D], b: f64| {
            let pt = m.precision * Vector::from_column_slice(&theta);
            let (a, ta, ca) = gauss_clipped_inner(&m.px, &m.px_sq, &pt, b);
            let (f, tf, cf) = gauss_clipped(&m.px, &m.px_sq, &pt, b);
            let same = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
            assert_eq!(ca, cf, "θ {theta:?}, b {b}");
            assert!(same(ta, tf), "θ {theta:?}, b {b}: {ta} {tf}");
            for k in 0..GAUSS_D {
                assert!(
                    same(a[k], f[k]),
                    "θ {theta:?}, b {b}, {k}: {} {}",
                    a[k],
                    f[k]
                );
            }
        };
        let mut theta = [0.0; GAUSS_D];
        theta[1] = 3.0;
        m.px[7] = m.precision * Vector::from_column_slice(&theta);
        m.px_sq[7] = m.px[7].norm_squared();
        for b in [1e-6, 10.0, 300.0, 1e12] {
            check(&m, theta, b);
            check(&m, std::array::from_fn(|i| 50.0 - 9.0 * i as f64), b);
        }
        for odd in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            m.px[3][4] = odd;
            m.px_sq[3] = m.px[3].norm_squared();
            check(&m, theta, 10.0);
        }
    }

    /// The fused clipped-gradient sums equal the generic loop over `for_each_grad`
    /// (to rounding), with and without clipping.
    #[test]
    fn fused_clipped_gradient_sums_match_the_generic_loop() {
        fn generic<const D: usize>(
            m: &impl RecordModel<D>,
            theta: &[f64; D],
            b: f64,
        ) -> ([f64; D], u64) {
            let mut sum = [0.0; D];
            let mut clipped = 0;
            m.for_each_grad(theta, &mut |g| {
                let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
                let s = if norm > b {
                    clipped += 1;
                    b / norm
                } else {
                    1.0
                };
                for (a, x) in sum.iter_mut().zip(g) {
                    *a += s * x;
                }
            });
            (sum, clipped)
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let banana = Banana::paper(5000, &mut rng);
        for b in [0.05, 1e9] {
            let theta = [0.02, 2.9];
            let (f, cf) = banana.clipped_grad_sum(&theta, b);
            let (g, cg) = generic(&banana, &theta, b);
            assert_eq!(cf, cg);
            assert!(b > 1.0 || cf > 0);
            for k in 0..2 {
                assert!(
                    (f[k] - g[k]).abs() < 1e-9 * g[k].abs().max(1.0),
                    "{f:?} {g:?}"
                );
            }
            // the fused minibatch sum (chunks of 64) against the trait's generic one
            let batch: Vec<usize> = (0..150).map(|i| (i * 37) % 5000).collect();
            let (f, cf) = banana.clipped_batch_grad_sum(&theta, b, &batch);
            let (g, cg) =
                crate::dpmcmc::model::generic_clipped_sum(&banana, &theta, b, Some(&batch));
            assert_eq!(cf, cg);
            for k in 0..2 {
                assert!(
                    (f[k] - g[k]).abs() < 1e-12 * g[k].abs().max(1.0),
                    "{f:?} {g:?}"
                );
            }
        }
        let gauss = Gauss::paper(2000, &mut rng).unwrap();
        let theta: [f64; GAUSS_D] = std::array::from_fn(|i| 0.1 * i as f64);
        for b in [10.0, 1e12] {
            let (f, cf) = gauss.clipped_grad_sum(&theta, b);
            let (g, cg) = generic(&gauss, &theta, b);
            assert_eq!(cf, cg);
            let scale = g.iter().map(|x| x.abs()).fold(1.0, f64::max);
            for k in 0..GAUSS_D {
                assert!(
                    (f[k] - g[k]).abs() < 1e-8 * scale,
                    "{k}: {} vs {}",
                    f[k],
                    g[k]
                );
            }
        }
    }

    /// The Gaussian target: ratios against direct log-likelihoods, its posterior
    /// mean is where the total gradient vanishes, its draws have the covariance.
    #[test]
    fn gauss_posterior_and_gradients_agree() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let m = Gauss::paper(3000, &mut rng).unwrap();
        let (mean, cov) = m.posterior();
        let mu: [f64; GAUSS_D] = std::array::from_fn(|i| mean[i]);
        let mut g = m.grad_log_prior(&mu);
        m.for_each_grad(&mu, &mut |x| {
            for (s, v) in g.iter_mut().zip(x) {
                *s += v;
            }
        });
        let scale = m.precision.norm() * 3000.0;
        assert!(g.iter().all(|x| x.abs() < 1e-8 * scale), "{g:?}");
        let mut to = mu;
        to[3] += 1e-3;
        let mut r = vec![0.0; m.n()];
        m.log_lik_ratios(&mu, &to, &mut r);
        let quad = |t: &[f64; GAUSS_D]| {
            let v = Vector::from_column_slice(t);
            -0.5 * v.dot(&(m.precision * v))
        };
        // Σᵢ rᵢ = Δᵀ Σ⁻¹ Σxᵢ + n (quad(to) − quad(from))
        let delta = Vector::from_column_slice(&to) - Vector::from_column_slice(&mu);
        let want = delta.dot(&(m.precision * m.sum)) + 3000.0 * (quad(&to) - quad(&mu));
        assert!((r.iter().sum::<f64>() - want).abs() < 1e-8 * want.abs().max(1.0));
        let draws = m.posterior_draws(20_000, &mut rng);
        for i in [0, 1, 9] {
            let xs: Vec<f64> = draws.iter().map(|d| d[i]).collect();
            let (dm, dv) = crate::stats::diagnostics::mean_var(&xs);
            let sd = cov[(i, i)].sqrt();
            assert!((dm - mean[i]).abs() < 5.0 * sd / (20_000f64).sqrt());
            assert!(
                (dv / cov[(i, i)] - 1.0).abs() < 0.05,
                "{i}: {dv} vs {}",
                cov[(i, i)]
            );
        }
    }
}
