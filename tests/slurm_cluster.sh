#!/usr/bin/env bash
# A throw-away single-node Slurm cluster on this machine, for the job-script tests:
# munged, slurmctld and slurmd from Debian's munge and slurm-wlm, each with its own
# files under DIR (key, sockets, state, logs), no cgroups (proctrack/linuxproc,
# task/none), the node with all its cores and its memory.  Every daemon started is
# stopped by its pid; nothing outside DIR is touched.
#
#   source tests/slurm_cluster.sh
#   slurm_start DIR      # then: export SLURM_CONF=DIR/slurm.conf (done by slurm_start)
#   ... sbatch / squeue / scontrol ...
#   slurm_stop DIR
# Needs: apt-get install slurm-wlm munge (bash .ci/setup --slurm installs them).

slurm_start() {
  local dir=$1 host cpus mem
  mkdir -p "$dir"/{state,spool,log,run}
  dir=$(readlink -f "$dir")
  host=$(hostname -s); cpus=$(nproc); mem=$(( $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) * 9 / 10 ))
  # munge: a fresh key, readable by its owner only (munged refuses anything looser)
  dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge.key"
  chmod 0700 "$dir/run"
  munged --force --key-file="$dir/munge.key" --socket="$dir/run/munge.socket" --pid-file="$dir/run/munged.pid" \
         --log-file="$dir/log/munged.log" --seed-file="$dir/run/munged.seed" || { echo "slurm_cluster: munged did not start" >&2; return 1; }
  cat > "$dir/slurm.conf" <<EOF
ClusterName=throngtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${THRONG_SLURMCTLD_PORT:-6917}
SlurmdPort=${THRONG_SLURMD_PORT:-6918}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
JobRequeue=1
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=10
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$dir/slurm.conf" || { echo "slurm_cluster: slurmctld did not start (log: $dir/log/slurmctld.log)" >&2; return 1; }
  slurmd -f "$dir/slurm.conf" || { echo "slurm_cluster: slurmd did not start (log: $dir/log/slurmd.log)" >&2; return 1; }
  local k
  for k in $(seq 1 60); do # wait until the node is idle
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then return 0; fi
    sleep 1
  done
  echo "slurm_cluster: the node did not become idle within 60 s:" >&2
  sinfo >&2; tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
  return 1
}

slurm_stop() {
  local dir=$1 f pid k
  dir=$(readlink -f "$dir")
  for f in slurmd slurmctld munged; do
    [ -f "$dir/run/$f.pid" ] || continue
    pid=$(cat "$dir/run/$f.pid")
    kill "$pid" 2>/dev/null || continue
    for k in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
}
