#!/usr/bin/env bash
# Box deformation and the granular validation, reduced (issue 29: src/deform.c,
# jobs/validate_granular.py).
#  1. 400 bidisperse disks compressed from phi = 0.5 to 0.8 in a periodic box (the cell
#     grid is rebuilt as the box shrinks): the same state-digest on 1, 2 and 3 ranks, and
#     the summary's packing fraction is the target, 0.800000;
#  2. a run checkpointed mid-compression on 3 ranks and restarted on 2 ends with the
#     straight run's digest; restarts with another -deform_phi or -periodic are refused
#     as runs of other equations;
#  3. below jamming the relaxed packing carries no load: the final pressure is below 1e-6
#     (it was > 0.1 during the compression);
#  4. jobs/validate_granular.py --quick: phi_J of 400 disks at rate -0.05 (bisection) is
#     in [0.82, 0.86] (O'Hern et al. 2003: 0.842 as N grows, lower and wider for small N),
#     and a settled pile's sigma_yy is hydrostatic within 5 % below its top layers.
#   test_granular.sh path/to/throng path/to/mpiexec path/to/source
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
  logged "$log" timeout 600 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -n 400 -bidisperse 1.4 -radius 0.5 \
    -periodic xy -box 0,0,30.49,30.49 -init uniform -gravity 0,0 -dt 0.001 -deform_rate -0.05 -deform_phi 0.8 \
    -tile 2 -steps 8000 -stress -progress 1000 -map false "$@"
}
check "compression, 1 rank" run 1 one.log -output none
check "compression, 2 ranks" run 2 two.log -output none
check "compression, 3 ranks" run 3 three.log -output none
check "2 ranks give another digest" same "$(digest two.log)" "$(digest one.log)"
check "3 ranks give another digest" same "$(digest three.log)" "$(digest one.log)"
phi=$(sed -n 's/^summary: stress .* phi \([^ ]*\) .*/\1/p' one.log)
check "the final packing fraction $phi is not the target 0.800000" same "$phi" 0.800000
check "run stopped mid-compression" run 3 first.log -output part -steps 3000
check "restarted run" run 2 second.log -output part2 -restart part.chk.h5
check "the restart did not start at step 3000" grep -q "restarted from 'part.chk.h5' at step 3000" second.log
check "restart mid-compression changes the trajectory" same "$(digest second.log)" "$(digest one.log)"
refused() { grep -q "written for other equations" "$1" && ! grep -q '^state-digest' "$1"; }
check "restart with another target ran" not run 1 other1.log -output part3 -restart part.chk.h5 -deform_phi 0.79
check "restart with another target: not refused as other equations" refused other1.log
check "restart with another periodic axis ran" not run 1 other2.log -output part4 -restart part.chk.h5 -periodic x
check "restart with another periodic axis: not refused as other equations" refused other2.log
pmax=$(awk '/^stress:/ {if ($5 > m) m = $5} END {print m + 0}' one.log)
pend=$(sed -n 's/^summary: stress p \([^ ]*\) .*/\1/p' one.log)
echo "pressure: largest $pmax during the compression, $pend at the end"
check "the compression carried no load ($pmax)" holds 'p > 0.1' p="$pmax"
check "the relaxed packing below jamming still carries a load ($pend)" holds 'p < 1e-6' p="$pend"

check "validate_granular.py --quick" logged vq.log env THRONG="$THRONG" NPROC=2 /usr/bin/python3 "$SRC/jobs/validate_granular.py" --quick --out vq
cat vq.log
pj=$(awk -F, '$1 == 1 {print $3}' vq/jamming.csv)
dev=$(sed -n 's/^pile (pbd): largest relative deviation below the top layers //p' vq.log)
devw=$(sed -n 's/^pile (pbdw): largest relative deviation below the top layers //p' vq.log)
check "phi_J $pj not in [0.82, 0.86]" holds 'p >= 0.82 && p <= 0.86' p="$pj"
check "the pbd pile is not hydrostatic within 5 % ($dev)" holds 'd >= 0 && d <= 0.05' d="$dev"
check "the pbdw pile is not hydrostatic within 5 % ($devw)" holds 'd >= 0 && d <= 0.05' d="$devw"
finish
