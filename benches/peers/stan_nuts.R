# Stan's NUTS (rstan, Debian's r-cran-rstan) on the same posterior as numpyro_nuts.py,
# written with Stan's fastest form of this likelihood, bernoulli_logit_glm (analytic
# gradient). usage: Rscript stan_nuts.R DATA.csv DRAWS.csv — writes the draws and prints
# one JSON line: CPU seconds of the whole run (model compilation by g++ included, as
# child CPU time) and of the sampling call alone.
suppressPackageStartupMessages(library(rstan))
args <- commandArgs(trailingOnly = TRUE)
t_start <- proc.time()
D <- as.matrix(read.csv(args[1]))
y <- as.integer((D[, 1] + 1) / 2)
X <- D[, -1, drop = FALSE]
code <- "
data { int<lower=1> n; int<lower=1> d; matrix[n, d] X; int<lower=0, upper=1> y[n]; real<lower=0> precision; }
parameters { vector[d] w; }
model {
  w ~ normal(0, 1 / sqrt(precision));
  target += bernoulli_logit_glm_lpmf(y | X, 0, w);
}
"
model <- stan_model(model_code = code)
data <- list(n = nrow(X), d = ncol(X), X = X, y = y, precision = nrow(X) * 1e-3)
t_sample <- proc.time()
fit <- sampling(model, data = data, chains = 1, warmup = 1000, iter = 2000, seed = 1,
                refresh = 0, cores = 1)
s <- proc.time() - t_sample
t <- proc.time() - t_start
cpu <- function(p) sum(p[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE)
w <- as.matrix(fit, pars = "w")
write.table(w, args[2], sep = ",", row.names = FALSE, col.names = FALSE)
grads <- sum(get_num_leapfrog_per_iteration(fit))
cat(sprintf('{"cpu_total": %.3f, "cpu_sampling": %.3f, "gradients": %d}\n', cpu(t), cpu(s), grads))
