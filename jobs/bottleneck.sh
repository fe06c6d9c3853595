#!/usr/bin/env bash
# Bottleneck flow against width: a waiting area of 8 m x 8 m in front of a corridor 3 m
# long whose width W is the parameter; the corridor's far end is the exit.  N agents
# (the crowd defaults: radius 0.15 m, free speeds N(1.34, 0.26) m/s, the time-gap law,
# h = 0.02 s) start in the waiting area; the mean flow
# through the exit, (count - 1) / (last - first exit time), is reported per width, with
# the specific flow (flow / W), as CSV and PNG, together with the flow measured by a line
# sensor across the middle of the corridor (forward crossings, (count - 1) / (last - first)).
#
#   bash jobs/bottleneck.sh [OUTDIR [N [WIDTHS...]]]   (default bottleneck.out, 150 agents,
#                                                      widths 0.8 1.0 1.2 1.6 2.0 2.4 m)
# Every geometry file is kept in OUTDIR: bottleneck-W.wkt.  EXTRA (environment) adds
# options, e.g. EXTRA="-crowd_model projection -dt 0.002" for seed 001's model, whose jam
# needs the small step (jobs/jam_check.sh).  The validation against measured flows is
# jobs/validate_crowd.sh.
# THRONG and MPIEXEC (environment) name the program and launcher (default build/throng, mpirun).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-bottleneck.out}; N=${2:-150}; shift $(( $# > 2 ? 2 : $# ))
WIDTHS=${*:-0.8 1.0 1.2 1.6 2.0 2.4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
THRONG=${THRONG:-build/throng}; MPIEXEC=${MPIEXEC:-mpirun}
[ -x "$THRONG" ] || bash .ci/setup
mkdir -p "$OUT"
echo "width,agents,flow,specific_flow,evacuation_time,sensor_flow" > "$OUT/bottleneck.csv"
for W in $WIDTHS; do
  a=$(awk -v w="$W" 'BEGIN { printf "%.6g", 4 - w / 2 }'); b=$(awk -v w="$W" 'BEGIN { printf "%.6g", 4 + w / 2 }')
  cat > "$OUT/bottleneck-$W.wkt" <<WKT
# waiting area 8 m x 8 m, corridor 3 m long and $W m wide, exit at its east end
walkable POLYGON ((0 0, 8 0, 8 $a, 11 $a, 11 $b, 8 $b, 8 8, 0 8, 0 0))
exit     LINESTRING (11 $a, 11 $b)
sensor   LINESTRING (9.5 $a, 9.5 $b)
WKT
  "$MPIEXEC" -n "$(nproc)" "$THRONG" -geometry "$OUT/bottleneck-$W.wkt" -n "$N" \
    -init jitter -init_phi 0.3 -init_region 0.3,0.3,7.7,7.7 -steps 500000 -tile 2 -eikonal_h 0.05 \
    -output none -quiet ${EXTRA:-} > "$OUT/bottleneck-$W.log" 2>&1
  awk -v w="$W" -v n="$N" '/exit 0:/ { for (i = 1; i <= NF; i++) if ($i == "flow") f = $(i + 1) }
    /sensor 0:/ { for (i = 1; i <= NF; i++) if ($i == "flow") sf = $(i + 1) }
    /evacuation time/ { t = $NF; sub(/s$/, "", t); t = $(NF - 1) }
    END { printf "%s,%d,%s,%.4g,%s,%s\n", w, n, f, f / w, t, sf }' "$OUT/bottleneck-$W.log" >> "$OUT/bottleneck.csv"
done
column -s, -t "$OUT/bottleneck.csv"
/usr/bin/python3 - "$OUT/bottleneck.csv" "$OUT/bottleneck.png" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
w = [float(r["width"]) for r in rows]
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].plot(w, [float(r["flow"]) for r in rows], "o-")
ax[0].set_ylabel("flow [1/s]")
ax[1].plot(w, [float(r["specific_flow"]) for r in rows], "o-")
ax[1].set_ylabel("specific flow [1/(m s)]")
for a in ax:
    a.set_xlabel("bottleneck width [m]")
    a.grid(True, alpha=0.3)
fig.suptitle(f"bottleneck flow, {rows[0]['agents']} agents")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("bottleneck: wrote", sys.argv[2])
PY
