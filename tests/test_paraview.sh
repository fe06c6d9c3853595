#!/usr/bin/env bash
# ParaView reads throng's output: a 2-rank run writes H5MD + XDMF; pvbatch loads the
# XDMF, checks the point count equals N and renders the disks to scale into a PNG, then a
# movie of all frames; postproc/plot_run.py plots the run's diagnostics from the H5MD file.
#   test_paraview.sh path/to/throng path/to/mpiexec path/to/postproc/render.py
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; RENDER=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
# xvfb-run -a searches upwards from -n; start at a number of our own, so that concurrent
# runs (another test, a user session) do not race for the same display
XNUM=$((100 + $$ % 800))
passed=0; failed=0
check() { if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1" >&2; fi; }
if ! command -v pvbatch >/dev/null || ! command -v xvfb-run >/dev/null; then
  echo "FAIL: pvbatch or xvfb-run missing (bash .ci/run installs paraview, python3-paraview, xvfb)" >&2
  echo "0 passed, 1 failed"; exit 1
fi
timeout 300 "$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet -n 3000 -steps 300 -output_every 100 -output run >run.log 2>&1
ok=$? # before the message: its $(...) would reset $?
check "throng run failed: $(tail -2 run.log)" $ok
timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$RENDER" run.xdmf --png run.png --expect-n 3000 --color id >pv.log 2>&1
ok=$? # before the message: its $(...) would reset $?
check "pvbatch render failed: $(tail -3 pv.log)" $ok
grep -q "has 3000 disks" pv.log; check "pvbatch did not report 3000 disks" $?
size=$(stat -c %s run.png 2>/dev/null || echo 0)
[ "$size" -gt 20000 ]; check "PNG missing or empty ($size bytes)" $?
timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$RENDER" run.xdmf --expect-n 2999 >pv2.log 2>&1
[ $? -ne 0 ]; check "render.py accepted a wrong point count" $?
# a movie (every frame + an animated GIF) and the matplotlib diagnostics of the H5MD file
timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$RENDER" run.xdmf --movie frames --size 400x300 >mv.log 2>&1
ok=$? # before the message: its $(...) would reset $?
check "movie failed: $(tail -2 mv.log)" $ok
[ "$(ls frames/frame_*.png 2>/dev/null | wc -l)" -eq 4 ] && [ -s frames/movie.gif ]; check "movie: want 4 frames and movie.gif" $?
PLOT=$(dirname "$RENDER")/plot_run.py
/usr/bin/python3 "$PLOT" run.h5 --png diag.png --csv diag.csv >/dev/null 2>plot.log
ok=$? # before the message: its $(...) would reset $?
check "plot_run.py failed: $(tail -2 plot.log)" $ok
[ -s diag.png ] && [ "$(wc -l < diag.csv)" -eq 5 ]; check "diagnostics: want a PNG and 4 CSV rows" $?
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
