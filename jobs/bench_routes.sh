#!/usr/bin/env bash
# The cost of exit choice by expected travel time (issue 19, src/crowd/route.c) at scale: 10^6
# agents in the 700 m x 700 m hall of configs/venue-1M.yaml, STEPS steps of 20 ms on NP
# ranks, once with nearest-exit routing and once with -route_choice quickest at its
# default interval (2 s, one recomputation every 100 steps).  Prints, from one run each:
# the time per step, the time per recomputation and its share of the time between two
# recomputations, the whole overhead of quickest (per-exit fields, the per-step exchange
# of changes, the recomputations) against nearest, and the set-up time of the per-exit
# fields.
#   bash jobs/bench_routes.sh [NP [STEPS]]       (default: all cores, 300 steps)
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-$(nproc)}; STEPS=${2:-300}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x build/throng ] || bash .ci/setup
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
for c in nearest quickest; do
  t0=$(date +%s.%N)
  mpirun -n "$NP" build/throng -options_file_yaml configs/venue-1M.yaml -steps "$STEPS" -route_choice "$c" -quiet \
    -log_view >"$dir/$c.log" 2>&1 || { tail -5 "$dir/$c.log"; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >"$dir/$c.total"
done
awk -v np="$NP" -v steps="$STEPS" -v tn="$(cat "$dir/nearest.total")" -v tq="$(cat "$dir/quickest.total")" '
  FNR == 1 { f++ }
  /^summary: steps/ { for (i = 1; i <= NF; i++) { if ($i == "wall") w[f] = $(i + 1); if ($i == "N") n = $(i + 1) } }
  /^summary: memory/ { for (i = 1; i <= NF; i++) if ($i == "bytes" && $(i + 1) == "per") { b[f] = $(i - 1); break } }
  /exit choice:/ { for (i = 1; i <= NF; i++) { if ($i == "recomputations") k = $(i - 1); if ($i == "wall") rw = $(i - 3) }
                   for (i = 1; i <= NF; i++) if ($i == "every") iv = $(i + 1) }
  END {
    step = w[2] / steps; per = k ? rw / k : 0; between = iv / 0.02 * step
    printf "bench_routes: %d agents at the start, %d ranks, %d steps of 0.02 s\n", n, np, steps
    printf "  nearest   %.4f s per step; whole command %.1f s; peak memory %s bytes per agent\n", w[1] / steps, tn, b[1]
    printf "  quickest  %.4f s per step; whole command %.1f s (the extra set-up: one field per exit); peak memory %s bytes per agent\n", step, tq, b[2]
    printf "  recomputations: %d, %.4f s each (slowest rank), %.2f %% of the %.1f s between two (every %g s of simulated time)\n", k, per, 100 * per / between, between, iv
    printf "  quickest/nearest time loop: %.3f\n", w[2] / w[1] }' "$dir/nearest.log" "$dir/quickest.log"
