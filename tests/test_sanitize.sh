#!/usr/bin/env bash
# The suite's fast MPI tests under AddressSanitizer + UndefinedBehaviorSanitizer (and
# LeakSanitizer): builds build-san (-DCMAKE_BUILD_TYPE=Sanitize, the program and the C
# tests) and runs there the unit tests on 1, 2 and 4 ranks, the violation bound and the
# event-driven engine's lemmas, and the program itself on 2 ranks (migrations, load
# balancing, snapshots, checkpoint).  Any sanitizer report fails; leaks are reported
# with full stacks, and only MPI's own start-up allocations are suppressed
# (tests/fuzz/lsan.supp).  CI runs this part of the suite to stay within its time; the
# rest can be run by `ctest` in build-san with the same environment.
#   test_sanitize.sh SOURCE_DIR path/to/mpiexec
set -u
SRC=$(cd "$1" && pwd); MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=$SRC/tests/fuzz/lsan.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
B=$SRC/build-san
cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Sanitize >/dev/null || exit 1
cmake --build "$B" -j "$(nproc)" --target throng test_units test_violation test_edmd >/dev/null || { echo "sanitize: build failed" >&2; exit 1; }
(cd "$B" && ctest --output-on-failure -R '^(units_np[124]|violation_np[12]|edmd_lemmas)$') || exit 1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
timeout 600 "$MPIEXEC" -n 2 --oversubscribe "$B/throng" -n 2000 -init uniform -attract_gamma 0.5 -attract_center 10,10 -dt 0.02 -steps 100 \
  -tile 2 -balance_threshold 1.05 -balance_interval 1 -output_every 50 -output "$dir/run" -check_conservation -quiet >"$dir/log" 2>&1
rc=$?
if [ $rc -eq 0 ] && ! grep -qE 'Sanitizer|runtime error' "$dir/log" && grep -q '^state-digest' "$dir/log"; then
  grep -E '^summary: balance|^state-digest' "$dir/log"; echo "sanitize: the program on 2 ranks is clean"
else
  echo "FAIL: the program under ASan/UBSan on 2 ranks (exit $rc):" >&2; head -40 "$dir/log" >&2; exit 1
fi
