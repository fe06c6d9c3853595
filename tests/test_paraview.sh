#!/usr/bin/env bash
# ParaView reads throng's output: a 2-rank run writes H5MD + XDMF; pvbatch loads the
# XDMF, checks the point count equals N and renders the disks to scale into a PNG, then a
# movie of all frames; postproc/plot_run.py plots the run's diagnostics from the H5MD file.
#   test_paraview.sh path/to/throng path/to/mpiexec path/to/postproc/render.py
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; RENDER=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
# xvfb-run -a searches upwards from -n; start at a number of our own, so that concurrent
# runs (another test, a user session) do not race for the same display
XNUM=$((100 + $$ % 800))
if ! command -v pvbatch >/dev/null || ! command -v xvfb-run >/dev/null; then
  echo "FAIL: pvbatch or xvfb-run missing (bash .ci/run installs paraview, python3-paraview, xvfb)" >&2
  echo "0 passed, 1 failed"; exit 1
fi
check "throng run failed" logged run.log timeout 300 "$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet -n 3000 -steps 300 \
  -output_every 100 -output run
check "pvbatch render failed" logged pv.log timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$RENDER" run.xdmf --png run.png \
  --expect-n 3000 --color id
check "pvbatch did not report 3000 disks" grep -q "has 3000 disks" pv.log
size=$(stat -c %s run.png 2>/dev/null || echo 0)
check "PNG missing or empty ($size bytes)" holds 'size > 20000' size="$size"
check "render.py accepted a wrong point count" not quiet timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$RENDER" run.xdmf --expect-n 2999
# a movie (every frame + an animated GIF) and the matplotlib diagnostics of the H5MD file
check "movie failed" logged mv.log timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$RENDER" run.xdmf --movie frames --size 400x300
check "movie: want 4 frames" same "$(find frames -name 'frame_*.png' | wc -l)" 4
check "movie: no movie.gif" test -s frames/movie.gif
PLOT=$(dirname "$RENDER")/plot_run.py
check "plot_run.py failed" logged plot.log /usr/bin/python3 "$PLOT" run.h5 --png diag.png --csv diag.csv
check "diagnostics: no PNG" test -s diag.png
check "diagnostics: want 4 CSV rows" same "$(wc -l < diag.csv)" 5
finish
