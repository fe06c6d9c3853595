#!/usr/bin/env bash
# State digests of 20 configurations (every stepper, crowds on 2 and 3 ranks, load
# balancing, noise, a schedule, a restart on another rank count, edmd) and hashes of the
# snapshot and trajectory datasets, for one build or two builds side by side: a change
# that must not alter behaviour (a refactoring) shows the same lines for both.
#   bash jobs/digests.sh [THRONG]                 one build (default build/throng)
#   bash jobs/digests.sh OLD_THRONG NEW_THRONG    both, then "identical" or the diff
# Takes about 30 s per build on 2 cores.
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
top=$(pwd)

one() { # THRONG: prints "tag digest" lines
  local T=$1 out
  T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
  out=$(mktemp -d)
  (
    cd "$out" || exit 1
    ln -s "$top/configs" configs
    run() { local tag=$1 np=$2; shift 2; echo "$tag $(mpirun -n "$np" "$T" "$@" -quiet 2>&1 | sed -n 's/^state-digest: //p' | tail -1)"; }
    run pbd1 1 -n 3000 -steps 200 -output none
    run pbd3 3 -n 3000 -steps 200 -output none
    run pngs 2 -n 2000 -steps 50 -solver pngs -output none
    run penalty 3 -n 2000 -steps 60 -solver penalty -init uniform -output none
    run pgs 2 -n 500 -steps 20 -solver pgs -output none
    run dense 2 -options_file_yaml configs/bench-dense.yaml -n 20000 -steps 100 -output none
    run balance 3 -n 5000 -steps 300 -balance_threshold 1.01 -output none
    run noise 2 -n 2000 -steps 100 -noise 0.01 -output none
    run schedule 2 -n 2000 -steps 100 -gravity_schedule 0.05,1,-1 -output none
    run evac2 2 -scenario evacuation -steps 400 -output none
    run evac3 3 -scenario evacuation -steps 400 -output none
    run rimea1 2 -options_file_yaml configs/rimea1.yaml -steps 300 -output none
    run labyrinth 2 -options_file_yaml configs/labyrinth.yaml -steps 300 -output none
    run twospeeds 2 -options_file_yaml configs/twospeeds.yaml -steps 300 -output none
    run edmd 2 -solver edmd -n 400 -steps 10 -output edmd
    run checkpoint 2 -scenario evacuation -steps 300 -checkpoint c.h5 -checkpoint_every 150 -output none
    run restart3 3 -scenario evacuation -steps 300 -restart c.h5 -output none
    run snapshots 2 -n 1000 -steps 40 -output snap -output_every 10
    run trajectory 2 -scenario evacuation -steps 100 -trajectory traj.h5 -trajectory_fps 11.111111111111111 -output none
    for f in edmd snap; do
      for d in position velocity radius id; do
        echo "$f.h5:$d $(h5dump -m '%.17g' -d /particles/disks/$d/value $f.h5 2>&1 | tail -n +2 | md5sum | cut -c1-16)"
      done
    done
    echo "traj.h5:trajectory $(h5dump -m '%.17g' -d /trajectory traj.h5 2>&1 | tail -n +2 | md5sum | cut -c1-16)"
  )
  rm -rf "$out"
}

if [ $# -le 1 ]; then one "${1:-build/throng}"; exit 0; fi
a=$(one "$1"); b=$(one "$2")
echo "$b"
if [ "$a" = "$b" ]; then echo "digests: identical ($(echo "$a" | wc -l) lines) for $1 and $2"; exit 0; fi
echo "digests: DIFFERENT"; diff <(echo "$a") <(echo "$b"); exit 1
