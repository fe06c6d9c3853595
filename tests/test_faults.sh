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
#     other times), as is a -trajectory that is an HDF5 file but no trajectory;
#  6. runs killed (SIGKILL of rank 0, injected: THRONG_INJECT_FAULT=kill, at step
#     -steps / 2) after they had flushed records past their last checkpoint, restarted:
#     every time series ends as the straight run's, h5diff equal: the trajectory and the
#     snapshots of a crowd on 2 ranks, the per-floor trajectory files of floors2 on 1
#     rank, the stress series of a barostat run on 2 ranks; the balance log keeps its
#     rows (issue 44: the first record after the checkpoint came out zeroed);
#  7. a restart whose trajectory file (or a floor's) was deleted is refused, naming the
#     file; a new -trajectory name starts a new file with a note; outputs that are one
#     file (a floor's trajectory and the snapshots, or the checkpoint; the contact file
#     and the trajectory) are refused before the run.
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

# 6. killed after records past the checkpoint were flushed, restarted
cd "$(dirname "$0")/.." || exit 1 # the configs
series_run() { # log, ranks, options...
  local log=$1 np=$2; shift 2
  "$MPIEXEC" -n "$np" "$THRONG" -quiet -output_flush_every 0 "$@" >"$log" 2>&1
}
kill_case() { # name, ranks, options (with -output and series files named by %s)...
  local name=$1 np=$2 rc; shift 2
  local straight=() cut=()
  for a in "$@"; do straight+=("${a//%s/$dir/$name-s}"); cut+=("${a//%s/$dir/$name-k}"); done
  check "$name: the straight run failed" series_run "$dir/$name-s.log" "$np" "${straight[@]}"
  THRONG_INJECT_FAULT=kill series_run "$dir/$name-k.log" "$np" "${cut[@]}"
  rc=$?
  check "$name: the injected kill did not kill the run (exit $rc)" not grep -q '^state-digest' "$dir/$name-k.log"
  check "$name: the restart failed" series_run "$dir/$name-r.log" "$np" "${cut[@]}" -restart "$dir/$name-k.chk.h5"
  check "$name: the restarted run's digest differs" same "$(digest "$dir/$name-r.log")" "$(digest "$dir/$name-s.log")"
}
digest() { sed -n 's/^state-digest: //p' "$1"; }
ROOM=(-options_file_yaml configs/room.yaml -dt 0.005 -steps 3000 -checkpoint_every 1000)
kill_case room 2 "${ROOM[@]}" -output %s -trajectory %s.traj.h5
check "room: the restarted trajectory differs from the straight run's" h5diff -q "$dir/room-s.traj.h5" "$dir/room-k.traj.h5"
check "room: the restarted snapshots differ from the straight run's" h5diff -q "$dir/room-s.h5" "$dir/room-k.h5" /particles /particles
check "room: the balance log lost rows" same "$(cut -d, -f1 "$dir/room-k.balance.csv" | md5sum)" "$(cut -d, -f1 "$dir/room-s.balance.csv" | md5sum)"
kill_case floors 1 -options_file_yaml configs/floors2.yaml -steps 2000 -checkpoint_every 600 -output %s -trajectory %s.traj.h5
for fl in "" .upper .flight .ground; do
  check "floors: the restarted trajectory$fl differs from the straight run's" h5diff -q "$dir/floors-s.traj$fl.h5" "$dir/floors-k.traj$fl.h5"
done
kill_case stress 2 -n 400 -bidisperse 1.4 -radius 0.5 -periodic xy -box 0,0,30.49,30.49 -init uniform -gravity 0,0 \
  -dt 0.001 -solver pbdw -barostat 1 -barostat_tau 10 -tile 2 -steps 4000 -progress 200 -stress -checkpoint_every 1500 -output %s
check "stress: the restarted stress series differs from the straight run's" h5diff -q "$dir/stress-s.h5" "$dir/stress-k.h5" /observables /observables

# 7. a deleted series file; outputs that are one file
rm -f "$dir/floors-k.traj.upper.h5"
refused "restart without a floor's trajectory file" "-trajectory '$dir/floors-k.traj.upper.h5', written by the run of restart file" 1 \
  -options_file_yaml configs/floors2.yaml -steps 2000 -output "$dir/floors-k" -trajectory "$dir/floors-k.traj.h5" -restart "$dir/floors-k.chk.h5"
check "a restart with a new trajectory name failed" logged "$dir/floors-n.log" "$THRONG" -options_file_yaml configs/floors2.yaml \
  -steps 2000 -output "$dir/floors-k" -trajectory "$dir/floors-n.traj.h5" -restart "$dir/floors-k.chk.h5"
check "a new trajectory file at a restart is not said to start there" grep -q "is a new file: it holds the records from step [0-9]* on" "$dir/floors-n.log"
refused "a floor's trajectory is the snapshot file" "the snapshots of -output '$dir/Z.upper.h5' and the trajectory of floor 'upper'" 1 \
  -options_file_yaml configs/floors2.yaml -steps 10 -trajectory "$dir/Z.h5" -output "$dir/Z.upper"
refused "a floor's trajectory is the checkpoint" "the trajectory of floor 'ground' (-trajectory) '$dir/Z.ground.h5' and -checkpoint" 2 \
  -options_file_yaml configs/floors2.yaml -steps 10 -trajectory "$dir/Z.h5" -checkpoint "$dir/Z.ground.h5" -output "$dir/q"
refused "the contact file is the checkpoint" "the contacts of -contact_output '$dir/w_contacts.h5' and -checkpoint" 1 \
  -n 100 -steps 10 -contact_output -output "$dir/w" -checkpoint "$dir/w_contacts.h5"

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
