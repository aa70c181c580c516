#!/usr/bin/env python3
"""Trade-off curve numbers of reference events by riskcal 1.5.1 and gdpnum 0.1.2.

Tools: riskcal 1.5.1, gdpnum 0.1.2 and the dp-accounting they install (versions in the
output header), Python 3, in a temporary venv:
    python3 -m venv /tmp/riskenv && /tmp/riskenv/bin/pip install riskcal==1.5.1 gdpnum==0.1.2
Run:  /tmp/riskenv/bin/python tests/reference/tradeoff_riskcal.py > tests/reference/tradeoff_riskcal.tsv

Each event's privacy-loss distribution is dp-accounting's with its defaults
(connect-the-dots, pessimistic, value discretisation 1e-4): on the Gaussian mechanism
(sigma = 1) its TPR at FPR 1e-3 is 0.0182982 against the exact 0.0182985. Finer grids
made riskcal's TPR there worse, not better (0.018271 at 1e-5, 0.014877 at 1e-6), so the
defaults are the reference. Columns:
  tpr_at_fpr_1e-3/-2/-1: 1 - beta(alpha) at alpha = FPR (riskcal.analysis.get_beta_from_pld)
  advantage: max TPR - FPR (riskcal.analysis.get_advantage_from_pld, = delta(0))
  bayes_risk_0.9: riskcal.analysis.get_bayes_risk_from_pld at prior 0.9
  mu, regret: gdpnum.PLDConverter(pld).get_mu_and_regret()
  profile_tpr_at_fpr_1e-3/-2/-1, profile_mu: the same PLD's privacy profile
    (pld.get_delta_for_epsilon, both directions) turned into a curve by Dong, Roth & Su's
    Proposition 2.12, beta(alpha) = max over 16,001 eps in [0, 16] of
    max(1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)), and mu as the largest
    Phi^-1(1 - alpha) + Phi^-1(1 - beta) over 2,001 alpha in [1e-10, 1/2] (log-spaced).
    For symmetric PLDs this is the curve riskcal computes. On the DP-SGD-shaped event
    riskcal's curve (and gdpnum's mu from it) lies above the exact one, which
    tradeoff_exact_poisson.py computes: riskcal pairs the add- and remove-direction PLDs,
    each discretised on its own, as one pair's laws (docs/privacy.md).
"""
import importlib.metadata as md
import warnings

warnings.filterwarnings("ignore")

from dp_accounting.pld import privacy_loss_distribution as pl  # noqa: E402
from riskcal import analysis  # noqa: E402
import gdpnum  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import norm  # noqa: E402

H = 1e-4


def gaussian(sigma, sens=1.0):
    return pl.from_gaussian_mechanism(sigma, sensitivity=sens, value_discretization_interval=H)


def subsampled(sigma, q, steps):
    return pl.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=H
    ).self_compose(steps)


def laplace(b, sens=1.0):
    return pl.from_laplace_mechanism(b, sensitivity=sens, value_discretization_interval=H)


# name, privpost event (JSON, as `privpost account --event` reads it), PLD
EVENTS = [
    ("gaussian_sigma1", '{"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 1}', lambda: gaussian(1.0)),
    ("gaussian_sigma2_sens3", '{"mechanism": "gaussian", "l2_sensitivity": 3, "sigma": 2}', lambda: gaussian(2.0, 3.0)),
    ("laplace_eps1", '{"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1}', lambda: laplace(1.0)),
    ("laplace_eps0.5", '{"mechanism": "laplace", "l1_sensitivity": 1, "scale": 2}', lambda: laplace(2.0)),
    (
        "laplace_eps1_plus_gaussian_sigma2",
        '{"mechanism": "compose", "composition": "sequential", "parts": ['
        '{"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1}, '
        '{"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 2}]}',
        lambda: laplace(1.0).compose(gaussian(2.0)),
    ),
    (
        "laplace_eps0.3_x3",
        '{"mechanism": "repeat", "times": 3, "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 3.3333333333333335}}',
        lambda: laplace(3.3333333333333335).self_compose(3),
    ),
    (
        # gdpnum's README example: its README prints mu 1.5685621993129137, regret 0.0010208130697719753; its
        # get_mu_and_regret_for_dpsgd gives 1.5684997355240302, 0.0010272571817040443 with dp-accounting 0.6.0
        "poisson_gaussian_gdpnum_readme",
        '{"mechanism": "repeat", "times": 2000, "event": {"mechanism": "poisson_subsampled_gaussian", "q": 0.328, "sigma": 9.4}}',
        lambda: subsampled(9.4, 0.328, 2000),
    ),
    (
        # DP-SGD-shaped: batches of 256 of 60,000 records, noise multiplier 1.1, 10,000 steps
        "dp_sgd_q256of60000_sigma1.1_T10000",
        '{"mechanism": "repeat", "times": 10000, "event": {"mechanism": "poisson_subsampled_gaussian", "q": 0.004266666666666667, "sigma": 1.1}}',
        lambda: subsampled(1.1, 256 / 60000, 10000),
    ),
]


def profile_numbers(pld):
    eps = np.linspace(0.0, 16.0, 16001)
    delta = np.array(pld.get_delta_for_epsilon(eps))

    def beta(a):
        return float(np.max(np.maximum(np.maximum(1 - delta - np.exp(eps) * a, np.exp(-eps) * (1 - delta - a)), 0.0)))

    tpr = [1.0 - beta(a) for a in (1e-3, 1e-2, 1e-1)]
    alphas = np.exp(np.linspace(np.log(1e-10), np.log(0.5), 2001))
    mus = [norm.isf(a) + norm.isf(b) for a in alphas for b in [beta(a)] if b >= 1e-10]
    return tpr + [max(mus)]


def main():
    print(
        "# riskcal {}, gdpnum {}, dp-accounting {}; value discretisation {}; "
        "generated by tests/reference/tradeoff_riskcal.py".format(
            md.version("riskcal"), md.version("gdpnum"), md.version("dp-accounting"), H
        )
    )
    print(
        "name\tevent\ttpr_at_fpr_1e-3\ttpr_at_fpr_1e-2\ttpr_at_fpr_1e-1\tadvantage\tbayes_risk_0.9\tmu\tregret"
        "\tprofile_tpr_at_fpr_1e-3\tprofile_tpr_at_fpr_1e-2\tprofile_tpr_at_fpr_1e-1\tprofile_mu"
    )
    for name, event, make in EVENTS:
        pld = make()
        tpr = [1.0 - float(analysis.get_beta_from_pld(pld, alpha=a)) for a in (1e-3, 1e-2, 1e-1)]
        adv = float(analysis.get_advantage_from_pld(pld))
        risk = float(analysis.get_bayes_risk_from_pld(pld, 0.9))
        mu, regret = gdpnum.PLDConverter(pld).get_mu_and_regret()
        cells = [name, event] + ["%.10g" % v for v in tpr + [adv, risk, mu, regret] + profile_numbers(pld)]
        print("\t".join(cells))


if __name__ == "__main__":
    main()
