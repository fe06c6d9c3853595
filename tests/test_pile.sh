#!/usr/bin/env bash
# Deep piles (issue 18): the constraint error of -solver pbdw does not grow with the depth
# of the contact network, and its carried state restarts exactly.
#  1. a narrow pile 200 layers deep (4000 disks in hexagonal contact, g = 1, h = 1e-3,
#     4000 steps, the overlap measured every 10 steps): pbdw's largest overlap over the
#     run is <= 1.2 % of a diameter (0.96 % measured: issue 18 asked for 1 %, docs/algorithm.md
#     says why the default -pbdw_warm 0.98 stops short) and the skin is never exceeded;
#     one-sweep PBD on the same pile exceeds 5 % (14 % measured: the scene is deep enough
#     to tell them apart);
#  2. pbdw on 1, 2 and 3 ranks: the same state-digest;
#  3. a pbdw run checkpointed at step 250 on 2 ranks and restarted on 3 ends with the
#     straight run's digest (the multipliers are in the checkpoint and the digest).
#   test_pile.sh path/to/throng path/to/mpiexec path/to/configs
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; CONF=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
largest() { sed -n 's/^summary: max_overlap \([^ ]*\) (\([^ ]*\) of the mean diameter.*/\2/p' "$1"; }
run() { # ranks, log, options...
  local np=$1 log=$2; shift 2
  logged "$log" timeout 600 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -options_file_yaml "$CONF/bench-dense.yaml" "$@"
}

PILE="-n 4000 -box 0,0,20.5,201 -steps 4000 -progress 0 -overlap_every 10 -output none -checkpoint none"
# shellcheck disable=SC2086 # the option strings are word lists
check "pbdw pile run failed" run 1 pbdw.log $PILE -solver pbdw
# shellcheck disable=SC2086
check "pbd pile run failed" run 1 pbd.log $PILE -solver pbd
a=$(largest pbdw.log); b=$(largest pbd.log)
echo "200-layer pile, largest overlap over 4000 steps (of a diameter): pbdw $a, pbd $b"
check "pbdw: largest overlap $a > 1.2 % of a diameter" holds 'a <= 0.012' a="$a"
check "pbdw: skin exceeded" not grep -q skin_exceeded pbdw.log
check "pbd: largest overlap $b <= 5 %: the pile no longer tells the steppers apart" holds 'b > 0.05' b="$b"

S="-n 4000 -box 0,0,20.5,201 -solver pbdw -progress 0 -quiet"
# shellcheck disable=SC2086
check "1-rank run failed" run 1 r1.log $S -steps 600 -output none -checkpoint none
for np in 2 3; do
  # shellcheck disable=SC2086
  check "$np-rank run failed" run $np r$np.log $S -steps 600 -output none -checkpoint none
  check "pbdw: digest on $np ranks $(digest r$np.log) != 1 rank $(digest r1.log)" same "$(digest r$np.log)" "$(digest r1.log)"
done
# shellcheck disable=SC2086
check "checkpointed run failed" run 2 a.log $S -steps 250 -output "$dir/a" -output_every 0 -checkpoint_every 250
# shellcheck disable=SC2086
check "restart failed" run 3 b.log $S -steps 600 -output "$dir/b" -output_every 0 -restart a.chk.h5
check "pbdw restart (2 -> 3 ranks): digest $(digest b.log) != straight $(digest r1.log)" same "$(digest b.log)" "$(digest r1.log)"
has_slots() { h5ls a.chk.h5/checkpoint 2>/dev/null | grep -q warm_c0; }
check "the checkpoint has no contact slots (warm_c0)" has_slots

finish
