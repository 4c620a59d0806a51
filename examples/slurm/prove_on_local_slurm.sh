#!/bin/bash
# Proof that examples/slurm/basins.sbatch works on a real Slurm (issue 17): a one-node
# cluster on localhost runs a basin map as a job array of shards and a dependent merge job,
# and the merged files must equal, byte for byte, those of one `nsd run` without shards.
#
#   sudo bash examples/slurm/prove_on_local_slurm.sh        # from the repository root
#
# Run as root on a Debian machine (it may apt-get install slurm-wlm and munge); not part of
# `cargo test`. Steps:
#   1. installs Debian's slurm-wlm and munge if missing, and a munge key if there is none;
#   2. writes a private one-node slurm.conf (this host, CPUS CPUs, no cgroups, no accounting)
#      under WORK, exported as SLURM_CONF, so /etc/slurm is left alone;
#   3. starts munged (unless one answers already), slurmctld and slurmd;
#   4. builds nsd in release;
#   5. submits basins.sbatch as an array of SHARDS tasks on examples/slurm/basins_40x40.nsd
#      (40 × 40 cells at Ω = 1.2 in blocks of 400 cells), waits for the array and the merge
#      job that task 0 submits, and checks that every job COMPLETED;
#   6. runs the same analysis on this machine without shards;
#   7. compares data.csv, attractors.csv, section.csv and basins.svg with `cmp` (and
#      `diff -r` of the two folders, where only meta.json, with its timings, may differ).
# Prints `PASS` or `FAIL: …` last, exits 0 or 1. The daemons it started are stopped at exit.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/nsd-slurm-proof}
CPUS=${CPUS:-2}
SHARDS=${SHARDS:-4}
FILE=${FILE:-$ROOT/examples/slurm/basins_40x40.nsd}
NAME=${NAME:-basins}
TIMEOUT=${TIMEOUT:-1800}
NSD=$ROOT/target/release/nsd
STARTED=()

fail() { echo "FAIL: $*"; exit 1; }
stamp() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

cleanup() {
  for pidfile in "${STARTED[@]}"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || fail "run as root (installs packages, starts daemons)"

echo "== 1. packages"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge \
    || fail "apt-get install slurm-wlm munge"
fi
echo "$(slurmctld -V), $(munged -V 2>&1 | head -1)"
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key || fail "no munge key"
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
fi

echo "== 2. slurm.conf"
HOST=$(hostname -s)
rm -rf "$WORK" && mkdir -p "$WORK"/{state,spool,log,run}
export SLURM_CONF=$WORK/slurm.conf
cat > "$SLURM_CONF" <<EOF
# One node on localhost for the nsd proof (written by prove_on_local_slurm.sh).
ClusterName=nsdproof
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=local Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
cat "$SLURM_CONF"

echo "== 3. daemons"
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- munged --pid-file=/run/munge/nsd-proof-munged.pid || fail "munged did not start"
  STARTED+=(/run/munge/nsd-proof-munged.pid)
  sleep 1
fi
munge -n | unmunge >/dev/null || fail "munge does not answer"
pgrep -x slurmctld >/dev/null && fail "a slurmctld is running already: stop it first"
pgrep -x slurmd >/dev/null && fail "a slurmd is running already: stop it first"
slurmctld -i || fail "slurmctld did not start (see $WORK/log/slurmctld.log)"
STARTED+=("$WORK/slurmctld.pid")
slurmd || fail "slurmd did not start (see $WORK/log/slurmd.log)"
STARTED+=("$WORK/slurmd.pid")
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -qx idle && break
  sleep 1
done
sinfo
sinfo -h -o %t | grep -qx idle || fail "the node is not idle (see $WORK/log/)"

echo "== 4. build"
(cd "$ROOT" && cargo build --release -q) || fail "cargo build --release"

echo "== 5. Slurm: $SHARDS shards + merge"
cd "$WORK/run"
t0=$(stamp)
ARRAY=$(FILE=$FILE NAME=$NAME SHARDS=$SHARDS OUT=$WORK/run/results NSD=$NSD SET= \
  sbatch --parsable --array=0-$((SHARDS - 1)) --cpus-per-task=1 --time=00:30:00 \
  "$ROOT/examples/slurm/basins.sbatch") || fail "sbatch"
ARRAY=${ARRAY%%;*}
echo "array job $ARRAY"
MERGE=
deadline=$(($(date +%s) + TIMEOUT))
while :; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "timed out after $TIMEOUT s"
  [ -z "$MERGE" ] && MERGE=$(squeue -h -n nsd-basins-merge -o %i | head -1)
  if [ -z "$(squeue -h -j "$ARRAY" 2>/dev/null)" ]; then
    [ -n "$MERGE" ] || MERGE=$(scontrol show job -o 2>/dev/null | grep -o 'JobId=[0-9]* JobName=nsd-basins-merge' | head -1 | sed 's/JobId=\([0-9]*\).*/\1/')
    [ -n "$MERGE" ] || fail "no merge job was submitted (see $WORK/run/nsd-basins-*.out)"
    [ -z "$(squeue -h -j "$MERGE" 2>/dev/null)" ] && break
  fi
  sleep 2
done
t1=$(stamp)
squeue
echo "jobs:"
scontrol show job -o | grep -o 'JobId=[0-9]* ArrayJobId=[0-9]* ArrayTaskId=[0-9]*\|JobId=[0-9]* JobName=[^ ]*\|JobState=[A-Z_]*\|RunTime=[0-9:-]*\|ExitCode=[0-9:]*' \
  | paste -d' ' - - - - | sed 's/^/  /'
bad=$(scontrol show job -o | grep -o 'JobState=[A-Z_]*' | grep -vc 'JobState=COMPLETED')
[ "$bad" = 0 ] || fail "$bad Slurm jobs did not complete (see $WORK/run/*.out)"
ls "$WORK/run/results/$NAME.shards"
echo "Slurm wall (submit to merged): $(elapsed "$t0" "$t1") s"

echo "== 6. one machine, no shards"
t0=$(stamp)
"$NSD" run "$FILE" --only "$NAME" --out "$WORK/single" >"$WORK/single.log" 2>&1 || fail "single run"
t1=$(stamp)
echo "single-run wall: $(elapsed "$t0" "$t1") s"

echo "== 7. compare"
status=0
for f in data.csv attractors.csv section.csv basins.svg; do
  if cmp "$WORK/run/results/$NAME/$f" "$WORK/single/$NAME/$f"; then
    echo "  identical: $f ($(wc -c <"$WORK/single/$NAME/$f") bytes)"
  else
    status=1
  fi
done
echo "  diff -r (meta.json carries timings; basins.png is informative):"
diff -rq "$WORK/run/results/$NAME" "$WORK/single/$NAME" | sed 's/^/    /'
echo "  cells $(($(wc -l <"$WORK/single/$NAME/data.csv") - 1)), attractors:"
sed 's/^/    /' "$WORK/single/$NAME/attractors.csv" | cut -c1-120
[ "$status" = 0 ] || fail "merged Slurm result differs from the single run"
echo "PASS: $SHARDS Slurm shards merged = single run, byte for byte (data.csv, attractors.csv, section.csv, basins.svg)"
