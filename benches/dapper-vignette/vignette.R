# dapper 1.1's randomized-response vignette (vignettes/randomized-response.Rmd of
# mango-empire/dapper; Example 1 of Eng et al.'s dapper paper), run as its text
# prescribes: the same confidential subsample and release (the same R random calls
# in the same order), the same four modules, Dirichlet(1, 1, 1, 1) prior,
# dapper_sample(seed = 123, chains = 4, init_par = 1/4 each) with the iterations
# given. Writes into OUT:
#   release.csv       the released records (sex, status as labels), privpost's input
#   confidential.csv  the confidential subsample (same layout), for the comparisons
#   dapper_draws.csv  chain, draw, pi_11, pi_10, pi_01, pi_00 after warm-up
#   dapper_time.txt   CPU seconds of dapper_sample (user + system), mean record acceptance
# Usage: Rscript vignette.R OUT NITER WARMUP   (the vignette: 6000 1000)
a <- commandArgs(TRUE)
out <- a[1]; niter <- as.integer(a[2]); warmup <- as.integer(a[3])

# the confidential data: UC Berkeley admissions summed over departments, in the
# vignette's cell order (male admitted, male rejected, female admitted, female rejected)
cells <- data.frame(sex = c(1, 1, 0, 0), status = c(1, 0, 1, 0))
cnf <- cells[rep(1:4, times = c(1198, 1493, 557, 1278)), ]
set.seed(1)
n <- 400
cnf <- cnf[sample(seq_len(nrow(cnf)), n, replace = FALSE), ]
# randomized response on both attributes: with probability 1/2 a value is replaced
# by a fair coin, so it is kept with probability 3/4 (epsilon = 2 log 3)
replaced <- as.logical(rbinom(2 * n, 1, 1/2))
coin <- rbinom(sum(replaced), 1, 1/2)
sdp <- c(as.matrix(cnf))
sdp[replaced] <- coin

label <- function(sex, status) data.frame(
  sex = ifelse(sex == 1, "Male", "Female"),
  status = ifelse(status == 1, "Admitted", "Rejected"))
write.csv(label(sdp[1:n], sdp[n + 1:n]), file.path(out, "release.csv"), row.names = FALSE, quote = FALSE)
write.csv(label(cnf$sex, cnf$status), file.path(out, "confidential.csv"), row.names = FALSE, quote = FALSE)

# the four modules: theta = (pi_11, pi_10, pi_01, pi_00)
rows <- list(c(1, 1), c(1, 0), c(0, 1), c(0, 0))
latent_f <- function(theta) do.call(rbind, sample(rows, n, replace = TRUE, prob = theta))
posterior_f <- function(dmat, theta) {
  s <- dmat[, 1]; t <- dmat[, 2]
  g <- rgamma(4, shape = c(sum(s & t), sum(s & !t), sum(!s & t), sum(!s & !t)) + 1, rate = 1)
  g / sum(g)
}
statistic_f <- function(xi, sdp, i) sum(xi == sdp[c(i, length(sdp) %/% 2 + i)])
mechanism_f <- function(sdp, sx) sx * log(3/4) + (length(sdp) - sx) * log(1/4)

dmod <- dapper::new_privacy(posterior_f = posterior_f, latent_f = latent_f,
                            mechanism_f = mechanism_f, statistic_f = statistic_f,
                            npar = 4, varnames = c("pi_11", "pi_10", "pi_01", "pi_00"))
t <- system.time(fit <- dapper::dapper_sample(dmod, sdp = sdp, seed = 123, niter = niter,
                                              warmup = warmup, chains = 4,
                                              init_par = rep(0.25, 4)))
d <- posterior::as_draws_df(fit$chain)
write.csv(data.frame(chain = d$.chain, draw = d$.iteration, pi_11 = d$pi_11, pi_10 = d$pi_10,
                     pi_01 = d$pi_01, pi_00 = d$pi_00),
          file.path(out, "dapper_draws.csv"), row.names = FALSE)
writeLines(c(as.character(t[["user.self"]] + t[["sys.self"]]), as.character(mean(fit$mean_accept))),
           file.path(out, "dapper_time.txt"))

# the vignette's two comparisons, exact Dirichlet(1 + counts) draws (20,000 each):
# the confidential records, and the released records taken as if confidential
conjugate <- function(s, t) {
  cnt <- c(sum(s & t), sum(s & !t), sum(!s & t), sum(!s & !t)) + 1
  g <- matrix(rgamma(4 * 20000, shape = cnt, rate = 1), nrow = 4)
  or <- g[1, ] * g[4, ] / (g[2, ] * g[3, ])
  q <- quantile(or, c(0.5, 0.025, 0.975), names = FALSE)
  paste(sprintf("%.4f", c(q[1], 0, q[2], 0, q[3], 0, mean(log(or)), 0, sd(log(or)), 0)), collapse = ",")
}
set.seed(1)
writeLines(c(conjugate(cnf$sex == 1, cnf$status == 1),
             conjugate(sdp[1:n] == 1, sdp[n + 1:n] == 1)),
           file.path(out, "conjugate.txt"))
