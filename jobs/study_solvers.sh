#!/usr/bin/env bash
# The precision-work study of seed 000 §4 (Figures 8 and 10): error against h, work and
# wall time for PBD, PNGS, PGS and the penalty method (gamma = 10, 100, 1000), on the
# sliding case and on the 40 disks (tests/study_solvers.c says what is run and how the
# error and the work are measured).  Writes the CSV and two PNGs.
#
#   bash jobs/study_solvers.sh [OUTDIR]      (default: study.out; a few minutes on 1 core)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-study.out}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x build/tests/study_solvers ] || bash .ci/setup
mkdir -p "$OUT"
build/tests/study_solvers -csv "$OUT/study.csv" | tee "$OUT/study.log"
/usr/bin/python3 postproc/plot_study.py "$OUT/study.csv" --out "$OUT/study"
