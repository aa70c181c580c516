//! Gauss–Legendre quadrature (nodes by Newton iteration on P_n), single and
//! composite. Used for the Gaussian-mechanism KL integral and in tests as an
//! independent check of closed forms.

/// Nodes and weights of an n-point Gauss–Legendre rule on [−1, 1].
#[derive(Debug, Clone)]
pub struct GaussLegendre {
    nodes: Vec<f64>,
    weights: Vec<f64>,
}

impl GaussLegendre {
    /// Builds the rule; `n ≥ 1`. Nodes are accurate to ~1e-15.
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        let mut nodes = vec![0.0; n];
        let mut weights = vec![0.0; n];
        let m = n.div_ceil(2);
        for i in 0..m {
            // Tricomi's initial guess, then Newton on P_n.
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (p, d) = legendre_with_derivative(n, x);
                dp = d;
                let dx = p / d;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            let (_, d) = legendre_with_derivative(n, x);
            dp = if d.is_finite() { d } else { dp };
            let w = 2.0 / ((1.0 - x * x) * dp * dp);
            nodes[i] = -x;
            nodes[n - 1 - i] = x;
            weights[i] = w;
            weights[n - 1 - i] = w;
        }
        Self { nodes, weights }
    }

    /// Nodes mapped to [a, b] with their weights (scaled by (b − a)/2).
    pub fn mapped(&self, a: f64, b: f64) -> impl Iterator<Item = (f64, f64)> + '_ {
        let half = 0.5 * (b - a);
        let mid = 0.5 * (a + b);
        self.nodes
            .iter()
            .zip(&self.weights)
            .map(move |(x, w)| (mid + half * x, half * w))
    }

    /// ∫_a^b f.
    pub fn integrate(&self, a: f64, b: f64, mut f: impl FnMut(f64) -> f64) -> f64 {
        self.mapped(a, b).map(|(x, w)| w * f(x)).sum()
    }

    /// ∫_a^b f over `panels` equal sub-intervals.
    #[cfg(test)]
    pub fn integrate_composite(
        &self,
        a: f64,
        b: f64,
        panels: usize,
        mut f: impl FnMut(f64) -> f64,
    ) -> f64 {
        let panels = panels.max(1);
        let h = (b - a) / panels as f64;
        (0..panels)
            .map(|k| {
                let lo = a + h * k as f64;
                self.integrate(lo, lo + h, &mut f)
            })
            .sum()
    }
}

/// (P_n(x), P_n'(x)) by the three-term recurrence.
fn legendre_with_derivative(n: usize, x: f64) -> (f64, f64) {
    let mut p0 = 1.0;
    let mut p1 = x;
    for k in 2..=n {
        let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
        p0 = p1;
        p1 = p2;
    }
    let p = if n == 0 { 1.0 } else { p1 };
    let d = n as f64 * (x * p - p0) / (x * x - 1.0);
    (p, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_polynomials_exactly_up_to_degree_2n_minus_1() {
        let rule = GaussLegendre::new(8);
        let got = rule.integrate(0.0, 2.0, |x| x.powi(15));
        assert!((got - 2f64.powi(16) / 16.0).abs() < 1e-9);
        let weights: f64 = rule.mapped(-1.0, 1.0).map(|(_, w)| w).sum();
        assert!((weights - 2.0).abs() < 1e-14);
    }

    #[test]
    fn composite_rule_converges_on_smooth_functions() {
        let rule = GaussLegendre::new(10);
        let got = rule.integrate_composite(0.0, std::f64::consts::PI, 7, f64::sin);
        assert!((got - 2.0).abs() < 1e-14);
    }
}
