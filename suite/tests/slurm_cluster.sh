#!/usr/bin/env bash
# A single-node Slurm cluster in a directory, for the suite's Slurm executor test (docs/suite.md
# "Slurm"): munged with its own key and socket, slurmctld and slurmd on this host with a generated
# slurm.conf, every file under DIR. Nothing outside DIR is written or read except the binaries.
#   slurm_cluster.sh start DIR   start it; prints SLURM_CONF=DIR/slurm.conf when the node is idle
#   slurm_cluster.sh stop DIR    stop the daemons it started (by the pids it saved)
# Exit status 77 with the reason on stderr when it cannot start here (not root, no Slurm, no munge).
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?DIR}
skip() { echo "slurm_cluster: $1" >&2; exit 77; }

if [ "$cmd" = stop ]; then
  for d in slurmd slurmctld munged; do
    [ -f "$dir/$d.pid" ] && kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
  done
  sleep 1
  for d in slurmd slurmctld munged; do
    [ -f "$dir/$d.pid" ] && kill -9 "$(cat "$dir/$d.pid")" 2>/dev/null || true
    rm -f "$dir/$d.pid"
  done
  exit 0
fi

[ "$(id -u)" -eq 0 ] || skip "not root (slurmd runs jobs as their user and needs root; run the tests as root)"
for b in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || skip "$b not found (Debian: apt-get install slurm-wlm munge; scripts/install-deps.sh)"
done
export PATH=/usr/sbin:$PATH
mkdir -p "$dir"/{state,spool,munge}
chmod 700 "$dir/munge"
host=$(hostname -s)
# Ports not used by another cluster on this host: derived from our pid.
port=$((20000 + ($$ % 20000)))

dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munge.seed" ||
  skip "munged did not start: $(tail -3 "$dir/munge/munged.log" 2>/dev/null)"

cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
# Single-node test cluster (suite/tests/slurm_cluster.sh).
ClusterName=vxsuite
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
SlurmdParameters=config_overrides
MaxArraySize=10000
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -3 "$dir/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N "$host" || skip "slurmd did not start: $(tail -3 "$dir/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
  case $state in idle*|mix*|alloc*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
  sleep 1
done
skip "the node did not become idle in 60 s (state '${state:-none}'): $(tail -3 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null)"
