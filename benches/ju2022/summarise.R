# Mean, sd and bulk ESS (posterior::ess_bulk, Vehtari et al. 2021) of the first
# `columns` parameter columns of a one-chain draws CSV, after dropping `drop`
# rows; the same estimator for every sampler in the comparison.
# Usage: Rscript summarise.R DRAWS.csv DROP COLUMNS [SKIP]   (SKIP leading columns: 2 for privpost's chain, draw)
a <- commandArgs(TRUE)
d <- read.csv(a[1])
drop <- as.integer(a[2]); cols <- as.integer(a[3]); skip <- if (length(a) > 3) as.integer(a[4]) else 0
d <- d[(drop + 1):nrow(d), skip + seq_len(cols), drop = FALSE]
for (j in seq_len(cols)) {
  x <- d[[j]]
  cat(sprintf("%d,%.5f,%.5f,%.1f\n", j, mean(x), sd(x), posterior::ess_bulk(matrix(x, ncol = 1))))
}
