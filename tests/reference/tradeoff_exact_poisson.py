#!/usr/bin/env python3
"""The membership attacker's exact trade-off curve of T Poisson-subsampled Gaussian steps,
computed from the privacy loss under one hypothesis only: an independent check of
privpost's curve where riskcal's and gdpnum's numbers are not one (the DP-SGD-shaped event).

Tools: Python 3 with numpy and scipy (any recent versions; the output header names them).
Run:  python3 tests/reference/tradeoff_exact_poisson.py > tests/reference/tradeoff_exact_poisson.tsv

The pair. One step releases N(0, s^2) without the record (Q, the null hypothesis "out") and
(1 - q) N(0, s^2) + q N(1, s^2) with it (P). The log likelihood ratio of one step,
l(x) = ln(1 - q + q exp((2x - 1) / (2 s^2))), increases in x, so its law under Q has the CDF
Phi(x(v) / s) with x(v) = s^2 ln((e^v - (1 - q)) / q) + 1/2 (v > ln(1 - q)). The composed
loss L is the sum of T independent copies.

The curve. By Neyman and Pearson the best test at FPR alpha rejects "out" when L is large:
alpha(t) = Q(L > t), TPR(t) = P(L > t), randomised between the grid's thresholds (linear
interpolation). One step's loss law under P is P(l <= v) = (1 - q) Phi(x(v) / s) +
q Phi((x(v) - 1) / s); each law is composed on its own. No privacy-loss distribution of a
second direction enters, which is where riskcal's curve for this event goes wrong: its T(P, Q) pairs the add- and the
remove-direction PLDs, each discretised on its own, and moves with the grid (TPR at FPR 1e-3
0.0043470 at dp-accounting's default 1e-4, 0.0010836 at 3e-5; 0.2802 without connected dots).

The numbers. One step's loss is rounded to the nearest multiple of h over [ln(1 - q), 3]
(the mass above 3 is below 1e-20 for these events), and each law composed by FFT (T-th power
of the spectrum), its window placed around its mean. Each event is computed at h and at
h / 2; `rel_change` is the largest relative change of any reported number between them (the
discretisation error is about that size). Columns:
  tpr_at_fpr_1e-3/-2/-1: the attacker's largest TPR at those FPRs
  z_at_fpr_A: Phi^-1(1 - A) + Phi^-1(TPR(A)), the mu a Gaussian curve needs to pass below
    the curve at FPR A; the safe mu is their maximum over the FPRs it covers. Past 1e-7 the
    FFT's rounding noise is no longer small against the tail, so none is reported there.
"""
import importlib.metadata as md

import numpy as np
from scipy.stats import norm

ALPHAS = (1e-3, 1e-2, 1e-1)
Z_ALPHAS = (1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)

# name, privpost event (JSON, as `privpost account --event` reads it), q, s, T, h, FFT length
EVENTS = [
    (
        "poisson_gaussian_gdpnum_readme",
        '{"mechanism": "repeat", "times": 2000, "event": {"mechanism": "poisson_subsampled_gaussian", "q": 0.328, "sigma": 9.4}}',
        0.328,
        9.4,
        2000,
        2e-5,
        1 << 22,
    ),
    (
        "dp_sgd_q256of60000_sigma1.1_T10000",
        '{"mechanism": "repeat", "times": 10000, "event": {"mechanism": "poisson_subsampled_gaussian", "q": 0.004266666666666667, "sigma": 1.1}}',
        256 / 60000,
        1.1,
        10000,
        2e-5,
        1 << 21,
    ),
]


def step_pmfs(q, s, h):
    """One step's loss under Q and under P on the grid k h, k = k0..k1, each rounded to
    the nearest point: CDF differences of Q(l <= v) = Phi(x(v) / s) and
    P(l <= v) = (1 - q) Phi(x(v) / s) + q Phi((x(v) - 1) / s)."""
    lo = np.log1p(-q)
    k0, k1 = int(np.floor(lo / h)), int(np.ceil(3.0 / h))
    edges = (np.arange(k0, k1) + 0.5) * h
    cdf_q, cdf_p = np.zeros_like(edges), np.zeros_like(edges)
    ok = edges > lo
    x = s * s * np.log((np.exp(edges[ok]) - (1.0 - q)) / q) + 0.5
    cdf_q[ok] = norm.cdf(x / s)
    cdf_p[ok] = (1.0 - q) * norm.cdf(x / s) + q * norm.cdf((x - 1.0) / s)
    pmfs = [np.diff(np.concatenate([[0.0], c, [1.0]])) for c in (cdf_q, cdf_p)]
    return k0, pmfs


def upper_tails(k0, pmf, t, h, n):
    """The composed loss's grid points (increasing) and its law's mass strictly above
    each, by FFT (the T-th power of the spectrum), the window placed around its mean."""
    spectrum = np.fft.rfft(np.concatenate([pmf, np.zeros(n - pmf.size)]))
    comp = np.maximum(np.fft.irfft(spectrum**t, n), 0.0)
    mean = t * np.dot(np.arange(pmf.size), pmf)
    idx = np.arange(n)
    index = idx + n * np.round((mean - idx) / n)
    order = np.argsort(index)
    p = comp[order] / comp.sum()
    return (t * k0 + index[order]) * h, np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])


def curve(q, s, t, h, n):
    """(alpha, tpr) at every threshold of the composed loss, alpha decreasing: the test
    rejecting "out" when L > t has alpha = Q(L > t) and TPR = P(L > t)."""
    k0, (pmf_q, pmf_p) = step_pmfs(q, s, h)
    loss_q, alpha = upper_tails(k0, pmf_q, t, h, n)
    loss_p, tpr = upper_tails(k0, pmf_p, t, h, n)
    # both windows hold the same grid points, maybe shifted: align on loss
    tpr = np.interp(loss_q, loss_p, tpr)
    return alpha, tpr


def read(alpha, tpr, a0):
    """The randomised test's TPR at FPR a0 (between the thresholds either side)."""
    i = int(np.searchsorted(-alpha, -a0))
    a_hi, a_lo, t_hi, t_lo = alpha[i - 1], alpha[i], tpr[i - 1], tpr[i]
    w = (a_hi - a0) / (a_hi - a_lo)
    return t_hi + w * (t_lo - t_hi)


def numbers(q, s, t, h, n):
    alpha, tpr = curve(q, s, t, h, n)
    tprs = [read(alpha, tpr, a) for a in ALPHAS]
    zs = [norm.isf(a) - norm.isf(read(alpha, tpr, a)) for a in Z_ALPHAS]
    return tprs + zs


def main():
    print(
        "# numpy {}, scipy {}; generated by tests/reference/tradeoff_exact_poisson.py".format(
            md.version("numpy"), md.version("scipy")
        )
    )
    print(
        "\t".join(
            ["name", "event", "h"]
            + ["tpr_at_fpr_%g" % a for a in ALPHAS]
            + ["z_at_fpr_%g" % a for a in Z_ALPHAS]
            + ["rel_change"]
        )
    )
    for name, event, q, s, t, h, n in EVENTS:
        coarse = numbers(q, s, t, 2 * h, n // 2)
        fine = numbers(q, s, t, h, n)
        change = max(abs(f - c) / abs(f) for f, c in zip(fine, coarse))
        print("\t".join([name, event, "%g" % h] + ["%.10g" % v for v in fine] + ["%.3g" % change]))


if __name__ == "__main__":
    main()
