#!/usr/bin/env bash
# Faults of the file system, on small tmpfs mounts made by the test (root; skipped with
# status 77 where mounting is not allowed):
#  1. a directory too small for what the run will write: refused before the run starts
#     (one error line naming the free and the needed space), nothing written there;
#  2. a read-only file system: refused before the run starts;
#  3. a disk that fills up during the run (400 kB): every rank stops (no hang) with one
#     error line, and the snapshot file keeps the frames flushed before (h5ls reads it).
# (kill -9 of a rank and restarts are in test_restart.sh; bad paths in test_badinput.sh.)
#   test_faults.sh path/to/throng path/to/mpiexec
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
passed=0; failed=0
mnt=$(mktemp -d)
cleanup() { umount "$mnt" 2>/dev/null; rmdir "$mnt"; }
trap cleanup EXIT
check() { if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1" >&2; fi; }
if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  echo "SKIPPED: the file-system faults (full, read-only, filling up) did not run: cannot mount a tmpfs here (needs root and mount rights)"
  exit 77
fi

refused() { # name, message fragment, ranks, options...
  local name=$1 want=$2 np=$3; shift 3
  local log; log=$(mktemp)
  timeout 60 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet "$@" >"$log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(grep -c '^throng: error' "$log")" -eq 1 ] && grep -q -- "$want" "$log" && ! grep -q '^state-digest' "$log"
  ok=$? # before the message: its $(...) would reset $?
  check "$name on $np ranks (exit $rc): wanted one error with '$want', got: $(grep -m2 throng "$log")" $ok
  grep -m1 '^throng: error' "$log"
  rm -f "$log"
}
for np in 1 2; do
  refused "full directory" "MB free, but the run will write at least" $np -n 2000 -steps 10 -output "$mnt/run"
  [ -z "$(ls -A "$mnt")" ]; ok=$?; check "the refused run left files in the directory: $(ls "$mnt")" $ok
done
mount -o remount,ro "$mnt"
for np in 1 2; do refused "read-only file system" "Read-only file system" $np -n 100 -steps 10 -output "$mnt/run"; done

umount "$mnt"; mount -t tmpfs -o size=400k tmpfs "$mnt"
for np in 1 2; do
  rm -f "$mnt"/*
  refused "disk full during the run" "failed (disk full" $np -n 1000 -steps 100 -output_every 10 -output "$mnt/run"
  h5ls "$mnt/run.h5/particles/disks/position/value" >/dev/null 2>&1; check "disk full on $np ranks: the snapshot file is not readable" $?
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
