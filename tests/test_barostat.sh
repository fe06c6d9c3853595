#!/usr/bin/env bash
# The pressure-controlled box (issue 29: src/granular/barostat.c).
#  1. 400 bidisperse disks from phi = 0.5 in a periodic box under -barostat 1 (pbdw): the
#     same state-digest and the same summary on 1, 2 and 3 ranks (the pressure that sets
#     the box's rate is an exact integer sum);
#  2. a run stopped at step 5000 on 3 ranks and restarted on 2 ends with the straight
#     run's digest and summary; a restart with another target or tau is refused; the
#     run restarted at step 12000 with -steps 14000 reports the means over steps 7000 to
#     14000, as the straight 14000-step run does (issue 44: the old window was kept);
#  3. the pressure averaged over the second half of the run is the target within 3 %,
#     and the packing it holds is near jamming (phi in [0.80, 0.86]); at a target ten
#     times lower the packing is looser after the same time;
#  4. with -periodic x only, the x edges deform and the y edges keep their length;
#  5. rest (issue 46): under -barostat 3 the PBD packing comes to rest, box and disks: its
#     RMS speed at t = 40 is <= 1e-4 diameters per unit time (1.4e-6 measured); pbdw's
#     is printed, not checked (5e-3: it does not come to rest, docs/algorithm.md, "The
#     pile is not at rest").
#   test_barostat.sh path/to/throng path/to/mpiexec
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
summary() { sed -n 's/^summary: barostat //p' "$1"; }
run() { # ranks, log, options...
  local np=$1 log=$2; shift 2
  logged "$log" timeout 600 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -n 400 -bidisperse 1.4 -radius 0.5 \
    -periodic xy -box 0,0,30.49,30.49 -init uniform -gravity 0,0 -dt 0.001 -solver pbdw -barostat 1 \
    -barostat_tau 10 -tile 2 -steps 12000 -progress 2000 -map false "$@"
}
# 1. any rank count
check "barostat, 1 rank" run 1 one.log -output none
check "barostat, 2 ranks" run 2 two.log -output none
check "barostat, 3 ranks" run 3 three.log -output none
summary one.log
check "2 ranks give another digest" same "$(digest two.log)" "$(digest one.log)"
check "3 ranks give another digest" same "$(digest three.log)" "$(digest one.log)"
check "3 ranks give another summary" same "$(summary three.log)" "$(summary one.log)"

# 2. an exact restart, from the middle of the run
check "checkpointed run to step 5000" run 3 first.log -output part -steps 5000
check "restarted run" run 2 second.log -output part2 -restart part.chk.h5
check "the restart did not start at step 5000" grep -q "restarted from 'part.chk.h5' at step 5000" second.log
check "the restart changes the trajectory" same "$(digest second.log)" "$(digest one.log)"
check "the restart changes the summary" same "$(summary second.log)" "$(summary one.log)"
check "restart with another target ran" not run 1 other.log -output part3 -restart part.chk.h5 -barostat 2
check "restart with another target: not refused as other equations" grep -q "written for other equations" other.log
check "restart with another tau ran" not run 1 other2.log -output part4 -restart part.chk.h5 -barostat_tau 5
check "restart with another tau: not refused as other equations" grep -q "written for other equations" other2.log
# a restart that extends the run averages over the second half of the run it ends: the
# straight 14000-step run's summary, though its half starts before the checkpoint
check "straight run of 14000 steps" run 2 long.log -output none -steps 14000
check "restart from step 12000 to step 14000" run 2 ext.log -output part -restart part2.chk.h5 -steps 14000
check "restart with more -steps: not the means of the new run's second half" same "$(summary ext.log)" "$(summary long.log)"
summary ext.log

# 3. the mean pressure is the target; the packing is near jamming
p=$(summary one.log | awk '{print $2}')
phi=$(summary one.log | awk '{print $4}')
check "mean pressure $p not within 3 % of the target 1" holds 'p > 0.97 && p < 1.03' p="$p"
check "packing fraction $phi not near jamming" holds 'p >= 0.80 && p <= 0.86' p="$phi"
check "a target of 0.1" run 2 low.log -output none -barostat 0.1
plow=$(summary low.log | awk '{print $2}')
philow=$(summary low.log | awk '{print $4}')
echo "target 0.1: p $plow phi $philow; target 1: p $p phi $phi"
check "at a target of 0.1 the mean pressure $plow is not within 10 %" holds 'p > 0.09 && p < 0.11' p="$plow"
check "a lower target does not give a looser packing ($philow, $phi)" holds 'a < b - 0.02' a="$philow" b="$phi"

# 4. one periodic axis: only its edges move
check "barostat along x" run 2 x.log -periodic x -output xo -steps 3000
read -r lx ly < <(/usr/bin/python3 -c "import h5py; e = h5py.File('xo.h5')['particles/disks/box/edges'][()]; print(*e)")
echo "x only: box edges at step 3000: $lx $ly (30.49 at the start)"
check "with -periodic x the x edges did not shrink ($lx)" holds 'l < 28' l="$lx"
check "with -periodic x the y edges moved ($ly)" same "$ly" 30.49

# 5. at rest
speed() { sed -n 's/^summary: rms_speed [^ ]* (\([^ ]*\) mean diameters per unit time).*/\1/p' "$1"; }
check "pbd at p = 3" run 1 rest_pbd.log -output none -solver pbd -barostat 3 -steps 40000 -progress 4000
check "pbdw at p = 3" run 1 rest_pbdw.log -output none -barostat 3 -steps 40000 -progress 4000
vp=$(speed rest_pbd.log); vw=$(speed rest_pbdw.log)
echo "p = 3, t = 40: rms_speed pbd $vp, pbdw $vw diameters per unit time"
check "pbd under -barostat 3 is not at rest at t = 40: rms_speed $vp > 1e-4 d per unit time" holds 'v <= 1e-4' v="$vp"
finish
