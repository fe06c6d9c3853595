#!/usr/bin/env bash
# The force chains of a bidisperse heap (issue 29): 1500 disks (50:50, diameter ratio 1.4)
# fall from a uniform start into a box under gravity and settle; pngs gives the contact
# forces, -contact_output writes them, and postproc/forcechains.py draws them with
# ParaView: tubes coloured and sized by the normal force, over the disks.
#   bash jobs/forcechains.sh [--out DIR] [--docs]
# --docs copies the picture to docs/img/forcechains.png (the README's).  About two minutes
# on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
out=forcechains-out docs=0
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --docs) docs=1; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "forcechains.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
THRONG=$(readlink -f "${THRONG:-build/throng}")
[ -x "$THRONG" ] || bash .ci/setup
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$out"
cmd=(mpirun -n 2 "$THRONG" -n 1500 -bidisperse 1.4 -radius 0.5 -box 0,0,40,60 -init uniform -seed 1
     -gravity 0,-1 -wall_box -attract_gamma 0 -dt 0.002 -skin 0.3 -steps 10000
     -solver pngs -solver_rtol 1e-6 -solver_max_it 200
     -stress -stress_bands 4 -contact_output -output "$out/heap" -output_every 2000 -progress 2000)
echo "forcechains.sh: ${cmd[*]}"
"${cmd[@]}" | tee "$out/heap.log" | grep -E '^(stress|summary: stress|stress-band)'
xvfb-run -a pvbatch postproc/forcechains.py "$out/heap" --png "$out/forcechains.png" --size 880x820 2>&1 |
  grep '^forcechains.py'
if [ "$docs" = 1 ]; then
  cp "$out/forcechains.png" docs/img/forcechains.png
  echo "forcechains.sh: docs/img/forcechains.png"
fi
