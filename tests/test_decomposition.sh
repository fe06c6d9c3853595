#!/usr/bin/env bash
# Decomposition independence: the final state is bitwise identical (same state-digest) on
# 1, 2, 3, 4 and 8 ranks (oversubscribed), on runs where disks migrate across rank
# boundaries many times; the id set is checked after every migration
# (-check_conservation).
#   test_decomposition.sh path/to/throng path/to/mpiexec
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

scenario() { # name, ranks list, options...
  local name=$1 ranks=$2; shift 2
  local ref="" np log digest moved
  for np in $ranks; do
    log="$out/$name.$np.log"
    check "$name on $np ranks failed" logged "$log" timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet -output none -check_conservation "$@"
    digest=$(sed -n 's/^state-digest: //p' "$log")
    moved=$(sed -n 's/.* migrated \([0-9]*\) .*/\1/p' "$log")
    echo "$name  ranks $np  digest $digest  migrated ${moved:-?}"
    check "$name on $np ranks printed no digest" test -n "$digest"
    if [ -z "$ref" ]; then ref=$digest; else check "$name: digest on $np ranks differs from 1 rank" same "$digest" "$ref"; fi
    if [ "$np" -ge 4 ]; then
      check "$name: only ${moved:-0} migrations on $np ranks (want >= $MIN_MOVED)" holds 'm >= w' m="${moved:-0}" w="$MIN_MOVED"
    fi
  done
}

# Every scenario runs with the load balancer at its default (-balance_threshold 1.2), so
# the digests above also show that repartitioning leaves the trajectory bitwise alone.
# A polydisperse crowd scattered over the box and pulled to a point near one corner with a
# sideways field: every disk crosses several rank boundaries on its way.
MIN_MOVED=3000
CORNER=(-n 6000 -init uniform -polydispersity 0.3 -box 0,0,200,200 -attract_gamma 0.2 -attract_center 30,40 -gravity 2,0
  -dt 0.01 -tile 2)
# (a dilute crowd in a box of 200: in the box of 100, at twice the attraction, the
# aggregate that forms is driven so hard that its overlaps pass a diameter by step 120,
# and the run stops as blown up)
scenario corner "1 2 3 4 8" "${CORNER[@]}" -steps 300

# Granular settling from a jittered lattice onto a tilted floor (a half-plane), box walls
# off, 3-cell tiles: walls, half-planes and a different tile size.
MIN_MOVED=100
scenario settle "1 2 4 8" -n 1800 -init jitter -init_phi 0.5 -polydispersity 0.2 -box 0,0,80,80 \
  -init_region 0,20,80,80 -wall_box 0 -halfplanes 0.2,1,6,1,0,0,-1,0,-80 -gravity 0.5,-3 -attract_gamma 0 \
  -dt 0.01 -steps 500 -tile 3

# Brownian noise on a dense gas: a driver term may depend on its disk's own state only
# (docs/contributing.md), which this guards: a draw keyed by the disk's local index
# instead of its id changes the digest with the rank count.
MIN_MOVED=0
scenario noise "1 2 3" -n 2000 -init jitter -init_phi 0.5 -box 0,0,90,90 -attract_gamma 0 -gravity 0,0 \
  -noise 0.05 -dt 0.01 -steps 200 -tile 2

# The comparison solvers on a pile that jams (contacts in every step): pngs and penalty
# are bitwise independent of the rank count like pbd; pgs is not (its Gauss-Seidel order
# follows PETSc's row ownership, see pgs.c) and must agree within its tolerance: the
# final positions of 1 and 3 ranks differ by less than 1e-6 (h5diff --delta).
MIN_MOVED=0
PILE="-n 400 -radius 0.1 -init jitter -init_phi 0.4 -box -5,0,5,9 -init_region -4,0,4,8 -wall_box 0
  -halfplanes 0,1,0 -attract_gamma 1 -attract_center 0,0 -gravity 0,0 -dt 5e-4 -steps 1000 -tile 2"
scenario pngs "1 2 3" $PILE -solver pngs -solver_rtol 1e-9
scenario penalty "1 2 3" $PILE -solver penalty -penalty_gamma 200
# pbdw carries contact multipliers in per-disk slots that migrate, are ghosted and are
# rehomed at every rebinning (warm.c): the jamming pile, and the corner run where every
# disk crosses rank boundaries; the symmetric sweep (-pbdw_sweeps 2, the default) and the
# one-sweep step (-pbdw_sweeps 1) on the pile.
scenario pbdw "1 2 3 4" $PILE -solver pbdw
scenario pbdw_one "1 3" $PILE -solver pbdw -pbdw_sweeps 1
# pbdw in a crowd whose agents leave through a door (removed in the crowd's stepEnd,
# which reorders the disks: the multipliers must be back in their fields first).  Its
# sweeps end beyond half the skin once (step 383), and the check of the missed pairs
# must give one answer on every rank count (before issue 46 it counted stale ghosts and
# stopped the run on 2 ranks).
printf 'walkable POLYGON ((0 0, 8 0, 8 3.4, 11 3.4, 11 4.6, 8 4.6, 8 8, 0 8, 0 0))\nexit     LINESTRING (11 3.4, 11 4.6)\n' >"$out/door.wkt"
# (-check_conservation is off: the agents that leave are not conserved.)
cref=""
for np in 1 2 3; do
  check "pbdw_crowd on $np ranks failed" logged "$out/pbdw_crowd.$np.log" timeout 300 "$MPIEXEC" -n "$np" --oversubscribe \
    "$THRONG" -quiet -output none -geometry "$out/door.wkt" -n 150 -radius 0.2 -polydispersity 0 -init jitter \
    -init_phi 0.45 -init_region 0.3,0.3,7.7,7.7 -crowd_model projection -exit_rule reach -dt 0.01 -steps 1500 \
    -skin 0.2 -tile 2 -eikonal_h 0.05 -solver pbdw
  cd_np=$(sed -n 's/^state-digest: //p' "$out/pbdw_crowd.$np.log")
  left=$(sed -n 's/.* N \([0-9]*\) .*/\1/p' "$out/pbdw_crowd.$np.log" | tail -1)
  echo "pbdw_crowd  ranks $np  digest $cd_np  agents left in the room ${left:-?}"
  check "pbdw_crowd on $np ranks printed no digest" test -n "$cd_np"
  if [ -z "$cref" ]; then cref=$cd_np; else check "pbdw_crowd: digest on $np ranks differs from 1 rank" same "$cd_np" "$cref"; fi
done
MIN_MOVED=3000
scenario pbdw_corner "1 4" "${CORNER[@]}" -steps 300 -solver pbdw
MIN_MOVED=0
for np in 1 3; do
  check "pgs on $np ranks failed" logged "$out/pgs.$np.log" timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet $PILE -solver pgs -solver_rtol 1e-10 \
    -output "$out/pgs$np" -output_every 0 -checkpoint none
  grep '^summary: solver' "$out/pgs.$np.log"
done
check "pgs: 1 and 3 ranks differ by more than 1e-6" logged "$out/pgs.diff" \
  h5diff --delta=1e-6 "$out/pgs1.h5" "$out/pgs3.h5" /particles/disks/position/value /particles/disks/position/value
# the same QP through PETSc TAO (tron) on 2 ranks: the same positions within 1e-6
check "pgs -pgs_tao on 2 ranks failed" logged "$out/tao.2.log" timeout 300 "$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet $PILE -solver pgs -pgs_tao -solver_rtol 1e-10 \
  -output "$out/tao2" -output_every 0 -checkpoint none
grep '^summary: solver' "$out/tao.2.log"
check "pgs: TAO and projected Gauss-Seidel differ by more than 1e-6" logged "$out/tao.diff" \
  h5diff --delta=1e-6 "$out/pgs1.h5" "$out/tao2.h5" /particles/disks/position/value /particles/disks/position/value
! cmp -s <(sed -n 's/^state-digest: //p' "$out/pgs.1.log") <(sed -n 's/^state-digest: //p' "$out/pgs.3.log") &&
  echo "pgs: digests differ between 1 and 3 ranks (expected), positions agree within 1e-6"

# Load balancing (balance.c), off and on, against the 1-rank digest: it must repartition
# when on, never when off, lower the mean work imbalance, and keep the digest.
balanced() { # name, ranks, min repartitions, options...
  local name=$1 np=$2 want=$3; shift 3
  local ref log_off log_on
  timeout 300 "$MPIEXEC" -n 1 "$THRONG" -quiet -output none "$@" >"$out/$name.ref.log" 2>&1
  ref=$(sed -n 's/^state-digest: //p' "$out/$name.ref.log")
  for thr in 0 1.05; do
    log="$out/$name.$thr.log"
    check "$name with -balance_threshold $thr on $np ranks failed" logged "$log" timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet -output none -check_conservation -balance_threshold "$thr" -balance_interval 1 "$@"
    grep '^summary: balance' "$log"
    check "$name: digest with -balance_threshold $thr on $np ranks differs from 1 rank" \
      same "$(sed -n 's/^state-digest: //p' "$log")" "$ref"
  done
  local r0 r1 w0 w1
  r0=$(sed -n 's/.* \([0-9]*\) repartitions.*/\1/p' "$out/$name.0.log"); r1=$(sed -n 's/.* \([0-9]*\) repartitions.*/\1/p' "$out/$name.1.05.log")
  w0=$(sed -n 's/.*imbalance .*: work \([0-9.]*\) .*/\1/p' "$out/$name.0.log"); w1=$(sed -n 's/.*imbalance .*: work \([0-9.]*\) .*/\1/p' "$out/$name.1.05.log")
  check "$name: $r0 repartitions with balancing off" same "${r0:-x}" 0
  check "$name: $r1 repartitions with balancing on (want >= $want)" holds 'r >= w' r="${r1:-0}" w="$want"
  check "$name: mean work imbalance $w1 with balancing, not below 0.8 x $w0 without" awk -v a="${w0:-0}" -v b="${w1:-9}" 'BEGIN { exit !(b < 0.8 * a) }'
  echo "$name: $np ranks, repartitions 0 / $r1, mean work imbalance $w0 / $w1"
}
balanced corner 4 3 "${CORNER[@]}" -steps 300
# a crowd in a narrow western stripe: the x cut cannot split it, so the grid turns to 1 x 2
balanced stripe 2 1 -n 3000 -init uniform -box 0,0,100,100 -init_region 0,0,8,100 -attract_gamma 0 \
  -gravity 0,-1 -dt 0.01 -steps 200 -tile 2
check "stripe: the balancer did not turn the grid to 1 x 2" grep -q "grid 1 x 2 at the end" "$out/stripe.1.05.log"

finish
