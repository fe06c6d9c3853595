#!/usr/bin/env bash
# A restart runs the equations of its checkpoint, or is refused (issue 15).
#
#  1. Every option declared PHYS in src/app/options.c is in the checkpoint's physics string
#     (the list is read from the checkpoint itself, so a new option is covered without
#     editing this test), and changing any one of them at restart is refused with
#     "written for other equations" (another stepper's option, as one this run would ignore)
#     -- also by a tiny change (1e-9 relative), since the
#     values are stored with 17 digits.
#  2. The options that decide a crowd's drawn free speeds are among them: -seed,
#     -speed, -speed2, -speed2_fraction (a restart with another -seed used to run on,
#     to another trajectory, without a word).
#  3. Options declared RUN change nothing: a restart on 2 ranks with other output,
#     progress and load-balancing options ends with the straight run's digest.
#  4. Options are declared only through the helpers of options.c, which record the kind:
#     no other call of PetscOptions{Real,Int,Bool,String,EList,...} reads an option.
#  5. The physics string holds the scene file's content (geometry_content, a hash), not
#     only its path: a restart after the file was edited in place (a pillar added where
#     agents stand, the exit moved) is refused, naming it (issue 26).
#   test_restart_physics.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}; SRC=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
PY=/usr/bin/python3
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$SRC" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }

# the room of configs/room.yaml with two populations, so that every crowd option counts
O=(-options_file_yaml configs/room.yaml -speed2 0.8,0.1,0.4,1.2 -speed2_fraction 0.3 -quiet)
check "the checkpointing run failed" logged "$dir/a.log" "$THRONG" "${O[@]}" -steps 300 -checkpoint_every 300 -output "$dir/a"
check "the straight run failed" logged "$dir/straight.log" "$THRONG" "${O[@]}" -steps 500 -output "$dir/straight"
if [ ! -f "$dir/a.chk.h5" ]; then check "no checkpoint written" false; finish; exit 1; fi

# the physics string, one "name=value" a line
check "cannot read the physics attribute" logged "$dir/physics.txt" $PY - "$dir/a.chk.h5" <<'EOF'
import sys, h5py
v = h5py.File(sys.argv[1], "r")["checkpoint"].attrs["physics"]
v = v.decode() if isinstance(v, bytes) else str(v)
for item in v.split(" "):
    print(item)
EOF
n=$(wc -l <"$dir/physics.txt")
check "only $n physics options in the checkpoint" holds 'n >= 30' n="$n"
for want in seed speed speed2 speed2_fraction radius polydispersity dt tile skin geometry gravity noise; do
  check "option -$want is not in the checkpoint's physics string" grep -q "^$want=" "$dir/physics.txt"
done
for runonly in steps output progress balance_threshold rank_grid restart init n; do
  check "run-only option -$runonly is in the physics string" not grep -q "^$runonly=" "$dir/physics.txt"
done

# the options PETSc shows as logical (-help: "<TRUE : TRUE>")
"$THRONG" -help >"$dir/help.txt" 2>/dev/null
sed -n 's/^  -\([a-z0-9_]*\): <\(TRUE\|FALSE\) .*/\1/p' "$dir/help.txt" >"$dir/bools.txt"
# and the integers ("<now 16 : ...", where PETSc writes a real as "0." or "0.5")
sed -n 's/^  -\([a-z0-9_]*\) <now -\{0,1\}[0-9][0-9]* : .*/\1/p' "$dir/help.txt" >"$dir/ints.txt"
cp configs/geometry/room.wkt "$dir/room-copy.wkt"

# 1. each physics option changed alone: refused
changed() { # name value -> a valid value that differs (a tiny change where it can be)
  local name=$1 value=$2
  if grep -qx "$name" "$dir/bools.txt"; then [ "$value" = 1 ] && echo 0 || echo 1; return; fi
  case "$name" in
    solver) echo pngs; return ;;
    crowd_model) echo projection; return ;;
    exit_rule) echo reach; return ;;
    route_choice) echo quickest; return ;;
    geometry) echo "$dir/room-copy.wkt"; return ;;
    halfplanes) [ -z "$value" ] && { echo 0,1,-1000; return; } ;;
    gravity_schedule) [ -z "$value" ] && { echo 1000,0,0; return; } ;;
    bidisperse) [ "$value" = 0 ] && { echo 1.4; return; } ;;
    pbdw_sweeps) [ "$value" = 1 ] && echo 2 || echo 1; return ;; # 1 or 2 only
    # a crowd has no periodic box to deform: test_granular.sh restarts a compression with
    # another -deform_phi and another -periodic, test_shear.sh a shear with another rate,
    # test_barostat.sh a pressure-controlled box with another target and tau
    periodic | deform_rate | deform_phi | shear_rate | barostat | barostat_tau) echo SKIP; return ;;
    populations | sources) echo SKIP; return ;; # lists of names, whose own options follow:
    # test_evacuation.sh restarts with another population's or source's numbers
  esac
  case "$value" in # a distribution KIND:a,b,...: its first number changed (population.c)
    *:*) echo "${value%%:*}:$(changed "$name-numbers" "${value#*:}")"; return ;;
  esac
  if grep -qx "$name" "$dir/ints.txt"; then echo $((value + 1)); return; fi
  awk -v v="$value" 'BEGIN { n = split(v, a, ","); x = a[1];
    if (x + 0 == 0) a[1] = "1e-9";
    else a[1] = sprintf("%.17g", x * (1 - 1e-9));              # a real, changed a little
    s = a[1]; for (i = 2; i <= n; i++) s = s "," a[i]; print s }'
}
other_equations() { # log, exit status: refused as a run of other equations (or, for another
  # stepper's option such as -pbdw_warm in this pbd run, or one such as -route_gain without
  # -route_choice quickest, as an option the run would ignore)
  [ "$2" -ne 0 ] && grep -qE "written for other equations|is an option of -solver [a-z]+; this run uses|the run would ignore it" "$1" \
    && ! grep -q '^state-digest' "$1"
}
tested=0
while IFS= read -r item; do
  name=${item%%=*}; value=${item#*=}
  if [ "$name" = geometry_content ]; then tested=$((tested + 1)); continue; fi # no option: 5. below
  new=$(changed "$name" "$value")
  if [ "$new" = SKIP ]; then tested=$((tested + 1)); continue; fi
  log="$dir/r.$name.log"
  timeout 120 "$THRONG" "${O[@]}" "-$name" "$new" -steps 500 -restart "$dir/a.chk.h5" -output "$dir/r" -checkpoint none >"$log" 2>&1
  rc=$?
  tested=$((tested + 1))
  check "-$name $new (was $value) at restart: exit $rc, not refused as other equations: $(grep -m1 'error' "$log")" \
    other_equations "$log" "$rc"
done <"$dir/physics.txt"
check "tested $tested of $n physics options" same "$tested" "$n"

# 2. the same options: the straight run's digest, on 1 and on 2 ranks, also with other
#    run-only options
ref=$(digest "$dir/straight.log")
check "the straight run printed no digest" test -n "$ref"
"$THRONG" "${O[@]}" -steps 500 -restart "$dir/a.chk.h5" -output "$dir/b" >"$dir/b.log" 2>&1
check "restart with the same options: digest $(digest "$dir/b.log"), straight run $ref" same "$(digest "$dir/b.log")" "$ref"
"$MPIEXEC" -n 2 "$THRONG" "${O[@]}" -steps 500 -restart "$dir/a.chk.h5" -output "$dir/c" -output_every 37 -progress 11 -balance_threshold 0 -rank_grid 1,2 -checkpoint_every 0 >"$dir/c.log" 2>&1
check "restart on 2 ranks with other run-only options: digest $(digest "$dir/c.log"), straight run $ref" \
  same "$(digest "$dir/c.log")" "$ref"

# 4. every option is declared through a helper that records its kind (src/util/opt.c)
# (PetscOptionsGet*, HasName and the PetscOptions* of an options block alike; scenarios.c
# alone may look at -scenario before the options are declared, to insert the scenario's
# options, and -scenario itself is declared as a run option in ProcessOptions; GetAll,
# which copies every option into the output's metadata, reads none)
calls=$(awk 'FNR == 1 { inside = 0 } /^\/\* ---- Declaring an option/ { inside = 1 } /^PetscErrorCode ParamsPhysics/ { inside = 0 }
  !inside && /PetscOptions(Get[A-Za-z]*|HasName|Real|Int|Bool|String|EList|Enum|RealArray|IntArray|Scalar|Int64|Range)[A-Za-z]*\(/ \
    && !/PetscOptionsGetAll\(/ && !(FILENAME ~ /scenarios\.c$/ && /"-scenario"|\(\*o\)\[0\]/) { print FILENAME ":" FNR ": " $0 }' src/*/*.c)
check "options read outside the declaring helpers of util/opt.c (their kind is not recorded): $calls" test -z "$calls"

# 5. the scene edited in place between the checkpoint and the restart
cp configs/geometry/room.wkt "$dir/edited.wkt"
check "the run on a copy of the room failed" logged "$dir/e.log" "$THRONG" "${O[@]}" -geometry "$dir/edited.wkt" -steps 100 \
  -checkpoint_every 100 -output "$dir/e"
check "the physics string holds no geometry_content" grep -q '^geometry_content=[0-9a-f]\{16\}$' "$dir/physics.txt"
printf 'walkable POLYGON ((0 0, 12 0, 12 8, 0 8, 0 0), (1 1, 3 1, 3 3, 1 3, 1 1))\nexit LINESTRING (12 3, 12 5)\n' >"$dir/edited.wkt"
"$THRONG" "${O[@]}" -geometry "$dir/edited.wkt" -steps 200 -restart "$dir/e.chk.h5" -output "$dir/e2" >"$dir/e2.log" 2>&1
rc=$?
check "a restart after the scene file was edited in place was not refused (exit $rc): $(grep -m1 error "$dir/e2.log")" \
  other_equations "$dir/e2.log" "$rc"
check "the refusal does not name geometry_content" grep -q -- "-geometry_content: file" "$dir/e2.log"

echo "($tested physics options)"
finish
