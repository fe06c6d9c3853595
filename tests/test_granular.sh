#!/usr/bin/env bash
# Box deformation and the granular validation, reduced (issue 29: src/granular/deform.c,
# jobs/validate_granular.py).
#  1. 400 bidisperse disks compressed from phi = 0.5 to 0.8 in a periodic box (the cell
#     grid is rebuilt as the box shrinks): the same state-digest on 1, 2 and 3 ranks, and
#     the summary's packing fraction is the target, 0.800000;
#  2. a run checkpointed mid-compression on 3 ranks and restarted on 2 ends with the
#     straight run's digest; restarts with another -deform_phi or -periodic are refused
#     as runs of other equations;
#  3. below jamming the relaxed packing carries no load: the final pressure is below 1e-6
#     (it was > 0.1 during the compression);
#  5. unsound runs stop with one error that names the cause and write nothing of the
#     unsound state (issue 44), the same message on 1 and 2 ranks: a compression at
#     -deform_rate -3 and a barostat at 1e6 (the box passes the hexagonal close packing),
#     a settling pile at -dt 0.05 and a crowd at -dt 0.15 (an overlap passes
#     -overlap_abort, now 0.5 diameters by default: 2 let them through), a Brownian gas
#     whose noise moves disks past half the skin in a step (a pair that was no candidate
#     met: the step missed it); a compression at -deform_rate -5 whose sweeps end beyond
#     half the skin 16 times without missing a pair runs on, with one digest on 1 and 2
#     ranks;
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

# 5. unsound runs: one error naming the cause, the same on 1 and 2 ranks, nothing written after
unsound() { # name, message fragment, options...
  local name=$1 want=$2 np rc; shift 2
  for np in 1 2; do
    timeout 300 "$MPIEXEC" -n $np --oversubscribe "$THRONG" -quiet "$@" -output "u$name$np" >"u$name$np.log" 2>&1
    rc=$?
    check "$name on $np ranks (exit $rc): wanted one error with '$want', got: $(grep -m1 error "u$name$np.log")" \
      sh -c "[ $rc -ne 0 ] && [ \$(grep -c '^throng: error' u$name$np.log) -eq 1 ] && grep -qF -- \"$want\" u$name$np.log && ! grep -q '^state-digest' u$name$np.log"
  done
  check "$name: the message differs on 2 ranks" same "$(grep '^throng: error' "u${name}1.log" | sed "s/u${name}1/u$name/g")" \
    "$(grep '^throng: error' "u${name}2.log" | sed "s/u${name}2/u$name/g")"
  grep -m1 '^throng: error' "u${name}1.log"
}
B=(-n 400 -bidisperse 1.4 -radius 0.5 -periodic xy -box 0,0,30.49,30.49 -init uniform -gravity 0,0 -dt 0.001 -tile 2)
unsound compress "at step 100 the box holds disks at packing fraction 0.912148, past the hexagonal close packing 0.906900 that no packing of disks without overlaps passes; -deform_rate -3. may compress the box" \
  "${B[@]}" -deform_rate -3 -steps 300 -stress
unsound barostat "the box holds disks at packing fraction 0.906986, past the hexagonal close packing 0.906900 that no packing of disks without overlaps passes; -barostat 1e+06" "${B[@]}" -barostat 1e6 -steps 3000
unsound settle "the run has blown up: an overlap of 0.435237 (0.543 of the smallest diameter 0.800925) at step 100 is more than -overlap_abort 0.5" -n 1000 -dt 0.05 -steps 200
unsound overlap "the run has blown up: an overlap of 1.3 (4.33 of the smallest diameter 0.3) at step 5 is more than -overlap_abort 0.5" \
  -options_file_yaml "$SRC/configs/room.yaml" -dt 0.15
unsound skin "step 13 moved a disk 0.0788302 from where it was binned, 0.657 of the skin 0.12, and left 1 pair (or disk and wall) overlapping that were no candidates of its pair search: it missed them, and the step is not -solver pbd's. Lower -dt, or raise -skin" \
  -n 600 -box 0,0,30,30 -periodic xy -init uniform -gravity 0,0 -noise 0.5 -steps 600
for np in 1 2; do
  check "a compression whose sweeps leave half the skin, on $np ranks, failed" logged "checked$np.log" \
    "$MPIEXEC" -n $np --oversubscribe "$THRONG" -quiet "${B[@]}" -deform_rate -5 -deform_phi 0.84 -steps 3000 -output none
done
check "the compression at -deform_rate -5: no sweep checked beyond half the skin" grep -q "beyond_half_skin [1-9][0-9]* (sweeps that ended skin/2 or more from the binning, each checked: no pair missed)" checked1.log
check "the compression at -deform_rate -5: 2 ranks give another digest than 1" same "$(digest checked2.log)" "$(digest checked1.log)"
check "the crowd that blew up has a snapshot of its blown-up state (its last frame must be step 0)" \
  same "$(h5dump -d /particles/disks/position/step uoverlap1.h5 2>/dev/null | sed -n 's/^ *(0): //p')" 0

check "validate_granular.py --quick" logged vq.log env THRONG="$THRONG" NPROC=2 /usr/bin/python3 "$SRC/jobs/validate_granular.py" --quick --out vq
cat vq.log
pj=$(awk -F, '$1 == 1 {print $3}' vq/jamming.csv)
dev=$(sed -n 's/^pile (pbd): largest relative deviation below the top layers //p' vq.log)
devw=$(sed -n 's/^pile (pbdw): largest relative deviation below the top layers //p' vq.log)
check "phi_J $pj not in [0.82, 0.86]" holds 'p >= 0.82 && p <= 0.86' p="$pj"
check "the pbd pile is not hydrostatic within 5 % ($dev)" holds 'd >= 0 && d <= 0.05' d="$dev"
check "the pbdw pile is not hydrostatic within 5 % ($devw)" holds 'd >= 0 && d <= 0.05' d="$devw"
finish
