#!/usr/bin/env bash
# A real Slurm test of `privpost slurm` / `run --shard` / `merge` on this one machine.
#
# Installs slurm-wlm and munge from the Debian packages (if missing), writes a minimal
# slurm.conf for this host into a temporary folder (nothing under /etc/slurm is touched),
# starts munged (unless one runs), slurmctld and slurmd, then:
#   1. runs a small sweep on this machine (foulds2016/fig2 with a 2-point ε sweep and
#      bun2018/fig2, smoke profile) as the reference;
#   2. submits the same sweep with `privpost slurm --shards 4 --max-array-size 3 --submit`
#      (two job arrays, 3 + 1 shards, and the merge job with --dependency=afterok), waits,
#      and compares every merged CSV byte for byte with the reference;
#   3. removes one shard's task rows (its packs) and record, checks that `privpost merge` refuses
#      (exit 2, naming the shard), resubmits that array task alone with sbatch, merges,
#      and compares again;
# and stops exactly the daemons it started (by PID), also on failure.
#
# Needs root (CI machines are). Usage: scripts/slurm-local.sh [path/to/privpost]
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${CARGO_TARGET_DIR:-$repo/target}/release/privpost}"
[ "$(id -u)" = 0 ] || { echo "slurm-local.sh: needs root (to start munged, slurmctld, slurmd)" >&2; exit 2; }
[ -x "$bin" ] || { echo "slurm-local.sh: no privpost binary at $bin (cargo build --release)" >&2; exit 2; }
bin="$(readlink -f "$bin")"

log() { echo "slurm-local: $*" >&2; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
    log "installing slurm-wlm and munge (Debian packages)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null; }
fi

work="$(mktemp -d /tmp/privpost-slurm.XXXXXX)"
chmod 755 "$work"
started_pids=()
cleanup() {
    local rc=$?
    # stop exactly what we started, newest first
    for ((k = ${#started_pids[@]} - 1; k >= 0; k--)); do
        pid="${started_pids[k]}"
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    if [ "$rc" != 0 ]; then
        log "FAILED (exit $rc); daemon logs:"
        tail -n 30 "$work"/slurmctld.log "$work"/slurmd.log 2>/dev/null >&2 || true
        for f in "$work"/cluster/.privpost-shards/*/slurm/logs/*; do
            [ -f "$f" ] && { echo "== $f" >&2; tail -n 20 "$f" >&2; }
        done
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# munge: a key readable only by user munge, and munged running as munge
if ! pgrep -x munged >/dev/null; then
    if [ ! -s /etc/munge/munge.key ]; then
        log "creating /etc/munge/munge.key"
        mkdir -p /etc/munge
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
    for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
    started_pids+=("$(cat /run/munge/munged.pid)")
    log "started munged (pid ${started_pids[-1]})"
else
    log "munged already runs; using it"
fi

host="$(hostname -s)"
cpus="$(nproc)"
mem_mb="$(free -m | awk '/^Mem:/ { print int($2 * 0.8) }')"
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=privpost-local
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
MinJobAge=600
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
log "$(sbatch --version)"

/usr/sbin/slurmctld -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.1; done
started_pids+=("$(cat "$work/slurmctld.pid")")
log "started slurmctld (pid ${started_pids[-1]})"
/usr/sbin/slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$work/slurmd.pid" ] && break; sleep 0.1; done
started_pids+=("$(cat "$work/slurmd.pid")")
log "started slurmd (pid ${started_pids[-1]})"
for _ in $(seq 120); do
    state="$(sinfo -h -n "$host" -o %T 2>/dev/null || true)"
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || { log "node $host is '$state', not idle"; exit 1; }
log "node $host idle ($cpus CPUs, ${mem_mb} MB)"

cd "$repo"
sweep=(foulds2016/fig2 bun2018/fig2 --smoke --set 'epsilon=0.1,1')

log "1. reference run on this machine"
"$bin" run "${sweep[@]}" --out "$work/single" --quiet >/dev/null

# wait until none of the jobs in $@ is pending or running (at most 10 minutes)
wait_jobs() {
    local ids
    ids="$(IFS=,; echo "$*")"
    for _ in $(seq 1200); do
        [ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    log "jobs $ids still queued after 10 minutes"; squeue >&2; return 1
}
job_state() { scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }

compare() {
    local n=0
    while IFS= read -r f; do
        cmp "$work/single/$f" "$work/cluster/$f"
        n=$((n + 1))
    done < <(cd "$work/single" && find . -name '*.csv' | sort)
    [ "$n" -gt 0 ] || { log "no CSVs to compare"; return 1; }
    log "$n CSVs byte-identical to the single-machine run"
}

log "2. privpost slurm --shards 4 --max-array-size 3 --submit"
submitted="$("$bin" slurm "${sweep[@]}" --out "$work/cluster" --shards 4 --max-array-size 3 \
    --cpus-per-task 1 --time 10 --submit)"
echo "$submitted" >&2
arrays=($(echo "$submitted" | sed -n 's/^array job [0-9]*: \([0-9]*\)$/\1/p'))
merge_job="$(echo "$submitted" | sed -n 's/^merge job: \([0-9]*\)$/\1/p')"
[ "${#arrays[@]}" = 2 ] && [ -n "$merge_job" ] || { log "expected two array jobs and a merge job"; exit 1; }
wait_jobs "${arrays[@]}" "$merge_job"
[ "$(job_state "$merge_job")" = COMPLETED ] || { log "merge job $merge_job: $(job_state "$merge_job")"; exit 1; }
compare
manifest="$work/cluster/foulds2016/fig2@smoke,epsilon=1/manifest.json"
grep -q '"slurm_job": "'"${arrays[0]}"'_' "$manifest" || { log "manifest does not record the array job"; exit 1; }
# --jobs inside an array task follows SLURM_CPUS_PER_TASK (--cpus-per-task 1)
grep -q '"jobs": 1,' "$work"/cluster/.privpost-shards/*/shard-1-of-4.json \
    || { log "shard 1 did not run with SLURM_CPUS_PER_TASK=1 worker threads"; exit 1; }

log "3. a lost shard: refused by merge, resubmitted alone, merged"
plan_dir="$(dirname "$(ls "$work"/cluster/.privpost-shards/*/plan.json)")"
plan="$(basename "$plan_dir")"
record="$plan_dir/shard-2-of-4.json"
python3 - "$record" "$work/cluster/.privpost-cache" <<'EOF'
import json, os, sys
record, cache = sys.argv[1], sys.argv[2]
# the shard's rows: the pack its process appended them to (one per process and run)
for run in json.load(open(record))["runs"]:
    folder = os.path.join(cache, run["run_key"])
    marks = [f"privpost-rows 1 task {t} rows".encode() for t in run["tasks"]]
    removed = 0
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if name.endswith(".pack") and any(m in open(path, "rb").read() for m in marks):
            os.remove(path)
            removed += 1
    assert removed, f"no pack of shard 2 in {folder}"
os.remove(record)
EOF
set +e
refusal="$("$bin" merge "$work/cluster" --plan "$plan" --force --quiet 2>&1 >/dev/null)"
rc=$?
set -e
[ "$rc" = 2 ] || { log "merge with a lost shard exited $rc, expected 2"; exit 1; }
echo "$refusal" | grep -q 'shard 2/4 has not finished' || { log "refusal does not name shard 2/4: $refusal"; exit 1; }
log "merge refused (exit 2): $(echo "$refusal" | head -n 2 | tr '\n' ' ')"
# shard 2 is array task 1 of the first array
sbatch --wait --array=1 "$plan_dir/slurm/array-0.sbatch" >/dev/null
[ -s "$record" ] || { log "the resubmitted shard wrote no record"; exit 1; }
rm -rf "$work/cluster/foulds2016" "$work/cluster/bun2018"
m2="$(sbatch --parsable --wait "$plan_dir/slurm/merge.sbatch")"
m2="${m2%%;*}"
[ "$(job_state "$m2")" = COMPLETED ] || { log "second merge job $m2: $(job_state "$m2")"; exit 1; }
compare
log "PASS"
