#!/bin/bash
# The showcase of buildings with several floors: the three-storey office of
# configs/office.yaml (RiMEA test 8's building, 448 people in four populations with
# lognormal pre-movement) on NP ranks (default 2), then its pictures:
#   OUT-evacuation.png  the evacuation curve, the exit count and the occupancy of each
#                       floor and flight of stairs (postproc/crowd.py);
#   OUT-floors.png      ParaView's view of the floors stacked at t = 100 s, each agent
#                       at (xs, ys, z = level x storey height) (postproc/render.py).
# With --docs the pictures go to docs/img/ (the README shows them).
#   bash jobs/office.sh [--docs]
# Environment: THRONG (default build/throng), MPIEXEC (default mpiexec), NP, OUT (default office).
set -euo pipefail
cd "$(dirname "$0")/.."
THRONG=${THRONG:-build/throng}; MPIEXEC=${MPIEXEC:-mpiexec}; NP=${NP:-2}; OUT=${OUT:-office}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
start=$(date +%s)
"$MPIEXEC" -n "$NP" "$THRONG" -options_file_yaml configs/office.yaml -output "$OUT" | tee "$OUT.log" | grep -E "^(summary: crowd: 448|floors:|state-digest)"
echo "office: the run took $(( $(date +%s) - start )) s on $NP ranks"
/usr/bin/python3 postproc/crowd.py "$OUT"
xvfb-run -a pvbatch postproc/render.py "$OUT.xdmf" --png "$OUT-floors.png" --oblique --color z --frame 20 --size 1200x800
if [ "${1:-}" = "--docs" ]; then
  mkdir -p docs/img
  cp "$OUT-evacuation.png" docs/img/office-evacuation.png
  cp "$OUT-floors.png" docs/img/office-floors.png
  echo "office: wrote docs/img/office-evacuation.png and docs/img/office-floors.png"
fi
