#!/usr/bin/env bash
# Simple shear by Lees-Edwards images (issue 29: src/granular/deform.c, -shear_rate).  400
# bidisperse disks are compressed to phi = 0.78 and sheared at rate 0.5 to a strain of
# about 2.4, so that the tilt of the box flips twice (at strains 0.5 and 1.5).
#  1. the same state-digest on 1, 2 and 3 ranks, with pbd and pbdw;
#  2. a run checkpointed mid-shear on 3 ranks and restarted on 2 ends with the straight
#     run's digest; a restart with another rate is refused;
#  3. postproc/minimage.py, a brute-force overlap over all pairs with the sheared box's
#     images (the 2 x 2 H5MD edges, not throng's cells), agrees with throng's own final
#     overlap to the 4 digits it prints, the final tilt is not 0 and every disk is inside the box;
#  4. the flow is homogeneous: the snapshot's x velocity against y has the slope of the
#     shear rate within 10 % (Lees-Edwards images shear the bulk, not a boundary layer);
#  5. physics: the shear stress opposes the shear (eta = -sigma_xy / rate > 0); the
#     viscosity grows towards jamming, eta(0.80) > 3 eta(0.70) (Olsson and Teitel: it
#     diverges at phi_J ~ 0.843); and it is the hard-disk limit, the same at rates 0.1
#     and 0.5 within 25 % (hard disks have no time scale but 1/rate).
#   test_shear.sh path/to/throng path/to/mpiexec path/to/source
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
    -periodic xy -box 0,0,30.49,30.49 -init uniform -gravity 0,0 -dt 0.001 -deform_rate -0.5 -deform_phi 0.78 \
    -shear_rate 0.5 -tile 2 -steps 5300 -stress -progress 100 -map false "$@"
}
check "shear, 1 rank" run 1 one.log -output none
check "shear, 2 ranks" run 2 two.log -output none
check "shear, 3 ranks" run 3 three.log -output none
check "2 ranks give another digest" same "$(digest two.log)" "$(digest one.log)"
check "3 ranks give another digest" same "$(digest three.log)" "$(digest one.log)"
check "pbdw shear, 1 rank" run 1 w1.log -output none -solver pbdw
check "pbdw shear, 3 ranks" run 3 w3.log -output none -solver pbdw
check "pbdw: 3 ranks give another digest" same "$(digest w3.log)" "$(digest w1.log)"

check "run stopped mid-shear" run 3 first.log -output part -steps 3500
check "restarted run" run 2 second.log -output part2 -restart part.chk.h5
check "the restart did not start at step 3500" grep -q "restarted from 'part.chk.h5' at step 3500" second.log
check "restart mid-shear changes the trajectory" same "$(digest second.log)" "$(digest one.log)"
check "restart with another rate ran" not run 1 other.log -output part3 -restart part.chk.h5 -shear_rate 0.4
check "restart with another rate: not refused as other equations" grep -q "written for other equations" other.log

check "shear with a snapshot" run 1 snap.log -output one -output_every 5300 -quiet
check "the snapshot run gives another digest" same "$(digest snap.log)" "$(digest one.log)"
check "minimage.py" logged mi.log /usr/bin/python3 "$SRC/postproc/minimage.py" one.h5
cat mi.log
ours=$(sed -n 's/^summary: max_overlap .*; \([^ ]*\) at the end, .*/\1/p' snap.log) # printed to 7 digits
brute=$(sed -n 's/^overlap //p' mi.log)
inside=$(sed -n 's/^inside //p' mi.log)
echo "final overlap: throng $ours, brute force $brute"
check "brute-force overlap $brute differs from throng's $ours" holds 'o > 0 && b <= o * 1.0005 && b >= o * 0.9995' b="$brute" o="$ours"
check "a disk is outside the sheared box ($inside)" same "$inside" 1.000000
cat > flow.py <<'PY'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    E = f["particles/disks/box/edges"][()]
    q = f["particles/disks/position/value"][-1]
    v = f["particles/disks/velocity/value"][-1]
ok = np.isfinite(v[:, 0])
slope = np.polyfit(q[ok, 1], v[ok, 0], 1)[0]
print(f"tilt {E[1, 0]:.6g} slope {slope:.6g} disks {int(ok.sum())}")
PY
check "flow profile" logged flow.log /usr/bin/python3 flow.py one.h5
cat flow.log
tilt=$(awk '{print $2}' flow.log); slope=$(awk '{print $4}' flow.log)
check "the final tilt is 0: no shear" holds 't != 0' t="$tilt"
check "the x velocity grows with y at $slope, not at the shear rate 0.5 within 10 %" holds 's >= 0.45 && s <= 0.55' s="$slope"

eta() { # log: -sigma_xy / rate averaged over the last two thirds of the shear
  awk -v r="$2" -v t0="$3" '/^stress:/ && $3 >= t0 {k++; s += $11} END {if (k) printf "%.6g\n", -s / k / r}' "$1"
}
shear() { # phi, rate, log: strain 3 after the compression
  local phi=$1 rate=$2 log=$3 cs
  cs=$(awk -v p="$phi" 'BEGIN {print int(log(p / 0.5) / (-2 * log(1 - 0.0005))) + 1}')
  echo "$cs" > "$log.cs"
  logged "$log" timeout 600 "$THRONG" -n 400 -bidisperse 1.4 -radius 0.5 -periodic xy -box 0,0,30.49,30.49 \
    -init uniform -gravity 0,0 -dt 0.001 -deform_rate -0.5 -deform_phi "$phi" -shear_rate "$rate" -tile 2 \
    -steps $((cs + $(awk -v r="$rate" 'BEGIN {print int(3 / (r * 0.001))}'))) -stress \
    -progress "$(awk -v r="$rate" 'BEGIN {print int(0.02 / (r * 0.001))}')" -output none -map false
}
for c in "0.70 0.5" "0.80 0.5" "0.80 0.1"; do
  set -- $c
  check "shear at phi $1, rate $2" shear "$1" "$2" "eta_$1_$2.log"
done
start() { echo $(($(cat "$1.cs") + $(awk -v r="$2" 'BEGIN {print int(1 / (r * 0.001))}'))); }
e70=$(eta eta_0.70_0.5.log 0.5 "$(start eta_0.70_0.5.log 0.5)")
e80=$(eta eta_0.80_0.5.log 0.5 "$(start eta_0.80_0.5.log 0.5)")
e80s=$(eta eta_0.80_0.1.log 0.1 "$(start eta_0.80_0.1.log 0.1)")
echo "eta: phi 0.70 rate 0.5: $e70; phi 0.80 rate 0.5: $e80; phi 0.80 rate 0.1: $e80s"
check "the shear stress does not oppose the shear (eta $e70)" holds 'e > 0' e="$e70"
check "the viscosity does not grow towards jamming ($e70 -> $e80)" holds 'b > 3 * a' a="$e70" b="$e80"
check "the viscosity depends on the rate ($e80 at 0.5, $e80s at 0.1)" holds 'a > 0.75 * b && a < 1.25 * b' a="$e80" b="$e80s"
finish
