#!/usr/bin/env bash
# Floors and links (issue 32, src/crowd/floors.c), on the reduced two-storey building
# configs/floors2.yaml (50 agents: 40 upstairs, 10 on the ground floor, one exit):
#  - every agent leaves by the one exit, the 40 from upstairs through both links, each
#    once and downwards only (no agent pushed back through a link it came through);
#  - bitwise identity: the same digest on 1, 2 and 3 ranks;
#  - an exact restart across rank counts: 2 ranks to t = 20 s (agents on every floor and
#    on the flight), then 3 ranks to the end, gives the straight run's digest;
#  - no overlap: the largest overlap of the run stays at round-off;
#  - PREFIX.floors.csv starts at 10, 40, 0 and ends at 0, 0, 0;
#  - the per-floor trajectory files (PedPy's 2-D layout): their rows add up to the whole
#    file's, and every row lies in its floor's wkt_geometry;
#  - the XDMF stacks the floors (X_Y_Z geometry with z = level x -storey_height);
#  - routes and exit choice across floors: 5 agents from upstairs routed through a
#    waypoint in a corner of the ground floor pass it, and no one else does;
#    with a second exit upstairs and -route_choice quickest, everyone leaves, by both
#    exits, with the same digest on 1 and 2 ranks;
#  - issue 44: no arrival at the flight's head steps back up over its line; the config
#    run from another folder finds its scene (paths of a config are its folder's); a
#    source whose region spans the ground floor and the flight counts each arrival on
#    its own floor (no negative occupancy); a crowd locked head-on on the flight (one
#    exit per floor, routed across) stops with one error that says where it is stuck,
#    after writing its summary, tables and checkpoint, the same on 1 and 2 ranks and
#    after a restart inside the stalled window.
#   test_floors.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$(cd "$3" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
cd "$SRC" || exit 1 # the configs, and the scene files the tests write below
C=(-options_file_yaml configs/floors2.yaml -output_every 250)
digest() { sed -n 's/^state-digest: //p' "$1"; }

for np in 1 2 3; do
  check "floors2 on $np ranks failed" logged "$out/n$np.log" timeout 300 "$MPIEXEC" -n $np "$THRONG" "${C[@]}" -output "$out/n$np" -trajectory "$out/n$np.traj.h5"
done
check "floors2: not every agent left" grep -q "summary: crowd: 50 of 50 agents left" "$out/n1.log"
check "floors2: not 50 agents by exit 0" grep -q "summary: crowd: exit 0: 50 agents" "$out/n1.log"
check "floors2: the 40 from upstairs did not all come down the flight (link head)" grep -q "floors: link head *flight -> upper: 0, back: 40$" "$out/n1.log"
check "floors2: the 40 did not all go down to the ground floor (link foot)" grep -q "floors: link foot *flight -> ground: 40, back: 0$" "$out/n1.log"
check "floors2: not 80 passages" grep -q "floors: 80 passages through links" "$out/n1.log"
ov=$(sed -n 's/^summary: max_overlap \([^ ]*\) .*/\1/p' "$out/n1.log")
echo "floors2: the largest overlap $ov m"
check "floors2: overlap $ov m" holds 'ov != "" && ov + 0 < 1e-9' ov="$ov"
for np in 2 3; do
  check "floors2: digest on $np ranks differs from 1 rank" same "$(digest "$out/n1.log")" "$(digest "$out/n$np.log")"
done
check "floors2: the floors' columns are not ground, upper, flight:stair" same "$(head -1 "$out/n1.floors.csv")" "time,ground,upper,flight:stair"
check "floors2: the floors' occupancy does not start at 10, 40, 0" same "$(sed -n 2p "$out/n1.floors.csv")" "0,10,40,0"
check "floors2: the floors' occupancy does not end at 0, 0, 0" same "$(tail -1 "$out/n1.floors.csv" | cut -d, -f2-)" "0,0,0"
check "floors2: the XDMF does not stack the floors" grep -q 'GeometryType="X_Y_Z"' "$out/n1.xdmf"
check "floors2: the XDMF has no z" grep -q '/particles/disks/z/value' "$out/n1.xdmf"
# ParaView reads the stacked geometry: the first frame holds every agent
if command -v pvbatch >/dev/null && command -v xvfb-run >/dev/null; then
  check "floors2: ParaView does not show the 50 agents of the first frame, stacked" logged "$out/pv.log" \
    timeout 300 xvfb-run -a pvbatch "$SRC/postproc/render.py" "$out/n1.xdmf" --png "$out/n1.png" --oblique --color z --frame 0 --expect-n 50
else
  echo "floors2: no pvbatch or xvfb-run: the ParaView check is skipped"
fi
check "floors2: the per-floor trajectories do not hold the whole run's rows, each in its floor" \
  /usr/bin/python3 - "$out/n2.traj" ground upper flight <<'EOF'
import sys, re, h5py
base, floors = sys.argv[1], sys.argv[2:]
def rings(wkt):  # the rings of a POLYGON or MULTIPOLYGON, as lists of points
    return [[tuple(map(float, p.split())) for p in r.split(',')] for r in re.findall(r'\(([^()]+)\)', wkt)]
def inside(rs, x, y):  # even-odd over every ring, or within 1e-9 of an edge
    c = False
    for r in rs:
        for (x0, y0), (x1, y1) in zip(r, r[1:]):
            dx, dy = x1 - x0, y1 - y0
            t = max(0, min(1, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)))
            if (x - x0 - t * dx) ** 2 + (y - y0 - t * dy) ** 2 < 1e-18: return True
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * dx / dy: c = not c
    return c
whole = h5py.File(base + '.h5')['trajectory'].shape[0]
total = bad = 0
for f in floors:
    h = h5py.File(f'{base}.{f}.h5')
    t, rs = h['trajectory'][:], rings(h.attrs['wkt_geometry'])
    total += len(t)
    bad += sum(not inside(rs, x, y) for x, y in zip(t['x'], t['y']))
print(f'per-floor trajectories: {total} rows of {whole}, {bad} outside their floor')
sys.exit(0 if total == whole and bad == 0 and whole > 0 else 1)
EOF

# a waypoint on the ground floor's far corner for agents 0-4 (upstairs): a sensor in that
# corner counts them, and no one else (without the route line, no one)
for r in "route corner,0 ids 0-4" ""; do
  { cat configs/geometry/floors2.wkt; echo "waypoint corner POINT (11 1)"; echo "$r"; echo "sensor LINESTRING (8 2.5, 12 2.5)"; } >"$out/way${r:+r}.wkt"
  check "floors2 with a waypoint${r:+ and a route} failed" logged "$out/way${r:+r}.log" timeout 300 "$MPIEXEC" -n 2 "$THRONG" "${C[@]}" -geometry "$out/way${r:+r}.wkt" -output "$out/way${r:+r}"
done
check "waypoint downstairs: not everyone left" grep -q "summary: crowd: 50 of 50 agents left" "$out/wayr.log"
check "waypoint downstairs: the corner's crossers are not agents 0-4" same "$(awk -F, 'NR > 1 { print $1 }' "$out/wayr.sensors.csv" | sort -n | tr '\n' ' ')" "0 1 2 3 4 "
check "waypoint downstairs: without the route someone crosses the corner (the test would not discriminate)" \
  grep -q "summary: crowd: sensor 0: 0 crossings forward, 0 back" "$out/way.log"
# a second exit upstairs, and exit choice by expected time
{ cat configs/geometry/floors2.wkt; echo "exit LINESTRING (0 26, 0 27.5)"; } >"$out/two.wkt"
for np in 1 2; do
  check "floors2 with two exits, quickest, on $np ranks failed" logged "$out/two$np.log" timeout 300 "$MPIEXEC" -n $np "$THRONG" "${C[@]}" -geometry "$out/two.wkt" -route_choice quickest -output "$out/two$np"
done
check "two exits: not everyone left" grep -q "summary: crowd: 50 of 50 agents left" "$out/two1.log"
check "two exits: no one left by the ground floor's exit" grep -Eq "summary: crowd: exit 0: [1-9][0-9]* agents" "$out/two1.log"
check "two exits: no one left by the upper floor's exit" grep -Eq "summary: crowd: exit 1: [1-9][0-9]* agents" "$out/two1.log"
check "two exits, quickest: the digest on 2 ranks differs from 1 rank" same "$(digest "$out/two1.log")" "$(digest "$out/two2.log")"

# issue 44: no step back up over the flight's head line (y = 14) after an arrival
check "floors2: an arrival at the flight's head stepped back up over its line" /usr/bin/python3 - "$out/n1.traj.flight.h5" <<'EOF'
import sys, h5py
t = h5py.File(sys.argv[1])['trajectory'][:]
print(f"flight: {len(t)} rows, the highest y {t['y'].max():.4f} (head line at 14)")
sys.exit(0 if len(t) and t['y'].max() <= 14 else 1)
EOF
# the config from another folder: its scene is found beside it
check "floors2 run from another folder failed" logged "$out/away.log" sh -c "cd '$out' && exec '$THRONG' -options_file_yaml '$SRC/configs/floors2.yaml' -output_every 250 -output away"
check "floors2 run from another folder: another digest" same "$(digest "$out/away.log")" "$(digest "$out/n1.log")"
# a source over the ground floor and the flight
check "floors2 with a source over two floors failed" logged "$out/src.log" "$THRONG" "${C[@]}" -output "$out/src" \
  -sources s -src_s_region 8,6,17,10 -src_s_rate 5 -src_s_count 20
check "a source over two floors: not every agent left" grep -q "summary: crowd: 70 of 70 agents left" "$out/src.log"
check "a source over two floors: negative occupancy in floors.csv" awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) if ($i < 0) exit 1 }' "$out/src.floors.csv"
check "a source over two floors: no arrival on the flight" awk -F, 'NR > 1 && $4 > 0 { f = 1 } END { exit !f }' "$out/src.floors.csv"
# head-on on the flight: the ground floor's people routed to the upper exit, the upper
# floor's to the ground exit; locked, it stops with one error that says where
sed -e 's|^exit LINESTRING (0 3, 0 5)|exit down LINESTRING (0 3, 0 5)\nexit up LINESTRING (0 23, 0 25)\nroute up POLYGON ((0 0, 12 0, 12 8, 0 8, 0 0))\nroute down POLYGON ((0 20, 12 20, 12 28, 0 28, 0 20))|' \
  configs/geometry/floors2.wkt >"$out/cf.wkt"
CF=(-geometry "$out/cf.wkt" -populations upper,ground -pop_upper_region 0.5,20.5,11.5,27.5 -pop_upper_count 40
  -pop_ground_region 0.5,0.5,11.5,7.5 -pop_ground_count 40 -radius 0.2 -init_phi 0.3 -steps 30000 -checkpoint_every 5000)
stuck() { # log, exit status: one error, the stall's, naming the flight; the summary was written
  [ "$2" -ne 0 ] && [ "$(grep -c '^throng: error' "$1")" -eq 1 ] && grep -q "^throng: error: the crowd is stuck: for 60" "$1" \
    && grep -q "on flight 'flight' at x" "$1" && grep -q "wait to go through link 'head'" "$1" \
    && grep -q "^summary: crowd: [0-9]* of 80 agents left" "$1"
}
for np in 1 2; do
  timeout 300 "$MPIEXEC" -n $np "$THRONG" "${CF[@]}" -output "$out/cf$np" >"$out/cf$np.log" 2>&1
  rc=$?
  check "counterflow on $np ranks: not stopped as stuck (exit $rc): $(grep -m1 error "$out/cf$np.log")" stuck "$out/cf$np.log" $rc
done
grep -m1 '^throng: error' "$out/cf1.log"
check "counterflow: the error differs on 2 ranks" same "$(grep '^throng: error' "$out/cf1.log")" "$(grep '^throng: error' "$out/cf2.log")"
check "counterflow: no checkpoint at the stop" test -s "$out/cf1.chk.h5"
check "counterflow: no exits table at the stop" test -s "$out/cf1.exits.csv"
# a restart inside the stalled window (from step 5000, t = 100 s) stops at the same step
timeout 300 "$MPIEXEC" -n 2 "$THRONG" "${CF[@]}" -steps 5000 -output "$out/cfr" >"$out/cfr1.log" 2>&1
timeout 300 "$MPIEXEC" -n 1 "$THRONG" "${CF[@]}" -output "$out/cfr" -restart "$out/cfr.chk.h5" >"$out/cfr2.log" 2>&1
rc=$?
check "counterflow restarted at step 5000: not stopped as stuck (exit $rc)" stuck "$out/cfr2.log" $rc
check "counterflow restarted: stopped at another step than the straight run" \
  same "$(grep -o 'stuck, at t = .*' "$out/cfr2.log")" "$(grep -o 'stuck, at t = .*' "$out/cf1.log")"

# restart: 2 ranks to t = 20 s, then 3 ranks to the end
check "floors2, first 1000 steps on 2 ranks, failed" logged "$out/rs1.log" timeout 300 "$MPIEXEC" -n 2 "$THRONG" "${C[@]}" -steps 1000 -output "$out/rs"
check "floors2: at t = 20 s no one is on the flight (the restart would not test a passage in flight)" grep -Eq "floors: stair +flight .* [1-9][0-9]* still on it" "$out/rs1.log"
check "floors2, restarted on 3 ranks, failed" logged "$out/rs2.log" timeout 300 "$MPIEXEC" -n 3 "$THRONG" "${C[@]}" -output "$out/rs" -restart "$out/rs.chk.h5"
check "floors2: the restarted run ends with another digest than the straight run" same "$(digest "$out/n1.log")" "$(digest "$out/rs2.log")"
check "floors2: the restarted run's floors.csv differs" cmp -s "$out/n1.floors.csv" "$out/rs.floors.csv"
finish
