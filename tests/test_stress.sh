#!/usr/bin/env bash
# Stress: 8 oversubscribed ranks on 2 cores, 3000 disks with Brownian kicks large enough
# to rebin at every step and hand disks between ranks at every step (-noise 0.5, h 0.01:
# sqrt(2 D h) = 0.1 per coordinate and step, on tiles of 2 cells), 10^5 steps.
# Asserted:
#   - the id set after every migration (-check_conservation: a lost or duplicated disk
#     stops the run with an error), and N at the end;
#   - at least 5 migrations per step on average, a rebinning at every step;
#   - no overlap above the stated bound, 2 sqrt(2 D h) (the kicks of one step), and
#     no sweep ended beyond half the skin (the candidate sets stayed complete);
#   - the final state bitwise equal to the 1-rank run (same digest).
#   test_stress.sh path/to/throng path/to/mpiexec [STEPS]
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}; STEPS=${3:-100000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

N=3000; D=0.5; H=0.01
A="-n $N -init jitter -init_phi 0.4 -box 0,0,140,140 -gravity 0,0 -attract_gamma 0 -noise $D -dt $H -skin 2
   -rebin_fraction 0.05 -steps $STEPS -tile 2 -quiet -output none -progress 0"
# shellcheck disable=SC2086
check "8 ranks failed" logged "$out/p8.log" timeout 900 "$MPIEXEC" -n 8 --oversubscribe "$THRONG" $A -check_conservation
# shellcheck disable=SC2086
check "1 rank failed" logged "$out/p1.log" timeout 900 "$THRONG" $A
grep -E '^summary: (steps|max_overlap|balance)|^state-digest' "$out/p8.log"
d8=$(sed -n 's/^state-digest: //p' "$out/p8.log"); d1=$(sed -n 's/^state-digest: //p' "$out/p1.log")
check "digest on 8 ranks ($d8) differs from 1 rank ($d1)" same "$d8" "$d1"
check "not $N disks after $STEPS steps" grep -q "^summary: steps $STEPS .* N $N " "$out/p8.log"
check "a sweep ended beyond half the skin (checked, but the rebinning should prevent it)" not grep -q beyond_half_skin "$out/p8.log"
check "fewer than one rebinning per step or 5 migrations per step" \
  awk -v steps="$STEPS" '/^summary: max_overlap/ { for (i = 1; i <= NF; i++) { if ($i == "rebins") r = $(i + 1); if ($i == "migrated") m = $(i + 1) } }
  END { printf "rebins %d, migrations %d (%.1f per step)\n", r, m, m / steps; exit !(r == steps && m >= 5 * steps) }' "$out/p8.log"
check "overlap above the bound 2 sqrt(2 D h)" awk -v d="$D" -v h="$H" '/^summary: max_overlap/ { o = $3 } END { b = 2 * sqrt(2 * d * h); printf "max overlap %g, bound 2 sqrt(2 D h) = %g\n", o, b; exit !(o != "" && o <= b) }' "$out/p8.log"

finish
