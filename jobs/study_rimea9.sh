#!/bin/bash
# RiMEA test 9 as a study: 1000 persons spread over the room anew for each seed, four
# doors and then two, SEEDS seeds each (default 50, as IMO MSC.1/Circ.1533 asks), one
# ensemble with the geometry swept (jobs/ensemble.py).  Writes the ensemble to OUT
# (default rimea9.study) and its report to docs/study-rimea9.md with the plots in
# docs/img/; docs/validation.md links it (bash jobs/validate_crowd.sh).
#
#   bash jobs/study_rimea9.sh [SEEDS]            # here, members side by side on the cores
#   SLURM=1 bash jobs/study_rimea9.sh [SEEDS]    # one job array; then, when it is done:
#   bash jobs/study_rimea9.sh --docs             # copy the report into docs/
#
# Environment: THRONG (default build/throng), OUT.  A run that stopped (a failed member,
# a time limit) resumes by the same command: done members are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-rimea9.study}
docs() {
  mkdir -p docs/img
  cp "$OUT/ensemble-time.png" docs/img/study-rimea9-time.png
  sed -e 's|(ensemble-time.png)|(img/study-rimea9-time.png)|' -e '/ensemble-sweep.png/d' \
      -e "s|postproc/ensemble.py $OUT|postproc/ensemble.py $OUT (bash jobs/study_rimea9.sh)|" \
      "$OUT/report.md" > docs/study-rimea9.md
  echo "study_rimea9: wrote docs/study-rimea9.md and docs/img/study-rimea9-time.png"
}
if [ "${1:-}" = "--docs" ]; then docs; exit 0; fi
SEEDS=${1:-50}
PLAN=(--seeds "$SEEDS" --sweep geometry configs/geometry/rimea9-4doors.wkt configs/geometry/rimea9-2doors.wkt
  -- -options_file_yaml configs/rimea9.yaml)
if [ -n "${SLURM:-}" ]; then
  exec /usr/bin/python3 jobs/ensemble.py submit "$OUT" "${PLAN[@]}"
fi
start=$(date +%s)
/usr/bin/python3 jobs/ensemble.py run "$OUT" "${PLAN[@]}"
echo "study_rimea9: $((2 * SEEDS)) members, wall $(( $(date +%s) - start )) s on $(nproc) cores"
docs
