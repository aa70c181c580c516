# Runs the authors' loglinear_gibbs.R as published (sourced unchanged, in the
# working directory beside its .RData files; its own arguments are this
# script's, e.g. 'niter <- 2000' 'noiselevel <- 3' 'iexp <- 1') and writes into
# $JU_OUT:
#   release.csv  their noisy tables m_ijk in privpost's statistic layout
#                (feature k, then class i, then answer j)
#   draws.csv    p1..p5 of every iteration
#   time.txt     CPU seconds (user + system) of the whole script, iterations, ε
.out <- Sys.getenv("JU_OUT")
.t <- system.time(source("loglinear_gibbs.R"))
.m <- unlist(lapply(1:K, function(k) as.vector(mijk[[k]])))  # column-major: answer fastest
write.csv(data.frame(value = .m), file.path(.out, "release.csv"), row.names = FALSE)
write.csv(p_gibbs, file.path(.out, "draws.csv"), row.names = FALSE)
writeLines(c(as.character(.t[["user.self"]] + .t[["sys.self"]]), as.character(niter),
             as.character(epsilon), as.character(mean(acc_gibbs))),
           file.path(.out, "time.txt"))
