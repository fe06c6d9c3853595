#!/usr/bin/env bash
# Bad input gets one clear message on rank 0 ("throng: error: ..."), a non-zero exit, no
# PETSc traceback and no hang, at 1 and 2 ranks.
#   test_badinput.sh path/to/throng path/to/mpiexec [sample]
# sample: only the cases whose index is the commit count modulo 5 (the sanitized build
# runs this fifth, CI's Release build all of them: every case runs under ASan within five
# commits; tests/CMakeLists.txt).
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}; SRC=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1 # relative output names below land here
printf 'n: [1000\nradius: 0.5\n' > "$dir/malformed.yaml"
printf 'n: 100\nbogus_key: 3\n' > "$dir/unknown.yaml"
printf -- '- just\n- a list\n' > "$dir/list.yaml"
printf '# x y r\n1 1 0.5\n2 2 abc\n' > "$dir/badline.txt"
printf '1 1 0.5\n200 2 0.5\n' > "$dir/outside.txt"
printf '1 1 0.5\n3 3 -0.5\n' > "$dir/negr.txt"
printf '1 1 0.5\nnan 3 0.5\n' > "$dir/nanx.txt"
printf 'n: 100\ngravity: [nan, 0]\n' > "$dir/nan.yaml"
printf 'n: 100\nseed: 99999999999999999999\n' > "$dir/huge.yaml"
# crowd geometries (WKT)
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\n' > "$dir/room.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 0\nexit LINESTRING (10 4, 10 6)\n' > "$dir/unparsable.wkt"
printf 'walkable POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\n' > "$dir/bowtie.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (11 4, 11 6)\n' > "$dir/offexit.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\n' > "$dir/noexit.wkt"
printf 'room POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\n' > "$dir/keyword.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nsensor POINT (5 5)\n' > "$dir/pointsensor.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nsensor LINESTRING (5 5, 5 5)\n' > "$dir/zerosensor.wkt"
printf 'walkable MULTIPOLYGON (((0 0, 4 0, 4 10, 0 10, 0 0)), ((6 0, 10 0, 10 10, 6 10, 6 0)))\nexit LINESTRING (10 4, 10 6)\n' > "$dir/closed.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 NaN)\n' > "$dir/nan.wkt"
# zones and stairs (issue 27)
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nzone 0 POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))\n' > "$dir/zone0.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nzone -0.5 POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))\n' > "$dir/zoneneg.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nstair 3 POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))\n' > "$dir/stairnoaxis.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nstair 3 LINESTRING (2 2, 2 2) POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))\n' > "$dir/stairpoint.wkt"
printf '1\n3\n2\n' > "$dir/times.txt"; printf '1\n2\n3\n' > "$dir/sorted.txt"
# floors and links (issue 32): a ground floor and an upper floor, joined by a link
FL='floor ground 0 POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nfloor upper 1 POLYGON ((0 20, 10 20, 10 30, 0 30, 0 20))\nexit LINESTRING (0 4, 0 6)\n'
printf "${FL}link LINESTRING (4 10, 6 10) LINESTRING (4 20, 7 20)\n" > "$dir/linklen.wkt"
printf "${FL}link LINESTRING (4 10, 6 10) LINESTRING (4 21, 6 21)\n" > "$dir/linkoff.wkt"
printf "${FL}" > "$dir/floornoway.wkt"
printf "${FL}floor ground 2 POLYGON ((20 0, 30 0, 30 10, 20 10, 20 0))\n" > "$dir/floordup.wkt"
printf "${FL}link LINESTRING (4 10, 6 10) LINESTRING (10 4, 10 6)\n" > "$dir/linksame.wkt"
printf "${FL}floor near 1 POLYGON ((10.5 0, 20 0, 20 10, 10.5 10, 10.5 0))\n" > "$dir/floornear.wkt"
printf "${FL}walkable POLYGON ((40 0, 50 0, 50 10, 40 10, 40 0))\n" > "$dir/floorwalk.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\nlink LINESTRING (4 10, 6 10) LINESTRING (4 0, 6 0)\n' > "$dir/linknofloor.wkt"
printf 'floor ground 0 POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nfloor upper 1 POLYGON ((0 20, 10 20, 10 30, 0 30, 0 20), (4 24, 6 24, 6 26, 4 26, 4 24))\nexit LINESTRING (0 4, 0 6)\nlink LINESTRING (4 10, 6 10) LINESTRING (4 24, 6 24)\n' > "$dir/linkwell.wkt"
printf "${FL}link LINESTRING (4 10, 6 10) POINT (4 20)\n" > "$dir/linkpoint.wkt"

# Each case runs in the background, PAR at a time (default 6: the runs are short and
# mostly wait on MPI's start-up and tear-down, ~2.4 s of which ~0.2 s of CPU); its
# verdict goes to a file, counted at the end.
PAR=${BADINPUT_PARALLEL:-6}
k=0; launched=0
SAMPLE=-1
if [ "${3:-}" = sample ]; then
  n=$(git -C "$SRC" rev-list --count HEAD 2>/dev/null) || n=0
  SAMPLE=$((n % 5))
  echo "sample: the cases k with k mod 5 = $SAMPLE (commit count $n)"
fi
one_case() { # case number, ranks, expected message fragment, throng options...
  local kk=$1 np=$2 want=$3; shift 3
  local log="$dir/log.$kk.$np" rc
  timeout 60 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet -steps 5 -output none "$@" >"$log" 2>&1
  rc=$?
  local nerr; nerr=$(grep -c '^throng: error' "$log")
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$nerr" -eq 1 ] && grep -qF -- "$want" "$log" \
     && ! grep -q 'PETSC ERROR' "$log" && ! grep -q '^state-digest' "$log"; then
    echo pass > "$dir/verdict.$kk.$np"
  else
    { echo "FAIL ($np ranks, exit $rc, $nerr error lines): throng $* -- wanted '$want'; got:"; head -5 "$log"; } > "$dir/verdict.$kk.$np"
  fi
}
expect_error() { # expected message fragment, throng options...  (NP: rank counts, default "1 2")
  local np
  k=$((k + 1))
  [ "$SAMPLE" -ge 0 ] && [ $((k % 5)) -ne "$SAMPLE" ] && return 0
  for np in ${NP:-1 2}; do
    while [ "$(jobs -rp | wc -l)" -ge "$PAR" ]; do wait -n; done
    one_case "$k" "$np" "$@" &
    launched=$((launched + 1))
  done
}

# values that are not finite numbers, or too large for their type (issue 15)
expect_error "option -gravity: nan, one of its values, is not a finite number" -gravity nan,0 -n 2000
expect_error "option -halfplanes: nan"        -halfplanes 0,1,nan
expect_error "option -attract_gamma: nan is not a finite number" -attract_gamma nan
expect_error "option -attract_center: nan"    -attract_center nan,0
expect_error "option -gravity_schedule: nan"  -gravity_schedule 0.001,nan,0
expect_error "option -radius: inf is not a finite number" -radius inf
expect_error "option -dt: -inf is not a finite"  -dt -inf
expect_error "option -speed: nan"             -speed 1.3,nan,0.5,2
expect_error "option -gravity: nan"           -options_file_yaml "$dir/nan.yaml"
expect_error "option -steps: 99999999999999999999 is too large (at most" -steps 99999999999999999999
expect_error "option -seed: 99999999999999999999 is too large" -options_file_yaml "$dir/huge.yaml"
expect_error "option -n: 99999999999999999999999 is too large" -n 99999999999999999999999
expect_error "option -seed: -99999999999999999999 is too small" -seed -99999999999999999999
expect_error "option -tile: 3000000000 is too large" -tile 3000000000
expect_error "line 2: expected 'x y' or 'x y r' (finite numbers)" -init file -init_file "$dir/nanx.txt" -box 0,0,20,20
expect_error "line 2: a coordinate is not a finite number" -geometry "$dir/nan.wkt" -n 10 -radius 0.2
expect_error "number of disks must be >= 0"   -n -5
expect_error "is not an integer"              -n 12abc
expect_error "radius must be > 0"             -radius 0
expect_error "radius must be > 0"             -radius -1
expect_error "time step must be > 0"          -dt 0
expect_error "time step must be > 0"          -dt -0.1
expect_error "steps"                          -steps -3
expect_error "polydispersity"                 -polydispersity 1.5
NP="2 4" expect_error "too small for"       -n 1 -radius 0.5 -skin 0.1 -box 0,0,2.5,2.5 -tile 2
expect_error "needs 4 comma-separated"        -box 1,2,3
expect_error "need x0 < x1"                   -box 5,0,1,10
expect_error "unknown option"                 -foo 3
expect_error "unknown option"                 -n 100 -stesp 10
expect_error "tiles must be at least 2"       -tile 1
expect_error "must be 0 (off) or >= 1"       -balance_threshold 0.5
expect_error "balance_cell_weight -1: must be in" -balance_cell_weight -1
expect_error "balance_interval -3: must be >= 0" -balance_interval -3
expect_error "cannot write in the directory '/etc/passwd' of -output" -output /etc/passwd/x
expect_error "cannot write in the directory '$dir/missing' of -checkpoint" -output "$dir/ok" -checkpoint "$dir/missing/c.chk.h5"
expect_error "MB free, but the run will write at least" -n 1000 -steps 1000000000 -output_every 1 -output "$dir/huge"
expect_error "diffusion coefficient must be >= 0" -noise -1
expect_error "config file (-options_file_yaml) '$dir/does-not-exist.yaml': cannot read it: No such file" -options_file_yaml "$dir/does-not-exist.yaml"
expect_error "not a valid YAML"               -options_file_yaml "$dir/malformed.yaml"
expect_error "unknown option"                 -options_file_yaml "$dir/unknown.yaml"
expect_error "init_phi"                       -init lattice -init_phi 0.95
expect_error "need"                           -n 100000 -init lattice -init_phi 0.9 -box 0,0,50,50
expect_error "overlapping disks"              -n 2000 -init uniform -init_overlap error
expect_error "not inside the box"             -init_region -10,0,5,5 -box 0,0,100,100
expect_error "not a number"                  -radius abc
expect_error "option -init: 'bogus' is not one of: lattice jitter uniform file" -init bogus
expect_error "line 3: expected"               -init file -init_file "$dir/badline.txt" -box 0,0,20,20 -tile 2
expect_error "line 2: the disk is outside"    -init file -init_file "$dir/outside.txt" -box 0,0,20,20 -tile 2
expect_error "line 2: the radius must be"     -init file -init_file "$dir/negr.txt" -box 0,0,20,20 -tile 2
expect_error "-init_file '$dir/nope.txt': cannot read it" -init file -init_file "$dir/nope.txt" -box 0,0,20,20 -tile 2
expect_error "needs the box"                  -init file -init_file "$dir/outside.txt"
expect_error "no longer a finite number"     -gravity 0,-1e308 -dt 1e8 -n 100
expect_error "zero normal"                    -halfplanes 0,0,1
expect_error "Unknown option pgss for -solver" -solver pgss
expect_error "penalty_gamma"                  -solver penalty -penalty_gamma -1
expect_error "solver_max_it"                  -solver pngs -solver_max_it 0
expect_error "-pbdw_warm 1.5: must be in"     -solver pbdw -pbdw_warm 1.5
expect_error "-pbdw_blend 0.: must be > 0"    -solver pbdw -pbdw_blend 0
expect_error "-pbdw_sweeps 3: must be 1 or 2" -solver pbdw -pbdw_sweeps 3
expect_error "-output_round 0: must be"       -output_round 0
expect_error "not both 0"                     -solver pgs -solver_rtol 0 -solver_atol 0
expect_error "pgs_active"                     -solver pgs -pgs_active 5
expect_error "-geometry file '$dir/nope.wkt': cannot read it: No such file" -geometry "$dir/nope.wkt" -n 10 -radius 0.2
expect_error "line 1: cannot parse the WKT"   -geometry "$dir/unparsable.wkt" -n 10 -radius 0.2
expect_error "not a valid polygon: Self-inter" -geometry "$dir/bowtie.wkt" -n 10 -radius 0.2
expect_error "an exit must lie on it"         -geometry "$dir/offexit.wkt" -n 10 -radius 0.2
expect_error "no 'exit' line"                 -geometry "$dir/noexit.wkt" -n 10 -radius 0.2
expect_error "line 1: expected 'walkable"     -geometry "$dir/keyword.wkt" -n 10 -radius 0.2
expect_error "outside the walkable area"      -geometry "$dir/room.wkt" -n 50 -radius 0.2 -init uniform -init_region -5,0,5,10 -box -6,-1,11,11 -init_overlap project
expect_error "cannot reach any exit"          -geometry "$dir/closed.wkt" -n 20 -radius 0.2 -init jitter -init_phi 0.2 -init_region 0.5,0.5,3.5,9.5
expect_error "nodes is too many; raise -eikonal_h" -geometry "$dir/room.wkt" -n 10 -radius 0.2 -eikonal_h 0.0001
expect_error "need sd >= 0 and 0 <= min"      -geometry "$dir/room.wkt" -n 10 -radius 0.2 -speed 1,0.2,2,3
# the time-gap law's parameters out of range, a door narrower than an agent (issue 16)
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 4.25)\n' > "$dir/narrowdoor.wkt"
expect_error "is 0.25 m wide, not wider than the largest agent (diameter 0.3 m)" -geometry "$dir/narrowdoor.wkt" -n 10
expect_error "-csm_time_gap 0.01: must be in [0.1, 10] s" -geometry "$dir/room.wkt" -n 10 -csm_time_gap 0.01
expect_error "-csm_time_gap2 20: must be in [0.1, 10] s" -geometry "$dir/room.wkt" -n 10 -csm_time_gap2 20
expect_error "-csm_repulsion 8,0: need a in [0, 1000] and D in [0.001, 1] m" -geometry "$dir/room.wkt" -n 10 -csm_repulsion 8,0
expect_error "-csm_wall_repulsion -1,0.02: need a in [0, 1000]" -geometry "$dir/room.wkt" -n 10 -csm_wall_repulsion -1,0.02
expect_error "-csm_corridor 3: must be in [0.5, 2]" -geometry "$dir/room.wkt" -n 10 -csm_corridor 3
expect_error "-csm_vector_width 100: must be 128, 256 or 512 (bits)" -geometry "$dir/room.wkt" -n 10 -csm_vector_width 100
expect_error "-csm_avoidance -1: must be in [0, 10]" -geometry "$dir/room.wkt" -n 10 -csm_avoidance -1
# routes (issue 19): an unknown exit or waypoint, a waypoint off the walkable area, a route
# with no path (from a waypoint, and from an agent's start), a malformed route; the
# parser's and the options' errors on 2 ranks only (the same collective check)
R='walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 0.5, 5 0.5, 5 9.5, 4 9.5, 4 0.5))\nexit east LINESTRING (10 4, 10 6)\n'
printf "$R"'route west POLYGON ((0 0, 4 0, 4 10, 0 10, 0 0))\n' > "$dir/route_unknown.wkt"
printf "$R"'waypoint w1 POINT (2 2)\nroute w2,east ids 0-4\n' > "$dir/route_unknownway.wkt"
printf "$R"'waypoint w1 POINT (12 2)\nroute w1,east ids 0-4\n' > "$dir/route_offway.wkt"
printf "$R"'waypoint w1 POINT (4.5 5)\nroute w1,east ids 0-4\n' > "$dir/route_wallway.wkt"
printf 'walkable MULTIPOLYGON (((0 0, 4 0, 4 10, 0 10, 0 0)), ((6 0, 10 0, 10 10, 6 10, 6 0)))\nexit a LINESTRING (10 4, 10 6)\nexit b LINESTRING (0 4, 0 6)\nwaypoint w1 POINT (2 2)\nroute w1,a ids 0-4\n' > "$dir/route_nopath.wkt"
printf 'walkable MULTIPOLYGON (((0 0, 4 0, 4 10, 0 10, 0 0)), ((6 0, 10 0, 10 10, 6 10, 6 0)))\nexit a LINESTRING (10 4, 10 6)\nexit b LINESTRING (0 4, 0 6)\nroute a POLYGON ((0 0, 4 0, 4 10, 0 10, 0 0))\n' > "$dir/route_nopath2.wkt"
printf "$R"'waypoint w1 POINT (2 2)\nroute east,w1 ids 0-4\n' > "$dir/route_afterexit.wkt"
printf "$R"'waypoint w1 POINT (2 2)\nroute w1 ids 0-4\n' > "$dir/route_noexit.wkt"
printf "$R"'route east ids 7-3\n' > "$dir/route_ids.wkt"
printf "$R"'waypoint east POINT (2 2)\n' > "$dir/route_dupname.wkt"
printf "$R"'route 0,,east ids 0-4\n' > "$dir/route_space.wkt"
NP=2 expect_error "route target 'west' is neither an exit" -geometry "$dir/route_unknown.wkt" -n 10
NP=2 expect_error "route target 'w2' is neither an exit" -geometry "$dir/route_unknownway.wkt" -n 10
NP=2 expect_error "waypoint 'w1' (12, 2) is off the walkable area" -geometry "$dir/route_offway.wkt" -n 10
NP=2 expect_error "waypoint 'w1' (4.5, 5) is off the walkable area" -geometry "$dir/route_wallway.wkt" -n 10
expect_error "the route has no path from waypoint 'w1' to exit 'a'" -geometry "$dir/route_nopath.wkt" -n 10 -init jitter -init_phi 0.2 -init_region 0.5,0.5,3.5,9.5
expect_error "has no path to its route's first target, exit 'a'" -geometry "$dir/route_nopath2.wkt" -n 10 -init jitter -init_phi 0.2 -init_region 0.5,0.5,3.5,9.5
NP=2 expect_error "follows an exit: an exit ends a route" -geometry "$dir/route_afterexit.wkt" -n 10
NP=2 expect_error "a route must end at an exit" -geometry "$dir/route_noexit.wkt" -n 10
NP=2 expect_error "line 3: expected 'ids A-B' with 0 <= A <= B" -geometry "$dir/route_ids.wkt" -n 10
NP=2 expect_error "the name 'east' is given to two targets" -geometry "$dir/route_dupname.wkt" -n 10
NP=2 expect_error "line 3: an empty route target" -geometry "$dir/route_space.wkt" -n 10
NP=2 expect_error "-route_interval 0: must be > 0" -geometry "$dir/room.wkt" -n 10 -route_choice quickest -route_interval 0
NP=2 expect_error "-route_reconsider 1: must be >= -route_interval (2)" -geometry "$dir/room.wkt" -n 10 -route_reconsider 1
NP=2 expect_error "-waypoint_radius 0: must be > 0" -geometry "$dir/room.wkt" -n 10 -waypoint_radius 0
NP=2 expect_error "option -route_choice: 'fastest' is not one of: nearest quickest" -geometry "$dir/room.wkt" -n 10 -route_choice fastest
expect_error "option -crowd_model: 'walk' is not one of: csm projection" -geometry "$dir/room.wkt" -n 10 -crowd_model walk
expect_error "-trajectory_fps 7 with -dt 0.02: a frame must be a whole number k of steps, fps = 1 / (k dt); the nearest are 6.25 fps (k = 8) and 7.14286 fps (k = 7)" -geometry "$dir/room.wkt" -n 10 -dt 0.02 -trajectory "$dir/t.h5" -trajectory_fps 7
expect_error "the snapshots of -output '$dir/same.h5' and -trajectory '$dir/same.h5' are the same file" -geometry "$dir/room.wkt" -n 10 -output "$dir/same" -trajectory "$dir/same.h5"
# issue 26: inputs that are no files (a directory hung 2 ranks), binary data, and outputs
# that name an input or another output however the path is written
head -c 4096 /dev/urandom > "$dir/random.bin"; printf 'n: 100\n' > "$dir/c.yaml"
{ printf 'n: 10\n\0'; cat "$dir/random.bin"; } > "$dir/binary.yaml"
cp "$dir/room.wkt" "$dir/g.wkt"
expect_error "-geometry file '$dir' is a directory, not a file" -geometry "$dir" -n 10
expect_error "config file (-options_file_yaml) '$dir' is a directory, not a file" -options_file_yaml "$dir"
expect_error "-init_file '$dir' is a directory, not a file" -init file -init_file "$dir" -box 0,0,20,20
expect_error "restart file (-restart) '$dir' is a directory, not a file" -restart "$dir"
expect_error "-geometry file '/dev/zero' is not a regular file" -geometry /dev/zero -n 10
# issue 26: a list option with values too many, values that PETSc cannot parse named
# with their option and their whole text, a route interval that overflowed
printf 'n: 100\nbox: [0, 0, 10]\n' > "$dir/short.yaml"; printf 'n: 100\nbox: [0, 0, 10, 10, 5]\n' > "$dir/long.yaml"
printf 'walk: maybe\n' > "$dir/maybe.yaml"; printf 'radius: .nan\n' > "$dir/dotnan.yaml"
printf 'route_choice: [nearest, quickest]\n' > "$dir/choices.yaml"
expect_error "option -csm_repulsion needs 2 comma-separated numbers, got more than 2" -geometry "$dir/room.wkt" -n 10 -csm_repulsion 8,0.1,3
expect_error "option -speed needs 4 comma-separated numbers, got more than 4" -geometry "$dir/room.wkt" -n 10 -speed 1.34,0.26,0.5,2.2,7
expect_error "option -box needs 4 comma-separated numbers, got more than 4" -box 0,0,10,10,5
expect_error "option -box needs 4 comma-separated numbers, got more than 4" -options_file_yaml "$dir/long.yaml"
expect_error "option -box needs 4 comma-separated numbers, got 3" -options_file_yaml "$dir/short.yaml"
expect_error "option -groups needs groups of 5 numbers" -geometry "$dir/room.wkt" -groups 0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1,0,0,5,5,1
expect_error "option -csm_repulsion: 'abc,0.1' is not a list of comma-separated numbers" -geometry "$dir/room.wkt" -n 10 -csm_repulsion abc,0.1
expect_error "option -walk: 'maybe' is not a boolean" -geometry "$dir/room.wkt" -n 10 -options_file_yaml "$dir/maybe.yaml"
expect_error "option -radius: '.nan' is not a number" -options_file_yaml "$dir/dotnan.yaml"
expect_error "option -route_choice: 'nearest,quickest' is not one of: nearest quickest" -geometry "$dir/room.wkt" -n 10 -options_file_yaml "$dir/choices.yaml"
NP=2 expect_error "-route_interval 1e-300: must be in [-dt, 1e9] s" -geometry "$dir/room.wkt" -n 10 -route_choice quickest -route_interval 1e-300
NP=2 expect_error "-route_reconsider 1e+300: a time must be at most 10^9 s" -geometry "$dir/room.wkt" -n 10 -route_choice quickest -route_reconsider 1e300
expect_error "holds a NUL byte at byte 6: it is binary data" -options_file_yaml "$dir/binary.yaml"
expect_error "-trajectory '$dir/g.wkt' is the file -geometry '$dir/g.wkt' reads" -geometry "$dir/g.wkt" -n 10 -trajectory "$dir/g.wkt"
expect_error "-trajectory '$dir/c.yaml' is the file -options_file_yaml '$dir/c.yaml' reads" -geometry "$dir/g.wkt" -options_file_yaml "$dir/c.yaml" -trajectory "$dir/c.yaml"
expect_error "the snapshots of -output 'same.h5' and -trajectory '$dir/same.h5' are the same file" -geometry "$dir/g.wkt" -n 10 -output same -trajectory "$dir/same.h5"
expect_error "-checkpoint 'same.chk.h5' and -trajectory './same.chk.h5' are the same file" -geometry "$dir/g.wkt" -n 10 -output same -checkpoint_every 10 -trajectory ./same.chk.h5
expect_error "-trajectory '/dev/null' exists and is not a regular file" -geometry "$dir/g.wkt" -n 10 -trajectory /dev/null
expect_error "-trajectory writes pedestrian trajectories: it needs a crowd" -n 10 -trajectory "$dir/t.h5"
expect_error "gravity_schedule: the times must increase" -gravity_schedule 1,0,-1,0.5,0,1
expect_error "-groups region 1 holds only"    -geometry "$dir/room.wkt" -radius 0.2 -groups 0.5,0.5,5,9.5,20,8,8,9.5,9.5,50
expect_error "option -groups needs groups of 5 numbers x0,y0,x1,y1,n (at most 80 numbers); got 4" -groups 0,0,5,5
expect_error "-solver edmd runs hard disks in a box" -solver edmd -geometry "$dir/room.wkt" -n 10 -radius 0.2
expect_error "-solver edmd cannot restart yet" -solver edmd -restart "$dir/nope.h5"
expect_error "edmd_temperature 0" -solver edmd -edmd_temperature 0
expect_error "-solver edmd ignores -checkpoint_every: it cannot checkpoint yet" -solver edmd -edmd_periodic -n 1000 -radius 0.5 -polydispersity 0 -box 0,0,40,40 -dt 1 -output "$dir/e" -checkpoint_every 5
expect_error "-solver edmd ignores -trajectory" -solver edmd -n 100 -trajectory "$dir/e.h5"
printf 'walkable POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))\nexit LINESTRING (1 0.2, 1 0.8)\n' > "$dir/tiny.wkt"
expect_error "-init uniform: 1000000 disks cover 70685.8, more than the" -geometry "$dir/tiny.wkt" -n 1000000 -init uniform -init_overlap_max_sweeps 1
# issue 26: a run that blows up stops with an error (-overlap_abort), whatever the stepper
expect_error "the run has blown up: an overlap of" -options_file_yaml "$SRC/configs/room.yaml" -geometry "$SRC/configs/geometry/room.wkt" -dt 0.2
expect_error "the run has blown up: an overlap of" -n 2000 -solver penalty -dt 0.01 -steps 200
expect_error "-overlap_abort -1.: must be >= 0" -overlap_abort -1
printf 'walkable POLYGON ((0 0, 1e300 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\n' > "$dir/far.wkt"
printf 'n: {a: 1}\n' > "$dir/mapping.yaml"
expect_error "line 1: the coordinate 1e+300 is out of range: throng takes coordinates in metres up to 1e+07" -geometry "$dir/far.wkt" -n 10
expect_error "unknown option: -n_a (see -help) (-n_a: was 'n:' given a YAML mapping?" -options_file_yaml "$dir/mapping.yaml"
# a door without open space behind it (on an obstacle's face; onto another room 1 m
# away), and an exit sealed by a wall with 1 mm gaps (issue 26)
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))\nexit LINESTRING (4 4.5, 4 5.5)\n' > "$dir/holedoor.wkt"
printf 'walkable MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((11 0, 14 0, 14 10, 11 10, 11 0)))\nexit LINESTRING (10 4, 10 6)\nexit LINESTRING (14 4, 14 6)\n' > "$dir/notch.wkt"
printf 'walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (9 0.001, 9.5 0.001, 9.5 9.999, 9 9.999, 9 0.001))\nexit LINESTRING (10 4, 10 6)\n' > "$dir/sealed.wkt"
expect_error "exit 0 of '$dir/holedoor.wkt' (4. 4.5, 4. 5.5) has no free space behind it" -geometry "$dir/holedoor.wkt" -n 50
expect_error "exit 0 of '$dir/notch.wkt' (10. 4., 10. 6.) has no free space behind it" -geometry "$dir/notch.wkt" -n 50
expect_error "cannot reach any exit of '$dir/sealed.wkt': every way out is narrower than the smallest agent" -geometry "$dir/sealed.wkt" -n 50
expect_error "-pbdw_warm is an option of -solver pbdw; this run uses -solver pbd, which would ignore it" -pbdw_warm 0.5
expect_error "-penalty_gamma is an option of -solver penalty; this run uses -solver pgs" -solver pgs -penalty_gamma 10
expect_error "-edmd_periodic is an option of -solver edmd; this run uses -solver pbd" -edmd_periodic
expect_error "-speed describes a crowd: it needs a crowd scene (-geometry FILE)" -speed 1,0.1,0.5,2
expect_error "-route_choice describes a crowd: it needs a crowd scene" -route_choice quickest
expect_error "-solver edmd ignores -attract_gamma" -solver edmd -n 100 -attract_gamma 1
expect_error "-trajectory_fps 1e-09 with -dt 0.02: fewer than one frame in 10^9 steps" -geometry "$dir/room.wkt" -n 10 -trajectory "$dir/t.h5" -trajectory_fps 1e-9
expect_error "not a valid hard-disk start on replica 0: edmd: disks overlap" -solver edmd -n 100 -init uniform -init_overlap error -init_overlap_tol 10 -box 0,0,10,10 -polydispersity 0
expect_error "line 3: 'sensor' needs a non-empty LINESTRING" -geometry "$dir/pointsensor.wkt" -n 10 -radius 0.2
expect_error "line 3: the sensor has no segment" -geometry "$dir/zerosensor.wkt" -n 10 -radius 0.2
expect_error "-groups_density needs a crowd -geometry" -groups_density -groups 0,0,5,5,1
expect_error "density of group 0 is 50" -geometry "$dir/room.wkt" -radius 0.2 -groups_density -groups 0.5,0.5,5,9.5,50
expect_error "must be >= 0 (0: no density map)" -geometry "$dir/room.wkt" -n 10 -radius 0.2 -density_h -1
expect_error "the density map of the 10" -geometry "$dir/room.wkt" -n 10 -radius 0.2 -density_h 0.001
expect_error "the only scenario is 'evacuation'" -scenario foo
# populations, pre-movement, zones, stairs, sources (issue 27)
P=(-geometry "$dir/room.wkt" -populations a -pop_a_region 1,1,5,9 -pop_a_count 10)
expect_error "lies outside the walkable area" -geometry "$dir/room.wkt" -populations a -pop_a_region 20,20,30,30 -pop_a_count 10
expect_error "holds only"                     -geometry "$dir/room.wkt" -populations a -pop_a_region 1,1,2,2 -pop_a_count 500
expect_error "every number must be finite and >= 0" "${P[@]}" -pop_a_premove normal:-5,1,0,10
expect_error "every number must be finite and >= 0" "${P[@]}" -pop_a_premove lognormal:60,nan,0,600
expect_error "every number must be finite and >= 0" -geometry "$dir/room.wkt" -n 10 -premove -3
expect_error "every number must be finite and >= 0" "${P[@]}" -pop_a_speed uniform:-1,2
expect_error "need min <= mean <= max"        "${P[@]}" -pop_a_speed normal:3,0.2,0.5,2
expect_error "a distribution is a number"     "${P[@]}" -pop_a_speed gamma:1,2
expect_error "-pop_b_count names an unknown population" "${P[@]}" -pop_b_count 3
expect_error "is an unknown population"       "${P[@]}" -sources s -src_s_line 1,1,1,5 -src_s_rate 1 -src_s_population b
expect_error "give one of -pop_a_count and -pop_a_density" "${P[@]}" -pop_a_density 0.5
expect_error "drop -n"                        "${P[@]}" -n 10
expect_error "the speed factor in (0, 1]"     -geometry "$dir/zone0.wkt" -n 10
expect_error "the speed factor in (0, 1]"     -geometry "$dir/zoneneg.wkt" -n 10
expect_error "a stair needs an axis"          -geometry "$dir/stairnoaxis.wkt" -n 10
expect_error "two distinct points"            -geometry "$dir/stairpoint.wkt" -n 10
expect_error "speeds on stairs must lie in"   -geometry "$dir/room.wkt" -n 10 -stair_up 0
expect_error "has no spot where an agent"     -geometry "$dir/room.wkt" -n 10 -sources s -src_s_line 20,1,20,5 -src_s_rate 1
expect_error "has no spot where an agent"     -geometry "$dir/room.wkt" -n 10 -sources s -src_s_line 0,1,0,5 -src_s_rate 1
expect_error "give the arrivals per second"   -geometry "$dir/room.wkt" -n 10 -sources s -src_s_line 1,1,1,5
expect_error "not before the line above"      -geometry "$dir/room.wkt" -n 10 -sources s -src_s_line 1,1,1,5 -src_s_process table -src_s_table "$dir/times.txt"
expect_error "needs -geometry"                -sources s -src_s_line 1,1,1,5 -src_s_rate 1
expect_error "needs a crowd scene"            -premove 10
# floors and links (issue 32)
F=(-n 10 -init_region 1,1,9,9)
expect_error "are 2 m and 3 m long: a link joins two lines of the same length" -geometry "$dir/linklen.wkt" "${F[@]}"
expect_error "is not on the outline of a floor"  -geometry "$dir/linkoff.wkt" "${F[@]}"
expect_error "floor 'upper' (line 2) of '$dir/floornoway.wkt' has no way to any exit" -geometry "$dir/floornoway.wkt" "${F[@]}"
expect_error "a second floor named 'ground' (line 1)" -geometry "$dir/floordup.wkt" "${F[@]}"
expect_error "both lines of the link are on floor 'ground'" -geometry "$dir/linksame.wkt" "${F[@]}"
expect_error "are 0.5 m apart in the plane"     -geometry "$dir/floornear.wkt" "${F[@]}"
expect_error "both a 'walkable' line and 'floor' lines" -geometry "$dir/floorwalk.wkt" "${F[@]}"
expect_error "'link' lines join floors"        -geometry "$dir/linknofloor.wkt" "${F[@]}"
expect_error "has no room behind it"           -geometry "$dir/linkwell.wkt" "${F[@]}"
expect_error "expected 'link [NAME] LINESTRING (x y, x y) LINESTRING (x y, x y)'" -geometry "$dir/linkpoint.wkt" "${F[@]}"
expect_error "give a height in metres, 0 to 1000" -geometry "$dir/room.wkt" -n 10 -storey_height -1
expect_error "requested Tao type foo"         -solver pgs -pgs_tao -tao_type foo
expect_error "unknown option: -tao_type"      -solver pgs -tao_type tron
# issue 29: periodic boxes (one rank each: the checks run before any communication)
NP=1 expect_error "-periodic x with -halfplanes triple 1 (1,0,2): a wall across the periodic x direction" -periodic x -n 100 -halfplanes 1,0,2
NP=1 expect_error "-periodic y: the box is 5 long along y, 3 cells of 1.32 (2 r_max + skin, more along x when sheared); a periodic direction needs at least 4 cells"  -periodic y -n 10 -box 0,0,40,5
NP=1 expect_error "-periodic xy with -geometry"    -periodic xy -geometry "$dir/room.wkt" -n 10
NP=1 expect_error "-periodic x with -solver pgs"  -periodic x -solver pgs -n 100
NP=1 expect_error "-periodic x with -attract_gamma 1: an attraction to a point is not periodic" -periodic x -n 100 -attract_gamma 1
NP=1 expect_error "option -periodic: 'z' is not one of: none x y xy" -periodic z -n 100
NP=1 expect_error "-stress with -solver pgs: contact forces are recorded for pbd, pngs, pbdw and penalty only" -stress -solver pgs -n 100
NP=1 expect_error "-stress_bands needs -stress"   -stress_bands 4 -n 100
NP=1 expect_error "-deform_phi 0.95: above the hexagonal close packing 0.906900" -periodic xy -n 100 -box 0,0,20,20 -deform_rate -0.1 -deform_phi 0.95
NP=1 expect_error "the packing fraction is 0.190315 now, so a compression (rate < 0) never reaches it" -periodic xy -n 100 -box 0,0,20,20 -gravity 0,0 -deform_rate -0.1 -deform_phi 0.05
NP=1 expect_error "so an expansion (rate > 0) never reaches it" -periodic xy -n 100 -box 0,0,20,20 -gravity 0,0 -deform_rate 0.1 -deform_phi 0.5
NP=1 expect_error "-deform_rate deforms the periodic axes of the box: give -periodic" -n 100 -deform_rate -0.1
NP=1 expect_error "-deform_phi 0.8 needs -deform_rate" -periodic xy -n 100 -box 0,0,20,20 -deform_phi 0.8
NP=1 expect_error "-shear_rate 0.1 needs -periodic xy: Lees-Edwards images" -periodic x -n 100 -box 0,0,20,20 -shear_rate 0.1
NP=1 expect_error "-shear_rate with -deform_rate but no -deform_phi" -periodic xy -n 100 -box 0,0,20,20 -deform_rate -0.1 -shear_rate 0.1
NP=1 expect_error "-shear_rate 20 with -dt 0.001: a strain of 2 % per step" -periodic xy -n 100 -box 0,0,20,20 -shear_rate 20
NP=1 expect_error "-barostat -1: the target pressure must be a positive number" -periodic xy -n 100 -box 0,0,20,20 -barostat -1
NP=1 expect_error "-barostat deforms the periodic axes of the box: give -periodic x, y or xy" -n 100 -barostat 1
NP=1 expect_error "-barostat with -deform_rate: the barostat sets the box's rate" -periodic xy -n 100 -box 0,0,20,20 -barostat 1 -deform_rate -0.1
NP=1 expect_error "-barostat with -shear_rate: shear at a controlled pressure is not done yet" -periodic xy -n 100 -box 0,0,20,20 -barostat 1 -shear_rate 0.1
NP=2 expect_error "-barostat_tau 0.05 with -dt 0.001: the box could change by 2 % per step" -periodic xy -n 100 -box 0,0,20,20 -barostat 1 -barostat_tau 0.05
NP=1 expect_error "-contact_output needs snapshots: give -output PREFIX (not none)" -contact_output -output none -n 100
NP=1 expect_error "-contact_output with -solver pgs: contact forces are recorded for pbd, pngs, pbdw and penalty only" -contact_output -solver pgs -n 100
NP=1 expect_error "-bidisperse with -polydispersity 0.2 or -populations" -n 100 -bidisperse 1.4 -polydispersity 0.2
# issue 44: times beyond 10^9 s (a pre-movement of 1e16 s hung), options the run would
# ignore, zones and links that would slow or pass no one, populations that do not fit
# around the ones before them, and messages that named the wrong option
P1=(-geometry "$dir/room.wkt" -populations a -pop_a_region 1,1,5,9 -pop_a_count 10)
expect_error "-premove 1e16: a time must be at most 10^9 s" -geometry "$dir/room.wkt" -n 10 -premove 1e16
NP=1 expect_error "-pop_a_premove uniform:1e20,2e20: a time must be at most 10^9 s" "${P1[@]}" -pop_a_premove uniform:1e20,2e20
NP=1 expect_error "-pop_a_premove 1e300: a time must be at most 10^9 s" "${P1[@]}" -pop_a_premove 1e300
NP=1 expect_error "-src_s_start 1e+12: a time must be at most 10^9 s" -geometry "$dir/room.wkt" -n 10 -sources s -src_s_region 1,1,3,3 -src_s_rate 1 -src_s_start 1e12
NP=1 expect_error "-density_dt 1e+10: a time must be at most 10^9 s" -geometry "$dir/room.wkt" -n 10 -density_dt 1e10
NP=1 expect_error "-stall_time 1e+12: a time must be at most 10^9 s" -geometry "$dir/room.wkt" -n 10 -stall_time 1e12
NP=1 expect_error "-dt 1e+10: a time must be at most 10^9 s" -n 10 -dt 1e10
NP=1 expect_error "-trajectory_fps: the frame rate of -trajectory, which this run does not write; the run would ignore it" -geometry "$dir/room.wkt" -n 10 -trajectory_fps 10
NP=1 expect_error "-barostat_tau: the time scale of -barostat, which this run does not have" -n 100 -barostat_tau 3
NP=1 expect_error "-csm_time_gap: an option of the time-gap law, and this run uses -crowd_model projection" -geometry "$dir/room.wkt" -n 10 -crowd_model projection -csm_time_gap 1
NP=1 expect_error "-pop_a_time_gap: an option of the time-gap law, and this run uses -crowd_model projection" "${P1[@]}" -crowd_model projection -pop_a_time_gap 1
NP=1 expect_error "-route_gain: it steers -route_choice quickest, and this run uses nearest" -geometry "$dir/room.wkt" -n 10 -route_gain 3
NP=1 expect_error "-density_dt: the interval of the density map, which -density_h 0 turns off" -geometry "$dir/room.wkt" -n 10 -density_h 0 -density_dt 2
NP=1 expect_error "-speed2: the second population's, and -speed2_fraction is 0" -geometry "$dir/room.wkt" -n 10 -speed2 1,0.1,0.5,2
NP=1 expect_error "-attract_center: the centre of -attract_gamma, which is 0" -n 100 -attract_center 1,1
NP=1 expect_error "-src_s_start: the table of -src_s_table gives the arrival times" -geometry "$dir/room.wkt" -n 10 -sources s -src_s_region 1,1,3,3 -src_s_process table -src_s_table "$dir/sorted.txt" -src_s_start 1
NP=1 expect_error "-storey_height: '$dir/room.wkt' has no floors" -geometry "$dir/room.wkt" -n 10 -storey_height 4
NP=1 expect_error "-stair_up: '$dir/room.wkt' has no stairs" -geometry "$dir/room.wkt" -n 10 -stair_up 0.5
NP=1 expect_error "-stall_distance with -stall_time 0: the detector is off" -geometry "$dir/room.wkt" -n 10 -stall_time 0 -stall_distance 1
Z='walkable POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\nexit LINESTRING (10 4, 10 6)\n'
printf "$Z"'zone 0.5 POLYGON ((20 20, 21 20, 21 21, 20 21, 20 20))\n' > "$dir/zoneout.wkt"
printf "$Z"'stair 3 LINESTRING (1 1, 30 1) POLYGON ((1 0, 5 0, 5 2, 1 2, 1 0))\n' > "$dir/stairaxis.wkt"
printf "$Z"'zone 0.5 POLYGON ((1 1, 5 1, 5 5, 1 5, 1 1))\nzone 0.7 POLYGON ((2 2, 3 2, 3 3, 2 3, 2 2))\n' > "$dir/zoneinner.wkt"
printf "$Z"'zone nan POLYGON ((1 1, 2 1, 2 2, 1 2, 1 1))\n' > "$dir/zonenan.wkt"
NP=1 expect_error "line 3: the zone lies outside the walkable area: it would slow no one" -geometry "$dir/zoneout.wkt" -n 10
NP=1 expect_error "line 3: the stair's axis (1. 1., 30. 1.) does not lie in its area" -geometry "$dir/stairaxis.wkt" -n 10
NP=1 expect_error "line 4: the zone lies wholly inside the zone of line 3" -geometry "$dir/zoneinner.wkt" -n 10
NP=1 expect_error "line 3: expected 'zone FACTOR POLYGON (...)' with the speed factor in (0, 1]; the factor is 'nan'" -geometry "$dir/zonenan.wkt" -n 10
L2='floor ground 0 POLYGON ((0 0, 12 0, 12 8, 0 8, 0 0))\nfloor upper 1 POLYGON ((0 20, 12 20, 12 28, 0 28, 0 20))\nfloor flight 0.5 POLYGON ((16 8, 18 8, 18 14, 16 14, 16 8))\nexit LINESTRING (0 3, 0 5)\n'
printf "$L2"'link foot LINESTRING (16 8, 18 8) LINESTRING (9 8, 11 8)\nlink foot LINESTRING (16 14, 18 14) LINESTRING (9 20, 11 20)\n' > "$dir/linkdup.wkt"
printf "$L2"'link foot LINESTRING (16 8, 18 8) LINESTRING (9 8, 11 8)\nlink head LINESTRING (16 14, 16.2 14) LINESTRING (9 20, 9.2 20)\n' > "$dir/linknarrow.wkt"
printf "$L2"'link foot LINESTRING (16 8, 18 8) LINESTRING (0 3, 0 5)\nlink head LINESTRING (16 14, 18 14) LINESTRING (9 20, 11 20)\n' > "$dir/linkexit.wkt"
printf "$L2" | sed 's|^floor ground 0 POLYGON ((0 0, 12 0, 12 8, 0 8, 0 0))|floor ground 0 POLYGON ((0 0, 12 0, 12 8, 0 8, 0 0), (8.5 7, 11.5 7, 11.5 7.8, 8.5 7.8, 8.5 7))|' > "$dir/linkhole.wkt"
printf 'link foot LINESTRING (16 8, 18 8) LINESTRING (9 8, 11 8)\nlink head LINESTRING (16 14, 18 14) LINESTRING (9 20, 11 20)\n' >> "$dir/linkhole.wkt"
printf "$L2"'link foot LINESTRING (16 8, 18 8) LINESTRING (9 8, 11 8)\nlink head LINESTRING (16 14, 18 14) LINESTRING (9 20, 11 20)\n' | sed 's|^floor upper 1 |floor upper 1e300 |' > "$dir/floorlevel.wkt"
printf "$L2"'link foot LINESTRING (16 8, 18 8) LINESTRING (9 8, 11 8)\nlink head LINESTRING (16 14, 18 14) LINESTRING (9 20, 11 20)\n' | sed 's|^floor upper 1 |floor upper 1 shift 1e300,0 |' > "$dir/floorshift.wkt"
F2=(-populations upper,ground -pop_upper_region 0.5,20.5,11.5,27.5 -pop_upper_count 40 -pop_ground_region 3,0.5,8,5 -pop_ground_count 10 -radius 0.2 -init_phi 0.3)
NP=1 expect_error "line 6: a second link named 'foot' (line 5): link names are unique" -geometry "$dir/linkdup.wkt" "${F2[@]}"
expect_error "link 'head' (line 6) of '$dir/linknarrow.wkt' is 0.2 m wide, not wider than the largest agent (diameter 0.4 m)" -geometry "$dir/linknarrow.wkt" "${F2[@]}"
NP=1 expect_error "line 5: the link's second line lies on exit 0 (0. 3., 0. 5.)" -geometry "$dir/linkexit.wkt" "${F2[@]}"
expect_error "in front of its second line (9. 8., 11. 8.) on floor 'ground' the walkable area is not free 0.4 m deep" -geometry "$dir/linkhole.wkt" "${F2[@]}"
NP=1 expect_error "the level a number from -1000 to 1000" -geometry "$dir/floorlevel.wkt" "${F2[@]}"
NP=1 expect_error "expected 'shift DX,DY' (metres, each at most 1e+07 in magnitude)" -geometry "$dir/floorshift.wkt" "${F2[@]}"
expect_error "the region of population 'b' (around the agents of the populations before it) holds only 0 lattice sites" \
  -geometry "$dir/room.wkt" -populations a,b -pop_a_region 1,1,3,3 -pop_a_count 20 -pop_a_place fill -pop_b_region 1,1,3,3 -pop_b_count 20
NP=1 expect_error "-deform_phi -0.5: a packing fraction is >= 0" -periodic xy -n 100 -box 0,0,20,20 -deform_rate -0.1 -deform_phi -0.5
NP=1 expect_error "-pop_a_count: 99999999999 agents, more than this PETSc build's PetscInt can index" -geometry "$dir/room.wkt" -populations a -pop_a_region 1,1,5,9 -pop_a_count 99999999999
NP=1 expect_error "exit 0 of '$dir/room.wkt' is 2. m wide, not wider than the largest agent (diameter 6. m): no one could pass it; widen it or lower -pop_a_radius" "${P1[@]}" -pop_a_radius 3
NP=1 expect_error "population 'a': its region (-pop_a_region) crosses itself" -geometry "$dir/room.wkt" -populations a -pop_a_region 1,1,5,9,5,1,1,9 -pop_a_count 10
NP=1 expect_error "-src_s_region crosses itself" -geometry "$dir/room.wkt" -n 10 -sources s -src_s_region 1,1,5,9,5,1,1,9 -src_s_rate 1

wait
verdicts=0
for v in "$dir"/verdict.*; do
  [ -e "$v" ] || continue
  verdicts=$((verdicts + 1))
  check "$(cat "$v")" same "$(cat "$v")" pass
done
# every run launched must have left a verdict: one lost (a case killed, a name clash)
# would otherwise pass unseen
check "$launched runs launched, but $verdicts verdicts found" same "$verdicts" "$launched"
echo "($k cases, $launched runs)"
finish
