//! Dense products of the samplers through the `gemm` crate (the kernels behind
//! faer), measured 9–27 % faster than nalgebra's default (matrixmultiply) on the
//! thin shapes of a batched logistic gradient (n × d times d × K with K ≈ 50; see
//! the README's Speed section). Single-threaded: the runner parallelises over tasks.

use nalgebra::DMatrix;

/// `scale · a · b` (a: m × k, b: k × n), column-major like every nalgebra matrix.
pub fn product(a: &DMatrix<f64>, b: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
    let (m, k) = a.shape();
    // a as stored: row stride 1, column stride m
    strided(a.as_ptr(), (m, k), (1, m), b, scale)
}

/// `scale · aᵀ · b` (a: k × m, b: k × n) without forming aᵀ: nalgebra's `tr_mul` is a
/// loop of dot products, many times slower than a blocked kernel on a Hessian XᵀWX.
pub fn product_tn(a: &DMatrix<f64>, b: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
    let (k, m) = a.shape();
    // aᵀ read in place: its (i, j) is a[(j, i)] at j + i·k
    strided(a.as_ptr(), (m, k), (k, 1), b, scale)
}

/// `scale · L · b` where L (m × k) is read at `lhs + i·rs + j·cs`.
fn strided(
    lhs: *const f64,
    (m, k): (usize, usize),
    (rs, cs): (usize, usize),
    b: &DMatrix<f64>,
    scale: f64,
) -> DMatrix<f64> {
    let (k2, n) = b.shape();
    assert_eq!(k, k2, "product of {m}×{k} and {k2}×{n}");
    let mut c = DMatrix::<f64>::zeros(m, n);
    if m == 0 || n == 0 || k == 0 {
        return c;
    }
    // SAFETY: the caller's matrix holds m·k elements at the given strides (both
    // callers pass a whole nalgebra matrix of that shape), `b` and `c` are
    // column-major with the strides given, the shapes were checked above, and `c`
    // is written only.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            m as isize,
            1,
            false,
            lhs,
            cs as isize,
            rs as isize,
            b.as_ptr(),
            k as isize,
            1,
            0.0,
            scale,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against nalgebra's product on shapes around the kernel sizes, including empty ones.
    #[test]
    fn matches_nalgebra() {
        for (m, k, n) in [
            (0, 3, 2),
            (3, 0, 2),
            (1, 1, 1),
            (7, 5, 3),
            (33, 17, 50),
            (300, 104, 9),
        ] {
            let a = DMatrix::from_fn(m, k, |i, j| ((i * 31 + j * 7) % 13) as f64 - 6.0);
            let b = DMatrix::from_fn(k, n, |i, j| ((i * 5 + j * 11) % 9) as f64 * 0.25);
            let want = &a * &b * 1.5;
            let got = product(&a, &b, 1.5);
            assert_eq!(got.shape(), (m, n));
            assert!((got - &want).amax() < 1e-12, "{m}×{k}×{n}");
            let at = a.transpose();
            let got = product_tn(&at, &b, 1.5);
            assert_eq!(got.shape(), (m, n));
            assert!((got - want).amax() < 1e-12, "ᵀ {m}×{k}×{n}");
        }
    }
}
