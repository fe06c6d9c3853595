#!/usr/bin/env bash
# Evacuation studies (issue 27): populations, pre-movement, slow zones and stairs, sources.
#  1. Populations: configs/room.yaml's crowd given as one population (its region, count, placed by fill,
#     and -speed's distribution) runs to the same digest as the plain run; a population's
#     route sends it to its exit; per-population free speeds lie in their distributions.
#  2. Pre-movement: with a lognormal pre-movement (median 60 s, clipped to [10, 600] s)
#     nobody starts before 10 s, the median drawn is near 60 s, the exit records' start
#     column matches, the curve's walking count never exceeds the count inside, and the
#     evacuation takes longer; the same on 1 and 3 ranks; a restart in mid-pre-movement
#     (t = 12 s, 2 ranks, on 3) gives the straight run's records and digest; a restart
#     with another -premove is refused as other equations.
#  3. Zones and stairs: a slow zone over a corridor (factor 0.5) doubles one walker's
#     time across it; the travel-time field knows stairs: agents go round a slow stair by
#     a longer level lane, and take the stair's lane when it is level; RiMEA 13's run is
#     the same on 1 and 2 ranks.
#  4. Sources: arrivals (a Poisson region source and a line source, 0 agents at the
#     start) are the same on 1 and 3 ranks and after a restart in mid-arrival (2 ranks
#     on 3); a source faster than its spots can take queues (entries later than their
#     times) without an overlap beyond 5 % of a diameter; a Poisson source's mean rate is
#     within 10 % of its rate over 400 arrivals; a table source lets each in at the first
#     step at or after its time.
#  5. The agents' table (PREFIX.agents.csv): a row per agent, its exit times those of
#     exits.csv; a lognormal pre-movement truncated to [10, 120] s has no point mass at a
#     bound and passes a Kolmogorov-Smirnov test against the truncated distribution; a
#     named exit is named in the summary and in exits.csv; a run ended at -steps with
#     agents in a door's lane says as many departures as agents that left (issue 44).
#   test_evacuation.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
cd "$SRC" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
col() { # csv, column name: its values, one a line
  awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$1"
}

# 1. populations
# (a copy elsewhere names the scene by its full path: a config's paths are its folder's)
grep -v '^n:\|^init_region' configs/room.yaml | sed "s|^geometry: |geometry: $PWD/configs/|" >"$out/room-pop.yaml"
printf 'populations: all\npop:\n  all: {region: [0.3, 0.3, 5.5, 7.7], count: 100, place: fill}\n' >>"$out/room-pop.yaml"
check "room failed" logged "$out/plain.log" "$THRONG" -options_file_yaml configs/room.yaml -output none -quiet
check "room as one population failed" logged "$out/pop.log" "$THRONG" -options_file_yaml "$out/room-pop.yaml" -output none -quiet
check "room as one population: digest $(digest "$out/pop.log"), plain $(digest "$out/plain.log")" \
  same "$(digest "$out/pop.log")" "$(digest "$out/plain.log")"
R11=(-geometry configs/geometry/rimea11.wkt -populations near,far -pop_near_region 2,2,8,18 -pop_near_count 20
  -pop_far_region 9,2,15,18 -pop_far_count 20 -pop_far_route far -pop_far_speed uniform:0.8,1.0 -dt 0.02 -steps 20000
  -output_every 0 -density_h 0 -quiet)
check "two populations, one routed, failed" logged "$out/r11.log" "$THRONG" "${R11[@]}" -output "$out/r11"
far=$(awk -F, 'NR > 1 && $1 >= 20 && $3 != 1 { n++ } END { print n + 0 }' "$out/r11.exits.csv")
check "-pop_far_route far: $far of population far left by another exit" same "$far" 0
check "population far: free speeds outside uniform:0.8,1.0" \
  grep -qE "population far: 20 agents \(ids 20 to 39\), free speed drawn mean 0\.[89][0-9]*, min 0\.[89][0-9]*, max (0\.[89][0-9]*|1) m/s" "$out/r11.log"

# a population spreads over its region (RiMEA 9's room: 1000 of its ~4700 sites), the
# same on 1 and 3 ranks, and another seed places it anew
for k in 1 3; do
  check "spread on $k ranks failed" logged "$out/sp$k.log" "$MPIEXEC" -n $k "$THRONG" -options_file_yaml configs/rimea9.yaml -steps 0 -output "$out/sp$k" -checkpoint none
done
check "spread: the digest on 3 ranks differs from 1 rank's" same "$(digest "$out/sp3.log")" "$(digest "$out/sp1.log")"
check "spread with seed 2 failed" logged "$out/sp2.log" "$THRONG" -options_file_yaml configs/rimea9.yaml -steps 0 -seed 2 -output "$out/sp2" -checkpoint none
spread=$(/usr/bin/python3 - "$out/sp1.h5" "$out/sp2.h5" <<'EOF2'
import sys, h5py, numpy as np
P = [h5py.File(f, "r")["particles/disks/position/value"][0] for f in sys.argv[1:]]
# the share in each of 6 x 4 cells of the 30 m x 20 m room (each 1/24 = 4.2 %), and the
# mean shift between the seeds' placements of the same ids
h = np.histogram2d(P[0][:, 0], P[0][:, 1], bins=[6, 4], range=[[0, 30], [0, 20]])[0] / len(P[0])
print(f"{h.min():.4f} {h.max():.4f} {np.mean(np.hypot(*(P[0] - P[1]).T)):.3f}")
EOF2
)
read -r smin smax shift <<<"$spread"
echo "a population of 1000 in a 30 m x 20 m room: share per cell of 1/24 (4.2 %) from ${smin:-?} to ${smax:-?}; mean displacement between seeds ${shift:-?} m"
check "the population is not spread over its room (cells hold ${smin:-?} to ${smax:-?} of it, not 2.5 % to 6 %)" holds 'a >= 0.025 && b <= 0.06' a="$smin" b="$smax"
check "another seed did not place the population anew (mean shift ${shift:-?} m)" holds 's > 3' s="$shift"

# 2. pre-movement
P=(-options_file_yaml configs/room.yaml -quiet -premove lognormal:60,0.5,10,600)
check "room with pre-movement failed" logged "$out/pre1.log" "$THRONG" "${P[@]}" -output "$out/pre1"
check "room with pre-movement on 3 ranks failed" logged "$out/pre3.log" "$MPIEXEC" -n 3 "$THRONG" "${P[@]}" -output "$out/pre3"
check "pre-movement: 3 ranks' digest differs from 1 rank's" same "$(digest "$out/pre3.log")" "$(digest "$out/pre1.log")"
first=$(col "$out/pre1.exits.csv" start | sort -g | head -1)
check "pre-movement: an agent started at ${first:-?} s, before the clip at 10 s" holds 'f >= 10' f="$first"
med=$(sed -n 's/.*pre-movement: 100 agents, drawn mean [0-9.]* s, median \([0-9.]*\) s.*/\1/p' "$out/pre1.log")
check "pre-movement: median drawn ${med:-?} s, asked 60 s" holds 'm >= 50 && m <= 72' m="$med"
check "pre-movement: the curve walks more agents than are inside" \
  awk -F, 'NR > 1 && $3 > $2 { bad = 1 } END { exit bad }' "$out/pre1.evacuation.csv"
t0=$(sed -n 's/.*evacuation time \([0-9.]*\) s.*/\1/p' "$out/plain.log"); t1=$(sed -n 's/.*evacuation time \([0-9.]*\) s.*/\1/p' "$out/pre1.log")
echo "room: evacuation time $t0 s without pre-movement, $t1 s with lognormal:60,0.5,10,600"
check "pre-movement: evacuation $t1 s, not longer than $t0 s + 10 s" holds 'b > a + 10' a="$t0" b="$t1"
check "pre-movement restart (first part, 2 ranks) failed" logged "$out/pr1.log" "$MPIEXEC" -n 2 "$THRONG" "${P[@]}" -output "$out/pr" -steps 600
check "pre-movement restart (second part, 3 ranks) failed" logged "$out/pr2.log" "$MPIEXEC" -n 3 "$THRONG" "${P[@]}" -output "$out/pr" -restart "$out/pr.chk.h5"
for f in exits evacuation; do
  check "pre-movement restarted at t = 12 s: $f.csv differs from the straight run" cmp -s "$out/pre1.$f.csv" "$out/pr.$f.csv"
done
check "pre-movement restarted: digest $(digest "$out/pr2.log"), straight $(digest "$out/pre1.log")" same "$(digest "$out/pr2.log")" "$(digest "$out/pre1.log")"
"$THRONG" -options_file_yaml configs/room.yaml -quiet -premove lognormal:61,0.5,10,600 -output "$out/prx" -restart "$out/pr.chk.h5" >"$out/prx.log" 2>&1
check "a restart with another -premove was not refused as other equations" grep -q "written for other equations" "$out/prx.log"

# 3. zones and stairs
printf 'walkable POLYGON ((0 0, 30 0, 30 2, 0 2, 0 0))\nexit LINESTRING (30 0, 30 2)\nsensor LINESTRING (10 0, 10 2)\nsensor LINESTRING (20 0, 20 2)\n' >"$out/lane.wkt"
cp "$out/lane.wkt" "$out/lane-slow.wkt"
echo 'zone 0.5 POLYGON ((10 0, 20 0, 20 2, 10 2, 10 0))' >>"$out/lane-slow.wkt"
for k in lane lane-slow; do
  check "$k failed" logged "$out/$k.log" "$THRONG" -geometry "$out/$k.wkt" -populations w -pop_w_region 0.5,0.5,1.5,1.5 -pop_w_count 1 \
    -pop_w_speed 1.2 -dt 0.01 -steps 10000 -output "$out/$k" -quiet
done
across() { awk -F, 'NR > 1 { t[$3] = $2 } END { printf "%.3f", t[1] - t[0] }' "$1"; }
a=$(across "$out/lane.sensors.csv"); b=$(across "$out/lane-slow.sensors.csv")
echo "10 m at 1.2 m/s: ${a} s; in a zone of factor 0.5: ${b} s"
check "slow zone: ${b} s across it, not twice the ${a} s without (within 1 %)" holds 'b > 1.98 * a && b < 2.02 * a' a="$a" b="$b"
# two lanes round a block: the south one is shorter from the start, but holds a stair
cat >"$out/lanes.wkt" <<'EOF'
walkable POLYGON ((0 0, 24 0, 24 8, 0 8, 0 0), (5 2, 19 2, 19 6, 5 6, 5 2))
exit LINESTRING (24 0, 24 2)
sensor LINESTRING (12 0, 12 2)
sensor LINESTRING (12 6, 12 8)
EOF
cp "$out/lanes.wkt" "$out/lanes-stair.wkt"
echo 'stair 6 LINESTRING (7 1, 17 1) POLYGON ((7 0, 17 0, 17 2, 7 2, 7 0))' >>"$out/lanes-stair.wkt"
for k in lanes lanes-stair; do
  check "$k failed" logged "$out/$k.log" "$THRONG" -geometry "$out/$k.wkt" -populations w -pop_w_region 0.5,0.5,3,3 -pop_w_count 6 \
    -dt 0.02 -steps 20000 -output "$out/$k" -density_h 0 -quiet
done
lane() { awk -F, -v s="$2" 'NR > 1 && $3 == s && $4 == 1 { n++ } END { print n + 0 }' "$1"; }
echo "6 agents round a block: south lane $(lane "$out/lanes.sensors.csv" 0), north $(lane "$out/lanes.sensors.csv" 1) when level; south $(lane "$out/lanes-stair.sensors.csv" 0), north $(lane "$out/lanes-stair.sensors.csv" 1) with a stair in the south lane"
check "level lanes: the agents did not all take the shorter south lane" same "$(lane "$out/lanes.sensors.csv" 0)" 6
check "a stair in the south lane: the agents did not all go round it by the north lane" same "$(lane "$out/lanes-stair.sensors.csv" 1)" 6
for np in 1 2; do
  check "rimea13 on $np ranks failed" logged "$out/r13-$np.log" "$MPIEXEC" -n $np "$THRONG" -options_file_yaml configs/rimea13.yaml -output none -quiet
done
check "rimea13 (stairs): the digest on 2 ranks differs from 1 rank's" same "$(digest "$out/r13-2.log")" "$(digest "$out/r13-1.log")"

# 4. sources
S=(-options_file_yaml configs/room.yaml -n 0 -sources a,b -src_a_region 0.5,0.5,2,7.5 -src_a_process poisson -src_a_rate 20
  -src_a_count 150 -src_b_line 5,1,5,3 -src_b_rate 1 -src_b_stop 30 -premove uniform:0,5 -quiet)
check "sources on 1 rank failed" logged "$out/s1.log" "$THRONG" "${S[@]}" -output "$out/s1"
check "sources on 3 ranks failed" logged "$out/s3.log" "$MPIEXEC" -n 3 "$THRONG" "${S[@]}" -output "$out/s3"
check "sources: the digest on 3 ranks differs from 1 rank's" same "$(digest "$out/s3.log")" "$(digest "$out/s1.log")"
check "sources: not 181 arrivals and 181 departures" grep -q "occupancy: 0 at the start, 181 arrivals, 181 departures, 0 inside" "$out/s1.log"
check "sources restart (first part, 2 ranks) failed" logged "$out/sr1.log" "$MPIEXEC" -n 2 "$THRONG" "${S[@]}" -output "$out/sr" -steps 300
check "sources restart (second part, 3 ranks) failed" logged "$out/sr2.log" "$MPIEXEC" -n 3 "$THRONG" "${S[@]}" -output "$out/sr" -restart "$out/sr.chk.h5"
for f in exits arrivals evacuation; do
  check "sources restarted at t = 6 s: $f.csv differs from the straight run" cmp -s "$out/s1.$f.csv" "$out/sr.$f.csv"
done
check "sources restarted: digest $(digest "$out/sr2.log"), straight $(digest "$out/s1.log")" same "$(digest "$out/sr2.log")" "$(digest "$out/s1.log")"
"$THRONG" "${S[@]}" -src_a_rate 21 -output "$out/srx" -restart "$out/sr.chk.h5" >"$out/srx.log" 2>&1
check "a restart with another source rate was not refused as other equations" grep -q "written for other equations" "$out/srx.log"
# a queue: 100 arrivals at 20 /s onto a line of 5 spots
check "a queueing source failed" logged "$out/q.log" "$THRONG" -options_file_yaml configs/room.yaml -n 0 -sources q -src_q_line 1,3,1,4.6 \
  -src_q_rate 20 -src_q_count 100 -overlap_every 1 -output "$out/q"
last=$(col "$out/q.arrivals.csv" time | tail -1)
check "a queueing source: the last of 100 arrivals at 20 /s entered at ${last:-?} s, not later than its time 4.95 s" holds 'l > 10' l="$last"
ovl=$(sed -n 's/^summary: sampled_max_overlap [0-9.e+-]* (\([0-9.e+-]*\) of the mean diameter.*/\1/p' "$out/q.log")
check "a queueing source: overlap ${ovl:-?} of a diameter" holds 'o < 0.05' o="$ovl"
check "a Poisson source failed" logged "$out/p.log" "$THRONG" -options_file_yaml configs/room.yaml -n 0 -sources p -src_p_region 0.3,0.3,5.5,7.7 \
  -src_p_process poisson -src_p_rate 5 -src_p_count 400 -output "$out/p"
rate=$(sed -n 's/.*source p: 400 arrivals, .* mean rate \([0-9.]*\) .*/\1/p' "$out/p.log")
check "a Poisson source at 5 /s: mean rate ${rate:-?} /s over 400 arrivals" holds 'r > 4.5 && r < 5.5' r="$rate"
printf '# arrival times\n1.005\n2\n7.3\n' >"$out/times.txt"
check "a table source failed" logged "$out/t.log" "$THRONG" -options_file_yaml configs/room.yaml -n 0 -sources t -src_t_line 1,3,1,5 \
  -src_t_process table -src_t_table "$out/times.txt" -output "$out/t"
check "a table source: entries $(col "$out/t.arrivals.csv" time | tr '\n' ' ')not at 1.02 2 7.3" \
  same "$(col "$out/t.arrivals.csv" time | tr '\n' ' ')" "1.02 2 7.3 "

# 5. issue 44: the agents' table, the truncated lognormal, named exits, and the summary
# of a run that ends at -steps with agents in a door's lane
printf 'walkable POLYGON ((0 0, 30 0, 30 30, 0 30, 0 0))\nexit main LINESTRING (30 13, 30 17)\n' >"$out/big.wkt"
check "a lognormal pre-movement over 2000 agents failed" logged "$out/ln.log" "$THRONG" -geometry "$out/big.wkt" -populations a,b \
  -pop_a_region 1,1,29,15 -pop_a_count 1000 -pop_a_premove lognormal:60,0.5,10,120 -pop_b_region 1,15,29,29 -pop_b_count 1000 \
  -pop_b_premove 5 -steps 3000 -output "$out/ln" -output_every 0 -density_h 0 -quiet
check "the agents' table does not hold 2000 rows" same "$(($(wc -l <"$out/ln.agents.csv") - 1))" 2000
check "the agents' table lacks its columns" same "$(head -1 "$out/ln.agents.csv")" \
  "id,population,source,arrival,radius,free_speed,premove,start,exit_time,exit,exit_name,floor"
check "the agents' table: an exit time differs from exits.csv" cmp -s \
  <(awk -F, 'NR > 1 { print $1 "," $2 }' "$out/ln.exits.csv" | sort) <(awk -F, 'NR > 1 && $9 != "" { print $1 "," $9 }' "$out/ln.agents.csv" | sort)
check "named exit: not in the summary" grep -q "^summary: crowd: exit 0 (main): [0-9]* agents" "$out/ln.log"
check "named exit: not in exits.csv" same "$(awk -F, 'NR == 2 { print $5 }' "$out/ln.exits.csv")" main
check "the drawn lognormal pre-movement is not the truncated distribution (Kolmogorov-Smirnov, 5 %)" /usr/bin/python3 - "$out/ln.agents.csv" <<'EOF2'
import sys, csv, math
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['population'] == 'a']
v = sorted(float(r['premove']) for r in rows)
lo, hi, mu, s = 10, 120, math.log(60), 0.5
Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
F = lambda x: (Phi((math.log(x) - mu) / s) - Phi((math.log(lo) - mu) / s)) / (Phi((math.log(hi) - mu) / s) - Phi((math.log(lo) - mu) / s))
n = len(v)
D = max(max(abs((i + 1) / n - F(x)), abs(i / n - F(x))) for i, x in enumerate(v))
at = sum(1 for x in v if x in (lo, hi))
print(f'lognormal:60,0.5,10,120 over {n} agents: min {v[0]:.2f}, max {v[-1]:.2f}, {at} at a bound, KS D {D:.4f} (5 %: {1.36 / math.sqrt(n):.4f})')
sys.exit(0 if n == 1000 and at == 0 and lo <= v[0] and v[-1] <= hi and D < 1.36 / math.sqrt(n) else 1)
EOF2
# ended at -steps with agents in the door's lane: the summary's two counts agree
check "a source run ended at -steps failed" logged "$out/lim.log" "$THRONG" -options_file_yaml configs/room.yaml -n 0 -sources s \
  -src_s_region 0.5,0.5,5,7.5 -src_s_rate 5 -src_s_count 11 -steps 470 -output "$out/lim"
left=$(sed -n 's/^summary: crowd: \([0-9]*\) of [0-9]* agents left.*/\1/p' "$out/lim.log")
dep=$(sed -n 's/.*occupancy: .* arrivals, \([0-9]*\) departures, .*/\1/p' "$out/lim.log")
echo "ended at step 470: ${left:-?} agents left, ${dep:-?} departures"
check "the summary says ${left:-?} left and ${dep:-?} departures" same "$left" "$dep"
check "the run did not end with agents in a door's lane (the test needs some)" \
  holds 'n > 0' n="$(sed -n 's/^summary: steps [0-9]*  t [0-9.]*  N \([0-9]*\) .*/\1/p' "$out/lim.log")"
finish
