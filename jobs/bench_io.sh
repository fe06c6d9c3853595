#!/usr/bin/env bash
# Output benchmark: snapshot/checkpoint write bandwidth of throng's collective parallel
# HDF5 output at N = 10^6 on 1 and 2 ranks, against dd writing the same number of bytes
# to the same disk in the same run, and the share of run time spent in output for the
# 200 steps of the dense scene: at the default snapshot interval (every 100 steps, plus
# the final checkpoint) and with ten snapshots (every 20 steps).
#
#   bash jobs/bench_io.sh [N [DIR]]        (default 1000000 disks, output in ./bench-io.tmp)
#   THRONG_EXTRA="-io_collective_buffering" bash jobs/bench_io.sh    (extra throng options)
#
# Bandwidth = bytes of the .h5 and .chk.h5 files / time of the ThrIO log event (id-order
# redistribution, HDF5 writes, flushes, XDMF), from -log_view.  Output share = ThrIO time
# in the Run stage / wall time of the run loop (which includes the final frame and checkpoint).  dd writes to the page
# cache like HDF5 does (no fsync in either); each run and dd start after a sync.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
DIR=${2:-bench-io.tmp}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x build/throng ] || bash .ci/setup
mkdir -p "$DIR"; trap 'rm -rf "$DIR"' EXIT
COLS=$(awk -v n="$N" 'BEGIN { printf "%d", sqrt(n) }')

run() { # ranks, extra options -> "iotime iotime-in-run-stage wall bytes"
  local np=$1; shift
  rm -f "$DIR"/run.*
  sync # start from clean page cache: dirty pages of earlier runs throttle writes
  mpirun -n "$np" build/throng -options_file_yaml configs/bench-dense.yaml -n "$N" -box "0,0,$COLS.5,$((COLS + 1))" \
    -quiet -output "$DIR/run" -log_view ${THRONG_EXTRA:-} "$@" >"$DIR/log" 2>&1
  local io iorun wall bytes
  io=$(awk '$1 == "ThrIO" { s += $4 } END { printf "%.6f", s }' "$DIR/log")
  iorun=$(awk '/^--- Event Stage/ { run = ($0 ~ /Run/) } run && $1 == "ThrIO" { s += $4 } END { printf "%.6f", s }' "$DIR/log")
  wall=$(awk '/^summary: steps/ { for (i = 1; i <= NF; i++) if ($i == "wall") print $(i+1) }' "$DIR/log")
  bytes=$(cat "$DIR"/run.h5 "$DIR"/run.chk.h5 | wc -c)
  echo "$io $iorun $wall $bytes"
}

dd_rate() { # bytes -> bytes/s
  local t0 t1
  sync
  t0=$(date +%s.%N)
  dd if=/dev/zero of="$DIR/dd.bin" bs=4M count=$(( ($1 + 4194303) / 4194304 )) status=none
  t1=$(date +%s.%N)
  rm -f "$DIR/dd.bin"
  awk -v b="$1" -v a="$t0" -v c="$t1" 'BEGIN { printf "%.4e", b / (c - a) }'
}

echo "bench_io: $N disks, dense scene, output in $DIR ($(df -h "$DIR" | awk 'NR == 2 { print $1 }'))"
printf "%-7s %12s %13s %13s %7s %16s %16s\n" "ranks" "bytes" "throng [B/s]" "dd [B/s]" "ratio" "share (default)" "share (10 frames)"
for np in 1 2; do
  # bandwidth: a snapshot every step for 10 steps (11 frames) and a final checkpoint
  read -r io _ _ bytes < <(run "$np" -steps 10 -output_every 1)
  dd=$(dd_rate "$bytes")
  # share at the default interval (10 snapshots in the 200 steps of the scene)
  read -r _ io2 wall2 _ < <(run "$np")
  read -r _ io3 wall3 _ < <(run "$np" -output_every 20)
  awk -v np="$np" -v io="$io" -v b="$bytes" -v dd="$dd" -v io2="$io2" -v w2="$wall2" -v io3="$io3" -v w3="$wall3" 'BEGIN {
    r = b / io; printf "%-7d %12d %13.4e %13.4e %7.2f %15.1f%% %15.1f%%\n", np, b, r, dd, r / dd, 100 * io2 / w2, 100 * io3 / w3 }'
done
