//! The one model interface of the private samplers: a model of n records with
//! parameter θ ∈ ℝ^D, read through per-record log-likelihood ratios and gradients
//! (all records, or a minibatch by index), the log-prior and its gradient. The
//! Barker chains and DPVI (heikkila2019), DP-SGLD, DP-SGNHT, the penalty algorithm
//! and DP-HMC (raisa2021) all take a [`RecordModel`]; a model whose per-record
//! terms are tempered (τ ln p(xᵢ | θ)) says so in its own documentation, and every
//! sampler's clip bound is in units of the model's terms.

/// A model of n records with parameter θ ∈ ℝ^D: what the samplers read.
pub trait RecordModel<const D: usize>: Sync {
    /// The number of records n.
    fn n(&self) -> usize;
    /// rᵢ = ln p(xᵢ | to) − ln p(xᵢ | from) of the records `batch` (indices, in that
    /// order) into `out` (same length): the minibatch of a subsampled test.
    fn batch_log_lik_ratios(
        &self,
        batch: &[usize],
        from: &[f64; D],
        to: &[f64; D],
        out: &mut [f64],
    );
    /// ∇_θ ln p(xᵢ | θ) of the records `batch` (indices, in that order), handed to `f`.
    fn batch_grads(&self, theta: &[f64; D], batch: &[usize], f: &mut dyn FnMut(&[f64; D]));
    fn log_prior(&self, theta: &[f64; D]) -> f64;
    fn grad_log_prior(&self, theta: &[f64; D]) -> [f64; D];
    /// rᵢ of every record, into `out` (length n); by default the batch of all
    /// records (a model overrides it with its full-data loop).
    fn log_lik_ratios(&self, from: &[f64; D], to: &[f64; D], out: &mut [f64]) {
        let all: Vec<usize> = (0..self.n()).collect();
        self.batch_log_lik_ratios(&all, from, to, out);
    }
    /// ∇_θ ln p(xᵢ | θ) of every record, handed to `f` one at a time in record order;
    /// by default the batch of all records.
    fn for_each_grad(&self, theta: &[f64; D], f: &mut dyn FnMut(&[f64; D])) {
        let all: Vec<usize> = (0..self.n()).collect();
        self.batch_grads(theta, &all, f);
    }
    /// Σ_{i∈batch} clip_b(∇ ln p(xᵢ | θ)) and how many were clipped (minibatch
    /// samplers: `dpmcmc::sg_mcmc`).
    fn clipped_batch_grad_sum(
        &self,
        theta: &[f64; D],
        bound: f64,
        batch: &[usize],
    ) -> ([f64; D], u64) {
        let mut sum = [0.0; D];
        let mut clipped = 0;
        self.batch_grads(theta, batch, &mut |g| {
            clipped += clip_add(&mut sum, g, bound)
        });
        (sum, clipped)
    }
    /// Σᵢ clip(rᵢ(from, to), ±bound) and how many were clipped, the ratios computed
    /// into `scratch` (length n) and added in record order; a model may fuse the loop
    /// (it must add the same terms, up to rounding).
    fn clipped_ratio_sum(
        &self,
        from: &[f64; D],
        to: &[f64; D],
        bound: f64,
        scratch: &mut Vec<f64>,
    ) -> (f64, u64) {
        scratch.resize(self.n(), 0.0);
        self.log_lik_ratios(from, to, scratch);
        clipped_sum(scratch, bound)
    }
    /// Σᵢ clip_b(∇ ln p(xᵢ | θ)) (each gradient scaled to norm at most `bound`) and
    /// how many were clipped; a model may fuse the loop (it must add the same terms).
    fn clipped_grad_sum(&self, theta: &[f64; D], bound: f64) -> ([f64; D], u64) {
        let mut sum = [0.0; D];
        let mut clipped = 0;
        self.for_each_grad(theta, &mut |g| clipped += clip_add(&mut sum, g, bound));
        (sum, clipped)
    }
    /// The [`ClippedSums`] of the ratios of the records `batch`, each clipped to
    /// |rᵢ| ≤ clip, added in the order of `batch`, by
    /// [`RecordModel::batch_log_lik_ratios`] into `scratch`; a model may fuse the two
    /// (it must add the same terms in the same order).
    fn batch_clipped_ratio_sums(
        &self,
        batch: &[usize],
        from: &[f64; D],
        to: &[f64; D],
        clip: f64,
        scratch: &mut Vec<f64>,
    ) -> ClippedSums {
        scratch.resize(batch.len(), 0.0);
        self.batch_log_lik_ratios(batch, from, to, scratch);
        let mut sums = ClippedSums::default();
        for &r in scratch.iter() {
            sums.add(r, clip);
        }
        sums
    }
    /// A hint that record i is read soon (minibatch samplers call it as they draw
    /// an index, so the memory reads overlap the drawing); by default nothing.
    fn prefetch(&self, _i: usize) {}
}

/// Σ r, Σ r² and the count of clipped terms of a minibatch's ratios, each ratio
/// clipped to |r| ≤ clip first (eq. 18), added in order.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClippedSums {
    pub sum: f64,
    pub sum_sq: f64,
    pub clipped: u64,
}

impl ClippedSums {
    #[inline(always)]
    pub fn add(&mut self, r: f64, clip: f64) {
        let mut r = r;
        if r.abs() > clip {
            r = clip.copysign(r);
            self.clipped += 1;
        }
        self.sum += r;
        self.sum_sq += r * r;
    }
}

/// Adds g scaled to norm at most `bound` to `sum`; 1 if it was clipped.
fn clip_add<const D: usize>(sum: &mut [f64; D], g: &[f64; D], bound: f64) -> u64 {
    let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (scale, clipped) = if norm > bound {
        (bound / norm, 1)
    } else {
        (1.0, 0)
    };
    for (s, x) in sum.iter_mut().zip(g) {
        *s += scale * x;
    }
    clipped
}

/// The trait's generic clipped-gradient sums (all records, or `batch`): what a
/// model's fused overrides are tested against.
#[cfg(test)]
pub(crate) fn generic_clipped_sum<const D: usize>(
    model: &impl RecordModel<D>,
    theta: &[f64; D],
    bound: f64,
    batch: Option<&[usize]>,
) -> ([f64; D], u64) {
    let (mut sum, mut clipped) = ([0.0; D], 0);
    let mut add = |g: &[f64; D]| clipped += clip_add(&mut sum, g, bound);
    match batch {
        Some(b) => model.batch_grads(theta, b, &mut add),
        None => model.for_each_grad(theta, &mut add),
    }
    (sum, clipped)
}

/// Σᵢ clip(rᵢ, ±bound) and how many were clipped, added in order.
pub(crate) fn clipped_sum(ratios: &[f64], bound: f64) -> (f64, u64) {
    let mut sum = 0.0;
    let mut clipped = 0;
    for &r in ratios {
        clipped += add_clipped(&mut sum, r, bound);
    }
    (sum, clipped)
}

/// Adds clip(r, ±bound) to `sum` (±|bound| with r's sign when |r| > bound, so a NaN
/// passes through); 1 if r was clipped.
#[inline(always)]
pub(crate) fn add_clipped(sum: &mut f64, r: f64, bound: f64) -> u64 {
    if r.abs() > bound {
        *sum += bound.copysign(r);
        1
    } else {
        *sum += r;
        0
    }
}

/// x ~ N(θ, 1) with θ ~ N(0, `prior_var`), each record's terms tempered by τ: the
/// conjugate model the samplers' tests check against closed forms.
#[cfg(test)]
pub(crate) struct NormalMean {
    pub data: Vec<f64>,
    pub tau: f64,
    pub prior_var: f64,
}

#[cfg(test)]
impl RecordModel<1> for NormalMean {
    fn n(&self) -> usize {
        self.data.len()
    }
    fn batch_log_lik_ratios(&self, batch: &[usize], f: &[f64; 1], t: &[f64; 1], out: &mut [f64]) {
        for (r, &i) in out.iter_mut().zip(batch) {
            let x = self.data[i];
            *r = self.tau * 0.5 * ((x - f[0]).powi(2) - (x - t[0]).powi(2));
        }
    }
    fn batch_grads(&self, t: &[f64; 1], batch: &[usize], f: &mut dyn FnMut(&[f64; 1])) {
        for &i in batch {
            f(&[self.tau * (self.data[i] - t[0])]);
        }
    }
    fn log_prior(&self, t: &[f64; 1]) -> f64 {
        -0.5 * t[0] * t[0] / self.prior_var
    }
    fn grad_log_prior(&self, t: &[f64; 1]) -> [f64; 1] {
        [-t[0] / self.prior_var]
    }
}

/// xᵢ ~ N(θ, I₂) with prior N(0, I₂/`prior_precision`) (0: flat): the 2-d
/// conjugate model the samplers' tests check against closed forms.
#[cfg(test)]
pub(crate) struct GaussMean2 {
    pub xs: Vec<[f64; 2]>,
    pub prior_precision: f64,
}

#[cfg(test)]
impl RecordModel<2> for GaussMean2 {
    fn n(&self) -> usize {
        self.xs.len()
    }
    fn batch_log_lik_ratios(
        &self,
        batch: &[usize],
        from: &[f64; 2],
        to: &[f64; 2],
        out: &mut [f64],
    ) {
        for (r, &i) in out.iter_mut().zip(batch) {
            let x = self.xs[i];
            let l = |t: &[f64; 2]| -0.5 * ((x[0] - t[0]).powi(2) + (x[1] - t[1]).powi(2));
            *r = l(to) - l(from);
        }
    }
    fn batch_grads(&self, theta: &[f64; 2], batch: &[usize], f: &mut dyn FnMut(&[f64; 2])) {
        for &i in batch {
            let x = &self.xs[i];
            f(&[x[0] - theta[0], x[1] - theta[1]]);
        }
    }
    fn log_prior(&self, theta: &[f64; 2]) -> f64 {
        -0.5 * self.prior_precision * (theta[0] * theta[0] + theta[1] * theta[1])
    }
    fn grad_log_prior(&self, theta: &[f64; 2]) -> [f64; 2] {
        [
            -self.prior_precision * theta[0],
            -self.prior_precision * theta[1],
        ]
    }
}
