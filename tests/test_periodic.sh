#!/usr/bin/env bash
# Periodic boxes (issue 29, src/core/periodic.c).
#  1. -periodic xy, a Brownian gas: the same state-digest on 1 rank, on 2 (2x1 and 1x2:
#     two ranks that are each other's neighbour both ways) and on 3 ranks;
#  2. pbdw, pngs and penalty in a channel periodic along x with a driving field: the same
#     digest on 1 and 3 ranks;
#  3. a run checkpointed on 3 ranks and restarted on 1 ends with the straight run's digest;
#  4. an independent check of the images: postproc/minimage.py computes, by brute force
#     with the minimum-image convention, the largest overlap of the final snapshot; it is
#     throng's own final overlap (measured through cells and halo images), bit for bit to
#     7 digits, the disks did cross the periodic side (so no wall is left there), and
#     pairs touch across it.
#   test_periodic.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
run() { # ranks, log, options...
  local np=$1 log=$2; shift 2
  logged "$log" timeout 600 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet "$@"
}

# 1. a periodic Brownian gas on several rank grids (its noise moves a disk about 0.1 in a
#    step: the default skin 0.12 misses pairs, and the run would stop saying so)
GAS="-n 600 -box 0,0,30,30 -periodic xy -init uniform -gravity 0,0 -noise 0.5 -skin 0.4 -steps 600 -tile 2 -output none -check_conservation"
# shellcheck disable=SC2086 # the option strings are word lists
{
  check "gas, 1 rank" run 1 gas1.log $GAS
  check "gas, 2 ranks 2x1" run 2 gas2x.log $GAS -rank_grid 2,1
  check "gas, 2 ranks 1x2" run 2 gas2y.log $GAS -rank_grid 1,2
  check "gas, 3 ranks" run 3 gas3.log $GAS
}
check "gas: 2x1 ranks give another digest than 1" same "$(digest gas2x.log)" "$(digest gas1.log)"
check "gas: 1x2 ranks give another digest than 1" same "$(digest gas2y.log)" "$(digest gas1.log)"
check "gas: 3 ranks give another digest than 1" same "$(digest gas3.log)" "$(digest gas1.log)"

# 2. the other steppers in a driven channel
CHAN="-n 500 -box 0,0,30,40 -periodic x -gravity 3,-1 -steps 500 -tile 2 -output none"
for sol in pbdw pngs penalty; do
  # shellcheck disable=SC2086
  check "$sol channel, 1 rank" run 1 "$sol.1.log" $CHAN -solver $sol
  # shellcheck disable=SC2086
  check "$sol channel, 3 ranks" run 3 "$sol.3.log" $CHAN -solver $sol
  check "$sol: 3 ranks give another digest than 1" same "$(digest "$sol.3.log")" "$(digest "$sol.1.log")"
done

# 3. an exact restart on another rank count
# shellcheck disable=SC2086
{
  check "straight run" run 2 straight.log $CHAN -solver pbdw -steps 800
  check "run stopped at step 400" run 3 first.log $CHAN -solver pbdw -steps 400 -output part
  check "restarted run" run 1 second.log $CHAN -solver pbdw -steps 800 -output part2 -restart part.chk.h5
}
check "the run stopped at step 400 ended in the straight run's state" not same "$(digest first.log)" "$(digest straight.log)"
check "restart on 1 rank from 3 changes the trajectory" same "$(digest second.log)" "$(digest straight.log)"

# 4. the images against a brute-force minimum-image check, in a channel where the disks
#    drift along x and settle on the floor
# shellcheck disable=SC2086
check "drift run" run 2 drift.log -n 500 -box 0,0,30,40 -periodic x -gravity 3,-1 -steps 3000 -tile 2 \
  -output drift -output_every 3000
ours=$(sed -n 's/^summary: sampled_max_overlap \([^ ]*\) .*/\1/p' drift.log) # -quiet: measured at the end only
check "minimage.py failed" logged mi.log /usr/bin/python3 "$SRC/postproc/minimage.py" drift.h5
theirs=$(awk '/^overlap/ {print $2}' mi.log)
across=$(awk '/^pairs/ {print $2}' mi.log)
inside=$(awk '/^inside/ {print $2}' mi.log)
echo "final overlap: throng $ours, brute force $theirs; $across overlapping pairs across the side; inside $inside"
check "the brute-force overlap ($theirs) is not throng's ($ours)" holds 'o > 0 && (t - o <= 1e-6 * o) && (o - t <= 1e-6 * o)' o="$ours" t="$theirs"
check "no pair touches across the periodic side ($across)" holds 'a >= 1' a="$across"
check "disks outside the box by more than a cell ($inside)" holds 'f == 1' f="$inside"
crossed=$(/usr/bin/python3 - <<'PY'
import h5py, numpy as np
with h5py.File("drift.h5") as f:
    x = f["particles/disks/position/value"][:, :, 0]
print(int(np.count_nonzero(x[-1] < x[0])))
PY
)
echo "disks that came back round the periodic side: $crossed of 500"
check "too few disks crossed the periodic side ($crossed)" holds 'c >= 100' c="$crossed"

finish
