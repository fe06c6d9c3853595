#!/usr/bin/env bash
# Crowd at scale: 10^6 agents in a 700 m x 700 m hall with four exits
# (configs/venue-1M.yaml), 200 steps of 20 ms on NP ranks (the time-gap law) (default: all cores).  Prints
# the time per step, agent-steps per second, the set-up time (geometry, eikonal field,
# initial condition) and the peak memory.
#   bash jobs/bench_crowd.sh [NP [STEPS]]
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-$(nproc)}; STEPS=${2:-200}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x build/throng ] || bash .ci/setup
log=$(mktemp); trap 'rm -f "$log"' EXIT
t0=$(date +%s.%N)
mpirun -n "$NP" build/throng -options_file_yaml configs/venue-1M.yaml -steps "$STEPS" -quiet -log_view >"$log" 2>&1 || { tail -5 "$log"; exit 1; }
t1=$(date +%s.%N)
awk -v np="$NP" -v steps="$STEPS" -v total="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
  /^summary: steps/ { for (i = 1; i <= NF; i++) { if ($i == "wall") w = $(i + 1); if ($i == "N") n = $(i + 1) } }
  /^summary: memory/ { for (i = 1; i <= NF; i++) if ($i == "bytes" && $(i + 1) == "per") { b = $(i - 1); break } }
  /^--- Event Stage 1: Setup/ { setup = 1 } /^--- Event Stage 2/ { setup = 0 }
  setup && /^ThrInit/ { init = $4 }
  END {
    printf "bench_crowd: %d agents, %d ranks, %d steps\n", n, np, steps
    printf "  time per step      %.4f s   (%.3e agent-steps/s, %.3e per rank)\n", w / steps, n * steps / w, n * steps / w / np
    printf "  run loop           %.2f s; whole command %.1f s (set-up: geometry, eikonal field, %.2f s initial condition)\n", w, total, init
    printf "  peak memory        %s bytes per agent\n", b }' "$log"
