#!/usr/bin/env bash
# Ensembles (issue 28), on this machine (the Slurm path: tests/test_slurm.sh):
#  1. A sweep of -premove (0, 5 s) over 3 seeds of configs/room.yaml runs side by side;
#     the manifest holds 6 members with their digests; a member's recorded argument
#     list, rerun by hand, gives its digest (verify does the same); the report has both
#     cases, a ratio of mean times above 1 with an interval, the convergence verdict.
#  2. Resume: a member whose results are removed (as if killed) reruns alone; the other
#     members' records are untouched; its old log is kept.
#  3. More seeds into the same folder add members, keep the old ones.
#  4. Bad input, each refused with one message and nothing changed: a sweep over an
#     unknown option, a grid over --max-members (no terminal to ask), another case in
#     a folder, a value throng refuses, a member whose digest disagrees with the
#     manifest on a rerun (verify); a seed among the case's options or swept, a value
#     swept twice, a file as the folder, --jobs 0, a member that does not exist; run
#     --help prints the usage; a report whose case has no finished member names it and
#     reports the others (issue 44).
#  5. (release) RiMEA 9 as a study: 4 and 2 doors, 10 seeds each; the ratio of the mean
#     evacuation times (two doors over four) has an interval inside [1.6, 2.4].
#   test_ensemble.sh path/to/throng path/to/mpiexec path/to/source [quick]
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$3; MODE=${4:-full}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export THRONG MPIEXEC
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
cd "$SRC" || exit 1
ENS=(/usr/bin/python3 jobs/ensemble.py)
digest() { sed -n 's/^state-digest: //p' "$1"; }
E=$out/e

# 1. a sweep, run here
check "the ensemble run failed" logged "$out/run.log" "${ENS[@]}" run "$E" --seeds 3 --sweep premove 0 5 \
  -- -options_file_yaml configs/room.yaml
cat "$out/run.log" | grep -E "^ensemble|T mean" | tail -6
check "not 6 members done" grep -q "6 members: 6 done, 0 failed" "$out/run.log"
check "the manifest table lacks 6 digests" holds 'n == 6' n="$(grep -c ',done,[0-9a-f]\{32\}$' "$E/manifest.csv")"
# member 4 (seed 2, -premove 5) by hand, from its recorded arguments
args=$(/usr/bin/python3 -c "import json,sys; m=json.load(open('$E/manifest.json')); x=m['members'][4]; print('\n'.join(x['argv']))" |
  sed "s|$E/members/0004/run|$out/by-hand|")
mapfile -t A <<<"$args"
"$THRONG" "${A[@]}" >"$out/by-hand.log" 2>&1
want=$(sed -n 's/^4,2,5,done,//p' "$E/manifest.csv")
check "member 4 rerun by hand: digest $(digest "$out/by-hand.log"), manifest $want" same "$(digest "$out/by-hand.log")" "$want"
check "verify failed" logged "$out/verify.log" "${ENS[@]}" verify "$E"
check "the report lacks the ratio row" grep -q "^| premove=5 | 1\.[0-9]* | \[" "$E/report.md"
ratio=$(sed -n 's/^| premove=5 | \(1\.[0-9]*\) | .*/\1/p' "$E/report.md")
check "pre-movement of 5 s: the mean time grew by ${ratio:-?}, not by a factor in (1.02, 1.2)" holds 'r > 1.02 && r < 1.2' r="$ratio"
check "the report has no convergence verdict" grep -q "^Verdict: \*\*" "$E/report.md"
check "the report has no plot" test -s "$E/ensemble-time.png"

# 2. resume: member 2 killed (its results gone, a 'started' mark left), the rest kept
for k in 0 1 3 4 5; do md5sum "$E/members/000$k/done.json"; done >"$out/kept.md5"
rm -f "$E/members/0002/done.json" "$E/members/0002/run."*
touch "$E/members/0002/started"
check "status does not report member 2 as started" grep -q "member 2 (seed 3, -premove 0): started, not finished" \
  <("${ENS[@]}" status "$E")
check "the resumed run failed" logged "$out/resume.log" "${ENS[@]}" run "$E" --no-report
check "the resumed run did not run exactly 1 member" grep -q "running 1 member here" "$out/resume.log"
check "member 2 did not rerun" grep -q "ensemble: member 2 done" "$out/resume.log"
check "the other members' records changed on resume" md5sum --quiet -c "$out/kept.md5"
check "member 2's old log was not kept" test -s "$E/members/0002/log.1"
check "verify of member 2 after the resume failed" logged "$out/verify2.log" "${ENS[@]}" verify "$E" 2

# 3. more seeds: 2 new members per case, the 6 kept
check "planning 4 seeds into the folder failed" logged "$out/plan4.log" "${ENS[@]}" plan "$E" --seeds 4 --sweep premove 0 5 \
  -- -options_file_yaml configs/room.yaml
check "4 seeds: not 8 members with 2 new" grep -q "8 members planned (2 new)" "$out/plan4.log"
check "the old members' records changed on planning more" md5sum --quiet -c "$out/kept.md5"

# 4. bad input
cp "$E/manifest.json" "$out/manifest.before"
refused() { # log, pattern, command...: exit status 2 and the pattern on stderr, once
  local log=$1 pat=$2
  shift 2
  "$@" >"$log" 2>&1 </dev/null
  local rc=$?
  [ $rc -eq 2 ] && grep -q -- "$pat" "$log" && [ "$(grep -c 'error' "$log")" -eq 1 ]
}
check "a sweep over an unknown option was not refused clearly" refused "$out/b1.log" "throng has no option -premov (similar: -premove)" \
  "${ENS[@]}" plan "$out/b1" --seeds 2 --sweep premov 0 5 -- -options_file_yaml configs/room.yaml
check "a refused plan left a folder behind" not test -e "$out/b1"
check "a grid over --max-members was not refused" refused "$out/b2.log" "1200 members (3 sweep points x 400 seeds), more than --max-members 1000: pass --yes" \
  "${ENS[@]}" plan "$out/b2" --seeds 400 --sweep premove 0 5 10 -- -options_file_yaml configs/room.yaml
check "another case in the folder was not refused" refused "$out/b3.log" "holds the members of another case (its sweep differs" \
  "${ENS[@]}" run "$E" --seeds 4 --sweep premove 0 7 -- -options_file_yaml configs/room.yaml
check "a refused plan changed the manifest" cmp -s "$out/manifest.before" "$E/manifest.json"
check "a value throng refuses was not refused" refused "$out/b4.log" "throng refuses the case at -premove -5" \
  "${ENS[@]}" plan "$out/b4" --seeds 2 --sweep premove 0 -5 -- -options_file_yaml configs/room.yaml
# a manifest whose digest of member 0 is not the run's
sed -i "0,/\"digest\": \"[0-9a-f]*\"/s//\"digest\": \"00000000000000000000000000000000\"/" "$E/manifest.json"
"${ENS[@]}" verify "$E" 0 >"$out/b5.log" 2>&1
rc=$?
check "verify of a member whose digest disagrees did not fail (exit $rc)" same "$rc" 1
check "verify did not say the digests differ" grep -q "member 0 (seed 1, -premove 0): digest [0-9a-f]* on rerun, 00000000000000000000000000000000 in the manifest: not the same run" "$out/b5.log"
check "verify touched member 0's results" test -s "$E/members/0000/run.exits.csv"
# issue 44: a seed among the case's options or swept (the members' own -seed came after
# it and won: two sweep points, one digest), a value swept twice, a file as the folder,
# --jobs 0, a member that does not exist, and COMMAND --help
check "-seed among the case's options was not refused" refused "$out/b6.log" "-seed among throng's options: the ensemble gives each member its seed" \
  "${ENS[@]}" plan "$out/b6" --seeds 2 -- -options_file_yaml configs/room.yaml -seed 7
check "--sweep seed was not refused" refused "$out/b7.log" "--sweep seed: the ensemble gives each member its seed" \
  "${ENS[@]}" plan "$out/b7" --seeds 2 --sweep seed 5 6 -- -options_file_yaml configs/room.yaml
check "a value swept twice was not refused" refused "$out/b8.log" "--sweep premove: the value 5 is given twice" \
  "${ENS[@]}" plan "$out/b8" --seeds 2 --sweep premove 5 5 -- -options_file_yaml configs/room.yaml
touch "$out/afile"
check "a file as the ensemble's folder was not refused" refused "$out/b9.log" "is a file, not a folder" \
  "${ENS[@]}" plan "$out/afile" --seeds 2 -- -options_file_yaml configs/room.yaml
check "--jobs 0 was not refused" refused "$out/b10.log" "--jobs 0: must be >= 1" "${ENS[@]}" run "$E" --jobs 0
check "verify of a member that does not exist was not refused" refused "$out/b11.log" "verify: no member 99 (members 0 to 7)" \
  "${ENS[@]}" verify "$E" 99
check "run --help did not print the usage" grep -q "^Commands" <("${ENS[@]}" run --help)
# a case with no finished member: the report names it and reports the other
rm -f "$E"/members/000[345]/done.json
check "the report with a case of no finished member failed" logged "$out/rep0.log" "${ENS[@]}" report "$E"
check "the report does not name the case without a finished member" grep -q "1 case without a finished member\*\*, left out below: premove=5" "$E/report.md"
check "the report lost the other case" grep -q "^| premove=0 | " "$E/report.md"

# 5. RiMEA 9 as a study (release): 4 and 2 doors, 10 seeds each
if [ "$MODE" = full ]; then
  R=$out/r9
  check "the RiMEA 9 ensemble failed" logged "$out/r9.log" "${ENS[@]}" run "$R" --seeds 10 \
    --sweep geometry configs/geometry/rimea9-4doors.wkt configs/geometry/rimea9-2doors.wkt -- -options_file_yaml configs/rimea9.yaml
  grep -E "^ensemble|T mean" "$out/r9.log" | tail -4
  row=$(grep "^| geometry=rimea9-2doors.wkt | [0-9.]* | \[" "$R/report.md")
  lo=$(echo "$row" | sed -n 's/.*| \[\([0-9.]*\), \([0-9.]*\)\].*/\1/p'); hi=$(echo "$row" | sed -n 's/.*| \[\([0-9.]*\), \([0-9.]*\)\].*/\2/p')
  check "RiMEA 9: the ratio's interval [${lo:-?}, ${hi:-?}] is not inside [1.6, 2.4]" holds 'l >= 1.6 && h <= 2.4' l="$lo" h="$hi"
  check "RiMEA 9: a member did not empty the room" grep -q "^| geometry=rimea9-4doors.wkt | 10 | 0 |" "$R/report.md"
  check "RiMEA 9: the 2-door case lacks its distribution" grep -q "^| geometry=rimea9-2doors.wkt | 10 | 0 |" "$R/report.md"
fi
finish
