#!/usr/bin/env bash
# Bounded fuzzing of throng's input readers with libFuzzer (clang, ASan + UBSan):
#   geometry  the WKT geometry reader (-geometry);
#   config    the YAML config reader and every option's checks (-options_file_yaml);
#   restart   the checkpoint reader (-restart), from a real checkpoint as the seed.
#   bash tests/fuzz/run.sh [SECONDS [TARGETS...]]   (default 60 s for each of the three)
# Builds build-fuzz (clang, -DTHRONG_FUZZ=ON) if needed.  Seeds: tests/fuzz/corpus/TARGET
# (committed) plus, for restart, a checkpoint written here.  A crash, an ASan/UBSan report,
# a leak or a timeout (10 s per input) stops the target: its input is kept in
# fuzz.out/ (crash-*, leak-*, timeout-*) and the script exits non-zero.  Each input found
# and fixed belongs in the seed corpus and in tests/test_badinput.sh.
# The random seed is fixed (FUZZ_SEED, default 1) so that CI explores the same inputs
# each time and a finding reproduces; FUZZ_SEED=0 picks a new one (longer hunts).
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-60}; shift $(( $# > 0 ? 1 : 0 ))
TARGETS=${*:-geometry config restart}
OUT=${FUZZ_OUT:-fuzz.out}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# leaks: the full unwinder, so that MPI's own start-up allocations are recognised and
# suppressed (lsan.supp); a huge allocation returns NULL as malloc does outside ASan
# (HDF5 asks for one when a corrupted file claims a huge heap, and reports the failure);
# UBSan: stop at the first report
export ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
command -v clang >/dev/null || { echo "fuzz: clang missing (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DTHRONG_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null || exit 1
cmake --build build-fuzz -j "$(nproc)" >/dev/null || { echo "fuzz: build failed" >&2; exit 1; }
mkdir -p "$OUT"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# the restart seed: a checkpoint of the scene fuzz_restart.c sets up (its options)
mkdir -p "$work/seed-restart"
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS= build-fuzz/throng -n 50 -box 0,0,20,20 -tile 2 -steps 10 -output "$work/r" -quiet >/dev/null 2>&1 \
  && cp "$work/r.chk.h5" "$work/seed-restart/" || { echo "fuzz: could not write the restart seed" >&2; exit 1; }
# The targets run side by side, as many at a time as there are cores (each libFuzzer
# process uses one): the same inputs per target as one after the other, in less time.
fuzz_one() { # target
  local t=$1 seeds log rc runs cov
  seeds="tests/fuzz/corpus/$t"; [ "$t" = restart ] && seeds="$work/seed-restart tests/fuzz/corpus/restart"
  mkdir -p "$work/corpus-$t"
  log="$OUT/$t.log"
  # shellcheck disable=SC2086
  build-fuzz/fuzz_$t "$work/corpus-$t" $seeds -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 \
    -max_len=65536 -seed="${FUZZ_SEED:-1}" -artifact_prefix="$OUT/$t-" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc -eq 0 ]; then echo "fuzz $t: ${runs:-?} inputs in ${SECONDS_EACH} s, ${cov:-cov ?}, no finding" >"$work/verdict-$t"
  else { echo "fuzz $t: FINDING (exit $rc), see $log and $OUT/$t-*"; grep -m3 -E 'ERROR|SUMMARY' "$log"; } >"$work/verdict-$t"; fi
  return $rc
}
for t in $TARGETS; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
  fuzz_one "$t" &
done
wait
status=0 # from the verdicts: a target without one, or with a finding, fails the run
for t in $TARGETS; do
  if [ -s "$work/verdict-$t" ]; then cat "$work/verdict-$t"; else echo "fuzz $t: no verdict"; status=1; fi
  grep -q FINDING "$work/verdict-$t" 2>/dev/null && status=1
done
exit $status
