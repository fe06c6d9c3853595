#!/usr/bin/env bash
# Exact restarts and snapshot files independent of the rank count.
#  1. snapshots of a 1-rank and a 4-rank run: h5diff finds no difference in /particles
#     (the 4-rank run writes its frames in rounds of 1000 disks per rank: -output_round);
#  2. a run killed with kill -9 after a checkpoint and restarted on another rank count
#     ends with the straight run's state-digest and the same final snapshot (h5diff);
#     kill -9 of one rank mid-run ends the whole job within 60 s, and a restart from the
#     last checkpoint ends with the straight run's digest;
#  3. SIGTERM: checkpoint, clean stop (exit 143), restart: same digest;
#  4. truncated, foreign, other-version, missing and corrupted (one byte) restart files:
#     one clear error.
#   test_restart.sh path/to/throng path/to/mpiexec path/to/chk_set_version
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SETVER=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'pkill -9 -f "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
signal_ranks() { # signal, pattern: the throng processes (not mpiexec) of this test, as Slurm does
  local p
  for p in $(pgrep -f "$2"); do [ "$(cat /proc/$p/comm 2>/dev/null)" = throng ] && kill "-$1" "$p"; done
}
run() { # ranks, log, options...
  local np=$1 log=$2; shift 2
  logged "$log" timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet "$@"
}
# a throng process of this test still running (pattern: its output path)
running() { local p; for p in $(pgrep -f "$1"); do [ "$(cat /proc/"$p"/comm 2>/dev/null)" = throng ] && return 0; done; return 1; }

O="-n 20000 -init uniform -polydispersity 0.3 -attract_gamma 0.02 -gravity 0.3,0 -dt 0.005 -tile 4"
S=3000

# 1. rank-count independent files
# shellcheck disable=SC2086 # $O is a word list
check "1-rank run failed" run 1 a1.log $O -steps 300 -output_every 100 -output a1
# shellcheck disable=SC2086
check "4-rank run failed" run 4 a4.log $O -steps 300 -output_every 100 -output a4 -output_round 1000
check "1-rank and 4-rank snapshots differ (h5diff)" quiet h5diff -q a1.h5 a4.h5 /particles
check "1-rank and 4-rank digests differ" same "$(digest a1.log)" "$(digest a4.log)"
check "XDMF sidecar: no Polyvertex" grep -q 'Polyvertex' a1.xdmf
check "XDMF sidecar: no positions" grep -q 'a1.h5:/particles/disks/position/value' a1.xdmf

# the straight run
# shellcheck disable=SC2086
check "straight run failed" run 2 straight.log $O -steps $S -output_every 0 -output straight
ref=$(digest straight.log)

# 2. kill -9 after a checkpoint, restart on 3 ranks
"$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet $O -steps $S -output_every 0 -output "$dir/killed" -checkpoint_every 100 >killed.log 2>&1 &
mp=$!
for _ in $(seq 1 600); do [ -f killed.chk.h5 ] && break; sleep 0.05; done
sleep 0.3
pkill -9 -f "$dir/killed" ; wait $mp 2>/dev/null
check "the run finished before it could be killed (make it longer)" not grep -q '^state-digest' killed.log
check "no checkpoint was written before the kill" test -f killed.chk.h5
# shellcheck disable=SC2086
check "restart after kill -9 failed" run 3 restarted.log $O -steps $S -output_every 0 -output "$dir/killed" -restart killed.chk.h5
check "restart after kill -9: digest $(digest restarted.log) != $ref" same "$(digest restarted.log)" "$ref"
check "final snapshot after restart differs (h5diff)" quiet h5diff -q straight.h5 killed.h5 /particles/disks/position/value

# 2b. kill -9 of ONE rank mid-run: the whole job ends (no hang: mpirun aborts the other
#     rank), and a restart from the last checkpoint gives the straight run's digest
"$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet $O -steps $S -output_every 0 -output "$dir/one" -checkpoint_every 100 >one.log 2>&1 &
mp=$!
for _ in $(seq 1 600); do [ -f one.chk.h5 ] && break; sleep 0.05; done
sleep 0.3
victim=""
for p in $(pgrep -f "$dir/one"); do [ "$(cat /proc/$p/comm 2>/dev/null)" = throng ] && { victim=$p; break; }; done
[ -n "$victim" ] && kill -9 "$victim"
t0=$(date +%s)
( sleep 60; kill -9 $mp 2>/dev/null ) & watchdog=$!
wait $mp; rc=$?
kill $watchdog 2>/dev/null; wait $watchdog 2>/dev/null
t1=$(date +%s)
echo "kill -9 of one rank: the job ended after $((t1 - t0)) s with exit $rc"
check "kill -9 of one rank: no throng rank found to kill" test -n "$victim"
check "kill -9 of one rank: mpirun exited 0" holds 'rc != 0' rc="$rc"
check "kill -9 of one rank: the job took $((t1 - t0)) s to end (a hang: want < 60 s)" holds 'dt < 60' dt="$((t1 - t0))"
check "kill -9 of one rank: ranks left running" not running "$dir/one"
check "kill -9 of one rank: the run printed a digest" not grep -q '^state-digest' one.log
# shellcheck disable=SC2086
check "restart after killing one rank failed" run 2 onerest.log $O -steps $S -output_every 0 -output "$dir/one" -restart one.chk.h5
check "restart after kill -9 of one rank: digest $(digest onerest.log) != $ref" same "$(digest onerest.log)" "$ref"

# 3. SIGTERM: checkpoint and stop, then restart on 1 rank
"$MPIEXEC" -n 2 --oversubscribe "$THRONG" $O -steps $S -output_every 0 -output "$dir/termed" >termed.log 2>&1 &
mp=$!
for _ in $(seq 1 600); do [ -f termed.h5 ] && break; sleep 0.05; done
sleep 0.2
signal_ranks TERM "$dir/termed"; wait $mp; rc=$?
check "SIGTERM: the run did not say it stopped" grep -q 'stopped by SIGTERM' termed.log
check "SIGTERM: no checkpoint" test -f termed.chk.h5
check "SIGTERM: exit 0, not the stop's status" holds 'rc != 0' rc="$rc"
# shellcheck disable=SC2086
check "restart after SIGTERM failed" run 1 termrest.log $O -steps $S -output_every 0 -output "$dir/termed" -restart termed.chk.h5
check "restart after SIGTERM: digest differs" same "$(digest termrest.log)" "$ref"

# 3b. SIGUSR1 checkpoints and the run goes on; wall-time checkpoints; metadata
"$MPIEXEC" -n 2 --oversubscribe "$THRONG" $O -steps $S -output_every 0 -output "$dir/usr" -checkpoint_wall 0.5 >usr.log 2>&1 &
mp=$!
for _ in $(seq 1 600); do [ -f usr.h5 ] && break; sleep 0.05; done
sleep 0.2
signal_ranks USR1 "$dir/usr"; wait $mp; rc=$?
check "SIGUSR1 / wall-time checkpoints: the run failed" holds 'rc == 0' rc="$rc"
check "SIGUSR1 / wall-time checkpoints: no checkpoint line" grep -q 'checkpoint .* written at step' usr.log
check "SIGUSR1 / wall-time checkpoints: digest $(digest usr.log) != $ref" same "$(digest usr.log)" "$ref"
for a in options git_revision petsc_version hdf5_version mpi_version ranks wall_time; do
  check "snapshot lacks attribute $a" quiet h5dump -a "/parameters/throng/$a" straight.h5
done
lists_options() { h5dump -a /parameters/throng/options straight.h5 2>/dev/null | grep -q -- '-attract_gamma'; }
check "options attribute does not list the options in force" lists_options

# 4. bad restart files
refused() { # log, exit status, fragment: a non-zero exit and one error line with it
  [ "$2" -ne 0 ] && [ "$(grep -c '^throng: error' "$1")" -eq 1 ] && grep -q -- "$3" "$1"
}
expect() { # message, restart file
  local np rc
  for np in 1 2; do
    # shellcheck disable=SC2086
    timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet $O -steps $S -output none -restart "$2" >bad.log 2>&1
    rc=$?
    check "restart from $2 on $np ranks: wanted '$1', got: $(head -2 bad.log)" refused bad.log "$rc" "$1"
  done
}
head -c 30000 straight.chk.h5 > truncated.chk.h5
cp straight.chk.h5 v99.chk.h5 && "$SETVER" v99.chk.h5 99
echo "not hdf5" > text.chk.h5
# one byte changed in the middle of the data: HDF5 might read it, the checksum does not
cp straight.chk.h5 flipped.chk.h5
off=$(( $(stat -c %s straight.chk.h5) / 2 ))
byte=$(dd if=straight.chk.h5 bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "\\$(printf %o $(( 255 - byte )))" | dd of=flipped.chk.h5 bs=1 seek=$off conv=notrunc 2>/dev/null
check "the corrupted copy equals the checkpoint" not cmp -s straight.chk.h5 flipped.chk.h5
expect "truncated or corrupted" truncated.chk.h5
expect "not a throng checkpoint" straight.h5
expect "format version 99" v99.chk.h5
expect "not a readable HDF5" text.chk.h5
expect "cannot open restart file 'missing.chk.h5'" missing.chk.h5
expect "restart file (-restart) '.' is a directory, not a file" .
expect "is damaged: its checksum differs" flipped.chk.h5
check "the straight run left no final checkpoint" test -f straight.chk.h5

finish
