#!/usr/bin/env bash
# The default venue (-scenario evacuation: 10 000 agents, an 80 m x 50 m hall, four 2.4 m
# doors) with nearest-exit routing and with exit choice by expected travel time (the
# scenario's default, -route_choice quickest; src/crowd/route.c): the evacuation time and each
# door's share in both, and the two evacuation curves (issue 19).  Writes OUTDIR/ (the
# runs' CSV files and logs) and OUTDIR/routes-venue.png; with --docs also copies the plot
# to docs/img/.  About 4 minutes per run on 2 cores.
#   bash jobs/routes_venue.sh [--docs] [OUTDIR]     (default routes-venue.out; NP: ranks)
set -euo pipefail
cd "$(dirname "$0")/.."
DOCS=0; if [ "${1:-}" = "--docs" ]; then DOCS=1; shift; fi
OUT=${1:-routes-venue.out}; NP=${NP:-$(nproc)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x build/throng ] || bash .ci/setup
mkdir -p "$OUT"
for c in nearest quickest; do
  mpirun -n "$NP" build/throng -scenario evacuation -route_choice "$c" -output "$OUT/$c" -output_every 0 -quiet >"$OUT/$c.log" 2>&1 ||
    { tail -5 "$OUT/$c.log"; exit 1; }
  grep -E "summary: steps|evacuation time|exit choice" "$OUT/$c.log" | sed "s/^/$c: /"
done
/usr/bin/python3 postproc/routes.py --png "$OUT/routes-venue.png" --md "$OUT/routes-venue.md" nearest="$OUT/nearest" quickest="$OUT/quickest"
if [ $DOCS = 1 ]; then mkdir -p docs/img && cp "$OUT/routes-venue.png" docs/img/ && echo "routes_venue: wrote docs/img/routes-venue.png"; fi
