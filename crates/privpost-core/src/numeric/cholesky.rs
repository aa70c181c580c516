//! Blocked Cholesky factorisation H = LLᵀ of a symmetric positive-definite matrix.
//!
//! nalgebra's `Cholesky::new` updates one column at a time by axpy (memory-bound): on
//! the d = 784 Hessians of the MNIST posterior it took a fifth of a Geumlek Fig. 3
//! task. Here the matrix is factored by blocks of `NB` columns (right-looking): each
//! block column is factored in place, and the trailing matrix is updated by
//! A₂₂ ← A₂₂ − L₂₁L₂₁ᵀ through the `gemm` crate. Same algorithm family and the same
//! result up to rounding (a test compares the two).

use nalgebra::{Cholesky, DMatrix, Dyn};

/// Columns per block.
const NB: usize = 48;

/// The Cholesky factor of the symmetric positive-definite `a` (its lower triangle is
/// read), or None when a pivot is not positive (or NaN): the matrix is not positive
/// definite to working precision.
pub fn cholesky(mut a: DMatrix<f64>) -> Option<Cholesky<f64, Dyn>> {
    let d = a.nrows();
    assert_eq!(d, a.ncols(), "Cholesky of a {d}×{} matrix", a.ncols());
    for k0 in (0..d).step_by(NB) {
        let kb = NB.min(d - k0);
        // the block column, left-looking within the block: column j minus the
        // contributions of the block's earlier columns, over rows j..d
        for j in k0..k0 + kb {
            for k in k0..j {
                let f = a[(j, k)];
                let (mut cj, ck) = a.columns_range_pair_mut(j, k);
                cj.rows_range_mut(j..).axpy(-f, &ck.rows_range(j..), 1.0);
            }
            let pivot = a[(j, j)];
            // NaN is refused too
            if pivot.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return None;
            }
            let s = pivot.sqrt();
            a[(j, j)] = s;
            let mut below = a.view_range_mut(j + 1.., j);
            below /= s;
        }
        // trailing update A₂₂ −= L₂₁ L₂₁ᵀ (the whole square; only its lower half is read)
        let m = d - k0 - kb;
        if m > 0 {
            let base = a.as_mut_ptr();
            // SAFETY: L₂₁ = a[k0+kb.., k0..k0+kb] and A₂₂ = a[k0+kb.., k0+kb..] are
            // disjoint blocks of the d × d column-major allocation `a` owns (column
            // stride d); L₂₁ᵀ reads L₂₁ with its strides swapped; A₂₂ is the only block
            // written, and every index stays inside the d × d matrix.
            unsafe {
                let l21 = base.add(k0 * d + k0 + kb);
                let a22 = base.add((k0 + kb) * d + k0 + kb);
                gemm::gemm(
                    m,
                    m,
                    kb,
                    a22,
                    d as isize,
                    1,
                    true,
                    l21,
                    d as isize,
                    1,
                    l21,
                    1,
                    d as isize,
                    1.0,
                    -1.0,
                    false,
                    false,
                    false,
                    gemm::Parallelism::None,
                );
            }
        }
    }
    Some(Cholesky::pack_dirty(a))
}

/// L⁻¹ of a lower-triangular L with a positive diagonal, by halves:
/// [[L₁₁, 0], [L₂₁, L₂₂]]⁻¹ = [[L₁₁⁻¹, 0], [−L₂₂⁻¹L₂₁L₁₁⁻¹, L₂₂⁻¹]], the products
/// through the `gemm` crate (nalgebra's triangular solve against the identity is a
/// column-at-a-time loop, a twentieth of an MNIST task). None if a pivot is zero.
pub fn lower_inverse(l: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let d = l.nrows();
    assert_eq!(d, l.ncols(), "inverse of a {d}×{} matrix", l.ncols());
    if d <= 2 * NB {
        return l.solve_lower_triangular(&DMatrix::identity(d, d));
    }
    let h = d / 2;
    let x11 = lower_inverse(&l.view((0, 0), (h, h)).into_owned())?;
    let x22 = lower_inverse(&l.view((h, h), (d - h, d - h)).into_owned())?;
    let l21x11 = super::gemm::product(&l.view((h, 0), (d - h, h)).into_owned(), &x11, 1.0);
    let x21 = super::gemm::product(&x22, &l21x11, -1.0);
    let mut x = DMatrix::zeros(d, d);
    x.view_mut((0, 0), (h, h)).copy_from(&x11);
    x.view_mut((h, h), (d - h, d - h)).copy_from(&x22);
    x.view_mut((h, 0), (d - h, h)).copy_from(&x21);
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    fn spd(d: usize, seed: u64) -> DMatrix<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let b = DMatrix::from_fn(d + 3, d, |_, _| rng.random_range(-1.0..1.0));
        b.tr_mul(&b) + DMatrix::identity(d, d) * 0.1
    }

    /// Against nalgebra's factorisation around the block edges, and LLᵀ = H.
    #[test]
    fn matches_nalgebra_and_reconstructs() {
        for d in [0, 1, 2, 47, 48, 49, 96, 130, 300] {
            let h = spd(d, d as u64);
            let ours = cholesky(h.clone()).unwrap().l();
            let theirs = Cholesky::new(h.clone()).unwrap().l();
            let scale = h.amax().max(1.0);
            assert!((&ours - &theirs).amax() < 1e-10 * scale, "d = {d}");
            assert!(
                (&ours * ours.transpose() - &h).amax() < 1e-12 * scale,
                "d = {d}"
            );
            // the upper triangle of the factor is zero, as nalgebra's l() gives it
            assert!((0..d).all(|j| (0..j).all(|i| ours[(i, j)] == 0.0)));
        }
    }

    /// Against nalgebra's triangular solve, and L·L⁻¹ = I.
    #[test]
    fn lower_inverse_matches_the_triangular_solve() {
        for d in [0, 1, 50, 96, 97, 200, 301] {
            let l = cholesky(spd(d, 7 + d as u64)).unwrap().l();
            let ours = lower_inverse(&l).unwrap();
            let theirs = l.solve_lower_triangular(&DMatrix::identity(d, d)).unwrap();
            let scale = theirs.amax().max(1.0);
            assert!((&ours - &theirs).amax() < 1e-11 * scale, "d = {d}");
            assert!(
                (&l * &ours - DMatrix::identity(d, d)).amax() < 1e-11,
                "d = {d}"
            );
            assert!((0..d).all(|j| (0..j).all(|i| ours[(i, j)] == 0.0)));
        }
        let mut l = DMatrix::<f64>::identity(300, 300);
        l[(250, 250)] = 0.0;
        assert!(lower_inverse(&l).is_none());
    }

    #[test]
    fn refuses_matrices_that_are_not_positive_definite() {
        let mut h = spd(100, 3);
        h[(70, 70)] = -5.0;
        assert!(cholesky(h).is_none());
        let mut h = spd(60, 4);
        h[(10, 10)] = f64::NAN;
        assert!(cholesky(h).is_none());
        // a singular (rank-deficient) matrix
        let b = DMatrix::from_fn(5, 80, |i, j| (i * 80 + j) as f64);
        assert!(cholesky(b.tr_mul(&b)).is_none());
    }
}
