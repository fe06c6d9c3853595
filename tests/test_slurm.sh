#!/usr/bin/env bash
# The job scripts on a real Slurm (issue 7): a single-node cluster is started on this
# machine (tests/slurm_cluster.sh: munged, slurmctld, slurmd, no cgroups), each script is
# submitted with tiny sizes, and the results are checked:
#  - jobs/strong.sbatch: runs on 1 and 2 ranks, CSV/JSON/PNG of speedup and efficiency;
#  - jobs/weak.sbatch as a job array (0-1), then the gathering step submitted with
#    --dependency=afterok: CSV with 1 and 2 ranks;
#  - jobs/evacuation.sbatch: the "time limit near" signal (scancel --signal=USR1 --batch,
#    what --signal=B:USR1@300 sends) makes throng checkpoint and stop, the job requeues
#    itself and restarts from the checkpoint; its exit records and evacuation curve equal
#    those of a straight run;
#  - jobs/ensemble.py submit (issue 28): a job array of 4 members, one task cancelled
#    while its member runs; the report job lists it missing; a resubmission runs it
#    alone, the others' records are untouched and the final report is complete.
# Every daemon started is stopped by its pid.
#   test_slurm.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
for c in munged slurmctld slurmd sbatch scontrol; do
  command -v $c >/dev/null || { echo "FAIL: $c not found: apt-get install slurm-wlm munge (bash .ci/run installs them)" >&2; exit 1; }
done
dir=$(mktemp -d)
source "$SRC/tests/slurm_cluster.sh"
trap 'slurm_stop "$dir/cluster"; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
if ! slurm_start "$dir/cluster"; then echo "FAIL: the Slurm cluster did not start" >&2; echo "0 passed, 1 failed"; exit 1; fi
export THRONG LAUNCH="srun --mpi=pmix"
cd "$SRC" || exit 1

state() { scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' '; }
wait_done() { # job id, timeout: until no element is pending, running, requeued or completing
  local k s
  for k in $(seq 1 "$2"); do
    s=$(state "$1")
    case "$s" in *PENDING* | *RUNNING* | *REQUEUE* | *COMPLETING* | "") sleep 1 ;; *) echo "$s"; return 0 ;; esac
  done
  echo "timeout: $(state "$1")"
  return 1
}

# strong scaling: 1 and 2 ranks
j=$(N=20000 STEPS=100 OUT="$dir/strong" sbatch --parsable -n 2 -o "$dir/strong-%j.out" jobs/strong.sbatch)
s=$(wait_done "$j" 300); echo "strong.sbatch: $s"
check "strong.sbatch ended as '$s'" same "$s" "JobState=COMPLETED "
cat "$dir/strong.csv" 2>/dev/null | cut -d, -f1-6
check "strong.sbatch: no CSV rows for 1 and 2 ranks" same "$(cut -d, -f1 "$dir/strong/strong.csv" 2>/dev/null | tr '\n' ' ')" "ranks 1 2 "
check "strong.sbatch: no PNG" test -s "$dir/strong/strong.png"
check "strong.sbatch: no JSON" test -s "$dir/strong/strong.json"

# weak scaling: a job array, then the gathering step after it
a=$(NPER=10000 STEPS=100 OUT="$dir/weak" sbatch --parsable -o "$dir/weak-%A_%a.out" jobs/weak.sbatch)
g=$(sbatch --parsable --dependency=afterok:"$a" -n 1 -o "$dir/gather-%j.out" \
      --wrap "/usr/bin/python3 postproc/scaling.py --kind weak --csv $dir/weak/weak.csv --png $dir/weak/weak.png $dir/weak/weak-*.log")
s=$(wait_done "$a" 300); echo "weak.sbatch (array): $s"
check "weak.sbatch array ended as '$s'" same "$s" "JobState=COMPLETED "
s=$(wait_done "$g" 120); echo "gathering step: $s"
cat "$dir"/gather-*.out
check "weak scaling: no CSV rows for 1 and 2 ranks" same "$(cut -d, -f1 "$dir/weak/weak.csv" 2>/dev/null | tr '\n' ' ')" "ranks 1 2 "
check "weak scaling: no PNG" test -s "$dir/weak/weak.png"

# evacuation: checkpoint on the time-limit signal, requeue, restart = a straight run
check "straight evacuation run failed" logged "$dir/ref.log" timeout 600 "$MPIEXEC" -n 2 --oversubscribe "$THRONG" -scenario evacuation -n 3000 -output "$dir/ref" -quiet
j=$(PREFIX="$dir/evac" CHK_EVERY=100000 sbatch --parsable -n 2 -o "$dir/evac-%j.out" jobs/evacuation.sbatch -scenario evacuation -n 3000 -quiet)
for k in $(seq 1 120); do [ -s "$dir/evac.h5" ] && break; sleep 0.5; done # running, first frame written
sleep 3
scancel --signal=USR1 --batch "$j"
for k in $(seq 1 120); do # requeued: pending again, restart count 1; release it at once
  scontrol show job "$j" -o | grep -q 'Restarts=1' && scontrol show job "$j" -o | grep -q 'JobState=PENDING.*Reason=BeginTime' && break
  sleep 0.5
done
# Slurm holds a requeued job ~2 min; release it, but not in the second of the requeue
# itself (the old credential is revoked up to then: "Job credential revoked")
sleep 3
scontrol update JobId="$j" StartTime=now
s=$(wait_done "$j" 600); echo "evacuation.sbatch: $s"
grep -v '^step' "$dir"/evac-*.out | grep -E 'throng-evac|evacuation time|restarted'
check "evacuation.sbatch ended as '$s'" same "$s" "JobState=COMPLETED "
check "evacuation.sbatch: no checkpoint-and-requeue on the signal" grep -q "throng-evac: checkpoint written; requeueing job $j" "$dir"/evac-*.out
check "evacuation.sbatch: the requeued job did not restart from the checkpoint" grep -q "restart count 1, -restart" "$dir"/evac-*.out
check "evacuation.sbatch: the exit records differ from the straight run's" cmp -s "$dir/ref.exits.csv" "$dir/evac.exits.csv"
check "evacuation.sbatch: the evacuation curve differs from the straight run's" cmp -s "$dir/ref.evacuation.csv" "$dir/evac.evacuation.csv"

# ensembles (issue 28): a job array of 4 members (one a task); member 1's task is
# cancelled while it runs; the report job (afterany) reports it missing; submitting
# again runs member 1 alone; the others' records are untouched; the report is complete
E=$dir/ens
check "ensemble submit failed" logged "$dir/ens1.log" /usr/bin/python3 jobs/ensemble.py submit "$E" --seeds 4 \
  -- -options_file_yaml configs/room.yaml -dt 0.01 -steps 20000
cat "$dir/ens1.log"
a=$(sed -n 's/.*submitted job array \([0-9]*\).*/\1/p' "$dir/ens1.log")
r=$(sed -n 's/.*the report follows as job \([0-9]*\).*/\1/p' "$dir/ens1.log")
for k in $(seq 1 400); do [ -f "$E/members/0001/started" ] && break; sleep 0.25; done
scancel "${a}_1"
s=$(wait_done "$a" 300); echo "ensemble array: $s"
s=$(wait_done "$r" 120); echo "ensemble report job: $s"
check "the report job did not report member 1 missing" grep -q "^\*\*1 members not done\*\*.*: 1\." "$E/report.md"
check "status does not show member 1 killed" grep -q "member 1 (seed 2): started, not finished" \
  <(/usr/bin/python3 jobs/ensemble.py status "$E")
for k in 0 2 3; do md5sum "$E/members/000$k/done.json"; done >"$dir/ens-kept.md5"
check "ensemble resubmit failed" logged "$dir/ens2.log" /usr/bin/python3 jobs/ensemble.py submit "$E"
cat "$dir/ens2.log"
check "the resubmission is not of member 1 alone" grep -q "(1 task of up to 1 member, 1 rank each) for 1 members" "$dir/ens2.log"
a=$(sed -n 's/.*submitted job array \([0-9]*\).*/\1/p' "$dir/ens2.log")
r=$(sed -n 's/.*the report follows as job \([0-9]*\).*/\1/p' "$dir/ens2.log")
s=$(wait_done "$a" 300); echo "ensemble array (member 1): $s"
s=$(wait_done "$r" 120); echo "ensemble report job: $s"
check "member 1 did not complete on resubmission" test -s "$E/members/0001/done.json"
check "the killed attempt's log was not kept" test -s "$E/members/0001/log.1"
check "the other members' records changed" md5sum --quiet -c "$dir/ens-kept.md5"
check "the final report is not complete (4 members)" grep -q "^| the case | 4 | 0 |" "$E/report.md"
check "the final report still reports members missing" not grep -q "members not done" "$E/report.md"
check "status: not 4 done" grep -q "4 members: 4 done" <(/usr/bin/python3 jobs/ensemble.py status "$E")

finish
