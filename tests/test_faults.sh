#!/usr/bin/env bash
# Faults of the file system and of the machine:
#  1. a directory too small for what the run will write: refused before the run starts
#     (one error line naming the free and the needed space), nothing written there;
#  2. a read-only file system: refused before the run starts;
#  3. a disk that fills up during the run (400 kB): every rank stops (no hang) with one
#     error line, and the snapshot file keeps the frames flushed before (h5ls reads it);
#  4. a crowd run with -trajectory killed with SIGKILL after its first checkpoint: the
#     trajectory file is readable (it is flushed before every checkpoint), and the run
#     restarted from the checkpoint ends with the straight run's trajectory file, h5diff
#     equal (issue 26: the whole file was lost, and the restart refused);
#  5. that restart with another -trajectory_fps is refused (its frame numbers would mean
#     other times), as is a -trajectory that is an HDF5 file but no trajectory.
# 1-3 need small tmpfs mounts (root): where mounting is not allowed they are skipped
# (status 77, after 4 and 5 have run).  (kill -9 of a rank and restarts are in
# test_restart.sh; bad paths in test_badinput.sh.)
#   test_faults.sh path/to/throng path/to/mpiexec
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
mnt=$(mktemp -d); dir=$(mktemp -d)
cleanup() { umount "$mnt" 2>/dev/null; rmdir "$mnt"; rm -rf "$dir"; }
trap cleanup EXIT

# one error line with the fragment, a non-zero exit, no hang and no digest
refused_log() { # log, exit status, fragment
  [ "$2" -ne 0 ] && [ "$2" -ne 124 ] && [ "$(grep -c '^throng: error' "$1")" -eq 1 ] && grep -q -- "$3" "$1" \
    && ! grep -q '^state-digest' "$1"
}
refused() { # name, message fragment, ranks, options...
  local name=$1 want=$2 np=$3 rc; shift 3
  local log="$dir/refused.log"
  timeout 60 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet "$@" >"$log" 2>&1
  rc=$?
  check "$name on $np ranks (exit $rc): wanted one error with '$want', got: $(grep -m2 throng "$log")" refused_log "$log" $rc "$want"
  grep -m1 '^throng: error' "$log"
}

# 4. SIGKILL after the first checkpoint, then a restart; 5. restarts refused
O=(-scenario evacuation -n 2000 -steps 1500 -quiet -output_every 0)
check "the straight run with -trajectory failed" logged "$dir/k0.log" "$THRONG" "${O[@]}" -output "$dir/k0" -trajectory "$dir/k0.traj.h5"
"$THRONG" "${O[@]}" -output "$dir/k" -checkpoint_every 300 -trajectory "$dir/k.traj.h5" >"$dir/k.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -f "$dir/k.chk.h5" ] && break; sleep 0.05; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
check "the killed run left no checkpoint" test -f "$dir/k.chk.h5"
check "killed: the run had already ended (the test must kill it mid-run)" not grep -q '^state-digest' "$dir/k.log"
check "killed: the trajectory file is not readable (h5ls)" h5ls "$dir/k.traj.h5/trajectory"
cp "$dir/k.traj.h5" "$dir/foreign.h5" && h5copy -i "$dir/k0.h5" -o "$dir/notraj.h5" -s /h5md -d /h5md >/dev/null 2>&1
refused "restart with another -trajectory_fps" "holds frames at 11.1111 fps, but this run writes 16.6667 fps" 1 "${O[@]}" -output "$dir/k" \
  -checkpoint_every 300 -trajectory "$dir/foreign.h5" -trajectory_fps 16.666666666666668 -restart "$dir/k.chk.h5"
refused "restart with an HDF5 file that is no trajectory" "is an HDF5 file but not a trajectory that throng wrote" 2 "${O[@]}" \
  -output "$dir/k" -checkpoint_every 300 -trajectory "$dir/notraj.h5" -restart "$dir/k.chk.h5"
check "the restart after the kill failed" logged "$dir/k2.log" "$THRONG" "${O[@]}" -output "$dir/k" -checkpoint_every 300 \
  -trajectory "$dir/k.traj.h5" -restart "$dir/k.chk.h5"
check "the restarted run's trajectory differs from the straight run's" h5diff -q "$dir/k0.traj.h5" "$dir/k.traj.h5"

if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
  echo "SKIPPED: the file-system faults (full, read-only, filling up) did not run: cannot mount a tmpfs here (needs root and mount rights)"
  finish || exit 1
  exit 77
fi
for np in 1 2; do
  refused "full directory" "MB free, but the run will write at least" $np -n 2000 -steps 10 -output "$mnt/run"
  check "the refused run left files in the directory: $(ls "$mnt")" test -z "$(ls -A "$mnt")"
done
mount -o remount,ro "$mnt"
for np in 1 2; do refused "read-only file system" "Read-only file system" $np -n 100 -steps 10 -output "$mnt/run"; done

umount "$mnt"; mount -t tmpfs -o size=400k tmpfs "$mnt"
for np in 1 2; do
  rm -f "$mnt"/*
  refused "disk full during the run" "failed (disk full" $np -n 1000 -steps 100 -output_every 10 -output "$mnt/run"
  check "disk full on $np ranks: the snapshot file is not readable" h5ls "$mnt/run.h5/particles/disks/position/value"
done

finish
