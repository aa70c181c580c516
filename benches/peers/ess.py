"""ArviZ's rank-normalised bulk and tail ESS (minimum over coordinates) and R-hat
(maximum) of a draws CSV (one row per draw, one chain), as one JSON line."""
import json
import sys

import numpy as np
import arviz as az

w = np.loadtxt(sys.argv[1], delimiter=",", ndmin=2)
data = az.convert_to_dataset(w[None, :, :])
bulk = az.ess(data, method="bulk")["x"].values
tail = az.ess(data, method="tail")["x"].values
rhat = az.rhat(data)["x"].values
print(json.dumps({"ess_bulk_min": float(bulk.min()), "ess_tail_min": float(tail.min()),
                  "rhat_max": float(rhat.max()), "draws": int(w.shape[0])}))
