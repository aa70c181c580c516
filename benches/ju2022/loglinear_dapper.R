# The naive-Bayes log-linear model of Ju et al.'s example written as dapper's four
# modules (dapper_sample(), the CRAN package's record-wise sampler), run on the
# release their script drew (release.csv in $JU_OUT, privpost's layout) with the
# priors and N of loglinear_datageneratingparameters.RData. Writes into $JU_OUT:
#   dapper_draws.csv  p1..p5 after warm-up;  dapper_time.txt  CPU seconds, iterations
# Usage: Rscript loglinear_dapper.R NITER WARMUP EPSILON   (in their repository's folder)
args <- as.numeric(commandArgs(TRUE))
niter <- args[1]; warmup <- args[2]; eps <- args[3]
out <- Sys.getenv("JU_OUT")
load("loglinear_datageneratingparameters.RData")  # I, K, Jk, alp, alpha, N
sdp <- read.csv(file.path(out, "release.csv"))$value
b <- 2 * K / eps
offsets <- c(0, cumsum(Jk * I))[1:K]
ncell <- sum(Jk * I)
rdir <- function(a) { g <- rgamma(length(a), a, 1); g / sum(g) }
# theta = (p, then per feature k and class i its answer probabilities)
unpack <- function(theta) {
  at <- I
  pk <- lapply(1:K, function(k) {
    m <- matrix(theta[at + 1:(Jk[k] * I)], nrow = Jk[k]); at <<- at + Jk[k] * I; m
  })
  list(p = theta[1:I], pijk = pk)
}
posterior_f <- function(dmat, theta) {
  g <- factor(dmat[, 1], levels = 1:I)
  p <- rdir(as.vector(table(g)) + alp)
  rest <- unlist(lapply(1:K, function(k) {
    n <- table(factor(dmat[, k + 1], levels = 1:Jk[k]), g)
    unlist(lapply(1:I, function(i) rdir(n[, i] + alpha[[k]][, i])))
  }))
  c(p, rest)
}
latent_f <- function(theta) {
  u <- unpack(theta)
  g <- sample.int(I, N, TRUE, u$p)
  ans <- sapply(1:K, function(k) sapply(g, function(gi) sample.int(Jk[k], 1, prob = u$pijk[[k]][, gi])))
  cbind(g, ans)
}
statistic_f <- function(xi, sdp, i) {
  s <- numeric(ncell)
  s[offsets + (xi[1] - 1) * Jk + xi[-1]] <- 1
  s
}
mechanism_f <- function(sdp, sx) sum(-abs(sdp - sx) / b - log(2 * b))
dmod <- dapper::new_privacy(posterior_f = posterior_f, latent_f = latent_f,
                            mechanism_f = mechanism_f, statistic_f = statistic_f,
                            npar = I + ncell)
init <- c(rep(1 / I, I), unlist(lapply(1:K, function(k) rep(1 / Jk[k], Jk[k] * I))))
t <- system.time(fit <- dapper::dapper_sample(dmod, sdp = sdp, init_par = init, seed = 1,
                                              niter = niter, warmup = warmup, chains = 1))
draws <- as.matrix(fit$chain)[, 1:I]
write.csv(draws, file.path(out, "dapper_draws.csv"), row.names = FALSE)
writeLines(c(as.character(t[["user.self"]] + t[["sys.self"]]), as.character(niter),
             as.character(mean(fit$mean_accept))),
           file.path(out, "dapper_time.txt"))
