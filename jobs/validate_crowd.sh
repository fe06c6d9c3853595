#!/usr/bin/env bash
# Crowd validation against measured data and the RiMEA tests (issue 16): bottleneck flow
# against width (four laboratory series), the fundamental diagram (Weidmann 1993, RiMEA test
# 4), single-file headways (Seyfried et al. 2005) and RiMEA tests 1-3, 5-7, 9, 12, 13 and
# 15 (test 4 is the fundamental diagram; 10 and 11 are tests/test_routes.sh's), all with
# the default crowd model.  Writes OUTDIR/validation.md (tables: the simulated
# values next to the data or the criterion) and, in a full run, copies it with its PNG
# plots to docs/validation.md and docs/img/.  Exits 1 if a criterion is missed.
#
#   bash jobs/validate_crowd.sh [--quick] [OUTDIR]     (default validation.out)
#
# --quick (what ctest runs): 2 seeds and the widths 1.0, 1.2, 1.6, 2.4 m instead of 5 seeds
# and six widths; no plots, docs/ untouched.  The full run takes about a minute on 2
# cores.  THRONG names the program (default build/throng); EXTRA (environment) adds
# options to every run (e.g. EXTRA="-csm_time_gap 1" to study a parameter; docs/ is then
# left alone); runs go
# NPROC at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=full
if [ "${1:-}" = "--quick" ]; then MODE=quick; shift; fi
OUT=${1:-validation.out}
THRONG=$(readlink -f "${THRONG:-build/throng}")
[ -x "$THRONG" ] || bash .ci/setup
PY=/usr/bin/python3
V=postproc/validate_crowd.py
mkdir -p "$OUT"
rm -f "$OUT"/*.exits.csv "$OUT"/*.h5 "$OUT"/*.log
# the quick widths include 1.2 m, where the full run's J/w margin is smallest
if [ $MODE = full ]; then WIDTHS="0.8 1.0 1.2 1.6 2.0 2.4"; SEEDS="1 2 3 4 5"; else WIDTHS="1.0 1.2 1.6 2.4"; SEEDS="1 2"; fi
COMMON="-polydispersity 0 -dt 0.02 -steps 100000 -eikonal_h 0.05 -output_every 0 -density_h 0 -quiet ${EXTRA:-}"
jobs=$OUT/jobs.txt; : > "$jobs"
failed_runs=$OUT/failed.txt; : > "$failed_runs"
# a run that fails is recorded, and fails the validation (its files would be stale or partial)
run() { echo "$THRONG $* > /dev/null 2>&1 || echo \"$*\" >> \"$failed_runs\"" >> "$jobs"; }

# bottleneck: room 10 m x 8 m, bottleneck 2 m long and w wide, exit at its end
echo "width,seed,exits" > "$OUT/bottleneck.csv"
for W in $WIDTHS; do
  a=$(awk -v w="$W" 'BEGIN { printf "%.6g", 4 - w / 2 }'); b=$(awk -v w="$W" 'BEGIN { printf "%.6g", 4 + w / 2 }')
  printf 'walkable POLYGON ((0 0, 10 0, 10 %s, 12 %s, 12 %s, 10 %s, 10 8, 0 8, 0 0))\nexit LINESTRING (12 %s, 12 %s)\n' "$a" "$a" "$b" "$b" "$a" "$b" > "$OUT/bottleneck-$W.wkt"
  for s in $SEEDS; do
    [ -f "$OUT/bn-init-$s.txt" ] || $PY $V init "$OUT/bn-init-$s.txt" 200 0.3 0.3 9.7 7.7 "$s"
    run -geometry "$OUT/bottleneck-$W.wkt" -n 200 -init file -init_file "$OUT/bn-init-$s.txt" -seed "$s" $COMMON -output "$OUT/bn-$W-$s"
    echo "$W,$s,bn-$W-$s.exits.csv" >> "$OUT/bottleneck.csv"
  done
done

# fundamental diagram: corridor 80 m x 4 m, agents in x in [0, 60] at the nominal density
printf 'walkable POLYGON ((0 0, 80 0, 80 4, 0 4, 0 0))\nexit LINESTRING (80 0, 80 4)\n' > "$OUT/corridor.wkt"
echo "density,trajectory" > "$OUT/fd.csv"
for rho in 0.5 1 2 3 4; do
  n=$(awk -v r="$rho" 'BEGIN { printf "%d", r * 60 * 4 }')
  $PY $V init "$OUT/fd-$rho.txt" "$n" 0.2 0.2 60 3.8 7
  run -geometry "$OUT/corridor.wkt" -n "$n" -init file -init_file "$OUT/fd-$rho.txt" $COMMON -steps 1000 -output none -trajectory "$OUT/fd-$rho.traj.h5"
  echo "$rho,fd-$rho.traj.h5" >> "$OUT/fd.csv"
done

# single file: corridor 100 m x 0.5 m, agents evenly spaced in x in [0, 80]
printf 'walkable POLYGON ((0 0, 100 0, 100 0.5, 0 0.5, 0 0))\nexit LINESTRING (100 0, 100 0.5)\n' > "$OUT/single.wkt"
echo "density,trajectory" > "$OUT/sf.csv"
for rho in 0.5 1 1.5 2 2.5; do
  n=$(awk -v r="$rho" 'BEGIN { printf "%d", r * 80 }')
  $PY $V line "$OUT/sf-$rho.txt" "$n" 0 80 0.25
  run -geometry "$OUT/single.wkt" -n "$n" -init file -init_file "$OUT/sf-$rho.txt" $COMMON -steps 1000 -output none -trajectory "$OUT/sf-$rho.traj.h5"
  echo "$rho,sf-$rho.traj.h5" >> "$OUT/sf.csv"
done

# RiMEA 1: configs/rimea1.yaml (one person at 1.33 m/s along a 40 m corridor)
run -options_file_yaml configs/rimea1.yaml -output "$OUT/rimea1" -output_every 0 -quiet
# RiMEA 6: 20 persons in the first 6 m of a 2 m corridor that turns left after 12 m
printf 'walkable POLYGON ((0 0, 12 0, 12 12, 10 12, 10 2, 0 2, 0 0))\nexit LINESTRING (10 12, 12 12)\n' > "$OUT/rimea6.wkt"
$PY $V init "$OUT/rimea6.txt" 20 0.3 0.3 6 1.7 6
run -geometry "$OUT/rimea6.wkt" -n 20 -init file -init_file "$OUT/rimea6.txt" $COMMON -output "$OUT/rimea6" -trajectory "$OUT/rimea6.traj.h5"
# RiMEA 9: 1000 persons in a 30 m x 20 m room; two 1 m doors in each long wall, then the
# two of the south wall closed
printf 'walkable POLYGON ((0 0, 30 0, 30 20, 0 20, 0 0))\nexit LINESTRING (4 20, 5 20)\nexit LINESTRING (25 20, 26 20)\nexit LINESTRING (4 0, 5 0)\nexit LINESTRING (25 0, 26 0)\n' > "$OUT/rimea9-4.wkt"
printf 'walkable POLYGON ((0 0, 30 0, 30 20, 0 20, 0 0))\nexit LINESTRING (4 20, 5 20)\nexit LINESTRING (25 20, 26 20)\n' > "$OUT/rimea9-2.wkt"
$PY $V init "$OUT/rimea9.txt" 1000 0.3 0.3 29.7 19.7 9
for k in 4 2; do
  run -geometry "$OUT/rimea9-$k.wkt" -n 1000 -init file -init_file "$OUT/rimea9.txt" $COMMON -output "$OUT/rimea9-$k"
done
# RiMEA 12: 150 persons in room 1 (10 m x 10 m), a corridor 5 m long and 1 m wide, room 2
# (10 m x 10 m), its exit 1 m wide opposite the corridor
printf 'walkable POLYGON ((0 0, 10 0, 10 4.5, 15 4.5, 15 0, 25 0, 25 4.5, 25 5.5, 25 10, 15 10, 15 5.5, 10 5.5, 10 10, 0 10, 0 0))\nexit LINESTRING (25 4.5, 25 5.5)\n' > "$OUT/rimea12.wkt"
$PY $V init "$OUT/rimea12.txt" 150 0.3 0.3 9.7 9.7 12
run -geometry "$OUT/rimea12.wkt" -n 150 -init file -init_file "$OUT/rimea12.txt" $COMMON -output "$OUT/rimea12" -trajectory "$OUT/rimea12.traj.h5"

# RiMEA 2 and 3: one person up and down a stair 10 m along its slope (configs/rimea2.yaml, rimea3.yaml)
for k in 2 3; do run -options_file_yaml "configs/rimea$k.yaml" -output "$OUT/rimea$k" -output_every 0 -quiet; done
# RiMEA 5: ten persons with pre-movement times 10, 20, ..., 100 s; a frame every step
run -options_file_yaml configs/rimea5.yaml -output "$OUT/rimea5" -output_every 0 -density_h 0 -quiet -trajectory "$OUT/rimea5.traj.h5" -trajectory_fps 50
# RiMEA 7: four populations of 50 with RiMEA's speeds by age
run -options_file_yaml configs/rimea7.yaml -output "$OUT/rimea7" -output_every 0 -density_h 0 -quiet -trajectory "$OUT/rimea7.traj.h5"
# RiMEA 13: room, corridor, stair up to the exit; 10 seeds (quick: 2)
if [ $MODE = full ]; then SEEDS13="1 2 3 4 5 6 7 8 9 10"; else SEEDS13="1 2"; fi
for s in $SEEDS13; do
  run -options_file_yaml configs/rimea13.yaml -seed "$s" -output "$OUT/rimea13-$s" -output_every 0 -quiet -trajectory "$OUT/rimea13-$s.traj.h5"
done
# RiMEA 10: exits assigned by routes (configs/rimea10.yaml); RiMEA 11: a near and a far exit
run -options_file_yaml configs/rimea10.yaml -output "$OUT/rimea10" -output_every 0 -quiet
$PY $V init "$OUT/rimea11.txt" 1000 2 2 15 18 11
run -geometry configs/geometry/rimea11.wkt -n 1000 -init file -init_file "$OUT/rimea11.txt" $COMMON -output "$OUT/rimea11"
# RiMEA 15: 500 persons, corridors long, with a corner, short
for g in long corner short; do
  run -options_file_yaml configs/rimea15.yaml -geometry "configs/geometry/rimea15-$g.wkt" -output "$OUT/rimea15-$g" -output_every 0 -density_h 0 -quiet
done

echo "validate_crowd: $(wc -l < "$jobs") runs, $(nproc) at a time ($MODE)"
xargs -P "$(nproc)" -I{} sh -c "{}" < "$jobs"
rc=0
if [ -s "$failed_runs" ]; then
  echo "validate_crowd: $(wc -l < "$failed_runs") runs failed (rerun one by hand to see why):" >&2
  sed 's/^/  throng /' "$failed_runs" >&2
  exit 1
fi
$PY $V report "$OUT" $MODE || rc=$?
if [ $MODE = full ] && [ -z "${EXTRA:-}" ]; then # a study with EXTRA leaves docs/ alone
  mkdir -p docs/img
  cp "$OUT"/validation-*.png docs/img/
  cp "$OUT/validation.md" docs/validation.md
  echo "validate_crowd: wrote docs/validation.md and docs/img/validation-*.png"
fi
exit $rc
