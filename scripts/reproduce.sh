#!/usr/bin/env bash
# Regenerates every figure at paper scale into results/ (extra arguments are
# passed to `privpost run`, e.g. --jobs 2), the raisa2021 figures' `replication`
# profile (the larger runs their notes' verdicts rest on) and xiong2025/coupling's
# `give_up` profile, then checks the README's quoted
# numbers against the new CSVs (scripts/readme-numbers.sh) and refreshes the README's
# thumbnails (docs/figures/thumbs). With --smoke (or any --profile / --set / --out)
# both are skipped: they need paper scale in results/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --locked --quiet -- run --all "$@"
case " $* " in
    *" --smoke "* | *" --profile"* | *" --set"* | *" --out"*) echo "README numbers not checked (not a paper-scale run into results/)" ;;
    *) # the stated larger runs behind the raisa2021 notes' verdicts (50 repeats or runs)
       # and the banana on the authors' own inputs
       cargo run --release --locked --quiet -- run raisa2021/banana raisa2021/gauss raisa2021/gmm --profile replication "$@"
       cargo run --release --locked --quiet -- run raisa2021/banana --profile authors "$@"
       # the coupling benchmark with the authors' give-up proposal coupling
       cargo run --release --locked --quiet -- run xiong2025/coupling --profile give_up "$@"
       bash scripts/readme-numbers.sh results
       cargo run --release --locked --quiet -- gallery results --thumbnails docs/figures/thumbs ;;
esac
