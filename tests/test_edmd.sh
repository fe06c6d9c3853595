#!/usr/bin/env bash
# -solver edmd through the program (seed 003):
#  - the hard-disk equation of state: Z from the collision virial in a periodic box, for
#    eta = 0.1 ... 0.5, N = 1000, two replicas (2 ranks), against Henderson's
#    Z = (1 + eta^2/8) / (1 - eta)^2 within 1 %;
#  - replica 0 is the same trajectory on 1 and 2 ranks (state digest);
#  - the cell-list and brute-force engines log the same events in the same order, with
#    walls and polydisperse radii (masses ~ r^2);
#  - the snapshots carry the true velocities: kinetic energy N kT in every frame.
#   test_edmd.sh path/to/throng path/to/mpiexec
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

# A periodic square box of side L holding N disks of radius 0.5 at area fraction eta; the
# lattice starts denser (0.65) in the box less a radius on each side, and melts.
eos() { # eta ranks extra...
  local eta=$1 np=$2; shift 2
  local L; L=$(awk -v e="$eta" 'BEGIN { printf "%.12g", sqrt(1000 * 3.141592653589793 * 0.25 / e) }')
  timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -solver edmd -edmd_periodic -n 1000 -radius 0.5 -polydispersity 0 \
    -box 0,0,"$L","$L" -init lattice -init_phi 0.65 -init_region 0.5,0.5,"$(awk -v L="$L" 'BEGIN { print L - 0.5 }')","$(awk -v L="$L" 'BEGIN { print L - 0.5 }')" \
    -dt 1 -steps 300 -edmd_equilibrate 30 -output none -quiet "$@"
}
echo "eta     Z (2 replicas)   Henderson   deviation"
for eta in 0.1 0.2 0.3 0.4 0.5; do
  check "eos eta $eta failed" logged "$out/eos$eta.log" eos "$eta" 2
  line=$(grep "summary: edmd: eta" "$out/eos$eta.log")
  z=$(echo "$line" | sed -n 's/.*Z \([0-9.e+-]*\) +- \([0-9.e+-]*\) (mean.*/\1 +- \2/p')
  h=$(echo "$line" | sed -n 's/.*Henderson \([0-9.e+-]*\) .*/\1/p')
  d=$(echo "$line" | sed -n 's/.*deviation \([-+0-9.]*\) %.*/\1/p')
  printf "%-7s %-16s %-11s %s %%\n" "$eta" "$z" "$h" "$d"
  check "eos eta $eta: Z deviates from Henderson by ${d:-?} % (allowed 1 %)" awk -v d="${d:-99}" 'BEGIN { exit !(d <= 1 && d >= -1) }'
done

# replica 0 on 1 rank = replica 0 of the 2-rank run
check "eos on 1 rank failed" logged "$out/eos1.log" eos 0.3 1
check "edmd: replica 0's digest differs between 1 and 2 ranks" same "$(grep state-digest "$out/eos1.log")" "$(grep state-digest "$out/eos0.3.log")"

# cell lists against brute force, through the program: walls, polydisperse
for mode in cells brute; do
  flag=""; [ $mode = brute ] && flag="-edmd_brute"
  check "edmd $mode failed" logged "$out/$mode.log" timeout 300 "$THRONG" -solver edmd -n 300 -radius 0.5 -polydispersity 0.3 -box 0,0,30,30 -init jitter -init_phi 0.5 -dt 0.5 \
    -steps 80 -output none -quiet -edmd_log "$out/$mode.events" $flag
done
n=$(wc -l < "$out/cells.events")
check "edmd: the cell-list engine's $n events differ from the brute-force engine's" cmp -s "$out/cells.events" "$out/brute.events"
check "edmd: only $n events (want > 5000: the comparison must see collisions)" holds 'n > 5000' n="$n"
echo "cell lists and brute force: $n events, identical: $(cmp -s "$out/cells.events" "$out/brute.events" && echo yes || echo no)"
check "edmd: cells and brute force end in different states" same "$(grep state-digest "$out/cells.log")" "$(grep state-digest "$out/brute.log")"

# snapshots with velocities: sum m v^2 / 2 = N kT (= 1000 * 1.5) in every frame
check "edmd with output failed" logged "$out/snap.log" eos 0.4 1 -edmd_temperature 1.5 -output "$out/snap" -output_every 50
check "edmd: the snapshots do not hold 7 frames of kinetic energy N kT" /usr/bin/python3 - "$out/snap.h5" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
v, r = f["particles/disks/velocity/value"][:], f["particles/disks/radius/value"][:]
e = [0.5 * np.sum((r[k] / 0.5) ** 2 * np.sum(v[k] ** 2, axis=1)) for k in range(len(v))]
print("edmd snapshots:", len(v), "frames, kinetic energy", ["%.10g" % x for x in e[:3]], "...")
sys.exit(0 if len(v) == 7 and all(abs(x - 1500) < 1e-9 * 1500 for x in e) else 1)
PY

finish
