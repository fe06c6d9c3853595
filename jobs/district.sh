#!/usr/bin/env bash
# The district benchmark (issue 47): set-up time, peak memory per rank and agent-steps/s
# of configs/district.yaml (10^5 agents in a 1020 m x 1020 m street grid of 96 blocks and
# 4 squares with 16 exits; configs/geometry/make_district.py), for each exit rule on each
# rank count.  The travel-time fields are replicated on every rank (docs/crowd.md), so
# their memory per rank does not fall with the ranks: the table shows it.
#
#   bash jobs/district.sh                     # -eikonal_h 0.25, 1 and 2 ranks, both rules
#   H=0.1 ROUTES=nearest bash jobs/district.sh
#
# Environment: H (-eikonal_h, default 0.25), NP (rank counts, "1 2"), ROUTES
# ("nearest quickest"), STEPS (20: steps timed after the set-up), N (agents, 100000),
# THRONG (build/throng), MPIEXEC (mpirun).  Per run it prints the set-up time (PETSc's
# Setup stage: geometry, fields, agents), the time of the walkable-node marking and of
# the marches within it, the peak resident memory per rank (the summary's total over
# ranks, divided by the ranks) and the agent-steps per second of the timed steps; the
# logs stay in $OUT (default: a temporary directory, removed).
set -u
cd "$(dirname "$0")/.." || exit 1
H=${H:-0.25}; NP=${NP:-"1 2"}; ROUTES=${ROUTES:-"nearest quickest"}; STEPS=${STEPS:-20}; N=${N:-100000}
THRONG=${THRONG:-build/throng}; MPIEXEC=${MPIEXEC:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x "$THRONG" ] || { echo "district.sh: $THRONG is not built (bash .ci/setup)" >&2; exit 1; }
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; dir=$OUT; else dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi
echo "district: configs/district.yaml, N = $N, -eikonal_h $H, $STEPS steps timed; $(git rev-parse --short HEAD 2>/dev/null)"
printf '%-9s %5s %10s %9s %9s %14s %16s\n' rule ranks "set-up/s" "mask/s" "march/s" "peak MB/rank" "agent-steps/s"
rc=0
for route in $ROUTES; do
  for np in $NP; do
    log="$dir/district-$route-np$np.log"
    if ! "$MPIEXEC" -n "$np" "$THRONG" -options_file_yaml configs/district.yaml -n "$N" -eikonal_h "$H" \
      -route_choice "$route" -steps "$STEPS" -progress "$STEPS" -output none -checkpoint none -log_view >"$log" 2>&1; then
      printf '%-9s %5s  failed: %s\n' "$route" "$np" "$(grep -m1 -iE 'error|malloc|killed' "$log")"
      rc=1
      continue
    fi
    setup=$(awk '$2 == "Setup:" {print $3; exit}' "$log")
    mask=$(awk '$1 == "ThrEikMask" {print $4; exit}' "$log")
    march=$(awk '$1 == "ThrEikMarch" {print $4; exit}' "$log")
    mem=$(sed -n 's/^summary: memory: peak resident \([0-9.]*\) MB over all ranks.*/\1/p' "$log")
    rate=$(sed -n 's/^summary: steps .* \([0-9.e+]*\) particle-steps\/s .*/\1/p' "$log")
    printf '%-9s %5s %10.1f %9.2f %9.1f %14.0f %16.3g\n' "$route" "$np" "$setup" "${mask:-0}" "${march:-0}" \
      "$(awk -v m="$mem" -v p="$np" 'BEGIN {print m / p}')" "$rate"
  done
done
exit $rc
