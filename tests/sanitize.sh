#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs this from
# .ci/run, after the Release-only tests).
#
#  1. Builds build-san (-DCMAKE_BUILD_TYPE=Sanitize: -O2 -g -fsanitize=address,undefined)
#     with the program and every test executable.
#  2. Runs there every ctest test except those labelled `release`:
#       fuzz      has its own ASan + UBSan build (clang, libFuzzer);
#       valgrind  memcheck cannot run a sanitized program;
#       stress    10^5 steps on 8 ranks: it runs in the Release build, and here once more
#                 with 10^4 steps (the same code paths, a tenth of the time);
#       badinput  every bad-input case runs in the Release build; here badinput_sample
#                 runs a fifth of them, chosen by the commit count, so that each case
#                 runs sanitized within five commits.
#     Sanitizer reports are written to files (log_path), not only to stderr, so that a
#     report inside a test that expects its run to fail (badinput, faults) or that hides
#     the program's output is still caught: any report file fails this script.
#     Leaks are not checked in this step.  Open MPI unloads its plugins before the leak
#     report, so their start-up allocations can no longer be told from ours.
#  3. Checks for leaks with full stacks, where MPI's start-up can be suppressed by library
#     (tests/fuzz/lsan.supp): the unit tests on 1, 2 and 4 ranks, the violation bound, the
#     event-driven engine's lemmas and engines, and the program on 2 ranks with
#     migrations, repartitions, snapshots and a checkpoint.  Unwinding every allocation
#     in full is slow, hence this subset.
#
#   bash tests/sanitize.sh [extra ctest arguments for step 2, e.g. -R crowd]
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
B=$SRC/build-san
J=$(nproc)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
logs=$work/reports; mkdir "$logs"
fail=0

SECONDS=0
cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Sanitize >/dev/null || exit 1
cmake --build "$B" -j "$J" >/dev/null || { echo "sanitize: the build failed" >&2; exit 1; }
MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$B/CMakeCache.txt")
echo "sanitize: built build-san in $SECONDS s"

# reports: print the first lines of every report in $logs, return 1 if any (a log file
# that holds only LeakSanitizer's table of used suppressions is not a report)
reports() {
  local n=0
  for f in "$logs"/*; do
    [ -e "$f" ] || continue
    grep -qE 'ERROR: [A-Za-z]+Sanitizer|runtime error' "$f" || continue
    n=$((n + 1))
    echo "---- sanitizer report $(basename "$f") ($1):" >&2
    head -40 "$f" >&2
  done
  rm -f "$logs"/*
  [ $n -eq 0 ]
}

# 2. the suite, errors only
export ASAN_OPTIONS="detect_leaks=0:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
echo "sanitize: the suite in build-san (ASan + UBSan), all but the tests labelled release"
(cd "$B" && ctest --output-on-failure -j "$J" -LE release "$@") 2>&1 | tee "$work/ctest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
# a skipped test passes ctest: name it in the last line, so that CI's output shows it
skipped=$(sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([A-Za-z0-9_]*\) .*\*\*\*Skipped.*/\1/p' "$work/ctest.log" | tr '\n' ' ')
reports "suite" || fail=1
echo "sanitize: the suite took $SECONDS s since the start"
echo "sanitize: the stress test, 10^4 steps"
bash "$SRC/tests/test_stress.sh" "$B/throng" "$MPIEXEC" 10000 >"$work/stress.log" 2>&1 || { fail=1; cat "$work/stress.log" >&2; }
tail -3 "$work/stress.log"
reports "stress" || fail=1

# 3. leaks, with full stacks
export ASAN_OPTIONS="fast_unwind_on_malloc=0:detect_leaks=1:log_path=$logs/asan"
export LSAN_OPTIONS="suppressions=$SRC/tests/fuzz/lsan.supp"
echo "sanitize: leaks (units, violation, edmd lemmas, the program on 2 ranks), from $SECONDS s"
(cd "$B" && ctest --output-on-failure -R '^(units_np[124]|violation_np[12]|edmd_lemmas)$') || fail=1
dir=$work/run; mkdir "$dir"
timeout 600 "$MPIEXEC" -n 2 --oversubscribe "$B/throng" -n 2000 -init uniform -attract_gamma 0.5 -attract_center 10,10 -dt 0.01 -steps 100 \
  -tile 2 -balance_threshold 1.05 -balance_interval 1 -output_every 50 -output "$dir/run" -check_conservation -quiet >"$dir/log" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q '^state-digest' "$dir/log"; then
  echo "FAIL: the program on 2 ranks (exit $rc):" >&2; head -40 "$dir/log" >&2; fail=1
fi
reports "leaks" || fail=1

[ -n "$skipped" ] && echo "sanitize: SKIPPED, did not run on this machine (ctest -V -R NAME says why): $skipped"
echo "sanitize: $SECONDS s in all"
if [ $fail -eq 0 ]; then echo "sanitize: clean${skipped:+, but skipped: $skipped}"; else echo "sanitize: FAILED" >&2; fi
exit $fail
