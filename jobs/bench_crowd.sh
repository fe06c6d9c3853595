#!/usr/bin/env bash
# Crowd at scale: 10^6 agents in a 700 m x 700 m hall with four exits
# (configs/venue-1M.yaml), STEPS steps of 20 ms on NP ranks (default: all cores, 200),
# first with the time-gap law (the default crowd model), then with seed 001's projection
# model in the same hall and the same run (-crowd_model projection -exit_rule reach).
# Prints, for each, the time per step and agent-steps per second; for the law, the
# set-up time (geometry, eikonal field, initial condition), the peak memory, its share
# of a step and its parts (-log_view's ThrLaw* events, ns per agent-step on the slowest
# rank); and the law's rate as a fraction of the projection model's, which machines do
# not change as they change absolute speed (goal: >= 0.9).
#   bash jobs/bench_crowd.sh [NP [STEPS]]     (THRONG: the program, default build/throng)
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-$(nproc)}; STEPS=${2:-200}; THRONG=${THRONG:-build/throng}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x "$THRONG" ] || bash .ci/setup
log=$(mktemp); plog=$(mktemp); trap 'rm -f "$log" "$plog"' EXIT
t0=$(date +%s.%N)
mpirun -n "$NP" "$THRONG" -options_file_yaml configs/venue-1M.yaml -steps "$STEPS" -quiet -log_view >"$log" 2>&1 || { tail -5 "$log"; exit 1; }
t1=$(date +%s.%N)
mpirun -n "$NP" "$THRONG" -options_file_yaml configs/venue-1M.yaml -steps "$STEPS" -quiet \
  -crowd_model projection -exit_rule reach >"$plog" 2>&1 || { tail -5 "$plog"; exit 1; }
pw=$(awk '/^summary: steps/ { for (i = 1; i <= NF; i++) if ($i == "wall") print $(i + 1) }' "$plog")
awk -v np="$NP" -v steps="$STEPS" -v pw="$pw" -v total="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
  /^summary: steps/ { for (i = 1; i <= NF; i++) { if ($i == "wall") w = $(i + 1); if ($i == "N") n = $(i + 1) } }
  /^summary: memory/ { for (i = 1; i <= NF; i++) if ($i == "bytes" && $(i + 1) == "per") { b = $(i - 1); break } }
  /^--- Event Stage 1: Setup/ { setup = 1 } /^--- Event Stage 2/ { setup = 0; run = 1 }
  setup && /^ThrInit/ { init = $4 }
  run && /^ThrSpeedLaw/ { law = $4 }
  run && /^ThrLaw/ { part[++np2] = $1; tpart[np2] = $4 }
  END {
    printf "bench_crowd: %d agents, %d ranks, %d steps\n", n, np, steps
    printf "  time-gap law       %.4f s per step (%.3e agent-steps/s, %.3e per rank)\n", w / steps, n * steps / w, n * steps / w / np
    printf "  projection model   %.4f s per step (%.3e agent-steps/s, %.3e per rank)\n", pw / steps, n * steps / pw, n * steps / pw / np
    printf "  law / projection   %.3f of the projection model'"'"'s rate (goal: >= 0.9)\n", pw / w
    printf "  the law            %.1f %% of a step, %.0f ns per agent-step per rank:", 100 * law / w, law / (n * steps / np) * 1e9
    for (k = 1; k <= np2; k++) { nm = part[k]; sub(/^ThrLaw/, "", nm); printf " %s %.0f", nm, tpart[k] / (n * steps / np) * 1e9 }
    printf "\n  run loop           %.2f s; whole command %.1f s (set-up: geometry, eikonal field, %.2f s initial condition)\n", w, total, init
    printf "  peak memory        %s bytes per agent\n", b }' "$log"
