#!/usr/bin/env bash
# Two builds side by side, alternated in one run (machines here are noisy: compare the
# medians of one run): the granular dense scene (configs/bench-dense.yaml) on 1 and 2
# ranks, and the 10^6-agent crowd hall (configs/venue-1M.yaml) on 2 ranks.
#   bash jobs/bench_ab.sh OLD_THRONG NEW_THRONG [REPS [COLUMNS [STEPS]]]
# (defaults: 3 repetitions, 500 columns = 250 000 disks, 1000 steps; the crowd runs 50 steps)
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OLD=$1; NEW=$2; REPS=${3:-3}; COLS=${4:-500}; STEPS=${5:-1000}
N=$((COLS * COLS))
rate() { grep -o '[0-9.e+]* particle-steps/s' | head -1 | cut -d' ' -f1; }
declare -A r
for rep in $(seq "$REPS"); do
  for which in old new; do
    b=$OLD; [ $which = new ] && b=$NEW
    for np in 1 2; do
      r[$which.g$np]+="$(mpirun -n $np "$b" -options_file_yaml configs/bench-dense.yaml -n $N -box "0,0,$COLS.5,$((COLS + 1))" \
        -steps "$STEPS" -quiet -output none 2>&1 | rate) "
    done
    r[$which.c2]+="$(mpirun -n 2 "$b" -options_file_yaml configs/venue-1M.yaml -steps 50 -quiet -output none 2>&1 | rate) "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
printf '%-34s %14s %14s %8s\n' "case (particle-steps/s, median)" old new new/old
for k in g1 g2 c2; do
  o=$(echo "${r[old.$k]}" | median); n=$(echo "${r[new.$k]}" | median)
  case $k in g1) d="granular $N disks, 1 rank";; g2) d="granular $N disks, 2 ranks";; c2) d="crowd 10^6 agents, 2 ranks";; esac
  printf '%-34s %14s %14s %8.3f\n' "$d" "$o" "$n" "$(awk -v a="$o" -v b="$n" 'BEGIN{print b/a}')"
  echo "  all runs: old ${r[old.$k]}| new ${r[new.$k]}"
done
