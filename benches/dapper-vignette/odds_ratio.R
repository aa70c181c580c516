# The odds ratio (pi_11 pi_00) / (pi_10 pi_01) of a draws CSV with a chain column and
# the four cells under the names given, summarised by one estimator for every
# sampler. The posterior mean of the odds ratio does not exist here: the
# randomized-response likelihood is bounded away from 0 as a cell's probability
# goes to 0, so the posterior density of pi_10 stays above a multiple of its
# Beta(1, 3) prior's near 0, where E[1/pi_10] diverges. So the odds ratio is given
# by its median and central 95 % interval (each with posterior::mcse_quantile) and
# its logarithm by mean (posterior::mcse_mean) and sd; bulk ESS over the chains
# (posterior::ess_bulk, rank-based, the same for the odds ratio and its log).
# Usage: Rscript odds_ratio.R DRAWS.csv PI_11 PI_10 PI_01 PI_00
#   prints "median,se,q2.5,se,q97.5,se,log_mean,se,log_sd,ess_bulk"
a <- commandArgs(TRUE)
d <- read.csv(a[1], check.names = FALSE)
or <- d[[a[2]]] * d[[a[5]]] / (d[[a[3]]] * d[[a[4]]])
chains <- sort(unique(d$chain))
m <- sapply(chains, function(c) or[d$chain == c])   # iterations x chains
q <- function(p) c(quantile(or, p, names = FALSE), posterior::mcse_quantile(m, p))
cat(sprintf("%.4f", c(q(0.5), q(0.025), q(0.975), mean(log(or)), posterior::mcse_mean(log(m)),
                      sd(log(or)), posterior::ess_bulk(m))), sep = c(rep(",", 9), "\n"))
