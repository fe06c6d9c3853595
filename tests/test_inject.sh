#!/usr/bin/env bash
# Failures of one rank alone, injected (THRONG_INJECT_FAULT=PLACE makes rank 0 fail at
# PLACE; see IoInjectFault in io_h5md.c), on 2 ranks: every run stops with one error
# line on rank 0 and a non-zero exit, within the time limit (no rank left waiting in a
# collective), and what was written before stays readable.
#  - series         rank 0's selection of a frame's step/time/count element (H5MD)
#  - xdmf           rank 0 cannot open the ParaView sidecar
#  - crowd-csv      rank 0 cannot write the crowd tables at the end
#  - crowd-records  rank 0 cannot read the crowd records of a checkpoint at restart
#  - nan            a coordinate of rank 0 becomes NaN mid-run: the blow-up message; the
#                   last snapshot and the last checkpoint stay readable, and a restart
#                   from that checkpoint runs to the end
# (file-system faults on tmpfs are in test_faults.sh.)
#   test_inject.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}; SRC=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$SRC" || exit 1

one_error() { # log, exit status, fragment: one error line with it, a non-zero exit, no hang, no digest
  [ "$2" -ne 0 ] && [ "$2" -ne 124 ] && [ "$(grep -c '^throng: error' "$1")" -eq 1 ] && grep -q -- "$3" "$1" \
    && ! grep -q '^state-digest' "$1"
}
stops() { # place, message fragment, options...
  local place=$1 want=$2; shift 2
  local log=$dir/$place.log rc
  THRONG_INJECT_FAULT=$place timeout ${T:-60} "$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet "$@" >"$log" 2>&1
  rc=$?
  check "$place: wanted one error with '$want' (exit $rc; 124 is a hang), got: $(grep -m2 'throng\|ERROR' "$log")" \
    one_error "$log" "$rc" "$want"
  grep -m1 '^throng: error' "$log"
}

G="-n 400 -init uniform -attract_gamma 0.1 -dt 0.02 -steps 40 -output_every 10 -output_flush_every 0"
stops series "cannot select the element of frame" $G -output "$dir/s"
stops xdmf "cannot write the ParaView sidecar" $G -output "$dir/x"
C="-options_file_yaml configs/room.yaml"
stops crowd-csv "cannot write the crowd table" $C -steps 200 -output "$dir/c"
check "the crowd run for the restart case failed" logged "$dir/r.log" "$THRONG" $C -steps 200 -checkpoint_every 200 -output "$dir/r" -quiet
stops crowd-records "the crowd records (/checkpoint/crowd) are damaged" $C -steps 400 -restart "$dir/r.chk.h5" -output "$dir/r2"

# NaN at step 50 of 100, checkpoints every 20 steps: stopped at step 50 with the blow-up
# message; the checkpoint of step 40 and the snapshots up to it are intact
stops nan "a disk position is no longer a finite number" $G -steps 100 -checkpoint_every 20 -output "$dir/n"
check "nan: the snapshot file is not readable" quiet h5ls "$dir/n.h5/particles/disks/position/value"
frames=$(h5dump -d /particles/disks/position/step "$dir/n.h5" 2>/dev/null | tr -c '0-9 ,\n' ' ' | grep -o '\b40\b' | head -1)
check "nan: the snapshot of step 40 is not in the file" same "$frames" 40
check "nan: the restart from the last checkpoint failed" logged "$dir/n2.log" "$MPIEXEC" -n 2 "$THRONG" $G -steps 100 \
  -checkpoint_every 20 -restart "$dir/n.chk.h5" -output "$dir/n2" -quiet
check "nan: the restart did not reach step 100" grep -q "^summary: steps 100 " "$dir/n2.log"

finish
