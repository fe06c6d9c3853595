#!/usr/bin/env bash
# Contact forces and stress (issue 29, src/granular/contacts.c).
#  1. a 20-layer pile settled by pbd on 2 ranks with -stress -stress_bands 5: its
#     state-digest is that of the same run without -stress on 1 and 3 ranks (recording
#     changes no bit); the same for pbdw (its forces come from its stored multipliers)
#     and penalty;
#  2. the stress profile is hydrostatic: in each band below the top, sigma_yy from the
#     contacts is within 5 % of the weight of the disks above (computed here from the
#     final snapshot: g times the disks whose centres lie above y, per unit width,
#     averaged over the band), and sigma_xx is positive but below sigma_yy;
#  3. the summary's packing fraction is the disks' area over the box's (from the snapshot).
#  Parts 2 and 3 run for pbd, pbdw and penalty (its forces are its springs: penalty.c).
#   test_contacts.sh path/to/throng path/to/mpiexec path/to/configs
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; CONF=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
run() { # ranks, log, options...
  local np=$1 log=$2; shift 2
  logged "$log" timeout 600 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet \
    -options_file_yaml "$CONF/bench-dense.yaml" -n 400 -box 0,0,20.5,25 -steps 3000 -tile 4 "$@"
}
for sol in pbd pbdw penalty; do
opt=(-solver "$sol")
# penalty: explicit springs, stable for h gamma < 1/2 (gamma = 1000): a smaller step, as long
[ "$sol" = penalty ] && opt+=(-dt 2.5e-4 -steps 12000)
check "$sol pile with -stress" run 2 rec.log "${opt[@]}" -stress -stress_bands 5 -output pile -output_every 3000
check "$sol pile, 1 rank" run 1 one.log "${opt[@]}" -output none
check "$sol pile, 3 ranks" run 3 three.log "${opt[@]}" -output none
check "$sol: -stress changed the trajectory" same "$(digest rec.log)" "$(digest one.log)"
check "$sol: 3 ranks give another digest" same "$(digest three.log)" "$(digest one.log)"

grep '^stress-band:' rec.log > bands.txt
check "$sol: five bands" holds 'n == 5' n="$(wc -l < bands.txt)"
cat > expect.py <<'PY'
import h5py, numpy as np
with h5py.File("pile.h5") as f:
    q = f["particles/disks/position/value"][-1]
    r = f["particles/disks/radius/value"][-1]
    L = f["particles/disks/box/edges"][()]
W, g = L[0], 1.0
for b in range(5):
    ys = np.linspace(5 * b, 5 * b + 5, 2001)
    print(f"{np.mean([g * np.count_nonzero(q[:, 1] > y) / W for y in ys]):.6e}")
print(f"phi {np.pi * np.sum(r * r) / (L[0] * L[1]):.6f}")
PY
check "expect.py failed" logged exp.log /usr/bin/python3 expect.py
for b in 1 2 3; do
  got=$(awk -v b="$b" 'NR == b {print $9}' bands.txt); sxx=$(awk -v b="$b" 'NR == b {print $7}' bands.txt)
  want=$(sed -n "${b}p" exp.log)
  echo "$sol band $b: sigma_yy $got, weight above $want, sigma_xx $sxx"
  check "$sol band $b: sigma_yy $got is not the weight above $want within 5 %" holds 'w > 0 && g > 0.95 * w && g < 1.05 * w' g="$got" w="$want"
  check "$sol band $b: sigma_xx $sxx not in (0, sigma_yy)" holds 'x > 0 && x < g' x="$sxx" g="$got"
done
phi=$(sed -n 's/^summary: stress .* phi \([^ ]*\) .*/\1/p' rec.log); want=$(sed -n 's/^phi //p' exp.log)
echo "$sol phi: summary $phi, snapshot $want"
check "$sol: phi $phi is not the snapshot's $want" holds 'p > 0 && p - w < 1e-6 && w - p < 1e-6' p="$phi" w="$want"
rm -f pile.h5 pile.xdmf
done
finish
