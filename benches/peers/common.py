"""What every peer script shares: the data file, the prior and the run length."""
import numpy as np

WARMUP = 1000
DRAWS = 1000
BETA0 = 1e-3  # prior N(0, (n·β₀)⁻¹ I), as Geumlek et al. §5.2


def load(path):
    """(y ∈ {−1, +1}, X, prior precision n·β₀) of a `privpost data export` CSV."""
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    y, X = data[:, 0], data[:, 1:]
    return y, X, X.shape[0] * BETA0
