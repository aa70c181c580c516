# Runs the authors' linearregression_gibbs.R as published (sourced unchanged, in
# the working directory beside its .RData files; its own arguments are this
# script's, e.g. 'niter <- 2000') on their saved release (ε = 10, noise level 1,
# experiment 1) and writes into $JU_OUT:
#   reg_release.csv  their release in privpost's layout: XᵀY (3), YᵀY, then XᵀX's
#                    lower triangle row by row (0,0), (1,0), (1,1), (2,0), (2,1), (2,2)
#   reg_draws.csv    β of every iteration;  reg_time.txt  CPU seconds, iterations,
#                    ε, Δ, mean acceptance
.out <- Sys.getenv("JU_OUT")
pdf(NULL)
# its closing plots index the last 2000 iterations: fewer iterations stop there, after sampling
.t <- system.time(tryCatch(source("linearregression_gibbs.R"),
                           error = function(e) message("after sampling: ", conditionMessage(e))))
.x <- sdp[[3]]
.v <- c(sdp[[1]], sdp[[2]], .x[1, 1], .x[2, 1], .x[2, 2], .x[3, 1], .x[3, 2], .x[3, 3])
write.csv(data.frame(value = .v), file.path(.out, "reg_release.csv"), row.names = FALSE)
write.csv(t(beta_chain), file.path(.out, "reg_draws.csv"), row.names = FALSE)
writeLines(c(as.character(.t[["user.self"]] + .t[["sys.self"]]), as.character(niter),
             as.character(eps), as.character(deltaa), as.character(mean(acc_chain))),
           file.path(.out, "reg_time.txt"))
