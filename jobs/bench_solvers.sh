#!/usr/bin/env bash
# Time per step of each -solver on the dense benchmark scene (configs/bench-dense.yaml:
# disks in hexagonal contact settling onto a floor, so every disk is in contact from the
# first step) at N = 10^5, on 1 and 2 ranks, side by side in one run (pbd and penalty
# run 20 x STEPS steps, for the resolution of the clock; the scene barely changes).  pngs and pgs stop
# at -solver_rtol 1e-8 (max 1000 iterations a step); penalty uses gamma = 100 (h gamma =
# 0.1).  Prints seconds per step, single-constraint evaluations per step and inner
# iterations per step, and the ratio of each solver's time per step to pbd's.
#
#   bash jobs/bench_solvers.sh [N_COLUMNS [STEPS]]     (default 316 columns ~ 10^5 disks, 10 steps)
set -euo pipefail
cd "$(dirname "$0")/.."
COLS=${1:-316}
STEPS=${2:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x build/throng ] || bash .ci/setup
log=$(mktemp); trap 'rm -f "$log"' EXIT

echo "bench_solvers: $((COLS * COLS)) disks, dense scene, $STEPS steps, tolerances rtol 1e-8"
printf "%-8s %5s %14s %12s %14s %14s %9s\n" solver ranks "s/step" "vs pbd" "evals/step" "its/step" "overlap"
for np in 1 2; do
  base=""
  for s in pbd pngs penalty pgs; do
    st=$STEPS; case $s in pbd | penalty) st=$((20 * STEPS)) ;; esac # cheap: more steps, for the clock's resolution
    mpirun -n "$np" build/throng -options_file_yaml configs/bench-dense.yaml -n $((COLS * COLS)) -box "0,0,$COLS.5,$((COLS + 1))" \
      -steps "$st" -quiet -output none -solver "$s" -solver_rtol 1e-8 -solver_atol 1e-12 $([ "$s" = penalty ] && echo -penalty_gamma 100) >"$log" 2>&1 ||
      { echo "bench_solvers: $s on $np ranks failed:"; tail -3 "$log"; exit 1; }
    awk -v s="$s" -v np="$np" -v steps="$st" -v base="$base" '
      /^summary: steps/ { for (i = 1; i <= NF; i++) if ($i == "wall") wall = $(i + 1) }
      /^summary: max_overlap/ { ovl = $3 }
      /^summary: solver/ { for (i = 1; i <= NF; i++) { if ($i == "work") ev = $(i + 1); if ($i == "iterations") it = $(i + 1) } }
      END { t = wall / steps; printf "%-8s %5d %14.4e %12s %14.4e %14.2f %9.2e\n", s, np, t, base == "" ? "1" : sprintf("%.2f", t / base), ev / steps, it / steps, ovl }' "$log"
    [ -n "$base" ] || base=$(awk -v steps="$st" '/^summary: steps/ { for (i = 1; i <= NF; i++) if ($i == "wall") print $(i + 1) / steps }' "$log")
  done
done
