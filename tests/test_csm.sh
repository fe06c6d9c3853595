#!/usr/bin/env bash
# The time-gap speed law (-crowd_model csm, issue 16):
#  - its neighbours: every step, -csm_check_reach compares the agents found within the
#    law's range R (reach.c) with a brute-force search over all agents, for every owned
#    agent and ring ghost; on 1 rank and on decompositions whose blocks are narrower than
#    R (6 x 1 and 1 x 6 blocks of a 10 m room, R = 2.3 m), where the far neighbours come
#    from ranks two and three blocks away; the sets are compared (their size and a
#    fingerprint of their ids), and the summary must say that the comparison ran.  The
#    state digests are identical throughout;
#  - the validation against measured data and the RiMEA tests, reduced
#    (jobs/validate_crowd.sh --quick): every criterion of docs/validation.md is asserted,
#    the known misses against their guards.
#   test_csm.sh path/to/throng path/to/mpiexec path/to/source [quick]
# quick (the sanitized build's csm_quick; the Release build runs the whole test): the
# neighbour sets on the 1 x 1 and 6 x 1 grids only (blocks narrower than R), room A with
# 150 agents, no validation.
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$3; MODE=${4:-full}
GRIDS=("1 1,1" "6 6,1" "6 1,6" "4 2,2" "6 3,2")
NA=300
[ "$MODE" = quick ] && GRIDS=("1 1,1" "6 6,1") && NA=150
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
cd "$SRC" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }

# two crowds, each evacuated completely: 300 agents of 0.15 m (quick: 150), and 100 of 0.2 m with a
# 0.2 m skin (the case that caught a send distance of R + cell + skin: a ring ghost in a
# corner cell is a cell's diagonal from the block, reach.c)
A="-options_file_yaml configs/room.yaml -n $NA -init_phi 0.5 -init_region 0.3,0.3,9,7.7 -output none -csm_check_reach"
B="-options_file_yaml configs/room.yaml -n 100 -radius 0.2 -skin 0.2 -output none -csm_check_reach"
for c in A B; do
  for g in "${GRIDS[@]}"; do
    # shellcheck disable=SC2086 # a grid "ranks rank_grid"
    set -- $g
    eval "opts=\$$c"
    # shellcheck disable=SC2154,SC2086 # opts: set by the eval; a word list
    check "room $c with -csm_check_reach on a $2 rank grid failed" logged "$out/reach.$c.$2.log" \
      timeout 600 "$MPIEXEC" -n "$1" --oversubscribe "$THRONG" $opts -rank_grid "$2"
    check "room $c on the $2 rank grid: the summary does not say that the neighbour sets were compared" \
      grep -q "^summary: crowd: -csm_check_reach: [1-9][0-9]* neighbour sets within R" "$out/reach.$c.$2.log"
  done
  ref=$(digest "$out/reach.$c.1,1.log")
  for g in "${GRIDS[@]:1}"; do
    g=${g#* }
    check "room $c: the digest on the $g rank grid differs from 1 rank" same "$(digest "$out/reach.$c.$g.log")" "$ref"
  done
  echo "reach ($c): neighbour sets checked against brute force every step on grids ${GRIDS[*]#* }; digest $ref"
done
if [ "$MODE" = quick ]; then finish; exit; fi

check "jobs/validate_crowd.sh --quick failed (a run failed, a criterion missed, or a known miss got worse)" \
  logged "$out/val.log" env THRONG="$THRONG" timeout 900 bash jobs/validate_crowd.sh --quick "$out/val"
grep -E '^\| [0-9]|\*\*(pass|FAIL|miss)|criteria met|^Known|^FAILED|run failed|runs failed' "$out/val.log" | grep -v '^| [0-9.]* | [0-9.]* (' | head -40

finish
