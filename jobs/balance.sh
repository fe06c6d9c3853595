#!/usr/bin/env bash
# Dynamic load balancing on the evacuation: the hall of -scenario evacuation with its
# crowd in the west half (configs/evacuation-west.yaml), run twice on RANKS ranks, with
# balancing off (-balance_threshold 0) and on (the default threshold, 1.2).  For each run
# it prints the wall time, the repartitions and the imbalance (max/mean over the ranks of
# the owned agents, and of the busy time: prediction and sweep without the waits); it
# checks that both runs give bitwise the same result (state digest and exit records) and
# plots the imbalance over time (OUT/balance.png, postproc/balance.py).
#
#   bash jobs/balance.sh [RANKS [STEPS]]   (default 2 ranks, the whole evacuation)
# OUT (directory, default balance.out), THRONG and MPIEXEC (default build/throng,
# mpirun) come from the environment; extra throng options from EXTRA.
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-2}; STEPS=${2:-}
OUT=${OUT:-balance.out}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
THRONG=${THRONG:-build/throng}; MPIEXEC=${MPIEXEC:-mpirun}
[ -x "$THRONG" ] || bash .ci/setup
mkdir -p "$OUT"
for mode in off on; do
  thr=0; [ "$mode" = on ] && thr=1.2
  # shellcheck disable=SC2086
  "$MPIEXEC" -n "$NP" "$THRONG" -options_file_yaml configs/evacuation-west.yaml -output "$OUT/$mode" \
    -balance_threshold "$thr" -output_every 0 -quiet ${STEPS:+-steps "$STEPS"} ${EXTRA:-} > "$OUT/$mode.log" 2>&1 || { tail -5 "$OUT/$mode.log"; exit 1; }
  awk -v mode="$mode" '/summary: steps/ { for (i = 1; i <= NF; i++) if ($i == "wall") w = $(i + 1); t = $5 }
    /summary: balance:/ { sub(/.*threshold /, ""); b = $0 }
    END { printf "balancing %-3s  t %-8s wall %8.3f s   %s\n", mode, t, w, b }' "$OUT/$mode.log"
done
d_off=$(sed -n 's/^state-digest: //p' "$OUT/off.log"); d_on=$(sed -n 's/^state-digest: //p' "$OUT/on.log")
if [ "$d_off" = "$d_on" ] && cmp -s "$OUT/off.exits.csv" "$OUT/on.exits.csv"; then
  echo "identical: state digest $d_on and every exit record, with and without balancing"
else
  echo "DIFFERENT results with and without balancing: digests $d_off / $d_on" >&2; exit 1
fi
w_off=$(sed -n 's/^summary: steps.* wall \([0-9.]*\) s.*/\1/p' "$OUT/off.log"); w_on=$(sed -n 's/^summary: steps.* wall \([0-9.]*\) s.*/\1/p' "$OUT/on.log")
awk -v a="$w_off" -v b="$w_on" 'BEGIN { printf "run time with balancing / without: %.3f\n", b / a }'
/usr/bin/python3 postproc/balance.py "$OUT/off" "$OUT/on" --labels "fixed blocks" "balanced (threshold 1.2)" --png "$OUT/balance.png" \
  || echo "balance.sh: no plot (postproc/balance.py needs /usr/bin/python3 with matplotlib)"
