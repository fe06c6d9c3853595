#!/usr/bin/env bash
# Routes and exit choice (issue 19, src/crowd/route.c):
#  - RiMEA test 10 (configs/rimea10.yaml): all 23 persons leave, each by the exit its
#    route assigns (rooms 4, 5, 10, 11: the secondary exit; the others: the main exit);
#    without the route lines some of them (rooms 3 and 9) take the nearer secondary exit,
#    so the assignment is what decides;
#  - a waypoint: the agents routed through a corner of a room cross a sensor line in that
#    corner on their way to the exit, and no other agent does;
#  - RiMEA test 11 (configs/geometry/rimea11.wkt, 1000 persons): with nearest-exit routing
#    and with -route_choice quickest most persons leave by the near exit and some by the
#    far one, and the far exit's share rises with quickest; no flapping: with the
#    defaults no agent returns to the exit it left within 30 s, while with -route_gain 0
#    -route_commit 0 -route_reconsider 2 some do;
#  - bitwise identity: a quickest run's digest (positions and route states) at step 3000
#    is the same on 1, 2 and 3 ranks, and after a restart at step 1500 from 2 ranks on 3;
#  - a small district (configs/geometry/make_district.py: 3 x 3 blocks of 20 m, 8 m
#    streets, one square, 8 exits; issue 47): 400 agents choosing among the 8 exits all
#    leave, and the run ends with one digest on 1, 2 and 3 ranks,
#    whose 8 exit fields are marched by the ranks in turn and broadcast (eikonal.c:
#    EikonalSolveMany).
# With a 4th argument `quick` (the sanitized build, tests/sanitize.sh): RiMEA 10, the
# waypoint, and the identity and restart checks on 400 steps (t = 8 s, four
# recomputations) on 1 and 2 ranks; not the full RiMEA 11 evacuations.
#   test_routes.sh path/to/throng path/to/mpiexec path/to/source [quick]
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$3; QUICK=${4:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
cd "$SRC" || exit 1 # the configs name their geometry relative to the repository root
share() { # exits.csv, exit: how many left by it
  awk -F, -v e="$2" 'NR > 1 && $3 == e { n++ } END { print n + 0 }' "$1" 2>/dev/null
}

# RiMEA 10: the assigned exits
check "rimea10 failed" logged "$out/r10.log" timeout 300 "$THRONG" -options_file_yaml configs/rimea10.yaml -output "$out/r10" -quiet
check "rimea10: not every person left" grep -q "summary: crowd: 23 of 23 agents left" "$out/r10.log"
check "rimea10: not every person has a route" grep -q "summary: crowd: routes: 23 agents on assigned routes" "$out/r10.log"
# ids by room: 0-1 room 0, 2-3 room 1, 4 room 2, 5-6 room 3, 7-8 room 4, 9-10 room 5,
# then two per room 6-11 (configs/rimea10-agents.txt); secondary: rooms 4, 5, 10, 11
assigned() { awk -v i="$1" 'BEGIN { print ((i >= 7 && i <= 10) || i >= 19) ? 1 : 0 }'; }
wrong=0
while IFS=, read -r id t e _; do [ "$id" = id ] && continue; [ "$e" = "$(assigned "$id")" ] || wrong=$((wrong + 1)); done <"$out/r10.exits.csv"
echo "RiMEA test 10: $(share "$out/r10.exits.csv" 0) by the main exit, $(share "$out/r10.exits.csv" 1) by the secondary; $wrong not by the assigned exit"
check "rimea10: $wrong persons left by another exit than their assigned one" same "$wrong" 0
check "rimea10: not 23 exit records" same "$(($(share "$out/r10.exits.csv" 0) + $(share "$out/r10.exits.csv" 1)))" 23
grep -v '^route' configs/geometry/rimea10.wkt >"$out/r10-free.wkt"
check "rimea10 without routes failed" logged "$out/r10f.log" timeout 300 "$THRONG" -options_file_yaml configs/rimea10.yaml -geometry "$out/r10-free.wkt" -output "$out/r10f" -quiet
free=0
while IFS=, read -r id t e _; do [ "$id" = id ] && continue; [ "$e" = "$(assigned "$id")" ] || free=$((free + 1)); done <"$out/r10f.exits.csv"
echo "RiMEA test 10 without the route lines: $free persons leave by another exit than the assigned one"
check "rimea10 without routes: only $free persons leave by another exit (the test would not discriminate)" holds 'free >= 2' free="$free"

# a waypoint in the north-west corner for agents 0-4; a sensor across that corner
cat >"$out/way.wkt" <<'EOF'
walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))
exit door LINESTRING (10 4, 10 6)
sensor LINESTRING (0 8, 2.5 8)
waypoint corner POINT (1 9)
route corner,door ids 0-4
EOF
check "waypoint run failed" logged "$out/way.log" timeout 300 "$THRONG" -geometry "$out/way.wkt" -n 40 -init jitter -init_phi 0.15 -init_region 3,0.5,9.5,7 -polydispersity 0 \
  -dt 0.02 -steps 20000 -output "$out/way" -output_every 0 -density_h 0 -quiet
check "waypoint: not every agent left" grep -q "summary: crowd: 40 of 40 agents left" "$out/way.log"
ids=$(awk -F, 'NR > 1 { print $1 }' "$out/way.sensors.csv" 2>/dev/null | sort -n | uniq | tr '\n' ' ')
echo "waypoint: the agents that crossed the corner's sensor: ${ids:-none}"
check "waypoint: the corner was crossed by '${ids:-none}', not by agents 0-4 alone" same "$ids" "0 1 2 3 4 "

# RiMEA 11: nearest exit and quickest
/usr/bin/python3 postproc/validate_crowd.py init "$out/r11.txt" 1000 2 2 15 18 11
R11="-geometry configs/geometry/rimea11.wkt -n 1000 -init file -init_file $out/r11.txt -polydispersity 0 -dt 0.02 -steps 100000 -eikonal_h 0.05 -output_every 0 -density_h 0 -quiet"
if [ -z "$QUICK" ]; then
  for c in nearest quickest flap; do
    extra="-route_choice $c"
    [ $c = flap ] && extra="-route_choice quickest -route_gain 0 -route_commit 0 -route_reconsider 2"
    check "rimea11 ($c) failed" logged "$out/r11-$c.log" timeout 600 "$MPIEXEC" -n 2 "$THRONG" $R11 $extra -output "$out/r11-$c"
    check "rimea11 ($c): not every person left" grep -q "summary: crowd: 1000 of 1000 agents left" "$out/r11-$c.log"
  done
  nn=$(share "$out/r11-nearest.exits.csv" 0); nf=$(share "$out/r11-nearest.exits.csv" 1)
  qn=$(share "$out/r11-quickest.exits.csv" 0); qf=$(share "$out/r11-quickest.exits.csv" 1)
  echo "RiMEA test 11: near/far exit: nearest $nn/$nf ($(grep -o 'evacuation time [0-9.]*' "$out/r11-nearest.log")), quickest $qn/$qf ($(grep -o 'evacuation time [0-9.]*' "$out/r11-quickest.log"))"
  grep "exit choice" "$out/r11-quickest.log" "$out/r11-flap.log"
  check "rimea11 nearest: near $nn, far $nf (most by the near exit, some by the far one)" holds 'nn > nf && nf > 0' nn="$nn" nf="$nf"
  check "rimea11 quickest: near $qn, far $qf (the far share must rise above nearest's $nf, the near exit keep most)" \
    holds 'qn > qf && qf > nf' qn="$qn" qf="$qf" nf="$nf"
  quick() { sed -n 's/.* \([0-9]*\) of them within 30 s.*/\1/p' "$1"; }
  qq=$(quick "$out/r11-quickest.log"); qf=$(quick "$out/r11-flap.log")
  echo "RiMEA test 11: returns to the exit left last within 30 s: ${qq:-?} with the defaults, ${qf:-?} without hysteresis or commitment"
  check "rimea11: flapping: ${qq:-?} quick returns with the defaults (want 0: -route_commit 30), ${qf:-?} without (want some)" \
    holds 'qq == 0 && qf > 0' qq="$qq" qf="$qf"

fi
# bitwise identity and exact restart, quickest choice
S=3000; NPS="1 2 3"; [ -n "$QUICK" ] && S=400 && NPS="1 2"
for np in $NPS; do
  check "rimea11 quickest ($S steps) on $np ranks failed" logged "$out/id$np.log" timeout 600 "$MPIEXEC" -n $np "$THRONG" $R11 -route_choice quickest -steps $S -output none
done
check "rimea11 quickest ($S steps): no recomputation of the choice" grep -q "exit choice: [1-9]" "$out/id1.log"
for np in ${NPS#1 }; do
  d1=$(grep state-digest "$out/id1.log"); dn=$(grep state-digest "$out/id$np.log")
  check "rimea11 quickest: digest on $np ranks '$dn' differs from 1 rank '$d1'" same "$d1" "$dn"
done
check "rimea11 quickest, first half on 2 ranks, failed" logged "$out/rs1.log" timeout 600 "$MPIEXEC" -n 2 "$THRONG" $R11 -route_choice quickest -steps $((S / 2)) -output "$out/rs"
R2=3; [ -n "$QUICK" ] && R2=1
check "rimea11 quickest, restarted on $R2 ranks, failed" logged "$out/rs2.log" timeout 600 "$MPIEXEC" -n $R2 "$THRONG" $R11 -route_choice quickest -steps $S -output "$out/rs" -restart "$out/rs.chk.h5"
check "rimea11 quickest: the run restarted at step $((S / 2)) ends with another digest than the straight run" \
  same "$(grep state-digest "$out/id1.log")" "$(grep state-digest "$out/rs2.log")"
timeout 600 "$MPIEXEC" -n 2 "$THRONG" $R11 -route_choice nearest -steps $S -output none -restart "$out/rs.chk.h5" >"$out/rs3.log" 2>&1
rs3=$?
check "rimea11: a quickest checkpoint restarted with -route_choice nearest was not refused (exit $rs3)" \
  holds 'rc != 0 && rc != 124' rc="$rs3"
check "rimea11: the refusal does not name route_choice as the option that differs" \
  grep -q -- "-route_choice: file quickest, now nearest" "$out/rs3.log"

# a small district: its 8 exit fields marched by the ranks in turn
python3 configs/geometry/make_district.py --blocks 3 --block 20 --street 8 --exits-per-side 2 --exit-width 3 \
  --squares "1,1" >"$out/district.wkt"
D="-geometry $out/district.wkt -n 400 -radius 0.2 -init jitter -init_phi 0.2 -init_region 0,0,92,92 -dt 0.05
   -eikonal_h 0.2 -route_choice quickest -steps 4000 -tile 4 -output none -checkpoint none"
DNP="1 2 3"; [ -n "$QUICK" ] && DNP="1 2"
for np in $DNP; do
  # shellcheck disable=SC2086 # the option string is a word list
  check "the district on $np ranks failed" logged "$out/dist$np.log" timeout 600 "$MPIEXEC" -n $np "$THRONG" $D
done
check "the district: not every agent left" grep -q "summary: crowd: 400 of 400 agents left" "$out/dist1.log"
grep "summary: crowd: [0-9]* of\|summary: crowd: exit [0-9]:" "$out/dist1.log"
for np in ${DNP#1 }; do
  check "the district: $np ranks end with another digest than 1" same "$(grep state-digest "$out/dist$np.log")" \
    "$(grep state-digest "$out/dist1.log")"
done

finish
