#!/usr/bin/env python3
"""Independent privacy-accounting values for tests/oracles.rs, printed as one JSON object.

Libraries (pinned in tests/reference/oracles-requirements.txt, installed by the test
into a temporary virtual environment):
  dp-accounting  - RDP of the Poisson-subsampled Gaussian at integer and fractional
                   orders, its (improved) RDP-to-(eps, delta) conversion, and its PLD
                   accountant (pessimistic estimate: an upper bound);
  autodp         - subsampled-mechanism RDP composition (Wang, Balle, Kasiviswanathan
                   2019) of the Heikkila et al. 2019 Barker step: the paper's headline;
  prv-accountant - certified [lower, upper] bracket on eps (Gopi, Lee, Wutschitz 2021);
  dp-accounting  - also the PLD of compositions of plain Gaussian mechanisms (the penalty
                   algorithm and DP-HMC), pessimistic and optimistic.
Run:  python3 tests/reference/oracles.py   (the test does this)
"""
import json
import math

import mpmath as mp
import sys

import dp_accounting
from dp_accounting import pld, rdp
from dp_accounting.rdp import rdp_privacy_accountant as rpa
from autodp import rdp_acct
from prv_accountant import PRVAccountant
from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

Q, SIGMA, DELTA = 1e-4, 1.19523, 2e-6
STEPS = [100_000, 6_000_000]
out = {"versions": {}}
for name in ["dp_accounting", "autodp", "prv_accountant", "numpy", "scipy"]:
    try:
        from importlib.metadata import version
        out["versions"][name] = version(name.replace("_", "-"))
    except Exception:  # noqa: BLE001
        out["versions"][name] = "unknown"

# 1. per-step RDP at integer and fractional orders, several (q, sigma)
orders = [1.5, 2, 2.5, 3, 5, 10, 10.5, 22, 22.5, 50, 100]
out["rdp"] = []
for q, s in [(Q, SIGMA), (0.01, 1.0), (0.1, 2.0)]:
    vals = rpa._compute_rdp_poisson_subsampled_gaussian(q, s, orders)
    out["rdp"].append({"q": q, "sigma": s, "orders": orders, "rdp": [float(v) for v in vals]})

# 1b. the same by quadrature (mpmath, 40 digits): A = E_Q[(P/Q)^alpha], the definition
mp.mp.dps = 40
out["quadrature"] = []
for q, s in [(Q, SIGMA), (0.01, 1.0), (0.1, 2.0)]:
    vals = []
    for a in orders:
        qq, ss, aa = mp.mpf(q), mp.mpf(s), mp.mpf(a)
        f = lambda x: mp.npdf(x, 0, ss) * (1 - qq + qq * mp.e ** ((2 * x - 1) / (2 * ss * ss))) ** aa
        area = mp.quad(f, [-mp.inf, -20, -5, 0, 5, 20, 40, mp.inf])
        vals.append(float(mp.log(area) / (aa - 1)))
    out["quadrature"].append({"q": q, "sigma": s, "orders": orders, "rdp": vals})

# 2. the improved conversion over integer orders 2..499 (privpost searches integers)
out["improved"] = []
for t in STEPS:
    acc = rdp.RdpAccountant(orders=list(range(2, 500)))
    acc.compose(dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(SIGMA)), t)
    out["improved"].append({"iterations": t, "epsilon": acc.get_epsilon(DELTA)})

# 3. PLD, pessimistic and optimistic
out["pld"] = []
for t in STEPS:
    row = {"iterations": t}
    for flag, key in [(True, "pessimistic")]:
        one = pld.privacy_loss_distribution.from_gaussian_mechanism(
            standard_deviation=SIGMA, sensitivity=1.0, pessimistic_estimate=flag,
            value_discretization_interval=1e-4, sampling_prob=Q)
        row[key] = one.self_compose(t).get_epsilon_for_delta(DELTA)
    out["pld"].append(row)

# 4. PRV bracket
out["prv"] = []
for t in STEPS:
    a = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=SIGMA, sampling_probability=Q)],
                      max_self_compositions=[t], eps_error=0.01, delta_error=1e-9)
    lo, est, hi = a.compute_epsilon(delta=DELTA, num_self_compositions=[t])
    out["prv"].append({"iterations": t, "lower": lo, "estimate": est, "upper": hi})


# 5. autodp: the Heikkila headline (N = 1e6, b = 1000, T = 20000, delta = 1e-6, orders < 100)
def barker_step(a, b=1000):
    a = float(a)
    if a <= 1 or 5 * a >= b:
        return math.inf
    return 5 / (2 * b) + math.log(2 * b / (b - 5 * a)) / (2 * (a - 1)) + 2 * a / (b - 5 * a)


acct = rdp_acct.anaRDPacct(m=100, m_max=200)
acct.compose_subsampled_mechanism(barker_step, 0.001, coeff=20000)
out["autodp_barker"] = {"n_data": 1_000_000, "batch": 1000, "iterations": 20000, "delta": 1e-6,
                        "epsilon": acct.get_eps(1e-6)}
# 6. compositions of plain Gaussian mechanisms (the penalty algorithm and
#    DP-HMC, n = 1e5, banana settings of Raisa et al.): dp-accounting's PLD, pessimistic
#    (an upper bound) and optimistic (a lower bound), around privpost's closed form
def gaussian_pld(sigma, flag):
    return pld.privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=sigma, sensitivity=1.0, pessimistic_estimate=flag,
        value_discretization_interval=1e-4)


out["gaussian_composition"] = []
ROOT_N = math.sqrt(1e5)
for name, parts, k in [("penalty", [(0.17 * ROOT_N, 1)], 580),
                       ("penalty", [(0.17 * ROOT_N, 1)], 19180),
                       ("dp_hmc", [(0.10 * ROOT_N, 1), (0.55 * ROOT_N, 26)], 108),
                       ("dp_hmc", [(0.10 * ROOT_N, 1), (0.55 * ROOT_N, 26)], 3569)]:
    row = {"mechanism": name, "iterations": k}
    for flag, key in [(True, "pessimistic"), (False, "optimistic")]:
        step = None
        for sigma, times in parts:
            one = gaussian_pld(sigma, flag).self_compose(times)
            step = one if step is None else step.compose(one)
        row[key] = step.self_compose(k).get_epsilon_for_delta(1e-6)
    out["gaussian_composition"].append(row)

# 7. a composition of a Laplace and Gaussian mechanisms: Laplace(scale 10) +
#    10 x Gaussian(sigma 5), sensitivity 1, delta = 1e-5 -- dp-accounting's PLD bracket
#    (pessimistic, optimistic) and its RDP accountant (default orders)
from dp_accounting import dp_event, rdp as rdp_mod
row = {"delta": 1e-5}
for flag, key in [(True, "pessimistic"), (False, "optimistic")]:
    lap = pld.privacy_loss_distribution.from_laplace_mechanism(
        parameter=10.0, sensitivity=1.0, pessimistic_estimate=flag,
        value_discretization_interval=1e-4)
    gau = gaussian_pld(5.0, flag).self_compose(10)
    row[key] = lap.compose(gau).get_epsilon_for_delta(1e-5)
acc = rdp_mod.RdpAccountant()
acc.compose(dp_event.ComposedDpEvent([dp_event.LaplaceDpEvent(10.0),
                                      dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(5.0), 10)]))
row["rdp"] = acc.get_epsilon(1e-5)
out["laplace_gaussian"] = row

json.dump(out, sys.stdout, indent=1)
print()
