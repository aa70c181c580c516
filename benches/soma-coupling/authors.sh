#!/usr/bin/env bash
# Xiong & Ju's own coupling benchmark (regression.py of Yifei-Xiong/SOMA-Sampler,
# torch on the CPU), run over a grid, its meeting times gathered into one CSV
# (not run in CI). For each ε and seed it runs method 1 (SOMA)
# first, because every method's coupling starts chain 1 from the end of the SOMA
# fit (their `ModelInfo_modify`, `_me+1_`), then methods 2 (random-scan IMwG) and
# 3 (systematic-scan IMwG), which skip their own fit (it is not used). A run that has not met within STEPS iterations is
# censored at STEPS (their `coupling_times = args.step`).
#
#   usage: benches/soma-coupling/authors.sh SOMA_SRC OUT.csv STEPS "EPSILONS" "SEEDS"
#     SOMA_SRC  their repository (a folder), with reference_theta/ and config.yaml
#     STEPS     their --step: the fit's length and the coupling's cap (theirs: 10000)
#   e.g. benches/soma-coupling/authors.sh ~/SOMA-Sampler soma.csv 2000 "1.0 100.0" "1 2"
#
# Needs python with torch 2.7, numpy, scipy, PyYAML, tqdm, matplotlib (their
# requirements.txt; PYTHON names the interpreter, default python3).
set -euo pipefail
src=$1 out=$2 steps=$3 epsilons=$4 seeds=$5
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src"/. "$work"/
mkdir -p "$work/ckpts" "$work/fig"
sed -i "s|^FileSavePath_linux.*|FileSavePath_linux: \"$work\"|" "$work/config.yaml"
echo "epsilon,method,seed,steps,meeting,censored,seconds" > "$out"
for eps in $epsilons; do
    for seed in $seeds; do
        for method in 1 2 3; do
            start=$(date +%s.%N)
            # methods 2 and 3 skip their own fit: their coupling reads the SOMA fit's state
            fit=$([ "$method" = 1 ] && echo 1 || echo 0)
            log=$(cd "$work" && "$py" regression.py --gpu 0 --tqdm 0 --method "$method" --eps "$eps" \
                --step "$steps" --seed "$seed" --enable_fit "$fit" 2>&1) || { echo "$log" >&2; exit 1; }
            seconds=$(echo "$(date +%s.%N) - $start" | bc)
            met=$(echo "$log" | sed -n 's/^Chain coupled at iteration \([0-9]*\)\./\1/p' | tail -1)
            if [ -n "$met" ]; then
                echo "$eps,$method,$seed,$steps,$met,false,$seconds" >> "$out"
            else
                echo "$eps,$method,$seed,$steps,$steps,true,$seconds" >> "$out"
            fi
            tail -1 "$out"
        done
    done
done
